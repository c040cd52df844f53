/* calendar.c — the event calendar: a few near events, unsorted, and a ring
 * of time buckets for the rest.
 *
 * Single-event scheduling (Smallenburg, "Efficient event-driven simulations
 * of hard spheres", Eur. Phys. J. E 45, 22 (2022)) leaves one event per body,
 * so the calendar holds at most N times. A heap of all N costs a sift of
 * log N levels per event, and at 10^6 bodies the lower levels are cache
 * misses, one after the other. Following Paul (J. Comput. Phys. 221, 615
 * (2007)), as Smallenburg does, only events in the bucket being served are
 * kept in order (a few: they stay in L1); a later event goes into the
 * unsorted, doubly linked list of its time bucket, O(1), and a bucket's list
 * moves into the near events when its time comes. Events past the ring's reach wait in an
 * overflow list that is swept once per turn of the ring.
 *
 * The order is (time, key), where the world's key is the body's id: a total
 * order, so equal times go to the lower id, whatever the buckets and wherever
 * the body sits in memory. Bucket b holds times with floor((t - origin) /
 * width) = b, which never decreases as t grows, so every near event comes
 * before every event outside them, and the earliest is the earliest near.
 * The bucket width only changes the speed, never the order: it is set from
 * the events themselves (about events_per_bucket per bucket near the front)
 * whenever the buckets are rebuilt.
 *
 * The near future is held two ways. Up to FLAT_MAX events (nearly always:
 * a bucket's events, about 8) sit unsorted, and the earliest is
 * found by a scan with selections, not branches: in a heap, which child is
 * earliest and where a sift stops are coin flips, and the sifts cost more
 * mispredicted branches than any other part of the engine (issue 16). An
 * event is added at the end, removed by moving the last into its place, and
 * retimed where it is. More events than that (a jam, or a calendar with no
 * finite time, all near) turn the array into a heap with four children per
 * node, which share one 64-byte cache line (LaMarca & Ladner, J. Exp.
 * Algorithmics 1996), until a quarter of that is left; any heap is also a
 * valid unsorted array, so going back costs only reading the keys of the
 * few events left: unsorted events keep their bodies' keys beside them
 * (near_key), read when filed, since the scan meets a tie at nearly every
 * event (a pair's two bodies hold its event at one time; bench/README.md,
 * "The unsorted near events' keys beside them"). Either way the earliest
 * in (time, key) is served, so the order of events does not depend on which.
 * From CALENDAR_WIDE_FROM_BODIES bodies the buckets are eight times wider,
 * and the ring eight times shorter: at 10^6 bodies a ring of capacity / 4
 * buckets took a megabyte of heads, and nearly every filing missed the
 * cache on one; with about 64 events a bucket the heads take a tenth of
 * that and stay in cache, and the ring still reaches about two events a
 * body ahead (bench/README.md, "Wider buckets for large calendars"). Such
 * a bucket is served in CALENDAR_SUB_BUCKETS sub-buckets of equal width
 * (a hierarchical calendar queue): when it comes up, its events go into
 * small arrays by eighth, and each eighth in turn becomes the near events,
 * about 8, unsorted, as in a small calendar. A 64-event heap's sifts took
 * 7% of the time at 10^6 bodies, and the keys they read at ties were
 * misses (bench/README.md, "Wide buckets served in eighths"). A sub-bucket
 * that would overflow its room (a crowd at one time) merges the bucket's
 * later sub-buckets into the near events, which may then become a heap.
 * Either way the earliest in (time, key) is served, so no order depends on
 * the buckets, the sub-buckets or the form of the near events.
 */
#include "calendar.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "memory.h"
#include "prefetch.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum {
    EVENTS_PER_BUCKET = 8,
    MIN_BUCKETS = 16,
    BODIES_PER_BUCKET = 4, /* the ring has about capacity / 4 buckets */
    /* From CALENDAR_WIDE_FROM_BODIES bodies: wider buckets and a ring of
     * about capacity / 32 (a tenth of a megabyte of heads at 10^6 bodies,
     * which stays in cache; see the file's head). */
    EVENTS_PER_WIDE_BUCKET = 64,
    BODIES_PER_WIDE_BUCKET = 32,
    NEAR_LIMIT_FLOOR = 1024,
    NO_BODY = -1,
    FLAT_MAX = CALENDAR_FLAT_MAX, /* more near events than this: a heap (a scan's ties fit a 64-bit mask) */
    SCAN_BLOCK = 8,  /* a scan reads whole blocks, so that its loop rarely changes its count of turns */
};

