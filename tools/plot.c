/* plot.c — `carom plot`: a run's statistics over time, or the speeds of a
 * trajectory frame against Maxwell's distribution, drawn by gnuplot
 * (Debian's gnuplot-nox, pngcairo and svg terminals; issue 15).
 *
 * carom checks its input itself, so that a bad row is named by FILE:LINE:COL
 * (gnuplot would skip it silently), writes gnuplot a script and a data file
 * in a private temporary folder, and starts gnuplot with posix_spawnp on the
 * script's path (no shell, no user text inside a command line; file names
 * enter the script in single quotes, which gnuplot reads without escapes,
 * and names with a single quote are refused). gnuplot draws the picture in
 * the folder too, and carom copies it to the target through outfile.h.
 *
 * Speeds: with kT = sum m v^2 / (d N) and the mean mass m, Maxwell's speed
 * density is (m v / kT) exp(-m v^2 / 2kT) in 2D and 4 pi v^2 (m / 2 pi kT)^(3/2)
 * exp(-m v^2 / 2kT) in 3D; their distribution functions 1 - exp(-v^2 / 2s^2)
 * and erf(v / s sqrt2) - sqrt(2/pi) (v/s) exp(-v^2 / 2s^2), s^2 = kT / m,
 * give the Kolmogorov-Smirnov distance that --verbose prints.
 */
#define _POSIX_C_SOURCE 200809L
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "event_rate.h"
#include "option.h"
#include "outfile.h"
#include "xyz.h"

extern char **environ;

enum { MESSAGE_SIZE = 1024, EXIT_USAGE = 2, SERIES_COLUMNS = 11 };

static const char *help_text =
    "usage: carom plot FILE -o PLOT.png|.svg [--what W] [--verbose]\n"
    "\n"
    "Plots with gnuplot:\n"
    "  a series (carom run --series FILE.csv), --what energy (default), temperature,\n"
    "    pressure or rate: against time;\n"
    "  a trajectory (.xyz), --what speeds: the last frame's speeds (--frame K for\n"
    "    another) as a histogram against Maxwell's distribution at the frame's kT;\n"
    "  an events log (carom run --events-log FILE.csv), --what rate: pair and wall\n"
    "    collisions per unit time in 40 bins of time.\n"
    "  --verbose prints what was plotted (for speeds: kT and the Kolmogorov-Smirnov\n"
    "  distance to Maxwell's distribution).\n";

static const char *const what_names[] = {"energy", "temperature", "pressure", "rate", "speeds"};
enum { WHAT_ENERGY, WHAT_TEMPERATURE, WHAT_PRESSURE, WHAT_RATE, WHAT_SPEEDS };

typedef struct plot_request {
    const char *input, *output;
    int what, verbose, events; /* events: the input is an events log */
    long long frame;
} plot_request;

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int is_valued(const char *name)
{
    static const char *const names[] = {"--output", "-o", "--what", "--frame"};
    return option_is_one_of(name, names, sizeof names / sizeof *names);
}

static int take_option(void *request, const char *name, const char *value, char *why, size_t size)
{
    plot_request *r = request;
    if (!strcmp(name, "-o") || !strcmp(name, "--output")) return r->output = value, 0;
    if (!strcmp(name, "--frame")) return option_integer(name, value, &r->frame, why, size);
    for (int k = 0; k < 5; k++)
        if (!strcmp(value, what_names[k])) return r->what = k, 0;
    return snprintf(why, size, "--what: '%s' is not a usable value (expected energy, temperature, pressure, rate "
                    "or speeds)", value), -1;
}

static int take_input(void *request, const char *argument, char *why, size_t size)
{
    plot_request *r = request;
    if (r->input) return snprintf(why, size, "one input only ('%s' and '%s')", r->input, argument), -1;
    return r->input = argument, 0;
}

