/* test_filter.c — the safety filter (src/filter.c, seed 003) as pure
 * functions: the laws against hand-worked values, the input bit for bit
 * below sigma v_max, |a| <= a_max always, the edge cases, and the
 * guarantee: adversarial players over 10^6 windows per container (circle
 * and box in 2D, sphere in 3D) never reach a wall, where the clearance over
 * each window is its true minimum on the exact parabola (closed form for
 * the box, the extrema of the quartic |x(t)|^2 for balls); the margin is
 * tight (without it they do reach the wall); the directional law; several
 * steered bodies that never touch each other or the wall.
 *
 * The containers here are analytic (the test computes s and its gradient
 * itself), so the filter is checked apart from container.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "filter.h"

/* ---- small vector helpers ------------------------------------------------ */

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double len3(const double a[3]) { return sqrt(dot3(a, a)); }
static carom_vec vec(const double a[3]) { return (carom_vec){a[0], a[1], a[2]}; }
static void unvec(double out[3], carom_vec v) { out[0] = v.x, out[1] = v.y, out[2] = v.z; }

static int same_bits(carom_vec a, carom_vec b) { return memcmp(&a, &b, sizeof a) == 0; }

/* ---- analytic containers ------------------------------------------------- */

typedef enum { SHAPE_BALL, SHAPE_BOX, SHAPE_HALF, SHAPE_LIBRARY } shape_kind;

typedef struct container {
    shape_kind kind;
    int dim;
    double size;    /* ball: radius; box: half side (square/cube); half-plane: unused (wall y = 0);
                       library: the largest extent of its bounds */
    double radius;  /* the body's radius */
    const carom_container *shape; /* library: carom's container (its distance is 1-Lipschitz) */
    double start[3];              /* library: where the body starts */
} container;

/* The clearance s(x) - r and its inward gradient. */
static double clearance_at(const container *c, const double x[3], double g[3])
{
    g[0] = g[1] = g[2] = 0.0;
    if (c->kind == SHAPE_LIBRARY) {
        carom_vec grad = {0, 0, 0};
        double s = carom_container_distance(c->shape, vec(x), &grad) - c->radius;
        unvec(g, grad);
        return s;
    }
    if (c->kind == SHAPE_HALF) {
        g[1] = 1.0;
        return x[1] - c->radius;
    }
    if (c->kind == SHAPE_BALL) {
        double d = len3(x);
        if (d > 0.0)
            for (int k = 0; k < c->dim; k++) g[k] = -x[k] / d;
        else
            g[0] = 1.0;
        return c->size - c->radius - d;
    }
    int worst = 0;
    for (int k = 1; k < c->dim; k++)
        if (fabs(x[k]) > fabs(x[worst])) worst = k;
    g[worst] = x[worst] > 0.0 ? -1.0 : 1.0;
    return c->size - c->radius - fabs(x[worst]);
}

/* What the filter is given: the clearance less the skin of filter.h. */
static double filter_clearance(const container *c, const double x[3], double g[3])
{
    return clearance_at(c, x, g) - filter_skin(c->kind == SHAPE_HALF ? 1.0 : c->size);
}

/* Extremes of f(t) = |p + q t + w t^2|^2 on [0, T]: its critical points are
 * the roots of the cubic f'/2 = (p + q t + w t^2) . (q + 2 w t), found by
 * bisection on the intervals where the cubic is monotone (split at the roots
 * of its derivative). */
static double cubic_at(const double c[4], double t) { return ((c[3] * t + c[2]) * t + c[1]) * t + c[0]; }

static double quartic_at(const double p[3], const double q[3], const double w[3], double t)
{
    double x[3];
    for (int k = 0; k < 3; k++) x[k] = p[k] + (q[k] + w[k] * t) * t;
    return dot3(x, x);
}

static void quartic_extremes(const double p[3], const double q[3], const double w[3], double T, double *lo,
                             double *hi)
{
    double c[4] = {dot3(p, q), dot3(q, q) + 2.0 * dot3(p, w), 3.0 * dot3(q, w), 2.0 * dot3(w, w)};
    double cuts[4] = {0.0, T, T, T};
    int n = 1;
    /* roots of c1 + 2 c2 t + 3 c3 t^2 in (0, T) */
    double A = 3.0 * c[3], B = 2.0 * c[2], C = c[1];
    if (A != 0.0) {
        double disc = B * B - 4.0 * A * C;
        if (disc > 0.0) {
            double r = sqrt(disc), q1 = -0.5 * (B + (B >= 0 ? r : -r));
            double t1 = q1 / A, t2 = q1 != 0.0 ? C / q1 : t1;
            if (t1 > t2) { double s = t1; t1 = t2; t2 = s; }
            if (t1 > 0.0 && t1 < T) cuts[n++] = t1;
            if (t2 > 0.0 && t2 < T) cuts[n++] = t2;
        }
    } else if (B != 0.0) {
        double t1 = -C / B;
        if (t1 > 0.0 && t1 < T) cuts[n++] = t1;
    }
    cuts[n] = T;
    *lo = *hi = quartic_at(p, q, w, 0.0);
    double end = quartic_at(p, q, w, T);
    *lo = fmin(*lo, end), *hi = fmax(*hi, end);
    for (int i = 0; i < n; i++) {
        double a = cuts[i], b = cuts[i + 1], fa = cubic_at(c, a), fb = cubic_at(c, b);
        if (fa == 0.0 || fb == 0.0 || (fa < 0.0) == (fb < 0.0)) {
            double fv = quartic_at(p, q, w, b);
            *lo = fmin(*lo, fv), *hi = fmax(*hi, fv);
            continue;
        }
        for (int it = 0; it < 200 && b - a > 0.0; it++) {
            double m = 0.5 * (a + b);
            if (m <= a || m >= b) break;
            double fm = cubic_at(c, m);
            if ((fm < 0.0) == (fa < 0.0)) a = m, fa = fm;
            else b = m;
        }
        double fv = fmax(quartic_at(p, q, w, a), quartic_at(p, q, w, b));
        double fw = fmin(quartic_at(p, q, w, a), quartic_at(p, q, w, b));
        *lo = fmin(*lo, fw), *hi = fmax(*hi, fv);
    }
}

/* A certified lower bound of the clearance over [t0, t1] on the parabola (a library container): the
   clearance is 1-Lipschitz, so between two points it is at least the smaller end value less half the path
   between them (at most speed * (t1 - t0) / 2); halves are looked at until that bound is >= 0 or 40 deep. */
static double library_least(const container *c, const double x[3], const double v[3], const double a[3], double t0,
                            double t1, double s0, double s1, double top_speed, int depth)
{
    double bound = fmin(s0, s1) - 0.5 * top_speed * (t1 - t0);
    if (bound >= 0.0 || depth >= 40) return bound;
    double tm = 0.5 * (t0 + t1), y[3], g[3];
    for (int k = 0; k < 3; k++) y[k] = x[k] + (v[k] + 0.5 * a[k] * tm) * tm;
    double sm = clearance_at(c, y, g);
    return fmin(library_least(c, x, v, a, t0, tm, s0, sm, top_speed, depth + 1),
                library_least(c, x, v, a, tm, t1, sm, s1, top_speed, depth + 1));
}

/* The true least clearance over a window of length T from (x, v) under a (for a library container, a
   certified lower bound of it). */
