/* settle.c — inelastic bodies coming to rest.
 *
 * Resting contact on walls. A body under gravity that bounces on the wall
 * gravity pushes it against (its floor) with wall restitution e < 1 makes
 * infinitely many bounces in finite time: after a bounce at t with speed u
 * away from the floor, the hops last 2u/g, 2eu/g, 2e^2u/g, ..., and sum to
 * 2u / (g (1 - e)). The series' end is computed in closed form at its first
 * bounce; once the hops left are negligible (the rest of the series shorter
 * than 1e-10 of it, or than 2^-36 of the clock or of the world's time scale
 * d / v, see settle_resolve_scales, if the series is longer) the body's next
 * event is a
 * rest event at that exact end, where it is put on the floor with no normal
 * velocity and no normal acceleration: it slides along the floor under the
 * rest of gravity, and leaves only when a collision lifts it (or pushes it
 * into the floor, which is then an ordinary bounce). A body that stops on the
 * floor (e = 0), or starts touching it at rest, rests at once. (McNamara &
 * Young, Phys. Rev. E 50, R28 (1994) for the Zeno series of a bouncing ball;
 * the treatment of resting bodies as bodies with the normal acceleration
 * removed follows the constraint view of Lubachevsky's "sliding" particles.)
 *
 * The TC model against inelastic collapse (Luding & McNamara, "How to handle
 * the inelastic collapse of a dissipative hard-sphere gas with the TC model",
 * Granular Matter 1, 113 (1998)): a pair collision is elastic if either body
 * had a pair collision less than t_c before; so is a wall bounce of a body
 * whose last pair collision is that recent, unless it comes from another
 * bounce and the elastic hop off its floor would be tiny, 2^-20 of the time
 * scale (then it is inelastic, and its Zeno series ends in closed form).
 * Dissipation then stops where
 * collisions come faster than 1/t_c, so the collision rate stays finite in
 * dense, cold regions. A body bouncing alone on a floor is never affected,
 * so its series still ends in closed form. A driven body (own acceleration,
 * or kinematic) never rests, so one pressed against a wall would make such a
 * series without end: its wall bounce is elastic when it comes less than t_c
 * after the body's previous event, and it hops, ever so little, instead.
 * t_c = world_def.collapse_time; 0
 * picks 0.01 d / v at the first run, with d the largest diameter and
 * v^2 = <v^2> + |g| d (|g| the largest of world gravity and the bodies'
 * own accelerations).
 *
 * Last partners. After an impulse two bodies do not approach (exactly), but
 * round-off can leave them closing at 1e-16 of their speed, which with
 * restitution 0 would make them collide again and again at one instant. So a
 * pair whose last collision was with each other, that still touch and are
 * accelerated alike, is not offered an event until one of them is disturbed.
 */
#include "settle.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "collide.h"
#include "memory.h"
#include "motion.h"
#include "world.h"

static int wall_axis_side(int wall) { return wall % 2 ? 1 : -1; }

int settle_def_has_floors(const carom_world_def *def)
{
    const double g[3] = {def->gravity.x, def->gravity.y, def->gravity.z};
    if (def->container) return 0; /* a container's boundary has no floor known to be flat */
    for (int a = 0; a < def->dim && a < 3; a++)
        if (def->boundary[a] == CAROM_WALLS && g[a] != 0.0) return 1;
    return 0;
}


void settle_configure(carom_world *w)
{
    settle *s = &w->rest;
    s->floors = 0;
    for (int a = 0; a < 3; a++) {
        double g = w->gravity[a];
        s->floor_side[a] = (a < w->dim && !w->periodic[a] && g != 0.0 && !w->def.container) ? (g > 0.0 ? 1 : -1) : 0;
        if (s->floor_side[a]) s->floors = 1;
    }
    for (int mask = 0; mask < 8; mask++)
        for (int a = 0; a < 3; a++) s->gravity_of[mask][a] = (mask >> a) & 1 ? 0.0 : w->gravity[a];
    s->collapse = settle_def_has_collapse(&w->def);
    s->clock_limit = INFINITY;
    assert(s->floors == settle_def_has_floors(&w->def));
}

static void clear_series(settle *s, int32_t id, int axis)
{
    s->zeno[6 * id + axis] = INFINITY;
    s->zeno[6 * id + 3 + axis] = 0.0;
    s->state[id] &= (uint8_t)~(SETTLE_FINISHING << axis);
}

void settle_new_body(carom_world *w, int32_t id)
{
    settle *s = &w->rest;
    if (s->state) {
        s->state[id] = 0;
        for (int a = 0; a < 3; a++) clear_series(s, id, a);
    }
    if (s->last_partner) {
        s->last_pair_time[id] = -INFINITY;
        s->last_partner[id] = -1;
    }
}

int settle_bounces_only(const carom_world *w, int32_t id)
{
    return drive_moves(&w->drive, id) || w->def.wall_tangential_restitution > -1.0 ||
           (w->spin.polygons && spin_polygon(&w->spin, w->slot_of[id]));
}

