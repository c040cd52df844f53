/* test_xyz_place.c — extended XYZ frames and the placement of a scenario's
 * bodies. XYZ: a written frame reads back bit for bit (2D and 3D) with the
 * exact header strings (Origin, species, momenta and masses); fixtures with
 * reordered and extra columns and with missing ones (defaults) read right;
 * every column name other tools write for velocity, momentum, mass and
 * positions is read, look-alikes and duplicates are refused; a chosen frame
 * (k, -k) is read; positions are centred on the file's cell; a catalogue of
 * broken files each fails at its exact line and column. A file's Lattice is
 * checked against the box or becomes it; species follow the groups' names;
 * a group at temperature T gives the world's temperature T. Placement: random placement never overlaps
 * and stays in the box; lattices of awkward counts in cubic and long boxes,
 * walled and periodic, have the exact count, no overlap, and are spread over
 * the whole box; the packing fraction sizes the box; temperature and speed
 * groups have zero momentum and the exact temperature or speed; the seed
 * decides everything; impossible requests fail fast with a message naming
 * the group or key. Scenarios are filled by hand (no scenario.c needed). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "place.h"
#include "xyz.h"

/* ---- helpers --------------------------------------------------------------- */

static void data_path(char *out, size_t size, const char *name)
{
    const char *dir = getenv("CAROM_TEST_DATA");
    if (dir) {
        snprintf(out, size, "%s/xyz/%s", dir, name);
        return;
    }
    /* Next to this source file when run by hand. */
    const char *here = __FILE__, *slash = strrchr(here, '/');
    int n = slash ? (int)(slash - here) : 1;
    snprintf(out, size, "%.*s/data/xyz/%s", n, slash ? here : ".", name);
}

/* A fresh temporary file name (the file exists, empty). */
static void temp_path(char *out, size_t size)
{
    const char *dir = getenv("TMPDIR");
    snprintf(out, size, "%s/carom_xyz_XXXXXX", dir && dir[0] ? dir : "/tmp");
    int fd = mkstemp(out);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int same_vec_bits(carom_vec a, carom_vec b)
{
    return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z);
}

/* error starts with "prefix:" where and contains phrase. */
static int error_is(const char *error, const char *prefix, const char *where, const char *phrase)
{
    char head[1200];
    snprintf(head, sizeof head, "%s:%s: ", prefix, where);
    return strncmp(error, head, strlen(head)) == 0 && strstr(error, phrase) != NULL;
}

/* ---- XYZ: writing and reading back --------------------------------------------- */

static carom_world *random_world(int dim, const carom_boundary boundary[3], const double box[3],
                                 int n, uint64_t seed)
{
    carom_world_def def = carom_default_world_def();
    def.dim = dim;
    def.box = (carom_vec){box[0], box[1], box[2]};
    for (int a = 0; a < 3; a++) def.boundary[a] = boundary[a];
    if (dim == 2) def.gravity = (carom_vec){0.0, -0.3, 0.0};
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    if (!w) return NULL;
    carom_rng rng = carom_rng_seed(seed);
    for (int tries = 0; tries < 100000 && carom_world_body_count(w) < n; tries++) {
        carom_body_def b = carom_default_body_def();
        b.radius = 0.2 + 0.2 * carom_rng_uniform(&rng);
        b.mass = 0.5 + 3.0 * carom_rng_uniform(&rng);
        b.position = (carom_vec){(carom_rng_uniform(&rng) - 0.5) * (box[0] - 1.0),
                                 (carom_rng_uniform(&rng) - 0.5) * (box[1] - 1.0),
                                 (carom_rng_uniform(&rng) - 0.5) * (box[2] - 1.0)};
        b.velocity =
            (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), carom_rng_normal(&rng)};
        (void)carom_world_add_body(w, &b, NULL);
    }
    CHECK_EQ_INT(carom_world_body_count(w), n);
    CHECK(carom_world_run(w, 0.37, -1) ==
          CAROM_OK); /* positions and time become arbitrary doubles */
    return w;
}

static void check_round_trip(int dim, const carom_boundary boundary[3], const double box[3])
{
    carom_world *w = random_world(dim, boundary, box, 60, 11 + (uint64_t)dim);
    if (!w) return;
    char path[512];
    temp_path(path, sizeof path);
    FILE *out = fopen(path, "w");
    CHECK(out != NULL);
    if (!out) return;
    int periodic[3] = {boundary[0] == CAROM_PERIODIC, boundary[1] == CAROM_PERIODIC,
                       boundary[2] == CAROM_PERIODIC};
    CHECK_EQ_INT(xyz_write_frame(out, w, dim, box, periodic, NULL), 0);
    CHECK(fclose(out) == 0);
    xyz_frame f;
    char error[1024] = "";
    CHECK_MSG(xyz_read_file(path, 9.0, 9.0, &f, error, sizeof error) == 0, "%s", error);
    CHECK_EQ_INT(f.count, carom_world_body_count(w));
    CHECK(f.has_lattice);
    CHECK(same_bits(f.lattice[0], box[0]) && same_bits(f.lattice[1], box[1]));
    CHECK(same_bits(f.lattice[2], dim == 3 ? box[2] : 1.0));
    CHECK(same_bits(f.time, carom_world_time(w)));
    int differ = 0;
    for (int32_t i = 0; i < f.count && i < carom_world_body_count(w); i++) {
        carom_body_state s;
        CHECK(carom_world_get_body(w, i, &s) == CAROM_OK);
        if (!same_vec_bits(s.position, f.bodies[i].position) ||
            !same_vec_bits(s.velocity, f.bodies[i].velocity) ||
            !same_bits(s.radius, f.bodies[i].radius) || !same_bits(s.mass, f.bodies[i].mass))
            differ++;
        if (dim == 2) CHECK(f.bodies[i].position.z == 0.0 && f.bodies[i].velocity.z == 0.0);
    }
    CHECK_EQ_INT(differ, 0);
    xyz_frame_free(&f);
    CHECK(f.bodies == NULL && f.count == 0);
    carom_world_destroy(w);
    remove(path);
}

static void test_round_trip_3d(void)
{
    const carom_boundary boundary[3] = {CAROM_PERIODIC, CAROM_WALLS, CAROM_PERIODIC};
    const double box[3] = {7.0, 8.5, 9.25};
    check_round_trip(3, boundary, box);
}

static void test_round_trip_2d(void)
{
    const carom_boundary boundary[3] = {CAROM_WALLS, CAROM_WALLS, CAROM_WALLS};
    const double box[3] = {11.0, 6.0, 0.0};
    check_round_trip(2, boundary, box);
}

/* The text of a world's frame, as written. */
static char *frame_text(const carom_world *w, int dim, const double box[3], const int periodic[3],
                        const char *species)
{
    char path[512];
    temp_path(path, sizeof path);
    FILE *f = fopen(path, "w+");
    CHECK(f != NULL);
    if (!f) return NULL;
    CHECK_EQ_INT(xyz_write_frame(f, w, dim, box, periodic, species), 0);
    long size = ftell(f);
    char *text = calloc((size_t)size + 1, 1);
    rewind(f);
    CHECK(text && fread(text, 1, (size_t)size, f) == (size_t)size);
    fclose(f);
    remove(path);
    return text;
}

static carom_world *one_body_world(int dim, const double box[3], carom_vec x, carom_vec v)
{
    carom_world_def def = carom_default_world_def();
    def.dim = dim;
    def.box = (carom_vec){box[0], box[1], box[2]};
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_body_def b = carom_default_body_def();
    b.position = x, b.velocity = v, b.radius = 0.25, b.mass = 3.0;
    CHECK(w && carom_world_add_body(w, &b, NULL) == CAROM_OK);
    return w;
}

