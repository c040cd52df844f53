/* event.h — the one event each body has scheduled: what it is and with
 * whom. Its time is in the calendar, whose per-body record carries it, so
 * that the event loop finds both in one cache line. */
#ifndef CAROM_EVENT_H
#define CAROM_EVENT_H

#include <stdint.h>

enum {
    EVENT_NONE = 0,
    EVENT_PAIR = 1,
    EVENT_WALL = 2,
    EVENT_CELL = 3,
    EVENT_SHELL = 4,
    EVENT_REST = 5,
    EVENT_SENSOR = 6,
    EVENT_FILTER = 7,  /* a steered body decides again (steering.c) */
    EVENT_RECHECK = 8  /* predict again from here: a container search spent its budget (boundary.c) */
};
typedef struct body_event {
    int32_t partner;          /* pair: the other body; wall, rest: carom_wall; cell: face; sensor: the sensor */
    uint32_t partner_counter; /* pair: the partner's collision counter when predicted; sensor: 1 if crossing upwards */
    uint32_t kind : 8;        /* EVENT_* */
    /* Not part of the prediction: the body's events in a row at one instant
     * (run.c's jam test), kept here because these bits were padding. */
    uint32_t instant : 24;
} body_event;
_Static_assert(sizeof(body_event) == 12, "an event is three words");

/* The most events in a row at one instant a body can count (the largest
 * world_def.max_collisions_per_instant). */
enum { EVENT_INSTANT_MAX = (1 << 24) - 1 };

/* Files a new prediction in *e, keeping the count of events at one instant. */
static inline void event_set(body_event *e, body_event prediction)
{
    uint32_t instant = e->instant;
    *e = prediction;
    e->instant = instant;
}

#endif
