/* xyz.c — extended XYZ frames, the convention of ASE and OVITO: a line with
 * the number of bodies N, a header line of key=value pairs (values may be
 * quoted with "..."), then N lines of whitespace-separated columns. The
 * header's Properties=name:type:count:... lists the columns (type S string,
 * R real, I integer, L logical; count how many columns the property takes),
 * Lattice="ax ay az bx by bz cx cy cz" gives the cell vectors, Origin= the
 * cell's corner (OVITO's key; ASE keeps it as info and puts its cell at 0)
 * and Time= the frame's time. Frames follow each other back to back.
 *
 * Writing: see xyz.h for the header and columns; every number as "%.17g",
 * which reads back to the same bits. Names: OVITO maps velo, mass, radius
 * and species (ovito XYZImporter's column table); ASE 3.22 (ase/io/extxyz.py,
 * ase/atoms.py) keeps every other column as a per-atom array, and
 * Atoms.get_masses() returns the array `masses`, get_velocities() the array
 * `momenta` over the masses. So both pairs are written. A kinematic body
 * (mass INFINITY, issue 12) is written with mass and masses inf and momenta
 * 0 (its momentum is not defined; velo holds its velocity), and a mass or
 * masses of inf is read back as one. A world with rotation (issue 14) adds
 * orientation (a unit quaternion in OVITO's x y z w order) and omega, and
 * in 2D the angle, which is the exact 2D state: a quaternion read back
 * gives the angle only to rounding and modulo 2 pi.
 *
 * Reading: frames before the one asked for are skipped by their counts (a
 * negative index counts the frames first). A small tokenizer splits lines at
 * blanks and remembers each token's column; numbers go through strtod and
 * must use the whole token. Column names are matched without regard to
 * case. Every error names FILE:LINE:COL of the token at fault (or of the
 * place where one is missing). */
#define _POSIX_C_SOURCE 200809L
#include "xyz.h"
#include "textline.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define LATTICE_FORM "\"Lx 0 0 0 Ly 0 0 0 Lz\""
#define MAX_PROPERTY_COLUMNS 1000000

/* ---- species ----------------------------------------------------------------- */

static int is_species_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '+' || c == '.';
}

int xyz_species_valid(const char *name)
{
    if (!name || !name[0] || strlen(name) > XYZ_SPECIES_MAX) return 0;
    for (const char *c = name; *c; c++)
        if (!is_species_char(*c)) return 0;
    return 1;
}

/* Walks "NAME COUNT NAME COUNT ...": the species of the next body. */
typedef struct species_cursor {
    const char *next;  /* the rest of the list */
    char name[XYZ_SPECIES_MAX + 1];
    long long left;    /* bodies left with this name */
} species_cursor;

static void species_advance(species_cursor *c)
{
    while (c->left <= 0) {
        const char *p = c->next;
        while (p && *p == ' ') p++;
        size_t n = 0;
        while (p && is_species_char(p[n])) n++;
        if (!p || n == 0 || n > XYZ_SPECIES_MAX) {
            snprintf(c->name, sizeof c->name, "%s", XYZ_DEFAULT_SPECIES);
            c->left = -1; /* to the end */
            c->next = NULL;
            return;
        }
        memcpy(c->name, p, n);
        c->name[n] = '\0';
        char *end = NULL;
        c->left = strtoll(p + n, &end, 10);
        c->next = end;
    }
}

static const char *species_take(species_cursor *c)
{
    if (c->left == 0) species_advance(c);
    if (c->left > 0) c->left--;
    return c->name;
}

/* ---- writing ------------------------------------------------------------- */

static int write_header(FILE *out, int32_t count, double time, int dim, const double box[3],
                        const int periodic[3], int spin)
{
    char pbc[3];
    for (int a = 0; a < 3; a++) pbc[a] = a < dim && periodic[a] ? 'T' : 'F';
    double lz = dim == 3 ? box[2] : 1.0;
    const char *rotation = !spin ? "" : dim == 2 ? XYZ_SPIN_PROPERTIES XYZ_ANGLE_PROPERTY : XYZ_SPIN_PROPERTIES;
    int n = fprintf(out,
                    "%d\nLattice=\"%.17g 0.0 0.0 0.0 %.17g 0.0 0.0 0.0 %.17g\" "
                    "Origin=\"%.17g %.17g %.17g\" Properties=" XYZ_PROPERTIES
                    "%s Time=%.17g pbc=\"%c %c %c\"\n",
                    (int)count, box[0], box[1], lz, -0.5 * box[0], -0.5 * box[1], -0.5 * lz, rotation, time,
                    pbc[0], pbc[1], pbc[2]);
    return n < 0 ? -1 : 0;
}

