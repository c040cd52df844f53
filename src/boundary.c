/* boundary.c — when a body meets a container's boundary.
 *
 * A body of radius r whose centre moves as x(s) = x + v s + a s^2 / 2 is in
 * contact when its clearance s_tree(x(s)) - r reaches 0 (container.h: s > 0
 * inside). Two methods, both pure functions of the container and the motion.
 *
 * Exact, for trees of carom's shapes. Since max, min and negation commute
 * with a threshold, s_tree >= r is a Boolean formula over the leaves:
 * max(a, b) >= r is a >= r or b >= r, min is "and", and -a >= r is a <= -r,
 * with the roles of "and" and "or" swapped under a negation. A leaf's
 * s >= r says x lies in the leaf eroded by r, s <= -r that it lies outside
 * the leaf dilated by r (the leaves' distances are exact, container.c), and
 * each of those regions is itself a formula over elementary regions: half
 * planes (spaces), balls and, in 3D, infinite cylinders. E.g. a box dilated
 * by e is its faces pushed out by e, less, at each corner (edge), the part of
 * the corner's (edge's) Voronoi region farther than e from it; a convex
 * polygon likewise; a capsule is its cylinder (a slab in 2D) less the parts
 * beyond its ends outside the end balls. Along the motion each elementary
 * condition is p(s) < 0 for a polynomial p of degree <= 2 (half space; any
 * without acceleration) or <= 4 (ball, cylinder), and fails on a union of
 * closed intervals: degree <= 2 by predict_crossing's closed form (a face of
 * a polygon or box gives the world's box walls' bits), 3 and 4 by certified
 * root isolation (roots.c: no sign change is missed, nor a touch of a
 * double root whose computed value lies within 8 u (|w0| + rho)^2 of 0; a
 * quadratic's touch whose discriminant rounds below 0 is missed by that
 * rounding, as in predict.c). "And" fails where any part fails (the earliest failure), "or"
 * where all fail at once, found by leapfrogging: from a time t, ask each
 * part in turn for its first failure at or after t and move t there, until
 * every part agrees (each jump lands on the start of a failure interval, so
 * the earliest common failure is never jumped over). The contact is the
 * first failure of the whole formula in [0, H].
 * At s = 0 an elementary condition violated by no more than round-off (a
 * slack of 2^-40 of the scale of the positions and the container) while it
 * is not getting worse counts as holding until it holds indeed (as
 * predict_crossing treats c > 0); violated and getting worse is a contact
 * now (0), so a body that just bounced is not caught again and one pressed
 * into the wall is.
 * Before all this, one distance evaluation rejects a body that cannot reach
 * the boundary before the horizon (clearance > L (|v| H + |a| H^2 / 2)),
 * and the search ends where the centre leaves the container's bounds.
 *
 * Tolerance (exact method), with u = 2^-53 and Lambda the scale (largest
 * coordinate of the positions and the container's bounds, plus r): no
 * contact is missed: before the returned time the clearance is never below
 * -(2^-40 Lambda + rounding of the conditions, a few u Lambda); the returned
 * time s > 0 is within a few ulps of a root of an elementary condition that
 * decides the formula there, so the clearance at s is 0 to within a few
 * u (Lambda + |v| s + |a| s^2) and the time is within that divided by the
 * normal speed. Measured against a certified brute-force scan of the
 * clearance (tests/test_boundary.c, 22 containers in 2D and 3D, 11000 random
 * trajectories with and without acceleration): no contact missed, |clearance|
 * at the returned contacts <= 2.6e-15 of the container's size, time errors
 * <= 3.2e-15 relative (1 + t). Cost (bench/boundary.c): one distance
 * evaluation, 35-55 ns, for a body that cannot reach the wall within the
 * horizon; near the wall about 100 ns in a circle or sphere (340 ns under
 * acceleration: a quartic), 180 ns in a hexagon, 550 ns in a 3D rounded box.
 *
 * Certified, for trees with a caller's function (Lipschitz bound L):
 * conservative advancement on f(s) = s_tree(x(s)) - r. From s_k, f cannot
 * reach 0 before the step d with L (|v_k| d + |a| d^2 / 2) = f_k, so the
 * step is taken whole; the contact is declared at the first s_k with
 * f_k <= eps = 2^-30 of the container's size (its bounds' largest side):
 * small enough to be invisible in a simulation, large enough that an
 * approach at angle theta to the wall takes about 21 L / sin(theta) steps.
 * The time returned is never after the true contact, and at most
 * eps / v_n before it (v_n the speed at which the clearance falls). At
 * f_k <= eps while the clearance rises (just bounced) the body is moved on
 * by eps / L at a time, in which it cannot go deeper than eps. Between
 * samples |f_{k+1} - f_k| <= L |x_{k+1} - x_k| is checked; a function
 * caught breaking it gives -1. At most 10^4 evaluations: past them, the
 * time reached is returned as BOUNDARY_RECHECK (no contact before it).
 */
