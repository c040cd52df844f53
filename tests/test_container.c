/* test_container.c — containers (issue 13): signed distances and gradients
 * of every shape, composites, validation, volume and the Lipschitz check.
 *
 * References independent of container.c:
 * - closed-form distances at hand-picked points;
 * - the true distance to the boundary by brute force: every shape's boundary
 *   sampled densely from its own parametrisation (segments, arcs, faces,
 *   sphere and cylinder patches), a composite's boundary being the samples
 *   of its parts' boundaries where membership (the test's own inside
 *   predicates) changes within 1e-7. carom's |s| must never exceed it (a lower
 *   bound), and must equal it, up to the sampling gap, for single shapes and
 *   wherever min/max is exact (outside a union, inside an intersection or a
 *   difference);
 * - the test's own leaf distances combined by max/min for composites;
 * - gradients against central differences (away from kinks);
 * - volumes against closed forms (lens areas and volumes, Steiner's formula)
 *   and Monte Carlo with the test's inside predicates.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "container.h"

static const double PI = 3.14159265358979323846;

/* ------------------------------------------------ the test's own shapes */

typedef struct ref_shape {
    carom_shape shape; /* a leaf, or a composite of first and second */
    int dim;
    double c[3], h[3], r, a[3], b[3]; /* centre, half sides, radius, capsule ends */
    const carom_vec *v;               /* polygon vertices */
    int n;
    const struct ref_shape *first, *second;
} ref_shape;

static double dist3(const double *p, const double *q, int dim)
{
    double s = 0.0;
    for (int k = 0; k < dim; k++) s += (p[k] - q[k]) * (p[k] - q[k]);
    return sqrt(s);
}

/* Distance from x to the segment pq (any dim). */
static double segment_distance(const double *x, const double *p, const double *q, int dim)
{
    double pq2 = 0.0, t = 0.0;
    for (int k = 0; k < dim; k++) pq2 += (q[k] - p[k]) * (q[k] - p[k]);
    for (int k = 0; k < dim; k++) t += (x[k] - p[k]) * (q[k] - p[k]);
    t = pq2 > 0.0 ? fmin(1.0, fmax(0.0, t / pq2)) : 0.0;
    double y[3] = {0, 0, 0};
    for (int k = 0; k < dim; k++) y[k] = p[k] + t * (q[k] - p[k]);
    return dist3(x, y, dim);
}

/* Distance from x to the box of half sides hi around c (0 inside). */
static double distance_to_box(const double *x, const double *c, const double *hi, int dim)
{
    double s = 0.0;
    for (int k = 0; k < dim; k++) {
        double over = fabs(x[k] - c[k]) - hi[k];
        if (over > 0) s += over * over;
    }
    return sqrt(s);
}

static void inner_half(const ref_shape *s, double hi[3])
{
    for (int k = 0; k < 3; k++) hi[k] = s->h[k] - s->r;
}

static double polygon_orientation(const ref_shape *s)
{
    double area = 0.0;
    for (int i = 0; i < s->n; i++) {
        carom_vec p = s->v[i], q = s->v[(i + 1) % s->n];
        area += p.x * q.y - q.x * p.y;
    }
    return area > 0 ? 1.0 : -1.0;
}

static int ref_inside(const ref_shape *s, const double *x)
{
    double hi[3];
    switch (s->shape) {
    case CAROM_SHAPE_BOX: return distance_to_box(x, s->c, s->h, s->dim) == 0.0;
    case CAROM_SHAPE_ROUNDED_BOX: inner_half(s, hi); return distance_to_box(x, s->c, hi, s->dim) <= s->r;
    case CAROM_SHAPE_BALL: return dist3(x, s->c, s->dim) <= s->r;
    case CAROM_SHAPE_CAPSULE: return segment_distance(x, s->a, s->b, s->dim) <= s->r;
    case CAROM_SHAPE_POLYGON: {
        double o = polygon_orientation(s);
        for (int i = 0; i < s->n; i++) {
            carom_vec p = s->v[i], q = s->v[(i + 1) % s->n];
            if (o * ((q.x - p.x) * (x[1] - p.y) - (q.y - p.y) * (x[0] - p.x)) < 0) return 0;
        }
        return 1;
    }
    case CAROM_SHAPE_UNION: return ref_inside(s->first, x) || ref_inside(s->second, x);
    case CAROM_SHAPE_INTERSECTION: return ref_inside(s->first, x) && ref_inside(s->second, x);
    case CAROM_SHAPE_DIFFERENCE: return ref_inside(s->first, x) && !ref_inside(s->second, x);
    default: return 0;
    }
}

/* The test's own signed distances (written apart from container.c). */
static double ref_sdf(const ref_shape *s, const double *x)
{
    double hi[3];
    switch (s->shape) {
    case CAROM_SHAPE_BOX:
    case CAROM_SHAPE_ROUNDED_BOX: {
        inner_half(s, hi);
        if (s->shape == CAROM_SHAPE_BOX) memcpy(hi, s->h, sizeof hi);
        double outside = distance_to_box(x, s->c, hi, s->dim);
        double rr = s->shape == CAROM_SHAPE_BOX ? 0.0 : s->r;
        if (outside > 0) return rr - outside;
        double m = INFINITY;
        for (int k = 0; k < s->dim; k++) m = fmin(m, hi[k] - fabs(x[k] - s->c[k]));
        return rr + m;
    }
    case CAROM_SHAPE_BALL: return s->r - dist3(x, s->c, s->dim);
    case CAROM_SHAPE_CAPSULE: return s->r - segment_distance(x, s->a, s->b, s->dim);
    case CAROM_SHAPE_POLYGON: {
        double best = INFINITY;
        for (int i = 0; i < s->n; i++) {
            double p[2] = {s->v[i].x, s->v[i].y}, q[2] = {s->v[(i + 1) % s->n].x, s->v[(i + 1) % s->n].y};
            best = fmin(best, segment_distance(x, p, q, 2));
        }
        return ref_inside(s, x) ? best : -best; /* exact for convex polygons */
    }
    case CAROM_SHAPE_UNION: return fmax(ref_sdf(s->first, x), ref_sdf(s->second, x));
    case CAROM_SHAPE_INTERSECTION: return fmin(ref_sdf(s->first, x), ref_sdf(s->second, x));
    case CAROM_SHAPE_DIFFERENCE: return fmin(ref_sdf(s->first, x), -ref_sdf(s->second, x));
    default: return NAN;
    }
}

static carom_vec vec(const double *p) { return (carom_vec){p[0], p[1], p[2]}; }

static carom_container *make(const ref_shape *s)
{
    carom_container_def d = carom_default_container_def();
    carom_container *parts[2] = {NULL, NULL}, *c = NULL;
    d.shape = s->shape;
    d.dim = s->dim;
    d.centre = vec(s->c);
    d.size = (carom_vec){2 * s->h[0], 2 * s->h[1], 2 * s->h[2]};
    d.radius = s->r;
    d.a = vec(s->a);
    d.b = vec(s->b);
    d.vertices = s->v;
    d.vertex_count = s->n;
    if (s->first) {
        d.first = parts[0] = make(s->first);
        d.second = parts[1] = make(s->second);
    }
    char why[400];
    CHECK_MSG(carom_container_create(&d, &c, why, sizeof why) == CAROM_OK, "%s", why);
    carom_container_destroy(parts[0]); /* a composite keeps its own copy of its parts */
    carom_container_destroy(parts[1]);
    return c;
}

/* ------------------------------------------------- boundary by sampling */

typedef struct points {
    double (*p)[3];
    size_t count, capacity;
} points;

static void add_point(points *list, double x, double y, double z)
{
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? 2 * list->capacity : 1024;
        list->p = realloc(list->p, list->capacity * sizeof *list->p);
        if (!list->p) abort();
    }
    list->p[list->count][0] = x, list->p[list->count][1] = y, list->p[list->count][2] = z;
    list->count++;
}

