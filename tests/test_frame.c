/* test_frame.c — the frame-based steppers (seeds 002 and 004) against closed
 * forms and the exact engine: bisection times of impact within eps of the
 * analytic time for disks, spheres and a caller's shape; a fast head-on pair
 * that the plain stepper lets through and the bisection stepper does not;
 * convergence to the exact engine as dt shrinks, with the order measured;
 * the impulse law's energy bookkeeping; seed 002's jammed row; the cell grid
 * against all pairs; reproducibility; bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "event_log.h"

static carom_body_state state_of(carom_vec x, carom_vec v, double radius)
{
    carom_body_state s;
    memset(&s, 0, sizeof s);
    s.position = x, s.velocity = v, s.radius = radius, s.mass = 1.0;
    return s;
}

/* ---- the time of impact ----------------------------------------------------- */

/* Contact of two spheres: |dr + dv t| = sigma, the earlier root. */
static double analytic_contact(carom_body_state a, carom_body_state b)
{
    double dr[3] = {b.position.x - a.position.x, b.position.y - a.position.y, b.position.z - a.position.z};
    double dv[3] = {b.velocity.x - a.velocity.x, b.velocity.y - a.velocity.y, b.velocity.z - a.velocity.z};
    double A = 0, B = 0, C = -(a.radius + b.radius) * (a.radius + b.radius);
    for (int k = 0; k < 3; k++) A += dv[k] * dv[k], B += dr[k] * dv[k], C += dr[k] * dr[k];
    return (-B - sqrt(B * B - A * C)) / A;
}

static void check_toi(carom_body_state a, carom_body_state b, carom_vec g, double dt, double eps)
{
    double toi, exact = analytic_contact(a, b);
    int steps = 0;
    CHECK(carom_time_of_impact(&a, &b, g, dt, eps, NULL, NULL, &toi, &steps) == CAROM_OK);
    CHECK_MSG(toi <= exact && exact - toi <= eps, "toi %.17g, exact %.17g, eps %g", toi, exact, eps);
    CHECK_MSG(steps <= 2 + (int)ceil(log2(dt / eps)), "%d steps for dt / eps = %g", steps, dt / eps);
}

static void test_toi_disks_and_spheres(void)
{
    carom_vec none = {0, 0, 0};
    /* head-on disks, unequal radii: contact at (4 - 1.5) / 3 */
    carom_body_state a = state_of((carom_vec){-2, 0, 0}, (carom_vec){1, 0, 0}, 0.5);
    carom_body_state b = state_of((carom_vec){2, 0, 0}, (carom_vec){-2, 0, 0}, 1.0);
    CHECK_NEAR(analytic_contact(a, b), 2.5 / 3.0, 1e-15);
    for (double eps = 1e-2; eps >= 1e-12; eps /= 100) check_toi(a, b, none, 1.0, eps);
    /* oblique disks and spheres at random */
    carom_rng rng = carom_rng_seed(4);
    for (int k = 0; k < 200; k++) {
        double z = k % 2 ? carom_rng_uniform(&rng) - 0.5 : 0.0; /* odd: spheres */
        a = state_of((carom_vec){0, 0, 0}, (carom_vec){0, 0, 0}, 0.3 + carom_rng_uniform(&rng));
        b = state_of((carom_vec){4, carom_rng_uniform(&rng) - 0.5, z},
                     (carom_vec){-2 - carom_rng_uniform(&rng), carom_rng_uniform(&rng) - 0.5, z}, 0.5);
        double contact = analytic_contact(a, b); /* overlapping 0.01 later */
        if (isnan(contact)) continue;             /* they miss */
        check_toi(a, b, none, contact + 0.01, 1e-9);
    }
    /* gravity acts on both alike: the relative motion stays straight */
    a = state_of((carom_vec){-2, 0, 0}, (carom_vec){1, 3, 0}, 0.5);
    b = state_of((carom_vec){2, 0, 0}, (carom_vec){-1, 3, 0}, 0.5);
    check_toi(a, b, (carom_vec){0, -9.8, 0}, 2.0, 1e-10);
    /* apart at dt: no contact; touching at 0: 0 */
    double toi;
    b.position.x = 20;
    CHECK(carom_time_of_impact(&a, &b, none, 1.0, 1e-6, NULL, NULL, &toi, NULL) == CAROM_OK && isinf(toi));
    b.position.x = -1.5;
    CHECK(carom_time_of_impact(&a, &b, none, 1.0, 1e-6, NULL, NULL, &toi, NULL) == CAROM_OK && toi == 0.0);
    CHECK(carom_time_of_impact(&a, &b, none, 1.0, 0.0, NULL, NULL, &toi, NULL) == CAROM_INVALID_ARGUMENT);
}