#include "boundary.h"

#include <assert.h>
#include <math.h>

#include "predict.h"
#include "roots.h"

#define ROUNDOFF 0x1p-40 /* fraction of the scale: violations this small at s = 0 are round-off */
#define TOUCH 0x1p-50    /* of (|w0| + rho)^2: a turning point this near 0 is a touch (8 u) */
#define REJECT_MARGIN 0x1p-30      /* relative margin of the far rejection */
#define ADVANCE_TOLERANCE 0x1p-30  /* eps, as a fraction of the container's size */
#define ADVANCE_STEPS 10000        /* distance evaluations of conservative advancement */
#define LIPSCHITZ_ROUNDING 0x1p-36 /* relative slack of the check of a caller's bound */

typedef struct path {
    const carom_container *c;
    int dim;
    double x[3], v[3], a[3]; /* z = 0 in 2D */
    double radius;
    double hi;    /* the search ends here: the horizon or leaving the bounds */
    double slack; /* round-off allowance at s = 0, a length */
} path;

static double dot(const double *p, const double *q)
{
    return p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
}

static double norm(const double *p) { return sqrt(dot(p, p)); }

static void position_at(const path *pa, double s, double out[3])
{
    for (int k = 0; k < 3; k++) out[k] = pa->x[k] + s * (pa->v[k] + 0.5 * pa->a[k] * s);
}

static const container_node *root_node(const carom_container *c)
{
    return &c->nodes[c->node_count - 1];
}

/* ------------------------------------------------- elementary conditions */

/* The first nonzero derivative of p at 0 is positive. */
static int rising_at_zero(const double *c, int degree)
{
    for (int i = 1; i <= degree; i++)
        if (c[i] != 0.0) return c[i] > 0.0;
    return 0;
}

/* p(0) >= 0 by round-off only and not rising: where the condition starts to
 * hold indeed (p < 0), or where p turns to rise again, or INFINITY if it
 * does neither before hi. */
static double end_of_roundoff(const path *pa, const double *c, int degree)
{
    if (!(pa->hi > 0.0)) return INFINITY;
    double turn = pa->hi, turning[ROOTS_MAX_DEGREE];
    if (degree >= 2) {
        double d[ROOTS_MAX_DEGREE];
        for (int i = 1; i <= degree; i++) d[i - 1] = (double)i * c[i];
        if (roots_in(d, degree - 1, 0.0, pa->hi, turning) > 0) turn = turning[0];
    }
    if (roots_eval(c, degree, turn) < 0.0) return roots_refine(c, degree, 0.0, turn, 0);
    return turn == pa->hi ? INFINITY : turn;
}

/* The first s in [t, hi] at which the condition p(s) < 0 fails, or INFINITY.
 * Degree <= 2 (half spaces; balls and cylinders without acceleration): the
 * closed form of predict_crossing with the time origin moved to the start,
 * so that at t = 0 a polygon's or a box's face gives the same bits as the
 * world's own walls. Degree 3 and 4: root isolation (roots.c). */
static double first_failure(const path *pa, const double *c, int degree, double allowance,
                            double touch, double t)
{
    while (degree > 0 && c[degree] == 0.0) degree--;
    double start = t;
    if (c[0] >= 0.0 && c[0] <= allowance && !rising_at_zero(c, degree))
        start = fmax(t, end_of_roundoff(pa, c, degree));
    if (!(start <= pa->hi)) return INFINITY;
    if (degree > 2) return roots_first_nonnegative(c, degree, start, pa->hi, touch);
    double level = roots_eval(c, degree, start);
    if (level >= 0.0) return start;
    double c2 = degree == 2 ? c[2] : 0.0, c1 = degree >= 1 ? c[1] : 0.0;
    double s = start + predict_crossing(level, c1 + 2.0 * c2 * start, 2.0 * c2);
    return s <= pa->hi ? s : INFINITY;
}

