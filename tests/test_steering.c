/* test_steering.c — steered bodies in a world (src/steering.c, issue 13
 * items 3, 5 and 7): the filter applied by carom_world_advance.
 *
 * The world itself is the referee: a steered body that touched a wall, the
 * container or another body would have had a collision, which the engine
 * counts exactly (carom_body_state.collisions). So every adversarial run
 * checks that no steered body ever collides, besides the clearance at every
 * window start and |a| <= a_max. Also: the input is kept apart from the
 * applied acceleration, refusals name the field, and the crossing events
 * inside a window (item 5) are measured against decisions at window starts
 * only (the internal switch steering.no_crossings).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "filter.h"
#include "forge.h"
#include "world.h"

static carom_world *make_world_g(int dim, double box, const carom_container *c, carom_vec gravity)
{
    carom_world_def def = carom_default_world_def();
    def.gravity = gravity;
    def.dim = dim;
    def.box = (carom_vec){box, box, box};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = CAROM_WALLS;
    def.container = c;
    carom_world *w = NULL;
    char why[256] = "";
    CHECK_MSG(carom_world_create(&def, &w, why, sizeof why) == CAROM_OK, "%s", why);
    return w;
}

static carom_world *make_world(int dim, double box, const carom_container *c)
{
    return make_world_g(dim, box, c, (carom_vec){0, 0, 0});
}

static int32_t add(carom_world *w, carom_vec x, double r)
{
    carom_body_def b = carom_default_body_def();
    b.position = x, b.radius = r;
    int32_t id = -1;
    CHECK_MSG(carom_world_add_body(w, &b, &id) == CAROM_OK, "%s", carom_world_message(w));
    return id;
}

static carom_container *make(carom_container_def d)
{
    carom_container *c = NULL;
    char why[256] = "";
    CHECK_MSG(carom_container_create(&d, &c, why, sizeof why) == CAROM_OK, "%s", why);
    return c;
}

static carom_filter_def filter(carom_filter_law law, double amax, double sigma, double window)
{
    carom_filter_def d = carom_default_filter_def();
    d.law = law, d.max_acceleration = amax, d.safety = sigma, d.window = window;
    return d;
}

static double len(carom_vec v) { return sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }

/* The clearance of body id to the world's boundary now (box walls or container). */
static double clearance_of(const carom_world *w, const carom_container *c, double box, int dim, int32_t id,
                           carom_vec *inward)
{
    carom_body_state b;
    carom_world_get_body(w, id, &b);
    if (c) {
        carom_vec g;
        double s = carom_container_distance(c, b.position, &g) - b.radius;
        if (inward) *inward = g;
        return s;
    }
    double p[3] = {b.position.x, b.position.y, b.position.z}, least = INFINITY;
    for (int a = 0; a < dim; a++) {
        double s = 0.5 * box - b.radius - fabs(p[a]);
        if (s < least) {
            least = s;
            if (inward) {
                double n[3] = {0, 0, 0};
                n[a] = p[a] > 0 ? -1.0 : 1.0;
                *inward = (carom_vec){n[0], n[1], n[2]};
            }
        }
    }
    return least;
}

/* ---- the API ------------------------------------------------------------------ */

