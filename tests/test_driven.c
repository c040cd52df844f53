/* test_driven.c — time windows and driven bodies (issue 12) through the
 * public API: carom_world_advance and the setters.
 *
 *  - Random controls: three bodies in 2D, four in 3D under gravity, at 6
 *    to 14 radii per window (speeds far above radius / dt), their
 *    accelerations, velocities and positions set and drive_body called at
 *    random between windows (one change in ten), for 10^6 windows in 2D and
 *    10^5 in 3D (10^4 each in a build with asserts or with
 *    CAROM_TEST_QUICK=1; CAROM_DRIVEN_WINDOWS sets the 2D count): after
 *    every window no body overlaps another or a wall beyond round-off, the
 *    clock is where the window says, the stats' energies are those computed
 *    here from the states (PE = -sum m (g + a_i) . x_i), KE + PE stays
 *    constant (1e-12 of its terms) across windows with no control change
 *    (a refused jump included), and KE + PE - control_work stays constant
 *    (1e-10) across all of them (elastic bodies and walls).
 *  - No-op windows: one world run to T and a twin advanced to T in windows
 *    (several widths, and windows ending exactly on event times), every body
 *    read at every window end: the same event log and final states, bit
 *    for bit; also under gravity with restitution < 1 (bodies settling).
 *  - Changing one body re-predicts only that body: carom_stats.predictions
 *    grows by one per setter in a world of 10^4 bodies, and a window after
 *    it costs no more predictions than in an untouched twin, give or take
 *    the few partners whose predictions named the body.
 *  - Callbacks that stop: returning non-zero after the k-th event stops run
 *    and advance right there (CAROM_STOPPED, clock at the event); going on
 *    gives exactly the events and states of an unstopped run.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "driven_common.h"

/* ------------------------------------------------------------------ */
/* Random controls over many windows.                                  */

#define DRIVEN_MAX 8

typedef struct driven_case {
    int dim, n;
    double side, radius, dt;
    double speed_lo, speed_hi; /* speeds drawn from this range */
    double accel_max;          /* |own acceleration| <= this */
    carom_vec gravity;
    double change_probability; /* chance per window that one body's control changes */
    uint64_t seed;
} driven_case;

typedef struct driven_figures {
    long windows, control_changes, quiet_windows;
    double worst_overlap, worst_quiet_drift, worst_total_drift, worst_pe_mismatch;
    int64_t events;
    double fastest, ratio; /* fastest speed, and speed * dt / radius at the slowest draw */
} driven_figures;

static long windows_to_run(void)
{
    const char *env = getenv("CAROM_DRIVEN_WINDOWS");
    if (env && *env) return strtol(env, NULL, 10);
    if (check_quick()) return 10000; /* scripts/test.sh's sanitiser pass */
#ifdef NDEBUG
    return 1000000;
#else
    return 10000; /* the Debug / sanitiser pass: 100 times fewer */
#endif
}

static carom_vec random_vector(carom_rng *rng, int dim, double lo, double hi)
{
    double v[3] = {0, 0, 0}, len = 0.0;
    do {
        len = 0.0;
        for (int k = 0; k < dim; k++) {
            v[k] = carom_rng_normal(rng);
            len += v[k] * v[k];
        }
    } while (len == 0.0);
    double size = lo + (hi - lo) * carom_rng_uniform(rng);
    len = sqrt(len);
    return (carom_vec){v[0] / len * size, v[1] / len * size, v[2] / len * size};
}

