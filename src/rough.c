/* rough.c — collisions of rough disks and spheres in a world (issue 14).
 *
 * The law is impulse_rough_law (impulse.h, inline; Huthmann & Zippelius,
 * Phys. Rev. E 56, R6275 (1997); Luding, Huthmann, McNamara & Zippelius,
 * Phys. Rev. E 58, 3416 (1998)): the normal relative velocity of the
 * contact points is reversed and scaled by e, the tangential one by -beta.
 * Here it is applied to the world's bodies in place (no copies: this is
 * every collision of a rough gas): the orientation of each is brought to
 * the collision (spin.c keeps it lazily) before its spin changes, a
 * kinematic body (mass and inertia infinite)
 * keeps its motion and its collision counter, and the energy it gives a
 * free body, translation and spin, is counted as its work. The TC model's
 * collisions (settle.c: bodies still in contact from their last collision)
 * dissipate nothing: e = 1 and smooth, beta = -1. Keeping beta there let
 * rough disks in a bed under gravity kick each other off the floor forever
 * (a jam in tests/test_snapshot.c's granular bed).
 */
#include "rough.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "collide.h"
#include "impulse.h"
#include "world.h"

/* Body slot as the law sees it, read and updated in place. */
static impulse_sphere_ref sphere_ref(carom_world *w, int32_t slot)
{
    return (impulse_sphere_ref){w->hot[slot].v, w->spin.state[slot].omega, world_mass(w, slot), w->spin.inertia[slot],
                                w->hot[slot].radius};
}

/* A 2D body spins about z only: the law's zeros there may come out as -0. */
static void planar(carom_world *w, int32_t slot)
{
    if (!(world_mass(w, slot) < INFINITY)) return;
    w->spin.state[slot].omega[0] = w->spin.state[slot].omega[1] = 0.0;
    w->hot[slot].v[2] = 0.0;
}

/* Kinetic energy, translation and spin, of a body (slot). */
static double energy_of(const carom_world *w, int32_t slot)
{
    const double *v = w->hot[slot].v, *o = w->spin.state[slot].omega, inertia = w->spin.inertia[slot];
    double e = 0.5 * world_mass(w, slot) * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (inertia < INFINITY) e += 0.5 * inertia * (o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
    return e;
}

/* The law between free body i and kinematic body k (slots; n from k to i):
 * on a copy of k, so that k keeps its motion to the bit, and what i gains is
 * k's work. */
static int rough_with_kinematic(carom_world *w, int32_t i, int32_t k, const double n[3], double e, double beta,
                                double t, impulse_rough_result *out)
{
    double v[3], omega[3];
    memcpy(v, w->hot[k].v, sizeof v);
    memcpy(omega, w->spin.state[k].omega, sizeof omega);
    const impulse_sphere_ref kinematic = {v, omega, INFINITY, INFINITY, w->hot[k].radius};
    spin_bring(w, i, t);
    double before = energy_of(w, i);
    if (!impulse_rough_law(sphere_ref(w, i), kinematic, n, e, beta, out)) return 0;
    w->meas.kinematic_work += energy_of(w, i) - before;
    return 1;
}

double rough_pair(carom_world *w, int32_t i, int32_t j, const double dr[3], double e, double beta, double t,
                  double *virial)
{
    *virial = 0.0;
    int free_i = world_mass(w, i) < INFINITY, free_j = world_mass(w, j) < INFINITY;
    if (free_i) world_restamp(w, i); /* a kinematic body's predictions stay valid */
    if (free_j) world_restamp(w, j);
    double r2 = dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2];
    if (!(r2 > 0.0) || !(free_i || free_j)) return 0.0;
    double minus_inverse_r = -1.0 / sqrt(r2);
    const double n[3] = {dr[0] * minus_inverse_r, dr[1] * minus_inverse_r, dr[2] * minus_inverse_r}; /* j to i */
    if (w->def.elastic_below_speed > 0.0) { /* the approach speed, only where it decides e */
        const double *vi = w->hot[i].v, *vj = w->hot[j].v;
        double speed = (vj[0] - vi[0]) * n[0] + (vj[1] - vi[1]) * n[1] + (vj[2] - vi[2]) * n[2];
        e = collide_restitution(e, w->def.elastic_below_speed, speed);
    }
    impulse_rough_result out;
    int hit;
    if (free_i && free_j) { /* the spins change: each orientation is brought to t first */
        spin_bring_two(w, i, j, t);
        hit = impulse_rough_law(sphere_ref(w, i), sphere_ref(w, j), n, e, beta, &out);
    } else if (free_i) {
        hit = rough_with_kinematic(w, i, j, n, e, beta, t, &out);
    } else {
        const double back[3] = {-n[0], -n[1], -n[2]};
        hit = rough_with_kinematic(w, j, i, back, e, beta, t, &out);
        for (int a = 0; a < 3 && hit; a++) out.impulse[a] = -out.impulse[a]; /* the impulse on i */
    }
    if (!hit) return 0.0;
    if (w->dim == 2) planar(w, i), planar(w, j);
    *virial = -(dr[0] * out.impulse[0] + dr[1] * out.impulse[1] + dr[2] * out.impulse[2]);
    return sqrt(out.impulse[0] * out.impulse[0] + out.impulse[1] * out.impulse[1] + out.impulse[2] * out.impulse[2]);
}

double rough_wall(carom_world *w, int32_t i, const double outward[3], double e, double beta, double t)
{
    double length = sqrt(outward[0] * outward[0] + outward[1] * outward[1] + outward[2] * outward[2]);
    if (!(length > 0.0)) return 0.0;
    const double n[3] = {-outward[0] / length, -outward[1] / length, -outward[2] / length}; /* wall to body */
    assert(world_mass(w, i) < INFINITY && "a kinematic body bounces as a smooth one (run.c)");
    double still[3] = {0.0, 0.0, 0.0}, no_spin[3] = {0.0, 0.0, 0.0};
    const impulse_sphere_ref wall = {still, no_spin, INFINITY, INFINITY, 0.0};
    spin_bring(w, i, t);
    impulse_rough_result out;
    if (!impulse_rough_law(sphere_ref(w, i), wall, n, e, beta, &out)) return 0.0;
    if (w->dim == 2) planar(w, i);
    return sqrt(out.impulse[0] * out.impulse[0] + out.impulse[1] * out.impulse[1] + out.impulse[2] * out.impulse[2]);
}