static void test_refusals(void)
{
    carom_world *w = make_world(2, 20.0, NULL);
    int32_t id = add(w, (carom_vec){0, 0, 0}, 0.5);
    carom_filter_def d = filter(CAROM_FILTER_LINEAR, 1.0, 0.5, 0.1);
    carom_filter_result r;
    CHECK(carom_world_set_body_filter(w, 7, &d) == CAROM_NOT_FOUND);
    CHECK(carom_world_get_body_filter(w, id, &r) == CAROM_NOT_FOUND); /* not steered */
    carom_filter_def bad = d;
    bad.max_acceleration = -1;
    CHECK(carom_world_set_body_filter(w, id, &bad) == CAROM_INVALID_ARGUMENT);
    CHECK_MSG(strstr(carom_world_message(w), "body 0") && strstr(carom_world_message(w), "max_acceleration"), "%s",
              carom_world_message(w));
    bad = d, bad.safety = 1.5;
    CHECK(carom_world_set_body_filter(w, id, &bad) == CAROM_INVALID_ARGUMENT);
    CHECK_MSG(strstr(carom_world_message(w), "safety"), "%s", carom_world_message(w));
    bad = d, bad.window = 0.0;
    CHECK(carom_world_set_body_filter(w, id, &bad) == CAROM_INVALID_ARGUMENT);
    CHECK_MSG(strstr(carom_world_message(w), "window"), "%s", carom_world_message(w));
    carom_body_def k = carom_default_body_def();
    k.position = (carom_vec){5, 5, 0}, k.radius = 0.5, k.mass = INFINITY;
    int32_t kid = -1;
    CHECK(carom_world_add_body(w, &k, &kid) == CAROM_OK);
    CHECK(carom_world_set_body_filter(w, kid, &d) == CAROM_INVALID_ARGUMENT);
    CHECK_MSG(strstr(carom_world_message(w), "kinematic"), "%s", carom_world_message(w));
    /* steering on, then off again (NULL and the law OFF) */
    CHECK(carom_world_set_body_filter(w, id, &d) == CAROM_OK);
    CHECK(carom_world_advance(w, 0.1) == CAROM_OK);
    CHECK(carom_world_get_body_filter(w, id, &r) == CAROM_OK);
    CHECK(carom_world_set_body_filter(w, id, NULL) == CAROM_OK);
    CHECK(carom_world_get_body_filter(w, id, &r) == CAROM_NOT_FOUND);
    CHECK(carom_world_set_body_filter(w, id, &d) == CAROM_OK);
    d.law = CAROM_FILTER_OFF;
    CHECK(carom_world_set_body_filter(w, id, &d) == CAROM_OK);
    CHECK(carom_world_get_body_filter(w, id, &r) == CAROM_NOT_FOUND);
    CHECK(carom_world_get_body_filter(w, id, NULL) == CAROM_INVALID_ARGUMENT);
    carom_world_destroy(w);
}

static void test_input_kept_apart(void)
{
    /* Far from the walls the input is applied bit for bit at the next window; near one it is filtered, and
       the player's input is still what it was (it comes back when the body is unsteered). */
    carom_world *w = make_world(2, 20.0, NULL);
    int32_t id = add(w, (carom_vec){0, 0, 0}, 0.5);
    carom_filter_def d = filter(CAROM_FILTER_LINEAR, 2.0, 0.5, 0.05);
    CHECK(carom_world_set_body_filter(w, id, &d) == CAROM_OK);
    carom_vec in = {0.3, -0.7, 0};
    CHECK(carom_world_set_body_acceleration(w, id, in) == CAROM_OK);
    carom_body_state b;
    carom_world_get_body(w, id, &b);
    CHECK(b.acceleration.x == 0.0 && b.acceleration.y == 0.0); /* not before the window starts */
    CHECK(carom_world_advance(w, 0.05) == CAROM_OK);
    carom_world_get_body(w, id, &b);
    CHECK(b.acceleration.x == in.x && b.acceleration.y == in.y);
    /* fast toward the right wall: the filter acts */
    CHECK(carom_world_set_body_velocity(w, id, (carom_vec){5.0, 0, 0}) == CAROM_OK);
    carom_vec push = {2.0, 0, 0};
    CHECK(carom_world_set_body_acceleration(w, id, push) == CAROM_OK);
    CHECK(carom_world_advance(w, 0.05) == CAROM_OK);
    carom_filter_result r;
    CHECK(carom_world_get_body_filter(w, id, &r) == CAROM_OK);
    carom_world_get_body(w, id, &b);
    CHECK(r.acted && r.criticality > 0.0 && b.acceleration.x < 2.0);
    CHECK(r.acceleration.x == b.acceleration.x && r.acceleration.y == b.acceleration.y);
    CHECK(carom_world_set_body_filter(w, id, NULL) == CAROM_OK);
    carom_world_get_body(w, id, &b);
    CHECK(b.acceleration.x == push.x && b.acceleration.y == push.y);
    carom_world_destroy(w);
    /* under gravity the filter sees input + g; far from the walls the body's own acceleration is the input
       (to the rounding of adding and taking away g) */
    w = make_world_g(2, 20.0, NULL, (carom_vec){0, -0.5, 0});
    id = add(w, (carom_vec){0, 0, 0}, 0.5);
    CHECK(carom_world_set_body_filter(w, id, &d) == CAROM_OK);
    CHECK(carom_world_set_body_acceleration(w, id, in) == CAROM_OK);
    CHECK(carom_world_advance(w, 0.05) == CAROM_OK);
    carom_filter_result r2;
    carom_world_get_body(w, id, &b);
    carom_world_get_body_filter(w, id, &r2);
    CHECK_NEAR(b.acceleration.x, in.x, 1e-15);
    CHECK_NEAR(b.acceleration.y, in.y, 1e-15);
    CHECK_NEAR(r2.acceleration.y, in.y - 0.5, 1e-15); /* what it flies with */
    carom_world_destroy(w);
}

