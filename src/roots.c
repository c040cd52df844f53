/* roots.c — real roots of polynomials of degree <= 4 on an interval,
 * certified by isolation: by Rolle's theorem the roots of p' cut [lo, hi]
 * into pieces on which p is monotone, so a piece holds a root exactly when
 * p takes both signs at its ends (the roots of p' come the same way from
 * p'', down to a linear p^(k)). Each bracketed root is narrowed to adjacent
 * doubles by the Illinois variant of false position (Dowell & Jarratt, BIT
 * 11, 168 (1971)) with a bisection every fourth step, so the count of
 * evaluations is bounded whatever the polynomial. A touch (a double root,
 * a grazing contact) shows as a turning point where the computed p is >= 0
 * between negative values: the walk of roots_first_nonnegative sees it,
 * since it tests p at every turning point. This is the approach of DynamO's
 * overlap-function root search (Bannerman, Sargant & Lue, J. Comput. Chem.
 * 32, 3329 (2011)) and of predict.c's quartic kernel, here for any degree
 * up to 4 and any interval. */
#include "roots.h"

#include <assert.h>
#include <math.h>

double roots_eval(const double *c, int degree, double s)
{
    double p = c[degree];
    for (int i = degree - 1; i >= 0; i--) p = p * s + c[i];
    return p;
}

static int effective_degree(const double *c, int degree)
{
    while (degree > 0 && c[degree] == 0.0) degree--;
    return degree;
}

static void derivative(const double *c, int degree, double *d)
{
    for (int i = 1; i <= degree; i++) d[i - 1] = (double)i * c[i];
}

double roots_refine(const double *c, int degree, double l, double h, int nonnegative_side)
{
    double fl = roots_eval(c, degree, l), fh = roots_eval(c, degree, h);
    const int l_nonnegative = fl >= 0.0;
    assert(l_nonnegative != (fh >= 0.0));
    int last_moved = 0; /* -1: l moved last, +1: h moved last (Illinois halves the stale end) */
    for (int step = 0; step < 512; step++) {
        double mid = l + 0.5 * (h - l);
        if (!(mid > l && mid < h)) break; /* adjacent doubles */
        double x = mid;
        if (step % 4 != 3 && fh != fl) {
            double secant = l - fl * (h - l) / (fh - fl);
            if (secant > l && secant < h) x = secant;
        }
        double fx = roots_eval(c, degree, x);
        if ((fx >= 0.0) == l_nonnegative) {
            l = x, fl = fx;
            if (last_moved == -1) fh *= 0.5;
            last_moved = -1;
        } else {
            h = x, fh = fx;
            if (last_moved == 1) fl *= 0.5;
            last_moved = 1;
        }
    }
    return (l_nonnegative == (nonnegative_side != 0)) ? l : h;
}

int roots_in(const double *c, int degree, double lo, double hi, double *roots)
{
    assert(degree <= ROOTS_MAX_DEGREE && lo < hi);
    degree = effective_degree(c, degree);
    if (degree == 0) return 0;
    double turning[ROOTS_MAX_DEGREE];
    int turning_count = 0;
    if (degree >= 2) {
        double d[ROOTS_MAX_DEGREE];
        derivative(c, degree, d);
        turning_count = roots_in(d, degree - 1, lo, hi, turning);
    }
    int count = 0;
    double prev = lo, f_prev = roots_eval(c, degree, lo);
    for (int k = 0; k <= turning_count; k++) {
        double b = k < turning_count ? turning[k] : hi;
        double f_b = roots_eval(c, degree, b);
        if ((f_prev < 0.0 && f_b > 0.0) || (f_prev > 0.0 && f_b < 0.0)) {
            roots[count++] = roots_refine(c, degree, prev, b, f_b > 0.0);
        }
        if (f_b == 0.0 && k < turning_count) roots[count++] = b; /* a root at a turning point */
        prev = b, f_prev = f_b;
    }
    assert(count <= degree);
    return count;
}

double roots_first_nonnegative(const double *c, int degree, double lo, double hi)
{
    assert(degree <= ROOTS_MAX_DEGREE && lo <= hi);
    degree = effective_degree(c, degree);
    double f_lo = roots_eval(c, degree, lo);
    if (f_lo >= 0.0) return lo;
    if (degree == 0 || !(lo < hi)) return INFINITY;
    double turning[ROOTS_MAX_DEGREE];
    int turning_count = 0;
    if (degree >= 2) {
        double d[ROOTS_MAX_DEGREE];
        derivative(c, degree, d);
        turning_count = roots_in(d, degree - 1, lo, hi, turning);
    }
    double prev = lo;
    for (int k = 0; k <= turning_count; k++) {
        double b = k < turning_count ? turning[k] : hi;
        if (roots_eval(c, degree, b) >= 0.0) return roots_refine(c, degree, prev, b, 1);
        prev = b;
    }
    return INFINITY;
}
