/* replay.c — the engine's own code run region by region (issue 16, point 3).
 * A design measurement that prints numbers, not a test.
 *
 * carom_regions (regions.c) models what a region-by-region order could gain
 * from a recorded list of collisions and a cost model. This program runs the
 * real thing: four identical worlds of carom_bench's fluid with cell lists;
 * one runs a stretch of pair collisions with carom_world_run (timed), one
 * records the same stretch event by event (run_record_next), and the other
 * two process the recorded events again (run_replay): in time order and
 * region by region (replay_region_order), each with the next events' records
 * asked for ahead, as the order is known. Both replays must end in the
 * recording world's state bit for bit (replay.h says why they can); the
 * program checks that and exits 1 if not.
 *
 * The replays leave out what an engine would add: a calendar (the replayed
 * world's is frozen) and the work of finding the order without knowing the
 * future (speculation and rollback, bench/README.md). So the region replay's
 * rate bounds what such an engine could reach, with carom's own kernels,
 * records and memory; and the time-order replay shows what the calendar and
 * the prefetcher's guesses cost today. A fifth world does that work: it runs
 * the stretch region by region as it goes, guessing and undoing
 * (speculate.c, with the same regions and windows), to the recording's last
 * event, and must end in its state too. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "carom.h"
#include "fluid.h"
#include "replay.h"
#include "speculate.h"
#include "world.h"

typedef struct options {
    double n, density, warmup, collisions, side, window, seed;
    int prefetch;
} options;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(FILE *to)
{
    fprintf(to, "usage: carom_replay [--n N] [--density ETA] [--warmup W] [--collisions C] [--side CELLS]\n"
                "                    [--window W] [--seed S] [--no-prefetch]\n"
                "  --n N           bodies (4 k^3 near N; default 100000)\n"
                "  --density ETA   packing fraction, 0 < ETA < 0.55 (default 0.30)\n"
                "  --warmup W      pair collisions a body before the stretch (default 1)\n"
                "  --collisions C  pair collisions a body in the stretch (default 2)\n"
                "  --side CELLS    a region's side in cells (default 16)\n"
                "  --window W      a window's length in pair collisions a body (default 0.3)\n"
                "  --seed S        velocity seed (default 42)\n"
                "  --no-prefetch   replay without asking for the next events' records ahead\n");
}

/* Each value option: its name, the least and most it takes, where it goes. */
static int parse(int argc, char **argv, options *o)
{
    *o = (options){100000, 0.30, 1.0, 2.0, 16, 0.3, 42, 1};
    static const struct {
        const char *name;
        double lo, hi;
        int whole;
        size_t at;
    } known[] = {{"--n", 32, 2e7, 1, offsetof(options, n)},
                 {"--density", 1e-3, 0.55, 0, offsetof(options, density)},
                 {"--warmup", 0, 100, 0, offsetof(options, warmup)},
                 {"--collisions", 1e-3, 16, 0, offsetof(options, collisions)},
                 {"--side", 1, 1e4, 1, offsetof(options, side)},
                 {"--window", 1e-4, 16, 0, offsetof(options, window)},
                 {"--seed", 0, 9e15, 1, offsetof(options, seed)}};
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--no-prefetch")) {
            o->prefetch = 0;
            continue;
        }
        if (!strcmp(argv[a], "--help")) return usage(stdout), 1;
        size_t k = 0;
        while (k < sizeof known / sizeof known[0] && strcmp(argv[a], known[k].name)) k++;
        if (k == sizeof known / sizeof known[0] || a + 1 == argc) {
            fprintf(stderr, "carom_replay: %s: %s\n", argv[a], a + 1 == argc ? "expected a value" : "unknown option");
            return usage(stderr), -1;
        }
        char *end = NULL;
        errno = 0;
        double v = strtod(argv[++a], &end);
        if (end == argv[a] || *end || errno || !(v >= known[k].lo && v <= known[k].hi) ||
            (known[k].whole && v != floor(v))) {
            fprintf(stderr, "carom_replay: %s: expected %s from %g to %g, got '%s'\n", known[k].name,
                    known[k].whole ? "a whole number" : "a number", known[k].lo, known[k].hi, argv[a]);
            return -1;
        }
        *(double *)((char *)o + known[k].at) = v;
    }
    if (o->density >= 0.55) return fprintf(stderr, "carom_replay: --density: expected below 0.55\n"), -1;
    return 0;
}

