/* test_neighbours.c — neighbour lists with a shell (src/neighbours.c).
 *
 * The lists are checked against brute force over all pairs of anchors, again
 * and again during a dense run: a pair is listed exactly when its anchors are
 * within reach, through the image the entry names, and every body is inside
 * its shell. A run with lists and a run with cell lists from the same state
 * report the same collisions, in 3D and in 2D. The automatic choice follows
 * density, the spread of sizes, dimension, gravity and the box.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "carom.h"
#include "check.h"
#include "world.h"

static const double pi = 3.14159265358979323846;

typedef struct event_list {
    carom_event *events;
    int count, capacity;
} event_list;

static int keep_event(void *user, const carom_event *e)
{
    event_list *list = user;
    if (list->count < list->capacity) list->events[list->count++] = *e;
    return 0;
}

/* An empty world of dim dimensions: box side (y_side along y), walls on y
 * or periodic, world_def.neighbour_shell = shell, events into log (if not
 * NULL). */
static carom_world *create_world(int dim, double side, double y_side, int walls, double shell, event_list *log)
{
    carom_world_def def = carom_default_world_def();
    def.dim = dim;
    def.box = (carom_vec){side, y_side, dim == 3 ? side : 0.0};
    if (walls) def.boundary[1] = CAROM_WALLS;
    def.neighbour_shell = shell;
    def.on_event = log ? keep_event : NULL;
    def.user = log;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    return w;
}

/* 4 n_side^3 polydisperse spheres (radii 0.4 to 0.5) at packing fraction
 * about eta, on a jittered fcc lattice; mixed: walls on y, with half a
 * diameter of room on each side of the lattice. */
static carom_world *make_world(int n_side, double eta, double shell, int mixed, event_list *log)
{
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    int n = 4 * n_side * n_side * n_side;
    carom_rng rng = carom_rng_seed(2024);
    double *radius = malloc((size_t)n * sizeof *radius), volume = 0.0;
    for (int b = 0; b < n; b++) {
        radius[b] = 0.4 + 0.1 * carom_rng_uniform(&rng);
        volume += 4.0 / 3.0 * pi * radius[b] * radius[b] * radius[b];
    }
    double side = cbrt(volume / eta), a = side / n_side, slack = 0.5 * (a / sqrt(2.0) - 1.0);
    carom_world *w = create_world(3, side, mixed ? side + 1.0 : side, mixed, shell, log);
    for (int b = 0; b < n; b++) {
        int cell = b / 4, k[3] = {cell % n_side, cell / n_side % n_side, cell / (n_side * n_side)};
        carom_body_def body = carom_default_body_def();
        double x[3];
        for (int d = 0; d < 3; d++)
            x[d] = -0.5 * side + (k[d] + basis[b % 4][d] + 0.25) * a +
                   slack * (2.0 * carom_rng_uniform(&rng) - 1.0) / sqrt(3.0);
        body.position = (carom_vec){x[0], x[1], x[2]};
        body.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), carom_rng_normal(&rng)};
        body.radius = radius[b];
        body.mass = radius[b] * radius[b] * radius[b] * 8.0;
        carom_status st = carom_world_add_body(w, &body, NULL);
        CHECK_MSG(st == CAROM_OK, "body %d: %s", b, carom_world_message(w));
        if (st != CAROM_OK) break;
    }
    free(radius);
    return w;
}

/* A size-asymmetric mixture: a periodic cube of side 12 (walls on y if
 * walls), small spheres (radii 0.4 to 0.5, mass 8 r^3) placed at random
 * where they fit, then 8 of radius large and mass 1 at (+-3, +-3, +-3),
 * 1,100 bodies in all. */
enum { MIXTURE_BODIES = 1100, MIXTURE_LARGE = 8 };
static carom_world *make_mixture(int walls, double large, double shell, event_list *log)
{
    carom_world *w = create_world(3, 12.0, 12.0, walls, shell, log);
    carom_rng rng = carom_rng_seed(77);
    int small = MIXTURE_BODIES - MIXTURE_LARGE;
    for (int tries = 0; tries < 200000 && carom_world_body_count(w) < MIXTURE_BODIES; tries++) {
        int k = carom_world_body_count(w) - small; /* the large ones last: slots above small neighbours */
        carom_body_def body = carom_default_body_def();
        if (k >= 0) {
            body.position = (carom_vec){k & 1 ? 3.0 : -3.0, k & 2 ? 3.0 : -3.0, k & 4 ? 3.0 : -3.0};
            body.radius = large;
        } else {
            double x[3], d2 = 0.0; /* to the nearest large site */
            for (int a = 0; a < 3; a++) x[a] = 11.0 * (carom_rng_uniform(&rng) - 0.5);
            for (int a = 0; a < 3; a++) d2 += (fabs(x[a]) - 3.0) * (fabs(x[a]) - 3.0);
            if (d2 < (large + 0.55) * (large + 0.55)) continue;
            body.position = (carom_vec){x[0], x[1], x[2]};
            body.radius = 0.4 + 0.1 * carom_rng_uniform(&rng);
        }
        /* large bodies as light as small ones: they cross the large grid's cells often */
        body.mass = k >= 0 ? 1.0 : 8.0 * body.radius * body.radius * body.radius;
        body.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), carom_rng_normal(&rng)};
        (void)carom_world_add_body(w, &body, NULL);
    }
    CHECK_EQ_INT(carom_world_body_count(w), MIXTURE_BODIES);
    return w;
}

