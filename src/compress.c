/* compress.c — Lubachevsky-Stillinger compression (carom_compress in
 * carom.h): an event-driven run of its own in which every radius grows as
 * r_i(t) = rho_i (1 + rate t).
 *
 * Pair times: with dx, dv the pair's separation and relative velocity at
 * t0, R(t) = (rho_i + rho_j)(1 + rate t) = R0 + B tau (B = rate (rho_i +
 * rho_j)), contact solves (dv^2 - B^2) tau^2 + 2 (dx.dv - R0 B) tau + dx^2
 * - R0^2 = 0; the earliest root with the gap closing is taken in the form
 * that does not cancel. At contact the normal relative velocity v_n (< B)
 * becomes 2 B - v_n: elastic in the frame of the growing contact, so the
 * pair parts faster than its contact grows (Lubachevsky & Stillinger, J.
 * Stat. Phys. 60, 561 (1990); Donev, Torquato & Stillinger, J. Comput.
 * Phys. 202, 737 (2005)). A wall is met where the body's edge, moving at v
 * + rate rho, reaches it, and the body leaves at -(v + 2 rate rho).
 *
 * Scheduling: single-event, as in the main engine (Smallenburg, Eur. Phys.
 * J. E 45, 22 (2022)): each body keeps its earliest event (a pair, a wall,
 * leaving its cell or shell) with the collision counters of the bodies it
 * names, filed by time in the engine's calendar (calendar.c: a small heap
 * for the near future, time buckets for the rest; ties go to the lower
 * slot); an event whose partner's counter has moved is stale when it comes
 * due, and its body is predicted again then (nothing it could meet earlier
 * is lost: a partner that changed predicted its own earliest event when it
 * changed). A binary heap of every prediction, stale ones included (two to
 * three times N of them), did the same before with the same events. A
 * body's partners come from neighbour lists with a shell that shrinks as the body
 * grows (the main engine's lists, Donev, Torquato & Stillinger 2005, with
 * the growth counted in the shell), filed in cells by their anchors; or,
 * where a periodic side is too short for them or the def asks, straight
 * from cells at least the largest diameter wide. Either way the cells are
 * widened when the bodies outgrow them, and an axis of fewer than three
 * cells is scanned whole. Every N pair collisions the velocities are
 * scaled back to the temperature, the reduced pressure of the interval is
 * measured, and everything is predicted again. */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"
#include "carom.h"

/* The kinds are event.h's EVENT_PAIR, EVENT_WALL, EVENT_CELL and EVENT_SHELL (through calendar.h). */

typedef struct ls_event {
    double time;
    int32_t i, j;          /* j: the partner (pair), the wall 2 axis + side, or the axis and direction (cell) */
    int64_t count_i, count_j;
    int kind;
} ls_event;

typedef struct grid {
    int m[3];           /* cells per axis */
    double width[3];
    int32_t *head;      /* first body of each cell (-1: none) */
    int32_t bodies;
} grid;

/* Neighbour lists with a shell (the main engine's, neighbours.c, made for growing radii). Body i
 * keeps within shell - rate rho_i (t - since_i) of its anchor: its room shrinks as it grows. Pair
 * (i, j) is listed when their anchors are within r_i(since_i) + r_j(since_j) + 2 shell; then an
 * unlisted pair cannot touch, for |x_i - x_j| > |a_i - a_j| - (shell - growth_i) - (shell -
 * growth_j) >= r_i(t) + r_j(t). Lists are symmetric; rows live in one pool, a row that fills moves
 * to the pool's end with twice the room, and the pool is laid out afresh at every rebuild. */
typedef struct lists {
    int on;
    double shell;
    double *anchor, *since; /* anchor: [body][4], where (inside the box) and the radius then */
    int64_t *at;            /* a row's first entry in pool */
    int32_t *count, *room;
    int32_t *pool;
    int64_t used, size;
} lists;

/* A body's motion (position x at its time t, velocity v) and its radius at t = 0: everything a
 * pair test reads of it, on one cache line. */
typedef struct flight {
    double x[3], v[3], t, rho;
} flight;
_Static_assert(sizeof(flight) == 64, "a flight is one cache line");

typedef struct ls {
    int dim, n;
    double side[3], half[3];
    int periodic[3];
    double rate, now, temperature;
    flight *b;                      /* each body's motion, one cache line */
    double *mass;
    int64_t *count;                 /* velocity changes of each body */
    grid grids[2];                  /* 0: bodies up to the split radius; 1: the larger ones */
    unsigned char *level;           /* each body's grid */
    int32_t *id;                    /* the input's index of the body in each slot (sort_bodies) */
    double rho_split;
    int32_t *next, *prev, *cell;
    ls_event *pending;              /* each body's earliest event, filed by time in due */
    calendar due;
    double virial, window_start;
    int64_t pairs_since, events, pair_events;
    int64_t rescales;
    double pressure;
    double rho_max;
    double shell_choice; /* carom_compress_def.neighbour_shell */
    lists nb;
} ls;

static double scale_at(const ls *s, double t) { return 1.0 + s->rate * t; }

static int fail(char *why, size_t size, const char *format, ...)
{
    if (why && size) {
        va_list args;
        va_start(args, format);
        vsnprintf(why, size, format, args);
        va_end(args);
    }
    return -1;
}

/* ---- cells ------------------------------------------------------------------- */

static int cell_index(const ls *s, const grid *g, const double *x, int axis)
{
    int k = (int)floor((x[axis] + s->half[axis]) / g->width[axis]);
    return k < 0 ? 0 : (k >= g->m[axis] ? g->m[axis] - 1 : k);
}

static int32_t stride_of(const grid *g, int axis) { return axis == 0 ? 1 : axis == 1 ? g->m[0] : g->m[0] * g->m[1]; }

static int cell_coordinate(const grid *g, int32_t c, int axis) { return (c / stride_of(g, axis)) % g->m[axis]; }

static int32_t cell_of_position(const ls *s, const grid *g, const double *x)
{
    int32_t c = 0;
    for (int a = 2; a >= 0; a--) c = c * g->m[a] + (a < s->dim ? cell_index(s, g, x, a) : 0);
    return c;
}

