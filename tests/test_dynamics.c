/* test_dynamics.c — the engine against hand-solved motion: head-on and
 * oblique collisions with unequal masses and restitution (seed 004, case 2),
 * wall bounces, exact parabolas under gravity, periodic wrapping, steering
 * and adding bodies mid-run, and the jammed row of seed 002, 2.1.2. */
#include <math.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "event_log.h"


static carom_world *make_world(int dim, carom_boundary boundary, carom_vec box, event_log *log)
{
    carom_world_def def = carom_default_world_def();
    def.dim = dim;
    def.box = box;
    def.boundary[0] = def.boundary[1] = def.boundary[2] = boundary;
    def.on_event = record;
    def.user = log;
    memset(log, 0, sizeof *log);
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    return w;
}

static carom_world *make_world_def(carom_world_def def, event_log *log)
{
    def.on_event = record;
    def.user = log;
    memset(log, 0, sizeof *log);
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    return w;
}

static void add(carom_world *w, carom_vec x, carom_vec v, double radius, double mass)
{
    carom_body_def b = carom_default_body_def();
    b.position = x, b.velocity = v, b.radius = radius, b.mass = mass;
    carom_status st = carom_world_add_body(w, &b, NULL);
    CHECK_MSG(st == CAROM_OK, "%s", carom_world_message(w));
}

static carom_body_state body(carom_world *w, int32_t id)
{
    carom_body_state s;
    memset(&s, 0, sizeof s);
    CHECK(carom_world_get_body(w, id, &s) == CAROM_OK);
    return s;
}

static void test_head_on_unequal_masses(void)
{
    carom_world_def def = carom_default_world_def();
    def.box = (carom_vec){20, 20, 20};
    def.restitution = 0.6;
    event_log log;
    carom_world *w = make_world_def(def, &log);
    double m1 = 1, m2 = 3, v1 = 2, v2 = -1, e = 0.6;
    add(w, (carom_vec){-3, 0, 0}, (carom_vec){v1, 0, 0}, 0.5, m1);
    add(w, (carom_vec){3, 0, 0}, (carom_vec){v2, 0, 0}, 1.0, m2);
    CHECK(carom_world_run(w, 2.0, -1) == CAROM_OK);
    CHECK_EQ_INT(log.count, 1);
    CHECK_NEAR(log.events[0].time, 1.5, 1e-14); /* gap 6 - 1.5 closed at speed 3 */
    CHECK(log.events[0].kind == CAROM_EVENT_PAIR && log.events[0].i == 0 && log.events[0].j == 1);
    double v1_after = (m1 * v1 + m2 * v2 + m2 * e * (v2 - v1)) / (m1 + m2);
    double v2_after = (m1 * v1 + m2 * v2 + m1 * e * (v1 - v2)) / (m1 + m2);
    CHECK_NEAR(body(w, 0).velocity.x, v1_after, 1e-14);
    CHECK_NEAR(body(w, 1).velocity.x, v2_after, 1e-14);
    CHECK_NEAR(log.events[0].impulse, m1 * fabs(v1_after - v1), 1e-13);
    /* Kinetic energy lost: (1 - e^2) m_red v_rel^2 / 2. */
    carom_stats s = carom_world_stats(w);
    double ke0 = 0.5 * m1 * v1 * v1 + 0.5 * m2 * v2 * v2, mred = m1 * m2 / (m1 + m2);
    CHECK_NEAR(s.kinetic_energy, ke0 - 0.5 * (1 - e * e) * mred * 9.0, 1e-13);
    CHECK_NEAR(s.momentum.x, m1 * v1 + m2 * v2, 1e-14);
    carom_world_destroy(w);
}

