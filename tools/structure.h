/* structure.h — static structure at exact instants (issue 17): the radial
 * distribution function g(r) for every pair of species, and the structure
 * factor S(k), both in a box periodic on every axis, 2D or 3D, accumulated
 * over samples of the bodies' positions. */
#ifndef CAROM_STRUCTURE_H
#define CAROM_STRUCTURE_H

#include <stddef.h>
#include <stdint.h>

typedef struct structure_def {
    int dim;
    double side[3];
    int species_count;        /* bodies are labelled 0 .. species_count - 1 */
    const int32_t *species;   /* one label a body (kept by the caller) */
    int32_t bodies;
    double rdf_max;           /* g(r) up to this distance (<= half the smallest side); 0: none */
    int rdf_bins;
    double sk_max;            /* S(k) for |k| up to this (1/L); 0: none */
} structure_def;

typedef struct structure {
    structure_def def;
    int64_t samples;
    int64_t *species_size;    /* bodies of each species */
    uint64_t *rdf_counts;     /* [pair][bin], pair = index of (a <= b) */
    /* S(k): the wavevectors' integer indices (n per axis, one half space),
     * the |k| bin of each, and per bin the sum of |rho_k|^2 / N and |k| */
    int32_t *k_index;         /* [vector][3] */
    int64_t k_vectors;
    int k_bins;
    int32_t *k_bin_of;
    double *sk_sum, *k_sum;
    int64_t *k_count;
    int n_max[3];
    double *phase;            /* scratch: per body and axis, cos and sin of 2 pi n x / L for n = 0..n_max */
    int32_t *cell_next, *cell_head; /* scratch: the g(r) grid */
} structure;

/* Returns 0, or -1 with a message naming the setting at fault (prefixed by where). */
int structure_init(structure *s, const structure_def *def, const char *where, char *why, size_t why_size);
void structure_free(structure *s);

/* One sample: positions (bodies x 3, in the box centred on the origin). */
void structure_sample(structure *s, const double *positions);

/* The number of species pairs (a <= b) and the index of one. */
int structure_pair_count(int species_count);
int structure_pair_index(int species_count, int a, int b);
/* The species a <= b of pair index p. */
void structure_pair_species(int species_count, int p, int *a, int *b);

/* g(r) of pair index p in bin k (NaN before any sample or for an empty pair). */
double structure_rdf(const structure *s, int p, int k);
double structure_bin_low(const structure *s, int k);

#endif
