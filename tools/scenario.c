/* scenario.c — reads a carom scenario file. The YAML is parsed by libyaml
 * (https://pyyaml.org/wiki/LibYAML, its document API: yaml_parser_load) into
 * a tree of nodes; this file walks that tree, checks every key, type and
 * range, and fills a scenario. The first problem found is reported as
 * "FILE:LINE:COL: what is wrong (what was expected)", pointing at the value
 * at fault (at the key for unknown or misplaced keys, at the group's start
 * for a group's problems). Numbers are read in the C locale's format. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "decimal.h"
#include "scenario.h"
#include "shape.h"
#include "xyz.h"

#define LENGTH(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* ---- errors ---------------------------------------------------------------- */

typedef struct reader {
    const char *path; /* the scenario file, as given */
    yaml_document_t doc;
    char *error;
    size_t error_size;
} reader;

static scenario_mark mark_of(const yaml_node_t *node)
{
    return (scenario_mark){(int)node->start_mark.line + 1, (int)node->start_mark.column + 1};
}

/* Writes "FILE:LINE:COL: " and the message to r->error; returns -1. */
#if defined(__GNUC__)
static int fail_at(const reader *r, scenario_mark at, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
#endif
static int fail_at(const reader *r, scenario_mark at, const char *format, ...)
{
    if (!r->error || r->error_size == 0) return -1;
    int used = snprintf(r->error, r->error_size, "%s:%d:%d: ", r->path, at.line, at.col);
    if (used < 0 || (size_t)used >= r->error_size) return -1;
    va_list args;
    va_start(args, format);
    vsnprintf(r->error + used, r->error_size - (size_t)used, format, args);
    va_end(args);
    return -1;
}

static int out_of_memory(const reader *r)
{
    return fail_at(r, (scenario_mark){1, 1}, "out of memory (expected a smaller scenario)");
}

/* Text for a message: at most 40 characters, control characters (the
 * newlines of a block scalar) shown as '?', so a message stays on one line. */
static const char *shown(const char *text, char *buf, size_t size)
{
    size_t n = 0;
    for (; text[n] && n < 40 && n + 1 < size; n++)
        buf[n] = (unsigned char)text[n] < 0x20 ? '?' : text[n];
    buf[n] = '\0';
    return buf;
}

/* A short description of a node for messages: "a list", "a mapping", "empty"
 * or the scalar's text in quotes (cut at 40 characters). */
static const char *describe(const yaml_node_t *node, char *buf, size_t size)
{
    if (node->type == YAML_SEQUENCE_NODE) return "a list";
    if (node->type == YAML_MAPPING_NODE) return "a mapping";
    if (node->data.scalar.length == 0) return "empty";
    char text[48];
    snprintf(buf, size, "'%s'", shown((const char *)node->data.scalar.value, text, sizeof text));
    return buf;
}

/* "what is <description> (expected <expect>)" */
static int fail_kind(const reader *r, const yaml_node_t *node, const char *what, const char *expect)
{
    char buf[52];
    return fail_at(r, mark_of(node), "%s is %s (expected %s)", what,
                   describe(node, buf, sizeof buf), expect);
}

/* ---- texts ----------------------------------------------------------------- */

static char *copy_text(const char *text)
{
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    if (copy) memcpy(copy, text, size);
    return copy;
}

/* file relative to the directory of scenario_path, unless it is absolute. */
static char *resolve_path(const char *scenario_path, const char *file)
{
    const char *slash = strrchr(scenario_path, '/');
    if (file[0] == '/' || !slash) return copy_text(file);
    size_t dir_length = (size_t)(slash - scenario_path) + 1;
    size_t file_size = strlen(file) + 1;
    char *resolved = malloc(dir_length + file_size);
    if (!resolved) return NULL;
    memcpy(resolved, scenario_path, dir_length);
    memcpy(resolved + dir_length, file, file_size);
    return resolved;
}

/* The text of a non-empty scalar; NULL (and an error) for anything else. */
static const char *scalar_text(const reader *r, const yaml_node_t *node, const char *what,
                               const char *expect)
{
    if (node->type != YAML_SCALAR_NODE || node->data.scalar.length == 0) {
        fail_kind(r, node, what, expect);
        return NULL;
    }
    return (const char *)node->data.scalar.value;
}

/* A plain (unquoted) scalar: numbers must not be written as strings. */
static const char *plain_text(const reader *r, const yaml_node_t *node, const char *what,
                              const char *expect)
{
    const char *text = scalar_text(r, node, what, expect);
    if (text && node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
        char buf[48];
        fail_at(r, mark_of(node), "%s is the string '%s' (expected %s, without quotes)", what,
                shown(text, buf, sizeof buf), expect);
        return NULL;
    }
    return text;
}

static int is_null_word(const char *text)
{
    return !strcmp(text, "~") || !strcmp(text, "null") || !strcmp(text, "Null") ||
           !strcmp(text, "NULL");
}

/* A file name (any non-empty scalar but a plain null). */
static int text_value(const reader *r, const yaml_node_t *node, const char *what, char **out)
{
    const char *text = scalar_text(r, node, what, "a file name");
    if (!text) return -1;
    if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && is_null_word(text))
        return fail_at(r, mark_of(node), "%s is null (expected a file name)", what);
    char *copy = copy_text(text);
    if (!copy) return out_of_memory(r);
    free(*out);
    *out = copy;
    return 0;
}

/* ---- numbers --------------------------------------------------------------- */

typedef enum { PARSED, NOT_A_NUMBER, NOT_FINITE, NOT_WHOLE, OUT_OF_RANGE } parse_result;

/* A decimal number: digits, sign, point and exponent only (decimal.c: no hex, no words). */
static parse_result parse_double(const char *text, double *out)
{
    decimal_result got = decimal_parse(text, (size_t)-1, out);
    return got == DECIMAL_PARSED ? PARSED : got == DECIMAL_NOT_FINITE ? NOT_FINITE : NOT_A_NUMBER;
}

/* A whole number >= 0: digits (exact), or a number with an integral value
 * (so 1e6 works). Negative numbers are out of range. */
static parse_result parse_whole(const char *text, uint64_t *out)
{
    const char *digits = text + (*text == '+');
    if (*digits && strspn(digits, "0123456789") == strlen(digits)) {
        errno = 0;
        unsigned long long value = strtoull(digits, NULL, 10);
        if (errno == ERANGE) return OUT_OF_RANGE;
        *out = (uint64_t)value;
        return PARSED;
    }
    double value = 0.0;
    parse_result result = parse_double(text, &value);
    if (result != PARSED) return result;
    if (value != floor(value)) return NOT_WHOLE;
    if (value < 0.0 || value >= 18446744073709551616.0) return OUT_OF_RANGE;
    *out = (uint64_t)value;
    return PARSED;
}

typedef enum { ANY_NUMBER, POSITIVE, NON_NEGATIVE, CLOSED_UNIT, OPEN_UNIT, SIGNED_UNIT } number_range;

static const char *range_text(number_range range)
{
    const char *const texts[] = {"a finite number", "a finite number > 0", "a finite number >= 0",
                                 "a number in [0, 1]",
                                 "a number in (0, 1)", "a number in [-1, 1]"}; /* in number_range order */
    return texts[range];
}

static int in_range(double value, number_range range)
{
    switch (range) {
    case POSITIVE:
        return value > 0.0;
    case NON_NEGATIVE:
        return value >= 0.0;
    case CLOSED_UNIT:
        return value >= 0.0 && value <= 1.0;
    case OPEN_UNIT:
        return value > 0.0 && value < 1.0;
    case SIGNED_UNIT:
        return value >= -1.0 && value <= 1.0;
    default:
        return 1;
    }
}

/* The message for a number that did not parse (or was out of range). */
static int fail_number(const reader *r, const yaml_node_t *node, const char *what,
                       parse_result result, const char *expect)
{
    char text[48];
    shown((const char *)node->data.scalar.value, text, sizeof text);
    const char *problem = result == NOT_FINITE     ? "is not a finite number"
                          : result == NOT_WHOLE    ? "is not a whole number"
                          : result == OUT_OF_RANGE ? "is out of range"
                                                   : "is not a number";
    return fail_at(r, mark_of(node), "%s = %s %s (expected %s)", what, text, problem, expect);
}

static int number_value(const reader *r, const yaml_node_t *node, const char *what,
                        number_range range, double *out)
{
    const char *expect = range_text(range);
    const char *text = plain_text(r, node, what, expect);
    if (!text) return -1;
    double value = 0.0;
    parse_result result = parse_double(text, &value);
    if (result == PARSED && !in_range(value, range)) result = OUT_OF_RANGE;
    if (result != PARSED) return fail_number(r, node, what, result, expect);
    *out = value;
    return 0;
}