static void sample_segment(points *list, const double *p, const double *q, double spacing)
{
    int n = (int)ceil(dist3(p, q, 3) / spacing) + 1;
    for (int i = 0; i <= n; i++) {
        double t = (double)i / n;
        add_point(list, p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]), p[2] + t * (q[2] - p[2]));
    }
}

static void sample_arc(points *list, const double *c, double r, double from, double to, double spacing)
{
    int n = (int)ceil(r * fabs(to - from) / spacing) + 1;
    for (int i = 0; i <= n; i++) {
        double t = from + (to - from) * i / n;
        add_point(list, c[0] + r * cos(t), c[1] + r * sin(t), 0.0);
    }
}

/* Points c + r (sin t cos f e1 + sin t sin f e2 + cos t e3), t and f in ranges. */
static void sample_sphere_patch(points *list, const double *c, double r, const double *e1, const double *e2,
                                const double *e3, double t0, double t1, double f0, double f1, double spacing)
{
    int nt = (int)ceil(r * (t1 - t0) / spacing) + 1;
    for (int i = 0; i <= nt; i++) {
        double t = t0 + (t1 - t0) * i / nt;
        int nf = (int)ceil(r * sin(t) * (f1 - f0) / spacing) + 1;
        for (int j = 0; j <= nf; j++) {
            double f = f0 + (f1 - f0) * j / nf, u[3];
            for (int k = 0; k < 3; k++) u[k] = sin(t) * cos(f) * e1[k] + sin(t) * sin(f) * e2[k] + cos(t) * e3[k];
            add_point(list, c[0] + r * u[0], c[1] + r * u[1], c[2] + r * u[2]);
        }
    }
}

/* Points p + s e1 + t e2 for s in [0, l1], t in [0, l2]. */
static void sample_patch(points *list, const double *p, const double *e1, double l1, const double *e2, double l2,
                         double spacing)
{
    int n1 = (int)ceil(l1 / spacing) + 1, n2 = (int)ceil(l2 / spacing) + 1;
    for (int i = 0; i <= n1; i++)
        for (int j = 0; j <= n2; j++) {
            double s = l1 * i / n1, t = l2 * j / n2;
            add_point(list, p[0] + s * e1[0] + t * e2[0], p[1] + s * e1[1] + t * e2[1], p[2] + s * e1[2] + t * e2[2]);
        }
}

/* Points p + s axis + r (cos f u1 + sin f u2) for s in [0, length], f in [f0, f1]. */
static void sample_cylinder(points *list, const double *p, const double *axis, double length, const double *u1,
                            const double *u2, double r, double f0, double f1, double spacing)
{
    int nl = (int)ceil(length / spacing) + 1, nf = (int)ceil(r * (f1 - f0) / spacing) + 1;
    for (int i = 0; i <= nl; i++)
        for (int j = 0; j <= nf; j++) {
            double s = length * i / nl, f = f0 + (f1 - f0) * j / nf, q[3];
            for (int k = 0; k < 3; k++) q[k] = p[k] + s * axis[k] + r * (cos(f) * u1[k] + sin(f) * u2[k]);
            add_point(list, q[0], q[1], q[2]);
        }
}

static const double unit[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

static void sample_box_2d(points *list, const double *c, const double *h, double spacing)
{
    double corners[4][3] = {{c[0] - h[0], c[1] - h[1], 0}, {c[0] + h[0], c[1] - h[1], 0},
                            {c[0] + h[0], c[1] + h[1], 0}, {c[0] - h[0], c[1] + h[1], 0}};
    for (int i = 0; i < 4; i++) sample_segment(list, corners[i], corners[(i + 1) % 4], spacing);
}

/* The faces of the box (half sides hi around c) pushed out by r along their normals. */
static void sample_box_faces_3d(points *list, const double *c, const double *hi, double r, double spacing)
{
    for (int k = 0; k < 3; k++)
        for (int side = -1; side <= 1; side += 2) {
            int i = (k + 1) % 3, j = (k + 2) % 3;
            double p[3];
            p[k] = c[k] + side * (hi[k] + r);
            p[i] = c[i] - hi[i];
            p[j] = c[j] - hi[j];
            sample_patch(list, p, unit[i], 2 * hi[i], unit[j], 2 * hi[j], spacing);
        }
}

static void sample_rounded_box_3d(points *list, const ref_shape *s, double spacing)
{
    double hi[3];
    inner_half(s, hi);
    sample_box_faces_3d(list, s->c, hi, s->r, spacing);
    for (int k = 0; k < 3; k++) /* edges along axis k: quarter cylinders */
        for (int si = -1; si <= 1; si += 2)
            for (int sj = -1; sj <= 1; sj += 2) {
                int i = (k + 1) % 3, j = (k + 2) % 3;
                double p[3], u1[3] = {0, 0, 0}, u2[3] = {0, 0, 0};
                p[k] = s->c[k] - hi[k];
                p[i] = s->c[i] + si * hi[i];
                p[j] = s->c[j] + sj * hi[j];
                u1[i] = si, u2[j] = sj;
                sample_cylinder(list, p, unit[k], 2 * hi[k], u1, u2, s->r, 0, PI / 2, spacing);
            }
    for (int corner = 0; corner < 8; corner++) { /* corners: eighths of spheres */
        double p[3], e[3][3] = {{0}};
        for (int k = 0; k < 3; k++) {
            double sign = (corner >> k) & 1 ? 1.0 : -1.0;
            p[k] = s->c[k] + sign * hi[k];
            e[k][k] = sign;
        }
        sample_sphere_patch(list, p, s->r, e[0], e[1], e[2], 0, PI / 2, 0, PI / 2, spacing);
    }
}

/* Two unit vectors across the unit vector e3. */
static void frame_across(const double *e3, double *e1, double *e2)
{
    double t[3] = {1, 0, 0};
    if (fabs(e3[0]) > 0.6) t[0] = 0, t[1] = 1;
    double d = t[0] * e3[0] + t[1] * e3[1] + t[2] * e3[2];
    for (int k = 0; k < 3; k++) e1[k] = t[k] - d * e3[k];
    double l = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int k = 0; k < 3; k++) e1[k] /= l;
    e2[0] = e3[1] * e1[2] - e3[2] * e1[1];
    e2[1] = e3[2] * e1[0] - e3[0] * e1[2];
    e2[2] = e3[0] * e1[1] - e3[1] * e1[0];
}

static void sample_capsule(points *list, const ref_shape *s, double spacing)
{
    double d[3] = {0, 0, 0}, length = dist3(s->a, s->b, s->dim);
    for (int k = 0; k < s->dim; k++) d[k] = length > 0 ? (s->b[k] - s->a[k]) / length : (k == 0);
    if (s->dim == 2) {
        double n[3] = {-d[1], d[0], 0}, phi = atan2(d[1], d[0]);
        double p1[3] = {s->a[0] + s->r * n[0], s->a[1] + s->r * n[1], 0};
        double q1[3] = {s->b[0] + s->r * n[0], s->b[1] + s->r * n[1], 0};
        double p2[3] = {s->a[0] - s->r * n[0], s->a[1] - s->r * n[1], 0};
        double q2[3] = {s->b[0] - s->r * n[0], s->b[1] - s->r * n[1], 0};
        sample_segment(list, p1, q1, spacing);
        sample_segment(list, p2, q2, spacing);
        sample_arc(list, s->b, s->r, phi - PI / 2, phi + PI / 2, spacing);
        sample_arc(list, s->a, s->r, phi + PI / 2, phi + 3 * PI / 2, spacing);
        return;
    }
    double e1[3], e2[3];
    frame_across(d, e1, e2);
    sample_cylinder(list, s->a, d, length, e1, e2, s->r, 0, 2 * PI, spacing);
    sample_sphere_patch(list, s->b, s->r, e1, e2, d, 0, PI / 2, 0, 2 * PI, spacing);
    sample_sphere_patch(list, s->a, s->r, e1, e2, d, PI / 2, PI, 0, 2 * PI, spacing);
}

