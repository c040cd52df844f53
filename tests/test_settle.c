/* test_settle.c — inelastic bodies come to rest, and nothing spins without
 * progress: the closed-form end of a Zeno series of bounces, bodies resting on
 * and leaving a floor, restitution 0 for pairs and walls, the TC model in a
 * pile, the quartic contact time of differently accelerated bodies against a
 * sampled reference, exact ties decided by the total order whatever the
 * memory layout, no event at infinity, a creeping clock caught as a jam. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "order.h"
#include "predict.h"
#include "state_hash.h"
#include "world.h"

/* ---- an event log ------------------------------------------------------ */

#define EVENT_LOG_CAPACITY 4096
#include "event_log.h"

static carom_world *make_world(int dim, carom_vec box, const carom_boundary boundary[3], carom_vec g,
                               double e, double e_wall, event_log *log)
{
    carom_world_def def = carom_default_world_def();
    def.dim = dim;
    def.box = box;
    for (int a = 0; a < 3; a++) def.boundary[a] = boundary[a];
    def.gravity = g;
    def.restitution = e;
    def.wall_restitution = e_wall;
    def.on_event = log ? record : NULL;
    def.user = log;
    carom_world *w = NULL;
    char why[256] = "";
    CHECK_MSG(carom_world_create(&def, &w, why, sizeof why) == CAROM_OK, "%s", why);
    return w;
}

static const carom_boundary walls[3] = {CAROM_WALLS, CAROM_WALLS, CAROM_WALLS};

static int32_t add(carom_world *w, double x, double y, double vx, double vy, double radius)
{
    carom_body_def b = carom_default_body_def();
    b.position = (carom_vec){x, y, 0};
    b.velocity = (carom_vec){vx, vy, 0};
    b.radius = radius;
    int32_t id = -1;
    CHECK_MSG(carom_world_add_body(w, &b, &id) == CAROM_OK, "%s", carom_world_message(w));
    return id;
}

static int count_kind(const event_log *log, carom_event_kind kind)
{
    int n = 0;
    for (int k = 0; k < log->count && k < MAX_LOG; k++) n += log->events[k].kind == kind;
    return n;
}

/* ---- Zeno ---------------------------------------------------------------- */

/* A disk dropped from rest at height h above its floor, wall restitution e:
 * first impact at t1 = sqrt(2h/g) with speed g t1, then hops 2 e^k g t1 / g,
 * so it rests at t1 + 2 e t1 / (1 - e) = t1 (1 + e) / (1 - e). The event is
 * computed at the first bounce: it must be that closed form to the last bits. */
static void check_zeno(double e, double drop, double g)
{
    event_log *log = calloc(1, sizeof *log);
    carom_world *w = make_world(2, (carom_vec){10, 10, 10}, walls, (carom_vec){0, -g, 0}, 1.0, e, log);
    double floor_y = -5.0 + 0.5;
    add(w, 1.0, floor_y + drop, 0.01, 0.0, 0.5);
    CHECK_EQ_INT(carom_world_run(w, 100.0, -1), CAROM_OK);
    double t1 = sqrt(2.0 * drop / g), u = e * g * t1;
    double expected = t1 + 2.0 * u / (g * (1.0 - e));
    CHECK_EQ_INT(count_kind(log, CAROM_EVENT_REST), 1);
    for (int k = 0; k < log->count && k < MAX_LOG; k++) {
        if (log->events[k].kind != CAROM_EVENT_REST) continue;
        CHECK_NEAR(log->events[k].time, expected, 4 * 0x1p-52 * expected);
        CHECK_EQ_INT(log->events[k].j, CAROM_WALL_Y_MINUS);
    }
    CHECK_MSG(log->count < 200 + 2 * log10(1e-10) / log10(e), "%d events for one series", log->count);
    carom_body_state s;
    CHECK(carom_world_get_body(w, 0, &s) == CAROM_OK);
    CHECK(s.position.y == floor_y); /* on the floor exactly, */
    CHECK(s.velocity.y == 0.0);     /* with no normal velocity, */
    CHECK(s.velocity.x == 0.01); /* sliding on along the floor */
    CHECK_NEAR(s.position.x, 2.0, 1e-12);
    carom_stats st = carom_world_stats(w);
    CHECK_EQ_INT(st.rest_events, 1);
    CHECK(st.time == 100.0);
    carom_world_destroy(w);
    free(log);
}

