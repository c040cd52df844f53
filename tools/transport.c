/* transport.c — MSD and VACF over multiple time origins (Allen &
 * Tildesley, "Computer Simulation of Liquids", sec. 8.4): at each sample,
 * for every origin within `lags` samples, |r(t) - r(t0)|^2 and v(t).v(t0)
 * are summed per species. A body's unwrapped position is the start of its
 * current straight segment plus its velocity times the time since, and
 * each of its events (a collision, a wall) closes a segment and opens the
 * next at its new velocity: no periodic image is ever guessed. */
#include "transport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int transport_init(transport *t, const transport_def *def, char *why, size_t why_size)
{
    memset(t, 0, sizeof *t);
    t->def = *def;
    size_t body3 = (size_t)def->bodies * 3, slots = (size_t)def->lags + 1;
    size_t sums = slots * ((size_t)def->species_count + 1);
    t->start = malloc(body3 * sizeof(double) + 1);
    t->velocity = malloc(body3 * sizeof(double) + 1);
    t->since = malloc((size_t)def->bodies * sizeof(double) + 1);
    t->ring_x = malloc(slots * body3 * sizeof(double) + 1);
    t->ring_v = malloc(slots * body3 * sizeof(double) + 1);
    t->msd = calloc(sums, sizeof(double));
    t->vacf = calloc(sums, sizeof(double));
    t->origins = calloc(slots, sizeof(int64_t));
    t->species_size = calloc((size_t)def->species_count + 1, sizeof(int64_t));
    if (!t->start || !t->velocity || !t->since || !t->ring_x || !t->ring_v || !t->msd || !t->vacf ||
        !t->origins || !t->species_size)
        return snprintf(why, why_size, "analysis.msd: out of memory (%d lags of %d bodies take %.3g bytes)",
                        def->lags, (int)def->bodies, 2.0 * (double)slots * (double)body3 * 8.0), -1;
    for (int32_t j = 0; j < def->bodies; j++) t->species_size[def->species[j]]++;
    t->species_size[def->species_count] = def->bodies;
    return 0;
}

void transport_free(transport *t)
{
    free(t->start);
    free(t->velocity);
    free(t->since);
    free(t->ring_x);
    free(t->ring_v);
    free(t->msd);
    free(t->vacf);
    free(t->origins);
    free(t->species_size);
    memset(t, 0, sizeof *t);
}

/* Starts body b's next straight segment now, from where its last one took it (or, first, from where it is). */
static void new_segment(transport *t, const carom_world *world, int32_t b, int first)
{
    carom_body_state s;
    if (carom_world_get_body(world, b, &s) != CAROM_OK) return;
    double now = carom_world_time(world), *x = &t->start[3 * b], *v = &t->velocity[3 * b];
    if (first) x[0] = s.position.x, x[1] = s.position.y, x[2] = s.position.z;
    else
        for (int a = 0; a < 3; a++) x[a] += v[a] * (now - t->since[b]);
    v[0] = s.velocity.x, v[1] = s.velocity.y, v[2] = s.velocity.z;
    t->since[b] = now;
}

void transport_event(transport *t, const carom_world *world, const carom_event *e)
{
    if (t->samples == 0 || e->i < 0 || e->i >= t->def.bodies) return;
    if (e->kind == CAROM_EVENT_PAIR) {
        new_segment(t, world, e->i, 0);
        if (e->j >= 0 && e->j < t->def.bodies) new_segment(t, world, e->j, 0);
    } else if (e->kind == CAROM_EVENT_WALL || e->kind == CAROM_EVENT_REST) {
        new_segment(t, world, e->i, 0);
    }
}

/* Sums lag k: this sample against the one k samples before. */
static void correlate(transport *t, const double *x, const double *v, const double *x0, const double *v0, int k)
{
    const transport_def *d = &t->def;
    size_t row = (size_t)k * ((size_t)d->species_count + 1);
    for (int32_t j = 0; j < d->bodies; j++) {
        double r2 = 0.0, vv = 0.0;
        for (int a = 0; a < d->dim; a++) {
            size_t c = 3 * (size_t)j + (size_t)a;
            double dx = x[c] - x0[c];
            r2 += dx * dx;
            vv += v[c] * v0[c];
        }
        t->msd[row + (size_t)d->species[j]] += r2, t->msd[row + (size_t)d->species_count] += r2;
        t->vacf[row + (size_t)d->species[j]] += vv, t->vacf[row + (size_t)d->species_count] += vv;
    }
    t->origins[k]++;
}

void transport_sample(transport *t, const carom_world *world)
{
    const transport_def *d = &t->def;
    double now = carom_world_time(world);
    size_t body3 = (size_t)d->bodies * 3, slots = (size_t)d->lags + 1;
    size_t slot = (size_t)(t->samples % (int64_t)slots);
    double *x = t->ring_x + slot * body3, *v = t->ring_v + slot * body3;
    for (int32_t j = 0; j < d->bodies; j++) {
        if (t->samples == 0) new_segment(t, world, j, 1);
        for (int a = 0; a < 3; a++) {
            size_t c = 3 * (size_t)j + (size_t)a;
            x[c] = t->start[c] + t->velocity[c] * (now - t->since[j]);
            v[c] = t->velocity[c];
        }
    }
    for (int k = 0; k <= d->lags && k <= t->samples; k++) {
        size_t then = (size_t)((t->samples - k) % (int64_t)slots);
        correlate(t, x, v, t->ring_x + then * body3, t->ring_v + then * body3, k);
    }
    t->samples++;
}

static double per_body(const transport *t, const double *sums, int k, int s)
{
    if (k < 0 || k > t->def.lags || t->origins[k] == 0 || t->species_size[s] == 0) return NAN;
    return sums[(size_t)k * ((size_t)t->def.species_count + 1) + (size_t)s] /
           ((double)t->origins[k] * (double)t->species_size[s]);
}

double transport_msd(const transport *t, int k, int s) { return per_body(t, t->msd, k, s); }
double transport_vacf(const transport *t, int k, int s) { return per_body(t, t->vacf, k, s); }
