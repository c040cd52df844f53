/* test_invariants.c — what exact event-driven dynamics must keep over long runs.
 *
 *  (a) At e = 1 in a periodic box, kinetic energy and total momentum are
 *      conserved: after 10^6 pair collisions (1728 spheres at packing
 *      fraction 0.30; 1600 disks at area fraction 0.50, moving with a net
 *      drift) the relative energy error is below 1e-10 and the momentum is
 *      unchanged to 1e-10 of the momentum scale sum m|v|. Energy and momentum
 *      are summed here from the bodies, not only read from carom_stats.
 *  (b) Nothing overlaps: at every pair event the two bodies are exactly at
 *      contact (|d - sigma| <= 1e-9 sigma, nearest image), at every wall event
 *      the surface touches the wall, and every 20000 events all N(N-1)/2 pairs
 *      are at least sigma (1 - 1e-9) apart.
 *  (c) Time never goes back: callback times are non-decreasing and equal the
 *      world's clock; carom_world_time is non-decreasing across runs and a
 *      run bounded by t_end stops exactly there.
 *  (d) With walls and gravity at e = 1, KE + PE (PE = -sum m g.x) is conserved
 *      to 1e-9 of the kinetic energy.
 *  (e) Counters add up: events = pair + wall + cell, and the pair and wall
 *      callbacks are as many as the pair and wall events.
 *  (f) At e < 1 each pair collision removes exactly (1 - e) J^2 / (2 (1 + e) mu)
 *      of kinetic energy (J the impulse, mu the reduced mass; from
 *      J = (1 + e) mu |u|, seed 004 case 2) and keeps the momentum.
 * Initial states: simple cubic / square lattices with Maxwell-Boltzmann
 * velocities (Gaussian components of variance kT/m), net momentum removed.
 * CAROM_TEST_QUICK=1 shortens the long runs (for sanitizer builds); every
 * check still runs.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"

static const double PI = 3.14159265358979323846;

#define CHUNK_EVENTS 20000

/* ------------------------------------------------------------------ */
/* Building lattice systems.                                           */

typedef struct lattice_spec {
    /* per_side^dim bodies on a simple cubic / square lattice */
    int dim, per_side;
    /* packing (area) fraction of the box */
    double fraction;
    double radius, kT;
    /* masses uniform in [1, 1 + mass_spread] */
    double mass_spread;
    /* added to every velocity after removing the net momentum */
    double drift[3];
    double gravity[3];
    /* 1: walls on every axis; 0: periodic */
    int walls;
    double e;
    uint64_t seed;
} lattice_spec;

static double body_volume(int dim, double r)
{
    return dim == 2 ? PI * r * r : 4.0 / 3.0 * PI * r * r * r;
}

static int64_t body_count(const lattice_spec *s)
{
    return s->dim == 2 ? (int64_t)s->per_side * s->per_side
                       : (int64_t)s->per_side * s->per_side * s->per_side;
}

static double box_side(const lattice_spec *s)
{
    return pow((double)body_count(s) * body_volume(s->dim, s->radius) / s->fraction, 1.0 / s->dim);
}

static carom_world *create_world(const lattice_spec *s, carom_event_callback on_event, void *user)
{
    carom_world_def def = carom_default_world_def();
    double side = box_side(s);
    def.dim = s->dim;
    def.box = (carom_vec){side, side, side};
    for (int k = 0; k < 3; k++) def.boundary[k] = s->walls ? CAROM_WALLS : CAROM_PERIODIC;
    def.gravity = (carom_vec){s->gravity[0], s->gravity[1], s->gravity[2]};
    def.restitution = s->e;
    def.wall_restitution = 1.0;
    def.collapse_time = -1.0; /* the pure collision law: energy bookkeeping checks it exactly */
    def.capacity_hint = (int32_t)body_count(s);
    def.on_event = on_event;
    def.user = user;
    carom_world *w = NULL;
    char why[256] = "";
    CHECK_MSG(carom_world_create(&def, &w, why, sizeof why) == CAROM_OK, "create: %s", why);
    return w;
}