static void test_header_written(void)
{
    const double box2[3] = {12.5, 7.0, 99.0};
    const int periodic2[3] = {1, 0, 1};
    carom_world *w =
        one_body_world(2, box2, (carom_vec){0.5, -1.25, 4.0}, (carom_vec){1.0, 2.0, 3.0});
    char *text = w ? frame_text(w, 2, box2, periodic2, NULL) : NULL;
    CHECK(text != NULL);
    if (text) {
        const char *expected =
            "1\nLattice=\"12.5 0.0 0.0 0.0 7 0.0 0.0 0.0 1\" Origin=\"-6.25 -3.5 -0.5\" "
            "Properties=species:S:1:pos:R:3:velo:R:3:mass:R:1:radius:R:1:momenta:R:3:masses:R:1 "
            "Time=0 pbc=\"T F F\"\nX 0.5 -1.25 0 1 2 0 3 0.25 3 6 0 3\n";
        CHECK_MSG(strcmp(text, expected) == 0, "written:\n%s", text);
    }
    free(text);
    carom_world_destroy(w);

    const double box3[3] = {6.0, 7.0, 8.0};
    const int periodic3[3] = {1, 1, 0};
    w = one_body_world(3, box3, (carom_vec){0.1, 0.2, 0.3}, (carom_vec){-1.0, 0.0, 0.5});
    text = w ? frame_text(w, 3, box3, periodic3, "Ar 1 He 5") : NULL;
    CHECK(text != NULL);
    if (text) {
        const char *expected =
            "1\nLattice=\"6 0.0 0.0 0.0 7 0.0 0.0 0.0 8\" Origin=\"-3 -3.5 -4\" "
            "Properties=species:S:1:pos:R:3:velo:R:3:mass:R:1:radius:R:1:momenta:R:3:masses:R:1 "
            "Time=0 pbc=\"T T F\"\nAr 0.10000000000000001 0.20000000000000001 "
            "0.29999999999999999 -1 0 0.5 3 0.25 -3 0 1.5 3\n";
        CHECK_MSG(strcmp(text, expected) == 0, "written:\n%s", text);
    }
    free(text);
    carom_world_destroy(w);
}

static void test_write_error(void)
{
    const double box[3] = {6.0, 6.0, 6.0};
    const int periodic[3] = {1, 1, 1};
    carom_world *w = one_body_world(3, box, (carom_vec){0, 0, 0}, (carom_vec){0, 0, 0});
    char path[512];
    temp_path(path, sizeof path);
    FILE *read_only = fopen(path, "r"); /* writing to it fails */
    CHECK(read_only != NULL);
    if (read_only && w) CHECK_EQ_INT(xyz_write_frame(read_only, w, 3, box, periodic, NULL), -1);
    if (read_only) fclose(read_only);
    CHECK_EQ_INT(xyz_write_frame(stdout, NULL, 3, box, periodic, NULL), -1);
    remove(path);
    carom_world_destroy(w);
}

/* ---- XYZ: fixtures ----------------------------------------------------------------- */

static int read_fixture(const char *name, double radius, double mass, xyz_frame *f)
{
    char path[1024], error[1024] = "";
    data_path(path, sizeof path, name);
    int st = xyz_read_file(path, radius, mass, f, error, sizeof error);
    CHECK_MSG(st == 0, "%s: %s", name, error);
    return st;
}

static void check_vec(carom_vec v, double x, double y, double z)
{
    CHECK_MSG(v.x == x && v.y == y && v.z == z, "(%g, %g, %g) != (%g, %g, %g)", v.x, v.y, v.z, x, y,
              z);
}

static void test_reordered_properties(void)
{
    xyz_frame f;
    if (read_fixture("reordered.xyz", 9.0, 9.0, &f) != 0) return;
    CHECK_EQ_INT(f.count, 3);
    CHECK(f.has_lattice && f.lattice[0] == 8.0 && f.lattice[1] == 9.0 && f.lattice[2] == 10.0);
    CHECK(f.has_origin && f.origin[0] == -4.0 && f.origin[1] == -4.5 && f.origin[2] == -5.0);
    CHECK(f.lattice_line == 2 && f.lattice_col == 79);
    CHECK(f.time == 2.5);
    if (f.count == 3) {
        check_vec(f.bodies[0].position, 1, 2, 3);
        check_vec(f.bodies[0].velocity, 0.1, 0.2, 0.3);
        CHECK(f.bodies[0].radius == 0.4 && f.bodies[0].mass == 2.0);
        check_vec(f.bodies[1].position, -1, -2, -3);
        check_vec(f.bodies[1].velocity, -0.1, -0.2, -0.3);
        CHECK(f.bodies[1].radius == 0.6 && f.bodies[1].mass == 3.0);
        check_vec(f.bodies[2].position, 0.5, 0.25, -3.5);
        check_vec(f.bodies[2].velocity, 0, 0, 0);
        CHECK(f.bodies[2].radius == 0.5 && f.bodies[2].mass == 4.0);
    }
    xyz_frame_free(&f);
}

static void test_extra_columns(void)
{
    xyz_frame f;
    if (read_fixture("extra_columns.xyz", 9.0, 9.0, &f) != 0) return;
    CHECK_EQ_INT(f.count, 2);
    CHECK(f.has_lattice && !f.has_origin && f.time == 0.0);
    if (f.count == 2) {
        /* No Origin: the cell is [0, 10]^3 (ASE's convention), centred on 0 when read. */
        check_vec(f.bodies[0].position, 1 - 5, 2 - 5, 3 - 5);
        check_vec(f.bodies[0].velocity, 0.5, 0.6, 0.7);
        CHECK(f.bodies[0].radius == 0.3 && f.bodies[0].mass == 2.5);
        check_vec(f.bodies[1].position, -1 - 5, -2 - 5, -3 - 5);
        check_vec(f.bodies[1].velocity, -0.5, -0.6, -0.7);
        CHECK(f.bodies[1].radius == 0.4 && f.bodies[1].mass == 3.5);
    }
    xyz_frame_free(&f);
}

static void test_missing_columns_default(void)
{
    xyz_frame f;
    if (read_fixture("defaults.xyz", 0.7, 1.3, &f) == 0) {
        CHECK_EQ_INT(f.count, 2);
        CHECK(!f.has_lattice && f.lattice[0] == 0.0 && f.time == 0.0);
        if (f.count == 2) {
            check_vec(f.bodies[0].position, 1.5, -2.5, 0.25);
            check_vec(f.bodies[1].position, -1.5, 2.5, -0.25);
            for (int i = 0; i < 2; i++) {
                check_vec(f.bodies[i].velocity, 0, 0, 0);
                CHECK(f.bodies[i].radius == 0.7 && f.bodies[i].mass == 1.3);
            }
        }
        xyz_frame_free(&f);
    }
    /* No Properties at all: plain XYZ (species x y z), CRLF line ends, a blank line after. */
    if (read_fixture("plain.xyz", 0.5, 1.0, &f) == 0) {
        CHECK_EQ_INT(f.count, 2);
        if (f.count == 2) check_vec(f.bodies[1].position, 1.25, 0, 0);
        xyz_frame_free(&f);
    }
}

typedef struct broken_case {
    const char *name, *where, *phrase;
} broken_case;

