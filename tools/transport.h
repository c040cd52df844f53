/* transport.h — mean square displacement and velocity autocorrelation at
 * exact instants (issue 17), over many time origins: every sample is an
 * origin, and lags go up to `lags` sample intervals. Positions are
 * unwrapped exactly, whatever the sample interval: each body's path is
 * followed from the event stream (its velocity changes only at its own
 * events, and it flies straight in between), never guessed from the
 * minimum image between samples. */
#ifndef CAROM_TRANSPORT_H
#define CAROM_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "carom.h"

typedef struct transport_def {
    int dim;
    int species_count;
    const int32_t *species;
    int32_t bodies;
    int lags;        /* lags 1 .. lags (times the sample interval) */
} transport_def;

typedef struct transport {
    transport_def def;
    int64_t samples;
    double *start, *velocity, *since; /* [body]([3]): unwrapped position and velocity at the start of its
                                         straight segment, and the segment's start time */
    double *ring_x, *ring_v; /* [lags + 1][body][3]: unwrapped positions and velocities of the last samples */
    double *msd, *vacf;      /* [lag][species + 1]: sums (the last column: all bodies) */
    int64_t *origins;        /* [lag]: origins summed */
    int64_t *species_size;
} transport;

int transport_init(transport *t, const transport_def *def, char *why, size_t why_size);
void transport_free(transport *t);

/* One sample of the world now (the first one also starts following the bodies). */
void transport_sample(transport *t, const carom_world *world);

/* Called with every processed event after the first sample. */
void transport_event(transport *t, const carom_world *world, const carom_event *event);

/* Per body of species s (or of all, s = species_count): MSD and VACF at lag
 * k (k = 0 .. lags; NaN where no origin is that old yet). */
double transport_msd(const transport *t, int k, int s);
double transport_vacf(const transport *t, int k, int s);

#endif
