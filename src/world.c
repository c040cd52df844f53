/* world.c — the world's lifecycle, its parameters, and its bodies: adding
 * them (with every check on the input), reading them back and steering them.
 *
 * Bodies live in arrays indexed by the order they were added: a 64-byte hot
 * record (position, velocity, time stamp, radius) that predictions read, and
 * colder arrays (mass, collision counters, the scheduled event). New bodies
 * are checked against the others through the cell grid, so adding N bodies
 * costs O(N), and the grid and calendar are rebuilt once, when the world next
 * runs.
 */
#include "world.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "message.h"
#include "motion.h"
#include "schedule.h"
#include "screen.h"
#include "settle.h"
#include "shapes.h"

static const char axis_name[3] = {'x', 'y', 'z'};

/* The supported range of lengths, speeds and accelerations (carom.h). */
#define SCALE_MAX CAROM_SCALE_MAX
#define SCALE_MIN CAROM_SCALE_MIN
#define SCALE_TEXT "1e-75 to 1e75" /* CAROM_SCALE_MIN to CAROM_SCALE_MAX */

static int in_scale(double value) { return value == 0.0 || (fabs(value) >= SCALE_MIN && fabs(value) <= SCALE_MAX); }

int world_in_scale(double value) { return in_scale(value); }
int world_mass_in_range(double mass) { return isfinite(mass) && mass >= 1e-100 && mass <= 1e100; }

carom_status world_fail(carom_world *w, carom_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(w->message, sizeof w->message, format, args);
    va_end(args);
    return status;
}

const char *carom_status_name(carom_status status)
{
    switch (status) {
    case CAROM_OK: return "ok";
    case CAROM_INVALID_ARGUMENT: return "invalid argument";
    case CAROM_OUT_OF_MEMORY: return "out of memory";
    case CAROM_OUTSIDE_BOX: return "outside the box";
    case CAROM_OVERLAP: return "overlap";
    case CAROM_BOX_TOO_SMALL: return "box too small";
    case CAROM_JAMMED: return "jammed";
    case CAROM_NOT_FOUND: return "no such body";
    case CAROM_STOPPED: return "stopped by the callback";
    }
    return "unknown status";
}

carom_world_def carom_default_world_def(void)
{
    carom_world_def def;
    memset(&def, 0, sizeof def);
    def.dim = 3;
    def.box = (carom_vec){10.0, 10.0, 10.0};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = CAROM_PERIODIC;
    def.restitution = 1.0;
    def.wall_restitution = 1.0;
    def.max_collisions_per_instant = 1000;
    def.tangential_restitution = -1.0;
    def.wall_tangential_restitution = -1.0;
    return def;
}

carom_body_def carom_default_body_def(void)
{
    carom_body_def b;
    memset(&b, 0, sizeof b);
    b.radius = 0.5;
    b.mass = 1.0;
    b.orientation.w = 1.0;
    return b;
}

/* ---- checking a world def ---------------------------------------------- */

/* A def refused: the reason written, and 1 for the checks' "refused". */
#define fail_def(why, size, ...) (message_refuse(why, size, CAROM_INVALID_ARGUMENT, __VA_ARGS__), 1)

static int check_coefficient(const char *name, double e, char *why, size_t size)
{
    if (!(e >= 0.0 && e <= 1.0))
        return fail_def(why, size, "world_def.%s = %g: expected a number in [0, 1]", name, e);
    return 0;
}

/* A container replaces the walls of a box that holds it (the box sizes the grid). */
static int check_container(const carom_world_def *def, char *why, size_t size)
{
    const carom_container *c = def->container;
    if (c->dim != def->dim)
        return fail_def(why, size, "world_def.container: a %dD container in a %dD world", c->dim, def->dim);
    const double box[3] = {def->box.x, def->box.y, def->box.z};
    const container_node *root = &c->nodes[c->node_count - 1];
    for (int a = 0; a < def->dim; a++) {
        if (def->boundary[a] != CAROM_WALLS)
            return fail_def(why, size, "world_def.boundary[%d]: a world with a container needs CAROM_WALLS on "
                            "every axis (the container is the boundary)", a);
        if (!(root->lower[a] >= -0.5 * box[a] && root->upper[a] <= 0.5 * box[a]))
            return fail_def(why, size, "world_def.container reaches %c from %g to %g, outside the box "
                            "[%g, %g]: expected a box that holds the container", axis_name[a], root->lower[a],
                            root->upper[a], -0.5 * box[a], 0.5 * box[a]);
    }
    return 0;
}

