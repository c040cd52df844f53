/* predict.c — time-of-impact kernels for exact event-driven dynamics.
 *
 * Pair contact: solve |dr + dv s| = sigma, i.e. dv^2 s^2 + 2 b s + c = 0 with
 * b = dr.dv and c = dr^2 - sigma^2. The earlier root is written as
 * s = c / (-b + sqrt(b^2 - dv^2 c)), which never subtracts nearly equal
 * numbers when bodies nearly touch (the textbook (-b - sqrt(disc)) / dv^2 of
 * seed 000 does). A pair that overlaps by round-off and approaches collides at
 * once; one that overlaps and recedes is left alone (Bannerman, Lue & Woodcock,
 * "A stable algorithm for event detection in event-driven particle dynamics",
 * Comput. Part. Mech. 2014).
 *
 * Level crossing under constant acceleration: see predict_crossing in
 * predict.h (the gravity-free case is inline there).
 */
#include "predict.h"

#include <math.h>

double predict_crossing_accelerated(double c, double v, double g)
{
    if (c > 0.0) c = 0.0; /* past the level by round-off: treat as touching */
    double disc = v * v - 2.0 * g * c;
    if (disc < 0.0) return INFINITY; /* turns back before the level */
    if (v > 0.0) return -2.0 * c / (v + sqrt(disc));
    if (g > 0.0) return (-v + sqrt(disc)) / g;
    return INFINITY; /* moving away (or still) and not accelerated towards it */
}

double predict_pair(const double dr[3], const double dv[3], double sigma)
{
    return predict_pair_before(dr, dv, sigma, INFINITY);
}
