/* polygon.c — 2D convex polygons (issue 14, seed 004): validated builders,
 * area, centroid and second moment, placement, the signed distance between
 * placed shapes, and the bound on its rate of fall for conservative
 * advancement.
 *
 * Area and centroid are the shoelace sums over the triangles (origin, v_k,
 * v_k+1); the polar second moment of such a triangle about the origin is
 * cross(v_k, v_k+1) (|v_k|^2 + v_k.v_k+1 + |v_k+1|^2) / 12 (the standard
 * polygon moment formulas, e.g. Bourke, "Calculating the area and centroid
 * of a polygon", 1988, and any statics text for the moment).
 *
 * Distance: two convex polygons are disjoint if and only if one of their
 * edge normals separates them (separating-axis theorem, Gottschalk et al.
 * 1996 for the general statement). Disjoint: the least distance is reached
 * with a vertex of one on an edge of the other, so the least of all n m
 * vertex–edge distances (both ways) is exact. Overlapping: the penetration
 * depth is the least projected overlap over those same normals (the
 * Minkowski difference of two convex polygons has no other edge normals), a
 * standard result used by e.g. Box2D's polygon manifolds (ideas only). */
#include "polygon.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "message.h"

static const double PI = 3.14159265358979323846;

/* ---------------------------------------------------------------- vectors */

static double cross(const double a[2], const double b[2]) { return a[0] * b[1] - a[1] * b[0]; }
static double dot(const double a[2], const double b[2]) { return a[0] * b[0] + a[1] * b[1]; }

static void difference(const double a[2], const double b[2], double out[2])
{
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
}

/* ---------------------------------------------------------------- validation */

static carom_status check_vertices_finite_and_distinct(const double (*xy)[2], int count, char *why,
                                                       size_t why_size)
{
    for (int k = 0; k < count; k++)
        if (!isfinite(xy[k][0]) || !isfinite(xy[k][1]))
            return message_refuse(why, why_size,
                          CAROM_INVALID_ARGUMENT, "vertex %d: the coordinates must be finite numbers, got (%g, %g)", k,
                          xy[k][0], xy[k][1]);
    for (int k = 0; k < count; k++)
        if (fabs(xy[k][0]) > POLYGON_COORDINATE_LIMIT || fabs(xy[k][1]) > POLYGON_COORDINATE_LIMIT)
            return message_refuse(
                why, why_size,
                CAROM_INVALID_ARGUMENT, "vertex %d: (%g, %g) is too far out: coordinates within +-%g keep the area finite",
                k, xy[k][0], xy[k][1], POLYGON_COORDINATE_LIMIT);
    for (int k = 0; k < count; k++) {
        int next = (k + 1) % count;
        if (xy[k][0] == xy[next][0] && xy[k][1] == xy[next][1])
            return message_refuse(
                why, why_size,
                CAROM_INVALID_ARGUMENT, "vertex %d repeats vertex %d at (%g, %g): consecutive vertices must differ", next,
                k, xy[k][0], xy[k][1]);
    }
    return CAROM_OK;
}

/* The turn at vertex k: cross of the incoming and outgoing edges, and the
 * signed angle between them. */
static double turn_at(const double (*xy)[2], int count, int k, double *angle)
{
    double in[2], out[2];
    difference(xy[k], xy[(k + count - 1) % count], in);
    difference(xy[(k + 1) % count], xy[k], out);
    double c = cross(in, out);
    *angle = atan2(c, dot(in, out));
    if (fabs(c) <= POLYGON_COLLINEAR_SINE * sqrt(dot(in, in)) * sqrt(dot(out, out))) return 0;
    return c;
}

static double shoelace_twice_area(const double (*xy)[2], int count)
{
    double sum = 0;
    for (int k = 0; k < count; k++) {
        double p[2], q[2];
        difference(xy[k], xy[0], p);
        difference(xy[(k + 1) % count], xy[0], q);
        sum += cross(p, q);
    }
    return sum;
}

/* Every turn non-zero and of the winding's sign, and the turns adding up to
 * one full circle; *winding gets +1 (counter-clockwise) or -1. */
