/* resume.c — copies the part of a trajectory or event log that a checkpoint
 * covers (resume.h). The checkpoint says how much that is: the number of
 * frames its run had written, and its clock for the event log. Lines are
 * read through textline.h: a line longer than TEXTLINE_LIMIT is refused. */
#define _POSIX_C_SOURCE 200809L
#include "resume.h"
#include "textline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct copier {
    FILE *in, *out;
    const char *path;
    char *line;
    size_t capacity;
    size_t length;  /* of the line read last, its '\n' included */
    int64_t number; /* lines read */
    char *error;
    size_t error_size;
} copier;

static int fail(copier *c, const char *what)
{
    snprintf(c->error, c->error_size, "%s:%lld: %s", c->path, (long long)c->number, what);
    return -1;
}

/* Reads the next line: 1, 0 at the end of the file, or -1 with a message. */
static int next_line(copier *c)
{
    errno = 0;
    ssize_t n = textline_read(c->in, &c->line, &c->capacity, TEXTLINE_LIMIT);
    if (n == TEXTLINE_END) return 0;
    c->number++;
    if (n == TEXTLINE_TOO_LONG) {
        char what[200];
        snprintf(what, sizeof what, "a line longer than %d bytes (expected a carom file)", (int)TEXTLINE_LIMIT);
        return fail(c, what);
    }
    if (n < 0) {
        char what[200];
        snprintf(what, sizeof what, "cannot read (%s)", strerror(errno));
        return fail(c, what);
    }
    c->length = (size_t)n;
    return 1;
}

static int write_line(copier *c)
{
    return fwrite(c->line, 1, c->length, c->out) == c->length ? 0 : fail(c, "cannot copy the line");
}

/* Reads the next line and copies it to out. 0, or -1 with a message at the end of the file. */
static int copy_line(copier *c, const char *expected)
{
    int got = next_line(c);
    if (got < 0) return -1;
    if (got == 0) {
        char what[200];
        snprintf(what, sizeof what, "the file ends (expected %s)", expected);
        return fail(c, what);
    }
    return write_line(c);
}

static int open_copier(copier *c, const char *path, FILE *out, char *error, size_t error_size)
{
    *c = (copier){.in = fopen(path, "r"), .out = out, .path = path, .error = error, .error_size = error_size};
    if (c->in) return 0;
    snprintf(error, error_size, "%s: cannot open the file this restart continues (%s)", path, strerror(errno));
    return -1;
}

static int close_copier(copier *c, int status)
{
    free(c->line);
    fclose(c->in);
    return status;
}

/* The value of Time= in a frame's comment line. */
static int frame_time(const char *line, double *time)
{
    const char *at = strstr(line, "Time=");
    while (at && at != line && at[-1] != ' ' && at[-1] != '\t') at = strstr(at + 1, "Time=");
    if (!at) return -1;
    char *end;
    *time = strtod(at + 5, &end);
    return end == at + 5 ? -1 : 0;
}

/* Whether the line read last ends with its line end: a trajectory cut
 * short in the frames the checkpoint covers is damaged, not to be continued. */
static int whole(copier *c)
{
    return c->line[c->length - 1] == '\n' ? 0 : fail(c, "the line is cut short (expected the whole frames the "
                                                          "checkpoint counts)");
}

/* A body's line: its species, then numbers, none NaN (inf is a kinematic
 * body's mass), as carom writes them. */
static int body_line(copier *c)
{
    const char *p = c->line + strspn(c->line, " \t");
    p += strcspn(p, " \t\r\n");
    int numbers = 0;
    for (;;) {
        p += strspn(p, " \t\r\n");
        if (!*p) break;
        char *end;
        double value = strtod(p, &end);
        if (end == p || isnan(value) || (*end && !strchr(" \t\r\n", *end)))
            return fail(c, "a body's line with a value that is not a number (expected a carom trajectory)");
        p = end, numbers++;
    }
    return numbers >= 3 ? 0 : fail(c, "a body's line without a position (expected a carom trajectory)");
}

