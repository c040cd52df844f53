/* test_api.c — bad input to the public API gets a status and a message that
 * names the field or body and the value, nothing changes, and the world stays
 * usable; plus the lifecycle calls on good input. */
#include <math.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "state_hash.h"

static int contains(const char *text, const char *part) { return strstr(text, part) != NULL; }

static carom_world *make_world(int dim, carom_boundary boundary, double side)
{
    carom_world_def def = carom_default_world_def();
    def.dim = dim;
    def.box = (carom_vec){side, side, side};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = boundary;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    return w;
}

static void expect_bad_def(carom_world_def def, const char *field, const char *value)
{
    carom_world *w = (carom_world *)&def; /* must be overwritten with NULL */
    char why[256] = "";
    CHECK_EQ_INT(carom_world_create(&def, &w, why, sizeof why), CAROM_INVALID_ARGUMENT);
    CHECK(w == NULL);
    CHECK_MSG(contains(why, field) && contains(why, value), "message '%s' should name %s = %s", why,
              field, value);
}

static void test_bad_world_defs(void)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 4;
    expect_bad_def(def, "dim", "4");
    def = carom_default_world_def();
    def.box.y = -1.0;
    expect_bad_def(def, "box.y", "-1");
    def = carom_default_world_def();
    def.box.z = INFINITY;
    expect_bad_def(def, "box.z", "inf");
    def = carom_default_world_def();
    def.gravity.x = NAN;
    expect_bad_def(def, "gravity.x", "nan");
    def = carom_default_world_def();
    def.restitution = 1.5;
    expect_bad_def(def, "restitution", "1.5");
    def = carom_default_world_def();
    def.wall_restitution = -0.1;
    expect_bad_def(def, "wall_restitution", "-0.1");
    def = carom_default_world_def();
    def.boundary[1] = (carom_boundary)7;
    expect_bad_def(def, "boundary[1]", "7");
    def = carom_default_world_def();
    def.max_collisions_per_instant = 0;
    expect_bad_def(def, "max_collisions_per_instant", "0");
    def = carom_default_world_def();
    def.max_collisions_per_instant = 1 << 24; /* counted in 24 bits */
    expect_bad_def(def, "max_collisions_per_instant", "16777216");
    carom_world *w = NULL;
    CHECK_EQ_INT(carom_world_create(NULL, &w, NULL, 0), CAROM_INVALID_ARGUMENT);
    /* 2D ignores the third axis entirely. */
    def = carom_default_world_def();
    def.dim = 2;
    def.box.z = -5.0;
    CHECK_EQ_INT(carom_world_create(&def, &w, NULL, 0), CAROM_OK);
    carom_world_destroy(w);
}

/* Adds a bad body and checks the status, the message, and that nothing changed. */
static void expect_bad_body(carom_world *w, carom_body_def b, carom_status expected, const char *part1,
                            const char *part2)
{
    int32_t before = carom_world_body_count(w), id = -7;
    carom_status st = carom_world_add_body(w, &b, &id);
    const char *message = carom_world_message(w);
    CHECK_EQ_INT(st, expected);
    CHECK_EQ_INT(id, -7);
    CHECK_EQ_INT(carom_world_body_count(w), before);
    CHECK_MSG(contains(message, part1) && contains(message, part2), "message '%s' should contain '%s' and '%s'",
              message, part1, part2);
}

static void test_bad_bodies(void)
{
    carom_world *w = make_world(3, CAROM_WALLS, 10.0);
    carom_body_def b = carom_default_body_def();
    b.radius = -0.5;
    expect_bad_body(w, b, CAROM_INVALID_ARGUMENT, "body 0", "radius = -0.5");
    b = carom_default_body_def();
    b.mass = 0.0;
    expect_bad_body(w, b, CAROM_INVALID_ARGUMENT, "body 0", "mass = 0");
    b = carom_default_body_def();
    b.position.y = NAN;
    expect_bad_body(w, b, CAROM_INVALID_ARGUMENT, "body 0", "position.y = nan");
    b = carom_default_body_def();
    b.velocity.z = -INFINITY;
    expect_bad_body(w, b, CAROM_INVALID_ARGUMENT, "body 0", "velocity.z = -inf");
    b = carom_default_body_def();
    b.position.x = 4.75; /* reaches 5.25 > 5: through the wall */
    expect_bad_body(w, b, CAROM_OUTSIDE_BOX, "body 0", "position.x = 4.75");
    b = carom_default_body_def();
    b.radius = 6.0;
    expect_bad_body(w, b, CAROM_BOX_TOO_SMALL, "body 0", "diameter 12");
    b = carom_default_body_def();
    b.position.x = 4.5; /* exactly touching the wall is allowed */
    CHECK_EQ_INT(carom_world_add_body(w, &b, NULL), CAROM_OK);
    b.position.x = 3.6; /* 0.9 from body 0, radii sum 1 */
    expect_bad_body(w, b, CAROM_OVERLAP, "body 1", "overlaps body 0");
    b.position.x = 3.5; /* exactly touching */
    int32_t id = -1;
    CHECK_EQ_INT(carom_world_add_body(w, &b, &id), CAROM_OK);
    CHECK_EQ_INT(id, 1);
    carom_world_destroy(w);
}

