/* predict.h — pure time-of-impact kernels (no world, no state). */
#ifndef CAROM_PREDICT_H
#define CAROM_PREDICT_H

/* Earliest s >= 0 at which f(s) = g s^2 / 2 + v s + c crosses zero upwards
 * (f' >= 0 there). c = x0 - level is the signed distance to the level; a
 * positive c (already past the level by round-off) is treated as touching.
 * Returns INFINITY if it never crosses. */
double predict_crossing(double c, double v, double g);

/* Earliest s >= 0 at which two spheres with relative position dr and
 * relative velocity dv (both vectors of 3) come into contact at distance
 * sigma, moving linearly. Overlapping and approaching: 0. Receding,
 * parallel, missing or exactly grazing: INFINITY. */
double predict_pair(const double dr[3], const double dv[3], double sigma);

#endif
