/* test_compress.c — Lubachevsky-Stillinger compression (carom_compress) on
 * the public API: fast growth of monodisperse spheres jams near random
 * close packing, polydisperse disks with walls pass 0.80, no pair ever ends
 * overlapping (checked pair by pair over nearest images), size ratios are
 * kept, a target is met exactly, repeated runs give the same bits, and bad
 * arguments leave the world as it was. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"

static carom_world *lattice_world(int dim, int per_side, double spacing, carom_boundary boundary,
                                  double spread, uint64_t seed)
{
    carom_world_def def = carom_default_world_def();
    def.dim = dim;
    double side = per_side * spacing;
    def.box = (carom_vec){side, side, dim == 3 ? side : 1.0};
    for (int a = 0; a < 3; a++) def.boundary[a] = boundary;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_rng rng = carom_rng_seed(seed);
    int nz = dim == 3 ? per_side : 1;
    for (int i = 0; i < per_side; i++)
        for (int j = 0; j < per_side; j++)
            for (int k = 0; k < nz; k++) {
                carom_body_def b = carom_default_body_def();
                b.position = (carom_vec){(i + 0.5) * spacing - side / 2, (j + 0.5) * spacing - side / 2,
                                         dim == 3 ? (k + 0.5) * spacing - side / 2 : 0.0};
                b.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng),
                                         dim == 3 ? carom_rng_normal(&rng) : 0.0};
                b.radius = 0.5 * (1.0 + spread * (2.0 * carom_rng_uniform(&rng) - 1.0));
                CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
            }
    return w;
}

/* min over pairs of distance - (r_i + r_j), nearest images on periodic axes. */
static double smallest_gap(const carom_world *w)
{
    carom_world_def def = carom_world_definition(w);
    double side[3] = {def.box.x, def.box.y, def.box.z}, worst = INFINITY;
    int n = carom_world_body_count(w);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            carom_body_state a, b;
            carom_world_get_body(w, i, &a);
            carom_world_get_body(w, j, &b);
            double d[3] = {b.position.x - a.position.x, b.position.y - a.position.y, b.position.z - a.position.z};
            double r2 = 0;
            for (int k = 0; k < def.dim; k++) {
                if (def.boundary[k] == CAROM_PERIODIC) d[k] -= side[k] * nearbyint(d[k] / side[k]);
                r2 += d[k] * d[k];
            }
            worst = fmin(worst, sqrt(r2) - a.radius - b.radius);
        }
    return worst;
}

static double packing(const carom_world *w)
{
    carom_world_def def = carom_world_definition(w);
    double sum = 0;
    for (int i = 0; i < carom_world_body_count(w); i++) {
        carom_body_state b;
        carom_world_get_body(w, i, &b);
        sum += def.dim == 3 ? 4.0 / 3.0 * 3.141592653589793 * pow(b.radius, 3) : 3.141592653589793 * b.radius * b.radius;
    }
    return sum / (def.box.x * def.box.y * (def.dim == 3 ? def.box.z : 1.0));
}

static void test_spheres_jam_near_random_close_packing(void)
{
    carom_world *w = lattice_world(3, 6, 1.6, CAROM_PERIODIC, 0.0, 1), *out = NULL;
    carom_compress_def def = carom_default_compress_def();
    def.rate = 0.01;
    carom_compress_result r;
    char why[256] = "";
    CHECK_EQ_INT(carom_compress(w, &def, &out, &r, why, sizeof why), CAROM_OK);
    CHECK(r.jammed && !r.reached_target && !r.capped && r.pressure > 1e4);
    CHECK_MSG(r.packing_fraction > 0.62 && r.packing_fraction < 0.66, "phi_J = %g", r.packing_fraction);
    if (out) {
        CHECK_NEAR(packing(out), r.packing_fraction, 1e-9);
        double gap = smallest_gap(out);
        CHECK_MSG(gap >= 0 && gap < 1e-9, "smallest gap %g", gap);
        CHECK(carom_world_time(out) == 0 && carom_world_body_count(out) == 216);
        CHECK(carom_world_run(out, 0.01, -1) == CAROM_OK);
    }
    carom_world_destroy(out);
    carom_world_destroy(w);
}

