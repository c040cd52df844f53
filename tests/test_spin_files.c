/* test_spin_files.c — spin and shape through the command's files (issue
 * 14): scenario groups with shape, orientation, angular_velocity and
 * inertia become bodies with exactly those (default inertias of the
 * shapes against closed forms, bounding radii); polygons are spaced by their bounding
 * circles; orientation: random is uniform and decided by the seed alone;
 * an extended XYZ frame of a rotating world carries orientation, omega and
 * (2D) angle, which read back bit for bit and restore a world from a
 * `file:` group to the same bits; a world without rotation writes no such
 * columns; malformed rotation columns are refused at their LINE:COL. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "place.h"
#include "scenario.h"
#include "xyz.h"

#define PI 3.14159265358979323846

/* ---- helpers ------------------------------------------------------------------- */

/* A fresh file under /tmp holding text (kind: a word for its name); the name goes to path. */
static void write_temp(char *path, size_t size, const char *kind, const char *text)
{
    snprintf(path, size, "/tmp/carom_spin_%s_XXXXXX", kind + 1);
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK_MSG(f != NULL, "cannot create %s", path);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* The world a scenario text makes (NULL, with the message checked, if it fails). */
static carom_world *world_from(const char *text)
{
    char path[64], error[1024] = "";
    write_temp(path, sizeof path, ".yaml", text);
    scenario s;
    carom_world *w = NULL;
    double box[3];
    if (scenario_load(path, &s, error, sizeof error) == 0) {
        if (place_build_world(&s, NULL, NULL, box, &w, error, sizeof error) != 0) w = NULL;
        scenario_free(&s);
    }
    CHECK_MSG(w != NULL, "%s", error);
    unlink(path);
    return w;
}

static carom_body_state state_of(const carom_world *w, int32_t id)
{
    carom_body_state b;
    memset(&b, 0, sizeof b);
    CHECK(carom_world_get_body(w, id, &b) == CAROM_OK);
    return b;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int same_quat_bits(carom_quat a, carom_quat b)
{
    return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z) && same_bits(a.w, b.w);
}

static int same_vec_bits(carom_vec a, carom_vec b)
{
    return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z);
}

/* ---- shapes and spins into bodies ----------------------------------------------- */

static void test_shapes_and_spins_become_bodies(void)
{
    carom_world *w = world_from("world: {dim: 2, box: 20, boundary: walls, tangential_restitution: 0.5,\n"
                                "        wall_tangential_restitution: -0.25, friction: 0.75}\n"
                                "bodies:\n"
                                "  - {count: 3, mass: 2, shape: {box: [1.5, 0.5]}, orientation: 0.25, "
                                "angular_velocity: -2, place: lattice}\n"
                                "  - {count: 4, mass: 3, shape: {regular: {sides: 6, radius: 0.5}}}\n"
                                "  - {count: 2, radius: 0.3, mass: 4, angular_velocity: 1, inertia: 3}\n");
    if (!w) return;
    carom_world_def def = carom_world_definition(w);
    CHECK(def.tangential_restitution == 0.5 && def.wall_tangential_restitution == -0.25 && def.friction == 0.75);
    CHECK_EQ_INT(carom_world_body_count(w), 9);
    for (int32_t id = 0; id < 3; id++) {
        carom_body_state b = state_of(w, id);
        CHECK(b.angle == 0.25 && b.angular_velocity.z == -2.0 && b.polygon_vertices == 4);
        CHECK_NEAR(b.inertia, 2.0 * (1.5 * 1.5 + 0.5 * 0.5) / 12.0, 1e-15); /* m (w^2 + h^2) / 12 */
    }
    for (int32_t id = 3; id < 7; id++) {
        carom_body_state b = state_of(w, id);
        CHECK(b.polygon_vertices == 6 && b.angle == 0.0 && b.angular_velocity.z == 0.0);
        CHECK_NEAR(b.radius, 0.5, 1e-15);
        /* a regular hexagon of circumradius R: m R^2 (1 + 2 cos^2(pi/6)) / 6 = 5 m R^2 / 12 */
        CHECK_NEAR(b.inertia, 5.0 * 3.0 * 0.25 / 12.0, 1e-15);
    }
    for (int32_t id = 7; id < 9; id++) {
        carom_body_state b = state_of(w, id);
        CHECK(b.polygon_vertices == 0 && b.radius == 0.3 && b.angular_velocity.z == 1.0 && b.inertia == 3.0);
    }
    /* placement kept every pair of bounding circles apart */
    for (int32_t i = 0; i < 9; i++)
        for (int32_t j = i + 1; j < 9; j++) {
            carom_body_state a = state_of(w, i), b = state_of(w, j);
            CHECK_MSG(hypot(a.position.x - b.position.x, a.position.y - b.position.y) >= a.radius + b.radius,
                      "bodies %d and %d overlap", (int)i, (int)j);
        }
    carom_world_destroy(w);
}