static int check_def(const carom_world_def *def, char *why, size_t size)
{
    if (def->dim != 2 && def->dim != 3)
        return fail_def(why, size, "world_def.dim = %d: expected 2 or 3", def->dim);
    const double box[3] = {def->box.x, def->box.y, def->box.z};
    const double g[3] = {def->gravity.x, def->gravity.y, def->gravity.z};
    for (int a = 0; a < def->dim; a++) {
        if (!(isfinite(box[a]) && box[a] > 0.0 && in_scale(box[a])))
            return fail_def(why, size, "world_def.box.%c = %g: expected a side length > 0 in the supported range "
                            SCALE_TEXT, axis_name[a], box[a]);
        if (def->boundary[a] != CAROM_WALLS && def->boundary[a] != CAROM_PERIODIC)
            return fail_def(why, size, "world_def.boundary[%d] = %d: expected CAROM_WALLS or CAROM_PERIODIC",
                            a, (int)def->boundary[a]);
        if (!(isfinite(g[a]) && in_scale(g[a])))
            return fail_def(why, size, "world_def.gravity.%c = %g: expected 0 or a magnitude in the supported "
                            "range " SCALE_TEXT, axis_name[a], g[a]);
    }
    if (check_coefficient("restitution", def->restitution, why, size) ||
        check_coefficient("wall_restitution", def->wall_restitution, why, size))
        return 1;
    if (!(def->tangential_restitution >= -1.0 && def->tangential_restitution <= 1.0))
        return fail_def(why, size, "world_def.tangential_restitution = %g: expected a number in [-1, 1] (-1 smooth, "
                        "+1 perfectly rough)", def->tangential_restitution);
    if (!(def->wall_tangential_restitution >= -1.0 && def->wall_tangential_restitution <= 1.0))
        return fail_def(why, size, "world_def.wall_tangential_restitution = %g: expected a number in [-1, 1] (-1 "
                        "smooth, +1 perfectly rough)", def->wall_tangential_restitution);
    if (!(def->friction >= 0.0))
        return fail_def(why, size, "world_def.friction = %g: expected a number >= 0 (INFINITY: always sticks)",
                        def->friction);
    if (!(isfinite(def->elastic_below_speed) && def->elastic_below_speed >= 0.0))
        return fail_def(why, size, "world_def.elastic_below_speed = %g: expected a finite number >= 0",
                        def->elastic_below_speed);
    if (def->max_collisions_per_instant < 1 || def->max_collisions_per_instant > EVENT_INSTANT_MAX)
        return fail_def(why, size, "world_def.max_collisions_per_instant = %d: expected 1 to %d",
                        (int)def->max_collisions_per_instant, (int)EVENT_INSTANT_MAX);
    if (!isfinite(def->collapse_time))
        return fail_def(why, size, "world_def.collapse_time = %g: expected a finite time (0: automatic, < 0: off)",
                        def->collapse_time);
    if (isnan(def->neighbour_shell))
        return fail_def(why, size, "world_def.neighbour_shell = %g: expected a number (0: automatic)",
                        def->neighbour_shell);
    const carom_allocator *m = &def->allocator;
    if (!m->allocate != !m->release || (m->reallocate && !m->allocate))
        return fail_def(why, size, "world_def.allocator: allocate and release must be set together "
                                   "(reallocate is optional), or all left NULL for the C library");
    if (def->capacity_hint < 0)
        return fail_def(why, size, "world_def.capacity_hint = %d: expected a count >= 0",
                        (int)def->capacity_hint);
    return def->container ? check_container(def, why, size) : 0;
}

/* ---- lifecycle ----------------------------------------------------------- */

