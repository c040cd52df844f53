/* container.c — containers: regions given by a signed distance s (positive
 * inside), built from boxes, rounded boxes, balls, convex polygons and
 * capsules, their union (max), intersection (min) and difference
 * (min(s1, -s2)), and caller's functions with a stated Lipschitz bound.
 *
 * The leaves' distances are the exact Euclidean ones (box and rounded box in
 * the form of Inigo Quilez's "distance functions" notes: q = |x - c| - h,
 * |max(q, 0)| + min(max_k q_k, 0)); the composites follow Ricci's
 * constructive geometry (A. Ricci, "A constructive geometry for computer
 * graphics", The Computer Journal 16, 1973): max and min keep the Lipschitz bound 1 and never overstate the
 * distance to the boundary (union: exact outside, a lower bound inside;
 * intersection: exact inside, a lower bound of the distance outside).
 *
 * The tree lives in one block (container.h): a header, its nodes (children
 * before parents, the root last) and the polygons' edges. Volumes of single
 * shapes are closed forms (Steiner's formula for the rounded box); those of
 * composites come from an adaptive cell quadrature bounded by the Lipschitz
 * bound, and an empty intersection or difference is found by a branch and
 * bound search over cells (both at the end of this file). */
#include "container.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"

static const double PI = 3.14159265358979323846;

static const char *const axis_name[3] = {"x", "y", "z"};

static const char *shape_name(carom_shape shape)
{
    switch (shape) {
    case CAROM_SHAPE_BOX: return "box";
    case CAROM_SHAPE_ROUNDED_BOX: return "rounded box";
    case CAROM_SHAPE_BALL: return "ball";
    case CAROM_SHAPE_POLYGON: return "polygon";
    case CAROM_SHAPE_CAPSULE: return "capsule";
    case CAROM_SHAPE_UNION: return "union";
    case CAROM_SHAPE_INTERSECTION: return "intersection";
    case CAROM_SHAPE_DIFFERENCE: return "difference";
    case CAROM_SHAPE_FUNCTION: return "function";
    }
    return "unknown shape";
}

static int is_composite(carom_shape shape)
{
    return shape == CAROM_SHAPE_UNION || shape == CAROM_SHAPE_INTERSECTION || shape == CAROM_SHAPE_DIFFERENCE;
}

/* ------------------------------------------------------------------ block */

static size_t round_up(size_t n, size_t alignment) { return (n + alignment - 1) / alignment * alignment; }

static size_t nodes_offset(void) { return round_up(sizeof(struct carom_container), _Alignof(container_node)); }

static size_t edges_offset(int32_t node_count)
{
    return round_up(nodes_offset() + (size_t)node_count * sizeof(container_node), _Alignof(container_edge));
}

static size_t block_bytes(int32_t node_count, int32_t edge_count)
{
    return edges_offset(node_count) + (size_t)edge_count * sizeof(container_edge);
}

void container_relink(carom_container *c)
{
    c->nodes = (container_node *)(void *)((char *)c + nodes_offset());
    c->edges = c->edge_count > 0 ? (container_edge *)(void *)((char *)c + edges_offset(c->node_count)) : NULL;
}

/* A zeroed block for node_count nodes and edge_count edges, linked. */
static carom_container *new_block(int dim, int32_t node_count, int32_t edge_count)
{
    size_t bytes = block_bytes(node_count, edge_count);
    carom_container *c = malloc(bytes);
    if (!c) return NULL;
    memset(c, 0, bytes);
    c->bytes = bytes;
    c->dim = dim;
    c->node_count = node_count;
    c->edge_count = edge_count;
    c->lipschitz = 1.0;
    container_relink(c);
    return c;
}

carom_container *container_copy(const carom_container *c, void *(*allocate)(void *user, size_t size), void *user)
{
    assert(c);
    carom_container *copy = allocate ? allocate(user, c->bytes) : malloc(c->bytes);
    if (!copy) return NULL;
    memcpy(copy, c, c->bytes);
    container_relink(copy);
    return copy;
}

static const container_node *root(const carom_container *c) { return &c->nodes[c->node_count - 1]; }

/* ---------------------------------------------------------------- vectors */

static double dot(const double *a, const double *b, int dim)
{
    double sum = 0.0;
    for (int k = 0; k < dim; k++) sum += a[k] * b[k];
    return sum;
}

static double norm(const double *a, int dim) { return sqrt(dot(a, a, dim)); }

