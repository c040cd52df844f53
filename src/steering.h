/* steering.h — steered bodies in a world: the safety filter (filter.c)
 * applied to a body's own acceleration against the world's boundary and
 * the other steered bodies (steering.c). */
#ifndef CAROM_STEERING_H
#define CAROM_STEERING_H

#include <stdint.h>

#include "carom.h"

/* One steered body. A decision filters the player's input and holds the
 * result until hold_end (one filter window); a full-braking decision is
 * always held to its end (filter.c, step 1), any other is decided again at
 * the next carom_world_advance, at hold_end, or where its v / v_max crosses
 * sigma inside the hold (crossing). */
typedef struct steered_body {
    int32_t id;
    carom_filter_def def;
    double input[3];            /* the player's acceleration (own, as set_body_acceleration gave it) */
    carom_filter_result last;   /* the last decision */
    double hold_end;            /* absolute time */
    double crossing;            /* absolute time of the threshold crossing in this hold, or INFINITY */
    int braking;                /* the hold is full braking */
    int crossings_left;         /* crossing searches this hold may still make */
    /* The least clearance on the body's flights since least_from (the start
     * of the last carom_world_advance), up to its time stamp. */
    double least, least_from;
} steered_body;

typedef struct steering {
    int32_t count, capacity;
    steered_body *bodies;       /* sorted by id */
    void *scratch;              /* filter constraints for one decision (capacity of them) */
    /* Measured: decisions made, and those made at a threshold crossing. */
    int64_t decisions, crossing_decisions;
    /* 1: no crossing events (decisions at window starts and hold ends only),
     * to measure what the crossings gain (tests and benchmarks). */
    int no_crossings;
} steering;

typedef struct carom_world carom_world;

/* The steered body of id, or NULL. */
steered_body *steering_find(const carom_world *w, int32_t id);
/* If body id is steered, keeps a as its player's input (applied at its next
 * decision) and returns 1; 0 otherwise. */
int steering_take_input(carom_world *w, int32_t id, const double a[3]);
/* A window of carom_world_advance starts: every steered body not in a
 * braking hold is decided now. */
void steering_window_start(carom_world *w);
/* The time of body (slot)'s next decision inside a run (hold end or
 * crossing), INFINITY if it is not steered. */
double steering_event_time(const carom_world *w, int32_t slot);
/* Body (slot) is decided again at the clock (its EVENT_FILTER came due). */
void steering_process(carom_world *w, int32_t slot);
void steering_free(carom_world *w);
/* Body (slot) is about to be brought from its time stamp to t (an event, a
 * decision): its flight in between counts toward its least clearance. */
void steering_note_flight(carom_world *w, int32_t slot, double t);
/* Room for capacity steered bodies (a restore). 0, or -1 if out of memory. */
int steering_reserve(carom_world *w, int32_t capacity);

/* Sets body (slot, not kinematic)'s own acceleration a at the clock,
 * counting the work and predicting it again (steer.c): the path every
 * decision takes. */
void steer_apply_acceleration(carom_world *w, int32_t slot, const double a[3]);

#endif
