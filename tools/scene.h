/* scene.h — what render.c draws, made from a live world or from a frame
 * with the shapes of its scenario (scene.c): the bodies, polygons' vertices
 * in the world frame, the container and the periodic axes. */
#ifndef CAROM_SCENE_H
#define CAROM_SCENE_H
#include <stdint.h>

#include "carom.h"
#include "render.h"

/* The arrays a scene points into. */
typedef struct scene_buffers {
    carom_body_state *bodies;
    carom_vec2 *vertices;
    int32_t *vertex_start; /* count + 1 entries */
    int32_t capacity, vertex_capacity;
} scene_buffers;

/* The world as it is now: its bodies, polygons, container and periodic
 * axes, in a box of sides box (dim 2 or 3). Returns 0, or -1 if memory ran
 * out. The scene points into b and into the world (its container). */
int scene_from_world(const carom_world *world, int dim, const double box[3], scene_buffers *b,
                     render_scene *scene);

/* Polygons for bodies read from a file: shapes, a world built from the
 * frame's scenario at its start, gives each polygon body's vertices in its
 * own frame; the frame's bodies (count of them, the same order) place and
 * turn them (2D angle). Fills b->vertices and b->vertex_start and points
 * the scene at them. Returns 0; -1 if memory ran out; -2 if shapes has a
 * different number of bodies (nothing set). */
int scene_place_shapes(const carom_world *shapes, const carom_body_state *bodies, int32_t count, scene_buffers *b,
                       render_scene *scene);

void scene_buffers_free(scene_buffers *b);

#endif
