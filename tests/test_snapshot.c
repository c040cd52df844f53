/* test_snapshot.c — a world restored from a snapshot continues bit for bit
 * as the original (checkpoint and restart rest on this), whether the
 * snapshot is taken after a number of events or at a time between events,
 * with gravity and inelastic collisions too; damaged or foreign snapshots are
 * refused with a message, never crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "state_hash.h"
#include "world.h" /* to check which neighbour structure is in use */

static uint64_t state_hash(const carom_world *w)
{
    uint64_t hash = hash_bodies(FNV1A_OFFSET, w, 1);
    carom_stats st = carom_world_stats(w);
    double measured[4] = {st.time, st.pressure, st.collision_rate, st.mean_temperature};
    int64_t counts[4] = {st.pair_events, st.wall_events, st.cell_events, st.stale_events};
    hash = fnv1a(hash, measured, sizeof measured);
    return fnv1a(hash, counts, sizeof counts);
}

static int64_t callbacks;
static void count_callback(void *user, const carom_event *e)
{
    (void)user;
    (void)e;
    callbacks++;
}

/* shell: world_def.neighbour_shell (> 0 forces neighbour lists). */
static carom_world *make_world(int granular, double shell)
{
    carom_world_def def = carom_default_world_def();
    def.neighbour_shell = shell;
    def.dim = granular ? 2 : 3;
    def.box = (carom_vec){14, 12, 10};
    if (granular) {
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
        b.position = (carom_vec){14 * carom_rng_uniform(&rng) - 7, 11 * carom_rng_uniform(&rng) - 5.5,
                                 10 * carom_rng_uniform(&rng) - 5};
        b.velocity = (carom_vec){carom_rng_uniform(&rng) - 0.5, carom_rng_uniform(&rng) - 0.5,
                                 carom_rng_uniform(&rng) - 0.5};
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
    CHECK_MSG(carom_world_restore(buffer, size, count_callback, NULL, &copy, why, sizeof why) == CAROM_OK,
              "%s", why);
    free(buffer);
    return copy;
}

static void check_restart(int granular, double t_split, int64_t events_split, double shell)
{
    carom_world *whole = make_world(granular, shell), *first = make_world(granular, shell);
    CHECK(carom_world_run(whole, 60.0, -1) == CAROM_OK);
    CHECK(carom_world_run(first, t_split, events_split) == CAROM_OK);
    carom_world *second = snapshot_and_restore(first);
    if (!second) return;
    CHECK(second->nb.on == (shell > 0.0) && first->nb.on == second->nb.on);
    CHECK(state_hash(second) == state_hash(first));
    callbacks = 0;
    CHECK(carom_world_run(second, 60.0, -1) == CAROM_OK);
    CHECK(callbacks > 1000);
    CHECK(state_hash(second) == state_hash(whole));
    CHECK(carom_world_run(first, 60.0, -1) == CAROM_OK); /* the original is untouched by the snapshot */
    CHECK(state_hash(first) == state_hash(whole));
    carom_world_destroy(whole);
    carom_world_destroy(first);
    carom_world_destroy(second);
}

static void test_restart_after_events(void) { check_restart(0, 1e9, 12345, 0.0); }
static void test_restart_between_events(void) { check_restart(0, 17.3, -1, 0.0); }
static void test_restart_with_neighbour_lists(void) { check_restart(0, 13.1, -1, 0.3); }
static void test_restart_granular(void) { check_restart(1, 21.7, -1, 0.0); }

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

static void expect_refused(const unsigned char *buffer, size_t size, const char *phrase)
{
    carom_world *w = (carom_world *)buffer;
    char why[256] = "";
    CHECK_EQ_INT(carom_world_restore(buffer, size, NULL, NULL, &w, why, sizeof why), CAROM_INVALID_ARGUMENT);
    CHECK(w == NULL);
    CHECK_MSG(strstr(why, phrase) != NULL, "message '%s' should say '%s'", why, phrase);
}

static void test_damaged_snapshots(void)
{
    carom_world *w = make_world(0, 0.0);
    CHECK(carom_world_run(w, 3.0, -1) == CAROM_OK);
    size_t size = carom_world_snapshot_size(w);
    unsigned char *good = malloc(size), *bad = malloc(size);
    CHECK(carom_world_snapshot(w, good, size - 1) == CAROM_INVALID_ARGUMENT); /* too small a buffer */
    CHECK(carom_world_snapshot(w, good, size) == CAROM_OK);
    expect_refused(good, 4, "not a carom snapshot");
    expect_refused(good, 20, "truncated");
    expect_refused(good, size / 2, "truncated");
    expect_refused(good, size - 4, "truncated in body");
    memcpy(bad, good, size);
    bad[0] = 'X';
    expect_refused(bad, size, "not a carom snapshot");
    memcpy(bad, good, size);
    bad[8] = 99; /* version */
    expect_refused(bad, size, "version");
    /* Random damage anywhere must never crash (ASan watches). */
    carom_rng rng = carom_rng_seed(3);
    for (int k = 0; k < 300; k++) {
        memcpy(bad, good, size);
        size_t at = carom_rng_next(&rng) % size;
        bad[at] ^= (unsigned char)(1u << (carom_rng_next(&rng) % 8));
        carom_world *r = NULL;
        if (carom_world_restore(bad, size, NULL, NULL, &r, NULL, 0) == CAROM_OK) {
            CHECK(carom_world_body_count(r) == carom_world_body_count(w));
            carom_world_destroy(r);
        }
    }
    free(good);
    free(bad);
    carom_world_destroy(w);
}

int main(void)
{
    RUN(test_restart_after_events);
    RUN(test_restart_between_events);
    RUN(test_restart_with_neighbour_lists);
    RUN(test_restart_granular);
    RUN(test_restart_before_first_run);
    RUN(test_damaged_snapshots);
    return CHECK_SUMMARY();
}
