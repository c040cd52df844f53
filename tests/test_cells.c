/* test_cells.c — unit tests of the cell grid (src/cells.c).
 *
 * Binning at the box faces and on interior cell boundaries (a position on a
 * boundary belongs to the upper cell, +half is clamped into the last cell);
 * stencils against a brute-force reference built from cell centres and
 * periodic images (interior 27 / 9 cells, clipped at walls, each periodic
 * image within one cell width of the home cell, 3 cells per periodic axis,
 * mixed boundaries, 2D); the per-cell linked lists against a reference
 * array under random insert/remove; exit times against hand-solved
 * crossings (straight and under gravity, no exit through walled outer
 * faces); cells_cross wrap shifts; a body followed through many crossings
 * stays in the cell that contains it; and the limits of cells_configure.
 *
 * Nothing here assumes how cells are numbered: a cell is named by locating
 * its centre, and the map back to coordinates is built the same way.
 */
#include <math.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>

#include "cells.h"
#include "carom.h"
#include "check.h"

/* ---- random numbers: the library's seeded generator ---- */

static carom_rng rng_state = {{0xce115u, 0x9e3779b97f4a7c15u, 0x2545f4914f6cdd1du, 1u}};

static uint64_t next_u64(void) { return carom_rng_next(&rng_state); }

static int below(int n)
{
    return (int)(next_u64() % (uint64_t)n);
}

static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(next_u64() >> 11) * 0x1.0p-53);
}

/* ---- geometry helpers, independent of the cell numbering ---- */

static void setup(cells *grid, int dim, const double side[3], const int periodic[3],
                  double min_width, int64_t max_cells)
{
    CHECK_EQ_INT(cells_configure(grid, dim, side, periodic, min_width, max_cells), 0);
}

static double centre_along(const cells *grid, int a, int k)
{
    return -grid->half[a] + (k + 0.5) * grid->width[a];
}

/* The cell with coordinates k, found by locating its centre. */
static int32_t cell_at(const cells *grid, int k0, int k1, int k2)
{
    const double x[3] = {centre_along(grid, 0, k0), centre_along(grid, 1, k1),
                         centre_along(grid, 2, k2)};
    return cells_locate(grid, x);
}

/* Coordinates of every cell, found by locating every centre:
 * coords[3 * cell + a]. Caller frees. */
static int *map_coords(const cells *grid)
{
    int *coords = malloc(3 * (size_t)grid->total * sizeof *coords);
    for (int i = 0; i < 3 * grid->total; i++) coords[i] = -1;
    for (int k2 = 0; k2 < grid->n[2]; k2++)
        for (int k1 = 0; k1 < grid->n[1]; k1++)
            for (int k0 = 0; k0 < grid->n[0]; k0++) {
                int32_t c = cell_at(grid, k0, k1, k2);
                if (c < 0 || c >= grid->total) continue;
                coords[3 * c] = k0;
                coords[3 * c + 1] = k1;
                coords[3 * c + 2] = k2;
            }
    return coords;
}

static void centre_of(const cells *grid, const int *coords, int32_t cell, double c[3])
{
    for (int a = 0; a < 3; a++) c[a] = centre_along(grid, a, coords[3 * cell + a]);
}

/* ---- binning ---- */

/* Cells along axis a for a position x on that axis; the other two
 * coordinates sit in cell 1 of a 4 x 4 x 4 grid of width 2 on [-4, 4].
 * "Just below" a boundary means by more than the resolution of x + half
 * (ulp(4) = 8.9e-16): floor((x + half) / width) cannot see finer. */
static int32_t locate_on_axis(const cells *grid, int a, double x)
{
    double p[3] = {-1.0, -1.0, -1.0};
    p[a] = x;
    return cells_locate(grid, p);
}

static int32_t cell_on_axis(const cells *grid, int a, int k)
{
    int kk[3] = {1, 1, 1};
    kk[a] = k;
    return cell_at(grid, kk[0], kk[1], kk[2]);
}

