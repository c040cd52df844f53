/* quartic.c — carom_bench_quartic: the cost and the accuracy of the quartic
 * contact kernel predict_pair_accelerated (src/predict.c) on pairs as an
 * air-hockey table makes them (issue 12): the table of the robot-learning
 * Air Hockey Challenge (1.948 x 1.038 m, puck radius 0.03165 m, mallet
 * radius 0.04815 m), a puck up to 8 m/s and mallets up to 3 m/s driven by
 * accelerations up to 20 m/s^2, in 2D. Three kinds of pairs, a third each:
 *   aimed  - a mallet heading for the puck or the other mallet (mostly contacts),
 *   near   - the two within 0.3 m, moving at random (contacts and misses),
 *   table  - anywhere on the table (mostly far: rejected by the range bound);
 * and three kinds of horizon, a third each: a control window (20 ms), the
 * time of some other event (uniform in 20 ms .. 1 s), none (INFINITY).
 *
 * Cost: ns per call over 10^5 pairs, each chunk of 1024 calls timed 21
 * times and its best kept (clock_gettime CLOCK_THREAD_CPUTIME_ID), for the whole mix and for each outcome alone (contact
 * found, no contact after a root search, rejected by the bound); the
 * quadratic kernel predict_pair_before on the same pairs with da = 0 for
 * scale. Accuracy: every contact against the long-double reference of
 * tests/quartic_reference.h: the largest relative time error where the
 * pair approaches clearly (gap > tol until the contact, as in
 * tests/test_quartic.c), and the largest error over the bound stated in
 * predict.h. A program that prints figures; it never fails on a slow machine.
 *
 * Usage: carom_bench_quartic [pairs] [seed]
 */
#define _POSIX_C_SOURCE 200112L /* clock_gettime, CLOCK_THREAD_CPUTIME_ID */

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "carom.h"
#include "predict.h"
#include "quartic_reference.h"

#define PUCK_RADIUS 0.03165
#define MALLET_RADIUS 0.04815
#define TABLE_X 1.948
#define TABLE_Y 1.038
#define PUCK_SPEED 8.0
#define MALLET_SPEED 3.0
#define MALLET_ACCELERATION 20.0
#define WINDOW 0.02
#define PASSES 21
#define CHUNK 1024

typedef struct pair_case {
    double dr[3], dv[3], da[3], sigma, horizon;
} pair_case;

enum outcome { CONTACT, MISS, REJECTED, OUTCOMES };
static const char *const OUTCOME_NAMES[OUTCOMES] = {"contact", "no contact", "rejected"};

static double uniform(carom_rng *rng, double lo, double hi) { return lo + (hi - lo) * carom_rng_uniform(rng); }

static void random_planar(carom_rng *rng, double max_norm, double v[3])
{
    double angle = uniform(rng, 0.0, 6.283185307179586), norm = max_norm * sqrt(carom_rng_uniform(rng));
    v[0] = norm * cos(angle);
    v[1] = norm * sin(angle);
    v[2] = 0.0;
}

/* One pair: body b seen from body a. a is always a mallet (its own
 * acceleration); b is the puck (none) or the other mallet. */
