/* test_predict.c — unit tests of the time-of-impact kernels (src/predict.c).
 *
 * predict_pair: hand-solved contact times (head-on, oblique with a known
 * impact parameter, grazing, tangent, receding, parallel, overlapping, 2D);
 * the near-contact case where only the stable root keeps its digits, both
 * head-on with exactly representable inputs and on a dyadic grid where the
 * gap r^2 - sigma^2 is known exactly from integer arithmetic; scale
 * invariance; and predict_pair(dr, dv) == predict_pair(-dr, -dv) bitwise.
 * The scans' branch-free screens (predict_pair_may_meet and its scaled form)
 * never reject a pair that predict_pair_before finds meeting before the
 * horizon, near the rejection threshold above all.
 *
 * predict_crossing: closed-form roots for every branch (g = 0, g > 0, g < 0,
 * at the level, a hair past the level) and a random property test: the
 * answer is a zero of f(s) = g s^2/2 + v s + c, f rises there, f stays below
 * zero before it, and INFINITY only when f provably never reaches zero.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "predict.h"

static const double EPS = 2.220446049250313e-16; /* DBL_EPSILON */
static const double PI_VALUE = 3.14159265358979323846;

/* ---- a small private generator (splitmix64), so runs are reproducible ---- */

static uint64_t rng_state = 0x5eed0001u;

static uint64_t next_u64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(next_u64() >> 11) * 0x1.0p-53);
}

static int64_t uniform_int(int64_t lo, int64_t hi) /* inclusive */
{
    return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1));
}

/* ---- helpers ---- */