/* rows x rows disks (radii 0.4 to 0.5, mass 4 r^2) at area fraction about
 * phi on a jittered triangular lattice in a periodic box (walls on y if
 * walls, with half a diameter of room beyond the lattice); large (if > 0):
 * the disks at every 8th site of every 8th row have this radius instead and
 * mass 1 (added first), and the small disks that would overlap them are
 * left out. */
static carom_world *make_disks(int rows, double phi, int walls, double large, double shell, event_list *log)
{
    int n = rows * rows;
    carom_rng rng = carom_rng_seed(31);
    double *radius = malloc((size_t)n * sizeof *radius), area = 0.0;
    for (int b = 0; b < n; b++) {
        radius[b] = large > 0.0 && b / rows % 8 == 2 && b % rows % 8 == 3 ? large : 0.4 + 0.1 * carom_rng_uniform(&rng);
        area += pi * radius[b] * radius[b];
    }
    /* a triangular lattice: rows of spacing a, sqrt(3)/2 a apart */
    double a = sqrt(area / phi / (rows * rows * sqrt(3.0) / 2.0));
    double width = rows * a, height = rows * a * sqrt(3.0) / 2.0;
    carom_world *w = create_world(2, width, walls ? height + 1.0 : height, walls, shell, log);
    double slack = 0.5 * (a - 1.0) > 0.0 ? 0.5 * (a - 1.0) : 0.0;
    for (int k = 0; k < 2 * n; k++) { /* the large disks first, then the small ones where they fit */
        int b = k % n, col = b % rows, row = b / rows;
        if ((radius[b] > 0.5) != (k < n)) continue;
        carom_body_def body = carom_default_body_def();
        body.position = (carom_vec){-0.5 * width + (col + 0.5 * (row & 1) + 0.25) * a + slack * (carom_rng_uniform(&rng) - 0.5),
                                    -0.5 * height + (row + 0.5) * a * sqrt(3.0) / 2.0 + slack * (carom_rng_uniform(&rng) - 0.5),
                                    0.0};
        body.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), 0.0};
        body.radius = radius[b];
        body.mass = radius[b] > 0.5 ? 1.0 : 4.0 * radius[b] * radius[b];
        (void)carom_world_add_body(w, &body, NULL); /* refused where a large disk overlaps it */
    }
    free(radius);
    return w;
}

/* The image (code 0..26) through which anchor j is nearest anchor i. */
static int nearest_image(const carom_world *w, int32_t i, int32_t j, double *d2)
{
    int code = 0, place = 1;
    *d2 = 0.0;
    for (int a = 0; a < 3; a++, place *= 3) {
        double d = (double)w->nb.anchor[3 * j + a] - (double)w->nb.anchor[3 * i + a];
        int s = 0;
        if (w->periodic[a]) s = d > w->half[a] ? -1 : d < -w->half[a] ? 1 : 0;
        d += s * w->side[a];
        *d2 += d * d;
        code += place * (s + 1);
    }
    return code;
}

/* Counts pairs listed wrongly or missing, against brute force over anchors. */
static int check_lists(const carom_world *w)
{
    const neighbours *nb = &w->nb;
    int wrong = 0;
    char *listed = calloc((size_t)w->count, 1);
    for (int32_t i = 0; i < w->count; i++) {
        const int32_t *row = neighbours_row(nb, i);
        for (int k = 0; k < nb->count[i]; k++) {
            wrong += listed[neighbours_slot(row[k])] != 0; /* listed twice */
            listed[neighbours_slot(row[k])] = (char)(1 + (row[k] & 31));
        }
        for (int32_t j = 0; j < w->count; j++) {
            if (j == i) continue;
            double d2, reach = w->hot[i].radius + w->hot[j].radius + 2.0 * nb->shell;
            int code = nearest_image(w, i, j, &d2);
            double gap = sqrt(d2) - reach;
            if (fabs(gap) < 1e-6 * reach) continue; /* on the edge: either answer is right */
            int want = gap < 0.0;
            if (want != (listed[j] != 0) || (want && listed[j] != 1 + code)) wrong++;
        }
        for (int k = 0; k < nb->count[i]; k++) listed[neighbours_slot(row[k])] = 0;
    }
    free(listed);
    return wrong;
}