static int whole_value(const reader *r, const yaml_node_t *node, const char *what, uint64_t low,
                       uint64_t high, const char *expect, uint64_t *out)
{
    const char *text = plain_text(r, node, what, expect);
    if (!text) return -1;
    uint64_t value = 0;
    parse_result result = parse_whole(text, &value);
    if (result == PARSED && (value < low || value > high)) result = OUT_OF_RANGE;
    if (result != PARSED) return fail_number(r, node, what, result, expect);
    *out = value;
    return 0;
}

/* Exactly n numbers in a list. */
static int vector_value(reader *r, const yaml_node_t *node, const char *what, int n,
                        number_range range, const char *expect, double *out)
{
    if (node->type != YAML_SEQUENCE_NODE) return fail_kind(r, node, what, expect);
    const yaml_node_item_t *items = node->data.sequence.items.start;
    long length = (long)(node->data.sequence.items.top - items);
    if (length != n)
        return fail_at(r, mark_of(node), "%s has %ld numbers (expected %s)", what, length, expect);
    for (int k = 0; k < n; k++) {
        const yaml_node_t *item = yaml_document_get_node(&r->doc, items[k]);
        if (number_value(r, item, what, range, &out[k])) return -1;
    }
    return 0;
}

/* One of names (its index in *out). */
static int choice_value(const reader *r, const yaml_node_t *node, const char *what,
                        const char *const names[], int count, const char *expect, int *out)
{
    const char *text = scalar_text(r, node, what, expect);
    if (!text) return -1;
    for (int k = 0; k < count; k++) {
        if (!strcmp(text, names[k])) {
            *out = k;
            return 0;
        }
    }
    char buf[48];
    return fail_at(r, mark_of(node), "%s = %s is not allowed (expected %s)", what,
                   shown(text, buf, sizeof buf), expect);
}

/* ---- mappings -------------------------------------------------------------- */

/* A mapping whose keys have been checked: all known, none twice. */
typedef struct section {
    reader *r;
    const yaml_node_t *map;
    const char *name; /* "world", "bodies[2]", ... ("" at the top level) */
} section;

static const char *key_text(const section *sec, const yaml_node_pair_t *pair)
{
    return (const char *)yaml_document_get_node(&sec->r->doc, pair->key)->data.scalar.value;
}

static const yaml_node_pair_t *find_pair(const section *sec, const char *key)
{
    const yaml_node_pair_t *pair = sec->map->data.mapping.pairs.start;
    for (; pair < sec->map->data.mapping.pairs.top; pair++) {
        if (!strcmp(key_text(sec, pair), key)) return pair;
    }
    return NULL;
}

/* The value of key, or NULL if absent. */
static const yaml_node_t *find_value(const section *sec, const char *key)
{
    const yaml_node_pair_t *pair = find_pair(sec, key);
    return pair ? yaml_document_get_node(&sec->r->doc, pair->value) : NULL;
}

static const yaml_node_t *find_key(const section *sec, const char *key)
{
    const yaml_node_pair_t *pair = find_pair(sec, key);
    return pair ? yaml_document_get_node(&sec->r->doc, pair->key) : NULL;
}

/* "world.dim" from "world" and "dim" (just "dim" at the top level). */
static const char *full_name(const section *sec, const char *key, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s", sec->name, sec->name[0] ? "." : "", key);
    return buf;
}

static void join_names(const char *const names[], int count, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int k = 0; k < count; k++) {
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", k ? ", " : "", names[k]);
    }
}

static int check_key(const section *sec, const yaml_node_pair_t *pair, const char *const keys[],
                     int count, const char *allowed)
{
    const reader *r = sec->r;
    const yaml_node_t *key = yaml_document_get_node(&sec->r->doc, pair->key);
    char where[64];
    snprintf(where, sizeof where, "%s%s", sec->name[0] ? "in " : "at the top level", sec->name);
    if (key->type != YAML_SCALAR_NODE)
        return fail_at(r, mark_of(key), "a key %s is %s (expected one of: %s)", where,
                       key->type == YAML_SEQUENCE_NODE ? "a list" : "a mapping", allowed);
    int known = 0;
    for (int k = 0; k < count; k++) known |= !strcmp(key_text(sec, pair), keys[k]);
    char buf[48];
    if (!known)
        return fail_at(r, mark_of(key), "unknown key '%s' %s (expected one of: %s)",
                       shown(key_text(sec, pair), buf, sizeof buf), where, allowed);
    const yaml_node_t *first = find_key(sec, key_text(sec, pair));
    if (first != key)
        return fail_at(r, mark_of(key),
                       "duplicate key '%s' %s (expected it once; first at line %d)",
                       key_text(sec, pair), where, mark_of(first).line);
    return 0;
}

/* Checks that node is a mapping with only the given keys, each at most once. */
static int open_section(reader *r, const yaml_node_t *node, const char *name,
                        const char *const keys[], int count, section *out)
{
    char allowed[160];
    join_names(keys, count, allowed, sizeof allowed);
    *out = (section){r, node, name};
    if (node->type != YAML_MAPPING_NODE) {
        char expect[200];
        snprintf(expect, sizeof expect, "a mapping with keys among: %s", allowed);
        return fail_kind(r, node, name[0] ? name : "the top level", expect);
    }
    const yaml_node_pair_t *pair = node->data.mapping.pairs.start;
    for (; pair < node->data.mapping.pairs.top; pair++) {
        if (check_key(out, pair, keys, count, allowed)) return -1;
    }
    return 0;
}

/* Getters: an absent key leaves *out (the default) untouched. */

static int get_number(const section *sec, const char *key, number_range range, double *out)
{
    const yaml_node_t *value = find_value(sec, key);
    char what[64];
    return value ? number_value(sec->r, value, full_name(sec, key, what, sizeof what), range, out)
                 : 0;
}

/* A whole number >= 1 that fits an int64_t. */
static int get_count(const section *sec, const char *key, int64_t *out)
{
    const yaml_node_t *value = find_value(sec, key);
    if (!value) return 0;
    char what[64];
    uint64_t count = 0;
    if (whole_value(sec->r, value, full_name(sec, key, what, sizeof what), 1, INT64_MAX,
                    "a whole number >= 1", &count))
        return -1;
    *out = (int64_t)count;
    return 0;
}

/* A group's count: 1 to SCENARIO_MAX_BODIES. */
static int get_body_count(const section *sec, int64_t *out)
{
    const yaml_node_t *value = find_value(sec, "count");
    if (!value) return 0;
    char what[64], expect[96];
    snprintf(expect, sizeof expect, "a whole number from 1 to %d, the most bodies carom supports",
             SCENARIO_MAX_BODIES);
    uint64_t count = 0;
    if (whole_value(sec->r, value, full_name(sec, "count", what, sizeof what), 1,
                    SCENARIO_MAX_BODIES, expect, &count))
        return -1;
    *out = (int64_t)count;
    return 0;
}

static int get_text(const section *sec, const char *key, char **out)
{
    const yaml_node_t *value = find_value(sec, key);
    char what[64];
    return value ? text_value(sec->r, value, full_name(sec, key, what, sizeof what), out) : 0;
}

