/* runner.c — one `carom run` from a prepared world and session (runner.h).
 *
 * The world runs in slices up to the next stop: a frame, a checkpoint, the
 * start of the measuring window, the end. Running in pieces gives the same
 * bits as one run, so outputs never perturb the physics. Stops are computed
 * as origin + k * interval, never by adding the interval again and again
 * (ten additions of 0.1 give 0.9999999999999999). Between slices the loop
 * reads the stop flag of the command's signal handler, so an interrupt ends
 * the run as cleanly as reaching the end does. At every checkpoint the
 * trajectory and event log are made durable first, so the files on disk
 * always reach at least as far as the newest checkpoint.
 *
 * Windows (run.window, issue 12): window starts origin + k * window are
 * stops too. At each start the controls file's rows of that window are
 * applied (controls.h), then the window runs through carom_world_advance,
 * the window API, in pieces up to its other stops (frames, checkpoints);
 * where a piece's length added to the clock would not land on the stop's
 * exact bits (fl(a - b) + b != a happens), or an event cap must be
 * respected, that piece runs with carom_world_run to the same instant,
 * which carom.h makes the same thing. Windows without controls thus give
 * the bits of a plain run. */
#define _POSIX_C_SOURCE 200809L
#include "runner.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_report.h"
#include "checkpoint.h"
#include "report.h"
#include "resume.h"
#include "xyz.h"

enum { EVENTS_PER_SLICE = 100000 };

int runner_log_event(void *user, const carom_event *e)
{
    static const char *walls[6] = {"x-", "x+", "y-", "y+", "z-", "z+"};
    event_log *log = user;
    if (log->analysis) analysis_event(log->analysis, e);
    if (!log->out) return 0;
    int written;
    if (e->kind == CAROM_EVENT_PAIR)
        written = fprintf(log->out, "%.17g,pair,%d,%d\n", e->time, (int)e->i, (int)e->j);
    else if (e->kind == CAROM_EVENT_SENSOR)
        written = fprintf(log->out, "%.17g,sensor,%d,%d%c\n", e->time, (int)e->i, (int)e->j,
                          e->direction > 0 ? '+' : '-');
    else
        written = fprintf(log->out, "%.17g,%s,%d,%s\n", e->time, e->kind == CAROM_EVENT_REST ? "rest" : "wall",
                          (int)e->i, walls[e->j % 6]);
    if (written < 0) {
        log->error = errno ? errno : EIO;
        log->out = NULL; /* noticed by the run loop after this slice */
    } else {
        log->lines++;
    }
    return 0;
}

/* Keeps the first failure's message and adds later ones after it. */
static int failure(runner *r, const char *text)
{
    size_t used = strlen(r->message);
    if (used == 0) snprintf(r->message, sizeof r->message, "%s", text);
    else if (strcmp(r->message, text) != 0) snprintf(r->message + used, sizeof r->message - used, "; %s", text);
    return -1;
}

static int failure_from(runner *r, int status, const char *why)
{
    if (status != 0) failure(r, why);
    return status;
}

/* ---- schedules -------------------------------------------------------------- */

static double frame_time(const session *s, int64_t k) { return s->frame_origin + (double)k * s->every; }

static double checkpoint_time(const session *s, int64_t k)
{
    return s->checkpoint_origin + (double)k * s->checkpoint_every;
}

static int wants_checkpoints(const session *s) { return s->checkpoint && s->checkpoint_every > 0; }

static double window_time(const session *s, int64_t k) { return s->window_origin + (double)k * s->window; }

/* The window whose start is the last one at or before now. */
static int64_t window_at(const session *s, double now)
{
    double k0 = floor((now - s->window_origin) / s->window);
    int64_t k = k0 > 0 ? (int64_t)k0 : 0;
    while (k > 0 && window_time(s, k) > now) k--;
    while (window_time(s, k + 1) <= now) k++;
    return k;
}

