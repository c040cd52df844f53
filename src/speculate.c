/* speculate.c — the region-by-region engine of speculate.h: windows,
 * regions that each take their own events in (time, key) order, and
 * selective rollback where a guess was wrong.
 *
 * The method is Jefferson's Time Warp (ACM TOPLAS 7, 404 (1985)) run on one
 * thread for locality, not parallelism; which events must be undone follows
 * the commutation argument of replay.h (two events more than one cell apart
 * on some axis commute), so that only events that depend on a late one are
 * undone, not a region's whole log. Each processed event of a window is
 * logged in processing order with its touched cells and an undo record; a
 * cell's logged events form a list through the log, and the lists of the 27
 * cells around an event's cells are what a check reads.
 */
#include "speculate.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"
#include "memory.h"
#include "order.h"
#include "replay.h"
#include "world.h"

/* More passes over the regions than this in one window (each pass takes
 * every region's due events; rollbacks send some back), or more events
 * undone in it than SPECULATE_BUDGET times those it keeps, plus
 * SPECULATE_BUDGET_FLOOR, and the window is undone and run again in time
 * order: bounds, so that no window can loop (a chain of events at one
 * instant can undo its own ancestors without end: time order settles it). */
enum { SPECULATE_MAX_SWEEPS = 64, SPECULATE_BUDGET = 16, SPECULATE_BUDGET_FLOOR = 1024 };
/* The longest chain of earlier events taken before an event (take), and
 * the most windows a run may take (a window too short for its span would
 * otherwise make a loop that cannot end in practice). */
enum { SPECULATE_MAX_CHAIN = 256, SPECULATE_MAX_WINDOWS = 1 << 30 };

/* A region's due events: a binary heap by (time, key), entries checked
 * against the body's calendar record when taken (a body filed again or
 * moved to another region leaves its old entry behind). */
typedef struct due {
    double time;
    int32_t key, body;
} due;

typedef struct due_heap {
    due *entry;
    int32_t count, room;
} due_heap;

/* A body as an event found it: what the event may write. */
typedef struct saved_body {
    body_hot hot;
    calendar_body cal;
    uint32_t counter, collisions, high;
    int32_t slot, cell, before; /* before: the body ahead of it in its cell's list, -1 at the head */
} saved_body;

enum { MEASURE_COUNTS = 8, MEASURE_SUMS = 5 };

typedef struct logged {
    double time;
    int32_t key, body, partner;
    int32_t cells[3];     /* touched cells, -1 past the last */
    int32_t cell_next[3]; /* the entry before this one in cells[m]'s list */
    int32_t alive, marked;
    int64_t counts[MEASURE_COUNTS]; /* what the event added to the statistics */
    double sums[MEASURE_SUMS];
    saved_body saved[2]; /* the body, and the pair's partner (partner >= 0) */
} logged;

typedef struct engine {
    carom_world *w;
    const carom_allocator *mem;
    int32_t side, per_axis[3], regions;
    int32_t *region_of_cell;
    unsigned char *inside; /* per cell: its stencil lies in its region */
    due_heap *heap;
    int32_t *cell_last; /* per cell: the latest logged entry touching it, -1 */
    logged *log;
    spin_state *spins; /* per entry, two a log entry, where the world keeps rotation */
    int32_t log_count, log_room;
    int32_t *work; /* rollbacks' stack and set, and the bodies to file again */
    int32_t work_room;
    int64_t window_executions, window_undone;
    double window_end, t_end;
    int last_window;
    speculate_stats stats;
} engine;

/* ---- the statistics an event adds ---- */

static int64_t *count_field(measure *m, int k)
{
    int64_t *fields[MEASURE_COUNTS] = {&m->pair_events, &m->wall_events,  &m->cell_events, &m->stale_events,
                                       &m->rest_events, &m->sensor_events, &m->predictions, &m->window_pairs};
    return fields[k];
}

static double *sum_field(measure *m, int k)
{
    double *fields[MEASURE_SUMS] = {&m->control_work, &m->kinematic_work, &m->virial, &m->wall_impulse,
                                    &m->kinetic_integral};
    return fields[k];
}

/* Before an event: its sums start from zero. */
static measure open_capture(carom_world *w)
{
    measure before = w->meas;
    for (int k = 0; k < MEASURE_SUMS; k++) *sum_field(&w->meas, k) = 0.0;
    return before;
}

