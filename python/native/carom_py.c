/* carom_py.c — the Python package's native helper (carom_py.h): an event
 * sink that records into a growing array and forwards to Python, scenario
 * and checkpoint loading through the command's own readers (tools/), and
 * bulk body access. Public API of libcarom only. */
#include "carom_py.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_report.h"
#include "checkpoint.h"
#include "compression.h"
#include "place.h"
#include "scenario.h"
#include "session.h"

/* ---- events ---------------------------------------------------------------- */

struct carom_py_events {
    carom_event *items;
    int64_t count, capacity;
    int record, lost;
    carom_event_callback forward;
    void *forward_user;
    analysis *analysis; /* sees every event first (NULL: none) */
};

struct carom_py_analysis {
    analysis an;
    carom_py_events *sink;
};

carom_py_events *carom_py_events_create(void) { return calloc(1, sizeof(carom_py_events)); }

void carom_py_events_destroy(carom_py_events *sink)
{
    if (!sink) return;
    free(sink->items);
    free(sink);
}

/* Room for one more event, doubling; 0, or -1 if out of memory. */
static int make_room(carom_py_events *sink)
{
    if (sink->count < sink->capacity) return 0;
    int64_t wanted = sink->capacity > 0 ? 2 * sink->capacity : 1024;
    if ((uint64_t)wanted > SIZE_MAX / sizeof(carom_event)) return -1;
    carom_event *grown = realloc(sink->items, (size_t)wanted * sizeof(carom_event));
    if (!grown) return -1;
    sink->items = grown;
    sink->capacity = wanted;
    return 0;
}

int carom_py_on_event(void *user, const carom_event *event)
{
    carom_py_events *sink = user;
    int stop = 0;
    if (sink->analysis) analysis_event(sink->analysis, event);
    if (sink->record) {
        if (make_room(sink) == 0) sink->items[sink->count++] = *event;
        else sink->lost = 1, stop = 1;
    }
    if (sink->forward && sink->forward(sink->forward_user, event) != 0) stop = 1;
    return stop;
}

void carom_py_events_set_record(carom_py_events *sink, int record) { sink->record = record != 0; }

void carom_py_events_set_forward(carom_py_events *sink, carom_event_callback forward, void *user)
{
    sink->forward = forward;
    sink->forward_user = user;
}

const carom_event *carom_py_events_data(const carom_py_events *sink) { return sink->items; }
int64_t carom_py_events_count(const carom_py_events *sink) { return sink->count; }
int carom_py_events_lost(const carom_py_events *sink) { return sink->lost; }

void carom_py_events_clear(carom_py_events *sink)
{
    sink->count = 0;
    sink->lost = 0;
}

/* ---- scenarios and checkpoints --------------------------------------------- */

static char *copy_text(const char *text)
{
    if (!text) return NULL;
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    if (copy) memcpy(copy, text, size);
    return copy;
}

int carom_py_load_scenario(const char *path, int seed_given, uint64_t seed, carom_event_callback on_event,
                           void *user, carom_world **world, carom_py_run *run, char **species, char *why,
                           size_t why_size)
{
    *world = NULL;
    *species = NULL;
    scenario sc;
    if (scenario_load(path, &sc, why, why_size) != 0) return -1;
    if (seed_given) sc.seed = seed;
    double box[3];
    int st = place_build_world_named(&sc, on_event, user, box, world, species, why, why_size);
    if (st == 0 && compression_apply(&sc, world, NULL, why, why_size) != 0) {
        carom_world_destroy(*world);
        *world = NULL;
        carom_py_free(*species);
        *species = NULL;
        st = -1;
    }
    if (st == 0)
        *run = (carom_py_run){sc.until, sc.events, sc.equilibrate, sc.window, sc.controls != NULL, sc.seed,
                              sc.thermostat};
    scenario_free(&sc);
    return st;
}

int carom_py_read_checkpoint(const char *path, carom_event_callback on_event, void *user, carom_world **world,
                             carom_py_run *run, char **species, char *why, size_t why_size)
{
    *species = NULL;
    session s;
    if (checkpoint_read(path, &s, on_event, user, world, why, why_size) != 0) return -1;
    *run = (carom_py_run){s.until, s.events, s.equilibrate, s.window, s.controls != NULL, s.seed, s.thermostat};
    int st = 0;
    if (s.species && !(*species = copy_text(s.species))) {
        snprintf(why, why_size, "%s: out of memory", path);
        carom_world_destroy(*world);
        *world = NULL;
        st = -1;
    }
    session_free(&s);
    return st;
}

