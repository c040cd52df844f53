/* place.h — making a scenario's bodies: random non-overlapping placement,
 * lattices (fcc in 3D, hexagonal in 2D, for any count), Maxwell-Boltzmann or
 * equal-speed velocities, zero total momentum, and the box from a packing
 * fraction. Everything is drawn from one carom_rng seeded by the scenario,
 * so the same scenario and seed give the same bodies. */
#ifndef CAROM_PLACE_H
#define CAROM_PLACE_H

#include <stddef.h>

#include "carom.h"
#include "scenario.h"

/* Resolves the box: if the scenario has none, a group with packing_fraction
 * sets a square or cube box (the total volume of all groups' bodies over the
 * fraction); reads `file:` groups. Then creates the world (with on_event and
 * user as its callback), adds every body group by group in order, and sets
 * the drawn bodies' total momentum to zero. The resolved box is written to
 * box. A `file:` group reads its `frame:`; a file's Lattice must match the
 * box, or becomes it when the scenario sets none. On failure returns -1 with "FILE:LINE:COL: what is wrong (what was
 * expected)" in error (pointing at the group or key at fault) and *world is
 * NULL. */
int place_build_world(const scenario *s, carom_event_callback on_event, void *user, double box[3],
                      carom_world **world, char *error, size_t error_size);

/* The same, and *species (if species is not NULL) becomes a new text naming
 * the bodies' species in index order, "NAME COUNT NAME COUNT ..." (a group's
 * `name:`, or XYZ_DEFAULT_SPECIES), for xyz_write_frame; free() it. */
int place_build_world_named(const scenario *s, carom_event_callback on_event, void *user,
                            double box[3], carom_world **world, char **species, char *error,
                            size_t error_size);

/* The volume of a disk (dim 2, an area) or sphere (dim 3) of radius r. */
double place_ball_volume(int dim, double r);

/* The world def a scenario describes (box must be resolved). */
carom_world_def place_world_def(const scenario *s, const double box[3]);

#endif
