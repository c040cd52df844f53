/* roots.h — real roots of polynomials of degree <= 4 on a finite interval,
 * isolated through the roots of the derivatives, so that no sign change and
 * no touch of zero at a turning point (as computed) is missed. Used by
 * boundary.c for the times a moving body meets lines, circles, spheres and
 * cylinders. Pure functions. p(s) = c[0] + c[1] s + ... + c[degree] s^degree. */
#ifndef CAROM_ROOTS_H
#define CAROM_ROOTS_H

#define ROOTS_MAX_DEGREE 4

/* p(s) by Horner's rule. */
double roots_eval(const double *c, int degree, double s);

/* The roots of p in the open interval (lo, hi) at which the computed p
 * changes sign or reaches exactly 0 at a turning point, in increasing
 * order; returns their count (at most degree). lo < hi, both finite. They
 * serve as turning points of the integral of p: cubics and quartics are
 * narrowed only to ROOTS_TURNING_WIDTH (|lo| + |hi|), where p's integral
 * differs from its extremum by (that)^2, far below its rounding. */
#define ROOTS_TURNING_WIDTH 0x1p-40
int roots_in(const double *c, int degree, double lo, double hi, double *roots);

/* The smallest s in [lo, hi] at which the computed p(s) >= 0, or INFINITY if
 * there is none: lo itself if p(lo) >= 0; otherwise a point where p(s) >= 0
 * whose bracket's other end (< s, p < 0) is the previous double, or within
 * a few ulps of it. A turning point of p (a root of p') inside (lo, hi)
 * with p >= -touch counts too (a double root that rounding left just below
 * 0: a grazing touch); touch >= 0. lo <= hi, both finite. */
double roots_first_nonnegative(const double *c, int degree, double lo, double hi, double touch);

/* The root of p in [l, h] where the computed p(l) and p(h) lie on opposite
 * sides of 0 (p >= 0 counting as one side), narrowed to adjacent doubles
 * (safeguarded Newton, at most 256 steps). Returns the end on the side of
 * p >= 0 if nonnegative_side, else the other. */
double roots_refine(const double *c, int degree, double l, double h, int nonnegative_side);

#endif