static void set_vector(double out[3], double x, double y, double z)
{
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

/* The gradient of s = ... - |away| where away points from the nearest
 * boundary-defining point to x: -away / |away| (inward, towards larger s). */
static void set_inward_from(double g[3], const double away[3], double length, int dim)
{
    set_vector(g, 0.0, 0.0, 0.0);
    for (int k = 0; k < dim; k++) g[k] = -away[k] / length;
}

/* ---------------------------------------------------------------- leaves */

/* Box (rounding 0) and rounded box: the box of half sides h - rounding,
 * grown by rounding. q = |x - c| - (h - rounding),
 * s = -(|max(q, 0)| + min(max_k q_k, 0) - rounding). Inside, the gradient is
 * that of the nearest face (the first axis on a tie; on a centre plane the
 * face on the + side). */
static double box_distance(const container_node *n, int dim, const double x[3], double g[3])
{
    double d[3] = {0.0, 0.0, 0.0}, q[3] = {0.0, 0.0, 0.0}, outside_squared = 0.0, q_max = -INFINITY;
    int k_max = 0;
    for (int k = 0; k < dim; k++) {
        d[k] = x[k] - n->centre[k];
        q[k] = fabs(d[k]) - (n->half[k] - n->radius);
        if (q[k] > 0.0) outside_squared += q[k] * q[k];
        if (q[k] > q_max) {
            q_max = q[k];
            k_max = k;
        }
    }
    double outside = sqrt(outside_squared);
    if (g) {
        set_vector(g, 0.0, 0.0, 0.0);
        if (outside > 0.0) {
            for (int k = 0; k < dim; k++)
                if (q[k] > 0.0) g[k] = -(d[k] < 0.0 ? -q[k] : q[k]) / outside;
        } else {
            g[k_max] = d[k_max] < 0.0 ? 1.0 : -1.0;
        }
    }
    return -(outside + (q_max < 0.0 ? q_max : 0.0) - n->radius);
}

/* A unit vector across the segment of direction axis (any axis if it is 0). */
static void across(const double axis[3], int dim, double out[3])
{
    int k_min = 0;
    for (int k = 1; k < dim; k++)
        if (fabs(axis[k]) < fabs(axis[k_min])) k_min = k;
    double e[3] = {0.0, 0.0, 0.0};
    e[k_min] = 1.0;
    double axis_squared = dot(axis, axis, dim);
    double along = axis_squared > 0.0 ? dot(e, axis, dim) / axis_squared : 0.0;
    for (int k = 0; k < 3; k++) out[k] = k < dim ? e[k] - along * axis[k] : 0.0;
    double length = norm(out, dim);
    for (int k = 0; k < dim; k++) out[k] /= length;
}

/* Capsule (a ball when a == b): radius - |x - nearest point of segment ab|.
 * On the segment itself the gradient is a fixed unit vector across it. */
static double capsule_distance(const container_node *n, int dim, const double x[3], double g[3])
{
    double ab[3] = {0.0, 0.0, 0.0}, ax[3] = {0.0, 0.0, 0.0}, away[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < dim; k++) {
        ab[k] = n->b[k] - n->a[k];
        ax[k] = x[k] - n->a[k];
    }
    double ab_squared = dot(ab, ab, dim);
    double t = ab_squared > 0.0 ? dot(ax, ab, dim) / ab_squared : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    for (int k = 0; k < dim; k++) away[k] = ax[k] - t * ab[k];
    double distance = norm(away, dim);
    if (g) {
        if (distance > 0.0) set_inward_from(g, away, distance, dim);
        else across(ab, dim, g);
    }
    return n->radius - distance;
}

/* Ball: radius - |x - centre|; at the centre the gradient is +x. */
static double ball_distance(const container_node *n, int dim, const double x[3], double g[3])
{
    double away[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < dim; k++) away[k] = x[k] - n->centre[k];
    double distance = norm(away, dim);
    if (g) {
        if (distance > 0.0) set_inward_from(g, away, distance, dim);
        else set_vector(g, 1.0, 0.0, 0.0);
    }
    return n->radius - distance;
}

/* Squared distance from x to the edge's segment, and x minus its nearest point. */
static double edge_distance_squared(const container_edge *e, const double x[3], double away[2])
{
    double along[2] = {e->to[0] - e->from[0], e->to[1] - e->from[1]};
    double fx[2] = {x[0] - e->from[0], x[1] - e->from[1]};
    double t = dot(fx, along, 2) / dot(along, along, 2);
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    away[0] = fx[0] - t * along[0];
    away[1] = fx[1] - t * along[1];
    return dot(away, away, 2);
}

/* Convex polygon. Inside: the smallest offset - normal . x over the edges
 * (exact for a convex polygon: the nearest boundary point lies on the nearest
 * edge's line, inside the edge). Outside: minus the distance to the nearest
 * edge segment. Ties: the first edge. */
static double polygon_distance(const carom_container *c, const container_node *n, const double x[3], double g[3])
{
    const container_edge *edges = c->edges + n->first;
    double inside = INFINITY;
    int32_t nearest = 0;
    for (int32_t i = 0; i < n->second; i++) {
        double margin = edges[i].offset - dot(edges[i].normal, x, 2);
        if (margin < inside) {
            inside = margin;
            nearest = i;
        }
    }
    if (inside >= 0.0) {
        if (g) set_vector(g, -edges[nearest].normal[0], -edges[nearest].normal[1], 0.0);
        return inside;
    }
    double best_squared = INFINITY, best_away[3] = {0.0, 0.0, 0.0};
    for (int32_t i = 0; i < n->second; i++) {
        double away[2];
        double squared = edge_distance_squared(&edges[i], x, away);
        if (squared < best_squared) {
            best_squared = squared;
            best_away[0] = away[0];
            best_away[1] = away[1];
        }
    }
    double best = sqrt(best_squared);
    if (g) {
        if (best > 0.0) set_inward_from(g, best_away, best, 2);
        else set_vector(g, -edges[nearest].normal[0], -edges[nearest].normal[1], 0.0);
    }
    return -best;
}

static int finite_vector(const double v[3], int dim)
{
    for (int k = 0; k < dim; k++)
        if (!isfinite(v[k])) return 0;
    return 1;
}

static double call_function(const container_node *n, int dim, const double x[3], carom_vec *gradient)
{
    carom_vec point = {x[0], x[1], dim == 3 ? x[2] : 0.0};
    return n->distance(n->user, point, gradient);
}

/* The central difference of a caller's distance, step 1e-6 of its bounds'
 * largest side; a fixed unit vector if that is not finite. */
static void function_difference_gradient(const container_node *n, int dim, const double x[3], double g[3])
{
    double extent = 0.0;
    for (int k = 0; k < dim; k++) extent = fmax(extent, n->upper[k] - n->lower[k]);
    double step = 1e-6 * extent;
    set_vector(g, 0.0, 0.0, 0.0);
    for (int k = 0; k < dim; k++) {
        double plus[3] = {x[0], x[1], x[2]}, minus[3] = {x[0], x[1], x[2]};
        plus[k] += step;
        minus[k] -= step;
        g[k] = (call_function(n, dim, plus, NULL) - call_function(n, dim, minus, NULL)) / (2.0 * step);
    }
    if (!finite_vector(g, dim)) set_vector(g, 1.0, 0.0, 0.0);
}

/* A caller's distance, and its gradient as it gives it (a central difference
 * if it leaves the gradient alone or gives a non-finite one). */
static double function_distance(const container_node *n, int dim, const double x[3], double g[3])
{
    if (!g) return call_function(n, dim, x, NULL);
    carom_vec gradient = {NAN, NAN, NAN};
    double s = call_function(n, dim, x, &gradient);
    set_vector(g, gradient.x, gradient.y, dim == 3 ? gradient.z : 0.0);
    if (!finite_vector(g, dim)) function_difference_gradient(n, dim, x, g);
    return s;
}

static double node_distance(const carom_container *c, int32_t index, const double x[3], double g[3]);

/* Union max(s1, s2), intersection min(s1, s2), difference min(s1, -s2): the
 * gradient of the part that decides (negated for the difference's second);
 * on a tie, the first part. */
static double composite_distance(const carom_container *c, const container_node *n, const double x[3],
                                 double g[3])
{
    double g1[3], g2[3];
    double s1 = node_distance(c, n->first, x, g ? g1 : NULL);
    double s2 = node_distance(c, n->second, x, g ? g2 : NULL);
    if (n->shape == CAROM_SHAPE_DIFFERENCE) {
        s2 = -s2;
        if (g)
            for (int k = 0; k < 3; k++) g2[k] = -g2[k];
    }
    int take_second = n->shape == CAROM_SHAPE_UNION ? s2 > s1 : s2 < s1;
    if (g) memcpy(g, take_second ? g2 : g1, sizeof g1);
    return take_second ? s2 : s1;
}

static double node_distance(const carom_container *c, int32_t index, const double x[3], double g[3])
{
    const container_node *n = &c->nodes[index];
    switch (n->shape) {
    case CAROM_SHAPE_BOX:
    case CAROM_SHAPE_ROUNDED_BOX: return box_distance(n, c->dim, x, g);
    case CAROM_SHAPE_BALL: return ball_distance(n, c->dim, x, g);
    case CAROM_SHAPE_CAPSULE: return capsule_distance(n, c->dim, x, g);
    case CAROM_SHAPE_POLYGON: return polygon_distance(c, n, x, g);
    case CAROM_SHAPE_FUNCTION: return function_distance(n, c->dim, x, g);
    case CAROM_SHAPE_UNION:
    case CAROM_SHAPE_INTERSECTION:
    case CAROM_SHAPE_DIFFERENCE: return composite_distance(c, n, x, g);
    }
    assert(0 && "a node of unknown shape");
    return NAN;
}

double container_distance(const carom_container *c, const double x[3], double gradient[3])
{
    assert(c && c->node_count > 0);
    double point[3] = {x[0], x[1], c->dim == 3 ? x[2] : 0.0};
    return node_distance(c, c->node_count - 1, point, gradient);
}

/* ------------------------------------------------------------- validation */

static int finite_components(carom_vec v, int dim)
{
    return isfinite(v.x) && isfinite(v.y) && (dim < 3 || isfinite(v.z));
}

static double component(carom_vec v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : v.z); }

