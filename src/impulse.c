/* impulse.c — collision laws with rotation: rough spheres and disks, and the
 * impulse at a contact point between general 2D shapes with Coulomb friction.
 * Pure functions of the two bodies' states at contact; collide.c keeps the
 * frictionless law of smooth bodies, bit for bit.
 *
 * Rough spheres: the law of Huthmann & Zippelius, Phys. Rev. E 56, R6275
 * (1997) and Luding, Huthmann, McNamara & Zippelius, Phys. Rev. E 58, 3416
 * (1998). n points from body 2 to body 1; the contact point is x1 - a1 n =
 * x2 + a2 n, so the contact points move at v1 - a1 w1 x n and v2 + a2 w2 x n,
 * and g = v1 - v2 - (a1 w1 + a2 w2) x n. An impulse P on 1 (-P on 2) changes
 * v1 by P/m1, w1 by (1/I1)(-a1 n) x P, v2 by -P/m2, w2 by (1/I2)(a2 n) x (-P),
 * hence g by P/m + k P_t with 1/m = 1/m1 + 1/m2 and k = a1^2/I1 + a2^2/I2
 * (since (n x P) x n = P_t). So g_n' = -e g_n and g_t' = -beta g_t need
 * P_n = -(1 + e) m g_n and P_t = -(1 + beta) m_t g_t, m_t = 1/(1/m + k). The
 * energy change is P . (g + g')/2, which gives the closed form of
 * impulse_rough_energy_lost. The law is written with inverse masses so that
 * a wall or a kinematic sphere is INFINITY.
 *
 * General 2D shapes: seed 004's impulse with both inverse masses and both
 * inverse inertias along n (Hecker, "Physics, Part 3: Collision Response",
 * Game Developer, 1997, gives the same formula). In the contact frame (n, t),
 * t = (-n_y, n_x), an impulse (j, jt) changes the contact velocity u = (u_n,
 * u_t) by K (j, jt) with K_nn = 1/m1 + 1/m2 + (r1 x n)^2/I1 + (r2 x n)^2/I2,
 * K_nt = (r1 x n)(r1 x t)/I1 + (r2 x n)(r2 x t)/I2, K_tt likewise with t.
 *
 * Friction, the choice: one pass of the sequential-impulse method (Catto,
 * "Iterative Dynamics with Temporal Coherence", GDC 2005; Box2D solves the
 * normal impulse, then the friction impulse clamped by mu times it). The
 * normal impulse j is the frictionless one above; with j fixed, jt =
 * -(u_t + K_nt j)/K_tt would leave no sliding (tangential restitution 0);
 * if |jt| <= mu j the contact sticks, otherwise jt = -sign(u_t + K_nt j) mu j
 * (sliding, exactly on the cone's edge). (j, jt) are applied as one impulse.
 * Why not the coupled 2x2 solve of Newton's restitution with friction (Brach,
 * J. Appl. Mech. 56, 133 (1989)): where K_nt != 0 it can create energy (the
 * Kane-Levinson paradox; Stronge, "Impact Mechanics", 2000, ch. 4). The
 * sequential pass never does: the energy change is j u_n (1 - e)/2 (<= 0) plus
 * jt (u_t1 + K_tt jt/2), u_t1 = u_t + K_nt j, which is -u_t1^2/(2 K_tt) when
 * sticking and negative when sliding (jt opposes u_t1 and |K_tt jt| < |u_t1|).
 * The price: where K_nt jt != 0 the normal velocity after is -e u_n + K_nt jt,
 * not exactly -e u_n. Where that is < 0 (friction's torque drives the contact
 * point in; about one collision in six at random), the contact would still
 * approach, which an event-driven engine cannot take: a second normal
 * impulse dj = (u_n'' - u_n')/K_nn > 0 then brings the normal velocity to
 * u_n'' = min(-e u_n, -u_n') >= 0 (pushed_out), which again removes energy
 * (dj (u_n' + u_n'')/2 <= 0) and keeps |jt| <= mu j (j only grows); such a
 * contact may then slip a little where it stuck, and slides inside the cone.
 * For disks (lever arms along n) K_nt = 0 and the law is exact, and sticking
 * is the rough law at beta = 0.
 *
 * Face-face contact: one impulse at the middle of the overlapping segment. A
 * box landing flat with the segment centred under it and no spin gets none;
 * where the segment is off-centre, or friction acts on a sliding box, the
 * middle's lever arm does make it turn (a two-point solve is not done).
 */
#include "impulse.h"

#include <assert.h>
#include <math.h>

/* ---- rough spheres ---- */

double impulse_rough_energy_lost(double reduced_mass, double tangential_mass, double normal_speed,
                                 double tangential_speed_squared, double e, double beta)
{
    return 0.5 * reduced_mass * (1.0 - e * e) * normal_speed * normal_speed +
           0.5 * tangential_mass * (1.0 - beta * beta) * tangential_speed_squared;
}

int impulse_rough_pair(impulse_sphere *s1, impulse_sphere *s2, const double n[3], double e,
                       double beta, impulse_rough_result *out)
{
    *out = (impulse_rough_result){.normal_speed = 0.0};
    const impulse_sphere_ref r1 = {s1->v, s1->w, s1->mass, s1->inertia, s1->radius},
                             r2 = {s2->v, s2->w, s2->mass, s2->inertia, s2->radius};
    if (!impulse_rough_law(r1, r2, n, e, beta, out)) return 0;
    double gt2 = out->tangential[0] * out->tangential[0] + out->tangential[1] * out->tangential[1] +
                 out->tangential[2] * out->tangential[2];
    out->energy_lost =
        impulse_rough_energy_lost(out->reduced_mass, out->tangential_mass, out->normal_speed, gt2, e, beta);
    return 1;
}

