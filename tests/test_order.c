/* test_order.c — moving bodies around in memory never changes a result.
 *
 * order.c re-sorts bodies by cell during a run. Every choice between equal
 * times goes by body id, so a run whose bodies are shuffled to random slots
 * again and again must give bit for bit the same states, statistics and
 * event log (by id) as a run left alone: with walls and periodic sides, with
 * gravity and restitution, in 2D and 3D, after a snapshot too; and the
 * automatic sorting of a large world (at the rebuild before its first
 * events, and during the run) must keep every invariant and leave the slots
 * in cell order. Worlds of 70,000 bodies, above the size from which
 * the event loop prefetches the next events' records, are shuffled too, and
 * dilute worlds of 330,000 and 400,000 bodies, whose grids have more than
 * 2^20 cells, where the prefetcher guesses each cell's stencil. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "order.h"
#include "prefetch.h"
#include "state_hash.h"
#include "world.h"

typedef struct event_log {
    uint64_t hash;
    int64_t count;
} event_log;

static int log_event(void *user, const carom_event *e)
{
    event_log *log = user;
    int32_t fields[3] = {(int32_t)e->kind, e->i, e->j};
    log->hash = fnv1a(log->hash, &e->time, sizeof e->time);
    log->hash = fnv1a(log->hash, fields, sizeof fields);
    log->hash = fnv1a(log->hash, &e->impulse, sizeof e->impulse);
    log->count++;
    return 0;
}

/* 2D or 3D, polydisperse; granular: 1 walls on y, gravity, restitution < 1,
 * 2 that with rough bodies and walls, spinning (their spin records move with
 * them), 3 a size-asymmetric mixture: the first MIXTURE_LARGE bodies of
 * radius 1.6 (large bodies with long rows, when lists are on);
 * shell: world_def.neighbour_shell (> 0 forces neighbour lists). */
enum { MIXTURE = 3, MIXTURE_LARGE = 6, DILUTE = 4 };
static carom_world *make_world(int dim, int granular, int n, double shell, event_log *log)
{
    carom_world_def def = carom_default_world_def();
    def.dim = dim;
    double per_volume = granular == DILUTE ? 0.02 : dim == 3 ? 0.5 : 0.6;
    double side = dim == 3 ? cbrt(n / per_volume) : sqrt(n / per_volume);
    def.box = (carom_vec){side, side, side};
    if (granular && granular != MIXTURE && granular != DILUTE) {
        def.boundary[1] = CAROM_WALLS;
        def.gravity = (carom_vec){0.05, -0.4, 0};
        def.restitution = 0.9;
        def.elastic_below_speed = 0.05;
    }
    if (granular == 2) def.tangential_restitution = 0.5, def.wall_tangential_restitution = 0.2;
    def.neighbour_shell = shell;
    def.on_event = log_event;
    def.user = log;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_rng rng = carom_rng_seed(100 + 10 * dim + granular);
    for (int tries = 0; tries < 100 * n && carom_world_body_count(w) < n; tries++) {
        carom_body_def b = carom_default_body_def();
        b.radius = 0.3 + 0.2 * carom_rng_uniform(&rng);
        b.mass = 0.5 + carom_rng_uniform(&rng);
        if (granular == MIXTURE && carom_world_body_count(w) < MIXTURE_LARGE) b.radius = 1.6, b.mass = 30.0;
        double u[3];
        for (int a = 0; a < 3; a++) u[a] = (carom_rng_uniform(&rng) - 0.5) * (side - 1.0);
        b.position = (carom_vec){u[0], u[1], dim == 3 ? u[2] : 0.0};
        b.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng),
                                 dim == 3 ? carom_rng_normal(&rng) : 0.0};
        if (granular == 2)
            b.angular_velocity = (carom_vec){dim == 3 ? carom_rng_normal(&rng) : 0.0,
                                             dim == 3 ? carom_rng_normal(&rng) : 0.0, carom_rng_normal(&rng)};
        (void)carom_world_add_body(w, &b, NULL);
    }
    CHECK(carom_world_body_count(w) == n);
    return w;
}

