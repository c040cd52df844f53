/* carom.c — the carom command: a thin client of libcarom, and the only code
 * that prints or exits.
 *
 *   carom run SCENARIO.yaml [options]     build the world a scenario describes and run it
 *   carom run --restart CHECKPOINT [options]
 *   carom compare SCENARIO.yaml --dt DT[,DT...]   the frame-based steppers against the exact engine (compare.c)
 *
 * It reads the scenario (scenario.c), makes the bodies (place.c), runs the
 * world in slices up to each frame or checkpoint time (running in pieces
 * gives the same bits as one run, so outputs never perturb the physics), and
 * writes trajectories (xyz.c), the event log, statistics (report.c) and
 * checkpoints (checkpoint.c) under temporary names, renamed only when
 * complete (outfile.c). Errors are one line, "carom: FILE:LINE:COL: what is
 * wrong (what was expected)", with a non-zero exit status.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "checkpoint.h"
#include "compare.h"
#include "option.h"
#include "outfile.h"
#include "place.h"
#include "report.h"
#include "scenario.h"
#include "session.h"
#include "xyz.h"

enum { EXIT_USAGE = 2, EVENTS_PER_SLICE = 200000, MESSAGE_SIZE = 512 };

static const char *help_text =
    "carom " CAROM_VERSION_STRING " - exact event-driven simulation of hard disks and spheres\n"
    "\n"
    "usage: carom run SCENARIO.yaml [options]\n"
    "       carom run --restart CHECKPOINT [options]\n"
    "       carom compare SCENARIO.yaml --dt DT[,DT...] [options]   frame stepping against the exact engine\n"
    "       carom compare --scaling                               cost against N and density\n"
    "       carom --help | --version | run --help | compare --help\n"
    "\n"
    "Every collision is predicted before it happens and processed in time order:\n"
    "no time step, no overlaps, energy conserved to round-off, runs reproducible\n"
    "bit for bit. Scenario files are YAML; see the README for every key.\n";

static const char *run_help_text =
    "usage: carom run SCENARIO.yaml [options]\n"
    "       carom run --restart CHECKPOINT [options]\n"
    "\n"
    "Options override the scenario's (or the checkpoint's) settings:\n"
    "  --until T              run until simulated time T\n"
    "  --events N             stop after N events in all (pair, wall and cell)\n"
    "  --seed S               random seed for placing bodies and drawing velocities\n"
    "  --trajectory FILE      write extended XYZ frames (OVITO, ASE) to FILE\n"
    "  --every DT             one frame every DT of simulated time\n"
    "  --events-log FILE      write every collision as CSV: time,kind,i,j\n"
    "  --stats FILE           write statistics as JSON (- for standard output)\n"
    "  --checkpoint FILE      write a checkpoint to FILE (at the end, and every DT with:)\n"
    "  --checkpoint-every DT  a checkpoint every DT of simulated time\n"
    "  --restart FILE         continue the run saved in checkpoint FILE\n"
    "  --quiet                no progress bar\n"
    "  --help                 this text\n"
    "\n"
    "Outputs are written under temporary names and renamed when complete.\n"
    "A progress bar is drawn on standard error when it is a terminal.\n"
    "Exit status: 0 on success, 1 on bad input or a failed run, 2 on bad usage.\n";

/* What the command line says. Absent values: NULL, NAN or -1. */
typedef struct options {
    const char *scenario, *restart;
    double until, every, checkpoint_every;
    int64_t events;
    int has_seed, quiet;
    uint64_t seed;
    const char *trajectory, *events_log, *stats, *checkpoint;
} options;

static int fail(const char *message)
{
    fprintf(stderr, "carom: %s\n", message);
    return 1;
}

static int usage_error(const char *message)
{
    fprintf(stderr, "carom: %s (see carom run --help)\n", message);
    return EXIT_USAGE;
}

/* ---- the command line ---------------------------------------------------- */

static int parse_count(const char *option, const char *text, int64_t *value, int positive, char *error,
                       size_t size)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end || errno || v < (positive ? 1 : 0) || text[0] == '-') {
        snprintf(error, size, "%s: '%s' is not a usable value (expected a whole number >= %d)", option, text,
                 positive ? 1 : 0);
        return -1;
    }
    *value = v;
    return 0;
}