static grid *grid_of(ls *s, int32_t i) { return &s->grids[s->level[i]]; }

static void unlink_body(ls *s, int32_t i)
{
    if (s->prev[i] >= 0) s->next[s->prev[i]] = s->next[i];
    else grid_of(s, i)->head[s->cell[i]] = s->next[i];
    if (s->next[i] >= 0) s->prev[s->next[i]] = s->prev[i];
}

static void link_body(ls *s, int32_t i, int32_t c)
{
    int32_t *head = grid_of(s, i)->head;
    s->cell[i] = c;
    s->prev[i] = -1;
    s->next[i] = head[c];
    if (head[c] >= 0) s->prev[head[c]] = i;
    head[c] = i;
}

/* The largest radius of each level now: the split radius, and the largest. */
static double level_radius(const ls *s, int level) { return level == 0 ? s->rho_split : s->rho_max; }

/* Where body i is filed: its anchor with lists, else where it is. */
static const double *filed_position(const ls *s, int32_t i)
{
    return s->nb.on ? &s->nb.anchor[4 * i] : s->b[i].x;
}

/* How wide a level's cells must be now: its largest diameter, and with lists two shells more. */
static double needed_width(const ls *s, int level)
{
    return 2.0 * level_radius(s, level) * scale_at(s, s->now) + (s->nb.on ? 2.0 * s->nb.shell : 0.0);
}

/* Each level's cells 5% wider than they must be now (grow_cells widens them before they are outgrown). */
static int build_cells(ls *s)
{
    for (int l = 0; l < 2; l++) {
        grid *g = &s->grids[l];
        double diameter = 1.05 * needed_width(s, l);
        int64_t cells = 1;
        for (int a = 0; a < 3; a++) {
            g->m[a] = a < s->dim ? (int)floor(s->side[a] / diameter) : 1;
            if (g->m[a] < 1) g->m[a] = 1;
            if (g->m[a] > 1024) g->m[a] = 1024;
            g->width[a] = a < s->dim ? s->side[a] / g->m[a] : 1.0;
            cells *= g->m[a];
        }
        free(g->head);
        g->head = malloc((size_t)cells * sizeof *g->head);
        if (!g->head) return -1;
        for (int64_t c = 0; c < cells; c++) g->head[c] = -1;
    }
    for (int32_t i = 0; i < s->n; i++) link_body(s, i, cell_of_position(s, grid_of(s, i), filed_position(s, i)));
    return 0;
}

/* Bodies up to twice the mean radius are small (level 0), the rest large (the two-level grid of Ogarko &
 * Luding, Comput. Phys. Commun. 183, 931 (2012)): a few large bodies do not make every cell large. */
static void split_levels(ls *s)
{
    double mean = 0;
    for (int32_t i = 0; i < s->n; i++) mean += s->b[i].rho / s->n;
    s->rho_split = 0;
    for (int32_t i = 0; i < s->n; i++)
        if (s->b[i].rho <= 2.0 * mean && s->b[i].rho > s->rho_split) s->rho_split = s->b[i].rho;
    for (int32_t i = 0; i < s->n; i++) {
        s->level[i] = s->b[i].rho > s->rho_split;
        s->grids[s->level[i]].bodies++;
    }
}

/* ---- prediction ----------------------------------------------------------------- */

static void position_at(const ls *s, int32_t i, double t, double *out)
{
    for (int a = 0; a < 3; a++) out[a] = s->b[i].x[a] + s->b[i].v[a] * (t - s->b[i].t);
}

/* The gap's closing time tau >= 0 of a pair (INFINITY: never). */
static double pair_time(double dx2, double dxdv, double dv2, double r0, double growth)
{
    double a = dv2 - growth * growth, b = dxdv - r0 * growth, c = dx2 - r0 * r0;
    if (c < 0) c = 0; /* touching, by rounding: the approach decides */
    if (b < 0) {
        double disc = b * b - a * c;
        if (disc < 0) return INFINITY;
        return c / (-b + sqrt(disc));
    }
    if (a < 0) return (b + sqrt(b * b - a * c)) / -a;
    return INFINITY;
}

/* The nearest image of a separation on a periodic axis (positions stay within a side of each other). */
static double nearest(const ls *s, double d, int a)
{
    if (!s->periodic[a]) return d;
    if (d > s->half[a]) return d - s->side[a];
    if (d < -s->half[a]) return d + s->side[a];
    return d;
}

/* Whether a pair's gap f(tau) = a tau^2 + 2 b tau + c (pair_time's a, b, c) surely stays open
 * over [0, h]: there f >= c + 2 min(b, 0) h + min(a, 0) h^2, each term at its least, and a bound
 * clear of the rounding of its terms by a part in 10^9 leaves the contact, if any, well after h,
 * where the pair could not be chosen anyway. Most pairs of a scan end here, before the square root. */
static int stays_open(double dx2, double dxdv, double dv2, double r0, double growth, double h)
{
    double a = dv2 - growth * growth, b = dxdv - r0 * growth, c = dx2 - r0 * r0;
    double low = c + 2.0 * (b < 0.0 ? b : 0.0) * h + (a < 0.0 ? a : 0.0) * h * h; /* (no libm call) */
    return low > 1e-9 * (dx2 + r0 * r0 + 2.0 * fabs(b) * h + (dv2 + growth * growth) * h * h);
}

static void consider_pair(const ls *s, int32_t i, const double *xi, int32_t j, ls_event *best)
{
    double dx2 = 0, dxdv = 0, dv2 = 0, since = s->now - s->b[j].t;
    for (int a = 0; a < s->dim; a++) {
        double d = nearest(s, s->b[j].x[a] + s->b[j].v[a] * since - xi[a], a);
        double dv = s->b[j].v[a] - s->b[i].v[a];
        dx2 += d * d, dxdv += d * dv, dv2 += dv * dv;
    }
    double rho = s->b[i].rho + s->b[j].rho, r0 = rho * scale_at(s, s->now), growth = s->rate * rho;
    if (best->time < INFINITY && stays_open(dx2, dxdv, dv2, r0, growth, best->time - s->now)) return;
    double tau = pair_time(dx2, dxdv, dv2, r0, growth);
    if (s->now + tau < best->time)
        *best = (ls_event){s->now + tau, i, j, s->count[i], s->count[j], EVENT_PAIR};
}

