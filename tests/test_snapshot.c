/* test_snapshot.c — a world restored from a snapshot continues bit for bit
 * as the original (checkpoint and restart rest on this), whether the
 * snapshot is taken after a number of events or at a time between events,
 * with gravity and inelastic collisions too; damaged or foreign snapshots are
 * refused with a message, never crash. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "forge.h"
#include "state_hash.h"
#include "world.h" /* to check which neighbour structure is in use */

static uint64_t state_hash(const carom_world *w)
{
    uint64_t hash = hash_bodies(FNV1A_OFFSET, w, 1);
    for (int32_t i = 0; i < carom_world_body_count(w); i++) { /* rotation too */
        carom_body_state b;
        CHECK(carom_world_get_body(w, i, &b) == CAROM_OK);
        hash = fnv1a(hash, &b.orientation, sizeof b.orientation);
        hash = fnv1a(hash, &b.angle, sizeof b.angle);
        hash = fnv1a(hash, &b.angular_velocity, sizeof b.angular_velocity);
    }
    carom_stats st = carom_world_stats(w);
    double measured[6] = {st.time, st.pressure, st.collision_rate, st.mean_temperature, st.control_work,
                          st.kinematic_work};
    int64_t counts[5] = {st.pair_events, st.wall_events, st.cell_events, st.stale_events, st.sensor_events};
    hash = fnv1a(hash, measured, sizeof measured);
    return fnv1a(hash, counts, sizeof counts);
}

static int64_t callbacks;
static int count_callback(void *user, const carom_event *e)
{
    (void)user;
    (void)e;
    callbacks++;
    return 0;
}

/* Driven bodies: every third body with its own acceleration, every
 * fiftieth kinematic in a periodic box (in a box with walls these crowded
 * ones would soon squeeze a body against a wall: a jam), and two sensors. */
static void drive_some(carom_world *w, carom_rng *rng, carom_body_def *b, int count)
{
    if (count % 3 == 0)
        b->acceleration = (carom_vec){0.2 * (carom_rng_uniform(rng) - 0.5), 0.2 * (carom_rng_uniform(rng) - 0.5),
                                      0.2 * (carom_rng_uniform(rng) - 0.5)};
    if (count % 50 == 7 && carom_world_definition(w).boundary[0] == CAROM_PERIODIC) b->mass = INFINITY;
    if (count == 0) {
        carom_sensor_def across = carom_default_sensor_def(), part = carom_default_sensor_def();
        across.position = 1.5;
        part.axis = 1, part.position = -2.0, part.lo = (carom_vec){-3, 0, -2}, part.hi = (carom_vec){4, 0, 3};
        CHECK(carom_world_add_sensor(w, &across, NULL) == CAROM_OK &&
              carom_world_add_sensor(w, &part, NULL) == CAROM_OK);
    }
}

/* Rough worlds: spinning bodies, some turned, one with its own inertia. */
static void spin_some(carom_world *w, carom_rng *rng, carom_body_def *b, int count)
{
    int dim = carom_world_definition(w).dim;
    b->angular_velocity = (carom_vec){0.0, 0.0, 2.0 * carom_rng_uniform(rng) - 1.0};
    if (dim == 3) b->angular_velocity.x = carom_rng_uniform(rng) - 0.5, b->angular_velocity.y = 0.3;
    if (dim == 2) b->angle = 6.0 * carom_rng_uniform(rng);
    if (dim == 3 && count % 4 == 1) b->orientation = (carom_quat){0.6, 0.0, 0.0, 0.8};
    if (count % 7 == 3) b->inertia = 0.05 + 0.1 * carom_rng_uniform(rng);
}

/* granular: 0 a fluid, 1 a granular gas under gravity, 2 driven bodies in a
 * 2D box with walls, 3 driven bodies in a 3D periodic box, 4 rough spinning
 * spheres in a 3D periodic box, 5 rough spinning disks under gravity in a 2D
 * box of smooth walls (they come to rest on the floor), 6 rough spinning
 * disks in a 2D box of rough walls.
 * shell: world_def.neighbour_shell (> 0 forces neighbour lists). */