static void make_pair(carom_rng *rng, int kind, pair_case *pc)
{
    int puck = carom_rng_uniform(rng) < 0.7;
    double ra = MALLET_RADIUS, rb = puck ? PUCK_RADIUS : MALLET_RADIUS;
    double xa[3] = {uniform(rng, ra, TABLE_X - ra), uniform(rng, ra, TABLE_Y - ra), 0.0}, xb[3], va[3], vb[3];
    double aa[3], ab[3] = {0.0, 0.0, 0.0};
    random_planar(rng, MALLET_SPEED, va);
    random_planar(rng, puck ? PUCK_SPEED : MALLET_SPEED, vb);
    random_planar(rng, MALLET_ACCELERATION, aa);
    if (!puck) random_planar(rng, MALLET_ACCELERATION, ab);
    if (kind == 2) {
        xb[0] = uniform(rng, rb, TABLE_X - rb);
        xb[1] = uniform(rng, rb, TABLE_Y - rb);
    } else {
        double d[3];
        random_planar(rng, 0.3, d);
        xb[0] = xa[0] + d[0];
        xb[1] = xa[1] + d[1];
    }
    xb[2] = 0.0;
    if (kind == 0) { /* a heads for b, pushed towards it */
        double dx = xb[0] - xa[0], dy = xb[1] - xa[1], n = sqrt(dx * dx + dy * dy) + 1e-300;
        double speed = uniform(rng, 0.2, MALLET_SPEED), push = uniform(rng, 0.0, MALLET_ACCELERATION);
        va[0] = speed * dx / n + uniform(rng, -0.3, 0.3);
        va[1] = speed * dy / n + uniform(rng, -0.3, 0.3);
        aa[0] = push * dx / n;
        aa[1] = push * dy / n;
    }
    for (int k = 0; k < 3; k++) {
        pc->dr[k] = xb[k] - xa[k];
        pc->dv[k] = vb[k] - va[k];
        pc->da[k] = ab[k] - aa[k];
    }
    pc->sigma = ra + rb;
    double which = carom_rng_uniform(rng);
    pc->horizon = which < 1.0 / 3 ? WINDOW : which < 2.0 / 3 ? uniform(rng, WINDOW, 1.0) : INFINITY;
}