/* Runs w until it has had target pair collisions; 0, or -1 with a message. */
static int run_to(carom_world *w, int64_t target)
{
    char why[512] = "";
    if (bench_run_pairs(w, target, why, sizeof why) == 0) return 0;
    fprintf(stderr, "carom_replay: %s\n", why[0] ? why : "the run stopped early");
    return -1;
}

/* A fresh fluid warmed up; NULL after a message. */
static carom_world *warm_fluid(const options *o, int32_t *count)
{
    char why[512];
    double side;
    carom_world *w = bench_fluid(lround(o->n), o->density, (uint64_t)o->seed, -1.0, NULL, NULL, count, &side, why,
                                 sizeof why);
    if (!w) fprintf(stderr, "carom_replay: %s\n", why);
    else if (run_to(w, llround(o->warmup * *count)) != 0) carom_world_destroy(w), w = NULL;
    return w;
}

typedef struct recording {
    replay_event *events;
    int64_t count, room;
} recording;

/* Records events until w has had target pair collisions. */
static int record_to(carom_world *w, int64_t target, recording *r)
{
    while (carom_world_counts(w).pair_events < target) {
        if (r->count == r->room) {
            int64_t room = 2 * r->room + 4096;
            replay_event *grown = realloc(r->events, (size_t)room * sizeof *grown);
            if (!grown) return fprintf(stderr, "carom_replay: out of memory recording\n"), -1;
            r->events = grown, r->room = room;
        }
        carom_status st = run_record_next(w, &r->events[r->count++]);
        if (st != CAROM_OK) {
            fprintf(stderr, "carom_replay: recording: %s: %s\n", carom_status_name(st), carom_world_message(w));
            return -1;
        }
    }
    return 0;
}

/* Replays events into a fresh twin of the recording's start; the CPU
 * seconds, or -1 after a message. *differ: bodies unlike the recording's. */
static double replay_into(const options *o, const replay_event *events, int64_t count, const carom_world *recorded,
                          int64_t *differ)
{
    int32_t bodies;
    carom_world *w = warm_fluid(o, &bodies);
    if (!w) return -1;
    double start = cpu_now();
    carom_status st = run_replay(w, events, NULL, count, o->prefetch);
    double seconds = cpu_now() - start;
    if (st != CAROM_OK) fprintf(stderr, "carom_replay: replay: %s: %s\n", carom_status_name(st), carom_world_message(w));
    *differ = replay_differences(recorded, w);
    carom_world_destroy(w);
    return st == CAROM_OK ? seconds : -1;
}

/* Runs a fresh twin of the recording's start region by region with
 * speculation (speculate.h) to the recording's last event; the CPU seconds,
 * or -1 after a message. *differ: bodies unlike the recording's. */
static double speculate_into(const options *o, const recording *r, const carom_world *recorded, int64_t *differ,
                             speculate_stats *stats)
{
    int32_t bodies;
    carom_world *w = warm_fluid(o, &bodies);
    if (!w) return -1;
    double from = carom_world_time(w), to = r->count > 0 ? r->events[r->count - 1].time : from;
    double window = o->window / o->collisions * (to - from);
    double start = cpu_now();
    carom_status st = speculate_run(w, to, (int32_t)o->side, window, stats);
    double seconds = cpu_now() - start;
    if (st != CAROM_OK)
        fprintf(stderr, "carom_replay: speculation: %s: %s\n", carom_status_name(st), carom_world_message(w));
    *differ = replay_differences_by_id(recorded, w); /* sorted in memory between windows: slots may differ */
    carom_world_destroy(w);
    return st == CAROM_OK ? seconds : -1;
}

static void row(const char *what, double seconds, int64_t pairs, const char *away, const char *visit,
                const char *same)
{
    printf("%-34s %10.1f %8.3f %8s %10s %6s\n", what, 1e9 * seconds / (double)pairs, 1e-6 * (double)pairs / seconds,
           away, visit, same);
}

/* The recorded events in the region order (a copy, so that the replay reads
 * them in sequence, as an engine reads a region's own calendar). */
