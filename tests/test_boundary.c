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
    case CAROM_SHAPE_UNION: return fmax(ref_distance(s->first, x, dim), ref_distance(s->second, x, dim));
    case CAROM_SHAPE_INTERSECTION: return fmin(ref_distance(s->first, x, dim), ref_distance(s->second, x, dim));
    case CAROM_SHAPE_DIFFERENCE: return fmin(ref_distance(s->first, x, dim), -ref_distance(s->second, x, dim));
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
        for (int i = 0; i < s->vertex_count; i++) vertices[i] = (carom_vec){s->vertex[i][0], s->vertex[i][1], 0};
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
static int never_below(const ref_shape *s, const motion *m, double s0, double s1, double f0, double f1,
                       double tol, int depth, double *where)
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

static int certified_above(const ref_shape *s, const motion *m, double t0, double t1, double tol, double *where)
{
    int pieces = 64;
    double prev = t0, f_prev = clearance(s, m, t0);
    for (int i = 1; i <= pieces; i++) {
        double next = i == pieces ? t1 : t0 + (t1 - t0) * i / pieces, f_next = clearance(s, m, next);
        if (!never_below(s, m, prev, next, f_prev, f_next, tol, 0, where)) return 0;
        prev = next, f_prev = f_next;
    }
    return 1;
}

typedef struct tally {
    long cases, contacts, infinite, rejected_far, at_zero;
    double worst_time_error;   /* relative, over clear crossings */
    double worst_contact_miss; /* |clearance| at returned contacts, over the scale */
} tally;

/* Checks one call: status 0; no contact missed before the returned time;
 * the returned time a contact within hit_tol (a caller's function: the
 * clearance in [-tol, hit_tol]). */
static void check_one(const ref_shape *s, const carom_container *c, const motion *m, double horizon, double tol,
                      double hit_tol, tally *tl, const char *name)
{
    double t = -1.0;
    int status = boundary_contact_time(c, m->x, m->v, m->a, m->radius, horizon, &t);
    tl->cases++;
    CHECK_MSG(status == 0, "%s: status %d", name, status);
    if (status != 0) return;
    CHECK_MSG(t >= 0.0 && (t < horizon || t == INFINITY), "%s: time %g for horizon %g", name, t, horizon);
    double end = t < INFINITY ? t : horizon;
    CHECK_MSG(end < INFINITY, "%s: no contact ever, in a bounded container", name);
    if (!(end < INFINITY)) return;
    double where = 0.0;
    int above = certified_above(s, m, 0.0, end, tol, &where);
    CHECK_MSG(above, "%s: missed a contact: clearance %.3g at %.17g before the returned %.17g (x %g %g %g v %g %g %g a %g %g %g r %g H %g)",
              name, clearance(s, m, where), where, t, m->x[0], m->x[1], m->x[2], m->v[0], m->v[1], m->v[2],
              m->a[0], m->a[1], m->a[2], m->radius, horizon);
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
    CHECK_MSG(f <= hit_tol && f >= -tol, "%s: at the returned %.17g the clearance is %.3g (x %g %g %g v %g %g %g a %g %g %g r %g)",
              name, t, f, m->x[0], m->x[1], m->x[2], m->v[0], m->v[1], m->v[2], m->a[0], m->a[1], m->a[2], m->radius);
    if (fabs(f) > tl->worst_contact_miss) tl->worst_contact_miss = fabs(f);
    /* a clear crossing: bisect the reference's own crossing near t */
    double span = 1e-6 * (1.0 + t), lo = t - span, hi = t + span;
    if (lo > 0 && clearance(s, m, lo) > 10 * tol && clearance(s, m, hi) < -10 * tol) {
        for (int i = 0; i < 200 && hi - lo > 0; i++) {
            double mid = lo + 0.5 * (hi - lo);
            if (!(mid > lo && mid < hi)) break;
            if (clearance(s, m, mid) > 0) lo = mid;
            else hi = mid;
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
    ref_shape s = {CAROM_SHAPE_BALL, {x, y, z}, {0, 0, 0}, r, {0}, {0}, 0, {{0}}, NULL, NULL, NULL, NULL};
    return s;
}

static ref_shape box(double x, double y, double z, double hx, double hy, double hz, double rounding)
{
    ref_shape s = {rounding > 0 ? CAROM_SHAPE_ROUNDED_BOX : CAROM_SHAPE_BOX,
                   {x, y, z}, {hx, hy, hz}, rounding, {0}, {0}, 0, {{0}}, NULL, NULL, NULL, NULL};
    return s;
}

static ref_shape capsule(const double a[3], const double b[3], double r)
{
    ref_shape s = {CAROM_SHAPE_CAPSULE, {0, 0, 0}, {0, 0, 0}, r, {a[0], a[1], a[2]}, {b[0], b[1], b[2]}, 0, {{0}},
                   NULL, NULL, NULL, NULL};
    return s;
}

static ref_shape polygon(int n, const double (*v)[2])
{
    ref_shape s = {CAROM_SHAPE_POLYGON, {0, 0, 0}, {0, 0, 0}, 0, {0}, {0}, n, {{0}}, NULL, NULL, NULL, NULL};
    for (int i = 0; i < n; i++) s.vertex[i][0] = v[i][0], s.vertex[i][1] = v[i][1];
    return s;
}

static ref_shape pair(carom_shape kind, const ref_shape *p, const ref_shape *q)
{
    ref_shape s = {kind, {0, 0, 0}, {0, 0, 0}, 0, {0}, {0}, 0, {{0}}, p, q, NULL, NULL};
    return s;
}

static double uniform(carom_rng *rng, double lo, double hi) { return lo + (hi - lo) * carom_rng_uniform(rng); }

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
    tally tl = {0, 0, 0, 0, 0, 0.0, 0.0};
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
        double horizon = u < 0.4 ? INFINITY : (u < 0.7 ? uniform(&rng, 0.0, 0.1) : uniform(&rng, 0.0, 3.0));
        check_one(&sc->shape, c, &m, horizon, tol, hit_tol, &tl, name);
    }
    printf("  %-34s %4ld cases: %4ld contacts, %3ld none before the horizon, %2ld at 0; "
           "worst |clearance| at contact %.1e of the size, worst time error %.1e\n",
           name, tl.cases, tl.contacts, tl.infinite, tl.at_zero, tl.worst_contact_miss / scale, tl.worst_time_error);
    carom_container_destroy(c);
}

