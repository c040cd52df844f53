/* test_window_api.c — every misuse of the window and driven-body API
 * (issue 12) is refused with a status and a message, and changes nothing.
 *
 * "Nothing" is checked by a fingerprint taken before and after each refused
 * call: FNV-1a over the world's snapshot bytes (the complete state: bodies,
 * time stamps, scheduled events, clock, statistics), over every body's
 * state, and over the clock, counters, works and sensor count. Cases: NaN,
 * infinite and out-of-range accelerations, velocities, positions and
 * targets; unknown ids; positions outside the box or overlapping (the
 * message names both bodies); negative, zero, NaN and infinite dt for
 * advance and drive_body; bad sensor definitions; masses 0, negative, NaN
 * (INFINITY is a kinematic body); a NULL world; and every setter, advance,
 * run and add_sensor called from inside the event callback (the run then
 * goes on exactly as an undisturbed twin's).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "driven_common.h"
#include "state_hash.h"

/* with_snapshot 0: inside the event callback, where the world is mid-event and only reads are
 * promised */
static uint64_t fingerprint_of(const carom_world *w, int with_snapshot)
{
    uint64_t h = FNV1A_OFFSET;
    if (with_snapshot) {
        size_t size = carom_world_snapshot_size(w);
        unsigned char *bytes = size ? malloc(size) : NULL;
        carom_status st = bytes ? carom_world_snapshot(w, bytes, size) : CAROM_OUT_OF_MEMORY;
        CHECK_MSG(st == CAROM_OK, "snapshot: %s", carom_status_name(st));
        if (st == CAROM_OK) h = fnv1a(h, bytes, size);
        free(bytes);
    }
    carom_body_state *s = driven_states(w);
    if (s) h = fnv1a(h, s, (size_t)carom_world_body_count(w) * sizeof *s);
    free(s);
    carom_stats t = carom_world_stats(w);
    double values[6] = {t.time,         t.kinetic_energy, t.potential_energy,
                        t.control_work, t.kinematic_work, carom_world_time(w)};
    int64_t counts[6] = {t.events,
                         t.predictions,
                         t.stale_events,
                         t.sensor_events,
                         carom_world_body_count(w),
                         carom_world_sensor_count(w)};
    h = fnv1a(h, values, sizeof values);
    return fnv1a(h, counts, sizeof counts);
}

static uint64_t fingerprint(const carom_world *w) { return fingerprint_of(w, 1); }

/* A world with something in it: walls, gravity, a free body with its own
 * acceleration, a kinematic body, a sensor, run for a while. Bodies: 0 at
 * the left, 1 free with own acceleration, 2 free, 3 kinematic. */
static carom_world *busy_world(carom_event_callback cb, void *user)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){10, 10, 10};
    def.boundary[0] = def.boundary[1] = CAROM_WALLS;
    def.gravity = (carom_vec){0, -1, 0};
    def.on_event = cb;
    def.user = user;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    if (!w) return NULL;
    const carom_vec x[4] = {{-3, 0, 0}, {0, 2, 0}, {2.5, -1, 0}, {0, -3, 0}};
    const carom_vec v[4] = {{1, 0.5, 0}, {-0.5, 1, 0}, {0.7, -0.2, 0}, {0.3, 0, 0}};
    for (int b = 0; b < 4; b++) {
        carom_body_def body = carom_default_body_def();
        body.position = x[b], body.velocity = v[b];
        if (b == 1) body.acceleration = (carom_vec){0.4, 0.3, 0};
        if (b == 3) body.mass = INFINITY;
        CHECK_MSG(carom_world_add_body(w, &body, NULL) == CAROM_OK, "%s", carom_world_message(w));
    }
    carom_sensor_def s = carom_default_sensor_def();
    s.axis = 1, s.position = 1.0;
    CHECK(carom_world_add_sensor(w, &s, NULL) == CAROM_OK);
    CHECK_EQ_INT(carom_world_advance(w, 0.75), CAROM_OK);
    return w;
}

/* status as expected, a message naming what it should (each of `names`, if
 * not NULL), and the fingerprint unchanged. */
static void expect_refused(carom_world *w, uint64_t before, carom_status got, carom_status want,
                           const char *what, const char *name1, const char *name2)
{
    const char *msg = carom_world_message(w);
    CHECK_MSG(got == want, "%s: %s, expected %s (%s)", what, carom_status_name(got),
              carom_status_name(want), msg);
    CHECK_MSG(msg && *msg, "%s: no message", what);
    if (name1)
        CHECK_MSG(strstr(msg, name1) != NULL, "%s: the message does not say '%s': %s", what, name1,
                  msg);
    if (name2)
        CHECK_MSG(strstr(msg, name2) != NULL, "%s: the message does not say '%s': %s", what, name2,
                  msg);
    CHECK_MSG(fingerprint(w) == before, "%s: the world changed", what);
}