/* Windows: a fresh run's start at its clock, a restart's where it was. */
static int set_windows(runner *r)
{
    session *s = &r->s;
    double now = carom_world_time(r->world);
    char why[RUNNER_MESSAGE_SIZE];
    if (!(s->window > 0)) return 0;
    if (isinf(s->until)) {
        snprintf(why, sizeof why, "%s: run.window needs an end (expected run.until or --until with it)",
                 s->scenario_path);
        return failure(r, why);
    }
    if (!(now + s->window > now)) {
        snprintf(why, sizeof why, "the window %.17g cannot advance the clock from t = %.17g (expected a "
                 "larger run.window)", s->window, now);
        return failure(r, why);
    }
    if (!r->resumed.active) s->window_origin = now;
    r->window_index = window_at(s, now);
    return 0;
}

/* The controls file, checked against the world (and, on a restart, against
 * the file the run started with). */
static int load_controls(runner *r)
{
    session *s = &r->s;
    if (!s->controls) return 0;
    char why[RUNNER_MESSAGE_SIZE];
    carom_world_def def = carom_world_definition(r->world);
    if (controls_load(s->controls, def.dim, carom_world_body_count(r->world), &r->controls, why,
                      sizeof why) != 0)
        return failure(r, why);
    if (!r->resumed.active) {
        s->controls_checksum = r->controls.checksum, s->controls_next = 0;
        return 0;
    }
    if (r->controls.checksum != s->controls_checksum || s->controls_next > r->controls.count) {
        snprintf(why, sizeof why, "%s: changed since the checkpoint (CRC-32C 0x%08x, the checkpoint's "
                 "0x%08x; expected the controls file the run started with)", s->controls,
                 (unsigned)r->controls.checksum, (unsigned)s->controls_checksum);
        return failure(r, why);
    }
    r->controls.next = s->controls_next;
    return 0;
}

/* Applies the controls of the window running now. */
static int apply_controls(runner *r)
{
    session *s = &r->s;
    if (!s->controls) return 0;
    char why[RUNNER_MESSAGE_SIZE];
    if (controls_apply(&r->controls, r->world, r->window_index, s->window_origin, s->window, why,
                       sizeof why) != 0)
        return failure(r, why);
    s->controls_next = r->controls.next;
    return 0;
}

/* The first frame index whose time is after `last` and not before `now`. */
static int64_t first_frame_after(const session *s, double last, double now)
{
    double from = last > now ? last : now, k0 = ceil((from - s->frame_origin) / s->every);
    int64_t k = k0 > 0 ? (int64_t)k0 : 0;
    while (k > 0 && frame_time(s, k - 1) >= now && frame_time(s, k - 1) > last) k--;
    while (frame_time(s, k) < now || frame_time(s, k) <= last) k++;
    return k;
}

static int set_schedules(runner *r)
{
    session *s = &r->s;
    double now = carom_world_time(r->world);
    char why[RUNNER_MESSAGE_SIZE];
    if (s->trajectory && !(now + s->every > now)) {
        snprintf(why, sizeof why, "the frame interval %.17g cannot advance the clock from t = %.17g "
                 "(expected a larger output.every or --every)", s->every, now);
        return failure(r, why);
    }
    if (s->trajectory && isfinite(s->until) && (s->until - now) / s->every >= (double)INT_MAX) {
        snprintf(why, sizeof why, "the trajectory would take more than %d frames, one every %.17g from t = %.17g "
                 "to %.17g (expected a larger output.every or --every, or an earlier end)", INT_MAX - 1, s->every,
                 now, s->until);
        return failure(r, why);
    }
    if (wants_checkpoints(s) && !(now + s->checkpoint_every > now)) {
        snprintf(why, sizeof why, "the checkpoint interval %.17g cannot advance the clock from t = %.17g",
                 s->checkpoint_every, now);
        return failure(r, why);
    }
    if (s->equilibrate > 0 && !(s->equilibrate < s->until)) {
        snprintf(why, sizeof why, "%s: run.equilibrate %.17g is not before the end of the run (%.17g)",
                 s->scenario_path, s->equilibrate, s->until);
        return failure(r, why);
    }
    s->frame_origin = now, s->frame_index = 0, s->frames_written = 0, s->last_frame_time = -INFINITY;
    s->checkpoint_origin = now, s->checkpoint_index = 1;
    const runner_resumed *was = &r->resumed;
    if (was->active && s->checkpoint_every == was->checkpoint_every && was->next_checkpoint > now)
        s->checkpoint_origin = was->next_checkpoint, s->checkpoint_index = 0;
    s->next_frame = frame_time(s, s->frame_index);
    s->next_checkpoint = wants_checkpoints(s) ? checkpoint_time(s, s->checkpoint_index) : 0.0;
    return 0;
}

