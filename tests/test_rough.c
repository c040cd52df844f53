/* test_rough.c — rough disks and spheres in the exact engine (issue 14,
 * item 2), through the public API only, checked against theory and against
 * conservation laws computed here from the bodies' states, never against
 * the code's own earlier output.
 *
 * The law (Huthmann & Zippelius, Phys. Rev. E 56, R6275 (1997); Luding,
 * Huthmann, McNamara & Zippelius, Phys. Rev. E 58, 3416 (1998)), worked by
 * hand here. Body 1 (mass m1, radius a1, inertia I1, velocity v1, spin w1)
 * meets body 2; n is the unit normal from 2 to 1, so the contact point is
 * x1 - a1 n = x2 + a2 n. The material points there move at v1 + w1 x (-a1 n)
 * and v2 + w2 x (a2 n), so their relative velocity is
 *     g = v1 - v2 - (a1 w1 + a2 w2) x n,   g = g_n n + g_t.
 * An impulse P at the contact (on 1; -P on 2) gives dv1 = P/m1, dv2 = -P/m2,
 * I1 dw1 = (-a1 n) x P, I2 dw2 = (a2 n) x (-P) (each body's angular momentum
 * about the contact point is unchanged). Then, since (n x P) x n = P_t,
 *     dg = P (1/m1 + 1/m2) + P_t (a1^2/I1 + a2^2/I2).
 * Asking g_n' = -e g_n and g_t' = -beta g_t:
 *     P = -(1 + e) mu g_n n - (1 + beta) m_t g_t,
 *     mu = 1/(1/m1 + 1/m2),  m_t = 1/(1/mu + a1^2/I1 + a2^2/I2).
 * The kinetic energy (translation and spin) changes by P . (g + g')/2:
 *     lost = (mu/2)(1 - e^2) g_n^2 + (m_t/2)(1 - beta^2) |g_t|^2.
 * A wall is body 2 with m2 = I2 = infinity: mu = m, m_t = m q/(1 + q) with
 * I = q m a^2 (q = 2/5 for a solid sphere, 1/2 for a solid disk).
 *
 * Checks:
 *   - a sphere and a disk bouncing off the floor with spin, several (e, beta),
 *     against the component formulas worked below (beta = -1: spin bitwise
 *     untouched);
 *   - a head-on rough pair (unequal masses and radii) against the component
 *     formulas; an oblique one against the defining properties: g_n' = -e g_n,
 *     g_t' = -beta g_t, momentum, and each body's angular momentum about the
 *     contact point;
 *   - the energy lost at every pair and wall event of a random gas (2D, 3D,
 *     unequal bodies, rough walls) against the closed form, g computed from
 *     the states read just before the event;
 *   - e = 1, beta = +-1: KE + rotational energy conserved over long runs;
 *     angular momentum about the centre conserved inside a smooth ball (3D)
 *     and disk (2D) container with rough, inelastic pairs (the container's
 *     normal passes through the centre, so its impulses have no torque
 *     there; a box's walls do, and periodic images break it too), and not
 *     conserved once the container is rough (so the check can fail);
 *   - equipartition in a rough hard-sphere (and disk) fluid at e = 1,
 *     beta = 1 from a start with no spin;
 *   - homogeneous cooling at e, beta < 1 against the kinetic theory of
 *     Huthmann & Zippelius (1997) (derived below): the temperatures against
 *     the collision count, their ratio at late times, Haff's t^-2 and its
 *     rate against the Enskog collision frequency;
 *   - carom_world_set_body_angular_velocity and the orientation in flight;
 *   - bad input refused with a message naming the field (and body).
 * CAROM_TEST_QUICK=1 (the sanitizer pass) runs the event-by-event and the
 * conservation checks shorter (the fluids are the same: a few seconds there).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "spin.h"
#include "world.h"

#define PI 3.14159265358979323846

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void vec_of(carom_vec v, double out[3]) { out[0] = v.x, out[1] = v.y, out[2] = v.z; }

static double uniform(carom_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * carom_rng_uniform(rng);
}

/* A world with walls (or periodic) on every axis, a cube of this side (2D: a square). */
static carom_world_def rough_def(int dim, double side, carom_boundary boundary, double e,
                                 double beta, double wall_e, double wall_beta)
{
    carom_world_def def = carom_default_world_def();
    def.dim = dim;
    def.box = (carom_vec){side, side, side};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = boundary;
    def.restitution = e;
    def.wall_restitution = wall_e;
    def.tangential_restitution = beta;
    def.wall_tangential_restitution = wall_beta;
    def.collapse_time = -1.0; /* the TC model off: every collision takes e as given */
    return def;
}

static carom_world *make_world(const carom_world_def *def)
{
    carom_world *w = NULL;
    char why[256] = "";
    carom_status st = carom_world_create(def, &w, why, sizeof why);
    CHECK_MSG(st == CAROM_OK, "%s", why);
    return w;
}

static carom_body_state body_of(const carom_world *w, int32_t id)
{
    carom_body_state s;
    CHECK(carom_world_get_body(w, id, &s) == CAROM_OK);
    return s;
}

static double total_energy(const carom_world *w)
{
    carom_stats s = carom_world_stats(w);
    return s.kinetic_energy + s.rotational_energy;
}

/* The event callback: remembers the last event; stops on the first one of kind stop_kind (if >= 0).
 */
typedef struct event_log {
    carom_event last;
    int64_t seen;
    int stop_kind;
    int64_t kinds[5];
} event_log;

static int log_event(void *user, const carom_event *e)
{
    event_log *log = user;
    log->last = *e;
    log->seen++;
    log->kinds[e->kind]++;
    return (int)e->kind == log->stop_kind;
}

/* ------------------------------------------------------------------ */
/* 1. Closed forms.                                                    */

/* The unit quaternion (x y z w) of a turn at angular velocity w for time t:
 * angle |w| t about w / |w|. */
static void rotation_quaternion(const double w[3], double t, double q[4])
{
    double speed = sqrt(dot3(w, w)), half = 0.5 * speed * t;
    for (int c = 0; c < 3; c++) q[c] = speed > 0.0 ? sin(half) * w[c] / speed : 0.0;
    q[3] = cos(half);
}

/* Hamilton product a b (x y z w): the turn b, then the turn a. */
static void quaternion_product(const double a[4], const double b[4], double out[4])
{
    double cross[3];
    cross3(a, b, cross);
    for (int c = 0; c < 3; c++) out[c] = a[3] * b[c] + b[3] * a[c] + cross[c];
    out[3] = a[3] * b[3] - dot3(a, b);
}

/* A sphere (3D) or disk (2D) of radius a, mass m, inertia q m a^2 drops on
 * the floor (wall y-, n = +y) with velocity v (v_y < 0) and spin w. Worked by
 * hand: w x n = (-w_z, 0, w_x), so g = v - a w x n = (v_x + a w_z, v_y,
 * v_z - a w_x); g_n = v_y, g_t = (v_x + a w_z, 0, v_z - a w_x). With
 * m_t = m q/(1 + q) and P = -(1 + e) m v_y n - (1 + beta) m_t g_t:
 *     v_y' = -e v_y,
 *     v_x' = v_x - (1 + beta) q/(1 + q) g_tx,  v_z' likewise with g_tz,
 *     w' = w - (a/I) n x P = w + (1 + beta)/(a (1 + q)) n x g_t,
 *     n x g_t = (g_tz, 0, -g_tx): w_x' = w_x + k g_tz, w_y' = w_y,
 *     w_z' = w_z - k g_tx,  k = (1 + beta)/(a (1 + q)).
 * In 2D w = (0, 0, w_z) and v_z = 0: only v_x, v_y, w_z change. */
