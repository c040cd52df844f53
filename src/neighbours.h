/* neighbours.h — neighbour lists with a shell, for dense gravity-free worlds:
 * each body keeps the bodies that can reach it while it stays within a
 * distance `shell` of its anchor, and leaving that sphere is its event. */
#ifndef CAROM_NEIGHBOURS_H
#define CAROM_NEIGHBOURS_H

#include <stdint.h>

#include "cells.h"

typedef struct carom_world carom_world;

/* A list entry packs the neighbour's slot and its periodic image:
 * entry = slot << NEIGHBOURS_IMAGE_BITS | image, image = (s_x + 1) + 3 (s_y + 1)
 * + 9 (s_z + 1) for an image shift of s_a box sides (s_a in -1, 0, 1). The
 * same pair seen from the other body has image 26 - image. */
enum { NEIGHBOURS_IMAGE_BITS = 5, NEIGHBOURS_MAX_SLOTS = 1 << 26, NEIGHBOURS_SPILL_SHARE = 32 };

typedef struct neighbours {
    int on;            /* lists in use; otherwise cell lists with crossing events */
    double shell;      /* a body stays within this distance of its anchor (L) */
    int32_t width;     /* entries per body row */
    int32_t rows;      /* rows allocated */
    float *anchor;     /* 3 per body: where its shell is centred */
    uint16_t *count;   /* per body: entries in its row */
    int32_t *entry;    /* width per body, from a cache line: the rows (or, for count > width, where the row is) */
    /* A renewal prepared (neighbours_prepare_renew) and not yet made: the
     * body's new row waits in the spare row. */
    int32_t *spare;
    int32_t spare_room;       /* entries allocated in spare */
    int32_t prepared;         /* the body + 1, or 0 for none */
    int32_t prepared_count;   /* entries in the spare row */
    double prepared_t;        /* the time it was prepared for */
    uint64_t prepared_epoch;  /* epoch then */
    uint64_t epoch;           /* counts changes of anchors and rows, so a stale preparation is seen */
    /* Size-asymmetric mixtures: a body of radius above `split` is large. The
     * world's grid, whose cells are only 2 split + 2 shell wide, is searched
     * for the others; the large ones are also filed by anchor in a grid of
     * their own, `large`, at least 2 largest radii + 2 shells wide. With
     * bodies of one size, split is the largest radius and none is large. */
    double split;
    int uniform;              /* every radius is split: a renewal's two reach tests are one */
    int32_t large_count;
    int32_t large_room;       /* large bodies room is allocated for */
    int32_t *large_slot;      /* per large body: its slot */
    int32_t *large_of;        /* per slot (large_of_room): its index in large_slot, or -1 */
    int32_t large_of_room;
    cells large;              /* large bodies by index into large_slot */
    /* Rows longer than the width live in a pool of long rows: a large body's
     * (hundreds of entries in a mixture) and those of the few bodies with
     * more neighbours than most, so that the width, which every body pays
     * for, follows the common length rather than the longest (at most one
     * body in NEIGHBOURS_SPILL_SHARE that is not large has a long row). The
     * fixed row of a body with count > width holds the index of its long row
     * in its first entry; free long rows are linked through their first
     * entries from long_free (-1: none). */
    int32_t long_width;       /* entries per long row */
    int32_t long_rows;        /* long rows allocated */
    int32_t long_free;        /* first free long row, or -1 */
    int32_t long_free_count;  /* free long rows */
    int32_t long_used;        /* long rows in use: bodies with count > width */
    int32_t *long_entry;      /* long_width per long row */
    const carom_allocator *mem; /* NULL: the C library */
} neighbours;

/* Frees the lists; nb keeps its allocator and can be used again. */
void neighbours_free(neighbours *nb);
/* Room for lists of this many bodies. 0, or -1 if out of memory. */
int neighbours_reserve(neighbours *nb, int32_t bodies);

/* Decides whether w uses neighbour lists and with what shell (from the world
 * def, gravity, density and box); sets nb.on and nb.shell. Returns the width
 * the cell grid needs: the largest diameter, plus two shells if lists are on. */
double neighbours_choose(carom_world *w);

/* The largest radius at most twice the mean radius: bodies above it are
 * large (none with bodies of one size). */
double neighbours_split_radius(const carom_world *w);

/* Anchors every body at its position now (the clock; bodies must be brought
 * there first), files them in the grid by anchor and links every pair whose
 * anchors are close enough. 0, or -1 if out of memory. */
int neighbours_build(carom_world *w);
/* Links every pair from the anchors and grid cells already in place (after a
 * snapshot is restored). 0, or -1 if out of memory. */
int neighbours_link_all(carom_world *w);
/* Finds the new row body i will get when renewed at time t (it must not
 * have moved since its time stamp otherwise) and makes room for it and in
 * its new neighbours' rows, before anything changes. 0, or -1 if out of
 * memory (the lists are then unchanged, only perhaps wider). */
int neighbours_prepare_renew(carom_world *w, int32_t i, double t);
/* Body i, brought to the clock at the edge of its shell, gets a new anchor
 * where it is and a new row; its old neighbours forget it and the new ones
 * learn it. Prepared by neighbours_prepare_renew for this time it cannot
 * fail; otherwise it prepares first: 0, or -1 if out of memory (the lists
 * then unchanged). */
int neighbours_renew(carom_world *w, int32_t i);

/* Time after body i's time stamp at which it leaves its shell (INFINITY at
 * rest), flying straight; under an acceleration (driven bodies), a time no
 * later than that. */
double neighbours_exit_time(const carom_world *w, int32_t i);
double neighbours_exit_time_accelerated(const carom_world *w, int32_t i);

/* The neighbour slot and image shift of an entry. */
static inline int32_t neighbours_slot(int32_t entry) { return entry >> NEIGHBOURS_IMAGE_BITS; }
static inline const double *neighbours_shift(const cells *grid, int32_t entry)
{
    return grid->image_shift[entry & ((1 << NEIGHBOURS_IMAGE_BITS) - 1)];
}

/* The fixed row of body i: its entries, or the index of its long row. */
static inline const int32_t *neighbours_fixed_row(const neighbours *nb, int32_t i)
{
    return nb->entry + (int64_t)i * nb->width;
}

/* Row of body i (count[i] entries): a long one when they are more than the width. */
static inline const int32_t *neighbours_row(const neighbours *nb, int32_t i)
{
    const int32_t *fixed = neighbours_fixed_row(nb, i);
    return nb->count[i] > nb->width ? nb->long_entry + (int64_t)fixed[0] * nb->long_width : fixed;
}

/* For order.c: body moves between slots. Copies the anchor, count and row of
 * slot src to slot dst (or to/from the scratch record, of width entries); a
 * long row stays where it is, found from the fixed row, which moves. */
typedef struct neighbours_record {
    float anchor[3];
    uint16_t count;
    int32_t *row; /* width entries of scratch */
} neighbours_record;
void neighbours_save(const neighbours *nb, int32_t src, neighbours_record *r);
void neighbours_load(neighbours *nb, int32_t dst, const neighbours_record *r);
void neighbours_copy(neighbours *nb, int32_t dst, int32_t src);
/* Renames every entry's slot s to to[s], for bodies 0 .. count-1, and the
 * large bodies' slots (their grid goes by large index and stays). */
void neighbours_relabel(neighbours *nb, int32_t count, const int32_t *to);

#endif
