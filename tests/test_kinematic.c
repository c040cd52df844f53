/* test_kinematic.c — kinematic bodies (mass INFINITY) and drive_body
 * (issue 12) against closed forms, through the public API.
 *
 * A free body of velocity v hitting a body of infinite mass moving at u
 * (at the instant of contact) along the unit normal n: the general impulse
 * J = -(1 + e) m_f m_k / (m_f + m_k) ((v - u) . n) tends, as m_k -> inf,
 * to -(1 + e) m_f ((v - u) . n), so
 *     v' = v - (1 + e) ((v - u) . n) n,    u' = u,
 * i.e. the normal velocity relative to the kinematic body is reversed and
 * scaled by e; head-on, v' = (1 + e) u - e v. The energy this gives the free
 * body, m (v'^2 - v^2) / 2, is carom_stats.kinematic_work.
 * drive_body sets v = (target - x) / dt - a dt / 2, so that x + v dt + a
 * dt^2 / 2 = target: reached to a few ulps at now + dt.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "driven_common.h"

/* A log that also keeps the states of the event's bodies, read in the callback. */
typedef struct seen {
    carom_world *world;
    int count;
    carom_event events[8];
    carom_body_state bi[8], bj[8];
} seen;

static int on_event_seen(void *user, const carom_event *e)
{
    seen *s = user;
    if (s->count < 8) {
        s->events[s->count] = *e;
        CHECK(carom_world_get_body(s->world, e->i, &s->bi[s->count]) == CAROM_OK);
        if (e->kind == CAROM_EVENT_PAIR)
            CHECK(carom_world_get_body(s->world, e->j, &s->bj[s->count]) == CAROM_OK);
    }
    s->count++;
    return 0;
}

static carom_world *box_world(int dim, double side, double e, double e_wall, carom_vec g,
                              carom_event_callback cb, void *user)
{
    carom_world_def def = carom_default_world_def();
    def.dim = dim;
    def.box = (carom_vec){side, side, side};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = CAROM_WALLS;
    def.restitution = e;
    def.wall_restitution = e_wall;
    def.gravity = g;
    def.on_event = cb;
    def.user = user;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    return w;
}

static int32_t add(carom_world *w, carom_vec x, carom_vec v, carom_vec a, double r, double m)
{
    carom_body_def b = carom_default_body_def();
    b.position = x, b.velocity = v, b.acceleration = a, b.radius = r, b.mass = m;
    int32_t id = -1;
    carom_status st = carom_world_add_body(w, &b, &id);
    CHECK_MSG(st == CAROM_OK, "%s", carom_world_message(w));
    return id;
}

/* The positive root of A t^2 + B t - C = 0 (C > 0), without cancellation. */
static double positive_root(double A, double B, double C)
{
    return 2.0 * C / (B + sqrt(B * B + 4.0 * A * C));
}

/* Kinematic body 0 (radius 0.5) at x = -3 moving at u with own acceleration
 * ak; free body 1 (radius 0.7, mass 2) at x = 2 moving at v. */
