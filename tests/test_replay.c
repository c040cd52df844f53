/* test_replay.c — a stretch of events processed again region by region
 * ends in the time order's state, bit for bit (replay.h, issue 16 point 3).
 *
 * Twin worlds are made alike; one records a stretch in time order, the
 * other replays it in replay_region_order's order (regions of a few cells,
 * so that many events are taken out of time order), and every body's
 * motion, event, stamp, count and cell must agree. Then both run on with
 * carom_world_run and must still agree. The order is checked against the
 * rule by brute force, apart from replay.c's walk, and the check must
 * reject an order against it (each window taken backwards: not replayed,
 * as the engine's assertions would stop it); a replay in time order must
 * agree too, and then differ by one body after one unit in the last place
 * of a velocity changes. With the rule narrowed to the touched cells alone
 * in replay.c, every case here fails. Cases: hard spheres in a periodic
 * box, spheres between walls (the cells of a face do not wrap), rough disks
 * (their spins). Bad arguments are refused with nothing done.
 * The same worlds also run region by region as they go, with guesses and
 * rollbacks (speculate.h), against a twin in time order: bit for bit, by
 * slot or (once sorted in memory) by id; a jam is met as time order meets
 * it. Without speculate.c's checks before an event (the later events
 * within one cell undone first) or its partner rule (a partner's earlier
 * event taken first), each of the four speculating cases fails. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "replay.h"
#include "speculate.h"
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

static void reverse_each_window(int64_t *order, int64_t count, int64_t window)
{
    for (int64_t from = 0; from < count; from += window)
        for (int64_t a = from, b = (from + window < count ? from + window : count) - 1; a < b; a++, b--) {
            int64_t swap = order[a];
            order[a] = order[b], order[b] = swap;
        }
}

/* The cell d (-1, 0, 1 per axis) away from cell c, or -1 past a face that
 * does not wrap. */
static int32_t neighbour_cell(int32_t c, const int d[3], const int32_t grid[3], const int periodic[3])
{
    int32_t k[3] = {c % grid[0], (c / grid[0]) % grid[1], c / (grid[0] * grid[1])};
    for (int axis = 0; axis < 3; axis++) {
        k[axis] += d[axis];
        if (k[axis] >= 0 && k[axis] < grid[axis]) continue;
        if (!periodic[axis]) return -1;
        k[axis] = (k[axis] + grid[axis]) % grid[axis];
    }
    return k[0] + grid[0] * (k[1] + grid[1] * k[2]);
}

/* The rule checked by brute force, apart from replay.c's walk: for every
 * event j, every earlier event that touched a cell within one cell of a
 * cell j touched comes before j in the order. */
static int keeps_the_rule(const replay_event *events, int64_t count, const int64_t *order, const int32_t grid[3],
                          const int periodic[3])
{
    int32_t total = grid[0] * grid[1] * grid[2];
    int64_t *position = malloc((size_t)count * sizeof *position), *start = calloc((size_t)total + 1, sizeof *start);
    int64_t *list = malloc((size_t)(3 * count + 1) * sizeof *list), *fill = malloc((size_t)total * sizeof *fill);
    int ok = position && start && list && fill;
    for (int64_t k = 0; ok && k < count; k++) position[order[k]] = k;
    for (int64_t e = 0; ok && e < count; e++)
        for (int a = 0; a < 3 && events[e].cells[a] >= 0; a++) start[events[e].cells[a] + 1]++;
    for (int32_t c = 0; ok && c < total; c++) start[c + 1] += start[c];
    if (ok) memcpy(fill, start, (size_t)total * sizeof *fill);
    for (int64_t e = 0; ok && e < count; e++) /* each cell's events in time order */
        for (int a = 0; a < 3 && events[e].cells[a] >= 0; a++) list[fill[events[e].cells[a]]++] = e;
    for (int64_t j = 0; ok && j < count; j++)
        for (int a = 0; ok && a < 3 && events[j].cells[a] >= 0; a++)
            for (int s = 0; ok && s < 27; s++) {
                int d[3] = {s % 3 - 1, (s / 3) % 3 - 1, s / 9 - 1};
                int32_t c = neighbour_cell(events[j].cells[a], d, grid, periodic);
                for (int64_t m = c < 0 ? 0 : start[c]; ok && c >= 0 && m < start[c + 1] && list[m] < j; m++)
                    ok = position[list[m]] < position[j];
            }
    free(position), free(start), free(list), free(fill);
    return ok;
}