static carom_status check_convex(const double (*xy)[2], int count, int *winding, char *why,
                                 size_t why_size)
{
    double twice_area = shoelace_twice_area(xy, count);
    double first_angle;
    double first_turn = turn_at(xy, count, 0, &first_angle);
    *winding = twice_area > 0 ? 1 : twice_area < 0 ? -1 : (first_turn >= 0 ? 1 : -1);
    double turned = 0;
    for (int k = 0; k < count; k++) {
        double angle;
        double turn = turn_at(xy, count, k, &angle);
        if (turn == 0)
            return message_refuse(why, why_size,
                          CAROM_INVALID_ARGUMENT, "vertex %d lies on the line through vertices %d and %d: "
                          "consecutive vertices must not be collinear (drop it)",
                          k, (k + count - 1) % count, (k + 1) % count);
        if ((turn > 0 ? 1 : -1) != *winding)
            return message_refuse(
                why, why_size,
                CAROM_INVALID_ARGUMENT, "vertex %d turns %s where the polygon winds %s: the polygon must be convex", k,
                turn > 0 ? "counter-clockwise" : "clockwise",
                *winding > 0 ? "counter-clockwise" : "clockwise");
        turned += fabs(angle);
        if (turned > 2 * PI + 1e-6)
            return message_refuse(why, why_size,
                          CAROM_INVALID_ARGUMENT, "the boundary turns past a full circle at vertex %d: it winds "
                          "around more than once (self-intersecting); a convex polygon's "
                          "vertices go once around it",
                          k);
    }
    if (!(fabs(twice_area) > 0) || !isfinite(twice_area))
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "the polygon's area is %s: expected a finite positive area",
                      isfinite(twice_area) ? "zero" : "not finite");
    return CAROM_OK;
}

/* ---------------------------------------------------------------- the shape record */

/* Area, centroid offset and second moment of counter-clockwise vertices,
 * which are moved so that the centroid is the origin. */
static void centre_and_measure(polygon_shape *s, double centroid[2])
{
    int n = s->count;
    double origin[2] = {s->vertex[0][0], s->vertex[0][1]};
    double twice_area = 0, cx = 0, cy = 0;
    for (int k = 0; k < n; k++) {
        double p[2], q[2];
        difference(s->vertex[k], origin, p);
        difference(s->vertex[(k + 1) % n], origin, q);
        double c = cross(p, q);
        twice_area += c;
        cx += (p[0] + q[0]) * c;
        cy += (p[1] + q[1]) * c;
    }
    double offset[2] = {cx / (3 * twice_area), cy / (3 * twice_area)};
    for (int k = 0; k < n; k++) {
        double p[2];
        difference(s->vertex[k], origin, p);
        s->vertex[k][0] = p[0] - offset[0];
        s->vertex[k][1] = p[1] - offset[1];
    }
    centroid[0] = origin[0] + offset[0];
    centroid[1] = origin[1] + offset[1];
    double area2 = 0, moment12 = 0, radius2 = 0;
    for (int k = 0; k < n; k++) {
        const double *p = s->vertex[k], *q = s->vertex[(k + 1) % n];
        double c = cross(p, q);
        area2 += c;
        moment12 += c * (dot(p, p) + dot(p, q) + dot(q, q));
        radius2 = fmax(radius2, dot(p, p));
    }
    s->area = area2 / 2;
    s->second_moment = moment12 / 12;
    s->radius = sqrt(radius2);
}

static void set_normals(polygon_shape *s)
{
    for (int k = 0; k < s->count; k++) {
        double e[2];
        difference(s->vertex[(k + 1) % s->count], s->vertex[k], e);
        double length = sqrt(dot(e, e));
        s->normal[k][0] = e[1] / length;
        s->normal[k][1] = -e[0] / length;
    }
}

carom_status polygon_from_vertices(const double (*xy)[2], int count, polygon_shape *shape,
                                   double centroid[2], char *why, size_t why_size)
{
    if (!xy || !shape)
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "no %s given", xy ? "shape to fill" : "vertices");
    if (count < 3)
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "a polygon needs at least 3 vertices, got %d", count);
    if (count > POLYGON_MAX_VERTICES)
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "a polygon has at most %d vertices, got %d",
                      POLYGON_MAX_VERTICES, count);
    carom_status status = check_vertices_finite_and_distinct(xy, count, why, why_size);
    int winding = 1;
    if (status == CAROM_OK) status = check_convex(xy, count, &winding, why, why_size);
    if (status != CAROM_OK) return status;
    polygon_shape s;
    memset(&s, 0, sizeof s);
    s.count = count;
    for (int j = 0; j < count; j++) {
        int from = winding > 0 ? j : (count - j) % count;
        s.vertex[j][0] = xy[from][0];
        s.vertex[j][1] = xy[from][1];
    }
    double where[2];
    centre_and_measure(&s, where);
    if (!(s.area > 0) || !(s.second_moment > 0) || !isfinite(s.second_moment))
        return message_refuse(why, why_size,
                      CAROM_INVALID_ARGUMENT, "the polygon's area or second moment is not a finite positive number "
                      "(the polygon is too large or too small)");
    set_normals(&s);
    *shape = s;
    if (centroid) {
        centroid[0] = where[0];
        centroid[1] = where[1];
    }
    return CAROM_OK;
}