/* Bodies farther from their anchors than the shell, at the clock. */
static int outside_shells(const carom_world *w)
{
    int outside = 0;
    for (int32_t i = 0; i < w->count; i++) {
        const body_hot *b = &w->hot[i];
        double d2 = 0.0;
        for (int a = 0; a < 3; a++) {
            double d = b->x[a] + b->v[a] * (w->clock - b->t) - (double)w->nb.anchor[3 * i + a];
            d2 += d * d;
        }
        outside += sqrt(d2) > w->nb.shell * (1.0 + 1e-9);
    }
    return outside;
}

/* Faults in the pool of long rows: a body whose row is longer than the
 * width must own one long row, no other body that one, and no free row;
 * the free list must hold the rest, each once; no more bodies that are not
 * large may have long rows than NEIGHBOURS_SPILL_SHARE allows. */
static int pool_faults(const carom_world *w)
{
    const neighbours *nb = &w->nb;
    int faults = 0, used = 0, small_long = 0;
    char *owner = calloc((size_t)nb->long_rows + 1, 1);
    for (int32_t i = 0; i < w->count; i++) {
        if (nb->count[i] <= nb->width) continue;
        int32_t m = neighbours_fixed_row(nb, i)[0];
        used++;
        small_long += w->hot[i].radius <= nb->split;
        faults += nb->count[i] > nb->long_width;
        if (m < 0 || m >= nb->long_rows || owner[m]) faults++;
        else owner[m] = 1;
    }
    int32_t m = nb->long_free;
    for (int32_t k = 0; k < nb->long_free_count; k++) {
        if (m < 0 || m >= nb->long_rows || owner[m]) {
            faults++;
            break;
        }
        owner[m] = 2;
        m = nb->long_entry[(int64_t)m * nb->long_width];
    }
    faults += used != nb->long_used || nb->long_used + nb->long_free_count != nb->long_rows;
    faults += small_long > (w->count - nb->large_count) / NEIGHBOURS_SPILL_SHARE;
    free(owner);
    return faults;
}

/* Bodies not filed exactly once, in the cell world_cell names (with lists
 * on after a rebuild, their anchors' cells: the grid keeps no record). */
static int misfiled(const carom_world *w)
{
    int faults = 0;
    char *seen = calloc((size_t)w->count, 1);
    for (int32_t c = 0; c < w->grid.total; c++)
        for (int32_t s = w->grid.head[c]; s >= 0; s = w->grid.next[s]) {
            faults += s >= w->count || seen[s] || world_cell(w, s) != c;
            if (s < w->count) seen[s] = 1;
        }
    for (int32_t s = 0; s < w->count; s++) faults += !seen[s];
    free(seen);
    return faults;
}

/* Rows longer than the width (large bodies' long rows, and a few others). */
static int long_rows(const carom_world *w)
{
    int n = 0;
    for (int32_t i = 0; i < w->count; i++) n += w->nb.count[i] > w->nb.width;
    return n;
}

/* The longest row. */
static int longest_row(const carom_world *w)
{
    int longest = 0;
    for (int32_t i = 0; i < w->count; i++) longest = w->nb.count[i] > longest ? w->nb.count[i] : longest;
    return longest;
}

/* Runs w in chunks of events, checking after each that the lists are on
 * and match brute force, every body is inside its shell, the pool of long
 * rows is sound and the grid files every body by its anchor alone. */
static void run_checking_lists(carom_world *w, int chunks, int64_t events, double shell, int walls)
{
    for (int chunk = 0; chunk < chunks; chunk++) {
        CHECK(carom_world_run(w, INFINITY, events) == CAROM_OK);
        CHECK(w->nb.on);
        int wrong = check_lists(w), outside = outside_shells(w);
        CHECK_MSG(wrong == 0 && outside == 0,
                  "dim %d, shell %g, walls %d, chunk %d: %d pairs listed wrongly, %d bodies outside their shells",
                  w->dim, shell, walls, chunk, wrong, outside);
        CHECK_EQ_INT(pool_faults(w), 0);
        CHECK(w->grid.cell == NULL && misfiled(w) == 0);
    }
}

