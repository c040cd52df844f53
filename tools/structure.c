/* structure.c — g(r) per species pair and S(k) at exact instants.
 *
 * g(r): pairs closer than rdf_max are found on a grid of cells at least
 * rdf_max wide (every axis periodic, minimum image); the count in each
 * shell is divided by what an ideal gas of the same species sizes would put
 * there, N_a N_b / V times the shell's volume (N_a (N_a - 1) / 2 for a pair
 * of one species) (Allen & Tildesley, "Computer Simulation of Liquids",
 * sec. 2.6 and 8.2).
 * S(k) = |sum_j exp(i k . r_j)|^2 / N over the box's wavevectors
 * k = 2 pi (n_x / L_x, n_y / L_y, n_z / L_z), one of each pair +-k, binned
 * by |k| in steps of 2 pi / L_min; exp(i k . r) is a product over axes of
 * powers of exp(2 pi i x / L), found once per sample by recurrence. */
#include "structure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

enum { MAX_WAVEVECTORS = 20000 };

int structure_pair_count(int species_count) { return species_count * (species_count + 1) / 2; }

int structure_pair_index(int species_count, int a, int b)
{
    if (a > b) {
        int t = a;
        a = b, b = t;
    }
    return a * species_count - a * (a - 1) / 2 + (b - a);
}

void structure_pair_species(int species_count, int p, int *a, int *b)
{
    *a = 0, *b = 0;
    for (int i = 0; i < species_count; i++)
        for (int j = i; j < species_count; j++)
            if (structure_pair_index(species_count, i, j) == p) {
                *a = i, *b = j;
                return;
            }
}

static double smallest_side(const structure_def *d)
{
    double least = d->side[0];
    for (int a = 1; a < d->dim; a++) least = fmin(least, d->side[a]);
    return least;
}

/* Whether n (one half of the +-n pairs, n != 0) is kept: the first non-zero index positive. */
static int leading_positive(const int n[3])
{
    for (int a = 0; a < 3; a++)
        if (n[a] != 0) return n[a] > 0;
    return 0;
}

static double wave_length(const structure *s, const int n[3])
{
    double k2 = 0.0;
    for (int a = 0; a < s->def.dim; a++) {
        double k = 2.0 * PI * n[a] / s->def.side[a];
        k2 += k * k;
    }
    return sqrt(k2);
}

/* Lists the wavevectors up to sk_max (or, with list NULL, counts them). */
static int64_t list_wavevectors(structure *s, int32_t *list)
{
    int64_t count = 0;
    int n[3];
    for (n[0] = -s->n_max[0]; n[0] <= s->n_max[0]; n[0]++)
        for (n[1] = -s->n_max[1]; n[1] <= s->n_max[1]; n[1]++)
            for (n[2] = -s->n_max[2]; n[2] <= s->n_max[2]; n[2]++) {
                if (!leading_positive(n) || wave_length(s, n) > s->def.sk_max) continue;
                if (list) memcpy(&list[3 * count], n, sizeof n);
                count++;
            }
    return count;
}

static int init_structure_factor(structure *s, const char *where, char *why, size_t why_size)
{
    const structure_def *d = &s->def;
    int widest = 0;
    double box_of_vectors = 1.0; /* the lattice points of the box that holds the sphere of radius max */
    for (int a = 0; a < d->dim; a++) box_of_vectors *= 2.0 * floor(d->sk_max * d->side[a] / (2.0 * PI)) + 1.0;
    /* The sphere fills more than a quarter of that box (pi / 6 of it in 3D,
     * less a few points near its edge), and half of it is listed: past
     * eight times the cap the count is surely over it, and listing it
     * would take as long as the box is large. */
    if (!(box_of_vectors <= 8.0 * MAX_WAVEVECTORS))
        return snprintf(why, why_size, "%s.max = %g takes over %d wavevectors, each a sum over every body at "
                        "every sample (expected at most %d: a smaller max)", where, d->sk_max, MAX_WAVEVECTORS,
                        MAX_WAVEVECTORS), -1;
    for (int a = 0; a < d->dim; a++) {
        s->n_max[a] = (int)floor(d->sk_max * d->side[a] / (2.0 * PI));
        if (s->n_max[a] > widest) widest = s->n_max[a];
    }
    double step = 2.0 * PI / smallest_side(d);
    if (widest < 1 || !(d->sk_max >= step))
        return snprintf(why, why_size, "%s.max = %g is below the smallest wavevector of the box, 2 pi / L = %g "
                        "(expected a larger max)", where, d->sk_max, step), -1;
    int64_t vectors = list_wavevectors(s, NULL);
    if (vectors > MAX_WAVEVECTORS)
        return snprintf(why, why_size, "%s.max = %g takes %lld wavevectors, each a sum over every body at "
                        "every sample (expected at most %d: a smaller max)", where, d->sk_max, (long long)vectors,
                        MAX_WAVEVECTORS), -1;
    s->k_vectors = vectors;
    s->k_bins = (int)floor(d->sk_max / step) + 1;
    s->k_index = malloc((size_t)vectors * 3 * sizeof *s->k_index);
    s->k_bin_of = malloc((size_t)vectors * sizeof *s->k_bin_of);
    s->sk_sum = calloc((size_t)s->k_bins, sizeof *s->sk_sum);
    s->k_sum = calloc((size_t)s->k_bins, sizeof *s->k_sum);
    s->k_count = calloc((size_t)s->k_bins, sizeof *s->k_count);
    s->phase = malloc((size_t)d->bodies * 3 * (size_t)(widest + 1) * 2 * sizeof *s->phase + 1);
    if (!s->k_index || !s->k_bin_of || !s->sk_sum || !s->k_sum || !s->k_count || !s->phase)
        return snprintf(why, why_size, "%s: out of memory", where), -1;
    list_wavevectors(s, s->k_index);
    for (int64_t v = 0; v < vectors; v++) {
        int bin = (int)floor(wave_length(s, &s->k_index[3 * v]) / step);
        s->k_bin_of[v] = bin < s->k_bins ? bin : s->k_bins - 1;
    }
    return 0;
}

