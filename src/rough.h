/* rough.h — collisions of rough disks and spheres in a world: the rough law
 * of impulse.h applied to bodies' velocities and spins (see rough.c). */
#ifndef CAROM_ROUGH_H
#define CAROM_ROUGH_H

#include <stdint.h>

typedef struct carom_world carom_world;

/* Pair collision of slots i and j at time t (both brought to t), dr = x_j - x_i
 * at contact, normal restitution e and tangential restitution beta (the TC
 * model's already applied: 1 and -1 at a lasting contact). Changes velocities and spins (a kinematic
 * body's never), bumps the collision counters of the bodies whose motion
 * may change, counts the energy a kinematic body gives in kinematic_work.
 * Returns |P|; *virial gets r_ij . P (the normal part: P_t is normal to r_ij).
 * Pairs that do not approach are left alone (0). */
double rough_pair(carom_world *w, int32_t i, int32_t j, const double dr[3], double e, double beta, double t,
                  double *virial);

/* Body slot i (at time t) against a wall or the container whose outward
 * normal (from the body's side towards the wall) is outward, not
 * necessarily unit, with restitutions e and beta. Returns |P| (0 if the
 * body does not approach). Free bodies only: a kinematic body bounces as a
 * smooth one (the wall is the heavier, and neither turns the other). */
double rough_wall(carom_world *w, int32_t i, const double outward[3], double e, double beta, double t);

#endif
