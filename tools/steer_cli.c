/* steer_cli.c — `carom steer`: bodies steered by a player inside a
 * container, kept off its walls by the safety filter of seed 003
 * (carom.h, "The safety filter"), window after window.
 *
 * Each window (of length DT, from t = 0): the player reads the steered
 * bodies and asks for an acceleration a_p of magnitude a_max for each
 * (toward-wall: along -grad s, at the nearest wall; random: a fresh
 * uniformly random direction, from --seed; circle: along the tangent of the
 * level set of s plus 0.3 of the outward normal, so the body spirals out;
 * or rows of a CSV file `time,body,ax,ay(,az)` replayed as `carom run`
 * replays run.controls, controls.c). The filter then corrects a_p: by default the
 * world does it (carom_world_set_body_filter: the input is set with
 * carom_world_set_body_acceleration and the world decides at each window
 * start and, exactly, inside a window when v / v_max crosses sigma, against
 * the container and the other steered bodies; the figures read its last
 * decision of each window, carom_world_get_body_filter). With
 * --at-window-starts this command does it at window starts only
 * (carom_filter_apply on the clearance s(x) - r and gradient of
 * carom_container_distance, the filter's window DT so that its margin
 * covers an acceleration held for the window; against the container only)
 * and sets the result: what the world's exact decisions are measured
 * against (it takes the clearance less the world's skin, below). Then the
 * window is run (carom_world_advance).
 *
 * Figures: the minimum clearance of the steered bodies: where the world
 * filters, the least on each window's whole path
 * (carom_world_get_least_clearance), else read at every window end and at
 * every event of theirs; their wall contacts and the
 * hardest of them, as the normal speed impulse / ((1 + e) m) (a filtered
 * body may creep up to the wall but, with the skin, never touches it; an
 * unfiltered one hits it at full speed); the fraction of body-windows in
 * which the filter acted (the world's last decision of the window, or this
 * command's; the applied
 * acceleration differs from the input, the input clamped to a_max); the
 * mean |a - a_p| / a_max over body-windows; and the time to cross: for each
 * steered body, the first window end at which its clearance is at most a
 * tenth of its clearance at t = 0 (it has crossed nine tenths of the way to
 * the wall), averaged over the bodies that got there. Outputs are checked
 * before the run and written under temporary names renamed when complete
 * (outfile.c), as `carom run` and `carom airhockey` do.
 */
#define _POSIX_C_SOURCE 200809L
#include "steer_cli.h"
#include "json_text.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "controls.h"
#include "decimal.h"
#include "option.h"
#include "outfile.h"
#include "place.h"
#include "scenario.h"
#include "xyz.h"

enum { EXIT_USAGE = 2, MESSAGE_SIZE = 1024 };
#define MAX_WINDOWS 1000000000LL
#define DEFAULT_WINDOWS 2000
#define DEFAULT_WINDOW 0.05
#define DEFAULT_RADIUS 5.0   /* the default scenario: a circle of radius 5 ... */
#define DEFAULT_BODY 0.5     /* ... holding one body of radius 0.5 at its centre */
#define SPIRAL_OUT 0.3       /* the circle player's outward share, next to the tangent's 1 */
#define CROSS_FRACTION 0.1   /* crossed: the clearance down to this fraction of its start */
/* The world takes accelerations of 0 or of magnitude 1e-75 to 1e75 per
 * component (src/world.h); the filter's braking of a nearly stopped body
 * (b = min(a_max, v / dt)) can be far smaller, and is flushed to 0. */
#define SMALLEST_ACCELERATION 1e-75
/* The filter keeps s >= 0 in exact arithmetic and lets a body pushed at a
 * wall come within round-off of it; given the clearance less a skin of
 * 2^-36 of the positions' scale (half the box's longest side), as the
 * world's own steering does (src/filter.h, filter_skin), the true clearance
 * stays positive and the body never rests on the wall. */
#define SKIN_FRACTION 0x1p-36