/* ---- opening: checks first, then the streams (continued on a restart) ------ */

enum { MOST_OUTPUTS = 6 + ANALYSIS_FILES };

/* Every output can be written, no two name one file, and none names a file
 * the run reads (a restart's own checkpoint and trajectory excepted: it
 * continues them, and is not an input here). */
static int check_paths(runner *r)
{
    const char *path[MOST_OUTPUTS] = {r->s.trajectory, r->s.events_log, r->s.stats, r->s.checkpoint,
                                      r->series_path,  r->movie_path};
    const char *name[MOST_OUTPUTS] = {"the trajectory", "the event log", "the statistics", "the checkpoint",
                                      "the series",     "the movie"};
    int n = 6;
    for (int f = 0; r->analysis && f < ANALYSIS_FILES; f++)
        path[n] = r->analysis->paths[f], name[n++] = "an analysis file";
    char why[RUNNER_MESSAGE_SIZE];
    if (outfile_check_apart(path, name, n, (const char *const *)r->inputs, r->input_count, why, sizeof why) != 0)
        return failure(r, why);
    return 0;
}

int runner_add_input(runner *r, const char *path)
{
    if (!path || !path[0]) return 0;
    char **grown = realloc(r->inputs, ((size_t)r->input_count + 1) * sizeof *grown);
    if (!grown) return -1;
    r->inputs = grown;
    size_t length = strlen(path) + 1;
    if (!(r->inputs[r->input_count] = malloc(length))) return -1;
    memcpy(r->inputs[r->input_count++], path, length);
    return 0;
}

static int continues(const char *mine, const char *theirs)
{
    return mine && theirs && strcmp(mine, theirs) == 0 && strcmp(mine, "-") != 0;
}

static int missing_hint(runner *r, const char *option)
{
    char why[RUNNER_MESSAGE_SIZE];
    snprintf(why, sizeof why, "%.600s (a restart appends to it; give %s NEW for a new file, or %s '' for none)",
             r->message, option, option);
    r->message[0] = '\0';
    return failure(r, why);
}

static int continue_trajectory(runner *r)
{
    session *s = &r->s;
    double first, last, now = carom_world_time(r->world);
    if (resume_trajectory(r->trajectory.target, r->resumed.frames_written, carom_world_body_count(r->world),
                          r->trajectory.stream, &first, &last, r->message, sizeof r->message) != 0)
        return missing_hint(r, "--trajectory");
    if (outfile_status(&r->trajectory, r->message, sizeof r->message) != 0) return -1;
    if (last > now) {
        char why[RUNNER_MESSAGE_SIZE];
        snprintf(why, sizeof why, "%s: frame %d is at t = %.17g, after the checkpoint's t = %.17g (expected "
                 "the trajectory this checkpoint continues)", s->trajectory, r->resumed.frames_written, last, now);
        return failure(r, why);
    }
    if (!(first >= 0.0 && first <= last && (now - first) / s->every < (double)INT_MAX)) {
        char why[RUNNER_MESSAGE_SIZE]; /* a clock starts at 0; frames follow from the first, one every `every` */
        snprintf(why, sizeof why, "%s: the first frame is at t = %.17g, which no run that reached t = %.17g "
                 "with frames every %.17g started from (expected the trajectory this checkpoint continues)",
                 s->trajectory, first, now, s->every);
        return failure(r, why);
    }
    s->frames_written = r->resumed.frames_written;
    s->frame_origin = first, s->last_frame_time = last;
    s->frame_index = first_frame_after(s, last, now);
    s->next_frame = frame_time(s, s->frame_index);
    return 0;
}

static int open_trajectory(runner *r)
{
    session *s = &r->s;
    if (!s->trajectory) return 0;
    if (outfile_open(&r->trajectory, s->trajectory, r->message, sizeof r->message) != 0) return -1;
    int continued = r->resumed.active && continues(s->trajectory, r->resumed.trajectory) &&
                    r->resumed.frames_written > 0;
    /* a device or FIFO is written on: nothing to copy */
    return continued && r->trajectory.temporary ? continue_trajectory(r) : 0;
}