/* After it: what it added goes into the log entry, and the world's
 * statistics are as before (the window adds the kept events' parts). */
static void close_capture(carom_world *w, measure *before, logged *e)
{
    for (int k = 0; k < MEASURE_COUNTS; k++) e->counts[k] = *count_field(&w->meas, k) - *count_field(before, k);
    for (int k = 0; k < MEASURE_SUMS; k++) e->sums[k] = *sum_field(&w->meas, k);
    w->meas = *before;
}

static void add_statistics(carom_world *w, const logged *e)
{
    for (int k = 0; k < MEASURE_COUNTS; k++) *count_field(&w->meas, k) += e->counts[k];
    for (int k = 0; k < MEASURE_SUMS; k++) *sum_field(&w->meas, k) += e->sums[k];
}

/* ---- regions and their heaps ---- */

static int before_in_order(double t1, int32_t k1, double t2, int32_t k2) { return t1 < t2 || (t1 == t2 && k1 < k2); }

static int heap_push(engine *g, due_heap *h, due d)
{
    if (h->count == h->room) {
        int32_t room = h->room ? 2 * h->room : 16;
        due *grown = memory_grow(g->mem, h->entry, (size_t)h->room * sizeof *grown, (size_t)room * sizeof *grown);
        if (!grown) return -1;
        h->entry = grown, h->room = room;
    }
    int32_t k = h->count++;
    while (k > 0) {
        int32_t up = (k - 1) / 2;
        if (!before_in_order(d.time, d.key, h->entry[up].time, h->entry[up].key)) break;
        h->entry[k] = h->entry[up];
        k = up;
    }
    h->entry[k] = d;
    return 0;
}

static due heap_pop(due_heap *h)
{
    due top = h->entry[0], last = h->entry[--h->count];
    int32_t k = 0;
    for (;;) {
        int32_t child = 2 * k + 1;
        if (child >= h->count) break;
        if (child + 1 < h->count &&
            before_in_order(h->entry[child + 1].time, h->entry[child + 1].key, h->entry[child].time,
                            h->entry[child].key))
            child++;
        if (!before_in_order(h->entry[child].time, h->entry[child].key, last.time, last.key)) break;
        h->entry[k] = h->entry[child];
        k = child;
    }
    if (h->count > 0) h->entry[k] = last;
    return top;
}

static int is_due(const engine *g, double t) { return g->last_window ? t <= g->t_end : t < g->window_end; }

/* Files body b's event in its region's heap (every finite event: a heap
 * is taken from while its first event is due in the window). */
static int file_due(engine *g, int32_t b)
{
    const carom_world *w = g->w;
    const calendar_body *r = &w->cal.body[b];
    if (r->where != CALENDAR_HELD || !(r->time < INFINITY)) return 0;
    return heap_push(g, &g->heap[g->region_of_cell[w->grid.cell[b]]], (due){r->time, w->id_of[b], b});
}

/* Whether a taken entry is still its body's event, in region r. */
static int still_due(const engine *g, due d, int32_t r)
{
    const carom_world *w = g->w;
    const calendar_body *c = &w->cal.body[d.body];
    return c->where == CALENDAR_HELD && c->time == d.time && g->region_of_cell[w->grid.cell[d.body]] == r;
}

/* ---- cells around cells ---- */

/* The cells within one cell of c on every axis (wrapping where the grid
 * wraps), c among them: the stencil a prediction from c scans. */
static int around(const cells *grid, int32_t c, int32_t out[27])
{
    const cells_pattern *pattern = cells_pattern_at(grid, c);
    for (int m = 0; m < pattern->count; m++) out[m] = c + pattern->offset[m];
    return pattern->count;
}

/* The cell a crossing through face leads into (the face's axis is face / 2,
 * upward if odd), wrapping where the grid wraps (cells_cross's rule). */
static int32_t cell_across(const cells *grid, int32_t c, int face)
{
    int32_t k[3] = {c % grid->n[0], (c / grid->n[0]) % grid->n[1], c / (grid->n[0] * grid->n[1])};
    int a = face / 2;
    k[a] += face % 2 ? 1 : -1;
    k[a] = k[a] < 0 ? grid->n[a] - 1 : k[a] >= grid->n[a] ? 0 : k[a];
    return k[0] + grid->n[0] * (k[1] + grid->n[1] * k[2]);
}