static void test_lists_match_brute_force(void)
{
    const double shells[2] = {0.08, 0.3};
    for (int s = 0; s < 2; s++)
        for (int mixed = 0; mixed < 2; mixed++) {
            carom_world *w = make_world(5, 0.45, shells[s], mixed, NULL);
            run_checking_lists(w, 8, 1500, shells[s], mixed);
            CHECK(carom_world_stats(w).cell_events > 1000); /* lists were renewed many times */
            carom_world_destroy(w);
        }
}

/* In a dense fluid (radii 0.4 to 0.5, shell 0.3) the width follows the common length of the
 * rows, not the longest: the few longer rows are long rows, the lists still
 * match brute force, and at a density where most rows are longer than the
 * first width, the width grows instead. */
static void test_width_follows_common_length(void)
{
    const double packing[2] = {0.38, 0.54};
    for (int p = 0; p < 2; p++) {
        carom_world *w = make_world(6, packing[p], 0.3, 0, NULL);
        int spilled = 0, longest = 0;
        for (int chunk = 0; chunk < 6; chunk++) {
            CHECK(carom_world_run(w, INFINITY, 3000) == CAROM_OK);
            CHECK(w->nb.on);
            CHECK_EQ_INT(check_lists(w), 0);
            CHECK_EQ_INT(pool_faults(w), 0);
            spilled += long_rows(w);
            if (longest_row(w) > longest) longest = longest_row(w);
        }
        if (p == 0) {
            CHECK_EQ_INT(w->nb.width, 16);
            CHECK_MSG(spilled > 0 && longest > w->nb.width, "%d long rows seen, longest %d", spilled, longest);
        } else {
            CHECK_MSG(w->nb.width >= 20, "width %d at packing %g", (int)w->nb.width, packing[p]);
        }
        carom_world_destroy(w);
    }
}

/* Large bodies filed in their grid anywhere but the cell of their anchor. */
static int misfiled_large(const carom_world *w)
{
    const neighbours *nb = &w->nb;
    int misfiled = 0;
    for (int32_t m = 0; m < nb->large_count; m++) {
        const float *a = nb->anchor + 3 * nb->large_slot[m];
        const double anchor[3] = {a[0], a[1], a[2]};
        misfiled += nb->large.cell[m] != cells_locate(&nb->large, anchor);
    }
    return misfiled;
}

/* The large bodies are found from a grid of their own and searched through
 * the small bodies' narrow cells, and their rows outgrow the width: the
 * lists still match brute force, with walls or without, with the automatic
 * shell (0.3 of the small diameter) and a thin one, with large bodies far
 * above the split and just above it (their anchors then come within a small
 * body's reach in the small bodies' grid, where they must not be listed). */
static void test_mixture_lists_match_brute_force(void)
{
    const double shells[2] = {0.0, 0.08}, large[2] = {1.6, 1.0};
    for (int s = 0; s < 4; s++)
        for (int walls = 0; walls < 2; walls++) {
            carom_world *w = make_mixture(walls, large[s / 2], shells[s % 2], NULL);
            int most_long = 0;
            for (int chunk = 0; chunk < 6; chunk++) {
                CHECK(carom_world_run(w, INFINITY, 2000) == CAROM_OK);
                CHECK(w->nb.on);
                int wrong = check_lists(w), outside = outside_shells(w), longer = long_rows(w);
                CHECK_EQ_INT(pool_faults(w), 0);
                if (longer > most_long) most_long = longer;
                CHECK_MSG(misfiled_large(w) == 0, "chunk %d: %d large bodies filed away from their anchors", chunk,
                          misfiled_large(w));
                CHECK_MSG(wrong == 0 && outside == 0,
                          "large %g, shell %g, walls %d, chunk %d: %d pairs listed wrongly, %d bodies outside their shells",
                          large[s / 2], shells[s % 2], walls, chunk, wrong, outside);
            }
            CHECK_EQ_INT(w->nb.large_count, MIXTURE_LARGE);
            CHECK(w->nb.split == 0.5 || w->nb.split < 0.5); /* the largest small radius */
            CHECK(w->nb.split > 0.49);
            CHECK_MSG(most_long > 0 || s / 2 == 1, "%d long rows", most_long);
            CHECK(w->grid.width[0] < 2.0 * large[s / 2]); /* as fine as the small bodies need */
            carom_world_destroy(w);
        }
}

/* Is event e of one run in the other, near position k (near-simultaneous
 * events far apart may swap places), at the same time to 1e-9? */
static int found_near(const event_list *other, int k, const carom_event *e)
{
    for (int m = k - 8; m <= k + 8; m++) {
        if (m < 0 || m >= other->count) continue;
        const carom_event *f = &other->events[m];
        if (f->kind == e->kind && f->i == e->i && f->j == e->j && fabs(f->time - e->time) <= 1e-9 * (1.0 + e->time))
            return 1;
    }
    return 0;
}