static double window_min_clearance(const container *c, const double x[3], const double v[3], const double a[3],
                                   double T)
{
    if (c->kind == SHAPE_LIBRARY) {
        double g[3], y[3], top = len3(v) + len3(a) * T;
        for (int k = 0; k < 3; k++) y[k] = x[k] + (v[k] + 0.5 * a[k] * T) * T;
        return library_least(c, x, v, a, 0.0, T, clearance_at(c, x, g), clearance_at(c, y, g), top, 0);
    }
    if (c->kind == SHAPE_HALF) { /* y(t) a parabola */
        double y = fmin(x[1], x[1] + v[1] * T + 0.5 * a[1] * T * T);
        if (a[1] != 0.0) {
            double tv = -v[1] / a[1];
            if (tv > 0.0 && tv < T) y = fmin(y, x[1] + v[1] * tv + 0.5 * a[1] * tv * tv);
        }
        return y - c->radius;
    }
    if (c->kind == SHAPE_BALL) {
        const double w[3] = {0.5 * a[0], 0.5 * a[1], 0.5 * a[2]};
        double lo, hi;
        quartic_extremes(x, v, w, T, &lo, &hi);
        return c->size - c->radius - sqrt(hi);
    }
    double least = INFINITY;
    for (int k = 0; k < c->dim; k++) {
        double far = fmax(fabs(x[k]), fabs(x[k] + v[k] * T + 0.5 * a[k] * T * T));
        if (a[k] != 0.0) {
            double tv = -v[k] / a[k];
            if (tv > 0.0 && tv < T) far = fmax(far, fabs(x[k] + v[k] * tv + 0.5 * a[k] * tv * tv));
        }
        least = fmin(least, c->size - c->radius - far);
    }
    return least;
}

/* The exact flight over one window (the parabola, as the engine flies it). */
static void fly(double x[3], double v[3], const double a[3], double T)
{
    for (int k = 0; k < 3; k++) {
        x[k] += v[k] * T + 0.5 * a[k] * T * T;
        v[k] += a[k] * T;
    }
}

/* ---- players --------------------------------------------------------------- */

typedef enum { PLAYER_WALL, PLAYER_RANDOM, PLAYER_SEARCH, PLAYER_CORNER, PLAYER_SPIRAL, PLAYER_COUNT } player_kind;
static const char *player_name[PLAYER_COUNT] = {"toward-wall", "random", "search", "corner", "spiral"};

typedef struct player {
    player_kind kind;
    carom_rng rng;
    double held[3];
    int hold_left;
} player;

static void random_direction(carom_rng *rng, int dim, double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    double l;
    do {
        for (int k = 0; k < dim; k++) out[k] = carom_rng_normal(rng);
        l = len3(out);
    } while (l == 0.0);
    for (int k = 0; k < dim; k++) out[k] /= l;
}

/* The next window's h = s - B(v) if the filter turns input into a. */
static double next_slack(const container *c, const carom_filter_def *def, const double x[3], const double v[3],
                         const double input[3])
{
    double g[3], y[3], w[3], a[3];
    carom_filter_result r;
    double s = filter_clearance(c, x, g);
    carom_filter_apply(def, s, vec(g), vec(v), vec(input), &r);
    unvec(a, r.acceleration);
    memcpy(y, x, sizeof y), memcpy(w, v, sizeof w);
    fly(y, w, a, def->window);
    return clearance_at(c, y, g) - filter_braking_room(def, len3(w));
}

static void player_input(player *pl, const container *c, const carom_filter_def *def, const double x[3],
                         const double v[3], double out[3])
{
    double amax = def->max_acceleration, g[3];
    clearance_at(c, x, g);
    out[0] = out[1] = out[2] = 0.0;
    switch (pl->kind) {
    case PLAYER_WALL: /* straight at the nearest wall, full strength */
        for (int k = 0; k < c->dim; k++) out[k] = -amax * g[k];
        break;
    case PLAYER_RANDOM: /* a random input held for 1 to 20 windows, sometimes longer than a_max */
        if (pl->hold_left-- <= 0) {
            random_direction(&pl->rng, c->dim, pl->held);
            double m = amax * 1.5 * carom_rng_uniform(&pl->rng);
            for (int k = 0; k < c->dim; k++) pl->held[k] *= m;
            pl->hold_left = (int)(carom_rng_uniform(&pl->rng) * 20);
        }
        memcpy(out, pl->held, sizeof pl->held);
        break;
    case PLAYER_SEARCH: { /* of 24 directions (and the wall's), the one leaving least slack after the filter */
        double best = INFINITY, candidate[3];
        for (int i = 0; i <= 24; i++) {
            if (i == 24) {
                for (int k = 0; k < 3; k++) candidate[k] = -amax * g[k];
            } else {
                random_direction(&pl->rng, c->dim, candidate);
                for (int k = 0; k < 3; k++) candidate[k] *= amax;
            }
            double slack = next_slack(c, def, x, v, candidate);
            if (slack < best) best = slack, memcpy(out, candidate, sizeof candidate);
        }
        break;
    }
    case PLAYER_CORNER: { /* toward the nearest corner (box) or the point of the wall ahead (ball) */
        double target[3] = {0, 0, 0}, d[3];
        for (int k = 0; k < c->dim; k++) target[k] = (x[k] >= 0.0 ? 1.0 : -1.0) * c->size;
        for (int k = 0; k < 3; k++) d[k] = target[k] - x[k];
        double l = len3(d);
        for (int k = 0; k < 3; k++) out[k] = l > 0.0 ? amax * d[k] / l : 0.0;
        break;
    }
    case PLAYER_SPIRAL: { /* around the centre and outward: tangential plus a little outward */
        double r = len3(x), t[3] = {-x[1], x[0], 0.0}, d[3];
        for (int k = 0; k < 3; k++) d[k] = t[k] + 0.4 * x[k];
        if (c->dim == 3) d[2] += 0.3 * r;
        double l = len3(d);
        if (l == 0.0) d[0] = 1.0, l = 1.0;
        for (int k = 0; k < 3; k++) out[k] = amax * d[k] / l;
        break;
    }
    default: break;
    }
}

/* ---- one adversarial run ------------------------------------------------- */

typedef struct run_stats {
    double least_clearance;  /* over every window, exact */
    double most_acceleration_over; /* max |a| / a_max */
    int64_t windows, acted, nonfinite, passthrough_broken;
    double deviation;        /* sum |a - a_p| / a_max */
} run_stats;

/* Runs windows windows of player against def in c from rest at the centre,
 * checking every output. */
static run_stats adversarial_run(const container *c, const carom_filter_def *def, player_kind kind, uint64_t seed,
                                 int64_t windows)
{
    run_stats st = {INFINITY, 0.0, 0, 0, 0, 0, 0.0};
    player pl = {kind, carom_rng_seed(seed), {0, 0, 0}, 0};
    double x[3] = {0, 0, 0}, v[3] = {0, 0, 0}, g[3], input[3], a[3];
    if (c->kind == SHAPE_HALF) x[1] = 1.0;
    if (c->kind == SHAPE_LIBRARY) memcpy(x, c->start, sizeof x);
    for (int64_t i = 0; i < windows; i++) {
        player_input(&pl, c, def, x, v, input);
        double s = filter_clearance(c, x, g);
        carom_filter_result r;
        if (carom_filter_apply(def, s, vec(g), vec(v), vec(input), &r) != CAROM_OK) {
            st.nonfinite++;
            break;
        }
        unvec(a, r.acceleration);
        if (!isfinite(a[0]) || !isfinite(a[1]) || !isfinite(a[2]) || !(r.criticality >= 0.0) ||
            !(r.criticality <= 1.0))
            st.nonfinite++;
        st.most_acceleration_over = fmax(st.most_acceleration_over, len3(a) / def->max_acceleration);
        if (r.speed_ratio < def->safety && def->law != CAROM_FILTER_DIRECTIONAL && len3(input) <= def->max_acceleration &&
            !same_bits(r.acceleration, vec(input))) {
            if (!st.passthrough_broken)
                fprintf(stderr, "law %d s %.17g v (%.17g %.17g %.17g) in (%.17g %.17g %.17g) -> (%.17g %.17g %.17g) ratio %g\n",
                        (int)def->law, s, v[0], v[1], v[2], input[0], input[1], input[2], a[0], a[1], a[2], r.speed_ratio);
            st.passthrough_broken++;
        }
        st.acted += r.acted;
        double d[3];
        for (int k = 0; k < 3; k++) d[k] = a[k] - input[k];
        st.deviation += len3(d) / def->max_acceleration;
        st.least_clearance = fmin(st.least_clearance, window_min_clearance(c, x, v, a, def->window));
        fly(x, v, a, def->window);
        st.windows++;
    }
    return st;
}

