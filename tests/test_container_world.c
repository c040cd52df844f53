/* test_container_world.c — containers as a world's boundary (issue 13,
 * item 2), on the public API only.
 *
 * Closed forms and independent references:
 *  - a disk in a circle of radius R flies along chords of one length: the
 *    reflection keeps the line's distance d from the centre, so with
 *    rho = R - r every chord is 2 sqrt(rho^2 - d^2) long and the bounces
 *    come at equal intervals, at times known from the start;
 *  - a square polygon is the box: bodies in a square polygon container and
 *    in a box of the same walls (the engine's own plane walls, a separate
 *    code path) make the same events at the same times, with and without
 *    gravity;
 *  - at e = 1 kinetic (plus potential) energy is kept over thousands of
 *    bounces, and no body is ever outside (clearance >= -tolerance at every
 *    event and at sampled times) in a circle, a union of two balls, an
 *    annulus (a difference), a rounded box and a 3D sphere;
 *  - bad worlds and placements are refused with messages that name them.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "driven_common.h"
#include "forge.h"

static carom_container *make_ball(int dim, carom_vec centre, double radius)
{
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_BALL, d.dim = dim, d.centre = centre, d.radius = radius;
    carom_container *c = NULL;
    char why[256] = "";
    CHECK_MSG(carom_container_create(&d, &c, why, sizeof why) == CAROM_OK, "%s", why);
    return c;
}

static carom_container *make_pair(carom_shape shape, carom_container *first, carom_container *second)
{
    carom_container_def d = carom_default_container_def();
    d.shape = shape, d.dim = carom_container_dim(first), d.first = first, d.second = second;
    carom_container *c = NULL;
    char why[256] = "";
    CHECK_MSG(carom_container_create(&d, &c, why, sizeof why) == CAROM_OK, "%s", why);
    carom_container_destroy(first);
    carom_container_destroy(second);
    return c;
}

static carom_world *container_world(int dim, double box, const carom_container *c, carom_vec gravity,
                                    driven_log *log)
{
    carom_world_def def = carom_default_world_def();
    def.dim = dim;
    def.box = (carom_vec){box, box, box};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = CAROM_WALLS;
    def.container = c;
    def.gravity = gravity;
    def.on_event = log ? driven_record : NULL;
    def.user = log;
    carom_world *w = NULL;
    char why[256] = "";
    CHECK_MSG(carom_world_create(&def, &w, why, sizeof why) == CAROM_OK, "%s", why);
    return w;
}

static int32_t add(carom_world *w, carom_vec x, carom_vec v, double r)
{
    carom_body_def b = carom_default_body_def();
    b.position = x, b.velocity = v, b.radius = r;
    int32_t id = -1;
    CHECK_MSG(carom_world_add_body(w, &b, &id) == CAROM_OK, "%s", carom_world_message(w));
    return id;
}

/* One disk in a circle: every bounce at t0 + k L / v. */
static void test_chords_in_a_circle(void)
{
    double R = 5.0, r = 0.5, rho = R - r, speed = 1.7;
    carom_container *c = make_ball(2, (carom_vec){0, 0, 0}, R);
    driven_log log = {0};
    carom_world *w = container_world(2, 12.0, c, (carom_vec){0, 0, 0}, &log);
    carom_container_destroy(c); /* the world keeps its own copy */
    double x0 = 0.3, y0 = -1.1, ux = cos(0.4), uy = sin(0.4);
    add(w, (carom_vec){x0, y0, 0}, (carom_vec){speed * ux, speed * uy, 0}, r);
    CHECK(carom_world_run(w, 4000.0, -1) == CAROM_OK);
    /* the line x0 + s u: distance from the centre and where it meets the circle */
    double along = x0 * ux + y0 * uy, d2 = x0 * x0 + y0 * y0 - along * along;
    double first = (-along + sqrt(along * along - (x0 * x0 + y0 * y0 - rho * rho))) / speed;
    double period = 2.0 * sqrt(rho * rho - d2) / speed;
    size_t bounces = 0;
    double worst = 0.0;
    for (size_t k = 0; k < log.count; k++) {
        if (log.events[k].kind != CAROM_EVENT_WALL) continue;
        CHECK_EQ_INT(log.events[k].j, CAROM_WALL_CONTAINER);
        double expected = first + (double)bounces * period, err = fabs(log.events[k].time - expected);
        if (err > worst) worst = err;
        bounces++;
    }
    CHECK(bounces > 500);
    CHECK_MSG(worst <= 1e-9 * 4000.0, "worst bounce time error %g over %zu bounces", worst, bounces);
    carom_body_state s;
    carom_world_get_body(w, 0, &s);
    double v2 = s.velocity.x * s.velocity.x + s.velocity.y * s.velocity.y;
    CHECK_NEAR(sqrt(v2), speed, 1e-12 * speed);
    carom_world_destroy(w);
    driven_log_free(&log);
}

