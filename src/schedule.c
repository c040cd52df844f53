/* schedule.c — single-event scheduling: each body keeps only its earliest
 * predicted event, the minimum over its neighbours in the 3^d cell stencil,
 * the walls and the exit from its cell (Smallenburg, Eur. Phys. J. E 45, 22
 * (2022)). A pair event remembers the partner's collision counter; if the
 * partner collides first, the event is found stale when it comes due and the
 * body is simply predicted again. This replaces seed 000's discard list and
 * never searches the calendar.
 */
#include "schedule.h"

#include <assert.h>
#include <math.h>

#include "boundary.h"
#include "choose.h"
#include "motion.h"
#include "order.h"
#include "predict.h"
#include "screen.h"
#include "settle.h"
#include "shapes.h"

/* The pair's contact time if it comes before horizon (absolute), else INFINITY
 * or a time >= horizon. Both sides of a pair get the same bits: positions are
 * brought to the later of the two time stamps either way, and
 * fl(x_j - x_i) = -fl(x_i - x_j), so dr and dv only change sign, which
 * predict_pair_before does not see. */
static inline double pair_time_before(const carom_world *w, int32_t i, int32_t j,
                                      const double shift[3], double horizon)
{
    if (w->drive.kinematic && drive_is_kinematic(world_mass(w, i)) && drive_is_kinematic(world_mass(w, j)))
        return INFINITY; /* kinematic bodies pass through each other */
    const body_hot *a = &w->hot[i], *b = &w->hot[j];
    double t_ref = a->t > b->t ? a->t : b->t;
    double xa[3], va[3], xb[3], vb[3], dr[3], dv[3], da[3];
    const double *ga = motion_gravity(w, i), *gb = motion_gravity(w, j);
    motion_state_at(a, ga, w->has_gravity, t_ref, xa, va);
    motion_state_at(b, gb, w->has_gravity, t_ref, xb, vb);
    for (int k = 0; k < 3; k++) {
        dr[k] = (xb[k] - xa[k]) + shift[k];
        dv[k] = vb[k] - va[k];
        da[k] = gb[k] - ga[k];
    }
    if (da[0] != 0.0 || da[1] != 0.0 || da[2] != 0.0) /* accelerated differently: a quartic */
        return t_ref + predict_pair_accelerated(dr, dv, da, a->radius + b->radius, horizon - t_ref);
    return t_ref + predict_pair_before(dr, dv, a->radius + b->radius, horizon - t_ref);
}

/* The earliest event found so far. reach is its time plus a few units in the
 * last place of the clock (slack): the horizon handed to the early rejection,
 * so that a pair whose time rounds to exactly best.time is never rejected
 * and a tie is always decided by the total order (offer_pair), whatever
 * order the candidates come in. (Ties need best.time near the clock, where
 * its units in the last place are the clock's; far from it the rejection's
 * relative margin of 1e-9 is far wider than a unit in the last place.)
 * just is the body whose last collision was with this one and no other (see
 * settle_just_partner): while they touch they cannot meet again until one
 * of them is disturbed, so no event between them is taken. */
typedef struct candidate {
    double time, reach, slack;
    body_event event;
    int32_t just;
} candidate;

static inline void set_best(candidate *best, double time, body_event event)
{
    best->time = time;
    best->reach = time + best->slack;
    best->event = event;
}

/* Only finite times are events: a pair at rest, or a wall never reached, is none. */
static void consider(candidate *best, double time, uint8_t kind, int32_t partner,
                     uint32_t partner_counter)
{
    if (!(time < best->time)) return;
    set_best(best, time, (body_event){partner, partner_counter, kind, 0});
}

/* Do bodies i and j (j seen through shift) touch, to round-off, now? */
static int still_touching(const carom_world *w, int32_t i, int32_t j, const double shift[3])
{
    double xi[3], vi[3], xj[3], vj[3], d2 = 0.0, sigma = w->hot[i].radius + w->hot[j].radius;
    motion_state_at(&w->hot[i], motion_gravity(w, i), w->has_gravity, w->clock, xi, vi);
    motion_state_at(&w->hot[j], motion_gravity(w, j), w->has_gravity, w->clock, xj, vj);
    for (int a = 0; a < 3; a++) d2 += (xj[a] + shift[a] - xi[a]) * (xj[a] + shift[a] - xi[a]);
    return d2 <= sigma * sigma * (1.0 + 1e-9);
}

