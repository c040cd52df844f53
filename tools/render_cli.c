/* render_cli.c — `carom render TRAJECTORY -o picture.png|.svg`: reads one
 * frame of an extended XYZ trajectory (xyz.c) and draws it (render.c).
 * --frame K picks the K-th frame (negative: from the end), --time T the frame
 * written at simulated time T. Errors are one line naming the file and line
 * (from xyz.c) or the option; nothing is written then. */
#include "render_cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "option.h"
#include "place.h"
#include "render.h"
#include "scenario.h"
#include "scene.h"
#include "xyz.h"

enum { MESSAGE_SIZE = 1024, EXIT_USAGE = 2 };

static const char *help_text =
    "usage: carom render TRAJECTORY.xyz -o PICTURE.png|.svg [options]\n"
    "\n"
    "Draws one frame of a trajectory carom wrote (or any extended XYZ file):\n"
    "2D disks to scale in their box, 3D spheres shaded and drawn back to front.\n"
    "Bodies crossing a periodic face (the frame's pbc) are drawn on both sides.\n"
    "  -o, --output FILE   the picture: PNG or SVG by its extension\n"
    "  --frame K           the K-th frame, 0 the first, -1 the last (default -1)\n"
    "  --time T            the frame written at simulated time T\n"
    "  --color C           speed (default), energy (translation + spin), spin (|omega|),\n"
    "                      species (a colour each, with a key)\n"
    "  --size WxH          pixels (default 800x600)\n"
    "  --view V            3D: z (default), x, y (looking along that axis), iso\n"
    "  --slab A:B          3D: only bodies whose depth along the view is in [A, B]\n"
    "  --scenario FILE     2D: the scenario that wrote the trajectory, for the shapes a\n"
    "                      trajectory does not carry: polygons (turned by the frame's\n"
    "                      angles) and the container's boundary\n"
    "  --dim 2|3           the frame's dimension (default: 2 if every z and\n"
    "                      z velocity is 0 or the frame has an angle column)\n"
    "  --verbose           print the colour bar's range and the bodies drawn\n";

typedef struct render_request {
    const char *input, *output, *scenario;
    long long frame;
    int has_frame, has_time, dim, verbose;
    double time;
    render_options o;
} render_request;

static int is_valued(const char *name)
{
    static const char *const names[] = {"--output", "-o",     "--frame", "--time", "--color",
                                        "--size",   "--view", "--slab",  "--dim",  "--scenario"};
    return option_is_one_of(name, names, sizeof names / sizeof *names);
}

static int parse_slab(const char *text, render_options *o, char *why, size_t size)
{
    const char *colon = strchr(text, ':');
    if (!colon || decimal_parse(text, (size_t)(colon - text), &o->slab_from) != DECIMAL_PARSED ||
        decimal_parse(colon + 1, (size_t)-1, &o->slab_to) != DECIMAL_PARSED || o->slab_to < o->slab_from)
        return snprintf(why, size, "--slab: '%s' is not a usable value (expected A:B, finite decimals, A <= B)",
                        text), -1;
    o->has_slab = 1;
    return 0;
}

static int pick(const char *option, const char *text, const char *const names[], int count, int *value,
                const char *expected, char *why, size_t size)
{
    for (int k = 0; k < count; k++)
        if (!strcmp(text, names[k])) return *value = k, 0;
    return snprintf(why, size, "%s: '%s' is not a usable value (expected %s)", option, text, expected), -1;
}

