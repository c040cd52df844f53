/* calendar.h — the event calendar: one scheduled time per body, earliest first. */
#ifndef CAROM_CALENDAR_H
#define CAROM_CALENDAR_H

#include <stdint.h>

typedef struct calendar {
    int32_t *heap;  /* heap[k]: the body at heap position k */
    int32_t *where; /* where[body]: its heap position, -1 if absent */
    double *time;   /* time[body]: its scheduled time */
    int32_t count;
    int32_t capacity; /* bodies 0 .. capacity-1 may be scheduled */
} calendar;

/* Returns 0 on success, -1 if out of memory (the calendar is then unchanged). */
int calendar_init(calendar *cal, int32_t capacity);
int calendar_reserve(calendar *cal, int32_t capacity);
void calendar_free(calendar *cal);
void calendar_clear(calendar *cal);

/* Schedules body at time t, or moves it there if already scheduled. */
void calendar_set(calendar *cal, int32_t body, double t);
void calendar_remove(calendar *cal, int32_t body);

/* The body with the earliest time (ties: the lower body index); -1 if empty. */
static inline int32_t calendar_first(const calendar *cal)
{
    return cal->count > 0 ? cal->heap[0] : -1;
}

#endif
