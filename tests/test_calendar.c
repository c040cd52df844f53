/* test_calendar.c — unit tests of the event calendar (src/calendar.c).
 *
 * The calendar (a near-future heap plus a ring of time buckets) is keyed by
 * (time, body index). It is checked against a plain array that finds the
 * minimum key by a linear scan, after
 * every operation of long random sequences of set (insert, re-time earlier,
 * later, to an equal time, to INFINITY), remove (present or absent) and
 * pop-like steps (take calendar_first, then re-time it later or remove it).
 * Also: calendar_reserve keeps the contents, clear empties, removing an absent
 * body is harmless, and draining yields the exact qsort order of the keys.
 * After every step, the buckets are checked for their invariants (every heap
 * event before every other, each list event in the right bucket, the counts,
 * the empty slots that the unsorted near events' scans read). The near
 * events turn from an unsorted array into a heap and back, and keep the
 * order across both; a calendar for 2^16 bodies or more serves each bucket
 * in eight sub-buckets, and merges them into the near events when one is
 * overfilled.
 * An engine-like sequence on 20,000 bodies (pop, re-time the popped body and a
 * partner later, now and then a far or infinite time) turns the ring many
 * times and is checked against an independent binary heap with lazy deletion;
 * so is one on 2^16 bodies, where the buckets are eight times wider and the
 * ring eight times shorter (and the first bucket is seen to hold about 64
 * events there, about 8 below). In both, and in the sub-buckets' test with
 * its many shared times, the guess at the next event that the engine's
 * prefetching reads (calendar_next_near) is checked against a plain scan of
 * the near events after every calendar_first.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"
#include "carom.h"
#include "check.h"
#include "prefetch.h"

/* ---- random numbers: the library's seeded generator ---- */

static carom_rng rng_state = {{0xca1e0da5u, 0x9e3779b97f4a7c15u, 0x2545f4914f6cdd1du, 1u}};

static uint64_t next_u64(void) { return carom_rng_next(&rng_state); }

static int below(int n)
{
    return (int)(next_u64() % (uint64_t)n);
}

static double uniform01(void)
{
    return (double)(next_u64() >> 11) * 0x1.0p-53;
}

/* Times with many exact ties, INFINITY, both zeros and continuous values. */
static double random_time(void)
{
    switch (below(6)) {
    case 0: return (double)below(4);
    case 1: return INFINITY;
    case 2: return below(2) ? 0.0 : -0.0;
    default: return 10.0 * uniform01();
    }
}

/* ---- the reference: an array scanned linearly ---- */

enum { MAX_BODIES = 200 };

typedef struct reference {
    double time[MAX_BODIES];
    int present[MAX_BODIES];
    int count;
} reference;

/* (time a, body a) strictly before (time b, body b) */
static int key_before(double ta, int a, double tb, int b)
{
    if (ta != tb) return ta < tb;
    return a < b;
}

static int reference_first(const reference *ref, int capacity)
{
    int best = -1;
    for (int b = 0; b < capacity; b++)
        if (ref->present[b] && (best < 0 || key_before(ref->time[b], b, ref->time[best], best)))
            best = b;
    return best;
}

static void reference_set(reference *ref, int body, double t)
{
    if (!ref->present[body]) ref->count++;
    ref->present[body] = 1;
    ref->time[body] = t;
}

static void reference_remove(reference *ref, int body)
{
    if (ref->present[body]) ref->count--;
    ref->present[body] = 0;
}

/* ---- the calendar's own invariants ---- */

static double position_of(const calendar *cal, double t) { return (t - cal->origin) * cal->inverse_width; }

/* Walks bucket `bucket`; checks its links and that each body belongs there.
 * Returns how many bodies it holds, or -1 on a fault. */
static int32_t check_list(const calendar *cal, int32_t bucket)
{
    int32_t n = 0, prev = -1, B = cal->bucket_count;
    double turn = (double)(cal->current - (cal->current & (B - 1))); /* last sweep */
    for (int32_t b = cal->head[bucket]; b >= 0; prev = b, b = cal->body[b].next, n++) {
        const calendar_body *r = &cal->body[b];
        double x = position_of(cal, r->time);
        int ok = r->where == -2 - bucket && r->prev == prev;
        if (cal->mode == CALENDAR_BUCKETED && bucket < B)
            ok = ok && x >= (double)(cal->current + 1) && x < (double)(cal->current + B) &&
                 (((int64_t)x) & (B - 1)) == bucket;
        if (cal->mode == CALENDAR_BUCKETED && bucket == B) ok = ok && !(x < turn + B);
        if (cal->mode == CALENDAR_ALL_NEAR) ok = 0;
        if (!ok || n > cal->capacity) return -1;
    }
    return n;
}

static int32_t key_in(const calendar *cal, int32_t b) { return cal->key_of ? cal->key_of[b] : b; }

/* Whether a near event at time t ends before the bucket being served ends,
 * or its sub-bucket being served, in a wide calendar. */
static int near_bound_holds(const calendar *cal, double t)
{
    double x = position_of(cal, t);
    if (cal->sub_count == 1 || cal->sub_whole) return x < (double)(cal->current + 1);
    return x * cal->sub_count < (double)(cal->current * cal->sub_count + cal->sub_current + 1);
}

/* Walks the sub-buckets: only sub-buckets after the one served hold events,
 * each names its place in where, and its time falls in that eighth of the
 * bucket being served. Returns how many events they hold, or -1 on a fault. */
