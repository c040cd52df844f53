/* polygon.h — 2D convex polygons as pure functions (issue 14, seed 004):
 * a shape record with its area, centroid and second moment, validated
 * builders, placement in the world, the signed distance between two placed
 * shapes (polygon–polygon, polygon–disk) with closest points, normal and
 * contact feature, and the bound on how fast that distance can fall, which
 * conservative advancement needs. No allocation: a shape holds at most
 * POLYGON_MAX_VERTICES vertices. */
#ifndef CAROM_POLYGON_H
#define CAROM_POLYGON_H

#include <stddef.h>

#include "carom.h"

#define POLYGON_MAX_VERTICES 64

/* Two consecutive edges whose directions differ by less than this sine
 * (|e1 x e2| <= POLYGON_COLLINEAR_SINE |e1| |e2|) are refused as collinear. */
#define POLYGON_COLLINEAR_SINE 1e-12
/* Coordinates beyond this are refused (their products would overflow). */
#define POLYGON_COORDINATE_LIMIT 1e150
/* Two faces whose outward normals are opposite within this sine are taken as
 * parallel: the contact is edge–edge and its point the middle of the faces'
 * overlap (so that a box landing flat is pushed through its middle). */
#define POLYGON_PARALLEL_SINE 1e-9

/* A convex polygon in its body frame: counter-clockwise, the centroid at the
 * origin. Edge i runs from vertex i to vertex i + 1 (mod count); normal[i] is
 * its unit outward normal. */
typedef struct polygon_shape {
    int count;
    double vertex[POLYGON_MAX_VERTICES][2];
    double normal[POLYGON_MAX_VERTICES][2];
    double area;
    /* polar: the integral of |r|^2 dA about the centroid; I = mass * second_moment / area */
    double second_moment;
    double radius; /* bounding radius: the largest |vertex| */
} polygon_shape;

/* Where a body is: its centroid (x, y) and the angle (radians, counter-
 * clockwise) that turns the body frame into the world frame. */
typedef struct polygon_pose {
    double x, y, angle;
} polygon_pose;

/* The builders fill *shape and return CAROM_OK, or return
 * CAROM_INVALID_ARGUMENT with why (if not NULL) saying what is wrong: for a
 * vertex list, the vertex (counted from 0, in the caller's order) and what was
 * expected. *shape is left as it was when a builder refuses. */

/* From count vertices xy[k] = {x, y}, in either winding. Refused: fewer than
 * 3 or more than POLYGON_MAX_VERTICES vertices, a non-finite coordinate or
 * one beyond POLYGON_COORDINATE_LIMIT, a
 * vertex equal to the next, three consecutive vertices on a line, a turn
 * against the winding (non-convex), a boundary that winds around more than
 * once (a star: self-intersecting), zero area, a second moment that
 * underflows to 0 (a polygon smaller than about 1e-77). The vertices are moved so that
 * the centroid is the origin; centroid (if not NULL) gets where it was in the
 * caller's frame. A clockwise list is stored reversed, vertex 0 kept first
 * (shape vertex j is the caller's vertex (count - j) mod count). */
carom_status polygon_from_vertices(const double (*xy)[2], int count, polygon_shape *shape,
                                   double centroid[2], char *why, size_t why_size);
/* A width x height box, sides along the body axes. */
carom_status polygon_from_box(double width, double height, polygon_shape *shape, char *why,
                              size_t why_size);
/* A regular polygon of sides sides (3 .. POLYGON_MAX_VERTICES) whose vertices
 * lie on a circle of circumradius radius; one edge at the bottom, parallel to
 * the body x axis (so a square is axis-aligned, a hexagon lies flat). */
carom_status polygon_regular(int sides, double radius, polygon_shape *shape, char *why,
                             size_t why_size);

/* The world-frame vertices: world[k] = pose centre + rotation(angle) vertex[k]. */
void polygon_place(const polygon_shape *shape, const polygon_pose *pose, double world[][2]);