static void test_periodic_bodies(void)
{
    carom_world *w = make_world(2, CAROM_PERIODIC, 10.0);
    carom_body_def b = carom_default_body_def();
    b.radius = 2.0; /* a 10-wide periodic side fits fewer than 3 cells of diameter 4 */
    expect_bad_body(w, b, CAROM_BOX_TOO_SMALL, "body 0", "periodic side");
    b = carom_default_body_def();
    b.position.x = -5.5;
    expect_bad_body(w, b, CAROM_OUTSIDE_BOX, "body 0", "position.x = -5.5");
    /* Overlap through the periodic boundary. */
    b = carom_default_body_def();
    b.position = (carom_vec){4.8, 0.0, 123.0}; /* z is ignored in 2D */
    CHECK_EQ_INT(carom_world_add_body(w, &b, NULL), CAROM_OK);
    b.position = (carom_vec){-4.7, 0.0, 0.0};
    expect_bad_body(w, b, CAROM_OVERLAP, "body 1", "overlaps body 0");
    /* +half is the same place as -half and is accepted (wrapped). */
    b.position = (carom_vec){5.0, 3.0, 0.0};
    CHECK_EQ_INT(carom_world_add_body(w, &b, NULL), CAROM_OK);
    carom_body_state s;
    CHECK_EQ_INT(carom_world_get_body(w, 1, &s), CAROM_OK);
    CHECK(s.position.x == -5.0 && s.position.z == 0.0);
    carom_world_destroy(w);
}

static int count_event(void *user, const carom_event *e)
{
    (void)e;
    ++*(int *)user;
    return 0;
}

static void test_world_stays_usable(void)
{
    carom_world_def def = carom_default_world_def();
    int events = 0;
    def.on_event = count_event;
    def.user = &events;
    carom_world *w = NULL;
    CHECK_EQ_INT(carom_world_create(&def, &w, NULL, 0), CAROM_OK);
    carom_body_def b = carom_default_body_def();
    b.position = (carom_vec){-2.0, 0.0, 0.0};
    b.velocity = (carom_vec){1.0, 0.0, 0.0};
    CHECK_EQ_INT(carom_world_add_body(w, &b, NULL), CAROM_OK);
    b.position.x = -1.5; /* overlaps: refused */
    CHECK_EQ_INT(carom_world_add_body(w, &b, NULL), CAROM_OVERLAP);
    b.position = (carom_vec){2.0, 0.0, 0.0};
    b.velocity = (carom_vec){-1.0, 0.0, 0.0};
    CHECK_EQ_INT(carom_world_add_body(w, &b, NULL), CAROM_OK);
    CHECK_EQ_INT(carom_world_run(w, NAN, -1), CAROM_INVALID_ARGUMENT);
    CHECK(contains(carom_world_message(w), "t_end"));
    CHECK_EQ_INT(carom_world_run(w, INFINITY, -1), CAROM_INVALID_ARGUMENT);
    CHECK_EQ_INT(carom_world_run(w, 2.0, -1), CAROM_OK);
    CHECK_EQ_INT(events, 1); /* they meet at t = 1.5 */
    CHECK_EQ_INT(carom_world_run(w, 1.0, -1), CAROM_INVALID_ARGUMENT); /* time never goes back */
    CHECK(carom_world_time(w) == 2.0);
    carom_body_state s;
    CHECK_EQ_INT(carom_world_get_body(w, 2, &s), CAROM_NOT_FOUND);
    CHECK(contains(carom_world_message(w), "body 2"));
    CHECK_EQ_INT(carom_world_get_body(w, -1, &s), CAROM_NOT_FOUND);
    CHECK_EQ_INT(carom_world_set_body_velocity(w, 0, (carom_vec){NAN, 0, 0}), CAROM_INVALID_ARGUMENT);
    CHECK(contains(carom_world_message(w), "body 0") && contains(carom_world_message(w), "velocity.x"));
    CHECK_EQ_INT(carom_world_get_body(w, 0, &s), CAROM_OK);
    CHECK_NEAR(s.velocity.x, -1.0, 1e-15); /* the refused velocity left no trace */
    CHECK_NEAR(s.position.x, -1.0, 1e-12); /* met at -0.5 at t = 1.5, then back at speed 1 */
    CHECK_EQ_INT(carom_world_run(w, 5.0, -1), CAROM_OK);
    carom_world_destroy(w);
}