/* The cells of g covering [lo, hi] on an axis: clipped at walls, wrapped (each once) on a periodic axis. */
static int cells_covering(const ls *s, const grid *g, int a, double lo, double hi, int out[])
{
    int first = (int)floor((lo + s->half[a]) / g->width[a]), last = (int)floor((hi + s->half[a]) / g->width[a]);
    int count = 0;
    if (s->periodic[a] && last - first + 1 >= g->m[a]) {
        for (int k = 0; k < g->m[a]; k++) out[count++] = k;
        return count;
    }
    for (int k = first; k <= last; k++) {
        int wrapped = s->periodic[a] ? ((k % g->m[a]) + g->m[a]) % g->m[a] : k;
        if (wrapped >= 0 && wrapped < g->m[a]) out[count++] = wrapped;
    }
    return count;
}

/* How far beyond i's own cell, on axis a, a body of grid g can touch it. Where both grids have three
 * cells or more on the axis, each cell is wider than its level's largest diameter (cells_outgrown
 * widens them before they are outgrown), so a contact, r_i + r_j, is shorter than half the two widths
 * together: for a large body among small ones half its own cell and half a small one, not a whole
 * large cell (a third as many small cells in 3D). Elsewhere the wider of the two cells, which with
 * fewer than three cells reaches every cell there is. */
static double contact_reach(const grid *own, const grid *g, int a)
{
    if (own->m[a] >= 3 && g->m[a] >= 3) return 0.5 * (own->width[a] + g->width[a]);
    return fmax(own->width[a], g->width[a]);
}

/* The cells of grid g within reach of i's own cell on each axis: its cell widened on each side by
 * contact_reach (with lists, i's cell is its anchor's, and the cells are two shells wider too). */
typedef struct cell_span {
    int near[3][1024], count[3];
} cell_span;

static void cells_in_reach(const ls *s, int32_t i, const grid *g, cell_span *span)
{
    const grid *own = &s->grids[s->level[i]];
    for (int a = 0; a < 3; a++) {
        if (a >= s->dim) {
            span->near[a][0] = 0, span->count[a] = 1;
            continue;
        }
        double lo = -s->half[a] + cell_coordinate(own, s->cell[i], a) * own->width[a];
        double reach = contact_reach(own, g, a), inward = 1e-9 * reach; /* cells merely touching the
            interval hold nobody within reach (it is 5% more than any contact): rounding may leave them out */
        span->count[a] = cells_covering(s, g, a, lo - reach + inward, lo + own->width[a] + reach - inward,
                                        span->near[a]);
    }
}

static int32_t span_cell(const grid *g, const cell_span *span, int p, int q, int r)
{
    return (span->near[2][r] * g->m[1] + span->near[1][q]) * g->m[0] + span->near[0][p];
}

/* Calls visit(s, i, j, context) for every body j but i in the cells of grid g within reach of i;
 * stops at the first non-zero return and returns it. */
typedef int (*body_visit)(ls *s, int32_t i, int32_t j, void *context);

#if defined(__GNUC__)
#define INLINED static inline __attribute__((always_inline)) /* so that each caller's visit is inlined too */
#else
#define INLINED static inline
#endif

INLINED int each_in_reach(ls *s, int32_t i, const grid *g, body_visit visit, void *context)
{
    cell_span span;
    cells_in_reach(s, i, g, &span);
    for (int p = 0; p < span.count[0]; p++)
        for (int q = 0; q < span.count[1]; q++)
            for (int r = 0; r < span.count[2]; r++)
                for (int32_t j = g->head[span_cell(g, &span, p, q, r)]; j >= 0; j = s->next[j]) {
                    int stop = j != i ? visit(s, i, j, context) : 0;
                    if (stop) return stop;
                }
    return 0;
}

typedef struct pair_search {
    const double *xi;
    ls_event *best;
} pair_search;

static int offer_pair(ls *s, int32_t i, int32_t j, void *context)
{
    pair_search *search = context;
    consider_pair(s, i, search->xi, j, search->best);
    return 0;
}

/* Pairs of i with the bodies of grid g in the cells within reach (the scan only reads s). */
static void consider_grid(const ls *s, int32_t i, const double *xi, const grid *g, ls_event *best)
{
    pair_search search = {xi, best};
    each_in_reach((ls *)s, i, g, offer_pair, &search);
}

static void bring(ls *s, int32_t i);

/* ---- neighbour lists ------------------------------------------------------------ */

static int32_t *row_of(const ls *s, int32_t i) { return s->nb.pool + s->nb.at[i]; }

/* Room for `more` entries at the pool's end. */
static int pool_reserve(ls *s, int64_t more)
{
    lists *nb = &s->nb;
    if (nb->used + more <= nb->size) return 0;
    int64_t size = 2 * nb->size > nb->used + more ? 2 * nb->size : nb->used + more;
    int32_t *grown = realloc(nb->pool, (size_t)size * sizeof *grown);
    if (!grown) return -1;
    nb->pool = grown, nb->size = size;
    return 0;
}

/* Appends j to i's row; a full row moves to the pool's end with twice the room. */
static int row_append(ls *s, int32_t i, int32_t j)
{
    lists *nb = &s->nb;
    if (nb->count[i] == nb->room[i]) {
        int32_t room = nb->room[i] < 4 ? 8 : 2 * nb->room[i];
        if (pool_reserve(s, room) != 0) return -1;
        memmove(nb->pool + nb->used, row_of(s, i), (size_t)nb->count[i] * sizeof *nb->pool);
        nb->at[i] = nb->used, nb->room[i] = room, nb->used += room;
    }
    row_of(s, i)[nb->count[i]++] = j;
    return 0;
}

/* Takes j out of i's row (it is there: the lists are symmetric). */
static void row_remove(ls *s, int32_t i, int32_t j)
{
    int32_t *row = row_of(s, i), k = 0;
    while (k < s->nb.count[i] && row[k] != j) k++;
    assert(k < s->nb.count[i]);
    row[k] = row[--s->nb.count[i]];
}

