/* steer.c — changing a body from outside between time windows: its velocity,
 * own acceleration or position, or driving it to a target (seeds 000/001).
 *
 * Each setter brings only the body named to the clock, changes it, bumps its
 * collision counter (every prediction that named it is then stale and is
 * redone when it comes due: Smallenburg's lazy invalidation) and predicts
 * that body again: its new event is the earliest over all its neighbours, so
 * any event the change brings forward is found from its side. Nothing else
 * is predicted again. The energy each change puts in (KE + PE after less
 * before) is added to the control work, so KE + PE - work is conserved at
 * e = 1 across control changes.
 */
#include <assert.h>
#include <math.h>

#include "drive.h"
#include "motion.h"
#include "neighbours.h"
#include "schedule.h"
#include "settle.h"
#include "world.h"

static const char axis_name[3] = {'x', 'y', 'z'};

static carom_status check_setter(carom_world *w, int32_t id)
{
    if (!w) return CAROM_INVALID_ARGUMENT;
    carom_status st = world_check_id(w, id);
    if (st != CAROM_OK) return st;
    if (w->in_callback)
        return world_fail(w, CAROM_INVALID_ARGUMENT, "body %d: cannot steer bodies from the event callback",
                          (int)id);
    if (world_own_stamps(w, w->count) != 0) /* a change of motion that is not a collision */
        return world_fail(w, CAROM_OUT_OF_MEMORY, "body %d: out of memory for the bodies' stamps", (int)id);
    return CAROM_OK;
}

static carom_status check_vector(carom_world *w, int32_t id, const char *what, const double v[3])
{
    carom_status st = CAROM_OK;
    for (int a = 0; a < w->dim && st == CAROM_OK; a++) st = world_check_number(w, id, what, axis_name[a], v[a]);
    return st;
}

/* Brings body (slot s) to the clock, closing its flight in the energy integral. */
static void bring_to_clock(carom_world *w, int32_t s)
{
    if (w->steering.count) steering_note_flight(w, s, w->clock);
    const double *g = motion_gravity(w, s);
    measure_flight(&w->meas, &w->hot[s], world_mass(w, s), g, w->has_gravity, w->clock);
    motion_advance(&w->hot[s], g, w->has_gravity, w->clock);
}

static double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* After body (slot s) changed at the clock: old predictions naming it are
 * void, its settling state is redone, and it alone is predicted again. */
static void repredict(carom_world *w, int32_t s)
{
    assert(w->own_stamps);
    world_restamp(w, s);
    world_event(w, s)->instant = 0;
    settle_after_kick(w, s);
    if (w->rest.last_partner) w->rest.last_partner[w->id_of[s]] = -1;
    settle_detect_body(w, s);
    if (!w->needs_rebuild) schedule_body(w, s);
}

/* Sets body (slot s, at the clock) moving with v, counting the work. */
static void kick(carom_world *w, int32_t s, const double v[3])
{
    body_hot *h = &w->hot[s];
    double m = world_mass(w, s), before = dot(h->v, h->v);
    for (int a = 0; a < w->dim; a++) h->v[a] = v[a];
    if (!drive_is_kinematic(m)) w->meas.control_work += 0.5 * m * (dot(h->v, h->v) - before);
    repredict(w, s);
}

carom_status carom_world_set_body_velocity(carom_world *w, int32_t id, carom_vec velocity)
{
    carom_status st = check_setter(w, id);
    if (st != CAROM_OK) return st;
    const double v[3] = {velocity.x, velocity.y, velocity.z};
    if ((st = check_vector(w, id, "velocity", v)) != CAROM_OK) return st;
    int32_t s = w->slot_of[id];
    bring_to_clock(w, s);
    kick(w, s, v);
    return CAROM_OK;
}

carom_status carom_world_set_body_acceleration(carom_world *w, int32_t id, carom_vec acceleration)
{
    carom_status st = check_setter(w, id);
    if (st != CAROM_OK) return st;
    const double a[3] = {acceleration.x, acceleration.y, w->dim == 3 ? acceleration.z : 0.0};
    if ((st = check_vector(w, id, "acceleration", a)) != CAROM_OK) return st;
    if (steering_take_input(w, id, a)) return CAROM_OK; /* a steered body: the filter decides (steering.c) */
    if (drive_enable(w) != 0)
        return world_fail(w, CAROM_OUT_OF_MEMORY, "body %d: out of memory for own accelerations", (int)id);
    steer_apply_acceleration(w, w->slot_of[id], a);
    return CAROM_OK;
}

/* Components of a magnitude below the engine's range (world_in_scale) made
 * 0: predictions square products of two, and a decision that brakes a body
 * to rest window after window leaves residues of 1e-86 and less. */
static void flush_below_range(double v[3])
{
    for (int a = 0; a < 3; a++)
        if (fabs(v[a]) < 1.0 && !world_in_scale(v[a])) v[a] = 0.0;
}