typedef enum condition_kind {
    HALFSPACE,
    BALL_IN,
    BALL_OUT,
    CYLINDER_IN,
    CYLINDER_OUT
} condition_kind;

/* half space: n . x < d (n unit); ball: |x - p| < rho (in) or > rho (out);
 * cylinder: the distance of x to the line through p along unit u likewise. */
typedef struct condition {
    condition_kind kind;
    double n[3], d;
    double p[3], u[3], rho;
} condition;

static double halfspace_failure(const path *pa, const double n[3], double d, double t)
{
    double c[3] = {dot(n, pa->x) - d, dot(n, pa->v), 0.5 * dot(n, pa->a)};
    return first_failure(pa, c, 2, pa->slack, 0.0, t);
}

/* |w(s)|^2 - rho^2 with w(s) = w0 + wv s + wa s^2 / 2, inside (< 0) or outside (> 0). */
static double quadric_failure(const path *pa, const double w0[3], const double wv[3],
                              const double wa[3], double rho, int inside, double t)
{
    if (inside && !(rho > 0.0)) return t; /* an empty region */
    double c[5] = {dot(w0, w0) - rho * rho, 2.0 * dot(w0, wv), dot(wv, wv) + dot(w0, wa),
                   dot(wv, wa), 0.25 * dot(wa, wa)};
    if (!inside)
        for (int i = 0; i < 5; i++) c[i] = -c[i];
    double size = norm(w0) + fabs(rho);
    double allowance = pa->slack * 2.0 * size, touch = TOUCH * size * size;
    return first_failure(pa, c, 4, allowance, touch, t);
}

/* The part of p across the unit axis u. */
static void across_axis(const double p[3], const double u[3], double out[3])
{
    double along = dot(p, u);
    for (int k = 0; k < 3; k++) out[k] = p[k] - along * u[k];
}

static double condition_failure(const path *pa, const condition *cd, double t)
{
    double w0[3];
    for (int k = 0; k < 3; k++) w0[k] = pa->x[k] - cd->p[k];
    switch (cd->kind) {
    case HALFSPACE:
        return halfspace_failure(pa, cd->n, cd->d, t);
    case BALL_IN:
    case BALL_OUT:
        return quadric_failure(pa, w0, pa->v, pa->a, cd->rho, cd->kind == BALL_IN, t);
    case CYLINDER_IN:
    case CYLINDER_OUT: {
        double w[3], wv[3], wa[3];
        across_axis(w0, cd->u, w);
        across_axis(pa->v, cd->u, wv);
        across_axis(pa->a, cd->u, wa);
        return quadric_failure(pa, w, wv, wa, cd->rho, cd->kind == CYLINDER_IN, t);
    }
    }
    assert(0 && "a condition of unknown kind");
    return t;
}

static condition halfspace(const double n[3], double d)
{
    condition cd = {HALFSPACE, {n[0], n[1], n[2]}, d, {0, 0, 0}, {0, 0, 0}, 0.0};
    return cd;
}

/* n . x > d, as (-n) . x < -d. */
static condition beyond(const double n[3], double d)
{
    condition cd = {HALFSPACE, {-n[0], -n[1], -n[2]}, -d, {0, 0, 0}, {0, 0, 0}, 0.0};
    return cd;
}

static condition round_region(condition_kind kind, const double p[3], const double u[3], double rho)
{
    condition cd = {kind, {0, 0, 0}, 0.0, {p[0], p[1], p[2]}, {u[0], u[1], u[2]}, rho};
    return cd;
}

/* ------------------------------------------------------------- combining */

typedef double (*part_failure_fn)(const path *pa, const void *shape, int part, double t);

/* Every part must hold: the earliest failure of any. */
static double failure_of_all(const path *pa, part_failure_fn failure, const void *shape, int parts,
                             double t)
{
    double first = INFINITY;
    for (int k = 0; k < parts && first > t; k++) first = fmin(first, failure(pa, shape, k, t));
    return first;
}