/* Both logs are full (events long), and every event of the cell-list run
 * is in the neighbour-list run, near the same place; frees both logs. */
static void expect_same_events(event_list *with_cells, event_list *with_lists, int events)
{
    CHECK_EQ_INT(with_cells->count, events);
    CHECK_EQ_INT(with_lists->count, events);
    int unmatched = 0;
    for (int k = 0; k < events; k++) unmatched += !found_near(with_lists, k, &with_cells->events[k]);
    CHECK_MSG(unmatched == 0, "%d of %d events of the cell-list run are not in the neighbour-list run",
              unmatched, events);
    free(with_cells->events);
    free(with_lists->events);
}

static void test_lists_agree_with_cells(void)
{
    enum { EVENTS = 6000 };
    event_list with_cells = {calloc(EVENTS, sizeof(carom_event)), 0, EVENTS};
    event_list with_lists = {calloc(EVENTS, sizeof(carom_event)), 0, EVENTS};
    carom_world *a = make_world(6, 0.4, -1.0, 1, &with_cells), *b = make_world(6, 0.4, 0.2, 1, &with_lists);
    CHECK(carom_world_run(a, INFINITY, EVENTS + 4000) == CAROM_OK);
    CHECK(carom_world_run(b, INFINITY, EVENTS + 4000) == CAROM_OK);
    CHECK(!a->nb.on && b->nb.on);
    expect_same_events(&with_cells, &with_lists, EVENTS);
    carom_world_destroy(a);
    carom_world_destroy(b);
}

/* A body added after a run with lists (the grid records cells again, and
 * holds bodies filed by anchor and by position until the next rebuild):
 * the events still are those with cells. */
static void test_added_after_lists_agree_with_cells(void)
{
    enum { EVENTS = 4000 };
    event_list with_cells = {calloc(EVENTS, sizeof(carom_event)), 0, EVENTS};
    event_list with_lists = {calloc(EVENTS, sizeof(carom_event)), 0, EVENTS};
    carom_world *a = make_world(5, 0.3, -1.0, 1, &with_cells), *b = make_world(5, 0.3, 0.25, 1, &with_lists);
    CHECK(carom_world_run(a, 0.4, -1) == CAROM_OK);
    CHECK(carom_world_run(b, 0.4, -1) == CAROM_OK);
    CHECK(!a->nb.on && b->nb.on && b->grid.cell == NULL && misfiled(b) == 0);
    carom_rng rng = carom_rng_seed(5);
    int added = 0;
    for (int tries = 0; tries < 10000 && added < 3; tries++) {
        carom_body_def body = carom_default_body_def();
        body.radius = 0.2;
        for (int k = 0; k < 3; k++) (&body.position.x)[k] = 0.9 * b->half[k] * (2.0 * carom_rng_uniform(&rng) - 1.0);
        body.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), carom_rng_normal(&rng)};
        if (carom_world_add_body(b, &body, NULL) != CAROM_OK) continue;
        CHECK(carom_world_add_body(a, &body, NULL) == CAROM_OK);
        CHECK(b->grid.cell != NULL && misfiled(b) == 0);
        added++;
    }
    CHECK_EQ_INT(added, 3);
    int before = with_cells.count;
    CHECK_EQ_INT(with_lists.count, before);
    CHECK_MSG(before > 200 && before < EVENTS / 2, "%d events before the bodies were added", before);
    CHECK(carom_world_run(a, INFINITY, 2 * EVENTS) == CAROM_OK); /* the logs keep the first EVENTS */
    CHECK(carom_world_run(b, INFINITY, 2 * EVENTS) == CAROM_OK);
    CHECK(b->nb.on && b->grid.cell == NULL && misfiled(b) == 0 && check_lists(b) == 0);
    expect_same_events(&with_cells, &with_lists, EVENTS);
    carom_world_destroy(a);
    carom_world_destroy(b);
}

/* The mixture's events with lists are those with cells as wide as the
 * large bodies. */
