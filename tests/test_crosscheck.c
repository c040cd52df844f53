/* test_crosscheck.c — carom's event stream against an independent brute-force
 * O(N^2) event predictor written here, on random small systems.
 *
 * The reference keeps every body synchronised at one global time and finds
 * the next event by trying every pair and every wall:
 *   - a pair meets when |dr + dv t| = sigma, the earlier root of the quadratic,
 *     taken in the cancellation-free form t = (dr^2 - sigma^2) / (-b + sqrt(disc))
 *     (b = dr.dv < 0), with the nearest periodic images on periodic axes
 *     (a uniform field does not change the relative motion of a pair);
 *   - a body reaches a wall at +-side/2 with its surface: the first upward
 *     crossing of a straight line, or of a parabola under gravity;
 *   - collisions are frictionless, along the line of centres, with unequal
 *     masses and restitution e (seed 004, case 2): with n the unit vector
 *     from j to i and u = (v_i - v_j).n < 0, the impulse is
 *     J = -(1 + e) m_i m_j / (m_i + m_j) u, v_i += J n / m_i, v_j -= J n / m_j;
 *     a wall reverses the normal component times the wall restitution.
 * Chaos amplifies round-off, so the main comparison re-synchronises the
 * reference to the library's state after each matched event: what is checked
 * is that, from the very same state, the library's next event (kind, bodies,
 * time to ~1e-9 relative) is the one brute force finds, and that the state
 * right after it (all positions and velocities, the impulse) obeys the law
 * above. Cases: N = 2 ... 50, dim 2 and 3, all walls, all periodic and
 * [periodic, walls, periodic], polydisperse radii and masses, e = 1 and
 * e = 0.8 with wall restitution 0.9, and walls under (tilted) gravity.
 * A second test runs both freely, without re-synchronisation, over the first
 * 30 events, for as long as a copy of the reference perturbed by 1e-15 stays
 * within 1e-10 of it (beyond that, chaos and not the library decides). A third
 * checks head-on collisions, wall bounces and bounces under gravity in
 * closed form.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"

#define MAX_BODIES 64
#define RESYNC_EVENTS 400
#define FREE_EVENTS 30
#define NO_EVENT (-1)
#define MAX_HORIZONS 1000000

static const double PI = 3.14159265358979323846;

/* ------------------------------------------------------------------ */
/* The reference system: every body at the same time `now`.           */

typedef struct ref_system {
    int dim, n;
    double side[3];
    int periodic[3];
    double gravity[3];
    double e, e_wall, elastic_below;
    /* The TC model (Luding & McNamara 1998): a pair collision is elastic if
     * either body had a pair collision less than tc before, and so is a wall
     * bounce of a body that had one. */
    double tc, last_pair[MAX_BODIES];
    double now;
    double x[MAX_BODIES][3], v[MAX_BODIES][3];
    double r[MAX_BODIES], m[MAX_BODIES];
    double engine_shell; /* not physics: how the library world under test finds neighbours */
} ref_system;

typedef struct ref_event {
    double time; /* absolute; INFINITY with kind NO_EVENT */
    int kind;    /* CAROM_EVENT_PAIR, CAROM_EVENT_WALL or NO_EVENT */
    int i, j;    /* pair: i < j; wall: body i, wall j = 2 axis + side */
    double impulse;
} ref_event;

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Wraps a coordinate difference to the nearest image on a periodic axis. */
static double nearest_image(const ref_system *s, int axis, double d)
{
    if (!s->periodic[axis]) return d;
    return d - s->side[axis] * nearbyint(d / s->side[axis]);
}

/* Time until |dr + dv t| = sigma (approaching pairs only), or INFINITY. */
static double contact_time(const double dr[3], const double dv[3], double sigma)
{
    double b = dot3(dr, dv);
    if (b >= 0.0) return INFINITY;
    double c = dot3(dr, dr) - sigma * sigma;
    if (c <= 0.0) return 0.0; /* overlapping by round-off and approaching: now */
    double disc = b * b - dot3(dv, dv) * c;
    if (disc <= 0.0) return INFINITY;
    return c / (-b + sqrt(disc));
}

/* Earliest contact of bodies a and b over the images next to the nearest one. */
static double pair_time(const ref_system *s, int a, int b)
{
    double dr0[3] = {0, 0, 0}, dv[3] = {0, 0, 0};
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int k = 0; k < s->dim; k++) {
        dr0[k] = nearest_image(s, k, s->x[a][k] - s->x[b][k]);
        dv[k] = s->v[a][k] - s->v[b][k];
        if (s->periodic[k]) lo[k] = -1, hi[k] = 1;
    }
    double best = INFINITY, sigma = s->r[a] + s->r[b];
    for (int n0 = lo[0]; n0 <= hi[0]; n0++)
        for (int n1 = lo[1]; n1 <= hi[1]; n1++)
            for (int n2 = lo[2]; n2 <= hi[2]; n2++) {
                double dr[3] = {dr0[0] + n0 * s->side[0], dr0[1] + n1 * s->side[1],
                                dr0[2] + n2 * s->side[2]};
                double t = contact_time(dr, dv, sigma);
                if (t < best) best = t;
            }
    return best;
}

/* First t >= 0 where h(t) = A t^2 + B t + C rises through zero (h(0) = C is
 * normally <= 0: inside). Stable forms of the upward root (-B + sqrt(disc)) / 2A. */