static void test_oblique_equal_masses(void)
{
    event_log log;
    carom_world *w = make_world(2, CAROM_WALLS, (carom_vec){20, 20, 0}, &log);
    add(w, (carom_vec){0, 0, 0}, (carom_vec){0, 0, 0}, 0.5, 1);
    add(w, (carom_vec){-3, 0.5, 0}, (carom_vec){1, 0, 0}, 0.5, 1);
    CHECK(carom_world_run(w, 2.5, -1) == CAROM_OK);
    double c = sqrt(0.75); /* contact: dx = -c, dy = 0.5 */
    CHECK_EQ_INT(log.count, 1);
    CHECK_NEAR(log.events[0].time, 3.0 - c, 1e-14);
    /* Equal masses, elastic: the struck body takes the normal part. */
    carom_body_state a = body(w, 0), b = body(w, 1);
    CHECK_NEAR(a.velocity.x, c * c, 1e-14);
    CHECK_NEAR(a.velocity.y, -0.5 * c, 1e-14);
    CHECK_NEAR(b.velocity.x, 1 - c * c, 1e-14);
    CHECK_NEAR(b.velocity.y, 0.5 * c, 1e-14);
    CHECK_NEAR(a.velocity.x * b.velocity.x + a.velocity.y * b.velocity.y, 0.0, 1e-14);
    carom_world_destroy(w);
}

static void test_wall_bounces_with_restitution(void)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){10, 10, 0};
    def.boundary[0] = def.boundary[1] = CAROM_WALLS;
    def.wall_restitution = 0.5;
    event_log log;
    carom_world *w = make_world_def(def, &log);
    add(w, (carom_vec){0, 0, 0}, (carom_vec){3, 0, 0}, 0.5, 2);
    CHECK(carom_world_run(w, 20.0, -1) == CAROM_OK);
    /* 4.5 to the first wall at speed 3, then 9 at speeds 1.5 and 0.75. */
    const double times[3] = {1.5, 7.5, 19.5};
    const int walls[3] = {CAROM_WALL_X_PLUS, CAROM_WALL_X_MINUS, CAROM_WALL_X_PLUS};
    CHECK_EQ_INT(log.count, 3);
    for (int k = 0; k < 3 && k < log.count; k++) {
        CHECK_NEAR(log.events[k].time, times[k], 1e-13);
        CHECK(log.events[k].kind == CAROM_EVENT_WALL && log.events[k].i == 0);
        CHECK_EQ_INT(log.events[k].j, walls[k]);
    }
    CHECK_NEAR(log.events[0].impulse, 2 * 1.5 * 3, 1e-13);
    carom_stats s = carom_world_stats(w);
    double impulse = 2 * (1.5 * 3 + 1.5 * 1.5 + 1.5 * 0.75); /* (1 + e) m v per bounce */
    CHECK_NEAR(s.wall_pressure, impulse / (4 * 10 * 20.0), 1e-13);
    CHECK_NEAR(body(w, 0).velocity.x, -3 * 0.125, 1e-15); /* after x+, x-, x+ */
    carom_world_destroy(w);
}

static carom_world_def gravity_def(double e_wall)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){20, 20, 0};
    def.boundary[0] = def.boundary[1] = CAROM_WALLS;
    def.gravity = (carom_vec){0, -2, 0};
    def.wall_restitution = e_wall;
    return def;
}

static void test_gravity_bounces(void)
{
    event_log log;
    carom_world *w = make_world_def(gravity_def(0.8), &log);
    add(w, (carom_vec){0, 0, 0}, (carom_vec){0, 0, 0}, 1.0, 1);
    CHECK(carom_world_run(w, 12.0, -1) == CAROM_OK);
    /* Falls 9 at g = 2: t = 3, speed 6; flights of 2 e^k 6 / 2 after. */
    const double times[3] = {3.0, 3.0 + 4.8, 3.0 + 4.8 + 3.84};
    CHECK_EQ_INT(log.count, 3);
    for (int k = 0; k < 3 && k < log.count; k++) {
        CHECK_NEAR(log.events[k].time, times[k], 1e-12);
        CHECK_EQ_INT(log.events[k].j, CAROM_WALL_Y_MINUS);
    }
    /* At t = 12, 0.36 after the third bounce at speed 6 * 0.8^3. */
    double v3 = 6 * 0.512, s = 12.0 - times[2];
    carom_body_state b = body(w, 0);
    CHECK_NEAR(b.position.y, -9 + v3 * s - s * s, 1e-11);
    CHECK_NEAR(b.velocity.y, v3 - 2 * s, 1e-12);
    carom_world_destroy(w);
}