/* Axis-aligned squares of half side = radius: a shape only the caller knows. */
static int squares_overlap(void *user, const carom_body_state *a, const carom_body_state *b)
{
    int *calls = user;
    (*calls)++;
    double h = a->radius + b->radius;
    return fabs(a->position.x - b->position.x) < h && fabs(a->position.y - b->position.y) < h;
}

static void test_toi_any_shape(void)
{
    int calls = 0;
    /* squares approaching diagonally: their corners meet when the x gap
     * (3 - 1) closes at speed 2, while circles would meet later */
    carom_body_state a = state_of((carom_vec){0, 0, 0}, (carom_vec){1, 1, 0}, 0.5);
    carom_body_state b = state_of((carom_vec){3, 3, 0}, (carom_vec){-1, -1, 0}, 0.5);
    double toi;
    CHECK(carom_time_of_impact(&a, &b, (carom_vec){0, 0, 0}, 1.5, 1e-9, squares_overlap, &calls, &toi, NULL) ==
          CAROM_OK);
    CHECK(toi <= 1.0 && 1.0 - toi <= 1e-9);
    CHECK(calls > 20);
    CHECK(analytic_contact(a, b) > 1.1); /* the disks of the same radius meet later */
}

/* ---- the head-on pair -------------------------------------------------------- */


static carom_world_def box_2d(double side, carom_boundary boundary)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){side, side, 0};
    def.boundary[0] = def.boundary[1] = boundary;
    return def;
}

static carom_frame *make_frame(const carom_world_def *w, const carom_body_def *bodies, int32_t n,
                               carom_frame_method method, double dt, event_log *log)
{
    carom_frame_def def = carom_default_frame_def();
    def.method = method;
    def.dt = dt;
    if (log) memset(log, 0, sizeof *log), def.on_event = record, def.user = log;
    carom_frame *f = NULL;
    char why[256];
    carom_status st = carom_frame_create(w, bodies, n, &def, &f, why, sizeof why);
    CHECK_MSG(st == CAROM_OK, "%s", why);
    return f;
}

static carom_body_def body_at(double x, double y, double vx, double vy)
{
    carom_body_def b = carom_default_body_def();
    b.position = (carom_vec){x, y, 0}, b.velocity = (carom_vec){vx, vy, 0};
    return b;
}

static carom_body_state frame_body(const carom_frame *f, int32_t id)
{
    carom_body_state s;
    memset(&s, 0, sizeof s);
    CHECK(carom_frame_get_body(f, id, &s) == CAROM_OK);
    return s;
}

static void test_head_on_tunnelling(void)
{
    /* Unit disks 3 apart closing at 40: contact at t = 2 / 40 = 0.05. With
     * dt = 0.09 the first frame end finds them overlapping by 0.4 with their
     * centres already past each other. */
    carom_world_def w = box_2d(40, CAROM_PERIODIC);
    carom_body_def bodies[2] = {body_at(-1.5, 0, 20, 0), body_at(1.5, 0, -20, 0)};
    double contact = 2.0 / 40.0, dt = 0.09;
    event_log plain_log, bisect_log;
    carom_frame *plain = make_frame(&w, bodies, 2, CAROM_FRAME_PLAIN, dt, &plain_log);
    carom_frame *bisect = make_frame(&w, bodies, 2, CAROM_FRAME_BISECTION, dt, &bisect_log);
    if (!plain || !bisect) return;
    CHECK(carom_frame_run(plain, 2) == CAROM_OK);
    CHECK(carom_frame_run(bisect, 2) == CAROM_OK);
    carom_frame_stats ps = carom_frame_get_stats(plain), bs = carom_frame_get_stats(bisect);
    /* plain: the overlap is found receding, so no impulse: they pass through */
    CHECK_EQ_INT(ps.pair_collisions, 0);
    CHECK_EQ_INT(ps.receding_overlaps, 1);
    CHECK_EQ_INT(plain_log.count, 0);
    CHECK_NEAR(frame_body(plain, 0).velocity.x, 20.0, 0.0);
    CHECK(frame_body(plain, 0).position.x > frame_body(plain, 1).position.x);
    /* bisection: one collision, within eps of the analytic time, velocities exchanged */
    CHECK_EQ_INT(bs.pair_collisions, 1);
    CHECK_EQ_INT(bisect_log.count, 1);
    double eps = ldexp(dt, -20);
    CHECK_MSG(bisect_log.events[0].time <= contact && contact - bisect_log.events[0].time <= eps,
              "collision at %.17g, analytic %.17g", bisect_log.events[0].time, contact);
    CHECK_NEAR(frame_body(bisect, 0).velocity.x, -20.0, 1e-12);
    CHECK_NEAR(frame_body(bisect, 1).velocity.x, 20.0, 1e-12);
    CHECK_NEAR(frame_body(bisect, 0).position.x, -0.5 - 20.0 * (2 * dt - contact), 40 * eps);
    CHECK(bs.max_penetration < 1e-12);
    carom_frame_destroy(plain);
    carom_frame_destroy(bisect);
}

