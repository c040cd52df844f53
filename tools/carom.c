/* carom.c — the carom command: a thin client of libcarom, and the only code
 * that prints or exits.
 *
 *   carom run SCENARIO.yaml [options]     build the world a scenario describes and run it
 *   carom run --restart CHECKPOINT [options]
 *   carom compare SCENARIO.yaml --dt DT[,DT...]   the frame-based steppers against the exact engine (compare.c)
 *   carom airhockey [options]             the air-hockey game of examples/airhockey (airhockey_cli.c)
 *   carom steer [SCENARIO.yaml] [options] steered bodies kept off the walls by the safety filter (steer_cli.c)
 *
 * It reads the scenario (scenario.c), makes the bodies (place.c) or restores
 * a checkpoint (checkpoint.c), applies the options, and hands the run to
 * runner.c (schedules, outputs, how a run ends). Errors are one line,
 * "carom: FILE:LINE:COL: what is wrong (what was expected)", with a non-zero
 * exit status. SIGINT and SIGTERM set a flag that the run loop reads between
 * slices; a second signal a second or more later removes the temporary
 * files (outfile.h) and ends the process in the handler.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "airhockey_cli.h"
#include "carom.h"
#include "checkpoint.h"
#include "compression.h"
#include "compare.h"
#include "option.h"
#include "outfile.h"
#include "place.h"
#include "plot.h"
#include "render_cli.h"
#include "report.h"
#include "runner.h"
#include "scenario.h"
#include "session.h"
#include "steer_cli.h"
#include "xyz.h"

enum { EXIT_USAGE = 2, MESSAGE_SIZE = RUNNER_MESSAGE_SIZE };

static const char *help_text =
    "carom " CAROM_VERSION_STRING " - exact event-driven simulation of hard disks and spheres\n"
    "\n"
    "usage: carom run SCENARIO.yaml [options]\n"
    "       carom run --restart CHECKPOINT [options]\n"
    "       carom compare SCENARIO.yaml --dt DT[,DT...] [options]   frame stepping against the exact engine\n"
    "       carom compare --scaling                               cost against N and density\n"
    "       carom airhockey [--players 2|4] [--seed S] [--minutes M]   an exact game of air hockey\n"
    "       carom steer [SCENARIO.yaml] [--player P] [--law L] [--windows N]   the safety filter in a container\n"
    "       carom render TRAJECTORY.xyz -o PICTURE.png|.svg [--frame K|--time T] [--color C]   a picture\n"
    "       carom --help | --version | run --help | compare --help | airhockey --help | steer --help\n"
    "       carom plot SERIES.csv|TRAJECTORY.xyz -o PLOT.png|.svg [--what W]   statistics, speeds\n"
    "       carom render --help | plot --help\n"
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
    "  --every DT             one frame every DT of simulated time (default until/100)\n"
    "  --events-log FILE      write every collision as CSV: time,kind,i,j\n"
    "  --stats FILE           write statistics as JSON (- for standard output)\n"
    "  --checkpoint FILE      write a checkpoint to FILE (at the end, and every DT with:)\n"
    "  --checkpoint-every DT  a checkpoint every DT of simulated time\n"
    "  --restart FILE         continue the run saved in checkpoint FILE (its trajectory\n"
    "                         and event log are appended to)\n"
    "  --series FILE          the statistics over time as CSV: a row now, every --every\n"
    "                         and at the end (energies, temperature, interval pressure\n"
    "                         and collision rate, collision counts), for carom plot\n"
    "  --movie FILE           a movie (.mp4 or .gif, by ffmpeg) of the run, each frame drawn\n"
    "                         at its exact instant: t = start + k * speed / fps\n"
    "  --fps N                the movie's frames per second (default 30)\n"
    "  --speed S              simulated time per second of movie (default: the run in 10 s)\n"
    "  --movie-size WxH       the movie's pixels (default 800x600; even numbers for MP4)\n"
    "  --quiet                no progress bar, and no list of the files written\n"
    "  --help                 this text\n"
    "\n"
    "An empty FILE ('') turns an output off. Output paths are checked before the\n"
    "run; files are written under temporary names and renamed when complete;\n"
    "devices and FIFOs are written in place, symbolic links followed.\n"
    "Ctrl-C (SIGINT) or SIGTERM stops the run cleanly, keeping what was written.\n"
    "Exit status: 0 on success, 1 on bad input or a failed run, 2 on bad usage,\n"
    "130 or 143 when stopped by SIGINT or SIGTERM.\n";

/* What the command line says. Absent values: NULL, NAN or -1. */
typedef struct options {
    const char *scenario, *restart;
    double until, every, checkpoint_every;
    int64_t events;
    int has_seed, quiet;
    uint64_t seed;
    const char *trajectory, *events_log, *stats, *checkpoint;
    const char *movie;   /* --movie FILE.mp4|.gif */
    const char *series;  /* --series FILE.csv */
    double fps, speed;   /* its frames per second, simulated time per second of movie */
    int movie_width, movie_height; /* --movie-size WxH */
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
    if (!strcmp(name, "--movie")) return o->movie = value, 0;
    if (!strcmp(name, "--movie-size")) return option_size(name, value, &o->movie_width, &o->movie_height, error, size);
    if (!strcmp(name, "--series")) return o->series = value, 0;
    if (!strcmp(name, "--speed")) return option_positive_number(name, value, &o->speed, error, size);
    if (!strcmp(name, "--fps")) {
        if (parse_count(name, value, &count, 1, error, size) != 0) return -1;
        if (count > 240) return snprintf(error, size, "--fps: '%s' is not a usable value (expected 1 to 240)", value), -1;
        return o->fps = (double)count, 0;
    }
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
    static const char *const valued[] = {"--until", "--every", "--checkpoint-every", "--events", "--seed",
                                         "--trajectory", "--events-log", "--stats", "--checkpoint", "--restart",
                                         "--movie", "--fps", "--speed", "--series", "--movie-size"};
    return option_is_one_of(name, valued, sizeof valued / sizeof valued[0]);
}