/* ---- the laws against hand-worked values ----------------------------------- */

static carom_filter_def law_def(carom_filter_law law, double amax, double sigma, double window)
{
    carom_filter_def d = carom_default_filter_def();
    d.law = law, d.max_acceleration = amax, d.safety = sigma, d.window = window;
    return d;
}

static void test_defaults(void)
{
    carom_filter_def d = carom_default_filter_def();
    CHECK(d.law == CAROM_FILTER_LINEAR);
    CHECK(d.max_acceleration == 1.0);
    CHECK(d.safety == 0.5);
    CHECK(d.window == 0.0);
}

static void test_hand_values(void)
{
    carom_filter_result r;
    /* a_max 1, sigma 0.5, s = 2: v_max = 2; v = 1.5 along x toward a wall at +x (gradient -x). */
    carom_vec g = {-1, 0, 0}, v = {1.5, 0, 0}, up = {0, 1, 0};
    carom_filter_def d = law_def(CAROM_FILTER_LINEAR, 1.0, 0.5, 0.0);
    CHECK(carom_filter_apply(&d, 2.0, g, v, up, &r) == CAROM_OK);
    /* v/v_max = 0.75, lambda = (0.75 - 0.5)/0.5 = 0.5: a = 0.5 (0,1) - 0.5 (1,0) */
    CHECK_NEAR(r.speed_ratio, 0.75, 1e-15);
    CHECK_NEAR(r.criticality, 0.5, 1e-15);
    CHECK_NEAR(r.acceleration.x, -0.5, 1e-15);
    CHECK_NEAR(r.acceleration.y, 0.5, 1e-15);
    CHECK(r.acted == 1);
    /* quadratic: lambda = (0.5625 - 0.25) / 0.75 = 5/12 */
    d.law = CAROM_FILTER_QUADRATIC;
    CHECK(carom_filter_apply(&d, 2.0, g, v, up, &r) == CAROM_OK);
    CHECK_NEAR(r.criticality, 5.0 / 12.0, 1e-15);
    CHECK_NEAR(r.acceleration.x, -5.0 / 12.0, 1e-15);
    CHECK_NEAR(r.acceleration.y, 7.0 / 12.0, 1e-15);
    /* naive: nothing below v_max, full braking at or above it */
    d.law = CAROM_FILTER_NAIVE;
    CHECK(carom_filter_apply(&d, 2.0, g, v, up, &r) == CAROM_OK);
    CHECK(r.acted == 0 && same_bits(r.acceleration, up));
    CHECK(carom_filter_apply(&d, 2.0, g, (carom_vec){2.0, 0, 0}, up, &r) == CAROM_OK);
    CHECK(r.criticality == 1.0 && r.acceleration.x == -1.0 && r.acceleration.y == 0.0);
    /* exactly at sigma v_max (v = 1, v_max = 2): lambda = 0, the input bit for bit, signed zeros too */
    d.law = CAROM_FILTER_LINEAR;
    carom_vec signed_zero = {-0.0, 0.25, -0.0};
    CHECK(carom_filter_apply(&d, 2.0, g, (carom_vec){-1, 0, 0}, signed_zero, &r) == CAROM_OK);
    CHECK(r.speed_ratio == 0.5 && same_bits(r.acceleration, signed_zero) && !r.acted);
    /* a second direction and a_max: a_max 2, s = 4 -> v_max = 4; v = (0, -3.6) (ratio 0.9), sigma 0.6 ->
       linear lambda = 0.75; input (2, 0): a = 0.25 (2, 0) - 0.75 * 2 (0, -1) = (0.5, 1.5) */
    d = law_def(CAROM_FILTER_LINEAR, 2.0, 0.6, 0.0);
    CHECK(carom_filter_apply(&d, 4.0, (carom_vec){0, 1, 0}, (carom_vec){0, -3.6, 0}, (carom_vec){2, 0, 0}, &r) ==
          CAROM_OK);
    CHECK_NEAR(r.criticality, 0.75, 1e-14);
    CHECK_NEAR(r.acceleration.x, 0.5, 1e-14);
    CHECK_NEAR(r.acceleration.y, 1.5, 1e-14);
    /* with a window dt = 0.1, a_max 1: margin 2 v dt + 9/8 dt^2 = 0.21125 at v = 1, so from s = 2
       v_max = sqrt(2 * 1.78875) and the ratio is 1 / sqrt(3.5775) */
    d = law_def(CAROM_FILTER_LINEAR, 1.0, 0.5, 0.1);
    CHECK(carom_filter_apply(&d, 2.0, g, (carom_vec){1, 0, 0}, up, &r) == CAROM_OK);
    CHECK_NEAR(r.speed_ratio, 1.0 / sqrt(3.5775), 1e-15);
    CHECK_NEAR(filter_reach(&d, 1.0), 0.5 + 0.21125, 1e-15);
    /* B(v): soft stop below a dt, v^2/2a + a dt^2/8 above */
    CHECK_NEAR(filter_braking_room(&d, 0.05), 0.0025, 1e-16);
    CHECK_NEAR(filter_braking_room(&d, 1.0), 0.5 + 0.00125, 1e-15);
    /* full braking held for a window never reverses: at v = 0.05 < a dt it is v / dt = 0.5 */
    d.law = CAROM_FILTER_NAIVE;
    CHECK(carom_filter_apply(&d, 0.0025, g, (carom_vec){0.05, 0, 0}, (carom_vec){1, 0, 0}, &r) == CAROM_OK);
    CHECK_NEAR(r.acceleration.x, -0.5, 1e-15);
    CHECK(r.criticality == 1.0);
}