/* The cells body b's event touches, as far as they are known before it
 * runs: b's cell, and its pair partner's or the cell a crossing leads
 * into; -1 where none. Its partner goes to *partner (-1 if none). */
static void cells_ahead(const carom_world *w, int32_t b, int32_t out[2], int32_t *partner)
{
    const body_event *ev = &w->cal.body[b].event;
    *partner = ev->kind == EVENT_PAIR ? ev->partner : -1;
    out[0] = w->grid.cell[b];
    out[1] = *partner >= 0 ? w->grid.cell[*partner]
             : ev->kind == EVENT_CELL ? cell_across(&w->grid, out[0], (int)ev->partner) : -1;
}

/* ---- undo records ---- */

static int32_t ahead_in_cell(const cells *grid, int32_t b)
{
    int32_t before = -1;
    for (int32_t k = grid->head[grid->cell[b]]; k != b; k = grid->next[k]) before = k;
    return before;
}

static void save_body(engine *g, saved_body *s, spin_state *spin_out, int32_t b)
{
    const carom_world *w = g->w;
    *s = (saved_body){w->hot[b], w->cal.body[b], w->own_stamps ? w->counter[b] : 0, w->collisions[b], 0,
                      b, w->grid.cell[b], ahead_in_cell(&w->grid, b)};
    if (s->collisions == UINT32_MAX) s->high = carries_high(&w->carried, w->id_of[b]);
    if (spin_out) *spin_out = w->spin.state[b];
}

static void restore_body(engine *g, const saved_body *s, const spin_state *spin_in)
{
    carom_world *w = g->w;
    int32_t b = s->slot;
    cells *grid = &w->grid;
    if (grid->cell[b] != s->cell) { /* it crossed: out of its new cell, back to its place in the old */
        cells_remove_from(grid, b, grid->cell[b]);
        int32_t *link = s->before < 0 ? &grid->head[s->cell] : &grid->next[s->before];
        grid->next[b] = *link;
        *link = b;
        grid->cell[b] = s->cell;
    }
    w->hot[b] = s->hot;
    w->cal.body[b] = s->cal;
    if (w->own_stamps) w->counter[b] = s->counter;
    if (s->collisions == UINT32_MAX && w->collisions[b] != UINT32_MAX)
        (void)carries_set(&w->carried, w->id_of[b], s->high); /* the entry exists: no allocation */
    w->collisions[b] = s->collisions;
    if (spin_in) w->spin.state[b] = *spin_in;
}

static spin_state *saved_spin(engine *g, int32_t entry, int k) { return g->spins ? &g->spins[2 * entry + k] : NULL; }

static void undo_entry(engine *g, int32_t k)
{
    logged *e = &g->log[k];
    if (e->partner >= 0) restore_body(g, &e->saved[1], saved_spin(g, k, 1));
    restore_body(g, &e->saved[0], saved_spin(g, k, 0));
    e->alive = 0;
    g->stats.undone++;
    g->window_undone++;
}

/* ---- conflicts and rollbacks ---- */

static int work_room(engine *g, int64_t need)
{
    if (need <= g->work_room) return 0;
    int64_t room = g->work_room ? 2 * (int64_t)g->work_room : 1024;
    while (room < need) room *= 2;
    if (room > INT32_MAX) return -1;
    int32_t *grown = memory_grow(g->mem, g->work, (size_t)g->work_room * sizeof *grown, (size_t)room * sizeof *grown);
    if (!grown) return -1;
    g->work = grown, g->work_room = (int32_t)room;
    return 0;
}

/* Marks the live entries within one cell of cell c that come after
 * (time, key) in order (after_order) or were processed after entry
 * `after_entry`, pushing them on the stack at work[*depth]. -1 if out of
 * memory. */
static int mark_around(engine *g, int32_t c, int after_order, double time, int32_t key, int32_t after_entry,
                       int32_t *depth)
{
    int32_t near[27];
    int n = around(&g->w->grid, c, near);
    for (int m = 0; m < n; m++)
        for (int32_t k = g->cell_last[near[m]]; k >= 0;) {
            logged *f = &g->log[k];
            int hit = f->alive && !f->marked &&
                      (after_order ? before_in_order(time, key, f->time, f->key) : k > after_entry);
            if (hit) {
                if (work_room(g, *depth + 1) != 0) return -1;
                f->marked = 1;
                g->work[(*depth)++] = k;
            }
            int slot = f->cells[0] == near[m] ? 0 : f->cells[1] == near[m] ? 1 : 2;
            k = f->cell_next[slot];
        }
    return 0;
}

