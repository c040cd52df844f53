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

/* ---- pairs under different constant accelerations ------------------------
 *
 * With relative acceleration da the separation is dr + dv s + da s^2 / 2, and
 * contact is a root of the quartic f(s) = |dr + dv s + da s^2/2|^2 - sigma^2
 *   = |da|^2/4 s^4 + (dv.da) s^3 + (|dv|^2 + dr.da) s^2 + 2 (dr.dv) s + c.
 * Closed-form quartic roots lose every digit near double roots (grazing), so
 * the roots are isolated instead: the roots of f'' (a quadratic, in closed
 * form) split [0, H] into pieces where f' is monotone, bisection finds the
 * roots of f' on them, and those split [0, H] into pieces where f is
 * monotone; the first piece on which f falls from above zero to zero or below
 * holds the contact, found by bisection to the last bit. No contact can be
 * skipped: f has no turning point that is not a piece boundary. H is the
 * horizon, capped by Cauchy's bound on the roots (1 + max |coefficient| /
 * leading coefficient). Each bisection ends when the midpoint equals an
 * end, so every loop ends. */

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static double horner(const double q[], int degree, double s)
{
    double f = q[degree];
    for (int k = degree - 1; k >= 0; k--) f = f * s + q[k];
    return f;
}

/* A root of the polynomial q (degree given) in [lo, hi], where it changes
 * sign, to the last bit; returns the end on the side where q has the sign
 * it has at lo. */
static double bisect_root(const double q[], int degree, double lo, double hi)
{
    int rising = horner(q, degree, lo) < 0.0;
    for (;;) {
        double mid = lo + 0.5 * (hi - lo);
        if (!(mid > lo && mid < hi)) return lo;
        double f = horner(q, degree, mid);
        if ((f < 0.0) == rising && f != 0.0) lo = mid;
        else hi = mid;
    }
}

/* Sorted breakpoints in (0, H): the roots in (0, H) of the polynomial q,
 * found on the monotone pieces between the given breakpoints of its
 * derivative. Returns their count (at most count(in) + 1 pieces, one root each). */
static int roots_between(const double q[], int degree, const double in[], int in_count, double out[])
{
    int found = 0;
    for (int k = 0; k + 1 < in_count; k++) {
        double lo = in[k], hi = in[k + 1];
        double flo = horner(q, degree, lo), fhi = horner(q, degree, hi);
        if (flo == 0.0 && k > 0) out[found++] = lo;
        else if ((flo < 0.0 && fhi > 0.0) || (flo > 0.0 && fhi < 0.0)) out[found++] = bisect_root(q, degree, lo, hi);
    }
    return found;
}

/* The roots of a s^2 + b s + c in (0, H), sorted (Numerical Recipes 5.6). */
static int quadratic_roots(double a, double b, double c, double H, double out[2])
{
    double r[2];
    int n = 0;
    if (a == 0.0) {
        if (b != 0.0) r[n++] = -c / b;
    } else {
        double disc = b * b - 4.0 * a * c;
        if (disc >= 0.0) {
            double q = -0.5 * (b + copysign(sqrt(disc), b));
            if (q != 0.0) r[n++] = c / q;
            r[n++] = q / a;
        }
    }
    if (n == 2 && r[0] > r[1]) { double t = r[0]; r[0] = r[1]; r[1] = t; }
    int kept = 0;
    for (int k = 0; k < n; k++)
        if (r[k] > 0.0 && r[k] < H) out[kept++] = r[k];
    return kept;
}

double predict_pair_accelerated(const double dr[3], const double dv[3], const double da[3], double sigma,
                                double horizon)
{
    double f[5], d1[4], d2[3];
    f[0] = dot3(dr, dr) - sigma * sigma;
    f[1] = 2.0 * dot3(dr, dv);
    f[2] = dot3(dv, dv) + dot3(dr, da);
    f[3] = dot3(dv, da);
    f[4] = 0.25 * dot3(da, da);
    if (f[0] <= 0.0 && (f[1] < 0.0 || (f[1] == 0.0 && f[2] < 0.0))) return 0.0; /* touching, closing */
    if (f[4] == 0.0) return predict_pair_before(dr, dv, sigma, horizon);
    double bound = 0.0;
    for (int k = 0; k < 4; k++) bound = fmax(bound, fabs(f[k]));
    double H = fmin(horizon, 1.0 + bound / f[4]);
    if (!(H > 0.0)) return INFINITY;
    for (int k = 1; k <= 4; k++) d1[k - 1] = k * f[k];
    for (int k = 1; k <= 3; k++) d2[k - 1] = k * d1[k];
    double cuts2[4] = {0.0}, cuts1[5] = {0.0};
    int n2 = 1 + quadratic_roots(d2[2], d2[1], d2[0], H, cuts2 + 1);
    cuts2[n2++] = H;
    int n1 = 1 + roots_between(d1, 3, cuts2, n2, cuts1 + 1);
    cuts1[n1++] = H;
    for (int k = 0; k + 1 < n1; k++) {
        double lo = cuts1[k], hi = cuts1[k + 1];
        double flo = horner(f, 4, lo), fhi = horner(f, 4, hi);
        if (flo > 0.0 && fhi <= 0.0) return fhi == 0.0 && hi < H ? hi : bisect_root(f, 4, lo, hi);
        if (flo <= 0.0 && k > 0 && horner(d1, 3, 0.5 * (lo + hi)) < 0.0) return lo; /* overlapping, closing */
    }
    return INFINITY;
}
