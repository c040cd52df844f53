/* test_impulse.c — the collision laws with rotation of src/impulse.c against
 * closed forms worked by hand and against conservation laws computed here
 * from the bodies' states (not from the law's own bookkeeping):
 *   rough spheres: a sphere hitting a wall at a known angle and spin (worked
 *     by hand below); g_n' = -e g_n and g_t' = -beta g_t from the new states;
 *     the kinetic energy lost against the closed form for random e, beta;
 *     energy conserved at e = 1, beta = +-1; linear momentum and angular
 *     momentum about the contact point conserved (2D and 3D, random pairs);
 *     beta = -1 against collide_pair (src/collide.c) to a few ulps, spins
 *     untouched;
 *   general 2D shapes: the disk law for lever arms along n (frictionless =
 *     smooth, sticking = rough at beta = 0); a box hit off-centre by a disk
 *     (worked by hand); a box landing flat on the floor gets no spin (and a
 *     corner landing does, so the check can fail); Coulomb friction: sticking
 *     stops sliding inside the cone, sliding takes exactly mu j, energy never
 *     increases, momentum and angular momentum about the contact conserved.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "carom.h"
#include "check.h"
#include "collide.h"
#include "impulse.h"

enum { RANDOM_CASES = 20000 };

static double uniform(carom_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * carom_rng_uniform(rng);
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double sphere_energy(const impulse_sphere *s)
{
    return 0.5 * s->mass * dot3(s->v, s->v) + 0.5 * s->inertia * dot3(s->w, s->w);
}

/* A random unit vector (in the xy plane when dim = 2). */
static void random_unit(carom_rng *rng, int dim, double n[3])
{
    double len;
    do {
        n[0] = uniform(rng, -1, 1);
        n[1] = uniform(rng, -1, 1);
        n[2] = dim == 3 ? uniform(rng, -1, 1) : 0.0;
        len = sqrt(dot3(n, n));
    } while (len < 0.1 || len > 1.0);
    for (int a = 0; a < 3; a++) n[a] /= len;
}

/* A random sphere (disk when dim = 2: spin along z, no z motion); its inertia
 * anywhere from a thin shell's 2/3 m a^2 down to a point-like 0.05 m a^2. */
static impulse_sphere random_sphere(carom_rng *rng, int dim)
{
    impulse_sphere s = {.mass = exp(uniform(rng, -2, 2)), .radius = exp(uniform(rng, -1, 1))};
    s.inertia = uniform(rng, 0.05, 0.67) * s.mass * s.radius * s.radius;
    for (int a = 0; a < dim; a++) s.v[a] = uniform(rng, -3, 3);
    if (dim == 3)
        for (int a = 0; a < 3; a++) s.w[a] = uniform(rng, -3, 3);
    else
        s.w[2] = uniform(rng, -3, 3);
    return s;
}

/* g = v1 - v2 - (a1 w1 + a2 w2) x n, computed here from the states. */
static void relative_contact_velocity(const impulse_sphere *s1, const impulse_sphere *s2,
                                      const double n[3], double g[3])
{
    double spin[3], sweep[3];
    for (int a = 0; a < 3; a++) spin[a] = s1->radius * s1->w[a] + s2->radius * s2->w[a];
    cross3(spin, n, sweep);
    for (int a = 0; a < 3; a++) g[a] = s1->v[a] - s2->v[a] - sweep[a];
}

/* ---- rough spheres ---- */

/* A solid sphere (m = 1, a = 1, I = 2/5) hits the floor (n = +y) with
 * v = (3, -4, 0) and spin w = (0, 0, 2); e = 1/2, beta = 2/5. By hand:
 * w x n = (-2, 0, 0), so g = v - a w x n = (5, -4, 0): g_n = -4, g_t = (5, 0, 0).
 * m = 1 (the wall is infinite), k = a^2/I = 5/2, m_t = 1/(1 + 5/2) = 2/7.
 * P_n = -(1 + 1/2)(1)(-4) = 6, P_t = -(1 + 2/5)(2/7)(5) = -2: P = (-2, 6, 0).
 * v' = v + P = (1, 2, 0); n x P = (0, 0, 2), w' = w - (a/I) n x P = (0, 0, -3).
 * Check: g' = (1, 2, 0) - (3, 0, 0) = (-2, 2, 0): g_n' = 2 = -e g_n,
 * g_t' = -2 = -beta 5. Energy 12.5 + 0.8 = 13.3 before, 2.5 + 1.8 = 4.3 after:
 * 9 lost = (1/2)(3/4)(16) + (1/2)(2/7)(21/25)(25) = 6 + 3. */
