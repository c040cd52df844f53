/* test_web_views.c — the page's C views (web/src), natively: the starting
 * states, the pair grid against brute force, the frame stepper's missed
 * collisions on a pass-through worked by hand, the painted pixels against
 * a disk's area, the steering outline on the container's boundary, and the
 * player's half in air hockey. (test_wasm checks that the wasm build gives
 * the same bits; test_browser checks the page.)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "box_view.h"
#include "carom.h"
#include "check.h"
#include "hockey_view.h"
#include "paint.h"
#include "pair_grid.h"
#include "steer_view.h"
#include "web_place.h"

static void test_placement(void)
{
    enum { N = 777 };
    carom_body_def *b = malloc(N * sizeof *b);
    char why[256] = "";
    double width = 1.6, height = 1.0, r = web_max_radius(N, width, height);
    CHECK(web_place_disks(N, width, height, r, 0.3, 5, b, why, sizeof why) == CAROM_OK);
    int overlaps = 0, outside = 0, wrong_speed = 0;
    for (int i = 0; i < N; i++) {
        outside += fabs(b[i].position.x) > 0.5 * width - r || fabs(b[i].position.y) > 0.5 * height - r;
        wrong_speed += fabs(hypot(b[i].velocity.x, b[i].velocity.y) - 0.3) > 1e-15;
        for (int j = 0; j < i; j++)
            overlaps += hypot(b[i].position.x - b[j].position.x, b[i].position.y - b[j].position.y) < 2 * r;
    }
    CHECK_EQ_INT(overlaps, 0);
    CHECK_EQ_INT(outside, 0);
    CHECK_EQ_INT(wrong_speed, 0);
    CHECK(web_place_disks(N, width, height, 1.01 * r, 0.3, 5, b, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "too large for 777 disks") != NULL, "%s", why);
    CHECK(web_place_disks(0, width, height, r, 0.3, 5, b, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK(web_place_disks(N, width, height, r, NAN, 5, b, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    free(b);
}

typedef struct pair_tally {
    int *seen; /* n x n */
    int n;
} pair_tally;

static void tally(void *user, int32_t i, int32_t j)
{
    pair_tally *t = user;
    t->seen[i * t->n + j]++;
}

/* Every pair nearer than the reach is visited exactly once, i < j. */
static void test_pair_grid_against_brute_force(void)
{
    enum { N = 400 };
    double xy[2 * N], reach = 0.07;
    carom_rng rng = carom_rng_seed(3);
    for (int k = 0; k < N; k++) xy[2 * k] = 1.6 * carom_rng_uniform(&rng) - 0.8, xy[2 * k + 1] = carom_rng_uniform(&rng) - 0.5;
    pair_tally t = {calloc(N * N, sizeof(int)), N};
    pair_grid grid = {0};
    CHECK(pair_grid_visit_pairs(&grid, xy, N, 1.6, 1.0, reach, tally, &t) == 0);
    int missing = 0, twice = 0, wrong_order = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int near = i < j && hypot(xy[2 * i] - xy[2 * j], xy[2 * i + 1] - xy[2 * j + 1]) < reach;
            missing += near && t.seen[i * N + j] == 0;
            twice += t.seen[i * N + j] > 1;
            wrong_order += i >= j && t.seen[i * N + j] > 0;
        }
    CHECK_EQ_INT(missing, 0);
    CHECK_EQ_INT(twice, 0);
    CHECK_EQ_INT(wrong_order, 0);
    pair_grid_free(&grid);
    free(t.seen);
}

static carom_body_def disk(double x, double y, double vx, double vy, double r)
{
    carom_body_def b = carom_default_body_def();
    b.position = (carom_vec){x, y, 0}, b.velocity = (carom_vec){vx, vy, 0}, b.radius = r;
    return b;
}

/* Two disks of radius 0.01 meet nearly head on (0.005 apart sideways) at
 * relative speed 40: in one frame of 0.01 the gap of 0.2 closes by 0.4, so
 * the frame stepper sees them apart before and after and misses the
 * collision, while the exact engine bounces them (once). A third disk far
 * away is never involved. At relative speed 2 the stepper finds them
 * overlapping at a frame's end instead, and collides them there. */
