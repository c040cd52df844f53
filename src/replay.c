/* replay.c — which worlds a recorded stretch can be replayed in, the region
 * order of a stretch, and a bit-for-bit comparison of two worlds (replay.h
 * says why such an order keeps every bit).
 *
 * The order is the one an event-driven engine working region by region
 * would follow if it knew the future: the causality windows of parallel
 * hard-sphere codes (Lubachevsky, J. Comput. Phys. 94, 255 (1991); Miller &
 * Luding, J. Comput. Phys. 193, 306 (2004)), taken here in one thread for
 * the caches' sake. Each cell keeps the events that touched it, in time
 * order, and a cursor at the first not yet taken; an event is free to go
 * when no cell within one of its touched cells has an earlier event still
 * to take. Two events that touch one cell never commute, so each cell's
 * events are taken in their order and one cursor a cell suffices. */
#include "replay.h"

#include <stdlib.h>
#include <string.h>

#include "world.h"

const char *replay_unsupported(const carom_world *w)
{
    if (w->needs_rebuild) return "the world has not run yet (its grid and events are built at its first run)";
    if (w->nb.on || !w->grid.cell) return "the world uses neighbour lists (replays know the cells' reads only)";
    if (w->def.on_event) return "the world has an event callback, which would see events out of time order";
    if (w->steering.count || w->sense.count || w->drive.on || w->container || w->spin.polygons)
        return "the world has steered, driven or kinematic bodies, sensors, a container or polygons";
    if (w->rest.floors || w->rest.collapse) return "the world keeps resting or collapse bookkeeping";
    return NULL;
}

typedef struct orderer {
    const replay_event *events;
    int32_t grid[3];
    int periodic[3];
    int64_t *start;  /* cell c's events: list[start[c] .. start[c + 1]) */
    int64_t *list;
    int64_t *cursor; /* per cell: its first event not taken */
    unsigned char *taken;
    int64_t *stack;
    int64_t *order, emitted;
} orderer;

/* The event's distinct touched cells. */
static int touched_cells(const replay_event *e, int32_t out[3])
{
    int k = 0;
    for (int a = 0; a < 3 && e->cells[a] >= 0; a++) out[k++] = e->cells[a];
    return k;
}

/* The cell one step (d = -1, 0, 1 per axis) from cell c, or -1 past a
 * face that does not wrap. */
/* Cell c's place on each axis. */
static void cell_place(const orderer *o, int32_t c, int32_t k[3])
{
    k[0] = c % o->grid[0], k[1] = (c / o->grid[0]) % o->grid[1], k[2] = c / (o->grid[0] * o->grid[1]);
}

static int32_t step_cell(const orderer *o, int32_t c, const int d[3])
{
    int32_t k[3];
    cell_place(o, c, k);
    for (int a = 0; a < 3; a++) {
        k[a] += d[a];
        if (k[a] < 0 || k[a] >= o->grid[a]) {
            if (!o->periodic[a]) return -1;
            k[a] = k[a] < 0 ? k[a] + o->grid[a] : k[a] - o->grid[a];
        }
    }
    return k[0] + o->grid[0] * (k[1] + o->grid[1] * k[2]);
}

/* An earlier event that e must wait for and that is not taken yet, or -1. */
static int64_t waits_for(const orderer *o, int64_t e)
{
    int32_t touched[3];
    int n = touched_cells(&o->events[e], touched);
    for (int m = 0; m < n; m++)
        for (int s = 0; s < 27; s++) {
            int d[3] = {s % 3 - 1, (s / 3) % 3 - 1, s / 9 - 1};
            int32_t c = step_cell(o, touched[m], d);
            if (c < 0 || o->cursor[c] == o->start[c + 1]) continue;
            int64_t first = o->list[o->cursor[c]];
            if (first < e) return first;
        }
    return -1;
}

/* Takes e after everything it waits for (a depth-first walk on a stack:
 * each event waited for is earlier, so the walk ends). */
static void take(orderer *o, int64_t e)
{
    int64_t depth = 0;
    o->stack[depth++] = e;
    while (depth > 0) {
        int64_t top = o->stack[depth - 1], first = o->taken[top] ? -1 : waits_for(o, top);
        if (first >= 0) {
            o->stack[depth++] = first;
            continue;
        }
        depth--;
        if (o->taken[top]) continue;
        o->taken[top] = 1;
        o->order[o->emitted++] = top;
        int32_t touched[3];
        int n = touched_cells(&o->events[top], touched);
        for (int m = 0; m < n; m++) o->cursor[touched[m]]++; /* top was each cell's first: all before it are taken */
    }
}

/* Files each event under the cells it touched; -1 for a cell off the grid. */
static int file_by_cell(orderer *o, int64_t count, int32_t total)
{
    for (int64_t e = 0; e < count; e++) {
        int32_t touched[3];
        int n = touched_cells(&o->events[e], touched);
        for (int m = 0; m < n; m++) {
            if (touched[m] >= total) return -1;
            o->start[touched[m] + 1]++;
        }
    }
    for (int32_t c = 0; c < total; c++) o->start[c + 1] += o->start[c];
    memcpy(o->cursor, o->start, (size_t)total * sizeof *o->cursor);
    for (int64_t e = 0; e < count; e++) {
        int32_t touched[3];
        int n = touched_cells(&o->events[e], touched);
        for (int m = 0; m < n; m++) o->list[o->cursor[touched[m]]++] = e;
    }
    memcpy(o->cursor, o->start, (size_t)total * sizeof *o->cursor);
    return 0;
}

static int32_t region_of(const orderer *o, int32_t c, int32_t side, const int32_t per_axis[3])
{
    int32_t k[3];
    cell_place(o, c, k);
    return k[0] / side + per_axis[0] * (k[1] / side + per_axis[1] * (k[2] / side));
}