static carom_status check_finite_vector(carom_vec v, int dim, const char *field, char *why, size_t why_size)
{
    if (finite_components(v, dim)) return CAROM_OK;
    return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.%s = (%g, %g, %g): expected finite numbers", field, v.x, v.y, v.z);
}

static carom_status check_box(const carom_container_def *def, char *why, size_t why_size)
{
    carom_status status = check_finite_vector(def->centre, def->dim, "centre", why, why_size);
    if (status != CAROM_OK) return status;
    double smallest = INFINITY;
    for (int k = 0; k < def->dim; k++) {
        double side = component(def->size, k);
        if (!(isfinite(side) && side > 0.0))
            return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.size.%s = %g: expected a finite side length > 0",
                          axis_name[k], side);
        smallest = fmin(smallest, side);
    }
    if (def->shape != CAROM_SHAPE_ROUNDED_BOX) return CAROM_OK;
    if (!(isfinite(def->radius) && def->radius >= 0.0 && def->radius <= 0.5 * smallest))
        return message_refuse(why, why_size,
                      CAROM_INVALID_ARGUMENT, "container_def.radius = %g: a rounded box's radius must be >= 0 and at most half its "
                      "smallest side (%g)",
                      def->radius, 0.5 * smallest);
    return CAROM_OK;
}

static carom_status check_radius(const carom_container_def *def, char *why, size_t why_size)
{
    if (isfinite(def->radius) && def->radius > 0.0) return CAROM_OK;
    return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.radius = %g: a %s's radius must be finite and > 0", def->radius,
                  shape_name(def->shape));
}

static carom_status check_ball(const carom_container_def *def, char *why, size_t why_size)
{
    carom_status status = check_finite_vector(def->centre, def->dim, "centre", why, why_size);
    return status != CAROM_OK ? status : check_radius(def, why, why_size);
}

static carom_status check_capsule(const carom_container_def *def, char *why, size_t why_size)
{
    carom_status status = check_finite_vector(def->a, def->dim, "a", why, why_size);
    if (status == CAROM_OK) status = check_finite_vector(def->b, def->dim, "b", why, why_size);
    return status != CAROM_OK ? status : check_radius(def, why, why_size);
}

/* (b - a) x (c - b): > 0 where the polygon turns left at b. */
static double turn(carom_vec a, carom_vec b, carom_vec c)
{
    return (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x);
}

static double signed_area(const carom_vec *v, int32_t count)
{
    double twice = 0.0;
    for (int32_t i = 0; i < count; i++) {
        carom_vec p = v[i], q = v[(i + 1) % count];
        twice += p.x * q.y - q.x * p.y;
    }
    return 0.5 * twice;
}

static carom_status check_polygon_vertices(const carom_container_def *def, char *why, size_t why_size)
{
    const carom_vec *v = def->vertices;
    int32_t count = def->vertex_count;
    for (int32_t i = 0; i < count; i++)
        if (!finite_components(v[i], 2))
            return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.vertices[%d] = (%g, %g): expected finite numbers", (int)i,
                          v[i].x, v[i].y);
    if (v[count - 1].x == v[0].x && v[count - 1].y == v[0].y)
        return message_refuse(why, why_size,
                      CAROM_INVALID_ARGUMENT, "container_def.vertices[%d] = (%g, %g) repeats vertices[0]: do not close the polygon by "
                      "repeating its first vertex (its last edge is implied)",
                      (int)(count - 1), v[count - 1].x, v[count - 1].y);
    for (int32_t i = 1; i < count; i++)
        if (v[i].x == v[i - 1].x && v[i].y == v[i - 1].y)
            return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.vertices[%d] = (%g, %g) repeats vertices[%d]", (int)i,
                          v[i].x, v[i].y, (int)(i - 1));
    return CAROM_OK;
}

/* Convex: every turn the way of the winding (the sign of the area), none
 * straight, and the turns add up to one full turn (a star polygon turns the
 * same way at every vertex but winds around more than once). */
static carom_status check_polygon_convex(const carom_container_def *def, char *why, size_t why_size)
{
    const carom_vec *v = def->vertices;
    int32_t count = def->vertex_count;
    double winding = signed_area(v, count) >= 0.0 ? 1.0 : -1.0, total_turn = 0.0;
    for (int32_t i = 0; i < count; i++) {
        carom_vec a = v[(i + count - 1) % count], b = v[i], c = v[(i + 1) % count];
        double in[2] = {b.x - a.x, b.y - a.y}, out[2] = {c.x - b.x, c.y - b.y};
        double cross = turn(a, b, c), scale = norm(in, 2) * norm(out, 2);
        if (fabs(cross) <= 1e-12 * scale)
            return message_refuse(why, why_size,
                          CAROM_INVALID_ARGUMENT, "container_def.vertices[%d] = (%g, %g) is collinear with its neighbours (or the "
                          "polygon doubles back there): leave it out",
                          (int)i, b.x, b.y);
        if (cross * winding < 0.0)
            return message_refuse(why, why_size,
                          CAROM_INVALID_ARGUMENT, "container_def.vertices[%d] = (%g, %g): the polygon is not convex at this vertex (it "
                          "turns the other way)",
                          (int)i, b.x, b.y);
        total_turn += atan2(fabs(cross), dot(in, out, 2));
    }
    if (total_turn > 3.0 * PI)
        return message_refuse(why, why_size,
                      CAROM_INVALID_ARGUMENT, "container_def.vertices: the polygon winds around %.0f times (its edges cross): expected a "
                      "convex polygon, each vertex once in order",
                      total_turn / (2.0 * PI));
    return CAROM_OK;
}