static carom_world *make_world(int granular, double shell)
{
    int driven = granular == 2 || granular == 3;
    carom_world_def def = carom_default_world_def();
    def.neighbour_shell = shell;
    def.dim = granular == 1 || granular == 2 || granular >= 5 ? 2 : 3;
    if (granular >= 4) def.tangential_restitution = 0.4, def.restitution = 0.95;
    if (granular >= 5) def.boundary[0] = def.boundary[1] = CAROM_WALLS;
    if (granular == 5) def.gravity = (carom_vec){0.0, -0.5, 0}, def.elastic_below_speed = 0.05;
    if (granular == 6) def.wall_tangential_restitution = 0.3, def.wall_restitution = 0.9;
    def.box = (carom_vec){14, 12, 10};
    if (granular == 2) def.boundary[0] = def.boundary[1] = CAROM_WALLS;
    if (granular == 1) {
        def.boundary[1] = CAROM_WALLS;
        def.gravity = (carom_vec){0.1, -0.5, 0};
        def.restitution = 0.85;
        def.elastic_below_speed = 0.05;
    }
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_rng rng = carom_rng_seed(granular ? 5 : 6);
    for (int tries = 0; tries < 20000 && carom_world_body_count(w) < 400; tries++) {
        carom_body_def b = carom_default_body_def();
        b.radius = 0.3 + 0.2 * carom_rng_uniform(&rng);
        b.mass = 0.5 + carom_rng_uniform(&rng);
        b.position =
            (carom_vec){14 * carom_rng_uniform(&rng) - 7, 11 * carom_rng_uniform(&rng) - 5.5,
                        10 * carom_rng_uniform(&rng) - 5};
        b.velocity = (carom_vec){carom_rng_uniform(&rng) - 0.5, carom_rng_uniform(&rng) - 0.5,
                                 carom_rng_uniform(&rng) - 0.5};
        if (driven) drive_some(w, &rng, &b, carom_world_body_count(w));
        if (granular >= 4) spin_some(w, &rng, &b, carom_world_body_count(w));
        (void)carom_world_add_body(w, &b, NULL);
    }
    return w;
}

static carom_world *snapshot_and_restore(const carom_world *w)
{
    size_t size = carom_world_snapshot_size(w);
    void *buffer = malloc(size);
    CHECK(buffer != NULL && carom_world_snapshot(w, buffer, size) == CAROM_OK);
    carom_world *copy = NULL;
    char why[256] = "";
    CHECK_MSG(carom_world_restore(buffer, size, count_callback, NULL, &copy, why, sizeof why) ==
                  CAROM_OK,
              "%s", why);
    free(buffer);
    return copy;
}

static unsigned char *snapshot_of(const carom_world *w, size_t *size)
{
    *size = carom_world_snapshot_size(w);
    unsigned char *b = malloc(*size);
    CHECK(b && carom_world_snapshot(w, b, *size) == CAROM_OK);
    return b;
}

static void check_restart(int granular, double t_split, int64_t events_split, double shell)
{
    /* the granular and rough worlds to t = 20 only under CAROM_TEST_QUICK (the sanitizer pass) */
    double end = (granular == 1 || granular >= 4) && check_quick() ? 20.0 : 60.0;
    t_split *= end / 60.0;
    carom_world *whole = make_world(granular, shell), *first = make_world(granular, shell);
    CHECK_MSG(carom_world_run(whole, end, -1) == CAROM_OK, "%s", carom_world_message(whole));
    CHECK(carom_world_run(first, t_split, events_split) == CAROM_OK);
    carom_world *second = snapshot_and_restore(first);
    if (!second) return;
    CHECK(first->nb.on == second->nb.on && (shell == 0.0 || second->nb.on == (shell > 0.0)));
    size_t size_first, size_second; /* the copy's snapshot is the same bytes */
    unsigned char *bytes_first = snapshot_of(first, &size_first);
    unsigned char *bytes_second = snapshot_of(second, &size_second);
    CHECK(size_first == size_second && memcmp(bytes_first, bytes_second, size_first) == 0);
    free(bytes_first);
    free(bytes_second);
    CHECK(state_hash(second) == state_hash(first));
    callbacks = 0;
    CHECK(carom_world_run(second, end, -1) == CAROM_OK);
    CHECK(callbacks > (end < 60.0 ? 300 : 1000));
    CHECK(state_hash(second) == state_hash(whole));
    CHECK(carom_world_run(first, end, -1) ==
          CAROM_OK); /* the original is untouched by the snapshot */
    CHECK(state_hash(first) == state_hash(whole));
    carom_world_destroy(whole);
    carom_world_destroy(first);
    carom_world_destroy(second);
}

