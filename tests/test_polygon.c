/* test_polygon.c — src/polygon.c against closed forms and brute force:
 * area, centroid and second moment (box, regular polygons, triangles, a fine
 * grid quadrature of random polygons); validation messages; distances between
 * thousands of random placements of random convex polygons and disks against
 * two independent brute forces (dense sampling of both boundaries, and the
 * support-function scan over sampled directions, which gives the signed
 * distance, penetration included); closest points on the boundaries; the
 * normal's direction by moving the second shape along it; face–face contact
 * points; and the approach-rate bound against finite differences. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "polygon.h"

static const double PI = 3.14159265358979323846;

/* ---------------------------------------------------------------- helpers */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static double uniform(double lo, double hi)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

/* A random convex polygon: sorted angles on a circle, then stretched and
 * sheared (an affine image of a convex polygon is convex). */
static int random_convex(double xy[][2], int max_count)
{
    int n = 3 + (int)uniform(0, max_count - 2.0);
    if (n > max_count) n = max_count;
    double angle[POLYGON_MAX_VERTICES];
    for (;;) {
        for (int k = 0; k < n; k++) angle[k] = uniform(0, 2 * PI);
        for (int i = 1; i < n; i++) /* insertion sort */
            for (int j = i; j > 0 && angle[j] < angle[j - 1]; j--) {
                double t = angle[j];
                angle[j] = angle[j - 1];
                angle[j - 1] = t;
            }
        int ok = 1;
        for (int k = 0; k < n; k++) {
            double gap = (k + 1 < n ? angle[k + 1] : angle[0] + 2 * PI) - angle[k];
            if (gap < 0.05 || gap > PI - 0.05) ok = 0;
        }
        if (ok) break;
    }
    double sx = uniform(0.3, 1.2), sy = uniform(0.3, 1.2), shear = uniform(-0.5, 0.5);
    double ox = uniform(-3, 3), oy = uniform(-3, 3);
    for (int k = 0; k < n; k++) {
        double x = cos(angle[k]), y = sin(angle[k]);
        xy[k][0] = ox + sx * x + shear * y;
        xy[k][1] = oy + sy * y;
    }
    return n;
}

static void random_shape(polygon_shape *s)
{
    double xy[12][2];
    int n = random_convex(xy, 12);
    char why[256];
    carom_status st = polygon_from_vertices((const double(*)[2])xy, n, s, NULL, why, sizeof why);
    CHECK_MSG(st == CAROM_OK, "%s", why);
}

static double point_segment(const double p[2], const double a[2], const double b[2])
{
    /* by dense bisection-free formula written out again, independent of polygon.c's */
    double ex = b[0] - a[0], ey = b[1] - a[1];
    double t = ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / (ex * ex + ey * ey);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(p[0] - (a[0] + t * ex), p[1] - (a[1] + t * ey));
}

static double point_boundary(const double p[2], double v[][2], int n)
{
    double best = INFINITY;
    for (int k = 0; k < n; k++) best = fmin(best, point_segment(p, v[k], v[(k + 1) % n]));
    return best;
}

/* Boundary samples every spacing or closer (vertices included). */
static int sample_boundary(double v[][2], int n, double spacing, double out[][2], int max_out)
{
    int m = 0;
    for (int k = 0; k < n; k++) {
        const double *a = v[k], *b = v[(k + 1) % n];
        int steps = (int)ceil(hypot(b[0] - a[0], b[1] - a[1]) / spacing);
        for (int s = 0; s < steps && m < max_out; s++, m++) {
            double t = (double)s / steps;
            out[m][0] = a[0] + t * (b[0] - a[0]);
            out[m][1] = a[1] + t * (b[1] - a[1]);
        }
    }
    return m;
}

/* The signed distance by duality: max over sampled unit u of
 * min_b u.b - max_a u.a (for a disk b: its centre and radius). */
static double direction_scan(double va[][2], int na, double vb[][2], int nb, double disk_radius,
                             int directions)
{
    double best = -INFINITY;
    for (int k = 0; k < directions; k++) {
        double u[2] = {cos(2 * PI * k / directions), sin(2 * PI * k / directions)};
        double max_a = -INFINITY, min_b = INFINITY;
        for (int i = 0; i < na; i++) max_a = fmax(max_a, u[0] * va[i][0] + u[1] * va[i][1]);
        for (int j = 0; j < nb; j++) min_b = fmin(min_b, u[0] * vb[j][0] + u[1] * vb[j][1]);
        best = fmax(best, min_b - disk_radius - max_a);
    }
    return best;
}

static double pair_scan(double sa[][2], int ma, double sb[][2], int mb)
{
    double best = INFINITY;
    for (int i = 0; i < ma; i++)
        for (int j = 0; j < mb; j++) {
            double dx = sa[i][0] - sb[j][0], dy = sa[i][1] - sb[j][1];
            best = fmin(best, dx * dx + dy * dy);
        }
    return sqrt(best);
}

/* ---------------------------------------------------------------- shape record */