static void check_head_on(double u, double ak, double v, double e)
{
    seen s = {0};
    carom_world *w = box_world(2, 20.0, e, 1.0, (carom_vec){0, 0, 0}, on_event_seen, &s);
    if (!w) return;
    s.world = w;
    const double m = 2.0;
    add(w, (carom_vec){-3, 0, 0}, (carom_vec){u, 0, 0}, (carom_vec){ak, 0, 0}, 0.5, INFINITY);
    add(w, (carom_vec){2, 0, 0}, (carom_vec){v, 0, 0}, (carom_vec){0, 0, 0}, 0.7, m);
    /* (2 + v t) - (-3 + u t + ak t^2 / 2) = 1.2 */
    double t = positive_root(0.5 * ak, u - v, 3.8), uk = u + ak * t;
    double v_after = (1.0 + e) * uk - e * v;
    CHECK_EQ_INT(carom_world_advance(w, t + 0.25), CAROM_OK);
    CHECK_EQ_INT(s.count, 1);
    CHECK_EQ_INT(s.events[0].kind, CAROM_EVENT_PAIR);
    CHECK(s.events[0].i == 0 && s.events[0].j == 1);
    CHECK_NEAR(s.events[0].time, t, 1e-13 * t);
    CHECK_NEAR(s.bj[0].velocity.x, v_after, 1e-13 * fabs(uk - v));
    CHECK(s.bj[0].velocity.y == 0.0);
    CHECK_NEAR(s.events[0].impulse, m * fabs(v_after - v), 1e-13 * m * fabs(uk - v));
    /* the kinematic body is not deflected */
    CHECK_NEAR(s.bi[0].velocity.x, uk, 1e-13 * (fabs(u) + fabs(ak) * t));
    CHECK(s.bi[0].mass == INFINITY);
    carom_body_state k;
    CHECK(carom_world_get_body(w, 0, &k) == CAROM_OK);
    double tt = carom_world_time(w);
    CHECK_NEAR(k.position.x, -3.0 + u * tt + 0.5 * ak * tt * tt, 1e-14 * 8.0);
    CHECK_NEAR(k.velocity.x, u + ak * tt, 1e-14 * (fabs(u) + fabs(ak * tt)));
    carom_stats st = carom_world_stats(w);
    double gained = 0.5 * m * (v_after * v_after - v * v);
    CHECK_NEAR(st.kinematic_work, gained, 1e-12 * 0.5 * m * (v_after * v_after + v * v));
    CHECK(st.control_work == 0.0);
    /* the kinetic energy counts the free body only */
    CHECK_NEAR(st.kinetic_energy, 0.5 * m * v_after * v_after, 1e-12 * 0.5 * m * v_after * v_after);
    carom_world_destroy(w);
}

static void test_head_on_closed_form(void)
{
    const double es[] = {1.0, 0.75, 0.5, 0.0};
    for (int k = 0; k < 4; k++) {
        check_head_on(1.0, 0.0, -0.5, es[k]);
        check_head_on(2.5, 0.0, 0.5, es[k]); /* catching up from behind */
    }
    check_head_on(0.5, 0.8, -0.25, 1.0); /* an accelerating kinematic body */
    check_head_on(2.0, -0.3, 0.0, 0.6);  /* a braking one */
}

/* Kinematic body 0 at (-3, b) moving at (2, 0); free body 1 at rest at the
 * origin; both radius 0.5. Contact when body 0 is at (-sqrt(1 - b^2), b),
 * normal n = (sqrt(1 - b^2), -b) from 0 to 1, and v1' = (1 + e) (u . n) n. */
static void check_oblique(double b, double e, int dim)
{
    seen s = {0};
    carom_world *w = box_world(dim, 20.0, e, 1.0, (carom_vec){0, 0, 0}, on_event_seen, &s);
    if (!w) return;
    s.world = w;
    add(w, (carom_vec){-3, b, 0}, (carom_vec){2, 0, 0}, (carom_vec){0, 0, 0}, 0.5, INFINITY);
    add(w, (carom_vec){0, 0, 0}, (carom_vec){0, 0, 0}, (carom_vec){0, 0, 0}, 0.5, 1.0);
    double c = sqrt(1.0 - b * b), t = (3.0 - c) / 2.0, un = 2.0 * c;
    CHECK_EQ_INT(carom_world_advance(w, 2.0), CAROM_OK);
    CHECK_EQ_INT(s.count, 1);
    CHECK_NEAR(s.events[0].time, t, 1e-13);
    CHECK_NEAR(s.bj[0].velocity.x, (1.0 + e) * un * c, 1e-13);
    CHECK_NEAR(s.bj[0].velocity.y, -(1.0 + e) * un * b, 1e-13);
    carom_body_state k;
    CHECK(carom_world_get_body(w, 0, &k) == CAROM_OK);
    CHECK(k.velocity.x == 2.0 && k.velocity.y == 0.0 && k.velocity.z == 0.0);
    CHECK(k.position.y == b);
    CHECK_NEAR(k.position.x, -3.0 + 2.0 * 2.0, 1e-14);
    carom_world_destroy(w);
}

