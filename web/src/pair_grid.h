/* pair_grid.h — every pair of disks nearer than a reach, found through a
 * uniform grid (pair_grid.c). The page counts the frame stepper's overlaps
 * and its missed collisions with it. */
#ifndef PAIR_GRID_H
#define PAIR_GRID_H
#include <stdint.h>

/* Centres (x, y) of n disks in the box [-width/2, width/2] x
 * [-height/2, height/2]; positions outside are clamped to the edge cells. */
typedef struct pair_grid {
    int32_t columns, rows;
    double cell, left, bottom;
    int32_t *start;  /* columns * rows + 1: where each cell's bodies begin in order */
    int32_t *order;  /* bodies sorted by cell */
    int32_t *cell_of;
    int32_t capacity_cells, capacity_bodies;
} pair_grid;

/* Called for each pair i < j whose cells touch; returns nothing. */
typedef void (*pair_grid_visit)(void *user, int32_t i, int32_t j);

/* Sorts the n centres xy[2k], xy[2k + 1] into cells at least reach wide
 * (at most 1024 a side; wider cells if the box needs more) and calls visit
 * for every pair in the same or adjacent cells: every pair nearer than
 * reach is visited, once. Returns 0, or -1 if memory ran out (nothing
 * visited). */
int pair_grid_visit_pairs(pair_grid *grid, const double *xy, int32_t n, double width, double height, double reach,
                          pair_grid_visit visit, void *user);

void pair_grid_free(pair_grid *grid);

#endif
