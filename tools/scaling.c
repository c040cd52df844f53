/* scaling.c — `carom compare --scaling`: the cost of each method against the
 * number of bodies N at fixed density, and against density at fixed N, with
 * the exponent fitted by least squares on the logarithms. Seed 002 (sec.
 * 3.3.2 and 4) predicts, for all-pairs checking, frame cost n^2/2 R per unit
 * time (R frames per unit time) and prediction cost n^(3/2) at fixed
 * density; with cell lists both become about linear in N. Cost here is wall
 * seconds per unit of simulated time (machine-dependent) and, for the
 * steppers, pair checks per unit time (not). A benchmark: it prints numbers
 * and writes data files; nothing in it can fail for being slow.
 *
 * The systems: hard disks (radius 0.5, mass 1) started on a hexagonal
 * lattice in a periodic square box with Maxwell-Boltzmann velocities at
 * kT = 1, melted by the exact engine for 2 time units, then measured from
 * there; frames of dt = 0.01 (a body moves about 2.5% of its diameter per
 * frame).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "outfile.h"
#include "place.h"
#include "report.h"
#include "scenario.h"

enum { SCALING_METHODS = 5, MAX_SAMPLES = 64 };

static const double frame_dt = 0.01, melting_time = 2.0;

typedef struct method_spec {
    const char *name;
    int exact, bisection, all_pairs;
} method_spec;

static const method_spec methods[SCALING_METHODS] = {
    {"exact", 1, 0, 0},          {"frame", 0, 0, 0},          {"bisection", 0, 1, 0},
    {"frame-all-pairs", 0, 0, 1}, {"bisection-all-pairs", 0, 1, 1}};

typedef struct sample {
    const char *sweep;
    int method;
    int32_t n;
    double packing_fraction, simulated, seconds, pair_checks, collisions;
} sample;

typedef struct scaling {
    sample samples[MAX_SAMPLES];
    int count;
    char *error;
    size_t error_size;
    FILE *table; /* standard output, or standard error when an output file is "-" */
} scaling;

static carom_world *gas(int32_t n, double packing_fraction, char *error, size_t size)
{
    static char path[] = "scaling";
    scenario sc;
    scenario_init(&sc);
    scenario_group group;
    memset(&group, 0, sizeof group);
    group.count = n, group.radius = 0.5, group.mass = 1.0;
    group.place = PLACE_LATTICE, group.velocity = VELOCITY_TEMPERATURE, group.velocity_value = 1.0;
    group.packing_fraction = packing_fraction;
    sc.path = path, sc.dim = 2, sc.seed = 5, sc.groups = &group, sc.group_count = 1;
    double box[3];
    carom_world *w = NULL;
    if (place_build_world(&sc, NULL, NULL, box, &w, error, size) != 0) return NULL;
    return w;
}

/* Seconds and collisions of one method over a stretch of simulated time. */
static int measure(scaling *s, sample *out)
{
    const method_spec *m = &methods[out->method];
    carom_world *w = gas(out->n, out->packing_fraction, s->error, s->error_size);
    if (!w) return -1;
    int failed = carom_world_run(w, melting_time, -1) != CAROM_OK;
    int64_t melted = carom_world_stats(w).pair_events;
    double started = report_wall_seconds();
    if (failed) {
    } else if (m->exact) {
        out->simulated = 5.0;
        failed = carom_world_run(w, melting_time + out->simulated, -1) != CAROM_OK;
        out->collisions = (double)(carom_world_stats(w).pair_events - melted);
    } else {
        carom_frame_def def = carom_default_frame_def();
        def.method = m->bisection ? CAROM_FRAME_BISECTION : CAROM_FRAME_PLAIN;
        def.dt = frame_dt, def.all_pairs = m->all_pairs;
        int64_t frames = m->all_pairs ? 10 : 50;
        carom_frame *f = NULL;
        failed = carom_frame_create_from_world(w, &def, &f, s->error, s->error_size) != CAROM_OK;
        started = report_wall_seconds();
        if (!failed) {
            carom_status st = carom_frame_run(f, frames);
            failed = st != CAROM_OK && st != CAROM_JAMMED;
        }
        if (!failed) {
            carom_frame_stats fs = carom_frame_get_stats(f);
            out->simulated = (double)frames * frame_dt;
            out->pair_checks = (double)(fs.pair_checks + fs.bisection_steps);
            out->collisions = (double)fs.pair_collisions;
        }
        carom_frame_destroy(f);
    }
    out->seconds = report_wall_seconds() - started;
    carom_world_destroy(w);
    if (failed && !s->error[0]) snprintf(s->error, s->error_size, "a %s run failed", m->name);
    return failed ? -1 : 0;
}

static int add_sample(scaling *s, const char *sweep, int method, int32_t n, double packing_fraction)
{
    if (s->count == MAX_SAMPLES) return snprintf(s->error, s->error_size, "too many samples"), -1;
    sample *x = &s->samples[s->count];
    *x = (sample){sweep, method, n, packing_fraction, 0, 0, 0, 0};
    if (measure(s, x) != 0) return -1;
    s->count++;
    fprintf(s->table, "%-8s %-20s %6d %6.3f %10.4g %14.4g %14.4g\n", sweep, methods[method].name, (int)n,
            packing_fraction, x->seconds / x->simulated, x->pair_checks / x->simulated, x->collisions / x->simulated);
    fflush(s->table);
    return 0;
}

