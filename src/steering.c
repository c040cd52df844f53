/* steering.c — steered bodies: the safety filter of seed 003 (filter.c)
 * inside the event-driven world.
 *
 * A steered body's own acceleration, as the player sets it, is kept apart
 * (its input); what the body flies with is the filter's decision. A
 * decision filters the input (plus world gravity: the filter sees the total
 * acceleration, and the own acceleration set is the decision less gravity)
 * against the boundary ((s - r) / L for a container whose distance s has
 * the Lipschitz bound L: 1-Lipschitz, and >= 0 exactly where s >= r; or the
 * nearest box wall less the radius; less filter_skin either way) and
 * against every other steered body (the gap less that body's reach,
 * filter_reach: each takes its share), and holds the result for the filter's
 * window dt. Decisions come at each carom_world_advance, at a hold's end
 * (so no acceleration is held longer than dt, whatever the advance's length)
 * and, exactly inside a hold, when the body's v / v_max reaches sigma (the
 * crossing event, EVENT_FILTER: v / v_max reaches the level where lambda
 * has grown by 1/8 since the last decision, or fallen by 1/8), so the filter
 * acts when it is needed rather than at the next window start.
 *
 * Why this keeps the guarantee of filter.c with decisions at any times: a
 * decision that lets the input through (lambda < 1) covers every motion
 * with |a| <= a_max for up to dt, so deciding again earlier is safe; a full
 * braking decision is held to its end (a cut soft stop would not stop).
 * For a pair, filter_reach(v) bounds how far a steered body can go from any
 * moment on (through the rest of its hold and its braking after), so each
 * body's share (the gap less the other's reach) stays valid whenever the
 * other decides. What is guaranteed: steered bodies that start with room to
 * brake (filter.c) never touch the boundary or one another, as long as
 * nothing else changes their motion. Not guaranteed: a free or kinematic
 * body ramming a steered one, velocities or positions set from outside, a
 * caller's distance function that breaks its stated Lipschitz bound.
 *
 * The crossing time is found by conservative advancement on F(s) =
 * clearance(x(s)) - Q(|v(s)|), Q(v) the clearance at which v / v_max is the
 * next level (the boundary alone: other steered bodies move on their own):
 * steps of F / K, K a bound on |dF/ds| over the hold, can never pass a root,
 * and the event comes when F <= filter_skin (before the true crossing by at
 * most that much clearance). Steered bodies are few: each decision looks at
 * every other steered body (O(n) per decision).
 */
#include "steering.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "boundary.h"
#include "container.h"
#include "filter.h"
#include "memory.h"
#include "motion.h"
#include "schedule.h"
#include "world.h"

enum { CROSSING_SEARCHES_PER_HOLD = 24, ADVANCEMENT_STEPS = 8192 };
static const double LEVEL = 0.125; /* the growth of lambda between decisions inside a hold */

static const double no_field[3] = {0.0, 0.0, 0.0};

