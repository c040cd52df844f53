/* filter.c — the safety filter of seed 003: a body steered by a player's
 * acceleration a_p that can never reach a wall, as pure functions.
 *
 * The seed (continuous time). A body at speed v brakes to rest within
 * v^2 / 2a_max at full braking -a_max v/|v|, on a straight path. The
 * clearance s (distance to the wall less the radius) is 1-Lipschitz, so it
 * falls by at most the distance travelled, while v^2 / 2a_max falls by
 * exactly that: h = s - v^2/2a_max never decreases under full braking, and
 * braking fully whenever v >= v_max = sqrt(2 a_max s) keeps h >= 0, s >= 0.
 * Below sigma v_max the input passes untouched; between, a_p is blended with
 * full braking by lambda (linear or quadratic in v / v_max), a = (1 - lambda)
 * a_p - lambda b v/|v|. The input is first clamped to a_max, so the blend of
 * two vectors no longer than a_max needs no rescaling but for round-off.
 *
 * The discrete guarantee (window dt > 0: each output is held for dt; the
 * derivation behind filter_reach and filter_braking_room). Write a = a_max.
 *  1. Held braking must not reverse the body, so it is b = min(a, v/dt)
 *     along -v/|v|: a body slower than a dt stops exactly at the window's
 *     end. Its stopping distance, window by window, is at most
 *         B(v) = v dt / 2                    for v <= a dt (one soft stop),
 *         B(v) = v^2 / 2a + a dt^2 / 8       for v >  a dt,
 *     (the whole windows at a travel (v^2 - v'^2)/2a; the last soft stop
 *     from v_r < a dt travels v_r dt / 2, at most a dt^2/8 more than
 *     v_r^2/2a, with equality at v_r = a dt / 2).
 *  2. The invariant is I: s >= B(v) at every window start. Full braking
 *     keeps it: the path is straight, s falls by at most the distance d
 *     travelled, and B(v) - B(v') >= d: with equality between whole
 *     windows; for a soft stop B(v') = 0 and d = v dt/2 = B(v); and from
 *     v > a dt to v' = v - a dt <= a dt, B(v) - d - B(v') = (v - 3a dt/2)^2
 *     / 2a >= 0.
 *  3. Any input (|u| <= a, in any direction, even changing inside the
 *     window) moves the body at most v dt + a dt^2/2 and leaves it at most
 *     v + a dt fast; since B(w) <= w^2/2a + a dt^2/8 for every w, I holds
 *     at the next window start, and s >= 0 all along the window, if
 *         s >= v dt + a dt^2/2 + (v + a dt)^2/2a + a dt^2/8
 *           = v^2/2a + 2 v dt + 9/8 a dt^2 = M(v)       (filter_reach).
 *     So the filter uses the clearance with that margin, s_eff = s - 2 v dt
 *     - 9/8 a dt^2, v_max = sqrt(2 a s_eff), and brakes fully once v >=
 *     v_max: lambda < 1 only where s > M(v). With dt = 0 this is the seed.
 *  4. A slow body (v < a dt) with v >= v_max is not stopped outright: an
 *     input held at most alpha long keeps I (it ends at most v + alpha dt <=
 *     a dt fast, so B is the soft stop) if s >= 3/2 v dt + alpha dt^2: the
 *     input is clamped to alpha = min(a - v/dt, (s - 3/2 v dt)/dt^2) when
 *     that is positive. This is what lets a body at rest near a wall move
 *     again (full braking at rest is no acceleration at all).
 * Tightness: from s = M(v) - eps with v = (k + 1/2) a dt, an input of a
 * straight at a flat wall for one window leaves the body at v' = (k + 3/2)
 * a dt with s' = B(v') - eps, whose braking ends eps beyond the wall; so no
 * smaller margin keeps the naive law safe (test_filter shows both sides).
 * The guarantee needs a body that starts with s >= B(v) (at rest inside
 * will do) and an s that is 1-Lipschitz and never above the true distance
 * (the world divides a caller's SDF by its Lipschitz bound).
 *
 * The directional law (beyond the seed) applies the linear law to the
 * approach speed v_n = max(0, -v.n) along the inward normal n = grad s only,
 * blends the normal component of a_p with braking along +n, and keeps the
 * tangential part (shortened if |a| would exceed a_max). Steps 1-4 hold
 * along n word for word while n and the distance along it describe the
 * wall, i.e. for one flat wall (a half-space, a box or polygon side away
 * from corners). They do not at a corner (a body sliding along one side
 * meets the next one with all its speed) nor on a curved wall (sliding at
 * u along a wall of radius R adds an approach acceleration u^2 / R): there
 * it is a heuristic, not a guarantee.
 *
 * The backup law follows the optimally interpolated controller of van
 * Wijk, Das, Molnar, Ames & Burdick, "Safety-critical control with bounded
 * inputs: a closed-form solution for backup control barrier functions"
 * (arXiv 2510.05436, 2025): blend the input with a backup controller (here
 * full braking b) by the least lambda meeting the barrier condition
 * dh/dt >= -kappa h. Its barrier is h = s - M(|v|) (positive exactly where
 * v < v_max); dh/dt = v.n - (|v|/a + 2 dt) (v/|v|).u is affine in u, so the
 * least lambda is a closed form; kappa = 2 a sigma^2 / (|v| (1 - sigma^2))
 * makes a body coasting straight at a wall meet the condition's edge at
 * v = sigma v_max, as the linear law starts there. As for every law here,
 * lambda = 1 at v >= v_max, so the discrete guarantee above holds for it.
 */