static void check_binning_axis(const cells *grid, int a)
{
    const double x[] = {-4.0, nextafter(-4.0, 0.0), nextafter(-2.0, -5.0), -2.0,
                        -1e-15, 0.0, 2.0, nextafter(4.0, 0.0), 4.0, -4.5, 4.5};
    const int k[] = {0, 0, 0, 1, 1, 2, 3, 3, 3, 0, 3};
    for (int i = 0; i < 11; i++)
        CHECK_MSG(locate_on_axis(grid, a, x[i]) == cell_on_axis(grid, a, k[i]),
                  "axis %d, x = %.17g: expected coordinate %d", a, x[i], k[i]);
}

static void test_locate_edges(void)
{
    const double side[3] = {8, 8, 8};
    const int walls[3] = {0, 0, 0}, wrap[3] = {1, 1, 1};
    for (int p = 0; p < 2; p++) {
        cells grid = {0};
        setup(&grid, 3, side, p ? wrap : walls, 2.0, 1000);
        for (int a = 0; a < 3; a++) {
            CHECK_EQ_INT(grid.n[a], 4);
            CHECK(grid.width[a] == 2.0);
            check_binning_axis(&grid, a);
        }
        cells_free(&grid);
    }
}

/* Every centre maps to its own cell, and the cells are 0 .. total-1. */
static void check_bijection(const cells *grid)
{
    int32_t total = grid->n[0] * grid->n[1] * grid->n[2];
    CHECK_EQ_INT(grid->total, total);
    char *seen = calloc((size_t)total, 1);
    for (int k2 = 0; k2 < grid->n[2]; k2++)
        for (int k1 = 0; k1 < grid->n[1]; k1++)
            for (int k0 = 0; k0 < grid->n[0]; k0++) {
                int32_t c = cell_at(grid, k0, k1, k2);
                CHECK(c >= 0 && c < total);
                if (c >= 0 && c < total) {
                    CHECK_MSG(!seen[c], "cell %d reached twice", (int)c);
                    seen[c] = 1;
                }
            }
    free(seen);
}

static void test_locate_bijection_and_near_boundaries(void)
{
    const double side[3] = {10.0, 7.3, 5.5};
    const int periodic[3] = {1, 0, 1};
    cells grid = {0};
    setup(&grid, 3, side, periodic, 1.1, 100000);
    check_bijection(&grid);
    int *coords = map_coords(&grid);
    /* A hair on either side of every interior boundary. */
    for (int a = 0; a < 3; a++)
        for (int k = 1; k < grid.n[a]; k++) {
            double boundary = -grid.half[a] + k * grid.width[a], h = 1e-9 * grid.width[a];
            double p[3] = {0, 0, 0}, q[3] = {0, 0, 0};
            p[a] = boundary - h;
            q[a] = boundary + h;
            CHECK_EQ_INT(coords[3 * cells_locate(&grid, p) + a], k - 1);
            CHECK_EQ_INT(coords[3 * cells_locate(&grid, q) + a], k);
        }
    free(coords);
    cells_free(&grid);
}

static void test_locate_2d(void)
{
    const double side[3] = {8, 8, 1};
    const int walls[3] = {0, 0, 0};
    cells grid = {0};
    setup(&grid, 2, side, walls, 2.0, 1000);
    CHECK_EQ_INT(grid.n[2], 1);
    CHECK_EQ_INT(grid.total, 16);
    check_bijection(&grid);
    const double low[3] = {-3, 3, -0.4}, high[3] = {-3, 3, 0.4}, zero[3] = {-3, 3, 0};
    CHECK_EQ_INT(cells_locate(&grid, low), cell_at(&grid, 0, 3, 0));
    CHECK_EQ_INT(cells_locate(&grid, high), cell_at(&grid, 0, 3, 0));
    CHECK_EQ_INT(cells_locate(&grid, zero), cell_at(&grid, 0, 3, 0));
    cells_free(&grid);
}

/* ---- stencils against a brute-force reference ---- */

/* Is (cell, shift) a neighbour of home? Its image centre must lie within 1.5
 * widths of the home centre on every axis, shifts only on periodic axes. */
typedef struct stencil_case {
    const cells *grid;
    const int *coords; /* from map_coords */
    int periodic[3];   /* as in effect: only on the dim active axes */
} stencil_case;