/* Kept out of the filing's common path (attach), which is kept inlined in
 * calendar_set (a call there cost a collision 1% more instructions at
 * N = 10,976). */
#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#define IN_LINE inline __attribute__((always_inline))
#else
#define OUT_OF_LINE
#define IN_LINE inline
#endif

/* ---- the near events: a heap, or unsorted ---- */

static int32_t key_of(const calendar *cal, int32_t b) { return cal->key_of ? cal->key_of[b] : b; }

static int earlier(const calendar *cal, const calendar_entry *a, const calendar_entry *b)
{
    return a->time < b->time || (a->time == b->time && key_of(cal, a->body) < key_of(cal, b->body));
}

static void place(calendar *cal, int32_t k, calendar_entry e)
{
    cal->heap[k] = e;
    cal->body[e.body].where = k;
}

static void sift_up(calendar *cal, int32_t k)
{
    calendar_entry e = cal->heap[k];
    while (k > 0) {
        int32_t parent = (k - 1) / 4;
        if (!earlier(cal, &e, &cal->heap[parent])) break;
        place(cal, k, cal->heap[parent]);
        k = parent;
    }
    place(cal, k, e);
}

/* The earliest of the children first .. last (at most four). Which child is
 * earliest is a coin flip at each comparison, so the earliest time is found
 * by selection, not by branches; only when a time is shared, which is rare,
 * are the children compared again in the full order (time, key). */
static int32_t earliest_child(const calendar *cal, int32_t first, int32_t last)
{
    const calendar_entry *heap = cal->heap;
    int32_t best = first, shared = 0;
    double best_time = heap[first].time;
    for (int32_t c = first + 1; c <= last; c++) {
        double time = heap[c].time;
        shared |= time == best_time; /* catches every tie at the earliest time (and a few others) */
        best = time < best_time ? c : best;
        best_time = time < best_time ? time : best_time;
    }
    if (shared)
        for (int32_t c = first; c <= last; c++)
            if (earlier(cal, &heap[c], &heap[best])) best = c;
    return best;
}

static void sift_down(calendar *cal, int32_t k)
{
    calendar_entry e = cal->heap[k];
    for (;;) {
        int32_t child = 4 * k + 1;
        if (child >= cal->near_count) break;
        int32_t last = child + 3 < cal->near_count ? child + 3 : cal->near_count - 1;
        child = earliest_child(cal, child, last);
        if (!earlier(cal, &cal->heap[child], &e)) break;
        place(cal, k, cal->heap[child]);
        k = child;
    }
    place(cal, k, e);
}

/* Floyd's bottom-up construction: every parent sifted down, the last first. */
static void heapify(calendar *cal)
{
    for (int32_t k = (cal->near_count - 2) / 4; k >= 0; k--) sift_down(cal, k);
    cal->near_is_heap = 1;
}

static void near_push(calendar *cal, int32_t b)
{
    if (!cal->near_is_heap && cal->near_count < FLAT_MAX) cal->near_key[cal->near_count] = key_of(cal, b);
    place(cal, cal->near_count++, (calendar_entry){cal->body[b].time, b});
    if (cal->near_is_heap) sift_up(cal, cal->near_count - 1);
    else if (cal->near_count > FLAT_MAX) heapify(cal);
}

/* Every slot from near_count up to FLAT_MAX holds an infinite time, so that
 * a scan of whole blocks needs no test of where the events end. */
static IN_LINE void near_remove(calendar *cal, int32_t k)
{
    calendar_entry last = cal->heap[--cal->near_count];
    if (!cal->near_is_heap) {
        place(cal, k, last); /* when k was the last, only its own slot, rewritten below */
        cal->near_key[k] = cal->near_key[cal->near_count];
    } else if (k != cal->near_count) {
        place(cal, k, last);
        sift_up(cal, k);
        sift_down(cal, cal->body[last.body].where);
    }
    cal->heap[cal->near_count].time = INFINITY;
    if (cal->near_is_heap && cal->near_count <= FLAT_MAX / 4) { /* apart, so that no count flips it back and forth */
        cal->near_is_heap = 0;
        for (int32_t m = 0; m < cal->near_count; m++) cal->near_key[m] = key_of(cal, cal->heap[m].body);
    }
}

/* Empties the near events' slots (their bodies are filed elsewhere or none). */
static void near_forget(calendar *cal)
{
    for (int32_t k = 0; k < cal->near_count && k < FLAT_MAX; k++) cal->heap[k].time = INFINITY;
    cal->near_count = 0;
    cal->near_is_heap = 0;
}