static void test_gravity_ceiling_and_pair(void)
{
    event_log log;
    carom_world *w = make_world_def(gravity_def(1.0), &log);
    add(w, (carom_vec){-5, 0, 0}, (carom_vec){0, 10, 0}, 1.0, 1); /* thrown up: 9 = 10 t - t^2 */
    add(w, (carom_vec){5, 0, 0}, (carom_vec){0, 0, 0}, 1.0, 1);   /* dropped onto the floor */
    add(w, (carom_vec){5, 5, 0}, (carom_vec){0, 0, 0}, 1.0, 1);   /* falls with it, then meets it */
    CHECK(carom_world_run(w, 3.4, -1) == CAROM_OK);
    CHECK_EQ_INT(log.count, 4);
    CHECK_NEAR(log.events[0].time, 1.0, 1e-13);
    CHECK(log.events[0].i == 0 && log.events[0].j == CAROM_WALL_Y_PLUS);
    /* Back down from 9 at speed 8: 18 = 8 s + s^2. */
    CHECK_NEAR(log.events[1].time, 1.0 + (-8.0 + sqrt(64.0 + 72.0)) / 2.0, 1e-13);
    CHECK(log.events[1].i == 0 && log.events[1].j == CAROM_WALL_Y_MINUS);
    CHECK_NEAR(log.events[2].time, 3.0, 1e-13);
    CHECK(log.events[2].i == 1 && log.events[2].j == CAROM_WALL_Y_MINUS);
    /* After the bounce: gap 3 closed at relative speed 12 (same g for both). */
    CHECK_NEAR(log.events[3].time, 3.25, 1e-13);
    CHECK(log.events[3].kind == CAROM_EVENT_PAIR && log.events[3].i == 1 && log.events[3].j == 2);
    carom_world_destroy(w);
}

static void test_energy_with_gravity(void)
{
    event_log log;
    carom_world *w = make_world_def(gravity_def(1.0), &log);
    add(w, (carom_vec){-3, 2, 0}, (carom_vec){1.5, 0.5, 0}, 1.0, 2);
    add(w, (carom_vec){3, -1, 0}, (carom_vec){-0.7, 2, 0}, 0.7, 1);
    carom_stats s0 = carom_world_stats(w);
    CHECK(carom_world_run(w, 500.0, -1) == CAROM_OK);
    carom_stats s1 = carom_world_stats(w);
    double e0 = s0.kinetic_energy + s0.potential_energy, e1 = s1.kinetic_energy + s1.potential_energy;
    CHECK(s1.pair_events > 5 && s1.wall_events > 50);
    CHECK_NEAR(e1, e0, 1e-10 * fabs(s0.kinetic_energy));
    carom_world_destroy(w);
}

static void test_periodic_wrap(void)
{
    event_log log;
    carom_world *w = make_world(3, CAROM_PERIODIC, (carom_vec){10, 10, 10}, &log);
    add(w, (carom_vec){0.25, -0.5, 1}, (carom_vec){1, 0.5, 0.25}, 0.5, 1);
    CHECK(carom_world_run(w, 40.0, -1) == CAROM_OK); /* moves (40, 20, 10): whole box sides */
    carom_body_state b = body(w, 0);
    CHECK_NEAR(b.position.x, 0.25, 1e-12);
    CHECK_NEAR(b.position.y, -0.5, 1e-12);
    CHECK_NEAR(b.position.z, 1.0, 1e-12);
    carom_stats s = carom_world_stats(w);
    CHECK(s.cell_events == 21 && s.pair_events == 0 && s.wall_events == 0); /* 3 cells a side: 12 + 6 + 3 */
    CHECK_EQ_INT(log.count, 0);
    carom_world_destroy(w);
}