/* The scans below take check_just as a constant: always inlined, each is
 * compiled twice, and worlds without last partners (all elastic ones) never
 * pay for the test. */
#if defined(__GNUC__)
#define SCAN static inline __attribute__((always_inline))
#else
#define SCAN static inline
#endif

/* Files pair (i, j) in best if it is earlier, or as early and best is not a
 * pair or a pair with a higher id: the total order (time, kind, id). */
SCAN void offer_pair(const carom_world *w, candidate *best, double t, int32_t i, int32_t j,
                     const double shift[3], const int check_just)
{
    if (t < best->time ||
        (t == best->time && t < INFINITY &&
         (best->event.kind != EVENT_PAIR || w->id_of[j] < w->id_of[best->event.partner]))) {
        if (check_just && j == best->just && still_touching(w, i, j, shift)) return;
        set_best(best, t, (body_event){j, 0, EVENT_PAIR, 0}); /* the stamp is read once, in schedule_body */
    }
}

/* Body i's state, read once by the scans below (flying straight). */
typedef struct free_body {
    double x[3], v[3], t;
} free_body;

static inline free_body free_body_of(const body_hot *a)
{
    return (free_body){{a->x[0], a->x[1], a->x[2]}, {a->v[0], a->v[1], a->v[2]}, a->t};
}

/* Without a field, the same arithmetic as pair_time_before, without its
 * branch on which time stamp is later: both bodies are brought to the later
 * one, t_ref, and x + v * 0 is x (the signs of zeros aside, which no result
 * depends on), so the bits are those of pair_time_before. With lean set, a
 * is known to be the later (it is at the clock, where no body is ahead of
 * it) and only b moves. The usual case, no contact before the horizon, is
 * told by predict_pair_may_meet without a branch (in a scan its outcome is
 * a coin flip, and a mispredicted branch costs more than the arithmetic);
 * only the rare rest pays for the square root and the bookkeeping. Returns
 * the time after t_ref, INFINITY for none. This is the innermost loop of
 * the whole engine. */
SCAN double free_pair_time_after(const free_body *a, const body_hot *b, double radii, const double shift[3],
                                 double horizon, double scale, double *t_ref, const int lean, const int shifted)
{
    double dr[3], dv[3];
    if (lean) {
        assert(b->t <= a->t);
        double dtb = a->t - b->t;
        for (int k = 0; k < 3; k++) dr[k] = (b->x[k] + b->v[k] * dtb) - a->x[k];
        *t_ref = a->t;
    } else {
        double t = b->t <= a->t ? a->t : b->t, dta = t - a->t, dtb = t - b->t;
        for (int k = 0; k < 3; k++) dr[k] = (b->x[k] + b->v[k] * dtb) - (a->x[k] + a->v[k] * dta);
        *t_ref = t;
    }
    for (int k = 0; k < 3; k++) {
        if (shifted) dr[k] += shift[k]; /* adding 0.0 would change no bit */
        dv[k] = b->v[k] - a->v[k];
    }
    int may_meet = lean ? predict_pair_may_meet_scaled(dr, dv, radii, scale)
                        : predict_pair_may_meet(dr, dv, radii, horizon - *t_ref);
    if (!may_meet) return INFINITY;
    return predict_pair_before(dr, dv, radii, horizon - *t_ref);
}

/* A lean scan's rejection scale for the horizon it has now (after a better
 * pair, a nearer one); a body behind the clock has a horizon of its own for
 * each pair. */
SCAN double lean_scale(const free_body *a, const candidate *best, const int lean)
{
    return lean ? predict_rejection_scale(best->reach - a->t) : 0.0;
}

/* Offers pair (i, j), j seen through shift, flying straight; *scale is the
 * lean scan's rejection scale, renewed when a pair is offered. */
SCAN void offer_free_pair(const carom_world *w, int32_t i, const free_body *a, int32_t j, const body_hot *b,
                          const double shift[3], candidate *best, double *scale, const int check_just,
                          const int lean, const int shifted)
{
    double t_ref, s = free_pair_time_after(a, b, w->hot[i].radius + b->radius, shift, best->reach, *scale, &t_ref,
                                           lean, shifted);
    if (s != INFINITY && j != i) {
        offer_pair(w, best, t_ref + s, i, j, shift, check_just);
        *scale = lean_scale(a, best, lean);
    }
}

