/* order.h — keeping bodies that are near in space near in memory. */
#ifndef CAROM_ORDER_H
#define CAROM_ORDER_H

#include "world.h"

/* order_bodies visits the cells in cubes (squares in 2D) of this many a side. */
enum { ORDER_TILE = 4 };

/* Whether enough events have passed since the last ordering that another is due. */
int order_due(const carom_world *w);

/* At a rebuild (bodies added, every event predicted again), once the grid
 * files the bodies and before the neighbour lists are built: sorts a world
 * of 2^16 bodies or more at once. Bodies come in the order they were added
 * (a lattice's rows, a file's order); otherwise building the lists and the
 * first 16 events a body would wait on records far apart in memory. The
 * lists, built afresh next, are not carried: nothing is allocated, and
 * nothing can fail. */
void order_at_rebuild(carom_world *w);

/* Moves the bodies to new slots in the order of the cells they sit in, tile
 * by tile,
 * renaming them everywhere (events, calendar, cell lists, id maps). Results
 * do not change: every tie is broken by id. Returns 0, or -1 if out of
 * memory (then nothing moved). */
int order_bodies(carom_world *w);

/* Moves the body in slot from[p] to slot p, for every p (a permutation of
 * 0 .. count-1, left as it is), renaming it everywhere. order_bodies uses it;
 * tests use it with random permutations. Returns 0, or -1 if out of memory. */
int order_permute(carom_world *w, int32_t *from);

#endif