static void test_zeno_closed_form(void)
{
    check_zeno(0.5, 3.5, 1.0); /* the repro: rests at 3 sqrt(7) */
    check_zeno(0.8, 2.0, 9.81);
    check_zeno(0.95, 1.0, 2.0);
}

/* The repro's figure itself: sqrt(7) + 2 sqrt(7) 0.5 / 0.5. */
static void test_zeno_repro_time(void)
{
    event_log *log = calloc(1, sizeof *log);
    carom_world *w = make_world(2, (carom_vec){10, 10, 10}, walls, (carom_vec){0, -1, 0}, 1.0, 0.5, log);
    add(w, 0.0, -1.0, 0.0, 0.0, 0.5);
    CHECK_EQ_INT(carom_world_run(w, 10.0, -1), CAROM_OK);
    int found = 0;
    for (int k = 0; k < log->count; k++)
        if (log->events[k].kind == CAROM_EVENT_REST) {
            found++;
            CHECK_MSG(log->events[k].time == 7.9372539331937718, "rest at %.17g", log->events[k].time);
        }
    CHECK_EQ_INT(found, 1);
    carom_world_destroy(w);
    free(log);
}

/* Wall restitution 0: the body stops at its first impact and rests there. */
static void test_wall_restitution_zero(void)
{
    event_log *log = calloc(1, sizeof *log);
    carom_world *w = make_world(2, (carom_vec){10, 10, 10}, walls, (carom_vec){0, -2, 0}, 1.0, 0.0, log);
    add(w, 0.0, 0.0, 0.0, 0.0, 0.5);
    CHECK_EQ_INT(carom_world_run(w, 50.0, -1), CAROM_OK);
    CHECK_EQ_INT(count_kind(log, CAROM_EVENT_WALL), 1);
    CHECK_NEAR(log->events[0].time, sqrt(2.0 * 4.5 / 2.0), 1e-15);
    carom_body_state s;
    CHECK(carom_world_get_body(w, 0, &s) == CAROM_OK);
    CHECK(s.position.y == -4.5 && s.velocity.y == 0.0);
    CHECK(carom_world_next_event_time(w) == INFINITY);
    carom_world_destroy(w);
    free(log);
}

/* ---- resting bodies and the bodies that hit them --------------------------- */

/* A row touching the floor at rest is at rest: no event, no jam. */
static void test_resting_row_is_not_an_event(void)
{
    const carom_boundary b[3] = {CAROM_PERIODIC, CAROM_WALLS, CAROM_WALLS};
    carom_world *w = make_world(2, (carom_vec){20, 20, 20}, b, (carom_vec){0, -1, 0}, 0.9, 1.0, NULL);
    for (int k = 0; k < 10; k++) add(w, -9.5 + 2.0 * k, -9.5, 0.0, 0.0, 0.5);
    CHECK_EQ_INT(carom_world_run(w, 10.0, -1), CAROM_OK);
    carom_stats st = carom_world_stats(w);
    CHECK_EQ_INT(st.pair_events + st.wall_events, 0);
    CHECK(st.time == 10.0);
    CHECK(carom_world_next_event_time(w) == INFINITY);
    carom_body_state s;
    CHECK(carom_world_get_body(w, 3, &s) == CAROM_OK);
    CHECK(s.position.y == -9.5 && s.velocity.y == 0.0);
    carom_world_destroy(w);
}

/* A body dropped on a resting one, everything elastic: they meet exactly at
 * contact (the quartic kernel: one is accelerated, the other not), the
 * resting body is pushed into the floor and bounces, and kinetic plus
 * potential energy is conserved. */
