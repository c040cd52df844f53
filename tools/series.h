/* series.h — `carom run --series FILE.csv`: the run's statistics over time,
 * one CSV row at each instant t0 + k * every (issue 15, for carom plot). */
#ifndef CAROM_SERIES_H
#define CAROM_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "carom.h"
#include "outfile.h"

typedef struct series {
    outfile out;
    double origin, every;  /* row k at origin + k * every */
    int64_t index;         /* the next row */
    int64_t rows;          /* written so far */
    carom_stats last;      /* the statistics at the previous row (interval averages are differences) */
} series;

/* Opens path and writes the header and the row of now. Returns 0, or -1 with a message. */
int series_open(series *s, const char *path, double every, const carom_world *world, char *why, size_t why_size);
double series_next_time(const series *s);
/* The row of now. Returns 0, or -1 with a message. */
int series_row(series *s, const carom_world *world, char *why, size_t why_size);
/* Completes the file (renamed into place). Returns 0, or -1 with a message. */
int series_close(series *s, char *why, size_t why_size);
void series_discard(series *s);

#endif