carom_status polygon_from_box(double width, double height, polygon_shape *shape, char *why,
                              size_t why_size)
{
    if (!(width > 0) || !(height > 0) || !isfinite(width) || !isfinite(height))
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "a box needs a finite positive width and height, got [%g, %g]",
                      width, height);
    double w = width / 2, h = height / 2;
    const double xy[4][2] = {{-w, -h}, {w, -h}, {w, h}, {-w, h}};
    return polygon_from_vertices(xy, 4, shape, NULL, why, why_size);
}

carom_status polygon_regular(int sides, double radius, polygon_shape *shape, char *why,
                             size_t why_size)
{
    if (sides < 3 || sides > POLYGON_MAX_VERTICES)
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "a regular polygon needs 3 to %d sides, got %d",
                      POLYGON_MAX_VERTICES, sides);
    if (!(radius > 0) || !isfinite(radius))
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "a regular polygon needs a finite positive radius, got %g",
                      radius);
    double xy[POLYGON_MAX_VERTICES][2];
    for (int k = 0; k < sides; k++) {
        double angle = -PI / 2 - PI / sides + 2 * PI * k / sides;
        xy[k][0] = radius * cos(angle);
        xy[k][1] = radius * sin(angle);
    }
    return polygon_from_vertices((const double(*)[2])xy, sides, shape, NULL, why, why_size);
}

/* ---------------------------------------------------------------- placement */

typedef struct placed {
    int count;
    double v[POLYGON_MAX_VERTICES][2];
    double n[POLYGON_MAX_VERTICES][2];
} placed;

/* out[k] = offset + rotation(cosine, sine) in[k] */
static void rotate_all(const double (*in)[2], int count, double cosine, double sine,
                       const double offset[2], double out[][2])
{
    for (int k = 0; k < count; k++) {
        const double *v = in[k];
        out[k][0] = offset[0] + (cosine * v[0] - sine * v[1]);
        out[k][1] = offset[1] + (sine * v[0] + cosine * v[1]);
    }
}

void polygon_place(const polygon_shape *shape, const polygon_pose *pose, double world[][2])
{
    const double offset[2] = {pose->x, pose->y};
    rotate_all(shape->vertex, shape->count, cos(pose->angle), sin(pose->angle), offset, world);
}

static void place_with_normals(const polygon_shape *shape, const polygon_pose *pose, placed *p)
{
    const double offset[2] = {pose->x, pose->y}, none[2] = {0, 0};
    double c = cos(pose->angle), s = sin(pose->angle);
    p->count = shape->count;
    rotate_all(shape->vertex, shape->count, c, s, offset, p->v);
    rotate_all(shape->normal, shape->count, c, s, none, p->n);
}

/* ---------------------------------------------------------------- distance kernels */

/* The point of segment [a, b] closest to p, and its parameter clamped to
 * [0, 1] (0 and 1 give the ends exactly). */
static double closest_on_segment(const double a[2], const double b[2], const double p[2],
                                 double out[2])
{
    double e[2], d[2];
    difference(b, a, e);
    difference(p, a, d);
    double t = dot(d, e) / dot(e, e);
    if (!(t > 0)) {
        t = 0;
        out[0] = a[0], out[1] = a[1];
    } else if (!(t < 1)) {
        t = 1;
        out[0] = b[0], out[1] = b[1];
    } else {
        out[0] = a[0] + t * e[0];
        out[1] = a[1] + t * e[1];
    }
    return t;
}

/* The least of n . (q_k - p_edge) over q's vertices: how far q lies
 * outside p's edge line; *deepest gets the vertex. */
static double edge_separation(const placed *p, int edge, const placed *q, int *deepest)
{
    double best = INFINITY;
    for (int k = 0; k < q->count; k++) {
        double d[2];
        difference(q->v[k], p->v[edge], d);
        double s = dot(p->n[edge], d);
        if (s < best) best = s, *deepest = k;
    }
    return best;
}