static void test_oblique_hits(void)
{
    check_oblique(0.6, 1.0, 2);
    check_oblique(0.6, 0.7, 2);
    check_oblique(-0.3, 1.0, 3);
    check_oblique(0.95, 0.5, 3);
}

/* Two kinematic bodies pass through each other; world gravity moves neither. */
static void test_kinematic_pass_through(void)
{
    seen s = {0};
    carom_world *w = box_world(2, 20.0, 1.0, 1.0, (carom_vec){0, -1.0, 0}, on_event_seen, &s);
    if (!w) return;
    s.world = w;
    add(w, (carom_vec){-3, 0.1, 0}, (carom_vec){1, 0, 0}, (carom_vec){0, 0, 0}, 0.5, INFINITY);
    add(w, (carom_vec){3, -0.1, 0}, (carom_vec){-1, 0, 0}, (carom_vec){0, 0, 0}, 0.6, INFINITY);
    add(w, (carom_vec){0, 5, 0}, (carom_vec){0, 0, 0}, (carom_vec){0, 0, 0}, 0.5,
        INFINITY); /* at rest */
    for (int k = 0; k < 12; k++) CHECK_EQ_INT(carom_world_advance(w, 0.5), CAROM_OK);
    CHECK_EQ_INT(s.count, 0);
    carom_body_state a, b, c;
    CHECK(carom_world_get_body(w, 0, &a) == CAROM_OK &&
          carom_world_get_body(w, 1, &b) == CAROM_OK && carom_world_get_body(w, 2, &c) == CAROM_OK);
    CHECK_NEAR(a.position.x, 3.0, 1e-14);
    CHECK_NEAR(b.position.x, -3.0, 1e-14);
    CHECK(a.position.y == 0.1 && b.position.y == -0.1 && a.velocity.y == 0.0 &&
          b.velocity.y == 0.0);
    CHECK(c.position.x == 0.0 && c.position.y == 5.0 && c.velocity.y == 0.0);
    carom_stats st = carom_world_stats(w);
    CHECK(st.kinetic_energy == 0.0 && st.potential_energy == 0.0 && st.pair_events == 0);
    carom_world_destroy(w);
}

/* A kinematic body meets the x+ wall of a box 10 wide: x = u t + a t^2 / 2
 * reaches 4.5; it bounces with e_wall, impulse 0, and keeps its acceleration. */
static void check_wall_bounce(double e_wall)
{
    seen s = {0};
    carom_world *w = box_world(2, 10.0, 1.0, e_wall, (carom_vec){0, -1.0, 0}, on_event_seen, &s);
    if (!w) return;
    s.world = w;
    const double u = 2.0, a = 0.3;
    add(w, (carom_vec){0, 0, 0}, (carom_vec){u, 0.5, 0}, (carom_vec){a, 0, 0}, 0.5, INFINITY);
    double t = positive_root(0.5 * a, u, 4.5);
    CHECK_EQ_INT(carom_world_advance(w, t + 0.5), CAROM_OK);
    CHECK_EQ_INT(s.count, 1);
    CHECK_EQ_INT(s.events[0].kind, CAROM_EVENT_WALL);
    CHECK(s.events[0].i == 0 && s.events[0].j == CAROM_WALL_X_PLUS);
    CHECK_NEAR(s.events[0].time, t, 1e-13 * t);
    CHECK(s.events[0].impulse == 0.0);
    CHECK_NEAR(s.bi[0].velocity.x, -e_wall * (u + a * t), 1e-13 * (u + a * t));
    CHECK(s.bi[0].velocity.y == 0.5); /* no gravity on a kinematic body */
    CHECK(s.bi[0].acceleration.x == a && s.bi[0].acceleration.y == 0.0);
    carom_body_state k;
    CHECK(carom_world_get_body(w, 0, &k) == CAROM_OK);
    double tau = carom_world_time(w) - t, u1 = -e_wall * (u + a * t);
    CHECK_NEAR(k.position.x, 4.5 + u1 * tau + 0.5 * a * tau * tau, 1e-12);
    carom_world_destroy(w);
}

