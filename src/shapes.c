/* shapes.c — polygon bodies in the world (issue 14, items 3 and 4; seed 004).
 *
 * Contact times: a pair with a polygon in it, a polygon against the box's
 * walls (half-planes) or a convex container, by conservative advancement
 * (shapecast.c: never a skipped contact, gaps within CAROM_CONTACT_TOLERANCE
 * of the bodies' size). Disk pairs never come here.
 *
 * Response: seed 004's impulse at the contact point with both inverse masses
 * and both inverse inertias, restitution e and Coulomb friction mu in one
 * impulse (impulse.c). Two faces meeting flat (parallel within
 * POLYGON_PARALLEL_SINE) are pushed through the middle of their overlap,
 * so a box landing flat gets no spin; if the middle does not approach but
 * an end does (a face turning onto another), that end takes the impulse.
 * A polygon never rests on a floor (settle.c's Zeno series is for disks):
 * inelastic bounces soon after each other are elastic (the TC model's rule
 * for bodies that cannot rest), so it keeps hopping by about g t_c^2.
 *
 * Placement: a polygon must have every vertex inside the walls (it may lie
 * flat against one) and inside a convex container (for which that is exact,
 * its signed distance being concave inside), and must not overlap any body
 * (exact distance < 0); a disk in a world with polygons likewise.
 */
#include "shapes.h"

#include <math.h>

#include "collide.h"
#include "impulse.h"
#include "motion.h"
#include "shapecast.h"

static const char axis_name[3] = {'x', 'y', 'z'};
static const double no_shift[3] = {0.0, 0.0, 0.0};

/* Slot i's motion from time t: centre (moved by shift), velocity,
 * acceleration, angle and spin. */
static shapecast_body body_at(const carom_world *w, int32_t i, double t, const double shift[3])
{
    const double *g = motion_gravity(w, i);
    double x[3], v[3];
    motion_state_at(&w->hot[i], g, w->has_gravity, t, x, v);
    shapecast_body b = {spin_polygon(&w->spin, i),
                        w->hot[i].radius,
                        {x[0] + shift[0], x[1] + shift[1]},
                        {v[0], v[1]},
                        {0.0, 0.0},
                        0.0,
                        0.0};
    if (w->has_gravity) b.a[0] = g[0], b.a[1] = g[1];
    if (w->spin.on) b.angle = spin_angle_at(w, i, t), b.omega = w->spin.state[i].omega[2];
    return b;
}

/* ---- contact times ---------------------------------------------------------- */

double shapes_pair_time(const carom_world *w, int32_t i, int32_t j, const double shift[3],
                        double horizon, int *recheck)
{
    *recheck = 0;
    if (w->drive.kinematic && drive_is_kinematic(world_mass(w, i)) && drive_is_kinematic(world_mass(w, j)))
        return INFINITY; /* kinematic bodies pass through each other */
    double t_ref = w->hot[i].t > w->hot[j].t ? w->hot[i].t : w->hot[j].t, s;
    shapecast_body a = body_at(w, i, t_ref, no_shift), b = body_at(w, j, t_ref, shift);
    /* the lower id first: the same search from either side */
    int kind = w->id_of[i] < w->id_of[j] ? shapecast_pair(&a, &b, horizon - t_ref, &s)
                                         : shapecast_pair(&b, &a, horizon - t_ref, &s);
    if (kind == SHAPECAST_NONE) return INFINITY;
    *recheck = kind == SHAPECAST_RECHECK;
    return t_ref + s;
}