static void test_backup_values(void)
{
    /* Worked by hand from the file comment of filter.c: a_max 1, sigma 0.5, s = 2, dt = 0, v = 1.5 toward a
       wall at +x. h = 2 - 1.125 = 0.875, kappa h = 2 * 0.25 / (1.5 * 0.75) * 0.875 = 7/18.
       Input (1, 0): rate_input = -1.5 - 1.5 = -3, rate_brake = -1.5 + 1.5 = 0,
       lambda = (3 - 7/18) / 3 = 47/54, a = (1 - 2 lambda, 0) = (-40/54, 0). */
    carom_filter_def d = law_def(CAROM_FILTER_BACKUP, 1.0, 0.5, 0.0);
    carom_filter_result r;
    CHECK(carom_filter_apply(&d, 2.0, (carom_vec){-1, 0, 0}, (carom_vec){1.5, 0, 0}, (carom_vec){1, 0, 0}, &r) ==
          CAROM_OK);
    CHECK_NEAR(r.criticality, 47.0 / 54.0, 1e-14);
    CHECK_NEAR(r.acceleration.x, -40.0 / 54.0, 1e-14);
    /* Sliding along the wall (v = (0, 1.5)), pushing on along v: rate_input = -1.5, rate_brake = 1.5,
       lambda = (1.5 - 7/18) / 3 = 10/27; pushing toward the wall instead leaves |v| alone: no action. */
    CHECK(carom_filter_apply(&d, 2.0, (carom_vec){-1, 0, 0}, (carom_vec){0, 1.5, 0}, (carom_vec){0, 1, 0}, &r) ==
          CAROM_OK);
    CHECK_NEAR(r.criticality, 10.0 / 27.0, 1e-14);
    CHECK_NEAR(r.acceleration.y, 1.0 - 2.0 * 10.0 / 27.0, 1e-14);
    CHECK(carom_filter_apply(&d, 2.0, (carom_vec){-1, 0, 0}, (carom_vec){0, 1.5, 0}, (carom_vec){1, 0, 0}, &r) ==
          CAROM_OK);
    CHECK(r.acted == 0 && r.criticality == 0.0 && r.acceleration.x == 1.0);
}

static void test_directional_values(void)
{
    /* Wall at y = 0 (gradient +y), s = 2, a_max 1, sigma 0.5. Sliding along it at any speed: no action. */
    carom_filter_def d = law_def(CAROM_FILTER_DIRECTIONAL, 1.0, 0.5, 0.0);
    carom_filter_result r;
    carom_vec in = {0.6, -0.8, 0};
    CHECK(carom_filter_apply(&d, 2.0, (carom_vec){0, 1, 0}, (carom_vec){50, 0, 0}, in, &r) == CAROM_OK);
    CHECK(r.acted == 0 && same_bits(r.acceleration, in));
    /* Approaching at v_n = 1.5 (ratio 0.75, lambda 0.5) while sliding at 10: the normal component becomes
       0.5 (-0.8) + 0.5 (1) = 0.1, the tangential 0.6 stays. */
    CHECK(carom_filter_apply(&d, 2.0, (carom_vec){0, 1, 0}, (carom_vec){10, -1.5, 0}, in, &r) == CAROM_OK);
    CHECK_NEAR(r.criticality, 0.5, 1e-15);
    CHECK_NEAR(r.acceleration.y, 0.1, 1e-15);
    CHECK_NEAR(r.acceleration.x, 0.6, 1e-15);
    /* Full braking (v_n = 2 >= v_max): normal 1, no room left for the tangential part. */
    CHECK(carom_filter_apply(&d, 2.0, (carom_vec){0, 1, 0}, (carom_vec){10, -2, 0}, in, &r) == CAROM_OK);
    CHECK_NEAR(r.acceleration.y, 1.0, 1e-15);
    CHECK_NEAR(r.acceleration.x, 0.0, 1e-15);
}

/* ---- bit for bit, bounds, edge cases ---------------------------------------- */

static const carom_filter_law every_law[] = {CAROM_FILTER_OFF, CAROM_FILTER_NAIVE, CAROM_FILTER_LINEAR,
                                            CAROM_FILTER_QUADRATIC, CAROM_FILTER_DIRECTIONAL, CAROM_FILTER_BACKUP};
enum { LAW_COUNT = sizeof every_law / sizeof every_law[0] };

static void test_passthrough_bits(void)
{
    carom_rng rng = carom_rng_seed(11);
    int64_t checked = 0, broken = 0;
    for (int i = 0; i < 200000; i++) {
        carom_filter_law law = every_law[i % LAW_COUNT];
        carom_filter_def d = law_def(law, pow(10.0, 4 * carom_rng_uniform(&rng) - 2), 0.95 * carom_rng_uniform(&rng),
                                     carom_rng_uniform(&rng) < 0.5 ? 0.0 : 0.1 * carom_rng_uniform(&rng));
        double v[3], in[3], g[3];
        random_direction(&rng, 3, v);
        random_direction(&rng, 3, g);
        random_direction(&rng, 3, in);
        double speed = 3.0 * carom_rng_uniform(&rng), m = d.max_acceleration * carom_rng_uniform(&rng);
        for (int k = 0; k < 3; k++) v[k] *= speed, in[k] *= m;
        if (i % 7 == 0) in[i % 3] = -0.0; /* signed zeros come back as they went in */
        double s = 10.0 * carom_rng_uniform(&rng);
        carom_filter_result r;
        CHECK(carom_filter_apply(&d, s, vec(g), vec(v), vec(in), &r) == CAROM_OK);
        double below = law == CAROM_FILTER_NAIVE ? 1.0 : d.safety;
        if (r.speed_ratio < below && speed > 0.0) {
            checked++;
            if (!same_bits(r.acceleration, vec(in)) || r.acted || r.criticality != 0.0) {
                broken++;
                fprintf(stderr, "law %d s %.17g v (%.17g %.17g %.17g) in (%.17g %.17g %.17g) -> (%.17g %.17g %.17g) ratio %g sigma %g dt %g\n",
                        (int)law, s, v[0], v[1], v[2], in[0], in[1], in[2], r.acceleration.x, r.acceleration.y, r.acceleration.z, r.speed_ratio, d.safety, d.window);
            }
        }
    }
    CHECK_MSG(broken == 0, "%lld of %lld inputs below sigma v_max were changed", (long long)broken, (long long)checked);
    CHECK(checked > 10000);
}

static void test_bounds(void)
{
    /* Random states over many scales, inputs up to 10^6 a_max: never NaN, |a| <= a_max exactly, lambda in [0, 1]. */
    carom_rng rng = carom_rng_seed(12);
    int64_t over = 0, bad = 0;
    for (int i = 0; i < 300000; i++) {
        carom_filter_law law = every_law[i % LAW_COUNT];
        double amax = pow(10.0, 20 * carom_rng_uniform(&rng) - 10);
        carom_filter_def d = law_def(law, amax, 0.99 * carom_rng_uniform(&rng),
                                     carom_rng_uniform(&rng) < 0.3 ? 0.0 : pow(10.0, 6 * carom_rng_uniform(&rng) - 5));
        double v[3], in[3], g[3];
        random_direction(&rng, 3, v);
        random_direction(&rng, 3, in);
        random_direction(&rng, 3, g);
        double sv = pow(10.0, 30 * carom_rng_uniform(&rng) - 15), si = amax * pow(10.0, 8 * carom_rng_uniform(&rng) - 2);
        double gs = i % 11 == 0 ? 0.0 : pow(10.0, 2 * carom_rng_uniform(&rng) - 1);
        for (int k = 0; k < 3; k++) v[k] *= sv, in[k] *= si, g[k] *= gs;
        if (i % 13 == 0) v[0] = v[1] = v[2] = 0.0;
        if (i % 17 == 0) in[0] = in[1] = in[2] = 0.0;
        double s = pow(10.0, 30 * carom_rng_uniform(&rng) - 15) * (carom_rng_uniform(&rng) < 0.1 ? -1.0 : 1.0);
        if (i % 19 == 0) s = 0.0;
        carom_filter_result r;
        CHECK(carom_filter_apply(&d, s, vec(g), vec(v), vec(in), &r) == CAROM_OK);
        double a[3];
        unvec(a, r.acceleration);
        if (!isfinite(a[0]) || !isfinite(a[1]) || !isfinite(a[2]) || !(r.criticality >= 0.0 && r.criticality <= 1.0) ||
            isnan(r.speed_ratio))
            bad++;
        if (filter_length(a) > amax) over++;
    }
    CHECK_MSG(bad == 0, "%lld results with NaN or lambda outside [0, 1]", (long long)bad);
    CHECK_MSG(over == 0, "%lld results longer than a_max", (long long)over);
}

