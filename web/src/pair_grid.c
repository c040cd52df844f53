/* pair_grid.c — pairs of nearby disks by a uniform grid (pair_grid.h).
 *
 * A counting sort puts the bodies in cell order; each cell then meets
 * itself and four of its eight neighbours (right, and the three above), so
 * every pair of touching cells is met once. The textbook cell list (Allen &
 * Tildesley, "Computer Simulation of Liquids", sec. 5.3).
 */
#include "pair_grid.h"

#include <math.h>
#include <stdlib.h>

static int32_t cells_along(double side, double reach)
{
    double count = floor(side / reach);
    return count < 1.0 ? 1 : count > 1024.0 ? 1024 : (int32_t)count;
}

static int32_t clamp_index(double u, int32_t count)
{
    if (!(u >= 0.0)) return 0;
    return u >= count ? count - 1 : (int32_t)u;
}

static int reserve(pair_grid *g, int32_t cells, int32_t n)
{
    if (cells + 1 > g->capacity_cells) {
        int32_t *start = realloc(g->start, sizeof *start * (size_t)(cells + 1));
        if (!start) return -1;
        g->start = start, g->capacity_cells = cells + 1;
    }
    if (n > g->capacity_bodies) {
        int32_t *order = realloc(g->order, sizeof *order * (size_t)n);
        if (order) g->order = order;
        int32_t *cell_of = realloc(g->cell_of, sizeof *cell_of * (size_t)n);
        if (cell_of) g->cell_of = cell_of;
        if (!order || !cell_of) return -1;
        g->capacity_bodies = n;
    }
    return 0;
}

static void sort_into_cells(pair_grid *g, const double *xy, int32_t n)
{
    int32_t cells = g->columns * g->rows;
    for (int32_t c = 0; c <= cells; c++) g->start[c] = 0;
    for (int32_t k = 0; k < n; k++) {
        int32_t cx = clamp_index((xy[2 * k] - g->left) / g->cell, g->columns);
        int32_t cy = clamp_index((xy[2 * k + 1] - g->bottom) / g->cell, g->rows);
        g->cell_of[k] = cy * g->columns + cx;
        g->start[g->cell_of[k] + 1]++;
    }
    for (int32_t c = 0; c < cells; c++) g->start[c + 1] += g->start[c];
    for (int32_t k = 0; k < n; k++) g->order[g->start[g->cell_of[k]]++] = k;
    for (int32_t c = cells; c > 0; c--) g->start[c] = g->start[c - 1];
    g->start[0] = 0;
}

static void visit_cells(const pair_grid *g, int32_t a, int32_t b, pair_grid_visit visit, void *user)
{
    for (int32_t p = g->start[a]; p < g->start[a + 1]; p++)
        for (int32_t q = a == b ? p + 1 : g->start[b]; q < g->start[b + 1]; q++) {
            int32_t i = g->order[p], j = g->order[q];
            if (i < j) visit(user, i, j);
            else visit(user, j, i);
        }
}

int pair_grid_visit_pairs(pair_grid *grid, const double *xy, int32_t n, double width, double height, double reach,
                          pair_grid_visit visit, void *user)
{
    double cell = reach > 0.0 ? reach : width;
    grid->columns = cells_along(width, cell), grid->rows = cells_along(height, cell);
    double wide = width / grid->columns, tall = height / grid->rows;
    grid->cell = wide > tall ? wide : tall;
    grid->left = -0.5 * width, grid->bottom = -0.5 * height;
    if (reserve(grid, grid->columns * grid->rows, n) != 0) return -1;
    sort_into_cells(grid, xy, n);
    static const int32_t step_x[4] = {1, -1, 0, 1}, step_y[4] = {0, 1, 1, 1};
    for (int32_t cy = 0; cy < grid->rows; cy++)
        for (int32_t cx = 0; cx < grid->columns; cx++) {
            int32_t here = cy * grid->columns + cx;
            visit_cells(grid, here, here, visit, user);
            for (int s = 0; s < 4; s++) {
                int32_t nx = cx + step_x[s], ny = cy + step_y[s];
                if (nx >= 0 && nx < grid->columns && ny < grid->rows)
                    visit_cells(grid, here, ny * grid->columns + nx, visit, user);
            }
        }
    return 0;
}

void pair_grid_free(pair_grid *grid)
{
    free(grid->start), free(grid->order), free(grid->cell_of);
    *grid = (pair_grid){0};
}
