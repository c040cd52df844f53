/* container.h — a container's internal form: a tree of shapes in one block
 * of memory (so a copy is one memcpy and a snapshot is its bytes), shared by
 * container.c (building, distance, gradient) and boundary.c (the exact
 * time a body meets the boundary). */
#ifndef CAROM_CONTAINER_H
#define CAROM_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

#include "carom.h"

/* One node of the tree. Leaves are shapes; composites name two children by
 * index (children always come before their parent; the root is the last
 * node). */
typedef struct container_node {
    carom_shape shape;
    int32_t first, second;   /* composites: child node indices; polygon: first edge and edge count */
    double centre[3];        /* box, rounded box, ball */
    double half[3];          /* box, rounded box: half sides */
    double radius;           /* rounded box corner, ball, capsule */
    double a[3], b[3];       /* capsule: segment ends */
    double lower[3], upper[3]; /* a box holding the node's region */
    /* function: the caller's distance, argument and Lipschitz bound */
    carom_distance_fn distance;
    void *user;
    double lipschitz;
} container_node;

/* A convex polygon's edge from vertex from to vertex to: inside is
 * normal . x <= offset, normal the unit outward normal (2D). */
typedef struct container_edge {
    double normal[2];
    double offset;
    double from[2], to[2];
} container_edge;

struct carom_container {
    size_t bytes;            /* the whole block: this header, nodes, edges */
    int dim;
    int32_t node_count, edge_count;
    double lipschitz;        /* bound for the whole tree: the largest of its leaves' (1 for carom's shapes) */
    int has_function;        /* a caller's function somewhere in the tree (no snapshot) */
    container_node *nodes;   /* point into the block, after the header */
    container_edge *edges;
};

/* The signed distance at x and, if gradient is not NULL, its gradient
 * (inward, unit for carom's shapes). */
double container_distance(const carom_container *c, const double x[3], double gradient[3]);

/* A copy in one block from allocate (NULL: malloc), or NULL if out of
 * memory. release it with the matching free. */
carom_container *container_copy(const carom_container *c, void *(*allocate)(void *user, size_t size), void *user);
/* Points nodes and edges into the block again (after a memcpy or a read). */
void container_relink(carom_container *c);

/* CAROM_OK if some point of the bounds has s > 0; else
 * CAROM_INVALID_ARGUMENT and why says the container is empty (the search
 * and its limits are described in container.c). */
carom_status container_check_not_empty(const carom_container *c, char *why, size_t why_size);
/* The volume (area in 2D) by cell quadrature, and *error_bound a bound on
 * its absolute error (the cells the quadrature left unresolved). */
double container_volume_estimate(const carom_container *c, double *error_bound);

#endif