/* Some part must hold: the earliest time at which all fail together, by
 * leapfrogging. Each jump lands on the start of a part's failure interval
 * and there are finitely many; the cap only guards against a pathology of
 * rounding (then the time reached, which is never late, is returned). */
static double failure_of_any(const path *pa, part_failure_fn failure, const void *shape, int parts,
                             double t)
{
    double s = t;
    int agreeing = 0, k = 0;
    for (long step = 0; agreeing < parts; step++) {
        if (step > 1000L + 64L * parts) return s;
        double next = failure(pa, shape, k, s);
        if (!(next <= pa->hi)) return INFINITY;
        if (next > s) {
            s = next;
            agreeing = 1;
        } else {
            agreeing++;
        }
        k = k + 1 == parts ? 0 : k + 1;
    }
    return s;
}

/* A small "and" or "or" of elementary conditions. */
typedef struct clause {
    int any;
    int count;
    condition part[4];
} clause;

static double clause_part(const path *pa, const void *shape, int part, double t)
{
    return condition_failure(pa, &((const clause *)shape)->part[part], t);
}

static double clause_failure(const path *pa, const clause *cl, double t)
{
    return cl->any ? failure_of_any(pa, clause_part, cl, cl->count, t)
                   : failure_of_all(pa, clause_part, cl, cl->count, t);
}

/* ------------------------------------------- boxes grown by a rounding e */

/* The box of half sides half about centre, grown by grow >= 0 (a rounded
 * box); outside: the complement of that. */
typedef struct grown_box {
    const double *centre;
    double half[3];
    double grow;
    int dim;
    int outside;
} grown_box;

static void unit_axis(int axis, double sign, double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    out[axis] = sign;
}

static double corner_sign(int corner, int axis) { return (corner >> axis) & 1 ? -1.0 : 1.0; }

/* Part k: a face (2 dim of them), a corner (2^dim), an edge (12, in 3D).
 * Inside: faces sigma (x_i - c_i) < h_i + e; at a corner (edge), not in its
 * Voronoi region (sigma_i (x_i - c_i) > h_i for each axis across it) or
 * within e of it. Outside: the negation of each, one of which must hold. */
static clause grown_box_part(const grown_box *b, int k)
{
    clause cl;
    double n[3], point[3] = {0, 0, 0}, axis[3] = {0, 0, 0};
    int faces = 2 * b->dim, corners = 1 << b->dim;
    if (k < faces) {
        int i = k / 2;
        double sign = k % 2 ? -1.0 : 1.0, d = sign * b->centre[i] + b->half[i] + b->grow;
        unit_axis(i, sign, n);
        cl.any = 0;
        cl.count = 1;
        cl.part[0] = b->outside ? beyond(n, d) : halfspace(n, d);
        return cl;
    }
    int across[3], count = 0, along = -1, bits = 0;
    if (k < faces + corners) { /* a corner: every axis is across it */
        bits = k - faces;
        for (int i = 0; i < b->dim; i++) across[count++] = i;
    } else { /* an edge (3D): 4 along each axis */
        int edge = k - faces - corners;
        along = edge / 4;
        for (int i = 0; i < 3; i++) {
            if (i == along) continue;
            if ((edge >> count) & 1) bits |= 1 << i;
            across[count++] = i;
        }
        unit_axis(along, 1.0, axis);
        point[along] = b->centre[along];
    }
    for (int j = 0; j < count; j++) {
        int i = across[j];
        double sign = corner_sign(bits, i), d = sign * b->centre[i] + b->half[i];
        unit_axis(i, sign, n);
        point[i] = b->centre[i] + sign * b->half[i];
        cl.part[j] = b->outside ? beyond(n, d) : halfspace(n, d);
    }
    condition_kind kind =
        along < 0 ? (b->outside ? BALL_OUT : BALL_IN) : (b->outside ? CYLINDER_OUT : CYLINDER_IN);
    cl.part[count] = round_region(kind, point, axis, b->grow);
    cl.count = count + 1;
    cl.any = !b->outside; /* inside: out of the region or near; outside: in the region and far */
    return cl;
}