static void test_restart_after_events(void) { check_restart(0, 1e9, 12345, 0.0); }
static void test_restart_between_events(void) { check_restart(0, 17.3, -1, 0.0); }
static void test_restart_with_neighbour_lists(void) { check_restart(0, 13.1, -1, 0.3); }
static void test_restart_granular(void) { check_restart(1, 21.7, -1, 0.0); }
static void test_restart_driven(void) { check_restart(2, 19.9, -1, -1.0); }
static void test_restart_driven_disks_with_automatic_lists(void)
{
    carom_world *w = make_world(2, 0.0); /* disks packed at random, past area fraction 0.5: lists */
    CHECK(carom_world_run(w, 0.0, -1) == CAROM_OK && w->nb.on);
    carom_world_destroy(w);
    check_restart(2, 19.9, -1, 0.0);
}
static void test_restart_rough_spheres(void) { check_restart(4, 15.7, -1, 0.0); }
static void test_restart_rough_disks_under_gravity(void) { check_restart(5, 23.3, -1, 0.0); }
static void test_restart_rough_disks_on_rough_walls(void) { check_restart(6, 9.1, -1, 0.0); }
static void test_restart_driven_with_lists(void) { check_restart(3, 11.3, -1, 0.3); }

static void test_restart_before_first_run(void)
{
    carom_world *a = make_world(0, 0.0);
    carom_world *b = snapshot_and_restore(a); /* bodies added, nothing predicted yet */
    if (!b) return;
    CHECK(carom_world_run(a, 10.0, -1) == CAROM_OK);
    CHECK(carom_world_run(b, 10.0, -1) == CAROM_OK);
    CHECK(state_hash(a) == state_hash(b));
    carom_world_destroy(a);
    carom_world_destroy(b);
}

/* ---- damage: every field is checked, any flipped bit is refused ---------- */

/* Offsets of the format-4 layout (src/snapshot.c), read and written here
 * little-endian whatever the machine. */
enum {
    AT_LENGTH = 16,
    AT_CAPACITY_HINT = 116,
    AT_CLOCK = 136,
    AT_COUNT = 144,
    AT_REBUILD = 160,
    AT_ORDER = 164,
    AT_WALL_EVENTS = 180,
    AT_WINDOW_START = 204,
    AT_GRID = 252,
    HEADER = 404,
    BODY = 110,
    BODY_V = 24,
    BODY_T = 48,
    BODY_COLLISIONS = 80,
    BODY_PARTNER = 88,
    BODY_KIND = 96,
    BODY_TIME = 98,
    BODY_CELL = 106
};

static double get_f64_le(const unsigned char *b, size_t at)
{
    uint64_t bits = get_le(b, at, 8);
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}


static void expect_refused(const unsigned char *buffer, size_t size, const char *phrase)
{
    carom_world *w = (carom_world *)buffer;
    char why[400] = "";
    CHECK_EQ_INT(carom_world_restore(buffer, size, NULL, NULL, &w, why, sizeof why),
                 CAROM_INVALID_ARGUMENT);
    CHECK(w == NULL);
    CHECK_MSG(strstr(why, phrase) != NULL && strstr(why, "snapshot byte ") != NULL,
              "message '%s' should name the byte and say '%s'", why, phrase);
}

static carom_world *restored(const unsigned char *buffer, size_t size)
{
    carom_world *w = NULL;
    char why[400] = "";
    CHECK_MSG(carom_world_restore(buffer, size, NULL, NULL, &w, why, sizeof why) == CAROM_OK, "%s",
              why);
    return w;
}

/* Three disks between two walls and a periodic axis, after some collisions. */
static carom_world *small_world(void)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){6, 4, 1};
    def.boundary[1] = CAROM_WALLS;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_vec x[3] = {{-2, 0, 0}, {0, 1, 0}, {2, -1, 0}},
              v[3] = {{1, 0.5, 0}, {-0.3, 0.7, 0}, {-1, -0.2, 0}};
    for (int k = 0; k < 3; k++) {
        carom_body_def b = carom_default_body_def();
        b.position = x[k];
        b.velocity = v[k];
        CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    }
    CHECK(carom_world_run(w, 7.3, -1) == CAROM_OK);
    carom_stats st = carom_world_stats(w);
    CHECK(st.pair_events > 0 && st.wall_events > 0 && st.cell_events > 0);
    return w;
}