static void test_edge_cases(void)
{
    carom_filter_result r, untouched;
    carom_filter_def d = law_def(CAROM_FILTER_LINEAR, 1.0, 0.5, 0.0);
    carom_vec g = {-1, 0, 0}, in = {0.3, 0.4, 0};
    /* zero speed, continuous time: no braking direction, the input */
    for (int l = 0; l < LAW_COUNT; l++) {
        d.law = every_law[l];
        CHECK(carom_filter_apply(&d, 0.5, g, (carom_vec){0, 0, 0}, in, &r) == CAROM_OK);
        CHECK(same_bits(r.acceleration, in) && !r.acted && r.criticality == 0.0 && r.speed_ratio == 0.0);
        /* ... even touching the wall: nothing to brake */
        CHECK(carom_filter_apply(&d, 0.0, g, (carom_vec){0, 0, 0}, in, &r) == CAROM_OK);
        CHECK(same_bits(r.acceleration, in));
    }
    d.law = CAROM_FILTER_LINEAR;
    /* zero input far from the wall: zero out */
    CHECK(carom_filter_apply(&d, 100.0, g, (carom_vec){1, 0, 0}, (carom_vec){0, 0, 0}, &r) == CAROM_OK);
    CHECK(r.acceleration.x == 0.0 && r.acceleration.y == 0.0 && !r.acted);
    /* zero input near the wall: braking */
    CHECK(carom_filter_apply(&d, 0.1, g, (carom_vec){1, 0, 0}, (carom_vec){0, 0, 0}, &r) == CAROM_OK);
    CHECK(r.acceleration.x == -1.0 && r.criticality == 1.0 && r.acted);
    /* clearance <= 0 while moving: v_max = 0, ratio infinite, full braking, for every law that acts */
    for (int l = 1; l < LAW_COUNT; l++) {
        d.law = every_law[l];
        CHECK(carom_filter_apply(&d, -0.5, g, (carom_vec){0.001, 0, 0}, in, &r) == CAROM_OK);
        CHECK(r.speed_ratio == INFINITY);
        CHECK_NEAR(r.acceleration.x, -1.0, 1e-15);
        CHECK(r.criticality == 1.0);
    }
    d.law = CAROM_FILTER_LINEAR;
    /* an input above a_max is clamped (direction kept) and that alone is not acting */
    CHECK(carom_filter_apply(&d, 100.0, g, (carom_vec){0.1, 0, 0}, (carom_vec){30, 40, 0}, &r) == CAROM_OK);
    CHECK_NEAR(r.acceleration.x, 0.6, 1e-15);
    CHECK_NEAR(r.acceleration.y, 0.8, 1e-15);
    CHECK(!r.acted && filter_length((double[3]){r.acceleration.x, r.acceleration.y, 0}) <= 1.0);
    /* the law OFF: the clamped input even at the wall */
    d.law = CAROM_FILTER_OFF;
    CHECK(carom_filter_apply(&d, 0.0, g, (carom_vec){5, 0, 0}, in, &r) == CAROM_OK);
    CHECK(same_bits(r.acceleration, in) && !r.acted);
    d.law = CAROM_FILTER_LINEAR;
    /* a window, at rest with no room for a full window of input: the input clamped to s / dt^2 */
    d.window = 0.1;
    CHECK(carom_filter_apply(&d, 0.005, g, (carom_vec){0, 0, 0}, (carom_vec){1, 0, 0}, &r) == CAROM_OK);
    CHECK_NEAR(r.acceleration.x, 0.5, 1e-15);
    CHECK(r.acted && r.criticality > 0.4 && r.criticality < 0.6);
    CHECK(carom_filter_apply(&d, 0.0, g, (carom_vec){0, 0, 0}, (carom_vec){1, 0, 0}, &r) == CAROM_OK);
    CHECK(r.acceleration.x == 0.0 && r.criticality == 1.0);
    d.window = 0.0;
    /* NaN and infinity in any argument: refused, the result untouched */
    const double nasty[2] = {NAN, INFINITY};
    for (int k = 0; k < 2; k++) {
        double q = nasty[k];
        memset(&untouched, 0x5a, sizeof untouched);
        r = untouched;
        CHECK(carom_filter_apply(&d, q, g, (carom_vec){1, 0, 0}, in, &r) == CAROM_INVALID_ARGUMENT);
        CHECK(carom_filter_apply(&d, 1.0, (carom_vec){q, 0, 0}, (carom_vec){1, 0, 0}, in, &r) == CAROM_INVALID_ARGUMENT);
        CHECK(carom_filter_apply(&d, 1.0, g, (carom_vec){0, q, 0}, in, &r) == CAROM_INVALID_ARGUMENT);
        CHECK(carom_filter_apply(&d, 1.0, g, (carom_vec){1, 0, 0}, (carom_vec){0, 0, q}, &r) == CAROM_INVALID_ARGUMENT);
        CHECK(memcmp(&r, &untouched, sizeof r) == 0);
    }
    /* bad definitions: refused (the pure function has no message buffer; filter_def_problem names the field) */
    carom_filter_def bad[8];
    for (int k = 0; k < 8; k++) bad[k] = carom_default_filter_def();
    bad[0].max_acceleration = 0.0;
    bad[1].max_acceleration = -1.0;
    bad[2].max_acceleration = NAN;
    bad[3].safety = 1.0;
    bad[4].safety = -0.1;
    bad[5].window = -1.0;
    bad[6].window = NAN;
    bad[7].law = (carom_filter_law)99;
    const char *field[8] = {"max_acceleration", "max_acceleration", "max_acceleration", "safety", "safety",
                            "window", "window", "law"};
    for (int k = 0; k < 8; k++) {
        r = untouched;
        CHECK(carom_filter_apply(&bad[k], 1.0, g, (carom_vec){1, 0, 0}, in, &r) == CAROM_INVALID_ARGUMENT);
        CHECK(memcmp(&r, &untouched, sizeof r) == 0);
        const char *why = filter_def_problem(&bad[k]);
        CHECK_MSG(why && strncmp(why, field[k], strlen(field[k])) == 0, "def %d: %s", k, why ? why : "(accepted)");
    }
    CHECK(carom_filter_apply(NULL, 1.0, g, (carom_vec){1, 0, 0}, in, &r) == CAROM_INVALID_ARGUMENT);
    CHECK(carom_filter_apply(&d, 1.0, g, (carom_vec){1, 0, 0}, in, NULL) == CAROM_INVALID_ARGUMENT);
    CHECK(filter_def_problem(&d) == NULL);
}

/* ---- the guarantee under adversarial players ---------------------------------- */

static int64_t windows_per_container(void)
{
    const char *e = getenv("CAROM_FILTER_WINDOWS");
    return e ? atoll(e) : 1000000;
}

static const carom_filter_law safe_law[] = {CAROM_FILTER_NAIVE, CAROM_FILTER_LINEAR, CAROM_FILTER_QUADRATIC,
                                           CAROM_FILTER_BACKUP};