/* YAML's spellings of positive infinity (YAML 1.1 and 1.2 core schema). */
static int is_yaml_infinity(const char *text)
{
    const char *const words[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"};
    for (int k = 0; k < LENGTH(words); k++)
        if (!strcmp(text, words[k])) return 1;
    return 0;
}

/* A number in range, or .inf (INFINITY); mark (if not NULL) gets its place. */
static int get_number_or_infinity(const section *sec, const char *key, number_range range, double *out,
                                  scenario_mark *mark)
{
    const yaml_node_t *value = find_value(sec, key);
    if (!value) return 0;
    if (mark) *mark = mark_of(value);
    char what[64], expect[64];
    full_name(sec, key, what, sizeof what);
    snprintf(expect, sizeof expect, "%s, or .inf", range_text(range));
    const char *text = plain_text(sec->r, value, what, expect);
    if (!text) return -1;
    if (is_yaml_infinity(text)) return *out = INFINITY, 0;
    double number = 0.0;
    parse_result result = parse_double(text, &number);
    if (result == PARSED && !in_range(number, range)) result = OUT_OF_RANGE;
    if (result != PARSED) return fail_number(sec->r, value, what, result, expect);
    *out = number;
    return 0;
}

static void get_mark(const section *sec, const char *key, scenario_mark *out)
{
    const yaml_node_t *value = find_value(sec, key);
    if (value) *out = mark_of(value);
}

/* ---- world ----------------------------------------------------------------- */

static int read_dim(const section *world, scenario *s)
{
    const yaml_node_t *value = find_value(world, "dim");
    if (!value) return 0;
    s->dim_mark = mark_of(value);
    uint64_t dim = 3;
    if (whole_value(world->r, value, "world.dim", 2, 3, "2 or 3", &dim)) return -1;
    s->dim = (int)dim;
    return 0;
}

/* box: one side length (a square or cube) or a list of dim of them. */
static int read_box(const section *world, scenario *s)
{
    const yaml_node_t *value = find_value(world, "box");
    if (!value) return 0;
    s->box_mark = mark_of(value);
    s->has_box = 1;
    if (value->type == YAML_SCALAR_NODE) {
        if (number_value(world->r, value, "world.box", POSITIVE, &s->box[0])) return -1;
        s->box[1] = s->box[2] = s->box[0];
    } else {
        char expect[80];
        snprintf(expect, sizeof expect, "a list of %d numbers > 0, or one number for a %s", s->dim,
                 s->dim == 2 ? "square" : "cube");
        if (vector_value(world->r, value, "world.box", s->dim, POSITIVE, expect, s->box)) return -1;
    }
    if (s->dim == 2) s->box[2] = 1.0;
    return 0;
}

/* boundary: [a, b(, c)], one per axis. */
static int read_boundary_list(const section *world, const yaml_node_t *value, scenario *s)
{
    char expect[80];
    snprintf(expect, sizeof expect, "walls or periodic, or a list of %d of them", s->dim);
    if (value->type != YAML_SEQUENCE_NODE)
        return fail_kind(world->r, value, "world.boundary", expect);
    const yaml_node_item_t *items = value->data.sequence.items.start;
    long length = (long)(value->data.sequence.items.top - items);
    if (length != s->dim)
        return fail_at(world->r, mark_of(value), "world.boundary has %ld entries (expected %s)",
                       length, expect);
    const char *const names[] = {"walls", "periodic"}; /* in carom_boundary order */
    for (int a = 0; a < s->dim; a++) {
        const yaml_node_t *item = yaml_document_get_node(&world->r->doc, items[a]);
        int kind = 0;
        if (choice_value(world->r, item, "world.boundary", names, 2, "walls or periodic", &kind))
            return -1;
        s->boundary[a] = (carom_boundary)kind;
    }
    return 0;
}

/* boundary: walls | periodic for every axis, or a list. */
static int read_boundary(const section *world, scenario *s)
{
    const yaml_node_t *value = find_value(world, "boundary");
    if (!value) return 0;
    s->has_boundary = 1;
    s->boundary_mark = mark_of(value);
    if (value->type != YAML_SCALAR_NODE) return read_boundary_list(world, value, s);
    const char *const names[] = {"walls", "periodic"}; /* in carom_boundary order */
    int kind = 0;
    if (choice_value(world->r, value, "world.boundary", names, 2, "walls or periodic", &kind))
        return -1;
    for (int a = 0; a < 3; a++) s->boundary[a] = (carom_boundary)kind;
    return 0;
}

static int read_gravity(const section *world, scenario *s)
{
    const yaml_node_t *value = find_value(world, "gravity");
    if (!value) return 0;
    char expect[40];
    snprintf(expect, sizeof expect, "a list of %d numbers", s->dim);
    s->gravity[2] = 0.0;
    return vector_value(world->r, value, "world.gravity", s->dim, ANY_NUMBER, expect, s->gravity);
}

/* from/to of a sensor: dim - 1 numbers on the other axes (in 2D also one
 * number without a list). */
static int read_sensor_extent(const section *sensor, const char *key, int dim, double out[2],
                              scenario_mark *mark)
{
    const yaml_node_t *value = find_value(sensor, key);
    if (!value) return 0;
    *mark = mark_of(value);
    char what[64], expect[120];
    full_name(sensor, key, what, sizeof what);
    if (dim == 2 && value->type == YAML_SCALAR_NODE)
        return number_value(sensor->r, value, what, ANY_NUMBER, &out[0]);
    if (dim == 2)
        snprintf(expect, sizeof expect, "one number, or a list of 1 number: the extent on the other axis");
    else
        snprintf(expect, sizeof expect, "a list of 2 numbers, the extent on the other axes in order");
    return vector_value(sensor->r, value, what, dim - 1, ANY_NUMBER, expect, out);
}

/* {axis: x|y|z, at: X, from: .., to: ..}; at is required, from <= to. */
static int read_sensor(reader *r, const yaml_node_t *node, const char *name, int dim,
                       scenario_sensor *sensor)
{
    const char *const keys[] = {"axis", "at", "from", "to"};
    section sec;
    if (open_section(r, node, name, keys, LENGTH(keys), &sec)) return -1;
    *sensor = (scenario_sensor){0, 0.0, {-INFINITY, -INFINITY}, {INFINITY, INFINITY},
                                mark_of(node), mark_of(node), mark_of(node), mark_of(node)};
    const yaml_node_t *axis = find_value(&sec, "axis"), *at = find_value(&sec, "at");
    const char *const names[] = {"x", "y", "z"};
    char what[64];
    if (!axis || !at)
        return fail_at(r, mark_of(node), "%s has no %s (expected axis: x, y%s and at: the plane's "
                       "coordinate)", name, axis ? "at" : "axis", dim == 3 ? " or z" : "");
    if (choice_value(r, axis, full_name(&sec, "axis", what, sizeof what), names, dim,
                     dim == 3 ? "x, y or z" : "x or y in 2D", &sensor->axis))
        return -1;
    sensor->at_mark = mark_of(at);
    if (get_number(&sec, "at", ANY_NUMBER, &sensor->at) ||
        read_sensor_extent(&sec, "from", dim, sensor->from, &sensor->from_mark) ||
        read_sensor_extent(&sec, "to", dim, sensor->to, &sensor->to_mark))
        return -1;
    for (int k = 0; k < dim - 1; k++)
        if (!(sensor->from[k] <= sensor->to[k]))
            return fail_at(r, sensor->from_mark, "%s.from %.17g is beyond to %.17g (expected from <= to)",
                           name, sensor->from[k], sensor->to[k]);
    return 0;
}

/* sensors: a list of sensors (see scenario_sensor). */
static int read_sensors(const section *world, scenario *s)
{
    const yaml_node_t *value = find_value(world, "sensors");
    if (!value) return 0;
    const char *expect = "a list of sensors {axis: x|y|z, at: X, from: [..], to: [..]}";
    if (value->type != YAML_SEQUENCE_NODE) return fail_kind(world->r, value, "world.sensors", expect);
    const yaml_node_item_t *items = value->data.sequence.items.start;
    long count = (long)(value->data.sequence.items.top - items);
    if (count > INT_MAX / 2) return out_of_memory(world->r);
    if (count == 0) return 0;
    if (!(s->sensors = calloc((size_t)count, sizeof *s->sensors))) return out_of_memory(world->r);
    s->sensor_count = (int)count;
    for (int k = 0; k < s->sensor_count; k++) {
        char name[40];
        snprintf(name, sizeof name, "world.sensors[%d]", k);
        if (read_sensor(world->r, yaml_document_get_node(&world->r->doc, items[k]), name, s->dim,
                        &s->sensors[k]))
            return -1;
    }
    return 0;
}

/* container: the world's boundary (shape.c), walls on every axis. */
static int read_container(const section *world, scenario *s)
{
    const yaml_node_t *value = find_value(world, "container");
    if (!value) return 0;
    s->container_mark = mark_of(value);
    if (s->has_boundary)
        for (int a = 0; a < s->dim; a++)
            if (s->boundary[a] != CAROM_WALLS)
                return fail_at(world->r, s->boundary_mark,
                               "world.boundary is periodic along %c, but world.container bounds the world "
                               "(expected walls on every axis, or no boundary: with a container)",
                               "xyz"[a]);
    for (int a = 0; a < 3; a++) s->boundary[a] = CAROM_WALLS;
    return shape_read(&world->r->doc, value, world->r->path, s->dim, &s->container, world->r->error,
                      world->r->error_size);
}

static int read_world(reader *r, const yaml_node_t *node, scenario *s)
{
    const char *const keys[] = {"dim",
                                "box",
                                "boundary",
                                "gravity",
                                "restitution",
                                "wall_restitution",
                                "elastic_below_speed",
                                "collapse_time",
                                "neighbour_shell",
                                "sensors",
                                "container",
                                "tangential_restitution",
                                "wall_tangential_restitution",
                                "friction"};
    section world;
    if (open_section(r, node, "world", keys, LENGTH(keys), &world)) return -1;
    s->dim_mark = s->box_mark = mark_of(node);
    if (read_dim(&world, s) || read_box(&world, s) || read_boundary(&world, s) ||
        read_gravity(&world, s))
        return -1;
    if (get_number(&world, "restitution", CLOSED_UNIT, &s->restitution) ||
        get_number(&world, "wall_restitution", CLOSED_UNIT, &s->wall_restitution) ||
        get_number(&world, "elastic_below_speed", NON_NEGATIVE, &s->elastic_below_speed) ||
        get_number(&world, "collapse_time", ANY_NUMBER, &s->collapse_time) ||
        get_number(&world, "neighbour_shell", ANY_NUMBER, &s->neighbour_shell) ||
        get_number(&world, "tangential_restitution", SIGNED_UNIT, &s->tangential_restitution) ||
        get_number(&world, "wall_tangential_restitution", SIGNED_UNIT, &s->wall_tangential_restitution) ||
        get_number_or_infinity(&world, "friction", NON_NEGATIVE, &s->friction, NULL) ||
        read_sensors(&world, s) || read_container(&world, s))
        return -1;
    return 0;
}

/* ---- bodies ---------------------------------------------------------------- */

static scenario_group default_group(scenario_mark mark)
{
    scenario_group g = {0};
    g.mark = g.count_mark = g.packing_mark = g.file_mark = g.radius_mark = g.frame_mark = mark;
    g.mass_mark = mark;
    g.count = -1;
    g.radius = 0.5;
    g.mass = 1.0;
    g.place = PLACE_RANDOM;
    g.velocity = VELOCITY_TEMPERATURE;
    g.velocity_value = 1.0;
    g.steer_mark = mark;
    g.filter = carom_default_filter_def();
    g.shape_mark = g.orientation_mark = g.angular_velocity_mark = g.inertia_mark = mark;
    g.orientation = (carom_quat){0.0, 0.0, 0.0, 1.0};
    return g;
}

/* velocity: {temperature: T} or {speed: S}, exactly one key. */
static int read_velocity(const section *group, scenario_group *g)
{
    const yaml_node_t *value = find_value(group, "velocity");
    if (!value) return 0;
    const char *const keys[] = {"temperature", "speed"}; /* in scenario_velocity order */
    char name[48];
    full_name(group, "velocity", name, sizeof name);
    section velocity;
    if (open_section(group->r, value, name, keys, 2, &velocity)) return -1;
    long count = (long)(value->data.mapping.pairs.top - value->data.mapping.pairs.start);
    if (count != 1)
        return fail_at(group->r, mark_of(value),
                       "%s has %ld keys (expected exactly one: temperature or speed)", name, count);
    g->velocity = find_value(&velocity, "speed") ? VELOCITY_SPEED : VELOCITY_TEMPERATURE;
    return get_number(&velocity, keys[g->velocity], NON_NEGATIVE, &g->velocity_value);
}

static int read_place(const section *group, scenario_group *g)
{
    const yaml_node_t *value = find_value(group, "place");
    if (!value) return 0;
    const char *const names[] = {"random", "lattice"}; /* in scenario_place order */
    char what[48];
    int place = 0;
    if (choice_value(group->r, value, full_name(group, "place", what, sizeof what), names, 2,
                     "random or lattice", &place))
        return -1;
    g->place = (scenario_place)place;
    return 0;
}

/* steer: {law: L, max_acceleration: A, safety: S}, each key optional. */
static int read_steer(const section *group, scenario_group *g)
{
    const yaml_node_t *value = find_value(group, "steer");
    if (!value) return 0;
    g->steer_mark = mark_of(value);
    const char *const keys[] = {"law", "max_acceleration", "safety"};
    char name[48], what[64];
    full_name(group, "steer", name, sizeof name);
    section steer;
    if (open_section(group->r, value, name, keys, LENGTH(keys), &steer)) return -1;
    g->steered = 1;
    const char *const laws[] = {"off", "naive", "linear", "quadratic", "directional", "backup"}; /* carom_filter_law order */
    const yaml_node_t *law = find_value(&steer, "law");
    int chosen = (int)g->filter.law;
    if (law && choice_value(group->r, law, full_name(&steer, "law", what, sizeof what), laws, LENGTH(laws),
                            "off, naive, linear, quadratic, directional or backup", &chosen))
        return -1;
    g->filter.law = (carom_filter_law)chosen;
    if (get_number(&steer, "max_acceleration", POSITIVE, &g->filter.max_acceleration)) return -1;
    const yaml_node_t *safety = find_value(&steer, "safety");
    if (safety && (number_value(group->r, safety, full_name(&steer, "safety", what, sizeof what), NON_NEGATIVE,
                                &g->filter.safety) ||
                   (g->filter.safety >= 1.0 &&
                    fail_at(group->r, mark_of(safety), "%s = %.17g is out of range (expected a number in [0, 1))",
                            what, g->filter.safety))))
        return -1;
    if (isinf(g->mass))
        return fail_at(group->r, g->steer_mark,
                       "%s is for free bodies, but the group is kinematic (mass .inf) (expected a finite mass "
                       "with steer:)",
                       name);
    return 0;
}

/* place, velocity and packing_fraction are for generated bodies only. */
static int check_file_group(const section *group)
{
    const char *const generated_only[] = {"place", "velocity", "packing_fraction", "orientation",
                                          "angular_velocity"};
    for (int k = 0; k < LENGTH(generated_only); k++) {
        const yaml_node_t *key = find_key(group, generated_only[k]);
        if (key)
            return fail_at(group->r, mark_of(key),
                           "%s.%s does not apply to bodies read from a "
                           "file (expected it only with count; a file's columns give its bodies' velocities, "
                           "orientations and spins)",
                           group->name, generated_only[k]);
    }
    return 0;
}

/* frame picks a frame of a file: a whole number, negative from the end. */
static int read_frame(const section *group, scenario_group *g)
{
    const yaml_node_t *value = find_value(group, "frame");
    if (!value) return 0;
    char what[48];
    full_name(group, "frame", what, sizeof what);
    const char *expect = "a whole number: 0 the first frame, 1 the second, -1 the last";
    const char *text = plain_text(group->r, value, what, expect);
    if (!text) return -1;
    double v = 0.0;
    parse_result result = parse_double(text, &v);
    if (result == PARSED && v != floor(v)) result = NOT_WHOLE;
    if (result == PARSED && fabs(v) > 1e15) result = OUT_OF_RANGE;
    if (result != PARSED) return fail_number(group->r, value, what, result, expect);
    g->frame = (int64_t)v;
    return 0;
}

/* name is the species written for the group's bodies. */
static int read_name(const section *group, scenario_group *g)
{
    const yaml_node_t *value = find_value(group, "name");
    if (!value) return 0;
    char what[48];
    full_name(group, "name", what, sizeof what);
    if (text_value(group->r, value, what, &g->name)) return -1;
    if (!xyz_species_valid(g->name)) {
        char text[48];
        shown(g->name, text, sizeof text);
        return fail_at(group->r, mark_of(value),
                       "%s '%s' is not a species name (expected 1 to %d letters, digits, _, -, + "
                       "or .; a chemical symbol such as Ar if ASE is to read the trajectory)",
                       what, text, XYZ_SPECIES_MAX);
    }
    return 0;
}

/* mass: a finite number > 0, or .inf for kinematic bodies. */
static int read_mass(const section *group, scenario_group *g)
{
    const yaml_node_t *value = find_value(group, "mass");
    if (!value) return 0;
    g->mass_mark = mark_of(value);
    char what[48];
    full_name(group, "mass", what, sizeof what);
    const char *expect = "a finite number > 0, or .inf for kinematic bodies";
    const char *text = plain_text(group->r, value, what, expect);
    if (!text) return -1;
    if (is_yaml_infinity(text)) {
        g->mass = INFINITY;
        return 0;
    }
    double mass = 0.0;
    parse_result result = parse_double(text, &mass);
    if (result == PARSED && !(mass > 0.0)) result = OUT_OF_RANGE;
    if (result != PARSED) return fail_number(group->r, value, what, result, expect);
    g->mass = mass;
    return 0;
}

/* acceleration: the bodies' own, dim numbers. */
static int read_acceleration(const section *group, int dim, scenario_group *g)
{
    const yaml_node_t *value = find_value(group, "acceleration");
    if (!value) return 0;
    char what[48], expect[64];
    full_name(group, "acceleration", what, sizeof what);
    snprintf(expect, sizeof expect, "a list of %d numbers, [ax, ay%s]", dim, dim == 3 ? ", az" : "");
    return vector_value(group->r, value, what, dim, ANY_NUMBER, expect, g->acceleration);
}

/* Generated kinematic bodies take a speed: a temperature needs a mass. */
static int check_kinematic_group(const section *group, const scenario_group *g)
{
    if (!isinf(g->mass) || g->file || g->velocity != VELOCITY_TEMPERATURE) return 0;
    return fail_at(group->r, g->mass_mark,
                   "%s.mass is .inf (kinematic bodies) with velocities drawn at a temperature, which "
                   "needs a finite mass (expected velocity: {speed: S} with mass .inf)",
                   group->name);
}

/* A group makes bodies from count, or reads them from file. */
static int check_group_source(const section *group, const scenario_group *g)
{
    const reader *r = group->r;
    const char *either = "count: N to generate bodies, or file: PATH to read them";
    if (g->count >= 0 && g->file)
        return fail_at(r, g->mark, "%s has both count and file (expected one of them: %s)",
                       group->name, either);
    if (g->file) return check_file_group(group);
    const yaml_node_t *frame = find_key(group, "frame");
    if (frame)
        return fail_at(r, mark_of(frame),
                       "%s.frame applies to bodies read from a file (expected it only with file)",
                       group->name);
    if (g->count >= 0) return 0;
    if (find_key(group, "packing_fraction"))
        return fail_at(r, g->mark,
                       "%s has packing_fraction but no count (expected count: N with "
                       "packing_fraction)",
                       group->name);
    return fail_at(r, g->mark, "%s has neither count nor file (expected %s)", group->name, either);
}

/* ---- spin and shape (issue 14) ------------------------------------------------ */

#define SCENARIO_PI 3.14159265358979323846

/* Vertices of a shape as read, before the core's check. */
typedef struct vertex_list {
    int count;
    double xy[CAROM_POLYGON_MAX_VERTICES][2];
    const yaml_node_t *at[CAROM_POLYGON_MAX_VERTICES]; /* each vertex's node (NULL: built, not written) */
} vertex_list;

/* polygon: [[x, y], ...], 3 to CAROM_POLYGON_MAX_VERTICES of them. */
static int read_polygon_vertices(reader *r, const yaml_node_t *node, const char *name, vertex_list *v)
{
    char expect[96];
    snprintf(expect, sizeof expect, "a list of 3 to %d vertices [x, y]", CAROM_POLYGON_MAX_VERTICES);
    if (node->type != YAML_SEQUENCE_NODE) return fail_kind(r, node, name, expect);
    const yaml_node_item_t *items = node->data.sequence.items.start;
    long count = (long)(node->data.sequence.items.top - items);
    if (count < 3 || count > CAROM_POLYGON_MAX_VERTICES)
        return fail_at(r, mark_of(node), "%s has %ld vertices (expected %s)", name, count, expect);
    v->count = (int)count;
    for (int k = 0; k < v->count; k++) {
        char what[80];
        snprintf(what, sizeof what, "%s[%d]", name, k);
        v->at[k] = yaml_document_get_node(&r->doc, items[k]);
        if (vector_value(r, v->at[k], what, 2, ANY_NUMBER, "a vertex [x, y] of two numbers", v->xy[k]))
            return -1;
    }
    return 0;
}

/* box: [w, h], centred on the origin. */
static int read_box_shape(reader *r, const yaml_node_t *node, const char *name, vertex_list *v)
{
    double size[2];
    if (vector_value(r, node, name, 2, POSITIVE, "a list of 2 numbers > 0, [width, height]", size)) return -1;
    const double corner[4][2] = {{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {-0.5, 0.5}};
    v->count = 4;
    for (int k = 0; k < 4; k++) v->xy[k][0] = corner[k][0] * size[0], v->xy[k][1] = corner[k][1] * size[1];
    return 0;
}

/* regular: {sides: n, radius: r}: vertices on the circle of radius r, one
 * edge at the bottom parallel to x (vertex k at angle -pi/2 - pi/n + 2 pi k/n,
 * the convention of the core's polygon_regular). */
static int read_regular_shape(reader *r, const yaml_node_t *node, const char *name, vertex_list *v)
{
    const char *const keys[] = {"sides", "radius"};
    section sec;
    if (open_section(r, node, name, keys, LENGTH(keys), &sec)) return -1;
    const yaml_node_t *sides_node = find_value(&sec, "sides"), *radius_node = find_value(&sec, "radius");
    if (!sides_node || !radius_node)
        return fail_at(r, mark_of(node), "%s has no %s (expected {sides: N, radius: R})", name,
                       sides_node ? "radius" : "sides");
    char what[80], expect[64];
    snprintf(expect, sizeof expect, "a whole number from 3 to %d", CAROM_POLYGON_MAX_VERTICES);
    uint64_t sides = 0;
    double radius = 0.0;
    if (whole_value(r, sides_node, full_name(&sec, "sides", what, sizeof what), 3, CAROM_POLYGON_MAX_VERTICES,
                    expect, &sides) ||
        get_number(&sec, "radius", POSITIVE, &radius))
        return -1;
    v->count = (int)sides;
    for (int k = 0; k < v->count; k++) {
        double angle = -SCENARIO_PI / 2 - SCENARIO_PI / v->count + 2 * SCENARIO_PI * k / v->count;
        v->xy[k][0] = radius * cos(angle);
        v->xy[k][1] = radius * sin(angle);
    }
    return 0;
}

/* The node a core message about "vertex K" points at, else fallback. */
static const yaml_node_t *vertex_node(const vertex_list *v, const char *message, const yaml_node_t *fallback)
{
    const char *at = strstr(message, "vertex ");
    int k = -1;
    if (at && sscanf(at + 7, "%d", &k) == 1 && k >= 0 && k < v->count && v->at[k]) return v->at[k];
    return fallback;
}

/* The core's own check of a polygon (convex, not self-intersecting, no
 * repeated vertex, area > 0), made by adding it to a one-body world, so the
 * reader reports it at the shape (or at the vertex the core names); the
 * world gives the bounding radius about the centroid. */
static int check_polygon(reader *r, const yaml_node_t *node, const char *name, const vertex_list *v,
                         scenario_group *g)
{
    double reach = 0.0, twice_area = 0.0;
    for (int k = 0; k < v->count; k++) {
        const double *p = v->xy[k], *q = v->xy[(k + 1) % v->count];
        reach = fmax(reach, fmax(fabs(p[0]), fabs(p[1])));
        twice_area += p[0] * q[1] - q[0] * p[1];
    }
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){8.0 * reach + 1.0, 8.0 * reach + 1.0, 1.0};
    for (int a = 0; a < 3; a++) def.boundary[a] = CAROM_WALLS;
    carom_body_def body = carom_default_body_def();
    carom_vec2 vertices[CAROM_POLYGON_MAX_VERTICES];
    for (int k = 0; k < v->count; k++) vertices[k] = (carom_vec2){v->xy[k][0], v->xy[k][1]};
    body.polygon_vertices = v->count;
    body.polygon = vertices;
    carom_world *w = NULL;
    char why[256] = "";
    int status = 0;
    if (carom_world_create(&def, &w, why, sizeof why) != CAROM_OK) {
        status = fail_at(r, mark_of(node), "%s: %s (expected a polygon of a size carom supports)", name, why);
    } else if (carom_world_add_body(w, &body, NULL) != CAROM_OK) {
        const char *message = carom_world_message(w), *prefix = "body 0: polygon: ";
        if (!strncmp(message, prefix, strlen(prefix))) message += strlen(prefix);
        status = fail_at(r, mark_of(vertex_node(v, message, node)),
                         "%s: the polygon is refused: %s (expected a convex polygon, each vertex once, of "
                         "non-zero area)",
                         name, message);
    } else {
        carom_body_state state;
        carom_world_get_body(w, 0, &state);
        g->bounding_radius = state.radius;
        g->polygon_area = 0.5 * fabs(twice_area);
    }
    carom_world_destroy(w);
    return status;
}

/* shape: {polygon: ..} | {box: ..} | {regular: ..}, 2D only. */
static int read_shape(const section *group, int dim, scenario_group *g)
{
    reader *r = group->r;
    const yaml_node_t *value = find_value(group, "shape");
    if (!value) return 0;
    g->shape_mark = mark_of(value);
    char name[48], what[64];
    full_name(group, "shape", name, sizeof name);
    if (dim != 2)
        return fail_at(r, g->shape_mark,
                       "%s: polygons are 2D shapes, but this world is 3D (expected no shape: with world.dim 3, "
                       "where bodies are spheres of radius; or world.dim: 2)",
                       name);
    const char *const keys[] = {"polygon", "box", "regular"};
    section shape;
    if (open_section(r, value, name, keys, LENGTH(keys), &shape)) return -1;
    long count = (long)(value->data.mapping.pairs.top - value->data.mapping.pairs.start);
    if (count != 1)
        return fail_at(r, g->shape_mark, "%s has %ld keys (expected exactly one: polygon, box or regular)", name,
                       count);
    const yaml_node_pair_t *pair = value->data.mapping.pairs.start;
    const char *kind = key_text(&shape, pair);
    const yaml_node_t *node = yaml_document_get_node(&r->doc, pair->value);
    full_name(&shape, kind, what, sizeof what);
    vertex_list v;
    memset(&v, 0, sizeof v);
    int st = !strcmp(kind, "polygon") ? read_polygon_vertices(r, node, what, &v)
             : !strcmp(kind, "box")   ? read_box_shape(r, node, what, &v)
                                      : read_regular_shape(r, node, what, &v);
    if (st || check_polygon(r, node, what, &v, g)) return -1;
    if (!(g->polygon = malloc((size_t)v.count * sizeof *g->polygon))) return out_of_memory(r);
    for (int k = 0; k < v.count; k++) g->polygon[k] = (carom_vec2){v.xy[k][0], v.xy[k][1]};
    g->polygon_vertices = v.count;
    return 0;
}

/* orientation: 2D an angle, 3D a unit quaternion [x, y, z, w]; or random. */
static int read_orientation(const section *group, int dim, scenario_group *g)
{
    reader *r = group->r;
    const yaml_node_t *value = find_value(group, "orientation");
    if (!value) return 0;
    g->orientation_mark = mark_of(value);
    char what[64];
    full_name(group, "orientation", what, sizeof what);
    const char *expect = dim == 2 ? "an angle in radians, or random"
                                  : "a unit quaternion [x, y, z, w] (length 1 within 1e-6), or random";
    if (value->type == YAML_SCALAR_NODE && value->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
        !strcmp((const char *)value->data.scalar.value, "random"))
        return g->random_orientation = 1, 0;
    if (dim == 2) {
        if (value->type != YAML_SCALAR_NODE) return fail_kind(r, value, what, expect);
        const char *text = plain_text(r, value, what, expect);
        if (!text) return -1;
        parse_result result = parse_double(text, &g->angle);
        if (result == PARSED && !(fabs(g->angle) <= 1e15)) result = OUT_OF_RANGE;
        return result == PARSED ? 0 : fail_number(r, value, what, result, expect);
    }
    if (value->type != YAML_SEQUENCE_NODE) return fail_kind(r, value, what, expect);
    double q[4];
    if (vector_value(r, value, what, 4, ANY_NUMBER, expect, q)) return -1;
    double length = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(fabs(length - 1.0) <= 1e-6))
        return fail_at(r, g->orientation_mark, "%s has length %.17g (expected %s)", what, length, expect);
    g->orientation = (carom_quat){q[0], q[1], q[2], q[3]};
    return 0;
}

