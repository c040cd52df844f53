/* quartic_reference.h — an independent brute-force reference for the contact
 * time of two bodies with different constant accelerations, in long double
 * (x87 extended precision on x86-64: 64-bit significands against double's
 * 53), shared by tests/test_quartic.c and bench/quartic.c. It shares no code
 * with src/predict.c, and finds every turning point by dense sampling and
 * plain bisection where the kernel uses closed forms, Newton and Halley steps
 * and early bounds. It solves, from the definition:
 *
 *   p(s) = dr + dv s + da s^2 / 2,  f(s) = |p(s)|^2 - sigma^2,
 *   the contact is the first s in [0, H) where f falls to zero or below
 *   (Bannerman's rule at s = 0: touching or overlapping and closing is a
 *   contact at once; overlapping and opening is none until the gap opens,
 *   or until it closes again while still overlapping).
 *
 * Method: f and f' are sampled at REFERENCE_SAMPLES + 1 equally spaced points
 * of [0, H], to which the root of f''' (a linear function) and the roots of
 * f'' found between those points are added, so that f' is monotone between
 * neighbouring points; every interval where f' changes sign holds one
 * turning point, refined by bisection of f' to the last long-double bit, so
 * a dip of f between two samples is seen even when no sample falls inside
 * it; the first falling sign change of f (between points, or before a
 * refined minimum) is then bisected to the last bit. The squared distance at s = 0,
 * c = |dr|^2 - sigma^2, is summed exactly from split products (every square
 * of a double is the sum of three long doubles) with a compensated sum, so
 * near-touching pairs keep their digits; f(s) = c + s (2 dr.w + s w.w) with
 * w = dv + s da/2 then has an error of about 2^-64 times its terms.
 */
#ifndef CAROM_QUARTIC_REFERENCE_H
#define CAROM_QUARTIC_REFERENCE_H

#include <math.h>

typedef long double real;

enum { REFERENCE_SAMPLES = 256, REFERENCE_MAX_TURNS = 8 };

typedef struct reference_motion {
    real dr[3], dv[3], da[3], sigma, c;
} reference_motion;

/* What the reference finds on [0, H]. */
typedef struct reference_result {
    real contact;                        /* first contact time, or INFINITY */
    real turn[REFERENCE_MAX_TURNS];      /* refined local minima of f in (0, H) */
    int turns;
    int overlapped;                      /* the contact is where an overlap since s = 0 closes again */
} reference_result;

/* a + b = sum + err exactly (Knuth's TwoSum). */
static inline void reference_two_sum(real a, real b, real *sum, real *err)
{
    real s = a + b, bb = s - a;
    *err = (a - (s - bb)) + (b - bb);
    *sum = s;
}

/* Adds x * x * sign exactly into (sum, comp): x is split into two halves of
 * 26 bits (Veltkamp, in double) whose three products are exact in long double. */
static inline void reference_add_square(double x, real sign, real *sum, real *comp)
{
    double t = 134217729.0 * x;
    double hi = t - (t - x), lo = x - hi;
    real parts[3] = {(real)hi * hi, 2.0L * hi * lo, (real)lo * lo};
    for (int k = 0; k < 3; k++) {
        real e;
        reference_two_sum(*sum, sign * parts[k], sum, &e);
        *comp += e;
    }
}

static inline reference_motion reference_motion_make(const double dr[3], const double dv[3], const double da[3],
                                                     double sigma)
{
    reference_motion m;
    real sum = 0.0L, comp = 0.0L;
    for (int k = 0; k < 3; k++) {
        m.dr[k] = dr[k];
        m.dv[k] = dv[k];
        m.da[k] = da[k];
        reference_add_square(dr[k], 1.0L, &sum, &comp);
    }
    reference_add_square(sigma, -1.0L, &sum, &comp);
    m.sigma = sigma;
    m.c = sum + comp;
    return m;
}

static inline void reference_state(const reference_motion *m, real s, real p[3], real q[3], real w[3])
{
    for (int k = 0; k < 3; k++) {
        w[k] = m->dv[k] + 0.5L * m->da[k] * s;
        p[k] = m->dr[k] + s * w[k];
        q[k] = m->dv[k] + m->da[k] * s;
    }
}

static inline real reference_f(const reference_motion *m, real s)
{
    real p[3], q[3], w[3];
    reference_state(m, s, p, q, w);
    real drw = m->dr[0] * w[0] + m->dr[1] * w[1] + m->dr[2] * w[2];
    real ww = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
    return m->c + s * (2.0L * drw + s * ww);
}

static inline real reference_df(const reference_motion *m, real s)
{
    real p[3], q[3], w[3];
    reference_state(m, s, p, q, w);
    return 2.0L * (p[0] * q[0] + p[1] * q[1] + p[2] * q[2]);
}

static inline real reference_distance(const reference_motion *m, real s)
{
    real p[3], q[3], w[3];
    reference_state(m, s, p, q, w);
    return sqrtl(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
}

/* The gap |p(s)| - sigma, from f so that it keeps its digits near contact. */
static inline real reference_gap(const reference_motion *m, real s)
{
    return reference_f(m, s) / (reference_distance(m, s) + m->sigma);
}

/* d gap / ds = f' / (2 |p|). */
static inline real reference_gap_rate(const reference_motion *m, real s)
{
    return reference_df(m, s) / (2.0L * reference_distance(m, s));
}

/* f''(s) = 2 (|p'|^2 + p.da). */
static inline real reference_d2f(const reference_motion *m, real s)
{
    real p[3], q[3], w[3];
    reference_state(m, s, p, q, w);
    return 2.0L * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + p[0] * m->da[0] + p[1] * m->da[1] + p[2] * m->da[2]);
}

