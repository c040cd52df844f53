/* box_view.c — seed 002's comparison, live (box_view.h).
 *
 * The exact engine (carom_world) runs to the instant the page draws, and
 * every position is read at exactly that instant. The plain frame stepper
 * (carom_frame: move every disk by v dt, then resolve the overlaps found,
 * seed 002 sec. 2.1) starts from the same bodies and steps whole frames up
 * to that instant. Around each frame the view looks for the collisions the
 * stepper could not see: a pair whose straight paths came within contact
 * during the frame (the closest approach of two linear motions, as in
 * seed 000's pair prediction) but which are apart at the frame's end, with
 * neither disk having taken an impulse in it: they passed through each
 * other unnoticed (tunnelling). It also counts overlapping pairs at the
 * frame's end, which the exact engine never has.
 */
#include "box_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "carom.h"
#include "pair_grid.h"
#include "paint.h"
#include "web_export.h"
#include "web_place.h"

typedef struct stepper_state {
    double *xy, *v;
    uint64_t *hits;
} stepper_state;

struct box_view {
    carom_world *world;
    carom_frame *frame;
    int32_t n;
    double width, height, radius, speed, dt;
    /* The stepper's state at its clock (the next frame's start) and at the
     * end of the frame being stepped: centres and velocities (2 a disk) and
     * the disks' collision counts. */
    stepper_state now, next;
    double reach;          /* a pair search's reach over the coming frame */
    double *exact_xy;      /* the exact engine's centres */
    float *exact_disks, *frame_disks;
    unsigned char *overlapping;
    pair_grid grid;
    paint_buffer paint_exact, paint_frame;
    double counters[BOX_COUNTERS];
    int64_t calls; /* of box_advance: the exact engine's overlaps are counted every AUDIT_EVERY calls */
    int status;
    char message[256];
};

enum { AUDIT_EVERY = 8 };

static double read_stepper(box_view *v, stepper_state *s);

static int fail(box_view *v, carom_status status, const char *why)
{
    v->status = (int)status;
    snprintf(v->message, sizeof v->message, "%s", why);
    return v->status;
}

static int allocate_state(stepper_state *s, size_t n)
{
    s->xy = malloc(2 * n * sizeof *s->xy);
    s->v = malloc(2 * n * sizeof *s->v);
    s->hits = malloc(n * sizeof *s->hits);
    return s->xy && s->v && s->hits ? 0 : -1;
}

static void free_state(stepper_state *s) { free(s->xy), free(s->v), free(s->hits); }

static int allocate_buffers(box_view *v)
{
    size_t n = (size_t)v->n;
    int now = allocate_state(&v->now, n), next = allocate_state(&v->next, n);
    v->exact_xy = malloc(2 * n * sizeof *v->exact_xy);
    v->exact_disks = malloc(4 * n * sizeof *v->exact_disks);
    v->frame_disks = malloc(4 * n * sizeof *v->frame_disks);
    v->overlapping = malloc(n);
    return now == 0 && next == 0 && v->exact_xy && v->exact_disks && v->frame_disks && v->overlapping ? 0 : -1;
}

/* The world and the stepper from bodies (all of radius v->radius). */
static int build(box_view *v, const carom_body_def *bodies)
{
    char why[256];
    if (allocate_buffers(v) != 0) return fail(v, CAROM_OUT_OF_MEMORY, "out of memory");
    carom_world_def def = web_box_world_def(v->n, v->width, v->height);
    carom_status s = carom_world_create(&def, &v->world, why, sizeof why);
    if (s != CAROM_OK) return fail(v, s, why);
    for (int32_t k = 0; s == CAROM_OK && k < v->n; k++) {
        if (bodies[k].radius != v->radius || bodies[k].polygon_vertices != 0) {
            snprintf(why, sizeof why, "body %d: every disk must have radius %.17g", (int)k, v->radius);
            return fail(v, CAROM_INVALID_ARGUMENT, why);
        }
        s = carom_world_add_body(v->world, &bodies[k], NULL);
    }
    if (s != CAROM_OK) return fail(v, s, carom_world_message(v->world));
    carom_frame_def frame = carom_default_frame_def();
    frame.dt = v->dt;
    s = carom_frame_create_from_world(v->world, &frame, &v->frame, why, sizeof why);
    return s == CAROM_OK ? 0 : fail(v, s, why);
}