static carom_world *driven_world(const driven_case *c, carom_rng *rng)
{
    carom_world_def def = carom_default_world_def();
    def.dim = c->dim;
    def.box = (carom_vec){c->side, c->side, c->side};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = CAROM_WALLS;
    def.gravity = c->gravity;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    if (!w) return NULL;
    /* bodies on a lattice of spacing side / 3 (at most 9 in 2D, 27 in 3D) */
    for (int b = 0; b < c->n; b++) {
        carom_body_def body = carom_default_body_def();
        double step = c->side / 3.0;
        body.position = (carom_vec){(b % 3 - 1) * step, (b / 3 % 3 - 1) * step,
                                    c->dim == 3 ? (b / 9 - 1) * step : 0};
        body.velocity = random_vector(rng, c->dim, c->speed_lo, c->speed_hi);
        body.acceleration = random_vector(rng, c->dim, 0.0, c->accel_max);
        body.radius = c->radius;
        body.mass = 0.5 + 1.5 * carom_rng_uniform(rng);
        CHECK_MSG(carom_world_add_body(w, &body, NULL) == CAROM_OK, "%s", carom_world_message(w));
    }
    return w;
}

/* KE + PE with PE = -sum m (g + a_i) . x_i, from the states; *terms gets the
 * sum of the magnitudes of every term (the scale of the round-off). */
static double energy_from_states(const carom_body_state *s, int n, carom_vec g, double *pe,
                                 double *terms)
{
    double ke = 0.0, sum = 0.0;
    *pe = 0.0;
    for (int i = 0; i < n; i++) {
        double v2 = s[i].velocity.x * s[i].velocity.x + s[i].velocity.y * s[i].velocity.y +
                    s[i].velocity.z * s[i].velocity.z;
        double p = -s[i].mass * ((g.x + s[i].acceleration.x) * s[i].position.x +
                                 (g.y + s[i].acceleration.y) * s[i].position.y +
                                 (g.z + s[i].acceleration.z) * s[i].position.z);
        ke += 0.5 * s[i].mass * v2;
        *pe += p;
        sum += 0.5 * s[i].mass * v2 + fabs(p);
    }
    *terms = sum;
    return ke + *pe;
}

/* One control change on one body: a new own acceleration (40%), a new
 * velocity (25%), a jump to a random place (20%; refused if it would
 * overlap, and then it must change nothing), or drive_body towards a
 * random target (15%). Returns 1 if the world was changed. */
static int change_control(carom_world *w, const driven_case *c, carom_rng *rng)
{
    int32_t id = (int32_t)(carom_rng_uniform(rng) * c->n);
    double pick = carom_rng_uniform(rng), room = 0.5 * c->side - c->radius;
    carom_vec spot = {0, 0, 0};
    double *xyz[3] = {&spot.x, &spot.y, &spot.z};
    for (int k = 0; k < c->dim; k++) *xyz[k] = (2.0 * carom_rng_uniform(rng) - 1.0) * room;
    carom_status st;
    if (pick < 0.4)
        st =
            carom_world_set_body_acceleration(w, id, random_vector(rng, c->dim, 0.0, c->accel_max));
    else if (pick < 0.65)
        st = carom_world_set_body_velocity(w, id,
                                           random_vector(rng, c->dim, c->speed_lo, c->speed_hi));
    else if (pick < 0.85)
        st = carom_world_set_body_position(w, id, spot);
    else
        st = carom_world_drive_body(w, id, spot, 0.005 + 0.02 * carom_rng_uniform(rng));
    CHECK_MSG(st == CAROM_OK || (st == CAROM_OVERLAP && pick >= 0.65 && pick < 0.85),
              "control of body %d: %s (%s)", (int)id, carom_status_name(st),
              carom_world_message(w));
    return st == CAROM_OK;
}

/* The round-off allowed on a position at time t: ulps of the clock times the speeds, and of the
 * box. */
static double position_tolerance(double t, double vmax, double side)
{
    return 64.0 * (fabs(t) * 0x1p-52) * vmax + 1e-12 * side;
}