static void test_drop_on_resting_body(void)
{
    event_log *log = calloc(1, sizeof *log);
    carom_world *w = make_world(2, (carom_vec){10, 10, 10}, walls, (carom_vec){0, -1, 0}, 1.0, 1.0, log);
    add(w, 0.0, -4.5, 0.0, 0.0, 0.5);  /* resting on the floor */
    add(w, 0.3, 1.0, 0.0, 0.0, 0.5);   /* falls on it, off centre */
    carom_stats st = carom_world_stats(w);
    double energy = st.kinetic_energy + st.potential_energy;
    CHECK_EQ_INT(carom_world_run(w, 3.5, -1), CAROM_OK);
    /* first event: the pair, when the falling body's centre is at distance 1 */
    CHECK(log->count > 0 && log->events[0].kind == CAROM_EVENT_PAIR);
    double dy = sqrt(1.0 - 0.3 * 0.3), fall = 1.0 - (-4.5 + dy);
    if (log->count > 0) CHECK_NEAR(log->events[0].time, sqrt(2.0 * fall), 1e-12);
    CHECK_EQ_INT(carom_world_run(w, 40.0, -1), CAROM_OK);
    st = carom_world_stats(w);
    CHECK_NEAR(st.kinetic_energy + st.potential_energy, energy, 1e-11 * fabs(energy));
    CHECK(st.pair_events > 1 && st.wall_events > 1);
    carom_world_destroy(w);
    free(log);
}

/* ---- restitution 0 and the TC model -------------------------------------- */

static double min_gap(const carom_world *w)
{
    double gap = INFINITY;
    int32_t n = carom_world_body_count(w);
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = i + 1; j < n; j++) {
            carom_body_state a, b;
            carom_world_get_body(w, i, &a);
            carom_world_get_body(w, j, &b);
            double dx = a.position.x - b.position.x, dy = a.position.y - b.position.y;
            gap = fmin(gap, sqrt(dx * dx + dy * dy) - a.radius - b.radius);
        }
    return gap;
}

/* A dilute gas at restitution 0 (pairs and walls) runs to its end: pairs
 * stick or slide apart, and no collision is taken twice at one instant. */
static void test_restitution_zero_gas(void)
{
    event_log *log = calloc(1, sizeof *log);
    carom_world *w = make_world(2, (carom_vec){40, 40, 40}, walls, (carom_vec){0, 0, 0}, 0.0, 0.0, log);
    carom_rng rng = carom_rng_seed(3);
    for (int k = 0; k < 100; k++) {
        carom_body_def b = carom_default_body_def();
        b.position = (carom_vec){-19 + 38 * carom_rng_uniform(&rng), -19 + 38 * carom_rng_uniform(&rng), 0};
        double angle = 6.283185307179586 * carom_rng_uniform(&rng);
        b.velocity = (carom_vec){cos(angle), sin(angle), 0};
        carom_world_add_body(w, &b, NULL); /* an overlapping draw is refused and skipped */
    }
    CHECK(carom_world_body_count(w) > 80);
    double previous = carom_world_stats(w).kinetic_energy;
    for (double t = 1.0; t <= 20.0; t += 1.0) {
        CHECK_MSG(carom_world_run(w, t, -1) == CAROM_OK, "%s", carom_world_message(w));
        double ke = carom_world_stats(w).kinetic_energy;
        CHECK(ke <= previous * (1 + 1e-12));
        previous = ke;
    }
    CHECK(carom_world_time(w) == 20.0);
    CHECK(min_gap(w) > -1e-9);
    /* A collision taken twice: the same pair again, at the same time, with no
     * event of either body between (a chain of three at one instant is fine). */
    int repeats = 0;
    for (int k = 1; k < log->count && k < MAX_LOG; k++) {
        const carom_event *e = &log->events[k];
        if (e->kind != CAROM_EVENT_PAIR) continue;
        for (int m = k - 1; m >= 0; m--) {
            const carom_event *p = &log->events[m];
            int shares = p->i == e->i || p->i == e->j || (p->kind == CAROM_EVENT_PAIR && (p->j == e->i || p->j == e->j));
            if (!shares) continue;
            repeats += p->kind == CAROM_EVENT_PAIR && p->i == e->i && p->j == e->j && p->time == e->time;
            break;
        }
    }
    CHECK_EQ_INT(repeats, 0);
    CHECK(count_kind(log, CAROM_EVENT_PAIR) > 20);
    carom_world_destroy(w);
    free(log);
}