/* The hot record of a list entry's body, slot = entry >> image bits: a
 * record is twice 2^(image bits) bytes, so its offset is the entry with the
 * image masked off, doubled, which an x86 address computes by itself (this
 * is the innermost loop). */
_Static_assert(sizeof(body_hot) == 2 << NEIGHBOURS_IMAGE_BITS, "hot_of_entry's offset");
static inline const body_hot *hot_of_entry(const body_hot *hot, uint32_t entry)
{
    size_t masked = entry & ~(uint32_t)((1 << NEIGHBOURS_IMAGE_BITS) - 1);
    return (const body_hot *)((const char *)hot + 2 * masked);
}

/* Every neighbour in body i's list, flying straight (neighbour lists are
 * never used with world gravity). */
SCAN void scan_listed_pairs(const carom_world *w, int32_t i, candidate *best, const int check_just, const int lean,
                            const int shifted)
{
    const neighbours *nb = &w->nb;
    const int32_t *row = neighbours_row(nb, i);
    const free_body a = free_body_of(&w->hot[i]);
    double scale = lean_scale(&a, best, lean);
    for (int k = 0, n = nb->count[i]; k < n; k++) {
        int32_t entry = row[k];
        offer_free_pair(w, i, &a, neighbours_slot(entry), hot_of_entry(w->hot, (uint32_t)entry),
                        neighbours_shift(&w->grid, entry), best, &scale, check_just, lean, shifted);
    }
}

/* Offers the pairs of body i with entries[0 .. count) (slot and image, as a
 * list writes them; count <= SCREEN_MAX) that pass the four- or eight-lane
 * screen (screen.h), with the times it gives, in their order. A pair the
 * scalar scan would have rejected at its later horizon meets after that
 * horizon, past the best so far, and offer_pair refuses it; so the same
 * pair is kept, bit for bit. Without a last partner to hold back
 * (check_just), the screen passes only the row's earliest pairs, the only
 * ones that can be kept. */
SCAN void offer_screened(const carom_world *w, int32_t i, candidate *best, const int32_t *entries, int count,
                         screen_body *screened, const int check_just, const int lean, const int dim)
{
    double time[SCREEN_TIMES];
    screened->scale = predict_rejection_scale(best->reach - screened->t);
    screened->horizon = best->reach;
    screened->limit = best->time;
    const double(*shift4)[4] = w->grid.image_shift4;
    const int nearest = !check_just, eight = w->screen_lanes == 8;
    uint32_t pass = dim == 2 ? (lean ? screen_row_2d(w->hot, shift4, entries, count, screened, time, nearest)
                                     : screen_row_behind_2d(w->hot, shift4, entries, count, screened, time, nearest))
                    : eight  ? (lean ? screen_row8(w->hot, shift4, entries, count, screened, time, nearest)
                                     : screen_row8_behind(w->hot, shift4, entries, count, screened, time, nearest))
                             : (lean ? screen_row(w->hot, shift4, entries, count, screened, time, nearest)
                                     : screen_row_behind(w->hot, shift4, entries, count, screened, time, nearest));
    for (; pass; pass &= pass - 1) {
        int k = lowest_bit(pass);
        int32_t j = neighbours_slot(entries[k]);
        if (time[k] != INFINITY && j != i)
            offer_pair(w, best, time[k], i, j, neighbours_shift(&w->grid, entries[k]), check_just);
    }
}

static inline screen_body screen_body_of(const body_hot *a)
{
    return (screen_body){{a->x[0], a->x[1], a->x[2]}, {a->v[0], a->v[1], a->v[2]}, a->t, a->radius, 0.0, 0.0, 0.0};
}

/* The list scan, the row screened SCREEN_MAX entries at a time. */
SCAN void scan_listed_pairs_screened(const carom_world *w, int32_t i, candidate *best, const int check_just,
                                     const int lean, const int dim)
{
    const int32_t *row = neighbours_row(&w->nb, i);
    screen_body screened = screen_body_of(&w->hot[i]);
    for (int from = 0, n = w->nb.count[i]; from < n; from += SCREEN_MAX)
        offer_screened(w, i, best, row + from, n - from < SCREEN_MAX ? n - from : SCREEN_MAX, &screened, check_just,
                       lean, dim);
}

/* The scan in the variant that fits: lean when i is at the clock, and the
 * screen without z terms in 2D. (Lists always add the entry's shift:
 * choosing a variant without it by i's anchor cell cost more in
 * mispredicted dispatch than the additions it saved.) */