/* Checks one window's end; returns 0 to stop the loop after a failure. */
static int check_window(carom_world *w, const driven_case *c, driven_figures *f, double *e_quiet,
                        double *quiet_terms, double e_total0, double *total_terms)
{
    carom_body_state *s = driven_states(w);
    if (!s) return 0;
    carom_stats st = carom_world_stats(w);
    double side[3] = {c->side, c->side, c->side}, pe = 0.0, terms = 0.0, vmax = 0.0;
    int periodic[3] = {0, 0, 0}, ok = 1;
    double e = energy_from_states(s, c->n, c->gravity, &pe, &terms);
    for (int i = 0; i < c->n; i++) {
        double v = sqrt(s[i].velocity.x * s[i].velocity.x + s[i].velocity.y * s[i].velocity.y +
                        s[i].velocity.z * s[i].velocity.z);
        vmax = fmax(vmax, v);
    }
    f->fastest = fmax(f->fastest, vmax);
    double overlap = driven_worst_overlap(s, c->n, c->dim, side, periodic);
    f->worst_overlap = fmax(f->worst_overlap, overlap);
    double tol = position_tolerance(st.time, 2.0 * vmax, c->side);
    if (!(overlap <= tol)) {
        CHECK_MSG(0, "window %ld (t = %.17g): overlap %.3g > round-off %.3g", f->windows, st.time,
                  overlap, tol);
        ok = 0;
    }
    double pe_gap =
        fmax(fabs(st.potential_energy - pe), fabs(st.kinetic_energy - (e - pe))) / terms;
    f->worst_pe_mismatch = fmax(f->worst_pe_mismatch, pe_gap);
    if (!(pe_gap <= 1e-13)) {
        CHECK_MSG(0, "window %ld: stats KE %.17g, PE %.17g; from the states %.17g, %.17g",
                  f->windows, st.kinetic_energy, st.potential_energy, e - pe, pe);
        ok = 0;
    }
    double stats_e = st.kinetic_energy + st.potential_energy;
    if (isnan(*e_quiet)) { /* the first window after a control change: a new reference */
        *e_quiet = stats_e, *quiet_terms = terms;
    } else {
        double drift = fabs(stats_e - *e_quiet) / *quiet_terms;
        f->worst_quiet_drift = fmax(f->worst_quiet_drift, drift);
        f->quiet_windows++;
        if (!(drift <= 1e-12)) {
            CHECK_MSG(0, "window %ld: KE + PE moved by %.3g of its terms with no control change",
                      f->windows, drift);
            ok = 0;
        }
    }
    *total_terms = fmax(*total_terms, terms);
    double total_drift =
        fabs(stats_e - st.control_work - st.kinematic_work - e_total0) / *total_terms;
    f->worst_total_drift = fmax(f->worst_total_drift, total_drift);
    if (!(total_drift <= 1e-10)) {
        CHECK_MSG(0, "window %ld: KE + PE - control_work moved by %.3g of its terms", f->windows,
                  total_drift);
        ok = 0;
    }
    f->events = st.events;
    free(s);
    return ok;
}

static void run_driven_case(const driven_case *c, long windows)
{
    carom_rng rng = carom_rng_seed(c->seed);
    driven_figures f;
    memset(&f, 0, sizeof f);
    carom_world *w = driven_world(c, &rng);
    if (!w) return;
    carom_stats s0 = carom_world_stats(w);
    double e_total0 = s0.kinetic_energy + s0.potential_energy, e_quiet = NAN, quiet_terms = 0.0,
           total_terms = 0.0;
    CHECK(s0.control_work == 0.0 && s0.kinematic_work == 0.0);
    for (f.windows = 0; f.windows < windows; f.windows++) {
        if (carom_rng_uniform(&rng) < c->change_probability && change_control(w, c, &rng)) {
            f.control_changes++;
            e_quiet = NAN;
        }
        double before = carom_world_time(w);
        carom_status st = carom_world_advance(w, c->dt);
        if (st != CAROM_OK || carom_world_time(w) != before + c->dt) {
            CHECK_MSG(0, "window %ld: %s (%s), clock %.17g, expected %.17g", f.windows,
                      carom_status_name(st), carom_world_message(w), carom_world_time(w),
                      before + c->dt);
            break;
        }
        if (!check_window(w, c, &f, &e_quiet, &quiet_terms, e_total0, &total_terms)) break;
    }
    printf(
        "  dim %d, N %d: %ld windows (%ld control changes, %ld quiet), %lld events, fastest %.0f "
        "(%.0f radii per window at the slowest draw)\n"
        "    worst overlap %.3g, KE + PE drift in quiet windows %.3g, KE + PE - work drift %.3g, "
        "PE vs formula %.3g\n",
        c->dim, c->n, f.windows, f.control_changes, f.quiet_windows, (long long)f.events, f.fastest,
        c->speed_lo * c->dt / c->radius, f.worst_overlap, f.worst_quiet_drift, f.worst_total_drift,
        f.worst_pe_mismatch);
    CHECK_EQ_INT(f.windows, windows);
    CHECK(f.control_changes > windows / 20 && f.quiet_windows > windows / 2);
    carom_world_destroy(w);
}