void steer_apply_acceleration(carom_world *w, int32_t s, const double given[3])
{
    int32_t id = w->id_of[s];
    bring_to_clock(w, s);
    flush_below_range(w->hot[s].v);
    double before[3], after[3], a[3] = {given[0], given[1], given[2]};
    flush_below_range(a);
    drive_potential_field(w, id, before);
    drive_set(w, s, a);
    drive_potential_field(w, id, after);
    if (!drive_is_kinematic(world_mass(w, s))) /* PE = -m field . x changes with the field */
        w->meas.control_work -= world_mass(w, s) * (dot(after, w->hot[s].x) - dot(before, w->hot[s].x));
    if (drive_moves(&w->drive, id)) settle_release(w, s);
    repredict(w, s);
}

/* Files body (slot s), just moved, where the lists or the grid need it. */
static void refile(carom_world *w, int32_t s)
{
    if (w->nb.on) {
        int failed = neighbours_renew(w, s);
        assert(!failed && "prepared for this time, a renewal cannot fail");
        (void)failed;
        return;
    }
    cells_remove(&w->grid, s);
    cells_insert(&w->grid, s, cells_locate(&w->grid, w->hot[s].x));
}

carom_status carom_world_set_body_position(carom_world *w, int32_t id, carom_vec position)
{
    carom_status st = check_setter(w, id);
    if (st != CAROM_OK) return st;
    double x[3] = {position.x, position.y, w->dim == 3 ? position.z : 0.0};
    if ((st = check_vector(w, id, "position", x)) != CAROM_OK) return st;
    int32_t s = w->slot_of[id];
    if ((st = world_check_place(w, id, x, w->hot[s].radius, s)) != CAROM_OK) return st;
    body_hot *h = &w->hot[s], old = *h;
    measure old_measure = w->meas;
    bring_to_clock(w, s);
    double field[3], from[3] = {h->x[0], h->x[1], h->x[2]};
    for (int a = 0; a < 3; a++) h->x[a] = x[a];
    /* the memory a new neighbour list needs is found before anything else changes */
    if (w->nb.on && !w->needs_rebuild && neighbours_prepare_renew(w, s, w->clock) != 0) {
        *h = old, w->meas = old_measure;
        return world_fail(w, CAROM_OUT_OF_MEMORY, "body %d: out of memory for its neighbour list", (int)id);
    }
    if (!w->needs_rebuild) refile(w, s);
    drive_potential_field(w, id, field);
    if (!drive_is_kinematic(world_mass(w, s)))
        w->meas.control_work -= world_mass(w, s) * (dot(field, h->x) - dot(field, from));
    settle_release(w, s);
    repredict(w, s);
    return CAROM_OK;
}

carom_status carom_world_drive_body(carom_world *w, int32_t id, carom_vec target, double dt)
{
    carom_status st = check_setter(w, id);
    if (st != CAROM_OK) return st;
    const double to[3] = {target.x, target.y, target.z};
    if ((st = check_vector(w, id, "target", to)) != CAROM_OK) return st;
    if (!(isfinite(dt) && dt > 0.0))
        return world_fail(w, CAROM_INVALID_ARGUMENT, "body %d: dt = %g: expected a finite time > 0", (int)id, dt);
    int32_t s = w->slot_of[id];
    const double *g = motion_gravity(w, s);
    double x[3], v[3];
    motion_state_at(&w->hot[s], g, w->has_gravity, w->clock, x, v);
    for (int a = 0; a < w->dim; a++) {
        double d = to[a] - x[a];
        if (w->periodic[a]) d -= w->side[a] * nearbyint(d / w->side[a]);
        v[a] = d / dt - 0.5 * g[a] * dt;
    }
    if ((st = check_vector(w, id, "velocity to reach the target", v)) != CAROM_OK) return st;
    bring_to_clock(w, s);
    kick(w, s, v);
    return CAROM_OK;
}

/* Spin changes no disk's or sphere's contact times, so only a polygon is
 * predicted again; the orientation is brought to the clock first (spin.c). */
carom_status carom_world_set_body_angular_velocity(carom_world *w, int32_t id, carom_vec angular_velocity)
{
    carom_status st = check_setter(w, id);
    if (st != CAROM_OK) return st;
    const double omega[3] = {angular_velocity.x, angular_velocity.y, angular_velocity.z};
    for (int a = 0; a < 3 && st == CAROM_OK; a++) {
        if (w->dim == 2 && a < 2 && omega[a] != 0.0)
            return world_fail(w, CAROM_INVALID_ARGUMENT,
                              "body %d: angular_velocity.%c = %g: in 2D a body turns about z only (expected 0)",
                              (int)id, axis_name[a], omega[a]);
        st = world_check_number(w, id, "angular_velocity", axis_name[a], omega[a]);
    }
    if (st != CAROM_OK) return st;
    if (spin_enable(w) != 0)
        return world_fail(w, CAROM_OUT_OF_MEMORY, "body %d: out of memory for rotation", (int)id);
    int32_t s = w->slot_of[id];
    spin_bring(w, s, w->clock);
    double before = spin_energy(w, s);
    for (int a = 0; a < 3; a++) w->spin.state[s].omega[a] = omega[a];
    w->meas.control_work += spin_energy(w, s) - before;
    if (spin_polygon(&w->spin, s)) {
        bring_to_clock(w, s);
        repredict(w, s);
    }
    return CAROM_OK;
}