/* Returns 0, 1 for --help, or -1 with a message. */
static int parse_options(int argc, char **argv, options *o, char *error, size_t size)
{
    *o = (options){NULL, NULL, NAN, NAN, NAN, -1, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 30.0, NAN, 0, 0};
    for (int k = 0; k < argc; k++) {
        const char *arg = argv[k];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) return 1;
        if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            o->quiet = 1;
            continue;
        }
        if (arg[0] == '-' && arg[1] == '-') {
            char name[64];
            const char *value;
            if (option_take_valued(argc, argv, &k, is_valued, name, sizeof name, &value, error, size) != 0 ||
                take_value(o, name, value, error, size) != 0)
                return -1;
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

/* An empty file name turns an output off. */
static int set_output(char **field, const char *value)
{
    return session_set_text(field, value && value[0] ? value : NULL);
}

static int session_from_scenario(session *s, const scenario *sc)
{
    memset(s, 0, sizeof *s);
    s->seed = sc->seed;
    s->until = sc->until;
    s->events = sc->events;
    s->every = sc->every;
    s->checkpoint_every = sc->checkpoint_every;
    s->equilibrate = sc->equilibrate;
    s->window = sc->window;
    s->thermostat = sc->thermostat;
    return session_set_text(&s->scenario_path, sc->path) | session_set_text(&s->controls, sc->controls_resolved) | set_output(&s->trajectory, sc->trajectory) |
           set_output(&s->events_log, sc->events_log) | set_output(&s->stats, sc->stats) |
           set_output(&s->checkpoint, sc->checkpoint);
}

static int apply_options(session *s, const options *o)
{
    if (!isnan(o->until)) s->until = o->until;
    if (o->events > 0) s->events = o->events;
    if (!isnan(o->every)) s->every = o->every;
    if (!isnan(o->checkpoint_every)) s->checkpoint_every = o->checkpoint_every;
    int failed = 0;
    if (o->trajectory) failed |= set_output(&s->trajectory, o->trajectory);
    if (o->events_log) failed |= set_output(&s->events_log, o->events_log);
    if (o->stats) failed |= set_output(&s->stats, o->stats);
    if (o->checkpoint) failed |= set_output(&s->checkpoint, o->checkpoint);
    return failed;
}

/* Options that would change nothing are mistakes: say so. */
static int check_ignored_options(const session *s, const options *o, char *error, size_t size)
{
    if (!isnan(o->every) && !s->trajectory && !(o->series && o->series[0]))
        return snprintf(error, size, "--every sets the interval of trajectory frames and series rows, but "
                        "neither is written (add --trajectory FILE or --series FILE)"), -1;
    if (!isnan(o->checkpoint_every) && !s->checkpoint)
        return snprintf(error, size, "--checkpoint-every needs a checkpoint file (add --checkpoint FILE)"), -1;
    return 0;
}

/* ---- building the world --------------------------------------------------- */

/* The thermostat's settings against the bodies placed, the message at its
 * place in the scenario. */
static int thermostat_settings_fit(const scenario *sc, const carom_world *world, char *message, size_t size)
{
    char why[MESSAGE_SIZE / 2];
    if (thermostat_check(&sc->thermostat, world, why, sizeof why) == 0) return 0;
    snprintf(message, size, "%s:%d:%d: %s", sc->path, sc->thermostat_mark.line, sc->thermostat_mark.col, why);
    return -1;
}

/* The scenario's output settings that would change nothing, as
 * check_ignored_options does for the command's: output.every with no
 * trajectory or series written, checkpoint_every with no checkpoint. */
static int check_ignored_settings(const scenario *sc, const options *o, char *error, size_t size)
{
    int writes_frames = sc->trajectory || (o->trajectory && o->trajectory[0]) || (o->series && o->series[0]);
    if (sc->every_mark.line > 0 && !writes_frames)
        return snprintf(error, size, "%s:%d:%d: output.every sets the interval of trajectory frames and series "
                        "rows, but neither is written (expected output.trajectory, --trajectory FILE or --series "
                        "FILE)", sc->path, sc->every_mark.line, sc->every_mark.col), -1;
    if (sc->checkpoint_every_mark.line > 0 && !sc->checkpoint && !(o->checkpoint && o->checkpoint[0]))
        return snprintf(error, size, "%s:%d:%d: output.checkpoint_every needs a checkpoint file (expected "
                        "output.checkpoint or --checkpoint FILE)", sc->path, sc->checkpoint_every_mark.line,
                        sc->checkpoint_every_mark.col), -1;
    return 0;
}

static int build_from_scenario(runner *r, const options *o)
{
    scenario sc;
    if (scenario_load(o->scenario, &sc, r->message, sizeof r->message) != 0) return -1;
    if (check_ignored_settings(&sc, o, r->message, sizeof r->message) != 0) return scenario_free(&sc), -1;
    if (o->has_seed) sc.seed = o->seed;
    char *species = NULL;
    int st = place_build_world_named(&sc, runner_log_event, &r->log, r->box, &r->world, &species, r->message,
                                     sizeof r->message);
    if (st == 0 && thermostat_settings_fit(&sc, r->world, r->message, sizeof r->message) != 0) st = -1;
    for (int g = 0; st == 0 && g < sc.group_count; g++)
        if (runner_add_input(r, sc.groups[g].file_resolved) != 0)
            st = -1, snprintf(r->message, sizeof r->message, "out of memory");
    carom_compress_result compressed;
    if (st == 0 && compression_apply(&sc, &r->world, &compressed, r->message, sizeof r->message) != 0) st = -1;
    if (st == 0 && sc.compress.active && !o->quiet)
        fprintf(stderr, "carom: compressed to packing fraction %.6f%s (PV/NkT %.6g) in %lld events, t = %.6g\n",
                compressed.packing_fraction, compressed.jammed ? ", jammed" : compressed.capped ? ", event cap" :
                compressed.box_limited ? ", where the largest body reached the box's limit (a third of a periodic "
                                         "side, or all but 10^-6 of the width between walls)" : "",
                compressed.pressure, (long long)compressed.events, compressed.time);
    if (st == 0 && (session_from_scenario(&r->s, &sc) != 0 || session_set_text(&r->s.species, species) != 0)) {
        snprintf(r->message, sizeof r->message, "out of memory");
        st = -1;
    }
    free(species);
    if (st == 0 && sc.analysis.active) { /* opened once --until and --events are applied (open_analysis) */
        r->wanted_analysis = sc.analysis;
        sc.analysis.output = NULL;
    }
    if (st == 0) {
        carom_stats initial = carom_world_stats(r->world);
        r->s.kinetic_energy_initial = initial.kinetic_energy;
        r->s.potential_energy_initial = initial.potential_energy;
        r->s.rotational_energy_initial = initial.rotational_energy;
    }
    scenario_free(&sc);
    return st;
}

static void geometry_from_world(runner *r)
{
    carom_world_def def = carom_world_definition(r->world);
    double box[3] = {def.box.x, def.box.y, def.box.z};
    r->dim = def.dim;
    for (int a = 0; a < 3; a++) {
        r->box[a] = a < def.dim ? box[a] : 1.0;
        r->periodic[a] = a < def.dim && def.boundary[a] == CAROM_PERIODIC;
    }
}

/* A restart carries on with the checkpoint's settings, and remembers its
 * outputs and schedule to continue them. */
static int build_from_checkpoint(runner *r, const options *o)
{
    if (checkpoint_read(o->restart, &r->s, runner_log_event, &r->log, &r->world, r->message,
                        sizeof r->message) != 0)
        return -1;
    char why[MESSAGE_SIZE / 2];
    if (thermostat_check(&r->s.thermostat, r->world, why, sizeof why) != 0)
        return snprintf(r->message, sizeof r->message, "%s: %s", o->restart, why), -1;
    runner_resumed *was = &r->resumed;
    was->active = 1;
    was->every = r->s.every, was->checkpoint_every = r->s.checkpoint_every;
    was->next_checkpoint = r->s.next_checkpoint, was->frames_written = r->s.frames_written;
    was->events_logged = r->s.events_logged;
    if (session_set_text(&was->trajectory, r->s.trajectory) || session_set_text(&was->events_log, r->s.events_log))
        return snprintf(r->message, sizeof r->message, "out of memory"), -1;
    /* the checkpoint carries run.equilibrate: a window already started goes on */
    r->equilibrated = !(r->s.equilibrate > carom_world_time(r->world));
    return 0;
}

static int check_session(runner *r)
{
    if (isinf(r->s.until) && r->s.events < 0)
        return snprintf(r->message, sizeof r->message,
                        "%s: nothing bounds the run (expected run.until, run.events, --until or --events)",
                        r->s.scenario_path),
               -1;
    if (r->s.until < carom_world_time(r->world))
        return snprintf(r->message, sizeof r->message, "the run's end, t = %.17g (the checkpoint's run.until, or "
                        "--until), is before the checkpoint's time %.17g (expected a later --until)",
                        r->s.until, carom_world_time(r->world)),
               -1;
    if (!(r->s.every > 0.0)) r->s.every = isfinite(r->s.until) ? r->s.until / 100.0 : 1.0;
    return 0;
}

/* ---- signals -------------------------------------------------------------- */

/* The one value a signal handler may set: which signal asked the run to stop.
 * The run loop reads it between slices; the library never sees it. When it
 * was set, for the handler alone. */
static volatile sig_atomic_t stop_signal = 0;
static struct timespec first_stop;

static double seconds_since(const struct timespec *then)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now); /* async-signal-safe (POSIX 2008) */
    return (double)(now.tv_sec - then->tv_sec) + 1e-9 * (double)(now.tv_nsec - then->tv_nsec);
}