/* 0 to plot, 1 for --help, -1 on a usage error. */
static int parse(int argc, char **argv, plot_request *r, char *why, size_t size)
{
    *r = (plot_request){.frame = -1, .what = -1};
    const option_walker walker = {is_valued, take_option, take_input, &r->verbose};
    int walked = option_walk(argc, argv, &walker, r, why, size);
    if (walked != 0) return walked;
    if (!r->input) return snprintf(why, size, "an input is needed (carom plot FILE -o PLOT.png)"), -1;
    if (!r->output) return snprintf(why, size, "an output plot is needed (-o PLOT.png or PLOT.svg)"), -1;
    int trajectory = ends_with(r->input, ".xyz");
    r->events = !trajectory && event_rate_is_log(r->input);
    if (r->what < 0) r->what = trajectory ? WHAT_SPEEDS : r->events ? WHAT_RATE : WHAT_ENERGY;
    if (r->events && r->what != WHAT_RATE)
        return snprintf(why, size, "--what %s needs a series (.csv) or a trajectory; an events log gives the rate",
                        what_names[r->what]), -1;
    if ((r->what == WHAT_SPEEDS) != trajectory)
        return snprintf(why, size, "--what %s needs %s", what_names[r->what],
                        trajectory ? "a series (.csv), not a trajectory" : "a trajectory (.xyz)"), -1;
    return 0;
}

/* ---- the series: checked row by row ------------------------------------- */

static const char series_header[] = "time,kinetic_energy,potential_energy,rotational_energy,total_energy,"
                                    "temperature,mean_temperature,pressure,collision_rate,pair_events,wall_events";

/* One row: SERIES_COLUMNS numbers; the interval averages (columns 7 to 9)
 * may be empty, as in the first row, or nan (as earlier versions wrote). */
static int check_row(const char *path, long line, char *text, char *why, size_t size)
{
    char *p = text;
    for (int c = 0; c < SERIES_COLUMNS; c++) {
        char *end = NULL;
        double v = strtod(p, &end);
        long col = (long)(p - text) + 1;
        int average = c >= 6 && c <= 8, empty = end == p && average && *p == ','; /* no interval yet */
        if (!empty && (end == p || (!isfinite(v) && !(average && isnan(v)))))
            return snprintf(why, size, "%s:%ld:%ld: column %d is not a number (expected %d comma-separated "
                            "numbers, as carom run --series writes)", path, line, col, c + 1, SERIES_COLUMNS), -1;
        if (c < SERIES_COLUMNS - 1 && *end != ',')
            return snprintf(why, size, "%s:%ld:%ld: expected a comma after column %d", path, line,
                            (long)(end - text) + 1, c + 1), -1;
        p = end + 1;
        if (c == SERIES_COLUMNS - 1 && *end != '\n' && *end != '\0')
            return snprintf(why, size, "%s:%ld:%ld: more than %d columns", path, line, (long)(end - text) + 1,
                            SERIES_COLUMNS), -1;
    }
    return 0;
}

static int check_series(const char *path, char *why, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f) return snprintf(why, size, "%s:1:1: cannot open (%s)", path, strerror(errno)), -1;
    char text[4096];
    long line = 0, rows = 0;
    int status = 0;
    while (status == 0 && fgets(text, sizeof text, f)) {
        line++;
        if (line == 1) {
            text[strcspn(text, "\r\n")] = '\0';
            if (strcmp(text, series_header) != 0)
                status = -1, snprintf(why, size, "%s:1:1: not a series (expected the header of carom run --series: "
                                      "%s)", path, series_header);
            continue;
        }
        status = check_row(path, line, text, why, size);
        rows++;
    }
    fclose(f);
    if (status == 0 && rows < 2)
        status = -1, snprintf(why, size, "%s:%ld:1: %ld rows (expected at least 2 to plot)", path, line + 1, rows);
    return status;
}

/* ---- speeds ------------------------------------------------------------- */

typedef struct speeds {
    double *v;
    int32_t n;
    int dim;
    double kT, mass;
} speeds;

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

static double maxwell_cdf(int dim, double v, double s)
{
    double x = v / s;
    if (dim == 2) return 1.0 - exp(-0.5 * x * x);
    return erf(x / sqrt(2.0)) - sqrt(2.0 / 3.14159265358979323846) * x * exp(-0.5 * x * x);
}

