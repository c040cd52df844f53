/* shapecast.c — time of first contact of rotating 2D shapes by conservative
 * advancement (issue 14, item 3; seed 004).
 *
 * Method (Mirtich, "Impulse-based dynamic simulation of rigid body systems",
 * PhD thesis, Berkeley 1996, ch. 5; Zhang, Redon, Lee & Kim, "Continuous
 * collision detection for articulated models using Taylor models and
 * temporal culling", SIGGRAPH 2007, for the bound on the motion): from s,
 * with d the exact distance between the shapes (polygon.c), step by the
 * longest time over which the distance cannot fall by d, then measure again.
 *
 * The bound. Body k's centre moves as x + v s + a s^2 / 2 and it turns at
 * constant omega; a point of it at distance <= r from the centre moves at
 * most at |v(s)| + |omega| r (polygon_approach_rate_bound). Two points, one
 * on each body, close at most at R(s) = |v1(s) - v2(s)| + |w1| r1 + |w2| r2,
 * and since |v1(s + t) - v2(s + t)| <= |v1(s) - v2(s)| + A t with
 * A = |a1 - a2|, the distance between ANY two points, hence the least one
 * (and the penetration depth, a difference of support functions), falls by
 * at most R(s) t + A t^2 / 2 over [s, s + t]. The step t solves
 * R t + A t^2 / 2 = d, in the form 2 d / (R + sqrt(R^2 + 2 A d)) that does
 * not cancel; R is measured again at every step (velocities change under
 * acceleration). A wall (half-plane n . p <= h) is the same with
 * R(s) = n . v(s) + |w| r and A = n . a, signed, the exact rate at which the
 * support point n . p can grow; a convex container with
 * R(s) = L (|v(s)| + |w| r), A = L |a| (L its Lipschitz bound, 1).
 *
 * Why no contact is skipped. Let tol be the tolerance (CAROM_CONTACT_TOLERANCE
 * times the bodies' size). Each step from s_k with measured gap d_k allows a
 * fall of c_k: c_k = d_k when d_k > tol (so the gap stays >= 0 through the
 * step: the shapes cannot touch before its end), and when d_k <= tol but the
 * contact points do not approach (just after a collision, or grazing),
 * c_k = d_k + tol / 2, so the gap stays >= -tol / 2 (the floor) through the
 * step. The search stops at the first s_k where the gap is <= tol and the
 * contact points approach. Hence at every time before the returned one the
 * gap was >= -tol / 2: a contact deeper than that cannot have happened
 * before it, and a contact that happens is found within the tolerance.
 * The floor is absolute, not relative to d_k: a box bouncing on its floor,
 * whose fall the bound gives exactly, comes back to it and never sinks
 * bounce after bounce. At the floor (c_k = 0) the step is still positive
 * where the bound itself separates (a body thrown up under gravity: the
 * time it takes to come back). Where it does not, at or a hair above the
 * floor (a vertex gliding along a face, neither approaching nor leaving),
 * steps of c_k would stall the search, so a step is never shorter than half
 * the time the bound needs to fall tol / 8: the gap may then go below the
 * floor by at most tol / 8 in that step. It can keep going down only while
 * it actually falls, and a falling gap is a closing one (its rate is the
 * normal speed of the closest points), which the next query stops as a
 * contact: overlaps stay within tol / 2 + tol / 8 < tol. A search ends at
 * its horizon or after SHAPECAST_BUDGET queries (then SHAPECAST_RECHECK at
 * the time reached, where nothing was skipped).
 * Rounding: the distance is exact to a few ulps of the coordinates
 * (polygon.h), far below tol = 1e-9 of the size.
 *
 * Early rejection (issue 14: "a quadratic in 10-40 ns"): the shapes can
 * only touch while their bounding circles, grown by 2 tol, overlap; where
 * they are apart the search jumps to where they next touch (predict.c's
 * kernels), or ends if they never do before the horizon. A pair is thus
 * rejected by one quadratic, and only the stretches where the circles
 * overlap cost distance queries.
 */
#include "shapecast.h"

#include <math.h>

#include "predict.h"

double shapecast_tolerance(double size) { return CAROM_CONTACT_TOLERANCE * size; }

void shapecast_state_at(const shapecast_body *b, double s, double x[2], double v[2], double *angle)
{
    for (int k = 0; k < 2; k++) {
        x[k] = b->x[k] + b->v[k] * s + 0.5 * b->a[k] * s * s;
        v[k] = b->v[k] + b->a[k] * s;
    }
    *angle = b->angle + b->omega * s;
}

/* The velocity of the point p of a body whose centre is at x, moving at v and turning at omega. */
static void point_velocity(const double x[2], const double v[2], double omega, const double p[2],
                           double out[2])
{
    out[0] = v[0] - omega * (p[1] - x[1]);
    out[1] = v[1] + omega * (p[0] - x[0]);
}

