/* boundary.c — interim: conservative advancement on the container's distance
 * (replaced by the exact engine of the boundary branch). */
#include "boundary.h"

#include <math.h>

static void position_at(const double x[3], const double v[3], const double a[3], double s, double out[3])
{
    for (int k = 0; k < 3; k++) out[k] = x[k] + v[k] * s + 0.5 * a[k] * s * s;
}

int boundary_contact_time(const carom_container *c, const double x[3], const double v[3], const double a[3],
                          double radius, double horizon, double *time)
{
    double acc = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), L = c->lipschitz, s = 0.0;
    double eps = 1e-12 * (1.0 + radius);
    *time = INFINITY;
    for (int step = 0; step < 100000 && s < horizon; step++) {
        double p[3], g[3], vel[3];
        position_at(x, v, a, s, p);
        for (int k = 0; k < 3; k++) vel[k] = v[k] + a[k] * s;
        double f = container_distance(c, p, g) - radius;
        double speed = sqrt(vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2]);
        double closing = -(vel[0] * g[0] + vel[1] * g[1] + vel[2] * g[2]);
        if (f <= eps && closing > 0.0) {
            *time = s;
            return 0;
        }
        double room = fmax(f, eps) / L;
        double delta = 2.0 * room / (speed + sqrt(speed * speed + 2.0 * acc * room));
        if (!(delta > 0.0) || !isfinite(delta)) return 0;
        s += delta;
    }
    return 0;
}

void boundary_outward_normal(const carom_container *c, const double x[3], double normal[3])
{
    double g[3];
    container_distance(c, x, g);
    double n = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    for (int k = 0; k < 3; k++) normal[k] = n > 0.0 ? -g[k] / n : 0.0;
}