/* Two bodies meeting head on at restitution 0 stop and stay touching: one
 * collision, never again. */
static void test_head_on_sticks(void)
{
    event_log *log = calloc(1, sizeof *log);
    const carom_boundary p[3] = {CAROM_PERIODIC, CAROM_PERIODIC, CAROM_PERIODIC};
    carom_world *w = make_world(2, (carom_vec){10, 10, 10}, p, (carom_vec){0, 0, 0}, 0.0, 1.0, log);
    add(w, -1.0, 0.1, 0.7, 0.0, 0.5);
    add(w, 1.0, 0.1, -0.3, 0.0, 0.5);
    CHECK_EQ_INT(carom_world_run(w, 100.0, -1), CAROM_OK);
    CHECK_EQ_INT(count_kind(log, CAROM_EVENT_PAIR), 1);
    carom_body_state a, b;
    carom_world_get_body(w, 0, &a);
    carom_world_get_body(w, 1, &b);
    CHECK_NEAR(a.velocity.x, 0.2, 1e-15);
    CHECK_NEAR(b.velocity.x, 0.2, 1e-15);
    carom_world_destroy(w);
    free(log);
}

/* A granular pile under gravity (restitution 0.5, floor 0.5): with the TC
 * model on by default it settles and runs to its end with a bounded
 * collision rate; with it off and no other cure it collapses, which the jam
 * guard reports naming the cure. */
static carom_world *pile(double collapse_time)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){12, 30, 1};
    def.boundary[0] = CAROM_PERIODIC;
    def.boundary[1] = CAROM_WALLS;
    def.gravity = (carom_vec){0, -1, 0};
    def.restitution = 0.5;
    def.wall_restitution = 0.5;
    def.collapse_time = collapse_time;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_rng rng = carom_rng_seed(11);
    for (int row = 0; row < 8; row++)
        for (int k = 0; k < 5; k++) {
            carom_body_def b = carom_default_body_def();
            b.position = (carom_vec){-5 + 2.2 * k + 0.3 * carom_rng_uniform(&rng), -12 + 2.5 * row, 0};
            b.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), 0};
            CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
        }
    return w;
}

/* It settles (its kinetic energy falls to a small part of what it was), runs
 * to its end, and its pair collision rate stays within 50 per body per t_c. */
static void test_pile_settles_with_tc(void)
{
    carom_world *w = pile(0.0);
    double until = check_quick() ? 14.0 : 20.0, start = carom_world_stats(w).kinetic_energy;
    carom_status st = carom_world_run(w, until / 2, 20000000);
    carom_stats half = carom_world_stats(w);
    if (st == CAROM_OK) st = carom_world_run(w, until, 20000000);
    CHECK_MSG(st == CAROM_OK, "%s", carom_world_message(w));
    CHECK(carom_world_time(w) == until);
    carom_world_def def = carom_world_definition(w);
    CHECK(def.collapse_time > 0.0 && def.collapse_time < 0.1); /* chosen at the first run */
    carom_stats s = carom_world_stats(w);
    CHECK(s.kinetic_energy < 0.1 * start);
    double rate = (double)(s.pair_events - half.pair_events) / (40 * (until / 2));
    CHECK_MSG(rate * def.collapse_time < 50.0, "%g pair collisions per body per t_c", rate * def.collapse_time);
    CHECK(min_gap(w) > -1e-9);
    printf("  pile of 40 to t = %g: KE %.3g of its start, %.0f pair collisions per body per T (%.1f per t_c = %.3g)\n",
           until, s.kinetic_energy / start, rate, rate * def.collapse_time, def.collapse_time);
    carom_world_destroy(w);
}