static int32_t check_subs(const calendar *cal)
{
    int32_t n = 0;
    for (int32_t s = 0; s < CALENDAR_SUB_BUCKETS; s++) {
        int32_t fill = cal->sub_fill[s];
        if (fill < 0 || fill > CALENDAR_SUB_ROOM) return -1;
        if (fill > 0 && (cal->sub_count == 1 || cal->sub_whole || s <= cal->sub_current ||
                         cal->mode != CALENDAR_BUCKETED))
            return -1;
        for (int32_t k = 0; k < fill; k++, n++) {
            int32_t place = s * CALENDAR_SUB_ROOM + k, b = cal->sub_body[place];
            if (b < 0 || b >= cal->capacity || cal->body[b].where != -3 - cal->bucket_count - place) return -1;
            double x = position_of(cal, cal->body[b].time) * cal->sub_count;
            int64_t first = cal->current * cal->sub_count + s;
            if (!(x >= (double)first && x < (double)(first + 1))) return -1;
        }
    }
    return n == cal->sub_held ? n : -1;
}

/* Every heap event before every listed one, lists consistent, counts right. */
static int structure_holds(const calendar *cal)
{
    int32_t ring = 0, listed = 0;
    for (int32_t bucket = 0; bucket <= cal->bucket_count; bucket++) {
        int32_t n = check_list(cal, bucket);
        if (n < 0) return 0;
        listed += n;
        if (bucket < cal->bucket_count) ring += n;
    }
    int32_t in_subs = check_subs(cal);
    if (in_subs < 0) return 0;
    if (!cal->near_is_heap && cal->near_count > CALENDAR_FLAT_MAX) return 0;
    for (int32_t k = cal->near_count; k < CALENDAR_FLAT_MAX; k++)
        if (cal->heap[k].time != INFINITY) return 0; /* the scans read these slots */
    for (int32_t k = 0; k < cal->near_count; k++) {
        const calendar_entry *e = &cal->heap[k];
        if (cal->body[e->body].where != k || cal->body[e->body].time != e->time) return 0;
        if (!cal->near_is_heap && cal->near_key[k] != key_in(cal, e->body)) return 0; /* the scan's keys */
        if (k > 0 && cal->near_is_heap) {
            const calendar_entry *p = &cal->heap[(k - 1) / 4];
            if (e->time < p->time || (e->time == p->time && key_in(cal, e->body) < key_in(cal, p->body))) return 0;
        }
        if (cal->mode == CALENDAR_BUCKETED && !near_bound_holds(cal, e->time)) return 0;
    }
    return ring == cal->ring_count && listed + in_subs + cal->near_count == cal->count;
}

/* 1 if the calendar agrees with the reference; prints the first difference. */
static int agrees(calendar *cal, const reference *ref, int capacity, int step)
{
    int expected = reference_first(ref, capacity);
    if (!structure_holds(cal)) {
        CHECK_MSG(0, "step %d: the buckets' invariants fail", step);
        return 0;
    }
    if (calendar_first(cal) != expected || cal->count != ref->count) {
        CHECK_MSG(0, "step %d: first %d (count %d), expected %d (count %d)", step,
                  (int)calendar_first(cal), (int)cal->count, expected, ref->count);
        return 0;
    }
    for (int b = 0; b < capacity; b++) {
        int present = calendar_has(cal, b);
        if (present != ref->present[b] || (present && calendar_time(cal, b) != ref->time[b])) {
            CHECK_MSG(0, "step %d: body %d present %d, expected %d", step, b, present,
                      ref->present[b]);
            return 0;
        }
    }
    return 1;
}

/* ---- one random operation, applied to both ---- */

static void apply_set(calendar *cal, reference *ref, int body, double t)
{
    calendar_set(cal, body, t);
    reference_set(ref, body, t);
}

static void apply_remove(calendar *cal, reference *ref, int body)
{
    calendar_remove(cal, body);
    reference_remove(ref, body);
}

/* A present body other than none, or -1. */
static int some_present(const reference *ref, int capacity)
{
    int start = below(capacity);
    for (int i = 0; i < capacity; i++) {
        int b = (start + i) % capacity;
        if (ref->present[b]) return b;
    }
    return -1;
}

static void retime_present(calendar *cal, reference *ref, int capacity)
{
    int b = some_present(ref, capacity);
    if (b < 0) return;
    double t = ref->time[b];
    switch (below(4)) {
    case 0: apply_set(cal, ref, b, t); break; /* unchanged */
    case 1: apply_set(cal, ref, b, isinf(t) ? 5.0 : t - 1.0 - uniform01()); break;
    case 2: apply_set(cal, ref, b, t + uniform01()); break;
    default: { /* tie with another present body */
        int other = some_present(ref, capacity);
        apply_set(cal, ref, b, ref->time[other]);
    }
    }
}

static void pop_like(calendar *cal, reference *ref)
{
    int b = calendar_first(cal);
    if (b < 0) return;
    if (below(2)) apply_remove(cal, ref, b);
    else apply_set(cal, ref, b, below(4) ? calendar_time(cal, b) + 2.0 * uniform01() : INFINITY);
}

static void random_step(calendar *cal, reference *ref, int capacity)
{
    int r = below(100);
    if (r < 35) apply_set(cal, ref, below(capacity), random_time());
    else if (r < 55) retime_present(cal, ref, capacity);
    else if (r < 70) apply_remove(cal, ref, below(capacity));
    else pop_like(cal, ref);
}