static void sample_leaf(points *list, const ref_shape *s, double spacing)
{
    double hi[3];
    switch (s->shape) {
    case CAROM_SHAPE_BOX:
        if (s->dim == 2) sample_box_2d(list, s->c, s->h, spacing);
        else sample_box_faces_3d(list, s->c, s->h, 0.0, spacing);
        break;
    case CAROM_SHAPE_ROUNDED_BOX:
        if (s->dim == 3) {
            sample_rounded_box_3d(list, s, spacing);
            break;
        }
        inner_half(s, hi);
        for (int side = -1; side <= 1; side += 2) {
            double p[3] = {s->c[0] - hi[0], s->c[1] + side * s->h[1], 0}, q[3] = {s->c[0] + hi[0], p[1], 0};
            double u[3] = {s->c[0] + side * s->h[0], s->c[1] - hi[1], 0}, w[3] = {u[0], s->c[1] + hi[1], 0};
            sample_segment(list, p, q, spacing);
            sample_segment(list, u, w, spacing);
        }
        for (int corner = 0; corner < 4; corner++) {
            double sx = corner & 1 ? 1 : -1, sy = corner & 2 ? 1 : -1;
            double p[3] = {s->c[0] + sx * hi[0], s->c[1] + sy * hi[1], 0};
            double f0 = atan2(sy, sx) - PI / 4;
            sample_arc(list, p, s->r, f0, f0 + PI / 2, spacing);
        }
        break;
    case CAROM_SHAPE_BALL:
        if (s->dim == 2) sample_arc(list, s->c, s->r, 0, 2 * PI, spacing);
        else sample_sphere_patch(list, s->c, s->r, unit[0], unit[1], unit[2], 0, PI, 0, 2 * PI, spacing);
        break;
    case CAROM_SHAPE_CAPSULE: sample_capsule(list, s, spacing); break;
    case CAROM_SHAPE_POLYGON:
        for (int i = 0; i < s->n; i++) {
            double p[3] = {s->v[i].x, s->v[i].y, 0}, q[3] = {s->v[(i + 1) % s->n].x, s->v[(i + 1) % s->n].y, 0};
            sample_segment(list, p, q, spacing);
        }
        break;
    default: break;
    }
}

/* Membership of the region changes within delta of x (along an axis or a diagonal). */
static int on_boundary(const ref_shape *s, const double *x, double delta)
{
    int first = -1;
    for (int probe = 0; probe < 2 * s->dim + 2; probe++) {
        double y[3] = {x[0], x[1], x[2]}, sign = probe & 1 ? 1.0 : -1.0;
        if (probe < 2 * s->dim) y[probe / 2] += sign * delta;
        else
            for (int k = 0; k < s->dim; k++) y[k] += sign * delta * (k == 1 ? -0.6 : 0.8);
        int in = ref_inside(s, y);
        if (first < 0) first = in;
        else if (in != first) return 1;
    }
    return 0;
}

static void sample_leaves(points *list, const ref_shape *s, double spacing)
{
    if (s->first) {
        sample_leaves(list, s->first, spacing);
        sample_leaves(list, s->second, spacing);
    } else {
        sample_leaf(list, s, spacing);
    }
}

/* The region's boundary: its leaves' boundary points where membership changes. */
static points sample_boundary(const ref_shape *s, double spacing)
{
    points all = {NULL, 0, 0}, kept = {NULL, 0, 0};
    sample_leaves(&all, s, spacing);
    for (size_t i = 0; i < all.count; i++)
        if (!s->first || on_boundary(s, all.p[i], 1e-7)) add_point(&kept, all.p[i][0], all.p[i][1], all.p[i][2]);
    free(all.p);
    return kept;
}

static double brute_distance(const points *boundary, const double *x, int dim)
{
    double best = INFINITY;
    for (size_t i = 0; i < boundary->count; i++) best = fmin(best, dist3(x, boundary->p[i], dim));
    return best;
}

/* ------------------------------------------------------------ the shapes */

static const carom_vec pentagon_cw[5] = {{0, 2, 0}, {1.5, 1, 0}, {1, -1.2, 0}, {-1.3, -1, 0}, {-1.6, 0.9, 0}};
static const carom_vec triangle_ccw[3] = {{-1, -0.5, 0}, {2, -0.4, 0}, {0.2, 1.7, 0}};

static const ref_shape box2 = {CAROM_SHAPE_BOX, 2, {0.5, -0.2, 0}, {1.2, 0.7, 0}, 0, {0}, {0}, NULL, 0, NULL, NULL};
static const ref_shape rbox2 = {CAROM_SHAPE_ROUNDED_BOX, 2, {0.1, 0.3, 0}, {1.1, 0.6, 0}, 0.35, {0}, {0},
                                NULL, 0, NULL, NULL};
static const ref_shape ball2 = {CAROM_SHAPE_BALL, 2, {-0.3, 0.2, 0}, {0}, 0.9, {0}, {0}, NULL, 0, NULL, NULL};
static const ref_shape pentagon = {CAROM_SHAPE_POLYGON, 2, {0}, {0}, 0, {0}, {0}, pentagon_cw, 5, NULL, NULL};
static const ref_shape triangle = {CAROM_SHAPE_POLYGON, 2, {0}, {0}, 0, {0}, {0}, triangle_ccw, 3, NULL, NULL};
static const ref_shape capsule2 = {CAROM_SHAPE_CAPSULE, 2, {0}, {0}, 0.4, {-0.8, -0.3, 0}, {0.9, 0.6, 0},
                                   NULL, 0, NULL, NULL};
static const ref_shape dot2 = {CAROM_SHAPE_CAPSULE, 2, {0}, {0}, 0.5, {0.2, 0.1, 0}, {0.2, 0.1, 0},
                               NULL, 0, NULL, NULL};
static const ref_shape box3 = {CAROM_SHAPE_BOX, 3, {0.1, 0.2, -0.3}, {0.8, 0.6, 0.5}, 0, {0}, {0},
                               NULL, 0, NULL, NULL};
static const ref_shape rbox3 = {CAROM_SHAPE_ROUNDED_BOX, 3, {0, 0.1, 0}, {0.9, 0.6, 0.5}, 0.25, {0}, {0},
                                NULL, 0, NULL, NULL};
static const ref_shape ball3 = {CAROM_SHAPE_BALL, 3, {0.2, -0.1, 0.3}, {0}, 0.7, {0}, {0}, NULL, 0, NULL, NULL};
static const ref_shape capsule3 = {CAROM_SHAPE_CAPSULE, 3, {0}, {0}, 0.35, {-0.5, -0.2, 0.1}, {0.6, 0.4, -0.3},
                                   NULL, 0, NULL, NULL};

static const ref_shape union2 = {CAROM_SHAPE_UNION, 2, {0}, {0}, 0, {0}, {0}, NULL, 0, &ball2, &box2};
static const ref_shape meet2 = {CAROM_SHAPE_INTERSECTION, 2, {0}, {0}, 0, {0}, {0}, NULL, 0, &pentagon, &ball2};
static const ref_shape cut2 = {CAROM_SHAPE_DIFFERENCE, 2, {0}, {0}, 0, {0}, {0}, NULL, 0, &rbox2, &ball2};
static const ref_shape pill_or_ball = {CAROM_SHAPE_UNION, 2, {0}, {0}, 0, {0}, {0}, NULL, 0, &ball2, &capsule2};
static const ref_shape nested2 = {CAROM_SHAPE_DIFFERENCE, 2, {0}, {0}, 0, {0}, {0}, NULL, 0, &pill_or_ball, &triangle};
static const ref_shape box_and_pentagon = {CAROM_SHAPE_INTERSECTION, 2, {0}, {0}, 0, {0}, {0}, NULL, 0, &rbox2,
                                           &pentagon};