static void test_random_controls_2d(void)
{
    driven_case c = {2, 3, 10.0, 0.5, 0.01, 300.0, 700.0, 2e4, {0, 0, 0}, 0.1, 0xd21e};
    run_driven_case(&c, windows_to_run());
}

static void test_random_controls_3d_gravity(void)
{
    driven_case c = {3, 4, 10.0, 0.5, 0.01, 300.0, 700.0, 2e4, {0, -3e3, 1e3}, 0.1, 0xd31e};
    long windows = windows_to_run() / 10;
    run_driven_case(&c, windows > 10000 ? windows : 10000);
}

/* ------------------------------------------------------------------ */
/* No-op windows are bit-identical to one run.                         */

typedef struct scene {
    int dim, n, boundary[3];
    double side, e, e_wall;
    carom_vec gravity;
    double accel; /* own accelerations up to this (0: none) */
    int sensor;   /* 1: a sensor across the middle */
    uint64_t seed;
} scene;

static carom_world *scene_world(const scene *sc, driven_log *log)
{
    carom_world_def def = carom_default_world_def();
    carom_rng rng = carom_rng_seed(sc->seed);
    def.dim = sc->dim;
    def.box = (carom_vec){sc->side, sc->side, sc->side};
    for (int k = 0; k < 3; k++) def.boundary[k] = sc->boundary[k] ? CAROM_PERIODIC : CAROM_WALLS;
    def.gravity = sc->gravity;
    def.restitution = sc->e;
    def.wall_restitution = sc->e_wall;
    def.on_event = driven_record;
    def.user = log;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    if (!w) return NULL;
    if (sc->sensor) {
        carom_sensor_def sd = carom_default_sensor_def();
        sd.axis = 0;
        sd.position = 0.1;
        CHECK_MSG(carom_world_add_sensor(w, &sd, NULL) == CAROM_OK, "%s", carom_world_message(w));
    }
    int per_side = sc->dim == 2 ? (int)ceil(sqrt(sc->n)) : (int)ceil(cbrt(sc->n));
    double step = sc->side / per_side;
    for (int b = 0; b < sc->n; b++) {
        carom_body_def body = carom_default_body_def();
        int ix = b % per_side, iy = b / per_side % per_side, iz = b / (per_side * per_side);
        body.position =
            (carom_vec){-0.5 * sc->side + (ix + 0.5) * step, -0.5 * sc->side + (iy + 0.5) * step,
                        sc->dim == 3 ? -0.5 * sc->side + (iz + 0.5) * step : 0.0};
        body.velocity = random_vector(&rng, sc->dim, 0.5, 2.0);
        if (sc->accel > 0.0 && b % 3 != 0)
            body.acceleration = random_vector(&rng, sc->dim, 0.0, sc->accel);
        body.radius = 0.25 + 0.2 * carom_rng_uniform(&rng);
        body.mass = 0.5 + carom_rng_uniform(&rng);
        CHECK_MSG(carom_world_add_body(w, &body, NULL) == CAROM_OK, "%s", carom_world_message(w));
    }
    return w;
}

/* Reads every body (and the stats and next event time) as a controller would at a window end. */
static void read_everything(carom_world *w)
{
    carom_body_state *s = driven_states(w);
    free(s);
    (void)carom_world_stats(w);
}

