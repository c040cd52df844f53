/* contact.h — the frame steppers' contact search: which pairs overlap at one
 * instant, through the cell grid or over all pairs (seed 002's n^2/2). */
#ifndef CAROM_CONTACT_H
#define CAROM_CONTACT_H

#include <stdint.h>

#include "frame.h"

/* Sets up the grid for the frame's box and largest body (nothing with
 * all_pairs). 0, or -1 if out of memory. */
int contact_configure(carom_frame *f);
/* Puts every body in the cell of its f->end position. */
void contact_bin(carom_frame *f);
/* Body i's f->end changed: moves it to its new cell. */
void contact_rebin(carom_frame *f, int32_t i);

/* Do bodies i and j intersect at time, at positions xi and xj (xj the image
 * nearest xi)? The bounding spheres first, then def.overlap if given.
 * Counts a pair check. */
int contact_overlap(carom_frame *f, int32_t i, int32_t j, const double xi[3], const double xj[3],
                    double time);

/* Finds the pairs overlapping at time at the f->end positions: among all
 * bodies (bodies == NULL), or the pairs with at least one of the n listed
 * bodies. Writes them to f->pairs sorted by (i, j), each once, and returns
 * how many, or -1 if out of memory. */
int32_t contact_find_pairs(carom_frame *f, const int32_t *bodies, int32_t n, double time);

#endif
