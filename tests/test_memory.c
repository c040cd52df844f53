/* test_memory.c — unit tests of the large-array allocator (src/memory.c).
 *
 * memory_grow must behave as realloc: the contents survive every growth and
 * shrink, small and large, across the size from which blocks are mapped
 * directly; a block from memory_alloc_lines starts on a cache line at every
 * size; and a large block, once freed, is gone from the address space
 * (mapped blocks leave no hole in the C library's heap). On Linux with transparent huge pages, a large block must
 * also carry the huge-page advice ("hg" in its mapping's VmFlags in
 * /proc/self/smaps), and the whole block must lie in one mapping: advice on
 * only part of it splits the mapping, and then realloc can no longer grow it
 * by remapping and copies it (both copies resident at once), which this test
 * catches through the mapping's bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "memory.h"

static uint32_t pattern_at(size_t k) { return (uint32_t)(k * 2654435761u) ^ 0x5bd1e995u; }

static void fill(uint32_t *block, size_t from, size_t to)
{
    for (size_t k = from; k < to; k++) block[k] = pattern_at(k);
}

static size_t first_mismatch(const uint32_t *block, size_t count)
{
    for (size_t k = 0; k < count; k++)
        if (block[k] != pattern_at(k)) return k;
    return count;
}

/* Grows (or shrinks) a block through the sizes in steps (counts of 4 bytes),
 * by memory_grow or memory_grow_lines, checking the contents each time. */
static void walk_sizes(const size_t *steps, size_t count, int lines)
{
    uint32_t *block = NULL;
    size_t filled = 0;
    for (size_t s = 0; s < count; s++) {
        size_t from = filled * sizeof *block, to = steps[s] * sizeof *block;
        uint32_t *grown = lines ? memory_grow_lines(NULL, block, from, to) : memory_grow(NULL, block, from, to);
        CHECK(grown != NULL);
        if (!grown) break;
        block = grown;
        size_t kept = filled < steps[s] ? filled : steps[s];
        CHECK_EQ_INT((long long)first_mismatch(block, kept), (long long)kept);
        if (lines) CHECK_MSG((uintptr_t)block % 64 == 0, "%zu bytes: not on a cache line", to);
        fill(block, kept, steps[s]);
        filled = steps[s];
    }
    memory_free(NULL, block, filled * sizeof *block);
}

static void test_contents_survive_growth(void)
{
    const size_t steps[] = {1, 100, 5000, 1 << 18, 1 << 20, 3 << 20, 12 << 20, 20 << 20,
                            (1 << 18) - 1, 100, 3 << 20, 3, 1 << 18};
    for (int lines = 0; lines < 2; lines++) walk_sizes(steps, sizeof steps / sizeof steps[0], lines);
    for (size_t bytes = 1000; bytes < (8u << 20); bytes *= 3) {
        unsigned char *block = memory_alloc_lines(NULL, bytes);
        CHECK(block != NULL && (uintptr_t)block % 64 == 0);
        if (block) memset(block, 1, bytes);
        memory_free(NULL, block, bytes);
    }
}

#if defined(__linux__)
/* The mapping of /proc/self/smaps that contains address: its bounds and
 * whether its VmFlags include hg. Returns 0 if none was found. */
static int mapping_of(const void *address, uintptr_t *lo, uintptr_t *hi, int *huge)
{
    FILE *smaps = fopen("/proc/self/smaps", "r");
    if (!smaps) return 0;
    char line[512];
    int found = 0, inside = 0;
    uintptr_t a = (uintptr_t)address;
    while (!found && fgets(line, sizeof line, smaps)) {
        unsigned long long start, end;
        if (sscanf(line, "%llx-%llx ", &start, &end) == 2) {
            inside = a >= start && a < end;
            if (inside) *lo = (uintptr_t)start, *hi = (uintptr_t)end;
        } else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            *huge = strstr(line, " hg") != NULL;
            found = 1;
        }
    }
    fclose(smaps);
    return found;
}

static int huge_pages_available(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return 0;
    char line[128] = "";
    int available = fgets(line, sizeof line, f) != NULL && strstr(line, "[never]") == NULL;
    fclose(f);
    return available;
}

static void expect_one_advised_mapping(const uint32_t *block, size_t bytes, const char *when)
{
    uintptr_t lo = 0, hi = 0;
    int huge = 0;
    CHECK_MSG(mapping_of(block, &lo, &hi, &huge), "%s: no mapping holds the block", when);
    CHECK_MSG(lo <= (uintptr_t)block && (uintptr_t)block + bytes <= hi,
              "%s: the block [%p, +%zu) runs out of its mapping [%#llx, %#llx)", when, (const void *)block,
              bytes, (unsigned long long)lo, (unsigned long long)hi);
    if (huge_pages_available()) CHECK_MSG(huge, "%s: the block's mapping lacks the huge-page advice", when);
}

static void test_large_blocks_are_advised_whole(void)
{
    size_t count = 16 << 20; /* 64 MiB */
    uint32_t *block = memory_grow(NULL, NULL, 0, count * sizeof *block);
    CHECK(block != NULL);
    if (!block) return;
    fill(block, 0, count);
    expect_one_advised_mapping(block, count * sizeof *block, "first allocation");
    uint32_t *grown = memory_grow(NULL, block, count * sizeof *block, 2 * count * sizeof *block);
    CHECK(grown != NULL);
    if (!grown) {
        memory_free(NULL, block, count * sizeof *block);
        return;
    }
    CHECK_EQ_INT((long long)first_mismatch(grown, count), (long long)count);
    expect_one_advised_mapping(grown, 2 * count * sizeof *grown, "after growing");
    memory_free(NULL, grown, 2 * count * sizeof *grown);
    uintptr_t lo = 0, hi = 0;
    int huge = 0;
    if (memory_maps_large_blocks()) /* (AddressSanitizer keeps freed blocks a while) */
        CHECK_MSG(!mapping_of(grown, &lo, &hi, &huge), "a freed block of 128 MiB is still mapped: [%#llx, %#llx)",
                  (unsigned long long)lo, (unsigned long long)hi);
}
#endif

int main(void)
{
    RUN(test_contents_survive_growth);
#if defined(__linux__)
    RUN(test_large_blocks_are_advised_whole);
#endif
    return CHECK_SUMMARY();
}