static void test_polydisperse_disks_with_walls(void)
{
    carom_world *w = lattice_world(2, 14, 1.5, CAROM_WALLS, 0.3, 2), *out = NULL;
    carom_compress_def def = carom_default_compress_def();
    def.rate = 0.02;
    carom_compress_result r;
    CHECK_EQ_INT(carom_compress(w, &def, &out, &r, NULL, 0), CAROM_OK);
    CHECK_MSG(r.jammed && r.packing_fraction >= 0.78, "phi %g", r.packing_fraction);
    if (out) {
        CHECK(smallest_gap(out) >= 0);
        carom_body_state a, b;
        carom_world_get_body(w, 7, &a);
        carom_world_get_body(out, 7, &b);
        double scale = b.radius / a.radius;
        for (int i = 0; i < 196; i++) {
            carom_world_get_body(w, i, &a);
            carom_world_get_body(out, i, &b);
            CHECK_NEAR(b.radius / a.radius, scale, 1e-13 * scale);
            CHECK(fabs(b.position.x) + b.radius <= 10.5 && fabs(b.position.y) + b.radius <= 10.5);
        }
    }
    carom_world_destroy(out);
    carom_world_destroy(w);
}

static void test_target_met_and_same_bits(void)
{
    carom_world *w = lattice_world(3, 5, 1.5, CAROM_PERIODIC, 0.2, 3), *a = NULL, *b = NULL;
    carom_compress_def def = carom_default_compress_def();
    def.rate = 0.05, def.target = 0.5;
    carom_compress_result ra, rb;
    CHECK_EQ_INT(carom_compress(w, &def, &a, &ra, NULL, 0), CAROM_OK);
    CHECK_EQ_INT(carom_compress(w, &def, &b, &rb, NULL, 0), CAROM_OK);
    CHECK(ra.reached_target && !ra.jammed);
    CHECK_NEAR(ra.packing_fraction, 0.5, 1e-12);
    if (a && b) {
        CHECK_NEAR(packing(a), 0.5, 1e-10);
        CHECK(smallest_gap(a) >= 0 && ra.events == rb.events);
        size_t size = carom_world_snapshot_size(a);
        unsigned char *sa = malloc(size), *sb = malloc(size);
        CHECK(size == carom_world_snapshot_size(b) && sa && sb);
        if (sa && sb && size == carom_world_snapshot_size(b)) {
            carom_world_snapshot(a, sa, size);
            carom_world_snapshot(b, sb, size);
            CHECK(memcmp(sa, sb, size) == 0);
        }
        free(sa), free(sb);
    }
    carom_world_destroy(a);
    carom_world_destroy(b);
    carom_world_destroy(w);
}

static void test_bad_arguments_change_nothing(void)
{
    carom_world *w = lattice_world(2, 4, 2.0, CAROM_WALLS, 0.0, 4), *out = (carom_world *)1;
    carom_body_def k = carom_default_body_def();
    k.mass = INFINITY, k.position = (carom_vec){3.5, 3.5, 0}, k.radius = 0.2, k.velocity = (carom_vec){1, 0, 0};
    CHECK(carom_world_add_body(w, &k, NULL) == CAROM_OK);
    size_t size = carom_world_snapshot_size(w);
    unsigned char *before = malloc(size), *after = malloc(size);
    carom_world_snapshot(w, before, size);
    carom_compress_def def = carom_default_compress_def();
    char why[256];
    CHECK_EQ_INT(carom_compress(w, &def, &out, NULL, why, sizeof why), CAROM_INVALID_ARGUMENT);
    CHECK(out == NULL && strstr(why, "body 16 is kinematic"));
    CHECK_EQ_INT(carom_compress(NULL, &def, &out, NULL, why, sizeof why), CAROM_INVALID_ARGUMENT);
    carom_world *free_only = lattice_world(2, 4, 2.0, CAROM_WALLS, 0.0, 4);
    CHECK_EQ_INT(carom_compress(free_only, &def, &out, NULL, why, sizeof why), CAROM_INVALID_ARGUMENT);
    CHECK(strstr(why, "rate") != NULL);
    def.rate = 0.1, def.target = 1.5;
    CHECK_EQ_INT(carom_compress(free_only, &def, &out, NULL, why, sizeof why), CAROM_INVALID_ARGUMENT);
    CHECK(strstr(why, "target") != NULL);
    def.target = 0, def.max_pressure = 0.5;
    CHECK_EQ_INT(carom_compress(free_only, &def, &out, NULL, why, sizeof why), CAROM_INVALID_ARGUMENT);
    CHECK(strstr(why, "max_pressure") != NULL);
    def.max_pressure = 1e4, def.neighbour_shell = NAN;
    CHECK_EQ_INT(carom_compress(free_only, &def, &out, NULL, why, sizeof why), CAROM_INVALID_ARGUMENT);
    CHECK(strstr(why, "neighbour_shell") != NULL);
    def.neighbour_shell = 1e-300;
    CHECK_EQ_INT(carom_compress(free_only, &def, &out, NULL, why, sizeof why), CAROM_INVALID_ARGUMENT);
    CHECK(strstr(why, "neighbour_shell") != NULL && out == NULL);
    def.neighbour_shell = 2.5;
    CHECK_EQ_INT(carom_compress(free_only, &def, &out, NULL, why, sizeof why), CAROM_INVALID_ARGUMENT);
    CHECK(strstr(why, "neighbour_shell") != NULL && out == NULL);
    carom_world_snapshot(w, after, size);
    CHECK(memcmp(before, after, size) == 0);
    free(before), free(after);
    carom_world_destroy(free_only);
    carom_world_destroy(w);
}