static void test_kinematic_wall_bounce(void)
{
    check_wall_bounce(1.0);
    check_wall_bounce(0.8);
}

/* drive_body: at now + dt the body is at the target, to a few ulps. */
static void check_drive(int dim, double mass, carom_vec own, carom_vec g, double warmup, double dt)
{
    carom_world *w = box_world(dim, 40.0, 1.0, 1.0, g, NULL, NULL);
    if (!w) return;
    add(w, (carom_vec){1.3, -0.7, dim == 3 ? 0.4 : 0.0}, (carom_vec){0.2, 0.1, 0}, own, 0.5, mass);
    if (warmup > 0.0) CHECK_EQ_INT(carom_world_advance(w, warmup), CAROM_OK);
    carom_body_state s0;
    CHECK(carom_world_get_body(w, 0, &s0) == CAROM_OK);
    carom_vec target = {-2.1, 3.3, dim == 3 ? -1.7 : 0.0};
    carom_status st = carom_world_drive_body(w, 0, target, dt);
    CHECK_MSG(st == CAROM_OK, "%s", carom_world_message(w));
    double t_end = carom_world_time(w) + dt;
    CHECK_EQ_INT(carom_world_advance(w, dt), CAROM_OK);
    CHECK(carom_world_time(w) == t_end);
    carom_body_state s;
    CHECK(carom_world_get_body(w, 0, &s) == CAROM_OK);
    double x0[3] = {s0.position.x, s0.position.y, s0.position.z},
           x[3] = {s.position.x, s.position.y, s.position.z};
    double tg[3] = {target.x, target.y, target.z};
    double a[3] = {own.x + (mass < INFINITY ? g.x : 0), own.y + (mass < INFINITY ? g.y : 0),
                   own.z + (mass < INFINITY ? g.z : 0)};
    for (int k = 0; k < dim; k++) {
        double scale = fabs(x0[k]) + fabs(tg[k]) + fabs(a[k]) * dt * dt;
        CHECK_MSG(fabs(x[k] - tg[k]) <= 8.0 * 0x1p-52 * scale,
                  "axis %d: at %.17g, target %.17g (%.3g ulps)", k, x[k], tg[k],
                  fabs(x[k] - tg[k]) / (0x1p-52 * scale));
    }
    carom_world_destroy(w);
}

static void test_drive_body_reaches_target(void)
{
    const carom_vec none = {0, 0, 0}, own = {0.25, -0.5, 0.125}, g = {0, -9.81, 0};
    check_drive(2, INFINITY, none, none, 0.0, 0.75);
    check_drive(2, INFINITY, own, none, 0.3, 0.75);
    check_drive(3, INFINITY, own, g, 1.1, 0.1); /* gravity does not act on it */
    check_drive(3, INFINITY, none, none, 0.37, 1.0 / 3.0);
    check_drive(2, 1.5, none, none, 0.0, 0.5); /* a free body, nothing in its way */
    check_drive(3, 1.5, own, g, 0.2, 0.6);     /* with gravity and its own acceleration */
}

/* A kinematic paddle driven to random targets among free bodies (e = 1,
 * elastic walls): the free bodies' kinetic energy grows by exactly the
 * kinematic work, and driving a kinematic body does no control work. */