static void test_steer_and_add_mid_run(void)
{
    event_log log;
    carom_world *w = make_world(3, CAROM_WALLS, (carom_vec){10, 10, 10}, &log);
    add(w, (carom_vec){-3, 0, 0}, (carom_vec){0, 0, 0}, 0.5, 1);
    add(w, (carom_vec){3, 0, 0}, (carom_vec){0, 0, 0}, 0.5, 1);
    CHECK(carom_world_run(w, 1.0, -1) == CAROM_OK);
    CHECK(carom_world_set_body_velocity(w, 0, (carom_vec){2, 0, 0}) == CAROM_OK);
    CHECK(carom_world_run(w, 4.0, -1) == CAROM_OK);
    CHECK_EQ_INT(log.count, 1);
    CHECK_NEAR(log.events[0].time, 1.0 + 5.0 / 2.0, 1e-14);
    /* Body 1 now moves +x at 2 from x = 3 + 2 * 0.5 = 4 at t = 4... it hit nothing
     * yet: the wall is at 4.5. Add a body in its way on the other side. */
    CHECK_NEAR(body(w, 1).position.x, 4.0, 1e-13);
    add(w, (carom_vec){-4, 0, 0}, (carom_vec){0, 0, 0}, 0.5, 1);
    CHECK(carom_world_run(w, 10.0, -1) == CAROM_OK);
    /* Body 1: wall at t = 4.25, back from 4.5 onto body 0 resting at 2 (contact at
     * 3) at t = 5; body 0 then runs into body 2 (contact at -3) at 5 + 5 / 2. */
    CHECK_EQ_INT(log.count, 6); /* then body 2 bounces off x- (7.75) back onto body 0 (8) */
    CHECK_NEAR(log.events[1].time, 4.25, 1e-13);
    CHECK(log.events[1].i == 1 && log.events[1].j == CAROM_WALL_X_PLUS);
    CHECK_NEAR(log.events[2].time, 5.0, 1e-13);
    CHECK(log.events[2].i == 0 && log.events[2].j == 1);
    CHECK_NEAR(log.events[3].time, 7.5, 1e-13);
    CHECK(log.events[3].i == 0 && log.events[3].j == 2);
    CHECK_NEAR(log.events[5].time, 8.0, 1e-13);
    carom_world_destroy(w);
}

/* Seed 002, 2.1.2: disks touching each other and both walls, one pushing. */
static void test_jammed_row(void)
{
    event_log log;
    carom_world *w = make_world(2, CAROM_WALLS, (carom_vec){3, 10, 0}, &log);
    add(w, (carom_vec){-1, 0, 0}, (carom_vec){0, 0, 0}, 0.5, 1);
    add(w, (carom_vec){0, 0, 0}, (carom_vec){1, 0, 0}, 0.5, 1);
    add(w, (carom_vec){1, 0, 0}, (carom_vec){0, 0, 0}, 0.5, 1);
    CHECK_EQ_INT(carom_world_run(w, 10.0, -1), CAROM_JAMMED);
    CHECK(strstr(carom_world_message(w), "jammed") != NULL);
    CHECK(carom_world_time(w) == 0.0);
    CHECK(log.count >= 1000 && log.count < 10000);
    /* Still usable: stop the push and it runs to the end. */
    for (int32_t i = 0; i < 3; i++)
        CHECK(carom_world_set_body_velocity(w, i, (carom_vec){0, 1, 0}) == CAROM_OK);
    CHECK_EQ_INT(carom_world_run(w, 10.0, -1), CAROM_OK);
    CHECK(carom_world_time(w) == 10.0);
    carom_world_destroy(w);
}

static void test_single_body_pinned_between_walls(void)
{
    event_log log;
    carom_world *w = make_world(2, CAROM_WALLS, (carom_vec){1, 10, 0}, &log);
    add(w, (carom_vec){0, 0, 0}, (carom_vec){1, 0, 0}, 0.5, 1);
    CHECK_EQ_INT(carom_world_run(w, 1.0, -1), CAROM_JAMMED);
    carom_world_destroy(w);
}

static void test_loose_row_makes_progress(void)
{
    event_log log;
    carom_world *w = make_world(2, CAROM_WALLS, (carom_vec){3.3, 10, 0}, &log);
    add(w, (carom_vec){-1.1, 0, 0}, (carom_vec){0, 0, 0}, 0.5, 1);
    add(w, (carom_vec){0, 0, 0}, (carom_vec){1, 0, 0}, 0.5, 1);
    add(w, (carom_vec){1.1, 0, 0}, (carom_vec){0, 0, 0}, 0.5, 1);
    CHECK_EQ_INT(carom_world_run(w, 10.0, -1), CAROM_OK);
    carom_stats s = carom_world_stats(w);
    /* The moving "pulse" covers the free space (0.1, 0.05, 0.05, 0.1 and
     * back: 0.6) with 6 collisions per cycle: 100 in 10 time units. */
    CHECK_EQ_INT(s.pair_events + s.wall_events, 100);
    CHECK_NEAR(s.kinetic_energy, 0.5, 1e-14);
    carom_world_destroy(w);
}

