/* flights.h — free flights and collisions from the event stream (issue
 * 17): the time and path length between a body's successive pair
 * collisions (wall bounces continue a flight), their means and
 * distributions, and pair collisions per species pair with the impulse they
 * exchanged. Flights that began before the analysis started are not
 * counted, so no flight is cut short. Paths are speed x time over straight
 * segments: flights needs bodies that fly straight (no gravity, no own
 * accelerations). */
#ifndef CAROM_FLIGHTS_H
#define CAROM_FLIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include "carom.h"

enum { FLIGHTS_FIRST = 10000 }; /* flights kept before the histograms' range is fixed */

typedef struct flights_histogram {
    double width;        /* bin width; 0 until FLIGHTS_FIRST flights are in (or at the end) */
    int bins;
    int64_t *counts;     /* [bins]; flights beyond the last bin are in overflow */
    int64_t overflow;
    double sum;
} flights_histogram;

typedef struct flights {
    int species_count, bins;
    const int32_t *species;
    int32_t bodies;
    double *last_pair;   /* [body] time of its last pair collision (NaN: none since the start) */
    double *segment;     /* [body] start of its current straight segment */
    double *path;        /* [body] path since its last pair collision, up to the segment */
    double *speed;       /* [body] speed on the current segment */
    double *first_time, *first_path; /* the first FLIGHTS_FIRST flights */
    int64_t count;       /* flights counted */
    flights_histogram time, length;
    int64_t *collisions; /* [species pair] pair collisions since the start */
    double *impulse;     /* [species pair] sum of their impulses */
    double started;
} flights;

int flights_init(flights *f, int species_count, const int32_t *species, int32_t bodies, int bins,
                 const carom_world *world, char *why, size_t why_size);
void flights_free(flights *f);

/* One processed event (from the world's callback, after it was applied). */
void flights_event(flights *f, const carom_world *world, const carom_event *event);

/* Fixes the histograms' range if fewer than FLIGHTS_FIRST flights came. */
void flights_finish(flights *f);

#endif
