/* prefetch.h — software prefetching for large worlds.
 *
 * At 10^6 bodies nearly every record an event reads is a cache miss: events
 * come in time order, which is random order in space. What the next events
 * will read is often known an event or two ahead (the calendar's near
 * events, a bucket's list, the cells a renewing body will search), and asking
 * for it then overlaps the misses with the work before (bench/README.md,
 * "Where the time goes"). Below PREFETCH_FROM_BODIES bodies the hot data
 * sits in cache and prefetching only costs instructions. A prefetch never
 * changes a result.
 */
#ifndef CAROM_PREFETCH_H
#define CAROM_PREFETCH_H

enum { PREFETCH_FROM_BODIES = 1 << 16 };
/* From this many grid cells the prefetcher guesses a cell's stencil rather
 * than read the cell's index of it (run.c, prefetch_cell_heads). */
enum { PREFETCH_GUESS_FROM_CELLS = 1 << 20 };

/* GCC counts a function whose only effect is prefetching as const and drops
 * calls to it, so the prefetching helpers are always inlined. Compilers
 * without the builtin skip prefetching. */
#if defined(__GNUC__)
#define PREFETCH_HELPER static inline __attribute__((always_inline))
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH_HELPER static inline
#define PREFETCH(address) ((void)(address))
#endif

#endif