/* A group read from a file takes its shape and inertia from the scenario. */
static void test_file_group_takes_the_scenarios_shape(void)
{
    char xyz[64], text[512];
    write_temp(xyz, sizeof xyz, ".xyz",
               "2\nProperties=species:S:1:pos:R:3:orientation:R:4:omega:R:3\n"
               "A 1 2 0 0 0 0.38941834230865052 0.92106099400288510 0 0 0.5\n"
               "A -3 -2 0 0 0 0 1 0 0 -1.25\n");
    snprintf(text, sizeof text, "world: {dim: 2, box: 20, boundary: walls}\nbodies:\n"
                                "  - {file: %s, shape: {box: [2, 1]}, mass: 3, inertia: 7}\n", xyz);
    carom_world *w = world_from(text);
    unlink(xyz);
    if (!w) return;
    carom_body_state a = state_of(w, 0), b = state_of(w, 1);
    CHECK(a.polygon_vertices == 4 && b.polygon_vertices == 4 && a.inertia == 7.0 && a.mass == 3.0);
    /* no angle column: the angle of the quaternion about z, 2 atan2(z, w) */
    CHECK_NEAR(a.angle, 2.0 * atan2(0.38941834230865052, 0.92106099400288510), 1e-15);
    CHECK(a.angular_velocity.z == 0.5 && b.angular_velocity.z == -1.25 && b.angle == 0.0);
    CHECK(a.position.x == 1.0 && a.position.y == 2.0);
    carom_world_destroy(w);
}

/* ---- random orientations ------------------------------------------------------------ */

static carom_world *random_turns(int dim, int seed, const char *orientation)
{
    char text[400];
    snprintf(text, sizeof text,
             "world: {dim: %d, box: 60}\nseed: %d\nbodies:\n  - {count: 400, radius: 0.5%s}\n", dim, seed,
             orientation);
    return world_from(text);
}

static void test_random_orientation_2d(void)
{
    carom_world *a = random_turns(2, 5, ", orientation: random"), *b = random_turns(2, 5, ", orientation: random"),
                *c = random_turns(2, 6, ", orientation: random"), *plain = random_turns(2, 5, "");
    if (!a || !b || !c || !plain) return;
    double sum = 0.0;
    int same_seed_differs = 0, other_seed_same = 0, velocities_differ = 0;
    for (int32_t id = 0; id < 400; id++) {
        carom_body_state x = state_of(a, id), y = state_of(b, id), z = state_of(c, id), p = state_of(plain, id);
        CHECK(x.angle >= 0.0 && x.angle < 2.0 * PI);
        sum += x.angle;
        same_seed_differs += !same_bits(x.angle, y.angle) || !same_vec_bits(x.position, y.position);
        other_seed_same += same_bits(x.angle, z.angle);
        velocities_differ += !same_vec_bits(x.velocity, p.velocity); /* drawn before the orientations */
        CHECK(p.angle == 0.0);
    }
    CHECK_EQ_INT(same_seed_differs, 0);
    CHECK_EQ_INT(other_seed_same, 0);
    CHECK_EQ_INT(velocities_differ, 0);
    /* uniform on [0, 2 pi): the mean is pi within 4 standard errors (2 pi / sqrt(12 * 400) = 0.091) */
    CHECK_MSG(fabs(sum / 400.0 - PI) < 0.36, "mean angle %g", sum / 400.0);
    carom_world_destroy(a), carom_world_destroy(b), carom_world_destroy(c), carom_world_destroy(plain);
}