typedef enum { WINDOW_FIXED, WINDOW_ON_EVENTS } window_kind;

/* Advances w to t_end in windows of dt, or (on events) in windows ending at
 * each time in `times`, reading everything at every window end. */
static int advance_in_windows(carom_world *w, double t_end, window_kind kind, double dt,
                              const driven_log *times, int *on_events)
{
    size_t next = 0;
    int windows = 0;
    while (carom_world_time(w) < t_end) {
        double now = carom_world_time(w), step = dt;
        if (kind == WINDOW_ON_EVENTS) {
            while (next < times->count && times->events[next].time <= now) next++;
            step = next < times->count ? times->events[next].time - now : t_end - now;
        }
        if (now + step > t_end) step = t_end - now;
        carom_status st = carom_world_advance(w, step);
        CHECK_MSG(st == CAROM_OK, "advance: %s (%s)", carom_status_name(st),
                  carom_world_message(w));
        if (st != CAROM_OK) return windows;
        CHECK(carom_world_time(w) == now + step);
        /* now + (t_event - now) is t_event unless the subtraction rounded */
        if (kind == WINDOW_ON_EVENTS && next < times->count)
            *on_events += carom_world_time(w) == times->events[next].time;
        read_everything(w);
        windows++;
    }
    return windows;
}

static void compare_windows_with_run(const scene *sc, double t_end)
{
    driven_log whole = {0};
    carom_world *reference = scene_world(sc, &whole);
    if (!reference) return;
    CHECK_EQ_INT(carom_world_run(reference, t_end, -1), CAROM_OK);
    CHECK(carom_world_time(reference) == t_end);
    carom_stats rs = carom_world_stats(reference);
    const double widths[] = {1.0 / 64, 1.0 / 1024, 0.1, 0.37};
    for (int variant = 0; variant < 5; variant++) {
        driven_log log = {0};
        carom_world *w = scene_world(sc, &log);
        if (!w) break;
        int on_events = 0;
        int windows =
            variant < 4
                ? advance_in_windows(w, t_end, WINDOW_FIXED, widths[variant], NULL, &on_events)
                : advance_in_windows(w, t_end, WINDOW_ON_EVENTS, 0.0, &whole, &on_events);
        carom_stats ws = carom_world_stats(w);
        CHECK(carom_world_time(w) == t_end);
        CHECK_MSG(driven_logs_equal(&log, &whole),
                  "variant %d: %zu events in windows, %zu in one run", variant, log.count,
                  whole.count);
        CHECK_MSG(driven_same_states(w, reference), "variant %d: final states differ", variant);
        CHECK_EQ_INT(ws.pair_events, rs.pair_events);
        CHECK_EQ_INT(ws.wall_events, rs.wall_events);
        CHECK_EQ_INT(ws.rest_events, rs.rest_events);
        CHECK_EQ_INT(ws.sensor_events, rs.sensor_events);
        if (variant == 4) {
            printf("    %d windows, %d of them ending exactly on event times\n", windows,
                   on_events);
            CHECK(on_events >= windows / 2);
        }
        carom_world_destroy(w);
        driven_log_free(&log);
    }
    printf("  %zu events (%lld pair, %lld wall, %lld rest, %lld sensor) to t = %g, bit for bit in "
           "5 windowings\n",
           whole.count, (long long)rs.pair_events, (long long)rs.wall_events,
           (long long)rs.rest_events, (long long)rs.sensor_events, t_end);
    CHECK(whole.count > 50);
    carom_world_destroy(reference);
    driven_log_free(&whole);
}

static void test_noop_windows_accelerations(void)
{
    scene walls2 = {2, 12, {0, 0, 0}, 8.0, 1.0, 1.0, {0, 0, 0}, 1.5, 1, 301};
    compare_windows_with_run(&walls2, 12.0);
    scene mixed3 = {3, 20, {1, 0, 1}, 6.0, 1.0, 1.0, {0, 0, 0}, 1.0, 1, 302};
    compare_windows_with_run(&mixed3, 10.0);
}