/* Every guaranteed law under every player, 10^6 windows in all, varied a_max, sigma, dt. */
static void adversaries_in(const container *c, uint64_t seed)
{
    int64_t total = windows_per_container(), runs = 4 * PLAYER_COUNT, each = total / runs;
    carom_rng rng = carom_rng_seed(seed);
    double least = INFINITY, most = 0.0;
    int64_t windows = 0, acted = 0;
    for (int l = 0; l < 4; l++)
        for (int p = 0; p < PLAYER_COUNT; p++) {
            carom_filter_def d = law_def(safe_law[l], 0.5 + 2.0 * carom_rng_uniform(&rng), 0.9 * carom_rng_uniform(&rng),
                                         0.005 + 0.1 * carom_rng_uniform(&rng));
            run_stats st = adversarial_run(c, &d, (player_kind)p, carom_rng_next(&rng), each);
            CHECK_MSG(st.least_clearance >= 0.0, "%s player, law %d: clearance %.3g", player_name[p],
                      (int)safe_law[l], st.least_clearance);
            CHECK(st.most_acceleration_over <= 1.0);
            CHECK(st.nonfinite == 0 && st.passthrough_broken == 0);
            least = fmin(least, st.least_clearance), most = fmax(most, st.most_acceleration_over);
            windows += st.windows, acted += st.acted;
        }
    printf("      %lld windows: least clearance %.3g (body radius %.3g), max |a|/a_max %.17g, acted in %.1f%%\n",
           (long long)windows, least, c->radius, most, 100.0 * (double)acted / (double)windows);
}

static void test_adversaries_circle(void)
{
    container c = {SHAPE_BALL, 2, 10.0, 0.5, NULL, {0, 0, 0}};
    adversaries_in(&c, 21);
}

static void test_adversaries_box(void)
{
    container c = {SHAPE_BOX, 2, 5.0, 0.5, NULL, {0, 0, 0}};
    adversaries_in(&c, 22);
}

static void test_adversaries_sphere(void)
{
    container c = {SHAPE_BALL, 3, 10.0, 0.5, NULL, {0, 0, 0}};
    adversaries_in(&c, 23);
}

static carom_container *make_container(carom_container_def d)
{
    carom_container *c = NULL;
    char why[256] = "";
    CHECK_MSG(carom_container_create(&d, &c, why, sizeof why) == CAROM_OK, "%s", why);
    return c;
}

static carom_container *make_ball(int dim, carom_vec centre, double radius)
{
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_BALL, d.dim = dim, d.centre = centre, d.radius = radius;
    return make_container(d);
}

static carom_container *make_pair(carom_shape shape, carom_container *first, carom_container *second)
{
    carom_container_def d = carom_default_container_def();
    d.shape = shape, d.dim = carom_container_dim(first), d.first = first, d.second = second;
    carom_container *c = make_container(d);
    carom_container_destroy(first);
    carom_container_destroy(second);
    return c;
}

/* Every shape of the library (and composites) in 2D and 3D, through carom_container_distance. */
static void test_adversaries_library(void)
{
    enum { SHAPES = 11 };
    carom_container *shape[SHAPES];
    const char *name[SHAPES] = {"box", "rounded box", "hexagon", "capsule", "union", "intersection", "annulus",
                                "3D box", "3D rounded box", "3D capsule", "3D shell"};
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_BOX, d.dim = 2, d.size = (carom_vec){12, 8, 0};
    shape[0] = make_container(d);
    d.shape = CAROM_SHAPE_ROUNDED_BOX, d.radius = 2.5;
    shape[1] = make_container(d);
    const carom_vec hexagon[6] = {{6, 0, 0}, {3, 5.2, 0}, {-3, 5.2, 0}, {-6, 0, 0}, {-3, -5.2, 0}, {3, -5.2, 0}};
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_POLYGON, d.dim = 2, d.vertices = hexagon, d.vertex_count = 6;
    shape[2] = make_container(d);
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_CAPSULE, d.dim = 2, d.a = (carom_vec){-4, -1, 0}, d.b = (carom_vec){4, 1, 0}, d.radius = 3;
    shape[3] = make_container(d);
    shape[4] = make_pair(CAROM_SHAPE_UNION, make_ball(2, (carom_vec){-3, 0, 0}, 4), make_ball(2, (carom_vec){3, 0, 0}, 4));
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_BOX, d.dim = 2, d.size = (carom_vec){10, 10, 0};
    shape[5] = make_pair(CAROM_SHAPE_INTERSECTION, make_ball(2, (carom_vec){0, 0, 0}, 6.5), make_container(d));
    shape[6] = make_pair(CAROM_SHAPE_DIFFERENCE, make_ball(2, (carom_vec){0, 0, 0}, 7), make_ball(2, (carom_vec){0.5, 0, 0}, 2.5));
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_BOX, d.dim = 3, d.size = (carom_vec){10, 8, 6};
    shape[7] = make_container(d);
    d.shape = CAROM_SHAPE_ROUNDED_BOX, d.radius = 2;
    shape[8] = make_container(d);
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_CAPSULE, d.dim = 3, d.a = (carom_vec){-3, 0, -1}, d.b = (carom_vec){3, 1, 1}, d.radius = 3;
    shape[9] = make_container(d);
    shape[10] = make_pair(CAROM_SHAPE_DIFFERENCE, make_ball(3, (carom_vec){0, 0, 0}, 7), make_ball(3, (carom_vec){0, 0, 0}, 3));
    int64_t saved = windows_per_container();
    for (int k = 0; k < SHAPES; k++) {
        if (!shape[k]) continue;
        container c = {SHAPE_LIBRARY, carom_container_dim(shape[k]), 0.0, 0.5, shape[k], {0, 0, 0}};
        carom_vec lo, hi;
        carom_container_bounds(shape[k], &lo, &hi);
        c.size = fmax(fmax(fabs(lo.x), fabs(hi.x)), fmax(fmax(fabs(lo.y), fabs(hi.y)), fmax(fabs(lo.z), fabs(hi.z))));
        /* start at the deepest of some random points */
        carom_rng rng = carom_rng_seed(60 + (uint64_t)k);
        double best = -INFINITY, g[3];
        for (int i = 0; i < 400; i++) {
            double p[3] = {lo.x + (hi.x - lo.x) * carom_rng_uniform(&rng), lo.y + (hi.y - lo.y) * carom_rng_uniform(&rng),
                           c.dim == 3 ? lo.z + (hi.z - lo.z) * carom_rng_uniform(&rng) : 0.0};
            double s = clearance_at(&c, p, g);
            if (s > best) best = s, memcpy(c.start, p, sizeof p);
        }
        printf("      %s:", name[k]);
        adversaries_in(&c, 70 + (uint64_t)k);
        carom_container_destroy(shape[k]);
    }
    (void)saved;
}

/* ---- the margin is needed, and exactly so ----------------------------------- */