#if defined(__SSE2__)
/* Two entries' times in one register (SSE2 is part of every x86-64). */
static inline __m128d two_times(const calendar_entry *near, int32_t k)
{
    return _mm_loadh_pd(_mm_load_sd(&near[k].time), &near[k + 1].time);
}

/* The mask of the entries of blocks [0, count) whose time is at's (in both lanes). */
static inline uint64_t flat_at(const calendar_entry *near, int32_t count, __m128d at)
{
    uint64_t mask = 0;
    for (int32_t k = 0; k < count; k += SCAN_BLOCK)
        for (int32_t j = 0; j < SCAN_BLOCK; j += 2)
            mask |= (uint64_t)_mm_movemask_pd(_mm_cmpeq_pd(two_times(near, k + j), at)) << (k + j);
    return mask;
}

/* The lesser of least's two lanes, in both. */
static inline __m128d both_lanes_least(__m128d least)
{
    __m128d best = _mm_min_pd(least, _mm_unpackhi_pd(least, least));
    return _mm_unpacklo_pd(best, best);
}

/* The least time of blocks [0, count) of entries, and the mask of entries at it. */
static uint64_t flat_least(const calendar_entry *near, int32_t count)
{
    __m128d least = _mm_set1_pd(INFINITY);
    for (int32_t k = 0; k < count; k += SCAN_BLOCK)
        for (int32_t j = 0; j < SCAN_BLOCK; j += 2) least = _mm_min_pd(two_times(near, k + j), least);
    return flat_at(near, count, both_lanes_least(least));
}

/* The same among the entries later than floor; 0 if none is finite. */
static uint64_t flat_least_after(const calendar_entry *near, int32_t count, double floor)
{
    const __m128d above = _mm_set1_pd(floor), never = _mm_set1_pd(INFINITY);
    __m128d least = never;
    for (int32_t k = 0; k < count; k += SCAN_BLOCK)
        for (int32_t j = 0; j < SCAN_BLOCK; j += 2) {
            __m128d t = two_times(near, k + j), later = _mm_cmpgt_pd(t, above);
            least = _mm_min_pd(_mm_or_pd(_mm_and_pd(later, t), _mm_andnot_pd(later, never)), least);
        }
    __m128d best = both_lanes_least(least);
    return _mm_cvtsd_f64(best) < INFINITY ? flat_at(near, count, best) : 0;
}
#else
static uint64_t flat_at(const calendar_entry *near, int32_t count, double at)
{
    uint64_t mask = 0;
    for (int32_t k = 0; k < count; k += SCAN_BLOCK)
        for (int32_t j = 0; j < SCAN_BLOCK; j++) mask |= (uint64_t)(near[k + j].time == at) << (k + j);
    return mask;
}

static uint64_t flat_least(const calendar_entry *near, int32_t count)
{
    double least[2] = {INFINITY, INFINITY};
    for (int32_t k = 0; k < count; k += SCAN_BLOCK)
        for (int32_t j = 0; j < SCAN_BLOCK; j++)
            least[j & 1] = near[k + j].time < least[j & 1] ? near[k + j].time : least[j & 1];
    return flat_at(near, count, least[1] < least[0] ? least[1] : least[0]);
}

static uint64_t flat_least_after(const calendar_entry *near, int32_t count, double floor)
{
    double best = INFINITY;
    for (int32_t k = 0; k < count; k++) best = near[k].time > floor && near[k].time < best ? near[k].time : best;
    return best < INFINITY ? flat_at(near, count, best) : 0;
}
#endif

/* The position of the lowest key among the entries of mask at (not 0). A
 * pair's event is held by both its bodies at one time, so a shared time is
 * common, and the first two entries are told apart with a selection; a
 * third is rare. */
static inline int32_t lowest_key_at(const calendar *cal, uint64_t at)
{
    int32_t first = __builtin_ctzll(at);
    uint64_t rest = at & (at - 1);
    int32_t second = __builtin_ctzll(rest | (uint64_t)(rest == 0) << first);
    const int32_t *key = cal->near_key;
    first = key[second] < key[first] ? second : first;
    for (rest &= rest - 1; rest; rest &= rest - 1) {
        int32_t k = __builtin_ctzll(rest);
        if (key[k] < key[first]) first = k;
    }
    return first;
}

/* The position of the earliest of the unsorted near events (count >= 1):
 * the least time by selections over whole blocks, then a mask of the
 * entries at that time, told apart by their keys. */
static int32_t flat_earliest(const calendar *cal)
{
    int32_t count = cal->near_count;
    uint64_t at_best = flat_least(cal->heap, count) & ~0ull >> (64 - count); /* empty slots are no events */
    assert(at_best != 0);
    return lowest_key_at(cal, at_best);
}