/* Gaussian velocities of variance kT/m, net momentum removed, then the drift added. */
static void draw_velocities(const lattice_spec *s, int64_t n, const double *mass, double (*v)[3],
                            carom_rng *rng)
{
    double p[3] = {0, 0, 0}, total = 0.0;
    for (int64_t b = 0; b < n; b++) {
        total += mass[b];
        for (int k = 0; k < s->dim; k++) {
            v[b][k] = carom_rng_normal(rng) * sqrt(s->kT / mass[b]);
            p[k] += mass[b] * v[b][k];
        }
    }
    for (int64_t b = 0; b < n; b++)
        for (int k = 0; k < s->dim; k++) v[b][k] += s->drift[k] - p[k] / total;
}

/* Adds the lattice to the world; returns 0 on failure. */
static int fill_lattice(carom_world *w, const lattice_spec *s)
{
    int64_t n = body_count(s);
    double side = box_side(s), a = side / s->per_side;
    double *mass = malloc((size_t)n * sizeof *mass);
    double(*v)[3] = calloc((size_t)n, sizeof *v);
    carom_rng rng = carom_rng_seed(s->seed);
    int ok = mass && v;
    for (int64_t b = 0; ok && b < n; b++) mass[b] = 1.0 + s->mass_spread * carom_rng_uniform(&rng);
    if (ok) draw_velocities(s, n, mass, v, &rng);
    for (int64_t b = 0; ok && b < n; b++) {
        int64_t ix = b % s->per_side, iy = (b / s->per_side) % s->per_side,
                iz = b / s->per_side / s->per_side;
        carom_body_def body = carom_default_body_def();
        body.position = (carom_vec){(ix + 0.5) * a - 0.5 * side, (iy + 0.5) * a - 0.5 * side,
                                    s->dim == 3 ? (iz + 0.5) * a - 0.5 * side : 0.0};
        body.velocity = (carom_vec){v[b][0], v[b][1], v[b][2]};
        body.radius = s->radius;
        body.mass = mass[b];
        ok = carom_world_add_body(w, &body, NULL) == CAROM_OK;
        CHECK_MSG(ok, "add body %lld: %s", (long long)b, carom_world_message(w));
    }
    free(mass);
    free(v);
    return ok;
}

/* ------------------------------------------------------------------ */
/* Sums computed here from the bodies.                                 */

typedef struct totals {
    double kinetic, potential;
    double momentum[3];
    double momentum_scale; /* sum m |v| */
} totals;

static totals sum_bodies(const carom_world *w, const double gravity[3])
{
    totals t;
    memset(&t, 0, sizeof t);
    for (int32_t b = 0; b < carom_world_body_count(w); b++) {
        carom_body_state s;
        carom_world_get_body(w, b, &s);
        double v[3] = {s.velocity.x, s.velocity.y, s.velocity.z},
               x[3] = {s.position.x, s.position.y, s.position.z};
        double v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        t.kinetic += 0.5 * s.mass * v2;
        t.momentum_scale += s.mass * sqrt(v2);
        for (int k = 0; k < 3; k++) {
            t.momentum[k] += s.mass * v[k];
            t.potential -= s.mass * gravity[k] * x[k];
        }
    }
    return t;
}

/* ------------------------------------------------------------------ */
/* Watching every event.                                               */

typedef struct monitor {
    carom_world *world;
    double side;
    int periodic;
    double last_time;
    int64_t pair_calls, wall_calls;
    int64_t time_backwards, clock_mismatch, bad_events;
    double worst_contact; /* max |d - sigma| / sigma at pair events */
    double worst_wall;    /* max | |x| + r - side/2 | / side at wall events */
    /* for (f): */
    double e, last_kinetic, last_momentum[3], worst_energy_loss, worst_momentum;
    int track_energy;
} monitor;

static double wrap(const monitor *m, double d)
{
    return m->periodic ? d - m->side * nearbyint(d / m->side) : d;
}

