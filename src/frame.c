/* frame.c — the frame-based stepper of seed 002 (Schnieders 2012, sec. 2),
 * kept to measure what the exact engine avoids, and the lifecycle shared
 * with the bisection stepper (impact.c).
 *
 * A frame advances every body by dt on its exact free flight (straight line,
 * or parabola under gravity: no integrator error, so every difference from
 * the exact engine comes from how collisions are handled), then looks for
 * wall penetrations and overlapping pairs (contact.c) and gives each the
 * impulse of the exact engine's law (collide.c) where it is found, deep in
 * the overlap (seed 002, 2.1.1). One impulse can create another contact, so
 * passes repeat, each looking only at the bodies the last one changed (the
 * stack of seed 002, 2.1.2: n^2/2 + c rather than m n^2), until a pass
 * applies no impulse; after max_passes the frame is declared jammed, seed
 * 002's "row of particles jammed between the walls", with a warning.
 */
#include "frame.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collide.h"
#include "contact.h"
#include "impact.h"
#include "memory.h"
#include "message.h"

static const char axis_name[3] = {'x', 'y', 'z'};

carom_frame_def carom_default_frame_def(void)
{
    carom_frame_def d;
    memset(&d, 0, sizeof d);
    d.method = CAROM_FRAME_PLAIN;
    d.dt = 0.001;
    d.eps = 0.0;
    d.all_pairs = 0;
    d.max_passes = 100;
    return d;
}

/* ---- free flight and geometry ------------------------------------------- */

double frame_clock(const carom_frame *f)
{
    return f->base_time + (double)f->frames_since_base * f->def.dt;
}

void frame_state_at(const carom_frame *f, int32_t i, double time, double x[3], double v[3])
{
    double dt = time - f->t[i];
    for (int a = 0; a < 3; a++) {
        x[a] = f->x[3 * i + a] + f->v[3 * i + a] * dt;
        v[a] = f->v[3 * i + a];
        if (f->has_gravity) {
            x[a] += 0.5 * f->gravity[a] * dt * dt;
            v[a] += f->gravity[a] * dt;
        }
    }
}

void frame_advance_body(carom_frame *f, int32_t i, double time)
{
    frame_state_at(f, i, time, &f->x[3 * i], &f->v[3 * i]);
    f->t[i] = time;
}

void frame_wrap(const carom_frame *f, double x[3])
{
    for (int a = 0; a < f->dim; a++)
        if (f->periodic[a]) x[a] -= f->side[a] * floor((x[a] + f->half[a]) / f->side[a]);
}

void frame_separation(const carom_frame *f, const double xi[3], const double xj[3], double dr[3])
{
    for (int a = 0; a < 3; a++) {
        dr[a] = xj[a] - xi[a];
        if (f->periodic[a]) dr[a] -= f->side[a] * round(dr[a] / f->side[a]);
    }
}

double frame_wall_depth(const carom_frame *f, int32_t i, const double x[3], int wall)
{
    int a = wall / 2;
    return (wall & 1) ? x[a] + f->radius[i] - f->half[a] : f->radius[i] - f->half[a] - x[a];
}

/* ---- impulses --------------------------------------------------------------- */

static void record_penetration(carom_frame *f, double depth)
{
    if (depth < 0.0) depth = 0.0;
    if (depth > f->stats.max_penetration) f->stats.max_penetration = depth;
    f->penetration_sum += depth;
    f->penetration_count++;
}

static void report_event(carom_frame *f, double time, carom_event_kind kind, int32_t i, int32_t j,
                         double impulse)
{
    if (!f->def.on_event) return;
    carom_event e = {time, kind, i, j, impulse, 0};
    f->def.on_event(f->def.user, &e);
}

int frame_collide_pair(carom_frame *f, int32_t i, int32_t j, const double dr[3], double time,
                       int count_receding)
{
    assert(i < j);
    double virial;
    double impulse = collide_pair(&f->v[3 * i], &f->v[3 * j], f->mass[i], f->mass[j], dr,
                                  f->world.restitution, f->world.elastic_below_speed, &virial);
    if (impulse == 0.0) {
        if (count_receding) f->stats.receding_overlaps++;
        return 0;
    }
    f->collisions[i]++, f->collisions[j]++;
    f->stats.pair_collisions++;
    record_penetration(f, f->radius[i] + f->radius[j] - sqrt(dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2]));
    report_event(f, time, CAROM_EVENT_PAIR, i, j, impulse);
    return 1;
}