static void test_margin_needed(void)
{
    /* The continuous-time filter (window 0) with its outputs held for dt, as a game would hold them: the
       player straight at the wall drives the body through it; with the window's margin it never does. */
    container box = {SHAPE_BOX, 2, 5.0, 0.5, NULL, {0, 0, 0}};
    const carom_filter_law laws[3] = {CAROM_FILTER_NAIVE, CAROM_FILTER_LINEAR, CAROM_FILTER_QUADRATIC};
    for (int l = 0; l < 3; l++) {
        carom_filter_def held = law_def(laws[l], 1.0, 0.5, 0.0);
        /* emulate holding: run the continuous filter at each window start, fly dt */
        player pl = {PLAYER_SEARCH, carom_rng_seed(5), {0, 0, 0}, 0};
        double x[3] = {0, 0, 0}, v[3] = {0, 0, 0}, g[3], input[3], a[3], least = INFINITY, dt = 0.25;
        carom_filter_def search = held;
        search.window = dt; /* the searching player looks one held window ahead */
        for (int i = 0; i < 20000; i++) {
            if (laws[l] == CAROM_FILTER_NAIVE) player_input(&(player){PLAYER_WALL, pl.rng, {0}, 0}, &box, &search, x, v, input);
            else player_input(&pl, &box, &search, x, v, input);
            carom_filter_result r;
            {
                double s_now = clearance_at(&box, x, g);
                carom_filter_apply(&held, s_now, vec(g), vec(v), vec(input), &r);
            }
            unvec(a, r.acceleration);
            least = fmin(least, window_min_clearance(&box, x, v, a, dt));
            fly(x, v, a, dt);
        }
        printf("      law %d without the margin, held for dt = %g: least clearance %.3g\n", (int)laws[l], dt, least);
        if (laws[l] == CAROM_FILTER_NAIVE) CHECK_MSG(least < 0.0, "without the margin the wall was never reached");
        /* the same players with the margin: never */
        held.window = dt;
        run_stats st = adversarial_run(&box, &held, laws[l] == CAROM_FILTER_NAIVE ? PLAYER_WALL : PLAYER_SEARCH, 5, 20000);
        CHECK_MSG(st.least_clearance >= 0.0, "with the margin: clearance %.3g", st.least_clearance);
    }
}

static void test_margin_tight(void)
{
    /* At v = (k + 1/2) a dt and s = M(v) + eps the naive law lets a full push at a flat wall through; the
       body then needs exactly B(v') = s' + ... : the braking that follows ends eps from the wall. So a
       margin smaller by any delta > eps would let the same play end delta - eps inside the wall. */
    container half = {SHAPE_HALF, 2, 0.0, 0.0, NULL, {0, 0, 0}};
    const double dts[3] = {0.1, 0.01, 1.0 / 60.0};
    for (int i = 0; i < 3; i++) {
        double dt = dts[i], amax = 2.0;
        carom_filter_def d = law_def(CAROM_FILTER_NAIVE, amax, 0.5, dt);
        for (int k = 0; k < 4; k++) {
            double speed = (k + 0.5) * amax * dt, eps = 1e-9;
            double x[3] = {0, filter_reach(&d, speed) + eps, 0}, v[3] = {0, -speed, 0}, g[3], a[3];
            double push[3] = {0, -amax, 0}, least = INFINITY;
            carom_filter_result r;
            {
                double s_now = clearance_at(&half, x, g);
                carom_filter_apply(&d, s_now, vec(g), vec(v), vec(push), &r);
            }
            CHECK(r.acted == 0 && r.speed_ratio < 1.0); /* the push goes through */
            for (int w = 0; w < 10 * (k + 3); w++) {
                {
                    double s_now = clearance_at(&half, x, g);
                    carom_filter_apply(&d, s_now, vec(g), vec(v), vec(push), &r);
                }
                unvec(a, r.acceleration);
                least = fmin(least, window_min_clearance(&half, x, v, a, dt));
                fly(x, v, a, dt);
            }
            CHECK_MSG(least >= 0.0 && least < eps + 1e-12 * (1.0 + x[1]), "dt %g, k %d: least clearance %.3g", dt, k,
                      least);
            /* and one eps less room: the filter brakes at once */
            double y[3] = {0, filter_reach(&d, speed) - eps, 0};
            v[1] = -speed;
            {
                double s_now = clearance_at(&half, y, g);
                carom_filter_apply(&d, s_now, vec(g), vec(v), vec(push), &r);
            }
            if (k == 0) /* slower than a dt: the slow rule shortens the push instead */
                CHECK(r.speed_ratio >= 1.0 && r.acted && r.acceleration.y > -amax);
            else
                CHECK(r.speed_ratio >= 1.0 && r.acceleration.y > 0.0);
        }
    }
}

/* ---- the directional law ------------------------------------------------------ */

static void test_directional(void)
{
    /* One flat wall (the half-plane y > 0): every player, 10^5 windows each, never reaches it. */
    container half = {SHAPE_HALF, 2, 0.0, 0.25, NULL, {0, 0, 0}};
    carom_rng rng = carom_rng_seed(31);
    for (int p = 0; p < PLAYER_COUNT; p++) {
        if (p == PLAYER_CORNER || p == PLAYER_SPIRAL) continue; /* no corner and no centre in a half-plane */
        carom_filter_def d = law_def(CAROM_FILTER_DIRECTIONAL, 1.0 + carom_rng_uniform(&rng), 0.5, 0.02);
        run_stats st = adversarial_run(&half, &d, (player_kind)p, carom_rng_next(&rng), 100000);
        CHECK_MSG(st.least_clearance >= 0.0, "%s: clearance %.3g", player_name[p], st.least_clearance);
        CHECK(st.most_acceleration_over <= 1.0 && st.nonfinite == 0);
    }
    /* Not guaranteed at a corner: sliding fast along the floor of a box into the side wall. The nearest wall
       is the floor until the last moment, so nothing brakes the sliding speed; the linear law stops it. */
    container box = {SHAPE_BOX, 2, 5.0, 0.5, NULL, {0, 0, 0}};
    for (int l = 0; l < 2; l++) {
        carom_filter_def d = law_def(l ? CAROM_FILTER_LINEAR : CAROM_FILTER_DIRECTIONAL, 1.0, 0.5, 0.02);
        double x[3] = {-4.0, -4.4, 0}, v[3] = {0, 0, 0}, g[3], a[3], least = INFINITY;
        for (int w = 0; w < 2000; w++) {
            double in[3] = {1.0, 0, 0};
            carom_filter_result r;
            {
                double s_now = filter_clearance(&box, x, g);
                carom_filter_apply(&d, s_now, vec(g), vec(v), vec(in), &r);
            }
            unvec(a, r.acceleration);
            least = fmin(least, window_min_clearance(&box, x, v, a, d.window));
            fly(x, v, a, d.window);
        }
        if (l == 0) CHECK_MSG(least < 0.0, "the directional law kept a corner run inside (%.3g): README says it does not", least);
        else CHECK(least >= 0.0);
    }
}

/* How much less the directional law intrudes than the linear one: a player racing along the floor of a wide
   box and back (a_max along x, flipping each time it nears a side), and a random player in a circle. */
static void intrusion(const container *c, carom_filter_law law, player_kind kind, double *acted, double *deviation,
                      double *least)
{
    carom_filter_def d = law_def(law, 1.0, 0.5, 0.02);
    player pl = {kind, carom_rng_seed(41), {0, 0, 0}, 0};
    double x[3] = {0, c->kind == SHAPE_BOX ? -c->size + 1.0 : 0.0, 0}, v[3] = {0, 0, 0}, g[3], in[3], a[3];
    double direction = 1.0;
    int64_t n = 100000, act = 0;
    double dev = 0.0, low = INFINITY;
    for (int64_t i = 0; i < n; i++) {
        if (c->kind == SHAPE_BOX) { /* race along the floor, pressing down onto it a little */
            if (x[0] * direction > c->size - 1.5 - v[0] * v[0] / 2.0) direction = -direction;
            in[0] = 0.99 * direction, in[1] = -0.1, in[2] = 0.0;
        } else {
            player_input(&pl, c, &d, x, v, in);
        }
        carom_filter_result r;
        {
            double s_now = filter_clearance(c, x, g);
            carom_filter_apply(&d, s_now, vec(g), vec(v), vec(in), &r);
        }
        unvec(a, r.acceleration);
        double diff[3] = {a[0] - in[0], a[1] - in[1], a[2] - in[2]};
        act += r.acted;
        dev += len3(diff) / d.max_acceleration;
        low = fmin(low, window_min_clearance(c, x, v, a, d.window));
        fly(x, v, a, d.window);
    }
    *acted = (double)act / (double)n, *deviation = dev / (double)n, *least = low;
}