static void test_mixture_lists_agree_with_cells(void)
{
    enum { EVENTS = 8000 };
    event_list with_cells = {calloc(EVENTS, sizeof(carom_event)), 0, EVENTS};
    event_list with_lists = {calloc(EVENTS, sizeof(carom_event)), 0, EVENTS};
    carom_world *a = make_mixture(1, 1.6, -1.0, &with_cells), *b = make_mixture(1, 1.6, 0.0, &with_lists);
    CHECK(carom_world_run(a, INFINITY, 3 * EVENTS) == CAROM_OK);
    CHECK(carom_world_run(b, INFINITY, 3 * EVENTS) == CAROM_OK);
    CHECK(!a->nb.on && b->nb.on && b->nb.large_count == MIXTURE_LARGE);
    CHECK_EQ_INT(with_cells.count, EVENTS);
    CHECK_EQ_INT(with_lists.count, EVENTS);
    int unmatched = 0, with_large = 0;
    for (int k = 0; k < EVENTS; k++) {
        const carom_event *e = &with_cells.events[k];
        unmatched += !found_near(&with_lists, k, e);
        with_large += e->kind == CAROM_EVENT_PAIR && (e->i >= MIXTURE_BODIES - MIXTURE_LARGE || e->j >= MIXTURE_BODIES - MIXTURE_LARGE);
    }
    CHECK_MSG(unmatched == 0, "%d of %d events of the cell-list run are not in the neighbour-list run",
              unmatched, EVENTS);
    CHECK_MSG(with_large > 100, "only %d collisions with a large body", with_large);
    free(with_cells.events);
    free(with_lists.events);
    carom_world_destroy(a);
    carom_world_destroy(b);
}

/* Dense disks (area fraction 0.62): the lists match brute force through a
 * run, periodic and with walls, with the automatic shell (wide in 2D) and
 * a thin one. */
static void test_disk_lists_match_brute_force(void)
{
    const double shells[2] = {0.0, 0.1};
    for (int s = 0; s < 2; s++)
        for (int walls = 0; walls < 2; walls++) {
            carom_world *w = make_disks(40, 0.62, walls, 0.0, shells[s], NULL);
            run_checking_lists(w, 8, 2000, shells[s], walls);
            CHECK_MSG(carom_world_stats(w).cell_events > 200, "%lld renewals",
                      (long long)carom_world_stats(w).cell_events);
            carom_world_destroy(w);
        }
}

/* Disks of radius 2 among small ones (a spread of sizes that gets lists at
 * any density, in 2D too): the large disks' grid and rows match brute
 * force, periodic and with walls. */
static void test_disk_mixture_lists_match_brute_force(void)
{
    for (int walls = 0; walls < 2; walls++) {
        carom_world *w = make_disks(40, 0.45, walls, 2.0, 0.0, NULL);
        for (int chunk = 0; chunk < 6; chunk++) {
            CHECK(carom_world_run(w, INFINITY, 2000) == CAROM_OK);
            CHECK(w->nb.on && w->nb.large_count == 25);
            int wrong = check_lists(w), outside = outside_shells(w);
            CHECK_MSG(wrong == 0 && outside == 0, "walls %d, chunk %d: %d pairs listed wrongly, %d outside", walls,
                      chunk, wrong, outside);
            CHECK_EQ_INT(pool_faults(w), 0);
            CHECK_EQ_INT(misfiled_large(w), 0);
        }
        CHECK(w->grid.width[0] < 4.0); /* as fine as the small disks need */
        carom_world_destroy(w);
    }
}

/* Dense disks, and disks with large ones among them, give the events of
 * cells with lists. */
static void test_disk_lists_agree_with_cells(void)
{
    enum { EVENTS = 6000 };
    const double large[2] = {0.0, 1.6};
    for (int m = 0; m < 2; m++) {
        event_list with_cells = {calloc(EVENTS, sizeof(carom_event)), 0, EVENTS};
        event_list with_lists = {calloc(EVENTS, sizeof(carom_event)), 0, EVENTS};
        carom_world *a = make_disks(30, 0.6, 1, large[m], -1.0, &with_cells);
        carom_world *b = make_disks(30, 0.6, 1, large[m], 0.0, &with_lists);
        CHECK(carom_world_run(a, INFINITY, 2 * EVENTS) == CAROM_OK);
        CHECK(carom_world_run(b, INFINITY, 2 * EVENTS) == CAROM_OK);
        CHECK(!a->nb.on && b->nb.on && b->nb.large_count == (m == 0 ? 0 : 16));
        expect_same_events(&with_cells, &with_lists, EVENTS);
        carom_world_destroy(a);
        carom_world_destroy(b);
    }
}

/* Which structure a world ends up with after its first run. */
static int uses_lists(carom_world *w)
{
    CHECK(carom_world_run(w, 0.0, -1) == CAROM_OK);
    int on = w->nb.on;
    carom_world_destroy(w);
    return on;
}

/* A dilute periodic cube of 1,000 spheres of radius 0.5, 2 apart, with the
 * one at the first site of radius big instead. */