int frame_collide_wall(carom_frame *f, int32_t i, int wall, double time)
{
    int a = wall / 2;
    double impulse = collide_wall(&f->v[3 * i + a], (wall & 1) ? 1.0 : -1.0, f->mass[i],
                                  f->world.wall_restitution, f->world.elastic_below_speed);
    if (impulse == 0.0) return 0;
    f->collisions[i]++;
    f->stats.wall_collisions++;
    record_penetration(f, frame_wall_depth(f, i, &f->x[3 * i], wall));
    report_event(f, time, CAROM_EVENT_WALL, i, wall, impulse);
    return 1;
}

void frame_report_jam(carom_frame *f, double time, int32_t body, const char *what)
{
    f->stats.jammed_frames++;
    if (f->jam_reported) return;
    f->jam_reported = 1;
    snprintf(f->message, sizeof f->message,
             "jammed at t = %.17g: body %d %s (seed 002, 2.1.2: contacts that never resolve)", time,
             (int)body, what);
}

/* ---- the plain stepper ----------------------------------------------------- */

static void mark_dirty(carom_frame *f, int32_t i)
{
    if (f->dirty[i]) return;
    f->dirty[i] = 1;
    f->dirty_list[f->dirty_count++] = i;
}

/* One pass over the listed bodies (all if bodies is NULL): walls first, then
 * pairs in (i, j) order. Returns the number of impulses applied, or -1 if
 * out of memory. The bodies that got one are in dirty_list. */
static int64_t resolve_pass(carom_frame *f, const int32_t *bodies, int32_t n, double time)
{
    int first = bodies == NULL;
    for (int32_t k = 0; k < f->dirty_count; k++) f->dirty[f->dirty_list[k]] = 0;
    f->dirty_count = 0;
    int64_t applied = 0;
    int32_t listed = first ? f->count : n;
    for (int32_t k = 0; k < listed; k++) {
        int32_t i = first ? k : bodies[k];
        for (int wall = 0; wall < 2 * f->dim; wall++)
            if (!f->periodic[wall / 2] && frame_wall_depth(f, i, &f->x[3 * i], wall) > 0.0 &&
                frame_collide_wall(f, i, wall, time))
                mark_dirty(f, i), applied++;
    }
    int32_t pairs = contact_find_pairs(f, bodies, n, time);
    if (pairs < 0) return -1;
    for (int32_t k = 0; k < pairs; k++) {
        int32_t i = f->pairs[k].i, j = f->pairs[k].j;
        double dr[3];
        frame_separation(f, &f->x[3 * i], &f->x[3 * j], dr);
        if (frame_collide_pair(f, i, j, dr, time, first)) mark_dirty(f, i), mark_dirty(f, j), applied++;
    }
    f->stats.passes++;
    return applied;
}

static carom_status plain_frame(carom_frame *f, double t1)
{
    for (int32_t i = 0; i < f->count; i++) {
        frame_advance_body(f, i, t1);
        frame_wrap(f, &f->x[3 * i]);
        memcpy(&f->end[3 * i], &f->x[3 * i], sizeof(double[3]));
    }
    contact_bin(f);
    int64_t applied = resolve_pass(f, NULL, 0, t1);
    for (int32_t pass = 1; applied > 0 && pass < f->def.max_passes; pass++) {
        int32_t n = f->dirty_count;
        memcpy(f->scan_list, f->dirty_list, (size_t)n * sizeof *f->scan_list);
        applied = resolve_pass(f, f->scan_list, n, t1);
    }
    if (applied < 0) return CAROM_OUT_OF_MEMORY;
    if (applied == 0) return CAROM_OK;
    char what[96];
    snprintf(what, sizeof what, "still had contacts after %d resolution passes", (int)f->def.max_passes);
    frame_report_jam(f, t1, f->dirty_list[0], what);
    return CAROM_JAMMED;
}

/* ---- running ----------------------------------------------------------- */

