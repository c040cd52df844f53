/* airhockey.c — the air-hockey game (airhockey.h) on carom's public API.
 *
 * One world: a 2D box of the table's size with hard walls, the puck (body
 * 0) and the mallets (bodies 1..players), and two goal sensors. A step is
 * one control window (Torgesen's time windows, seeds 000/001): read the
 * bodies, let the controller choose accelerations, clamp them, set them
 * (carom_world_set_body_acceleration) and advance the world to the window's
 * end. carom processes every collision inside the window exactly, and only
 * the bodies whose motion changed are predicted again.
 *
 * The event callback cannot change the world, so a goal works in two
 * steps: the callback notes it and returns non-zero, carom stops right
 * after the sensor event (CAROM_STOPPED), and the step then counts the goal,
 * serves the puck on the conceding side (carom_world_set_body_position and
 * _velocity, moving a mallet that stands there back to its home first) and
 * advances the rest of the window. Window ends are k / control_rate, not a
 * sum of window lengths, so a goal inside a window does not shift the
 * windows after it.
 */
#include "airhockey.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller.h"

enum { PUCK = 0, MAX_JAMS_PER_WINDOW = 8, SERVE_TRIES = 64 };

struct airhockey_game {
    airhockey_config config;
    carom_world *world;
    carom_rng rng;
    int32_t sensor[2]; /* sensor[t]: across team t's goal mouth */
    int pending_goal;  /* the team that just scored (set by the callback), or -1 */
    double last_serve_time;
    airhockey_summary counts; /* the game's own counters (carom's are read when asked) */
    char message[512];
};

airhockey_table airhockey_default_table(void)
{
    return (airhockey_table){1.948, 1.038, 0.25, 0.03165, 0.04815, 0.015, 0.2, 0.9, 0.9};
}

airhockey_config airhockey_default_config(void)
{
    airhockey_config c;
    memset(&c, 0, sizeof c);
    c.table = airhockey_default_table();
    c.players = 2;
    c.seed = 1;
    c.control_rate = 50.0;
    c.max_acceleration = 20.0;
    c.serve_speed = 1.5;
    c.stall_time = 15.0;
    return c;
}

static carom_status failure(airhockey_game *g, carom_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(g->message, sizeof g->message, format, args);
    va_end(args);
    return status;
}

/* ---- checking a configuration --------------------------------------------- */

static int positive(double x) { return isfinite(x) && x > 0.0; }

static const char *config_error(const airhockey_config *c)
{
    const airhockey_table *t = &c->table;
    if (c->players != 2 && c->players != 4) return "players must be 2 or 4";
    if (!positive(t->length) || !positive(t->width))
        return "table length and width must be finite and > 0";
    if (!positive(t->puck_radius) || !positive(t->mallet_radius))
        return "radii must be finite and > 0";
    if (!positive(t->puck_mass) || !positive(t->mallet_mass))
        return "masses must be finite and > 0";
    if (!positive(t->goal_width) || t->goal_width > t->width)
        return "goal_width must be in (0, width]";
    if (!(t->restitution >= 0.0 && t->restitution <= 1.0) ||
        !(t->wall_restitution >= 0.0 && t->wall_restitution <= 1.0))
        return "restitutions must be in [0, 1]";
    if (t->length < 8.0 * t->mallet_radius ||
        t->width < 8.0 * t->mallet_radius + 2.0 * t->puck_radius)
        return "the table is too small for its mallets";
    if (!positive(c->control_rate)) return "control_rate must be finite and > 0";
    if (!positive(c->max_acceleration)) return "max_acceleration must be finite and > 0";
    if (!(isfinite(c->serve_speed) && c->serve_speed >= 0.0))
        return "serve_speed must be finite and >= 0";
    if (isnan(c->stall_time)) return "stall_time must be a number";
    return NULL;
}

/* ---- teams and home positions --------------------------------------------- */

static int players_per_team(const airhockey_game *g) { return g->config.players / 2; }
static int team_of(const airhockey_game *g, int k) { return k / players_per_team(g); }
static int role_of(const airhockey_game *g, int k) { return k % players_per_team(g); }
static int32_t mallet_id(int k) { return PUCK + 1 + k; }
/* -1 for team 0 (its goal at x = -length/2), +1 for team 1. */
static double goal_side(int team) { return team == 0 ? -1.0 : 1.0; }