int impulse_rough_wall(impulse_sphere *s, const double n[3], double e, double beta,
                       impulse_rough_result *out)
{
    impulse_sphere wall = {.mass = INFINITY, .inertia = INFINITY, .radius = 0.0};
    return impulse_rough_pair(s, &wall, n, e, beta, out);
}

/* ---- general shapes in 2D ---- */

static double cross2(const double a[2], const double b[2]) { return a[0] * b[1] - a[1] * b[0]; }

/* Velocity of the material point at lever arm r: v + omega z x r. */
static void point_velocity(const impulse_body2 *b, const double r[2], double out[2])
{
    out[0] = b->v[0] - b->omega * r[1];
    out[1] = b->v[1] + b->omega * r[0];
}

typedef struct contact_frame {
    double t[2];          /* tangent (-n_y, n_x) */
    double un, ut;        /* contact velocity u = u1 - u2 along n and t */
    double knn, knt, ktt; /* the contact's inverse-mass matrix */
} contact_frame;

static contact_frame frame_of(const impulse_body2 *b1, const impulse_body2 *b2,
                              const impulse_contact2 *c, const double n[2])
{
    contact_frame f = {.t = {-n[1], n[0]}};
    double u1[2], u2[2];
    point_velocity(b1, c->r1, u1);
    point_velocity(b2, c->r2, u2);
    double u[2] = {u1[0] - u2[0], u1[1] - u2[1]};
    f.un = u[0] * n[0] + u[1] * n[1];
    f.ut = u[0] * f.t[0] + u[1] * f.t[1];
    double inv_i1 = 1.0 / b1->inertia, inv_i2 = 1.0 / b2->inertia;
    double inv_m = 1.0 / b1->mass + 1.0 / b2->mass;
    double rn1 = cross2(c->r1, n), rn2 = cross2(c->r2, n);
    double rt1 = cross2(c->r1, f.t), rt2 = cross2(c->r2, f.t);
    f.knn = inv_m + rn1 * rn1 * inv_i1 + rn2 * rn2 * inv_i2;
    f.knt = rn1 * rt1 * inv_i1 + rn2 * rt2 * inv_i2;
    f.ktt = inv_m + rt1 * rt1 * inv_i1 + rt2 * rt2 * inv_i2;
    return f;
}

/* The friction impulse with the normal impulse j fixed: stop sliding, or
 * slide on the cone's edge. Sets out->sliding. */
static double friction_impulse(const contact_frame *f, double j, double mu, impulse_result2 *out)
{
    if (!(mu > 0.0)) return 0.0;
    double slip = f->ut + f->knt * j; /* tangential speed after the normal impulse alone */
    double stick = -slip / f->ktt;
    if (fabs(stick) <= mu * j) return stick;
    out->sliding = 1;
    return copysign(mu * j, stick);
}

static void apply_impulse(impulse_body2 *b1, impulse_body2 *b2, const impulse_contact2 *c,
                          const double p[2])
{
    double inv_m1 = 1.0 / b1->mass, inv_m2 = 1.0 / b2->mass;
    b1->v[0] += p[0] * inv_m1;
    b1->v[1] += p[1] * inv_m1;
    b2->v[0] -= p[0] * inv_m2;
    b2->v[1] -= p[1] * inv_m2;
    b1->omega += cross2(c->r1, p) / b1->inertia;
    b2->omega -= cross2(c->r2, p) / b2->inertia;
}

int impulse_shape_2d(impulse_body2 *b1, impulse_body2 *b2, const impulse_contact2 *contact,
                     const double n[2], double e, double mu, impulse_result2 *out)
{
    assert(b1->mass > 0.0 && b1->inertia > 0.0 && b2->mass > 0.0 && b2->inertia > 0.0);
    assert(e >= 0.0 && e <= 1.0 && mu >= 0.0);
    contact_frame f = frame_of(b1, b2, contact, n);
    *out = (impulse_result2){.normal_speed_before = f.un,
                             .normal_speed_after = f.un,
                             .tangential_speed_before = f.ut,
                             .tangential_speed_after = f.ut};
    if (!(f.un < 0.0)) return 0; /* grazing or receding: no impulse */
    assert(f.knn > 0.0);         /* two infinite masses never collide */
    double j = -(1.0 + e) * f.un / f.knn;
    double jt = friction_impulse(&f, j, mu, out);
    double un_after = f.un + f.knn * j + f.knt * jt;
    if (un_after < 0.0) { /* friction's torque drove the contact in: push it out again */
        j += (fmin(-e * f.un, -un_after) - un_after) / f.knn;
        out->pushed_out = 1;
    }
    double p[2] = {j * n[0] + jt * f.t[0], j * n[1] + jt * f.t[1]};
    apply_impulse(b1, b2, contact, p);
    out->normal = j;
    out->tangential = jt;
    out->normal_speed_after = f.un + f.knn * j + f.knt * jt;
    out->tangential_speed_after = f.ut + f.knt * j + f.ktt * jt;
    out->energy_lost =
        -0.5 * (j * (f.un + out->normal_speed_after) + jt * (f.ut + out->tangential_speed_after));
    return 1;
}

int impulse_face_2d(impulse_body2 *b1, impulse_body2 *b2, const impulse_contact2 *end_a,
                    const impulse_contact2 *end_b, const double n[2], double e, double mu,
                    impulse_result2 *out)
{
    impulse_contact2 middle;
    for (int a = 0; a < 2; a++) {
        middle.r1[a] = 0.5 * (end_a->r1[a] + end_b->r1[a]);
        middle.r2[a] = 0.5 * (end_a->r2[a] + end_b->r2[a]);
    }
    return impulse_shape_2d(b1, b2, &middle, n, e, mu, out);
}