static const double bad_numbers[] = {NAN, INFINITY, -INFINITY, 1e300, -1e76};

static void test_bad_numbers_for_setters(void)
{
    carom_world *w = busy_world(NULL, NULL);
    if (!w) return;
    uint64_t before = fingerprint(w);
    CHECK(before == fingerprint(w)); /* reading changes nothing */
    for (size_t k = 0; k < sizeof bad_numbers / sizeof bad_numbers[0]; k++) {
        double z = bad_numbers[k];
        char what[96];
        snprintf(what, sizeof what, "acceleration.x = %g", z);
        expect_refused(w, before, carom_world_set_body_acceleration(w, 1, (carom_vec){z, 0, 0}),
                       CAROM_INVALID_ARGUMENT, what, "body 1", "acceleration");
        snprintf(what, sizeof what, "acceleration.y = %g (kinematic)", z);
        expect_refused(w, before, carom_world_set_body_acceleration(w, 3, (carom_vec){0, z, 0}),
                       CAROM_INVALID_ARGUMENT, what, "body 3", "acceleration");
        snprintf(what, sizeof what, "velocity.y = %g", z);
        expect_refused(w, before, carom_world_set_body_velocity(w, 2, (carom_vec){0, z, 0}),
                       CAROM_INVALID_ARGUMENT, what, "body 2", "velocity");
        snprintf(what, sizeof what, "position.x = %g", z);
        carom_status st = carom_world_set_body_position(w, 2, (carom_vec){z, 0, 0});
        expect_refused(w, before, st, isnan(z) ? CAROM_INVALID_ARGUMENT : st, what, "body 2", NULL);
        CHECK_MSG(st == CAROM_INVALID_ARGUMENT || st == CAROM_OUTSIDE_BOX, "%s: %s", what,
                  carom_status_name(st));
        snprintf(what, sizeof what, "drive target.y = %g", z);
        expect_refused(w, before, carom_world_drive_body(w, 3, (carom_vec){0, z, 0}, 0.5),
                       CAROM_INVALID_ARGUMENT, what, "body 3", NULL);
    }
    carom_world_destroy(w);
}

static void test_unknown_ids(void)
{
    carom_world *w = busy_world(NULL, NULL);
    if (!w) return;
    uint64_t before = fingerprint(w);
    const int32_t ids[] = {-1, 4, 1000, INT32_MAX, INT32_MIN};
    const carom_vec zero = {0, 0, 0};
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        int32_t id = ids[k];
        expect_refused(w, before, carom_world_set_body_acceleration(w, id, zero), CAROM_NOT_FOUND,
                       "acceleration of an unknown body", "body", NULL);
        expect_refused(w, before, carom_world_set_body_velocity(w, id, zero), CAROM_NOT_FOUND,
                       "velocity of an unknown body", "body", NULL);
        expect_refused(w, before, carom_world_set_body_position(w, id, zero), CAROM_NOT_FOUND,
                       "position of an unknown body", "body", NULL);
        expect_refused(w, before, carom_world_drive_body(w, id, zero, 0.5), CAROM_NOT_FOUND,
                       "drive of an unknown body", "body", NULL);
    }
    carom_world_destroy(w);
}

static void test_positions_refused(void)
{
    carom_world *w = busy_world(NULL, NULL);
    if (!w) return;
    uint64_t before = fingerprint(w);
    carom_body_state other;
    CHECK(carom_world_get_body(w, 2, &other) == CAROM_OK);
    expect_refused(w, before, carom_world_set_body_position(w, 1, (carom_vec){100, 0, 0}),
                   CAROM_OUTSIDE_BOX, "far outside", "body 1", NULL);
    expect_refused(w, before, carom_world_set_body_position(w, 1, (carom_vec){0, 4.75, 0}),
                   CAROM_OUTSIDE_BOX, "through the ceiling", "body 1", NULL);
    expect_refused(w, before, carom_world_set_body_position(w, 1, (carom_vec){-4.6, 0, 0}),
                   CAROM_OUTSIDE_BOX, "through the left wall", "body 1", NULL);
    carom_vec onto = {other.position.x + 0.3, other.position.y - 0.2, 0};
    expect_refused(w, before, carom_world_set_body_position(w, 1, onto), CAROM_OVERLAP,
                   "onto body 2", "body 1", "body 2");
    /* a free body onto the kinematic body 3 */
    CHECK(carom_world_get_body(w, 3, &other) == CAROM_OK);
    onto = (carom_vec){other.position.x - 0.5, other.position.y, 0};
    expect_refused(w, before, carom_world_set_body_position(w, 0, onto), CAROM_OVERLAP,
                   "onto kinematic body 3", "body 0", "body 3");
    carom_world_destroy(w);
}

