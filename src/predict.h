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

/* Whether predict_pair_before(dr, dv, sigma, horizon) may be finite: 0 only
 * where it returns INFINITY at its first or its horizon rejection, from the
 * same arithmetic. Combined with & and |, not && and ||, so that no branch
 * is needed: in a scan of neighbours the outcome is a coin flip, and a
 * mispredicted branch costs more than the few operations it would skip. */
static inline int predict_pair_may_meet(const double dr[3], const double dv[3], double sigma,
                                        double horizon)
{
    double b = dr[0] * dv[0] + dr[1] * dv[1] + dr[2] * dv[2];
    double c = dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2] - sigma * sigma;
    int approaching = (b >= 0.0) == 0, touching = c <= 0.0;
    int within = (c > -2.0 * b * horizon * (1.0 + 1e-9)) == 0;
    return approaching & (touching | within);
}

/* The factor of b in the horizon rejection, for a scan whose horizon only
 * changes when it finds a pair (predict_pair_may_meet_scaled). */
static inline double predict_rejection_scale(double horizon) { return -2.0 * horizon * (1.0 + 1e-9); }

/* predict_pair_may_meet with the rejection c > b * scale, scale =
 * predict_rejection_scale(horizon): one product a pair instead of three.
 * Rounded in another order, the threshold may differ from
 * predict_pair_before's by a few units in the last place, far inside the
 * 1e-9 margin: a pair this rejects and that would pass has
 * c / (-2 b) > horizon (1 + 1e-9) (1 - 1e-15), so a contact time
 * c / (-b + sqrt(b^2 - a c)) >= c / (-2 b) after the horizon, which no scan
 * keeps. So a scan keeps the same pairs, and every time it keeps comes from
 * predict_pair_before, bit for bit. */
static inline int predict_pair_may_meet_scaled(const double dr[3], const double dv[3], double sigma,
                                               double scale)
{
    double b = dr[0] * dv[0] + dr[1] * dv[1] + dr[2] * dv[2];
    double c = dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2] - sigma * sigma;
    int approaching = (b >= 0.0) == 0, touching = c <= 0.0;
    int within = (c > b * scale) == 0;
    return approaching & (touching | within);
}

/* Earliest s in [0, horizon) at which two spheres whose relative motion is
 * p(s) = dr + dv s + da s^2 / 2 (different constant accelerations) come into
 * contact at distance sigma, tangencies included; INFINITY if none. Touching
 * or overlapping and closing (the first nonzero derivative of |p|^2 at 0
 * negative): 0. Overlapping and opening: the time the overlap starts to
 * close again, if it does before the gap opens (Bannerman's rule). The same
 * bits for (-dr, -dv, -da). With da = 0 exactly it returns
 * predict_pair_before(dr, dv, sigma, horizon), bit for bit (which may be a
 * time >= horizon). horizon may be INFINITY. Any input ends in bounded time.
 *
 * Tolerance, with u = 2^-53, g(s) = |p(s)| - sigma the true gap (exact
 * arithmetic on the given doubles), travel(s) = |dv| s + |da| s^2 / 2 and
 *   tol(s) = 4 u (|dr| + travel(s) + sigma), the size of the rounding of p(s),
 *   or, while |dr| <= 1.9 sigma and travel(s) <= 1.9 sigma (a near pair),
 *   the smaller of that and 8 u (|c| / (2 sigma) + travel(s)), c = |dr|^2 - sigma^2:
 *  - no contact is missed: g >= -tol at every time before the returned one
 *    (before horizon when it returns INFINITY);
 *  - a returned s > 0 is a contact: |g(s)| <= tol(s);
 *  - so where the gap closes at speed >= v_n between s and the true contact
 *    s*, |s - s*| <= tol(s*) / v_n + 4 ulp(s*): a relative error below 1e-14
 *    wherever tol / (v_n s*) <= 5e-15, which leaves out grazing contacts
 *    (v_n -> 0), whose time the inputs' rounding does not fix that well.
 * Measured on 1.2e5 cases against a long-double reference (tests/test_quartic.c):
 * |g(s)| <= 0.32 tol, errors <= 0.30 of the bound above, relative errors
 * <= 1.0e-15 on the 1.9e4 well-conditioned contacts (<= 6e-15 on every
 * aimed contact); bench/quartic.c: 45 ns per call on an air-hockey mix,
 * 91 ns when a contact is found, relative errors <= 5e-15 there. */
double predict_pair_accelerated(const double dr[3], const double dv[3], const double da[3], double sigma,
                                double horizon);

#endif
