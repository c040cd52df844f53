/* snapshot.c — the complete state of a world as bytes, and back.
 *
 * A restored world must continue bit for bit as the original would have, so
 * the snapshot holds exactly what the future depends on: each body's stored
 * state and time stamp (lazy updates mean these are not all at the clock),
 * its collision stamp, collision count and same-instant count, its scheduled
 * event and the event's calendar time, its cell, the grid's shape, the clock,
 * the events since the last memory re-sort (order.c: the restored world
 * re-sorts when the original would) and the measuring window, and with
 * neighbour lists the shell and each anchor (the lists follow from the
 * anchors). Bodies are written in id order and come back with slot = id:
 * every choice between equal times is made by id, so the layout never
 * changes a result.
 *
 * Format version 5, every number little-endian whatever the machine:
 *   magic "CAROMSNP", version (u32), byte-order tag 0x01020304 (u32), total
 *   length in bytes (u64), the header fields, the bodies, the sensor planes,
 *   and a CRC-32C of every byte before it (u32).
 * CRC-32C is the CRC of Castagnoli, Braeuer & Herrmann, IEEE Trans. Commun.
 * 41, 883 (1993), as specified for iSCSI in RFC 3720 (appendix B.4):
 * reflected polynomial 0x82F63B78, initial value and final xor 0xFFFFFFFF,
 * check value 0xE3069283 for "123456789". Like every CRC of 32 bits it
 * detects every error of up to 32 consecutive bits, so any flipped bit.
 *
 * A snapshot is untrusted input: the envelope (magic, version, tag, length,
 * checksum) is checked first, then every field against the invariants the
 * engine keeps (finite numbers, time stamps not after the clock, events not
 * before it, bodies in their cells, cells at least one diameter wide, a
 * bounded number of cells, consistent counts), and the sizes against the
 * bytes present before anything is allocated. A refusal names the field and
 * its byte offset.
 */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "motion.h"
#include "filter.h"
#include "schedule.h"
#include "settle.h"
#include "steering.h"
#include "world.h"

static const char snapshot_magic[8] = {'C', 'A', 'R', 'O', 'M', 'S', 'N', 'P'};
/* 2: bodies in id order with their cells; 3: neighbour lists; 4: little-endian
 * fields, total length, CRC-32C, collision counts, events since re-sorting,
 * the settling state (floors, Zeno series, TC model); 5: driven bodies (own
 * accelerations, kinematic masses), sensors, the work done from outside;
 * 6: the container (its tree of shapes, last before the checksum), steered
 * bodies (their filters and decisions, after the sensors); 7: rotation
 * (tangential restitutions and friction at the header's end, each body's
 * spin, orientation and inertia, the table of polygons after the steered
 * bodies) */
enum { SNAPSHOT_VERSION = 7 };
static const uint32_t byte_order_tag = 0x01020304u;

/* Bytes of the fixed parts (checked against what the writer writes). */
enum {
    HEADER_BYTES = 404,
    BODY_BYTES = 110,
    ANCHOR_BYTES = 12,
    FLOOR_BYTES = 49,    /* settle state, Zeno end and tolerance per axis */
    COLLAPSE_BYTES = 12, /* last pair collision time, last partner */
    DRIVE_BYTES = 24,    /* own acceleration */
    SENSED_BYTES = 12,   /* last sensor crossing: time, sensor */
    PLANE_BYTES = 60,    /* a sensor: axis, position, extents */
    NODE_BYTES = 113,    /* a container node: shape, children, centre, size, radius, capsule ends */
    VERTEX_BYTES = 16,   /* a polygon's vertex */
    STEERED_BYTES = 140, /* a steered body: id, filter, input, last decision, its hold, least clearance */
    SPIN_BYTES = 76,     /* angular velocity, orientation, its time, inertia, polygon */
    SHAPE_BYTES = 28,    /* a polygon's vertex count, area, second moment, bounding radius */
    SHAPE_VERTEX_BYTES = 32, /* a polygon's vertex and its edge's normal */
    MAX_CONTAINER_NODES = 1 << 16,
    CHECKSUM_BYTES = 4,
    LENGTH_AT = 16, /* where the total length is */
};

/* A grid before the first run may be sized by capacity_hint (world.c,
 * fit_grid_for): that many cells are accepted for hints up to this. */
static const int64_t hint_grid_limit = (int64_t)1 << 22;
/* Cells per axis, as cells.c makes at most. */
static const int32_t max_cells_per_axis = 1 << 20;

/* ---- CRC-32C ------------------------------------------------------------- */

uint32_t carom_crc32c(uint32_t crc, const void *data, size_t size)
{
    uint32_t table[256];
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = c & 1u ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[n] = c;
    }
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t k = 0; k < size; k++) crc = table[(crc ^ p[k]) & 0xffu] ^ (crc >> 8);
    return ~crc;
}

/* ---- sizes that cannot wrap ---------------------------------------------- */

/* a * b + c into *out, or -1 if it does not fit in size_t. */
static int size_mul_add(size_t a, size_t b, size_t c, size_t *out)
{
    if (b != 0 && a > (SIZE_MAX - c) / b) return -1;
    *out = a * b + c;
    return 0;
}

/* What a body record holds beyond the fixed part. */
typedef struct layout {
    int anchors, floors, collapse, driven;
    int32_t planes; /* sensors: each body has its last crossing when there are any */
    int32_t nodes, vertices; /* the container's */
    int32_t steered;
    int spin;                   /* rotation state: each body has its spin record */
    int32_t shapes, shape_vertices; /* the polygon table */
} layout;

static size_t body_bytes(layout l)
{
    return BODY_BYTES + (l.anchors ? ANCHOR_BYTES : 0) + (l.floors ? FLOOR_BYTES : 0) +
           (l.collapse ? COLLAPSE_BYTES : 0) + (l.driven ? DRIVE_BYTES : 0) + (l.planes > 0 ? SENSED_BYTES : 0) +
           (l.spin ? SPIN_BYTES : 0);
}

/* The snapshot's size for count bodies, or 0 if it does not fit in size_t. */
static size_t snapshot_bytes(int64_t count, layout l)
{
    size_t size, planes = (size_t)(l.planes > 0 ? l.planes : 0) * PLANE_BYTES;
    planes += (size_t)l.nodes * NODE_BYTES + (size_t)l.vertices * VERTEX_BYTES; /* all three bounded when read */
    planes += (size_t)l.steered * STEERED_BYTES;
    planes += (size_t)l.shapes * SHAPE_BYTES + (size_t)l.shape_vertices * SHAPE_VERTEX_BYTES; /* bounded when read */
    if (count < 0 || (uint64_t)count > SIZE_MAX ||
        size_mul_add((size_t)count, body_bytes(l), HEADER_BYTES + CHECKSUM_BYTES + planes, &size) != 0)
        return 0;
    return size;
}

/* Anchors are saved while the lists are in use; after bodies were added the
 * lists are rebuilt at the next run, so the anchors mean nothing. */
static int saves_anchors(int lists_on, int needs_rebuild) { return lists_on && !needs_rebuild; }

/* What the header says besides the def: the parts that change the layout. */
typedef struct layout_counts {
    int lists_on, needs_rebuild, driven;
    int32_t planes, steered;
    int spin;
    int32_t shapes, shape_vertices;
} layout_counts;

static layout layout_of(const carom_world_def *def, layout_counts k)
{
    const carom_container *c = def->container;
    return (layout){saves_anchors(k.lists_on, k.needs_rebuild), settle_def_has_floors(def),
                    settle_def_has_collapse(def), k.driven, k.planes, c ? c->node_count : 0, c ? c->edge_count : 0,
                    k.steered, k.spin, k.shapes, k.shape_vertices};
}

static int32_t shape_vertices_of(const spin *r)
{
    int32_t total = 0;
    for (int32_t k = 0; k < r->shape_count; k++) total += r->shapes[k].count;
    return total;
}

static layout world_layout(const carom_world *w)
{
    layout_counts k = {w->nb.on, w->needs_rebuild, w->drive.on, w->sense.count, w->steering.count,
                       w->spin.on, w->spin.shape_count, shape_vertices_of(&w->spin)};
    return layout_of(&w->def, k);
}

/* ---- little-endian fields ------------------------------------------------ */

typedef struct stream {
    unsigned char *out;      /* writing: destination (NULL: only count) */
    const unsigned char *in; /* reading: source */
    size_t size, at;
    int failed; /* reading past the end (the sizes are checked first: a bug) */
} stream;

static void put_uint(stream *s, uint64_t value, int bytes)
{
    if (s->out && s->at + (size_t)bytes <= s->size)
        for (int k = 0; k < bytes; k++)
            s->out[s->at + (size_t)k] = (unsigned char)(value >> (8 * k));
    s->at += (size_t)bytes;
}
static void put_u8(stream *s, uint8_t v) { put_uint(s, v, 1); }
static void put_u32(stream *s, uint32_t v) { put_uint(s, v, 4); }
static void put_i32(stream *s, int32_t v) { put_uint(s, (uint32_t)v, 4); }
static void put_u64(stream *s, uint64_t v) { put_uint(s, v, 8); }
static void put_i64(stream *s, int64_t v) { put_uint(s, (uint64_t)v, 8); }
static void put_f64(stream *s, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_uint(s, bits, 8);
}
static void put_f32(stream *s, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_uint(s, bits, 4);
}

static uint64_t get_uint(stream *s, int bytes)
{
    if (s->failed || (size_t)bytes > s->size - s->at) {
        s->failed = 1;
        return 0;
    }
    uint64_t value = 0;
    for (int k = 0; k < bytes; k++) value |= (uint64_t)s->in[s->at + (size_t)k] << (8 * k);
    s->at += (size_t)bytes;
    return value;
}
static uint8_t get_u8(stream *s) { return (uint8_t)get_uint(s, 1); }
static uint32_t get_u32(stream *s) { return (uint32_t)get_uint(s, 4); }
static int32_t get_i32(stream *s) { return (int32_t)(uint32_t)get_uint(s, 4); }
static uint64_t get_u64(stream *s) { return get_uint(s, 8); }
static int64_t get_i64(stream *s) { return (int64_t)get_uint(s, 8); }
static double get_f64(stream *s)
{
    uint64_t bits = get_uint(s, 8);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}
