/* test_alloc.c — the caller's allocator, and failure atomicity: for every k,
 * a run of a representative scenario with an allocator that refuses its k-th
 * request. Each call that gets CAROM_OUT_OF_MEMORY must leave its world (or
 * frame stepper) exactly as it was before the call — for a run, exactly as a
 * run capped at the events (frames) it finished — which is checked against a
 * replay that never failed; the call is then made again, and at the end
 * every world must have the same bits as in the run that never failed. The
 * allocator counts live bytes and checks that each block is released or
 * resized with the size it has (the contract in carom.h); it must hold none
 * after the worlds are destroyed, and the sanitizer build's LeakSanitizer
 * sees its blocks too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "carries.h"
#include "check.h"
#include "memory.h"
#include "order.h"
#include "state_hash.h"
#include "world.h"

/* ---- a counting allocator that refuses its k-th request for more memory ---- */

typedef struct counting {
    long requests;   /* calls that asked for more memory */
    long fail_at;    /* refuse this request (1-based); 0: never */
    long refused;
    long long live;  /* bytes held now */
    long blocks;     /* blocks held now */
    int size_errors; /* a release or resize named the wrong size */
} counting;

enum { HEADER = 16 }; /* each block carries its size in front (keeps max_align_t alignment) */

static int refuse(counting *c)
{
    c->requests++;
    if (c->requests != c->fail_at) return 0;
    c->refused++;
    return 1;
}

static void *counting_allocate(void *user, size_t size)
{
    counting *c = user;
    if (size == 0) c->size_errors++;
    if (refuse(c) || size > SIZE_MAX - HEADER) return NULL;
    unsigned char *block = malloc(size + HEADER);
    if (!block) return NULL;
    memcpy(block, &size, sizeof size);
    c->live += (long long)size;
    c->blocks++;
    return block + HEADER;
}

static size_t size_of(const void *p)
{
    size_t size;
    memcpy(&size, (const unsigned char *)p - HEADER, sizeof size);
    return size;
}

static void *counting_reallocate(void *user, void *p, size_t old_size, size_t new_size)
{
    counting *c = user;
    if (size_of(p) != old_size || new_size == 0) c->size_errors++;
    if ((new_size > old_size && refuse(c)) || new_size > SIZE_MAX - HEADER) return NULL;
    unsigned char *block = realloc((unsigned char *)p - HEADER, new_size + HEADER);
    if (!block) return NULL;
    memcpy(block, &new_size, sizeof new_size);
    c->live += (long long)new_size - (long long)old_size;
    return block + HEADER;
}

static void counting_release(void *user, void *p, size_t size)
{
    counting *c = user;
    if (size_of(p) != size) c->size_errors++;
    c->live -= (long long)size;
    c->blocks--;
    free((unsigned char *)p - HEADER);
}

static carom_allocator counting_allocator(counting *c, int with_reallocate)
{
    return (carom_allocator){counting_allocate, with_reallocate ? counting_reallocate : NULL, counting_release, c};
}

/* ---- fingerprints: everything a caller can see, and the snapshot ---------- */

static uint64_t hash_double(uint64_t h, double x) { return fnv1a(h, &x, sizeof x); }
static uint64_t hash_int(uint64_t h, int64_t x) { return fnv1a(h, &x, sizeof x); }

static uint64_t fingerprint_world(const carom_world *w, int with_snapshot)
{
    uint64_t h = hash_bodies(FNV1A_OFFSET, w, 1);
    carom_stats s = carom_world_stats(w);
    const double reals[] = {s.time, s.kinetic_energy, s.potential_energy, s.momentum.x, s.momentum.y,
                            s.momentum.z, s.window, s.mean_temperature, s.pressure, s.wall_pressure};
    /* stale predictions redone are bookkeeping: a run that stops at an event
     * that cannot get memory may have redone a few more than a capped run */
    const int64_t counts[] = {s.bodies, s.events, s.pair_events, s.wall_events, s.cell_events,
                              with_snapshot ? s.stale_events : 0};
    for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++) h = hash_double(h, reals[k]);
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) h = hash_int(h, counts[k]);
    if (with_snapshot) {
        size_t size = carom_world_snapshot_size(w);
        unsigned char *bytes = malloc(size);
        CHECK(bytes && carom_world_snapshot(w, bytes, size) == CAROM_OK);
        if (bytes) h = fnv1a(h, bytes, size);
        free(bytes);
    }
    return h;
}

static uint64_t fingerprint_frame(const carom_frame *f)
{
    uint64_t h = FNV1A_OFFSET;
    for (int32_t i = 0; i < carom_frame_body_count(f); i++) {
        carom_body_state b;
        CHECK(carom_frame_get_body(f, i, &b) == CAROM_OK);
        h = fnv1a(h, &b.position, sizeof b.position);
        h = fnv1a(h, &b.velocity, sizeof b.velocity);
        h = hash_int(h, (int64_t)b.collisions);
    }
    carom_frame_stats s = carom_frame_get_stats(f);
    const double reals[] = {s.time, s.max_penetration, s.mean_penetration, s.kinetic_energy};
    const int64_t counts[] = {s.frames, s.pair_checks, s.bisection_steps, s.pair_collisions,
                              s.wall_collisions, s.receding_overlaps, s.passes, s.jammed_frames};
    for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++) h = hash_double(h, reals[k]);
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) h = hash_int(h, counts[k]);
    return h;
}

