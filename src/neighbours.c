/* neighbours.c — neighbour lists with a shell for event-driven dynamics.
 *
 * Each body has an anchor (its position when its list was made) and must stay
 * within a distance `shell` of it. Two bodies are neighbours when their
 * anchors are closer than r_i + r_j + 2 shell: while both stay in their
 * shells, no other pair can touch. A prediction then reads only the
 * neighbours (about 8 bodies in a dense fluid) instead of the 3^d cells
 * around the body (about 25), and leaving the shell replaces crossing a cell
 * face as the body's bookkeeping event. The lists are symmetric, so a renewed
 * body is seen by its new neighbours, and their predictions stay valid: a
 * collision with the renewed body is found from its side (single-event
 * scheduling, as for a cell crossing). This is the neighbour-cell idea of
 * Donev, Torquato & Stillinger, J. Comput. Phys. 202, 737 (2005), with
 * spheres for cells, as in Smallenburg, Eur. Phys. J. E 45, 22 (2022).
 *
 * Anchors are stored as floats (12 bytes a body, not 24) and used exactly as
 * stored: the body starts a few 1e-7 box lengths from its anchor, which the
 * shell (checked to be far larger) absorbs. Anchors are filed in the cell
 * grid, which is at least one largest diameter plus two shells wide, so
 * every neighbour is in the 3^d cells around the anchor.
 */
#include "neighbours.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "motion.h"
#include "world.h"

enum { FIRST_WIDTH = 16, WIDTH_STEP = 4 };

/* The shell as a fraction of the largest diameter, and the packing fraction
 * from which lists beat cells, in 3D (measured with bench/carom_bench and
 * callgrind; see bench/README.md; in 2D the 9-cell stencil is as fast). Lists
 * cost about 90 to 130 bytes a body more than cells; above lists_up_to bodies,
 * where memory is what limits, the automatic choice is cells (about 155 bytes
 * a body). A size-asymmetric mixture (the largest radius at least
 * lists_from_spread times the mean) gets lists at any packing: cells as wide
 * as the largest diameter hold dozens of small bodies each, and lists ran
 * 10 times faster with 4 spheres of diameter 5 among 5,000 of diameter 1,
 * 19 times with diameter 10 (bench/README.md, "Size-asymmetric mixtures").
 * Every row is as wide as the longest list, a large body's, so a mixture's
 * lists cost about 2 KB a body: they are chosen up to mixture_lists_up_to
 * bodies only. */
static const double shell_fraction = 0.3;
static const double lists_from_packing = 0.35;
static const double lists_from_spread = 2.0;
static const int32_t mixture_lists_up_to = 1 << 16;
static const int32_t lists_up_to = 1 << 19;
static const double pi = 3.14159265358979323846;
/* Float anchors: the rounding of an anchor must stay this far inside the shell. */
static const double anchor_rounding_share = 1e-4;

static size_t anchor_bytes(int32_t rows) { return memory_bytes((size_t)rows, 3 * sizeof(float)); }
static size_t count_bytes(int32_t rows) { return memory_bytes((size_t)rows, sizeof(uint16_t)); }
/* rows rows of width entries, and the spare row */
static size_t entry_bytes(int32_t rows, int32_t width)
{
    return memory_bytes((size_t)rows + 1, memory_bytes((size_t)width, sizeof(int32_t)));
}

void neighbours_free(neighbours *nb)
{
    const carom_allocator *mem = nb->mem;
    if (nb->rows > 0) {
        memory_free(mem, nb->anchor, anchor_bytes(nb->rows));
        memory_free(mem, nb->count, count_bytes(nb->rows));
        memory_free(mem, nb->entry, entry_bytes(nb->rows, nb->width));
    }
    *nb = (neighbours){0};
    nb->mem = mem;
}

/* The largest radius over the mean radius (1 for equal bodies). */
static double radius_spread(const carom_world *w)
{
    double sum = 0.0;
    for (int32_t i = 0; i < w->count; i++) sum += w->hot[i].radius;
    return sum > 0.0 ? w->max_radius * (double)w->count / sum : 1.0;
}

