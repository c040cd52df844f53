/* compare.c — `carom compare SCENARIO --dt DT[,DT...]`: seed 002's
 * experiment. The exact engine and the two frame steppers (plain, seed 002;
 * bisection, seed 004) start from the same bodies; for each stepper and dt
 * it measures the cost (wall seconds, pair checks), the collisions found and
 * missed (exact pair collisions with no collision of the same pair within
 * 2 dt + mean radius / mean speed in the stepper's log, counted while the
 * runs are still correlated),
 * the penetration where impulses were applied, the energy at the end, the
 * RMS position error against the exact run at checkpoints and the time it
 * first exceeds the mean radius (decorrelation), and whether a run with the
 * frames offset by half a frame ends in the same state (reproducibility;
 * for the exact engine: a run in one go against one stopped at every
 * checkpoint). Prints a table; writes JSON and CSV for plotting.
 */
#define _POSIX_C_SOURCE 200809L
#include "compare.h"
#include "json_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_movie.h"
#include "render.h"
#include "option.h"
#include "outfile.h"
#include "place.h"
#include "report.h"
#include "scenario.h"

enum { EXIT_USAGE = 2, MESSAGE_SIZE = 512, DEFAULT_CHECKPOINTS = 32, METHODS = 2 };

static const char *method_names[METHODS] = {"frame", "bisection"};

/* ---- collision logs and matching them --------------------------------------- */

typedef struct pair_event {
    double t;
    int32_t i, j;
} pair_event;

typedef struct event_list {
    pair_event *events;
    int64_t count, capacity;
    int out_of_memory;
} event_list;

static int record_pair(void *user, const carom_event *e)
{
    event_list *log = user;
    if (e->kind != CAROM_EVENT_PAIR || log->out_of_memory) return 0;
    if (log->count == log->capacity) {
        int64_t capacity = log->capacity ? 2 * log->capacity : 1024;
        pair_event *grown = realloc(log->events, (size_t)capacity * sizeof *grown);
        if (!grown) {
            log->out_of_memory = 1;
            return 0;
        }
        log->events = grown, log->capacity = capacity;
    }
    log->events[log->count++] = (pair_event){e->time, e->i, e->j};
    return 0;
}

static int by_pair_then_time(const void *a, const void *b)
{
    const pair_event *p = a, *q = b;
    if (p->i != q->i) return p->i < q->i ? -1 : 1;
    if (p->j != q->j) return p->j < q->j ? -1 : 1;
    return (p->t > q->t) - (p->t < q->t);
}

/* Exact collisions up to time `before` that the stepper's log has no
 * collision of the same pair for within window (each stepper collision
 * matches one exact one, in time order). Sorts both logs. */
static int64_t count_missed(event_list *exact, event_list *stepper, double window, double before)
{
    if (exact->count > 1) qsort(exact->events, (size_t)exact->count, sizeof *exact->events, by_pair_then_time);
    if (stepper->count > 1)
        qsort(stepper->events, (size_t)stepper->count, sizeof *stepper->events, by_pair_then_time);
    int64_t missed = 0, s = 0;
    for (int64_t k = 0; k < exact->count; k++) {
        const pair_event *e = &exact->events[k];
        /* skip the stepper's collisions of earlier pairs, or too early to match */
        while (s < stepper->count) {
            const pair_event *c = &stepper->events[s];
            int earlier_pair = c->i < e->i || (c->i == e->i && c->j < e->j);
            if (!(earlier_pair || (c->i == e->i && c->j == e->j && c->t < e->t - window))) break;
            s++;
        }
        int matched = s < stepper->count && stepper->events[s].i == e->i && stepper->events[s].j == e->j &&
                      stepper->events[s].t <= e->t + window;
        if (matched) s++;
        else if (e->t <= before) missed++;
    }
    return missed;
}

/* ---- positions ---------------------------------------------------------- */

typedef struct geometry {
    int dim;
    double side[3];
    int periodic[3];
    int32_t n;
    double mean_radius, mean_speed;
} geometry;

static geometry geometry_of(const carom_world *w)
{
    carom_world_def def = carom_world_definition(w);
    geometry g = {def.dim, {def.box.x, def.box.y, def.box.z}, {0, 0, 0}, carom_world_body_count(w), 0.0, 0.0};
    for (int a = 0; a < def.dim; a++) g.periodic[a] = def.boundary[a] == CAROM_PERIODIC;
    for (int32_t i = 0; i < g.n; i++) {
        carom_body_state s;
        carom_world_get_body(w, i, &s);
        g.mean_radius += s.radius / g.n;
        g.mean_speed += sqrt(s.velocity.x * s.velocity.x + s.velocity.y * s.velocity.y +
                             s.velocity.z * s.velocity.z) / g.n;
    }
    return g;
}