static void test_broken_files(void)
{
    static const broken_case cases[] = {
        {"empty.xyz", "1:1", "the file is empty"},
        {"count_word.xyz", "1:1", "'abc' is not a number of bodies"},
        {"count_negative.xyz", "1:3", "'-2' is not a number of bodies"},
        {"count_extra.xyz", "1:3", "unexpected '3' after the number of bodies"},
        {"count_blank.xyz", "1:1", "missing the number of bodies"},
        {"no_header.xyz", "2:1", "ends before the header line"},
        {"short_file.xyz", "5:1", "ends after 2 of 3 bodies"},
        {"few_columns.xyz", "4:6", "a body line with 3 columns (expected 5"},
        {"many_columns.xyz", "3:9", "more than 4 columns"},
        {"blank_body_line.xyz", "4:1", "a body line with 0 columns (expected 4"},
        {"word_value.xyz", "3:5", "'x2' is not a number (expected a finite number for pos)"},
        {"nan_value.xyz", "3:7", "'nan' is not finite"},
        {"inf_velocity.xyz", "3:11",
         "'-inf' is not finite (expected a finite number for velocity)"},
        {"no_pos.xyz", "2:24", "column 'position' is not one carom reads but looks like 'positions'"},
        {"no_pos_column.xyz", "2:12", "Properties has no pos column (expected pos:R:3)"},
        {"lattice_short.xyz", "2:10", "Lattice has 6 numbers (expected 9"},
        {"lattice_skew.xyz", "2:13", "Lattice is not diagonal"},
        {"lattice_word.xyz", "2:19", "'ten' in Lattice is not a finite number"},
        {"lattice_long.xyz", "2:31", "Lattice has more than 9 numbers"},
        {"lattice_negative.xyz", "2:19", "Lattice side -10 is not positive"},
        {"bad_type.xyz", "2:28", "column type 'X' of pos is unknown"},
        {"incomplete_property.xyz", "2:24", "Properties entry 'pos' is incomplete"},
        {"pos_wrong_size.xyz", "2:24", "pos:R:2 has the wrong type or size (expected pos:R:3)"},
        {"pos_twice.xyz", "2:32", "pos appears twice"},
        {"bad_column_count.xyz", "2:30", "column count 'x' of pos is not valid"},
        {"unterminated.xyz", "2:16", "unterminated quoted value"},
        {"negative_radius.xyz", "3:9", "radius -0.5 is not positive"},
        {"zero_mass.xyz", "3:9", "mass 0 is not positive"},
        {"time_word.xyz", "2:37", "Time is not a finite number"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char name[256], path[1024], error[1024] = "";
        snprintf(name, sizeof name, "broken/%s", cases[k].name);
        data_path(path, sizeof path, name);
        xyz_frame f;
        int st = xyz_read_file(path, 0.5, 1.0, &f, error, sizeof error);
        CHECK_MSG(st == -1, "%s was read", cases[k].name);
        CHECK_MSG(error_is(error, path, cases[k].where, cases[k].phrase),
                  "%s: expected %s: ...%s..., got: %s", cases[k].name, cases[k].where,
                  cases[k].phrase, error);
        CHECK(f.bodies == NULL && f.count == 0);
    }
    char path[1024], error[1024] = "";
    data_path(path, sizeof path, "no_such_file.xyz");
    xyz_frame f;
    CHECK_EQ_INT(xyz_read_file(path, 0.5, 1.0, &f, error, sizeof error), -1);
    CHECK_MSG(error_is(error, path, "1:1", "cannot open (No such file"), "%s", error);
    /* A tiny error buffer is cut, never overrun. */
    char tiny[8];
    memset(tiny, 'x', sizeof tiny);
    CHECK_EQ_INT(xyz_read_file(path, 0.5, 1.0, &f, tiny, 4), -1);
    CHECK(tiny[3] == '\0' && tiny[4] == 'x');
}

/* ---- XYZ: other tools' columns, look-alikes, frames, the cell ------------------------ */

/* Writes text to a new temporary file; path receives its name. */
static void write_temp(char *path, size_t size, const char *text)
{
    temp_path(path, size);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* Reads frame index of text; 0 with *f filled, or the reader's status with error. */
static int read_text(const char *text, int64_t index, xyz_frame *f, char *path, size_t path_size,
                     char *error, size_t error_size)
{
    write_temp(path, path_size, text);
    int st = xyz_read_frame(path, index, 0.5, 1.0, f, error, error_size);
    remove(path);
    return st;
}

/* One body line "X 1 2 3 <columns>" under Properties=species:S:1:pos:R:3:<props>. */
static int read_one(const char *props, const char *columns, xyz_frame *f, char *error,
                    size_t error_size)
{
    char text[1024], path[512];
    snprintf(text, sizeof text, "1\nProperties=species:S:1:pos:R:3:%s\nX 1 2 3 %s\n", props,
             columns);
    return read_text(text, 0, f, path, sizeof path, error, error_size);
}

static void test_velocity_and_mass_names(void)
{
    const char *velocity_names[] = {"velo", "vel", "velocities", "velocity", "VEL", "Velo"};
    for (size_t k = 0; k < sizeof velocity_names / sizeof velocity_names[0]; k++) {
        char props[64], error[1024] = "";
        snprintf(props, sizeof props, "%s:R:3:mass:R:1", velocity_names[k]);
        xyz_frame f;
        int st = read_one(props, "0.5 -0.25 4 2", &f, error, sizeof error);
        CHECK_MSG(st == 0, "%s: %s", velocity_names[k], error);
        if (st != 0) continue;
        check_vec(f.bodies[0].velocity, 0.5, -0.25, 4);
        CHECK(f.bodies[0].mass == 2.0);
        xyz_frame_free(&f);
    }
    /* ASE's columns: momenta (m v) and masses. */
    xyz_frame f;
    char error[1024] = "";
    if (read_one("momenta:R:3:masses:R:1", "1 -3 0.5 4", &f, error, sizeof error) == 0) {
        check_vec(f.bodies[0].velocity, 0.25, -0.75, 0.125);
        CHECK(f.bodies[0].mass == 4.0);
        xyz_frame_free(&f);
    } else {
        CHECK_MSG(0, "momenta, masses: %s", error);
    }
    /* momenta without a mass column: the default mass (1.0 here). */
    if (read_one("momenta:R:3", "1 -3 0.5", &f, error, sizeof error) == 0) {
        check_vec(f.bodies[0].velocity, 1, -3, 0.5);
        xyz_frame_free(&f);
    }
    /* A velocity column wins over momenta; mass and masses agree (carom writes all four). */
    if (read_one("velo:R:3:mass:R:1:radius:R:1:momenta:R:3:masses:R:1", "1 2 3 2 0.3 9 9 9 2", &f,
                 error, sizeof error) == 0) {
        check_vec(f.bodies[0].velocity, 1, 2, 3);
        CHECK(f.bodies[0].mass == 2.0 && f.bodies[0].radius == 0.3);
        xyz_frame_free(&f);
    } else {
        CHECK_MSG(0, "all columns: %s", error);
    }
    /* positions is ASE's own name for pos. */
    char text[] = "1\nProperties=species:S:1:positions:R:3\nX 1 2 3\n", path[512];
    if (read_text(text, 0, &f, path, sizeof path, error, sizeof error) == 0) {
        check_vec(f.bodies[0].position, 1, 2, 3);
        xyz_frame_free(&f);
    } else {
        CHECK_MSG(0, "positions: %s", error);
    }
}

typedef struct column_case {
    const char *props, *columns, *where, *phrase;
} column_case;

static void test_refused_columns(void)
{
    static const column_case cases[] = {
        {"veloc:R:3", "0 0 0", "2:32", "column 'veloc' is not one carom reads but looks like 'velo'"},
        {"radiuss:R:1", "1", "2:32", "column 'radiuss' is not one carom reads but looks like 'radius'"},
        {"masss:R:1", "1", "2:32", "looks like 'mass'"},
        {"velocitie:R:3", "0 0 0", "2:32", "looks like 'velocities'"},
        {"momentum:R:3", "0 0 0", "2:32", "looks like 'momenta'"},
        {"vel:R:3:velo:R:3", "0 0 0 0 0 0", "2:40", "vel and velo both give the same quantity"},
        {"mass:R:1:mass:R:1", "1 1", "2:41", "mass appears twice"},
        {"vel:R:2", "0 0", "2:32", "vel:R:2 has the wrong type or size (expected vel:R:3)"},
        {"mass:R:1:masses:R:1", "1 2", "3:11", "masses 2 differs from mass 1 on this line"},
        {"momenta:R:3:masses:R:1", "1 1 1 0", "3:15", "masses 0 is not positive"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[512], path[512], error[1024] = "";
        snprintf(text, sizeof text, "1\nProperties=species:S:1:pos:R:3:%s\nX 1 2 3 %s\n",
                 cases[k].props, cases[k].columns);
        write_temp(path, sizeof path, text);
        xyz_frame f;
        int st = xyz_read_frame(path, 0, 0.5, 1.0, &f, error, sizeof error);
        CHECK_MSG(st == -1, "%s was read", cases[k].props);
        CHECK_MSG(error_is(error, path, cases[k].where, cases[k].phrase), "%s: expected %s: %s, got %s",
                  cases[k].props, cases[k].where, cases[k].phrase, error);
        remove(path);
    }
    /* Names unlike any carom reads are skipped, as other tools write them. */
    const char *others[] = {"Z:I:1", "forces:R:3", "tags:I:1", "id:I:1", "charge:R:1", "velo_mag:R:1"};
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
        char props[64], columns[64], error[1024] = "";
        snprintf(props, sizeof props, "%s:mass:R:1", others[k]);
        snprintf(columns, sizeof columns, "%s 2", strstr(others[k], ":3") ? "7 7 7" : "7");
        xyz_frame f;
        int st = read_one(props, columns, &f, error, sizeof error);
        CHECK_MSG(st == 0, "%s: %s", others[k], error);
        if (st == 0) CHECK(f.bodies[0].mass == 2.0);
        if (st == 0) xyz_frame_free(&f);
    }
}

/* Three frames of one body each, body x = 10 k + 1 in frame k. */
static const char three_frames[] =
    "1\nProperties=species:S:1:pos:R:3 Time=0\nX 1 0 0\n"
    "1\nProperties=species:S:1:pos:R:3 Time=1\nX 11 0 0\n"
    "\n" /* a blank line between frames is not a count */
    "1\nProperties=species:S:1:pos:R:3 Time=2\nX 21 0 0\n\n\n";

static void test_frame_selection(void)
{
    const int64_t index[] = {0, 1, 2, -1, -2, -3};
    const double x[] = {1, 11, 21, 21, 11, 1};
    /* The blank line between frames 1 and 2 is refused where it stands. */
    char path[512], error[1024] = "";
    xyz_frame f;
    CHECK_EQ_INT(read_text(three_frames, 2, &f, path, sizeof path, error, sizeof error), -1);
    CHECK_MSG(error_is(error, path, "7:1", "missing the number of bodies"), "%s", error);
    char text[sizeof three_frames];
    snprintf(text, sizeof text, "%s", three_frames);
    char *blank = strstr(text, "\n\n1\n");
    memmove(blank, blank + 1, strlen(blank + 1) + 1); /* without it; the trailing blanks stay */
    for (size_t k = 0; k < sizeof index / sizeof index[0]; k++) {
        int st = read_text(text, index[k], &f, path, sizeof path, error, sizeof error);
        CHECK_MSG(st == 0, "frame %lld: %s", (long long)index[k], error);
        if (st != 0) continue;
        CHECK_MSG(f.count == 1 && f.bodies[0].position.x == x[k] && f.time == (x[k] - 1) / 10,
                  "frame %lld: x %g", (long long)index[k], f.bodies[0].position.x);
        xyz_frame_free(&f);
    }
    const int64_t past[] = {3, 100, -4};
    for (size_t k = 0; k < sizeof past / sizeof past[0]; k++) {
        CHECK_EQ_INT(read_text(text, past[k], &f, path, sizeof path, error, sizeof error), -2);
        CHECK(f.frames_in_file == 3 && f.bodies == NULL && f.count == 0);
        CHECK_MSG(strstr(error, "the file has 3 frames (expected -3 to 2)") != NULL, "%s", error);
    }
    /* A frame that is cut short, skipped on the way to a later one. */
    CHECK_EQ_INT(read_text("2\nheader\nX 0 0 0\n", 1, &f, path, sizeof path, error, sizeof error),
                 -1);
    CHECK_MSG(error_is(error, path, "4:1", "the file ends inside a frame of 2 bodies"), "%s", error);
    CHECK_EQ_INT(read_text("", -1, &f, path, sizeof path, error, sizeof error), -1);
    CHECK_MSG(error_is(error, path, "1:1", "the file is empty"), "%s", error);
}

static void test_cell_origin(void)
{
    char path[512], error[1024] = "";
    xyz_frame f;
    /* No Origin: the cell starts at 0 (ASE), so its centre (5, 10, 15) moves to 0. */
    const char *plain = "1\nLattice=\"10 0 0 0 20 0 0 0 30\" Properties=species:S:1:pos:R:3\nX 1 2 3\n";
    if (read_text(plain, 0, &f, path, sizeof path, error, sizeof error) == 0) {
        check_vec(f.bodies[0].position, -4, -8, -12);
        xyz_frame_free(&f);
    } else {
        CHECK_MSG(0, "%s", error);
    }
    /* Origin= (OVITO) and cell_origin= give the corner. */
    const char *shifted = "1\nLattice=\"10 0 0 0 20 0 0 0 30\" Origin=\"1 2 3\" "
                          "Properties=species:S:1:pos:R:3\nX 1 2 3\n";
    if (read_text(shifted, 0, &f, path, sizeof path, error, sizeof error) == 0) {
        check_vec(f.bodies[0].position, -5, -10, -15);
        xyz_frame_free(&f);
    }
    const char *centred = "1\nLattice=\"10 0 0 0 20 0 0 0 30\" cell_origin=\"-5 -10 -15\" "
                          "Properties=species:S:1:pos:R:3\nX 0.1 -0.2 0.30000000000000004\n";
    if (read_text(centred, 0, &f, path, sizeof path, error, sizeof error) == 0) {
        CHECK(f.has_origin);
        CHECK(same_vec_bits(f.bodies[0].position, (carom_vec){0.1, -0.2, 0.30000000000000004}));
        xyz_frame_free(&f);
    }
    /* No Lattice: positions as written, whatever Origin says. */
    const char *loose = "1\nOrigin=\"1 2 3\" Properties=species:S:1:pos:R:3\nX 1 2 3\n";
    if (read_text(loose, 0, &f, path, sizeof path, error, sizeof error) == 0) {
        check_vec(f.bodies[0].position, 1, 2, 3);
        xyz_frame_free(&f);
    }
    const char *bad = "1\nLattice=\"10 0 0 0 20 0 0 0 30\" Origin=\"1 2\" Properties=species:S:1:pos:R:3\nX 1 2 3\n";
    CHECK_EQ_INT(read_text(bad, 0, &f, path, sizeof path, error, sizeof error), -1);
    CHECK_MSG(error_is(error, path, "2:40", "Origin has 2 numbers (expected 3 finite numbers"), "%s",
              error);
}

/* ---- placement: scenarios by hand ------------------------------------------------ */

static scenario make_scenario(int dim, double side, carom_boundary boundary, scenario_group *groups,
                              int group_count)
{
    scenario s;
    memset(&s, 0, sizeof s);
    s.path = "test.yaml";
    s.dim = dim;
    s.box[0] = s.box[1] = side;
    s.box[2] = dim == 3 ? side : 0.0;
    s.has_box = side > 0.0;
    for (int a = 0; a < 3; a++) s.boundary[a] = boundary;
    s.restitution = 1.0;
    s.wall_restitution = 1.0;
    s.tangential_restitution = s.wall_tangential_restitution = -1.0; /* smooth, as scenario_init */
    s.seed = 1;
    s.groups = groups;
    s.group_count = group_count;
    s.until = INFINITY;
    s.events = -1;
    s.dim_mark = (scenario_mark){2, 8};
    s.box_mark = (scenario_mark){3, 8};
    s.bodies_mark = (scenario_mark){6, 1};
    return s;
}

static scenario_group make_group(int64_t count, double radius, scenario_place place, int line)
{
    scenario_group g;
    memset(&g, 0, sizeof g);
    g.mark = (scenario_mark){line, 5};
    g.count_mark = (scenario_mark){line, 14};
    g.radius_mark = (scenario_mark){line + 1, 15};
    g.packing_mark = (scenario_mark){line + 2, 25};
    g.file_mark = (scenario_mark){line, 13};
    g.count = count;
    g.radius = radius;
    g.mass = 1.0;
    g.place = place;
    g.velocity = VELOCITY_TEMPERATURE;
    g.velocity_value = 1.0;
    return g;
}

static scenario_group file_group(const char *name, char *path, size_t size, int line)
{
    scenario_group g = make_group(-1, 0.5, PLACE_RANDOM, line);
    data_path(path, size, name);
    g.file = (char *)name;
    g.file_resolved = path;
    return g;
}

static carom_world *build(const scenario *s, double box[3], char *error, size_t size)
{
    carom_world *w = (carom_world *)s; /* must be overwritten */
    double ignored[3];
    int st = place_build_world(s, NULL, NULL, box ? box : ignored, &w, error, size);
    CHECK((st == 0) == (w != NULL));
    return st == 0 ? w : NULL;
}

static carom_world *build_ok(const scenario *s, double box[3])
{
    char error[1024] = "";
    carom_world *w = build(s, box, error, sizeof error);
    CHECK_MSG(w != NULL, "%s", error);
    return w;
}

/* Fails the build and checks the message: "test.yaml:LINE:COL: ...phrase...". */
static void build_fails(const scenario *s, const char *where, const char *phrase)
{
    char error[1024] = "";
    carom_world *w = build(s, NULL, error, sizeof error);
    CHECK_MSG(w == NULL, "built a world; expected: %s", phrase);
    carom_world_destroy(w);
    CHECK_MSG(error_is(error, "test.yaml", where, phrase), "expected %s: ...%s..., got: %s", where,
              phrase, error);
}

static carom_body_state body(const carom_world *w, int32_t i)
{
    carom_body_state b;
    memset(&b, 0, sizeof b);
    CHECK(carom_world_get_body(w, i, &b) == CAROM_OK);
    return b;
}

/* Overlapping pairs, by brute force over all pairs (minimum image on periodic axes). */
static int64_t count_overlaps(const carom_world *w)
{
    carom_world_def def = carom_world_definition(w);
    const double side[3] = {def.box.x, def.box.y, def.box.z};
    int32_t n = carom_world_body_count(w);
    double *x = malloc((size_t)(n > 0 ? n : 1) * 4 * sizeof *x);
    CHECK(x != NULL);
    if (!x) return -1;
    for (int32_t i = 0; i < n; i++) {
        carom_body_state b = body(w, i);
        x[4 * i] = b.position.x, x[4 * i + 1] = b.position.y, x[4 * i + 2] = b.position.z;
        x[4 * i + 3] = b.radius;
    }
    int64_t overlaps = 0;
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = i + 1; j < n; j++) {
            double d2 = 0.0, sigma = x[4 * i + 3] + x[4 * j + 3];
            for (int a = 0; a < def.dim; a++) {
                double d = x[4 * i + a] - x[4 * j + a];
                if (def.boundary[a] == CAROM_PERIODIC) d -= side[a] * round(d / side[a]);
                d2 += d * d;
            }
            if (sqrt(d2) < sigma * (1.0 - 1e-12)) overlaps++;
        }
    free(x);
    return overlaps;
}

/* Bodies outside the box (through a wall, or off a periodic axis's range). */
static int count_outside(const carom_world *w)
{
    carom_world_def def = carom_world_definition(w);
    const double side[3] = {def.box.x, def.box.y, def.box.z};
    int outside = 0;
    for (int32_t i = 0; i < carom_world_body_count(w); i++) {
        carom_body_state b = body(w, i);
        const double x[3] = {b.position.x, b.position.y, b.position.z};
        for (int a = 0; a < def.dim; a++) {
            double half = 0.5 * side[a];
            int in = def.boundary[a] == CAROM_PERIODIC
                         ? x[a] >= -half && x[a] < half
                         : x[a] >= -half + b.radius && x[a] <= half - b.radius;
            if (!in) outside++;
        }
        if (def.dim == 2 && x[2] != 0.0) outside++;
    }
    return outside;
}

static void check_placed(const carom_world *w, int64_t count)
{
    if (!w) return;
    CHECK_EQ_INT(carom_world_body_count(w), count);
    CHECK_EQ_INT(count_overlaps(w), 0);
    CHECK_EQ_INT(count_outside(w), 0);
}

/* ---- placement: random ----------------------------------------------------------- */

static void test_random_placement(void)
{
    for (int dim = 2; dim <= 3; dim++)
        for (int walls = 0; walls <= 1; walls++) {
            int64_t n = dim == 3 ? 500 : 300;
            scenario_group g = make_group(n, 0.5, PLACE_RANDOM, 7);
            scenario s = make_scenario(dim, dim == 3 ? 12.0 : 24.0,
                                       walls ? CAROM_WALLS : CAROM_PERIODIC, &g, 1);
            if (walls) s.boundary[0] = CAROM_PERIODIC; /* mixed: periodic x, walls on the rest */
            carom_world *w = build_ok(&s, NULL);
            check_placed(w, n);
            carom_world_destroy(w);
        }
}

static void test_random_around_earlier_groups(void)
{
    scenario_group g[3] = {make_group(100, 0.5, PLACE_LATTICE, 7),
                           make_group(300, 0.3, PLACE_RANDOM, 12),
                           make_group(20, 1.0, PLACE_RANDOM, 17)};
    scenario s = make_scenario(3, 14.0, CAROM_PERIODIC, g, 3);
    carom_world *w = build_ok(&s, NULL);
    check_placed(w, 420);
    carom_world_destroy(w);
}

static void test_random_too_dense_fails_fast(void)
{
    clock_t start = clock();
    /* Past the jamming limit of random addition (0.38), under close packing. */
    scenario_group g3[2] = {make_group(10, 0.5, PLACE_RANDOM, 7),
                            make_group(955, 0.5, PLACE_RANDOM, 9)};
    scenario s3 = make_scenario(3, 10.0, CAROM_PERIODIC, g3, 2);
    build_fails(&s3, "9:5", "could place only");
    build_fails(&s3, "9:5", "of 955 bodies of radius 0.5 at random (packing fraction about 0.505)");
    build_fails(&s3, "9:5", "use place: lattice or a larger box");
    scenario_group g2 = make_group(356, 0.5, PLACE_RANDOM, 7);
    scenario s2 = make_scenario(2, 20.0, CAROM_WALLS, &g2, 1); /* 0.70 in 2D (jamming: 0.55) */
    build_fails(&s2, "7:5", "could place only");
    /* Denser than close packing: refused before any trial. */
    g3[1].count = 2000;
    build_fails(&s3, "9:5",
                "2000 bodies of radius 0.5 do not fit in this box: they alone would fill 1.05");
    build_fails(&s3, "9:5", "more than close packing (0.7405)");
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    CHECK_MSG(seconds < 10.0, "impossible random placement took %.2f s", seconds);
}

/* ---- placement: lattices --------------------------------------------------------- */

/* |mean position| along each axis, as a fraction of the side. */
static double worst_mean_offset(const carom_world *w)
{
    carom_world_def def = carom_world_definition(w);
    const double side[3] = {def.box.x, def.box.y, def.box.z};
    double sum[3] = {0, 0, 0}, worst = 0.0;
    int32_t n = carom_world_body_count(w);
    for (int32_t i = 0; i < n; i++) {
        carom_body_state b = body(w, i);
        sum[0] += b.position.x, sum[1] += b.position.y, sum[2] += b.position.z;
    }
    for (int a = 0; a < def.dim; a++) {
        double offset = fabs(sum[a] / n) / side[a];
        if (offset > worst) worst = offset;
    }
    return worst;
}

static void check_lattice(int dim, int64_t n, const double shape[3], carom_boundary boundary)
{
    scenario_group g = make_group(n, 0.5, PLACE_LATTICE, 7);
    scenario s = make_scenario(dim, 1.0, boundary, &g, 1);
    /* Sides in the ratio of shape, packing fraction about 0.3, never under 3.5. */
    double volume =
        n * (dim == 3 ? 4.0 / 3.0 * 3.14159265358979 * 0.125 : 3.14159265358979 * 0.25) / 0.3;
    double product = shape[0] * shape[1] * (dim == 3 ? shape[2] : 1.0);
    double scale = pow(volume / product, 1.0 / dim), smallest = INFINITY;
    for (int a = 0; a < dim; a++) smallest = fmin(smallest, scale * shape[a]);
    if (smallest < 3.5) scale *= 3.5 / smallest;
    for (int a = 0; a < dim; a++) s.box[a] = scale * shape[a];
    carom_world *w = build_ok(&s, NULL);
    if (!w) {
        fprintf(stderr, "  lattice dim %d, n %lld, shape %g:%g:%g, %s\n", dim, (long long)n,
                shape[0], shape[1], shape[2], boundary == CAROM_WALLS ? "walls" : "periodic");
        return;
    }
    check_placed(w, n);
    if (n >= 100) {
        double offset = worst_mean_offset(w);
        CHECK_MSG(offset < 0.025,
                  "lattice of %lld in %dD, shape %g:%g:%g, %s: not spread over the box: mean off "
                  "centre by "
                  "%.3f of a side",
                  (long long)n, dim, shape[0], shape[1], shape[2],
                  boundary == CAROM_WALLS ? "walls" : "periodic", offset);
    }
    carom_world_destroy(w);
}

static void test_lattice_awkward_counts(void)
{
    const int64_t counts3[] = {1, 2, 7, 100, 4001}, counts2[] = {1, 3, 50, 1001};
    const double shapes[2][3] = {{1.0, 1.0, 1.0}, {1.0, 1.7, 0.6}};
    for (int shape = 0; shape < 2; shape++)
        for (int walls = 0; walls <= 1; walls++) {
            carom_boundary boundary = walls ? CAROM_WALLS : CAROM_PERIODIC;
            for (size_t k = 0; k < sizeof counts3 / sizeof counts3[0]; k++)
                check_lattice(3, counts3[k], shapes[shape], boundary);
            for (size_t k = 0; k < sizeof counts2 / sizeof counts2[0]; k++)
                check_lattice(2, counts2[k], shapes[shape], boundary);
        }
}

/* Neighbours of body i at distance d (within 1e-9 d). */
static int neighbours_at(const carom_world *w, int32_t i, double d)
{
    carom_world_def def = carom_world_definition(w);
    const double side[3] = {def.box.x, def.box.y, def.box.z};
    carom_body_state bi = body(w, i);
    int count = 0;
    for (int32_t j = 0; j < carom_world_body_count(w); j++) {
        if (j == i) continue;
        carom_body_state bj = body(w, j);
        const double delta[3] = {bi.position.x - bj.position.x, bi.position.y - bj.position.y,
                                 bi.position.z - bj.position.z};
        double d2 = 0.0;
        for (int a = 0; a < def.dim; a++) {
            double x = delta[a] - side[a] * round(delta[a] / side[a]);
            d2 += x * x;
        }
        if (fabs(sqrt(d2) - d) < 1e-9 * d) count++;
    }
    return count;
}

static void test_lattice_is_fcc_and_hexagonal(void)
{
    /* 4000 = 4 x 10^3: a perfect fcc crystal, 12 neighbours at a / sqrt(2). */
    scenario_group g = make_group(4000, 0.5, PLACE_LATTICE, 7);
    scenario s = make_scenario(3, 20.0, CAROM_PERIODIC, &g, 1);
    carom_world *w = build_ok(&s, NULL);
    if (w) {
        for (int32_t i = 0; i < 4000; i += 997)
            CHECK_EQ_INT(neighbours_at(w, i, 2.0 / sqrt(2.0)), 12);
        carom_world_destroy(w);
    }
    /* 120 disks in 10 a x 6 sqrt(3) a: a perfect triangular lattice, 6 neighbours at a. */
    scenario_group g2 = make_group(120, 0.5, PLACE_LATTICE, 7);
    scenario s2 = make_scenario(2, 15.0, CAROM_PERIODIC, &g2, 1);
    s2.box[1] = 6.0 * sqrt(3.0) * 1.5;
    w = build_ok(&s2, NULL);
    if (w) {
        for (int32_t i = 0; i < 120; i += 7) CHECK_EQ_INT(neighbours_at(w, i, 1.5), 6);
        carom_world_destroy(w);
    }
}

static void test_lattice_too_dense(void)
{
    scenario_group g = make_group(500, 0.5, PLACE_LATTICE, 7);
    scenario s = make_scenario(3, 6.5, CAROM_PERIODIC, &g, 1); /* packing fraction 0.95 */
    build_fails(&s, "7:5",
                "too dense for a lattice of 500 bodies of radius 0.5 in this box: nearest sites");
}

static void test_lattice_overlapping_earlier_group(void)
{
    scenario_group g[2] = {make_group(100, 0.5, PLACE_LATTICE, 7),
                           make_group(100, 0.5, PLACE_LATTICE, 12)};
    scenario s = make_scenario(3, 10.0, CAROM_PERIODIC, g, 2);
    build_fails(&s, "12:5", "a lattice site of this group is taken");
    build_fails(&s, "12:5", "overlaps body");
}

/* ---- placement: the box ------------------------------------------------------------ */

static void test_packing_fraction_sets_box(void)
{
    char path[1024];
    for (int dim = 2; dim <= 3; dim++) {
        /* Two generated groups and a file group (two bodies of radius 0.7, the default;
         * in 2D a frame in one plane, as a 2D world reads). */
        scenario_group g[3] = {file_group(dim == 3 ? "defaults.xyz" : "defaults_plane.xyz", path, sizeof path, 7),
                               make_group(dim == 3 ? 300 : 200, 0.5, PLACE_RANDOM, 9),
                               make_group(dim == 3 ? 40 : 30, 0.8, PLACE_RANDOM, 14)};
        g[0].radius = 0.7;
        g[2].packing_fraction = 0.2;
        scenario s = make_scenario(dim, 0.0, CAROM_PERIODIC, g, 3);
        double box[3] = {0, 0, 0};
        carom_world *w = build_ok(&s, box);
        if (!w) continue;
        check_placed(w, g[1].count + g[2].count + 2);
        carom_world_def def = carom_world_definition(w);
        CHECK(def.box.x == box[0] && def.box.y == box[1] && box[0] == box[1]);
        if (dim == 3) CHECK(def.box.z == box[2] && box[2] == box[0]);
        double volume = 0.0;
        for (int32_t i = 0; i < carom_world_body_count(w); i++) {
            double r = body(w, i).radius;
            volume += dim == 3 ? 4.0 / 3.0 * 3.14159265358979323846 * r * r * r
                               : 3.14159265358979323846 * r * r;
        }
        double v = dim == 3 ? box[0] * box[1] * box[2] : box[0] * box[1];
        CHECK_NEAR(volume / v, 0.2, 1e-12 * 0.2);
        carom_world_destroy(w);
    }
}

static void test_box_and_packing_fraction_conflict(void)
{
    scenario_group g = make_group(100, 0.5, PLACE_RANDOM, 7);
    g.packing_fraction = 0.3;
    scenario s = make_scenario(3, 10.0, CAROM_PERIODIC, &g, 1);
    build_fails(&s, "9:25", "packing_fraction and world.box both size the box");
    build_fails(&s, "9:25", "remove packing_fraction, or world.box at line 3");
    scenario_group two[2] = {make_group(10, 0.5, PLACE_RANDOM, 7),
                             make_group(10, 0.5, PLACE_RANDOM, 12)};
    two[0].packing_fraction = 0.1;
    two[1].packing_fraction = 0.2;
    scenario s2 = make_scenario(3, 0.0, CAROM_PERIODIC, two, 2);
    build_fails(&s2, "14:25", "a second packing_fraction");
}

static void test_no_box(void)
{
    scenario_group g = make_group(100, 0.5, PLACE_RANDOM, 7);
    scenario s = make_scenario(3, 0.0, CAROM_PERIODIC, &g, 1);
    build_fails(&s, "6:1", "no box: give world.box or a group's packing_fraction");
}

static void test_box_from_file_lattice(void)
{
    char path[1024];
    scenario_group g[2] = {file_group("reordered.xyz", path, sizeof path, 7),
                           make_group(5, 0.25, PLACE_RANDOM, 9)};
    scenario s = make_scenario(3, 0.0, CAROM_PERIODIC, g, 2);
    double box[3];
    carom_world *w = build_ok(&s, box);
    if (!w) return;
    CHECK(box[0] == 8.0 && box[1] == 9.0 && box[2] == 10.0);
    check_placed(w, 8);
    /* Bodies from the file keep their velocities (no momentum removal). */
    check_vec(body(w, 0).velocity, 0.1, 0.2, 0.3);
    check_vec(body(w, 1).velocity, -0.1, -0.2, -0.3);
    check_vec(body(w, 2).position, 0.5, 0.25, -3.5);
    CHECK(body(w, 1).mass == 3.0 && body(w, 1).radius == 0.6);
    carom_world_destroy(w);
}

static void test_file_group_errors(void)
{
    char path[1024], error[1024] = "";
    scenario_group g = file_group("broken/word_value.xyz", path, sizeof path, 7);
    scenario s = make_scenario(3, 10.0, CAROM_PERIODIC, &g, 1);
    carom_world *w = build(&s, NULL, error, sizeof error);
    CHECK(w == NULL);
    CHECK_MSG(error_is(error, path, "3:5", "is not a number"), "%s", error);
    g = file_group("no_such_file.xyz", path, sizeof path, 7); /* said at the scenario's file: key */
    build_fails(&s, "7:13", "cannot open no_such_file.xyz: No such file");
    g = file_group("overlap.xyz", path, sizeof path, 7);
    build_fails(&s, "7:5", "overlap.xyz, line 4: body 1");
    build_fails(&s, "7:5", "overlaps body 0");
}

/* ---- placement: velocities ---------------------------------------------------------- */

typedef struct group_motion {
    carom_vec momentum;
    double momentum_scale; /* sum of m |v| */
    double temperature;    /* 2 KE / (dim n) */
    double min_speed, max_speed;
} group_motion;

static group_motion motion_of(const carom_world *w, int dim, int32_t first, int32_t n)
{
    group_motion g = {{0, 0, 0}, 0.0, 0.0, INFINITY, 0.0};
    double twice_ke = 0.0;
    for (int32_t i = first; i < first + n; i++) {
        carom_body_state b = body(w, i);
        carom_vec v = b.velocity;
        double speed = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
        g.momentum.x += b.mass * v.x, g.momentum.y += b.mass * v.y, g.momentum.z += b.mass * v.z;
        g.momentum_scale += b.mass * speed;
        twice_ke += b.mass * speed * speed;
        g.min_speed = fmin(g.min_speed, speed);
        g.max_speed = fmax(g.max_speed, speed);
    }
    g.temperature = twice_ke / (dim * (double)n);
    return g;
}

static double norm(carom_vec v) { return sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }

static void test_temperature_groups(void)
{
    for (int dim = 2; dim <= 3; dim++) {
        scenario_group g[3] = {make_group(1000, 0.4, PLACE_LATTICE, 7),
                               make_group(501, 0.3, PLACE_RANDOM, 12),
                               make_group(1, 0.3, PLACE_RANDOM, 17)};
        g[0].mass = 2.0, g[0].velocity_value = 1.7;
        g[1].mass = 0.5, g[1].velocity_value = 0.25;
        g[2].velocity_value = 3.0;
        scenario s = make_scenario(dim, dim == 3 ? 20.0 : 70.0, CAROM_WALLS, g, 3);
        carom_world *w = build_ok(&s, NULL);
        if (!w) continue;
        check_placed(w, 1502);
        group_motion a = motion_of(w, dim, 0, 1000), b = motion_of(w, dim, 1000, 501);
        CHECK_MSG(norm(a.momentum) <= 1e-12 * a.momentum_scale, "momentum %g", norm(a.momentum));
        CHECK_MSG(norm(b.momentum) <= 1e-12 * b.momentum_scale, "momentum %g", norm(b.momentum));
        CHECK_NEAR(a.temperature, 1.7, 1e-12 * 1.7);
        CHECK_NEAR(b.temperature, 0.25, 1e-12 * 0.25);
        CHECK(a.min_speed < 0.5 * a.max_speed);     /* a spread of speeds, not one */
        CHECK(norm(body(w, 1501).velocity) == 0.0); /* a group of one has zero momentum: at rest */
        if (dim == 2) CHECK(body(w, 10).velocity.z == 0.0);
        carom_world_destroy(w);
    }
}

static void test_speed_groups(void)
{
    const int64_t counts[] = {1, 2, 3, 7, 100, 101};
    for (int dim = 2; dim <= 3; dim++)
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            int64_t n = counts[k];
            scenario_group g = make_group(n, 0.5, k % 2 ? PLACE_LATTICE : PLACE_RANDOM, 7);
            g.velocity = VELOCITY_SPEED;
            g.velocity_value = 2.5;
            g.mass = 1.5;
            scenario s = make_scenario(dim, 30.0, CAROM_PERIODIC, &g, 1);
            carom_world *w = build_ok(&s, NULL);
            if (!w) continue;
            group_motion m = motion_of(w, dim, 0, (int32_t)n);
            CHECK_NEAR(m.min_speed, 2.5, 1e-12 * 2.5);
            CHECK_NEAR(m.max_speed, 2.5, 1e-12 * 2.5);
            if (n >= 2)
                CHECK_MSG(norm(m.momentum) <= 1e-12 * m.momentum_scale,
                          "%dD, %lld bodies: momentum %g", dim, (long long)n, norm(m.momentum));
            if (n >= 7) { /* random directions: the pairs do not all move alike */
                carom_vec v0 = body(w, 0).velocity, v2 = body(w, 2).velocity,
                          v4 = body(w, 4).velocity;
                CHECK(norm((carom_vec){v0.x - v2.x, v0.y - v2.y, v0.z - v2.z}) > 1e-6);
                CHECK(norm((carom_vec){v2.x - v4.x, v2.y - v4.y, v2.z - v4.z}) > 1e-6);
            }
            carom_world_destroy(w);
        }
}

