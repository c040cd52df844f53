/* test_replay.c — a stretch of events processed again region by region
 * ends in the time order's state, bit for bit (replay.h, issue 16 point 3).
 *
 * Twin worlds are made alike; one records a stretch in time order, the
 * other replays it in replay_region_order's order (regions of a few cells,
 * so that many events are taken out of time order), and every body's
 * motion, event, stamp, count and cell must agree. Then both run on with
 * carom_world_run and must still agree. The checks can fail: an order that
 * breaks the rule (each window taken backwards) must end elsewhere, and a
 * replay in time order is checked the same way. Cases: hard spheres in a
 * periodic box, spheres between walls (the cells of a face do not wrap),
 * rough disks (their spins). Bad arguments are refused with nothing done. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "replay.h"
#include "world.h"

#define PI 3.14159265358979323846

enum { PERIODIC_SPHERES = 0, WALLED_SPHERES = 1, ROUGH_DISKS = 2 };

/* k^dim bodies of diameter 1 on a square lattice at packing fraction
 * about 0.3, Gaussian velocities from seed, cell lists. */
static carom_world *make_world(int kind, int k, uint64_t seed, carom_event_callback on_event)
{
    int dim = kind == ROUGH_DISKS ? 2 : 3;
    double spacing = dim == 3 ? cbrt(PI / 6.0 / 0.3) : sqrt(PI / 4.0 / 0.45);
    double side = k * spacing;
    carom_world_def def = carom_default_world_def();
    def.dim = dim;
    def.box = (carom_vec){side, side, dim == 3 ? side : 1.0};
    for (int a = 0; a < 3; a++) def.boundary[a] = CAROM_PERIODIC;
    if (kind == WALLED_SPHERES) def.boundary[0] = CAROM_WALLS;
    if (kind == ROUGH_DISKS) def.tangential_restitution = 0.5;
    def.neighbour_shell = -1.0;
    def.on_event = on_event;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_rng rng = carom_rng_seed(seed);
    int32_t n = dim == 3 ? k * k * k : k * k;
    for (int32_t m = 0; m < n; m++) {
        carom_body_def b = carom_default_body_def();
        int32_t ix = m % k, iy = (m / k) % k, iz = m / (k * k);
        b.radius = 0.5;
        b.position = (carom_vec){(ix + 0.5) * spacing - 0.5 * side, (iy + 0.5) * spacing - 0.5 * side,
                                 dim == 3 ? (iz + 0.5) * spacing - 0.5 * side : 0.0};
        b.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), dim == 3 ? carom_rng_normal(&rng) : 0};
        if (kind == ROUGH_DISKS) b.angular_velocity = (carom_vec){0, 0, carom_rng_normal(&rng)};
        CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    }
    CHECK(carom_world_run(w, INFINITY, 2 * (int64_t)n) == CAROM_OK); /* builds the grid; a warm-up */
    return w;
}

/* Records events until the world has had pairs more pair collisions. */
static replay_event *record(carom_world *w, int64_t pairs, int64_t *count)
{
    int64_t target = carom_world_counts(w).pair_events + pairs, room = 1024;
    replay_event *events = malloc((size_t)room * sizeof *events);
    *count = 0;
    while (events && carom_world_counts(w).pair_events < target) {
        if (*count == room) {
            replay_event *grown = realloc(events, (size_t)(room *= 2) * sizeof *events);
            if (!grown) free(events);
            events = grown;
            if (!events) break;
        }
        carom_status st = run_record_next(w, &events[*count]);
        CHECK_MSG(st == CAROM_OK, "recording: %s", carom_world_message(w));
        if (st != CAROM_OK) break;
        ++*count;
    }
    CHECK(events != NULL);
    return events;
}

/* Pairs of positions in order where the later event comes first: 0 for
 * the time order. */
static int64_t inversions_of_neighbours(const int64_t *order, int64_t count)
{
    int64_t inverted = 0;
    for (int64_t k = 1; k < count; k++) inverted += order[k] < order[k - 1];
    return inverted;
}

static int is_permutation(const int64_t *order, int64_t count)
{
    unsigned char *seen = calloc((size_t)count + 1, 1);
    int ok = seen != NULL;
    for (int64_t k = 0; ok && k < count; k++) {
        ok = order[k] >= 0 && order[k] < count && !seen[order[k]];
        if (ok) seen[order[k]] = 1;
    }
    free(seen);
    return ok;
}

/* A fresh twin of the recording's start with events replayed in order. */
static carom_world *replayed_twin(int kind, int k, const replay_event *events, const int64_t *order, int64_t count)
{
    carom_world *twin = make_world(kind, k, 7, NULL);
    CHECK(run_replay(twin, events, order, count, 1) == CAROM_OK);
    return twin;
}

/* The bodies of a replayed twin unlike the recorded world's. */
static int64_t differences_after(int kind, int k, const carom_world *recorded, const replay_event *events,
                                 const int64_t *order, int64_t count)
{
    carom_world *twin = replayed_twin(kind, k, events, order, count);
    int64_t differ = replay_differences(recorded, twin);
    carom_world_destroy(twin);
    return differ;
}

