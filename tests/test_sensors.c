/* test_sensors.c — sensors (issue 12): a body's centre crossing a piece of
 * an axis-aligned plane is an exact event that changes no motion.
 *
 * Closed forms: a body under a constant acceleration a along the sensor's
 * axis is at x0 + v t + a t^2 / 2, so it crosses the plane x = p at the
 * roots of a t^2 / 2 + v t + (x0 - p) = 0 (a parabola crosses twice, up then
 * down: directions +1 then -1), and the event is reported only where the
 * other coordinates (straight lines or parabolas too) lie within the
 * sensor's extents. A body moving along the plane, or crossing it outside
 * the extents, gives no event. A run with sensors has the same pair, wall
 * and rest events, and ends in the same states, bit for bit, as without.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "driven_common.h"

static carom_world *sensor_world(int dim, double side, int periodic_x, driven_log *log)
{
    carom_world_def def = carom_default_world_def();
    def.dim = dim;
    def.box = (carom_vec){side, side, side};
    def.boundary[0] = periodic_x ? CAROM_PERIODIC : CAROM_WALLS;
    def.boundary[1] = def.boundary[2] = CAROM_WALLS;
    def.on_event = driven_record;
    def.user = log;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    return w;
}

static int32_t add_sensor(carom_world *w, int axis, double position, carom_vec lo, carom_vec hi)
{
    carom_sensor_def s = carom_default_sensor_def();
    s.axis = axis, s.position = position, s.lo = lo, s.hi = hi;
    int32_t id = -1;
    CHECK_MSG(carom_world_add_sensor(w, &s, &id) == CAROM_OK, "%s", carom_world_message(w));
    return id;
}

static void add_body(carom_world *w, carom_vec x, carom_vec v, carom_vec a)
{
    carom_body_def b = carom_default_body_def();
    b.position = x, b.velocity = v, b.acceleration = a, b.radius = 0.3;
    CHECK_MSG(carom_world_add_body(w, &b, NULL) == CAROM_OK, "%s", carom_world_message(w));
}

/* Roots of A t^2 + B t + C = 0 in increasing order (both real), without cancellation. */
static void quadratic_roots(double A, double B, double C, double *t1, double *t2)
{
    double q = -0.5 * (B + copysign(sqrt(B * B - 4.0 * A * C), B));
    double r1 = C / q, r2 = q / A;
    *t1 = fmin(r1, r2), *t2 = fmax(r1, r2);
}

/* The events of one sensor, in order. */
static int sensor_events(const driven_log *log, int32_t sensor, carom_event *out, int max)
{
    int n = 0;
    for (size_t e = 0; e < log->count; e++)
        if (log->events[e].kind == CAROM_EVENT_SENSOR && log->events[e].j == sensor) {
            if (n < max) out[n] = log->events[e];
            n++;
        }
    return n;
}

static void check_crossing(const carom_event *e, double t, int direction)
{
    CHECK_EQ_INT(e->kind, CAROM_EVENT_SENSOR);
    CHECK_EQ_INT(e->i, 0);
    CHECK_EQ_INT(e->direction, direction);
    CHECK_NEAR(e->time, t, 1e-13 * t);
    CHECK(e->impulse == 0.0);
}

/* A parabola through the plane y = p (2D) or z = p (3D): up through it,
 * then down. Sensors on that plane with extents: whole, around the first
 * crossing only, around the second only, beside both, and (3D) off in y.
 * shared = 0: each sensor alone in its own world; 1: all in one world, so
 * the body crosses several sensors at the same instant and each must
 * report its own event. */
enum { WHOLE, FIRST, SECOND, BESIDE, OFF_Y, PARABOLA_SENSORS };

