/* calendar.h — the event calendar: one scheduled time per body, earliest first.
 * A small heap holds the near future and a ring of time buckets the rest. */
#ifndef CAROM_CALENDAR_H
#define CAROM_CALENDAR_H

#include <stdint.h>

#include "carom.h"
#include "event.h"

/* A near-future heap entry carries its time, so sifting compares neighbouring
 * entries without visiting the per-body records. Equal times are common (a
 * pair's event is held by both its bodies at one time) and are told apart by
 * the bodies' keys: a heap reads them only at a tie, so that a body moved
 * from a bucket into the heap costs no read of its key (at 10^6 bodies, a
 * miss each); unsorted near events keep theirs beside them (near_key). */
typedef struct calendar_entry {
    double time;
    int32_t body;
} calendar_entry;
_Static_assert(sizeof(calendar_entry) == 16, "four heap entries, a node's children, to a cache line");

/* At most this many near events are held unsorted (calendar.c); slots from
 * near_count up to it always hold an infinite time. */
enum { CALENDAR_FLAT_MAX = 64 };
/* From this many bodies the buckets are eight times wider, the ring eight
 * times shorter, and each bucket is served in sub-buckets (calendar.c says
 * why). */
enum { CALENDAR_WIDE_FROM_BODIES = 1 << 16 };
/* From this many bodies the engine streams the calendar's links while it
 * runs (calendar_stream): below it the records mostly sit in the last-level
 * cache, and a streamed store, which evicts its line, cost more than it
 * saved (bench/README.md, "Links streamed past the caches"). */
enum { CALENDAR_STREAM_FROM_BODIES = 1 << 18 };
/* A wide calendar serves each bucket in this many sub-buckets of equal
 * width, each holding at most CALENDAR_SUB_ROOM events (calendar.c). */
enum { CALENDAR_SUB_BUCKETS = 8, CALENDAR_SUB_ROOM = 64 };

/* Where a body's event is: in the near heap (where >= 0, its position), in
 * bucket b of the ring (where = -2 - b; b = bucket_count is the overflow
 * list), in place q of the sub-buckets (where = -3 - bucket_count - q), or
 * nowhere (CALENDAR_ABSENT). */
enum { CALENDAR_ABSENT = -1 };
/* Scheduled while the calendar is frozen (calendar_freeze): its time is
 * noted, and it is filed when the calendar thaws. */
#define CALENDAR_HELD INT32_MIN

/* How events are filed: after a clear or a reserve, all wait in the overflow
 * list until the next calendar_first sets the buckets from them; if no time
 * was finite then, all go into the heap; otherwise by bucket. */
enum { CALENDAR_COLLECTING = 0, CALENDAR_ALL_NEAR = 1, CALENDAR_BUCKETED = 2, CALENDAR_FROZEN = 3 };

/* A body's record: its time, where it is filed, and the owner's event,
 * which the calendar never reads, only moves with the record (so that the
 * event loop reads one line per event, not two; at 10^6 bodies each is a
 * miss). Its key (ties between equal times) is the owner's key_of[body]. */
typedef struct calendar_body {
    double time;
    int32_t where;
    int32_t next, prev; /* the doubly linked bucket list it is in, -1 at the ends */
    body_event event;
} calendar_body;
_Static_assert(sizeof(calendar_body) == 32, "two calendar records to a cache line");

typedef struct calendar {
    calendar_body *body;   /* per body */
    calendar_entry *heap;  /* the near future: heap[k], k < near_count */
    calendar_entry *block; /* the allocation heap lives in */
    int32_t *head;         /* head[b]: first body of bucket b (bucket_count: overflow) */
    const int32_t *key_of; /* per body: its key (the owner keeps it, and sets it again when it moves); NULL: the body */
    int32_t count;         /* bodies scheduled, anywhere */
    int32_t near_count;    /* of which in the heap */
    int32_t first;         /* heap[first]: the entry calendar_first returned */
    int near_is_heap;      /* 1: heap[] is a 4-ary heap; 0: unsorted (few near events, see calendar.c) */
    /* While unsorted: near_key[k] is heap[k]'s body's key, read when filed
     * (calendar.c, flat_earliest); not kept while a heap. */
    int32_t near_key[CALENDAR_FLAT_MAX];
    int32_t events_per_bucket; /* events a bucket near the front: 8, or 64 from CALENDAR_WIDE_FROM_BODIES */
    int32_t ring_count;    /* of which in ring buckets (not in the overflow list) */
    int32_t capacity;      /* bodies 0 .. capacity-1 may be scheduled */
    int32_t bucket_count;  /* ring size, a power of two */
    int32_t near_limit;    /* a heap larger than this asks for new buckets */
    int mode;              /* CALENDAR_* below */
    int64_t current;       /* the bucket being served: the heap holds every event before its end, */
    int32_t sub_current;   /* or, in a wide calendar, before the end of this sub-bucket of it */
    int32_t sub_count;     /* sub-buckets a bucket: CALENDAR_SUB_BUCKETS in wide calendars, else 1 */
    int sub_whole;         /* 1: this bucket's sub-buckets were merged into the near events (one was full) */
    int32_t sub_held;      /* events in sub-buckets */
    int streaming;         /* calendar_stream */
    int32_t sub_fill[CALENDAR_SUB_BUCKETS];
    int32_t sub_body[CALENDAR_SUB_BUCKETS * CALENDAR_SUB_ROOM]; /* sub-bucket s: sub_body[s * ROOM ..] */
    double origin, inverse_width; /* bucket of time t: floor((t - origin) * inverse_width) */
    int64_t overflow_visits;      /* overflow entries looked at by the sweeps (for tests and benchmarks) */
    int64_t ahead_bucket;         /* calendar_look_ahead: the bucket whose list it walks, */
    int32_t ahead;                /* and the body it reached (NO_BODY: the walk is over) */
    int64_t warm_bucket;          /* calendar_warm_walk: the bucket whose list it walks, */
    int32_t warm_next;            /* and the body whose record it asked for last (NO_BODY: over) */
    const carom_allocator *mem;   /* NULL: the C library */
} calendar;

