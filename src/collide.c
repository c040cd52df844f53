/* collide.c — instantaneous, frictionless collisions of hard bodies.
 *
 * Seed 004, case 2: the impulse P acts along the contact normal n with
 * P = m_i m_j / (m_i + m_j) (1 + e) (dv . n), so that the normal relative
 * velocity after is -e times the one before and momentum is conserved. With
 * n = dr / |dr| the unit normal is never formed: dv_i = (1 + e) m_j/(m_i+m_j)
 * (dv . dr) / |dr|^2 dr, which needs no square root and conserves energy
 * exactly (up to round-off) at e = 1 whatever |dr| is.
 *
 * A kinematic body (infinite mass) is the limit m_k -> infinity written with
 * inverse masses (the reduced mass is then the free body's own, and m_k never
 * enters): the free body's normal velocity relative to it is reversed and
 * scaled by e, and the kinematic body's velocity does not change.
 */
#include "collide.h"

#include <math.h>

double collide_restitution(double e, double elastic_below_speed, double speed)
{
    return speed < elastic_below_speed ? 1.0 : e;
}

double collide_pair(double vi[3], double vj[3], double mi, double mj, const double dr[3],
                    double e, double elastic_below_speed, double *virial)
{
    double dv[3] = {vj[0] - vi[0], vj[1] - vi[1], vj[2] - vi[2]};
    double b = dr[0] * dv[0] + dr[1] * dv[1] + dr[2] * dv[2];
    double r2 = dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2];
    *virial = 0.0;
    if (b >= 0.0 || r2 <= 0.0) return 0.0; /* grazing or receding: no impulse */
    if (elastic_below_speed > 0.0)
        e = collide_restitution(e, elastic_below_speed, -b / sqrt(r2));
    double k = (1.0 + e) * b / (r2 * (mi + mj)); /* negative */
    for (int a = 0; a < 3; a++) {
        vi[a] += k * mj * dr[a];
        vj[a] -= k * mi * dr[a];
    }
    double reduced = mi * mj / (mi + mj);
    *virial = -(1.0 + e) * reduced * b;
    return -(1.0 + e) * reduced * b / sqrt(r2);
}

double collide_kinematic(double v[3], const double vk[3], double m, const double dr[3], double e,
                         double elastic_below_speed, double *virial)
{
    double dv[3] = {vk[0] - v[0], vk[1] - v[1], vk[2] - v[2]};
    double b = dr[0] * dv[0] + dr[1] * dv[1] + dr[2] * dv[2];
    double r2 = dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2];
    *virial = 0.0;
    if (b >= 0.0 || r2 <= 0.0) return 0.0; /* grazing or receding: no impulse */
    if (elastic_below_speed > 0.0)
        e = collide_restitution(e, elastic_below_speed, -b / sqrt(r2));
    double k = (1.0 + e) * b / r2; /* negative: the free body is pushed along -dr */
    for (int a = 0; a < 3; a++) v[a] += k * dr[a];
    *virial = -(1.0 + e) * m * b;
    return -(1.0 + e) * m * b / sqrt(r2);
}

double collide_wall(double *v, double outward, double mass, double e, double elastic_below_speed)
{
    double speed = *v * outward;
    if (speed <= 0.0) return 0.0;
    e = collide_restitution(e, elastic_below_speed, speed);
    *v = -e * *v;
    return (1.0 + e) * mass * speed;
}
