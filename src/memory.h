/* memory.h — every allocation of the core goes through here: the caller's
 * allocator (carom_allocator in carom.h) or, when it is not set, the C
 * library for small blocks and the system's own mappings for large ones,
 * which also get the huge-page advice. */
#ifndef CAROM_MEMORY_H
#define CAROM_MEMORY_H

#include <stddef.h>

#include "carom.h"

/* allocator may be NULL (or have allocate == NULL): the C library. Sizes
 * are in bytes; a size of 0 is treated as 1 everywhere, so the size given
 * back on release is always the size the block was obtained with. */

/* A new uninitialised block, or NULL. */
void *memory_alloc(const carom_allocator *allocator, size_t bytes);
/* A new block of count elements of size bytes, all zero; NULL if out of
 * memory or if count * size does not fit in size_t. */
void *memory_alloc_zeroed(const carom_allocator *allocator, size_t count, size_t size);
/* Block (of old_bytes; NULL with 0 for a new one) grown or shrunk to
 * new_bytes, contents kept up to the smaller size. NULL if out of memory,
 * with block left as it was. With the C library a large block is also
 * advised to be backed by huge pages (the contents and results are the
 * same either way). */
void *memory_grow(const carom_allocator *allocator, void *block, size_t old_bytes, size_t new_bytes);
void memory_free(const carom_allocator *allocator, void *block, size_t bytes);

/* A block aligned to a cache line where the C library is used (a caller's
 * allocator gives its own alignment, at least that of max_align_t); free it
 * with memory_free and the same bytes. No huge-page advice: its user (the
 * calendar's heap, sized for every body, of which a few dozen entries are
 * in use) would have 2 MB of it resident for a few kilobytes. */
void *memory_alloc_lines(const carom_allocator *allocator, size_t bytes);

/* memory_grow for an array of records laid out one per cache line (the
 * world's hot and spin records): the block moves to one aligned to a line
 * where the C library is used (realloc keeps only 16 bytes, and a 64-byte
 * record 16 bytes off a line touches two). */
void *memory_grow_lines(const carom_allocator *allocator, void *block, size_t old_bytes, size_t new_bytes);

/* 1 where blocks of 1 MiB or more from the C library's side are mapped
 * directly (Linux, not under AddressSanitizer), 0 where they come from its heap. */
int memory_maps_large_blocks(void);

/* count * size, or SIZE_MAX if that does not fit in size_t: a size no
 * allocation is attempted for (the functions above fail on it). */
size_t memory_bytes(size_t count, size_t size);

/* Several arrays grown together, all or none: each *block goes from old_bytes
 * to new_bytes. Returns 0; or -1 if out of memory, with every array back at
 * its old size (the allocator must not fail to shrink a block, as Lua asks
 * of its own). */
typedef struct memory_array {
    void **block;
    size_t old_bytes, new_bytes;
    int lines; /* 1: grown by memory_grow_lines */
} memory_array;
int memory_grow_together(const carom_allocator *allocator, memory_array *arrays, int count);
/* Undoes a memory_grow_together that succeeded, when a later step fails. */
void memory_shrink_back(const carom_allocator *allocator, memory_array *arrays, int count);

#endif
