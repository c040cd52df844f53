/* regions.c — how much could processing events region by region gain?
 * (issue 16, point 3). A design study that prints numbers, not a test.
 *
 * It runs a 3D hard-sphere fluid (fcc start, periodic cube, sigma = m = kT
 * = 1, as carom_bench), records every pair collision of a measured stretch
 * (time, the two bodies, where they met), and replays that sequence under
 * orders that visit the box region by region. The only constraint kept is
 * the one no exact order can break: a collision comes after the previous
 * collision of each of its two bodies (its bodies' states are those
 * collisions' results). Any exact scheme has more constraints than this
 * (a prediction also reads every listed neighbour, and a scheme must learn
 * the order without knowing the future, by speculation and rollback as in
 * Jefferson's Time Warp, ACM TOPLAS 7, 404 (1985), or by bounded lags as in
 * Lubachevsky, J. Comput. Phys. 94, 255 (1991)), so the figures are upper
 * bounds on the locality any such order can reach.
 *
 * Three orders, for cubic regions of side L (in diameters) and windows of W
 * collisions a body:
 *  - until blocked: stay in a region, taking its collisions in time order,
 *    until the next one waits for a collision elsewhere; then go to the
 *    region of the one it waits for. Printed: collisions per visit.
 *  - windowed, on demand: for each window of simulated time, visit every
 *    region once and take its collisions in the window in time order; a
 *    collision that waits for another region's collision has that one (and
 *    whatever it waits for) taken first, out of its region. Printed: the
 *    share of collisions taken out of their region (each of them reads a
 *    region whose records are not in cache) and the collisions taken in
 *    their own region per visit.
 *  - speculative: what an engine that does not know the order would do.
 *    Each window, visit the regions in turn, each executing its collisions
 *    of the window in time order on whatever its neighbours' records hold
 *    (Jefferson's Time Warp in one thread). Executing a collision undoes
 *    every executed one that waited for it, and what waited for those:
 *    either the region's log from that collision on (suffix) or only those
 *    (selective). Sweeps repeat until the window is done. Printed:
 *    executions and undos per collision kept, and a cost model's share of
 *    the N = 10^4 rate (modelled_share says what it charges).
 * A region's records (about 200 bytes a body) stay in a core's cache only if
 * it holds a few thousand bodies, and a visit pays to bring them in: about
 * four cache lines a body, against some 30 lines a collision read from
 * memory today at 10^6 bodies. So a region order helps only if a visit
 * runs far more collisions than its region holds bodies / 8, with few taken
 * out of region. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "fluid.h"


typedef struct options {
    long n;
    double density, warmup, collisions;
    uint64_t seed;
    double near_rate, far_rate, stream; /* the model's inputs: M collisions/s at 10^4 and 10^6 bodies, GB/s */
} options;

/* One recorded collision: when, which bodies, and the region of the point
 * where they met (filled per region size). */
typedef struct collision {
    double time;
    int32_t i, j;
    float where[3];
} collision;

/* A copy of every body's flight (position at time t, velocity), filed in
 * cells at least 2 diameters wide by where it was when last filed, to find
 * the bodies a collision's predictions read: those within the engine's
 * reach (two radii and two shells of 0.3 diameters, 1.6) of either body. */
typedef struct flights {
    int32_t count, per_axis;
    double width, filed_at, refile_after;
    double (*x)[3], (*v)[3], *t;
    int32_t *head, *next, *prev, *cell;
} flights;

typedef struct record {
    collision *list;
    int64_t count, room;
    int64_t *read_start; /* collision e read bodies reads[read_start[e] .. read_start[e + 1]) */
    int32_t *reads;
    int64_t reads_count, reads_room;
    int on, failed;
    const carom_world *world;
    double half;
    flights f;
} record;

/* The contact point, halfway between the two centres through the nearest image. */
static void contact_point(const record *r, int32_t i, int32_t j, float out[3])
{
    carom_body_state a, b;
    if (carom_world_get_body(r->world, i, &a) != CAROM_OK || carom_world_get_body(r->world, j, &b) != CAROM_OK) {
        out[0] = out[1] = out[2] = 0.0f;
        return;
    }
    double pa[3] = {a.position.x, a.position.y, a.position.z}, pb[3] = {b.position.x, b.position.y, b.position.z};
    for (int k = 0; k < 3; k++) {
        double d = pb[k] - pa[k];
        if (d > r->half) d -= 2.0 * r->half;
        else if (d < -r->half) d += 2.0 * r->half;
        double m = pa[k] + 0.5 * d;
        if (m >= r->half) m -= 2.0 * r->half;
        else if (m < -r->half) m += 2.0 * r->half;
        out[k] = (float)m;
    }
}