static double pair(double dx, double dy, double dz, double vx, double vy, double vz, double sigma)
{
    const double dr[3] = {dx, dy, dz}, dv[3] = {vx, vy, vz};
    return predict_pair(dr, dv, sigma);
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Rotates v in place by angles (alpha about z, beta about y, gamma about z). */
static void rotate(double v[3], double alpha, double beta, double gamma)
{
    double x = v[0] * cos(alpha) - v[1] * sin(alpha), y = v[0] * sin(alpha) + v[1] * cos(alpha);
    double z = v[2];
    double x2 = x * cos(beta) + z * sin(beta), z2 = -x * sin(beta) + z * cos(beta);
    v[0] = x2 * cos(gamma) - y * sin(gamma);
    v[1] = x2 * sin(gamma) + y * cos(gamma);
    v[2] = z2;
}

/* ---- predict_pair: hand-solved cases ---- */

static void test_pair_head_on(void)
{
    CHECK_NEAR(pair(3, 0, 0, -1, 0, 0, 1), 2.0, 1e-15);
    CHECK_NEAR(pair(0, 3, 0, 0, -1, 0, 1), 2.0, 1e-15);
    CHECK_NEAR(pair(0, 0, -7, 0, 0, 2, 1.5), (7.0 - 1.5) / 2.0, 1e-15);
    CHECK_NEAR(pair(-10, 0, 0, 4, 0, 0, 2), 2.0, 1e-15);
}

/* Impact parameter p: contact when (d - u t)^2 + p^2 = sigma^2. */
static void test_pair_oblique(void)
{
    double expected = (5.0 - sqrt(1.0 - 0.36)) / 2.0; /* d 5, p 0.6, u 2, sigma 1: 2.1 */
    CHECK_NEAR(pair(5, 0.6, 0, -2, 0, 0, 1), expected, 1e-14);
    CHECK_NEAR(pair(5, 0, -0.6, -2, 0, 0, 1), expected, 1e-14);
    CHECK_NEAR(pair(4, 1, 0, -1, 0, 0, 2), 4.0 - sqrt(3.0), 1e-14);
    /* Both vectors turned by the same rotation: same time. */
    for (int trial = 0; trial < 200; trial++) {
        double dr[3] = {5, 0.6, 0}, dv[3] = {-2, 0, 0};
        double alpha = uniform(0, 2 * PI_VALUE), beta = uniform(0, PI_VALUE);
        double gamma = uniform(0, 2 * PI_VALUE);
        rotate(dr, alpha, beta, gamma);
        rotate(dv, alpha, beta, gamma);
        CHECK_NEAR(predict_pair(dr, dv, 1.0), expected, 1e-12);
    }
}

static void test_pair_grazing_near(void)
{
    const double d = 3.0, sigma = 1.0;
    double above = sigma * (1.0 + 1e-9), below = sigma * (1.0 - 1e-9);
    CHECK(pair(d, above, 0, -1, 0, 0, sigma) == INFINITY);
    CHECK(pair(d, 0, above, -1, 0, 0, sigma) == INFINITY);
    /* Just inside: t = d - sqrt(sigma^2 - p^2), with the difference of squares
     * factored so that the reference itself keeps its digits. */
    double expected = d - sqrt((sigma - below) * (sigma + below));
    double t = pair(d, below, 0, -1, 0, 0, sigma);
    CHECK(isfinite(t));
    CHECK_NEAR(t, expected, 1e-9 * expected);
}

/* Impact parameter exactly sigma: the spheres only touch tangentially, with
 * zero normal velocity, which the header calls a miss. Consistency along the
 * trajectory asks the same: at the would-be contact the pair touches and
 * moves tangentially (dr.dv = 0), which predict_pair itself calls INFINITY.
 * Every quantity here is exact in binary: disc = b^2 - a c = 9 - 9 = 0. */
static void test_pair_grazing_exact(void)
{
    CHECK_MSG(pair(3, 1, 0, -1, 0, 0, 1) == INFINITY, "got %.17g",
              pair(3, 1, 0, -1, 0, 0, 1));
    CHECK_MSG(pair(0, -2, 6, 0, 0, -1, 2) == INFINITY, "got %.17g",
              pair(0, -2, 6, 0, 0, -1, 2));
    /* The state at that instant: touching, moving tangentially. */
    CHECK(pair(0, 1, 0, -1, 0, 0, 1) == INFINITY);
}

static void test_pair_tangent(void)
{
    CHECK(pair(1, 0, 0, -1, 0, 0, 1) == 0.0);        /* touching, approaching */
    CHECK(pair(0, 0, -2, 0.5, 0.5, 3, 2) == 0.0);    /* touching, approaching */
    CHECK(pair(1, 0, 0, 1, 0, 0, 1) == INFINITY);    /* touching, receding */
    CHECK(pair(1, 0, 0, 0, 1, 0, 1) == INFINITY);    /* touching, tangential */
    CHECK(pair(0, 2, 0, 3, 0, -1, 2) == INFINITY);   /* touching, tangential */
}

static void test_pair_receding_and_parallel(void)
{
    CHECK(pair(3, 0, 0, 1, 0, 0, 1) == INFINITY);
    CHECK(pair(3, 2, -1, 0.5, 0.1, 0.2, 1) == INFINITY); /* dr.dv > 0 */
    CHECK(pair(3, 0, 0, 0, 0, 0, 1) == INFINITY);        /* dv = 0 */
    CHECK(pair(3, 0, 0, 0, 1, 0, 1) == INFINITY);        /* perpendicular, never nearer */
    CHECK(pair(3, 2, 0, -1, -3, 0, 1) == INFINITY);      /* approaching, misses */
    CHECK(pair(0.5, 0, 0, 0, 0, 0, 1) == INFINITY);      /* overlapping, still */
}

static void test_pair_overlapping(void)
{
    CHECK(pair(0.5, 0, 0, -1, 0, 0, 1) == 0.0);
    CHECK(pair(0.3, -0.4, 0.2, -1, 2, 0, 1) == 0.0);
    CHECK(pair(0.5, 0, 0, 1, 0, 0, 1) == INFINITY);
    CHECK(pair(0.3, -0.4, 0.2, 1, -2, 0, 1) == INFINITY);
    CHECK(pair(nextafter(1.0, 0.0), 0, 0, -1e-3, 0, 0, 1) == 0.0); /* by round-off */
}

/* z = 0 throughout. pair(0,5,0 | 0.3,-2,0 | 1): (0.3 t)^2 + (5 - 2 t)^2 = 1, so
 * 4.09 t^2 - 20 t + 24 = 0 and t = (10 - sqrt(100 - 4.09 * 24)) / 4.09. */
static void test_pair_2d(void)
{
    CHECK_NEAR(pair(3, 4, 0, -3, -4, 0, 1), 0.8, 1e-15); /* |dr| 5, speed 5 */
    CHECK_NEAR(pair(4, 1, 0, -1, 0, 0, 2), 4.0 - sqrt(3.0), 1e-14);
    CHECK_NEAR(pair(0, 5, 0, 0.3, -2, 0, 1),
               (10.0 - sqrt(100.0 - 4.09 * 24.0)) / 4.09, 1e-13);
    CHECK(pair(4, 0, 0, -1, -1, 0, 1) == INFINITY); /* closest approach 2*sqrt(2) */
    CHECK(pair(1, 0, 0, 0, 1, 0, 1) == INFINITY);
    CHECK(pair(1, 0, 0, -1, 1, 0, 1) == 0.0);
}

/* ---- predict_pair: near contact, where the stable root matters ---- */

static double naive_root(const double dr[3], const double dv[3], double sigma)
{
    double b = dr[0] * dv[0] + dr[1] * dv[1] + dr[2] * dv[2];
    double c = dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2] - sigma * sigma;
    double a = dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2];
    return (-b - sqrt(b * b - a * c)) / a;
}