/* ---- the harness: scenarios are straight-line code over these steps ---- */

typedef struct harness harness;
typedef void (*scenario_fn)(harness *h);

struct harness {
    counting count;
    carom_allocator allocator;
    scenario_fn scenario;
    int step;                /* steps taken so far */
    int stop_step;           /* replay: stop after this step ... */
    int64_t stop_after;      /* ... capped at this many events or frames */
    int stopped;
    uint64_t at_stop;
    carom_world *worlds[8];
    carom_frame *frames[8];
    int world_count, frame_count;
    long ooms, ooms_mid_run; /* failures seen, and of them inside runs after some progress */
};

static void harness_init(harness *h, scenario_fn scenario, long fail_at)
{
    memset(h, 0, sizeof *h);
    h->scenario = scenario;
    h->count.fail_at = fail_at;
    h->allocator = counting_allocator(&h->count, 1);
    h->stop_step = -1;
}

static uint64_t harness_final(harness *h)
{
    uint64_t f = FNV1A_OFFSET;
    for (int k = 0; k < h->world_count; k++) f = hash_int(f, (int64_t)fingerprint_world(h->worlds[k], 1));
    for (int k = 0; k < h->frame_count; k++) f = hash_int(f, (int64_t)fingerprint_frame(h->frames[k]));
    return f;
}

static void harness_destroy(harness *h)
{
    for (int k = 0; k < h->world_count; k++) carom_world_destroy(h->worlds[k]);
    for (int k = 0; k < h->frame_count; k++) carom_frame_destroy(h->frames[k]);
    h->world_count = h->frame_count = 0;
}

/* The state the scenario reaches, never failing, after step stop_step capped at after events/frames. */
static uint64_t replay(scenario_fn scenario, int stop_step, int64_t after)
{
    harness r;
    harness_init(&r, scenario, 0);
    r.stop_step = stop_step;
    r.stop_after = after;
    scenario(&r);
    CHECK(r.stopped);
    harness_destroy(&r);
    return r.at_stop;
}

static carom_world *create_step(harness *h, const carom_world_def *def)
{
    carom_world_def d = *def;
    d.allocator = h->allocator;
    carom_world *w = NULL;
    long long live = h->count.live;
    h->step++;
    carom_status st = carom_world_create(&d, &w, NULL, 0);
    if (st == CAROM_OUT_OF_MEMORY) {
        h->ooms++;
        CHECK(w == NULL && h->count.live == live);
        st = carom_world_create(&d, &w, NULL, 0);
    }
    CHECK_EQ_INT(st, CAROM_OK);
    if (w) h->worlds[h->world_count++] = w;
    return w;
}

static carom_world *restore_step(harness *h, const carom_world *from)
{
    size_t size = carom_world_snapshot_size(from);
    unsigned char *bytes = malloc(size);
    CHECK(bytes && carom_world_snapshot(from, bytes, size) == CAROM_OK);
    carom_world *w = NULL;
    long long live = h->count.live;
    h->step++;
    carom_status st = carom_world_restore_with(bytes, size, &h->allocator, NULL, NULL, &w, NULL, 0);
    if (st == CAROM_OUT_OF_MEMORY) {
        h->ooms++;
        CHECK(w == NULL && h->count.live == live);
        st = carom_world_restore_with(bytes, size, &h->allocator, NULL, NULL, &w, NULL, 0);
    }
    free(bytes);
    CHECK_EQ_INT(st, CAROM_OK);
    if (w) h->worlds[h->world_count++] = w;
    return w;
}

/* A call on a world that must either succeed (or fail for another reason,
 * as in the run that never failed) or change nothing. */
static carom_status add_step(harness *h, carom_world *w, const carom_body_def *b)
{
    h->step++;
    uint64_t before = fingerprint_world(w, 1);
    carom_status st = carom_world_add_body(w, b, NULL);
    if (st == CAROM_OUT_OF_MEMORY) {
        h->ooms++;
        CHECK_MSG(fingerprint_world(w, 1) == before, "step %d: a failed carom_world_add_body changed the world", h->step);
        st = carom_world_add_body(w, b, NULL);
    }
    CHECK(st != CAROM_OUT_OF_MEMORY);
    return st;
}

static void run_step(harness *h, carom_world *w, double t_end, int64_t max_events)
{
    int step = ++h->step;
    int64_t events = carom_world_stats(w).events;
    if (step == h->stop_step) {
        CHECK_EQ_INT(carom_world_run(w, t_end, h->stop_after), CAROM_OK);
        h->at_stop = fingerprint_world(w, 0);
        h->stopped = 1;
        return;
    }
    carom_status st = carom_world_run(w, t_end, max_events);
    if (st == CAROM_OUT_OF_MEMORY) {
        int64_t done = carom_world_stats(w).events - events;
        h->ooms++;
        if (done > 0) h->ooms_mid_run++;
        CHECK_MSG(fingerprint_world(w, 0) == replay(h->scenario, step, done),
                  "step %d: a run that ran out of memory after %lld events is not the run capped there", step,
                  (long long)done);
        st = carom_world_run(w, t_end, max_events < 0 ? -1 : max_events - done);
    }
    CHECK_EQ_INT(st, CAROM_OK);
}

