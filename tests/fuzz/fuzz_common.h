/* fuzz_common.h — what the libFuzzer targets share: the input as a file
 * (the readers take paths), a failed promise as a crash (libFuzzer then saves
 * the input), and the checks of a world after a bounded run: every event at
 * a finite time, never before the clock or the previous event, naming real
 * bodies and walls; no NaN or infinity in any body or statistic afterwards;
 * every centre inside the box. */
#ifndef CAROM_FUZZ_COMMON_H
#define CAROM_FUZZ_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "carom.h"
#include "../forge.h" /* resealing: a mutated input would otherwise only ever meet the checksum */

/* A broken promise: say which, and crash so that libFuzzer keeps the input. */
#define PROMISE(cond, ...)                                                           \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: promise broken: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
            abort();                                                                 \
        }                                                                            \
    } while (0)

/* The files this process has written, removed when it exits normally (a
 * crash leaves them: libFuzzer keeps the input itself, in its artifacts). */
enum { FUZZ_INPUT_SUFFIXES = 4 };
static char fuzz_input_paths[FUZZ_INPUT_SUFFIXES][128];

static inline void fuzz_remove_inputs(void)
{
    for (int k = 0; k < FUZZ_INPUT_SUFFIXES; k++)
        if (fuzz_input_paths[k][0]) remove(fuzz_input_paths[k]);
}

/* This process's file for the suffix: named on first use, and removed at exit. */
static inline const char *fuzz_input_path(const char *suffix)
{
    char path[128];
    snprintf(path, sizeof path, "/tmp/carom-fuzz-%ld%s", (long)getpid(), suffix);
    int k = 0;
    while (k < FUZZ_INPUT_SUFFIXES && fuzz_input_paths[k][0] && strcmp(fuzz_input_paths[k], path) != 0) k++;
    if (k == FUZZ_INPUT_SUFFIXES) abort();
    if (!fuzz_input_paths[k][0]) {
        if (k == 0 && atexit(fuzz_remove_inputs) != 0) abort();
        memcpy(fuzz_input_paths[k], path, sizeof path);
    }
    return fuzz_input_paths[k];
}

/* Writes the input to this process's file for the suffix (rewritten each
 * time); returns its path. */
static inline const char *fuzz_input_file(const uint8_t *data, size_t size, const char *suffix)
{
    const char *path = fuzz_input_path(suffix);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size > 0 && fwrite(data, 1, size, f) != size) abort();
    if (fclose(f) != 0) abort();
    return path;
}

/* What the event callback checks against. */
typedef struct fuzz_events {
    const carom_world *world;
    int dim;
    int periodic[3];
    int container; /* the world's boundary is a container: its bounces are wall 6, and no rest events */
    carom_vec gravity;
    double start, last, t_end;
    int32_t bodies;
    int64_t seen;
} fuzz_events;