static const ref_shape nested_exact = {CAROM_SHAPE_DIFFERENCE, 2, {0}, {0}, 0, {0}, {0}, NULL, 0, &box_and_pentagon,
                                       &capsule2};
static const ref_shape union3 = {CAROM_SHAPE_UNION, 3, {0}, {0}, 0, {0}, {0}, NULL, 0, &ball3, &box3};
static const ref_shape meet3 = {CAROM_SHAPE_INTERSECTION, 3, {0}, {0}, 0, {0}, {0}, NULL, 0, &box3, &ball3};
static const ref_shape cut3 = {CAROM_SHAPE_DIFFERENCE, 3, {0}, {0}, 0, {0}, {0}, NULL, 0, &rbox3, &capsule3};

static const ref_shape *const leaves[] = {&box2, &rbox2, &ball2, &pentagon, &triangle, &capsule2,
                                          &dot2, &box3, &rbox3, &ball3, &capsule3};
static const ref_shape *const composites[] = {&union2, &meet2, &cut2, &nested2, &nested_exact, &union3, &meet3, &cut3};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static double s_at(const carom_container *c, const double *x, double *g)
{
    carom_vec gv;
    double s = carom_container_distance(c, vec(x), g ? &gv : NULL);
    if (g) g[0] = gv.x, g[1] = gv.y, g[2] = gv.z;
    return s;
}

/* A random point of the shape's bounds grown by 30% (or near its boundary). */
static void random_point(const carom_container *c, carom_rng *rng, const points *boundary, double *x)
{
    carom_vec lo, hi;
    carom_container_bounds(c, &lo, &hi);
    int dim = carom_container_dim(c);
    x[0] = x[1] = x[2] = 0.0;
    if (carom_rng_uniform(rng) < 0.3 && boundary->count > 0) {
        size_t i = (size_t)(carom_rng_uniform(rng) * boundary->count);
        for (int k = 0; k < dim; k++) x[k] = boundary->p[i][k] + 0.02 * (carom_rng_uniform(rng) - 0.5);
        return;
    }
    double l[3] = {lo.x, lo.y, lo.z}, u[3] = {hi.x, hi.y, hi.z};
    for (int k = 0; k < dim; k++) {
        double grow = 0.3 * (u[k] - l[k]);
        x[k] = l[k] - grow + (u[k] - l[k] + 2 * grow) * carom_rng_uniform(rng);
    }
}

/* ---------------------------------------------------------------- tests */

static void expect(const carom_container *c, double x, double y, double z, double s)
{
    double got = carom_container_distance(c, (carom_vec){x, y, z}, NULL);
    CHECK_MSG(fabs(got - s) <= 1e-12, "s(%g, %g, %g) = %.17g, expected %.17g", x, y, z, got, s);
}

static void test_closed_forms(void)
{
    carom_container *c = make(&box2); /* [-0.7, 1.7] x [-0.9, 0.5] */
    expect(c, 0.5, -0.2, 0, 0.7);
    expect(c, 1.5, -0.2, 0, 0.2);
    expect(c, 2.7, -0.2, 0, -1.0);
    expect(c, 2.7, 1.5, 0, -sqrt(2.0));
    expect(c, 0.5, -0.2, 9, 0.7); /* z ignored in 2D */
    carom_container_destroy(c);
    c = make(&rbox2); /* inner half (0.75, 0.25) around (0.1, 0.3), radius 0.35 */
    expect(c, 0.1, 0.3, 0, 0.6);
    expect(c, 0.85 + 0.35 * cos(0.3), 0.55 + 0.35 * sin(0.3), 0, 0.0);
    expect(c, 0.85 + 1.0, 0.55 + 1.0, 0, 0.35 - sqrt(2.0));
    expect(c, 0.85 + 0.1, 0.55 + 0.1, 0, 0.35 - sqrt(0.02));
    expect(c, 1.3, 0.3, 0, -0.1);
    carom_container_destroy(c);
    c = make(&ball2);
    expect(c, -0.3, 0.2, 0, 0.9);
    expect(c, -0.3 + 3, 0.2 + 4, 0, -4.1);
    carom_container_destroy(c);
    c = make(&capsule2);
    expect(c, -0.8, -0.3, 0, 0.4);
    expect(c, 0.9 + 0.6, 0.6 + 0.8, 0, 0.4 - 1.0);
    carom_container_destroy(c);
    c = make(&triangle); /* the edge (-1, -0.5) -> (2, -0.4) */
    expect(c, 0.5, -0.45 + 0.1 * sqrt(9.01) / 3.0, 0, 0.1); /* 0.1 above it, along its normal */
    expect(c, -2, -0.5, 0, -1.0);
    carom_container_destroy(c);
    c = make(&rbox3); /* inner half (0.65, 0.35, 0.25) around (0, 0.1, 0), radius 0.25 */
    expect(c, 0, 0.1, 0, 0.5);
    expect(c, 0.65 + 1, 0.45 + 2, 0.25 + 2, 0.25 - 3.0);
    expect(c, 0.65 + 0.3, 0.45 + 0.4, 0.0, 0.25 - 0.5); /* beside an edge */
    expect(c, 0, 0.1, 0.6, -0.1);
    carom_container_destroy(c);
    c = make(&box3);
    expect(c, 0.1 + 1.1, 0.2 + 1.0, -0.3, -0.5); /* q = (0.3, 0.4, -0.5) */
    carom_container_destroy(c);
    c = make(&capsule3);
    expect(c, 0.05, 0.1, -0.1, 0.35);
    carom_container_destroy(c);
}

/* Where min/max gives the exact distance: leaves; outside a union of parts
 * exact there; inside an intersection or difference of parts exact there. */
static int exact_at(const ref_shape *s, const double *x)
{
    if (!s->first) return 1;
    int inside = ref_inside(s, x);
    if (s->shape == CAROM_SHAPE_UNION ? inside : !inside) return 0;
    return exact_at(s->first, x) && exact_at(s->second, x);
}

/* |s| never above the brute-force distance to the sampled boundary (so never
 * above the true one by more than round-off), its sign that of the inside
 * predicate, and equal to it up to the sampling gap where exact. */
static void against_brute_force(const ref_shape *s, const char *name, int points_count, double spacing)
{
    carom_container *c = make(s);
    if (!c) return;
    points boundary = sample_boundary(s, spacing);
    carom_rng rng = carom_rng_seed(13);
    int failures = 0, exact_checked = 0;
    for (int i = 0; i < points_count && failures < 5; i++) {
        double x[3];
        random_point(c, &rng, &boundary, x);
        double got = s_at(c, x, NULL), truth = brute_distance(&boundary, x, s->dim);
        int inside = ref_inside(s, x), bad = 0;
        if (fabs(got) > truth + 1e-12) bad = 1; /* overstates */
        if (truth > 2 * spacing && (got > 0) != inside) bad = 2;
        int exact = exact_at(s, x);
        if (exact && fabs(got) < truth - spacing) bad = 3;
        exact_checked += exact;
        if (bad) {
            failures++;
            CHECK_MSG(0, "%s at (%g, %g, %g): s = %.12g, brute-force distance %.12g, inside %d (failure %d)", name,
                      x[0], x[1], x[2], got, truth, inside, bad);
        }
    }
    /* (A | B) - C is exact nowhere: inside, A | B is only a lower bound */
    if (s != &nested2) CHECK_MSG(exact_checked > points_count / 10, "%s: %d exact points", name, exact_checked);
    free(boundary.p);
    carom_container_destroy(c);
}