/* ---- the advancement loop, shared by pairs, walls and containers ------- */

typedef struct problem {
    /* The gap at s and the normal speed of the contact points (< 0: approaching). */
    double (*gap)(const void *ctx, double s, double *approach);
    double (*rate)(const void *ctx, double s); /* R(s) */
    /* The first time >= s at which a contact is possible (s itself, or
     * INFINITY, or a time >= horizon); NULL: always s. */
    double (*skip)(const void *ctx, double s, double horizon);
    double accel; /* A (may be negative for a wall) */
    double tolerance;
    const void *ctx;
} problem;

/* The least t > 0 with rate t + accel t^2 / 2 = fall (fall > 0), or INFINITY.
 * Neither form cancels (Numerical Recipes 5.6): 2 fall / (rate + root) when
 * rate >= 0, (root - rate) / accel when rate < 0 (then accel > 0, or no
 * root): a body thrown away from a wall comes back after about 2 |rate| /
 * accel, which the first form would get from a difference of nearly equal
 * numbers (an error of 1e-7 of the flight was seen in a box bouncing on its
 * floor). */
static double step_for(double fall, double rate, double accel)
{
    if (accel == 0.0) return rate > 0.0 ? fall / rate : INFINITY;
    double disc = rate * rate + 2.0 * accel * fall;
    if (!(disc >= 0.0)) return INFINITY; /* decelerating: the fall never reaches it */
    double root = sqrt(disc);
    if (rate >= 0.0) return 2.0 * fall / (rate + root);
    return accel > 0.0 ? (root - rate) / accel : INFINITY;
}

/* How far the gap may fall in the next step (see the proof above): to 0
 * from beyond the tolerance, to the floor -tolerance / 2 from within it. */
static double allowed_fall(double gap, double tolerance)
{
    if (gap > tolerance) return gap;
    double floor = -0.5 * tolerance;
    return gap > floor ? gap - floor : 0.0;
}

static int advance(const problem *p, double start, double horizon, double *time)
{
    double s = start;
    for (int queries = 0;; queries++) {
        if (!(s < horizon)) break;
        if (queries == SHAPECAST_BUDGET) {
            *time = s;
            return SHAPECAST_RECHECK;
        }
        if (p->skip) {
            double next = p->skip(p->ctx, s, horizon);
            if (next >
                s) { /* jumped over a stretch where no contact is possible: counts as a query */
                s = next;
                continue;
            }
        }
        double approach;
        double gap = p->gap(p->ctx, s, &approach);
        if (gap <= p->tolerance && approach < 0.0) {
            *time = s;
            return SHAPECAST_CONTACT;
        }
        double rate = p->rate(p->ctx, s);
        double t = step_for(allowed_fall(gap, p->tolerance), rate, p->accel);
        double least = step_for(0.125 * p->tolerance, rate, p->accel);
        if (t < 0.5 * least) t = least; /* at the floor, or a hair above it: a little deeper */
        if (!(t < INFINITY)) break;
        double next = s + t;
        s = next > s ? next : nextafter(s, INFINITY);
    }
    *time = INFINITY;
    return SHAPECAST_NONE;
}

/* ---- pairs ---------------------------------------------------------------- */

/* Turns a polygon-disk contact (polygon first) into the disk-polygon one. */
static void flip_contact(polygon_contact *c)
{
    c->normal[0] = -c->normal[0], c->normal[1] = -c->normal[1];
    for (int k = 0; k < 2; k++) {
        double swap = c->point_a[k];
        c->point_a[k] = c->point_b[k];
        c->point_b[k] = swap;
    }
    int feature = c->feature_a;
    c->feature_a = c->feature_b;
    c->feature_b = feature;
    if (c->feature == POLYGON_VERTEX_EDGE)
        c->feature = POLYGON_EDGE_VERTEX;
    else if (c->feature == POLYGON_EDGE_VERTEX)
        c->feature = POLYGON_VERTEX_EDGE;
}

double shapecast_pair_gap(const shapecast_body *a, const shapecast_body *b, double s,
                          polygon_contact *contact, double *normal_speed)
{
    double xa[2], va[2], xb[2], vb[2];
    polygon_pose pa, pb;
    shapecast_state_at(a, s, xa, va, &pa.angle);
    shapecast_state_at(b, s, xb, vb, &pb.angle);
    pa.x = xa[0], pa.y = xa[1], pb.x = xb[0], pb.y = xb[1];
    if (a->shape && b->shape) {
        polygon_distance(a->shape, &pa, b->shape, &pb, contact);
    } else if (a->shape) {
        polygon_disk_distance(a->shape, &pa, xb, b->radius, contact);
    } else {
        polygon_disk_distance(b->shape, &pb, xa, a->radius, contact);
        flip_contact(contact);
    }
    const double *ends[2] = {contact->point, contact->point};
    if (contact->feature == POLYGON_EDGE_EDGE)
        ends[0] = contact->face_from, ends[1] = contact->face_to;
    double least = INFINITY;
    for (int k = 0; k < 2; k++) {
        double ua[2], ub[2];
        point_velocity(xa, va, a->omega, ends[k], ua);
        point_velocity(xb, vb, b->omega, ends[k], ub);
        double speed = (ub[0] - ua[0]) * contact->normal[0] + (ub[1] - ua[1]) * contact->normal[1];
        if (speed < least) least = speed;
    }
    *normal_speed = least;
    return contact->distance;
}

