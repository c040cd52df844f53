/* run.c — the core loop of exact event-driven dynamics.
 *
 *   while the earliest scheduled event is due before t_end:
 *       take the body whose event is earliest;
 *       a pair event whose partner has collided since it was predicted is
 *       stale: predict the body again;
 *       otherwise bring the bodies involved (and only those) to the event
 *       time, apply it, and predict their next events.
 *
 * Seeds 000 and 001 (Torgesen) give the loop; the stale test by collision
 * counters and single-event scheduling follow Smallenburg (2022); processing
 * bodies lazily follows Lubachevsky (J. Comput. Phys. 94, 255 (1991)).
 * A body that collides max_collisions_per_instant times without the clock
 * moving is jammed (seed 002, 2.1.2: a row pinned between walls): the run
 * stops with CAROM_JAMMED rather than spin on zero-time events.
 * In large worlds the records the next events will read are prefetched
 * ahead of them: their first stages a bucket ahead, as the calendar's walk
 * along the next bucket's list reaches each body (look_ahead), and the
 * neighbours of the earliest near event after the current one an event
 * ahead (or from the near heap's top, where a crowd made the near events a
 * heap).
 */
#include <assert.h>
#include <math.h>

#include "boundary.h"
#include "calendar.h"
#include "collide.h"
#include "motion.h"
#include "order.h"
#include "prefetch.h"
#include "replay.h"
#include "rough.h"
#include "schedule.h"
#include "settle.h"
#include "shapes.h"
#include "speculate.h"
#include "world.h"

static void look_ahead(carom_world *w, int32_t read);

/* Brings body i to time t, closing its flight in the kinetic-energy integral. */
static void advance(carom_world *w, int32_t i, double t)
{
    if (w->steering.count) steering_note_flight(w, i, t);
    const double *g = motion_gravity(w, i);
    measure_flight(&w->meas, &w->hot[i], world_mass(w, i), g, w->has_gravity, t);
    motion_advance(&w->hot[i], g, w->has_gravity, t);
}

/* Counts an event of body i at time t; fails if i is jammed: stuck in events
 * that do not let the clock advance, or only let it creep (each within 2^-40
 * of the clock, or of the world's time scale d / v, after the one before:
 * what a collapsing cluster does). */
static carom_status note_instant(carom_world *w, int32_t i, double t)
{
    double since = t - w->hot[i].t;
    if (since <= 0x1p-40 * fabs(t) || since <= w->rest.creep_span) {
        body_event *e = world_event(w, i);
        if (++e->instant >= (uint32_t)w->def.max_collisions_per_instant)
            return world_fail(w, CAROM_JAMMED,
                              "body %d had %u events in a row at t = %.17g without the clock advancing "
                              "(by more than 2^-40 of it, or of the time scale, each): %s",
                              (int)w->id_of[i], (unsigned)e->instant, t,
                              w->drive.kinematic ? "it is squeezed (between a kinematic body and a wall or another "
                                                   "kinematic body?), jammed or collapsing"
                                                 : "the configuration is jammed or collapsing; world.collapse_time "
                                                   "(the TC model) or world.elastic_below_speed cures collapse");
    } else {
        world_event(w, i)->instant = 0;
    }
    return CAROM_OK;
}

/* Hands the event to the callback; CAROM_STOPPED if it asks to stop. */
static carom_status report(carom_world *w, carom_event_kind kind, int32_t i, int32_t j, double impulse,
                           int32_t direction)
{
    if (!w->def.on_event) return CAROM_OK;
    carom_event e = {w->clock, kind, w->id_of[i], kind == CAROM_EVENT_PAIR ? w->id_of[j] : j, impulse, direction};
    w->in_callback = 1;
    int stop = w->def.on_event(w->def.user, &e);
    w->in_callback = 0;
    if (!stop) return CAROM_OK;
    return world_fail(w, CAROM_STOPPED, "the event callback stopped the run at t = %.17g", w->clock);
}

/* The impulse between free body i and kinematic body k (slots), dr = x_k - x_i;
 * the kinetic energy the free body gains is the kinematic body's work. */
static double collide_with_kinematic(carom_world *w, int32_t i, int32_t k, const double dr[3], double e,
                                     double *virial)
{
    double *v = w->hot[i].v, before = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    double impulse = collide_kinematic(v, w->hot[k].v, world_mass(w, i), dr, e, w->def.elastic_below_speed, virial);
    w->meas.kinematic_work += 0.5 * world_mass(w, i) * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] - before);
    return impulse;
}

/* The impulse of a pair collision (slots i, j, dr = x_j - x_i); a kinematic
 * body's motion never changes, so its counter is left alone and the
 * predictions others made with it stay valid. */
#if defined(__GNUC__)
__attribute__((always_inline)) inline
#endif
static double collide_bodies(carom_world *w, int32_t i, int32_t j, const double dr[3], double e, double beta,
                             double t, double *virial)
{
    if (w->spin.rough) return rough_pair(w, i, j, dr, e, beta, t, virial);
    if (w->drive.kinematic && drive_is_kinematic(world_mass(w, i))) {
        const double back[3] = {-dr[0], -dr[1], -dr[2]};
        world_restamp(w, j);
        return collide_with_kinematic(w, j, i, back, e, virial);
    }
    if (w->drive.kinematic && drive_is_kinematic(world_mass(w, j))) {
        world_restamp(w, i);
        return collide_with_kinematic(w, i, j, dr, e, virial);
    }
    world_restamp(w, i);
    world_restamp(w, j);
    return collide_pair(w->hot[i].v, w->hot[j].v, world_mass(w, i), world_mass(w, j), dr, e, w->def.elastic_below_speed,
                        virial);
}

