/* test_accel_crosscheck.c — carom's event stream under per-body accelerations
 * (issue 12) against an independent brute-force O(N^2) reference written here.
 *
 * Every body flies under world gravity plus its own constant acceleration,
 * so between events its path is a parabola and a pair whose accelerations
 * differ meets at a root of a quartic. The reference keeps all bodies at
 * one time `now` and finds the next event by trying every pair (and, on
 * periodic axes, the images next to the nearest one) and every wall, with
 * no algebra at all: the gap function
 *     pair:  f(t) = |dr + dv t + da t^2 / 2|^2 - sigma^2
 *     wall:  f(t) = (side/2 - r) -+ x(t)          (positive while inside)
 * is sampled densely in long double (steps of at most 1/20 of a diameter of
 * relative motion), and the first entry is bracketed either by a sample
 * where f <= 0 or by a local minimum (f' changing sign from - to +, itself
 * found by bisecting f') where f <= 0, then refined by bisection. Collisions
 * are frictionless along the line of centres with restitution e (seed 004,
 * case 2); a wall reverses the normal velocity times the wall restitution.
 *
 * Chaos amplifies round-off, so after each matched event the reference is
 * re-synchronised to the library's state (as test_crosscheck does for free
 * flight): from the very same state, the library's next event must be the
 * one brute force finds (kind, bodies, time within 1e-9 of the time scale)
 * and the velocities right after it must obey the law above. Cases: N = 2,
 * 3, 5, 8, 12; 2D and 3D; all walls, all periodic, and [periodic, walls,
 * periodic]; own accelerations drawn as zero, shared by several bodies (the
 * quadratic kernel) or all different; with and without world gravity;
 * e = 1 and e = 0.8 (walls 0.9); cell lists and forced neighbour lists.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"

#define MAX_BODIES 16
#define TARGET_EVENTS 150
#define NO_EVENT (-1)
#define MAX_HORIZONS 100000
#define MAX_STEPS 400000L

typedef long double real;

static const double PI = 3.14159265358979323846;

/* ------------------------------------------------------------------ */
/* The reference system: every body at the same time `now`.           */

typedef struct ref_system {
    int dim, n;
    double side[3];
    int periodic[3];
    double gravity[3];
    double e, e_wall;
    double now;
    double x[MAX_BODIES][3], v[MAX_BODIES][3];
    double own[MAX_BODIES][3]; /* the body's own acceleration; its total is gravity + own */
    double r[MAX_BODIES], m[MAX_BODIES];
    double shell; /* not physics: the library world's neighbour_shell */
} ref_system;

typedef struct ref_event {
    double time; /* absolute once found; INFINITY with kind NO_EVENT */
    int kind;    /* CAROM_EVENT_PAIR, CAROM_EVENT_WALL or NO_EVENT */
    int i, j;    /* pair: i < j; wall: body i, wall j = 2 axis + side */
    double impulse;
} ref_event;

static double total_acceleration(const ref_system *s, int b, int k)
{
    return k < s->dim ? s->gravity[k] + s->own[b][k] : 0.0;
}

static double nearest_image(const ref_system *s, int axis, double d)
{
    if (!s->periodic[axis]) return d;
    return d - s->side[axis] * nearbyint(d / s->side[axis]);
}

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* ------------------------------------------------------------------ */
/* Gap functions and their first entry by sampling and bisection.      */

/* A relative motion p + q t + s t^2 / 2 (pair: the separation, wall: one
 * coordinate) and what "inside" means for it. */
typedef struct gap_fn {
    int is_pair;
    real p[3], q[3], s[3]; /* wall: component 0 only */
    real sigma;            /* pair: sum of radii */
    real limit, sign;      /* wall: f = limit - sign * x(t) */
} gap_fn;

static void gap_eval(const gap_fn *g, real t, real *f, real *df)
{
    if (g->is_pair) {
        real d2 = 0.0L, ddot = 0.0L;
        for (int k = 0; k < 3; k++) {
            real d = g->p[k] + g->q[k] * t + 0.5L * g->s[k] * t * t;
            real u = g->q[k] + g->s[k] * t;
            d2 += d * d;
            ddot += d * u;
        }
        *f = d2 - g->sigma * g->sigma;
        *df = 2.0L * ddot;
    } else {
        real x = g->p[0] + g->q[0] * t + 0.5L * g->s[0] * t * t;
        *f = g->limit - g->sign * x;
        *df = -g->sign * (g->q[0] + g->s[0] * t);
    }
}

