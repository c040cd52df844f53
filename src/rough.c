/* rough.c — collisions of rough disks and spheres in a world (issue 14).
 *
 * The law is impulse_rough_pair / impulse_rough_wall (impulse.c:
 * Huthmann & Zippelius, Phys. Rev. E 56, R6275 (1997); Luding, Huthmann,
 * McNamara & Zippelius, Phys. Rev. E 58, 3416 (1998)): the normal relative
 * velocity of the contact points is reversed and scaled by e, the
 * tangential one by -beta. Here it is applied to the world's bodies: the
 * orientation of each is brought to the collision (spin.c keeps it lazily)
 * before its spin changes, a kinematic body (mass and inertia infinite)
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

#include "collide.h"
#include "impulse.h"
#include "world.h"

static impulse_sphere sphere_of(const carom_world *w, int32_t slot)
{
    impulse_sphere s;
    for (int a = 0; a < 3; a++) s.v[a] = w->hot[slot].v[a], s.w[a] = w->spin.state[slot].omega[a];
    s.mass = w->mass[slot];
    s.inertia = w->spin.inertia[slot];
    s.radius = w->hot[slot].radius;
    return s;
}

/* Kinetic energy, translation and spin, of a sphere record. */
static double energy_of(const impulse_sphere *s)
{
    double e = 0.5 * s->mass * (s->v[0] * s->v[0] + s->v[1] * s->v[1] + s->v[2] * s->v[2]);
    if (s->inertia < INFINITY) e += 0.5 * s->inertia * (s->w[0] * s->w[0] + s->w[1] * s->w[1] + s->w[2] * s->w[2]);
    return e;
}

/* Writes a sphere record back to its body (slot) after the impulse, its
 * orientation first brought to t. */
static void store_sphere(carom_world *w, int32_t slot, const impulse_sphere *s, double t)
{
    spin_bring(w, slot, t);
    double *omega = w->spin.state[slot].omega;
    for (int a = 0; a < 3; a++) w->hot[slot].v[a] = s->v[a], omega[a] = s->w[a];
    if (w->dim == 2) omega[0] = omega[1] = 0.0;
}

double rough_pair(carom_world *w, int32_t i, int32_t j, const double dr[3], double e, double beta, double t,
                  double *virial)
{
    *virial = 0.0;
    if (w->mass[i] < INFINITY) w->counter[i]++; /* a kinematic body's predictions stay valid */
    if (w->mass[j] < INFINITY) w->counter[j]++;
    double r2 = dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2];
    if (!(r2 > 0.0)) return 0.0;
    double minus_inverse_r = -1.0 / sqrt(r2);
    const double n[3] = {dr[0] * minus_inverse_r, dr[1] * minus_inverse_r, dr[2] * minus_inverse_r}; /* j to i */
    impulse_sphere s1 = sphere_of(w, i), s2 = sphere_of(w, j);
    if (w->def.elastic_below_speed > 0.0) { /* the approach speed, only where it decides e */
        double speed = (s2.v[0] - s1.v[0]) * n[0] + (s2.v[1] - s1.v[1]) * n[1] + (s2.v[2] - s1.v[2]) * n[2];
        e = collide_restitution(e, w->def.elastic_below_speed, speed);
    }
    /* with a kinematic body, the free body's gain is the kinematic body's work */
    impulse_sphere *free_one = s1.mass == INFINITY ? &s2 : s2.mass == INFINITY ? &s1 : NULL;
    double before = free_one ? energy_of(free_one) : 0.0;
    impulse_rough_result out;
    if (!impulse_rough_law(&s1, &s2, n, e, beta, &out)) return 0.0;
    if (free_one) w->meas.kinematic_work += energy_of(free_one) - before;
    if (s1.mass < INFINITY) store_sphere(w, i, &s1, t);
    if (s2.mass < INFINITY) store_sphere(w, j, &s2, t);
    *virial = -(dr[0] * out.impulse[0] + dr[1] * out.impulse[1] + dr[2] * out.impulse[2]);
    return sqrt(out.impulse[0] * out.impulse[0] + out.impulse[1] * out.impulse[1] + out.impulse[2] * out.impulse[2]);
}

double rough_wall(carom_world *w, int32_t i, const double outward[3], double e, double beta, double t)
{
    double length = sqrt(outward[0] * outward[0] + outward[1] * outward[1] + outward[2] * outward[2]);
    if (!(length > 0.0)) return 0.0;
    const double n[3] = {-outward[0] / length, -outward[1] / length, -outward[2] / length}; /* wall to body */
    assert(w->mass[i] < INFINITY && "a kinematic body bounces as a smooth one (run.c)");
    impulse_sphere s = sphere_of(w, i);
    impulse_rough_result out;
    if (!impulse_rough_wall(&s, n, e, beta, &out)) return 0.0;
    store_sphere(w, i, &s, t);
    return sqrt(out.impulse[0] * out.impulse[0] + out.impulse[1] * out.impulse[1] + out.impulse[2] * out.impulse[2]);
}