SCAN void consider_listed_pairs(const carom_world *w, int32_t i, candidate *best, const int check_just)
{
    int lean = w->hot[i].t == w->clock;
    if (w->screen_lanes && w->dim == 2) {
        if (lean) scan_listed_pairs_screened(w, i, best, check_just, 1, 2);
        else scan_listed_pairs_screened(w, i, best, check_just, 0, 2);
    } else if (w->screen_lanes && lean) scan_listed_pairs_screened(w, i, best, check_just, 1, 3);
    else if (w->screen_lanes) scan_listed_pairs_screened(w, i, best, check_just, 0, 3);
    else if (lean) scan_listed_pairs(w, i, best, check_just, 1, 1);
    else scan_listed_pairs(w, i, best, check_just, 0, 1);
}

/* Every neighbour in body i's list, with accelerations (driven bodies). */
SCAN void consider_listed_pairs_accelerated(const carom_world *w, int32_t i, candidate *best, const int check_just)
{
    const neighbours *nb = &w->nb;
    const int32_t *row = neighbours_row(nb, i);
    for (int k = 0, n = nb->count[i]; k < n; k++) {
        int32_t j = neighbours_slot(row[k]);
        const double *shift = neighbours_shift(&w->grid, row[k]);
        offer_pair(w, best, pair_time_before(w, i, j, shift, best->reach), i, j, shift, check_just);
    }
}

/* Every body in the cells around i, under gravity. */
SCAN void consider_cell_pairs_under_gravity(const carom_world *w, int32_t i, candidate *best,
                                           const int check_just)
{
    int32_t home = w->grid.cell[i];
    const cells_pattern *pattern = cells_pattern_at(&w->grid, home);
    const int32_t *head = w->grid.head + home, *next = w->grid.next;
    for (int k = 0; k < pattern->count; k++) {
        const double *shift = w->grid.image_shift[pattern->image[k]];
        for (int32_t j = head[pattern->offset[k]]; j >= 0; j = next[j])
            if (j != i)
                offer_pair(w, best, pair_time_before(w, i, j, shift, best->reach), i, j, shift, check_just);
    }
}

/* Every body in the cells around i, without a field: the lean kernel,
 * over the occupied cells only (cells_first_bodies). */
SCAN void scan_cell_pairs(const carom_world *w, int32_t i, const cells_pattern *pattern, candidate *best,
                          const int check_just, const int lean, const int shifted)
{
    const free_body a = free_body_of(&w->hot[i]);
    const int32_t *next = w->grid.next;
    double scale = lean_scale(&a, best, lean);
    int32_t first[27];
    for (uint32_t occupied = cells_first_bodies(&w->grid, w->grid.cell[i], pattern, first); occupied;
         occupied &= occupied - 1) {
        int k = lowest_bit(occupied);
        const double *shift = w->grid.image_shift[pattern->image[k]];
        int32_t j = first[k];
        do offer_free_pair(w, i, &a, j, &w->hot[j], shift, best, &scale, check_just, lean, shifted);
        while ((j = next[j]) >= 0);
    }
}

/* The cell scan with the stencil's bodies written as list entries (slot and
 * image), SCREEN_MAX at a time, each batch screened four or eight at a time. */
SCAN void scan_cell_pairs_screened(const carom_world *w, int32_t i, const cells_pattern *pattern, candidate *best,
                                   const int check_just, const int lean)
{
    screen_body screened = screen_body_of(&w->hot[i]);
    const int32_t *next = w->grid.next;
    int32_t first[27], entries[SCREEN_MAX];
    int n = 0;
    for (uint32_t occupied = cells_first_bodies(&w->grid, w->grid.cell[i], pattern, first); occupied;
         occupied &= occupied - 1) {
        int k = lowest_bit(occupied);
        int32_t image = pattern->image[k], j = first[k];
        do {
            entries[n++] = j << NEIGHBOURS_IMAGE_BITS | image;
            if (n == SCREEN_MAX) {
                offer_screened(w, i, best, entries, n, &screened, check_just, lean, 3);
                n = 0;
            }
        } while ((j = next[j]) >= 0);
    }
    if (n > 0) offer_screened(w, i, best, entries, n, &screened, check_just, lean, 3);
}