static void test_missed_collision_worked_by_hand(void)
{
    carom_body_def b[3] = {disk(-0.1, 0.0, 20.0, 0.0, 0.01), disk(0.1, 0.005, -20.0, 0.0, 0.01),
                           disk(0.5, 0.3, 0.0, 0.1, 0.01)};
    box_view *v = box_create_with(b, 3, 1.6, 1.0, 20.0, 0.01);
    CHECK_EQ_INT(box_status(v), 0);
    CHECK_EQ_INT(box_advance(v, 0.015, 100), 0);
    const double *c = box_counters(v);
    CHECK_EQ_INT(c[BOX_FRAMES], 1);
    CHECK_EQ_INT(c[BOX_MISSED], 1);
    CHECK_EQ_INT(c[BOX_COLLISIONS_FRAME], 0);
    CHECK_EQ_INT(c[BOX_COLLISIONS_EXACT], 1);
    CHECK_EQ_INT(c[BOX_OVERLAPS_EXACT], 0);
    CHECK(box_exact_disks(v)[0] < -0.1);                /* bounced back */
    CHECK_NEAR(box_frame_disks(v)[0], 0.1, 1e-6);      /* passed through */
    box_destroy(v);
    b[0].velocity.x = 1.0, b[1].velocity.x = -1.0;
    v = box_create_with(b, 3, 1.6, 1.0, 1.0, 0.01);
    CHECK_EQ_INT(box_advance(v, 0.2, 100), 0);
    CHECK_EQ_INT(box_counters(v)[BOX_MISSED], 0);
    CHECK_EQ_INT(box_counters(v)[BOX_COLLISIONS_FRAME], 1);
    CHECK(box_counters(v)[BOX_PENETRATION_MOST] > 0.0);
    box_destroy(v);
}

static void test_box_view_energy_and_errors(void)
{
    box_view *v = box_create(2000, 1.6, 1.0, 0.008, 0.3, 0.02, 9);
    CHECK_EQ_INT(box_status(v), 0);
    for (int k = 1; k <= 20; k++) CHECK_EQ_INT(box_advance(v, 0.1 * k, 1000), 0);
    const double *c = box_counters(v);
    CHECK(c[BOX_COLLISIONS_EXACT] > 1000);
    CHECK_NEAR(c[BOX_ENERGY_EXACT] / c[BOX_ENERGY_START], 1.0, 1e-12);
    CHECK_EQ_INT(c[BOX_OVERLAPS_EXACT], 0);
    CHECK(c[BOX_OVERLAPS_MOST] > 0);
    CHECK_NEAR(c[BOX_TIME_FRAME], 2.0, 1e-12);
    CHECK(box_advance(v, NAN, 10) == CAROM_INVALID_ARGUMENT);
    box_destroy(v);
    v = box_create(100, 1.6, 1.0, 0.5, 0.3, 0.02, 9);
    CHECK(box_status(v) == CAROM_INVALID_ARGUMENT);
    CHECK_MSG(strstr(box_message(v), "too large") != NULL, "%s", box_message(v));
    CHECK(box_advance(v, 1.0, 10) == CAROM_INVALID_ARGUMENT);
    box_destroy(v);
    CHECK(box_status(v = box_create(100, 1.6, 1.0, 0.01, 0.3, 0.0, 9)) == CAROM_INVALID_ARGUMENT);
    box_destroy(v);
}

/* A disk of radius r pixels covers about pi r^2 pixels; its centre has its
 * colour and a far pixel stays white. */
static void test_painted_disk_area(void)
{
    paint_buffer b = {0};
    float disks[8] = {0.0f, 0.0f, 0.1f, 0.0f, 0.5f, 0.3f, 0.02f, -1.0f};
    const uint8_t *p = paint_disks(&b, disks, 2, 2.0, 1.0, 400, 200); /* 200 pixels a unit */
    CHECK(p != NULL);
    double covered = 0.0;
    for (int y = 0; y < 200; y++)
        for (int x = 0; x < 400; x++) covered += (255.0 - p[4 * (y * 400 + x) + 0]) / (255.0 - 0.16 * 255.0);
    CHECK_NEAR(covered, 3.14159265358979 * 20.0 * 20.0, 0.02 * 3.14159265358979 * 400.0);
    const uint8_t *centre = p + 4 * (100 * 400 + 200), *red = p + 4 * (40 * 400 + 300), *far = p + 4 * (10 * 400 + 10);
    CHECK(centre[0] == 41 && centre[1] == 84 && centre[2] == 191); /* 0.16, 0.33, 0.75 */
    CHECK(red[0] == 219 && red[1] == 26 && red[2] == 26);
    CHECK(far[0] == 255 && far[1] == 255 && far[2] == 255 && far[3] == 255);
    CHECK(paint_disks(&b, disks, 2, 2.0, 1.0, 0, 200) == NULL);
    paint_free(&b);
}