static int is_neighbour(const stencil_case *sc, int32_t home, int32_t cell, const double shift[3])
{
    const cells *grid = sc->grid;
    const int *periodic = sc->periodic;
    double ch[3], cc[3];
    centre_of(grid, sc->coords, home, ch);
    centre_of(grid, sc->coords, cell, cc);
    for (int a = 0; a < 3; a++) {
        if (shift[a] != 0.0 && (!periodic[a] || fabs(shift[a]) != grid->side[a])) return 0;
        if (fabs(cc[a] + shift[a] - ch[a]) > 1.5 * grid->width[a]) return 0;
    }
    return 1;
}

/* How many (cell, shift) pairs the reference counts for home. */
static int reference_count(const stencil_case *sc, int32_t home)
{
    const cells *grid = sc->grid;
    int count = 0;
    for (int32_t c = 0; c < grid->total; c++)
        for (int s0 = -1; s0 <= 1; s0++)
            for (int s1 = -1; s1 <= 1; s1++)
                for (int s2 = -1; s2 <= 1; s2++) {
                    double shift[3] = {s0 * grid->side[0], s1 * grid->side[1], s2 * grid->side[2]};
                    count += is_neighbour(sc, home, c, shift);
                }
    return count;
}

/* Checks one stencil: right count, no duplicate cell, every entry a
 * neighbour with its image within one width per axis. */
static void check_stencil(const stencil_case *sc, int32_t home)
{
    const cells *grid = sc->grid;
    cells_neighbour out[CELLS_STENCIL_MAX];
    int count = cells_stencil(grid, home, out);
    CHECK_EQ_INT(count, reference_count(sc, home));
    double ch[3];
    centre_of(grid, sc->coords, home, ch);
    for (int i = 0; i < count; i++) {
        CHECK_MSG(is_neighbour(sc, home, out[i].cell, out[i].shift),
                  "home %d: cell %d with shift (%g %g %g)", (int)home, (int)out[i].cell,
                  out[i].shift[0], out[i].shift[1], out[i].shift[2]);
        double cc[3];
        centre_of(grid, sc->coords, out[i].cell, cc);
        for (int a = 0; a < 3; a++)
            CHECK(fabs(cc[a] + out[i].shift[a] - ch[a]) <= grid->width[a] * (1 + 1e-12));
        for (int j = 0; j < i; j++) CHECK(out[j].cell != out[i].cell);
    }
}

static void check_all_stencils(int dim, const double side[3], const int periodic[3],
                               double min_width)
{
    cells grid = {0};
    setup(&grid, dim, side, periodic, min_width, 100000);
    stencil_case sc = {&grid, map_coords(&grid), {0, 0, 0}};
    for (int a = 0; a < 3; a++) sc.periodic[a] = a < dim && periodic[a];
    for (int32_t home = 0; home < grid.total; home++) check_stencil(&sc, home);
    free((void *)sc.coords);
    cells_free(&grid);
}

static int stencil_size(const cells *grid, int k0, int k1, int k2)
{
    cells_neighbour out[CELLS_STENCIL_MAX];
    return cells_stencil(grid, cell_at(grid, k0, k1, k2), out);
}

static void test_stencil_walls(void)
{
    const double side[3] = {8, 8, 8};
    const int walls[3] = {0, 0, 0};
    cells grid = {0};
    setup(&grid, 3, side, walls, 2.0, 1000);
    CHECK_EQ_INT(stencil_size(&grid, 1, 2, 1), 27);
    CHECK_EQ_INT(stencil_size(&grid, 0, 1, 2), 18);
    CHECK_EQ_INT(stencil_size(&grid, 0, 3, 2), 12);
    CHECK_EQ_INT(stencil_size(&grid, 3, 0, 3), 8);
    cells_free(&grid);
    const double flat[3] = {8, 8, 1};
    setup(&grid, 2, flat, walls, 2.0, 1000);
    CHECK_EQ_INT(stencil_size(&grid, 1, 2, 0), 9);
    CHECK_EQ_INT(stencil_size(&grid, 0, 2, 0), 6);
    CHECK_EQ_INT(stencil_size(&grid, 3, 3, 0), 4);
    cells_free(&grid);
    check_all_stencils(3, side, walls, 2.0);
    check_all_stencils(2, flat, walls, 2.0);
}