static double grown_box_part_failure(const path *pa, const void *shape, int part, double t)
{
    clause cl = grown_box_part(shape, part);
    return clause_failure(pa, &cl, t);
}

/* Whether the body can be in corner (edge) part k's Voronoi region at some
 * time before until: on each axis across it, sigma (x_i(s) - c_i) is at most
 * its value now plus |v_i| until + |a_i| until^2 / 2. */
static int region_reachable(const path *pa, const grown_box *b, int k, double until)
{
    int faces = 2 * b->dim, corners = 1 << b->dim, along = -1, bits = k - faces, index = 0;
    if (k >= faces + corners) along = (k - faces - corners) / 4, bits = k - faces - corners;
    for (int i = 0; i < b->dim; i++) {
        if (i == along) continue;
        int bit = along < 0 ? (bits >> i) & 1 : (bits >> index++) & 1;
        double sign = bit ? -1.0 : 1.0;
        double farthest = sign * (pa->x[i] - b->centre[i]) + fabs(pa->v[i]) * until +
                          0.5 * fabs(pa->a[i]) * until * until;
        if (farthest < b->half[i] - pa->slack) return 0;
    }
    return 1;
}

/* Inside: the faces first, then only the corners and edges the body can
 * reach before the faces' first failure. Outside: one of the parts. */
static double grown_box_failure(const path *pa, const grown_box *b, double t)
{
    int faces = 2 * b->dim, parts = faces;
    if (b->grow > 0.0) parts += (1 << b->dim) + (b->dim == 3 ? 12 : 0);
    if (b->outside) return failure_of_any(pa, grown_box_part_failure, b, parts, t);
    double first = failure_of_all(pa, grown_box_part_failure, b, faces, t);
    for (int k = faces; k < parts && first > t; k++)
        if (region_reachable(pa, b, k, fmin(first, pa->hi)))
            first = fmin(first, grown_box_part_failure(pa, b, k, t));
    return first;
}

/* A box or rounded box of half sides h and rounding rho is the box of half
 * sides h - rho grown by rho: eroded by r it is that box grown by rho - r
 * (r < rho) or the box of half sides h - r; dilated, grown by rho + r. */
static double box_failure(const path *pa, const container_node *n, int negated, double t)
{
    double rho = n->radius, r = pa->radius;
    grown_box b = {n->centre, {0, 0, 0}, 0.0, pa->dim, negated};
    for (int k = 0; k < 3; k++) b.half[k] = n->half[k] - rho;
    if (negated) {
        b.grow = rho + r;
    } else if (r < rho) {
        b.grow = rho - r;
    } else {
        for (int k = 0; k < 3; k++) b.half[k] = n->half[k] - r;
    }
    return grown_box_failure(pa, &b, t);
}

/* -------------------------------------------------------------- polygons */

typedef struct grown_polygon {
    const container_edge *edges;
    int32_t count;
    double grow;
} grown_polygon;

static void edge_direction(const container_edge *e, double out[3])
{
    out[0] = -e->normal[1];
    out[1] = e->normal[0];
    out[2] = 0.0;
}

/* Inside the polygon eroded by grow (= r): every edge's n . x < offset - r. */
static double eroded_polygon_part(const path *pa, const void *shape, int part, double t)
{
    const grown_polygon *g = shape;
    const container_edge *e = &g->edges[part];
    double n[3] = {e->normal[0], e->normal[1], 0.0};
    return halfspace_failure(pa, n, e->offset - g->grow, t);
}

/* Outside the polygon dilated by grow: beyond an edge's line pushed out by
 * grow (parts 0 .. count-1), or in a vertex's normal cone and farther than
 * grow from it (parts count .. 2 count - 1). */
