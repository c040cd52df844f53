/* fluid.c — the fcc hard-sphere fluid of the design studies (fluid.h). */
#include "fluid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define PI 3.14159265358979323846

static carom_vec fcc_site(int cells, double side, int32_t k)
{
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    int b = k % 4, cell = k / 4, iz = cell % cells, iy = (cell / cells) % cells, ix = cell / (cells * cells);
    double a = side / cells, half = 0.5 * side;
    return (carom_vec){(ix + basis[b][0] + 0.25) * a - half, (iy + basis[b][1] + 0.25) * a - half,
                       (iz + basis[b][2] + 0.25) * a - half};
}

/* Gaussian velocities, less their mean, scaled to kT = 1 exactly. */
static void set_velocities(carom_vec *v, int32_t n, uint64_t seed)
{
    carom_rng rng = carom_rng_seed(seed);
    carom_vec mean = {0, 0, 0};
    for (int32_t k = 0; k < n; k++) {
        v[k] = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), carom_rng_normal(&rng)};
        mean.x += v[k].x / n, mean.y += v[k].y / n, mean.z += v[k].z / n;
    }
    double sum = 0.0;
    for (int32_t k = 0; k < n; k++) {
        v[k].x -= mean.x, v[k].y -= mean.y, v[k].z -= mean.z;
        sum += v[k].x * v[k].x + v[k].y * v[k].y + v[k].z * v[k].z;
    }
    double scale = sqrt(3.0 * n / sum);
    for (int32_t k = 0; k < n; k++) v[k].x *= scale, v[k].y *= scale, v[k].z *= scale;
}

carom_world *bench_fluid(long n, double density, uint64_t seed, double shell, carom_event_callback on_event,
                         void *user, int32_t *count, double *side, char *why, size_t size)
{
    int cells = (int)lround(cbrt(n / 4.0));
    if (cells < 2) cells = 2;
    int32_t bodies = 4 * cells * cells * cells;
    *side = cbrt(bodies * PI / (6.0 * density));
    carom_world_def def = carom_default_world_def();
    def.dim = 3;
    def.box = (carom_vec){*side, *side, *side};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = CAROM_PERIODIC;
    def.capacity_hint = bodies;
    def.neighbour_shell = shell;
    def.on_event = on_event;
    def.user = user;
    carom_world *w = NULL;
    char reason[256];
    carom_vec *v = malloc((size_t)bodies * sizeof *v);
    if (!v || carom_world_create(&def, &w, reason, sizeof reason) != CAROM_OK) {
        snprintf(why, size, "cannot make the world: %s", v ? reason : "out of memory");
        free(v);
        return NULL;
    }
    set_velocities(v, bodies, seed);
    for (int32_t k = 0; k < bodies; k++) {
        carom_body_def b = carom_default_body_def();
        b.radius = 0.5;
        b.position = fcc_site(cells, *side, k);
        b.velocity = v[k];
        if (carom_world_add_body(w, &b, NULL) != CAROM_OK) {
            snprintf(why, size, "body %d: %s", (int)k, carom_world_message(w));
            carom_world_destroy(w), free(v);
            return NULL;
        }
    }
    free(v);
    *count = bodies;
    return w;
}

int bench_run_pairs(carom_world *w, int64_t target, char *why, size_t size)
{
    for (carom_counts c = carom_world_counts(w); c.pair_events < target; c = carom_world_counts(w)) {
        carom_status st = carom_world_run(w, INFINITY, target - c.pair_events);
        if (st == CAROM_STOPPED) return 1;
        if (st != CAROM_OK) {
            snprintf(why, size, "carom_world_run: %s: %s", carom_status_name(st), carom_world_message(w));
            return -1;
        }
    }
    return 0;
}