int structure_init(structure *s, const structure_def *def, const char *where, char *why, size_t why_size)
{
    memset(s, 0, sizeof *s);
    s->def = *def;
    int pairs = structure_pair_count(def->species_count);
    s->species_size = calloc((size_t)def->species_count, sizeof *s->species_size);
    if (!s->species_size) return snprintf(why, why_size, "%s: out of memory", where), -1;
    for (int32_t j = 0; j < def->bodies; j++) s->species_size[def->species[j]]++;
    if (def->rdf_max > 0) {
        if (def->rdf_max > smallest_side(def) / 2)
            return snprintf(why, why_size, "%s.max = %g is more than half the smallest side, %g (expected at "
                            "most that: beyond it a pair is counted through two images)", where, def->rdf_max,
                            smallest_side(def) / 2), -1;
        s->rdf_counts = calloc((size_t)pairs * (size_t)def->rdf_bins, sizeof *s->rdf_counts);
        s->cell_next = malloc(((size_t)def->bodies + 1) * sizeof *s->cell_next);
        if (!s->rdf_counts || !s->cell_next) return snprintf(why, why_size, "%s: out of memory", where), -1;
    }
    if (def->sk_max > 0 && init_structure_factor(s, where, why, why_size) != 0) return -1;
    return 0;
}

void structure_free(structure *s)
{
    free(s->species_size);
    free(s->rdf_counts);
    free(s->k_index);
    free(s->k_bin_of);
    free(s->sk_sum);
    free(s->k_sum);
    free(s->k_count);
    free(s->phase);
    free(s->cell_next);
    free(s->cell_head);
    memset(s, 0, sizeof *s);
}

/* ---- g(r) ------------------------------------------------------------------- */

static double minimum_image(double d, double side)
{
    if (d > side / 2) return d - side;
    if (d < -side / 2) return d + side;
    return d;
}

static void count_pair(structure *s, const double *x, int32_t i, int32_t j)
{
    const structure_def *d = &s->def;
    double r2 = 0.0;
    for (int a = 0; a < d->dim; a++) {
        double c = minimum_image(x[3 * i + a] - x[3 * j + a], d->side[a]);
        r2 += c * c;
    }
    double r = sqrt(r2);
    if (!(r < d->rdf_max)) return;
    int bin = (int)(r / d->rdf_max * d->rdf_bins);
    if (bin >= d->rdf_bins) bin = d->rdf_bins - 1;
    int p = structure_pair_index(d->species_count, d->species[i], d->species[j]);
    s->rdf_counts[(size_t)p * (size_t)d->rdf_bins + (size_t)bin]++;
}

/* The grid: cells per axis (at least rdf_max wide), bodies chained by cell. */
static int file_in_cells(structure *s, const double *x, int m[3])
{
    const structure_def *d = &s->def;
    int64_t cells = 1;
    for (int a = 0; a < 3; a++) {
        m[a] = a < d->dim ? (int)fmin(floor(d->side[a] / d->rdf_max), 64) : 1;
        if (m[a] < 1) m[a] = 1;
        cells *= m[a];
    }
    free(s->cell_head);
    s->cell_head = malloc((size_t)cells * sizeof *s->cell_head);
    if (!s->cell_head) return -1;
    for (int64_t c = 0; c < cells; c++) s->cell_head[c] = -1;
    for (int32_t j = 0; j < d->bodies; j++) {
        int64_t c = 0;
        for (int a = 2; a >= 0; a--) {
            int k = a < d->dim ? (int)floor((x[3 * j + a] / d->side[a] + 0.5) * m[a]) : 0;
            k = k < 0 ? 0 : (k >= m[a] ? m[a] - 1 : k);
            c = c * m[a] + k;
        }
        s->cell_next[j] = s->cell_head[c];
        s->cell_head[c] = j;
    }
    return 0;
}

