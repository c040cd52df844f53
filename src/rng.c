/* rng.c — xoshiro256** seeded through splitmix64 (Blackman & Vigna,
 * "Scrambled linear pseudorandom number generators", ACM TOMS 2021): fast,
 * small state, and the same sequence on every platform for a given seed. */
#include <math.h>

#include "carom.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rotate_left(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

carom_rng carom_rng_seed(uint64_t seed)
{
    carom_rng rng;
    for (int k = 0; k < 4; k++) rng.s[k] = splitmix64(&seed);
    return rng;
}

uint64_t carom_rng_next(carom_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotate_left(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotate_left(s[3], 45);
    return result;
}

double carom_rng_uniform(carom_rng *rng) { return (double)(carom_rng_next(rng) >> 11) * 0x1.0p-53; }

double carom_rng_normal(carom_rng *rng)
{
    /* Marsaglia's polar method; the second variate is dropped to keep no state. */
    for (;;) {
        double u = 2.0 * carom_rng_uniform(rng) - 1.0;
        double v = 2.0 * carom_rng_uniform(rng) - 1.0;
        double s = u * u + v * v;
        if (s > 0.0 && s < 1.0) return u * sqrt(-2.0 * log(s) / s);
    }
}