/* With f(lo) > 0 >= f(hi) (which = 0), f'(lo) < 0 <= f'(hi) (which = 1) or
 * f'(lo) > 0 >= f'(hi) (which = 2): the sign change, to the last bit of
 * long double. */
static real bisect(const gap_fn *g, real lo, real hi, int which)
{
    for (int it = 0; it < 200; it++) {
        real mid = 0.5L * (lo + hi), f, df;
        if (!(mid > lo && mid < hi)) break;
        gap_eval(g, mid, &f, &df);
        int below = which == 0 ? f <= 0.0L : which == 1 ? df >= 0.0L : df <= 0.0L;
        if (below)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* The first time in [0, horizon] at which f enters (f > 0 before, <= 0
 * then), or INFINITY. Overlapping and approaching now (Bannerman et al.
 * 2013): 0. Overlapping (by round-off) and separating: no entry until f
 * has been > 0, which may happen inside one sample step (a low bounce off
 * a floor): a local maximum of f there (f' from + to -) above 0 counts. */
static real first_entry(const gap_fn *g, real horizon, real travel, real scale)
{
    real f0, d0;
    gap_eval(g, 0.0L, &f0, &d0);
    if (f0 <= 0.0L && d0 < 0.0L) return 0.0L;
    long steps = 16 + (long)ceill(travel / (0.05L * scale));
    if (steps > MAX_STEPS) steps = MAX_STEPS;
    int outside = f0 > 0.0L;
    real t0 = 0.0L;
    for (long k = 1; k <= steps; k++) {
        real t1 = horizon * (real)k / (real)steps, f1, d1;
        gap_eval(g, t1, &f1, &d1);
        if (!outside && d0 > 0.0L && d1 <= 0.0L) {
            real tm = bisect(g, t0, t1, 2), fm, dm;
            gap_eval(g, tm, &fm, &dm);
            if (fm > 0.0L && f1 <= 0.0L) return bisect(g, tm, t1, 0);
            if (fm > 0.0L) outside = 1;
        }
        if (outside && f1 <= 0.0L) return bisect(g, t0, t1, 0);
        if (outside && d0 < 0.0L && d1 >= 0.0L) {
            real tm = bisect(g, t0, t1, 1), fm, dm;
            gap_eval(g, tm, &fm, &dm);
            if (fm <= 0.0L) return bisect(g, t0, tm, 0);
        }
        if (f1 > 0.0L) outside = 1;
        t0 = t1, f0 = f1, d0 = d1;
    }
    return (real)INFINITY;
}

/* Earliest contact of a and b within the horizon, over the nearest image and its neighbours. */
static real pair_time(const ref_system *s, int a, int b, real horizon)
{
    gap_fn g = {1, {0}, {0}, {0}, (real)s->r[a] + (real)s->r[b], 0, 0};
    real dr0[3] = {0, 0, 0}, qn = 0.0L, sn = 0.0L;
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int k = 0; k < s->dim; k++) {
        dr0[k] = nearest_image(s, k, s->x[a][k] - s->x[b][k]);
        g.q[k] = (real)s->v[a][k] - (real)s->v[b][k];
        g.s[k] = (real)total_acceleration(s, a, k) - (real)total_acceleration(s, b, k);
        qn += g.q[k] * g.q[k], sn += g.s[k] * g.s[k];
        if (s->periodic[k]) lo[k] = -1, hi[k] = 1;
    }
    real travel = sqrtl(qn) * horizon + 0.5L * sqrtl(sn) * horizon * horizon, best = (real)INFINITY;
    for (int n0 = lo[0]; n0 <= hi[0]; n0++)
        for (int n1 = lo[1]; n1 <= hi[1]; n1++)
            for (int n2 = lo[2]; n2 <= hi[2]; n2++) {
                int n[3] = {n0, n1, n2};
                real d2 = 0.0L;
                for (int k = 0; k < 3; k++) {
                    g.p[k] = dr0[k] + n[k] * (real)s->side[k];
                    d2 += g.p[k] * g.p[k];
                }
                if (sqrtl(d2) - travel > g.sigma * 1.000001L) continue; /* out of reach */
                real t = first_entry(&g, horizon, travel, g.sigma);
                if (t < best) best = t;
            }
    return best;
}

/* When body b's surface reaches wall 2 axis + side, within the horizon. */
static real wall_time(const ref_system *s, int b, int axis, int side, real horizon)
{
    gap_fn g = {0, {s->x[b][axis]}, {s->v[b][axis]}, {total_acceleration(s, b, axis)}, 0, 0, 0};
    g.limit = 0.5L * s->side[axis] - s->r[b];
    g.sign = side ? 1.0L : -1.0L;
    real travel = fabsl(g.q[0]) * horizon + 0.5L * fabsl(g.s[0]) * horizon * horizon;
    return first_entry(&g, horizon, travel, 2.0L * s->r[b]);
}

static void ref_drift(ref_system *s, double dt)
{
    for (int b = 0; b < s->n; b++)
        for (int k = 0; k < s->dim; k++) {
            real a = total_acceleration(s, b, k);
            real x = (real)s->x[b][k] + (real)s->v[b][k] * dt + 0.5L * a * dt * dt;
            s->v[b][k] = (double)((real)s->v[b][k] + a * dt);
            s->x[b][k] = nearest_image(s, k, (double)x);
        }
    s->now += dt;
}

static double max_speed(const ref_system *s)
{
    double vmax = 0.0;
    for (int b = 0; b < s->n; b++) vmax = fmax(vmax, norm3(s->v[b]));
    return vmax;
}

static double max_acceleration(const ref_system *s)
{
    double amax = 0.0;
    for (int b = 0; b < s->n; b++) {
        double a[3] = {total_acceleration(s, b, 0), total_acceleration(s, b, 1),
                       total_acceleration(s, b, 2)};
        amax = fmax(amax, norm3(a));
    }
    return amax;
}

static double shortest_side(const ref_system *s, int periodic_only)
{
    double shortest = INFINITY;
    for (int k = 0; k < s->dim; k++)
        if ((!periodic_only || s->periodic[k]) && s->side[k] < shortest) shortest = s->side[k];
    return shortest;
}

/* A span over which no pair moves by more than a length L relative to each
 * other: 2 vmax t + amax t^2 <= L. With L half the shortest periodic side,
 * only the nearest image and its neighbours can be reached. */
static double reach_horizon(const ref_system *s, double length)
{
    double v = max_speed(s), a = max_acceleration(s);
    if (v == 0.0 && a == 0.0) return INFINITY;
    return length / (v + sqrt(v * v + a * length));
}

/* The earliest event within the horizon, time relative to now. */
static ref_event earliest_event(const ref_system *s, double horizon)
{
    ref_event best = {INFINITY, NO_EVENT, -1, -1, 0.0};
    for (int a = 0; a < s->n; a++)
        for (int k = 0; k < s->dim; k++) {
            if (s->periodic[k]) continue;
            for (int side = 0; side < 2; side++) {
                double t = (double)wall_time(s, a, k, side, fmin(horizon, best.time));
                if (t < best.time) best = (ref_event){t, CAROM_EVENT_WALL, a, 2 * k + side, 0.0};
            }
        }
    for (int a = 0; a < s->n; a++)
        for (int b = a + 1; b < s->n; b++) {
            double t = (double)pair_time(s, a, b, fmin(horizon, best.time));
            if (t < best.time || (t == best.time && best.kind == CAROM_EVENT_WALL))
                best = (ref_event){t, CAROM_EVENT_PAIR, a, b, 0.0};
        }
    return best;
}

/* Finds the next event and brings the reference to its time. */
static ref_event ref_next_event(ref_system *s)
{
    for (int h = 0; h < MAX_HORIZONS; h++) {
        double periodic = shortest_side(s, 1), horizon = reach_horizon(s, shortest_side(s, 0));
        if (periodic < INFINITY) horizon = fmin(horizon, reach_horizon(s, 0.5 * periodic));
        if (!(horizon < INFINITY)) break;
        ref_event ev = earliest_event(s, horizon);
        if (ev.time <= horizon) {
            ref_drift(s, ev.time);
            ev.time = s->now;
            return ev;
        }
        ref_drift(s, horizon);
    }
    return (ref_event){INFINITY, NO_EVENT, -1, -1, 0.0};
}

static void ref_apply(ref_system *s, ref_event *ev)
{
    int i = ev->i, j = ev->j;
    if (ev->kind == CAROM_EVENT_WALL) {
        int axis = j / 2;
        double u = s->v[i][axis];
        ev->impulse = (1.0 + s->e_wall) * s->m[i] * fabs(u);
        s->v[i][axis] = -s->e_wall * u;
        return;
    }
    double n[3] = {0, 0, 0}, u = 0.0;
    for (int k = 0; k < s->dim; k++) n[k] = nearest_image(s, k, s->x[i][k] - s->x[j][k]);
    double len = norm3(n);
    for (int k = 0; k < 3; k++) {
        n[k] /= len;
        u += (s->v[i][k] - s->v[j][k]) * n[k];
    }
    double impulse = -(1.0 + s->e) * s->m[i] * s->m[j] / (s->m[i] + s->m[j]) * u;
    for (int k = 0; k < s->dim; k++) {
        s->v[i][k] += impulse / s->m[i] * n[k];
        s->v[j][k] -= impulse / s->m[j] * n[k];
    }
    ev->impulse = impulse;
}

/* ------------------------------------------------------------------ */
/* Random cases.                                                       */

enum { ALL_WALLS, ALL_PERIODIC, MIXED };

typedef struct case_spec {
    int dim, n, boundary, inelastic, gravity;
    uint64_t seed;
    double shell;
} case_spec;

static void describe_case(const case_spec *c, char *text, size_t size)
{
    static const char *names[] = {"walls", "periodic", "mixed"};
    snprintf(text, size, "dim %d, N %d, %s, %s, %s, seed %llu, shell %g", c->dim, c->n,
             names[c->boundary], c->inelastic ? "e 0.8/0.9" : "elastic",
             c->gravity ? "gravity" : "no gravity", (unsigned long long)c->seed, c->shell);
}

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

/* Own accelerations: a quarter none, a quarter one shared vector (pairs
 * among those keep the quadratic kernel), the rest each its own. */
static void draw_accelerations(ref_system *s, carom_rng *rng)
{
    double shared[3] = {0, 0, 0};
    for (int k = 0; k < s->dim; k++) shared[k] = 0.8 * carom_rng_normal(rng);
    for (int b = 0; b < s->n; b++) {
        double pick = carom_rng_uniform(rng);
        for (int k = 0; k < s->dim; k++)
            s->own[b][k] = pick < 0.25 ? 0.0 : pick < 0.5 ? shared[k] : 0.8 * carom_rng_normal(rng);
    }
}

static int build_reference(const case_spec *c, ref_system *s)
{
    carom_rng rng = carom_rng_seed(c->seed);
    memset(s, 0, sizeof *s);
    s->dim = c->dim, s->n = c->n;
    s->e = c->inelastic ? 0.8 : 1.0;
    s->e_wall = c->inelastic ? 0.9 : 1.0;
    double volume = 0.0, rmax = 0.0;
    for (int b = 0; b < s->n; b++) {
        s->r[b] = 0.3 + 0.3 * carom_rng_uniform(&rng);
        s->m[b] = 0.5 + 1.5 * carom_rng_uniform(&rng);
        volume += c->dim == 2 ? PI * s->r[b] * s->r[b] : 4.0 / 3.0 * PI * pow(s->r[b], 3);
        rmax = fmax(rmax, s->r[b]);
    }
    double fraction =
        c->dim == 2 ? 0.08 + 0.22 * carom_rng_uniform(&rng) : 0.05 + 0.15 * carom_rng_uniform(&rng);
    double side = pow(volume / fraction, 1.0 / c->dim);
    for (int k = 0; k < 3; k++) {
        s->periodic[k] = c->boundary == ALL_PERIODIC || (c->boundary == MIXED && k != 1);
        s->side[k] = fmax(side * (0.85 + 0.3 * carom_rng_uniform(&rng)), 6.0 * rmax * 1.001);
    }
    /* gravity only along walled axes: y, and z in 3D with all walls */
    if (c->gravity) {
        s->gravity[0] = s->periodic[0] ? 0.0 : 0.3;
        s->gravity[1] = -1.0;
        s->gravity[2] = c->dim == 3 && !s->periodic[2] ? -0.5 : 0.0;
    }
    for (int b = 0; b < s->n; b++)
        for (int k = 0; k < c->dim; k++) s->v[b][k] = carom_rng_normal(&rng);
    draw_accelerations(s, &rng);
    s->shell = c->shell;
    return place_bodies(s, &rng);
}

static carom_world *build_world(const ref_system *s, carom_event_callback on_event, void *user)
{
    carom_world_def def = carom_default_world_def();
    def.dim = s->dim;
    def.box = (carom_vec){s->side[0], s->side[1], s->side[2]};
    for (int k = 0; k < 3; k++) def.boundary[k] = s->periodic[k] ? CAROM_PERIODIC : CAROM_WALLS;
    def.gravity = (carom_vec){s->gravity[0], s->gravity[1], s->gravity[2]};
    def.restitution = s->e;
    def.wall_restitution = s->e_wall;
    def.collapse_time = -1.0; /* the TC model off: the reference applies e to every collision */
    def.neighbour_shell = s->shell;
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
        body.acceleration = (carom_vec){s->own[b][0], s->own[b][1], s->own[b][2]};
        body.radius = s->r[b];
        body.mass = s->m[b];
        int32_t id = -1;
        carom_body_state got;
        st = carom_world_add_body(w, &body, &id);
        CHECK_MSG(st == CAROM_OK && id == b, "add body %d: %s", b, carom_world_message(w));
        if (st != CAROM_OK || carom_world_get_body(w, b, &got) != CAROM_OK) {
            carom_world_destroy(w);
            return NULL;
        }
        /* the state reports the own acceleration, without gravity */
        CHECK(got.acceleration.x == s->own[b][0] && got.acceleration.y == s->own[b][1] &&
              got.acceleration.z == (s->dim == 3 ? s->own[b][2] : 0.0));
    }
    return w;
}

/* ------------------------------------------------------------------ */
/* Event-by-event comparison with re-synchronisation.                  */

typedef struct resync_ctx {
    carom_world *world;
    ref_system ref;
    const char *label;
    double time_scale, length_scale, impulse_scale;
    int matched, target, stopped, mismatches;
} resync_ctx;

static const char *kind_name(int kind)
{
    return kind == CAROM_EVENT_PAIR   ? "pair"
           : kind == CAROM_EVENT_WALL ? "wall"
           : kind == CAROM_EVENT_REST ? "rest"
                                      : "none";
}

static int stop_with(resync_ctx *ctx, const carom_event *got, const ref_event *want,
                     const char *what)
{
    fprintf(stderr,
            "accel crosscheck [%s]: event %d: %s\n"
            "  library:     %s %d %d at t = %.17g (impulse %.17g)\n"
            "  brute force: %s %d %d at t = %.17g (impulse %.17g)\n",
            ctx->label, ctx->matched + 1, what, kind_name(got->kind), got->i, got->j, got->time,
            got->impulse, kind_name(want->kind), want->i, want->j, want->time, want->impulse);
    ctx->stopped = 1;
    ctx->mismatches++;
    return 0;
}

static void resync_reference(resync_ctx *ctx, double t)
{
    ref_system *s = &ctx->ref;
    for (int b = 0; b < s->n; b++) {
        carom_body_state st;
        carom_world_get_body(ctx->world, b, &st);
        s->x[b][0] = st.position.x, s->x[b][1] = st.position.y, s->x[b][2] = st.position.z;
        s->v[b][0] = st.velocity.x, s->v[b][1] = st.velocity.y, s->v[b][2] = st.velocity.z;
    }
    s->now = t;
}

/* The first body whose position or velocity differs from the reference's by more than 1e-9 of the
 * scale. */
static int first_body_off(const resync_ctx *ctx)
{
    const ref_system *s = &ctx->ref;
    double xtol = 1e-9 * ctx->length_scale, vtol = 1e-9 * fmax(max_speed(s), 1e-300);
    for (int b = 0; b < s->n; b++) {
        carom_body_state st;
        if (carom_world_get_body(ctx->world, b, &st) != CAROM_OK) return b;
        double x[3] = {st.position.x, st.position.y, st.position.z};
        double v[3] = {st.velocity.x, st.velocity.y, st.velocity.z};
        for (int k = 0; k < s->dim; k++)
            if (!(fabs(nearest_image(s, k, x[k] - s->x[b][k])) <= xtol) ||
                !(fabs(v[k] - s->v[b][k]) <= vtol))
                return b;
    }
    return -1;
}

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
    /* a grazing collision's impulse is small and as uncertain as its time: scale by m v */
    if (!(fabs(got->impulse - want.impulse) <= 1e-9 * fmax(want.impulse, ctx->impulse_scale)))
        return stop_with(ctx, got, &want, "different impulse");
    int body = first_body_off(ctx);
    if (body >= 0) {
        fprintf(stderr, "accel crosscheck [%s]: body %d differs after the event\n", ctx->label,
                body);
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

/* Runs the library in bursts until `target` events are compared; fails if the clock and the count
 * stand still. */
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
            CHECK_MSG(0, "[%s] stuck at t = %.17g after %d matched events", ctx->label, now,
                      ctx->matched);
            return;
        }
    }
}