static carom_frame *frame_step_create(harness *h, const carom_world *w, carom_frame_method method)
{
    carom_frame_def def = carom_default_frame_def();
    def.method = method;
    def.dt = 0.01;
    carom_frame *f = NULL;
    long long live = h->count.live;
    h->step++;
    carom_status st = carom_frame_create_from_world(w, &def, &f, NULL, 0);
    if (st == CAROM_OUT_OF_MEMORY) {
        h->ooms++;
        CHECK(f == NULL && h->count.live == live);
        st = carom_frame_create_from_world(w, &def, &f, NULL, 0);
    }
    CHECK_EQ_INT(st, CAROM_OK);
    if (f) h->frames[h->frame_count++] = f;
    return f;
}

static void frames_step(harness *h, carom_frame *f, int64_t frames)
{
    int step = ++h->step;
    int64_t before = carom_frame_get_stats(f).frames;
    if (step == h->stop_step) {
        CHECK(carom_frame_run(f, h->stop_after) != CAROM_OUT_OF_MEMORY);
        h->at_stop = fingerprint_frame(f);
        h->stopped = 1;
        return;
    }
    carom_status st = carom_frame_run(f, frames);
    if (st == CAROM_OUT_OF_MEMORY) {
        int64_t done = carom_frame_get_stats(f).frames - before;
        h->ooms++;
        if (done > 0) h->ooms_mid_run++;
        CHECK_MSG(fingerprint_frame(f) == replay(h->scenario, step, done),
                  "step %d: a frame run that ran out of memory after %lld frames is not the run capped there",
                  step, (long long)done);
        st = carom_frame_run(f, frames - done);
    }
    CHECK(st != CAROM_OUT_OF_MEMORY);
}

#define STOP_IF_REPLAYED() \
    do {                   \
        if (h->stopped) return; \
    } while (0)

/* ---- the scenarios ------------------------------------------------------ */

static carom_body_def random_body(carom_rng *rng, const double box[3], int dim, double radius)
{
    carom_body_def b = carom_default_body_def();
    b.radius = radius;
    b.mass = 0.5 + carom_rng_uniform(rng);
    double x[3], v[3];
    for (int a = 0; a < 3; a++) {
        x[a] = a < dim ? (carom_rng_uniform(rng) - 0.5) * (box[a] - 2.0 * radius) : 0.0;
        v[a] = a < dim ? carom_rng_uniform(rng) - 0.5 : 0.0;
    }
    b.position = (carom_vec){x[0], x[1], x[2]};
    b.velocity = (carom_vec){v[0], v[1], v[2]};
    return b;
}

/* 2D walls under gravity: creation, growth of every array while adding,
 * runs, steering, bodies added after a run, a snapshot restored, and both
 * frame steppers started from the world. */
static void scenario_gravity(harness *h)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){14, 14, 1};
    def.boundary[0] = def.boundary[1] = CAROM_WALLS;
    def.gravity = (carom_vec){0, -1, 0};
    const double box[3] = {14, 14, 1};
    carom_world *w = create_step(h, &def);
    if (!w) return;
    carom_rng rng = carom_rng_seed(11);
    for (int k = 0; k < 70; k++) {
        carom_body_def b = random_body(&rng, box, 2, 0.3);
        add_step(h, w, &b);
    }
    run_step(h, w, 2.0, -1);
    STOP_IF_REPLAYED();
    CHECK_EQ_INT(carom_world_set_body_velocity(w, 3, (carom_vec){1, 2, 0}), CAROM_OK);
    for (int k = 0; k < 40; k++) {
        carom_body_def b = random_body(&rng, box, 2, 0.25 + 0.002 * k);
        add_step(h, w, &b);
    }
    run_step(h, w, 3.5, -1);
    STOP_IF_REPLAYED();
    carom_world *copy = restore_step(h, w);
    if (!copy) return;
    run_step(h, copy, 4.5, -1);
    STOP_IF_REPLAYED();
    run_step(h, w, 4.5, -1);
    STOP_IF_REPLAYED();
    carom_frame *plain = frame_step_create(h, w, CAROM_FRAME_PLAIN);
    if (plain) frames_step(h, plain, 30);
    STOP_IF_REPLAYED();
    carom_frame *bisection = frame_step_create(h, w, CAROM_FRAME_BISECTION);
    if (bisection) frames_step(h, bisection, 30);
}

/* A dense 3D fluid: neighbour lists, which widen while the run goes on and
 * are rebuilt from a snapshot. */
static void scenario_dense(harness *h)
{
    enum { SIDE = 6 };
    const double spacing = 1.1, radius = 0.5;
    carom_world_def def = carom_default_world_def();
    def.box = (carom_vec){SIDE * spacing, SIDE * spacing, SIDE * spacing};
    def.neighbour_shell = 0.45;
    carom_world *w = create_step(h, &def);
    if (!w) return;
    carom_rng rng = carom_rng_seed(12);
    for (int i = 0; i < SIDE * SIDE * SIDE; i++) {
        carom_body_def b = carom_default_body_def();
        b.radius = radius;
        b.position = (carom_vec){(i % SIDE - SIDE / 2 + 0.5) * spacing, (i / SIDE % SIDE - SIDE / 2 + 0.5) * spacing,
                                 (i / (SIDE * SIDE) - SIDE / 2 + 0.5) * spacing};
        b.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), carom_rng_normal(&rng)};
        add_step(h, w, &b);
    }
    run_step(h, w, INFINITY, 3000);
    STOP_IF_REPLAYED();
    carom_world *copy = restore_step(h, w);
    if (!copy) return;
    run_step(h, copy, INFINITY, 1500);
    STOP_IF_REPLAYED();
    run_step(h, w, INFINITY, 1500);
}