static inline real reference_derivative(const reference_motion *m, int order, real s)
{
    return order == 0 ? reference_f(m, s) : order == 1 ? reference_df(m, s) : reference_d2f(m, s);
}

/* Bisection to the last bit of a sign change of the order-th derivative of
 * f in [lo, hi]; returns the end on lo's side. */
static inline real reference_bisect(const reference_motion *m, int order, real lo, real hi)
{
    int lo_positive = reference_derivative(m, order, lo) > 0.0L;
    for (;;) {
        real mid = lo + 0.5L * (hi - lo);
        if (!(mid > lo && mid < hi)) return lo;
        real v = reference_derivative(m, order, mid);
        if ((v > 0.0L) == lo_positive) lo = mid;
        else hi = mid;
    }
}

/* First nonzero derivative of f at 0, by sign: f' = 2 dr.dv, f'' = 2 (dv.dv + dr.da), f''' = 6 dv.da. */
static inline int reference_closing_at_zero(const reference_motion *m)
{
    real d1 = 0.0L, d2 = 0.0L, d3 = 0.0L;
    for (int k = 0; k < 3; k++) {
        d1 += m->dr[k] * m->dv[k];
        d2 += m->dv[k] * m->dv[k] + m->dr[k] * m->da[k];
        d3 += m->dv[k] * m->da[k];
    }
    if (d1 != 0.0L) return d1 < 0.0L;
    if (d2 != 0.0L) return d2 < 0.0L;
    return d3 < 0.0L;
}

/* The sample points, with the root of f''' (linear) and the roots of f''
 * between them added, so that f' is monotone between neighbours and holds at
 * most one turning point of f there, even when two lie closer than a sample
 * spacing. Returns the count. */
static inline int reference_grid(const reference_motion *m, real H, real grid[REFERENCE_SAMPLES + 4])
{
    real dvda = 0.0L, dada = 0.0L;
    for (int k = 0; k < 3; k++) {
        dvda += m->dv[k] * m->da[k];
        dada += m->da[k] * m->da[k];
    }
    real inflection = -dvda / dada; /* f'''(s) = 6 (dv.da + |da|^2 s) = 0 */
    int n = 0;
    for (int k = 0; k <= REFERENCE_SAMPLES; k++) {
        real s = H * k / REFERENCE_SAMPLES;
        if (n > 0 && inflection > grid[n - 1] && inflection < s) grid[n++] = inflection;
        grid[n++] = s;
    }
    real extra[2];
    int extras = 0;
    for (int k = 0; k + 1 < n && extras < 2; k++) {
        real lo = reference_d2f(m, grid[k]), hi = reference_d2f(m, grid[k + 1]);
        if ((lo < 0.0L && hi > 0.0L) || (lo > 0.0L && hi < 0.0L))
            extra[extras++] = reference_bisect(m, 2, grid[k], grid[k + 1]);
    }
    for (int e = 0; e < extras; e++) { /* insert, keeping the order */
        int k = n++;
        while (k > 0 && grid[k - 1] > extra[e]) {
            grid[k] = grid[k - 1];
            k--;
        }
        grid[k] = extra[e];
    }
    return n;
}

static inline reference_result reference_contact(const reference_motion *m, real H)
{
    reference_result r = {INFINITY, {0}, 0, 0};
    real grid[REFERENCE_SAMPLES + 4];
    int points = reference_grid(m, H, grid);
    real f0 = m->c;
    if (f0 <= 0.0L && reference_closing_at_zero(m)) r.contact = 0.0L;
    int overlapping = f0 <= 0.0L, found = r.contact == 0.0L;
    real s_prev = 0.0L, f_prev = f0, d_prev = reference_df(m, 0.0L);
    for (int k = 1; k < points; k++) {
        real s = grid[k];
        real f = reference_f(m, s), d = reference_df(m, s);
        real end = s, f_end = f; /* where f is monotone from s_prev */
        if (d_prev < 0.0L && d > 0.0L) { /* a minimum inside */
            end = reference_bisect(m, 1, s_prev, s);
            f_end = reference_f(m, end);
            if (r.turns < REFERENCE_MAX_TURNS) r.turn[r.turns++] = end;
        }
        if (d_prev > 0.0L && d < 0.0L) { /* a maximum inside */
            real top = reference_bisect(m, 1, s_prev, s);
            real f_top = reference_f(m, top);
            if (!found && overlapping && f_top <= 0.0L) { /* still overlapping and closing again */
                r.contact = top;
                r.overlapped = found = 1;
            }
            if (f_top > 0.0L) overlapping = 0;
            s_prev = top;
            f_prev = f_top;
        }
        if (!found && !overlapping && f_prev > 0.0L && f_end <= 0.0L) {
            r.contact = reference_bisect(m, 0, s_prev, end);
            found = 1;
        }
        if (f > 0.0L) overlapping = 0;
        s_prev = s;
        f_prev = f;
        d_prev = d;
    }
    if (!(r.contact < H)) r.contact = INFINITY;
    return r;
}

#endif