static void test_leaves_against_brute_force(void)
{
    const char *names[] = {"box2", "rbox2", "ball2", "pentagon", "triangle", "capsule2", "dot2",
                           "box3", "rbox3", "ball3", "capsule3"};
    for (int i = 0; i < COUNT(leaves); i++)
        against_brute_force(leaves[i], names[i], leaves[i]->dim == 2 ? 1500 : 250,
                            leaves[i]->dim == 2 ? 1e-3 : 1.5e-2);
}

static void test_composites_against_brute_force(void)
{
    const char *names[] = {"ball2 | box2", "pentagon & ball2", "rbox2 - ball2", "(ball2 | capsule2) - triangle",
                           "(rbox2 & pentagon) - capsule2", "ball3 | box3", "box3 & ball3", "rbox3 - capsule3"};
    for (int i = 0; i < COUNT(composites); i++)
        against_brute_force(composites[i], names[i], composites[i]->dim == 2 ? 1500 : 250,
                            composites[i]->dim == 2 ? 1e-3 : 1.5e-2);
}

/* Composites equal the max/min of the test's own leaf distances. */
static void test_composites_against_leaf_formulas(void)
{
    const ref_shape *all[COUNT(leaves) + COUNT(composites)];
    for (int i = 0; i < COUNT(leaves); i++) all[i] = leaves[i];
    for (int i = 0; i < COUNT(composites); i++) all[COUNT(leaves) + i] = composites[i];
    carom_rng rng = carom_rng_seed(7);
    points none = {NULL, 0, 0};
    for (int i = 0; i < COUNT(all); i++) {
        carom_container *c = make(all[i]);
        for (int j = 0; j < 2000; j++) {
            double x[3];
            random_point(c, &rng, &none, x);
            double got = s_at(c, x, NULL), want = ref_sdf(all[i], x);
            if (fabs(got - want) > 1e-12) {
                CHECK_MSG(0, "shape %d at (%g, %g, %g): s = %.17g, the test's formula %.17g", i, x[0], x[1], x[2],
                          got, want);
                break;
            }
        }
        carom_container_destroy(c);
    }
}

/* Gradients: unit, finite, and equal to central differences where s is
 * smooth (differences of steps 1e-5 and 1e-6 agree). */
static void check_gradients(const carom_container *c, const char *name, carom_rng *rng)
{
    int dim = carom_container_dim(c), compared = 0;
    points none = {NULL, 0, 0};
    for (int i = 0; i < 2000; i++) {
        double x[3], g[3], diff[2][3] = {{0}};
        random_point(c, rng, &none, x);
        s_at(c, x, g);
        double length = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        if (!(fabs(length - 1.0) < 1e-12) || (dim == 2 && g[2] != 0.0)) {
            CHECK_MSG(0, "%s: gradient (%g, %g, %g) at (%g, %g, %g) is not a unit vector", name, g[0], g[1], g[2],
                      x[0], x[1], x[2]);
            return;
        }
        double deviation = 0.0, disagreement = 0.0;
        for (int step = 0; step < 2; step++)
            for (int k = 0; k < dim; k++) {
                double h = step ? 1e-6 : 1e-5, p[3] = {x[0], x[1], x[2]}, m[3] = {x[0], x[1], x[2]};
                p[k] += h, m[k] -= h;
                diff[step][k] = (s_at(c, p, NULL) - s_at(c, m, NULL)) / (2 * h);
            }
        for (int k = 0; k < dim; k++) {
            disagreement = fmax(disagreement, fabs(diff[0][k] - diff[1][k]));
            deviation = fmax(deviation, fabs(diff[1][k] - g[k]));
        }
        if (disagreement > 1e-7) continue; /* a kink near x */
        compared++;
        if (deviation > 1e-6) {
            CHECK_MSG(0, "%s: gradient (%.9g, %.9g, %.9g) at (%g, %g, %g), differences (%.9g, %.9g, %.9g)", name, g[0],
                      g[1], g[2], x[0], x[1], x[2], diff[1][0], diff[1][1], diff[1][2]);
            return;
        }
    }
    CHECK_MSG(compared > 1000, "%s: only %d smooth points", name, compared);
}

static void test_gradients(void)
{
    carom_rng rng = carom_rng_seed(5);
    for (int i = 0; i < COUNT(leaves); i++) {
        carom_container *c = make(leaves[i]);
        char name[32];
        snprintf(name, sizeof name, "leaf %d", i);
        check_gradients(c, name, &rng);
        carom_container_destroy(c);
    }
    for (int i = 0; i < COUNT(composites); i++) {
        carom_container *c = make(composites[i]);
        char name[32];
        snprintf(name, sizeof name, "composite %d", i);
        check_gradients(c, name, &rng);
        carom_container_destroy(c);
    }
}

/* Where the gradient is undefined (a ball's centre, a capsule's axis, a
 * box's centre, a tie between parts) it is still a fixed unit vector. */
static void test_gradient_where_undefined(void)
{
    const ref_shape *shapes[] = {&ball2, &dot2, &capsule2, &box2, &ball3, &capsule3, &box3, &union2};
    const double at[][3] = {{-0.3, 0.2, 0}, {0.2, 0.1, 0},      {0.05, 0.15, 0},   {0.5, -0.2, 0},
                            {0.2, -0.1, 0.3}, {0.05, 0.1, -0.1}, {0.1, 0.2, -0.3}, {-0.3, 0.2, 0}};
    for (int i = 0; i < COUNT(shapes); i++) {
        carom_container *c = make(shapes[i]);
        double g[3], again[3];
        s_at(c, at[i], g);
        s_at(c, at[i], again);
        double length = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        CHECK_MSG(fabs(length - 1.0) < 1e-12, "shape %d: gradient (%g, %g, %g)", i, g[0], g[1], g[2]);
        CHECK(memcmp(g, again, sizeof g) == 0);
        carom_container_destroy(c);
    }
    /* a union's tie takes the first part: two equal balls */
    ref_shape b1 = ball2, b2 = ball2;
    b1.c[0] = -0.25, b1.c[1] = 0.25, b2.c[0] = 0.75, b2.c[1] = 0.25;
    ref_shape u = {CAROM_SHAPE_UNION, 2, {0}, {0}, 0, {0}, {0}, NULL, 0, &b1, &b2};
    carom_container *c = make(&u);
    double g[3], x[3] = {0.25, 0.75, 0};
    s_at(c, x, g);
    double want = -0.5 / hypot(0.5, 0.5);
    CHECK_NEAR(g[0], want, 1e-12);
    carom_container_destroy(c);
    u.shape = CAROM_SHAPE_INTERSECTION; /* and an intersection's */
    c = make(&u);
    s_at(c, x, g);
    CHECK_NEAR(g[0], want, 1e-12);
    carom_container_destroy(c);
    /* a difference's tie s1 = -s2: A of 0.75 at 0, B of 0.5 at (1, 0), at (0.5, 0.375) */
    b1.c[0] = b1.c[1] = 0, b1.r = 0.75;
    b2.c[0] = 1, b2.c[1] = 0, b2.r = 0.5;
    u.shape = CAROM_SHAPE_DIFFERENCE;
    c = make(&u);
    x[0] = 0.5, x[1] = 0.375;
    CHECK_NEAR(s_at(c, x, g), 0.125, 1e-15);
    CHECK_NEAR(g[0], -0.8, 1e-15);
    CHECK_NEAR(g[1], -0.6, 1e-15); /* the first's, not the second's negated (-0.8, 0.6) */
    carom_container_destroy(c);
}

/* ---------------------------------------------------------- validation */

static void expect_refusal(const carom_container_def *d, const char *words)
{
    carom_container *c = (carom_container *)(uintptr_t)1;
    char why[400] = "";
    carom_status st = carom_container_create(d, &c, why, sizeof why);
    CHECK_MSG(st == CAROM_INVALID_ARGUMENT, "expected a refusal mentioning '%s'; got status %d", words, (int)st);
    CHECK(c == NULL);
    CHECK_MSG(strstr(why, words) != NULL, "message '%s' lacks '%s'", why, words);
    if (st == CAROM_OK) carom_container_destroy(c);
}

