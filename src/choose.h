/* choose.h — choices without branches.
 *
 * Compilers turn a conditional between doubles into a branch. Where the
 * condition is a coin flip (a velocity's sign, which of two times is
 * earlier, whether a cell is empty), each mispredicted branch costs more
 * than the arithmetic of both sides, so the choice is made by a mask on
 * the bits instead, and a set of cells to visit is a bit mask walked by
 * its lowest bit. The chosen value is the very double given: no result
 * changes.
 */
#ifndef CAROM_CHOOSE_H
#define CAROM_CHOOSE_H

#include <stdint.h>
#include <string.h>

/* if_true where which is nonzero, else if_false. */
static inline double choose(int which, double if_true, double if_false)
{
    uint64_t t, f, mask = (uint64_t)0 - (uint64_t)(which != 0);
    memcpy(&t, &if_true, sizeof t);
    memcpy(&f, &if_false, sizeof f);
    t = (t & mask) | (f & ~mask);
    double chosen;
    memcpy(&chosen, &t, sizeof chosen);
    return chosen;
}

/* The lowest set bit of a nonzero mask. */
static inline int lowest_bit(uint32_t mask)
{
#if defined(__GNUC__)
    return __builtin_ctz(mask);
#else
    int k = 0;
    while (!(mask & 1u)) mask >>= 1, k++;
    return k;
#endif
}

#endif