/* Where a mallet starts: a defender near its goal, a forward further out. */
static carom_vec home_of(const airhockey_game *g, int k)
{
    const airhockey_table *t = &g->config.table;
    double from_wall = role_of(g, k) == 0 ? 0.2 : 0.55;
    double y = players_per_team(g) == 2 ? (role_of(g, k) == 0 ? -0.15 : 0.15) : 0.0;
    return (carom_vec){goal_side(team_of(g, k)) * (t->length / 2 - from_wall), y, 0.0};
}

/* ---- the event callback ------------------------------------------------- */

static void note_puck_speed(airhockey_game *g)
{
    carom_body_state puck;
    if (carom_world_get_body(g->world, PUCK, &puck) != CAROM_OK) return;
    double speed = hypot(puck.velocity.x, puck.velocity.y);
    if (speed > g->counts.fastest_puck) g->counts.fastest_puck = speed;
}

/* A goal: the puck's centre crossing a goal sensor towards that end wall. */
static int scoring_team(const airhockey_game *g, const carom_event *e)
{
    if (e->kind != CAROM_EVENT_SENSOR || e->i != PUCK) return -1;
    if (e->j == g->sensor[0] && e->direction < 0) return 1;
    if (e->j == g->sensor[1] && e->direction > 0) return 0;
    return -1;
}

static int on_world_event(void *user, const carom_event *e)
{
    airhockey_game *g = user;
    if (g->config.on_event) g->config.on_event(g->config.user, e);
    if ((e->kind == CAROM_EVENT_PAIR || e->kind == CAROM_EVENT_WALL) && e->i == PUCK)
        note_puck_speed(g);
    if (e->kind == CAROM_EVENT_PAIR && e->i == PUCK) g->counts.puck_hits++;
    int team = scoring_team(g, e);
    if (team < 0) return 0;
    g->pending_goal = team;
    g->counts.last_goal_time = e->time;
    return 1; /* stop the window here: the puck is served again before it goes on */
}

/* ---- building the table --------------------------------------------------- */

static carom_status create_world(airhockey_game *g, char *why, size_t why_size)
{
    const airhockey_table *t = &g->config.table;
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){t->length, t->width, 1.0};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = CAROM_WALLS;
    def.restitution = t->restitution;
    def.wall_restitution = t->wall_restitution;
    def.capacity_hint = 1 + g->config.players;
    def.on_event = on_world_event;
    def.user = g;
    return carom_world_create(&def, &g->world, why, why_size);
}

static carom_status add_body(airhockey_game *g, carom_vec at, carom_vec velocity, double radius,
                             double mass)
{
    carom_body_def b = carom_default_body_def();
    b.position = at, b.velocity = velocity, b.radius = radius, b.mass = mass;
    carom_status st = carom_world_add_body(g->world, &b, NULL);
    if (st != CAROM_OK) return failure(g, st, "%s", carom_world_message(g->world));
    return CAROM_OK;
}

/* A sensor across each goal mouth, 1.5 puck radii in front of the end wall. */
static carom_status add_goal_sensors(airhockey_game *g)
{
    const airhockey_table *t = &g->config.table;
    for (int team = 0; team < 2; team++) {
        carom_sensor_def s = carom_default_sensor_def();
        s.axis = 0;
        s.position = goal_side(team) * (t->length / 2 - 1.5 * t->puck_radius);
        s.lo = (carom_vec){0.0, -t->goal_width / 2, 0.0};
        s.hi = (carom_vec){0.0, t->goal_width / 2, 0.0};
        carom_status st = carom_world_add_sensor(g->world, &s, &g->sensor[team]);
        if (st != CAROM_OK) return failure(g, st, "%s", carom_world_message(g->world));
    }
    return CAROM_OK;
}

/* ---- serving -------------------------------------------------------------- */