/* Head-on at gap r - sigma = sigma * gap. sigma is a power of two, so r - sigma
 * is exact (Sterbenz) and r^2 - sigma^2 loses only a term of order gap^2: the
 * answer (r - sigma) / speed is known to full precision. */
static void test_pair_near_contact_head_on(void)
{
    const double sigmas[] = {1.0, 0.5, 2.0, 0.25, 1024.0};
    const double gaps[] = {1e-12, 1e-9, 1e-15, 1e-6};
    const double speeds[] = {1.0, 3.0, 0.75};
    double worst_naive = 0.0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 3; k++) {
                double sigma = sigmas[i], speed = speeds[k];
                double r = sigma * (1.0 + gaps[j]);
                double expected = (r - sigma) / speed;
                double dr[3] = {r, 0, 0}, dv[3] = {-speed, 0, 0};
                double t = predict_pair(dr, dv, sigma);
                CHECK_MSG(fabs(t - expected) <= 1e-6 * expected,
                          "sigma %g gap %g speed %g: t %.17g, expected %.17g", sigma, gaps[j],
                          speed, t, expected);
                double naive = fabs(naive_root(dr, dv, sigma) - expected) / expected;
                if (naive > worst_naive) worst_naive = naive;
            }
    printf("      (contrast: the textbook root is off by up to %.1e relative here)\n",
           worst_naive);
}

/* Contact along (3, 4, 0)/5 at sigma = 5 with dr = (3 s, 4 s, 0), s = 1 + m 2^-52
 * (m a multiple of 16 keeps 3 s, 4 s and the squares exact): t = s - 1 at speed 5. */
static void test_pair_near_contact_oblique_axes(void)
{
    const int64_t ms[] = {16, 4496, 160000, 1 << 20};
    for (int i = 0; i < 4; i++) {
        double s = 1.0 + (double)ms[i] * 0x1.0p-52;
        double t = pair(3 * s, 4 * s, 0, -3, -4, 0, 5);
        double expected = s - 1.0;
        CHECK_MSG(fabs(t - expected) <= 1e-9 * expected, "m %lld: t %.17g expected %.17g",
                  (long long)ms[i], t, expected);
    }
}