#include "filter.h"

#include <assert.h>
#include <math.h>

carom_filter_def carom_default_filter_def(void)
{
    carom_filter_def def = {0};
    def.law = CAROM_FILTER_LINEAR;
    def.max_acceleration = 1.0;
    def.safety = 0.5;
    def.window = 0.0;
    return def;
}

const char *filter_def_problem(const carom_filter_def *def)
{
    if (!def) return "def: expected a filter definition, got NULL";
    if ((int)def->law < (int)CAROM_FILTER_OFF || (int)def->law > (int)CAROM_FILTER_BACKUP)
        return "law: expected one of CAROM_FILTER_OFF ... CAROM_FILTER_BACKUP";
    double a = def->max_acceleration;
    if (!(a >= 1e-75 && a <= 1e75)) return "max_acceleration: expected a number from 1e-75 to 1e75";
    if (!(def->safety >= 0.0 && def->safety < 1.0)) return "safety: expected a number in [0, 1)";
    if (!(def->window >= 0.0 && def->window <= 1e75)) return "window: expected 0 or a time up to 1e75";
    return NULL;
}

static double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

double filter_skin(double scale) { return fabs(scale) * 0x1p-36; }

double filter_length(const double x[3])
{
    double m = fmax(fabs(x[0]), fmax(fabs(x[1]), fabs(x[2])));
    if (m == 0.0) return 0.0;
    if (m > 1e150 || m < 1e-150) {
        const double y[3] = {x[0] / m, x[1] / m, x[2] / m};
        return m * sqrt(dot(y, y));
    }
    return sqrt(dot(x, x));
}

/* out = in, shortened to length limit if longer (to within round-off from
 * below: filter_length(out) <= limit holds for the bits written). */
static void clamp_length(double out[3], const double in[3], double limit)
{
    for (int k = 0; k < 3; k++) out[k] = in[k];
    double length = filter_length(in);
    if (length <= limit) return;
    double scale = limit / length;
    for (int k = 0; k < 3; k++) out[k] = in[k] * scale;
    while (filter_length(out) > limit)
        for (int k = 0; k < 3; k++) out[k] *= 1.0 - 0x1p-52;
}