static void test_random_orientation_3d(void)
{
    carom_world *a = random_turns(3, 5, ", orientation: random"), *b = random_turns(3, 5, ", orientation: random"),
                *c = random_turns(3, 6, ", orientation: random");
    if (!a || !b || !c) return;
    double square[4] = {0.0, 0.0, 0.0, 0.0};
    int same_seed_differs = 0, other_seed_same = 0;
    for (int32_t id = 0; id < 400; id++) {
        carom_body_state x = state_of(a, id), y = state_of(b, id), z = state_of(c, id);
        const double q[4] = {x.orientation.x, x.orientation.y, x.orientation.z, x.orientation.w};
        CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-14);
        for (int k = 0; k < 4; k++) square[k] += q[k] * q[k];
        same_seed_differs += !same_quat_bits(x.orientation, y.orientation);
        other_seed_same += same_quat_bits(x.orientation, z.orientation);
    }
    CHECK_EQ_INT(same_seed_differs, 0);
    CHECK_EQ_INT(other_seed_same, 0);
    /* uniform on the unit 3-sphere: each component squared has mean 1/4 and
     * standard deviation 1/4, so its mean over 400 is 1/4 within 4 x 0.0125 */
    for (int k = 0; k < 4; k++) CHECK_MSG(fabs(square[k] / 400.0 - 0.25) < 0.05, "component %d: %g", k, square[k] / 400.0);
    carom_world_destroy(a), carom_world_destroy(b), carom_world_destroy(c);
}

/* ---- XYZ: the rotation columns ------------------------------------------------------ */

/* Writes a frame of w to a new file (its name to path); the header line to header. */
static void write_frame(const carom_world *w, char *path, size_t size, char *header, size_t header_size)
{
    write_temp(path, size, ".xyz", "");
    FILE *out = fopen(path, "w");
    CHECK(out != NULL);
    if (!out) return;
    carom_world_def def = carom_world_definition(w);
    const double box[3] = {def.box.x, def.box.y, def.box.z};
    const int periodic[3] = {def.boundary[0] == CAROM_PERIODIC, def.boundary[1] == CAROM_PERIODIC,
                             def.boundary[2] == CAROM_PERIODIC};
    CHECK_EQ_INT(xyz_write_frame(out, w, def.dim, box, periodic, NULL), 0);
    CHECK(fclose(out) == 0);
    FILE *in = fopen(path, "r");
    header[0] = '\0';
    if (in && fgets(header, (int)header_size, in)) CHECK(fgets(header, (int)header_size, in) != NULL);
    if (in) fclose(in);
}

/* A rotating world run a while, written, read back, and restored from a
 * `file:` group: orientation, omega and angle keep their bits. */