/* Returns 0 on success, -1 if out of memory (the calendar is then unchanged).
 * calendar_init uses the C library; set cal->mem on a zeroed calendar and
 * call calendar_reserve to use another allocator. */
int calendar_init(calendar *cal, int32_t capacity);
int calendar_reserve(calendar *cal, int32_t capacity);
/* Frees the arrays; the calendar keeps its allocator and can be used again. */
void calendar_free(calendar *cal);
void calendar_clear(calendar *cal);

/* Schedules body at time t (never NaN), or moves it there if already
 * scheduled. Equal times are ordered by key (key_of); a key must stay with
 * its body for as long as the body is scheduled. */
void calendar_set(calendar *cal, int32_t body, double t);
void calendar_remove(calendar *cal, int32_t body);

/* Frozen, the calendar serves nothing: a filing only notes the body's time
 * (and a removal that it has none), and the prefetching walks do nothing.
 * A caller that chooses the order of events itself (run_replay, replay.h)
 * freezes it; calendar_thaw files every scheduled body again, as a clear
 * and a filing of each would. Served events then come in (time, key) order
 * as before. */
void calendar_freeze(calendar *cal);
void calendar_thaw(calendar *cal);

/* After the per-body records were moved between bodies (record of old body b
 * now at new_of_old[b], for every scheduled body), renames the links. */
void calendar_relabel(calendar *cal, const int32_t *new_of_old);

/* Prefetching, at every size: one step along the list of the bucket served
 * after the current one, whose records its events will move into the near
 * events (from L2 at 10^4 bodies, from memory at 10^6: either way a wait on
 * each record in turn). About as many events are taken from a bucket as it holds, so one
 * step an event would just keep pace; the engine takes two, one as an event
 * starts and one halfway through a pair's, so that the walk is ahead when
 * the bucket's time comes even where the lists' lengths vary. Each step
 * reads only the record the step before prefetched, half an event earlier
 * (a step right after an event, just before the next one's, waited). The
 * list may change under the walk; the walk then prefetches records of
 * other lists, which costs nothing but the traffic. Returns the body whose
 * record the step read (its line is in cache now), or -1. */
int32_t calendar_look_ahead(calendar *cal);
/* A second walk, a step a call, along the list of the bucket after the
 * next one, that only asks for each record in turn: when that bucket is
 * the next, the look-ahead walk finds its links in cache. At 10^6 bodies
 * with neighbour lists, the look-ahead walk's waits for links it had asked
 * for half an event before took 41 ns a collision, 12 with this walk
 * (bench/README.md, "A walk a bucket before the look-ahead"). It changes
 * nothing served. */
void calendar_warm_walk(calendar *cal);
/* While on, the links a filing or a removal writes into other bodies'
 * records (the first record of the bucket filed into, the neighbours of a
 * record taken out) are stored past the caches (non-temporal stores). At
 * 10^6 bodies each such record is a random line, and a plain store must
 * first fetch it, which holds up every later store; streamed, the store
 * costs no fetch (bench/README.md, "Links streamed past the caches"). Off
 * (the start) fences them, so that every store before it is seen before
 * any after, by this thread and others. */
void calendar_stream(calendar *cal, int on);
/* Prefetching: the head of the bucket list an event at time t would join
 * (at 10^6 bodies the ring's heads take a megabyte, and each filing reads
 * one at random). Nothing for an event bound for the heap or overflow. */
void calendar_prefetch(const calendar *cal, double t);

/* The body with the earliest time (ties: the lower key); -1 if empty. It may
 * move events from buckets into the heap, hence not const. */
int32_t calendar_first(calendar *cal);
/* The time of the body calendar_first returned. */
static inline double calendar_first_time(const calendar *cal) { return cal->heap[cal->first].time; }

/* A guess at the event after the one calendar_first returned, for
 * prefetching: the body of the earliest unsorted near event later than it
 * (ties: the lower key), or -1 if there is none or the near events are a
 * heap. A third event at the first one's time is passed over. */
int32_t calendar_next_near(const calendar *cal);

/* Whether body is scheduled, and its time (only if it is). */
static inline int calendar_has(const calendar *cal, int32_t body)
{
    return cal->body[body].where != CALENDAR_ABSENT;
}
static inline double calendar_time(const calendar *cal, int32_t body) { return cal->body[body].time; }

#endif
