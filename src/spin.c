/* spin.c — rotation state and body shapes (issue 14; seed 004).
 *
 * Every body has an orientation, an angular velocity and a moment of
 * inertia; a 2D body may be a convex polygon (polygon.c). As with driven
 * bodies (drive.c), the arrays exist only once some body needs them, so a
 * world of smooth, non-spinning disks and spheres never reads them
 * (DESIGN.md, "Growing the body record").
 *
 * The per-body arrays are indexed by slot, so order.c moves them with the
 * body: a body's spin record (one cache line: angular velocity, orientation
 * and its time) lies near its neighbours' as its hot record does.
 *
 * Lazy orientation: the inertia is isotropic (a scalar), so a free body's
 * angular velocity is constant between events and its orientation at t is
 * the stored one turned by omega (t - since). The stored orientation is
 * brought forward only when the angular velocity changes (a rough or shaped
 * collision, a setter), never at every event, so a body that never changes
 * spin turns by an exact closed form however long it runs. In 3D the turn is
 * the quaternion exp(omega dt / 2) applied on the left (omega in the world
 * frame), renormalised after each product (a Newton step; small turns from
 * Taylor series, see half_turn). A rough collision changes two spins, and
 * spin_bring_two works the two turns side by side in the lanes of one
 * vector, each lane the scalar code's operations in its order (the same
 * bits; tests/test_rough.c checks it).
 */
#include "spin.h"

#include <math.h>
#include <string.h>

#include "memory.h"
#include "world.h"

static const char axis_name[3] = {'x', 'y', 'z'};

double spin_round_inertia(int dim, double mass, double radius)
{
    if (mass == INFINITY) return INFINITY;
    return (dim == 2 ? 0.5 : 0.4) * mass * radius * radius;
}

static void set_defaults(carom_world *w, int32_t slot)
{
    spin *s = &w->spin;
    for (int a = 0; a < 3; a++) s->state[slot].omega[a] = 0.0;
    double *q = s->state[slot].orientation;
    q[0] = q[1] = q[2] = 0.0;
    q[3] = w->dim == 3 ? 1.0 : 0.0;
    s->state[slot].since = w->clock;
    s->inertia[slot] = spin_round_inertia(w->dim, world_mass(w, slot), w->hot[slot].radius);
    s->shape[slot] = -1;
}

int spin_enable(carom_world *w)
{
    spin *s = &w->spin;
    if (s->on) return 0;
    size_t n = (size_t)w->capacity;
    memory_array arrays[3] = {{(void **)&s->state, 0, memory_bytes(n, sizeof *s->state), 1},
                              {(void **)&s->inertia, 0, memory_bytes(n, sizeof *s->inertia), 0},
                              {(void **)&s->shape, 0, memory_bytes(n, sizeof *s->shape), 0}};
    if (n > 0 && memory_grow_together(&w->def.allocator, arrays, 3) != 0) return -1;
    for (int32_t slot = 0; slot < w->count; slot++) set_defaults(w, slot);
    s->on = 1;
    return 0;
}

static int is_identity(const carom_quat q)
{
    return (q.x == 0.0 && q.y == 0.0 && q.z == 0.0 && (q.w == 0.0 || q.w == 1.0));
}

int spin_needed_by(const carom_body_def *b, int dim)
{
    int turned = dim == 2 ? b->angle != 0.0 : !is_identity(b->orientation);
    return turned || b->angular_velocity.x != 0.0 || b->angular_velocity.y != 0.0 ||
           b->angular_velocity.z != 0.0 || b->inertia != 0.0 || b->polygon_vertices != 0 || b->polygon;
}