/* Everything a frame changes outside its scratch arrays (end, in_frame,
 * dirty, the pair list and the heap are set afresh by each frame). */
static void save_state(carom_frame *f)
{
    size_t n = (size_t)f->count;
    memcpy(f->saved_x, f->x, 3 * n * sizeof *f->x);
    memcpy(f->saved_v, f->v, 3 * n * sizeof *f->v);
    memcpy(f->saved_t, f->t, n * sizeof *f->t);
    memcpy(f->saved_collisions, f->collisions, n * sizeof *f->collisions);
    f->saved_stats = f->stats;
    f->saved_penetration_sum = f->penetration_sum;
    f->saved_penetration_count = f->penetration_count;
    f->saved_jam_reported = f->jam_reported;
}

static void restore_state(carom_frame *f)
{
    size_t n = (size_t)f->count;
    memcpy(f->x, f->saved_x, 3 * n * sizeof *f->x);
    memcpy(f->v, f->saved_v, 3 * n * sizeof *f->v);
    memcpy(f->t, f->saved_t, n * sizeof *f->t);
    memcpy(f->collisions, f->saved_collisions, n * sizeof *f->collisions);
    f->stats = f->saved_stats;
    f->penetration_sum = f->saved_penetration_sum;
    f->penetration_count = f->saved_penetration_count;
    f->jam_reported = f->saved_jam_reported;
}

/* One frame; a frame that runs out of memory is undone. */
static carom_status step_to(carom_frame *f, double t1)
{
    save_state(f);
    carom_status st = f->def.method == CAROM_FRAME_BISECTION ? impact_frame(f, t1) : plain_frame(f, t1);
    if (st == CAROM_OUT_OF_MEMORY) {
        restore_state(f);
        snprintf(f->message, sizeof f->message, "out of memory in a frame");
        return st;
    }
    f->stats.frames++;
    return st;
}

carom_status carom_frame_run(carom_frame *f, int64_t frames)
{
    if (!f || frames < 0) return CAROM_INVALID_ARGUMENT;
    carom_status result = CAROM_OK;
    f->jam_reported = 0;
    for (int64_t k = 0; k < frames; k++) {
        double t1 = f->base_time + (double)(f->frames_since_base + 1) * f->def.dt;
        carom_status st = step_to(f, t1);
        if (st == CAROM_OUT_OF_MEMORY) return st;
        f->frames_since_base++;
        if (st != CAROM_OK) result = st;
    }
    return result;
}

carom_status carom_frame_step(carom_frame *f, double dt)
{
    if (!f || !(isfinite(dt) && dt > 0.0)) return CAROM_INVALID_ARGUMENT;
    f->jam_reported = 0;
    double t1 = frame_clock(f) + dt;
    carom_status st = step_to(f, t1);
    if (st == CAROM_OUT_OF_MEMORY) return st;
    f->base_time = t1;
    f->frames_since_base = 0;
    return st;
}

/* ---- reading -------------------------------------------------------------- */

double carom_frame_time(const carom_frame *f) { return f ? frame_clock(f) : 0.0; }
int32_t carom_frame_body_count(const carom_frame *f) { return f ? f->count : 0; }
const char *carom_frame_message(const carom_frame *f) { return f ? f->message : "no frame stepper"; }

carom_status carom_frame_get_body(const carom_frame *f, int32_t id, carom_body_state *state)
{
    if (!f || !state) return CAROM_INVALID_ARGUMENT;
    if (id < 0 || id >= f->count) return CAROM_NOT_FOUND;
    const double *x = &f->x[3 * id], *v = &f->v[3 * id];
    state->position = (carom_vec){x[0], x[1], f->dim == 3 ? x[2] : 0.0};
    state->velocity = (carom_vec){v[0], v[1], f->dim == 3 ? v[2] : 0.0};
    state->radius = f->radius[id];
    state->mass = f->mass[id];
    state->collisions = f->collisions[id];
    state->acceleration = (carom_vec){0.0, 0.0, 0.0};
    return CAROM_OK;
}