/* ---- adversarial players in the world -------------------------------------------------------- */

typedef enum { TOWARD_WALL, RANDOM, CORNER, SPIRAL, CHASE, PLAYER_KINDS } player_kind;

typedef struct arena {
    carom_world *w;
    const carom_container *c;
    double box;
    int dim, n;
    int32_t id[10];
    carom_filter_def def[10];
    carom_rng rng;
    double held[10][3];
} arena;

static void random_unit(carom_rng *rng, int dim, double out[3])
{
    double l = 0.0;
    out[0] = out[1] = out[2] = 0.0;
    while (l == 0.0) {
        for (int a = 0; a < dim; a++) out[a] = carom_rng_normal(rng);
        l = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
    }
    for (int a = 0; a < 3; a++) out[a] /= l;
}

static carom_vec player(arena *A, int k, player_kind kind, int64_t window)
{
    double amax = A->def[k].max_acceleration * 1.2, d[3] = {0, 0, 0};
    carom_body_state b;
    carom_world_get_body(A->w, A->id[k], &b);
    double p[3] = {b.position.x, b.position.y, b.position.z};
    carom_vec g = {0, 0, 0};
    switch (kind) {
    case TOWARD_WALL:
        clearance_of(A->w, A->c, A->box, A->dim, A->id[k], &g);
        d[0] = -g.x, d[1] = -g.y, d[2] = -g.z;
        break;
    case RANDOM:
        if (window % 13 == 0) random_unit(&A->rng, A->dim, A->held[k]);
        memcpy(d, A->held[k], sizeof d);
        break;
    case CORNER:
        for (int a = 0; a < A->dim; a++) d[a] = (p[a] >= 0 ? 0.5 : -0.5) * A->box - p[a];
        break;
    case SPIRAL:
        d[0] = -p[1] + 0.4 * p[0], d[1] = p[0] + 0.4 * p[1], d[2] = A->dim == 3 ? 0.3 : 0.0;
        break;
    case CHASE: { /* toward the next steered body */
        carom_body_state o;
        carom_world_get_body(A->w, A->id[(k + 1 + (int)(window / 100) % (A->n > 1 ? A->n - 1 : 1)) % A->n], &o);
        d[0] = o.position.x - p[0], d[1] = o.position.y - p[1], d[2] = o.position.z - p[2];
        break;
    }
    default: break;
    }
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (l == 0.0) return (carom_vec){0, 0, 0};
    return (carom_vec){amax * d[0] / l, amax * d[1] / l, A->dim == 3 ? amax * d[2] / l : 0.0};
}

typedef struct outcome {
    uint64_t collisions;
    double least_clearance, most_over;
    int64_t acted, decisions;
} outcome;

/* windows of dt; each body's player kind cycles every 400 windows. */
static outcome play(arena *A, int64_t windows, double dt)
{
    outcome o = {0, INFINITY, 0.0, 0, 0};
    for (int64_t t = 0; t < windows; t++) {
        for (int k = 0; k < A->n; k++) {
            player_kind kind = (player_kind)((t / 400 + k) % (A->n > 1 ? PLAYER_KINDS : PLAYER_KINDS - 1));
            CHECK(carom_world_set_body_acceleration(A->w, A->id[k], player(A, k, kind, t)) == CAROM_OK);
        }
        carom_status st = carom_world_advance(A->w, dt);
        CHECK_MSG(st == CAROM_OK, "%s", carom_world_message(A->w));
        if (st != CAROM_OK) break;
        for (int k = 0; k < A->n; k++) {
            carom_filter_result r;
            carom_world_get_body_filter(A->w, A->id[k], &r);
            o.acted += r.acted;
            o.most_over = fmax(o.most_over, len(r.acceleration) / A->def[k].max_acceleration);
            o.least_clearance = fmin(o.least_clearance, clearance_of(A->w, A->c, A->box, A->dim, A->id[k], NULL));
        }
    }
    for (int k = 0; k < A->n; k++) {
        carom_body_state b;
        carom_world_get_body(A->w, A->id[k], &b);
        o.collisions += b.collisions;
    }
    o.decisions = A->w->steering.decisions;
    return o;
}