static int by_entry_descending(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x < y) - (x > y);
}

/* Undoes the marked entries (work[0 .. depth)) and every live entry
 * processed after one of them within one cell of it, latest first, then
 * files their bodies' events again. -1 if out of memory (nothing undone). */
static int roll_back(engine *g, int32_t depth)
{
    for (int32_t top = 0; top < depth; top++) { /* the set grows behind the scan: a closure */
        const logged *f = &g->log[g->work[top]];
        for (int m = 0; m < 3 && f->cells[m] >= 0; m++)
            if (mark_around(g, f->cells[m], 0, 0.0, 0, g->work[top], &depth) != 0) {
                for (int32_t k = 0; k < depth; k++) g->log[g->work[k]].marked = 0;
                return -1;
            }
    }
    qsort(g->work, (size_t)depth, sizeof *g->work, by_entry_descending);
    for (int32_t k = 0; k < depth; k++) undo_entry(g, g->work[k]);
    for (int32_t k = 0; k < depth; k++) {
        logged *e = &g->log[g->work[k]];
        e->marked = 0;
        if (file_due(g, e->body) != 0 || (e->partner >= 0 && file_due(g, e->partner) != 0)) return -1;
    }
    return 0;
}

/* Entries later in order than (time, key) within one cell of the given
 * cells are undone, with what depends on them. */
static int undo_later(engine *g, const int32_t *near_cells, int n, double time, int32_t key)
{
    int32_t depth = 0;
    for (int m = 0; m < n; m++)
        if (near_cells[m] >= 0 && mark_around(g, near_cells[m], 1, time, key, 0, &depth) != 0) return -1;
    return depth > 0 ? roll_back(g, depth) : 0;
}

/* ---- the log ---- */

static logged *new_entry(engine *g)
{
    if (g->log_count == g->log_room) {
        int32_t room = g->log_room ? 2 * g->log_room : 4096;
        logged *grown = memory_grow(g->mem, g->log, (size_t)g->log_room * sizeof *grown, (size_t)room * sizeof *grown);
        if (!grown) return NULL;
        g->log = grown;
        if (g->w->spin.on) {
            spin_state *spins = memory_grow(g->mem, g->spins, 2 * (size_t)g->log_room * sizeof *spins,
                                            2 * (size_t)room * sizeof *spins);
            if (!spins) return NULL;
            g->spins = spins;
        }
        g->log_room = room;
    }
    return &g->log[g->log_count];
}

static void link_entry(engine *g, int32_t k)
{
    logged *e = &g->log[k];
    for (int m = 0; m < 3 && e->cells[m] >= 0; m++) {
        e->cell_next[m] = g->cell_last[e->cells[m]];
        g->cell_last[e->cells[m]] = k;
    }
}

static void note_cell(logged *e, int32_t c)
{
    for (int m = 0; m < 3; m++) {
        if (e->cells[m] == c) return;
        if (e->cells[m] < 0) {
            e->cells[m] = c;
            return;
        }
    }
}

/* ---- one event ---- */

static int over_budget(const engine *g);

/* A new log entry for d with its bodies saved; NULL if out of memory. */
static logged *open_entry(engine *g, due d, int32_t partner)
{
    logged *e = new_entry(g);
    if (!e) return NULL;
    int32_t k = g->log_count;
    memset(e, 0, sizeof *e);
    e->time = d.time, e->key = d.key, e->body = d.body, e->partner = partner, e->alive = 1;
    for (int m = 0; m < 3; m++) e->cells[m] = e->cell_next[m] = -1;
    save_body(g, &e->saved[0], saved_spin(g, k, 0), d.body);
    if (partner >= 0) save_body(g, &e->saved[1], saved_spin(g, k, 1), partner);
    return e;
}

/* Processes d now, whatever its neighbours have done: later events within
 * one cell of the cells it touches (its body's, its partner's or the cell a
 * crossing leads into: all it touches) are undone first. Returns 0, or -1
 * if the window must be run again in time order (out of memory, a jam, an
 * event past the clock's limit). */