static void test_pile_without_cure_is_a_jam(void)
{
    carom_world *w = pile(-1.0);
    carom_status st = carom_world_run(w, 200.0, 50000000);
    CHECK_EQ_INT(st, CAROM_JAMMED);
    const char *m = carom_world_message(w);
    CHECK_MSG(strstr(m, "collapse_time") && strstr(m, "body "), "message: %s", m);
    carom_world_destroy(w);
}

/* A pile restored from a snapshot taken while bodies rest, hop through Zeno
 * series and remember their last partners goes on bit for bit as the
 * original does. */
/* Disks dropped from different heights with wall restitution 0.7, sliding
 * sideways, now and then meeting: they bounce, finish Zeno series, rest and
 * slide, and are knocked off the floor again. */
static carom_world *bouncers(void)
{
    const carom_boundary b[3] = {CAROM_WALLS, CAROM_WALLS, CAROM_WALLS};
    carom_world *w = make_world(2, (carom_vec){20, 10, 10}, b, (carom_vec){0, -1, 0}, 0.9, 0.7, NULL);
    carom_rng rng = carom_rng_seed(17);
    for (int k = 0; k < 12; k++)
        add(w, -9 + 1.6 * k, -4.5 + 8 * carom_rng_uniform(&rng), 0.3 * carom_rng_normal(&rng), 0.0, 0.5);
    return w;
}

/* A snapshot taken at any moment continues bit for bit as the original: the
 * settling state (resting, finishing series, last partners, TC times) is
 * all in it. */
static void check_restarts(carom_world *w, double from, double to, double step, int *seen)
{
    for (double t = from; t <= to; t += step) {
        CHECK(carom_world_run(w, t, -1) == CAROM_OK);
        for (int32_t id = 0; id < w->count; id++) {
            seen[0] += w->rest.state && (w->rest.state[id] & 7) != 0;
            seen[1] += w->rest.state && (w->rest.state[id] >> 3) != 0;
            seen[2] += w->rest.last_partner && w->rest.last_partner[id] >= 0;
        }
        size_t size = carom_world_snapshot_size(w);
        void *buffer = malloc(size);
        CHECK(buffer && carom_world_snapshot(w, buffer, size) == CAROM_OK);
        carom_world *copy = NULL;
        char why[256] = "";
        CHECK_MSG(carom_world_restore(buffer, size, NULL, NULL, &copy, why, sizeof why) == CAROM_OK, "%s", why);
        free(buffer);
        if (!copy) return;
        CHECK(carom_world_definition(copy).collapse_time == carom_world_definition(w).collapse_time);
        CHECK(carom_world_run(copy, t + step, -1) == CAROM_OK);
        CHECK(carom_world_run(w, t + step, -1) == CAROM_OK);
        carom_stats a = carom_world_stats(w), b = carom_world_stats(copy);
        CHECK_MSG(hash_bodies(FNV1A_OFFSET, w, 1) == hash_bodies(FNV1A_OFFSET, copy, 1), "restored at %g", t);
        CHECK(a.events == b.events && a.rest_events == b.rest_events);
        carom_world_destroy(copy);
    }
}

static void test_restarts_are_bitwise(void)
{
    int seen[3] = {0, 0, 0};
    carom_world *w = bouncers();
    check_restarts(w, 0.5, 30.0, 0.25, seen);
    carom_world_destroy(w);
    w = pile(0.0);
    check_restarts(w, 8.0, 11.0, 0.25, seen);
    carom_world_destroy(w);
    /* a series is finishing only between its last resolved hop and its end:
     * catch one by stepping event by event */
    w = bouncers();
    while (seen[1] == 0 && carom_world_time(w) < 30.0) {
        CHECK(carom_world_run(w, 30.0, 1) == CAROM_OK);
        for (int32_t id = 0; id < w->count && !seen[1]; id++)
            if (w->rest.state[id] >> 3) check_restarts(w, carom_world_time(w), carom_world_time(w), 1.0, seen);
    }
    carom_world_destroy(w);
    printf("  snapshots held %d resting, %d finishing series, %d last partners\n", seen[0], seen[1], seen[2]);
    CHECK(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);
}