int32_t calendar_next_near(const calendar *cal)
{
    int32_t count = cal->near_count;
    if (cal->near_is_heap || count < 2) return -1;
    uint64_t at = flat_least_after(cal->heap, count, calendar_first_time(cal)) & ~0ull >> (64 - count);
    return at ? cal->heap[lowest_key_at(cal, at)].body : -1;
}

/* ---- bucket lists ---- */

static int32_t overflow_bucket(const calendar *cal) { return cal->bucket_count; }

/* Writes a link in another body's record: streamed past the caches while
 * calendar_stream is on (see there), else a plain store. */
static inline void write_link(const calendar *cal, int32_t *link, int32_t value)
{
#if defined(__SSE2__)
    if (__builtin_expect(cal->streaming, 0)) {
        _mm_stream_si32((int *)link, value);
        return;
    }
#else
    (void)cal;
#endif
    *link = value;
}

static IN_LINE void link(calendar *cal, int32_t b, int32_t bucket)
{
    calendar_body *r = &cal->body[b];
    r->where = -2 - bucket;
    r->prev = NO_BODY;
    r->next = cal->head[bucket];
    if (r->next != NO_BODY) write_link(cal, &cal->body[r->next].prev, b);
    cal->head[bucket] = b;
    if (bucket != overflow_bucket(cal)) cal->ring_count++;
}

static IN_LINE void unlink_body(calendar *cal, int32_t b)
{
    calendar_body *r = &cal->body[b];
    int32_t bucket = -2 - r->where;
    if (r->prev != NO_BODY) write_link(cal, &cal->body[r->prev].next, r->next);
    else cal->head[bucket] = r->next;
    if (r->next != NO_BODY) write_link(cal, &cal->body[r->next].prev, r->prev);
    if (bucket != overflow_bucket(cal)) cal->ring_count--;
}

void calendar_stream(calendar *cal, int on)
{
#if defined(__SSE2__)
    if (cal->streaming && !on) _mm_sfence(); /* every streamed link written before anything after */
#endif
    cal->streaming = on;
}

/* ---- placing an event ---- */

/* Where t falls, in buckets from the origin (a double: huge and infinite
 * times compare correctly). */
static double bucket_position(const calendar *cal, double t) { return (t - cal->origin) * cal->inverse_width; }

/* Whether the current bucket is served sub-bucket by sub-bucket. */
static int subs_on(const calendar *cal) { return cal->sub_count > 1 && !cal->sub_whole; }

/* Whether position x, in or before the bucket being served, is near: before
 * the end of its sub-bucket being served, in a wide calendar. Scaling a
 * position by the sub-bucket count, a power of two, is exact, so a
 * sub-bucket's bounds are those of its bucket refined. */
static int near_in_bucket(const calendar *cal, double x)
{
    return !subs_on(cal) || x * cal->sub_count < (double)(cal->current * cal->sub_count + cal->sub_current + 1);
}

/* Whether time t belongs in the near events. */
static int near(const calendar *cal, double t)
{
    if (cal->mode != CALENDAR_BUCKETED) return cal->mode == CALENDAR_ALL_NEAR;
    double x = bucket_position(cal, t);
    return x < (double)(cal->current + 1) && near_in_bucket(cal, x);
}

/* ---- sub-buckets: a wide calendar's bucket served in eighths ---- */

static int32_t sub_where(const calendar *cal, int32_t place) { return -3 - cal->bucket_count - place; }
static int in_sub(const calendar *cal, int32_t where) { return where < -2 - cal->bucket_count; }

/* The sub-bucket of the current bucket that position x (in it, not near) falls in. */
static int32_t sub_of(const calendar *cal, double x)
{
    return (int32_t)((int64_t)(x * cal->sub_count) - cal->current * cal->sub_count);
}

/* Sub-bucket s's events join the near events. */
static void sub_to_near(calendar *cal, int32_t s)
{
    for (int32_t k = 0; k < cal->sub_fill[s]; k++) near_push(cal, cal->sub_body[s * CALENDAR_SUB_ROOM + k]);
    cal->sub_held -= cal->sub_fill[s];
    cal->sub_fill[s] = 0;
}

/* Every event of the sub-buckets after the current one joins the near
 * events, which then hold the whole bucket (when a sub-bucket is full). */
static void subs_merge(calendar *cal)
{
    cal->sub_whole = 1;
    for (int32_t s = cal->sub_current + 1; s < cal->sub_count; s++) sub_to_near(cal, s);
}

