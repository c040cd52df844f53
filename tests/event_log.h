/* event_log.h — a small fixed log of the events a world reports, for tests:
 * pass record as world_def.on_event and an event_log as its user pointer.
 * count keeps counting past MAX_LOG, so a test can see that more happened. */
#ifndef CAROM_TEST_EVENT_LOG_H
#define CAROM_TEST_EVENT_LOG_H

#include "carom.h"

#ifndef EVENT_LOG_CAPACITY /* a test may ask for more before including this */
#define EVENT_LOG_CAPACITY 64
#endif
enum { MAX_LOG = EVENT_LOG_CAPACITY };
typedef struct event_log {
    int count;
    carom_event events[MAX_LOG];
} event_log;

static int record(void *user, const carom_event *e)
{
    event_log *log = user;
    if (log->count < MAX_LOG) log->events[log->count] = *e;
    log->count++;
    return 0;
}

#endif
