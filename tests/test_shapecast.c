/* test_shapecast.c — conservative advancement (src/shapecast.c) against a
 * fine brute-force scan: random polygons and disks, placed, moving, spinning
 * (slowly and very fast) and accelerating at random; the scan measures the
 * exact distance (polygon.c) at many instants, with the motion written out
 * here independently. Checked: no instant before the returned time has an
 * overlap beyond the tolerance (nothing skipped), the returned time is no
 * later than the scan's first contact, the returned time is a contact (gap
 * within the tolerance, contact points approaching), and "no contact" is
 * never said of a pair the scan sees meet. Walls and a convex container the
 * same way. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "shapecast.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double uniform(double lo, double hi)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (double)(rng_state >> 11) * 0x1p-53;
}

/* A random convex polygon: a box, a regular polygon, or points at random
 * angles on a circle. */
static void random_shape(polygon_shape *shape)
{
    int kind = (int)uniform(0.0, 3.0);
    char why[200];
    carom_status st;
    if (kind == 0) {
        st = polygon_from_box(uniform(0.2, 1.5), uniform(0.2, 1.5), shape, why, sizeof why);
    } else if (kind == 1) {
        st = polygon_regular(3 + (int)uniform(0.0, 6.0), uniform(0.2, 0.9), shape, why, sizeof why);
    } else {
        int n = 3 + (int)uniform(0.0, 7.0);
        double xy[12][2], r = uniform(0.2, 0.9), step = 2.0 * 3.14159265358979 / n;
        for (int k = 0; k < n; k++) {
            double angle = step * (k + uniform(0.1, 0.9));
            xy[k][0] = r * cos(angle), xy[k][1] = r * sin(angle);
        }
        st = polygon_from_vertices((const double(*)[2])xy, n, shape, NULL, why, sizeof why);
        if (st != CAROM_OK) st = polygon_from_box(0.5, 0.3, shape, why, sizeof why);
    }
    if (st != CAROM_OK) fprintf(stderr, "shape refused: %s\n", why);
}

static void random_motion(shapecast_body *b, double spread, double speed, double spin, double accel)
{
    b->x[0] = uniform(-spread, spread), b->x[1] = uniform(-spread, spread);
    b->v[0] = uniform(-speed, speed), b->v[1] = uniform(-speed, speed);
    b->a[0] = accel * uniform(-1.0, 1.0), b->a[1] = accel * uniform(-1.0, 1.0);
    b->angle = uniform(-3.0, 3.0);
    b->omega = uniform(-spin, spin);
}

/* The reference motion, written out here. */
static polygon_pose pose_at(const shapecast_body *b, double s)
{
    polygon_pose p = {b->x[0] + b->v[0] * s + 0.5 * b->a[0] * s * s,
                      b->x[1] + b->v[1] * s + 0.5 * b->a[1] * s * s, b->angle + b->omega * s};
    return p;
}

static double reference_gap(const shapecast_body *a, const shapecast_body *b, double s)
{
    polygon_pose pa = pose_at(a, s), pb = pose_at(b, s);
    polygon_contact c;
    if (a->shape && b->shape)
        polygon_distance(a->shape, &pa, b->shape, &pb, &c);
    else if (a->shape)
        polygon_disk_distance(a->shape, &pa, (double[2]){pb.x, pb.y}, b->radius, &c);
    else
        polygon_disk_distance(b->shape, &pb, (double[2]){pa.x, pa.y}, a->radius, &c);
    return c.distance;
}

/* A body rebased to start at s (for a search that asked to be resumed). */
static shapecast_body rebased(const shapecast_body *b, double s)
{
    shapecast_body r = *b;
    polygon_pose p = pose_at(b, s);
    r.x[0] = p.x, r.x[1] = p.y, r.angle = p.angle;
    r.v[0] = b->v[0] + b->a[0] * s, r.v[1] = b->v[1] + b->a[1] * s;
    return r;
}