static void check_contact(monitor *m, const carom_event *ev)
{
    carom_body_state a, b;
    if (carom_world_get_body(m->world, ev->i, &a) != CAROM_OK ||
        carom_world_get_body(m->world, ev->j, &b) != CAROM_OK || ev->i >= ev->j) {
        m->bad_events++;
        return;
    }
    double dx = wrap(m, a.position.x - b.position.x), dy = wrap(m, a.position.y - b.position.y);
    double dz = wrap(m, a.position.z - b.position.z), sigma = a.radius + b.radius;
    double d = sqrt(dx * dx + dy * dy + dz * dz);
    m->worst_contact = fmax(m->worst_contact, fabs(d - sigma) / sigma);
}

static void check_wall_touch(monitor *m, const carom_event *ev)
{
    carom_body_state a;
    if (carom_world_get_body(m->world, ev->i, &a) != CAROM_OK || ev->j < 0 || ev->j > 5) {
        m->bad_events++;
        return;
    }
    double x[3] = {a.position.x, a.position.y, a.position.z};
    double reach = fabs(x[ev->j / 2]) + a.radius;
    m->worst_wall = fmax(m->worst_wall, fabs(reach - 0.5 * m->side) / m->side);
}

/* (f): the kinetic energy lost and the momentum change at this pair event. */
static void check_energy_loss(monitor *m, const carom_event *ev)
{
    carom_stats st = carom_world_stats(m->world);
    carom_body_state a, b;
    carom_world_get_body(m->world, ev->i, &a);
    carom_world_get_body(m->world, ev->j, &b);
    double mu = a.mass * b.mass / (a.mass + b.mass);
    double expected = (1.0 - m->e) * ev->impulse * ev->impulse / (2.0 * (1.0 + m->e) * mu);
    double lost = m->last_kinetic - st.kinetic_energy;
    m->worst_energy_loss = fmax(m->worst_energy_loss, fabs(lost - expected) / st.kinetic_energy);
    double p[3] = {st.momentum.x, st.momentum.y, st.momentum.z};
    for (int k = 0; k < 3; k++)
        m->worst_momentum = fmax(m->worst_momentum, fabs(p[k] - m->last_momentum[k]));
    m->last_kinetic = st.kinetic_energy;
    memcpy(m->last_momentum, p, sizeof p);
}

static int on_event(void *user, const carom_event *ev)
{
    monitor *m = user;
    if (ev->time < m->last_time) m->time_backwards++;
    if (ev->time != carom_world_time(m->world)) m->clock_mismatch++;
    m->last_time = ev->time;
    if (ev->kind == CAROM_EVENT_PAIR) {
        m->pair_calls++;
        check_contact(m, ev);
        if (m->track_energy) check_energy_loss(m, ev);
    } else if (ev->kind == CAROM_EVENT_WALL) {
        m->wall_calls++;
        check_wall_touch(m, ev);
    } else {
        m->bad_events++;
    }
    return 0;
}

static void check_monitor(const monitor *m, const char *label)
{
    CHECK_MSG(m->time_backwards == 0, "[%s] time went back %lld times", label,
              (long long)m->time_backwards);
    CHECK_MSG(m->clock_mismatch == 0, "[%s] callback time != world time %lld times", label,
              (long long)m->clock_mismatch);
    CHECK_MSG(m->bad_events == 0, "[%s] %lld malformed events", label, (long long)m->bad_events);
    CHECK_MSG(m->worst_contact <= 1e-9, "[%s] a pair collided at |d - sigma| / sigma = %.3g", label,
              m->worst_contact);
    CHECK_MSG(m->worst_wall <= 1e-9, "[%s] a wall bounce off the wall by %.3g of the side", label,
              m->worst_wall);
}

/* Counters add up and match the callbacks. */
static void check_counters(const carom_world *w, const monitor *m, const char *label)
{
    carom_stats st = carom_world_stats(w);
    CHECK_MSG(st.events == st.pair_events + st.wall_events + st.cell_events,
              "[%s] events %lld != pair %lld + wall %lld + cell %lld", label, (long long)st.events,
              (long long)st.pair_events, (long long)st.wall_events, (long long)st.cell_events);
    CHECK_MSG(st.pair_events == m->pair_calls && st.wall_events == m->wall_calls,
              "[%s] stats pair %lld wall %lld, callbacks pair %lld wall %lld", label,
              (long long)st.pair_events, (long long)st.wall_events, (long long)m->pair_calls,
              (long long)m->wall_calls);
    CHECK_MSG(st.time == carom_world_time(w), "[%s] stats time %.17g != world time %.17g", label,
              st.time, carom_world_time(w));
}