/* Frame steppers with many overlaps at once: the pair list and the
 * bisection heap grow inside frames. */
static void scenario_crowded_frames(harness *h)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){12, 12, 1};
    def.boundary[0] = CAROM_WALLS;
    carom_rng rng = carom_rng_seed(13);
    carom_body_def bodies[160];
    const double box[3] = {12, 12, 1};
    for (int k = 0; k < 160; k++) bodies[k] = random_body(&rng, box, 2, 0.45);
    for (int m = 0; m < 2; m++) {
        carom_frame_def fd = carom_default_frame_def();
        fd.method = m ? CAROM_FRAME_BISECTION : CAROM_FRAME_PLAIN;
        fd.dt = 0.02;
        fd.max_passes = 20;
        carom_world_def d = def;
        d.allocator = h->allocator;
        carom_frame *f = NULL;
        long long live = h->count.live;
        h->step++;
        carom_status st = carom_frame_create(&d, bodies, 160, &fd, &f, NULL, 0);
        if (st == CAROM_OUT_OF_MEMORY) {
            h->ooms++;
            CHECK(f == NULL && h->count.live == live);
            st = carom_frame_create(&d, bodies, 160, &fd, &f, NULL, 0);
        }
        CHECK_EQ_INT(st, CAROM_OK);
        if (!f) return;
        h->frames[h->frame_count++] = f;
        frames_step(h, f, 8);
        STOP_IF_REPLAYED();
    }
}

/* ---- the tests ------------------------------------------------------------ */

/* Every k from 1 to the number of requests of the run that never fails. */
static void fail_every_allocation(scenario_fn scenario, const char *name, long min_requests)
{
    harness reference;
    harness_init(&reference, scenario, 0);
    scenario(&reference);
    uint64_t expected = harness_final(&reference);
    long requests = reference.count.requests;
    harness_destroy(&reference);
    CHECK_EQ_INT(reference.count.live, 0);
    CHECK_EQ_INT(reference.count.blocks, 0);
    CHECK_EQ_INT(reference.count.size_errors, 0);
    CHECK_MSG(requests >= min_requests, "%s: only %ld requests for memory", name, requests);
    long ooms = 0, mid_run = 0, diverged = 0;
    for (long k = 1; k <= requests; k++) {
        harness h;
        harness_init(&h, scenario, k);
        scenario(&h);
        if (harness_final(&h) != expected) diverged++;
        harness_destroy(&h);
        CHECK_MSG(h.count.refused == 1 && h.ooms <= 1, "%s, k = %ld: %ld refused, %ld failures seen", name, k,
                  h.count.refused, h.ooms);
        CHECK_MSG(h.count.live == 0 && h.count.blocks == 0, "%s, k = %ld: %lld bytes in %ld blocks leaked", name,
                  k, h.count.live, h.count.blocks);
        CHECK_EQ_INT(h.count.size_errors, 0);
        ooms += h.ooms;
        mid_run += h.ooms_mid_run;
    }
    CHECK_MSG(diverged == 0, "%s: %ld of %ld runs did not end with the bits of the run that never failed", name,
              diverged, requests);
    printf("%s: %ld requests; %ld refusals gave CAROM_OUT_OF_MEMORY (%ld inside a run after progress), "
           "the rest were absorbed (retried later)\n",
           name, requests, ooms, mid_run);
}

static void test_gravity_walls_and_frames(void) { fail_every_allocation(scenario_gravity, "gravity", 60); }
static void test_dense_neighbour_lists(void) { fail_every_allocation(scenario_dense, "dense", 30); }
static void test_crowded_frames(void) { fail_every_allocation(scenario_crowded_frames, "crowded frames", 10); }

/* Without reallocate (allocate, copy, release) the same bits. */
static void test_without_reallocate(void)
{
    harness a, b;
    harness_init(&a, scenario_gravity, 0);
    harness_init(&b, scenario_gravity, 0);
    b.allocator = counting_allocator(&b.count, 0);
    scenario_gravity(&a);
    scenario_gravity(&b);
    CHECK(harness_final(&a) == harness_final(&b));
    harness_destroy(&a);
    harness_destroy(&b);
    CHECK_EQ_INT(b.count.live, 0);
    CHECK_EQ_INT(b.count.size_errors, 0);
}

/* A world of the default def whose memory c counts (NULL if it could not be made). */
static carom_world *counted_world(counting *c, carom_world_def def)
{
    def.allocator = counting_allocator(c, 1);
    carom_world *w = NULL;
    CHECK_EQ_INT(carom_world_create(&def, &w, NULL, 0), CAROM_OK);
    return w;
}