static carom_container_def polygon_def(const carom_vec *v, int n)
{
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_POLYGON;
    d.vertices = v;
    d.vertex_count = n;
    return d;
}

static void test_bad_polygons(void)
{
    const carom_vec dart[4] = {{0, 0, 0}, {2, 0, 0}, {0.5, 0.5, 0}, {0, 2, 0}};
    carom_container_def d = polygon_def(dart, 4);
    expect_refusal(&d, "container_def.vertices[2] = (0.5, 0.5): the polygon is not convex at this vertex");
    const carom_vec closed[5] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 0}};
    d = polygon_def(closed, 5);
    expect_refusal(&d, "vertices[4] = (0, 0) repeats vertices[0]: do not close the polygon");
    d = polygon_def(closed, 2);
    expect_refusal(&d, "vertex_count = 2: a polygon needs at least 3 vertices");
    const carom_vec twice[4] = {{0, 0, 0}, {1, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    d = polygon_def(twice, 4);
    expect_refusal(&d, "vertices[2] = (1, 0) repeats vertices[1]");
    const carom_vec straight[4] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 1, 0}};
    d = polygon_def(straight, 4);
    expect_refusal(&d, "vertices[1] = (1, 0) is collinear with its neighbours");
    carom_vec star[5];
    for (int i = 0; i < 5; i++) star[i] = (carom_vec){cos(4 * PI * i / 5), sin(4 * PI * i / 5), 0};
    d = polygon_def(star, 5);
    expect_refusal(&d, "winds around 2 times");
    d = polygon_def(triangle_ccw, 3);
    d.dim = 3;
    expect_refusal(&d, "container_def.dim = 3: a polygon is 2D only");
    const carom_vec nan_vertex[3] = {{0, 0, 0}, {NAN, 0, 0}, {0, 1, 0}};
    d = polygon_def(nan_vertex, 3);
    expect_refusal(&d, "container_def.vertices[1] = (nan, 0): expected finite numbers");
    d = polygon_def(NULL, 3);
    expect_refusal(&d, "container_def.vertices is NULL");
    /* both windings are accepted and give the same distances */
    carom_vec reversed[3] = {triangle_ccw[2], triangle_ccw[1], triangle_ccw[0]};
    carom_container *a = NULL, *b = NULL;
    d = polygon_def(triangle_ccw, 3);
    CHECK(carom_container_create(&d, &a, NULL, 0) == CAROM_OK);
    d = polygon_def(reversed, 3);
    CHECK(carom_container_create(&d, &b, NULL, 0) == CAROM_OK);
    if (a && b)
        for (double x = -2; x <= 2.5; x += 0.37) {
            carom_vec p = {x, 0.3 * x - 0.1, 0};
            CHECK_NEAR(carom_container_distance(a, p, NULL), carom_container_distance(b, p, NULL), 1e-15);
        }
    carom_container_destroy(a);
    carom_container_destroy(b);
}

static double ball_function(void *user, carom_vec p, carom_vec *gradient)
{
    double scale = *(const double *)user, r = sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
    if (gradient) *gradient = (carom_vec){-scale * p.x / r, -scale * p.y / r, -scale * p.z / r};
    return scale * (1.0 - r);
}

static void test_bad_leaves(void)
{
    carom_container_def d = carom_default_container_def();
    d.dim = 4;
    expect_refusal(&d, "container_def.dim = 4: expected 2 or 3");
    d = carom_default_container_def();
    d.radius = 0;
    expect_refusal(&d, "container_def.radius = 0: a ball's radius must be finite and > 0");
    d.radius = INFINITY;
    expect_refusal(&d, "container_def.radius = inf");
    d = carom_default_container_def();
    d.centre.y = NAN;
    expect_refusal(&d, "container_def.centre = (0, nan, 0): expected finite numbers");
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_BOX;
    d.size = (carom_vec){1, 2, 0};
    d.dim = 3;
    expect_refusal(&d, "container_def.size.z = 0: expected a finite side length > 0");
    d.size.z = 3;
    d.shape = CAROM_SHAPE_ROUNDED_BOX;
    d.radius = 0.6;
    expect_refusal(&d, "container_def.radius = 0.6: a rounded box's radius must be >= 0 and at most half its "
                       "smallest side (0.5)");
    d.radius = -0.1;
    expect_refusal(&d, "container_def.radius = -0.1");
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_CAPSULE;
    d.b.x = INFINITY;
    expect_refusal(&d, "container_def.b = (inf, 0, 0): expected finite numbers");
    d = carom_default_container_def();
    d.shape = (carom_shape)42;
    expect_refusal(&d, "container_def.shape = 42");
    expect_refusal(NULL, "container_def is NULL");
    d = carom_default_container_def();
    CHECK(carom_container_create(&d, NULL, NULL, 0) == CAROM_INVALID_ARGUMENT);
}

static void test_bad_functions(void)
{
    double one = 1.0;
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_FUNCTION;
    d.user = &one;
    d.lower = (carom_vec){-1, -1, -1};
    d.upper = (carom_vec){1, 1, 1};
    expect_refusal(&d, "container_def.distance is NULL");
    d.distance = ball_function;
    d.lipschitz = 0.5;
    expect_refusal(&d, "container_def.lipschitz = 0.5: expected a finite bound >= 1");
    d.lipschitz = NAN;
    expect_refusal(&d, "container_def.lipschitz = nan");
    d.lipschitz = 1;
    d.upper.y = -1;
    expect_refusal(&d, "container_def.lower.y = -1, upper.y = -1: expected lower < upper");
    d.upper.y = INFINITY;
    expect_refusal(&d, "container_def.upper = (1, inf, 1): expected finite numbers");
}

static void test_bad_composites(void)
{
    carom_container_def d = carom_default_container_def();
    carom_container *disc = make(&ball2), *sphere = make(&ball3);
    d.shape = CAROM_SHAPE_UNION;
    d.first = disc;
    expect_refusal(&d, "container_def.second is NULL: a union needs two parts");
    d.second = sphere;
    expect_refusal(&d, "container_def.first is 2D but container_def.second is 3D");
    /* disjoint balls whose bounds overlap: empty, found by the search */
    ref_shape far = ball2;
    far.c[0] += 1.6, far.c[1] += 1.6;
    carom_container *other = make(&far);
    d.shape = CAROM_SHAPE_INTERSECTION;
    d.second = other;
    expect_refusal(&d, "container_def: the intersection is empty: no point of its bounds");
    /* bounds apart */
    far.c[0] += 5;
    carom_container *apart = make(&far);
    d.second = apart;
    expect_refusal(&d, "the intersection is empty: its parts' bounds do not overlap along x");
    /* a ball minus a box holding it; a ball minus itself */
    ref_shape big = {CAROM_SHAPE_BOX, 2, {-0.3, 0.2, 0}, {1, 1, 0}, 0, {0}, {0}, NULL, 0, NULL, NULL};
    carom_container *cover = make(&big);
    d.shape = CAROM_SHAPE_DIFFERENCE;
    d.second = cover;
    expect_refusal(&d, "the difference is empty");
    d.second = disc; /* s = -|s1| <= 0, zero on the circle: the search cannot prove it, bounds s instead */
    expect_refusal(&d, "the difference is empty: a cell search of its bounds [-1.2, 0.6] x [-0.7, 1.1] found no "
                       "point with s > 0, and s is at most");
    /* a thin but real intersection is found: balls overlapping by 1e-4 */
    far = ball2;
    far.c[0] += 1.8 - 1e-4;
    carom_container *near = make(&far), *lens = NULL;
    d.shape = CAROM_SHAPE_INTERSECTION;
    d.second = near;
    char why[400];
    CHECK_MSG(carom_container_create(&d, &lens, why, sizeof why) == CAROM_OK, "%s", why);
    carom_container_destroy(lens);
    carom_container_destroy(near);
    ref_shape thin3 = ball3; /* in 3D, overlapping by 1e-7: found by refining around the best point */
    thin3.c[2] += 1.4 - 1e-7;
    near = make(&thin3);
    d.first = sphere;
    d.second = near;
    CHECK_MSG(carom_container_create(&d, &lens, why, sizeof why) == CAROM_OK, "%s", why);
    carom_container_destroy(lens);
    carom_container_destroy(near);
    carom_container_destroy(cover);
    carom_container_destroy(apart);
    carom_container_destroy(other);
    carom_container_destroy(disc);
    carom_container_destroy(sphere);
}