int carom_py_write_checkpoint(const char *path, const carom_world *world, const carom_py_run *run,
                              const char *species, const thermostat *t, char *why, size_t why_size)
{
    session s;
    memset(&s, 0, sizeof s);
    s.until = run ? run->until : INFINITY;
    s.events = run ? run->events : -1;
    s.equilibrate = run ? run->equilibrate : 0.0;
    s.window = run ? run->window : 0.0;
    s.window_origin = carom_world_time(world);
    s.seed = run ? run->seed : 1;
    carom_stats now = carom_world_stats(world);
    s.kinetic_energy_initial = now.kinetic_energy;
    s.potential_energy_initial = now.potential_energy;
    s.rotational_energy_initial = now.rotational_energy;
    s.species = (char *)species; /* read only: checkpoint_write copies the text */
    if (t) s.thermostat = *t;
    return checkpoint_write(path, &s, world, why, why_size);
}

void carom_py_free(void *block) { free(block); }

/* ---- analysis -------------------------------------------------------------- */

carom_py_analysis *carom_py_analysis_open(const carom_world *world, carom_py_events *sink, const char *output,
                                          double every, double start, double rdf_max, int rdf_bins,
                                          double sk_max, int msd_lags, int flight_bins, const char *species,
                                          char *why, size_t why_size)
{
    if (sink->analysis) return snprintf(why, why_size, "analysis: the world already has one (close it first)"), NULL;
    carom_py_analysis *a = calloc(1, sizeof *a);
    if (!a) return snprintf(why, why_size, "analysis: out of memory"), NULL;
    scenario_analysis settings = {.active = 1, .output = (char *)output, .every = every, .start = start,
                                  .rdf_max = rdf_max, .rdf_bins = rdf_bins, .sk_max = sk_max,
                                  .msd_lags = msd_lags, .flight_bins = flight_bins};
    if (analysis_open(&a->an, &settings, world, species, INFINITY, 0.0, "analysis", why, why_size) != 0) {
        analysis_free(&a->an);
        free(a);
        return NULL;
    }
    a->sink = sink;
    sink->analysis = &a->an;
    return a;
}

double carom_py_analysis_next_time(const carom_py_analysis *a) { return analysis_next_time(&a->an); }

int carom_py_analysis_sample(carom_py_analysis *a, char *why, size_t why_size)
{
    return analysis_sample(&a->an, why, why_size);
}

int carom_py_analysis_report(carom_py_analysis *a, char *why, size_t why_size)
{
    return analysis_report(&a->an, why, why_size);
}

int64_t carom_py_analysis_samples(const carom_py_analysis *a) { return a->an.samples; }

void carom_py_analysis_close(carom_py_analysis *a)
{
    if (!a) return;
    if (a->sink && a->sink->analysis == &a->an) a->sink->analysis = NULL;
    analysis_free(&a->an);
    free(a);
}

/* ---- thermostats ----------------------------------------------------------- */

int carom_py_thermostat_start(thermostat *t, const carom_world *world, uint64_t seed, char *why, size_t why_size)
{
    return thermostat_start(t, world, seed, why, why_size);
}

double carom_py_thermostat_next_time(const thermostat *t) { return thermostat_next_time(t); }

int carom_py_thermostat_apply(thermostat *t, carom_world *world, char *why, size_t why_size)
{
    return thermostat_apply(t, world, why, why_size);
}

/* ---- many bodies at once --------------------------------------------------- */

carom_status carom_py_add_bodies(carom_world *world, const carom_body_def *defs, int32_t count, int32_t *added)
{
    *added = 0;
    if (!world || count < 0 || (count > 0 && !defs)) return CAROM_INVALID_ARGUMENT;
    for (int32_t k = 0; k < count; k++) {
        carom_status st = carom_world_add_body(world, &defs[k], NULL);
        if (st != CAROM_OK) return st;
        *added = k + 1;
    }
    return CAROM_OK;
}

carom_status carom_py_get_states(const carom_world *world, int32_t first, int32_t count, carom_body_state *states)
{
    if (!world || !states || first < 0 || count < 0) return CAROM_INVALID_ARGUMENT;
    for (int32_t k = 0; k < count; k++) {
        carom_status st = carom_world_get_body(world, first + k, &states[k]);
        if (st != CAROM_OK) return st;
    }
    return CAROM_OK;
}

size_t carom_py_struct_size(int which)
{
    const size_t sizes[] = {sizeof(carom_world_def), sizeof(carom_body_def),   sizeof(carom_body_state),
                            sizeof(carom_event),     sizeof(carom_stats),      sizeof(carom_counts),
                            sizeof(carom_sensor_def), sizeof(carom_filter_def), sizeof(carom_filter_result),
                            sizeof(carom_py_run),    sizeof(thermostat)};
    if (which < 0 || which >= (int)(sizeof sizes / sizeof sizes[0])) return 0;
    return sizes[which];
}