/* Re-sorting bodies in memory takes its scratch from the cell lists' links,
 * so with cell lists it allocates nothing, whatever the allocator says; with
 * neighbour lists it needs one row of scratch, and when it cannot get it,
 * nothing changes and it is tried again at the next event (the counter is
 * not reset). */
static void test_order_out_of_memory(void)
{
    for (int lists = 0; lists < 2; lists++) {
        counting c = {0};
        carom_world_def def = carom_default_world_def();
        def.neighbour_shell = lists ? 0.2 : -1.0;
        carom_world *w = counted_world(&c, def);
        if (!w) return;
        carom_rng rng = carom_rng_seed(14);
        const double box[3] = {10, 10, 10};
        for (int k = 0; k < 200; k++) {
            carom_body_def b = random_body(&rng, box, 3, 0.3);
            carom_world_add_body(w, &b, NULL);
        }
        CHECK_EQ_INT(carom_world_run(w, 1.0, -1), CAROM_OK);
        CHECK_EQ_INT(w->nb.on, lists);
        uint64_t before = fingerprint_world(w, 1), before_plain = fingerprint_world(w, 0);
        int64_t since = w->events_since_order;
        if (lists) {
            c.fail_at = c.requests + 1;
            CHECK_EQ_INT(order_bodies(w), -1);
            CHECK(fingerprint_world(w, 1) == before);
            CHECK_EQ_INT(w->events_since_order, since);
        }
        long requests = c.requests;
        c.fail_at = lists ? 0 : c.requests + 1;
        CHECK_EQ_INT(order_bodies(w), 0);
        CHECK_EQ_INT(c.requests - requests, lists);
        /* the layout is never seen (the snapshot differs only by the re-sort counter it carries) */
        CHECK(fingerprint_world(w, 0) == before_plain);
        CHECK_EQ_INT(w->events_since_order, 0);
        carom_world_destroy(w);
        CHECK_EQ_INT(c.live, 0);
    }
}

/* Bodies of one mass share it; the first body of another mass gives every
 * body its own, in one allocation: refused, the body is not added and the
 * world is as it was; granted, every body reports its mass, and a snapshot
 * brings the same masses back. */
static void test_mass_per_body_out_of_memory(void)
{
    counting c = {0};
    carom_world *w = counted_world(&c, carom_default_world_def());
    if (!w) return;
    for (int k = 0; k < 3; k++) {
        carom_body_def b = carom_default_body_def();
        b.position = (carom_vec){-3.0 + 2.0 * k, 0.0, 0.0};
        b.mass = 2.5;
        CHECK_EQ_INT(carom_world_add_body(w, &b, NULL), CAROM_OK);
    }
    CHECK(w->mass == NULL && w->common_mass == 2.5);
    uint64_t before = fingerprint_world(w, 1);
    carom_body_def heavy = carom_default_body_def();
    heavy.position = (carom_vec){0.0, 3.0, 0.0};
    heavy.mass = 7.0;
    c.fail_at = c.requests + 1;
    CHECK_EQ_INT(carom_world_add_body(w, &heavy, NULL), CAROM_OUT_OF_MEMORY);
    CHECK_EQ_INT(carom_world_body_count(w), 3);
    CHECK(w->mass == NULL && fingerprint_world(w, 1) == before);
    c.fail_at = 0;
    CHECK_EQ_INT(carom_world_add_body(w, &heavy, NULL), CAROM_OK);
    CHECK(w->mass != NULL);
    const double expected[4] = {2.5, 2.5, 2.5, 7.0};
    size_t size = carom_world_snapshot_size(w);
    unsigned char *copy = malloc(size);
    CHECK(carom_world_snapshot(w, copy, size) == CAROM_OK);
    carom_world *restored = NULL;
    CHECK(carom_world_restore(copy, size, NULL, NULL, &restored, NULL, 0) == CAROM_OK);
    for (int32_t id = 0; id < 4; id++) {
        carom_body_state state, again;
        CHECK(carom_world_get_body(w, id, &state) == CAROM_OK);
        CHECK(restored && carom_world_get_body(restored, id, &again) == CAROM_OK);
        CHECK(state.mass == expected[id] && again.mass == expected[id]);
    }
    free(copy);
    carom_world_destroy(restored);
    carom_world_destroy(w);
    CHECK_EQ_INT(c.live, 0);
}

/* A world whose motions change only in collisions keeps no stamps of its
 * own (they are the collision counts); the first setter gives every body
 * its own, in one allocation: refused, the setter fails and the world is as
 * it was; granted, the stamps start from the collision counts. */