static int open_event_log(runner *r)
{
    session *s = &r->s;
    if (!s->events_log) return 0;
    if (outfile_open(&r->events, s->events_log, r->message, sizeof r->message) != 0) return -1;
    FILE *out = r->events.stream;
    int continued = r->resumed.active && continues(s->events_log, r->resumed.events_log);
    if (continued && r->events.temporary) {
        double last;
        if (resume_event_log(r->events.target, carom_world_time(r->world), r->resumed.events_logged, out, &last,
                             &r->log.copied, r->message, sizeof r->message) != 0)
            return missing_hint(r, "--events-log");
    } else if (!continued) {
        fprintf(out, "time,kind,i,j\n");
    }
    r->log.out = out;
    return outfile_status(&r->events, r->message, sizeof r->message);
}

int runner_prepare(runner *r)
{
    r->message[0] = '\0';
    if (check_paths(r) != 0 || set_schedules(r) != 0 || set_windows(r) != 0 || load_controls(r) != 0)
        return -1;
    if (open_trajectory(r) != 0 || open_event_log(r) != 0) {
        r->log.out = NULL;
        outfile_discard(&r->trajectory);
        outfile_discard(&r->events);
        return -1;
    }
    r->wall_started = report_wall_seconds();
    r->events_before = carom_world_stats(r->world).events;
    return 0;
}

/* ---- outputs during the run ------------------------------------------------- */

static int write_frame(runner *r)
{
    if (r->s.frames_written >= INT_MAX - 1) {
        char why[RUNNER_MESSAGE_SIZE];
        snprintf(why, sizeof why, "%s: holds %d frames, the most a trajectory can (expected a larger "
                 "output.every or --every)", r->s.trajectory, r->s.frames_written);
        return failure(r, why);
    }
    if (xyz_write_frame(r->trajectory.stream, r->world, r->dim, r->box, r->periodic, r->s.species) != 0 && !r->trajectory.error)
        r->trajectory.error = errno ? errno : EIO;
    char why[RUNNER_MESSAGE_SIZE];
    if (outfile_status(&r->trajectory, why, sizeof why) != 0) return failure(r, why);
    r->s.frames_written++;
    r->s.last_frame_time = carom_world_time(r->world);
    return 0;
}

/* Flushes what the streams hold to disk (and under their names). */
static int publish_streams(runner *r)
{
    char why[RUNNER_MESSAGE_SIZE];
    if (!r->trajectory.error && outfile_publish(&r->trajectory, why, sizeof why) != 0) return failure(r, why);
    if (!r->events.error && outfile_publish(&r->events, why, sizeof why) != 0) return failure(r, why);
    return 0;
}

static int write_checkpoint(runner *r)
{
    char why[RUNNER_MESSAGE_SIZE];
    if (publish_streams(r) != 0) return -1;
    r->s.events_logged = r->log.copied + r->log.lines;
    return failure_from(r, checkpoint_write(r->s.checkpoint, &r->s, r->world, why, sizeof why), why);
}

static int write_due_outputs(runner *r, double now)
{
    session *s = &r->s;
    if (s->equilibrate > 0 && !r->equilibrated && now >= s->equilibrate) {
        carom_world_reset_stats(r->world);
        r->equilibrated = 1;
    }
    if (s->trajectory && frame_time(s, s->frame_index) <= now) {
        while (frame_time(s, s->frame_index) <= now) s->frame_index++;
        s->next_frame = frame_time(s, s->frame_index);
        if (write_frame(r) != 0) return -1;
    }
    if (r->series && series_next_time(r->series) <= now) {
        char why[RUNNER_MESSAGE_SIZE];
        if (series_row(r->series, r->world, why, sizeof why) != 0) return failure(r, why);
    }
    if (r->movie && movie_next_time(r->movie) <= now) {
        char why[RUNNER_MESSAGE_SIZE];
        if (movie_frame(r->movie, r->world, r->dim, r->box, why, sizeof why) != 0) return failure(r, why);
        while (movie_next_time(r->movie) <= now) r->movie->index++; /* none is skipped: the run stops at each */
    }
    if (r->analysis && analysis_next_time(r->analysis) <= now) {
        char why[RUNNER_MESSAGE_SIZE];
        if (analysis_sample(r->analysis, why, sizeof why) != 0) return failure(r, why);
    }
    if (wants_checkpoints(s) && checkpoint_time(s, s->checkpoint_index) <= now) {
        while (checkpoint_time(s, s->checkpoint_index) <= now) s->checkpoint_index++;
        s->next_checkpoint = checkpoint_time(s, s->checkpoint_index);
        if (write_checkpoint(r) != 0) return -1;
    }
    return 0;
}