/* Sends every body to a random slot (Fisher-Yates over the slots). */
static void shuffle(carom_world *w, carom_rng *rng)
{
    int32_t n = w->count, *from = malloc((size_t)n * sizeof *from);
    for (int32_t p = 0; p < n; p++) from[p] = p;
    for (int32_t p = n - 1; p > 0; p--) {
        int32_t q = (int32_t)(carom_rng_next(rng) % (uint64_t)(p + 1));
        int32_t keep = from[p];
        from[p] = from[q];
        from[q] = keep;
    }
    CHECK(order_permute(w, from) == 0);
    free(from);
    for (int32_t id = 0; id < n; id++) CHECK(w->id_of[w->slot_of[id]] == id);
}

static uint64_t stats_hash(const carom_world *w)
{
    carom_stats st = carom_world_stats(w);
    double measured[8] = {st.time, st.kinetic_energy, st.pressure, st.collision_rate,
                          st.mean_temperature, st.wall_pressure, st.rotational_energy, st.angular_momentum.z};
    int64_t counts[4] = {st.pair_events, st.wall_events, st.cell_events, st.stale_events};
    uint64_t hash = fnv1a(hash_bodies(FNV1A_OFFSET, w, 1), measured, sizeof measured);
    for (int32_t id = 0; id < carom_world_body_count(w); id++) {
        carom_body_state b;
        CHECK(carom_world_get_body(w, id, &b) == CAROM_OK);
        hash = fnv1a(hash, &b.orientation, sizeof b.orientation);
        hash = fnv1a(hash, &b.angular_velocity, sizeof b.angular_velocity);
    }
    return fnv1a(hash, counts, sizeof counts);
}

/* One run of n bodies to time t_end (at least min_events events) left alone,
 * one shuffled every slice events: the same bits. */
static void check_layout_free_sized(int dim, int granular, int n, double t_end, int64_t min_events,
                                    int64_t slice, double shell)
{
    event_log plain_log = {FNV1A_OFFSET, 0}, moved_log = {FNV1A_OFFSET, 0};
    carom_world *plain = make_world(dim, granular, n, shell, &plain_log);
    carom_world *moved = make_world(dim, granular, n, shell, &moved_log);
    carom_rng rng = carom_rng_seed(7);
    CHECK(carom_world_run(plain, t_end, -1) == CAROM_OK);
    CHECK(carom_world_run(moved, 0.0, -1) == CAROM_OK); /* predictions made, nothing happened */
    shuffle(moved, &rng);
    while (carom_world_stats(moved).time < t_end) {
        CHECK(carom_world_run(moved, t_end, slice) == CAROM_OK);
        shuffle(moved, &rng);
    }
    CHECK(plain->nb.on == (shell > 0.0)); /* the structure under test is in use */
    if (granular == DILUTE) CHECK_MSG(plain->grid.total >= PREFETCH_GUESS_FROM_CELLS && n >= PREFETCH_FROM_BODIES, "%d cells", (int)plain->grid.total);
    CHECK_MSG(plain_log.count > min_events, "only %lld events", (long long)plain_log.count);
    CHECK(moved_log.count == plain_log.count);
    CHECK(moved_log.hash == plain_log.hash);
    CHECK(stats_hash(moved) == stats_hash(plain));
    carom_world_destroy(plain);
    carom_world_destroy(moved);
}

/* To t = 30, or to t = 10 in the sanitizer pass (CAROM_TEST_QUICK). */
static void check_layout_free(int dim, int granular, int64_t slice, double shell)
{
    int quick = check_quick();
    check_layout_free_sized(dim, granular, 500, quick ? 10.0 : 30.0, quick ? 1600 : 5000, slice, shell);
}

/* Above 2^16 bodies the loop prefetches from the calendar's near heap. */
static void test_large_cells(void) { check_layout_free_sized(3, 0, 70000, 0.3, 17500, 20011, 0.0); }
static void test_large_lists(void) { check_layout_free_sized(3, 0, 70000, 0.3, 17500, 20011, 0.2); }
/* Dilute, 330,000 (2D) and 400,000 (3D) bodies: a grid of more than 2^20 cells (at most four a
 * body), where the prefetcher guesses stencils. */
static void test_large_dilute_3d(void) { check_layout_free_sized(3, DILUTE, 400000, 0.3, 1500, 4001, 0.0); }
static void test_large_dilute_2d(void) { check_layout_free_sized(2, DILUTE, 330000, 0.3, 1500, 4001, 0.0); }

