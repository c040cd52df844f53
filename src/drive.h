/* drive.h — driven bodies: each body's own constant acceleration, and
 * kinematic bodies (infinite mass) that follow their own motion whatever
 * hits them (see drive.c). */
#ifndef CAROM_DRIVE_H
#define CAROM_DRIVE_H

#include <math.h>
#include <stdint.h>

#include "carom.h"

typedef struct drive {
    /* Some body has had an own acceleration or is kinematic: the arrays below
     * exist (allocated with the world's other per-body arrays) and every
     * prediction uses the general kernel. Never turned off. */
    int on;
    int32_t kinematic; /* kinematic bodies in the world */
    /* By body id (never permuted with the memory layout): */
    double *own;       /* 3 per body: its own acceleration */
    double *total;     /* 3 per body: what it flies with (g + own; own alone if kinematic) */
    uint8_t *moved;    /* 1: it flies with total (own acceleration or kinematic), not world gravity */
} drive;

typedef struct carom_world carom_world;

static inline int drive_is_kinematic(double mass) { return mass == INFINITY; }

/* Turns driven bodies on (the arrays for the world's capacity, every body
 * without an own acceleration). 0, or -1 if out of memory (nothing changed). */
int drive_enable(carom_world *w);
/* A new body (id) with its own acceleration a (the arrays exist). */
void drive_new_body(carom_world *w, int32_t id, const double a[3]);
/* Body (slot i, at the clock) gets own acceleration a from now on. */
void drive_set(carom_world *w, int32_t i, const double a[3]);
/* Does body (slot i) fly with its own total acceleration? */
static inline int drive_moves(const drive *d, int32_t id) { return d->on && d->moved[id]; }
/* The acceleration a body (id) contributes to the potential energy: g + own. */
void drive_potential_field(const carom_world *w, int32_t id, double field[3]);

#endif