static void check_spin_round_trip(int dim, const char *world_keys, const char *group_keys)
{
    char text[600];
    snprintf(text, sizeof text, "world: {dim: %d, box: 12, boundary: walls%s}\nseed: 9\nbodies:\n"
                                "  - {count: 40, velocity: {temperature: 2}%s}\n", dim, world_keys, group_keys);
    carom_world *w = world_from(text);
    if (!w) return;
    CHECK(carom_world_run(w, 3.7, -1) == CAROM_OK);
    char path[64], header[512], error[1024] = "";
    write_frame(w, path, sizeof path, header, sizeof header);
    CHECK_MSG(strstr(header, dim == 2 ? "masses:R:1:orientation:R:4:omega:R:3:angle:R:1 "
                                      : "masses:R:1:orientation:R:4:omega:R:3 Time"),
              "header: %s", header);
    xyz_frame f;
    CHECK_MSG(xyz_read_file(path, 0.5, 1.0, &f, error, sizeof error) == 0, "%s", error);
    CHECK(f.has_orientation && f.has_omega && f.has_angle == (dim == 2));
    int differ = 0, spinning = 0;
    for (int32_t id = 0; id < f.count; id++) {
        carom_body_state b = state_of(w, id);
        differ += !same_quat_bits(b.orientation, f.bodies[id].orientation) ||
                  !same_vec_bits(b.angular_velocity, f.bodies[id].angular_velocity) ||
                  !same_bits(b.angle, f.bodies[id].angle);
        spinning += b.angular_velocity.x != 0.0 || b.angular_velocity.z != 0.0;
    }
    CHECK_EQ_INT(differ, 0);
    CHECK_MSG(spinning > 20, "only %d bodies spin: the test needs spinning bodies", spinning);
    xyz_frame_free(&f);
    /* restored from the file as a start: the same bits (carom_world_add_body
     * keeps a quaternion that is unit to round-off as it is given) */
    snprintf(text, sizeof text, "world: {dim: %d, box: 12, boundary: walls%s}\nbodies:\n  - {file: %s%s}\n", dim,
             world_keys, path, strstr(group_keys, "shape") ? strstr(group_keys, ", shape") : "");
    carom_world *back = world_from(text);
    unlink(path);
    for (int32_t id = 0; back && id < carom_world_body_count(w); id++) {
        carom_body_state a = state_of(w, id), b = state_of(back, id);
        int same_turn = same_quat_bits(a.orientation, b.orientation);
        CHECK_MSG(same_turn && same_bits(a.angle, b.angle) &&
                      same_vec_bits(a.angular_velocity, b.angular_velocity) && same_vec_bits(a.position, b.position) &&
                      same_vec_bits(a.velocity, b.velocity) && a.polygon_vertices == b.polygon_vertices,
                  "%dD body %d: orientation (%.17g %.17g %.17g %.17g) came back as (%.17g %.17g %.17g %.17g), "
                  "angle %.17g as %.17g",
                  dim, (int)id, a.orientation.x, a.orientation.y, a.orientation.z, a.orientation.w, b.orientation.x,
                  b.orientation.y, b.orientation.z, b.orientation.w, a.angle, b.angle);
    }
    carom_world_destroy(back);
    carom_world_destroy(w);
}

static void test_round_trip_2d_polygons(void)
{
    check_spin_round_trip(2, ", tangential_restitution: 0.4, wall_tangential_restitution: 0.6",
                          ", orientation: random, angular_velocity: 3, shape: {regular: {sides: 6, radius: 0.5}}");
}

static void test_round_trip_2d_rough_disks(void)
{
    check_spin_round_trip(2, ", tangential_restitution: 0.4, wall_tangential_restitution: 0.6",
                          ", orientation: random, radius: 0.4");
}

static void test_round_trip_3d_rough_spheres(void)
{
    check_spin_round_trip(3, ", tangential_restitution: 0.4, wall_tangential_restitution: 0.6",
                          ", orientation: random, angular_velocity: [0.5, -1, 2], radius: 0.4");
}