/* ---- placement: reproducibility and the world def ------------------------------------ */

static int same_bodies(const carom_world *a, const carom_world *b)
{
    if (carom_world_body_count(a) != carom_world_body_count(b)) return 0;
    for (int32_t i = 0; i < carom_world_body_count(a); i++) {
        carom_body_state x = body(a, i), y = body(b, i);
        if (!same_vec_bits(x.position, y.position) || !same_vec_bits(x.velocity, y.velocity) ||
            !same_bits(x.radius, y.radius) || !same_bits(x.mass, y.mass))
            return 0;
    }
    return 1;
}

static void test_seed_decides(void)
{
    scenario_group g[3] = {make_group(200, 0.5, PLACE_LATTICE, 7),
                           make_group(301, 0.4, PLACE_RANDOM, 12),
                           make_group(51, 0.3, PLACE_RANDOM, 17)};
    g[1].velocity = VELOCITY_SPEED;
    g[1].velocity_value = 2.0;
    scenario s = make_scenario(3, 16.0, CAROM_PERIODIC, g, 3);
    s.seed = 42;
    carom_world *a = build_ok(&s, NULL), *b = build_ok(&s, NULL);
    s.seed = 43;
    carom_world *c = build_ok(&s, NULL);
    if (a && b && c) {
        CHECK(same_bodies(a, b));
        CHECK(!same_bodies(a, c));
        CHECK(same_vec_bits(body(a, 0).position,
                            body(c, 0).position)); /* the lattice does not draw */
        CHECK(!same_vec_bits(body(a, 300).position, body(c, 300).position));
    }
    carom_world_destroy(a);
    carom_world_destroy(b);
    carom_world_destroy(c);
}