static void test_kinematic_work_is_energy_gained(void)
{
    driven_log log = {0};
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){12, 12, 12};
    def.boundary[0] = def.boundary[1] = CAROM_WALLS;
    def.on_event = driven_record;
    def.user = &log;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    if (!w) return;
    carom_rng rng = carom_rng_seed(77);
    add(w, (carom_vec){0, 0, 0}, (carom_vec){0, 0, 0}, (carom_vec){0, 0, 0}, 1.0, INFINITY);
    for (int b = 0; b < 8; b++)
        add(w, (carom_vec){-4.5 + 3.0 * (b % 4), b < 4 ? -4.0 : 4.0, 0},
            (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), 0}, (carom_vec){0, 0, 0},
            0.3, 0.5 + carom_rng_uniform(&rng));
    double ke0 = carom_world_stats(w).kinetic_energy, worst = 0.0;
    int paddle_hits = 0;
    for (int window = 0; window < 400; window++) {
        /* targets keep the paddle 2.5 from every wall: no body can be squeezed */
        carom_vec target = {(carom_rng_uniform(&rng) - 0.5) * 5.0,
                            (carom_rng_uniform(&rng) - 0.5) * 5.0, 0};
        if (window % 5 == 0) CHECK_EQ_INT(carom_world_drive_body(w, 0, target, 0.25), CAROM_OK);
        CHECK_EQ_INT(carom_world_advance(w, 0.05), CAROM_OK);
        carom_stats st = carom_world_stats(w);
        double gap =
            fabs(st.kinetic_energy - ke0 - st.kinematic_work) / fmax(st.kinetic_energy, ke0);
        worst = fmax(worst, gap);
        CHECK_MSG(gap <= 1e-12, "window %d: KE %.17g - KE0 %.17g != kinematic work %.17g", window,
                  st.kinetic_energy, ke0, st.kinematic_work);
        CHECK(st.control_work == 0.0);
        if (gap > 1e-12) break;
    }
    for (size_t e = 0; e < log.count; e++)
        paddle_hits += log.events[e].kind == CAROM_EVENT_PAIR && log.events[e].i == 0;
    carom_stats st = carom_world_stats(w);
    printf("  %d paddle hits, kinematic work %.6g (KE %.6g -> %.6g), worst gap %.3g\n", paddle_hits,
           st.kinematic_work, ke0, st.kinetic_energy, worst);
    CHECK(paddle_hits >= 10);
    CHECK(st.kinematic_work != 0.0);
    carom_world_destroy(w);
    driven_log_free(&log);
}

/* A free body squeezed between a kinematic body and a wall: the gap closes
 * at t = 5.5 (kinematic centre from -2 to 3.5 at speed 1), the free body
 * bounces faster and faster, and the jam guard must stop the run with
 * CAROM_JAMMED naming it. The event cap makes a regression fail, not hang. */
static void check_squeeze(int dim, double e)
{
    carom_world *w = box_world(dim, 10.0, e, 1.0, (carom_vec){0, 0, 0}, NULL, NULL);
    if (!w) return;
    add(w, (carom_vec){-2, 0, 0}, (carom_vec){1, 0, 0}, (carom_vec){0, 0, 0}, 0.5, INFINITY);
    add(w, (carom_vec){2, 0, 0}, (carom_vec){0, 0, 0}, (carom_vec){0, 0, 0}, 0.5, 1.0);
    carom_status st = carom_world_run(w, 20.0, 2000000);
    const char *msg = carom_world_message(w);
    CHECK_MSG(st == CAROM_JAMMED, "got %s (%s) at t = %.17g", carom_status_name(st), msg,
              carom_world_time(w));
    CHECK_MSG(strstr(msg, "body 1") != NULL, "the message does not name body 1: %s", msg);
    double t = carom_world_time(w);
    CHECK_MSG(t >= 3.0 && t <= 5.5, "jammed at t = %.17g", t);
    carom_body_state k, f;
    CHECK(carom_world_get_body(w, 0, &k) == CAROM_OK && carom_world_get_body(w, 1, &f) == CAROM_OK);
    CHECK(isfinite(f.position.x) && isfinite(f.velocity.x));
    CHECK(f.position.x <= 4.5 + 1e-9 && f.position.x - k.position.x >= 1.0 - 1e-9);
    CHECK(carom_world_stats(w).events < 2000000);
    /* the world goes on: the kinematic body pulled back, the free body stopped */
    CHECK_EQ_INT(carom_world_set_body_velocity(w, 0, (carom_vec){-1, 0, 0}), CAROM_OK);
    CHECK_EQ_INT(carom_world_set_body_velocity(w, 1, (carom_vec){0, 0, 0}), CAROM_OK);
    st = carom_world_advance(w, 1.0);
    CHECK_MSG(st == CAROM_OK, "after the jam: %s (%s)", carom_status_name(st),
              carom_world_message(w));
    CHECK(carom_world_get_body(w, 1, &f) == CAROM_OK && fabs(f.position.x) <= 4.5 + 1e-9);
    printf("  dim %d, e %.1f: jammed at t = %.6f: %s\n", dim, e, t, msg);
    carom_world_destroy(w);
}

