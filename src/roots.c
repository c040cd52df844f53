/* roots.c — real roots of polynomials of degree <= 4 on an interval,
 * certified by isolation: by Rolle's theorem the roots of p' cut [lo, hi]
 * into pieces on which p is monotone, so a piece holds a root exactly when
 * p takes both signs at its ends (the roots of p' come the same way from
 * p'', down to a linear p^(k)). Each bracketed root is narrowed to adjacent
 * doubles by Newton's method kept inside its bracket (a bisection whenever
 * a step leaves the bracket or fails to halve the previous one: Press et al.,
 * Numerical Recipes 9.4, "rtsafe"), closed from both sides once it has
 * converged, so the count of evaluations is bounded whatever the
 * polynomial; quadratics (the turning points of cubics) in closed form. A touch (a double root,
 * a grazing contact) shows as a turning point where the computed p is >= 0
 * between negative values: the walk of roots_first_nonnegative sees it,
 * since it tests p at every turning point. This is the approach of DynamO's
 * overlap-function root search (Bannerman, Sargant & Lue, J. Comput. Chem.
 * 32, 3329 (2011)) and of predict.c's quartic kernel, here for any degree
 * up to 4 and any interval. */
#include "roots.h"

#include <assert.h>
#include <float.h>
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

/* p and p' together, by Horner's rule. */
static double eval_with_slope(const double *c, int degree, double s, double *slope)
{
    double p = c[degree], dp = 0.0;
    for (int i = degree - 1; i >= 0; i--) {
        dp = dp * s + p;
        p = p * s + c[i];
    }
    *slope = dp;
    return p;
}

/* Narrows [l, h] by x, keeping p's sides at the ends. */
static void narrow(const double *c, int degree, double x, int l_nonnegative, double *l, double *h)
{
    if (!(x > *l && x < *h)) return;
    if ((roots_eval(c, degree, x) >= 0.0) == l_nonnegative)
        *l = x;
    else
        *h = x;
}

/* roots_refine, stopping once h - l <= width. */
static double refine(const double *c, int degree, double l, double h, int nonnegative_side,
                     double width)
{
    double fl = roots_eval(c, degree, l), fh = roots_eval(c, degree, h);
    const int l_nonnegative = fl >= 0.0;
    assert(l_nonnegative != (fh >= 0.0));
    double x = l - fl * (h - l) / (fh - fl), last_step = h - l;
    if (!(x > l && x < h)) x = l + 0.5 * (h - l);
    for (int step = 0; step < 256; step++) {
        double mid = l + 0.5 * (h - l);
        if (!(mid > l && mid < h) || h - l <= width) break; /* adjacent doubles, or narrow enough */
        double slope, fx = eval_with_slope(c, degree, x, &slope);
        if (fx == 0.0 && nonnegative_side) return x; /* a root exactly */
        if ((fx >= 0.0) == l_nonnegative)
            l = x;
        else
            h = x;
        double next = slope != 0.0 ? x - fx / slope : mid;
        if (next > l && next < h && fabs(next - x) < 0.5 * last_step) {
            last_step = fabs(next - x);
            double close = 4.0 * (fabs(next) * DBL_EPSILON + DBL_MIN);
            if (last_step <= close) { /* Newton has converged: bracket it tightly from both sides */
                narrow(c, degree, next - close, l_nonnegative, &l, &h);
                narrow(c, degree, next + close, l_nonnegative, &l, &h);
                next = l + 0.5 * (h - l);
            }
            x = next;
        } else {
            x = l + 0.5 * (h - l);
            last_step = 0.5 * (h - l);
        }
    }
    return (l_nonnegative == (nonnegative_side != 0)) ? l : h;
}

double roots_refine(const double *c, int degree, double l, double h, int nonnegative_side)
{
    return refine(c, degree, l, h, nonnegative_side, 0.0);
}

/* The real roots of c0 + c1 s + c2 s^2 (c2 != 0) in (lo, hi), in order: the
 * stable form (Press et al., Numerical Recipes 5.6); a double root once. */
static int quadratic_roots_in(const double *c, double lo, double hi, double *roots)
{
    double disc = c[1] * c[1] - 4.0 * c[2] * c[0];
    if (disc < 0.0) return 0;
    double r[2];
    int n = 0;
    if (disc == 0.0) {
        r[n++] = -c[1] / (2.0 * c[2]);
    } else {
        double q = -0.5 * (c[1] + copysign(sqrt(disc), c[1]));
        r[0] = q / c[2];
        r[1] = q != 0.0 ? c[0] / q : r[0];
        if (r[0] > r[1]) {
            double swap = r[0];
            r[0] = r[1], r[1] = swap;
        }
        n = 2;
    }
    int count = 0;
    for (int i = 0; i < n; i++)
        if (r[i] > lo && r[i] < hi) roots[count++] = r[i];
    return count;
}