/* The per-body arrays (the settling state's too, where the world keeps it),
 * from capacity w->capacity to capacity; returns how many. */
enum { BODY_ARRAYS_MAX = 24 };
static int body_arrays(carom_world *w, int32_t capacity, memory_array arrays[BODY_ARRAYS_MAX])
{
    void **blocks[BODY_ARRAYS_MAX] = {(void **)&w->hot, (void **)&w->collisions, (void **)&w->id_of,
                                      (void **)&w->slot_of};
    size_t element[BODY_ARRAYS_MAX] = {sizeof *w->hot, sizeof *w->collisions, sizeof *w->id_of,
                                       sizeof *w->slot_of};
    int count = 4;
    if (w->own_stamps) blocks[count] = (void **)&w->counter, element[count++] = sizeof *w->counter;
    if (w->mass) blocks[count] = (void **)&w->mass, element[count++] = sizeof *w->mass;
    if (w->rest.floors) {
        blocks[count] = (void **)&w->rest.state, element[count++] = sizeof *w->rest.state;
        blocks[count] = (void **)&w->rest.zeno, element[count++] = 6 * sizeof *w->rest.zeno;
    }
    if (w->rest.collapse) {
        blocks[count] = (void **)&w->rest.last_pair_time, element[count++] = sizeof *w->rest.last_pair_time;
        blocks[count] = (void **)&w->rest.last_partner, element[count++] = sizeof *w->rest.last_partner;
    }
    if (w->drive.on) {
        blocks[count] = (void **)&w->drive.own, element[count++] = 3 * sizeof *w->drive.own;
        blocks[count] = (void **)&w->drive.total, element[count++] = 3 * sizeof *w->drive.total;
        blocks[count] = (void **)&w->drive.moved, element[count++] = sizeof *w->drive.moved;
    }
    if (w->spin.on) {
        spin *r = &w->spin;
        blocks[count] = (void **)&r->state, element[count++] = sizeof *r->state;
        blocks[count] = (void **)&r->inertia, element[count++] = sizeof *r->inertia;
        blocks[count] = (void **)&r->shape, element[count++] = sizeof *r->shape;
    }
    if (w->sense.capacity > 0) blocks[count] = (void **)&w->sense.last, element[count++] = sizeof *w->sense.last;
    for (int k = 0; k < count; k++) /* the 64-byte hot and spin records each on one cache line */
        arrays[k] = (memory_array){blocks[k], (size_t)w->capacity * element[k],
                                   memory_bytes((size_t)capacity, element[k]),
                                   blocks[k] == (void **)&w->hot || blocks[k] == (void **)&w->spin.state};
    return count;
}

int world_own_stamps(carom_world *w, int32_t counted)
{
    if (w->own_stamps) return 0;
    uint32_t *counter = memory_alloc(&w->def.allocator, memory_bytes((size_t)w->capacity, sizeof *counter));
    if (!counter) return -1;
    for (int32_t s = 0; s < w->capacity; s++) counter[s] = s < counted ? (uint32_t)w->collisions[s] : 0;
    w->counter = counter;
    w->own_stamps = 1;
    return 0;
}

/* A mass per body, each the common one so far. 0, or -1 if out of memory. */
static int split_masses(carom_world *w)
{
    if (w->mass) return 0;
    double *mass = memory_alloc(&w->def.allocator, memory_bytes((size_t)w->capacity, sizeof *mass));
    if (!mass) return -1;
    for (int32_t s = 0; s < w->capacity; s++) mass[s] = w->common_mass;
    w->mass = mass;
    return 0;
}

int world_set_mass(carom_world *w, int32_t s, double mass, int only_body)
{
    if (!w->mass && only_body) w->common_mass = mass;
    else if (!w->mass && mass != w->common_mass && split_masses(w) != 0) return -1;
    if (w->mass) w->mass[s] = mass;
    return 0;
}

/* Every array grows or none does, and the capacity is raised only when all
 * have: a failure leaves the world as it was. */