/* Rejected by the range bound of predict.c (the triangle inequality), with its margin. */
static int rejected(const pair_case *pc)
{
    double r = sqrt(pc->dr[0] * pc->dr[0] + pc->dr[1] * pc->dr[1] + pc->dr[2] * pc->dr[2]);
    double v = sqrt(pc->dv[0] * pc->dv[0] + pc->dv[1] * pc->dv[1] + pc->dv[2] * pc->dv[2]);
    double a = sqrt(pc->da[0] * pc->da[0] + pc->da[1] * pc->da[1] + pc->da[2] * pc->da[2]);
    double H = pc->horizon, reach = v * H + 0.5 * a * H * H;
    return isfinite(H) && (r - pc->sigma) - reach > 1e-12 * (r + pc->sigma + reach);
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

/* ns per call over the pairs listed in index, each chunk of CHUNK pairs
 * timed PASSES times and its best kept: the host of this virtual machine
 * takes the processor away now and then (a pass can run four times slower),
 * and a quiet moment is longer than a chunk. *checksum keeps the calls alive. */
static double time_calls(const pair_case *cases, const int *index, long count, int quadratic, double *checksum)
{
    double total = 0.0;
    for (long first = 0; first < count; first += CHUNK) {
        long last = first + CHUNK < count ? first + CHUNK : count;
        double best = INFINITY;
        for (int pass = 0; pass < PASSES; pass++) {
            double start = now_ns(), sum = 0.0;
            for (long i = first; i < last; i++) {
                const pair_case *pc = &cases[index[i]];
                double s = quadratic ? predict_pair_before(pc->dr, pc->dv, pc->sigma, pc->horizon)
                                     : predict_pair_accelerated(pc->dr, pc->dv, pc->da, pc->sigma, pc->horizon);
                if (isfinite(s)) sum += s;
            }
            best = fmin(best, now_ns() - start);
            *checksum += sum;
        }
        total += best;
    }
    return total / (double)count;
}

static real norm_real(const real v[3]) { return sqrtl(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* The tolerance stated in predict.h (as tests/test_quartic.c has it). */
static real tolerance_at(const reference_motion *m, real s)
{
    real r = norm_real(m->dr), travel = norm_real(m->dv) * s + 0.5L * norm_real(m->da) * s * s;
    real tol = 4.0L * 0x1p-53L * (r + travel + m->sigma);
    if (r <= 1.9L * m->sigma && travel <= 1.9L * m->sigma)
        tol = fminl(tol, 8.0L * 0x1p-53L * (fabsl(m->c) / (2.0L * m->sigma) + travel));
    return tol;
}

typedef struct accuracy {
    long compared;
    double max_relative, max_over_bound;
} accuracy;

/* A contact compared with the reference where the pair approaches clearly. */
static void compare(const pair_case *pc, double s, accuracy *acc)
{
    reference_motion m = reference_motion_make(pc->dr, pc->dv, pc->da, pc->sigma);
    real H = pc->horizon;
    if (!isfinite(pc->horizon)) {
        real v = norm_real(m.dv), a = norm_real(m.da), r = norm_real(m.dr);
        H = 1.01L * (v + sqrtl(v * v + 2.0L * a * (r + m.sigma))) / a;
    }
    reference_result r = reference_contact(&m, H);
    if (!(r.contact > 0.0L && r.contact < H) || reference_gap(&m, 0.0L) <= tolerance_at(&m, 0.0L)) return;
    for (int k = 0; k < r.turns; k++)
        if (r.turn[k] < r.contact && reference_gap(&m, r.turn[k]) <= tolerance_at(&m, r.turn[k])) return;
    real error = fabsl((real)s - r.contact), rate = INFINITY;
    for (int k = 0; k <= 8; k++) rate = fminl(rate, fabsl(reference_gap_rate(&m, r.contact + ((real)s - r.contact) * k / 8)));
    real bound = tolerance_at(&m, r.contact) / rate + 4.0L * r.contact * DBL_EPSILON;
    acc->compared++;
    if ((double)(error / r.contact) > acc->max_relative) acc->max_relative = (double)(error / r.contact);
    if ((double)(error / bound) > acc->max_over_bound) acc->max_over_bound = (double)(error / bound);
}

int main(int argc, char **argv)
{
    long count = argc > 1 ? atol(argv[1]) : 100000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 12;
    if (count < 1 || count > 100000000) {
        fprintf(stderr, "carom_bench_quartic: pairs must be in 1..1e8, got %s\n", argv[1]);
        return 2;
    }
    pair_case *cases = malloc((size_t)count * sizeof *cases);
    int *all = malloc((size_t)count * sizeof *all), *by_outcome[OUTCOMES];
    long outcome_count[OUTCOMES] = {0};
    for (int o = 0; o < OUTCOMES; o++) by_outcome[o] = malloc((size_t)count * sizeof(int));
    if (!cases || !all || !by_outcome[0] || !by_outcome[1] || !by_outcome[2]) {
        fprintf(stderr, "carom_bench_quartic: out of memory for %ld pairs\n", count);
        return 1;
    }
    carom_rng rng = carom_rng_seed(seed);
    accuracy acc = {0, 0.0, 0.0};
    for (long i = 0; i < count; i++) {
        make_pair(&rng, (int)(i % 3), &cases[i]);
        all[i] = (int)i;
        double s = predict_pair_accelerated(cases[i].dr, cases[i].dv, cases[i].da, cases[i].sigma, cases[i].horizon);
        int o = isfinite(s) ? CONTACT : rejected(&cases[i]) ? REJECTED : MISS;
        by_outcome[o][outcome_count[o]++] = (int)i;
        if (o == CONTACT) compare(&cases[i], s, &acc);
    }
    double checksum = 0.0, best[OUTCOMES + 2];
    best[0] = time_calls(cases, all, count, 0, &checksum);
    for (int o = 0; o < OUTCOMES; o++) best[1 + o] = time_calls(cases, by_outcome[o], outcome_count[o], 0, &checksum);
    best[OUTCOMES + 1] = time_calls(cases, all, count, 1, &checksum);
    printf("carom_bench_quartic: %ld air-hockey pairs (seed %llu), ns per call (best of %d per chunk of %d)\n",
           count, (unsigned long long)seed, PASSES, CHUNK);
    printf("  %-22s %8.1f ns  (%ld pairs)\n", "quartic, whole mix", best[0], count);
    for (int o = 0; o < OUTCOMES; o++)
        if (outcome_count[o] > 0)
            printf("  %-22s %8.1f ns  (%ld pairs, %.1f%%)\n", OUTCOME_NAMES[o], best[1 + o], outcome_count[o],
                   100.0 * (double)outcome_count[o] / (double)count);
    printf("  %-22s %8.1f ns  (same pairs, da = 0)\n", "quadratic, whole mix", best[OUTCOMES + 1]);
    printf("accuracy against the long-double reference, %ld contacts approached clearly:\n", acc.compared);
    printf("  max relative time error %.2e, max error / stated bound %.3f\n", acc.max_relative, acc.max_over_bound);
    printf("(checksum %.6g)\n", checksum);
    for (int o = 0; o < OUTCOMES; o++) free(by_outcome[o]);
    free(all);
    free(cases);
    return 0;
}
