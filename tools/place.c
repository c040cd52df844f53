/* place.c — a scenario's bodies, group by group, into a new world.
 *
 * Box: world.box, or else a square or cube whose area or volume is the total
 * volume of all bodies over the packing_fraction of one group, or else the
 * Lattice of the first `file:` group that has one.
 *
 * Placement:
 * - random: random sequential addition (Widom 1966; Feder 1980): uniform
 *   trial positions, each kept unless it overlaps a body already there. The
 *   world's cell grid makes every trial O(1); a body that fails
 *   RANDOM_TRIES trials in a row ends the group with a message, since past
 *   the jamming limit of the process (about 0.38 in 3D, 0.55 in 2D) no more
 *   bodies fit at random. (20000, not fewer: in 3D at 0.30 the last of
 *   20000 bodies need a few thousand trials.) A group that alone would fill
 *   more than close packing (0.7405 in 3D, 0.9069 in 2D: Hales, Thue) fails
 *   before any trial.
 * - lattice: face-centred cubic in 3D, hexagonal (triangular) in 2D, both
 *   as the points of a rectangular grid of layers whose indices have an
 *   even sum (fcc: the cubic cell cut in half-cell layers; hexagonal: rows
 *   √3/2 apart with every other row shifted by half a spacing). Layer counts
 *   are chosen in proportion to the box sides (ideal spacings 1:1:1 in 3D,
 *   1:√3 in 2D): the coarsest such grid with at least `count` sites, or one
 *   more layer step on some axes if that keeps the nearest sites farther
 *   apart. Of its M sites, `count` are kept, spread evenly: the grid points
 *   are visited in the Weyl order k s mod P (P points, s the integer nearest
 *   P / golden ratio and coprime to P) and the first `count` sites met are
 *   kept, so the M - count vacancies scatter with no period in common with
 *   the rows (every (M/count)-th site in row order would line them up in
 *   planes). Bodies are added in row order: x fastest, then y, then z.
 *   Periodic axes have an even number of layers, offset by half a spacing
 *   from the faces; walled axes span [-L/2 + r, L/2 - r].
 *
 * Velocities: temperature T draws each component from the Maxwell-Boltzmann
 * distribution (normal with variance kT/m), subtracts the group's mean
 * velocity and rescales so that the group's kinetic energy is T/2 per
 * degree of freedom, counted as the world's temperature counts them
 * (measure.c): each of the world's N bodies carries (dim N - c) / N of them,
 * c the axes that conserve momentum (periodic, no gravity). So a world of
 * one group at temperature T reports exactly T: 2 KE / (dim (N - 1)) in a
 * periodic box, 2 KE / (dim N) with walls. speed S gives
 * every body speed S in a uniformly random direction (2D: a uniform angle;
 * 3D: a normalised vector of three normals) with antithetic pairs: body
 * 2k+1 moves opposite to body 2k. With an odd count n >= 3 the last three
 * bodies move at 120 degrees from each other in a random plane (in 2D, the
 * plane); a group of one body keeps its random direction (its momentum cannot
 * vanish), and one body at a temperature is left at rest. Bodies of a group
 * share one mass, so each group's momentum is zero up to round-off. Bodies
 * from files keep their velocities.
 *
 * Driven bodies (issue 12): a group's `acceleration` is each of its bodies'
 * own acceleration (carom_body_def.acceleration), `mass: .inf` makes them
 * kinematic; kinematic groups carry no degrees of freedom in the share
 * above. Sensors come after the bodies, each checked against the resolved
 * box (its plane and its extents), in the order written (sensor k is id k).
 *
 * Containers (issue 13): with world.container the box defaults to the
 * container's bounds, enlarged by CONTAINER_MARGIN on each side (the box
 * only sizes the cell grid, its walls are never reached), and a box that is
 * given must hold them. Random trials are drawn in the container's bounds
 * (shrunk by the radius) and a trial whose clearance s(x) - r is negative
 * is rejected like an overlapping one (so the bodies are uniform in the
 * region where they fit); a lattice site or a body from a file outside the
 * container is an error naming the body. A group with `steer:` has each of
 * its bodies steered (carom_world_set_body_filter) with the filter's window
 * run.window, which steered bodies need.
 *
 * Spin and shape (issue 14): a group's orientation, angular_velocity,
 * inertia and shape go into each body def (carom_body_def). A polygon's
 * vertices are passed as the scenario gives them (the core centres them on
 * their centroid); placement spaces polygons by their bounding radius about
 * the centroid (random trials, lattice spacing, walls and container), which
 * the scenario reader had from the core, and a polygon group's volume (for
 * packing_fraction) is its polygon's area. orientation: random draws each
 * body's angle uniformly in [0, 2 pi) in 2D, or a uniform rotation in 3D
 * (Shoemake 1992). Bodies from files take their orientation (2D: the angle
 * column, else the quaternion's angle about z) and angular velocity from
 * the file's columns, their shape and inertia from the scenario.
 *
 * Random numbers: one carom_rng seeded with the scenario's seed, drawn in
 * this order: groups in order; for each generated group first its
 * velocities (temperature: normals x, y(, z) body by body; speed: one
 * direction per antithetic pair, then for an odd tail one direction and, in
 * 3D, one more for the plane; a 3D direction is three normals), then with
 * orientation: random its orientations (body by body: one uniform in 2D,
 * three in 3D), then its positions (random: uniforms x, y(, z) for every
 * trial). Lattices and files draw nothing. */
#include "place.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xyz.h"

#define PI 3.14159265358979323846
#define RANDOM_TRIES 20000
#define MAX_LAYERS 1e12
#define CONTAINER_MARGIN 0.01 /* the default box: (1 + this) times the container's reach from the origin */

typedef struct builder {
    const scenario *s;
    xyz_frame *frames; /* per group: the bodies of a `file:` group */
    double box[3];
    carom_world *world;
    carom_rng rng;
    double volume_added; /* of the bodies in the world so far */
    double freedom_share; /* degrees of freedom per body over dim (see Velocities) */
    int32_t *placed;      /* per group: bodies added */
    char *error;
    size_t error_size;
} builder;