static carom_status check_polygon(const carom_container_def *def, char *why, size_t why_size)
{
    if (def->dim != 2)
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.dim = %d: a polygon is 2D only (expected dim 2)", def->dim);
    if (!def->vertices) return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.vertices is NULL: a polygon needs its vertices");
    if (def->vertex_count < 3)
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.vertex_count = %d: a polygon needs at least 3 vertices",
                      (int)def->vertex_count);
    carom_status status = check_polygon_vertices(def, why, why_size);
    return status != CAROM_OK ? status : check_polygon_convex(def, why, why_size);
}

static carom_status check_function(const carom_container_def *def, char *why, size_t why_size)
{
    if (!def->distance)
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.distance is NULL: a function container needs its distance");
    if (!(isfinite(def->lipschitz) && def->lipschitz >= 1.0))
        return message_refuse(why, why_size,
                      CAROM_INVALID_ARGUMENT, "container_def.lipschitz = %g: expected a finite bound >= 1 (a signed distance changes at "
                      "least as fast as distance)",
                      def->lipschitz);
    carom_status status = check_finite_vector(def->lower, def->dim, "lower", why, why_size);
    if (status == CAROM_OK) status = check_finite_vector(def->upper, def->dim, "upper", why, why_size);
    if (status != CAROM_OK) return status;
    for (int k = 0; k < def->dim; k++)
        if (!(component(def->lower, k) < component(def->upper, k)))
            return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.lower.%s = %g, upper.%s = %g: expected lower < upper",
                          axis_name[k], component(def->lower, k), axis_name[k], component(def->upper, k));
    return CAROM_OK;
}

static carom_status check_composite(const carom_container_def *def, char *why, size_t why_size)
{
    if (!def->first || !def->second)
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.%s is NULL: a %s needs two parts, first and second",
                      def->first ? "second" : "first", shape_name(def->shape));
    if (def->first->dim != def->second->dim)
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.first is %dD but container_def.second is %dD: a %s's parts "
                      "must have the same dim",
                      def->first->dim, def->second->dim, shape_name(def->shape));
    return CAROM_OK;
}

static carom_status check_def(const carom_container_def *def, char *why, size_t why_size)
{
    if (is_composite(def->shape)) return check_composite(def, why, why_size);
    if (def->dim != 2 && def->dim != 3)
        return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.dim = %d: expected 2 or 3", def->dim);
    switch (def->shape) {
    case CAROM_SHAPE_BOX:
    case CAROM_SHAPE_ROUNDED_BOX: return check_box(def, why, why_size);
    case CAROM_SHAPE_BALL: return check_ball(def, why, why_size);
    case CAROM_SHAPE_CAPSULE: return check_capsule(def, why, why_size);
    case CAROM_SHAPE_POLYGON: return check_polygon(def, why, why_size);
    case CAROM_SHAPE_FUNCTION: return check_function(def, why, why_size);
    default: break;
    }
    return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def.shape = %d: expected one of the carom_shape values",
                  (int)def->shape);
}

/* ---------------------------------------------------------------- building */

static void store(double out[3], carom_vec v, int dim) { set_vector(out, v.x, v.y, dim == 3 ? v.z : 0.0); }

static void set_bounds_around(container_node *n, const double low[3], const double high[3], double grow, int dim)
{
    for (int k = 0; k < 3; k++) {
        n->lower[k] = k < dim ? low[k] - grow : 0.0;
        n->upper[k] = k < dim ? high[k] + grow : 0.0;
    }
}

/* Counter-clockwise edges with unit outward normals (the vertices reversed if
 * given clockwise), and the polygon's bounds. */
static void build_polygon(carom_container *c, container_node *n, const carom_container_def *def)
{
    int32_t count = def->vertex_count;
    int reverse = signed_area(def->vertices, count) < 0.0;
    double low[3] = {INFINITY, INFINITY, 0.0}, high[3] = {-INFINITY, -INFINITY, 0.0};
    n->first = 0;
    n->second = count;
    for (int32_t i = 0; i < count; i++) {
        carom_vec from = def->vertices[reverse ? count - 1 - i : i];
        carom_vec to = def->vertices[reverse ? (2 * count - 2 - i) % count : (i + 1) % count];
        container_edge *e = &c->edges[i];
        e->from[0] = from.x;
        e->from[1] = from.y;
        e->to[0] = to.x;
        e->to[1] = to.y;
        double length = hypot(to.x - from.x, to.y - from.y);
        e->normal[0] = (to.y - from.y) / length;
        e->normal[1] = -(to.x - from.x) / length;
        e->offset = dot(e->normal, e->from, 2);
        low[0] = fmin(low[0], from.x);
        low[1] = fmin(low[1], from.y);
        high[0] = fmax(high[0], from.x);
        high[1] = fmax(high[1], from.y);
    }
    set_bounds_around(n, low, high, 0.0, 2);
}

static void build_leaf_node(carom_container *c, container_node *n, const carom_container_def *def)
{
    int dim = def->dim;
    double low[3], high[3];
    n->shape = def->shape;
    n->first = n->second = -1;
    n->lipschitz = 1.0;
    store(n->centre, def->centre, dim);
    switch (def->shape) {
    case CAROM_SHAPE_BOX:
    case CAROM_SHAPE_ROUNDED_BOX:
        store(n->half, def->size, dim);
        for (int k = 0; k < 3; k++) n->half[k] *= 0.5;
        n->radius = def->shape == CAROM_SHAPE_ROUNDED_BOX ? def->radius : 0.0;
        for (int k = 0; k < 3; k++) low[k] = n->centre[k] - n->half[k], high[k] = n->centre[k] + n->half[k];
        set_bounds_around(n, low, high, 0.0, dim);
        break;
    case CAROM_SHAPE_BALL:
        n->radius = def->radius;
        set_bounds_around(n, n->centre, n->centre, n->radius, dim);
        break;
    case CAROM_SHAPE_CAPSULE:
        n->radius = def->radius;
        store(n->a, def->a, dim);
        store(n->b, def->b, dim);
        for (int k = 0; k < 3; k++) low[k] = fmin(n->a[k], n->b[k]), high[k] = fmax(n->a[k], n->b[k]);
        set_bounds_around(n, low, high, n->radius, dim);
        break;
    case CAROM_SHAPE_POLYGON: build_polygon(c, n, def); break;
    case CAROM_SHAPE_FUNCTION:
        n->distance = def->distance;
        n->user = def->user;
        n->lipschitz = def->lipschitz;
        store(n->lower, def->lower, dim);
        store(n->upper, def->upper, dim);
        c->has_function = 1;
        c->lipschitz = def->lipschitz;
        break;
    default: assert(0 && "validated shape"); break;
    }
}

