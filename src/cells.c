/* cells.c — a uniform grid of cells at least one largest diameter wide, so
 * that any two bodies that can touch before one of them leaves its cell sit
 * in neighbouring cells (the 3^d stencil). Bodies are kept in singly linked
 * lists per cell (a few bodies each), so moving one walks one list. Crossing
 * a cell face is an event of its own; it keeps every prediction local, so the
 * work per event does not grow with N (Rapaport, "The Art of Molecular
 * Dynamics Simulation", ch. 14; Alder & Wainwright 1959).
 *
 * Periodic images: with only three cells on an axis, two bodies in adjacent
 * cells can be more than half a box apart, where the minimum-image rule picks
 * the wrong image. The stencil therefore hands out, with each neighbouring
 * cell, the exact shift of its image, taken from the offset that reached it.
 * A cell's stencil depends only on whether it is first, inner or last (or
 * alone) along each axis, so the 64 possible stencils are built once per grid
 * and each cell keeps a byte naming its own.
 */
#include "cells.h"

#include <assert.h>
#include <math.h>

#include "choose.h"
#include "memory.h"
#include "predict.h"

/* As many cells as fit at least min_width wide (the division can round up,
 * so the count is checked against the width it gives). Periodic axes get at
 * least three; the caller makes sure side / 3 is wide enough for them. */
static int32_t cells_per_axis(double side, double min_width, int periodic)
{
    double f = floor(side / min_width);
    int32_t n = f < 1.0 ? 1 : f > (1 << 20) ? 1 << 20 : (int32_t)f;
    int32_t least = periodic ? 3 : 1;
    while (n > least && side / n < min_width) n--;
    return n < least ? least : n;
}

/* Coarsens n until there are at most max_cells cells, keeping at least
 * three cells on periodic axes. */
static void limit_cells(int32_t n[3], const int periodic[3], int dim, int64_t max_cells)
{
    for (;;) {
        int64_t total = (int64_t)n[0] * n[1] * n[2];
        if (total <= max_cells) return;
        int widest = -1;
        for (int a = 0; a < dim; a++) {
            int32_t least = periodic[a] ? 3 : 1;
            if (n[a] > least && (widest < 0 || n[a] > n[widest])) widest = a;
        }
        if (widest < 0) return;
        int32_t least = periodic[widest] ? 3 : 1;
        int32_t shrunk = (int32_t)(n[widest] * 0.8);
        n[widest] = shrunk < least ? least : shrunk;
    }
}

int cells_configure(cells *grid, int dim, const double side[3], const int periodic[3],
                    double min_width, int64_t max_cells)
{
    int32_t n[3];
    int active_periodic[3];
    for (int a = 0; a < 3; a++) {
        active_periodic[a] = a < dim ? periodic[a] : 0;
        n[a] = a < dim ? cells_per_axis(side[a], min_width, active_periodic[a]) : 1;
    }
    if (max_cells > INT32_MAX / 2) max_cells = INT32_MAX / 2;
    limit_cells(n, active_periodic, dim, max_cells < 27 ? 27 : max_cells);
    return cells_shape(grid, dim, side, periodic, n);
}

enum { CLASS_ALONE = 0, CLASS_FIRST = 1, CLASS_INNER = 2, CLASS_LAST = 3 };

static int axis_class(const cells *grid, int a, int32_t k)
{
    if (grid->n[a] == 1) return CLASS_ALONE;
    return k == 0 ? CLASS_FIRST : k == grid->n[a] - 1 ? CLASS_LAST : CLASS_INNER;
}

/* The steps from a cell of class cls to its neighbours along axis a, in
 * cells, and the image (-1, 0, +1 box sides) each is seen through: a step
 * past the first or last cell wraps on a periodic axis and is dropped
 * otherwise. Returns how many. */
static int axis_steps(const cells *grid, int a, int cls, int32_t step[3], int image[3], int dir[3])
{
    int count = 0;
    for (int d = -1; d <= 1; d++) {
        int32_t s = d;
        int wrap = 0;
        if (d != 0 && cls == CLASS_ALONE) continue;
        if ((d < 0 && cls == CLASS_FIRST) || (d > 0 && cls == CLASS_LAST)) {
            if (!grid->periodic[a]) continue;
            wrap = d;
            s = -d * (grid->n[a] - 1);
        }
        step[count] = s;
        image[count] = wrap;
        dir[count] = d;
        count++;
    }
    return count;
}

