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
 * every neighbour is in the 3^d cells around the anchor (in a mixture of
 * far-apart sizes, one largest diameter of the bodies that are not large;
 * see below).
 */
#include "neighbours.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "choose.h"
#include "memory.h"
#include "motion.h"
#include "prefetch.h"
#include "world.h"

enum { FIRST_WIDTH = 16, WIDTH_STEP = 4 };

/* The shell as a fraction of the largest diameter of the bodies that are
 * not large (below), and the packing fraction from which lists beat cells,
 * in 3D (measured with bench/carom_bench and callgrind; see bench/README.md).
 * Lists cost about 70 bytes a body more than cells: 198 against 128 at 10^6
 * bodies and packing 0.45, where they are about 30% faster, so they are
 * chosen at every size.
 *
 * Hard disks gain from lists only when dense (from area fraction 0.50:
 * 0.94 to 1.25 times at 0.52 by size, 1.3 to 1.7 times at 0.70,
 * bench/README.md, "Dense hard disks with lists"), and with shells wider
 * than in 3D: a row holds the disks within 1 + 2 shell diameters, a number
 * that grows as the square of the reach and not its cube, so a wide shell
 * costs little in every scan and saves renewals. The 2D shell keeps the
 * mean row at lists_2d_row disks (automatic_shell_fraction_2d).
 *
 * A size-asymmetric mixture (the largest radius at least lists_from_spread
 * times the mean) gets lists at any packing and any size: cells as wide as
 * the largest diameter hold dozens of small bodies each, and were 30 to 140
 * times slower (bench/README.md, "Size-asymmetric mixtures"). Its large
 * bodies (radius above neighbours_split_radius) are kept out of the world's
 * grid searches, which stay as fine as the small bodies need: they are
 * filed in a coarse grid of their own, a large body searches the fine grid
 * over as many cells as its reach spans, and its row lives in a long row
 * (below), so the width (paid by every body) stays the small bodies'. This
 * is the idea of multi-level
 * grids for polydisperse contact detection (Ogarko & Luding, Comput. Phys.
 * Commun. 183, 931 (2012)) with two levels. */
static const double shell_fraction = 0.3;
/* Denser than this, the automatic shell narrows with the mean free path
 * (automatic_shell_fraction). */
static const double shell_narrows_above = 0.45;
/* Rows: every body has a fixed row of `width` entries, from a cache line,
 * where the prefetching of the event loop can find it from the slot alone.
 * The width is not the longest row's, which grows with N as the tail of
 * the distribution does (20 to 24 entries at 10^6 bodies at packing 0.45,
 * where the mean is 13.7), but the narrowest that leaves at most one body in
 * NEIGHBOURS_SPILL_SHARE with more (16 there): their rows, and the large
 * bodies', move to a pool of long rows, found from the fixed row. */
static const double lists_from_packing = 0.35;
static const double lists_from_packing_2d = 0.50;
/* The 2D shell: a mean of this many disks within reach of a disk's anchor,
 * the measured best from area fraction 0.55 (fluid) to 0.85 (hexagonal
 * crystal, where it keeps the second ring of the lattice out of reach),
 * and at most max_shell_2d diameters. */
static const double lists_2d_row = 10.0;
static const double max_shell_2d = 0.6;
static const double lists_from_spread = 2.0;
static const double pi = 3.14159265358979323846;
/* Float anchors: the rounding of an anchor must stay this far inside the shell. */
static const double anchor_rounding_share = 1e-4;

static size_t anchor_bytes(int32_t rows) { return memory_bytes((size_t)rows, 3 * sizeof(float)); }
static size_t count_bytes(int32_t rows) { return memory_bytes((size_t)rows, sizeof(uint16_t)); }
/* rows rows of width entries */
static size_t entry_bytes(int32_t rows, int32_t width)
{
    return memory_bytes((size_t)rows, memory_bytes((size_t)width, sizeof(int32_t)));
}

void neighbours_free(neighbours *nb)
{
    const carom_allocator *mem = nb->mem;
    if (nb->rows > 0) {
        memory_free(mem, nb->anchor, anchor_bytes(nb->rows));
        memory_free(mem, nb->count, count_bytes(nb->rows));
        memory_free(mem, nb->entry, entry_bytes(nb->rows, nb->width));
    }
    memory_free(mem, nb->spare, (size_t)nb->spare_room * sizeof *nb->spare);
    memory_free(mem, nb->large_slot, (size_t)nb->large_room * sizeof *nb->large_slot);
    memory_free(mem, nb->long_entry, entry_bytes(nb->long_rows, nb->long_width));
    memory_free(mem, nb->large_of, (size_t)nb->large_of_room * sizeof *nb->large_of);
    cells_free(&nb->large);
    *nb = (neighbours){0};
    nb->mem = nb->large.mem = mem;
}

/* The largest radius over the mean radius (1 for equal bodies). */
static double radius_spread(const carom_world *w)
{
    double sum = 0.0;
    for (int32_t i = 0; i < w->count; i++) sum += w->hot[i].radius;
    return sum > 0.0 ? w->max_radius * (double)w->count / sum : 1.0;
}

/* The largest radius at most lists_from_spread times the mean: the bodies
 * above it are large (none, and it is the largest radius, unless the sizes
 * are far apart). */
double neighbours_split_radius(const carom_world *w)
{
    double sum = 0.0, split = 0.0;
    for (int32_t i = 0; i < w->count; i++) sum += w->hot[i].radius;
    double limit = lists_from_spread * sum / (w->count > 0 ? (double)w->count : 1.0);
    for (int32_t i = 0; i < w->count; i++) {
        double r = w->hot[i].radius;
        if (r <= limit && r > split) split = r;
    }
    return w->max_radius > split ? split : w->max_radius;
}

