/* calendar.c — an indexed binary min-heap holding one event time per body.
 *
 * Single-event scheduling (Smallenburg, "Efficient event-driven simulations
 * of hard spheres", Eur. Phys. J. E 2022): every body keeps only its own
 * earliest predicted event, so the calendar has at most N entries and an
 * update is a sift of one entry, O(log N). Keys are (time, body index): a
 * total order, so equal times are broken by body identity, never by the
 * order of insertion, and runs are reproducible.
 */
#include "calendar.h"

#include <assert.h>
#include <stdlib.h>

static int earlier(const calendar_entry *a, const calendar_entry *b)
{
    return a->time < b->time || (a->time == b->time && a->body < b->body);
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
        int32_t parent = (k - 1) / 2;
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
        int32_t child = 2 * k + 1;
        if (child >= cal->count) break;
        if (child + 1 < cal->count && earlier(&cal->heap[child + 1], &cal->heap[child])) child++;
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
    calendar_entry *heap = realloc(cal->heap, (size_t)capacity * sizeof *heap);
    if (!heap) return -1;
    cal->heap = heap;
    int32_t *where = realloc(cal->where, (size_t)capacity * sizeof *where);
    if (!where) return -1;
    cal->where = where;
    for (int32_t b = cal->capacity; b < capacity; b++) cal->where[b] = -1;
    cal->capacity = capacity;
    return 0;
}

void calendar_free(calendar *cal)
{
    free(cal->heap);
    free(cal->where);
    *cal = (calendar){0};
}

void calendar_clear(calendar *cal)
{
    for (int32_t k = 0; k < cal->count; k++) cal->where[cal->heap[k].body] = -1;
    cal->count = 0;
}

void calendar_set(calendar *cal, int32_t body, double t)
{
    assert(body >= 0 && body < cal->capacity);
    assert(t == t); /* never NaN */
    int32_t k = cal->where[body];
    if (k < 0) {
        place(cal, cal->count++, (calendar_entry){t, body, 0});
        sift_up(cal, cal->count - 1);
        return;
    }
    double old = cal->heap[k].time;
    cal->heap[k].time = t;
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