static int execute(engine *g, due d)
{
    carom_world *w = g->w;
    int32_t before[2], partner;
    cells_ahead(w, d.body, before, &partner);
    for (;;) { /* until no undo moves the partner back to another cell */
        if (undo_later(g, before, 2, d.time, d.key) != 0) return -1;
        int32_t again[2];
        cells_ahead(w, d.body, again, &partner);
        if (again[0] == before[0] && again[1] == before[1]) break;
        before[0] = again[0], before[1] = again[1];
    }
    const calendar_body *now = &w->cal.body[d.body];
    if (now->where != CALENDAR_HELD || now->time != d.time) return 0; /* a rollback changed it */
    assert(partner == (now->event.kind == EVENT_PAIR ? now->event.partner : -1)); /* and not its event */
    if (d.time > w->rest.clock_limit) return -1; /* time order says why */
    logged *e = open_entry(g, d, partner);
    if (!e) return -1;
    int32_t k = g->log_count++;
    measure stats_before = open_capture(w);
    int counted;
    carom_status st = run_process_event(w, d.body, d.time, &counted);
    close_capture(w, &stats_before, e);
    (void)counted;
    g->stats.executions++;
    g->window_executions++;
    if (st != CAROM_OK) return undo_entry(g, k), -1; /* time order meets it again and reports it */
    note_cell(e, e->saved[0].cell);
    note_cell(e, w->grid.cell[d.body]);
    if (partner >= 0) note_cell(e, e->saved[1].cell), note_cell(e, w->grid.cell[partner]);
    link_entry(g, k);
    for (int m = 0; m < 3 && e->cells[m] >= 0; m++) /* the checks above saw every cell it touched */
        assert(e->cells[m] == before[0] || e->cells[m] == before[1]);
    return file_due(g, d.body) != 0 || (partner >= 0 && file_due(g, partner) != 0) ? -1 : 0;
}

/* The body in the stencil of cell c, other than skip, whose event comes
 * first in order if that is before (time, key), or -1 (the earliest, so
 * that a chain is taken in its own order). None in a cell whose stencil
 * lies inside its region: the region's heap gives its events in order. */
static int32_t earlier_near(const engine *g, int32_t c, int32_t skip, double time, int32_t key)
{
    const carom_world *w = g->w;
    if (g->inside[c]) return -1;
    int32_t near[27], first = -1;
    int n = around(&w->grid, c, near);
    for (int m = 0; m < n; m++)
        for (int32_t y = w->grid.head[near[m]]; y >= 0; y = w->grid.next[y]) {
            const calendar_body *r = &w->cal.body[y];
            if (y != skip && r->where == CALENDAR_HELD && before_in_order(r->time, w->id_of[y], time, key))
                first = y, time = r->time, key = w->id_of[y];
        }
    return first;
}

/* Processes d, due in its region's visit, after the events that come
 * before it in order and would be undone by it otherwise: its pair
 * partner's (d's collision would write the partner and wipe out that event,
 * which no check could then bring back) and those of bodies in the stencils
 * of its cells (at a region's edge: its neighbours' events that its own
 * heap does not order). Each is taken now, in d's region's visit, and so on
 * down a chain of at most SPECULATE_MAX_CHAIN, as replay.c's walk takes
 * what an event waits for. What this does not see (an event not yet made,
 * a body two cells away) the checks in execute undo. 0, or -1 as execute. */
static int take(engine *g, due d, int depth)
{
    const carom_world *w = g->w;
    for (;;) {
        const calendar_body *c = &w->cal.body[d.body];
        if (c->where != CALENDAR_HELD || c->time != d.time) return 0; /* done, or undone, meanwhile */
        int32_t ahead[2], partner, first = -1;
        cells_ahead(w, d.body, ahead, &partner);
        const calendar_body *p = partner >= 0 ? &w->cal.body[partner] : NULL;
        if (p && p->where == CALENDAR_HELD && before_in_order(p->time, w->id_of[partner], d.time, d.key))
            first = partner;
        if (first < 0) {
            first = earlier_near(g, ahead[0], d.body, d.time, d.key);
            int32_t other = ahead[1] >= 0 ? earlier_near(g, ahead[1], d.body, d.time, d.key) : -1;
            if (other >= 0 && (first < 0 || before_in_order(w->cal.body[other].time, w->id_of[other],
                                                            w->cal.body[first].time, w->id_of[first])))
                first = other;
        }
        if (first < 0) return execute(g, d);
        if (depth == SPECULATE_MAX_CHAIN || over_budget(g)) return -1;
        if (take(g, (due){w->cal.body[first].time, w->id_of[first], first}, depth + 1) != 0) return -1;
    }
}

