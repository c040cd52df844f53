/* shapecast.h — the time of first contact of rotating 2D shapes (issue 14,
 * item 3; seed 004, "time of impact for general objects"): a convex polygon
 * against a polygon or a disk, against a wall (a half-plane), or inside a
 * convex container, found by conservative advancement on the exact distance
 * (polygon.h). Pure functions of the bodies' motions; see shapecast.c for
 * the method and the proof that no contact is skipped. */
#ifndef CAROM_SHAPECAST_H
#define CAROM_SHAPECAST_H

#include "container.h"
#include "polygon.h"

/* A body's motion from s = 0: centre x + v s + a s^2 / 2, angle
 * angle + omega s (radians, counter-clockwise). */
typedef struct shapecast_body {
    const polygon_shape *shape; /* NULL: a disk */
    double radius;              /* a disk's radius; a polygon's bounding radius (shape->radius) */
    double x[2], v[2], a[2];
    double angle, omega;
} shapecast_body;

/* What a search found. */
enum {
    SHAPECAST_NONE = 0, /* no contact before the horizon: *time is INFINITY */
    SHAPECAST_CONTACT =
        1, /* a contact at *time: gap <= tolerance and the contact points approach */
    SHAPECAST_RECHECK =
        2 /* the step budget ran out at *time, with no contact before: search again from there */
};

/* Distance queries a search may make before it gives up with SHAPECAST_RECHECK. */
#define SHAPECAST_BUDGET 64

/* The contact tolerance of a pair or a wall: CAROM_CONTACT_TOLERANCE times
 * the sum of the bounding radii (a wall counts 0). */
double shapecast_tolerance(double size);

/* The gap between two bodies at s (at least one a polygon), with the contact
 * (polygon.h: a is the first shape of the query; a disk against a polygon is
 * queried the other way round and the contact turned back, so contact->normal
 * always points from a to b), and the normal relative speed of the contact
 * points, (velocity of b - velocity of a) . normal, the most negative over the
 * ends of a face-face contact: < 0 means approaching. */
double shapecast_pair_gap(const shapecast_body *a, const shapecast_body *b, double s,
                          polygon_contact *contact, double *normal_speed);

/* The earliest s in [0, horizon) at which polygon or disk a meets b (at
 * least one of them a polygon): SHAPECAST_CONTACT and *time = s, or
 * SHAPECAST_NONE, or SHAPECAST_RECHECK. Contact means: gap <= tolerance
 * (shapecast_tolerance(a->radius + b->radius)) and the contact points
 * approach. Guarantee (shapecast.c): before the returned time the true gap
 * never fell below -tolerance / 2 (by more than tolerance / 8 where a vertex
 * glides along a face, neither approaching nor leaving); so no contact
 * deeper than that is skipped. The same bits for (a, b) and (b, a) are NOT
 * promised: callers
 * order a pair (by body id). */
int shapecast_pair(const shapecast_body *a, const shapecast_body *b, double horizon, double *time);

/* A wall: the half-plane normal . p <= offset is inside (normal unit,
 * pointing out through the wall). The gap of polygon body at s: offset - the
 * largest normal . vertex; *point the contact point (the deepest vertex, or
 * the middle of a face lying flat within POLYGON_PARALLEL_SINE), *from and
 * *to the face's ends (both *point for a vertex), *normal_speed the speed of
 * the contact point along normal (> 0: approaching the wall), the largest
 * over a face's ends. */
double shapecast_wall_gap(const shapecast_body *body, const double normal[2], double offset,
                          double s, double point[2], double from[2], double to[2],
                          double *normal_speed);
int shapecast_wall(const shapecast_body *body, const double normal[2], double offset,
                   double horizon, double *time);

/* Is the container convex, so that a polygon is inside it exactly when its
 * vertices are (its shapes combined by intersection only, no caller's
 * function)? */
int shapecast_container_is_convex(const carom_container *c);
/* A polygon inside a convex container: the gap at s is the least signed
 * distance over the vertices (exact for a convex container, whose signed
 * distance is concave inside); *vertex the vertex that has it, *outward the
 * boundary's outward unit normal there, *normal_speed that vertex's speed
 * along it (> 0: approaching). */
double shapecast_container_gap(const shapecast_body *body, const carom_container *c, double s,
                               int *vertex, double point[2], double outward[2],
                               double *normal_speed);
int shapecast_container(const shapecast_body *body, const carom_container *c, double horizon,
                        double *time);

/* Body b's centre, velocity and angle at s. */
void shapecast_state_at(const shapecast_body *b, double s, double x[2], double v[2], double *angle);

#endif
