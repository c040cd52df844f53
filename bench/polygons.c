/* polygons.c — carom_bench_polygons: rotating convex polygons in a box with
 * walls (issue 14, item 6): collisions per CPU second and the largest overlap
 * ever seen, for boxes (2:1) and regular hexagons, at N = 1,000 and 10,000
 * and an area fraction of 0.3 (moderate density).
 *
 * Each case places the polygons on a square lattice (one bounding circle
 * apart, random orientations), gives them Maxwell-Boltzmann velocities and
 * spins (kT = 1, m = 1, I from the shape) and runs an unmeasured warm-up of
 * W collisions per body; then it times C more with
 * clock_gettime(CLOCK_PROCESS_CPUTIME_ID) around carom_world_run only. The
 * overlap is measured in a second, untimed run of the same world: at every
 * collision the two bodies' (or the body's and the wall's) exact signed
 * distance (src/polygon.c) from their world-frame vertices, divided by the
 * pair's tolerance CAROM_CONTACT_TOLERANCE (r1 + r2); a contact is where
 * conservative advancement leaves shapes deepest, since they only close in
 * on each other before it. Prints a Markdown table for the README.
 *
 * Usage: carom_bench_polygons [--n N] [--shape box|hexagon] [--density phi]
 *        [--warmup W] [--collisions C] [--seed S]
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "carom.h"
#include "polygon.h"

#define PI 3.14159265358979323846

typedef struct setup {
    long n;
    int hexagon;
    double density, warmup, collisions;
    uint64_t seed;
} setup;

static uint64_t rng;
static double uniform(void)
{
    rng += 0x9e3779b97f4a7c15ull; /* splitmix64 */
    uint64_t z = rng;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}
static double gaussian(void)
{
    return sqrt(-2.0 * log(1.0 - uniform())) * cos(2.0 * PI * uniform());
}

static int shape_of(int hexagon, carom_vec2 *v)
{
    if (!hexagon) {
        const carom_vec2 box[4] = {{-0.5, -0.25}, {0.5, -0.25}, {0.5, 0.25}, {-0.5, 0.25}};
        memcpy(v, box, sizeof box);
        return 4;
    }
    for (int k = 0; k < 6; k++)
        v[k] = (carom_vec2){0.5 * cos(PI * k / 3.0), 0.5 * sin(PI * k / 3.0)};
    return 6;
}

/* Area and bounding radius of the shape. */
static void measure_shape(const carom_vec2 *v, int n, double *area, double *radius)
{
    *area = 0.0, *radius = 0.0;
    for (int k = 0; k < n; k++) {
        const carom_vec2 a = v[k], b = v[(k + 1) % n];
        *area += 0.5 * (a.x * b.y - a.y * b.x);
        *radius = fmax(*radius, hypot(a.x, a.y));
    }
}

typedef struct overlap_watch {
    carom_world *w;
    double deepest; /* penetration over tolerance, the largest seen */
    int64_t contacts;
} overlap_watch;

static int placed_shape(const carom_world *w, int32_t id, polygon_shape *shape, polygon_pose *pose,
                        double *radius)
{
    carom_vec2 v[CAROM_POLYGON_MAX_VERTICES];
    int32_t n = 0;
    carom_body_state s;
    carom_world_get_body(w, id, &s);
    *radius = s.radius;
    carom_world_get_body_polygon(w, id, v, CAROM_POLYGON_MAX_VERTICES, &n);
    double xy[CAROM_POLYGON_MAX_VERTICES][2], centroid[2];
    for (int k = 0; k < n; k++) xy[k][0] = v[k].x, xy[k][1] = v[k].y;
    polygon_from_vertices((const double(*)[2])xy, n, shape, centroid, NULL, 0);
    *pose = (polygon_pose){centroid[0], centroid[1], 0.0};
    return n;
}

static int watch(void *user, const carom_event *e)
{
    overlap_watch *ow = user;
    polygon_shape a, b;
    polygon_pose pa, pb;
    double ra, rb, depth, tolerance;
    placed_shape(ow->w, e->i, &a, &pa, &ra);
    if (e->kind == CAROM_EVENT_PAIR) {
        placed_shape(ow->w, e->j, &b, &pb, &rb);
        polygon_contact c;
        polygon_distance(&a, &pa, &b, &pb, &c);
        depth = -c.distance, tolerance = CAROM_CONTACT_TOLERANCE * (ra + rb);
    } else if (e->kind == CAROM_EVENT_WALL) {
        carom_world_def def = carom_world_definition(ow->w);
        double half[2] = {0.5 * def.box.x, 0.5 * def.box.y}, placed[CAROM_POLYGON_MAX_VERTICES][2];
        polygon_place(&a, &pa, placed);
        depth = -INFINITY;
        for (int k = 0; k < a.count; k++)
            for (int axis = 0; axis < 2; axis++)
                depth = fmax(depth, fabs(placed[k][axis]) - half[axis]);
        tolerance = CAROM_CONTACT_TOLERANCE * ra;
    } else {
        return 0;
    }
    ow->deepest = fmax(ow->deepest, depth / tolerance);
    ow->contacts++;
    return 0;
}