static void test_box_closed_forms(void)
{
    polygon_shape s;
    char why[256];
    for (int trial = 0; trial < 50; trial++) {
        double w = uniform(0.01, 10), h = uniform(0.01, 10);
        CHECK(polygon_from_box(w, h, &s, why, sizeof why) == CAROM_OK);
        CHECK_EQ_INT(s.count, 4);
        CHECK_NEAR(s.area, w * h, 1e-13 * w * h);
        CHECK_NEAR(s.second_moment / s.area, (w * w + h * h) / 12, 1e-13 * (w * w + h * h));
        CHECK_NEAR(s.radius, hypot(w, h) / 2, 1e-13 * (w + h));
        for (int k = 0; k < 4; k++) { /* centred, counter-clockwise, outward unit normals */
            CHECK_NEAR(fabs(s.vertex[k][0]), w / 2, 1e-13 * w);
            CHECK_NEAR(fabs(s.vertex[k][1]), h / 2, 1e-13 * h);
            const double *n = s.normal[k], *a = s.vertex[k], *b = s.vertex[(k + 1) % 4];
            CHECK_NEAR(hypot(n[0], n[1]), 1, 1e-15);
            CHECK(n[0] * (a[0] + b[0]) + n[1] * (a[1] + b[1]) > 0);
        }
    }
}

static void test_regular_closed_forms(void)
{
    polygon_shape s;
    char why[256];
    for (int n = 3; n <= POLYGON_MAX_VERTICES; n++) {
        double r = uniform(0.1, 5);
        CHECK(polygon_regular(n, r, &s, why, sizeof why) == CAROM_OK);
        double area = n * r * r * sin(2 * PI / n) / 2;
        CHECK_NEAR(s.area, area, 1e-13 * area);
        CHECK_NEAR(s.second_moment, area * r * r * (2 + cos(2 * PI / n)) / 6, 1e-12 * area * r * r);
        CHECK_NEAR(s.radius, r, 1e-13 * r);
        CHECK_NEAR(s.vertex[0][1], s.vertex[1][1], 1e-13 * r); /* a flat bottom edge */
        CHECK(s.vertex[0][1] < 0 && s.vertex[1][0] > s.vertex[0][0]);
    }
    /* a large regular polygon tends to the disk: J = pi r^4 / 2 */
    CHECK(polygon_regular(POLYGON_MAX_VERTICES, 1, &s, why, sizeof why) == CAROM_OK);
    CHECK_NEAR(s.second_moment, PI / 2, 0.01);
}

static void test_triangle_closed_forms(void)
{
    for (int trial = 0; trial < 200; trial++) {
        double xy[3][2], cx = 0, cy = 0;
        for (int k = 0; k < 3; k++) xy[k][0] = uniform(-5, 5), xy[k][1] = uniform(-5, 5);
        double twice = (xy[1][0] - xy[0][0]) * (xy[2][1] - xy[0][1]) -
                       (xy[1][1] - xy[0][1]) * (xy[2][0] - xy[0][0]);
        if (fabs(twice) < 0.5) continue;
        for (int k = 0; k < 3; k++) cx += xy[k][0] / 3, cy += xy[k][1] / 3;
        double sides2 = 0;
        for (int k = 0; k < 3; k++)
            sides2 += pow(xy[k][0] - xy[(k + 1) % 3][0], 2) + pow(xy[k][1] - xy[(k + 1) % 3][1], 2);
        polygon_shape s;
        double centroid[2];
        char why[256];
        CHECK_MSG(polygon_from_vertices((const double(*)[2])xy, 3, &s, centroid, why, sizeof why) ==
                      CAROM_OK,
                  "%s", why);
        CHECK_NEAR(s.area, fabs(twice) / 2, 1e-12);
        CHECK_NEAR(centroid[0], cx, 1e-12);
        CHECK_NEAR(centroid[1], cy, 1e-12);
        CHECK_NEAR(s.second_moment, s.area * sides2 / 36, 1e-10);
        /* vertex 0 kept first in either winding, the others in counter-clockwise order */
        CHECK_NEAR(s.vertex[0][0] + centroid[0], xy[0][0], 1e-12);
        int second = twice > 0 ? 1 : 2;
        CHECK_NEAR(s.vertex[1][0] + centroid[0], xy[second][0], 1e-12);
        CHECK_NEAR(s.vertex[1][1] + centroid[1], xy[second][1], 1e-12);
    }
}

/* Area, centroid and polar moment of random polygons by midpoint quadrature
 * on a 1200 x 1200 grid, inside tested against the caller's vertices. */