/* Files body b in sub-bucket s of the current bucket. Its key is prefetched
 * for near_push, a sub-bucket later (at 10^6 bodies a miss each). */
static OUT_OF_LINE void sub_add(calendar *cal, int32_t b, int32_t s)
{
    if (cal->sub_fill[s] == CALENDAR_SUB_ROOM) {
        subs_merge(cal);
        near_push(cal, b);
        return;
    }
    int32_t place = s * CALENDAR_SUB_ROOM + cal->sub_fill[s]++;
    cal->sub_body[place] = b;
    cal->body[b].where = sub_where(cal, place);
    cal->sub_held++;
    if (cal->key_of) PREFETCH(&cal->key_of[b]);
}

/* Takes body b out of its sub-bucket; the last of that sub-bucket moves into its place. */
static void sub_remove(calendar *cal, int32_t b)
{
    int32_t place = -3 - cal->bucket_count - cal->body[b].where, s = place / CALENDAR_SUB_ROOM;
    int32_t last = s * CALENDAR_SUB_ROOM + --cal->sub_fill[s], moved = cal->sub_body[last];
    cal->sub_body[place] = moved;
    cal->body[moved].where = sub_where(cal, place);
    cal->sub_held--;
}

/* Empties the sub-buckets (their bodies are filed elsewhere or none). */
static void subs_forget(calendar *cal)
{
    for (int32_t s = 0; s < CALENDAR_SUB_BUCKETS; s++) cal->sub_fill[s] = 0;
    cal->sub_held = cal->sub_current = cal->sub_whole = 0;
}

/* Files body b (its time set, in no list) in the heap, the ring or overflow. */
static IN_LINE void attach(calendar *cal, int32_t b)
{
    if (cal->mode != CALENDAR_BUCKETED) {
        if (cal->mode == CALENDAR_ALL_NEAR) near_push(cal, b);
        else link(cal, b, overflow_bucket(cal));
        return;
    }
    double x = bucket_position(cal, cal->body[b].time);
    if (x < (double)(cal->current + 1)) {
        if (near_in_bucket(cal, x)) near_push(cal, b);
        else sub_add(cal, b, sub_of(cal, x));
    } else if (x < (double)(cal->current + cal->bucket_count))
        link(cal, b, (int32_t)((int64_t)x & (cal->bucket_count - 1)));
    else link(cal, b, overflow_bucket(cal));
}

static IN_LINE void detach(calendar *cal, int32_t b)
{
    int32_t where = cal->body[b].where;
    if (where >= 0) near_remove(cal, where);
    else if (in_sub(cal, where)) sub_remove(cal, b);
    else if (where != CALENDAR_ABSENT) unlink_body(cal, b);
    cal->body[b].where = CALENDAR_ABSENT;
}

/* ---- rebuilding the buckets ---- */

/* Takes every scheduled body out of heap and lists; returns them as one list
 * through next. */
static int32_t gather(calendar *cal)
{
    int32_t pending = NO_BODY;
    for (int32_t k = 0; k < cal->near_count; k++) {
        int32_t b = cal->heap[k].body;
        cal->body[b].next = pending;
        pending = b;
    }
    for (int32_t bucket = 0; bucket <= cal->bucket_count; bucket++) {
        for (int32_t b = cal->head[bucket], next; b != NO_BODY; b = next) {
            next = cal->body[b].next;
            cal->body[b].next = pending;
            pending = b;
        }
        cal->head[bucket] = NO_BODY;
    }
    for (int32_t s = 0; s < CALENDAR_SUB_BUCKETS; s++)
        for (int32_t k = 0; k < cal->sub_fill[s]; k++) {
            int32_t b = cal->sub_body[s * CALENDAR_SUB_ROOM + k];
            cal->body[b].next = pending;
            pending = b;
        }
    subs_forget(cal);
    near_forget(cal);
    cal->ring_count = 0;
    return pending;
}

/* Origin at the earliest finite time; width such that about
 * events_per_bucket events fall in a bucket near it: n events whose mean
 * distance from the earliest is m lie about m / n apart there. Returns 0 if
 * no time is finite. */