/* Gravity with restitution < 1: bodies bounce lower and lower and settle (rest events). */
static void test_noop_windows_settling(void)
{
    scene settle = {2, 16, {0, 0, 0}, 8.0, 0.7, 0.6, {0, -5.0, 0}, 0.0, 0, 303};
    compare_windows_with_run(&settle, 8.0);
    /* elastic walls: a body with its own acceleration never rests, and on an
     * inelastic floor its bounces would shrink to a Zeno series (the jam guard) */
    scene settle_driven = {3, 18, {0, 0, 0}, 6.0, 0.8, 1.0, {0, 0, -4.0}, 0.5, 1, 304};
    compare_windows_with_run(&settle_driven, 6.0);
}

/* ------------------------------------------------------------------ */
/* One setter, one prediction.                                         */

/* The predictions a setter may make: the body itself, once. */
#define SETTER_PREDICTIONS 1
/* Extra predictions in the window after a setter, against an untouched twin:
 * the partners whose scheduled events named the body, found stale, and the
 * body's own new events (a few, never O(N)). */
#define AFTER_SETTER_EXTRA 40

static carom_world *crowd_world(int32_t n, int with_kinematic)
{
    carom_world_def def = carom_default_world_def();
    int per_side = (int)ceil(cbrt(n));
    double spacing = 1.7, side = per_side * spacing;
    def.box = (carom_vec){side, side, side};
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    if (!w) return NULL;
    carom_rng rng = carom_rng_seed(4242);
    for (int32_t b = 0; b < n; b++) {
        carom_body_def body = carom_default_body_def();
        int ix = b % per_side, iy = b / per_side % per_side, iz = b / (per_side * per_side);
        body.position =
            (carom_vec){-0.5 * side + (ix + 0.5) * spacing, -0.5 * side + (iy + 0.5) * spacing,
                        -0.5 * side + (iz + 0.5) * spacing};
        body.velocity =
            (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), carom_rng_normal(&rng)};
        if (b % 2) body.acceleration = random_vector(&rng, 3, 0.0, 0.5);
        if (with_kinematic && b == 0) body.mass = INFINITY;
        CHECK(carom_world_add_body(w, &body, NULL) == CAROM_OK);
    }
    return w;
}

typedef enum {
    SET_ACCELERATION,
    SET_VELOCITY,
    SET_POSITION,
    DRIVE_KINEMATIC,
    DRIVE_FREE
} setter_kind;
static const char *setter_name[] = {"set_body_acceleration", "set_body_velocity",
                                    "set_body_position", "drive_body (kinematic)",
                                    "drive_body (free)"};

static carom_status apply_setter(carom_world *w, setter_kind kind, int32_t id)
{
    carom_body_state s;
    CHECK(carom_world_get_body(w, id, &s) == CAROM_OK);
    switch (kind) {
    case SET_ACCELERATION:
        return carom_world_set_body_acceleration(w, id, (carom_vec){0.3, -0.2, 0.1});
    case SET_VELOCITY:
        return carom_world_set_body_velocity(w, id, (carom_vec){-1.0, 0.5, 0.25});
    case SET_POSITION: /* a small step, towards the box centre, into room the body just left */
        return carom_world_set_body_position(w, id,
                                             (carom_vec){s.position.x - 1e-3 * s.velocity.x,
                                                         s.position.y - 1e-3 * s.velocity.y,
                                                         s.position.z - 1e-3 * s.velocity.z});
    case DRIVE_KINEMATIC:
    case DRIVE_FREE:
        return carom_world_drive_body(
            w, id, (carom_vec){s.position.x + 0.1, s.position.y, s.position.z - 0.1}, 0.5);
    }
    return CAROM_INVALID_ARGUMENT;
}