static void test_rough_sphere_wall_by_hand(void)
{
    impulse_sphere s = {.v = {3, -4, 0}, .w = {0, 0, 2}, .mass = 1, .inertia = 0.4, .radius = 1};
    const double n[3] = {0, 1, 0};
    impulse_rough_result r;
    CHECK_EQ_INT(impulse_rough_wall(&s, n, 0.5, 0.4, &r), 1);
    const double tol = 1e-14;
    CHECK_NEAR(r.impulse[0], -2, tol);
    CHECK_NEAR(r.impulse[1], 6, tol);
    CHECK_NEAR(r.impulse[2], 0, 0);
    CHECK_NEAR(s.v[0], 1, tol);
    CHECK_NEAR(s.v[1], 2, tol);
    CHECK_NEAR(s.v[2], 0, 0);
    CHECK_NEAR(s.w[0], 0, 0);
    CHECK_NEAR(s.w[1], 0, 0);
    CHECK_NEAR(s.w[2], -3, tol);
    CHECK_NEAR(r.reduced_mass, 1, tol);
    CHECK_NEAR(r.tangential_mass, 2.0 / 7.0, tol);
    CHECK_NEAR(r.energy_lost, 9, 1e-13);
    CHECK_NEAR(13.3 - sphere_energy(&s), 9, 1e-13);

    /* The same sphere spinning the other way in 3D: w = (2, 0, 0) about x,
     * moving along z: v = (0, -4, 3). w x n = (0, 0, 2), g = (0, -4, 1):
     * P_t = -(7/5)(2/7)(1) = -2/5 along z, v' = (0, 2, 13/5),
     * n x P = (-2/5, 0, 0) ... w' = (2, 0, 0) - (5/2)(-2/5, 0, 0) = (3, 0, 0). */
    impulse_sphere s3 = {.v = {0, -4, 3}, .w = {2, 0, 0}, .mass = 1, .inertia = 0.4, .radius = 1};
    CHECK_EQ_INT(impulse_rough_wall(&s3, n, 0.5, 0.4, &r), 1);
    CHECK_NEAR(s3.v[0], 0, 0);
    CHECK_NEAR(s3.v[1], 2, tol);
    CHECK_NEAR(s3.v[2], 2.6, tol);
    CHECK_NEAR(s3.w[0], 3, tol);
    CHECK_NEAR(s3.w[1], 0, 0);
    CHECK_NEAR(s3.w[2], 0, 0);

    /* Moving away from the wall: left alone. */
    impulse_sphere away = {.v = {3, 4, 0}, .w = {0, 0, 2}, .mass = 1, .inertia = 0.4, .radius = 1};
    CHECK_EQ_INT(impulse_rough_wall(&away, n, 0.5, 0.4, &r), 0);
    CHECK(away.v[1] == 4 && away.w[2] == 2);
}

/* For random pairs and walls, 2D and 3D: the new states give g_n' = -e g_n,
 * g_t' = -beta g_t; the energy lost matches the closed form; at e = 1 and
 * beta = +-1 nothing is lost; linear momentum and the angular momentum about
 * the contact point c (x1 = c + a1 n, x2 = c - a2 n) are conserved. */