static int choose_buckets(calendar *cal, int32_t pending)
{
    double earliest = INFINITY, sum = 0.0;
    int32_t finite = 0;
    for (int32_t b = pending; b != NO_BODY; b = cal->body[b].next)
        if (isfinite(cal->body[b].time)) {
            finite++;
            if (cal->body[b].time < earliest) earliest = cal->body[b].time;
        }
    if (finite == 0) return 0;
    for (int32_t b = pending; b != NO_BODY; b = cal->body[b].next)
        if (isfinite(cal->body[b].time)) sum += cal->body[b].time - earliest;
    double width = cal->events_per_bucket * (sum / finite) / finite;
    double inverse = 1.0 / width;
    cal->origin = earliest;
    cal->inverse_width = inverse > 0.0 && isfinite(inverse) ? inverse : 1.0; /* any width is correct */
    cal->current = 0;
    cal->sub_current = 0;
    return 1;
}

/* Sets the buckets from the events now scheduled and files every event
 * again. If no time is finite, all go into the heap. */
static void rebuild(calendar *cal)
{
    cal->ahead_bucket = cal->warm_bucket = -1; /* both walks start again */
    int32_t pending = gather(cal);
    cal->mode = choose_buckets(cal, pending) ? CALENDAR_BUCKETED : CALENDAR_ALL_NEAR;
    for (int32_t b = pending, next; b != NO_BODY; b = next) {
        next = cal->body[b].next;
        attach(cal, b);
    }
    /* A heap this large again means the width has become too wide. */
    cal->near_limit = 4 * cal->near_count > NEAR_LIMIT_FLOOR ? 4 * cal->near_count : NEAR_LIMIT_FLOOR;
}

/* After a turn of the ring, the overflow events it now reaches join it.
 * Returns 1 if more finite events stay beyond the ring's reach than lie in
 * it: the buckets have become too narrow for the events (a cooling granular
 * gas, whose events spread out as it slows down), and each turn would sweep
 * most of them again. */
static int sweep_overflow(calendar *cal)
{
    double reach = (double)(cal->current + cal->bucket_count);
    int32_t beyond = 0;
    for (int32_t b = cal->head[overflow_bucket(cal)], next; b != NO_BODY; b = next) {
        next = cal->body[b].next;
        cal->overflow_visits++;
        if (bucket_position(cal, cal->body[b].time) < reach) {
            unlink_body(cal, b);
            attach(cal, b);
        } else if (isfinite(cal->body[b].time)) {
            beyond++;
        }
    }
    return beyond > cal->ring_count + cal->near_count + cal->sub_held;
}

/* Serves the next sub-bucket, whose events move into the near events, or
 * the next bucket: its events move into the near events or, in a wide
 * calendar, into the sub-buckets after the first. When a turn of the ring
 * finds the buckets too narrow, they are set again from the events (the
 * order does not depend on them). */
static void advance(calendar *cal)
{
    if (subs_on(cal) && cal->sub_current < cal->sub_count - 1) {
        sub_to_near(cal, ++cal->sub_current);
        return;
    }
    cal->current++;
    cal->sub_current = cal->sub_whole = 0;
    if ((cal->current & (cal->bucket_count - 1)) == 0 && sweep_overflow(cal)) {
        rebuild(cal);
        return;
    }
    int32_t bucket = (int32_t)(cal->current & (cal->bucket_count - 1));
    for (int32_t b = cal->head[bucket], next; b != NO_BODY; b = next) {
        next = cal->body[b].next;
        cal->ring_count--;
        if (cal->sub_count == 1) near_push(cal, b);
        else attach(cal, b);
    }
    cal->head[bucket] = NO_BODY;
}

/* A step of a walk along the list of bucket (a bucket after the current
 * one), whose state is *walked (the bucket it walks) and *reached (the body
 * whose record it asked for last): a new bucket starts the walk at its
 * head; otherwise the record asked for before is read for its link, and
 * the next one asked for. Returns the body whose record it read, or -1. */
static inline int32_t walk_step(calendar *cal, int64_t bucket, int64_t *walked, int32_t *reached)
{
    int32_t b, read = NO_BODY;
    if (*walked != bucket) { /* the current bucket moved on: a new walk */
        *walked = bucket;
        b = cal->head[(int32_t)(bucket & (cal->bucket_count - 1))];
    } else if (*reached != NO_BODY) {
        read = *reached;
        b = cal->body[read].next;
    } else {
        return NO_BODY;
    }
    *reached = b >= 0 && b < cal->capacity ? b : NO_BODY;
    if (*reached != NO_BODY) PREFETCH(&cal->body[*reached]);
    return read;
}

int32_t calendar_look_ahead(calendar *cal)
{
    if (cal->mode != CALENDAR_BUCKETED) return NO_BODY;
    return walk_step(cal, cal->current + 1, &cal->ahead_bucket, &cal->ahead);
}

void calendar_warm_walk(calendar *cal)
{
    if (cal->mode == CALENDAR_BUCKETED) (void)walk_step(cal, cal->current + 2, &cal->warm_bucket, &cal->warm_next);
}