/* Pair search from 0 to horizon, resuming after each recheck. */
static double pair_time(const shapecast_body *a, const shapecast_body *b, double horizon,
                        int *rechecks)
{
    double base = 0.0;
    *rechecks = 0;
    for (;;) {
        shapecast_body ra = rebased(a, base), rb = rebased(b, base);
        double s;
        int kind = shapecast_pair(&ra, &rb, horizon - base, &s);
        if (kind == SHAPECAST_NONE) return INFINITY;
        if (kind == SHAPECAST_CONTACT) return base + s;
        ++*rechecks;
        CHECK(s > 0.0);
        if (!(s > 0.0) || *rechecks > 100000) return NAN;
        base += s;
    }
}

typedef struct tally {
    int cases, contacts, rechecks;
    double worst_overlap;
} tally;

static void check_pair_case(const shapecast_body *a, const shapecast_body *b, double horizon,
                            int samples, tally *t)
{
    double tol = shapecast_tolerance(a->radius + b->radius);
    if (reference_gap(a, b, 0.0) < 0.0) return; /* the scan starts apart */
    int rechecks;
    double found = pair_time(a, b, horizon, &rechecks);
    t->cases++;
    t->rechecks += rechecks;
    /* the scan's first contact */
    double h = horizon / samples, first = INFINITY;
    for (int k = 1; k <= samples; k++) {
        double s = k * h;
        if (s >= horizon) break;
        double g = reference_gap(a, b, s);
        if (s < found && g < -tol) {
            CHECK_MSG(0, "skipped: gap %.3g at s = %.9g before the found time %.9g", g, s, found);
            return;
        }
        if (s < found && -g > t->worst_overlap) t->worst_overlap = -g;
        if (g <= 0.0) {
            first = s;
            break;
        }
    }
    CHECK_MSG(!(found > first + h), "late: found %.12g, scan's first contact %.12g", found, first);
    if (!(found < INFINITY)) return;
    t->contacts++;
    /* a contact: within the tolerance, approaching */
    shapecast_body ra = rebased(a, found), rb = rebased(b, found);
    polygon_contact c;
    double speed, g = shapecast_pair_gap(&ra, &rb, 0.0, &c, &speed);
    CHECK_NEAR(g, reference_gap(a, b, found), 1e-9 * tol + 1e-12);
    CHECK_MSG(g <= tol && g >= -tol, "gap %.3g at the contact, tolerance %.3g", g, tol);
    CHECK(speed < 0.0);
    /* and just before it, finely: nothing deeper than the tolerance */
    double span = fmin(found, 100.0 * h);
    for (int k = 0; k < 2000; k++) {
        double s = found - span + span * k / 2000.0;
        double gk = reference_gap(a, b, s);
        CHECK_MSG(gk >= -tol, "skipped near the contact: gap %.3g at s = %.12g (contact %.12g)", gk,
                  s, found);
        if (gk < -tol) return;
    }
}

static void run_pairs(double spin, double accel, int disks, int cases, int samples,
                      const char *label)
{
    tally t = {0, 0, 0, 0.0};
    polygon_shape sa, sb;
    if (check_quick()) cases /= 4; /* the sanitizer pass */
    for (int n = 0; n < cases; n++) {
        random_shape(&sa);
        random_shape(&sb);
        shapecast_body a = {&sa, sa.radius, {0}, {0}, {0}, 0, 0},
                       b = {&sb, sb.radius, {0}, {0}, {0}, 0, 0};
        random_motion(&a, 1.5, 2.0, spin, accel);
        random_motion(&b, 1.5, 2.0, spin, accel);
        if (disks && n % 2) b.shape = NULL, b.radius = uniform(0.05, 0.6);
        if (disks && n % 4 == 1) { /* the disk first */
            shapecast_body swap = a;
            a = b, b = swap;
        }
        /* aim some at each other */
        if (n % 3 == 0) {
            b.v[0] = 0.8 * (a.x[0] - b.x[0]) + uniform(-0.3, 0.3);
            b.v[1] = 0.8 * (a.x[1] - b.x[1]) + uniform(-0.3, 0.3);
        }
        check_pair_case(&a, &b, 2.0, samples, &t);
    }
    printf("%s: %d cases, %d contacts, %d rechecks, deepest overlap before a found time %.3g\n",
           label, t.cases, t.contacts, t.rechecks, t.worst_overlap);
    CHECK(t.contacts > t.cases / 5);
}