static void world_positions(const carom_world *w, double *x)
{
    for (int32_t i = 0; i < carom_world_body_count(w); i++) {
        carom_body_state s;
        carom_world_get_body(w, i, &s);
        x[3 * i] = s.position.x, x[3 * i + 1] = s.position.y, x[3 * i + 2] = s.position.z;
    }
}

static void frame_positions(const carom_frame *f, double *x)
{
    for (int32_t i = 0; i < carom_frame_body_count(f); i++) {
        carom_body_state s;
        carom_frame_get_body(f, i, &s);
        x[3 * i] = s.position.x, x[3 * i + 1] = s.position.y, x[3 * i + 2] = s.position.z;
    }
}

/* RMS and largest distance between two sets of positions (nearest images). */
static double position_error(const geometry *g, const double *x, const double *y, double *largest)
{
    double sum = 0.0, most = 0.0;
    for (int32_t i = 0; i < g->n; i++) {
        double d2 = 0.0;
        for (int a = 0; a < g->dim; a++) {
            double d = x[3 * i + a] - y[3 * i + a];
            if (g->periodic[a]) d -= g->side[a] * round(d / g->side[a]);
            d2 += d * d;
        }
        sum += d2;
        if (d2 > most) most = d2;
    }
    if (largest) *largest = sqrt(most);
    return g->n > 0 ? sqrt(sum / g->n) : 0.0;
}

/* ---- the runs ------------------------------------------------------------ */

/* Frames at which a stepper with this dt is compared: k F / K, k = 1..K. */
static int64_t checkpoint_frame(int64_t frames, int k, int checkpoints)
{
    return (int64_t)llround((double)frames * k / checkpoints);
}

typedef struct result {
    const char *method;
    double dt;
    double seconds;
    int64_t pair_checks, bisection_steps, pair_collisions, wall_collisions, receding, jammed_frames, missed;
    double max_penetration, mean_penetration, energy_error;
    double *times, *errors; /* at the checkpoints */
    double decorrelation;   /* INFINITY: never */
    int reproducible;
    double reproducibility_difference;
} result;

typedef struct comparison {
    compare_options o;
    scenario sc;
    carom_world *exact, *initial; /* run in one go; kept at t0 to start every other run */
    geometry g;
    double t0, until;
    event_list exact_log;
    double *reference_times, *reference_positions; /* exact positions at every checkpoint time */
    int reference_count;
    result exact_result, results[COMPARE_MAX_DT][METHODS];
    char message[MESSAGE_SIZE];
} comparison;

/* The most frames a stepper is asked for: at a microsecond a frame for a
 * few bodies, a day's work; and far inside what llround can return. */
static const double MOST_FRAMES = 1e11;

static int64_t frames_for(const comparison *c, double dt) { return (int64_t)llround((c->until - c->t0) / dt); }

static double checkpoint_time(const comparison *c, double dt, int64_t frame) { return c->t0 + (double)frame * dt; }

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const double *reference_at(const comparison *c, double t)
{
    const double *found = bsearch(&t, c->reference_times, (size_t)c->reference_count, sizeof t, compare_doubles);
    return found ? c->reference_positions + 3 * (size_t)c->g.n * (size_t)(found - c->reference_times) : NULL;
}

static double world_energy(const carom_world *w)
{
    carom_stats s = carom_world_stats(w);
    return s.kinetic_energy + s.potential_energy;
}

static double relative(double now, double then) { return then != 0.0 ? (now - then) / fabs(then) : now - then; }

/* The exact run in one go (timed, with its collision log). */
static int run_exact(comparison *c)
{
    result *r = &c->exact_result;
    double e0 = world_energy(c->exact);
    double started = report_wall_seconds();
    carom_status st = carom_world_run(c->exact, c->until, -1);
    r->seconds = report_wall_seconds() - started;
    if (st != CAROM_OK || c->exact_log.out_of_memory) {
        snprintf(c->message, sizeof c->message, "%s: exact run: %s", c->o.scenario,
                 st != CAROM_OK ? carom_world_message(c->exact) : "out of memory for the event log");
        return -1;
    }
    carom_stats s = carom_world_stats(c->exact);
    r->method = "exact";
    r->pair_collisions = s.pair_events, r->wall_collisions = s.wall_events;
    r->energy_error = relative(world_energy(c->exact), e0);
    r->decorrelation = INFINITY;
    return 0;
}

