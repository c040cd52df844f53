/* carom_py.h — what the Python package (python/carom) needs beyond
 * libcarom's public interface, as a small shared library on top of it
 * (libcarom_py.so): loading a scenario file or a checkpoint exactly as the
 * carom command does, recording events into a growing array from C (a
 * Python callback per event would cost microseconds each), and adding or
 * reading many bodies in one call. Every function here uses the public API
 * only; the library never prints or exits. */
#ifndef CAROM_PY_H
#define CAROM_PY_H

#include <stddef.h>
#include <stdint.h>

#include "carom.h"
#include "thermostat.h"

/* ---- events ---------------------------------------------------------------- */

/* An event sink: the world's callback is carom_py_on_event with a sink as
 * its user. It appends each event to an array when recording, then calls
 * the forwarded callback (Python's) if one is set and returns its value. */
typedef struct carom_py_events carom_py_events;

carom_py_events *carom_py_events_create(void); /* NULL if out of memory */
void carom_py_events_destroy(carom_py_events *sink);
int carom_py_on_event(void *sink, const carom_event *event);
void carom_py_events_set_record(carom_py_events *sink, int record);
void carom_py_events_set_forward(carom_py_events *sink, carom_event_callback forward, void *user);
/* The events recorded since the last clear, and their number. */
const carom_event *carom_py_events_data(const carom_py_events *sink);
int64_t carom_py_events_count(const carom_py_events *sink);
/* 1 if an event could not be recorded for want of memory (the run was then
 * stopped right after it); cleared by carom_py_events_clear. */
int carom_py_events_lost(const carom_py_events *sink);
void carom_py_events_clear(carom_py_events *sink);

/* ---- scenarios and checkpoints --------------------------------------------- */

/* A scenario's or checkpoint's run settings (the `run:` section). */
typedef struct carom_py_run {
    double until;       /* INFINITY if absent */
    int64_t events;     /* -1 if absent */
    double equilibrate; /* 0 if absent */
    double window;      /* 0 if absent */
    int has_controls;   /* run.controls is set (the command replays it; Python does not) */
    uint64_t seed;
    thermostat thermostat; /* the scenario's settings, or a checkpoint's settings and state */
} carom_py_run;

/* Builds the world a scenario file describes, as `carom run` does (the same
 * bodies, bits included, for the same seed): seed_given non-zero replaces
 * the scenario's seed. *species becomes a malloc'd "NAME COUNT ..." text
 * (carom_py_free it). Returns 0, or -1 with "FILE:LINE:COL: what is wrong"
 * in why and *world NULL. */
int carom_py_load_scenario(const char *path, int seed_given, uint64_t seed, carom_event_callback on_event,
                           void *user, carom_world **world, carom_py_run *run, char **species, char *why,
                           size_t why_size);

/* Restores the world of a checkpoint file written by `carom run
 * --checkpoint`, with its run settings and species. Returns 0, or -1 with
 * "PATH: what is wrong" in why. */
int carom_py_read_checkpoint(const char *path, carom_event_callback on_event, void *user, carom_world **world,
                             carom_py_run *run, char **species, char *why, size_t why_size);

/* Writes a checkpoint file that `carom run --restart` and
 * carom_py_read_checkpoint read: the world, its run settings (run NULL:
 * none, so a restart needs --until or --events), its species (NULL: none)
 * and its thermostat's settings and state (NULL: none). 0, or -1 with
 * "PATH: what went wrong" (the file written whole or not at all). */
int carom_py_write_checkpoint(const char *path, const carom_world *world, const carom_py_run *run,
                              const char *species, const thermostat *t, char *why, size_t why_size);

void carom_py_free(void *block);

/* ---- analysis -------------------------------------------------------------- */

/* A scenario's `analysis:` (tools/analysis.h) on a world made from Python:
 * the same observables and files as `carom run` writes. Settings of 0 turn
 * an observable off; start NaN: now. species is "NAME COUNT ..." or NULL.
 * The sink passes it every event until carom_py_analysis_close. Returns
 * NULL with a message in why. */
typedef struct carom_py_analysis carom_py_analysis;
carom_py_analysis *carom_py_analysis_open(const carom_world *world, carom_py_events *sink, const char *output,
                                          double every, double start, double rdf_max, int rdf_bins,
                                          double sk_max, int msd_lags, int flight_bins, const char *species,
                                          char *why, size_t why_size);
double carom_py_analysis_next_time(const carom_py_analysis *analysis);
/* The sample due now; 0, or -1 with a message. */
int carom_py_analysis_sample(carom_py_analysis *analysis, char *why, size_t why_size);
/* Writes the files under the prefix given at opening; 0, or -1 with a message. */
int carom_py_analysis_report(carom_py_analysis *analysis, char *why, size_t why_size);
int64_t carom_py_analysis_samples(const carom_py_analysis *analysis);
void carom_py_analysis_close(carom_py_analysis *analysis);

/* ---- thermostats (tools/thermostat.h), on a struct the caller keeps ------------ */

/* 0, or -1 with a message. */
int carom_py_thermostat_start(thermostat *t, const carom_world *world, uint64_t seed, char *why, size_t why_size);
double carom_py_thermostat_next_time(const thermostat *t);
int carom_py_thermostat_apply(thermostat *t, carom_world *world, char *why, size_t why_size);

/* ---- many bodies at once --------------------------------------------------- */

/* Adds count bodies in order; stops at the first refused one, whose index
 * in defs goes to *added (count when all were added). The caller undoes a
 * partial add (python/carom restores a snapshot taken before). */
carom_status carom_py_add_bodies(carom_world *world, const carom_body_def *defs, int32_t count, int32_t *added);

/* The states of bodies first .. first + count - 1. */
carom_status carom_py_get_states(const carom_world *world, int32_t first, int32_t count, carom_body_state *states);

/* sizeof the public structs Python mirrors, to check its layouts at import:
 * 0 world_def, 1 body_def, 2 body_state, 3 event, 4 stats, 5 counts,
 * 6 sensor_def, 7 filter_def, 8 filter_result, 9 run, 10 thermostat; 0 for anything else. */
size_t carom_py_struct_size(int which);

#endif