carom_frame_stats carom_frame_get_stats(const carom_frame *f)
{
    carom_frame_stats s;
    memset(&s, 0, sizeof s);
    if (!f) return s;
    s = f->stats;
    s.time = frame_clock(f);
    s.mean_penetration = f->penetration_count ? f->penetration_sum / (double)f->penetration_count : 0.0;
    s.kinetic_energy = 0.0, s.potential_energy = 0.0;
    for (int32_t i = 0; i < f->count; i++)
        for (int a = 0; a < f->dim; a++) {
            s.kinetic_energy += 0.5 * f->mass[i] * f->v[3 * i + a] * f->v[3 * i + a];
            s.potential_energy -= f->mass[i] * f->gravity[a] * f->x[3 * i + a];
        }
    return s;
}

/* ---- creating ------------------------------------------------------------ */


static carom_status check_frame_def(const carom_frame_def *d, char *why, size_t size)
{
    if (d->method != CAROM_FRAME_PLAIN && d->method != CAROM_FRAME_BISECTION)
        return message_refuse(why, size, CAROM_INVALID_ARGUMENT, "frame_def.method = %d: expected CAROM_FRAME_PLAIN or CAROM_FRAME_BISECTION", (int)d->method);
    if (!(isfinite(d->dt) && d->dt > 0.0))
        return message_refuse(why, size, CAROM_INVALID_ARGUMENT, "frame_def.dt = %g: expected a finite number > 0", d->dt);
    if (!(isfinite(d->eps) && d->eps >= 0.0))
        return message_refuse(why, size, CAROM_INVALID_ARGUMENT, "frame_def.eps = %g: expected a finite number >= 0 (0: dt / 2^20)", d->eps);
    if (d->max_passes < 1)
        return message_refuse(why, size, CAROM_INVALID_ARGUMENT, "frame_def.max_passes = %d: expected at least 1", (int)d->max_passes);
    return CAROM_OK;
}

static carom_status check_body(const carom_frame *f, int32_t id, const carom_body_def *b, char *why, size_t size)
{
    const double x[3] = {b->position.x, b->position.y, b->position.z};
    const double v[3] = {b->velocity.x, b->velocity.y, b->velocity.z};
    if (!(isfinite(b->radius) && b->radius > 0.0))
        return message_refuse(why, size, CAROM_INVALID_ARGUMENT, "body %d: radius = %g: expected a finite number > 0", (int)id, b->radius);
    if (!(isfinite(b->mass) && b->mass > 0.0))
        return message_refuse(why, size, CAROM_INVALID_ARGUMENT,
                    "body %d: mass = %g: expected a finite number > 0 (the frame steppers have no kinematic bodies)",
                    (int)id, b->mass);
    const double acc[3] = {b->acceleration.x, b->acceleration.y, b->acceleration.z};
    for (int a = 0; a < f->dim; a++)
        if (acc[a] != 0.0)
            return message_refuse(why, size, CAROM_INVALID_ARGUMENT,
                        "body %d: acceleration.%c = %g: the frame steppers fly bodies under world gravity only", (int)id,
                        axis_name[a], acc[a]);
    for (int a = 0; a < f->dim; a++) {
        if (!isfinite(x[a]) || !isfinite(v[a]))
            return message_refuse(why, size, CAROM_INVALID_ARGUMENT, "body %d: position.%c = %g, velocity.%c = %g: expected finite numbers",
                        (int)id, axis_name[a], x[a], axis_name[a], v[a]);
        if (!f->periodic[a] && !(x[a] >= -f->half[a] && x[a] <= f->half[a]))
            return message_refuse(why, size, CAROM_OUTSIDE_BOX, "body %d: position.%c = %g: outside the walls at +-%g", (int)id,
                        axis_name[a], x[a], f->half[a]);
    }
    return CAROM_OK;
}