/* Every checkpoint time of every dt, sorted, each once. */
static int collect_reference_times(comparison *c)
{
    int K = c->o.checkpoints, count = 0;
    c->reference_times = malloc((size_t)(c->o.dt_count * K + 1) * sizeof *c->reference_times);
    if (!c->reference_times) return -1;
    for (int d = 0; d < c->o.dt_count; d++)
        for (int k = 1; k <= K; k++) {
            int64_t frames = frames_for(c, c->o.dt[d]);
            c->reference_times[count++] = checkpoint_time(c, c->o.dt[d], checkpoint_frame(frames, k, K));
        }
    qsort(c->reference_times, (size_t)count, sizeof *c->reference_times, compare_doubles);
    int kept = 0;
    for (int k = 0; k < count; k++)
        if (kept == 0 || c->reference_times[kept - 1] != c->reference_times[k])
            c->reference_times[kept++] = c->reference_times[k];
    c->reference_count = kept;
    return 0;
}

/* The exact run again, stopped at every checkpoint time to keep the
 * positions; at the end the same bits as the run in one go, or not. */
static int run_exact_reference(comparison *c)
{
    if (collect_reference_times(c) != 0) return -1;
    size_t per = 3 * (size_t)c->g.n;
    c->reference_positions = malloc((size_t)c->reference_count * per * sizeof(double) + 1);
    carom_world *w = NULL;
    int failed = !c->reference_positions || compare_copy_world(c->initial, &w) != 0;
    for (int k = 0; !failed && k < c->reference_count; k++) {
        failed = carom_world_run(w, c->reference_times[k], -1) != CAROM_OK;
        world_positions(w, c->reference_positions + per * (size_t)k);
    }
    if (!failed) {
        failed = carom_world_run(w, c->until, -1) != CAROM_OK;
        double *a = malloc(per * sizeof(double) + 1), *b = malloc(per * sizeof(double) + 1);
        failed |= !a || !b;
        if (!failed) {
            world_positions(w, a), world_positions(c->exact, b);
            c->exact_result.reproducible = memcmp(a, b, per * sizeof(double)) == 0;
            position_error(&c->g, a, b, &c->exact_result.reproducibility_difference);
        }
        free(a), free(b);
    }
    carom_world_destroy(w);
    if (failed) snprintf(c->message, sizeof c->message, "%s: the exact reference run failed", c->o.scenario);
    return failed ? -1 : 0;
}

static carom_frame *new_stepper(comparison *c, int method, double dt, event_list *log)
{
    carom_frame_def def = carom_default_frame_def();
    def.method = method ? CAROM_FRAME_BISECTION : CAROM_FRAME_PLAIN;
    def.dt = dt;
    def.eps = isnan(c->o.eps) ? 0.0 : c->o.eps;
    def.all_pairs = c->o.all_pairs;
    def.on_event = log ? record_pair : NULL;
    def.user = log;
    carom_frame *f = NULL;
    char why[256];
    if (carom_frame_create_from_world(c->initial, &def, &f, why, sizeof why) != CAROM_OK)
        snprintf(c->message, sizeof c->message, "%s: %s", c->o.scenario, why);
    return f;
}

/* Runs frames and adds the wall time; a jam is only a warning. */
static int timed_run(comparison *c, carom_frame *f, int64_t frames, double *seconds)
{
    double started = report_wall_seconds();
    carom_status st = carom_frame_run(f, frames);
    *seconds += report_wall_seconds() - started;
    if (st == CAROM_OK || st == CAROM_JAMMED) return 0;
    snprintf(c->message, sizeof c->message, "%s: %s", c->o.scenario, carom_frame_message(f));
    return -1;
}

static void take_stats(result *r, const carom_frame *f, double e0)
{
    carom_frame_stats s = carom_frame_get_stats(f);
    r->pair_checks = s.pair_checks, r->bisection_steps = s.bisection_steps;
    r->pair_collisions = s.pair_collisions, r->wall_collisions = s.wall_collisions;
    r->receding = s.receding_overlaps, r->jammed_frames = s.jammed_frames;
    r->max_penetration = s.max_penetration, r->mean_penetration = s.mean_penetration;
    r->energy_error = relative(s.kinetic_energy + s.potential_energy, e0);
}