static void test_random_sequences(void)
{
    for (int run = 0; run < 300; run++) {
        int capacity = 1 + below(run < 100 ? 8 : MAX_BODIES);
        calendar cal;
        reference ref = {{0}, {0}, 0};
        CHECK_EQ_INT(calendar_init(&cal, capacity), 0);
        CHECK_EQ_INT(calendar_first(&cal), -1);
        for (int step = 0; step < 3000; step++) {
            random_step(&cal, &ref, capacity);
            if (!agrees(&cal, &ref, capacity, step)) break;
        }
        calendar_free(&cal);
    }
}

/* Frozen stretches (run_replay's): filings and removals while frozen only
 * note the times; once thawed, the calendar serves what the reference
 * holds, in (time, body) order, and goes on agreeing with it. */
static void test_freeze_and_thaw(void)
{
    for (int run = 0; run < 100; run++) {
        int capacity = 1 + below(MAX_BODIES);
        calendar cal;
        reference ref = {{0}, {0}, 0};
        CHECK_EQ_INT(calendar_init(&cal, capacity), 0);
        int ok = 1;
        for (int round = 0; ok && round < 4; round++) {
            for (int step = 0; ok && step < 500; step++) {
                random_step(&cal, &ref, capacity);
                ok = agrees(&cal, &ref, capacity, step);
            }
            calendar_freeze(&cal);
            for (int step = 0; step < 300; step++) {
                int body = below(capacity);
                if (below(4)) apply_set(&cal, &ref, body, random_time());
                else apply_remove(&cal, &ref, body);
                ok = ok && calendar_has(&cal, body) == ref.present[body];
            }
            CHECK_MSG(ok, "run %d, round %d: a frozen calendar does not know what is scheduled", run, round);
            calendar_thaw(&cal);
            ok = ok && agrees(&cal, &ref, capacity, -1);
        }
        calendar_free(&cal);
    }
}

/* ---- targeted cases ---- */

/* Pops the first event and removes it, in both; returns 0 on a disagreement. */
static int drain_one(calendar *cal, reference *ref, int capacity, int step)
{
    apply_remove(cal, ref, calendar_first(cal));
    return agrees(cal, ref, capacity, step);
}

/* The near events change form: with no finite time every event is near, so
 * MAX_BODIES of them make a heap; retimed to shared times they stay near,
 * and drained they go back to an unsorted array (at CALENDAR_FLAT_MAX / 4);
 * filled again they make a heap again. Every step agrees with the reference,
 * ties by body included. */
static void test_near_events_change_form(void)
{
    enum { N = MAX_BODIES };
    calendar cal;
    reference ref = {{0}, {0}, 0};
    CHECK_EQ_INT(calendar_init(&cal, N), 0);
    for (int b = 0; b < N; b++) apply_set(&cal, &ref, b, INFINITY);
    CHECK(agrees(&cal, &ref, N, 0));
    CHECK_EQ_INT(cal.mode, CALENDAR_ALL_NEAR);
    CHECK(cal.near_is_heap);
    int step = 1, ok = 1;
    for (int b = 0; b < N && ok; b++, step++) {
        apply_set(&cal, &ref, (b * 7) % N, (double)below(30));
        ok = agrees(&cal, &ref, N, step);
    }
    CHECK(cal.near_is_heap);
    int saw_flat = 0;
    while (ok && ref.count > 5) {
        ok = drain_one(&cal, &ref, N, step++);
        saw_flat |= !cal.near_is_heap;
        CHECK(cal.near_is_heap || ref.count <= CALENDAR_FLAT_MAX);
    }
    CHECK(saw_flat);
    for (int b = 0; b < N && ok; b++, step++)
        if (!ref.present[b]) {
            apply_set(&cal, &ref, b, 100.0 + (double)below(5));
            ok = agrees(&cal, &ref, N, step);
        }
    CHECK(cal.near_is_heap);
    while (ok && ref.count > 0) ok = drain_one(&cal, &ref, N, step++);
    CHECK(ok);
    CHECK_EQ_INT(calendar_first(&cal), -1);
    calendar_free(&cal);
}

static void test_ties_and_infinity(void)
{
    calendar cal;
    CHECK_EQ_INT(calendar_init(&cal, 8), 0);
    calendar_set(&cal, 5, INFINITY);
    calendar_set(&cal, 3, INFINITY);
    CHECK_EQ_INT(calendar_first(&cal), 3);
    calendar_set(&cal, 7, 2.0);
    calendar_set(&cal, 6, 2.0);
    CHECK_EQ_INT(calendar_first(&cal), 6);
    calendar_set(&cal, 1, 2.0); /* equal time, lower index: it leads */
    CHECK_EQ_INT(calendar_first(&cal), 1);
    calendar_set(&cal, 1, 2.5); /* later: the next lowest index at 2.0 */
    CHECK_EQ_INT(calendar_first(&cal), 6);
    calendar_set(&cal, 7, 0.0);
    calendar_set(&cal, 2, -0.0); /* -0 == 0: the index decides */
    CHECK_EQ_INT(calendar_first(&cal), 2);
    CHECK_EQ_INT(cal.count, 6);
    calendar_free(&cal);
}