/* The per-body arrays: where each lives and its bytes per body. */
enum { FRAME_ARRAYS = 15 };
static void frame_arrays(carom_frame *f, void **arrays[FRAME_ARRAYS], size_t bytes[FRAME_ARRAYS])
{
    void **where[FRAME_ARRAYS] = {
        (void **)&f->x,          (void **)&f->v,        (void **)&f->end,        (void **)&f->t,
        (void **)&f->radius,     (void **)&f->mass,     (void **)&f->collisions, (void **)&f->in_frame,
        (void **)&f->dirty,      (void **)&f->dirty_list, (void **)&f->scan_list, (void **)&f->saved_x,
        (void **)&f->saved_v,    (void **)&f->saved_t,  (void **)&f->saved_collisions};
    size_t size[FRAME_ARRAYS] = {
        3 * sizeof *f->x,      3 * sizeof *f->v,    3 * sizeof *f->end,        sizeof *f->t,
        sizeof *f->radius,     sizeof *f->mass,     sizeof *f->collisions,     sizeof *f->in_frame,
        sizeof *f->dirty,      sizeof *f->dirty_list, sizeof *f->scan_list,    3 * sizeof *f->saved_x,
        3 * sizeof *f->saved_v, sizeof *f->saved_t, sizeof *f->saved_collisions};
    for (int k = 0; k < FRAME_ARRAYS; k++) arrays[k] = where[k], bytes[k] = size[k];
}

static carom_status allocate(carom_frame *f, int32_t n)
{
    void **arrays[FRAME_ARRAYS];
    size_t bytes[FRAME_ARRAYS];
    frame_arrays(f, arrays, bytes);
    f->room = n > 0 ? n : 1;
    for (int k = 0; k < FRAME_ARRAYS; k++) {
        *arrays[k] = memory_alloc_zeroed(&f->world.allocator, (size_t)f->room, bytes[k]);
        if (!*arrays[k]) return CAROM_OUT_OF_MEMORY;
    }
    return CAROM_OK;
}

static void release(carom_frame *f)
{
    void **arrays[FRAME_ARRAYS];
    size_t bytes[FRAME_ARRAYS];
    frame_arrays(f, arrays, bytes);
    for (int k = 0; k < FRAME_ARRAYS; k++) memory_free(&f->world.allocator, *arrays[k], (size_t)f->room * bytes[k]);
    memory_free(&f->world.allocator, f->pairs, (size_t)f->pair_capacity * sizeof *f->pairs);
    memory_free(&f->world.allocator, f->heap, (size_t)f->heap_capacity * sizeof *f->heap);
    cells_free(&f->grid);
}

static void set_geometry(carom_frame *f, const carom_world_def *w)
{
    const double box[3] = {w->box.x, w->box.y, w->box.z};
    const double g[3] = {w->gravity.x, w->gravity.y, w->gravity.z};
    f->world = *w;
    f->world.on_event = NULL, f->world.user = NULL;
    f->dim = w->dim;
    for (int a = 0; a < 3; a++) {
        int active = a < w->dim;
        f->side[a] = active ? box[a] : 1.0;
        f->half[a] = 0.5 * f->side[a];
        f->periodic[a] = active && w->boundary[a] == CAROM_PERIODIC;
        f->gravity[a] = active ? g[a] : 0.0;
        if (f->gravity[a] != 0.0) f->has_gravity = 1;
    }
}

static carom_status add_bodies(carom_frame *f, const carom_body_def *bodies, int32_t count, char *why, size_t size)
{
    for (int32_t i = 0; i < count; i++) {
        carom_status st = check_body(f, i, &bodies[i], why, size);
        if (st != CAROM_OK) return st;
        const double x[3] = {bodies[i].position.x, bodies[i].position.y, bodies[i].position.z};
        const double v[3] = {bodies[i].velocity.x, bodies[i].velocity.y, bodies[i].velocity.z};
        for (int a = 0; a < f->dim; a++) f->x[3 * i + a] = x[a], f->v[3 * i + a] = v[a];
        frame_wrap(f, &f->x[3 * i]);
        f->t[i] = f->base_time;
        f->radius[i] = bodies[i].radius;
        f->mass[i] = bodies[i].mass;
        if (f->radius[i] > f->max_radius) f->max_radius = f->radius[i];
    }
    f->count = count;
    for (int a = 0; a < f->dim; a++)
        if (f->periodic[a] && f->side[a] < 6.0 * f->max_radius)
            return message_refuse(why, size, CAROM_BOX_TOO_SMALL, "box.%c = %g: a periodic side must be at least three largest diameters (%g)",
                        axis_name[a], f->side[a], 6.0 * f->max_radius);
    return CAROM_OK;
}