static void test_polygon_pairs(void) { run_pairs(2.0, 0.0, 0, 300, 20000, "polygons, slow spin"); }
static void test_polygon_pairs_fast_spin(void)
{
    run_pairs(60.0, 0.0, 0, 200, 100000, "polygons, fast spin");
}
static void test_polygon_pairs_accelerated(void)
{
    run_pairs(5.0, 4.0, 0, 200, 20000, "polygons, accelerated");
}
static void test_polygon_disk_pairs(void)
{
    run_pairs(20.0, 2.0, 1, 300, 40000, "polygons and disks");
}

/* Two squares spinning in place, side by side: their corners sweep through
 * each other's reach at once; the first contact is where a corner reaches
 * the other's face, known in closed form for one square turning against a
 * fixed one: a unit square at (0, 0) turning from angle 0 at omega, a fixed
 * one whose left face is at x = c (c in (0.5, sqrt(0.5))): the corner's
 * reach 0.5 (cos theta + sin theta) = c first at theta = asin(c sqrt 2) - pi/4. */
static void test_spinning_square_closed_form(void)
{
    polygon_shape square;
    char why[100];
    polygon_from_box(1.0, 1.0, &square, why, sizeof why);
    for (int k = 0; k < 20; k++) {
        double c = 0.5 + 0.2 * (k + 0.5) / 20.0, omega = 0.5 + 40.0 * k;
        shapecast_body a = {&square, square.radius, {0.0, 0.0}, {0}, {0}, 0.0, omega};
        shapecast_body b = {&square, square.radius, {c + 0.5, 0.0}, {0}, {0}, 0.0, 0.0};
        double theta = asin(c * sqrt(2.0)) - 0.25 * 3.14159265358979323846;
        int rechecks;
        double found = pair_time(&a, &b, 10.0, &rechecks);
        double tol = shapecast_tolerance(2.0 * square.radius), corner_speed = omega * square.radius;
        /* within tol of contact, in time: tol over the corner's normal speed there (>= 0.1 omega)
         */
        CHECK_MSG(fabs(found - theta / omega) <= 2.0 * tol / (0.1 * omega),
                  "omega %g: found %.15g, closed form %.15g (rechecks %d, corner speed %g)", omega,
                  found, theta / omega, rechecks, corner_speed);
    }
}

/* Touching but separating (as right after a collision): not a contact now;
 * the other comes back (decelerated) onto the spinning square later. */
static void test_touching_and_separating(void)
{
    polygon_shape square;
    char why[100];
    polygon_from_box(1.0, 1.0, &square, why, sizeof why);
    shapecast_body a = {&square, square.radius, {0.0, 0.0}, {0}, {0}, 0.0, 3.0};
    /* every point of the touching faces opens at first (a's corners move at 1.5 along x) */
    shapecast_body b = {&square, square.radius, {1.0, 0.0}, {1.6, 0.0}, {-4.0, 0.0}, 0.0, 0.0};
    int rechecks;
    double found = pair_time(&a, &b, 5.0, &rechecks);
    CHECK_MSG(found > 0.05 && found < 1.0, "found %.17g", found);
    tally t = {0, 0, 0, 0.0};
    check_pair_case(&a, &b, 5.0, 100000, &t);
    CHECK_EQ_INT(t.contacts, 1);
}

/* Bounding circles (grown by the search's margin) just touching, closing
 * slowly: the jump to where they touch must land where the search goes on,
 * never a run of jumps an ulp long that ends in a recheck at no time at all
 * (found by bench/polygons.c: 10,000 hexagons jammed on rechecks). */
