/* windows.c — carom_windows: how fast carom runs control windows (issue 12,
 * seeds 000/001): a controller sets accelerations between windows and
 * carom_world_advance runs each window exactly.
 *
 * Cases:
 *   airhockey-2, airhockey-4  the game of examples/airhockey (50 Hz windows,
 *       scripted mallets setting bounded accelerations every window);
 *   disks-none   N driven disks in a walled 2D box (sigma = m = 1, area
 *       fraction 0.3, Maxwell-Boltzmann velocities at kT = 1), 60 windows per
 *       unit of simulated time, nothing set: the cost of windows alone;
 *   disks-all    the same with a new random acceleration (each component
 *       normal, 1 sigma/T^2) set on every body every window: the case seed
 *       000 serves by rebuilding its queue every window;
 *   disks-1%     the same with new accelerations set on 1% of the bodies
 *       (drawn at random) every window; the others keep theirs: the case a
 *       rebuild every window cannot serve, where carom re-predicts only the
 *       bodies changed.
 * Each case runs an unmeasured warm-up of a fifth of its windows, then is
 * timed with clock_gettime(CLOCK_PROCESS_CPUTIME_ID) around the window loop
 * (the setters and carom_world_advance). It prints windows per CPU second,
 * carom events per CPU second (all kinds: pair, wall, cell) and bodies
 * predicted per window (carom_stats.predictions). A program that prints
 * figures, never a test.
 *
 * usage: carom_windows [--quick] [--n N[,N...]] [--windows W] [--only airhockey|disks]
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "airhockey.h"
#include "carom.h"

#define MAX_SIZES 8

typedef struct options {
    long n[MAX_SIZES];
    int n_count;
    long windows;         /* 0: per case (see windows_for) */
    int airhockey, disks; /* which families to run */
} options;

typedef struct figures {
    long windows;
    double cpu_seconds;
    int64_t events, predictions, sets;
} figures;

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(const char *what, const char *why)
{
    fprintf(stderr, "carom_windows: %s: %s\n", what, why);
    exit(1);
}

static void print_header(void)
{
    printf("%-14s %8s %8s %8s %12s %12s %14s %14s\n", "case", "N", "windows", "CPU s", "windows/s",
           "events/s", "predict/window", "sets/window");
}

static void print_row(const char *name, long n, const figures *f)
{
    double w = (double)f->windows;
    printf("%-14s %8ld %8ld %8.3f %12.1f %12.4g %14.1f %14.1f\n", name, n, f->windows,
           f->cpu_seconds, w / f->cpu_seconds, (double)f->events / f->cpu_seconds,
           (double)f->predictions / w, (double)f->sets / w);
    fflush(stdout);
}

/* ---- the air-hockey scene ----------------------------------------------------- */

static void bench_airhockey(int players, long windows)
{
    airhockey_config c = airhockey_default_config();
    c.players = players;
    airhockey_game *game = NULL;
    char why[256];
    if (airhockey_create(&c, &game, why, sizeof why) != CAROM_OK) die("airhockey", why);
    if (airhockey_play(game, (double)(windows / 5) / c.control_rate) != CAROM_OK)
        die("airhockey", airhockey_message(game));
    airhockey_summary before = airhockey_get_summary(game);
    double start = cpu_now();
    if (airhockey_play(game, (double)(windows / 5 + windows) / c.control_rate) != CAROM_OK)
        die("airhockey", airhockey_message(game));
    double seconds = cpu_now() - start;
    airhockey_summary after = airhockey_get_summary(game);
    figures f = {after.windows - before.windows, seconds, after.events - before.events,
                 after.predictions - before.predictions,
                 (after.windows - before.windows) * players};
    print_row(players == 2 ? "airhockey-2" : "airhockey-4", 1 + players, &f);
    airhockey_destroy(game);
}

/* ---- driven disks in a box ------------------------------------------------------ */

typedef enum { SET_NONE, SET_ALL, SET_ONE_PERCENT } set_policy;