static carom_world *make_world(const setup *s, overlap_watch *ow, double *side_out)
{
    carom_vec2 v[6];
    int count = shape_of(s->hexagon, v);
    double area, radius;
    measure_shape(v, count, &area, &radius);
    /* m = 1: a 1 x 0.5 box (w^2 + h^2) / 12; a regular hexagon of side a, 5 a^2 / 12 */
    double inertia = s->hexagon ? 5.0 * 0.25 / 12.0 : (1.0 + 0.25) / 12.0;
    double side = sqrt(s->n * area / s->density);
    long per_row = (long)ceil(sqrt((double)s->n));
    double spacing = side / per_row;
    if (spacing < 2.0 * radius * (1.0 + 1e-9)) {
        fprintf(stderr, "density %g too high for a lattice of bounding circles\n", s->density);
        return NULL;
    }
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){side, side, 0.0};
    for (int a = 0; a < 3; a++) def.boundary[a] = CAROM_WALLS;
    def.capacity_hint = (int32_t)s->n;
    if (ow) def.on_event = watch, def.user = ow;
    carom_world *w = NULL;
    char why[256];
    if (carom_world_create(&def, &w, why, sizeof why) != CAROM_OK) {
        fprintf(stderr, "world: %s\n", why);
        return NULL;
    }
    rng = s->seed;
    for (long k = 0; k < s->n; k++) {
        carom_body_def b = carom_default_body_def();
        b.polygon = v, b.polygon_vertices = count;
        b.position = (carom_vec){-0.5 * side + spacing * (k % per_row + 0.5),
                                 -0.5 * side + spacing * (k / per_row + 0.5), 0.0};
        b.velocity = (carom_vec){gaussian(), gaussian(), 0.0};
        b.angle = 2.0 * PI * uniform();
        b.angular_velocity = (carom_vec){0.0, 0.0, gaussian() / sqrt(inertia)};
        if (carom_world_add_body(w, &b, NULL) != CAROM_OK) {
            fprintf(stderr, "body %ld: %s\n", k, carom_world_message(w));
            carom_world_destroy(w);
            return NULL;
        }
    }
    if (ow) ow->w = w;
    *side_out = side;
    return w;
}

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int64_t collisions_of(const carom_world *w)
{
    carom_stats s = carom_world_stats(w);
    return s.pair_events + s.wall_events;
}

/* Runs w until `per_body` more collisions per body. */
static int run_collisions(carom_world *w, double per_body, long n)
{
    int64_t goal = collisions_of(w) + (int64_t)(per_body * n);
    while (collisions_of(w) < goal) {
        carom_status st = carom_world_run(w, INFINITY, goal - collisions_of(w));
        if (st != CAROM_OK) {
            fprintf(stderr, "run: %s\n", carom_world_message(w));
            return -1;
        }
    }
    return 0;
}

static int bench_case(const setup *s)
{
    double side;
    carom_world *w = make_world(s, NULL, &side);
    if (!w || run_collisions(w, s->warmup, s->n) != 0) return -1;
    carom_stats before = carom_world_stats(w);
    double t0 = cpu_seconds();
    if (run_collisions(w, s->collisions, s->n) != 0) return -1;
    double seconds = cpu_seconds() - t0;
    carom_stats after = carom_world_stats(w);
    carom_world_destroy(w);

    overlap_watch ow = {NULL, -INFINITY, 0};
    w = make_world(s, &ow, &side);
    if (!w || run_collisions(w, s->warmup + s->collisions, s->n) != 0) return -1;
    carom_world_destroy(w);

    int64_t pairs = after.pair_events - before.pair_events,
            walls = after.wall_events - before.wall_events;
    double predictions = (double)(after.predictions - before.predictions);
    printf("| %-7s | %6ld | %.2f | %9lld | %8lld | %6.2f | %10.0f | %8.3g | %.3g |\n",
           s->hexagon ? "hexagon" : "box", s->n, s->density, (long long)pairs, (long long)walls,
           seconds, (double)(pairs + walls) / seconds, predictions / (double)(pairs + walls),
           ow.deepest);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    setup s = {0, 0, 0.3, 5.0, 20.0, 42};
    long only_n = 0;
    int only_shape = -1;
    for (int k = 1; k + 1 < argc; k += 2) {
        if (!strcmp(argv[k], "--n"))
            only_n = atol(argv[k + 1]);
        else if (!strcmp(argv[k], "--shape"))
            only_shape = !strcmp(argv[k + 1], "hexagon");
        else if (!strcmp(argv[k], "--density"))
            s.density = atof(argv[k + 1]);
        else if (!strcmp(argv[k], "--warmup"))
            s.warmup = atof(argv[k + 1]);
        else if (!strcmp(argv[k], "--collisions"))
            s.collisions = atof(argv[k + 1]);
        else if (!strcmp(argv[k], "--seed"))
            s.seed = strtoull(argv[k + 1], NULL, 10);
        else {
            fprintf(stderr,
                    "carom_bench_polygons: unknown option %s (see the opening comment of "
                    "bench/polygons.c)\n",
                    argv[k]);
            return 2;
        }
    }
    printf("Rotating polygons in a box with walls, e = 1, mu = 0, kT = 1, seed %llu: %g collisions "
           "per body timed after %g of warm-up (CPU seconds of carom_world_run); overlap: the "
           "deepest penetration at any collision, in units of the contact tolerance (1e-9 of the "
           "pair's summed bounding radii; at most 0.625 promised, negative: never overlapped)\n\n",
           (unsigned long long)s.seed, s.collisions, s.warmup);
    printf("| shape   |      N | area fraction | pair collisions | wall hits | CPU s | "
           "collisions/s | predictions per collision | deepest overlap / tolerance |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    const long sizes[2] = {1000, 10000};
    for (int shape = 0; shape < 2; shape++) {
        if (only_shape >= 0 && shape != only_shape) continue;
        for (int k = 0; k < 2; k++) {
            if (only_n && sizes[k] != only_n) continue;
            s.n = sizes[k], s.hexagon = shape;
            if (bench_case(&s) != 0) return 1;
        }
    }
    if (only_n && only_n != 1000 && only_n != 10000) {
        s.n = only_n, s.hexagon = only_shape > 0;
        if (bench_case(&s) != 0) return 1;
    }
    return 0;
}