static void check_parabola(int dim, int shared)
{
    int axis = dim - 1; /* y in 2D, z in 3D */
    const double x0 = -1.0, vx = 0.4, h0 = -2.0, vh = 3.0, ah = -1.5, p = 0.5, y3 = 0.2, vy3 = -0.1;
    double t1, t2;
    quadratic_roots(0.5 * ah, vh, h0 - p, &t1, &t2);
    double x1 = x0 + vx * t1, x2 = x0 + vx * t2, mid = 0.5 * (x1 + x2);
    /* lo / hi on the other axes: x always, and y in 3D (where the body sits near y3) */
    const carom_vec lo[PARABOLA_SENSORS] = {
        {-5, -5, -5}, {-5, -5, -5}, {mid, -5, -5}, {x2 + 0.5, -5, -5}, {-5, y3 + 1.0, 0}};
    const carom_vec hi[PARABOLA_SENSORS] = {
        {5, 5, 5}, {mid, 5, 5}, {5, 5, 5}, {x2 + 2.0, 5, 5}, {5, 5, 0}};
    const int expected[PARABOLA_SENSORS] = {2, 1, 1, 0, 0};
    int sensors = dim == 3 ? PARABOLA_SENSORS : OFF_Y;
    for (int k = 0; k < sensors; k += shared ? sensors : 1) {
        driven_log log = {0};
        carom_world *w = sensor_world(dim, 20.0, 0, &log);
        if (!w) return;
        int32_t id[PARABOLA_SENSORS];
        int from = shared ? 0 : k, to = shared ? sensors : k + 1, total = 0;
        for (int n = from; n < to; n++) {
            id[n] = add_sensor(w, axis, p, lo[n], hi[n]);
            CHECK_EQ_INT(id[n], n - from);
            total += expected[n];
        }
        CHECK_EQ_INT(carom_world_sensor_count(w), to - from);
        carom_vec x = {x0, dim == 2 ? h0 : y3, dim == 3 ? h0 : 0.0},
                  v = {vx, dim == 2 ? vh : vy3, dim == 3 ? vh : 0.0};
        carom_vec a = {0, dim == 2 ? ah : 0.0, dim == 3 ? ah : 0.0};
        add_body(w, x, v, a);
        CHECK_EQ_INT(carom_world_advance(w, t2 + 0.1), CAROM_OK);
        for (int n = from; n < to; n++) {
            carom_event got[4];
            int count = sensor_events(&log, id[n], got, 4);
            CHECK_MSG(count == expected[n], "dim %d, %s, sensor %d: %d events, expected %d", dim,
                      shared ? "shared plane" : "alone", n, count, expected[n]);
            if (count != expected[n]) continue;
            if (n == WHOLE || n == FIRST) check_crossing(&got[0], t1, +1);
            if (n == WHOLE) check_crossing(&got[1], t2, -1);
            if (n == SECOND) check_crossing(&got[0], t2, -1);
        }
        carom_stats st = carom_world_stats(w);
        CHECK_EQ_INT(st.sensor_events, total);
        CHECK_EQ_INT(st.pair_events + st.wall_events, 0);
        /* the motion is the free parabola still */
        carom_body_state s;
        double t = carom_world_time(w);
        CHECK(carom_world_get_body(w, 0, &s) == CAROM_OK);
        double h = dim == 2 ? s.position.y : s.position.z;
        CHECK_NEAR(h, h0 + vh * t + 0.5 * ah * t * t, 1e-13);
        CHECK_NEAR(s.position.x, x0 + vx * t, 1e-13);
        carom_world_destroy(w);
        driven_log_free(&log);
    }
}

static void test_parabola_crossings(void)
{
    check_parabola(2, 0);
    check_parabola(3, 0);
}

/* Several sensors crossed at one instant: each reports its own event. */
static void test_sensors_sharing_a_plane(void)
{
    check_parabola(2, 1);
    check_parabola(3, 1);
}