/* Three cells on every periodic axis: each cell once, with its image shift. */
static void test_stencil_periodic_three(void)
{
    const double side[3] = {3.3, 3.5, 3.9};
    const int wrap[3] = {1, 1, 1};
    cells grid = {0};
    setup(&grid, 3, side, wrap, 1.05, 1000);
    for (int a = 0; a < 3; a++) CHECK_EQ_INT(grid.n[a], 3);
    stencil_case sc = {&grid, map_coords(&grid), {1, 1, 1}};
    for (int32_t home = 0; home < grid.total; home++) {
        cells_neighbour out[CELLS_STENCIL_MAX];
        int count = cells_stencil(&grid, home, out);
        CHECK_EQ_INT(count, 27);
        int hits[27] = {0};
        for (int i = 0; i < count; i++)
            if (out[i].cell >= 0 && out[i].cell < 27) hits[out[i].cell]++;
        for (int c = 0; c < 27; c++) CHECK_EQ_INT(hits[c], 1);
        check_stencil(&sc, home);
    }
    free((void *)sc.coords);
    cells_free(&grid);
    const double flat[3] = {3.0, 3.3, 1.0};
    check_all_stencils(2, flat, wrap, 1.0);
}

static void test_stencil_mixed(void)
{
    const int mixed[3] = {1, 0, 1}, other[3] = {0, 1, 0}, wrap[3] = {1, 1, 1};
    const double sides[][3] = {{3.0, 4.0, 5.0}, {5.5, 3.0, 4.2}, {7.7, 7.7, 3.1}};
    for (int i = 0; i < 3; i++) {
        check_all_stencils(3, sides[i], mixed, 1.0);
        check_all_stencils(3, sides[i], other, 1.0);
        check_all_stencils(3, sides[i], wrap, 1.0);
        check_all_stencils(2, sides[i], mixed, 1.0);
        check_all_stencils(2, sides[i], other, 1.0);
    }
}

/* ---- linked lists ---- */

enum { LIST_BODIES = 300 };

/* Walks every list: membership and sizes against ref_cell. */
static int lists_agree(const cells *grid, const int32_t ref_cell[LIST_BODIES])
{
    int found[LIST_BODIES] = {0}, ok = 1;
    for (int32_t c = 0; c < grid->total; c++) {
        for (int32_t b = grid->head[c]; b >= 0; b = grid->next[b]) {
            if (b >= LIST_BODIES || found[b] || ref_cell[b] != c || grid->cell[b] != c) return 0;
            found[b] = 1;
        }
    }
    for (int b = 0; b < LIST_BODIES; b++) {
        ok &= found[b] == (ref_cell[b] >= 0);
        ok &= grid->cell[b] == ref_cell[b];
    }
    return ok;
}

static void list_step(cells *grid, int32_t ref_cell[LIST_BODIES])
{
    int b = below(LIST_BODIES);
    if (ref_cell[b] < 0) {
        int32_t c = below(grid->total);
        cells_insert(grid, b, c);
        ref_cell[b] = c;
    } else if (below(2)) {
        cells_remove(grid, b);
        ref_cell[b] = -1;
    } else {
        int32_t c = below(grid->total);
        cells_remove(grid, b);
        cells_insert(grid, b, c);
        ref_cell[b] = c;
    }
    int absent = below(LIST_BODIES);
    if (ref_cell[absent] < 0) cells_remove(grid, absent); /* harmless */
}

static void test_linked_lists(void)
{
    const double side[3] = {8, 6, 4};
    const int walls[3] = {0, 0, 0};
    cells grid = {0};
    CHECK_EQ_INT(cells_reserve(&grid, LIST_BODIES), 0);
    setup(&grid, 3, side, walls, 2.0, 1000);
    int32_t ref_cell[LIST_BODIES];
    for (int b = 0; b < LIST_BODIES; b++) ref_cell[b] = -1;
    CHECK(lists_agree(&grid, ref_cell));
    int failed_at = -1;
    for (int step = 0; step < 50000 && failed_at < 0; step++) {
        list_step(&grid, ref_cell);
        if (!lists_agree(&grid, ref_cell)) failed_at = step;
    }
    CHECK_MSG(failed_at < 0, "lists differ from the reference after step %d", failed_at);
    /* Growing the body arrays keeps the lists. */
    CHECK_EQ_INT(cells_reserve(&grid, 5 * LIST_BODIES), 0);
    CHECK(lists_agree(&grid, ref_cell));
    for (int b = LIST_BODIES; b < 5 * LIST_BODIES; b++) CHECK(grid.cell[b] < 0);
    /* Reconfiguring empties the grid. */
    setup(&grid, 3, side, walls, 2.0, 1000);
    for (int b = 0; b < LIST_BODIES; b++) ref_cell[b] = -1;
    CHECK(lists_agree(&grid, ref_cell));
    cells_free(&grid);
}