static void test_periodic_3d(void) { check_layout_free(3, 0, 977, 0.0); }
static void test_neighbour_lists_3d(void) { check_layout_free(3, 0, 733, 0.2); }
static void test_periodic_2d(void) { check_layout_free(2, 0, 1499, 0.0); }
static void test_granular_3d(void) { check_layout_free(3, 1, 1201, 0.0); }
static void test_granular_2d(void) { check_layout_free(2, 1, 613, 0.0); }
static void test_rough_3d(void) { check_layout_free(3, 2, 887, 0.0); }
static void test_rough_2d(void) { check_layout_free(2, 2, 541, 0.0); }

/* The large bodies of a mixture have rows of their own beyond the width,
 * which stay in place when their bodies move and follow them by index. */
static void test_mixture_lists(void)
{
    check_layout_free_sized(3, MIXTURE, 1500, 3.0, 7000, 811, 0.2);
    event_log log = {FNV1A_OFFSET, 0};
    carom_world *w = make_world(3, MIXTURE, 1500, 0.2, &log);
    CHECK(carom_world_run(w, 1.0, -1) == CAROM_OK);
    CHECK_EQ_INT(w->nb.large_count, MIXTURE_LARGE);
    int32_t long_rows = 0;
    for (int32_t s = 0; s < w->count; s++) long_rows += w->nb.count[s] > w->nb.width;
    CHECK_MSG(long_rows > 0, "no long row: the width %d holds every row", (int)w->nb.width);
    carom_world_destroy(w);
}

/* A shuffled world's snapshot restores (to slot = id) and carries on the same. */
static void check_snapshot_of_shuffled_world(int granular, int n, double shell, double t_end)
{
    event_log log = {FNV1A_OFFSET, 0}, other = {FNV1A_OFFSET, 0};
    carom_world *whole = make_world(3, granular, n, shell, &log), *half = make_world(3, granular, n, shell, &other);
    carom_rng rng = carom_rng_seed(9);
    CHECK(carom_world_run(whole, t_end, -1) == CAROM_OK);
    CHECK(carom_world_run(half, 0.5 * t_end, -1) == CAROM_OK);
    shuffle(half, &rng);
    size_t size = carom_world_snapshot_size(half);
    void *buffer = malloc(size);
    CHECK(carom_world_snapshot(half, buffer, size) == CAROM_OK);
    carom_world *restored = NULL;
    char why[256] = "";
    CHECK_MSG(carom_world_restore(buffer, size, NULL, NULL, &restored, why, sizeof why) == CAROM_OK, "%s", why);
    free(buffer);
    if (!restored) return;
    CHECK(carom_world_run(restored, t_end, -1) == CAROM_OK);
    CHECK(stats_hash(restored) == stats_hash(whole));
    CHECK(restored->nb.on == (shell > 0.0));
    carom_world_destroy(whole);
    carom_world_destroy(half);
    carom_world_destroy(restored);
}

static void test_snapshot_of_shuffled_world(void) { check_snapshot_of_shuffled_world(1, 500, 0.0, 20.0); }
static void test_snapshot_of_shuffled_mixture(void) { check_snapshot_of_shuffled_world(MIXTURE, 1500, 0.2, 3.0); }

/* Where cell comes when the cells are visited in cubes of ORDER_TILE a side,
 * the cubes in index order and the cells of each in index order. */
static int64_t tile_order_key(const cells *grid, int32_t cell)
{
    int64_t k[3] = {cell % grid->n[0], cell / grid->n[0] % grid->n[1], cell / (grid->n[0] * grid->n[1])};
    int64_t tiles[3], key = 0;
    for (int a = 0; a < 3; a++) tiles[a] = (grid->n[a] + ORDER_TILE - 1) / ORDER_TILE;
    for (int a = 2; a >= 0; a--) key = key * tiles[a] + k[a] / ORDER_TILE;
    for (int a = 2; a >= 0; a--) key = key * ORDER_TILE + k[a] % ORDER_TILE;
    return key;
}

/* The slots out of tile order (0: every slot follows the one before). */
static int32_t slots_out_of_tile_order(const carom_world *w)
{
    int32_t descending = 0;
    for (int32_t s = 1; s < w->count; s++)
        descending += tile_order_key(&w->grid, world_cell(w, s)) < tile_order_key(&w->grid, world_cell(w, s - 1));
    return descending;
}