static void test_own_stamps_out_of_memory(void)
{
    counting c = {0};
    carom_world *w = counted_world(&c, carom_default_world_def());
    if (!w) return;
    carom_rng rng = carom_rng_seed(21);
    const double box[3] = {10, 10, 10};
    for (int k = 0; k < 100; k++) {
        carom_body_def b = random_body(&rng, box, 3, 0.3);
        carom_world_add_body(w, &b, NULL);
    }
    CHECK_EQ_INT(carom_world_run(w, 2.0, -1), CAROM_OK);
    CHECK(!w->own_stamps && w->counter == NULL && carom_world_stats(w).pair_events > 0);
    uint64_t before = fingerprint_world(w, 1);
    c.fail_at = c.requests + 1;
    CHECK_EQ_INT(carom_world_set_body_velocity(w, 3, (carom_vec){1.0, 0.0, 0.0}), CAROM_OUT_OF_MEMORY);
    CHECK(!w->own_stamps && fingerprint_world(w, 1) == before);
    c.fail_at = 0;
    CHECK_EQ_INT(carom_world_set_body_velocity(w, 3, (carom_vec){1.0, 0.0, 0.0}), CAROM_OK);
    CHECK(w->own_stamps);
    int32_t moved = w->slot_of[3];
    for (int32_t s = 0; s < w->count; s++)
        CHECK(w->counter[s] == (uint32_t)w->collisions[s] + (s == moved)); /* the set body's changed */
    CHECK_EQ_INT(carom_world_run(w, 4.0, -1), CAROM_OK);
    carom_world_destroy(w);
    CHECK_EQ_INT(c.live, 0);
}

/* With neighbour lists the world's grid keeps no record of each body's cell
 * (its anchor's); adding a body records them again, in one allocation:
 * refused, the body is not added and the world is as it was. */
/* 100 or so random spheres of radius 0.3 in a periodic box of side 10,
 * with neighbour lists asked for, counted by c. */
static carom_world *listed_world(counting *c)
{
    carom_world_def def = carom_default_world_def();
    def.neighbour_shell = 0.3;
    carom_world *w = counted_world(c, def);
    carom_rng rng = carom_rng_seed(22);
    const double box[3] = {10, 10, 10};
    for (int k = 0; w && k < 100; k++) {
        carom_body_def b = random_body(&rng, box, 3, 0.3);
        carom_world_add_body(w, &b, NULL);
    }
    return w;
}

/* A small body where it fits in w now (found without adding it). */
static carom_body_def free_place(carom_world *w, carom_rng *rng)
{
    carom_body_def extra = carom_default_body_def();
    extra.radius = 0.05;
    for (int tries = 0; tries < 1000; tries++) {
        extra.position = (carom_vec){9.0 * (carom_rng_uniform(rng) - 0.5), 9.0 * (carom_rng_uniform(rng) - 0.5),
                                     9.0 * (carom_rng_uniform(rng) - 0.5)};
        double x[3] = {extra.position.x, extra.position.y, extra.position.z};
        if (world_check_place(w, w->count, x, extra.radius, -1) == CAROM_OK) break;
    }
    return extra;
}

static void test_cells_recorded_again_out_of_memory(void)
{
    counting c = {0};
    carom_world *w = listed_world(&c);
    if (!w) return;
    CHECK_EQ_INT(carom_world_run(w, 2.0, -1), CAROM_OK);
    CHECK(w->nb.on && w->grid.cell == NULL);
    int32_t bodies = carom_world_body_count(w);
    uint64_t before = fingerprint_world(w, 1);
    carom_rng rng = carom_rng_seed(23);
    carom_body_def extra = free_place(w, &rng);
    c.fail_at = c.requests + 1;
    CHECK_EQ_INT(carom_world_add_body(w, &extra, NULL), CAROM_OUT_OF_MEMORY);
    CHECK(carom_world_body_count(w) == bodies && w->grid.cell == NULL && fingerprint_world(w, 1) == before);
    c.fail_at = 0;
    CHECK_EQ_INT(carom_world_add_body(w, &extra, NULL), CAROM_OK);
    CHECK(w->grid.cell != NULL);
    CHECK_EQ_INT(carom_world_run(w, 4.0, -1), CAROM_OK);
    CHECK(w->nb.on && w->grid.cell == NULL && carom_world_body_count(w) == bodies + 1);
    carom_world_destroy(w);
    CHECK_EQ_INT(c.live, 0);
    CHECK_EQ_INT(c.size_errors, 0);
}

/* A first run whose list build is refused at its k-th request for memory
 * (every k until the run succeeds) leaves the grid whole, with its records:
 * a body can still be added and the world saved, and the next run builds
 * the lists and drops the records. */
static void test_failed_list_build_keeps_grid(void)
{
    int refused = 0;
    for (long k = 1; k <= 200; k++) {
        counting c = {0};
        carom_world *w = listed_world(&c);
        if (!w) return;
        c.fail_at = c.requests + k;
        carom_status st = carom_world_run(w, 1.0, -1);
        c.fail_at = 0;
        int done = st == CAROM_OK;
        if (!done) {
            refused++;
            CHECK_EQ_INT(st, CAROM_OUT_OF_MEMORY);
            CHECK(w->grid.cell != NULL || !w->needs_rebuild); /* records, unless the lists were built */
            carom_rng rng = carom_rng_seed(24);
            carom_body_def extra = free_place(w, &rng);
            CHECK_EQ_INT(carom_world_add_body(w, &extra, NULL), CAROM_OK);
            size_t size = carom_world_snapshot_size(w);
            unsigned char *bytes = malloc(size);
            CHECK(carom_world_snapshot(w, bytes, size) == CAROM_OK);
            free(bytes);
            CHECK_EQ_INT(carom_world_run(w, 1.0, -1), CAROM_OK);
        }
        CHECK(w->nb.on && w->grid.cell == NULL);
        carom_world_destroy(w);
        CHECK_EQ_INT(c.live, 0);
        if (done) break;
    }
    CHECK_MSG(refused >= 5, "only %d requests in the first run", refused);
}