static void test_columns_only_with_rotation(void)
{
    char path[64], header[512];
    carom_world *w = world_from("world: {dim: 3, box: 10}\nbodies: [{count: 5}]\n");
    if (w) {
        write_frame(w, path, sizeof path, header, sizeof header);
        CHECK_MSG(strstr(header, "Properties=" XYZ_PROPERTIES " Time=") != NULL, "%s", header);
        unlink(path);
        carom_world_destroy(w);
    }
    /* a rough world writes them from the start, before anything spins */
    w = world_from("world: {dim: 3, box: 10, tangential_restitution: 1}\nbodies: [{count: 5}]\n");
    if (w) {
        write_frame(w, path, sizeof path, header, sizeof header);
        CHECK_MSG(strstr(header, XYZ_PROPERTIES XYZ_SPIN_PROPERTIES " Time=") != NULL, "%s", header);
        unlink(path);
        carom_world_destroy(w);
    }
    /* one turned body in a smooth world is enough */
    w = world_from("world: {dim: 2, box: 10}\nbodies: [{count: 5}, {count: 1, orientation: 0.5}]\n");
    if (w) {
        write_frame(w, path, sizeof path, header, sizeof header);
        CHECK_MSG(strstr(header, XYZ_SPIN_PROPERTIES XYZ_ANGLE_PROPERTY " Time=") != NULL, "%s", header);
        unlink(path);
        carom_world_destroy(w);
    }
}

/* A file whose second line is header and third body fails at 2:COL or 3:COL with phrase. */
static void expect_column_refused(const char *header, const char *body, const char *where, const char *phrase)
{
    char text[600], path[64], error[1024] = "", prefix[128];
    snprintf(text, sizeof text, "1\n%s\n%s\n", header, body);
    write_temp(path, sizeof path, ".xyz", text);
    xyz_frame f;
    CHECK_EQ_INT(xyz_read_file(path, 0.5, 1.0, &f, error, sizeof error), -1);
    snprintf(prefix, sizeof prefix, "%s:%s: ", path, where);
    CHECK_MSG(strncmp(error, prefix, strlen(prefix)) == 0 && strstr(error, phrase), "expected %s...%s, got %s",
              prefix, phrase, error);
    unlink(path);
}

static void test_rotation_columns_refused(void)
{
    expect_column_refused("Properties=species:S:1:pos:R:3:orientation:R:3", "X 0 0 0 0 0 1", "2:32",
                          "orientation:R:3 has the wrong type or size (expected orientation:R:4)");
    expect_column_refused("Properties=species:S:1:pos:R:3:omega:I:3", "X 0 0 0 0 0 1", "2:32",
                          "omega:I:3 has the wrong type or size (expected omega:R:3)");
    expect_column_refused("Properties=species:S:1:pos:R:3:angle:R:2", "X 0 0 0 1 2", "2:32",
                          "angle:R:2 has the wrong type or size (expected angle:R:1)");
    expect_column_refused("Properties=species:S:1:pos:R:3:orientaton:R:4", "X 0 0 0 0 0 0 1", "2:32",
                          "column 'orientaton' is not one carom reads but looks like 'orientation'");
    expect_column_refused("Properties=species:S:1:pos:R:3:omega:R:3:angular_velocity:R:3", "X 0 0 0 0 0 1 0 0 1",
                          "2:42", "omega and angular_velocity both give the same quantity");
    expect_column_refused("Properties=species:S:1:pos:R:3:omega:R:3", "X 0 0 0 0 x 1", "3:11",
                          "'x' is not a number (expected a finite number for omega)");
    expect_column_refused("Properties=species:S:1:pos:R:3:orientation:R:4:angle:R:1", "X 0 0 0 0 0 0 1 nan",
                          "3:17", "'nan' is not finite (expected a finite number for angle)");
    expect_column_refused("Properties=species:S:1:pos:R:3:orientation:R:4", "X 0 0 0 0 0 0", "3:14",
                          "a body line with 7 columns (expected 8, as Properties says)");
}

/* The core refuses what the columns say (a 2D body turning about x; a
 * quaternion far from unit length): the message names the file's line. */