/* The separation x_j - x_i at contact, through the nearest periodic image. */
static void contact_separation(const carom_world *w, int32_t i, int32_t j, double dr[3])
{
    for (int a = 0; a < 3; a++) {
        dr[a] = w->hot[j].x[a] - w->hot[i].x[a];
        if (w->periodic[a]) dr[a] -= w->side[a] * nearbyint(dr[a] / w->side[a]);
    }
}

#if defined(__GNUC__)
__attribute__((always_inline)) inline
#endif
static carom_status process_pair(carom_world *w, int32_t owner, double t)
{
    int32_t partner = world_event(w, owner)->partner;
    int shaped = shapes_is_polygon(w, owner) || shapes_is_polygon(w, partner); /* a polygon: shapes.c */
    int first = w->id_of[owner] < w->id_of[partner]; /* i has the lower id */
    int32_t i = first ? owner : partner, j = first ? partner : owner;
    carom_status st = note_instant(w, i, t);
    if (st == CAROM_OK) st = note_instant(w, j, t);
    if (st != CAROM_OK) return st;
    advance(w, i, t);
    advance(w, j, t);
    double dr[3], virial;
    contact_separation(w, i, j, dr);
    int lasting = w->rest.collapse && settle_pair_is_tc(w, i, j, t); /* the TC model: no dissipation */
    double e = lasting ? 1.0 : w->def.restitution;
    double impulse = shaped ? shapes_collide_pair(w, i, j, dr, e, lasting ? 0.0 : w->def.friction, &virial)
                            : collide_bodies(w, i, j, dr, e, lasting ? -1.0 : w->def.tangential_restitution, t,
                                             &virial);
    world_count_collision(w, i);
    world_count_collision(w, j);
    if (w->rest.collapse || w->rest.floors) settle_after_pair(w, i, j, t);
    w->meas.pair_events++;
    w->meas.window_pairs++;
    w->meas.virial += virial;
    /* i is filed after j's prediction, which hides the read of the bucket
     * head its filing needs (a miss at 10^6 bodies), and j after i, which
     * hides some of j's; the order of filing changes nothing, since no
     * prediction reads the calendar. */
    double t_i = schedule_prediction(w, i);
    if (w->count >= PREFETCH_FROM_BODIES) calendar_prefetch(&w->cal, t_i);
    look_ahead(w, calendar_look_ahead(&w->cal)); /* its second step an event, half an event from the first */
    double t_j = schedule_prediction(w, j);
    if (w->count >= PREFETCH_FROM_BODIES) calendar_prefetch(&w->cal, t_j);
    calendar_set(&w->cal, i, t_i);
    calendar_set(&w->cal, j, t_j);
    return report(w, CAROM_EVENT_PAIR, i, j, impulse, 0);
}

/* The tangential restitution of a wall bounce: the world's, or smooth where
 * the TC model makes the bounce elastic. */
static double wall_beta(const carom_world *w, int32_t i, int wall, double t, double speed, double previous)
{
    return settle_wall_is_tc(w, i, wall, t, speed, previous) ? -1.0 : w->def.wall_tangential_restitution;
}

/* A bounce off the container: the normal velocity along the boundary's
 * outward normal n is reversed and scaled by e. Written with n as given,
 * v' = v - (1 + e) (v . n) n / (n . n), so that |v| is kept at e = 1 even
 * where n is a rounding away from unit length. Grazing or receding: no
 * impulse, and the body is predicted again. */
static double reflect_off_container(carom_world *w, int32_t i, double t, double previous)
{
    double n[3], *v = w->hot[i].v;
    boundary_outward_normal(w->container, w->hot[i].x, n);
    double vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2], nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (!(vn > 0.0 && nn > 0.0)) return 0.0;
    double speed = vn / sqrt(nn);
    double e = settle_wall_restitution(w, i, CAROM_WALL_CONTAINER, t, speed, previous);
    if (w->spin.rough && world_mass(w, i) < INFINITY)
        return rough_wall(w, i, n, e, wall_beta(w, i, CAROM_WALL_CONTAINER, t, speed, previous), t);
    double k = (1.0 + e) * vn / nn;
    for (int a = 0; a < w->dim; a++) v[a] -= k * n[a];
    return (1.0 + e) * world_mass(w, i) * speed;
}

/* A polygon's bounce off a wall or the container (shapes.c): it never
 * starts a Zeno series on a floor (settle.c's rest is for disks). */
static carom_status process_shape_wall(carom_world *w, int32_t i, double t)
{
    int wall = world_event(w, i)->partner;
    double previous = w->hot[i].t; /* the body's previous event */
    carom_status st = note_instant(w, i, t);
    if (st != CAROM_OK) return st;
    advance(w, i, t);
    int lasting = shapes_wall_is_tc(w, i, t, previous); /* the TC model: no dissipation */
    double e = lasting ? 1.0 : w->def.wall_restitution, mu = lasting ? 0.0 : w->def.friction;
    double impulse = shapes_collide_wall(w, i, wall, e, mu);
    world_restamp(w, i);
    world_count_collision(w, i);
    if (w->rest.last_partner) w->rest.last_partner[w->id_of[i]] = -1;
    w->meas.wall_events++;
    w->meas.wall_impulse += impulse;
    schedule_body(w, i);
    return report(w, CAROM_EVENT_WALL, i, wall, impulse, 0);
}