static void rough_case(carom_rng *rng, int dim, int wall, double e, double beta, double *worst)
{
    impulse_sphere s1 = random_sphere(rng, dim), s2 = random_sphere(rng, dim);
    double n[3];
    random_unit(rng, dim, n);
    if (wall) s2 = (impulse_sphere){.mass = INFINITY, .inertia = INFINITY, .radius = 0};
    double g[3];
    relative_contact_velocity(&s1, &s2, n, g);
    if (dot3(g, n) >= 0)
        for (int a = 0; a < 3; a++) s1.v[a] -= 2.0 * dot3(g, n) * n[a]; /* make it approach */
    relative_contact_velocity(&s1, &s2, n, g);
    double gn = dot3(g, n), gt[3];
    for (int a = 0; a < 3; a++) gt[a] = g[a] - gn * n[a];
    double energy = sphere_energy(&s1) + (wall ? 0.0 : sphere_energy(&s2));
    double p_before[3], l_before[3], l_after[3], arm1[3], arm2[3], m1[3], m2[3];
    for (int a = 0; a < 3; a++) {
        p_before[a] = s1.mass * s1.v[a] + (wall ? 0 : s2.mass * s2.v[a]);
        arm1[a] = s1.radius * n[a];
        arm2[a] = -s2.radius * n[a];
    }
    cross3(arm1, s1.v, m1);
    cross3(arm2, s2.v, m2);
    for (int a = 0; a < 3; a++)
        l_before[a] = s1.mass * m1[a] + s1.inertia * s1.w[a] +
                      (wall ? 0 : s2.mass * m2[a] + s2.inertia * s2.w[a]);

    impulse_rough_result r;
    int applied = wall ? impulse_rough_wall(&s1, n, e, beta, &r)
                       : impulse_rough_pair(&s1, &s2, n, e, beta, &r);
    CHECK_EQ_INT(applied, 1);
    double g_after[3];
    relative_contact_velocity(&s1, &s2, n, g_after);
    double scale = sqrt(dot3(g, g)) + 1.0;
    for (int a = 0; a < 3; a++)
        worst[0] = fmax(worst[0], fabs(g_after[a] - (-e * gn * n[a] - beta * gt[a])) / scale);

    double m_red = wall ? s1.mass : s1.mass * s2.mass / (s1.mass + s2.mass);
    double k = s1.radius * s1.radius / s1.inertia + (wall ? 0 : s2.radius * s2.radius / s2.inertia);
    double m_t = m_red / (1.0 + m_red * k);
    double closed =
        0.5 * m_red * (1 - e * e) * gn * gn + 0.5 * m_t * (1 - beta * beta) * dot3(gt, gt);
    double lost = energy - sphere_energy(&s1) - (wall ? 0.0 : sphere_energy(&s2));
    worst[1] = fmax(worst[1], fabs(lost - closed) / energy);
    worst[1] = fmax(worst[1], fabs(r.energy_lost - closed) / energy);

    if (wall) return;
    cross3(arm1, s1.v, m1);
    cross3(arm2, s2.v, m2);
    double p_scale = s1.mass * sqrt(dot3(s1.v, s1.v)) + s2.mass * sqrt(dot3(s2.v, s2.v)) + 1.0;
    for (int a = 0; a < 3; a++) {
        l_after[a] =
            s1.mass * m1[a] + s1.inertia * s1.w[a] + s2.mass * m2[a] + s2.inertia * s2.w[a];
        worst[2] =
            fmax(worst[2], fabs(s1.mass * s1.v[a] + s2.mass * s2.v[a] - p_before[a]) / p_scale);
        worst[3] = fmax(worst[3],
                        fabs(l_after[a] - l_before[a]) / (p_scale * (s1.radius + s2.radius) + 1.0));
    }
}

static void test_rough_random_laws(void)
{
    carom_rng rng = carom_rng_seed(14);
    const double betas[] = {-1, 1};
    for (int dim = 2; dim <= 3; dim++)
        for (int wall = 0; wall <= 1; wall++) {
            double worst[4] = {0}, worst_elastic[4] = {0};
            for (int i = 0; i < RANDOM_CASES; i++) {
                double e = i % 10 == 0 ? (i % 20 == 0 ? 0.0 : 1.0) : uniform(&rng, 0, 1);
                double beta = i % 10 == 5 ? (i % 20 == 5 ? -1.0 : 1.0) : uniform(&rng, -1, 1);
                rough_case(&rng, dim, wall, e, beta, worst);
                rough_case(&rng, dim, wall, 1.0, betas[i % 2], worst_elastic);
            }
            printf("  %dD %s: |g' - law| %.2e, |dE - closed| / E %.2e (elastic %.2e), |dp| %.2e, "
                   "|dL_c| %.2e\n",
                   dim, wall ? "wall" : "pair", worst[0], worst[1], worst_elastic[1], worst[2],
                   worst[3]);
            CHECK(worst[0] <= 1e-14);
            CHECK(worst[1] <= 1e-14);
            CHECK(worst_elastic[1] <= 1e-14); /* closed = 0 there: energy conserved to round-off */
            CHECK(worst[2] <= 1e-15);
            CHECK(worst[3] <= 1e-14);
        }
}

