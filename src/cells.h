/* cells.h — the cell grid: binning, neighbour stencil with periodic images,
 * and the time a body leaves its cell. */
#ifndef CAROM_CELLS_H
#define CAROM_CELLS_H

#include <stdint.h>

#include "carom.h"

/* The stencil shared by every cell of one class (interior, or against given
 * box faces): the neighbours of cell c are c + offset[m], whose bodies are
 * seen through the periodic image image[m] (an index into image_shift). */
typedef struct cells_pattern {
    int count;
    int32_t offset[27];
    uint8_t image[27];
    int8_t dir[27][3]; /* which way each neighbour lies: -1, 0 or +1 cell per axis */
    int shifted;       /* some neighbour is seen through a periodic image (image[m] != CELLS_NO_IMAGE) */
} cells_pattern;

/* The image of no shift: (0 + 1) + 3 (0 + 1) + 9 (0 + 1). */
enum { CELLS_NO_IMAGE = 13 };

/* Four classes per axis (alone on it, first, inner, last): 4^3 patterns. */
enum { CELLS_PATTERNS = 64 };

typedef struct cells {
    int32_t n[3];      /* cells per axis (1 on an unused axis) */
    double width[3];   /* cell side per axis */
    double half[3];    /* box half sides */
    double side[3];    /* box sides */
    int periodic[3];   /* axis wraps */
    int32_t total;     /* n[0] n[1] n[2] */
    int32_t *head;     /* head[cell]: first body in the cell, -1 if empty */
    /* Singly linked: removing a body walks its cell's list (a few bodies;
     * back links would cost 4 bytes a body, and a cache line as well). */
    int32_t *next;     /* per body: next body in its cell, -1 at the end */
    /* Per body: its cell, -1 if not in the grid; NULL in a grid that keeps
     * no record of it (cells_keep_cells), whose owner finds a body's cell
     * otherwise (the world's, with neighbour lists on: its anchor's). */
    int32_t *cell;
    int keeps_no_cells; /* cell is NULL by choice (cells_keep_cells) */
    int32_t capacity;  /* bodies that fit in next (and cell) */
    uint8_t *pattern_of;         /* per cell: its pattern */
    cells_pattern pattern[CELLS_PATTERNS];
    double image_shift[27][3];   /* image (s0 + 1) + 3 (s1 + 1) + 9 (s2 + 1) -> s_a box sides */
    double image_shift4[27][4];  /* the same, each padded with a zero (screen.c reads four at a time) */
    const carom_allocator *mem;  /* NULL: the C library */
} cells;

/* One neighbouring cell of a stencil and the shift (a multiple of the box
 * sides) to add to the positions of its bodies to get the nearby image. */
typedef struct cells_neighbour {
    int32_t cell;
    double shift[3];
} cells_neighbour;

enum { CELLS_STENCIL_MAX = 27 };

/* Sets up the geometry: dim active axes, box sides and periodicity; cells at
 * least min_width wide, at most about max_cells in all (cells larger than
 * needed are always correct). Periodic axes always get at least three cells,
 * so side / 3 must be at least min_width there (the caller checks). Empties
 * the grid. Returns 0, or -1 if out of memory (the grid is then unchanged). */
int cells_configure(cells *grid, int dim, const double side[3], const int periodic[3],
                    double min_width, int64_t max_cells);
/* Sets up a grid of exactly n[a] cells per axis (as cells_configure chose
 * them earlier: used to restore a snapshot). Empties the grid. */
int cells_shape(cells *grid, int dim, const double side[3], const int periodic[3], const int32_t n[3]);
/* Room for bodies in the per-body lists. 0, or -1 if out of memory (then unchanged). */
int cells_reserve(cells *grid, int32_t bodies);
/* keep 1: a record of each body's cell from now on (every record -1: the
 * caller refiles the bodies or writes them); 0: none (4 bytes a body freed).
 * 0, or -1 if out of memory (then unchanged). A new grid keeps them. */
int cells_keep_cells(cells *grid, int keep);
/* Frees the arrays; the grid keeps its allocator and can be used again. */
void cells_free(cells *grid);

