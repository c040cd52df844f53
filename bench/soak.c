/* soak.c — long runs that look for what short tests cannot: carom_soak runs
 * one of three worlds for a given number of pair collisions and checks it
 * against brute force at intervals:
 *   fluid   3D hard spheres, packing fraction 0.40, periodic, elastic;
 *   walls   2D hard disks, packing fraction 0.50, in a box of walls, elastic;
 *   granular 2D inelastic disks (e = 0.8, walls 0.8) under gravity, periodic
 *           sideways: the TC model, resting on the floor, Zeno series.
 * Each check compares every pair (O(N^2), independent of the cell grid) for
 * overlaps beyond round-off, tests every number for NaN, and the energy:
 * conserved to 1e-9 relative when elastic; never rising (kinetic plus
 * potential) when inelastic. A program that prints figures and a verdict,
 * run by scripts/soak.sh; not a test of the suite (it takes hours).
 *
 * usage: carom_soak fluid|walls|granular COLLISIONS [CHECKS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "carom.h"

typedef struct soak_world {
    const char *name;
    int dim, side_count; /* bodies per axis on the starting lattice */
    double fraction;     /* packing fraction */
    int walls, gravity, inelastic;
} soak_world;

static const soak_world worlds[] = {
    {"fluid", 3, 16, 0.40, 0, 0, 0},
    {"walls", 2, 45, 0.50, 1, 0, 0},
    {"granular", 2, 32, 0.25, 1, 1, 1},
};

static const double pi = 3.14159265358979323846;

static double body_volume(int dim, double r) { return dim == 3 ? 4.0 / 3.0 * pi * r * r * r : pi * r * r; }

/* Bodies on a simple lattice filling the box at the packing fraction, with
 * Gaussian velocities (seeded, so every run is the same). */
static carom_world *build(const soak_world *s)
{
    int n = 1;
    for (int a = 0; a < s->dim; a++) n *= s->side_count;
    double side = pow(n * body_volume(s->dim, 0.5) / s->fraction, 1.0 / s->dim);
    carom_world_def def = carom_default_world_def();
    def.dim = s->dim;
    def.box = (carom_vec){side, side, side};
    for (int a = 0; a < 3; a++) def.boundary[a] = s->walls ? CAROM_WALLS : CAROM_PERIODIC;
    if (s->gravity) {
        def.boundary[0] = CAROM_PERIODIC;
        def.gravity = (carom_vec){0, -1, 0};
        def.box.y = 2.0 * side; /* room above the settled layer */
    }
    if (s->inelastic) def.restitution = def.wall_restitution = 0.8;
    def.capacity_hint = n;
    carom_world *w = NULL;
    char why[256];
    if (carom_world_create(&def, &w, why, sizeof why) != CAROM_OK) {
        fprintf(stderr, "carom_soak: %s\n", why);
        exit(1);
    }
    carom_rng rng = carom_rng_seed(2026);
    double a = side / s->side_count;
    for (int k = 0; k < n; k++) {
        carom_body_def b = carom_default_body_def();
        int i = k % s->side_count, j = (k / s->side_count) % s->side_count, l = k / (s->side_count * s->side_count);
        b.position = (carom_vec){-side / 2 + (i + 0.5) * a, -side / 2 + (j + 0.5) * a,
                                 s->dim == 3 ? -side / 2 + (l + 0.5) * a : 0.0};
        b.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), s->dim == 3 ? carom_rng_normal(&rng) : 0};
        if (carom_world_add_body(w, &b, NULL) != CAROM_OK) {
            fprintf(stderr, "carom_soak: %s\n", carom_world_message(w));
            exit(1);
        }
    }
    return w;
}

/* The deepest overlap over all pairs (nearest periodic image), by brute
 * force; NaN anywhere counts as a failure. */