static void test_world_def(void)
{
    char path[64] = "unused.xyz";
    scenario_group g[3] = {make_group(30, 0.5, PLACE_RANDOM, 7),
                           make_group(12, 0.5, PLACE_RANDOM, 9),
                           make_group(-1, 0.5, PLACE_RANDOM, 11)};
    g[2].file = path;
    scenario s = make_scenario(2, 0.0, CAROM_WALLS, g, 3);
    s.boundary[1] = CAROM_PERIODIC;
    s.gravity[1] = -9.5;
    s.restitution = 0.8, s.wall_restitution = 0.6, s.elastic_below_speed = 0.01;
    const double box[3] = {40.0, 30.0, 7.0};
    carom_world_def def = place_world_def(&s, box);
    CHECK_EQ_INT(def.dim, 2);
    CHECK(def.box.x == 40.0 && def.box.y == 30.0 && def.box.z == 1.0);
    CHECK(def.boundary[0] == CAROM_WALLS && def.boundary[1] == CAROM_PERIODIC);
    CHECK(def.gravity.x == 0.0 && def.gravity.y == -9.5);
    CHECK(def.restitution == 0.8 && def.wall_restitution == 0.6 && def.elastic_below_speed == 0.01);
    CHECK_EQ_INT(def.capacity_hint, 42);
    CHECK(def.on_event == NULL);
}