/* Options that take a value, and where it goes. */
static int take_value(options *o, const char *name, const char *value, char *error, size_t size)
{
    int64_t count;
    if (!strcmp(name, "--until")) return option_positive_number(name, value, &o->until, error, size);
    if (!strcmp(name, "--every")) return option_positive_number(name, value, &o->every, error, size);
    if (!strcmp(name, "--checkpoint-every")) return option_positive_number(name, value, &o->checkpoint_every, error, size);
    if (!strcmp(name, "--events")) return parse_count(name, value, &o->events, 1, error, size);
    if (!strcmp(name, "--seed")) {
        if (parse_count(name, value, &count, 0, error, size) != 0) return -1;
        o->seed = (uint64_t)count, o->has_seed = 1;
        return 0;
    }
    const char **texts[] = {&o->trajectory, &o->events_log, &o->stats, &o->checkpoint, &o->restart};
    const char *names[] = {"--trajectory", "--events-log", "--stats", "--checkpoint", "--restart"};
    for (int k = 0; k < 5; k++)
        if (!strcmp(name, names[k])) {
            *texts[k] = value;
            return 0;
        }
    snprintf(error, size, "unknown option '%s'", name);
    return -1;
}

static int is_valued(const char *name)
{
    static const char *valued[] = {"--until", "--every", "--checkpoint-every", "--events", "--seed",
                                   "--trajectory", "--events-log", "--stats", "--checkpoint", "--restart"};
    for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
        if (!strcmp(name, valued[k])) return 1;
    return 0;
}

/* Returns 0, 1 for --help, or -1 with a message. */
static int parse_options(int argc, char **argv, options *o, char *error, size_t size)
{
    *o = (options){NULL, NULL, NAN, NAN, NAN, -1, 0, 0, 0, NULL, NULL, NULL, NULL};
    for (int k = 0; k < argc; k++) {
        const char *arg = argv[k];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) return 1;
        if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            o->quiet = 1;
            continue;
        }
        if (arg[0] == '-' && arg[1] == '-') {
            char name[64];
            const char *equals = strchr(arg, '='), *value;
            size_t length = equals ? (size_t)(equals - arg) : strlen(arg);
            snprintf(name, sizeof name, "%.*s", (int)length, arg);
            if (!is_valued(name)) return snprintf(error, size, "unknown option '%s'", name), -1;
            if (equals) value = equals + 1;
            else if (k + 1 < argc) value = argv[++k];
            else return snprintf(error, size, "%s needs a value", name), -1;
            if (take_value(o, name, value, error, size) != 0) return -1;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return snprintf(error, size, "unknown option '%s'", arg), -1;
        } else if (!o->scenario) {
            o->scenario = arg;
        } else {
            return snprintf(error, size, "more than one scenario ('%s' and '%s')", o->scenario, arg), -1;
        }
    }
    if (!o->scenario == !o->restart)
        return snprintf(error, size, "give either a scenario file or --restart CHECKPOINT"), -1;
    if (o->restart && o->has_seed)
        return snprintf(error, size, "--seed cannot change a restarted run (its bodies are already placed)"), -1;
    return 0;
}

/* ---- the session: from a scenario or a checkpoint, then the options ------ */

static int session_from_scenario(session *s, const scenario *sc)
{
    memset(s, 0, sizeof *s);
    s->seed = sc->seed;
    s->until = sc->until;
    s->events = sc->events;
    s->every = sc->every;
    s->checkpoint_every = sc->checkpoint_every;
    return session_set_text(&s->scenario_path, sc->path) | session_set_text(&s->trajectory, sc->trajectory) |
           session_set_text(&s->events_log, sc->events_log) | session_set_text(&s->stats, sc->stats) |
           session_set_text(&s->checkpoint, sc->checkpoint);
}

static int apply_options(session *s, const options *o)
{
    if (!isnan(o->until)) s->until = o->until;
    if (o->events > 0) s->events = o->events;
    if (!isnan(o->every)) s->every = o->every;
    if (!isnan(o->checkpoint_every)) s->checkpoint_every = o->checkpoint_every;
    int failed = 0;
    if (o->trajectory) failed |= session_set_text(&s->trajectory, o->trajectory);
    if (o->events_log) failed |= session_set_text(&s->events_log, o->events_log);
    if (o->stats) failed |= session_set_text(&s->stats, o->stats);
    if (o->checkpoint) failed |= session_set_text(&s->checkpoint, o->checkpoint);
    return failed;
}

/* ---- the event log -------------------------------------------------------- */