/* A normal restitution below 1, or friction: inelastic collapse is the
 * normal velocities of a cluster shrinking geometrically, which friction
 * does too at a polygon's corner (its impulse turns the body, which brings
 * the other corner down: a rocking block); a dissipative tangential
 * restitution of disks at e = 1 takes energy but never shrinks a normal
 * velocity. */
int settle_def_has_collapse(const carom_world_def *def)
{
    return def->restitution < 1.0 || def->wall_restitution < 1.0 || def->friction > 0.0;
}

/* ---- the TC model ---------------------------------------------------------- */

static int recently_paired(const carom_world *w, int32_t slot, double t)
{
    return t - w->rest.last_pair_time[w->id_of[slot]] < w->def.collapse_time;
}

int settle_pair_is_tc(const carom_world *w, int32_t i, int32_t j, double t)
{
    if (!w->rest.collapse || !(w->def.collapse_time > 0.0)) return 0;
    return recently_paired(w, i, t) || recently_paired(w, j, t);
}

double settle_pair_restitution(const carom_world *w, int32_t i, int32_t j, double t)
{
    return settle_pair_is_tc(w, i, j, t) ? 1.0 : w->def.restitution;
}

/* Would an elastic bounce off wall, at this speed, send the body on a hop
 * shorter than 2^-20 of the time scale d / v along the floor's gravity (so
 * that t_c would hold a million of them)? */
static int tiny_hop(const carom_world *w, int wall, double speed)
{
    int axis = wall / 2;
    if (wall >= CAROM_WALL_CONTAINER || w->rest.floor_side[axis] != wall_axis_side(wall)) return 0;
    return 2.0 * speed < 0x1p-20 * w->rest.time_scale * fabs(w->gravity[axis]);
}

double settle_wall_restitution(const carom_world *w, int32_t i, int wall, double t, double speed, double previous)
{
    double e = collide_restitution(w->def.wall_restitution, w->def.elastic_below_speed, speed);
    return settle_wall_is_tc(w, i, wall, t, speed, previous) ? 1.0 : e;
}

int settle_wall_is_tc(const carom_world *w, int32_t i, int wall, double t, double speed, double previous)
{
    if (!w->rest.collapse || !(w->def.collapse_time > 0.0)) return 0;
    int32_t id = w->id_of[i];
    /* A driven body never rests, nor does a body on a container (no flat
     * floor, no Zeno series): its bounce soon after its previous event is
     * elastic, so it keeps hopping by about g t_c^2 instead of collapsing. */
    if (settle_bounces_only(w, id) || wall == CAROM_WALL_CONTAINER) return t - previous < w->def.collapse_time;
    if (!recently_paired(w, i, t)) return 0;
    /* Elastic, as the TC model asks, if the body comes from its pair
     * collision (pressed between a neighbour and the wall). A tiny hop after
     * anything else (another bounce) would come back again and again (2.7
     * million times for a body meeting its floor at 1e-9 of its speed): the
     * Zeno series, in closed form, ends those. */
    return previous == w->rest.last_pair_time[id] || !tiny_hop(w, wall, speed);
}

void settle_set_time_scale(carom_world *w, double time_scale)
{
    w->rest.time_scale = time_scale;
    w->rest.creep_span = 0x1p-40 * time_scale;
    w->rest.clock_limit = time_scale > 0.0 ? 0x1p32 * time_scale : INFINITY;
}

void settle_resolve_scales(carom_world *w)
{
    if (w->rest.time_scale > 0.0 || w->count == 0) return;
    double d = 2.0 * w->max_radius, vv = 0.0, g = 0.0;
    for (int32_t id = 0; id < w->count; id++) { /* in id order: the same sum whatever the layout */
        const double *v = w->hot[w->slot_of[id]].v;
        vv += v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    }
    for (int a = 0; a < 3; a++) g += w->gravity[a] * w->gravity[a];
    for (int32_t id = 0; w->drive.on && id < w->count; id++) { /* the largest own acceleration counts too */
        const double *own = &w->drive.own[3 * id];
        g = fmax(g, own[0] * own[0] + own[1] * own[1] + own[2] * own[2]);
    }
    double v_ref = sqrt(vv / w->count + sqrt(g) * d);
    if (!(v_ref > 0.0 && isfinite(v_ref) && isfinite(d / v_ref))) return; /* nothing moves yet */
    settle_set_time_scale(w, d / v_ref);
    if (w->rest.collapse && w->def.collapse_time == 0.0) w->def.collapse_time = 0.01 * w->rest.time_scale;
}

/* ---- last partners --------------------------------------------------------- */

