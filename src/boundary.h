/* boundary.h — when a body meets a container's boundary: exact event times
 * for carom's shapes (lines, planes, circles, spheres, cylinders: roots of
 * quadratics, or quartics under acceleration) and their unions,
 * intersections and differences; certified ones (never a missed contact)
 * for a caller's distance function. Pure functions of the container and one
 * body's motion. */
#ifndef CAROM_BOUNDARY_H
#define CAROM_BOUNDARY_H

#include "container.h"

/* The earliest s in [0, horizon) at which a body of this radius, whose centre
 * moves as x + v s + a s^2 / 2, touches the container's boundary while its
 * clearance (distance - radius) is decreasing, or INFINITY if it does not
 * before horizon (horizon may be INFINITY). Touching now and moving out: 0.
 * Returns 0 when the time is found, -1 when a caller's distance function was
 * seen to break its stated Lipschitz bound (then *time is INFINITY).
 * The tolerance of the times is stated in boundary.c.
 *
 * Added with boundary.c: BOUNDARY_RECHECK (1), only for a container with a
 * caller's function, when conservative advancement ran out of steps (a
 * trajectory grazing the boundary for long): *time is then the time reached,
 * where the body's clearance is still positive and no contact came before;
 * it is not a contact: predict again from there (as after a cell crossing),
 * do not reflect. */
enum { BOUNDARY_LIPSCHITZ_BROKEN = -1, BOUNDARY_FOUND = 0, BOUNDARY_RECHECK = 1 };
int boundary_contact_time(const carom_container *c, const double x[3], const double v[3], const double a[3],
                          double radius, double horizon, double *time);

/* The unit normal of the boundary at a contact of a body centred at x,
 * pointing out of the container (minus the distance's normalised gradient). */
void boundary_outward_normal(const carom_container *c, const double x[3], double normal[3]);

#endif