static inline int fuzz_on_event(void *user, const carom_event *e)
{
    fuzz_events *f = user;
    PROMISE(isfinite(e->time), "event %lld at t = %g", (long long)f->seen, e->time);
    PROMISE(e->time >= f->last && e->time >= f->start, "event %lld at t = %.17g, before %.17g",
            (long long)f->seen, e->time, f->last > f->start ? f->last : f->start);
    PROMISE(e->time <= f->t_end, "event at t = %.17g after t_end = %.17g", e->time, f->t_end);
    PROMISE(e->time == carom_world_time(f->world), "the clock is %.17g at an event of t = %.17g",
            carom_world_time(f->world), e->time);
    PROMISE(isfinite(e->impulse) && e->impulse >= 0.0, "impulse %g", e->impulse);
    PROMISE(e->i >= 0 && e->i < f->bodies, "body %d of %d", (int)e->i, (int)f->bodies);
    if (e->kind == CAROM_EVENT_PAIR) {
        PROMISE(e->j > e->i && e->j < f->bodies, "pair (%d, %d) of %d bodies", (int)e->i, (int)e->j,
                (int)f->bodies);
    } else if (e->kind == CAROM_EVENT_SENSOR) {
        PROMISE(e->j >= 0 && e->j < carom_world_sensor_count(f->world), "sensor %d", (int)e->j);
        PROMISE(e->direction == 1 || e->direction == -1, "sensor crossing in direction %d", (int)e->direction);
        PROMISE(e->impulse == 0.0, "a sensor event with impulse %g", e->impulse);
    } else {
        PROMISE(e->kind == CAROM_EVENT_WALL || e->kind == CAROM_EVENT_REST, "event kind %d", (int)e->kind);
        if (f->container)
            PROMISE(e->kind == CAROM_EVENT_WALL && e->j == CAROM_WALL_CONTAINER, "kind %d, wall %d in a container",
                    (int)e->kind, (int)e->j);
        else
            PROMISE(e->j >= 0 && e->j < 2 * f->dim && !f->periodic[e->j / 2], "wall %d", (int)e->j);
        if (e->kind == CAROM_EVENT_REST) { /* on a floor: the wall gravity pushes the body against */
            double g = e->j / 2 == 0 ? f->gravity.x : e->j / 2 == 1 ? f->gravity.y : f->gravity.z;
            PROMISE(e->j % 2 ? g > 0.0 : g < 0.0, "body %d rests on wall %d, gravity %g along it", (int)e->i,
                    (int)e->j, g);
            PROMISE(e->impulse == 0.0, "a rest event with impulse %g", e->impulse);
        }
    }
    f->last = e->time;
    f->seen++;
    return 0;
}

static inline void fuzz_events_start(fuzz_events *f, const carom_world *w, double t_end)
{
    carom_world_def def = carom_world_definition(w);
    f->world = w;
    f->dim = def.dim;
    for (int a = 0; a < 3; a++) f->periodic[a] = a < def.dim && def.boundary[a] == CAROM_PERIODIC;
    f->gravity = def.gravity;
    f->container = def.container != NULL;
    f->start = f->last = carom_world_time(w);
    f->t_end = t_end;
    f->bodies = carom_world_body_count(w);
    f->seen = 0;
}

static inline int fuzz_finite3(carom_vec v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* Runs w for at most max_events events up to t_end and checks what it promises. */
static inline void fuzz_run_and_check(carom_world *w, fuzz_events *f, double t_end, int64_t max_events)
{
    fuzz_events_start(f, w, t_end);
    carom_status st = carom_world_run(w, t_end, max_events);
    PROMISE(st == CAROM_OK || st == CAROM_JAMMED, "carom_world_run: %s: %s", carom_status_name(st),
            carom_world_message(w));
    double clock = carom_world_time(w);
    PROMISE(clock >= f->start && clock >= f->last && clock <= t_end, "the clock went from %.17g to %.17g",
            f->start, clock);
    carom_world_def def = carom_world_definition(w);
    const double box[3] = {def.box.x, def.box.y, def.box.z};
    for (int32_t i = 0; i < carom_world_body_count(w); i++) {
        carom_body_state b;
        PROMISE(carom_world_get_body(w, i, &b) == CAROM_OK, "body %d", (int)i);
        PROMISE(fuzz_finite3(b.position) && fuzz_finite3(b.velocity), "body %d: (%g, %g, %g) (%g, %g, %g)",
                (int)i, b.position.x, b.position.y, b.position.z, b.velocity.x, b.velocity.y, b.velocity.z);
        const double x[3] = {b.position.x, b.position.y, b.position.z};
        for (int a = 0; a < def.dim; a++)
            PROMISE(fabs(x[a]) <= 0.5 * box[a] * (1.0 + 1e-9), "body %d: position %c = %.17g outside the box %g",
                    (int)i, "xyz"[a], x[a], box[a]);
    }
    carom_stats s = carom_world_stats(w);
    PROMISE(isfinite(s.kinetic_energy) && isfinite(s.potential_energy) && isfinite(s.time),
            "stats: KE %g, PE %g, t %g", s.kinetic_energy, s.potential_energy, s.time);
}

#endif
