/* bisect.h — the time of first contact by bisection on an intersection
 * predicate (seed 004). Pure: no world, no state. */
#ifndef CAROM_BISECT_H
#define CAROM_BISECT_H

#include <stdint.h>

/* Does the configuration at time t intersect? Nonzero for yes. */
typedef int (*bisect_predicate)(void *user, double t);

/* Narrows [lo, hi], with the predicate false at lo and true at hi, until
 * hi - lo <= eps (or no double lies between them), and returns lo: the last
 * time known to be free, within eps before the first contact (exact when the
 * set of intersecting times in [lo, hi] is one interval, as for two convex
 * bodies in linear relative motion). Returns lo at once if the predicate is
 * true there. *steps is increased by the number of predicate calls. */
double bisect_first_contact(bisect_predicate intersect, void *user, double lo, double hi, double eps,
                            int64_t *steps);

#endif