/* The same frames offset by half a frame: half, F - 1 whole, half. */
static int run_offset(comparison *c, int method, double dt, const double *end_positions, result *r)
{
    carom_frame *f = new_stepper(c, method, dt, NULL);
    if (!f) return -1;
    int64_t frames = frames_for(c, dt);
    carom_status st = carom_frame_step(f, 0.5 * dt);
    if (st == CAROM_OK || st == CAROM_JAMMED) st = carom_frame_run(f, frames - 1);
    if (st == CAROM_OK || st == CAROM_JAMMED) st = carom_frame_step(f, 0.5 * dt);
    double *x = malloc(3 * (size_t)c->g.n * sizeof *x + 1);
    if (x && (st == CAROM_OK || st == CAROM_JAMMED)) {
        frame_positions(f, x);
        r->reproducible = memcmp(x, end_positions, 3 * (size_t)c->g.n * sizeof *x) == 0;
        position_error(&c->g, x, end_positions, &r->reproducibility_difference);
    }
    int ok = x && (st == CAROM_OK || st == CAROM_JAMMED);
    if (!ok) snprintf(c->message, sizeof c->message, "%s: %s", c->o.scenario, x ? carom_frame_message(f) : "out of memory");
    free(x);
    carom_frame_destroy(f);
    return ok ? 0 : -1;
}

/* How far apart in time the same collision may lie in the two runs: two
 * frames (detection is late by up to one), plus the time to cross a mean
 * radius at the mean speed, the drift allowed before decorrelation. */
static double match_window(const comparison *c, double dt)
{
    double drift = c->g.mean_speed > 0.0 ? c->g.mean_radius / c->g.mean_speed : 0.0;
    return 2.0 * dt + drift;
}

static int run_stepper(comparison *c, int method, double dt, result *r)
{
    event_list log = {0};
    carom_frame *f = new_stepper(c, method, dt, &log);
    if (!f) return -1;
    int K = c->o.checkpoints;
    int64_t frames = frames_for(c, dt), done = 0;
    r->method = method_names[method], r->dt = dt, r->decorrelation = INFINITY;
    r->times = calloc((size_t)K, sizeof *r->times), r->errors = calloc((size_t)K, sizeof *r->errors);
    double *x = malloc(3 * (size_t)c->g.n * sizeof *x + 1), e0 = world_energy(c->initial);
    int failed = !r->times || !r->errors || !x;
    for (int k = 1; !failed && k <= K; k++) {
        int64_t target = checkpoint_frame(frames, k, K);
        failed = timed_run(c, f, target - done, &r->seconds) != 0;
        done = target;
        r->times[k - 1] = checkpoint_time(c, dt, target);
        frame_positions(f, x);
        const double *exact = reference_at(c, r->times[k - 1]);
        r->errors[k - 1] = exact ? position_error(&c->g, x, exact, NULL) : NAN;
        if (isinf(r->decorrelation) && r->errors[k - 1] > c->g.mean_radius) r->decorrelation = r->times[k - 1];
    }
    if (!failed) {
        take_stats(r, f, e0);
        r->missed = count_missed(&c->exact_log, &log, match_window(c, dt), r->decorrelation);
        failed = log.out_of_memory || run_offset(c, method, dt, x, r) != 0;
    }
    if (failed && !c->message[0]) snprintf(c->message, sizeof c->message, "out of memory");
    free(x), free(log.events);
    carom_frame_destroy(f);
    return failed ? -1 : 0;
}

/* ---- output ------------------------------------------------------------------ */

static void format_number(char *text, size_t size, double value)
{
    if (isinf(value)) snprintf(text, size, "never");
    else if (isnan(value)) snprintf(text, size, "-");
    else snprintf(text, size, "%.3g", value);
}

/* Position error at the checkpoint a quarter, half, three quarters and all the way. */
static double error_at_fraction(const comparison *c, const result *r, int quarter)
{
    if (!r->errors) return 0.0;
    return r->errors[c->o.checkpoints * quarter / 4 - 1];
}

static void print_row(FILE *out, const comparison *c, const result *r)
{
    char cells[8][24];
    format_number(cells[0], sizeof cells[0], r->max_penetration);
    format_number(cells[1], sizeof cells[1], r->mean_penetration);
    format_number(cells[2], sizeof cells[2], r->energy_error);
    for (int q = 1; q <= 4; q++) format_number(cells[2 + q], sizeof cells[0], error_at_fraction(c, r, q));
    format_number(cells[7], sizeof cells[7], r->decorrelation);
    char dt[24], checks[24], repro[40];
    if (r->dt > 0) snprintf(dt, sizeof dt, "%.3g", r->dt);
    else snprintf(dt, sizeof dt, "-");
    if (r->pair_checks > 0) snprintf(checks, sizeof checks, "%.3g", (double)(r->pair_checks + r->bisection_steps));
    else snprintf(checks, sizeof checks, "-");
    if (r->reproducible) snprintf(repro, sizeof repro, "yes");
    else snprintf(repro, sizeof repro, "no (%.2g)", r->reproducibility_difference);
    fprintf(out, "%-10s %-8s %9.3g %11s %10lld %7lld %9s %9s %10s %9s %9s %9s %9s %8s  %s\n", r->method, dt,
            r->seconds, checks, (long long)r->pair_collisions, (long long)r->missed, cells[0], cells[1], cells[2],
            cells[3], cells[4], cells[5], cells[6], cells[7], repro);
}

