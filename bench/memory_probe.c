/* memory_probe.c — how fast can this machine bring random cache lines in?
 * (issue 16, point 3). A program that prints numbers, not a test.
 *
 * At 10^6 bodies nearly every record an event reads comes from memory, and
 * prefetching can overlap those reads, but only as many as the core can
 * keep in flight. This probe measures the two figures that bound the rate:
 * the latency of one line that depends on the one before (pointer chasing
 * through a random cycle), and the time a line when k independent chases run
 * side by side, for k = 1, 2, 4, ..., 32. Where that time stops falling, the
 * core's misses in flight are used up (Little's law: in flight = latency /
 * time a line). Multiplied by the cache misses a collision takes
 * (bench/misses.sh), it gives the least time a collision can spend on
 * memory, however well its reads are overlapped (bench/README.md, "The
 * plateau at 10^6"). The method is the usual one of memory-latency
 * benchmarks (McCalpin's STREAM measures bandwidth instead; lmbench's
 * lat_mem_rd chases one pointer).
 *
 * With the core's misses in flight used up (32 chases), each step may also
 * read a second line: the other half of its aligned 128-byte pair, or a line
 * elsewhere. Where the pair's other half costs nothing (the L2 fetches the
 * adjacent line, or the memory brings 128 bytes at once), a record of two
 * lines costs no more waits than one (bench/README.md, "A record of two
 * lines").
 *
 * It also reads whole blocks of 1 MiB, each at a random place, word by word:
 * what a region-by-region order would do at each visit (stream a region's
 * records, about 200 bytes a body, into the cache). The GB/s it prints is
 * what bench/regions.c's model takes as --stream.
 *
 * usage: carom_memory_probe [MiB]   (default 256: far beyond any cache)
 */
#define _GNU_SOURCE /* madvise, sysconf's _SC_PHYS_PAGES */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

enum { LINE_WORDS = 8, MAX_CHAINS = 32, STEPS = 4000000 };

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* xorshift64 (Marsaglia, J. Stat. Softw. 8 (2003)): a fixed seed, so every
 * run chases the same cycle. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* One random cycle through every line: line order[k] points to order[k + 1]. */
static void link_random_cycle(uint64_t *lines, uint64_t *order, size_t count)
{
    uint64_t state = 88172645463325252u;
    for (size_t k = 0; k < count; k++) order[k] = k;
    for (size_t k = count - 1; k > 0; k--) { /* Fisher-Yates */
        size_t pick = (size_t)(next_random(&state) % (k + 1));
        uint64_t swap = order[k];
        order[k] = order[pick];
        order[pick] = swap;
    }
    for (size_t k = 0; k < count; k++) lines[order[k] * LINE_WORDS] = order[(k + 1) % count];
}

/* What each step of a chase reads besides its line: nothing, the other line
 * of its aligned 128-byte pair, or a line at a scattered place. */
enum companion { ALONE, PAIRED, ELSEWHERE };

static size_t companion_line(size_t line, size_t count, enum companion with)
{
    if (with == PAIRED) return line ^ 1; /* count is even: a whole number of MiB */
    /* Fibonacci hashing, then a multiply-shift onto [0, count) (Lemire's
     * reduction): no division on the timed path. */
    uint64_t hashed = (uint64_t)line * 0x9E3779B97F4A7C15u >> 32;
    return (size_t)(hashed * count >> 32);
}

/* ns a step with `chains` chases at once, each starting a share of the cycle
 * apart, each step reading its line and `with`'s. */
