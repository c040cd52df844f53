/* compare_movie.c — seed 002's comparison as a movie (compare_movie.h).
 *
 * The exact world runs to each frame's instant and is drawn there; the
 * plain frame stepper (carom_frame, seed 002 sec. 2.1) steps whole frames
 * up to that instant and is drawn at its clock, so the right half lags the
 * left by less than one frame step, as a frame-based program shows its
 * world. Both halves are drawn by render.c with one colour range (speed,
 * fixed at 1.5 times the first frame's fastest exact body), put side by side
 * and piped to ffmpeg by movie.c.
 */
#include "compare_movie.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movie.h"
#include "scene.h"

int compare_copy_world(const carom_world *world, carom_world **copy)
{
    size_t size = carom_world_snapshot_size(world);
    void *snapshot = malloc(size);
    int failed = !snapshot || carom_world_snapshot(world, snapshot, size) != CAROM_OK ||
                 carom_world_restore(snapshot, size, NULL, NULL, copy, NULL, 0) != CAROM_OK;
    free(snapshot);
    return failed ? -1 : 0;
}

typedef struct side_by_side {
    carom_world *exact;
    carom_frame *stepper;
    scene_buffers exact_scene;
    carom_body_state *stepped; /* the stepper's bodies */
    unsigned char *half, *whole;
    render_options look;
    char title[2][96];
} side_by_side;

/* Copies a half picture (look's size) into the left or right of whole. */
static void place_half(const side_by_side *p, int right)
{
    size_t row = 3 * (size_t)p->look.width;
    for (int y = 0; y < p->look.height; y++)
        memcpy(p->whole + (size_t)y * 2 * row + (right ? row : 0), p->half + (size_t)y * row, row);
}

static int draw_exact(side_by_side *p, int dim, const double box[3])
{
    render_scene scene;
    render_summary sum;
    if (scene_from_world(p->exact, dim, box, &p->exact_scene, &scene) != 0) return -1;
    if (!p->look.fixed_range) { /* the first frame sets the range */
        if (render_to_rgb(&scene, &p->look, p->half, &sum) != 0) return -1;
        p->look.fixed_range = 1, p->look.range_low = 0.0, p->look.range_high = sum.high > 0.0 ? 1.5 * sum.high : 1.0;
    }
    p->look.title = p->title[0];
    if (render_to_rgb(&scene, &p->look, p->half, &sum) != 0) return -1;
    place_half(p, 0);
    return 0;
}

static int draw_stepper(side_by_side *p, int dim, const double box[3])
{
    int32_t n = carom_frame_body_count(p->stepper);
    for (int32_t id = 0; id < n; id++) carom_frame_get_body(p->stepper, id, &p->stepped[id]);
    carom_world_def def = carom_world_definition(p->exact);
    render_scene scene = {.dim = dim, .box = {box[0], box[1], box[2]}, .bodies = p->stepped, .count = n};
    for (int a = 0; a < 3; a++) scene.periodic[a] = def.boundary[a] == CAROM_PERIODIC;
    render_summary sum;
    p->look.title = p->title[1];
    if (render_to_rgb(&scene, &p->look, p->half, &sum) != 0) return -1;
    place_half(p, 1);
    return 0;
}

/* Both runs to t, drawn side by side into p->whole. */
static int frame_at(side_by_side *p, double t, double dt, int dim, const double box[3], char *why, size_t size)
{
    carom_status st = carom_world_run(p->exact, t, -1);
    if (st != CAROM_OK) return snprintf(why, size, "the exact run: %s", carom_world_message(p->exact)), -1;
    while (carom_frame_time(p->stepper) + dt <= t + 1e-9 * dt) { /* k dt, to round-off */
        st = carom_frame_run(p->stepper, 1);
        if (st != CAROM_OK && st != CAROM_JAMMED)
            return snprintf(why, size, "the frame stepper: %s", carom_frame_message(p->stepper)), -1;
    }
    snprintf(p->title[0], sizeof p->title[0], "exact (event-driven), t = %.3f", carom_world_time(p->exact));
    snprintf(p->title[1], sizeof p->title[1], "frame stepper, dt = %g, t = %.3f", dt, carom_frame_time(p->stepper));
    if (draw_exact(p, dim, box) != 0 || draw_stepper(p, dim, box) != 0)
        return snprintf(why, size, "a movie frame could not be drawn (cairo failed or memory ran out)"), -1;
    return 0;
}

static int prepare(side_by_side *p, const carom_world *initial, const compare_movie_request *r, char *why,
                   size_t size)
{
    carom_frame_def def = carom_default_frame_def();
    def.dt = r->dt;
    if (compare_copy_world(initial, &p->exact) != 0) return snprintf(why, size, "out of memory for the movie"), -1;
    if (carom_frame_create_from_world(initial, &def, &p->stepper, why, size) != CAROM_OK) return -1;
    int32_t n = carom_world_body_count(initial);
    p->look = render_default_options();
    p->look.width = r->width / 2, p->look.height = r->height;
    p->stepped = malloc((size_t)(n > 0 ? n : 1) * sizeof *p->stepped);
    p->half = malloc(3 * (size_t)p->look.width * (size_t)p->look.height);
    p->whole = malloc(3 * (size_t)r->width * (size_t)r->height);
    if (!p->stepped || !p->half || !p->whole) return snprintf(why, size, "out of memory for the movie"), -1;
    return 0;
}

static void release(side_by_side *p)
{
    carom_world_destroy(p->exact);
    carom_frame_destroy(p->stepper);
    scene_buffers_free(&p->exact_scene);
    free(p->stepped), free(p->half), free(p->whole);
}

int compare_movie_write(const carom_world *initial, int dim, const double box[3], const compare_movie_request *r,
                        char *why, size_t why_size)
{
    side_by_side p = {0};
    movie m;
    double t0 = carom_world_time(initial);
    compare_movie_request even = *r;
    even.width = 2 * (r->width / 2); /* two halves of equal width */
    if (prepare(&p, initial, &even, why, why_size) != 0 ||
        movie_open(&m, r->path, r->fps, r->speed, t0, even.width, r->height, why, why_size) != 0) {
        release(&p);
        return -1;
    }
    int st = 0;
    for (double t = movie_next_time(&m); st == 0 && t <= r->until; t = movie_next_time(&m)) {
        st = frame_at(&p, t, r->dt, dim, box, why, why_size);
        if (st == 0) st = movie_write_rgb(&m, p.whole, why, why_size);
    }
    release(&p);
    if (st != 0) {
        movie_discard(&m);
        return -1;
    }
    return movie_close(&m, why, why_size);
}