/* The scan in the variant that fits: lean when i is at the clock, and
 * without image shifts in a cell whose stencil wraps nowhere (adding a zero
 * shift would change no bit). Screened four or eight at a time in 3D where the
 * processor can and the slots fit a list entry (a plane's 9 cells hold too
 * few bodies for the lanes to pay: 5% more instructions at area fraction
 * 0.3). */
SCAN void consider_cell_pairs(const carom_world *w, int32_t i, candidate *best, const int check_just)
{
    const cells_pattern *pattern = cells_pattern_at(&w->grid, w->grid.cell[i]);
    int lean = w->hot[i].t == w->clock;
    if (w->screen_lanes && w->dim == 3 && w->count <= NEIGHBOURS_MAX_SLOTS) {
        if (lean) scan_cell_pairs_screened(w, i, pattern, best, check_just, 1);
        else scan_cell_pairs_screened(w, i, pattern, best, check_just, 0);
    } else if (lean && !pattern->shifted) {
        scan_cell_pairs(w, i, pattern, best, check_just, 1, 0);
    } else if (lean) {
        scan_cell_pairs(w, i, pattern, best, check_just, 1, 1);
    } else {
        scan_cell_pairs(w, i, pattern, best, check_just, 0, 1);
    }
}

/* A world with polygons: each pair by its kind, disk pairs by the general
 * kernel, pairs with a polygon by conservative advancement (shapes.c), which
 * may ask to be predicted again from where its search stopped. A polygon
 * pair is never held back as last partners (still_touching measures
 * bounding circles): its search needs approaching contact points anyway. */
static void offer_any_pair(const carom_world *w, int32_t i, int32_t j, const double shift[3], candidate *best)
{
    if (!shapes_is_polygon(w, i) && !shapes_is_polygon(w, j)) {
        offer_pair(w, best, pair_time_before(w, i, j, shift, best->reach), i, j, shift, best->just >= 0);
        return;
    }
    int recheck;
    double t = shapes_pair_time(w, i, j, shift, best->reach, &recheck);
    if (recheck) consider(best, t, EVENT_RECHECK, 0, 0);
    else offer_pair(w, best, t, i, j, shift, 0);
}

static void consider_shape_pairs(const carom_world *w, int32_t i, candidate *best)
{
    if (w->nb.on) {
        const int32_t *row = neighbours_row(&w->nb, i);
        for (int k = 0, n = w->nb.count[i]; k < n; k++)
            offer_any_pair(w, i, neighbours_slot(row[k]), neighbours_shift(&w->grid, row[k]), best);
        return;
    }
    int32_t home = w->grid.cell[i];
    const cells_pattern *pattern = cells_pattern_at(&w->grid, home);
    const int32_t *head = w->grid.head + home, *next = w->grid.next;
    for (int k = 0; k < pattern->count; k++) {
        const double *shift = w->grid.image_shift[pattern->image[k]];
        for (int32_t j = head[pattern->offset[k]]; j >= 0; j = next[j])
            if (j != i) offer_any_pair(w, i, j, shift, best);
    }
}

static void consider_pairs(const carom_world *w, int32_t i, candidate *best)
{
    if (w->spin.polygons) {
        consider_shape_pairs(w, i, best);
    } else if (best->just >= 0) {
        if (w->nb.on && w->has_gravity) consider_listed_pairs_accelerated(w, i, best, 1);
        else if (w->nb.on) consider_listed_pairs(w, i, best, 1);
        else if (w->has_gravity) consider_cell_pairs_under_gravity(w, i, best, 1);
        else consider_cell_pairs(w, i, best, 1);
    } else if (w->nb.on) {
        if (w->has_gravity) consider_listed_pairs_accelerated(w, i, best, 0);
        else consider_listed_pairs(w, i, best, 0);
    } else if (w->has_gravity) {
        consider_cell_pairs_under_gravity(w, i, best, 0);
    } else {
        consider_cell_pairs(w, i, best, 0);
    }
}

/* The walls; on a floor where the body's Zeno series is finishing, its end
 * (the hops left are negligible, see settle.c); none on a floor it rests on. */