/* A random configuration on a dyadic grid: dr = k 2^-20, sigma = m 2^-20,
 * dv = j 2^-6, chosen so that |k|^2 - m^2 is tiny. Every product is exact in
 * double, so c = |dr|^2 - sigma^2 is known exactly from int64 arithmetic. */
typedef struct grid_case {
    int64_t k[3], j[3], m;
} grid_case;

static int make_grid_case(grid_case *g)
{
    g->m = uniform_int(1 << 22, (1 << 23) - 1);
    g->k[0] = uniform_int(-g->m / 2, g->m / 2);
    g->k[1] = uniform_int(-g->m / 2, g->m / 2);
    int64_t rest = g->m * g->m - g->k[0] * g->k[0] - g->k[1] * g->k[1];
    int64_t z = (int64_t)sqrt((double)rest);
    while (z * z < rest) z++;
    while (z > 0 && (z - 1) * (z - 1) >= rest) z--;
    g->k[2] = next_u64() & 1 ? z : -z;
    int64_t speed = uniform_int(8, 64), b = 0;
    for (int a = 0; a < 3; a++) {
        g->j[a] = -(g->k[a] * speed) / g->m + uniform_int(-3, 3);
        b += g->k[a] * g->j[a];
    }
    return b < 0;
}

/* The reference evaluates the stable root in a different arrangement:
 * t = c / (2 |b|) * 2 / (1 + sqrt(1 - a c / b^2)), from exact a, b, c. */
static double grid_reference(const grid_case *g)
{
    int64_t c = -g->m * g->m, b = 0, a = 0;
    for (int x = 0; x < 3; x++) {
        c += g->k[x] * g->k[x];
        b += g->k[x] * g->j[x];
        a += g->j[x] * g->j[x];
    }
    double cd = ldexp((double)c, -40), bd = ldexp((double)b, -26), ad = ldexp((double)a, -12);
    if (c == 0) return 0.0;
    double q = ad * cd / (bd * bd);
    return cd / (-2.0 * bd) * 2.0 / (1.0 + sqrt(1.0 - q));
}

static void test_pair_near_contact_dyadic(void)
{
    int tried = 0, failures = 0;
    while (tried < 20000) {
        grid_case g;
        if (!make_grid_case(&g)) continue;
        tried++;
        double dr[3], dv[3];
        for (int a = 0; a < 3; a++) {
            dr[a] = ldexp((double)g.k[a], -20);
            dv[a] = ldexp((double)g.j[a], -6);
        }
        double t = predict_pair(dr, dv, ldexp((double)g.m, -20));
        double expected = grid_reference(&g);
        int ok = t >= 0.0 && fabs(t - expected) <= 1e-13 * expected;
        if (!ok && failures++ < 5)
            CHECK_MSG(ok, "m %lld k (%lld %lld %lld): t %.17g expected %.17g", (long long)g.m,
                      (long long)g.k[0], (long long)g.k[1], (long long)g.k[2], t, expected);
    }
    CHECK_EQ_INT(failures, 0);
}

/* ---- predict_pair: invariances ---- */

static void random_vector(double v[3], double scale)
{
    for (int a = 0; a < 3; a++) v[a] = uniform(-scale, scale);
}

/* All lengths times k: time times k. Bitwise for powers of two. */
static void test_pair_scale_invariance(void)
{
    const double powers[] = {2.0, 0.5, 1024.0, 0x1.0p-30};
    for (int trial = 0; trial < 5000; trial++) {
        double dr[3], dv[3], sigma = uniform(0.1, 2.0);
        random_vector(dr, 3.0);
        random_vector(dv, 2.0);
        double t = predict_pair(dr, dv, sigma);
        double k = powers[trial % 4], drk[3] = {dr[0] * k, dr[1] * k, dr[2] * k};
        double tk = predict_pair(drk, dv, sigma * k);
        CHECK_MSG(same_bits(tk, t * k), "k %g: %.17g vs %.17g", k, tk, t * k);
    }
    const double factors[] = {3.7, 0.013, 77.0};
    for (int i = 0; i < 3; i++) {
        double k = factors[i];
        CHECK_NEAR(pair(3 * k, 0, 0, -1, 0, 0, k), 2.0 * k, 1e-14 * k);
        CHECK_NEAR(pair(5 * k, 0.6 * k, 0, -2, 0, 0, k), 2.1 * k, 1e-13 * k);
        CHECK(pair(3 * k, 1.5 * k, 0, -1, 0, 0, k) == INFINITY);
        CHECK(pair(0.5 * k, 0, 0, -1, 0, 0, k) == 0.0);
    }
}