static carom_world *callback_world;
static carom_status callback_status[3];

static int meddle(void *user, const carom_event *e)
{
    (void)user;
    (void)e;
    carom_body_def b = carom_default_body_def();
    b.position = (carom_vec){4.0, 4.0, 4.0};
    callback_status[0] = carom_world_add_body(callback_world, &b, NULL);
    callback_status[1] = carom_world_set_body_velocity(callback_world, 0, (carom_vec){0, 0, 0});
    callback_status[2] = carom_world_run(callback_world, 100.0, -1);
    return 0;
}

static void test_callback_cannot_change_world(void)
{
    carom_world_def def = carom_default_world_def();
    def.boundary[0] = CAROM_WALLS;
    def.on_event = meddle;
    CHECK_EQ_INT(carom_world_create(&def, &callback_world, NULL, 0), CAROM_OK);
    carom_body_def b = carom_default_body_def();
    b.velocity.x = 1.0;
    CHECK_EQ_INT(carom_world_add_body(callback_world, &b, NULL), CAROM_OK);
    CHECK_EQ_INT(carom_world_run(callback_world, 10.0, -1), CAROM_OK);
    for (int k = 0; k < 3; k++) CHECK_EQ_INT(callback_status[k], CAROM_INVALID_ARGUMENT);
    CHECK_EQ_INT(carom_world_body_count(callback_world), 1);
    carom_world_destroy(callback_world);
}

/* Numbers whose squares or products would overflow or lose every digit are
 * refused, naming the supported range. */
static void test_scales_out_of_range(void)
{
    carom_world_def def = carom_default_world_def();
    def.box.x = 1e308;
    expect_bad_def(def, "box.x", "1e-75 to 1e75");
    def = carom_default_world_def();
    def.gravity.z = 1e200;
    expect_bad_def(def, "gravity.z", "1e-75 to 1e75");
    def = carom_default_world_def();
    def.collapse_time = NAN;
    expect_bad_def(def, "collapse_time", "nan");
    carom_world *w = make_world(3, CAROM_PERIODIC, 10.0);
    carom_body_def b = carom_default_body_def();
    b.velocity.y = 1e154;
    CHECK_EQ_INT(carom_world_add_body(w, &b, NULL), CAROM_INVALID_ARGUMENT);
    CHECK(contains(carom_world_message(w), "velocity.y") && contains(carom_world_message(w), "1e-75 to 1e75"));
    b = carom_default_body_def();
    b.radius = 1e-160;
    CHECK_EQ_INT(carom_world_add_body(w, &b, NULL), CAROM_INVALID_ARGUMENT);
    CHECK(contains(carom_world_message(w), "radius") && contains(carom_world_message(w), "supported range"));
    b = carom_default_body_def();
    b.mass = 1e-300;
    CHECK_EQ_INT(carom_world_add_body(w, &b, NULL), CAROM_INVALID_ARGUMENT);
    CHECK(contains(carom_world_message(w), "mass"));
    b = carom_default_body_def();
    b.position.x = 1e-80; /* a tiny coordinate is a position like any other */
    CHECK_EQ_INT(carom_world_add_body(w, &b, NULL), CAROM_INVALID_ARGUMENT);
    CHECK_EQ_INT(carom_world_body_count(w), 0);
    carom_world_destroy(w);
}

/* A body refused for overlapping, even one wider than any before (which
 * would need a new grid), leaves the world exactly as it was: the run that
 * follows gives the same bits as one that never saw the call. */