static int run_case(const case_spec *c)
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
    ctx->target = c->inelastic && 20 * c->n < TARGET_EVENTS ? 20 * c->n : TARGET_EVENTS;
    ctx->length_scale = fmax(ctx->ref.side[0], fmax(ctx->ref.side[1], ctx->ref.side[2]));
    ctx->time_scale = reach_horizon(&ctx->ref, ctx->length_scale);
    ctx->impulse_scale = 0.5 * max_speed(&ctx->ref); /* the lightest mass is 0.5 */
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

static const int case_sizes[] = {2, 3, 5, 8, 12};

static void run_family(int dim, int gravity, double shell, uint64_t seed_base)
{
    int cases = 0;
    long events = 0;
    for (int s = 0; s < 5; s++)
        for (int boundary = ALL_WALLS; boundary <= MIXED; boundary++)
            for (int inelastic = 0; inelastic < 2; inelastic++) {
                if (gravity && boundary == ALL_PERIODIC)
                    continue; /* gravity only along walled axes */
                case_spec c = {
                    dim,      case_sizes[s],
                    boundary, inelastic,
                    gravity,  seed_base + (uint64_t)(100 * s + 10 * boundary + inelastic),
                    shell};
                events += run_case(&c);
                cases++;
            }
    printf("  dim %d, %s, shell %g: %ld events matched over %d cases\n", dim,
           gravity ? "gravity" : "no gravity", shell, events, cases);
}