static double packing_fraction(const carom_world *w)
{
    double occupied = 0.0, volume = 1.0;
    for (int32_t i = 0; i < w->count; i++) {
        double r = w->hot[i].radius;
        occupied += w->dim == 3 ? 4.0 / 3.0 * pi * r * r * r : pi * r * r;
    }
    for (int a = 0; a < w->dim; a++) volume *= w->side[a];
    return occupied / volume;
}

/* The shell lists would use, or 0 if they cannot be used here. */
static double usable_shell(const carom_world *w, double shell)
{
    double diameter = 2.0 * w->max_radius, largest_half = 0.0;
    for (int a = 0; a < w->dim; a++) {
        if (w->periodic[a] && w->side[a] / 3.0 < diameter + 2.0 * shell)
            shell = 0.5 * (w->side[a] / 3.0 - diameter);
        if (w->half[a] > largest_half) largest_half = w->half[a];
    }
    /* a float rounds by at most 2^-24 of its size */
    if (!(shell > 0.0) || largest_half * 0x1p-24 > anchor_rounding_share * shell) return 0.0;
    if (w->capacity >= NEIGHBOURS_MAX_SLOTS) return 0.0;
    return shell;
}

double neighbours_choose(carom_world *w)
{
    neighbours *nb = &w->nb;
    double asked = w->def.neighbour_shell;
    nb->on = 0;
    nb->shell = 0.0;
    int gravity = w->gravity[0] != 0.0 || w->gravity[1] != 0.0 || w->gravity[2] != 0.0;
    if (!gravity && asked >= 0.0 && w->count > 0) {
        double shell = asked > 0.0 ? asked : shell_fraction * 2.0 * w->max_radius;
        int automatic = w->dim == 3 && w->count <= lists_up_to &&
                        (packing_fraction(w) >= lists_from_packing ||
                         (w->count <= mixture_lists_up_to && radius_spread(w) >= lists_from_spread));
        if (asked > 0.0 || automatic) nb->shell = usable_shell(w, shell);
        nb->on = nb->shell > 0.0;
    }
    return 2.0 * w->max_radius + 2.0 * nb->shell;
}

/* Rows of at least width entries for w->capacity bodies; rows (the spare
 * one included) keep their entries. All three arrays grow, or none. */
static int reserve_rows(neighbours *nb, int32_t rows, int32_t width)
{
    if (rows <= nb->rows && width <= nb->width) return 0;
    if (rows < nb->rows) rows = nb->rows;
    if (rows < 1) rows = 1;
    if (width < nb->width) width = nb->width;
    memory_array arrays[3] = {
        {(void **)&nb->anchor, nb->rows > 0 ? anchor_bytes(nb->rows) : 0, anchor_bytes(rows), 0},
        {(void **)&nb->count, nb->rows > 0 ? count_bytes(nb->rows) : 0, count_bytes(rows), 0},
        {(void **)&nb->entry, nb->rows > 0 ? entry_bytes(nb->rows, nb->width) : 0, entry_bytes(rows, width), 0}};
    if (memory_grow_together(nb->mem, arrays, 3) != 0) return -1;
    int32_t *entry = nb->entry;
    /* widen in place, the spare row (index nb->rows) first: a row never moves onto one not yet moved */
    for (int32_t r = nb->rows; nb->rows > 0 && r >= 0 && width > nb->width; r--)
        memmove(entry + (size_t)r * width, entry + (size_t)r * nb->width, (size_t)nb->width * sizeof *entry);
    if (nb->rows > 0 && rows > nb->rows) /* the spare row moves to the end */
        memmove(entry + (size_t)rows * width, entry + (size_t)nb->rows * width, (size_t)width * sizeof *entry);
    for (int32_t r = nb->rows; r < rows; r++) nb->count[r] = 0;
    nb->rows = rows;
    nb->width = width;
    return 0;
}

