/* trace.h — a fixed run of every view's engine, written as numbers
 * (trace.c), so that the wasm build and the native build can be compared
 * bit for bit (tests/test_wasm.sh). */
#ifndef TRACE_H
#define TRACE_H
#include <stdint.h>

typedef struct trace trace;

/* Runs the fixed scenarios: seed 002's box (its first events: time, kind,
 * i, j; then every disk's state), the frame stepper from the same start,
 * the steered ball in each container under each law with a fixed input
 * sequence, and an air-hockey game. NULL if memory ran out. */
trace *trace_run(void);
/* The numbers, and the section each belongs to (a short name). */
int32_t trace_count(const trace *t);
const double *trace_values(const trace *t);
const uint8_t *trace_sections(const trace *t);
const char *trace_section_name(int32_t section);
/* 0 if every run went as expected; otherwise the carom_status of the first failure. */
int trace_status(const trace *t);
void trace_destroy(trace *t);

#endif
