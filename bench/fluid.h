/* fluid.h — the hard-sphere fluid of the design studies (carom_regions,
 * carom_replay), and running it to a number of collisions: n = 4 k^3 spheres of diameter 1 and mass 1 on an fcc
 * lattice in a periodic cube at packing fraction density, with Gaussian
 * velocities less their mean, scaled to kT = 1 exactly (as carom_bench). */
#ifndef CAROM_BENCH_FLUID_H
#define CAROM_BENCH_FLUID_H

#include <stddef.h>
#include <stdint.h>

#include "carom.h"

/* The world, or NULL with why. shell: world_def.neighbour_shell (0: the
 * engine chooses, -1: cell lists); on_event and user: its callback. The
 * bodies made and the box side go to *count and *side. */
carom_world *bench_fluid(long n, double density, uint64_t seed, double shell, carom_event_callback on_event,
                         void *user, int32_t *count, double *side, char *why, size_t size);

/* Runs w until it has had target pair collisions in all: 0; 1 if the
 * callback stopped the run first; -1 with why if carom_world_run failed. */
int bench_run_pairs(carom_world *w, int64_t target, char *why, size_t size);

#endif
