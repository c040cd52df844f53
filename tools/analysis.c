/* analysis.c — a scenario's `analysis:` (analysis.h): the setup and checks,
 * the schedule of samples at exact instants, and the files.
 *
 * The summary's contact values: the collision virial gives, for one size,
 * Z = PV/NkT = 1 + 2^(d-1) phi g(sigma+) (3D: 1 + 4 phi g; 2D: 1 + 2 phi g;
 * Hansen & McDonald, "Theory of Simple Liquids", sec. 2.5), so g(sigma+) =
 * (Z - 1) / (2^(d-1) phi); from g(r) it is the value at contact of a
 * quadratic fitted by least squares to the first bins above it. The
 * diffusion coefficient is the slope of the MSD over the second half of its
 * lags over 2d (Einstein). */
#include "analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const suffixes[ANALYSIS_FILES] = {"_rdf.csv", "_sk.csv", "_msd.csv", "_free_time.csv",
                                                     "_free_path.csv", ".json"};

/* "WHERE:LINE:COL: text", or "WHERE: text" for settings that come from no file (line 0). */
static int fail_at(char *why, size_t size, const char *where, scenario_mark at, const char *text)
{
    if (at.line > 0) snprintf(why, size, "%s:%d:%d: %s", where, at.line, at.col, text);
    else snprintf(why, size, "%s: %s", where, text);
    return -1;
}

/* ---- species ----------------------------------------------------------------- */

static int species_index(analysis *an, const char *name, size_t length)
{
    for (int k = 0; k < an->species_count; k++)
        if (strlen(an->species_names[k]) == length && !strncmp(an->species_names[k], name, length)) return k;
    char **grown = realloc(an->species_names, (size_t)(an->species_count + 1) * sizeof *grown);
    if (!grown) return -1;
    an->species_names = grown;
    if (!(grown[an->species_count] = malloc(length + 1))) return -1;
    memcpy(grown[an->species_count], name, length);
    grown[an->species_count][length] = '\0';
    return an->species_count++;
}

/* Labels the bodies from "NAME COUNT NAME COUNT ..." (NULL or short: the rest are one species "all"). */
static int label_species(analysis *an, const char *text)
{
    int32_t next = 0;
    const char *p = text ? text : "";
    while (next < an->bodies) {
        while (*p == ' ') p++;
        size_t length = strcspn(p, " ");
        const char *name = length ? p : "all";
        long long count = length ? strtoll(p + length, (char **)&p, 10) : an->bodies - next;
        int k = species_index(an, name, length ? length : 3);
        if (k < 0) return -1;
        if (count <= 0 || count > an->bodies - next) count = an->bodies - next;
        for (long long j = 0; j < count; j++) an->species[next++] = k;
        if (!length) break;
    }
    return 0;
}

/* Each species' size and radius (NaN where its radii differ). */
static void find_radii(analysis *an)
{
    for (int k = 0; k < an->species_count; k++) an->species_radius[k] = -1.0;
    for (int32_t j = 0; j < an->bodies; j++) {
        an->species_size[an->species[j]]++;
        carom_body_state s;
        carom_world_get_body(an->world, j, &s);
        double *r = &an->species_radius[an->species[j]];
        *r = *r < 0 ? s.radius : (*r == s.radius ? *r : NAN);
    }
}

/* ---- setup ------------------------------------------------------------------- */

/* Whether every body flies straight at constant energy (no gravity, own accelerations or kinematic bodies). */
static int straight_flights(const analysis *an, const carom_world_def *def)
{
    if (def->gravity.x != 0 || def->gravity.y != 0 || (an->dim == 3 && def->gravity.z != 0)) return 0;
    for (int32_t j = 0; j < an->bodies; j++) {
        carom_body_state s;
        carom_world_get_body(an->world, j, &s);
        if (!isfinite(s.mass) || s.acceleration.x != 0 || s.acceleration.y != 0 || s.acceleration.z != 0) return 0;
    }
    return 1;
}

static int check_settings(analysis *an, const carom_world_def *def, const char *where, char *why, size_t size)
{
    const scenario_analysis *a = &an->settings;
    int all_periodic = 1;
    for (int d = 0; d < an->dim; d++) all_periodic &= an->periodic[d];
    if (a->rdf_max > 0 && !all_periodic)
        return fail_at(why, size, where, a->rdf_mark, "analysis.rdf needs a box periodic on every axis (expected "
                       "world.boundary: periodic)");
    if (a->sk_max > 0 && !all_periodic)
        return fail_at(why, size, where, a->sk_mark, "analysis.structure_factor needs a box periodic on every "
                       "axis (expected world.boundary: periodic)");
    if ((a->msd_lags > 0 || a->flight_bins > 0) && !straight_flights(an, def))
        return fail_at(why, size, where, a->msd_lags > 0 ? a->msd_mark : a->flights_mark,
                       "analysis.msd and analysis.flights need bodies that fly straight with no energy put in "
                       "(expected no gravity, no own accelerations and no kinematic bodies)");
    if (an->origin < carom_world_time(an->world))
        return fail_at(why, size, where, a->start_mark, "analysis.start is before the run's start (expected a "
                       "later start)");
    if (!(an->origin + an->every > an->origin)) { /* a large start, or a small every: name the one given */
        char text[200];
        snprintf(text, sizeof text, "analysis.every %.17g cannot advance the clock from the start, t = %.17g "
                 "(expected a larger every, or an earlier start)", an->every, an->origin);
        return fail_at(why, size, where, a->every_mark.line > 0 ? a->every_mark : a->start_mark, text);
    }
    return 0;
}