static double first_upward_crossing(double A, double B, double C)
{
    if (C >= 0.0 && B > 0.0) return 0.0; /* touching or through by round-off, moving in */
    if (A == 0.0) return B > 0.0 ? -C / B : INFINITY;
    double disc = B * B - 4.0 * A * C;
    if (disc < 0.0) return INFINITY;
    double sq = sqrt(disc), t;
    if (B < 0.0)
        t = (-B + sq) / (2.0 * A);
    else if (B + sq > 0.0)
        t = -2.0 * C / (B + sq);
    else
        return INFINITY;
    return t >= 0.0 ? t : INFINITY;
}

/* Time until body b touches wall 2 axis + side, or INFINITY. */
static double wall_time(const ref_system *s, int b, int axis, int side)
{
    double limit = 0.5 * s->side[axis] - s->r[b];
    double g = s->gravity[axis], x = s->x[b][axis], v = s->v[b][axis];
    if (side == 1) return first_upward_crossing(0.5 * g, v, x - limit);
    return first_upward_crossing(-0.5 * g, -v, -limit - x);
}

/* Free flight of every body by dt (parabolas under gravity), wrapped on periodic axes. */
static void ref_drift(ref_system *s, double dt)
{
    for (int b = 0; b < s->n; b++)
        for (int k = 0; k < s->dim; k++) {
            s->x[b][k] += s->v[b][k] * dt + 0.5 * s->gravity[k] * dt * dt;
            s->v[b][k] += s->gravity[k] * dt;
            if (s->periodic[k]) s->x[b][k] = nearest_image(s, k, s->x[b][k]);
        }
    s->now += dt;
}

/* The earliest event from now by brute force over all pairs and walls (time relative to now). */
static ref_event earliest_event(const ref_system *s)
{
    ref_event best = {INFINITY, NO_EVENT, -1, -1, 0.0};
    for (int a = 0; a < s->n; a++)
        for (int b = a + 1; b < s->n; b++) {
            double t = pair_time(s, a, b);
            if (t < best.time) best = (ref_event){t, CAROM_EVENT_PAIR, a, b, 0.0};
        }
    for (int a = 0; a < s->n; a++)
        for (int k = 0; k < s->dim; k++) {
            if (s->periodic[k]) continue;
            for (int side = 0; side < 2; side++) {
                double t = wall_time(s, a, k, side);
                if (t < best.time) best = (ref_event){t, CAROM_EVENT_WALL, a, 2 * k + side, 0.0};
            }
        }
    return best;
}

/* A time span in which no pair can reach an image beyond the nearest one's
 * neighbours: the relative displacement stays below the shortest periodic
 * side, and sides are at least 3 diameters, so |dr0 + n L| <= sigma + L < 3L/2
 * only for |n| <= 1 on each axis. INFINITY without periodic axes. */
static double image_horizon(const ref_system *s)
{
    double shortest = INFINITY, mean[3] = {0, 0, 0}, vmax = 0.0;
    for (int k = 0; k < s->dim; k++)
        if (s->periodic[k] && s->side[k] < shortest) shortest = s->side[k];
    if (shortest == INFINITY) return INFINITY;
    for (int b = 0; b < s->n; b++)
        for (int k = 0; k < 3; k++) mean[k] += s->v[b][k] / s->n;
    for (int b = 0; b < s->n; b++) {
        double d[3] = {s->v[b][0] - mean[0], s->v[b][1] - mean[1], s->v[b][2] - mean[2]};
        vmax = fmax(vmax, sqrt(dot3(d, d)));
    }
    return vmax > 0.0 ? shortest / (2.0 * vmax) : INFINITY;
}

/* Finds the next event and brings the reference to its time (before it is
 * applied). Returns NO_EVENT if none is found within MAX_HORIZONS horizons. */
static ref_event ref_next_event(ref_system *s)
{
    for (int h = 0; h < MAX_HORIZONS; h++) {
        double horizon = image_horizon(s);
        ref_event ev = earliest_event(s);
        if (ev.time <= horizon) {
            ref_drift(s, ev.time);
            ev.time = s->now;
            return ev;
        }
        if (horizon == INFINITY) break;
        ref_drift(s, horizon);
    }
    return (ref_event){INFINITY, NO_EVENT, -1, -1, 0.0};
}

/* The restitution used for a collision with normal approach speed u. */
static double effective_restitution(const ref_system *s, double e, double u)
{
    return fabs(u) < s->elastic_below ? 1.0 : e;
}

/* Applies the collision law of seed 004, case 2 (and a wall bounce); sets ev->impulse. */
static void ref_apply(ref_system *s, ref_event *ev)
{
    int i = ev->i, j = ev->j;
    if (ev->kind == CAROM_EVENT_WALL) {
        int axis = j / 2;
        double u = s->v[i][axis];
        double e = s->now - s->last_pair[i] < s->tc ? 1.0 : effective_restitution(s, s->e_wall, u);
        ev->impulse = (1.0 + e) * s->m[i] * fabs(u);
        s->v[i][axis] = -e * u;
        return;
    }
    double n[3] = {0, 0, 0}, dv[3] = {0, 0, 0};
    for (int k = 0; k < s->dim; k++) {
        n[k] = nearest_image(s, k, s->x[i][k] - s->x[j][k]);
        dv[k] = s->v[i][k] - s->v[j][k];
    }
    double len = sqrt(dot3(n, n));
    for (int k = 0; k < 3; k++) n[k] /= len;
    double u = dot3(dv, n);
    double mu = s->m[i] * s->m[j] / (s->m[i] + s->m[j]);
    int recent = s->now - s->last_pair[i] < s->tc || s->now - s->last_pair[j] < s->tc;
    double impulse = -(1.0 + (recent ? 1.0 : effective_restitution(s, s->e, u))) * mu * u;
    s->last_pair[i] = s->last_pair[j] = s->now;
    for (int k = 0; k < s->dim; k++) {
        s->v[i][k] += impulse / s->m[i] * n[k];
        s->v[j][k] -= impulse / s->m[j] * n[k];
    }
    ev->impulse = impulse;
}