static void check_floor_bounce(int dim, double e, double beta)
{
    const double a = 0.5, m = 2.0, q = dim == 3 ? 0.4 : 0.5, side = 10.0;
    const double v[3] = {1.5, -2.0, dim == 3 ? 0.75 : 0.0};
    const double w0[3] = {dim == 3 ? 0.3 : 0.0, dim == 3 ? -1.1 : 0.0, 2.5};
    carom_world_def def = rough_def(dim, side, CAROM_WALLS, 1.0, -1.0, e, beta);
    event_log log = {.stop_kind = CAROM_EVENT_WALL};
    def.on_event = log_event, def.user = &log;
    carom_world *w = make_world(&def);
    if (!w) return;
    carom_body_def b = carom_default_body_def();
    b.radius = a, b.mass = m;
    b.position =
        (carom_vec){0.25, -0.5 * side + a + 0.5, dim == 3 ? -0.125 : 0.0}; /* hits at t = 0.25 */
    b.velocity = (carom_vec){v[0], v[1], v[2]};
    b.angular_velocity = (carom_vec){w0[0], w0[1], w0[2]};
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    CHECK(carom_world_run(w, 10.0, -1) == CAROM_STOPPED);
    CHECK_EQ_INT(log.last.kind, CAROM_EVENT_WALL);
    CHECK_EQ_INT(log.last.j, CAROM_WALL_Y_MINUS);
    CHECK_NEAR(log.last.time, 0.25, 1e-15);
    carom_body_state s = body_of(w, 0);
    CHECK_NEAR(s.inertia, q * m * a * a, 1e-15);
    double gx = v[0] + a * w0[2], gz = v[2] - a * w0[0], ratio = q / (1.0 + q),
           k = (1.0 + beta) / (a * (1.0 + q));
    const double v_want[3] = {v[0] - (1.0 + beta) * ratio * gx, -e * v[1],
                              v[2] - (1.0 + beta) * ratio * gz};
    const double w_want[3] = {w0[0] + k * gz, w0[1], w0[2] - k * gx};
    double v_now[3], w_now[3];
    vec_of(s.velocity, v_now), vec_of(s.angular_velocity, w_now);
    for (int c = 0; c < 3; c++) {
        CHECK_NEAR(v_now[c], v_want[c], 4e-15 * (1.0 + fabs(v_want[c])));
        CHECK_NEAR(w_now[c], w_want[c], 4e-15 * (1.0 + fabs(w_want[c])));
    }
    if (dim == 2) CHECK(v_now[2] == 0.0 && w_now[0] == 0.0 && w_now[1] == 0.0);
    if (beta == -1.0) /* smooth: the spin is not touched at all */
        for (int c = 0; c < 3; c++) CHECK(w_now[c] == w0[c]);
    /* the orientation turns by w0 up to the bounce, by w' after it */
    log.stop_kind = -1;
    CHECK(carom_world_run(w, 0.5, -1) == CAROM_OK);
    s = body_of(w, 0);
    double q0[4], q1[4], turned[4];
    rotation_quaternion(w0, 0.25, q0);
    rotation_quaternion(w_want, 0.25, q1);
    quaternion_product(q1, q0, turned);
    CHECK_NEAR(s.orientation.x, turned[0], 1e-14);
    CHECK_NEAR(s.orientation.y, turned[1], 1e-14);
    CHECK_NEAR(s.orientation.z, turned[2], 1e-14);
    CHECK_NEAR(s.orientation.w, turned[3], 1e-14);
    if (dim == 2) CHECK_NEAR(s.angle, 0.25 * (w0[2] + w_want[2]), 1e-14);
    carom_world_destroy(w);
}

static void test_floor_bounce_closed_form(void)
{
    static const double cases[][2] = {{1.0, -1.0}, {1.0, 1.0}, {1.0, 0.0},
                                      {0.8, 0.0},  {0.5, 0.3}, {0.9, -0.6}};
    for (int dim = 2; dim <= 3; dim++)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
            check_floor_bounce(dim, cases[k][0], cases[k][1]);
}

/* A head-on pair along x: body 1 (left, mass 1, radius 0.5) moving +x at u1,
 * body 2 (right, mass 3, radius 0.8) moving -x at u2, both spinning. n =
 * -x (from 2 to 1). With S = a1 w1 + a2 w2, S x n = (0, -S_z, S_y), so
 * g = (u1 + u2, S_z, -S_y), g_n = -(u1 + u2), g_t = (0, S_z, -S_y), and
 *     P = -(1 + e) mu (u1 + u2) x - (1 + beta) m_t (0, S_z, -S_y).
 * n x P = (0, P_z, -P_y), so w_k' = w_k - (a_k/I_k) (0, P_z, -P_y). */
static void check_head_on(int dim, double e, double beta)
{
    const double m1 = 1.0, m2 = 3.0, a1 = 0.5, a2 = 0.8, u1 = 1.25, u2 = 0.5;
    const double q = dim == 3 ? 0.4 : 0.5, i1 = q * m1 * a1 * a1, i2 = q * m2 * a2 * a2;
    const double w1[3] = {dim == 3 ? 0.7 : 0.0, dim == 3 ? -1.5 : 0.0, 2.0};
    const double w2[3] = {dim == 3 ? -0.4 : 0.0, dim == 3 ? 0.9 : 0.0, -3.0};
    carom_world_def def = rough_def(dim, 20.0, CAROM_WALLS, e, beta, 1.0, -1.0);
    event_log log = {.stop_kind = CAROM_EVENT_PAIR};
    def.on_event = log_event, def.user = &log;
    carom_world *w = make_world(&def);
    if (!w) return;
    carom_body_def b = carom_default_body_def();
    b.radius = a1, b.mass = m1, b.position = (carom_vec){-1.0, 0, 0},
    b.velocity = (carom_vec){u1, 0, 0};
    b.angular_velocity = (carom_vec){w1[0], w1[1], w1[2]};
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    b.radius = a2, b.mass = m2, b.position = (carom_vec){0.5, 0, 0},
    b.velocity = (carom_vec){-u2, 0, 0};
    b.angular_velocity = (carom_vec){w2[0], w2[1], w2[2]};
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    CHECK(carom_world_run(w, 10.0, -1) == CAROM_STOPPED);
    CHECK_EQ_INT(log.kinds[CAROM_EVENT_WALL], 0);
    CHECK_NEAR(log.last.time, 0.2 / (u1 + u2), 1e-15);
    double mu = m1 * m2 / (m1 + m2), mt = 1.0 / (1.0 / mu + a1 * a1 / i1 + a2 * a2 / i2);
    double s_y = a1 * w1[1] + a2 * w2[1], s_z = a1 * w1[2] + a2 * w2[2];
    const double p[3] = {-(1.0 + e) * mu * (u1 + u2), -(1.0 + beta) * mt * s_z,
                         (1.0 + beta) * mt * s_y};
    const double v1_want[3] = {u1 + p[0] / m1, p[1] / m1, p[2] / m1};
    const double v2_want[3] = {-u2 - p[0] / m2, -p[1] / m2, -p[2] / m2};
    const double w1_want[3] = {w1[0], w1[1] - a1 / i1 * p[2], w1[2] + a1 / i1 * p[1]};
    const double w2_want[3] = {w2[0], w2[1] - a2 / i2 * p[2], w2[2] + a2 / i2 * p[1]};
    carom_body_state s1 = body_of(w, 0), s2 = body_of(w, 1);
    double got[4][3];
    vec_of(s1.velocity, got[0]), vec_of(s2.velocity, got[1]);
    vec_of(s1.angular_velocity, got[2]), vec_of(s2.angular_velocity, got[3]);
    const double *want[4] = {v1_want, v2_want, w1_want, w2_want};
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++)
            CHECK_NEAR(got[k][c], want[k][c], 8e-15 * (1.0 + fabs(want[k][c])));
    carom_world_destroy(w);
}

static void test_head_on_pair_closed_form(void)
{
    static const double cases[][2] = {{1.0, -1.0}, {1.0, 1.0}, {0.7, 0.0}, {0.9, 0.4}, {0.3, -0.5}};
    for (int dim = 2; dim <= 3; dim++)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
            check_head_on(dim, cases[k][0], cases[k][1]);
}

/* Relative contact velocity g = v1 - v2 - (a1 w1 + a2 w2) x n. */
static void contact_velocity(const carom_body_state *s1, const carom_body_state *s2,
                             const double n[3], double g[3])
{
    double v1[3], v2[3], w1[3], w2[3], arms[3], sweep[3];
    vec_of(s1->velocity, v1), vec_of(s2->velocity, v2);
    vec_of(s1->angular_velocity, w1), vec_of(s2->angular_velocity, w2);
    for (int c = 0; c < 3; c++) arms[c] = s1->radius * w1[c] + s2->radius * w2[c];
    cross3(arms, n, sweep);
    for (int c = 0; c < 3; c++) g[c] = v1[c] - v2[c] - sweep[c];
}