typedef struct event_log {
    FILE *out;
} event_log;

static void log_event(void *user, const carom_event *e)
{
    static const char *walls[6] = {"x-", "x+", "y-", "y+", "z-", "z+"};
    event_log *log = user;
    if (!log->out) return;
    if (e->kind == CAROM_EVENT_PAIR) fprintf(log->out, "%.17g,pair,%d,%d\n", e->time, (int)e->i, (int)e->j);
    else fprintf(log->out, "%.17g,wall,%d,%s\n", e->time, (int)e->i, walls[e->j]);
}

/* ---- running ------------------------------------------------------------- */

typedef struct run_state {
    carom_world *world;
    session s;
    event_log log;
    outfile trajectory, events;
    double box[3];
    int periodic[3], dim;
    char message[MESSAGE_SIZE];
} run_state;

static int write_frame(run_state *r)
{
    if (xyz_write_frame(r->trajectory.stream, r->world, r->dim, r->box, r->periodic, r->s.species) != 0) {
        snprintf(r->message, sizeof r->message, "%s: cannot write (%s)", r->s.trajectory, strerror(errno));
        return -1;
    }
    r->s.frames_written++;
    r->s.next_frame += r->s.every;
    return 0;
}

static double next_stop(const run_state *r)
{
    double target = r->s.until;
    if (r->s.trajectory && r->s.next_frame < target) target = r->s.next_frame;
    if (r->s.checkpoint && r->s.checkpoint_every > 0 && r->s.next_checkpoint < target)
        target = r->s.next_checkpoint;
    return target;
}

/* Outputs due at the time the world has reached. */
static int write_due_outputs(run_state *r)
{
    double now = carom_world_time(r->world);
    if (r->s.trajectory && now >= r->s.next_frame && write_frame(r) != 0) return -1;
    if (r->s.checkpoint && r->s.checkpoint_every > 0 && now >= r->s.next_checkpoint) {
        r->s.next_checkpoint += r->s.checkpoint_every;
        if (checkpoint_write(r->s.checkpoint, &r->s, r->world, r->message, sizeof r->message) != 0) return -1;
    }
    return 0;
}

static int run_world(run_state *r, progress *bar)
{
    for (;;) {
        carom_stats st = carom_world_stats(r->world);
        if ((r->s.events >= 0 && st.events >= r->s.events) || st.time >= r->s.until) return 0;
        int64_t slice = EVENTS_PER_SLICE;
        if (r->s.events >= 0 && r->s.events - st.events < slice) slice = r->s.events - st.events;
        double target = next_stop(r);
        carom_status status = carom_world_run(r->world, target, slice);
        if (status != CAROM_OK) {
            snprintf(r->message, sizeof r->message, "%s: at t = %.17g: %s", r->s.scenario_path,
                     carom_world_time(r->world), carom_world_message(r->world));
            return -1;
        }
        if (carom_world_time(r->world) >= target && write_due_outputs(r) != 0) return -1;
        progress_update(bar, r->world, &r->s);
    }
}

static int open_outputs(run_state *r)
{
    if (r->s.trajectory && outfile_open(&r->trajectory, r->s.trajectory, r->message, sizeof r->message) != 0)
        return -1;
    if (r->s.events_log) {
        if (outfile_open(&r->events, r->s.events_log, r->message, sizeof r->message) != 0) return -1;
        r->log.out = r->events.stream;
        fprintf(r->log.out, "time,kind,i,j\n");
    }
    return 0;
}

static int finish_outputs(run_state *r, double wall, int64_t events_run)
{
    if (r->s.checkpoint && checkpoint_write(r->s.checkpoint, &r->s, r->world, r->message, sizeof r->message) != 0)
        return -1;
    if (r->s.stats) {
        outfile stats;
        if (outfile_open(&stats, r->s.stats, r->message, sizeof r->message) != 0) return -1;
        report_stats_json(stats.stream, r->world, &r->s, wall, events_run);
        if (outfile_commit(&stats, r->message, sizeof r->message) != 0) return -1;
    }
    if (outfile_commit(&r->trajectory, r->message, sizeof r->message) != 0) return -1;
    r->log.out = NULL;
    return outfile_commit(&r->events, r->message, sizeof r->message);
}

/* ---- building the world --------------------------------------------------- */