static double outside_dilated_polygon_part(const path *pa, const void *shape, int part, double t)
{
    const grown_polygon *g = shape;
    if (part < g->count) {
        const container_edge *e = &g->edges[part];
        double n[3] = {e->normal[0], e->normal[1], 0.0};
        condition cd = beyond(n, e->offset + g->grow);
        return condition_failure(pa, &cd, t);
    }
    int32_t j = part - g->count;
    const container_edge *out = &g->edges[j], *in = &g->edges[j == 0 ? g->count - 1 : j - 1];
    double vertex[3] = {out->from[0], out->from[1], 0.0}, t_in[3], t_out[3], none[3] = {0, 0, 0};
    edge_direction(in, t_in);
    edge_direction(out, t_out);
    clause cl = {0,
                 3,
                 {beyond(t_in, dot(t_in, vertex)), halfspace(t_out, dot(t_out, vertex)),
                  round_region(BALL_OUT, vertex, none, g->grow)}};
    return clause_failure(pa, &cl, t);
}

static double polygon_failure(const path *pa, const container_node *n, int negated, double t)
{
    grown_polygon g = {pa->c->edges + n->first, n->second, pa->radius};
    return negated ? failure_of_any(pa, outside_dilated_polygon_part, &g, 2 * n->second, t)
                   : failure_of_all(pa, eroded_polygon_part, &g, n->second, t);
}

/* -------------------------------------------------------------- capsules */

/* Within rho of the segment ab (inside) or farther (outside). Inside: in the
 * cylinder (a slab in 2D), and not beyond an end unless within its ball;
 * outside: out of the cylinder, or beyond an end and outside its ball. */
typedef struct grown_segment {
    double a[3], b[3], u[3], rho;
    int dim, outside;
} grown_segment;

static clause grown_segment_part(const grown_segment *g, int part)
{
    clause cl;
    double none[3] = {0, 0, 0}, minus_u[3] = {-g->u[0], -g->u[1], -g->u[2]};
    int in = !g->outside;
    if (part == 0) {
        cl.any = g->outside;
        if (g->dim == 3) {
            cl.count = 1;
            cl.part[0] = round_region(in ? CYLINDER_IN : CYLINDER_OUT, g->a, g->u, g->rho);
        } else {
            double m[3] = {-g->u[1], g->u[0], 0.0}, minus_m[3] = {g->u[1], -g->u[0], 0.0};
            double along = dot(m, g->a);
            cl.count = 2;
            cl.part[0] = in ? halfspace(m, along + g->rho) : beyond(m, along + g->rho);
            cl.part[1] =
                in ? halfspace(minus_m, -along + g->rho) : beyond(minus_m, -along + g->rho);
        }
        return cl;
    }
    const double *end = part == 1 ? g->a : g->b;
    const double *toward = part == 1 ? minus_u : g->u; /* pointing out past this end */
    double d = dot(toward, end);
    cl.any = in;
    cl.count = 2;
    cl.part[0] = in ? halfspace(toward, d) : beyond(toward, d);
    cl.part[1] = round_region(in ? BALL_IN : BALL_OUT, end, none, g->rho);
    return cl;
}

static double grown_segment_part_failure(const path *pa, const void *shape, int part, double t)
{
    clause cl = grown_segment_part(shape, part);
    return clause_failure(pa, &cl, t);
}

static double ball_failure(const path *pa, const double centre[3], double rho, int inside, double t)
{
    double none[3] = {0, 0, 0};
    condition cd = round_region(inside ? BALL_IN : BALL_OUT, centre, none, rho);
    return condition_failure(pa, &cd, t);
}

static double capsule_failure(const path *pa, const container_node *n, int negated, double t)
{
    double rho = negated ? n->radius + pa->radius : n->radius - pa->radius;
    grown_segment g = {
        {n->a[0], n->a[1], n->a[2]}, {n->b[0], n->b[1], n->b[2]}, {0, 0, 0}, rho, pa->dim, negated};
    double ab[3] = {n->b[0] - n->a[0], n->b[1] - n->a[1], n->b[2] - n->a[2]}, length = norm(ab);
    if (!(length > 0.0)) return ball_failure(pa, n->a, rho, !negated, t);
    if (!negated && !(rho > 0.0)) return t;
    for (int k = 0; k < 3; k++) g.u[k] = ab[k] / length;
    return negated ? failure_of_any(pa, grown_segment_part_failure, &g, 3, t)
                   : failure_of_all(pa, grown_segment_part_failure, &g, 3, t);
}

/* ------------------------------------------------------------------ tree */

static double node_failure(const path *pa, int32_t index, int negated, double t);

typedef struct composite_parts {
    int32_t index[2];
    int negated[2];
} composite_parts;

