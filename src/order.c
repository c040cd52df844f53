/* order.c — re-sorting bodies in memory along the cell grid.
 *
 * A prediction reads the records of every body in 3^d cells. If those bodies
 * sit at random places in memory, each read at large N is a cache miss, and
 * the rate falls as N grows (the anchors lose a third to a half of their speed
 * from 10^4 to 10^5 bodies). Sorting the bodies by cell index every few events
 * per body keeps each cell's bodies, and x-neighbouring cells, together in
 * memory (the idea of Anderson, Lorenz & Travesset, J. Comput. Phys. 227, 5342
 * (2008), for molecular dynamics on GPUs; a counting sort by cell makes it
 * O(N + cells)). The permutation is applied in place by following its cycles,
 * so it needs one integer per body of scratch, not a copy of every array:
 * the cell lists' links, which are made again from the bodies' cells at the
 * end, hold it (at 10^6 bodies an allocation of 4 MB would raise the peak
 * memory by 4 bytes a body).
 */
#include "order.h"

#include <assert.h>

#include "memory.h"
#include "prefetch.h"

/* Below this many bodies everything stays in cache: ordering would not pay. */
enum { ORDER_MIN_BODIES = 4096, ORDER_EVENTS_PER_BODY = 16 };

int order_due(const carom_world *w)
{
    return w->count >= ORDER_MIN_BODIES &&
           w->events_since_order >= (int64_t)ORDER_EVENTS_PER_BODY * w->count;
}

/* One body's record in every per-body array. */
typedef struct body_record {
    body_hot hot;
    double mass;
    uint32_t counter;
    uint32_t collisions; /* the low half: carries go by id */
    int32_t id, cell;
    calendar_body cal; /* with the event; links renamed afterwards by calendar_relabel */
    spin_state spin;   /* with its inertia and polygon, where the world keeps rotation */
    double inertia;
    int32_t shape;
} body_record;

static body_record load(const carom_world *w, int32_t s)
{
    body_record r = {w->hot[s],   world_mass(w, s), w->own_stamps ? w->counter[s] : 0, w->collisions[s],
                     w->id_of[s], w->grid.cell ? w->grid.cell[s] : -1,
                     w->cal.body[s], {{0.0, 0.0, 0.0}, 0.0, {0.0, 0.0, 0.0, 0.0}}, 0.0, -1};
    if (w->spin.on) r.spin = w->spin.state[s], r.inertia = w->spin.inertia[s], r.shape = w->spin.shape[s];
    return r;
}

static void store(carom_world *w, int32_t s, const body_record *r)
{
    w->hot[s] = r->hot;
    if (w->mass) w->mass[s] = r->mass;
    if (w->own_stamps) w->counter[s] = r->counter;
    w->collisions[s] = r->collisions;
    w->id_of[s] = r->id;
    if (w->grid.cell) w->grid.cell[s] = r->cell; /* else the anchor, carried with the row, gives it */
    w->cal.body[s] = r->cal;
    if (w->spin.on) w->spin.state[s] = r->spin, w->spin.inertia[s] = r->inertia, w->spin.shape[s] = r->shape;
}

/* Asks for the records of slot s that load reads and store writes (with
 * its lists when they are carried): a cycle visits slots at random, and at
 * 10^6 bodies each is a miss. */
PREFETCH_HELPER void prefetch_slot(const carom_world *w, int32_t s, int lists)
{
    PREFETCH(&w->hot[s]);
    PREFETCH(&w->cal.body[s]);
    PREFETCH(&w->collisions[s]);
    PREFETCH(&w->id_of[s]);
    if (w->grid.cell) PREFETCH(&w->grid.cell[s]);
    if (lists) {
        PREFETCH(neighbours_fixed_row(&w->nb, s));
        PREFETCH(&w->nb.anchor[3 * s]);
        PREFETCH(&w->nb.count[s]);
    }
}

/* How many slots ahead along a cycle permute asks for records. */
enum { PERMUTE_LEAD = 6 };

/* The body in slot s goes to slot to[s], for every s. Cycle by cycle, in
 * place, carrying one body's records (and, unless rows[0] is NULL, one row
 * of the neighbour lists in rows[0]; rows[1] holds the one it displaces).
 * Each slot's to[] is marked (~) once its body has left, and restored at the
 * end. A second walk PERMUTE_LEAD slots ahead along the cycle asks for the
 * records the first will move (the slots between the two are not yet
 * visited, so their to[] still leads on; the walk stops at the cycle's
 * start). */
static void permute(carom_world *w, int32_t *to, int32_t *rows[2])
{
    neighbours_record carried_lists = {{0.0f, 0.0f, 0.0f}, 0, rows[0]};
    neighbours_record displaced_lists = {{0.0f, 0.0f, 0.0f}, 0, rows[1]};
    int lists = rows[0] != NULL;
    for (int32_t start = 0; start < w->count; start++) {
        if (to[start] < 0 || to[start] == start) continue;
        body_record carried = load(w, start);
        if (lists) neighbours_save(&w->nb, start, &carried_lists);
        int32_t p = to[start], ahead = p;
        for (int k = 0; k < PERMUTE_LEAD && ahead != start; k++) {
            prefetch_slot(w, ahead, lists);
            ahead = to[ahead];
        }
        to[start] = ~p;
        while (p != start) {
            if (ahead != start) {
                prefetch_slot(w, ahead, lists);
                ahead = to[ahead];
            }
            body_record displaced = load(w, p);
            if (lists) neighbours_save(&w->nb, p, &displaced_lists);
            store(w, p, &carried);
            if (lists) neighbours_load(&w->nb, p, &carried_lists);
            carried = displaced;
            neighbours_record swap = carried_lists;
            carried_lists = displaced_lists;
            displaced_lists = swap;
            int32_t q = to[p];
            to[p] = ~q;
            p = q;
        }
        store(w, start, &carried);
        if (lists) neighbours_load(&w->nb, start, &carried_lists);
    }
    for (int32_t s = 0; s < w->count; s++)
        if (to[s] < 0) to[s] = ~to[s];
}