static const char *help_text =
    "usage: carom steer [SCENARIO.yaml] [options]\n"
    "\n"
    "Steers bodies inside a container with a scripted or replayed player; the\n"
    "safety filter corrects the player's accelerations so that no steered body\n"
    "reaches the wall. Without a scenario: one body of radius 0.5 at the centre\n"
    "of a circle of radius 5, a_max 1, the linear law with sigma 0.5. The steered\n"
    "bodies are the scenario's groups with steer: (all free bodies if none has it).\n"
    "\n"
    "  --player P             toward-wall (a_max along -grad s), random (a fresh\n"
    "                         direction each window), circle (a tangent spiralling\n"
    "                         outward), or FILE.csv: rows time,body,ax,ay(,az)\n"
    "                         [the scenario's run.controls, else toward-wall]\n"
    "  --law L                off, naive, linear, quadratic, directional or backup\n"
    "                         [the scenario's steer.law, else linear]\n"
    "  --max-acceleration A   a_max (> 0) [the scenario's, else 1]\n"
    "  --safety S             sigma in [0, 1) [the scenario's, else 0.5]\n"
    "  --windows N            windows to run (1 to 1e9) [run.until / run.window, else 2000]\n"
    "  --window DT            window length (> 0) [run.window, else 0.05]\n"
    "  --seed S               seed of the random player (a whole number >= 0) [the scenario's]\n"
    "  --at-window-starts     filter in this command at window starts only\n"
    "                         (carom_filter_apply), not by the world's filter\n"
    "  --json FILE            the figures as JSON\n"
    "  --trajectory FILE      extended XYZ frames, one per window and the first\n"
    "  --lambda FILE          per steered body and window, CSV:\n"
    "                         time,body,lambda,acted,apx,apy,apz,ax,ay,az,clearance\n"
    "  --quiet                no list of the files written\n"
    "  --help                 this text\n"
    "\n"
    "Prints the minimum clearance reached (s(x) - r, the least on every window's\n"
    "path where the world filters; at window ends and events with --at-window-starts),\n"
    "the wall contacts and the hardest (its normal speed), the windows run, the\n"
    "fraction of windows in which the filter acted, the mean |a - a_p| / a_max,\n"
    "and the time to cross (the first\n"
    "time a body's clearance is down to a tenth of its start, mean over bodies).\n"
    "Exit status: 0 on success, 1 on bad input or a failed run, 2 on bad usage.\n";

typedef enum { PLAYER_TOWARD_WALL = 0, PLAYER_RANDOM, PLAYER_CIRCLE, PLAYER_FILE } player_kind;

static const char *const player_names[] = {"toward-wall", "random", "circle"};
static const char *const law_names[] = {"off", "naive", "linear", "quadratic", "directional", "backup"};

typedef struct steer_options {
    const char *scenario;      /* NULL: the default one */
    player_kind player;
    const char *player_file;
    int law;                   /* -1: the scenario's */
    double max_acceleration, safety; /* NAN: the scenario's */
    int64_t windows;           /* -1: the scenario's */
    double window;             /* NAN: the scenario's */
    int has_seed, quiet, player_given, at_window_starts;
    uint64_t seed;
    const char *json, *trajectory, *lambda;
} steer_options;

typedef struct steered {
    int32_t id;
    carom_filter_def filter;
    carom_vec input;          /* the player's last input */
    double start_clearance, cross_time; /* cross_time NAN until crossed */
} steered;

typedef struct steer_figures {
    int64_t windows, body_windows, acted, contacts;
    double intrusion_sum, min_clearance, hardest_impact; /* hardest: the normal speed of a wall contact */
} steer_figures;

typedef struct steer_run {
    steer_options o;
    scenario s;
    int has_scenario;
    carom_world *world;
    carom_container *own_container; /* the default circle, or the box's walls */
    const carom_container *container;
    steered *bodies;
    int32_t count;
    int32_t *slot;            /* per world body: its index in bodies, or -1 */
    controls csv;
    int has_csv;
    carom_rng rng;
    double wall_restitution;  /* the world's, for the impact speeds */
    double skin;              /* taken from the clearance the filter sees (SKIN_FRACTION) */
    double window;
    int64_t windows;
    int dim;
    double box[3];
    char *species;
    outfile trajectory, lambda;
    int trajectory_open, lambda_open;
    steer_figures f;
    char message[MESSAGE_SIZE];
} steer_run;

static int usage_error(const char *message)
{
    fprintf(stderr, "carom: %s (see carom steer --help)\n", message);
    return EXIT_USAGE;
}

static int fail(const char *message)
{
    fprintf(stderr, "carom: %s\n", message);
    return 1;
}

/* ---- the command line ------------------------------------------------------- */

static int parse_whole(const char *option, const char *text, uint64_t low, uint64_t high, uint64_t *out,
                       char *error, size_t size)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || *end || errno || text[0] == '-' || text[0] == '+' || text[0] == ' ' || v < low ||
        v > high)
        return snprintf(error, size, "%s: '%s' is not a usable value (expected a whole number from %llu to %llu)",
                        option, text, (unsigned long long)low, (unsigned long long)high),
               -1;
    *out = v;
    return 0;
}

static int parse_choice(const char *option, const char *text, const char *const names[], int count, int *out,
                        const char *expect, char *error, size_t size)
{
    for (int k = 0; k < count; k++)
        if (!strcmp(text, names[k])) return *out = k, 0;
    return snprintf(error, size, "%s: '%s' is not a usable value (expected %s)", option, text, expect), -1;
}

static int parse_player(steer_options *o, const char *text, char *error, size_t size)
{
    o->player_given = 1;
    for (int k = 0; k < 3; k++)
        if (!strcmp(text, player_names[k])) return o->player = (player_kind)k, 0;
    FILE *probe = text[0] ? fopen(text, "r") : NULL;
    if (!probe)
        return snprintf(error, size,
                        "--player: '%s' is not a usable value (expected toward-wall, random, circle, or a "
                        "readable CSV file: %s)",
                        text, text[0] ? strerror(errno) : "empty name"),
               -1;
    fclose(probe);
    o->player = PLAYER_FILE;
    o->player_file = text;
    return 0;
}

