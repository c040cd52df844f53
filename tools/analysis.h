/* analysis.h — a scenario's `analysis:` (issue 17): observables computed on
 * the fly at exact instants start + k * every, not from stored frames, and
 * from the event stream: g(r) per species pair and S(k) (structure.h), MSD
 * and VACF (transport.h), free times and paths and collisions per species
 * pair (flights.h). At the end it writes PREFIX_rdf.csv, PREFIX_sk.csv,
 * PREFIX_msd.csv, PREFIX_free_time.csv, PREFIX_free_path.csv (those asked
 * for) and PREFIX.json, a summary with the contact value g(sigma+) from the
 * collision virial and from g(r), the diffusion coefficient from the MSD,
 * the mean free time and path; every file whole or not at all (outfile.h). */
#ifndef CAROM_ANALYSIS_H
#define CAROM_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "carom.h"
#include "flights.h"
#include "outfile.h"
#include "scenario.h"
#include "structure.h"
#include "transport.h"

enum { ANALYSIS_FILES = 6 };

typedef struct analysis {
    scenario_analysis settings;  /* output not owned: see the prefix below */
    char *prefix;
    char *paths[ANALYSIS_FILES]; /* NULL for an observable not asked for */
    const carom_world *world;
    int dim;
    double side[3];
    int periodic[3];
    int32_t bodies;
    int species_count;
    char **species_names;
    int32_t *species;
    int64_t *species_size;       /* bodies of each species */
    double *species_radius;      /* NaN where a species' radii differ */
    double origin, every;
    int64_t index;               /* the next sample */
    int64_t samples;             /* taken so far */
    int started;                 /* the first sample was taken (flights count from it) */
    double *x;                   /* scratch: positions [body][3] */
    structure structure;
    transport transport;
    flights flights;
    int has_structure, has_transport, has_flights;
} analysis;

/* Sets up the analysis of a world built from a scenario with settings a,
 * its bodies' species "NAME COUNT ..." (NULL: one species), the run's until
 * and equilibrate. Checks every output path and every setting against the
 * world (where is the scenario file, for messages). Returns 0, or -1 with
 * "FILE:LINE:COL: what is wrong (what was expected)" or "PATH: cannot write ...". */
int analysis_open(analysis *an, const scenario_analysis *a, const carom_world *world, const char *species,
                  double until, double equilibrate, const char *where, char *why, size_t why_size);

double analysis_next_time(const analysis *an);

/* Takes the sample due now (the world's clock). Returns 0, or -1 with a message. */
int analysis_sample(analysis *an, char *why, size_t why_size);

/* Called with every processed event (from the world's callback). */
void analysis_event(analysis *an, const carom_event *event);

/* The files are written by analysis_report (analysis_report.h). */
void analysis_free(analysis *an);

#endif