/* The first signal asks the run to stop. Another within a second is the same
 * request (timeout(1) signals carom and then its process group); one later
 * ends the process at once, its temporary files removed. */
static void on_stop_signal(int signal_number)
{
    if (!stop_signal) {
        clock_gettime(CLOCK_MONOTONIC, &first_stop);
        stop_signal = signal_number;
        return;
    }
    if (seconds_since(&first_stop) < 1.0) return;
    outfile_remove_temporaries();
    _exit(128 + signal_number);
}

/* Every command but a run that has started (below): a signal ends it at
 * once, its temporary files removed (outfile.h), as the default action
 * would end it without removing them. */
static void on_signal_before_run(int signal_number)
{
    outfile_remove_temporaries();
    _exit(128 + signal_number);
}

static void catch_signals_to_clean_up(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal_before_run;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGHUP, &action, NULL);
}

/* SIGINT and SIGTERM stop the run cleanly (on_stop_signal). A reader that
 * goes away (SIGPIPE) is a failed write like any other, reported and cleaned
 * up, not a silent death. */
static void catch_stop_signals(void)
{
    signal(SIGPIPE, SIG_IGN);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
}

/* ---- the run command ------------------------------------------------------ */

/* --series: a row now and every output interval (--every), and at the end. */
static int open_series(runner *r, const options *o)
{
    if (!o->series || !o->series[0]) return 0; /* apart from every other output: runner_prepare */
    r->series = calloc(1, sizeof *r->series);
    if (!r->series) return snprintf(r->message, sizeof r->message, "out of memory"), -1;
    if (outfile_check(o->series, r->message, sizeof r->message) != 0 ||
        series_open(r->series, o->series, r->s.every, r->world, r->message, sizeof r->message) != 0) {
        free(r->series);
        r->series = NULL;
        return -1;
    }
    return 0;
}