typedef struct pair_ctx {
    const shapecast_body *a, *b;
    double margin; /* the bounding circles are grown by this (2 tol) */
} pair_ctx;

static double pair_gap(const void *ctx, double s, double *approach)
{
    const pair_ctx *p = ctx;
    polygon_contact contact;
    return shapecast_pair_gap(p->a, p->b, s, &contact, approach);
}

/* A disk's spin does not move its boundary: it counts with radius 0. */
static double turning_radius(const shapecast_body *b) { return b->shape ? b->radius : 0.0; }

static double pair_rate(const void *ctx, double s)
{
    const pair_ctx *p = ctx;
    double xa[2], va[2], xb[2], vb[2], angle;
    shapecast_state_at(p->a, s, xa, va, &angle);
    shapecast_state_at(p->b, s, xb, vb, &angle);
    return polygon_approach_rate_bound(va, p->a->omega, turning_radius(p->a), vb, p->b->omega,
                                       turning_radius(p->b));
}

/* When the bounding circles, grown by margin, first touch after s: s if
 * they overlap then, INFINITY (or a time >= horizon) if not before horizon
 * (predict.c's kernels: a quadratic, or the quartic under relative
 * acceleration). Where they are apart the shapes are too, so the search
 * jumps to there. */
static double pair_skip(const void *ctx, double s, double horizon)
{
    const pair_ctx *p = ctx;
    double xa[2], va[2], xb[2], vb[2], angle;
    shapecast_state_at(p->a, s, xa, va, &angle);
    shapecast_state_at(p->b, s, xb, vb, &angle);
    const double dr[3] = {xb[0] - xa[0], xb[1] - xa[1], 0.0},
                 dv[3] = {vb[0] - va[0], vb[1] - va[1], 0.0};
    const double da[3] = {p->b->a[0] - p->a->a[0], p->b->a[1] - p->a->a[1], 0.0};
    double sigma = p->a->radius + p->b->radius + p->margin, near = sigma + p->margin;
    /* overlapping circles grown twice as much: where a jump lands, whatever
     * the rounding (else a jump of an ulp could follow a jump of an ulp) */
    if (dr[0] * dr[0] + dr[1] * dr[1] <= near * near) return s;
    if (da[0] != 0.0 || da[1] != 0.0)
        return s + predict_pair_accelerated(dr, dv, da, sigma, horizon - s);
    return s + predict_pair_before(dr, dv, sigma, horizon - s);
}

int shapecast_pair(const shapecast_body *a, const shapecast_body *b, double horizon, double *time)
{
    double tolerance = shapecast_tolerance(a->radius + b->radius);
    pair_ctx ctx = {a, b, 2.0 * tolerance};
    double da[2] = {b->a[0] - a->a[0], b->a[1] - a->a[1]};
    problem p = {pair_gap, pair_rate, pair_skip, hypot(da[0], da[1]), tolerance, &ctx};
    return advance(&p, 0.0, horizon, time);
}

/* ---- walls ------------------------------------------------------------------ */

double shapecast_wall_gap(const shapecast_body *body, const double normal[2], double offset,
                          double s, double point[2], double from[2], double to[2],
                          double *normal_speed)
{
    double x[2], v[2], angle, placed[POLYGON_MAX_VERTICES][2];
    shapecast_state_at(body, s, x, v, &angle);
    polygon_pose pose = {x[0], x[1], angle};
    const polygon_shape *shape = body->shape;
    polygon_place(shape, &pose, placed);
    int deepest = 0;
    double height = -INFINITY;
    for (int k = 0; k < shape->count; k++) {
        double h = normal[0] * placed[k][0] + normal[1] * placed[k][1];
        if (h > height) height = h, deepest = k;
    }
    /* a neighbouring vertex as deep, within the parallel tolerance: a face lies flat */
    int n = shape->count, other = deepest;
    for (int side = -1; side <= 1; side += 2) {
        int k = (deepest + side + n) % n;
        double edge[2] = {placed[k][0] - placed[deepest][0], placed[k][1] - placed[deepest][1]};
        double drop = height - (normal[0] * placed[k][0] + normal[1] * placed[k][1]);
        if (drop <= POLYGON_PARALLEL_SINE * hypot(edge[0], edge[1])) other = k;
    }
    for (int k = 0; k < 2; k++) {
        from[k] = placed[deepest][k];
        to[k] = placed[other][k];
        point[k] = 0.5 * (from[k] + to[k]);
    }
    double u_from[2], u_to[2];
    point_velocity(x, v, body->omega, from, u_from);
    point_velocity(x, v, body->omega, to, u_to);
    double s_from = normal[0] * u_from[0] + normal[1] * u_from[1];
    double s_to = normal[0] * u_to[0] + normal[1] * u_to[1];
    *normal_speed = s_from > s_to ? s_from : s_to;
    return offset - height;
}