static void test_reserve_keeps_contents(void)
{
    calendar cal;
    CHECK_EQ_INT(calendar_init(&cal, 3), 0);
    calendar_set(&cal, 0, 3.0);
    calendar_set(&cal, 1, 1.0);
    calendar_set(&cal, 2, 2.0);
    CHECK_EQ_INT(calendar_reserve(&cal, 2), 0); /* smaller: nothing to do */
    CHECK_EQ_INT(cal.capacity, 3);
    CHECK_EQ_INT(calendar_reserve(&cal, 1000), 0);
    CHECK(cal.capacity >= 1000);
    CHECK_EQ_INT(cal.count, 3);
    CHECK_EQ_INT(calendar_first(&cal), 1);
    for (int b = 3; b < 1000; b++) CHECK(!calendar_has(&cal, b));
    calendar_set(&cal, 999, 0.5);
    calendar_set(&cal, 500, 1.5);
    const int order[] = {999, 1, 500, 2, 0};
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_INT(calendar_first(&cal), order[i]);
        calendar_remove(&cal, order[i]);
    }
    CHECK_EQ_INT(calendar_first(&cal), -1);
    calendar_free(&cal);
}

static void test_clear(void)
{
    calendar cal;
    CHECK_EQ_INT(calendar_init(&cal, 50), 0);
    for (int b = 0; b < 50; b += 2) calendar_set(&cal, b, (double)(b % 7));
    calendar_clear(&cal);
    CHECK_EQ_INT(cal.count, 0);
    CHECK_EQ_INT(calendar_first(&cal), -1);
    for (int b = 0; b < 50; b++) CHECK(!calendar_has(&cal, b));
    calendar_remove(&cal, 4); /* was present before the clear */
    CHECK_EQ_INT(cal.count, 0);
    calendar_set(&cal, 4, 9.0);
    calendar_set(&cal, 10, 8.0);
    CHECK_EQ_INT(cal.count, 2);
    CHECK_EQ_INT(calendar_first(&cal), 10);
    /* cleared with events near (all of them: no time was finite), then
     * filled again with later times: the emptied slots hold no event */
    calendar_clear(&cal);
    for (int b = 0; b < 50; b++) calendar_set(&cal, b, INFINITY);
    CHECK_EQ_INT(calendar_first(&cal), 0);
    for (int b = 0; b < 50; b++) calendar_set(&cal, b, (double)b);
    CHECK_EQ_INT(calendar_first(&cal), 0);
    calendar_clear(&cal);
    calendar_set(&cal, 30, 40.0);
    calendar_set(&cal, 31, 41.0);
    CHECK_EQ_INT(calendar_first(&cal), 30);
    CHECK(structure_holds(&cal));
    calendar_free(&cal);
}

static void test_remove_absent(void)
{
    calendar cal;
    CHECK_EQ_INT(calendar_init(&cal, 10), 0);
    calendar_remove(&cal, 3); /* empty calendar */
    CHECK_EQ_INT(cal.count, 0);
    calendar_set(&cal, 1, 1.0);
    calendar_set(&cal, 8, 0.5);
    calendar_remove(&cal, 2); /* never scheduled */
    CHECK_EQ_INT(cal.count, 2);
    CHECK_EQ_INT(calendar_first(&cal), 8);
    calendar_remove(&cal, 8);
    calendar_remove(&cal, 8); /* twice */
    CHECK_EQ_INT(cal.count, 1);
    CHECK_EQ_INT(calendar_first(&cal), 1);
    calendar_remove(&cal, 1);
    CHECK_EQ_INT(calendar_first(&cal), -1);
    calendar_free(&cal);
}

/* ---- heap sort against qsort ---- */

typedef struct keyed {
    double time;
    int body;
} keyed;

static int compare_keys(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (key_before(a->time, a->body, b->time, b->body)) return -1;
    if (key_before(b->time, b->body, a->time, a->body)) return 1;
    return 0;
}

static void test_drain_is_sorted(void)
{
    enum { N = 5000 };
    static keyed keys[N];
    calendar cal;
    CHECK_EQ_INT(calendar_init(&cal, N), 0);
    for (int b = 0; b < N; b++) {
        keys[b] = (keyed){below(3) ? (double)below(50) : random_time(), b};
        calendar_set(&cal, b, keys[b].time);
    }
    qsort(keys, N, sizeof keys[0], compare_keys);
    int mismatches = 0;
    for (int i = 0; i < N; i++) {
        int b = calendar_first(&cal);
        if (b != keys[i].body && mismatches++ < 5)
            CHECK_MSG(0, "position %d: body %d, expected %d", i, b, keys[i].body);
        if (b < 0) break;
        calendar_remove(&cal, b);
    }
    CHECK_EQ_INT(mismatches, 0);
    CHECK_EQ_INT(calendar_first(&cal), -1);
    calendar_free(&cal);
}

/* With keys that are not the bodies' indices (the world's ids after a
 * re-sort): equal times go by key, however the bodies came into the heap
 * (from buckets, directly, or moved within it to an equal time), and after
 * the owner moves bodies and keys (calendar_relabel) while their events are
 * filed. Mostly ties, over enough distinct times to fill many buckets. Both
 * a small calendar (unsorted near events, their keys kept beside them) and
 * a large one (a heap, which reads the keys at a tie). */
enum { KEYED_MOST = PREFETCH_FROM_BODIES };
static int32_t test_keys[KEYED_MOST];

static int compare_by_test_key(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->time != b->time) return a->time < b->time ? -1 : 1;
    return test_keys[a->body] < test_keys[b->body] ? -1 : test_keys[a->body] > test_keys[b->body];
}

static void shuffle(int32_t *values, int n)
{
    for (int b = n - 1; b > 0; b--) {
        int other = below(b + 1);
        int32_t swap = values[b];
        values[b] = values[other];
        values[other] = swap;
    }
}

/* The owner moves body b < n to new_of_old[b], its key with it, and tells
 * the calendar; keys[0 .. used) follow their bodies. */
