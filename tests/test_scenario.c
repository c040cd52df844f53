/* test_scenario.c — the scenario reader (tools/scenario.c): a full scenario
 * read to exactly its values, defaults, flow and block styles, comments,
 * per-axis boundaries, a single-number box, file paths; then a catalogue of
 * broken scenarios, each checked for the exact FILE:LINE:COL of its message,
 * a key phrase, and nothing left allocated. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "scenario.h"

/* ---- helpers --------------------------------------------------------------- */

typedef struct attempt {
    char path[64];
    char error[512];
    int status;
} attempt;

/* Writes text to a new file under /tmp, loads it into s and removes the file. */
static attempt load_text(const char *text, scenario *s)
{
    attempt a = {.status = -2};
    snprintf(a.path, sizeof a.path, "/tmp/carom_scenario_XXXXXX");
    int fd = mkstemp(a.path);
    FILE *file = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK_MSG(file != NULL, "cannot create %s", a.path);
    if (!file) {
        scenario_init(s);
        return a;
    }
    fputs(text, file);
    fclose(file);
    a.status = scenario_load(a.path, s, a.error, sizeof a.error);
    unlink(a.path);
    return a;
}

/* The path of a fixture under tests/data/scenarios. */
static const char *fixture(const char *name, char *buf, size_t size)
{
    const char *data = getenv("CAROM_TEST_DATA");
    if (data) {
        snprintf(buf, size, "%s/scenarios/%s", data, name);
    } else { /* run by hand: next to this source file */
        const char *slash = strrchr(__FILE__, '/');
        int dir_length = slash ? (int)(slash - __FILE__) : 1;
        snprintf(buf, size, "%.*s/data/scenarios/%s", dir_length, slash ? __FILE__ : ".", name);
    }
    return buf;
}

/* Loading text fails with "PATH:LINE:COL: ...phrase... (...)" and leaves s empty. */
static void expect_error(const char *name, const char *text, int line, int col, const char *phrase)
{
    scenario s;
    attempt a = load_text(text, &s);
    char prefix[96];
    snprintf(prefix, sizeof prefix, "%s:%d:%d: ", a.path, line, col);
    CHECK_MSG(a.status == -1, "%s: status %d", name, a.status);
    CHECK_MSG(strncmp(a.error, prefix, strlen(prefix)) == 0, "%s: expected '%s...', got '%s'", name,
              prefix, a.error);
    CHECK_MSG(strstr(a.error, phrase) != NULL, "%s: expected '%s' in '%s'", name, phrase, a.error);
    size_t length = strlen(a.error);
    CHECK_MSG(length > 0 && a.error[length - 1] == ')' && strstr(a.error, " (") != NULL,
              "%s: not 'what is wrong (what was expected)': '%s'", name, a.error);
    CHECK_MSG(!strchr(a.error, '\n'), "%s: more than one line: '%s'", name, a.error);
    CHECK_MSG(!s.path && !s.groups && s.group_count == 0 && !s.trajectory && !s.stats,
              "%s: something left allocated", name);
    scenario_free(&s);
}

/* Loading text succeeds (s must be freed by the caller). */
static int expect_ok(const char *name, const char *text, scenario *s)
{
    attempt a = load_text(text, s);
    CHECK_MSG(a.status == 0, "%s: %s", name, a.error);
    return a.status == 0;
}