/* One window [from, to): its events by region (a counting sort that keeps
 * time order), then each region's in turn. */
static void take_window(orderer *o, int64_t from, int64_t to, const int32_t *home, int32_t regions,
                        int64_t *first, int64_t *by_region, replay_order_stats *stats)
{
    memset(first, 0, ((size_t)regions + 1) * sizeof *first);
    for (int64_t e = from; e < to; e++) first[home[e] + 1]++;
    for (int32_t r = 0; r < regions; r++) first[r + 1] += first[r];
    for (int64_t e = from; e < to; e++) by_region[first[home[e]]++] = e;
    for (int32_t r = regions; r > 0; r--) first[r] = first[r - 1]; /* back to each region's start */
    first[0] = 0;
    for (int32_t r = 0; r < regions; r++) {
        stats->visits += first[r + 1] > first[r];
        for (int64_t k = first[r]; k < first[r + 1]; k++) {
            int64_t before = o->emitted;
            take(o, by_region[k]);
            for (int64_t m = before; m < o->emitted; m++) stats->away += home[o->order[m]] != r;
        }
    }
}

int replay_region_order(const replay_event *events, int64_t count, const int32_t grid[3], const int periodic[3],
                        int32_t side, int64_t window, int64_t *order, replay_order_stats *stats)
{
    *stats = (replay_order_stats){0, 0, 0};
    if (count < 0 || side < 1 || window < 1 || grid[0] < 1 || grid[1] < 1 || grid[2] < 1) return -1;
    int32_t total = grid[0] * grid[1] * grid[2], per_axis[3];
    for (int a = 0; a < 3; a++) per_axis[a] = (grid[a] + side - 1) / side;
    int32_t regions = per_axis[0] * per_axis[1] * per_axis[2];
    int64_t slice = window < count ? window : count;
    orderer o = {events, {grid[0], grid[1], grid[2]}, {periodic[0], periodic[1], periodic[2]},
                 calloc((size_t)total + 1, sizeof(int64_t)), malloc((size_t)(3 * count + 1) * sizeof(int64_t)),
                 malloc((size_t)total * sizeof(int64_t)), calloc((size_t)count + 1, 1),
                 malloc((size_t)(count + 1) * sizeof(int64_t)), order, 0};
    int32_t *home = malloc((size_t)(count + 1) * sizeof *home);
    int64_t *first = malloc(((size_t)regions + 1) * sizeof *first);
    int64_t *by_region = malloc((size_t)(slice + 1) * sizeof *by_region);
    int ok = o.start && o.list && o.cursor && o.taken && o.stack && home && first && by_region &&
             file_by_cell(&o, count, total) == 0;
    if (ok) {
        *stats = (replay_order_stats){0, 0, regions};
        for (int64_t e = 0; e < count; e++) home[e] = region_of(&o, events[e].cells[0], side, per_axis);
        for (int64_t from = 0; from < count; from += window)
            take_window(&o, from, count - from > window ? from + window : count, home, regions, first, by_region,
                        stats);
    }
    free(o.start), free(o.list), free(o.cursor), free(o.taken), free(o.stack);
    free(home), free(first), free(by_region);
    return ok ? 0 : -1;
}

/* Whether body i of a and body j of b differ: motion, event (a pair's
 * partner by id), event time, stamp, count, cell and spin; with links, also
 * their ids and the next body in their cell's list (slot for slot). */
static int body_differs(const carom_world *a, int32_t i, const carom_world *b, int32_t j, int links)
{
    const calendar_body *ca = &a->cal.body[i], *cb = &b->cal.body[j];
    const body_event *ea = &ca->event, *eb = &cb->event;
    int scheduled = calendar_has(&a->cal, i);
    int partnered = ea->kind == EVENT_PAIR;
    return memcmp(&a->hot[i], &b->hot[j], sizeof a->hot[i]) != 0 || ea->kind != eb->kind ||
           ea->partner_counter != eb->partner_counter || ea->instant != eb->instant ||
           (partnered ? a->id_of[ea->partner] != b->id_of[eb->partner] : ea->partner != eb->partner) ||
           scheduled != calendar_has(&b->cal, j) || (scheduled && memcmp(&ca->time, &cb->time, sizeof ca->time) != 0) ||
           world_stamp(a, i) != world_stamp(b, j) || world_collisions(a, i) != world_collisions(b, j) ||
           a->grid.cell[i] != b->grid.cell[j] ||
           (links && (a->id_of[i] != b->id_of[j] || a->grid.next[i] != b->grid.next[j])) ||
           (a->spin.on && memcmp(&a->spin.state[i], &b->spin.state[j], sizeof a->spin.state[i]) != 0);
}

static int comparable(const carom_world *a, const carom_world *b)
{
    return a->count == b->count && a->grid.total == b->grid.total && a->grid.cell && b->grid.cell &&
           a->spin.on == b->spin.on;
}

int64_t replay_differences(const carom_world *a, const carom_world *b)
{
    if (!comparable(a, b)) return -1;
    int64_t differ = 0;
    for (int32_t k = 0; k < a->count; k++) differ += body_differs(a, k, b, k, 1);
    for (int32_t c = 0; c < a->grid.total; c++) differ += a->grid.head[c] != b->grid.head[c];
    return differ;
}

int64_t replay_differences_by_id(const carom_world *a, const carom_world *b)
{
    if (!comparable(a, b)) return -1;
    int64_t differ = 0;
    for (int32_t id = 0; id < a->count; id++) differ += body_differs(a, a->slot_of[id], b, b->slot_of[id], 0);
    return differ;
}