/* The rotation columns of a body: orientation x y z w, omega (2D: 0 0 wz), 2D the angle. */
static int write_spin(FILE *out, const carom_body_state *b, int dim)
{
    const carom_quat q = b->orientation;
    const carom_vec w = b->angular_velocity;
    int n = fprintf(out, " %.17g %.17g %.17g %.17g %.17g %.17g %.17g", q.x, q.y, q.z, q.w,
                    dim == 3 ? w.x : 0.0, dim == 3 ? w.y : 0.0, w.z);
    if (n >= 0 && dim == 2) n = fprintf(out, " %.17g", b->angle);
    return n < 0 ? -1 : 0;
}

static int write_body(FILE *out, const char *species, const carom_body_state *b, int dim, int spin)
{
    double z = dim == 3 ? b->position.z : 0.0, vz = dim == 3 ? b->velocity.z : 0.0;
    double m = b->mass, p = isinf(m) ? 0.0 : m; /* a kinematic body: mass inf, momenta 0 (undefined) */
    int n = fprintf(out,
                    "%s %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g "
                    "%.17g",
                    species, b->position.x, b->position.y, z, b->velocity.x, b->velocity.y, vz, m,
                    b->radius, p * b->velocity.x, p * b->velocity.y, p * vz, m);
    if (n >= 0 && spin && write_spin(out, b, dim) != 0) return -1;
    return n < 0 || fputc('\n', out) == EOF ? -1 : 0;
}

static int turned_or_spinning(const carom_body_state *b)
{
    const carom_quat q = b->orientation;
    const carom_vec w = b->angular_velocity;
    return b->polygon_vertices > 0 || b->angle != 0.0 || w.x != 0.0 || w.y != 0.0 || w.z != 0.0 ||
           q.x != 0.0 || q.y != 0.0 || q.z != 0.0 || q.w != 1.0;
}

int xyz_world_rotates(const carom_world *world)
{
    carom_world_def def = carom_world_definition(world);
    if (def.tangential_restitution > -1.0 || def.wall_tangential_restitution > -1.0) return 1;
    for (int32_t i = 0; i < carom_world_body_count(world); i++) {
        carom_body_state b;
        if (carom_world_get_body(world, i, &b) == CAROM_OK && turned_or_spinning(&b)) return 1;
    }
    return 0;
}