/* beta = -1 is the smooth law: the velocities of collide_pair / the wall's
 * reflection to a few ulps, and the spins exactly as they were. */
static void test_rough_smooth_limit(void)
{
    carom_rng rng = carom_rng_seed(4);
    double worst_ulps = 0.0;
    for (int i = 0; i < RANDOM_CASES; i++) {
        int dim = 2 + i % 2;
        impulse_sphere s1 = random_sphere(&rng, dim), s2 = random_sphere(&rng, dim);
        double n[3];
        random_unit(&rng, dim, n);
        double e = uniform(&rng, 0, 1);
        double vi[3], vj[3], dr[3], virial;
        for (int a = 0; a < 3; a++) {
            vi[a] = s1.v[a];
            vj[a] = s2.v[a];
            dr[a] = -(s1.radius + s2.radius) * n[a]; /* x_j - x_i with i = 1, j = 2 */
        }
        double w1[3] = {s1.w[0], s1.w[1], s1.w[2]}, w2[3] = {s2.w[0], s2.w[1], s2.w[2]};
        impulse_rough_result r;
        int applied = impulse_rough_pair(&s1, &s2, n, e, -1.0, &r);
        double dp = collide_pair(vi, vj, s1.mass, s2.mass, dr, e, 0.0, &virial);
        CHECK_EQ_INT(applied, dp > 0.0);
        double scale = sqrt(dot3(vi, vi)) + sqrt(dot3(vj, vj));
        for (int a = 0; a < 3; a++) {
            worst_ulps = fmax(worst_ulps, fabs(s1.v[a] - vi[a]) / (scale * DBL_EPSILON));
            worst_ulps = fmax(worst_ulps, fabs(s2.v[a] - vj[a]) / (scale * DBL_EPSILON));
            CHECK(s1.w[a] == w1[a] && s2.w[a] == w2[a]);
        }
        if (applied) CHECK_NEAR(sqrt(dot3(r.impulse, r.impulse)), dp, 1e-14 * (dp + 1));
    }
    printf("  beta = -1 against collide_pair: %.1f ulps of |v1| + |v2|\n", worst_ulps);
    CHECK(worst_ulps <= 16.0);

    impulse_sphere s = {.v = {3, -4, 1}, .w = {5, 6, 7}, .mass = 2, .inertia = 0.8, .radius = 1};
    const double n[3] = {0, 1, 0};
    double vy = s.v[1];
    collide_wall(&vy, -1.0, s.mass, 0.7, 0.0); /* a wall on the - side of y */
    impulse_rough_result r;
    impulse_rough_wall(&s, n, 0.7, -1.0, &r);
    CHECK(s.v[0] == 3 && s.v[2] == 1 && s.v[1] == vy);
    CHECK(s.w[0] == 5 && s.w[1] == 6 && s.w[2] == 7);
}

/* ---- general shapes in 2D ---- */

static double body_energy(const impulse_body2 *b)
{
    if (isinf(b->mass)) return 0.0;
    return 0.5 * b->mass * (b->v[0] * b->v[0] + b->v[1] * b->v[1]) +
           0.5 * b->inertia * b->omega * b->omega;
}

/* Lever arms along n: a disk pair. Frictionless is the smooth rough-law
 * (beta = -1), and mu = INFINITY (always sticking) the rough law at beta = 0. */
