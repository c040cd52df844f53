/* boundary.c — carom_bench_boundary: the cost of boundary_contact_time
 * (src/boundary.c), the time a body meets a container's boundary, per call,
 * for the bodies a world asks about: near the wall (clearance below 5% of
 * the container's size, a contact to find) and far from it (clearance above
 * 20%, asked with a horizon of a control window, 20 ms, which the far
 * rejection answers with one distance evaluation), with and without
 * acceleration, in a circle of radius 1, a convex hexagon of about that
 * size, a sphere, a 3D rounded box and a circle less an off-centre circle
 * (2D). Speeds up to 3, accelerations up to 20 (air-hockey sizes in units of
 * the table). Near bodies are asked with no horizon (INFINITY) or a cell's
 * (0.1). Each set of 4096 calls is timed 15 times and its best kept
 * (CLOCK_THREAD_CPUTIME_ID: the host's other work does not count). A program
 * that prints figures; it never fails on a slow machine.
 *
 * Usage: carom_bench_boundary [seed]
 */
#define _POSIX_C_SOURCE 200112L /* clock_gettime, CLOCK_THREAD_CPUTIME_ID */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "boundary.h"
#include "carom.h"

#define CASES 4096
#define PASSES 15

typedef struct query {
    double x[3], v[3], a[3], radius, horizon;
} query;

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

static double uniform(carom_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * carom_rng_uniform(rng);
}

static void random_vector(carom_rng *rng, int dim, double length, double out[3])
{
    double n2 = 0.0;
    out[0] = out[1] = out[2] = 0.0;
    for (int k = 0; k < dim; k++) out[k] = carom_rng_normal(rng), n2 += out[k] * out[k];
    for (int k = 0; k < dim; k++) out[k] *= length / sqrt(n2);
}

/* Bodies whose clearance lies in [lo, hi) of the size, placed by rejection. */
static void make_queries(const carom_container *c, int near, int accelerate, carom_rng *rng,
                         query *q)
{
    int dim = carom_container_dim(c);
    carom_vec lower, upper;
    carom_container_bounds(c, &lower, &upper);
    double low[3] = {lower.x, lower.y, lower.z}, high[3] = {upper.x, upper.y, upper.z};
    double size = fmax(high[0] - low[0], high[1] - low[1]);
    for (int i = 0; i < CASES; i++) {
        query *s = &q[i];
        s->radius = 0.03 * size;
        for (;;) {
            carom_vec p = {0, 0, 0};
            double *x = s->x;
            for (int k = 0; k < 3; k++) x[k] = k < dim ? uniform(rng, low[k], high[k]) : 0.0;
            p.x = x[0], p.y = x[1], p.z = x[2];
            double clearance = carom_container_distance(c, p, NULL) - s->radius;
            if (near ? (clearance >= 0.0 && clearance < 0.05 * size) : clearance >= 0.2 * size)
                break;
        }
        random_vector(rng, dim, uniform(rng, 0.1, 3.0), s->v);
        if (accelerate)
            random_vector(rng, dim, uniform(rng, 0.0, 20.0), s->a);
        else
            s->a[0] = s->a[1] = s->a[2] = 0.0;
        s->horizon = near ? (i % 2 ? INFINITY : 0.1) : 0.02;
    }
}

static double time_queries(const carom_container *c, const query *q, double *checksum,
                           long *contacts)
{
    double best = INFINITY;
    for (int pass = 0; pass < PASSES; pass++) {
        double sum = 0.0, start = now_ns();
        long found = 0;
        for (int i = 0; i < CASES; i++) {
            double t;
            boundary_contact_time(c, q[i].x, q[i].v, q[i].a, q[i].radius, q[i].horizon, &t);
            if (t < INFINITY) sum += t, found++;
        }
        best = fmin(best, now_ns() - start);
        *checksum = sum;
        *contacts = found;
    }
    return best / CASES;
}

static carom_container *make(carom_container_def *d)
{
    carom_container *c = NULL;
    char why[256];
    if (carom_container_create(d, &c, why, sizeof why) != CAROM_OK) {
        fprintf(stderr, "carom_bench_boundary: %s\n", why);
        exit(1);
    }
    return c;
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    carom_rng rng = carom_rng_seed(seed);
    static const carom_vec hexagon[6] = {{-0.8, -0.6, 0}, {0.6, -0.7, 0}, {1.0, 0.1, 0},
                                         {0.7, 0.8, 0},   {-0.4, 0.9, 0}, {-1.0, 0.2, 0}};
    carom_container_def circle = carom_default_container_def(),
                        polygon = carom_default_container_def();
    carom_container_def sphere = carom_default_container_def(),
                        rounded = carom_default_container_def();
    carom_container_def hole = carom_default_container_def(), ring = carom_default_container_def();
    polygon.shape = CAROM_SHAPE_POLYGON, polygon.vertices = hexagon, polygon.vertex_count = 6;
    sphere.dim = 3;
    rounded.shape = CAROM_SHAPE_ROUNDED_BOX, rounded.dim = 3, rounded.size = (carom_vec){2, 1.5, 1},
    rounded.radius = 0.2;
    hole.centre = (carom_vec){0.3, 0.1, 0}, hole.radius = 0.3;
    carom_container *shapes[5] = {make(&circle), make(&polygon), make(&sphere), make(&rounded),
                                  NULL};
    carom_container *hole_c = make(&hole);
    ring.shape = CAROM_SHAPE_DIFFERENCE, ring.first = shapes[0], ring.second = hole_c;
    shapes[4] = make(&ring);
    const char *names[5] = {"circle", "hexagon", "sphere", "rounded box 3D", "circle - circle"};
    static query q[CASES];
    printf("boundary_contact_time, ns per call (best of %d passes over %d bodies each)\n", PASSES,
           CASES);
    printf("%-16s %-6s %12s %12s %10s\n", "container", "bodies", "no accel", "accelerated",
           "contacts");
    for (int s = 0; s < 5; s++) {
        for (int near = 1; near >= 0; near--) {
            double ns[2], checksum;
            long contacts[2];
            for (int accelerate = 0; accelerate < 2; accelerate++) {
                make_queries(shapes[s], near, accelerate, &rng, q);
                ns[accelerate] = time_queries(shapes[s], q, &checksum, &contacts[accelerate]);
            }
            printf("%-16s %-6s %12.1f %12.1f %4ld, %4ld\n", names[s], near ? "near" : "far", ns[0],
                   ns[1], contacts[0], contacts[1]);
        }
    }
    for (int s = 0; s < 5; s++) carom_container_destroy(shapes[s]);
    carom_container_destroy(hole_c);
    return 0;
}