static void test_crc32c(void)
{
    /* the check value of CRC-32C (RFC 3720, B.4; Castagnoli 1993) */
    CHECK_EQ_INT(carom_crc32c(0, "123456789", 9), 0xE3069283u);
    CHECK_EQ_INT(carom_crc32c(carom_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u); /* in pieces */
    unsigned char zeros[32] = {0};
    CHECK_EQ_INT(carom_crc32c(0, zeros, sizeof zeros),
                 0x8A9136AAu); /* RFC 3720, B.4: 32 bytes of zeros */
}

static void test_every_bit_flip_refused(void)
{
    carom_world *w = small_world();
    size_t size;
    unsigned char *good = snapshot_of(w, &size), *bad = malloc(size);
    CHECK(size == HEADER + 3 * BODY + 4);
    carom_world *copy = restored(good, size);
    carom_world_destroy(copy);
    int accepted = 0;
    for (size_t bit = 0; bit < 8 * size; bit++) {
        memcpy(bad, good, size);
        bad[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        carom_world *r = NULL;
        char why[400] = "";
        if (carom_world_restore(bad, size, NULL, NULL, &r, why, sizeof why) !=
                CAROM_INVALID_ARGUMENT ||
            r) {
            accepted++;
            carom_world_destroy(r);
        } else if (!strstr(why, "snapshot byte ")) {
            CHECK_MSG(0, "bit %zu: '%s' names no byte", bit, why);
        }
    }
    CHECK_EQ_INT(accepted, 0);
    free(good);
    free(bad);
    carom_world_destroy(w);
}

static void test_every_truncation_refused(void)
{
    carom_world *w = small_world();
    size_t size;
    unsigned char *good = snapshot_of(w, &size), *longer = calloc(size + 8, 1);
    for (size_t n = 0; n < size; n++) {
        unsigned char *cut =
            malloc(n > 0 ? n : 1); /* exactly n bytes: ASan sees any read past them */
        memcpy(cut, good, n);
        carom_world *r = NULL;
        CHECK_EQ_INT(carom_world_restore(cut, n, NULL, NULL, &r, NULL, 0), CAROM_INVALID_ARGUMENT);
        CHECK(r == NULL);
        free(cut);
    }
    expect_refused(good, 20, "ends after 20 bytes");
    expect_refused(good, size - 1, "total length");
    memcpy(longer, good, size); /* bytes after the checksum */
    expect_refused(longer, size + 8, "total length");
    free(good);
    free(longer);
    carom_world_destroy(w);
}

/* One field changed and the snapshot resealed: refused, naming the field. */
static void expect_field_refused(const unsigned char *good, size_t size, size_t at, uint64_t value,
                                 int bytes, const char *phrase)
{
    unsigned char *bad = malloc(size);
    memcpy(bad, good, size);
    put_le(bad, at, value, bytes);
    reseal_snapshot(bad, size);
    expect_refused(bad, size, phrase);
    free(bad);
}

/* Format 7's rotation: the header's coefficients and flags, each body's spin record. */
static void test_forged_rotation_refused(void)
{
    carom_world *w = make_world(4, 0.0); /* rough spinning spheres: 198-byte bodies */
    CHECK(carom_world_run(w, 3.0, -1) == CAROM_OK);
    size_t size, at_rotation = HEADER - 36;
    unsigned char *good = snapshot_of(w, &size);
    size_t body = (size - HEADER - 4) / (size_t)carom_world_body_count(w), at_spin = HEADER + body - 76;
    CHECK(body == BODY + 12 + 76); /* the TC model's record, then the spin's */
    expect_field_refused(good, size, at_rotation, bits_of(1.5), 8, "tangential_restitution");
    expect_field_refused(good, size, at_rotation + 16, bits_of(-0.5), 8, "friction");
    expect_field_refused(good, size, at_rotation + 24, 0, 4, "rotation");
    expect_field_refused(good, size, at_rotation + 28, 1, 4, "polygons");
    expect_field_refused(good, size, at_spin, bits_of(NAN), 8, "angular velocity");
    expect_field_refused(good, size, at_spin + 24, bits_of(0.9), 8, "orientation");
    expect_field_refused(good, size, at_spin + 56, bits_of(1e9), 8, "orientation time");
    expect_field_refused(good, size, at_spin + 64, bits_of(-1.0), 8, "inertia");
    expect_field_refused(good, size, at_spin + 72, 0, 4, "polygon");
    free(good);
    carom_world_destroy(w);
}

static void test_forged_fields_refused(void)
{
    carom_world *w = small_world();
    size_t size;
    unsigned char *good = snapshot_of(w, &size);
    double clock = get_f64_le(good, AT_CLOCK);
    size_t body1 = HEADER + BODY;
    expect_field_refused(good, size, 8, 3, 4,
                         "snapshot format version 3, this carom reads version 7");
    expect_field_refused(good, size, 12, 0x04030201u, 4, "byte-order tag");
    expect_field_refused(good, size, 24, 7, 4, "world def"); /* dim */
    expect_field_refused(good, size, AT_COUNT, 2, 4, "make a snapshot of");
    expect_field_refused(good, size, AT_COUNT, 0x7ffffffe, 4, "make a snapshot of");
    expect_field_refused(good, size, AT_COUNT, 0xffffffff, 4, "body count"); /* -1 */
    expect_field_refused(good, size, AT_CLOCK, bits_of(NAN), 8, "clock");
    expect_field_refused(good, size, AT_CLOCK, bits_of(clock / 4), 8,
                         "time stamp"); /* bodies after the clock */
    expect_field_refused(good, size, AT_REBUILD, 2, 4, "rebuild flag");
    expect_field_refused(good, size, AT_ORDER, (uint64_t)-5, 8, "events since re-sorting");
    expect_field_refused(good, size, AT_WALL_EVENTS, get_le(good, AT_WALL_EVENTS, 8) + 1, 8,
                         "event counts");
    expect_field_refused(good, size, AT_WINDOW_START, bits_of(clock + 1), 8,
                         "measuring window start");
    expect_field_refused(good, size, AT_GRID, 65537, 4,
                         "grid cells"); /* 65537 x n1 cells for 3 bodies */
    expect_field_refused(good, size, AT_GRID, 0x0001000100010001ull, 8,
                         "grid cells"); /* 65537^2 wraps int */
    expect_field_refused(good, size, AT_GRID, 0, 4, "grid cells");
    expect_field_refused(good, size, AT_GRID, 0, 12, "grid cells");
    expect_field_refused(good, size, AT_GRID + 8, 2, 4, "grid cells"); /* z cells in 2D */
    expect_field_refused(good, size, AT_GRID + 4, 5, 4,
                         "grid cells"); /* cells narrower than a diameter */
    expect_field_refused(good, size, body1 + BODY_V, bits_of(INFINITY), 8, "velocity");
    expect_field_refused(good, size, body1 + BODY_T, bits_of(-1.0), 8, "time stamp");
    expect_field_refused(good, size, body1 + BODY_PARTNER, 0xff, 4,
                         "event");      /* no such partner or face */
    unsigned char *self = malloc(size); /* a pair with itself */
    memcpy(self, good, size);
    put_le(self, body1 + BODY_PARTNER, 1, 4);
    put_le(self, body1 + BODY_KIND, 1, 1);
    reseal_snapshot(self, size);
    expect_refused(self, size, "event");
    free(self);
    expect_field_refused(good, size, body1 + BODY_KIND, 9, 1, "event");
    expect_field_refused(good, size, body1 + BODY_TIME, bits_of(clock / 2), 8, "event time");
    /* a wall or cell event that is not the one the body's state gives (another face) */
    int own_events = 0;
    for (int32_t b = 0; b < 3 && !own_events; b++) {
        size_t at = HEADER + (size_t)b * BODY;
        if (good[at + BODY_KIND] != 2 && good[at + BODY_KIND] != 3) continue; /* walls and cells only */
        expect_field_refused(good, size, at + BODY_PARTNER, get_le(good, at + BODY_PARTNER, 4) ^ 1, 4,
                             "its own next event is");
        own_events++;
    }
    CHECK(own_events == 1);
    /* an event put off past the body's own wall or cell event: it would pass unseen */
    expect_field_refused(good, size, body1 + BODY_TIME, bits_of(clock + 1e6), 8, "own next wall or cell event");
    expect_field_refused(good, size, body1 + BODY_CELL, get_le(good, body1 + BODY_CELL, 4) ^ 1, 4,
                         "cell");
    expect_field_refused(good, size, body1 + BODY_CELL, 1000, 4, "cell");
    /* a total length that is not the bytes present, however the checksum reads */
    unsigned char *bad = malloc(size);
    memcpy(bad, good, size);
    reseal_snapshot(bad, size);
    put_le(bad, AT_LENGTH, (uint64_t)1 << 40, 8);
    put_le(bad, size - 4, carom_crc32c(0, bad, size - 4), 4);
    expect_refused(bad, size, "total length");
    free(bad);
    free(good);
    carom_world_destroy(w);
}

/* Forged damage of every kind (random bytes, the checksum made to match):
 * the checks refuse it, or the world runs on and snapshots again without
 * reading or writing out of bounds (ASan and the core's asserts watch). A
 * forged state that keeps every invariant checked (a later event time, say)
 * may still be unphysical: the checksum, not these checks, catches damage. */
static void test_random_forgeries_are_safe(void)
{
    carom_world *w = small_world();
    size_t size;
    unsigned char *good = snapshot_of(w, &size), *bad = malloc(size);
    carom_rng rng = carom_rng_seed(17);
    int accepted = 0;
    for (int k = 0; k < 20000; k++) {
        memcpy(bad, good, size);
        int changes = 1 + (int)(carom_rng_next(&rng) % 3);
        for (int c = 0; c < changes; c++)
            bad[24 + carom_rng_next(&rng) % (size - 28)] = (unsigned char)carom_rng_next(&rng);
        reseal_snapshot(bad, size);
        carom_world *r = NULL;
        if (carom_world_restore(bad, size, NULL, NULL, &r, NULL, 0) != CAROM_OK) continue;
        accepted++;
        (void)carom_world_run(r, INFINITY, 200);
        size_t again_size;
        unsigned char *again = snapshot_of(r, &again_size);
        carom_world *copy = NULL;
        (void)carom_world_restore(again, again_size, NULL, NULL, &copy, NULL, 0);
        carom_world_destroy(copy);
        free(again);
        carom_world_destroy(r);
    }
    CHECK(accepted > 100); /* small changes to positions, velocities, counters are states too */
    free(good);
    free(bad);
    carom_world_destroy(w);
}

/* ---- forged sizes cost no memory ----------------------------------------- */

/* Under AddressSanitizer the address space cannot be limited; elsewhere on
 * Linux the forged snapshots below are read within 1 GiB of address space,
 * so a reader that believed their counts would fail for want of memory
 * instead of refusing them by name. */
#if defined(__SANITIZE_ADDRESS__)
#define ADDRESS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ADDRESS_SANITIZED 1
#endif
#endif
#if defined(__linux__) && !defined(ADDRESS_SANITIZED)
#include <sys/resource.h>
static void within_memory(void (*test)(void))
{
    struct rlimit old, limited;
    CHECK(getrlimit(RLIMIT_AS, &old) == 0);
    limited = old;
    if (old.rlim_max == RLIM_INFINITY || old.rlim_max > ((rlim_t)1 << 30))
        limited.rlim_cur = (rlim_t)1 << 30;
    CHECK(setrlimit(RLIMIT_AS, &limited) == 0);
    test();
    CHECK(setrlimit(RLIMIT_AS, &old) == 0);
}
#else
static void within_memory(void (*test)(void)) { test(); }
#endif

static void forged_sizes(void)
{
    carom_world *w = small_world();
    size_t size;
    unsigned char *good = snapshot_of(w, &size);
    expect_field_refused(good, size, AT_COUNT, 0x7ffffffe, 4, "make a snapshot of");
    expect_field_refused(good, size, AT_COUNT, 20000000, 4, "make a snapshot of");
    expect_field_refused(good, size, AT_GRID, 0x0001000100010001ull, 8, "cells for 3 bodies");
    expect_field_refused(good, size, AT_GRID, 0x00000400000fffffull, 8,
                         "cells for 3 bodies"); /* 2^20 x 2^10 */
    /* A huge capacity hint is a hint: kept, but room is made for the bodies present. */
    unsigned char *hinted = malloc(size);
    memcpy(hinted, good, size);
    put_le(hinted, AT_CAPACITY_HINT, INT32_MAX, 4);
    reseal_snapshot(hinted, size);
    carom_world *r = restored(hinted, size);
    if (r) {
        CHECK_EQ_INT(carom_world_definition(r).capacity_hint, INT32_MAX);
        CHECK(carom_world_run(r, 20.0, -1) == CAROM_OK && carom_world_run(w, 20.0, -1) == CAROM_OK);
        CHECK(state_hash(r) == state_hash(w));
    }
    carom_world_destroy(r);
    free(hinted);
    free(good);
    carom_world_destroy(w);
}

static void test_forged_sizes_cost_no_memory(void) { within_memory(forged_sizes); }

/* ---- collision counts ---------------------------------------------------- */

enum { TALLY_BODIES = 40 };
typedef struct tally {
    uint64_t collisions[TALLY_BODIES];
    int64_t pairs, walls;
} tally;

static int tally_event(void *user, const carom_event *e)
{
    tally *t = user;
    t->collisions[e->i]++;
    if (e->kind == CAROM_EVENT_PAIR)
        t->collisions[e->j]++, t->pairs++;
    else
        t->walls++;
    return 0;
}

/* Each body's count is its pair and wall collisions as the event callback
 * saw them: cell crossings and steering do not count. */
static void test_collision_counts(void)
{
    tally t;
    memset(&t, 0, sizeof t);
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){24, 24, 1};
    def.boundary[0] = CAROM_WALLS;
    def.on_event = tally_event;
    def.user = &t;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_rng rng = carom_rng_seed(11);
    for (int k = 0; k < TALLY_BODIES; k++) {
        carom_body_def b = carom_default_body_def();
        b.position = (carom_vec){-10 + 2.5 * (k % 8), -10 + 4.0 * (k / 8), 0};
        b.velocity = (carom_vec){carom_rng_uniform(&rng) - 0.5, carom_rng_uniform(&rng) - 0.5, 0};
        CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    }
    CHECK(carom_world_run(w, 40.0, -1) == CAROM_OK);
    for (int32_t id = 0; id < 5; id++)
        CHECK(carom_world_set_body_velocity(w, id, (carom_vec){1, -1, 0}) == CAROM_OK);
    CHECK(carom_world_run(w, 80.0, -1) == CAROM_OK);
    carom_stats st = carom_world_stats(w);
    CHECK(st.cell_events > 10 * (st.pair_events + st.wall_events) / 10 && t.pairs > 20 &&
          t.walls > 20);
    CHECK_EQ_INT(st.pair_events, t.pairs);
    CHECK_EQ_INT(st.wall_events, t.walls);
    for (int32_t id = 0; id < TALLY_BODIES; id++) {
        carom_body_state b;
        CHECK(carom_world_get_body(w, id, &b) == CAROM_OK);
        CHECK_MSG(b.collisions == t.collisions[id],
                  "body %d: %llu collisions, the callback saw %llu", (int)id,
                  (unsigned long long)b.collisions, (unsigned long long)t.collisions[id]);
    }
    carom_world_destroy(w);
}

/* A count past 2^32 (set through a resealed snapshot, with the world's wall
 * events to match) is reported whole and goes on counting. */
static void test_collision_counts_do_not_wrap(void)
{
    carom_world *w = small_world();
    size_t size;
    unsigned char *b = snapshot_of(w, &size);
    uint64_t more = (uint64_t)3 << 32;
    uint64_t before = get_le(b, HEADER + BODY_COLLISIONS, 8);
    put_le(b, HEADER + BODY_COLLISIONS, before + more, 8);
    put_le(b, AT_WALL_EVENTS, get_le(b, AT_WALL_EVENTS, 8) + more, 8);
    reseal_snapshot(b, size);
    carom_world *r = restored(b, size);
    if (r) {
        carom_body_state s;
        CHECK(carom_world_get_body(r, 0, &s) == CAROM_OK && s.collisions == before + more);
        CHECK(carom_world_run(r, 40.0, -1) == CAROM_OK);
        CHECK(carom_world_get_body(r, 0, &s) == CAROM_OK && s.collisions > before + more);
        carom_world *again = snapshot_and_restore(r); /* the counts still add up */
        carom_world_destroy(again);
    }
    carom_world_destroy(r);
    free(b);
    carom_world_destroy(w);
}

/* ---- memory re-sorting --------------------------------------------------- */

/* 4500 spheres on a lattice (enough for order.c to re-sort them). */
static carom_world *crowd(void)
{
    carom_world_def def = carom_default_world_def();
    def.box = (carom_vec){20, 20, 20};
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_rng rng = carom_rng_seed(21);
    double step = 20.0 / 17;
    for (int k = 0; k < 4500; k++) {
        carom_body_def b = carom_default_body_def();
        b.position =
            (carom_vec){-10 + step * (k % 17), -10 + step * (k / 17 % 17), -10 + step * (k / 289)};
        b.velocity =
            (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), carom_rng_normal(&rng)};
        CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    }
    return w;
}