static carom_container *build_leaf(const carom_container_def *def)
{
    int32_t edges = def->shape == CAROM_SHAPE_POLYGON ? def->vertex_count : 0;
    carom_container *c = new_block(def->dim, 1, edges);
    if (c) build_leaf_node(c, &c->nodes[0], def);
    return c;
}

/* Copies a part's nodes and edges into the block at the given places,
 * moving its child and edge indices along. */
static void copy_part(carom_container *c, const carom_container *part, int32_t node_at, int32_t edge_at)
{
    memcpy(c->nodes + node_at, part->nodes, (size_t)part->node_count * sizeof(container_node));
    if (part->edge_count > 0)
        memcpy(c->edges + edge_at, part->edges, (size_t)part->edge_count * sizeof(container_edge));
    for (int32_t i = node_at; i < node_at + part->node_count; i++) {
        container_node *n = &c->nodes[i];
        if (is_composite(n->shape)) {
            n->first += node_at;
            n->second += node_at;
        } else if (n->shape == CAROM_SHAPE_POLYGON) {
            n->first += edge_at;
        }
    }
}

static void composite_bounds(container_node *n, const container_node *a, const container_node *b)
{
    for (int k = 0; k < 3; k++) {
        if (n->shape == CAROM_SHAPE_UNION) {
            n->lower[k] = fmin(a->lower[k], b->lower[k]);
            n->upper[k] = fmax(a->upper[k], b->upper[k]);
        } else if (n->shape == CAROM_SHAPE_INTERSECTION) {
            n->lower[k] = fmax(a->lower[k], b->lower[k]);
            n->upper[k] = fmin(a->upper[k], b->upper[k]);
        } else {
            n->lower[k] = a->lower[k];
            n->upper[k] = a->upper[k];
        }
    }
}

static carom_container *build_composite(const carom_container_def *def)
{
    const carom_container *first = def->first, *second = def->second;
    if (first->node_count > INT32_MAX / 2 - 1 || second->node_count > INT32_MAX / 2 - 1) return NULL;
    carom_container *c = new_block(first->dim, first->node_count + second->node_count + 1,
                                   first->edge_count + second->edge_count);
    if (!c) return NULL;
    copy_part(c, first, 0, 0);
    copy_part(c, second, first->node_count, first->edge_count);
    container_node *n = &c->nodes[c->node_count - 1];
    n->shape = def->shape;
    n->first = first->node_count - 1;
    n->second = c->node_count - 2;
    n->lipschitz = fmax(first->lipschitz, second->lipschitz);
    composite_bounds(n, &c->nodes[n->first], &c->nodes[n->second]);
    c->lipschitz = n->lipschitz;
    c->has_function = first->has_function || second->has_function;
    return c;
}

/* ----------------------------------------------------------- public calls */

carom_container_def carom_default_container_def(void)
{
    carom_container_def def;
    memset(&def, 0, sizeof def);
    def.shape = CAROM_SHAPE_BALL;
    def.dim = 2;
    def.radius = 1.0;
    def.lipschitz = 1.0;
    return def;
}

carom_status carom_container_create(const carom_container_def *def, carom_container **container, char *why,
                                    size_t why_size)
{
    if (why && why_size > 0) why[0] = '\0';
    if (!container) return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container (the result pointer) is NULL");
    *container = NULL;
    if (!def) return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def is NULL");
    carom_status status = check_def(def, why, why_size);
    if (status != CAROM_OK) return status;
    carom_container *c = is_composite(def->shape) ? build_composite(def) : build_leaf(def);
    if (!c) {
        message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "out of memory for the container");
        return CAROM_OUT_OF_MEMORY;
    }
    if (def->shape == CAROM_SHAPE_INTERSECTION || def->shape == CAROM_SHAPE_DIFFERENCE) {
        status = container_check_not_empty(c, why, why_size);
        if (status != CAROM_OK) {
            free(c);
            return status;
        }
    }
    *container = c;
    return CAROM_OK;
}

void carom_container_destroy(carom_container *container) { free(container); }

double carom_container_distance(const carom_container *container, carom_vec point, carom_vec *gradient)
{
    assert(container);
    double x[3] = {point.x, point.y, point.z}, g[3];
    double s = container_distance(container, x, gradient ? g : NULL);
    if (gradient) *gradient = (carom_vec){g[0], g[1], container->dim == 3 ? g[2] : 0.0};
    return s;
}

int carom_container_dim(const carom_container *container) { return container ? container->dim : 0; }

void carom_container_bounds(const carom_container *container, carom_vec *lower, carom_vec *upper)
{
    assert(container);
    const container_node *n = root(container);
    if (lower) *lower = (carom_vec){n->lower[0], n->lower[1], n->lower[2]};
    if (upper) *upper = (carom_vec){n->upper[0], n->upper[1], n->upper[2]};
}

/* The area (2D) or volume (3D) of a single shape, in closed form. */
static double leaf_volume(const carom_container *c, const container_node *n)
{
    int dim = c->dim;
    double r = n->radius;
    switch (n->shape) {
    case CAROM_SHAPE_BOX: return dim == 2 ? 4.0 * n->half[0] * n->half[1] : 8.0 * n->half[0] * n->half[1] * n->half[2];
    case CAROM_SHAPE_ROUNDED_BOX: {
        /* Steiner: the inner box (sides a, b, c) grown by r. */
        double a = 2.0 * (n->half[0] - r), b = 2.0 * (n->half[1] - r), cc = 2.0 * (n->half[2] - r);
        if (dim == 2) return a * b + 2.0 * r * (a + b) + PI * r * r;
        return a * b * cc + 2.0 * r * (a * b + b * cc + cc * a) + PI * r * r * (a + b + cc) +
               4.0 / 3.0 * PI * r * r * r;
    }
    case CAROM_SHAPE_BALL: return dim == 2 ? PI * r * r : 4.0 / 3.0 * PI * r * r * r;
    case CAROM_SHAPE_CAPSULE: {
        double ab[3] = {n->b[0] - n->a[0], n->b[1] - n->a[1], n->b[2] - n->a[2]};
        double length = norm(ab, dim);
        return dim == 2 ? 2.0 * r * length + PI * r * r : PI * r * r * length + 4.0 / 3.0 * PI * r * r * r;
    }
    case CAROM_SHAPE_POLYGON: {
        double twice = 0.0;
        const container_edge *e = c->edges + n->first;
        for (int32_t i = 0; i < n->second; i++) twice += e[i].from[0] * e[i].to[1] - e[i].to[0] * e[i].from[1];
        return 0.5 * twice;
    }
    default: break;
    }
    return NAN;
}

