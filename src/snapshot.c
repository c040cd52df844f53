/* snapshot.c — the complete state of a world as bytes, and back.
 *
 * A restored world must continue bit for bit as the original would have, so
 * the snapshot holds exactly what the future depends on: each body's stored
 * state and time stamp (lazy updates mean these are not all at the clock),
 * its collision counter and same-instant count, its scheduled event and the
 * event's calendar time, its cell, the grid's shape, the clock and the
 * measuring window, and with neighbour lists the shell and each anchor (the
 * lists themselves follow from the anchors). Bodies are written in id order and come back with slot =
 * id. Neither the order of the cell lists nor the bodies' places in memory
 * are saved: every choice between equal times is made by id (calendar keys,
 * candidate partners), so the future does not depend on them.
 *
 * Layout (native byte order, checked by a marker): magic "CAROMSNP",
 * version, byte-order marker, then fixed-size fields in the order written by
 * the functions below.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "schedule.h"
#include "world.h"

static const char snapshot_magic[8] = {'C', 'A', 'R', 'O', 'M', 'S', 'N', 'P'};
enum { SNAPSHOT_VERSION = 3 }; /* 2: bodies in id order with their cells; 3: neighbour lists */
static const uint32_t byte_order_marker = 0x01020304u;

typedef struct stream {
    unsigned char *out;       /* writing: destination (NULL: only count) */
    const unsigned char *in;  /* reading: source */
    size_t size, at;
    int failed;
} stream;

static void put(stream *s, const void *data, size_t size)
{
    if (s->out && s->at + size <= s->size) memcpy(s->out + s->at, data, size);
    s->at += size;
}

static int get(stream *s, void *data, size_t size)
{
    if (s->failed || size > s->size - s->at) {
        s->failed = 1;
        memset(data, 0, size);
        return -1;
    }
    memcpy(data, s->in + s->at, size);
    s->at += size;
    return 0;
}

/* Fields of the world def that describe physics (not the callback). */
static void transfer_def(stream *s, carom_world_def *def, int writing)
{
    void *fields[] = {&def->dim, &def->box, def->boundary, &def->gravity, &def->restitution,
                      &def->wall_restitution, &def->elastic_below_speed,
                      &def->max_collisions_per_instant, &def->capacity_hint, &def->neighbour_shell};
    size_t sizes[] = {sizeof def->dim, sizeof def->box, sizeof def->boundary, sizeof def->gravity,
                      sizeof def->restitution, sizeof def->wall_restitution,
                      sizeof def->elastic_below_speed, sizeof def->max_collisions_per_instant,
                      sizeof def->capacity_hint, sizeof def->neighbour_shell};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        if (writing) put(s, fields[k], sizes[k]);
        else get(s, fields[k], sizes[k]);
    }
}

static void write_header(stream *s, const carom_world *w)
{
    uint32_t version = SNAPSHOT_VERSION;
    put(s, snapshot_magic, sizeof snapshot_magic);
    put(s, &version, sizeof version);
    put(s, &byte_order_marker, sizeof byte_order_marker);
    carom_world_def def = w->def;
    transfer_def(s, &def, 1);
    put(s, &w->clock, sizeof w->clock);
    put(s, &w->count, sizeof w->count);
    put(s, &w->max_radius, sizeof w->max_radius);
    put(s, &w->grid_bodies, sizeof w->grid_bodies);
    put(s, &w->needs_rebuild, sizeof w->needs_rebuild);
    put(s, &w->meas, sizeof w->meas);
    put(s, w->grid.n, sizeof w->grid.n);
    put(s, &w->nb.on, sizeof w->nb.on);
    put(s, &w->nb.shell, sizeof w->nb.shell);
}

/* Bodies in id order, each with its cell; a pair partner is saved as an id.
 * The restored world has slot = id: a different memory layout, but results
 * never depend on the layout (order.c). */