static void test_shape_reduces_to_disk(void)
{
    carom_rng rng = carom_rng_seed(40);
    double worst = 0.0;
    for (int i = 0; i < RANDOM_CASES; i++) {
        impulse_sphere s1 = random_sphere(&rng, 2), s2 = random_sphere(&rng, 2);
        double n[3];
        random_unit(&rng, 2, n);
        double e = uniform(&rng, 0, 1);
        int rough = i % 2;
        impulse_body2 b1 = {{s1.v[0], s1.v[1]}, s1.w[2], s1.mass, s1.inertia};
        impulse_body2 b2 = {{s2.v[0], s2.v[1]}, s2.w[2], s2.mass, s2.inertia};
        impulse_contact2 c = {{-s1.radius * n[0], -s1.radius * n[1]},
                              {s2.radius * n[0], s2.radius * n[1]}};
        impulse_rough_result r;
        impulse_result2 r2;
        int a1 = impulse_rough_pair(&s1, &s2, n, e, rough ? 0.0 : -1.0, &r);
        int a2 = impulse_shape_2d(&b1, &b2, &c, n, e, rough ? INFINITY : 0.0, &r2);
        CHECK_EQ_INT(a1, a2);
        double scale = fabs(s1.v[0]) + fabs(s1.v[1]) + fabs(s2.v[0]) + fabs(s2.v[1]) +
                       fabs(s1.w[2]) + fabs(s2.w[2]) + 1;
        double d = fabs(b1.v[0] - s1.v[0]) + fabs(b1.v[1] - s1.v[1]) + fabs(b2.v[0] - s2.v[0]) +
                   fabs(b2.v[1] - s2.v[1]) + fabs(b1.omega - s1.w[2]) + fabs(b2.omega - s2.w[2]);
        worst = fmax(worst, d / scale);
        if (a1 && rough) CHECK(!r2.sliding);
    }
    printf("  general law against the disk law: %.2e relative\n", worst);
    CHECK(worst <= 1e-14);
}

/* A disk (m = 1, radius 1/4) falls straight down at speed 1 onto the top
 * face of a box at rest (M = 2, 2 wide, 1 high, I = M (w^2 + h^2)/12 = 5/6)
 * at d = 1/2 right of its centre; e = 1. n = (0, 1) from box (2) to disk (1),
 * r2 = (1/2, 1/2), r2 x n = 1/2, r1 along -n: K = 1 + 1/2 + (1/4)/(5/6) = 9/5,
 * j = 2 / (9/5) = 10/9. The box: v = -j/M = -5/9 down, omega = -(1/2) j / I
 * = -2/3 (clockwise: pushed down right of its centre); the disk: -1 + j = 1/9
 * up. Energy 1/2 = 1/162 + 50/162 + 30/162. */
static void test_box_hit_off_centre(void)
{
    impulse_body2 disk = {{0, -1}, 0, 1, 0.5 * 1 * 0.0625};
    impulse_body2 box = {{0, 0}, 0, 2, 5.0 / 6.0};
    impulse_contact2 c = {{0, -0.25}, {0.5, 0.5}};
    const double n[2] = {0, 1};
    impulse_result2 r;
    CHECK_EQ_INT(impulse_shape_2d(&disk, &box, &c, n, 1.0, 0.0, &r), 1);
    CHECK_NEAR(r.normal, 10.0 / 9.0, 1e-15);
    CHECK_NEAR(box.omega, -2.0 / 3.0, 1e-15);
    CHECK_NEAR(box.v[1], -5.0 / 9.0, 1e-15);
    CHECK_NEAR(box.v[0], 0, 0);
    CHECK_NEAR(disk.v[1], 1.0 / 9.0, 1e-15);
    CHECK_NEAR(disk.omega, 0, 0);
    CHECK_NEAR(body_energy(&disk) + body_energy(&box), 0.5, 1e-15);
    /* Hit left of the centre: the same rate counter-clockwise. */
    impulse_body2 disk2 = {{0, -1}, 0, 1, 0.03125}, box2 = {{0, 0}, 0, 2, 5.0 / 6.0};
    impulse_contact2 left = {{0, -0.25}, {-0.5, 0.5}};
    impulse_shape_2d(&disk2, &box2, &left, n, 1.0, 0.0, &r);
    CHECK_NEAR(box2.omega, 2.0 / 3.0, 1e-15);
}

