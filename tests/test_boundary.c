/* test_boundary.c — the times a body meets a container's boundary
 * (src/boundary.c) against a brute-force reference: every container shape
 * and composite of issue 13 in 2D and 3D, random trajectories with and
 * without acceleration, grazing and tangent approaches, bodies starting in
 * contact, a caller's distance function (conservative advancement) and one
 * that lies about its Lipschitz bound.
 *
 * The reference is independent of the library: each container is also
 * described here by its parameters and its signed distance is computed from
 * them (distances to segments and clamped points, not container.c's
 * formulas), composed by max/min as the contract says. The check of a
 * returned time t is a certified scan: on [0, t) the clearance of the
 * reference never falls below -tol (intervals are split until the Lipschitz
 * bound 1 of the distance proves it, or an interval too short to split shows
 * a point below -tol: a missed contact), and at t the clearance is 0 within
 * the stated tolerance (a contact, not an early stop). Where the reference
 * crosses 0 clearly, its crossing is found by bisection and the time error
 * printed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "boundary.h"
#include "carom.h"
#include "check.h"
#include "roots.h"

/* ------------------------------------------------------------ reference */

typedef struct ref_shape {
    carom_shape kind;
    double c[3], h[3], rho; /* centre, half sides, radius (ball, capsule, rounding) */
    double a[3], b[3];      /* capsule */
    int vertex_count;
    double vertex[8][2]; /* polygon, counter-clockwise */
    const struct ref_shape *first, *second;
    carom_distance_fn fn;
    void *user;
} ref_shape;

static double length3(const double *p) { return sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]); }

/* Distance from x to the segment pq (any dimension up to 3). */
static double segment_distance(const double x[3], const double p[3], const double q[3])
{
    double pq[3], px[3], best[3];
    for (int k = 0; k < 3; k++) pq[k] = q[k] - p[k], px[k] = x[k] - p[k];
    double len2 = pq[0] * pq[0] + pq[1] * pq[1] + pq[2] * pq[2];
    double t = len2 > 0 ? (px[0] * pq[0] + px[1] * pq[1] + px[2] * pq[2]) / len2 : 0.0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    for (int k = 0; k < 3; k++) best[k] = x[k] - (p[k] + t * pq[k]);
    return length3(best);
}

static double ref_distance(const ref_shape *s, const double x[3], int dim)
{
    switch (s->kind) {
    case CAROM_SHAPE_BALL: {
        double d[3] = {x[0] - s->c[0], x[1] - s->c[1], dim == 3 ? x[2] - s->c[2] : 0};
        return s->rho - length3(d);
    }
    case CAROM_SHAPE_BOX:
    case CAROM_SHAPE_ROUNDED_BOX: {
        /* the box of half sides h - rho: inside, the distance to its nearest
         * face; outside, to its clamped point; then the rounding */
        double inside = INFINITY, away[3] = {0, 0, 0};
        int in = 1;
        for (int k = 0; k < dim; k++) {
            double half = s->h[k] - s->rho, lo = s->c[k] - half, hi = s->c[k] + half;
            double clamped = x[k] < lo ? lo : (x[k] > hi ? hi : x[k]);
            away[k] = x[k] - clamped;
            if (x[k] < lo || x[k] > hi) in = 0;
            inside = fmin(inside, fmin(x[k] - lo, hi - x[k]));
        }
        return in ? inside + s->rho : s->rho - length3(away);
    }
    case CAROM_SHAPE_CAPSULE: {
        double p[3] = {x[0], x[1], dim == 3 ? x[2] : 0};
        return s->rho - segment_distance(p, s->a, s->b);
    }
    case CAROM_SHAPE_POLYGON: {
        double nearest = INFINITY;
        int in = 1;
        for (int i = 0; i < s->vertex_count; i++) {
            const double *p = s->vertex[i], *q = s->vertex[(i + 1) % s->vertex_count];
            double P[3] = {p[0], p[1], 0}, Q[3] = {q[0], q[1], 0}, X[3] = {x[0], x[1], 0};
            nearest = fmin(nearest, segment_distance(X, P, Q));
            double cross = (q[0] - p[0]) * (x[1] - p[1]) - (q[1] - p[1]) * (x[0] - p[0]);
            if (cross < 0) in = 0;
        }
        return in ? nearest : -nearest;
    }
    case CAROM_SHAPE_UNION:
        return fmax(ref_distance(s->first, x, dim), ref_distance(s->second, x, dim));
    case CAROM_SHAPE_INTERSECTION:
        return fmin(ref_distance(s->first, x, dim), ref_distance(s->second, x, dim));
    case CAROM_SHAPE_DIFFERENCE:
        return fmin(ref_distance(s->first, x, dim), -ref_distance(s->second, x, dim));
    case CAROM_SHAPE_FUNCTION: {
        carom_vec p = {x[0], x[1], dim == 3 ? x[2] : 0};
        return s->fn(s->user, p, NULL);
    }
    }
    return NAN;
}