/* ---- exit times ---- */

static double exit_of(const cells *grid, const int k[3], double x0, double x1, double x2,
                      double v0, double v1, double v2, const double g[3], int *face)
{
    const double x[3] = {x0, x1, x2}, v[3] = {v0, v1, v2};
    return cells_exit_time(grid, cell_at(grid, k[0], k[1], k[2]), x, v, g, face);
}

/* 4 x 4 x 4 cells of width 2 on [-4, 4]^3; cell (1, 1, 1) is [-2, 0]^3. */
static void test_exit_straight(void)
{
    const double side[3] = {8, 8, 8}, none[3] = {0, 0, 0};
    const int walls[3] = {0, 0, 0};
    const int mid[3] = {1, 1, 1};
    cells grid = {0};
    setup(&grid, 3, side, walls, 2.0, 1000);
    int face = -7;
    CHECK_NEAR(exit_of(&grid, mid, -1.5, -1, -0.5, 1, 0, 0, none, &face), 1.5, 1e-15);
    CHECK_EQ_INT(face, 1);
    CHECK_NEAR(exit_of(&grid, mid, -1.5, -1, -0.5, 1, -2, 0.5, none, &face), 0.5, 1e-15);
    CHECK_EQ_INT(face, 2);
    CHECK_NEAR(exit_of(&grid, mid, -1.5, -1, -0.5, 0, 0, 0.25, none, &face), 2.0, 1e-15);
    CHECK_EQ_INT(face, 5);
    CHECK_NEAR(exit_of(&grid, mid, -0.5, -1, -1, -3, 0, 0, none, &face), 0.5, 1e-15);
    CHECK_EQ_INT(face, 0);
    CHECK(exit_of(&grid, mid, -1, -1, -1, 0, 0, 0, none, &face) == INFINITY);
    cells_free(&grid);
}

static void test_exit_gravity(void)
{
    const double side[3] = {8, 8, 8}, down[3] = {0, 0, -1}, right[3] = {2, 0, 0};
    const int walls[3] = {0, 0, 0};
    const int mid[3] = {1, 1, 1};
    cells grid = {0};
    setup(&grid, 3, side, walls, 2.0, 1000);
    int face = -7;
    /* z = -1.5 + s - s^2/2 peaks at -1: falls back to -2 at s = 1 + sqrt 2. */
    CHECK_NEAR(exit_of(&grid, mid, -1, -1, -1.5, 0, 0, 1, down, &face), 1 + sqrt(2.0), 1e-14);
    CHECK_EQ_INT(face, 4);
    /* z = -1.5 + 2 s - s^2/2 reaches 0 at s = 1. */
    CHECK_NEAR(exit_of(&grid, mid, -1, -1, -1.5, 0, 0, 2, down, &face), 1.0, 1e-14);
    CHECK_EQ_INT(face, 5);
    /* x = -1.5 - s + s^2 never reaches -2; reaches 0 at s = (1 + sqrt 7) / 2. */
    CHECK_NEAR(exit_of(&grid, mid, -1.5, -1, -1, -1, 0, 0, right, &face),
               (1 + sqrt(7.0)) / 2, 1e-14);
    CHECK_EQ_INT(face, 1);
    cells_free(&grid);
}