static void move_bodies(calendar *cal, keyed *keys, int used, int n)
{
    static int32_t new_of_old[KEYED_MOST], moved_keys[KEYED_MOST];
    for (int b = 0; b < n; b++) new_of_old[b] = b;
    shuffle(new_of_old, n);
    for (int b = 0; b < n; b++) moved_keys[new_of_old[b]] = test_keys[b];
    memcpy(test_keys, moved_keys, (size_t)n * sizeof *test_keys);
    for (int b = 0; b < used; b++) keys[b].body = new_of_old[keys[b].body];
    static calendar_body moved[KEYED_MOST]; /* the records move with their bodies, as order.c's do */
    for (int b = 0; b < n; b++) moved[new_of_old[b]] = cal->body[b];
    memcpy(cal->body, moved, (size_t)n * sizeof *moved);
    calendar_relabel(cal, new_of_old);
}

static void ties_go_by_key(int n)
{
    static keyed keys[KEYED_MOST];
    for (int b = 0; b < n; b++) test_keys[b] = b;
    shuffle(test_keys, n);
    calendar cal;
    CHECK_EQ_INT(calendar_init(&cal, n), 0);
    cal.key_of = test_keys;
    for (int b = 0; b < n; b++) {
        keys[b] = (keyed){(double)below(400) * 0.25, b};
        calendar_set(&cal, b, keys[b].time);
    }
    for (int round = 0; round < 3 * n; round++) {
        if (round % n == 0) (void)calendar_first(&cal); /* fills the heap from the first bucket */
        if (round == 3 * n / 2) {
            move_bodies(&cal, keys, n, n);
            CHECK(structure_holds(&cal));
        }
        int m = below(n); /* keys[m] is about body keys[m].body */
        keys[m].time = (double)below(400) * 0.25; /* often a time already in the heap */
        calendar_set(&cal, keys[m].body, keys[m].time);
    }
    CHECK(structure_holds(&cal));
    qsort(keys, (size_t)n, sizeof keys[0], compare_by_test_key);
    int mismatches = 0;
    for (int i = 0; i < n; i++) {
        int b = calendar_first(&cal);
        if (b != keys[i].body && mismatches++ < 5)
            CHECK_MSG(0, "position %d: body %d (key %d), expected %d (key %d)", i, b, b < 0 ? -1 : (int)test_keys[b],
                      keys[i].body, (int)test_keys[keys[i].body]);
        if (b < 0) break;
        calendar_remove(&cal, b);
    }
    CHECK_EQ_INT(mismatches, 0);
    calendar_free(&cal);
}

static void test_ties_go_by_key(void)
{
    ties_go_by_key(5000);
    ties_go_by_key(KEYED_MOST);
}

/* calendar_next_near's answer by a plain scan of the near events: the
 * earliest later than calendar_first's in (time, key); -1 if there is none,
 * or if the near events are a heap. */
static int32_t next_near_by_scan(const calendar *cal)
{
    if (cal->near_is_heap || cal->near_count == 0) return -1;
    double first = calendar_first_time(cal), best_time = INFINITY;
    int32_t best = -1;
    for (int32_t k = 0; k < cal->near_count; k++) {
        double t = cal->heap[k].time;
        int32_t b = cal->heap[k].body;
        if (t > first && (t < best_time || (t == best_time && key_in(cal, b) < key_in(cal, best)))) {
            best = b;
            best_time = t;
        }
    }
    return best;
}

/* Whether calendar_next_near agrees with the scan, right after a
 * calendar_first (as the event loop asks); counts the guesses made. */
static int next_near_agrees(calendar *cal, int64_t *guesses)
{
    if (calendar_first(cal) < 0) return 1;
    int32_t got = calendar_next_near(cal), want = next_near_by_scan(cal);
    *guesses += got >= 0;
    if (got != want) CHECK_MSG(0, "the next near event: body %d, expected %d", (int)got, (int)want);
    return got == want;
}

/* A calendar for CALENDAR_WIDE_FROM_BODIES bodies or more serves its wide
 * buckets in sub-buckets, whose events are few and unsorted, and serves the
 * same order: many shared times, drained after random retimings, with the
 * structure checked at every step; halfway, the calendar grows
 * (calendar_reserve) and the bodies move (calendar_relabel) while events
 * wait in sub-buckets. Then a sub-bucket is overfilled (more events at one
 * time than it has room for): the bucket's sub-buckets merge into the near
 * events, which become a heap, and the order still holds. */