static void test_own_accelerations_2d(void) { run_family(2, 0, 0.0, 120000); }
static void test_own_accelerations_3d(void) { run_family(3, 0, 0.0, 130000); }
static void test_gravity_and_own_accelerations(void)
{
    run_family(2, 1, 0.0, 140000);
    run_family(3, 1, 0.0, 150000);
}
/* The library's choice of neighbour lists over cell lists must change no event. */
static void test_forced_neighbour_lists(void)
{
    run_family(3, 0, 0.3, 160000);
    run_family(2, 0, 0.2, 170000);
}

/* The reference's own finder on a case it must not miss: a grazing pass
 * whose minimum gap is 1e-6 of sigma inside contact, between sample
 * points, is found (a mutation of the minimum search fails this). */
static void test_reference_finds_grazing_contact(void)
{
    gap_fn g = {1, {-10.0L, 1.0L - 1e-6L, 0}, {1.0L, 0, 0}, {0, 0, 0}, 1.0L, 0, 0};
    real t = first_entry(&g, 20.0L, 20.0L, 1e6L); /* coarse sampling: 16 steps */
    real exact = 10.0L - sqrtl(1.0L - (1.0L - 1e-6L) * (1.0L - 1e-6L));
    CHECK_NEAR((double)t, (double)exact, 1e-12);
    /* a quartic pass (relative acceleration) that misses by 1e-6: no entry */
    gap_fn miss = {1, {-2.0L, 1.0L + 1e-6L, 0}, {0, 0, 0}, {1.0L, 0, 0}, 1.0L, 0, 0};
    CHECK(first_entry(&miss, 10.0L, 50.0L, 1.0L) == (real)INFINITY);
    /* the same pass 1e-6 inside: an entry just before x = 0, at t = 2 */
    miss.p[1] = 1.0L - 1e-6L;
    real hit = first_entry(&miss, 10.0L, 50.0L, 1.0L);
    CHECK(hit > 1.99L && hit < 2.0L);
    /* a low bounce off a floor inside one sample step, starting 1e-15
     * through it by round-off: up for 0.02, back at t = 0.02 */
    gap_fn floor = {0, {-1e-15L}, {0.01L}, {-1.0L}, 0, 0.0L, -1.0L};
    real back = first_entry(&floor, 10.0L, 1.0L, 1e6L);
    CHECK(back > 0.0199L && back < 0.0201L);
}

int main(void)
{
    RUN(test_reference_finds_grazing_contact);
    RUN(test_own_accelerations_2d);
    RUN(test_own_accelerations_3d);
    RUN(test_gravity_and_own_accelerations);
    RUN(test_forced_neighbour_lists);
    return CHECK_SUMMARY();
}