static carom_container *make_square_polygon(double half)
{
    carom_vec v[4] = {{-half, -half, 0}, {half, -half, 0}, {half, half, 0}, {-half, half, 0}};
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_POLYGON, d.dim = 2, d.vertices = v, d.vertex_count = 4;
    carom_container *c = NULL;
    char why[256] = "";
    CHECK_MSG(carom_container_create(&d, &c, why, sizeof why) == CAROM_OK, "%s", why);
    return c;
}

/* A square polygon against the box's own walls: the same bounces, at the same
 * times. One body per world: a square billiard is integrable, so the two
 * round-offs part only linearly in time (with pairs, chaos would amplify them
 * and the comparison would prove nothing after a few dozen events). */
static void square_against_box(carom_vec gravity, uint64_t seed)
{
    double side = 10.0;
    carom_container *c = make_square_polygon(0.5 * side);
    driven_log with = {0}, plain = {0};
    carom_world *a = container_world(2, side, c, gravity, &with);
    carom_world *b = container_world(2, side, NULL, gravity, &plain);
    carom_container_destroy(c);
    carom_rng rng = carom_rng_seed(seed);
    carom_vec x = {-4.0 + 8.0 * carom_rng_uniform(&rng), -4.0 + 8.0 * carom_rng_uniform(&rng), 0};
    carom_vec v = {2.0 * carom_rng_normal(&rng), 2.0 * carom_rng_normal(&rng), 0};
    add(a, x, v, 0.4);
    add(b, x, v, 0.4);
    CHECK(carom_world_run(a, 200.0, -1) == CAROM_OK);
    CHECK(carom_world_run(b, 200.0, -1) == CAROM_OK);
    CHECK_MSG(with.count == plain.count && with.count > 20, "%zu and %zu bounces", with.count, plain.count);
    size_t agree = 0;
    for (size_t k = 0; k < with.count && k < plain.count; k++) {
        const carom_event *p = &with.events[k], *q = &plain.events[k];
        if (p->kind != q->kind || !(fabs(p->time - q->time) <= 1e-9 * (1.0 + q->time))) break;
        agree++;
    }
    CHECK_MSG(agree == plain.count, "seed %llu: the bounces part at %zu of %zu: %.17g against %.17g",
              (unsigned long long)seed, agree, plain.count, agree < with.count ? with.events[agree].time : -1.0,
              agree < plain.count ? plain.events[agree].time : -1.0);
    carom_world_destroy(a);
    carom_world_destroy(b);
    driven_log_free(&with);
    driven_log_free(&plain);
}

static void test_square_polygon_is_the_box(void)
{
    for (uint64_t seed = 1; seed <= 8; seed++) {
        square_against_box((carom_vec){0, 0, 0}, seed);
        square_against_box((carom_vec){0.3, -2.0, 0}, seed);
    }
}

/* The lowest clearance of every body now, by the public distance. */
static double lowest_clearance(const carom_world *w, const carom_container *c)
{
    double lowest = INFINITY;
    for (int32_t id = 0; id < carom_world_body_count(w); id++) {
        carom_body_state s;
        carom_world_get_body(w, id, &s);
        double clearance = carom_container_distance(c, s.position, NULL) - s.radius;
        if (clearance < lowest) lowest = clearance;
    }
    return lowest;
}

static double total_energy(const carom_world *w)
{
    carom_stats s = carom_world_stats(w);
    return s.kinetic_energy + s.potential_energy;
}