/* Appends an entry to row i, widening every row if it is full. */
static int push(neighbours *nb, int32_t i, int32_t slot, int code)
{
    if (nb->count[i] == nb->width) {
        if (nb->width >= UINT16_MAX - WIDTH_STEP || reserve_rows(nb, nb->rows, nb->width + WIDTH_STEP) != 0)
            return -1;
    }
    nb->entry[(int64_t)i * nb->width + nb->count[i]++] = slot << NEIGHBOURS_IMAGE_BITS | code;
    return 0;
}

/* Removes body i from row j (it must be there). */
static void forget(neighbours *nb, int32_t j, int32_t i)
{
    int32_t *row = nb->entry + (int64_t)j * nb->width;
    int n = nb->count[j];
    for (int k = 0; k < n; k++) {
        if (neighbours_slot(row[k]) != i) continue;
        row[k] = row[n - 1];
        nb->count[j]--;
        return;
    }
    assert(!"a neighbour list is not symmetric");
}

static void anchor_of(const neighbours *nb, int32_t i, double a[3])
{
    for (int k = 0; k < 3; k++) a[k] = nb->anchor[3 * i + k];
}

/* Whether squared distance d2 is within reach of radii plus two shells; the
 * margin keeps pairs that touch with both bodies on their shells. */
static inline int reaches(double d2, double radii, double shell)
{
    double reach = radii + 2.0 * shell;
    return d2 < reach * reach * (1.0 + 1e-9);
}

/* The squared distance from anchor a_i to anchor j seen through shift. */
static inline double anchor_gap2(const neighbours *nb, const double a_i[3], int32_t j, const double shift[3])
{
    const float *a_j = nb->anchor + 3 * j;
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double d = ((double)a_j[k] - a_i[k]) + shift[k];
        d2 += d * d;
    }
    return d2;
}

/* For anchor a in cell home: how far a lies from the lower (gap[k][0]) and
 * upper (gap[k][2]) faces along each axis k, less a slack far above rounding
 * (anchors are filed by cells_locate), and never below 0; gap[k][1] = 0. */
static void face_gaps(const cells *grid, int32_t home, const double a[3], double gap[3][3])
{
    double lo[3], hi[3];
    cells_bounds(grid, home, lo, hi);
    for (int k = 0; k < 3; k++) {
        double slack = 1e-9 * grid->side[k];
        gap[k][0] = fmax(a[k] - lo[k] - slack, 0.0);
        gap[k][1] = 0.0;
        gap[k][2] = fmax(hi[k] - a[k] - slack, 0.0);
    }
}

/* A lower bound on the squared distance from the anchor to any point of the
 * cell that lies dir from its own: no anchor filed there is nearer. */
static double cell_gap2(double gap[3][3], const int8_t dir[3])
{
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double g = gap[k][dir[k] + 1];
        d2 += g * g;
    }
    return d2;
}

/* Links body i with every body in a higher slot in the cells around its
 * anchor that is within reach (linking everyone, each pair once; a renewal
 * searches all slots, collect_row below). The largest radius screens first: whole
 * cells out of its reach are skipped (about a third of the 27), and j's hot
 * record (a cache line, far away at 10^6 bodies) is read only for the few
 * bodies that may be listed. */
static int link_body(carom_world *w, int32_t i)
{
    int32_t home = w->grid.cell[i];
    const cells_pattern *pattern = cells_pattern_at(&w->grid, home);
    double a_i[3], gap[3][3], r_i = w->hot[i].radius, shell = w->nb.shell;
    anchor_of(&w->nb, i, a_i);
    face_gaps(&w->grid, home, a_i, gap);
    const int32_t *head = w->grid.head + home, *next = w->grid.next;
    for (int k = 0; k < pattern->count; k++) {
        if (!reaches(cell_gap2(gap, pattern->dir[k]), r_i + w->max_radius, shell)) continue;
        int code = pattern->image[k]; /* the grid's image codes are the lists' */
        const double *shift = w->grid.image_shift[code];
        for (int32_t j = head[pattern->offset[k]]; j >= 0; j = next[j]) {
            if (j <= i) continue;
            double d2 = anchor_gap2(&w->nb, a_i, j, shift);
            if (!reaches(d2, r_i + w->max_radius, shell) || !reaches(d2, r_i + w->hot[j].radius, shell))
                continue;
            if (push(&w->nb, i, j, code) != 0 || push(&w->nb, j, i, 26 - code) != 0) return -1;
        }
    }
    return 0;
}

