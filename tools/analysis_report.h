/* analysis_report.h — the files of a scenario's analysis (analysis.h): the
 * tables as CSV and the summary as JSON, each written whole or not at all. */
#ifndef CAROM_ANALYSIS_REPORT_H
#define CAROM_ANALYSIS_REPORT_H

#include <stddef.h>

#include "analysis.h"

/* Writes every file asked for. Returns 0, or -1 with a message (and none of
 * the files left half-written). */
int analysis_report(analysis *an, char *why, size_t why_size);

/* g(sigma+) for species pair p from g(r): a quadratic fitted to the first
 * bins above contact, at contact (NaN if g(r) does not reach that far, or a
 * species has several radii). */
double analysis_contact_from_rdf(const analysis *an, int p);

/* D of species s (species_count: all) from the MSD's slope over its second half of lags. */
double analysis_diffusion(const analysis *an, int s);

#endif