/* ---- windows ---- */

static void forget_window(engine *g)
{
    for (int32_t k = 0; k < g->log_count; k++)
        for (int m = 0; m < 3 && g->log[k].cells[m] >= 0; m++) g->cell_last[g->log[k].cells[m]] = -1;
    g->log_count = 0;
    g->window_executions = g->window_undone = 0;
}

/* Every body's event in its region's heap, afresh (at the start, and after
 * time order or a re-sort changed events or slots behind the heaps). */
static int file_all(engine *g)
{
    for (int32_t r = 0; r < g->regions; r++) g->heap[r].count = 0;
    for (int32_t b = 0; b < g->w->count; b++)
        if (file_due(g, b) != 0) return -1;
    return 0;
}

/* The window's kept events: their statistics, in processing order; then
 * the bodies are sorted in memory again where carom_world_run would do it
 * by now (order.c), between windows. */
static int commit_window(engine *g)
{
    carom_world *w = g->w;
    for (int32_t k = 0; k < g->log_count; k++)
        if (g->log[k].alive) add_statistics(w, &g->log[k]), g->stats.kept++, w->events_since_order++;
    forget_window(g);
    if (!order_due(w)) return 0;
    calendar_thaw(&w->cal);
    (void)order_bodies(w); /* out of memory: it tries again later, as in run.c */
    calendar_freeze(&w->cal);
    return file_all(g);
}

/* Undoes the window and runs it in time order. */
static carom_status window_in_time_order(engine *g)
{
    carom_world *w = g->w;
    for (int32_t k = g->log_count - 1; k >= 0; k--)
        if (g->log[k].alive) undo_entry(g, k);
    forget_window(g);
    g->stats.fallbacks++;
    calendar_thaw(&w->cal);
    carom_status st = carom_world_run(w, g->last_window ? g->t_end : g->window_end, -1);
    if (st != CAROM_OK) return st;
    calendar_freeze(&w->cal);
    return file_all(g) == 0 ? CAROM_OK : world_fail(w, CAROM_OUT_OF_MEMORY, "out of memory filing events by region");
}

/* Rollbacks undo far more than the window keeps: a chain of events at one
 * instant undoing its own ancestors, or guesses so poor that time order is
 * cheaper. */
static int over_budget(const engine *g)
{
    int64_t live = g->window_executions - g->window_undone;
    return g->window_undone > SPECULATE_BUDGET * live + SPECULATE_BUDGET_FLOOR;
}

/* Sweeps over the regions until none has a due event. */
static carom_status run_window(engine *g)
{
    int busy = 1;
    for (int sweep = 0; busy; sweep++) {
        if (sweep == SPECULATE_MAX_SWEEPS) return window_in_time_order(g);
        busy = 0;
        g->stats.sweeps++;
        for (int32_t r = 0; r < g->regions; r++) {
            due_heap *h = &g->heap[r];
            while (h->count > 0 && is_due(g, h->entry[0].time)) {
                due d = heap_pop(h);
                if (!still_due(g, d, r)) continue;
                busy = 1;
                if (over_budget(g) || take(g, d, 0) != 0) return window_in_time_order(g);
            }
        }
    }
    if (commit_window(g) != 0) return world_fail(g->w, CAROM_OUT_OF_MEMORY, "out of memory filing events by region");
    return CAROM_OK;
}

/* ---- the run ---- */

static void free_engine(engine *g)
{
    if (g->heap)
        for (int32_t r = 0; r < g->regions; r++)
            memory_free(g->mem, g->heap[r].entry, (size_t)g->heap[r].room * sizeof(due));
    memory_free(g->mem, g->heap, (size_t)g->regions * sizeof *g->heap);
    memory_free(g->mem, g->region_of_cell, (size_t)g->w->grid.total * sizeof(int32_t));
    memory_free(g->mem, g->inside, (size_t)g->w->grid.total);
    memory_free(g->mem, g->cell_last, (size_t)g->w->grid.total * sizeof(int32_t));
    memory_free(g->mem, g->log, (size_t)g->log_room * sizeof(logged));
    memory_free(g->mem, g->spins, 2 * (size_t)g->log_room * sizeof(spin_state));
    memory_free(g->mem, g->work, (size_t)g->work_room * sizeof(int32_t));
}