/* n steered bodies (laws cycling) on a ring in world w. */
static void setup(arena *A, carom_world *w, const carom_container *c, double box, int dim, int n, double ring,
                  double dt, uint64_t seed, carom_vec start)
{
    memset(A, 0, sizeof *A);
    A->w = w, A->c = c, A->box = box, A->dim = dim, A->n = n, A->rng = carom_rng_seed(seed);
    const carom_filter_law laws[5] = {CAROM_FILTER_LINEAR, CAROM_FILTER_QUADRATIC, CAROM_FILTER_NAIVE,
                                      CAROM_FILTER_BACKUP, CAROM_FILTER_LINEAR};
    for (int k = 0; k < n; k++) {
        double angle = 6.283185307179586 * k / n;
        carom_vec x = n > 1 ? (carom_vec){ring * cos(angle), ring * sin(angle), 0.0} : start;
        A->id[k] = add(w, x, 0.3 + 0.1 * (k % 3));
        A->def[k] = filter(laws[(k + seed) % 5], 1.0 + 0.5 * carom_rng_uniform(&A->rng),
                           0.8 * carom_rng_uniform(&A->rng), dt);
        CHECK(carom_world_set_body_filter(w, A->id[k], &A->def[k]) == CAROM_OK);
    }
}

static void report(const char *what, const arena *A, outcome o, int64_t windows)
{
    printf("      %s: %d bodies, %lld windows: collisions %llu, least clearance %.3g, max |a|/a_max %.17g, "
           "acted %.1f%%, decisions %lld\n",
           what, A->n, (long long)windows, (unsigned long long)o.collisions, o.least_clearance, o.most_over,
           100.0 * (double)o.acted / (double)(windows * A->n), (long long)o.decisions);
    CHECK_MSG(o.collisions == 0, "%s: a steered body collided", what);
    CHECK(o.least_clearance >= 0.0);
    CHECK(o.most_over <= 1.0);
}

static int64_t scaled(int64_t windows)
{
    const char *e = getenv("CAROM_STEERING_SCALE");
    return e ? windows * atoll(e) : windows;
}

static void test_one_in_a_box(void)
{
    carom_world *w = make_world(2, 12.0, NULL);
    arena A;
    setup(&A, w, NULL, 12.0, 2, 1, 0.0, 1.0 / 60.0, 1, (carom_vec){0, 0, 0});
    int64_t n = scaled(100000);
    report("box", &A, play(&A, n, 1.0 / 60.0), n);
    carom_world_destroy(w);
    w = make_world(3, 12.0, NULL);
    setup(&A, w, NULL, 12.0, 3, 1, 0.0, 0.05, 2, (carom_vec){0, 0, 0});
    n = scaled(30000);
    report("cube", &A, play(&A, n, 0.05), n);
    carom_world_destroy(w);
    /* advancing by less than the filter's window: braking holds outlive the advance that began them */
    w = make_world(2, 12.0, NULL);
    setup(&A, w, NULL, 12.0, 2, 1, 0.0, 0.2, 3, (carom_vec){0, 0, 0});
    n = scaled(100000);
    report("box, advances of a third of the window", &A, play(&A, n, 0.2 / 3.0), n);
    carom_world_destroy(w);
    /* under gravity (half of a_max and more): the filter sees the total acceleration, the own one is the
       decision less gravity */
    w = make_world_g(2, 12.0, NULL, (carom_vec){0.3, -0.6, 0});
    setup(&A, w, NULL, 12.0, 2, 1, 0.0, 1.0 / 60.0, 5, (carom_vec){0, 0, 0});
    n = scaled(50000);
    report("box under gravity", &A, play(&A, n, 1.0 / 60.0), n);
    carom_world_destroy(w);
    /* advancing by three windows: the holds end, and are decided again, inside each advance */
    w = make_world(2, 12.0, NULL);
    setup(&A, w, NULL, 12.0, 2, 1, 0.0, 0.02, 4, (carom_vec){0, 0, 0});
    n = scaled(30000);
    outcome o = play(&A, n, 0.06);
    report("box, advances of three windows", &A, o, n);
    CHECK(o.decisions >= 3 * n);
    carom_world_destroy(w);
}