/* A caller's function: a ball of radius user[3] about (user[0..2]), times
 * user[4] (1: honest; > 1: steeper than the bound it states). */
static double function_ball(void *user, carom_vec p, carom_vec *gradient)
{
    const double *u = user;
    double d[3] = {p.x - u[0], p.y - u[1], p.z - u[2]}, len = length3(d);
    if (gradient) {
        gradient->x = len > 0 ? -d[0] / len : 1.0;
        gradient->y = len > 0 ? -d[1] / len : 0.0;
        gradient->z = len > 0 ? -d[2] / len : 0.0;
    }
    return u[4] * (u[3] - len);
}

/* -------------------------------------------------- building both forms */

static carom_vec vec(const double *p) { return (carom_vec){p[0], p[1], p[2]}; }

static carom_container *build(const ref_shape *s, int dim)
{
    carom_container_def d = carom_default_container_def();
    carom_vec vertices[8];
    carom_container *first = NULL, *second = NULL, *c = NULL;
    d.shape = s->kind, d.dim = dim;
    d.centre = vec(s->c);
    d.size = (carom_vec){2 * s->h[0], 2 * s->h[1], dim == 3 ? 2 * s->h[2] : 0};
    d.radius = s->rho;
    d.a = vec(s->a), d.b = vec(s->b);
    if (s->kind == CAROM_SHAPE_POLYGON) {
        for (int i = 0; i < s->vertex_count; i++)
            vertices[i] = (carom_vec){s->vertex[i][0], s->vertex[i][1], 0};
        d.vertices = vertices, d.vertex_count = s->vertex_count;
    }
    if (s->kind == CAROM_SHAPE_FUNCTION) {
        const double *u = s->user;
        d.distance = s->fn, d.user = s->user, d.lipschitz = 1.0;
        d.lower = (carom_vec){u[0] - u[3], u[1] - u[3], dim == 3 ? u[2] - u[3] : 0};
        d.upper = (carom_vec){u[0] + u[3], u[1] + u[3], dim == 3 ? u[2] + u[3] : 0};
    }
    if (s->first) {
        first = build(s->first, dim);
        second = build(s->second, dim);
        d.first = first, d.second = second;
    }
    char why[256] = "";
    CHECK_MSG(carom_container_create(&d, &c, why, sizeof why) == CAROM_OK, "%s", why);
    carom_container_destroy(first);
    carom_container_destroy(second);
    return c;
}

/* ------------------------------------------------------------- checking */

typedef struct motion {
    double x[3], v[3], a[3], radius;
    int dim;
} motion;

static void at(const motion *m, double s, double out[3])
{
    for (int k = 0; k < 3; k++) out[k] = m->x[k] + s * (m->v[k] + 0.5 * m->a[k] * s);
}

static double clearance(const ref_shape *s, const motion *m, double t)
{
    double p[3];
    at(m, t, p);
    return ref_distance(s, p, m->dim) - m->radius;
}

/* The path's length over [s0, s1] is at most this. */
static double path_bound(const motion *m, double s0, double s1)
{
    double v0[3];
    for (int k = 0; k < 3; k++) v0[k] = m->v[k] + m->a[k] * s0;
    return (length3(v0) + length3(m->a) * (s1 - s0)) * (s1 - s0);
}

/* The lowest clearance on [s0, s1] is >= -tol (certified by the Lipschitz
 * bound of the distance, 1), or returns 0 with *where a point below -tol. */
static int never_below(const ref_shape *s, const motion *m, double s0, double s1, double f0,
                       double f1, double tol, int depth, double *where)
{
    if (f0 < -tol || f1 < -tol) {
        *where = f0 < -tol ? s0 : s1;
        return 0;
    }
    if (0.5 * (f0 + f1 - path_bound(m, s0, s1)) >= -tol) return 1;
    double mid = s0 + 0.5 * (s1 - s0);
    if (depth > 60 || !(mid > s0 && mid < s1)) return 1; /* cannot be split: no point below found */
    double fm = clearance(s, m, mid);
    return never_below(s, m, s0, mid, f0, fm, tol, depth + 1, where) &&
           never_below(s, m, mid, s1, fm, f1, tol, depth + 1, where);
}

static int certified_above(const ref_shape *s, const motion *m, double t0, double t1, double tol,
                           double *where)
{
    int pieces = 64;
    double prev = t0, f_prev = clearance(s, m, t0);
    for (int i = 1; i <= pieces; i++) {
        double next = i == pieces ? t1 : t0 + (t1 - t0) * i / pieces,
               f_next = clearance(s, m, next);
        if (!never_below(s, m, prev, next, f_prev, f_next, tol, 0, where)) return 0;
        prev = next, f_prev = f_next;
    }
    return 1;
}