static int set_paths(analysis *an, char *why, size_t size)
{
    const scenario_analysis *a = &an->settings;
    int wanted[ANALYSIS_FILES] = {a->rdf_max > 0, a->sk_max > 0, a->msd_lags > 0, a->flight_bins > 0,
                                  a->flight_bins > 0, 1};
    for (int f = 0; f < ANALYSIS_FILES; f++) {
        if (!wanted[f]) continue;
        size_t length = strlen(an->prefix) + strlen(suffixes[f]) + 1;
        if (!(an->paths[f] = malloc(length))) return snprintf(why, size, "out of memory"), -1;
        snprintf(an->paths[f], length, "%s%s", an->prefix, suffixes[f]);
        if (outfile_check(an->paths[f], why, size) != 0) return -1;
    }
    return 0;
}

static int start_observables(analysis *an, const char *where, char *why, size_t size)
{
    const scenario_analysis *a = &an->settings;
    char place[128];
    if (a->rdf_max > 0 || a->sk_max > 0) {
        structure_def d = {an->dim, {an->side[0], an->side[1], an->side[2]}, an->species_count, an->species,
                           an->bodies, a->rdf_max, (int)a->rdf_bins, a->sk_max};
        scenario_mark at = a->rdf_max > 0 ? a->rdf_mark : a->sk_mark;
        if (at.line > 0)
            snprintf(place, sizeof place, "%s:%d:%d: analysis.%s", where, at.line, at.col,
                     a->rdf_max > 0 ? "rdf" : "structure_factor");
        else
            snprintf(place, sizeof place, "%s: analysis.%s", where, a->rdf_max > 0 ? "rdf" : "structure_factor");
        an->has_structure = 1;
        if (structure_init(&an->structure, &d, place, why, size) != 0) return -1;
    }
    if (a->msd_lags > 0) {
        transport_def d = {an->dim, an->species_count, an->species, an->bodies, (int)a->msd_lags};
        an->has_transport = 1;
        if (transport_init(&an->transport, &d, why, size) != 0) return -1;
    }
    return 0;
}

int analysis_open(analysis *an, const scenario_analysis *a, const carom_world *world, const char *species,
                  double until, double equilibrate, const char *where, char *why, size_t why_size)
{
    memset(an, 0, sizeof *an);
    an->settings = *a;
    an->world = world;
    carom_world_def def = carom_world_definition(world);
    double box[3] = {def.box.x, def.box.y, def.box.z};
    an->dim = def.dim;
    for (int d = 0; d < 3; d++) {
        an->side[d] = d < def.dim ? box[d] : 1.0;
        an->periodic[d] = d < def.dim && def.boundary[d] == CAROM_PERIODIC && !def.container;
    }
    an->bodies = carom_world_body_count(world);
    double now = carom_world_time(world);
    an->origin = !isnan(a->start) ? a->start : (equilibrate > now ? equilibrate : now);
    an->every = a->every > 0 ? a->every : (isfinite(until) && until > an->origin ? (until - an->origin) / 100 : 1.0);
    size_t n = (size_t)an->bodies + 1;
    an->prefix = malloc(strlen(a->output) + 1);
    an->species = malloc(n * sizeof *an->species);
    an->x = calloc(3 * n, sizeof(double));
    if (!an->prefix || !an->species || !an->x || label_species(an, species) != 0 ||
        !(an->species_radius = malloc(((size_t)an->species_count + 1) * sizeof(double))) ||
        !(an->species_size = calloc((size_t)an->species_count + 1, sizeof(int64_t))))
        return snprintf(why, why_size, "out of memory"), -1;
    strcpy(an->prefix, a->output);
    an->settings.output = an->prefix;
    find_radii(an);
    if (check_settings(an, &def, where, why, why_size) != 0 || set_paths(an, why, why_size) != 0 ||
        start_observables(an, where, why, why_size) != 0)
        return -1;
    return 0;
}

/* ---- running ------------------------------------------------------------------- */

double analysis_next_time(const analysis *an) { return an->origin + (double)an->index * an->every; }

/* Reads every body's position now. */
static void read_positions(analysis *an)
{
    for (int32_t j = 0; j < an->bodies; j++) {
        carom_body_state s;
        carom_world_get_body(an->world, j, &s);
        double *x = &an->x[3 * j];
        x[0] = s.position.x, x[1] = s.position.y, x[2] = s.position.z;
    }
}

int analysis_sample(analysis *an, char *why, size_t why_size)
{
    double now = carom_world_time(an->world);
    if (an->has_structure) read_positions(an);
    if (!an->started && an->settings.flight_bins > 0) {
        if (flights_init(&an->flights, an->species_count, an->species, an->bodies, (int)an->settings.flight_bins,
                         an->world, why, why_size) != 0)
            return -1;
        an->has_flights = 1;
    }
    an->started = 1;
    an->samples++;
    if (an->has_structure) structure_sample(&an->structure, an->x);
    if (an->has_transport) transport_sample(&an->transport, an->world);
    while (analysis_next_time(an) <= now) an->index++;
    return 0;
}

void analysis_event(analysis *an, const carom_event *event)
{
    if (an->has_flights) flights_event(&an->flights, an->world, event);
    if (an->has_transport) transport_event(&an->transport, an->world, event);
}

void analysis_free(analysis *an)
{
    if (an->has_structure) structure_free(&an->structure);
    if (an->has_transport) transport_free(&an->transport);
    if (an->has_flights) flights_free(&an->flights);
    for (int k = 0; k < an->species_count; k++) free(an->species_names[k]);
    for (int f = 0; f < ANALYSIS_FILES; f++) free(an->paths[f]);
    free(an->species_names);
    free(an->species);
    free(an->species_radius);
    free(an->species_size);
    free(an->x);
    free(an->prefix);
    memset(an, 0, sizeof *an);
}