/* An ellipse (semi-axes 6 and 4) as a caller's distance: b (1 - |(x/a, y/b)|) is 1-Lipschitz and zero on
   the boundary, so it never exceeds the true distance; stated with the bound 1.5 (the filter divides by it). */
static double ellipse_function(void *user, carom_vec p, carom_vec *gradient)
{
    (void)user;
    const double a = 6.0, b = 4.0;
    double q = sqrt((p.x / a) * (p.x / a) + (p.y / b) * (p.y / b));
    if (gradient) {
        double gx = p.x / (a * a), gy = p.y / (b * b), l = sqrt(gx * gx + gy * gy);
        *gradient = l > 0.0 ? (carom_vec){-gx / l, -gy / l, 0} : (carom_vec){1, 0, 0};
    }
    return b * (1.0 - q);
}

/* One steered body in each container shape. */
static void test_one_in_containers(void)
{
    carom_container_def d = carom_default_container_def();
    carom_container *shapes[7];
    const char *names[7] = {"circle", "rounded box", "polygon", "capsule", "annulus", "sphere",
                            "ellipse (a caller's function)"};
    d.shape = CAROM_SHAPE_BALL, d.dim = 2, d.radius = 5.0;
    shapes[0] = make(d);
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_ROUNDED_BOX, d.dim = 2, d.size = (carom_vec){9, 6, 0}, d.radius = 1.5;
    shapes[1] = make(d);
    const carom_vec hexagon[6] = {{5, 0, 0}, {2.5, 4.3, 0}, {-2.5, 4.3, 0}, {-5, 0, 0}, {-2.5, -4.3, 0}, {2.5, -4.3, 0}};
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_POLYGON, d.dim = 2, d.vertices = hexagon, d.vertex_count = 6;
    shapes[2] = make(d);
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_CAPSULE, d.dim = 2, d.a = (carom_vec){-3, 0, 0}, d.b = (carom_vec){3, 0, 0}, d.radius = 2.0;
    shapes[3] = make(d);
    carom_container_def outer = carom_default_container_def(), inner = carom_default_container_def();
    outer.shape = inner.shape = CAROM_SHAPE_BALL, outer.dim = inner.dim = 2, outer.radius = 5.0, inner.radius = 1.5;
    inner.centre = (carom_vec){0, 0, 0};
    carom_container *o = make(outer), *i = make(inner);
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_DIFFERENCE, d.dim = 2, d.first = o, d.second = i;
    shapes[4] = make(d);
    carom_container_destroy(o);
    carom_container_destroy(i);
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_BALL, d.dim = 3, d.radius = 5.0;
    shapes[5] = make(d);
    d = carom_default_container_def();
    d.shape = CAROM_SHAPE_FUNCTION, d.dim = 2, d.distance = ellipse_function, d.lipschitz = 1.5;
    d.lower = (carom_vec){-6, -4, 0}, d.upper = (carom_vec){6, 4, 0};
    shapes[6] = make(d);
    for (int s = 0; s < 7; s++) {
        int dim = s == 5 ? 3 : 2;
        carom_world *w = make_world(dim, 12.0, shapes[s]);
        arena A;
        carom_vec start = {s == 4 ? 3.2 : 0.0, 0, 0}; /* the annulus: in the ring */
        setup(&A, w, shapes[s], 12.0, dim, 1, 0.0, 1.0 / 30.0, 10 + (uint64_t)s, start);
        int64_t n = scaled(20000);
        report(names[s], &A, play(&A, n, 1.0 / 30.0), n);
        carom_world_destroy(w);
        carom_container_destroy(shapes[s]);
    }
}

static void test_several(void)
{
    carom_world *w = make_world(2, 14.0, NULL);
    arena A;
    setup(&A, w, NULL, 14.0, 2, 2, 3.0, 1.0 / 30.0, 21, (carom_vec){0, 0, 0});
    int64_t n = scaled(40000);
    report("two in a box", &A, play(&A, n, 1.0 / 30.0), n);
    carom_world_destroy(w);
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_BALL, d.dim = 2, d.radius = 6.5;
    carom_container *c = make(d);
    w = make_world(2, 14.0, c);
    setup(&A, w, c, 14.0, 2, 10, 4.0, 1.0 / 30.0, 22, (carom_vec){0, 0, 0});
    n = scaled(10000);
    report("ten in a circle", &A, play(&A, n, 1.0 / 30.0), n);
    carom_world_destroy(w);
    carom_container_destroy(c);
    w = make_world(3, 14.0, NULL);
    setup(&A, w, NULL, 14.0, 3, 10, 4.0, 0.05, 23, (carom_vec){0, 0, 0});
    n = scaled(5000);
    report("ten in a cube", &A, play(&A, n, 0.05), n);
    carom_world_destroy(w);
}