void calendar_prefetch(const calendar *cal, double t)
{
    if (cal->mode != CALENDAR_BUCKETED || near(cal, t)) return;
    double x = bucket_position(cal, t);
    if (x >= (double)(cal->current + 1) && x < (double)(cal->current + cal->bucket_count))
        PREFETCH(&cal->head[(int32_t)((int64_t)x & (cal->bucket_count - 1))]);
}

int32_t calendar_first(calendar *cal)
{
    assert(cal->mode != CALENDAR_FROZEN);
    if (cal->count == 0) return NO_BODY;
    if (cal->mode == CALENDAR_COLLECTING || cal->near_count > cal->near_limit) rebuild(cal);
    while (cal->near_count == 0) {
        if (cal->count == 0) return NO_BODY;
        if (cal->ring_count == 0 && cal->sub_held == 0) rebuild(cal); /* only overflow left: start again at its earliest */
        else advance(cal);
    }
    cal->first = cal->near_is_heap ? 0 : flat_earliest(cal);
    return cal->heap[cal->first].body;
}

/* ---- the interface ---- */

int calendar_init(calendar *cal, int32_t capacity)
{
    *cal = (calendar){0};
    return calendar_reserve(cal, capacity);
}

static int wide_buckets(int32_t capacity) { return capacity >= CALENDAR_WIDE_FROM_BODIES; }

static int32_t ring_size_for(int32_t capacity)
{
    int32_t size = MIN_BUCKETS, bodies = wide_buckets(capacity) ? BODIES_PER_WIDE_BUCKET : BODIES_PER_BUCKET;
    while (size < capacity / bodies) size *= 2;
    return size;
}

/* heap = block + 3, so heap[1 + 4 m] .. heap[4 + 4 m] fill one cache line.
 * Room for every body, though only the near future is ever touched, and
 * for FLAT_MAX entries at least, which a scan may read (their first use is
 * set, so that no read is of memory never written). */
static int32_t near_room(int32_t capacity) { return capacity > FLAT_MAX ? capacity : FLAT_MAX; }
static size_t block_bytes(int32_t capacity) { return ((size_t)near_room(capacity) + 3) * sizeof(calendar_entry); }
static size_t head_bytes(int32_t buckets) { return ((size_t)buckets + 1) * sizeof(int32_t); }

static void free_arrays(calendar *cal)
{
    if (cal->capacity == 0) return;
    memory_free(cal->mem, cal->block, block_bytes(cal->capacity));
    memory_free(cal->mem, cal->body, (size_t)cal->capacity * sizeof *cal->body);
    memory_free(cal->mem, cal->head, head_bytes(cal->bucket_count));
}

int calendar_reserve(calendar *cal, int32_t capacity)
{
    if (capacity <= cal->capacity) return 0;
    if ((size_t)capacity > SIZE_MAX / sizeof(calendar_entry) - 3) return -1; /* 32-bit machines */
    int32_t buckets = ring_size_for(capacity);
    calendar_entry *block = memory_alloc_lines(cal->mem, block_bytes(capacity));
    calendar_body *body = memory_alloc(cal->mem, (size_t)capacity * sizeof *body);
    int32_t *head = memory_alloc(cal->mem, head_bytes(buckets));
    if (!block || !body || !head) {
        memory_free(cal->mem, block, block_bytes(capacity));
        memory_free(cal->mem, body, (size_t)capacity * sizeof *body);
        memory_free(cal->mem, head, head_bytes(buckets));
        return -1;
    }
    int32_t pending = cal->capacity > 0 ? gather(cal) : NO_BODY;
    if (cal->capacity > 0) memcpy(body, cal->body, (size_t)cal->capacity * sizeof *body);
    for (int32_t b = cal->capacity; b < capacity; b++) body[b].where = CALENDAR_ABSENT;
    free_arrays(cal);
    cal->block = block;
    cal->heap = block + 3;
    for (int32_t k = 0; k < FLAT_MAX; k++) cal->heap[k] = (calendar_entry){INFINITY, NO_BODY};
    cal->body = body;
    cal->head = head;
    cal->capacity = capacity;
    cal->sub_count = wide_buckets(capacity) ? CALENDAR_SUB_BUCKETS : 1;
    cal->events_per_bucket = wide_buckets(capacity) ? EVENTS_PER_WIDE_BUCKET : EVENTS_PER_BUCKET;
    cal->bucket_count = buckets;
    for (int32_t b = 0; b <= buckets; b++) head[b] = NO_BODY;
    cal->mode = CALENDAR_COLLECTING; /* buckets are chosen at the next calendar_first */
    for (int32_t b = pending, next; b != NO_BODY; b = next) {
        next = cal->body[b].next;
        attach(cal, b);
    }
    return 0;
}