/* The largest collision count of a body of w. */
static uint64_t most_collisions(const carom_world *w)
{
    uint64_t most = 0;
    for (int32_t id = 0; id < carom_world_body_count(w); id++) {
        carom_body_state b;
        CHECK(carom_world_get_body(w, id, &b) == CAROM_OK);
        most = b.collisions > most ? b.collisions : most;
    }
    return most;
}

/* Collision counts are kept in 32 bits a body, with a table for the high
 * halves of those past 2^32. Two bodies in a walled box start two
 * collisions short of the wrap (the world's event counts raised to match,
 * as a snapshot checks). The event that carries must get its table entry
 * before anything changes: refused, the run fails and the world is as it
 * was; granted, the counts read 2^32 and more, exactly, and survive a
 * snapshot, after which both copies go on with the same bits. */
static void test_collision_count_carries(void)
{
    counting c = {0};
    carom_world_def def = carom_default_world_def();
    def.box = (carom_vec){4.0, 4.0, 4.0};
    for (int a = 0; a < 3; a++) def.boundary[a] = CAROM_WALLS;
    carom_world *w = counted_world(&c, def);
    if (!w) return;
    const carom_vec at[2] = {{-1.0, 0.1, 0.0}, {1.0, -0.1, 0.2}}, v[2] = {{1.0, 0.3, 0.2}, {-0.7, -0.2, 0.5}};
    for (int k = 0; k < 2; k++) {
        carom_body_def b = carom_default_body_def();
        b.position = at[k], b.velocity = v[k];
        CHECK_EQ_INT(carom_world_add_body(w, &b, NULL), CAROM_OK);
    }
    CHECK_EQ_INT(carom_world_run(w, 0.0, -1), CAROM_OK);
    const uint32_t start = UINT32_MAX - 1;
    uint64_t expected[2];
    for (int32_t s = 0; s < 2; s++) {
        expected[w->id_of[s]] = (uint64_t)start + w->collisions[s];
        w->collisions[s] += start;
        w->meas.wall_events += start;
    }
    int refusals = 0;
    for (int step = 0; step < 40; step++) {
        uint64_t before = fingerprint_world(w, 1);
        int64_t events = carom_world_counts(w).events;
        c.fail_at = c.requests + 1;
        carom_status st = carom_world_run(w, INFINITY, 1);
        c.fail_at = 0;
        if (st == CAROM_OUT_OF_MEMORY) {
            refusals++;
            CHECK(fingerprint_world(w, 1) == before && carom_world_counts(w).events == events);
            CHECK(strstr(carom_world_message(w), "collision count") != NULL);
            st = carom_world_run(w, INFINITY, 1);
        }
        CHECK_EQ_INT(st, CAROM_OK);
    }
    CHECK_EQ_INT(refusals, 2);
    CHECK_EQ_INT(w->carried.count, 2);
    carom_stats stats = carom_world_stats(w);
    uint64_t total = 0;
    for (int32_t id = 0; id < 2; id++) {
        carom_body_state b;
        CHECK(carom_world_get_body(w, id, &b) == CAROM_OK);
        CHECK(b.collisions > ((uint64_t)1 << 32));
        total += b.collisions - expected[id];
    }
    CHECK(total == (uint64_t)(2 * stats.pair_events + stats.wall_events) - 2 * (uint64_t)start);
    CHECK(most_collisions(w) < ((uint64_t)1 << 32) + 40);
    size_t size = carom_world_snapshot_size(w);
    unsigned char *bytes = malloc(size);
    CHECK(carom_world_snapshot(w, bytes, size) == CAROM_OK);
    carom_world *copy = NULL;
    CHECK_EQ_INT(carom_world_restore(bytes, size, NULL, NULL, &copy, NULL, 0), CAROM_OK);
    CHECK(copy && fingerprint_world(copy, 1) == fingerprint_world(w, 1));
    CHECK(carom_world_run(w, INFINITY, 30) == CAROM_OK && carom_world_run(copy, INFINITY, 30) == CAROM_OK);
    CHECK(fingerprint_world(copy, 1) == fingerprint_world(w, 1));
    free(bytes);
    carom_world_destroy(copy);
    carom_world_destroy(w);
    CHECK_EQ_INT(c.live, 0);
}

/* The table of high halves on its own: entries stay in id order, a carry
 * adds one, and setting a high half to 0 (an undone event putting a count
 * back) removes the entry, so that every entry holds a high half above 0. */
static void test_carries_table(void)
{
    carom_world_def def = carom_default_world_def();
    carries c = {0};
    c.mem = &def.allocator;
    CHECK(carries_reserve(&c, 3) == 0);
    carries_carry(&c, 7);
    carries_carry(&c, 2);
    carries_carry(&c, 7);
    CHECK(carries_set(&c, 5, 9) == 0);
    CHECK_EQ_INT(c.count, 3);
    CHECK(c.entry[0].id == 2 && c.entry[1].id == 5 && c.entry[2].id == 7);
    CHECK(carries_high(&c, 7) == 2 && carries_high(&c, 5) == 9 && carries_high(&c, 3) == 0);
    CHECK(carries_set(&c, 5, 0) == 0);
    CHECK_EQ_INT(c.count, 2);
    CHECK(c.entry[0].id == 2 && c.entry[1].id == 7 && carries_high(&c, 5) == 0 && carries_high(&c, 7) == 2);
    CHECK(carries_set(&c, 4, 0) == 0); /* nothing to remove, nothing added */
    CHECK(carries_set(&c, 7, 0) == 0 && carries_set(&c, 2, 0) == 0);
    CHECK_EQ_INT(c.count, 0);
    carries_free(&c);
}