/* The largest edge separation over p's edges (the first one on ties). */
static double largest_separation(const placed *p, const placed *q, int *edge, int *deepest)
{
    double best = -INFINITY;
    for (int i = 0; i < p->count; i++) {
        int k = 0;
        double s = edge_separation(p, i, q, &k);
        if (s > best) best = s, *edge = i, *deepest = k;
    }
    return best;
}

typedef struct closest_pair {
    double squared;
    double on_edge_side[2], vertex[2]; /* the point on the edge, the vertex */
    int edge, vertex_index;
    double t; /* where on the edge, in [0, 1] */
} closest_pair;

/* The closest pair with a vertex of q and a point on an edge of p. With
 * facing_only, an edge is skipped when the vertex lies inside its line: the
 * closest pair of disjoint shapes never needs it (a vertex nearest to an
 * edge's inside lies outside the line; one nearest to an end lies outside
 * the line of at least one of the two edges meeting there, since the end's
 * normal cone spans less than half a turn). */
static void vertices_to_edges(const placed *p, const placed *q, int facing_only, closest_pair *best)
{
    for (int j = 0; j < q->count; j++)
        for (int i = 0; i < p->count; i++) {
            double on[2], d[2];
            difference(q->v[j], p->v[i], d);
            if (facing_only && dot(p->n[i], d) < 0) continue;
            double t = closest_on_segment(p->v[i], p->v[(i + 1) % p->count], q->v[j], on);
            difference(q->v[j], on, d);
            double squared = dot(d, d);
            if (squared < best->squared) {
                best->squared = squared, best->t = t, best->edge = i, best->vertex_index = j;
                memcpy(best->on_edge_side, on, sizeof on);
                memcpy(best->vertex, q->v[j], sizeof on);
            }
        }
}

/* The feature on the edge side: the edge itself, or the vertex at an end. */
static int edge_side_feature(const closest_pair *c, int count, int *index)
{
    if (c->t == 0 || c->t == 1) {
        *index = (c->edge + (c->t == 1)) % count;
        return 0;
    }
    *index = c->edge;
    return 1;
}

/* Disjoint shapes: the closest vertex–edge pair. axis (the best separating
 * edge normal) is the normal only if the gap underflows to 0 (a guard
 * against a NaN normal: the builders refuse shapes small enough for that). */
static void separated_contact(const placed *a, const placed *b, const double axis[2],
                              polygon_contact *c)
{
    closest_pair ab = {INFINITY, {0, 0}, {0, 0}, 0, 0, 0}; /* vertex of b, edge of a */
    closest_pair ba = ab;                                  /* vertex of a, edge of b */
    vertices_to_edges(a, b, 1, &ab);
    vertices_to_edges(b, a, 1, &ba);
    /* only if rounding hid every facing pair */
    if (ab.squared == INFINITY && ba.squared == INFINITY) {
        vertices_to_edges(a, b, 0, &ab);
        vertices_to_edges(b, a, 0, &ba);
    }
    int edge_a = 0, edge_b = 0;
    if (ab.squared <= ba.squared) {
        int on_edge = edge_side_feature(&ab, a->count, &c->feature_a);
        c->feature_b = ab.vertex_index;
        memcpy(c->point_a, ab.on_edge_side, sizeof c->point_a);
        memcpy(c->point_b, ab.vertex, sizeof c->point_b);
        c->feature = on_edge ? POLYGON_EDGE_VERTEX : POLYGON_VERTEX_VERTEX;
        edge_a = on_edge;
    } else {
        int on_edge = edge_side_feature(&ba, b->count, &c->feature_b);
        c->feature_a = ba.vertex_index;
        memcpy(c->point_b, ba.on_edge_side, sizeof c->point_b);
        memcpy(c->point_a, ba.vertex, sizeof c->point_a);
        c->feature = on_edge ? POLYGON_VERTEX_EDGE : POLYGON_VERTEX_VERTEX;
        edge_b = on_edge;
    }
    double d[2];
    difference(c->point_b, c->point_a, d);
    c->distance = sqrt(dot(d, d));
    if (edge_a) { /* the edge's own normal: exact direction even when the gap is tiny */
        c->normal[0] = a->n[c->feature_a][0], c->normal[1] = a->n[c->feature_a][1];
    } else if (edge_b) {
        c->normal[0] = -b->n[c->feature_b][0], c->normal[1] = -b->n[c->feature_b][1];
    } else if (c->distance > 0) {
        c->normal[0] = d[0] / c->distance, c->normal[1] = d[1] / c->distance;
    } else {
        c->normal[0] = axis[0], c->normal[1] = axis[1];
    }
}