static double deepest_overlap(const carom_world *w, int *nan_seen)
{
    carom_world_def def = carom_world_definition(w);
    const double side[3] = {def.box.x, def.box.y, def.box.z};
    int32_t n = carom_world_body_count(w);
    carom_body_state *s = malloc((size_t)n * sizeof *s);
    if (!s) return INFINITY;
    for (int32_t i = 0; i < n; i++) {
        carom_world_get_body(w, i, &s[i]);
        double sum = s[i].position.x + s[i].position.y + s[i].position.z + s[i].velocity.x + s[i].velocity.y +
                     s[i].velocity.z;
        if (!isfinite(sum)) *nan_seen = 1;
    }
    double worst = 0.0;
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = i + 1; j < n; j++) {
            double d[3] = {s[j].position.x - s[i].position.x, s[j].position.y - s[i].position.y,
                           s[j].position.z - s[i].position.z},
                   d2 = 0.0;
            for (int a = 0; a < def.dim; a++) {
                if (def.boundary[a] == CAROM_PERIODIC) d[a] -= side[a] * nearbyint(d[a] / side[a]);
                d2 += d[a] * d[a];
            }
            double overlap = s[i].radius + s[j].radius - sqrt(d2);
            if (overlap > worst) worst = overlap;
        }
    free(s);
    return worst;
}

/* Kinetic + rotational (a rough world passes energy to the spins) + potential. */
static double energy(const carom_world *w, int with_potential)
{
    carom_stats st = carom_world_stats(w);
    return st.kinetic_energy + st.rotational_energy + (with_potential ? st.potential_energy : 0.0);
}

int main(int argc, char **argv)
{
    const soak_world *s = NULL;
    for (size_t k = 0; argc >= 3 && k < sizeof worlds / sizeof worlds[0]; k++)
        if (strcmp(argv[1], worlds[k].name) == 0) s = &worlds[k];
    long long target = argc >= 3 ? atoll(argv[2]) : 0, checks = argc >= 4 ? atoll(argv[3]) : 100;
    if (!s || target <= 0 || checks <= 0) {
        fprintf(stderr, "usage: carom_soak fluid|walls|granular COLLISIONS [CHECKS]\n");
        return 2;
    }
    carom_world *w = build(s);
    int32_t n = carom_world_body_count(w);
    double e0 = energy(w, s->gravity), previous = e0, worst_overlap = 0.0, worst_drift = 0.0;
    int failed = 0, nan_seen = 0;
    clock_t start = clock();
    printf("soak %s: %d bodies, %lld pair collisions, %lld checks\n", s->name, (int)n, target, checks);
    for (long long k = 1; k <= checks && !failed; k++) {
        long long goal = target / checks * k;
        while (carom_world_stats(w).pair_events < goal) {
            carom_status st = carom_world_run(w, INFINITY, 20000);
            if (st != CAROM_OK) {
                printf("  FAILED at t = %.17g: %s\n", carom_world_time(w), carom_world_message(w));
                failed = 1;
                break;
            }
        }
        double overlap = deepest_overlap(w, &nan_seen), e = energy(w, s->gravity);
        double drift = s->inelastic ? (e - previous) / fabs(e0) : fabs(e - e0) / e0;
        worst_overlap = fmax(worst_overlap, overlap);
        worst_drift = fmax(worst_drift, drift);
        if (overlap > 1e-9 || nan_seen || drift > 1e-9) failed = 1;
        previous = e;
        carom_stats st = carom_world_stats(w);
        printf("  t = %-12.6g pair %-12lld events %-12lld overlap %-9.2e energy %s %-9.2e rest %lld%s\n", st.time,
               (long long)st.pair_events, (long long)st.events, overlap, s->inelastic ? "rise" : "drift", drift,
               (long long)st.rest_events, failed ? "  <- FAILED" : "");
        fflush(stdout);
    }
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    carom_stats st = carom_world_stats(w);
    printf("soak %s: %s after %lld pair collisions (%lld events, t = %.6g) in %.0f CPU s: deepest overlap %.2e, "
           "worst energy %s %.2e\n",
           s->name, failed ? "FAILED" : "ok", (long long)st.pair_events, (long long)st.events, st.time, seconds,
           worst_overlap, s->inelastic ? "rise" : "drift", worst_drift);
    carom_world_destroy(w);
    return failed;
}