/* Which features of the first and the second shape are closest. A disk
 * counts as a vertex (its centre) of the second shape. */
typedef enum polygon_feature {
    POLYGON_VERTEX_VERTEX, /* feature_a, feature_b: vertex indices */
    POLYGON_VERTEX_EDGE,   /* a vertex of the first against an edge of the second */
    POLYGON_EDGE_VERTEX,   /* an edge of the first against a vertex of the second */
    POLYGON_EDGE_EDGE      /* parallel faces overlapping over a segment: both edge indices */
} polygon_feature;

/* The answer of a distance query between placed shapes a (first) and b. */
typedef struct polygon_contact {
    double distance;  /* > 0: the gap; <= 0: minus the penetration depth */
    double normal[2]; /* unit, from a towards b: moving b along it separates them fastest */
    /* Closest points (world frame), point_b - point_a = distance * normal: on
     * the boundaries when separated; when overlapping, point_b or point_a is
     * the deepest vertex and the other its projection on the face's line. */
    double point_a[2], point_b[2];
    /* Where the impulse acts: halfway between point_a and point_b, or for
     * EDGE_EDGE the middle of the faces' overlap, on the faces' midline. */
    double point[2];
    /* EDGE_EDGE: the ends of that overlap; otherwise both equal point. */
    double face_from[2], face_to[2];
    polygon_feature feature;
    int feature_a, feature_b; /* vertex or edge indices (edge i: vertex i to i + 1); a disk: 0 */
} polygon_contact;

/* The signed distance between two placed convex polygons.
 * Separated (some edge normal separates them; separating-axis theorem): the
 * least distance over all vertex–edge pairs, O(n m), and those closest points.
 * Overlapping or touching: minus the penetration depth, the least overlap of
 * the projections over all edge normals of both (exact for convex polygons,
 * whose Minkowski difference has only those normals), with that axis as the
 * normal, point_b the deepest vertex and point_a its projection on the face.
 * Rounding: no tolerance is applied to the distance; its error is a few ulps
 * of the placed coordinates (tests/test_polygon.c measures at most 1.1e-15
 * against a long double reference for coordinates up to about 5, and point_b
 * - point_a = distance * normal within 1e-12). The only tolerance is
 * POLYGON_PARALLEL_SINE, which picks the feature and contact point, never the
 * distance or the normal. */
void polygon_distance(const polygon_shape *a, const polygon_pose *pose_a, const polygon_shape *b,
                      const polygon_pose *pose_b, polygon_contact *contact);

/* The same between a placed polygon a (first) and a disk (second) of the
 * given centre and radius (>= 0; 0 is a point): exact, since the distance from
 * the centre to a convex polygon is the least distance to its edges outside
 * and the least distance to its edge lines inside. */
void polygon_disk_distance(const polygon_shape *a, const polygon_pose *pose_a,
                           const double centre[2], double radius, polygon_contact *contact);

/* The fastest rate at which the distance between two bodies can fall while
 * they move with constant linear velocities v1, v2 and angular velocities w1,
 * w2 (rad per unit time), bounding radii r1, r2 about their centres of
 * rotation (a disk: pass w = 0 or r = 0):
 *     |v1 - v2| + |w1| r1 + |w2| r2.
 * Every point of body k moves at speed at most |v_k| + |w_k| r_k relative to
 * its centre, so every pair of points closes at most at this rate, and so does
 * the least distance (and the penetration depth, a support-function
 * difference). Over a time t the distance falls by at most rate * t: a
 * conservative-advancement step of distance / rate never passes a contact. */
/* Are a and b the same polygon up to round-off (the same vertex count, and
 * vertices, normals, area, second moment and radius within 1e-12 relative
 * to the size)? A snapshot's saved polygon against the one built again from
 * its vertices. */
int polygon_same_shape(const polygon_shape *a, const polygon_shape *b);

double polygon_approach_rate_bound(const double v1[2], double w1, double r1, const double v2[2],
                                   double w2, double r2);

#endif