static carom_status process_wall(carom_world *w, int32_t i, double t)
{
    if (shapes_is_polygon(w, i)) return process_shape_wall(w, i, t);
    int wall = world_event(w, i)->partner;
    double previous = w->hot[i].t; /* the body's previous event */
    carom_status st = note_instant(w, i, t);
    if (st != CAROM_OK) return st;
    advance(w, i, t);
    double e = 1.0, impulse;
    if (wall == CAROM_WALL_CONTAINER) {
        impulse = reflect_off_container(w, i, t, previous);
    } else {
        double outward = wall % 2 ? 1.0 : -1.0;
        e = settle_wall_restitution(w, i, wall, t, w->hot[i].v[wall / 2] * outward, previous);
        if (w->spin.rough && world_mass(w, i) < INFINITY) {
            double normal[3] = {0.0, 0.0, 0.0};
            normal[wall / 2] = outward;
            double beta = wall_beta(w, i, wall, t, w->hot[i].v[wall / 2] * outward, previous);
            impulse = rough_wall(w, i, normal, e, beta, t);
        } else {
            impulse = collide_wall(&w->hot[i].v[wall / 2], outward, world_mass(w, i), e, 0.0);
        }
    }
    if (!(impulse < INFINITY)) impulse = 0.0; /* a kinematic body: its momentum is not defined */
    world_restamp(w, i);
    world_count_collision(w, i);
    settle_after_wall(w, i, wall, t, e);
    w->meas.wall_events++;
    w->meas.wall_impulse += impulse;
    schedule_body(w, i);
    return report(w, CAROM_EVENT_WALL, i, wall, impulse, 0);
}

/* A cell crossing changes no trajectory, but the body is brought to the
 * crossing so that its next exit is predicted from inside its new cell (from
 * an older time stamp it may already be past a face, and on a parabola it
 * may come back through it). A wrap through a periodic face shifts its
 * stored position by one box side. */
static carom_status process_cell(carom_world *w, int32_t i, double t)
{
    int face = world_event(w, i)->partner;
    carom_status st = note_instant(w, i, t);
    if (st != CAROM_OK) return st;
    advance(w, i, t);
    int wrap = cells_cross(&w->grid, i, face);
    if (wrap) w->hot[i].x[face / 2] += wrap * w->side[face / 2];
    w->meas.cell_events++;
    schedule_body(w, i);
    return CAROM_OK;
}

/* The end of a Zeno series of bounces: the body comes to rest on its floor. */
static carom_status process_rest(carom_world *w, int32_t i, double t)
{
    int wall = world_event(w, i)->partner;
    carom_status st = note_instant(w, i, t);
    if (st != CAROM_OK) return st;
    advance(w, i, t);
    settle_rest(w, i, wall / 2);
    assert(w->own_stamps);
    world_restamp(w, i);
    w->meas.rest_events++;
    schedule_body(w, i);
    return report(w, CAROM_EVENT_REST, i, wall, 0.0, 0);
}

/* A body's centre crosses a sensor: nothing moves (the body is not even
 * brought forward); the crossing is reported and not offered again. */
static carom_status process_sensor(carom_world *w, int32_t i, double t)
{
    int32_t sensor = world_event(w, i)->partner;
    int32_t direction = world_event(w, i)->partner_counter ? 1 : -1;
    w->sense.last[w->id_of[i]] = (sensor_mark){t, sensor};
    w->meas.sensor_events++;
    schedule_body(w, i);
    return report(w, CAROM_EVENT_SENSOR, i, sensor, 0.0, direction);
}

/* Leaving its shell, a body gets a new neighbour list around where it is. */
static carom_status process_shell(carom_world *w, int32_t i, double t)
{
    carom_status st = note_instant(w, i, t);
    if (st != CAROM_OK) return st;
    advance(w, i, t);
    if (neighbours_renew(w, i) != 0)
        return world_fail(w, CAROM_OUT_OF_MEMORY, "out of memory growing the neighbour list of body %d",
                          (int)w->id_of[i]);
    w->meas.cell_events++;
    schedule_body(w, i);
    return CAROM_OK;
}

/* A container search that spent its budget before finding a contact: the
 * body is brought to where it got and predicted again. */
static carom_status process_recheck(carom_world *w, int32_t i, double t)
{
    carom_status st = note_instant(w, i, t);
    if (st != CAROM_OK) return st;
    advance(w, i, t);
    schedule_body(w, i);
    return CAROM_OK;
}

static int is_stale(const carom_world *w, int32_t i)
{
    const body_event *e = world_event(w, i);
    return e->kind == EVENT_PAIR && world_stamp(w, e->partner) != e->partner_counter;
}

static carom_status check_run_arguments(carom_world *w, double t_end, int64_t max_events)
{
    if (w->in_callback)
        return world_fail(w, CAROM_INVALID_ARGUMENT, "carom_world_run called from the event callback");
    if (isnan(t_end) || t_end < w->clock)
        return world_fail(w, CAROM_INVALID_ARGUMENT,
                          "t_end = %.17g must not be NaN nor before the clock (%.17g)", t_end, w->clock);
    if (isinf(t_end) && max_events < 0)
        return world_fail(w, CAROM_INVALID_ARGUMENT,
                          "an infinite t_end needs a cap on events (max_events >= 0)");
    return CAROM_OK;
}

/* Processes the earliest event, which is due. Returns 1 if it counted.
 * Inlined in each loop (run_until, and the replays' below): a call cost
 * run_until 2% more instructions a collision (bench/callgrind.sh). */
