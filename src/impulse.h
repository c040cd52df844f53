/* impulse.h — collision laws with rotation, as pure functions of the two
 * bodies' states at contact (issue 14, items 2 and 4; seed 004, case 3).
 *
 * Conventions, for every function here:
 * - n is the UNIT contact normal pointing from body 2 to body 1 (for a wall,
 *   from the wall into the body's side). The callers normalise it.
 * - The impulse P acts on body 1 at the contact point, -P on body 2.
 * - Infinite mass or inertia (INFINITY) is allowed where said: the laws are
 *   written with inverse masses, 1/INFINITY = 0, and such a body never moves.
 * - e and beta are used as given: a caller that wants collide_restitution's
 *   elastic_below_speed applies it first (collide.h).
 * - Bodies that do not approach at the contact (normal relative velocity of
 *   the contact points >= 0) are left alone and the functions return 0;
 *   they return 1 when an impulse was applied.
 * Preconditions (bugs if broken, asserted): masses and inertias > 0 (or
 * INFINITY), radii >= 0, 0 <= e <= 1, -1 <= beta <= 1, mu >= 0. */
#ifndef CAROM_IMPULSE_H
#define CAROM_IMPULSE_H

#include <assert.h>

/* ---- rough spheres and disks (Huthmann & Zippelius 1997; Luding et al. 1998) ---- */

/* A sphere (or, in 2D, a disk whose spin is along z and whose velocity and n
 * have z = 0: the same formulas keep z = 0 and spin along z exactly). */
typedef struct impulse_sphere {
    double v[3];    /* velocity of the centre */
    double w[3];    /* angular velocity (2D: {0, 0, w_z}) */
    double mass;    /* > 0, or INFINITY (a kinematic sphere) */
    double inertia; /* isotropic moment of inertia about the centre, > 0 or INFINITY */
    double radius;  /* >= 0: the contact point is x - radius n for body 1, x + radius n for 2 */
} impulse_sphere;

typedef struct impulse_rough_result {
    double impulse[3];      /* P on body 1 (body 2 gets -P) */
    double normal_speed;    /* g_n = g . n before (< 0 when an impulse was applied) */
    double tangential[3];   /* g_t = g - g_n n before */
    double reduced_mass;    /* m = 1 / (1/m1 + 1/m2) */
    double tangential_mass; /* m_t = 1 / (1/m + a1^2/I1 + a2^2/I2) = m / (1 + m k) */
    double energy_lost;     /* closed form (impulse_rough_energy_lost), >= 0 */
} impulse_rough_result;

/* The rough-sphere law. With g = v1 - v2 - (a1 w1 + a2 w2) x n, the relative
 * velocity of the contact points, split as g = g_n n + g_t, the impulse
 * P = -(1 + e) m g_n n - (1 + beta) m_t g_t gives g_n' = -e g_n and
 * g_t' = -beta g_t; then v1 += P/m1, v2 -= P/m2, w1 -= (a1/I1) n x P,
 * w2 -= (a2/I2) n x P. beta = -1 is the smooth law (spins untouched exactly),
 * beta = +1 perfectly rough. Linear momentum and the angular momentum about
 * the contact point are conserved. */
int impulse_rough_pair(impulse_sphere *s1, impulse_sphere *s2, const double n[3], double e,
                       double beta, impulse_rough_result *out);

/* A sphere held elsewhere (a world's arrays): the law reads and updates its
 * velocity and angular velocity in place. */
typedef struct impulse_sphere_ref {
    double *v, *w;
    double mass, inertia, radius; /* as in impulse_sphere */
} impulse_sphere_ref;

/* The law itself, inline for the world's collisions (rough.c: no copies,
 * and the compiler drops what the caller leaves unread); impulse_rough_pair
 * is this on two impulse_sphere records, with out->energy_lost set too. */