/* Whether anchors i and j are within reach: the radii they had when anchored and two shells, with a
 * margin far above the rounding of the shell exits (nearest images on periodic axes). */
static int anchors_in_reach(const ls *s, int32_t i, int32_t j)
{
    const double *ai = &s->nb.anchor[4 * i], *aj = &s->nb.anchor[4 * j];
    double d2 = 0;
    for (int a = 0; a < s->dim; a++) {
        double d = nearest(s, aj[a] - ai[a], a);
        d2 += d * d;
    }
    double reach = ai[3] + aj[3] + 2.0 * s->nb.shell;
    return d2 < reach * reach * (1.0 + 1e-9);
}

static int list_pair(ls *s, int32_t i, int32_t j, void *both_ways)
{
    if (!anchors_in_reach(s, i, j)) return 0;
    return row_append(s, i, j) != 0 || (*(const int *)both_ways && row_append(s, j, i) != 0) ? -1 : 0;
}

/* Every body within reach of i's anchor, appended to i's row (and i to theirs if both_ways). */
static int collect_row(ls *s, int32_t i, int both_ways)
{
    for (int l = 0; l < 2; l++)
        if (s->grids[l].bodies > 0 && each_in_reach(s, i, &s->grids[l], list_pair, &both_ways) != 0) return -1;
    return 0;
}

/* A periodic coordinate back inside the box (exactly: x - side is exact for x in [side / 2, 2 side]). */
static void wrap_position(ls *s, int32_t i)
{
    for (int a = 0; a < s->dim; a++) {
        double *x = &s->b[i].x[a];
        if (!s->periodic[a]) continue;
        if (*x >= s->half[a]) *x -= s->side[a];
        else if (*x < -s->half[a]) *x += s->side[a];
    }
}

static void set_anchor(ls *s, int32_t i)
{
    wrap_position(s, i);
    memcpy(&s->nb.anchor[4 * i], s->b[i].x, 3 * sizeof(double));
    s->nb.anchor[4 * i + 3] = s->b[i].rho * scale_at(s, s->now);
    s->nb.since[i] = s->now;
}

static int reserve_lists(ls *s)
{
    lists *nb = &s->nb;
    if (nb->anchor) return 0;
    size_t n = (size_t)s->n;
    nb->anchor = aligned_alloc(32, 4 * n * sizeof(double)), nb->since = malloc(n * sizeof(double));
    nb->at = malloc(n * sizeof(int64_t)), nb->count = malloc(n * sizeof(int32_t));
    nb->room = malloc(n * sizeof(int32_t));
    return nb->anchor && nb->since && nb->at && nb->count && nb->room ? 0 : -1;
}

/* Every row made afresh from the anchors, laid out in body order with a third more room than each
 * needs (so the pool's holes from moved rows go too). */
static int build_rows(ls *s)
{
    lists *nb = &s->nb;
    nb->used = 0;
    for (int32_t i = 0; i < s->n; i++) {
        nb->at[i] = nb->used, nb->count[i] = 0;
        if (pool_reserve(s, 64) != 0) return -1;
        int64_t free_end = nb->size - nb->used; /* collect into the pool's free end */
        nb->room[i] = free_end < INT32_MAX ? (int32_t)free_end : INT32_MAX;
        if (collect_row(s, i, 0) != 0) return -1;
        int32_t room = nb->count[i] + nb->count[i] / 3 + 2;
        if (pool_reserve(s, room) != 0) return -1; /* (the row may have moved while collecting) */
        nb->room[i] = room;
        nb->used = nb->at[i] + room;
    }
    return 0;
}

/* Body i has reached its shell: it leaves its old neighbours' rows, takes its anchor here, is filed
 * there, and lists (both ways) everyone within reach. */
static int renew(ls *s, int32_t i)
{
    bring(s, i);
    const int32_t *row = row_of(s, i);
    for (int32_t k = 0; k < s->nb.count[i]; k++) row_remove(s, row[k], i);
    s->nb.count[i] = 0;
    set_anchor(s, i);
    unlink_body(s, i);
    link_body(s, i, cell_of_position(s, grid_of(s, i), filed_position(s, i)));
    return collect_row(s, i, 1);
}

/* When body i, at x now, reaches the edge of its shrinking shell: the first s >= 0 with
 * |d + v s| = room - g s (d = x - anchor, g its radius's growth speed). Squared, (v^2 - g^2) s^2 +
 * 2 (d.v + room g) s + d^2 - room^2 = 0, whose one positive root (when |v| > g) is taken in the form
 * that does not cancel; a body slower than its growth takes the earlier (room - |d|) / (|v| + g). */
static double shell_exit(const ls *s, int32_t i, const double *x)
{
    const double *anchor = &s->nb.anchor[4 * i], *v = s->b[i].v;
    double g = s->rate * s->b[i].rho, room = s->nb.shell - g * (s->now - s->nb.since[i]);
    double d2 = 0, dv = 0, v2 = 0;
    for (int a = 0; a < s->dim; a++) {
        double d = x[a] - anchor[a];
        d2 += d * d, dv += d * v[a], v2 += v[a] * v[a];
    }
    double A = v2 - g * g, B = dv + room * g, C = d2 - room * room;
    if (!(room > 0) || C >= 0) return 0.0;
    if (!(A > 0)) return (room - sqrt(d2)) / (sqrt(v2) + g);
    double root = sqrt(B * B - A * C);
    return B >= 0 ? -C / (B + root) : (root - B) / A;
}

static void consider_pairs(const ls *s, int32_t i, ls_event *best)
{
    double xi[3];
    position_at(s, i, s->now, xi);
    if (s->nb.on) {
        const int32_t *row = row_of(s, i);
        for (int32_t k = 0; k < s->nb.count[i]; k++) consider_pair(s, i, xi, row[k], best);
        return;
    }
    for (int l = 0; l < 2; l++)
        if (s->grids[l].bodies > 0) consider_grid(s, i, xi, &s->grids[l], best);
}