/* A 2 x 1 box (M = 3, I = 3 (4 + 1)/12) lands flat on the floor (infinite
 * mass and inertia, n = +y) with v = (0, -3), no spin: the overlapping
 * segment runs between its bottom corners (-1, -1/2) and (1, -1/2). It
 * bounces straight up at 3 e = 1.8 without spin, with or without friction. The
 * same box landing on one corner does spin (so the check can fail). */
static void test_box_lands_flat(void)
{
    const double n[2] = {0, 1};
    impulse_contact2 left = {{-1, -0.5}, {-1, 0}}, right = {{1, -0.5}, {1, 0}};
    const double mus[] = {0.0, 0.5, INFINITY};
    for (int k = 0; k < 3; k++) {
        impulse_body2 box = {{0, -3}, 0, 3, 1.25};
        impulse_body2 floor = {{0, 0}, 0, INFINITY, INFINITY};
        impulse_result2 r;
        CHECK_EQ_INT(impulse_face_2d(&box, &floor, &left, &right, n, 0.6, mus[k], &r), 1);
        CHECK(box.omega == 0.0);
        CHECK(box.v[0] == 0.0);
        CHECK_NEAR(box.v[1], 1.8, 1e-15);
        CHECK(floor.v[0] == 0.0 && floor.v[1] == 0.0 && floor.omega == 0.0);
        /* The other order of the ends gives the same. */
        impulse_body2 box2 = {{0, -3}, 0, 3, 1.25}, floor2 = {{0, 0}, 0, INFINITY, INFINITY};
        impulse_face_2d(&box2, &floor2, &right, &left, n, 0.6, mus[k], &r);
        CHECK(box2.omega == 0.0 && box2.v[1] == box.v[1]);
    }
    impulse_body2 box = {{0, -3}, 0, 3, 1.25}, floor = {{0, 0}, 0, INFINITY, INFINITY};
    impulse_result2 r;
    impulse_shape_2d(&box, &floor, &right, n, 0.6, 0.0, &r);
    CHECK(box.omega > 0.5); /* pushed up right of its centre: counter-clockwise */
}

/* Random shapes in 2D (random lever arms, masses, inertias, some infinite),
 * friction mu in [0, 2] and e in [0, 1]: energy never increases and the
 * reported loss is the kinetic energies' difference; momentum (pairs) and
 * angular momentum about the contact point (body i at c - r_i; pairs and
 * walls at rest) are conserved;
 * the contact separates after, at the normal speed impulse.h states (from
 * K_nt computed here; -e u_n without friction); where friction did not need a raised j
 * (pushed_out), sticking (|jt| < mu j) leaves no tangential slip, and
 * sliding takes exactly mu j and leaves the slip's sign as it was. */