/* A gas of disks (or spheres) in a container: kept inside, energy kept. */
static void gas_in(int dim, const carom_container *c, int count, double r, carom_vec gravity, const char *what)
{
    carom_world *w = container_world(dim, 24.0, c, gravity, NULL);
    carom_rng rng = carom_rng_seed(5);
    carom_vec lower, upper;
    carom_container_bounds(c, &lower, &upper);
    int placed = 0;
    for (int tries = 0; placed < count && tries < 100000; tries++) {
        carom_vec x = {lower.x + (upper.x - lower.x) * carom_rng_uniform(&rng),
                       lower.y + (upper.y - lower.y) * carom_rng_uniform(&rng),
                       dim == 3 ? lower.z + (upper.z - lower.z) * carom_rng_uniform(&rng) : 0.0};
        carom_body_def b = carom_default_body_def();
        b.position = x, b.radius = r;
        b.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), dim == 3 ? carom_rng_normal(&rng) : 0};
        if (carom_world_add_body(w, &b, NULL) == CAROM_OK) placed++;
    }
    CHECK_MSG(placed == count, "%s: placed %d of %d", what, placed, count);
    CHECK(carom_world_run(w, 0.0, -1) == CAROM_OK);
    double e0 = total_energy(w), lowest = INFINITY;
    for (int k = 1; k <= 400; k++) {
        carom_status st = carom_world_run(w, 0.05 * k, -1);
        CHECK_MSG(st == CAROM_OK, "%s: %s", what, carom_world_message(w));
        if (st != CAROM_OK) break;
        double l = lowest_clearance(w, c);
        if (l < lowest) lowest = l;
    }
    carom_stats s = carom_world_stats(w);
    CHECK_MSG(s.wall_events > 100, "%s: %lld bounces", what, (long long)s.wall_events);
    CHECK_MSG(lowest >= -1e-9, "%s: a body %g outside", what, -lowest);
    CHECK_MSG(fabs(total_energy(w) - e0) <= 1e-10 * fabs(e0), "%s: energy %.17g -> %.17g", what, e0,
              total_energy(w));
    carom_world_destroy(w);
}

/* Bounces at normal incidence off a function's wall: right after each, the
 * distance grows exactly as fast as the body moves, so only its rounding
 * tells the Lipschitz check anything; an honest function must pass. */
static void radial_bounces(int dim, const carom_container *c)
{
    carom_world *w = container_world(dim, 20.0, c, (carom_vec){0, 0, 0}, NULL);
    for (int k = 0; k < 6; k++) {
        double angle = 0.7 + 1.05 * k, u[3] = {cos(angle), sin(angle), 0.0};
        add(w, (carom_vec){5.0 * u[0], 5.0 * u[1], dim == 3 ? 0.5 * k - 1.0 : 0.0}, (carom_vec){1.3 * u[0], 1.3 * u[1], 0}, 0.4);
    }
    carom_status st = carom_world_run(w, 100.0, -1);
    CHECK_MSG(st == CAROM_OK, "%s", carom_world_message(w));
    CHECK(carom_world_stats(w).wall_events >= 6 * 8);
    carom_world_destroy(w);
}

/* A ball of radius 8 as a caller's function: honest, 1-Lipschitz. */
static double ball_function(void *user, carom_vec p, carom_vec *gradient)
{
    (void)user;
    double r = sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
    if (gradient) *gradient = r > 0.0 ? (carom_vec){-p.x / r, -p.y / r, -p.z / r} : (carom_vec){1, 0, 0};
    return 8.0 - r;
}

