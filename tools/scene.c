/* scene.c — scenes for render.c (scene.h). A live world gives its polygons'
 * vertices in the world frame (carom_world_get_body_polygon) and its
 * container (its definition's copy). A trajectory does not carry shapes, so
 * a frame's polygons come from its scenario: the world built at the start
 * gives each polygon's vertices, taken back to the body's frame by the
 * inverse of its pose then (x_body = R(-angle) (x - position)), and the
 * frame's pose turns and places them again (x = position + R(angle) x_body).
 */
#include "scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int reserve_bodies(scene_buffers *b, int32_t count)
{
    if (count + 1 <= b->capacity) return 0;
    carom_body_state *bodies = realloc(b->bodies, (size_t)(count + 1) * sizeof *bodies);
    if (bodies) b->bodies = bodies;
    int32_t *start = realloc(b->vertex_start, (size_t)(count + 1) * sizeof *start);
    if (start) b->vertex_start = start;
    if (!bodies || !start) return -1;
    b->capacity = count + 1;
    return 0;
}

static int reserve_vertices(scene_buffers *b, int32_t count)
{
    if (count <= b->vertex_capacity) return 0;
    int32_t capacity = b->vertex_capacity ? 2 * b->vertex_capacity : 256;
    while (capacity < count) capacity *= 2;
    carom_vec2 *v = realloc(b->vertices, (size_t)capacity * sizeof *v);
    if (!v) return -1;
    b->vertices = v, b->vertex_capacity = capacity;
    return 0;
}

/* Appends body id's world-frame vertices; returns how many, or -1. */
static int32_t append_polygon(const carom_world *world, int32_t id, int32_t at, scene_buffers *b)
{
    carom_vec2 corners[CAROM_POLYGON_MAX_VERTICES];
    int32_t n = 0;
    if (carom_world_get_body_polygon(world, id, corners, CAROM_POLYGON_MAX_VERTICES, &n) != CAROM_OK || n == 0)
        return 0;
    if (reserve_vertices(b, at + n) != 0) return -1;
    memcpy(b->vertices + at, corners, (size_t)n * sizeof *corners);
    return n;
}

static void point_scene(render_scene *scene, const scene_buffers *b, int has_polygons)
{
    scene->vertices = has_polygons ? b->vertices : NULL;
    scene->vertex_start = has_polygons ? b->vertex_start : NULL;
}

int scene_from_world(const carom_world *world, int dim, const double box[3], scene_buffers *b, render_scene *scene)
{
    int32_t count = carom_world_body_count(world), at = 0;
    if (reserve_bodies(b, count) != 0) return -1;
    for (int32_t id = 0; id < count; id++) {
        carom_world_get_body(world, id, &b->bodies[id]);
        b->vertex_start[id] = at;
        int32_t n = dim == 2 && b->bodies[id].polygon_vertices > 0 ? append_polygon(world, id, at, b) : 0;
        if (n < 0) return -1;
        at += n;
    }
    b->vertex_start[count] = at;
    carom_world_def def = carom_world_definition(world);
    *scene = (render_scene){.dim = dim, .box = {box[0], box[1], box[2]}, .bodies = b->bodies, .count = count};
    for (int a = 0; a < 3; a++) scene->periodic[a] = def.boundary[a] == CAROM_PERIODIC;
    scene->container = dim == 2 ? def.container : NULL;
    point_scene(scene, b, at > 0);
    return 0;
}

static carom_vec2 turn(carom_vec2 v, double angle)
{
    double c = cos(angle), s = sin(angle);
    return (carom_vec2){c * v.x - s * v.y, s * v.x + c * v.y};
}

int scene_place_shapes(const carom_world *shapes, const carom_body_state *bodies, int32_t count, scene_buffers *b,
                       render_scene *scene)
{
    if (carom_world_body_count(shapes) != count) return -2;
    if (reserve_bodies(b, count) != 0) return -1;
    int32_t at = 0;
    for (int32_t id = 0; id < count; id++) {
        b->vertex_start[id] = at;
        int32_t n = append_polygon(shapes, id, at, b);
        if (n < 0) return -1;
        carom_body_state start;
        carom_world_get_body(shapes, id, &start);
        for (int32_t k = at; k < at + n; k++) {
            carom_vec2 local = turn((carom_vec2){b->vertices[k].x - start.position.x, b->vertices[k].y - start.position.y},
                                    -start.angle);
            carom_vec2 placed = turn(local, bodies[id].angle);
            b->vertices[k] = (carom_vec2){bodies[id].position.x + placed.x, bodies[id].position.y + placed.y};
        }
        at += n;
    }
    b->vertex_start[count] = at;
    point_scene(scene, b, at > 0);
    return 0;
}

void scene_buffers_free(scene_buffers *b)
{
    free(b->bodies), free(b->vertices), free(b->vertex_start);
    memset(b, 0, sizeof *b);
}