double shapes_wall_time(const carom_world *w, int32_t i, double horizon, int *wall, int *recheck)
{
    double t0 = w->hot[i].t, best = INFINITY, s;
    shapecast_body b = body_at(w, i, t0, no_shift);
    *recheck = 0;
    *wall = -1;
    /* a kinematic polygon goes where it is driven: a spinning one could not
     * be turned back from a wall by its centre's velocity alone */
    if (drive_is_kinematic(world_mass(w, i))) return INFINITY;
    if (w->container) {
        int kind = shapecast_container(&b, w->container, horizon - t0, &s);
        if (kind == SHAPECAST_NONE) return INFINITY;
        *wall = CAROM_WALL_CONTAINER;
        *recheck = kind == SHAPECAST_RECHECK;
        return t0 + s;
    }
    for (int k = 0; k < 2 * w->dim; k++) {
        int axis = k / 2;
        if (w->periodic[axis]) continue;
        double normal[2] = {0.0, 0.0};
        normal[axis] = k % 2 ? 1.0 : -1.0;
        double reach = best < horizon ? best : horizon;
        int kind = shapecast_wall(&b, normal, w->half[axis], reach - t0, &s);
        if (kind == SHAPECAST_NONE || !(t0 + s < best)) continue;
        best = t0 + s;
        *wall = k;
        *recheck = kind == SHAPECAST_RECHECK;
    }
    return best;
}

/* ---- the impulse ------------------------------------------------------------- */

static impulse_body2 impulse_body_of(const carom_world *w, int32_t i)
{
    impulse_body2 b = {{w->hot[i].v[0], w->hot[i].v[1]},
                       w->spin.state[i].omega[2],
                       world_mass(w, i),
                       w->spin.inertia[i]};
    return b;
}

static impulse_contact2 lever_arms(const double p[2], const double x1[2], const double x2[2])
{
    impulse_contact2 c = {{p[0] - x1[0], p[1] - x1[1]}, {p[0] - x2[0], p[1] - x2[1]}};
    return c;
}

/* The normal speed (u1 - u2) . n of the contact points at lever arms c. */
static double normal_speed(const impulse_body2 *b1, const impulse_body2 *b2,
                           const impulse_contact2 *c, const double n[2])
{
    double u1[2] = {b1->v[0] - b1->omega * c->r1[1], b1->v[1] + b1->omega * c->r1[0]};
    double u2[2] = {b2->v[0] - b2->omega * c->r2[1], b2->v[1] + b2->omega * c->r2[0]};
    return (u1[0] - u2[0]) * n[0] + (u1[1] - u2[1]) * n[1];
}

/* The impulse at a contact (a face from..to, or a point where from = to =
 * point): a face through its middle; if the middle does not approach, at the
 * end that approaches most. Body 1 gets P, body 2 -P; n from body 2 to body
 * 1. e is made elastic below elastic_below_speed. Returns 1 if applied. */
static int contact_impulse(const carom_world *w, impulse_body2 *b1, impulse_body2 *b2,
                           const double x1[2], const double x2[2], const double from[2],
                           const double to[2], const double n[2], double e, double mu, impulse_result2 *out)
{
    impulse_contact2 ca = lever_arms(from, x1, x2), cb = lever_arms(to, x1, x2);
    double ua = normal_speed(b1, b2, &ca, n), ub = normal_speed(b1, b2, &cb, n);
    double fastest = ua < ub ? ua : ub;
    *out = (impulse_result2){0};
    if (!(fastest < 0.0)) return 0;
    if (impulse_face_2d(b1, b2, &ca, &cb, n,
                        collide_restitution(e, w->def.elastic_below_speed, -0.5 * (ua + ub)), mu,
                        out))
        return 1;
    const impulse_contact2 *end = ua < ub ? &ca : &cb;
    return impulse_shape_2d(b1, b2, end, n,
                            collide_restitution(e, w->def.elastic_below_speed, -fastest), mu, out);
}

static double kinetic_energy(const impulse_body2 *b)
{
    double e = 0.0;
    if (b->mass < INFINITY) e += 0.5 * b->mass * (b->v[0] * b->v[0] + b->v[1] * b->v[1]);
    if (b->inertia < INFINITY) e += 0.5 * b->inertia * b->omega * b->omega;
    return e;
}

static void store_motion(carom_world *w, int32_t i, const impulse_body2 *b)
{
    w->hot[i].v[0] = b->v[0], w->hot[i].v[1] = b->v[1];
    spin_bring(w, i, w->clock);
    w->spin.state[i].omega[2] = b->omega;
}

