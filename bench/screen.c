/* screen.c — carom_bench_screen: the cost of screening one neighbour row
 * (src/screen.c) in four lanes (AVX2) and in eight (AVX-512F), where this
 * processor has them, in ns a row, for rows of 4 to 32 entries as a scan at
 * the clock asks (nearest mode: the row's earliest pairs). The records are
 * random spheres near the screened one, 4,096 of them (256 KiB: the L2 of
 * most cores), and each row's entries random slots among them, some seen
 * through a periodic image. Each length is timed over chunks of 4,096 rows,
 * 15 times, and the best chunk kept (clock_gettime
 * CLOCK_THREAD_CPUTIME_ID). A program that prints figures; it never fails
 * on a slow machine.
 *
 * Usage: carom_bench_screen [seed]
 */
#define _POSIX_C_SOURCE 200112L /* clock_gettime, CLOCK_THREAD_CPUTIME_ID */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "carom.h"
#include "predict.h"
#include "screen.h"

enum { RECORDS = 4096, ROWS = 4096, REPEATS = 15 };

typedef uint32_t screen_fn(const body_hot *hot, const double (*shift4)[4], const int32_t *entries, int count,
                           const screen_body *a, double time[SCREEN_TIMES], int nearest);

static double thread_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The best ns a row of count entries over REPEATS chunks of ROWS rows;
 * *kept sums the masks, so that no call can be left out. */
static double ns_a_row(screen_fn *screen, const body_hot *hot, const double (*shift4)[4], const int32_t *entries,
                       int count, const screen_body *a, uint64_t *kept)
{
    double best = 1e300, time[SCREEN_TIMES];
    for (int r = 0; r < REPEATS; r++) {
        double start = thread_seconds();
        for (int row = 0; row < ROWS; row++) *kept += screen(hot, shift4, entries + row * SCREEN_MAX, count, a, time, 1);
        double ns = (thread_seconds() - start) / ROWS * 1e9;
        best = ns < best ? ns : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 42;
    int lanes = screen_supported(); /* eight lanes timed wherever they run, though worlds on Intel use four */
    if (lanes == 0) {
        printf("carom_bench_screen: this processor has no AVX2; the scans are scalar, and there is nothing to time\n");
        return 0;
    }
    carom_rng rng = carom_rng_seed(seed);
    body_hot *hot = malloc(RECORDS * sizeof *hot);
    int32_t *entries = malloc((size_t)ROWS * SCREEN_MAX * sizeof *entries);
    if (!hot || !entries) {
        fprintf(stderr, "carom_bench_screen: out of memory\n");
        return 1;
    }
    for (int j = 0; j < RECORDS; j++) {
        for (int k = 0; k < 3; k++) {
            hot[j].x[k] = 3.0 * carom_rng_uniform(&rng) - 1.5;
            hot[j].v[k] = carom_rng_normal(&rng);
        }
        hot[j].t = 0.1 * carom_rng_uniform(&rng);
        hot[j].radius = 0.5;
    }
    double shift4[27][4];
    for (int code = 0; code < 27; code++)
        for (int k = 0, c = code; k < 4; k++, c /= 3) shift4[code][k] = k < 3 ? (c % 3 - 1) * 20.0 : 0.0;
    for (int m = 0; m < ROWS * SCREEN_MAX; m++) { /* most neighbours are seen directly (image 13) */
        int32_t slot = (int32_t)(carom_rng_uniform(&rng) * RECORDS);
        int32_t code = carom_rng_uniform(&rng) < 0.9 ? 13 : (int32_t)(carom_rng_uniform(&rng) * 27);
        entries[m] = slot << NEIGHBOURS_IMAGE_BITS | code;
    }
    /* body i at the clock (t = 0.1), its horizon and best time so far 0.5 later */
    screen_body a = {{0.0, 0.0, 0.0}, {0.3, -0.2, 0.1}, 0.1, 0.5, 0.0, 0.6, 0.6};
    a.scale = predict_rejection_scale(0.5);
    uint64_t kept = 0;
    printf("carom_bench_screen: ns a row (nearest mode, records in cache), seed %llu; lanes this processor has: %d\n",
           (unsigned long long)seed, lanes);
    printf("entries   four lanes   eight lanes\n");
    for (int count = 4; count <= SCREEN_MAX; count += 2) {
        double four = ns_a_row(screen_row, hot, (const double(*)[4])shift4, entries, count, &a, &kept);
        if (lanes == 8) {
            double eight = ns_a_row(screen_row8, hot, (const double(*)[4])shift4, entries, count, &a, &kept);
            printf("%7d   %10.1f   %11.1f\n", count, four, eight);
        } else {
            printf("%7d   %10.1f   %11s\n", count, four, "-");
        }
    }
    printf("(the masks summed, so that no call is left out: %llu)\n", (unsigned long long)kept);
    free(hot);
    free(entries);
    return 0;
}
