/* runner.h — one `carom run` once its world and session are set up: the
 * schedule of frames, checkpoints and the measuring window, the outputs
 * (checked before anything runs, continued on a restart), and how a run ends:
 * completed, interrupted by a signal, or failed, each with what it wrote kept
 * and finished (statistics with a status, the checkpoint asked for). */
#ifndef CAROM_RUNNER_H
#define CAROM_RUNNER_H

#include "movie.h"
#include "series.h"
#include <signal.h>
#include <stdio.h>

#include "analysis.h"
#include "carom.h"
#include "controls.h"
#include "outfile.h"
#include "session.h"

enum { RUNNER_MESSAGE_SIZE = 768 };

typedef enum { RUN_COMPLETED = 0, RUN_INTERRUPTED = 1, RUN_FAILED = 2 } run_outcome;

/* The event callback's data: where collisions are logged, and the first
 * write error (the callback cannot return one). */
typedef struct event_log {
    FILE *out;
    int error;
    int64_t lines; /* written by this run */
    int64_t copied; /* rows a restart kept of the log it continues */
    analysis *analysis; /* the scenario's analysis, which sees every event (NULL: none) */
} event_log;

/* A world's event callback that writes "time,kind,i,j" lines to an event_log:
 * pair (i, j the bodies), wall and rest (j the wall: x-, x+, ...) and
 * sensor (j the sensor's index and the direction the centre crossed it:
 * 0+ towards +axis, 0- towards -axis). */
int runner_log_event(void *user, const carom_event *e);

/* What a restart continues: its checkpoint's outputs and schedule. */
typedef struct runner_resumed {
    int active;
    char *trajectory, *events_log;
    double every, checkpoint_every, next_checkpoint;
    int frames_written;
    int64_t events_logged; /* the event log's rows at the checkpoint (-1: not known) */
} runner_resumed;

typedef struct runner {
    carom_world *world;
    session s;
    runner_resumed resumed;
    event_log log;
    outfile trajectory, events;
    controls controls;     /* run.controls, replayed at window starts */
    int64_t window_index;  /* the window running now (its start is the last one reached) */
    double box[3];
    int periodic[3], dim;
    int quiet;
    const volatile sig_atomic_t *stop; /* non-zero once the command was asked to stop */
    int equilibrated;
    movie *movie;          /* --movie: frames at exact instants (NULL: none) */
    series *series;        /* --series: statistics over time (NULL: none) */
    scenario_analysis wanted_analysis; /* the scenario's `analysis:` (active 0: none; output owned) */
    analysis *analysis;    /* opened from it once the run's settings are known (NULL: none) */
    double wall_started;
    int64_t events_before;
    /* Outputs opened apart from the runner, and the files the run reads
     * (the scenario, its body files, the controls): runner_prepare checks
     * that no two outputs name one file and that no output names an input.
     * The inputs are owned (runner_add_input). */
    const char *series_path, *movie_path;
    char **inputs;
    int input_count;
    char message[RUNNER_MESSAGE_SIZE];
} runner;

/* Notes that the run reads path (an input no output may replace).
 * 0, or -1 out of memory. */
int runner_add_input(runner *r, const char *path);

/* Checks every output path, sets up the schedules and opens the trajectory
 * and event log (copying what a restart continues). Returns 0, or -1 with a
 * message in r->message and nothing written. */
int runner_prepare(runner *r);

/* Runs to the session's end, an interrupt or a failure, then finishes the
 * outputs (a last frame, the checkpoint, statistics with the outcome) and,
 * unless quiet, says on standard error what it wrote. r->message says why a
 * run did not complete. */
run_outcome runner_run(runner *r);

/* Frees what the runner holds (the world and the session included);
 * unfinished outputs are abandoned. */
void runner_free(runner *r);

#endif
