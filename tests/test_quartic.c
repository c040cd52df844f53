/* test_quartic.c — the quartic contact kernel predict_pair_accelerated
 * (src/predict.c) against the independent long-double brute-force reference
 * of tests/quartic_reference.h, on 1.2e5 random cases (fixed seeds, carom_rng)
 * in families: general motions over twelve decades of length and time
 * scales, aimed motions with |da| from 1e-12 to 1e12 of |dv|^2 / sigma,
 * exact tangencies (double roots), near-double roots (minimum gap +-delta
 * sigma, delta from 1e-15 to 1e-3), touching at s = 0 (closing, opening,
 * tangential, on exact Pythagorean triples), contacts 1e-9 inside and outside
 * the horizon, far pairs, an infinite horizon, 2D and 3D.
 *
 * Every case checks the tolerance stated in predict.h, with the gap
 * g(s) = |p(s)| - sigma and tol(s) = 4 u (|dr| + |dv| s + |da| s^2 / 2 + sigma),
 * u = 2^-53:
 *   no contact missed: before the returned time (or the horizon, when it
 *     returns INFINITY) the true gap never falls below -tol;
 *   a returned time is a contact: |g(s)| <= tol(s), and s lies in [0, horizon);
 *   a pair overlapping at s = 0 and opening (Bannerman's rule) has a contact
 *     where and only where the reference finds it closing again while still
 *     overlapping, with the same gap there to 2 tol;
 *   where the bodies stay apart by more than tol until the reference's
 *     contact s_ref and then go deeper than tol:
 *     |s - s_ref| <= tol(s_ref) / min |g'| + 4 ulp(s_ref), the minimum of
 *     the closing speed g' taken between s and s_ref;
 *   the same bits with dr, dv, da negated (the pair seen from the other body).
 * and a relative time error <= 1e-14 where the contact is well conditioned,
 * tol(s_ref) / (|g'| s_ref) <= 5e-15 (the aim, where the inputs'
 * rounding allows it). The largest errors are printed per family. Separate tests: the
 * exact bits of predict_pair_before when da = 0, and s = 0 exactly for
 * touching-and-closing pairs.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "predict.h"
#include "quartic_reference.h"

enum { CASES_PER_FAMILY = 15000 };
static const real TOLERANCE_UNITS = 4.0L;       /* tol(s) in units of u * scale, as predict.h states */
static const real NEAR_TOLERANCE_UNITS = 8.0L;  /* and near */

typedef struct pair_case {
    double dr[3], dv[3], da[3], sigma, horizon;
} pair_case;

typedef struct family_stats {
    const char *name;
    long cases, contacts, clear;
    double max_relative_error, max_error_over_bound, max_gap_over_tol;
    long conditioned;                 /* clear contacts with tol / (|g'| s_ref) <= 5e-15 */
    double max_relative_conditioned;  /* their largest relative time error */
} family_stats;

/* ---- random motions ---- */

static double uniform(carom_rng *rng, double lo, double hi) { return lo + (hi - lo) * carom_rng_uniform(rng); }
static double log_uniform(carom_rng *rng, double lo_exp10, double hi_exp10)
{
    return pow(10.0, uniform(rng, lo_exp10, hi_exp10));
}

static void random_vector(carom_rng *rng, int dim, double scale, double v[3])
{
    for (int k = 0; k < 3; k++) v[k] = k < dim ? scale * carom_rng_normal(rng) : 0.0;
}

static void random_unit(carom_rng *rng, int dim, double v[3])
{
    double n2;
    do {
        random_vector(rng, dim, 1.0, v);
        n2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    } while (n2 < 1e-6);
    for (int k = 0; k < 3; k++) v[k] /= sqrt(n2);
}

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* ---- the checks ---- */

