/* world.h — the world's internal state, shared by the core's modules. */
#ifndef CAROM_WORLD_H
#define CAROM_WORLD_H

#include <stdint.h>

#include "calendar.h"
#include "carom.h"
#include "carries.h"
#include "cells.h"
#include "container.h"
#include "drive.h"
#include "measure.h"
#include "neighbours.h"
#include "sensor.h"
#include "settle.h"
#include "spin.h"
#include "steering.h"

/* The hot record of a body: what every prediction reads, one cache line.
 * Position and velocity are those at the body's own time stamp t (lazy
 * updates: a body is brought forward only when an event touches it). */
typedef struct body_hot {
    double x[3];
    double v[3];
    double t;
    double radius;
} body_hot;
_Static_assert(sizeof(body_hot) == 64, "the hot body record is one cache line");

struct carom_world {
    carom_world_def def;
    int dim;
    double side[3], half[3];
    int periodic[3];
    double gravity[3];
    /* Bodies may fly on parabolas (world gravity, or own accelerations once
     * driven bodies are on): the general kernels, not the straight-line ones. */
    int has_gravity;
    double clock;

    /* Bodies live in slots, which order.c permutes so that bodies near in
     * space are near in memory. Everything below is indexed by slot; the
     * API speaks of ids (the order of carom_world_add_body). Every choice
     * between equal times goes by id, so the layout never changes a result. */
    int32_t count, capacity;
    int32_t *id_of;   /* slot -> id */
    int32_t *slot_of; /* id -> slot */
    int64_t events_since_order;
    /* The bodies the calendar's look-ahead walk read one and two steps ago
     * (run.c, look_ahead: a wide calendar's prefetching; -1: none). */
    int32_t walked[2];
    body_hot *hot;
    /* Masses by slot; NULL while every body has common_mass (a fluid of one
     * kind: 8 bytes a body saved, and no load in a collision). world_mass reads it. */
    double *mass;
    double common_mass;
    /* Each body's stamp: it changes whenever the body's motion does, and a
     * prediction naming a partner whose stamp has changed since is stale.
     * While only collisions change motions (no floors to rest on, no driven
     * or kinematic bodies, no setter called), the stamp is the low 32 bits
     * of the collision count and counter is NULL (4 bytes a body saved);
     * own_stamps then turns it on for good. world_stamp reads it. */
    uint32_t *counter;
    int own_stamps;
    /* Pair and wall collisions of each body (what carom_body_state reports):
     * the low 32 bits; the few counts past 2^32 carry the rest in carried.
     * world_collisions reads a count, world_count_collision adds one. */
    uint32_t *collisions;
    carries carried;
    double max_radius;
    int screen_lanes; /* pair scans (lists, 3D cells) screen this many entries at a time (screen.h): 0, 4 or 8 */

    cells grid;       /* bodies by position, or by anchor when neighbour lists are on */
    neighbours nb;
    settle rest;      /* resting contacts, Zeno series, the TC model (settle.c) */
    drive drive;      /* own accelerations and kinematic bodies (drive.c) */
    sensors sense;    /* sensor planes (sensor.c) */
    spin spin;        /* orientation, angular velocity, inertia, polygons (spin.c) */
    steering steering; /* steered bodies: the safety filter (steering.c) */
    carom_container *container; /* the boundary instead of the box walls (the world's own copy), or NULL */
    double container_volume;    /* its volume (area in 2D), found at the first run; -1 until then */
    /* Set when a caller's container function was seen to break its stated
     * Lipschitz bound while predicting: the run stops with a message. */
    int container_broken;
    calendar cal;
    int32_t grid_bodies; /* bodies the grid was last sized for while adding */
    int needs_rebuild;  /* bodies were added: re-grid and predict everything */
    int in_callback;
    measure meas;
    char message[256];
};

/* Body s's scheduled event (kept in its calendar record, see calendar.h). */
static inline body_event *world_event(const carom_world *w, int32_t s) { return &w->cal.body[s].event; }