static int fail(const builder *b, scenario_mark at, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Writes "SCENARIO:LINE:COL: message" and returns -1. */
static int fail(const builder *b, scenario_mark at, const char *format, ...)
{
    if (!b->error || b->error_size == 0) return -1;
    if (at.line < 1) at = (scenario_mark){1, 1};
    int n = snprintf(b->error, b->error_size, "%s:%d:%d: ", b->s->path ? b->s->path : "scenario",
                     at.line, at.col < 1 ? 1 : at.col);
    if (n >= 0 && (size_t)n < b->error_size) {
        va_list args;
        va_start(args, format);
        vsnprintf(b->error + n, b->error_size - (size_t)n, format, args);
        va_end(args);
    }
    return -1;
}

static const char *expected_for(carom_status status)
{
    switch (status) {
    case CAROM_OVERLAP:
        return "bodies that do not overlap";
    case CAROM_OUTSIDE_BOX:
        return "bodies inside the box";
    case CAROM_BOX_TOO_SMALL:
        return "a box wide enough for the bodies";
    case CAROM_OUT_OF_MEMORY:
        return "memory for the bodies";
    default:
        return "valid bodies";
    }
}

/* The spin or shape key of group g a world's message is about (the field
 * it names), else the group's start (a radius or mass refused may be the
 * box's fault). */
static scenario_mark mark_for(const scenario_group *g, const char *message)
{
    const char *field = strchr(message, ':'); /* "body N: FIELD..." */
    field = field ? field + 2 : message;
    const struct {
        const char *name;
        scenario_mark mark;
    } keys[] = {{"inertia", g->inertia_mark},
                {"angular_velocity", g->angular_velocity_mark},
                {"orientation", g->orientation_mark},
                {"angle", g->orientation_mark},
                {"polygon", g->shape_mark}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (!strncmp(field, keys[k].name, strlen(keys[k].name)) && keys[k].mark.line > 0) return keys[k].mark;
    return g->mark;
}

/* A world error while adding a group's bodies, at the spin or shape key it is about (or the group's start). */
static int fail_world(const builder *b, const scenario_group *g, carom_status status)
{
    const char *message = carom_world_message(b->world);
    return fail(b, mark_for(g, message), "%s (expected %s)", message, expected_for(status));
}

double place_ball_volume(int dim, double r)
{
    return dim == 3 ? 4.0 / 3.0 * PI * r * r * r : PI * r * r;
}

/* The volume (area) of one body of group g: its polygon's, or its ball's of radius r. */
static double body_volume(const scenario_group *g, int dim, double r)
{
    return g->polygon_vertices > 0 ? g->polygon_area : place_ball_volume(dim, r);
}

static int axis_periodic(const builder *b, int a) { return b->s->boundary[a] == CAROM_PERIODIC; }

static carom_vec group_acceleration(const scenario_group *g)
{
    return (carom_vec){g->acceleration[0], g->acceleration[1], g->acceleration[2]};
}

/* A body's orientation: 2D the angle, 3D the quaternion (x y z w). */
typedef struct turn {
    double angle;
    carom_quat q;
} turn;

/* The group's own orientation (orientation: a fixed one). */
static turn group_turn(const scenario_group *g) { return (turn){g->angle, g->orientation}; }

/* A body of group g at x with velocity v, turned by t, spinning at omega;
 * with the group's acceleration, inertia and shape. */
static carom_body_def group_body(const scenario_group *g, carom_vec x, carom_vec v, double radius, double mass,
                                 turn t, carom_vec omega)
{
    carom_body_def body = carom_default_body_def();
    body.position = x, body.velocity = v, body.radius = radius, body.mass = mass;
    body.acceleration = group_acceleration(g);
    body.angle = t.angle;
    body.orientation = t.q;
    body.angular_velocity = omega;
    body.inertia = g->inertia;
    body.polygon_vertices = g->polygon_vertices;
    body.polygon = g->polygon;
    return body;
}

static carom_vec group_omega(const scenario_group *g)
{
    return (carom_vec){g->angular_velocity[0], g->angular_velocity[1], g->angular_velocity[2]};
}

/* The radius placement keeps bodies apart by: a polygon's bounding radius. */
static double group_radius(const scenario_group *g)
{
    return g->polygon_vertices > 0 ? g->bounding_radius : g->radius;
}

/* ---- the world def and the box ----------------------------------------------- */

carom_world_def place_world_def(const scenario *s, const double box[3])
{
    carom_world_def def = carom_default_world_def();
    def.dim = s->dim;
    def.box = (carom_vec){box[0], box[1], s->dim == 3 ? box[2] : 1.0};
    for (int a = 0; a < 3; a++) def.boundary[a] = s->boundary[a];
    def.gravity = (carom_vec){s->gravity[0], s->gravity[1], s->gravity[2]};
    def.restitution = s->restitution;
    def.wall_restitution = s->wall_restitution;
    def.tangential_restitution = s->tangential_restitution;
    def.wall_tangential_restitution = s->wall_tangential_restitution;
    def.friction = s->friction;
    def.elastic_below_speed = s->elastic_below_speed;
    def.collapse_time = s->collapse_time;
    def.neighbour_shell = s->neighbour_shell;
    def.container = s->container;
    int64_t n = 0;
    for (int g = 0; g < s->group_count; g++)
        if (!s->groups[g].file && s->groups[g].count > 0) n += s->groups[g].count;
    def.capacity_hint = n > INT32_MAX ? INT32_MAX : (int32_t)n;
    return def;
}

static double total_volume(const builder *b)
{
    const scenario *s = b->s;
    double v = 0.0;
    for (int g = 0; g < s->group_count; g++) {
        const scenario_group *group = &s->groups[g];
        if (group->file) {
            for (int32_t k = 0; k < b->frames[g].count; k++)
                v += body_volume(group, s->dim, b->frames[g].bodies[k].radius);
        } else if (group->count > 0) {
            v += (double)group->count * body_volume(group, s->dim, group->radius);
        }
    }
    return v;
}

static void set_box(builder *b, double x, double y, double z)
{
    b->box[0] = x;
    b->box[1] = y;
    b->box[2] = b->s->dim == 3 ? z : 1.0;
}

/* The group giving packing_fraction (-1 if none); a second one is an error (-2). */
static int packing_group(const builder *b)
{
    int found = -1;
    for (int g = 0; g < b->s->group_count; g++) {
        const scenario_group *group = &b->s->groups[g];
        if (group->packing_fraction == 0.0) continue;
        if (found >= 0) {
            fail(b, group->packing_mark,
                 "a second packing_fraction (expected one, in one group: the first is at line %d)",
                 b->s->groups[found].packing_mark.line);
            return -2;
        }
        found = g;
    }
    return found;
}

static int box_from_packing(builder *b, const scenario_group *g)
{
    double phi = g->packing_fraction, v = total_volume(b);
    if (!(phi > 0.0 && phi < 1.0))
        return fail(b, g->packing_mark,
                    "packing_fraction %g is out of range (expected a number in (0, 1))", phi);
    if (!(v > 0.0))
        return fail(
            b, g->packing_mark,
            "packing_fraction with no bodies to fill the box (expected groups with count > 0)");
    double side = b->s->dim == 3 ? cbrt(v / phi) : sqrt(v / phi);
    set_box(b, side, side, side);
    return 0;
}

/* The box around the container's bounds (the box is centred on the origin). */
static void box_from_container(builder *b)
{
    carom_vec lower, upper;
    carom_container_bounds(b->s->container, &lower, &upper);
    const double lo[3] = {lower.x, lower.y, lower.z}, hi[3] = {upper.x, upper.y, upper.z};
    double side[3] = {1.0, 1.0, 1.0};
    for (int a = 0; a < b->s->dim; a++)
        side[a] = 2.0 * fmax(fabs(lo[a]), fabs(hi[a])) * (1.0 + CONTAINER_MARGIN);
    set_box(b, side[0], side[1], side[2]);
}

/* A box given with a container must hold the container's bounds. */
static int check_container_box(const builder *b)
{
    carom_vec lower, upper;
    carom_container_bounds(b->s->container, &lower, &upper);
    const double lo[3] = {lower.x, lower.y, lower.z}, hi[3] = {upper.x, upper.y, upper.z};
    for (int a = 0; a < b->s->dim; a++)
        if (lo[a] < -0.5 * b->box[a] || hi[a] > 0.5 * b->box[a])
            return fail(b, b->s->box_mark,
                        "world.box does not hold world.container: along %c the container spans %.17g to "
                        "%.17g, the box %.17g to %.17g (expected a larger box, or no box: the container's "
                        "bounds then size it)",
                        "xyz"[a], lo[a], hi[a], -0.5 * b->box[a], 0.5 * b->box[a]);
    return 0;
}

static int resolve_container_box(builder *b, int pf)
{
    if (pf >= 0)
        return fail(b, b->s->groups[pf].packing_mark,
                    "packing_fraction sizes a box, but world.container (line %d) bounds the world (expected "
                    "count without packing_fraction)",
                    b->s->container_mark.line);
    if (!b->s->has_box) return box_from_container(b), 0;
    set_box(b, b->s->box[0], b->s->box[1], b->s->box[2]);
    return check_container_box(b);
}

static int resolve_box(builder *b)
{
    const scenario *s = b->s;
    int pf = packing_group(b);
    if (pf == -2) return -1;
    if (s->container) return resolve_container_box(b, pf);
    if (s->has_box) {
        if (pf >= 0)
            return fail(
                b, s->groups[pf].packing_mark,
                "packing_fraction and world.box both size the box (expected one of them: remove "
                "packing_fraction, or world.box at line %d)",
                s->box_mark.line);
        set_box(b, s->box[0], s->box[1], s->box[2]);
        return 0;
    }
    if (pf >= 0) return box_from_packing(b, &s->groups[pf]);
    for (int g = 0; g < s->group_count; g++) {
        const xyz_frame *f = &b->frames[g];
        if (s->groups[g].file && f->has_lattice) {
            set_box(b, f->lattice[0], f->lattice[1], f->lattice[2]);
            return 0;
        }
    }
    return fail(b, s->bodies_mark,
                "no box: give world.box or a group's packing_fraction (or a file: with a Lattice)");
}

/* ---- velocities --------------------------------------------------------------- */

static carom_vec scaled(carom_vec v, double k) { return (carom_vec){k * v.x, k * v.y, k * v.z}; }

static carom_vec random_direction(carom_rng *rng, int dim)
{
    if (dim == 2) {
        double angle = 2.0 * PI * carom_rng_uniform(rng);
        return (carom_vec){cos(angle), sin(angle), 0.0};
    }
    for (;;) {
        carom_vec d = {carom_rng_normal(rng), carom_rng_normal(rng), carom_rng_normal(rng)};
        double n2 = d.x * d.x + d.y * d.y + d.z * d.z;
        if (n2 > 0.0) return scaled(d, 1.0 / sqrt(n2));
    }
}

/* A random unit vector perpendicular to the unit vector e (in 2D, e turned by 90 degrees). */
static carom_vec perpendicular_direction(carom_rng *rng, int dim, carom_vec e)
{
    if (dim == 2) return (carom_vec){-e.y, e.x, 0.0};
    for (;;) {
        carom_vec d = random_direction(rng, 3);
        double along = d.x * e.x + d.y * e.y + d.z * e.z;
        carom_vec p = {d.x - along * e.x, d.y - along * e.y, d.z - along * e.z};
        double n2 = p.x * p.x + p.y * p.y + p.z * p.z;
        if (n2 > 1e-6) return scaled(p, 1.0 / sqrt(n2));
    }
}

static void draw_speeds(carom_rng *rng, int dim, double speed, carom_vec *v, int32_t n)
{
    int32_t paired = n % 2 == 0 ? n : n >= 3 ? n - 3 : 0;
    for (int32_t i = 0; i + 1 < paired; i += 2) {
        carom_vec e = random_direction(rng, dim);
        v[i] = scaled(e, speed);
        v[i + 1] = scaled(e, -speed);
    }
    if (n == 1) v[0] = scaled(random_direction(rng, dim), speed);
    if (n % 2 == 0 || n < 3) return;
    /* The last three at 120 degrees in a random plane: they sum to zero. */
    carom_vec e1 = random_direction(rng, dim), e2 = perpendicular_direction(rng, dim, e1);
    double c = 0.5 * sqrt(3.0);
    v[n - 3] = scaled(e1, speed);
    v[n - 2] = scaled(
        (carom_vec){-0.5 * e1.x + c * e2.x, -0.5 * e1.y + c * e2.y, -0.5 * e1.z + c * e2.z}, speed);
    v[n - 1] = scaled(
        (carom_vec){-0.5 * e1.x - c * e2.x, -0.5 * e1.y - c * e2.y, -0.5 * e1.z - c * e2.z}, speed);
}

static void subtract_mean(carom_vec *v, int32_t n)
{
    carom_vec sum = {0.0, 0.0, 0.0};
    for (int32_t i = 0; i < n; i++) {
        sum.x += v[i].x;
        sum.y += v[i].y;
        sum.z += v[i].z;
    }
    carom_vec mean = scaled(sum, 1.0 / (double)n);
    for (int32_t i = 0; i < n; i++)
        v[i] = (carom_vec){v[i].x - mean.x, v[i].y - mean.y, v[i].z - mean.z};
}

static void draw_temperature(carom_rng *rng, int dim, double temperature, double mass,
                             double freedom_share, carom_vec *v, int32_t n)
{
    double sd = sqrt(temperature / mass);
    for (int32_t i = 0; i < n; i++) {
        v[i].x = sd * carom_rng_normal(rng);
        v[i].y = sd * carom_rng_normal(rng);
        v[i].z = dim == 3 ? sd * carom_rng_normal(rng) : 0.0;
    }
    if (n < 1) return;
    subtract_mean(v, n);
    if (n < 2 || temperature == 0.0) return;
    double sum2 = 0.0;
    for (int32_t i = 0; i < n; i++) sum2 += v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z;
    double kinetic_temperature = mass * sum2 / (dim * (double)n * freedom_share);
    if (!(kinetic_temperature > 0.0 && isfinite(kinetic_temperature))) return;
    double k = sqrt(temperature / kinetic_temperature);
    for (int32_t i = 0; i < n; i++) v[i] = scaled(v[i], k);
}

static int draw_velocities(builder *b, const scenario_group *g, carom_vec *v, int32_t n)
{
    double value = g->velocity_value;
    if (!(isfinite(value) && value >= 0.0))
        return fail(b, g->mark,
                    "velocity %g is not valid (expected a finite temperature or speed >= 0)",
                    value);
    if (g->velocity == VELOCITY_SPEED)
        draw_speeds(&b->rng, b->s->dim, value, v, n);
    else
        draw_temperature(&b->rng, b->s->dim, value, g->mass, b->freedom_share, v, n);
    return 0;
}

/* ---- orientations ---------------------------------------------------------------- */

/* A uniformly random rotation (Shoemake, "Uniform random rotations",
 * Graphics Gems III, 1992): from three uniforms u1, u2, u3,
 * q = (sqrt(1-u1) sin 2 pi u2, sqrt(1-u1) cos 2 pi u2, sqrt(u1) sin 2 pi u3, sqrt(u1) cos 2 pi u3). */
static carom_quat random_rotation(carom_rng *rng)
{
    double u1 = carom_rng_uniform(rng), u2 = carom_rng_uniform(rng), u3 = carom_rng_uniform(rng);
    double a = sqrt(1.0 - u1), c = sqrt(u1);
    return (carom_quat){a * sin(2.0 * PI * u2), a * cos(2.0 * PI * u2), c * sin(2.0 * PI * u3),
                        c * cos(2.0 * PI * u3)};
}

/* Each body's orientation: the group's, or with orientation: random a
 * uniform angle in [0, 2 pi) (2D) or a uniform rotation (3D). */
static void draw_turns(builder *b, const scenario_group *g, turn *t, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        t[i] = group_turn(g);
        if (!g->random_orientation) continue;
        if (b->s->dim == 2) t[i].angle = 2.0 * PI * carom_rng_uniform(&b->rng);
        else t[i].q = random_rotation(&b->rng);
    }
}

/* A body read from a file: its angle column, else the angle of its
 * orientation quaternion about z (2D), else 0; its quaternion (3D). */
static turn file_turn(const xyz_frame *f, const carom_body_state *state)
{
    turn t = {0.0, {0.0, 0.0, 0.0, 1.0}};
    if (f->has_angle) t.angle = state->angle;
    else if (f->has_orientation) t.angle = 2.0 * atan2(state->orientation.z, state->orientation.w);
    if (f->has_orientation) t.q = state->orientation;
    return t;
}

/* ---- random placement ------------------------------------------------------------ */

/* The clearance s(x) - r of a body at x in the container (INFINITY without one). */
static double clearance(const builder *b, carom_vec x, double r)
{
    return b->s->container ? carom_container_distance(b->s->container, x, NULL) - r : INFINITY;
}

/* A uniform position in the container's bounds, at least r inside them. */
static carom_vec random_spot_in_container(builder *b, double r)
{
    carom_vec lower, upper;
    carom_container_bounds(b->s->container, &lower, &upper);
    const double lo[3] = {lower.x, lower.y, lower.z}, hi[3] = {upper.x, upper.y, upper.z};
    double x[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < b->s->dim; a++) {
        double u = carom_rng_uniform(&b->rng), from = lo[a] + r, to = hi[a] - r;
        x[a] = to > from ? from + (to - from) * u : 0.5 * (lo[a] + hi[a]);
    }
    return (carom_vec){x[0], x[1], x[2]};
}

/* A uniform position in the box, at least r from the walls. */
static carom_vec random_spot(builder *b, double r)
{
    if (b->s->container) return random_spot_in_container(b, r);
    double x[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < b->s->dim; a++) {
        double u = carom_rng_uniform(&b->rng);
        if (axis_periodic(b, a)) {
            x[a] = (u - 0.5) * b->box[a];
        } else {
            double reach = 0.5 * b->box[a] - r;
            x[a] = -reach + 2.0 * reach * u;
        }
    }
    return (carom_vec){x[0], x[1], x[2]};
}

static double box_volume(const builder *b)
{
    if (b->s->container) return carom_container_volume(b->s->container);
    return b->s->dim == 3 ? b->box[0] * b->box[1] * b->box[2] : b->box[0] * b->box[1];
}

/* The densest packing of equal spheres (fcc, Hales 2005) or disks (hexagonal, Thue). */
static double close_packing(int dim)
{
    return dim == 3 ? PI / (3.0 * sqrt(2.0)) : PI / (2.0 * sqrt(3.0));
}

static int place_random(builder *b, const scenario_group *g, const carom_vec *v, const turn *t, int32_t n)
{
    double r = group_radius(g), own = (double)n * place_ball_volume(b->s->dim, r) / box_volume(b);
    if (own > close_packing(b->s->dim))
        return fail(
            b, g->mark,
            "%d bodies of radius %g do not fit in this box: they alone would fill %.3g of it, "
            "more than close packing (%.4f) (expected a larger box or fewer bodies)",
            (int)n, r, own, close_packing(b->s->dim));
    for (int32_t i = 0; i < n; i++) {
        for (int tries = 1;; tries++) {
            carom_body_def body = group_body(g, random_spot(b, r), v[i], g->radius, g->mass, t[i], group_omega(g));
            carom_status st = clearance(b, body.position, r) < 0.0
                                  ? CAROM_OVERLAP /* outside the container: rejected like an overlap */
                                  : carom_world_add_body(b->world, &body, NULL);
            if (st == CAROM_OK) break;
            if (st != CAROM_OVERLAP) return fail_world(b, g, st);
            if (tries < RANDOM_TRIES) continue;
            double phi =
                (b->volume_added + (double)n * body_volume(g, b->s->dim, g->radius)) / box_volume(b);
            return fail(
                b, g->mark,
                "could place only %d of %d bodies of radius %g at random (packing fraction about "
                "%.3g): use place: lattice or a larger box",
                (int)i, (int)n, r, phi);
        }
    }
    return 0;
}

/* ---- lattices ----------------------------------------------------------------- */

typedef struct lattice {
    int64_t layers[3]; /* along each axis (1 on unused axes) */
    double spacing[3]; /* between neighbouring layers (0 with one layer) */
    double sites;      /* grid points whose layer indices have an even sum */
} lattice;

/* Ideal layer spacing along an axis, relative to x: fcc 1:1:1, hexagonal 1:√3. */
static double ideal_ratio(int dim, int a) { return dim == 2 && a == 1 ? sqrt(3.0) : 1.0; }

/* The length the layers of an axis span: the side (periodic) or side - 2r (walls). */
static double layer_span(const builder *b, int a, double r)
{
    double span = axis_periodic(b, a) ? b->box[a] : b->box[a] - 2.0 * r;
    return span > 0.0 ? span : 0.0;
}

/* Layers along an axis for density t (layers per unit length at ideal spacing). */
static int64_t layers_for(const builder *b, int a, double t, double r)
{
    double x = t * layer_span(b, a, r) / ideal_ratio(b->s->dim, a);
    if (x > MAX_LAYERS) x = MAX_LAYERS;
    if (axis_periodic(b, a)) {
        int64_t m = 2 * (int64_t)floor(0.5 * x + 0.5);
        return m < 2 ? 2 : m;
    }
    return 1 + (int64_t)floor(x + 0.5);
}

static void lattice_finish(const builder *b, lattice *lat, double r)
{
    double product = 1.0;
    int all_odd = 1;
    for (int a = 0; a < 3; a++) {
        if (a >= b->s->dim) lat->layers[a] = 1;
        int64_t m = lat->layers[a];
        product *= (double)m;
        if (m % 2 == 0) all_odd = 0;
        if (a >= b->s->dim || m < 2)
            lat->spacing[a] = 0.0;
        else if (axis_periodic(b, a))
            lat->spacing[a] = b->box[a] / (double)m;
        else
            lat->spacing[a] = layer_span(b, a, r) / (double)(m - 1);
    }
    lat->sites = all_odd ? 0.5 * (product + 1.0) : 0.5 * product;
}

static lattice lattice_at(const builder *b, double t, double r)
{
    lattice lat;
    for (int a = 0; a < 3; a++) lat.layers[a] = a < b->s->dim ? layers_for(b, a, t, r) : 1;
    lattice_finish(b, &lat, r);
    return lat;
}

/* The distance between nearest sites: two layers along one axis, or one
 * layer along each of two axes (INFINITY with a single site). */
static double lattice_nearest(const lattice *lat)
{
    double d = INFINITY;
    for (int a = 0; a < 3; a++) {
        if (lat->layers[a] < 2) continue;
        if (2.0 * lat->spacing[a] < d) d = 2.0 * lat->spacing[a];
        for (int c = a + 1; c < 3; c++) {
            if (lat->layers[c] < 2) continue;
            double diagonal =
                sqrt(lat->spacing[a] * lat->spacing[a] + lat->spacing[c] * lat->spacing[c]);
            if (diagonal < d) d = diagonal;
        }
    }
    return d;
}

/* The coarsest grid of the family with at least n sites, then, among the
 * grids with one more layer step on any axes, the one whose nearest sites
 * are farthest apart. Returns -1 if no grid has n sites. */
static int choose_lattice(const builder *b, int32_t n, double r, lattice *out)
{
    double lo = 0.0, hi = 1.0 / (b->box[0] + b->box[1] + b->box[2]);
    if (lattice_at(b, 0.0, r).sites >= n) {
        *out = lattice_at(b, 0.0, r);
        return 0;
    }
    while (lattice_at(b, hi, r).sites < n) {
        lo = hi;
        hi *= 2.0;
        if (!(hi < 1e300)) return -1;
    }
    for (int k = 0; k < 200 && lo < hi; k++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;
        if (lattice_at(b, mid, r).sites >= n)
            hi = mid;
        else
            lo = mid;
    }
    lattice base = lattice_at(b, lo, r), best = lattice_at(b, hi, r);
    for (int choice = 0; choice < 8; choice++) {
        lattice lat = base;
        for (int a = 0; a < b->s->dim; a++)
            if (choice & (1 << a)) lat.layers[a] += axis_periodic(b, a) ? 2 : 1;
        lattice_finish(b, &lat, r);
        if (lat.sites < n) continue;
        double d = lattice_nearest(&lat), best_d = lattice_nearest(&best);
        if (d > best_d || (d == best_d && lat.sites < best.sites)) best = lat;
    }
    *out = best;
    return 0;
}

/* The coordinate of layer j along axis a. */
static double layer_position(const builder *b, const lattice *lat, int a, int64_t j, double r)
{
    if (a >= b->s->dim) return 0.0;
    if (axis_periodic(b, a)) return -0.5 * b->box[a] + ((double)j + 0.5) * lat->spacing[a];
    if (lat->layers[a] < 2) return 0.0;
    double reach = 0.5 * b->box[a] - r, x = -reach + (double)j * lat->spacing[a];
    return x < -reach ? -reach : x > reach ? reach : x;
}

static uint64_t common_divisor(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int64_t grid_points(const lattice *lat)
{
    return lat->layers[0] * lat->layers[1] * lat->layers[2];
}

/* Grid point p as layer indices, x fastest; 1 if it is a site (even sum). */
static int grid_point(const lattice *lat, int64_t p, int64_t j[3])
{
    const int64_t *m = lat->layers;
    j[0] = p % m[0];
    j[1] = (p / m[0]) % m[1];
    j[2] = p / (m[0] * m[1]);
    return (j[0] + j[1] + j[2]) % 2 == 0;
}

/* Marks n of the grid's sites, spread evenly: the grid points are visited
 * in the order q_k = k s mod P (s the integer nearest P / golden ratio,
 * coprime to P: a Weyl sequence, whose gaps have no period in common with
 * the rows and layers) and the first n sites met are kept. NULL if out of
 * memory. */
static unsigned char *choose_sites(const lattice *lat, int32_t n)
{
    uint64_t total = (uint64_t)grid_points(lat);
    unsigned char *keep = calloc(total / 8 + 1, 1);
    if (!keep) return NULL;
    uint64_t step = (uint64_t)floor(0.6180339887498949 * (double)total + 0.5);
    if (step == 0) step = 1;
    while (common_divisor(step, total) != 1) step++;
    uint64_t q = 0;
    int64_t j[3];
    for (int32_t kept = 0; kept < n;) {
        if (grid_point(lat, (int64_t)q, j)) {
            keep[q / 8] |= (unsigned char)(1u << (q % 8));
            kept++;
        }
        q += step;
        if (q >= total) q -= total;
    }
    return keep;
}

/* A body of group g (its k-th; line > 0: the line of its file) must lie in the container. */
static int check_inside(const builder *b, const scenario_group *g, int32_t k, carom_vec x, double r,
                        int64_t line)
{
    double c = clearance(b, x, r);
    if (c >= 0.0) return 0;
    char where[96] = "", at[96];
    if (line > 0) snprintf(where, sizeof where, " (%s, line %lld)", g->file, (long long)line);
    if (b->s->dim == 3)
        snprintf(at, sizeof at, "(%.17g, %.17g, %.17g)", x.x, x.y, x.z);
    else
        snprintf(at, sizeof at, "(%.17g, %.17g)", x.x, x.y);
    return fail(b, g->mark,
                "body %d of this group (id %d)%s at %s is outside world.container: its clearance s(x) - r "
                "is %.6g (expected every body inside the container%s)",
                (int)k, (int)carom_world_body_count(b->world), where, at, c,
                line > 0 || g->file ? "" : "; place: random keeps to it");
}

/* Adds the chosen sites in the order x fastest, then y, then z. */
static int add_lattice_sites(builder *b, const scenario_group *g, const lattice *lat,
                             const carom_vec *v, const turn *t, int32_t n)
{
    unsigned char *keep = choose_sites(lat, n);
    if (!keep) return fail(b, g->count_mark, "out of memory for a lattice of %d bodies", (int)n);
    int32_t k = 0;
    int64_t j[3];
    for (int64_t p = 0; p < grid_points(lat) && k < n; p++) {
        if (!(keep[p / 8] & (1u << (p % 8)))) continue;
        grid_point(lat, p, j);
        double r = group_radius(g);
        carom_vec x = {layer_position(b, lat, 0, j[0], r), layer_position(b, lat, 1, j[1], r),
                       layer_position(b, lat, 2, j[2], r)};
        carom_body_def body = group_body(g, x, v[k], g->radius, g->mass, t[k], group_omega(g));
        if (check_inside(b, g, k, x, r, 0) != 0) return free(keep), -1;
        carom_status st = carom_world_add_body(b->world, &body, NULL);
        if (st != CAROM_OK) {
            free(keep);
            if (st != CAROM_OVERLAP) return fail_world(b, g, st);
            return fail(b, g->mark,
                        "a lattice site of this group is taken: %s (expected room for the lattice: "
                        "place this group at random, or use a larger box)",
                        carom_world_message(b->world));
        }
        k++;
    }
    free(keep);
    return 0;
}

static int place_lattice(builder *b, const scenario_group *g, const carom_vec *v, const turn *t, int32_t n)
{
    if (n == 0) return 0;
    lattice lat;
    double r = group_radius(g);
    if (choose_lattice(b, n, r, &lat) != 0)
        return fail(b, g->mark,
                    "no lattice of %d bodies of radius %g fits this box (expected a larger box)",
                    (int)n, r);
    double nearest = lattice_nearest(&lat);
    if (nearest < 2.0 * r)
        return fail(b, g->mark,
                    "too dense for a lattice of %d bodies of radius %g in this box: nearest sites "
                    "%.6g apart "
                    "(expected at least a diameter, %g: use a larger box or fewer bodies)",
                    (int)n, r, nearest, 2.0 * r);
    return add_lattice_sites(b, g, &lat, v, t, n);
}

/* ---- groups ---------------------------------------------------------------------- */

/* In 2D a file's orientation, when no angle column gives the angle, must be a turn about z. */
static int check_turn_about_z(const builder *b, const scenario_group *g, const xyz_frame *f, int32_t k)
{
    const carom_quat q = f->bodies[k].orientation;
    if (b->s->dim == 3 || f->has_angle || !f->has_orientation || (q.x == 0.0 && q.y == 0.0)) return 0;
    return fail(b, g->mark,
                "%s, line %lld: orientation (%.17g, %.17g, %.17g, %.17g) turns about an axis other than z "
                "(expected x = y = 0 in a 2D world, or an angle column)",
                g->file, (long long)(f->first_body_line + k), q.x, q.y, q.z, q.w);
}

static int add_file_group(builder *b, int index)
{
    const scenario_group *g = &b->s->groups[index];
    const xyz_frame *f = &b->frames[index];
    for (int32_t k = 0; k < f->count; k++) {
        const carom_body_state *state = &f->bodies[k];
        if (check_turn_about_z(b, g, f, k) != 0) return -1;
        carom_body_def body = group_body(g, state->position, state->velocity, state->radius, state->mass,
                                         file_turn(f, state), state->angular_velocity);
        double r = g->polygon_vertices > 0 ? g->bounding_radius : state->radius;
        if (check_inside(b, g, k, state->position, r, f->first_body_line + k) != 0) return -1;
        carom_status st = carom_world_add_body(b->world, &body, NULL);
        if (st != CAROM_OK)
            return fail(b, g->mark, "%s, line %lld: %s (expected %s)", g->file,
                        (long long)(f->first_body_line + k), carom_world_message(b->world),
                        expected_for(st));
        b->volume_added += body_volume(g, b->s->dim, state->radius);
    }
    return 0;
}

static int add_generated_group(builder *b, const scenario_group *g)
{
    int32_t present = carom_world_body_count(b->world);
    if (g->count < 0)
        return fail(b, g->mark, "a group without count or file (expected count: or file:)");
    if (g->count > INT32_MAX - present)
        return fail(b, g->count_mark, "count %lld is too large (expected at most %d bodies in all)",
                    (long long)g->count, (int)(INT32_MAX - present));
    if (!(isfinite(g->radius) && g->radius > 0.0))
        return fail(b, g->radius_mark.line > 0 ? g->radius_mark : g->mark,
                    "radius %g is not valid (expected a finite radius > 0)", g->radius);
    double r = group_radius(g);
    if (!(g->mass > 0.0)) /* INFINITY: kinematic bodies */
        return fail(b, g->mark, "mass %g is not valid (expected a mass > 0, or .inf)", g->mass);
    for (int a = 0; a < b->s->dim; a++)
        if (2.0 * r > b->box[a])
            return fail(b, g->polygon_vertices > 0 ? g->shape_mark : g->radius_mark.line > 0 ? g->radius_mark : g->mark,
                        "a body of %s %g does not fit in this box: its diameter %g is wider "
                        "than the box along %c (%g) (expected a smaller %s or a larger box)",
                        g->polygon_vertices > 0 ? "bounding radius" : "radius", r, 2.0 * r, "xyz"[a], b->box[a],
                        g->polygon_vertices > 0 ? "shape" : "radius");
    int32_t n = (int32_t)g->count;
    size_t room = (size_t)(n > 0 ? n : 1);
    carom_vec *v = malloc(room * sizeof *v);
    turn *t = malloc(room * sizeof *t);
    if (!v || !t) return free(v), free(t), fail(b, g->count_mark, "out of memory for %d bodies", (int)n);
    int st = draw_velocities(b, g, v, n);
    if (st == 0) draw_turns(b, g, t, n);
    if (st == 0)
        st = g->place == PLACE_LATTICE ? place_lattice(b, g, v, t, n) : place_random(b, g, v, t, n);
    free(v);
    free(t);
    if (st == 0) b->volume_added += (double)n * body_volume(g, b->s->dim, g->radius);
    return st;
}

static int read_files(builder *b)
{
    for (int g = 0; g < b->s->group_count; g++) {
        const scenario_group *group = &b->s->groups[g];
        if (!group->file) continue;
        const char *path = group->file_resolved ? group->file_resolved : group->file;
        FILE *probe = fopen(path, "r"); /* a missing file is the scenario's fault: say where */
        if (!probe)
            return fail(b, group->file_mark.line > 0 ? group->file_mark : group->mark,
                        "cannot open %s: %s (expected an extended XYZ file, relative to the "
                        "scenario's folder)",
                        group->file, strerror(errno));
        fclose(probe);
        int st = xyz_read_frame(path, group->frame, group->radius, group->mass, &b->frames[g],
                                b->error, b->error_size);
        if (st == -2) {
            long long frames = (long long)b->frames[g].frames_in_file;
            return fail(b, group->frame_mark,
                        "bodies[%d].frame %lld is past the end of %s, which has %lld frame%s "
                        "(expected %lld to %lld: 0 the first, -1 the last)",
                        g, (long long)group->frame, group->file, frames, frames == 1 ? "" : "s",
                        -frames, frames - 1);
        }
        if (st != 0) return -1;
    }
    return 0;
}

/* A 2D world reads x and y: a file's bodies must lie in one plane z = const
 * (a file carom wrote has z = 0; another tool's cell may centre the plane
 * elsewhere) with z velocity 0, or flattening it would change the state. */
static int check_planes(const builder *b)
{
    const scenario *s = b->s;
    if (s->dim != 2) return 0;
    for (int g = 0; g < s->group_count; g++) {
        const xyz_frame *f = &b->frames[g];
        if (!s->groups[g].file || f->count < 1) continue;
        for (int32_t k = 0; k < f->count; k++) {
            const carom_body_state *body = &f->bodies[k];
            if (body->position.z == f->bodies[0].position.z && body->velocity.z == 0.0) continue;
            snprintf(b->error, b->error_size,
                     "%s:%lld: body %d has z = %.17g and z velocity %.17g where the file's first body has "
                     "z = %.17g (expected a 2D frame for this 2D world: every body in one plane z = const, "
                     "z velocity 0)",
                     s->groups[g].file_resolved ? s->groups[g].file_resolved : s->groups[g].file,
                     (long long)(f->first_body_line + k), (int)k, body->position.z, body->velocity.z,
                     f->bodies[0].position.z);
            return -1;
        }
    }
    return 0;
}

/* A file's Lattice must be the world's box (it is adopted when the scenario
 * sets none): sides along the world's axes agree to a relative 1e-9. */
static int check_lattices(const builder *b)
{
    const scenario *s = b->s;
    for (int g = 0; g < s->group_count; g++) {
        const xyz_frame *f = &b->frames[g];
        if (!s->groups[g].file || !f->has_lattice) continue;
        for (int a = 0; a < s->dim; a++) {
            if (fabs(f->lattice[a] - b->box[a]) <= 1e-9 * b->box[a]) continue;
            const char *path = s->groups[g].file_resolved ? s->groups[g].file_resolved
                                                          : s->groups[g].file;
            snprintf(b->error, b->error_size,
                     "%s:%d:%d: Lattice side %c = %.17g is not the world's box side %.17g "
                     "(expected the same box: the Lattice is used only when the scenario gives "
                     "neither world.box nor packing_fraction)",
                     path, f->lattice_line, f->lattice_col, "xyz"[a], f->lattice[a], b->box[a]);
            return -1;
        }
    }
    return 0;
}

/* Degrees of freedom per body over dim, as the world's temperature counts them. */
static double freedom_share(const builder *b)
{
    const scenario *s = b->s;
    double n = 0.0;
    for (int g = 0; g < s->group_count; g++) {
        if (isinf(s->groups[g].mass) && !s->groups[g].file) continue; /* kinematic: no freedom */
        n += s->groups[g].file ? (double)b->frames[g].count
                               : (double)(s->groups[g].count > 0 ? s->groups[g].count : 0);
    }
    int conserved = 0;
    for (int a = 0; a < s->dim; a++)
        conserved += s->boundary[a] == CAROM_PERIODIC && s->gravity[a] == 0.0;
    return n > 0.0 ? (s->dim * n - conserved) / (s->dim * n) : 1.0;
}

static int create_world(builder *b, carom_event_callback on_event, void *user)
{
    carom_world_def def = place_world_def(b->s, b->box);
    int64_t n = def.capacity_hint;
    for (int g = 0; g < b->s->group_count; g++) n += b->frames[g].count;
    def.capacity_hint = n > INT32_MAX ? INT32_MAX : (int32_t)n;
    def.on_event = on_event;
    def.user = user;
    char why[256];
    if (carom_world_create(&def, &b->world, why, sizeof why) != CAROM_OK)
        return fail(b, b->s->has_box ? b->s->box_mark : b->s->bodies_mark,
                    "%s (expected a valid world)", why);
    return 0;
}

/* ---- sensors ------------------------------------------------------------------- */

/* Whether x lies in the box along axis a (its faces included). */
static int in_box(const builder *b, int a, double x)
{
    return x >= -0.5 * b->box[a] && x <= 0.5 * b->box[a];
}

/* The sensor's plane and extents must lie in the (resolved) box. */
static int check_sensor(const builder *b, int k, const scenario_sensor *sensor)
{
    int axis = sensor->axis;
    if (!in_box(b, axis, sensor->at))
        return fail(b, sensor->at_mark,
                    "world.sensors[%d].at = %.17g is outside the box along %c (expected %.17g to "
                    "%.17g)", k, sensor->at, "xyz"[axis], -0.5 * b->box[axis], 0.5 * b->box[axis]);
    for (int a = 0, j = 0; a < b->s->dim; a++) {
        if (a == axis) continue;
        const double ends[2] = {sensor->from[j], sensor->to[j]};
        const scenario_mark marks[2] = {sensor->from_mark, sensor->to_mark};
        for (int e = 0; e < 2; e++)
            if (isfinite(ends[e]) && !in_box(b, a, ends[e]))
                return fail(b, marks[e],
                            "world.sensors[%d].%s = %.17g is outside the box along %c (expected "
                            "%.17g to %.17g)", k, e ? "to" : "from", ends[e], "xyz"[a],
                            -0.5 * b->box[a], 0.5 * b->box[a]);
        j++;
    }
    return 0;
}

static int add_sensors(builder *b)
{
    for (int k = 0; k < b->s->sensor_count; k++) {
        const scenario_sensor *sensor = &b->s->sensors[k];
        if (check_sensor(b, k, sensor) != 0) return -1;
        carom_sensor_def def = carom_default_sensor_def();
        double lo[3] = {-INFINITY, -INFINITY, -INFINITY}, hi[3] = {INFINITY, INFINITY, INFINITY};
        for (int a = 0, j = 0; a < b->s->dim; a++)
            if (a != sensor->axis) lo[a] = sensor->from[j], hi[a] = sensor->to[j], j++;
        def.axis = sensor->axis;
        def.position = sensor->at;
        def.lo = (carom_vec){lo[0], lo[1], lo[2]};
        def.hi = (carom_vec){hi[0], hi[1], hi[2]};
        carom_status st = carom_world_add_sensor(b->world, &def, NULL);
        if (st != CAROM_OK)
            return fail(b, sensor->mark, "world.sensors[%d]: %s (expected a sensor in the box)", k,
                        carom_world_message(b->world));
    }
    return 0;
}

/* ---- steered groups --------------------------------------------------------------- */

/* Each body of a group with steer: gets its filter (window: run.window). */
static int steer_groups(builder *b)
{
    const scenario *s = b->s;
    for (int g = 0, first = 0; g < s->group_count; first += b->placed[g], g++) {
        const scenario_group *group = &s->groups[g];
        if (!group->steered) continue;
        if (!(s->window > 0.0))
            return fail(b, group->steer_mark,
                        "bodies[%d].steer filters the bodies' accelerations at window starts, but run has no "
                        "window (expected run.window: DT with steer:)",
                        g);
        carom_filter_def def = group->filter;
        def.window = s->window;
        for (int32_t k = 0; k < b->placed[g]; k++)
            if (carom_world_set_body_filter(b->world, first + k, &def) != CAROM_OK)
                return fail(b, group->steer_mark, "bodies[%d].steer, body %d: %s (expected a usable filter)", g,
                            (int)k, carom_world_message(b->world));
    }
    return 0;
}

static int build(builder *b, carom_event_callback on_event, void *user)
{
    const scenario *s = b->s;
    if (s->dim != 2 && s->dim != 3)
        return fail(b, s->dim_mark, "dim %d is not valid (expected 2 or 3)", s->dim);
    if (read_files(b) != 0 || check_planes(b) != 0 || resolve_box(b) != 0 || check_lattices(b) != 0 ||
        create_world(b, on_event, user) != 0)
        return -1;
    b->rng = carom_rng_seed(s->seed);
    b->freedom_share = freedom_share(b);
    for (int g = 0; g < s->group_count; g++) {
        int32_t before = carom_world_body_count(b->world);
        int st = s->groups[g].file ? add_file_group(b, g) : add_generated_group(b, &s->groups[g]);
        if (st != 0) return -1;
        b->placed[g] = carom_world_body_count(b->world) - before;
    }
    return add_sensors(b) != 0 ? -1 : steer_groups(b);
}

/* "NAME COUNT NAME COUNT ...": the species of the bodies in index order. */
static char *species_text(const builder *b)
{
    const scenario *s = b->s;
    size_t size = 1;
    for (int g = 0; g < s->group_count; g++) size += XYZ_SPECIES_MAX + 16;
    char *text = malloc(size), *at = text;
    if (!text) return NULL;
    text[0] = '\0';
    for (int g = 0; g < s->group_count; g++) {
        const char *name = s->groups[g].name && xyz_species_valid(s->groups[g].name)
                               ? s->groups[g].name
                               : XYZ_DEFAULT_SPECIES;
        int n = snprintf(at, size - (size_t)(at - text), "%s%s %ld", g ? " " : "", name,
                         (long)b->placed[g]);
        if (n > 0) at += n;
    }
    return text;
}

int place_build_world(const scenario *s, carom_event_callback on_event, void *user, double box[3],
                      carom_world **world, char *error, size_t error_size)
{
    return place_build_world_named(s, on_event, user, box, world, NULL, error, error_size);
}

int place_build_world_named(const scenario *s, carom_event_callback on_event, void *user,
                            double box[3], carom_world **world, char **species, char *error,
                            size_t error_size)
{
    if (error && error_size > 0) error[0] = '\0';
    if (world) *world = NULL;
    if (species) *species = NULL;
    if (!s || !world) return -1;
    builder b;
    memset(&b, 0, sizeof b);
    b.s = s;
    b.error = error;
    b.error_size = error_size;
    size_t groups = s->group_count > 0 ? (size_t)s->group_count : 1;
    b.frames = calloc(groups, sizeof *b.frames);
    b.placed = calloc(groups, sizeof *b.placed);
    int st = b.frames && b.placed ? 0 : fail(&b, s->bodies_mark, "out of memory for %d groups",
                                             s->group_count);
    if (st == 0) st = build(&b, on_event, user);
    if (st == 0 && species && !(*species = species_text(&b)))
        st = fail(&b, s->bodies_mark, "out of memory for the species of %d groups",
                  s->group_count);
    for (int g = 0; b.frames && g < s->group_count; g++) xyz_frame_free(&b.frames[g]);
    free(b.frames);
    free(b.placed);
    if (st != 0) {
        carom_world_destroy(b.world);
        return -1;
    }
    if (box)
        for (int a = 0; a < 3; a++) box[a] = b.box[a];
    *world = b.world;
    return 0;
}