double carom_container_volume(const carom_container *container)
{
    assert(container);
    const container_node *n = root(container);
    if (container->node_count == 1 && n->shape != CAROM_SHAPE_FUNCTION) return leaf_volume(container, n);
    double error_bound;
    return container_volume_estimate(container, &error_bound);
}

/* ------------------------------------------------------ searching by cells */

/* A box-shaped cell and the distance at its centre. Over the cell s stays
 * within L |half| of that (s is L-Lipschitz), which lets a search drop cells
 * that cannot hold a point inside and a quadrature count whole cells. */
typedef struct cell {
    double centre[3], half[3];
    double s;
    double key; /* the search's order: s, or s + L |half| */
} cell;

static double cell_reach(const carom_container *c, const double half[3])
{
    return c->lipschitz * norm(half, c->dim);
}

/* The grid of cells over the root's bounds, about cubic, per_axis along the
 * longest side: counts and half sides. */
static void base_grid(const carom_container *c, int per_axis, int counts[3], double half[3])
{
    const container_node *n = root(c);
    double longest = 0.0;
    for (int k = 0; k < c->dim; k++) longest = fmax(longest, n->upper[k] - n->lower[k]);
    for (int k = 0; k < 3; k++) {
        double side = n->upper[k] - n->lower[k], cells = ceil(per_axis * side / longest);
        /* a degenerate or unbounded root (a forged snapshot's) gets one cell, never an int overflow */
        counts[k] = k < c->dim && cells >= 1.0 && cells <= per_axis ? (int)cells : 1;
        if (counts[k] < 1) counts[k] = 1;
        half[k] = k < c->dim ? 0.5 * side / counts[k] : 0.0;
    }
}

static void base_cell_centre(const carom_container *c, const int counts[3], const double half[3], int index,
                             double centre[3])
{
    const container_node *n = root(c);
    for (int k = 0; k < 3; k++) {
        int i = index % counts[k];
        index /= counts[k];
        centre[k] = k < c->dim ? n->lower[k] + (2 * i + 1) * half[k] : 0.0;
    }
}

/* The child_index-th of a cell's 2^dim halves. */
static void child_cell(const carom_container *c, const cell *parent, int child_index, double centre[3],
                       double half[3])
{
    for (int k = 0; k < 3; k++) {
        half[k] = 0.5 * parent->half[k];
        double sign = (child_index >> k) & 1 ? 1.0 : -1.0;
        centre[k] = k < c->dim ? parent->centre[k] + sign * half[k] : 0.0;
    }
}

/* A max-heap of cells by key. */
typedef struct cell_heap {
    cell *cells;
    size_t count, capacity;
} cell_heap;

static int heap_push(cell_heap *heap, const cell *item)
{
    if (heap->count == heap->capacity) {
        size_t capacity = heap->capacity ? 2 * heap->capacity : 256;
        cell *grown = realloc(heap->cells, capacity * sizeof(cell));
        if (!grown) return 0;
        heap->cells = grown;
        heap->capacity = capacity;
    }
    size_t i = heap->count++;
    while (i > 0 && heap->cells[(i - 1) / 2].key < item->key) {
        heap->cells[i] = heap->cells[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap->cells[i] = *item;
    return 1;
}

static cell heap_pop(cell_heap *heap)
{
    cell top = heap->cells[0], last = heap->cells[--heap->count];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= heap->count) break;
        if (child + 1 < heap->count && heap->cells[child + 1].key > heap->cells[child].key) child++;
        if (!(heap->cells[child].key > last.key)) break;
        heap->cells[i] = heap->cells[child];
        i = child;
    }
    if (heap->count > 0) heap->cells[i] = last;
    return top;
}

/* The emptiness search. Branch and bound over cells of the root's bounds,
 * from a 16^dim grid; a cell is split into its 2^dim halves, dropped when
 * s(centre) + L |half| <= 0 (no point of it can have s > 0), and not split
 * below 1e-9 of the bounds' diagonal. First 2^13 splits of the cell whose
 * centre has the largest s (refining around the best point: this finds thin
 * regions fast), then 2^14 of the cell with the largest s(centre) + L |half|
 * (best-first on the bound: this lowers the bound on s everywhere). It ends
 * when a centre has s > 0 (not empty), when no cell is left (empty: s <= 0
 * everywhere), or when the splits are spent: then the largest
 * s(centre) + L |half| over the cells left bounds s everywhere, and the
 * container is refused as empty with that bound (no body of a larger radius
 * could fit in it anyway). */
enum { EMPTY_SEARCH_GRID = 16, GREEDY_SPLITS = 1 << 13, BOUND_SPLITS = 1 << 14 };

typedef enum search_outcome { SEARCH_FOUND, SEARCH_EMPTY, SEARCH_GAVE_UP, SEARCH_NO_MEMORY } search_outcome;

typedef struct search {
    const carom_container *c;
    cell_heap heap;
    double finest;      /* cells with a half diagonal below this are not split */
    double unsplit_max; /* the largest s(centre) + L |half| of the cells not split for that */
    int by_bound;       /* the order: 0 by s(centre), 1 by s(centre) + L |half| */
} search;

/* Orders the heap by s(centre) + L |half| from now on. */
static void order_by_bound(search *state)
{
    cell_heap *heap = &state->heap;
    size_t count = heap->count;
    state->by_bound = 1;
    heap->count = 0;
    for (size_t i = 0; i < count; i++) {
        cell item = heap->cells[i];
        item.key = item.s + cell_reach(state->c, item.half);
        int pushed = heap_push(heap, &item); /* in place: never grows */
        assert(pushed);
        (void)pushed;
    }
}

/* Looks at one cell: found, dropped, or kept for splitting. */
static search_outcome visit_cell(search *state, const double centre[3], const double half[3])
{
    const carom_container *c = state->c;
    cell item;
    memcpy(item.centre, centre, sizeof item.centre);
    memcpy(item.half, half, sizeof item.half);
    item.s = container_distance(c, centre, NULL);
    if (item.s > 0.0) return SEARCH_FOUND;
    double most = item.s + cell_reach(c, half);
    if (!(most > 0.0)) return SEARCH_EMPTY;
    item.key = state->by_bound ? most : item.s;
    if (norm(half, c->dim) < state->finest) {
        state->unsplit_max = fmax(state->unsplit_max, most);
        return SEARCH_GAVE_UP;
    }
    return heap_push(&state->heap, &item) ? SEARCH_GAVE_UP : SEARCH_NO_MEMORY;
}

/* Splits the best cell up to splits times. */
static search_outcome split_cells(search *state, int splits)
{
    const carom_container *c = state->c;
    double half[3], centre[3];
    for (int split = 0; split < splits && state->heap.count > 0; split++) {
        cell parent = heap_pop(&state->heap);
        for (int child = 0; child < 1 << c->dim; child++) {
            child_cell(c, &parent, child, centre, half);
            search_outcome outcome = visit_cell(state, centre, half);
            if (outcome == SEARCH_FOUND || outcome == SEARCH_NO_MEMORY) return outcome;
        }
    }
    return SEARCH_GAVE_UP;
}