/* An oblique pair, unequal: the defining properties from the states. */
static void check_oblique(int dim, double e, double beta)
{
    carom_world_def def = rough_def(dim, 20.0, CAROM_WALLS, e, beta, 1.0, -1.0);
    event_log log = {.stop_kind = CAROM_EVENT_PAIR};
    def.on_event = log_event, def.user = &log;
    carom_world *w = make_world(&def);
    if (!w) return;
    carom_body_def b = carom_default_body_def();
    b.radius = 0.4, b.mass = 0.7, b.position = (carom_vec){-1.5, 0.3, dim == 3 ? -0.2 : 0.0};
    b.velocity = (carom_vec){1.1, 0.2, dim == 3 ? 0.3 : 0.0};
    b.angular_velocity = (carom_vec){dim == 3 ? 1.3 : 0.0, dim == 3 ? 0.4 : 0.0, -2.2};
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    b.radius = 0.9, b.mass = 2.5, b.inertia = 0.3,
    b.position = (carom_vec){0.6, -0.2, dim == 3 ? 0.4 : 0.0};
    b.velocity = (carom_vec){-0.6, 0.1, dim == 3 ? -0.2 : 0.0};
    b.angular_velocity = (carom_vec){dim == 3 ? -0.5 : 0.0, dim == 3 ? 2.0 : 0.0, 1.7};
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    carom_body_state before[2] = {body_of(w, 0), body_of(w, 1)};
    CHECK(carom_world_run(w, 10.0, -1) == CAROM_STOPPED);
    CHECK_EQ_INT(log.kinds[CAROM_EVENT_WALL], 0);
    carom_body_state after[2] = {body_of(w, 0), body_of(w, 1)};
    double x1[3], x2[3], n[3], d[3];
    vec_of(after[0].position, x1),
        vec_of(after[1].position, x2); /* at contact: a collision moves nobody */
    for (int c = 0; c < 3; c++) d[c] = x1[c] - x2[c];
    double r = sqrt(dot3(d, d));
    CHECK_NEAR(r, 0.4 + 0.9, 1e-13);
    for (int c = 0; c < 3; c++) n[c] = d[c] / r;
    double g0[3], g1[3], gt0[3], gt1[3];
    contact_velocity(&before[0], &before[1], n, g0);
    contact_velocity(&after[0], &after[1], n, g1);
    double gn0 = dot3(g0, n), gn1 = dot3(g1, n);
    for (int c = 0; c < 3; c++) gt0[c] = g0[c] - gn0 * n[c], gt1[c] = g1[c] - gn1 * n[c];
    CHECK(gn0 < 0.0);
    CHECK_NEAR(gn1, -e * gn0, 1e-14);
    for (int c = 0; c < 3; c++) CHECK_NEAR(gt1[c], -beta * gt0[c], 1e-14);
    /* momentum; each body's angular momentum about the contact point xc */
    double xc[3], p[3];
    for (int c = 0; c < 3; c++) xc[c] = x1[c] - 0.4 * n[c];
    double v1a[3], v1b[3], v2a[3], v2b[3];
    vec_of(before[0].velocity, v1a), vec_of(after[0].velocity, v1b);
    vec_of(before[1].velocity, v2a), vec_of(after[1].velocity, v2b);
    for (int c = 0; c < 3; c++) {
        p[c] = 0.7 * (v1b[c] - v1a[c]);
        CHECK_NEAR(2.5 * (v2b[c] - v2a[c]), -p[c], 1e-14);
    }
    const carom_body_state *sb[2] = {&before[0], &before[1]}, *sa[2] = {&after[0], &after[1]};
    const double *xs[2] = {x1, x2};
    for (int k = 0; k < 2; k++) {
        double arm[3], torque[3], wa[3], wb[3], pk[3];
        for (int c = 0; c < 3; c++) arm[c] = xc[c] - xs[k][c], pk[c] = k == 0 ? p[c] : -p[c];
        cross3(arm, pk, torque);
        vec_of(sb[k]->angular_velocity, wa), vec_of(sa[k]->angular_velocity, wb);
        for (int c = 0; c < 3; c++) CHECK_NEAR(sb[k]->inertia * (wb[c] - wa[c]), torque[c], 1e-14);
    }
    carom_world_destroy(w);
}

static void test_oblique_pair_properties(void)
{
    static const double cases[][2] = {{1.0, 1.0}, {0.8, 0.5}, {0.5, -0.3}, {1.0, 0.0}};
    for (int dim = 2; dim <= 3; dim++)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
            check_oblique(dim, cases[k][0], cases[k][1]);
}

/* A kinematic (infinite mass and inertia) spinning sphere or disk hits a
 * free one: the contact velocity obeys the law (g_n' = -e g_n, g_t' =
 * -beta g_t, from the states), the kinematic body keeps its motion, and the
 * energy the free body gains or loses (translation and spin) is counted as
 * kinematic work. */
static void check_kinematic_hit(int dim)
{
    const double e = 0.8, beta = 0.6;
    carom_world_def def = rough_def(dim, 20.0, CAROM_WALLS, e, beta, 1.0, -1.0);
    event_log log = {.stop_kind = CAROM_EVENT_PAIR};
    def.on_event = log_event, def.user = &log;
    carom_world *w = make_world(&def);
    if (!w) return;
    carom_body_def b = carom_default_body_def();
    b.mass = INFINITY, b.radius = 1.0, b.position = (carom_vec){-2.0, 0.4, 0},
    b.velocity = (carom_vec){2.0, 0, 0};
    b.angular_velocity = (carom_vec){dim == 3 ? 0.5 : 0.0, 0, 1.5};
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    b = carom_default_body_def();
    b.mass = 1.5, b.radius = 0.5, b.position = (carom_vec){0.0, -0.2, dim == 3 ? 0.3 : 0.0};
    b.velocity = (carom_vec){-0.5, 0.25, 0};
    b.angular_velocity = (carom_vec){0, dim == 3 ? -1.0 : 0.0, -2.0};
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    carom_body_state before[2] = {body_of(w, 0), body_of(w, 1)};
    double energy0 = total_energy(w);
    CHECK(carom_world_run(w, 10.0, -1) == CAROM_STOPPED);
    carom_body_state after[2] = {body_of(w, 0), body_of(w, 1)};
    carom_stats s = carom_world_stats(w);
    CHECK(memcmp(&before[0].velocity, &after[0].velocity, sizeof(carom_vec)) == 0);
    CHECK(memcmp(&before[0].angular_velocity, &after[0].angular_velocity, sizeof(carom_vec)) == 0);
    double d[3], n[3], g0[3], g1[3];
    d[0] = after[1].position.x - after[0].position.x,
    d[1] = after[1].position.y - after[0].position.y;
    d[2] = after[1].position.z - after[0].position.z;
    double r = sqrt(dot3(d, d));
    for (int c = 0; c < 3; c++)
        n[c] = d[c] / r; /* from the kinematic body (2) to the free one (1) */
    contact_velocity(&before[1], &before[0], n, g0);
    contact_velocity(&after[1], &after[0], n, g1);
    double gn0 = dot3(g0, n), gn1 = dot3(g1, n);
    CHECK(gn0 < 0.0);
    CHECK_NEAR(gn1, -e * gn0, 1e-14);
    for (int c = 0; c < 3; c++) CHECK_NEAR(g1[c] - gn1 * n[c], -beta * (g0[c] - gn0 * n[c]), 1e-14);
    CHECK(fabs(total_energy(w) - energy0) > 0.01);
    CHECK_NEAR(s.kinematic_work, total_energy(w) - energy0, 1e-14);
    carom_world_destroy(w);
}

static void test_kinematic_body_hits_rough(void)
{
    check_kinematic_hit(2);
    check_kinematic_hit(3);
}

/* ---- the energy lost at each event of a random gas ---- */

typedef struct gas_spec {
    int dim;
    int32_t n;
    double side, fraction; /* box side; packing (area) fraction of the radii drawn */
    carom_boundary boundary;
    double e, beta, wall_e, wall_beta;
    double mass_lo, mass_hi, radius_lo, radius_hi;
    double spin; /* spread of the initial spins (0: none) */
    uint64_t seed;
} gas_spec;

/* Random non-overlapping bodies, Maxwell velocities (kT = 1) with zero momentum, spins of spread
 * spin. */