#if defined(__GNUC__)
__attribute__((always_inline)) inline
#endif
static carom_status process_next(carom_world *w, int32_t i, double t, int *counted)
{
    *counted = 0;
    if (is_stale(w, i)) {
        /* predicted as at the stale event's time, so that a prediction never
         * depends on where a window (a run's end) fell; the clock itself
         * stays at the last event */
        double clock = w->clock;
        w->clock = t;
        w->meas.stale_events++;
        schedule_body(w, i);
        w->clock = clock;
        return CAROM_OK;
    }
    /* the memory an event needs is found before anything changes */
    if (world_event(w, i)->kind == EVENT_SHELL && neighbours_prepare_renew(w, i, t) != 0)
        return world_fail(w, CAROM_OUT_OF_MEMORY, "out of memory growing the neighbour list of body %d",
                          (int)w->id_of[i]);
    const body_event *e = world_event(w, i);
    if ((e->kind == EVENT_PAIR || e->kind == EVENT_WALL) &&
        world_reserve_carries(w, i, e->kind == EVENT_PAIR ? e->partner : -1) != 0)
        return world_fail(w, CAROM_OUT_OF_MEMORY, "out of memory for the collision count of body %d",
                          (int)w->id_of[i]);
    w->clock = t;
    *counted = 1;
    switch (world_event(w, i)->kind) {
    case EVENT_PAIR: return process_pair(w, i, t);
    case EVENT_WALL: return process_wall(w, i, t);
    case EVENT_SHELL: return process_shell(w, i, t);
    case EVENT_REST: return process_rest(w, i, t);
    case EVENT_SENSOR: return process_sensor(w, i, t);
    case EVENT_FILTER: steering_process(w, i); return CAROM_OK;
    case EVENT_RECHECK: return process_recheck(w, i, t);
    default: return process_cell(w, i, t);
    }
}

/* The first stage: the records of a body whose event is near. */
PREFETCH_HELPER void prefetch_records(const carom_world *w, int32_t k)
{
    PREFETCH(&w->hot[k]);
    PREFETCH(world_event(w, k));
    PREFETCH(&w->id_of[k]); /* a pair's two ids decide which body is i */
    if (w->nb.on) {
        const int32_t *row = neighbours_fixed_row(&w->nb, k); /* a long row is rare */
        PREFETCH(&w->nb.count[k]);
        PREFETCH(&w->nb.anchor[3 * k]);
        PREFETCH(&w->nb.anchor[3 * k + 2]); /* a record of 12 bytes may straddle two lines */
        PREFETCH(row);
        PREFETCH(row + w->nb.width - 1);
    } else {
        PREFETCH(&w->grid.cell[k]);
    }
    if (w->spin.rough) { /* rough_pair reads and writes these */
        PREFETCH(&w->spin.state[k]);
        PREFETCH(&w->spin.inertia[k]);
    }
}

/* The heads of the cells of a stencil around cell. A row of three is 12
 * bytes, on one line or two: in a grid of PREFETCH_BOTH_ENDS_FROM_CELLS
 * cells or more the last head of each row is asked for too (a line in
 * eight would otherwise wait in the next stage); below, the heads mostly
 * sit in cache, and the second request cost more than it saved
 * (bench/README.md, "The cell a crossing leads into, both ends of a row of
 * heads, and the second filing's head"). */
enum { PREFETCH_BOTH_ENDS_FROM_CELLS = 1 << 18 };

PREFETCH_HELPER void prefetch_stencil_heads(const cells *grid, int32_t cell, const cells_pattern *pattern)
{
    int both_ends = grid->total >= PREFETCH_BOTH_ENDS_FROM_CELLS;
    for (int m = 0; m < pattern->count; m += 3) {
        PREFETCH(grid->head + cell + pattern->offset[m]);
        if (both_ends) PREFETCH(grid->head + cell + pattern->offset[m + 2 < pattern->count ? m + 2 : m]);
    }
}

/* The heads of the cells around cell. In a grid of PREFETCH_GUESS_FROM_CELLS
 * cells or more, whose per-cell stencil index (a byte a cell) no longer
 * stays in cache, the stencil is taken to be an inner cell's, and the line
 * of the cell's own index is asked for, which the next stage reads: reading
 * it here waited on that line, a quarter of the event loop's time with
 * cells at 10^6 bodies. A cell on a face of the box then gets a few wrong
 * lines, kept inside the array. In smaller grids the guess cost more than
 * the wait (bench/README.md). */
PREFETCH_HELPER void prefetch_cell_heads(const carom_world *w, int32_t cell)
{
    const cells *grid = &w->grid;
    if (grid->total < PREFETCH_GUESS_FROM_CELLS) {
        prefetch_stencil_heads(grid, cell, cells_pattern_at(grid, cell));
        return;
    }
    const cells_pattern *pattern = cells_pattern_inside(grid);
    PREFETCH(&grid->pattern_of[cell]);
    for (int m = 0; m < pattern->count; m += 3) { /* each row's first and last, as prefetch_stencil_heads */
        int32_t c = cell + pattern->offset[m];
        c = c < 0 ? 0 : c < grid->total - 2 ? c : grid->total - 3;
        PREFETCH(grid->head + c);
        PREFETCH(grid->head + c + 2);
    }
}

/* With cell lists, the cell whose stencil body k's next prediction scans:
 * its own, or, where that prediction follows k's own event (own) and the
 * event is a crossing into the next cell, that cell (at packing 0.3 a third
 * of the events). The next cell is taken by index, which a crossing that
 * wraps around the box gets wrong; kept inside the grid, the guess then
 * costs only prefetches. */
static inline int32_t scanned_cell(const carom_world *w, int32_t k, int own)
{
    int32_t cell = w->grid.cell[k];
    const body_event *e = world_event(w, k);
    int a = e->partner / 2 & 3, crossing = own && e->kind == EVENT_CELL;
    int32_t stride = a == 0 ? 1 : a == 1 ? w->grid.n[0] : w->grid.n[0] * w->grid.n[1];
    int32_t next = cell + (e->partner & 1 ? stride : -stride);
    return crossing && next >= 0 && next < w->grid.total ? next : cell;
}

/* The first stage too, with cell lists: the heads of the cells around body
 * k's next prediction (scanned_cell). */