int xyz_write_frame(FILE *out, const carom_world *world, int dim, const double box[3],
                    const int periodic[3], const char *species)
{
    if (!out || !world || !box || !periodic) return -1;
    int32_t count = carom_world_body_count(world);
    int spin = xyz_world_rotates(world);
    if (write_header(out, count, carom_world_time(world), dim, box, periodic, spin) != 0) return -1;
    species_cursor cursor = {species, "", 0};
    for (int32_t i = 0; i < count; i++) {
        carom_body_state b;
        if (carom_world_get_body(world, i, &b) != CAROM_OK ||
            write_body(out, species_take(&cursor), &b, dim, spin) != 0)
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
    long long number; /* 1-based number of the current line */
    char *error;
    size_t error_size;
} reader;

/* A piece of the current line: its offset and length (column = at + 1). */
typedef struct token {
    size_t at, length;
} token;

static int fail(const reader *r, long long line, size_t at, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Writes "FILE:LINE:COL: message" (COL = at + 1) and returns -1. */
static int fail(const reader *r, long long line, size_t at, const char *format, ...)
{
    if (!r->error || r->error_size == 0) return -1;
    int n = snprintf(r->error, r->error_size, "%s:%lld:%zu: ", r->path, line, at + 1);
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
    ssize_t n = textline_read(r->file, &r->line, &r->capacity, TEXTLINE_LIMIT);
    if (n == TEXTLINE_TOO_LONG)
        return fail(r, r->number + 1, 0, "a line longer than %d bytes (expected an XYZ line: a count, a comment, "
                    "or a body)", (int)TEXTLINE_LIMIT);
    if (n < 0) return fail(r, r->number + 1, 0, "cannot read (%s)", strerror(errno));
    if (n == TEXTLINE_END) return 0;
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
    *value = v; /* also when not finite: a mass may be inf */
    return isfinite(v) ? NUMBER_OK : NOT_FINITE;
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

static int is_blank_line(const reader *r)
{
    for (size_t k = 0; k < r->length; k++)
        if (!is_blank(r->line[k])) return 0;
    return 1;
}

/* Reads the count line of the next frame: 1 with *count set, 0 if the file
 * ends (blank lines at the very end included), or -1 on an error. */
static int read_count(reader *r, int32_t *count)
{
    int got = read_line(r);
    if (got < 0) return -1;
    if (got == 0) return 0;
    long long blank_at = is_blank_line(r) ? r->number : 0;
    while (got == 1 && is_blank_line(r)) got = read_line(r);
    if (got < 0) return -1;
    if (got == 0) return 0;
    if (blank_at > 0)
        return fail(r, blank_at, 0,
                    "missing the number of bodies (expected a whole number on line %lld)",
                    blank_at);
    size_t at = 0;
    token t = {0, 0};
    next_token(r->line, r->length, &at, &t);
    int64_t n = 0;
    int st = token_whole(r->line, t, INT32_MAX, &n);
    if (st == -1)
        return fail(r, r->number, t.at,
                    "'%.*s' is not a number of bodies (expected a whole number >= 0)", shown(t),
                    r->line + t.at);
    if (st == -2)
        return fail(r, r->number, t.at, "%.*s bodies are too many (expected at most %d)",
                    shown(t), r->line + t.at, (int)INT32_MAX);
    token extra;
    if (next_token(r->line, r->length, &at, &extra))
        return fail(r, r->number, extra.at,
                    "unexpected '%.*s' after the number of bodies (expected nothing more)",
                    shown(extra), r->line + extra.at);
    *count = (int32_t)n;
    return 1;
}

/* ---- reading: the header line ---------------------------------------------- */

/* The quantities carom reads, each from one column group. */
typedef enum quantity {
    Q_POS,
    Q_VELOCITY,
    Q_MOMENTA,
    Q_OMEGA,
    Q_ORIENTATION,
    Q_MASS,
    Q_MASSES,
    Q_RADIUS,
    Q_ANGLE,
    Q_COUNT
} quantity;

static const struct {
    const char *name;
    quantity q;
} known_names[] = {
    {"pos", Q_POS},           {"positions", Q_POS},     {"velo", Q_VELOCITY},
    {"vel", Q_VELOCITY},      {"velocities", Q_VELOCITY}, {"velocity", Q_VELOCITY},
    {"momenta", Q_MOMENTA},   {"mass", Q_MASS},         {"masses", Q_MASSES},
    {"radius", Q_RADIUS},     {"orientation", Q_ORIENTATION}, {"omega", Q_OMEGA},
    {"angular_velocity", Q_OMEGA}, {"angle", Q_ANGLE},
};
#define KNOWN_NAMES ((int)(sizeof known_names / sizeof known_names[0]))
#define KNOWN_LIST                                                                                         \
    "pos, positions, velo, vel, velocities, velocity, momenta, mass, masses, radius, orientation, omega, " \
    "angular_velocity, angle"

static int quantity_size(quantity q) { return q == Q_ORIENTATION ? 4 : q <= Q_OMEGA ? 3 : 1; }

/* Where the quantities carom reads sit among a body line's columns. */
typedef struct layout {
    int columns;         /* in all */
    int species;         /* the species column (S:1), or -1 */
    int first[Q_COUNT];  /* first column of each, or -1 if absent */
    token name[Q_COUNT]; /* its name in the header, for messages */
} layout;

static void layout_init(layout *lay, int columns)
{
    lay->columns = columns;
    lay->species = -1;
    for (int q = 0; q < Q_COUNT; q++) lay->first[q] = -1, lay->name[q] = (token){0, 0};
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* Levenshtein distance between a token and a word, ignoring case; any value
 * above 2 is reported as 3. */
static int distance(const char *text, token t, const char *word)
{
    size_t n = strlen(word), m = t.length;
    if (m > n + 2 || n > m + 2 || n > 31) return 3;
    int row[32], next[32];
    for (size_t j = 0; j <= n; j++) row[j] = (int)j;
    for (size_t i = 1; i <= m; i++) {
        next[0] = (int)i;
        for (size_t j = 1; j <= n; j++) {
            int cost = lower(text[t.at + i - 1]) != lower(word[j - 1]);
            int best = row[j - 1] + cost;
            if (row[j] + 1 < best) best = row[j] + 1;
            if (next[j - 1] + 1 < best) best = next[j - 1] + 1;
            next[j] = best;
        }
        memcpy(row, next, sizeof row);
    }
    return row[n] > 3 ? 3 : row[n];
}

/* The known name a token spells (exact: 1; a look-alike: 2), or 0. */
static int match_name(const char *text, token name, int *which)
{
    for (int k = 0; k < KNOWN_NAMES; k++)
        if (token_is(text, name, known_names[k].name)) return *which = k, 1;
    for (int k = 0; k < KNOWN_NAMES; k++) {
        int allowed = strlen(known_names[k].name) >= 6 ? 2 : 1;
        if (distance(text, name, known_names[k].name) <= allowed) return *which = k, 2;
    }
    return 0;
}

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
    frame->lattice_line = r->number > INT32_MAX ? INT32_MAX : (int)r->number;
    frame->lattice_col = (int)start + 1;
    return 0;
}

static int parse_origin(reader *r, size_t start, size_t end, xyz_frame *frame)
{
    size_t at = start;
    token t;
    int k = 0;
    while (next_token(r->line, end, &at, &t)) {
        if (k == 3 || token_number(r->line, t, &frame->origin[k]) != NUMBER_OK)
            return fail(r, r->number, t.at,
                        "'%.*s' in Origin is not valid (expected 3 finite numbers: the cell's "
                        "corner)",
                        shown(t), r->line + t.at);
        k++;
    }
    if (k < 3)
        return fail(r, r->number, start,
                    "Origin has %d numbers (expected 3 finite numbers: the cell's corner)", k);
    frame->has_origin = 1;
    return 0;
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
    if (token_is(text, name, "species") && kind == 'S' && n == 1 && lay->species < 0) lay->species = lay->columns;
    int which = 0, match = match_name(text, name, &which);
    if (match == 2)
        return fail(r, r->number, name.at,
                    "column '%.*s' is not one carom reads but looks like '%s' (expected one of: "
                    KNOWN_LIST ", or a name unlike them for a column to skip)",
                    shown(name), text + name.at, known_names[which].name);
    if (match == 1) {
        quantity q = known_names[which].q;
        int size = quantity_size(q);
        if (kind != 'R' || n != size)
            return fail(r, r->number, name.at,
                        "%.*s:%c:%d has the wrong type or size (expected %.*s:R:%d)", shown(name),
                        text + name.at, kind, (int)n, shown(name), text + name.at, size);
        if (lay->first[q] >= 0) {
            token before = lay->name[q];
            if (token_is(text, before, known_names[which].name))
                return fail(r, r->number, name.at,
                            "%.*s appears twice in Properties (expected each column once)",
                            shown(name), text + name.at);
            return fail(r, r->number, name.at,
                        "%.*s and %.*s both give the same quantity (expected one of them)",
                        shown(before), text + before.at, shown(name), text + name.at);
        }
        lay->first[q] = lay->columns;
        lay->name[q] = name;
    }
    if (lay->columns > MAX_PROPERTY_COLUMNS)
        return fail(r, r->number, name.at, "Properties has too many columns (expected at most %d)",
                    MAX_PROPERTY_COLUMNS);
    lay->columns += (int)n;
    return 0;
}

static int parse_properties(reader *r, size_t start, size_t end, layout *out)
{
    layout lay;
    layout_init(&lay, 0);
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
    if (lay.first[Q_POS] < 0)
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

/* pbc="T T F": T or F for each axis. */
static int parse_pbc(reader *r, size_t start, size_t end, xyz_frame *frame)
{
    size_t at = start;
    token t = {start, 0};
    for (int a = 0; a < 3; a++) {
        int got = next_token(r->line, end, &at, &t);
        if (!got || t.length != 1 || (r->line[t.at] != 'T' && r->line[t.at] != 'F'))
            return fail(r, r->number, got ? t.at : start,
                        "pbc is not three flags (expected T or F for each axis, as \"T T F\")");
        frame->periodic[a] = r->line[t.at] == 'T';
    }
    if (next_token(r->line, end, &at, &t))
        return fail(r, r->number, t.at, "pbc has more than three flags (expected T or F for each axis)");
    frame->has_pbc = 1;
    return 0;
}

static int parse_header(reader *r, xyz_frame *frame, layout *lay)
{
    layout_init(lay, 4); /* plain XYZ: species:S:1:pos:R:3 */
    lay->first[Q_POS] = 1;
    lay->species = 0;
    int got = read_line(r);
    if (got < 0) return -1;
    if (got == 0)
        return fail(r, r->number + 1, 0,
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
        else if (token_is(r->line, key, "Origin") || token_is(r->line, key, "cell_origin"))
            st = parse_origin(r, start, end, frame);
        else if (token_is(r->line, key, "Properties"))
            st = parse_properties(r, start, end, lay);
        else if (token_is(r->line, key, "Time"))
            st = parse_time(r, start, end, frame);
        else if (token_is(r->line, key, "pbc"))
            st = parse_pbc(r, start, end, frame);
        if (st != 0) return -1;
    }
    return 0;
}

/* ---- reading: body lines --------------------------------------------------- */

/* One body line's values, by quantity, and where each group of columns starts. */
typedef struct body_values {
    double value[Q_COUNT][4];
    size_t at[Q_COUNT];
} body_values;

static const char *quantity_name(quantity q)
{
    static const char *const names[Q_COUNT] = {"pos",  "velocity", "momenta", "omega", "orientation",
                                               "mass", "masses",   "radius",  "angle"};
    return names[q];
}

static int parse_value(reader *r, token t, quantity q, double *value)
{
    const char *name = quantity_name(q);
    int st = token_number(r->line, t, value);
    if (st == NOT_FINITE && (q == Q_MASS || q == Q_MASSES) && *value == INFINITY) return 0; /* kinematic */
    if (st == NOT_A_NUMBER)
        return fail(r, r->number, t.at, "'%.*s' is not a number (expected a finite number for %s)",
                    shown(t), r->line + t.at, name);
    if (st == NOT_FINITE)
        return fail(r, r->number, t.at, "'%.*s' is not finite (expected a finite number for %s)",
                    shown(t), r->line + t.at, name);
    if ((q == Q_MASS || q == Q_MASSES || q == Q_RADIUS) && !(*value > 0.0))
        return fail(r, r->number, t.at, "%s %.*s is not positive (expected a %s > 0)", name,
                    shown(t), r->line + t.at, name);
    return 0;
}

/* Reads column c into the quantity it belongs to (if any). */
static int read_column(reader *r, const layout *lay, int c, token t, body_values *b)
{
    for (int q = 0; q < Q_COUNT; q++) {
        int k = c - lay->first[q];
        if (lay->first[q] < 0 || k < 0 || k >= quantity_size((quantity)q)) continue;
        if (k == 0) b->at[q] = t.at;
        return parse_value(r, t, (quantity)q, &b->value[q][k]);
    }
    return 0;
}

/* Mass, velocity and radius from the columns present, or the defaults. */
static int settle_body(reader *r, const layout *lay, const body_values *v, carom_body_state *b)
{
    if (lay->first[Q_MASS] >= 0) b->mass = v->value[Q_MASS][0];
    else if (lay->first[Q_MASSES] >= 0) b->mass = v->value[Q_MASSES][0];
    if (lay->first[Q_MASS] >= 0 && lay->first[Q_MASSES] >= 0 &&
        v->value[Q_MASSES][0] != v->value[Q_MASS][0])
        return fail(r, r->number, v->at[Q_MASSES],
                    "masses %.17g differs from mass %.17g on this line (expected the same mass)",
                    v->value[Q_MASSES][0], v->value[Q_MASS][0]);
    if (lay->first[Q_RADIUS] >= 0) b->radius = v->value[Q_RADIUS][0];
    b->position = (carom_vec){v->value[Q_POS][0], v->value[Q_POS][1], v->value[Q_POS][2]};
    const double *u = v->value[Q_VELOCITY];
    if (lay->first[Q_VELOCITY] >= 0) {
        b->velocity = (carom_vec){u[0], u[1], u[2]};
    } else if (lay->first[Q_MOMENTA] >= 0) {
        const double *p = v->value[Q_MOMENTA];
        b->velocity = (carom_vec){p[0] / b->mass, p[1] / b->mass, p[2] / b->mass};
    }
    const double *q = v->value[Q_ORIENTATION], *w = v->value[Q_OMEGA];
    b->orientation = lay->first[Q_ORIENTATION] >= 0 ? (carom_quat){q[0], q[1], q[2], q[3]}
                                                    : (carom_quat){0.0, 0.0, 0.0, 1.0};
    b->angular_velocity = (carom_vec){w[0], w[1], w[2]};
    b->angle = v->value[Q_ANGLE][0];
    return 0;
}

/* The index of a species name in the frame's table, added if new (-1 when
 * the table is full). */
static int32_t species_index(xyz_frame *frame, const char *text, token t)
{
    size_t length = t.length > XYZ_SPECIES_MAX ? XYZ_SPECIES_MAX : t.length;
    for (int32_t k = 0; k < frame->species_kinds; k++)
        if (strlen(frame->species_names[k]) == length && memcmp(frame->species_names[k], text + t.at, length) == 0)
            return k;
    if (frame->species_kinds == XYZ_SPECIES_KINDS) return -1;
    memcpy(frame->species_names[frame->species_kinds], text + t.at, length);
    frame->species_names[frame->species_kinds][length] = '\0';
    return frame->species_kinds++;
}

static int parse_body(reader *r, const layout *lay, carom_body_state *b, xyz_frame *frame, int32_t i)
{
    body_values values;
    memset(&values, 0, sizeof values);
    int c = 0;
    size_t at = 0, after_last = 0;
    token t;
    while (next_token(r->line, r->length, &at, &t)) {
        if (c == lay->columns)
            return fail(r, r->number, t.at,
                        "a body line with more than %d columns (expected %d, as Properties says)",
                        lay->columns, lay->columns);
        if (read_column(r, lay, c, t, &values) != 0) return -1;
        if (c == lay->species && frame->species) frame->species[i] = species_index(frame, r->line, t);
        after_last = t.at + t.length;
        c++;
    }
    if (c < lay->columns)
        return fail(r, r->number, after_last,
                    "a body line with %d columns (expected %d, as Properties says)", c,
                    lay->columns);
    return settle_body(r, lay, &values, b);
}

/* Moves positions so that the cell's centre is at 0 (see xyz.h). */
static void centre_on_cell(xyz_frame *frame)
{
    if (!frame->has_lattice) return;
    double shift[3];
    for (int a = 0; a < 3; a++) shift[a] = -(frame->origin[a] + 0.5 * frame->lattice[a]);
    for (int32_t i = 0; i < frame->count; i++) {
        carom_vec *x = &frame->bodies[i].position;
        x->x += shift[0], x->y += shift[1], x->z += shift[2];
    }
}

static int grow_species(reader *r, xyz_frame *frame, int32_t capacity)
{
    int32_t *grown = realloc(frame->species, (size_t)capacity * sizeof *grown);
    if (!grown) return fail(r, r->number, 0, "out of memory for %d bodies", (int)frame->count);
    frame->species = grown;
    return 0;
}

static int read_bodies(reader *r, const layout *lay, double radius, double mass, xyz_frame *frame)
{
    int32_t capacity = 0;
    frame->first_body_line = r->number + 1;
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
            if (lay->species >= 0 && grow_species(r, frame, capacity) != 0) return -1;
        }
        carom_body_state *b = &frame->bodies[i];
        memset(b, 0, sizeof *b);
        b->radius = radius;
        b->mass = mass;
        if (parse_body(r, lay, b, frame, i) != 0) return -1;
    }
    centre_on_cell(frame);
    frame->has_orientation = lay->first[Q_ORIENTATION] >= 0;
    frame->has_omega = lay->first[Q_OMEGA] >= 0;
    frame->has_angle = lay->first[Q_ANGLE] >= 0;
    return 0;
}

/* ---- reading: frames ----------------------------------------------------------- */

/* Skips one frame whose count line has been read: its header and bodies. */
static int skip_frame(reader *r, int32_t count)
{
    for (int64_t k = 0; k <= count; k++) {
        int got = read_line(r);
        if (got < 0) return -1;
        if (got == 0)
            return fail(r, r->number + 1, 0,
                        "the file ends inside a frame of %d bodies (expected its header and %d "
                        "body lines)",
                        (int)count, (int)count);
    }
    return 0;
}

/* Skips `frames` frames; 0, -1 on an error, or -2 if the file ends first
 * (*found: how many there were). */
static int skip_frames(reader *r, int64_t frames, int64_t *found)
{
    *found = 0;
    while (*found < frames) {
        int32_t count = 0;
        int got = read_count(r, &count);
        if (got <= 0) return got < 0 ? -1 : -2;
        if (skip_frame(r, count) != 0) return -1;
        (*found)++;
    }
    return 0;
}

static int past_the_end(reader *r, int64_t index, int64_t frames, xyz_frame *frame)
{
    if (frames == 0)
        return fail(r, 1, 0, "the file is empty (expected the number of bodies on line 1)");
    frame->frames_in_file = frames;
    fail(r, 1, 0, "frame %lld does not exist: the file has %lld frame%s (expected %s%lld to %lld)",
         (long long)index, (long long)frames, frames == 1 ? "" : "s", frames > 0 ? "-" : "",
         (long long)frames, (long long)frames - 1);
    return -2;
}

/* Puts the reader at the count line of frame index (>= 0 from the start). */
static int seek_frame(reader *r, int64_t *index, xyz_frame *frame)
{
    int64_t found = 0;
    if (*index < 0) {
        int st = skip_frames(r, INT64_MAX, &found);
        if (st == -1) return -1;
        if (found + *index < 0) return past_the_end(r, *index, found, frame);
        rewind(r->file);
        r->number = 0;
        *index += found;
    }
    int st = skip_frames(r, *index, &found);
    if (st == -2) return past_the_end(r, *index, found, frame);
    return st;
}

static int read_frame(reader *r, int64_t index, double radius, double mass, xyz_frame *frame)
{
    int64_t asked = index;
    int st = seek_frame(r, &index, frame);
    if (st != 0) return st;
    st = read_count(r, &frame->count);
    if (st < 0) return -1;
    if (st == 0) return past_the_end(r, asked, index, frame);
    layout lay;
    if (parse_header(r, frame, &lay) != 0) return -1;
    return read_bodies(r, &lay, radius, mass, frame);
}

int xyz_read_frame(const char *path, int64_t index, double default_radius, double default_mass,
                   xyz_frame *frame, char *error, size_t error_size)
{
    if (error && error_size > 0) error[0] = '\0';
    if (!frame) return -1;
    memset(frame, 0, sizeof *frame);
    reader r = {NULL, path ? path : "(null)", NULL, 0, 0, 0, error, error_size};
    r.file = path ? fopen(path, "r") : NULL;
    if (!r.file) return fail(&r, 1, 0, "cannot open (%s)", strerror(path ? errno : EINVAL));
    int st = read_frame(&r, index, default_radius, default_mass, frame);
    free(r.line);
    fclose(r.file);
    if (st != 0) {
        int64_t frames = frame->frames_in_file;
        xyz_frame_free(frame);
        frame->frames_in_file = frames;
    }
    return st;
}

int xyz_read_file(const char *path, double default_radius, double default_mass, xyz_frame *frame,
                  char *error, size_t error_size)
{
    return xyz_read_frame(path, 0, default_radius, default_mass, frame, error, error_size);
}

void xyz_frame_free(xyz_frame *frame)
{
    if (!frame) return;
    free(frame->bodies);
    free(frame->species);
    memset(frame, 0, sizeof *frame);
}