/* The roots of the derivative in [lo, hi] (none for a line): between them
 * the polynomial is monotone. */
static int turning_points(const double *c, int degree, double lo, double hi, double *turning)
{
    if (degree < 2) return 0;
    double d[ROOTS_MAX_DEGREE];
    derivative(c, degree, d);
    return roots_in(d, degree - 1, lo, hi, turning);
}

int roots_in(const double *c, int degree, double lo, double hi, double *roots)
{
    assert(degree <= ROOTS_MAX_DEGREE && lo < hi);
    degree = effective_degree(c, degree);
    if (degree == 0) return 0;
    if (degree == 2) return quadratic_roots_in(c, lo, hi, roots);
    double turning[ROOTS_MAX_DEGREE];
    int turning_count = turning_points(c, degree, lo, hi, turning);
    int count = 0;
    double prev = lo, f_prev = roots_eval(c, degree, lo),
           width = ROOTS_TURNING_WIDTH * (fabs(lo) + fabs(hi));
    for (int k = 0; k <= turning_count; k++) {
        double b = k < turning_count ? turning[k] : hi;
        double f_b = roots_eval(c, degree, b);
        if ((f_prev < 0.0 && f_b > 0.0) || (f_prev > 0.0 && f_b < 0.0)) {
            roots[count++] = refine(c, degree, prev, b, f_b > 0.0, width);
        }
        if (f_b == 0.0 && k < turning_count) roots[count++] = b; /* a root at a turning point */
        prev = b, f_prev = f_b;
    }
    assert(count <= degree);
    return count;
}

/* The walk of roots_first_nonnegative for a quartic, lazily: the roots of
 * p'' (closed form) cut [lo, hi] into pieces where p' is monotone, so each
 * holds at most one turning point of p, narrowed only when the walk gets
 * there; the walk stops at the first piece of p that ends with p >= 0. */
static double quartic_first_nonnegative(const double *c, double lo, double hi, double touch)
{
    double d[3 + 1], e[2 + 1], split[3];
    derivative(c, 4, d);
    derivative(d, 3, e);
    int splits = quadratic_roots_in(e, lo, hi, split);
    split[splits++] = hi;
    double prev = lo, piece_start = lo, slope_start = roots_eval(d, 3, lo);
    double width = ROOTS_TURNING_WIDTH * (fabs(lo) + fabs(hi));
    for (int k = 0; k < splits; k++) {
        double q = split[k], slope_q = roots_eval(d, 3, q);
        if ((slope_start < 0.0 && slope_q > 0.0) || (slope_start > 0.0 && slope_q < 0.0)) {
            double b = refine(d, 3, piece_start, q, slope_q > 0.0, width),
                   f_b = roots_eval(c, 4, b);
            if (f_b >= 0.0) return roots_refine(c, 4, prev, b, 1);
            if (f_b >= -touch) return b; /* a touch */
            prev = b;
        }
        double f_q = roots_eval(c, 4, q);
        if (f_q >= 0.0) return roots_refine(c, 4, prev, q, 1);
        if (slope_q == 0.0 && q < hi && f_q >= -touch)
            return q; /* a touch at a turning point of p' too */
        piece_start = q, slope_start = slope_q;
    }
    return INFINITY;
}

double roots_first_nonnegative(const double *c, int degree, double lo, double hi, double touch)
{
    assert(degree <= ROOTS_MAX_DEGREE && lo <= hi);
    degree = effective_degree(c, degree);
    double f_lo = roots_eval(c, degree, lo);
    if (f_lo >= 0.0) return lo;
    if (degree == 0 || !(lo < hi)) return INFINITY;
    if (degree == 4) return quartic_first_nonnegative(c, lo, hi, touch);
    double turning[ROOTS_MAX_DEGREE];
    int turning_count = turning_points(c, degree, lo, hi, turning);
    double prev = lo;
    for (int k = 0; k <= turning_count; k++) {
        double b = k < turning_count ? turning[k] : hi, f_b = roots_eval(c, degree, b);
        if (f_b >= 0.0) return roots_refine(c, degree, prev, b, 1);
        if (k < turning_count && f_b >= -touch) return b; /* a touch */
        prev = b;
    }
    return INFINITY;
}
