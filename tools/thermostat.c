/* thermostat.c — Andersen's heat bath, velocity rescaling and white-noise
 * driving as exact events (thermostat.h). The Poisson processes are one
 * process of rate `rate` times the free bodies, each event at a body drawn
 * uniformly (Andersen, J. Chem. Phys. 72, 2384 (1980)); the times add
 * exponential gaps to the previous event's time, so where a run happens to
 * stop never changes them. A drawn kinematic body is drawn again (a few
 * times, then the next free body in index order). */
#include "thermostat.h"

#include <math.h>
#include <stdio.h>

enum { DRAWS = 64 };

/* A world takes velocity components of 0 or CAROM_SCALE_MIN to
 * CAROM_SCALE_MAX in size. A normal draw from a 53-bit uniform stays within
 * 8.6 standard deviations, so a spread of at most a tenth of the top keeps
 * every draw below it; a component that lands below the bottom is taken as 0. */
static const double SPREAD_MAX = CAROM_SCALE_MAX / 10.0, COMPONENT_MIN = CAROM_SCALE_MIN;
/* Events per unit time over all free bodies: above this the gaps between
 * them are below 1e-300 and lose their digits. */
static const double TOTAL_RATE_MAX = 1e300;

const char *thermostat_name(thermostat_kind kind)
{
    static const char *names[] = {"none", "andersen", "rescale", "drive"};
    return kind >= THERMOSTAT_NONE && kind <= THERMOSTAT_DRIVE ? names[kind] : "none";
}

static int is_free(const carom_world *world, int32_t body)
{
    carom_body_state s;
    return carom_world_get_body(world, body, &s) == CAROM_OK && isfinite(s.mass);
}

static int32_t free_bodies(const carom_world *world)
{
    int32_t count = 0, n = carom_world_body_count(world);
    for (int32_t j = 0; j < n; j++) count += is_free(world, j);
    return count;
}

/* The gap to the next event of the process over every free body. */
static double gap(thermostat *t, const carom_world *world)
{
    if (t->free_count == 0) t->free_count = free_bodies(world);
    double total = t->rate * (double)t->free_count;
    return -log(1.0 - carom_rng_uniform(&t->rng)) / total;
}

/* The smallest mass of a free body (INFINITY with none). */
static double lightest_free(const carom_world *world)
{
    double lightest = INFINITY;
    for (int32_t j = 0, n = carom_world_body_count(world); j < n; j++) {
        carom_body_state s;
        if (carom_world_get_body(world, j, &s) == CAROM_OK && isfinite(s.mass) && s.mass < lightest) lightest = s.mass;
    }
    return lightest;
}

int thermostat_check(const thermostat *t, const carom_world *world, char *why, size_t why_size)
{
    if (t->kind == THERMOSTAT_NONE) return 0;
    int32_t free_count = free_bodies(world);
    if (t->kind != THERMOSTAT_RESCALE && !(t->rate * (double)free_count <= TOTAL_RATE_MAX))
        return snprintf(why, why_size, "thermostat: rate %g on %d free bodies gives %g events a unit of time "
                        "(expected at most %g in all)", t->rate, (int)free_count, t->rate * (double)free_count,
                        TOTAL_RATE_MAX), -1;
    if (t->kind == THERMOSTAT_DRIVE)
        return t->kick <= SPREAD_MAX ? 0 : (snprintf(why, why_size, "thermostat: kick %g: expected at most %g "
                                                     "(velocities are limited to 1e75)", t->kick, SPREAD_MAX), -1);
    double lightest = lightest_free(world), spread = sqrt(t->temperature / lightest);
    if (free_count > 0 && !(spread <= SPREAD_MAX))
        return snprintf(why, why_size, "thermostat: temperature %g gives the lightest free body (mass %g) a "
                        "velocity spread sqrt(T / m) = %g (expected at most %g: velocities are limited to 1e75)",
                        t->temperature, lightest, spread, SPREAD_MAX), -1;
    return 0;
}

int thermostat_start(thermostat *t, const carom_world *world, uint64_t seed, char *why, size_t why_size)
{
    t->rng = carom_rng_seed(seed ^ 0x7468657266ull); /* its own stream, apart from the placement's */
    t->events = 0;
    t->index = 1;
    t->origin = carom_world_time(world);
    t->free_count = free_bodies(world);
    if (t->kind == THERMOSTAT_NONE) return t->next = INFINITY, 0;
    if (t->free_count == 0)
        return snprintf(why, why_size, "thermostat: the world has no free body to act on"), -1;
    t->next = t->kind == THERMOSTAT_RESCALE ? t->origin + t->every : t->origin + gap(t, world);
    return 0;
}

double thermostat_next_time(const thermostat *t) { return t->kind == THERMOSTAT_NONE ? INFINITY : t->next; }