void calendar_free(calendar *cal)
{
    const carom_allocator *mem = cal->mem;
    free_arrays(cal);
    *cal = (calendar){0};
    cal->mem = mem;
}

/* Empties heap, buckets and sub-buckets; the bodies' records are left. */
static void forget_filings(calendar *cal)
{
    for (int32_t b = 0; b <= cal->bucket_count; b++) cal->head[b] = NO_BODY;
    near_forget(cal);
    subs_forget(cal);
    cal->count = cal->ring_count = 0;
}

void calendar_clear(calendar *cal)
{
    for (int32_t b = 0; b < cal->capacity; b++) cal->body[b].where = CALENDAR_ABSENT;
    forget_filings(cal);
    cal->mode = CALENDAR_COLLECTING;
}

void calendar_freeze(calendar *cal)
{
    assert(cal->mode != CALENDAR_FROZEN);
    for (int32_t b = 0; b < cal->capacity; b++)
        if (cal->body[b].where != CALENDAR_ABSENT) cal->body[b].where = CALENDAR_HELD;
    forget_filings(cal);
    cal->mode = CALENDAR_FROZEN;
}

void calendar_thaw(calendar *cal)
{
    assert(cal->mode == CALENDAR_FROZEN);
    cal->mode = CALENDAR_COLLECTING;
    for (int32_t b = 0; b < cal->capacity; b++) {
        calendar_body *r = &cal->body[b];
        if (r->where != CALENDAR_HELD) continue;
        r->where = CALENDAR_ABSENT;
        calendar_set(cal, b, r->time);
    }
}

/* A filing while frozen: out of calendar_set's line, which stays as short
 * as it was (its inlined detach and near_remove). */
static OUT_OF_LINE void hold(calendar *cal, int32_t body, double t)
{
    cal->body[body].time = t;
    cal->body[body].where = CALENDAR_HELD;
}

void calendar_set(calendar *cal, int32_t body, double t)
{
    assert(body >= 0 && body < cal->capacity);
    assert(t == t); /* never NaN */
    calendar_body *r = &cal->body[body];
    int32_t k = r->where;
    if (k >= 0 && near(cal, t)) {
        double old = r->time; /* stays near: retimed in place (and sifted, in a heap) */
        r->time = cal->heap[k].time = t;
        if (!cal->near_is_heap) return;
        if (t < old) sift_up(cal, k);
        else sift_down(cal, k);
        return;
    }
    if (cal->mode == CALENDAR_FROZEN) { /* never near (no heap), so only here */
        hold(cal, body, t);
        return;
    }
    if (k == CALENDAR_ABSENT) cal->count++;
    else detach(cal, body);
    r->time = t;
    attach(cal, body);
}

static int32_t renamed(const int32_t *new_of_old, int32_t b) { return b == NO_BODY ? NO_BODY : new_of_old[b]; }

void calendar_relabel(calendar *cal, const int32_t *new_of_old)
{
    assert(cal->mode != CALENDAR_FROZEN);
    for (int32_t k = 0; k < cal->near_count; k++) cal->heap[k].body = new_of_old[cal->heap[k].body];
    for (int32_t s = 0; s < CALENDAR_SUB_BUCKETS; s++)
        for (int32_t k = 0; k < cal->sub_fill[s]; k++)
            cal->sub_body[s * CALENDAR_SUB_ROOM + k] = new_of_old[cal->sub_body[s * CALENDAR_SUB_ROOM + k]];
    cal->ahead_bucket = cal->warm_bucket = -1; /* both walks start again */
    for (int32_t bucket = 0; bucket <= cal->bucket_count; bucket++)
        cal->head[bucket] = renamed(new_of_old, cal->head[bucket]);
    for (int32_t b = 0; b < cal->capacity; b++) {
        calendar_body *r = &cal->body[b];
        if (r->where == CALENDAR_ABSENT) continue;
        r->next = renamed(new_of_old, r->next);
        r->prev = renamed(new_of_old, r->prev);
    }
}

void calendar_remove(calendar *cal, int32_t body)
{
    if (cal->body[body].where == CALENDAR_ABSENT) return;
    if (cal->mode == CALENDAR_FROZEN) {
        cal->body[body].where = CALENDAR_ABSENT;
        return;
    }
    detach(cal, body);
    cal->count--;
}