double shapes_collide_pair(carom_world *w, int32_t i, int32_t j, const double dr[3], double e, double mu,
                           double *virial)
{
    const double at_j[3] = {w->hot[i].x[0] + dr[0] - w->hot[j].x[0],
                            w->hot[i].x[1] + dr[1] - w->hot[j].x[1], 0.0};
    shapecast_body a = body_at(w, i, w->clock, no_shift), b = body_at(w, j, w->clock, at_j);
    polygon_contact c;
    double speed;
    shapecast_pair_gap(&a, &b, 0.0, &c, &speed);
    /* body 1 is j, body 2 is i: the normal points from i to j */
    impulse_body2 b1 = impulse_body_of(w, j), b2 = impulse_body_of(w, i);
    const double *from = c.point, *to = c.point;
    if (c.feature == POLYGON_EDGE_EDGE) from = c.face_from, to = c.face_to;
    int kinematic_i = drive_is_kinematic(world_mass(w, i)), kinematic_j = drive_is_kinematic(world_mass(w, j));
    double before = kinetic_energy(&b1) + kinetic_energy(&b2);
    impulse_result2 r;
    *virial = 0.0;
    if (!contact_impulse(w, &b1, &b2, b.x, a.x, from, to, c.normal, e, mu, &r)) return 0.0;
    if (kinematic_i || kinematic_j)
        w->meas.kinematic_work += kinetic_energy(&b1) + kinetic_energy(&b2) - before;
    if (!kinematic_j) store_motion(w, j, &b1), world_restamp(w, j);
    if (!kinematic_i) store_motion(w, i, &b2), world_restamp(w, i);
    const double t[2] = {-c.normal[1], c.normal[0]};
    double p[2] = {r.normal * c.normal[0] + r.tangential * t[0],
                   r.normal * c.normal[1] + r.tangential * t[1]};
    *virial = dr[0] * p[0] + dr[1] * p[1];
    return hypot(p[0], p[1]);
}

int shapes_wall_is_tc(const carom_world *w, int32_t i, double t, double previous)
{
    (void)i;
    return w->rest.collapse && w->def.collapse_time > 0.0 && t - previous < w->def.collapse_time;
}

double shapes_collide_wall(carom_world *w, int32_t i, int wall, double e, double mu)
{
    shapecast_body body = body_at(w, i, w->clock, no_shift);
    double point[2], from[2], to[2], outward[2] = {0.0, 0.0}, speed;
    if (wall == CAROM_WALL_CONTAINER) {
        int vertex;
        shapecast_container_gap(&body, w->container, 0.0, &vertex, point, outward, &speed);
        from[0] = to[0] = point[0], from[1] = to[1] = point[1];
    } else {
        outward[wall / 2] = wall % 2 ? 1.0 : -1.0;
        shapecast_wall_gap(&body, outward, w->half[wall / 2], 0.0, point, from, to, &speed);
    }
    if (drive_is_kinematic(world_mass(w, i))) return 0.0; /* never scheduled (shapes_wall_time) */
    const double n[2] = {-outward[0], -outward[1]}; /* from the wall into the body */
    impulse_body2 b1 = impulse_body_of(w, i), b2 = {{0.0, 0.0}, 0.0, INFINITY, INFINITY};
    impulse_result2 r;
    if (!contact_impulse(w, &b1, &b2, body.x, point, from, to, n, e, mu, &r)) return 0.0;
    store_motion(w, i, &b1);
    return r.normal;
}

/* ---- placement ------------------------------------------------------------- */