/* Every class combination's stencil, z outermost and x innermost. */
static void set_patterns(cells *grid)
{
    for (int p = 0; p < CELLS_PATTERNS; p++) {
        int32_t step[3][3];
        int image[3][3], dir[3][3], count[3];
        for (int a = 0; a < 3; a++)
            count[a] = axis_steps(grid, a, (p >> (2 * a)) & 3, step[a], image[a], dir[a]);
        cells_pattern *pattern = &grid->pattern[p];
        pattern->count = 0;
        pattern->shifted = 0;
        for (int i2 = 0; i2 < count[2]; i2++)
            for (int i1 = 0; i1 < count[1]; i1++)
                for (int i0 = 0; i0 < count[0]; i0++) {
                    int m = pattern->count++;
                    pattern->offset[m] = step[0][i0] + grid->n[0] * (step[1][i1] + grid->n[1] * step[2][i2]);
                    pattern->image[m] = (uint8_t)((image[0][i0] + 1) + 3 * (image[1][i1] + 1) + 9 * (image[2][i2] + 1));
                    pattern->dir[m][0] = (int8_t)dir[0][i0];
                    pattern->dir[m][1] = (int8_t)dir[1][i1];
                    pattern->dir[m][2] = (int8_t)dir[2][i2];
                    pattern->shifted |= pattern->image[m] != CELLS_NO_IMAGE;
                }
    }
    for (int code = 0; code < 27; code++) {
        for (int a = 0, c = code; a < 3; a++, c /= 3)
            grid->image_shift4[code][a] = grid->image_shift[code][a] = (c % 3 - 1) * grid->side[a];
        grid->image_shift4[code][3] = 0.0;
    }
}

/* The pattern of the cell at k: its class on each axis. */
static int pattern_index(const cells *grid, const int32_t k[3])
{
    return axis_class(grid, 0, k[0]) | axis_class(grid, 1, k[1]) << 2 | axis_class(grid, 2, k[2]) << 4;
}

/* Files every cell under its pattern. */
static void set_pattern_of(cells *grid)
{
    int32_t c = 0;
    for (int32_t k2 = 0; k2 < grid->n[2]; k2++)
        for (int32_t k1 = 0; k1 < grid->n[1]; k1++)
            for (int32_t k0 = 0; k0 < grid->n[0]; k0++)
                grid->pattern_of[c++] = (uint8_t)pattern_index(grid, (const int32_t[3]){k0, k1, k2});
}

/* The new arrays are allocated before anything is changed, so a grid that
 * cannot get them stays as it was (issue 11: out of memory must not leave
 * n and width updated over the old arrays). */
int cells_shape(cells *grid, int dim, const double side[3], const int periodic[3], const int32_t n[3])
{
    int64_t cells_wanted = (int64_t)n[0] * n[1] * n[2];
    if (cells_wanted < 1 || cells_wanted > INT32_MAX) return -1;
    int32_t total = (int32_t)cells_wanted;
    int32_t *head = memory_alloc(grid->mem, (size_t)total * sizeof *head);
    uint8_t *pattern_of = memory_alloc(grid->mem, (size_t)total);
    if (!head || !pattern_of) {
        memory_free(grid->mem, head, (size_t)total * sizeof *head);
        memory_free(grid->mem, pattern_of, (size_t)total);
        return -1;
    }
    memory_free(grid->mem, grid->head, (size_t)grid->total * sizeof *grid->head);
    memory_free(grid->mem, grid->pattern_of, (size_t)grid->total);
    grid->head = head;
    grid->pattern_of = pattern_of;
    grid->total = total;
    for (int a = 0; a < 3; a++) {
        grid->side[a] = side[a];
        grid->half[a] = 0.5 * side[a];
        grid->periodic[a] = a < dim ? periodic[a] : 0;
        grid->n[a] = n[a];
        grid->width[a] = side[a] / n[a];
    }
    cells_empty(grid);
    set_patterns(grid);
    set_pattern_of(grid);
    return 0;
}