static void test_squeeze_jams(void)
{
    check_squeeze(2, 1.0);
    check_squeeze(3, 1.0);
    check_squeeze(2, 0.5);
}

/* A body whose own acceleration presses it against a wall of restitution
 * 0.5 bounces ever lower; the TC model makes a bounce less than collapse_time
 * after its previous event elastic, so it keeps hopping, at most about once
 * per t_c, by a height of order a t_c^2, and never jams. With the TC model
 * off the series collapses: CAROM_JAMMED. */
static void pressed_against_wall(double collapse_time, carom_status expected)
{
    carom_world_def d = carom_default_world_def();
    d.dim = 2;
    d.box = (carom_vec){10, 10, 0};
    d.boundary[0] = d.boundary[1] = CAROM_WALLS;
    d.wall_restitution = 0.5;
    d.collapse_time = collapse_time;
    carom_world *w = NULL;
    CHECK(carom_world_create(&d, &w, NULL, 0) == CAROM_OK);
    carom_body_def b = carom_default_body_def();
    b.position = (carom_vec){0, 1, 0};
    b.acceleration = (carom_vec){0, -1, 0};
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    carom_status st = carom_world_run(w, 20.0, 2000000);
    CHECK_MSG(st == expected, "%s: %s", carom_status_name(st), carom_world_message(w));
    if (expected == CAROM_OK) {
        double t_c = carom_world_definition(w).collapse_time;
        carom_body_state s;
        CHECK(carom_world_get_body(w, 0, &s) == CAROM_OK);
        carom_stats stats = carom_world_stats(w);
        /* lands (closed form: t = sqrt(2 * 5.5)), then at most about one hop per t_c */
        CHECK(t_c > 0.0 && stats.wall_events < 40 + 2.0 * (20.0 - sqrt(11.0)) / t_c);
        CHECK_MSG(s.position.y + 4.5 < t_c * t_c, "%.17g above the wall, t_c = %g", s.position.y + 4.5, t_c);
        CHECK(carom_world_time(w) == 20.0);
    }
    carom_world_destroy(w);
}

static void test_driven_body_pressed_against_inelastic_wall(void)
{
    pressed_against_wall(0.0, CAROM_OK);     /* the TC model, chosen automatically */
    pressed_against_wall(-1.0, CAROM_JAMMED); /* off */
}

int main(void)
{
    RUN(test_head_on_closed_form);
    RUN(test_oblique_hits);
    RUN(test_kinematic_pass_through);
    RUN(test_kinematic_wall_bounce);
    RUN(test_drive_body_reaches_target);
    RUN(test_kinematic_work_is_energy_gained);
    RUN(test_squeeze_jams);
    RUN(test_driven_body_pressed_against_inelastic_wall);
    return CHECK_SUMMARY();
}