/* Whether every body has radius r (a world of one size, the usual fluid). */
static int radii_all(const carom_world *w, double r)
{
    int all = 1;
    for (int32_t i = 0; i < w->count; i++) all &= w->hot[i].radius == r;
    return all;
}

static double body_volume(const carom_world *w, int32_t i)
{
    double r = w->hot[i].radius;
    return w->dim == 3 ? 4.0 / 3.0 * pi * r * r * r : pi * r * r;
}

static double packing_fraction(const carom_world *w)
{
    double occupied = 0.0, volume = 1.0;
    for (int32_t i = 0; i < w->count; i++) occupied += body_volume(w, i);
    for (int a = 0; a < w->dim; a++) volume *= w->side[a];
    return occupied / volume;
}

/* The packing fraction the bodies up to radius split see: theirs, in the
 * room the larger bodies leave their centres (a large body of radius R
 * keeps a small one's centre out of radius R + r, r the small bodies' mean
 * radius); the whole fraction when none is larger. A 1:10 sphere mixture at
 * 0.70 whose large spheres fill 44% of the solid leaves its small ones
 * packed as a fluid at about 0.66. */
static double small_packing_fraction(const carom_world *w, double split)
{
    double small = 0.0, radii = 0.0, volume = 1.0;
    int32_t small_count = 0;
    for (int32_t i = 0; i < w->count; i++)
        if (w->hot[i].radius <= split) small += body_volume(w, i), radii += w->hot[i].radius, small_count++;
    double r = small_count > 0 ? radii / small_count : 0.0, excluded = 0.0;
    for (int32_t i = 0; i < w->count; i++) {
        double reach = w->hot[i].radius + r;
        if (w->hot[i].radius > split)
            excluded += w->dim == 3 ? 4.0 / 3.0 * pi * reach * reach * reach : pi * reach * reach;
    }
    for (int a = 0; a < w->dim; a++) volume *= w->side[a];
    return volume > excluded ? small / (volume - excluded) : 1.0;
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

/* Enskog's mean free path of hard spheres, lambda = 1 / (sqrt 2 pi n
 * sigma^2 g(sigma)), up to a constant: 1 / (eta g), with Carnahan and
 * Starling's contact value g = (1 - eta / 2) / (1 - eta)^3 (J. Chem. Phys.
 * 51, 635 (1969)). */
static double free_path_share(double eta)
{
    return (1.0 - eta) * (1.0 - eta) * (1.0 - eta) / (eta * (1.0 - 0.5 * eta));
}

/* The automatic shell in diameters. A shell trades the length of every
 * row scanned (it grows with the shell) against renewals (they come once a
 * body has wandered a shell from its anchor, and a body's wandering between
 * collisions is a mean free path). Above packing 0.45, where 0.3 was the
 * best of the shells measured, it narrows as the free path to the power
 * 3/4 (0.17, 0.13 and 0.09 at 0.55, 0.60 and 0.65), the power that gave
 * the fewest instructions a collision in compressed polydisperse fluids
 * there (bench/README.md, "Dense fluids: a narrower shell"). Only square
 * roots, which IEEE 754 rounds exactly on every machine, so the shell has
 * the same bits wherever it is computed. */
static double automatic_shell_fraction(double eta)
{
    if (!(eta > shell_narrows_above)) return shell_fraction;
    double densest = 0.74; /* about close packing, pi / (3 sqrt 2) */
    double ratio = free_path_share(eta < densest ? eta : densest) / free_path_share(shell_narrows_above);
    return shell_fraction * sqrt(ratio) * sqrt(sqrt(ratio)); /* ratio^(3/4) */
}

/* The automatic 2D shell in diameters at area fraction phi. Within 1 + 2
 * shell diameters of a disk lie 4 phi (1 + 2 shell)^2 disks on average
 * (itself among them); the shell makes that lists_2d_row: (sqrt(lists_2d_row
 * / (4 phi)) - 1) / 2, 0.60 at 0.52, 0.45 at 0.70, 0.36 at 0.85. A square
 * root, which IEEE 754 rounds exactly, as in 3D. */
static double automatic_shell_fraction_2d(double phi)
{
    double shell = 0.5 * (sqrt(lists_2d_row / (4.0 * phi)) - 1.0);
    return phi > 0.0 && shell < max_shell_2d ? shell : max_shell_2d;
}

/* Whether lists are the automatic choice: dense worlds, or mixtures of far
 * apart sizes. */
static int lists_pay(const carom_world *w)
{
    if (radius_spread(w) >= lists_from_spread) return 1;
    return packing_fraction(w) >= (w->dim == 3 ? lists_from_packing : lists_from_packing_2d);
}

double neighbours_choose(carom_world *w)
{
    neighbours *nb = &w->nb;
    double asked = w->def.neighbour_shell;
    nb->on = 0;
    nb->shell = 0.0;
    int gravity = w->gravity[0] != 0.0 || w->gravity[1] != 0.0 || w->gravity[2] != 0.0;
    nb->split = neighbours_split_radius(w);
    nb->uniform = radii_all(w, nb->split);
    if (!gravity && asked >= 0.0 && w->count > 0) {
        double shell = asked;
        if (!(asked > 0.0)) {
            double phi = small_packing_fraction(w, nb->split);
            shell = (w->dim == 3 ? automatic_shell_fraction(phi) : automatic_shell_fraction_2d(phi)) * 2.0 * nb->split;
        }
        if (asked > 0.0 || lists_pay(w)) nb->shell = usable_shell(w, shell);
        nb->on = nb->shell > 0.0;
    }
    return 2.0 * (nb->on ? nb->split : w->max_radius) + 2.0 * nb->shell;
}

static int32_t *fixed_row(const neighbours *nb, int32_t i) { return (int32_t *)neighbours_fixed_row(nb, i); }
static int32_t *long_row(const neighbours *nb, int32_t m) { return nb->long_entry + (int64_t)m * nb->long_width; }
static int32_t *row_of(const neighbours *nb, int32_t i) { return (int32_t *)neighbours_row(nb, i); }

/* Widens block's rows rows from width old_width to width in place, the last
 * first, so a row never moves onto one not yet moved. The new entries are
 * zero: every entry of a fixed row, used or not, is written, since the
 * event loop's prefetcher reads a whole row without its count (run.c). */
static void widen_in_place(int32_t *block, int32_t rows, int32_t old_width, int32_t width)
{
    for (int32_t r = rows - 1; r >= 0 && width > old_width; r--) {
        memmove(block + (size_t)r * width, block + (size_t)r * old_width, (size_t)old_width * sizeof *block);
        memset(block + (size_t)r * width + old_width, 0, (size_t)(width - old_width) * sizeof *block);
    }
}

/* A free long row (one was reserved by reserve_long), now in use. */
static int32_t take_long_row(neighbours *nb)
{
    assert(nb->long_free_count > 0);
    int32_t m = nb->long_free;
    nb->long_free = long_row(nb, m)[0];
    nb->long_free_count--;
    nb->long_used++;
    return m;
}

/* Long row m is free again. */
static void give_back_long_row(neighbours *nb, int32_t m)
{
    long_row(nb, m)[0] = nb->long_free;
    nb->long_free = m;
    nb->long_free_count++;
    nb->long_used--;
}

/* Body i's row grows past the width: it moves to a long row, and its fixed
 * row keeps where. */
static void spill(neighbours *nb, int32_t i)
{
    assert(nb->count[i] == nb->width && nb->width <= nb->long_width);
    int32_t m = take_long_row(nb), *fixed = fixed_row(nb, i);
    memcpy(long_row(nb, m), fixed, (size_t)nb->width * sizeof *fixed);
    fixed[0] = m;
}

/* Body i's long row, now of n <= width entries, moves back to its fixed row. */
static void unspill(neighbours *nb, int32_t i, int32_t n)
{
    int32_t *fixed = fixed_row(nb, i), m = fixed[0];
    memcpy(fixed, long_row(nb, m), (size_t)n * sizeof *fixed);
    give_back_long_row(nb, m);
}

/* Every long row free (the lists are about to be made again). */
static void free_long_rows(neighbours *nb)
{
    nb->long_free_count = nb->long_rows;
    nb->long_used = 0;
    for (int32_t m = nb->long_rows - 1; m >= 0; m--) long_row(nb, m)[0] = m + 1 < nb->long_rows ? m + 1 : -1;
    nb->long_free = nb->long_rows > 0 ? 0 : -1;
}

/* Rows of at least width entries for `rows` bodies; rows keep their
 * entries, and a long row that now fits moves back. All three arrays grow,
 * or none. */
static int reserve_rows(neighbours *nb, int32_t rows, int32_t width)
{
    if (rows <= nb->rows && width <= nb->width) return 0;
    if (rows < nb->rows) rows = nb->rows;
    if (rows < 1) rows = 1;
    if (width < nb->width) width = nb->width;
    if (width >= UINT16_MAX) return -1;
    memory_array arrays[3] = {
        {(void **)&nb->anchor, nb->rows > 0 ? anchor_bytes(nb->rows) : 0, anchor_bytes(rows), 0},
        {(void **)&nb->count, nb->rows > 0 ? count_bytes(nb->rows) : 0, count_bytes(rows), 0},
        {(void **)&nb->entry, nb->rows > 0 ? entry_bytes(nb->rows, nb->width) : 0, entry_bytes(rows, width), 1}};
    if (memory_grow_together(nb->mem, arrays, 3) != 0) return -1;
    widen_in_place(nb->entry, nb->rows, nb->width, width);
    memset(nb->entry + (size_t)nb->rows * width, 0, (size_t)(rows - nb->rows) * width * sizeof *nb->entry);
    for (int32_t r = nb->rows; r < rows; r++) nb->count[r] = 0;
    int32_t old_width = nb->width, old_rows = nb->rows;
    nb->rows = rows;
    nb->width = width;
    for (int32_t s = 0; s < old_rows && nb->long_used > 0 && width > old_width; s++) {
        int32_t n = nb->count[s];
        if (n > old_width && n <= width) unspill(nb, s, n); /* widening moved its first entry, where */
    }
    return 0;
}

/* A pool of long rows of at least width entries with at least `free` of
 * them free. 0, or -1 if out of memory (the pool is then unchanged). */
static int reserve_long(neighbours *nb, int32_t free, int32_t width)
{
    if (width < nb->long_width) width = nb->long_width;
    if (free <= nb->long_free_count && width == nb->long_width) return 0;
    if (width >= UINT16_MAX) return -1;
    int32_t rows = nb->long_rows;
    if (free > nb->long_free_count) {
        int64_t wanted = (int64_t)rows + (free - nb->long_free_count), grown = (int64_t)rows + rows / 4 + 4;
        wanted = wanted > grown ? wanted : grown;
        if (wanted > INT32_MAX) return -1;
        rows = (int32_t)wanted;
    }
    int32_t *block = memory_grow(nb->mem, nb->long_entry, entry_bytes(nb->long_rows, nb->long_width),
                                 entry_bytes(rows, width));
    if (!block) return -1;
    widen_in_place(block, nb->long_rows, nb->long_width, width);
    nb->long_entry = block;
    nb->long_width = width;
    for (int32_t m = rows - 1; m >= nb->long_rows; m--) {
        long_row(nb, m)[0] = nb->long_free_count > 0 ? nb->long_free : -1;
        nb->long_free = m;
        nb->long_free_count++;
    }
    nb->long_rows = rows;
    return 0;
}

/* The next width of rows that must hold `need` entries: by steps of
 * WIDTH_STEP for the fixed rows (each step costs every body 16 bytes), by a
 * quarter for the long ones (a large body's row grows by hundreds). */
static int32_t wider(int32_t width, int32_t need, int is_long)
{
    while (width < need) width += is_long && width / 4 > WIDTH_STEP ? width / 4 : WIDTH_STEP;
    return width;
}

/* Bodies that are not large may have long rows in one case in
 * NEIGHBOURS_SPILL_SHARE: beyond that, the width grows. */
static int spills_too_often(const neighbours *nb, int32_t bodies, int32_t spilled)
{
    return spilled - nb->large_count > (bodies - nb->large_count) / NEIGHBOURS_SPILL_SHARE;
}

/* Room in row i (of `bodies` bodies) for `need` entries: in its long row,
 * which it gets if it has none yet, when they are more than the width; or
 * wider rows, if one more long row would be too many. */
static int make_room(neighbours *nb, int32_t i, int32_t need, int32_t bodies)
{
    while (need > nb->width && nb->count[i] <= nb->width && spills_too_often(nb, bodies, nb->long_used + 1))
        if (reserve_rows(nb, nb->rows, nb->width + WIDTH_STEP) != 0) return -1;
    if (need <= nb->width) return 0;
    int has_long = nb->count[i] > nb->width;
    return reserve_long(nb, has_long ? 0 : 1, wider(nb->long_width, need, 1));
}

#if defined(__GNUC__)
#define INLINED static inline __attribute__((always_inline))
#else
#define INLINED static inline
#endif

/* Appends entry e to row i, which has room: a row that outgrows the width
 * moves to a long row. Inlined: it runs a dozen times a renewal. */
INLINED void append(neighbours *nb, int32_t i, int32_t e)
{
    int32_t n = nb->count[i], *row = fixed_row(nb, i);
    if (n >= nb->width) {
        if (n == nb->width) spill(nb, i);
        row = long_row(nb, row[0]);
        assert(n < nb->long_width);
    }
    row[n] = e;
    nb->count[i] = (uint16_t)(n + 1);
}

/* Row i becomes the n entries of from: in its fixed row, or in a long row,
 * which it keeps if it has one (a free one was reserved otherwise). */
static void set_row(neighbours *nb, int32_t i, const int32_t *from, int32_t n)
{
    int32_t *fixed = fixed_row(nb, i);
    int had_long = nb->count[i] > nb->width, has_long = n > nb->width;
    if (had_long && !has_long) give_back_long_row(nb, fixed[0]);
    if (!had_long && has_long) fixed[0] = take_long_row(nb);
    assert(n <= (has_long ? nb->long_width : nb->width));
    nb->count[i] = (uint16_t)n;
    if (n > 0) memcpy(row_of(nb, i), from, (size_t)n * sizeof *from);
}

/* Appends an entry to row i, making room if it is full. */
static int push(neighbours *nb, int32_t i, int32_t slot, int code, int32_t bodies)
{
    if (make_room(nb, i, nb->count[i] + 1, bodies) != 0) return -1;
    append(nb, i, slot << NEIGHBOURS_IMAGE_BITS | code);
    return 0;
}

/* Appends an entry to the spare row, growing it if it is full. */
static int push_spare(neighbours *nb, int32_t slot, int code)
{
    if (nb->prepared_count == nb->spare_room) {
        int32_t room = nb->spare_room < FIRST_WIDTH ? FIRST_WIDTH : 2 * nb->spare_room;
        if (room > UINT16_MAX) room = UINT16_MAX;
        if (nb->prepared_count >= room) return -1;
        int32_t *grown = memory_grow(nb->mem, nb->spare, (size_t)nb->spare_room * sizeof *grown,
                                     (size_t)room * sizeof *grown);
        if (!grown) return -1;
        nb->spare = grown;
        nb->spare_room = room;
    }
    nb->spare[nb->prepared_count++] = slot << NEIGHBOURS_IMAGE_BITS | code;
    return 0;
}

/* Where body i is in a row of n entries (a fixed row of width entries if n
 * fits), -1 if nowhere. With SSE2 the whole fixed row is compared, four
 * entries at a time: a loop of constant length, where a search that stops
 * at i ends at a random place, mispredicted at nearly every call (each
 * renewal makes one for every old neighbour). Entries past n are never
 * taken. */
static int place_in_row(const int32_t *row, int n, int32_t i, int width)
{
#if defined(__SSE2__)
    if (n <= width && width <= 32) {
        __m128i target = _mm_set1_epi32(i);
        uint32_t found = 0;
        for (int k = 0; k < width; k += 4) {
            __m128i slots = _mm_srai_epi32(_mm_loadu_si128((const __m128i *)(const void *)(row + k)),
                                           NEIGHBOURS_IMAGE_BITS);
            found |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(slots, target))) << k;
        }
        found &= n < 32 ? (1u << n) - 1u : ~0u;
        return found ? lowest_bit(found) : -1;
    }