/* ---- a creeping clock ------------------------------------------------------ */

/* A disk between two walls with a gap of 1e-14: elastic bounces each advance
 * the clock by under 2^-40 of it; that is a jam, reported with the body. */
static void test_creeping_clock_is_a_jam(void)
{
    const carom_boundary b[3] = {CAROM_WALLS, CAROM_PERIODIC, CAROM_PERIODIC};
    carom_world *w = make_world(2, (carom_vec){1.0 + 1e-14, 10, 10}, b, (carom_vec){0, 0, 0}, 1.0, 1.0, NULL);
    add(w, 0.0, 0.0, 1.0, 0.0, 0.5);
    CHECK_EQ_INT(carom_world_run(w, 1.0, -1), CAROM_JAMMED);
    CHECK(strstr(carom_world_message(w), "body 0") != NULL);
    carom_world_destroy(w);
}

/* A body so slow in a box so wide that its first wall comes after 2^32 time
 * scales (d / v = 1e6 here, the wall at 5e15): there a unit in the last
 * place of the clock would exceed 2^-20 of the time scale, so the run stops
 * with a message instead of moving bodies by what the clock can no longer
 * resolve (found by fuzz_run: a box 9.2e60 wide). */
static void test_clock_beyond_resolution(void)
{
    carom_world *w = make_world(2, (carom_vec){1e10, 10, 10}, walls, (carom_vec){0, 0, 0}, 1.0, 1.0, NULL);
    add(w, 0.0, 0.0, 1e-6, 0.0, 0.5);
    CHECK_EQ_INT(carom_world_run(w, INFINITY, 10), CAROM_JAMMED);
    CHECK_MSG(strstr(carom_world_message(w), "resolve the motion") != NULL, "%s", carom_world_message(w));
    CHECK(carom_world_time(w) <= 0x1p32 * 1e6); /* the clock stays where motion is resolved */
    carom_world_destroy(w);
    w = make_world(2, (carom_vec){1e8, 10, 10}, walls, (carom_vec){0, 0, 0}, 1.0, 1.0, NULL);
    add(w, 0.0, 0.0, 1e-6, 0.0, 0.5); /* the wall at 5e13: within reach */
    CHECK_EQ_INT(carom_world_run(w, 6e13, -1), CAROM_OK);
    CHECK_EQ_INT(carom_world_stats(w).wall_events, 1);
    carom_world_destroy(w);
}

/* ---- no event at infinity --------------------------------------------------- */

static void test_bodies_at_rest_have_no_events(void)
{
    carom_world *w = make_world(2, (carom_vec){10, 10, 10}, walls, (carom_vec){0, 0, 0}, 1.0, 1.0, NULL);
    add(w, -1.0, 0.0, 0.0, 0.0, 0.5);
    add(w, 1.0, 0.0, 0.0, 0.0, 0.5);
    CHECK(carom_world_next_event_time(w) == INFINITY);
    CHECK_EQ_INT(carom_world_run(w, INFINITY, 5), CAROM_OK);
    carom_stats st = carom_world_stats(w);
    CHECK_EQ_INT(st.events, 0);
    CHECK(st.time == 0.0);
    carom_body_state s;
    CHECK(carom_world_get_body(w, 1, &s) == CAROM_OK);
    CHECK(s.position.x == 1.0 && s.velocity.x == 0.0);
    carom_world_destroy(w);
}