static double composite_part(const path *pa, const void *shape, int part, double t)
{
    const composite_parts *p = shape;
    return node_failure(pa, p->index[part], p->negated[part], t);
}

/* max(a, b) >= r: a >= r or b >= r; min: and; min(a, -b) >= r: a >= r and
 * b <= -r. Negated (s <= -r), each the other way round. */
static double composite_failure(const path *pa, const container_node *n, int negated, double t)
{
    composite_parts parts = {{n->first, n->second}, {negated, negated}};
    int any = n->shape == CAROM_SHAPE_UNION ? !negated : negated;
    if (n->shape == CAROM_SHAPE_DIFFERENCE) parts.negated[1] = !negated;
    return any ? failure_of_any(pa, composite_part, &parts, 2, t)
               : failure_of_all(pa, composite_part, &parts, 2, t);
}

/* The first s in [t, hi] at which the node's condition fails: s_node > r,
 * or negated s_node < -r. */
static double node_failure(const path *pa, int32_t index, int negated, double t)
{
    const container_node *n = &pa->c->nodes[index];
    double r = pa->radius;
    switch (n->shape) {
    case CAROM_SHAPE_BOX:
    case CAROM_SHAPE_ROUNDED_BOX:
        return box_failure(pa, n, negated, t);
    case CAROM_SHAPE_BALL:
        return ball_failure(pa, n->centre, negated ? n->radius + r : n->radius - r, !negated, t);
    case CAROM_SHAPE_POLYGON:
        return polygon_failure(pa, n, negated, t);
    case CAROM_SHAPE_CAPSULE:
        return capsule_failure(pa, n, negated, t);
    case CAROM_SHAPE_UNION:
    case CAROM_SHAPE_INTERSECTION:
    case CAROM_SHAPE_DIFFERENCE:
        return composite_failure(pa, n, negated, t);
    case CAROM_SHAPE_FUNCTION:
        break;
    }
    assert(0 && "the exact method has no function leaves");
    return t;
}

/* ------------------------------------------- conservative advancement */

static double container_size(const carom_container *c)
{
    const container_node *root = root_node(c);
    double size = 0.0;
    for (int k = 0; k < c->dim; k++) size = fmax(size, root->upper[k] - root->lower[k]);
    return size;
}

/* The largest step d from s with L (|v(s)| d + |a| d^2 / 2) <= f: the
 * positive root, in the form that does not cancel. */
static double safe_step(const path *pa, double s, double f, double lipschitz)
{
    double vs[3];
    for (int k = 0; k < 3; k++) vs[k] = pa->v[k] + pa->a[k] * s;
    double speed = lipschitz * norm(vs), push = lipschitz * norm(pa->a);
    double root = sqrt(speed * speed + 2.0 * push * f);
    return 2.0 * f / (speed + root);
}

/* The clearance falls at s (the gradient of s_tree against the motion). */
static int falling(const path *pa, double s, const double x[3])
{
    double g[3], vs[3];
    container_distance(pa->c, x, g);
    for (int k = 0; k < 3; k++) vs[k] = pa->v[k] + pa->a[k] * s;
    double rate = dot(g, vs);
    return rate < 0.0 || (rate == 0.0 && dot(g, pa->a) < 0.0);
}