/* Outer faces: no exit through walls, exits through periodic faces. */
static void test_exit_outer_faces(void)
{
    const double side[3] = {8, 8, 8}, none[3] = {0, 0, 0}, down[3] = {0, 0, -1};
    const int walls[3] = {0, 0, 0}, px[3] = {1, 0, 0};
    const int corner[3] = {0, 0, 0}, edge_x[3] = {0, 1, 1}, top_x[3] = {3, 1, 1};
    const int floor_z[3] = {1, 1, 0};
    cells grid = {0};
    int face = -7;
    setup(&grid, 3, side, walls, 2.0, 1000);
    CHECK(exit_of(&grid, corner, -3, -3, -3, -1, -1, -1, none, &face) == INFINITY);
    CHECK(exit_of(&grid, edge_x, -3, -1, -1, -1, 0, 0, none, &face) == INFINITY);
    CHECK_NEAR(exit_of(&grid, edge_x, -3, -1, -1, -1, 0.1, 0, none, &face), 10.0, 1e-13);
    CHECK_EQ_INT(face, 3);
    CHECK(exit_of(&grid, top_x, 3, -1, -1, 5, 0, 0, none, &face) == INFINITY);
    CHECK(exit_of(&grid, floor_z, -1, -1, -3, 0, 0, 0, down, &face) == INFINITY);
    cells_free(&grid);
    setup(&grid, 3, side, px, 2.0, 1000);
    CHECK_NEAR(exit_of(&grid, edge_x, -3, -1, -1, -2, 0, 0, none, &face), 0.5, 1e-15);
    CHECK_EQ_INT(face, 0);
    CHECK_NEAR(exit_of(&grid, top_x, 3, -1, -1, 4, 0, 0, none, &face), 0.25, 1e-15);
    CHECK_EQ_INT(face, 1);
    cells_free(&grid);
    const double flat[3] = {8, 8, 1};
    setup(&grid, 2, flat, px, 2.0, 1000);
    const int flat_cell[3] = {1, 1, 0};
    CHECK(exit_of(&grid, flat_cell, -1, -1, 0, 0, 0, 1, none, &face) == INFINITY);
    cells_free(&grid);
}

/* cells_exit_time_free against cells_exit_time with no field: the same
 * bits and the same face for random bodies in every cell, periodic or
 * walled, in 2D and 3D, with velocities that are sometimes zero on an axis
 * and positions sometimes past a face by round-off, and ties between axes. */
static void test_exit_free_matches_general(void)
{
    const double side[3] = {8, 6, 10}, none[3] = {0, 0, 0};
    carom_rng rng = carom_rng_seed(77);
    int differ = 0, tries = 0;
    for (int layout = 0; layout < 16; layout++) {
        const int periodic[3] = {layout & 1, (layout >> 1) & 1, (layout >> 2) & 1};
        int dim = layout & 8 ? 2 : 3;
        cells grid = {0};
        setup(&grid, dim, side, periodic, 1.9, 1000);
        for (int32_t cell = 0; cell < grid.total; cell++) {
            double lo[3], hi[3];
            cells_bounds(&grid, cell, lo, hi);
            for (int k = 0; k < 40; k++, tries++) {
                double x[3], v[3];
                for (int a = 0; a < 3; a++) {
                    double u = carom_rng_uniform(&rng);
                    x[a] = k % 5 == 0 ? (u < 0.5 ? lo[a] : hi[a]) * (1.0 + 1e-16 * (u - 0.5)) : lo[a] + u * (hi[a] - lo[a]);
                    v[a] = k % 7 == a ? 0.0 : carom_rng_normal(&rng);
                    if (k % 11 == 0) x[a] = lo[a] + 1.0, v[a] = k % 2 ? 1.0 : -1.0; /* ties on every axis */
                    if (a == 2 && dim == 2) x[a] = 0.0, v[a] = 0.0;
                }
                int face_general = -7, face_free = -7;
                double general = cells_exit_time(&grid, cell, x, v, none, &face_general);
                double free = cells_exit_time_free(&grid, cell, x, v, &face_free);
                differ += memcmp(&general, &free, sizeof general) != 0 || face_general != face_free;
            }
        }
        cells_free(&grid);
    }
    CHECK_MSG(differ == 0, "%d of %d exit times or faces differ", differ, tries);
}

/* ---- crossing ---- */

