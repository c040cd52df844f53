/* controls.c — reads a run's controls file (controls.h) and applies its rows
 * at window starts. The file is read whole (its CRC-32C lets a restart
 * refuse a file changed since the checkpoint), then line by line: the
 * header names the columns, each row has exactly as many fields, numbers
 * are plain decimals (digits, sign, point, exponent: no hex, no words, no
 * nan or inf), body indices are whole numbers below the world's count, and
 * times are finite, >= 0 and sorted. Blank lines are skipped and a final
 * "\r" is dropped (files saved on Windows). The first problem is reported
 * as "FILE:LINE:COL: what is wrong (what was expected)", COL the field's
 * first character. */
#include "controls.h"
#include "decimal.h"
#include "textline.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_FIELDS = 5, LONGEST_FILE = 1 << 30 };

typedef struct field {
    const char *text; /* not terminated */
    size_t length;
    int col;          /* 1-based */
} field;

typedef struct parser {
    const char *path;
    int dim;
    int32_t bodies;
    int columns; /* 4 (2D without az) or 5 */
    int64_t line;
    char *error;
    size_t error_size;
} parser;

#if defined(__GNUC__)
static int fail_at(const parser *p, int col, const char *format, ...) __attribute__((format(printf, 3, 4)));
#endif
static int fail_at(const parser *p, int col, const char *format, ...)
{
    int used = snprintf(p->error, p->error_size, "%s:%lld:%d: ", p->path, (long long)p->line, col);
    if (used >= 0 && (size_t)used < p->error_size) {
        va_list args;
        va_start(args, format);
        vsnprintf(p->error + used, p->error_size - (size_t)used, format, args);
        va_end(args);
    }
    return -1;
}

/* ---- reading the file ------------------------------------------------------ */

/* Whether bytes[from, to) end the line that starts at *line_start (its
 * number *line) within TEXTLINE_LIMIT bytes; moves both past each line end. */
static int lines_bounded(const char *bytes, size_t from, size_t to, size_t *line_start, long long *line)
{
    for (size_t k = from; k < to; k++)
        if (bytes[k] == '\n') *line_start = k + 1, ++*line;
    return to - *line_start <= TEXTLINE_LIMIT;
}

static int read_whole(const char *path, char **text, size_t *size, char *error, size_t error_size)
{
    FILE *in = fopen(path, "rb");
    if (!in) return snprintf(error, error_size, "%s: cannot open (%s)", path, strerror(errno)), -1;
    size_t capacity = 4096, used = 0, line_start = 0;
    long long line = 1;
    char *bytes = malloc(capacity + 1);
    while (bytes) {
        size_t before = used;
        used += fread(bytes + used, 1, capacity - used, in);
        if (!lines_bounded(bytes, before, used, &line_start, &line)) {
            free(bytes);
            fclose(in);
            return snprintf(error, error_size, "%s:%lld: a line longer than %d bytes (expected a row "
                            "time,body,ax,ay[,az])", path, line, (int)TEXTLINE_LIMIT), -1;
        }
        if (used < capacity || capacity >= LONGEST_FILE) break;
        char *grown = realloc(bytes, 2 * capacity + 1);
        if (!grown) free(bytes);
        bytes = grown, capacity *= 2;
    }
    int failed = !bytes || ferror(in) || used >= LONGEST_FILE;
    fclose(in);
    if (failed) {
        free(bytes);
        return snprintf(error, error_size, "%s: cannot read (%s)", path,
                        bytes ? "read error, or larger than 1 GiB" : "out of memory"), -1;
    }
    bytes[used] = '\0';
    *text = bytes, *size = used;
    return 0;
}

/* Splits a line at commas into at most MAX_FIELDS + 1 fields, spaces around
 * each trimmed; returns how many. */
