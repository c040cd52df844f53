/* report.h — what a run tells its user: the statistics as JSON, and a
 * progress bar on a terminal. */
#ifndef CAROM_REPORT_H
#define CAROM_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "carom.h"
#include "session.h"

/* Seconds on a monotonic clock. */
double report_wall_seconds(void);

/* Writes the statistics object (see the README for the keys). wall_seconds
 * and events_run are this process's share of the run; status is
 * "completed", "interrupted" or "failed", and message says why (or is
 * empty). Returns 0 or -1. */
int report_stats_json(FILE *out, const carom_world *world, const session *s, double wall_seconds,
                      int64_t events_run, const char *status, const char *message);

typedef struct progress {
    int enabled;
    double started, drawn; /* wall clock */
    double start_time;     /* simulated */
    int64_t start_events;
} progress;

/* Enabled only if standard error is a terminal and not quiet. */
void progress_start(progress *p, int quiet, const carom_world *world);
/* Redraws at most a few times a second. */
void progress_update(progress *p, const carom_world *world, const session *s);
/* Draws the bar a last time (full if the run completed) and ends its line. */
void progress_finish(progress *p, const carom_world *world, const session *s, int completed);

#endif