/* The Kolmogorov-Smirnov distance of the sorted speeds to Maxwell's distribution. */
static double ks_distance(const speeds *s)
{
    double worst = 0.0, scale = sqrt(s->kT / s->mass);
    for (int32_t k = 0; k < s->n; k++) {
        double f = maxwell_cdf(s->dim, s->v[k], scale);
        worst = fmax(worst, fmax(fabs(f - (double)k / s->n), fabs(f - (double)(k + 1) / s->n)));
    }
    return worst;
}

static int read_speeds(const plot_request *r, speeds *s, char *why, size_t size)
{
    xyz_frame frame;
    memset(&frame, 0, sizeof frame);
    if (xyz_read_frame(r->input, r->frame, 0.5, 1.0, &frame, why, size) != 0) return -1;
    s->n = frame.count, s->dim = 2, s->kT = 0.0, s->mass = 0.0;
    for (int32_t k = 0; k < frame.count; k++)
        if (frame.bodies[k].position.z != 0.0 || frame.bodies[k].velocity.z != 0.0) s->dim = 3;
    s->v = malloc((size_t)(frame.count > 0 ? frame.count : 1) * sizeof *s->v);
    for (int32_t k = 0; s->v && k < frame.count; k++) {
        const carom_body_state *b = &frame.bodies[k];
        double v2 = b->velocity.x * b->velocity.x + b->velocity.y * b->velocity.y + b->velocity.z * b->velocity.z;
        s->v[k] = sqrt(v2), s->kT += b->mass * v2, s->mass += b->mass;
    }
    xyz_frame_free(&frame);
    if (!s->v) return snprintf(why, size, "out of memory"), -1;
    if (s->n < 2 || !(s->kT > 0.0) || !isfinite(s->kT)) {
        free(s->v);
        return snprintf(why, size, "%s: %d bodies with kinetic energy %g: nothing to compare with Maxwell's "
                        "distribution (expected 2 or more moving bodies)", r->input, (int)s->n, 0.5 * s->kT), -1;
    }
    s->kT /= (double)s->dim * s->n, s->mass /= s->n;
    qsort(s->v, (size_t)s->n, sizeof *s->v, compare_doubles);
    return 0;
}