/* --------------------------------------------------------- functions */

static void test_functions(void)
{
    double one = 1.0;
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_FUNCTION;
    d.distance = ball_function;
    d.user = &one;
    d.lipschitz = 1.0;
    d.lower = (carom_vec){-1, -1, 0};
    d.upper = (carom_vec){1, 1, 0};
    carom_container *c = NULL;
    CHECK(carom_container_create(&d, &c, NULL, 0) == CAROM_OK);
    if (!c) return;
    carom_vec g;
    CHECK_NEAR(carom_container_distance(c, (carom_vec){0.3, 0.4, 7}, &g), 0.5, 1e-15); /* z ignored */
    CHECK_NEAR(g.x, -0.6, 1e-15);
    CHECK_NEAR(g.y, -0.8, 1e-15);
    CHECK(g.z == 0.0);
    carom_vec lo, hi;
    carom_container_bounds(c, &lo, &hi);
    CHECK(lo.x == -1 && hi.y == 1);
    double bound, v = container_volume_estimate(c, &bound);
    CHECK_MSG(fabs(v - PI) <= bound && bound < 1e-3 * PI, "area %.9g, bound %.3g", v, bound);
    /* a union with a box: the lipschitz bound of the tree is the largest */
    carom_container *box = make(&box2), *u = NULL;
    carom_container_def ud = carom_default_container_def();
    ud.shape = CAROM_SHAPE_UNION;
    ud.first = box;
    ud.second = c;
    CHECK(carom_container_create(&ud, &u, NULL, 0) == CAROM_OK);
    if (u) CHECK(u->lipschitz == 1.0 && u->has_function);
    carom_container_destroy(u);
    carom_container_destroy(box);
    carom_container_destroy(c);
}

/* A function that gives no gradient gets a central difference. */
static double ball_without_gradient(void *user, carom_vec p, carom_vec *gradient)
{
    (void)user, (void)gradient;
    return 1.0 - sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
}

static void test_function_without_gradient(void)
{
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_FUNCTION;
    d.dim = 3;
    d.distance = ball_without_gradient;
    d.lower = (carom_vec){-1, -1, -1};
    d.upper = (carom_vec){1, 1, 1};
    carom_container *c = NULL;
    CHECK(carom_container_create(&d, &c, NULL, 0) == CAROM_OK);
    if (!c) return;
    carom_vec g;
    double s = carom_container_distance(c, (carom_vec){0.2, -0.4, 0.4}, &g);
    CHECK_NEAR(s, 0.4, 1e-15);
    CHECK_NEAR(g.x, -1.0 / 3, 1e-8);
    CHECK_NEAR(g.y, 2.0 / 3, 1e-8);
    CHECK_NEAR(g.z, -2.0 / 3, 1e-8);
    char why[400];
    CHECK_MSG(carom_container_check(c, 2000, 3, why, sizeof why) == CAROM_OK, "%s", why);
    carom_container_destroy(c);
}

static double wrong_gradient(void *user, carom_vec p, carom_vec *gradient)
{
    double s = ball_function(user, p, gradient);
    if (gradient) gradient->y = -gradient->y;
    return s;
}

