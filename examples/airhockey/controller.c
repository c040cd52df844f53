/* controller.c — the scripted air-hockey controller (controller.h).
 *
 * Every window, each mallet picks a target in its team's frame (own goal at
 * x = -length/2; team 1 sees the table mirrored in x):
 *   - strike: the puck is on the own half and slow along x: get behind it
 *     on the line from the aim (the opponent's goal, near a post, or a bank
 *     off a side wall) through the puck, then drive through it;
 *   - intercept: the puck is coming: meet it on the intercept line, where
 *     its straight path, folded at the side walls, crosses that line, at
 *     the angle that sends it back towards the aim;
 *   - defend: otherwise, stand between the puck and the own goal.
 * With two players a side, the first (the defender) never strikes and the
 * second (the forward) never intercepts: it waits in front of the centre
 * line, level with the puck, until the puck is there to strike.
 * It then asks for the velocity that reaches the target and can still stop
 * there, v = min(max_speed, sqrt(2 b a_max d)), limited on each axis so the
 * mallet can brake (v^2 / 2 b a_max, seed 003's braking distance) before the
 * walls and the centre line, and for the acceleration that gets that
 * velocity within one window, clamped to a_max. Mallets are free bodies: a
 * hard hit from the puck can still push one over the line, and the braking
 * profile brings it back.
 */
#include "controller.h"

#include <math.h>

airhockey_scripted airhockey_default_scripted(void)
{
    return (airhockey_scripted){3.0, 0.6, 0.2, 0.3, 0.01, 0.15, 0.1};
}

/* ---- small vector helpers (2D; z stays 0) --------------------------------- */

static carom_vec vec2(double x, double y) { return (carom_vec){x, y, 0.0}; }
static carom_vec sub(carom_vec a, carom_vec b) { return vec2(a.x - b.x, a.y - b.y); }
static carom_vec add_scaled(carom_vec a, carom_vec b, double s)
{
    return vec2(a.x + s * b.x, a.y + s * b.y);
}
static double dot(carom_vec a, carom_vec b) { return a.x * b.x + a.y * b.y; }
static double norm(carom_vec a) { return sqrt(dot(a, a)); }

static carom_vec unit_or_zero(carom_vec a)
{
    double n = norm(a);
    return n > 0.0 ? vec2(a.x / n, a.y / n) : vec2(0.0, 0.0);
}