int cells_reserve(cells *grid, int32_t bodies)
{
    if (bodies <= grid->capacity) return 0;
    size_t old_bytes = (size_t)grid->capacity * sizeof(int32_t);
    size_t new_bytes = memory_bytes((size_t)bodies, sizeof(int32_t));
    int keeps = !grid->keeps_no_cells;
    memory_array arrays[2] = {{(void **)&grid->next, old_bytes, new_bytes, 0},
                              {(void **)&grid->cell, old_bytes, new_bytes, 0}};
    if (memory_grow_together(grid->mem, arrays, keeps ? 2 : 1) != 0) return -1;
    for (int32_t b = grid->capacity; keeps && b < bodies; b++) grid->cell[b] = -1;
    grid->capacity = bodies;
    return 0;
}

int cells_keep_cells(cells *grid, int keep)
{
    size_t bytes = (size_t)grid->capacity * sizeof(int32_t);
    if (!keep) {
        memory_free(grid->mem, grid->cell, bytes);
        grid->cell = NULL;
        grid->keeps_no_cells = 1;
        return 0;
    }
    if (!grid->keeps_no_cells) return 0;
    int32_t *cell = grid->capacity > 0 ? memory_alloc(grid->mem, bytes) : NULL;
    if (grid->capacity > 0 && !cell) return -1;
    for (int32_t b = 0; b < grid->capacity; b++) cell[b] = -1;
    grid->cell = cell;
    grid->keeps_no_cells = 0;
    return 0;
}

void cells_free(cells *grid)
{
    const carom_allocator *mem = grid->mem;
    size_t per_body = (size_t)grid->capacity * sizeof(int32_t);
    memory_free(mem, grid->head, (size_t)grid->total * sizeof *grid->head);
    memory_free(mem, grid->pattern_of, (size_t)grid->total);
    memory_free(mem, grid->next, per_body);
    memory_free(mem, grid->cell, per_body);
    *grid = (cells){0};
    grid->mem = mem;
}

void cells_empty(cells *grid)
{
    for (int32_t c = 0; c < grid->total; c++) grid->head[c] = -1;
    for (int32_t b = 0; grid->cell && b < grid->capacity; b++) grid->cell[b] = -1;
}

static int32_t cell_index(const cells *grid, const int32_t k[3])
{
    return k[0] + grid->n[0] * (k[1] + grid->n[1] * k[2]);
}

static void cell_coords(const cells *grid, int32_t cell, int32_t k[3])
{
    k[0] = cell % grid->n[0];
    k[1] = (cell / grid->n[0]) % grid->n[1];
    k[2] = cell / (grid->n[0] * grid->n[1]);
}

static void locate(const cells *grid, const double x[3], int32_t k[3])
{
    for (int a = 0; a < 3; a++) {
        double f = floor((x[a] + grid->half[a]) / grid->width[a]);
        k[a] = f < 0.0 ? 0 : f >= grid->n[a] ? grid->n[a] - 1 : (int32_t)f;
    }
}

int32_t cells_locate(const cells *grid, const double x[3])
{
    int32_t k[3];
    locate(grid, x, k);
    return cell_index(grid, k);
}

int32_t cells_locate_pattern(const cells *grid, const double x[3], const cells_pattern **pattern)
{
    int32_t k[3];
    locate(grid, x, k);
    *pattern = &grid->pattern[pattern_index(grid, k)];
    return cell_index(grid, k);
}

void cells_insert(cells *grid, int32_t body, int32_t cell)
{
    assert(cell >= 0 && cell < grid->total && (!grid->cell || grid->cell[body] < 0));
    grid->next[body] = grid->head[cell];
    grid->head[cell] = body;
    if (grid->cell) grid->cell[body] = cell;
}

void cells_remove_from(cells *grid, int32_t body, int32_t cell)
{
    assert(cell >= 0 && cell < grid->total && (!grid->cell || grid->cell[body] == cell));
    int32_t *link = &grid->head[cell];
    while (*link != body && *link >= 0) link = &grid->next[*link];
    assert(*link == body); /* the body is in the cell's list */
    if (*link != body) return;
    *link = grid->next[body];
    if (grid->cell) grid->cell[body] = -1;
}