int world_reserve_bodies(carom_world *w, int32_t needed)
{
    if (needed <= w->capacity) return 0;
    /* the first room is what is asked for (a capacity hint, or a snapshot's
     * bodies: at 10^6 bodies the next power of two would be 5% more of
     * every per-body array); then it doubles */
    int32_t capacity = w->capacity > 0 ? w->capacity : needed;
    while (capacity < needed) capacity = capacity > INT32_MAX / 2 ? INT32_MAX : 2 * capacity;
    memory_array arrays[BODY_ARRAYS_MAX];
    int count = body_arrays(w, capacity, arrays);
    if (memory_grow_together(&w->def.allocator, arrays, count) != 0) return -1;
    /* the grid and the calendar may keep the room they got: they track it themselves */
    if (cells_reserve(&w->grid, capacity) != 0 || calendar_reserve(&w->cal, capacity) != 0) {
        memory_shrink_back(&w->def.allocator, arrays, count);
        w->cal.key_of = w->id_of;
        return -1;
    }
    w->cal.key_of = w->id_of; /* equal times go by id */
    w->capacity = capacity;
    return 0;
}

carom_status carom_world_create(const carom_world_def *def, carom_world **world, char *why,
                                size_t why_size)
{
    if (world) *world = NULL;
    if (!def || !world)
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "carom_world_create: def and world must not be NULL");
    if (check_def(def, why, why_size)) return CAROM_INVALID_ARGUMENT;
    carom_world *w = memory_alloc_zeroed(&def->allocator, 1, sizeof *w);
    if (!w) return message_refuse(why, why_size, CAROM_OUT_OF_MEMORY, "out of memory creating a world");
    w->def = *def;
    w->grid.mem = w->nb.mem = w->nb.large.mem = w->cal.mem = w->carried.mem = &w->def.allocator;
    w->dim = def->dim;
    const double box[3] = {def->box.x, def->box.y, def->box.z};
    const double g[3] = {def->gravity.x, def->gravity.y, def->gravity.z};
    for (int a = 0; a < 3; a++) {
        int active = a < def->dim;
        w->side[a] = active ? box[a] : 1.0;
        w->half[a] = 0.5 * w->side[a];
        w->periodic[a] = active && def->boundary[a] == CAROM_PERIODIC;
        w->gravity[a] = active ? g[a] : 0.0;
        if (w->gravity[a] != 0.0) w->has_gravity = 1;
    }
    if (def->container) {
        w->container = memory_alloc(&w->def.allocator, def->container->bytes);
        if (w->container) {
            memcpy(w->container, def->container, def->container->bytes);
            container_relink(w->container);
            w->container_volume = -1.0; /* found when first needed: a composite's quadrature takes 50-100 ms */
        }
        w->def.container = w->container;
    }
    settle_configure(w);
    w->screen_lanes = screen_available();
    w->own_stamps = w->rest.floors; /* bodies come to rest: a change of motion that is not a collision */
    w->spin.rough = def->tangential_restitution > -1.0 || def->wall_tangential_restitution > -1.0;
    if (w->spin.rough) spin_enable(w); /* no bodies yet: allocates nothing */
    if ((def->container && !w->container) || world_reserve_bodies(w, def->capacity_hint) != 0) {
        carom_world_destroy(w);
        return message_refuse(why, why_size, CAROM_OUT_OF_MEMORY, "out of memory creating a world for %d bodies",
                              (int)def->capacity_hint);
    }
    measure_open_window(&w->meas, 0.0);
    if (why && why_size > 0) why[0] = '\0';
    *world = w;
    return CAROM_OK;
}

void carom_world_destroy(carom_world *w)
{
    if (!w) return;
    carom_allocator allocator = w->def.allocator;
    memory_array arrays[BODY_ARRAYS_MAX];
    int count = body_arrays(w, w->capacity, arrays);
    for (int k = 0; k < count; k++) memory_free(&allocator, *arrays[k].block, arrays[k].old_bytes);
    sensor_free(w);
    steering_free(w);
    spin_free(w);
    cells_free(&w->grid);
    carries_free(&w->carried);
    neighbours_free(&w->nb);
    calendar_free(&w->cal);
    if (w->container) memory_free(&allocator, w->container, w->container->bytes);
    memory_free(&allocator, w, sizeof *w);
}