/* --movie: frames from now to the run's end at fps, speed simulated time a
 * second of movie (default: the run in 10 seconds). */
static int open_movie(runner *r, const options *o, char *usage, size_t usage_size)
{
    if (!o->movie || !o->movie[0]) {
        if (!isnan(o->speed)) return snprintf(usage, usage_size, "--speed is for --movie"), EXIT_USAGE;
        if (o->movie_width != 0)
            return snprintf(usage, usage_size, "--movie-size is for --movie"), EXIT_USAGE;
        return 0;
    }
    double now = carom_world_time(r->world), speed = o->speed;
    if (isnan(speed)) {
        if (!isfinite(r->s.until))
            return snprintf(usage, usage_size, "--movie of a run without run.until needs --speed S"), EXIT_USAGE;
        speed = (r->s.until - now) / 10.0;
    }
    r->movie = calloc(1, sizeof *r->movie);
    if (!r->movie) return snprintf(r->message, sizeof r->message, "out of memory"), -1;
    if (movie_open(r->movie, o->movie, (int)o->fps, speed, now, o->movie_width ? o->movie_width : 800,
                   o->movie_width ? o->movie_height : 600, r->message, sizeof r->message) != 0) {
        free(r->movie);
        r->movie = NULL;
        return -1;
    }
    return 0;
}