static void test_friction_random(void)
{
    carom_rng rng = carom_rng_seed(2026);
    double worst_gain = -INFINITY, worst_report = 0.0, worst_p = 0.0, worst_l = 0.0,
           worst_slip = 0.0;
    double worst_approach = -INFINITY, worst_rebound = -INFINITY;
    long sticking = 0, sliding = 0, pushed = 0;
    for (int i = 0; i < 4 * RANDOM_CASES; i++) {
        impulse_body2 b[2];
        impulse_contact2 c;
        for (int k = 0; k < 2; k++) {
            double size = exp(uniform(&rng, -1, 1));
            b[k] = (impulse_body2){{uniform(&rng, -3, 3), uniform(&rng, -3, 3)},
                                   uniform(&rng, -3, 3),
                                   exp(uniform(&rng, -2, 2)),
                                   0};
            b[k].inertia = uniform(&rng, 0.05, 0.5) * b[k].mass * size * size;
            double *r = k == 0 ? c.r1 : c.r2;
            r[0] = uniform(&rng, -size, size);
            r[1] = uniform(&rng, -size, size);
        }
        int wall = i % 4 == 3;
        if (wall)
            b[1] = (impulse_body2){
                {0, 0}, 0, INFINITY, INFINITY}; /* at rest: a moving one does work */
        double n3[3];
        random_unit(&rng, 2, n3);
        const double n[2] = {n3[0], n3[1]};
        double e = uniform(&rng, 0, 1), mu = i % 8 == 0 ? 0.0 : uniform(&rng, 0, 2);
        double energy = body_energy(&b[0]) + body_energy(&b[1]);
        double p[2], l = 0.0;
        for (int a = 0; a < 2; a++)
            p[a] = b[0].mass * b[0].v[a] + (wall ? 0 : b[1].mass * b[1].v[a]);
        /* L about c: m (x - c) x v + I omega, x - c = -r. */
        l = b[0].mass * -(c.r1[0] * b[0].v[1] - c.r1[1] * b[0].v[0]) + b[0].inertia * b[0].omega;
        if (!wall)
            l += b[1].mass * -(c.r2[0] * b[1].v[1] - c.r2[1] * b[1].v[0]) +
                 b[1].inertia * b[1].omega;
        double omega2 = b[1].omega;
        impulse_result2 r;
        if (!impulse_shape_2d(&b[0], &b[1], &c, n, e, mu, &r)) {
            CHECK(r.normal == 0.0 && r.tangential == 0.0);
            continue;
        }
        double after = body_energy(&b[0]) + body_energy(&b[1]);
        worst_gain = fmax(worst_gain, (after - energy) / energy);
        worst_report = fmax(worst_report, fabs(energy - after - r.energy_lost) / energy);
        double l_after =
            b[0].mass * -(c.r1[0] * b[0].v[1] - c.r1[1] * b[0].v[0]) + b[0].inertia * b[0].omega;
        if (!wall)
            l_after += b[1].mass * -(c.r2[0] * b[1].v[1] - c.r2[1] * b[1].v[0]) +
                       b[1].inertia * b[1].omega;
        double scale = fabs(p[0]) + fabs(p[1]) + r.normal + fabs(r.tangential) + 1.0;
        for (int a = 0; a < 2 && !wall;
             a++) /* a wall takes momentum, but no angular momentum about c */
            worst_p = fmax(worst_p,
                           fabs(b[0].mass * b[0].v[a] + (wall ? 0 : b[1].mass * b[1].v[a]) - p[a]) /
                               scale);
        worst_l = fmax(worst_l, fabs(l_after - l) / (fabs(l) + scale * 10));
        if (wall) CHECK(b[1].omega == omega2 && isinf(b[1].mass));
        CHECK(r.normal > 0.0);
        CHECK(fabs(r.tangential) <= mu * r.normal);
        if (mu == 0.0) CHECK(r.tangential == 0.0 && !r.sliding);
        /* The slip after, computed from the states. */
        double u1[2] = {b[0].v[0] - b[0].omega * c.r1[1], b[0].v[1] + b[0].omega * c.r1[0]};
        double u2[2] = {b[1].v[0] - b[1].omega * c.r2[1], b[1].v[1] + b[1].omega * c.r2[0]};
        double slip = -(u1[0] - u2[0]) * n[1] + (u1[1] - u2[1]) * n[0];
        double normal = (u1[0] - u2[0]) * n[0] + (u1[1] - u2[1]) * n[1];
        double speed = fabs(r.tangential_speed_before) + fabs(r.normal_speed_before) + 1.0;
        CHECK_NEAR(slip, r.tangential_speed_after, 1e-12 * speed);
        CHECK_NEAR(normal, r.normal_speed_after, 1e-12 * speed);
        /* It separates, at the speed the header states: with u1 = -e u_n +
         * K_nt jt (K_nt from the lever arms, here), u1 if >= 0, else
         * min(-e u_n, -u1). */
        worst_approach = fmax(worst_approach, -normal / speed);
        double t[2] = {-n[1], n[0]}, inv_i1 = 1.0 / b[0].inertia, inv_i2 = 1.0 / b[1].inertia;
        double knt =
            (c.r1[0] * n[1] - c.r1[1] * n[0]) * (c.r1[0] * t[1] - c.r1[1] * t[0]) * inv_i1 +
            (c.r2[0] * n[1] - c.r2[1] * n[0]) * (c.r2[0] * t[1] - c.r2[1] * t[0]) * inv_i2;
        double u1n = -e * r.normal_speed_before + knt * r.tangential;
        double expected = u1n >= 0.0 ? u1n : fmin(-e * r.normal_speed_before, -u1n);
        CHECK_EQ_INT(r.pushed_out, u1n < 0.0);
        worst_rebound = fmax(worst_rebound, fabs(normal - expected) / speed);
        if (mu == 0.0 || r.tangential == 0.0) /* no friction: exactly Newton's law along n */
            CHECK_NEAR(normal, -e * r.normal_speed_before, 1e-14 * speed);
        pushed += r.pushed_out;
        if (r.pushed_out) continue; /* j was raised: |jt| <= mu j still, checked above */
        if (mu > 0.0 && !r.sliding) {
            sticking++;
            worst_slip = fmax(worst_slip, fabs(slip) / speed);
        } else if (r.sliding) {
            sliding++;
            CHECK(fabs(r.tangential) == mu * r.normal);
            CHECK(r.tangential * slip <=
                  0.0); /* friction opposed the slip and did not reverse it */
        }
    }
    printf("  friction: %ld sticking, %ld sliding, %ld pushed out; energy gain %.2e, report %.2e, "
           "|dp| %.2e, "
           "|dL_c| %.2e, slip %.2e, approach after %.2e, |u_n' - stated| %.2e\n",
           sticking, sliding, pushed, worst_gain, worst_report, worst_p, worst_l, worst_slip,
           worst_approach, worst_rebound);
    CHECK(sticking > 1000 && sliding > 1000 && pushed > 1000);
    CHECK(worst_approach <= 1e-15);
    CHECK(worst_rebound <= 1e-14);
    CHECK(worst_gain <= 1e-14);
    CHECK(worst_report <= 1e-13);
    CHECK(worst_p <= 1e-15);
    CHECK(worst_l <= 1e-14);
    CHECK(worst_slip <= 1e-14);
}

