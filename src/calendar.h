/* calendar.h — the event calendar: one scheduled time per body, earliest first. */
#ifndef CAROM_CALENDAR_H
#define CAROM_CALENDAR_H

#include <stdint.h>

/* A heap entry carries its time, so sifting compares neighbouring entries
 * without visiting a per-body array (one cache line holds four entries). */
typedef struct calendar_entry {
    double time;
    int32_t body;
    int32_t key; /* breaks ties between equal times: lower first */
} calendar_entry;

typedef struct calendar {
    calendar_entry *heap; /* heap[k]: the entry at heap position k */
    calendar_entry *block; /* the allocation heap lives in */
    int32_t *where;       /* where[body]: its heap position, -1 if absent */
    int32_t count;
    int32_t capacity; /* bodies 0 .. capacity-1 may be scheduled */
} calendar;

/* Returns 0 on success, -1 if out of memory (the calendar is then unchanged). */
int calendar_init(calendar *cal, int32_t capacity);
int calendar_reserve(calendar *cal, int32_t capacity);
void calendar_free(calendar *cal);
void calendar_clear(calendar *cal);

/* Schedules body at time t, or moves it there if already scheduled. Equal
 * times are ordered by key (calendar_set: the body itself); a key must stay
 * with its body for as long as the body is scheduled. */
void calendar_set_keyed(calendar *cal, int32_t body, int32_t key, double t);
void calendar_set(calendar *cal, int32_t body, double t);
/* Renames every scheduled body b to new_of_old[b] (bodies moved in memory). */
void calendar_relabel(calendar *cal, const int32_t *new_of_old);
void calendar_remove(calendar *cal, int32_t body);

/* The body with the earliest time (ties: the lower key); -1 if empty. */
static inline int32_t calendar_first(const calendar *cal)
{
    return cal->count > 0 ? cal->heap[0].body : -1;
}

/* Whether body is scheduled, and its time (only if it is). */
static inline int calendar_has(const calendar *cal, int32_t body) { return cal->where[body] >= 0; }
static inline double calendar_time(const calendar *cal, int32_t body)
{
    return cal->heap[cal->where[body]].time;
}

#endif