static float get_f32(stream *s)
{
    uint32_t bits = (uint32_t)get_uint(s, 4);
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* ---- writing ------------------------------------------------------------- */

static void put_vec(stream *s, carom_vec v)
{
    put_f64(s, v.x);
    put_f64(s, v.y);
    put_f64(s, v.z);
}

/* The fields of the world def that describe physics (not the callback). */
static void write_def(stream *s, const carom_world_def *def)
{
    put_i32(s, def->dim);
    put_vec(s, def->box);
    for (int a = 0; a < 3; a++) put_i32(s, (int32_t)def->boundary[a]);
    put_vec(s, def->gravity);
    put_f64(s, def->restitution);
    put_f64(s, def->wall_restitution);
    put_f64(s, def->elastic_below_speed);
    put_i32(s, def->max_collisions_per_instant);
    put_i32(s, def->capacity_hint);
    put_f64(s, def->neighbour_shell);
    put_f64(s, def->collapse_time);
}

static void write_measure(stream *s, const measure *m)
{
    put_i64(s, m->pair_events);
    put_i64(s, m->wall_events);
    put_i64(s, m->cell_events);
    put_i64(s, m->stale_events);
    put_f64(s, m->window_start);
    put_i64(s, m->window_pairs);
    put_f64(s, m->virial);
    put_f64(s, m->wall_impulse);
    put_f64(s, m->kinetic_integral);
    put_i64(s, m->rest_events);
}

/* Version 5's additions to the measures, after the header's older fields. */
static void write_driven_measure(stream *s, const measure *m)
{
    put_i64(s, m->sensor_events);
    put_i64(s, m->predictions);
    put_f64(s, m->control_work);
    put_f64(s, m->kinematic_work);
}

static void write_header(stream *s, const carom_world *w, size_t total)
{
    for (size_t k = 0; k < sizeof snapshot_magic; k++) put_u8(s, (uint8_t)snapshot_magic[k]);
    put_u32(s, SNAPSHOT_VERSION);
    put_u32(s, byte_order_tag);
    put_u64(s, total);
    write_def(s, &w->def);
    put_f64(s, w->clock);
    put_i32(s, w->count);
    put_f64(s, w->max_radius);
    put_i32(s, w->grid_bodies);
    put_i32(s, w->needs_rebuild);
    put_i64(s, w->events_since_order);
    write_measure(s, &w->meas);
    for (int a = 0; a < 3; a++) put_i32(s, w->grid.n[a]);
    put_i32(s, w->nb.on);
    put_f64(s, w->nb.shell);
    put_f64(s, w->rest.time_scale);
    put_i32(s, w->drive.on);
    put_i32(s, w->sense.count);
    write_driven_measure(s, &w->meas);
    put_i32(s, w->container ? w->container->dim : 0);
    put_i32(s, w->container ? w->container->node_count : 0);
    put_i32(s, w->container ? w->container->edge_count : 0);
    put_f64(s, w->container ? w->container_volume : 0.0);
    put_i32(s, w->steering.count);
    put_i64(s, w->steering.decisions);
    put_i64(s, w->steering.crossing_decisions);
    put_i32(s, w->steering.no_crossings);
    put_f64(s, w->def.tangential_restitution);
    put_f64(s, w->def.wall_tangential_restitution);
    put_f64(s, w->def.friction);
    put_i32(s, w->spin.on);
    put_i32(s, w->spin.shape_count);
    put_i32(s, shape_vertices_of(&w->spin));
}

/* The polygon table: each shape exactly as the world holds it (a restore
 * builds it again from its vertices to check it, and keeps these bits). */
static void write_shapes(stream *s, const carom_world *w)
{
    for (int32_t k = 0; k < w->spin.shape_count; k++) {
        const polygon_shape *p = &w->spin.shapes[k];
        put_i32(s, p->count);
        put_f64(s, p->area);
        put_f64(s, p->second_moment);
        put_f64(s, p->radius);
        for (int v = 0; v < p->count; v++) {
            put_f64(s, p->vertex[v][0]);
            put_f64(s, p->vertex[v][1]);
            put_f64(s, p->normal[v][0]);
            put_f64(s, p->normal[v][1]);
        }
    }
}

static void write_steering(stream *s, const carom_world *w)
{
    for (int32_t k = 0; k < w->steering.count; k++) {
        const steered_body *b = &w->steering.bodies[k];
        put_i32(s, b->id);
        put_i32(s, (int32_t)b->def.law);
        put_f64(s, b->def.max_acceleration);
        put_f64(s, b->def.safety);
        put_f64(s, b->def.window);
        for (int a = 0; a < 3; a++) put_f64(s, b->input[a]);
        put_vec(s, b->last.acceleration);
        put_f64(s, b->last.criticality);
        put_f64(s, b->last.speed_ratio);
        put_i32(s, b->last.acted);
        put_f64(s, b->hold_end);
        put_f64(s, b->crossing);
        put_i32(s, b->braking);
        put_i32(s, b->crossings_left);
        put_f64(s, b->least);
        put_f64(s, b->least_from);
    }
}

/* The container's nodes as their defs (children by index), then the
 * polygons' vertices: a restore builds it again with carom_container_create,
 * which checks everything, and compares the result with what was saved. */
static void write_container(stream *s, const carom_container *c)
{
    for (int32_t k = 0; k < c->node_count; k++) {
        const container_node *n = &c->nodes[k];
        put_u8(s, (uint8_t)n->shape);
        put_i32(s, n->first);
        put_i32(s, n->second);
        for (int a = 0; a < 3; a++) put_f64(s, n->centre[a]);
        for (int a = 0; a < 3; a++) put_f64(s, 2.0 * n->half[a]);
        put_f64(s, n->radius);
        for (int a = 0; a < 3; a++) put_f64(s, n->a[a]);
        for (int a = 0; a < 3; a++) put_f64(s, n->b[a]);
    }
    for (int32_t k = 0; k < c->edge_count; k++) {
        put_f64(s, c->edges[k].from[0]);
        put_f64(s, c->edges[k].from[1]);
    }
}

static void write_planes(stream *s, const carom_world *w)
{
    for (int32_t k = 0; k < w->sense.count; k++) {
        const sensor_plane *p = &w->sense.plane[k];
        put_i32(s, p->axis);
        put_f64(s, p->at);
        for (int a = 0; a < 3; a++) put_f64(s, p->lo[a]);
        for (int a = 0; a < 3; a++) put_f64(s, p->hi[a]);
    }
}

/* One body in id order, with its cell; a pair partner is saved as an id. */
static void write_body(stream *s, const carom_world *w, int32_t i)
{
    const body_hot *h = &w->hot[i];
    int scheduled = calendar_has(&w->cal, i);
    body_event e = *world_event(w, i);
    if (e.kind == EVENT_PAIR) e.partner = w->id_of[e.partner];
    for (int a = 0; a < 3; a++) put_f64(s, h->x[a]);
    for (int a = 0; a < 3; a++) put_f64(s, h->v[a]);
    put_f64(s, h->t);
    put_f64(s, h->radius);
    put_f64(s, world_mass(w, i));
    put_u32(s, world_stamp(w, i));
    put_u32(s, world_event(w, i)->instant);
    put_u64(s, world_collisions(w, i));
    put_i32(s, e.partner);
    put_u32(s, e.partner_counter);
    put_u8(s, e.kind);
    put_u8(s, (uint8_t)scheduled);
    put_f64(s, scheduled ? calendar_time(&w->cal, i) : 0.0);
    put_i32(s, world_cell(w, i));
    if (saves_anchors(w->nb.on, w->needs_rebuild))
        for (int a = 0; a < 3; a++) put_f32(s, w->nb.anchor[3 * i + a]);
    int32_t id = w->id_of[i];
    if (w->rest.state) {
        put_u8(s, w->rest.state[id]);
        for (int k = 0; k < 6; k++) put_f64(s, w->rest.zeno[6 * id + k]);
    }
    if (w->rest.last_partner) {
        put_f64(s, w->rest.last_pair_time[id]);
        put_i32(s, w->rest.last_partner[id]);
    }
    if (w->drive.on)
        for (int a = 0; a < 3; a++) put_f64(s, w->drive.own[3 * id + a]);
    if (w->sense.count > 0) {
        put_f64(s, w->sense.last[id].time);
        put_i32(s, w->sense.last[id].sensor);
    }
    if (w->spin.on) {
        const spin_state *r = &w->spin.state[i];
        for (int a = 0; a < 3; a++) put_f64(s, r->omega[a]);
        for (int a = 0; a < 4; a++) put_f64(s, r->orientation[a]);
        put_f64(s, r->since);
        put_f64(s, w->spin.inertia[i]);
        put_i32(s, w->spin.shape[i]);
    }
}

carom_status carom_world_snapshot(const carom_world *w, void *buffer, size_t size)
{
    if (!w || !buffer) return CAROM_INVALID_ARGUMENT;
    if (w->container && w->container->has_function)
        return world_fail((carom_world *)w, CAROM_INVALID_ARGUMENT,
                          "snapshot: the world's container has a caller's distance function, which a snapshot "
                          "cannot hold");
    size_t needed = carom_world_snapshot_size(w);
    if (needed == 0)
        return world_fail((carom_world *)w, CAROM_OUT_OF_MEMORY,
                          "snapshot: %d bodies do not fit in one buffer on this machine",
                          (int)w->count);
    if (size < needed)
        return world_fail((carom_world *)w, CAROM_INVALID_ARGUMENT,
                          "snapshot: buffer of %zu bytes, %zu needed", size, needed);
    stream s = {buffer, NULL, needed, 0, 0};
    write_header(&s, w, needed);
    for (int32_t id = 0; id < w->count; id++) write_body(&s, w, w->slot_of[id]);
    write_planes(&s, w);
    write_steering(&s, w);
    write_shapes(&s, w);
    if (w->container) write_container(&s, w->container);
    put_u32(&s, carom_crc32c(0, buffer, s.at));
    assert(s.at == needed && "the layout sizes in the enum match what is written");
    return CAROM_OK;
}

size_t carom_world_snapshot_size(const carom_world *w)
{
    return w ? snapshot_bytes(w->count, world_layout(w)) : 0;
}

/* ---- restoring: messages ------------------------------------------------- */

typedef struct refusal {
    char *why;
    size_t why_size;
} refusal;

static carom_status refuse(const refusal *r, size_t at, const char *field, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static carom_status refuse(const refusal *r, size_t at, const char *field, const char *format, ...)
{
    if (r->why && r->why_size > 0) {
        char detail[200];
        va_list args;
        va_start(args, format);
        vsnprintf(detail, sizeof detail, format, args);
        va_end(args);
        snprintf(r->why, r->why_size, "snapshot byte %zu (%s): %s", at, field, detail);
    }
    return CAROM_INVALID_ARGUMENT;
}

/* The same message for a snapshot that is sound but too large for the memory. */
#define out_of_memory(...) (refuse(__VA_ARGS__), CAROM_OUT_OF_MEMORY)

/* ---- restoring: the envelope --------------------------------------------- */

static carom_status check_envelope(const unsigned char *in, size_t size, const refusal *r)
{
    stream s = {NULL, in, size, 0, 0};
    if (size < sizeof snapshot_magic || memcmp(in, snapshot_magic, sizeof snapshot_magic) != 0)
        return refuse(r, 0, "magic", "not a carom snapshot (expected \"CAROMSNP\")");
    s.at = sizeof snapshot_magic;
    uint32_t version = get_u32(&s);
    if (s.failed) return refuse(r, 8, "format version", "the snapshot ends after %zu bytes", size);
    if (version != SNAPSHOT_VERSION)
        return refuse(r, 8, "format version",
                      "snapshot format version %u, this carom reads version %d", version,
                      SNAPSHOT_VERSION);
    uint32_t tag = get_u32(&s);
    uint64_t length = get_u64(&s);
    if (s.failed)
        return refuse(r, size, "total length",
                      "the snapshot ends after %zu bytes, inside its envelope", size);
    if (tag != byte_order_tag)
        return refuse(r, 12, "byte-order tag", "0x%08x, expected 0x%08x (little-endian)", tag,
                      byte_order_tag);
    if (length != size)
        return refuse(r, LENGTH_AT, "total length", "the snapshot says %llu bytes, %zu are present",
                      (unsigned long long)length, size);
    if (size < HEADER_BYTES + CHECKSUM_BYTES)
        return refuse(r, LENGTH_AT, "total length", "%zu bytes, a snapshot has at least %d", size,
                      HEADER_BYTES + CHECKSUM_BYTES);
    s.at = size - CHECKSUM_BYTES;
    uint32_t stored = get_u32(&s), computed = carom_crc32c(0, in, size - CHECKSUM_BYTES);
    if (stored != computed)
        return refuse(
            r, size - CHECKSUM_BYTES, "CRC-32C",
            "stored 0x%08x, computed 0x%08x over the bytes before it: the snapshot is damaged",
            stored, computed);
    return CAROM_OK;
}

/* ---- restoring: the header ----------------------------------------------- */

typedef struct header {
    carom_world_def def;
    double clock, max_radius, shell, time_scale;
    int32_t count, grid_bodies, needs_rebuild, lists_on, n[3], driven, planes;
    int32_t container_dim, nodes, vertices, steered, no_crossings, spin_on, shapes, shape_vertices;
    double container_volume;
    int64_t decisions, crossing_decisions;
    int64_t events_since_order;
    measure meas;
    size_t at_def, at_clock, at_count, at_max_radius, at_grid_bodies, at_rebuild, at_order, at_meas,
        at_grid, at_lists, at_time_scale, at_driven, at_planes, at_driven_meas, at_container, at_steering,
        at_rotation;
} header;

static layout header_layout(const header *h)
{
    layout_counts k = {h->lists_on, h->needs_rebuild, h->driven, h->planes, h->steered, h->spin_on, h->shapes,
                       h->shape_vertices};
    return layout_of(&h->def, k);
}

static carom_vec get_vec(stream *s)
{
    carom_vec v;
    v.x = get_f64(s);
    v.y = get_f64(s);
    v.z = get_f64(s);
    return v;
}

static void read_def(stream *s, carom_world_def *def)
{
    def->dim = get_i32(s);
    def->box = get_vec(s);
    for (int a = 0; a < 3; a++) def->boundary[a] = (carom_boundary)get_i32(s);
    def->gravity = get_vec(s);
    def->restitution = get_f64(s);
    def->wall_restitution = get_f64(s);
    def->elastic_below_speed = get_f64(s);
    def->max_collisions_per_instant = get_i32(s);
    def->capacity_hint = get_i32(s);
    def->neighbour_shell = get_f64(s);
    def->collapse_time = get_f64(s);
}

static void read_measure(stream *s, measure *m)
{
    m->pair_events = get_i64(s);
    m->wall_events = get_i64(s);
    m->cell_events = get_i64(s);
    m->stale_events = get_i64(s);
    m->window_start = get_f64(s);
    m->window_pairs = get_i64(s);
    m->virial = get_f64(s);
    m->wall_impulse = get_f64(s);
    m->kinetic_integral = get_f64(s);
    m->rest_events = get_i64(s);
}

static void read_header(stream *s, header *h)
{
    s->at = LENGTH_AT + 8;
    h->at_def = s->at;
    read_def(s, &h->def);
    h->at_clock = s->at;
    h->clock = get_f64(s);
    h->at_count = s->at;
    h->count = get_i32(s);
    h->at_max_radius = s->at;
    h->max_radius = get_f64(s);
    h->at_grid_bodies = s->at;
    h->grid_bodies = get_i32(s);
    h->at_rebuild = s->at;
    h->needs_rebuild = get_i32(s);
    h->at_order = s->at;
    h->events_since_order = get_i64(s);
    h->at_meas = s->at;
    read_measure(s, &h->meas);
    h->at_grid = s->at;
    for (int a = 0; a < 3; a++) h->n[a] = get_i32(s);
    h->at_lists = s->at;
    h->lists_on = get_i32(s);
    h->shell = get_f64(s);
    h->at_time_scale = s->at;
    h->time_scale = get_f64(s);
    h->at_driven = s->at;
    h->driven = get_i32(s);
    h->at_planes = s->at;
    h->planes = get_i32(s);
    h->at_driven_meas = s->at;
    h->meas.sensor_events = get_i64(s);
    h->meas.predictions = get_i64(s);
    h->meas.control_work = get_f64(s);
    h->meas.kinematic_work = get_f64(s);
    h->at_container = s->at;
    h->container_dim = get_i32(s);
    h->nodes = get_i32(s);
    h->vertices = get_i32(s);
    h->container_volume = get_f64(s);
    h->at_steering = s->at;
    h->steered = get_i32(s);
    h->decisions = get_i64(s);
    h->crossing_decisions = get_i64(s);
    h->no_crossings = get_i32(s);
    h->at_rotation = s->at;
    h->def.tangential_restitution = get_f64(s);
    h->def.wall_tangential_restitution = get_f64(s);
    h->def.friction = get_f64(s);
    h->spin_on = get_i32(s);
    h->shapes = get_i32(s);
    h->shape_vertices = get_i32(s);
}

static carom_status check_world_numbers(const header *h, const refusal *r)
{
    if (!(isfinite(h->clock) && h->clock >= 0.0))
        return refuse(r, h->at_clock, "clock", "%g: expected a finite time >= 0", h->clock);
    if (h->count < 0 || h->count == INT32_MAX)
        return refuse(r, h->at_count, "body count", "%d: expected 0 to %d", (int)h->count,
                      INT32_MAX - 1);
    if (!(isfinite(h->max_radius) && h->max_radius >= 0.0) ||
        (h->count == 0) != (h->max_radius == 0.0))
        return refuse(r, h->at_max_radius, "largest radius", "%g for %d bodies", h->max_radius,
                      (int)h->count);
    if (h->grid_bodies < 0 || h->grid_bodies > (int64_t)h->count + 1)
        return refuse(r, h->at_grid_bodies, "grid bodies", "%d: expected 0 to %d",
                      (int)h->grid_bodies, (int)h->count + 1);
    if (h->needs_rebuild != 0 && h->needs_rebuild != 1)
        return refuse(r, h->at_rebuild, "rebuild flag", "%d: expected 0 or 1",
                      (int)h->needs_rebuild);
    if (!(isfinite(h->time_scale) && h->time_scale >= 0.0))
        return refuse(r, h->at_time_scale, "time scale", "%g: expected a finite time >= 0", h->time_scale);
    if (h->events_since_order < 0)
        return refuse(r, h->at_order, "events since re-sorting", "%lld: expected a count >= 0",
                      (long long)h->events_since_order);
    return CAROM_OK;
}

static carom_status check_measure(const header *h, const refusal *r)
{
    const measure *m = &h->meas;
    int64_t counts[4] = {m->pair_events, m->wall_events, m->cell_events, m->stale_events};
    for (int k = 0; k < 4; k++)
        if (counts[k] < 0)
            return refuse(r, h->at_meas + 8 * (size_t)k, "event counts",
                          "%lld: expected a count >= 0", (long long)counts[k]);
    if (!(isfinite(m->window_start) && m->window_start >= 0.0 && m->window_start <= h->clock))
        return refuse(r, h->at_meas + 32, "measuring window start",
                      "%g: expected a time in [0, clock %g]", m->window_start, h->clock);
    if (m->window_pairs < 0 || m->window_pairs > m->pair_events)
        return refuse(r, h->at_meas + 40, "pairs in the window",
                      "%lld: expected 0 to the %lld pair events", (long long)m->window_pairs,
                      (long long)m->pair_events);
    if (!isfinite(m->virial) || !isfinite(m->wall_impulse))
        return refuse(r, h->at_meas + 48, "virial and wall impulse",
                      "%g, %g: expected finite numbers", m->virial, m->wall_impulse);
    if (m->rest_events < 0)
        return refuse(r, h->at_meas + 72, "rest events", "%lld: expected a count >= 0", (long long)m->rest_events);
    if (!(isfinite(m->kinetic_integral) && m->kinetic_integral >= 0.0))
        return refuse(r, h->at_meas + 64, "kinetic energy integral",
                      "%g: expected a finite number >= 0", m->kinetic_integral);
    if (m->sensor_events < 0 || m->predictions < 0)
        return refuse(r, h->at_driven_meas, "sensor events and predictions", "%lld, %lld: expected counts >= 0",
                      (long long)m->sensor_events, (long long)m->predictions);
    if (!isfinite(m->control_work) || !isfinite(m->kinematic_work))
        return refuse(r, h->at_driven_meas + 16, "work from outside", "%g, %g: expected finite numbers",
                      m->control_work, m->kinematic_work);
    return CAROM_OK;
}

static carom_status check_driven(const header *h, const refusal *r)
{
    if (h->driven != 0 && h->driven != 1)
        return refuse(r, h->at_driven, "driven bodies", "%d: expected 0 or 1", (int)h->driven);
    if (h->planes < 0 || h->planes == INT32_MAX)
        return refuse(r, h->at_planes, "sensors", "%d: expected a count >= 0", (int)h->planes);
    if (h->steered < 0 || h->steered > h->count || (h->steered > 0 && !h->driven))
        return refuse(r, h->at_steering, "steered bodies", "%d: expected 0 to the body count (%d), and driven "
                      "bodies on if any", (int)h->steered, (int)h->count);
    if (h->decisions < 0 || h->crossing_decisions < 0 || h->crossing_decisions > h->decisions ||
        (h->no_crossings != 0 && h->no_crossings != 1))
        return refuse(r, h->at_steering + 4, "filter decisions", "%lld, %lld, %d: expected counts >= 0, the "
                      "second at most the first, and a flag 0 or 1", (long long)h->decisions,
                      (long long)h->crossing_decisions, (int)h->no_crossings);
    return CAROM_OK;
}

static carom_status check_lists(const header *h, const refusal *r)
{
    if (h->lists_on != 0 && h->lists_on != 1)
        return refuse(r, h->at_lists, "neighbour lists", "%d: expected 0 or 1", (int)h->lists_on);
    if (h->lists_on ? !(h->shell > 0.0 && isfinite(h->shell)) : h->shell != 0.0)
        return refuse(r, h->at_lists + 4, "neighbour shell", "%g: expected %s", h->shell,
                      h->lists_on ? "a finite number > 0" : "0 without lists");
    if (h->lists_on && h->count >= NEIGHBOURS_MAX_SLOTS)
        return refuse(r, h->at_lists, "neighbour lists", "on for %d bodies, at most %d",
                      (int)h->count, NEIGHBOURS_MAX_SLOTS - 1);
    const double g[3] = {h->def.gravity.x, h->def.gravity.y, h->def.gravity.z};
    for (int a = 0; h->lists_on && a < h->def.dim && a < 3; a++)
        if (g[a] != 0.0) /* the engine never makes lists under gravity (neighbours_choose) */
            return refuse(r, h->at_lists, "neighbour lists", "on in a world with gravity");
    return CAROM_OK;
}

/* The most cells the engine makes for this header: schedule_rebuild asks for
 * at most 4 per body, adding bodies (before a rebuild) 4 per body or 2 per
 * hinted body; never fewer than 27. */
static int64_t cell_limit(const header *h)
{
    int64_t limit = 4 * ((int64_t)h->count + (h->needs_rebuild ? 1 : 0));
    int64_t hint = h->def.capacity_hint < hint_grid_limit ? h->def.capacity_hint : hint_grid_limit;
    if (h->needs_rebuild && 2 * hint > limit) limit = 2 * hint;
    return limit < 27 ? 27 : limit;
}

/* The header's grid cells are at least least_width wide on every axis in use. */
static carom_status check_cell_widths(const header *h, const double side[3], double least_width, const refusal *r)
{
    for (int a = 0; a < h->def.dim; a++)
        if (!(side[a] / h->n[a] >= least_width * (1.0 - 1e-12)))
            return refuse(r, h->at_grid + 4 * (size_t)a, "grid cells",
                          "%d cells on axis %d are %.17g wide, narrower than %.17g", (int)h->n[a], a,
                          side[a] / h->n[a], least_width);
    return CAROM_OK;
}

static carom_status check_grid(const header *h, const double side[3], const int periodic[3],
                               const refusal *r)
{
    const int32_t *n = h->n;
    if (n[0] == 0 && n[1] == 0 && n[2] == 0) { /* never set up: a world nothing was added to */
        if (h->count == 0) return CAROM_OK;
        return refuse(r, h->at_grid, "grid cells", "no grid for %d bodies", (int)h->count);
    }
    int64_t total = 1;
    for (int a = 0; a < 3; a++) {
        int32_t least = a < h->def.dim && periodic[a] ? 3 : 1,
                most = a < h->def.dim ? max_cells_per_axis : 1;
        if (n[a] < least || n[a] > most)
            return refuse(r, h->at_grid + 4 * (size_t)a, "grid cells",
                          "%d on axis %d: expected %d to %d", (int)n[a], a, (int)least, (int)most);
        total *= n[a];
    }
    if (total > cell_limit(h))
        return refuse(r, h->at_grid, "grid cells",
                      "%d x %d x %d = %lld cells for %d bodies: at most %lld", (int)n[0], (int)n[1],
                      (int)n[2], (long long)total, (int)h->count, (long long)cell_limit(h));
    /* cells at least one largest diameter wide; with lists in use, two
     * shells plus the largest diameter among the bodies that are not large
     * (checked once the bodies are read, check_list_grid), and a periodic
     * side room for three cells as wide as the largest diameter and two
     * shells (the large bodies' grid) */
    int lists = saves_anchors(h->lists_on, h->needs_rebuild);
    carom_status st = check_cell_widths(h, side, lists ? 2.0 * h->shell : 2.0 * h->max_radius, r);
    if (st != CAROM_OK) return st;
    for (int a = 0; a < h->def.dim; a++) {
        double large_width = 2.0 * h->max_radius + 2.0 * h->shell;
        if (lists && periodic[a] && !(side[a] / 3.0 >= large_width * (1.0 - 1e-12)))
            return refuse(r, h->at_lists + 4, "neighbour shell",
                          "%.17g: a periodic side of %.17g has no room for three cells %.17g wide", h->shell,
                          side[a], large_width);
    }
    return CAROM_OK;
}

/* With lists in use, the grid's cells must hold every pair of bodies that
 * are not large (neighbours.h) within their reach. */
static carom_status check_list_grid(const carom_world *w, const header *h, const refusal *r)
{
    if (!saves_anchors(w->nb.on, w->needs_rebuild)) return CAROM_OK;
    return check_cell_widths(h, w->side, 2.0 * neighbours_split_radius(w) + 2.0 * w->nb.shell, r);
}

/* Every header field against its invariants, and the bodies' size against
 * the bytes present: nothing has been allocated yet. */
/* The rotation fields (the def's coefficients are checked by carom_world_create). */
static carom_status check_rotation(const header *h, const refusal *r)
{
    int rough = h->def.tangential_restitution > -1.0 || h->def.wall_tangential_restitution > -1.0;
    if ((h->spin_on != 0 && h->spin_on != 1) || (rough && !h->spin_on))
        return refuse(r, h->at_rotation + 24, "rotation", "%d: expected 0 or 1, and 1 in a rough world", (int)h->spin_on);
    if (h->shapes < 0 || h->shapes > h->count || (h->shapes > 0 && (!h->spin_on || h->def.dim != 2)))
        return refuse(r, h->at_rotation + 28, "polygons", "%d: expected 0 to the body count (%d), and none but in "
                      "a 2D world with rotation on", (int)h->shapes, (int)h->count);
    if (h->shape_vertices < 3 * (int64_t)h->shapes || h->shape_vertices > POLYGON_MAX_VERTICES * (int64_t)h->shapes)
        return refuse(r, h->at_rotation + 32, "polygon vertices", "%d for %d polygons: expected 3 to %d each",
                      (int)h->shape_vertices, (int)h->shapes, POLYGON_MAX_VERTICES);
    return CAROM_OK;
}

static carom_status check_header(const header *h, size_t size, const refusal *r)
{
    carom_status st = check_world_numbers(h, r);
    if (st == CAROM_OK) st = check_measure(h, r);
    if (st == CAROM_OK) st = check_lists(h, r);
    if (st == CAROM_OK) st = check_driven(h, r);
    if (st == CAROM_OK) st = check_rotation(h, r);
    if (st != CAROM_OK) return st;
    layout l = header_layout(h);
    size_t expected = snapshot_bytes(h->count, l);
    if (expected != size)
        return refuse(r, h->at_count, "body count",
                      "%d bodies of %zu bytes make a snapshot of %zu bytes, but it has %zu",
                      (int)h->count, body_bytes(l), expected, size);
    return CAROM_OK;
}

/* ---- restoring: the container -------------------------------------------- */

/* One node's saved record, as a def (composites' parts from built). */
typedef struct saved_node {
    carom_shape shape;
    int32_t first, second;
    double centre[3], size[3], radius, a[3], b[3];
} saved_node;

static void read_node(stream *s, saved_node *n)
{
    n->shape = (carom_shape)get_u8(s);
    n->first = get_i32(s);
    n->second = get_i32(s);
    for (int a = 0; a < 3; a++) n->centre[a] = get_f64(s);
    for (int a = 0; a < 3; a++) n->size[a] = get_f64(s);
    n->radius = get_f64(s);
    for (int a = 0; a < 3; a++) n->a[a] = get_f64(s);
    for (int a = 0; a < 3; a++) n->b[a] = get_f64(s);
}

static carom_vec vec_of(const double v[3]) { return (carom_vec){v[0], v[1], v[2]}; }

/* Builds node k from its record; its parts (earlier nodes) are built. */
static carom_status build_node(const header *h, const saved_node *n, int32_t k, carom_container **built,
                               const carom_vec *vertices, size_t at, const refusal *r)
{
    carom_container_def def = carom_default_container_def();
    def.shape = n->shape, def.dim = h->container_dim;
    def.centre = vec_of(n->centre), def.size = vec_of(n->size), def.radius = n->radius;
    def.a = vec_of(n->a), def.b = vec_of(n->b);
    int composite = n->shape == CAROM_SHAPE_UNION || n->shape == CAROM_SHAPE_INTERSECTION ||
                    n->shape == CAROM_SHAPE_DIFFERENCE;
    if (n->shape < CAROM_SHAPE_BOX || n->shape >= CAROM_SHAPE_FUNCTION)
        return refuse(r, at, "container node", "node %d: shape %d: expected one of carom's shapes", (int)k,
                      (int)n->shape);
    if (composite && !(n->first >= 0 && n->first < k && n->second >= 0 && n->second < k))
        return refuse(r, at, "container node", "node %d: parts %d and %d: expected earlier nodes", (int)k,
                      (int)n->first, (int)n->second);
    if (n->shape == CAROM_SHAPE_POLYGON &&
        !(n->first >= 0 && n->second >= 3 && n->first <= h->vertices - n->second))
        return refuse(r, at, "container node", "node %d: %d vertices from vertex %d, of %d saved", (int)k,
                      (int)n->second, (int)n->first, (int)h->vertices);
    if (composite) def.first = built[n->first], def.second = built[n->second];
    if (n->shape == CAROM_SHAPE_POLYGON) def.vertices = vertices + n->first, def.vertex_count = n->second;
    char why[200] = "";
    carom_status st = carom_container_create(&def, &built[k], why, sizeof why);
    if (st == CAROM_OUT_OF_MEMORY) return out_of_memory(r, at, "container node", "%s", why);
    if (st != CAROM_OK) return refuse(r, at, "container node", "node %d: %s", (int)k, why);
    return CAROM_OK;
}

/* Does the built tree hold exactly the saved records? (A forged tree can
 * name its parts in an order creation would not have made.) */
static int same_tree(const carom_container *c, const saved_node *saved, const carom_vec *vertices, int32_t count)
{
    if (c->node_count != count) return 0;
    for (int32_t k = 0; k < count; k++) {
        const container_node *n = &c->nodes[k];
        const saved_node *m = &saved[k];
        if (n->shape != m->shape || n->first != m->first || n->second != m->second || n->radius != m->radius)
            return 0;
        for (int a = 0; a < 3; a++)
            if (n->centre[a] != m->centre[a] || 2.0 * n->half[a] != m->size[a] || n->a[a] != m->a[a] ||
                n->b[a] != m->b[a])
                return 0;
    }
    for (int32_t k = 0; k < c->edge_count; k++)
        if (c->edges[k].from[0] != vertices[k].x || c->edges[k].from[1] != vertices[k].y) return 0;
    return 1;
}

static void free_built(carom_container **built, int32_t count, int32_t keep)
{
    for (int32_t k = 0; k < count; k++)
        if (k != keep) carom_container_destroy(built[k]);
}

/* The container saved last before the checksum, built again into *out (NULL
 * if the world has none). Nothing else of the snapshot is needed for it. */
static carom_status read_container(const unsigned char *in, size_t size, const header *h, const refusal *r,
                                   carom_container **out)
{
    *out = NULL;
    if (h->nodes == 0 && h->vertices == 0 && h->container_dim == 0) return CAROM_OK;
    if (h->container_dim != h->def.dim || h->nodes < 1 || h->nodes > MAX_CONTAINER_NODES || h->vertices < 0 ||
        h->vertices > MAX_CONTAINER_NODES)
        return refuse(r, h->at_container, "container", "dimension %d, %d nodes, %d vertices: expected the world's "
                      "dimension, 1 to %d nodes and 0 to %d vertices", (int)h->container_dim, (int)h->nodes,
                      (int)h->vertices, MAX_CONTAINER_NODES, MAX_CONTAINER_NODES);
    size_t bytes = (size_t)h->nodes * NODE_BYTES + (size_t)h->vertices * VERTEX_BYTES;
    if (bytes > size - HEADER_BYTES - CHECKSUM_BYTES)
        return refuse(r, h->at_container, "container", "%zu bytes of container in a snapshot of %zu", bytes, size);
    stream s = {NULL, in, size - CHECKSUM_BYTES, size - CHECKSUM_BYTES - bytes, 0};
    saved_node *saved = calloc((size_t)h->nodes, sizeof *saved);
    carom_vec *vertices = calloc((size_t)h->vertices + 1, sizeof *vertices);
    carom_container **built = calloc((size_t)h->nodes, sizeof *built);
    carom_status st = saved && vertices && built ? CAROM_OK
                                                  : out_of_memory(r, h->at_container, "container", "out of memory");
    size_t first_node = s.at;
    for (int32_t k = 0; st == CAROM_OK && k < h->nodes; k++) read_node(&s, &saved[k]);
    for (int32_t k = 0; st == CAROM_OK && k < h->vertices; k++) {
        vertices[k].x = get_f64(&s); /* one statement each: the order of reading is the order of the bytes */
        vertices[k].y = get_f64(&s);
    }
    for (int32_t k = 0; st == CAROM_OK && k < h->nodes; k++)
        st = build_node(h, &saved[k], k, built, vertices, first_node + (size_t)k * NODE_BYTES, r);
    if (st == CAROM_OK && !same_tree(built[h->nodes - 1], saved, vertices, h->nodes))
        st = refuse(r, first_node, "container", "the saved nodes do not form the tree they name");
    if (st == CAROM_OK) *out = built[h->nodes - 1];
    if (built) free_built(built, h->nodes, st == CAROM_OK ? h->nodes - 1 : -1);
    free(saved);
    free(vertices);
    free(built);
    return st;
}

/* ---- restoring: the bodies ----------------------------------------------- */

static int valid_event(const carom_world *w, const body_event *e, int32_t self)
{
    int face_ok = e->partner >= 0 && e->partner < 2 * w->dim && e->partner_counter == 0;
    switch (e->kind) {
    case EVENT_NONE:
        return e->partner == -1 && e->partner_counter == 0;
    case EVENT_PAIR:
        return e->partner >= 0 && e->partner < w->count && e->partner != self;
    case EVENT_WALL:
        if (w->container) return e->partner == CAROM_WALL_CONTAINER && e->partner_counter == 0;
        return face_ok && !w->periodic[e->partner / 2];
    case EVENT_CELL:
        return face_ok && !w->nb.on;
    case EVENT_SHELL:
        return w->nb.on && e->partner == 0 && e->partner_counter == 0;
    case EVENT_REST:
        return face_ok && w->rest.state && w->rest.floor_side[e->partner / 2] == (e->partner % 2 ? 1 : -1);
    case EVENT_SENSOR:
        return e->partner >= 0 && e->partner < w->sense.count && e->partner_counter <= 1;
    case EVENT_FILTER:
        return steering_find(w, w->id_of[self]) != NULL && e->partner == 0 && e->partner_counter == 0;
    case EVENT_RECHECK:
        return w->container && e->partner == CAROM_WALL_CONTAINER && e->partner_counter == 0;
    default:
        return 0;
    }
}

/* Where each field of a body record starts. */
enum {
    AT_X = 0,
    AT_V = 24,
    AT_T = 48,
    AT_RADIUS = 56,
    AT_MASS = 64,
    AT_COUNTER = 72,
    AT_INSTANT = 76,
    AT_COLLISIONS = 80,
    AT_EVENT = 88,
    AT_SCHEDULED = 97,
    AT_TIME = 98,
    AT_CELL = 106,
    AT_ANCHOR = 110
};

static carom_status check_motion(const carom_world *w, const body_hot *b, size_t at, int32_t id,
                                 const refusal *r)
{
    for (int a = 0; a < 3; a++) {
        int inactive = a >= w->dim;
        if (!isfinite(b->x[a]) || (inactive && b->x[a] != 0.0))
            return refuse(r, at + AT_X + 8 * (size_t)a, "position", "body %d: %g on axis %d",
                          (int)id, b->x[a], a);
        if (!isfinite(b->v[a]) || !world_in_scale(b->v[a]) || (inactive && b->v[a] != 0.0))
            return refuse(r, at + AT_V + 8 * (size_t)a, "velocity", "body %d: %g on axis %d",
                          (int)id, b->v[a], a);
    }
    if (!(b->t >= 0.0 && b->t <= w->clock))
        return refuse(r, at + AT_T, "time stamp",
                      "body %d: %.17g, expected a time in [0, clock %.17g]", (int)id, b->t,
                      w->clock);
    if (!(b->radius > 0.0 && b->radius <= w->max_radius && world_in_scale(b->radius)))
        return refuse(r, at + AT_RADIUS, "radius",
                      "body %d: %g, expected > 0 and at most the largest radius %g", (int)id,
                      b->radius, w->max_radius);
    /* between the walls; on a periodic axis at most half a box outside it
     * (a body leaves the box by at most its shell before it is wrapped) */
    for (int a = 0; a < w->dim; a++) {
        double reach = w->periodic[a] ? w->side[a] : w->half[a] - b->radius + 1e-9 * w->side[a];
        if (!(fabs(b->x[a]) <= reach))
            return refuse(
                r, at + AT_X + 8 * (size_t)a, "position",
                "body %d: %.17g on axis %d is outside the box (at most %.17g from its centre)",
                (int)id, b->x[a], a, reach);
    }
    return CAROM_OK;
}

/* Whether x lies in cell, or within reach (round-off, or a shell) of its
 * faces, or is clamped into it (cells_locate files bodies just outside the
 * box in the edge cells). */
static int in_cell(const cells *grid, int32_t cell, const double x[3], double reach)
{
    if (cells_locate(grid, x) == cell) return 1;
    double lo[3], hi[3];
    cells_bounds(grid, cell, lo, hi);
    for (int a = 0; a < 3; a++) {
        double slack = 1e-9 * grid->side[a] + reach;
        if (!(x[a] >= lo[a] - slack && x[a] <= hi[a] + slack)) return 0;
    }
    return 1;
}

/* A body is filed by its anchor when lists are in use; otherwise by where it
 * is at its time stamp, or (bodies added since the last run) at the clock.
 * Bodies added to a world with lists leave the others filed by anchors that
 * are not saved (the lists are rebuilt at the next run): each is within a
 * shell of its position. */
static carom_status check_cell(const carom_world *w, int32_t i, int32_t cell, size_t at,
                               const refusal *r)
{
    if (cell < 0 || cell >= w->grid.total)
        return refuse(r, at + AT_CELL, "cell", "body %d: cell %d, the grid has %d", (int)i,
                      (int)cell, (int)w->grid.total);
    const body_hot *b = &w->hot[i];
    int placed;
    if (saves_anchors(w->nb.on, w->needs_rebuild)) {
        double anchor[3], gap2 = 0.0;
        for (int a = 0; a < 3; a++) {
            anchor[a] = w->nb.anchor[3 * i + a];
            if (!isfinite(anchor[a]) || (a >= w->dim && anchor[a] != 0.0))
                return refuse(r, at + AT_ANCHOR + 4 * (size_t)a, "anchor", "body %d: %g on axis %d",
                              (int)i, anchor[a], a);
            gap2 += (b->x[a] - anchor[a]) * (b->x[a] - anchor[a]);
        }
        if (!(sqrt(gap2) <= 1.01 * w->nb.shell))
            return refuse(r, at + AT_ANCHOR, "anchor",
                          "body %d is %g from its anchor, beyond the shell %g", (int)i, sqrt(gap2),
                          w->nb.shell);
        placed = cells_locate(&w->grid, anchor) == cell;
    } else {
        placed = in_cell(&w->grid, cell, b->x, w->nb.on ? 1.01 * w->nb.shell : 0.0);
        if (!placed && w->needs_rebuild) {
            double x[3], v[3];
            motion_state_at(b, motion_gravity(w, i), w->has_gravity, w->clock, x, v);
            placed = cells_locate(&w->grid, x) == cell;
        }
    }
    if (!placed)
        return refuse(r, at + AT_CELL, "cell", "body %d at (%g, %g, %g) is not in its cell %d",
                      (int)i, b->x[0], b->x[1], b->x[2], (int)cell);
    return CAROM_OK;
}

static carom_status check_event(const carom_world *w, int32_t i, int scheduled, double time,
                                size_t at, const refusal *r)
{
    const body_event *e = world_event(w, i);
    if (!valid_event(w, e, i))
        return refuse(r, at + AT_EVENT, "event", "body %d: kind %d with partner %d (stamp %u) is not an event",
                      (int)i, (int)e->kind, (int)e->partner, e->partner_counter);
    if (scheduled != 0 && scheduled != 1)
        return refuse(r, at + AT_SCHEDULED, "scheduled", "body %d: %d, expected 0 or 1", (int)i,
                      scheduled);
    if (!scheduled && (time != 0.0 || !w->needs_rebuild))
        return refuse(r, at + AT_SCHEDULED, "scheduled", "body %d has no event in a running world",
                      (int)i);
    if (scheduled && !(time >= w->clock))
        return refuse(r, at + AT_TIME, "event time",
                      "body %d: %.17g, expected a time not before the clock %.17g", (int)i, time,
                      w->clock);
    return CAROM_OK;
}

/* Body i's settling state (arrays by id; restored bodies have id = slot). */
static void read_settle(stream *s, carom_world *w, int32_t i)
{
    if (w->rest.state) {
        w->rest.state[i] = get_u8(s);
        for (int k = 0; k < 6; k++) w->rest.zeno[6 * i + k] = get_f64(s);
    }
    if (w->rest.last_partner) {
        w->rest.last_pair_time[i] = get_f64(s);
        w->rest.last_partner[i] = get_i32(s);
    }
}

/* Resting or finishing only on a floor; a resting body exactly on it with no
 * normal velocity (as settle_rest leaves it, and free flight keeps it); a
 * finishing series ending within its tolerance after the body's time stamp
 * (its last bounce was at most then); a series end not before 0 (or none), a
 * tolerance >= 0; a last collision not after the clock; a last partner that
 * exists and is not the body. Anything else would let it sink through its
 * floor. */
static carom_status check_settle(const carom_world *w, int32_t i, size_t at, const refusal *r)
{
    const settle *st = &w->rest;
    if (st->state) {
        int state = st->state[i];
        for (int a = 0; a < 3; a++) {
            int used = (state >> a) & (SETTLE_RESTING | SETTLE_FINISHING);
            if (used && !st->floor_side[a])
                return refuse(r, at, "settle state", "body %d: 0x%02x rests on axis %d, which has no floor", (int)i,
                              state, a);
            const body_hot *b = &w->hot[i];
            if (((state >> a) & SETTLE_RESTING) &&
                !(b->v[a] == 0.0 && b->x[a] == st->floor_side[a] * (w->half[a] - b->radius)))
                return refuse(r, at, "settle state", "body %d rests on axis %d but is at %g moving at %g", (int)i, a,
                              b->x[a], b->v[a]);
            double end = st->zeno[6 * i + a], tolerance = st->zeno[6 * i + 3 + a];
            /* settle_after_wall's tolerance, from a first bounce at some time in [0, end] */
            double widest = isfinite(end) ? 1e-10 * end : 0.0;
            if (!(tolerance <= widest))
                return refuse(r, at + 1 + 8 * (size_t)(3 + a), "Zeno series",
                              "body %d: tolerance %g on axis %d, more than a series ending at %g can have", (int)i,
                              tolerance, a, end);
            if (((state >> a) & SETTLE_FINISHING) && !(end >= b->t - tolerance && end - b->t <= tolerance))
                return refuse(r, at + 1 + 8 * (size_t)a, "Zeno series",
                              "body %d: its series on axis %d ends at %.17g, not within %g after its time stamp %.17g",
                              (int)i, a, end, tolerance, b->t);
            if (!((isinf(end) && end > 0.0) || (isfinite(end) && end >= 0.0)) ||
                !(isfinite(tolerance) && tolerance >= 0.0) || (((state >> a) & SETTLE_FINISHING) && !isfinite(end)))
                return refuse(r, at + 1 + 8 * (size_t)a, "Zeno series",
                              "body %d: end %g, tolerance %g on axis %d", (int)i, end, tolerance, a);
        }
        if (state >> 6) return refuse(r, at, "settle state", "body %d: 0x%02x has unknown bits", (int)i, state);
        at += FLOOR_BYTES;
    }
    if (st->last_partner) {
        double last = st->last_pair_time[i];
        int32_t partner = st->last_partner[i];
        if (!((isinf(last) && last < 0.0) || (isfinite(last) && last <= w->clock)))
            return refuse(r, at, "last pair collision", "body %d: %g, expected a time not after the clock %g",
                          (int)i, last, w->clock);
        if (partner < -1 || partner >= w->count || partner == i)
            return refuse(r, at + 8, "last partner", "body %d: %d, expected -1 or another body", (int)i,
                          (int)partner);
    }
    return CAROM_OK;
}

/* Body i's own acceleration and last sensor crossing, where the world keeps them. */
static void read_driven(stream *s, carom_world *w, int32_t i)
{
    if (w->drive.on)
        for (int a = 0; a < 3; a++) w->drive.own[3 * i + a] = get_f64(s);
    if (w->sense.count > 0) {
        w->sense.last[i].time = get_f64(s);
        w->sense.last[i].sensor = get_i32(s);
    }
}

static carom_status check_driven_body(const carom_world *w, int32_t i, size_t at, const refusal *r)
{
    if (w->drive.on) {
        for (int a = 0; a < 3; a++) {
            double g = w->drive.own[3 * i + a];
            if (!isfinite(g) || !world_in_scale(g) || (a >= w->dim && g != 0.0))
                return refuse(r, at + 8 * (size_t)a, "own acceleration", "body %d: %g on axis %d", (int)i, g, a);
        }
        at += DRIVE_BYTES;
    }
    if (w->sense.count > 0) {
        sensor_mark last = w->sense.last[i];
        int none = isinf(last.time) && last.time < 0.0 && last.sensor == -1;
        if (!none && !(isfinite(last.time) && last.time <= w->clock && last.sensor >= 0 &&
                       last.sensor < w->sense.count))
            return refuse(r, at, "last sensor crossing",
                          "body %d: sensor %d at %g, expected none (-inf, -1) or a sensor at a time not after the "
                          "clock %g", (int)i, (int)last.sensor, last.time, w->clock);
    }
    return CAROM_OK;
}

/* Body i's rotation record, where the world keeps one. */
static void read_spin(stream *s, carom_world *w, int32_t i)
{
    spin *p = &w->spin;
    if (!p->on) return;
    spin_state *r = &p->state[i];
    for (int a = 0; a < 3; a++) r->omega[a] = get_f64(s);
    for (int a = 0; a < 4; a++) r->orientation[a] = get_f64(s);
    r->since = get_f64(s);
    p->inertia[i] = get_f64(s);
    p->shape[i] = get_i32(s);
}

static carom_status check_orientation(const carom_world *w, int32_t i, size_t at, const refusal *r)
{
    const double *q = w->spin.state[i].orientation;
    if (w->dim == 2) {
        if (!(isfinite(q[0]) && fabs(q[0]) <= 1e15) || q[1] != 0.0 || q[2] != 0.0 || q[3] != 0.0)
            return refuse(r, at + 24, "orientation", "body %d: angle %g (%g, %g, %g): expected a finite angle "
                          "(|angle| <= 1e15) and zeros", (int)i, q[0], q[1], q[2], q[3]);
        return CAROM_OK;
    }
    double norm2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(fabs(norm2 - 1.0) <= 1e-12))
        return refuse(r, at + 24, "orientation", "body %d: (%g, %g, %g, %g): expected a unit quaternion", (int)i,
                      q[0], q[1], q[2], q[3]);
    return CAROM_OK;
}

static carom_status check_spin_body(carom_world *w, int32_t i, size_t at, const refusal *r)
{
    spin *p = &w->spin;
    if (!p->on) return CAROM_OK;
    for (int a = 0; a < 3; a++) {
        double o = p->state[i].omega[a];
        if (!isfinite(o) || !world_in_scale(o) || (w->dim == 2 && a < 2 && o != 0.0))
            return refuse(r, at + 8 * (size_t)a, "angular velocity", "body %d: %g on axis %d", (int)i, o, a);
    }
    carom_status st = check_orientation(w, i, at, r);
    if (st != CAROM_OK) return st;
    double since = p->state[i].since;
    if (!(isfinite(since) && since <= w->clock))
        return refuse(r, at + 56, "orientation time", "body %d: %g: expected a time not after the clock %.17g",
                      (int)i, since, w->clock);
    double inertia = p->inertia[i];
    int kinematic = drive_is_kinematic(world_mass(w, i));
    if (!(inertia == INFINITY || (!kinematic && world_mass_in_range(inertia))))
        return refuse(r, at + 64, "inertia", "body %d: %g: expected a number from 1e-100 to 1e100 or infinity "
                      "(infinity for a kinematic body)", (int)i, inertia);
    int32_t shape = p->shape[i];
    if (shape < -1 || shape >= p->shape_count ||
        (shape >= 0 && w->hot[i].radius != p->shapes[shape].radius))
        return refuse(r, at + 72, "polygon", "body %d: %d: expected -1 (a disk) or a polygon below %d whose "
                      "bounding radius is the body's", (int)i, (int)shape, (int)p->shape_count);
    p->polygons += shape >= 0;
    return CAROM_OK;
}

static carom_status read_body(stream *s, carom_world *w, int32_t i, const refusal *r)
{
    size_t at = s->at;
    body_hot *b = &w->hot[i];
    for (int a = 0; a < 3; a++) b->x[a] = get_f64(s);
    for (int a = 0; a < 3; a++) b->v[a] = get_f64(s);
    b->t = get_f64(s);
    b->radius = get_f64(s);
    if (world_set_mass(w, i, get_f64(s), i == 0) != 0)
        return out_of_memory(r, at + AT_MASS, "mass", "body %d: out of memory for a mass per body", (int)i);
    uint32_t stamp = get_u32(s);
    uint32_t instant = get_u32(s); /* checked below, before it is filed in 24 bits */
    uint64_t collisions = get_u64(s); /* slot i is id i */
    if (carries_set(&w->carried, i, (uint32_t)(collisions >> 32)) != 0)
        return out_of_memory(r, at + AT_COLLISIONS, "collisions", "body %d: out of memory for its collision count",
                             (int)i);
    w->collisions[i] = (uint32_t)collisions;
    /* a stamp that is not the collision count: the world had stamps of its own */
    if (stamp != w->collisions[i] && world_own_stamps(w, i) != 0)
        return out_of_memory(r, at + AT_COUNTER, "counter", "body %d: out of memory for the bodies' stamps", (int)i);
    if (w->own_stamps) w->counter[i] = stamp;
    world_event(w, i)->partner = get_i32(s);
    world_event(w, i)->partner_counter = get_u32(s);
    world_event(w, i)->kind = get_u8(s);
    int scheduled = get_u8(s);
    double time = get_f64(s);
    int32_t cell = get_i32(s);
    if (saves_anchors(w->nb.on, w->needs_rebuild))
        for (int a = 0; a < 3; a++) w->nb.anchor[3 * i + a] = get_f32(s);
    size_t at_settle = s->at;
    read_settle(s, w, i);
    size_t at_driven = s->at;
    read_driven(s, w, i);
    size_t at_spin = s->at;
    read_spin(s, w, i);
    if (s->failed) return refuse(r, at, "body", "body %d: the snapshot ends inside it", (int)i);
    carom_status st = check_settle(w, i, at_settle, r);
    if (st == CAROM_OK) st = check_driven_body(w, i, at_driven, r);
    if (st == CAROM_OK) st = check_spin_body(w, i, at_spin, r);
    if (st != CAROM_OK) return st;
    st = check_motion(w, b, at, i, r);
    if (st != CAROM_OK) return st;
    if (!world_mass_in_range(world_mass(w, i)) && !(w->drive.on && drive_is_kinematic(world_mass(w, i))))
        return refuse(r, at + AT_MASS, "mass",
                      "body %d: %g, expected a number from 1e-100 to 1e100 (or infinity in a world with driven bodies)",
                      (int)i, world_mass(w, i));
    w->id_of[i] = w->slot_of[i] = i;
    if (w->drive.on) {
        drive_new_body(w, i, &w->drive.own[3 * i]);
        w->drive.kinematic += drive_is_kinematic(world_mass(w, i));
    }
    if (instant > (uint32_t)w->def.max_collisions_per_instant)
        return refuse(r, at + AT_INSTANT, "events this instant",
                      "body %d: %u, more than the jam limit %d", (int)i, instant,
                      (int)w->def.max_collisions_per_instant);
    world_event(w, i)->instant = instant;
    if ((st = check_event(w, i, scheduled, time, at, r)) != CAROM_OK) return st;
    if (w->grid.total > 0 && (st = check_cell(w, i, cell, at, r)) != CAROM_OK) return st;
    w->grid.cell[i] = cell; /* filed in its list below */
    if (scheduled) calendar_set(&w->cal, i, time);
    return CAROM_OK;
}

/* What follows from all bodies together. */
static carom_status check_totals(const carom_world *w, const header *h, const refusal *r)
{
    double largest = 0.0;
    uint64_t collisions = 0;
    for (int32_t i = 0; i < w->count; i++) {
        if (w->hot[i].radius > largest) largest = w->hot[i].radius;
        collisions += world_collisions(w, i);
    }
    if (largest != w->max_radius)
        return refuse(r, h->at_max_radius, "largest radius",
                      "%.17g, but the largest body radius is %.17g", w->max_radius, largest);
    uint64_t expected = 2 * (uint64_t)w->meas.pair_events + (uint64_t)w->meas.wall_events;
    if (collisions != expected)
        return refuse(
            r, h->at_meas, "event counts",
            "the bodies took part in %llu collisions, 2 x %lld pair + %lld wall events make %llu",
            (unsigned long long)collisions, (long long)w->meas.pair_events,
            (long long)w->meas.wall_events, (unsigned long long)expected);
    return CAROM_OK;
}

static carom_status read_bodies(stream *s, carom_world *w, const header *h, const refusal *r)
{
    for (int32_t i = 0; i < w->count; i++) {
        carom_status st = read_body(s, w, i, r);
        if (st != CAROM_OK) return st;
    }
    carom_status st = check_totals(w, h, r);
    if (st != CAROM_OK) return st;
    if (w->grid.total == 0) return CAROM_OK;
    for (int32_t i = w->count - 1; i >= 0; i--) { /* each list ascending */
        int32_t cell = w->grid.cell[i];
        w->grid.cell[i] = -1;
        cells_insert(&w->grid, i, cell);
    }
    return CAROM_OK;
}

/* A body's own next wall, cell or shell exit, recomputed from its stored
 * state by the same code that first predicted it (so to the bit), is not
 * before the clock (it would have been processed: a body whose own event is
 * past has gone through a wall or out of its cell unseen), and its scheduled
 * event is no later than those and the end of a finishing Zeno series (which
 * may fall a hair before the clock by round-off, and is checked against the
 * time stamp in check_settle).
 * Body i's record is at HEADER_BYTES + i * its size. */
/* A scheduled sensor crossing is the body's next one, recomputed to the bit;
 * any other event is no later than that crossing. */
static carom_status check_sensor_event(const carom_world *w, int32_t i, double scheduled, size_t at,
                                       const refusal *r)
{
    int32_t sensor;
    int upwards;
    double next = fmax(sensor_next_crossing(w, i, &sensor, &upwards), w->clock);
    const body_event *e = world_event(w, i);
    if (e->kind == EVENT_SENSOR &&
        !(scheduled == next && e->partner == sensor && e->partner_counter == (uint32_t)upwards))
        return refuse(r, at + AT_EVENT, "event",
                      "body %d: sensor %d at %.17g, but its next crossing is of sensor %d at %.17g", (int)i,
                      (int)e->partner, scheduled, (int)sensor, next);
    if (!(scheduled <= next))
        return refuse(r, at + AT_TIME, "event time", "body %d: %.17g, after its next sensor crossing at %.17g",
                      (int)i, scheduled, next);
    return CAROM_OK;
}

static carom_status check_own_events(const carom_world *w, const refusal *r)
{
    size_t size = body_bytes(world_layout(w));
    for (int32_t i = 0; i < w->count; i++) {
        /* bodies added since the last run may have changed the grid, and
         * every event is predicted again at the next: then the walls, and
         * where the body is at the clock (the next run brings it there) */
        if (w->needs_rebuild) {
            double x[3], v[3];
            motion_state_at(&w->hot[i], motion_gravity(w, i), w->has_gravity, w->clock, x, v);
            for (int a = 0; a < w->dim; a++)
                if (!(fabs(x[a]) <= w->side[a]))
                    return refuse(r, HEADER_BYTES + (size_t)i * size + AT_V + 8 * (size_t)a, "velocity",
                                  "body %d would be at %g on axis %d at the clock %.17g, outside the box", (int)i,
                                  x[a], a, w->clock);
            if (!(schedule_own_time(w, i, 0, NULL) >= w->clock))
                return refuse(r, HEADER_BYTES + (size_t)i * size + AT_X, "body",
                              "body %d: its own next wall event was due before the clock %.17g", (int)i, w->clock);
            continue;
        }
        body_event mine;
        double scheduled = calendar_time(&w->cal, i), own = schedule_own_time(w, i, OWN_REST | OWN_CELL, &mine);
        if (!(schedule_own_time(w, i, OWN_CELL, NULL) >= w->clock))
            return refuse(r, HEADER_BYTES + (size_t)i * size + AT_X, "body",
                          "body %d: its own next wall or cell event was due at %.17g, before the clock %.17g",
                          (int)i, own, w->clock);
        if (!(scheduled <= fmax(own, w->clock))) /* a series' end may fall a hair before the clock */
            return refuse(r, HEADER_BYTES + (size_t)i * size + AT_TIME, "event time",
                          "body %d: %.17g, after its own next wall or cell event at %.17g", (int)i, scheduled, own);
        const body_event *e = world_event(w, i);
        if (w->sense.count > 0) {
            carom_status st = check_sensor_event(w, i, scheduled, HEADER_BYTES + (size_t)i * size, r);
            if (st != CAROM_OK) return st;
            if (e->kind == EVENT_SENSOR) continue;
        }
        if (e->kind == EVENT_FILTER) { /* a steered body's next decision, recomputed to the bit */
            double decision = fmax(steering_event_time(w, i), w->clock);
            if (scheduled == decision) continue;
            return refuse(r, HEADER_BYTES + (size_t)i * size + AT_TIME, "event time",
                          "body %d: a filter decision at %.17g, but its next one is at %.17g", (int)i, scheduled,
                          decision);
        }
        if (e->kind != EVENT_PAIR &&
            !(e->kind == mine.kind && e->partner == mine.partner && scheduled == fmax(own, w->clock)))
            return refuse(r, HEADER_BYTES + (size_t)i * size + AT_EVENT, "event",
                          "body %d: kind %d (%d) at %.17g, but its own next event is kind %d (%d) at %.17g", (int)i,
                          (int)e->kind, (int)e->partner, scheduled, (int)mine.kind, (int)mine.partner, own);
    }
    return CAROM_OK;
}

/* ---- restoring: the world ------------------------------------------------ */

/* The header's state in a new world, with room for its bodies. */
static carom_status set_up(carom_world *w, const header *h, const refusal *r)
{
    w->def.capacity_hint = h->def.capacity_hint; /* kept, but room is made for the bodies present */
    w->clock = h->clock;
    w->max_radius = h->max_radius;
    w->grid_bodies = h->grid_bodies;
    w->needs_rebuild = h->needs_rebuild;
    w->events_since_order = h->events_since_order;
    w->meas = h->meas;
    w->nb.on = h->lists_on;
    w->nb.shell = h->shell;
    settle_set_time_scale(w, h->time_scale);
    int configured = h->n[0] != 0;
    if (world_reserve_bodies(w, h->count) != 0 || (h->driven && drive_enable(w) != 0) ||
        (h->spin_on && spin_enable(w) != 0) ||
        (h->planes > 0 && sensor_reserve(w, h->planes) != 0) ||
        (configured && cells_shape(&w->grid, w->dim, w->side, w->periodic, h->n) != 0) ||
        (saves_anchors(h->lists_on, h->needs_rebuild) &&
         neighbours_reserve(&w->nb, w->capacity) != 0))
        return out_of_memory(r, h->at_count, "body count", "out of memory for %d bodies", (int)h->count);
    w->count = h->count;
    return CAROM_OK;
}

/* The sensor planes, after the bodies, each checked as carom_world_add_sensor checks it. */
static carom_status read_planes(stream *s, carom_world *w, const header *h, const refusal *r)
{
    s->at = HEADER_BYTES + (size_t)h->count * body_bytes(header_layout(h));
    for (int32_t k = 0; k < h->planes; k++) {
        size_t at = s->at;
        carom_sensor_def def;
        def.axis = get_i32(s);
        def.position = get_f64(s);
        def.lo = get_vec(s);
        def.hi = get_vec(s);
        if (s->failed) return refuse(r, at, "sensor", "sensor %d: the snapshot ends inside it", (int)k);
        if (sensor_check(w, &def) != CAROM_OK) return refuse(r, at, "sensor", "%s", w->message);
        sensor_plane *p = &w->sense.plane[k];
        p->axis = def.axis;
        p->at = def.position;
        const double lo[3] = {def.lo.x, def.lo.y, def.lo.z}, hi[3] = {def.hi.x, def.hi.y, def.hi.z};
        for (int a = 0; a < 3; a++) p->lo[a] = lo[a], p->hi[a] = hi[a];
        w->sense.count++;
    }
    return CAROM_OK;
}

/* One steered body's record, checked as carom_world_set_body_filter checks
 * its def, and its decision as the filter can make it. */
static carom_status read_steered(stream *s, carom_world *w, steered_body *b, int32_t previous, const refusal *r)
{
    size_t at = s->at;
    memset(b, 0, sizeof *b);
    b->id = get_i32(s);
    b->def.law = (carom_filter_law)get_i32(s);
    b->def.max_acceleration = get_f64(s);
    b->def.safety = get_f64(s);
    b->def.window = get_f64(s);
    for (int a = 0; a < 3; a++) b->input[a] = get_f64(s);
    b->last.acceleration = get_vec(s);
    b->last.criticality = get_f64(s);
    b->last.speed_ratio = get_f64(s);
    b->last.acted = get_i32(s);
    b->hold_end = get_f64(s);
    b->crossing = get_f64(s);
    b->braking = get_i32(s);
    b->crossings_left = get_i32(s);
    b->least = get_f64(s);
    b->least_from = get_f64(s);
    if (s->failed) return refuse(r, at, "steered body", "the snapshot ends inside it");
    if (!(b->id > previous && b->id < w->count))
        return refuse(r, at, "steered body", "id %d: expected ids in increasing order below %d", (int)b->id,
                      (int)w->count);
    const char *problem = filter_def_problem(&b->def);
    if (problem || b->def.law == CAROM_FILTER_OFF || !(b->def.window > 0.0))
        return refuse(r, at + 4, "filter", "body %d: %s", (int)b->id,
                      problem ? problem : "expected a law other than off and a window > 0");
    const double *out = &b->last.acceleration.x;
    int finite = isfinite(b->input[0]) && isfinite(b->input[1]) && isfinite(b->input[2]) && isfinite(out[0]) &&
                 isfinite(out[1]) && isfinite(out[2]);
    if (!finite || !(b->last.criticality >= 0.0 && b->last.criticality <= 1.0) || !(b->last.speed_ratio >= 0.0) ||
        (b->last.acted != 0 && b->last.acted != 1))
        return refuse(r, at + 32, "filter decision", "body %d: expected finite accelerations, a criticality in "
                      "[0, 1], a speed ratio >= 0 and a flag 0 or 1", (int)b->id);
    if (isnan(b->hold_end) || b->hold_end == INFINITY || isnan(b->crossing) || b->crossing == -INFINITY ||
        (b->braking != 0 && b->braking != 1) || b->crossings_left < 0)
        return refuse(r, at + 100, "filter hold", "body %d: expected a hold end below infinity, a crossing time "
                      "above minus infinity, a flag 0 or 1 and a count >= 0", (int)b->id);
    if (isnan(b->least) || b->least == -INFINITY || !(isfinite(b->least_from) && b->least_from <= w->clock))
        return refuse(r, at + 124, "least clearance", "body %d: %g since %g: expected a number (or infinity) since "
                      "a time not after the clock %.17g", (int)b->id, b->least, b->least_from, w->clock);
    return CAROM_OK;
}

/* The container's volume as found when the world first ran (-1: not yet),
 * so that a restore does not integrate it again; at most the box's. */
static carom_status read_container_volume(carom_world *w, const header *h, const refusal *r)
{
    double v = h->container_volume, box = w->side[0] * w->side[1] * (w->dim == 3 ? w->side[2] : 1.0);
    if (!w->container) {
        if (v != 0.0) return refuse(r, h->at_container + 12, "container volume", "%g without a container", v);
        return CAROM_OK;
    }
    if (!(v == -1.0 || (v > 0.0 && v <= box)))
        return refuse(r, h->at_container + 12, "container volume", "%g: expected -1 (not found yet) or a volume "
                      "above 0 and at most the box's, %g", v, box);
    w->container_volume = v;
    return CAROM_OK;
}

/* The steered bodies, after the sensors; before the bodies, whose events
 * may be their decisions. */
static carom_status read_steering(stream *s, carom_world *w, const header *h, const refusal *r)
{
    if (h->steered == 0) return CAROM_OK;
    if (steering_reserve(w, h->steered) != 0)
        return out_of_memory(r, h->at_steering, "steered bodies", "out of memory for %d steered bodies",
                             (int)h->steered);
    w->steering.decisions = h->decisions;
    w->steering.crossing_decisions = h->crossing_decisions;
    w->steering.no_crossings = h->no_crossings;
    for (int32_t k = 0, previous = -1; k < h->steered; k++) {
        carom_status st = read_steered(s, w, &w->steering.bodies[k], previous, r);
        if (st != CAROM_OK) return st;
        previous = w->steering.bodies[k].id;
        w->steering.count++;
    }
    return CAROM_OK;
}

/* One polygon of the table: built again from its vertices by the same
 * checks carom_world_add_body makes, compared with what was saved, and kept
 * as saved (the bits the saved world used). */
static carom_status read_shape(stream *s, carom_world *w, int32_t k, const refusal *r)
{
    size_t at = s->at;
    polygon_shape saved;
    memset(&saved, 0, sizeof saved);
    saved.count = get_i32(s);
    saved.area = get_f64(s);
    saved.second_moment = get_f64(s);
    saved.radius = get_f64(s);
    if (saved.count < 3 || saved.count > POLYGON_MAX_VERTICES)
        return refuse(r, at, "polygon", "polygon %d: %d vertices, expected 3 to %d", (int)k, (int)saved.count,
                      POLYGON_MAX_VERTICES);
    for (int v = 0; v < saved.count; v++) {
        saved.vertex[v][0] = get_f64(s);
        saved.vertex[v][1] = get_f64(s);
        saved.normal[v][0] = get_f64(s);
        saved.normal[v][1] = get_f64(s);
    }
    if (s->failed) return refuse(r, at, "polygon", "polygon %d: the snapshot ends inside it", (int)k);
    polygon_shape built;
    char why[200];
    if (polygon_from_vertices((const double(*)[2])saved.vertex, saved.count, &built, NULL, why, sizeof why) !=
        CAROM_OK)
        return refuse(r, at, "polygon", "polygon %d: %s", (int)k, why);
    if (!polygon_same_shape(&saved, &built) || !world_in_scale(saved.radius))
        return refuse(r, at, "polygon", "polygon %d: its area, moment, radius or normals are not those of its "
                      "vertices", (int)k);
    if (spin_reserve_shape(w) != 0) return out_of_memory(r, at, "polygon", "out of memory for the polygons");
    w->spin.shapes[w->spin.shape_count++] = saved;
    return CAROM_OK;
}

/* The polygon table, after the steered bodies; before the bodies, which name its entries. */
static carom_status read_shapes(stream *s, carom_world *w, const header *h, const refusal *r)
{
    int64_t vertices = 0;
    for (int32_t k = 0; k < h->shapes; k++) {
        carom_status st = read_shape(s, w, k, r);
        if (st != CAROM_OK) return st;
        vertices += w->spin.shapes[k].count;
    }
    if (vertices != h->shape_vertices)
        return refuse(r, h->at_rotation + 32, "polygon vertices", "%d, but the polygons have %lld",
                      (int)h->shape_vertices, (long long)vertices);
    return CAROM_OK;
}

/* A steered body is never kinematic (carom_world_set_body_filter refuses it). */
static carom_status check_steered_masses(const carom_world *w, const header *h, const refusal *r)
{
    for (int32_t k = 0; k < w->steering.count; k++) {
        int32_t id = w->steering.bodies[k].id;
        if (drive_is_kinematic(world_mass(w, w->slot_of[id])))
            return refuse(r, h->at_steering, "steered bodies", "body %d is kinematic: it cannot be steered", (int)id);
    }
    return CAROM_OK;
}

static carom_status restore_world(stream *s, const header *h, carom_world *w, const refusal *r)
{
    carom_status st = check_grid(h, w->side, w->periodic, r);
    if (st == CAROM_OK) st = set_up(w, h, r);
    if (st == CAROM_OK) st = read_planes(s, w, h, r);
    if (st == CAROM_OK) st = read_container_volume(w, h, r);
    if (st == CAROM_OK) st = read_steering(s, w, h, r);
    if (st == CAROM_OK) st = read_shapes(s, w, h, r);
    if (st == CAROM_OK) {
        s->at = HEADER_BYTES;
        st = read_bodies(s, w, h, r);
    }
    if (st == CAROM_OK) st = check_steered_masses(w, h, r);
    if (st == CAROM_OK) st = check_list_grid(w, h, r);
    /* as after a rebuild with lists: each cell checked to be its anchor's, and found from it */
    if (st == CAROM_OK && saves_anchors(w->nb.on, w->needs_rebuild)) (void)cells_keep_cells(&w->grid, 0);
    if (st == CAROM_OK && saves_anchors(w->nb.on, w->needs_rebuild) && neighbours_link_all(w) != 0)
        st = out_of_memory(r, HEADER_BYTES, "bodies", "out of memory for the neighbour lists of %d bodies",
                    (int)w->count);
    if (st == CAROM_OK && s->failed) st = refuse(r, s->at, "bodies", "the snapshot ends early");
    if (st == CAROM_OK && w->sense.count != h->planes) st = refuse(r, h->at_planes, "sensors", "not all read");
    if (st == CAROM_OK) st = check_own_events(w, r);
    return st;
}

/* The rest of a restore, once the container (if any) is built. */
static carom_status restore_checked(stream *s, header *h, size_t size, const carom_allocator *allocator,
                                    carom_event_callback on_event, void *user, carom_world **world,
                                    const refusal *r)
{
    carom_status st;
    if ((st = check_header(h, size, r)) != CAROM_OK) return st;
    carom_world_def def = h->def;
    def.on_event = on_event;
    def.user = user;
    def.allocator = allocator ? *allocator : (carom_allocator){0};
    def.capacity_hint = h->def.capacity_hint < h->count ? h->def.capacity_hint : h->count;
    char def_why[200] = "";
    carom_world *w = NULL;
    if ((st = carom_world_create(&def, &w, def_why, sizeof def_why)) != CAROM_OK) {
        if (st == CAROM_OUT_OF_MEMORY)
            refuse(r, h->at_count, "body count", "%s", def_why);
        else
            refuse(r, h->at_def, "world def", "%s", def_why);
        return st;
    }
    if ((st = restore_world(s, h, w, r)) != CAROM_OK) {
        carom_world_destroy(w);
        return st;
    }
    *world = w;
    return CAROM_OK;
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
    refusal r = {why, why_size};
    carom_status st = check_envelope(buffer, size, &r);
    if (st != CAROM_OK) return st;
    stream s = {NULL, buffer, size, 0, 0};
    header h;
    memset(&h, 0, sizeof h);
    read_header(&s, &h);
    if (s.failed || s.at != HEADER_BYTES)
        return refuse(&r, s.at, "header", "the header ends early");
    carom_container *container = NULL;
    if ((st = read_container(buffer, size, &h, &r, &container)) != CAROM_OK) return st;
    h.def.container = container;
    st = restore_checked(&s, &h, size, allocator, on_event, user, world, &r);
    carom_container_destroy(container); /* the world has its own copy */
    return st;
}