static const double HEXAGON[6][2] = {{-4.0, -3.0}, {3.0, -3.5}, {5.0, 0.5}, {3.5, 4.0}, {-2.0, 4.5}, {-5.0, 1.0}};
static const double TRIANGLE[3][2] = {{-1.5, -1.0}, {2.0, -0.5}, {0.0, 2.5}};

static double FUNCTION_BALL_2D[5] = {0.5, -0.25, 0.0, 6.0, 1.0};
static double FUNCTION_BALL_3D[5] = {0.5, -0.25, 0.3, 6.0, 1.0};

static void run_scenes(int accelerate)
{
    const double A2[3] = {-4, -1, 0}, B2[3] = {4, 1.5, 0}, A3[3] = {-3, -1, 0.5}, B3[3] = {3, 1, -0.5};
    const double cutA[3] = {-1, 0.5, 0}, cutB[3] = {1.5, -0.5, 0};
    ref_shape circle = ball(0.3, -0.2, 0, 6), inner = ball(1.5, 0.8, 0, 2), other = ball(4.0, 1.0, 0, 5);
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
    ref_shape fn2 = {CAROM_SHAPE_FUNCTION, {0}, {0}, 0, {0}, {0}, 0, {{0}}, NULL, NULL, function_ball, FUNCTION_BALL_2D};

    ref_shape sphere = ball(0.2, 0.1, -0.3, 5), hollow = ball(1.0, -0.5, 0.5, 1.5), sphere2 = ball(3.0, 1.0, 0, 4);
    ref_shape cube = box(0, 0.5, 0, 4, 3, 3.5, 0), rounded = box(0, 0, 0, 5, 4, 3, 1.5), cuboid = box(2, 0, 0, 2, 1, 1, 0);
    ref_shape pill = capsule(A3, B3, 2.5);
    ref_shape shell = pair(CAROM_SHAPE_DIFFERENCE, &sphere, &hollow);
    ref_shape twins = pair(CAROM_SHAPE_UNION, &sphere, &sphere2);
    ref_shape capped = pair(CAROM_SHAPE_INTERSECTION, &cube, &sphere);
    ref_shape carved = pair(CAROM_SHAPE_DIFFERENCE, &rounded, &cuboid);
    ref_shape drilled = pair(CAROM_SHAPE_DIFFERENCE, &rounded, &pill);
    ref_shape fn3 = {CAROM_SHAPE_FUNCTION, {0}, {0}, 0, {0}, {0}, 0, {{0}}, NULL, NULL, function_ball, FUNCTION_BALL_3D};

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
        random_trajectories(&scenes[i], scenes[i].is_function ? 100 : 250, accelerate, 1000 + 17 * i + accelerate);
}

static void test_random_trajectories(void) { run_scenes(0); }

static void test_random_accelerated_trajectories(void) { run_scenes(1); }

int main(void)
{
    RUN(test_random_trajectories);
    RUN(test_random_accelerated_trajectories);
    return CHECK_SUMMARY();
}
