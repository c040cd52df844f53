/* memory.c — the engine's large arrays (per body and per cell) and huge pages.
 *
 * At 10^6 bodies the hot data is several times the last-level cache, and
 * nearly every event reads records at random places in it. With 4 KiB pages
 * each of those reads also misses the TLB (a page walk before the load can
 * even start); with 2 MiB pages the TLB covers the whole working set. On
 * Linux, transparent huge pages in "madvise" mode back only the ranges that
 * ask for them, so every block of a few MiB or more asks (madvise
 * MADV_HUGEPAGE); the kernel then uses a huge page for each aligned 2 MiB
 * inside it. The advice covers every page of the block, not just its aligned
 * interior: a block split into several mappings could no longer be grown by
 * remapping, and realloc would copy it instead, with both copies resident at
 * once. It is advice: where it is refused or unavailable nothing changes but
 * the speed.
 */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise */
#endif
#include "memory.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

enum { ADVISE_FROM_BYTES = 8 << 20 };

static void advise_huge_pages(void *block, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    long page = sysconf(_SC_PAGESIZE);
    if (bytes < ADVISE_FROM_BYTES || page <= 0) return;
    uintptr_t mask = (uintptr_t)page - 1;
    uintptr_t start = (uintptr_t)block & ~mask, end = ((uintptr_t)block + bytes + mask) & ~mask;
    (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)block;
    (void)bytes;
#endif
}

void *memory_grow(void *block, size_t bytes)
{
    void *grown = realloc(block, bytes > 0 ? bytes : 1);
    if (grown) advise_huge_pages(grown, bytes);
    return grown;
}