static void test_bad_dt(void)
{
    carom_world *w = busy_world(NULL, NULL);
    if (!w) return;
    uint64_t before = fingerprint(w);
    const double bad_dt[] = {-1.0, -1e-300, NAN, INFINITY, -INFINITY};
    for (size_t k = 0; k < sizeof bad_dt / sizeof bad_dt[0]; k++) {
        char what[64];
        snprintf(what, sizeof what, "advance(%g)", bad_dt[k]);
        expect_refused(w, before, carom_world_advance(w, bad_dt[k]), CAROM_INVALID_ARGUMENT, what,
                       NULL, NULL);
        snprintf(what, sizeof what, "drive_body(dt = %g)", bad_dt[k]);
        expect_refused(w, before, carom_world_drive_body(w, 3, (carom_vec){1, 1, 0}, bad_dt[k]),
                       CAROM_INVALID_ARGUMENT, what, "body 3", NULL);
    }
    expect_refused(w, before, carom_world_drive_body(w, 3, (carom_vec){1, 1, 0}, 0.0),
                   CAROM_INVALID_ARGUMENT, "drive_body(dt = 0)", "body 3", NULL);
    double now = carom_world_time(w);
    CHECK_EQ_INT(carom_world_advance(w, 0.0), CAROM_OK); /* dt = 0 is a window of nothing */
    CHECK(carom_world_time(w) == now);
    carom_world_destroy(w);
}

static void test_bad_sensors(void)
{
    carom_world *w = busy_world(NULL, NULL);
    if (!w) return;
    uint64_t before = fingerprint(w);
    int32_t id = 12345;
    expect_refused(w, before, carom_world_add_sensor(w, NULL, &id), CAROM_INVALID_ARGUMENT,
                   "NULL sensor", NULL, NULL);
    carom_sensor_def bad[9];
    for (int k = 0; k < 9; k++) bad[k] = carom_default_sensor_def();
    bad[0].axis = -1;
    bad[1].axis = 3;
    bad[2].axis = 2; /* a 2D world */
    bad[3].position = NAN;
    bad[4].position = INFINITY;
    bad[5].axis = 1, bad[5].lo.x = 2.0, bad[5].hi.x = 1.0; /* lo > hi */
    bad[6].axis = 0, bad[6].lo.y = NAN;
    bad[7].position = 6.0; /* beyond the wall at 5 */
    bad[8].axis = 1, bad[8].position = -5.5;
    const char *names[9] = {
        "axis -1", "axis 3", "axis 2 in 2D",        "position NaN",          "position inf",
        "lo > hi", "lo NaN", "plane x = 6 outside", "plane y = -5.5 outside"};
    for (int k = 0; k < 9; k++) {
        carom_status st = carom_world_add_sensor(w, &bad[k], &id);
        expect_refused(w, before, st,
                       st == CAROM_OUTSIDE_BOX && k >= 7 ? CAROM_OUTSIDE_BOX
                                                         : CAROM_INVALID_ARGUMENT,
                       names[k], NULL, NULL);
        CHECK_EQ_INT(carom_world_sensor_count(w), 1);
    }
    CHECK_EQ_INT(id, 12345); /* the id is not written on failure */
    carom_world_destroy(w);
}

static void test_bad_masses(void)
{
    carom_world *w = busy_world(NULL, NULL);
    if (!w) return;
    uint64_t before = fingerprint(w);
    const double masses[] = {0.0, -1.0, -INFINITY, NAN, -0.0};
    for (size_t k = 0; k < sizeof masses / sizeof masses[0]; k++) {
        carom_body_def b = carom_default_body_def();
        b.position = (carom_vec){3.5, 3.5, 0};
        b.mass = masses[k];
        char what[64];
        snprintf(what, sizeof what, "mass %g", masses[k]);
        expect_refused(w, before, carom_world_add_body(w, &b, NULL), CAROM_INVALID_ARGUMENT, what,
                       "body 4", "mass");
    }
    carom_body_def b = carom_default_body_def();
    b.position = (carom_vec){3.5, 3.5, 0};
    b.acceleration = (carom_vec){0, NAN, 0};
    expect_refused(w, before, carom_world_add_body(w, &b, NULL), CAROM_INVALID_ARGUMENT,
                   "body acceleration NaN", "body 4", "acceleration");
    b.acceleration = (carom_vec){1e200, 0, 0};
    expect_refused(w, before, carom_world_add_body(w, &b, NULL), CAROM_INVALID_ARGUMENT,
                   "body acceleration 1e200", "body 4", "acceleration");
    b.acceleration = (carom_vec){0, 0, 0};
    b.mass = INFINITY;
    int32_t id = -1;
    CHECK_MSG(carom_world_add_body(w, &b, &id) == CAROM_OK, "a kinematic body: %s",
              carom_world_message(w));
    carom_body_state s;
    CHECK(id == 4 && carom_world_get_body(w, 4, &s) == CAROM_OK && s.mass == INFINITY);
    carom_world_destroy(w);
}

