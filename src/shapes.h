/* shapes.h — polygon bodies in the world (issue 14, items 3 and 4): their
 * contact times with other bodies, the walls and a convex container (by
 * shapecast.c), the impulse when they meet (impulse.c), exact placement
 * checks, and their vertices for the API. Disks and spheres never come
 * here: a world without polygons never calls any of it. */
#ifndef CAROM_SHAPES_H
#define CAROM_SHAPES_H

#include "world.h"

/* Is body slot i a polygon? */
static inline int shapes_is_polygon(const carom_world *w, int32_t i)
{
    return spin_polygon(&w->spin, i) != (const polygon_shape *)0; /* it looks at polygons first */
}

/* The contact time of slots i and j (j seen through shift) before horizon
 * (absolute), at least one a polygon: the time, or INFINITY (or a time >=
 * horizon). *recheck is set when the search ran out of steps: the time is
 * then where to predict again, not a contact. The same bits from either side. */
double shapes_pair_time(const carom_world *w, int32_t i, int32_t j, const double shift[3],
                        double horizon, int *recheck);

/* Polygon slot i's earliest contact with a box wall (*wall its number) or,
 * in a container world, the container (*wall = CAROM_WALL_CONTAINER), before
 * horizon (absolute); *recheck as above. A kinematic polygon passes through
 * walls (it goes where it is driven): INFINITY, *wall = -1. */
double shapes_wall_time(const carom_world *w, int32_t i, double horizon, int *wall, int *recheck);

/* The impulse of a collision at the clock between slots i and j (at least
 * one a polygon; both brought to the clock, j seen at dr = x_j - x_i from i)
 * with restitution e and friction mu: velocities and spins change; returns |P| and sets
 * *virial to dr . P_j. A kinematic body keeps its motion; the kinetic energy
 * it gives is added to kinematic_work. */
double shapes_collide_pair(carom_world *w, int32_t i, int32_t j, const double dr[3], double e, double mu,
                           double *virial);

/* Does the TC model make the bounce of polygon slot i against a wall or the
 * container at t (previous: its previous event) dissipate nothing? Within
 * collapse_time of its previous event (a polygon never rests on a floor: it
 * keeps hopping instead of making a Zeno series). Then the bounce is
 * elastic and frictionless. */
int shapes_wall_is_tc(const carom_world *w, int32_t i, double t, double previous);

/* The bounce of polygon slot i (at the clock) off wall (a box wall or
 * CAROM_WALL_CONTAINER) with restitution e and friction mu: returns the
 * normal impulse. */
double shapes_collide_wall(carom_world *w, int32_t i, int wall, double e, double mu);

/* Checks that a polygon (shape at angle), or a disk of radius radius (shape
 * NULL) in a world with polygons, fits at x now: inside the walls (a
 * polygon by its vertices), inside a convex container (a polygon refused in
 * a container that is not convex), overlapping no body but slot skip
 * (exact distances wherever a polygon is involved). */
carom_status shapes_check_place(carom_world *w, int32_t id, const double x[3], double radius,
                                const polygon_shape *shape, double angle, int32_t skip);

#endif