/* ---- snapshots ----------------------------------------------------------------------------------------- */

/* Ten steered bodies in a circle, saved in the middle of their holds (the
 * advance is 0.37 of the filter's window, so decisions and crossing events
 * are pending) and restored: the same inputs then give the same bits. A
 * forged record (ids out of order) is refused, naming it. */
static void test_snapshot_round_trip(void)
{
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_BALL, d.dim = 2, d.radius = 6.5;
    carom_container *c = make(d);
    carom_world *w = make_world(2, 14.0, c);
    arena A, B;
    setup(&A, w, c, 14.0, 2, 10, 4.0, 0.1, 31, (carom_vec){0, 0, 0});
    play(&A, 300, 0.037);
    size_t size = carom_world_snapshot_size(w);
    unsigned char *snap = malloc(size);
    CHECK_MSG(carom_world_snapshot(w, snap, size) == CAROM_OK, "%s", carom_world_message(w));
    carom_world *back = NULL;
    char why[256] = "";
    CHECK_MSG(carom_world_restore(snap, size, NULL, NULL, &back, why, sizeof why) == CAROM_OK, "%s", why);
    if (back) {
        B = A;
        B.w = back;
        outcome a = play(&A, 300, 0.037), b = play(&B, 300, 0.037);
        CHECK(a.collisions == 0 && b.collisions == 0);
        CHECK(a.acted == b.acted && a.decisions == b.decisions);
        for (int k = 0; k < A.n; k++) {
            carom_body_state p, q;
            carom_filter_result fp, fq;
            carom_world_get_body(w, A.id[k], &p);
            carom_world_get_body(back, A.id[k], &q);
            carom_world_get_body_filter(w, A.id[k], &fp);
            carom_world_get_body_filter(back, A.id[k], &fq);
            CHECK(memcmp(&p.position, &q.position, sizeof p.position) == 0);
            CHECK(memcmp(&p.velocity, &q.velocity, sizeof p.velocity) == 0);
            CHECK(memcmp(&fp.acceleration, &fq.acceleration, sizeof fp.acceleration) == 0);
            CHECK(fp.criticality == fq.criticality);
        }
        carom_world_destroy(back);
    }
    /* the second steered body's id becomes the first's: out of order */
    size_t steered_at = size - 4 - 113 - 10 * 140; /* ten records, then the circle's one node */
    memcpy(snap + steered_at + 140, snap + steered_at, 4);
    reseal_snapshot(snap, size);
    back = NULL;
    CHECK(carom_world_restore(snap, size, NULL, NULL, &back, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "steered body") != NULL && strstr(why, "increasing order") != NULL, "%s", why);
    free(snap);
    carom_world_destroy(w);
    carom_container_destroy(c);
}

/* ---- item 5: the least clearance over each window ------------------------------------------------------ */

/* One steered disk in a circle pushed at the wall (windows of 0.25: it
 * approaches, brakes and turns inside windows): the world's least clearance
 * of each window against the same path sampled 400 times per window in a
 * twin world (runs to instants inside a window change nothing): never above
 * the samples' least, and below it by no more than the path can dip between
 * two samples (speed x spacing). */