double filter_braking_room(const carom_filter_def *def, double speed)
{
    double a = def->max_acceleration, dt = def->window;
    if (dt > 0.0 && speed <= a * dt) return 0.5 * speed * dt;
    return speed * speed / (2.0 * a) + 0.125 * a * dt * dt;
}

/* M(v) - v^2 / 2a: what a window's held input and its soft stop cost. */
static double window_margin(const carom_filter_def *def, double speed)
{
    double a = def->max_acceleration, dt = def->window;
    return 2.0 * speed * dt + 1.125 * a * dt * dt;
}

double filter_reach(const carom_filter_def *def, double speed)
{
    return speed * speed / (2.0 * def->max_acceleration) + window_margin(def, speed);
}

/* v / v_max with the window's margin (speed > 0). */
static double ratio_of(const carom_filter_def *def, double clearance, double speed)
{
    double room = clearance - window_margin(def, speed);
    if (!(room > 0.0)) return INFINITY;
    return speed / sqrt(2.0 * def->max_acceleration * room);
}

/* v / v_max at rest: 0, or 1 (0 / 0, the limit) with a window and no room
 * left by its margin, where the slow rule may act. */
static double rest_ratio(const carom_filter_def *def, double clearance)
{
    return def->window > 0.0 && !(clearance - window_margin(def, 0.0) > 0.0) ? 1.0 : 0.0;
}

/* lambda of the seed's laws for sigma <= ratio < 1. */
static double seed_lambda(const carom_filter_def *def, double ratio)
{
    double sigma = def->safety, lambda;
    if (def->law == CAROM_FILTER_QUADRATIC)
        lambda = (ratio * ratio - sigma * sigma) / (1.0 - sigma * sigma);
    else
        lambda = (ratio - sigma) / (1.0 - sigma);
    return fmin(1.0, fmax(0.0, lambda));
}

/* The backup law's lambda for sigma <= ratio < 1 (file comment): the least
 * blend with braking b along -vhat meeting dh/dt >= -kappa h. */
static double backup_lambda(const carom_filter_def *def, double clearance, const double n[3],
                            const double v[3], double speed, const double input[3], double b)
{
    double a = def->max_acceleration, sigma = def->safety;
    double h = clearance - filter_reach(def, speed);
    double k = speed / a + 2.0 * def->window;
    double approach = dot(n, v), along = dot(v, input) / speed;
    double rate_input = approach - k * along, rate_brake = approach + k * b;
    double floor_rate = -(2.0 * a * sigma * sigma / (speed * (1.0 - sigma * sigma))) * h;
    if (rate_input >= floor_rate) return 0.0;
    if (!(rate_brake > rate_input)) return 1.0;
    double lambda = (floor_rate - rate_input) / (rate_brake - rate_input);
    return fmin(1.0, fmax(0.0, lambda));
}

/* The slow-body rule (file comment, step 4): alpha, or a value <= 0 when it
 * does not apply. approach is the speed that counts (v, or v_n). */
static double slow_allowance(const carom_filter_def *def, double clearance, double approach)
{
    double a = def->max_acceleration, dt = def->window;
    if (!(dt > 0.0) || !(approach < a * dt)) return 0.0;
    return fmin(a - approach / dt, (clearance - 1.5 * approach * dt) / (dt * dt));
}

static int same_bits(const double a[3], const double b[3])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && signbit(a[0]) == signbit(b[0]) &&
           signbit(a[1]) == signbit(b[1]) && signbit(a[2]) == signbit(b[2]);
}

static void write_result(carom_filter_result *r, const double a[3], const double clamped_input[3], double lambda,
                         double ratio)
{
    r->acceleration = (carom_vec){a[0], a[1], a[2]};
    r->criticality = lambda;
    r->speed_ratio = ratio;
    r->acted = !same_bits(a, clamped_input);
}

/* Writes the input clamped to limit (at most the clamped input p's length)
 * as the slow rule's output: lambda is the share of |p| withheld. */
