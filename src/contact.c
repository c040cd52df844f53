/* contact.c — finding overlapping pairs at an instant, as frame-based code
 * does after each step (seed 002, sec. 2). With all_pairs every pair is
 * tested, seed 002's n^2/2 per pass; otherwise only pairs in neighbouring
 * cells of the exact engine's cell grid (cells.h: cells at least one largest
 * diameter wide, so overlapping bodies are always neighbours). Pairs are
 * collected, sorted by (i, j) and handed out once each, so the grid and the
 * all-pairs search give the same pairs in the same order, hence the same
 * bits. Overlap is decided by the nearest periodic image, which is the only
 * one that can overlap since periodic sides are at least three diameters.
 */
#include "contact.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

int contact_configure(carom_frame *f)
{
    if (f->def.all_pairs) return 0;
    int64_t max_cells = 4 * (int64_t)f->count + 64;
    if (cells_configure(&f->grid, f->dim, f->side, f->periodic, 2.0 * f->max_radius, max_cells) != 0)
        return -1;
    return cells_reserve(&f->grid, f->count > 0 ? f->count : 1);
}

void contact_rebin(carom_frame *f, int32_t i)
{
    if (f->def.all_pairs) return;
    cells_remove(&f->grid, i);
    cells_insert(&f->grid, i, cells_locate(&f->grid, &f->end[3 * i]));
}

void contact_bin(carom_frame *f)
{
    for (int32_t i = 0; i < f->count; i++) contact_rebin(f, i);
}

/* A stepped body's state at x (frame steppers have no rotation: identity, no spin). */
static void stepped_state(const carom_frame *f, int32_t i, const double x[3], double time, carom_body_state *s)
{
    double at[3], v[3];
    frame_state_at(f, i, time, at, v);
    memset(s, 0, sizeof *s);
    s->position = (carom_vec){x[0], x[1], x[2]};
    s->velocity = (carom_vec){v[0], v[1], v[2]};
    s->radius = f->radius[i];
    s->mass = f->mass[i];
    s->collisions = f->collisions[i];
    s->orientation.w = 1.0;
    s->inertia = (f->dim == 2 ? 0.5 : 0.4) * s->mass * s->radius * s->radius;
}

int contact_overlap(carom_frame *f, int32_t i, int32_t j, const double xi[3], const double xj[3],
                    double time)
{
    double d2 = 0.0, sigma = f->radius[i] + f->radius[j];
    for (int a = 0; a < 3; a++) d2 += (xj[a] - xi[a]) * (xj[a] - xi[a]);
    if (!(d2 < sigma * sigma)) return 0;
    if (!f->def.overlap) return 1;
    carom_body_state a, b;
    stepped_state(f, i, xi, time, &a);
    stepped_state(f, j, xj, time, &b);
    return f->def.overlap(f->def.overlap_user, &a, &b) != 0;
}

static int push_pair(carom_frame *f, int32_t i, int32_t j)
{
    if (f->pair_count == f->pair_capacity) {
        if (f->pair_capacity > INT32_MAX / 2) return -1;
        int32_t capacity = f->pair_capacity ? 2 * f->pair_capacity : 64;
        frame_pair *grown = memory_grow(&f->world.allocator, f->pairs, (size_t)f->pair_capacity * sizeof *grown,
                                        memory_bytes((size_t)capacity, sizeof *grown));
        if (!grown) return -1;
        f->pairs = grown;
        f->pair_capacity = capacity;
    }
    f->pairs[f->pair_count++] = i < j ? (frame_pair){i, j} : (frame_pair){j, i};
    return 0;
}

/* Tests i against j (j != i) and keeps the pair if they overlap. */
static int test_pair(carom_frame *f, int32_t i, int32_t j, double time)
{
    const double *xi = &f->end[3 * i];
    double dr[3], xj[3];
    f->stats.pair_checks++;
    frame_separation(f, xi, &f->end[3 * j], dr);
    for (int a = 0; a < 3; a++) xj[a] = xi[a] + dr[a];
    if (!contact_overlap(f, i, j, xi, xj, time)) return 0;
    return push_pair(f, i, j);
}

/* Body i against its partners: every body (all_pairs) or its cell
 * neighbours; only partners above i when only_above (each pair once). */
static int scan_body(carom_frame *f, int32_t i, int only_above, double time)
{
    if (f->def.all_pairs) {
        for (int32_t j = only_above ? i + 1 : 0; j < f->count; j++)
            if (j != i && test_pair(f, i, j, time) != 0) return -1;
        return 0;
    }
    cells_neighbour stencil[CELLS_STENCIL_MAX];
    int cells_near = cells_stencil(&f->grid, f->grid.cell[i], stencil);
    for (int c = 0; c < cells_near; c++)
        for (int32_t j = f->grid.head[stencil[c].cell]; j >= 0; j = f->grid.next[j])
            if (j != i && (!only_above || j > i) && test_pair(f, i, j, time) != 0) return -1;
    return 0;
}

static int compare_pairs(const void *a, const void *b)
{
    const frame_pair *p = a, *q = b;
    if (p->i != q->i) return p->i < q->i ? -1 : 1;
    return (p->j > q->j) - (p->j < q->j);
}

int32_t contact_find_pairs(carom_frame *f, const int32_t *bodies, int32_t n, double time)
{
    f->pair_count = 0;
    if (!bodies) {
        for (int32_t i = 0; i < f->count; i++)
            if (scan_body(f, i, 1, time) != 0) return -1;
    } else {
        for (int32_t k = 0; k < n; k++)
            if (scan_body(f, bodies[k], 0, time) != 0) return -1;
    }
    if (f->pair_count > 1) qsort(f->pairs, (size_t)f->pair_count, sizeof *f->pairs, compare_pairs);
    int32_t kept = 0;
    for (int32_t k = 0; k < f->pair_count; k++)
        if (kept == 0 || compare_pairs(&f->pairs[kept - 1], &f->pairs[k]) != 0) f->pairs[kept++] = f->pairs[k];
    f->pair_count = kept;
    return kept;
}