/* ---------- the flights, and what a collision reads ---------- */

static int32_t cell_at(const flights *f, const double x[3], double half)
{
    int32_t at = 0;
    for (int k = 2; k >= 0; k--) {
        int q = (int)floor((x[k] + half) / f->width);
        q = ((q % f->per_axis) + f->per_axis) % f->per_axis;
        at = at * f->per_axis + q;
    }
    return at;
}

static void unfile(flights *f, int32_t b)
{
    if (f->prev[b] >= 0) f->next[f->prev[b]] = f->next[b];
    else f->head[f->cell[b]] = f->next[b];
    if (f->next[b] >= 0) f->prev[f->next[b]] = f->prev[b];
}

static void file(flights *f, int32_t b, int32_t c)
{
    f->cell[b] = c, f->prev[b] = -1, f->next[b] = f->head[c];
    if (f->head[c] >= 0) f->prev[f->head[c]] = b;
    f->head[c] = b;
}

/* Takes body b's flight from the world (at its clock) and files it again. */
static int take_flight(record *r, int32_t b, int filed)
{
    carom_body_state s;
    if (carom_world_get_body(r->world, b, &s) != CAROM_OK) return -1;
    flights *f = &r->f;
    double x[3] = {s.position.x, s.position.y, s.position.z};
    memcpy(f->x[b], x, sizeof x);
    f->v[b][0] = s.velocity.x, f->v[b][1] = s.velocity.y, f->v[b][2] = s.velocity.z;
    f->t[b] = carom_world_time(r->world);
    if (filed) unfile(f, b);
    file(f, b, cell_at(f, x, r->half));
    return 0;
}

static double drift_limit(const flights *f)
{
    double fastest = 0.0;
    for (int32_t b = 0; b < f->count; b++) {
        double s = sqrt(f->v[b][0] * f->v[b][0] + f->v[b][1] * f->v[b][1] + f->v[b][2] * f->v[b][2]);
        fastest = s > fastest ? s : fastest;
    }
    return fastest > 0.0 ? 0.2 / (2.0 * fastest) : INFINITY; /* speeds grow little in so short a time */
}

/* Every body's flight, filed again. Bodies drift from their cells by less
 * than 0.2 diameters before this is done again (see drift_limit). */
static int take_all_flights(record *r)
{
    flights *f = &r->f;
    for (int32_t c = 0; c < f->per_axis * f->per_axis * f->per_axis; c++) f->head[c] = -1;
    for (int32_t b = 0; b < f->count; b++)
        if (take_flight(r, b, 0) != 0) return -1;
    f->filed_at = carom_world_time(r->world);
    f->refile_after = drift_limit(f);
    return 0;
}

/* The room an array of `room` items grows to when full. */
static int64_t next_room(int64_t room) { return 2 * room + 1024; }

/* The array whose pointer is at `at` (room items of `item` bytes) grown to next_room(room) items; -1, and
 * unchanged, without memory. The pointer is copied in and out by bytes, whatever its type. */
static int grow(void *at, int64_t room, size_t item)
{
    void *array;
    memcpy(&array, at, sizeof array);
    void *grown = realloc(array, (size_t)next_room(room) * item);
    if (!grown) return -1;
    memcpy(at, &grown, sizeof grown);
    return 0;
}

static int add_read(record *r, int32_t b)
{
    if (r->reads_count == r->reads_room) {
        if (grow(&r->reads, r->reads_room, sizeof *r->reads) != 0) return -1;
        r->reads_room = next_room(r->reads_room);
    }
    r->reads[r->reads_count++] = b;
    return 0;
}

/* Appends every body within 1.6 diameters of body a at time t (but i and j). */
static int add_near(record *r, int32_t a, int32_t i, int32_t j, double t)
{
    const flights *f = &r->f;
    int m = f->per_axis;
    int32_t home = cell_at(f, f->x[a], r->half), at[3] = {home % m, home / m % m, home / (m * m)};
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int32_t c = ((at[0] + dx + m) % m) + m * (((at[1] + dy + m) % m) + m * ((at[2] + dz + m) % m));
                for (int32_t b = f->head[c]; b >= 0; b = f->next[b]) {
                    if (b == i || b == j) continue;
                    double d2 = 0.0;
                    for (int k = 0; k < 3; k++) {
                        double d = (f->x[b][k] + f->v[b][k] * (t - f->t[b])) - f->x[a][k];
                        d -= 2.0 * r->half * round(d / (2.0 * r->half));
                        d2 += d * d;
                    }
                    if (d2 < 1.6 * 1.6 && add_read(r, b) != 0) return -1;
                }
            }
    return 0;
}