static int parse_safety(const char *text, double *out, char *error, size_t size)
{
    double v = -1.0;
    if (decimal_parse(text, (size_t)-1, &v) != DECIMAL_PARSED || !(v >= 0.0 && v < 1.0))
        return snprintf(error, size, "--safety: '%s' is not a usable value (expected a number in [0, 1))", text),
               -1;
    *out = v;
    return 0;
}

static int take_value(steer_options *o, const char *name, const char *value, char *error, size_t size)
{
    uint64_t whole = 0;
    if (!strcmp(name, "--player")) return parse_player(o, value, error, size);
    if (!strcmp(name, "--law"))
        return parse_choice(name, value, law_names, 6, &o->law,
                            "off, naive, linear, quadratic, directional or backup", error, size);
    if (!strcmp(name, "--max-acceleration"))
        return option_positive_number(name, value, &o->max_acceleration, error, size);
    if (!strcmp(name, "--safety")) return parse_safety(value, &o->safety, error, size);
    if (!strcmp(name, "--window")) return option_positive_number(name, value, &o->window, error, size);
    if (!strcmp(name, "--windows")) {
        if (parse_whole(name, value, 1, MAX_WINDOWS, &whole, error, size) != 0) return -1;
        return o->windows = (int64_t)whole, 0;
    }
    if (!strcmp(name, "--seed")) {
        if (parse_whole(name, value, 0, UINT64_MAX, &o->seed, error, size) != 0) return -1;
        return o->has_seed = 1, 0;
    }
    if (!strcmp(name, "--json")) return o->json = value, 0;
    if (!strcmp(name, "--trajectory")) return o->trajectory = value, 0;
    if (!strcmp(name, "--lambda")) return o->lambda = value, 0;
    return snprintf(error, size, "unknown option '%s'", name), -1;
}

static int is_valued(const char *name)
{
    static const char *const valued[] = {"--player", "--law",  "--max-acceleration", "--safety", "--window",
                                         "--windows", "--seed", "--json", "--trajectory", "--lambda"};
    return option_is_one_of(name, valued, sizeof valued / sizeof valued[0]);
}

static int take_flag(steer_options *o, const char *arg)
{
    if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) return o->quiet = 1;
    if (!strcmp(arg, "--at-window-starts")) return o->at_window_starts = 1;
    return 0;
}

/* One argument at argv[*k] (and its value). Returns 0, 1 for --help, or -1. */
static int take_argument(steer_options *o, int argc, char **argv, int *k, char *error, size_t size)
{
    const char *arg = argv[*k];
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) return 1;
    if (take_flag(o, arg)) return 0;
    if (arg[0] != '-' || arg[1] != '-') {
        if (o->scenario)
            return snprintf(error, size, "unexpected argument '%s' (steer takes one scenario)", arg), -1;
        return o->scenario = arg, 0;
    }
    char name[64];
    const char *value;
    if (option_take_valued(argc, argv, k, is_valued, name, sizeof name, &value, error, size) != 0) return -1;
    return take_value(o, name, value, error, size);
}

static int parse_options(int argc, char **argv, steer_options *o, char *error, size_t size)
{
    *o = (steer_options){0};
    o->law = -1;
    o->max_acceleration = o->safety = o->window = NAN;
    o->windows = -1;
    for (int k = 0; k < argc; k++) {
        int st = take_argument(o, argc, argv, &k, error, size);
        if (st != 0) return st;
    }
    const char **outputs[3] = {&o->json, &o->trajectory, &o->lambda};
    for (int k = 0; k < 3; k++)
        if (*outputs[k] && !(*outputs[k])[0]) *outputs[k] = NULL;
    return 0;
}

/* ---- geometry ------------------------------------------------------------------ */

static carom_vec scaled(carom_vec v, double k) { return (carom_vec){k * v.x, k * v.y, k * v.z}; }
static double length_of(carom_vec v) { return sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }

static carom_vec unit_or(carom_vec v, carom_vec fallback)
{
    double n = length_of(v);
    return n > 0.0 && isfinite(n) ? scaled(v, 1.0 / n) : fallback;
}

/* clearance = s(x) - r, and the unit inward gradient of s at x. */
static double clearance_at(const steer_run *r, carom_vec x, double radius, carom_vec *gradient)
{
    carom_vec g = {0.0, 0.0, 0.0};
    double s = carom_container_distance(r->container, x, &g);
    if (gradient) *gradient = unit_or(g, (carom_vec){1.0, 0.0, 0.0});
    return s - radius;
}

/* a with every component below the world's smallest magnitude set to 0. */
static carom_vec flushed(carom_vec a)
{
    double x[3] = {a.x, a.y, a.z};
    for (int k = 0; k < 3; k++)
        if (fabs(x[k]) < SMALLEST_ACCELERATION) x[k] = 0.0;
    return (carom_vec){x[0], x[1], x[2]};
}