static carom_status check_orientation(carom_world *w, int32_t id, const carom_body_def *b)
{
    if (w->dim == 2) {
        if (!isfinite(b->angle) || fabs(b->angle) > 1e15)
            return world_fail(w, CAROM_INVALID_ARGUMENT,
                              "body %d: angle = %g: expected a finite angle in radians (|angle| <= 1e15)", (int)id,
                              b->angle);
        return CAROM_OK;
    }
    const carom_quat q = b->orientation;
    double norm2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (is_identity(q)) return CAROM_OK;
    if (!isfinite(norm2) || fabs(sqrt(norm2) - 1.0) > 1e-6)
        return world_fail(w, CAROM_INVALID_ARGUMENT,
                          "body %d: orientation = (%g, %g, %g, %g): expected a unit quaternion (x y z w, length 1 "
                          "within 1e-6)", (int)id, q.x, q.y, q.z, q.w);
    return CAROM_OK;
}

static carom_status check_spin_numbers(carom_world *w, int32_t id, const carom_body_def *b)
{
    const double omega[3] = {b->angular_velocity.x, b->angular_velocity.y, b->angular_velocity.z};
    carom_status st;
    for (int a = 0; a < 3; a++) {
        if (w->dim == 2 && a < 2 && omega[a] != 0.0)
            return world_fail(w, CAROM_INVALID_ARGUMENT,
                              "body %d: angular_velocity.%c = %g: in 2D a body turns about z only (expected 0)",
                              (int)id, axis_name[a], omega[a]);
        if ((st = world_check_number(w, id, "angular_velocity", axis_name[a], omega[a])) != CAROM_OK) return st;
    }
    int kinematic = b->mass == INFINITY;
    int inertia_ok = b->inertia == 0.0 || b->inertia == INFINITY ||
                     (!kinematic && world_mass_in_range(b->inertia));
    if (!inertia_ok)
        return world_fail(w, CAROM_INVALID_ARGUMENT,
                          kinematic ? "body %d: inertia = %g: a kinematic body's inertia is infinite (expected 0 "
                                      "or INFINITY)"
                                    : "body %d: inertia = %g: expected a number in 1e-100 to 1e100, INFINITY "
                                      "(it never turns but by its own spin), or 0 (from shape and mass)",
                          (int)id, b->inertia);
    return check_orientation(w, id, b);
}

carom_status spin_check_def(carom_world *w, int32_t id, const carom_body_def *b, polygon_shape *shape)
{
    shape->count = 0;
    carom_status st = check_spin_numbers(w, id, b);
    if (st != CAROM_OK || (b->polygon_vertices == 0 && !b->polygon)) return st;
    if (w->dim != 2)
        return world_fail(w, CAROM_INVALID_ARGUMENT,
                          "body %d: polygon: polygons are 2D shapes (this world is 3D)", (int)id);
    if (!b->polygon || b->polygon_vertices < 3 || b->polygon_vertices > CAROM_POLYGON_MAX_VERTICES)
        return world_fail(w, CAROM_INVALID_ARGUMENT,
                          "body %d: polygon_vertices = %d%s: expected 3 to %d vertices", (int)id,
                          (int)b->polygon_vertices, b->polygon ? "" : " with polygon NULL",
                          CAROM_POLYGON_MAX_VERTICES);
    double xy[POLYGON_MAX_VERTICES][2];
    for (int32_t k = 0; k < b->polygon_vertices; k++) xy[k][0] = b->polygon[k].x, xy[k][1] = b->polygon[k].y;
    char why[200];
    if (polygon_from_vertices((const double(*)[2])xy, b->polygon_vertices, shape, NULL, why, sizeof why) !=
        CAROM_OK) {
        shape->count = 0;
        return world_fail(w, CAROM_INVALID_ARGUMENT, "body %d: polygon: %s", (int)id, why);
    }
    if (!world_in_scale(shape->radius) || !world_mass_in_range(shape->area))
        return world_fail(w, CAROM_INVALID_ARGUMENT,
                          "body %d: polygon: bounding radius %g, area %g: outside the supported range", (int)id,
                          shape->radius, shape->area);
    return CAROM_OK;
}

int spin_reserve_shape(carom_world *w)
{
    spin *s = &w->spin;
    if (s->shape_count < s->shape_capacity) return 0;
    int32_t capacity = s->shape_capacity > 0 ? 2 * s->shape_capacity : 4;
    polygon_shape *grown = memory_grow(&w->def.allocator, s->shapes, (size_t)s->shape_capacity * sizeof *grown,
                                       memory_bytes((size_t)capacity, sizeof *grown));
    if (!grown) return -1;
    s->shapes = grown;
    s->shape_capacity = capacity;
    return 0;
}