static void expect_cross(cells *grid, int face, int wrap, int k0, int k1, int k2)
{
    int32_t from = grid->cell[0];
    CHECK_EQ_INT(cells_cross(grid, 0, face), wrap);
    int32_t to = cell_at(grid, k0, k1, k2);
    CHECK_EQ_INT(grid->cell[0], to);
    CHECK_EQ_INT(grid->head[to], 0);
    CHECK_EQ_INT(grid->next[0], -1);
    if (from != to) CHECK_EQ_INT(grid->head[from], -1);
}

static void test_cross(void)
{
    const double side[3] = {8, 8, 8};
    const int periodic[3] = {1, 1, 0};
    cells grid = {0};
    CHECK_EQ_INT(cells_reserve(&grid, 4), 0);
    setup(&grid, 3, side, periodic, 2.0, 1000);
    cells_insert(&grid, 0, cell_at(&grid, 3, 1, 1));
    expect_cross(&grid, 1, -1, 0, 1, 1); /* up through the top of x: wraps */
    expect_cross(&grid, 0, +1, 3, 1, 1); /* down through the bottom of x */
    expect_cross(&grid, 3, 0, 3, 2, 1);
    expect_cross(&grid, 3, 0, 3, 3, 1);
    expect_cross(&grid, 3, -1, 3, 0, 1);
    expect_cross(&grid, 2, +1, 3, 3, 1);
    expect_cross(&grid, 5, 0, 3, 3, 2);
    expect_cross(&grid, 4, 0, 3, 3, 1);
    expect_cross(&grid, 0, 0, 2, 3, 1);
    cells_free(&grid);
}

/* ---- a body followed along its path through many crossings ---- */

typedef struct flight {
    double x[3], v[3], g[3];
    const int *coords; /* from map_coords */
    int mismatches, bad_steps;
} flight;

static void advance(flight *f, double s)
{
    for (int a = 0; a < 3; a++) {
        f->x[a] += f->v[a] * s + 0.5 * f->g[a] * s * s;
        f->v[a] += f->g[a] * s;
    }
}

/* One crossing; checks the time, the wrap and the new cell. */
static void follow_step(cells *grid, flight *f)
{
    int face = -1;
    double s = cells_exit_time(grid, grid->cell[0], f->x, f->v, f->g, &face);
    if (!(s >= 0.0 && s < INFINITY && face >= 0 && face < 6)) {
        f->bad_steps++;
        return;
    }
    int a = face / 2, up = face % 2, k = f->coords[3 * grid->cell[0] + a];
    advance(f, s);
    int wrap = cells_cross(grid, 0, face);
    int expected_wrap = up && k == grid->n[a] - 1 ? -1 : !up && k == 0 ? 1 : 0;
    f->bad_steps += wrap != expected_wrap;
    f->x[a] += wrap * grid->side[a];
    int k_new = f->coords[3 * grid->cell[0] + a];
    f->bad_steps += k_new != (k + (up ? 1 : -1) + grid->n[a]) % grid->n[a];
    double speed = sqrt(f->v[0] * f->v[0] + f->v[1] * f->v[1] + f->v[2] * f->v[2]);
    double h = 1e-9 * grid->width[0] / speed, nudged[3];
    for (int b = 0; b < 3; b++) nudged[b] = f->x[b] + f->v[b] * h;
    f->mismatches += cells_locate(grid, nudged) != grid->cell[0];
}

static void follow(int dim, const double side[3], double min_width, const double g[3],
                   int steps)
{
    const int wrap[3] = {1, 1, 1};
    cells grid = {0};
    CHECK_EQ_INT(cells_reserve(&grid, 1), 0);
    setup(&grid, dim, side, wrap, min_width, 100000);
    int *coords = map_coords(&grid);
    for (int trial = 0; trial < 20; trial++) {
        flight f = {{0}, {0}, {0}, coords, 0, 0};
        for (int a = 0; a < dim; a++) {
            f.x[a] = uniform(-grid.half[a], grid.half[a]);
            f.v[a] = uniform(-1, 1);
            f.g[a] = g[a];
        }
        cells_remove(&grid, 0);
        cells_insert(&grid, 0, cells_locate(&grid, f.x));
        for (int i = 0; i < steps; i++) follow_step(&grid, &f);
        CHECK_MSG(f.mismatches == 0 && f.bad_steps == 0, "dim %d trial %d: %d mismatches, %d bad",
                  dim, trial, f.mismatches, f.bad_steps);
    }
    free(coords);
    cells_free(&grid);
}