PREFETCH_HELPER void prefetch_heads(const carom_world *w, int32_t k, int own)
{
    if (!w->nb.on) prefetch_cell_heads(w, scanned_cell(w, k, own));
}

/* Entry m of a fixed row, as a slot kept below the body count: the
 * prefetcher reads a row over its whole width, past its count too. */
static inline int32_t listed_slot(const carom_world *w, const int32_t *row, int32_t m)
{
    int32_t j = neighbours_slot(row[m]);
    return (uint32_t)j < (uint32_t)w->count ? j : 0;
}

/* The second stage: the hot records of every body body k's prediction will
 * read. A fixed row is walked over its whole width, whatever its count: a
 * loop of constant length is not mispredicted at its end, and the count, on
 * a line of its own, is not waited for (at 10^6 bodies that wait was a
 * tenth of the event loop's time). Entries past the count are zero or old
 * slots (neighbours.c writes every entry), kept below the body count, so
 * they bring in records for nothing; so does the fixed row of a body whose
 * row is long (rare), which holds where that row is. */
PREFETCH_HELPER void prefetch_neighbours(const carom_world *w, int32_t k, int own)
{
    if (w->nb.on) {
        const int32_t *row = neighbours_fixed_row(&w->nb, k);
        const uint32_t *stamps = w->own_stamps ? w->counter : w->collisions; /* the pair kept reads one */
        for (int32_t m = 0; m < w->nb.width; m++) {
            int32_t j = listed_slot(w, row, m);
            PREFETCH(&w->hot[j]);
            PREFETCH(&stamps[j]);
        }
        return;
    }
    /* With cells, the first body of each cell (at packing 0.3 a cell holds
     * about one): following the links would wait on each in turn. An empty
     * cell asks for body 0's lines, which costs nothing, rather than take a
     * branch that is a coin flip at that packing. The stamps too: the pair
     * kept reads its partner's, and at 10^6 bodies that wait was most of
     * schedule_prediction's time (with lists the rows' stamps are asked for
     * above). */
    int32_t cell = scanned_cell(w, k, own);
    const cells_pattern *pattern = cells_pattern_at(&w->grid, cell);
    const int32_t *head = w->grid.head + cell;
    const uint32_t *stamps = w->own_stamps ? w->counter : w->collisions; /* the pair kept reads one */
    for (int m = 0; m < pattern->count; m++) {
        int32_t j = head[pattern->offset[m]];
        j = j < 0 ? 0 : j; /* an empty cell (-1): body 0, by a conditional move */
        PREFETCH(&w->hot[j]);
        PREFETCH(&w->grid.next[j]);
        PREFETCH(&stamps[j]);
    }
}

/* The second stage too, for body k leaving its shell: the rows and row
 * lengths of its neighbours, from which its renewal takes it out and most
 * of which it puts back (neighbours_renew; at 10^6 bodies, each a miss).
 * The row is walked over its width, as in prefetch_neighbours. */
PREFETCH_HELPER void prefetch_old_rows(const carom_world *w, int32_t k)
{
    const int32_t *row = neighbours_fixed_row(&w->nb, k);
    for (int32_t m = 0; m < w->nb.width; m++) {
        int32_t j = listed_slot(w, row, m);
        PREFETCH(neighbours_fixed_row(&w->nb, j));
        PREFETCH(&w->nb.count[j]);
    }
}

/* The cell body k, leaving its shell, will be filed in: where its new anchor
 * will be, which its list renewal searches around (neighbours_prepare_renew).
 * Straight flight is assumed: near a box face the guess may be a cell off,
 * which costs only prefetches. */
static inline int32_t renewal_cell(const carom_world *w, int32_t k, const cells_pattern **pattern)
{
    const body_hot *b = &w->hot[k];
    double dt = w->cal.body[k].time - b->t, x[3];
    for (int a = 0; a < 3; a++) x[a] = b->x[a] + b->v[a] * dt;
    return cells_locate_pattern(&w->grid, x, pattern);
}

/* The first stage for a body leaving its shell: the heads of those cells. */
PREFETCH_HELPER void prefetch_renewal_heads(const carom_world *w, int32_t k)
{
    const cells_pattern *pattern;
    int32_t cell = renewal_cell(w, k, &pattern);
    prefetch_stencil_heads(&w->grid, cell, pattern);
}

/* The second stage: the anchor and link of the first body of each. */
PREFETCH_HELPER void prefetch_renewal(const carom_world *w, int32_t k)
{
    const cells_pattern *pattern;
    int32_t cell = renewal_cell(w, k, &pattern);
    const int32_t *around = w->grid.head + cell;
    for (int m = 0; m < pattern->count; m++) {
        int32_t j = around[pattern->offset[m]];
        if (j < 0) continue;
        PREFETCH(&w->nb.anchor[3 * j]);
        PREFETCH(&w->grid.next[j]);
    }
}

/* Heap entry k's time, or INFINITY past the heap's end. Both sides may be
 * evaluated (a selection, not a branch), so the read stays inside the heap. */
static inline double heap_time(const calendar *cal, int32_t k)
{
    double t = cal->heap[k < cal->near_count ? k : 0].time;
    return k < cal->near_count ? t : INFINITY;
}

/* The position of the earliest of the four heap entries from first (the
 * children of one entry) other than skip, by time alone; first if none is
 * in the heap. Written with selections, not branches: which child is
 * earliest is a coin flip. */
static inline int32_t earliest_of_four(const calendar *cal, int32_t first, int32_t skip)
{
    int32_t best = first;
    double best_time = INFINITY;
    for (int32_t k = first; k < first + 4; k++) {
        double t = k != skip ? heap_time(cal, k) : INFINITY;
        int earlier = t < best_time;
        best_time = earlier ? t : best_time;
        best = earlier ? k : best;
    }
    return best;
}