static double time_a_line(const uint64_t *lines, const uint64_t *order, size_t count, int chains,
                          enum companion with, uint64_t *sink)
{
    uint64_t at[MAX_CHAINS], extra = 0;
    for (int c = 0; c < chains; c++) at[c] = order[(size_t)c * count / (size_t)chains];
    long steps = STEPS / chains;
    double start = seconds_now();
    for (long s = 0; s < steps; s++)
        for (int c = 0; c < chains; c++) {
            uint64_t line = at[c];
            at[c] = lines[line * LINE_WORDS];
            if (with != ALONE) extra += lines[companion_line(line, count, with) * LINE_WORDS + 1];
        }
    double elapsed = seconds_now() - start;
    for (int c = 0; c < chains; c++) *sink += at[c];
    *sink += extra;
    return elapsed * 1e9 / ((double)steps * chains);
}

/* GB/s reading blocks of `block` bytes, each at a random block-aligned place. */
static double stream_blocks(const uint64_t *lines, size_t bytes, size_t block, uint64_t *sink)
{
    size_t blocks = bytes / block, words = block / sizeof(uint64_t), reads = 0;
    uint64_t state = 2463534242u, sum = 0;
    double start = seconds_now();
    for (size_t k = 0; k < 512 && blocks > 0; k++) {
        const uint64_t *at = lines + (size_t)(next_random(&state) % blocks) * words;
        for (size_t w = 0; w < words; w++) sum += at[w];
        reads += block;
    }
    double elapsed = seconds_now() - start;
    *sink += sum;
    return elapsed > 0.0 ? (double)reads / elapsed * 1e-9 : 0.0;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    long mib = argc > 1 ? strtol(argv[1], &end, 10) : 256;
    if (argc > 2 || (argc > 1 && (end == argv[1] || *end != '\0')) || mib < 1 || mib > 65536) {
        fprintf(stderr, "usage: carom_memory_probe [MiB from 1 to 65536] (default 256)\n");
        return 2;
    }
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (double)mib * 1048576.0 > 0.5 * (double)pages * (double)page) {
        fprintf(stderr, "carom_memory_probe: %ld MiB is more than half of this machine's memory (%.0f MiB)\n", mib,
                (double)pages * (double)page / 1048576.0);
        return 2;
    }
    size_t bytes = (size_t)mib << 20, count = bytes / (LINE_WORDS * sizeof(uint64_t)), huge = (size_t)1 << 21;
    uint64_t *lines = aligned_alloc(huge, (bytes + huge - 1) / huge * huge), *order = malloc(count * sizeof *order);
    if (!lines || !order) {
        fprintf(stderr, "carom_memory_probe: cannot allocate %ld MiB\n", mib);
        return 1;
    }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void)madvise(lines, bytes, MADV_HUGEPAGE); /* as carom's large arrays: few TLB misses */
#endif
    memset(lines, 0, bytes);
    link_random_cycle(lines, order, count);
    uint64_t sink = 0;
    double latency = 0.0;
    printf("random lines in %ld MiB: chases side by side, ns a line, lines in flight (latency / ns a line)\n", mib);
    for (int chains = 1; chains <= MAX_CHAINS; chains *= 2) {
        double ns = time_a_line(lines, order, count, chains, ALONE, &sink);
        if (chains == 1) latency = ns;
        printf("  %2d chases: %6.1f ns a line, %5.1f in flight\n", chains, ns, latency / ns);
    }
    printf("%d chases, each step also reading a second line: ns a step\n", MAX_CHAINS);
    printf("  none: %5.1f   the other half of its 128-byte pair: %5.1f   a line elsewhere: %5.1f\n",
           time_a_line(lines, order, count, MAX_CHAINS, ALONE, &sink),
           time_a_line(lines, order, count, MAX_CHAINS, PAIRED, &sink),
           time_a_line(lines, order, count, MAX_CHAINS, ELSEWHERE, &sink));
    for (size_t block = (size_t)1 << 18; block <= ((size_t)1 << 22) && block <= bytes; block <<= 2)
        printf("blocks of %4zu KiB at random places, read in order: %5.1f GB/s\n", block >> 10,
               stream_blocks(lines, bytes, block, &sink));
    printf("(checksum %llu)\n", (unsigned long long)(sink & 0xff));
    free(order);
    free(lines);
    return 0;
}