static int on_event(void *user, const carom_event *e)
{
    record *r = user;
    if (!r->on || e->kind != CAROM_EVENT_PAIR) return 0;
    if (r->count == r->room) return 1; /* full: stop the run */
    if (e->time - r->f.filed_at > r->f.refile_after && take_all_flights(r) != 0) return r->failed = 1;
    collision *c = &r->list[r->count];
    c->time = e->time;
    c->i = e->i;
    c->j = e->j;
    contact_point(r, e->i, e->j, c->where);
    r->read_start[r->count] = r->reads_count;
    if (take_flight(r, e->i, 1) != 0 || take_flight(r, e->j, 1) != 0 || add_near(r, e->i, e->i, e->j, e->time) != 0 ||
        add_near(r, e->j, e->i, e->j, e->time) != 0)
        return r->failed = 1;
    r->read_start[++r->count] = r->reads_count;
    return 0;
}

/* ---------- the fluid ---------- */

static carom_world *make_fluid(const options *o, record *r, int32_t *count, double *side)
{
    char why[512];
    carom_world *w = bench_fluid(o->n, o->density, o->seed, 0.0, on_event, r, count, side, why, sizeof why);
    if (!w) fprintf(stderr, "carom_regions: %s\n", why);
    return w;
}

/* Runs until the world has had target pair collisions in all, or the
 * record is full (the callback stops the run). */
static int run_to(carom_world *w, int64_t target)
{
    char why[512];
    if (bench_run_pairs(w, target, why, sizeof why) >= 0) return 0;
    fprintf(stderr, "carom_regions: %s\n", why);
    return -1;
}

/* ---------- the replay ---------- */

/* What each collision waits for: cause[start[e] .. start[e + 1]), earlier
 * collisions. With reads == 0, the previous collision of each of its two
 * bodies; with reads == 1 also the previous collision of every body it
 * reads (those near either body), and every collision that read one of its
 * two bodies since that body last changed (it must read the old state). */
typedef struct causes {
    int64_t *start, *cause, count, room;
} causes;

static int add_cause(causes *c, int64_t e, int64_t *seen, int64_t by)
{
    if (e < 0 || seen[e] == by) return 0;
    seen[e] = by;
    if (c->count == c->room) {
        if (grow(&c->cause, c->room, sizeof *c->cause) != 0) return -1;
        c->room = next_room(c->room);
    }
    c->cause[c->count++] = e;
    return 0;
}

/* Readers of each body since it last changed, in one pool of linked entries. */
typedef struct readers {
    int64_t *first;           /* per body, -1: none */
    int64_t *event, *link;    /* per entry */
    int64_t count, room;
} readers;

static int note_reader(readers *rd, int32_t b, int64_t e)
{
    if (rd->count == rd->room) {
        if (grow(&rd->event, rd->room, sizeof *rd->event) != 0 || grow(&rd->link, rd->room, sizeof *rd->link) != 0)
            return -1;
        rd->room = next_room(rd->room);
    }
    rd->event[rd->count] = e, rd->link[rd->count] = rd->first[b], rd->first[b] = rd->count++;
    return 0;
}

static int causes_of(const record *r, int64_t e, int reads, const int64_t *last, readers *rd, int64_t *seen,
                     causes *c)
{
    const collision *x = &r->list[e];
    int32_t own[2] = {x->i, x->j};
    for (int k = 0; k < 2; k++) {
        if (add_cause(c, last[own[k]], seen, e) != 0) return -1;
        for (int64_t q = reads ? rd->first[own[k]] : -1; q >= 0; q = rd->link[q])
            if (add_cause(c, rd->event[q], seen, e) != 0) return -1;
    }
    for (int64_t q = reads ? r->read_start[e] : 0; reads && q < r->read_start[e + 1]; q++)
        if (add_cause(c, last[r->reads[q]], seen, e) != 0) return -1;
    return 0;
}