/* The cells next to cell k on an axis of m cells: k-1, k, k+1 when m >= 3, else every cell once. */
static int neighbour_cells(int k, int m, int out[3])
{
    if (m < 3) {
        for (int c = 0; c < m; c++) out[c] = c;
        return m;
    }
    out[0] = (k + m - 1) % m, out[1] = k, out[2] = (k + 1) % m;
    return 3;
}

static void scan_cell(structure *s, const double *x, const int m[3], const int at[3])
{
    int near[3][3], count[3];
    for (int a = 0; a < 3; a++) count[a] = neighbour_cells(at[a], m[a], near[a]);
    int32_t home = s->cell_head[((int64_t)at[2] * m[1] + at[1]) * m[0] + at[0]];
    for (int p = 0; p < count[0]; p++)
        for (int q = 0; q < count[1]; q++)
            for (int r = 0; r < count[2]; r++) {
                int64_t c = ((int64_t)near[2][r] * m[1] + near[1][q]) * m[0] + near[0][p];
                for (int32_t i = home; i >= 0; i = s->cell_next[i])
                    for (int32_t j = s->cell_head[c]; j >= 0; j = s->cell_next[j])
                        if (j > i) count_pair(s, x, i, j);
            }
}

static void sample_rdf(structure *s, const double *x)
{
    int m[3];
    if (file_in_cells(s, x, m) != 0) return; /* out of memory: the sample is left out of g(r) */
    int at[3];
    for (at[2] = 0; at[2] < m[2]; at[2]++)
        for (at[1] = 0; at[1] < m[1]; at[1]++)
            for (at[0] = 0; at[0] < m[0]; at[0]++) scan_cell(s, x, m, at);
}

/* ---- S(k) ------------------------------------------------------------------- */

static double *phases_of(const structure *s, int32_t j, int a)
{
    int width = 0;
    for (int b = 0; b < 3; b++) width = s->n_max[b] > width ? s->n_max[b] : width;
    return s->phase + ((size_t)j * 3 + (size_t)a) * (size_t)(width + 1) * 2;
}

static void find_phases(structure *s, const double *x)
{
    for (int32_t j = 0; j < s->def.bodies; j++)
        for (int a = 0; a < s->def.dim; a++) {
            double *p = phases_of(s, j, a), angle = 2.0 * PI * x[3 * j + a] / s->def.side[a];
            double c = cos(angle), sn = sin(angle);
            p[0] = 1.0, p[1] = 0.0;
            for (int n = 1; n <= s->n_max[a]; n++) {
                p[2 * n] = p[2 * n - 2] * c - p[2 * n - 1] * sn;
                p[2 * n + 1] = p[2 * n - 2] * sn + p[2 * n - 1] * c;
            }
        }
}

static void sample_structure_factor(structure *s, const double *x)
{
    find_phases(s, x);
    for (int64_t v = 0; v < s->k_vectors; v++) {
        const int32_t *n = &s->k_index[3 * v];
        double re = 0.0, im = 0.0;
        for (int32_t j = 0; j < s->def.bodies; j++) {
            double pr = 1.0, pi = 0.0;
            for (int a = 0; a < s->def.dim; a++) {
                const double *p = phases_of(s, j, a);
                int k = abs(n[a]);
                double cr = p[2 * k], ci = n[a] < 0 ? -p[2 * k + 1] : p[2 * k + 1];
                double t = pr * cr - pi * ci;
                pi = pr * ci + pi * cr;
                pr = t;
            }
            re += pr, im += pi;
        }
        int bin = s->k_bin_of[v];
        s->sk_sum[bin] += (re * re + im * im) / s->def.bodies;
        s->k_sum[bin] += wave_length(s, n);
        s->k_count[bin]++;
    }
}

void structure_sample(structure *s, const double *positions)
{
    if (s->def.bodies == 0) return;
    if (s->rdf_counts) sample_rdf(s, positions);
    if (s->k_vectors) sample_structure_factor(s, positions);
    s->samples++;
}

/* ---- results ------------------------------------------------------------------ */

double structure_bin_low(const structure *s, int k) { return s->def.rdf_max * k / s->def.rdf_bins; }

static double shell_volume(int dim, double r1, double r2)
{
    return dim == 3 ? 4.0 / 3.0 * PI * (r2 * r2 * r2 - r1 * r1 * r1) : PI * (r2 * r2 - r1 * r1);
}

double structure_rdf(const structure *s, int p, int k)
{
    const structure_def *d = &s->def;
    int a, b;
    structure_pair_species(d->species_count, p, &a, &b);
    double na = (double)s->species_size[a], nb = (double)s->species_size[b];
    double pairs = a == b ? na * (na - 1) / 2 : na * nb;
    double volume = d->side[0] * d->side[1] * (d->dim == 3 ? d->side[2] : 1.0);
    double ideal = pairs / volume * shell_volume(d->dim, structure_bin_low(s, k), structure_bin_low(s, k + 1));
    if (s->samples == 0 || !(ideal > 0)) return NAN;
    return (double)s->rdf_counts[(size_t)p * (size_t)d->rdf_bins + (size_t)k] / ((double)s->samples * ideal);
}