static carom_vec clamped(carom_vec a, double a_max)
{
    double n = length_of(a);
    return n > a_max ? scaled(a, a_max / n) : a;
}

/* ---- the player ------------------------------------------------------------------ */

static carom_vec random_direction(carom_rng *rng, int dim)
{
    if (dim == 2) {
        double angle = 2.0 * 3.14159265358979323846 * carom_rng_uniform(rng);
        return (carom_vec){cos(angle), sin(angle), 0.0};
    }
    for (;;) {
        carom_vec d = {carom_rng_normal(rng), carom_rng_normal(rng), carom_rng_normal(rng)};
        if (length_of(d) > 0.0) return unit_or(d, d);
    }
}

/* A unit tangent of the level set of s (g the unit gradient). */
static carom_vec tangent(carom_vec g, int dim)
{
    if (dim == 2) return (carom_vec){-g.y, g.x, 0.0};
    carom_vec t = {g.y, -g.x, 0.0}; /* g x e_z */
    if (length_of(t) < 1e-3) t = (carom_vec){0.0, g.z, -g.y}; /* g x e_x */
    return unit_or(t, (carom_vec){1.0, 0.0, 0.0});
}

/* The player's input for body b at gradient g (the file player's rows are applied before). */
static carom_vec player_input(steer_run *r, const steered *b, carom_vec g)
{
    double a_max = b->filter.max_acceleration;
    switch (r->o.player) {
    case PLAYER_TOWARD_WALL:
        return scaled(g, -a_max);
    case PLAYER_RANDOM:
        return scaled(random_direction(&r->rng, r->dim), a_max);
    case PLAYER_CIRCLE: {
        carom_vec t = tangent(g, r->dim);
        carom_vec d = {t.x - SPIRAL_OUT * g.x, t.y - SPIRAL_OUT * g.y, t.z - SPIRAL_OUT * g.z};
        return scaled(unit_or(d, t), a_max);
    }
    default:
        return b->input;
    }
}

/* The file player's rows of window k: inputs of steered bodies, accelerations of the others. */
static int replay_rows(steer_run *r, int64_t k)
{
    controls *c = &r->csv;
    for (; c->next < c->count && controls_window_of(c->rows[c->next].time, 0.0, r->window) <= k; c->next++) {
        const control_row *row = &c->rows[c->next];
        if (r->slot[row->body] >= 0) {
            r->bodies[r->slot[row->body]].input = row->acceleration;
            continue;
        }
        if (carom_world_set_body_acceleration(r->world, row->body, row->acceleration) != CAROM_OK)
            return snprintf(r->message, sizeof r->message, "%s:%lld: %s", c->path, (long long)row->line,
                            carom_world_message(r->world)),
                   -1;
    }
    return 0;
}

/* ---- events -------------------------------------------------------------------------- */

/* A wall contact of a steered body: counted, and its clearance there read. */
static int on_event(void *user, const carom_event *e)
{
    steer_run *r = user;
    if (!r->world || !r->slot || e->kind == CAROM_EVENT_CELL || e->kind == CAROM_EVENT_SENSOR) return 0;
    int32_t bodies[2] = {e->i, e->kind == CAROM_EVENT_PAIR ? e->j : -1};
    for (int k = 0; k < 2; k++) {
        carom_body_state state;
        if (bodies[k] < 0 || r->slot[bodies[k]] < 0 ||
            carom_world_get_body(r->world, bodies[k], &state) != CAROM_OK)
            continue;
        double c = clearance_at(r, state.position, state.radius, NULL);
        r->f.min_clearance = fmin(r->f.min_clearance, c);
        if (e->kind != CAROM_EVENT_WALL) continue;
        r->f.contacts++;
        r->f.hardest_impact = fmax(r->f.hardest_impact, e->impulse / ((1.0 + r->wall_restitution) * state.mass));
    }
    return 0;
}

/* ---- building the world ------------------------------------------------------------- */

/* One body of radius 0.5 at the centre of a circle of radius 5 (2D). */
static int build_default(steer_run *r)
{
    carom_container_def c = carom_default_container_def();
    c.dim = 2;
    c.radius = DEFAULT_RADIUS;
    char why[256] = "";
    if (carom_container_create(&c, &r->own_container, why, sizeof why) != CAROM_OK)
        return snprintf(r->message, sizeof r->message, "the default circle: %s", why), -1;
    carom_world_def def = carom_default_world_def();
    def.dim = r->dim = 2;
    def.box = (carom_vec){2.02 * DEFAULT_RADIUS, 2.02 * DEFAULT_RADIUS, 1.0};
    for (int a = 0; a < 3; a++) def.boundary[a] = CAROM_WALLS;
    def.container = r->own_container;
    def.on_event = on_event;
    def.user = r;
    r->box[0] = def.box.x, r->box[1] = def.box.y, r->box[2] = 1.0;
    if (carom_world_create(&def, &r->world, why, sizeof why) != CAROM_OK)
        return snprintf(r->message, sizeof r->message, "the default world: %s", why), -1;
    carom_body_def body = carom_default_body_def();
    body.radius = DEFAULT_BODY;
    if (carom_world_add_body(r->world, &body, NULL) != CAROM_OK)
        return snprintf(r->message, sizeof r->message, "the default body: %s", carom_world_message(r->world)), -1;
    r->container = r->own_container;
    return 0;
}