static void test_file_states_refused_by_line(void)
{
    char xyz[64], text[400], error[1024] = "", yaml[64];
    write_temp(xyz, sizeof xyz, ".xyz",
               "2\nProperties=species:S:1:pos:R:3:orientation:R:4:omega:R:3\n"
               "A 1 2 0 0 0 0 1 0 0 0.5\nA -3 -2 0 0 0 0 2 0 0 1\n");
    snprintf(text, sizeof text, "world: {dim: 3, box: 20, boundary: walls}\nbodies:\n  - {file: %s}\n", xyz);
    write_temp(yaml, sizeof yaml, ".yaml", text);
    scenario s;
    carom_world *w = NULL;
    double box[3];
    CHECK_MSG(scenario_load(yaml, &s, error, sizeof error) == 0, "%s", error);
    CHECK_EQ_INT(place_build_world(&s, NULL, NULL, box, &w, error, sizeof error), -1);
    CHECK_MSG(strstr(error, ":3:5: ") && strstr(error, "line 4") && strstr(error, "orientation"), "%s", error);
    scenario_free(&s);
    carom_world_destroy(w);
    unlink(xyz);
    unlink(yaml);
}

/* A 2D file without an angle column whose quaternion turns about x is refused at its line. */
static void test_2d_orientation_about_z_only(void)
{
    char xyz[64], text[400], error[1024] = "", yaml[64];
    write_temp(xyz, sizeof xyz, ".xyz",
               "2\nProperties=species:S:1:pos:R:3:orientation:R:4\nA 1 2 0 0 0 0.6 0.8\nA -3 -2 0 0.6 0 0 0.8\n");
    snprintf(text, sizeof text, "world: {dim: 2, box: 20, boundary: walls}\nbodies:\n  - {file: %s}\n", xyz);
    write_temp(yaml, sizeof yaml, ".yaml", text);
    scenario s;
    carom_world *w = NULL;
    double box[3];
    CHECK_MSG(scenario_load(yaml, &s, error, sizeof error) == 0, "%s", error);
    CHECK_EQ_INT(place_build_world(&s, NULL, NULL, box, &w, error, sizeof error), -1);
    CHECK_MSG(strstr(error, ":3:5: ") && strstr(error, "line 4: orientation (0.59999999999999998, 0, 0, "
                                                        "0.80000000000000004) turns about an axis other than z"),
              "%s", error);
    scenario_free(&s);
    unlink(xyz);
    unlink(yaml);
}

/* The library's refusal of a generated group's body points at the key it names. */
static void test_refusal_at_its_key(void)
{
    char path[64], error[1024] = "", where[200];
    write_temp(path, sizeof path, ".yaml",
               "world: {dim: 2, box: 10}\nbodies:\n  - count: 2\n    mass: .inf\n    velocity: {speed: 1}\n"
               "    inertia: 3\n");
    scenario s;
    carom_world *w = NULL;
    double box[3];
    CHECK_MSG(scenario_load(path, &s, error, sizeof error) == 0, "%s", error);
    CHECK_EQ_INT(place_build_world(&s, NULL, NULL, box, &w, error, sizeof error), -1);
    snprintf(where, sizeof where, "%s:6:14: body 0: inertia = 3: a kinematic body's inertia", path);
    CHECK_MSG(strncmp(error, where, strlen(where)) == 0, "expected %s..., got %s", where, error);
    scenario_free(&s);
    unlink(path);
}

int main(void)
{
    RUN(test_shapes_and_spins_become_bodies);
    RUN(test_file_group_takes_the_scenarios_shape);
    RUN(test_random_orientation_2d);
    RUN(test_random_orientation_3d);
    RUN(test_round_trip_2d_polygons);
    RUN(test_round_trip_2d_rough_disks);
    RUN(test_round_trip_3d_rough_spheres);
    RUN(test_columns_only_with_rotation);
    RUN(test_rotation_columns_refused);
    RUN(test_file_states_refused_by_line);
    RUN(test_refusal_at_its_key);
    RUN(test_2d_orientation_about_z_only);
    return CHECK_SUMMARY();
}