static carom_status create_at(const carom_world_def *world, const carom_body_def *bodies, int32_t count,
                              const carom_frame_def *def, double start, carom_frame **out, char *why, size_t size)
{
    if (out) *out = NULL;
    if (!world || !def || !out || count < 0 || (count > 0 && !bodies))
        return message_refuse(why, size, CAROM_INVALID_ARGUMENT, "carom_frame_create: world, def, frame and bodies must be given");
    if (world->container)
        return message_refuse(why, size, CAROM_INVALID_ARGUMENT,
                    "world_def.container: the frame steppers have box walls only (run a container with the "
                    "exact engine)");
    if (world->tangential_restitution > -1.0 || world->wall_tangential_restitution > -1.0 || world->friction > 0.0)
        return message_refuse(why, size, CAROM_INVALID_ARGUMENT,
                              "world_def: the frame steppers collide smooth, frictionless bodies only (tangential "
                              "restitutions -1, friction 0); run rough bodies with the exact engine");
    for (int32_t i = 0; i < count; i++)
        if (bodies[i].polygon_vertices != 0 || bodies[i].polygon)
            return message_refuse(why, size, CAROM_INVALID_ARGUMENT,
                                  "body %d: a polygon: the frame steppers take disks and spheres only (run polygons "
                                  "with the exact engine)", (int)i);
    carom_world_def checked = *world;
    checked.on_event = NULL;
    carom_world *probe = NULL; /* the world's own checks of the def */
    carom_status st = carom_world_create(&checked, &probe, why, size);
    carom_world_destroy(probe);
    if (st != CAROM_OK) return st;
    if ((st = check_frame_def(def, why, size)) != CAROM_OK) return st;
    carom_frame *f = memory_alloc_zeroed(&world->allocator, 1, sizeof *f);
    if (!f) return message_refuse(why, size, CAROM_OUT_OF_MEMORY, "out of memory");
    f->def = *def;
    f->base_time = start;
    set_geometry(f, world);
    f->grid.mem = &f->world.allocator;
    st = allocate(f, count);
    if (st != CAROM_OK) message_refuse(why, size, st, "out of memory for %d bodies", (int)count);
    if (st == CAROM_OK) st = add_bodies(f, bodies, count, why, size);
    if (st == CAROM_OK && contact_configure(f) != 0)
        st = message_refuse(why, size, CAROM_OUT_OF_MEMORY, "out of memory for the cell grid");
    if (st != CAROM_OK) {
        carom_frame_destroy(f);
        return st;
    }
    if (why && size > 0) why[0] = '\0';
    *out = f;
    return CAROM_OK;
}

carom_status carom_frame_create(const carom_world_def *world, const carom_body_def *bodies, int32_t count,
                                const carom_frame_def *def, carom_frame **frame, char *why, size_t why_size)
{
    return create_at(world, bodies, count, def, 0.0, frame, why, why_size);
}

carom_status carom_frame_create_from_world(const carom_world *world, const carom_frame_def *def,
                                           carom_frame **frame, char *why, size_t why_size)
{
    if (frame) *frame = NULL;
    if (!world) return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "carom_frame_create_from_world: no world");
    int32_t n = carom_world_body_count(world);
    carom_world_def def_w = carom_world_definition(world);
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(carom_body_def);
    carom_body_def *bodies = memory_alloc(&def_w.allocator, bytes);
    if (!bodies) return message_refuse(why, why_size, CAROM_OUT_OF_MEMORY, "out of memory for %d bodies", (int)n);
    for (int32_t i = 0; i < n; i++) {
        carom_body_state s;
        carom_world_get_body(world, i, &s);
        bodies[i] = carom_default_body_def();
        bodies[i].position = s.position, bodies[i].velocity = s.velocity, bodies[i].radius = s.radius;
        bodies[i].mass = s.mass, bodies[i].acceleration = s.acceleration;
        bodies[i].polygon_vertices = s.polygon_vertices; /* refused below: the steppers have no polygons */
    }
    carom_status st = create_at(&def_w, bodies, n, def, carom_world_time(world), frame, why, why_size);
    memory_free(&def_w.allocator, bodies, bytes);
    return st;
}

void carom_frame_destroy(carom_frame *f)
{
    if (!f) return;
    carom_allocator allocator = f->world.allocator;
    release(f);
    memory_free(&allocator, f, sizeof *f);
}