/* The body of the event due after the one being processed (body now's),
 * or -1, guessed from the near heap: the earliest of the root's children,
 * unless that is now's twin (a pair event is held by both bodies at one
 * time, and the partner's copy vanishes with the pair), in which case the
 * earliest of the twin's siblings and children. Right in about eight
 * events of ten (it may miss an event the current one creates). */
static int32_t next_body(const calendar *cal, int32_t twin)
{
    if (cal->near_count < 2) return -1;
    int32_t first = earliest_of_four(cal, 1, -1);
    if (cal->heap[first].body != twin) return cal->heap[first].body;
    int32_t sibling = earliest_of_four(cal, 1, first), child = earliest_of_four(cal, 4 * first + 1, -1);
    double sibling_time = sibling != first ? heap_time(cal, sibling) : INFINITY, child_time = heap_time(cal, child);
    if (!(sibling_time < INFINITY || child_time < INFINITY)) return -1;
    return cal->heap[child_time < sibling_time ? child : sibling].body;
}

/* The partner of body k's event, or -1. */
static int32_t partner_of(const carom_world *w, int32_t k)
{
    const body_event *e = world_event(w, k);
    return e->kind == EVENT_PAIR ? e->partner : -1;
}

/* The second stage for the event of body k: what its predictions will read.
 * With lists, the partner's records and neighbours are asked for now too
 * (its row came with the first stage, a bucket before). With cells, only
 * the partner's cell heads are (its cell was read in the first stage), and
 * *later is set to the partner, whose neighbours a third stage asks for at
 * the next event, once the heads have arrived; otherwise *later is -1.
 * Deferring the partner's neighbours to that third stage with lists as
 * well cost a few per cent at 10^6 bodies (bench/README.md, "The
 * partner's neighbours an event ahead"). */
PREFETCH_HELPER void prefetch_event(const carom_world *w, int32_t k, int32_t *later)
{
    if (w->nb.on && world_event(w, k)->kind == EVENT_SHELL) {
        prefetch_renewal(w, k);
        prefetch_old_rows(w, k);
    }
    int32_t partner = partner_of(w, k);
    prefetch_neighbours(w, k, 1);
    *later = -1;
    if (partner < 0) return;
    PREFETCH(w->own_stamps ? (const void *)&w->counter[partner] : (const void *)&w->collisions[partner]);
    if (w->nb.on) {
        prefetch_records(w, partner);
        prefetch_neighbours(w, partner, 0);
    } else {
        prefetch_heads(w, partner, 0);
        *later = partner;
    }
}

/* The first stage for body k: its records, the cell heads around it (cells)
 * or around where it will be anchored if it is leaving its shell (lists),
 * and its partner's records. */
PREFETCH_HELPER void prefetch_body_stage(const carom_world *w, int32_t body)
{
    int32_t partner;
    prefetch_records(w, body);
    prefetch_heads(w, body, 1);
    if (w->nb.on && world_event(w, body)->kind == EVENT_SHELL) prefetch_renewal_heads(w, body);
    if ((partner = partner_of(w, body)) >= 0) prefetch_records(w, partner);
}

/* Where a large calendar's near events are a heap (a crowd at one time
 * merged a bucket's sub-buckets into them), the events due next are known a
 * few events ahead (the heap's top), and at 10^6 bodies each of their
 * records is a cache miss. Prefetching them in
 * stages, each reading only what an earlier one asked for, overlaps those
 * misses with the work of the events before them: the event records and
 * rows (or cells) of the heap's grandchildren, and with lists their hot
 * records; the records of the root's four children (the next few events)
 * and of their partners, with the cell heads around each child (cells) or
 * around where a child leaving its shell will be anchored (lists); then the
 * neighbours of the next one and of its partner (with cells, the partner's
 * at the next event; prefetch_event). Returns the body guessed next; body
 * now's event is being processed. */
PREFETCH_HELPER int32_t prefetch_upcoming(const carom_world *w, int32_t now, int32_t *later)
{
    const calendar *cal = &w->cal;
    int32_t last = cal->near_count < 5 ? cal->near_count : 5;
    for (int32_t k = 5; k < cal->near_count && k < 21; k++) { /* the grandchildren: what the next stage reads first */
        int32_t body = cal->heap[k].body;
        PREFETCH(world_event(w, body));
        PREFETCH(w->nb.on ? (const void *)neighbours_fixed_row(&w->nb, body) : (const void *)&w->grid.cell[body]);
        if (w->nb.on) PREFETCH(&w->hot[body]); /* where a child leaving its shell will be: renewal_cell */
    }
    for (int32_t k = 1; k < last; k++) prefetch_body_stage(w, cal->heap[k].body); /* cells asked for as grandchildren */
    int32_t next = next_body(cal, partner_of(w, now));
    *later = -1;
    if (next >= 0) prefetch_event(w, next, later);
    return next;
}

/* The body of the event guessed to come after the one being processed: the
 * earliest later near event in (time, key), as the calendar serves them
 * (calendar_next_near, a scan by selections: a scalar loop here compiled
 * into branches on coin flips, which the second stage's prefetches waited
 * on; bench/README.md, "A vector guess at the next event"); if there is
 * none, the earliest of the next sub-bucket, whose records the look-ahead
 * walk brought in. -1 if none. */