/* The scenario's `analysis:`, with the run's end known (its default sample interval). */
static int open_analysis(runner *r)
{
    if (!r->wanted_analysis.active) return 0;
    r->analysis = calloc(1, sizeof *r->analysis);
    if (!r->analysis) return snprintf(r->message, sizeof r->message, "out of memory"), -1;
    if (analysis_open(r->analysis, &r->wanted_analysis, r->world, r->s.species, r->s.until, r->s.equilibrate,
                      r->s.scenario_path, r->message, sizeof r->message) != 0) {
        analysis_free(r->analysis);
        free(r->analysis);
        r->analysis = NULL;
        return -1;
    }
    r->log.analysis = r->analysis;
    return 0;
}

static int prepare_run(runner *r, const options *o, char *usage, size_t usage_size)
{
    if ((o->restart ? build_from_checkpoint(r, o) : build_from_scenario(r, o)) != 0) return -1;
    geometry_from_world(r);
    if (apply_options(&r->s, o) != 0) return snprintf(r->message, sizeof r->message, "out of memory"), -1;
    if (check_ignored_options(&r->s, o, usage, usage_size) != 0) return EXIT_USAGE;
    if (check_session(r) != 0) return -1;
    if (!o->restart && thermostat_start(&r->s.thermostat, r->world, r->s.seed, r->message, sizeof r->message) != 0)
        return -1;
    if (open_analysis(r) != 0) return -1;
    r->series_path = o->series, r->movie_path = o->movie;
    if ((o->scenario && runner_add_input(r, o->scenario) != 0) || runner_add_input(r, r->s.controls) != 0)
        return snprintf(r->message, sizeof r->message, "out of memory"), -1;
    if (runner_prepare(r) != 0) return -1;
    if (open_series(r, o) != 0) return -1;
    return open_movie(r, o, usage, usage_size);
}

static int run_command(int argc, char **argv)
{
    options o;
    char error[MESSAGE_SIZE] = "";
    int parsed = parse_options(argc, argv, &o, error, sizeof error);
    if (parsed == 1) return fputs(run_help_text, stdout), 0;
    if (parsed != 0) return usage_error(error);
    runner *r = calloc(1, sizeof *r);
    if (!r) return fail("out of memory");
    r->quiet = o.quiet;
    r->stop = &stop_signal;
    int status = prepare_run(r, &o, error, sizeof error);
    if (status == EXIT_USAGE) usage_error(error);
    else if (status != 0) fail(r->message), status = 1;
    else {
        catch_stop_signals();
        run_outcome outcome = runner_run(r);
        if (outcome != RUN_COMPLETED) fail(r->message);
        status = outcome == RUN_COMPLETED ? 0 : outcome == RUN_FAILED ? 1 : 128 + (int)stop_signal;
    }
    runner_free(r);
    free(r);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(help_text, stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) return fputs(help_text, stdout), 0;
    if (!strcmp(argv[1], "--version")) return printf("carom %s\n", CAROM_VERSION_STRING), 0;
    catch_signals_to_clean_up();
    if (!strcmp(argv[1], "run")) return run_command(argc - 2, argv + 2);
    if (!strcmp(argv[1], "compare")) return compare_command(argc - 2, argv + 2);
    if (!strcmp(argv[1], "airhockey")) return airhockey_command(argc - 2, argv + 2);
    if (!strcmp(argv[1], "steer")) return steer_command(argc - 2, argv + 2);
    if (!strcmp(argv[1], "render")) return render_command(argc - 2, argv + 2);
    if (!strcmp(argv[1], "plot")) return plot_command(argc - 2, argv + 2);
    char message[MESSAGE_SIZE];
    snprintf(message, sizeof message, "unknown command '%s' (expected run, compare, airhockey, steer, render, plot, --help or --version)", argv[1]);
    return usage_error(message);
}
