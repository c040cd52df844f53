/* event_rate.c — an events log binned in time (event_rate.h). Two passes:
 * the first checks every row and finds the time span, the second counts
 * each pair and wall (or rest) event in its bin. Sensor crossings are
 * counted but not binned (they are not collisions).
 */
#define _POSIX_C_SOURCE 200809L
#include "event_rate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LINE_MAX_CHARS = 512 };
enum { KIND_PAIR, KIND_WALL, KIND_SENSOR };

int event_rate_is_log(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[64] = "";
    int is = f && fgets(line, sizeof line, f) && strncmp(line, EVENT_RATE_HEADER, strlen(EVENT_RATE_HEADER)) == 0 &&
             (line[strlen(EVENT_RATE_HEADER)] == '\n' || line[strlen(EVENT_RATE_HEADER)] == '\r');
    if (f) fclose(f);
    return is;
}

/* One row: its time and kind; -1 with a message naming the column. */
static int parse_row(const char *path, long line, char *text, double before, double *t, int *kind, char *why,
                     size_t size)
{
    char *end = NULL;
    *t = strtod(text, &end);
    if (end == text || !isfinite(*t) || *end != ',')
        return snprintf(why, size, "%s:%ld:1: not a time (expected time,kind,i,j as carom run writes)", path, line), -1;
    if (*t < before)
        return snprintf(why, size, "%s:%ld:1: time %.17g is before the previous row's %.17g (expected events in "
                        "time order)", path, line, *t, before), -1;
    char *k = end + 1;
    size_t n = strcspn(k, ",");
    *kind = !strncmp(k, "pair", n) && n == 4 ? KIND_PAIR
            : (n == 4 && (!strncmp(k, "wall", n) || !strncmp(k, "rest", n))) ? KIND_WALL
            : n == 6 && !strncmp(k, "sensor", n) ? KIND_SENSOR : -1;
    if (*kind < 0 || k[n] != ',')
        return snprintf(why, size, "%s:%ld:%ld: '%.*s' is not an event kind (expected pair, wall, rest or sensor)",
                        path, line, (long)(k - text) + 1, (int)(n < 20 ? n : 20), k), -1;
    long i = strtol(k + n + 1, &end, 10);
    if (end == k + n + 1 || i < 0 || *end != ',')
        return snprintf(why, size, "%s:%ld:%ld: not a body index (expected a whole number >= 0)", path, line,
                        (long)(k + n + 1 - text) + 1), -1;
    return 0;
}

/* Walks the rows; with rate->bins set and counts allocated, counts them. */
static int walk(const char *path, event_rate *rate, double *first, double *last, char *why, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f) return snprintf(why, size, "%s:1:1: cannot open (%s)", path, strerror(errno)), -1;
    char text[LINE_MAX_CHARS];
    long line = 0;
    double before = -INFINITY;
    int status = 0;
    while (status == 0 && fgets(text, sizeof text, f)) {
        if (++line == 1) continue; /* the header, checked by event_rate_is_log */
        double t;
        int kind;
        status = parse_row(path, line, text, before, &t, &kind, why, size);
        if (status != 0) break;
        if (before == -INFINITY) *first = t;
        before = *last = t;
        if (kind == KIND_SENSOR) { rate->sensors += rate->pair != NULL; continue; }
        if (!rate->pair) continue;
        int b = rate->width > 0.0 ? (int)((t - rate->start) / rate->width) : 0;
        b = b < 0 ? 0 : b >= rate->bins ? rate->bins - 1 : b;
        if (kind == KIND_PAIR) rate->pair[b]++, rate->pairs++;
        else rate->wall[b]++, rate->walls++;
    }
    fclose(f);
    if (status == 0 && before == -INFINITY)
        status = -1, snprintf(why, size, "%s:2:1: no events (expected rows of time,kind,i,j)", path);
    return status;
}

int event_rate_read(const char *path, int bins, event_rate *rate, char *why, size_t size)
{
    memset(rate, 0, sizeof *rate);
    double first = 0.0, last = 0.0;
    if (walk(path, rate, &first, &last, why, size) != 0) return -1;
    rate->bins = bins, rate->start = first, rate->width = (last - first) / bins;
    rate->pair = calloc((size_t)bins, sizeof *rate->pair);
    rate->wall = calloc((size_t)bins, sizeof *rate->wall);
    if (!rate->pair || !rate->wall) {
        event_rate_free(rate);
        return snprintf(why, size, "out of memory"), -1;
    }
    if (walk(path, rate, &first, &last, why, size) != 0) {
        event_rate_free(rate);
        return -1;
    }
    return 0;
}

void event_rate_free(event_rate *rate)
{
    free(rate->pair), free(rate->wall);
    memset(rate, 0, sizeof *rate);
}