static int find_causes(const record *r, int32_t bodies, int reads, causes *c)
{
    int64_t *last = malloc((size_t)bodies * sizeof *last), *seen = malloc((size_t)r->count * sizeof *seen);
    readers rd = {malloc((size_t)bodies * sizeof(int64_t)), NULL, NULL, 0, 0};
    *c = (causes){malloc(((size_t)r->count + 1) * sizeof(int64_t)), NULL, 0, 0};
    int failed = !last || !seen || !rd.first || !c->start;
    for (int32_t b = 0; !failed && b < bodies; b++) last[b] = rd.first[b] = -1;
    for (int64_t e = 0; !failed && e < r->count; e++) seen[e] = -1;
    for (int64_t e = 0; !failed && e < r->count; e++) {
        c->start[e] = c->count;
        failed = causes_of(r, e, reads, last, &rd, seen, c) != 0;
        for (int64_t q = r->read_start[e]; reads && !failed && q < r->read_start[e + 1]; q++)
            failed = note_reader(&rd, r->reads[q], e) != 0;
        last[r->list[e].i] = last[r->list[e].j] = e;
        rd.first[r->list[e].i] = rd.first[r->list[e].j] = -1;
    }
    c->start[r->count] = c->count;
    free(last), free(seen), free(rd.first), free(rd.event), free(rd.link);
    return failed ? -1 : 0;
}

static int32_t region_of(const collision *c, double side, int per_axis)
{
    int32_t at = 0;
    for (int k = 2; k >= 0; k--) {
        int q = (int)floor(((double)c->where[k] / side + 0.5) * per_axis);
        q = q < 0 ? 0 : q >= per_axis ? per_axis - 1 : q;
        at = at * per_axis + q;
    }
    return at;
}

/* The collisions of each region in time order: first[r] .. first[r + 1] in order[]. */
typedef struct regions {
    int32_t count;
    int32_t *of;      /* each collision's region */
    int64_t *first;   /* count + 1 */
    int64_t *order;   /* collisions grouped by region, in time order */
} regions;

static void group_by_region(const record *r, double side, int per_axis, regions *g)
{
    g->count = per_axis * per_axis * per_axis;
    g->of = malloc((size_t)r->count * sizeof *g->of);
    g->first = calloc((size_t)g->count + 1, sizeof *g->first);
    g->order = malloc((size_t)r->count * sizeof *g->order);
    for (int64_t e = 0; e < r->count; e++) {
        g->of[e] = region_of(&r->list[e], side, per_axis);
        g->first[g->of[e] + 1]++;
    }
    for (int32_t k = 0; k < g->count; k++) g->first[k + 1] += g->first[k];
    int64_t *fill = malloc((size_t)g->count * sizeof *fill);
    memcpy(fill, g->first, (size_t)g->count * sizeof *fill);
    for (int64_t e = 0; e < r->count; e++) g->order[fill[g->of[e]]++] = e;
    free(fill);
}

/* Regions along an axis for regions about `size` wide: 0 if fewer than two, or as many as the size before
 * (last, updated) gave, so that no region size is reported twice. */
static int regions_per_axis(double side, double size, int *last)
{
    int per_axis = (int)floor(side / size);
    if (per_axis < 2 || per_axis == *last) return 0;
    *last = per_axis;
    return per_axis;
}

static void free_regions(regions *g) { free(g->of), free(g->first), free(g->order); }

/* The predecessor collision e still waits for, or -1 if it may be taken. */
static int64_t waits_for(const causes *before, const unsigned char *done, int64_t e)
{
    for (int64_t q = before->start[e]; q < before->start[e + 1]; q++)
        if (!done[before->cause[q]]) return before->cause[q];
    return -1;
}

/* Until blocked: collisions per visit. */
static double until_blocked(const record *r, const causes *before, const regions *g)
{
    unsigned char *done = calloc((size_t)r->count, 1);
    int64_t *next = malloc((size_t)g->count * sizeof *next), taken = 0, visits = 1, earliest = 0;
    memcpy(next, g->first, (size_t)g->count * sizeof *next);
    int32_t at = g->of[0];
    while (taken < r->count) {
        if (next[at] == g->first[at + 1]) { /* region finished: go to the earliest left */
            while (done[earliest]) earliest++;
            at = g->of[earliest], visits++;
            continue;
        }
        int64_t e = g->order[next[at]], blocker = waits_for(before, done, e);
        if (blocker < 0) {
            done[e] = 1, next[at]++, taken++;
        } else {
            at = g->of[blocker], visits++;
        }
    }
    free(done), free(next);
    return (double)r->count / (double)visits;
}

/* Takes collision e after everything it waits for (out of region), with an
 * explicit stack; counts those taken out of home. */
static void take_with_causes(const causes *before, unsigned char *done, const int32_t *of, int64_t e,
                             int32_t home, int64_t *stack, int64_t *home_taken, int64_t *away_taken)
{
    int64_t top = 0;
    stack[top++] = e;
    while (top > 0) {
        int64_t c = stack[top - 1], blocker = waits_for(before, done, c);
        if (blocker >= 0) {
            stack[top++] = blocker;
            continue;
        }
        top--;
        if (done[c]) continue;
        done[c] = 1;
        if (of[c] == home) (*home_taken)++;
        else (*away_taken)++;
    }
}