/* replay_differences sees one unit in the last place of one velocity. */
static void differences_see_an_ulp(int kind, int k, const carom_world *recorded, const replay_event *events,
                                   int64_t count)
{
    carom_world *twin = replayed_twin(kind, k, events, NULL, count);
    CHECK_EQ_INT(replay_differences(recorded, twin), 0);
    twin->hot[count % twin->count].v[1] = nextafter(twin->hot[count % twin->count].v[1], INFINITY);
    CHECK_EQ_INT(replay_differences(recorded, twin), 1);
    carom_world_destroy(twin);
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
    CHECK(keeps_the_rule(events, count, order, w->grid.n, w->grid.periodic));
    carom_world *twin = replayed_twin(kind, k, events, order, count);
    CHECK_EQ_INT(replay_differences(w, twin), 0);
    differences_see_an_ulp(kind, k, w, events, count); /* in time order, and the comparison can fail */
    reverse_each_window(order, count, window); /* against the rule: the check sees it */
    CHECK(!keeps_the_rule(events, count, order, w->grid.n, w->grid.periodic));
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

/* Whether the world's bodies sit in other slots than they were added to
 * (it was sorted in memory since). */
static int sorted_since(const carom_world *w)
{
    for (int32_t id = 0; id < w->count; id++)
        if (w->slot_of[id] != id) return 1;
    return 0;
}

/* Twin worlds: one runs to a time in time order, the other region by
 * region with rollbacks (speculate.h); they must end alike bit for bit, with
 * the same counters, sums within rounding, and run on alike. Small regions
 * and windows of a few collisions a body make many guesses wrong. A world
 * large enough to be sorted in memory (4,096 bodies, every 16 events a
 * body) is sorted at other moments by the two, so it is compared by id,
 * and the comparison by id must see one unit in the last place. */
static void speculation_keeps_bits(int kind, int k, int32_t side, double window, double span, int sorts)
{
    carom_world *w = make_world(kind, k, 11, NULL), *twin = make_world(kind, k, 11, NULL);
    double until = carom_world_time(w) + span;
    CHECK(carom_world_run(w, until, -1) == CAROM_OK);
    speculate_stats stats;
    carom_status st = speculate_run(twin, until, side, window, &stats);
    CHECK_MSG(st == CAROM_OK, "%s", carom_world_message(twin));
    int sorted = sorted_since(w);
    CHECK(sorted == sorts && sorted_since(twin) == sorts);
    CHECK_EQ_INT(replay_differences_by_id(w, twin), 0);
    if (!sorted) CHECK_EQ_INT(replay_differences(w, twin), 0);
    CHECK(carom_world_time(w) == carom_world_time(twin));
    carom_counts a = carom_world_counts(w), b = carom_world_counts(twin);
    CHECK_EQ_INT(a.pair_events, b.pair_events);
    CHECK_EQ_INT(a.wall_events, b.wall_events);
    CHECK_EQ_INT(a.cell_events, b.cell_events);
    CHECK_EQ_INT(a.stale_events, b.stale_events);
    CHECK_EQ_INT(w->meas.predictions, twin->meas.predictions);
    CHECK(fabs(w->meas.virial - twin->meas.virial) <= 1e-9 * fabs(w->meas.virial));
    CHECK(fabs(w->meas.kinetic_integral - twin->meas.kinetic_integral) <= 1e-9 * w->meas.kinetic_integral);
    CHECK(fabs(w->meas.wall_impulse - twin->meas.wall_impulse) <= 1e-9 * fabs(w->meas.wall_impulse));
    CHECK_MSG(stats.undone > stats.kept / 100 && stats.executions == stats.kept + stats.undone &&
                  stats.fallbacks == 0 && stats.windows >= 2,
              "the guesses must often be wrong and be undone: %lld kept, %lld undone, %lld executions, "
              "%lld windows, %lld fallbacks", (long long)stats.kept, (long long)stats.undone,
              (long long)stats.executions, (long long)stats.windows, (long long)stats.fallbacks);
    int64_t more = carom_world_body_count(w);
    CHECK(carom_world_run(w, INFINITY, more) == CAROM_OK); /* both run on alike */
    CHECK(carom_world_run(twin, INFINITY, more) == CAROM_OK);
    CHECK_EQ_INT(replay_differences_by_id(w, twin), 0);
    int32_t slot = twin->slot_of[more / 2];
    twin->hot[slot].v[0] = nextafter(twin->hot[slot].v[0], INFINITY);
    CHECK_EQ_INT(replay_differences_by_id(w, twin), 1);
    carom_world_destroy(w), carom_world_destroy(twin);
}

static void speculating_periodic_spheres(void)
{
    speculation_keeps_bits(PERIODIC_SPHERES, 12, 2, 0.05, 1.0, 0);
    speculation_keeps_bits(PERIODIC_SPHERES, 12, 4, 0.15, 1.0, 0);
    speculation_keeps_bits(PERIODIC_SPHERES, 12, 1, 0.02, 1.0, 0);
}
static void speculating_walled_spheres(void) { speculation_keeps_bits(WALLED_SPHERES, 12, 3, 0.1, 1.0, 0); }
static void speculating_rough_disks(void) { speculation_keeps_bits(ROUGH_DISKS, 40, 4, 0.1, 1.0, 0); }

/* 4,913 spheres for 18 events a body: both worlds are sorted in memory. */
static void speculating_sorted_spheres(void)
{
    speculation_keeps_bits(PERIODIC_SPHERES, 17, 4, 0.02, 2.0, 1);
}

/* Three spheres in a row between walls, touching each other and the
 * walls: their collisions never let the clock move, and the run jams. Run
 * region by region, the window that jams is run again in time order, which
 * stops where carom_world_run stops, with its message. */
static carom_world *pinned_row(void)
{
    carom_world_def def = carom_default_world_def();
    def.box = (carom_vec){3.0, 8.0, 8.0};
    def.boundary[0] = CAROM_WALLS;
    def.boundary[1] = def.boundary[2] = CAROM_PERIODIC;
    def.neighbour_shell = -1.0;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    for (int m = 0; m < 3; m++) {
        carom_body_def b = carom_default_body_def();
        b.radius = 0.5;
        b.position = (carom_vec){m - 1.0, 0.0, 0.0};
        CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    }
    CHECK(carom_world_run(w, 0.0, -1) == CAROM_OK); /* builds the grid and events */
    CHECK(carom_world_set_body_velocity(w, 0, (carom_vec){1.0, 0.0, 0.0}) == CAROM_OK);
    return w;
}

static void speculation_meets_a_jam(void)
{
    carom_world *w = pinned_row(), *twin = pinned_row();
    CHECK(carom_world_run(w, 1.0, -1) == CAROM_JAMMED);
    speculate_stats stats;
    CHECK(speculate_run(twin, 1.0, 1, 0.25, &stats) == CAROM_JAMMED);
    CHECK(strcmp(carom_world_message(w), carom_world_message(twin)) == 0);
    CHECK_EQ_INT(replay_differences(w, twin), 0);
    CHECK(stats.fallbacks == 1);
    carom_world_destroy(w), carom_world_destroy(twin);
}

/* speculate_run refuses bad settings and unsupported worlds with nothing
 * done, and a run to the clock changes nothing. */
static void speculation_refuses(void)
{
    carom_world *w = make_world(PERIODIC_SPHERES, 8, 3, NULL), *fresh = make_world(PERIODIC_SPHERES, 8, 3, NULL);
    double now = carom_world_time(w);
    CHECK(speculate_run(w, NAN, 2, 0.1, NULL) == CAROM_INVALID_ARGUMENT);
    CHECK(strstr(carom_world_message(w), "t_end") != NULL);
    CHECK(speculate_run(w, now - 1.0, 2, 0.1, NULL) == CAROM_INVALID_ARGUMENT);
    CHECK(speculate_run(w, INFINITY, 2, 0.1, NULL) == CAROM_INVALID_ARGUMENT);
    CHECK(speculate_run(w, now + 1.0, 0, 0.1, NULL) == CAROM_INVALID_ARGUMENT);
    CHECK(strstr(carom_world_message(w), "regions") != NULL);
    CHECK(speculate_run(w, now + 1.0, 2, 0.0, NULL) == CAROM_INVALID_ARGUMENT);
    CHECK(speculate_run(w, now + 1.0, 2, INFINITY, NULL) == CAROM_INVALID_ARGUMENT);
    CHECK(speculate_run(w, now + 1.0, 2, NAN, NULL) == CAROM_INVALID_ARGUMENT);
    CHECK(strstr(carom_world_message(w), "window") != NULL);
    CHECK(speculate_run(w, now + 1.0, 2, 1e-12, NULL) == CAROM_INVALID_ARGUMENT); /* 10^12 windows */
    CHECK(strstr(carom_world_message(w), "at most") != NULL);
    CHECK(speculate_run(NULL, now + 1.0, 2, 0.1, NULL) == CAROM_INVALID_ARGUMENT);
    CHECK_EQ_INT(replay_differences(w, fresh), 0); /* nothing done */
    CHECK(speculate_run(w, now, 2, 0.1, NULL) == CAROM_OK);
    CHECK_EQ_INT(replay_differences(w, fresh), 0);
    carom_world *heard = make_world(PERIODIC_SPHERES, 8, 3, count_event);
    CHECK(speculate_run(heard, now + 1.0, 2, 0.1, NULL) == CAROM_INVALID_ARGUMENT);
    CHECK(strstr(carom_world_message(heard), "callback") != NULL);
    carom_world_destroy(heard), carom_world_destroy(w), carom_world_destroy(fresh);
}

int main(void)
{
    RUN(speculating_periodic_spheres);
    RUN(speculating_walled_spheres);
    RUN(speculating_rough_disks);
    RUN(speculating_sorted_spheres);
    RUN(periodic_spheres);
    RUN(walled_spheres);
    RUN(rough_disks);
    RUN(bad_arguments);
    RUN(speculation_refuses);
    RUN(speculation_meets_a_jam);
    return CHECK_SUMMARY();
}