/* A 1:10 binary mixture of disks: the two-level cells keep it fast; it packs past 0.80 with no overlap. */
static void test_size_ratio_ten_mixture(void)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 2, def.box = (carom_vec){12, 12, 1};
    def.boundary[0] = def.boundary[1] = CAROM_WALLS; /* periodic sides must hold 3 large diameters */
    carom_world *w = NULL, *out = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_rng rng = carom_rng_seed(5);
    int placed = 0, tries = 0;
    while (placed < 406 && tries++ < 1000000) {
        carom_body_def b = carom_default_body_def();
        b.radius = placed < 6 ? 1.0 : 0.1;
        b.position = (carom_vec){10 * carom_rng_uniform(&rng) - 5, 10 * carom_rng_uniform(&rng) - 5, 0};
        b.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), 0};
        placed += carom_world_add_body(w, &b, NULL) == CAROM_OK;
    }
    CHECK_EQ_INT(placed, 406);
    carom_compress_def cd = carom_default_compress_def();
    cd.rate = 0.05;
    carom_compress_result r;
    CHECK_EQ_INT(carom_compress(w, &cd, &out, &r, NULL, 0), CAROM_OK);
    CHECK_MSG(r.jammed && r.packing_fraction > 0.80, "phi %g", r.packing_fraction);
    if (out) {
        CHECK(smallest_gap(out) >= 0);
        carom_body_state big, small;
        carom_world_get_body(out, 0, &big);
        carom_world_get_body(out, 405, &small);
        CHECK_NEAR(big.radius / small.radius, 10.0, 1e-12);
    }
    carom_world_destroy(out);
    carom_world_destroy(w);
}

/* The largest distance between the same body in two worlds (nearest images), and whether their radii agree. */
static double largest_shift(const carom_world *a, const carom_world *b)
{
    carom_world_def def = carom_world_definition(a);
    double side[3] = {def.box.x, def.box.y, def.box.z}, worst = 0;
    for (int i = 0; i < carom_world_body_count(a); i++) {
        carom_body_state p, q;
        carom_world_get_body(a, i, &p);
        carom_world_get_body(b, i, &q);
        double d[3] = {q.position.x - p.position.x, q.position.y - p.position.y, q.position.z - p.position.z}, r2 = 0;
        for (int k = 0; k < def.dim; k++) {
            if (def.boundary[k] == CAROM_PERIODIC) d[k] -= side[k] * nearbyint(d[k] / side[k]);
            r2 += d[k] * d[k];
        }
        worst = fmax(worst, sqrt(r2) + fabs(q.radius - p.radius));
    }
    return worst;
}

/* Neighbour lists (thin, automatic and thick shells) against cells, which share no code with them
 * but the pair kernel: from the same start to the same target (12 to 14 collisions a body) the
 * same collisions happen, and every body ends where it ends with cells, to the rounding that the
 * bookkeeping events change (bringing a body to its shell exit instead of its cell crossing),
 * grown by the collisions since; a missed or extra contact would move bodies by a diameter.
 * 3D periodic spheres and 2D disks with walls. */
