/* test_calendar.c — unit tests of the event calendar (src/calendar.c).
 *
 * The calendar is an indexed heap keyed by (time, body index). It is checked
 * against a plain array that finds the minimum key by a linear scan, after
 * every operation of long random sequences of set (insert, re-time earlier,
 * later, to an equal time, to INFINITY), remove (present or absent) and
 * pop-like steps (take calendar_first, then re-time it later or remove it).
 * Also: calendar_reserve keeps the contents, clear empties, removing an absent
 * body is harmless, and draining yields the exact qsort order of the keys.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "calendar.h"
#include "carom.h"
#include "check.h"

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

/* 1 if the calendar agrees with the reference; prints the first difference. */
static int agrees(const calendar *cal, const reference *ref, int capacity, int step)
{
    int expected = reference_first(ref, capacity);
    if (calendar_first(cal) != expected || cal->count != ref->count) {
        CHECK_MSG(0, "step %d: first %d (count %d), expected %d (count %d)", step,
                  (int)calendar_first(cal), (int)cal->count, expected, ref->count);
        return 0;
    }
    for (int b = 0; b < capacity; b++) {
        int present = cal->where[b] >= 0;
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

/* ---- targeted cases ---- */

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
    for (int b = 3; b < 1000; b++) CHECK(cal.where[b] < 0);
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
    for (int b = 0; b < 50; b++) CHECK(cal.where[b] < 0);
    calendar_remove(&cal, 4); /* was present before the clear */
    CHECK_EQ_INT(cal.count, 0);
    calendar_set(&cal, 4, 9.0);
    calendar_set(&cal, 10, 8.0);
    CHECK_EQ_INT(cal.count, 2);
    CHECK_EQ_INT(calendar_first(&cal), 10);
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

int main(void)
{
    RUN(test_random_sequences);
    RUN(test_ties_and_infinity);
    RUN(test_reserve_keeps_contents);
    RUN(test_clear);
    RUN(test_remove_absent);
    RUN(test_drain_is_sorted);
    return CHECK_SUMMARY();
}