/* A serve's velocity: a speed in [serve_speed / 2, serve_speed] and a
 * direction uniform on the circle, drawn by rejection in the unit disk and
 * normalised with sqrt only. IEEE 754 rounds sqrt exactly everywhere, while
 * cos and sin differ between C libraries in their last bits, so every
 * platform (the page's wasm build included) plays the same game bit for bit. */
static carom_vec random_velocity(airhockey_game *g)
{
    double speed = g->config.serve_speed * (0.5 + 0.5 * carom_rng_uniform(&g->rng));
    for (;;) {
        double x = 2.0 * carom_rng_uniform(&g->rng) - 1.0, y = 2.0 * carom_rng_uniform(&g->rng) - 1.0;
        double r2 = x * x + y * y;
        if (r2 > 1e-4 && r2 <= 1.0) return (carom_vec){speed * x / sqrt(r2), speed * y / sqrt(r2), 0.0};
    }
}

/* Whether a puck at `at` would keep a little clearance from every mallet. */
static int clear_of_mallets(const airhockey_game *g, carom_vec at)
{
    const airhockey_table *t = &g->config.table;
    double reach = t->puck_radius + t->mallet_radius + 0.01;
    for (int k = 0; k < g->config.players; k++) {
        carom_body_state m;
        if (carom_world_get_body(g->world, mallet_id(k), &m) != CAROM_OK) return 0;
        if (hypot(m.position.x - at.x, m.position.y - at.y) < reach) return 0;
    }
    return 1;
}

/* Sends every mallet home at rest (the last resort of a serve). */
static carom_status send_mallets_home(airhockey_game *g)
{
    const carom_vec rest = {0.0, 0.0, 0.0};
    for (int k = 0; k < g->config.players; k++) {
        carom_status st = carom_world_set_body_velocity(g->world, mallet_id(k), rest);
        if (st == CAROM_OK)
            st = carom_world_set_body_position(g->world, mallet_id(k), home_of(g, k));
        if (st != CAROM_OK)
            return failure(g, st, "sending mallet %d home: %s", k, carom_world_message(g->world));
    }
    return CAROM_OK;
}

static void tell_serve(airhockey_game *g, airhockey_serve_reason reason, carom_vec at,
                       carom_vec velocity)
{
    if (!g->config.on_notice) return;
    airhockey_notice n;
    memset(&n, 0, sizeof n);
    n.kind = AIRHOCKEY_SERVE, n.time = carom_world_time(g->world), n.team = -1;
    n.reason = reason, n.position = at, n.velocity = velocity;
    g->config.on_notice(g->config.user, &n);
}

/* Puts the puck on the line x at a random y, where it keeps a little
 * clearance from every mallet and carom accepts it (CAROM_OVERLAP: the next
 * draw). Returns CAROM_OK, CAROM_OVERLAP if all SERVE_TRIES draws failed,
 * or another status from carom. */
static carom_status place_puck(airhockey_game *g, double x, carom_vec *at)
{
    const airhockey_table *t = &g->config.table;
    for (int k = 0; k < SERVE_TRIES; k++) {
        *at = (carom_vec){x, (carom_rng_uniform(&g->rng) - 0.5) * t->width / 2, 0.0};
        if (!clear_of_mallets(g, *at)) continue;
        carom_status st = carom_world_set_body_position(g->world, PUCK, *at);
        if (st != CAROM_OVERLAP) return st;
    }
    return CAROM_OVERLAP;
}

/* Serves the puck on a team's half (team -1: on the centre line), at a
 * random y and with a random velocity, where no mallet stands; if mallets
 * block every draw, they are sent home first. */
static carom_status serve(airhockey_game *g, int team, airhockey_serve_reason reason)
{
    double x = team < 0 ? 0.0 : goal_side(team) * g->config.table.length / 4;
    carom_vec at;
    carom_status st = place_puck(g, x, &at);
    if (st == CAROM_OVERLAP) {
        st = send_mallets_home(g);
        if (st != CAROM_OK) return st;
        st = place_puck(g, x, &at);
    }
    carom_vec velocity = random_velocity(g);
    if (st == CAROM_OK) st = carom_world_set_body_velocity(g->world, PUCK, velocity);
    if (st != CAROM_OK)
        return failure(g, st, "serving the puck: %s", carom_world_message(g->world));
    g->last_serve_time = carom_world_time(g->world);
    note_puck_speed(g);
    tell_serve(g, reason, at, velocity);
    return CAROM_OK;
}