const char *carom_world_message(const carom_world *w) { return w ? w->message : "no world"; }
int32_t carom_world_body_count(const carom_world *w) { return w ? w->count : 0; }
carom_world_def carom_world_definition(const carom_world *w)
{
    return w ? w->def : carom_default_world_def();
}
double carom_world_time(const carom_world *w) { return w ? w->clock : 0.0; }

/* ---- adding bodies ------------------------------------------------------- */

carom_status world_check_number(carom_world *w, int32_t id, const char *what, char axis,
                                 double value)
{
    if (isfinite(value) && in_scale(value)) return CAROM_OK;
    if (axis)
        return world_fail(w, CAROM_INVALID_ARGUMENT,
                          "body %d: %s.%c = %g: expected 0 or a magnitude in the supported range " SCALE_TEXT,
                          (int)id, what, axis, value);
    return world_fail(w, CAROM_INVALID_ARGUMENT,
                      "body %d: %s = %g: expected 0 or a magnitude in the supported range " SCALE_TEXT, (int)id,
                      what, value);
}

static carom_status check_body_numbers(carom_world *w, int32_t id, const carom_body_def *b)
{
    const double x[3] = {b->position.x, b->position.y, b->position.z};
    const double v[3] = {b->velocity.x, b->velocity.y, b->velocity.z};
    carom_status st;
    for (int a = 0; a < w->dim; a++) {
        if ((st = world_check_number(w, id, "position", axis_name[a], x[a])) != CAROM_OK) return st;
        if ((st = world_check_number(w, id, "velocity", axis_name[a], v[a])) != CAROM_OK) return st;
    }
    int polygon = b->polygon_vertices != 0 || b->polygon;
    if (!polygon && !(isfinite(b->radius) && b->radius > 0.0 && in_scale(b->radius)))
        return world_fail(w, CAROM_INVALID_ARGUMENT,
                          "body %d: radius = %g: expected a number > 0 in the supported range " SCALE_TEXT, (int)id,
                          b->radius);
    if (!world_mass_in_range(b->mass) && !drive_is_kinematic(b->mass))
        return world_fail(w, CAROM_INVALID_ARGUMENT,
                          "body %d: mass = %g: expected a number in the supported range 1e-100 to 1e100, "
                          "or INFINITY for a kinematic body", (int)id, b->mass);
    const double acc[3] = {b->acceleration.x, b->acceleration.y, b->acceleration.z};
    for (int a = 0; a < w->dim; a++)
        if ((st = world_check_number(w, id, "acceleration", axis_name[a], acc[a])) != CAROM_OK) return st;
    return CAROM_OK;
}

static carom_status check_in_box(carom_world *w, int32_t id, const double x[3], double r)
{
    for (int a = 0; a < w->dim; a++) {
        if (w->periodic[a] && w->side[a] / 3.0 < 2.0 * r)
            return world_fail(w, CAROM_BOX_TOO_SMALL,
                              "body %d: radius %g needs a periodic side of at least 3 diameters (%g) "
                              "on axis %c for the cell grid, but the side is %g",
                              (int)id, r, 6.0 * r, axis_name[a], w->side[a]);
        if (!w->periodic[a] && w->side[a] < 2.0 * r)
            return world_fail(w, CAROM_BOX_TOO_SMALL,
                              "body %d: diameter %g does not fit between the walls of axis %c (side %g)",
                              (int)id, 2.0 * r, axis_name[a], w->side[a]);
        double reach = w->periodic[a] ? w->half[a] : w->half[a] - r;
        if (!(x[a] >= -reach && x[a] <= reach))
            return world_fail(w, CAROM_OUTSIDE_BOX,
                              "body %d: position.%c = %g is outside the box: expected a value in "
                              "[%g, %g] for radius %g",
                              (int)id, axis_name[a], x[a], -reach, reach, r);
    }
    return CAROM_OK;
}

/* Keeps a grid fit for overlap checks while bodies are added: cells wide
 * enough for the new body, and not too few for the number of bodies. */