static void test_empty_world_runs(void)
{
    carom_world *w = make_world(2, (carom_vec){10, 10, 10}, walls, (carom_vec){0, -1, 0}, 0.5, 0.5, NULL);
    CHECK(carom_world_next_event_time(w) == INFINITY);
    CHECK_EQ_INT(carom_world_run(w, 5.0, -1), CAROM_OK);
    CHECK(carom_world_time(w) == 5.0);
    carom_stats st = carom_world_stats(w);
    CHECK(st.events == 0 && st.kinetic_energy == 0.0 && !isnan(st.temperature) && !isnan(st.pressure));
    CHECK_EQ_INT(carom_world_run(w, INFINITY, 3), CAROM_OK);
    carom_world_destroy(w);
}

/* ---- exact ties, whatever the memory layout --------------------------------- */

/* The near tie: body 1 touches body 3 now, and reaches body 2 at
 * 100 + 1.1e-15, which rounds to 100: a tie at t = 100 that the total order
 * gives to the lower id (2). Candidates come in memory order, so the layout
 * is reversed in a second world, and a third is restored from a snapshot:
 * the same event must come out of each. */
static void tie_world(int reverse, carom_event *first)
{
    event_log *log = calloc(1, sizeof *log);
    const carom_boundary p[3] = {CAROM_PERIODIC, CAROM_PERIODIC, CAROM_PERIODIC};
    carom_world_def def = carom_default_world_def();
    def.dim = 3;
    def.box = (carom_vec){20, 20, 20};
    for (int a = 0; a < 3; a++) def.boundary[a] = p[a];
    def.on_event = record;
    def.user = log;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_body_def b = carom_default_body_def();
    b.position = (carom_vec){-8, -8, -8};
    b.velocity = (carom_vec){0, 0, 0.01};
    carom_world_add_body(w, &b, NULL); /* body 0 runs the clock to 100 alone */
    CHECK(carom_world_run(w, 100.0, -1) == CAROM_OK);
    const carom_vec x[3] = {{0, 0, 0}, {1 + 1e-15, 0, 0}, {0, 1, 0}};
    const carom_vec v[3] = {{0, 0, 0}, {-1, 0, 0}, {0, -1, 0}};
    for (int k = 0; k < 3; k++) {
        b.position = x[k];
        b.velocity = v[k];
        CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    }
    CHECK(carom_world_next_event_time(w) == 100.0); /* builds the grid and the calendar */
    if (reverse == 1) {
        int32_t from[4];
        for (int k = 0; k < 4; k++) from[k] = 3 - k;
        CHECK(order_permute(w, from) == 0);
    }
    if (reverse == 2) { /* the case: a restored copy lays bodies out in id order */
        size_t size = carom_world_snapshot_size(w);
        void *bytes = malloc(size);
        carom_world *copy = NULL;
        CHECK(bytes && carom_world_snapshot(w, bytes, size) == CAROM_OK);
        CHECK(carom_world_restore(bytes, size, record, log, &copy, NULL, 0) == CAROM_OK);
        free(bytes);
        if (copy) {
            carom_world_destroy(w);
            w = copy;
        }
    }
    log->count = 0;
    CHECK(carom_world_run(w, INFINITY, 1) == CAROM_OK);
    CHECK(log->count >= 1);
    *first = log->events[0];
    carom_world_destroy(w);
    free(log);
}

static void test_near_tie_goes_by_id(void)
{
    carom_event a, b, c;
    tie_world(0, &a);
    tie_world(1, &b);
    tie_world(2, &c);
    CHECK_EQ_INT(c.i, a.i);
    CHECK_EQ_INT(c.j, a.j);
    CHECK(c.time == a.time);
    CHECK(a.time == 100.0 && b.time == 100.0);
    CHECK_EQ_INT(a.kind, CAROM_EVENT_PAIR);
    CHECK_EQ_INT(a.i, 1);
    CHECK_EQ_INT(a.j, 2);
    CHECK_EQ_INT(b.i, a.i);
    CHECK_EQ_INT(b.j, a.j);
}