/* ---- lifecycle -------------------------------------------------------------- */

carom_status airhockey_create(const airhockey_config *config, airhockey_game **game, char *why,
                              size_t why_size)
{
    *game = NULL;
    const char *bad = config ? config_error(config) : "no configuration";
    if (bad) {
        if (why && why_size) snprintf(why, why_size, "%s", bad);
        return CAROM_INVALID_ARGUMENT;
    }
    airhockey_game *g = calloc(1, sizeof *g);
    if (!g) {
        if (why && why_size) snprintf(why, why_size, "out of memory");
        return CAROM_OUT_OF_MEMORY;
    }
    g->config = *config;
    if (!g->config.controller) g->config.controller = airhockey_scripted_controller;
    g->rng = carom_rng_seed(config->seed);
    g->pending_goal = -1;
    g->counts.last_goal_time = NAN;
    g->counts.last_goal_team = -1;
    const airhockey_table *t = &g->config.table;
    const carom_vec rest = {0.0, 0.0, 0.0};
    carom_status st = create_world(g, why, why_size);
    if (st == CAROM_OK) st = add_body(g, rest, rest, t->puck_radius, t->puck_mass);
    for (int k = 0; k < config->players && st == CAROM_OK; k++)
        st = add_body(g, home_of(g, k), rest, t->mallet_radius, t->mallet_mass);
    if (st == CAROM_OK) st = add_goal_sensors(g);
    if (st == CAROM_OK) st = serve(g, -1, AIRHOCKEY_SERVE_START);
    if (st != CAROM_OK) {
        if (why && why_size && g->message[0]) snprintf(why, why_size, "%s", g->message);
        airhockey_destroy(g);
        return st;
    }
    *game = g;
    return CAROM_OK;
}

void airhockey_destroy(airhockey_game *game)
{
    if (!game) return;
    carom_world_destroy(game->world);
    free(game);
}

/* ---- one window ------------------------------------------------------------- */

static carom_status read_view(const airhockey_game *g, airhockey_view *view)
{
    memset(view, 0, sizeof *view);
    view->table = &g->config.table;
    view->time = carom_world_time(g->world);
    view->window = 1.0 / g->config.control_rate;
    view->max_acceleration = g->config.max_acceleration;
    view->mallets = g->config.players;
    view->players_per_team = players_per_team(g);
    carom_status st = carom_world_get_body(g->world, PUCK, &view->puck);
    for (int k = 0; k < g->config.players && st == CAROM_OK; k++) {
        view->team[k] = team_of(g, k);
        view->role[k] = role_of(g, k);
        st = carom_world_get_body(g->world, mallet_id(k), &view->mallet[k]);
    }
    return st;
}

/* |a| <= a_max with the direction kept; 0 for a non-finite request; no z;
 * components below 1e-9 a_max (no physical meaning, and outside the range
 * carom accepts when tiny enough) become 0. */
static carom_vec clamped(carom_vec a, double max_norm)
{
    if (!isfinite(a.x) || !isfinite(a.y)) return (carom_vec){0.0, 0.0, 0.0};
    double n = hypot(a.x, a.y);
    double s = n > max_norm ? max_norm / n : 1.0, floor = 1e-9 * max_norm;
    carom_vec c = {a.x * s, a.y * s, 0.0};
    if (fabs(c.x) < floor) c.x = 0.0;
    if (fabs(c.y) < floor) c.y = 0.0;
    return c;
}

static carom_status apply_controls(airhockey_game *g)
{
    airhockey_view view;
    carom_vec a[AIRHOCKEY_MAX_MALLETS] = {{0, 0, 0}};
    carom_status st = read_view(g, &view);
    if (st != CAROM_OK) return failure(g, st, "%s", carom_world_message(g->world));
    g->config.controller(g->config.controller_user, &view, a);
    for (int k = 0; k < g->config.players; k++) {
        st = carom_world_set_body_acceleration(g->world, mallet_id(k),
                                               clamped(a[k], g->config.max_acceleration));
        if (st != CAROM_OK)
            return failure(g, st, "mallet %d: %s", k, carom_world_message(g->world));
    }
    return CAROM_OK;
}

