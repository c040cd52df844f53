/* render.c — `carom render`: one frame of a trajectory as a picture (issue 15).
 *
 * Drawn with cairo (PNG and SVG surfaces), never rasterised by hand. 2D disks
 * are drawn to scale inside their box; 3D spheres are projected along an axis
 * (or isometrically), sorted by depth and drawn back to front (the painter's
 * algorithm), each shaded by a radial gradient. The colour shows speed,
 * kinetic energy (translation + spin) or |omega| on a colour bar whose range
 * is the frame's own, beside a scale bar of a round length. The colour map
 * runs from dark blue through teal and green to yellow (the endpoints and
 * ordering of matplotlib's viridis; our own five stops, linearly mixed).
 */
#include "render.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "option.h"
#include "outfile.h"
#include "xyz.h"

enum { LEGEND_WIDTH = 110, MARGIN = 24 };
static const double render_pi = 3.14159265358979323846;

render_options render_default_options(void)
{
    render_options o = {.width = 800, .height = 600, .color = RENDER_SPEED, .view = RENDER_VIEW_Z};
    return o;
}

double render_quantity(const carom_body_state *b, render_color color)
{
    const carom_vec v = b->velocity, w = b->angular_velocity;
    double v2 = v.x * v.x + v.y * v.y + v.z * v.z, w2 = w.x * w.x + w.y * w.y + w.z * w.z;
    if (color == RENDER_SPEED) return sqrt(v2);
    if (color == RENDER_SPIN) return sqrt(w2);
    double spin = b->inertia > 0.0 && b->inertia < INFINITY ? 0.5 * b->inertia * w2 : 0.0;
    return 0.5 * b->mass * v2 + spin;
}

/* The colour map at s in [0, 1]: five stops mixed linearly. */
static void color_at(double s, double rgb[3])
{
    static const double stops[5][3] = {
        {0.267, 0.005, 0.329}, {0.231, 0.322, 0.545}, {0.129, 0.569, 0.549}, {0.369, 0.788, 0.384}, {0.992, 0.906, 0.145}};
    s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
    double x = 4.0 * s;
    int k = x >= 4.0 ? 3 : (int)x;
    double f = x - k;
    for (int c = 0; c < 3; c++) rgb[c] = stops[k][c] + f * (stops[k + 1][c] - stops[k][c]);
}

/* ---- projection ---- */

/* Picture coordinates (u right, v up) and depth (larger: nearer the viewer). */
static void project(int dim, render_view view, const double x[3], double *u, double *v, double *depth)
{
    if (dim == 2) {
        *u = x[0], *v = x[1], *depth = 0.0;
        return;
    }
    switch (view) {
    case RENDER_VIEW_X: *u = x[1], *v = x[2], *depth = x[0]; return;
    case RENDER_VIEW_Y: *u = x[2], *v = x[0], *depth = x[1]; return;
    case RENDER_VIEW_ISO:
        *u = (x[0] - x[1]) / sqrt(2.0);
        *v = (2.0 * x[2] - x[0] - x[1]) / sqrt(6.0);
        *depth = (x[0] + x[1] + x[2]) / sqrt(3.0);
        return;
    case RENDER_VIEW_Z:
    default: *u = x[0], *v = x[1], *depth = x[2]; return;
    }
}

typedef struct frame_map {
    double scale, u0, v0; /* pixel = (u - u0) * scale + left, top + (v0 - v) * scale */
    double left, top, width, height;
} frame_map;

static void corner(const render_scene *s, int k, double x[3])
{
    for (int a = 0; a < 3; a++) x[a] = (a < s->dim ? 0.5 * s->box[a] : 0.0) * ((k >> a) & 1 ? 1.0 : -1.0);
}

/* Fits the projected box into the picture left of the legend. */
static frame_map fit_box(const render_scene *s, const render_options *o)
{
    double umin = INFINITY, umax = -INFINITY, vmin = INFINITY, vmax = -INFINITY;
    for (int k = 0; k < 8; k++) {
        double x[3], u, v, d;
        corner(s, k, x);
        project(s->dim, o->view, x, &u, &v, &d);
        umin = fmin(umin, u), umax = fmax(umax, u), vmin = fmin(vmin, v), vmax = fmax(vmax, v);
    }
    frame_map m;
    double room_w = o->width - LEGEND_WIDTH - 2.0 * MARGIN, room_h = o->height - 3.0 * MARGIN;
    m.scale = fmin(room_w / (umax - umin), room_h / (vmax - vmin));
    m.width = (umax - umin) * m.scale, m.height = (vmax - vmin) * m.scale;
    m.left = MARGIN + 0.5 * (room_w - m.width), m.top = MARGIN + 0.5 * (room_h - m.height);
    m.u0 = umin, m.v0 = vmax;
    return m;
}

static void to_pixel(const frame_map *m, double u, double v, double *px, double *py)
{
    *px = m->left + (u - m->u0) * m->scale;
    *py = m->top + (m->v0 - v) * m->scale;
}

/* ---- drawing ---- */