static void check_one_setter(setter_kind kind, int32_t n)
{
    int kinematic = kind == DRIVE_KINEMATIC;
    carom_world *w = crowd_world(n, kinematic), *twin = crowd_world(n, kinematic);
    if (!w || !twin) return;
    CHECK_EQ_INT(carom_world_advance(w, 0.25), CAROM_OK);
    CHECK_EQ_INT(carom_world_advance(twin, 0.25), CAROM_OK);
    int32_t id = kinematic ? 0 : n / 2 + 1;
    carom_stats before = carom_world_stats(w), twin_before = carom_world_stats(twin);
    CHECK(before.predictions >= n); /* every body was predicted once at least: the count counts */
    carom_status st = apply_setter(w, kind, id);
    CHECK_MSG(st == CAROM_OK, "%s: %s", setter_name[kind], carom_world_message(w));
    carom_stats after = carom_world_stats(w);
    int64_t made = after.predictions - before.predictions;
    CHECK_MSG(made == SETTER_PREDICTIONS, "%s: %lld predictions", setter_name[kind],
              (long long)made);
    CHECK_EQ_INT(carom_world_advance(w, 0.05), CAROM_OK);
    CHECK_EQ_INT(carom_world_advance(twin, 0.05), CAROM_OK);
    int64_t window = carom_world_stats(w).predictions - after.predictions;
    int64_t twin_window = carom_world_stats(twin).predictions - twin_before.predictions;
    CHECK_MSG(window <= twin_window + AFTER_SETTER_EXTRA,
              "%s: %lld predictions in the next window, %lld untouched", setter_name[kind],
              (long long)window, (long long)twin_window);
    printf(
        "  %-24s N = %d: %lld prediction(s) at the call; next window %lld (untouched twin %lld)\n",
        setter_name[kind], (int)n, (long long)made, (long long)window, (long long)twin_window);
    carom_world_destroy(w);
    carom_world_destroy(twin);
}

static void test_setter_repredicts_one_body(void)
{
    for (int kind = SET_ACCELERATION; kind <= DRIVE_FREE; kind++)
        check_one_setter((setter_kind)kind, 10000);
}

/* ------------------------------------------------------------------ */
/* Callbacks that stop.                                                */

static const scene stop_scene = {2, 10, {1, 0, 0}, 7.0, 1.0, 0.9, {0, -1.0, 0}, 1.0, 1, 401};
#define STOP_T_END 10.0

static void check_stop_in_run(const driven_log *whole, carom_world *reference, size_t k)
{
    driven_log log = {0};
    log.stop_after = k;
    carom_world *w = scene_world(&stop_scene, &log);
    if (!w) return;
    carom_status st = carom_world_run(w, STOP_T_END, -1);
    CHECK_EQ_INT(st, CAROM_STOPPED);
    CHECK_EQ_INT(log.count, k);
    CHECK_MSG(carom_world_time(w) == whole->events[k - 1].time,
              "stopped after event %zu: clock %.17g, event %.17g", k, carom_world_time(w),
              whole->events[k - 1].time);
    CHECK(log.count == k && memcmp(log.events, whole->events, k * sizeof *log.events) == 0);
    carom_stats s = carom_world_stats(w);
    CHECK(s.pair_events + s.wall_events + s.rest_events + s.sensor_events == (int64_t)k);
    /* consistent: nothing overlaps at the stop */
    carom_body_state *states = driven_states(w);
    double side[3] = {stop_scene.side, stop_scene.side, stop_scene.side};
    int periodic[3] = {stop_scene.boundary[0], stop_scene.boundary[1], stop_scene.boundary[2]};
    if (states) CHECK(driven_worst_overlap(states, stop_scene.n, 2, side, periodic) <= 1e-12);
    free(states);
    log.stop_after = 0;
    CHECK_EQ_INT(carom_world_run(w, STOP_T_END, -1), CAROM_OK);
    CHECK_MSG(driven_logs_equal(&log, whole), "stop after %zu: %zu events in all, %zu unstopped", k,
              log.count, whole->count);
    CHECK_MSG(driven_same_states(w, reference), "stop after %zu: final states differ", k);
    carom_world_destroy(w);
    driven_log_free(&log);
}