/* Without world.container the box's walls are the container. */
static int box_container(steer_run *r)
{
    for (int a = 0; a < r->dim; a++)
        if (r->s.boundary[a] != CAROM_WALLS)
            return snprintf(r->message, sizeof r->message,
                            "%s: the box is periodic along %c, so there is no wall to steer clear of (expected "
                            "world.container, or boundary: walls)",
                            r->s.path, "xyz"[a]),
                   -1;
    carom_container_def c = carom_default_container_def();
    c.shape = CAROM_SHAPE_BOX;
    c.dim = r->dim;
    c.size = (carom_vec){r->box[0], r->box[1], r->box[2]};
    char why[256] = "";
    if (carom_container_create(&c, &r->own_container, why, sizeof why) != CAROM_OK)
        return snprintf(r->message, sizeof r->message, "%s: the box as a container: %s", r->s.path, why), -1;
    r->container = r->own_container;
    return 0;
}

static int build_from_scenario(steer_run *r)
{
    r->dim = r->s.dim;
    r->s.window = r->window; /* steer: groups take this window (place.c) */
    carom_world *world = NULL;
    if (place_build_world_named(&r->s, on_event, r, r->box, &world, &r->species, r->message,
                                sizeof r->message) != 0)
        return -1;
    r->world = world;
    if (r->s.container) return r->container = r->s.container, 0;
    return box_container(r);
}

/* The window length and count: options, else the scenario's run:, else defaults. */
static void choose_windows(steer_run *r)
{
    r->window = isnan(r->o.window) ? (r->has_scenario && r->s.window > 0.0 ? r->s.window : DEFAULT_WINDOW)
                                   : r->o.window;
    r->windows = r->o.windows;
    if (r->windows < 0 && r->has_scenario && isfinite(r->s.until))
        r->windows = (int64_t)fmin(ceil(r->s.until / r->window - 1e-9), (double)MAX_WINDOWS);
    if (r->windows < 1) r->windows = DEFAULT_WINDOWS;
}

/* ---- the steered bodies ------------------------------------------------------------- */

/* The counts per group from the species text "NAME COUNT NAME COUNT ...". */
static int32_t group_size(const char *species, int group)
{
    const char *at = species;
    long count = 0;
    for (int g = 0; at && g <= group; g++) {
        char name[XYZ_SPECIES_MAX + 2];
        int used = 0;
        if (sscanf(at, "%33s %ld%n", name, &count, &used) != 2) return 0;
        at += used;
    }
    return (int32_t)count;
}

static carom_filter_def filter_for(const steer_run *r, const scenario_group *g)
{
    carom_filter_def def = g && g->steered ? g->filter : carom_default_filter_def();
    if (r->o.law >= 0) def.law = (carom_filter_law)r->o.law;
    if (!isnan(r->o.max_acceleration)) def.max_acceleration = r->o.max_acceleration;
    if (!isnan(r->o.safety)) def.safety = r->o.safety;
    def.window = r->window;
    return def;
}

static void add_steered(steer_run *r, int32_t id, const scenario_group *g)
{
    carom_body_state state;
    if (carom_world_get_body(r->world, id, &state) != CAROM_OK || isinf(state.mass)) return;
    steered *b = &r->bodies[r->count];
    *b = (steered){id, filter_for(r, g), state.acceleration, 0.0, NAN};
    b->start_clearance = clearance_at(r, state.position, state.radius, NULL);
    r->slot[id] = r->count++;
}

/* The groups with steer:, or every free body if none has it. */
static int choose_steered(steer_run *r)
{
    int32_t n = carom_world_body_count(r->world);
    r->bodies = calloc((size_t)(n > 0 ? n : 1), sizeof *r->bodies);
    r->slot = malloc((size_t)(n > 0 ? n : 1) * sizeof *r->slot);
    if (!r->bodies || !r->slot) return snprintf(r->message, sizeof r->message, "out of memory for %d bodies", n), -1;
    for (int32_t i = 0; i < n; i++) r->slot[i] = -1;
    int any = 0;
    for (int g = 0, first = 0; r->has_scenario && g < r->s.group_count; g++) {
        int32_t size = group_size(r->species, g);
        if (r->s.groups[g].steered)
            for (int32_t k = 0; k < size; k++) add_steered(r, first + k, &r->s.groups[g]), any = 1;
        first += size;
    }
    for (int32_t i = 0; !any && i < n; i++) add_steered(r, i, NULL);
    if (r->count == 0)
        return snprintf(r->message, sizeof r->message,
                        "%s: no body to steer (expected a free body: kinematic bodies are not steered)",
                        r->has_scenario ? r->s.path : "the default scenario"),
               -1;
    return 0;
}