typedef struct tally {
    long normals_checked;
    long cases, contacts, infinite, rejected_far, at_zero;
    double worst_time_error;   /* relative, over clear crossings */
    double worst_contact_miss; /* |clearance| at returned contacts, over the scale */
} tally;

/* At a contact where the reference distance is smooth (its central
 * difference has length 1 to 1e-6), boundary_outward_normal is minus its
 * direction. */
static void check_normal(const ref_shape *s, const carom_container *c, const motion *m, double t,
                         tally *tl, const char *name)
{
    double p[3], g[3] = {0, 0, 0}, n[3], step = 1e-6;
    at(m, t, p);
    for (int k = 0; k < m->dim; k++) {
        double plus[3] = {p[0], p[1], p[2]}, minus[3] = {p[0], p[1], p[2]};
        plus[k] += step, minus[k] -= step;
        g[k] = (ref_distance(s, plus, m->dim) - ref_distance(s, minus, m->dim)) / (2 * step);
    }
    if (fabs(length3(g) - 1.0) > 1e-6) return; /* a corner or a seam: no one normal */
    boundary_outward_normal(c, p, n);
    double off = sqrt((n[0] + g[0]) * (n[0] + g[0]) + (n[1] + g[1]) * (n[1] + g[1]) +
                      (n[2] + g[2]) * (n[2] + g[2]));
    tl->normals_checked++;
    CHECK_MSG(off < 1e-5, "%s: normal (%g %g %g) against the reference's (%g %g %g)", name, n[0],
              n[1], n[2], -g[0], -g[1], -g[2]);
}

/* Checks one call: status 0; no contact missed before the returned time;
 * the returned time a contact within hit_tol (a caller's function: the
 * clearance in [-tol, hit_tol]). */
static void check_one(const ref_shape *s, const carom_container *c, const motion *m, double horizon,
                      double tol, double hit_tol, tally *tl, const char *name)
{
    double t = -1.0;
    int status = boundary_contact_time(c, m->x, m->v, m->a, m->radius, horizon, &t);
    tl->cases++;
    CHECK_MSG(status == 0, "%s: status %d", name, status);
    if (status != 0) return;
    CHECK_MSG(t >= 0.0 && (t < horizon || t == INFINITY), "%s: time %g for horizon %g", name, t,
              horizon);
    double end = t < INFINITY ? t : horizon;
    CHECK_MSG(end < INFINITY, "%s: no contact ever, in a bounded container", name);
    if (!(end < INFINITY)) return;
    double where = 0.0;
    int above = certified_above(s, m, 0.0, end, tol, &where);
    CHECK_MSG(above,
              "%s: missed a contact: clearance %.3g at %.17g before the returned %.17g (x %g %g %g "
              "v %g %g %g a %g %g %g r %g H %g)",
              name, clearance(s, m, where), where, t, m->x[0], m->x[1], m->x[2], m->v[0], m->v[1],
              m->v[2], m->a[0], m->a[1], m->a[2], m->radius, horizon);
    if (t == INFINITY) {
        tl->infinite++;
        return;
    }
    double f = clearance(s, m, t);
    if (t == 0.0) {
        tl->at_zero++;
        CHECK_MSG(f <= hit_tol, "%s: contact now, but the clearance is %.3g", name, f);
        return;
    }
    tl->contacts++;
    CHECK_MSG(
        f <= hit_tol && f >= -tol,
        "%s: at the returned %.17g the clearance is %.3g (x %g %g %g v %g %g %g a %g %g %g r %g)",
        name, t, f, m->x[0], m->x[1], m->x[2], m->v[0], m->v[1], m->v[2], m->a[0], m->a[1], m->a[2],
        m->radius);
    if (fabs(f) > tl->worst_contact_miss) tl->worst_contact_miss = fabs(f);
    check_normal(s, c, m, t, tl, name);
    /* a clear crossing: bisect the reference's own crossing near t */
    double span = 1e-6 * (1.0 + t), lo = t - span, hi = t + span;
    if (lo > 0 && clearance(s, m, lo) > 10 * tol && clearance(s, m, hi) < -10 * tol) {
        for (int i = 0; i < 200 && hi - lo > 0; i++) {
            double mid = lo + 0.5 * (hi - lo);
            if (!(mid > lo && mid < hi)) break;
            if (clearance(s, m, mid) > 0)
                lo = mid;
            else
                hi = mid;
        }
        double err = fabs(t - lo) / (1.0 + t);
        if (err > tl->worst_time_error) tl->worst_time_error = err;
    }
}

/* -------------------------------------------------------- the containers */

typedef struct scene {
    const char *name;
    int dim;
    ref_shape shape;
    double size; /* largest side of the bounds */
    int is_function;
} scene;

static ref_shape ball(double x, double y, double z, double r)
{
    ref_shape s = {
        CAROM_SHAPE_BALL, {x, y, z}, {0, 0, 0}, r, {0}, {0}, 0, {{0}}, NULL, NULL, NULL, NULL};
    return s;
}