static void consider_shape_walls(const carom_world *w, int32_t i, candidate *best);
static inline void consider_walls(const carom_world *w, int32_t i, candidate *best, int with_rest)
{
    const body_hot *b = &w->hot[i];
    for (int a = 0; a < w->dim; a++) {
        if (w->periodic[a]) continue;
        const double *g = motion_gravity(w, i);
        int state = w->rest.state ? w->rest.state[w->id_of[i]] >> a : 0;
        double reach = w->half[a] - b->radius;
        int floor = w->rest.floor_side[a] > 0 ? 2 * a + 1 : 2 * a;
        int settled = w->rest.floor_side[a] && (state & (SETTLE_RESTING | SETTLE_FINISHING));
        if (with_rest && settled && (state & SETTLE_FINISHING))
            consider(best, w->rest.zeno[6 * w->id_of[i] + a], EVENT_REST, floor, 0);
        if (!(settled && floor == 2 * a + 1))
            consider(best, b->t + predict_crossing(b->x[a] - reach, b->v[a], g[a]), EVENT_WALL, 2 * a + 1, 0);
        if (!(settled && floor == 2 * a))
            consider(best, b->t + predict_crossing(-reach - b->x[a], -b->v[a], -g[a]), EVENT_WALL, 2 * a, 0);
    }
}

/* The container, instead of the walls: searched only up to the earliest event
 * found so far (the cell or shell exit), which bounds the work. A caller's
 * function caught breaking its Lipschitz bound marks the world, and the run
 * stops after this event with a message. Conservative advancement that
 * spent its budget (a body gliding along a function's wall) returns where it
 * got to, with no contact before: the body is predicted again from there. */
static void consider_container(const carom_world *w, int32_t i, candidate *best, int *broken)
{
    if (shapes_is_polygon(w, i)) {
        consider_shape_walls(w, i, best);
        return;
    }
    static const double no_field[3] = {0.0, 0.0, 0.0};
    const body_hot *b = &w->hot[i];
    const double *g = w->has_gravity ? motion_gravity(w, i) : no_field;
    double s;
    int found = boundary_contact_time(w->container, b->x, b->v, g, b->radius, best->reach - b->t, &s);
    if (found == BOUNDARY_LIPSCHITZ_BROKEN) *broken = 1;
    consider(best, b->t + s, found == BOUNDARY_RECHECK ? EVENT_RECHECK : EVENT_WALL, CAROM_WALL_CONTAINER, 0);
}

/* Leaving the cell, or with neighbour lists, leaving the shell. */
static void consider_cell_exit(const carom_world *w, int32_t i, candidate *best)
{
    const body_hot *b = &w->hot[i];
    if (w->nb.on) {
        double s = w->has_gravity ? neighbours_exit_time_accelerated(w, i) : neighbours_exit_time(w, i);
        consider(best, b->t + s, EVENT_SHELL, 0, 0);
        return;
    }
    int face;
    double s = w->has_gravity ? cells_exit_time(&w->grid, w->grid.cell[i], b->x, b->v, motion_gravity(w, i), &face)
                              : cells_exit_time_free(&w->grid, w->grid.cell[i], b->x, b->v, &face);
    consider(best, b->t + s, EVENT_CELL, face, 0);
}

/* A polygon against the walls or the container (shapes.c), searched no
 * further than its cell or shell exit, which comes before it in
 * schedule_body's order only when it is earlier: a search with an infinite
 * horizon would spend its step budget on a body spinning in open space. */
static void consider_shape_walls(const carom_world *w, int32_t i, candidate *best)
{
    candidate exit = *best;
    consider_cell_exit(w, i, &exit);
    int wall, recheck;
    double t = shapes_wall_time(w, i, exit.reach, &wall, &recheck);
    if (wall >= 0) consider(best, t, recheck ? EVENT_RECHECK : EVENT_WALL, wall, 0);
}

double schedule_own_time(const carom_world *w, int32_t i, int which, body_event *event)
{
    candidate best = {INFINITY, INFINITY, 0.0, {-1, 0, EVENT_NONE, 0}, -1};
    int broken = 0; /* in the order schedule_body takes them, so that ties go the same way */
    if (w->container) {
        if (which & OWN_CELL) consider_cell_exit(w, i, &best);
        consider_container(w, i, &best, &broken);
    } else {
        /* as in schedule_body: here, so that consider_walls stays inlined */
        if (shapes_is_polygon(w, i)) consider_shape_walls(w, i, &best);
        else consider_walls(w, i, &best, which & OWN_REST);
        if (which & OWN_CELL) consider_cell_exit(w, i, &best);
    }
    if (event) *event = best.event;
    return best.time;
}

/* The next sensor crossing: first, so that it wins a tie with a wall or a
 * cell exit (a pair still wins one with it). */
