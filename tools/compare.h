/* compare.h — `carom compare`: the frame-based and bisection steppers
 * against the exact engine from the same initial state (seed 002's
 * experiment, seed 004's method), and how their costs scale. */
#ifndef CAROM_COMPARE_H
#define CAROM_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "carom.h"

enum { COMPARE_MAX_DT = 16 };

/* What the command line asks for. Absent values: NULL, NAN, 0. */
typedef struct compare_options {
    const char *scenario;
    double dt[COMPARE_MAX_DT];
    int dt_count;
    double eps;          /* NAN: dt / 2^20 */
    double until;        /* NAN: the scenario's */
    int has_seed;
    uint64_t seed;
    int all_pairs, quiet, scaling, quick;
    int checkpoints;     /* times the positions are compared (default 32) */
    const char *json, *csv;
    const char *movie;   /* --movie: the exact engine and the frame stepper (the first dt) side by side */
    int fps;             /* its frames per second (default 30) */
    double speed;        /* simulated time per second of movie (NAN: the comparison in 10 s) */
    int movie_width, movie_height; /* 0: 1280 x 480 */
} compare_options;

/* carom compare ARGS...: parses the options and runs. Returns the exit
 * status (0, 1 bad input or failed run, 2 bad usage) after printing. */
int compare_command(int argc, char **argv);

/* One line per sample of a cost measurement (scaling.c). */
int scaling_run(const compare_options *o, char *error, size_t error_size);
/* Whether an output goes to standard output ("-"): the table then goes to standard error. */
int compare_writes_stdout(const compare_options *o);

#endif