static box_view *new_view(int32_t n, double width, double height, double radius, double speed, double dt)
{
    box_view *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->n = n, v->width = width, v->height = height, v->radius = radius, v->speed = speed, v->dt = dt;
    if (n < 1 || n > 1000000) fail(v, CAROM_INVALID_ARGUMENT, "the number of disks must be 1 to 1000000");
    else if (!(dt > 0.0) || !isfinite(dt)) fail(v, CAROM_INVALID_ARGUMENT, "the frame step must be positive");
    return v;
}

static void start(box_view *v)
{
    carom_stats stats = carom_world_stats(v->world);
    v->counters[BOX_ENERGY_START] = v->counters[BOX_ENERGY_EXACT] = stats.kinetic_energy;
    v->counters[BOX_ENERGY_FRAME] = stats.kinetic_energy;
    v->reach = read_stepper(v, &v->now);
    box_advance(v, 0.0, 0);
}

box_view *box_create_with(const carom_body_def *bodies, int32_t n, double width, double height, double speed,
                          double dt)
{
    box_view *v = new_view(n, width, height, n > 0 ? bodies[0].radius : 0.0, speed, dt);
    if (v && v->status == 0 && build(v, bodies) == 0) start(v);
    return v;
}

box_view *WEB_EXPORT(box_create)(int32_t n, double width, double height, double radius, double speed, double dt,
                                 uint32_t seed)
{
    box_view *v = new_view(n, width, height, radius, speed, dt);
    if (!v || v->status != 0) return v;
    char why[256];
    carom_body_def *bodies = malloc((size_t)n * sizeof *bodies);
    if (!bodies) fail(v, CAROM_OUT_OF_MEMORY, "out of memory");
    else if (web_place_disks(n, width, height, radius, speed, seed, bodies, why, sizeof why) != CAROM_OK)
        fail(v, CAROM_INVALID_ARGUMENT, why);
    else if (build(v, bodies) == 0) start(v);
    free(bodies);
    return v;
}

int WEB_EXPORT(box_status)(const box_view *v) { return v->status; }
const char *WEB_EXPORT(box_message)(const box_view *v) { return v->message; }
const float *WEB_EXPORT(box_exact_disks)(const box_view *v) { return v->exact_disks; }
const float *WEB_EXPORT(box_frame_disks)(const box_view *v) { return v->frame_disks; }
const double *WEB_EXPORT(box_counters)(const box_view *v) { return v->counters; }
int32_t WEB_EXPORT(box_count)(const box_view *v) { return v->n; }

const uint8_t *WEB_EXPORT(box_paint)(box_view *v, int32_t which, int32_t width, int32_t height)
{
    if (v->status != 0) return NULL;
    return paint_disks(which ? &v->paint_frame : &v->paint_exact, which ? v->frame_disks : v->exact_disks, v->n,
                       v->width, v->height, width, height);
}

/* ---- the frame stepper's overlaps and missed collisions -------------------- */

typedef struct pair_count {
    box_view *view;
    const double *xy; /* the centres the pairs are counted on */
    double contact;   /* the sum of the radii (all disks are equal) */
    int64_t count;
} pair_count;

static void count_overlap(void *user, int32_t i, int32_t j)
{
    pair_count *c = user;
    double dx = c->xy[2 * j] - c->xy[2 * i], dy = c->xy[2 * j + 1] - c->xy[2 * i + 1];
    if (dx * dx + dy * dy < c->contact * c->contact * (1.0 - 1e-9)) {
        c->count++;
        c->view->overlapping[i] = c->view->overlapping[j] = 1;
    }
}