static replay_event *region_ordered(const options *o, const recording *r, const carom_world *w,
                                    replay_order_stats *stats)
{
    int64_t window = llround(o->window / o->collisions * (double)r->count);
    int64_t *order = malloc((size_t)(r->count + 1) * sizeof *order);
    replay_event *ordered = malloc((size_t)(r->count + 1) * sizeof *ordered);
    int failed = !order || !ordered ||
                 replay_region_order(r->events, r->count, w->grid.n, w->grid.periodic, (int32_t)o->side,
                                     window < 1 ? 1 : window, order, stats) != 0;
    for (int64_t k = 0; !failed && k < r->count; k++) ordered[k] = r->events[order[k]];
    free(order);
    if (failed) fprintf(stderr, "carom_replay: out of memory ordering the events\n"), free(ordered), ordered = NULL;
    return ordered;
}

static int study(const options *o)
{
    int32_t bodies;
    carom_world *timed = warm_fluid(o, &bodies), *recorded = timed ? warm_fluid(o, &bodies) : NULL;
    recording r = {NULL, 0, 0};
    if (!recorded) return carom_world_destroy(timed), 2;
    int64_t from = carom_world_counts(recorded).pair_events, pairs = llround(o->collisions * bodies);
    double start = cpu_now();
    int failed = run_to(timed, from + pairs) != 0;
    double production = cpu_now() - start;
    carom_world_destroy(timed);
    if (failed || record_to(recorded, from + pairs, &r) != 0) return carom_world_destroy(recorded), free(r.events), 2;
    pairs = carom_world_counts(recorded).pair_events - from;
    replay_order_stats stats;
    replay_event *ordered = region_ordered(o, &r, recorded, &stats);
    int64_t same_time = -1, same_region = -1;
    double in_time = ordered ? replay_into(o, r.events, r.count, recorded, &same_time) : -1;
    double by_region = in_time >= 0 ? replay_into(o, ordered, r.count, recorded, &same_region) : -1;
    int64_t same_speculated = -1;
    speculate_stats spec = {0};
    double speculated = by_region >= 0 ? speculate_into(o, &r, recorded, &same_speculated, &spec) : -1;
    const int32_t *g = recorded->grid.n;
    printf("carom_replay: N = %d, packing %.3f, %d x %d x %d cells, regions of %g^3 cells (%lld), windows of %g "
           "pair collisions a body, %s\n",
           (int)bodies, o->density, (int)g[0], (int)g[1], (int)g[2], o->side, (long long)stats.regions, o->window,
           o->prefetch ? "replays prefetching the next events" : "replays without prefetching");
    printf("stretch: %lld events, %lld pair collisions (%.3g a body) after %g a body\n", (long long)r.count,
           (long long)pairs, (double)pairs / bodies, o->warmup);
    printf("%-34s %10s %8s %8s %10s %6s\n", "order", "ns/pair", "M/s", "away", "ev/visit", "bits");
    char away[32], visit[32];
    snprintf(away, sizeof away, "%.4f", (double)stats.away / (double)r.count);
    snprintf(visit, sizeof visit, "%.1f", (double)r.count / (double)(stats.visits > 0 ? stats.visits : 1));
    row("time order, carom_world_run", production, pairs, "-", "-", "-");
    if (in_time >= 0) row("time order, replayed", in_time, pairs, "0", "-", same_time == 0 ? "same" : "DIFFER");
    if (by_region >= 0)
        row("region by region, replayed", by_region, pairs, away, visit, same_region == 0 ? "same" : "DIFFER");
    if (speculated >= 0) {
        row("region by region, speculating", speculated, pairs, "-", "-", same_speculated == 0 ? "same" : "DIFFER");
        printf("speculation: %lld events kept, %lld undone (%.3f executions an event), %lld windows, %lld sweeps, "
               "%lld run again in time order\n", (long long)spec.kept, (long long)spec.undone,
               (double)spec.executions / (double)(spec.kept > 0 ? spec.kept : 1), (long long)spec.windows,
               (long long)spec.sweeps, (long long)spec.fallbacks);
    }
    carom_world_destroy(recorded);
    free(r.events), free(ordered);
    if (in_time < 0 || by_region < 0 || speculated < 0) return 2;
    if (same_time != 0 || same_region != 0 || same_speculated != 0) {
        fprintf(stderr, "carom_replay: a replay ended in another state (bodies differing: %lld in time order, "
                        "%lld by region, %lld speculating)\n", (long long)same_time, (long long)same_region,
                (long long)same_speculated);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int parsed = parse(argc, argv, &o);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    return study(&o);
}