static int64_t events_seen;
static int count_event(void *user, const carom_event *e)
{
    (void)e;
    CHECK(user == &events_seen);
    events_seen++;
    return 0;
}

static void test_callback_and_world_errors(void)
{
    scenario_group g = make_group(200, 0.5, PLACE_RANDOM, 7);
    scenario s = make_scenario(3, 10.0, CAROM_PERIODIC, &g, 1);
    carom_world *w = NULL;
    char error[512] = "";
    CHECK_EQ_INT(
        place_build_world(&s, count_event, &events_seen, (double[3]){0}, &w, error, sizeof error),
        0);
    if (w) {
        CHECK(carom_world_run(w, 2.0, -1) == CAROM_OK);
        CHECK(events_seen > 0);
        carom_world_destroy(w);
    }
    s.restitution = 2.0; /* the world refuses it: the message says so, at the box */
    build_fails(&s, "3:8", "restitution");
    s.restitution = 1.0;
    s.box[0] = s.box[1] = s.box[2] = 2.0; /* periodic sides under three diameters */
    g.count = 2;
    build_fails(&s, "7:5", "periodic side");
}

/* ---- placement: frames, Lattice, species, temperature ------------------------------- */

static scenario_group temp_file_group(char *path, size_t size, const char *text, int line)
{
    scenario_group g = make_group(-1, 0.5, PLACE_RANDOM, line);
    write_temp(path, size, text);
    g.file = path;
    g.file_resolved = path;
    g.frame_mark = (scenario_mark){line + 1, 12};
    return g;
}