static void test_inelastic_collapse_under_gravity(void)
{
    event_log log;
    carom_world_def def = gravity_def(0.5);
    carom_world *w = make_world_def(def, &log);
    add(w, (carom_vec){0, 0, 0}, (carom_vec){0, 0, 0}, 1.0, 1);
    /* Bounces shrink geometrically: infinitely many in finite time, summed in
     * closed form; the body rests on the floor from then on. */
    CHECK_EQ_INT(carom_world_run(w, 100.0, -1), CAROM_OK);
    carom_stats st = carom_world_stats(w);
    CHECK_EQ_INT(st.rest_events, 1);
    CHECK(st.wall_events < 100);
    CHECK(carom_world_time(w) == 100.0);
    CHECK(body(w, 0).velocity.y == 0.0);
    carom_world_destroy(w);
    def.on_event = NULL;
    w = make_world_def(def, &log);
    add(w, (carom_vec){0, 0, 0}, (carom_vec){0, 0, 0}, 1.0, 1);
    double t_rest = carom_world_next_event_time(w);
    while (carom_world_stats(w).rest_events == 0 && carom_world_run(w, INFINITY, 1) == CAROM_OK)
        t_rest = carom_world_time(w);
    CHECK_NEAR(t_rest, 3.0 + 6.0, 1e-12); /* 3 + sum over k >= 1 of 2 * 0.5^k * 6 / 2 */
    carom_world_destroy(w);
    def.elastic_below_speed = 0.5; /* the usual cure: slow impacts are elastic */
    w = make_world_def(def, &log);
    add(w, (carom_vec){0, 0, 0}, (carom_vec){0, 0, 0}, 1.0, 1);
    CHECK_EQ_INT(carom_world_run(w, 100.0, -1), CAROM_OK);
    carom_stats s = carom_world_stats(w);
    CHECK(s.wall_events > 100);
    CHECK(fabs(body(w, 0).velocity.y) <= 0.5 + 2 * 0.5 + 1e-9);
    carom_world_destroy(w);
}

static void test_event_cap(void)
{
    event_log log;
    carom_world *w = make_world(2, CAROM_WALLS, (carom_vec){10, 10, 0}, &log);
    add(w, (carom_vec){0, 0, 0}, (carom_vec){3, 0.1, 0}, 0.5, 1);
    add(w, (carom_vec){2, 2, 0}, (carom_vec){-1, 0.7, 0}, 0.5, 1);
    for (int k = 0; k < 5; k++) {
        int64_t before = carom_world_stats(w).events;
        CHECK_EQ_INT(carom_world_run(w, INFINITY, 7), CAROM_OK); /* caps all events, cells too */
        CHECK_EQ_INT(carom_world_stats(w).events, before + 7);
    }
    double t = carom_world_time(w);
    CHECK(t > 0.0);
    CHECK_EQ_INT(carom_world_run(w, INFINITY, 0), CAROM_OK);
    CHECK(carom_world_time(w) == t);
    CHECK_EQ_INT(carom_world_run(w, t + 100.0, 1), CAROM_OK); /* the cap comes first */
    CHECK(carom_world_time(w) < t + 100.0);
    carom_world_destroy(w);
}

int main(void)
{
    RUN(test_head_on_unequal_masses);
    RUN(test_oblique_equal_masses);
    RUN(test_wall_bounces_with_restitution);
    RUN(test_gravity_bounces);
    RUN(test_gravity_ceiling_and_pair);
    RUN(test_energy_with_gravity);
    RUN(test_periodic_wrap);
    RUN(test_steer_and_add_mid_run);
    RUN(test_jammed_row);
    RUN(test_single_body_pinned_between_walls);
    RUN(test_loose_row_makes_progress);
    RUN(test_inelastic_collapse_under_gravity);
    RUN(test_event_cap);
    return CHECK_SUMMARY();
}