static int32_t store_shape(spin *s, const polygon_shape *shape)
{
    if (s->shape_count > 0 && memcmp(&s->shapes[s->shape_count - 1], shape, sizeof *shape) == 0)
        return s->shape_count - 1;
    s->shapes[s->shape_count] = *shape;
    return s->shape_count++;
}

void spin_new_body(carom_world *w, int32_t slot, const carom_body_def *b, const polygon_shape *shape)
{
    spin *s = &w->spin;
    set_defaults(w, slot);
    if (w->dim == 3) {
        s->state[slot].omega[0] = b->angular_velocity.x;
        s->state[slot].omega[1] = b->angular_velocity.y;
        if (!is_identity(b->orientation)) {
            const carom_quat q = b->orientation;
            double norm2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
            /* one of carom's own (unit to round-off) is kept as it is, so
             * that a state written and read back goes on bit for bit */
            double norm = fabs(norm2 - 1.0) <= 0x1p-48 ? 1.0 : sqrt(norm2);
            const double unit[4] = {q.x / norm, q.y / norm, q.z / norm, q.w / norm};
            memcpy(s->state[slot].orientation, unit, sizeof unit);
        }
    } else {
        s->state[slot].orientation[0] = b->angle;
    }
    s->state[slot].omega[2] = b->angular_velocity.z;
    if (shape->count > 0) {
        s->shape[slot] = store_shape(s, shape);
        s->polygons++;
        if (b->mass != INFINITY) s->inertia[slot] = b->mass * shape->second_moment / shape->area;
    }
    if (b->inertia != 0.0) s->inertia[slot] = b->inertia;
}

/* ---- orientation at a time ------------------------------------------------ */

double spin_angle_at(const carom_world *w, int32_t slot, double t)
{
    const spin *s = &w->spin;
    if (!s->on) return 0.0;
    return s->state[slot].orientation[0] + s->state[slot].omega[2] * (t - s->state[slot].since);
}

/* The Taylor coefficients of cos(h) and sin(h) / h in h^2, through h^14:
 * below h^2 = 1/4 the first term left out is below 1e-18 of the result. */
enum { SERIES_TERMS = 8 };
static const double cosine_series[SERIES_TERMS] = {1.0,           -1.0 / 2.0,        1.0 / 24.0,
                                                   -1.0 / 720.0,  1.0 / 40320.0,     -1.0 / 3628800.0,
                                                   1.0 / 479001600.0, -1.0 / 87178291200.0};
static const double sinc_series[SERIES_TERMS] = {1.0,            -1.0 / 6.0,          1.0 / 120.0,
                                                 -1.0 / 5040.0,  1.0 / 362880.0,      -1.0 / 39916800.0,
                                                 1.0 / 6227020800.0, -1.0 / 1307674368000.0};
static const double series_bound = 0.25; /* on h^2 = (angle / 2)^2 */

/* For a turn by angle (given squared): c = cos(angle / 2) and k =
 * sin(angle / 2) / angle. Below angle / 2 = 1/2 (a rough sphere between two
 * collisions, nearly always) from the series above by Horner's rule: no
 * square root, sine, cosine or division. Above, from libm. */
static void half_turn(double angle_squared, double *c, double *k)
{
    double h2 = 0.25 * angle_squared; /* (angle / 2)^2 */
    if (h2 <= series_bound) {
        double cos_sum = cosine_series[SERIES_TERMS - 1], sinc = sinc_series[SERIES_TERMS - 1];
        for (int term = SERIES_TERMS - 2; term >= 0; term--) {
            cos_sum = cosine_series[term] + h2 * cos_sum;
            sinc = sinc_series[term] + h2 * sinc;
        }
        *c = cos_sum;
        *k = 0.5 * sinc; /* sin(h) / (2 h) */
        return;
    }
    double angle = sqrt(angle_squared);
    *c = cos(0.5 * angle);
    *k = sin(0.5 * angle) / angle;
}