static void write_slow(carom_filter_result *r, const double p[3], double limit, double ratio)
{
    double out[3];
    clamp_length(out, p, limit);
    double length = filter_length(p);
    double lambda = length > 0.0 ? 1.0 - filter_length(out) / length : 0.0;
    write_result(r, out, p, fmin(1.0, fmax(0.0, lambda)), ratio);
}

/* Every law but the directional one: braking along -v/|v|. */
static void filter_along_velocity(const carom_filter_def *def, const filter_constraint *c, const double v[3],
                                  const double p[3], carom_filter_result *r)
{
    double a = def->max_acceleration, dt = def->window, s = c->clearance;
    double speed = filter_length(v);
    if (speed == 0.0) { /* no braking direction: the input, or at rest with no room the slow rule */
        if (dt > 0.0) write_slow(r, p, fmax(0.0, fmin(a, s / (dt * dt))), rest_ratio(def, s));
        else write_result(r, p, p, 0.0, 0.0);
        return;
    }
    double ratio = ratio_of(def, s, speed);
    int naive = def->law == CAROM_FILTER_NAIVE, off = def->law == CAROM_FILTER_OFF;
    if (off || ratio < (naive ? 1.0 : def->safety)) {
        write_result(r, p, p, 0.0, ratio);
        return;
    }
    double b = dt > 0.0 ? fmin(a, speed / dt) : a;
    double lambda;
    if (ratio >= 1.0) {
        double alpha = slow_allowance(def, s, speed);
        if (alpha > 0.0) {
            write_slow(r, p, alpha, ratio);
            return;
        }
        lambda = 1.0;
    } else if (def->law == CAROM_FILTER_BACKUP) {
        double n[3] = {0, 0, 0}, length = filter_length(c->normal);
        if (length > 0.0)
            for (int k = 0; k < 3; k++) n[k] = c->normal[k] / length;
        else
            for (int k = 0; k < 3; k++) n[k] = -v[k] / speed; /* no normal: assume the worst */
        lambda = backup_lambda(def, s, n, v, speed, p, b);
    } else {
        lambda = seed_lambda(def, ratio);
    }
    if (lambda == 0.0) {
        write_result(r, p, p, 0.0, ratio);
        return;
    }
    double blend[3], out[3];
    for (int k = 0; k < 3; k++) blend[k] = (1.0 - lambda) * p[k] - lambda * b * (v[k] / speed);
    clamp_length(out, blend, a);
    write_result(r, out, p, lambda, ratio);
}

/* The directional law: the linear law on the approach speed along n. */
static void filter_directional(const carom_filter_def *def, const filter_constraint *c, const double v[3],
                               const double p[3], carom_filter_result *r)
{
    double a = def->max_acceleration, dt = def->window, s = c->clearance;
    double length = filter_length(c->normal), n[3];
    if (!(length > 0.0)) { /* no normal (a medial axis): brake along -v as the linear law does */
        carom_filter_def linear = *def;
        linear.law = CAROM_FILTER_LINEAR;
        filter_along_velocity(&linear, c, v, p, r);
        return;
    }
    for (int k = 0; k < 3; k++) n[k] = c->normal[k] / length;
    double approach = fmax(0.0, -dot(v, n));
    double ratio = approach > 0.0 ? ratio_of(def, s, approach) : rest_ratio(def, s);
    double normal_in = dot(p, n), tangent[3];
    for (int k = 0; k < 3; k++) tangent[k] = p[k] - normal_in * n[k];
    double normal_out, lambda, alpha = -1.0;
    if (approach == 0.0) { /* not approaching: the input, or at rest with no room the slow rule */
        if (!(dt > 0.0)) {
            write_result(r, p, p, 0.0, ratio);
            return;
        }
        alpha = fmax(0.0, fmin(a, s / (dt * dt)));
    } else if (ratio >= 1.0) {
        alpha = slow_allowance(def, s, approach);
        if (!(alpha > 0.0)) alpha = -1.0;
    } else if (ratio < def->safety || seed_lambda(def, ratio) == 0.0) {
        write_result(r, p, p, 0.0, ratio);
        return;
    }
    double brake = dt > 0.0 ? fmin(a, approach / dt) : a;
    if (alpha >= 0.0) { /* the slow rule on the component toward the wall */
        if (normal_in >= -alpha) {
            write_result(r, p, p, 0.0, ratio);
            return;
        }
        normal_out = -alpha;
        lambda = 1.0 - alpha / -normal_in; /* the share of the approach input withheld */
    } else if (ratio >= 1.0) {
        normal_out = brake;
        lambda = 1.0;
    } else {
        lambda = seed_lambda(def, ratio);
        normal_out = (1.0 - lambda) * normal_in + lambda * brake;
    }
    /* keep the tangential part, shortened so that |a| <= a_max */
    double room = sqrt(fmax(0.0, a * a - normal_out * normal_out)), t_length = filter_length(tangent);
    double t_scale = t_length > room ? room / t_length : 1.0;
    double out[3], clamped[3];
    for (int k = 0; k < 3; k++) out[k] = normal_out * n[k] + t_scale * tangent[k];
    clamp_length(clamped, out, a);
    write_result(r, clamped, p, fmin(1.0, fmax(0.0, lambda)), ratio);
}