static int fit_grid_for(carom_world *w, double radius)
{
    double widest = radius > w->max_radius ? radius : w->max_radius;
    int narrow = 0;
    for (int a = 0; a < w->dim; a++)
        if (w->grid.total == 0 || w->grid.width[a] < 2.0 * widest) narrow = 1;
    int crowded = w->count + 1 > 2 * (int64_t)w->grid_bodies;
    if (!narrow && !crowded) return 0;
    double width = 2.5 * widest;
    for (int a = 0; a < w->dim; a++)
        if (w->periodic[a] && width > w->side[a] / 3.0) width = w->side[a] / 3.0;
    int64_t expected = w->count + 1 > w->def.capacity_hint ? 2 * (int64_t)(w->count + 1)
                                                           : w->def.capacity_hint;
    if (schedule_regrid(w, width, 2 * expected) != 0) return -1; /* the grid is then as it was */
    w->grid_bodies = w->count + 1;
    w->needs_rebuild = 1; /* cell exits predicted on the old grid are void */
    return 0;
}

static carom_status check_no_overlap(carom_world *w, int32_t id, const double x[3], double r, int32_t skip)
{
    cells_neighbour stencil[CELLS_STENCIL_MAX];
    int count = cells_stencil(&w->grid, cells_locate(&w->grid, x), stencil);
    for (int k = 0; k < count; k++) {
        for (int32_t j = w->grid.head[stencil[k].cell]; j >= 0; j = w->grid.next[j]) {
            if (j == skip) continue;
            double xj[3], vj[3], d2 = 0.0, sigma = r + w->hot[j].radius;
            motion_state_at(&w->hot[j], motion_gravity(w, j), w->has_gravity, w->clock, xj, vj);
            for (int a = 0; a < 3; a++) {
                double d = xj[a] + stencil[k].shift[a] - x[a];
                d2 += d * d;
            }
            if (d2 < sigma * sigma)
                return world_fail(w, CAROM_OVERLAP,
                                  "body %d at (%g, %g, %g) overlaps body %d at (%g, %g, %g): "
                                  "distance %.17g < sum of radii %.17g",
                                  (int)id, x[0], x[1], x[2], (int)w->id_of[j], xj[0], xj[1], xj[2], sqrt(d2),
                                  sigma);
        }
    }
    return CAROM_OK;
}

/* Is the grid fit for overlap checks of a body of this radius (its cells at
 * least one largest diameter wide)? */
static int grid_fits(const carom_world *w, double radius)
{
    if (w->grid.total == 0) return 0;
    double widest = radius > w->max_radius ? radius : w->max_radius;
    for (int a = 0; a < w->dim; a++)
        if (w->grid.width[a] < 2.0 * widest) return 0;
    return 1;
}

/* The overlap check against every body, through the nearest periodic image:
 * for a body wider than the grid was made for, before the grid is changed,
 * so that a refused body leaves the world exactly as it was. */
static carom_status check_no_overlap_any(carom_world *w, int32_t id, const double x[3], double r, int32_t skip)
{
    for (int32_t j = 0; j < w->count; j++) {
        if (j == skip) continue;
        double xj[3], vj[3], d2 = 0.0, sigma = r + w->hot[j].radius;
        motion_state_at(&w->hot[j], motion_gravity(w, j), w->has_gravity, w->clock, xj, vj);
        for (int a = 0; a < 3; a++) {
            double d = xj[a] - x[a];
            if (w->periodic[a]) d -= w->side[a] * nearbyint(d / w->side[a]);
            d2 += d * d;
        }
        if (d2 < sigma * sigma)
            return world_fail(w, CAROM_OVERLAP,
                              "body %d at (%g, %g, %g) overlaps body %d: distance %.17g < sum of radii %.17g",
                              (int)id, x[0], x[1], x[2], (int)w->id_of[j], sqrt(d2), sigma);
    }
    return CAROM_OK;
}

