/* memory.c — the core's allocations: through the embedder's allocator when
 * the world def names one (the idea of Lua's lua_Alloc and Box2D's
 * b2SetAllocator: the library never calls malloc behind the caller's back),
 * else through the C library, with huge pages for the large arrays.
 *
 * Huge pages: at 10^6 bodies the hot data is several times the last-level
 * cache, and nearly every event reads records at random places in it. With
 * 4 KiB pages each of those reads also misses the TLB (a page walk before
 * the load can even start); with 2 MiB pages the TLB covers the whole
 * working set. On Linux, transparent huge pages in "madvise" mode back only
 * the ranges that ask for them, so every block of a few MiB or more asks
 * (madvise MADV_HUGEPAGE); the kernel then uses a huge page for each aligned
 * 2 MiB inside it. The advice covers every page of the block, not just its
 * aligned interior: a block split into several mappings could no longer be
 * grown by remapping, and realloc would copy it instead, with both copies
 * resident at once. It is advice: where it is refused or unavailable nothing
 * changes but the speed. A caller's allocator owns its pages: no advice.
 *
 * Large blocks are mapped directly (mmap, grown by mremap), not taken from
 * the C library's heap. glibc maps a large request itself only below a
 * threshold that rises (up to 32 MiB) each time such a block is freed;
 * above it the blocks of a growing world come from the heap, where the old
 * copies left by growth and the calendar's block leave holes that stay
 * resident: about 3 bytes a body at 10^6 bodies (bench/README.md, "Memory
 * a body"). Whether a block is mapped follows from its size alone, which
 * every caller gives back on release and growth (as the allocator
 * interface asks), so no header is needed.
 *
 * Growing several arrays all or none (memory_grow_together) is what makes a
 * failed call leave the world as it was: if the fifth of seven arrays cannot
 * grow, the first four are shrunk back, so each array's size stays the one
 * its owner records (a caller's allocator is told the size on release).
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* madvise, mremap */
#endif
#include "memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

enum { ADVISE_FROM_BYTES = 8 << 20, CACHE_LINE = 64, MAP_FROM_BYTES = 1 << 20 };

/* Under AddressSanitizer every block comes from the C library, whose
 * blocks it guards (it does not watch the bounds of a mapping). */
#if defined(__SANITIZE_ADDRESS__)
#define CAROM_MAPS_BLOCKS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CAROM_MAPS_BLOCKS 0
#endif
#endif
#if !defined(CAROM_MAPS_BLOCKS) && defined(__linux__) && defined(MREMAP_MAYMOVE)
#define CAROM_MAPS_BLOCKS 1
#endif
#if !defined(CAROM_MAPS_BLOCKS)
#define CAROM_MAPS_BLOCKS 0
#endif

int memory_maps_large_blocks(void) { return CAROM_MAPS_BLOCKS; }

#if CAROM_MAPS_BLOCKS
static int mapped(size_t bytes) { return bytes >= MAP_FROM_BYTES; }

static size_t whole_pages(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (bytes + page - 1) / page * page;
}