static ref_shape box(double x, double y, double z, double hx, double hy, double hz, double rounding)
{
    ref_shape s = {rounding > 0 ? CAROM_SHAPE_ROUNDED_BOX : CAROM_SHAPE_BOX,
                   {x, y, z},
                   {hx, hy, hz},
                   rounding,
                   {0},
                   {0},
                   0,
                   {{0}},
                   NULL,
                   NULL,
                   NULL,
                   NULL};
    return s;
}

static ref_shape capsule(const double a[3], const double b[3], double r)
{
    ref_shape s = {CAROM_SHAPE_CAPSULE,
                   {0, 0, 0},
                   {0, 0, 0},
                   r,
                   {a[0], a[1], a[2]},
                   {b[0], b[1], b[2]},
                   0,
                   {{0}},
                   NULL,
                   NULL,
                   NULL,
                   NULL};
    return s;
}

static ref_shape polygon(int n, const double (*v)[2])
{
    ref_shape s = {
        CAROM_SHAPE_POLYGON, {0, 0, 0}, {0, 0, 0}, 0, {0}, {0}, n, {{0}}, NULL, NULL, NULL, NULL};
    for (int i = 0; i < n; i++) s.vertex[i][0] = v[i][0], s.vertex[i][1] = v[i][1];
    return s;
}

static ref_shape pair(carom_shape kind, const ref_shape *p, const ref_shape *q)
{
    ref_shape s = {kind, {0, 0, 0}, {0, 0, 0}, 0, {0}, {0}, 0, {{0}}, p, q, NULL, NULL};
    return s;
}

static double uniform(carom_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * carom_rng_uniform(rng);
}

static void random_vector(carom_rng *rng, int dim, double length, double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    double n2 = 0.0;
    for (int k = 0; k < dim; k++) out[k] = carom_rng_normal(rng), n2 += out[k] * out[k];
    for (int k = 0; k < dim; k++) out[k] *= length / sqrt(n2);
}

/* Random bodies strictly inside, random motions and horizons. */
static void random_trajectories(const scene *sc, int count, int accelerate, uint64_t seed)
{
    carom_container *c = build(&sc->shape, sc->dim);
    if (!c) return;
    carom_vec lower, upper;
    carom_container_bounds(c, &lower, &upper);
    double lo[3] = {lower.x, lower.y, lower.z}, hi[3] = {upper.x, upper.y, upper.z};
    carom_rng rng = carom_rng_seed(seed);
    tally tl = {0, 0, 0, 0, 0, 0, 0.0, 0.0};
    double scale = sc->size;
    double tol = 1e-9 * scale;
    double hit_tol = sc->is_function ? 0x1p-30 * scale * 1.0000001 + tol : tol;
    char name[160];
    snprintf(name, sizeof name, "%s%s", sc->name, accelerate ? " accelerated" : "");
    for (int i = 0; i < count; i++) {
        motion m = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0.0, sc->dim};
        m.radius = uniform(&rng, 0.02, 0.12) * scale;
        int tries = 0;
        do {
            for (int k = 0; k < sc->dim; k++) m.x[k] = uniform(&rng, lo[k], hi[k]);
        } while (clearance(&sc->shape, &m, 0.0) < 1e-3 * scale && ++tries < 100000);
        random_vector(&rng, sc->dim, uniform(&rng, 0.01, 1.0) * scale, m.v);
        if (accelerate) random_vector(&rng, sc->dim, uniform(&rng, 0.0, 3.0) * scale, m.a);
        double u = carom_rng_uniform(&rng);
        double horizon =
            u < 0.4 ? INFINITY : (u < 0.7 ? uniform(&rng, 0.0, 0.1) : uniform(&rng, 0.0, 3.0));
        check_one(&sc->shape, c, &m, horizon, tol, hit_tol, &tl, name);
    }
    printf("  %-34s %4ld cases: %4ld contacts, %3ld none before the horizon, %2ld at 0; "
           "worst |clearance| at contact %.1e of the size, worst time error %.1e, %ld normals\n",
           name, tl.cases, tl.contacts, tl.infinite, tl.at_zero, tl.worst_contact_miss / scale,
           tl.worst_time_error, tl.normals_checked);
    carom_container_destroy(c);
}

static const double HEXAGON[6][2] = {{-4.0, -3.0}, {3.0, -3.5}, {5.0, 0.5},
                                     {3.5, 4.0},   {-2.0, 4.5}, {-5.0, 1.0}};
static const double TRIANGLE[3][2] = {{-1.5, -1.0}, {2.0, -0.5}, {0.0, 2.5}};

static double FUNCTION_BALL_2D[5] = {0.5, -0.25, 0.0, 6.0, 1.0};
static double FUNCTION_BALL_3D[5] = {0.5, -0.25, 0.3, 6.0, 1.0};