static void test_circles_just_touching(void)
{
    polygon_shape sa, sb;
    int stalls = 0;
    for (int n = 0; n < 3000; n++) {
        random_shape(&sa);
        random_shape(&sb);
        shapecast_body a = {&sa, sa.radius, {0}, {0}, {0}, 0, 0},
                       b = {&sb, sb.radius, {0}, {0}, {0}, 0, 0};
        random_motion(&a, 60.0, 1.0, 3.0,
                      0.0); /* far from the origin: coordinates round coarsely */
        random_motion(&b, 0.0, 1.0, 3.0, 0.0);
        double direction = uniform(0.0, 6.283), tol = shapecast_tolerance(sa.radius + sb.radius);
        double reach = (sa.radius + sb.radius + 2.0 * tol) * (1.0 + uniform(0.0, 1e-15));
        double radial = n % 2 ? 1e-3 : 1e-9, tangential = uniform(-1.0, 1.0);
        b.x[0] = a.x[0] + reach * cos(direction), b.x[1] = a.x[1] + reach * sin(direction);
        b.v[0] = a.v[0] - radial * cos(direction) + tangential * sin(direction);
        b.v[1] = a.v[1] - radial * sin(direction) - tangential * cos(direction);
        double s;
        if (shapecast_pair(&a, &b, 1.0, &s) == SHAPECAST_RECHECK && s < 1e-12) stalls++;
    }
    CHECK_EQ_INT(stalls, 0);
    /* the pair of hexagons the benchmark caught, bit for bit */
    const double hexagon[6][2] = {
        {0.5, 0.0},  {0.25, 0.4330127018922193},   {-0.25, 0.4330127018922193},
        {-0.5, 0.0}, {-0.25, -0.4330127018922193}, {0.25, -0.4330127018922193}};
    polygon_shape hex;
    char why[100];
    CHECK_EQ_INT(polygon_from_vertices(hexagon, 6, &hex, NULL, why, sizeof why), CAROM_OK);
    shapecast_body a = {&hex,
                        0.5,
                        {-0x1.160e113b9eb13p+5, -0x1.1c7231807f151p+6},
                        {-0x1.6f36d2bfaa3bcp+0, 0x1.fa1659800d627p-2},
                        {0.0, 0.0},
                        0x1.779090dfce02cp+2,
                        0x1.23a1a3f539a48p-1};
    shapecast_body b = {&hex,
                        0.5,
                        {-0x1.15edaf2590b61p+5, -0x1.187252463bbd1p+6},
                        {-0x1.a2c6d0e232e08p-4, -0x1.26bbb607bac98p+0},
                        {0.0, 0.0},
                        0x1.0b83321106db1p+0,
                        -0x1.2ada5ba939cd2p+2};
    double s;
    int kind = shapecast_pair(&a, &b, 0x1.2764e3ee59882p-2, &s);
    CHECK_MSG(kind != SHAPECAST_RECHECK || s > 1e-9, "kind %d at %.3g", kind, s);
}

/* ---- walls and a convex container ---------------------------------------- */

static double reference_wall_gap(const shapecast_body *b, const double n[2], double offset,
                                 double s)
{
    polygon_pose p = pose_at(b, s);
    double placed[POLYGON_MAX_VERTICES][2], high = -INFINITY;
    polygon_place(b->shape, &p, placed);
    for (int k = 0; k < b->shape->count; k++)
        high = fmax(high, n[0] * placed[k][0] + n[1] * placed[k][1]);
    return offset - high;
}

static void test_walls(void)
{
    polygon_shape shape;
    int cases = 0, contacts = 0;
    for (int n = 0; n < 400; n++) {
        random_shape(&shape);
        shapecast_body b = {&shape, shape.radius, {0}, {0}, {0}, 0, 0};
        random_motion(&b, 0.3, 3.0, n % 2 ? 50.0 : 3.0, n % 3 ? 0.0 : 5.0);
        double angle = uniform(0.0, 6.283), normal[2] = {cos(angle), sin(angle)},
               offset = uniform(1.0, 2.0);
        double tol = shapecast_tolerance(shape.radius), horizon = 2.0, s = 0.0, base = 0.0;
        if (reference_wall_gap(&b, normal, offset, 0.0) < 0.0)
            continue; /* starts through the wall */
        int kind;
        shapecast_body r = b;
        while ((kind = shapecast_wall(&r, normal, offset, horizon - base, &s)) == SHAPECAST_RECHECK)
            base += s, r = rebased(&b, base);
        double found = kind == SHAPECAST_CONTACT ? base + s : INFINITY;
        cases++;
        double first = INFINITY, h = horizon / 50000;
        for (int k = 1; k < 50000; k++) {
            double g = reference_wall_gap(&b, normal, offset, k * h);
            if (k * h < found)
                CHECK_MSG(g >= -tol, "wall skipped: gap %.3g at %.9g, found %.9g", g, k * h, found);
            if (g <= 0.0) {
                first = k * h;
                break;
            }
        }
        CHECK_MSG(!(found > first + h), "wall late: found %.12g, scan %.12g", found, first);
        if (found < INFINITY) {
            contacts++;
            double g = reference_wall_gap(&b, normal, offset, found);
            CHECK_MSG(fabs(g) <= tol, "wall gap at contact %.3g", g);
        }
    }
    CHECK(contacts > cases / 3);
}