/* The pairs overlapping at centres xy (marking their disks in overlapping). */
static int64_t overlaps_at(box_view *v, const double *xy)
{
    for (int32_t k = 0; k < v->n; k++) v->overlapping[k] = 0;
    pair_count c = {v, xy, 2.0 * v->radius, 0};
    if (pair_grid_visit_pairs(&v->grid, xy, v->n, v->width, v->height, 2.0 * v->radius, count_overlap, &c) != 0)
        fail(v, CAROM_OUT_OF_MEMORY, "out of memory");
    return c.count;
}

/* Whether the straight paths x_i + v_i s, x_j + v_j s came within contact for
 * some s in [0, dt]: the smallest |dx + dv s|^2 there, against contact^2. */
static int paths_met(const double *x, const double *v, int32_t i, int32_t j, double dt, double contact)
{
    double dx = x[2 * j] - x[2 * i], dy = x[2 * j + 1] - x[2 * i + 1];
    double dvx = v[2 * j] - v[2 * i], dvy = v[2 * j + 1] - v[2 * i + 1];
    double vv = dvx * dvx + dvy * dvy, b = dx * dvx + dy * dvy;
    double s = vv > 0.0 ? -b / vv : 0.0;
    s = s < 0.0 ? 0.0 : s > dt ? dt : s;
    double cx = dx + dvx * s, cy = dy + dvy * s;
    return cx * cx + cy * cy < contact * contact;
}

static int apart(const double *xy, int32_t i, int32_t j, double contact)
{
    double dx = xy[2 * j] - xy[2 * i], dy = xy[2 * j + 1] - xy[2 * i + 1];
    return dx * dx + dy * dy >= contact * contact;
}

/* A pair missed in the frame from v->now to v->next: apart at its start and
 * at its end, neither disk took an impulse in it, and their paths met. (A
 * pair already overlapping at the start is an overlap, counted as such.) */
static void count_missed(void *user, int32_t i, int32_t j)
{
    pair_count *c = user;
    box_view *v = c->view;
    if (v->next.hits[i] != v->now.hits[i] || v->next.hits[j] != v->now.hits[j]) return;
    if (!paths_met(v->now.xy, v->now.v, i, j, v->dt, c->contact)) return;
    if (apart(v->now.xy, i, j, c->contact) && apart(v->next.xy, i, j, c->contact)) c->count++;
}

/* Reads the stepper's disks into s; returns the reach of a pair search over
 * the coming frame (a diameter and twice the fastest disk's flight). */
static double read_stepper(box_view *v, stepper_state *s)
{
    double fastest = 0.0;
    for (int32_t k = 0; k < v->n; k++) {
        carom_body_state b;
        carom_frame_get_body(v->frame, k, &b);
        s->xy[2 * k] = b.position.x, s->xy[2 * k + 1] = b.position.y;
        s->v[2 * k] = b.velocity.x, s->v[2 * k + 1] = b.velocity.y;
        s->hits[k] = b.collisions;
        double speed = sqrt(b.velocity.x * b.velocity.x + b.velocity.y * b.velocity.y);
        fastest = speed > fastest ? speed : fastest;
    }
    return 2.0 * (fastest * v->dt) + 2.0 * v->radius;
}

/* One frame of the stepper and the missed collisions in it; v->now is the
 * stepper's state before and after. */
static int step_frame(box_view *v)
{
    carom_status s = carom_frame_run(v->frame, 1);
    if (s != CAROM_OK && s != CAROM_JAMMED) return fail(v, s, carom_frame_message(v->frame));
    double reach_next = read_stepper(v, &v->next);
    pair_count missed = {v, v->now.xy, 2.0 * v->radius, 0};
    if (pair_grid_visit_pairs(&v->grid, v->now.xy, v->n, v->width, v->height, v->reach, count_missed, &missed))
        return fail(v, CAROM_OUT_OF_MEMORY, "out of memory");
    v->counters[BOX_MISSED] += (double)missed.count;
    v->counters[BOX_FRAMES] += 1.0;
    stepper_state done = v->now;
    v->now = v->next, v->next = done;
    v->reach = reach_next;
    return 0;
}