static int copy_frame(copier *c, int64_t bodies, double *time)
{
    char expected[64];
    snprintf(expected, sizeof expected, "a frame of %lld bodies", (long long)bodies);
    double previous = *time;
    if (copy_line(c, expected) != 0 || whole(c) != 0) return -1;
    char *end;
    long long count = strtoll(c->line, &end, 10);
    if (end == c->line || count != bodies) return fail(c, "a frame of another number of bodies (expected the checkpoint's)");
    if (copy_line(c, "the frame's comment line") != 0 || whole(c) != 0) return -1;
    if (frame_time(c->line, time) != 0) return fail(c, "a frame without Time= (expected a carom trajectory)");
    if (!isfinite(*time) || *time < previous)
        return fail(c, "a frame's Time= is not finite or goes back (expected a carom trajectory)");
    for (int64_t k = 0; k < bodies; k++)
        if (copy_line(c, expected) != 0 || whole(c) != 0 || body_line(c) != 0) return -1;
    return 0;
}

int resume_trajectory(const char *path, int64_t frames, int64_t bodies, FILE *out, double *first_time,
                      double *last_time, char *error, size_t error_size)
{
    copier c;
    if (open_copier(&c, path, out, error, error_size) != 0) return -1;
    *first_time = *last_time = -INFINITY;
    for (int64_t k = 0; k < frames; k++) {
        if (copy_frame(&c, bodies, last_time) != 0) return close_copier(&c, -1);
        if (k == 0) *first_time = *last_time;
    }
    return close_copier(&c, 0);
}

/* One row of the log: 1 copied, 0 at the end of the file or past the rows
 * the checkpoint covers, or -1 with a message. `counted` says whether the
 * checkpoint gave the number of rows (a later row is then damage). */
static int copy_row(copier *c, double until, int counted, double *last_time)
{
    int got = next_line(c);
    if (got < 0) return -1;
    if (got == 0) return 0; /* the end of the file */
    char *end;
    double time = strtod(c->line, &end);
    if (c->line[c->length - 1] != '\n') { /* the last line, cut short: after the checkpoint, or damage */
        if (!counted && (end == c->line || !(time <= until))) return 0;
        return fail(c, "a line cut short before the checkpoint's time (expected the whole event log the "
                       "checkpoint covers)");
    }
    if (isnan(time)) return fail(c, "a time that is not a number (expected time,kind,i,j)");
    if (end == c->line || *end != ',') return fail(c, "a line without a time (expected time,kind,i,j)");
    if (time > until) /* written after the checkpoint: this run writes it again */
        return counted ? fail(c, "a row after the checkpoint's time among the rows it counts (expected the event "
                                 "log the checkpoint covers)") : 0;
    if (time < *last_time) return fail(c, "times out of order (expected a carom event log)");
    if (write_line(c) != 0) return -1;
    *last_time = time;
    return 1;
}

int resume_event_log(const char *path, double until, int64_t rows, FILE *out, double *last_time, int64_t *copied,
                     char *error, size_t error_size)
{
    copier c;
    if (open_copier(&c, path, out, error, error_size) != 0) return -1;
    *last_time = -INFINITY;
    *copied = 0;
    if (copy_line(&c, "the header time,kind,i,j") != 0) return close_copier(&c, -1);
    if (strncmp(c.line, "time,kind,i,j", 13) != 0)
        return close_copier(&c, fail(&c, "not a carom event log (expected the header time,kind,i,j)"));
    while (rows < 0 || *copied < rows) {
        int got = copy_row(&c, until, rows >= 0, last_time);
        if (got == 0 && rows >= 0) {
            char what[200];
            snprintf(what, sizeof what, "the log ends after %lld rows, but the checkpoint's run had written %lld "
                     "(expected the whole event log the checkpoint covers)", (long long)*copied, (long long)rows);
            return close_copier(&c, fail(&c, what));
        }
        if (got <= 0) return close_copier(&c, got);
        ++*copied;
    }
    return close_copier(&c, 0);
}
