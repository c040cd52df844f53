/* flights.c — free times and free paths between pair collisions, and
 * collision counts per species pair, from the event callback. A body's
 * path is summed over its straight segments (a wall bounce starts a new
 * one), each its speed after the event that began it times its duration.
 * The histograms cover 0 to 10 times the mean of the first FLIGHTS_FIRST
 * flights (an exponential leaves e^-10 beyond; a dense fluid's slow bodies
 * a little more), so no range needs guessing; flights beyond it are
 * counted as overflow. In a dilute
 * gas the free time is exponential with mean 1 / (collision rate), and the
 * mean free path is <|v|> / (collision rate) (Chapman & Cowling, "The
 * Mathematical Theory of Non-Uniform Gases", ch. 5). */
#include "flights.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "structure.h"

static double speed_of(const carom_world *world, int32_t body)
{
    carom_body_state s;
    if (carom_world_get_body(world, body, &s) != CAROM_OK) return 0.0;
    return sqrt(s.velocity.x * s.velocity.x + s.velocity.y * s.velocity.y + s.velocity.z * s.velocity.z);
}

int flights_init(flights *f, int species_count, const int32_t *species, int32_t bodies, int bins,
                 const carom_world *world, char *why, size_t why_size)
{
    memset(f, 0, sizeof *f);
    f->species_count = species_count, f->species = species, f->bodies = bodies, f->bins = bins;
    size_t n = (size_t)bodies + 1, pairs = (size_t)structure_pair_count(species_count);
    f->last_pair = malloc(n * sizeof(double));
    f->segment = malloc(n * sizeof(double));
    f->path = calloc(n, sizeof(double));
    f->speed = malloc(n * sizeof(double));
    f->first_time = malloc(FLIGHTS_FIRST * sizeof(double));
    f->first_path = malloc(FLIGHTS_FIRST * sizeof(double));
    f->time.counts = calloc((size_t)bins, sizeof(int64_t));
    f->length.counts = calloc((size_t)bins, sizeof(int64_t));
    f->collisions = calloc(pairs, sizeof(int64_t));
    f->impulse = calloc(pairs, sizeof(double));
    if (!f->last_pair || !f->segment || !f->path || !f->speed || !f->first_time || !f->first_path ||
        !f->time.counts || !f->length.counts || !f->collisions || !f->impulse)
        return snprintf(why, why_size, "analysis.flights: out of memory"), -1;
    f->time.bins = f->length.bins = bins;
    f->started = carom_world_time(world);
    for (int32_t j = 0; j < bodies; j++) {
        f->last_pair[j] = NAN;
        f->segment[j] = f->started;
        f->speed[j] = speed_of(world, j);
    }
    return 0;
}

void flights_free(flights *f)
{
    free(f->last_pair);
    free(f->segment);
    free(f->path);
    free(f->speed);
    free(f->first_time);
    free(f->first_path);
    free(f->time.counts);
    free(f->length.counts);
    free(f->collisions);
    free(f->impulse);
    memset(f, 0, sizeof *f);
}

static void bin_value(flights_histogram *h, double value)
{
    double k = floor(value / h->width);
    if (k < h->bins) h->counts[(int)k]++;
    else h->overflow++;
}

/* Sets the range from the flights so far (10 means over the bins) and bins them. */
static void fix_range(flights *f)
{
    int64_t kept = f->count < FLIGHTS_FIRST ? f->count : FLIGHTS_FIRST;
    if (kept == 0) return;
    f->time.width = 10.0 * (f->time.sum / (double)kept) / f->bins;
    f->length.width = 10.0 * (f->length.sum / (double)kept) / f->bins;
    if (!(f->time.width > 0)) f->time.width = 1.0;
    if (!(f->length.width > 0)) f->length.width = 1.0;
    for (int64_t k = 0; k < kept; k++) {
        bin_value(&f->time, f->first_time[k]);
        bin_value(&f->length, f->first_path[k]);
    }
}

static void add_flight(flights *f, double time, double path)
{
    if (f->count < FLIGHTS_FIRST) {
        f->first_time[f->count] = time, f->first_path[f->count] = path;
    } else {
        if (f->time.width == 0) fix_range(f);
        bin_value(&f->time, time);
        bin_value(&f->length, path);
    }
    f->time.sum += time, f->length.sum += path;
    f->count++;
}

/* Closes a body's straight segment at t and starts the next at its speed now. */
static void turn(flights *f, const carom_world *world, int32_t body, double t)
{
    f->path[body] += f->speed[body] * (t - f->segment[body]);
    f->segment[body] = t;
    f->speed[body] = speed_of(world, body);
}

void flights_event(flights *f, const carom_world *world, const carom_event *e)
{
    if (e->kind == CAROM_EVENT_WALL || e->kind == CAROM_EVENT_REST) {
        if (e->i >= 0 && e->i < f->bodies) turn(f, world, e->i, e->time);
        return;
    }
    if (e->kind != CAROM_EVENT_PAIR || e->i < 0 || e->j >= f->bodies) return;
    int p = structure_pair_index(f->species_count, f->species[e->i], f->species[e->j]);
    f->collisions[p]++;
    f->impulse[p] += e->impulse;
    int32_t both[2] = {e->i, e->j};
    for (int k = 0; k < 2; k++) {
        int32_t b = both[k];
        turn(f, world, b, e->time);
        if (!isnan(f->last_pair[b])) add_flight(f, e->time - f->last_pair[b], f->path[b]);
        f->last_pair[b] = e->time;
        f->path[b] = 0.0;
    }
}

void flights_finish(flights *f)
{
    if (f->time.width == 0) fix_range(f);
}