/* ---- bringing both to the page's instant ------------------------------------ */

static void fill_frame_disks(box_view *v)
{
    int64_t overlaps = overlaps_at(v, v->now.xy);
    v->counters[BOX_OVERLAPS_NOW] = (double)overlaps;
    if (overlaps > v->counters[BOX_OVERLAPS_MOST]) v->counters[BOX_OVERLAPS_MOST] = (double)overlaps;
    for (int32_t k = 0; k < v->n; k++) {
        float *d = v->frame_disks + 4 * k;
        d[0] = (float)v->now.xy[2 * k], d[1] = (float)v->now.xy[2 * k + 1], d[2] = (float)v->radius;
        double vx = v->now.v[2 * k], vy = v->now.v[2 * k + 1], speed = sqrt(vx * vx + vy * vy);
        d[3] = v->overlapping[k] ? -1.0f : (float)(v->speed > 0.0 ? speed / v->speed : 0.0);
    }
    carom_frame_stats stats = carom_frame_get_stats(v->frame);
    v->counters[BOX_TIME_FRAME] = stats.time;
    v->counters[BOX_ENERGY_FRAME] = stats.kinetic_energy;
    v->counters[BOX_COLLISIONS_FRAME] = (double)stats.pair_collisions;
    v->counters[BOX_PENETRATION_MOST] = stats.max_penetration;
}

/* The exact engine's disks at its clock; every AUDIT_EVERY calls also its
 * overlapping pairs (0 up to round-off: a check the page shows, which costs
 * as much as the reading). */
static void fill_exact_disks(box_view *v)
{
    for (int32_t k = 0; k < v->n; k++) {
        carom_body_state s;
        carom_world_get_body(v->world, k, &s);
        v->exact_xy[2 * k] = s.position.x, v->exact_xy[2 * k + 1] = s.position.y;
        float *d = v->exact_disks + 4 * k;
        d[0] = (float)s.position.x, d[1] = (float)s.position.y, d[2] = (float)s.radius;
        double speed = sqrt(s.velocity.x * s.velocity.x + s.velocity.y * s.velocity.y);
        d[3] = (float)(v->speed > 0.0 ? speed / v->speed : 0.0);
    }
    if (v->calls % AUDIT_EVERY == 0) v->counters[BOX_OVERLAPS_EXACT] = (double)overlaps_at(v, v->exact_xy);
    carom_stats stats = carom_world_stats(v->world);
    v->counters[BOX_TIME_EXACT] = stats.time;
    v->counters[BOX_ENERGY_EXACT] = stats.kinetic_energy;
    v->counters[BOX_COLLISIONS_EXACT] = (double)stats.pair_events;
    v->counters[BOX_WALLS_EXACT] = (double)stats.wall_events;
}

int WEB_EXPORT(box_advance)(box_view *v, double t, int32_t max_frames)
{
    if (v->status != 0) return v->status;
    if (!isfinite(t)) return fail(v, CAROM_INVALID_ARGUMENT, "the time to advance to must be finite");
    if (t > carom_world_time(v->world)) {
        carom_status s = carom_world_run(v->world, t, INT64_MAX);
        if (s != CAROM_OK) return fail(v, s, carom_world_message(v->world));
    }
    fill_exact_disks(v);
    double clock = carom_world_time(v->world);
    int32_t frames = 0;
    while (frames < max_frames && carom_frame_time(v->frame) + v->dt <= clock && v->status == 0)
        step_frame(v), frames++;
    if (frames > 0 || v->calls == 0) fill_frame_disks(v);
    v->calls++;
    return v->status;
}

void WEB_EXPORT(box_destroy)(box_view *v)
{
    if (!v) return;
    carom_world_destroy(v->world);
    carom_frame_destroy(v->frame);
    pair_grid_free(&v->grid);
    paint_free(&v->paint_exact), paint_free(&v->paint_frame);
    free_state(&v->now), free_state(&v->next);
    free(v->exact_xy), free(v->exact_disks), free(v->frame_disks), free(v->overlapping);
    free(v);
}