/* Does the world filter body b (not with --at-window-starts, nor with law off)? */
static int world_filters(const steer_run *r, const steered *b)
{
    return !r->o.at_window_starts && b->filter.law != CAROM_FILTER_OFF;
}

/* The world's filter for each steered body it filters (none for the others). */
static int set_filters(steer_run *r)
{
    for (int32_t k = 0; k < r->count; k++) {
        const steered *b = &r->bodies[k];
        if (carom_world_set_body_filter(r->world, b->id, world_filters(r, b) ? &b->filter : NULL) != CAROM_OK)
            return snprintf(r->message, sizeof r->message, "body %d: %s", (int)b->id,
                            carom_world_message(r->world)),
                   -1;
    }
    return 0;
}

/* ---- outputs ----------------------------------------------------------------------- */

static int check_outputs(steer_run *r)
{
    const char *paths[3] = {r->o.json, r->o.trajectory, r->o.lambda};
    const char *names[3] = {"the JSON figures", "the trajectory", "the lambda log"};
    return outfile_check_apart(paths, names, 3, NULL, 0, r->message, sizeof r->message);
}

static int open_outputs(steer_run *r)
{
    if (r->o.trajectory) {
        if (outfile_open(&r->trajectory, r->o.trajectory, r->message, sizeof r->message) != 0) return -1;
        r->trajectory_open = 1;
    }
    if (r->o.lambda) {
        if (outfile_open(&r->lambda, r->o.lambda, r->message, sizeof r->message) != 0) return -1;
        r->lambda_open = 1;
        if (fprintf(r->lambda.stream, "time,body,lambda,acted,apx,apy,apz,ax,ay,az,clearance\n") < 0)
            r->lambda.error = errno ? errno : EIO;
    }
    return 0;
}

static void discard_outputs(steer_run *r)
{
    if (r->trajectory_open) outfile_discard(&r->trajectory);
    if (r->lambda_open) outfile_discard(&r->lambda);
    r->trajectory_open = r->lambda_open = 0;
}

static int output_status(steer_run *r)
{
    if (r->trajectory_open && outfile_status(&r->trajectory, r->message, sizeof r->message) != 0) return -1;
    if (r->lambda_open && outfile_status(&r->lambda, r->message, sizeof r->message) != 0) return -1;
    return 0;
}

static int trajectory_frame(steer_run *r)
{
    if (!r->trajectory_open) return 0;
    const int periodic[3] = {0, 0, 0};
    if (xyz_write_frame(r->trajectory.stream, r->world, r->dim, r->box, periodic, r->species) != 0 &&
        !r->trajectory.error)
        r->trajectory.error = errno ? errno : EIO;
    return outfile_status(&r->trajectory, r->message, sizeof r->message);
}

static void lambda_row(steer_run *r, const steered *b, const carom_filter_result *res, double clearance)
{
    if (!r->lambda_open) return;
    carom_vec p = b->input, a = res->acceleration;
    if (fprintf(r->lambda.stream, "%.17g,%d,%.17g,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
                carom_world_time(r->world), (int)b->id, res->criticality, res->acted, p.x, p.y, p.z, a.x, a.y,
                a.z, clearance) < 0 &&
        !r->lambda.error)
        r->lambda.error = errno ? errno : EIO;
}

/* ---- one window -------------------------------------------------------------------- */

/* The filter in this command, at the window's start: the result to set. */
static int filter_here(steer_run *r, const steered *b, double clearance, carom_vec gradient, carom_vec velocity,
                       carom_filter_result *result)
{
    if (carom_filter_apply(&b->filter, clearance - r->skin, gradient, velocity, b->input, result) != CAROM_OK)
        return snprintf(r->message, sizeof r->message,
                        "body %d at t = %.17g: the filter refused its state (clearance %.17g, input %.17g, %.17g, "
                        "%.17g)",
                        (int)b->id, carom_world_time(r->world), clearance, b->input.x, b->input.y, b->input.z),
               -1;
    result->acceleration = flushed(result->acceleration);
    return 0;
}

/* The input of each steered body from the player, set as it is (the world
 * filters it) or filtered here at the window's start. */
static int steer_inputs(steer_run *r, carom_filter_result *results)
{
    for (int32_t k = 0; k < r->count; k++) {
        steered *b = &r->bodies[k];
        carom_body_state state;
        carom_world_get_body(r->world, b->id, &state);
        carom_vec g;
        double c = clearance_at(r, state.position, state.radius, &g);
        b->input = player_input(r, b, g);
        if (world_filters(r, b))
            results[k] = (carom_filter_result){flushed(b->input), 0.0, 0.0, 0};
        else if (filter_here(r, b, c, g, state.velocity, &results[k]) != 0)
            return -1;
        if (carom_world_set_body_acceleration(r->world, b->id, results[k].acceleration) != CAROM_OK)
            return snprintf(r->message, sizeof r->message, "body %d: %s", (int)b->id,
                            carom_world_message(r->world)),
                   -1;
    }
    return 0;
}