/* Smallest |r_i - r_j| / (sigma_i + sigma_j) over all pairs (nearest image), O(N^2). */
static double closest_approach(const carom_world *w, const monitor *m)
{
    int32_t n = carom_world_body_count(w);
    double(*x)[4] = malloc((size_t)n * sizeof *x);
    double worst = INFINITY;
    if (!x) return NAN;
    for (int32_t b = 0; b < n; b++) {
        carom_body_state s;
        carom_world_get_body(w, b, &s);
        x[b][0] = s.position.x, x[b][1] = s.position.y, x[b][2] = s.position.z, x[b][3] = s.radius;
    }
    for (int32_t a = 0; a < n; a++)
        for (int32_t b = a + 1; b < n; b++) {
            double dx = wrap(m, x[a][0] - x[b][0]), dy = wrap(m, x[a][1] - x[b][1]);
            double dz = wrap(m, x[a][2] - x[b][2]), sigma = x[a][3] + x[b][3];
            double ratio2 = (dx * dx + dy * dy + dz * dz) / (sigma * sigma);
            if (ratio2 < worst) worst = ratio2;
        }
    free(x);
    return sqrt(worst);
}

/* Runs in chunks of CHUNK_EVENTS until `done` says so; after each chunk checks
 * the clock, the counters and all pairs. Returns 0 if the run stalled or failed. */
typedef int (*run_done)(const carom_stats *st, int64_t goal);

static int run_checked(carom_world *w, monitor *m, const char *label, run_done done, int64_t goal)
{
    double last = carom_world_time(w);
    for (;;) {
        carom_status status = carom_world_run(w, INFINITY, CHUNK_EVENTS);
        CHECK_MSG(status == CAROM_OK, "[%s] run: %s: %s", label, carom_status_name(status),
                  carom_world_message(w));
        double now = carom_world_time(w);
        CHECK_MSG(now >= last, "[%s] clock went back from %.17g to %.17g", label, last, now);
        CHECK_MSG(now > last, "[%s] %d events without the clock moving from %.17g", label,
                  CHUNK_EVENTS, now);
        double closest = closest_approach(w, m);
        CHECK_MSG(closest >= 1.0 - 1e-9, "[%s] two bodies overlap: d / sigma = %.17g at t = %.17g",
                  label, closest, now);
        check_counters(w, m, label);
        if (status != CAROM_OK || !(now > last)) return 0;
        last = now;
        carom_stats st = carom_world_stats(w);
        if (done(&st, goal)) return 1;
    }
}

static int enough_pairs(const carom_stats *st, int64_t goal) { return st->pair_events >= goal; }

static int enough_events(const carom_stats *st, int64_t goal)
{
    return st->pair_events + st->wall_events >= goal;
}

/* ------------------------------------------------------------------ */
/* (a), (b), (c), (e): long elastic periodic runs.                     */