static void test_flat_face_on_wall(void)
{
    polygon_shape box;
    char why[100];
    polygon_from_box(2.0, 1.0, &box, why, sizeof why);
    shapecast_body b = {&box, box.radius, {0.0, 0.0}, {0.0, -1.0}, {0.0, 0.0}, 0.0, 0.0};
    const double floor_normal[2] = {0.0, -1.0};
    double s, point[2], from[2], to[2], speed;
    CHECK_EQ_INT(shapecast_wall(&b, floor_normal, 2.5, 10.0, &s), SHAPECAST_CONTACT);
    CHECK_NEAR(s, 2.0, 1e-8);
    shapecast_wall_gap(&b, floor_normal, 2.5, s, point, from, to, &speed);
    CHECK_NEAR(point[0], 0.0, 1e-12); /* the middle of the bottom face */
    CHECK_NEAR(fabs(from[0] - to[0]), 2.0, 1e-12);
    CHECK_NEAR(speed, 1.0, 1e-12);
}

static void test_convex_container(void)
{
    carom_container_def def = carom_default_container_def();
    def.dim = 2;
    def.shape = CAROM_SHAPE_BALL;
    def.radius = 3.0;
    carom_container *ball = NULL;
    char why[200];
    CHECK_EQ_INT(carom_container_create(&def, &ball, why, sizeof why), CAROM_OK);
    CHECK(shapecast_container_is_convex(ball));
    polygon_shape shape;
    int contacts = 0;
    for (int n = 0; n < 200; n++) {
        random_shape(&shape);
        shapecast_body b = {&shape, shape.radius, {0}, {0}, {0}, 0, 0};
        random_motion(&b, 0.8, 3.0, n % 2 ? 40.0 : 2.0, n % 3 ? 0.0 : 4.0);
        double tol = shapecast_tolerance(shape.radius), s, base = 0.0, horizon = 3.0;
        int kind;
        shapecast_body r = b;
        while ((kind = shapecast_container(&r, ball, horizon - base, &s)) == SHAPECAST_RECHECK)
            base += s, r = rebased(&b, base);
        double found = kind == SHAPECAST_CONTACT ? base + s : INFINITY, first = INFINITY,
               h = horizon / 30000;
        for (int k = 1; k < 30000; k++) {
            polygon_pose p = pose_at(&b, k * h);
            double placed[POLYGON_MAX_VERTICES][2], g = INFINITY;
            polygon_place(&shape, &p, placed);
            for (int v = 0; v < shape.count; v++)
                g = fmin(g, 3.0 - hypot(placed[v][0], placed[v][1]));
            if (k * h < found)
                CHECK_MSG(g >= -tol, "container skipped: gap %.3g at %.9g", g, k * h);
            if (g <= 0.0) {
                first = k * h;
                break;
            }
        }
        CHECK_MSG(!(found > first + h), "container late: found %.12g, scan %.12g", found, first);
        contacts += found < INFINITY;
    }
    CHECK(contacts > 100);
    /* a union is not convex */
    carom_container_def u = carom_default_container_def();
    u.dim = 2;
    u.shape = CAROM_SHAPE_UNION;
    u.first = ball, u.second = ball;
    carom_container *both = NULL;
    CHECK_EQ_INT(carom_container_create(&u, &both, why, sizeof why), CAROM_OK);
    CHECK(!shapecast_container_is_convex(both));
    carom_container_destroy(both);
    carom_container_destroy(ball);
}

int main(void)
{
    RUN(test_spinning_square_closed_form);
    RUN(test_touching_and_separating);
    RUN(test_circles_just_touching);
    RUN(test_polygon_pairs);
    RUN(test_polygon_pairs_fast_spin);
    RUN(test_polygon_pairs_accelerated);
    RUN(test_polygon_disk_pairs);
    RUN(test_walls);
    RUN(test_flat_face_on_wall);
    RUN(test_convex_container);
    return CHECK_SUMMARY();
}