/* A large world sorts itself during the run: afterwards the slots follow the
 * cells tile by tile, energy is kept and no two bodies overlap. */
static void check_automatic_order(double shell)
{
    event_log log = {FNV1A_OFFSET, 0};
    int n = 6000;
    carom_world *w = make_world(3, 0, n, shell, &log);
    double e0 = carom_world_stats(w).kinetic_energy;
    CHECK(carom_world_run(w, INFINITY, 40 * (int64_t)n) == CAROM_OK);
    int32_t moved = 0;
    for (int32_t s = 0; s < n; s++) moved += w->id_of[s] != s;
    CHECK(w->nb.on == (shell > 0.0));
    CHECK_MSG(moved > n / 2, "only %d of %d bodies moved: no ordering happened", (int)moved, n);
    CHECK_MSG(w->events_since_order < 40 * (int64_t)n, "no ordering during the run (%lld events since the last)",
              (long long)w->events_since_order);
    CHECK(order_bodies(w) == 0);
    int32_t descending = slots_out_of_tile_order(w);
    CHECK_MSG(descending == 0, "%d of %d slots out of cell order", (int)descending, n);
    CHECK_NEAR(carom_world_stats(w).kinetic_energy, e0, 1e-10 * e0);
    double worst = 0.0; /* brute force over all pairs, by id */
    carom_body_state *b = malloc((size_t)n * sizeof *b);
    for (int32_t i = 0; i < n; i++) CHECK(carom_world_get_body(w, i, &b[i]) == CAROM_OK);
    double side = w->side[0];
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = i + 1; j < n; j++) {
            double d[3] = {b[j].position.x - b[i].position.x, b[j].position.y - b[i].position.y,
                           b[j].position.z - b[i].position.z}, d2 = 0.0;
            for (int a = 0; a < 3; a++) {
                d[a] -= side * nearbyint(d[a] / side);
                d2 += d[a] * d[a];
            }
            double sigma = b[i].radius + b[j].radius, overlap = (sigma - sqrt(d2)) / sigma;
            if (overlap > worst) worst = overlap;
        }
    CHECK_MSG(worst < 1e-9, "bodies overlap by %g of their contact distance", worst);
    free(b);
    carom_world_destroy(w);
}

/* A world of 2^16 bodies or more added in no order (make_world places
 * bodies at random) is sorted by the rebuild that predicts its first events,
 * before any event: bodies near in space are near in memory from the start. */
static void check_sorted_at_rebuild(double shell)
{
    event_log log = {FNV1A_OFFSET, 0};
    int n = 70000;
    carom_world *w = make_world(3, 0, n, shell, &log);
    CHECK(isfinite(carom_world_next_event_time(w)));
    CHECK(w->nb.on == (shell > 0.0));
    CHECK_EQ_INT(log.count, 0);
    int32_t out = slots_out_of_tile_order(w);
    CHECK_MSG(out == 0, "%d of %d slots out of cell order after the rebuild", (int)out, n);
    for (int32_t id = 0; id < n; id++) CHECK(w->id_of[w->slot_of[id]] == id);
    carom_world_destroy(w);
}

static void test_sorted_at_rebuild(void) { check_sorted_at_rebuild(0.0); }
static void test_sorted_at_rebuild_with_lists(void) { check_sorted_at_rebuild(0.25); }

static void test_automatic_order(void) { check_automatic_order(0.0); }
static void test_automatic_order_with_lists(void) { check_automatic_order(0.25); }

int main(void)
{
    RUN(test_large_dilute_3d);
    RUN(test_large_dilute_2d);
    RUN(test_periodic_3d);
    RUN(test_neighbour_lists_3d);
    RUN(test_periodic_2d);
    RUN(test_granular_3d);
    RUN(test_granular_2d);
    RUN(test_rough_3d);
    RUN(test_rough_2d);
    RUN(test_mixture_lists);
    RUN(test_snapshot_of_shuffled_world);
    RUN(test_snapshot_of_shuffled_mixture);
    RUN(test_sorted_at_rebuild);
    RUN(test_sorted_at_rebuild_with_lists);
    RUN(test_automatic_order);
    RUN(test_automatic_order_with_lists);
    RUN(test_large_cells);
    RUN(test_large_lists);
    return CHECK_SUMMARY();
}