static void test_pair_symmetry(void)
{
    int failures = 0;
    for (int trial = 0; trial < 100000; trial++) {
        double dr[3], dv[3], sigma = uniform(0.1, 2.0);
        random_vector(dr, trial % 2 ? 3.0 : 1.2);
        random_vector(dv, 2.0);
        double minus_dr[3] = {-dr[0], -dr[1], -dr[2]}, minus_dv[3] = {-dv[0], -dv[1], -dv[2]};
        double t = predict_pair(dr, dv, sigma), u = predict_pair(minus_dr, minus_dv, sigma);
        int ok = !isnan(t) && same_bits(t, u);
        if (!ok && failures++ < 5) CHECK_MSG(ok, "%.17g vs %.17g", t, u);
    }
    CHECK_EQ_INT(failures, 0);
}

/* ---- the scans' screens: never a contact before the horizon rejected ---- */

/* A pair and a horizon, of three kinds: any; one that puts the linear bound
 * c / (-2 b) within a few units in the last place of the rejection threshold
 * horizon (1 + 1e-9), where the two screens round differently; and a pair a
 * hair from contact (c tiny, so its time is nearly c / (-2 b)) with the
 * horizon a few units in the last place after its contact, which a screen
 * with too thin a margin would lose. */
static double screen_case(double dr[3], double dv[3], double *sigma)
{
    *sigma = uniform(0.5, 1.5);
    random_vector(dr, 2.0);
    random_vector(dv, 2.0);
    int kind = (int)(next_u64() % 3);
    if (kind == 2) {
        double norm = sqrt(dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2]);
        double gap = *sigma * pow(10.0, -uniform(4.0, 12.0));
        for (int k = 0; k < 3; k++) dr[k] *= (*sigma + gap) / norm;
        double t = predict_pair_before(dr, dv, *sigma, INFINITY);
        if (t > 0.0 && t < INFINITY) return t * (1.0 + (double)uniform_int(0, 8) * EPS);
    }
    double b = dr[0] * dv[0] + dr[1] * dv[1] + dr[2] * dv[2];
    double c = dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2] - *sigma * *sigma;
    if (kind == 0 || !(b < 0.0 && c > 0.0)) return uniform(0.0, 4.0);
    double edge = c / (-2.0 * b) / (1.0 + 1e-9);
    return edge * (1.0 + (double)uniform_int(-8, 8) * EPS);
}

static void test_screens_keep_every_contact(void)
{
    int bad_plain = 0, bad_scaled = 0, scaled_only = 0;
    for (int trial = 0; trial < 400000; trial++) {
        double dr[3], dv[3], sigma, horizon = screen_case(dr, dv, &sigma);
        double t = predict_pair_before(dr, dv, sigma, horizon);
        int plain = predict_pair_may_meet(dr, dv, sigma, horizon);
        int scaled = predict_pair_may_meet_scaled(dr, dv, sigma, predict_rejection_scale(horizon));
        /* the plain screen is predict_pair_before's own early rejections */
        if (!plain && t != INFINITY && bad_plain++ < 5) CHECK_MSG(0, "plain screen rejects t = %.17g", t);
        /* the scaled one may differ only for pairs that meet after the horizon */
        if (!scaled && t <= horizon && bad_scaled++ < 5)
            CHECK_MSG(0, "scaled screen rejects t = %.17g <= horizon %.17g", t, horizon);
        scaled_only += scaled != plain;
    }
    CHECK_EQ_INT(bad_plain, 0);
    CHECK_EQ_INT(bad_scaled, 0);
    CHECK_MSG(scaled_only > 0, "no case near the threshold: the test would not see a wrong scale");
}

