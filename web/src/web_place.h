/* web_place.h — the page's starting states (web_place.c): N equal disks on
 * a jittered lattice in a W x H box, each at one speed in a random
 * direction. */
#ifndef WEB_PLACE_H
#define WEB_PLACE_H
#include <stddef.h>
#include <stdint.h>

#include "carom.h"

/* The largest radius at which n disks fit the lattice of a width x height
 * box (half the smaller lattice spacing, less 5%). */
double web_max_radius(int32_t n, double width, double height);

/* Fills bodies[0..n-1] (mass 1, the given radius, speed |v| in a direction
 * drawn from seed). CAROM_INVALID_ARGUMENT (why says which) for n < 1, a
 * non-finite or non-positive size, radius or negative speed, or a radius
 * above web_max_radius. */
carom_status web_place_disks(int32_t n, double width, double height, double radius, double speed,
                             uint64_t seed, carom_body_def *bodies, char *why, size_t why_size);

/* The world every box view uses: 2D, walls on x and y, elastic, bodies in a
 * width x height box centred on the origin. */
carom_world_def web_box_world_def(int32_t n, double width, double height);

#endif