/* Wraps body i's position into the box on periodic axes and anchors it there. */
static void set_anchor(carom_world *w, int32_t i)
{
    body_hot *b = &w->hot[i];
    for (int a = 0; a < 3; a++) {
        if (w->periodic[a]) {
            if (b->x[a] >= w->half[a]) b->x[a] -= w->side[a];
            else if (b->x[a] < -w->half[a]) b->x[a] += w->side[a];
        }
        w->nb.anchor[3 * i + a] = (float)b->x[a];
    }
}

static void file_by_anchor(carom_world *w, int32_t i)
{
    double a[3];
    anchor_of(&w->nb, i, a);
    cells_remove(&w->grid, i);
    cells_insert(&w->grid, i, cells_locate(&w->grid, a));
}

int neighbours_link_all(carom_world *w)
{
    neighbours *nb = &w->nb;
    nb->epoch++;
    for (int32_t i = 0; i < w->count; i++) nb->count[i] = 0;
    for (int32_t i = 0; i < w->count; i++)
        if (link_body(w, i) != 0) return -1;
    return 0;
}

int neighbours_reserve(neighbours *nb, int32_t bodies)
{
    return reserve_rows(nb, bodies, nb->width > 0 ? nb->width : FIRST_WIDTH);
}

int neighbours_build(carom_world *w)
{
    neighbours *nb = &w->nb;
    if (neighbours_reserve(nb, w->capacity) != 0) return -1;
    for (int32_t i = 0; i < w->count; i++) {
        set_anchor(w, i);
        file_by_anchor(w, i);
    }
    return neighbours_link_all(w);
}

/* Where set_anchor will put body i's anchor once it is at time t. */
static void anchor_at(const carom_world *w, int32_t i, double t, double a[3])
{
    double x[3], v[3];
    motion_state_at(&w->hot[i], motion_gravity(w, i), w->has_gravity, t, x, v);
    for (int k = 0; k < 3; k++) {
        if (w->periodic[k]) {
            if (x[k] >= w->half[k]) x[k] -= w->side[k];
            else if (x[k] < -w->half[k]) x[k] += w->side[k];
        }
        a[k] = (float)x[k];
    }
}

/* Appends an entry to the spare row, widening every row if it is full. */
static int push_spare(neighbours *nb, int32_t slot, int code)
{
    if (nb->prepared_count == nb->width &&
        (nb->width >= UINT16_MAX - WIDTH_STEP || reserve_rows(nb, nb->rows, nb->width + WIDTH_STEP) != 0))
        return -1;
    nb->entry[(int64_t)nb->rows * nb->width + nb->prepared_count++] = slot << NEIGHBOURS_IMAGE_BITS | code;
    return 0;
}

/* The same search as link_body, from the anchor body i will get, into the
 * spare row; the rows of the bodies it finds must take one entry more.
 * Whether a body in reach of the cell is listed is a coin flip, so the
 * search is written without a branch on it: every candidate is written at
 * the row's end and the end moves on only when it is kept (j's hot record
 * is read only when the largest radius reaches it: its address is selected,
 * not branched on). A row that would outgrow the width is searched again
 * with widening set: one entry at a time, widening every row when the spare
 * one is full. */