/* q turned by the rotation vector phi (angle |phi| about phi / |phi|):
 * exp(phi / 2) q, brought back to unit length by one Newton step,
 * q (3 - |q|^2) / 2, which for a product of two unit quaternions (|q|^2 =
 * 1 + d, d a few ulps) leaves an error of order d^2: no square root or
 * division (hot in rough worlds, at every collision). */
static void turn_quaternion(double q[4], const double phi[3])
{
    double angle_squared = phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2];
    if (angle_squared == 0.0) return;
    double c, k;
    half_turn(angle_squared, &c, &k);
    double dx = k * phi[0], dy = k * phi[1], dz = k * phi[2];
    double qx = q[0], qy = q[1], qz = q[2], qw = q[3];
    double rx = c * qx + dx * qw + dy * qz - dz * qy;
    double ry = c * qy - dx * qz + dy * qw + dz * qx;
    double rz = c * qz + dx * qy - dy * qx + dz * qw;
    double rw = c * qw - dx * qx - dy * qy - dz * qz;
    double scale = 0.5 * (3.0 - (rx * rx + ry * ry + rz * rz + rw * rw));
    q[0] = rx * scale, q[1] = ry * scale, q[2] = rz * scale, q[3] = rw * scale;
}

void spin_quaternion_at(const carom_world *w, int32_t slot, double t, double q[4])
{
    const spin *s = &w->spin;
    q[0] = q[1] = q[2] = 0.0, q[3] = 1.0;
    if (!s->on) return;
    if (w->dim == 2) {
        double half = 0.5 * spin_angle_at(w, slot, t);
        q[2] = sin(half), q[3] = cos(half);
        return;
    }
    memcpy(q, s->state[slot].orientation, 4 * sizeof *q);
    double dt = t - s->state[slot].since;
    const double *omega = s->state[slot].omega;
    const double phi[3] = {omega[0] * dt, omega[1] * dt, omega[2] * dt};
    turn_quaternion(q, phi);
}

void spin_bring(carom_world *w, int32_t slot, double t)
{
    spin_state *s = &w->spin.state[slot];
    if (t == s->since) return;
    double dt = t - s->since;
    if (w->dim == 2) {
        s->orientation[0] += s->omega[2] * dt; /* spin_angle_at's sum */
    } else { /* spin_quaternion_at's turn, in place (hot in rough worlds: two a collision) */
        const double phi[3] = {s->omega[0] * dt, s->omega[1] * dt, s->omega[2] * dt};
        turn_quaternion(s->orientation, phi);
    }
    s->since = t;
}

#if defined(__GNUC__)
/* Two lanes of doubles, a GCC or Clang vector (SSE2 on x86-64, SIMD128 in
 * wasm): each lane takes the same IEEE operations as the scalar code. */
typedef double lanes __attribute__((vector_size(2 * sizeof(double))));
#define LANES(a, b) ((lanes){(a), (b)})

/* The two turns of turn_quaternion at once, operation for operation in
 * the same order (so bit for bit the same as two calls), for bodies whose
 * turns both lie inside the series' range. */