static int build_from_scenario(run_state *r, const options *o)
{
    scenario sc;
    if (scenario_load(o->scenario, &sc, r->message, sizeof r->message) != 0) return -1;
    if (o->has_seed) sc.seed = o->seed;
    char *species = NULL;
    int st = place_build_world_named(&sc, log_event, &r->log, r->box, &r->world, &species, r->message,
                                     sizeof r->message);
    if (st == 0 && (session_from_scenario(&r->s, &sc) != 0 || session_set_text(&r->s.species, species) != 0)) {
        snprintf(r->message, sizeof r->message, "out of memory");
        st = -1;
    }
    free(species);
    if (st == 0) {
        carom_stats initial = carom_world_stats(r->world);
        r->s.kinetic_energy_initial = initial.kinetic_energy;
        r->s.potential_energy_initial = initial.potential_energy;
        r->s.next_frame = 0.0;
        r->s.next_checkpoint = r->s.checkpoint_every;
    }
    scenario_free(&sc);
    return st;
}

static void geometry_from_world(run_state *r)
{
    carom_world_def def = carom_world_definition(r->world);
    double box[3] = {def.box.x, def.box.y, def.box.z};
    r->dim = def.dim;
    for (int a = 0; a < 3; a++) {
        r->box[a] = a < def.dim ? box[a] : 1.0;
        r->periodic[a] = a < def.dim && def.boundary[a] == CAROM_PERIODIC;
    }
}

static int build_from_checkpoint(run_state *r, const options *o)
{
    if (checkpoint_read(o->restart, &r->s, log_event, &r->log, &r->world, r->message, sizeof r->message) != 0)
        return -1;
    r->s.frames_written = 0; /* a restarted run writes its own trajectory and event log */
    return 0;
}

static int check_session(run_state *r)
{
    if (isinf(r->s.until) && r->s.events < 0)
        return snprintf(r->message, sizeof r->message,
                        "%s: nothing bounds the run (expected run.until, run.events, --until or --events)",
                        r->s.scenario_path),
               -1;
    if (r->s.until < carom_world_time(r->world))
        return snprintf(r->message, sizeof r->message, "--until %.17g is before the checkpoint's time %.17g",
                        r->s.until, carom_world_time(r->world)),
               -1;
    if (!(r->s.every > 0.0)) r->s.every = isfinite(r->s.until) ? r->s.until / 100.0 : 1.0;
    return 0;
}

static int run_command(int argc, char **argv)
{
    options o;
    char error[MESSAGE_SIZE];
    int parsed = parse_options(argc, argv, &o, error, sizeof error);
    if (parsed == 1) return fputs(run_help_text, stdout), 0;
    if (parsed != 0) return usage_error(error);
    run_state r;
    memset(&r, 0, sizeof r);
    int st = o.restart ? build_from_checkpoint(&r, &o) : build_from_scenario(&r, &o);
    if (st == 0) geometry_from_world(&r);
    if (st == 0 && apply_options(&r.s, &o) != 0) {
        snprintf(r.message, sizeof r.message, "out of memory");
        st = -1;
    }
    if (st == 0) st = check_session(&r);
    if (st == 0) st = open_outputs(&r);
    progress bar;
    double started = report_wall_seconds();
    int64_t events_before = r.world ? carom_world_stats(r.world).events : 0;
    if (st == 0) {
        progress_start(&bar, o.quiet, r.world);
        if (r.s.trajectory && r.s.frames_written == 0 && carom_world_time(r.world) >= r.s.next_frame)
            st = write_frame(&r);
        if (st == 0) st = run_world(&r, &bar);
        progress_finish(&bar);
    }
    if (st == 0)
        st = finish_outputs(&r, report_wall_seconds() - started, carom_world_stats(r.world).events - events_before);
    if (st != 0) {
        outfile_discard(&r.trajectory);
        outfile_discard(&r.events);
        fail(r.message);
    }
    carom_world_destroy(r.world);
    session_free(&r.s);
    return st == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(help_text, stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) return fputs(help_text, stdout), 0;
    if (!strcmp(argv[1], "--version")) return printf("carom %s\n", CAROM_VERSION_STRING), 0;
    if (!strcmp(argv[1], "run")) return run_command(argc - 2, argv + 2);
    if (!strcmp(argv[1], "compare")) return compare_command(argc - 2, argv + 2);
    char message[MESSAGE_SIZE];
    snprintf(message, sizeof message, "unknown command '%s' (expected run, compare, --help or --version)", argv[1]);
    return usage_error(message);
}