/* All or none: the third array refused, the first two are back at their sizes. */
static void test_grow_together(void)
{
    counting c = {0};
    carom_allocator a = counting_allocator(&c, 1);
    void *p[3] = {memory_alloc(&a, 8), memory_alloc(&a, 16), memory_alloc(&a, 24)};
    memset(p[0], 7, 8);
    memory_array arrays[3] = {{&p[0], 8, 800, 0}, {&p[1], 16, 1600, 1}, {&p[2], 24, 2400, 0}};
    long long live = c.live;
    c.fail_at = c.requests + 3;
    void *kept = p[2];
    CHECK_EQ_INT(memory_grow_together(&a, arrays, 3), -1);
    CHECK(c.live == live && p[2] == kept);
    CHECK(((unsigned char *)p[0])[7] == 7);
    c.fail_at = 0;
    CHECK_EQ_INT(memory_grow_together(&a, arrays, 3), 0);
    CHECK_EQ_INT(c.live, live + 800 + 1600 + 2400 - 48);
    CHECK(((unsigned char *)p[0])[7] == 7);
    for (int k = 0; k < 3; k++) memory_free(&a, p[k], arrays[k].new_bytes);
    CHECK_EQ_INT(c.live, 0);
    CHECK_EQ_INT(c.size_errors, 0);
    CHECK(memory_grow(&a, NULL, 0, memory_bytes(SIZE_MAX / 2, 4)) == NULL); /* a size that overflowed */
}

/* The hot and spin records are 64 bytes: with the C library each must sit
 * on one cache line (realloc gives 16-byte alignment, so a record would
 * straddle two lines), through growth and contents kept; a failed growth
 * leaves the block as it was. */
static void test_record_arrays_on_cache_lines(void)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 3;
    def.box = (carom_vec){40.0, 40.0, 40.0};
    def.tangential_restitution = 1.0; /* the spin records too */
    carom_world *w = NULL;
    char why[200] = "";
    CHECK_EQ_INT(carom_world_create(&def, &w, why, sizeof why), CAROM_OK);
    if (!w) return;
    int misaligned = 0;
    for (int n = 0; n < 5000; n++) {
        carom_body_def b = carom_default_body_def();
        b.position = (carom_vec){-19.0 + (n % 30) * 1.25, -19.0 + (n / 30 % 30) * 1.25, -19.0 + n / 900 * 1.25};
        b.velocity = (carom_vec){(double)n, 0.0, 0.0};
        if (carom_world_add_body(w, &b, NULL) != CAROM_OK) break;
        misaligned += (uintptr_t)w->hot % 64 != 0 || (uintptr_t)w->spin.state % 64 != 0;
    }
    CHECK_EQ_INT(w->count, 5000);
    CHECK(w->spin.state != NULL);
    CHECK_EQ_INT(misaligned, 0);
    int kept = 1; /* the contents came along through every growth */
    for (int32_t id = 0; id < w->count; id++) kept &= w->hot[w->slot_of[id]].v[0] == (double)id;
    CHECK(kept);
    carom_world_destroy(w);
    void *block = memory_grow_lines(NULL, NULL, 0, 640);
    CHECK(block != NULL && (uintptr_t)block % 64 == 0);
    if (!block) return;
    memset(block, 5, 640);
    CHECK(memory_grow_lines(NULL, block, 640, memory_bytes(SIZE_MAX / 2, 4)) == NULL);
    CHECK(((unsigned char *)block)[639] == 5);
    memory_free(NULL, block, 640);
}

static void test_half_an_allocator_is_refused(void)
{
    counting c = {0};
    carom_world_def def = carom_default_world_def();
    def.allocator = counting_allocator(&c, 1);
    def.allocator.release = NULL;
    carom_world *w = NULL;
    char why[200] = "";
    CHECK_EQ_INT(carom_world_create(&def, &w, why, sizeof why), CAROM_INVALID_ARGUMENT);
    CHECK(w == NULL && strstr(why, "allocator") != NULL);
    CHECK_EQ_INT(c.requests, 0);
}

int main(void)
{
    RUN(test_grow_together);
    RUN(test_record_arrays_on_cache_lines);
    RUN(test_half_an_allocator_is_refused);
    RUN(test_order_out_of_memory);
    RUN(test_mass_per_body_out_of_memory);
    RUN(test_own_stamps_out_of_memory);
    RUN(test_cells_recorded_again_out_of_memory);
    RUN(test_failed_list_build_keeps_grid);
    RUN(test_collision_count_carries);
    RUN(test_carries_table);
    RUN(test_without_reallocate);
    RUN(test_crowded_frames);
    RUN(test_gravity_walls_and_frames);
    RUN(test_dense_neighbour_lists);
    return CHECK_SUMMARY();
}