static void run_conservation(const lattice_spec *s, const char *label)
{
    monitor m;
    memset(&m, 0, sizeof m);
    m.side = box_side(s), m.periodic = 1;
    carom_world *w = create_world(s, on_event, &m);
    if (!w) return;
    m.world = w;
    const double zero[3] = {0, 0, 0};
    if (fill_lattice(w, s)) {
        totals before = sum_bodies(w, zero);
        int64_t goal = check_quick() ? 200000 : 1000000;
        run_checked(w, &m, label, enough_pairs, goal);
        totals after = sum_bodies(w, zero);
        carom_stats st = carom_world_stats(w);
        double energy_error = fabs(after.kinetic - before.kinetic) / before.kinetic;
        double stats_error = fabs(st.kinetic_energy - before.kinetic) / before.kinetic;
        double p_stats[3] = {st.momentum.x, st.momentum.y, st.momentum.z}, momentum_error = 0.0;
        for (int k = 0; k < 3; k++) {
            momentum_error = fmax(momentum_error, fabs(after.momentum[k] - before.momentum[k]));
            momentum_error = fmax(momentum_error, fabs(p_stats[k] - before.momentum[k]));
        }
        momentum_error /= before.momentum_scale;
        printf("  %s: %lld pair collisions, relative KE error %.3g (stats %.3g), "
               "momentum error %.3g of sum m|v| (P0 = %.6g %.6g %.6g)\n",
               label, (long long)st.pair_events, energy_error, stats_error, momentum_error,
               before.momentum[0], before.momentum[1], before.momentum[2]);
        CHECK_MSG(st.pair_events >= goal, "[%s] only %lld pair collisions", label,
                  (long long)st.pair_events);
        CHECK_MSG(energy_error < 1e-10, "[%s] relative KE error %.3g", label, energy_error);
        CHECK_MSG(stats_error < 1e-10, "[%s] relative KE error in stats %.3g", label, stats_error);
        CHECK_MSG(momentum_error < 1e-10, "[%s] momentum error %.3g", label, momentum_error);
    }
    check_monitor(&m, label);
    carom_world_destroy(w);
}

static void test_conservation_spheres(void)
{
    lattice_spec s = {3, 12, 0.30, 0.5, 1.0, 0.0, {0, 0, 0}, {0, 0, 0}, 0, 1.0, 11};
    run_conservation(&s, "1728 spheres, periodic, eta 0.30, P = 0");
}

static void test_conservation_disks_drifting(void)
{
    lattice_spec s = {2, 40, 0.50, 0.5, 1.0, 0.0, {0.7, -0.4, 0}, {0, 0, 0}, 0, 1.0, 12};
    run_conservation(&s, "1600 disks, periodic, eta 0.50, drifting");
}

/* ------------------------------------------------------------------ */
/* (d): walls and gravity.                                             */

static void run_gravity_energy(const lattice_spec *s, const char *label)
{
    monitor m;
    memset(&m, 0, sizeof m);
    m.side = box_side(s), m.periodic = 0;
    carom_world *w = create_world(s, on_event, &m);
    if (!w) return;
    m.world = w;
    if (fill_lattice(w, s)) {
        totals before = sum_bodies(w, s->gravity);
        carom_stats st0 = carom_world_stats(w);
        CHECK_NEAR(st0.potential_energy, before.potential, 1e-12 * before.kinetic);
        int64_t goal = check_quick() ? 100000 : 500000;
        run_checked(w, &m, label, enough_events, goal);
        totals after = sum_bodies(w, s->gravity);
        carom_stats st = carom_world_stats(w);
        double e0 = before.kinetic + before.potential;
        double error = fabs(after.kinetic + after.potential - e0) / before.kinetic;
        double stats_error = fabs(st.kinetic_energy + st.potential_energy - e0) / before.kinetic;
        printf("  %s: %lld pair + %lld wall events, |dE| / KE0 = %.3g (stats %.3g)\n", label,
               (long long)st.pair_events, (long long)st.wall_events, error, stats_error);
        CHECK_MSG(st.pair_events + st.wall_events >= goal, "[%s] only %lld collisions", label,
                  (long long)(st.pair_events + st.wall_events));
        CHECK_MSG(error < 1e-9, "[%s] energy drift %.3g of KE0", label, error);
        CHECK_MSG(stats_error < 1e-9, "[%s] energy drift in stats %.3g of KE0", label, stats_error);
        CHECK_MSG(st.wall_events > 0 && st.pair_events > 0, "[%s] no wall or no pair events",
                  label);
    }
    check_monitor(&m, label);
    carom_world_destroy(w);
}

/* The scale height kT / (m g) is about a third of the box for the spheres
 * (a stratified gas, gravity tilted off the z axis) and a tenth for
 * the disks (a dense layer on the floor). */
static void test_gravity_energy_spheres(void)
{
    lattice_spec s = {3, 8, 0.10, 0.5, 1.0, 0.0, {0, 0, 0}, {0.02, 0.0, -0.2}, 1, 1.0, 21};
    run_gravity_energy(&s, "512 spheres, walls, gravity");
}