/* angular_velocity: 2D one number (about z), 3D [wx, wy, wz]. */
static int read_angular_velocity(const section *group, int dim, scenario_group *g)
{
    const yaml_node_t *value = find_value(group, "angular_velocity");
    if (!value) return 0;
    g->angular_velocity_mark = mark_of(value);
    char what[64];
    full_name(group, "angular_velocity", what, sizeof what);
    if (dim == 3)
        return vector_value(group->r, value, what, 3, ANY_NUMBER, "a list of 3 numbers [wx, wy, wz] (rad/T)",
                            g->angular_velocity);
    if (value->type != YAML_SCALAR_NODE)
        return fail_kind(group->r, value, what, "one number in 2D, the angular velocity about z (rad/T)");
    return number_value(group->r, value, what, ANY_NUMBER, &g->angular_velocity[2]);
}

static int read_spin(const section *group, int dim, scenario_group *g)
{
    return read_shape(group, dim, g) || read_orientation(group, dim, g) ||
           read_angular_velocity(group, dim, g) ||
           get_number_or_infinity(group, "inertia", POSITIVE, &g->inertia, &g->inertia_mark);
}

static int read_group(reader *r, const yaml_node_t *node, const char *name, int dim,
                      scenario_group *g)
{
    const char *const keys[] = {"count",    "file",     "radius",           "mass",
                                "place",    "velocity", "packing_fraction", "name",
                                "frame",    "acceleration", "steer",
                                "shape",    "orientation",  "angular_velocity", "inertia"};
    section group;
    if (open_section(r, node, name, keys, LENGTH(keys), &group)) return -1;
    get_mark(&group, "count", &g->count_mark);
    get_mark(&group, "file", &g->file_mark);
    get_mark(&group, "radius", &g->radius_mark);
    get_mark(&group, "packing_fraction", &g->packing_mark);
    get_mark(&group, "frame", &g->frame_mark);
    if (get_body_count(&group, &g->count) || get_text(&group, "file", &g->file) ||
        get_number(&group, "radius", POSITIVE, &g->radius) ||
        read_mass(&group, g) || read_acceleration(&group, dim, g) ||
        get_number(&group, "packing_fraction", OPEN_UNIT, &g->packing_fraction) ||
        read_place(&group, g) || read_velocity(&group, g) || read_frame(&group, g) ||
        read_name(&group, g) || read_steer(&group, g) || read_spin(&group, dim, g))
        return -1;
    if (check_group_source(&group, g) || check_kinematic_group(&group, g)) return -1;
    if (g->file && !(g->file_resolved = resolve_path(r->path, g->file))) return out_of_memory(r);
    return 0;
}

