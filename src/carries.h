/* carries.h — the high halves of the collision counts that have passed
 * 2^32. A body's count is 64 bits wide where the API reports it, but the
 * world keeps 32 bits a body (4 bytes a body saved, and a smaller array to
 * miss in at every collision at 10^6 bodies); the few bodies that ever reach
 * 4.3e9 collisions carry the rest here, by id. */
#ifndef CAROM_CARRIES_H
#define CAROM_CARRIES_H

#include <stdint.h>

#include "carom.h"

typedef struct carry {
    int32_t id;
    uint32_t high; /* the count's bits above the lowest 32 */
} carry;

typedef struct carries {
    carry *entry;  /* ascending ids */
    int32_t count; /* entries in use */
    int32_t room;  /* entries allocated */
    const carom_allocator *mem;
} carries;

/* Body id's high half: 0 if it has none. */
uint32_t carries_high(const carries *c, int32_t id);
/* Room for `more` new entries. 0, or -1 if out of memory (then unchanged). */
int carries_reserve(carries *c, int32_t more);
/* Body id's low half has just wrapped round to 0: its high half grows by
 * one (room for a new entry was reserved). */
void carries_carry(carries *c, int32_t id);
/* Sets body id's high half (used when a snapshot is read, ids ascending,
 * and when an undone event puts a count back); 0 removes its entry, so no
 * entry ever holds 0. 0, or -1 if out of memory (then unchanged); never
 * fails when the entry exists or high is 0. */
int carries_set(carries *c, int32_t id, uint32_t high);
void carries_free(carries *c);

#endif