/* The histogram as a density, bin centre and value per line. */
static int write_histogram(const char *path, const speeds *s, int bins)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    double width = s->v[s->n - 1] / bins * (1.0 + 1e-12);
    int32_t k = 0;
    for (int b = 0; b < bins; b++) {
        int32_t in = 0;
        while (k < s->n && s->v[k] < (b + 1) * width) in++, k++;
        fprintf(f, "%.17g %.17g %d\n", (b + 0.5) * width, in / (s->n * width), (int)in);
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* Collisions per unit time, bin centre, pair and wall rates per line. */
static int write_rates(const char *path, const event_rate *e)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    double width = e->width > 0.0 ? e->width : 1.0;
    for (int b = 0; b < e->bins; b++)
        fprintf(f, "%.17g %.17g %.17g\n", e->start + (b + 0.5) * e->width, e->pair[b] / width, e->wall[b] / width);
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- gnuplot ------------------------------------------------------------- */

static int quoted_ok(const char *path) { return !strchr(path, '\'') && !strchr(path, '\n'); }

static void write_terminal(FILE *g, const char *output, const char *picture)
{
    if (ends_with(output, ".svg")) fprintf(g, "set terminal svg size 800,600 dynamic\n");
    else fprintf(g, "set terminal pngcairo size 800,600\n");
    fprintf(g, "set output '%s'\nset grid\nset key top right\n", picture);
}

static void write_series_script(FILE *g, const plot_request *r)
{
    fprintf(g, "set datafile separator ','\nset datafile missing 'nan'\nset xlabel 'time'\n");
    fprintf(g, "set title '%s' noenhanced\n", r->input); /* single quotes: no escapes, and quoted_ok has no ' */
    const char *data = r->input;
    switch (r->what) {
    case WHAT_TEMPERATURE:
        fprintf(g, "set ylabel 'kT'\nplot '%s' using 1:6 with lines title 'temperature now', "
                   "'' using 1:7 with fsteps title 'mean over the interval'\n", data);
        break;
    case WHAT_PRESSURE:
        fprintf(g, "set ylabel 'pressure (collision virial)'\nplot '%s' using 1:8 with fsteps title 'pressure over "
                   "the interval'\n", data);
        break;
    case WHAT_RATE:
        fprintf(g, "set ylabel 'collisions per body per unit time'\nplot '%s' using 1:9 with fsteps title "
                   "'collision rate over the interval'\n", data);
        break;
    default:
        fprintf(g, "set ylabel 'energy'\nplot '%s' using 1:2 with lines title 'kinetic', '' using 1:3 with lines "
                   "title 'potential', '' using 1:4 with lines title 'rotational', '' using 1:5 with lines lw 2 "
                   "title 'total'\n", data);
    }
}

static void write_speeds_script(FILE *g, const plot_request *r, const speeds *s, const char *histogram)
{
    fprintf(g, "set title '%s: speeds against Maxwell at kT = %.6g' noenhanced\n", r->input, s->kT);
    fprintf(g, "set xlabel 'speed'\nset ylabel 'probability density'\nset style fill solid 0.4\n");
    fprintf(g, "m = %.17g; kT = %.17g\n", s->mass, s->kT);
    if (s->dim == 2) fprintf(g, "f(v) = m * v / kT * exp(-m * v * v / (2 * kT))\n");
    else fprintf(g, "f(v) = 4 * pi * v * v * (m / (2 * pi * kT))**1.5 * exp(-m * v * v / (2 * kT))\n");
    fprintf(g, "set xrange [0:*]\nplot '%s' using 1:2 with boxes title '%d bodies', f(x) with lines lw 2 "
               "title 'Maxwell, %dD'\n", histogram, (int)s->n, s->dim);
}

static void write_rates_script(FILE *g, const plot_request *r, const char *data)
{
    fprintf(g, "set title '%s: collisions per unit time' noenhanced\n", r->input);
    fprintf(g, "set xlabel 'time'\nset ylabel 'collisions per unit time'\nset yrange [0:*]\n");
    fprintf(g, "plot '%s' using 1:2 with histeps lw 2 title 'pair', '' using 1:3 with histeps title 'wall'\n", data);
}

static int run_gnuplot(const char *script, char *why, size_t size)
{
    char *argv[] = {"gnuplot", (char *)script, NULL};
    pid_t child;
    int spawned = posix_spawnp(&child, "gnuplot", NULL, NULL, argv, environ);
    if (spawned != 0)
        return snprintf(why, size, "cannot start gnuplot (%s; Debian's gnuplot-nox package draws the plots)",
                        strerror(spawned)), -1;
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return snprintf(why, size, "gnuplot failed (its message is above)"), -1;
    return 0;
}

typedef struct scratch {
    char folder[64], script[96], data[96], picture[96];
} scratch;

/* Copies gnuplot's picture to the output through outfile.h, so that a link
 * is followed, a FIFO or device written in place, a file's mode kept, and
 * nothing replaced until the copy is whole. */
static int deliver(const char *picture, const char *output, char *why, size_t size)
{
    FILE *in = fopen(picture, "rb");
    if (!in) return snprintf(why, size, "gnuplot wrote no picture (%s)", strerror(errno)), -1;
    outfile f;
    if (outfile_open(&f, output, why, size) != 0) return fclose(in), -1;
    char block[1 << 16];
    size_t n;
    while ((n = fread(block, 1, sizeof block, in)) > 0)
        if (fwrite(block, 1, n, f.stream) != n) break;
    int failed = ferror(in);
    fclose(in);
    if (failed) {
        outfile_discard(&f);
        return snprintf(why, size, "cannot read gnuplot's picture"), -1;
    }
    return outfile_status(&f, why, size) != 0 ? (outfile_discard(&f), -1) : outfile_commit(&f, why, size);
}

static int plot_with(const plot_request *r, const speeds *s, const event_rate *e, char *why, size_t size)
{
    scratch t;
    snprintf(t.folder, sizeof t.folder, "/tmp/carom-plot-XXXXXX");
    if (!mkdtemp(t.folder)) return snprintf(why, size, "cannot make a temporary folder (%s)", strerror(errno)), -1;
    snprintf(t.script, sizeof t.script, "%s/plot.gp", t.folder);
    snprintf(t.data, sizeof t.data, "%s/histogram.dat", t.folder);
    snprintf(t.picture, sizeof t.picture, "%s/picture", t.folder);
    int status = 0;
    int bins = s ? (int)fmin(60.0, fmax(5.0, sqrt((double)s->n))) : 0;
    if (status == 0 && s && write_histogram(t.data, s, bins) != 0) status = -1;
    if (status == 0 && e && write_rates(t.data, e) != 0) status = -1;
    FILE *g = status == 0 ? fopen(t.script, "w") : NULL;
    if (g) {
        write_terminal(g, r->output, t.picture);
        if (s) write_speeds_script(g, r, s, t.data);
        else if (e) write_rates_script(g, r, t.data);
        else write_series_script(g, r);
        status = fclose(g) == 0 ? 0 : -1;
    } else {
        status = -1;
    }
    if (status != 0) snprintf(why, size, "cannot write gnuplot's script in %s", t.folder);
    else status = run_gnuplot(t.script, why, size);
    if (status == 0) status = deliver(t.picture, r->output, why, size);
    remove(t.script), remove(t.data), remove(t.picture), rmdir(t.folder);
    return status;
}

static int plot_events(const plot_request *r, char *why, size_t size)
{
    event_rate e;
    if (event_rate_read(r->input, 40, &e, why, size) != 0) return -1;
    int status = plot_with(r, NULL, &e, why, size);
    double span = e.width * e.bins;
    if (status == 0 && r->verbose)
        printf("carom plot: %s: %lld pair and %lld wall collisions (and %lld sensor crossings) from %.17g to %.17g, "
               "%.6g pair collisions per unit time\n", r->output, (long long)e.pairs, (long long)e.walls,
               (long long)e.sensors, e.start, e.start + span, span > 0.0 ? (double)e.pairs / span : 0.0);
    event_rate_free(&e);
    return status;
}

static int plot_run(const plot_request *r, char *why, size_t size)
{
    if (!ends_with(r->output, ".png") && !ends_with(r->output, ".svg"))
        return snprintf(why, size, "%s: the plot's name must end in .png or .svg", r->output), -1;
    if (!quoted_ok(r->input) || !quoted_ok(r->output))
        return snprintf(why, size, "file names with a quote or a line break cannot be given to gnuplot"), -1;
    if (outfile_check(r->output, why, size) != 0) return -1;
    if (r->events) return plot_events(r, why, size);
    if (r->what != WHAT_SPEEDS) {
        if (check_series(r->input, why, size) != 0) return -1;
        if (plot_with(r, NULL, NULL, why, size) != 0) return -1;
        if (r->verbose) printf("carom plot: %s: %s against time from %s\n", r->output, what_names[r->what], r->input);
        return 0;
    }
    speeds s;
    if (read_speeds(r, &s, why, size) != 0) return -1;
    int status = plot_with(r, &s, NULL, why, size);
    if (status == 0 && r->verbose)
        printf("carom plot: %s: %d speeds (%dD), kT = %.17g, Kolmogorov-Smirnov distance to Maxwell %.6f\n",
               r->output, (int)s.n, s.dim, s.kT, ks_distance(&s));
    free(s.v);
    return status;
}

int plot_command(int argc, char **argv)
{
    plot_request r;
    char why[MESSAGE_SIZE] = "";
    int parsed = parse(argc, argv, &r, why, sizeof why);
    if (parsed == 1) return fputs(help_text, stdout), 0;
    if (parsed != 0) return fprintf(stderr, "carom plot: %s\n(carom plot --help lists the options)\n", why), EXIT_USAGE;
    if (plot_run(&r, why, sizeof why) != 0) return fprintf(stderr, "carom: %s\n", why), 1;
    return 0;
}