/* A body accelerating along x crosses x = p in one direction and comes back (3D, sensor axis 0). */
static void test_crossing_along_its_acceleration(void)
{
    driven_log log = {0};
    carom_world *w = sensor_world(3, 20.0, 0, &log);
    if (!w) return;
    add_sensor(w, 0, 1.0, (carom_vec){0, -1, -1}, (carom_vec){0, 1, 1});
    add_body(w, (carom_vec){3.0, 0.25, -0.5}, (carom_vec){-2.0, 0, 0}, (carom_vec){0.8, 0, 0});
    double t1, t2;
    quadratic_roots(0.4, -2.0, 2.0, &t1, &t2); /* 3 - 2 t + 0.4 t^2 = 1 */
    CHECK_EQ_INT(carom_world_advance(w, 4.0), CAROM_OK);
    carom_event got[4];
    CHECK_EQ_INT(sensor_events(&log, 0, got, 4), 2);
    check_crossing(&got[0], t1, -1);
    check_crossing(&got[1], t2, +1);
    carom_world_destroy(w);
    driven_log_free(&log);
}

/* No event for a body moving in the plane, or crossing it beside the extents. */
static void test_no_event_along_or_outside(void)
{
    driven_log log = {0};
    carom_world *w = sensor_world(2, 20.0, 0, &log);
    if (!w) return;
    add_sensor(w, 1, 0.5, (carom_vec){-3, 0, 0}, (carom_vec){3, 0, 0});
    add_body(w, (carom_vec){-6, 0.5, 0}, (carom_vec){1.5, 0, 0},
             (carom_vec){0.2, 0, 0}); /* along the plane */
    add_body(w, (carom_vec){5, -3, 0}, (carom_vec){0, 2, 0},
             (carom_vec){0, 0, 0}); /* x = 5: beside it */
    add_body(w, (carom_vec){-5.5, 3, 0}, (carom_vec){0.2, -2, 0},
             (carom_vec){0, 0, 0}); /* crosses at x = -5.25 */
    CHECK_EQ_INT(carom_world_advance(w, 3.0), CAROM_OK);
    carom_stats st = carom_world_stats(w);
    CHECK_EQ_INT(st.sensor_events, 0);
    CHECK_EQ_INT(log.count, 0);
    carom_world_destroy(w);
    driven_log_free(&log);
}

/* On a periodic axis the plane is met again after every lap (box 10: x = 2 at t = 2, 12, 22). */
static void test_periodic_axis(void)
{
    driven_log log = {0};
    carom_world *w = sensor_world(2, 10.0, 1, &log);
    if (!w) return;
    add_sensor(w, 0, 2.0, (carom_vec){0, -1, 0}, (carom_vec){0, 1, 0});
    add_body(w, (carom_vec){0, 0, 0}, (carom_vec){1, 0, 0}, (carom_vec){0, 0, 0});
    CHECK_EQ_INT(carom_world_advance(w, 25.0), CAROM_OK);
    carom_event got[4];
    CHECK_EQ_INT(sensor_events(&log, 0, got, 4), 3);
    for (int k = 0; k < 3; k++) check_crossing(&got[k], 2.0 + 10.0 * k, +1);
    carom_world_destroy(w);
    driven_log_free(&log);
}

/* ------------------------------------------------------------------ */
/* Sensors change no motion.                                           */

typedef struct sensor_check {
    carom_world *world;
    carom_sensor_def sensors[4];
    driven_log log;
    int bad;
} sensor_check;

/* At a sensor event the body's centre is on the plane, within the extents, moving the way reported.
 */
static int on_event_check(void *user, const carom_event *e)
{
    sensor_check *c = user;
    if (e->kind == CAROM_EVENT_SENSOR && e->j >= 0 && e->j < 4) {
        const carom_sensor_def *s = &c->sensors[e->j];
        carom_body_state b;
        CHECK(carom_world_get_body(c->world, e->i, &b) == CAROM_OK);
        double x[3] = {b.position.x, b.position.y, b.position.z},
               v[3] = {b.velocity.x, b.velocity.y, b.velocity.z};
        double lo[3] = {s->lo.x, s->lo.y, s->lo.z}, hi[3] = {s->hi.x, s->hi.y, s->hi.z};
        int ok =
            fabs(x[s->axis] - s->position) <= 1e-12 && e->direction == (v[s->axis] > 0 ? 1 : -1);
        for (int k = 0; k < 2; k++)
            if (k != s->axis) ok = ok && x[k] >= lo[k] - 1e-12 && x[k] <= hi[k] + 1e-12;
        if (!ok && c->bad++ < 5) /* the first few said, all counted */
            CHECK_MSG(0,
                      "sensor %d, body %d at t = %.17g: centre (%.17g, %.17g), velocity (%g, %g), "
                      "direction %d",
                      e->j, e->i, e->time, x[0], x[1], v[0], v[1], e->direction);
    }
    return driven_record(&c->log, e);
}