static carom_world *make_gas(const gas_spec *g, carom_world_def *def)
{
    carom_world *w = make_world(def);
    if (!w) return NULL;
    carom_rng rng = carom_rng_seed(g->seed);
    double(*x)[3] = calloc((size_t)g->n, sizeof *x), *r = calloc((size_t)g->n, sizeof *r);
    double(*v)[3] = calloc((size_t)g->n, sizeof *v), *m = calloc((size_t)g->n, sizeof *m);
    double mean[3] = {0, 0, 0}, total_mass = 0.0, twice_ke = 0.0;
    int periodic = g->boundary == CAROM_PERIODIC;
    for (int32_t k = 0; k < g->n; k++) {
        r[k] = uniform(&rng, g->radius_lo, g->radius_hi),
        m[k] = uniform(&rng, g->mass_lo, g->mass_hi);
        for (int tries = 0;; tries++) {
            if (tries == 100000) {
                CHECK_MSG(0, "could not place body %d", (int)k);
                break;
            }
            double lo = periodic ? -0.5 * g->side : -0.5 * g->side + r[k] * 1.001;
            for (int c = 0; c < 3; c++) x[k][c] = c < g->dim ? uniform(&rng, lo, -lo) : 0.0;
            int clear = 1;
            for (int32_t j = 0; j < k && clear; j++) {
                double d2 = 0.0;
                for (int c = 0; c < 3; c++) {
                    double d = x[k][c] - x[j][c];
                    if (periodic) d -= g->side * nearbyint(d / g->side);
                    d2 += d * d;
                }
                clear = d2 > (r[k] + r[j]) * (r[k] + r[j]) * 1.000001;
            }
            if (clear) break;
        }
        for (int c = 0; c < g->dim; c++)
            v[k][c] = carom_rng_normal(&rng) / sqrt(m[k]), mean[c] += m[k] * v[k][c];
        total_mass += m[k];
    }
    for (int32_t k = 0; k < g->n; k++)
        for (int c = 0; c < g->dim; c++) {
            v[k][c] -= mean[c] / total_mass;
            twice_ke += m[k] * v[k][c] * v[k][c];
        }
    double scale = sqrt(g->dim * (g->n - 1) / twice_ke);
    for (int32_t k = 0; k < g->n; k++) {
        carom_body_def b = carom_default_body_def();
        b.radius = r[k], b.mass = m[k];
        b.position = (carom_vec){x[k][0], x[k][1], x[k][2]};
        b.velocity = (carom_vec){scale * v[k][0], scale * v[k][1], scale * v[k][2]};
        if (g->spin > 0.0) {
            b.angular_velocity.z = g->spin * carom_rng_normal(&rng);
            if (g->dim == 3)
                b.angular_velocity.x = g->spin * carom_rng_normal(&rng),
                b.angular_velocity.y = g->spin * carom_rng_normal(&rng);
        }
        carom_status st = carom_world_add_body(w, &b, NULL);
        CHECK_MSG(st == CAROM_OK, "%s", carom_world_message(w));
    }
    free(x), free(r), free(v), free(m);
    return w;
}

static carom_world_def gas_def(const gas_spec *g)
{
    return rough_def(g->dim, g->side, g->boundary, g->e, g->beta, g->wall_e, g->wall_beta);
}

/* The closed-form loss of a collision from the states just before it (at
 * the clock t0), the event at time t: bodies moved to t by x + v (t - t0). */
static double pair_loss(const carom_body_state *s1, const carom_body_state *s2, double dt, double e,
                        double beta)
{
    double d[3], n[3], g[3], gt[3];
    d[0] = s1->position.x - s2->position.x + dt * (s1->velocity.x - s2->velocity.x);
    d[1] = s1->position.y - s2->position.y + dt * (s1->velocity.y - s2->velocity.y);
    d[2] = s1->position.z - s2->position.z + dt * (s1->velocity.z - s2->velocity.z);
    double r = sqrt(dot3(d, d));
    for (int c = 0; c < 3; c++) n[c] = d[c] / r;
    contact_velocity(s1, s2, n, g);
    double gn = dot3(g, n);
    for (int c = 0; c < 3; c++) gt[c] = g[c] - gn * n[c];
    double mu = 1.0 / (1.0 / s1->mass + 1.0 / s2->mass);
    double mt = 1.0 / (1.0 / mu + s1->radius * s1->radius / s1->inertia +
                       s2->radius * s2->radius / s2->inertia);
    return 0.5 * mu * (1.0 - e * e) * gn * gn + 0.5 * mt * (1.0 - beta * beta) * dot3(gt, gt);
}

static double wall_loss(const carom_body_state *s, int wall, double e, double beta)
{
    carom_body_state still = {.mass = INFINITY, .inertia = INFINITY, .radius = 0.0};
    double n[3] = {0, 0, 0}, g[3], gt[3];
    n[wall / 2] = wall % 2 ? -1.0 : 1.0; /* from the wall into the box */
    contact_velocity(s, &still, n, g);
    double gn = dot3(g, n);
    for (int c = 0; c < 3; c++) gt[c] = g[c] - gn * n[c];
    double mt = 1.0 / (1.0 / s->mass + s->radius * s->radius / s->inertia);
    return 0.5 * s->mass * (1.0 - e * e) * gn * gn + 0.5 * mt * (1.0 - beta * beta) * dot3(gt, gt);
}

typedef struct loss_tally {
    int64_t pairs, walls, bad;
    double worst, lost;
} loss_tally;

/* One gas, event by event, until it has lost 99% of its energy or after
 * events events: each pair and wall event's loss against the closed form. */
static void check_energy_per_event(const gas_spec *g, int64_t events, loss_tally *tally)
{
    carom_world_def def = gas_def(g);
    event_log log = {.stop_kind = -1};
    def.on_event = log_event, def.user = &log;
    carom_world *w = make_gas(g, &def);
    if (!w) return;
    carom_body_state *s = calloc((size_t)g->n, sizeof *s);
    double start = total_energy(w);
    for (int64_t k = 0; k < events && total_energy(w) > 0.01 * start; k++) {
        for (int32_t id = 0; id < g->n; id++) s[id] = body_of(w, id);
        double t0 = carom_world_time(w), e0 = total_energy(w);
        int64_t seen = log.seen;
        carom_status st = carom_world_run(w, INFINITY, 1);
        CHECK_MSG(st == CAROM_OK, "%s: %s", carom_status_name(st), carom_world_message(w));
        if (st != CAROM_OK) break;
        double lost = e0 - total_energy(w), want = 0.0;
        if (log.seen == seen) { /* a cell crossing: nothing changes */
            tally->bad += lost != 0.0;
            continue;
        }
        const carom_event *ev = &log.last;
        if (ev->kind == CAROM_EVENT_PAIR) {
            want = pair_loss(&s[ev->i], &s[ev->j], ev->time - t0, g->e, g->beta);
            tally->pairs++;
        } else {
            CHECK_EQ_INT(ev->kind, CAROM_EVENT_WALL);
            want = wall_loss(&s[ev->i], ev->j, g->wall_e, g->wall_beta);
            tally->walls++;
        }
        double err = fabs(lost - want) / start;
        if (err > tally->worst) tally->worst = err;
        if (!(err < 1e-13)) {
            tally->bad++;
            fprintf(stderr, "event %lld (kind %d, %d, %d): lost %.17g, closed form %.17g\n",
                    (long long)k, (int)ev->kind, (int)ev->i, (int)ev->j, lost, want);
        }
        tally->lost += want / start;
    }
    free(s);
    carom_world_destroy(w);
}

static void check_energy_per_event_gases(gas_spec g, int worlds)
{
    loss_tally tally = {0};
    for (int k = 0; k < worlds; k++, g.seed++) check_energy_per_event(&g, 4000, &tally);
    CHECK_EQ_INT(tally.bad, 0);
    CHECK(tally.pairs > 80 * worlds && tally.walls > 30 * worlds);
    CHECK(tally.lost > 0.5 * worlds); /* the gases really do lose energy */
    printf("  %dD: %lld pair and %lld wall events in %d gases, loss against the closed form within "
           "%.2g of the "
           "energy\n",
           g.dim, (long long)tally.pairs, (long long)tally.walls, worlds, tally.worst);
}

static void test_energy_lost_per_event(void)
{
    int worlds = check_quick() ? 4 : 10;
    gas_spec g3 = {.dim = 3,
                   .n = 24,
                   .side = 6.0,
                   .boundary = CAROM_WALLS,
                   .e = 0.83,
                   .beta = 0.37,
                   .wall_e = 0.91,
                   .wall_beta = -0.45,
                   .mass_lo = 0.5,
                   .mass_hi = 3.0,
                   .radius_lo = 0.3,
                   .radius_hi = 0.6,
                   .spin = 1.0,
                   .seed = 11};
    check_energy_per_event_gases(g3, worlds);
    gas_spec g2 = g3;
    g2.dim = 2, g2.n = 20, g2.side = 8.0, g2.e = 0.65, g2.beta = -0.2, g2.wall_beta = 0.6,
    g2.seed = 12;
    check_energy_per_event_gases(g2, worlds);
}

/* ------------------------------------------------------------------ */
/* 2. Conservation.                                                    */

