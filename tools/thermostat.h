/* thermostat.h — holding a temperature or driving a granular gas (issue
 * 17), by velocity changes at exact instants through the public setters:
 *   andersen: each free body's velocity is drawn anew from the Maxwell
 *     distribution at temperature T at the times of a Poisson process of
 *     rate `rate` per body (Andersen 1980), the collision with a heat bath;
 *   rescale: every `every`, all velocities scaled so that the temperature
 *     (carom_stats.temperature) is T again;
 *   drive: at Poisson times of rate `rate` per body, a body gets a random
 *     kick, each velocity component changed by a normal number of standard
 *     deviation `kick` (a discrete white-noise driving, van Noije & Ernst
 *     1998): a granular gas (restitution < 1) reaches a steady state whose
 *     temperature balances the energy put in against the collisions' loss.
 * Everything is drawn from one generator seeded by the run's seed, and the
 * generator's state is part of a checkpoint: runs are bitwise reproducible
 * and restart bit for bit. */
#ifndef CAROM_THERMOSTAT_H
#define CAROM_THERMOSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "carom.h"

typedef enum { THERMOSTAT_NONE = 0, THERMOSTAT_ANDERSEN, THERMOSTAT_RESCALE, THERMOSTAT_DRIVE } thermostat_kind;

typedef struct thermostat {
    /* the settings */
    thermostat_kind kind;
    double temperature;   /* andersen, rescale: kT */
    double rate;          /* andersen, drive: events per free body per unit time */
    double every;         /* rescale: the interval */
    double kick;          /* drive: the standard deviation of a kick's velocity components */
    /* the state */
    carom_rng rng;
    double next;          /* the next event's time */
    double origin;        /* rescale: event k at origin + k every */
    int64_t index;        /* rescale: k of the next event */
    int64_t events;       /* events applied */
    int32_t free_count;   /* free bodies (0: to be counted; not kept in checkpoints) */
} thermostat;

/* Whether t's settings suit world's free bodies: a total rate of at most
 * 1e300 events a unit of time, and draws within the velocities the library
 * takes (a spread sqrt(T / m) or a kick of at most 1e74). Returns 0, or -1
 * with a message. */
int thermostat_check(const thermostat *t, const carom_world *world, char *why, size_t why_size);

/* Starts the thermostat t (settings filled in) on world now, seeded by seed.
 * Returns 0, or -1 with a message (no free body to act on). */
int thermostat_start(thermostat *t, const carom_world *world, uint64_t seed, char *why, size_t why_size);

/* The time of the next event (INFINITY with none). */
double thermostat_next_time(const thermostat *t);

/* Applies every event due now (the world's clock). Returns 0, or -1 with carom's message. */
int thermostat_apply(thermostat *t, carom_world *world, char *why, size_t why_size);

/* "andersen", "rescale", "drive" or "none". */
const char *thermostat_name(thermostat_kind kind);

#endif