static void print_table(FILE *out, const comparison *c)
{
    fprintf(out, "carom compare: %s, %d bodies, %dD, t = %g to %g, %s, eps %s\n", c->o.scenario, (int)c->g.n,
            c->g.dim, c->t0, c->until, c->o.all_pairs ? "all pairs" : "cell grid",
            isnan(c->o.eps) ? "dt/2^20" : "as given");
    fprintf(out, "%-10s %-8s %9s %11s %10s %7s %9s %9s %10s %9s %9s %9s %9s %8s  %s\n", "method", "dt", "seconds",
            "pair checks", "collisions", "missed", "max pen", "mean pen", "dE/E0", "err T/4", "err T/2", "err 3T/4",
            "err T", "decorr", "reproducible");
    print_row(out, c, &c->exact_result);
    for (int d = 0; d < c->o.dt_count; d++)
        for (int m = 0; m < METHODS; m++) print_row(out, c, &c->results[d][m]);
    fprintf(out, "pair checks include bisection steps; missed: exact pair collisions before decorrelation (RMS position\n"
                 "error > mean radius %g) with no collision of the same pair in the stepper within 2 dt + %.3g;\n"
                 "pen: overlap depth where impulses were applied; err: RMS position error against the exact run;\n"
                 "reproducible: the same end state with the frames offset by half a frame (else the largest difference).\n",
            c->g.mean_radius, match_window(c, 0.0));
}

static void json_value(FILE *out, double v)
{
    if (isfinite(v)) fprintf(out, "%.17g", v);
    else fprintf(out, "null");
}

static void json_result(FILE *out, const comparison *c, const result *r, const char *after)
{
    fprintf(out, "    {\"method\": \"%s\", \"dt\": ", r->method);
    json_value(out, r->dt > 0 ? r->dt : NAN);
    fprintf(out, ", \"wall_seconds\": %.6g, \"pair_checks\": %lld, \"bisection_steps\": %lld, "
                 "\"pair_collisions\": %lld, \"wall_collisions\": %lld, \"missed\": %lld, \"receding_overlaps\": %lld, "
                 "\"jammed_frames\": %lld, \"max_penetration\": ",
            r->seconds, (long long)r->pair_checks, (long long)r->bisection_steps, (long long)r->pair_collisions,
            (long long)r->wall_collisions, (long long)r->missed, (long long)r->receding, (long long)r->jammed_frames);
    json_value(out, r->max_penetration);
    fprintf(out, ", \"mean_penetration\": ");
    json_value(out, r->mean_penetration);
    fprintf(out, ", \"energy_error\": ");
    json_value(out, r->energy_error);
    fprintf(out, ", \"decorrelation_time\": ");
    json_value(out, r->decorrelation);
    fprintf(out, ", \"reproducible\": %s, \"reproducibility_difference\": ", r->reproducible ? "true" : "false");
    json_value(out, r->reproducibility_difference);
    fprintf(out, ",\n     \"checkpoints\": [");
    for (int k = 0; r->errors && k < c->o.checkpoints; k++) {
        fprintf(out, "%s[", k ? ", " : "");
        json_value(out, r->times[k]);
        fprintf(out, ", ");
        json_value(out, r->errors[k]);
        fprintf(out, "]");
    }
    fprintf(out, "]}%s\n", after);
}

static void write_json(FILE *out, const void *data)
{
    const comparison *c = data;
    fprintf(out, "{\n  \"carom_version\": \"%s\",\n  \"scenario\": ", CAROM_VERSION_STRING);
    json_write_text(out, c->o.scenario);
    fprintf(out, ",\n  \"n\": %d,\n  \"dim\": %d,\n", (int)c->g.n, c->g.dim);
    fprintf(out, "  \"from\": %.17g,\n  \"until\": %.17g,\n  \"all_pairs\": %s,\n  \"mean_radius\": %.17g,\n", c->t0,
            c->until, c->o.all_pairs ? "true" : "false", c->g.mean_radius);
    fprintf(out, "  \"results\": [\n");
    json_result(out, c, &c->exact_result, c->o.dt_count ? "," : "");
    for (int d = 0; d < c->o.dt_count; d++)
        for (int m = 0; m < METHODS; m++)
            json_result(out, c, &c->results[d][m], d + 1 < c->o.dt_count || m + 1 < METHODS ? "," : "");
    fprintf(out, "  ]\n}\n");
}