int32_t settle_just_partner(const carom_world *w, int32_t i)
{
    const settle *s = &w->rest;
    if (!s->last_partner) return -1;
    int32_t id = w->id_of[i], p = s->last_partner[id];
    if (p < 0 || s->last_partner[p] != id) return -1;
    if (s->state && (s->state[id] & 7) != (s->state[p] & 7)) return -1;
    if (w->drive.on) { /* accelerated differently, they may meet again at once */
        const double *a = motion_gravity(w, i), *b = motion_gravity(w, w->slot_of[p]);
        if (a[0] != b[0] || a[1] != b[1] || a[2] != b[2]) return -1;
    }
    return w->slot_of[p];
}

/* ---- resting on floors ------------------------------------------------------- */

/* Puts body i (slot) at rest on the floor of axis a, exactly touching it. */
void settle_rest(carom_world *w, int32_t i, int axis)
{
    settle *s = &w->rest;
    int32_t id = w->id_of[i];
    body_hot *h = &w->hot[i];
    h->x[axis] = s->floor_side[axis] * (w->half[axis] - h->radius);
    h->v[axis] = 0.0;
    clear_series(s, id, axis);
    s->state[id] |= (uint8_t)(SETTLE_RESTING << axis);
    if (s->last_partner) s->last_partner[id] = -1;
}

/* After body i's velocity changed at its time stamp: a resting body whose
 * normal velocity is no longer zero leaves its floor (lifted, or pushed into
 * it, which the next prediction finds as a bounce at once); a series of
 * bounces is broken. */
void settle_after_kick(carom_world *w, int32_t i)
{
    settle *s = &w->rest;
    if (!s->state) return;
    int32_t id = w->id_of[i];
    for (int a = 0; a < 3; a++) {
        if (!s->floor_side[a]) continue;
        clear_series(s, id, a);
        if ((s->state[id] >> a) & SETTLE_RESTING && w->hot[i].v[a] != 0.0)
            s->state[id] &= (uint8_t)~(SETTLE_RESTING << a);
    }
}

void settle_release(carom_world *w, int32_t i)
{
    settle *s = &w->rest;
    if (!s->state) return;
    int32_t id = w->id_of[i];
    for (int a = 0; a < 3; a++) clear_series(s, id, a);
    s->state[id] = 0;
}

void settle_after_pair(carom_world *w, int32_t i, int32_t j, double t)
{
    settle *s = &w->rest;
    if (s->last_partner) {
        int32_t a = w->id_of[i], b = w->id_of[j];
        s->last_pair_time[a] = s->last_pair_time[b] = t;
        s->last_partner[a] = b;
        s->last_partner[b] = a;
    }
    settle_after_kick(w, i);
    settle_after_kick(w, j);
}

/* After body i (slot) bounced at t off wall with restitution e: on its floor,
 * a series of bounces starts or goes on; when what is left of it is
 * negligible, its end becomes the body's rest event. */
void settle_after_wall(carom_world *w, int32_t i, int wall, double t, double e)
{
    settle *s = &w->rest;
    int32_t id = w->id_of[i];
    if (s->last_partner) s->last_partner[id] = -1;
    int axis = wall / 2;
    if (!s->state || wall >= CAROM_WALL_CONTAINER || s->floor_side[axis] != wall_axis_side(wall) ||
        settle_bounces_only(w, id))
        return;
    double u = fabs(w->hot[i].v[axis]), g = fabs(w->gravity[axis]);
    if (u == 0.0) {
        settle_rest(w, i, axis);
        return;
    }
    double *end = &s->zeno[6 * id + axis], *tolerance = &s->zeno[6 * id + 3 + axis];
    if (!(e < 1.0)) {
        clear_series(s, id, axis);
        return;
    }
    if (!isfinite(*end)) {
        *end = t + 2.0 * u / (g * (1.0 - e));
        /* hops shorter than this are left to the closed form: well above the
         * jam guard's 2^-40 of the clock and of the time scale (the latter
         * only as far as the series itself: never more than a part of it) */
        double span = *end - t;
        *tolerance = fmax(1e-10 * span, 0x1p-36 * fmax(fabs(t), fmin(s->time_scale, span)));
        if (!isfinite(*end)) {
            clear_series(s, id, axis);
            return;
        }
    }
    if (*end - t <= *tolerance) s->state[id] |= (uint8_t)(SETTLE_FINISHING << axis);
}

/* A body (slot i, at the clock) touching a floor with no normal velocity rests on it. */
void settle_detect_body(carom_world *w, int32_t i)
{
    settle *s = &w->rest;
    if (!s->state || settle_bounces_only(w, w->id_of[i])) return;
    body_hot *h = &w->hot[i];
    for (int a = 0; a < 3; a++) {
        if (!s->floor_side[a] || h->v[a] != 0.0) continue;
        double reach = w->half[a] - h->radius;
        if (fabs(h->x[a] - s->floor_side[a] * reach) <= 1e-12 * w->half[a]) settle_rest(w, i, a);
    }
}

void settle_detect(carom_world *w)
{
    for (int32_t i = 0; i < w->count; i++) settle_detect_body(w, i);
}