static void write_bodies(stream *s, const carom_world *w)
{
    for (int32_t id = 0; id < w->count; id++) {
        int32_t i = w->slot_of[id];
        int32_t where = calendar_has(&w->cal, i);
        double time = where ? calendar_time(&w->cal, i) : 0.0;
        body_event e = w->event[i];
        if (e.kind == EVENT_PAIR) e.partner = w->id_of[e.partner];
        put(s, &w->hot[i], sizeof w->hot[i]);
        put(s, &w->mass[i], sizeof w->mass[i]);
        put(s, &w->counter[i], sizeof w->counter[i]);
        put(s, &w->instant[i], sizeof w->instant[i]);
        put(s, &e.partner, sizeof e.partner);
        put(s, &e.partner_counter, sizeof e.partner_counter);
        put(s, &e.kind, sizeof e.kind);
        put(s, &where, sizeof where);
        put(s, &time, sizeof time);
        put(s, &w->grid.cell[i], sizeof w->grid.cell[i]);
        if (w->nb.on) put(s, w->nb.anchor + 3 * i, 3 * sizeof *w->nb.anchor);
    }
}

static size_t write_all(const carom_world *w, unsigned char *out, size_t size)
{
    stream s = {out, NULL, size, 0, 0};
    write_header(&s, w);
    write_bodies(&s, w);
    return s.at;
}

size_t carom_world_snapshot_size(const carom_world *w) { return w ? write_all(w, NULL, 0) : 0; }

carom_status carom_world_snapshot(const carom_world *w, void *buffer, size_t size)
{
    if (!w || !buffer) return CAROM_INVALID_ARGUMENT;
    size_t needed = write_all(w, NULL, 0);
    if (size < needed)
        return world_fail((carom_world *)w, CAROM_INVALID_ARGUMENT,
                          "snapshot: buffer of %zu bytes, %zu needed", size, needed);
    write_all(w, buffer, size);
    return CAROM_OK;
}

/* ---- restoring ----------------------------------------------------------- */