static void test_directional_intrusion(void)
{
    container box = {SHAPE_BOX, 2, 20.0, 0.5, NULL, {0, 0, 0}}, circle = {SHAPE_BALL, 2, 10.0, 0.5, NULL, {0, 0, 0}};
    double acted[2], dev[2], least[2];
    for (int l = 0; l < 2; l++)
        intrusion(&box, l ? CAROM_FILTER_DIRECTIONAL : CAROM_FILTER_LINEAR, PLAYER_RANDOM, &acted[l], &dev[l], &least[l]);
    printf("      racing along a floor: linear acted %.1f%%, mean |a-a_p|/a_max %.3f; directional %.1f%%, %.3f "
           "(least clearance %.3g, %.3g)\n",
           100 * acted[0], dev[0], 100 * acted[1], dev[1], least[0], least[1]);
    CHECK(dev[1] < 0.5 * dev[0]);
    for (int l = 0; l < 2; l++)
        intrusion(&circle, l ? CAROM_FILTER_DIRECTIONAL : CAROM_FILTER_LINEAR, PLAYER_RANDOM, &acted[l], &dev[l],
                  &least[l]);
    printf("      random player in a circle: linear acted %.1f%%, mean %.3f; directional %.1f%%, %.3f (least "
           "clearance %.3g, %.3g)\n",
           100 * acted[0], dev[0], 100 * acted[1], dev[1], least[0], least[1]);
    CHECK(dev[1] <= dev[0]);
}

/* ---- several steered bodies ------------------------------------------------------ */

typedef struct flock {
    int n;
    double x[10][3], v[10][3], a[10][3];
    carom_filter_def def[10];
    double radius[10];
} flock;

/* Filters every body at a window start against the wall and the others (each pair's gap less the other's
   reach), as steering.c does. */
static void filter_flock(flock *f, const container *c, double inputs[10][3], int64_t *acted)
{
    for (int i = 0; i < f->n; i++) {
        filter_constraint k[11];
        container ci = *c;
        ci.radius = f->radius[i];
        int m = 0;
        k[m].clearance = filter_clearance(&ci, f->x[i], k[m].normal);
        m++;
        for (int j = 0; j < f->n; j++) {
            if (j == i) continue;
            double d[3];
            for (int q = 0; q < 3; q++) d[q] = f->x[i][q] - f->x[j][q];
            double dist = len3(d), gap = dist - f->radius[i] - f->radius[j];
            k[m].clearance = gap - filter_skin(c->size) - filter_reach(&f->def[j], len3(f->v[j]));
            for (int q = 0; q < 3; q++) k[m].normal[q] = dist > 0.0 ? d[q] / dist : 0.0;
            m++;
        }
        carom_filter_result r;
        filter_apply_constraints(&f->def[i], k, m, f->v[i], inputs[i], &r);
        unvec(f->a[i], r.acceleration);
        *acted += r.acted;
    }
}

static void flock_run(int n, int dim, uint64_t seed, int64_t windows)
{
    container c = {SHAPE_BALL, dim, 6.0, 0.0, NULL, {0, 0, 0}};
    flock f = {0};
    f.n = n;
    carom_rng rng = carom_rng_seed(seed);
    double dt = 0.02 + 0.03 * carom_rng_uniform(&rng);
    for (int i = 0; i < n; i++) { /* a ring, at rest */
        double angle = 6.283185307179586 * i / n;
        f.x[i][0] = 3.5 * cos(angle), f.x[i][1] = 3.5 * sin(angle);
        f.radius[i] = 0.4 + 0.3 * carom_rng_uniform(&rng);
        f.def[i] = law_def(safe_law[i % 4], 0.5 + carom_rng_uniform(&rng), 0.5 * carom_rng_uniform(&rng), dt);
    }
    double least_gap = INFINITY, least_wall = INFINITY, inputs[10][3];
    int64_t acted = 0;
    for (int64_t w = 0; w < windows; w++) {
        for (int i = 0; i < n; i++) { /* each chases another body, or the wall, or plays at random */
            int mode = (int)((w / 50 + i) % 3);
            double d[3] = {0, 0, 0};
            if (mode == 0) {
                int j = (i + 1 + (int)(w / 200) % (n - 1)) % n;
                for (int q = 0; q < 3; q++) d[q] = f.x[j][q] - f.x[i][q];
            } else if (mode == 1) {
                double g[3];
                clearance_at(&c, f.x[i], g);
                for (int q = 0; q < 3; q++) d[q] = -g[q];
            } else {
                random_direction(&rng, dim, d);
            }
            double l = len3(d);
            for (int q = 0; q < 3; q++) inputs[i][q] = l > 0.0 ? 1.2 * f.def[i].max_acceleration * d[q] / l : 0.0;
        }
        filter_flock(&f, &c, inputs, &acted);
        for (int i = 0; i < n; i++) {
            container ci = c;
            ci.radius = f.radius[i];
            least_wall = fmin(least_wall, window_min_clearance(&ci, f.x[i], f.v[i], f.a[i], dt));
            for (int j = i + 1; j < n; j++) {
                double p[3], q[3], h[3], lo, hi;
                for (int k = 0; k < 3; k++)
                    p[k] = f.x[i][k] - f.x[j][k], q[k] = f.v[i][k] - f.v[j][k], h[k] = 0.5 * (f.a[i][k] - f.a[j][k]);
                quartic_extremes(p, q, h, dt, &lo, &hi);
                least_gap = fmin(least_gap, sqrt(lo) - f.radius[i] - f.radius[j]);
            }
        }
        for (int i = 0; i < n; i++) fly(f.x[i], f.v[i], f.a[i], dt);
    }
    printf("      %d bodies in %dD, %lld windows: least gap %.3g, least wall clearance %.3g, acted %.1f%%\n", n, dim,
           (long long)windows, least_gap, least_wall, 100.0 * (double)acted / (double)(windows * n));
    CHECK_MSG(least_gap >= 0.0, "two steered bodies touched: gap %.3g", least_gap);
    CHECK_MSG(least_wall >= 0.0, "a steered body reached the wall: %.3g", least_wall);
}

static void test_two_steered(void)
{
    flock_run(2, 2, 51, 200000);
    flock_run(2, 3, 52, 100000);
}

static void test_ten_steered(void)
{
    flock_run(10, 2, 53, 50000);
    flock_run(10, 3, 54, 20000);
}

int main(void)
{
    RUN(test_defaults);
    RUN(test_hand_values);
    RUN(test_backup_values);
    RUN(test_directional_values);
    RUN(test_passthrough_bits);
    RUN(test_bounds);
    RUN(test_edge_cases);
    RUN(test_adversaries_circle);
    RUN(test_adversaries_box);
    RUN(test_adversaries_sphere);
    RUN(test_adversaries_library);
    RUN(test_margin_needed);
    RUN(test_margin_tight);
    RUN(test_directional);
    RUN(test_directional_intrusion);
    RUN(test_two_steered);
    RUN(test_ten_steered);
    return CHECK_SUMMARY();
}