/* After the window: the figures and the lambda row. */
static void steer_figures_after(steer_run *r, carom_filter_result *results)
{
    for (int32_t k = 0; k < r->count; k++) {
        steered *b = &r->bodies[k];
        carom_filter_result *res = &results[k];
        if (world_filters(r, b)) carom_world_get_body_filter(r->world, b->id, res);
        carom_vec input = clamped(b->input, b->filter.max_acceleration);
        carom_vec d = {res->acceleration.x - input.x, res->acceleration.y - input.y,
                       res->acceleration.z - input.z};
        r->f.intrusion_sum += length_of(d) / b->filter.max_acceleration;
        r->f.acted += res->acted != 0;
        r->f.body_windows++;
        carom_body_state state;
        carom_world_get_body(r->world, b->id, &state);
        double c = clearance_at(r, state.position, state.radius, NULL), least = c;
        /* the world knows the least on the whole window's path, not only at its end and events */
        if (world_filters(r, b) && carom_world_get_least_clearance(r->world, b->id, &least) != CAROM_OK) least = c;
        r->f.min_clearance = fmin(r->f.min_clearance, fmin(c, least));
        if (isnan(b->cross_time) && c <= CROSS_FRACTION * b->start_clearance)
            b->cross_time = carom_world_time(r->world);
        lambda_row(r, b, res, c);
    }
}

static int run_window(steer_run *r, int64_t k, carom_filter_result *results)
{
    if (r->has_csv && replay_rows(r, k) != 0) return -1;
    if (steer_inputs(r, results) != 0) return -1;
    carom_status st = carom_world_advance(r->world, r->window);
    if (st != CAROM_OK)
        return snprintf(r->message, sizeof r->message, "window %lld (t = %.17g): %s", (long long)k,
                        carom_world_time(r->world), carom_world_message(r->world)),
               -1;
    r->f.windows++;
    steer_figures_after(r, results);
    return trajectory_frame(r) != 0 || output_status(r) != 0 ? -1 : 0;
}

static int run_windows(steer_run *r)
{
    carom_filter_result *results = calloc((size_t)r->count, sizeof *results);
    if (!results) return snprintf(r->message, sizeof r->message, "out of memory"), -1;
    int st = trajectory_frame(r);
    for (int64_t k = 0; st == 0 && k < r->windows; k++) st = run_window(r, k, results);
    free(results);
    return st;
}

/* ---- the figures ------------------------------------------------------------------- */

typedef struct summary {
    double acted_fraction, mean_intrusion, cross_time;
    int32_t crossed;
} summary;

static summary summarise(const steer_run *r)
{
    summary s = {0.0, 0.0, NAN, 0};
    double n = (double)(r->f.body_windows > 0 ? r->f.body_windows : 1), sum = 0.0;
    s.acted_fraction = (double)r->f.acted / n;
    s.mean_intrusion = r->f.intrusion_sum / n;
    for (int32_t k = 0; k < r->count; k++)
        if (!isnan(r->bodies[k].cross_time)) sum += r->bodies[k].cross_time, s.crossed++;
    if (s.crossed) s.cross_time = sum / s.crossed;
    return s;
}

static const char *player_text(const steer_run *r)
{
    return r->o.player == PLAYER_FILE ? r->o.player_file : player_names[r->o.player];
}

static void print_figures(const steer_run *r)
{
    summary s = summarise(r);
    const carom_filter_def *f = &r->bodies[0].filter;
    printf("steer: %d steered bod%s, player %s, law %s (a_max %.6g, sigma %.6g, window %.6g), filtered %s\n",
           (int)r->count, r->count == 1 ? "y" : "ies", player_text(r), law_names[f->law], f->max_acceleration,
           f->safety, f->window, r->o.at_window_starts ? "at window starts" : "by the world");
    printf("windows run        %lld of %.6g (t = %.6g)\n", (long long)r->f.windows, r->window,
           carom_world_time(r->world));
    printf("minimum clearance  %.6g\n", r->f.min_clearance);
    printf("wall contacts      %lld (the hardest at normal speed %.6g)\n", (long long)r->f.contacts,
           r->f.hardest_impact);
    printf("filter acted       %.6g of the windows\n", s.acted_fraction);
    printf("mean |a - a_p|/a_max %.6g\n", s.mean_intrusion);
    if (s.crossed)
        printf("time to cross      %.6g (mean of %d of %d bodies)\n", s.cross_time, (int)s.crossed, (int)r->count);
    else
        printf("time to cross      never (no body's clearance fell to a tenth of its start)\n");
}