static void test_gases_stay_inside(void)
{
    for (int dim = 2; dim <= 3; dim++) {
        carom_container_def f = carom_default_container_def();
        f.shape = CAROM_SHAPE_FUNCTION, f.dim = dim, f.distance = ball_function, f.lipschitz = 1.0;
        f.lower = (carom_vec){-8, -8, -8}, f.upper = (carom_vec){8, 8, 8};
        carom_container *by_function = NULL;
        CHECK(carom_container_create(&f, &by_function, NULL, 0) == CAROM_OK);
        if (by_function) gas_in(dim, by_function, 60, 0.4, (carom_vec){0, 0, 0}, "ball as a function");
        if (by_function) radial_bounces(dim, by_function);
        carom_container_destroy(by_function);
    }

    carom_container *circle = make_ball(2, (carom_vec){0, 0, 0}, 8.0);
    gas_in(2, circle, 60, 0.4, (carom_vec){0, 0, 0}, "circle");
    gas_in(2, circle, 40, 0.4, (carom_vec){0, -3.0, 0}, "circle under gravity");
    carom_container_destroy(circle);

    carom_container *peanut = make_pair(CAROM_SHAPE_UNION, make_ball(2, (carom_vec){-3, 0, 0}, 5.0),
                                        make_ball(2, (carom_vec){3, 0, 0}, 5.0));
    gas_in(2, peanut, 50, 0.4, (carom_vec){0, 0, 0}, "union of two circles");
    carom_container_destroy(peanut);

    carom_container *annulus = make_pair(CAROM_SHAPE_DIFFERENCE, make_ball(2, (carom_vec){0, 0, 0}, 9.0),
                                         make_ball(2, (carom_vec){1.0, 0.5, 0}, 3.0));
    gas_in(2, annulus, 50, 0.4, (carom_vec){0, 0, 0}, "annulus");
    carom_container_destroy(annulus);

    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_ROUNDED_BOX, d.dim = 2, d.size = (carom_vec){18, 10, 0}, d.radius = 3.0;
    carom_container *rink = NULL;
    CHECK(carom_container_create(&d, &rink, NULL, 0) == CAROM_OK);
    if (rink) gas_in(2, rink, 50, 0.4, (carom_vec){0, 0, 0}, "rounded box");
    carom_container_destroy(rink);

    carom_container *sphere = make_ball(3, (carom_vec){0.5, 0, 0}, 7.0);
    gas_in(3, sphere, 80, 0.5, (carom_vec){0, 0, 0}, "sphere");
    gas_in(3, sphere, 40, 0.5, (carom_vec){0, 0, -2.0}, "sphere under gravity");
    carom_container_destroy(sphere);
}