static void consider_walls_and_cells(const ls *s, int32_t i, ls_event *best)
{
    double x[3];
    position_at(s, i, s->now, x);
    double r0 = s->b[i].rho * scale_at(s, s->now), growth = s->rate * s->b[i].rho;
    for (int a = 0; a < s->dim; a++) {
        double v = s->b[i].v[a];
        if (!s->periodic[a]) {
            if (v + growth > 0) {
                double tau = fmax(0.0, (s->half[a] - r0 - x[a]) / (v + growth));
                if (s->now + tau < best->time) *best = (ls_event){s->now + tau, i, 2 * a + 1, s->count[i], 0, EVENT_WALL};
            }
            if (-v + growth > 0) {
                double tau = fmax(0.0, (x[a] - r0 + s->half[a]) / (-v + growth));
                if (s->now + tau < best->time) *best = (ls_event){s->now + tau, i, 2 * a, s->count[i], 0, EVENT_WALL};
            }
        }
        const grid *g = &s->grids[s->level[i]];
        if (s->nb.on || g->m[a] < 2 || v == 0) continue; /* with lists, bodies stay filed by anchor */
        int k = cell_coordinate(g, s->cell[i], a); /* the body's own cell, never rounding's idea of it */
        if (!s->periodic[a] && ((v > 0 && k == g->m[a] - 1) || (v < 0 && k == 0))) continue;
        double edge = -s->half[a] + (v > 0 ? k + 1 : k) * g->width[a];
        double tau = fmax(0.0, (edge - x[a]) / v);
        if (s->now + tau < best->time) *best = (ls_event){s->now + tau, i, 2 * a + (v > 0), s->count[i], 0, EVENT_CELL};
    }
    if (!s->nb.on) return;
    double tau = shell_exit(s, i, x);
    if (s->now + tau < best->time) *best = (ls_event){s->now + tau, i, 0, s->count[i], 0, EVENT_SHELL};
}

/* Body i's earliest event replaces the one it had; none if it meets nothing. */
static void predict(ls *s, int32_t i)
{
    ls_event best = {INFINITY, i, -1, s->count[i], 0, EVENT_CELL};
    consider_walls_and_cells(s, i, &best);
    consider_pairs(s, i, &best);
    s->pending[i] = best;
    if (isfinite(best.time)) calendar_set(&s->due, i, best.time);
    else calendar_remove(&s->due, i);
}

static void predict_all(ls *s)
{
    calendar_clear(&s->due);
    for (int32_t i = 0; i < s->n; i++) predict(s, i);
}

/* ---- processing ----------------------------------------------------------------- */

static void bring(ls *s, int32_t i)
{
    position_at(s, i, s->now, s->b[i].x);
    s->b[i].t = s->now;
}

static void collide_pair(ls *s, int32_t i, int32_t j)
{
    bring(s, i), bring(s, j);
    double n[3] = {0, 0, 0}, length = 0, vn = 0;
    for (int a = 0; a < s->dim; a++) {
        double d = nearest(s, s->b[j].x[a] - s->b[i].x[a], a);
        n[a] = d, length += d * d;
    }
    length = sqrt(length);
    for (int a = 0; a < s->dim; a++) n[a] /= length, vn += (s->b[j].v[a] - s->b[i].v[a]) * n[a];
    double growth = s->rate * (s->b[i].rho + s->b[j].rho), change = 2.0 * (growth - vn);
    if (change < 0) change = 0; /* parting already (by rounding): nothing to do */
    double total = s->mass[i] + s->mass[j];
    for (int a = 0; a < s->dim; a++) {
        s->b[i].v[a] -= s->mass[j] / total * change * n[a];
        s->b[j].v[a] += s->mass[i] / total * change * n[a];
    }
    s->virial += s->mass[i] * s->mass[j] / total * change * length; /* r_ij . dp_i */
    s->count[i]++, s->count[j]++;
    s->pairs_since++, s->pair_events++;
}

static void bounce(ls *s, int32_t i, int wall)
{
    bring(s, i);
    int a = wall / 2;
    double growth = s->rate * s->b[i].rho;
    s->b[i].v[a] = wall % 2 ? -s->b[i].v[a] - 2.0 * growth : -s->b[i].v[a] + 2.0 * growth;
    s->count[i]++;
}

static void cross(ls *s, int32_t i, int code)
{
    bring(s, i);
    const grid *g = grid_of(s, i);
    int a = code / 2, k = cell_coordinate(g, s->cell[i], a);
    int to = code % 2 ? k + 1 : k - 1;
    if (to >= g->m[a]) to = 0, s->b[i].x[a] -= s->side[a];
    if (to < 0) to = g->m[a] - 1, s->b[i].x[a] += s->side[a];
    unlink_body(s, i);
    link_body(s, i, s->cell[i] + (to - k) * stride_of(g, a));
}

/* kT as carom_stats counts it: 2 (KE - KE_cm) / (d N - c), c and KE_cm over the periodic axes (whose
 * momentum is conserved; walls take momentum). */
static double kinetic_temperature(const ls *s)
{
    double twice = 0, momentum[3] = {0, 0, 0}, total = 0, centre = 0;
    int conserved = 0;
    for (int32_t i = 0; i < s->n; i++) {
        total += s->mass[i];
        for (int a = 0; a < s->dim; a++) {
            twice += s->mass[i] * s->b[i].v[a] * s->b[i].v[a];
            momentum[a] += s->mass[i] * s->b[i].v[a];
        }
    }
    for (int a = 0; a < s->dim; a++)
        if (s->periodic[a]) conserved++, centre += momentum[a] * momentum[a] / total;
    double freedom = s->dim * (double)s->n - conserved;
    return freedom > 0 ? (twice - centre) / freedom : 0.0;
}

/* Bodies wander from the places the last sort gave them, and in a large
 * world a list renewal that reads its candidates' anchors from all over
 * memory waits on the cache for each: from RESORT_FROM_BODIES bodies, every
 * RESORT_EVERY rescales (about as many pair collisions a body) everything
 * is sorted and listed again, as the main engine's order.c sorts every 16
 * events a body. Below, where the anchors stay in cache, the new lists
 * would cost more than the sorting gains. */
enum { RESORT_EVERY = 2, RESORT_FROM_BODIES = 1 << 16 };
static int rebuild(ls *s);