/* The outline's points lie on each container's boundary, by the closed
 * forms of the shapes steer_view.c makes (float rounding allowed): the box
 * 1.56 x 0.96, the circle of radius 0.48, the box with corners of radius
 * 0.3, the stadium of radius 0.45 about the segment x in [-0.33, 0.33]. */
static double boundary_distance(int32_t shape, double x, double y)
{
    double ax = fabs(x), ay = fabs(y);
    if (shape == STEER_CIRCLE) return hypot(x, y) - 0.48;
    if (shape == STEER_STADIUM) return hypot(ax > 0.33 ? ax - 0.33 : 0.0, y) - 0.45;
    double r = shape == STEER_ROUNDED ? 0.3 : 0.0, qx = ax - (0.78 - r), qy = ay - (0.48 - r);
    double outside = hypot(qx > 0 ? qx : 0, qy > 0 ? qy : 0), inside = qx > qy ? qx : qy;
    return outside + (inside < 0 ? inside : 0) - r;
}

static void test_steer_outline_on_the_boundary(void)
{
    for (int32_t shape = 0; shape < STEER_SHAPES; shape++) {
        steer_view *v = steer_create(shape, CAROM_FILTER_LINEAR, 2.0, 0.5);
        CHECK_EQ_INT(steer_status(v), 0);
        const float *outline = steer_outline(v, 64);
        double worst = outline ? 0.0 : INFINITY;
        for (int k = 0; outline && k < 64; k++)
            worst = fmax(worst, fabs(boundary_distance(shape, outline[2 * k], outline[2 * k + 1])));
        CHECK_MSG(worst < 1e-6, "shape %d: an outline point %.3g off the boundary", (int)shape, worst);
        CHECK(steer_outline(v, 2) == NULL);
        steer_destroy(v);
    }
    steer_view *v = steer_create(STEER_SHAPES, 1, 2.0, 0.5);
    CHECK(steer_status(v) == CAROM_INVALID_ARGUMENT);
    steer_destroy(v);
}

/* Pushed at a wall for 5 s, the filtered ball never touches it; unfiltered it does. */
static void test_steered_ball_and_the_wall(void)
{
    for (int law = CAROM_FILTER_OFF; law <= CAROM_FILTER_LINEAR + 1; law += 2) {
        steer_view *v = steer_create(STEER_BOX, law, 2.0, 0.5);
        for (int k = 0; k < 300; k++) CHECK_EQ_INT(steer_advance(v, 1.0, 0.3, 1.0 / 60.0), 0);
        const double *c = steer_counters(v);
        if (law == CAROM_FILTER_OFF) CHECK(c[STEER_WALL_HITS] > 0);
        else CHECK(c[STEER_WALL_HITS] == 0 && c[STEER_LEAST_CLEARANCE] > 0.0);
        steer_destroy(v);
    }
}

static void test_hockey_target_kept_on_the_player_half(void)
{
    hockey_view *v = hockey_create(1);
    CHECK_EQ_INT(hockey_status(v), 0);
    hockey_set_target(v, 5.0, 5.0);
    CHECK_EQ_INT(hockey_advance(v, 3.0, 1000), 0);
    const float *b = hockey_bodies(v);
    const double *c = hockey_counters(v);
    CHECK(b[3] < 0.0);                      /* the player's mallet stays on its half */
    CHECK(b[4] > 0.3);                      /* near the top side it was sent to */
    CHECK_NEAR(c[HOCKEY_TIME], 3.0, 0.02);  /* whole windows of 1/50 s */
    hockey_destroy(v);
}

int main(void)
{
    RUN(test_placement);
    RUN(test_pair_grid_against_brute_force);
    RUN(test_missed_collision_worked_by_hand);
    RUN(test_box_view_energy_and_errors);
    RUN(test_painted_disk_area);
    RUN(test_steer_outline_on_the_boundary);
    RUN(test_steered_ball_and_the_wall);
    RUN(test_hockey_target_kept_on_the_player_half);
    return CHECK_SUMMARY();
}
