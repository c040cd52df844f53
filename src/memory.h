/* memory.h — allocation of the large per-body and per-cell arrays. */
#ifndef CAROM_MEMORY_H
#define CAROM_MEMORY_H

#include <stddef.h>

/* realloc(block, bytes); a large block is also advised to be backed by huge
 * pages where the system offers them (the contents and results are the same
 * either way). NULL if out of memory, with block left as it was. */
void *memory_grow(void *block, size_t bytes);

#endif