static int make_engine(engine *g, carom_world *w, int32_t side)
{
    const cells *grid = &w->grid;
    *g = (engine){.w = w, .mem = &w->def.allocator, .side = side};
    g->regions = 1;
    for (int a = 0; a < 3; a++) g->per_axis[a] = (grid->n[a] + side - 1) / side, g->regions *= g->per_axis[a];
    g->region_of_cell = memory_alloc(g->mem, (size_t)grid->total * sizeof(int32_t));
    g->cell_last = memory_alloc(g->mem, (size_t)grid->total * sizeof(int32_t));
    g->heap = memory_alloc_zeroed(g->mem, (size_t)g->regions, sizeof *g->heap);
    g->inside = memory_alloc(g->mem, (size_t)grid->total);
    if (!g->region_of_cell || !g->cell_last || !g->heap || !g->inside) return free_engine(g), -1;
    for (int32_t c = 0; c < grid->total; c++) {
        int32_t k[3] = {c % grid->n[0], (c / grid->n[0]) % grid->n[1], c / (grid->n[0] * grid->n[1])};
        g->region_of_cell[c] = k[0] / side + g->per_axis[0] * (k[1] / side + g->per_axis[1] * (k[2] / side));
        g->cell_last[c] = -1;
    }
    for (int32_t c = 0; c < grid->total; c++) {
        int32_t near[27];
        int n = around(grid, c, near);
        g->inside[c] = 1;
        for (int m = 0; m < n; m++) g->inside[c] &= g->region_of_cell[near[m]] == g->region_of_cell[c];
    }
    return 0;
}

/* The settings first (nothing done if they are bad), then the world,
 * built if it has not run yet. */
static carom_status check_speculate(carom_world *w, double t_end, int32_t side, double window)
{
    if (w->in_callback)
        return world_fail(w, CAROM_INVALID_ARGUMENT, "speculate_run called from the event callback");
    if (!(t_end >= w->clock && t_end < INFINITY))
        return world_fail(w, CAROM_INVALID_ARGUMENT, "t_end = %.17g: expected a finite time from the clock (%.17g)",
                          t_end, w->clock);
    if (side < 1) return world_fail(w, CAROM_INVALID_ARGUMENT, "regions of %d cells: expected 1 or more", (int)side);
    if (!(window > 0.0 && window < INFINITY))
        return world_fail(w, CAROM_INVALID_ARGUMENT, "window = %g: expected a finite time > 0", window);
    if ((t_end - w->clock) / window > SPECULATE_MAX_WINDOWS)
        return world_fail(w, CAROM_INVALID_ARGUMENT, "window = %g: expected at most %g windows to t_end = %.17g",
                          window, (double)SPECULATE_MAX_WINDOWS, t_end);
    if (w->needs_rebuild) {
        carom_status st = carom_world_run(w, w->clock, 0); /* builds the grid and the events */
        if (st != CAROM_OK) return st;
    }
    const char *why = replay_unsupported(w);
    if (why) return world_fail(w, CAROM_INVALID_ARGUMENT, "cannot run region by region: %s", why);
    return CAROM_OK;
}

carom_status speculate_run(carom_world *w, double t_end, int32_t side, double window, speculate_stats *stats)
{
    if (!w) return CAROM_INVALID_ARGUMENT;
    carom_status st = check_speculate(w, t_end, side, window);
    if (st != CAROM_OK) return st;
    engine g;
    if (make_engine(&g, w, side) != 0)
        return world_fail(w, CAROM_OUT_OF_MEMORY, "out of memory for %d regions", (int)g.regions);
    g.t_end = t_end;
    calendar_freeze(&w->cal);
    if (file_all(&g) != 0) {
        calendar_thaw(&w->cal);
        free_engine(&g);
        return world_fail(w, CAROM_OUT_OF_MEMORY, "out of memory filing events by region");
    }
    for (double from = w->clock; st == CAROM_OK && !g.last_window; from = g.window_end) {
        g.window_end = from + window > from ? from + window : nextafter(from, INFINITY); /* always forward */
        g.last_window = !(g.window_end < t_end);
        g.stats.windows++;
        st = run_window(&g);
    }
    if (st == CAROM_OK) w->clock = t_end;
    if (w->cal.mode == CALENDAR_FROZEN) calendar_thaw(&w->cal); /* not after time order failed: thawed there */
    if (stats) *stats = g.stats;
    free_engine(&g);
    return st;
}