static void draw_box(cairo_t *cr, const render_scene *s, const render_options *o, const frame_map *m)
{
    static const int edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                     {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    cairo_set_source_rgb(cr, 0.0, 0.0, 0.0);
    cairo_set_line_width(cr, 1.5);
    for (int e = 0; e < 12; e++) {
        double a[3], b[3], u, v, d, px, py;
        corner(s, edges[e][0], a), corner(s, edges[e][1], b);
        project(s->dim, o->view, a, &u, &v, &d), to_pixel(m, u, v, &px, &py);
        cairo_move_to(cr, px, py);
        project(s->dim, o->view, b, &u, &v, &d), to_pixel(m, u, v, &px, &py);
        cairo_line_to(cr, px, py);
    }
    cairo_stroke(cr);
}

typedef struct drawn_body {
    double depth, px, py, pr, shade;
} drawn_body;

static int by_depth(const void *a, const void *b)
{
    double da = ((const drawn_body *)a)->depth, db = ((const drawn_body *)b)->depth;
    return da < db ? -1 : da > db ? 1 : 0;
}

static void draw_body(cairo_t *cr, int dim, const drawn_body *d)
{
    double rgb[3];
    color_at(d->shade, rgb);
    if (dim == 2) {
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_arc(cr, d->px, d->py, d->pr, 0.0, 2.0 * render_pi);
        cairo_fill(cr);
        return;
    }
    /* a light from the upper left: the highlight off centre, the rim darker */
    cairo_pattern_t *g = cairo_pattern_create_radial(d->px - 0.35 * d->pr, d->py - 0.35 * d->pr, 0.05 * d->pr,
                                                     d->px, d->py, d->pr);
    cairo_pattern_add_color_stop_rgb(g, 0.0, 0.55 + 0.45 * rgb[0], 0.55 + 0.45 * rgb[1], 0.55 + 0.45 * rgb[2]);
    cairo_pattern_add_color_stop_rgb(g, 0.6, rgb[0], rgb[1], rgb[2]);
    cairo_pattern_add_color_stop_rgb(g, 1.0, 0.45 * rgb[0], 0.45 * rgb[1], 0.45 * rgb[2]);
    cairo_set_source(cr, g);
    cairo_arc(cr, d->px, d->py, d->pr, 0.0, 2.0 * render_pi);
    cairo_fill(cr);
    cairo_pattern_destroy(g);
}

static const char *quantity_name(render_color c)
{
    return c == RENDER_SPEED ? "speed" : c == RENDER_SPIN ? "|omega|" : "kinetic energy";
}

static void draw_legend(cairo_t *cr, const render_options *o, const render_summary *sum)
{
    double x = o->width - LEGEND_WIDTH + 10.0, top = MARGIN + 20.0, bar_h = o->height - 3.0 * MARGIN - 40.0;
    enum { STEPS = 256 };
    for (int k = 0; k < STEPS; k++) { /* top: high */
        double rgb[3];
        color_at(1.0 - (k + 0.5) / STEPS, rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_rectangle(cr, x, top + bar_h * k / STEPS, 22.0, bar_h / STEPS + 0.5);
        cairo_fill(cr);
    }
    char label[64];
    cairo_set_source_rgb(cr, 0.0, 0.0, 0.0);
    cairo_set_font_size(cr, 12.0);
    cairo_move_to(cr, x - 4.0, top - 8.0);
    cairo_show_text(cr, quantity_name(o->color));
    snprintf(label, sizeof label, "%.3g", sum->high);
    cairo_move_to(cr, x + 28.0, top + 10.0);
    cairo_show_text(cr, label);
    snprintf(label, sizeof label, "%.3g", sum->low);
    cairo_move_to(cr, x + 28.0, top + bar_h);
    cairo_show_text(cr, label);
}

/* A round length (1, 2 or 5 times a power of ten) near a fifth of the box. */
static double round_length(double about)
{
    double p = pow(10.0, floor(log10(about))), f = about / p;
    return (f >= 5.0 ? 5.0 : f >= 2.0 ? 2.0 : 1.0) * p;
}

static void draw_scale_bar(cairo_t *cr, const frame_map *m)
{
    double length = round_length(0.2 * m->width / m->scale), pixels = length * m->scale;
    double y = m->top + m->height + 0.6 * MARGIN + 6.0;
    cairo_set_source_rgb(cr, 0.0, 0.0, 0.0);
    cairo_set_line_width(cr, 3.0);
    cairo_move_to(cr, m->left, y);
    cairo_line_to(cr, m->left + pixels, y);
    cairo_stroke(cr);
    char label[64];
    snprintf(label, sizeof label, "%g", length);
    cairo_set_font_size(cr, 12.0);
    cairo_move_to(cr, m->left + pixels + 6.0, y + 4.0);
    cairo_show_text(cr, label);
}

static int in_slab(const render_options *o, int dim, double depth)
{
    return dim == 2 || !o->has_slab || (depth >= o->slab_from && depth <= o->slab_to);
}

/* The bodies as they will be drawn, nearest last; the colour range set. */
static drawn_body *place_bodies(const render_scene *s, const render_options *o, const frame_map *m,
                                render_summary *sum)
{
    drawn_body *d = malloc((size_t)(s->count > 0 ? s->count : 1) * sizeof *d);
    if (!d) return NULL;
    sum->low = INFINITY, sum->high = -INFINITY, sum->drawn = 0;
    for (int32_t k = 0; k < s->count; k++) {
        const carom_body_state *b = &s->bodies[k];
        const double x[3] = {b->position.x, b->position.y, b->position.z};
        double u, v, depth;
        project(s->dim, o->view, x, &u, &v, &depth);
        if (!in_slab(o, s->dim, depth)) continue;
        drawn_body *e = &d[sum->drawn++];
        to_pixel(m, u, v, &e->px, &e->py);
        e->pr = b->radius * m->scale, e->depth = depth, e->shade = render_quantity(b, o->color);
        sum->low = fmin(sum->low, e->shade), sum->high = fmax(sum->high, e->shade);
    }
    if (sum->drawn == 0) sum->low = sum->high = 0.0;
    if (o->fixed_range) sum->low = o->range_low, sum->high = o->range_high;
    double span = sum->high - sum->low;
    for (int32_t k = 0; k < sum->drawn; k++) d[k].shade = span > 0.0 ? (d[k].shade - sum->low) / span : 0.5;
    qsort(d, (size_t)sum->drawn, sizeof *d, by_depth);
    return d;
}

static int draw_scene(cairo_t *cr, const render_scene *s, const render_options *o, render_summary *sum)
{
    frame_map m = fit_box(s, o);
    cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
    cairo_paint(cr);
    drawn_body *d = place_bodies(s, o, &m, sum);
    if (!d) return -1;
    cairo_save(cr); /* bodies stay inside the picture's box area */
    cairo_rectangle(cr, m.left, m.top, m.width, m.height);
    if (s->dim == 2) cairo_clip(cr);
    else cairo_new_path(cr);
    for (int32_t k = 0; k < sum->drawn; k++) draw_body(cr, s->dim, &d[k]);
    cairo_restore(cr);
    free(d);
    draw_box(cr, s, o, &m);
    draw_legend(cr, o, sum);
    draw_scale_bar(cr, &m);
    return 0;
}

/* ---- files ---- */

static cairo_status_t write_to_stream(void *closure, const unsigned char *data, unsigned int length)
{
    return fwrite(data, 1, length, (FILE *)closure) == length ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int draw_into(outfile *f, const render_scene *s, const render_options *o, int svg, render_summary *sum)
{
    cairo_surface_t *surface =
        svg ? cairo_svg_surface_create_for_stream(write_to_stream, f->stream, o->width, o->height)
            : cairo_image_surface_create(CAIRO_FORMAT_RGB24, o->width, o->height);
    cairo_t *cr = cairo_create(surface);
    int drawn = draw_scene(cr, s, o, sum);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    if (!svg && drawn == 0) drawn = cairo_surface_write_to_png_stream(surface, write_to_stream, f->stream) ==
                                             CAIRO_STATUS_SUCCESS ? 0 : -1;
    cairo_surface_finish(surface);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) drawn = -1;
    cairo_surface_destroy(surface);
    return drawn;
}

int render_to_rgb(const render_scene *s, const render_options *o, unsigned char *rgb, render_summary *sum)
{
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, o->width, o->height);
    cairo_t *cr = cairo_create(surface);
    int drawn = draw_scene(cr, s, o, sum);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) drawn = -1;
    const unsigned char *data = cairo_image_surface_get_data(surface);
    int stride = cairo_image_surface_get_stride(surface);
    for (int y = 0; drawn == 0 && y < o->height; y++) /* cairo's RGB24: one native-endian 32-bit xRGB word a pixel */
        for (int x = 0; x < o->width; x++) {
            uint32_t pixel;
            memcpy(&pixel, data + (size_t)y * (size_t)stride + 4 * (size_t)x, sizeof pixel);
            unsigned char *out = rgb + 3 * ((size_t)y * (size_t)o->width + (size_t)x);
            out[0] = (unsigned char)(pixel >> 16), out[1] = (unsigned char)(pixel >> 8), out[2] = (unsigned char)pixel;
        }
    cairo_surface_destroy(surface);
    return drawn;
}

int render_to_file(const render_scene *s, const render_options *o, const char *path, render_summary *sum,
                   char *why, size_t why_size)
{
    int svg = ends_with(path, ".svg");
    if (!svg && !ends_with(path, ".png"))
        return snprintf(why, why_size, "%s: the picture's name must end in .png or .svg", path), -1;
    outfile f;
    if (outfile_open(&f, path, why, why_size) != 0) return -1;
    if (draw_into(&f, s, o, svg, sum) != 0) {
        outfile_discard(&f);
        return snprintf(why, why_size, "%s: cannot draw the picture (cairo failed, or a write failed)", path), -1;
    }
    if (outfile_status(&f, why, why_size) != 0) {
        outfile_discard(&f);
        return -1;
    }
    return outfile_commit(&f, why, why_size);
}

void render_release_caches(void)
{
    cairo_debug_reset_static_data();
    FcFini();
}