/* A disk sliding on the floor: inside the cone it stops slipping (rolls),
 * outside it takes exactly mu j. Disk m = 1, a = 1, I = 1/2, v = (vx, -1),
 * no spin, e = 0, floor n = +y, so t = (-n_y, n_x) = (-1, 0) and u_t = -vx:
 * j = 1, r1 = (0, -1), K_tt = 1 + 1/(1/2) = 3: sticking needs jt = vx / 3
 * along t (a push of -vx/3 along x), so |vx| <= 3 mu sticks. */
static void test_friction_disk_by_hand(void)
{
    const double n[2] = {0, 1};
    impulse_contact2 c = {{0, -1}, {0, 0}};
    impulse_result2 r;
    impulse_body2 floor = {{0, 0}, 0, INFINITY, INFINITY};
    impulse_body2 stick = {{0.9, -1}, 0, 1, 0.5};
    impulse_shape_2d(&stick, &floor, &c, n, 0.0, 0.5, &r);
    CHECK(!r.sliding);
    CHECK_NEAR(r.tangential, 0.3, 1e-15);
    CHECK_NEAR(stick.v[0], 0.6, 1e-15);
    CHECK_NEAR(stick.omega, -0.6, 1e-15); /* rolling to the right: v = -omega a */
    CHECK_NEAR(stick.v[1], 0, 1e-15);
    impulse_body2 slide = {{2.4, -1}, 0, 1, 0.5};
    impulse_shape_2d(&slide, &floor, &c, n, 0.0, 0.5, &r);
    CHECK(r.sliding);
    CHECK(r.tangential == 0.5 * r.normal);
    CHECK_NEAR(slide.v[0], 1.9, 1e-15);
    CHECK_NEAR(slide.omega, -1.0, 1e-15);
}

int main(void)
{
    RUN(test_rough_sphere_wall_by_hand);
    RUN(test_rough_random_laws);
    RUN(test_rough_smooth_limit);
    RUN(test_shape_reduces_to_disk);
    RUN(test_box_hit_off_centre);
    RUN(test_box_lands_flat);
    RUN(test_friction_disk_by_hand);
    RUN(test_friction_random);
    return CHECK_SUMMARY();
}
