/* xyz.c — extended XYZ frames, the convention of ASE and OVITO: a line with
 * the number of bodies N, a header line of key=value pairs (values may be
 * quoted with "..."), then N lines of whitespace-separated columns. The
 * header's Properties=name:type:count:... lists the columns (type S string,
 * R real, I integer, L logical; count how many columns the property takes),
 * Lattice="ax ay az bx by bz cx cy cz" gives the cell vectors and Time= the
 * frame's time.
 *
 * Writing: Lattice from the box (Lz = 1 in 2D), the fixed columns
 * species:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1, Time, and pbc per axis;
 * every number as "%.17g", which reads back to the same bits.
 *
 * Reading: the first frame only. A small tokenizer splits lines at blanks
 * and remembers each token's column; numbers go through strtod and must use
 * the whole token. Properties may come in any order, unknown columns are
 * skipped by their counts, and a header without Properties means the plain
 * XYZ columns species:S:1:pos:R:3. Every error names FILE:LINE:COL of the
 * token at fault (or of the place where one is missing). */
#define _POSIX_C_SOURCE 200809L
#include "xyz.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define XYZ_PROPERTIES "species:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1"
#define LATTICE_FORM "\"Lx 0 0 0 Ly 0 0 0 Lz\""
#define MAX_PROPERTY_COLUMNS 1000000

/* ---- writing ------------------------------------------------------------- */

static int write_header(FILE *out, int32_t count, double time, int dim, const double box[3],
                        const int periodic[3])
{
    char pbc[3];
    for (int a = 0; a < 3; a++) pbc[a] = a < dim && periodic[a] ? 'T' : 'F';
    double lz = dim == 3 ? box[2] : 1.0;
    int n = fprintf(out,
                    "%d\nLattice=\"%.17g 0.0 0.0 0.0 %.17g 0.0 0.0 0.0 %.17g\" "
                    "Properties=" XYZ_PROPERTIES " Time=%.17g pbc=\"%c %c %c\"\n",
                    (int)count, box[0], box[1], lz, time, pbc[0], pbc[1], pbc[2]);
    return n < 0 ? -1 : 0;
}

static int write_body(FILE *out, const carom_body_state *b, int dim)
{
    double z = dim == 3 ? b->position.z : 0.0, vz = dim == 3 ? b->velocity.z : 0.0;
    int n = fprintf(out, "B %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", b->position.x,
                    b->position.y, z, b->velocity.x, b->velocity.y, vz, b->radius, b->mass);
    return n < 0 ? -1 : 0;
}

int xyz_write_frame(FILE *out, const carom_world *world, int dim, const double box[3],
                    const int periodic[3])
{
    if (!out || !world || !box || !periodic) return -1;
    int32_t count = carom_world_body_count(world);
    if (write_header(out, count, carom_world_time(world), dim, box, periodic) != 0) return -1;
    for (int32_t i = 0; i < count; i++) {
        carom_body_state b;
        if (carom_world_get_body(world, i, &b) != CAROM_OK || write_body(out, &b, dim) != 0)
            return -1;
    }
    return ferror(out) ? -1 : 0;
}

/* ---- reading: lines, tokens, numbers --------------------------------------- */

typedef struct reader {
    FILE *file;
    const char *path;
    char *line; /* the current line, without its line end */
    size_t capacity;
    size_t length;
    int number; /* 1-based number of the current line */
    char *error;
    size_t error_size;
} reader;

/* A piece of the current line: its offset and length (column = at + 1). */
typedef struct token {
    size_t at, length;
} token;