static void overlapping_contact(const placed *a, const placed *b, double separation_a, int edge_a,
                                int deep_b, double separation_b, int edge_b, int deep_a,
                                polygon_contact *c)
{
    if (separation_a >= separation_b) { /* a's face, b's deepest vertex */
        c->distance = separation_a;
        c->normal[0] = a->n[edge_a][0], c->normal[1] = a->n[edge_a][1];
        memcpy(c->point_b, b->v[deep_b], sizeof c->point_b);
        c->point_a[0] = c->point_b[0] - separation_a * c->normal[0];
        c->point_a[1] = c->point_b[1] - separation_a * c->normal[1];
        c->feature = POLYGON_EDGE_VERTEX, c->feature_a = edge_a, c->feature_b = deep_b;
    } else { /* b's face, a's deepest vertex */
        c->distance = separation_b;
        c->normal[0] = -b->n[edge_b][0], c->normal[1] = -b->n[edge_b][1];
        memcpy(c->point_a, a->v[deep_a], sizeof c->point_a);
        c->point_b[0] = c->point_a[0] + separation_b * c->normal[0];
        c->point_b[1] = c->point_a[1] + separation_b * c->normal[1];
        c->feature = POLYGON_VERTEX_EDGE, c->feature_a = deep_a, c->feature_b = edge_b;
    }
}

/* The edge of p best aligned with direction u (sign +1) or against it (-1),
 * within POLYGON_PARALLEL_SINE; -1 if none. */
static int aligned_edge(const placed *p, const double u[2], double sign)
{
    int best = -1;
    double best_dot = 0;
    for (int i = 0; i < p->count; i++) {
        double along = sign * dot(p->n[i], u);
        if (along > best_dot && fabs(cross(p->n[i], u)) <= POLYGON_PARALLEL_SINE)
            best = i, best_dot = along;
    }
    return best;
}

static void interval_along(const double from[2], const double to[2], const double t[2],
                           double out[2])
{
    double p = dot(from, t), q = dot(to, t);
    out[0] = fmin(p, q), out[1] = fmax(p, q);
}

/* Parallel faces facing each other along the normal and overlapping over a
 * segment: EDGE_EDGE, with the middle of the overlap as the contact point. */
static void face_to_face(const placed *a, const placed *b, polygon_contact *c)
{
    int fa = aligned_edge(a, c->normal, 1), fb = aligned_edge(b, c->normal, -1);
    if (fa < 0 || fb < 0) return;
    const double *a0 = a->v[fa], *a1 = a->v[(fa + 1) % a->count];
    const double *b0 = b->v[fb], *b1 = b->v[(fb + 1) % b->count];
    double t[2] = {-c->normal[1], c->normal[0]}, ia[2], ib[2];
    interval_along(a0, a1, t, ia);
    interval_along(b0, b1, t, ib);
    double lo = fmax(ia[0], ib[0]), hi = fmin(ia[1], ib[1]);
    if (!(hi - lo > POLYGON_PARALLEL_SINE * fmax(ia[1] - ia[0], ib[1] - ib[0]))) return;
    double height =
        (dot(a0, c->normal) + dot(a1, c->normal) + dot(b0, c->normal) + dot(b1, c->normal)) / 4;
    for (int k = 0; k < 2; k++) {
        c->face_from[k] = lo * t[k] + height * c->normal[k];
        c->face_to[k] = hi * t[k] + height * c->normal[k];
        c->point[k] = (c->face_from[k] + c->face_to[k]) / 2;
    }
    c->feature = POLYGON_EDGE_EDGE, c->feature_a = fa, c->feature_b = fb;
}

static void set_point_halfway(polygon_contact *c)
{
    for (int k = 0; k < 2; k++) {
        c->point[k] = (c->point_a[k] + c->point_b[k]) / 2;
        c->face_from[k] = c->face_to[k] = c->point[k];
    }
}