static void check_stop_in_windows(const driven_log *whole, carom_world *reference, size_t k)
{
    const double dt = 0.125;
    driven_log log = {0};
    log.stop_after = k;
    carom_world *w = scene_world(&stop_scene, &log);
    if (!w) return;
    int stops = 0;
    while (carom_world_time(w) < STOP_T_END) {
        double end = carom_world_time(w) + dt;
        carom_status st = carom_world_advance(w, dt);
        if (st == CAROM_STOPPED) {
            stops++;
            CHECK(carom_world_time(w) == log.events[log.count - 1].time);
            CHECK(carom_world_time(w) <= end);
            log.stop_after = 0;
            st = carom_world_run(w, end, -1); /* the rest of the window */
        }
        CHECK_MSG(st == CAROM_OK, "%s", carom_world_message(w));
        if (st != CAROM_OK) break;
        CHECK(carom_world_time(w) == end);
    }
    CHECK_EQ_INT(stops, 1);
    CHECK_MSG(driven_logs_equal(&log, whole), "windows, stop after %zu: %zu events, %zu unstopped",
              k, log.count, whole->count);
    CHECK_MSG(driven_same_states(w, reference), "windows, stop after %zu: final states differ", k);
    carom_world_destroy(w);
    driven_log_free(&log);
}

static void test_callback_stops(void)
{
    driven_log whole = {0};
    carom_world *reference = scene_world(&stop_scene, &whole);
    if (!reference) return;
    CHECK_EQ_INT(carom_world_run(reference, STOP_T_END, -1), CAROM_OK);
    CHECK(whole.count > 40);
    size_t ks[] = {1, 2, 7, 23, whole.count / 2, whole.count - 1, whole.count};
    for (size_t n = 0; n < sizeof ks / sizeof ks[0]; n++) {
        if (ks[n] < 1 || ks[n] > whole.count) continue;
        check_stop_in_run(&whole, reference, ks[n]);
        check_stop_in_windows(&whole, reference, ks[n]);
    }
    printf(
        "  %zu events; stops after events 1, 2, 7, 23, %zu, %zu, %zu matched the unstopped run\n",
        whole.count, whole.count / 2, whole.count - 1, whole.count);
    carom_world_destroy(reference);
    driven_log_free(&whole);
}

/* After a stop the world is the caller's again: setters work, and the run goes on from the event.
 */
static void test_setters_work_after_stop(void)
{
    driven_log log = {0};
    log.stop_after = 3;
    carom_world *w = scene_world(&stop_scene, &log);
    if (!w) return;
    CHECK_EQ_INT(carom_world_advance(w, STOP_T_END), CAROM_STOPPED);
    double t_stop = carom_world_time(w);
    CHECK(t_stop > 0.0 && t_stop < STOP_T_END);
    CHECK_EQ_INT(carom_world_set_body_acceleration(w, 2, (carom_vec){0.5, 0.5, 0}), CAROM_OK);
    CHECK_EQ_INT(carom_world_set_body_velocity(w, 3, (carom_vec){1.0, -1.0, 0}), CAROM_OK);
    carom_body_state s;
    CHECK(carom_world_get_body(w, 3, &s) == CAROM_OK && s.velocity.x == 1.0 &&
          s.velocity.y == -1.0);
    log.stop_after = 0;
    CHECK_EQ_INT(carom_world_advance(w, 1.0), CAROM_OK);
    CHECK(carom_world_time(w) == t_stop + 1.0);
    for (size_t e = 1; e < log.count; e++) CHECK(log.events[e].time >= log.events[e - 1].time);
    carom_world_destroy(w);
    driven_log_free(&log);
}

int main(void)
{
    RUN(test_callback_stops);
    RUN(test_setters_work_after_stop);
    RUN(test_noop_windows_accelerations);
    RUN(test_noop_windows_settling);
    RUN(test_setter_repredicts_one_body);
    RUN(test_random_controls_2d);
    RUN(test_random_controls_3d_gravity);
    return CHECK_SUMMARY();
}