static void test_wide_calendars_serve_sub_buckets(void)
{
    enum { N = CALENDAR_WIDE_FROM_BODIES, USED = 3000, CROWD = 3 * CALENDAR_SUB_ROOM };
    _Static_assert((int)N <= (int)KEYED_MOST, "keys for every body");
    static keyed keys[USED];
    for (int b = 0; b < N; b++) test_keys[b] = b;
    shuffle(test_keys, N);
    calendar cal;
    CHECK_EQ_INT(calendar_init(&cal, N), 0);
    cal.key_of = test_keys;
    CHECK_EQ_INT(cal.sub_count, CALENDAR_SUB_BUCKETS);
    for (int b = 0; b < USED; b++) {
        keys[b] = (keyed){(double)below(3000) * 0.01, b * 21};
        calendar_set(&cal, keys[b].body, keys[b].time);
    }
    (void)calendar_first(&cal);
    int32_t most_in_subs = 0, most_near = 0, faults = 0;
    int64_t guesses = 0;
    for (int round = 0; round < USED; round++) {
        int m = below(USED);
        keys[m].time = (double)below(3000) * 0.01;
        calendar_set(&cal, keys[m].body, keys[m].time);
        if (round % 7 == 0 && calendar_first(&cal) >= 0) calendar_set(&cal, calendar_first(&cal), 30.0 + round);
        if (cal.sub_held > most_in_subs) most_in_subs = cal.sub_held;
        if (cal.near_count > most_near) most_near = cal.near_count;
        if (!structure_holds(&cal) && faults++ == 0) CHECK_MSG(0, "round %d: the buckets' invariants fail", round);
        if (faults == 0 && !next_near_agrees(&cal, &guesses)) faults++;
        if (round == USED / 2) {
            CHECK_MSG(cal.sub_held > 0, "%d events in sub-buckets", (int)cal.sub_held);
            move_bodies(&cal, keys, USED, N);
            CHECK(structure_holds(&cal));
            CHECK_EQ_INT(calendar_reserve(&cal, N + 4096), 0); /* gathers every event and files it again */
            CHECK(structure_holds(&cal));
            (void)calendar_first(&cal);
        }
    }
    CHECK_EQ_INT(faults, 0);
    CHECK_MSG(guesses > USED / 2, "a next near event guessed in %lld rounds of %d", (long long)guesses, USED);
    CHECK_MSG(most_in_subs > 0 && most_near < CALENDAR_FLAT_MAX, "%d events in sub-buckets, %d near at most",
              (int)most_in_subs, (int)most_near);
    /* A crowd at one time, in the last sub-bucket of the bucket served. */
    for (int k = 0; k < USED && calendar_first(&cal) >= 0 && cal.sub_current == CALENDAR_SUB_BUCKETS - 1; k++)
        calendar_set(&cal, calendar_first(&cal), 100.0 + k);
    double later = cal.origin + ((double)cal.current + 0.9375) / cal.inverse_width;
    for (int c = 0; c < CROWD; c++) calendar_set(&cal, keys[c].body, later);
    for (int b = 0; b < USED; b++) keys[b].time = calendar_time(&cal, keys[b].body); /* the pops' retimings */
    CHECK(structure_holds(&cal));
    CHECK_MSG(cal.sub_whole && cal.near_is_heap, "sub-buckets merged: %d, a heap: %d", cal.sub_whole,
              cal.near_is_heap);
    qsort(keys, USED, sizeof keys[0], compare_by_test_key);
    int mismatches = 0;
    for (int i = 0; i < USED; i++) {
        int b = calendar_first(&cal);
        if (b != keys[i].body && mismatches++ < 5) CHECK_MSG(0, "position %d: body %d, expected %d", i, b, keys[i].body);
        if (b < 0) break;
        calendar_remove(&cal, b);
        if (i % 97 == 0) CHECK(structure_holds(&cal));
    }
    CHECK_EQ_INT(mismatches, 0);
    calendar_free(&cal);
}

/* ---- an engine-like sequence against a binary heap with lazy deletion ---- */

enum { LONG_BODIES = 20000, LONG_STEPS = 400000, WIDE_BODIES = CALENDAR_WIDE_FROM_BODIES };

typedef struct lazy_item {
    double time;
    int32_t body;
    uint32_t stamp;
} lazy_item;

/* The reference: every set pushes a new item; an item is current only if its
 * stamp is the body's latest. Independent of calendar.c's code. */
typedef struct lazy_heap {
    lazy_item *item;
    int32_t count, capacity;
    uint32_t *stamp;
    int *present;
    double *time;
} lazy_heap;

static int item_before(const lazy_item *a, const lazy_item *b) { return key_before(a->time, a->body, b->time, b->body); }