void cells_remove(cells *grid, int32_t body)
{
    assert(grid->cell);
    if (grid->cell[body] >= 0) cells_remove_from(grid, body, grid->cell[body]);
}

int cells_stencil(const cells *grid, int32_t cell, cells_neighbour out[CELLS_STENCIL_MAX])
{
    const cells_pattern *pattern = cells_pattern_at(grid, cell);
    for (int m = 0; m < pattern->count && m < CELLS_STENCIL_MAX; m++) {
        const double *shift = grid->image_shift[pattern->image[m]];
        out[m] = (cells_neighbour){cell + pattern->offset[m], {shift[0], shift[1], shift[2]}};
    }
    return pattern->count;
}

void cells_bounds(const cells *grid, int32_t cell, double lo[3], double hi[3])
{
    int32_t k[3];
    cell_coords(grid, cell, k);
    for (int a = 0; a < 3; a++) {
        lo[a] = -grid->half[a] + k[a] * grid->width[a];
        hi[a] = -grid->half[a] + (k[a] + 1) * grid->width[a];
    }
}

double cells_exit_time(const cells *grid, int32_t cell, const double x[3], const double v[3],
                       const double g[3], int *face)
{
    double lo[3], hi[3], best = INFINITY;
    cells_bounds(grid, cell, lo, hi);
    *face = -1;
    for (int a = 0; a < 3; a++) {
        int cls = (grid->pattern_of[cell] >> (2 * a)) & 3;
        if (cls == CLASS_ALONE) continue;
        if (grid->periodic[a] || cls != CLASS_LAST) {
            double s = predict_crossing(x[a] - hi[a], v[a], g[a]);
            if (s < best) best = s, *face = 2 * a + 1;
        }
        if (grid->periodic[a] || cls != CLASS_FIRST) {
            double s = predict_crossing(lo[a] - x[a], -v[a], -g[a]);
            if (s < best) best = s, *face = 2 * a;
        }
    }
    return best;
}

/* The same without a field, each axis by the one face its velocity points
 * to: predict_crossing(c, u, 0) with u = |v| is -2 min(c, 0) / (u + sqrt(u u)),
 * and (-v)(-v) = v v, so each time has the bits cells_exit_time finds, with
 * half the square roots and selections in place of branches on the
 * velocity's sign, which is a coin flip. */
double cells_exit_time_free(const cells *grid, int32_t cell, const double x[3], const double v[3], int *face)
{
    double lo[3], hi[3], best = INFINITY;
    cells_bounds(grid, cell, lo, hi);
    int best_face = -1;
    for (int a = 0; a < 3; a++) {
        int cls = (grid->pattern_of[cell] >> (2 * a)) & 3, up = v[a] > 0.0;
        int open = (cls != CLASS_ALONE) & (grid->periodic[a] | (cls != (up ? CLASS_LAST : CLASS_FIRST)));
        double speed = fabs(v[a]); /* up ? v : -v, wherever it is used (speed > 0) */
        double c = choose(up, x[a] - hi[a], lo[a] - x[a]);
        /* computed whether or not it is taken (a still body's 0 / 0 is
         * discarded), so that choosing needs no branch */
        double crossing = -2.0 * choose(c > 0.0, 0.0, c) / (speed + sqrt(v[a] * v[a]));
        double s = choose(open & (speed > 0.0), crossing, INFINITY);
        int earlier = s < best;
        best = choose(earlier, s, best);
        best_face = earlier ? 2 * a + up : best_face;
    }
    *face = best_face;
    return best;
}

int cells_cross(cells *grid, int32_t body, int face)
{
    int a = face / 2, up = face % 2;
    int32_t k[3];
    cell_coords(grid, grid->cell[body], k);
    assert(grid->periodic[a] || (up ? k[a] < grid->n[a] - 1 : k[a] > 0));
    int wrap = 0;
    k[a] += up ? 1 : -1;
    if (k[a] >= grid->n[a]) k[a] = 0, wrap = -1;
    if (k[a] < 0) k[a] = grid->n[a] - 1, wrap = 1;
    cells_remove(grid, body);
    cells_insert(grid, body, cell_index(grid, k));
    return wrap;
}