static real norm_real(const real v[3]) { return sqrtl(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static real tolerance_at(const reference_motion *m, real s)
{
    real r = norm_real(m->dr), travel = norm_real(m->dv) * s + 0.5L * norm_real(m->da) * s * s;
    real tol = TOLERANCE_UNITS * 0x1p-53L * (r + travel + m->sigma);
    if (r <= 1.9L * m->sigma && travel <= 1.9L * m->sigma) /* near: predict.h's finer tolerance */
        tol = fminl(tol, NEAR_TOLERANCE_UNITS * 0x1p-53L * (fabsl(m->c) / (2.0L * m->sigma) + travel));
    return tol;
}

/* A horizon the reference can sample when the case has none: past
 * s_far = (|dv| + sqrt(|dv|^2 + 2 |da| (|dr| + sigma))) / |da| the acceleration
 * alone keeps the bodies apart (|p| >= |da| s^2/2 - |dv| s - |dr| > sigma). */
static real sampled_horizon(const reference_motion *m, double horizon)
{
    if (isfinite(horizon)) return horizon;
    real v = norm_real(m->dv), a = norm_real(m->da), r = norm_real(m->dr);
    return 1.01L * (v + sqrtl(v * v + 2.0L * a * (r + m->sigma))) / a;
}

/* The deepest the true gap goes below -tol on [from, to] (0 if never): at
 * the ends and at the reference's refined minima between them. */
static real deepest_miss(const reference_motion *m, const reference_result *r, real from, real to)
{
    real worst = 0.0L;
    real points[REFERENCE_MAX_TURNS + 2];
    int n = 0;
    points[n++] = from;
    points[n++] = to;
    for (int k = 0; k < r->turns; k++)
        if (r->turn[k] > from && r->turn[k] < to) points[n++] = r->turn[k];
    for (int k = 0; k < n; k++) {
        real depth = -reference_gap(m, points[k]) - tolerance_at(m, points[k]);
        if (depth > worst) worst = depth;
    }
    return worst;
}

/* The case's inputs, exactly (hexadecimal floats), for a failure message. */
static const char *describe(const pair_case *pc)
{
    static char text[400]; /* test program only */
    snprintf(text, sizeof text, "dr %a %a %a, dv %a %a %a, da %a %a %a, sigma %a, horizon %a", pc->dr[0],
             pc->dr[1], pc->dr[2], pc->dv[0], pc->dv[1], pc->dv[2], pc->da[0], pc->da[1], pc->da[2], pc->sigma,
             pc->horizon);
    return text;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void check_case(const pair_case *pc, family_stats *st, long index)
{
    double s = predict_pair_accelerated(pc->dr, pc->dv, pc->da, pc->sigma, pc->horizon);
    double ndr[3], ndv[3], nda[3];
    for (int k = 0; k < 3; k++) ndr[k] = -pc->dr[k], ndv[k] = -pc->dv[k], nda[k] = -pc->da[k];
    double mirrored = predict_pair_accelerated(ndr, ndv, nda, pc->sigma, pc->horizon);
    st->cases++;
    CHECK_MSG(same_bits(s, mirrored), "%s %ld: %.17g seen from the other body %.17g", st->name, index, s,
              mirrored);
    CHECK_MSG(s >= 0.0 && (isinf(s) || s < pc->horizon), "%s %ld: %.17g outside [0, %.17g)", st->name, index, s,
              pc->horizon);
    if (!(s >= 0.0)) return;

    reference_motion m = reference_motion_make(pc->dr, pc->dv, pc->da, pc->sigma);
    real H = sampled_horizon(&m, pc->horizon);
    reference_result r = reference_contact(&m, H);
    real end = isinf(s) ? H : (real)s;
    if (m.c <= 0.0L && r.contact == 0.0L) { /* touching or overlapping, and closing: now (or within tol) */
        CHECK_MSG(s == 0.0 || fabsl(reference_gap(&m, s)) <= tolerance_at(&m, s),
                  "%s %ld: closing at 0, returned %.17g (%s)", st->name, index, s, describe(pc));
        st->contacts++;
        return;
    }
    if (r.overlapped) { /* overlapping from the start, and closing again before the gap opened */
        CHECK_MSG(isfinite(s), "%s %ld: overlapping: %.17g, reference %.17Lg (%s)", st->name, index, s, r.contact,
                  describe(pc));
        if (isfinite(s))
            CHECK_MSG(fabsl(reference_gap(&m, s) - reference_gap(&m, r.contact)) <= 2.0L * tolerance_at(&m, s),
                      "%s %ld: overlapping: gap %.3Lg at %.17g, %.3Lg at the reference's %.17Lg (%s)", st->name,
                      index, reference_gap(&m, s), s, reference_gap(&m, r.contact), r.contact, describe(pc));
        if (isfinite(s)) st->contacts++;
        return;
    }
    if (r.contact < end) {
        real depth = deepest_miss(&m, &r, r.contact, end);
        CHECK_MSG(depth == 0.0L, "%s %ld: missed: the reference meets at %.17Lg, the kernel says %.17g, "
                  "%.3Lg below -tol before it (%s)", st->name, index, r.contact, s, depth, describe(pc));
    }
    if (isinf(s)) return;
    st->contacts++;
    real gap = reference_gap(&m, s), tol = tolerance_at(&m, s);
    double over = (double)(fabsl(gap) / tol);
    if (over > st->max_gap_over_tol) st->max_gap_over_tol = over;
    CHECK_MSG(fabsl(gap) <= tol,
              "%s %ld: at the returned %.17g the gap is %.3Lg, tolerance %.3Lg (reference %.17Lg; %s)", st->name,
              index, s, gap, tol, r.contact, describe(pc));
    if (!(r.contact > 0.0L && isfinite((double)r.contact))) return;
    /* Times are compared where the bodies stay clearly apart (gap > tol)
     * until the reference's contact: elsewhere an earlier graze within
     * tolerance is as good a contact as the reference's, and so is one
     * shortly later when the reference's is only a dip within tolerance. */
    if (reference_gap(&m, 0.0L) <= tolerance_at(&m, 0.0L)) return;
    real deepest = H; /* and they go deeper than tol after it, before turning (else it is a graze) */
    for (int k = r.turns - 1; k >= 0; k--) {
        if (r.turn[k] < r.contact && reference_gap(&m, r.turn[k]) <= tolerance_at(&m, r.turn[k])) return;
        if (r.turn[k] > r.contact) deepest = r.turn[k];
    }
    if (!(reference_gap(&m, deepest) < -tolerance_at(&m, deepest))) return;
    real error = fabsl((real)s - r.contact), rate = INFINITY; /* the slowest closing between the two */
    for (int k = 0; k <= 8; k++) rate = fminl(rate, fabsl(reference_gap_rate(&m, r.contact + ((real)s - r.contact) * k / 8)));
    real bound = tolerance_at(&m, r.contact) / rate + 4.0L * r.contact * DBL_EPSILON;
    st->clear++;
    double rel = (double)(error / r.contact), ratio = (double)(error / bound);
    if (rel > st->max_relative_error) st->max_relative_error = rel;
    if (ratio > st->max_error_over_bound) st->max_error_over_bound = ratio;
    if (tolerance_at(&m, r.contact) / (rate * r.contact) <= 5e-15L) {
        st->conditioned++;
        if (rel > st->max_relative_conditioned) st->max_relative_conditioned = rel;
        CHECK_MSG(rel <= 1e-14, "%s %ld: relative error %.3g of a well-conditioned contact (%s)", st->name, index,
                  rel, describe(pc));
    }
    CHECK_MSG(error <= bound, "%s %ld: time %.17g, reference %.17Lg, error %.3Lg > bound %.3Lg (%s)", st->name,
              index, s, r.contact, error, bound, describe(pc));
}

static void report(const family_stats *st)
{
    printf("  %-13s %5ld cases, %5ld contacts, %5ld clear: max |gap| / tol %.3f, max error / bound %.3f, "
           "max relative error %.1e (%.1e on %ld well-conditioned)\n",
           st->name, st->cases, st->contacts, st->clear, st->max_gap_over_tol, st->max_error_over_bound,
           st->max_relative_error, st->max_relative_conditioned, st->conditioned);
}

/* ---- the families ---- */

/* Any motion: twelve decades of length and time scale, gaps from 1e-6 to 20
 * sigma, random directions, 10% with no horizon at all. */
static void general_case(carom_rng *rng, int dim, pair_case *pc)
{
    double L = log_uniform(rng, -6, 6), T = log_uniform(rng, -6, 6), n[3];
    pc->sigma = L * uniform(rng, 0.5, 2.0);
    random_unit(rng, dim, n);
    double distance = pc->sigma * (1.0 + log_uniform(rng, -6, 1.3));
    for (int k = 0; k < 3; k++) pc->dr[k] = distance * n[k];
    random_vector(rng, dim, L / T * log_uniform(rng, -1, 1), pc->dv);
    random_vector(rng, dim, L / (T * T) * log_uniform(rng, -2, 2), pc->da);
    pc->horizon = carom_rng_uniform(rng) < 0.1 ? INFINITY : T * log_uniform(rng, -1, 1.5);
}

/* Aimed at each other (a contact is likely), |da| from 1e-12 to 1e12 of
 * |dv|^2 / sigma, the horizon a few times the time to close the gap. */
static void acceleration_range_case(carom_rng *rng, int dim, pair_case *pc)
{
    double n[3], jitter[3], a_dir[3];
    pc->sigma = uniform(rng, 0.5, 2.0);
    random_unit(rng, dim, n);
    double gap = pc->sigma * log_uniform(rng, -3, 1.3), speed = log_uniform(rng, -1, 1);
    random_vector(rng, dim, 0.4, jitter);
    for (int k = 0; k < 3; k++) {
        pc->dr[k] = (pc->sigma + gap) * n[k];
        pc->dv[k] = -speed * (n[k] + jitter[k]);
    }
    double a = speed * speed / pc->sigma * log_uniform(rng, -12, 12);
    random_unit(rng, dim, a_dir);
    for (int k = 0; k < 3; k++) pc->da[k] = a * a_dir[k];
    double t_closing = fmin(gap / speed, sqrt(2.0 * (gap + 2.0 * pc->sigma) / a));
    pc->horizon = t_closing * log_uniform(rng, -0.3, 1.5);
}

/* Minimum gap delta (0: exact tangency before the inputs are rounded) at a
 * chosen time: p(s*) = (sigma + delta) n with p'(s*) normal to n, and f'' > 0
 * there so that s* is a minimum of the distance. */
static void tangent_case(carom_rng *rng, int dim, double delta, pair_case *pc)
{
    double n[3], q[3], a[3];
    double L = log_uniform(rng, -3, 3), T = log_uniform(rng, -3, 3);
    pc->sigma = L * uniform(rng, 0.5, 2.0);
    random_unit(rng, dim, n);
    random_vector(rng, dim, L / T, q);
    double qn = q[0] * n[0] + q[1] * n[1] + q[2] * n[2];
    for (int k = 0; k < 3; k++) q[k] -= qn * n[k];
    random_vector(rng, dim, L / (T * T) * log_uniform(rng, -2, 2), a);
    double r = pc->sigma + delta * pc->sigma;
    double curvature = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + r * (a[0] * n[0] + a[1] * n[1] + a[2] * n[2]);
    if (curvature <= 0.0)
        for (int k = 0; k < 3; k++) a[k] = -a[k];
    double s_star = T * uniform(rng, 0.05, 1.0);
    for (int k = 0; k < 3; k++) {
        pc->da[k] = a[k];
        pc->dv[k] = q[k] - a[k] * s_star;
        pc->dr[k] = r * n[k] - q[k] * s_star + 0.5 * a[k] * s_star * s_star;
    }
    pc->horizon = s_star * uniform(rng, 1.2, 4.0);
}

static void grazing_case(carom_rng *rng, int dim, pair_case *pc) { tangent_case(rng, dim, 0.0, pc); }

static void near_double_case(carom_rng *rng, int dim, pair_case *pc)
{
    double delta = log_uniform(rng, -15, -3) * (carom_rng_uniform(rng) < 0.5 ? -1.0 : 1.0);
    tangent_case(rng, dim, delta, pc);
}

/* Touching at s = 0 exactly: dr on a Pythagorean triple times a power of two,
 * so |dr|^2 = sigma^2 in binary; closing, opening or tangential. */
static void touching_case(carom_rng *rng, int dim, pair_case *pc)
{
    static const double triples[4][4] = {{3, 4, 0, 5}, {5, 12, 0, 13}, {2, 3, 6, 7}, {1, 4, 8, 9}};
    int t = (int)(carom_rng_next(rng) % (dim == 3 ? 4 : 2));
    double scale = ldexp(1.0, (int)(carom_rng_next(rng) % 41) - 20);
    pc->sigma = triples[t][3] * scale;
    for (int k = 0; k < 3; k++) pc->dr[k] = triples[t][k] * scale * (carom_rng_uniform(rng) < 0.5 ? -1 : 1);
    random_vector(rng, dim, scale * 10.0, pc->dv);
    random_vector(rng, dim, scale * 10.0 * log_uniform(rng, -3, 3), pc->da);
    if (carom_rng_uniform(rng) < 0.3 && dim == 2) { /* tangential: dr.dv = 0 exactly */
        pc->dv[0] = -pc->dr[1] * 0.25;
        pc->dv[1] = pc->dr[0] * 0.25;
    }
    pc->horizon = uniform(rng, 0.1, 10.0);
}

/* A transversal contact s_ref of an aimed motion, the horizon put 1e-9 s_ref
 * after it (must be found) or before it (must not). */
static void horizon_edge_case(carom_rng *rng, int dim, pair_case *pc)
{
    for (;;) {
        acceleration_range_case(rng, dim, pc);
        reference_motion m = reference_motion_make(pc->dr, pc->dv, pc->da, pc->sigma);
        reference_result r = reference_contact(&m, pc->horizon);
        if (!isfinite((double)r.contact) || !(r.contact > 0.0L)) continue;
        if (fabsl(reference_gap_rate(&m, r.contact)) < 1e-3L * norm3(pc->dv)) continue;
        pc->horizon = (double)r.contact * (carom_rng_uniform(rng) < 0.5 ? 1.0 - 1e-9 : 1.0 + 1e-9);
        return;
    }
}

/* Far apart, fast or slow: mostly rejected before any root is sought. */
static void far_case(carom_rng *rng, int dim, pair_case *pc)
{
    double n[3];
    pc->sigma = uniform(rng, 0.5, 2.0);
    random_unit(rng, dim, n);
    double distance = pc->sigma * log_uniform(rng, 1, 4);
    for (int k = 0; k < 3; k++) pc->dr[k] = distance * n[k];
    random_vector(rng, dim, log_uniform(rng, -2, 2), pc->dv);
    random_vector(rng, dim, log_uniform(rng, -2, 2), pc->da);
    pc->horizon = log_uniform(rng, -2, 2);
}

typedef void (*case_maker)(carom_rng *rng, int dim, pair_case *pc);

static void run_family(const char *name, case_maker make, uint64_t seed)
{
    family_stats st = {name, 0, 0, 0, 0.0, 0.0, 0.0, 0, 0.0};
    carom_rng rng = carom_rng_seed(seed);
    for (long i = 0; i < CASES_PER_FAMILY; i++) {
        pair_case pc;
        make(&rng, i % 2 ? 3 : 2, &pc);
        check_case(&pc, &st, i);
    }
    report(&st);
    CHECK_MSG(st.contacts > CASES_PER_FAMILY / 20, "%s: only %ld contacts", name, st.contacts);
}

static void test_general(void) { run_family("general", general_case, 101); }
static void test_acceleration_range(void) { run_family("accel 1e+-12", acceleration_range_case, 102); }
static void test_grazing(void) { run_family("grazing", grazing_case, 103); }
static void test_near_double(void) { run_family("near-double", near_double_case, 104); }
static void test_touching(void) { run_family("touching", touching_case, 105); }
static void test_horizon_edge(void) { run_family("horizon edge", horizon_edge_case, 106); }
static void test_far(void)
{
    family_stats st = {"far", 0, 0, 0, 0.0, 0.0, 0.0, 0, 0.0};
    carom_rng rng = carom_rng_seed(107);
    for (long i = 0; i < CASES_PER_FAMILY; i++) {
        pair_case pc;
        far_case(&rng, i % 2 ? 3 : 2, &pc);
        check_case(&pc, &st, i);
    }
    report(&st);
}

/* ---- exact properties ---- */

/* Equal accelerations: the quadratic kernel's bits, whatever the horizon. */
static void test_equal_accelerations(void)
{
    carom_rng rng = carom_rng_seed(108);
    const double zero[3] = {0.0, 0.0, 0.0};
    long differ = 0;
    for (long i = 0; i < CASES_PER_FAMILY; i++) {
        pair_case pc;
        general_case(&rng, i % 2 ? 3 : 2, &pc);
        double s = predict_pair_accelerated(pc.dr, pc.dv, zero, pc.sigma, pc.horizon);
        double q = predict_pair_before(pc.dr, pc.dv, pc.sigma, pc.horizon);
        if (!same_bits(s, q)) {
            if (differ++ < 5) fprintf(stderr, "case %ld: quartic %.17g, quadratic %.17g\n", i, s, q);
        }
    }
    CHECK_EQ_INT(differ, 0);
}

/* Touching (|dr| = sigma exactly) and closing at first, second or third
 * order: a contact now, s = 0 exactly; opening: never 0. */
static void test_touching_exact(void)
{
    const double dr[3] = {3, 4, 0}, sigma = 5;
    const double closing[][2][3] = {
        {{-1, 0, 0}, {0, 0, 0.5}},    /* dr.dv < 0 */
        {{4, -3, 0}, {-6, -8, 0}},    /* dr.dv = 0, |dv|^2 + dr.da = 25 - 50 < 0 */
        {{0, 0, 1}, {-0.6, -0.8, 0}}, /* dr.dv = 0, 1 - 5 < 0 */
    };
    for (int k = 0; k < 3; k++)
        CHECK_MSG(same_bits(predict_pair_accelerated(dr, closing[k][0], closing[k][1], sigma, 10.0), 0.0),
                  "closing case %d: %.17g", k, predict_pair_accelerated(dr, closing[k][0], closing[k][1], sigma, 10.0));
    const double opening[][2][3] = {
        {{1, 0, 0}, {-1, -1, 0}},     /* dr.dv > 0, pulled back later */
        {{0, 0, 2}, {0.3, 0.4, 0}},   /* dr.dv = 0, f'' > 0 */
    };
    for (int k = 0; k < 2; k++)
        CHECK_MSG(predict_pair_accelerated(dr, opening[k][0], opening[k][1], sigma, 10.0) > 0.0, "opening case %d",
                  k);
    /* Opening, then pulled back, all along n = dr / 5: |p| = 5 + 0.6 t - t^2 meets 5 again at t = 0.6. */
    const double dv[3] = {0.36, 0.48, 0}, da[3] = {-1.2, -1.6, 0};
    CHECK_NEAR(predict_pair_accelerated(dr, dv, da, sigma, 10.0), 0.6, 1e-14);
}

/* Inputs at the edges of the doubles: every call returns (the loops are
 * bounded), never NaN and never a negative time. */
static void test_extremes(void)
{
    const double big = 1e300, tiny = 1e-300, nan = NAN, inf = INFINITY;
    const double values[] = {0.0, 1.0, -1.0, big, -big, tiny, -tiny, 4.9e-324, nan, inf, -inf, 1e-160, 1e160};
    const int n = (int)(sizeof values / sizeof values[0]);
    carom_rng rng = carom_rng_seed(109);
    long calls = 0;
    for (int trial = 0; trial < 20000; trial++) {
        double dr[3], dv[3], da[3], sigma, horizon;
        for (int k = 0; k < 3; k++) {
            dr[k] = carom_rng_uniform(&rng) < 0.5 ? values[carom_rng_next(&rng) % n] : carom_rng_normal(&rng);
            dv[k] = carom_rng_uniform(&rng) < 0.5 ? values[carom_rng_next(&rng) % n] : carom_rng_normal(&rng);
            da[k] = carom_rng_uniform(&rng) < 0.5 ? values[carom_rng_next(&rng) % n] : carom_rng_normal(&rng);
        }
        sigma = carom_rng_uniform(&rng) < 0.3 ? values[carom_rng_next(&rng) % n] : 1.0;
        horizon = carom_rng_uniform(&rng) < 0.5 ? values[carom_rng_next(&rng) % n] : 10.0;
        if (da[0] == 0.0 && da[1] == 0.0 && da[2] == 0.0) da[0] = tiny; /* else it is predict_pair_before's */
        double s = predict_pair_accelerated(dr, dv, da, sigma, horizon);
        calls++;
        CHECK_MSG(s >= 0.0, "trial %d: %.17g (dr %g %g %g dv %g %g %g da %g %g %g sigma %g horizon %g)", trial, s, dr[0],
                  dr[1], dr[2], dv[0], dv[1], dv[2], da[0], da[1], da[2], sigma, horizon);
    }
    CHECK_EQ_INT(calls, 20000);
    /* A tiny relative acceleration and no horizon: the free-flight contact. */
    const double dr[3] = {3, 0, 0}, dv[3] = {-1, 0, 0}, da[3] = {1e-300, 0, 0};
    CHECK_NEAR(predict_pair_accelerated(dr, dv, da, 1.0, INFINITY), 2.0, 1e-15);
}

int main(void)
{
    RUN(test_equal_accelerations);
    RUN(test_touching_exact);
    RUN(test_extremes);
    RUN(test_general);
    RUN(test_acceleration_range);
    RUN(test_grazing);
    RUN(test_near_double);
    RUN(test_touching);
    RUN(test_horizon_edge);
    RUN(test_far);
    return CHECK_SUMMARY();
}
