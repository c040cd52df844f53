/* controls.h — a CSV file of accelerations that a windowed run replays
 * (scenario key run.controls): a header line, then one row per change,
 *
 *   time,body,ax,ay,az        (3D; in 2D az may be left out, or must be 0)
 *   0.5,3,1.0,0.0,0.0
 *
 * sorted by time. Row k's acceleration is set (carom_world_set_body_
 * acceleration) at the start of the first window that starts at or after
 * its time: window j starts at origin + j * window, and a row at time t
 * belongs to window ceil((t - origin) / window - 1e-9) (never below 0), so a
 * time written in decimal on a window start lands on that start whatever
 * the rounding (0.14 / 0.02 is 7.000000000000001: still window 7). Rows of one window are applied in
 * file order. */
#ifndef CAROM_CONTROLS_H
#define CAROM_CONTROLS_H

#include <stddef.h>
#include <stdint.h>

#include "carom.h"

typedef struct control_row {
    double time;
    int32_t body;
    carom_vec acceleration;
    int64_t line; /* in the file, for messages */
} control_row;

typedef struct controls {
    char *path;        /* as given, for messages */
    control_row *rows;
    int64_t count;
    int64_t next;      /* the first row not applied yet */
    uint32_t checksum; /* CRC-32C of the file's bytes: a restart checks the file is unchanged */
} controls;

/* Reads and checks the whole file for a world of dim and bodies bodies.
 * Returns 0, or -1 with "FILE:LINE:COL: what is wrong (what was expected)"
 * in error and nothing held. */
int controls_load(const char *path, int dim, int32_t bodies, controls *c, char *error,
                  size_t error_size);

/* The window a row at time t belongs to (see above). */
int64_t controls_window_of(double time, double origin, double window);

/* Sets the accelerations of every row not applied yet whose window is at
 * most `window` (the one starting now). Returns 0, or -1 with
 * "FILE:LINE: why the world refused it" in error. */
int controls_apply(controls *c, carom_world *world, int64_t window, double origin, double length,
                   char *error, size_t error_size);

void controls_free(controls *c);

#endif