static void run_scenes(int accelerate)
{
    const double A2[3] = {-4, -1, 0}, B2[3] = {4, 1.5, 0}, A3[3] = {-3, -1, 0.5},
                 B3[3] = {3, 1, -0.5};
    const double cutA[3] = {-1, 0.5, 0}, cutB[3] = {1.5, -0.5, 0};
    ref_shape circle = ball(0.3, -0.2, 0, 6), inner = ball(1.5, 0.8, 0, 2),
              other = ball(4.0, 1.0, 0, 5);
    ref_shape square = box(0.5, 0.0, 0, 4.0, 3.0, 0, 0), rink = box(0, 0, 0, 7.0, 4.0, 0, 2.0);
    ref_shape hexagon = polygon(6, HEXAGON), triangle = polygon(3, TRIANGLE);
    ref_shape stadium = capsule(A2, B2, 3.0), slot = capsule(cutA, cutB, 1.0);
    ref_shape ring = pair(CAROM_SHAPE_DIFFERENCE, &circle, &inner);
    ref_shape lens = pair(CAROM_SHAPE_UNION, &circle, &other);
    ref_shape cut = pair(CAROM_SHAPE_INTERSECTION, &hexagon, &circle);
    ref_shape holed = pair(CAROM_SHAPE_DIFFERENCE, &rink, &triangle);
    ref_shape both = pair(CAROM_SHAPE_UNION, &square, &stadium);
    ref_shape rink_slot = pair(CAROM_SHAPE_DIFFERENCE, &rink, &slot);
    ref_shape square_hole = pair(CAROM_SHAPE_DIFFERENCE, &circle, &square);
    ref_shape fn2 = {
        CAROM_SHAPE_FUNCTION, {0}, {0}, 0, {0}, {0}, 0, {{0}}, NULL, NULL, function_ball,
        FUNCTION_BALL_2D};

    ref_shape sphere = ball(0.2, 0.1, -0.3, 5), hollow = ball(1.0, -0.5, 0.5, 1.5),
              sphere2 = ball(3.0, 1.0, 0, 4);
    ref_shape cube = box(0, 0.5, 0, 4, 3, 3.5, 0), rounded = box(0, 0, 0, 5, 4, 3, 1.5),
              cuboid = box(2, 0, 0, 2, 1, 1, 0);
    ref_shape pill = capsule(A3, B3, 2.5);
    ref_shape shell = pair(CAROM_SHAPE_DIFFERENCE, &sphere, &hollow);
    ref_shape twins = pair(CAROM_SHAPE_UNION, &sphere, &sphere2);
    ref_shape capped = pair(CAROM_SHAPE_INTERSECTION, &cube, &sphere);
    ref_shape carved = pair(CAROM_SHAPE_DIFFERENCE, &rounded, &cuboid);
    ref_shape drilled = pair(CAROM_SHAPE_DIFFERENCE, &rounded, &pill);
    ref_shape fn3 = {
        CAROM_SHAPE_FUNCTION, {0}, {0}, 0, {0}, {0}, 0, {{0}}, NULL, NULL, function_ball,
        FUNCTION_BALL_3D};

    const scene scenes[] = {
        {"2D circle", 2, circle, 12, 0},
        {"2D box", 2, square, 8, 0},
        {"2D rounded box", 2, rink, 14, 0},
        {"2D polygon", 2, hexagon, 10, 0},
        {"2D capsule", 2, stadium, 14, 0},
        {"2D circle minus circle", 2, ring, 12, 0},
        {"2D union of circles", 2, lens, 14, 0},
        {"2D polygon and circle", 2, cut, 10, 0},
        {"2D rounded box minus polygon", 2, holed, 14, 0},
        {"2D rounded box minus capsule", 2, rink_slot, 14, 0},
        {"2D circle minus box", 2, square_hole, 12, 0},
        {"2D box or capsule", 2, both, 14, 0},
        {"2D function (circle)", 2, fn2, 12, 1},
        {"3D sphere", 3, sphere, 10, 0},
        {"3D box", 3, cube, 8, 0},
        {"3D rounded box", 3, rounded, 10, 0},
        {"3D capsule", 3, pill, 11, 0},
        {"3D sphere minus sphere", 3, shell, 10, 0},
        {"3D union of spheres", 3, twins, 12, 0},
        {"3D box and sphere", 3, capped, 10, 0},
        {"3D rounded box minus box", 3, carved, 10, 0},
        {"3D rounded box minus capsule", 3, drilled, 10, 0},
        {"3D function (sphere)", 3, fn3, 12, 1},
    };
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++)
        random_trajectories(&scenes[i], scenes[i].is_function ? 100 : 250, accelerate,
                            1000 + 17 * i + accelerate);
}

static void test_random_trajectories(void) { run_scenes(0); }