static void *map_block(size_t bytes)
{
    void *block = mmap(NULL, whole_pages(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return block == MAP_FAILED ? NULL : block;
}

static void *remap_block(void *block, size_t old_bytes, size_t new_bytes)
{
    void *moved = mremap(block, whole_pages(old_bytes), whole_pages(new_bytes), MREMAP_MAYMOVE);
    return moved == MAP_FAILED ? NULL : moved;
}

static void unmap_block(void *block, size_t bytes) { (void)munmap(block, whole_pages(bytes)); }
#else
static int mapped(size_t bytes) { (void)bytes; return 0; }
static void *map_block(size_t bytes) { (void)bytes; return NULL; }
static void *remap_block(void *block, size_t old_bytes, size_t new_bytes)
{
    (void)block, (void)old_bytes, (void)new_bytes;
    return NULL;
}
static void unmap_block(void *block, size_t bytes) { (void)block, (void)bytes; }
#endif

/* The C library's side (sizes at least 1): small blocks from its heap,
 * large ones mapped; a block that crosses the line is copied over. */
static void *library_grow(void *block, size_t old_bytes, size_t new_bytes)
{
    if (!block) return mapped(new_bytes) ? map_block(new_bytes) : malloc(new_bytes);
    if (mapped(old_bytes) && mapped(new_bytes)) return remap_block(block, old_bytes, new_bytes);
    if (!mapped(old_bytes) && !mapped(new_bytes)) return realloc(block, new_bytes);
    void *moved = mapped(new_bytes) ? map_block(new_bytes) : malloc(new_bytes);
    if (!moved) return NULL;
    memcpy(moved, block, old_bytes < new_bytes ? old_bytes : new_bytes);
    if (mapped(old_bytes)) unmap_block(block, old_bytes);
    else free(block);
    return moved;
}

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

static int custom(const carom_allocator *allocator) { return allocator && allocator->allocate; }

static size_t at_least_one(size_t bytes) { return bytes > 0 ? bytes : 1; }

size_t memory_bytes(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) return SIZE_MAX;
    return count * size;
}

void *memory_alloc(const carom_allocator *allocator, size_t bytes)
{
    return memory_grow(allocator, NULL, 0, bytes);
}

void *memory_alloc_zeroed(const carom_allocator *allocator, size_t count, size_t size)
{
    size_t bytes = memory_bytes(count, size);
    void *block = memory_alloc(allocator, bytes);
    if (block) memset(block, 0, bytes);
    return block;
}

/* A caller's allocator without reallocate: a new block, the contents, the old one released. */
static void *move_block(const carom_allocator *allocator, void *block, size_t old_bytes, size_t new_bytes)
{
    void *moved = allocator->allocate(allocator->user, new_bytes);
    if (!moved) return NULL;
    memcpy(moved, block, old_bytes < new_bytes ? old_bytes : new_bytes);
    allocator->release(allocator->user, block, old_bytes);
    return moved;
}

void *memory_grow(const carom_allocator *allocator, void *block, size_t old_bytes, size_t new_bytes)
{
    if (new_bytes == SIZE_MAX) return NULL; /* a size that overflowed */
    new_bytes = at_least_one(new_bytes);
    if (custom(allocator)) {
        if (!block) return allocator->allocate(allocator->user, new_bytes);
        old_bytes = at_least_one(old_bytes);
        if (allocator->reallocate) return allocator->reallocate(allocator->user, block, old_bytes, new_bytes);
        return move_block(allocator, block, old_bytes, new_bytes);
    }
    void *grown = library_grow(block, block ? at_least_one(old_bytes) : 0, new_bytes);
    if (grown) advise_huge_pages(grown, new_bytes);
    return grown;
}

void memory_free(const carom_allocator *allocator, void *block, size_t bytes)
{
    if (!block) return;
    if (custom(allocator)) allocator->release(allocator->user, block, at_least_one(bytes));
    else if (mapped(at_least_one(bytes))) unmap_block(block, at_least_one(bytes));
    else free(block);
}

void *memory_alloc_lines(const carom_allocator *allocator, size_t bytes)
{
    if (custom(allocator)) return memory_alloc(allocator, bytes);
    if (bytes != SIZE_MAX && mapped(at_least_one(bytes))) return map_block(bytes); /* on a page */
    size_t rounded = (at_least_one(bytes) + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
    if (rounded < bytes) return NULL;
    return aligned_alloc(CACHE_LINE, rounded);
}

void *memory_grow_lines(const carom_allocator *allocator, void *block, size_t old_bytes, size_t new_bytes)
{
    if (custom(allocator) || new_bytes == SIZE_MAX) return memory_grow(allocator, block, old_bytes, new_bytes);
    if (block && mapped(at_least_one(old_bytes)) && mapped(at_least_one(new_bytes)))
        return memory_grow(allocator, block, old_bytes, new_bytes); /* pages stay on lines */
    void *moved = memory_alloc_lines(allocator, new_bytes);
    if (!moved) return NULL; /* the old block is untouched */
    advise_huge_pages(moved, new_bytes);
    if (block) {
        memcpy(moved, block, old_bytes < new_bytes ? old_bytes : new_bytes);
        memory_free(allocator, block, old_bytes);
    }
    return moved;
}

static void *grow_array(const carom_allocator *allocator, const memory_array *array, size_t from, size_t to)
{
    return array->lines ? memory_grow_lines(allocator, *array->block, from, to)
                        : memory_grow(allocator, *array->block, from, to);
}

/* Back to its old size; a shrink that the C library refuses leaves the
 * larger block, which free() releases all the same. */
static void shrink_one(const carom_allocator *allocator, memory_array *array)
{
    if (array->old_bytes == 0) {
        memory_free(allocator, *array->block, array->new_bytes);
        *array->block = NULL;
        return;
    }
    void *shrunk = grow_array(allocator, array, array->new_bytes, array->old_bytes);
    if (shrunk) *array->block = shrunk;
}

void memory_shrink_back(const carom_allocator *allocator, memory_array *arrays, int count)
{
    for (int k = count - 1; k >= 0; k--) shrink_one(allocator, &arrays[k]);
}

int memory_grow_together(const carom_allocator *allocator, memory_array *arrays, int count)
{
    for (int k = 0; k < count; k++) {
        void *grown = grow_array(allocator, &arrays[k], arrays[k].old_bytes, arrays[k].new_bytes);
        if (!grown) {
            memory_shrink_back(allocator, arrays, k);
            return -1;
        }
        *arrays[k].block = grown;
    }
    return 0;
}
