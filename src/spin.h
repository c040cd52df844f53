/* spin.h — rotation state and body shapes (issue 14, seed 004): each body's
 * orientation, angular velocity and moment of inertia, and the convex
 * polygon of a polygon body, in side arrays that exist only once some body
 * needs them (see spin.c). */
#ifndef CAROM_SPIN_H
#define CAROM_SPIN_H

#include <stdint.h>

#include "carom.h"
#include "polygon.h"

/* A body's spin record, one cache line: its angular velocity (2D: z
 * only), and its orientation at time since: 3D a unit quaternion (x y z w);
 * 2D [0] the angle (radians, not wrapped), [1..3] zero. The orientation is
 * brought forward only when the angular velocity changes, so a body's
 * orientation at t is exactly this one turned by omega (t - since). */
typedef struct spin_state {
    double omega[3];
    double since;
    double orientation[4];
} spin_state;
_Static_assert(sizeof(spin_state) == 64, "a spin record is one cache line");

typedef struct spin {
    /* The arrays below exist (allocated with the world's other per-body
     * arrays) once some body spins, is a polygon, has its own inertia, or the
     * world is rough. Never turned off. */
    int on;
    /* The world's tangential restitution or wall tangential restitution is
     * above -1: disk and sphere collisions use the rough law. */
    int rough;
    int32_t polygons; /* polygon bodies in the world */
    /* By slot, moved with the body when order.c re-sorts the memory: */
    spin_state *state;
    double *inertia;     /* about the centre of mass; INFINITY for a kinematic body */
    int32_t *shape;      /* index into shapes, or -1 for a disk or sphere */
    /* The distinct polygons (a body added with the same polygon as the body
     * before it shares its entry). */
    polygon_shape *shapes;
    int32_t shape_count, shape_capacity;
} spin;

typedef struct carom_world carom_world;

/* Turns rotation state on: the arrays for the world's capacity, every body
 * so far a disk or sphere at rest in the identity orientation with its
 * inertia from mass and radius. 0, or -1 if out of memory (nothing changed). */
int spin_enable(carom_world *w);
/* Does this body def need the arrays (spin, orientation, inertia, polygon)? */
int spin_needed_by(const carom_body_def *b, int dim);

/* Checks the rotation part of a body def (id for messages) and, for a
 * polygon, builds its shape into *shape (else shape->count = 0). CAROM_OK, or
 * CAROM_INVALID_ARGUMENT with the world's message naming the body, the field
 * and, for a polygon, the vertex. Changes nothing in the world but its message. */
carom_status spin_check_def(carom_world *w, int32_t id, const carom_body_def *b, polygon_shape *shape);
/* Makes room for one more distinct polygon. 0, or -1 if out of memory. */
int spin_reserve_shape(carom_world *w);
/* Stores a new body's rotation state in its slot (the arrays exist; shape as
 * spin_check_def built it, count 0 for a disk), orientation at the clock. */
void spin_new_body(carom_world *w, int32_t slot, const carom_body_def *b, const polygon_shape *shape);

/* The default moment of inertia of a disk (2D) or sphere (3D) of this mass and radius. */
double spin_round_inertia(int dim, double mass, double radius);

/* The orientation at time t of the body in slot: 2D the angle; 3D the unit
 * quaternion (x y z w). Identity when the arrays do not exist. */
double spin_angle_at(const carom_world *w, int32_t slot, double t);
void spin_quaternion_at(const carom_world *w, int32_t slot, double t, double q[4]);
/* Brings the stored orientation of the body in slot to time t (since = t),
 * before its angular velocity changes. */
void spin_bring(carom_world *w, int32_t slot, double t);
/* spin_bring of two bodies (slots), the same bits as two calls, their two
 * quaternion turns worked side by side (a rough collision's). */
void spin_bring_two(carom_world *w, int32_t a, int32_t b, double t);

/* The polygon of the body in slot, or NULL for a disk or sphere. */
static inline const polygon_shape *spin_polygon(const spin *s, int32_t slot)
{
    return s->polygons && s->shape[slot] >= 0 ? &s->shapes[s->shape[slot]] : (const polygon_shape *)0;
}

/* Rotational kinetic energy I w^2 / 2 of the body in slot (0 for a kinematic body). */
double spin_energy(const carom_world *w, int32_t slot);

/* Fills the rotation part of body id's state (orientation, angle, angular
 * velocity, inertia, polygon vertex count) at the world's clock. */
void spin_get_state(const carom_world *w, int32_t id, carom_body_state *state);

void spin_free(carom_world *w);

#endif