static void test_check(void)
{
    char why[600];
    for (int i = 0; i < COUNT(leaves); i++) {
        carom_container *c = make(leaves[i]);
        CHECK_MSG(carom_container_check(c, 3000, 11, why, sizeof why) == CAROM_OK, "leaf %d: %s", i, why);
        carom_container_destroy(c);
    }
    for (int i = 0; i < COUNT(composites); i++) {
        carom_container *c = make(composites[i]);
        CHECK_MSG(carom_container_check(c, 3000, 11, why, sizeof why) == CAROM_OK, "composite %d: %s", i, why);
        carom_container_destroy(c);
    }
    /* s = 2 (1 - |x|) changes twice as fast as distance: honest with lipschitz 2, a lie with 1 */
    double two = 2.0;
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_FUNCTION;
    d.distance = ball_function;
    d.user = &two;
    d.lipschitz = 2.0;
    d.lower = (carom_vec){-1, -1, 0};
    d.upper = (carom_vec){1, 1, 0};
    carom_container *c = NULL;
    CHECK(carom_container_create(&d, &c, NULL, 0) == CAROM_OK);
    if (c) CHECK_MSG(carom_container_check(c, 3000, 1, why, sizeof why) == CAROM_OK, "%s", why);
    carom_container_destroy(c);
    d.lipschitz = 1.0;
    CHECK(carom_container_create(&d, &c, NULL, 0) == CAROM_OK);
    if (c) {
        CHECK(carom_container_check(c, 3000, 1, why, sizeof why) == CAROM_INVALID_ARGUMENT);
        CHECK_MSG(strstr(why, "more than its Lipschitz bound 1 allows") && strstr(why, " between ("), "%s", why);
    }
    carom_container_destroy(c);
    /* a gradient that is wrong where the distance is smooth */
    double one = 1.0;
    d.user = &one;
    d.distance = wrong_gradient;
    CHECK(carom_container_create(&d, &c, NULL, 0) == CAROM_OK);
    if (c) {
        CHECK(carom_container_check(c, 3000, 1, why, sizeof why) == CAROM_INVALID_ARGUMENT);
        CHECK_MSG(strstr(why, "gradient at ("), "%s", why);
    }
    carom_container_destroy(c);
    CHECK(carom_container_check(NULL, 10, 1, why, sizeof why) == CAROM_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------- volumes */

static double monte_carlo_volume(const ref_shape *s, const carom_container *c, int n, double *sigma)
{
    carom_vec lo, hi;
    carom_container_bounds(c, &lo, &hi);
    double l[3] = {lo.x, lo.y, lo.z}, u[3] = {hi.x, hi.y, hi.z}, box = 1.0;
    for (int k = 0; k < s->dim; k++) box *= u[k] - l[k];
    carom_rng rng = carom_rng_seed(99);
    int hits = 0;
    for (int i = 0; i < n; i++) {
        double x[3] = {0, 0, 0};
        for (int k = 0; k < s->dim; k++) x[k] = l[k] + (u[k] - l[k]) * carom_rng_uniform(&rng);
        hits += ref_inside(s, x);
    }
    double p = (double)hits / n;
    *sigma = box * sqrt(p * (1 - p) / n);
    return box * p;
}

/* The overlap of two discs (balls) of radius r, d apart. */
static double lens_area(double r, double d)
{
    return 2 * r * r * acos(d / (2 * r)) - 0.5 * d * sqrt(4 * r * r - d * d);
}
static double lens_volume(double r, double d) { return PI * (4 * r + d) * (2 * r - d) * (2 * r - d) / 12; }

static void test_volumes_closed_form(void)
{
    const double expected[] = {
        2.4 * 1.4,
        2.2 * 1.2 - (4 - PI) * 0.35 * 0.35,
        PI * 0.81,
        0, /* pentagon: shoelace, below */
        0,
        2 * 0.4 * hypot(1.7, 0.9) + PI * 0.16,
        PI * 0.25,
        1.6 * 1.2 * 1.0,
        0, /* rounded box 3D: Monte Carlo below */
        4.0 / 3 * PI * 0.343,
        PI * 0.35 * 0.35 * sqrt(1.1 * 1.1 + 0.6 * 0.6 + 0.4 * 0.4) + 4.0 / 3 * PI * 0.35 * 0.35 * 0.35};
    for (int i = 0; i < COUNT(leaves); i++) {
        carom_container *c = make(leaves[i]);
        double v = carom_container_volume(c), sigma, mc = monte_carlo_volume(leaves[i], c, 400000, &sigma);
        if (expected[i] > 0)
            CHECK_MSG(fabs(v - expected[i]) <= 1e-12 * expected[i], "leaf %d: %.17g vs %.17g", i, v, expected[i]);
        CHECK_MSG(fabs(v - mc) <= 5 * sigma, "leaf %d: volume %.9g, Monte Carlo %.9g +- %.2g", i, v, mc, sigma);
        carom_container_destroy(c);
    }
    /* the triangle by hand: half |cross| */
    carom_container *t = make(&triangle);
    CHECK_NEAR(carom_container_volume(t), 0.5 * fabs(3.0 * 2.2 - 0.1 * 1.2), 1e-14);
    carom_container_destroy(t);
}

static void check_estimate(const carom_container *c, double exact, double relative_bound, const char *name)
{
    double bound, v = container_volume_estimate(c, &bound);
    CHECK_MSG(fabs(v - exact) <= bound, "%s: volume %.12g, exact %.12g, bound %.3g", name, v, exact, bound);
    CHECK_MSG(bound <= relative_bound * exact, "%s: bound %.3g, relative %.3g", name, bound, bound / exact);
    CHECK_MSG(fabs(carom_container_volume(c) - v) == 0.0, "%s", name);
    printf("  %-22s volume %.10f exact %.10f error %.2e bound %.2e\n", name, v, exact, fabs(v - exact), bound);
}

static void test_volumes_of_composites(void)
{
    const double r = 0.9;
    for (int dim = 2; dim <= 3; dim++) {
        ref_shape a = {CAROM_SHAPE_BALL, dim, {0.1, 0.2, 0}, {0}, r, {0}, {0}, NULL, 0, NULL, NULL}, b = a;
        b.c[0] += 1.0;
        double lens = dim == 2 ? lens_area(r, 1.0) : lens_volume(r, 1.0);
        double ball = dim == 2 ? PI * r * r : 4.0 / 3 * PI * r * r * r;
        double tolerance = dim == 2 ? 2e-3 : 6e-2;
        ref_shape u = {CAROM_SHAPE_UNION, dim, {0}, {0}, 0, {0}, {0}, NULL, 0, &a, &b};
        ref_shape m = u, d = u;
        m.shape = CAROM_SHAPE_INTERSECTION;
        d.shape = CAROM_SHAPE_DIFFERENCE;
        carom_container *cu = make(&u), *cm = make(&m), *cd = make(&d);
        check_estimate(cu, 2 * ball - lens, tolerance, dim == 2 ? "union of discs" : "union of balls");
        check_estimate(cm, lens, 5 * tolerance, dim == 2 ? "lens" : "lens 3D");
        check_estimate(cd, ball - lens, 2 * tolerance, dim == 2 ? "crescent" : "crescent 3D");
        carom_container_destroy(cu);
        carom_container_destroy(cm);
        carom_container_destroy(cd);
    }
    for (int i = 0; i < COUNT(composites); i++) { /* against Monte Carlo */
        carom_container *c = make(composites[i]);
        double bound, v = container_volume_estimate(c, &bound), sigma;
        double mc = monte_carlo_volume(composites[i], c, 400000, &sigma);
        CHECK_MSG(fabs(v - mc) <= 5 * sigma + bound, "composite %d: %.9g vs Monte Carlo %.9g +- %.2g", i, v, mc,
                  sigma);
        carom_container_destroy(c);
    }
}

/* ---------------------------------------------------------- copies */

static void *counting_allocate(void *user, size_t size)
{
    (*(size_t *)user) += size;
    return malloc(size);
}

static void test_copy_and_parts(void)
{
    carom_container *c = make(&nested2);
    size_t counted = 0;
    carom_container *copy = container_copy(c, counting_allocate, &counted);
    CHECK(copy && counted == c->bytes);
    CHECK(copy->nodes != c->nodes && (char *)copy->nodes > (char *)copy &&
          (char *)copy->nodes < (char *)copy + copy->bytes);
    carom_rng rng = carom_rng_seed(2);
    points none = {NULL, 0, 0};
    carom_container_destroy(c); /* the copy stands alone */
    for (int i = 0; i < 200; i++) {
        double x[3], g1[3], g2[3];
        random_point(copy, &rng, &none, x);
        double s1 = container_distance(copy, x, g1);
        double s2 = ref_sdf(&nested2, x);
        CHECK_NEAR(s1, s2, 1e-12);
        /* relinking a byte copy gives the same distances bit for bit */
        carom_container *bytes = malloc(copy->bytes);
        memcpy(bytes, copy, copy->bytes);
        container_relink(bytes);
        CHECK(container_distance(bytes, x, g2) == s1 && memcmp(g1, g2, sizeof g1) == 0);
        free(bytes);
    }
    CHECK_EQ_INT(copy->node_count, 5);
    CHECK_EQ_INT(copy->edge_count, 3);
    CHECK_EQ_INT(carom_container_dim(copy), 2);
    free(copy);
}

static void test_bounds(void)
{
    carom_container *c = make(&cut2);
    carom_vec lo, hi;
    carom_container_bounds(c, &lo, &hi);
    CHECK_NEAR(lo.x, 0.1 - 1.1, 1e-15);
    CHECK_NEAR(hi.y, 0.3 + 0.6, 1e-15);
    CHECK(lo.z == 0 && hi.z == 0);
    carom_container_destroy(c);
    c = make(&meet3); /* box [-0.7, 0.9] x [-0.4, 0.8] x [-0.8, 0.2] and ball of 0.7 at (0.2, -0.1, 0.3) */
    carom_container_bounds(c, &lo, &hi);
    CHECK_NEAR(lo.x, -0.5, 1e-15);
    CHECK_NEAR(hi.x, 0.9, 1e-15);
    CHECK_NEAR(lo.z, -0.4, 1e-15);
    CHECK_NEAR(hi.z, 0.2, 1e-15);
    carom_container_destroy(c);
    /* every point inside lies within the bounds (capsule3, random points) */
    c = make(&capsule3);
    carom_container_bounds(c, &lo, &hi);
    carom_rng rng = carom_rng_seed(4);
    for (int i = 0; i < 100000; i++) {
        double x[3] = {-2 + 4 * carom_rng_uniform(&rng), -2 + 4 * carom_rng_uniform(&rng),
                       -2 + 4 * carom_rng_uniform(&rng)};
        if (ref_inside(&capsule3, x))
            CHECK(x[0] >= lo.x && x[0] <= hi.x && x[1] >= lo.y && x[1] <= hi.y && x[2] >= lo.z && x[2] <= hi.z);
    }
    carom_container_destroy(c);
}

int main(void)
{
    RUN(test_closed_forms);
    RUN(test_leaves_against_brute_force);
    RUN(test_composites_against_brute_force);
    RUN(test_composites_against_leaf_formulas);
    RUN(test_gradients);
    RUN(test_gradient_where_undefined);
    RUN(test_bad_polygons);
    RUN(test_bad_leaves);
    RUN(test_bad_functions);
    RUN(test_bad_composites);
    RUN(test_functions);
    RUN(test_function_without_gradient);
    RUN(test_check);
    RUN(test_volumes_closed_form);
    RUN(test_volumes_of_composites);
    RUN(test_copy_and_parts);
    RUN(test_bounds);
    return CHECK_SUMMARY();
}