/* Scales the velocities back to the temperature and measures the interval's pressure. */
static int rescale(ls *s)
{
    for (int32_t i = 0; i < s->n; i++) bring(s, i);
    double window = s->now - s->window_start;
    if (window > 0) s->pressure = 1.0 + s->virial / (s->dim * s->n * s->temperature * window);
    double now = kinetic_temperature(s), f = now > 0 ? sqrt(s->temperature / now) : 1.0;
    for (int32_t i = 0; i < s->n; i++) {
        for (int a = 0; a < s->dim; a++) s->b[i].v[a] *= f;
        s->count[i]++;
    }
    s->virial = 0, s->window_start = s->now, s->pairs_since = 0;
    if (s->n >= RESORT_FROM_BODIES && ++s->rescales % RESORT_EVERY == 0) return rebuild(s);
    predict_all(s);
    return 0;
}

/* When a level's largest diameter reaches its narrowest cell of an axis of 3 or more (INFINITY: never). */
static double cells_outgrown(const ls *s)
{
    double when = INFINITY;
    for (int l = 0; l < 2; l++)
        for (int a = 0; a < s->dim; a++)
            if (s->grids[l].bodies > 0 && s->grids[l].m[a] >= 3) {
                double room = s->grids[l].width[a] - (s->nb.on ? 2.0 * s->nb.shell : 0.0);
                double at = (room / (2.0 * level_radius(s, l)) - 1.0) / s->rate;
                when = at < when ? at : when;
            }
    return when;
}

/* The shell, in the mean diameter now: the main engine's 0.3 (neighbours.c) unless the def says
 * otherwise; 0 for cells (asked for, or lists whose cells would not leave three a periodic side,
 * where a body could be in reach through two images). */
static double choose_shell(const ls *s)
{
    if (s->shell_choice < 0) return 0.0;
    double mean = 0;
    for (int32_t i = 0; i < s->n; i++) mean += 2.0 * s->b[i].rho / s->n;
    double shell = (s->shell_choice > 0 ? s->shell_choice : 0.3) * mean * scale_at(s, s->now);
    for (int l = 0; l < 2; l++)
        for (int a = 0; a < s->dim; a++)
            if (s->grids[l].bodies > 0 && s->periodic[a] &&
                s->side[a] < 3.0 * 1.05 * (2.0 * level_radius(s, l) * scale_at(s, s->now) + 2.0 * shell))
                return 0.0;
    return shell;
}

/* A sorting key: the body's cell in a grid of at most about n cells (z, then y, then x). */
static int64_t sorting_cell(const ls *s, const double *x, const int m[3])
{
    int64_t key = 0;
    for (int a = 2; a >= 0; a--) {
        int k = a < s->dim ? (int)floor((x[a] + s->half[a]) / s->side[a] * m[a]) : 0;
        key = key * m[a] + (k < 0 ? 0 : k >= m[a] ? m[a] - 1 : k);
    }
    return key;
}

/* The bodies renumbered along such cells, so that the records a prediction reads lie near each
 * other in memory (as order.c does for the main engine); id follows them. Done at each rebuild,
 * where no event, cell or row refers to a slot yet. A counting sort, stable, so the order is a
 * function of the positions alone. */
static int sort_bodies(ls *s)
{
    int m[3] = {1, 1, 1};
    double per_axis = s->dim == 3 ? cbrt((double)s->n) : sqrt((double)s->n);
    for (int a = 0; a < s->dim; a++) m[a] = per_axis < 1 ? 1 : per_axis > 1000 ? 1000 : (int)per_axis;
    int64_t cells = (int64_t)m[0] * m[1] * m[2], *start = calloc((size_t)cells + 1, sizeof *start);
    int32_t *order = malloc((size_t)s->n * sizeof *order), *id = malloc((size_t)s->n * sizeof *id);
    flight *b = aligned_alloc(64, (size_t)s->n * sizeof *b);
    double *mass = malloc((size_t)s->n * sizeof *mass);
    int64_t *count = malloc((size_t)s->n * sizeof *count);
    unsigned char *level = malloc((size_t)s->n);
    int failed = !start || !order || !id || !b || !mass || !count || !level;
    for (int32_t i = 0; !failed && i < s->n; i++) start[sorting_cell(s, s->b[i].x, m) + 1]++;
    for (int64_t c = 0; !failed && c < cells; c++) start[c + 1] += start[c];
    for (int32_t i = 0; !failed && i < s->n; i++) order[start[sorting_cell(s, s->b[i].x, m)]++] = i;
    for (int32_t k = 0; !failed && k < s->n; k++) {
        int32_t i = order[k];
        b[k] = s->b[i], mass[k] = s->mass[i], count[k] = s->count[i], level[k] = s->level[i], id[k] = s->id[i];
    }
    if (!failed) {
        flight *old_b = s->b;
        double *old_mass = s->mass;
        int64_t *old_count = s->count;
        unsigned char *old_level = s->level;
        int32_t *old_id = s->id;
        s->b = b, s->mass = mass, s->count = count, s->level = level, s->id = id;
        b = old_b, mass = old_mass, count = old_count, level = old_level, id = old_id;
    }
    free(start), free(order), free(id), free(b), free(mass), free(count), free(level);
    return failed ? -1 : 0;
}

/* Everyone brought to now and back in the box and sorted in space, the cells made for the sizes now,
 * the lists (if any) made afresh, and everyone predicted again. */
static int rebuild(ls *s)
{
    for (int32_t i = 0; i < s->n; i++) bring(s, i), wrap_position(s, i);
    if (sort_bodies(s) != 0) return -1;
    s->nb.shell = choose_shell(s);
    s->nb.on = s->nb.shell > 0;
    if (s->nb.on) {
        if (reserve_lists(s) != 0) return -1;
        for (int32_t i = 0; i < s->n; i++) set_anchor(s, i);
    }
    if (build_cells(s) != 0 || (s->nb.on && build_rows(s) != 0)) return -1;
    predict_all(s);
    return 0;
}

/* ---- setup and the loop ----------------------------------------------------------- */

static double volume_of_bodies(const ls *s, double t)
{
    double sum = 0, f = scale_at(s, t);
    for (int32_t i = 0; i < s->n; i++) {
        double r = s->b[i].rho * f;
        sum += s->dim == 3 ? 4.0 / 3.0 * 3.14159265358979323846 * r * r * r : 3.14159265358979323846 * r * r;
    }
    return sum;
}