static int32_t draw_body(thermostat *t, const carom_world *world)
{
    int32_t n = carom_world_body_count(world), body = 0;
    for (int k = 0; k < DRAWS; k++) {
        body = (int32_t)(carom_rng_uniform(&t->rng) * n);
        if (body >= n) body = n - 1;
        if (is_free(world, body)) return body;
    }
    while (!is_free(world, body)) body = (body + 1) % n;
    return body;
}

static int set_velocity(carom_world *world, int32_t body, carom_vec v, char *why, size_t why_size)
{
    if (carom_world_set_body_velocity(world, body, v) == CAROM_OK) return 0;
    return snprintf(why, why_size, "thermostat: %s", carom_world_message(world)), -1;
}

/* One event of the Poisson process: a new Maxwell velocity, or a kick. */
static int act_on_one(thermostat *t, carom_world *world, char *why, size_t why_size)
{
    int32_t body = draw_body(t, world);
    carom_body_state s;
    carom_world_get_body(world, body, &s);
    int dim = carom_world_definition(world).dim;
    double z0 = carom_rng_normal(&t->rng), z1 = carom_rng_normal(&t->rng), z2 = dim == 3 ? carom_rng_normal(&t->rng) : 0;
    carom_vec v;
    if (t->kind == THERMOSTAT_ANDERSEN) {
        double scale = sqrt(t->temperature / s.mass);
        v = (carom_vec){scale * z0, scale * z1, scale * z2};
    } else {
        v = (carom_vec){s.velocity.x + t->kick * z0, s.velocity.y + t->kick * z1, s.velocity.z + t->kick * z2};
    }
    if (fabs(v.x) < COMPONENT_MIN) v.x = 0.0;
    if (fabs(v.y) < COMPONENT_MIN) v.y = 0.0;
    if (fabs(v.z) < COMPONENT_MIN) v.z = 0.0;
    return set_velocity(world, body, v, why, why_size);
}

static int rescale(thermostat *t, carom_world *world, char *why, size_t why_size)
{
    double now = carom_world_stats(world).temperature;
    if (!(now > 0)) return 0; /* nothing moves: nothing to scale */
    double f = sqrt(t->temperature / now);
    int32_t n = carom_world_body_count(world);
    for (int32_t j = 0; j < n; j++) {
        carom_body_state s;
        carom_world_get_body(world, j, &s);
        if (!isfinite(s.mass)) continue;
        carom_vec v = {f * s.velocity.x, f * s.velocity.y, f * s.velocity.z};
        if (set_velocity(world, j, v, why, why_size) != 0) return -1;
    }
    return 0;
}

/* The rescaling after now: origin + k every for the least k >= index past
 * now (the times grow with k), as a loop over k would find it. k is found by
 * division, then moved a step at a time for rounding; a few steps always do
 * unless the clock cannot tell neighbouring k apart, and then 0 is returned
 * (the times would not advance). */
static int next_rescale(thermostat *t, double now)
{
    double k = floor((now - t->origin) / t->every) + 1.0;
    if (!(k >= (double)t->index)) k = (double)t->index;
    for (int step = 0; step < 4 && k - 1.0 >= (double)t->index && t->origin + (k - 1.0) * t->every > now; step++)
        k -= 1.0;
    for (int step = 0; step < 4 && !(t->origin + k * t->every > now); step++) k += 1.0;
    int found = t->origin + k * t->every > now &&
                !(k - 1.0 >= (double)t->index && t->origin + (k - 1.0) * t->every > now) && k < 9.2e18;
    t->index = found ? (int64_t)k : t->index;
    t->next = found ? t->origin + k * t->every : t->next;
    return found;
}

/* An event time that did not pass the last one: the clock cannot tell the
 * events apart, and the loop would never end. */
static int unresolved(const thermostat *t, double now, char *why, size_t why_size)
{
    return snprintf(why, why_size, "thermostat: at t = %.17g its events come closer together than the clock can "
                    "resolve (expected a %s)", now, t->kind == THERMOSTAT_RESCALE ? "longer rescale.every"
                    : "smaller rate"), -1;
}

int thermostat_apply(thermostat *t, carom_world *world, char *why, size_t why_size)
{
    double now = carom_world_time(world);
    while (t->kind != THERMOSTAT_NONE && t->next <= now) {
        double last = t->next;
        if (t->kind == THERMOSTAT_RESCALE) {
            if (rescale(t, world, why, why_size) != 0) return -1;
            if (!next_rescale(t, now)) return unresolved(t, now, why, why_size);
        } else {
            if (act_on_one(t, world, why, why_size) != 0) return -1;
            t->next += gap(t, world);
        }
        t->events++;
        if (!(t->next > last)) return unresolved(t, now, why, why_size);
    }
    return 0;
}