static void test_random_accelerated_trajectories(void) { run_scenes(1); }

/* ------------------------------------------------------- specific cases */

static double contact_time(const carom_container *c, const double x[3], const double v[3],
                           const double a[3], double radius, double horizon, int *status)
{
    double t = -1.0;
    int st = boundary_contact_time(c, x, v, a, radius, horizon, &t);
    if (status)
        *status = st;
    else
        CHECK_EQ_INT(st, 0);
    return t;
}

/* Polynomials built from their roots (simple, double, none): the first
 * s >= lo with p >= 0 is the first root where p turns nonnegative, a double
 * root (a touch) included. */
static void test_roots(void)
{
    carom_rng rng = carom_rng_seed(5);
    for (int i = 0; i < 20000; i++) {
        double r[4];
        int kind = i % 4;
        for (int k = 0; k < 4; k++) r[k] = uniform(&rng, -1.0, 3.0);
        if (kind == 1) r[1] = r[0];              /* a double root */
        if (kind == 2) r[3] = r[2], r[1] = r[0]; /* two double roots */
        int clustered =
            0; /* distinct roots closer than 0.05: conditioning, not the method, decides */
        for (int k = 0; k < 4; k++)
            for (int j = 0; j < k; j++)
                if (r[k] != r[j] && fabs(r[k] - r[j]) < 0.05) clustered = 1;
        if (clustered) continue;
        /* p = -(s - r0)(s - r1)(s - r2)(s - r3), or with kind 3 a quadratic factor without roots */
        double c[5] = {1, 0, 0, 0, 0};
        int degree = 0;
        for (int k = 0; k < 4; k++) {
            if (kind == 3 && k >= 2) break;
            for (int j = degree + 1; j > 0; j--) c[j] = c[j - 1] - r[k] * c[j];
            c[0] = -r[k] * c[0];
            degree++;
        }
        if (kind == 3) { /* times s^2 + 1 */
            double d[5] = {c[0], c[1], c[0] + c[2], c[1], c[2]};
            for (int j = 0; j < 5; j++) c[j] = d[j];
            degree = 4;
        }
        for (int j = 0; j <= degree; j++) c[j] = -c[j]; /* negative for large s */
        double lo = 0.0, hi = 2.5;
        double magnitude =
            0.0; /* of the terms of p on [lo, hi]: the rounding of p is about u times this */
        for (int j = 0; j <= degree; j++) magnitude += fabs(c[j]) * pow(hi, j);
        double got = roots_first_nonnegative(c, degree, lo, hi, 0x1p-50 * magnitude);
        /* the expected: lo if p(lo) >= 0, else the smallest root in (lo, hi] */
        double expected = INFINITY;
        if (roots_eval(c, degree, lo) >= 0) {
            expected = lo;
        } else {
            for (int k = 0; k < (kind == 3 ? 2 : 4); k++)
                if (r[k] > lo && r[k] <= hi && r[k] < expected) expected = r[k];
        }
        if (expected == INFINITY) {
            CHECK_MSG(got == INFINITY, "case %d: got %.17g, expected none", i, got);
        } else {
            double tol = kind == 0 || kind == 3
                             ? 1e-9
                             : 2e-5; /* double roots: the square root of the rounding */
            CHECK_MSG(fabs(got - expected) <= tol, "case %d (kind %d): got %.17g, expected %.17g",
                      i, kind, got, expected);
        }
    }
}

/* A body touching the wall: moving out is a contact now, moving in (just
 * bounced, even overlapped by round-off) is not; pressed by acceleration it
 * is, pulled away it is not. */