typedef struct windowed {
    double away_share, per_visit;
} windowed;

/* The end of a window that starts at lo: lo + window_time, or the next double if that rounds to lo. */
static double window_end(double lo, double window_time)
{
    double hi = lo + window_time;
    return hi > lo ? hi : nextafter(lo, INFINITY);
}

/* Where the window after one ending at hi starts: at hi, or at the next collision if the window from hi would
 * hold none (so that empty windows are skipped, and the windows are never more than the collisions). *covered:
 * the collisions before hi, counted on from where it was. */
static double next_window(const record *r, int64_t *covered, double hi, double window_time)
{
    while (*covered < r->count && r->list[*covered].time < hi) (*covered)++;
    if (*covered < r->count && r->list[*covered].time >= window_end(hi, window_time)) return r->list[*covered].time;
    return hi;
}

/* Windows of `window` collisions a body (in simulated time, from the rate). */
static windowed on_demand(const record *r, const causes *before, const regions *g, double window_time)
{
    unsigned char *done = calloc((size_t)r->count, 1);
    int64_t *next = malloc((size_t)g->count * sizeof *next), *stack = malloc((size_t)r->count * sizeof *stack);
    memcpy(next, g->first, (size_t)g->count * sizeof *next);
    int64_t home_taken = 0, away_taken = 0, visits = 0, covered = 0;
    double start = r->list[0].time, end = r->list[r->count - 1].time;
    for (double lo = start, hi; lo <= end; lo = next_window(r, &covered, hi, window_time)) {
        hi = window_end(lo, window_time);
        for (int32_t at = 0; at < g->count; at++) {
            int64_t before_visit = home_taken;
            for (; next[at] < g->first[at + 1]; next[at]++) {
                int64_t e = g->order[next[at]];
                if (r->list[e].time >= hi) break;
                if (!done[e]) take_with_causes(before, done, g->of, e, at, stack, &home_taken, &away_taken);
            }
            visits += home_taken > before_visit;
        }
    }
    free(done), free(next), free(stack);
    return (windowed){(double)away_taken / (double)(home_taken + away_taken),
                      visits ? (double)home_taken / (double)visits : 0.0};
}

/* ---------- speculation with rollback (Time Warp in one thread) ---------- */

/* The collisions that wait for each collision: after[start[e] .. start[e + 1]). */
typedef struct successors {
    int64_t *start, *after;
} successors;

static int find_successors(const causes *before, int64_t count, successors *s)
{
    s->start = calloc((size_t)count + 2, sizeof *s->start);
    s->after = malloc((size_t)(before->count > 0 ? before->count : 1) * sizeof *s->after);
    if (!s->start || !s->after) return -1;
    for (int64_t q = 0; q < before->count; q++) s->start[before->cause[q] + 2]++;
    for (int64_t e = 0; e < count; e++) s->start[e + 2] += s->start[e + 1];
    for (int64_t e = 0; e < count; e++)
        for (int64_t q = before->start[e]; q < before->start[e + 1]; q++)
            s->after[s->start[before->cause[q] + 1]++] = e;
    return 0;
}

/* What a speculative run did: collisions executed, undone and visits, per collision committed. */
typedef struct speculation {
    double executed, undone, later, windows; /* later: executed after a window's first sweep */
    int valid; /* the executions kept came in an order that respects every constraint */
} speculation;

typedef struct spec_state {
    const successors *next;
    const regions *g;
    unsigned char *executed;
    int64_t *position, *lowest, *stack, *kept_at; /* kept_at: when each collision was last executed */
    int64_t executed_count, undone_count;
    int suffix;
} spec_state;

/* Marks executed collision c undone and queues it, so that what waited for it is undone next. A collision
 * enters the queue only as it turns from executed to undone, so the queue never holds more than all of them. */
static void undo_one(spec_state *s, int64_t c, int64_t *top)
{
    s->executed[c] = 0, s->undone_count++, s->executed_count--;
    int32_t at = s->g->of[c];
    if (s->position[c] < s->lowest[at]) s->lowest[at] = s->position[c];
    s->stack[(*top)++] = c;
}

/* Undoes collision e and everything executed that waited for it; with suffix, also every later collision
 * executed in the same region (a region's log is undone from the end), and what waited for those. */