static int take_option(void *request, const char *name, const char *value, char *why, size_t size)
{
    render_request *r = request;
    static const char *const colors[] = {"speed", "energy", "spin", "species"};
    static const char *const views[] = {"z", "x", "y", "iso"};
    int picked = 0;
    if (!strcmp(name, "-o") || !strcmp(name, "--output")) return r->output = value, 0;
    if (!strcmp(name, "--frame")) return r->has_frame = 1, option_integer(name, value, &r->frame, why, size);
    if (!strcmp(name, "--time")) {
        if (decimal_parse(value, (size_t)-1, &r->time) != DECIMAL_PARSED)
            return snprintf(why, size, "--time: '%s' is not a usable value (expected a finite decimal time)", value),
                   -1;
        return r->has_time = 1, 0;
    }
    if (!strcmp(name, "--size")) return option_size(name, value, &r->o.width, &r->o.height, why, size);
    if (!strcmp(name, "--slab")) return parse_slab(value, &r->o, why, size);
    if (!strcmp(name, "--scenario")) return r->scenario = value, 0;
    if (!strcmp(name, "--color")) {
        if (pick(name, value, colors, 4, &picked, "speed, energy, spin or species", why, size)) return -1;
        return r->o.color = (render_color)picked, 0;
    }
    if (!strcmp(name, "--view")) {
        if (pick(name, value, views, 4, &picked, "z, x, y or iso", why, size)) return -1;
        return r->o.view = (render_view)picked, 0;
    }
    if (strcmp(value, "2") && strcmp(value, "3"))
        return snprintf(why, size, "--dim: '%s' is not a usable value (expected 2 or 3)", value), -1;
    return r->dim = value[0] - '0', 0;
}

static int take_input(void *request, const char *argument, char *why, size_t size)
{
    render_request *r = request;
    if (r->input) return snprintf(why, size, "one trajectory only ('%s' and '%s')", r->input, argument), -1;
    return r->input = argument, 0;
}

/* 0 to render, 1 for --help, -1 on a usage error. */
static int parse(int argc, char **argv, render_request *r, char *why, size_t size)
{
    *r = (render_request){.frame = -1, .o = render_default_options()};
    const option_walker walker = {is_valued, take_option, take_input, &r->verbose};
    int walked = option_walk(argc, argv, &walker, r, why, size);
    if (walked != 0) return walked;
    if (!r->input) return snprintf(why, size, "a trajectory file is needed (carom render TRAJECTORY -o FILE)"), -1;
    if (!r->output) return snprintf(why, size, "an output picture is needed (-o FILE.png or FILE.svg)"), -1;
    if (r->has_frame && r->has_time)
        return snprintf(why, size, "--frame and --time both pick the frame (expected one of them)"), -1;
    return 0;
}

/* The frame written at time t: frames are read one after the other. */
static int read_at_time(const render_request *r, xyz_frame *frame, char *why, size_t size)
{
    double before = -INFINITY, after = INFINITY;
    for (int64_t k = 0;; k++) {
        int got = xyz_read_frame(r->input, k, 0.5, 1.0, frame, why, size);
        if (got == -2) break;
        if (got != 0) return -1;
        if (frame->time == r->time) return 0;
        if (frame->time < r->time) before = fmax(before, frame->time);
        else after = fmin(after, frame->time);
        xyz_frame_free(frame);
    }
    snprintf(why, size, "%s: no frame at time %.17g (nearest: %.17g before, %.17g after; carom render draws the "
             "frames written, at the trajectory's --every)", r->input, r->time, before, after);
    return -1;
}

static int guess_dim(const xyz_frame *f)
{
    if (f->has_angle) return 2;
    for (int32_t k = 0; k < f->count; k++)
        if (f->bodies[k].position.z != 0.0 || f->bodies[k].velocity.z != 0.0) return 3;
    return 2;
}

/* The shapes the trajectory does not carry, from its scenario: polygons
 * placed by the frame's poses, and the container. */
