/* frame.h — the frame-based steppers' state, shared by frame.c (lifecycle
 * and the plain stepper), contact.c (finding overlaps) and impact.c (the
 * bisection stepper). */
#ifndef CAROM_FRAME_H
#define CAROM_FRAME_H

#include <stdint.h>

#include "carom.h"
#include "cells.h"

/* A pair found overlapping: i < j. */
typedef struct frame_pair {
    int32_t i, j;
} frame_pair;

/* A contact the bisection stepper will apply at time t, unless one of its
 * bodies has collided since it was found (the counters tell). */
typedef struct impact_candidate {
    double t;
    int32_t i;
    int32_t j; /* the partner, or -1 - wall for a wall */
    uint32_t counter_i, counter_j;
} impact_candidate;

struct carom_frame {
    carom_world_def world;
    carom_frame_def def;
    int dim;
    double side[3], half[3];
    int periodic[3];
    double gravity[3];
    int has_gravity;

    int32_t count;
    double *x, *v;        /* 3 per body: position (unwrapped within a frame) and velocity at t[i] */
    double *t;            /* each body's time stamp (the bisection stepper moves bodies lazily) */
    double *end;          /* 3 per body: where contacts are looked for (the frame end), wrapped */
    double *radius, *mass;
    uint32_t *collisions; /* impulses each body took part in; they also mark stale candidates */
    uint32_t *in_frame;   /* collisions of each body in the current frame (bisection's jam bound) */
    uint8_t *dirty;       /* plain: the body got an impulse in this pass */
    int32_t *dirty_list, dirty_count;
    int32_t *scan_list;   /* plain: the bodies the next pass looks at */
    double max_radius;

    cells grid;           /* unused with all_pairs */
    frame_pair *pairs;    /* overlapping pairs found by contact_find_pairs */
    int32_t pair_count, pair_capacity;
    impact_candidate *heap; /* bisection: pending contacts, earliest first */
    int32_t heap_count, heap_capacity;

    int32_t room;         /* bodies the per-body arrays hold (count, at least 1) */
    /* What a frame changes, saved before each frame so that one that runs
     * out of memory is undone (the stepper is then as after the frame before). */
    double *saved_x, *saved_v, *saved_t;
    uint32_t *saved_collisions;
    carom_frame_stats saved_stats;
    double saved_penetration_sum;
    int64_t saved_penetration_count;
    int saved_jam_reported;

    double base_time;     /* the clock is base_time + frames_since_base * def.dt */
    int64_t frames_since_base;
    carom_frame_stats stats;
    double penetration_sum;
    int64_t penetration_count;
    int jam_reported;     /* a jam warning is already in message for this run */
    char message[256];
};

/* The clock. */
double frame_clock(const carom_frame *f);

/* Body i's position and velocity at time (free flight from its stamp). */
void frame_state_at(const carom_frame *f, int32_t i, double time, double x[3], double v[3]);
/* Brings body i to time (free flight). */
void frame_advance_body(carom_frame *f, int32_t i, double time);
/* Adds whole box sides on periodic axes so that x lies in [-half, half). */
void frame_wrap(const carom_frame *f, double x[3]);
/* xj - xi, by the nearest periodic image. */
void frame_separation(const carom_frame *f, const double xi[3], const double xj[3], double dr[3]);

/* Impulses at time (bodies i, j already there; dr = xj - xi). Record the
 * penetration and the counters, call the callback. Return 1 if an impulse
 * was applied; a pair that is not approaching gets none, and is counted as
 * a receding overlap if count_receding. */
int frame_collide_pair(carom_frame *f, int32_t i, int32_t j, const double dr[3], double time,
                       int count_receding);
int frame_collide_wall(carom_frame *f, int32_t i, int wall, double time);

/* How far body i at x reaches past wall (2 * axis + side), > 0 if it does. */
double frame_wall_depth(const carom_frame *f, int32_t i, const double x[3], int wall);

/* Records a jam warning (the first of a run is kept). */
void frame_report_jam(carom_frame *f, double time, int32_t body, const char *what);

#endif