static void write_json(FILE *out, const void *data)
{
    const steer_run *r = data;
    summary s = summarise(r);
    const carom_filter_def *f = &r->bodies[0].filter;
    fprintf(out, "{\n  \"scenario\": ");
    if (r->has_scenario)
        json_write_text(out, r->s.path), fprintf(out, ",\n");
    else
        fprintf(out, "null,\n");
    fprintf(out, "  \"player\": ");
    json_write_text(out, player_text(r));
    fprintf(out, ",\n  \"law\": \"%s\",\n", law_names[f->law]);
    fprintf(out, "  \"filtered\": \"%s\",\n", r->o.at_window_starts ? "window_starts" : "world");
    fprintf(out, "  \"max_acceleration\": %.17g,\n  \"safety\": %.17g,\n", f->max_acceleration, f->safety);
    fprintf(out, "  \"window\": %.17g,\n  \"windows\": %lld,\n  \"steered\": %d,\n", r->window,
            (long long)r->f.windows, (int)r->count);
    fprintf(out, "  \"min_clearance\": %.17g,\n  \"wall_contacts\": %lld,\n", r->f.min_clearance,
            (long long)r->f.contacts);
    fprintf(out, "  \"hardest_impact\": %.17g,\n", r->f.hardest_impact);
    fprintf(out, "  \"acted_fraction\": %.17g,\n  \"mean_intrusion\": %.17g,\n", s.acted_fraction,
            s.mean_intrusion);
    if (s.crossed)
        fprintf(out, "  \"time_to_cross\": %.17g,\n", s.cross_time);
    else
        fprintf(out, "  \"time_to_cross\": null,\n");
    fprintf(out, "  \"crossed\": %d\n}\n", (int)s.crossed);
}

static int commit_outputs(steer_run *r)
{
    if (r->trajectory_open && outfile_commit(&r->trajectory, r->message, sizeof r->message) != 0) return -1;
    r->trajectory_open = 0;
    if (r->lambda_open && outfile_commit(&r->lambda, r->message, sizeof r->message) != 0) return -1;
    r->lambda_open = 0;
    return r->o.json ? outfile_write(r->o.json, write_json, r, r->message, sizeof r->message) : 0;
}

static void say_written(const steer_run *r)
{
    if (r->o.quiet) return;
    const char *paths[3] = {r->o.trajectory, r->o.lambda, r->o.json};
    for (int k = 0; k < 3; k++)
        if (paths[k]) fprintf(stderr, "carom: wrote %s\n", paths[k]);
}

/* ---- the command ------------------------------------------------------------------- */

static int prepare(steer_run *r)
{
    r->f.min_clearance = INFINITY;
    if (r->o.scenario) {
        if (scenario_load(r->o.scenario, &r->s, r->message, sizeof r->message) != 0) return -1;
        r->has_scenario = 1;
    }
    choose_windows(r);
    if (!r->o.player_given && r->has_scenario && r->s.controls_resolved) /* the scenario's run.controls */
        r->o.player = PLAYER_FILE, r->o.player_file = r->s.controls_resolved;
    r->rng = carom_rng_seed(r->o.has_seed ? r->o.seed : r->has_scenario ? r->s.seed : 1);
    if (check_outputs(r) != 0) return -1;
    if ((r->o.scenario ? build_from_scenario(r) : build_default(r)) != 0) return -1;
    r->wall_restitution = carom_world_definition(r->world).wall_restitution;
    r->skin = SKIN_FRACTION * 0.5 * fmax(r->box[0], fmax(r->box[1], r->dim == 3 ? r->box[2] : 0.0));
    if (choose_steered(r) != 0 || set_filters(r) != 0) return -1;
    if (r->o.player == PLAYER_FILE) {
        if (controls_load(r->o.player_file, r->dim, carom_world_body_count(r->world), &r->csv, r->message,
                          sizeof r->message) != 0)
            return -1;
        r->has_csv = 1;
    }
    return open_outputs(r);
}

static int steer_run_all(steer_run *r)
{
    if (prepare(r) != 0 || run_windows(r) != 0 || commit_outputs(r) != 0) return -1;
    print_figures(r);
    say_written(r);
    return 0;
}

static void release(steer_run *r)
{
    discard_outputs(r);
    if (r->has_csv) controls_free(&r->csv);
    carom_world_destroy(r->world);
    r->world = NULL;
    carom_container_destroy(r->own_container);
    if (r->has_scenario) scenario_free(&r->s);
    free(r->species);
    free(r->bodies);
    free(r->slot);
}

int steer_command(int argc, char **argv)
{
    steer_run *r = calloc(1, sizeof *r);
    if (!r) return fail("out of memory");
    char error[MESSAGE_SIZE] = "";
    int parsed = parse_options(argc, argv, &r->o, error, sizeof error), status;
    if (parsed == 1)
        status = (fputs(help_text, stdout), 0);
    else if (parsed != 0)
        status = usage_error(error);
    else
        status = steer_run_all(r) != 0 ? fail(r->message) : 0;
    release(r);
    free(r);
    return status;
}