static int32_t next_near_body(const calendar *cal)
{
    int32_t best = calendar_next_near(cal), s = cal->sub_current + 1;
    if (best >= 0 || cal->sub_whole || s >= cal->sub_count) return best;
    const int32_t *sub = cal->sub_body + s * CALENDAR_SUB_ROOM;
    double best_time = INFINITY;
    for (int32_t k = 0; k < cal->sub_fill[s]; k++) {
        double t = cal->body[sub[k]].time;
        best = t < best_time ? sub[k] : best;
        best_time = t < best_time ? t : best_time;
    }
    return best;
}

/* prefetch_upcoming for a wide calendar, whose near events are a
 * sub-bucket's few, unsorted: the second stage for the earliest near event
 * after now's (look_ahead took the first stages a bucket before). */
PREFETCH_HELPER int32_t prefetch_upcoming_subs(const carom_world *w, int32_t *later)
{
    int32_t next = next_near_body(&w->cal);
    *later = -1;
    if (next >= 0) prefetch_event(w, next, later);
    return next;
}

/* After a step of the calendar's walk along the next bucket's list, which
 * read body read's record (calendar_look_ahead; -1: none). In a wide
 * calendar, whose near events come a few at a time from sub-buckets and so
 * give no heap's top to prefetch from, the walk also leads the first
 * stages: the row, hot record and cell of that body, and the records of the
 * body it read two steps before (prefetch_body_stage), whose row has
 * arrived by then. A bucket ahead of their time, these lines wait in L2. */
static inline void look_ahead(carom_world *w, int32_t read)
{
    if (w->cal.sub_count == 1 || w->count < PREFETCH_FROM_BODIES) return;
    int32_t staged = w->walked[1];
    w->walked[1] = w->walked[0];
    w->walked[0] = read;
    if ((uint32_t)read < (uint32_t)w->count) {
        PREFETCH(w->nb.on ? (const void *)neighbours_fixed_row(&w->nb, read) : (const void *)&w->grid.cell[read]);
        PREFETCH(&w->hot[read]);
    }
    if ((uint32_t)staged < (uint32_t)w->count) prefetch_body_stage(w, staged);
}

static carom_status container_broken(carom_world *w)
{
    return world_fail(w, CAROM_INVALID_ARGUMENT,
                      "the container's distance function changed faster than its stated Lipschitz bound %g "
                      "allows: its contact times cannot be trusted (state a larger bound)", w->container->lipschitz);
}

double carom_world_next_event_time(carom_world *w)
{
    if (!w || w->in_callback) return NAN;
    if (w->needs_rebuild && schedule_rebuild(w) != CAROM_OK) return NAN;
    int32_t i = calendar_first(&w->cal);
    if (i < 0 || world_event(w, i)->kind == EVENT_NONE) return INFINITY;
    return calendar_first_time(&w->cal);
}

static carom_status run_until(carom_world *w, double t_end, int64_t max_events)
{
    carom_status st = check_run_arguments(w, t_end, max_events);
    if (st != CAROM_OK) return st;
    if (w->needs_rebuild && (st = schedule_rebuild(w)) != CAROM_OK) return st;
    if (w->container_broken) return container_broken(w);
    if (w->container && w->container_volume < 0.0) w->container_volume = carom_container_volume(w->container);
    if (!(w->rest.time_scale > 0.0)) settle_resolve_scales(w); /* bodies set moving since */
    int64_t processed = 0;
    int32_t guessed = -1, later = -1; /* the body whose event the prefetching took for the next; see prefetch_event */
    w->walked[0] = w->walked[1] = -1;
    while (max_events < 0 || processed < max_events) {
        int32_t i = calendar_first(&w->cal);
        if (i < 0 || world_event(w, i)->kind == EVENT_NONE) break;
        double t = calendar_first_time(&w->cal);
        if (!(t <= t_end && t < INFINITY)) break; /* only finite times are events */
        if (t > w->rest.clock_limit)
            return world_fail(w, CAROM_JAMMED,
                              "the next event, at t = %.17g, is beyond t = %.17g, where the clock can no longer "
                              "resolve the motion (a unit in its last place passes 2^-20 of the time scale d / v = "
                              "%.6g): runs are supported up to 2^32 time scales",
                              t, w->rest.clock_limit, w->rest.time_scale);
        if (w->count >= PREFETCH_FROM_BODIES) {
            if (later >= 0) prefetch_neighbours(w, later, 0); /* the third stage (cells) */
            if (i != guessed) prefetch_event(w, i, &later); /* missed: its misses at least overlap now */
            guessed = w->cal.sub_count > 1 && !w->cal.near_is_heap ? prefetch_upcoming_subs(w, &later)
                                                                      : prefetch_upcoming(w, i, &later);
        }
        /* At every size: the next bucket's list is a chain of records that
         * moves into the near events at once (a wait on each in turn, from
         * L2 at 10^4 bodies, from memory at 10^6). In a large wide calendar
         * with neighbour lists, the list of the bucket after is walked a
         * step an event too, so that the first walk finds its links in
         * cache; with cells it cost more than it saved (bench/README.md,
         * "A walk a bucket before the look-ahead"). */
        look_ahead(w, calendar_look_ahead(&w->cal));
        if (w->nb.on && w->cal.sub_count > 1 && w->count >= PREFETCH_FROM_BODIES) calendar_warm_walk(&w->cal);
        int counted;
        st = process_next(w, i, t, &counted);
        processed += counted;
        if (st != CAROM_OK) return st;
        if (w->container_broken) return container_broken(w);
        w->events_since_order++;
        if (order_due(w)) order_bodies(w); /* if out of memory, it tries again later */
    }
    if (isfinite(t_end) && (max_events < 0 || processed < max_events)) w->clock = t_end;
    return CAROM_OK;
}

/* In large worlds the calendar streams the links it writes into other
 * bodies' records while the loop runs (calendar_stream), and fences them
 * before the run returns. */