static void least_clearance_in(const carom_container *c, const char *what)
{
    carom_world *a = make_world(2, 12.0, c), *b = make_world(2, 12.0, c);
    double r = 0.5, dt = 0.25;
    int32_t ia = add(a, (carom_vec){2.0, 0.0, 0}, r), ib = add(b, (carom_vec){2.0, 0.0, 0}, r);
    carom_filter_def f = filter(CAROM_FILTER_LINEAR, 1.0, 0.5, dt);
    CHECK(carom_world_set_body_filter(a, ia, &f) == CAROM_OK && carom_world_set_body_filter(b, ib, &f) == CAROM_OK);
    int interior = 0;
    double worst_gap = 0.0;
    for (int k = 0; k < 160; k++) {
        double angle = 0.3 * k, t0 = carom_world_time(a);
        carom_vec push = {1.2 * cos(angle), 1.2 * sin(angle), 0}; /* round and round, at and beyond a_max */
        CHECK(carom_world_set_body_acceleration(a, ia, push) == CAROM_OK);
        CHECK(carom_world_set_body_acceleration(b, ib, push) == CAROM_OK);
        CHECK(carom_world_advance(a, dt) == CAROM_OK);
        CHECK(carom_world_advance(b, 0.0) == CAROM_OK); /* the same decision, then the same path in steps */
        double sampled = INFINITY, fastest = 0.0, ends = INFINITY;
        for (int j = 0; j <= 400; j++) {
            if (j > 0) CHECK(carom_world_run(b, t0 + dt * j / 400.0, -1) == CAROM_OK);
            carom_body_state s;
            carom_world_get_body(b, ib, &s);
            double clearance = c ? 5.0 - sqrt(s.position.x * s.position.x + s.position.y * s.position.y) - r
                                 : 6.0 - r - fmax(fabs(s.position.x), fabs(s.position.y));
            sampled = fmin(sampled, clearance);
            if (j == 0 || j == 400) ends = fmin(ends, clearance);
            fastest = fmax(fastest, len(s.velocity));
        }
        double least = NAN;
        CHECK(carom_world_get_least_clearance(a, ia, &least) == CAROM_OK);
        CHECK_MSG(least <= sampled + 1e-13 && sampled - least <= fastest * dt / 400.0 + 1e-12,
                  "window %d: least %.17g, sampled %.17g", k, least, sampled);
        worst_gap = fmax(worst_gap, sampled - least);
        interior += sampled < ends - 1e-9; /* the least came inside the window */
        carom_body_state sa, sb;
        carom_world_get_body(a, ia, &sa);
        carom_world_get_body(b, ib, &sb);
        CHECK(sa.position.x == sb.position.x && sa.position.y == sb.position.y);
        CHECK(least >= 0.0);
    }
    CHECK_MSG(interior >= 5, "%s: only %d windows had their least clearance inside", what, interior);
    printf("      least clearance, %s: %d of 160 windows reached it inside the window; the world's value below the "
           "400 samples' by at most %.3g\n", what, interior, worst_gap);
    double least;
    CHECK(carom_world_get_least_clearance(a, 99, &least) == CAROM_NOT_FOUND);
    carom_world_destroy(a);
    carom_world_destroy(b);
}

static void test_least_clearance(void)
{
    carom_container_def d = carom_default_container_def();
    d.shape = CAROM_SHAPE_BALL, d.dim = 2, d.radius = 5.0;
    carom_container *c = make(d);
    least_clearance_in(c, "circle");
    least_clearance_in(NULL, "box walls");
    carom_container_destroy(c);
}

/* ---- item 5: decisions inside the window ----------------------------------------------------------------- */

/* A body pushed at the right wall from rest at the centre, windows of dt (decisions held up to dt), sampled
   32 times per window (carom_world_run moves the clock without deciding) through its approach: until its
   speed has fallen to half its peak. The continuous filter's lambda (the pure function on the exact state,
   the same margin) against the lambda in force: how far the held filter lags, with and without the crossing
   events; and the peak v / v_max the body reached (how late the braking came). */