static void test_file_frames_and_lattice(void)
{
    char path[512], error[1024] = "";
    /* Two frames in a 10-box, carom's way (Origin at -5): the last is used. */
    const char *text = "1\nLattice=\"10 0 0 0 10 0 0 0 10\" Origin=\"-5 -5 -5\" "
                       "Properties=species:S:1:pos:R:3\nX 1 0 0\n"
                       "1\nLattice=\"10 0 0 0 10 0 0 0 10\" Origin=\"-5 -5 -5\" "
                       "Properties=species:S:1:pos:R:3\nX 2 0 0\n";
    scenario_group g = temp_file_group(path, sizeof path, text, 7);
    g.frame = -1;
    scenario s = make_scenario(3, 10.0, CAROM_PERIODIC, &g, 1);
    carom_world *w = build(&s, NULL, error, sizeof error);
    CHECK_MSG(w != NULL, "%s", error);
    if (w) CHECK(body(w, 0).position.x == 2.0);
    carom_world_destroy(w);
    /* No box in the scenario: the Lattice becomes it. */
    s.has_box = 0;
    double box[3] = {0, 0, 0};
    w = build(&s, box, error, sizeof error);
    CHECK_MSG(w != NULL && box[0] == 10.0 && box[2] == 10.0, "%s", error);
    carom_world_destroy(w);
    /* A box that is not the Lattice: refused at the Lattice of the frame read. */
    s = make_scenario(3, 12.0, CAROM_PERIODIC, &g, 1);
    w = build(&s, NULL, error, sizeof error);
    CHECK(w == NULL);
    CHECK_MSG(error_is(error, path, "5:10", "Lattice side x = 10 is not the world's box side 12"),
              "%s", error);
    /* In 2D only x and y are compared (carom writes Lz = 1). */
    s = make_scenario(2, 10.0, CAROM_PERIODIC, &g, 1);
    w = build(&s, NULL, error, sizeof error);
    CHECK_MSG(w != NULL, "%s", error);
    carom_world_destroy(w);
    /* A frame past the end: said at the scenario's frame: key. */
    g.frame = 2;
    s = make_scenario(3, 10.0, CAROM_PERIODIC, &g, 1);
    build_fails(&s, "8:12", "bodies[0].frame 2 is past the end of");
    build_fails(&s, "8:12", "which has 2 frames (expected -2 to 1: 0 the first, -1 the last)");
    g.frame = -3;
    build_fails(&s, "8:12", "bodies[0].frame -3 is past the end");
    /* A body that does not fit is named by its line in the frame read. */
    remove(path);
    g = temp_file_group(path, sizeof path,
                        "1\nProperties=species:S:1:pos:R:3\nX 0 0 0\n"
                        "2\nProperties=species:S:1:pos:R:3\nX 0 0 0\nX 0.5 0 0\n",
                        7);
    g.frame = 1;
    s = make_scenario(3, 10.0, CAROM_PERIODIC, &g, 1);
    build_fails(&s, "7:5", "line 7: body 1");
    remove(path);
}