/* Bad worlds and placements. */
static void test_refusals(void)
{
    carom_container *c = make_ball(2, (carom_vec){0, 0, 0}, 4.0);
    carom_world_def def = carom_default_world_def();
    def.dim = 2, def.box = (carom_vec){10, 10, 10}, def.container = c;
    carom_world *w = NULL;
    char why[256] = "";
    CHECK(carom_world_create(&def, &w, why, sizeof why) == CAROM_INVALID_ARGUMENT); /* periodic */
    CHECK_MSG(strstr(why, "CAROM_WALLS") != NULL, "%s", why);
    def.boundary[0] = def.boundary[1] = CAROM_WALLS;
    def.box = (carom_vec){6, 10, 10};
    CHECK(carom_world_create(&def, &w, why, sizeof why) == CAROM_INVALID_ARGUMENT); /* box too small */
    CHECK_MSG(strstr(why, "outside the box") != NULL, "%s", why);
    def.dim = 3, def.box = (carom_vec){10, 10, 10}, def.boundary[2] = CAROM_WALLS;
    CHECK(carom_world_create(&def, &w, why, sizeof why) == CAROM_INVALID_ARGUMENT); /* 2D container */
    CHECK_MSG(strstr(why, "2D container") != NULL, "%s", why);
    def.dim = 2;
    CHECK(carom_world_create(&def, &w, why, sizeof why) == CAROM_OK);
    carom_body_def b = carom_default_body_def();
    b.position = (carom_vec){3.8, 0, 0}; /* inside the box, not the circle (clearance -0.3) */
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OUTSIDE_BOX);
    CHECK_MSG(strstr(carom_world_message(w), "body 0") && strstr(carom_world_message(w), "outside the container"),
              "%s", carom_world_message(w));
    b.position = (carom_vec){3.4, 0, 0};
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    CHECK(carom_world_set_body_position(w, 0, (carom_vec){3.0, 3.0, 0}) == CAROM_OUTSIDE_BOX);
    carom_body_state s;
    carom_world_get_body(w, 0, &s);
    CHECK(s.position.x == 3.4 && s.position.y == 0.0); /* unchanged */
    carom_frame_def fd = carom_default_frame_def();
    carom_frame *f = NULL;
    CHECK(carom_frame_create_from_world(w, &fd, &f, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK(f == NULL);
    carom_world_destroy(w);
    carom_container_destroy(c);
}

/* A kinematic body bounces off the container too, and keeps its speed. */
static void test_kinematic_bounces(void)
{
    carom_container *c = make_ball(2, (carom_vec){0, 0, 0}, 4.0);
    driven_log log = {0};
    carom_world *w = container_world(2, 10.0, c, (carom_vec){0, 0, 0}, &log);
    carom_body_def b = carom_default_body_def();
    b.mass = INFINITY, b.velocity = (carom_vec){1.0, 0.25, 0};
    CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    CHECK(carom_world_run(w, 40.0, -1) == CAROM_OK);
    CHECK(log.count >= 5);
    for (size_t k = 0; k < log.count; k++) CHECK(log.events[k].impulse == 0.0);
    carom_body_state s;
    carom_world_get_body(w, 0, &s);
    CHECK_NEAR(hypot(s.velocity.x, s.velocity.y), hypot(1.0, 0.25), 1e-12);
    CHECK(carom_container_distance(c, s.position, NULL) - s.radius >= -1e-9);
    carom_world_destroy(w);
    carom_container_destroy(c);
    driven_log_free(&log);
}

/* Every body's state, field by field, for bitwise comparison. */
static int same_bodies(const carom_world *a, const carom_world *b)
{
    if (carom_world_body_count(a) != carom_world_body_count(b)) return 0;
    for (int32_t id = 0; id < carom_world_body_count(a); id++) {
        carom_body_state p, q;
        carom_world_get_body(a, id, &p);
        carom_world_get_body(b, id, &q);
        if (p.position.x != q.position.x || p.position.y != q.position.y || p.position.z != q.position.z ||
            p.velocity.x != q.velocity.x || p.velocity.y != q.velocity.y || p.velocity.z != q.velocity.z ||
            p.collisions != q.collisions)
            return 0;
    }
    return 1;
}

/* A world in an annulus cut from a rounded box and a polygon pillar, saved
 * halfway and restored: it goes on bit for bit; a forged container is refused. */
static void test_snapshot_keeps_the_container(void)
{
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_ROUNDED_BOX, d.dim = 2, d.size = (carom_vec){16, 12, 0}, d.radius = 2.5;
    carom_container *rink = NULL, *pillar = NULL, *c = NULL;
    CHECK(carom_container_create(&d, &rink, NULL, 0) == CAROM_OK);
    carom_vec v[3] = {{-1, -1, 0}, {2, -1, 0}, {0, 1.5, 0}};
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_POLYGON, d.vertices = v, d.vertex_count = 3;
    CHECK(carom_container_create(&d, &pillar, NULL, 0) == CAROM_OK);
    if (!rink || !pillar) return;
    c = make_pair(CAROM_SHAPE_DIFFERENCE, rink, pillar);
    carom_world *w = container_world(2, 20.0, c, (carom_vec){0, 0, 0}, NULL);
    carom_rng rng = carom_rng_seed(3);
    for (int k = 0; k < 30; k++) {
        carom_body_def b = carom_default_body_def();
        b.radius = 0.3;
        b.position = (carom_vec){-7 + 14 * carom_rng_uniform(&rng), -5 + 10 * carom_rng_uniform(&rng), 0};
        b.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), 0};
        carom_world_add_body(w, &b, NULL);
    }
    CHECK(carom_world_run(w, 20.0, -1) == CAROM_OK);
    size_t size = carom_world_snapshot_size(w);
    unsigned char *snap = malloc(size);
    CHECK_MSG(carom_world_snapshot(w, snap, size) == CAROM_OK, "%s", carom_world_message(w));
    carom_world *back = NULL;
    char why[256] = "";
    CHECK_MSG(carom_world_restore(snap, size, NULL, NULL, &back, why, sizeof why) == CAROM_OK, "%s", why);
    if (back) {
        CHECK(carom_world_run(w, 60.0, -1) == CAROM_OK);
        CHECK(carom_world_run(back, 60.0, -1) == CAROM_OK);
        CHECK(same_bodies(w, back));
        CHECK(carom_world_stats(back).wall_events == carom_world_stats(w).wall_events);
        carom_world_destroy(back);
    }
    /* the last node (the difference) names a later node as its part */
    size_t nodes = 5, vertices = 3, last = size - 4 - vertices * 16 - 113;
    put_le(snap, last + 1, nodes, 4);
    reseal_snapshot(snap, size);
    back = NULL;
    CHECK(carom_world_restore(snap, size, NULL, NULL, &back, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "container node") != NULL && strstr(why, "earlier nodes") != NULL, "%s", why);
    CHECK(back == NULL);
    free(snap);
    carom_world_destroy(w);
    carom_container_destroy(c);
}

