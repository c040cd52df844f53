/* calendar.c — an indexed 4-ary min-heap holding one event time per body.
 *
 * Single-event scheduling (Smallenburg, "Efficient event-driven simulations
 * of hard spheres", Eur. Phys. J. E 2022): every body keeps only its own
 * earliest predicted event, so the calendar has at most N entries and an
 * update is a sift of one entry, O(log N). Keys are (time, key), where the
 * world's key is the body's id: a total order, so equal times are broken by
 * body identity, never by the order of insertion nor by where the body sits
 * in memory, and runs are reproducible.
 *
 * Four children per node, not two: half as many levels to sift through, and
 * the four children of a node share one 64-byte cache line (entries are 16
 * bytes and the array is placed so that heap[1] starts a line), so at 10^6
 * bodies, where the heap no longer fits in cache, a sift misses about half as
 * often (LaMarca & Ladner, "The influence of caches on the performance of
 * heaps", J. Exp. Algorithmics 1996).
 */
#include "calendar.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static int earlier(const calendar_entry *a, const calendar_entry *b)
{
    return a->time < b->time || (a->time == b->time && a->key < b->key);
}

static void place(calendar *cal, int32_t k, calendar_entry e)
{
    cal->heap[k] = e;
    cal->where[e.body] = k;
}

static void sift_up(calendar *cal, int32_t k)
{
    calendar_entry e = cal->heap[k];
    while (k > 0) {
        int32_t parent = (k - 1) / 4;
        if (!earlier(&e, &cal->heap[parent])) break;
        place(cal, k, cal->heap[parent]);
        k = parent;
    }
    place(cal, k, e);
}

static void sift_down(calendar *cal, int32_t k)
{
    calendar_entry e = cal->heap[k];
    for (;;) {
        int32_t child = 4 * k + 1;
        if (child >= cal->count) break;
        int32_t last = child + 3 < cal->count ? child + 3 : cal->count - 1;
        for (int32_t c = child + 1; c <= last; c++)
            if (earlier(&cal->heap[c], &cal->heap[child])) child = c;
        if (!earlier(&cal->heap[child], &e)) break;
        place(cal, k, cal->heap[child]);
        k = child;
    }
    place(cal, k, e);
}

int calendar_init(calendar *cal, int32_t capacity)
{
    *cal = (calendar){0};
    return calendar_reserve(cal, capacity);
}

int calendar_reserve(calendar *cal, int32_t capacity)
{
    if (capacity <= cal->capacity) return 0;
    /* heap = block + 3, so heap[1 + 4 m] .. heap[4 + 4 m] fill one cache line. */
    size_t bytes = ((size_t)capacity + 3) * sizeof(calendar_entry);
    calendar_entry *block = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!block) return -1;
    if (cal->count > 0) memcpy(block + 3, cal->heap, (size_t)cal->count * sizeof *block);
    free(cal->block);
    cal->block = block;
    cal->heap = block + 3;
    int32_t *where = realloc(cal->where, (size_t)capacity * sizeof *where);
    if (!where) return -1;
    cal->where = where;
    for (int32_t b = cal->capacity; b < capacity; b++) cal->where[b] = -1;
    cal->capacity = capacity;
    return 0;
}

void calendar_free(calendar *cal)
{
    free(cal->block);
    free(cal->where);
    *cal = (calendar){0};
}

void calendar_clear(calendar *cal)
{
    for (int32_t k = 0; k < cal->count; k++) cal->where[cal->heap[k].body] = -1;
    cal->count = 0;
}

void calendar_set(calendar *cal, int32_t body, double t) { calendar_set_keyed(cal, body, body, t); }

void calendar_relabel(calendar *cal, const int32_t *new_of_old)
{
    for (int32_t k = 0; k < cal->count; k++) cal->heap[k].body = new_of_old[cal->heap[k].body];
    for (int32_t b = 0; b < cal->capacity; b++) cal->where[b] = -1;
    for (int32_t k = 0; k < cal->count; k++) cal->where[cal->heap[k].body] = k;
}

void calendar_set_keyed(calendar *cal, int32_t body, int32_t key, double t)
{
    assert(body >= 0 && body < cal->capacity);
    assert(t == t); /* never NaN */
    int32_t k = cal->where[body];
    if (k < 0) {
        place(cal, cal->count++, (calendar_entry){t, body, key});
        sift_up(cal, cal->count - 1);
        return;
    }
    double old = cal->heap[k].time;
    cal->heap[k].time = t;
    cal->heap[k].key = key;
    if (t < old) sift_up(cal, k);
    else sift_down(cal, k);
}

void calendar_remove(calendar *cal, int32_t body)
{
    int32_t k = cal->where[body];
    if (k < 0) return;
    cal->where[body] = -1;
    calendar_entry last = cal->heap[--cal->count];
    if (k == cal->count) return;
    place(cal, k, last);
    sift_up(cal, k);
    sift_down(cal, cal->where[last.body]);
}