/* The generated groups together stay within SCENARIO_MAX_BODIES. */
static int check_total_count(const reader *r, const scenario *s)
{
    int64_t total = 0;
    for (int k = 0; k < s->group_count; k++) {
        const scenario_group *g = &s->groups[k];
        if (g->count <= 0) continue;
        total += g->count; /* each <= SCENARIO_MAX_BODIES: no overflow for any group count */
        if (total > SCENARIO_MAX_BODIES)
            return fail_at(r, g->count_mark,
                           "bodies[%d].count = %lld brings the bodies to %lld, more than carom "
                           "supports (expected at most %d bodies in all groups)",
                           k, (long long)g->count, (long long)total, SCENARIO_MAX_BODIES);
    }
    return 0;
}

static int read_bodies(reader *r, const yaml_node_t *node, scenario *s)
{
    const char *expect = "a list of groups, each with count or file";
    s->bodies_mark = mark_of(node);
    if (node->type != YAML_SEQUENCE_NODE) return fail_kind(r, node, "bodies", expect);
    const yaml_node_item_t *items = node->data.sequence.items.start;
    long count = (long)(node->data.sequence.items.top - items);
    if (count == 0)
        return fail_at(r, mark_of(node), "bodies is an empty list (expected %s)", expect);
    if (count > INT_MAX) return out_of_memory(r);
    s->groups = calloc((size_t)count, sizeof *s->groups);
    if (!s->groups) return out_of_memory(r);
    s->group_count = (int)count;
    for (int k = 0; k < s->group_count; k++) {
        const yaml_node_t *item = yaml_document_get_node(&r->doc, items[k]);
        s->groups[k] = default_group(mark_of(item));
    }
    for (int k = 0; k < s->group_count; k++) {
        char name[32];
        snprintf(name, sizeof name, "bodies[%d]", k);
        if (read_group(r, yaml_document_get_node(&r->doc, items[k]), name, s->dim, &s->groups[k]))
            return -1;
    }
    return check_total_count(r, s);
}

