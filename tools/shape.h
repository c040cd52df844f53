/* shape.h — a scenario's container (world.container) read from its YAML
 * node and built with carom_container_create (shape.c). */
#ifndef CAROM_SHAPE_H
#define CAROM_SHAPE_H

#include <stddef.h>
#include <yaml.h>

#include "carom.h"

/* Reads the container written at node (a mapping of one key: circle,
 * sphere, ball, box, rounded_box, polygon, capsule, union, intersection or
 * difference; see the README) for a world of dim dimensions, and builds it.
 * Returns 0 with *container set (destroy it with carom_container_destroy),
 * or -1 with *container NULL and "FILE:LINE:COL: what is wrong (what was
 * expected)" in error, the place being the value at fault: a number, a
 * vertex, or the shape the library refused (its reason passed on). */
int shape_read(yaml_document_t *doc, const yaml_node_t *node, const char *path, int dim,
               carom_container **container, char *error, size_t error_size);

/* The names shape_read knows, for messages: "circle, sphere, ball, ...". */
const char *shape_names(void);

#endif