static search_outcome search_positive(search *state)
{
    const carom_container *c = state->c;
    int counts[3];
    double half[3], centre[3];
    base_grid(c, EMPTY_SEARCH_GRID, counts, half);
    for (int i = 0; i < counts[0] * counts[1] * counts[2]; i++) {
        base_cell_centre(c, counts, half, i, centre);
        search_outcome outcome = visit_cell(state, centre, half);
        if (outcome == SEARCH_FOUND || outcome == SEARCH_NO_MEMORY) return outcome;
    }
    search_outcome outcome = split_cells(state, GREEDY_SPLITS);
    if (outcome != SEARCH_GAVE_UP) return outcome;
    order_by_bound(state);
    outcome = split_cells(state, BOUND_SPLITS);
    if (outcome != SEARCH_GAVE_UP) return outcome;
    return state->heap.count == 0 && state->unsplit_max == -INFINITY ? SEARCH_EMPTY : SEARCH_GAVE_UP;
}

/* The largest s any point of the cells left can have. */
static double search_bound(const search *state)
{
    double most = state->unsplit_max;
    for (size_t i = 0; i < state->heap.count; i++)
        most = fmax(most, state->heap.cells[i].s + cell_reach(state->c, state->heap.cells[i].half));
    return most;
}

static int format_bounds(char *out, size_t size, const container_node *n, int dim)
{
    if (dim == 2)
        return snprintf(out, size, "[%g, %g] x [%g, %g]", n->lower[0], n->upper[0], n->lower[1], n->upper[1]);
    return snprintf(out, size, "[%g, %g] x [%g, %g] x [%g, %g]", n->lower[0], n->upper[0], n->lower[1],
                    n->upper[1], n->lower[2], n->upper[2]);
}

carom_status container_check_not_empty(const carom_container *c, char *why, size_t why_size)
{
    const container_node *n = root(c);
    const char *name = shape_name(n->shape);
    double side[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < c->dim; k++) {
        side[k] = n->upper[k] - n->lower[k];
        if (!(side[k] > 0.0))
            return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container_def: the %s is empty: its parts' bounds do not overlap along %s",
                          name, axis_name[k]);
    }
    search state = {c, {NULL, 0, 0}, 1e-9 * norm(side, c->dim), -INFINITY, 0};
    search_outcome outcome = search_positive(&state);
    double most = outcome == SEARCH_GAVE_UP ? search_bound(&state) : 0.0;
    free(state.heap.cells);
    char bounds[160];
    format_bounds(bounds, sizeof bounds, n, c->dim);
    switch (outcome) {
    case SEARCH_FOUND: return CAROM_OK;
    case SEARCH_NO_MEMORY: message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "out of memory searching the %s for a point inside", name);
        return CAROM_OUT_OF_MEMORY;
    case SEARCH_EMPTY:
        return message_refuse(why, why_size,
                      CAROM_INVALID_ARGUMENT, "container_def: the %s is empty: no point of its bounds %s has s > 0 (shown by a cell search "
                      "with the Lipschitz bound)",
                      name, bounds);
    case SEARCH_GAVE_UP: break;
    }
    return message_refuse(why, why_size,
                  CAROM_INVALID_ARGUMENT, "container_def: the %s is empty: a cell search of its bounds %s found no point with s > 0, and s "
                  "is at most %.3g anywhere in it (no body of a larger radius could fit)",
                  name, bounds, most);
}

/* The volume quadrature. Cells of a grid over the root's bounds (64^2 in
 * 2D, 16^3 in 3D) are counted whole when s(centre) >= L |half| (inside) or
 * <= -L |half| (outside), and split into halves otherwise, down to 7 (2D)
 * or 4 (3D) levels: cells of 1/8192 (2D) or 1/256 (3D) of the longest side.
 * A cell still unresolved there counts by its centre (in if s > 0, half if
 * s = 0); its volume goes into the error bound, so the true volume lies
 * within the estimate +- that bound. The bound is about (boundary area) x
 * 2 L |half| of the finest cells: for a unit disc, a relative 1e-3; for a
 * unit ball, 6e-2. The centre rule's actual error is far smaller: test_container
 * measures 1e-6 relative for two overlapping discs and 6e-5 for two balls.
 * The depths are chosen for time (about 6 ms in 2D and 25 ms in 3D, once
 * per world, at its first run): the volume only scales the statistics'
 * pressure, where 1e-3 is far below their noise. */
enum { VOLUME_GRID_2D = 64, VOLUME_DEPTH_2D = 7, VOLUME_GRID_3D = 16, VOLUME_DEPTH_3D = 4 };

typedef struct quadrature {
    const carom_container *c;
    double volume, unresolved;
} quadrature;

static double cell_volume(const double half[3], int dim)
{
    double v = 1.0;
    for (int k = 0; k < dim; k++) v *= 2.0 * half[k];
    return v;
}

static void integrate_cell(quadrature *q, const cell *k, int depth)
{
    int dim = q->c->dim;
    double reach = cell_reach(q->c, k->half), v = cell_volume(k->half, dim);
    if (k->s >= reach) {
        q->volume += v;
        return;
    }
    if (k->s <= -reach) return;
    if (depth == 0) {
        q->unresolved += v;
        q->volume += k->s > 0.0 ? v : (k->s == 0.0 ? 0.5 * v : 0.0);
        return;
    }
    for (int child = 0; child < 1 << dim; child++) {
        cell part;
        child_cell(q->c, k, child, part.centre, part.half);
        part.s = container_distance(q->c, part.centre, NULL);
        integrate_cell(q, &part, depth - 1);
    }
}

double container_volume_estimate(const carom_container *c, double *error_bound)
{
    quadrature q = {c, 0.0, 0.0};
    int counts[3];
    cell k;
    base_grid(c, c->dim == 2 ? VOLUME_GRID_2D : VOLUME_GRID_3D, counts, k.half);
    for (int i = 0; i < counts[0] * counts[1] * counts[2]; i++) {
        base_cell_centre(c, counts, k.half, i, k.centre);
        k.s = container_distance(c, k.centre, NULL);
        integrate_cell(&q, &k, c->dim == 2 ? VOLUME_DEPTH_2D : VOLUME_DEPTH_3D);
    }
    if (error_bound) *error_bound = q.unresolved;
    return q.volume;
}

/* ---------------------------------------------------------------- checking */