static void undo_from(spec_state *s, int64_t e)
{
    int64_t top = 0;
    if (s->executed[e]) undo_one(s, e, &top);
    while (top > 0) {
        int64_t c = s->stack[--top];
        int32_t at = s->g->of[c];
        for (int64_t q = s->next->start[c]; q < s->next->start[c + 1]; q++)
            if (s->executed[s->next->after[q]]) undo_one(s, s->next->after[q], &top);
        for (int64_t k = s->position[c] + 1; s->suffix && k < s->g->first[at + 1]; k++)
            if (s->executed[s->g->order[k]]) undo_one(s, s->g->order[k], &top);
    }
}

/* Each window of simulated time: visit the regions in turn, each executing its collisions of the window in time
 * order on whatever its neighbours' records hold; executing a collision undoes every executed collision that
 * waited for it (it had read or overwritten a state this one changes). Sweeps repeat until the window is done;
 * the earliest collision left always stays done, so they end. */
static speculation speculate(const record *r, const causes *before, const successors *next, const regions *g,
                             double window_time, int suffix)
{
    spec_state s = {next, g, calloc((size_t)r->count, 1), malloc((size_t)r->count * sizeof(int64_t)),
                    malloc((size_t)g->count * sizeof(int64_t)), NULL, malloc((size_t)r->count * sizeof(int64_t)), 0,
                    0, suffix};
    int64_t executions = 0, later = 0, windows = 0, end = 0;
    s.stack = malloc(((size_t)r->count + 1) * sizeof *s.stack); /* see undo_one */
    if (!s.executed || !s.position || !s.lowest || !s.stack || !s.kept_at) {
        free(s.executed), free(s.position), free(s.lowest), free(s.stack), free(s.kept_at);
        return (speculation){0, 0, 0, 0, 0};
    }
    for (int32_t at = 0; at < g->count; at++) {
        s.lowest[at] = g->first[at];
        for (int64_t k = g->first[at]; k < g->first[at + 1]; k++) s.position[g->order[k]] = k;
    }
    double start = r->list[0].time;
    while (end < r->count) {
        double hi = window_end(start, window_time);
        while (end < r->count && r->list[end].time < hi) end++;
        windows++;
        for (int sweep = 0; s.executed_count < end; sweep++) {
            for (int32_t at = 0; at < g->count; at++) {
                int64_t ran = 0;
                for (int64_t k = s.lowest[at]; k < g->first[at + 1] && r->list[g->order[k]].time < hi; k++) {
                    int64_t e = g->order[k];
                    if (s.executed[e]) continue;
                    for (int64_t q = next->start[e]; q < next->start[e + 1]; q++)
                        if (s.executed[next->after[q]]) undo_from(&s, next->after[q]);
                    s.executed[e] = 1, s.executed_count++, ran++;
                    s.kept_at[e] = executions + ran;
                }
                while (s.lowest[at] < g->first[at + 1] && s.executed[g->order[s.lowest[at]]]) s.lowest[at]++;
                executions += ran, later += sweep > 0 ? ran : 0;
            }
        }
        int64_t covered = end;
        start = next_window(r, &covered, hi, window_time);
    }
    int valid = s.executed_count == r->count;
    for (int64_t e = 0; valid && e < r->count; e++)
        for (int64_t q = before->start[e]; q < before->start[e + 1]; q++)
            valid &= s.kept_at[before->cause[q]] < s.kept_at[e];
    free(s.executed), free(s.position), free(s.lowest), free(s.stack), free(s.kept_at);
    return (speculation){(double)executions / r->count, (double)s.undone_count / r->count, (double)later / r->count,
                         (double)windows, valid};
}

/* ---------- main ---------- */

static int parse(int argc, char **argv, options *o)
{
    *o = (options){100000, 0.45, 2.0, 2.0, 42, 0.93, 0.39, 20.0};
    for (int a = 1; a + 1 < argc; a += 2) {
        char *end = NULL;
        double v = strtod(argv[a + 1], &end);
        if (!end || *end || !(v > 0.0 && v < 1e9)) {
            fprintf(stderr, "carom_regions: %s: expected a number above 0 and below 10^9, got '%s'\n", argv[a],
                    argv[a + 1]);
            return -1;
        }
        if (!strcmp(argv[a], "--n")) o->n = (long)v;
        else if (!strcmp(argv[a], "--density") && v < 0.55) o->density = v;
        else if (!strcmp(argv[a], "--warmup")) o->warmup = v;
        else if (!strcmp(argv[a], "--collisions")) o->collisions = v;
        else if (!strcmp(argv[a], "--seed")) o->seed = (uint64_t)v;
        else if (!strcmp(argv[a], "--near-rate")) o->near_rate = v;
        else if (!strcmp(argv[a], "--far-rate")) o->far_rate = v;
        else if (!strcmp(argv[a], "--stream")) o->stream = v;
        else {
            fprintf(stderr, "carom_regions: unknown option or value out of range: %s %s\n", argv[a], argv[a + 1]);
            return -1;
        }
    }
    if (argc % 2 == 0) {
        fprintf(stderr, "usage: carom_regions [--n N] [--density ETA<0.55] [--warmup W] [--collisions C] [--seed S]\n"
                        "                     [--near-rate M/s] [--far-rate M/s] [--stream GB/s]\n");
        return -1;
    }
    return 0;
}