static int split(const char *line, size_t length, field fields[MAX_FIELDS + 1])
{
    int n = 0;
    size_t start = 0;
    for (;;) {
        size_t end = start;
        while (end < length && line[end] != ',') end++;
        size_t a = start, b = end;
        while (a < b && (line[a] == ' ' || line[a] == '\t')) a++;
        while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t')) b--;
        if (n <= MAX_FIELDS) fields[n] = (field){line + a, b - a, (int)a + 1};
        n++;
        if (end >= length) return n;
        start = end + 1;
    }
}

static int field_is(const field *f, const char *word)
{
    return f->length == strlen(word) && memcmp(f->text, word, f->length) == 0;
}

/* ---- fields ------------------------------------------------------------------ */

/* A plain decimal (decimal.c): 0 and *value, or -1 if it is not one (or not finite). */
static int decimal(const field *f, double *value)
{
    return decimal_parse(f->text, f->length, value) == DECIMAL_PARSED ? 0 : -1;
}

static int number_field(const parser *p, const field *f, const char *name, double *value)
{
    if (decimal(f, value) == 0) return 0;
    return fail_at(p, f->col, "%s '%.*s' is not a number (expected a finite decimal number)", name,
                   (int)(f->length > 40 ? 40 : f->length), f->text);
}

static int body_field(const parser *p, const field *f, int32_t *body)
{
    int64_t value = 0;
    int whole = f->length > 0 && f->length <= 18;
    for (size_t k = 0; whole && k < f->length; k++) {
        whole = f->text[k] >= '0' && f->text[k] <= '9';
        value = 10 * value + (f->text[k] - '0');
    }
    if (whole && value < p->bodies) {
        *body = (int32_t)value;
        return 0;
    }
    if (whole)
        return fail_at(p, f->col, "body %lld does not exist (expected a body index from 0 to %lld)",
                       (long long)value, (long long)p->bodies - 1);
    return fail_at(p, f->col, "body '%.*s' is not a body index (expected a whole number from 0 to %lld)",
                   (int)(f->length > 40 ? 40 : f->length), f->text, (long long)p->bodies - 1);
}

/* ---- lines ------------------------------------------------------------------- */

static int read_header(parser *p, const char *line, size_t length)
{
    field f[MAX_FIELDS + 1];
    int n = split(line, length, f);
    const char *names[MAX_FIELDS] = {"time", "body", "ax", "ay", "az"};
    int ok = n == 5 || (n == 4 && p->dim == 2);
    for (int k = 0; ok && k < n; k++) ok = field_is(&f[k], names[k]);
    if (!ok)
        return fail_at(p, 1, "the header is '%.*s' (expected time,body,ax,ay,az%s)",
                       (int)(length > 60 ? 60 : length), line,
                       p->dim == 2 ? ", or time,body,ax,ay in 2D" : "");
    p->columns = n;
    return 0;
}

static int read_row(const parser *p, const char *line, size_t length, const control_row *previous,
                    control_row *row)
{
    field f[MAX_FIELDS + 1];
    int n = split(line, length, f);
    if (n != p->columns)
        return fail_at(p, n > p->columns ? f[p->columns].col : 1,
                       "a row with %d fields (expected %d, as the header says: time,body,ax,ay%s)", n,
                       p->columns, p->columns == 5 ? ",az" : "");
    double a[3] = {0.0, 0.0, 0.0};
    *row = (control_row){0.0, 0, {0.0, 0.0, 0.0}, p->line};
    if (number_field(p, &f[0], "time", &row->time) != 0) return -1;
    if (row->time < 0.0)
        return fail_at(p, f[0].col, "time %.17g is negative (expected a time >= 0)", row->time);
    if (previous && row->time < previous->time)
        return fail_at(p, f[0].col, "time %.17g is before %.17g on line %lld (expected rows sorted by time)",
                       row->time, previous->time, (long long)previous->line);
    if (body_field(p, &f[1], &row->body) != 0) return -1;
    const char *names[3] = {"ax", "ay", "az"};
    for (int k = 0; k + 2 < n; k++)
        if (number_field(p, &f[k + 2], names[k], &a[k]) != 0) return -1;
    if (p->dim == 2 && a[2] != 0.0)
        return fail_at(p, f[4].col, "az = %.17g in a 2D world (expected 0, or no az column)", a[2]);
    for (int k = 0; k + 2 < n; k++) /* what carom_world_set_body_acceleration takes, checked before the run */
        if (a[k] != 0.0 && !(fabs(a[k]) >= CAROM_SCALE_MIN && fabs(a[k]) <= CAROM_SCALE_MAX))
            return fail_at(p, f[k + 2].col, "%s = %.6g (expected 0, or a magnitude from %g to %g)", names[k], a[k],
                           CAROM_SCALE_MIN, CAROM_SCALE_MAX);
    row->acceleration = (carom_vec){a[0], a[1], a[2]};
    return 0;
}