/* ---- the quartic kernel against sampling ------------------------------------ */

static double separation2(const double dr[3], const double dv[3], const double da[3], double s)
{
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double d = dr[k] + dv[k] * s + 0.5 * da[k] * s * s;
        d2 += d * d;
    }
    return d2;
}

/* Random relative motions: the returned contact time has the distance sigma
 * (to round-off), and a fine sampling finds no contact before it. */
static void test_quartic_against_sampling(void)
{
    carom_rng rng = carom_rng_seed(5);
    int contacts = 0, misses = 0;
    for (int trial = 0; trial < 3000; trial++) {
        double dr[3], dv[3], da[3], sigma = 1.0;
        for (int k = 0; k < 3; k++) {
            dr[k] = 4.0 * (carom_rng_uniform(&rng) - 0.5);
            dv[k] = 2.0 * (carom_rng_uniform(&rng) - 0.5);
            da[k] = (trial % 3 == 0 && k != 1) ? 0.0 : 2.0 * (carom_rng_uniform(&rng) - 0.5);
        }
        if (separation2(dr, dv, da, 0.0) <= sigma * sigma) continue;
        double horizon = 10.0;
        double s = predict_pair_accelerated(dr, dv, da, sigma, horizon);
        double first = INFINITY;
        for (int m = 1; m <= 20000; m++) {
            double t = horizon * m / 20000.0;
            if (separation2(dr, dv, da, t) < sigma * sigma * (1 - 1e-9)) {
                first = t;
                break;
            }
        }
        if (isinf(s)) {
            CHECK_MSG(isinf(first), "trial %d: missed a contact by %g", trial, first);
            misses++;
            continue;
        }
        contacts++;
        CHECK_MSG(s >= 0.0 && s <= first, "trial %d: contact %.17g after the first sampled overlap %g", trial, s,
                  first);
        CHECK_NEAR(sqrt(separation2(dr, dv, da, s)), sigma, 1e-9);
    }
    CHECK_MSG(contacts > 200 && misses > 200, "%d contacts, %d misses", contacts, misses);
}

/* With equal accelerations the quartic is the quadratic: the same time. */
static void test_quartic_reduces_to_quadratic(void)
{
    const double dr[3] = {3, 0.4, 0}, dv[3] = {-1, 0, 0}, da[3] = {0, 0, 0};
    CHECK(predict_pair_accelerated(dr, dv, da, 1.0, INFINITY) == predict_pair(dr, dv, 1.0));
    const double dr2[3] = {0, 3, 0}, dv2[3] = {0, 0, 0}, da2[3] = {0, -1, 0};
    CHECK_NEAR(predict_pair_accelerated(dr2, dv2, da2, 1.0, INFINITY), 2.0, 1e-14); /* 2 = 1/2 s^2 */
}

/* Runs every test, or those whose name contains the argument. */
#define RUN_IF(test_function) \
    if (argc < 2 || strstr(#test_function, argv[1])) RUN(test_function)

int main(int argc, char **argv)
{
    RUN_IF(test_zeno_closed_form);
    RUN_IF(test_zeno_repro_time);
    RUN_IF(test_wall_restitution_zero);
    RUN_IF(test_resting_row_is_not_an_event);
    RUN_IF(test_drop_on_resting_body);
    RUN_IF(test_restitution_zero_gas);
    RUN_IF(test_head_on_sticks);
    RUN_IF(test_pile_settles_with_tc);
    RUN_IF(test_pile_without_cure_is_a_jam);
    RUN_IF(test_restarts_are_bitwise);
    RUN_IF(test_creeping_clock_is_a_jam);
    RUN_IF(test_clock_beyond_resolution);
    RUN_IF(test_bodies_at_rest_have_no_events);
    RUN_IF(test_empty_world_runs);
    RUN_IF(test_near_tie_goes_by_id);
    RUN_IF(test_quartic_against_sampling);
    RUN_IF(test_quartic_reduces_to_quadratic);
    return CHECK_SUMMARY();
}