/* Inside the container, with the body's clearance >= 0. */
static carom_status check_in_container(carom_world *w, int32_t id, const double x[3], double r)
{
    double clearance = container_distance(w->container, x, NULL) - r;
    if (clearance >= 0.0) return CAROM_OK;
    if (w->dim == 2)
        return world_fail(w, CAROM_OUTSIDE_BOX,
                          "body %d at (%g, %g) with radius %g: outside the container (clearance %g): expected "
                          "a place where the container's distance is at least the radius",
                          (int)id, x[0], x[1], r, clearance);
    return world_fail(w, CAROM_OUTSIDE_BOX,
                      "body %d at (%g, %g, %g) with radius %g: outside the container (clearance %g): expected "
                      "a place where the container's distance is at least the radius",
                      (int)id, x[0], x[1], x[2], r, clearance);
}

carom_status world_check_place(carom_world *w, int32_t id, double x[3], double radius, int32_t skip)
{
    const polygon_shape *shape = skip >= 0 && w->spin.polygons ? spin_polygon(&w->spin, skip) : NULL;
    return world_check_place_shape(w, id, x, radius, skip, shape,
                                   shape ? spin_angle_at(w, skip, w->clock) : 0.0);
}

carom_status world_check_place_shape(carom_world *w, int32_t id, double x[3], double radius, int32_t skip,
                                     const polygon_shape *shape, double angle)
{
    if (shape || w->spin.polygons) { /* exact shapes (shapes.c); a disk is first checked as below */
        carom_status st = shape ? CAROM_OK : check_in_box(w, id, x, radius);
        if (st == CAROM_OK && !shape && w->container) st = check_in_container(w, id, x, radius);
        return st == CAROM_OK ? shapes_check_place(w, id, x, radius, shape, angle, skip) : st;
    }
    carom_status st = check_in_box(w, id, x, radius);
    if (st == CAROM_OK && w->container) st = check_in_container(w, id, x, radius);
    if (st != CAROM_OK) return st;
    for (int a = 0; a < w->dim; a++)
        if (w->periodic[a] && x[a] >= w->half[a]) x[a] -= w->side[a];
    return grid_fits(w, radius) ? check_no_overlap(w, id, x, radius, skip)
                                : check_no_overlap_any(w, id, x, radius, skip);
}

/* A new body takes the next free slot; its id is the number of bodies before it. */
static void store_body(carom_world *w, int32_t id, const double x[3], const carom_body_def *b,
                       const polygon_shape *shape)
{
    w->id_of[id] = id;
    w->slot_of[id] = id;
    body_hot *h = &w->hot[id];
    const double v[3] = {b->velocity.x, b->velocity.y, b->velocity.z};
    for (int a = 0; a < 3; a++) {
        h->x[a] = x[a];
        h->v[a] = a < w->dim ? v[a] : 0.0;
    }
    h->t = w->clock;
    h->radius = shape->count > 0 ? shape->radius : b->radius;
    int stored = world_set_mass(w, id, b->mass, w->count == 0); /* room was made before */
    assert(stored == 0);
    (void)stored;
    if (w->own_stamps) w->counter[id] = 0;
    w->collisions[id] = 0;
    *world_event(w, id) = (body_event){-1, 0, EVENT_NONE, 0};
    settle_new_body(w, id);
    if (w->sense.last) w->sense.last[id] = (sensor_mark){-INFINITY, -1};
    if (w->drive.on) {
        const double a[3] = {b->acceleration.x, b->acceleration.y, b->acceleration.z};
        drive_new_body(w, id, a);
        w->drive.kinematic += drive_is_kinematic(b->mass);
    }
    if (w->spin.on) spin_new_body(w, id, b, shape);
}

/* A world whose grid files anchors without a record of their cells (after a
 * rebuild with neighbour lists) records them again before a body is added:
 * until the next rebuild the grid holds bodies filed by position as well. */
static int keep_cells(carom_world *w)
{
    if (w->grid.cell || w->grid.capacity == 0) return 0;
    if (cells_keep_cells(&w->grid, 1) != 0) return -1;
    for (int32_t s = 0; s < w->count; s++) w->grid.cell[s] = world_anchor_cell(w, s);
    return 0;
}