/* The restored world re-sorts its memory when the original does, and both
 * give the bits of an uninterrupted run across the re-sort. */
static void test_restart_across_a_resort(void)
{
    carom_world *whole = crowd(), *first = crowd();
    CHECK(carom_world_run(whole, INFINITY, 110000) == CAROM_OK);
    CHECK(carom_world_run(first, INFINITY, 50000) == CAROM_OK);
    carom_world *second = snapshot_and_restore(first);
    if (!second) return;
    CHECK(first->events_since_order >= 50000 &&
          second->events_since_order == first->events_since_order);
    CHECK(carom_world_run(first, INFINITY, 60000) == CAROM_OK);
    CHECK(carom_world_run(second, INFINITY, 60000) == CAROM_OK);
    /* 16 events per body (order.c) fell between: each re-sorted once, at the same event */
    CHECK(first->events_since_order < 60000 &&
          second->events_since_order == first->events_since_order);
    CHECK(state_hash(second) == state_hash(whole));
    CHECK(state_hash(first) == state_hash(whole));
    carom_world_destroy(whole);
    carom_world_destroy(first);
    carom_world_destroy(second);
}

/* Bodies added after a run with neighbour lists: the lists are rebuilt at
 * the next run, so the snapshot carries no anchors, and the copy continues
 * as the original. */
