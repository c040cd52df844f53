/* shape.c — reads a scenario's container (world.container) and builds it.
 *
 * A container is a mapping of one key, the shape, whose value gives its
 * size, e.g.
 *   {circle: 10}                                a disk of radius 10 at the origin (2D)
 *   {sphere: 5}, {ball: {centre: [..], radius: R}}
 *   {box: [w, h(, d)]}, {box: {centre: [..], size: [..]}}
 *   {rounded_box: [w, h, r]} (3D: [w, h, d, r]), or {centre:, size:, radius:}
 *   {polygon: [[x, y], ...]}                    convex, 2D, each vertex once
 *   {capsule: {a: [..], b: [..], radius: R}}
 *   {union: [A, B, ...]}, {intersection: [A, B, ...]}, {difference: [A, B, ...]}
 * Composites take two or more parts and are folded from the left
 * (A − B − C = (A − B) − C). Each shape is built bottom-up with
 * carom_container_create as soon as it is read, so the library's checks
 * (a polygon that is not convex, an empty intersection ...) are reported at
 * the shape they concern, with the library's reason. The YAML tree comes
 * from libyaml's document API, as in scenario.c. */
#include "shape.h"

#include "decimal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LENGTH(array) ((int)(sizeof(array) / sizeof((array)[0])))
#define MAX_DEPTH 64 /* composites within composites: far more than a container needs */
#define NAME_SIZE 200 /* a shape's name in messages: world.container.union[1].box.size */

typedef struct shape_reader {
    yaml_document_t *doc;
    const char *path;
    int dim;
    char *error;
    size_t error_size;
} shape_reader;

static const char *const known_shapes[] = {"circle",  "sphere", "ball",  "box",          "rounded_box",
                                           "polygon", "capsule", "union", "intersection", "difference"};

const char *shape_names(void)
{
    return "circle, sphere, ball, box, rounded_box, polygon, capsule, union, intersection, difference";
}