static inline int impulse_rough_law(impulse_sphere_ref s1, impulse_sphere_ref s2, const double n[3], double e,
                                    double beta, impulse_rough_result *out)
{
    assert(s1.mass > 0.0 && s1.inertia > 0.0 && s1.radius >= 0.0);
    assert(s2.mass > 0.0 && s2.inertia > 0.0 && s2.radius >= 0.0);
    assert(e >= 0.0 && e <= 1.0 && beta >= -1.0 && beta <= 1.0);
    double inv_m1 = 1.0 / s1.mass, inv_m2 = 1.0 / s2.mass;
    double arm1 = s1.radius / s1.inertia, arm2 = s2.radius / s2.inertia; /* a / I */
    double inv_reduced = inv_m1 + inv_m2;
    double k = s1.radius * arm1 + s2.radius * arm2; /* a1^2/I1 + a2^2/I2 */
    const double sweep[3] = {s1.radius * s1.w[0] + s2.radius * s2.w[0], /* a1 w1 + a2 w2 */
                             s1.radius * s1.w[1] + s2.radius * s2.w[1],
                             s1.radius * s1.w[2] + s2.radius * s2.w[2]};
    const double g[3] = {s1.v[0] - s2.v[0] - (sweep[1] * n[2] - sweep[2] * n[1]), /* g = v1 - v2 - sweep x n */
                         s1.v[1] - s2.v[1] - (sweep[2] * n[0] - sweep[0] * n[2]),
                         s1.v[2] - s2.v[2] - (sweep[0] * n[1] - sweep[1] * n[0])};
    double gn = g[0] * n[0] + g[1] * n[1] + g[2] * n[2];
    out->normal_speed = gn;
    for (int a = 0; a < 3; a++) out->tangential[a] = g[a] - gn * n[a];
    out->reduced_mass = 1.0 / inv_reduced;
    out->tangential_mass = 1.0 / (inv_reduced + k);
    if (!(gn < 0.0)) return 0; /* grazing or receding: no impulse */
    double pn = -(1.0 + e) * gn * out->reduced_mass;
    double pt_scale = -(1.0 + beta) * out->tangential_mass;
    double pt[3];
    for (int a = 0; a < 3; a++) {
        pt[a] = pt_scale * out->tangential[a];
        out->impulse[a] = pn * n[a] + pt[a];
    }
    const double turn[3] = {n[1] * pt[2] - n[2] * pt[1], n[2] * pt[0] - n[0] * pt[2],
                            n[0] * pt[1] - n[1] * pt[0]}; /* n x P = n x P_t */
    for (int a = 0; a < 3; a++) {
        s1.v[a] += out->impulse[a] * inv_m1;
        s2.v[a] -= out->impulse[a] * inv_m2;
        s1.w[a] -= arm1 * turn[a];
        s2.w[a] -= arm2 * turn[a];
    }
    return 1;
}

/* A sphere against a wall at rest (infinite mass, no spin); n from the wall
 * to the sphere. The pair law with m2 = I2 = INFINITY, v2 = w2 = 0. */
int impulse_rough_wall(impulse_sphere *s, const double n[3], double e, double beta,
                       impulse_rough_result *out);

/* The kinetic energy a rough collision removes, in closed form:
 * (m/2)(1 - e^2) g_n^2 + (m_t/2)(1 - beta^2) |g_t|^2. */
double impulse_rough_energy_lost(double reduced_mass, double tangential_mass, double normal_speed,
                                 double tangential_speed_squared, double e, double beta);

/* ---- general shapes in 2D (seed 004, case 3; Coulomb friction in one impulse) ---- */

typedef struct impulse_body2 {
    double v[2];    /* velocity of the centre of mass */
    double omega;   /* angular velocity, counter-clockwise positive */
    double mass;    /* > 0, or INFINITY (a wall, a kinematic body) */
    double inertia; /* about the centre of mass, > 0, or INFINITY */
} impulse_body2;

/* One contact point seen from both bodies: lever arms from each centre of
 * mass to the point. */
typedef struct impulse_contact2 {
    double r1[2], r2[2];
} impulse_contact2;

typedef struct impulse_result2 {
    double normal;     /* j >= 0: the impulse along n on body 1 */
    double tangential; /* jt: the impulse along t = (-n_y, n_x) on body 1 */
    int sliding;       /* 1 when |jt| was clamped to mu j (of the first normal impulse) */
    int pushed_out;    /* 1 when friction left the contact approaching and j was raised */
    double normal_speed_before, normal_speed_after;         /* u . n of the contact points */
    double tangential_speed_before, tangential_speed_after; /* u . t */
    double energy_lost; /* -(j (u_n + u_n') + jt (u_t + u_t')) / 2, >= 0 */
} impulse_result2;

/* The impulse at one contact point. Normal part (seed 004):
 * j = -(1 + e) u_n / (1/m1 + 1/m2 + (r1 x n)^2/I1 + (r2 x n)^2/I2).
 * Friction (mu > 0; mu = INFINITY always sticks): one pass of the sequential
 * impulse method — with j fixed, the tangential impulse that stops sliding,
 * jt = -(u_t + K_nt j) / K_tt, clamped to |jt| <= mu j (sliding); applied
 * together with j as one impulse P = j n + jt t. If friction's coupling
 * K_nt jt leaves the contact approaching, j is raised so that it separates
 * (pushed_out). See impulse.c for the choice and its consequences: energy
 * never increases, |jt| <= mu j, and the contact separates: with
 * u1 = -e u_n + K_nt jt, u_n' = u1 if u1 >= 0 (exactly -e u_n for disks,
 * where K_nt = 0), else min(-e u_n, -u1). */
int impulse_shape_2d(impulse_body2 *b1, impulse_body2 *b2, const impulse_contact2 *contact,
                     const double n[2], double e, double mu, impulse_result2 *out);

/* A face-face (edge-edge) contact given by the two ends of the overlapping
 * segment: resolved as one impulse at the segment's middle (the mean of the
 * two ends' lever arms), so that a body landing flat and symmetric with no
 * spin and no sliding gets no spin. */
int impulse_face_2d(impulse_body2 *b1, impulse_body2 *b2, const impulse_contact2 *end_a,
                    const impulse_contact2 *end_b, const double n[2], double e, double mu,
                    impulse_result2 *out);

#endif