static void test_lists_match_cells(void)
{
    carom_world *worlds[2] = {lattice_world(3, 6, 1.5, CAROM_PERIODIC, 0.2, 8),
                              lattice_world(2, 12, 1.4, CAROM_WALLS, 0.25, 9)};
    const double targets[2] = {0.40, 0.66}, shells[3] = {0.05, 0.0, 1.0};
    for (int k = 0; k < 2; k++) {
        carom_compress_def def = carom_default_compress_def();
        def.rate = 0.1, def.target = targets[k], def.neighbour_shell = -1;
        carom_world *cells = NULL;
        carom_compress_result rc;
        CHECK_EQ_INT(carom_compress(worlds[k], &def, &cells, &rc, NULL, 0), CAROM_OK);
        CHECK(rc.reached_target && rc.pair_events > 10 * carom_world_body_count(worlds[k]));
        for (int s = 0; s < 3 && cells; s++) {
            def.neighbour_shell = shells[s];
            carom_world *lists = NULL;
            carom_compress_result rl;
            CHECK_EQ_INT(carom_compress(worlds[k], &def, &lists, &rl, NULL, 0), CAROM_OK);
            if (!lists) continue;
            CHECK_MSG(rl.pair_events == rc.pair_events, "dim %d shell %g: %lld pair collisions, cells %lld",
                      k ? 2 : 3, shells[s], (long long)rl.pair_events, (long long)rc.pair_events);
            double shift = largest_shift(cells, lists);
            CHECK_MSG(shift < 1e-4, "dim %d shell %g: a body ends %g from where it ends with cells", k ? 2 : 3,
                      shells[s], shift);
            CHECK(smallest_gap(lists) >= 0);
            carom_world_destroy(lists);
        }
        carom_world_destroy(cells);
        carom_world_destroy(worlds[k]);
    }
}

/* A lone disk between walls grows until it all but spans them (a part in 10^6 short), with lists and with
 * cells, and stops there instead of bouncing ever faster; the world is made. */
static void test_walls_limit(void)
{
    for (int k = 0; k < 2; k++) {
        carom_world *w = lattice_world(2, 1, 10.0, CAROM_WALLS, 0.0, 10), *out = NULL;
        carom_compress_def def = carom_default_compress_def();
        def.rate = 1.0, def.neighbour_shell = k ? -1.0 : 0.0;
        carom_compress_result r;
        char why[256] = "";
        CHECK_EQ_INT(carom_compress(w, &def, &out, &r, why, sizeof why), CAROM_OK);
        CHECK_MSG(r.box_limited && !r.jammed && !r.capped && r.events < 100000000, "%s: %lld events, %s",
                  k ? "cells" : "lists", (long long)r.events, why);
        if (out) {
            carom_body_state b;
            carom_world_get_body(out, 0, &b);
            CHECK_NEAR(2.0 * b.radius, 10.0 * (1.0 - 1e-6), 1e-8);
        }
        carom_world_destroy(out);
        carom_world_destroy(w);
    }
}

/* A few bodies in a small periodic box stop where the largest fills a third of it, and the world is made. */
static void test_box_limit(void)
{
    carom_world *w = lattice_world(2, 2, 3.0, CAROM_PERIODIC, 0.0, 6), *out = NULL;
    carom_compress_def def = carom_default_compress_def();
    def.rate = 0.1;
    carom_compress_result r;
    CHECK_EQ_INT(carom_compress(w, &def, &out, &r, NULL, 0), CAROM_OK);
    CHECK(r.box_limited && !r.jammed && !r.reached_target && out != NULL);
    if (out) {
        carom_body_state b;
        carom_world_get_body(out, 0, &b);
        CHECK_NEAR(2.0 * b.radius, 2.0, 1e-8);
    }
    carom_world_destroy(out);
    carom_world_destroy(w);
}

/* min over pairs of distance - (r_i + r_j) for a periodic 2D world, pairs found through a grid of
 * cells at least the largest diameter wide (so it takes large worlds). */
static double smallest_gap_2d(const carom_world *w)
{
    carom_world_def def = carom_world_definition(w);
    int n = carom_world_body_count(w);
    carom_body_state *b = malloc((size_t)n * sizeof *b);
    double largest = 0, worst = INFINITY, side[2] = {def.box.x, def.box.y};
    for (int i = 0; i < n; i++) carom_world_get_body(w, i, &b[i]), largest = fmax(largest, 2 * b[i].radius);
    int m[2] = {(int)(side[0] / largest), (int)(side[1] / largest)};
    CHECK(m[0] >= 3 && m[1] >= 3);
    int *head = malloc((size_t)m[0] * m[1] * sizeof *head), *next = malloc((size_t)n * sizeof *next), *cell = malloc((size_t)n * sizeof *cell);
    for (int c = 0; c < m[0] * m[1]; c++) head[c] = -1;
    for (int i = 0; i < n; i++) {
        int c[2];
        for (int k = 0; k < 2; k++) {
            double x = ((&b[i].position.x)[k] + side[k] / 2) / side[k] * m[k];
            c[k] = ((int)floor(x) % m[k] + m[k]) % m[k];
        }
        cell[i] = c[0] + m[0] * c[1], next[i] = head[cell[i]], head[cell[i]] = i;
    }
    for (int i = 0; i < n; i++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int cx = (cell[i] % m[0] + dx + m[0]) % m[0], cy = (cell[i] / m[0] + dy + m[1]) % m[1];
                for (int j = head[cx + m[0] * cy]; j >= 0; j = next[j]) {
                    if (j <= i) continue;
                    double d[2] = {b[j].position.x - b[i].position.x, b[j].position.y - b[i].position.y};
                    for (int k = 0; k < 2; k++) d[k] -= side[k] * nearbyint(d[k] / side[k]);
                    worst = fmin(worst, sqrt(d[0] * d[0] + d[1] * d[1]) - b[i].radius - b[j].radius);
                }
            }
    free(b), free(head), free(next), free(cell);
    return worst;
}