/* Least-squares slope of log(cost) against log(x) over one sweep and method. */
static double fitted_slope(const scaling *s, const char *sweep, int method, int checks)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int i = 0; i < s->count; i++) {
        const sample *x = &s->samples[i];
        if (strcmp(x->sweep, sweep) || x->method != method) continue;
        double cost = (checks ? x->pair_checks : x->seconds) / x->simulated;
        if (!(cost > 0)) return NAN;
        double lx = log(strcmp(sweep, "n") ? x->packing_fraction : (double)x->n), ly = log(cost);
        sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly, k++;
    }
    return k >= 2 ? (k * sxy - sx * sy) / (k * sxx - sx * sx) : NAN;
}

static void write_csv(FILE *out, const void *data)
{
    const scaling *s = data;
    fprintf(out, "sweep,method,n,packing_fraction,simulated_time,wall_seconds,seconds_per_time,pair_checks_per_time,"
                 "collisions_per_time\n");
    for (int i = 0; i < s->count; i++) {
        const sample *x = &s->samples[i];
        fprintf(out, "%s,%s,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", x->sweep, methods[x->method].name, (int)x->n,
                x->packing_fraction, x->simulated, x->seconds, x->seconds / x->simulated,
                x->pair_checks / x->simulated, x->collisions / x->simulated);
    }
}

static void json_number(FILE *out, double v)
{
    if (isfinite(v)) fprintf(out, "%.4f", v);
    else fprintf(out, "null");
}

static void write_json(FILE *out, const void *data)
{
    const scaling *s = data;
    fprintf(out, "{\n  \"carom_version\": \"%s\",\n  \"dt\": %g,\n  \"fits\": [\n", CAROM_VERSION_STRING, frame_dt);
    const char *sweeps[2] = {"n", "density"};
    for (int w = 0; w < 2; w++)
        for (int m = 0; m < SCALING_METHODS; m++) {
            fprintf(out, "    {\"sweep\": \"%s\", \"method\": \"%s\", \"seconds_exponent\": ", sweeps[w], methods[m].name);
            json_number(out, fitted_slope(s, sweeps[w], m, 0));
            fprintf(out, ", \"pair_checks_exponent\": ");
            json_number(out, methods[m].exact ? NAN : fitted_slope(s, sweeps[w], m, 1));
            fprintf(out, "}%s\n", w == 1 && m == SCALING_METHODS - 1 ? "" : ",");
        }
    fprintf(out, "  ],\n  \"samples\": [\n");
    for (int i = 0; i < s->count; i++) {
        const sample *x = &s->samples[i];
        fprintf(out, "    {\"sweep\": \"%s\", \"method\": \"%s\", \"n\": %d, \"packing_fraction\": %g, "
                     "\"simulated_time\": %g, \"wall_seconds\": %.6g, \"pair_checks\": %.6g, \"collisions\": %.6g}%s\n",
                x->sweep, methods[x->method].name, (int)x->n, x->packing_fraction, x->simulated, x->seconds,
                x->pair_checks, x->collisions, i + 1 < s->count ? "," : "");
    }
    fprintf(out, "  ]\n}\n");
}

static void print_fits(const scaling *s)
{
    fprintf(s->table, "\nfitted exponents (cost ~ x^k), seconds per unit time / pair checks per unit time:\n");
    fprintf(s->table, "%-20s %16s %16s\n", "method", "k against N", "k against density");
    for (int m = 0; m < SCALING_METHODS; m++) {
        char cells[2][32];
        const char *sweeps[2] = {"n", "density"};
        for (int w = 0; w < 2; w++) {
            double secs = fitted_slope(s, sweeps[w], m, 0), checks = fitted_slope(s, sweeps[w], m, 1);
            if (methods[m].exact) snprintf(cells[w], sizeof cells[w], "%.2f / -", secs);
            else snprintf(cells[w], sizeof cells[w], "%.2f / %.2f", secs, checks);
        }
        fprintf(s->table, "%-20s %16s %16s\n", methods[m].name, cells[0], cells[1]);
    }
}

static int sweep_all(scaling *s, int quick)
{
    static const int32_t sizes[] = {256, 512, 1024, 2048, 4096};
    static const double fractions[] = {0.05, 0.1, 0.2, 0.3, 0.4, 0.5};
    int size_count = quick ? 3 : 5;
    int32_t all_pairs_limit = quick ? 1024 : 2048, fixed_n = quick ? 256 : 1024;
    fprintf(s->table, "%-8s %-20s %6s %6s %10s %14s %14s\n", "sweep", "method", "N", "phi", "s per T",
            "checks per T", "collisions/T");
    for (int m = 0; m < SCALING_METHODS; m++)
        for (int k = 0; k < size_count; k++)
            if ((!methods[m].all_pairs || sizes[k] <= all_pairs_limit) && add_sample(s, "n", m, sizes[k], 0.2) != 0)
                return -1;
    for (int m = 0; m < SCALING_METHODS; m++)
        for (int k = 0; k < 6; k++)
            if (add_sample(s, "density", m, fixed_n, fractions[k]) != 0) return -1;
    return 0;
}

int scaling_run(const compare_options *o, char *error, size_t error_size)
{
    scaling *s = calloc(1, sizeof *s);
    if (!s) return snprintf(error, error_size, "out of memory"), -1;
    s->error = error, s->error_size = error_size;
    error[0] = '\0';
    s->table = compare_writes_stdout(o) ? stderr : stdout; /* standard output holds the file */
    fprintf(s->table, "carom compare --scaling: 2D disks, periodic box, frames of dt = %g; phi = packing fraction\n",
            frame_dt);
    int st = sweep_all(s, o->quick);
    if (st == 0) print_fits(s);
    if (st == 0) st = outfile_write(o->csv, write_csv, s, error, error_size);
    if (st == 0) st = outfile_write(o->json, write_json, s, error, error_size);
    free(s);
    return st;
}