#if defined(__GNUC__)
static int fail_at(const shape_reader *r, const yaml_node_t *at, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
#endif
/* Writes "FILE:LINE:COL: message" (the place of node at) and returns -1. */
static int fail_at(const shape_reader *r, const yaml_node_t *at, const char *format, ...)
{
    if (!r->error || r->error_size == 0) return -1;
    int used = snprintf(r->error, r->error_size, "%s:%d:%d: ", r->path, (int)at->start_mark.line + 1,
                        (int)at->start_mark.column + 1);
    if (used < 0 || (size_t)used >= r->error_size) return -1;
    va_list args;
    va_start(args, format);
    vsnprintf(r->error + used, r->error_size - (size_t)used, format, args);
    va_end(args);
    return -1;
}

static const char *kind_of(const yaml_node_t *node)
{
    if (node->type == YAML_SEQUENCE_NODE) return "a list";
    if (node->type == YAML_MAPPING_NODE) return "a mapping";
    return node->data.scalar.length ? "a word" : "empty";
}

static const yaml_node_t *node_at(const shape_reader *r, yaml_node_item_t index)
{
    return yaml_document_get_node(r->doc, index);
}

static long item_count(const yaml_node_t *list)
{
    return (long)(list->data.sequence.items.top - list->data.sequence.items.start);
}

static const yaml_node_t *item(const shape_reader *r, const yaml_node_t *list, long k)
{
    return node_at(r, list->data.sequence.items.start[k]);
}

/* ---- numbers ---------------------------------------------------------------- */

/* A plain scalar that is a finite decimal number (no words, no hex). */
static int parse_number(const yaml_node_t *node, double *out)
{
    if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return -1;
    return decimal_parse((const char *)node->data.scalar.value, (size_t)-1, out) == DECIMAL_PARSED ? 0 : -1;
}

static int number_value(const shape_reader *r, const yaml_node_t *node, const char *what, int positive,
                        double *out)
{
    const char *expect = positive ? "a finite number > 0" : "a finite number";
    if (parse_number(node, out) != 0) {
        if (node->type == YAML_SCALAR_NODE)
            return fail_at(r, node, "%s = '%.40s' is not a number (expected %s)", what,
                           (const char *)node->data.scalar.value, expect);
        return fail_at(r, node, "%s is %s (expected %s)", what, kind_of(node), expect);
    }
    if (positive && !(*out > 0.0))
        return fail_at(r, node, "%s = %.17g is out of range (expected %s)", what, *out, expect);
    return 0;
}

/* A list of exactly n numbers. */
static int vector_value(const shape_reader *r, const yaml_node_t *node, const char *what, int n,
                        int positive, const char *expect, double *out)
{
    if (node->type != YAML_SEQUENCE_NODE)
        return fail_at(r, node, "%s is %s (expected %s)", what, kind_of(node), expect);
    if (item_count(node) != n)
        return fail_at(r, node, "%s has %ld numbers (expected %s)", what, item_count(node), expect);
    for (int k = 0; k < n; k++)
        if (number_value(r, item(r, node, k), what, positive, &out[k]) != 0) return -1;
    return 0;
}

/* out = what followed by the formatted suffix (cut to size). */
#if defined(__GNUC__)
static void name_of(char *out, size_t size, const char *what, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
#endif
static void name_of(char *out, size_t size, const char *what, const char *format, ...)
{
    int used = snprintf(out, size, "%s", what);
    if (used < 0 || (size_t)used >= size) return;
    va_list args;
    va_start(args, format);
    vsnprintf(out + used, size - (size_t)used, format, args);
    va_end(args);
}

static carom_vec vec_of(const double x[3]) { return (carom_vec){x[0], x[1], x[2]}; }

/* ---- mappings --------------------------------------------------------------- */

/* The value of key in a mapping (NULL if absent). */
static const yaml_node_t *find_value(const shape_reader *r, const yaml_node_t *map, const char *key)
{
    for (const yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = node_at(r, p->key);
        if (k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key))
            return node_at(r, p->value);
    }
    return NULL;
}

/* A mapping with only the keys given, each once, the required ones present. */
static int check_keys(const shape_reader *r, const yaml_node_t *map, const char *what, const char *const keys[],
                      int count, int required)
{
    char allowed[128] = "";
    for (int k = 0; k < count; k++)
        snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s", k ? ", " : "", keys[k]);
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(r, map, "%s is %s (expected a mapping with keys %s)", what, kind_of(map), allowed);
    for (const yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const yaml_node_t *key = node_at(r, p->key);
        int known = -1;
        for (int k = 0; k < count && key->type == YAML_SCALAR_NODE; k++)
            if (!strcmp((const char *)key->data.scalar.value, keys[k])) known = k;
        if (known < 0)
            return fail_at(r, key, "unknown key %s%.40s%s in %s (expected one of: %s)",
                           key->type == YAML_SCALAR_NODE ? "'" : "",
                           key->type == YAML_SCALAR_NODE ? (const char *)key->data.scalar.value : kind_of(key),
                           key->type == YAML_SCALAR_NODE ? "'" : "", what, allowed);
        for (const yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++)
            if (!strcmp((const char *)node_at(r, q->key)->data.scalar.value, keys[known]))
                return fail_at(r, key, "duplicate key '%s' in %s (expected it once)", keys[known], what);
    }
    for (int k = 0; k < required; k++)
        if (!find_value(r, map, keys[k]))
            return fail_at(r, map, "%s has no %s (expected keys %s)", what, keys[k], allowed);
    return 0;
}

/* ---- building ----------------------------------------------------------------- */

/* carom_container_create, its refusal reported at node with the reason. */
static int build(const shape_reader *r, const yaml_node_t *node, const char *what, const carom_container_def *def,
                 carom_container **out)
{
    char why[256] = "";
    if (carom_container_create(def, out, why, sizeof why) == CAROM_OK) return 0;
    *out = NULL;
    return fail_at(r, node, "%s is refused: %s", what, why[0] ? why : "the library gave no reason");
}

static carom_container_def leaf_def(const shape_reader *r, carom_shape shape)
{
    carom_container_def def = carom_default_container_def();
    def.shape = shape;
    def.dim = r->dim;
    return def;
}

/* An optional centre: dim numbers (default the origin). */
static int read_centre(const shape_reader *r, const yaml_node_t *map, const char *what, carom_vec *centre)
{
    const yaml_node_t *value = find_value(r, map, "centre");
    double c[3] = {0.0, 0.0, 0.0};
    char name[NAME_SIZE], expect[48];
    name_of(name, sizeof name, what, ".centre");
    snprintf(expect, sizeof expect, "a list of %d numbers", r->dim);
    if (value && vector_value(r, value, name, r->dim, 0, expect, c) != 0) return -1;
    *centre = vec_of(c);
    return 0;
}

/* circle (2D), sphere (3D), ball: R, or {centre: [..], radius: R}. */
static int read_ball(const shape_reader *r, const yaml_node_t *value, const char *what, const char *word,
                     carom_container **out)
{
    if ((!strcmp(word, "circle") && r->dim != 2) || (!strcmp(word, "sphere") && r->dim != 3))
        return fail_at(r, value, "%s is a %dD shape in a %dD world (expected %s)", what, r->dim == 2 ? 3 : 2,
                       r->dim, r->dim == 2 ? "circle or ball" : "sphere or ball");
    carom_container_def def = leaf_def(r, CAROM_SHAPE_BALL);
    if (value->type == YAML_SCALAR_NODE) {
        if (number_value(r, value, what, 1, &def.radius) != 0) return -1;
    } else {
        const char *const keys[] = {"radius", "centre"};
        char name[NAME_SIZE];
        name_of(name, sizeof name, what, ".radius");
        if (check_keys(r, value, what, keys, 2, 1) != 0 ||
            number_value(r, find_value(r, value, "radius"), name, 1, &def.radius) != 0 ||
            read_centre(r, value, what, &def.centre) != 0)
            return -1;
    }
    return build(r, value, what, &def, out);
}

/* box: [w, h(, d)] or {centre, size}; rounded_box: [w, h(, d), r] or {centre, size, radius}. */
static int read_box(const shape_reader *r, const yaml_node_t *value, const char *what, int rounded,
                    carom_container **out)
{
    carom_container_def def = leaf_def(r, rounded ? CAROM_SHAPE_ROUNDED_BOX : CAROM_SHAPE_BOX);
    double size[4] = {0.0, 0.0, 0.0, 0.0};
    int n = r->dim + rounded;
    char expect[128];
    if (value->type == YAML_SEQUENCE_NODE) {
        snprintf(expect, sizeof expect, "a list of %d numbers > 0: the side lengths%s", n,
                 rounded ? " and the corner radius" : "");
        if (vector_value(r, value, what, n, 1, expect, size) != 0) return -1;
        if (rounded) def.radius = size[r->dim], size[r->dim] = 0.0;
    } else {
        static const char *const rounded_keys[] = {"size", "radius", "centre"}, *const box_keys[] = {"size", "centre"};
        char name[NAME_SIZE];
        snprintf(expect, sizeof expect, "a list of %d side lengths > 0", r->dim);
        name_of(name, sizeof name, what, ".size");
        if (check_keys(r, value, what, rounded ? rounded_keys : box_keys, rounded ? 3 : 2, rounded ? 2 : 1) != 0)
            return -1;
        if (vector_value(r, find_value(r, value, "size"), name, r->dim, 1, expect, size) != 0 ||
            read_centre(r, value, what, &def.centre) != 0)
            return -1;
        name_of(name, sizeof name, what, ".radius");
        if (rounded && number_value(r, find_value(r, value, "radius"), name, 0, &def.radius) != 0) return -1;
    }
    def.size = (carom_vec){size[0], size[1], r->dim == 3 ? size[2] : 0.0};
    if (r->dim == 2) def.size.z = 1.0;
    return build(r, value, what, &def, out);
}

/* The vertex of a library message ("vertex 3", "vertices[3]"), or -1. */
static long vertex_named(const char *why)
{
    const char *at = strstr(why, "vertex ");
    long k = -1;
    if (at && sscanf(at + 7, "%ld", &k) == 1) return k;
    at = strstr(why, "vertices[");
    if (at && sscanf(at + 9, "%ld", &k) == 1) return k;
    return -1;
}

static int read_vertices(const shape_reader *r, const yaml_node_t *value, const char *what, carom_vec *v, long n)
{
    for (long k = 0; k < n; k++) {
        char name[NAME_SIZE];
        double x[2];
        name_of(name, sizeof name, what, " vertex %ld", k);
        if (vector_value(r, item(r, value, k), name, 2, 0, "a list of 2 numbers, [x, y]", x) != 0) return -1;
        v[k] = (carom_vec){x[0], x[1], 0.0};
        for (long j = 0; j < k; j++)
            if (v[j].x == v[k].x && v[j].y == v[k].y)
                return fail_at(r, item(r, value, k),
                               "%s repeats vertex %ld [%.17g, %.17g] (expected each vertex once, in order "
                               "around the polygon; it is closed without repeating the first)",
                               name, j, x[0], x[1]);
    }
    return 0;
}

/* polygon: [[x, y], ...], 3 or more vertices, convex, 2D. */
static int read_polygon(const shape_reader *r, const yaml_node_t *value, const char *what, carom_container **out)
{
    if (r->dim != 2) return fail_at(r, value, "%s is a 2D shape in a 3D world (expected dim: 2)", what);
    const char *expect = "a list of 3 or more vertices [x, y], in order around a convex polygon";
    if (value->type != YAML_SEQUENCE_NODE)
        return fail_at(r, value, "%s is %s (expected %s)", what, kind_of(value), expect);
    long n = item_count(value);
    if (n < 3)
        return fail_at(r, value, "%s has %ld vertices, which enclose no area (expected %s)", what, n, expect);
    if (n > 1000000) return fail_at(r, value, "%s has %ld vertices (expected at most 1000000)", what, n);
    carom_vec *v = malloc((size_t)n * sizeof *v);
    if (!v) return fail_at(r, value, "%s: out of memory for %ld vertices", what, n);
    int st = read_vertices(r, value, what, v, n);
    if (st == 0) {
        carom_container_def def = leaf_def(r, CAROM_SHAPE_POLYGON);
        def.vertices = v;
        def.vertex_count = (int32_t)n;
        char why[256] = "";
        if (carom_container_create(&def, out, why, sizeof why) != CAROM_OK) {
            long k = vertex_named(why);
            *out = NULL;
            st = fail_at(r, k >= 0 && k < n ? item(r, value, k) : value, "%s is refused: %s", what,
                         why[0] ? why : "the library gave no reason");
        }
    }
    free(v);
    return st;
}

/* capsule: {a: [..], b: [..], radius: R}. */
static int read_capsule(const shape_reader *r, const yaml_node_t *value, const char *what, carom_container **out)
{
    const char *const keys[] = {"a", "b", "radius"};
    if (check_keys(r, value, what, keys, 3, 3) != 0) return -1;
    carom_container_def def = leaf_def(r, CAROM_SHAPE_CAPSULE);
    double a[3] = {0.0, 0.0, 0.0}, b[3] = {0.0, 0.0, 0.0};
    char name[NAME_SIZE], expect[48];
    snprintf(expect, sizeof expect, "a list of %d numbers", r->dim);
    name_of(name, sizeof name, what, ".a");
    if (vector_value(r, find_value(r, value, "a"), name, r->dim, 0, expect, a) != 0) return -1;
    name_of(name, sizeof name, what, ".b");
    if (vector_value(r, find_value(r, value, "b"), name, r->dim, 0, expect, b) != 0) return -1;
    name_of(name, sizeof name, what, ".radius");
    if (number_value(r, find_value(r, value, "radius"), name, 1, &def.radius) != 0) return -1;
    def.a = vec_of(a);
    def.b = vec_of(b);
    return build(r, value, what, &def, out);
}

static int read_shape(const shape_reader *r, const yaml_node_t *node, const char *what, int depth,
                      carom_container **out);

/* union, intersection, difference: a list of 2 or more shapes, folded from the left. */
static int read_composite(const shape_reader *r, const yaml_node_t *value, const char *what, carom_shape shape,
                          int depth, carom_container **out)
{
    if (value->type != YAML_SEQUENCE_NODE || item_count(value) < 2)
        return fail_at(r, value, "%s is %s%s (expected a list of 2 or more shapes)", what,
                       value->type == YAML_SEQUENCE_NODE ? "a list of " : kind_of(value),
                       value->type == YAML_SEQUENCE_NODE ? (item_count(value) == 1 ? "one shape" : "no shape") : "");
    carom_container *whole = NULL;
    char name[NAME_SIZE];
    name_of(name, sizeof name, what, "[0]");
    if (read_shape(r, item(r, value, 0), name, depth + 1, &whole) != 0) return -1;
    for (long k = 1; k < item_count(value); k++) {
        carom_container *part = NULL, *joined = NULL;
        name_of(name, sizeof name, what, "[%ld]", k);
        int st = read_shape(r, item(r, value, k), name, depth + 1, &part);
        if (st == 0) {
            carom_container_def def = leaf_def(r, shape);
            def.first = whole;
            def.second = part;
            if (item_count(value) > 2)
                name_of(name, sizeof name, what, " (parts 0 to %ld)", k);
            else
                name_of(name, sizeof name, what, "%s", "");
            st = build(r, value, name, &def, &joined);
        }
        carom_container_destroy(part);
        carom_container_destroy(whole);
        whole = joined;
        if (st != 0) return -1;
    }
    *out = whole;
    return 0;
}

static int read_shape(const shape_reader *r, const yaml_node_t *node, const char *what, int depth,
                      carom_container **out)
{
    *out = NULL;
    if (depth > MAX_DEPTH)
        return fail_at(r, node, "%s: composites nested more than %d deep (expected a shallower container)", what,
                       MAX_DEPTH);
    char expect[160];
    snprintf(expect, sizeof expect, "a mapping of one shape: %s", shape_names());
    if (node->type != YAML_MAPPING_NODE || node->data.mapping.pairs.top - node->data.mapping.pairs.start != 1)
        return fail_at(r, node, "%s is %s%s (expected %s)", what,
                       node->type == YAML_MAPPING_NODE ? "a mapping of " : kind_of(node),
                       node->type == YAML_MAPPING_NODE ? "several keys" : "", expect);
    const yaml_node_pair_t *pair = node->data.mapping.pairs.start;
    const yaml_node_t *key = node_at(r, pair->key), *value = node_at(r, pair->value);
    int known = -1;
    for (int k = 0; k < LENGTH(known_shapes) && key->type == YAML_SCALAR_NODE; k++)
        if (!strcmp((const char *)key->data.scalar.value, known_shapes[k])) known = k;
    if (known < 0)
        return fail_at(r, key, "%s: unknown shape '%.40s' (expected one of: %s)", what,
                       key->type == YAML_SCALAR_NODE ? (const char *)key->data.scalar.value : kind_of(key),
                       shape_names());
    char name[NAME_SIZE];
    name_of(name, sizeof name, what, ".%s", known_shapes[known]);
    switch (known) {
    case 0: case 1: case 2: return read_ball(r, value, name, known_shapes[known], out);
    case 3: return read_box(r, value, name, 0, out);
    case 4: return read_box(r, value, name, 1, out);
    case 5: return read_polygon(r, value, name, out);
    case 6: return read_capsule(r, value, name, out);
    case 7: return read_composite(r, value, name, CAROM_SHAPE_UNION, depth, out);
    case 8: return read_composite(r, value, name, CAROM_SHAPE_INTERSECTION, depth, out);
    default: return read_composite(r, value, name, CAROM_SHAPE_DIFFERENCE, depth, out);
    }
}

int shape_read(yaml_document_t *doc, const yaml_node_t *node, const char *path, int dim,
               carom_container **container, char *error, size_t error_size)
{
    shape_reader r = {doc, path, dim, error, error_size};
    if (error && error_size) error[0] = '\0';
    return read_shape(&r, node, "world.container", 0, container);
}