#if defined(__GNUC__)
#define SEARCH static inline __attribute__((always_inline))
#else
#define SEARCH static inline
#endif
static int collect_row_widening(carom_world *w, int32_t i, const double a_i[3], int32_t *fullest);
SEARCH int collect_row_in(carom_world *w, int32_t i, const double a_i[3], int32_t *fullest, const int widening)
{
    neighbours *nb = &w->nb;
    int32_t home = cells_locate(&w->grid, a_i);
    const cells_pattern *pattern = cells_pattern_at(&w->grid, home);
    double gap[3][3], r_i = w->hot[i].radius, shell = nb->shell;
    face_gaps(&w->grid, home, a_i, gap);
    const int32_t *head = w->grid.head + home, *next = w->grid.next;
    int32_t *spare = nb->entry + (int64_t)nb->rows * nb->width, last = nb->width - 1, n = 0, most = 0;
    if (!widening && last < 0) return collect_row_widening(w, i, a_i, fullest);
    nb->prepared_count = 0;
    for (int k = 0; k < pattern->count; k++) {
        if (!reaches(cell_gap2(gap, pattern->dir[k]), r_i + w->max_radius, shell)) continue;
        int code = pattern->image[k];
        const double *shift = w->grid.image_shift[code];
        for (int32_t j = head[pattern->offset[k]]; j >= 0; j = next[j]) {
            double d2 = anchor_gap2(nb, a_i, j, shift);
            int near = (j != i) & reaches(d2, r_i + w->max_radius, shell);
            int keep = near & reaches(d2, r_i + w->hot[near ? j : i].radius, shell);
            if (widening) {
                if (keep && push_spare(nb, j, code) != 0) return -1;
            } else {
                spare[n < last ? n : last] = j << NEIGHBOURS_IMAGE_BITS | code;
                n += keep;
            }
            int32_t count_j = nb->count[j] & -keep;
            most = count_j > most ? count_j : most;
        }
    }
    if (!widening && n > last) return collect_row_widening(w, i, a_i, fullest);
    if (!widening) nb->prepared_count = n;
    *fullest = most;
    return 0;
}

static int collect_row_widening(carom_world *w, int32_t i, const double a_i[3], int32_t *fullest)
{
    return collect_row_in(w, i, a_i, fullest, 1);
}

static int collect_row(carom_world *w, int32_t i, const double a_i[3], int32_t *fullest)
{
    return collect_row_in(w, i, a_i, fullest, 0);
}

/* The cells around the new anchor are searched in the order link_body
 * would search them after i is filed there (i heads its new cell's list,
 * and skips itself), so the row comes out as link_body would write it. */
int neighbours_prepare_renew(carom_world *w, int32_t i, double t)
{
    neighbours *nb = &w->nb;
    double a_i[3];
    int32_t fullest = 0;
    anchor_at(w, i, t, a_i);
    nb->prepared = 0;
    nb->prepared_count = 0;
    if (collect_row(w, i, a_i, &fullest) != 0) return -1;
    /* each new neighbour gains i (an old one loses it first: one to spare) */
    if (fullest + 1 > nb->width) {
        int32_t width = nb->width + WIDTH_STEP;
        while (width < fullest + 1) width += WIDTH_STEP;
        if (width >= UINT16_MAX || reserve_rows(nb, nb->rows, width) != 0) return -1;
    }
    nb->prepared = i + 1;
    nb->prepared_t = t;
    nb->prepared_epoch = nb->epoch;
    return 0;
}

int neighbours_renew(carom_world *w, int32_t i)
{
    neighbours *nb = &w->nb;
    int ready = nb->prepared == i + 1 && nb->prepared_t == w->hot[i].t && nb->prepared_epoch == nb->epoch;
    if (!ready && neighbours_prepare_renew(w, i, w->hot[i].t) != 0) return -1;
    const int32_t *row = neighbours_row(nb, i);
    for (int k = 0; k < nb->count[i]; k++) forget(nb, neighbours_slot(row[k]), i);
    set_anchor(w, i);
    file_by_anchor(w, i);
    int32_t *new_row = nb->entry + (int64_t)i * nb->width;
    memcpy(new_row, nb->entry + (int64_t)nb->rows * nb->width, (size_t)nb->prepared_count * sizeof *new_row);
    nb->count[i] = (uint16_t)nb->prepared_count;
    for (int k = 0; k < nb->count[i]; k++) {
        int32_t j = neighbours_slot(new_row[k]);
        int code = new_row[k] & ((1 << NEIGHBOURS_IMAGE_BITS) - 1);
        assert(nb->count[j] < nb->width);
        nb->entry[(int64_t)j * nb->width + nb->count[j]++] = i << NEIGHBOURS_IMAGE_BITS | (26 - code);
    }
    nb->prepared = 0;
    nb->epoch++;
    return 0;
}

