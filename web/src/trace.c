/* trace.c — the fixed runs behind the wasm-against-native test (trace.h).
 *
 * Everything here goes through the same functions the page calls (the
 * views) or the same world the box view builds, so equal traces mean the
 * page's engine is the native engine, bit for bit. The player's input of
 * the steering runs comes from carom's own generator (integer arithmetic
 * and exact conversions), never from libm.
 */
#include "trace.h"

#include <stdlib.h>

#include "box_view.h"
#include "carom.h"
#include "hockey_view.h"
#include "steer_view.h"
#include "web_export.h"
#include "web_place.h"

enum { SECTION_BOX_EVENTS = 0, SECTION_BOX_STATES, SECTION_FRAME, SECTION_STEER, SECTION_HOCKEY, SECTIONS };
enum { BOX_DISKS = 400, BOX_EVENTS = 5000 };

struct trace {
    double *values;
    uint8_t *sections;
    int32_t count, capacity;
    uint8_t section;
    int status;
};

static void put(trace *t, double value)
{
    if (t->status == CAROM_OUT_OF_MEMORY) return;
    if (t->count == t->capacity) {
        int32_t capacity = t->capacity ? 2 * t->capacity : 4096;
        double *values = realloc(t->values, sizeof *values * (size_t)capacity);
        if (values) t->values = values;
        uint8_t *sections = realloc(t->sections, (size_t)capacity);
        if (sections) t->sections = sections;
        if (!values || !sections) {
            t->status = CAROM_OUT_OF_MEMORY;
            return;
        }
        t->capacity = capacity;
    }
    t->values[t->count] = value, t->sections[t->count++] = t->section;
}

static void note(trace *t, int status)
{
    if (status != 0 && t->status == 0) t->status = status;
}

static int record_event(void *user, const carom_event *e)
{
    trace *t = user;
    put(t, e->time), put(t, e->kind), put(t, e->i), put(t, e->j), put(t, e->impulse);
    return t->count >= 5 * BOX_EVENTS;
}

static void trace_box(trace *t)
{
    carom_body_def *bodies = malloc(BOX_DISKS * sizeof *bodies);
    if (!bodies) {
        note(t, CAROM_OUT_OF_MEMORY);
        return;
    }
    carom_world_def def = web_box_world_def(BOX_DISKS, 1.6, 1.0);
    def.on_event = record_event, def.user = t;
    carom_world *world = NULL;
    carom_status s = web_place_disks(BOX_DISKS, 1.6, 1.0, 0.012, 1.0, 7, bodies, NULL, 0);
    if (s == CAROM_OK) s = carom_world_create(&def, &world, NULL, 0);
    for (int32_t k = 0; s == CAROM_OK && k < BOX_DISKS; k++) s = carom_world_add_body(world, &bodies[k], NULL);
    t->section = SECTION_BOX_EVENTS;
    if (s == CAROM_OK) s = carom_world_run(world, 1e9, INT64_MAX);
    note(t, s == CAROM_STOPPED ? 0 : (int)s);
    t->section = SECTION_BOX_STATES;
    for (int32_t k = 0; world && k < BOX_DISKS; k++) {
        carom_body_state b;
        carom_world_get_body(world, k, &b);
        put(t, b.position.x), put(t, b.position.y), put(t, b.velocity.x), put(t, b.velocity.y);
    }
    carom_world_destroy(world);
    free(bodies);
}

static void trace_frame(trace *t)
{
    t->section = SECTION_FRAME;
    box_view *v = box_create(BOX_DISKS, 1.6, 1.0, 0.012, 1.0, 0.004, 7);
    if (!v) {
        note(t, CAROM_OUT_OF_MEMORY);
        return;
    }
    note(t, box_advance(v, 2.0, 1000));
    const float *disks = box_frame_disks(v);
    const double *counters = box_counters(v);
    for (int32_t k = 0; disks && k < 4 * BOX_DISKS; k++) put(t, disks[k]);
    for (int32_t k = 0; k < BOX_COUNTERS; k++) put(t, counters[k]);
    box_destroy(v);
}

static void trace_steer(trace *t, int32_t shape, int32_t law)
{
    t->section = SECTION_STEER;
    steer_view *v = steer_create(shape, law, 2.0, 0.5);
    if (!v) {
        note(t, CAROM_OUT_OF_MEMORY);
        return;
    }
    carom_rng rng = carom_rng_seed(11u + 5u * (uint64_t)shape + (uint64_t)law);
    double x = 1.0, y = 0.0;
    for (int step = 0; step < 360 && steer_status(v) == 0; step++) {
        if (step % 20 == 0) x = (double)(carom_rng_next(&rng) % 3) - 1.0, y = (double)(carom_rng_next(&rng) % 3) - 1.0;
        note(t, steer_advance(v, x, y, 1.0 / 60.0));
    }
    note(t, steer_status(v));
    const double *counters = steer_counters(v);
    for (int32_t k = 0; k < STEER_COUNTERS; k++) put(t, counters[k]);
    steer_destroy(v);
}

static void trace_hockey(trace *t)
{
    t->section = SECTION_HOCKEY;
    hockey_view *v = hockey_create(3);
    if (!v) {
        note(t, CAROM_OUT_OF_MEMORY);
        return;
    }
    hockey_set_target(v, -0.3, 0.1);
    note(t, hockey_advance(v, 30.0, 100000));
    const float *bodies = hockey_bodies(v);
    const double *counters = hockey_counters(v);
    for (int32_t k = 0; bodies && k < 9; k++) put(t, bodies[k]);
    for (int32_t k = 0; k < HOCKEY_COUNTERS; k++) put(t, counters[k]);
    hockey_destroy(v);
}

trace *WEB_EXPORT(trace_run)(void)
{
    trace *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    trace_box(t);
    trace_frame(t);
    for (int32_t shape = 0; shape < STEER_SHAPES; shape++)
        for (int32_t law = CAROM_FILTER_OFF; law <= CAROM_FILTER_BACKUP; law++) trace_steer(t, shape, law);
    trace_hockey(t);
    return t;
}

int32_t WEB_EXPORT(trace_count)(const trace *t) { return t->count; }
const double *WEB_EXPORT(trace_values)(const trace *t) { return t->values; }
const uint8_t *WEB_EXPORT(trace_sections)(const trace *t) { return t->sections; }
int WEB_EXPORT(trace_status)(const trace *t) { return t->status; }

const char *WEB_EXPORT(trace_section_name)(int32_t section)
{
    static const char *const names[SECTIONS] = {"box-events", "box-states", "frame", "steer", "hockey"};
    return section >= 0 && section < SECTIONS ? names[section] : "?";
}

void WEB_EXPORT(trace_destroy)(trace *t)
{
    if (!t) return;
    free(t->values), free(t->sections);
    free(t);
}