static void lazy_push(lazy_heap *h, int32_t body, double t)
{
    if (h->count == h->capacity) {
        h->capacity *= 2;
        h->item = realloc(h->item, (size_t)h->capacity * sizeof *h->item);
    }
    lazy_item e = {t, body, ++h->stamp[body]};
    int32_t k = h->count++;
    while (k > 0 && item_before(&e, &h->item[(k - 1) / 2])) {
        h->item[k] = h->item[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h->item[k] = e;
    h->present[body] = 1;
    h->time[body] = t;
}

static void lazy_pop_top(lazy_heap *h)
{
    lazy_item e = h->item[--h->count];
    int32_t k = 0;
    for (;;) {
        int32_t c = 2 * k + 1;
        if (c >= h->count) break;
        if (c + 1 < h->count && item_before(&h->item[c + 1], &h->item[c])) c++;
        if (!item_before(&h->item[c], &e)) break;
        h->item[k] = h->item[c];
        k = c;
    }
    if (h->count > 0) h->item[k] = e;
}

static int32_t lazy_first(lazy_heap *h)
{
    while (h->count > 0) {
        const lazy_item *top = &h->item[0];
        if (h->present[top->body] && top->stamp == h->stamp[top->body]) return top->body;
        lazy_pop_top(h);
    }
    return -1;
}

static double exponential(double mean) { return -mean * log(1.0 - uniform01()); }

/* Both get body at time t. */
static void set_both(calendar *cal, lazy_heap *h, int32_t body, double t)
{
    calendar_set(cal, body, t);
    lazy_push(h, body, t);
}

/* A later time for a body at clock now: mostly a mean free time away; now
 * and then far beyond the ring, at the clock itself, or never. */
static double later_time(double now)
{
    int r = below(1000);
    if (r < 5) return INFINITY;
    if (r < 15) return now + 200.0 * uniform01();
    if (r < 30) return now;
    return now + exponential(1.0);
}

static void engine_like_sequence(int32_t bodies, int steps, int streamed)
{
    calendar cal;
    lazy_heap h = {malloc(1024 * sizeof(lazy_item)), 0, 1024, calloc((size_t)bodies, sizeof(uint32_t)),
                   calloc((size_t)bodies, sizeof(int)), calloc((size_t)bodies, sizeof(double))};
    CHECK_EQ_INT(calendar_init(&cal, bodies), 0);
    calendar_stream(&cal, streamed);
    for (int32_t b = 0; b < bodies; b++) set_both(&cal, &h, b, exponential(1.0));
    double now = 0.0;
    int64_t faults = 0, turns_start = -1, guesses = 0;
    for (int step = 0; step < steps && faults == 0; step++) {
        int32_t b = calendar_first(&cal), expected = lazy_first(&h);
        if (turns_start < 0) turns_start = cal.current;
        if (b != expected || (b >= 0 && calendar_time(&cal, b) != h.time[b])) {
            CHECK_MSG(0, "step %d: first %d, expected %d", step, (int)b, (int)expected);
            faults++;
            break;
        }
        if (b < 0) break;
        if (!next_near_agrees(&cal, &guesses)) faults++;
        double t = calendar_time(&cal, b);
        if (isinf(t)) { /* everything left is infinite: start the bodies again */
            for (int32_t c = 0; c < bodies; c++) set_both(&cal, &h, c, now + exponential(1.0));
            continue;
        }
        CHECK(t >= now);
        now = t;
        calendar_look_ahead(&cal); /* prefetches: they must change nothing */
        calendar_warm_walk(&cal);
        if (cal.ahead < -1 || cal.ahead >= bodies || cal.warm_next < -1 || cal.warm_next >= bodies) {
            CHECK_MSG(0, "step %d: the walks reached bodies %d and %d", step, (int)cal.ahead, (int)cal.warm_next);
            faults++;
        }
        set_both(&cal, &h, b, later_time(now));
        int32_t partner = below(bodies);
        if (below(10) < 6) set_both(&cal, &h, partner, later_time(now));
        else if (below(10) == 0 && h.present[partner]) {
            calendar_remove(&cal, partner);
            h.present[partner] = 0;
        }
        if (step % 4999 == 0 && !structure_holds(&cal)) {
            CHECK_MSG(0, "step %d: the buckets' invariants fail", step);
            faults++;
        }
    }
    CHECK_EQ_INT(faults, 0);
    CHECK_MSG(guesses > steps / 2, "a next near event guessed at %lld steps of %d", (long long)guesses, steps);
    /* The sequence must have turned the ring and swept the overflow list. */
    CHECK_MSG(cal.current - turns_start > 2 * (int64_t)cal.bucket_count, "only %lld buckets served",
              (long long)(cal.current - turns_start));
    calendar_stream(&cal, 0);
    calendar_free(&cal);
    free(h.item);
    free(h.stamp);
    free(h.present);
    free(h.time);
}

/* The sequence for a calendar of 20,000 bodies, and for one of 2^16, whose
 * buckets are eight times wider (more steps, so that its ring turns twice). */
static void test_engine_like_sequence(void) { engine_like_sequence(LONG_BODIES, LONG_STEPS, 0); }
static void test_engine_like_sequence_wide(void) { engine_like_sequence(WIDE_BODIES, 3 * LONG_STEPS, 0); }
/* The links streamed past the caches (calendar_stream), as large worlds
 * write them while they run: the same order. */
static void test_engine_like_sequence_streamed(void) { engine_like_sequence(WIDE_BODIES, 3 * LONG_STEPS, 1); }

/* About events_per_bucket events fall in the first bucket (the near events
 * when the calendar is first served, and in a wide calendar its sub-buckets
 * too: n exponential times of mean 1 set a width of events_per_bucket / n
 * there): 8 below CALENDAR_WIDE_FROM_BODIES, 64 from there, where the ring
 * is eight times shorter (at most capacity / 16 buckets, against at least
 * capacity / 8), and the near events are a sub-bucket's, about 8. */
static void test_bucket_sizes(void)
{
    const int32_t sizes[3] = {LONG_BODIES, PREFETCH_FROM_BODIES + 4000, WIDE_BODIES};
    for (int k = 0; k < 3; k++) {
        calendar cal;
        CHECK_EQ_INT(calendar_init(&cal, sizes[k]), 0);
        for (int32_t b = 0; b < sizes[k]; b++) calendar_set(&cal, b, exponential(1.0));
        CHECK(calendar_first(&cal) >= 0);
        int large = sizes[k] >= CALENDAR_WIDE_FROM_BODIES, expected = large ? 64 : 8;
        CHECK_EQ_INT(cal.events_per_bucket, expected);
        /* Poisson counts of mean 8 and 64: 24 parts them by more than four
         * standard deviations of either */
        int32_t first_bucket = cal.near_count + cal.sub_held; /* a wide one's is in sub-buckets, after the first */
        CHECK_MSG(large ? first_bucket > 24 : first_bucket < 24,
                  "%d bodies: %d events in the first bucket, expected about %d", (int)sizes[k], (int)first_bucket,
                  expected);
        CHECK_MSG(cal.near_count < 24, "%d bodies: %d near events, expected about 8", (int)sizes[k],
                  (int)cal.near_count);
        if (large) CHECK_MSG(16 * (int64_t)cal.bucket_count <= sizes[k], "%d buckets", (int)cal.bucket_count);
        else CHECK_MSG(8 * (int64_t)cal.bucket_count >= sizes[k], "%d buckets", (int)cal.bucket_count);
        calendar_free(&cal);
    }
}

/* calendar_look_ahead walks the list of the bucket served next (warm 0),
 * calendar_warm_walk that of the bucket after it (warm 1), a body a call,
 * and then stops; once the current bucket moves on, it starts again from
 * its new bucket's head. Neither walk moves the other. */
static int32_t walk_step_of(calendar *cal, int warm)
{
    if (warm) {
        calendar_warm_walk(cal);
        return cal->warm_next;
    }
    calendar_look_ahead(cal);
    return cal->ahead;
}

static void walk_follows_its_bucket(int32_t bodies, int warm)
{
    calendar cal;
    CHECK_EQ_INT(calendar_init(&cal, bodies), 0);
    for (int32_t b = 0; b < bodies; b++) calendar_set(&cal, b, exponential(1.0));
    for (int round = 0; round < 3; round++) {
        int32_t first = calendar_first(&cal); /* sets the buckets, then serves them in turn */
        CHECK(first >= 0);
        int32_t bucket = (int32_t)((cal.current + 1 + warm) & (cal.bucket_count - 1)), listed = 0;
        int32_t other = walk_step_of(&cal, !warm);
        for (int32_t b = cal.head[bucket]; b >= 0; b = cal.body[b].next, listed++) {
            int32_t reached = walk_step_of(&cal, warm);
            if (reached != b) {
                CHECK_MSG(0, "round %d: step %d of the walk at %d, the list at %d", round, (int)listed, (int)reached,
                          (int)b);
                break;
            }
        }
        CHECK_MSG(listed > 0, "round %d: the walk's bucket is empty", round);
        CHECK_EQ_INT(warm ? cal.ahead : cal.warm_next, other);
        CHECK_EQ_INT(walk_step_of(&cal, warm), -1);
        CHECK_EQ_INT(walk_step_of(&cal, warm), -1);
        int64_t served = cal.current;
        for (int32_t k = 0; k < bodies && cal.current == served; k++) { /* serve the current bucket out */
            int32_t b = calendar_first(&cal);
            calendar_set(&cal, b, calendar_time(&cal, b) + 10.0);
            calendar_first(&cal);
        }
        CHECK(cal.current > served);
    }
    calendar_free(&cal);
}

static void test_look_ahead_walks_next_bucket(void)
{
    walk_follows_its_bucket(LONG_BODIES, 0);
    walk_follows_its_bucket(WIDE_BODIES, 0);
}

static void test_warm_walk_walks_bucket_after_next(void)
{
    walk_follows_its_bucket(LONG_BODIES, 1);
    walk_follows_its_bucket(WIDE_BODIES, 1);
}

/* A cooling gas: every event is followed by the next at a gap that keeps
 * growing (here by a factor 10^4 over the run, as a granular gas whose
 * temperature falls 10^8-fold). Buckets set for the early events become far
 * too narrow; the calendar must notice (a turn of the ring leaving most
 * events beyond its reach) and set them again, not sweep every event at
 * every turn. The order is checked against the lazy heap throughout. */
static void test_cooling_events_keep_sweeps_short(void)
{
    enum { BODIES = 4096, STEPS = 400000 };
    calendar cal;
    lazy_heap h = {malloc(1024 * sizeof(lazy_item)), 0, 1024, calloc(BODIES, sizeof(uint32_t)),
                   calloc(BODIES, sizeof(int)), calloc(BODIES, sizeof(double))};
    CHECK_EQ_INT(calendar_init(&cal, BODIES), 0);
    for (int32_t b = 0; b < BODIES; b++) set_both(&cal, &h, b, exponential(1.0));
    double scale = 1.0, growth = exp(log(1e4) / STEPS);
    int64_t faults = 0;
    for (int step = 0; step < STEPS && faults == 0; step++) {
        int32_t b = calendar_first(&cal), expected = lazy_first(&h);
        if (b != expected || b < 0) {
            CHECK_MSG(0, "step %d: first %d, expected %d", step, (int)b, (int)expected);
            faults++;
            break;
        }
        double now = calendar_time(&cal, b);
        scale *= growth;
        set_both(&cal, &h, b, now + exponential(BODIES * scale));
    }
    CHECK_EQ_INT(faults, 0);
    CHECK(structure_holds(&cal));
    double per_event = (double)cal.overflow_visits / STEPS;
    printf("  gaps grown 10^4-fold: %.2f overflow entries swept per event\n", per_event);
    CHECK(per_event < 2.0);
    calendar_free(&cal);
    free(h.item);
    free(h.stamp);
    free(h.present);
    free(h.time);
}

int main(void)
{
    RUN(test_random_sequences);
    RUN(test_freeze_and_thaw);
    RUN(test_ties_and_infinity);
    RUN(test_near_events_change_form);
    RUN(test_wide_calendars_serve_sub_buckets);
    RUN(test_reserve_keeps_contents);
    RUN(test_clear);
    RUN(test_remove_absent);
    RUN(test_engine_like_sequence);
    RUN(test_engine_like_sequence_wide);
    RUN(test_engine_like_sequence_streamed);
    RUN(test_bucket_sizes);
    RUN(test_look_ahead_walks_next_bucket);
    RUN(test_warm_walk_walks_bucket_after_next);
    RUN(test_drain_is_sorted);
    RUN(test_ties_go_by_key);
    RUN(test_cooling_events_keep_sweeps_short);
    return CHECK_SUMMARY();
}