static void reverse_each_window(int64_t *order, int64_t count, int64_t window)
{
    for (int64_t from = 0; from < count; from += window)
        for (int64_t a = from, b = (from + window < count ? from + window : count) - 1; a < b; a++, b--) {
            int64_t swap = order[a];
            order[a] = order[b], order[b] = swap;
        }
}

static void region_order_keeps_bits(int kind, int k)
{
    carom_world *w = make_world(kind, k, 7, NULL), *same = make_world(kind, k, 7, NULL);
    CHECK_EQ_INT(replay_differences(w, same), 0); /* twins are made alike */
    carom_world_destroy(same);
    CHECK(replay_unsupported(w) == NULL);
    int64_t count = 0, pairs = carom_world_body_count(w), window;
    replay_event *events = record(w, 2 * pairs, &count);
    int64_t *order = malloc((size_t)count * sizeof *order);
    replay_order_stats stats;
    window = count / 6 + 1;
    CHECK(order && replay_region_order(events, count, w->grid.n, w->grid.periodic, 3, window, order, &stats) == 0);
    CHECK(is_permutation(order, count));
    int64_t inverted = inversions_of_neighbours(order, count);
    CHECK_MSG(inverted > count / 20 && stats.away > 0 && stats.regions >= 8,
              "the region order must take many events out of time order: %lld inversions of %lld events, "
              "%lld away, %lld regions", (long long)inverted, (long long)count, (long long)stats.away,
              (long long)stats.regions);
    carom_world *twin = replayed_twin(kind, k, events, order, count);
    CHECK_EQ_INT(replay_differences(w, twin), 0);
    CHECK_EQ_INT(differences_after(kind, k, w, events, NULL, count), 0); /* in time order */
    reverse_each_window(order, count, window); /* breaks the rule */
    int64_t broken = differences_after(kind, k, w, events, order, count);
    CHECK_MSG(broken > 0, "an order against the rule must end elsewhere (bodies differing: %lld)", (long long)broken);
    CHECK(carom_world_run(w, INFINITY, pairs) == CAROM_OK); /* both run on alike */
    CHECK(carom_world_run(twin, INFINITY, pairs) == CAROM_OK);
    CHECK_EQ_INT(replay_differences(w, twin), 0);
    free(order);
    free(events);
    carom_world_destroy(w), carom_world_destroy(twin);
}

static void periodic_spheres(void) { region_order_keeps_bits(PERIODIC_SPHERES, check_quick() ? 12 : 18); }
static void walled_spheres(void) { region_order_keeps_bits(WALLED_SPHERES, check_quick() ? 12 : 16); }
static void rough_disks(void) { region_order_keeps_bits(ROUGH_DISKS, check_quick() ? 40 : 70); }

static int count_event(void *user, const carom_event *e)
{
    (void)user, (void)e;
    return 0;
}

/* Unsupported worlds and bad events are refused, and nothing changes. */
static void bad_arguments(void)
{
    carom_world *w = make_world(PERIODIC_SPHERES, 8, 3, NULL), *twin = make_world(PERIODIC_SPHERES, 8, 3, NULL);
    int64_t count = 0;
    replay_event *events = record(w, 100, &count);
    int64_t order[3] = {0, 1, count + 5};
    CHECK(run_replay(twin, events, order, 3, 1) == CAROM_INVALID_ARGUMENT);
    CHECK(strstr(carom_world_message(twin), "entry 2") != NULL);
    replay_event late = events[0];
    late.time = NAN;
    CHECK(run_replay(twin, &late, NULL, 1, 1) == CAROM_INVALID_ARGUMENT);
    late.time = events[0].time, late.body = carom_world_body_count(twin);
    CHECK(run_replay(twin, &late, NULL, 1, 1) == CAROM_INVALID_ARGUMENT);
    carom_world *fresh = make_world(PERIODIC_SPHERES, 8, 3, NULL);
    CHECK_EQ_INT(replay_differences(twin, fresh), 0); /* nothing done */
    CHECK(run_replay(twin, events, NULL, count, 1) == CAROM_OK); /* and the good stretch still replays */
    CHECK_EQ_INT(replay_differences(w, twin), 0);
    carom_world *heard = make_world(PERIODIC_SPHERES, 8, 3, count_event);
    replay_event out;
    CHECK(run_record_next(heard, &out) == CAROM_INVALID_ARGUMENT);
    CHECK(strstr(carom_world_message(heard), "callback") != NULL);
    carom_world_destroy(heard);
    int64_t ordered[2];
    replay_order_stats stats;
    replay_event off_grid = events[0];
    off_grid.cells[0] = w->grid.total;
    CHECK(replay_region_order(&off_grid, 1, w->grid.n, w->grid.periodic, 2, 1, ordered, &stats) == -1);
    free(events);
    carom_world_destroy(w), carom_world_destroy(twin), carom_world_destroy(fresh);
}

int main(void)
{
    RUN(periodic_spheres);
    RUN(walled_spheres);
    RUN(rough_disks);
    RUN(bad_arguments);
    return CHECK_SUMMARY();
}