static int add_row(controls *c, int64_t *capacity, const control_row *row)
{
    if (c->count == *capacity) {
        int64_t grown_capacity = *capacity ? 2 * *capacity : 64;
        control_row *grown = realloc(c->rows, (size_t)grown_capacity * sizeof *grown);
        if (!grown) return -1;
        c->rows = grown, *capacity = grown_capacity;
    }
    c->rows[c->count++] = *row;
    return 0;
}

static int parse(parser *p, const char *text, size_t size, controls *c)
{
    int64_t capacity = 0;
    int have_header = 0;
    for (size_t at = 0; at < size;) {
        const char *line = text + at, *newline = memchr(line, '\n', size - at);
        size_t length = newline ? (size_t)(newline - line) : size - at;
        at += length + 1;
        p->line++;
        if (length > 0 && line[length - 1] == '\r') length--;
        if (memchr(line, '\0', length)) return fail_at(p, 1, "a NUL byte (expected a text file)");
        if (!have_header) {
            if (read_header(p, line, length) != 0) return -1;
            have_header = 1;
            continue;
        }
        if (strspn(line, " \t") >= length) continue;
        control_row row;
        if (read_row(p, line, length, c->count ? &c->rows[c->count - 1] : NULL, &row) != 0) return -1;
        if (add_row(c, &capacity, &row) != 0) return fail_at(p, 1, "out of memory for the rows");
    }
    if (!have_header) {
        p->line = 1;
        return fail_at(p, 1, "the file is empty (expected the header time,body,ax,ay,az)");
    }
    return 0;
}

/* ---- the interface ------------------------------------------------------------ */

int controls_load(const char *path, int dim, int32_t bodies, controls *c, char *error,
                  size_t error_size)
{
    memset(c, 0, sizeof *c);
    char *text = NULL;
    size_t size = 0;
    if (read_whole(path, &text, &size, error, error_size) != 0) return -1;
    parser p = {path, dim, bodies, 0, 0, error, error_size};
    int st = parse(&p, text, size, c);
    c->checksum = carom_crc32c(0, text, size);
    free(text);
    size_t length = strlen(path) + 1;
    if (st == 0 && !(c->path = malloc(length))) st = fail_at(&p, 1, "out of memory");
    if (st != 0) {
        controls_free(c);
        return -1;
    }
    memcpy(c->path, path, length);
    return 0;
}

int64_t controls_window_of(double time, double origin, double window)
{
    double k = ceil((time - origin) / window - 1e-9);
    if (!(k > 0.0)) return 0;
    return k < 9e18 ? (int64_t)k : INT64_MAX;
}

int controls_apply(controls *c, carom_world *world, int64_t window, double origin, double length,
                   char *error, size_t error_size)
{
    for (; c->next < c->count; c->next++) {
        const control_row *row = &c->rows[c->next];
        if (controls_window_of(row->time, origin, length) > window) break;
        if (carom_world_set_body_acceleration(world, row->body, row->acceleration) != CAROM_OK)
            return snprintf(error, error_size, "%s:%lld: %s (expected an acceleration the world takes)",
                            c->path, (long long)row->line, carom_world_message(world)), -1;
    }
    return 0;
}

void controls_free(controls *c)
{
    free(c->path);
    free(c->rows);
    memset(c, 0, sizeof *c);
}