static void test_starting_in_contact(void)
{
    ref_shape circle = ball(0, 0, 0, 5), inner = ball(0, 0, 0, 1),
              square = box(0, 0, 0, 5, 5, 0, 0);
    ref_shape ring = pair(CAROM_SHAPE_DIFFERENCE, &circle, &inner);
    const double r = 0.5, none[3] = {0, 0, 0};
    const ref_shape *shapes[3] = {&circle, &square, &ring};
    for (int k = 0; k < 3; k++) {
        carom_container *c = build(shapes[k], 2);
        double x[3] = {4.5, 0, 0}, out[3] = {1, 0.2, 0}, in[3] = {-1, 0.3, 0};
        CHECK_MSG(contact_time(c, x, out, none, r, INFINITY, NULL) == 0.0, "shape %d moving out",
                  k);
        double t = contact_time(c, x, in, none, r, INFINITY, NULL);
        CHECK_MSG(t > 1.0 && t < INFINITY, "shape %d moving in: %g", k, t);
        if (k == 0) CHECK_NEAR(t, -2.0 * (x[0] * in[0]) / (in[0] * in[0] + in[1] * in[1]), 1e-13);
        double over[3] = {4.5 + 1e-13, 0, 0}; /* round-off overlap */
        CHECK_MSG(contact_time(c, over, in, none, r, INFINITY, NULL) > 1.0,
                  "shape %d overlapped by round-off", k);
        CHECK_MSG(contact_time(c, over, out, none, r, INFINITY, NULL) == 0.0,
                  "shape %d overlapped, out", k);
        double along[3] = {0, 1, 0}, press[3] = {2, 0, 0}, pull[3] = {-2, 0, 0};
        CHECK_MSG(contact_time(c, x, along, press, r, INFINITY, NULL) == 0.0, "shape %d pressed",
                  k);
        if (k == 1) { /* a flat wall: sliding along it is no contact */
            CHECK_MSG(contact_time(c, x, along, none, r, 1.0, NULL) == INFINITY,
                      "sliding along the box");
        }
        CHECK_MSG(contact_time(c, x, along, pull, r, INFINITY, NULL) > 0.1, "shape %d pulled away",
                  k);
        if (k == 2) { /* touching the inner circle from outside */
            double y[3] = {-1.5, 0, 0}, toward[3] = {1, 0.1, 0}, away[3] = {-1, 0.1, 0};
            CHECK_MSG(contact_time(c, y, toward, none, r, INFINITY, NULL) == 0.0, "into the hole");
            CHECK_MSG(contact_time(c, y, away, none, r, INFINITY, NULL) > 1.0,
                      "away from the hole");
        }
        carom_container_destroy(c);
    }
}

/* A line passing an obstacle at the contact distance times (1 -+ 1e-9):
 * just in, a contact at the closest approach; just out, the far wall. */
static void test_grazing(void)
{
    ref_shape circle = ball(0, 0, 0, 10), inner = ball(1.0, 0.5, 0, 2),
              square = box(1.0, 0.5, 0, 2, 2, 0, 0);
    ref_shape ring = pair(CAROM_SHAPE_DIFFERENCE, &circle, &inner),
              frame = pair(CAROM_SHAPE_DIFFERENCE, &circle, &square);
    const double r = 0.5, none[3] = {0, 0, 0};
    for (int k = 0; k < 2; k++) {
        carom_container *c = build(k ? &frame : &ring, 2);
        const ref_shape *ref = k ? &frame : &ring;
        for (int side = -1; side <= 1; side += 2) {
            /* in: passes the circle (or the box's top face) at 2.5 (1 + side 1e-9) */
            double gap = 2.5 * (1.0 + side * 1e-9);
            double x[3] = {-6.0, 0.5 + gap, 0}, v[3] = {1.0, 0, 0};
            double t = contact_time(c, x, v, none, r, INFINITY, NULL);
            motion m = {{x[0], x[1], 0}, {1, 0, 0}, {0, 0, 0}, r, 2};
            double f = clearance(ref, &m, t);
            if (side < 0) {
                CHECK_MSG(t < 8.0 && fabs(f) < 1e-9, "%s: grazing in: t %.17g clearance %g",
                          k ? "box" : "circle", t, f);
            } else {
                CHECK_MSG(t > 12.0 && fabs(f) < 1e-9, "%s: grazing past: t %.17g clearance %g",
                          k ? "box" : "circle", t, f);
            }
        }
        carom_container_destroy(c);
    }
}

/* Braking toward a wall to a stop at the contact distance (an exact double
 * root: v0 = 3, a = -1, stop after 4.5 at s = 3), a little short, a little
 * long: a touch at 3, the far wall later, a contact just before 3. */
static void test_tangent_approaches(void)
{
    ref_shape circle = ball(0, 0, 0, 5), square = box(0, 0, 0, 5, 5, 5, 0),
              sphere = ball(0, 0, 0, 5);
    const double r = 0.5;
    for (int k = 0; k < 3; k++) {
        int dim = k == 0 ? 2 : 3;
        const ref_shape *ref = k == 0 ? &circle : (k == 1 ? &square : &sphere);
        carom_container *c = build(ref, dim);
        double x[3] = {0, 0, 0}, v[3] = {3, 0, 0}, a[3] = {-1, 0, 0};
        double t = contact_time(c, x, v, a, r, INFINITY, NULL);
        CHECK_MSG(fabs(t - 3.0) <= 1e-7, "shape %d: exact touch at %.17g, expected 3", k, t);
        double short_v[3] = {3.0 * (1 - 1e-6), 0, 0}, long_v[3] = {3.0 * (1 + 1e-6), 0, 0};
        t = contact_time(c, x, short_v, a, r, INFINITY, NULL);
        CHECK_MSG(t > 6.0, "shape %d: stops short, so the far wall: %.17g", k, t);
        t = contact_time(c, x, long_v, a, r, INFINITY, NULL);
        double expected = (long_v[0] - sqrt(long_v[0] * long_v[0] - 2.0 * 4.5)) / 1.0;
        CHECK_MSG(fabs(t - expected) <= 1e-6 && t < 3.0,
                  "shape %d: just reaches it at %.17g, expected %.17g", k, t, expected);
        carom_container_destroy(c);
    }
}