static int is_driven_def(const carom_body_def *b)
{
    return drive_is_kinematic(b->mass) || b->acceleration.x != 0.0 || b->acceleration.y != 0.0 ||
           b->acceleration.z != 0.0;
}

carom_status carom_world_add_body(carom_world *w, const carom_body_def *b, int32_t *id_out)
{
    if (!w) return CAROM_INVALID_ARGUMENT;
    int32_t id = w->count;
    if (!b) return world_fail(w, CAROM_INVALID_ARGUMENT, "body %d: the body def is NULL", (int)id);
    if (w->in_callback)
        return world_fail(w, CAROM_INVALID_ARGUMENT, "body %d: cannot add bodies from the event callback",
                          (int)id);
    if (id == INT32_MAX)
        return world_fail(w, CAROM_OUT_OF_MEMORY, "body %d: too many bodies", (int)id);
    carom_status st = check_body_numbers(w, id, b);
    polygon_shape shape;
    if (st == CAROM_OK) st = spin_check_def(w, id, b, &shape);
    double x[3] = {b->position.x, b->position.y, w->dim == 3 ? b->position.z : 0.0};
    double radius = shape.count > 0 ? shape.radius : b->radius;
    /* every check before anything changes: a refused body leaves the world as it was */
    if (st == CAROM_OK)
        st = world_check_place_shape(w, id, x, radius, -1, shape.count > 0 ? &shape : NULL,
                                     w->dim == 2 ? b->angle : 0.0);
    if (st != CAROM_OK) return st;
    if (keep_cells(w) != 0 || world_reserve_bodies(w, id + 1) != 0 ||
        (w->count > 0 && b->mass != w->common_mass && split_masses(w) != 0) ||
        (is_driven_def(b) && drive_enable(w) != 0) ||
        (spin_needed_by(b, w->dim) && spin_enable(w) != 0) || (shape.count > 0 && spin_reserve_shape(w) != 0) ||
        fit_grid_for(w, radius) != 0)
        return world_fail(w, CAROM_OUT_OF_MEMORY, "body %d: out of memory", (int)id);
    store_body(w, id, x, b, &shape);
    cells_insert(&w->grid, id, cells_locate(&w->grid, x));
    if (radius > w->max_radius) w->max_radius = radius;
    w->count++;
    w->needs_rebuild = 1;
    if (id_out) *id_out = id;
    return CAROM_OK;
}

/* ---- reading and steering ------------------------------------------------ */

carom_status world_check_id(const carom_world *w, int32_t id)
{
    if (id >= 0 && id < w->count) return CAROM_OK;
    return world_fail((carom_world *)w, CAROM_NOT_FOUND, "body %d: no such body (the world has %d)",
                      (int)id, (int)w->count);
}

carom_status carom_world_get_body(const carom_world *w, int32_t id, carom_body_state *state)
{
    if (!w || !state) return CAROM_INVALID_ARGUMENT;
    carom_status st = world_check_id(w, id);
    if (st != CAROM_OK) return st;
    int32_t s = w->slot_of[id];
    memset(state, 0, sizeof *state); /* padding too: states compare bytewise */
    double x[3], v[3];
    motion_state_at(&w->hot[s], motion_gravity(w, s), w->has_gravity, w->clock, x, v);
    for (int a = 0; a < 3; a++) {
        if (!w->periodic[a]) continue;
        if (x[a] >= w->half[a]) x[a] -= w->side[a];
        else if (x[a] < -w->half[a]) x[a] += w->side[a];
    }
    state->position = (carom_vec){x[0], x[1], x[2]};
    state->velocity = (carom_vec){v[0], v[1], v[2]};
    state->radius = w->hot[s].radius;
    state->mass = world_mass(w, s);
    state->collisions = world_collisions(w, s);
    const double *own = w->drive.on ? &w->drive.own[3 * id] : NULL;
    state->acceleration = own ? (carom_vec){own[0], own[1], own[2]} : (carom_vec){0.0, 0.0, 0.0};
    spin_get_state(w, id, state);
    return CAROM_OK;
}