/* Takes every body out of the grid. */
void cells_empty(cells *grid);

/* The cell that contains position x (clamped into the grid). */
int32_t cells_locate(const cells *grid, const double x[3]);
/* The same, and the cell's stencil (cells_pattern_at's), found from the
 * cell's place on each axis rather than read from the per-cell table: where
 * a body has just moved, at 10^6 bodies, that table's line is a cache miss. */
int32_t cells_locate_pattern(const cells *grid, const double x[3], const cells_pattern **pattern);
void cells_insert(cells *grid, int32_t body, int32_t cell);
/* Takes body out of its cell (the grid must keep cells). */
void cells_remove(cells *grid, int32_t body);
/* Takes body out of cell, where it is filed (any grid). */
void cells_remove_from(cells *grid, int32_t body, int32_t cell);

/* The lower and upper corners of cell. */
void cells_bounds(const cells *grid, int32_t cell, double lo[3], double hi[3]);

/* The cells around (and including) cell, each once, with image shifts.
 * Returns how many were written to out (cells_pattern_at gives the same
 * without copying). */
int cells_stencil(const cells *grid, int32_t cell, cells_neighbour out[CELLS_STENCIL_MAX]);

/* The stencil of cell, without building it: one table lookup. */
static inline const cells_pattern *cells_pattern_at(const cells *grid, int32_t cell)
{
    return &grid->pattern[grid->pattern_of[cell]];
}

/* The stencil of a cell away from every face of the box (of the cell one
 * step in from the first corner on each axis, whose index stays in cache):
 * a guess at any cell's, for prefetching. */
static inline const cells_pattern *cells_pattern_inside(const cells *grid)
{
    int32_t k[3];
    for (int a = 0; a < 3; a++) k[a] = grid->n[a] > 1 ? 1 : 0;
    return cells_pattern_at(grid, k[0] + grid->n[0] * (k[1] + grid->n[1] * k[2]));
}

/* cells_first_bodies over count cells; inlined where count is a constant,
 * so that its loop is unrolled whole. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint32_t cells_first_bodies_of(const int32_t *head, const cells_pattern *pattern, int32_t first[27],
                                             const int count)
{
    uint32_t occupied = 0;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 27
#endif
    for (int k = 0; k < count; k++) {
        first[k] = head[pattern->offset[k]];
        occupied |= (uint32_t)(first[k] >= 0) << k;
    }
    return occupied;
}

/* The first body of each cell of the pattern around cell (-1: empty) into
 * first[], and the cells that hold one as a bit mask (bit k: pattern cell
 * k), for a walk by the mask's lowest bit: at packing 0.3 a cell holds one
 * body or none about as often, and a branch on each was mispredicted every
 * other cell. A periodic stencil's 27 cells (9 in a plane) are read by a
 * loop of constant length, which is never mispredicted at its end. */
static inline uint32_t cells_first_bodies(const cells *grid, int32_t cell, const cells_pattern *pattern,
                                          int32_t first[27])
{
    const int32_t *head = grid->head + cell;
    if (pattern->count == 27) return cells_first_bodies_of(head, pattern, first, 27);
    if (pattern->count == 9) return cells_first_bodies_of(head, pattern, first, 9);
    return cells_first_bodies_of(head, pattern, first, pattern->count);
}

/* Earliest time s >= 0 at which a body at x with velocity v and acceleration
 * g (all relative to its own time stamp) leaves cell through a face that has a
 * cell behind it. Writes the face as 2 * axis + (1 if upwards). INFINITY if
 * it never leaves. */
double cells_exit_time(const cells *grid, int32_t cell, const double x[3], const double v[3],
                       const double g[3], int *face);
/* cells_exit_time without a field (g = 0), the same bits. */
double cells_exit_time_free(const cells *grid, int32_t cell, const double x[3], const double v[3], int *face);

/* Moves a body to the neighbour across face. Returns the shift (-1, 0 or +1
 * box sides along the face's axis) to add to its position when it wraps. */
int cells_cross(cells *grid, int32_t body, int face);

#endif