static int advance(const path *pa, double horizon, double *time)
{
    const carom_container *c = pa->c;
    double lipschitz = c->lipschitz > 1.0 ? c->lipschitz : 1.0;
    double eps = ADVANCE_TOLERANCE * container_size(c);
    double s = 0.0, x[3], f;
    position_at(pa, s, x);
    f = container_distance(c, x, NULL) - pa->radius;
    if (isnan(f)) return BOUNDARY_LIPSCHITZ_BROKEN;
    for (int step = 0; step < ADVANCE_STEPS; step++) {
        if (f <= eps && falling(pa, s, x)) {
            *time = s;
            return BOUNDARY_FOUND;
        }
        double d = safe_step(pa, s, fmax(f, eps), lipschitz);
        double next = s + d, y[3];
        if (!(next < pa->hi)) {
            /* beyond the horizon, or past leaving the bounds (then a contact
             * must have come: a function that says otherwise lies) */
            if (pa->hi < horizon) return BOUNDARY_LIPSCHITZ_BROKEN;
            return BOUNDARY_FOUND; /* *time stays INFINITY */
        }
        position_at(pa, next, y);
        double g = container_distance(c, y, NULL) - pa->radius;
        double chord = sqrt((y[0] - x[0]) * (y[0] - x[0]) + (y[1] - x[1]) * (y[1] - x[1]) +
                            (y[2] - x[2]) * (y[2] - x[2]));
        /* the function's own rounding is a few ulps of the coordinates it
         * works on, not of f: 2^-40 of the container's size and place */
        double allowed = lipschitz * chord +
                         LIPSCHITZ_ROUNDING * (fabs(f) + fabs(g) + lipschitz * chord + eps) +
                         ROUNDOFF * (eps / ADVANCE_TOLERANCE + norm(y));
        if (!(fabs(g - f) <= allowed)) return BOUNDARY_LIPSCHITZ_BROKEN;
        s = next, f = g;
        for (int k = 0; k < 3; k++) x[k] = y[k];
    }
    *time = s;
    return BOUNDARY_RECHECK;
}

/* ----------------------------------------------------------- the calls */

/* The earliest s at which the centre leaves the container's bounds (the
 * region, eroded by r, lies inside them, so a contact comes first). */
static double leaving_bounds(const path *pa)
{
    const container_node *root = root_node(pa->c);
    double first = INFINITY;
    for (int k = 0; k < pa->dim; k++) {
        first = fmin(first, predict_crossing(pa->x[k] - root->upper[k], pa->v[k], pa->a[k]));
        first = fmin(first, predict_crossing(root->lower[k] - pa->x[k], -pa->v[k], -pa->a[k]));
    }
    return first;
}

static double scale(const path *pa)
{
    const container_node *root = root_node(pa->c);
    double largest = 0.0;
    for (int k = 0; k < pa->dim; k++)
        largest =
            fmax(largest, fmax(fabs(pa->x[k]), fmax(fabs(root->lower[k]), fabs(root->upper[k]))));
    return largest + pa->radius;
}

int boundary_contact_time(const carom_container *c, const double x[3], const double v[3],
                          const double a[3], double radius, double horizon, double *time)
{
    assert(c && c->node_count > 0 && time);
    *time = INFINITY;
    path pa = {c, c->dim, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, radius, horizon, 0.0};
    for (int k = 0; k < c->dim; k++) pa.x[k] = x[k], pa.v[k] = v[k], pa.a[k] = a[k];
    double speed = norm(pa.v), push = norm(pa.a);
    if (!(horizon > 0.0) || (speed == 0.0 && push == 0.0))
        return BOUNDARY_FOUND; /* no motion: no contact */
    double lipschitz = c->lipschitz > 1.0 ? c->lipschitz : 1.0;
    double clearance = container_distance(c, pa.x, NULL) - radius;
    if (isnan(clearance)) return c->has_function ? BOUNDARY_LIPSCHITZ_BROKEN : BOUNDARY_FOUND;
    double reach = lipschitz * (speed * horizon + 0.5 * push * horizon * horizon);
    pa.slack = ROUNDOFF * scale(&pa);
    if (clearance > reach * (1.0 + REJECT_MARGIN) + pa.slack)
        return BOUNDARY_FOUND; /* far: cannot reach it */
    pa.hi = fmin(horizon, leaving_bounds(&pa));
    if (c->has_function || !isfinite(pa.hi)) return advance(&pa, horizon, time);
    double s = node_failure(&pa, c->node_count - 1, 0, 0.0);
    if (!(s <= pa.hi) && pa.hi < horizon)
        s = pa.hi; /* left the bounds: a contact by then at the latest */
    if (s < horizon) *time = s;
    return BOUNDARY_FOUND;
}

void boundary_outward_normal(const carom_container *c, const double x[3], double normal[3])
{
    double g[3] = {0, 0, 0};
    container_distance(c, x, g);
    double length = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    if (!(length > 0.0)) {
        normal[0] = 1.0, normal[1] = normal[2] = 0.0;
        return;
    }
    for (int k = 0; k < 3; k++) normal[k] = -g[k] / length;
    if (c->dim == 2) normal[2] = 0.0;
}