static double next_stop(const runner *r)
{
    const session *s = &r->s;
    double target = s->until;
    if (s->trajectory) target = fmin(target, frame_time(s, s->frame_index));
    if (wants_checkpoints(s)) target = fmin(target, checkpoint_time(s, s->checkpoint_index));
    if (s->equilibrate > 0 && !r->equilibrated) target = fmin(target, s->equilibrate);
    if (s->window > 0) target = fmin(target, window_time(s, r->window_index + 1));
    if (r->movie) target = fmin(target, movie_next_time(r->movie));
    if (r->series) target = fmin(target, series_next_time(r->series));
    if (r->analysis) target = fmin(target, analysis_next_time(r->analysis));
    return fmin(target, thermostat_next_time(&s->thermostat));
}

/* ---- the loop ---------------------------------------------------------------- */

static run_outcome world_failed(runner *r)
{
    char why[RUNNER_MESSAGE_SIZE];
    snprintf(why, sizeof why, "%s: at t = %.17g: %s", r->s.scenario_path, carom_world_time(r->world),
             carom_world_message(r->world));
    failure(r, why);
    return RUN_FAILED;
}

static run_outcome stuck(runner *r)
{
    char why[RUNNER_MESSAGE_SIZE];
    snprintf(why, sizeof why, "%s: at t = %.17g no further event can happen, so the cap of %lld events cannot "
             "be reached (expected run.until or --until)", r->s.scenario_path, carom_world_time(r->world),
             (long long)r->s.events);
    failure(r, why);
    return RUN_FAILED;
}

static run_outcome interrupted(runner *r)
{
    char why[RUNNER_MESSAGE_SIZE];
    snprintf(why, sizeof why, "interrupted by %s at t = %.17g", *r->stop == SIGTERM ? "SIGTERM" : "SIGINT",
             carom_world_time(r->world));
    failure(r, why);
    return RUN_INTERRUPTED;
}

/* Runs to target, or until slice events (see the top of the file). */
static carom_status step(runner *r, double target, int64_t slice)
{
    double now = carom_world_time(r->world), dt = target - now;
    if (r->s.window > 0 && r->s.events < 0 && now + dt == target) return carom_world_advance(r->world, dt);
    return carom_world_run(r->world, target, slice);
}

/* A window start reached: the next window runs, with its controls. */
static int start_window(runner *r, double now)
{
    if (!(r->s.window > 0) || window_time(&r->s, r->window_index + 1) > now) return 0;
    r->window_index = window_at(&r->s, now);
    return apply_controls(r);
}

static run_outcome run_slices(runner *r, progress *bar)
{
    const session *s = &r->s;
    for (;;) {
        if (*r->stop) return interrupted(r);
        carom_counts st = carom_world_counts(r->world); /* O(1): a thermostat stops the run often */
        if ((s->events >= 0 && st.events >= s->events) || st.time >= s->until) return RUN_COMPLETED;
        int64_t slice = EVENTS_PER_SLICE;
        if (s->events >= 0 && s->events - st.events < slice) slice = s->events - st.events;
        double target = next_stop(r);
        if (step(r, target, slice) != CAROM_OK) return world_failed(r);
        if (r->log.error) {
            r->events.error = r->log.error;
            char why[RUNNER_MESSAGE_SIZE];
            outfile_status(&r->events, why, sizeof why);
            failure(r, why);
            return RUN_FAILED;
        }
        double now = carom_world_time(r->world);
        if (!isfinite(now)) return stuck(r); /* an event at t = infinity means none was left */
        if (isinf(target) && now == st.time && carom_world_counts(r->world).events == st.events) return stuck(r);
        if (start_window(r, now) != 0) return RUN_FAILED;
        if (thermostat_next_time(&r->s.thermostat) <= now) {
            char why[RUNNER_MESSAGE_SIZE];
            if (thermostat_apply(&r->s.thermostat, r->world, why, sizeof why) != 0) return failure(r, why), RUN_FAILED;
        }
        if (now >= target && write_due_outputs(r, now) != 0) return RUN_FAILED;
        progress_update(bar, r->world, s);
    }
}