static carom_status score_pending_goal(airhockey_game *g)
{
    int team = g->pending_goal;
    g->pending_goal = -1;
    g->counts.score[team]++;
    g->counts.last_goal_team = team;
    g->counts.serves++;
    if (g->config.on_notice) {
        airhockey_notice n;
        memset(&n, 0, sizeof n);
        n.kind = AIRHOCKEY_GOAL, n.time = carom_world_time(g->world), n.team = team;
        n.score[0] = g->counts.score[0], n.score[1] = g->counts.score[1];
        g->config.on_notice(g->config.user, &n);
    }
    return serve(g, 1 - team, AIRHOCKEY_SERVE_GOAL); /* the conceding team gets the puck */
}

/* A jam (the puck squeezed between a mallet and a wall, faster and faster):
 * the mallets stop pushing for the rest of the window and the puck is
 * served again from the centre. */
static carom_status clear_jam(airhockey_game *g)
{
    const carom_vec none = {0.0, 0.0, 0.0};
    g->counts.jams++, g->counts.serves++;
    for (int k = 0; k < g->config.players; k++) {
        carom_status st = carom_world_set_body_acceleration(g->world, mallet_id(k), none);
        if (st != CAROM_OK)
            return failure(g, st, "mallet %d: %s", k, carom_world_message(g->world));
    }
    return serve(g, -1, AIRHOCKEY_SERVE_JAM);
}

/* Advances to `end`, scoring goals and clearing jams on the way. */
static carom_status run_window(airhockey_game *g, double end)
{
    int jams = 0;
    while (carom_world_time(g->world) < end) {
        carom_status st = carom_world_advance(g->world, end - carom_world_time(g->world));
        if (st == CAROM_OK) break;
        if (st == CAROM_STOPPED && g->pending_goal >= 0)
            st = score_pending_goal(g);
        else if (st == CAROM_JAMMED && ++jams <= MAX_JAMS_PER_WINDOW)
            st = clear_jam(g);
        else {
            return failure(g, st, "at t = %.17g: %s", carom_world_time(g->world),
                           carom_world_message(g->world));
        }
        if (st != CAROM_OK) return st;
    }
    return CAROM_OK;
}

carom_status airhockey_step(airhockey_game *g)
{
    g->message[0] = '\0';
    carom_status st = apply_controls(g);
    if (st != CAROM_OK) return st;
    double end = (double)(g->counts.windows + 1) / g->config.control_rate;
    st = run_window(g, end);
    if (st != CAROM_OK) return st;
    g->counts.windows++;
    double now = carom_world_time(g->world);
    if (g->config.stall_time > 0.0 && now - g->last_serve_time >= g->config.stall_time) {
        g->counts.stall_restarts++, g->counts.serves++;
        st = serve(g, -1, AIRHOCKEY_SERVE_STALL);
    }
    return st;
}

carom_status airhockey_play(airhockey_game *g, double seconds)
{
    int64_t windows = (int64_t)ceil(seconds * g->config.control_rate);
    while (g->counts.windows < windows) {
        carom_status st = airhockey_step(g);
        if (st != CAROM_OK) return st;
    }
    return CAROM_OK;
}

/* ---- reading ---------------------------------------------------------------- */

airhockey_summary airhockey_get_summary(const airhockey_game *g)
{
    airhockey_summary s = g->counts;
    carom_stats w = carom_world_stats(g->world);
    s.time = w.time;
    s.pair_events = w.pair_events, s.wall_events = w.wall_events, s.sensor_events = w.sensor_events;
    s.events = w.events;
    s.predictions = w.predictions;
    return s;
}

const carom_world *airhockey_world(const airhockey_game *g) { return g->world; }
const airhockey_config *airhockey_get_config(const airhockey_game *g) { return &g->config; }
const char *airhockey_message(const airhockey_game *g) { return g->message; }
