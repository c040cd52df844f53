/* settle.h — inelastic bodies coming to rest: resting contact on walls, the
 * closed-form end of a Zeno series of bounces, and the TC model against
 * inelastic collapse (see settle.c). */
#ifndef CAROM_SETTLE_H
#define CAROM_SETTLE_H

#include <stdint.h>

#include "carom.h"

/* Bits of a body's settle state. */
enum {
    SETTLE_RESTING = 1,   /* << axis: resting on that axis's floor (the wall gravity pushes it to) */
    SETTLE_FINISHING = 8  /* << axis: its Zeno series on that floor ends at zeno_end */
};

typedef struct settle {
    int floor_side[3]; /* per axis: +1 (gravity pushes to the + wall), -1, or 0 (no floor) */
    int floors;        /* some axis has a floor: bodies can rest */
    int collapse;      /* collisions can be inelastic: the TC model and last partners are kept */
    /* d / v at the first run (d the largest diameter, v^2 = <v^2> + |g| d), or
     * 0 before: the scale of "negligible" for the jam guard's creeping clock. */
    double time_scale;
    double creep_span; /* 2^-40 of it */
    /* The latest clock at which motion is still resolved: 2^32 time scales,
     * where a unit in the last place of the clock is 2^-20 of the time scale
     * (INFINITY while the time scale is unknown). */
    double clock_limit;
    double gravity_of[8][3]; /* the world's gravity without the axes of each resting mask */
    /* By body id (never permuted with the memory layout); allocated with the
     * world's other per-body arrays (world_reserve_bodies): */
    uint8_t *state;          /* SETTLE_* bits; NULL without floors */
    double *zeno;            /* 6 per body: end and tolerance of the series on each axis */
    double *last_pair_time;  /* time of the last pair collision (-inf: none); NULL when elastic */
    int32_t *last_partner;   /* id of the last pair partner, -1 after a wall or none */
} settle;

/* Whether a world of this def keeps per-body floor state (some wall faces
 * gravity), and the TC model's state (a restitution below 1). */
int settle_def_has_floors(const carom_world_def *def);
int settle_def_has_collapse(const carom_world_def *def);
void settle_configure(carom_world *w);
void settle_new_body(carom_world *w, int32_t id);
/* Body id never comes to rest on a floor (no Zeno series): it bounces, and
 * the TC model keeps it hopping. Driven bodies, polygons, and every body
 * when walls are rough (a rest would skip the spin each bounce changes). */
int settle_bounces_only(const carom_world *w, int32_t id);
/* Does the TC model make a pair collision (slots i, j) or a wall bounce at t
 * (previous: the time of the body's previous event) elastic? Then it
 * dissipates nothing: normal restitution 1 and, for rough bodies, smooth
 * (tangential restitution -1), as at a lasting contact. */
int settle_pair_is_tc(const carom_world *w, int32_t i, int32_t j, double t);
int settle_wall_is_tc(const carom_world *w, int32_t i, int wall, double t, double speed, double previous);
/* Their restitution: 1 under the TC model, else the world's. */
double settle_pair_restitution(const carom_world *w, int32_t i, int32_t j, double t);
double settle_wall_restitution(const carom_world *w, int32_t i, int wall, double t, double speed,
                               double previous);
/* At a rebuild: the time scale and, if automatic, the TC model's time. */
void settle_resolve_scales(carom_world *w);
void settle_set_time_scale(carom_world *w, double time_scale);
/* The slot body i may not be offered an event with (see settle.c), or -1. */
int32_t settle_just_partner(const carom_world *w, int32_t i);
void settle_rest(carom_world *w, int32_t i, int axis);
void settle_after_kick(carom_world *w, int32_t i);
/* Body i (slot) leaves every floor and series it was on (moved, or driven). */
void settle_release(carom_world *w, int32_t i);
void settle_after_pair(carom_world *w, int32_t i, int32_t j, double t);
void settle_after_wall(carom_world *w, int32_t i, int wall, double t, double e);
void settle_detect_body(carom_world *w, int32_t i);
void settle_detect(carom_world *w);

#endif