static void write_csv(FILE *out, const void *data)
{
    const comparison *c = data;
    fprintf(out, "method,dt,wall_seconds,pair_checks,bisection_steps,pair_collisions,wall_collisions,missed,"
                 "receding_overlaps,max_penetration,mean_penetration,energy_error,error_quarter,error_half,"
                 "error_three_quarters,error_end,decorrelation_time,reproducible,reproducibility_difference\n");
    for (int k = -1; k < c->o.dt_count * METHODS; k++) {
        const result *r = k < 0 ? &c->exact_result : &c->results[k / METHODS][k % METHODS];
        fprintf(out, "%s,%.17g,%.6g,%lld,%lld,%lld,%lld,%lld,%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d,%.17g\n",
                r->method, r->dt, r->seconds, (long long)r->pair_checks, (long long)r->bisection_steps,
                (long long)r->pair_collisions, (long long)r->wall_collisions, (long long)r->missed,
                (long long)r->receding, r->max_penetration, r->mean_penetration, r->energy_error,
                error_at_fraction(c, r, 1), error_at_fraction(c, r, 2), error_at_fraction(c, r, 3),
                error_at_fraction(c, r, 4), r->decorrelation, r->reproducible, r->reproducibility_difference);
    }
}

/* ---- setting up ------------------------------------------------------------ */

static int build(comparison *c)
{
    if (scenario_load(c->o.scenario, &c->sc, c->message, sizeof c->message) != 0) return -1;
    if (c->o.has_seed) c->sc.seed = c->o.seed;
    if (c->sc.controls) /* the frame steppers have no windows to apply them at */
        return snprintf(c->message, sizeof c->message, "%s:%d:%d: run.controls is not replayed by carom compare "
                        "(expected a scenario without controls)", c->o.scenario, c->sc.controls_mark.line,
                        c->sc.controls_mark.col), -1;
    double box[3];
    if (place_build_world(&c->sc, record_pair, &c->exact_log, box, &c->exact, c->message, sizeof c->message) != 0)
        return -1;
    c->t0 = carom_world_time(c->exact);
    c->until = isnan(c->o.until) ? c->sc.until : c->o.until;
    if (!isfinite(c->until))
        return snprintf(c->message, sizeof c->message, "%s: nothing bounds the comparison (expected run.until or --until)",
                        c->o.scenario),
               -1;
    if (compare_copy_world(c->exact, &c->initial) != 0) return snprintf(c->message, sizeof c->message, "out of memory copying the initial state"), -1;
    c->g = geometry_of(c->exact);
    for (int d = 0; d < c->o.dt_count; d++) {
        double frames = (c->until - c->t0) / c->o.dt[d]; /* before llround, which cannot take it past 2^63 */
        if (!(frames <= MOST_FRAMES))
            return snprintf(c->message, sizeof c->message, "--dt %g: %.3g frames to t = %g (expected at most %.0e: "
                            "a larger dt or an earlier --until)", c->o.dt[d], frames, c->until, MOST_FRAMES), -1;
    }
    for (int d = 0; d < c->o.dt_count; d++)
        if (frames_for(c, c->o.dt[d]) < c->o.checkpoints)
            return snprintf(c->message, sizeof c->message,
                            "--dt %g: fewer frames to t = %g than checkpoints (%d): expected a smaller dt", c->o.dt[d],
                            c->until, c->o.checkpoints),
                   -1;
    return 0;
}

static void release(comparison *c)
{
    for (int d = 0; d < COMPARE_MAX_DT; d++)
        for (int m = 0; m < METHODS; m++) free(c->results[d][m].times), free(c->results[d][m].errors);
    free(c->reference_times), free(c->reference_positions), free(c->exact_log.events);
    carom_world_destroy(c->exact), carom_world_destroy(c->initial);
    scenario_free(&c->sc);
}

/* --movie: the exact run and the plain stepper of the first dt side by side. */
static int write_movie(comparison *c)
{
    const compare_options *o = &c->o;
    compare_movie_request r = {o->movie, o->fps, isnan(o->speed) ? (c->until - c->t0) / 10.0 : o->speed,
                               o->movie_width ? o->movie_width : 1280, o->movie_width ? o->movie_height : 480,
                               o->dt[0], c->until};
    if (!o->quiet) fprintf(stderr, "carom compare: the movie %s (exact and frame, dt = %g) ...\n", o->movie, o->dt[0]);
    return compare_movie_write(c->initial, c->g.dim, c->g.side, &r, c->message, sizeof c->message);
}