static void test_grid_quadrature(void)
{
    for (int trial = 0; trial < 6; trial++) {
        double xy[12][2];
        int n = random_convex(xy, 12);
        if (trial % 2) /* clockwise input */
            for (int i = 0, j = n - 1; i < j; i++, j--) {
                double t0 = xy[i][0], t1 = xy[i][1];
                xy[i][0] = xy[j][0], xy[i][1] = xy[j][1], xy[j][0] = t0, xy[j][1] = t1;
            }
        double orient = 0;
        for (int k = 0; k < n; k++)
            orient += xy[k][0] * xy[(k + 1) % n][1] - xy[k][1] * xy[(k + 1) % n][0];
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (int k = 0; k < n; k++)
            for (int c = 0; c < 2; c++)
                lo[c] = fmin(lo[c], xy[k][c]), hi[c] = fmax(hi[c], xy[k][c]);
        const int g = 1200;
        double hx = (hi[0] - lo[0]) / g, hy = (hi[1] - lo[1]) / g;
        double area = 0, mx = 0, my = 0, mxx = 0;
        for (int i = 0; i < g; i++)
            for (int j = 0; j < g; j++) {
                double x = lo[0] + (i + 0.5) * hx, y = lo[1] + (j + 0.5) * hy;
                int inside = 1;
                for (int k = 0; k < n && inside; k++) {
                    const double *a = xy[k], *b = xy[(k + 1) % n];
                    double c = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
                    if (c * orient < 0) inside = 0;
                }
                if (!inside) continue;
                double dA = hx * hy;
                area += dA, mx += x * dA, my += y * dA, mxx += (x * x + y * y) * dA;
            }
        double cx = mx / area, cy = my / area, moment = mxx - area * (cx * cx + cy * cy);
        polygon_shape s;
        double centroid[2];
        char why[256];
        CHECK_MSG(polygon_from_vertices((const double(*)[2])xy, n, &s, centroid, why, sizeof why) ==
                      CAROM_OK,
                  "%s", why);
        CHECK_NEAR(s.area, area, 2e-3 * area);
        CHECK_NEAR(centroid[0], cx, 2e-3);
        CHECK_NEAR(centroid[1], cy, 2e-3);
        CHECK_NEAR(s.second_moment, moment, 3e-3 * moment);
    }
}

/* ---------------------------------------------------------------- validation */

static void expect_refusal(const double (*xy)[2], int n, const char *words1, const char *words2)
{
    polygon_shape s;
    memset(&s, 0x5a, sizeof s);
    polygon_shape before = s;
    char why[256] = "";
    carom_status st = polygon_from_vertices(xy, n, &s, NULL, why, sizeof why);
    CHECK_MSG(st == CAROM_INVALID_ARGUMENT, "%d vertices accepted", n);
    CHECK_MSG(strstr(why, words1) != NULL, "message \"%s\" lacks \"%s\"", why, words1);
    CHECK_MSG(strstr(why, words2) != NULL, "message \"%s\" lacks \"%s\"", why, words2);
    CHECK(memcmp(&s, &before, sizeof s) == 0); /* nothing half-written */
}