static void check_energy_conserved(int dim, double beta, carom_boundary boundary)
{
    gas_spec g = {.dim = dim,
                  .n = check_quick() ? 100 : 400,
                  .boundary = boundary,
                  .e = 1.0,
                  .beta = beta,
                  .wall_e = 1.0,
                  .wall_beta = beta,
                  .mass_lo = 0.5,
                  .mass_hi = 2.0,
                  .radius_lo = 0.4,
                  .radius_hi = 0.6,
                  .spin = 2.0,
                  .seed = 21};
    g.side = dim == 3 ? cbrt(g.n * 0.55 / 0.2)
                      : sqrt(g.n * 0.8 / 0.3); /* packing 0.2, area fraction 0.3 */
    carom_world_def def = gas_def(&g);
    carom_world *w = make_gas(&g, &def);
    if (!w) return;
    carom_stats s0 = carom_world_stats(w);
    double e0 = s0.kinetic_energy + s0.rotational_energy;
    CHECK(carom_world_run(w, INFINITY, (int64_t)g.n * 200) == CAROM_OK);
    carom_stats s1 = carom_world_stats(w);
    double e1 = s1.kinetic_energy + s1.rotational_energy, drift = fabs(e1 - e0) / e0;
    CHECK_MSG(drift < 1e-12, "%dD beta %g: relative energy drift %.3g over %lld pair events", dim,
              beta, drift, (long long)s1.pair_events);
    if (beta == -1.0)
        CHECK(s1.rotational_energy == s0.rotational_energy); /* spins never touched */
    else
        CHECK(fabs(s1.rotational_energy - s0.rotational_energy) >
              1e-3 * e0); /* spin and translation trade */
    printf("  %dD beta %+g %s: %lld pair events, relative energy drift %.2g\n", dim, beta,
           boundary == CAROM_PERIODIC ? "periodic" : "walls", (long long)s1.pair_events, drift);
    carom_world_destroy(w);
}

static void test_energy_conserved_elastic(void)
{
    for (int dim = 2; dim <= 3; dim++) {
        check_energy_conserved(dim, 1.0, CAROM_PERIODIC);
        check_energy_conserved(dim, -1.0, CAROM_PERIODIC);
        check_energy_conserved(dim, 1.0, CAROM_WALLS); /* rough walls too */
    }
}

/* Angular momentum about the centre of a ball (3D) or disk (2D) container:
 * the container pushes along its normal, which passes through the centre,
 * so only pair collisions could change it, and they conserve it (about any
 * point, since each pair's impulses are equal and opposite at one contact
 * point). Returns the relative change. */
static double angular_momentum_change(int dim, double wall_beta)
{
    const double radius = 6.0;
    carom_container_def cd = carom_default_container_def();
    cd.shape = CAROM_SHAPE_BALL, cd.dim = dim, cd.radius = radius;
    carom_container *ball = NULL;
    CHECK(carom_container_create(&cd, &ball, NULL, 0) == CAROM_OK);
    carom_world_def def = rough_def(dim, 2.0 * radius + 2.0, CAROM_WALLS, 0.9, 0.5, 0.9, wall_beta);
    def.container = ball;
    def.collapse_time = 0.0; /* the TC model (it changes e, never the direction of an impulse) */
    carom_world *w = make_world(&def);
    carom_container_destroy(ball);
    if (!w) return INFINITY;
    carom_rng rng = carom_rng_seed(31);
    int32_t n = dim == 3 ? 120 : 60;
    double scale = 0.0;
    for (int32_t k = 0; k < n;) {
        carom_body_def b = carom_default_body_def();
        b.radius = uniform(&rng, 0.3, 0.6), b.mass = uniform(&rng, 0.5, 2.0);
        b.position = (carom_vec){uniform(&rng, -5, 5), uniform(&rng, -5, 5),
                                 dim == 3 ? uniform(&rng, -5, 5) : 0};
        b.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng),
                                 dim == 3 ? carom_rng_normal(&rng) : 0};
        b.angular_velocity =
            (carom_vec){dim == 3 ? carom_rng_normal(&rng) : 0,
                        dim == 3 ? carom_rng_normal(&rng) : 0, carom_rng_normal(&rng)};
        if (carom_world_add_body(w, &b, NULL) != CAROM_OK)
            continue; /* overlapping or outside: another draw */
        double x[3], v[3], l[3];
        vec_of(b.position, x), vec_of(b.velocity, v);
        cross3(x, v, l);
        scale += b.mass * sqrt(dot3(l, l));
        k++;
    }
    carom_stats s0 = carom_world_stats(w);
    carom_status st = carom_world_run(w, INFINITY, (int64_t)n * 200);
    CHECK_MSG(st == CAROM_OK, "%s: %s", carom_status_name(st), carom_world_message(w));
    carom_stats s1 = carom_world_stats(w);
    CHECK(s1.pair_events > 10 * n && s1.wall_events > n);
    double d[3] = {s1.angular_momentum.x - s0.angular_momentum.x,
                   s1.angular_momentum.y - s0.angular_momentum.y,
                   s1.angular_momentum.z - s0.angular_momentum.z};
    carom_world_destroy(w);
    return sqrt(dot3(d, d)) / scale;
}

static void test_angular_momentum_in_a_ball(void)
{
    for (int dim = 2; dim <= 3; dim++) {
        double smooth = angular_momentum_change(dim, -1.0),
               rough = angular_momentum_change(dim, 0.5);
        printf("  %dD: |dL| / sum |m x × v| = %.2g in a smooth %s, %.2g in a rough one\n", dim,
               smooth, dim == 3 ? "ball" : "disk", rough);
        CHECK(smooth < 1e-12);
        CHECK(rough > 1e-3); /* the measure sees a torque when there is one */
    }
}

/* ------------------------------------------------------------------ */
/* 3. Equipartition: e = 1, beta = 1 from no spin.                     */

/* Mean and standard error of the mean of x[0..n) from blocks. */
static void block_mean(const double *x, int n, int blocks, double *mean, double *error)
{
    double sum = 0.0, sum2 = 0.0;
    int per = n / blocks;
    for (int b = 0; b < blocks; b++) {
        double m = 0.0;
        for (int k = b * per; k < (b + 1) * per; k++) m += x[k];
        m /= per;
        sum += m, sum2 += m * m;
    }
    *mean = sum / blocks;
    *error = sqrt(fmax(sum2 / blocks - *mean * *mean, 0.0) / (blocks - 1));
}

static void check_equipartition(int dim)
{
    gas_spec g = {.dim = dim,
                  .n = 500,
                  .boundary = CAROM_PERIODIC,
                  .e = 1.0,
                  .beta = 1.0,
                  .wall_e = 1.0,
                  .wall_beta = -1.0,
                  .mass_lo = 1.0,
                  .mass_hi = 1.0,
                  .radius_lo = 0.5,
                  .radius_hi = 0.5,
                  .spin = 0.0,
                  .seed = 41};
    double fraction = dim == 3 ? 0.25 : 0.4;
    g.side = dim == 3 ? cbrt(g.n * PI / 6.0 / fraction) : sqrt(g.n * PI / 4.0 / fraction);
    carom_world_def def = gas_def(&g);
    carom_world *w = make_gas(&g, &def);
    if (!w) return;
    CHECK(carom_world_stats(w).rotational_energy == 0.0);
    CHECK(carom_world_run(w, INFINITY, (int64_t)g.n * 20) ==
          CAROM_OK); /* relaxes as exp(-0.5 collisions a body) */
    enum { SAMPLES = 400 };
    double ratio[SAMPLES], energy_ratio[SAMPLES], dt = 0.1;
    for (int k = 0; k < SAMPLES; k++) {
        CHECK(carom_world_run(w, carom_world_time(w) + dt, -1) == CAROM_OK);
        carom_stats s = carom_world_stats(w);
        ratio[k] = s.rotational_temperature / s.temperature;
        energy_ratio[k] = s.rotational_energy / s.kinetic_energy;
    }
    carom_stats s = carom_world_stats(w);
    double mean, error, energy_mean, energy_error;
    block_mean(ratio, SAMPLES, 20, &mean, &error);
    block_mean(energy_ratio, SAMPLES, 20, &energy_mean, &energy_error);
    /* Translation has dim (N - 1) degrees of freedom (the momentum is zero
     * and kept in a periodic box), rotation r N (r = 3 in 3D, 1 in 2D). */
    double r = dim == 3 ? 3.0 : 1.0, energy_want = r * g.n / (dim * (g.n - 1.0));
    printf("  %dD N=%d: <T_rot/T_tr> = %.4f ± %.4f, <KE_rot/KE_tr> = %.4f ± %.4f (expected %.4f), "
           "%.1f collisions a "
           "body\n",
           dim, (int)g.n, mean, error, energy_mean, energy_error, energy_want,
           2.0 * (double)s.pair_events / g.n);
    CHECK(fabs(mean - 1.0) < fmax(4.0 * error, 0.005) && fabs(mean - 1.0) < 0.03);
    CHECK(fabs(energy_mean - energy_want) < fmax(4.0 * energy_error, 0.005) &&
          fabs(energy_mean / energy_want - 1.0) < 0.03);
    carom_world_destroy(w);
}

static void test_equipartition(void)
{
    check_equipartition(3);
    check_equipartition(2);
}

/* ------------------------------------------------------------------ */
/* 4. Homogeneous cooling against Huthmann & Zippelius (1997).         */