static void test_restart_after_adding_to_lists(void)
{
    carom_world *w = make_world(0, 0.3);
    CHECK(carom_world_run(w, 5.0, -1) == CAROM_OK && w->nb.on);
    carom_rng rng = carom_rng_seed(8);
    int added = 0;
    for (int tries = 0; tries < 1000 && added < 3; tries++) {
        carom_body_def b = carom_default_body_def();
        b.radius = 0.3;
        b.position = (carom_vec){14 * carom_rng_uniform(&rng) - 7, 12 * carom_rng_uniform(&rng) - 6,
                                 10 * carom_rng_uniform(&rng) - 5};
        added += carom_world_add_body(w, &b, NULL) == CAROM_OK;
    }
    CHECK(added == 3 && w->needs_rebuild);
    carom_world *copy = snapshot_and_restore(w);
    if (!copy) return;
    CHECK(carom_world_run(w, 30.0, -1) == CAROM_OK && carom_world_run(copy, 30.0, -1) == CAROM_OK);
    CHECK(w->nb.on && copy->nb.on && state_hash(copy) == state_hash(w));
    carom_world_destroy(w);
    carom_world_destroy(copy);
}

int main(void)
{
    RUN(test_restart_after_events);
    RUN(test_restart_between_events);
    RUN(test_restart_with_neighbour_lists);
    RUN(test_restart_granular);
    RUN(test_restart_driven);
    RUN(test_restart_driven_disks_with_automatic_lists);
    RUN(test_restart_rough_spheres);
    RUN(test_restart_rough_disks_under_gravity);
    RUN(test_restart_rough_disks_on_rough_walls);
    RUN(test_restart_driven_with_lists);
    RUN(test_restart_before_first_run);
    RUN(test_crc32c);
    RUN(test_every_bit_flip_refused);
    RUN(test_every_truncation_refused);
    RUN(test_forged_fields_refused);
    RUN(test_forged_rotation_refused);
    RUN(test_random_forgeries_are_safe);
    RUN(test_forged_sizes_cost_no_memory);
    RUN(test_collision_counts);
    RUN(test_collision_counts_do_not_wrap);
    RUN(test_restart_across_a_resort);
    RUN(test_restart_after_adding_to_lists);
    return CHECK_SUMMARY();
}