/* ---- convergence to the exact engine --------------------------------------- */

/* A dilute gas of disks in a walled box, built as a world. */
static carom_world *dilute_gas(int32_t n, double side, uint64_t seed)
{
    carom_world_def def = box_2d(side, CAROM_WALLS);
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_rng rng = carom_rng_seed(seed);
    for (int32_t added = 0; added < n;) {
        carom_body_def b = body_at((carom_rng_uniform(&rng) - 0.5) * (side - 1.2),
                                   (carom_rng_uniform(&rng) - 0.5) * (side - 1.2), carom_rng_normal(&rng),
                                   carom_rng_normal(&rng));
        if (carom_world_add_body(w, &b, NULL) == CAROM_OK) added++;
    }
    return w;
}

static double rms_error(const carom_world *w, const carom_frame *f)
{
    double sum = 0.0;
    int32_t n = carom_world_body_count(w);
    for (int32_t i = 0; i < n; i++) {
        carom_body_state e, s = frame_body(f, i);
        carom_world_get_body(w, i, &e);
        double dx = s.position.x - e.position.x, dy = s.position.y - e.position.y;
        sum += dx * dx + dy * dy;
    }
    return sqrt(sum / n);
}

/* Least-squares slope of log(err) against log(dt). */
static double fitted_order(const double *dt, const double *err, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int k = 0; k < n; k++) {
        double x = log(dt[k]), y = log(err[k]);
        sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

static void test_convergence(void)
{
    enum { STEPS = 4 };
    /* 60 unit disks in a 40 x 40 box (area fraction 3%) up to t = 2: about
     * 15 pair collisions, few enough that chaos does not amplify the
     * differences beyond the linear regime. */
    const double until = 2.0;
    carom_world *exact = dilute_gas(60, 40.0, 7), *initial = dilute_gas(60, 40.0, 7);
    CHECK(carom_world_run(exact, until, -1) == CAROM_OK);
    CHECK(carom_world_stats(exact).pair_events >= 10); /* enough collisions to matter */
    carom_frame *start[2];
    carom_frame_def def = carom_default_frame_def();
    double dts[STEPS] = {4e-3, 2e-3, 1e-3, 5e-4}, err[2][STEPS];
    for (int k = 0; k < STEPS; k++)
        for (int m = 0; m < 2; m++) {
            def.method = m ? CAROM_FRAME_BISECTION : CAROM_FRAME_PLAIN;
            def.dt = dts[k];
            CHECK(carom_frame_create_from_world(initial, &def, &start[m], NULL, 0) == CAROM_OK);
            CHECK(carom_frame_run(start[m], (int64_t)llround(until / dts[k])) == CAROM_OK);
            CHECK_NEAR(carom_frame_time(start[m]), until, 1e-12);
            err[m][k] = rms_error(exact, start[m]);
            carom_frame_destroy(start[m]);
        }
    double plain_order = fitted_order(dts, err[0], STEPS), bisect_order = fitted_order(dts, err[1], STEPS);
    printf("  rms error at t = %g, dt = 4e-3 .. 5e-4: plain %.3g .. %.3g (order %.2f), bisection %.3g .. %.3g "
           "(order %.2f)\n",
           until, err[0][0], err[0][STEPS - 1], plain_order, err[1][0], err[1][STEPS - 1], bisect_order);
    for (int k = 0; k < STEPS; k++) {
        /* collisions late by up to dt: errors of order v dt */
        CHECK_MSG(err[0][k] <= 5.0 * dts[k], "plain: error %g at dt %g", err[0][k], dts[k]);
        /* times of impact early by up to eps = dt / 2^20 */
        CHECK_MSG(err[1][k] <= 1e-4 * dts[k], "bisection: error %g at dt %g", err[1][k], dts[k]);
    }
    CHECK_MSG(plain_order > 0.7 && plain_order < 1.4, "plain stepper: order %.3f, expected about 1", plain_order);
    CHECK_MSG(bisect_order > 0.7, "bisection stepper: order %.3f, expected about 1", bisect_order);
    carom_world_destroy(exact);
    carom_world_destroy(initial);
}

/* ---- energy ----------------------------------------------------------------- */

static double frame_energy(const carom_frame *f)
{
    carom_frame_stats s = carom_frame_get_stats(f);
    return s.kinetic_energy + s.potential_energy;
}

static void test_energy(void)
{
    /* a gas under gravity in a walled box: the exact engine conserves energy
     * to round-off; so does the plain stepper, because the impulse law
     * conserves it whatever the contact geometry and flights are exact
     * (seed 002, 2.1.1: penetration "does not influence the overall
     * energy"); what it gets wrong is where and when (see test_convergence). */
    carom_world *w = dilute_gas(150, 20.0, 11), *initial = dilute_gas(150, 20.0, 11);
    carom_world_def def = carom_world_definition(w);
    CHECK(def.restitution == 1.0);
    carom_stats s0 = carom_world_stats(w);
    CHECK(carom_world_run(w, 5.0, -1) == CAROM_OK);
    carom_stats s1 = carom_world_stats(w);
    CHECK(s1.pair_events > 100);
    CHECK_NEAR(s1.kinetic_energy, s0.kinetic_energy, 1e-12 * s0.kinetic_energy);
    carom_frame_def fd = carom_default_frame_def();
    fd.dt = 0.01;
    carom_frame *f = NULL;
    CHECK(carom_frame_create_from_world(initial, &fd, &f, NULL, 0) == CAROM_OK);
    double e0 = frame_energy(f);
    CHECK_NEAR(e0, s0.kinetic_energy, 1e-12 * e0);
    CHECK(carom_frame_run(f, 500) == CAROM_OK);
    carom_frame_stats fs = carom_frame_get_stats(f);
    CHECK(fs.pair_collisions > 100 && fs.max_penetration > 0.0 && fs.mean_penetration > 0.0);
    CHECK(fs.mean_penetration <= fs.max_penetration);
    CHECK_NEAR(frame_energy(f), e0, 1e-12 * e0);
    carom_frame_destroy(f);
    carom_world_destroy(w);
    carom_world_destroy(initial);
}

/* ---- seed 002's jammed row -------------------------------------------------- */

static void test_jammed_row(void)
{
    /* three unit disks squeezed between walls, overlapping each
     * other and both walls (2.6 apart), the first pushed right: at e = 1 every impulse
     * makes another, for ever */
    carom_world_def w = box_2d(10, CAROM_WALLS);
    w.box.x = 2.6;
    carom_body_def bodies[3] = {body_at(-0.9, 0, 1, 0), body_at(0, 0, 0, 0), body_at(0.9, 0, 0, 0)};
    for (int m = 0; m < 2; m++) {
        carom_frame *f = make_frame(&w, bodies, 3, m ? CAROM_FRAME_BISECTION : CAROM_FRAME_PLAIN, 0.01, NULL);
        if (!f) return;
        CHECK(carom_frame_run(f, 3) == CAROM_JAMMED);
        CHECK_MSG(strstr(carom_frame_message(f), m ? "jammed at t = 0: body" : "jammed at t = 0.01: body") != NULL, "%s", carom_frame_message(f));
        carom_frame_stats s = carom_frame_get_stats(f);
        CHECK(s.jammed_frames >= 1 && s.frames == 3);
        CHECK_NEAR(carom_frame_time(f), 0.03, 1e-15); /* every frame was completed */
        CHECK(s.pair_collisions + s.wall_collisions >= 100);
        carom_frame_destroy(f);
    }
    /* the same row with room to spare resolves */
    w.box.x = 4.0;
    carom_frame *f = make_frame(&w, bodies, 3, CAROM_FRAME_PLAIN, 0.01, NULL);
    if (!f) return;
    CHECK(carom_frame_run(f, 3) == CAROM_OK);
    CHECK_EQ_INT(carom_frame_get_stats(f).jammed_frames, 0);
    carom_frame_destroy(f);
}

/* ---- the grid against all pairs; reproducibility ------------------------------ */

static int same_bits(const carom_frame *a, const carom_frame *b)
{
    for (int32_t i = 0; i < carom_frame_body_count(a); i++) {
        carom_body_state p = frame_body(a, i), q = frame_body(b, i);
        if (memcmp(&p.position, &q.position, sizeof p.position) || memcmp(&p.velocity, &q.velocity, sizeof p.velocity))
            return 0;
    }
    return 1;
}

static carom_world *dense_gas(void)
{
    carom_world_def def = box_2d(24, CAROM_PERIODIC);
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_rng rng = carom_rng_seed(3);
    for (int k = 0; k < 20; k++) /* a 20 x 20 square lattice: area fraction 0.55 */
        for (int m = 0; m < 20; m++) {
            carom_body_def b = body_at(-12 + 1.2 * (k + 0.5), -12 + 1.2 * (m + 0.5), carom_rng_normal(&rng),
                                       carom_rng_normal(&rng));
            CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
        }
    return w;
}

static void test_grid_and_reproducibility(void)
{
    carom_world *w = dense_gas();
    for (int m = 0; m < 2; m++) {
        carom_frame_def def = carom_default_frame_def();
        def.method = m ? CAROM_FRAME_BISECTION : CAROM_FRAME_PLAIN;
        def.dt = 0.02;
        carom_frame *grid, *all, *again, *shifted;
        CHECK(carom_frame_create_from_world(w, &def, &grid, NULL, 0) == CAROM_OK);
        CHECK(carom_frame_create_from_world(w, &def, &again, NULL, 0) == CAROM_OK);
        CHECK(carom_frame_create_from_world(w, &def, &shifted, NULL, 0) == CAROM_OK);
        def.all_pairs = 1;
        CHECK(carom_frame_create_from_world(w, &def, &all, NULL, 0) == CAROM_OK);
        CHECK(carom_frame_run(grid, 50) == CAROM_OK && carom_frame_run(all, 50) == CAROM_OK);
        CHECK(carom_frame_run(again, 50) == CAROM_OK);
        /* the same frames, offset by half a frame */
        CHECK(carom_frame_step(shifted, 0.01) == CAROM_OK && carom_frame_run(shifted, 49) == CAROM_OK &&
              carom_frame_step(shifted, 0.01) == CAROM_OK);
        carom_frame_stats gs = carom_frame_get_stats(grid), as = carom_frame_get_stats(all);
        CHECK(gs.pair_collisions > 200);
        CHECK(same_bits(grid, all));
        CHECK(same_bits(grid, again));
        CHECK_EQ_INT(gs.pair_collisions, as.pair_collisions);
        CHECK(as.pair_checks >= 50LL * 400 * 399 / 2);     /* n^2 / 2 per frame at least */
        CHECK(gs.pair_checks * 10 < as.pair_checks);       /* the grid looks at far fewer */
        CHECK(!same_bits(grid, shifted));                   /* frame timing changes the result */
        CHECK_NEAR(carom_frame_time(shifted), 1.0, 1e-14);
        carom_frame_destroy(grid), carom_frame_destroy(all), carom_frame_destroy(again), carom_frame_destroy(shifted);
    }
    carom_world_destroy(w);
}

/* ---- geometry: 3D, periodic wrap, gravity; the caller's shape in a stepper ---- */

static void test_flight_3d(void)
{
    carom_world_def w = carom_default_world_def();
    w.box = (carom_vec){10, 10, 10};
    w.boundary[2] = CAROM_WALLS;
    w.gravity = (carom_vec){0, 0, -1};
    carom_body_def b = carom_default_body_def();
    b.position = (carom_vec){4, 0, 0}, b.velocity = (carom_vec){3, 0.5, 0};
    carom_frame_def def = carom_default_frame_def();
    def.dt = 0.01;
    for (int m = 0; m < 2; m++) {
        def.method = m ? CAROM_FRAME_BISECTION : CAROM_FRAME_PLAIN;
        carom_frame *f = NULL;
        CHECK(carom_frame_create(&w, &b, 1, &def, &f, NULL, 0) == CAROM_OK);
        CHECK(carom_frame_run(f, 100) == CAROM_OK);
        carom_body_state s = frame_body(f, 0);
        CHECK_NEAR(s.position.x, 7.0 - 10.0, 1e-12); /* wrapped */
        CHECK_NEAR(s.position.y, 0.5, 1e-12);
        CHECK_NEAR(s.position.z, -0.5, 1e-12);
        CHECK_NEAR(s.velocity.z, -1.0, 1e-12);
        carom_frame_destroy(f);
    }
}

static int small_squares(void *user, const carom_body_state *a, const carom_body_state *b)
{
    (void)user; /* squares inscribed in the bodies' circles: half side r / sqrt 2 */
    double h = (a->radius + b->radius) / sqrt(2.0);
    return fabs(a->position.x - b->position.x) < h && fabs(a->position.y - b->position.y) < h;
}

static void test_shape_in_stepper(void)
{
    carom_world_def w = box_2d(40, CAROM_WALLS);
    carom_body_def bodies[2] = {body_at(-1.5, 0, 1, 0), body_at(1.5, 0, -1, 0)};
    carom_frame_def def = carom_default_frame_def();
    event_log log;
    memset(&log, 0, sizeof log);
    def.method = CAROM_FRAME_BISECTION, def.dt = 0.1, def.eps = 1e-10;
    def.overlap = small_squares, def.on_event = record, def.user = &log;
    carom_frame *f = NULL;
    CHECK(carom_frame_create(&w, bodies, 2, &def, &f, NULL, 0) == CAROM_OK);
    CHECK(carom_frame_run(f, 20) == CAROM_OK);
    double contact = (3.0 - 1.0 / sqrt(2.0)) / 2.0; /* the squares' faces meet */
    CHECK_EQ_INT(log.count, 1);
    CHECK_MSG(log.events[0].time <= contact && contact - log.events[0].time <= 1e-10, "at %.17g, expected %.17g",
              log.events[0].time, contact);
    carom_frame_destroy(f);
}

/* ---- bad input ------------------------------------------------------------ */

static void test_bad_input(void)
{
    carom_world_def w = box_2d(10, CAROM_WALLS);
    carom_body_def bodies[2] = {body_at(0, 0, 1, 0), body_at(7, 0, 0, 0)};
    carom_frame_def def = carom_default_frame_def();
    carom_frame *f = (carom_frame *)&w;
    char why[256];
    CHECK(carom_frame_create(&w, bodies, 2, &def, &f, why, sizeof why) == CAROM_OUTSIDE_BOX && f == NULL);
    CHECK_MSG(strstr(why, "body 1: position.x = 7") != NULL, "%s", why);
    bodies[1].position.x = 2;
    def.dt = 0;
    CHECK(carom_frame_create(&w, bodies, 2, &def, &f, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "frame_def.dt = 0") != NULL, "%s", why);
    def = carom_default_frame_def();
    bodies[0].radius = -1;
    CHECK(carom_frame_create(&w, bodies, 2, &def, &f, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "body 0: radius = -1") != NULL, "%s", why);
    bodies[0].radius = 2;
    w.boundary[0] = CAROM_PERIODIC;
    CHECK(carom_frame_create(&w, bodies, 2, &def, &f, why, sizeof why) == CAROM_BOX_TOO_SMALL);
    w.dim = 4;
    CHECK(carom_frame_create(&w, bodies, 2, &def, &f, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "dim = 4") != NULL, "%s", why);
    /* a good one, and calls it refuses */
    w = box_2d(10, CAROM_WALLS);
    bodies[0].radius = 0.5;
    CHECK(carom_frame_create(&w, bodies, 2, &def, &f, why, sizeof why) == CAROM_OK);
    CHECK(carom_frame_step(f, -1) == CAROM_INVALID_ARGUMENT);
    CHECK(carom_frame_run(f, -1) == CAROM_INVALID_ARGUMENT);
    carom_body_state s;
    CHECK(carom_frame_get_body(f, 2, &s) == CAROM_NOT_FOUND);
    CHECK(carom_frame_time(f) == 0.0);
    carom_frame_destroy(f);
}

int main(void)
{
    RUN(test_toi_disks_and_spheres);
    RUN(test_toi_any_shape);
    RUN(test_head_on_tunnelling);
    RUN(test_convergence);
    RUN(test_energy);
    RUN(test_jammed_row);
    RUN(test_grid_and_reproducibility);
    RUN(test_flight_3d);
    RUN(test_shape_in_stepper);
    RUN(test_bad_input);
    return CHECK_SUMMARY();
}