static carom_status check_polygon_inside(carom_world *w, int32_t id, const double x[3],
                                         const polygon_shape *shape, double angle)
{
    for (int a = 0; a < w->dim; a++)
        if (w->periodic[a])
            return world_fail(
                w, CAROM_INVALID_ARGUMENT,
                "body %d: polygon: polygons need walls or a convex container, but axis %c is "
                "periodic",
                (int)id, axis_name[a]);
    if (w->container && !shapecast_container_is_convex(w->container))
        return world_fail(
            w, CAROM_INVALID_ARGUMENT,
            "body %d: polygon: the container is not convex (it has a union, a difference or a "
            "caller's distance function): polygons need a convex container",
            (int)id);
    polygon_pose pose = {x[0], x[1], angle};
    double placed[POLYGON_MAX_VERTICES][2];
    polygon_place(shape, &pose, placed);
    for (int k = 0; k < shape->count; k++) {
        for (int a = 0; a < 2; a++)
            if (!(fabs(placed[k][a]) <= w->half[a]))
                return world_fail(
                    w, CAROM_OUTSIDE_BOX,
                    "body %d: polygon vertex %d at (%g, %g) is outside the walls: expected "
                    "|%c| <= %g",
                    (int)id, k, placed[k][0], placed[k][1], axis_name[a], w->half[a]);
        const double p[3] = {placed[k][0], placed[k][1], 0.0};
        double clearance = w->container ? container_distance(w->container, p, NULL) : 0.0;
        if (clearance < 0.0)
            return world_fail(
                w, CAROM_OUTSIDE_BOX,
                "body %d: polygon vertex %d at (%g, %g) is outside the container (distance %g)",
                (int)id, k, placed[k][0], placed[k][1], clearance);
    }
    return CAROM_OK;
}

/* The exact gap between a new body (shape at angle, or a disk) at x and slot j now. */
static double gap_to(const carom_world *w, const double x[3], double radius,
                     const polygon_shape *shape, double angle, int32_t j)
{
    shapecast_body a = {shape, radius, {x[0], x[1]}, {0.0, 0.0}, {0.0, 0.0}, angle, 0.0};
    shapecast_body b = body_at(w, j, w->clock, no_shift);
    if (!a.shape && !b.shape)
        return hypot(b.x[0] - a.x[0], b.x[1] - a.x[1]) - (a.radius + b.radius);
    polygon_contact c;
    double speed;
    return shapecast_pair_gap(&a, &b, 0.0, &c, &speed);
}

carom_status shapes_check_place(carom_world *w, int32_t id, const double x[3], double radius,
                                const polygon_shape *shape, double angle, int32_t skip)
{
    if (shape) {
        carom_status st = check_polygon_inside(w, id, x, shape, angle);
        if (st != CAROM_OK) return st;
    }
    for (int32_t j = 0; j < w->count; j++) {
        if (j == skip) continue;
        double xj[3], vj[3], sigma = radius + w->hot[j].radius;
        motion_state_at(&w->hot[j], motion_gravity(w, j), w->has_gravity, w->clock, xj, vj);
        double dx = xj[0] - x[0], dy = xj[1] - x[1];
        if (dx * dx + dy * dy >= sigma * sigma) continue; /* the bounding circles apart */
        double gap = gap_to(w, x, radius, shape, angle, j);
        if (gap < 0.0)
            return world_fail(w, CAROM_OVERLAP,
                              "body %d at (%g, %g) overlaps body %d at (%g, %g): gap %.17g < 0",
                              (int)id, x[0], x[1], (int)w->id_of[j], xj[0], xj[1], gap);
    }
    return CAROM_OK;
}

/* ---- the API ------------------------------------------------------------------ */

carom_status carom_world_get_body_polygon(const carom_world *w, int32_t id, carom_vec2 *vertices,
                                          int32_t capacity, int32_t *count)
{
    if (!w || !count || capacity < 0 || (capacity > 0 && !vertices)) return CAROM_INVALID_ARGUMENT;
    carom_status st = world_check_id(w, id);
    if (st != CAROM_OK) return st;
    const polygon_shape *shape = w->spin.on ? spin_polygon(&w->spin, w->slot_of[id]) : NULL;
    *count = shape ? shape->count : 0;
    if (!shape) return CAROM_OK;
    shapecast_body b = body_at(w, w->slot_of[id], w->clock, no_shift);
    polygon_pose pose = {b.x[0], b.x[1], b.angle};
    double placed[POLYGON_MAX_VERTICES][2];
    polygon_place(shape, &pose, placed);
    for (int32_t k = 0; k < shape->count && k < capacity; k++)
        vertices[k] = (carom_vec2){placed[k][0], placed[k][1]};
    return CAROM_OK;
}