/* ---- run and output -------------------------------------------------------- */

static int read_compress(const section *run, scenario *s)
{
    const yaml_node_t *node = find_value(run, "compress");
    if (!node) return 0;
    const char *const keys[] = {"to", "rate", "pressure", "temperature"};
    scenario_compress *c = &s->compress;
    section sec;
    c->mark = mark_of(node);
    if (open_section(run->r, node, "run.compress", keys, LENGTH(keys), &sec)) return -1;
    c->active = 1, c->max_pressure = 1e4, c->temperature = 1.0;
    if (get_number(&sec, "to", OPEN_UNIT, &c->to) || get_number(&sec, "rate", POSITIVE, &c->rate) ||
        get_number(&sec, "pressure", POSITIVE, &c->max_pressure) ||
        get_number(&sec, "temperature", POSITIVE, &c->temperature))
        return -1;
    if (!(c->rate > 0))
        return fail_at(run->r, c->mark, "run.compress needs rate (expected compress: {rate: R, to: PHI}, R > 0)");
    if (!(c->max_pressure > 1))
        return fail_at(run->r, c->mark, "run.compress.pressure = %g (expected more than 1, the ideal gas)",
                       c->max_pressure);
    return 0;
}

static int read_run(reader *r, const yaml_node_t *node, scenario *s)
{
    const char *const keys[] = {"until", "events", "equilibrate", "window", "controls", "compress"};
    section run;
    if (open_section(r, node, "run", keys, LENGTH(keys), &run)) return -1;
    if (read_compress(&run, s)) return -1;
    get_mark(&run, "controls", &s->controls_mark);
    get_mark(&run, "window", &s->window_mark);
    scenario_mark equilibrate_mark = {0, 0};
    get_mark(&run, "equilibrate", &equilibrate_mark);
    if (get_number(&run, "until", POSITIVE, &s->until) || get_count(&run, "events", &s->events) ||
        get_number(&run, "equilibrate", POSITIVE, &s->equilibrate) ||
        get_number(&run, "window", POSITIVE, &s->window) || get_text(&run, "controls", &s->controls))
        return -1;
    if (s->equilibrate > 0.0 && !(s->equilibrate < s->until)) /* --until may move the end: runner.c checks again */
        return fail_at(r, equilibrate_mark, "run.equilibrate %.17g is not before run.until %.17g (expected the "
                       "measuring window to start before the run ends)", s->equilibrate, s->until);
    if (s->controls && !(s->window > 0.0))
        return fail_at(r, s->controls_mark,
                       "run.controls is applied at window starts, but run has no window (expected "
                       "run.window: DT with run.controls)");
    if (s->controls && !(s->controls_resolved = resolve_path(r->path, s->controls)))
        return out_of_memory(r);
    return 0;
}

