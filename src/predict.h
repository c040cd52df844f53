/* predict.h — pure time-of-impact kernels (no world, no state). */
#ifndef CAROM_PREDICT_H
#define CAROM_PREDICT_H

#include <math.h>

/* Earliest s >= 0 at which f(s) = g s^2 / 2 + v s + c crosses zero upwards
 * (f' >= 0 there). c = x0 - level is the signed distance to the level; a
 * positive c (already past the level by round-off) is treated as touching.
 * Returns INFINITY if it never crosses. The root of g s^2/2 + v s + c = 0
 * where the motion goes upwards is s = (-v + sqrt(v^2 - 2 g c)) / g,
 * rewritten as -2c / (v + sqrt(...)) when v > 0 so that neither form cancels
 * (Press et al., Numerical Recipes, 5.6). Inline, with g = 0 first: the
 * discriminant is then v^2 exactly, the same bits as the general branch. */
double predict_crossing_accelerated(double c, double v, double g);
static inline double predict_crossing(double c, double v, double g)
{
    if (g != 0.0) return predict_crossing_accelerated(c, v, g);
    if (!(v > 0.0)) return INFINITY; /* moving away or still */
    return -2.0 * (c > 0.0 ? 0.0 : c) / (v + sqrt(v * v)); /* past the level by round-off: touching */
}

/* Earliest s >= 0 at which two spheres with relative position dr and
 * relative velocity dv (both vectors of 3) come into contact at distance
 * sigma, moving linearly. Overlapping and approaching: 0. Receding,
 * parallel, missing or exactly grazing: INFINITY. */
double predict_pair(const double dr[3], const double dv[3], double sigma);

/* predict_pair, but allowed to return INFINITY early when the contact cannot
 * come before horizon (a relative time): every root satisfies
 * s >= c / (-2 b), since sqrt(b^2 - dv^2 c) <= -b, so a pair with
 * c > -2 b horizon is rejected before the square root and the division
 * (the margin of 1e-9 keeps any root that could round to below the horizon).
 * Whenever it does not reject, it returns exactly predict_pair's bits. */
static inline double predict_pair_before(const double dr[3], const double dv[3], double sigma,
                                         double horizon)
{
    double b = dr[0] * dv[0] + dr[1] * dv[1] + dr[2] * dv[2];
    if (b >= 0.0) return INFINITY; /* receding or moving parallel */
    double c = dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2] - sigma * sigma;
    if (c <= 0.0) return 0.0; /* touching or overlapping, and approaching */
    if (c > -2.0 * b * horizon * (1.0 + 1e-9)) return INFINITY; /* not before the horizon */
    double a = dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2];
    double disc = b * b - a * c;
    if (disc <= 0.0) return INFINITY; /* misses, or only grazes with no impulse */
    return c / (-b + sqrt(disc));
}

/* Earliest s in [0, horizon) at which two spheres whose relative motion is
 * dr + dv s + da s^2 / 2 (different constant accelerations) come into
 * contact at distance sigma; INFINITY if none. Touching and closing: 0. */
double predict_pair_accelerated(const double dr[3], const double dv[3], const double da[3], double sigma,
                                double horizon);

#endif
