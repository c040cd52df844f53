/* driven_common.h — helpers shared by the tests of time windows and driven
 * bodies (issue 12): a growing event log whose entries are copied field by
 * field into zeroed records (so memcmp compares values, never padding), an
 * optional stop after the k-th event, every body's state in zeroed records,
 * and the largest overlap between bodies or with a wall. */
#ifndef CAROM_TESTS_DRIVEN_COMMON_H
#define CAROM_TESTS_DRIVEN_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"

/* More events than any test here makes: a run that gets there is looping. */
#define DRIVEN_RUNAWAY 10000000u

typedef struct driven_log {
    carom_event *events;
    size_t count, capacity;
    size_t stop_after; /* the callback returns 1 after this many events in all (0: never) */
    int only_motion;   /* 1: keep pair, wall and rest events only (leave sensor events out) */
    size_t limit;      /* the callback stops the run at this many events seen (0: DRIVEN_RUNAWAY) */
    size_t seen;       /* events seen, kept or not */
} driven_log;

/* Field by field into zeroed bytes in place (a struct returned or assigned
 * by value need not carry its padding along). */
static inline void driven_copy_event(carom_event *to, const carom_event *e)
{
    memset(to, 0, sizeof *to);
    to->time = e->time, to->kind = e->kind, to->i = e->i, to->j = e->j;
    to->impulse = e->impulse, to->direction = e->direction;
}

static inline int driven_record(void *user, const carom_event *e)
{
    driven_log *log = user;
    if (++log->seen >= (log->limit > 0 ? log->limit : DRIVEN_RUNAWAY))
        return 1; /* a runaway: the test fails, not hangs */
    if (log->only_motion && e->kind == CAROM_EVENT_SENSOR) return 0;
    if (log->count == log->capacity) {
        size_t capacity = log->capacity ? 2 * log->capacity : 256;
        carom_event *grown = realloc(log->events, capacity * sizeof *grown);
        if (!grown) return 1; /* stops the run: the test then fails on the count */
        log->events = grown, log->capacity = capacity;
    }
    driven_copy_event(&log->events[log->count++], e);
    return log->stop_after > 0 && log->count == log->stop_after;
}

static inline void driven_log_free(driven_log *log)
{
    free(log->events);
    memset(log, 0, sizeof *log);
}

/* Same events, bit for bit? */
static inline int driven_logs_equal(const driven_log *a, const driven_log *b)
{
    return a->count == b->count &&
           (a->count == 0 || memcmp(a->events, b->events, a->count * sizeof *a->events) == 0);
}

/* Every body's state, read into zeroed records (the caller frees). */
static inline carom_body_state *driven_states(const carom_world *w)
{
    int32_t n = carom_world_body_count(w);
    carom_body_state *s = calloc((size_t)(n > 0 ? n : 1), sizeof *s);
    if (!s) return NULL;
    for (int32_t i = 0; i < n; i++) CHECK(carom_world_get_body(w, i, &s[i]) == CAROM_OK);
    return s;
}

/* Same bodies in the same states, bit for bit? */
static inline int driven_same_states(const carom_world *a, const carom_world *b)
{
    int32_t n = carom_world_body_count(a);
    if (n != carom_world_body_count(b)) return 0;
    carom_body_state *sa = driven_states(a), *sb = driven_states(b);
    int same = sa && sb && memcmp(sa, sb, (size_t)n * sizeof *sa) == 0;
    free(sa);
    free(sb);
    return same;
}

/* The deepest overlap (> 0) of two bodies, or of a body through a wall, of
 * the states given, in a box with these sides and boundaries. */
static inline double driven_worst_overlap(const carom_body_state *s, int32_t n, int dim,
                                          const double side[3], const int periodic[3])
{
    double worst = 0.0;
    for (int32_t i = 0; i < n; i++) {
        double x[3] = {s[i].position.x, s[i].position.y, s[i].position.z};
        for (int k = 0; k < dim; k++)
            if (!periodic[k]) worst = fmax(worst, fabs(x[k]) + s[i].radius - 0.5 * side[k]);
        for (int32_t j = i + 1; j < n; j++) {
            double xj[3] = {s[j].position.x, s[j].position.y, s[j].position.z}, d2 = 0.0;
            for (int k = 0; k < dim; k++) {
                double d = x[k] - xj[k];
                if (periodic[k]) d -= side[k] * nearbyint(d / side[k]);
                d2 += d * d;
            }
            worst = fmax(worst, s[i].radius + s[j].radius - sqrt(d2));
        }
    }
    return worst;
}

#endif
