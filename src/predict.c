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

#include <float.h>
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
 * With relative acceleration da the separation is p(s) = dr + dv s + da s^2/2
 * and contact is the first falling zero of the quartic
 *   f(s) = |p(s)|^2 - sigma^2
 *        = |da|^2/4 s^4 + (dv.da) s^3 + (|dv|^2 + dr.da) s^2 + 2 (dr.dv) s + c.
 * Closed-form quartic roots lose every digit near double roots (grazing), so
 * the roots are isolated instead, through the turning points (the idea of
 * DynamO's root search for overlap functions: Bannerman, Sargant & Lue,
 * "DynamO: a free O(N) general event-driven molecular dynamics simulator",
 * J. Comput. Chem. 32, 3329 (2011)): the roots of f'' (a quadratic, closed
 * form, Numerical Recipes 5.6) cut [0, H] into pieces where f' is monotone,
 * so f has at most one turning point in each. Walking the pieces in order, a
 * piece whose end has f <= 0 brackets the first contact at once; otherwise
 * only a minimum inside it (f' from - to +, f convex there) is hunted, by
 * Newton's method on f', until f <= 0 at some point (a contact before it) or
 * the tangents at the bracket's ends, which f lies above, prove the minimum
 * positive. No contact is skipped: f has no turning point that a piece does
 * not account for. A contact is refined in its bracket by Halley's method
 * (cubic convergence, f'' comes with every evaluation; Traub, "Iterative
 * methods for the solution of equations", 1964) from the root of f's Taylor
 * quadratic at the bracket's start (the quadratic kernel's formula); every
 * step that leaves the bracket, and every step after NEWTON_STEPS, is a
 * bisection (as Numerical Recipes' rtsafe, 9.4). It ends when the bracket's
 * ends are adjacent doubles, or when a step below 2^-30 of the time is taken
 * where |f f''| <= 2^-20 f'^2 (no turning point near, where Halley's
 * iteration could stall): its error is then below 2^-50 of the time
 * (Kantorovich's bound for Newton's method). So every loop ends, after at
 * most NEWTON_STEPS + ~1100 evaluations; ordinary contacts take 2 to 4,
 * exact tangencies about 30.
 *
 * Evaluation. f is computed from the vector p(s) (error ~ u (|dr| + |dv| s +
 * |da| s^2/2) sigma, u = 2^-53: backward stable, unlike the expanded
 * polynomial whose terms reach |dr|^2), except while |dr| and |dv + da s/2| s
 * stay below 2 sigma, where f = c + s (2 dr.w + s |w|^2), w = dv + da s/2,
 * with c = |dr|^2 - sigma^2 summed exactly from Dekker's split products and a
 * compensated sum (Ogita, Rump & Oishi, "Accurate sum and dot product", SIAM
 * J. Sci. Comput. 26, 1955 (2005)): nearly touching pairs then keep the
 * relative accuracy of their small contact times. Every quantity is even in
 * (dr, dv, da), so the pair seen from the other body gives the same bits.
 *
 * Range. The triangle inequality bounds the gap: |p(s)| - sigma >=
 * |dr| - sigma - |dv| s - |da| s^2/2, so a pair with |dr| - sigma > |dv| H +
 * |da| H^2/2 cannot meet before H (rejected with three square roots, no
 * root finding; the quadratic kernel's rejection c > -2 b H is false here),
 * and |p(s)| >= |da| s^2/2 - |dv| s - |dr| > sigma past
 * s_far = (|dv| + sqrt(|dv|^2 + 2 |da| (|dr| + sigma))) / |da|, which caps an
 * infinite horizon (a scale-free bound in the spirit of Fujiwara's, tighter
 * than Cauchy's 1 + max |coefficient| / leading one, whose terms mix units). */

enum { NEWTON_STEPS = 24 };

typedef struct quartic_motion {
    double dr[3], dv[3], da[3], half_da[3];
    double c;             /* f(0) = |dr|^2 - sigma^2, compensated when near */
    double sigma, sigma2; /* sigma, sigma^2 */
    double near_limit;    /* (2 sigma)^2, or -1 when |dr| > 2 sigma: see evaluate */
    double r, v, a;       /* |dr|, |dv|, |da| */
} quartic_motion;

/* f and its first two derivatives at one time. */
typedef struct jet {
    double f, d1, d2;
} jet;

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* x * y = hi + lo exactly (Dekker's product through Veltkamp's split; no
 * fused multiply-add, which builds here need not have). */
static void two_product(double x, double y, double *hi, double *lo)
{
    double tx = 134217729.0 * x, ty = 134217729.0 * y;
    double xh = tx - (tx - x), xl = x - xh, yh = ty - (ty - y), yl = y - yh;
    *hi = x * y;
    *lo = ((xh * yh - *hi) + xh * yl + xl * yh) + xl * yl;
}

/* a + b = sum + err exactly (Knuth's TwoSum). */
static void two_sum(double a, double b, double *sum, double *err)
{
    double s = a + b, bb = s - a;
    *err = (a - (s - bb)) + (b - bb);
    *sum = s;
}

/* |dr|^2 - sigma^2 as if summed in twice the precision (Ogita-Rump-Oishi Sum2). */
static double gap_square_accurate(const double dr[3], double sigma)
{
    double sum, comp, hi, lo, err;
    two_product(-sigma, sigma, &sum, &comp);
    for (int k = 0; k < 3; k++) {
        two_product(dr[k], dr[k], &hi, &lo);
        two_sum(sum, hi, &sum, &err);
        comp += err + lo;
    }
    return sum + comp;
}

static void quartic_motion_init(quartic_motion *m, const double dr[3], const double dv[3], const double da[3],
                                double sigma)
{
    for (int k = 0; k < 3; k++) {
        m->dr[k] = dr[k];
        m->dv[k] = dv[k];
        m->da[k] = da[k];
        m->half_da[k] = 0.5 * da[k];
    }
    m->sigma = sigma;
    m->sigma2 = sigma * sigma;
    double dr2 = dot3(dr, dr);
    /* Dekker's split is exact below 2^996; the pair is near only well below that. */
    int near = dr2 <= 4.0 * m->sigma2 && sigma < 0x1p480;
    m->near_limit = near ? 4.0 * m->sigma2 : -1.0;
    m->c = near ? gap_square_accurate(dr, sigma) : dr2 - m->sigma2;
    m->r = sqrt(dr2);
    m->v = sqrt(dot3(dv, dv));
    m->a = sqrt(dot3(da, da));
}

static jet evaluate(const quartic_motion *m, double s)
{
    double w[3], p[3], q[3];
    for (int k = 0; k < 3; k++) {
        w[k] = m->dv[k] + s * m->half_da[k];
        p[k] = m->dr[k] + s * w[k];
        q[k] = w[k] + s * m->half_da[k]; /* p'(s) = dv + da s */
    }
    jet j;
    j.d1 = 2.0 * dot3(p, q);
    j.d2 = 2.0 * (dot3(q, q) + dot3(p, m->da));
    double ww = dot3(w, w);
    if (s * s * ww <= m->near_limit) j.f = m->c + s * (2.0 * dot3(m->dr, w) + s * ww);
    else j.f = dot3(p, p) - m->sigma2;
    return j;
}

/* The contact in [lo, hi], where f(lo) > 0 >= f(hi) and f falls through
 * zero once: the last double with f > 0, or a time within 2^-50 of the root
 * (see the note above). The first guess is the root of f's Taylor quadratic
 * at lo (the quadratic kernel's formula, exact when the accelerations' terms
 * vanish), else the secant; then Halley's method within the bracket. */
static double refine_root(const quartic_motion *m, double lo, double hi, jet j_lo, jet j_hi)
{
    double disc = j_lo.d1 * j_lo.d1 - 2.0 * j_lo.d2 * j_lo.f;
    double x = j_lo.d1 < 0.0 && disc >= 0.0 ? lo + 2.0 * j_lo.f / (-j_lo.d1 + sqrt(disc))
                                             : lo + (hi - lo) * (j_lo.f / (j_lo.f - j_hi.f));
    for (int step = 0;; step++) {
        if (!(x > lo && x < hi)) {
            x = lo + 0.5 * (hi - lo);
            if (!(x > lo && x < hi)) return lo; /* adjacent: done */
        }
        jet j = evaluate(m, x);
        if (j.f > 0.0) lo = x;
        else hi = x;
        double next = lo + 0.5 * (hi - lo);
        if (step < NEWTON_STEPS) {
            double halley = 2.0 * j.f * j.d1 / (2.0 * j.d1 * j.d1 - j.f * j.d2);
            /* Far from a turning point (|f f''| <= 2^-20 f'^2, where Halley's
             * step is Newton's to 2^-21), a step below 2^-30 x leaves an
             * error below |f''| step^2 / |f'| <= 2^-50 x (Kantorovich):
             * take it and stop, within the bracket. Near a turning point,
             * where Halley's iteration can stall, the bracket decides. */
            if (fabs(halley) <= 0x1p-30 * x && fabs(j.f * j.d2) <= 0x1p-20 * j.d1 * j.d1)
                return fmin(fmax(x - halley, lo), hi);
            next = x - halley;
        }
        if (next == x) next = nextafter(x, x == lo ? hi : lo); /* stalled: close the bracket */
        x = next;
    }
}

/* The turning point of f in [lo, hi], where f' changes sign from d_lo to
 * d_hi: Newton's method on f' within the bracket, to adjacent doubles. */
static double refine_turn(const quartic_motion *m, double lo, double hi, double d_lo, double d_hi)
{
    int rising = d_lo < 0.0;
    double x = lo + (hi - lo) * (d_lo / (d_lo - d_hi));
    for (int step = 0;; step++) {
        if (!(x > lo && x < hi)) {
            x = lo + 0.5 * (hi - lo);
            if (!(x > lo && x < hi)) return lo;
        }
        jet j = evaluate(m, x);
        if (j.d1 != 0.0 && (j.d1 < 0.0) == rising) lo = x;
        else hi = x;
        double next = step < NEWTON_STEPS ? x - j.d1 / j.d2 : lo + 0.5 * (hi - lo);
        if (next == x) next = nextafter(x, x == lo ? hi : lo);
        x = next;
    }
}

/* f on [lo, hi] is convex (f' rises through zero) with f(lo) > 0: a time x
 * in (lo, hi) with f(x) <= 0, so that the contact lies in [lo, x], or -1
 * when f stays positive there. Newton's method on f' hunts the minimum;
 * convexity ends it early: f lies above its tangents at lo and hi, so their
 * crossing bounds the minimum from below, and a bound above the evaluation
 * error (8 u L (L + |p'| (hi - lo)), L = |dr| + |dv| s + |da| s^2/2, a wide
 * overestimate) proves that f has no zero there. */
static double dip_below(const quartic_motion *m, double lo, double hi, jet j_lo, jet j_hi, jet *j_dip)
{
    double L = m->r + hi * (m->v + 0.5 * m->a * hi), speed = m->v + m->a * hi;
    jet j = j_lo;
    double x = lo;
    for (int step = 0;; step++) {
        double width = hi - lo;
        double cross = (j_lo.f - j_hi.f + j_hi.d1 * width) / (j_hi.d1 - j_lo.d1);
        double bound = j_lo.f + j_lo.d1 * cross;
        if (bound > 8.0 * 0x1p-53 * L * (L + speed * width)) return -1.0;
        double next = step < NEWTON_STEPS ? x - j.d1 / j.d2 : lo + 0.5 * (hi - lo);
        if (!(next > lo && next < hi)) next = lo + 0.5 * (hi - lo);
        if (!(next > lo && next < hi)) return -1.0; /* adjacent, f > 0 at both */
        x = next;
        j = evaluate(m, x);
        if (j.f <= 0.0) {
            *j_dip = j;
            return x;
        }
        if (j.d1 < 0.0) {
            lo = x;
            j_lo = j;
        } else {
            hi = x;
            j_hi = j;
        }
    }
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
    if (n == 2 && r[0] > r[1]) {
        double t = r[0];
        r[0] = r[1];
        r[1] = t;
    }
    int kept = 0;
    for (int k = 0; k < n; k++)
        if (r[k] > 0.0 && r[k] < H) out[kept++] = r[k];
    return kept;
}

/* Touching or overlapping (c <= 0) and closing: the first nonzero derivative
 * of f at 0 is negative (f' = 2 dr.dv, f'' = 2 (|dv|^2 + dr.da), f''' = 6 dv.da;
 * f'''' > 0). */
static int closing_now(const quartic_motion *m)
{
    double d1 = dot3(m->dr, m->dv), d2 = dot3(m->dv, m->dv) + dot3(m->dr, m->da), d3 = dot3(m->dv, m->da);
    if (d1 != 0.0) return d1 < 0.0;
    if (d2 != 0.0) return d2 < 0.0;
    return d3 < 0.0;
}

/* The end of the search: the horizon, capped by s_far; 0 when the gap
 * provably stays open until the horizon (see the range note above; the
 * margins of 1e-12 cover the rounding of the norms many times over). */
static double search_end(const quartic_motion *m, double horizon)
{
    double r = m->r, v = m->v, a = m->a, sigma = m->sigma;
    double H = horizon;
    if (!(H < DBL_MAX)) H = fmin((v + sqrt(v * v + 2.0 * a * (r + sigma))) / a * (1.0 + 1e-12), DBL_MAX);
    double reach = v * H + 0.5 * a * H * H;
    if ((r - sigma) - reach > 1e-12 * (r + sigma + reach)) return 0.0;
    return H;
}

/* The walk over the pieces where f' is monotone (see the note above). */
static double first_contact(const quartic_motion *m, double H)
{
    double cuts[3];
    int n = quadratic_roots(3.0 * m->a * m->a, 6.0 * dot3(m->dv, m->da),
                            2.0 * (m->v * m->v + dot3(m->dr, m->da)), H, cuts);
    cuts[n++] = H;
    double a = 0.0;
    jet j_a = {m->c, 2.0 * dot3(m->dr, m->dv), 2.0 * (dot3(m->dv, m->dv) + dot3(m->dr, m->da))};
    int overlapping = j_a.f <= 0.0;
    for (int k = 0; k < n; k++) {
        double b = cuts[k];
        jet j_b = evaluate(m, b), j_dip;
        int minimum = j_a.d1 < 0.0 && j_b.d1 >= 0.0, maximum = j_a.d1 > 0.0 && j_b.d1 <= 0.0;
        if (!overlapping && j_b.f <= 0.0) return refine_root(m, a, b, j_a, j_b); /* falls through zero */
        if (!overlapping && minimum) {
            double x = dip_below(m, a, b, j_a, j_b, &j_dip);
            if (x >= 0.0) return refine_root(m, a, x, j_a, j_dip);
        }
        if (overlapping && maximum) { /* overlapping since 0: closing again at the top, or opened there */
            double t = refine_turn(m, a, b, j_a.d1, j_b.d1);
            jet j_t = evaluate(m, t);
            if (j_t.f <= 0.0) return t;
            overlapping = 0;
            if (j_b.f <= 0.0) return refine_root(m, t, b, j_t, j_b);
        }
        if (j_b.f > 0.0) overlapping = 0;
        a = b;
        j_a = j_b;
    }
    return INFINITY;
}

double predict_pair_accelerated(const double dr[3], const double dv[3], const double da[3], double sigma,
                                double horizon)
{
    if (da[0] == 0.0 && da[1] == 0.0 && da[2] == 0.0) return predict_pair_before(dr, dv, sigma, horizon);
    quartic_motion m;
    quartic_motion_init(&m, dr, dv, da, sigma);
    if (m.c <= 0.0 && closing_now(&m)) return 0.0; /* touching or overlapping, and closing */
    double H = search_end(&m, horizon);
    if (!(H > 0.0)) return INFINITY;
    return first_contact(&m, H);
}