/* ---- predict_crossing: closed forms ---- */

static void test_crossing_no_field(void)
{
    CHECK_NEAR(predict_crossing(-3.0, 1.5, 0.0), 2.0, 1e-15);
    CHECK_NEAR(predict_crossing(-1e-3, 4.0, 0.0), 2.5e-4, 1e-18);
    CHECK(predict_crossing(-3.0, 0.0, 0.0) == INFINITY);
    CHECK(predict_crossing(-3.0, -1.0, 0.0) == INFINITY);
    CHECK(predict_crossing(0.0, 2.0, 0.0) == 0.0);
    CHECK(predict_crossing(0.0, -2.0, 0.0) == INFINITY);
    CHECK(predict_crossing(0.0, 0.0, 0.0) == INFINITY);
}

/* g > 0 pulls towards the level: it is always reached. */
static void test_crossing_pulled_up(void)
{
    /* s^2 - s - 1 = 0 (coming back up after moving away): larger root. */
    CHECK_NEAR(predict_crossing(-1.0, -1.0, 2.0), (1.0 + sqrt(5.0)) / 2.0, 1e-15);
    /* s^2 + s - 1 = 0 (moving towards): the positive root. */
    CHECK_NEAR(predict_crossing(-1.0, 1.0, 2.0), (sqrt(5.0) - 1.0) / 2.0, 1e-15);
    CHECK_NEAR(predict_crossing(-2.0, 0.0, 1.0), 2.0, 1e-15); /* s^2/2 = 2 */
    /* tiny pull, moving away fast: s^2 * 1e-4 / 2 - 100 s - 1 = 0 */
    double expected = (100.0 + sqrt(1e4 + 2e-4)) / 1e-4;
    CHECK_NEAR(predict_crossing(-1.0, -100.0, 1e-4), expected, 1e-12 * expected);
}

/* g < 0 pulls away: reached only if v is large enough; the first root. */
static void test_crossing_pulled_down(void)
{
    /* -s^2 + 3 s - 1 = 0: s = (3 - sqrt 5) / 2, not the later (3 + sqrt 5) / 2. */
    CHECK_NEAR(predict_crossing(-1.0, 3.0, -2.0), (3.0 - sqrt(5.0)) / 2.0, 1e-15);
    CHECK(predict_crossing(-3.0, 2.0, -1.0) == INFINITY); /* peaks at -1 */
    CHECK(predict_crossing(-1.0, -1.0, -1.0) == INFINITY);
    CHECK(predict_crossing(-1.0, 0.0, -1.0) == INFINITY);
    CHECK_NEAR(predict_crossing(-2.0, 2.0, -1.0), 2.0, 1e-15); /* peaks exactly at 0 */
    /* a tiny distance: the root is -c/v to first order; no cancellation allowed */
    double expected = 2e-20 / (1.0 + sqrt(1.0 - 2e-23));
    CHECK_NEAR(predict_crossing(-1e-20, 1.0, -1e-3), expected, 1e-12 * expected);
}

static void test_crossing_at_level(void)
{
    CHECK(predict_crossing(0.0, 1.0, -5.0) == 0.0);
    CHECK(predict_crossing(0.0, 1.0, 5.0) == 0.0);
    CHECK_NEAR(predict_crossing(0.0, -1.5, 3.0), 1.0, 1e-15); /* -2 v / g */
    CHECK_NEAR(predict_crossing(0.0, -0.25, 8.0), 0.0625, 1e-17);
    CHECK(predict_crossing(0.0, -1.0, -1.0) == INFINITY);
    CHECK(predict_crossing(0.0, -1.0, 0.0) == INFINITY);
}