static int add_scenario_shapes(const render_request *r, const xyz_frame *frame, scene_buffers *buffers,
                               carom_world **shapes, render_scene *scene, char *why, size_t size)
{
    scenario s;
    double box[3];
    if (scenario_load(r->scenario, &s, why, size) != 0) return -1;
    int built = place_build_world(&s, NULL, NULL, box, shapes, why, size);
    scenario_free(&s);
    if (built != 0) return -1;
    int placed = scene_place_shapes(*shapes, frame->bodies, frame->count, buffers, scene);
    if (placed == -2)
        return snprintf(why, size, "%s: the scenario makes %d bodies, the frame of %s has %d (expected the scenario "
                        "that wrote the trajectory)", r->scenario, (int)carom_world_body_count(*shapes), r->input,
                        (int)frame->count), -1;
    if (placed != 0) return snprintf(why, size, "out of memory for the polygons"), -1;
    scene->container = carom_world_definition(*shapes).container;
    return 0;
}

static void describe(const render_request *r, const xyz_frame *frame, const render_summary *sum)
{
    static const char *const names[] = {"speed", "energy", "spin", "species"};
    printf("carom render: %s: %d of %d bodies drawn, ", r->output, (int)sum->drawn, (int)frame->count);
    if (r->o.color == RENDER_SPECIES) {
        printf("species");
        for (int32_t k = 0; k < frame->species_kinds; k++) printf(" %s", frame->species_names[k]);
    } else {
        printf("%s from %.17g to %.17g", names[r->o.color], sum->low, sum->high);
    }
    if (sum->images > 0) printf(", and %d periodic images", (int)sum->images);
    printf("\n");
}

static int render_request_run(const render_request *r, char *why, size_t size)
{
    xyz_frame frame;
    memset(&frame, 0, sizeof frame);
    int got = r->has_time ? read_at_time(r, &frame, why, size)
                          : xyz_read_frame(r->input, r->frame, 0.5, 1.0, &frame, why, size);
    if (got != 0) return -1;
    const char *names[XYZ_SPECIES_KINDS];
    for (int32_t k = 0; k < frame.species_kinds; k++) names[k] = frame.species_names[k];
    render_scene scene = {.dim = r->dim ? r->dim : guess_dim(&frame), .bodies = frame.bodies, .count = frame.count,
                          .species = frame.species, .species_names = names, .species_kinds = frame.species_kinds};
    for (int a = 0; a < 3; a++) scene.box[a] = frame.has_lattice ? frame.lattice[a] : 0.0;
    for (int a = 0; a < 3; a++) scene.periodic[a] = frame.periodic[a];
    int status = 0;
    if (!frame.has_lattice || !(scene.box[0] > 0.0 && scene.box[1] > 0.0 && (scene.dim == 2 || scene.box[2] > 0.0))) {
        snprintf(why, size, "%s: the frame has no Lattice (box sides > 0 are needed to draw it to scale)", r->input);
        status = -1;
    }
    scene_buffers buffers = {0};
    carom_world *shapes = NULL;
    if (status == 0 && r->scenario && scene.dim == 3)
        status = (snprintf(why, size, "--scenario draws 2D shapes (polygons, containers); the frame is 3D"), -1);
    else if (status == 0 && r->scenario)
        status = add_scenario_shapes(r, &frame, &buffers, &shapes, &scene, why, size);
    render_summary sum;
    if (status == 0) status = render_to_file(&scene, &r->o, r->output, &sum, why, size);
    if (status == 0 && r->verbose) describe(r, &frame, &sum);
    carom_world_destroy(shapes);
    scene_buffers_free(&buffers);
    xyz_frame_free(&frame);
    return status;
}

int render_command(int argc, char **argv)
{
    render_request r;
    char why[MESSAGE_SIZE] = "";
    int parsed = parse(argc, argv, &r, why, sizeof why);
    if (parsed == 1) return fputs(help_text, stdout), 0;
    if (parsed != 0) return fprintf(stderr, "carom render: %s\n(carom render --help lists the options)\n", why), EXIT_USAGE;
    int status = render_request_run(&r, why, sizeof why) != 0 ? (fprintf(stderr, "carom: %s\n", why), 1) : 0;
    render_release_caches();
    return status;
}