static int fail(const reader *r, int line, size_t at, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Writes "FILE:LINE:COL: message" (COL = at + 1) and returns -1. */
static int fail(const reader *r, int line, size_t at, const char *format, ...)
{
    if (!r->error || r->error_size == 0) return -1;
    int n = snprintf(r->error, r->error_size, "%s:%d:%zu: ", r->path, line, at + 1);
    if (n >= 0 && (size_t)n < r->error_size) {
        va_list args;
        va_start(args, format);
        vsnprintf(r->error + n, r->error_size - (size_t)n, format, args);
        va_end(args);
    }
    return -1;
}

/* Reads the next line: 1, or 0 at the end of the file, or -1 on a read error. */
static int read_line(reader *r)
{
    errno = 0;
    ssize_t n = getline(&r->line, &r->capacity, r->file);
    if (n < 0) {
        if (ferror(r->file)) return fail(r, r->number + 1, 0, "cannot read (%s)", strerror(errno));
        return 0;
    }
    r->number++;
    while (n > 0 && (r->line[n - 1] == '\n' || r->line[n - 1] == '\r')) n--;
    r->line[n] = '\0';
    r->length = (size_t)n;
    return 1;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* The next blank-separated token of text[*at, end); 0 if none is left. */
static int next_token(const char *text, size_t end, size_t *at, token *t)
{
    size_t i = *at;
    while (i < end && is_blank(text[i])) i++;
    if (i >= end) {
        *at = end;
        return 0;
    }
    size_t start = i;
    while (i < end && !is_blank(text[i])) i++;
    *t = (token){start, i - start};
    *at = i;
    return 1;
}

/* The next ':'-separated field of text[*at, end); 0 once past the end. */
static int next_field(const char *text, size_t end, size_t *at, token *f)
{
    if (*at > end) return 0;
    size_t i = *at;
    while (i < end && text[i] != ':') i++;
    *f = (token){*at, i - *at};
    *at = i + 1;
    return 1;
}

/* Whether a token spells word, ignoring case. */
static int token_is(const char *text, token t, const char *word)
{
    size_t n = strlen(word);
    if (t.length != n) return 0;
    for (size_t k = 0; k < n; k++) {
        char a = text[t.at + k], b = word[k];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z') b = (char)(b - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

enum { NUMBER_OK = 0, NOT_A_NUMBER = -1, NOT_FINITE = -2 };

/* A whole token read as a double. */
static int token_number(const char *text, token t, double *value)
{
    char buffer[128];
    if (t.length == 0 || t.length >= sizeof buffer) return NOT_A_NUMBER;
    memcpy(buffer, text + t.at, t.length);
    buffer[t.length] = '\0';
    char *end = NULL;
    double v = strtod(buffer, &end);
    if (end != buffer + t.length) return NOT_A_NUMBER;
    if (!isfinite(v)) return NOT_FINITE;
    *value = v;
    return NUMBER_OK;
}

/* A whole token read as a whole number in [0, max]: 0, or -1 if it is not
 * one (signs are not digits), or -2 if it is larger than max. */
static int token_whole(const char *text, token t, int64_t max, int64_t *value)
{
    if (t.length == 0) return -1;
    int64_t v = 0;
    for (size_t k = 0; k < t.length; k++) {
        char c = text[t.at + k];
        if (c < '0' || c > '9') return -1;
        if (v > (max - (c - '0')) / 10) return -2;
        v = 10 * v + (c - '0');
    }
    *value = v;
    return 0;
}

/* At most 40 characters of a token, for messages. */
static int shown(token t) { return t.length > 40 ? 40 : (int)t.length; }

/* ---- reading: the count line ------------------------------------------------ */

static int read_count(reader *r, int32_t *count)
{
    int got = read_line(r);
    if (got < 0) return -1;
    if (got == 0)
        return fail(r, 1, 0, "the file is empty (expected the number of bodies on line 1)");
    size_t at = 0;
    token t;
    if (!next_token(r->line, r->length, &at, &t))
        return fail(r, 1, 0, "missing the number of bodies (expected a whole number on line 1)");
    int64_t n = 0;
    int st = token_whole(r->line, t, INT32_MAX, &n);
    if (st == -1)
        return fail(r, 1, t.at, "'%.*s' is not a number of bodies (expected a whole number >= 0)",
                    shown(t), r->line + t.at);
    if (st == -2)
        return fail(r, 1, t.at, "%.*s bodies are too many (expected at most %d)", shown(t),
                    r->line + t.at, (int)INT32_MAX);
    token extra;
    if (next_token(r->line, r->length, &at, &extra))
        return fail(r, 1, extra.at,
                    "unexpected '%.*s' after the number of bodies (expected nothing more)",
                    shown(extra), r->line + extra.at);
    *count = (int32_t)n;
    return 0;
}

/* ---- reading: the header line ---------------------------------------------- */

/* Where the quantities carom reads sit among a body line's columns. */
typedef struct layout {
    int columns;                 /* in all */
    int pos, velo, radius, mass; /* first column of each, or -1 if absent */
} layout;

static int parse_lattice(reader *r, size_t start, size_t end, xyz_frame *frame)
{
    const char *text = r->line;
    double side[3];
    int k = 0;
    size_t at = start;
    token t;
    while (next_token(text, end, &at, &t)) {
        double v = 0.0;
        if (k == 9)
            return fail(r, r->number, t.at,
                        "Lattice has more than 9 numbers (expected 9: " LATTICE_FORM ")");
        if (token_number(text, t, &v) != NUMBER_OK)
            return fail(
                r, r->number, t.at,
                "'%.*s' in Lattice is not a finite number (expected 9 numbers: " LATTICE_FORM ")",
                shown(t), text + t.at);
        if (k % 4 == 0 && !(v > 0.0))
            return fail(r, r->number, t.at,
                        "Lattice side %.*s is not positive (expected a box side > 0)", shown(t),
                        text + t.at);
        if (k % 4 != 0 && v != 0.0)
            return fail(r, r->number, t.at,
                        "Lattice is not diagonal: entry %d is %.*s (expected an orthogonal "
                        "box: " LATTICE_FORM ")",
                        k + 1, shown(t), text + t.at);
        if (k % 4 == 0) side[k / 4] = v;
        k++;
    }
    if (k < 9)
        return fail(r, r->number, start, "Lattice has %d numbers (expected 9: " LATTICE_FORM ")",
                    k);
    for (int a = 0; a < 3; a++) frame->lattice[a] = side[a];
    frame->has_lattice = 1;
    return 0;
}

/* The column slot and size carom reads for a property name, or NULL. */
static int *known_property(const char *text, token name, layout *lay, int *size)
{
    *size = 1;
    if (token_is(text, name, "radius")) return &lay->radius;
    if (token_is(text, name, "mass")) return &lay->mass;
    *size = 3;
    if (token_is(text, name, "pos")) return &lay->pos;
    if (token_is(text, name, "velo")) return &lay->velo;
    return NULL;
}

/* One name:type:count triple of Properties. */
static int parse_property(reader *r, token name, token type, token count, layout *lay)
{
    const char *text = r->line;
    char kind = type.length == 1 ? text[type.at] : '?';
    if (type.length != 1 || (kind != 'S' && kind != 'R' && kind != 'I' && kind != 'L'))
        return fail(r, r->number, type.at,
                    "column type '%.*s' of %.*s is unknown (expected S, R, I or L)", shown(type),
                    text + type.at, shown(name), text + name.at);
    int64_t n = 0;
    if (token_whole(text, count, MAX_PROPERTY_COLUMNS, &n) != 0 || n < 1)
        return fail(
            r, r->number, count.at,
            "column count '%.*s' of %.*s is not valid (expected a whole number from 1 to %d)",
            shown(count), text + count.at, shown(name), text + name.at, MAX_PROPERTY_COLUMNS);
    int size = 0;
    int *slot = known_property(text, name, lay, &size);
    if (slot) {
        if (kind != 'R' || n != size)
            return fail(r, r->number, name.at,
                        "%.*s:%c:%d has the wrong type or size (expected %.*s:R:%d)", shown(name),
                        text + name.at, kind, (int)n, shown(name), text + name.at, size);
        if (*slot >= 0)
            return fail(r, r->number, name.at,
                        "%.*s appears twice in Properties (expected each column once)", shown(name),
                        text + name.at);
        *slot = lay->columns;
    }
    if (lay->columns > MAX_PROPERTY_COLUMNS)
        return fail(r, r->number, name.at, "Properties has too many columns (expected at most %d)",
                    MAX_PROPERTY_COLUMNS);
    lay->columns += (int)n;
    return 0;
}

static int parse_properties(reader *r, size_t start, size_t end, layout *out)
{
    layout lay = {0, -1, -1, -1, -1};
    size_t at = start;
    token name, type, count;
    while (next_field(r->line, end, &at, &name)) {
        if (!next_field(r->line, end, &at, &type) || !next_field(r->line, end, &at, &count))
            return fail(r, r->number, name.at,
                        "Properties entry '%.*s' is incomplete (expected name:type:count triples, "
                        "as pos:R:3)",
                        shown(name), r->line + name.at);
        if (parse_property(r, name, type, count, &lay) != 0) return -1;
    }
    if (lay.pos < 0)
        return fail(r, r->number, start, "Properties has no pos column (expected pos:R:3)");
    *out = lay;
    return 0;
}

static int parse_time(reader *r, size_t start, size_t end, xyz_frame *frame)
{
    size_t at = start;
    token t, extra;
    if (!next_token(r->line, end, &at, &t) || token_number(r->line, t, &frame->time) != NUMBER_OK ||
        next_token(r->line, end, &at, &extra))
        return fail(r, r->number, start, "Time is not a finite number (expected the frame's time)");
    return 0;
}

/* The value after key= : quoted "..." or up to the next blank. */
static int header_value(reader *r, size_t *at, size_t *start, size_t *end)
{
    size_t i = *at;
    if (i < r->length && r->line[i] == '"') {
        size_t close = i + 1;
        while (close < r->length && r->line[close] != '"') close++;
        if (close >= r->length)
            return fail(r, r->number, i, "unterminated quoted value (expected a closing \")");
        *start = i + 1;
        *end = close;
        *at = close + 1;
        return 0;
    }
    while (i < r->length && !is_blank(r->line[i])) i++;
    *start = *at;
    *end = i;
    *at = i;
    return 0;
}

static int parse_header(reader *r, xyz_frame *frame, layout *lay)
{
    *lay = (layout){4, 1, -1, -1, -1}; /* plain XYZ: species:S:1:pos:R:3 */
    int got = read_line(r);
    if (got < 0) return -1;
    if (got == 0)
        return fail(r, 2, 0,
                    "the file ends before the header line (expected a line with Properties= after "
                    "the count)");
    size_t at = 0;
    while (at < r->length) {
        while (at < r->length && is_blank(r->line[at])) at++;
        token key = {at, 0};
        while (at < r->length && r->line[at] != '=' && !is_blank(r->line[at])) at++;
        key.length = at - key.at;
        if (at >= r->length || r->line[at] != '=') continue; /* a bare word or flag */
        at++;
        size_t start = 0, end = 0;
        if (header_value(r, &at, &start, &end) != 0) return -1;
        int st = 0;
        if (token_is(r->line, key, "Lattice"))
            st = parse_lattice(r, start, end, frame);
        else if (token_is(r->line, key, "Properties"))
            st = parse_properties(r, start, end, lay);
        else if (token_is(r->line, key, "Time"))
            st = parse_time(r, start, end, frame);
        if (st != 0) return -1;
    }
    return 0;
}

/* ---- reading: body lines --------------------------------------------------- */

static double *component(carom_vec *v, int k) { return k == 0 ? &v->x : k == 1 ? &v->y : &v->z; }

/* Where column c of a body line goes, and the name of its property; NULL if skipped. */
static double *column_target(const layout *lay, int c, carom_body_state *b, const char **name)
{
    if (c >= lay->pos && c < lay->pos + 3) {
        *name = "pos";
        return component(&b->position, c - lay->pos);
    }
    if (lay->velo >= 0 && c >= lay->velo && c < lay->velo + 3) {
        *name = "velo";
        return component(&b->velocity, c - lay->velo);
    }
    *name = c == lay->radius ? "radius" : "mass";
    if (c == lay->radius) return &b->radius;
    if (c == lay->mass) return &b->mass;
    return NULL;
}

static int parse_value(reader *r, token t, const char *name, double *value)
{
    int st = token_number(r->line, t, value);
    if (st == NOT_A_NUMBER)
        return fail(r, r->number, t.at, "'%.*s' is not a number (expected a finite number for %s)",
                    shown(t), r->line + t.at, name);
    if (st == NOT_FINITE)
        return fail(r, r->number, t.at, "'%.*s' is not finite (expected a finite number for %s)",
                    shown(t), r->line + t.at, name);
    int sized = strcmp(name, "radius") == 0 || strcmp(name, "mass") == 0;
    if (sized && !(*value > 0.0))
        return fail(r, r->number, t.at, "%s %.*s is not positive (expected a %s > 0)", name,
                    shown(t), r->line + t.at, name);
    return 0;
}

static int parse_body(reader *r, const layout *lay, carom_body_state *b)
{
    int c = 0;
    size_t at = 0, after_last = 0;
    token t;
    while (next_token(r->line, r->length, &at, &t)) {
        if (c == lay->columns)
            return fail(r, r->number, t.at,
                        "a body line with more than %d columns (expected %d, as Properties says)",
                        lay->columns, lay->columns);
        const char *name = NULL;
        double *target = column_target(lay, c, b, &name);
        if (target && parse_value(r, t, name, target) != 0) return -1;
        after_last = t.at + t.length;
        c++;
    }
    if (c < lay->columns)
        return fail(r, r->number, after_last,
                    "a body line with %d columns (expected %d, as Properties says)", c,
                    lay->columns);
    return 0;
}

static int read_bodies(reader *r, const layout *lay, double radius, double mass, xyz_frame *frame)
{
    int32_t capacity = 0;
    for (int32_t i = 0; i < frame->count; i++) {
        int got = read_line(r);
        if (got < 0) return -1;
        if (got == 0)
            return fail(r, r->number + 1, 0,
                        "the file ends after %d of %d bodies (expected %d body lines)", (int)i,
                        (int)frame->count, (int)frame->count);
        if (i == capacity) {
            capacity = capacity == 0 ? 1024 : capacity > INT32_MAX / 2 ? INT32_MAX : 2 * capacity;
            if (capacity > frame->count) capacity = frame->count;
            carom_body_state *grown = realloc(frame->bodies, (size_t)capacity * sizeof *grown);
            if (!grown)
                return fail(r, r->number, 0, "out of memory for %d bodies", (int)frame->count);
            frame->bodies = grown;
        }
        carom_body_state *b = &frame->bodies[i];
        memset(b, 0, sizeof *b);
        b->radius = radius;
        b->mass = mass;
        if (parse_body(r, lay, b) != 0) return -1;
    }
    return 0;
}

int xyz_read_file(const char *path, double default_radius, double default_mass, xyz_frame *frame,
                  char *error, size_t error_size)
{
    if (error && error_size > 0) error[0] = '\0';
    if (!frame) return -1;
    memset(frame, 0, sizeof *frame);
    reader r = {NULL, path ? path : "(null)", NULL, 0, 0, 0, error, error_size};
    r.file = path ? fopen(path, "r") : NULL;
    if (!r.file) return fail(&r, 1, 0, "cannot open (%s)", strerror(path ? errno : EINVAL));
    layout lay;
    int st = read_count(&r, &frame->count);
    if (st == 0) st = parse_header(&r, frame, &lay);
    if (st == 0) st = read_bodies(&r, &lay, default_radius, default_mass, frame);
    free(r.line);
    fclose(r.file);
    if (st != 0) xyz_frame_free(frame);
    return st;
}

void xyz_frame_free(xyz_frame *frame)
{
    if (!frame) return;
    free(frame->bodies);
    memset(frame, 0, sizeof *frame);
}
