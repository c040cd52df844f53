/* filter.h — the safety filter of seed 003 as pure functions (filter.c):
 * the public carom_filter_apply, and what the world's steering (steering.c)
 * needs to filter one body against several constraints at once. */
#ifndef CAROM_FILTER_H
#define CAROM_FILTER_H

#include "carom.h"

/* One thing a steered body must not touch: its clearance to it (L; the
 * container's s(x) - r, or a share of the gap to another steered body) and
 * the unit direction in which that clearance grows fastest (inward). */
typedef struct filter_constraint {
    double clearance;
    double normal[3];
} filter_constraint;

/* NULL if def is usable, else the name of its first bad field and what was
 * expected (a constant string). */
const char *filter_def_problem(const carom_filter_def *def);

/* B(v): an upper bound on the distance a body at speed v travels until it
 * is at rest under the filter's braking (v^2 / 2a_max in continuous time;
 * with a window, held braking stopping exactly at a window's end). */
double filter_braking_room(const carom_filter_def *def, double speed);

/* M(v): the most room a body at speed v may need from a window start on if
 * the filter lets its input through for one window and brakes after:
 * v^2 / 2a_max + 2 v dt + 9/8 a_max dt^2 (v^2 / 2a_max with window 0). The
 * filter brakes fully once the clearance is at most M(v); another steered
 * body subtracts M(v) from its gap to this one (each takes its share). */
double filter_reach(const carom_filter_def *def, double speed);

/* The filter against count >= 1 constraints (def valid, everything finite):
 * the most critical constraint decides (for the laws braking along -v, the
 * one of least clearance; for the directional law, the one of largest
 * approach ratio). Writes result; never NaN, |a| <= a_max. */
void filter_apply_constraints(const carom_filter_def *def, const filter_constraint *constraints, int count,
                              const double velocity[3], const double input[3], carom_filter_result *result);

/* The filter guarantees s >= 0 in exact arithmetic, and its slow rule lets
 * a body pushed at a wall come within round-off of it: callers give it the
 * clearance less this skin (2^-36 of the scale of the positions, far above
 * their round-off), so that the true clearance stays positive. */
double filter_skin(double scale);

/* |x| without overflow or underflow for any finite components. */
double filter_length(const double x[3]);

#endif