/* ---- finishing ---------------------------------------------------------------- */

static const char *outcome_name(run_outcome outcome)
{
    return outcome == RUN_COMPLETED ? "completed" : outcome == RUN_INTERRUPTED ? "interrupted" : "failed";
}

static int write_stats(runner *r, run_outcome outcome)
{
    outfile f;
    char why[RUNNER_MESSAGE_SIZE];
    if (outfile_open(&f, r->s.stats, why, sizeof why) != 0) return failure(r, why);
    double wall = report_wall_seconds() - r->wall_started;
    int64_t events_run = carom_world_stats(r->world).events - r->events_before;
    report_stats_json(f.stream, r->world, &r->s, wall, events_run, outcome_name(outcome), r->message);
    return failure_from(r, outfile_commit(&f, why, sizeof why), why);
}

/* A healthy stream is finished and kept; a broken one is abandoned. */
static int close_stream(runner *r, outfile *f)
{
    if (f->error) {
        outfile_discard(f);
        return -1;
    }
    char why[RUNNER_MESSAGE_SIZE];
    return failure_from(r, outfile_commit(f, why, sizeof why), why);
}

static void say_wrote(const runner *r, const char *path, const char *what)
{
    if (!r->quiet && path && strcmp(path, "-") != 0) fprintf(stderr, "carom: wrote %s%s\n", path, what);
}

/* The series gets a last row at the end, and is kept unless the run failed
 * (an interrupted run keeps it, as the trajectory). */
static void finish_series(runner *r, run_outcome outcome)
{
    if (!r->series) return;
    char why[RUNNER_MESSAGE_SIZE], what[80];
    series *s = r->series;
    double now = carom_world_time(r->world);
    int failed = outcome == RUN_FAILED || r->message[0];
    if (!failed && s->last.time < now && isfinite(now) && series_row(s, r->world, why, sizeof why) != 0)
        failed = failure(r, why) != 0;
    int64_t rows = s->rows;
    char *path = strdup(s->out.path ? s->out.path : "");
    if (failed) series_discard(s);
    else if (series_close(s, why, sizeof why) != 0) failure(r, why);
    else snprintf(what, sizeof what, " (%lld rows)", (long long)rows), say_wrote(r, path, what);
    free(path);
    free(r->series);
    r->series = NULL;
}

/* The movie is kept only when the run completed; otherwise nothing is left of it. */
static void finish_movie(runner *r, run_outcome outcome)
{
    if (!r->movie) return;
    char why[RUNNER_MESSAGE_SIZE], what[160];
    int64_t frames = r->movie->index;
    double last = r->movie->origin + (double)(frames - 1) * r->movie->speed / (double)r->movie->fps;
    char *path = r->movie->path ? strdup(r->movie->path) : NULL;
    if (outcome != RUN_COMPLETED || r->message[0]) {
        movie_discard(r->movie);
    } else if (movie_close(r->movie, why, sizeof why) != 0) {
        failure(r, why);
    } else if (path) {
        snprintf(what, sizeof what, " (%lld frames at %d per second, the last at t = %.17g)", (long long)frames,
                 r->movie->fps, last);
        say_wrote(r, path, what);
    }
    free(path);
    free(r->movie);
    r->movie = NULL;
    render_release_caches(); /* the run's last drawing */
}

