/* collide.h — the collision response law, in one place. */
#ifndef CAROM_COLLIDE_H
#define CAROM_COLLIDE_H

/* The effective coefficient of restitution for a collision whose normal
 * approach speed is speed: e, or 1 below elastic_below_speed. */
double collide_restitution(double e, double elastic_below_speed, double speed);

/* Frictionless impulse along the line of centres. dr = x_j - x_i at contact.
 * Changes vi and vj and returns the impulse magnitude |dp|; *virial gets
 * r_ij . dp_i (>= 0). Pairs that do not approach are left alone (0). */
double collide_pair(double vi[3], double vj[3], double mi, double mj, const double dr[3],
                    double e, double elastic_below_speed, double *virial);

/* A free body (velocity v, mass m) and a kinematic one (velocity vk, never
 * changed) with dr = x_kinematic - x_free at contact: as collide_pair with the
 * kinematic mass infinite. Returns |dp|; *virial gets r . dp of the free body. */
double collide_kinematic(double v[3], const double vk[3], double m, const double dr[3], double e,
                         double elastic_below_speed, double *virial);

/* Reflects the velocity component *v along a wall's normal; outward is +1
 * for a wall on the + side, -1 on the - side. A body not moving into the wall
 * is left alone. Returns |dp|. */
double collide_wall(double *v, double outward, double mass, double e, double elastic_below_speed);

#endif