static double box_volume(const ls *s) { return s->side[0] * s->side[1] * (s->dim == 3 ? s->side[2] : 1.0); }

/* When the largest diameter reaches a third of the shortest periodic side (a world's cell grid needs three
 * cells of it), less a part in 10^9, or all but a part in 10^6 of the shortest side between walls: a body
 * that spans the walls would bounce between them ever faster (nothing rescales a body without partners),
 * until the clock could not advance. INFINITY: neither. */
static double box_limit(const ls *s)
{
    double span = INFINITY;
    for (int a = 0; a < s->dim; a++) {
        double most = s->periodic[a] ? (1.0 - 1e-9) * s->side[a] / 3.0 : (1.0 - 1e-6) * s->side[a];
        span = most < span ? most : span;
    }
    if (!isfinite(span)) return INFINITY;
    return (span / (2.0 * s->rho_max) - 1.0) / s->rate;
}

static int check_world(const carom_world *world, const carom_world_def *def, char *why, size_t size)
{
    if (def->container) return fail(why, size, "compress: the world has a container (expected a box)");
    double g[3] = {def->gravity.x, def->gravity.y, def->gravity.z};
    for (int a = 0; a < def->dim; a++)
        if (g[a] != 0) return fail(why, size, "compress: the world has gravity (expected none)");
    int32_t n = carom_world_body_count(world);
    if (n < 1) return fail(why, size, "compress: the world has no bodies");
    for (int32_t i = 0; i < n; i++) {
        carom_body_state b;
        carom_world_get_body(world, i, &b);
        if (!isfinite(b.mass)) return fail(why, size, "compress: body %d is kinematic (expected free bodies)", (int)i);
        if (b.polygon_vertices > 0) return fail(why, size, "compress: body %d is a polygon (expected disks or spheres)", (int)i);
        if (b.acceleration.x != 0 || b.acceleration.y != 0 || b.acceleration.z != 0)
            return fail(why, size, "compress: body %d has an own acceleration (expected none)", (int)i);
    }
    return 0;
}

static int load(ls *s, const carom_world *world, const carom_world_def *def)
{
    s->dim = def->dim;
    s->n = carom_world_body_count(world);
    double box[3] = {def->box.x, def->box.y, def->box.z};
    for (int a = 0; a < 3; a++) {
        s->side[a] = a < s->dim ? box[a] : 1.0;
        s->half[a] = s->side[a] / 2;
        s->periodic[a] = a < s->dim && def->boundary[a] == CAROM_PERIODIC;
    }
    size_t n = (size_t)s->n;
    s->b = aligned_alloc(64, n * sizeof(flight)), s->mass = malloc(n * sizeof(double));
    s->count = calloc(n, sizeof(int64_t));
    s->next = malloc(n * sizeof(int32_t)), s->prev = malloc(n * sizeof(int32_t)), s->cell = malloc(n * sizeof(int32_t));
    s->level = malloc(n), s->id = malloc(n * sizeof(int32_t)), s->pending = malloc(n * sizeof(ls_event));
    if (!s->b || !s->mass || !s->count || !s->next || !s->prev || !s->cell || !s->level || !s->id || !s->pending ||
        calendar_init(&s->due, s->n) != 0)
        return -1;
    for (int32_t i = 0; i < s->n; i++) {
        carom_body_state b;
        carom_world_get_body(world, i, &b);
        double x[3] = {b.position.x, b.position.y, b.position.z}, v[3] = {b.velocity.x, b.velocity.y, b.velocity.z};
        for (int a = 0; a < 3; a++) s->b[i].x[a] = a < s->dim ? x[a] : 0, s->b[i].v[a] = a < s->dim ? v[a] : 0;
        s->b[i].t = 0, s->b[i].rho = b.radius, s->mass[i] = b.mass, s->id[i] = i;
        if (b.radius > s->rho_max) s->rho_max = b.radius;
    }
    split_levels(s);
    return 0;
}

static void release(ls *s)
{
    free(s->b), free(s->mass), free(s->count);
    free(s->next), free(s->prev), free(s->cell), free(s->level), free(s->id), free(s->pending);
    calendar_free(&s->due);
    free(s->grids[0].head), free(s->grids[1].head);
    free(s->nb.anchor), free(s->nb.since), free(s->nb.at), free(s->nb.count), free(s->nb.room), free(s->nb.pool);
}

static int event_valid(const ls *s, const ls_event *e)
{
    if (e->count_i != s->count[e->i]) return 0;
    return e->kind != EVENT_PAIR || e->count_j == s->count[e->j];
}

enum { STUCK = -2, EVENTS_AT_ONE_INSTANT = 1000000 };

/* Processes events until `until` (the target's time), jamming or the cap;
 * STUCK if the clock stops (events without end at one instant, which only
 * rounding could cause). */
static int run(ls *s, const carom_compress_def *def, double until, carom_compress_result *r)
{
    int64_t at_instant = 0;
    double last = s->now;
    for (int32_t i; (i = calendar_first(&s->due)) >= 0;) {
        double t = calendar_first_time(&s->due);
        if (t > last) last = t, at_instant = 0;
        else if (++at_instant > EVENTS_AT_ONE_INSTANT) return STUCK;
        if (s->events >= def->max_events) return r->capped = 1, 0;
        if (!(t < until)) break;
        double outgrown = cells_outgrown(s);
        if (!(t < outgrown)) {
            s->now = outgrown;
            if (rebuild(s) != 0) return -1;
            continue;
        }
        ls_event e = s->pending[i];
        assert(e.i == i && e.time == t && e.count_i == s->count[i]); /* a body's change predicts it again */
        s->now = t;
        if (!event_valid(s, &e)) { /* its partner changed: the body is predicted again now */
            predict(s, i);
            continue;
        }
        s->events++;
        if (e.kind == EVENT_PAIR) collide_pair(s, e.i, e.j);
        else if (e.kind == EVENT_WALL) bounce(s, e.i, e.j);
        else if (e.kind == EVENT_SHELL && renew(s, e.i) != 0) return -1;
        else if (e.kind == EVENT_CELL) cross(s, e.i, e.j);
        predict(s, e.i);
        if (e.kind == EVENT_PAIR) predict(s, e.j);
        if (s->pairs_since >= s->n) {
            if (rescale(s) != 0) return -1;
            if (s->pressure > def->max_pressure) return r->jammed = 1, 0;
        }
    }
    if (isfinite(until)) {
        s->now = until;
        r->reached_target = !r->box_limited;
    }
    return 0;
}