static void turn_two(double *restrict qa, double *restrict qb, const double pa[3], const double pb[3],
                     lanes angle_squared)
{
    lanes h2 = 0.25 * angle_squared;
    lanes cos_sum = LANES(cosine_series[SERIES_TERMS - 1], cosine_series[SERIES_TERMS - 1]);
    lanes sinc = LANES(sinc_series[SERIES_TERMS - 1], sinc_series[SERIES_TERMS - 1]);
    for (int term = SERIES_TERMS - 2; term >= 0; term--) {
        cos_sum = LANES(cosine_series[term], cosine_series[term]) + h2 * cos_sum;
        sinc = LANES(sinc_series[term], sinc_series[term]) + h2 * sinc;
    }
    lanes c = cos_sum, k = 0.5 * sinc;
    lanes dx = k * LANES(pa[0], pb[0]), dy = k * LANES(pa[1], pb[1]), dz = k * LANES(pa[2], pb[2]);
    lanes qx = LANES(qa[0], qb[0]), qy = LANES(qa[1], qb[1]), qz = LANES(qa[2], qb[2]), qw = LANES(qa[3], qb[3]);
    lanes rx = c * qx + dx * qw + dy * qz - dz * qy;
    lanes ry = c * qy - dx * qz + dy * qw + dz * qx;
    lanes rz = c * qz + dx * qy - dy * qx + dz * qw;
    lanes rw = c * qw - dx * qx - dy * qy - dz * qz;
    lanes scale = 0.5 * (3.0 - (rx * rx + ry * ry + rz * rz + rw * rw));
    rx *= scale, ry *= scale, rz *= scale, rw *= scale;
    qa[0] = rx[0], qa[1] = ry[0], qa[2] = rz[0], qa[3] = rw[0];
    qb[0] = rx[1], qb[1] = ry[1], qb[2] = rz[1], qb[3] = rw[1];
}

void spin_bring_two(carom_world *w, int32_t a, int32_t b, double t)
{
    spin_state *sa = &w->spin.state[a], *sb = &w->spin.state[b];
    double dta = t - sa->since, dtb = t - sb->since;
    const double pa[3] = {sa->omega[0] * dta, sa->omega[1] * dta, sa->omega[2] * dta};
    const double pb[3] = {sb->omega[0] * dtb, sb->omega[1] * dtb, sb->omega[2] * dtb};
    double angle_a = pa[0] * pa[0] + pa[1] * pa[1] + pa[2] * pa[2];
    double angle_b = pb[0] * pb[0] + pb[1] * pb[1] + pb[2] * pb[2];
    int together = w->dim == 3 && a != b && angle_a > 0.0 && angle_b > 0.0 && 0.25 * angle_a <= series_bound &&
                   0.25 * angle_b <= series_bound;
    if (!together) { /* a 2D body, no turn on one side, or a large one: one at a time */
        spin_bring(w, a, t);
        spin_bring(w, b, t);
        return;
    }
    turn_two(sa->orientation, sb->orientation, pa, pb, LANES(angle_a, angle_b));
    sa->since = sb->since = t;
}
#else
void spin_bring_two(carom_world *w, int32_t a, int32_t b, double t)
{
    spin_bring(w, a, t);
    spin_bring(w, b, t);
}
#endif

double spin_energy(const carom_world *w, int32_t slot)
{
    const spin *s = &w->spin;
    if (!s->on || !(s->inertia[slot] < INFINITY)) return 0.0;
    const double *o = &s->state[slot].omega[0];
    return 0.5 * s->inertia[slot] * (o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
}

void spin_get_state(const carom_world *w, int32_t id, carom_body_state *state)
{
    const spin *s = &w->spin;
    int32_t slot = w->slot_of[id];
    double q[4];
    spin_quaternion_at(w, slot, w->clock, q);
    state->orientation = (carom_quat){q[0], q[1], q[2], q[3]};
    state->angle = w->dim == 2 ? spin_angle_at(w, slot, w->clock) : 0.0;
    const double *o = s->on ? &s->state[slot].omega[0] : NULL;
    state->angular_velocity = o ? (carom_vec){o[0], o[1], o[2]} : (carom_vec){0.0, 0.0, 0.0};
    state->inertia = s->on ? s->inertia[slot] : spin_round_inertia(w->dim, world_mass(w, slot), w->hot[slot].radius);
    const polygon_shape *shape = s->on ? spin_polygon(s, slot) : NULL;
    state->polygon_vertices = shape ? shape->count : 0;
}

void spin_free(carom_world *w)
{
    spin *s = &w->spin;
    if (s->shapes) memory_free(&w->def.allocator, s->shapes, (size_t)s->shape_capacity * sizeof *s->shapes);
    s->shapes = NULL;
    s->shape_count = s->shape_capacity = 0;
}