static void test_validation(void)
{
    const double two[2][2] = {{0, 0}, {1, 0}};
    expect_refusal(two, 2, "at least 3 vertices", "got 2");
    static double many[POLYGON_MAX_VERTICES + 1][2];
    for (int k = 0; k <= POLYGON_MAX_VERTICES; k++)
        many[k][0] = cos(2 * PI * k / (POLYGON_MAX_VERTICES + 1)),
        many[k][1] = sin(2 * PI * k / (POLYGON_MAX_VERTICES + 1));
    expect_refusal((const double(*)[2])many, POLYGON_MAX_VERTICES + 1, "at most 64", "got 65");
    const double nan_vertex[3][2] = {{0, 0}, {1, 0}, {NAN, 1}};
    expect_refusal(nan_vertex, 3, "vertex 2", "finite");
    const double inf_vertex[4][2] = {{0, 0}, {INFINITY, 0}, {1, 1}, {0, 1}};
    expect_refusal(inf_vertex, 4, "vertex 1", "finite");
    const double repeated[4][2] = {{0, 0}, {1, 0}, {1, 0}, {0, 1}};
    expect_refusal(repeated, 4, "vertex 2 repeats vertex 1", "must differ");
    const double wrap_repeat[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}};
    expect_refusal(wrap_repeat, 4, "vertex 0 repeats vertex 3", "must differ");
    const double collinear[4][2] = {{0, 0}, {1, 0}, {2, 0}, {1, 1}};
    expect_refusal(collinear, 4, "vertex 1 lies on the line through vertices 0 and 2", "collinear");
    const double dent[5][2] = {{0, 0}, {2, 0}, {2, 2}, {1, 0.5}, {0, 2}};
    expect_refusal(dent, 5, "vertex 3 turns clockwise", "convex");
    const double dent_cw[5][2] = {{0, 2}, {1, 0.5}, {2, 2}, {2, 0}, {0, 0}};
    expect_refusal(dent_cw, 5, "vertex 1 turns counter-clockwise", "convex");
    const double bowtie[4][2] = {{0, 0}, {1, 1}, {1, 0}, {0, 1}};
    expect_refusal(bowtie, 4, "vertex", "convex");
    double star[5][2];
    for (int k = 0; k < 5; k++) star[k][0] = cos(4 * PI * k / 5), star[k][1] = sin(4 * PI * k / 5);
    expect_refusal((const double(*)[2])star, 5, "full circle at vertex 2", "more than once");
    const double line[3][2] = {{0, 0}, {1, 1}, {2, 2}};
    expect_refusal(line, 3, "vertex", "collinear");
    const double spike[3][2] = {{0, 0}, {1, 0}, {0.5, 0}};
    expect_refusal(spike, 3, "vertex", "collinear");
    polygon_shape s;
    char why[256] = "";
    CHECK(polygon_from_box(0, 1, &s, why, sizeof why) == CAROM_INVALID_ARGUMENT &&
          strstr(why, "width"));
    CHECK(polygon_from_box(1, NAN, &s, why, sizeof why) == CAROM_INVALID_ARGUMENT &&
          strstr(why, "height"));
    CHECK(polygon_regular(2, 1, &s, why, sizeof why) == CAROM_INVALID_ARGUMENT &&
          strstr(why, "got 2"));
    CHECK(polygon_regular(65, 1, &s, why, sizeof why) == CAROM_INVALID_ARGUMENT &&
          strstr(why, "got 65"));
    CHECK(polygon_regular(6, -1, &s, why, sizeof why) == CAROM_INVALID_ARGUMENT &&
          strstr(why, "radius"));
    CHECK(polygon_from_vertices(NULL, 3, &s, NULL, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    const double tiny[3][2] = {{0, 0}, {1e-200, 0}, {0, 1e-200}};
    CHECK(polygon_from_vertices(tiny, 3, &s, NULL, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "area") || strstr(why, "collinear"), "%s",
              why); /* the turn underflows to zero */
    const double huge[3][2] = {{0, 0}, {1e300, 0}, {0, 1e300}};
    CHECK(polygon_from_vertices(huge, 3, &s, NULL, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "vertex 1") && strstr(why, "too far"), "%s", why);
    CHECK(polygon_from_box(1e-100, 1e-100, &s, why, sizeof why) ==
          CAROM_INVALID_ARGUMENT); /* J underflows */
    CHECK_MSG(strstr(why, "second moment"), "%s", why);
    CHECK(polygon_from_box(1e-70, 1e-70, &s, why, sizeof why) == CAROM_OK);
    const double ok[3][2] = {{0, 0}, {1, 0}, {0, 1}};
    CHECK(polygon_from_vertices(ok, 3, &s, NULL, NULL, 0) == CAROM_OK);
}

/* ---------------------------------------------------------------- placement */

static void test_placement(void)
{
    polygon_shape s;
    CHECK(polygon_from_box(2, 1, &s, NULL, 0) == CAROM_OK);
    polygon_pose pose = {3, -1, PI / 2};
    double w[4][2];
    polygon_place(&s, &pose, w);
    /* vertex 0 (-1, -0.5) turned a quarter: (0.5, -1), then moved */
    CHECK_NEAR(w[0][0], 3.5, 1e-15);
    CHECK_NEAR(w[0][1], -2, 1e-15);
    CHECK_NEAR(w[2][0], 2.5, 1e-15);
    CHECK_NEAR(w[2][1], 0, 1e-15);
}

/* ---------------------------------------------------------------- distances */

static polygon_pose random_pose(double spread)
{
    polygon_pose p = {uniform(-spread, spread), uniform(-spread, spread), uniform(-PI, PI)};
    return p;
}

static double pair_distance(const polygon_shape *a, const polygon_pose *pa, const polygon_shape *b,
                            polygon_pose pb, double dx, double dy)
{
    polygon_contact c;
    pb.x += dx, pb.y += dy;
    polygon_distance(a, pa, b, &pb, &c);
    return c.distance;
}

enum { SAMPLES = 4000 };

static void test_polygon_distance_brute_force(void)
{
    static double sa[SAMPLES][2], sb[SAMPLES][2];
    const double spacing = 0.01;
    int separated = 0, overlapping = 0, worst_pair = 0;
    double worst_pair_gap = 0, worst_scan_gap = 0;
    for (int trial = 0; trial < 2000; trial++) {
        polygon_shape a, b;
        random_shape(&a);
        random_shape(&b);
        polygon_pose pa = random_pose(1.5), pb = random_pose(1.5);
        polygon_contact c;
        polygon_distance(&a, &pa, &b, &pb, &c);
        double wa[POLYGON_MAX_VERTICES][2], wb[POLYGON_MAX_VERTICES][2];
        polygon_place(&a, &pa, wa);
        polygon_place(&b, &pb, wb);
        const int directions = 4000;
        double scan = direction_scan(wa, a.count, wb, b.count, 0, directions);
        double reach = hypot(pa.x - pb.x, pa.y - pb.y) + a.radius + b.radius;
        CHECK_MSG(c.distance >= scan - 1e-12, "trial %d: %.17g below the scan's %.17g", trial,
                  c.distance, scan);
        CHECK_MSG(c.distance <= scan + reach * PI / directions + 1e-12,
                  "trial %d: %.17g, scan %.17g", trial, c.distance, scan);
        worst_scan_gap = fmax(worst_scan_gap, c.distance - scan);
        CHECK_NEAR(hypot(c.normal[0], c.normal[1]), 1, 1e-14);
        CHECK_NEAR(c.point_b[0] - c.point_a[0], c.distance * c.normal[0], 1e-12);
        CHECK_NEAR(c.point_b[1] - c.point_a[1], c.distance * c.normal[1], 1e-12);
        /* the same pair the other way round: the same distance, the opposite normal */
        polygon_contact r;
        polygon_distance(&b, &pb, &a, &pa, &r);
        CHECK_NEAR(r.distance, c.distance, 1e-14);
        if (fabs(c.distance) > 1e-9) {
            CHECK_NEAR(r.normal[0], -c.normal[0], 1e-9);
            CHECK_NEAR(r.normal[1], -c.normal[1], 1e-9);
        }
        /* the normal from a to b: moving b along it opens the gap at rate 1 */
        const double step = 1e-6;
        double opened = pair_distance(&a, &pa, &b, pb, step * c.normal[0], step * c.normal[1]);
        double closed = pair_distance(&a, &pa, &b, pb, -step * c.normal[0], -step * c.normal[1]);
        CHECK_MSG(fabs(opened - c.distance - step) < 1e-10,
                  "trial %d: moved out by %g, distance %.17g -> %.17g", trial, step, c.distance,
                  opened);
        CHECK_MSG(fabs(c.distance - closed - step) < 1e-10,
                  "trial %d: moved in by %g, distance %.17g -> %.17g", trial, step, c.distance,
                  closed);
        if (c.distance > 0) {
            separated++;
            CHECK_MSG(point_boundary(c.point_a, wa, a.count) < 1e-12, "trial %d: point_a off a",
                      trial);
            CHECK_MSG(point_boundary(c.point_b, wb, b.count) < 1e-12, "trial %d: point_b off b",
                      trial);
            CHECK_NEAR(hypot(c.point_b[0] - c.point_a[0], c.point_b[1] - c.point_a[1]), c.distance,
                       1e-13);
            int ma = sample_boundary(wa, a.count, spacing, sa, SAMPLES);
            int mb = sample_boundary(wb, b.count, spacing, sb, SAMPLES);
            double pair = pair_scan(sa, ma, sb, mb);
            CHECK_MSG(c.distance <= pair + 1e-12 && pair - c.distance <= spacing,
                      "trial %d: %.17g, pairs %.17g", trial, c.distance, pair);
            worst_pair_gap = fmax(worst_pair_gap, pair - c.distance);
            worst_pair = trial;
        } else {
            overlapping++;
        }
    }
    (void)worst_pair;
    CHECK(separated > 300 && overlapping > 300);
    printf("  polygon pairs: %d separated, %d overlapping; sampled pairs exceed by <= %.2e, "
           "direction scan by <= %.2e\n",
           separated, overlapping, worst_pair_gap, worst_scan_gap);
}

static double disk_distance(const polygon_shape *a, const polygon_pose *pa, const double centre[2],
                            double radius, double dx, double dy)
{
    polygon_contact c;
    double moved[2] = {centre[0] + dx, centre[1] + dy};
    polygon_disk_distance(a, pa, moved, radius, &c);
    return c.distance;
}

static void test_disk_distance_brute_force(void)
{
    static double sa[SAMPLES][2];
    const double spacing = 0.004;
    int separated = 0, overlapping = 0, inside = 0;
    for (int trial = 0; trial < 4000; trial++) {
        polygon_shape a;
        random_shape(&a);
        polygon_pose pa = random_pose(1.5);
        double centre[2] = {uniform(-2.5, 2.5), uniform(-2.5, 2.5)},
               radius = trial % 7 ? uniform(0, 0.8) : 0;
        polygon_contact c;
        polygon_disk_distance(&a, &pa, centre, radius, &c);
        double wa[POLYGON_MAX_VERTICES][2];
        polygon_place(&a, &pa, wa);
        double centre_as_vertex[1][2] = {{centre[0], centre[1]}};
        const int directions = 4000;
        double scan = direction_scan(wa, a.count, centre_as_vertex, 1, radius, directions);
        double reach = hypot(pa.x - centre[0], pa.y - centre[1]) + a.radius + radius;
        CHECK_MSG(c.distance >= scan - 1e-12 &&
                      c.distance <= scan + reach * PI / directions + 1e-12,
                  "trial %d: %.17g, scan %.17g", trial, c.distance, scan);
        CHECK_NEAR(hypot(c.normal[0], c.normal[1]), 1, 1e-14);
        CHECK_NEAR(c.point_b[0] - c.point_a[0], c.distance * c.normal[0], 1e-12);
        CHECK_NEAR(c.point_b[1] - c.point_a[1], c.distance * c.normal[1], 1e-12);
        CHECK_NEAR(hypot(c.point_b[0] - centre[0], c.point_b[1] - centre[1]), radius, 1e-12);
        const double step = 1e-6;
        CHECK_MSG(
            fabs(disk_distance(&a, &pa, centre, radius, step * c.normal[0], step * c.normal[1]) -
                 c.distance - step) < 1e-10,
            "trial %d: the normal does not point from the polygon to the disk", trial);
        double d_centre = point_boundary(centre, wa, a.count);
        if (c.distance > -radius) { /* the centre outside: the point on a is on its boundary */
            CHECK_MSG(point_boundary(c.point_a, wa, a.count) < 1e-12, "trial %d: point_a off a",
                      trial);
        } else {
            inside++;
        }
        /* independent: the least distance over boundary samples, minus the radius (centre outside),
         * or minus that plus the radius (inside) */
        int ma = sample_boundary(wa, a.count, spacing, sa, SAMPLES);
        double least = INFINITY;
        for (int i = 0; i < ma; i++)
            least = fmin(least, hypot(sa[i][0] - centre[0], sa[i][1] - centre[1]));
        CHECK_MSG(fabs(least - d_centre) <= spacing, "trial %d: sampling", trial);
        double expected = c.distance > -radius ? least - radius : -least - radius;
        CHECK_MSG(fabs(c.distance - expected) <= spacing, "trial %d: %.17g, samples %.17g", trial,
                  c.distance, expected);
        if (c.distance > 0)
            separated++;
        else
            overlapping++;
    }
    CHECK(separated > 500 && overlapping > 500 && inside > 100);
    printf("  disks: %d separated, %d overlapping (%d centres inside)\n", separated, overlapping,
           inside);
}

/* ---------------------------------------------------------------- features */

static void test_face_to_face(void)
{
    polygon_shape floor_box, box;
    CHECK(polygon_from_box(2, 1, &floor_box, NULL, 0) == CAROM_OK);
    CHECK(polygon_from_box(1, 1, &box, NULL, 0) == CAROM_OK);
    polygon_pose below = {0, 0, 0};
    const double gaps[3] = {0.25, 1e-9, -0.01};
    for (int g = 0; g < 3; g++) {
        polygon_pose above = {0.3, 1 + gaps[g], 0};
        polygon_contact c;
        polygon_distance(&floor_box, &below, &box, &above, &c);
        CHECK_EQ_INT(c.feature, POLYGON_EDGE_EDGE);
        CHECK_NEAR(c.distance, gaps[g], 1e-15);
        CHECK_NEAR(c.normal[0], 0, 1e-15);
        CHECK_NEAR(c.normal[1], 1, 1e-15);
        CHECK_NEAR(c.point[0], 0.3, 1e-15); /* the middle of the overlap [-0.2, 0.8] */
        CHECK_NEAR(c.point[1], 0.5 + gaps[g] / 2, 1e-15);
        CHECK_NEAR(fmin(c.face_from[0], c.face_to[0]), -0.2, 1e-15);
        CHECK_NEAR(fmax(c.face_from[0], c.face_to[0]), 0.8, 1e-15);
        /* hanging over the edge: the overlap [0.4, 1] */
        above.x = 0.9;
        polygon_distance(&floor_box, &below, &box, &above, &c);
        CHECK_EQ_INT(c.feature, POLYGON_EDGE_EDGE);
        CHECK_NEAR(c.point[0], 0.7, 1e-15);
        /* the same seen from the top box: its bottom face, normal down */
        polygon_distance(&box, &above, &floor_box, &below, &c);
        CHECK_EQ_INT(c.feature, POLYGON_EDGE_EDGE);
        CHECK_NEAR(c.normal[1], -1, 1e-15);
        CHECK_NEAR(c.point[0], 0.7, 1e-15);
    }
    /* within the parallel tolerance: still edge–edge; beyond: a vertex on the face */
    polygon_pose tilted = {0.3, 1.1, 1e-12};
    polygon_contact c;
    polygon_distance(&floor_box, &below, &box, &tilted, &c);
    CHECK_EQ_INT(c.feature, POLYGON_EDGE_EDGE);
    tilted.angle = 1e-6;
    polygon_distance(&floor_box, &below, &box, &tilted, &c);
    CHECK_EQ_INT(c.feature, POLYGON_EDGE_VERTEX);
    CHECK_EQ_INT(c.feature_a, 2); /* the floor box's top edge, from vertex 2 (1, 0.5) to 3 */
    /* corner to corner: vertex–vertex */
    polygon_pose corner = {1.5 + 0.1, 1.1, 0};
    polygon_distance(&floor_box, &below, &box, &corner, &c);
    CHECK_EQ_INT(c.feature, POLYGON_VERTEX_VERTEX);
    CHECK_NEAR(c.distance, hypot(0.1, 0.1), 1e-15);
    CHECK_EQ_INT(c.feature_a, 2);
    CHECK_EQ_INT(c.feature_b, 0);
    /* two hexagons face to face at any common angle: the middle of the shared face */
    polygon_shape hex;
    CHECK(polygon_regular(6, 1, &hex, NULL, 0) == CAROM_OK);
    for (int trial = 0; trial < 100; trial++) {
        double theta = uniform(-PI, PI), gap = uniform(-0.1, 0.3), slide = uniform(-0.4, 0.4);
        double apothem = cos(PI / 6), u[2] = {-sin(theta), cos(theta)},
               t[2] = {cos(theta), sin(theta)};
        polygon_pose p1 = {uniform(-2, 2), uniform(-2, 2), theta};
        polygon_pose p2 = {p1.x + (2 * apothem + gap) * u[0] + slide * t[0],
                           p1.y + (2 * apothem + gap) * u[1] + slide * t[1], theta};
        polygon_distance(&hex, &p1, &hex, &p2, &c);
        CHECK_EQ_INT(c.feature, POLYGON_EDGE_EDGE);
        CHECK_NEAR(c.distance, gap, 1e-12);
        double mid[2] = {p1.x + (apothem + gap / 2) * u[0] + slide / 2 * t[0],
                         p1.y + (apothem + gap / 2) * u[1] + slide / 2 * t[1]};
        CHECK_NEAR(c.point[0], mid[0], 1e-12);
        CHECK_NEAR(c.point[1], mid[1], 1e-12);
        CHECK_NEAR(hypot(c.face_to[0] - c.face_from[0], c.face_to[1] - c.face_from[1]),
                   1 - fabs(slide), 1e-12);
    }
    /* a disk against a face: edge–vertex with the edge's normal; against a corner: vertex–vertex */
    double centre[2] = {0.2, 0.5 + 0.3 + 0.1};
    polygon_disk_distance(&floor_box, &below, centre, 0.3, &c);
    CHECK_EQ_INT(c.feature, POLYGON_EDGE_VERTEX);
    CHECK_NEAR(c.distance, 0.1, 1e-15);
    CHECK_NEAR(c.point[0], 0.2, 1e-15);
    CHECK_NEAR(c.point[1], 0.55, 1e-15);
    double corner_centre[2] = {1 + 0.3, 0.5 + 0.4};
    polygon_disk_distance(&floor_box, &below, corner_centre, 0.25, &c);
    CHECK_EQ_INT(c.feature, POLYGON_VERTEX_VERTEX);
    CHECK_EQ_INT(c.feature_a, 2);
    CHECK_NEAR(c.distance, 0.25, 1e-15);
    CHECK_NEAR(c.normal[0], 0.6, 1e-15);
}

/* ---------------------------------------------------------------- the rate bound */

static polygon_pose moved(polygon_pose p, const double v[2], double w, double t)
{
    polygon_pose q = {p.x + v[0] * t, p.y + v[1] * t, p.angle + w * t};
    return q;
}

static void test_rate_bound(void)
{
    double tightest = 0;
    for (int trial = 0; trial < 2000; trial++) {
        polygon_shape a, b;
        random_shape(&a);
        random_shape(&b);
        polygon_pose pa = random_pose(1.5), pb = random_pose(1.5);
        double v1[2] = {uniform(-1, 1), uniform(-1, 1)}, v2[2] = {uniform(-1, 1), uniform(-1, 1)};
        double scale = trial % 3 == 0 ? 0 : trial % 3 == 1 ? 1 : 20; /* none, some, mostly spin */
        double w1 = scale * uniform(-1, 1), w2 = scale * uniform(-1, 1);
        double bound = polygon_approach_rate_bound(v1, w1, a.radius, v2, w2, b.radius);
        CHECK_NEAR(bound,
                   hypot(v1[0] - v2[0], v1[1] - v2[1]) + fabs(w1) * a.radius + fabs(w2) * b.radius,
                   1e-14);
        polygon_contact c0, c1;
        polygon_distance(&a, &pa, &b, &pb, &c0);
        for (int k = 1; k <= 3; k++) {
            double h = pow(10, -k - 1);
            polygon_pose qa = moved(pa, v1, w1, h), qb = moved(pb, v2, w2, h);
            polygon_distance(&a, &qa, &b, &qb, &c1);
            double fall = (c0.distance - c1.distance) / h;
            CHECK_MSG(fall <= bound * (1 + 1e-9) + 1e-9, "trial %d: falls at %g, bound %g", trial,
                      fall, bound);
            if (bound > 0) tightest = fmax(tightest, fall / bound);
        }
        /* a disk: the polygon's spin counts, the disk's does not */
        double centre[2] = {pb.x, pb.y}, radius = 0.4;
        double disk_bound = polygon_approach_rate_bound(v1, w1, a.radius, v2, 0, 0);
        double d0 = disk_distance(&a, &pa, centre, radius, 0, 0);
        polygon_pose qa = moved(pa, v1, w1, 1e-3);
        double d1 = disk_distance(&a, &qa, centre, radius, v2[0] * 1e-3, v2[1] * 1e-3);
        CHECK_MSG((d0 - d1) / 1e-3 <= disk_bound * (1 + 1e-9) + 1e-9, "trial %d: disk", trial);
    }
    /* the bound is nearly reached (so a bound without the spin terms would fail) */
    CHECK_MSG(tightest > 0.9, "tightest fall / bound %g", tightest);
    printf("  rate bound: the steepest sampled fall is %.3f of the bound\n", tightest);
}

/* ---------------------------------------------------------------- rounding */

/* The least vertex–edge distance of placed shapes in long double (64-bit
 * mantissa on x86-64): a reference for the rounding of the double code. */
static long double precise_distance(const polygon_shape *a, const polygon_pose *pa,
                                    const polygon_shape *b, const polygon_pose *pb)
{
    long double wa[POLYGON_MAX_VERTICES][2], wb[POLYGON_MAX_VERTICES][2];
    const polygon_shape *shapes[2] = {a, b};
    const polygon_pose *poses[2] = {pa, pb};
    long double(*worlds[2])[2] = {wa, wb};
    for (int s = 0; s < 2; s++) {
        long double c = cosl(poses[s]->angle), sn = sinl(poses[s]->angle);
        for (int k = 0; k < shapes[s]->count; k++) {
            long double x = shapes[s]->vertex[k][0], y = shapes[s]->vertex[k][1];
            worlds[s][k][0] = poses[s]->x + (c * x - sn * y);
            worlds[s][k][1] = poses[s]->y + (sn * x + c * y);
        }
    }
    long double best = INFINITY;
    for (int s = 0; s < 2; s++) {
        const polygon_shape *p = shapes[s], *q = shapes[1 - s];
        long double(*vp)[2] = worlds[s], (*vq)[2] = worlds[1 - s];
        for (int i = 0; i < p->count; i++)
            for (int j = 0; j < q->count; j++) {
                long double *e0 = vp[i], *e1 = vp[(i + 1) % p->count], *v = vq[j];
                long double ex = e1[0] - e0[0], ey = e1[1] - e0[1];
                long double t = ((v[0] - e0[0]) * ex + (v[1] - e0[1]) * ey) / (ex * ex + ey * ey);
                t = t < 0 ? 0 : t > 1 ? 1 : t;
                long double dx = v[0] - (e0[0] + t * ex), dy = v[1] - (e0[1] + t * ey);
                long double d = sqrtl(dx * dx + dy * dy);
                if (d < best) best = d;
            }
    }
    return best;
}

static void test_rounding(void)
{
    double worst = 0;
    int separated = 0;
    for (int trial = 0; trial < 3000; trial++) {
        polygon_shape a, b;
        random_shape(&a);
        random_shape(&b);
        polygon_pose pa = random_pose(3), pb = random_pose(3);
        polygon_contact c;
        polygon_distance(&a, &pa, &b, &pb, &c);
        if (!(c.distance > 0)) continue;
        separated++;
        double error = fabs((double)((long double)c.distance - precise_distance(&a, &pa, &b, &pb)));
        worst = fmax(worst, error);
    }
    CHECK(separated > 1000);
    /* coordinates up to about 5: a few ulps of 5 (8.9e-16 each) */
    CHECK_MSG(worst < 5e-15, "largest rounding error %.3g", worst);
    printf("  rounding: largest error %.2e against long double over %d separated pairs "
           "(coordinates <= ~5)\n",
           worst, separated);
}

/* ---------------------------------------------------------------- timing (figures, never a test)
 */

/* ns per query over 100000 queries, the least of 5 repeats (the machine is shared) */
static double time_queries(const polygon_shape *a, const polygon_shape *b, int disk,
                           double *checksum)
{
    enum { QUERIES = 100000 };
    double best = INFINITY;
    for (int repeat = 0; repeat < 5; repeat++) {
        clock_t start = clock();
        for (int q = 0; q < QUERIES; q++) {
            polygon_pose p1 = {0, 0, 0.001 * q}, p2 = {2.5 + 1e-6 * q, 0.3, -0.002 * q};
            double centre[2] = {p2.x, p2.y};
            polygon_contact c;
            if (disk)
                polygon_disk_distance(a, &p1, centre, 0.5, &c);
            else
                polygon_distance(a, &p1, b, &p2, &c);
            *checksum += c.distance;
        }
        best = fmin(best, 1e9 * (double)(clock() - start) / CLOCKS_PER_SEC / QUERIES);
    }
    return best;
}

static void print_timings(void)
{
    polygon_shape hex, box;
    if (polygon_regular(6, 1, &hex, NULL, 0) != CAROM_OK ||
        polygon_from_box(1, 2, &box, NULL, 0) != CAROM_OK)
        return;
    double sum = 0;
    double hex_ns = time_queries(&hex, &hex, 0, &sum), box_ns = time_queries(&box, &box, 0, &sum);
    double disk_ns = time_queries(&box, NULL, 1, &sum);
    printf("  timing (separated, turning): hexagon-hexagon %.0f ns, box-box %.0f ns, "
           "box-disk %.0f ns per distance query (checksum %.3f)\n",
           hex_ns, box_ns, disk_ns, sum);
}

int main(void)
{
    RUN(test_box_closed_forms);
    RUN(test_regular_closed_forms);
    RUN(test_triangle_closed_forms);
    RUN(test_grid_quadrature);
    RUN(test_validation);
    RUN(test_placement);
    RUN(test_polygon_distance_brute_force);
    RUN(test_disk_distance_brute_force);
    RUN(test_face_to_face);
    RUN(test_rate_bound);
    RUN(test_rounding);
    print_timings();
    return CHECK_SUMMARY();
}