/* A function that is 3 times steeper than the bound it states is caught;
 * a honest one agrees with the exact ball to its tolerance, never late. */
static void test_functions(void)
{
    double liar[5] = {0, 0, 0, 5, 3.0}, honest[5] = {0, 0, 0, 5, 1.0};
    ref_shape fake = {CAROM_SHAPE_FUNCTION, {0}, {0}, 0, {0}, {0}, 0, {{0}}, NULL, NULL,
                      function_ball,        liar};
    ref_shape good = {CAROM_SHAPE_FUNCTION, {0},   {0}, 0, {0}, {0}, 0, {{0}}, NULL, NULL,
                      function_ball,        honest};
    ref_shape exact = ball(0, 0, 0, 5);
    carom_container *lying = build(&fake, 2), *fn = build(&good, 2), *ref = build(&exact, 2);
    int status = 0, caught = 0;
    carom_rng rng = carom_rng_seed(9);
    double worst_early = 0.0, eps = 0x1p-30 * 10.0;
    for (int i = 0; i < 200; i++) {
        double x[3] = {0, 0, 0}, v[3], a[3] = {0, 0, 0};
        random_vector(&rng, 2, uniform(&rng, 0.0, 3.0), x);
        random_vector(&rng, 2, 1.0, v);
        if (i % 2) random_vector(&rng, 2, 1.0, a);
        double t = contact_time(lying, x, v, a, 0.5, INFINITY, &status);
        if (status == BOUNDARY_LIPSCHITZ_BROKEN) {
            caught++;
            CHECK(t == INFINITY);
        }
        double t_fn = contact_time(fn, x, v, a, 0.5, INFINITY, NULL),
               t_exact = contact_time(ref, x, v, a, 0.5, INFINITY, NULL);
        CHECK_MSG(t_fn <= t_exact, "the function's contact %.17g after the exact %.17g", t_fn,
                  t_exact);
        /* within eps / v_n of it: v_n the speed of approach at the contact */
        motion m = {{x[0], x[1], 0}, {v[0], v[1], 0}, {a[0], a[1], 0}, 0.5, 2};
        double p[3], vel[3];
        at(&m, t_exact, p);
        for (int k = 0; k < 3; k++) vel[k] = v[k] + a[k] * t_exact;
        double vn = (p[0] * vel[0] + p[1] * vel[1]) / length3(p);
        CHECK_MSG(t_exact - t_fn <= 2.0 * eps / vn + 1e-12, "early by %g, eps / v_n %g",
                  t_exact - t_fn, eps / vn);
        worst_early = fmax(worst_early, (t_exact - t_fn) * vn / eps);
    }
    CHECK_MSG(caught == 200, "the lying function caught %d times in 200", caught);
    printf("  a caller's ball against the exact one: contacts at most %.2f eps / v_n early (eps = "
           "2^-30 of the size)\n",
           worst_early);
    carom_container_destroy(lying);
    carom_container_destroy(fn);
    carom_container_destroy(ref);
}

/* Conservative advancement cannot tell a body sliding 1e-5 from a flat wall
 * from one about to touch it but by small steps: past its step budget it
 * says where it got to (no contact before), not a contact. */
static double half_plane(void *user, carom_vec p, carom_vec *gradient)
{
    (void)user;
    if (gradient) *gradient = (carom_vec){0, -1, 0};
    return fmin(5.0 - p.y,
                fmin(1000.0 - fabs(p.x), 1000.0 + p.y)); /* a long flat wall, capped far away */
}

static void test_recheck(void)
{
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_FUNCTION, d.dim = 2, d.distance = half_plane, d.lipschitz = 1.0;
    d.lower = (carom_vec){-1000, -1000, 0}, d.upper = (carom_vec){1000, 5, 0};
    carom_container *c = NULL;
    char why[256] = "";
    CHECK_MSG(carom_container_create(&d, &c, why, sizeof why) == CAROM_OK, "%s", why);
    if (!c) return;
    double x[3] = {0, 4.5 - 1e-5, 0}, v[3] = {1, 0, 0}, none[3] = {0, 0, 0};
    int status = 0;
    double t = contact_time(c, x, v, none, 0.5, INFINITY, &status);
    CHECK_EQ_INT(status, BOUNDARY_RECHECK);
    CHECK_MSG(t > 0.0 && t < 1000.0, "reached %g", t);
    carom_container_destroy(c);
}

int main(void)
{
    RUN(test_roots);
    RUN(test_starting_in_contact);
    RUN(test_grazing);
    RUN(test_tangent_approaches);
    RUN(test_functions);
    RUN(test_recheck);
    RUN(test_random_trajectories);
    RUN(test_random_accelerated_trajectories);
    return CHECK_SUMMARY();
}