/* An output's file name; an empty value (`stats: ""`, or nothing after the
 * colon) turns the output off. */
static int get_output(const section *sec, const char *key, char **out)
{
    const yaml_node_t *value = find_value(sec, key);
    if (value && value->type == YAML_SCALAR_NODE && value->data.scalar.length == 0) return 0;
    return get_text(sec, key, out);
}

static int read_output(reader *r, const yaml_node_t *node, scenario *s)
{
    const char *const keys[] = {"trajectory", "every",      "events",
                                "stats",      "checkpoint", "checkpoint_every"};
    section output;
    if (open_section(r, node, "output", keys, LENGTH(keys), &output)) return -1;
    s->has_every = find_value(&output, "every") != NULL;
    get_mark(&output, "every", &s->every_mark);
    get_mark(&output, "checkpoint_every", &s->checkpoint_every_mark);
    if (get_output(&output, "trajectory", &s->trajectory) ||
        get_number(&output, "every", POSITIVE, &s->every) ||
        get_output(&output, "events", &s->events_log) || get_output(&output, "stats", &s->stats) ||
        get_output(&output, "checkpoint", &s->checkpoint) ||
        get_number(&output, "checkpoint_every", POSITIVE, &s->checkpoint_every))
        return -1;
    return 0;
}

/* ---- analysis ---------------------------------------------------------------- */

/* A whole number from low to high under sec's key (absent: *out untouched). */
static int get_whole(const section *sec, const char *key, uint64_t low, uint64_t high, int64_t *out)
{
    const yaml_node_t *value = find_value(sec, key);
    if (!value) return 0;
    char what[64], expect[64];
    snprintf(expect, sizeof expect, "a whole number from %llu to %llu", (unsigned long long)low,
             (unsigned long long)high);
    uint64_t got = 0;
    if (whole_value(sec->r, value, full_name(sec, key, what, sizeof what), low, high, expect, &got)) return -1;
    *out = (int64_t)got;
    return 0;
}

/* One observable's mapping under analysis (absent: off, *mark untouched). */
static int open_observable(const section *analysis, const char *key, const char *name, const char *const keys[],
                           int count, section *out, scenario_mark *mark)
{
    const yaml_node_t *value = find_value(analysis, key);
    if (!value) return 1;
    *mark = mark_of(value);
    return open_section(analysis->r, value, name, keys, count, out) ? -1 : 0;
}

static int read_observables(const section *sec, scenario_analysis *a)
{
    const char *const rdf_keys[] = {"max", "bins"}, *const sk_keys[] = {"max"}, *const msd_keys[] = {"lags"},
                      *const flight_keys[] = {"bins"};
    section part;
    int st = open_observable(sec, "rdf", "analysis.rdf", rdf_keys, LENGTH(rdf_keys), &part, &a->rdf_mark);
    if (st < 0) return -1;
    a->rdf_bins = 200;
    if (st == 0 && (get_number(&part, "max", POSITIVE, &a->rdf_max) || get_whole(&part, "bins", 1, 100000, &a->rdf_bins)))
        return -1;
    if (st == 0 && !(a->rdf_max > 0))
        return fail_at(sec->r, a->rdf_mark, "analysis.rdf needs max (expected rdf: {max: R}, R > 0)");
    if ((st = open_observable(sec, "structure_factor", "analysis.structure_factor", sk_keys, LENGTH(sk_keys), &part, &a->sk_mark)) < 0) return -1;
    if (st == 0 && get_number(&part, "max", POSITIVE, &a->sk_max)) return -1;
    if (st == 0 && !(a->sk_max > 0))
        return fail_at(sec->r, a->sk_mark, "analysis.structure_factor needs max (expected structure_factor: {max: K})");
    if ((st = open_observable(sec, "msd", "analysis.msd", msd_keys, LENGTH(msd_keys), &part, &a->msd_mark)) < 0) return -1;
    if (st == 0 && (a->msd_lags = 50, get_whole(&part, "lags", 1, 100000, &a->msd_lags) != 0)) return -1;
    if ((st = open_observable(sec, "flights", "analysis.flights", flight_keys, LENGTH(flight_keys), &part, &a->flights_mark)) < 0)
        return -1;
    if (st == 0 && (a->flight_bins = 60, get_whole(&part, "bins", 1, 100000, &a->flight_bins) != 0)) return -1;
    return 0;
}

static int read_analysis(reader *r, const yaml_node_t *node, scenario *s)
{
    const char *const keys[] = {"output", "every", "start", "rdf", "structure_factor", "msd", "flights"};
    scenario_analysis *a = &s->analysis;
    section sec;
    a->mark = mark_of(node);
    if (open_section(r, node, "analysis", keys, LENGTH(keys), &sec)) return -1;
    a->active = 1;
    a->start = NAN;
    get_mark(&sec, "output", &a->output_mark);
    get_mark(&sec, "every", &a->every_mark);
    get_mark(&sec, "start", &a->start_mark);
    if (get_text(&sec, "output", &a->output) || get_number(&sec, "every", POSITIVE, &a->every) ||
        get_number(&sec, "start", NON_NEGATIVE, &a->start) || read_observables(&sec, a))
        return -1;
    if (!a->output || !a->output[0])
        return fail_at(r, a->mark, "analysis needs output (expected output: PREFIX, the files' common prefix)");
    if (!(a->rdf_max > 0 || a->sk_max > 0 || a->msd_lags > 0 || a->flight_bins > 0))
        return fail_at(r, a->mark, "analysis measures nothing (expected at least one of rdf, structure_factor, "
                       "msd, flights)");
    return 0;
}

/* ---- thermostat ---------------------------------------------------------------- */

/* One kind's mapping with its two required positive numbers. */
static int read_thermostat_kind(const section *sec, const char *kind, const char *name, const char *first,
                                double *a, const char *second, double *b)
{
    const char *const keys[] = {first, second};
    section part;
    const yaml_node_t *node = find_value(sec, kind);
    if (open_section(sec->r, node, name, keys, LENGTH(keys), &part)) return -1;
    *a = NAN, *b = NAN;
    if (get_number(&part, first, POSITIVE, a) || get_number(&part, second, POSITIVE, b)) return -1;
    if (isnan(*a) || isnan(*b))
        return fail_at(sec->r, mark_of(node), "%s needs %s and %s (expected {%s: X, %s: Y}, both > 0)", name,
                       first, second, first, second);
    return 0;
}

static int read_thermostat(reader *r, const yaml_node_t *node, scenario *s)
{
    const char *const keys[] = {"andersen", "rescale", "drive"};
    thermostat *t = &s->thermostat;
    section sec;
    s->thermostat_mark = mark_of(node);
    if (open_section(r, node, "thermostat", keys, LENGTH(keys), &sec)) return -1;
    int given = 0;
    for (int k = 0; k < LENGTH(keys); k++) given += find_value(&sec, keys[k]) != NULL;
    if (given != 1)
        return fail_at(r, mark_of(node), "thermostat has %d kinds (expected exactly one of andersen, rescale, "
                       "drive)", given);
    if (find_value(&sec, "andersen")) {
        t->kind = THERMOSTAT_ANDERSEN;
        return read_thermostat_kind(&sec, "andersen", "thermostat.andersen", "temperature", &t->temperature, "rate", &t->rate);
    }
    if (find_value(&sec, "rescale")) {
        t->kind = THERMOSTAT_RESCALE;
        return read_thermostat_kind(&sec, "rescale", "thermostat.rescale", "temperature", &t->temperature, "every", &t->every);
    }
    t->kind = THERMOSTAT_DRIVE;
    return read_thermostat_kind(&sec, "drive", "thermostat.drive", "kick", &t->kick, "rate", &t->rate);
}