/* From 2^16 bodies the compression sorts and lists everything again every second rescale (compress.c,
 * RESORT_EVERY). 67,600 disks: the target is met with no pair overlapping, and the same bodies given in
 * another order make the same collisions and end, body by body, in the same places to 1e-9. (Not to the
 * bit: the temperature is summed in slot order, which follows the input's order within a sorting cell,
 * and the rounding grows a little with each collision. A body whose records a sort mixed up would end
 * a diameter away.) */
static void test_large_world_resorted(void)
{
    enum { SIDE = 260, N = SIDE * SIDE };
    carom_world *w = lattice_world(2, SIDE, 1.5, CAROM_PERIODIC, 0.2, 12), *shuffled = NULL;
    carom_world_def wdef = carom_world_definition(w);
    CHECK(carom_world_create(&wdef, &shuffled, NULL, 0) == CAROM_OK);
    int *order = malloc(N * sizeof *order); /* shuffled body k is body order[k] */
    carom_rng rng = carom_rng_seed(99);
    for (int k = 0; k < N; k++) order[k] = k;
    for (int k = N - 1; k > 0; k--) {
        int r = (int)(carom_rng_uniform(&rng) * (k + 1)), t = order[k];
        order[k] = order[r], order[r] = t;
    }
    for (int k = 0; k < N; k++) {
        carom_body_state s;
        carom_world_get_body(w, order[k], &s);
        carom_body_def b = carom_default_body_def();
        b.position = s.position, b.velocity = s.velocity, b.radius = s.radius, b.mass = s.mass;
        CHECK(carom_world_add_body(shuffled, &b, NULL) == CAROM_OK);
    }
    carom_compress_def def = carom_default_compress_def();
    def.rate = 0.01, def.target = check_quick() ? 0.385 : 0.40;
    carom_world *a = NULL, *b = NULL;
    carom_compress_result ra, rb;
    CHECK_EQ_INT(carom_compress(w, &def, &a, &ra, NULL, 0), CAROM_OK);
    CHECK_EQ_INT(carom_compress(shuffled, &def, &b, &rb, NULL, 0), CAROM_OK);
    CHECK(ra.reached_target && rb.reached_target);
    CHECK_MSG(ra.pair_events > 4 * (int64_t)N, "%lld pair collisions: too few rescales to sort again",
              (long long)ra.pair_events);
    CHECK_EQ_INT(ra.pair_events, rb.pair_events);
    if (a && b) {
        CHECK_NEAR(packing(a), def.target, 1e-10);
        CHECK(smallest_gap_2d(a) >= 0);
        double far = 0;
        for (int k = 0; k < N; k++) {
            carom_body_state p, q;
            carom_world_get_body(a, order[k], &p);
            carom_world_get_body(b, k, &q);
            far = fmax(far, fabs(p.position.x - q.position.x) + fabs(p.position.y - q.position.y) +
                                fabs(p.radius - q.radius));
        }
        CHECK_MSG(far < 1e-9, "given in another order, a body ends %g from where it ends", far);
    }
    free(order);
    carom_world_destroy(a), carom_world_destroy(b);
    carom_world_destroy(w), carom_world_destroy(shuffled);
}

int main(void)
{
    RUN(test_spheres_jam_near_random_close_packing);
    RUN(test_polydisperse_disks_with_walls);
    RUN(test_target_met_and_same_bits);
    RUN(test_bad_arguments_change_nothing);
    RUN(test_size_ratio_ten_mixture);
    RUN(test_box_limit);
    RUN(test_walls_limit);
    RUN(test_lists_match_cells);
    RUN(test_large_world_resorted);
    return CHECK_SUMMARY();
}