static carom_world *dilute_mixture(double big)
{
    carom_world_def def = carom_default_world_def();
    def.box = (carom_vec){20.0, 20.0, 20.0};
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    for (int k = 0; k < 1000; k++) {
        carom_body_def b = carom_default_body_def();
        b.position = (carom_vec){2.0 * (k % 10) - 9.0, 2.0 * (k / 10 % 10) - 9.0, 2.0 * (k / 100) - 9.0};
        b.velocity = (carom_vec){0.1 * (k % 7) - 0.3, 0.1 * (k % 5) - 0.2, 0.1 * (k % 3) - 0.1};
        b.radius = k == 0 ? big : 0.5;
        CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    }
    return w;
}

static void test_automatic_choice(void)
{
    /* size-asymmetric mixtures get lists at any density: the largest radius
     * 2.8 times the mean here, not 1.8 */
    CHECK(uses_lists(dilute_mixture(1.4)));
    CHECK(!uses_lists(dilute_mixture(0.9)));
    CHECK(uses_lists(make_world(5, 0.45, 0.0, 0, NULL)));  /* dense 3D */
    CHECK(!uses_lists(make_world(5, 0.2, 0.0, 0, NULL)));  /* dilute */
    CHECK(!uses_lists(make_world(5, 0.45, -1.0, 0, NULL))); /* asked for cells */
    CHECK(uses_lists(make_world(5, 0.2, 0.3, 0, NULL)));    /* asked for lists */
    /* disks: lists from area fraction 0.5, and for mixtures */
    CHECK(uses_lists(make_disks(30, 0.55, 0, 0.0, 0.0, NULL)));
    CHECK(!uses_lists(make_disks(30, 0.45, 0, 0.0, 0.0, NULL)));
    CHECK(!uses_lists(make_disks(30, 0.55, 0, 0.0, -1.0, NULL)));
    CHECK(uses_lists(make_disks(30, 0.2, 0, 2.0, 0.0, NULL)));
    /* a periodic box of 3 diameters leaves no room for a shell */
    carom_world_def def = carom_default_world_def();
    def.box = (carom_vec){3.0, 3.0, 3.0};
    def.neighbour_shell = 0.3;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_body_def body = carom_default_body_def();
    CHECK(carom_world_add_body(w, &body, NULL) == CAROM_OK);
    CHECK(!uses_lists(w));
    /* gravity keeps cells */
    def = carom_default_world_def();
    def.gravity = (carom_vec){0.0, -1.0, 0.0};
    def.neighbour_shell = 0.3;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    CHECK(carom_world_add_body(w, &body, NULL) == CAROM_OK);
    CHECK(!uses_lists(w));
    /* NaN is refused */
    def.neighbour_shell = NAN;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_INVALID_ARGUMENT);
}

/* The automatic shell, computed here from its definition: 0.3 of the
 * largest small diameter up to packing 0.45, and narrower above as
 * Enskog's mean free path with Carnahan and Starling's contact value,
 * 1 / (eta g), to the power 3/4; eta is the small bodies' packing in the
 * room the large ones leave their centres. */
static double free_path(double eta) { return 1.0 / (eta * (1.0 - eta / 2.0) / pow(1.0 - eta, 3.0)); }

static double expected_shell(const carom_world *w)
{
    double split = w->nb.split, small = 0.0, radii = 0.0, excluded = 0.0;
    int n = 0;
    for (int32_t i = 0; i < w->count; i++)
        if (w->hot[i].radius <= split) small += 4.0 / 3.0 * pi * pow(w->hot[i].radius, 3.0), radii += w->hot[i].radius, n++;
    for (int32_t i = 0; i < w->count; i++)
        if (w->hot[i].radius > split) excluded += 4.0 / 3.0 * pi * pow(w->hot[i].radius + radii / n, 3.0);
    double eta = small / (w->side[0] * w->side[1] * w->side[2] - excluded);
    double narrowing = eta > 0.45 ? pow(free_path(eta) / free_path(0.45), 0.75) : 1.0;
    return 0.3 * 2.0 * split * narrowing;
}

/* The automatic 2D shell, from its definition: a mean of 10 disks within
 * reach, 4 phi (1 + 2 shell)^2 = 10, at most 0.6 diameters; phi is the
 * small disks' area fraction in the room the large ones leave. */
static double expected_disk_shell(const carom_world *w)
{
    double split = w->nb.split, small = 0.0, radii = 0.0, excluded = 0.0;
    int n = 0;
    for (int32_t i = 0; i < w->count; i++)
        if (w->hot[i].radius <= split) small += pi * pow(w->hot[i].radius, 2.0), radii += w->hot[i].radius, n++;
    for (int32_t i = 0; i < w->count; i++)
        if (w->hot[i].radius > split) excluded += pi * pow(w->hot[i].radius + radii / n, 2.0);
    double phi = small / (w->side[0] * w->side[1] - excluded);
    double shell = (pow(10.0 / (4.0 * phi), 0.5) - 1.0) / 2.0;
    return (shell < 0.6 ? shell : 0.6) * 2.0 * split;
}