/* The kinetic theory, worked here for identical spheres (mass m, radius a,
 * I = q m a^2, q = 2/5) in 3D with molecular chaos and Maxwellian
 * translational and angular velocities at temperatures T (T_tr) and R T
 * (T_rot). With the law above, P = -m (1+e)/2 g_n n - m eta g_t, eta =
 * q (1 + beta)/(2 (1 + q)) (as Huthmann & Zippelius define it), and averages
 * over collisions (weighted by |g_n|: <g_n^2> = 4T/m; <|v12,t|^2> = 4T/m,
 * <|a W x n|^2> = 4 T_rot/(q m) for W = w1 + w2):
 *     <dE_tr>  = -4 A T + 4 B T_rot,   <dE_rot> = 4 B T - 4 C T_rot,
 *     A = (1 - e^2)/4 + eta (1 - eta),  B = eta^2/q,  C = (eta/q)(1 - eta/q),
 * the coefficients of Huthmann & Zippelius. With E = (3/2) N T (both), and
 * tau = 2 (pair collisions)/N the collisions a body has had,
 *     dT/dtau = (4/3)(-A T + B T_rot),  dT_rot/dtau = (4/3)(B T - C T_rot):
 * linear in tau, with no collision frequency in it. In time, dtau/dt =
 * nu(T) = nu_1 sqrt(T) (Enskog: nu_1 = 4 n sigma^2 g(sigma) sqrt(pi/m),
 * g(sigma) = (1 - phi/2)/(1 - phi)^3, Carnahan-Starling), which gives Huthmann
 * and Zippelius's equations with G = (4/3) nu_1 (in 3D both temperatures have
 * the same prefactor). The ratio R = T_rot/T settles at the root of
 * B R^2 + (C - A) R - B = 0, and then dT/dt = -(4/3)(A - B R) nu_1 T^{3/2}:
 * T^{-1/2} grows linearly with slope (2/3)(A - B R) nu_1, Haff's T ~ t^-2.
 *
 * The theory assumes Maxwellian, uncorrelated translational and angular
 * velocities. In a cooling gas they do become correlated (McNamara & Luding,
 * Phys. Rev. E 58, 2247 (1998); Brilliantov, Poeschel, Kranz & Zippelius,
 * Phys. Rev. Lett. 98, 128001 (2007)), most for beta < 0. Measured here
 * (N = 2000, phi = 0.05, tau 26..50), R against the theory: e = 0.9 and
 * beta = 1: -1%; 0.8: -0.3% (e = 0.95); 0.5: +0.3%; 0: -6%; -0.5: -18%;
 * e = 0.8, beta = 0.5: -2.5%. The test takes e = 0.9, beta = 0.5, where the
 * theory holds within its own approximation; flipping the sign of beta
 * moves R from 0.87 to 0.34, so the check can fail. */
typedef struct cooling_theory {
    double a, b, c, ratio;
} cooling_theory;

static cooling_theory cooling_coefficients(double e, double beta, double q)
{
    cooling_theory th;
    double eta = q * (1.0 + beta) / (2.0 * (1.0 + q));
    th.a = (1.0 - e * e) / 4.0 + eta * (1.0 - eta);
    th.b = eta * eta / q;
    th.c = eta / q * (1.0 - eta / q);
    th.ratio =
        ((th.a - th.c) + sqrt((th.a - th.c) * (th.a - th.c) + 4.0 * th.b * th.b)) / (2.0 * th.b);
    return th;
}

/* The linear system in tau from (T, T_rot) = (1, 0): exp(tau M) applied to
 * (1, 0), M = (4/3) [[-A, B], [B, -C]] (symmetric, real eigenvalues). */
static void cooling_in_tau(const cooling_theory *th, double tau, double *t_tr, double *t_rot)
{
    double k = 4.0 / 3.0, m11 = -k * th->a, m12 = k * th->b, m22 = -k * th->c;
    double mean = 0.5 * (m11 + m22), half = sqrt(0.25 * (m11 - m22) * (m11 - m22) + m12 * m12);
    double l1 = mean + half, l2 = mean - half;
    /* eigenvector of l1: (m12, l1 - m11), of l2: (m12, l2 - m11); (1, 0) = c1 u1 + c2 u2 */
    double u1[2] = {m12, l1 - m11}, u2[2] = {m12, l2 - m11};
    double det = u1[0] * u2[1] - u2[0] * u1[1];
    double c1 = u2[1] / det, c2 = -u1[1] / det;
    *t_tr = c1 * u1[0] * exp(l1 * tau) + c2 * u2[0] * exp(l2 * tau);
    *t_rot = c1 * u1[1] * exp(l1 * tau) + c2 * u2[1] * exp(l2 * tau);
}

static void test_homogeneous_cooling(void)
{
    const double e = 0.9, beta = 0.5, phi = 0.05;
    cooling_theory th = cooling_coefficients(e, beta, 0.4);
    gas_spec g = {.dim = 3,
                  .n = 2000,
                  .boundary = CAROM_PERIODIC,
                  .e = e,
                  .beta = beta,
                  .wall_e = 1.0,
                  .wall_beta = -1.0,
                  .mass_lo = 1.0,
                  .mass_hi = 1.0,
                  .radius_lo = 0.5,
                  .radius_hi = 0.5,
                  .spin = 0.0,
                  .seed = 51};
    g.side = cbrt(g.n * PI / 6.0 / phi);
    carom_world_def def = gas_def(&g);
    def.collapse_time = 1e-6; /* against inelastic collapse; mean free times here are 1 to 100 */
    carom_world *w = make_gas(&g, &def);
    if (!w) return;
    /* Samples every 0.5 collisions a body up to tau_end. */
    enum { MAX_SAMPLES = 400 };
    double tau_end = 50.0, tau[MAX_SAMPLES], time[MAX_SAMPLES], t_tr[MAX_SAMPLES],
           t_rot[MAX_SAMPLES];
    int samples;
    double worst_tau_error = 0.0;
    for (samples = 0; samples < MAX_SAMPLES; samples++) {
        int64_t target = (int64_t)llround(0.25 * g.n * (samples + 1));
        carom_stats s = carom_world_stats(w);
        while (s.pair_events < target) {
            CHECK(carom_world_run(w, INFINITY, target - s.pair_events) == CAROM_OK);
            s = carom_world_stats(w);
        }
        tau[samples] = 2.0 * (double)s.pair_events / g.n;
        time[samples] = s.time;
        t_tr[samples] = s.temperature;
        t_rot[samples] = s.rotational_temperature;
        if (tau[samples] >= tau_end) {
            samples++;
            break;
        }
    }
    /* (a) the temperatures against the collision count, tau <= 40 (T falls about 10^3-fold) */
    for (int k = 0; k < samples; k++) {
        if (tau[k] > 40.0) break;
        double want_tr, want_rot;
        cooling_in_tau(&th, tau[k], &want_tr, &want_rot);
        double err = fabs(t_tr[k] / want_tr - 1.0);
        if (tau[k] > 2.0) err = fmax(err, fabs(t_rot[k] / want_rot - 1.0));
        if (err > worst_tau_error) worst_tau_error = err;
        if (getenv("CAROM_ROUGH_VERBOSE"))
            printf("    tau %6.2f t %10.4g T_tr %.4g (theory %.4g) T_rot %.4g (theory %.4g)\n",
                   tau[k], time[k], t_tr[k], want_tr, t_rot[k], want_rot);
    }
    /* (b) the ratio T_rot/T_tr over the second half, (c) Haff's law there */
    int first = samples / 2;
    double ratio_sum = 0.0, sx = 0, sy = 0, sxx = 0, sxy = 0, lx = 0, ly = 0, lxx = 0, lxy = 0;
    int count = samples - first;
    for (int k = first; k < samples; k++) {
        ratio_sum += t_rot[k] / t_tr[k];
        double y = 1.0 / sqrt(t_tr[k]);
        sx += time[k], sy += y, sxx += time[k] * time[k], sxy += time[k] * y;
        double lt = log(time[k]), lT = log(t_tr[k]);
        lx += lt, ly += lT, lxx += lt * lt, lxy += lt * lT;
    }
    double ratio = ratio_sum / count;
    double slope = (count * sxy - sx * sy) / (count * sxx - sx * sx),
           intercept = (sy - slope * sx) / count;
    double shift = -intercept / slope; /* T ~ (t - shift)^-2 */
    double log_slope = (count * lxy - lx * ly) / (count * lxx - lx * lx);
    double sx2 = 0, sy2 = 0, sxx2 = 0, sxy2 = 0, worst_fit = 0.0;
    for (int k = first; k < samples; k++) {
        double lt = log(time[k] - shift), lT = log(t_tr[k]);
        sx2 += lt, sy2 += lT, sxx2 += lt * lt, sxy2 += lt * lT;
        double fit = 1.0 / ((slope * time[k] + intercept) * (slope * time[k] + intercept));
        worst_fit = fmax(worst_fit, fabs(t_tr[k] / fit - 1.0));
    }
    double shifted_slope = (count * sxy2 - sx2 * sy2) / (count * sxx2 - sx2 * sx2);
    double density = g.n / (g.side * g.side * g.side),
           contact = (1.0 - phi / 2.0) / pow(1.0 - phi, 3.0);
    double nu1 = 4.0 * density * contact * sqrt(PI),
           haff_rate = 2.0 / 3.0 * (th.a - th.b * th.ratio) * nu1;
    printf(
        "  e=%g beta=%g phi=%g N=%d: tau <= 40: T_tr, T_rot within %.3f of the theory in tau;\n"
        "  late (tau %.0f..%.0f, t %.0f..%.0f, T %.2g..%.2g): <T_rot/T_tr> = %.4f (theory %.4f);\n"
        "  T^-1/2 slope %.4f (Enskog-HZ %.4f), log T vs log t slope %.3f, vs log(t - %.2f) %.4f, "
        "fit within %.3f\n",
        e, beta, phi, (int)g.n, worst_tau_error, tau[first], tau[samples - 1], time[first],
        time[samples - 1], t_tr[first], t_tr[samples - 1], ratio, th.ratio, slope, haff_rate,
        log_slope, shift, shifted_slope, worst_fit);
    CHECK(samples >= 100 && tau[samples - 1] >= tau_end);
    CHECK(worst_tau_error < 0.08);
    CHECK(fabs(ratio / th.ratio - 1.0) < 0.05);
    CHECK(fabs(slope / haff_rate - 1.0) < 0.05);
    CHECK(fabs(shifted_slope + 2.0) < 0.05);
    CHECK(worst_fit < 0.08);
    carom_world_destroy(w);
}