/* Rebuilds every cell list in slot order (each list ascending). */
static void relink_cells(carom_world *w)
{
    for (int32_t c = 0; c < w->grid.total; c++) w->grid.head[c] = -1;
    for (int32_t s = w->count - 1; s >= 0; s--) {
        int32_t cell = world_cell(w, s);
        if (w->grid.cell) w->grid.cell[s] = -1;
        cells_insert(&w->grid, s, cell);
    }
}

/* Two rows of scratch for carrying the neighbour lists (NULL when there are
 * none to carry), or NULL with *failed set. */
static int32_t *row_scratch(const carom_world *w, int carry_lists, int *failed)
{
    size_t bytes = 2 * (size_t)w->nb.width * sizeof(int32_t);
    int32_t *scratch = carry_lists ? memory_alloc(&w->def.allocator, bytes) : NULL;
    *failed = carry_lists && !scratch;
    return scratch;
}

static void free_row_scratch(const carom_world *w, int32_t *scratch)
{
    if (scratch) memory_free(&w->def.allocator, scratch, 2 * (size_t)w->nb.width * sizeof(int32_t));
}

/* order_permute with its scratch found (NULL: no lists to carry): cannot
 * fail. to[] is the cell lists' next links (relink_cells makes them again
 * from the bodies' cells). */
static void permute_everywhere(carom_world *w, int32_t *scratch)
{
    int32_t n = w->count, *to = w->grid.next;
    int32_t *rows[2] = {scratch, scratch ? scratch + w->nb.width : NULL};
    permute(w, to, rows);
    if (scratch) neighbours_relabel(&w->nb, n, to);
    for (int32_t s = 0; s < n; s++) {
        body_event *e = world_event(w, s);
        if (e->kind == EVENT_PAIR) e->partner = to[e->partner];
        w->slot_of[w->id_of[s]] = s;
    }
    calendar_relabel(&w->cal, to);
    relink_cells(w);
}

int order_permute(carom_world *w, int32_t *from)
{
    int failed;
    int32_t *scratch = row_scratch(w, w->nb.on, &failed);
    if (failed) return -1;
    for (int32_t p = 0; p < w->count; p++) w->grid.next[from[p]] = p;
    permute_everywhere(w, scratch);
    free_row_scratch(w, scratch);
    return 0;
}

/* The cells tile by tile: ORDER_TILE cells a side (order.h), tiles in index
 * order and the cells of each tile in index order. A prediction reads the 3^d cells
 * around a body; in plain index order they lie in 3^(d-1) runs far apart in
 * memory (a row apart along y, a plane apart along z), in tile order most of
 * them lie in one or a few runs, so fewer cache lines and pages are touched
 * (head, next and hot records alike). */
static int32_t tile_end(int32_t start, int32_t n) { return start + ORDER_TILE < n ? start + ORDER_TILE : n; }

/* order_bodies, carrying the neighbour lists along or not (then they are
 * built afresh afterwards). */
static int sort_by_tiles(carom_world *w, int carry_lists)
{
    int failed;
    int32_t *scratch = row_scratch(w, carry_lists, &failed);
    if (failed) return -1; /* tried again after the next event */
    const int32_t *n = w->grid.n;
    int32_t placed = 0, *next = w->grid.next; /* each body's link, once followed, becomes its new slot */
    for (int32_t z0 = 0; z0 < n[2]; z0 += ORDER_TILE)
        for (int32_t y0 = 0; y0 < n[1]; y0 += ORDER_TILE)
            for (int32_t x0 = 0; x0 < n[0]; x0 += ORDER_TILE)
                for (int32_t z = z0; z < tile_end(z0, n[2]); z++)
                    for (int32_t y = y0; y < tile_end(y0, n[1]); y++)
                        for (int32_t x = x0; x < tile_end(x0, n[0]); x++)
                            for (int32_t j = w->grid.head[x + n[0] * (y + n[1] * z)], after; j >= 0; j = after) {
                                after = next[j];
                                next[j] = placed++;
                            }
    permute_everywhere(w, scratch);
    free_row_scratch(w, scratch);
    w->events_since_order = 0;
    return 0;
}

int order_bodies(carom_world *w) { return sort_by_tiles(w, w->nb.on); }

/* Kept to the worlds past a core's caches, where the event loop prefetches
 * too: below, the sort's cost shows in short runs and its gain does not
 * (bench/README.md, "Sorted before the lists are built"). */
void order_at_rebuild(carom_world *w)
{
    if (w->count < PREFETCH_FROM_BODIES) return;
    int sorted = sort_by_tiles(w, 0); /* nothing to carry: allocates nothing, so cannot fail */
    assert(sorted == 0);
    (void)sorted;
}