/* Inelastic bounces in a bowl (a circle under gravity), dropped straight:
 * by the TC model a bounce soon after the previous one is elastic, so the
 * ball ends hopping at the bottom by about g t_c^2 instead of jamming in a
 * Zeno series. (With a tangential speed it would slide to and fro like a
 * pendulum, frictionless, by the same tiny hops.) */
static void test_inelastic_bowl_settles(void)
{
    carom_container *c = make_ball(2, (carom_vec){0, 0, 0}, 4.0);
    carom_world_def def = carom_default_world_def();
    def.dim = 2, def.box = (carom_vec){10, 10, 10}, def.container = c;
    def.boundary[0] = def.boundary[1] = CAROM_WALLS;
    def.gravity = (carom_vec){0, -1.0, 0};
    def.wall_restitution = 0.5;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    add(w, (carom_vec){0.0, 1.0, 0}, (carom_vec){0.0, 0, 0}, 0.5);
    carom_status st = carom_world_run(w, 50.0, 5000000);
    CHECK_MSG(st == CAROM_OK, "%s", carom_world_message(w));
    carom_body_state s;
    carom_world_get_body(w, 0, &s);
    double height = s.position.y + 3.5; /* above the lowest point the centre can reach */
    CHECK_MSG(height < 0.05 && carom_world_time(w) == 50.0, "height %g at t = %g", height, carom_world_time(w));
    CHECK(carom_container_distance(c, s.position, NULL) - s.radius >= -1e-9);
    carom_world_destroy(w);
    carom_container_destroy(c);
}

/* A square of half side 8 as a caller's function. */
static double square_function(void *user, carom_vec p, carom_vec *gradient)
{
    (void)user;
    double sx = 8.0 - fabs(p.x), sy = 8.0 - fabs(p.y);
    if (gradient) *gradient = sx < sy ? (carom_vec){p.x > 0 ? -1 : 1, 0, 0} : (carom_vec){0, p.y > 0 ? -1 : 1, 0};
    return sx < sy ? sx : sy;
}

/* A body gliding along a function's wall, 1e-4 above it: conservative
 * advancement crawls (steps of the clearance: 1.4e5 of them) and spends its budget again
 * and again; each time the body is predicted again from where the search
 * got, and it still meets the far wall exactly when it should. */
static void test_gliding_along_a_function_wall(void)
{
    carom_container_def f = carom_default_container_def();
    f.shape = CAROM_SHAPE_FUNCTION, f.dim = 2, f.distance = square_function, f.lipschitz = 1.0;
    f.lower = (carom_vec){-8, -8, 0}, f.upper = (carom_vec){8, 8, 0};
    carom_container *c = NULL;
    CHECK(carom_container_create(&f, &c, NULL, 0) == CAROM_OK);
    if (!c) return;
    driven_log log = {0};
    carom_world *w = container_world(2, 16.0, c, (carom_vec){0, 0, 0}, &log);
    double r = 0.5, y = -8.0 + r + 1e-4, x0 = -6.0, speed = 2.0;
    add(w, (carom_vec){x0, y, 0}, (carom_vec){speed, 0, 0}, r);
    carom_status st = carom_world_run(w, 10.0, -1);
    CHECK_MSG(st == CAROM_OK, "%s", carom_world_message(w));
    CHECK(log.count >= 1);
    if (log.count >= 1) {
        double expected = (8.0 - r - x0) / speed; /* the far wall, where the clearance is 0 */
        CHECK_EQ_INT(log.events[0].kind, CAROM_EVENT_WALL);
        CHECK_MSG(log.events[0].time <= expected && log.events[0].time >= expected - 1e-7,
                  "first bounce at %.17g, expected %.17g", log.events[0].time, expected);
    }
    carom_world_destroy(w);
    carom_container_destroy(c);
    driven_log_free(&log);
}

int main(void)
{
    RUN(test_chords_in_a_circle);
    RUN(test_square_polygon_is_the_box);
    RUN(test_gases_stay_inside);
    RUN(test_refusals);
    RUN(test_kinematic_bounces);
    RUN(test_snapshot_keeps_the_container);
    RUN(test_inelastic_bowl_settles);
    RUN(test_gliding_along_a_function_wall);
    return CHECK_SUMMARY();
}