/* The approach ratio of the directional law for constraint c (for choosing). */
static double directional_ratio(const carom_filter_def *def, const filter_constraint *c, const double v[3])
{
    double length = filter_length(c->normal);
    if (!(length > 0.0)) return INFINITY;
    double approach = fmax(0.0, -dot(v, c->normal) / length);
    return approach > 0.0 ? ratio_of(def, c->clearance, approach) : rest_ratio(def, c->clearance);
}

void filter_apply_constraints(const carom_filter_def *def, const filter_constraint *constraints, int count,
                              const double velocity[3], const double input[3], carom_filter_result *result)
{
    assert(def && constraints && count >= 1 && result && !filter_def_problem(def));
    int best = 0;
    if (def->law == CAROM_FILTER_DIRECTIONAL) {
        double worst = directional_ratio(def, &constraints[0], velocity);
        for (int k = 1; k < count; k++) {
            double ratio = directional_ratio(def, &constraints[k], velocity);
            if (ratio > worst || (ratio == worst && constraints[k].clearance < constraints[best].clearance)) {
                worst = ratio;
                best = k;
            }
        }
    } else {
        for (int k = 1; k < count; k++)
            if (constraints[k].clearance < constraints[best].clearance) best = k;
    }
    double p[3];
    clamp_length(p, input, def->max_acceleration);
    if (def->law == CAROM_FILTER_DIRECTIONAL)
        filter_directional(def, &constraints[best], velocity, p, result);
    else
        filter_along_velocity(def, &constraints[best], velocity, p, result);
    /* ratio with OFF: reported for information, never acted on */
}

static int finite_vec(carom_vec x) { return isfinite(x.x) && isfinite(x.y) && isfinite(x.z); }

carom_status carom_filter_apply(const carom_filter_def *def, double clearance, carom_vec gradient,
                                carom_vec velocity, carom_vec input, carom_filter_result *result)
{
    if (!result || filter_def_problem(def)) return CAROM_INVALID_ARGUMENT;
    if (!isfinite(clearance) || !finite_vec(gradient) || !finite_vec(velocity) || !finite_vec(input))
        return CAROM_INVALID_ARGUMENT;
    filter_constraint c = {clearance, {gradient.x, gradient.y, gradient.z}};
    const double v[3] = {velocity.x, velocity.y, velocity.z}, p[3] = {input.x, input.y, input.z};
    filter_apply_constraints(def, &c, 1, v, p, result);
    if (result->acted) { /* no component a world would refuse (below 1e-75, as when braking a body nearly at rest) */
        double *out = &result->acceleration.x;
        for (int k = 0; k < 3; k++)
            if (fabs(out[k]) < 1e-75) out[k] = 0.0;
    }
    return CAROM_OK;
}
