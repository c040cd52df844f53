/* carries.c — the high halves of the few collision counts that have passed
 * 2^32 (carries.h), in an array sorted by id: found by bisection, entered by
 * insertion. A count passes 2^32 after 4.3e9 collisions of one body, so the
 * array stays empty in all but the longest runs, and an insertion (at most
 * once per body per 4.3e9 of its collisions) may move the whole array. */
#include "carries.h"

#include <assert.h>
#include <string.h>

#include "memory.h"

/* The index of id's entry, or where it would go. */
static int32_t position_of(const carries *c, int32_t id)
{
    int32_t lo = 0, hi = c->count;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (c->entry[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

uint32_t carries_high(const carries *c, int32_t id)
{
    if (c->count == 0) return 0;
    int32_t k = position_of(c, id);
    return k < c->count && c->entry[k].id == id ? c->entry[k].high : 0;
}

int carries_reserve(carries *c, int32_t more)
{
    if (more <= c->room - c->count) return 0;
    int64_t room = (int64_t)c->count + more;
    room = room < 2 * (int64_t)c->room ? 2 * (int64_t)c->room : room;
    if (room > INT32_MAX) return -1;
    carry *grown = memory_grow(c->mem, c->entry, (size_t)c->room * sizeof *grown, (size_t)room * sizeof *grown);
    if (!grown) return -1;
    c->entry = grown;
    c->room = (int32_t)room;
    return 0;
}

/* Inserts id with high half 0 at k (room was reserved). */
static void insert(carries *c, int32_t k, int32_t id)
{
    assert(c->count < c->room);
    memmove(&c->entry[k + 1], &c->entry[k], (size_t)(c->count - k) * sizeof *c->entry);
    c->entry[k] = (carry){id, 0};
    c->count++;
}

void carries_carry(carries *c, int32_t id)
{
    int32_t k = position_of(c, id);
    if (k == c->count || c->entry[k].id != id) insert(c, k, id);
    c->entry[k].high++;
}

int carries_set(carries *c, int32_t id, uint32_t high)
{
    int32_t k = position_of(c, id);
    if (k < c->count && c->entry[k].id == id) {
        if (high == 0) { /* no entry holds a zero high half: the array stays what the counts say */
            memmove(&c->entry[k], &c->entry[k + 1], (size_t)(c->count - k - 1) * sizeof *c->entry);
            c->count--;
        } else {
            c->entry[k].high = high;
        }
        return 0;
    }
    if (high == 0) return 0;
    if (carries_reserve(c, 1) != 0) return -1;
    insert(c, k, id);
    c->entry[k].high = high;
    return 0;
}

void carries_free(carries *c)
{
    const carom_allocator *mem = c->mem;
    memory_free(mem, c->entry, (size_t)c->room * sizeof *c->entry);
    *c = (carries){0};
    c->mem = mem;
}