steered_body *steering_find(const carom_world *w, int32_t id)
{
    const steering *s = &w->steering;
    int32_t lo = 0, hi = s->count;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (s->bodies[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < s->count && s->bodies[lo].id == id ? &s->bodies[lo] : NULL;
}

/* Body slot's position and velocity at time t (from its time stamp on). */
static void state_of_at(const carom_world *w, int32_t slot, double t, double x[3], double v[3])
{
    motion_state_at(&w->hot[slot], w->has_gravity ? motion_gravity(w, slot) : no_field, w->has_gravity, t, x, v);
}

static void state_of(const carom_world *w, int32_t slot, double x[3], double v[3])
{
    state_of_at(w, slot, w->clock, x, v);
}

/* ---- the boundary as the filter sees it ------------------------------------ */

/* The scale of the world's positions, for the skin. */
static double position_scale(const carom_world *w)
{
    double scale = 0.0;
    for (int a = 0; a < w->dim; a++) scale = fmax(scale, w->half[a]);
    return scale;
}

/* The skin kept from the boundary: filter_skin of the positions' scale; a
 * container with a caller's function declares contacts up to 2^-30 of its
 * size early (boundary.c), so there the skin is four times that. */
static double boundary_skin(const carom_world *w)
{
    double skin = filter_skin(position_scale(w));
    if (w->container && w->container->has_function) {
        const container_node *root = &w->container->nodes[w->container->node_count - 1];
        double size = 0.0;
        for (int a = 0; a < w->dim; a++) size = fmax(size, root->upper[a] - root->lower[a]);
        skin = fmax(skin, 0x1p-28 * size);
    }
    return skin;
}

/* The clearance of a body of radius r at x to the boundary (less the skin)
 * and its inward normal. */
static double boundary_clearance(const carom_world *w, const double x[3], double r, double normal[3])
{
    double skin = boundary_skin(w);
    normal[0] = normal[1] = normal[2] = 0.0;
    if (w->container) { /* (s - r) / L: 1-Lipschitz, and >= 0 exactly where s >= r */
        double d = container_distance(w->container, x, normal);
        return (d - r) / w->container->lipschitz - skin;
    }
    double least = 1e300; /* no walls (periodic on every axis): far, but finite */
    for (int a = 0; a < w->dim; a++) {
        if (w->periodic[a]) continue;
        double c = w->half[a] - r - fabs(x[a]);
        if (c < least) {
            least = c;
            normal[0] = normal[1] = normal[2] = 0.0;
            normal[a] = x[a] > 0.0 ? -1.0 : 1.0;
        }
    }
    return least < 1e300 ? least - skin : least;
}

/* ---- the least clearance on a flight ------------------------------------------ */

/* The box walls: on each axis the farthest the parabola goes from the
 * centre over [t0, t1] is at an end or at its turning point. */
static double least_in_box(const carom_world *w, int32_t slot, double t0, double t1)
{
    double x0[3], v0[3], x1[3], v1[3];
    state_of_at(w, slot, t0, x0, v0);
    state_of_at(w, slot, t1, x1, v1);
    const double *g = w->has_gravity ? motion_gravity(w, slot) : no_field;
    double least = INFINITY, r = w->hot[slot].radius;
    for (int a = 0; a < w->dim; a++) {
        if (w->periodic[a]) continue;
        double farthest = fmax(fabs(x0[a]), fabs(x1[a]));
        if (g[a] != 0.0) {
            double turn = -v0[a] / g[a]; /* after t0 */
            if (turn > 0.0 && turn < t1 - t0) farthest = fmax(farthest, fabs(x0[a] + 0.5 * v0[a] * turn));
        }
        least = fmin(least, w->half[a] - r - farthest);
    }
    return least;
}

/* Does a body of radius radius + delta on body slot's path from t0 touch
 * the container before t1? (Exact for carom's shapes, boundary.c; a search
 * that ran out of budget counts as a touch.) */
static int touches_within(const carom_world *w, int32_t slot, double t0, double t1, double delta)
{
    double x[3], v[3], s;
    state_of_at(w, slot, t0, x, v);
    const double *g = w->has_gravity ? motion_gravity(w, slot) : no_field;
    int found = boundary_contact_time(w->container, x, v, g, w->hot[slot].radius + delta, t1 - t0, &s);
    return found != BOUNDARY_FOUND || s < t1 - t0;
}

/* The least clearance of body slot on [t0, t1]: in a container, the largest
 * delta such that a body grown by delta does not touch the boundary on the
 * way, by bisection between the least at the ends (an upper bound) and what
 * the Lipschitz bound allows (a lower one); the lower end of the bracket is
 * returned, so it is never above the true least and at most tol below it. */
static double least_on_flight(const carom_world *w, int32_t slot, double t0, double t1, double tol)
{
    if (!w->container) return least_in_box(w, slot, t0, t1);
    double x0[3], v0[3], x1[3], v1[3], r = w->hot[slot].radius;
    state_of_at(w, slot, t0, x0, v0);
    state_of_at(w, slot, t1, x1, v1);
    double hi = fmin(container_distance(w->container, x0, NULL), container_distance(w->container, x1, NULL)) - r;
    double speed = fmax(sqrt(v0[0] * v0[0] + v0[1] * v0[1] + v0[2] * v0[2]),
                        sqrt(v1[0] * v1[0] + v1[1] * v1[1] + v1[2] * v1[2]));
    double lo = fmax(hi - w->container->lipschitz * speed * (t1 - t0), -0.5 * r);
    if (!(t1 > t0) || !(lo < hi)) return hi;
    for (int step = 0; step < 80 && hi - lo > tol; step++) {
        double mid = 0.5 * (lo + hi);
        if (!(mid > lo && mid < hi)) break;
        if (touches_within(w, slot, t0, t1, mid)) hi = mid;
        else lo = mid;
    }
    return lo;
}

/* The least clearance of body slot from max(its time stamp, from) to t. */
static double least_since(const carom_world *w, int32_t slot, double from, double t)
{
    double t0 = fmax(w->hot[slot].t, from);
    if (!(t >= t0)) return INFINITY;
    return least_on_flight(w, slot, t0, t, 0x1p-40 * position_scale(w));
}

void steering_note_flight(carom_world *w, int32_t slot, double t)
{
    steered_body *b = steering_find(w, w->id_of[slot]);
    if (b) b->least = fmin(b->least, least_since(w, slot, b->least_from, t));
}

carom_status carom_world_get_least_clearance(const carom_world *w, int32_t id, double *least)
{
    if (!w || !least) return CAROM_INVALID_ARGUMENT;
    if (id < 0 || id >= w->count) return CAROM_NOT_FOUND;
    const steered_body *b = steering_find(w, id);
    if (!b) return CAROM_NOT_FOUND;
    *least = fmin(b->least, least_since(w, w->slot_of[id], b->least_from, w->clock));
    return CAROM_OK;
}

/* ---- decisions ----------------------------------------------------------------- */


/* The constraints of steered body k now: the boundary, then each other steered body. */
static int gather_constraints(const carom_world *w, int32_t k, const double x[3], filter_constraint *out)
{
    const steering *s = &w->steering;
    int32_t slot = w->slot_of[s->bodies[k].id];
    double r = w->hot[slot].radius, skin = filter_skin(position_scale(w));
    int m = 0;
    out[m].clearance = boundary_clearance(w, x, r, out[m].normal);
    m++;
    for (int32_t j = 0; j < s->count; j++) {
        if (j == k) continue;
        int32_t other = w->slot_of[s->bodies[j].id];
        double y[3], u[3], d[3];
        state_of(w, other, y, u);
        for (int a = 0; a < 3; a++) {
            d[a] = x[a] - y[a];
            if (w->periodic[a]) d[a] -= w->side[a] * nearbyint(d[a] / w->side[a]);
        }
        double distance = filter_length(d), gap = distance - r - w->hot[other].radius;
        out[m].clearance = gap - skin - filter_reach(&s->bodies[j].def, filter_length(u));
        for (int a = 0; a < 3; a++) out[m].normal[a] = distance > 0.0 ? d[a] / distance : 0.0;
        m++;
    }
    return m;
}

/* The v / v_max at which the law's lambda is lambda (the linear law's
 * stands in for the directional and backup laws'; the naive law's one
 * level is 1). */
static double level_of(const carom_filter_def *def, double lambda)
{
    if (def->law == CAROM_FILTER_NAIVE) return 1.0;
    double sigma = def->safety;
    if (def->law == CAROM_FILTER_QUADRATIC) return sqrt(sigma * sigma + lambda * (1.0 - sigma * sigma));
    return sigma + lambda * (1.0 - sigma);
}

/* Q(v): the clearance at which a body at speed v has v / v_max = sigma. */
static double crossing_clearance(const carom_filter_def *def, double speed, double sigma)
{
    double a = def->max_acceleration, dt = def->window;
    return speed * speed / (2.0 * a * sigma * sigma) + 2.0 * speed * dt + 1.125 * a * dt * dt;
}

/* How far body (slot), flying from x, v with total acceleration acc, is at
 * time s from v / v_max = level, in clearance (positive before it gets
 * there; direction 1: rising to the level, -1: falling to it). */
static double level_gap(const carom_world *w, int32_t slot, const steered_body *b, const double x[3],
                        const double v[3], const double acc[3], double s, double level, double direction)
{
    double y[3], u[3], normal[3];
    for (int k = 0; k < 3; k++) y[k] = x[k] + (v[k] + 0.5 * acc[k] * s) * s, u[k] = v[k] + acc[k] * s;
    double clearance = boundary_clearance(w, y, w->hot[slot].radius, normal);
    return direction * (clearance - crossing_clearance(&b->def, filter_length(u), level));
}

/* The first time in (0, horizon] at which the body reaches the level
 * (level_gap <= the skin), or INFINITY. Conservative advancement: steps of
 * gap / slope, slope a bound on |d gap / ds| over the horizon, never pass a
 * root. Where its steps become tiny (a slow approach), probes of doubling
 * length look ahead and a probe past the level is bisected (a level
 * touched and left again inside one probe may then be missed: the next
 * decision sees it). */
static double crossing_after(const carom_world *w, int32_t slot, const steered_body *b, const double x[3],
                             const double v[3], const double acc[3], double horizon, double level, double direction)
{
    if (!(level > 0.0 && level < INFINITY)) return INFINITY;
    double tolerance = filter_skin(position_scale(w));
    double a_len = filter_length(acc), top_speed = filter_length(v) + a_len * horizon;
    double slope = top_speed + (top_speed / (b->def.max_acceleration * level * level) + 2.0 * b->def.window) * a_len;
    double s = 0.0, f = level_gap(w, slot, b, x, v, acc, 0.0, level, direction);
    if (f <= tolerance || !(slope > 0.0)) return INFINITY; /* there already at the decision: it acted then */
    for (int step = 0; step < ADVANCEMENT_STEPS; step++) {
        double ahead = f / slope;
        if (ahead < horizon * 0x1p-12) ahead = fmin(horizon * 0x1p-12, 2.0 * ahead); /* probing */
        double next = fmin(horizon, s + ahead), g = level_gap(w, slot, b, x, v, acc, next, level, direction);
        if (g <= tolerance) { /* between s and next: bisect to a relative 2^-40 of the horizon */
            if (next - s <= f / slope) return next; /* a safe step: next is at the level */
            double lo = s, hi = next;
            while (hi - lo > horizon * 0x1p-40) {
                double mid = 0.5 * (lo + hi);
                if (level_gap(w, slot, b, x, v, acc, mid, level, direction) <= tolerance) hi = mid;
                else lo = mid;
            }
            return hi;
        }
        if (next >= horizon) return INFINITY;
        s = next, f = g;
    }
    return s; /* not settled: decide there, and look again */
}

/* Decides steered body k at the clock and applies the result. */
static void decide(carom_world *w, int32_t k, int at_crossing)
{
    steering *s = &w->steering;
    steered_body *b = &s->bodies[k];
    int32_t slot = w->slot_of[b->id];
    double x[3], v[3], input[3], out[3];
    state_of(w, slot, x, v);
    for (int a = 0; a < 3; a++) input[a] = b->input[a] + w->gravity[a];
    filter_constraint *c = s->scratch;
    int m = gather_constraints(w, k, x, c);
    filter_apply_constraints(&b->def, c, m, v, input, &b->last);
    const double total[3] = {b->last.acceleration.x, b->last.acceleration.y, b->last.acceleration.z};
    for (int a = 0; a < 3; a++) out[a] = a < w->dim ? total[a] - w->gravity[a] : 0.0;
    b->braking = b->last.criticality == 1.0;
    b->hold_end = w->clock + b->def.window;
    if (!at_crossing) b->crossings_left = CROSSING_SEARCHES_PER_HOLD;
    b->crossing = INFINITY;
    double lambda = b->last.criticality;
    if (lambda < 1.0 && !s->no_crossings && b->crossings_left > 0) { /* the next level up, or down */
        b->crossings_left--;
        double horizon = b->hold_end - w->clock;
        double in = crossing_after(w, slot, b, x, v, total, horizon, level_of(&b->def, fmin(1.0, lambda + LEVEL)), 1.0);
        if (lambda > 0.0 && b->def.law != CAROM_FILTER_NAIVE)
            in = fmin(in, crossing_after(w, slot, b, x, v, total, horizon, level_of(&b->def, fmax(0.0, lambda - LEVEL)),
                                         -1.0));
        if (in < INFINITY && w->clock + in < b->hold_end) b->crossing = w->clock + in;
    }
    s->decisions++;
    s->crossing_decisions += at_crossing;
    steer_apply_acceleration(w, slot, out);
}

void steering_window_start(carom_world *w)
{
    steering *s = &w->steering;
    for (int32_t k = 0; k < s->count; k++) { /* a new window: its least clearance from now */
        s->bodies[k].least = INFINITY;
        s->bodies[k].least_from = w->clock;
    }
    for (int32_t k = 0; k < s->count; k++) {
        steered_body *b = &s->bodies[k];
        if (b->braking && w->clock < b->hold_end) continue; /* a braking hold runs to its end */
        decide(w, k, 0);
    }
}

double steering_event_time(const carom_world *w, int32_t slot)
{
    if (w->steering.count == 0) return INFINITY;
    const steered_body *b = steering_find(w, w->id_of[slot]);
    if (!b) return INFINITY;
    return b->crossing < b->hold_end ? b->crossing : b->hold_end;
}

void steering_process(carom_world *w, int32_t slot)
{
    steered_body *b = steering_find(w, w->id_of[slot]);
    assert(b && "a filter event names a steered body");
    int at_crossing = b->crossing <= w->clock && w->clock < b->hold_end;
    decide(w, (int32_t)(b - w->steering.bodies), at_crossing);
}

int steering_take_input(carom_world *w, int32_t id, const double a[3])
{
    if (w->steering.count == 0) return 0;
    steered_body *b = steering_find(w, id);
    if (!b) return 0;
    for (int k = 0; k < 3; k++) b->input[k] = a[k];
    return 1;
}

void steering_free(carom_world *w)
{
    steering *s = &w->steering;
    memory_free(&w->def.allocator, s->bodies, (size_t)s->capacity * sizeof *s->bodies);
    memory_free(&w->def.allocator, s->scratch, (size_t)s->capacity * sizeof(filter_constraint));
    memset(s, 0, sizeof *s);
}

/* ---- the API ----------------------------------------------------------------------- */

int steering_reserve(carom_world *w, int32_t capacity)
{
    steering *s = &w->steering;
    if (capacity <= s->capacity) return 0;
    int32_t grown = capacity;
    size_t old_b = (size_t)s->capacity * sizeof *s->bodies, new_b = (size_t)grown * sizeof *s->bodies;
    size_t old_c = (size_t)s->capacity * sizeof(filter_constraint), new_c = (size_t)grown * sizeof(filter_constraint);
    memory_array arrays[2] = {{(void **)&s->bodies, old_b, new_b, 0}, {&s->scratch, old_c, new_c, 0}};
    if (memory_grow_together(&w->def.allocator, arrays, 2) != 0) return -1;
    s->capacity = grown;
    return 0;
}

/* Room for one more steered body. 0, or -1 if out of memory. */
static int reserve_one(carom_world *w)
{
    steering *s = &w->steering;
    if (s->count < s->capacity) return 0;
    return steering_reserve(w, s->capacity ? 2 * s->capacity : 4);
}

static carom_status unsteer(carom_world *w, steered_body *b)
{
    steering *s = &w->steering;
    int32_t slot = w->slot_of[b->id], k = (int32_t)(b - s->bodies);
    double own[3];
    for (int a = 0; a < 3; a++) own[a] = b->input[a];
    memmove(&s->bodies[k], &s->bodies[k + 1], (size_t)(s->count - k - 1) * sizeof *s->bodies);
    s->count--;
    steer_apply_acceleration(w, slot, own); /* the player's input, unfiltered, from now on */
    return CAROM_OK;
}

carom_status carom_world_set_body_filter(carom_world *w, int32_t id, const carom_filter_def *def)
{
    if (!w) return CAROM_INVALID_ARGUMENT;
    carom_status st = world_check_id(w, id);
    if (st != CAROM_OK) return st;
    if (w->in_callback)
        return world_fail(w, CAROM_INVALID_ARGUMENT, "body %d: cannot steer bodies from the event callback", (int)id);
    steered_body *b = steering_find(w, id);
    if (!def || def->law == CAROM_FILTER_OFF) return b ? unsteer(w, b) : CAROM_OK;
    const char *problem = filter_def_problem(def);
    if (problem) return world_fail(w, CAROM_INVALID_ARGUMENT, "body %d: filter %s", (int)id, problem);
    if (!(def->window > 0.0))
        return world_fail(w, CAROM_INVALID_ARGUMENT,
                          "body %d: filter window: expected the time (> 0) each decision is held in the world "
                          "(at most the dt of carom_world_advance; decisions come at least that often)",
                          (int)id);
    int32_t slot = w->slot_of[id];
    if (drive_is_kinematic(world_mass(w, slot)))
        return world_fail(w, CAROM_INVALID_ARGUMENT, "body %d: a kinematic body cannot be steered", (int)id);
    if (drive_enable(w) != 0 || (!b && reserve_one(w) != 0))
        return world_fail(w, CAROM_OUT_OF_MEMORY, "body %d: out of memory for steering", (int)id);
    if (!b) {
        steering *s = &w->steering;
        int32_t k = 0;
        while (k < s->count && s->bodies[k].id < id) k++;
        memmove(&s->bodies[k + 1], &s->bodies[k], (size_t)(s->count - k) * sizeof *s->bodies);
        s->count++;
        b = &s->bodies[k];
        memset(b, 0, sizeof *b);
        b->id = id;
        for (int a = 0; a < 3; a++) b->input[a] = w->drive.own[3 * id + a]; /* its acceleration so far */
        b->hold_end = -INFINITY;
        b->crossing = INFINITY;
        b->least = INFINITY;
        b->least_from = w->clock;
    }
    b->def = *def; /* from its next decision on (a braking hold still runs to its end) */
    return CAROM_OK;
}

carom_status carom_world_get_body_filter(const carom_world *w, int32_t id, carom_filter_result *result)
{
    if (!w || !result) return CAROM_INVALID_ARGUMENT;
    if (id < 0 || id >= w->count) return CAROM_NOT_FOUND;
    const steered_body *b = steering_find(w, id);
    if (!b) return CAROM_NOT_FOUND;
    *result = b->last;
    return CAROM_OK;
}