/* ------------------------------------------------------------------ */
/* 5. The angular velocity setter and the orientation in flight.       */

static void test_angular_velocity_setter(void)
{
    for (int dim = 2; dim <= 3; dim++) {
        carom_world_def def =
            rough_def(dim, 100.0, CAROM_WALLS, 1.0, -1.0, 1.0, -1.0); /* a smooth world */
        carom_world *w = make_world(&def);
        if (!w) return;
        carom_body_def b = carom_default_body_def();
        b.mass = 2.0, b.radius = 0.5, b.angular_velocity.z = 0.75;
        CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
        CHECK(carom_world_run(w, 8.0, -1) == CAROM_OK);
        carom_body_state s = body_of(w, 0);
        if (dim == 2) CHECK(s.angle == 6.0); /* 0.75 x 8, exactly */
        CHECK_NEAR(s.orientation.x, 0.0, 1e-15);
        CHECK_NEAR(s.orientation.y, 0.0, 1e-15);
        CHECK_NEAR(s.orientation.z, sin(3.0), 1e-15);
        CHECK_NEAR(s.orientation.w, cos(3.0), 1e-15);
        double inertia = s.inertia, work0 = carom_world_stats(w).control_work;
        CHECK_NEAR(inertia, (dim == 2 ? 0.5 : 0.4) * 2.0 * 0.25, 1e-16);
        CHECK(carom_world_set_body_angular_velocity(w, 0, (carom_vec){0, 0, -1.25}) == CAROM_OK);
        CHECK_NEAR(carom_world_stats(w).control_work - work0,
                   0.5 * inertia * (1.25 * 1.25 - 0.75 * 0.75), 1e-15);
        CHECK(carom_world_run(w, 16.0, -1) == CAROM_OK);
        s = body_of(w, 0);
        if (dim == 2) CHECK(s.angle == -4.0); /* 6 - 1.25 x 8 */
        CHECK_NEAR(s.orientation.z, sin(-2.0), 1e-15);
        CHECK_NEAR(s.orientation.w, cos(-2.0), 1e-15);
        CHECK(s.angular_velocity.z == -1.25);
        if (dim == 3) {
            CHECK(carom_world_set_body_angular_velocity(w, 0, (carom_vec){0.5, 0, 0}) == CAROM_OK);
            CHECK(carom_world_run(w, 20.0, -1) == CAROM_OK);
            s = body_of(w, 0);
            /* rotation by 2 about x, after the rotation by -4 about z: q = (sin 1, 0, 0, cos 1) (0,
             * 0, sin -2, cos -2) */
            double c1 = cos(1.0), s1 = sin(1.0), c2 = cos(-2.0), s2 = sin(-2.0);
            CHECK_NEAR(s.orientation.x, s1 * c2, 1e-15);
            CHECK_NEAR(s.orientation.y, -s1 * s2, 1e-15);
            CHECK_NEAR(s.orientation.z, c1 * s2, 1e-15);
            CHECK_NEAR(s.orientation.w, c1 * c2, 1e-15);
        }
        /* refusals: the spin is left as it was */
        carom_vec before = body_of(w, 0).angular_velocity;
        if (dim == 2) {
            CHECK(carom_world_set_body_angular_velocity(w, 0, (carom_vec){0.5, 0, 1}) ==
                  CAROM_INVALID_ARGUMENT);
            CHECK(strstr(carom_world_message(w), "angular_velocity.x") != NULL);
            CHECK(carom_world_set_body_angular_velocity(w, 0, (carom_vec){0, -0.5, 1}) ==
                  CAROM_INVALID_ARGUMENT);
            CHECK(strstr(carom_world_message(w), "angular_velocity.y") != NULL);
        }
        CHECK(carom_world_set_body_angular_velocity(w, 0, (carom_vec){0, 0, NAN}) ==
              CAROM_INVALID_ARGUMENT);
        CHECK(strstr(carom_world_message(w), "body 0: angular_velocity.z") != NULL);
        CHECK(carom_world_set_body_angular_velocity(w, 0, (carom_vec){0, 0, 1e300}) ==
              CAROM_INVALID_ARGUMENT);
        CHECK(strstr(carom_world_message(w), "angular_velocity.z") != NULL);
        CHECK(carom_world_set_body_angular_velocity(w, 0, (carom_vec){0, 0, INFINITY}) ==
              CAROM_INVALID_ARGUMENT);
        CHECK(carom_world_set_body_angular_velocity(w, 1, (carom_vec){0, 0, 1}) == CAROM_NOT_FOUND);
        CHECK(carom_world_set_body_angular_velocity(w, -1, (carom_vec){0, 0, 1}) ==
              CAROM_NOT_FOUND);
        CHECK(strstr(carom_world_message(w), "body -1") != NULL);
        carom_vec after = body_of(w, 0).angular_velocity;
        CHECK(memcmp(&before, &after, sizeof before) == 0);
        carom_world_destroy(w);
    }
}

/* Many small turns about changing axes (the setter brings the orientation
 * forward at each change), against the same product of rotations worked here
 * with libm's sine and cosine: the engine's small-angle series and its
 * renormalisation stay within a few ulps of it, and the quaternion unit. */
static void test_orientation_over_many_turns(void)
{
    carom_world_def def = rough_def(3, 100.0, CAROM_WALLS, 1.0, -1.0, 1.0, -1.0);
    carom_world *w = make_world(&def);
    if (!w) return;
    carom_body_def b = carom_default_body_def();
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    carom_rng rng = carom_rng_seed(61);
    double q[4] = {0, 0, 0, 1}, step = 0.0625, worst = 0.0;
    for (int k = 0; k < 4000; k++) {
        /* half angles mostly below 1/4; every 7th up to about 2 (libm's side of
         * the series' bound, 1/2), every 5th up to about 2/3 (the series' upper
         * range) */
        double big = k % 7 == 0 ? 40.0 : k % 5 == 0 ? 12.0 : 4.0;
        const double omega[3] = {uniform(&rng, -big, big), uniform(&rng, -big, big),
                                 uniform(&rng, -big, big)};
        CHECK(carom_world_set_body_angular_velocity(
                  w, 0, (carom_vec){omega[0], omega[1], omega[2]}) == CAROM_OK);
        CHECK(carom_world_run(w, (k + 1) * step, -1) == CAROM_OK);
        double turn[4], next[4];
        rotation_quaternion(omega, step, turn);
        quaternion_product(turn, q, next);
        double norm =
            sqrt(next[0] * next[0] + next[1] * next[1] + next[2] * next[2] + next[3] * next[3]);
        for (int c = 0; c < 4; c++) q[c] = next[c] / norm;
        carom_quat o = body_of(w, 0).orientation;
        const double got[4] = {o.x, o.y, o.z, o.w};
        for (int c = 0; c < 4; c++) worst = fmax(worst, fabs(got[c] - q[c]));
        double unit = got[0] * got[0] + got[1] * got[1] + got[2] * got[2] + got[3] * got[3];
        CHECK_NEAR(unit, 1.0, 1e-15);
    }
    printf("  4000 turns: orientation within %.2g of the product worked with libm\n", worst);
    CHECK(worst < 1e-13);
    carom_world_destroy(w);
}