/* ---- the whole file -------------------------------------------------------- */

/* Reads the section under key with read (if the key is there). */
static int read_part(const section *top, const char *key,
                     int (*read)(reader *, const yaml_node_t *, scenario *), scenario *s)
{
    const yaml_node_t *value = find_value(top, key);
    return value ? read(top->r, value, s) : 0;
}

static int read_seed(const section *top, scenario *s)
{
    const yaml_node_t *value = find_value(top, "seed");
    if (!value) return 0;
    return whole_value(top->r, value, "seed", 0, UINT64_MAX, "a whole number >= 0", &s->seed);
}

static int read_scenario(reader *r, scenario *s)
{
    const char *const keys[] = {"world", "seed", "bodies", "run", "output", "analysis", "thermostat"};
    const yaml_node_t *root = yaml_document_get_root_node(&r->doc);
    section top;
    if (open_section(r, root, "", keys, LENGTH(keys), &top)) return -1;
    if (!find_value(&top, "world"))
        return fail_at(r, mark_of(root), "world is missing (expected a world: mapping)");
    if (!find_value(&top, "bodies"))
        return fail_at(r, mark_of(root), "bodies is missing (expected a bodies: list of groups)");
    if (read_part(&top, "world", read_world, s) || read_seed(&top, s) ||
        read_part(&top, "bodies", read_bodies, s) || read_part(&top, "run", read_run, s) ||
        read_part(&top, "output", read_output, s) || read_part(&top, "analysis", read_analysis, s) ||
        read_part(&top, "thermostat", read_thermostat, s))
        return -1;
    if (!s->has_every) s->every = isinf(s->until) ? 1.0 : s->until / 100.0;
    return 0;
}

static int syntax_error(const reader *r, const yaml_parser_t *parser)
{
    scenario_mark at = {(int)parser->problem_mark.line + 1, (int)parser->problem_mark.column + 1};
    const char *problem = parser->problem ? parser->problem : "unknown problem";
    if (parser->error == YAML_MEMORY_ERROR) return out_of_memory(r);
    if (parser->error == YAML_READER_ERROR)
        return fail_at(r, at, "cannot read: %s (expected a readable UTF-8 text file)", problem);
    if (!parser->context) return fail_at(r, at, "invalid YAML: %s (expected valid YAML)", problem);
    return fail_at(r, at, "invalid YAML: %s (%s at line %d, column %d)", problem, parser->context,
                   (int)parser->context_mark.line + 1, (int)parser->context_mark.column + 1);
}

/* After the first document: nothing but the end of the stream. */
static int check_single_document(reader *r, yaml_parser_t *parser)
{
    yaml_document_t extra;
    if (!yaml_parser_load(parser, &extra)) return syntax_error(r, parser);
    const yaml_node_t *root = yaml_document_get_root_node(&extra);
    scenario_mark at = root ? mark_of(root) : (scenario_mark){0, 0};
    yaml_document_delete(&extra);
    if (root) return fail_at(r, at, "a second YAML document (expected one document per scenario)");
    return 0;
}

/* Loads the file's one document into r->doc; on failure nothing is left loaded. */
static int parse_document(reader *r, yaml_parser_t *parser)
{
    if (!yaml_parser_load(parser, &r->doc)) return syntax_error(r, parser);
    int status = 0;
    if (!yaml_document_get_root_node(&r->doc))
        status = fail_at(r, (scenario_mark){1, 1},
                         "the file is empty (expected a mapping with world: and bodies:)");
    else
        status = check_single_document(r, parser);
    if (status) yaml_document_delete(&r->doc);
    return status;
}

enum { FLOW_DEPTH_LIMIT = 256 };

/* libyaml's scanner takes time in proportion to the flow depth at every token,
 * so "[[[[..." a few hundred kilobytes deep would take minutes. A scenario
 * never nests deeper than a polygon's vertices, so the bytes are scanned for
 * the depth of [ and { (outside quotes and comments) as libyaml reads them,
 * before its scanner sees them, and reading stops where a file passes
 * FLOW_DEPTH_LIMIT. The file is read once, so a pipe serves as well. */
typedef struct depth_scan {
    FILE *file;
    int depth, line, col, quote, comment, previous;
    scenario_mark too_deep; /* line 0: not (yet) */
} depth_scan;

static int scan_byte(depth_scan *d, int c)
{
    int previous = d->previous;
    d->previous = c, d->col++;
    if (c == '\n') return d->line++, d->col = 0, d->comment = 0, 0;
    if (d->comment) return 0;
    if (d->quote) {
        if (c == d->quote && !(d->quote == '"' && previous == '\\')) d->quote = 0;
        return 0;
    }
    if ((c == '\'' || c == '"') && previous && strchr(" \t\n[{,:", previous)) d->quote = c;
    else if (c == '#' && (previous == ' ' || previous == '\t' || previous == '\n')) d->comment = 1;
    else if (c == '[' || c == '{') d->depth++;
    else if ((c == ']' || c == '}') && d->depth > 0) d->depth--;
    if (d->depth <= FLOW_DEPTH_LIMIT) return 0;
    d->too_deep = (scenario_mark){d->line, d->col};
    return -1;
}

/* libyaml's read handler: 1, or 0 on a read error or past the depth limit. */
static int read_scanned(void *data, unsigned char *buffer, size_t size, size_t *size_read)
{
    depth_scan *d = data;
    *size_read = fread(buffer, 1, size, d->file);
    if (ferror(d->file)) return 0;
    for (size_t k = 0; k < *size_read; k++)
        if (scan_byte(d, buffer[k]) != 0) return 0;
    return 1;
}

static int load_document(reader *r)
{
    depth_scan scan = {.file = fopen(r->path, "rb"), .line = 1, .previous = '\n'};
    if (!scan.file) return fail_at(r, (scenario_mark){1, 1}, "cannot open (%s)", strerror(errno));
    yaml_parser_t parser;
    int status = -1;
    if (!yaml_parser_initialize(&parser)) {
        out_of_memory(r);
    } else {
        yaml_parser_set_input(&parser, read_scanned, &scan);
        status = parse_document(r, &parser);
        yaml_parser_delete(&parser);
    }
    fclose(scan.file);
    if (status != 0 && scan.too_deep.line > 0)
        fail_at(r, scan.too_deep, "[ or { nested %d deep (expected at most %d)", scan.depth, FLOW_DEPTH_LIMIT);
    return status;
}

/* ---- the interface --------------------------------------------------------- */

void scenario_init(scenario *s)
{
    *s = (scenario){0};
    s->dim = 3;
    for (int a = 0; a < 3; a++) s->boundary[a] = CAROM_PERIODIC;
    s->restitution = 1.0;
    s->wall_restitution = 1.0;
    s->tangential_restitution = -1.0;
    s->wall_tangential_restitution = -1.0;
    s->seed = 1;
    s->until = INFINITY;
    s->events = -1;
    s->every = 1.0;
}

int scenario_load(const char *path, scenario *s, char *error, size_t error_size)
{
    reader r = {.path = path, .error = error, .error_size = error_size};
    if (error && error_size) error[0] = '\0';
    scenario_init(s);
    if (!(s->path = copy_text(path))) return out_of_memory(&r);
    int status = load_document(&r);
    if (status == 0) {
        status = read_scenario(&r, s);
        yaml_document_delete(&r.doc);
    }
    if (status) scenario_free(s);
    return status;
}

void scenario_free(scenario *s)
{
    for (int k = 0; k < s->group_count && s->groups; k++) {
        free(s->groups[k].file);
        free(s->groups[k].file_resolved);
        free(s->groups[k].name);
        free(s->groups[k].polygon);
    }
    free(s->groups);
    free(s->sensors);
    carom_container_destroy(s->container);
    char *texts[] = {s->path,       s->trajectory, s->events_log,       s->stats,
                     s->checkpoint, s->controls,   s->controls_resolved};
    for (int k = 0; k < LENGTH(texts); k++) free(texts[k]);
    free(s->analysis.output);
    scenario_init(s);
}