static carom_world *build_disks(long n, carom_rng *rng)
{
    const double fraction = 0.3, pi = 3.14159265358979323846;
    long per_row = (long)ceil(sqrt((double)n));
    double side = sqrt((double)n * pi * 0.25 / fraction), spacing = side / (double)per_row;
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){side, side, 1.0};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = CAROM_WALLS;
    def.capacity_hint = (int32_t)n;
    carom_world *w = NULL;
    char why[256];
    if (carom_world_create(&def, &w, why, sizeof why) != CAROM_OK) die("disks", why);
    for (long k = 0; k < n; k++) {
        carom_body_def b = carom_default_body_def();
        b.position = (carom_vec){-side / 2 + ((double)(k % per_row) + 0.5) * spacing,
                                 -side / 2 + ((double)(k / per_row) + 0.5) * spacing, 0.0};
        b.velocity = (carom_vec){carom_rng_normal(rng), carom_rng_normal(rng), 0.0};
        if (carom_world_add_body(w, &b, NULL) != CAROM_OK) die("disks", carom_world_message(w));
    }
    return w;
}

static int64_t set_accelerations(carom_world *w, long n, set_policy policy, carom_rng *rng)
{
    long count = policy == SET_ALL ? n : policy == SET_ONE_PERCENT ? (n + 99) / 100 : 0;
    for (long k = 0; k < count; k++) {
        long id = policy == SET_ALL ? k : (long)(carom_rng_uniform(rng) * (double)n);
        carom_vec a = {carom_rng_normal(rng), carom_rng_normal(rng), 0.0};
        if (carom_world_set_body_acceleration(w, (int32_t)id, a) != CAROM_OK)
            die("set", carom_world_message(w));
    }
    return count;
}

static int64_t run_windows(carom_world *w, long n, long windows, long first, set_policy policy,
                           carom_rng *rng)
{
    int64_t sets = 0;
    for (long k = first; k < first + windows; k++) {
        sets += set_accelerations(w, n, policy, rng);
        double end = (double)(k + 1) / 60.0;
        carom_status st = carom_world_advance(w, end - carom_world_time(w));
        if (st != CAROM_OK) die(carom_status_name(st), carom_world_message(w));
    }
    return sets;
}

static void bench_disks(long n, long windows, set_policy policy)
{
    static const char *names[] = {"disks-none", "disks-all", "disks-1%"};
    carom_rng rng = carom_rng_seed(2026);
    carom_world *w = build_disks(n, &rng);
    long warmup = windows / 5;
    run_windows(w, n, warmup, 0, policy, &rng);
    carom_stats before = carom_world_stats(w);
    double start = cpu_now();
    int64_t sets = run_windows(w, n, windows, warmup, policy, &rng);
    double seconds = cpu_now() - start;
    carom_stats after = carom_world_stats(w);
    figures f = {windows, seconds, after.events - before.events,
                 after.predictions - before.predictions, sets};
    print_row(names[policy], n, &f);
    carom_world_destroy(w);
}

/* Enough windows to measure, few enough for a 2-core machine. */
static long windows_for(const options *o, long n, set_policy policy)
{
    if (o->windows > 0) return o->windows;
    if (n <= 2000) return 600;
    return policy == SET_ALL ? 30 : 120;
}

/* ---- the command line ------------------------------------------------------------ */

static int parse_sizes(const char *text, options *o)
{
    o->n_count = 0;
    for (const char *p = text; *p && o->n_count < MAX_SIZES;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 10000000) return -1;
        o->n[o->n_count++] = v;
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    return o->n_count > 0 ? 0 : -1;
}

static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){{1000, 100000}, 2, 0, 1, 1};
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (!strcmp(a, "--quick"))
            o->n[0] = 1000, o->n_count = 1, o->windows = 120;
        else if (!strcmp(a, "--n") && v && parse_sizes(v, o) == 0)
            k++;
        else if (!strcmp(a, "--windows") && v && (o->windows = strtol(v, NULL, 10)) > 0)
            k++;
        else if (!strcmp(a, "--only") && v && !strcmp(v, "airhockey"))
            o->disks = 0, k++;
        else if (!strcmp(a, "--only") && v && !strcmp(v, "disks"))
            o->airhockey = 0, k++;
        else
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_options(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: carom_windows [--quick] [--n N[,N...]] [--windows W] [--only "
                        "airhockey|disks]\n");
        return 2;
    }
    print_header();
    if (o.airhockey) {
        long windows = o.windows > 0 ? o.windows : 30000;
        bench_airhockey(2, windows);
        bench_airhockey(4, windows);
    }
    if (o.disks)
        for (int s = 0; s < o.n_count; s++)
            for (int p = SET_NONE; p <= SET_ONE_PERCENT; p++)
                bench_disks(o.n[s], windows_for(&o, o.n[s], (set_policy)p), (set_policy)p);
    return 0;
}