void polygon_distance(const polygon_shape *a, const polygon_pose *pose_a, const polygon_shape *b,
                      const polygon_pose *pose_b, polygon_contact *contact)
{
    assert(a && pose_a && b && pose_b && contact);
    placed pa, pb;
    place_with_normals(a, pose_a, &pa);
    place_with_normals(b, pose_b, &pb);
    int edge_a = 0, deep_b = 0, edge_b = 0, deep_a = 0;
    double separation_a = largest_separation(&pa, &pb, &edge_a, &deep_b);
    double separation_b = largest_separation(&pb, &pa, &edge_b, &deep_a);
    if (separation_a > 0 || separation_b > 0) {
        const double axis[2] = {separation_a >= separation_b ? pa.n[edge_a][0] : -pb.n[edge_b][0],
                                separation_a >= separation_b ? pa.n[edge_a][1] : -pb.n[edge_b][1]};
        separated_contact(&pa, &pb, axis, contact);
    } else
        overlapping_contact(&pa, &pb, separation_a, edge_a, deep_b, separation_b, edge_b, deep_a,
                            contact);
    set_point_halfway(contact);
    face_to_face(&pa, &pb, contact);
}

/* The centre outside the polygon: the nearest point of its boundary, and
 * the distance to it; the separating edge's normal if that underflows. */
static double centre_outside(const placed *pa, const placed *point, int separating_edge,
                             polygon_contact *c)
{
    closest_pair near = {INFINITY, {0, 0}, {0, 0}, 0, 0, 0};
    vertices_to_edges(pa, point, 0, &near);
    int on_edge = edge_side_feature(&near, pa->count, &c->feature_a);
    c->feature = on_edge ? POLYGON_EDGE_VERTEX : POLYGON_VERTEX_VERTEX;
    memcpy(c->point_a, near.on_edge_side, sizeof c->point_a);
    double gap = sqrt(near.squared);
    int normal_edge = on_edge ? near.edge : separating_edge;
    if (on_edge || !(gap > 0)) {
        c->normal[0] = pa->n[normal_edge][0], c->normal[1] = pa->n[normal_edge][1];
    } else {
        c->normal[0] = (point->v[0][0] - c->point_a[0]) / gap;
        c->normal[1] = (point->v[0][1] - c->point_a[1]) / gap;
    }
    return gap;
}

void polygon_disk_distance(const polygon_shape *a, const polygon_pose *pose_a,
                           const double centre[2], double radius, polygon_contact *contact)
{
    assert(a && pose_a && centre && contact && radius >= 0);
    placed pa;
    place_with_normals(a, pose_a, &pa);
    placed point = {1, {{centre[0], centre[1]}}, {{0, 0}}};
    int edge = 0, unused = 0;
    double separation = largest_separation(&pa, &point, &edge, &unused);
    polygon_contact *c = contact;
    c->feature_b = 0;
    double gap;
    if (separation > 0) {
        gap = centre_outside(&pa, &point, edge, c);
    } else { /* inside: out through the nearest edge line */
        gap = separation;
        c->feature = POLYGON_EDGE_VERTEX, c->feature_a = edge;
        c->normal[0] = pa.n[edge][0], c->normal[1] = pa.n[edge][1];
        c->point_a[0] = centre[0] - separation * c->normal[0];
        c->point_a[1] = centre[1] - separation * c->normal[1];
    }
    c->distance = gap - radius;
    c->point_b[0] = centre[0] - radius * c->normal[0];
    c->point_b[1] = centre[1] - radius * c->normal[1];
    set_point_halfway(c);
}

double polygon_approach_rate_bound(const double v1[2], double w1, double r1, const double v2[2],
                                   double w2, double r2)
{
    return hypot(v1[0] - v2[0], v1[1] - v2[1]) + fabs(w1) * r1 + fabs(w2) * r2;
}

static int close_to(double a, double b, double scale) { return fabs(a - b) <= 1e-12 * scale; }

int polygon_same_shape(const polygon_shape *a, const polygon_shape *b)
{
    if (a->count != b->count || !close_to(a->radius, b->radius, b->radius) ||
        !close_to(a->area, b->area, b->area) || !close_to(a->second_moment, b->second_moment, b->second_moment))
        return 0;
    for (int v = 0; v < a->count; v++)
        for (int c = 0; c < 2; c++)
            if (!close_to(a->vertex[v][c], b->vertex[v][c], b->radius) || !close_to(a->normal[v][c], b->normal[v][c], 1.0))
                return 0;
    return 1;
}