static void consider_sensors(const carom_world *w, int32_t i, candidate *best)
{
    int32_t sensor;
    int upwards;
    double t = sensor_next_crossing(w, i, &sensor, &upwards);
    consider(best, t, EVENT_SENSOR, sensor, (uint32_t)upwards);
}

double schedule_prediction(carom_world *w, int32_t i)
{
    candidate best = {INFINITY, INFINITY, fabs(w->clock) * 0x1p-49, {-1, 0, EVENT_NONE, 0},
                      w->rest.last_partner ? settle_just_partner(w, i) : -1};
    w->meas.predictions++;
    if (w->steering.count) consider(&best, steering_event_time(w, i), EVENT_FILTER, 0, 0); /* wins ties */
    if (w->sense.count) consider_sensors(w, i, &best);
    /* Walls and the cell exit first: their time is the horizon beyond which no
     * pair needs its square root. A pair still wins a tie with them. */
    if (w->container) {
        consider_cell_exit(w, i, &best);
        consider_container(w, i, &best, &w->container_broken);
    } else {
        if (shapes_is_polygon(w, i)) consider_shape_walls(w, i, &best);
        else consider_walls(w, i, &best, 1);
        consider_cell_exit(w, i, &best);
    }
    consider_pairs(w, i, &best);
    /* The partner's stamp, read for the one pair kept rather than for every
     * better pair found on the way (each a record far away at 10^6 bodies).
     * Whether the event is a pair is a coin flip: for any other kind body
     * 0's stamp is read and not kept (a world being predicted has bodies). */
    uint32_t pair = best.event.kind == EVENT_PAIR, keep = 0u - pair; /* all ones for a pair */
    uint32_t stamp = world_stamp(w, (int32_t)((uint32_t)best.event.partner & keep));
    best.event.partner_counter = (stamp & keep) | (best.event.partner_counter & ~keep);
    event_set(world_event(w, i), best.event);
    /* Never schedule before the clock, so time never goes back. */
    return best.time < w->clock ? w->clock : best.time;
}

void schedule_body(carom_world *w, int32_t i) { calendar_set(&w->cal, i, schedule_prediction(w, i)); }

int schedule_regrid(carom_world *w, double min_width, int64_t max_cells)
{
    if (cells_reserve(&w->grid, w->capacity) != 0) return -1;
    if (cells_configure(&w->grid, w->dim, w->side, w->periodic, min_width, max_cells) != 0)
        return -1;
    for (int32_t i = 0; i < w->count; i++) {
        double x[3], v[3];
        motion_state_at(&w->hot[i], motion_gravity(w, i), w->has_gravity, w->clock, x, v);
        cells_insert(&w->grid, i, cells_locate(&w->grid, x));
    }
    return 0;
}

carom_status schedule_rebuild(carom_world *w)
{
    for (int32_t id = 0; id < w->count; id++) { /* in id order: the same sums whatever the layout */
        int32_t i = w->slot_of[id];
        if (w->steering.count) steering_note_flight(w, i, w->clock);
        measure_flight(&w->meas, &w->hot[i], world_mass(w, i), motion_gravity(w, i), w->has_gravity, w->clock);
        motion_advance(&w->hot[i], motion_gravity(w, i), w->has_gravity, w->clock);
    }
    settle_detect(w);
    settle_resolve_scales(w);
    int64_t max_cells = 4 * (int64_t)w->count;
    double width = neighbours_choose(w);
    int grid_built = cells_keep_cells(&w->grid, 1) == 0 && schedule_regrid(w, width, max_cells) == 0 &&
                     calendar_reserve(&w->cal, w->capacity) == 0;
    if (grid_built) order_at_rebuild(w); /* the lists are then built in the new order */
    if (!grid_built || (w->nb.on && neighbours_build(w) != 0))
        return world_fail(w, CAROM_OUT_OF_MEMORY, "out of memory building the cell grid for %d bodies",
                          (int)w->count);
    /* With lists the grid files anchors, and a body's cell is its anchor's
     * (world_cell): the records of the cells go once the lists are built (a
     * failed build keeps them, so the grid stays whole for what follows). */
    if (w->nb.on) (void)cells_keep_cells(&w->grid, 0);
    calendar_clear(&w->cal);
    for (int32_t i = 0; i < w->count; i++) schedule_body(w, i);
    w->grid_bodies = w->count;
    w->needs_rebuild = 0;
    return CAROM_OK;
}