static int same_text(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* ---- valid scenarios ------------------------------------------------------- */

static void check_full_world(const scenario *s)
{
    CHECK_EQ_INT(s->dim, 3);
    CHECK_EQ_INT(s->has_box, 1);
    CHECK(s->box[0] == 20.0 && s->box[1] == 30.0 && s->box[2] == 40.0);
    CHECK(s->boundary[0] == CAROM_PERIODIC && s->boundary[1] == CAROM_PERIODIC);
    CHECK(s->boundary[2] == CAROM_WALLS);
    CHECK(s->gravity[0] == 0.0 && s->gravity[1] == 0.0 && s->gravity[2] == -1.5);
    CHECK(s->restitution == 0.9);
    CHECK(s->wall_restitution == 0.8);
    CHECK(s->elastic_below_speed == 0.01);
    CHECK(s->neighbour_shell == -1.0);
    CHECK(s->seed == 42);
}

static void check_full_groups(const scenario *s, const char *dir)
{
    CHECK_EQ_INT(s->group_count, 2);
    if (s->group_count != 2) return;
    const scenario_group *g = &s->groups[0];
    CHECK_EQ_INT(g->count, 4000);
    CHECK(g->radius == 0.25 && g->mass == 2.0);
    CHECK(g->place == PLACE_LATTICE);
    CHECK(g->velocity == VELOCITY_TEMPERATURE && g->velocity_value == 1.5);
    CHECK(g->packing_fraction == 0.3);
    CHECK(g->file == NULL && g->file_resolved == NULL);
    g = &s->groups[1];
    CHECK_EQ_INT(g->count, -1);
    CHECK(g->radius == 0.75 && g->mass == 3.0);
    CHECK(same_text(g->file, "more.xyz"));
    char resolved[512];
    CHECK(snprintf(resolved, sizeof resolved, "%s/more.xyz", dir) < (int)sizeof resolved);
    CHECK_MSG(same_text(g->file_resolved, resolved), "%s", g->file_resolved);
}

static void check_full_run_output(const scenario *s)
{
    CHECK(s->until == 100.0);
    CHECK_EQ_INT(s->events, 10000000);
    CHECK(same_text(s->trajectory, "traj.xyz"));
    CHECK(s->every == 2.5 && s->has_every == 1);
    CHECK(same_text(s->events_log, "events.csv"));
    CHECK(same_text(s->stats, "-"));
    CHECK(same_text(s->checkpoint, "state.ckpt"));
    CHECK(s->checkpoint_every == 10.0);
}

static void check_fixture(const char *name)
{
    char path[512], dir[512];
    fixture(name, path, sizeof path);
    fixture("", dir, sizeof dir);
    dir[strlen(dir) - 1] = '\0'; /* no trailing slash */
    scenario s;
    char error[512];
    int status = scenario_load(path, &s, error, sizeof error);
    CHECK_MSG(status == 0, "%s", error);
    if (status != 0) return;
    CHECK(same_text(s.path, path));
    check_full_world(&s);
    check_full_groups(&s, dir);
    check_full_run_output(&s);
    scenario_free(&s);
    CHECK(s.path == NULL && s.groups == NULL && s.group_count == 0);
}

static void test_full_scenario(void) { check_fixture("full.yaml"); }

static void test_flow_style(void) { check_fixture("flow.yaml"); }

static void test_defaults(void)
{
    scenario s;
    if (!expect_ok("defaults", "world: {}\nbodies:\n  - count: 10\n", &s)) return;
    CHECK_EQ_INT(s.dim, 3);
    CHECK_EQ_INT(s.has_box, 0);
    for (int a = 0; a < 3; a++) CHECK(s.boundary[a] == CAROM_PERIODIC && s.gravity[a] == 0.0);
    CHECK(s.restitution == 1.0 && s.wall_restitution == 1.0 && s.elastic_below_speed == 0.0);
    CHECK(s.neighbour_shell == 0.0);
    CHECK(s.seed == 1);
    CHECK(isinf(s.until) && s.until > 0);
    CHECK_EQ_INT(s.events, -1);
    CHECK(s.every == 1.0 && s.has_every == 0);
    CHECK(!s.trajectory && !s.events_log && !s.stats && !s.checkpoint);
    CHECK(s.checkpoint_every == 0.0);
    CHECK_EQ_INT(s.group_count, 1);
    const scenario_group *g = &s.groups[0];
    CHECK(g->radius == 0.5 && g->mass == 1.0 && g->place == PLACE_RANDOM);
    CHECK(g->velocity == VELOCITY_TEMPERATURE && g->velocity_value == 1.0);
    CHECK(g->packing_fraction == 0.0 && !g->file && !g->file_resolved);
    scenario_free(&s);
}

static void test_every_default(void)
{
    scenario s;
    if (!expect_ok("every", "world: {}\nbodies: [{count: 1}]\nrun: {until: 50}\n", &s)) return;
    CHECK(s.every == 0.5 && s.has_every == 0);
    scenario_free(&s);
}

static void test_block_and_flow_agree(void)
{
    const char *block = "world:\n  dim: 2\n  box:\n    - 4\n    - 5\n  boundary: walls\n"
                        "bodies:\n  - count: 3\n    velocity:\n      speed: 2\nrun:\n  until: 10\n";
    const char *flow = "{world: {dim: 2, box: [4, 5], boundary: walls},\n"
                       " bodies: [{count: 3, velocity: {speed: 2}}], run: {until: 10}}\n";
    scenario a, b;
    if (!expect_ok("block", block, &a)) return;
    if (expect_ok("flow", flow, &b)) {
        CHECK(a.dim == 2 && b.dim == 2);
        CHECK(a.box[0] == 4.0 && a.box[1] == 5.0 && b.box[0] == 4.0 && b.box[1] == 5.0);
        CHECK(a.boundary[0] == CAROM_WALLS && b.boundary[1] == CAROM_WALLS);
        CHECK(a.groups[0].velocity == VELOCITY_SPEED && b.groups[0].velocity == VELOCITY_SPEED);
        CHECK(a.groups[0].velocity_value == 2.0 && b.groups[0].velocity_value == 2.0);
        CHECK(a.until == 10.0 && b.until == 10.0);
        scenario_free(&b);
    }
    scenario_free(&a);
}

static void test_comments(void)
{
    const char *text = "# a comment first\n"
                       "world:   # after a key\n"
                       "  # a line of its own\n"
                       "  dim: 2  # after a value\n"
                       "  box: [10,   # inside a flow list\n"
                       "        12]\n"
                       "\n"
                       "bodies:\n"
                       "  # before a group\n"
                       "  - count: 5 #no space before the text\n"
                       "# last\n";
    scenario s;
    if (!expect_ok("comments", text, &s)) return;
    CHECK(s.dim == 2 && s.box[0] == 10.0 && s.box[1] == 12.0);
    CHECK_EQ_INT(s.groups[0].count, 5);
    scenario_free(&s);
}

static void test_boundary_lists(void)
{
    scenario s;
    if (expect_ok("2d", "world: {dim: 2, boundary: [walls, periodic]}\nbodies: [{count: 1}]\n",
                  &s)) {
        CHECK(s.boundary[0] == CAROM_WALLS && s.boundary[1] == CAROM_PERIODIC);
        scenario_free(&s);
    }
    if (expect_ok("3d", "world:\n  boundary: [periodic, walls, periodic]\nbodies: [{count: 1}]\n",
                  &s)) {
        CHECK(s.boundary[0] == CAROM_PERIODIC && s.boundary[1] == CAROM_WALLS);
        CHECK(s.boundary[2] == CAROM_PERIODIC);
        scenario_free(&s);
    }
    if (expect_ok("one", "world: {boundary: walls}\nbodies: [{count: 1}]\n", &s)) {
        for (int a = 0; a < 3; a++) CHECK(s.boundary[a] == CAROM_WALLS);
        scenario_free(&s);
    }
}

static void test_single_number_box(void)
{
    scenario s;
    if (expect_ok("cube", "world: {box: 7.5}\nbodies: [{count: 1}]\n", &s)) {
        CHECK(s.has_box && s.box[0] == 7.5 && s.box[1] == 7.5 && s.box[2] == 7.5);
        scenario_free(&s);
    }
    if (expect_ok("square", "world: {dim: 2, box: 3}\nbodies: [{count: 1}]\n", &s)) {
        CHECK(s.has_box && s.box[0] == 3.0 && s.box[1] == 3.0);
        scenario_free(&s);
    }
}

static void test_file_paths(void)
{
    scenario s;
    if (expect_ok("relative", "world: {}\nbodies:\n  - file: sub/more.xyz\n", &s)) {
        CHECK(same_text(s.groups[0].file, "sub/more.xyz"));
        CHECK_MSG(same_text(s.groups[0].file_resolved, "/tmp/sub/more.xyz"), "%s",
                  s.groups[0].file_resolved);
        scenario_free(&s);
    }
    if (expect_ok("absolute", "world: {}\nbodies:\n  - file: /data/more.xyz\n", &s)) {
        CHECK(same_text(s.groups[0].file_resolved, "/data/more.xyz"));
        scenario_free(&s);
    }
}

static void test_whole_numbers(void)
{
    scenario s;
    const char *text = "world: {}\nseed: 18446744073709551615\nbodies: [{count: 1e3}]\n"
                       "run: {events: 9223372036854775807}\n";
    if (!expect_ok("whole", text, &s)) return;
    CHECK(s.seed == UINT64_MAX);
    CHECK_EQ_INT(s.groups[0].count, 1000);
    CHECK(s.events == INT64_MAX);
    scenario_free(&s);
}

static void test_marks(void)
{
    const char *text = "world:\n  dim: 2\n  box: [4, 4]\nbodies:\n  - count: 3\n    radius: 0.1\n"
                       "    packing_fraction: 0.2\n  - file: a.xyz\n";
    scenario s;
    if (!expect_ok("marks", text, &s)) return;
    CHECK(s.dim_mark.line == 2 && s.dim_mark.col == 8);
    CHECK(s.box_mark.line == 3 && s.box_mark.col == 8);
    CHECK(s.bodies_mark.line == 5 && s.bodies_mark.col == 3);
    const scenario_group *g = s.groups;
    CHECK(g[0].mark.line == 5 && g[0].mark.col == 5);
    CHECK(g[0].count_mark.line == 5 && g[0].count_mark.col == 12);
    CHECK(g[0].radius_mark.line == 6 && g[0].radius_mark.col == 13);
    CHECK(g[0].packing_mark.line == 7 && g[0].packing_mark.col == 23);
    CHECK(g[1].file_mark.line == 8 && g[1].file_mark.col == 11);
    CHECK(g[1].radius_mark.line == 8 && g[1].radius_mark.col == 5); /* absent: the group */
    scenario_free(&s);
}

/* ---- broken scenarios ------------------------------------------------------ */

static void test_unknown_keys(void)
{
    expect_error("top level", "world: {}\nbodies: [{count: 1}]\ncolour: blue\n", 3, 1,
                 "unknown key 'colour' at the top level (expected one of: world, seed, bodies");
    expect_error("world", "world:\n  dim: 2\n  colour: blue\nbodies: [{count: 1}]\n", 3, 3,
                 "unknown key 'colour' in world (expected one of: dim, box, boundary");
    expect_error("group", "world: {}\nbodies:\n  - count: 1\n    colour: blue\n", 4, 5,
                 "unknown key 'colour' in bodies[0] (expected one of: count, file, radius");
    expect_error("run", "world: {}\nbodies: [{count: 1}]\nrun: {until: 1, time: 2}\n", 3, 17,
                 "unknown key 'time' in run (expected one of: until, events, equilibrate, window, controls, compress)");
    expect_error("list as a key", "world: {[dim]: 3}\nbodies: [{count: 1}]\n", 1, 9,
                 "a key in world is a list (expected one of: dim, box");
    expect_error("output", "world: {}\nbodies: [{count: 1}]\noutput:\n  trajectroy: t.xyz\n", 4, 3,
                 "unknown key 'trajectroy' in output");
}

static void test_wrong_types(void)
{
    expect_error("string for a number", "world:\n  dim: three\nbodies: [{count: 1}]\n", 2, 8,
                 "world.dim = three is not a number (expected 2 or 3)");
    expect_error(
        "quoted number", "world: {restitution: \"0.9\"}\nbodies: [{count: 1}]\n", 1, 22,
        "world.restitution is the string '0.9' (expected a number in [0, 1], without quotes)");
    expect_error("short list", "world:\n  box: [20, 20]\nbodies: [{count: 1}]\n", 2, 8,
                 "world.box has 2 numbers (expected a list of 3 numbers");
    expect_error("long gravity", "world: {dim: 2, gravity: [0, 0, -1]}\nbodies: [{count: 1}]\n", 1,
                 26, "world.gravity has 3 numbers (expected a list of 2 numbers)");
    expect_error("mapping for a list", "world:\n  gravity: {z: -1}\nbodies: [{count: 1}]\n", 2, 12,
                 "world.gravity is a mapping (expected a list of 3 numbers)");
    expect_error("string in a list", "world:\n  box: [1, two, 3]\nbodies: [{count: 1}]\n", 2, 12,
                 "world.box = two is not a number");
    expect_error("list for a number", "world: {}\nbodies:\n  - count: 1\n    radius: [1]\n", 4, 13,
                 "bodies[0].radius is a list (expected a finite number > 0)");
    expect_error("mapping for bodies", "world: {}\nbodies:\n  count: 1\n", 3, 3,
                 "bodies is a mapping (expected a list of groups");
    expect_error("scalar for world", "world: 3\nbodies: [{count: 1}]\n", 1, 8,
                 "world is '3' (expected a mapping");
    expect_error("empty value", "world:\n  restitution:\nbodies: [{count: 1}]\n", 2, 15,
                 "world.restitution is empty (expected a number in [0, 1])");
    expect_error("list for a file", "world: {}\nbodies:\n  - file: [a.xyz]\n", 3, 11,
                 "bodies[0].file is a list (expected a file name)");
    expect_error("block scalar", "world:\n  dim: |\n    3\n    4\nbodies: [{count: 1}]\n", 2, 8,
                 "world.dim is the string '3?4?' (expected 2 or 3, without quotes)");
    expect_error("null file", "world: {}\nbodies: [{count: 1}]\noutput: {stats: ~}\n", 3, 17,
                 "output.stats is null (expected a file name)");
}

static void test_out_of_range(void)
{
    const char *head = "world: {}\nbodies:\n  - count: 1\n";
    char text[256];
    snprintf(text, sizeof text, "%s    radius: -0.5\n", head);
    expect_error("negative radius", text, 4, 13,
                 "bodies[0].radius = -0.5 is out of range (expected a finite number > 0)");
    snprintf(text, sizeof text, "%s    mass: 0\n", head);
    expect_error("zero mass", text, 4, 11, "bodies[0].mass = 0 is out of range");
    expect_error("restitution 1.5", "world:\n  restitution: 1.5\nbodies: [{count: 1}]\n", 2, 16,
                 "world.restitution = 1.5 is out of range (expected a number in [0, 1])");
    expect_error("dim 4", "world:\n  dim: 4\nbodies: [{count: 1}]\n", 2, 8,
                 "world.dim = 4 is out of range (expected 2 or 3)");
    snprintf(text, sizeof text, "%s    packing_fraction: 1.2\n", head);
    expect_error("packing 1.2", text, 4, 23,
                 "bodies[0].packing_fraction = 1.2 is out of range (expected a number in (0, 1))");
    expect_error("zero until", "world: {}\nbodies: [{count: 1}]\nrun: {until: 0}\n", 3, 14,
                 "run.until = 0 is out of range");
    expect_error("negative every", "world: {}\nbodies: [{count: 1}]\noutput: {every: -1}\n", 3, 17,
                 "output.every = -1 is out of range");
    expect_error("negative speed", "world: {}\nbodies: [{count: 1, velocity: {speed: -2}}]\n", 2,
                 39,
                 "bodies[0].velocity.speed = -2 is out of range (expected a finite number >= 0)");
}

static void test_not_finite(void)
{
    expect_error(".nan", "world:\n  restitution: .nan\nbodies: [{count: 1}]\n", 2, 16,
                 "world.restitution = .nan is not a finite number");
    expect_error("nan", "world:\n  gravity: [0, nan, 0]\nbodies: [{count: 1}]\n", 2, 16,
                 "world.gravity = nan is not a finite number");
    expect_error(".inf", "world: {}\nbodies: [{count: 1}]\nrun:\n  until: .inf\n", 4, 10,
                 "run.until = .inf is not a finite number");
    expect_error("-.Inf", "world: {gravity: [0, 0, -.Inf]}\nbodies: [{count: 1}]\n", 1, 25,
                 "world.gravity = -.Inf is not a finite number");
    expect_error("overflow", "world: {box: 1e999}\nbodies: [{count: 1}]\n", 1, 14,
                 "world.box = 1e999 is not a finite number");
    expect_error("hex", "world: {box: 0x10}\nbodies: [{count: 1}]\n", 1, 14,
                 "world.box = 0x10 is not a number");
}

static void test_whole_number_errors(void)
{
    expect_error("count 1.5", "world: {}\nbodies:\n  - count: 1.5\n", 3, 12,
                 "bodies[0].count = 1.5 is not a whole number (expected a whole number from 1 to "
                 "2147483647, the most bodies carom supports)");
    expect_error("count 0", "world: {}\nbodies:\n  - count: 0\n", 3, 12,
                 "bodies[0].count = 0 is out of range (expected a whole number from 1");
    /* Too many bodies: one group, or a sum over groups past int32 (each group is fine alone). */
    expect_error("count 1e12", "world: {}\nbodies:\n  - count: 1e12\n", 3, 12,
                 "bodies[0].count = 1e12 is out of range (expected a whole number from 1 to "
                 "2147483647, the most bodies carom supports)");
    expect_error("count 2^31", "world: {}\nbodies:\n  - count: 2147483648\n", 3, 12,
                 "bodies[0].count = 2147483648 is out of range");
    expect_error("count sum", "world: {}\nbodies:\n  - count: 2000000000\n  - {file: a.xyz}\n"
                 "  - count:  200000000\n",
                 5, 13,
                 "bodies[2].count = 200000000 brings the bodies to 2200000000, more than carom "
                 "supports (expected at most 2147483647 bodies in all groups)");
    expect_error("count -3", "world: {}\nbodies:\n  - count: -3\n", 3, 12,
                 "bodies[0].count = -3 is out of range");
    expect_error("count > int64", "world: {}\nbodies:\n  - count: 9223372036854775808\n", 3, 12,
                 "bodies[0].count = 9223372036854775808 is out of range");
    expect_error("events 1e30", "world: {}\nbodies: [{count: 1}]\nrun: {events: 1e30}\n", 3, 15,
                 "run.events = 1e30 is out of range");
    expect_error("seed > uint64", "world: {}\nseed: 18446744073709551616\nbodies: [{count: 1}]\n",
                 2, 7,
                 "seed = 18446744073709551616 is out of range (expected a whole number >= 0)");
    expect_error("negative seed", "world: {}\nseed: -1\nbodies: [{count: 1}]\n", 2, 7,
                 "seed = -1 is out of range");
}

static void test_choices(void)
{
    expect_error("boundary wall", "world:\n  boundary: wall\nbodies: [{count: 1}]\n", 2, 13,
                 "world.boundary = wall is not allowed (expected walls or periodic)");
    expect_error("boundary list typo",
                 "world:\n  boundary: [periodic, wall, walls]\nbodies: [{count: 1}]\n", 2, 24,
                 "world.boundary = wall is not allowed (expected walls or periodic)");
    expect_error("boundary list length",
                 "world:\n  boundary: [walls, walls]\nbodies: [{count: 1}]\n", 2, 13,
                 "world.boundary has 2 entries (expected walls or periodic, or a list of 3");
    expect_error("place", "world: {}\nbodies:\n  - count: 1\n    place: grid\n", 4, 12,
                 "bodies[0].place = grid is not allowed (expected random or lattice)");
}

static void test_group_sources(void)
{
    expect_error("count and file",
                 "world: {}\nbodies:\n  - count: 1\n  - count: 2\n    file: a.xyz\n", 4, 5,
                 "bodies[1] has both count and file (expected one of them");
    expect_error("neither", "world: {}\nbodies:\n  - radius: 1\n", 3, 5,
                 "bodies[0] has neither count nor file (expected count: N");
    expect_error(
        "packing alone", "world: {}\nbodies:\n  - packing_fraction: 0.3\n", 3, 5,
        "bodies[0] has packing_fraction but no count (expected count: N with packing_fraction)");
    expect_error("file with place", "world: {}\nbodies:\n  - file: a.xyz\n    place: lattice\n", 4,
                 5, "bodies[0].place does not apply to bodies read from a file");
    expect_error("file with velocity",
                 "world: {}\nbodies:\n  - file: a.xyz\n    velocity: {speed: 1}\n", 4, 5,
                 "bodies[0].velocity does not apply to bodies read from a file");
    expect_error("empty bodies", "world: {}\nbodies: []\n", 2, 9,
                 "bodies is an empty list (expected a list of groups");
    expect_error("missing bodies", "world:\n  dim: 3\nrun: {until: 1}\n", 1, 1,
                 "bodies is missing (expected a bodies: list of groups)");
    expect_error("missing world", "seed: 3\nbodies: [{count: 1}]\n", 1, 1, "world is missing");
}

static void test_velocity_errors(void)
{
    const char *head = "world: {}\nbodies:\n  - count: 1\n";
    char text[256];
    snprintf(text, sizeof text, "%s    velocity: {temperature: 1, speed: 2}\n", head);
    expect_error("two keys", text, 4, 15,
                 "bodies[0].velocity has 2 keys (expected exactly one: temperature or speed)");
    snprintf(text, sizeof text, "%s    velocity: {}\n", head);
    expect_error("no key", text, 4, 15, "bodies[0].velocity has 0 keys");
    snprintf(text, sizeof text, "%s    velocity: {temprature: 1}\n", head);
    expect_error(
        "unknown key", text, 4, 16,
        "unknown key 'temprature' in bodies[0].velocity (expected one of: temperature, speed)");
    snprintf(text, sizeof text, "%s    velocity: 1.0\n", head);
    expect_error("scalar", text, 4, 15, "bodies[0].velocity is '1.0' (expected a mapping");
}

static void test_duplicate_keys(void)
{
    expect_error("top level", "world: {}\nbodies: [{count: 1}]\nworld: {dim: 2}\n", 3, 1,
                 "duplicate key 'world' at the top level (expected it once; first at line 1)");
    expect_error("group", "world: {}\nbodies:\n  - count: 1\n    radius: 1\n    radius: 2\n", 5, 5,
                 "duplicate key 'radius' in bodies[0] (expected it once; first at line 4)");
}

static void test_file_errors(void)
{
    expect_error("unclosed bracket", "world:\n  box: [1, 2, 3\nbodies: [{count: 1}]\n", 3, 7,
                 "invalid YAML: did not find expected ',' or ']'");
    expect_error("tab indentation", "world:\n\tdim: 3\n", 2, 1, "invalid YAML");
    expect_error("empty file", "", 1, 1, "the file is empty (expected a mapping");
    expect_error("only comments", "# nothing\n\n", 1, 1, "the file is empty");
    expect_error("top level list", "- world\n", 1, 1,
                 "the top level is a list (expected a mapping");
    expect_error("top level scalar", "\n  hello\n", 2, 3, "the top level is 'hello'");
    expect_error("two documents", "world: {}\nbodies: [{count: 1}]\n---\nseed: 2\n", 4, 1,
                 "a second YAML document (expected one document per scenario)");
}

static void test_missing_file(void)
{
    const char *path = "/tmp/carom_no_such_dir/no_such.yaml";
    scenario s;
    char error[256];
    CHECK_EQ_INT(scenario_load(path, &s, error, sizeof error), -1);
    CHECK_MSG(strcmp(error, "/tmp/carom_no_such_dir/no_such.yaml:1:1: cannot open (No such file "
                            "or directory)") == 0,
              "%s", error);
    CHECK(s.path == NULL && s.groups == NULL);
    scenario_free(&s);
}

static void test_small_error_buffer(void)
{
    scenario s;
    char error[8];
    CHECK_EQ_INT(scenario_load("/tmp/carom_no_such.yaml", &s, error, sizeof error), -1);
    CHECK(strlen(error) < sizeof error);
    CHECK_EQ_INT(scenario_load("/tmp/carom_no_such.yaml", &s, NULL, 0), -1);
    scenario_free(&s);
}

/* name: is the species written; frame: picks a frame of a file (0 default, -1 the last). */
static void test_names_and_frames(void)
{
    scenario s;
    if (expect_ok("named", "world: {}\nbodies:\n  - {count: 3, name: Ar}\n"
                           "  - {file: a.xyz, frame: -1, name: He-3}\n  - {file: b.xyz}\n",
                  &s)) {
        CHECK(same_text(s.groups[0].name, "Ar") && same_text(s.groups[1].name, "He-3"));
        CHECK(s.groups[2].name == NULL);
        CHECK(s.groups[0].frame == 0 && s.groups[1].frame == -1 && s.groups[2].frame == 0);
        CHECK(s.groups[1].frame_mark.line == 4 && s.groups[1].frame_mark.col == 26);
        scenario_free(&s);
    }
    if (expect_ok("frame 7", "world: {}\nbodies:\n  - {file: a.xyz, frame: 7}\n", &s)) {
        CHECK(s.groups[0].frame == 7);
        scenario_free(&s);
    }
    expect_error("name with a blank", "world: {}\nbodies:\n  - {count: 3, name: 'big one'}\n", 3,
                 22, "bodies[0].name 'big one' is not a species name (expected 1 to 32 letters");
    expect_error("name too long", "world: {}\nbodies:\n  - {count: 3, name: "
                 "abcdefghijabcdefghijabcdefghijabc}\n",
                 3, 22, "is not a species name");
    expect_error("frame not whole", "world: {}\nbodies:\n  - {file: a.xyz, frame: 1.5}\n", 3,
                 26, "bodies[0].frame = 1.5 is not a whole number (expected a whole number: 0 the "
                     "first frame, 1 the second, -1 the last)");
    expect_error("frame word", "world: {}\nbodies:\n  - {file: a.xyz, frame: last}\n", 3, 26,
                 "bodies[0].frame = last is not a number (expected a whole number: 0 the first");
    expect_error("frame huge", "world: {}\nbodies:\n  - {file: a.xyz, frame: -1e20}\n", 3, 26,
                 "bodies[0].frame = -1e20 is out of range");
    expect_error("frame of generated bodies", "world: {}\nbodies:\n  - {count: 3, frame: 2}\n",
                 3, 16, "bodies[0].frame applies to bodies read from a file");
}

/* ---- driven bodies, sensors and windows (issue 12) ------------------------- */

static void check_driven_sensors(const scenario *s)
{
    CHECK_EQ_INT(s->sensor_count, 3);
    if (s->sensor_count != 3) return;
    const scenario_sensor *a = &s->sensors[0], *b = &s->sensors[1], *c = &s->sensors[2];
    CHECK(a->axis == 0 && a->at == 2.5 && a->from[0] == -1.0 && a->to[0] == 1.5);
    CHECK(b->axis == 1 && b->at == -1.0 && b->from[0] == -2.0 && b->to[0] == 3.0);
    CHECK(c->axis == 0 && c->at == 0.0 && isinf(c->from[0]) && c->from[0] < 0 && isinf(c->to[0]) &&
          c->to[0] > 0);
    CHECK(a->at_mark.line == 6 && a->at_mark.col == 21);
}

static void check_driven_groups(const scenario *s)
{
    CHECK_EQ_INT(s->group_count, 3);
    if (s->group_count != 3) return;
    const scenario_group *g = s->groups;
    CHECK(g[0].acceleration[0] == 1.5 && g[0].acceleration[1] == -2.0 && g[0].acceleration[2] == 0.0);
    CHECK(g[0].mass == 1.0);
    CHECK(isinf(g[1].mass) && g[1].mass > 0 && g[1].velocity == VELOCITY_SPEED);
    CHECK(g[1].acceleration[0] == 0.0 && g[1].acceleration[1] == 0.0);
    CHECK(isinf(g[2].mass) && g[2].acceleration[1] == 1e-3 && same_text(g[2].file, "a.xyz"));
}

static void test_driven_keys(void)
{
    scenario s;
    if (!expect_ok("driven", "world:\n  dim: 2\n  box: [10, 8]\n  boundary: walls\n  sensors:\n"
                             "    - {axis: x, at: 2.5, from: [-1], to: [1.5]}\n"
                             "    - {axis: y, at: -1, from: -2, to: 3}\n    - {axis: x, at: 0}\n"
                             "bodies:\n  - {count: 3, acceleration: [1.5, -2]}\n"
                             "  - {count: 1, mass: .inf, velocity: {speed: 0.5}}\n"
                             "  - {file: a.xyz, mass: .Inf, acceleration: [0, 1e-3]}\n"
                             "run: {until: 2, window: 0.02, controls: moves.csv}\n",
                   &s))
        return;
    check_driven_sensors(&s);
    check_driven_groups(&s);
    CHECK(s.window == 0.02 && same_text(s.controls, "moves.csv"));
    const char *slash = strrchr(s.path, '/');
    CHECK(slash && s.controls_resolved && strncmp(s.controls_resolved, s.path, (size_t)(slash - s.path + 1)) == 0 &&
          strcmp(s.controls_resolved + (slash - s.path + 1), "moves.csv") == 0);
    scenario_free(&s);
    if (expect_ok("3D sensor", "world: {sensors: [{axis: z, at: 1, from: [0, 1], to: [2, 3]}]}\n"
                               "bodies: [{count: 1, acceleration: [0, 0, -9.81]}]\n", &s)) {
        CHECK(s.sensor_count == 1 && s.sensors[0].axis == 2 && s.sensors[0].at == 1.0);
        CHECK(s.sensors[0].from[0] == 0.0 && s.sensors[0].from[1] == 1.0);
        CHECK(s.sensors[0].to[0] == 2.0 && s.sensors[0].to[1] == 3.0);
        CHECK(s.groups[0].acceleration[2] == -9.81 && s.window == 0.0 && !s.controls);
        scenario_free(&s);
    }
}

static void test_driven_body_errors(void)
{
    const char *w2 = "world: {dim: 2}\nbodies:\n";
    char text[256];
    struct {
        const char *name, *group;
        int col;
        const char *phrase;
    } cases[] = {
        {"acceleration of 3 in 2D", "  - {count: 3, acceleration: [1, 2, 3]}\n", 30,
         "bodies[0].acceleration has 3 numbers (expected a list of 2 numbers, [ax, ay])"},
        {"acceleration nan", "  - {count: 3, acceleration: [.nan, 0]}\n", 31,
         "bodies[0].acceleration = .nan is not a finite number"},
        {"acceleration string", "  - {count: 3, acceleration: ['1', 0]}\n", 31,
         "bodies[0].acceleration is the string '1'"},
        {"acceleration scalar", "  - {count: 3, acceleration: 5}\n", 30,
         "bodies[0].acceleration is '5' (expected a list of 2 numbers"},
        {"mass -inf", "  - {count: 3, mass: -.inf}\n", 22,
         "bodies[0].mass = -.inf is not a finite number (expected a finite number > 0, or .inf for "
         "kinematic bodies)"},
        {"mass 0", "  - {count: 3, mass: 0}\n", 22, "bodies[0].mass = 0 is out of range"},
        {"mass inf quoted", "  - {count: 3, mass: '.inf'}\n", 22, "bodies[0].mass is the string '.inf'"},
        {"mass inf at a temperature", "  - {count: 3, mass: .inf}\n", 22,
         "bodies[0].mass is .inf (kinematic bodies) with velocities drawn at a temperature"},
        {"mass inf at an explicit temperature",
         "  - {count: 3, mass: .inf, velocity: {temperature: 2}}\n", 22, "expected velocity: {speed: S}"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(text, sizeof text, "%s%s", w2, cases[k].group);
        expect_error(cases[k].name, text, 3, cases[k].col, cases[k].phrase);
    }
}

static void test_sensor_errors(void)
{
    const char *head = "world:\n  dim: 2\n  sensors:\n";
    char text[256];
    struct {
        const char *name, *sensor;
        int col;
        const char *phrase;
    } cases[] = {
        {"axis z in 2D", "    - {axis: z, at: 1}\n", 14, "world.sensors[0].axis = z is not allowed (expected x or y in 2D)"},
        {"no at", "    - {axis: x}\n", 7, "world.sensors[0] has no at"},
        {"no axis", "    - {at: 1}\n", 7, "world.sensors[0] has no axis"},
        {"at nan", "    - {axis: x, at: .nan}\n", 21, "world.sensors[0].at = .nan is not a finite number"},
        {"at string", "    - {axis: x, at: one}\n", 21, "world.sensors[0].at = one is not a number"},
        {"from beyond to", "    - {axis: x, at: 1, from: 3, to: 2}\n", 30,
         "world.sensors[0].from 3 is beyond to 2 (expected from <= to)"},
        {"from of two in 2D", "    - {axis: x, at: 1, from: [1, 2]}\n", 30,
         "world.sensors[0].from has 2 numbers (expected one number, or a list of 1 number"},
        {"unknown key", "    - {axis: x, at: 1, width: 2}\n", 24, "unknown key 'width' in world.sensors[0]"},
        {"not a mapping", "    - 5\n", 7, "world.sensors[0] is '5' (expected a mapping with keys among: axis, at, from, to)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(text, sizeof text, "%s%sbodies: [{count: 1}]\n", head, cases[k].sensor);
        expect_error(cases[k].name, text, 4, cases[k].col, cases[k].phrase);
    }
    expect_error("sensors not a list", "world: {sensors: 5}\nbodies: [{count: 1}]\n", 1, 18,
                 "world.sensors is '5' (expected a list of sensors");
    expect_error("3D from of one", "world: {sensors: [{axis: y, at: 0, from: [1], to: [2, 3]}]}\nbodies: [{count: 1}]\n",
                 1, 42, "world.sensors[0].from has 1 numbers (expected a list of 2 numbers");
}

static void test_window_errors(void)
{
    const char *head = "world: {}\nbodies: [{count: 1}]\n";
    char text[256];
    struct {
        const char *name, *run;
        int col;
        const char *phrase;
    } cases[] = {
        {"window 0", "run: {until: 1, window: 0}\n", 25, "run.window = 0 is out of range (expected a finite number > 0)"},
        {"window negative", "run: {until: 1, window: -0.5}\n", 25, "run.window = -0.5 is out of range"},
        {"window nan", "run: {until: 1, window: .nan}\n", 25, "run.window = .nan is not a finite number"},
        {"window string", "run: {until: 1, window: '0.1'}\n", 25, "run.window is the string '0.1'"},
        {"controls without window", "run: {until: 1, controls: c.csv}\n", 27,
         "run.controls is applied at window starts, but run has no window"},
        {"controls empty", "run: {until: 1, window: 1, controls: ''}\n", 38, "run.controls is empty (expected a file name)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(text, sizeof text, "%s%s", head, cases[k].run);
        expect_error(cases[k].name, text, 3, cases[k].col, cases[k].phrase);
    }
}

/* ---- spin and shape (issue 14) ------------------------------------------------ */

static void test_spin_keys_2d(void)
{
    scenario s;
    if (!expect_ok("2D spin", "world:\n  dim: 2\n  box: 10\n  tangential_restitution: 0.5\n"
                              "  wall_tangential_restitution: -0.25\n  friction: 0.3\n"
                              "bodies:\n  - {count: 2, shape: {box: [1.5, 0.5]}, orientation: 0.25, "
                              "angular_velocity: -2, inertia: 3}\n"
                              "  - {count: 1, shape: {regular: {sides: 6, radius: 0.5}}, orientation: random}\n"
                              "  - {count: 1, shape: {polygon: [[0, 0], [2, 0], [0, 1]]}}\n"
                              "  - {count: 1, radius: 0.25}\n"
                              "  - {file: a.xyz, shape: {box: [1, 1]}}\n",
                   &s))
        return;
    CHECK(s.tangential_restitution == 0.5 && s.wall_tangential_restitution == -0.25 && s.friction == 0.3);
    const scenario_group *g = s.groups;
    CHECK_EQ_INT(g[0].polygon_vertices, 4);
    const double box[4][2] = {{-0.75, -0.25}, {0.75, -0.25}, {0.75, 0.25}, {-0.75, 0.25}};
    for (int k = 0; k < 4 && g[0].polygon; k++) CHECK(g[0].polygon[k].x == box[k][0] && g[0].polygon[k].y == box[k][1]);
    CHECK_NEAR(g[0].bounding_radius, 0.5 * sqrt(1.5 * 1.5 + 0.5 * 0.5), 1e-15);
    CHECK_NEAR(g[0].polygon_area, 0.75, 1e-15);
    CHECK(g[0].angle == 0.25 && g[0].angular_velocity[2] == -2.0 && g[0].angular_velocity[0] == 0.0);
    CHECK(g[0].inertia == 3.0 && !g[0].random_orientation);
    /* a regular hexagon: every vertex on the circle, one edge at the bottom parallel to x */
    CHECK_EQ_INT(g[1].polygon_vertices, 6);
    for (int k = 0; k < 6 && g[1].polygon; k++)
        CHECK_NEAR(hypot(g[1].polygon[k].x, g[1].polygon[k].y), 0.5, 1e-15);
    if (g[1].polygon) {
        CHECK_NEAR(g[1].polygon[0].y, g[1].polygon[1].y, 1e-15);
        CHECK_NEAR(g[1].polygon[0].y, -0.5 * cos(3.14159265358979323846 / 6), 1e-15);
        CHECK_NEAR(g[1].polygon[0].x, -g[1].polygon[1].x, 1e-15);
    }
    CHECK_NEAR(g[1].polygon_area, 1.5 * sqrt(3.0) * 0.25, 1e-15);
    CHECK(g[1].random_orientation && g[1].inertia == 0.0);
    CHECK_EQ_INT(g[2].polygon_vertices, 3);
    CHECK(g[2].polygon && g[2].polygon[1].x == 2.0 && g[2].polygon[2].y == 1.0);
    /* the bounding radius is about the centroid (2/3, 1/3): its farthest vertex is (2, 0) */
    CHECK_NEAR(g[2].bounding_radius, hypot(4.0 / 3.0, 1.0 / 3.0), 1e-15);
    CHECK(g[3].polygon_vertices == 0 && !g[3].polygon && g[3].angle == 0.0 && g[3].inertia == 0.0);
    CHECK_EQ_INT(g[4].polygon_vertices, 4);
    scenario_free(&s);
    if (expect_ok("friction inf", "world: {dim: 2, friction: .inf}\nbodies: [{count: 1}]\n", &s)) {
        CHECK(isinf(s.friction) && s.tangential_restitution == -1.0 && s.wall_tangential_restitution == -1.0);
        scenario_free(&s);
    }
}

static void test_spin_keys_3d(void)
{
    scenario s;
    if (!expect_ok("3D spin", "world: {tangential_restitution: 1}\nbodies:\n"
                              "  - {count: 2, orientation: [0, 0.6, 0, 0.8], angular_velocity: [1, -2, 3.5]}\n"
                              "  - {count: 2, orientation: random, inertia: .inf}\n"
                              "  - {count: 2}\n",
                   &s))
        return;
    const scenario_group *g = s.groups;
    CHECK(s.tangential_restitution == 1.0 && s.friction == 0.0);
    CHECK(g[0].orientation.x == 0.0 && g[0].orientation.y == 0.6 && g[0].orientation.z == 0.0 &&
          g[0].orientation.w == 0.8);
    CHECK(g[0].angular_velocity[0] == 1.0 && g[0].angular_velocity[1] == -2.0 && g[0].angular_velocity[2] == 3.5);
    CHECK(g[1].random_orientation && isinf(g[1].inertia));
    CHECK(g[2].orientation.w == 1.0 && g[2].orientation.x == 0.0 && !g[2].random_orientation &&
          g[2].angular_velocity[2] == 0.0 && g[2].polygon_vertices == 0);
    scenario_free(&s);
}

/* The column of the first occurrence of mark in line (1-based). */
static int column_of(const char *line, const char *mark)
{
    const char *at = strstr(line, mark);
    CHECK_MSG(at != NULL, "'%s' not in '%s'", mark, line);
    return at ? (int)(at - line) + 1 : 0;
}

typedef struct spin_case {
    const char *name, *world, *group, *mark, *phrase;
} spin_case;

static void expect_spin_errors(const spin_case *cases, size_t count)
{
    char text[512];
    for (size_t k = 0; k < count; k++) {
        snprintf(text, sizeof text, "world: {%s}\nbodies:\n%s", cases[k].world, cases[k].group);
        expect_error(cases[k].name, text, 3, column_of(cases[k].group, cases[k].mark), cases[k].phrase);
    }
}

static void test_shape_errors(void)
{
    static const spin_case cases[] = {
        {"shape scalar", "dim: 2", "  - {count: 1, shape: 5}\n", "5",
         "bodies[0].shape is '5' (expected a mapping with keys among: polygon, box, regular)"},
        {"shape two keys", "dim: 2", "  - {count: 1, shape: {box: [1, 1], regular: {sides: 3, radius: 1}}}\n", "{box",
         "bodies[0].shape has 2 keys (expected exactly one: polygon, box or regular)"},
        {"shape unknown", "dim: 2", "  - {count: 1, shape: {circle: 1}}\n", "circle",
         "unknown key 'circle' in bodies[0].shape"},
        {"shape in 3D", "dim: 3", "  - {count: 1, shape: {box: [1, 1]}}\n", "{box",
         "bodies[0].shape: polygons are 2D shapes, but this world is 3D"},
        {"box negative", "dim: 2", "  - {count: 1, shape: {box: [1, -2]}}\n", "-2",
         "bodies[0].shape.box = -2 is out of range (expected a finite number > 0)"},
        {"box of three", "dim: 2", "  - {count: 1, shape: {box: [1, 2, 3]}}\n", "[1, 2",
         "bodies[0].shape.box has 3 numbers (expected a list of 2 numbers > 0, [width, height])"},
        {"box scalar", "dim: 2", "  - {count: 1, shape: {box: 2}}\n", "2}",
         "bodies[0].shape.box is '2' (expected a list of 2 numbers > 0"},
        {"polygon of two", "dim: 2", "  - {count: 1, shape: {polygon: [[0, 0], [1, 0]]}}\n", "[[",
         "bodies[0].shape.polygon has 2 vertices (expected a list of 3 to 64 vertices [x, y])"},
        {"polygon vertex of three", "dim: 2", "  - {count: 1, shape: {polygon: [[0, 0], [1, 0, 2], [0, 1]]}}\n",
         "[1, 0, 2]", "bodies[0].shape.polygon[1] has 3 numbers (expected a vertex [x, y] of two numbers)"},
        {"polygon vertex nan", "dim: 2", "  - {count: 1, shape: {polygon: [[0, 0], [1, 0], [0, .nan]]}}\n", ".nan",
         "bodies[0].shape.polygon[2] = .nan is not a finite number"},
        {"polygon vertex word", "dim: 2", "  - {count: 1, shape: {polygon: [[0, 0], [1, 0], [x, 1]]}}\n",
         "x,", "bodies[0].shape.polygon[2] = x is not a number"},
        {"regular sides 2", "dim: 2", "  - {count: 1, shape: {regular: {sides: 2, radius: 1}}}\n", "2,",
         "bodies[0].shape.regular.sides = 2 is out of range (expected a whole number from 3 to 64)"},
        {"regular sides 65", "dim: 2", "  - {count: 1, shape: {regular: {sides: 65, radius: 1}}}\n", "65",
         "bodies[0].shape.regular.sides = 65 is out of range"},
        {"regular sides half", "dim: 2", "  - {count: 1, shape: {regular: {sides: 4.5, radius: 1}}}\n", "4.5",
         "bodies[0].shape.regular.sides = 4.5 is not a whole number"},
        {"regular no radius", "dim: 2", "  - {count: 1, shape: {regular: {sides: 5}}}\n", "{sides",
         "bodies[0].shape.regular has no radius (expected {sides: N, radius: R})"},
        {"regular radius 0", "dim: 2", "  - {count: 1, shape: {regular: {sides: 5, radius: 0}}}\n", "0}",
         "bodies[0].shape.regular.radius = 0 is out of range (expected a finite number > 0)"},
        {"regular unknown key", "dim: 2", "  - {count: 1, shape: {regular: {sides: 5, radius: 1, r: 2}}}\n", "r: 2",
         "unknown key 'r' in bodies[0].shape.regular"},
    };
    expect_spin_errors(cases, sizeof cases / sizeof cases[0]);
}

/* A polygon the core refuses: the message names the group and the vertex
 * the core names, and points at that vertex. */
static void expect_polygon_refused(const char *name, const char *vertices, const char *reason)
{
    char text[400], group[300];
    snprintf(group, sizeof group, "  - {count: 1}\n  - {count: 1, shape: {polygon: %s}}\n", vertices);
    snprintf(text, sizeof text, "world: {dim: 2}\nbodies:\n%s", group);
    scenario s;
    attempt a = load_text(text, &s);
    CHECK_MSG(a.status == -1, "%s: status %d", name, a.status);
    const char *vertex = strstr(a.error, "vertex ");
    int k = -1;
    CHECK_MSG(vertex && sscanf(vertex, "vertex %d", &k) == 1, "%s: no vertex named in '%s'", name, a.error);
    /* the column of vertex k: the k-th "[" after "polygon: [" */
    const char *at = strstr(group, "polygon: [[");
    at = at ? at + strlen("polygon: [") : NULL;
    for (int j = 0; at && j < k; j++) at = strchr(at + 1, '[');
    char where[200];
    snprintf(where, sizeof where, "%s:4:%d: bodies[1].shape.polygon: the polygon is refused: ", a.path,
             at ? (int)(at - strchr(group, '\n')) : 0);
    CHECK_MSG(strncmp(a.error, where, strlen(where)) == 0, "%s: expected '%s...', got '%s'", name, where, a.error);
    CHECK_MSG(strstr(a.error, reason) != NULL, "%s: expected '%s' in '%s'", name, reason, a.error);
    scenario_free(&s);
}

static void test_polygons_refused(void)
{
    expect_polygon_refused("non-convex", "[[0, 0], [2, 0], [1, 0.2], [2, 2], [0, 2]]", "vertex 2 turns clockwise");
    expect_polygon_refused("collinear", "[[0, 0], [1, 0], [2, 0]]", "lies on the line");
    expect_polygon_refused("repeated vertex", "[[0, 0], [0, 0], [1, 0], [0, 1]]", "repeats vertex 0");
    expect_polygon_refused("self-intersecting", "[[0, 0], [1, 1], [1, 0], [0, 1]]", "vertex");
    expect_polygon_refused("winds twice", "[[2, 0], [-1, 1.732], [-1, -1.732], [2, 0.001], [-1, 1.733], [-1, -1.731]]",
                           "vertex");
}

static void test_spin_errors(void)
{
    static const spin_case cases[] = {
        {"2D orientation list", "dim: 2", "  - {count: 1, orientation: [0, 0, 0, 1]}\n", "[0",
         "bodies[0].orientation is a list (expected an angle in radians, or random)"},
        {"2D orientation word", "dim: 2", "  - {count: 1, orientation: randm}\n", "randm",
         "bodies[0].orientation = randm is not a number (expected an angle in radians, or random)"},
        {"2D orientation string", "dim: 2", "  - {count: 1, orientation: '1'}\n", "'1'",
         "bodies[0].orientation is the string '1'"},
        {"2D orientation nan", "dim: 2", "  - {count: 1, orientation: .nan}\n", ".nan",
         "bodies[0].orientation = .nan is not a finite number"},
        {"2D orientation huge", "dim: 2", "  - {count: 1, orientation: 1e16}\n", "1e16",
         "bodies[0].orientation = 1e16 is out of range"},
        {"3D orientation not unit", "dim: 3", "  - {count: 1, orientation: [1, 1, 0, 0]}\n", "[1",
         "bodies[0].orientation has length 1.4142135623730951 (expected a unit quaternion [x, y, z, w]"},
        {"3D orientation of three", "dim: 3", "  - {count: 1, orientation: [0, 0, 1]}\n", "[0",
         "bodies[0].orientation has 3 numbers (expected a unit quaternion"},
        {"3D orientation scalar", "dim: 3", "  - {count: 1, orientation: 1}\n", "1}",
         "bodies[0].orientation is '1' (expected a unit quaternion"},
        {"3D orientation inf", "dim: 3", "  - {count: 1, orientation: [0, 0, .inf, 1]}\n", ".inf",
         "bodies[0].orientation = .inf is not a finite number"},
        {"2D angular_velocity list", "dim: 2", "  - {count: 1, angular_velocity: [0, 0, 1]}\n", "[0",
         "bodies[0].angular_velocity is a list (expected one number in 2D, the angular velocity about z"},
        {"2D angular_velocity nan", "dim: 2", "  - {count: 1, angular_velocity: .nan}\n", ".nan",
         "bodies[0].angular_velocity = .nan is not a finite number"},
        {"3D angular_velocity of two", "dim: 3", "  - {count: 1, angular_velocity: [1, 2]}\n", "[1",
         "bodies[0].angular_velocity has 2 numbers (expected a list of 3 numbers [wx, wy, wz] (rad/T))"},
        {"inertia 0", "dim: 3", "  - {count: 1, inertia: 0}\n", "0}",
         "bodies[0].inertia = 0 is out of range (expected a finite number > 0, or .inf)"},
        {"inertia negative", "dim: 2", "  - {count: 1, inertia: -1}\n", "-1",
         "bodies[0].inertia = -1 is out of range"},
        {"inertia -inf", "dim: 2", "  - {count: 1, inertia: -.inf}\n", "-.inf",
         "bodies[0].inertia = -.inf is not a finite number"},
        {"orientation of a file group", "dim: 2", "  - {file: a.xyz, orientation: 1}\n", "orientation",
         "bodies[0].orientation does not apply to bodies read from a file"},
        {"angular_velocity of a file group", "dim: 2", "  - {file: a.xyz, angular_velocity: 1}\n", "angular",
         "bodies[0].angular_velocity does not apply to bodies read from a file"},
        {"tangential_restitution 1.5", "dim: 2, tangential_restitution: 1.5", "  - {count: 1}\n", "",
         "world.tangential_restitution = 1.5 is out of range (expected a number in [-1, 1])"},
        {"wall_tangential_restitution -2", "wall_tangential_restitution: -2", "  - {count: 1}\n", "",
         "world.wall_tangential_restitution = -2 is out of range (expected a number in [-1, 1])"},
        {"friction negative", "friction: -0.1", "  - {count: 1}\n", "",
         "world.friction = -0.1 is out of range (expected a finite number >= 0, or .inf)"},
        {"friction nan", "friction: .nan", "  - {count: 1}\n", "", "world.friction = .nan is not a finite number"},
        {"friction string", "friction: '1'", "  - {count: 1}\n", "", "world.friction is the string '1'"},
    };
    char text[512];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        if (cases[k].mark[0]) {
            expect_spin_errors(&cases[k], 1);
            continue;
        }
        /* a world key: its value follows "KEY: " on line 1 */
        snprintf(text, sizeof text, "world: {%s}\nbodies:\n%s", cases[k].world, cases[k].group);
        const char *colon = strrchr(cases[k].world, ':');
        expect_error(cases[k].name, text, 1, (int)strlen("world: {") + (int)(colon - cases[k].world) + 3,
                     cases[k].phrase);
    }
}

int main(void)
{
    RUN(test_full_scenario);
    RUN(test_flow_style);
    RUN(test_defaults);
    RUN(test_every_default);
    RUN(test_block_and_flow_agree);
    RUN(test_comments);
    RUN(test_boundary_lists);
    RUN(test_single_number_box);
    RUN(test_file_paths);
    RUN(test_whole_numbers);
    RUN(test_marks);
    RUN(test_unknown_keys);
    RUN(test_wrong_types);
    RUN(test_out_of_range);
    RUN(test_not_finite);
    RUN(test_whole_number_errors);
    RUN(test_choices);
    RUN(test_group_sources);
    RUN(test_velocity_errors);
    RUN(test_duplicate_keys);
    RUN(test_file_errors);
    RUN(test_missing_file);
    RUN(test_small_error_buffer);
    RUN(test_names_and_frames);
    RUN(test_driven_keys);
    RUN(test_driven_body_errors);
    RUN(test_sensor_errors);
    RUN(test_window_errors);
    RUN(test_spin_keys_2d);
    RUN(test_spin_keys_3d);
    RUN(test_shape_errors);
    RUN(test_polygons_refused);
    RUN(test_spin_errors);
    return CHECK_SUMMARY();
}