static double max_speed(const ref_system *s)
{
    double vmax = 0.0;
    for (int b = 0; b < s->n; b++) vmax = fmax(vmax, sqrt(dot3(s->v[b], s->v[b])));
    return vmax;
}

/* ------------------------------------------------------------------ */
/* Random cases.                                                       */

enum { ALL_WALLS, ALL_PERIODIC, MIXED };

/* The TC model's time in the inelastic cases: long enough (against flights
 * of order 0.1-1) that many collisions fall under it. */
#define TC_TIME 0.05

typedef struct case_spec {
    int dim, n, boundary;
    double e, e_wall, elastic_below;
    double gravity[3];
    uint64_t seed;
    double shell; /* the library's world_def.neighbour_shell (0: its own choice) */
} case_spec;

static const char *boundary_name(int boundary)
{
    return boundary == ALL_WALLS ? "walls" : boundary == ALL_PERIODIC ? "periodic" : "mixed";
}

static void describe_case(const case_spec *c, char *text, size_t size)
{
    snprintf(text, size, "dim %d, N %d, %s, e %.2f, e_wall %.2f, g (%.2f %.2f %.2f), seed %llu, shell %g",
             c->dim, c->n, boundary_name(c->boundary), c->e, c->e_wall, c->gravity[0],
             c->gravity[1], c->gravity[2], (unsigned long long)c->seed, c->shell);
}

/* Does body b, placed at s->x[b], keep clear of the bodies before it? */
static int placement_is_free(const ref_system *s, int b)
{
    for (int a = 0; a < b; a++) {
        double d2 = 0.0;
        for (int k = 0; k < s->dim; k++) {
            double d = nearest_image(s, k, s->x[b][k] - s->x[a][k]);
            d2 += d * d;
        }
        double sigma = s->r[a] + s->r[b];
        if (d2 <= sigma * sigma * (1.0 + 1e-6)) return 0;
    }
    return 1;
}

/* Random sequential placement inside the box (through no wall). */
static int place_bodies(ref_system *s, carom_rng *rng)
{
    for (int b = 0; b < s->n; b++) {
        int tries = 0;
        do {
            if (++tries > 100000) return 0;
            for (int k = 0; k < s->dim; k++) {
                double room = s->periodic[k] ? s->side[k] : s->side[k] - 2.0 * s->r[b];
                s->x[b][k] = (carom_rng_uniform(rng) - 0.5) * room;
            }
        } while (!placement_is_free(s, b));
    }
    return 1;
}

/* Removes the centre-of-mass velocity. Used for inelastic cases: cooling makes
 * relative speeds tiny, and a large common drift would then carry positions
 * far with round-off ~ drift * ulp(t) that the slow relative motion cannot
 * resolve (true of any implementation, including this reference). */
static void remove_drift(ref_system *s)
{
    double p[3] = {0, 0, 0}, mass = 0.0;
    for (int b = 0; b < s->n; b++) {
        mass += s->m[b];
        for (int k = 0; k < 3; k++) p[k] += s->m[b] * s->v[b][k];
    }
    for (int b = 0; b < s->n; b++)
        for (int k = 0; k < s->dim; k++) s->v[b][k] -= p[k] / mass;
}

/* Polydisperse radii and masses, a box at a random packing fraction, random velocities. */
static int build_reference(const case_spec *c, ref_system *s)
{
    carom_rng rng = carom_rng_seed(c->seed);
    memset(s, 0, sizeof *s);
    s->dim = c->dim, s->n = c->n, s->e = c->e, s->e_wall = c->e_wall;
    s->elastic_below = c->elastic_below;
    s->tc = c->e < 1.0 || c->e_wall < 1.0 ? TC_TIME : -1.0;
    for (int b = 0; b < MAX_BODIES; b++) s->last_pair[b] = -INFINITY;
    double volume = 0.0, rmax = 0.0;
    for (int b = 0; b < s->n; b++) {
        s->r[b] = 0.3 + 0.3 * carom_rng_uniform(&rng);
        s->m[b] = 0.5 + 1.5 * carom_rng_uniform(&rng);
        volume += c->dim == 2 ? PI * s->r[b] * s->r[b] : 4.0 / 3.0 * PI * pow(s->r[b], 3);
        rmax = fmax(rmax, s->r[b]);
    }
    double fraction =
        c->dim == 2 ? 0.08 + 0.27 * carom_rng_uniform(&rng) : 0.05 + 0.20 * carom_rng_uniform(&rng);
    double side = pow(volume / fraction, 1.0 / c->dim);
    for (int k = 0; k < 3; k++) {
        s->periodic[k] = c->boundary == ALL_PERIODIC || (c->boundary == MIXED && k != 1);
        s->side[k] = side * (0.85 + 0.3 * carom_rng_uniform(&rng));
        s->side[k] = fmax(s->side[k], 6.0 * rmax * 1.001);
        if (k < c->dim) s->gravity[k] = c->gravity[k];
    }
    for (int b = 0; b < s->n; b++)
        for (int k = 0; k < c->dim; k++) s->v[b][k] = carom_rng_normal(&rng);
    if (c->e < 1.0) remove_drift(s);
    s->engine_shell = c->shell;
    return place_bodies(s, &rng);
}