int compare_writes_stdout(const compare_options *o)
{
    return (o->json && !strcmp(o->json, "-")) || (o->csv && !strcmp(o->csv, "-"));
}

/* Before anything runs: each output can be written, no two name one file,
 * and none names the scenario. 0, or -1 with a message. */
static int check_outputs(const compare_options *o, char *error, size_t size)
{
    const char *path[] = {o->json, o->csv, o->movie}, *name[] = {"--json", "--csv", "--movie"};
    const char *input[] = {o->scenario};
    return outfile_check_apart(path, name, 3, input, 1, error, size);
}

static int compare_run(const compare_options *o)
{
    comparison *c = calloc(1, sizeof *c);
    if (!c) return fprintf(stderr, "carom: out of memory\n"), 1;
    c->o = *o;
    scenario_init(&c->sc);
    int st = build(c);
    if (st == 0) st = run_exact(c);
    if (st == 0) st = run_exact_reference(c);
    for (int d = 0; st == 0 && d < o->dt_count; d++)
        for (int m = 0; st == 0 && m < METHODS; m++) {
            if (!o->quiet) fprintf(stderr, "carom compare: %s, dt = %g ...\n", method_names[m], o->dt[d]);
            st = run_stepper(c, m, o->dt[d], &c->results[d][m]);
        }
    if (st == 0) print_table(compare_writes_stdout(o) ? stderr : stdout, c); /* standard output holds the file */
    if (st == 0) st = outfile_write(o->json, write_json, c, c->message, sizeof c->message);
    if (st == 0) st = outfile_write(o->csv, write_csv, c, c->message, sizeof c->message);
    if (st == 0 && o->movie) {
        st = write_movie(c);
        render_release_caches(); /* cairo's and fontconfig's caches, for a clean exit under LSan */
    }
    if (st != 0) fprintf(stderr, "carom: %s\n", c->message);
    release(c);
    free(c);
    return st == 0 ? 0 : 1;
}

/* ---- the command line --------------------------------------------------------- */

static const char *help_text =
    "usage: carom compare SCENARIO.yaml --dt DT[,DT...] [options]\n"
    "       carom compare --scaling [--quick] [--json FILE] [--csv FILE]\n"
    "\n"
    "Runs the exact engine and the frame-based steppers from the same bodies:\n"
    "frame (seed 002: step every body by dt, resolve overlaps where found) and\n"
    "bisection (seed 004: trace each overlap back to its time of impact within eps).\n"
    "For each stepper and dt: wall seconds, pair checks, collisions, missed\n"
    "collisions, penetration, energy error, position error against the exact run,\n"
    "decorrelation time and reproducibility.\n"
    "\n"
    "  --dt DT[,DT...]   frame lengths to try (up to 16)\n"
    "  --eps E           bisection tolerance on the time of impact (default dt / 2^20)\n"
    "  --until T         compare up to simulated time T (default: the scenario's run.until)\n"
    "  --seed S          random seed for placing bodies and drawing velocities\n"
    "  --all-pairs       test every pair (seed 002's n^2/2) instead of the cell grid\n"
    "  --checkpoints K   times at which positions are compared (default 32)\n"
    "  --json FILE       write the results as JSON (- for standard output)\n"
    "  --csv FILE        write one CSV row per method and dt\n"
    "  --movie FILE      a movie (.mp4 or .gif): the exact engine and the frame\n"
    "                    stepper of the first dt side by side, each frame at its\n"
    "                    exact instant (the stepper at its last frame end before it)\n"
    "  --fps N           the movie's frames per second (default 30)\n"
    "  --speed S         simulated time per second of movie (default: all in 10 s)\n"
    "  --movie-size WxH  the movie's pixels, both halves (default 1280x480)\n"
    "  --scaling         measure cost against N and density for each method instead\n"
    "  --quick           (with --scaling) smaller sizes, for a quick look\n"
    "  --quiet           no progress lines on standard error\n"
    "\n"
    "Exit status: 0 on success, 1 on bad input or a failed run, 2 on bad usage.\n";

static int usage_error(const char *message)
{
    fprintf(stderr, "carom: %s (see carom compare --help)\n", message);
    return EXIT_USAGE;
}

static int parse_dt_list(compare_options *o, const char *text, char *error, size_t size)
{
    char item[64];
    for (const char *p = text;;) {
        const char *comma = strchr(p, ',');
        size_t length = comma ? (size_t)(comma - p) : strlen(p);
        if (o->dt_count == COMPARE_MAX_DT)
            return snprintf(error, size, "--dt: more than %d values", COMPARE_MAX_DT), -1;
        snprintf(item, sizeof item, "%.*s", (int)(length < sizeof item ? length : sizeof item - 1), p);
        if (option_positive_number("--dt", item, &o->dt[o->dt_count++], error, size) != 0) return -1;
        if (!comma) return 0;
        p = comma + 1;
    }
}

