/* event_rate.h — collisions per unit time from an events log (the
 * time,kind,i,j file `carom run` writes), in bins of time, for `carom
 * plot` (event_rate.c). */
#ifndef CAROM_EVENT_RATE_H
#define CAROM_EVENT_RATE_H
#include <stddef.h>
#include <stdint.h>

#define EVENT_RATE_HEADER "time,kind,i,j"

typedef struct event_rate {
    int bins;
    double start, width;  /* bin b spans [start + b width, start + (b + 1) width) */
    int64_t *pair, *wall; /* counts per bin (wall: wall and rest events) */
    int64_t pairs, walls, sensors;
} event_rate;

/* Whether path's first line is the events log's header. */
int event_rate_is_log(const char *path);

/* Reads the log and counts its events in bins equal bins over [first time,
 * last time]. Every row is checked: a bad time, kind or body, or a time
 * before the previous row's, is named by FILE:LINE:COL. Returns 0, or -1
 * with a message (nothing allocated). */
int event_rate_read(const char *path, int bins, event_rate *rate, char *why, size_t size);

void event_rate_free(event_rate *rate);

#endif