/* c > 0 by round-off: treated exactly as c = 0. */
static void test_crossing_past_level(void)
{
    CHECK(predict_crossing(1e-15, 1.0, 0.0) == 0.0);
    CHECK(predict_crossing(1e-15, 1.0, -3.0) == 0.0);
    CHECK_NEAR(predict_crossing(1e-15, -2.0, 4.0), 1.0, 1e-15);
    CHECK(predict_crossing(1e-15, -1.0, 0.0) == INFINITY);
    CHECK(predict_crossing(1e-15, -1.0, -2.0) == INFINITY);
}

/* ---- predict_crossing: random property test ---- */

static double f_at(double c, double v, double g, double s)
{
    return 0.5 * g * s * s + v * s + c;
}

static double f_scale(double c, double v, double g, double s)
{
    return fabs(c) + fabs(v) * s + 0.5 * fabs(g) * s * s;
}

static double random_magnitude(double lo_exp, double hi_exp)
{
    return pow(10.0, uniform(lo_exp, hi_exp));
}

static double random_signed(double zero_chance)
{
    if (uniform(0, 1) < zero_chance) return 0.0;
    return (next_u64() & 1 ? 1.0 : -1.0) * random_magnitude(-4, 3);
}

/* INFINITY is right only if f never reaches zero: no pull up, and either
 * moving away or turning back below the level. */
static int never_reaches(double c, double v, double g)
{
    if (g > 0.0) return 0;
    if (v <= 0.0) return 1;
    if (g == 0.0) return 0;
    double peak = c + v * v / (2.0 * -g);
    return peak <= 1e-12 * (fabs(c) + v * v / (2.0 * -g));
}

static int first_crossing_ok(double c, double v, double g, double s)
{
    double tol = 16.0 * EPS * f_scale(c, v, g, s);
    if (!(s >= 0.0) || fabs(f_at(c, v, g, s)) > tol) return 0;
    if (g * s + v < -1e-6 * (fabs(v) + fabs(g) * s)) return 0;
    for (int i = 0; i < 400; i++) {
        double early = s * i / 400.0;
        if (f_at(c, v, g, early) > 16.0 * EPS * f_scale(c, v, g, early)) return 0;
    }
    return 1;
}

static void test_crossing_random(void)
{
    int failures = 0, finite = 0;
    for (int trial = 0; trial < 200000; trial++) {
        double c = uniform(0, 1) < 0.1 ? 0.0 : -random_magnitude(-8, 3);
        double v = random_signed(0.1), g = random_signed(0.2);
        double s = predict_crossing(c, v, g);
        int ok = s == INFINITY ? never_reaches(c, v, g) : first_crossing_ok(c, v, g, s);
        finite += s != INFINITY;
        if (!ok && failures++ < 5)
            CHECK_MSG(ok, "c %.17g v %.17g g %.17g: s = %.17g", c, v, g, s);
    }
    CHECK_EQ_INT(failures, 0);
    CHECK(finite > 50000 && finite < 190000); /* both outcomes exercised */
}

int main(void)
{
    RUN(test_pair_head_on);
    RUN(test_pair_oblique);
    RUN(test_pair_grazing_near);
    RUN(test_pair_grazing_exact);
    RUN(test_pair_tangent);
    RUN(test_pair_receding_and_parallel);
    RUN(test_pair_overlapping);
    RUN(test_pair_2d);
    RUN(test_pair_near_contact_head_on);
    RUN(test_pair_near_contact_oblique_axes);
    RUN(test_pair_near_contact_dyadic);
    RUN(test_pair_scale_invariance);
    RUN(test_pair_symmetry);
    RUN(test_screens_keep_every_contact);
    RUN(test_crossing_no_field);
    RUN(test_crossing_pulled_up);
    RUN(test_crossing_pulled_down);
    RUN(test_crossing_at_level);
    RUN(test_crossing_past_level);
    RUN(test_crossing_random);
    return CHECK_SUMMARY();
}