static int take_value(compare_options *o, const char *name, const char *value, char *error, size_t size)
{
    double v;
    if (!strcmp(name, "--dt")) return parse_dt_list(o, value, error, size);
    if (!strcmp(name, "--eps")) return option_positive_number(name, value, &o->eps, error, size);
    if (!strcmp(name, "--until")) return option_positive_number(name, value, &o->until, error, size);
    if (!strcmp(name, "--json")) return o->json = value, 0;
    if (!strcmp(name, "--csv")) return o->csv = value, 0;
    if (!strcmp(name, "--movie")) return o->movie = value, 0;
    if (!strcmp(name, "--speed")) return option_positive_number(name, value, &o->speed, error, size);
    if (!strcmp(name, "--movie-size")) return option_size(name, value, &o->movie_width, &o->movie_height, error, size);
    if (!strcmp(name, "--fps")) {
        if (option_positive_number(name, value, &v, error, size) != 0) return -1;
        if (v != floor(v) || v > 240) return snprintf(error, size, "--fps: '%s' is not a usable value (expected 1 to 240)", value), -1;
        return o->fps = (int)v, 0;
    }
    if (option_positive_number(name, value, &v, error, size) != 0) return -1;
    if (v != floor(v) || v > 1e6) return snprintf(error, size, "%s: '%s' is not a usable value (expected a whole number)", name, value), -1;
    if (!strcmp(name, "--seed")) o->seed = (uint64_t)v, o->has_seed = 1;
    else o->checkpoints = (int)v;
    return 0;
}

static int parse_flag(compare_options *o, const char *arg)
{
    if (!strcmp(arg, "--all-pairs")) return o->all_pairs = 1;
    if (!strcmp(arg, "--scaling")) return o->scaling = 1;
    if (!strcmp(arg, "--quick")) return o->quick = 1;
    if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) return o->quiet = 1;
    return 0;
}

static int is_valued(const char *name)
{
    static const char *const valued[] = {"--dt",  "--eps",   "--until", "--seed",  "--checkpoints", "--json",
                                         "--csv", "--movie", "--fps",   "--speed", "--movie-size"};
    return option_is_one_of(name, valued, sizeof valued / sizeof valued[0]);
}

/* Returns 0, 1 for --help, or -1 with a message. */
static int parse_options(int argc, char **argv, compare_options *o, char *error, size_t size)
{
    memset(o, 0, sizeof *o);
    o->eps = o->until = o->speed = NAN;
    o->fps = 30;
    o->checkpoints = DEFAULT_CHECKPOINTS;
    for (int k = 0; k < argc; k++) {
        const char *arg = argv[k];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) return 1;
        if (parse_flag(o, arg)) continue;
        if (arg[0] != '-' || arg[1] == '\0') {
            if (o->scenario) return snprintf(error, size, "more than one scenario ('%s' and '%s')", o->scenario, arg), -1;
            o->scenario = arg;
            continue;
        }
        char name[64];
        const char *value;
        if (option_take_valued(argc, argv, &k, is_valued, name, sizeof name, &value, error, size) != 0 ||
            take_value(o, name, value, error, size) != 0)
            return -1;
    }
    if (o->scaling) return o->scenario ? (snprintf(error, size, "--scaling takes no scenario"), -1) : 0;
    if (!o->scenario) return snprintf(error, size, "give a scenario file (or --scaling)"), -1;
    if (o->dt_count == 0) return snprintf(error, size, "give the frame lengths to compare with --dt DT[,DT...]"), -1;
    if (!o->movie && (!isnan(o->speed) || o->movie_width))
        return snprintf(error, size, "--speed and --movie-size are for --movie"), -1;
    return 0;
}

int compare_command(int argc, char **argv)
{
    compare_options o;
    char error[MESSAGE_SIZE];
    int parsed = parse_options(argc, argv, &o, error, sizeof error);
    if (parsed == 1) return fputs(help_text, stdout), 0;
    if (parsed != 0) return usage_error(error);
    if (check_outputs(&o, error, sizeof error) != 0) return fprintf(stderr, "carom: %s\n", error), 1;
    if (!o.scaling) return compare_run(&o);
    if (scaling_run(&o, error, sizeof error) == 0) return 0;
    fprintf(stderr, "carom: %s\n", error);
    return 1;
}