static void test_automatic_disk_shell_follows_density(void)
{
    const double packing[4] = {0.52, 0.62, 0.72, 0.82}, large[4] = {0.0, 0.0, 0.0, 1.6};
    double shell[4];
    for (int p = 0; p < 4; p++) {
        carom_world *w = make_disks(30, packing[p], 0, large[p], 0.0, NULL);
        CHECK(carom_world_run(w, INFINITY, 3000) == CAROM_OK);
        CHECK(w->nb.on && check_lists(w) == 0 && outside_shells(w) == 0);
        shell[p] = w->nb.shell / (2.0 * w->nb.split);
        CHECK_MSG(fabs(w->nb.shell - expected_disk_shell(w)) <= 1e-12 * w->nb.shell,
                  "area fraction %g: shell %.17g, expected %.17g", packing[p], w->nb.shell, expected_disk_shell(w));
        carom_world_destroy(w);
    }
    /* 0.6 at 0.52 (the formula gives 0.59 for the polydisperse disks'
     * fraction, which is about 0.52), then narrower as the disks pack */
    CHECK_MSG(shell[0] > 0.55 && shell[0] <= 0.6 && shell[0] > shell[1] && shell[1] > shell[2] && shell[2] > 0.4,
              "shells %g %g %g", shell[0], shell[1], shell[2]);
    CHECK_MSG(shell[3] > 0.0 && shell[3] <= 0.6, "mixture shell %g", shell[3]);
}

static void test_automatic_shell_follows_density(void)
{
    const double packing[4] = {0.40, 0.45, 0.50, 0.54};
    double shell[4];
    for (int p = 0; p < 4; p++) {
        carom_world *w = make_world(5, packing[p], 0.0, 0, NULL);
        for (int chunk = 0; chunk < (p == 3 ? 6 : 1); chunk++) {
            CHECK(carom_world_run(w, INFINITY, 2000) == CAROM_OK);
            CHECK(w->nb.on && check_lists(w) == 0 && outside_shells(w) == 0);
        }
        shell[p] = w->nb.shell / (2.0 * w->nb.split); /* in diameters */
        CHECK_MSG(fabs(w->nb.shell - expected_shell(w)) <= 1e-12 * w->nb.shell,
                  "packing %g: shell %.17g, expected %.17g", packing[p], w->nb.shell, expected_shell(w));
        if (p == 3) CHECK(carom_world_stats(w).cell_events > 100); /* the narrow shell renewed, and held */
        carom_world_destroy(w);
    }
    CHECK_MSG(fabs(shell[0] - 0.3) < 1e-14 && fabs(shell[1] - 0.3) < 1e-14 && shell[1] > shell[2] && shell[2] > shell[3] && shell[3] > 0.5 * shell[1],
              "shells %g %g %g %g", shell[0], shell[1], shell[2], shell[3]);
    /* a mixture compressed to 0.6: its small bodies' packing decides */
    carom_world *loose = make_mixture(0, 1.0, 0.0, NULL), *w = NULL;
    carom_compress_def def = carom_default_compress_def();
    def.rate = 0.1;
    def.target = 0.6;
    carom_compress_result got;
    CHECK(carom_compress(loose, &def, &w, &got, NULL, 0) == CAROM_OK && got.reached_target);
    CHECK(carom_world_run(w, INFINITY, 3000) == CAROM_OK);
    CHECK(w->nb.on && w->nb.large_count == MIXTURE_LARGE && check_lists(w) == 0 && outside_shells(w) == 0);
    CHECK_MSG(fabs(w->nb.shell - expected_shell(w)) <= 1e-12 * w->nb.shell && w->nb.shell < 0.3 * 2.0 * w->nb.split,
              "mixture: shell %.17g, expected %.17g", w->nb.shell, expected_shell(w));
    carom_world_destroy(loose);
    carom_world_destroy(w);
}

int main(void)
{
    RUN(test_lists_match_brute_force);
    RUN(test_width_follows_common_length);
    RUN(test_lists_agree_with_cells);
    RUN(test_added_after_lists_agree_with_cells);
    RUN(test_mixture_lists_match_brute_force);
    RUN(test_mixture_lists_agree_with_cells);
    RUN(test_disk_lists_match_brute_force);
    RUN(test_disk_mixture_lists_match_brute_force);
    RUN(test_disk_lists_agree_with_cells);
    RUN(test_automatic_choice);
    RUN(test_automatic_disk_shell_follows_density);
    RUN(test_automatic_shell_follows_density);
    return CHECK_SUMMARY();
}