static void test_gravity_energy_disks(void)
{
    lattice_spec s = {2, 24, 0.20, 0.5, 1.0, 0.5, {0, 0, 0}, {0.0, -0.25, 0}, 1, 1.0, 22};
    run_gravity_energy(&s, "576 disks, walls, gravity, masses 1-1.5");
}

/* ------------------------------------------------------------------ */
/* (c): runs bounded by time.                                          */

/* Runs to a sequence of end times: the clock lands on each exactly and never goes back. */
static void test_clock_follows_runs(void)
{
    lattice_spec s = {3, 6, 0.25, 0.5, 1.0, 1.0, {0, 0, 0}, {0, 0, 0}, 0, 1.0, 31};
    monitor m;
    memset(&m, 0, sizeof m);
    m.side = box_side(&s), m.periodic = 1;
    carom_world *w = create_world(&s, on_event, &m);
    if (!w) return;
    m.world = w;
    if (fill_lattice(w, &s)) {
        carom_rng rng = carom_rng_seed(32);
        double t = 0.0;
        for (int k = 0; k < 300; k++) {
            double previous = carom_world_time(w);
            t += k % 10 == 0 ? 0.0 : 0.05 * carom_rng_uniform(&rng);
            CHECK(carom_world_run(w, t, -1) == CAROM_OK);
            CHECK(carom_world_time(w) >= previous);
            CHECK(carom_world_time(w) == t);
            /* An event-capped run moves the clock to the last event, not back. */
            previous = carom_world_time(w);
            CHECK(carom_world_run(w, INFINITY, 7) == CAROM_OK);
            CHECK(carom_world_time(w) >= previous);
            t = carom_world_time(w);
        }
        check_counters(w, &m, "clock");
        CHECK(m.pair_calls > 1000);
    }
    check_monitor(&m, "clock");
    carom_world_destroy(w);
}

/* ------------------------------------------------------------------ */
/* (f): inelastic energy bookkeeping.                                  */

static void test_inelastic_energy_loss(void)
{
    lattice_spec s = {2, 20, 0.35, 0.5, 1.0, 1.5, {0, 0, 0}, {0, 0, 0}, 0, 0.9, 41};
    monitor m;
    memset(&m, 0, sizeof m);
    m.side = box_side(&s), m.periodic = 1, m.e = s.e, m.track_energy = 1;
    carom_world *w = create_world(&s, on_event, &m);
    if (!w) return;
    m.world = w;
    if (fill_lattice(w, &s)) {
        carom_stats st = carom_world_stats(w);
        double start = st.kinetic_energy;
        m.last_kinetic = st.kinetic_energy;
        m.last_momentum[0] = st.momentum.x, m.last_momentum[1] = st.momentum.y;
        double scale = sum_bodies(w, (const double[3]){0, 0, 0}).momentum_scale;
        run_checked(w, &m, "inelastic", enough_pairs, check_quick() ? 5000 : 20000);
        st = carom_world_stats(w);
        printf("  inelastic e = 0.9: KE fell to %.3g of its start; worst energy bookkeeping "
               "error %.3g of KE, momentum %.3g of sum m|v|\n",
               st.kinetic_energy / start, m.worst_energy_loss, m.worst_momentum / scale);
        CHECK_MSG(m.worst_energy_loss < 1e-10, "energy lost per collision off by %.3g of KE",
                  m.worst_energy_loss);
        CHECK_MSG(m.worst_momentum < 1e-12 * scale, "momentum changed by %.3g", m.worst_momentum);
        CHECK(st.kinetic_energy < 0.9 * start);
    }
    check_monitor(&m, "inelastic");
    carom_world_destroy(w);
}

int main(void)
{
    RUN(test_clock_follows_runs);
    RUN(test_inelastic_energy_loss);
    RUN(test_conservation_spheres);
    RUN(test_conservation_disks_drifting);
    RUN(test_gravity_energy_spheres);
    RUN(test_gravity_energy_disks);
    return CHECK_SUMMARY();
}