/* A driven body's exit under its acceleration g, from below: it stays within
 * the shell while |d| + |v| s + |g| s^2 / 2 < shell, so the positive root of
 * that quadratic is no later than the true exit. Leaving early only renews
 * its list early, which changes no physics. */
static double accelerated_exit_time(const body_hot *b, const double d[3], const double g[3], double shell)
{
    double room = shell - sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(room > 0.0)) return 0.0;
    double speed = sqrt(b->v[0] * b->v[0] + b->v[1] * b->v[1] + b->v[2] * b->v[2]);
    double push = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    if (speed == 0.0 && push == 0.0) return INFINITY;
    return 2.0 * room / (speed + sqrt(speed * speed + 2.0 * push * room));
}

double neighbours_exit_time_accelerated(const carom_world *w, int32_t i)
{
    const double *g = motion_gravity(w, i);
    if (g[0] == 0.0 && g[1] == 0.0 && g[2] == 0.0) return neighbours_exit_time(w, i);
    const body_hot *b = &w->hot[i];
    double anchor[3], d[3];
    anchor_of(&w->nb, i, anchor);
    for (int k = 0; k < 3; k++) d[k] = b->x[k] - anchor[k];
    return accelerated_exit_time(b, d, g, w->nb.shell);
}

double neighbours_exit_time(const carom_world *w, int32_t i)
{
    const body_hot *b = &w->hot[i];
    double anchor[3], d[3];
    anchor_of(&w->nb, i, anchor);
    for (int k = 0; k < 3; k++) d[k] = b->x[k] - anchor[k];
    double a = b->v[0] * b->v[0] + b->v[1] * b->v[1] + b->v[2] * b->v[2];
    if (a == 0.0) return INFINITY;
    double half_b = d[0] * b->v[0] + d[1] * b->v[1] + d[2] * b->v[2];
    double c = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - w->nb.shell * w->nb.shell;
    if (c >= 0.0) return half_b >= 0.0 ? 0.0 : -2.0 * half_b / a; /* on or past the shell */
    double root = sqrt(half_b * half_b - a * c);
    /* the larger root of a s^2 + 2 half_b s + c = 0, without cancellation */
    return half_b >= 0.0 ? -c / (half_b + root) : (root - half_b) / a;
}

void neighbours_save(const neighbours *nb, int32_t src, neighbours_record *r)
{
    memcpy(r->anchor, nb->anchor + 3 * src, sizeof r->anchor);
    r->count = nb->count[src];
    memcpy(r->row, neighbours_row(nb, src), (size_t)r->count * sizeof *r->row);
}

void neighbours_load(neighbours *nb, int32_t dst, const neighbours_record *r)
{
    memcpy(nb->anchor + 3 * dst, r->anchor, sizeof r->anchor);
    nb->count[dst] = r->count;
    memcpy(nb->entry + (int64_t)dst * nb->width, r->row, (size_t)r->count * sizeof *r->row);
}

void neighbours_copy(neighbours *nb, int32_t dst, int32_t src)
{
    memcpy(nb->anchor + 3 * dst, nb->anchor + 3 * src, 3 * sizeof *nb->anchor);
    nb->count[dst] = nb->count[src];
    memcpy(nb->entry + (int64_t)dst * nb->width, neighbours_row(nb, src),
           (size_t)nb->count[src] * sizeof *nb->entry);
}

void neighbours_relabel(neighbours *nb, int32_t count, const int32_t *to)
{
    nb->epoch++;
    int32_t image_mask = (1 << NEIGHBOURS_IMAGE_BITS) - 1;
    for (int32_t s = 0; s < count; s++) {
        int32_t *row = nb->entry + (int64_t)s * nb->width;
        for (int k = 0; k < nb->count[s]; k++)
            row[k] = to[neighbours_slot(row[k])] << NEIGHBOURS_IMAGE_BITS | (row[k] & image_mask);
    }
}