static carom_world *busy_world(sensor_check *c, int with_sensors)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){8, 8, 8};
    def.boundary[0] = def.boundary[1] = CAROM_WALLS;
    def.gravity = (carom_vec){0, -1.0, 0};
    def.on_event = on_event_check;
    def.user = c;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    if (!w) return NULL;
    c->world = w;
    const carom_sensor_def defs[4] = {{0, 0.0, {0, -4, 0}, {0, 4, 0}},
                                      {1, 1.0, {-2, 0, 0}, {3, 0, 0}},
                                      {1, -3.0, {-4, 0, 0}, {4, 0, 0}},
                                      {0, 2.5, {0, -1, 0}, {0, 0.5, 0}}};
    for (int s = 0; s < 4; s++) {
        c->sensors[s] = defs[s];
        if (with_sensors)
            CHECK_MSG(carom_world_add_sensor(w, &defs[s], NULL) == CAROM_OK, "%s",
                      carom_world_message(w));
    }
    carom_rng rng = carom_rng_seed(909);
    for (int b = 0; b < 12; b++) {
        carom_body_def body = carom_default_body_def();
        body.position = (carom_vec){-3.0 + 2.0 * (b % 4), -2.5 + 2.0 * (b / 4), 0};
        body.velocity = (carom_vec){2.0 * carom_rng_normal(&rng), 2.0 * carom_rng_normal(&rng), 0};
        if (b % 2)
            body.acceleration = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), 0};
        body.radius = 0.35;
        body.mass = 0.5 + carom_rng_uniform(&rng);
        CHECK(carom_world_add_body(w, &body, NULL) == CAROM_OK);
    }
    return w;
}

static void test_sensors_change_no_motion(void)
{
    sensor_check with = {0}, without = {0};
    with.log.only_motion = 1;
    carom_world *a = busy_world(&with, 1), *b = busy_world(&without, 0);
    if (!a || !b) return;
    for (int k = 0; k < 80; k++) {
        CHECK_EQ_INT(carom_world_advance(a, 0.125), CAROM_OK);
        CHECK_EQ_INT(carom_world_advance(b, 0.125), CAROM_OK);
    }
    carom_stats sa = carom_world_stats(a), sb = carom_world_stats(b);
    CHECK_MSG(driven_logs_equal(&with.log, &without.log),
              "%zu motion events with sensors, %zu without", with.log.count, without.log.count);
    CHECK_MSG(driven_same_states(a, b), "the states differ with sensors");
    CHECK_EQ_INT(with.bad, 0);
    CHECK(sa.sensor_events > 20);
    CHECK_EQ_INT(sb.sensor_events, 0);
    CHECK_EQ_INT(sa.pair_events, sb.pair_events);
    CHECK(sa.kinetic_energy == sb.kinetic_energy && sa.potential_energy == sb.potential_energy);
    printf("  %lld sensor events; %zu pair/wall/rest events identical with and without sensors\n",
           (long long)sa.sensor_events, with.log.count);
    carom_world_destroy(a);
    carom_world_destroy(b);
    driven_log_free(&with.log);
    driven_log_free(&without.log);
}

int main(void)
{
    RUN(test_parabola_crossings);
    RUN(test_sensors_sharing_a_plane);
    RUN(test_crossing_along_its_acceleration);
    RUN(test_no_event_along_or_outside);
    RUN(test_periodic_axis);
    RUN(test_sensors_change_no_motion);
    return CHECK_SUMMARY();
}