static double clamp(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

/* ---- the team's frame and its limits -------------------------------------- */

/* Team 1 sees the table mirrored in x, so every rule is written once. */
static carom_vec mirror(carom_vec a, int team)
{
    return team == 1 ? vec2(-a.x, a.y) : vec2(a.x, a.y);
}

typedef struct limits {
    double x_lo, x_hi, y_lo, y_hi; /* where a mallet's centre may go, in the team's frame */
} limits;

static limits own_half(const airhockey_view *view, const airhockey_scripted *p)
{
    const airhockey_table *t = view->table;
    double r = t->mallet_radius + p->margin;
    return (limits){-t->length / 2 + r, -r, -t->width / 2 + r, t->width / 2 - r};
}

static carom_vec clamp_to(carom_vec a, limits l)
{
    return vec2(clamp(a.x, l.x_lo, l.x_hi), clamp(a.y, l.y_lo, l.y_hi));
}

/* The fastest speed from which the mallet still stops within distance d. */
static double stoppable(double d, double braking_acceleration)
{
    return d > 0.0 ? sqrt(2.0 * braking_acceleration * d) : 0.0;
}

/* ---- targets -------------------------------------------------------------- */

static carom_vec defend_target(const airhockey_view *view, const airhockey_scripted *p,
                               carom_vec puck)
{
    carom_vec goal = vec2(-view->table->length / 2, 0.0);
    return add_scaled(goal, unit_or_zero(sub(puck, goal)), p->defence_distance);
}

/* y where the puck's path crosses x = line, folded at the side walls, and
 * when (*arrival, s from now); NAN if it does not come to the line. */
static double incoming_y(const airhockey_view *view, carom_vec puck, carom_vec velocity,
                         double line, double *arrival)
{
    if (!(velocity.x < 0.0) || puck.x < line) return NAN;
    double t = (line - puck.x) / velocity.x;
    *arrival = t;
    double half = view->table->width / 2 - view->table->puck_radius, period = 4.0 * half;
    double y = fmod(puck.y + velocity.y * t + half, period); /* unfold: position in [0, 4 half) */
    if (y < 0.0) y += period;
    return y <= 2.0 * half ? y - half : 3.0 * half - y;
}

/* Where a shot aims, in the team's frame: the opponent's goal (its centre
 * or near a post), or its mirror image in a side wall (a bank shot). The
 * choice changes every 0.6 s of play, so that the other side cannot wait
 * at one spot; it depends on the clock only, so games stay reproducible. */
static carom_vec shot_aim(const airhockey_view *view)
{
    const airhockey_table *t = view->table;
    double bank = t->width - 2.0 * t->puck_radius, post = 0.3 * t->goal_width;
    const double y[5] = {0.0, bank, post, -bank, -post};
    int shot = (int)fmod(floor(view->time / 0.6), 5.0);
    return vec2(t->length / 2, y[shot]);
}

/* Behind the puck on the line from the aim through the puck (a run-up
 * long enough to reach speed), or, once there, through the puck. */
static carom_vec strike_target(const airhockey_view *view, const airhockey_scripted *p,
                               carom_vec puck, carom_vec mallet, int *charge)
{
    const airhockey_table *t = view->table;
    carom_vec aim = unit_or_zero(sub(shot_aim(view), puck));
    carom_vec behind = sub(puck, mallet);
    double along = dot(behind, aim), lateral = fabs(behind.x * aim.y - behind.y * aim.x);
    *charge = along > 0.0 && lateral < t->puck_radius;
    if (*charge) return add_scaled(puck, aim, 0.1);
    return add_scaled(puck, aim, -(t->puck_radius + t->mallet_radius + p->run_up));
}

/* Where to stand so that an incoming puck, bouncing off the mallet as off a
 * heavy wall, leaves towards the aim: the contact normal halfway between
 * the puck's reversed direction and the aim. */
static carom_vec deflect_target(const airhockey_view *view, const airhockey_scripted *p,
                                carom_vec meet, carom_vec velocity, double arrival, int *charge)
{
    const airhockey_table *t = view->table;
    carom_vec out = unit_or_zero(sub(shot_aim(view), meet)), in = unit_or_zero(velocity);
    carom_vec normal = unit_or_zero(sub(out, in));
    /* the last moments before the puck arrives: hit it, along the normal */
    *charge = arrival < p->return_time;
    if (*charge) return add_scaled(meet, normal, 0.1);
    return add_scaled(meet, normal, -(t->puck_radius + t->mallet_radius));
}

static carom_vec choose_target(const airhockey_view *view, const airhockey_scripted *p, int k,
                               int *charge)
{
    int team = view->team[k];
    carom_vec puck = mirror(view->puck.position, team),
              velocity = mirror(view->puck.velocity, team);
    carom_vec mallet = mirror(view->mallet[k].position, team);
    int defender = view->players_per_team == 2 && view->role[k] == 0;
    double line = -view->table->length / 2 + p->intercept_line;
    double arrival = INFINITY, y = incoming_y(view, puck, velocity, line, &arrival);
    *charge = 0;
    if (!defender && puck.x < 0.0 && fabs(velocity.x) < 1.0)
        return strike_target(view, p, puck, mallet, charge);
    if (view->players_per_team == 2 && !defender)
        return vec2(-0.3, puck.y); /* a forward waits further out */
    if (!isnan(y)) return deflect_target(view, p, vec2(line, y), velocity, arrival, charge);
    return defend_target(view, p, puck);
}

/* ---- from a target to an acceleration ------------------------------------- */

/* The velocity to ask for: towards the target, never faster than the
 * mallet can brake from before the target, the walls or the centre line. */
static carom_vec wanted_velocity(const airhockey_scripted *p, carom_vec from, carom_vec target,
                                 limits l, double braking_acceleration, int charge)
{
    carom_vec d = sub(target, from);
    double speed =
        charge ? p->max_speed : fmin(p->max_speed, stoppable(norm(d), braking_acceleration));
    carom_vec v = add_scaled(vec2(0.0, 0.0), unit_or_zero(d), speed);
    v.x = clamp(v.x, -stoppable(from.x - l.x_lo, braking_acceleration),
                stoppable(l.x_hi - from.x, braking_acceleration));
    v.y = clamp(v.y, -stoppable(from.y - l.y_lo, braking_acceleration),
                stoppable(l.y_hi - from.y, braking_acceleration));
    return v;
}

static carom_vec bounded(carom_vec a, double max_norm)
{
    double n = norm(a);
    return n > max_norm ? add_scaled(vec2(0.0, 0.0), a, max_norm / n) : a;
}

void airhockey_scripted_controller(void *user, const airhockey_view *view, carom_vec *acceleration)
{
    airhockey_scripted defaults = airhockey_default_scripted();
    const airhockey_scripted *p = user ? user : &defaults;
    limits l = own_half(view, p);
    double braking_acceleration = p->braking * view->max_acceleration;
    for (int k = 0; k < view->mallets; k++) {
        int team = view->team[k], charge;
        carom_vec target = clamp_to(choose_target(view, p, k, &charge), l);
        carom_vec at = mirror(view->mallet[k].position, team),
                  velocity = mirror(view->mallet[k].velocity, team);
        carom_vec v = wanted_velocity(p, at, target, l, braking_acceleration, charge);
        carom_vec a = bounded(add_scaled(vec2(0.0, 0.0), sub(v, velocity), 1.0 / view->window),
                              view->max_acceleration);
        acceleration[k] = mirror(a, team);
    }
}