static void lag_run(int crossings, double dt, double *mean_lag, double *worst_lag, double *peak_ratio,
                    int64_t *decisions)
{
    carom_world *w = make_world(2, 40.0, NULL);
    int32_t id = add(w, (carom_vec){0, 0, 0}, 0.5);
    carom_filter_def d = filter(CAROM_FILTER_LINEAR, 1.0, 0.5, dt);
    CHECK(carom_world_set_body_filter(w, id, &d) == CAROM_OK);
    w->steering.no_crossings = !crossings;
    double lag = 0.0, worst = 0.0, peak = 0.0, top_speed = 0.0;
    int64_t samples = 0;
    int done = 0;
    for (int k = 0; k < 10000 && !done; k++) {
        CHECK(carom_world_set_body_acceleration(w, id, (carom_vec){1.0, 0, 0}) == CAROM_OK);
        double t0 = carom_world_time(w);
        CHECK(carom_world_advance(w, 0.0) == CAROM_OK); /* the window's decision, at its start */
        for (int m = 1; m <= 32 && !done; m++) {
            CHECK(carom_world_run(w, t0 + dt * m / 32.0, -1) == CAROM_OK);
            carom_body_state b;
            carom_filter_result held, ideal;
            carom_world_get_body(w, id, &b);
            carom_world_get_body_filter(w, id, &held);
            carom_vec g;
            double s = clearance_of(w, NULL, 40.0, 2, id, &g);
            carom_filter_apply(&d, s, g, b.velocity, (carom_vec){1.0, 0, 0}, &ideal);
            top_speed = fmax(top_speed, b.velocity.x);
            done = b.velocity.x < 0.5 * top_speed;
            lag += fabs(ideal.criticality - held.criticality);
            worst = fmax(worst, fabs(ideal.criticality - held.criticality));
            peak = fmax(peak, ideal.speed_ratio);
            samples++;
        }
    }
    *mean_lag = lag / (double)samples, *worst_lag = worst, *peak_ratio = peak, *decisions = w->steering.decisions;
    carom_body_state b;
    carom_world_get_body(w, id, &b);
    CHECK(b.collisions == 0);
    carom_world_destroy(w);
}

static void test_crossings_gain(void)
{
    const double dts[3] = {1.0, 0.5, 0.25};
    for (int i = 0; i < 3; i++) {
        double lag[2], worst[2], peak[2];
        int64_t decisions[2];
        for (int c = 0; c < 2; c++) lag_run(c, dts[i], &lag[c], &worst[c], &peak[c], &decisions[c]);
        printf("      dt %g, approaching a wall: |lambda - lambda in force| mean, worst; peak v/v_max; decisions: "
               "window starts only %.4f, %.4f; %.4f; %lld; with crossing events %.4f, %.4f; %.4f; %lld\n",
               dts[i], lag[0], worst[0], peak[0], (long long)decisions[0], lag[1], worst[1], peak[1],
               (long long)decisions[1]);
        CHECK(lag[1] <= lag[0] && worst[1] <= worst[0] && peak[1] <= peak[0]);
        if (i == 0) CHECK(lag[1] < 0.5 * lag[0] && worst[1] <= 0.125 + 1e-3 && peak[0] > 1.0 && peak[1] < 1.0);
    }
}

/* A crossing decision comes where v / v_max reaches the next level (lambda 1/8 more), to the skin. */
static void test_crossing_time(void)
{
    carom_world *w = make_world(2, 40.0, NULL);
    int32_t id = add(w, (carom_vec){16.6, 0, 0}, 0.5);
    carom_filter_def d = filter(CAROM_FILTER_LINEAR, 1.0, 0.5, 1.0);
    CHECK(carom_world_set_body_filter(w, id, &d) == CAROM_OK);
    CHECK(carom_world_set_body_velocity(w, id, (carom_vec){0.5, 0, 0}) == CAROM_OK);
    CHECK(carom_world_set_body_acceleration(w, id, (carom_vec){0.05, 0, 0}) == CAROM_OK);
    /* one long window: the first decision passes (far from the wall), the crossing comes inside */
    CHECK(carom_world_advance(w, 0.0) == CAROM_OK);
    carom_filter_result r;
    carom_world_get_body_filter(w, id, &r);
    CHECK(r.criticality == 0.0);
    int64_t before = w->steering.crossing_decisions;
    double t = carom_world_time(w);
    while (w->steering.crossing_decisions == before && t < 1.0) {
        t += 0.001;
        CHECK(carom_world_run(w, t, -1) == CAROM_OK);
    }
    carom_world_get_body_filter(w, id, &r);
    double level = 0.5 + 0.125 * 0.5;
    CHECK_MSG(w->steering.crossing_decisions > before, "no crossing in the window");
    CHECK_NEAR(r.speed_ratio, level, 1e-6);
    CHECK_NEAR(r.criticality, 0.125, 1e-5);
    carom_world_destroy(w);
}

int main(void)
{
    RUN(test_snapshot_round_trip);
    RUN(test_least_clearance);
    RUN(test_refusals);
    RUN(test_input_kept_apart);
    RUN(test_one_in_a_box);
    RUN(test_one_in_containers);
    RUN(test_several);
    RUN(test_crossings_gain);
    RUN(test_crossing_time);
    return CHECK_SUMMARY();
}