/* The grid cell body s is filed in. With neighbour lists on, the grid files
 * anchors, and after a rebuild keeps no per-body cell (4 bytes a body): the
 * cell is its anchor's, found as it was when the body was filed. */
static inline int32_t world_anchor_cell(const carom_world *w, int32_t s)
{
    const float *anchor = &w->nb.anchor[3 * s];
    const double a[3] = {anchor[0], anchor[1], anchor[2]};
    return cells_locate(&w->grid, a);
}
static inline int32_t world_cell(const carom_world *w, int32_t s)
{
    return w->grid.cell ? w->grid.cell[s] : world_anchor_cell(w, s);
}

/* Body s's collisions. */
static inline uint64_t world_collisions(const carom_world *w, int32_t s)
{
    uint64_t high = w->carried.count > 0 ? carries_high(&w->carried, w->id_of[s]) : 0;
    return high << 32 | w->collisions[s];
}
/* Body s took part in one more collision (room for a carry was reserved
 * before the event, world_reserve_carries). */
static inline void world_count_collision(carom_world *w, int32_t s)
{
    if (++w->collisions[s] == 0) carries_carry(&w->carried, w->id_of[s]);
}
/* Before an event of body s (with partner, or -1): room for the carries it
 * may make. 0, or -1 if out of memory. */
static inline int world_reserve_carries(carom_world *w, int32_t s, int32_t partner)
{
    int32_t more = (w->collisions[s] == UINT32_MAX) + (partner >= 0 && w->collisions[partner] == UINT32_MAX);
    return more > 0 ? carries_reserve(&w->carried, more) : 0;
}
/* Body s's stamp (see counter). */
static inline uint32_t world_stamp(const carom_world *w, int32_t s)
{
    return w->own_stamps ? w->counter[s] : (uint32_t)w->collisions[s];
}
/* Body s's motion changed: a new stamp (after a collision the count did it). */
static inline void world_restamp(carom_world *w, int32_t s)
{
    if (w->own_stamps) w->counter[s]++;
}
/* Stamps of their own for every body, from now on (before a change of
 * motion that is not a collision): the collision counts of the first
 * `counted` bodies (w->count, except while a snapshot is read), 0 for the
 * rest. 0, or -1 if out of memory (nothing changed). */
int world_own_stamps(carom_world *w, int32_t counted);

/* Body s's mass. */
static inline double world_mass(const carom_world *w, int32_t s) { return w->mass ? w->mass[s] : w->common_mass; }
/* Sets body s's mass (only_body: s is the world's first and only body): it
 * stays common while it is the same for every body; otherwise every body
 * gets its own. 0, or -1 if out of memory (then nothing changed). */
int world_set_mass(carom_world *w, int32_t s, double mass, int only_body);

/* Makes room for needed bodies in every per-body array. 0, or -1 if out of memory. */
int world_reserve_bodies(carom_world *w, int32_t needed);

/* Lengths, speeds and accelerations: 0, or a magnitude from 1e-75 to 1e75
 * (predictions square products of two); masses from 1e-100 to 1e100. */
int world_in_scale(double value);
int world_mass_in_range(double mass);

/* Checks that body id exists (CAROM_NOT_FOUND and a message otherwise). */
carom_status world_check_id(const carom_world *w, int32_t id);
/* Checks a body's number (what.axis, axis 0 for none): finite and in scale. */
carom_status world_check_number(carom_world *w, int32_t id, const char *what, char axis, double value);
/* Checks that a body (id) of this radius fits at x now: inside the box and
 * overlapping no body but the one in slot skip (-1: none); x is wrapped
 * into the box on periodic axes. */
carom_status world_check_place(carom_world *w, int32_t id, double x[3], double radius, int32_t skip);
/* The same for a body of this polygon (NULL: a disk of this radius) at this angle. */
carom_status world_check_place_shape(carom_world *w, int32_t id, double x[3], double radius, int32_t skip,
                                     const polygon_shape *shape, double angle);

/* Writes the world's message (printf-style) and returns status. */
carom_status world_fail(carom_world *w, carom_status status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