static carom_world *running_world(int refuse_one)
{
    carom_world *w = make_world(3, CAROM_PERIODIC, 12.0);
    carom_rng rng = carom_rng_seed(8);
    for (int k = 0; k < 60; k++) {
        carom_body_def b = carom_default_body_def();
        b.position = (carom_vec){12 * carom_rng_uniform(&rng) - 6, 12 * carom_rng_uniform(&rng) - 6,
                                 12 * carom_rng_uniform(&rng) - 6};
        b.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), carom_rng_normal(&rng)};
        b.radius = 0.3;
        carom_world_add_body(w, &b, NULL);
    }
    CHECK(carom_world_run(w, 2.0, -1) == CAROM_OK);
    if (refuse_one) {
        carom_body_state s;
        CHECK(carom_world_get_body(w, 0, &s) == CAROM_OK);
        carom_body_def big = carom_default_body_def();
        big.position = s.position; /* on top of body 0 */
        big.radius = 1.5;
        CHECK_EQ_INT(carom_world_add_body(w, &big, NULL), CAROM_OVERLAP);
        CHECK(contains(carom_world_message(w), "overlaps body"));
    }
    CHECK(carom_world_run(w, 6.0, -1) == CAROM_OK);
    return w;
}

/* carom_world_counts reads what carom_world_stats reports, in chunks of a
 * few events too; the pair count moves by at most the events asked. */
static void test_counts_match_stats(void)
{
    carom_world *w = running_world(0);
    for (int k = 0; k < 50; k++) {
        carom_counts before = carom_world_counts(w);
        CHECK(carom_world_run(w, INFINITY, 1 + k % 3) == CAROM_OK);
        carom_counts c = carom_world_counts(w);
        carom_stats s = carom_world_stats(w);
        CHECK(c.time == s.time && c.events == s.events && c.pair_events == s.pair_events);
        CHECK(c.wall_events == s.wall_events && c.cell_events == s.cell_events && c.rest_events == s.rest_events);
        CHECK(c.sensor_events == s.sensor_events && c.stale_events == s.stale_events && c.predictions == s.predictions);
        CHECK(c.events - before.events == 1 + k % 3 && c.time >= before.time);
    }
    carom_world_destroy(w);
    carom_counts none = carom_world_counts(NULL);
    CHECK(none.events == 0 && none.time == 0.0);
}

static void test_refused_body_changes_nothing(void)
{
    carom_world *a = running_world(0), *b = running_world(1);
    CHECK(hash_bodies(FNV1A_OFFSET, a, 1) == hash_bodies(FNV1A_OFFSET, b, 1));
    CHECK(carom_world_stats(a).events == carom_world_stats(b).events);
    CHECK_EQ_INT(carom_world_body_count(b), carom_world_body_count(a));
    carom_world_destroy(a);
    carom_world_destroy(b);
}

static void test_names_and_defaults(void)
{
    for (int s = CAROM_OK; s <= CAROM_NOT_FOUND; s++)
        CHECK(strlen(carom_status_name((carom_status)s)) > 1);
    CHECK(strcmp(carom_status_name(CAROM_OVERLAP), "overlap") == 0);
    carom_world_def def = carom_default_world_def();
    CHECK(def.dim == 3 && def.restitution == 1.0 && def.wall_restitution == 1.0);
    carom_body_def b = carom_default_body_def();
    CHECK(b.radius == 0.5 && b.mass == 1.0);
    carom_world_destroy(NULL); /* harmless */
    CHECK_EQ_INT(carom_world_body_count(NULL), 0);
}

static void test_rng_reproducible(void)
{
    carom_rng a = carom_rng_seed(7), b = carom_rng_seed(7), c = carom_rng_seed(8);
    int same = 1, differ = 0;
    double sum = 0.0, sum2 = 0.0;
    for (int k = 0; k < 100000; k++) {
        uint64_t x = carom_rng_next(&a), y = carom_rng_next(&b), z = carom_rng_next(&c);
        same &= x == y;
        differ |= x != z;
        double g = carom_rng_normal(&a);
        (void)carom_rng_normal(&b);
        sum += g, sum2 += g * g;
    }
    CHECK(same && differ);
    CHECK_NEAR(sum / 100000, 0.0, 0.02);       /* 6 standard errors */
    CHECK_NEAR(sum2 / 100000, 1.0, 0.03);
}

int main(void)
{
    RUN(test_bad_world_defs);
    RUN(test_bad_bodies);
    RUN(test_periodic_bodies);
    RUN(test_world_stays_usable);
    RUN(test_callback_cannot_change_world);
    RUN(test_scales_out_of_range);
    RUN(test_refused_body_changes_nothing);
    RUN(test_counts_match_stats);
    RUN(test_names_and_defaults);
    RUN(test_rng_reproducible);
    return CHECK_SUMMARY();
}