typedef struct wall_ctx {
    const shapecast_body *body;
    const double *normal;
    double offset;
} wall_ctx;

static double wall_gap(const void *ctx, double s, double *approach)
{
    const wall_ctx *w = ctx;
    double point[2], from[2], to[2], speed;
    double gap = shapecast_wall_gap(w->body, w->normal, w->offset, s, point, from, to, &speed);
    *approach = -speed;
    return gap;
}

static double wall_rate(const void *ctx, double s)
{
    const wall_ctx *w = ctx;
    double x[2], v[2], angle;
    shapecast_state_at(w->body, s, x, v, &angle);
    return w->normal[0] * v[0] + w->normal[1] * v[1] + fabs(w->body->omega) * w->body->radius;
}

int shapecast_wall(const shapecast_body *body, const double normal[2], double offset,
                   double horizon, double *time)
{
    wall_ctx ctx = {body, normal, offset};
    double accel = normal[0] * body->a[0] + normal[1] * body->a[1];
    problem p = {wall_gap, wall_rate, NULL, accel, shapecast_tolerance(body->radius), &ctx};
    return advance(&p, 0.0, horizon, time);
}

/* ---- convex containers ---------------------------------------------------- */

int shapecast_container_is_convex(const carom_container *c)
{
    for (int32_t k = 0; k < c->node_count; k++) {
        carom_shape shape = c->nodes[k].shape;
        if (shape == CAROM_SHAPE_UNION || shape == CAROM_SHAPE_DIFFERENCE ||
            shape == CAROM_SHAPE_FUNCTION)
            return 0;
    }
    return 1;
}

double shapecast_container_gap(const shapecast_body *body, const carom_container *c, double s,
                               int *vertex, double point[2], double outward[2],
                               double *normal_speed)
{
    double x[2], v[2], angle, placed[POLYGON_MAX_VERTICES][2];
    shapecast_state_at(body, s, x, v, &angle);
    polygon_pose pose = {x[0], x[1], angle};
    polygon_place(body->shape, &pose, placed);
    double least = INFINITY, gradient[3] = {0.0, 0.0, 0.0};
    int best = 0;
    for (int k = 0; k < body->shape->count; k++) {
        const double p[3] = {placed[k][0], placed[k][1], 0.0};
        double g[3], d = container_distance(c, p, g);
        if (d < least) least = d, best = k, gradient[0] = g[0], gradient[1] = g[1];
    }
    double norm = hypot(gradient[0], gradient[1]);
    outward[0] = norm > 0.0 ? -gradient[0] / norm : 0.0;
    outward[1] = norm > 0.0 ? -gradient[1] / norm : 0.0;
    point[0] = placed[best][0], point[1] = placed[best][1];
    double u[2];
    point_velocity(x, v, body->omega, point, u);
    *normal_speed = outward[0] * u[0] + outward[1] * u[1];
    *vertex = best;
    return least;
}

typedef struct container_ctx {
    const shapecast_body *body;
    const carom_container *c;
} container_ctx;

static double container_gap(const void *ctx, double s, double *approach)
{
    const container_ctx *k = ctx;
    int vertex;
    double point[2], outward[2], speed;
    double gap = shapecast_container_gap(k->body, k->c, s, &vertex, point, outward, &speed);
    *approach = -speed;
    return gap;
}

static double container_rate(const void *ctx, double s)
{
    const container_ctx *k = ctx;
    double x[2], v[2], angle;
    shapecast_state_at(k->body, s, x, v, &angle);
    return k->c->lipschitz * (hypot(v[0], v[1]) + fabs(k->body->omega) * k->body->radius);
}

int shapecast_container(const shapecast_body *body, const carom_container *c, double horizon,
                        double *time)
{
    container_ctx ctx = {body, c};
    double accel = c->lipschitz * hypot(body->a[0], body->a[1]);
    problem p = {container_gap, container_rate, NULL, accel, shapecast_tolerance(body->radius),
                 &ctx};
    return advance(&p, 0.0, horizon, time);
}