static void test_null_world(void)
{
    const carom_vec zero = {0, 0, 0};
    carom_sensor_def s = carom_default_sensor_def();
    CHECK_EQ_INT(carom_world_advance(NULL, 1.0), CAROM_INVALID_ARGUMENT);
    CHECK_EQ_INT(carom_world_set_body_acceleration(NULL, 0, zero), CAROM_INVALID_ARGUMENT);
    CHECK_EQ_INT(carom_world_set_body_velocity(NULL, 0, zero), CAROM_INVALID_ARGUMENT);
    CHECK_EQ_INT(carom_world_set_body_position(NULL, 0, zero), CAROM_INVALID_ARGUMENT);
    CHECK_EQ_INT(carom_world_drive_body(NULL, 0, zero, 1.0), CAROM_INVALID_ARGUMENT);
    CHECK_EQ_INT(carom_world_add_sensor(NULL, &s, NULL), CAROM_INVALID_ARGUMENT);
    CHECK_EQ_INT(carom_world_sensor_count(NULL), 0);
}

/* ------------------------------------------------------------------ */
/* From inside the callback.                                           */

typedef struct meddler {
    carom_world *world;
    driven_log log;
    int attempts, refused, unchanged, messages;
} meddler;

/* At every event: every call that would change the world, each of which must be refused and change
 * nothing. */
static int on_event_meddle(void *user, const carom_event *e)
{
    meddler *m = user;
    carom_world *w = m->world;
    if (!w) return 0; /* the warm-up, before the test knows its world */
    const carom_vec v = {0.1, 0.2, 0};
    carom_sensor_def s = carom_default_sensor_def();
    uint64_t before = fingerprint_of(w, 0);
    carom_status got[7] = {carom_world_set_body_acceleration(w, e->i, v),
                           carom_world_set_body_velocity(w, e->i, v),
                           carom_world_set_body_position(w, 0, (carom_vec){-4, 4, 0}),
                           carom_world_drive_body(w, 3, (carom_vec){0, 0, 0}, 0.5),
                           carom_world_add_sensor(w, &s, NULL),
                           carom_world_advance(w, 0.5),
                           carom_world_run(w, e->time + 1.0, -1)};
    for (int k = 0; k < 7; k++) {
        m->attempts++;
        m->refused += got[k] == CAROM_INVALID_ARGUMENT;
    }
    m->messages += *carom_world_message(w) != '\0';
    m->unchanged += fingerprint_of(w, 0) == before;
    return driven_record(&m->log, e);
}

static void test_setters_refused_in_callback(void)
{
    meddler m = {0};
    driven_log quiet = {0};
    carom_world *w = busy_world(on_event_meddle, &m), *twin = busy_world(driven_record, &quiet);
    if (!w || !twin) return;
    m.world = w;
    m.log.limit = quiet.limit =
        100000;      /* a runaway stops soon: each event here takes 2 fingerprints */
    quiet.count = 0; /* the warm-up's events (not meddled with, not in m.log) */
    CHECK_EQ_INT(carom_world_advance(w, 6.0), CAROM_OK);
    CHECK_EQ_INT(carom_world_advance(twin, 6.0), CAROM_OK);
    int events = (int)m.log.count;
    CHECK(events >= 5);
    CHECK_EQ_INT(m.refused, m.attempts);
    CHECK_EQ_INT(m.unchanged, events);
    CHECK_EQ_INT(m.messages, events);
    CHECK_MSG(driven_logs_equal(&m.log, &quiet), "%zu events with refused calls, %zu undisturbed",
              m.log.count, quiet.count);
    CHECK(driven_same_states(w, twin));
    printf("  %d events, %d calls from the callback, all refused, nothing changed\n", events,
           m.attempts);
    /* outside the callback the same calls work */
    CHECK_EQ_INT(carom_world_set_body_acceleration(w, 1, (carom_vec){0.1, 0.2, 0}), CAROM_OK);
    carom_world_destroy(w);
    carom_world_destroy(twin);
    driven_log_free(&m.log);
    driven_log_free(&quiet);
}

int main(void)
{
    RUN(test_bad_numbers_for_setters);
    RUN(test_unknown_ids);
    RUN(test_positions_refused);
    RUN(test_bad_dt);
    RUN(test_bad_sensors);
    RUN(test_bad_masses);
    RUN(test_null_world);
    RUN(test_setters_refused_in_callback);
    return CHECK_SUMMARY();
}