static void test_species_text(void)
{
    char path[512], error[1024] = "";
    scenario_group g[3] = {make_group(4, 0.3, PLACE_LATTICE, 7),
                           temp_file_group(path, sizeof path,
                                           "2\nProperties=species:S:1:pos:R:3\nY 3 3 3\nY -3 3 3\n",
                                           10),
                           make_group(3, 0.3, PLACE_RANDOM, 13)};
    g[0].name = "Ar";
    g[1].name = "He";
    scenario s = make_scenario(3, 10.0, CAROM_PERIODIC, g, 3);
    carom_world *w = NULL;
    char *species = NULL;
    CHECK_MSG(place_build_world_named(&s, NULL, NULL, (double[3]){0}, &w, &species, error,
                                      sizeof error) == 0,
              "%s", error);
    CHECK_MSG(species && strcmp(species, "Ar 4 He 2 X 3") == 0, "species '%s'",
              species ? species : "(null)");
    /* And the frame written with it names every body. */
    const int periodic[3] = {1, 1, 1};
    char *text = w && species ? frame_text(w, 3, (double[3]){10, 10, 10}, periodic, species) : NULL;
    if (text) {
        const char *lines[9] = {0};
        int n = 0;
        for (const char *p = strchr(strchr(text, '\n') + 1, '\n'); p && p[1] && n < 9;
             p = strchr(p + 1, '\n'))
            lines[n++] = p + 1;
        CHECK_EQ_INT(n, 9);
        for (int k = 0; k < n; k++)
            CHECK_MSG(strncmp(lines[k], k < 4 ? "Ar " : k < 6 ? "He " : "X ", k < 6 ? 3 : 2) == 0,
                      "line %d: %.20s", k, lines[k]);
    }
    free(text);
    free(species);
    carom_world_destroy(w);
    remove(path);
}

/* A group at temperature T reads back as T from the world's own statistics,
 * checked against 2 KE / (dim N - c) computed here from the bodies. */
static void test_temperature_is_the_worlds(void)
{
    for (int dim = 2; dim <= 3; dim++)
        for (int walls = 0; walls <= 1; walls++) {
            scenario_group g = make_group(200, 0.3, PLACE_LATTICE, 7);
            g.velocity_value = 1.5;
            g.mass = 2.0;
            scenario s = make_scenario(dim, dim == 3 ? 12.0 : 30.0,
                                       walls ? CAROM_WALLS : CAROM_PERIODIC, &g, 1);
            carom_world *w = build_ok(&s, NULL);
            if (!w) continue;
            group_motion m = motion_of(w, dim, 0, 200);
            double freedom = walls ? dim * 200.0 : dim * 199.0;
            CHECK_NEAR(m.temperature * dim * 200.0 / freedom, 1.5, 1e-12 * 1.5);
            CHECK_NEAR(carom_world_stats(w).temperature, 1.5, 1e-12 * 1.5);
            carom_world_destroy(w);
        }
}

int main(void)
{
    RUN(test_round_trip_3d);
    RUN(test_round_trip_2d);
    RUN(test_header_written);
    RUN(test_write_error);
    RUN(test_reordered_properties);
    RUN(test_extra_columns);
    RUN(test_missing_columns_default);
    RUN(test_broken_files);
    RUN(test_velocity_and_mass_names);
    RUN(test_refused_columns);
    RUN(test_frame_selection);
    RUN(test_cell_origin);
    RUN(test_random_placement);
    RUN(test_random_around_earlier_groups);
    RUN(test_random_too_dense_fails_fast);
    RUN(test_lattice_awkward_counts);
    RUN(test_lattice_is_fcc_and_hexagonal);
    RUN(test_lattice_too_dense);
    RUN(test_lattice_overlapping_earlier_group);
    RUN(test_packing_fraction_sets_box);
    RUN(test_box_and_packing_fraction_conflict);
    RUN(test_no_box);
    RUN(test_box_from_file_lattice);
    RUN(test_file_group_errors);
    RUN(test_temperature_groups);
    RUN(test_speed_groups);
    RUN(test_seed_decides);
    RUN(test_world_def);
    RUN(test_callback_and_world_errors);
    RUN(test_file_frames_and_lattice);
    RUN(test_species_text);
    RUN(test_temperature_is_the_worlds);
    return CHECK_SUMMARY();
}