#else
    (void)width;
#endif
    for (int k = 0; k < n; k++)
        if (neighbours_slot(row[k]) == i) return k;
    return -1;
}

/* Removes body i from row j (it must be there); a long row that comes down
 * to the width moves back to the fixed row. */
static void forget(neighbours *nb, int32_t j, int32_t i)
{
    int32_t *row = row_of(nb, j);
    int n = nb->count[j], k = place_in_row(row, n, i, nb->width);
    assert(k >= 0 && "a neighbour list is not symmetric");
    if (k < 0) return;
    row[k] = row[n - 1];
    if (n - 1 == nb->width) unspill(nb, j, n - 1);
    nb->count[j]--;
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

/* The cells of the pattern that a body at the anchor whose face gaps are
 * gap may reach (radii, shell), as a bit mask; inlined where count is a
 * constant, so that its loop is unrolled whole (see cells_first_bodies). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint32_t cells_in_reach_of(double gap[3][3], const cells_pattern *pattern, double radii, double shell,
                                         const int count)
{
    uint32_t in_reach = 0;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 27
#endif
    for (int k = 0; k < count; k++) in_reach |= (uint32_t)reaches(cell_gap2(gap, pattern->dir[k]), radii, shell) << k;
    return in_reach;
}

/* cells_in_reach_of for a full stencil, whose cell m = i0 + 3 i1 + 9 i2 lies
 * dir (i0 - 1, i1 - 1, i2 - 1) from home (cells.c: set_patterns): the squared
 * gaps are summed in cell_gap2's order (0 + g0^2 is g0^2 exactly, a gap is
 * never negative or NaN), so every bit is the same, without reading dir. */
static uint32_t cells_in_reach_27(double gap[3][3], double radii, double shell)
{
    double square[3][3], reach = radii + 2.0 * shell, limit = reach * reach * (1.0 + 1e-9); /* reaches() */
    for (int k = 0; k < 3; k++)
        for (int m = 0; m < 3; m++) square[k][m] = gap[k][m] * gap[k][m];
    uint32_t in_reach = 0;
    for (int i1 = 0; i1 < 3; i1++)
        for (int i0 = 0; i0 < 3; i0++) {
            double plane = square[0][i0] + square[1][i1];
            for (int i2 = 0; i2 < 3; i2++)
                in_reach |= (uint32_t)(plane + square[2][i2] < limit) << (i0 + 3 * i1 + 9 * i2);
        }
    return in_reach;
}

static uint32_t cells_in_reach(double gap[3][3], const cells_pattern *pattern, double radii, double shell)
{
    if (pattern->count == 27) return cells_in_reach_27(gap, radii, shell);
    return cells_in_reach_of(gap, pattern, radii, shell, pattern->count);
}

static int is_large(const carom_world *w, int32_t i) { return w->hot[i].radius > w->nb.split; }

/* Links the pair (i, j) seen through image code from i, of w->count bodies. */
static int link_pair(carom_world *w, int32_t i, int32_t j, int code)
{
    return push(&w->nb, i, j, code, w->count) != 0 || push(&w->nb, j, i, 26 - code, w->count) != 0 ? -1 : 0;
}

/* Links small body i with every small body in a higher slot in the cells
 * around its anchor that is within reach (linking everyone, each pair once;
 * a renewal searches all slots, collect_row below); large bodies are linked
 * by search_large. The largest small radius screens first: whole cells out
 * of its reach are skipped (about a third of the 27), and j's hot record (a
 * cache line, far away at 10^6 bodies) is read only for the few bodies that
 * may be listed. */
static int link_body(carom_world *w, int32_t i)
{
    int32_t home = world_cell(w, i);
    const cells_pattern *pattern = cells_pattern_at(&w->grid, home);
    double a_i[3], gap[3][3], r_i = w->hot[i].radius, shell = w->nb.shell, split = w->nb.split;
    anchor_of(&w->nb, i, a_i);
    face_gaps(&w->grid, home, a_i, gap);
    const int32_t *head = w->grid.head + home, *next = w->grid.next;
    for (int k = 0; k < pattern->count; k++) {
        if (!reaches(cell_gap2(gap, pattern->dir[k]), r_i + split, shell)) continue;
        int code = pattern->image[k]; /* the grid's image codes are the lists' */
        const double *shift = w->grid.image_shift[code];
        for (int32_t j = head[pattern->offset[k]]; j >= 0; j = next[j]) {
            if (j <= i) continue;
            double d2 = anchor_gap2(&w->nb, a_i, j, shift);
            if (!reaches(d2, r_i + split, shell) || is_large(w, j) || !reaches(d2, r_i + w->hot[j].radius, shell))
                continue;
            if (link_pair(w, i, j, code) != 0) return -1;
        }
    }
    return 0;
}

/* The large bodies within reach of anchor a_i (body i's, or the one it will
 * get), from the 27 cells of the large grid around it. linking: each pair
 * is linked both ways, a pair of large bodies from its lower slot only;
 * otherwise they are collected into the spare row. fullest: the longest
 * row among them, if longer (large bodies' rows grow apart from the
 * others'). */
static int search_large(carom_world *w, int32_t i, const double a_i[3], int linking, int32_t *fullest)
{
    neighbours *nb = &w->nb;
    if (nb->large_count == 0) return 0;
    const cells *g = &nb->large;
    int32_t home = cells_locate(g, a_i);
    const cells_pattern *pattern = cells_pattern_at(g, home);
    double r_i = w->hot[i].radius;
    int i_large = is_large(w, i);
    for (int k = 0; k < pattern->count; k++) {
        int code = pattern->image[k];
        const double *shift = g->image_shift[code];
        for (int32_t m = g->head[home + pattern->offset[k]]; m >= 0; m = g->next[m]) {
            int32_t j = nb->large_slot[m];
            if (j == i || (linking && i_large && j < i)) continue;
            if (!reaches(anchor_gap2(nb, a_i, j, shift), r_i + w->hot[j].radius, nb->shell)) continue;
            if ((linking ? link_pair(w, i, j, code) : push_spare(nb, j, code)) != 0) return -1;
            if (nb->count[j] > *fullest) *fullest = nb->count[j];
        }
    }
    return 0;
}

/* Files the large bodies' anchors in their grid (configured for them). */
static void file_large(neighbours *nb)
{
    cells *g = &nb->large;
    cells_empty(g);
    for (int32_t m = 0; m < nb->large_count; m++) {
        double a[3];
        anchor_of(nb, nb->large_slot[m], a);
        cells_insert(g, m, cells_locate(g, a));
    }
}

/* Room for count large bodies among w->count: their slots and grid, and
 * the per-slot index. 0, or -1 if out of memory. */
static int reserve_large(carom_world *w, int32_t count)
{
    neighbours *nb = &w->nb;
    if (w->count > nb->large_of_room) {
        int32_t *grown = memory_grow(nb->mem, nb->large_of, (size_t)nb->large_of_room * sizeof *grown,
                                     (size_t)w->count * sizeof *grown);
        if (!grown) return -1;
        nb->large_of = grown;
        nb->large_of_room = w->count;
    }
    if (count > nb->large_room) {
        int32_t *grown = memory_grow(nb->mem, nb->large_slot, (size_t)nb->large_room * sizeof *grown,
                                     (size_t)count * sizeof *grown);
        if (!grown) return -1;
        nb->large_slot = grown;
        nb->large_room = count;
    }
    double width = 2.0 * w->max_radius + 2.0 * nb->shell;
    if (cells_reserve(&nb->large, count) != 0 ||
        cells_configure(&nb->large, w->dim, w->side, w->periodic, width, 8 * (int64_t)count) != 0)
        return -1;
    return 0;
}

/* Finds the large bodies (radius above the split) and files them in a grid
 * of their own. 0, or -1 if out of memory. */
static int index_large(carom_world *w)
{
    neighbours *nb = &w->nb;
    int32_t count = 0;
    for (int32_t i = 0; i < w->count; i++) count += is_large(w, i);
    nb->large_count = 0;
    if (count == 0) return 0;
    if (reserve_large(w, count) != 0) return -1;
    for (int32_t i = 0; i < w->count; i++) {
        nb->large_of[i] = is_large(w, i) ? nb->large_count : -1;
        if (is_large(w, i)) nb->large_slot[nb->large_count++] = i;
    }
    file_large(nb);
    return 0;
}

/* Large body i's anchor has moved: it moves in the large grid too. */
static void refile_large(neighbours *nb, int32_t i)
{
    int32_t m = nb->large_of[i];
    double a[3];
    anchor_of(nb, i, a);
    cells_remove(&nb->large, m);
    cells_insert(&nb->large, m, cells_locate(&nb->large, a));
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

/* Files body i, filed in cell from, by its (new) anchor. */
static void file_by_anchor(carom_world *w, int32_t i, int32_t from)
{
    double a[3];
    anchor_of(&w->nb, i, a);
    cells_remove_from(&w->grid, i, from);
    cells_insert(&w->grid, i, cells_locate(&w->grid, a));
}

int neighbours_link_all(carom_world *w)
{
    neighbours *nb = &w->nb;
    nb->epoch++;
    nb->split = neighbours_split_radius(w);
    nb->uniform = radii_all(w, nb->split);
    if (index_large(w) != 0) return -1;
    for (int32_t i = 0; i < w->count; i++) nb->count[i] = 0;
    free_long_rows(nb);
    for (int32_t i = 0; i < w->count; i++) {
        double a_i[3];
        int32_t fullest = 0;
        anchor_of(nb, i, a_i);
        if ((!is_large(w, i) && link_body(w, i) != 0) || search_large(w, i, a_i, 1, &fullest) != 0) return -1;
    }
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
    cells_empty(&w->grid);
    for (int32_t i = 0; i < w->count; i++) {
        double a[3];
        set_anchor(w, i);
        anchor_of(nb, i, a);
        cells_insert(&w->grid, i, cells_locate(&w->grid, a));
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

/* In a large world, before a renewal's search: the anchor and link of the
 * second body of each cell around (the event loop asked for the first
 * bodies' an event ago; the cells' bodies are mostly in consecutive slots,
 * so the lines hold the next ones too), and the end of the anchor three
 * slots after the first body's, so that the anchors of slots j + 1 to j + 3
 * are asked for (at packing 0.45 a cell holds three or four bodies). The
 * search then finds them arriving together, where it would wait for each
 * cell's in turn. A helper that only prefetches is always inlined
 * (prefetch.h): compiled apart, GCC dropped every call to it. */
PREFETCH_HELPER void prefetch_candidates(const carom_world *w, const cells_pattern *pattern, const int32_t *head)
{
    for (int k = 0; k < pattern->count; k++) { /* an empty place (-1) asks for body 0's lines: no branch */
        int32_t j = head[pattern->offset[k]];
        j = j < 0 ? 0 : j;
        PREFETCH(&w->nb.anchor[3 * j]);
        int32_t fourth = j + 3 < w->count ? j + 3 : w->count - 1; /* kept inside the array */
        PREFETCH(&w->nb.anchor[3 * fourth + 2]);
        int32_t second = w->grid.next[j];
        second = second < 0 ? 0 : second;
        PREFETCH(&w->nb.anchor[3 * second]);
        PREFETCH(&w->grid.next[second]);
    }
}

/* The same search as link_body, from the anchor body i will get, into the
 * spare row; the rows of the bodies it finds must take one entry more.
 * Whether a body in reach of the cell is listed is a coin flip, so the
 * search is written without a branch on it: every candidate is written at
 * the row's end and the end moves on only when it is kept (j's hot record
 * is read only when the largest small radius reaches it: its address is
 * selected, not branched on). A row that would outgrow the spare row is
 * searched again with widening set: one entry at a time, growing the spare
 * row when it is full. sizes: WITH_LARGE, some bodies are large and must
 * be skipped; SMALL_SIZES, every radius is at most the split, and that test
 * is compiled out; ONE_SIZE, every radius is the split, so the reach of
 * r_i + r_j is the reach of r_i + split, bit for bit, and j's record is not
 * read at all. */
enum { ONE_SIZE, SMALL_SIZES, WITH_LARGE };
static int collect_row_widening(carom_world *w, int32_t i, const double a_i[3], int32_t *fullest);
INLINED int collect_row_in(carom_world *w, int32_t i, const double a_i[3], int32_t *fullest, const int widening,
                          const int sizes)
{
    neighbours *nb = &w->nb;
    const cells_pattern *pattern;
    int32_t home = cells_locate_pattern(&w->grid, a_i, &pattern);
    double gap[3][3], r_i = w->hot[i].radius, shell = nb->shell, split = nb->split;
    face_gaps(&w->grid, home, a_i, gap);
    const int32_t *head = w->grid.head + home, *next = w->grid.next;
    int32_t *spare = nb->spare, last = nb->spare_room - 1, n = 0, most = 0;
    if (!widening && last < 0) return collect_row_widening(w, i, a_i, fullest);
    nb->prepared_count = 0;
    if (w->count >= PREFETCH_FROM_BODIES) prefetch_candidates(w, pattern, head);
    /* the cells in reach that hold a body, as a mask (whether a cell is
     * in reach depends on where the anchor sits in its cell: a coin flip) */
    int32_t first[27];
    uint32_t todo = cells_first_bodies(&w->grid, home, pattern, first) & cells_in_reach(gap, pattern, r_i + split, shell);
    for (; todo; todo &= todo - 1) {
        int k = lowest_bit(todo), code = pattern->image[k];
        const double *shift = w->grid.image_shift[code];
        for (int32_t j = first[k]; j >= 0; j = next[j]) {
            double d2 = anchor_gap2(nb, a_i, j, shift);
            int near = (j != i) & reaches(d2, r_i + split, shell), keep = near;
            if (sizes != ONE_SIZE) {
                double r_j = w->hot[near ? j : i].radius;
                keep &= (sizes == WITH_LARGE ? r_j <= split : 1) & reaches(d2, r_i + r_j, shell);
            }
            if (widening) {
                if (keep && push_spare(nb, j, code) != 0) return -1;
            } else {
                spare[n < last ? n : last] = j << NEIGHBOURS_IMAGE_BITS | code;
                n += keep;
            }
        }
    }
    if (!widening && n > last) return collect_row_widening(w, i, a_i, fullest);
    if (!widening) nb->prepared_count = n;
    /* The longest row among those kept, read once they are known (their rows
     * take i at the renewal, so these records are wanted then anyway). */
    for (int32_t k = 0; k < nb->prepared_count; k++) {
        int32_t count_j = nb->count[neighbours_slot(nb->spare[k])];
        most = count_j > most ? count_j : most;
    }
    *fullest = most;
    return 0;
}

static int collect_row_widening(carom_world *w, int32_t i, const double a_i[3], int32_t *fullest)
{
    return collect_row_in(w, i, a_i, fullest, 1, WITH_LARGE);
}

/* For a large body i: the small bodies within reach of anchor a_i, from
 * the world's grid, whose cells are narrower than that reach: every cell
 * it may reach along each axis, each through the image it is seen in (the
 * reach is at most a third of a periodic side, so no body is in reach
 * through two images). Into the spare row, after what is there. */
static int search_small_wide(carom_world *w, int32_t i, const double a_i[3], int32_t *fullest)
{
    neighbours *nb = &w->nb;
    const cells *g = &w->grid;
    double r_i = w->hot[i].radius, reach = r_i + nb->split + 2.0 * nb->shell;
    int32_t home = cells_locate(g, a_i), at[3] = {home % g->n[0], home / g->n[0] % g->n[1], home / (g->n[0] * g->n[1])};
    int32_t lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        int32_t k = g->n[a] == 1 ? 0 : (int32_t)ceil(reach * (1.0 + 1e-9) / g->width[a]);
        lo[a] = g->periodic[a] || at[a] - k >= 0 ? at[a] - k : 0;
        hi[a] = g->periodic[a] || at[a] + k < g->n[a] ? at[a] + k : g->n[a] - 1;
    }
    int32_t c[3];
    for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
        for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
            for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++) {
                int32_t cell = 0, stride = 1;
                int code = 0, place = 1;
                for (int a = 0; a < 3; a++) {
                    int s = c[a] < 0 ? -1 : c[a] >= g->n[a] ? 1 : 0;
                    cell += stride * (c[a] - s * g->n[a]);
                    code += place * (s + 1);
                    stride *= g->n[a];
                    place *= 3;
                }
                for (int32_t j = g->head[cell]; j >= 0; j = g->next[j]) {
                    if (j == i || is_large(w, j)) continue;
                    if (!reaches(anchor_gap2(nb, a_i, j, g->image_shift[code]), r_i + w->hot[j].radius, nb->shell))
                        continue;
                    if (push_spare(nb, j, code) != 0) return -1;
                    if (nb->count[j] > *fullest) *fullest = nb->count[j];
                }
            }
    return 0;
}

/* The row body i will get at anchor a_i: small bodies, then large ones.
 * fullest: the longest row among the small ones found, fullest_large among
 * the large ones. */
static int collect_row(carom_world *w, int32_t i, const double a_i[3], int32_t *fullest, int32_t *fullest_large)
{
    int small_found;
    if (is_large(w, i)) {
        w->nb.prepared_count = 0;
        *fullest = 0;
        small_found = search_small_wide(w, i, a_i, fullest);
    } else {
        small_found = w->nb.large_count > 0 ? collect_row_in(w, i, a_i, fullest, 0, WITH_LARGE)
                      : w->nb.uniform       ? collect_row_in(w, i, a_i, fullest, 0, ONE_SIZE)
                                            : collect_row_in(w, i, a_i, fullest, 0, SMALL_SIZES);
    }
    *fullest_large = 0;
    return small_found != 0 ? -1 : search_large(w, i, a_i, 0, fullest_large);
}

/* The cells around the new anchor are searched in the order link_body
 * would search them after i is filed there (i heads its new cell's list,
 * and skips itself), so the row comes out as link_body would write it. */
int neighbours_prepare_renew(carom_world *w, int32_t i, double t)
{
    neighbours *nb = &w->nb;
    double a_i[3];
    int32_t fullest = 0, fullest_large = 0;
    anchor_at(w, i, t, a_i);
    nb->prepared = 0;
    nb->prepared_count = 0;
    if (collect_row(w, i, a_i, &fullest, &fullest_large) != 0) return -1;
    /* Too many long rows: the width grows a step (which moves some back). */
    if (spills_too_often(nb, w->count, nb->long_used) &&
        reserve_rows(nb, nb->rows, nb->width + WIDTH_STEP) != 0)
        return -1;
    /* i's new row, and each new neighbour's, which gains i (an old one
     * loses it first: one to spare); a long row for each that may outgrow
     * the width. */
    int32_t need = fullest > fullest_large ? fullest + 1 : fullest_large + 1, spills = 0;
    if (nb->prepared_count > need) need = nb->prepared_count;
    if (need > nb->width) {
        spills = nb->prepared_count > nb->width && nb->count[i] <= nb->width;
        for (int32_t k = 0; k < nb->prepared_count; k++)
            spills += nb->count[neighbours_slot(nb->spare[k])] == nb->width;
        if (reserve_long(nb, spills, wider(nb->long_width, need, 1)) != 0) return -1;
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
    int32_t from = world_cell(w, i);
    set_anchor(w, i);
    file_by_anchor(w, i, from);
    if (is_large(w, i)) refile_large(nb, i);
    set_row(nb, i, nb->spare, nb->prepared_count);
    const int32_t *new_row = neighbours_row(nb, i);
    for (int k = 0; k < nb->count[i]; k++) {
        int32_t j = neighbours_slot(new_row[k]);
        int code = new_row[k] & ((1 << NEIGHBOURS_IMAGE_BITS) - 1);
        append(nb, j, i << NEIGHBOURS_IMAGE_BITS | (26 - code));
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
    /* the larger root of a s^2 + 2 half_b s + c = 0, without cancellation:
     * -c / (half_b + root) or (root - half_b) / a, the operands chosen
     * without a branch (the sign of half_b is a coin flip) */
    int outwards = half_b >= 0.0;
    return choose(outwards, -c, root - half_b) / choose(outwards, half_b + root, a);
}

/* What row i keeps in its fixed row: its entries, or where its long row is. */
static size_t fixed_bytes(const neighbours *nb, int32_t count)
{
    return (size_t)(count > nb->width ? 1 : count) * sizeof(int32_t);
}

void neighbours_save(const neighbours *nb, int32_t src, neighbours_record *r)
{
    memcpy(r->anchor, nb->anchor + 3 * src, sizeof r->anchor);
    r->count = nb->count[src];
    memcpy(r->row, fixed_row(nb, src), fixed_bytes(nb, r->count));
}

void neighbours_load(neighbours *nb, int32_t dst, const neighbours_record *r)
{
    memcpy(nb->anchor + 3 * dst, r->anchor, sizeof r->anchor);
    nb->count[dst] = r->count;
    memcpy(fixed_row(nb, dst), r->row, fixed_bytes(nb, r->count));
}

void neighbours_copy(neighbours *nb, int32_t dst, int32_t src)
{
    memcpy(nb->anchor + 3 * dst, nb->anchor + 3 * src, 3 * sizeof *nb->anchor);
    nb->count[dst] = nb->count[src];
    memcpy(fixed_row(nb, dst), fixed_row(nb, src), fixed_bytes(nb, nb->count[src]));
}

void neighbours_relabel(neighbours *nb, int32_t count, const int32_t *to)
{
    nb->epoch++;
    /* the large bodies first: a long row is found through large_of */
    for (int32_t m = 0; m < nb->large_count; m++) nb->large_slot[m] = to[nb->large_slot[m]];
    for (int32_t s = 0; nb->large_count > 0 && s < count; s++) nb->large_of[s] = -1;
    for (int32_t m = 0; m < nb->large_count; m++) nb->large_of[nb->large_slot[m]] = m;
    int32_t image_mask = (1 << NEIGHBOURS_IMAGE_BITS) - 1;
    for (int32_t s = 0; s < count; s++) {
        int32_t *row = row_of(nb, s);
        for (int k = 0; k < nb->count[s]; k++)
            row[k] = to[neighbours_slot(row[k])] << NEIGHBOURS_IMAGE_BITS | (row[k] & image_mask);
    }
}