static void report_model(const record *r, int32_t bodies, double side, int reads)
{
    causes before;
    if (find_causes(r, bodies, reads, &before) != 0) {
        fprintf(stderr, "carom_regions: out of memory\n");
        return;
    }
    double span = r->list[r->count - 1].time - r->list[0].time;
    double unit = span / ((double)r->count / bodies); /* the time of N pair collisions */
    static const double sizes[] = {4, 6, 8, 12, 16, 24, 32};
    static const double windows[] = {0.01, 0.03, 0.1, 0.3, 1.0};
    printf("\n%s: %.1f causes a collision\n", reads ? "a collision waits for its bodies and what it reads"
                                                   : "a collision waits for its two bodies only",
           (double)before.count / (double)r->count);
    printf("%7s %8s %9s", "L", "bodies", "per visit");
    for (int w = 0; w < 5; w++) printf(" | W=%-5g away per visit", windows[w]);
    printf("\n");
    for (int s = 0, last = 0; s < 7; s++) {
        int per_axis = regions_per_axis(side, sizes[s], &last);
        if (per_axis == 0) continue;
        regions g;
        group_by_region(r, side, per_axis, &g);
        printf("%7.2f %8.0f %9.1f", side / per_axis, (double)bodies / g.count, until_blocked(r, &before, &g));
        for (int w = 0; w < 5; w++) {
            windowed x = on_demand(r, &before, &g, windows[w] * unit);
            printf(" |     %6.3f %9.1f", x.away_share, x.per_visit);
        }
        printf("\n");
        fflush(stdout);
        free_regions(&g);
    }
    free(before.start), free(before.cause);
}

/* The modelled share of the N = 10^4 rate that speculation reaches: a collision executed in a window's first
 * sweep costs what it costs at 10^4 (near_rate), one executed in a later sweep (its region no longer in cache)
 * what it costs at 10^6 today (far_rate), an undo half a collision, and each window's first sweep streams every
 * region's records and its halo (200 bytes a body, the bodies within 1.6 diameters outside it) at `stream`
 * GB/s. Nothing else an engine would do (stamping reads, logging undos, a calendar a region) is charged. */
static double modelled_share(speculation x, const regions *g, double region_side, double bodies_a_region,
                             double collisions, const options *o)
{
    const double near_ns = 1000.0 / o->near_rate, far_ns = 1000.0 / o->far_rate, undo_ns = 0.5 * near_ns;
    double halo = pow((region_side + 3.2) / region_side, 3.0);
    double stream_ns = x.windows * g->count * halo * bodies_a_region * 200.0 / o->stream / collisions;
    double ns = (x.executed - x.later) * near_ns + x.later * far_ns + x.undone * undo_ns + stream_ns;
    return near_ns / ns;
}

/* Speculation with rollback, on the "what it reads" constraints, for a region log undone from its end (suffix)
 * and for undoing only what waited for the late collision (selective): executions, undos and executions after
 * a window's first sweep, per collision kept, and the modelled share of the 10^4 rate. */