static carom_status damaged(const stream *s, char *why, size_t why_size, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static carom_status damaged(const stream *s, char *why, size_t why_size, const char *format, ...)
{
    if (why && why_size > 0) {
        char detail[160];
        va_list args;
        va_start(args, format);
        vsnprintf(detail, sizeof detail, format, args);
        va_end(args);
        snprintf(why, why_size, "snapshot: %s (at byte %zu)", detail, s->at);
    }
    return CAROM_INVALID_ARGUMENT;
}

/* The same message, for a snapshot that is fine but too large for the memory. */
#define out_of_memory(...) (damaged(__VA_ARGS__), CAROM_OUT_OF_MEMORY)

static carom_status read_header(stream *s, carom_world_def *def, char *why, size_t why_size)
{
    char magic[8];
    uint32_t version, marker;
    get(s, magic, sizeof magic);
    if (s->failed || memcmp(magic, snapshot_magic, sizeof magic) != 0)
        return damaged(s, why, why_size, "not a carom snapshot");
    get(s, &version, sizeof version);
    get(s, &marker, sizeof marker);
    if (s->failed || version != SNAPSHOT_VERSION)
        return damaged(s, why, why_size, "version %u, expected %d", version, SNAPSHOT_VERSION);
    if (marker != byte_order_marker)
        return damaged(s, why, why_size, "written on a machine of another byte order");
    transfer_def(s, def, 0);
    if (s->failed) return damaged(s, why, why_size, "truncated");
    return CAROM_OK;
}

static int valid_event(const carom_world *w, const body_event *e, int32_t self)
{
    switch (e->kind) {
    case EVENT_NONE: return 1;
    case EVENT_PAIR: return e->partner >= 0 && e->partner < w->count && e->partner != self;
    case EVENT_WALL:
    case EVENT_CELL: return e->partner >= 0 && e->partner < 2 * w->dim;
    case EVENT_SHELL: return w->nb.on;
    default: return 0;
    }
}

static int finite_body(const body_hot *b)
{
    double sum = b->t + b->radius;
    for (int a = 0; a < 3; a++) sum += b->x[a] + b->v[a];
    return isfinite(sum) && fabs(sum) < 1e300;
}

static carom_status read_bodies(stream *s, carom_world *w, char *why, size_t why_size)
{
    for (int32_t i = 0; i < w->count; i++) {
        int32_t scheduled, cell;
        double time;
        get(s, &w->hot[i], sizeof w->hot[i]);
        get(s, &w->mass[i], sizeof w->mass[i]);
        get(s, &w->counter[i], sizeof w->counter[i]);
        get(s, &w->instant[i], sizeof w->instant[i]);
        get(s, &w->event[i].partner, sizeof w->event[i].partner);
        get(s, &w->event[i].partner_counter, sizeof w->event[i].partner_counter);
        get(s, &w->event[i].kind, sizeof w->event[i].kind);
        get(s, &scheduled, sizeof scheduled);
        get(s, &time, sizeof time);
        get(s, &cell, sizeof cell);
        if (w->nb.on) get(s, w->nb.anchor + 3 * i, 3 * sizeof *w->nb.anchor);
        if (s->failed) return damaged(s, why, why_size, "truncated in body %d", (int)i);
        if (!finite_body(&w->hot[i]) || !(w->hot[i].radius > 0.0) || !(w->mass[i] > 0.0) ||
            !isfinite(w->mass[i]) || !valid_event(w, &w->event[i], i) || isnan(time) || cell < 0 ||
            cell >= w->grid.total)
            return damaged(s, why, why_size, "body %d is damaged", (int)i);
        w->id_of[i] = w->slot_of[i] = i;
        w->grid.cell[i] = cell; /* filed in its list below */
        if (scheduled) calendar_set_keyed(&w->cal, i, i, time);
    }
    for (int32_t i = w->count - 1; i >= 0; i--) { /* each list ascending */
        int32_t cell = w->grid.cell[i];
        w->grid.cell[i] = -1;
        cells_insert(&w->grid, i, cell);
    }
    if (w->nb.on && neighbours_link_all(w) != 0)
        return out_of_memory(s, why, why_size, "out of memory for neighbour lists");
    return CAROM_OK;
}

static carom_status read_world(stream *s, carom_world *w, char *why, size_t why_size)
{
    int32_t count, n[3];
    get(s, &w->clock, sizeof w->clock);
    get(s, &count, sizeof count);
    get(s, &w->max_radius, sizeof w->max_radius);
    get(s, &w->grid_bodies, sizeof w->grid_bodies);
    get(s, &w->needs_rebuild, sizeof w->needs_rebuild);
    get(s, &w->meas, sizeof w->meas);
    get(s, n, sizeof n);
    get(s, &w->nb.on, sizeof w->nb.on);
    get(s, &w->nb.shell, sizeof w->nb.shell);
    if (s->failed || count < 0 || !isfinite(w->clock) || (w->nb.on != 0 && w->nb.on != 1) ||
        !(w->nb.on ? w->nb.shell > 0.0 && isfinite(w->nb.shell) : w->nb.shell == 0.0))
        return damaged(s, why, why_size, "header damaged");
    for (int a = 0; a < 3; a++)
        if (n[a] < 1 || n[a] > (1 << 20) || (a >= w->dim && n[a] != 1))
            return damaged(s, why, why_size, "grid shape damaged");
    if (world_reserve_bodies(w, count) != 0 ||
        cells_shape(&w->grid, w->dim, w->side, w->periodic, n) != 0 ||
        (w->nb.on && neighbours_reserve(&w->nb, w->capacity) != 0))
        return out_of_memory(s, why, why_size, "out of memory for %d bodies", (int)count);
    w->count = count;
    return read_bodies(s, w, why, why_size);
}

carom_status carom_world_restore(const void *buffer, size_t size, carom_event_callback on_event,
                                 void *user, carom_world **world, char *why, size_t why_size)
{
    return carom_world_restore_with(buffer, size, NULL, on_event, user, world, why, why_size);
}

carom_status carom_world_restore_with(const void *buffer, size_t size, const carom_allocator *allocator,
                                      carom_event_callback on_event, void *user, carom_world **world,
                                      char *why, size_t why_size)
{
    if (world) *world = NULL;
    if (!buffer || !world) return CAROM_INVALID_ARGUMENT;
    stream s = {NULL, buffer, size, 0, 0};
    carom_world_def def = carom_default_world_def();
    carom_status st = read_header(&s, &def, why, why_size);
    if (st != CAROM_OK) return st;
    def.on_event = on_event;
    def.user = user;
    if (allocator) def.allocator = *allocator;
    carom_world *w = NULL;
    if ((st = carom_world_create(&def, &w, why, why_size)) != CAROM_OK) return st;
    if ((st = read_world(&s, w, why, why_size)) == CAROM_OK && s.at != size)
        st = damaged(&s, why, why_size, "%zu bytes left over", size - s.at);
    if (st != CAROM_OK) {
        carom_world_destroy(w);
        return st;
    }
    *world = w;
    return CAROM_OK;
}