static void test_follow_straight_line(void)
{
    const double side[3] = {7.3, 5.1, 6.7}, none[3] = {0, 0, 0};
    const double three[3] = {3.3, 3.0, 3.9};
    follow(3, side, 1.1, none, 3000);
    follow(3, three, 1.0, none, 3000);
    follow(2, side, 0.7, none, 3000);
}

static void test_follow_under_gravity(void)
{
    const double side[3] = {7.3, 5.1, 6.7}, g[3] = {0.01, -0.02, 0.015};
    follow(3, side, 1.1, g, 1000);
    follow(2, side, 0.7, g, 1000);
}

/* ---- configuration limits ---- */

static void check_configuration(const cells *grid, int dim, const double side[3],
                                const int periodic[3], double min_width, int64_t max_cells)
{
    int64_t cap = max_cells > 27 ? max_cells : 27, product = 1;
    for (int a = 0; a < 3; a++) {
        product *= grid->n[a];
        if (a >= dim) {
            CHECK_EQ_INT(grid->n[a], 1);
            continue;
        }
        if (periodic[a]) CHECK(grid->n[a] >= 3);
        CHECK_NEAR(grid->width[a] * grid->n[a], side[a], 1e-12 * side[a]);
        if (side[a] >= min_width)
            CHECK_MSG(grid->width[a] >= min_width, "axis %d: width %.17g < min %.17g", a,
                      grid->width[a], min_width);
    }
    CHECK_EQ_INT(grid->total, product);
    CHECK_MSG(product <= cap, "%lld cells for a cap of %lld", (long long)product,
              (long long)max_cells);
    if (product < cap / 10) /* no coarsening was needed: as fine as allowed */
        for (int a = 0; a < dim; a++) CHECK(side[a] / (grid->n[a] + 1) < min_width);
}

static void test_configure_limits(void)
{
    const int64_t caps[] = {1, 10, 27, 64, 1000, 100000};
    for (int trial = 0; trial < 3000; trial++) {
        int dim = 2 + below(2), periodic[3];
        double side[3], min_width = uniform(0.05, 2.0);
        for (int a = 0; a < 3; a++) {
            periodic[a] = below(2);
            side[a] = uniform(periodic[a] ? 3.0 * min_width : 0.5 * min_width, 60.0);
        }
        int64_t max_cells = caps[below(6)];
        cells grid = {0};
        setup(&grid, dim, side, periodic, min_width, max_cells);
        check_configuration(&grid, dim, side, periodic, min_width, max_cells);
        cells_free(&grid);
    }
}

/* The header promises cells at least min_width wide. With side 1.7 and
 * min_width 0.1 (a box of 17 diameters 0.1), floor(1.7 / 0.1) = 17 but
 * 1.7 / 17 rounds to 0.09999999999999999 < 0.1. */
static void test_configure_width_rounding(void)
{
    const double side[3] = {1.7, 1.7, 3.4};
    const int walls[3] = {0, 0, 0}, wrap[3] = {1, 1, 1};
    for (int p = 0; p < 2; p++) {
        cells grid = {0};
        setup(&grid, 3, side, p ? wrap : walls, 0.1, 100000);
        for (int a = 0; a < 3; a++)
            CHECK_MSG(grid.width[a] >= 0.1, "axis %d: %d cells of width %.17g", a,
                      (int)grid.n[a], grid.width[a]);
        cells_free(&grid);
    }
}

int main(void)
{
    RUN(test_locate_edges);
    RUN(test_locate_bijection_and_near_boundaries);
    RUN(test_locate_2d);
    RUN(test_stencil_walls);
    RUN(test_stencil_periodic_three);
    RUN(test_stencil_mixed);
    RUN(test_linked_lists);
    RUN(test_exit_straight);
    RUN(test_exit_gravity);
    RUN(test_exit_outer_faces);
    RUN(test_exit_free_matches_general);
    RUN(test_cross);
    RUN(test_follow_straight_line);
    RUN(test_follow_under_gravity);
    RUN(test_configure_limits);
    RUN(test_configure_width_rounding);
    return CHECK_SUMMARY();
}