carom_compress_def carom_default_compress_def(void)
{
    carom_compress_def def = {0};
    def.max_pressure = 1e4;
    def.temperature = 1.0;
    def.max_events = 1000000000;
    return def;
}

static int check_def(const carom_compress_def *def, double phi, char *why, size_t size)
{
    if (!def) return fail(why, size, "compress: the def is NULL");
    if (!(def->rate > 0) || !isfinite(def->rate))
        return fail(why, size, "compress: rate = %g (expected a finite rate > 0)", def->rate);
    if (!(def->temperature > 0) || !isfinite(def->temperature))
        return fail(why, size, "compress: temperature = %g (expected a finite kT > 0)", def->temperature);
    if (!(def->max_pressure > 1))
        return fail(why, size, "compress: max_pressure = %g (expected more than 1, the ideal gas)", def->max_pressure);
    if (def->max_events < 1) return fail(why, size, "compress: max_events = %lld (expected >= 1)", (long long)def->max_events);
    if (isnan(def->neighbour_shell) || def->neighbour_shell > 2.0 ||
        (def->neighbour_shell > 0 && def->neighbour_shell < 0.01))
        return fail(why, size, "compress: neighbour_shell = %g (expected 0.01 to 2 mean diameters; 0: automatic, "
                    "< 0: cells)", def->neighbour_shell);
    if (def->target != 0 && !(def->target > phi && def->target < 1))
        return fail(why, size, "compress: target = %g (expected a packing fraction above the start's %.6g and "
                    "below 1, or 0 for jamming)", def->target, phi);
    return 0;
}

/* The world of the compressed bodies, at time 0: the input's definition, the radii shrunk by 1e-12. */
static carom_status make_world(const ls *s, const carom_world *world, carom_world **out, char *why, size_t size)
{
    carom_world_def def = carom_world_definition(world);
    def.capacity_hint = s->n;
    carom_status st = carom_world_create(&def, out, why, size);
    if (st != CAROM_OK) return st;
    int32_t *slot_of = malloc((size_t)s->n * sizeof *slot_of);
    if (!slot_of) {
        carom_world_destroy(*out);
        *out = NULL;
        return fail(why, size, "compress: out of memory"), CAROM_OUT_OF_MEMORY;
    }
    for (int32_t i = 0; i < s->n; i++) slot_of[s->id[i]] = i;
    for (int32_t id = 0; id < s->n && st == CAROM_OK; id++) {
        int32_t i = slot_of[id];
        carom_body_state b;
        carom_world_get_body(world, id, &b);
        carom_body_def d = carom_default_body_def();
        double x[3];
        position_at(s, i, s->now, x);
        for (int a = 0; a < s->dim; a++)
            if (s->periodic[a]) x[a] -= s->side[a] * floor((x[a] + s->half[a]) / s->side[a]);
        d.position = (carom_vec){x[0], x[1], x[2]};
        d.velocity = (carom_vec){s->b[i].v[0], s->b[i].v[1], s->b[i].v[2]};
        d.radius = s->b[i].rho * scale_at(s, s->now) * (1.0 - 1e-12);
        d.mass = b.mass;
        d.orientation = b.orientation, d.angle = b.angle, d.angular_velocity = b.angular_velocity;
        st = carom_world_add_body(*out, &d, NULL);
    }
    free(slot_of);
    if (st != CAROM_OK) {
        fail(why, size, "compress: %s", carom_world_message(*out));
        carom_world_destroy(*out);
        *out = NULL;
    }
    return st;
}

carom_status carom_compress(const carom_world *world, const carom_compress_def *def, carom_world **compressed,
                            carom_compress_result *result, char *why, size_t why_size)
{
    if (compressed) *compressed = NULL;
    if (!world || !compressed) return fail(why, why_size, "compress: a NULL world"), CAROM_INVALID_ARGUMENT;
    carom_world_def wdef = carom_world_definition(world);
    if (check_world(world, &wdef, why, why_size) != 0) return CAROM_INVALID_ARGUMENT;
    ls s;
    memset(&s, 0, sizeof s);
    carom_compress_result r;
    memset(&r, 0, sizeof r);
    r.pressure = NAN;
    carom_status st = CAROM_OUT_OF_MEMORY;
    if (load(&s, world, &wdef) == 0) {
        double phi = volume_of_bodies(&s, 0) / box_volume(&s);
        if (check_def(def, phi, why, why_size) != 0) {
            release(&s);
            return CAROM_INVALID_ARGUMENT;
        }
        s.rate = def->rate, s.temperature = def->temperature, s.pressure = NAN;
        double until = def->target > 0 ? (pow(def->target / phi, 1.0 / s.dim) - 1.0) / def->rate : INFINITY;
        double limit = box_limit(&s);
        if (limit < until) until = limit, r.box_limited = 1;
        s.shell_choice = def->neighbour_shell;
        int ran = rebuild(&s) == 0 ? run(&s, def, until, &r) : -1;
        if (r.jammed || r.capped) r.box_limited = 0;
        if (ran == 0) {
            r.packing_fraction = volume_of_bodies(&s, s.now) / box_volume(&s);
            r.pressure = s.pressure, r.time = s.now, r.events = s.events, r.pair_events = s.pair_events;
            st = make_world(&s, world, compressed, why, why_size);
        } else if (ran == STUCK) {
            fail(why, why_size, "compress: more than %d events at t = %.17g without the clock advancing",
                 EVENTS_AT_ONE_INSTANT, s.now);
            st = CAROM_JAMMED;
        } else {
            fail(why, why_size, "compress: out of memory");
        }
    }
    if (st == CAROM_OUT_OF_MEMORY && !*compressed && why && !why[0]) fail(why, why_size, "compress: out of memory");
    release(&s);
    if (result) *result = r;
    return st;
}