/* The check samples points uniformly in the root's bounds grown by a tenth on
 * every side. At each: s and its gradient finite; the Lipschitz bound
 * against a point 1e-3 of the bounds' diagonal away in a random direction
 * and against the previous sample, |s(p) - s(q)| <= L |p - q| (1 + 1e-12)
 * plus 4 ulps of |s(p)| + |s(q)| + 2 L max |x_k| for round-off (a distance
 * computed from coordinates is off by ulps of the coordinates, not of s);
 * the gradient's component along each axis and one random direction against
 * a central difference of step h = 1e-6 of the diagonal, to within 1e-4 L,
 * wherever the second difference is below 1e-5 L h (no kink within h: the
 * central difference is then within 5e-6 L of the one-sided slope). */
typedef struct checker {
    const carom_container *c;
    carom_rng rng;
    double low[3], high[3], diagonal;
    char *why;
    size_t why_size;
} checker;

static void format_point(char out[96], const double x[3], int dim)
{
    if (dim == 2) snprintf(out, 96, "(%.17g, %.17g)", x[0], x[1]);
    else snprintf(out, 96, "(%.17g, %.17g, %.17g)", x[0], x[1], x[2]);
}

static void random_direction(checker *ch, double u[3])
{
    double length;
    do {
        set_vector(u, carom_rng_normal(&ch->rng), carom_rng_normal(&ch->rng),
                   ch->c->dim == 3 ? carom_rng_normal(&ch->rng) : 0.0);
        length = norm(u, ch->c->dim);
    } while (!(length > 1e-6));
    for (int k = 0; k < 3; k++) u[k] /= length;
}

static carom_status check_pair(checker *ch, const double p[3], double sp, const double q[3])
{
    int dim = ch->c->dim;
    double sq = container_distance(ch->c, q, NULL), apart[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < dim; k++) apart[k] = p[k] - q[k];
    double distance = norm(apart, dim), change = fabs(sp - sq);
    double reach = 0.0; /* the coordinates' size: an honest function's rounding grows with it */
    for (int k = 0; k < dim; k++) reach = fmax(reach, fmax(fabs(p[k]), fabs(q[k])));
    double allowed = ch->c->lipschitz * distance * (1.0 + 1e-12) +
                     4.0 * DBL_EPSILON * (fabs(sp) + fabs(sq) + 2.0 * ch->c->lipschitz * reach);
    if (change <= allowed) return CAROM_OK;
    char a[96], b[96];
    format_point(a, p, dim);
    format_point(b, q, dim);
    return message_refuse(ch->why, ch->why_size,
                  CAROM_INVALID_ARGUMENT, "the container's distance changes by %.17g between %s and %s, %.17g apart: more than its "
                  "Lipschitz bound %g allows (s = %.17g and %.17g)",
                  change, a, b, distance, ch->c->lipschitz, sp, sq);
}

static carom_status check_slope(checker *ch, const double p[3], double sp, const double g[3], const double u[3])
{
    int dim = ch->c->dim;
    double h = 1e-6 * ch->diagonal, plus[3], minus[3];
    for (int k = 0; k < 3; k++) plus[k] = p[k] + h * u[k], minus[k] = p[k] - h * u[k];
    double s_plus = container_distance(ch->c, plus, NULL), s_minus = container_distance(ch->c, minus, NULL);
    double L = ch->c->lipschitz;
    if (!(fabs(s_plus + s_minus - 2.0 * sp) <= 1e-5 * L * h)) return CAROM_OK; /* a kink within h */
    double difference = (s_plus - s_minus) / (2.0 * h), slope = dot(g, u, dim);
    if (fabs(slope - difference) <= 1e-4 * L) return CAROM_OK;
    char a[96], b[96];
    format_point(a, p, dim);
    format_point(b, u, dim);
    return message_refuse(ch->why, ch->why_size,
                  CAROM_INVALID_ARGUMENT, "the container's gradient at %s gives the slope %.17g along %s, but a central difference "
                  "gives %.17g",
                  a, slope, b, difference);
}

static carom_status check_gradient(checker *ch, const double p[3], double sp, const double g[3])
{
    for (int k = 0; k <= ch->c->dim; k++) {
        double u[3] = {0.0, 0.0, 0.0};
        if (k < ch->c->dim) u[k] = 1.0;
        else random_direction(ch, u);
        carom_status status = check_slope(ch, p, sp, g, u);
        if (status != CAROM_OK) return status;
    }
    return CAROM_OK;
}

static carom_status check_sample(checker *ch, const double p[3], const double previous[3])
{
    int dim = ch->c->dim;
    double g[3], u[3], q[3];
    double sp = container_distance(ch->c, p, g);
    if (!isfinite(sp) || !finite_vector(g, dim)) {
        char a[96];
        format_point(a, p, dim);
        return message_refuse(ch->why, ch->why_size, CAROM_INVALID_ARGUMENT, "the container's distance at %s is %g, gradient (%g, %g, %g): "
                      "expected finite numbers", a, sp, g[0], g[1], g[2]);
    }
    random_direction(ch, u);
    for (int k = 0; k < 3; k++) q[k] = p[k] + 1e-3 * ch->diagonal * u[k];
    carom_status status = check_pair(ch, p, sp, q);
    if (status == CAROM_OK && previous) status = check_pair(ch, p, sp, previous);
    if (status == CAROM_OK) status = check_gradient(ch, p, sp, g);
    return status;
}

static void start_checker(checker *ch, const carom_container *c, uint64_t seed, char *why, size_t why_size)
{
    const container_node *n = root(c);
    ch->c = c;
    ch->rng = carom_rng_seed(seed);
    ch->why = why;
    ch->why_size = why_size;
    double side[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < 3; k++) {
        side[k] = n->upper[k] - n->lower[k];
        ch->low[k] = n->lower[k] - 0.1 * side[k];
        ch->high[k] = n->upper[k] + 0.1 * side[k];
    }
    ch->diagonal = norm(side, c->dim);
}

carom_status carom_container_check(const carom_container *container, int64_t samples, uint64_t seed, char *why,
                                   size_t why_size)
{
    if (why && why_size > 0) why[0] = '\0';
    if (!container) return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "container is NULL");
    if (samples < 1) return message_refuse(why, why_size, CAROM_INVALID_ARGUMENT, "samples = %lld: expected at least 1", (long long)samples);
    checker ch;
    start_checker(&ch, container, seed, why, why_size);
    double p[3] = {0.0, 0.0, 0.0}, previous[3] = {0.0, 0.0, 0.0};
    for (int64_t i = 0; i < samples; i++) {
        for (int k = 0; k < container->dim; k++)
            p[k] = ch.low[k] + (ch.high[k] - ch.low[k]) * carom_rng_uniform(&ch.rng);
        carom_status status = check_sample(&ch, p, i > 0 ? previous : NULL);
        if (status != CAROM_OK) return status;
        memcpy(previous, p, sizeof p);
    }
    return CAROM_OK;
}