/* A rough collision turns both bodies' orientations side by side
 * (spin_bring_two, two lanes of a vector): the bits must be those of two
 * spin_bring calls, for turns inside the series' range, beyond it (libm),
 * of zero (no spin, or no time since) and for a body met twice. */
static void test_paired_turns_match_single_turns(void)
{
    carom_world_def def = rough_def(3, 100.0, CAROM_WALLS, 1.0, 1.0, 1.0, -1.0);
    carom_world *paired = make_world(&def), *single = make_world(&def);
    if (!paired || !single) return;
    carom_rng rng = carom_rng_seed(77);
    for (int id = 0; id < 2; id++) {
        carom_body_def b = carom_default_body_def();
        b.position = (carom_vec){-10.0 + 20.0 * id, 0.0, 0.0};
        CHECK_MSG(carom_world_add_body(paired, &b, NULL) == CAROM_OK, "%s", carom_world_message(paired));
        CHECK(carom_world_add_body(single, &b, NULL) == CAROM_OK);
    }
    int differing = 0, together = 0;
    double t = 0.0;
    for (int k = 0; k < 3000; k++) {
        double big = k % 11 == 0 ? 60.0 : 6.0; /* now and then beyond the series' range */
        for (int slot = 0; slot < 2; slot++) {
            double *omega = paired->spin.state[slot].omega;
            for (int a = 0; a < 3; a++) omega[a] = k % 13 == slot ? 0.0 : uniform(&rng, -big, big);
            single->spin.state[slot] = paired->spin.state[slot];
        }
        double step = k % 17 == 0 ? 0.0 : uniform(&rng, 0.0, 0.1);
        t += step;
        int b = k % 19 == 0 ? 0 : 1; /* now and then the same body twice */
        spin_bring_two(paired, 0, b, t);
        spin_bring(single, 0, t);
        spin_bring(single, b, t);
        together += step > 0.0 && b == 1 && k % 13 > 1 && big < 10.0;
        for (int slot = 0; slot < 2; slot++)
            differing += memcmp(&paired->spin.state[slot], &single->spin.state[slot], sizeof(spin_state)) != 0;
    }
    printf("  %d paired turns (%d side by side): %d spin records differ from single turns\n", 3000, together,
           differing);
    CHECK(differing == 0);
    CHECK(together > 1500);
    carom_world_destroy(paired);
    carom_world_destroy(single);
}

typedef struct setter_in_callback {
    carom_world *w;
    carom_status got;
    int calls;
} setter_in_callback;

static int set_spin_inside(void *user, const carom_event *e)
{
    setter_in_callback *c = user;
    (void)e;
    c->got = carom_world_set_body_angular_velocity(c->w, 0, (carom_vec){0, 0, 1});
    c->calls++;
    return 0;
}

static void test_angular_velocity_setter_in_callback(void)
{
    setter_in_callback c = {0};
    carom_world_def def = rough_def(2, 10.0, CAROM_WALLS, 1.0, 0.5, 1.0, 0.5);
    def.on_event = set_spin_inside, def.user = &c;
    c.w = make_world(&def);
    if (!c.w) return;
    carom_body_def b = carom_default_body_def();
    b.velocity = (carom_vec){3, 0, 0};
    CHECK(carom_world_add_body(c.w, &b, NULL) == CAROM_OK);
    CHECK(carom_world_run(c.w, 3.0, -1) == CAROM_OK);
    CHECK(c.calls > 0);
    CHECK(c.got == CAROM_INVALID_ARGUMENT);
    CHECK(strstr(carom_world_message(c.w), "callback") != NULL);
    CHECK(body_of(c.w, 0).angular_velocity.z == 0.0); /* head on at a rough wall: no spin */
    carom_world_destroy(c.w);
}

/* ------------------------------------------------------------------ */
/* 6. Bad input.                                                       */

static void check_def_refused(carom_world_def def, const char *field)
{
    carom_world *w = NULL;
    char why[256] = "";
    CHECK(carom_world_create(&def, &w, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK(w == NULL);
    CHECK_MSG(strstr(why, field) != NULL, "'%s' does not name %s", why, field);
}

static void test_bad_world_def(void)
{
    static const double bad[] = {1.5, -1.0000001, NAN, INFINITY};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        carom_world_def def = carom_default_world_def();
        def.tangential_restitution = bad[k];
        check_def_refused(def, "world_def.tangential_restitution");
        def = carom_default_world_def();
        def.wall_tangential_restitution = bad[k];
        check_def_refused(def, "world_def.wall_tangential_restitution");
    }
    static const double bad_friction[] = {-0.1, NAN, -INFINITY};
    for (size_t k = 0; k < sizeof bad_friction / sizeof bad_friction[0]; k++) {
        carom_world_def def = carom_default_world_def();
        def.friction = bad_friction[k];
        check_def_refused(def, "world_def.friction");
    }
    carom_world_def def = carom_default_world_def(); /* the ends of the ranges are fine */
    def.tangential_restitution = 1.0, def.wall_tangential_restitution = -1.0,
    def.friction = INFINITY;
    carom_world *w = make_world(&def);
    carom_world_destroy(w);
}

/* Body 3 (after three good ones) with this change is refused, naming it and the field. */
static void check_body_refused(int dim, carom_body_def bad, const char *field)
{
    carom_world_def def = rough_def(dim, 10.0, CAROM_WALLS, 1.0, 0.5, 1.0, 0.5);
    carom_world *w = make_world(&def);
    if (!w) return;
    for (int k = 0; k < 3; k++) {
        carom_body_def b = carom_default_body_def();
        b.position = (carom_vec){-3.0 + 1.5 * k, 0, 0};
        CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    }
    bad.position = (carom_vec){3.0, 0, 0};
    CHECK(carom_world_add_body(w, &bad, NULL) == CAROM_INVALID_ARGUMENT);
    const char *m = carom_world_message(w);
    CHECK_MSG(strstr(m, "body 3") != NULL && strstr(m, field) != NULL,
              "'%s' does not name body 3 and %s", m, field);
    CHECK_EQ_INT(carom_world_body_count(w), 3);
    carom_world_destroy(w);
}

static void test_bad_body_def(void)
{
    static const double bad_inertia[] = {-1.0, NAN, -INFINITY, 1e-300};
    for (int dim = 2; dim <= 3; dim++)
        for (size_t k = 0; k < sizeof bad_inertia / sizeof bad_inertia[0]; k++) {
            carom_body_def b = carom_default_body_def();
            b.inertia = bad_inertia[k];
            check_body_refused(dim, b, "inertia");
        }
    carom_body_def b = carom_default_body_def();
    b.mass = INFINITY, b.inertia = 2.0; /* kinematic: its inertia must be infinite */
    check_body_refused(3, b, "inertia");
    static const carom_quat not_unit[] = {
        {0, 0, 0, 2}, {1, 1, 0, 0}, {0.5, 0.5, 0.5, 0.4999}, {NAN, 0, 0, 1}};
    for (size_t k = 0; k < sizeof not_unit / sizeof not_unit[0]; k++) {
        b = carom_default_body_def();
        b.orientation = not_unit[k];
        check_body_refused(3, b, "orientation");
    }
    b = carom_default_body_def();
    b.angular_velocity = (carom_vec){0, 1, 0};
    check_body_refused(2, b, "angular_velocity.y");
    b.angular_velocity = (carom_vec){2, 0, 1};
    check_body_refused(2, b, "angular_velocity.x");
    b.angular_velocity = (carom_vec){0, 0, NAN};
    check_body_refused(3, b, "angular_velocity.z");
    b = carom_default_body_def();
    b.angle = INFINITY;
    check_body_refused(2, b, "angle");
}

int main(void)
{
    RUN(test_floor_bounce_closed_form);
    RUN(test_head_on_pair_closed_form);
    RUN(test_oblique_pair_properties);
    RUN(test_kinematic_body_hits_rough);
    RUN(test_energy_lost_per_event);
    RUN(test_energy_conserved_elastic);
    RUN(test_angular_momentum_in_a_ball);
    RUN(test_equipartition);
    RUN(test_homogeneous_cooling);
    RUN(test_angular_velocity_setter);
    RUN(test_angular_velocity_setter_in_callback);
    RUN(test_orientation_over_many_turns);
    RUN(test_paired_turns_match_single_turns);
    RUN(test_bad_world_def);
    RUN(test_bad_body_def);
    return CHECK_SUMMARY();
}