/* The analysis's files are written unless the run failed (an interrupted run keeps what it measured). */
static void finish_analysis(runner *r, run_outcome outcome)
{
    if (!r->analysis) return;
    char why[RUNNER_MESSAGE_SIZE], what[RUNNER_MESSAGE_SIZE];
    r->log.analysis = NULL;
    if (outcome != RUN_FAILED && !r->message[0]) {
        if (analysis_report(r->analysis, why, sizeof why) != 0) {
            failure(r, why);
        } else {
            snprintf(what, sizeof what, " and the tables beside it (%lld samples from t = %.17g)",
                     (long long)r->analysis->samples, r->analysis->origin);
            say_wrote(r, r->analysis->paths[ANALYSIS_FILES - 1], what);
        }
    }
    analysis_free(r->analysis);
    free(r->analysis);
    r->analysis = NULL;
}

static run_outcome finish(runner *r, run_outcome outcome)
{
    session *s = &r->s;
    double now = carom_world_time(r->world);
    int kept[4] = {0, 0, 0, 0};
    if (r->trajectory.stream && !r->trajectory.error && s->last_frame_time < now && isfinite(now)) write_frame(r);
    r->log.out = NULL;
    if (s->checkpoint) kept[3] = write_checkpoint(r) == 0;
    if (s->stats) kept[2] = write_stats(r, r->message[0] && outcome == RUN_COMPLETED ? RUN_FAILED : outcome) == 0;
    int had_trajectory = r->trajectory.stream != NULL, had_log = r->events.stream != NULL;
    kept[0] = had_trajectory && close_stream(r, &r->trajectory) == 0;
    kept[1] = had_log && close_stream(r, &r->events) == 0;
    char what[160];
    snprintf(what, sizeof what, " (%d frames, the last at t = %.17g)", s->frames_written, s->last_frame_time);
    if (kept[0]) say_wrote(r, s->trajectory, what);
    snprintf(what, sizeof what, " (%lld events%s)", (long long)r->log.lines,
             r->resumed.active && continues(s->events_log, r->resumed.events_log) ? " appended" : "");
    if (kept[1]) say_wrote(r, s->events_log, what);
    if (kept[2]) say_wrote(r, s->stats, "");
    snprintf(what, sizeof what, " (t = %.17g)", now);
    if (kept[3]) say_wrote(r, s->checkpoint, what);
    finish_series(r, outcome);
    finish_movie(r, outcome);
    finish_analysis(r, outcome);
    return r->message[0] && outcome == RUN_COMPLETED ? RUN_FAILED : outcome;
}

run_outcome runner_run(runner *r)
{
    progress bar;
    progress_start(&bar, r->quiet, r->world);
    run_outcome outcome = apply_controls(r) == 0 ? RUN_COMPLETED : RUN_FAILED;
    if (outcome == RUN_COMPLETED &&
        ((r->s.trajectory && frame_time(&r->s, r->s.frame_index) <= carom_world_time(r->world)) ||
         (r->series && series_next_time(r->series) <= carom_world_time(r->world)) ||
         (r->movie && movie_next_time(r->movie) <= carom_world_time(r->world)) ||
         (r->analysis && analysis_next_time(r->analysis) <= carom_world_time(r->world))))
        outcome = write_due_outputs(r, carom_world_time(r->world)) == 0 ? RUN_COMPLETED : RUN_FAILED;
    if (outcome == RUN_COMPLETED) outcome = run_slices(r, &bar);
    progress_finish(&bar, r->world, &r->s, outcome == RUN_COMPLETED);
    return finish(r, outcome);
}

void runner_free(runner *r)
{
    if (r->movie) movie_discard(r->movie);
    free(r->movie);
    r->movie = NULL;
    if (r->series) series_discard(r->series);
    free(r->series);
    r->series = NULL;
    if (r->analysis) analysis_free(r->analysis);
    free(r->analysis);
    r->analysis = NULL;
    free(r->wanted_analysis.output);
    r->wanted_analysis.output = NULL;
    r->log.out = NULL;
    r->log.analysis = NULL;
    outfile_discard(&r->trajectory);
    outfile_discard(&r->events);
    carom_world_destroy(r->world);
    r->world = NULL;
    controls_free(&r->controls);
    session_free(&r->s);
    free(r->resumed.trajectory);
    free(r->resumed.events_log);
    r->resumed.trajectory = r->resumed.events_log = NULL;
    for (int i = 0; i < r->input_count; i++) free(r->inputs[i]);
    free(r->inputs);
    r->inputs = NULL;
    r->input_count = 0;
}