carom_status carom_world_run(carom_world *w, double t_end, int64_t max_events)
{
    if (!w) return CAROM_INVALID_ARGUMENT;
    if (w->in_callback) return run_until(w, t_end, max_events); /* refused there, with its message */
    calendar_stream(&w->cal, w->count >= CALENDAR_STREAM_FROM_BODIES);
    carom_status st = run_until(w, t_end, max_events);
    calendar_stream(&w->cal, 0);
    return st;
}

carom_status carom_world_advance(carom_world *w, double dt)
{
    if (!w) return CAROM_INVALID_ARGUMENT;
    if (!(isfinite(dt) && dt >= 0.0))
        return world_fail(w, CAROM_INVALID_ARGUMENT, "dt = %g: expected a finite time >= 0", dt);
    double t_end = w->clock + dt;
    if (!isfinite(t_end))
        return world_fail(w, CAROM_INVALID_ARGUMENT, "now + dt = %g: expected a finite time", t_end);
    if (w->in_callback) return carom_world_run(w, t_end, -1); /* refused there, with its message */
    steering_window_start(w); /* steered bodies decide at each window start */
    return carom_world_run(w, t_end, -1);
}

/* ---- replays (replay.h) ---- */

/* The distinct cells an event touched: body i's before (noted) and now,
 * and its pair partner's. */
static void note_touched(const carom_world *w, int32_t i, int32_t partner, replay_event *out)
{
    int32_t before = out->cells[0], now = w->grid.cell[i];
    int32_t other = partner >= 0 ? w->grid.cell[partner] : -1;
    int n = 1;
    if (now != before) out->cells[n++] = now;
    if (other >= 0 && other != before && other != now) out->cells[n++] = other;
    while (n < 3) out->cells[n++] = -1;
}

carom_status run_record_next(carom_world *w, replay_event *out)
{
    const char *why = replay_unsupported(w);
    if (why) return world_fail(w, CAROM_INVALID_ARGUMENT, "cannot record: %s", why);
    int32_t i = calendar_first(&w->cal);
    double t = i >= 0 ? calendar_first_time(&w->cal) : INFINITY;
    if (i < 0 || world_event(w, i)->kind == EVENT_NONE || !(t < INFINITY))
        return world_fail(w, CAROM_INVALID_ARGUMENT, "cannot record: no event is due");
    if (t > w->rest.clock_limit)
        return world_fail(w, CAROM_JAMMED, "the next event, at t = %.17g, is beyond t = %.17g, where the clock "
                                           "can no longer resolve the motion", t, w->rest.clock_limit);
    int32_t partner = world_event(w, i)->kind == EVENT_PAIR ? world_event(w, i)->partner : -1;
    *out = (replay_event){t, i, {w->grid.cell[i], -1, -1}};
    int counted;
    carom_status st = process_next(w, i, t, &counted);
    if (st != CAROM_OK) return st;
    note_touched(w, i, partner, out);
    w->events_since_order++;
    return CAROM_OK;
}

static carom_status check_replay(carom_world *w, const replay_event *events, const int64_t *order, int64_t count)
{
    const char *why = replay_unsupported(w);
    if (why) return world_fail(w, CAROM_INVALID_ARGUMENT, "cannot replay: %s", why);
    if (count < 0 || (count > 0 && !events))
        return world_fail(w, CAROM_INVALID_ARGUMENT, "cannot replay: %lld events", (long long)count);
    for (int64_t k = 0; k < count; k++) {
        int64_t e = order ? order[k] : k;
        if (e < 0 || e >= count || events[e].body < 0 || events[e].body >= w->count ||
            !(events[e].time >= w->clock && events[e].time < INFINITY))
            return world_fail(w, CAROM_INVALID_ARGUMENT,
                              "cannot replay: entry %lld of the order names an event the world cannot have",
                              (long long)k);
    }
    return CAROM_OK;
}

/* The staged prefetching of run_until, with the order known: records four
 * events ahead, their cell heads and partners two ahead, the neighbours of
 * the next event (and, at the event after, of its partner). */
static void prefetch_known(const carom_world *w, const replay_event *events, const int64_t *order, int64_t k,
                           int64_t count, int32_t *later)
{
    if (*later >= 0) prefetch_neighbours(w, *later, 0);
    *later = -1;
    if (k + 4 < count) prefetch_records(w, events[order ? order[k + 4] : k + 4].body);
    if (k + 2 < count) prefetch_body_stage(w, events[order ? order[k + 2] : k + 2].body);
    if (k + 1 < count) prefetch_event(w, events[order ? order[k + 1] : k + 1].body, later);
}

carom_status run_replay(carom_world *w, const replay_event *events, const int64_t *order, int64_t count,
                        int prefetch)
{
    carom_status st = check_replay(w, events, order, count);
    if (st != CAROM_OK) return st;
    double latest = w->clock;
    int32_t later = -1;
    prefetch = prefetch && w->count >= PREFETCH_FROM_BODIES; /* as run_until: below, it costs more than it saves */
    calendar_freeze(&w->cal);
    for (int64_t k = 0; k < count; k++) {
        const replay_event *e = &events[order ? order[k] : k];
        if (prefetch) prefetch_known(w, events, order, k, count, &later);
        int counted;
        st = process_next(w, e->body, e->time, &counted);
        if (st != CAROM_OK) break; /* the clock stays at the latest event done */
        latest = e->time > latest ? e->time : latest;
        w->events_since_order++;
    }
    w->clock = latest;
    calendar_thaw(&w->cal);
    return st;
}

/* ---- the region-by-region engine's step (speculate.h) ---- */

carom_status run_process_event(carom_world *w, int32_t i, double t, int *counted)
{
    return process_next(w, i, t, counted);
}
