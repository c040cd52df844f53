/* test_golden.c — determinism. The full state (every position and velocity,
 * bit for bit, plus the clock and the event counts) after a fixed number of
 * events from a fixed seed must hash to a recorded value, in Debug and in
 * optimised builds alike (the build uses -ffp-contract=off and no fast-math;
 * the states are made with uniform random numbers only, so no libm function
 * other than the correctly rounded sqrt is involved). The same run repeated,
 * or split into pieces by event count or by time, gives the same bits.
 *
 * If a change to the engine alters the trajectories on purpose, record the
 * new hashes here and say why in the commit. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "state_hash.h"

static uint64_t state_hash(const carom_world *w)
{
    uint64_t hash = hash_bodies(FNV1A_OFFSET, w, 0);
    carom_stats st = carom_world_stats(w);
    int64_t counts[3] = {st.pair_events, st.wall_events, st.cell_events};
    hash = fnv1a(hash, &st.time, sizeof st.time);
    return fnv1a(hash, counts, sizeof counts);
}

static double uniform(carom_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * carom_rng_uniform(rng);
}

/* Random sequential placement of n polydisperse bodies (radii 0.35 to 0.5). */
static void place(carom_world *w, const double half[3], int dim, int n, uint64_t seed)
{
    carom_rng rng = carom_rng_seed(seed);
    for (int placed = 0, tries = 0; placed < n && tries < 100000; tries++) {
        carom_body_def b = carom_default_body_def();
        b.radius = uniform(&rng, 0.35, 0.5);
        b.mass = b.radius * b.radius * (dim == 3 ? b.radius : 1.0);
        b.position = (carom_vec){uniform(&rng, -half[0] + 0.5, half[0] - 0.5),
                                 uniform(&rng, -half[1] + 0.5, half[1] - 0.5),
                                 dim == 3 ? uniform(&rng, -half[2] + 0.5, half[2] - 0.5) : 0.0};
        b.velocity = (carom_vec){uniform(&rng, -1, 1), uniform(&rng, -1, 1), uniform(&rng, -1, 1)};
        if (carom_world_add_body(w, &b, NULL) == CAROM_OK) placed++;
    }
    CHECK_EQ_INT(carom_world_body_count(w), n);
}

/* 3D periodic, elastic. */
static carom_world *fluid_3d(void)
{
    carom_world_def def = carom_default_world_def();
    def.box = (carom_vec){12, 12, 12};
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    place(w, (double[3]){6, 6, 6}, 3, 600, 2026);
    return w;
}

/* 2D, periodic in x, walls in y, gravity, inelastic with the elastic floor speed. */
static carom_world *granular_2d(void)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){30, 20, 0};
    def.boundary[1] = CAROM_WALLS;
    def.gravity = (carom_vec){0, -0.5, 0};
    def.restitution = 0.9;
    def.wall_restitution = 0.8;
    def.elastic_below_speed = 0.05;
    def.collapse_time = -1.0; /* recorded before the TC model; elastic_below_speed is its cure */
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    place(w, (double[3]){15, 10, 0}, 2, 300, 7);
    return w;
}

typedef carom_world *(*world_maker)(void);

static uint64_t run_in_pieces(world_maker make, const int64_t *pieces, int count)
{
    carom_world *w = make();
    for (int k = 0; k < count; k++) CHECK(carom_world_run(w, 1e9, pieces[k]) == CAROM_OK);
    uint64_t hash = state_hash(w);
    carom_world_destroy(w);
    return hash;
}

static void check_golden(world_maker make, int64_t events, uint64_t golden)
{
    uint64_t once = run_in_pieces(make, &events, 1);
    uint64_t again = run_in_pieces(make, &events, 1);
    int64_t pieces[4] = {1, events / 3, events / 2, events - 1 - events / 3 - events / 2};
    uint64_t split = run_in_pieces(make, pieces, 4);
    CHECK_MSG(once == golden, "state hash 0x%016" PRIx64 ", recorded 0x%016" PRIx64, once, golden);
    CHECK(again == once);
    CHECK(split == once);
}

static void test_golden_fluid_3d(void) { check_golden(fluid_3d, 200000, 0x4d3ef0fce48c10c3ULL); }
static void test_golden_granular_2d(void) { check_golden(granular_2d, 100000, 0x7db608dc8db851ddULL); }

/* Stopping at a time, then going on, gives the bits of one run to the end. */
static void test_split_by_time(void)
{
    carom_world *a = fluid_3d(), *b = fluid_3d();
    CHECK(carom_world_run(a, 20.0, -1) == CAROM_OK);
    for (int k = 1; k <= 8; k++) CHECK(carom_world_run(b, 2.5 * k, -1) == CAROM_OK);
    CHECK(state_hash(a) == state_hash(b));
    CHECK(carom_world_stats(a).pair_events > 5000);
    carom_world_destroy(a);
    carom_world_destroy(b);
}

int main(void)
{
    RUN(test_golden_fluid_3d);
    RUN(test_golden_granular_2d);
    RUN(test_split_by_time);
    return CHECK_SUMMARY();
}