static int report_speculation(const record *r, int32_t bodies, double side, const options *o)
{
    causes before;
    successors next = {0};
    if (find_causes(r, bodies, 1, &before) != 0 || find_successors(&before, r->count, &next) != 0) {
        fprintf(stderr, "carom_regions: out of memory\n");
        return -1;
    }
    double unit = (r->list[r->count - 1].time - r->list[0].time) / ((double)r->count / bodies);
    static const double sizes[] = {8, 12, 16, 24};
    static const double windows[] = {0.01, 0.03, 0.1, 0.3};
    printf("\nspeculation and rollback: executed, undone, executed after the first sweep (per collision kept);\n"
           "model: the share of the 10^4 rate, for %.3g and %.3g M/s at 10^4 and 10^6 today and %.3g GB/s\n"
           "%7s %8s %6s", o->near_rate, o->far_rate, o->stream, "L", "bodies", "undo");
    for (int w = 0; w < 4; w++) printf(" | W=%-5g   exec   undo later model", windows[w]);
    printf("\n");
    int failed = 0;
    for (int s = 0, last = 0; s < 4; s++) {
        int per_axis = regions_per_axis(side, sizes[s], &last);
        if (per_axis == 0) continue;
        regions g;
        group_by_region(r, side, per_axis, &g);
        double region_side = side / per_axis, per_region = (double)bodies / g.count;
        for (int suffix = 1; suffix >= 0; suffix--) {
            printf("%7.2f %8.0f %6s", region_side, per_region, suffix ? "suffix" : "select");
            for (int w = 0; w < 4; w++) {
                speculation x = speculate(r, &before, &next, &g, windows[w] * unit, suffix);
                if (!x.valid) {
                    fprintf(stderr, "\ncarom_regions: L = %.2f, W = %g: the speculative order kept a collision before "
                                    "one it waits for, or ran out of memory\n", region_side, windows[w]);
                    failed = 1;
                }
                printf(" | %12.3f %6.3f %5.3f %5.2f", x.executed, x.undone, x.later,
                       modelled_share(x, &g, region_side, per_region, (double)r->count, o));
            }
            printf("\n");
            fflush(stdout);
        }
        free_regions(&g);
    }
    free(before.start), free(before.cause), free(next.start), free(next.after);
    return failed ? -1 : 0;
}

static int make_flights(flights *f, int32_t bodies, double side)
{
    f->count = bodies;
    f->per_axis = (int)floor(side / 2.0);
    if (f->per_axis < 3) return -1;
    f->width = side / f->per_axis;
    size_t cells = (size_t)f->per_axis * (size_t)f->per_axis * (size_t)f->per_axis, n = (size_t)bodies;
    f->x = malloc(n * sizeof *f->x), f->v = malloc(n * sizeof *f->v), f->t = malloc(n * sizeof *f->t);
    f->head = malloc(cells * sizeof *f->head), f->next = malloc(n * sizeof *f->next);
    f->prev = malloc(n * sizeof *f->prev), f->cell = malloc(n * sizeof *f->cell);
    return f->x && f->v && f->t && f->head && f->next && f->prev && f->cell ? 0 : -1;
}

static void free_record(record *r)
{
    flights *f = &r->f;
    free(f->x), free(f->v), free(f->t), free(f->head), free(f->next), free(f->prev), free(f->cell);
    free(r->list), free(r->read_start), free(r->reads);
}

static int record_run(carom_world *w, const options *o, int32_t bodies, double side, record *r)
{
    r->world = w, r->half = 0.5 * side;
    r->room = (int64_t)(o->collisions * bodies) + 1;
    r->list = malloc((size_t)r->room * sizeof *r->list);
    r->read_start = malloc(((size_t)r->room + 1) * sizeof *r->read_start);
    int64_t warm = (int64_t)(o->warmup * bodies);
    if (side < 6.0) {
        fprintf(stderr, "carom_regions: the box is %.2f diameters wide; expected 6 or more (a larger --n)\n", side);
        return -1;
    }
    if (!r->list || !r->read_start || make_flights(&r->f, bodies, side) != 0) {
        fprintf(stderr, "carom_regions: out of memory for %d bodies\n", (int)bodies);
        return -1;
    }
    if (run_to(w, warm) != 0 || take_all_flights(r) != 0) return -1;
    r->on = 1;
    if (run_to(w, warm + r->room - 1) != 0 || r->failed) return -1;
    printf("N = %d, packing fraction %.3f, box %.3f: %lld collisions recorded after %lld (%.3g and %.3g a body)\n",
           (int)bodies, o->density, side, (long long)r->count, (long long)warm, (double)r->count / bodies,
           (double)warm / bodies);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    if (parse(argc, argv, &o) != 0) return 2;
    record r = {0};
    int32_t bodies = 0;
    double side = 0.0;
    carom_world *w = make_fluid(&o, &r, &bodies, &side);
    if (!w) return 1;
    int status = record_run(w, &o, bodies, side, &r);
    if (status == 0 && r.count > 1) {
        printf("L: region side (diameters); per visit (first): collisions a visit, taken until blocked;\n"
               "W: window, in pair collisions a body (N W in all, as carom_bench counts); away: share of\n"
               "collisions taken out of their region; per visit: collisions taken in their region a visit\n");
        report_model(&r, bodies, side, 0);
        report_model(&r, bodies, side, 1);
        if (report_speculation(&r, bodies, side, &o) != 0) status = -1;
    }
    carom_world_destroy(w);
    free_record(&r);
    return status == 0 ? 0 : 1;
}