/* A library world holding the reference's state. */
static carom_world *build_world(const ref_system *s, carom_event_callback on_event, void *user)
{
    carom_world_def def = carom_default_world_def();
    def.dim = s->dim;
    def.box = (carom_vec){s->side[0], s->side[1], s->side[2]};
    for (int k = 0; k < 3; k++) def.boundary[k] = s->periodic[k] ? CAROM_PERIODIC : CAROM_WALLS;
    def.gravity = (carom_vec){s->gravity[0], s->gravity[1], s->gravity[2]};
    def.restitution = s->e;
    def.wall_restitution = s->e_wall;
    def.elastic_below_speed = s->elastic_below;
    def.collapse_time = s->tc;
    def.neighbour_shell = s->engine_shell;
    def.on_event = on_event;
    def.user = user;
    carom_world *w = NULL;
    char why[256] = "";
    carom_status st = carom_world_create(&def, &w, why, sizeof why);
    CHECK_MSG(st == CAROM_OK, "create: %s", why);
    if (st != CAROM_OK) return NULL;
    for (int b = 0; b < s->n; b++) {
        carom_body_def body = carom_default_body_def();
        body.position = (carom_vec){s->x[b][0], s->x[b][1], s->x[b][2]};
        body.velocity = (carom_vec){s->v[b][0], s->v[b][1], s->v[b][2]};
        body.radius = s->r[b];
        body.mass = s->m[b];
        int32_t id = -1;
        st = carom_world_add_body(w, &body, &id);
        CHECK_MSG(st == CAROM_OK && id == b, "add body %d: %s", b, carom_world_message(w));
        if (st != CAROM_OK) {
            carom_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

static void state_position(const carom_body_state *st, double x[3])
{
    x[0] = st->position.x, x[1] = st->position.y, x[2] = st->position.z;
}

static void state_velocity(const carom_body_state *st, double v[3])
{
    v[0] = st->velocity.x, v[1] = st->velocity.y, v[2] = st->velocity.z;
}

/* ------------------------------------------------------------------ */
/* Event-by-event comparison with re-synchronisation.                  */

typedef struct resync_ctx {
    carom_world *world;
    ref_system ref; /* the library's state after the previous event */
    const char *label;
    double time_scale, length_scale;
    int matched, target, stopped, mismatches;
} resync_ctx;

static const char *kind_name(int kind)
{
    return kind == CAROM_EVENT_PAIR ? "pair" : kind == CAROM_EVENT_WALL ? "wall" : "none";
}

static int stop_with(resync_ctx *ctx, const carom_event *got, const ref_event *want,
                     const char *what)
{
    fprintf(stderr,
            "crosscheck [%s]: event %d: %s\n"
            "  library:     %s %d %d at t = %.17g (impulse %.17g)\n"
            "  brute force: %s %d %d at t = %.17g (impulse %.17g)\n",
            ctx->label, ctx->matched + 1, what, kind_name(got->kind), got->i, got->j, got->time,
            got->impulse, kind_name(want->kind), want->i, want->j, want->time, want->impulse);
    ctx->stopped = 1;
    ctx->mismatches++;
    return 0;
}

/* The largest difference of one body's position (nearest image) or velocity
 * component between the library and the reference, in units of the tolerance. */
static double body_mismatch(const resync_ctx *ctx, int b, const carom_body_state *st)
{
    const ref_system *s = &ctx->ref;
    double xtol = 1e-9 * ctx->length_scale, vtol = 1e-9 * fmax(max_speed(s), 1e-300);
    double x[3], v[3], worst = 0.0;
    state_position(st, x);
    state_velocity(st, v);
    for (int k = 0; k < s->dim; k++) {
        worst = fmax(worst, fabs(nearest_image(s, k, x[k] - s->x[b][k])) / xtol);
        worst = fmax(worst, fabs(v[k] - s->v[b][k]) / vtol);
    }
    return worst;
}

/* The library's post-event state against the reference after its own law:
 * returns the first body off by more than the tolerance, or -1. */
static int first_body_off(const resync_ctx *ctx, double *mismatch)
{
    for (int b = 0; b < ctx->ref.n; b++) {
        carom_body_state st;
        *mismatch =
            carom_world_get_body(ctx->world, b, &st) == CAROM_OK ? body_mismatch(ctx, b, &st) : NAN;
        if (!(*mismatch <= 1.0)) return b;
    }
    return -1;
}

static void resync_reference(resync_ctx *ctx, double t)
{
    ref_system *s = &ctx->ref;
    for (int b = 0; b < s->n; b++) {
        carom_body_state st;
        carom_world_get_body(ctx->world, b, &st);
        state_position(&st, s->x[b]);
        state_velocity(&st, s->v[b]);
    }
    s->now = t;
}

/* Compares the library's event with brute force from the same state; 1 if all agree. */
static int compare_event(resync_ctx *ctx, const carom_event *got)
{
    ref_event want = ref_next_event(&ctx->ref);
    double ttol = 1e-9 * fmax(fabs(got->time), ctx->time_scale);
    if (got->time != carom_world_time(ctx->world))
        return stop_with(ctx, got, &want, "callback time differs from carom_world_time");
    if ((int)got->kind != want.kind || got->i != want.i || got->j != want.j)
        return stop_with(ctx, got, &want, "different event");
    if (!(fabs(got->time - want.time) <= ttol)) return stop_with(ctx, got, &want, "different time");
    ref_apply(&ctx->ref, &want);
    if (!(fabs(got->impulse - want.impulse) <= 1e-9 * fmax(want.impulse, 1e-300)))
        return stop_with(ctx, got, &want, "different impulse");
    double mismatch = 0.0;
    int body = first_body_off(ctx, &mismatch);
    if (body >= 0) {
        fprintf(stderr,
                "crosscheck [%s]: body %d differs by %.3g times the tolerance after the event\n",
                ctx->label, body, mismatch);
        return stop_with(ctx, got, &want, "different state after the event");
    }
    return 1;
}

static int on_event_resync(void *user, const carom_event *got)
{
    resync_ctx *ctx = user;
    if (ctx->stopped || ctx->matched >= ctx->target) return 0;
    if (!compare_event(ctx, got)) return 0;
    resync_reference(ctx, got->time);
    ctx->matched++;
    return 0;
}

/* Runs the library in short bursts until `target` events have been compared;
 * fails if the clock and the count stand still over many bursts (only a jam
 * may legitimately process thousands of events at one instant). */
static void run_until_matched(resync_ctx *ctx)
{
    double last_time = -1.0;
    int last_matched = -1, still = 0;
    while (!ctx->stopped && ctx->matched < ctx->target) {
        carom_status st = carom_world_run(ctx->world, INFINITY, 64);
        CHECK_MSG(st == CAROM_OK, "[%s] run: %s: %s", ctx->label, carom_status_name(st),
                  carom_world_message(ctx->world));
        if (st != CAROM_OK) return;
        double now = carom_world_time(ctx->world);
        still = (now == last_time && ctx->matched == last_matched) ? still + 1 : 0;
        last_time = now, last_matched = ctx->matched;
        if (still >= 100) {
            carom_stats stats = carom_world_stats(ctx->world);
            CHECK_MSG(0,
                      "[%s] stuck at t = %.17g after %d matched events: %lld events "
                      "(%lld cell crossings) without the clock moving",
                      ctx->label, now, ctx->matched, (long long)stats.events,
                      (long long)stats.cell_events);
            return;
        }
    }
}

/* Runs the library until `target` pair/wall events have been compared;
 * returns the number compared. */
static int run_resync_case(const case_spec *c)
{
    char label[200];
    describe_case(c, label, sizeof label);
    resync_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return 0;
    if (!build_reference(c, &ctx->ref)) {
        CHECK_MSG(0, "[%s] could not place the bodies", label);
        free(ctx);
        return 0;
    }
    ctx->label = label;
    /* A cooling system's speeds shrink geometrically with each collision; past
     * ~30 collisions per body they approach the round-off of the positions. */
    ctx->target = c->e < 1.0 && 30 * c->n < RESYNC_EVENTS ? 30 * c->n : RESYNC_EVENTS;
    ctx->length_scale = fmax(ctx->ref.side[0], fmax(ctx->ref.side[1], ctx->ref.side[2]));
    ctx->time_scale = ctx->length_scale / fmax(max_speed(&ctx->ref), 1e-300);
    ctx->world = build_world(&ctx->ref, on_event_resync, ctx);
    if (!ctx->world) {
        free(ctx);
        return 0;
    }
    run_until_matched(ctx);
    CHECK_MSG(ctx->mismatches == 0, "[%s] mismatch after %d matched events", label, ctx->matched);
    CHECK_MSG(ctx->matched == ctx->target, "[%s] %d of %d events compared", label, ctx->matched,
              ctx->target);
    int matched = ctx->matched;
    carom_world_destroy(ctx->world);
    free(ctx);
    return matched;
}

static const int case_sizes[] = {2, 3, 5, 10, 20, 50};

/* Every size, boundary and restitution (elastic, and 0.8 with walls at 0.9),
 * each with three random draws. */
static void run_resync_family(int dim, uint64_t seed_base, double shell)
{
    int sizes = (int)(sizeof case_sizes / sizeof case_sizes[0]), cases = 0;
    long events = 0;
    int draws = check_quick() ? 1 : 3; /* one draw of every case in the sanitizer pass */
    for (int draw = 0; draw < draws; draw++)
        for (int s = 0; s < sizes; s++)
            for (int boundary = ALL_WALLS; boundary <= MIXED; boundary++)
                for (int inelastic = 0; inelastic < 2; inelastic++) {
                    case_spec c = {
                        dim,
                        case_sizes[s],
                        boundary,
                        inelastic ? 0.8 : 1.0,
                        inelastic ? 0.9 : 1.0,
                        0.0,
                        {0, 0, 0},
                        seed_base + (uint64_t)(1000 * draw + 100 * s + 10 * boundary + inelastic),
                        shell};
                    events += run_resync_case(&c);
                    cases++;
                }
    printf("  dim %d, shell %g: %ld events matched over %d cases\n", dim, shell, events, cases);
}

static void test_resync_2d(void) { run_resync_family(2, 20000, 0.0); }

static void test_resync_3d(void) { run_resync_family(3, 30000, 0.0); }

/* The same cases with neighbour lists forced on (where the box leaves room
 * for a shell), with a thin and a thick shell. */
static void test_resync_neighbour_lists(void)
{
    run_resync_family(3, 45000, 0.05);
    run_resync_family(3, 50000, 0.4);
    run_resync_family(2, 60000, 0.2);
}

/* Walls become parabolas under gravity. Inelastic cases set elastic_below_speed
 * so that bodies resting on the floor do not collapse inelastically; the
 * reference applies the same rule. */
static void test_resync_gravity(void)
{
    int cases = 0;
    long events = 0;
    for (int draw = 0; draw < 2; draw++)
        for (int dim = 2; dim <= 3; dim++)
            for (int s = 0; s < 5; s++)
                for (int inelastic = 0; inelastic < 2; inelastic++) {
                    case_spec c = {dim,
                                   case_sizes[s],
                                   ALL_WALLS,
                                   inelastic ? 0.8 : 1.0,
                                   inelastic ? 0.9 : 1.0,
                                   inelastic ? 0.05 : 0.0,
                                   {0.3, dim == 2 ? -1.0 : 0.2, dim == 3 ? -1.0 : 0.0},
                                   (uint64_t)(5000 + 1000 * draw + 100 * dim + 10 * s + inelastic),
                                   0.0};
                    events += run_resync_case(&c);
                    cases++;
                }
    printf("  gravity: %ld events matched over %d cases\n", events, cases);
}

/* ------------------------------------------------------------------ */
/* Free-running comparison of the first events (no re-synchronisation). */

typedef struct recorded_event {
    carom_event event;
    double vi[3], vj[3]; /* velocities after the event */
} recorded_event;

typedef struct record_ctx {
    carom_world *world;
    recorded_event events[FREE_EVENTS];
    int count;
} record_ctx;

static int on_event_record(void *user, const carom_event *ev)
{
    record_ctx *ctx = user;
    if (ctx->count >= FREE_EVENTS) return 0;
    recorded_event *rec = &ctx->events[ctx->count++];
    carom_body_state st;
    rec->event = *ev;
    memset(rec->vj, 0, sizeof rec->vj);
    carom_world_get_body(ctx->world, ev->i, &st);
    state_velocity(&st, rec->vi);
    if (ev->kind == CAROM_EVENT_PAIR) {
        carom_world_get_body(ctx->world, ev->j, &st);
        state_velocity(&st, rec->vj);
    }
    return 0;
}

/* Compares one recorded library event with the reference's; 1 if they agree. */
static int free_event_matches(const ref_system *s, const recorded_event *rec, const ref_event *want,
                              double time_scale, double vscale)
{
    const carom_event *got = &rec->event;
    if ((int)got->kind != want->kind || got->i != want->i || got->j != want->j) return 0;
    if (!(fabs(got->time - want->time) <= 1e-9 * fmax(fabs(want->time), time_scale))) return 0;
    for (int k = 0; k < s->dim; k++) {
        if (!(fabs(rec->vi[k] - s->v[want->i][k]) <= 1e-9 * vscale)) return 0;
        if (want->kind == CAROM_EVENT_PAIR &&
            !(fabs(rec->vj[k] - s->v[want->j][k]) <= 1e-9 * vscale))
            return 0;
    }
    return 1;
}

/* A copy of the reference with velocities changed by ~1e-15 relative: how
 * far round-off alone can carry two exact implementations apart. */
static void perturb(ref_system *s, uint64_t seed)
{
    carom_rng rng = carom_rng_seed(seed);
    for (int b = 0; b < s->n; b++)
        for (int k = 0; k < s->dim; k++) s->v[b][k] *= 1.0 + 1e-15 * carom_rng_normal(&rng);
}

/* The largest difference between the two systems' velocity components. */
static double velocity_gap(const ref_system *a, const ref_system *b)
{
    double gap = 0.0;
    for (int n = 0; n < a->n; n++)
        for (int k = 0; k < a->dim; k++) gap = fmax(gap, fabs(a->v[n][k] - b->v[n][k]));
    return gap;
}

/* Events of the free-running reference while its perturbed shadow stays
 * within 1e-10 (relative, ten times inside the tolerance) of it: the chaos of the system limits how
 * far a free comparison means anything, so the comparison ends where even two copies of the
 * reference part. Returns the number of events compared. */
static int compare_free_run(ref_system *s, const record_ctx *rec, const char *label)
{
    ref_system *shadow = malloc(sizeof *shadow);
    if (!shadow) return 0;
    *shadow = *s;
    perturb(shadow, 99);
    double vscale = max_speed(s), tscale = s->side[0] / vscale;
    int k = 0;
    for (; k < rec->count; k++) {
        ref_event want = ref_next_event(s), twin = ref_next_event(shadow);
        ref_apply(s, &want);
        ref_apply(shadow, &twin);
        if (twin.kind != want.kind || twin.i != want.i || twin.j != want.j ||
            !(fabs(twin.time - want.time) <= 1e-10 * fmax(fabs(want.time), tscale)) ||
            !(velocity_gap(s, shadow) <= 1e-10 * vscale))
            break;
        if (!free_event_matches(s, &rec->events[k], &want, tscale, vscale)) {
            const carom_event *got = &rec->events[k].event;
            CHECK_MSG(0,
                      "[%s] free run, event %d: library %s %d %d at %.17g, "
                      "brute force %s %d %d at %.17g",
                      label, k + 1, kind_name(got->kind), got->i, got->j, got->time,
                      kind_name(want.kind), want.i, want.j, want.time);
            break;
        }
    }
    free(shadow);
    return k;
}

/* Returns the number of events compared before chaos ended the comparison. */
static int run_free_case(const case_spec *c)
{
    char label[200];
    int compared = 0;
    describe_case(c, label, sizeof label);
    ref_system *s = malloc(sizeof *s);
    record_ctx *rec = calloc(1, sizeof *rec);
    if (s && rec && build_reference(c, s) && (rec->world = build_world(s, on_event_record, rec))) {
        for (int calls = 0; rec->count < FREE_EVENTS && calls < 100000; calls++)
            CHECK(carom_world_run(rec->world, INFINITY, 16) == CAROM_OK);
        CHECK_EQ_INT(rec->count, FREE_EVENTS);
        compared = compare_free_run(s, rec, label);
        carom_world_destroy(rec->world);
    } else {
        CHECK_MSG(0, "[%s] could not set up the case", label);
    }
    free(s);
    free(rec);
    return compared;
}

/* Most cases must get through all 30 events; a few very dilute periodic ones
 * amplify round-off by ~(free path / diameter) per collision and stop early. */
static void test_free_running_first_events(void)
{
    int cases = 0, complete = 0;
    for (int dim = 2; dim <= 3; dim++)
        for (int boundary = ALL_WALLS; boundary <= MIXED; boundary++)
            for (int s = 1; s < 5; s++) {
                int inelastic = s % 2;
                case_spec c = {dim,
                               case_sizes[s],
                               boundary,
                               inelastic ? 0.8 : 1.0,
                               inelastic ? 0.9 : 1.0,
                               0.0,
                               {0, 0, 0},
                               (uint64_t)(7000 + 100 * dim + 10 * boundary + s),
                               0.0};
                int compared = run_free_case(&c);
                cases++;
                complete += compared == FREE_EVENTS;
                CHECK_MSG(compared >= 1, "no event compared (seed %llu)",
                          (unsigned long long)c.seed);
            }
    printf("  free runs: %d of %d compared all %d events\n", complete, cases, FREE_EVENTS);
    CHECK_MSG(2 * complete >= cases, "only %d of %d free runs compared all %d events", complete,
              cases, FREE_EVENTS);
}

/* ------------------------------------------------------------------ */
/* Head-on collisions in closed form.                                  */

typedef struct first_events {
    carom_event events[4];
    int count;
} first_events;

static int on_event_keep(void *user, const carom_event *ev)
{
    first_events *fe = user;
    if (fe->count < 4) fe->events[fe->count] = *ev;
    fe->count++;
    return 0;
}

/* Two bodies on the x axis, in a walled box 20 long: body 0 at -2 moving at
 * u0, body 1 at +3 moving at u1 (u0 > u1). They touch when 5 - (u0 - u1) t
 * = r0 + r1, then v0' = ((m0 - e m1) u0 + (1 + e) m1 u1) / (m0 + m1) and
 * v1' = ((m1 - e m0) u1 + (1 + e) m0 u0) / (m0 + m1). */
static void check_head_on(int dim, double m0, double m1, double u0, double u1, double e)
{
    carom_world_def def = carom_default_world_def();
    first_events fe = {0};
    def.dim = dim;
    def.box = (carom_vec){20, 20, 20};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = CAROM_WALLS;
    def.restitution = e;
    def.on_event = on_event_keep;
    def.user = &fe;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    if (!w) return;
    carom_body_def b0 = carom_default_body_def(), b1 = carom_default_body_def();
    b0.position = (carom_vec){-2, 0, 0}, b0.velocity = (carom_vec){u0, 0, 0};
    b0.radius = 0.5, b0.mass = m0;
    b1.position = (carom_vec){3, 0, 0}, b1.velocity = (carom_vec){u1, 0, 0};
    b1.radius = 0.75, b1.mass = m1;
    CHECK(carom_world_add_body(w, &b0, NULL) == CAROM_OK);
    CHECK(carom_world_add_body(w, &b1, NULL) == CAROM_OK);
    double t_contact = (5.0 - 1.25) / (u0 - u1);
    CHECK(carom_world_run(w, t_contact * 1.001, -1) == CAROM_OK);
    CHECK_EQ_INT(fe.count, 1);
    CHECK_EQ_INT(fe.events[0].kind, CAROM_EVENT_PAIR);
    CHECK_EQ_INT(fe.events[0].i, 0);
    CHECK_EQ_INT(fe.events[0].j, 1);
    CHECK_NEAR(fe.events[0].time, t_contact, 1e-12 * t_contact);
    double v0 = ((m0 - e * m1) * u0 + (1 + e) * m1 * u1) / (m0 + m1);
    double v1 = ((m1 - e * m0) * u1 + (1 + e) * m0 * u0) / (m0 + m1);
    carom_body_state s0, s1;
    carom_world_get_body(w, 0, &s0);
    carom_world_get_body(w, 1, &s1);
    CHECK_NEAR(s0.velocity.x, v0, 1e-12 * fabs(u0 - u1));
    CHECK_NEAR(s1.velocity.x, v1, 1e-12 * fabs(u0 - u1));
    CHECK_NEAR(fe.events[0].impulse, fabs(m0 * (v0 - u0)), 1e-12 * m0 * fabs(u0 - u1));
    CHECK(s0.velocity.y == 0.0 && s1.velocity.y == 0.0);
    carom_world_destroy(w);
}

/* A body flying at a wall: it arrives when its surface reaches side/2 and
 * leaves with -e_wall times its speed; walls are numbered 2 axis + side. */
static void check_wall_bounce(int axis, double speed, double e_wall)
{
    carom_world_def def = carom_default_world_def();
    first_events fe = {0};
    def.box = (carom_vec){8, 10, 12};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = CAROM_WALLS;
    def.wall_restitution = e_wall;
    def.on_event = on_event_keep;
    def.user = &fe;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    if (!w) return;
    double v[3] = {0, 0, 0}, half[3] = {4, 5, 6};
    v[axis] = speed;
    carom_body_def b = carom_default_body_def();
    b.position = (carom_vec){0.5, -0.25, 1.0};
    b.velocity = (carom_vec){v[0], v[1], v[2]};
    b.radius = 0.4, b.mass = 3.0;
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    double start[3] = {0.5, -0.25, 1.0};
    double gap = speed > 0 ? half[axis] - 0.4 - start[axis] : start[axis] + half[axis] - 0.4;
    double t_hit = gap / fabs(speed);
    CHECK(carom_world_run(w, t_hit * 1.5, -1) == CAROM_OK);
    CHECK_EQ_INT(fe.count, 1);
    CHECK_EQ_INT(fe.events[0].kind, CAROM_EVENT_WALL);
    CHECK_EQ_INT(fe.events[0].i, 0);
    CHECK_EQ_INT(fe.events[0].j, 2 * axis + (speed > 0));
    CHECK_NEAR(fe.events[0].time, t_hit, 1e-12 * t_hit);
    CHECK_NEAR(fe.events[0].impulse, (1 + e_wall) * 3.0 * fabs(speed), 1e-12 * fabs(speed));
    carom_body_state st;
    carom_world_get_body(w, 0, &st);
    double after[3];
    state_velocity(&st, after);
    CHECK_NEAR(after[axis], -e_wall * speed, 1e-12 * fabs(speed));
    carom_world_destroy(w);
}

/* A ball thrown up in 2D under gravity g: it lands on the floor (wall 2) when
 * y0 + vy t - g t^2 / 2 = -side/2 + r, bounces with vy' = -e_wall (vy - g t1)
 * and lands again 2 vy' / g later (the apex stays below the ceiling). */
static void check_gravity_bounces(double vy, double e_wall)
{
    const double g = 2.0, y0 = 1.0, r = 0.5, half = 5.0;
    carom_world_def def = carom_default_world_def();
    first_events fe = {0};
    def.dim = 2;
    def.box = (carom_vec){10, 10, 10};
    def.boundary[0] = def.boundary[1] = CAROM_WALLS;
    def.gravity = (carom_vec){0, -g, 0};
    def.wall_restitution = e_wall;
    def.on_event = on_event_keep;
    def.user = &fe;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    if (!w) return;
    carom_body_def b = carom_default_body_def();
    b.position = (carom_vec){-0.3, y0, 0};
    b.velocity = (carom_vec){0.05, vy, 0};
    b.radius = r;
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    double drop = y0 + half - r;
    double t1 = (vy + sqrt(vy * vy + 2.0 * g * drop)) / g;
    double up = e_wall * (g * t1 - vy), t2 = t1 + 2.0 * up / g;
    CHECK_EQ_INT(carom_world_run(w, t2 + 0.01, 100000), CAROM_OK);
    CHECK_NEAR(carom_world_time(w), t2 + 0.01, 0.0);
    CHECK_EQ_INT(fe.count, 2);
    for (int k = 0; k < 2 && k < fe.count; k++) {
        CHECK_EQ_INT(fe.events[k].kind, CAROM_EVENT_WALL);
        CHECK_EQ_INT(fe.events[k].j, CAROM_WALL_Y_MINUS);
        CHECK_NEAR(fe.events[k].time, k == 0 ? t1 : t2, 1e-12 * t2);
    }
    carom_world_destroy(w);
}

static void test_closed_form_collisions(void)
{
    check_head_on(3, 1.0, 1.0, 1.0, -1.0, 1.0);
    check_head_on(3, 1.0, 3.0, 2.0, 0.0, 1.0);
    check_head_on(2, 2.5, 0.5, 0.3, -1.7, 0.8);
    check_head_on(2, 1.0, 4.0, 1.0, 0.5, 0.0);
    for (int axis = 0; axis < 3; axis++) {
        check_wall_bounce(axis, 1.5, 1.0);
        check_wall_bounce(axis, -0.7, 0.9);
    }
    check_gravity_bounces(0.0, 1.0);
    check_gravity_bounces(1.5, 0.9);
}

int main(void)
{
    RUN(test_closed_form_collisions);
    RUN(test_resync_2d);
    RUN(test_resync_3d);
    RUN(test_resync_neighbour_lists);
    RUN(test_resync_gravity);
    RUN(test_free_running_first_events);
    return CHECK_SUMMARY();
}
