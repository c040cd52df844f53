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
 * Species get a palette of ten distinct colours and a key. In 2D, polygons
 * are drawn from their vertices, bodies crossing a periodic face are drawn
 * on both sides (their periodic images), and a container's boundary is
 * drawn as the zero contour of its signed distance, traced by marching
 * squares (Lorensen & Cline 1987, in two dimensions) on a grid of two
 * pixels and stroked by cairo.
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

void render_species_color(int32_t species, double rgb[3])
{
    static const double palette[10][3] = {
        {0.122, 0.467, 0.706}, {1.000, 0.498, 0.055}, {0.173, 0.627, 0.173}, {0.839, 0.153, 0.157},
        {0.580, 0.404, 0.741}, {0.549, 0.337, 0.294}, {0.890, 0.467, 0.761}, {0.737, 0.741, 0.133},
        {0.090, 0.745, 0.812}, {0.300, 0.300, 0.300}};
    for (int c = 0; c < 3; c++) rgb[c] = species < 0 ? 0.65 : palette[species % 10][c];
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
    int32_t body;         /* index in the scene */
    double shift_x, shift_y; /* 2D: the periodic image's offset (world units) */
} drawn_body;

static int by_depth(const void *a, const void *b)
{
    double da = ((const drawn_body *)a)->depth, db = ((const drawn_body *)b)->depth;
    return da < db ? -1 : da > db ? 1 : 0;
}

/* A polygon body's outline, moved by its image's shift. */
static void polygon_path(cairo_t *cr, const render_scene *s, const frame_map *m, const drawn_body *d)
{
    for (int32_t v = s->vertex_start[d->body]; v < s->vertex_start[d->body + 1]; v++) {
        double px, py;
        to_pixel(m, s->vertices[v].x + d->shift_x, s->vertices[v].y + d->shift_y, &px, &py);
        cairo_line_to(cr, px, py);
    }
    cairo_close_path(cr);
}

/* A radius in pixels past which a disk at (px, py) covers the whole picture
 * (twice the frame and its margins, each way): drawn at most that large, it
 * looks the same, and cairo does not trace an arc of 10^40 pixels. */
static double covering_radius(const frame_map *m, double px, double py)
{
    return fabs(px) + fabs(py) + 4.0 * (m->left + m->top + m->width + m->height);
}

static void draw_body(cairo_t *cr, const render_scene *s, const render_options *o, const frame_map *m,
                      const drawn_body *d)
{
    double rgb[3];
    if (o->color == RENDER_SPECIES) render_species_color(s->species ? s->species[d->body] : 0, rgb);
    else color_at(d->shade, rgb);
    if (s->dim == 2) {
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_new_path(cr);
        if (s->vertex_start && s->vertex_start[d->body + 1] > s->vertex_start[d->body]) polygon_path(cr, s, m, d);
        else cairo_arc(cr, d->px, d->py, d->pr, 0.0, 2.0 * render_pi);
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
    return c == RENDER_SPEED ? "speed" : c == RENDER_SPIN ? "|omega|" : c == RENDER_SPECIES ? "species" : "kinetic energy";
}

/* The species key: a swatch and a name a line, as many as fit. */
static void draw_species_key(cairo_t *cr, const render_scene *s, const render_options *o)
{
    double x = o->width - LEGEND_WIDTH + 10.0, y = MARGIN + 20.0, room = o->height - 2.0 * MARGIN;
    cairo_set_font_size(cr, 12.0);
    cairo_set_source_rgb(cr, 0.0, 0.0, 0.0);
    cairo_move_to(cr, x - 4.0, y - 8.0);
    cairo_show_text(cr, "species");
    int32_t kinds = s->species && s->species_kinds > 0 ? s->species_kinds : 1;
    for (int32_t k = 0; k < kinds && y + 18.0 * (k + 1) < room; k++) {
        double rgb[3];
        render_species_color(k, rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_rectangle(cr, x, y + 18.0 * k, 14.0, 14.0);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.0, 0.0, 0.0);
        cairo_move_to(cr, x + 20.0, y + 18.0 * k + 11.0);
        cairo_show_text(cr, s->species && s->species_names ? s->species_names[k] : XYZ_DEFAULT_SPECIES);
    }
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

/* The offsets (world units) at which a 2D body is drawn: itself, and its
 * images across the periodic faces it crosses. Returns how many (1 to 4). */
static int image_shifts(const render_scene *s, const carom_body_state *b, double shift[4][2])
{
    double x[2] = {b->position.x, b->position.y}, across[2] = {0.0, 0.0};
    for (int a = 0; s->dim == 2 && a < 2; a++)
        if (s->periodic[a] && fabs(x[a]) + b->radius > 0.5 * s->box[a]) across[a] = x[a] > 0.0 ? -s->box[a] : s->box[a];
    int n = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if ((i == 0 || across[0] != 0.0) && (j == 0 || across[1] != 0.0))
                shift[n][0] = i ? across[0] : 0.0, shift[n][1] = j ? across[1] : 0.0, n++;
    return n;
}

/* The bodies as they will be drawn (periodic images included), nearest
 * last; the colour range set. */
static drawn_body *place_bodies(const render_scene *s, const render_options *o, const frame_map *m,
                                render_summary *sum)
{
    drawn_body *d = malloc((size_t)(s->count > 0 ? s->count : 1) * 4 * sizeof *d);
    if (!d) return NULL;
    sum->low = INFINITY, sum->high = -INFINITY, sum->drawn = 0;
    int32_t placed = 0;
    for (int32_t k = 0; k < s->count; k++) {
        const carom_body_state *b = &s->bodies[k];
        const double x[3] = {b->position.x, b->position.y, b->position.z};
        double u, v, depth, shift[4][2];
        project(s->dim, o->view, x, &u, &v, &depth);
        if (!in_slab(o, s->dim, depth)) continue;
        double quantity = o->color == RENDER_SPECIES ? 0.0 : render_quantity(b, o->color);
        for (int n = image_shifts(s, b, shift), i = 0; i < n; i++) {
            drawn_body *e = &d[placed++];
            to_pixel(m, u + shift[i][0], v + shift[i][1], &e->px, &e->py);
            e->pr = fmin(b->radius * m->scale, covering_radius(m, e->px, e->py));
            e->depth = depth, e->shade = quantity;
            e->body = k, e->shift_x = shift[i][0], e->shift_y = shift[i][1];
        }
        sum->drawn++;
        sum->low = fmin(sum->low, quantity), sum->high = fmax(sum->high, quantity);
    }
    if (sum->drawn == 0) sum->low = sum->high = 0.0;
    if (o->fixed_range) sum->low = o->range_low, sum->high = o->range_high;
    double span = sum->high - sum->low;
    for (int32_t k = 0; k < placed; k++) d[k].shade = span > 0.0 ? (d[k].shade - sum->low) / span : 0.5;
    qsort(d, (size_t)placed, sizeof *d, by_depth);
    sum->images = placed - sum->drawn;
    return d;
}

/* ---- a container's boundary: the zero contour of its signed distance ---- */

/* Where the contour crosses the edge from (x0, y0), value s0, to (x1, y1), s1. */
static void crossing(double x0, double y0, double s0, double x1, double y1, double s1, double *x, double *y)
{
    double t = s0 / (s0 - s1);
    *x = x0 + t * (x1 - x0), *y = y0 + t * (y1 - y0);
}

/* One grid cell of marching squares: corners (x, y), (x + h, y), (x + h,
 * y + h), (x, y + h) with values c[0..3]; strokes the segments inside it. */
static void contour_cell(cairo_t *cr, const frame_map *m, double x, double y, double h, const double c[4])
{
    const double cx[4] = {x, x + h, x + h, x}, cy[4] = {y, y, y + h, y + h};
    double px[4], py[4];
    int n = 0;
    for (int e = 0; e < 4; e++) {
        int f = (e + 1) % 4;
        if ((c[e] > 0.0) == (c[f] > 0.0)) continue;
        double wx, wy;
        crossing(cx[e], cy[e], c[e], cx[f], cy[f], c[f], &wx, &wy);
        to_pixel(m, wx, wy, &px[n], &py[n]);
        n++;
    }
    for (int k = 0; k + 1 < n; k += 2) { /* 2 crossings: one segment; 4 (a saddle): two */
        cairo_move_to(cr, px[k], py[k]);
        cairo_line_to(cr, px[k + 1], py[k + 1]);
    }
}

static int draw_container(cairo_t *cr, const render_scene *s, const frame_map *m)
{
    double h = 2.0 / m->scale; /* two pixels */
    int nx = (int)ceil(s->box[0] / h) + 1, ny = (int)ceil(s->box[1] / h) + 1;
    double x0 = -0.5 * s->box[0], y0 = -0.5 * s->box[1];
    double *row = malloc(2 * (size_t)(nx + 1) * sizeof *row);
    if (!row) return -1;
    double *below = row, *above = row + nx + 1;
    for (int i = 0; i <= nx; i++) below[i] = carom_container_distance(s->container, (carom_vec){x0 + i * h, y0, 0}, NULL);
    cairo_set_source_rgb(cr, 0.0, 0.0, 0.0);
    cairo_set_line_width(cr, 2.0);
    for (int j = 0; j < ny; j++) {
        double y = y0 + j * h;
        for (int i = 0; i <= nx; i++) above[i] = carom_container_distance(s->container, (carom_vec){x0 + i * h, y + h, 0}, NULL);
        for (int i = 0; i < nx; i++) contour_cell(cr, m, x0 + i * h, y, h, (const double[4]){below[i], below[i + 1], above[i + 1], above[i]});
        double *t = below;
        below = above, above = t;
    }
    cairo_stroke(cr);
    free(row);
    return 0;
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
    for (int32_t k = 0; k < sum->drawn + sum->images; k++) draw_body(cr, s, o, &m, &d[k]);
    cairo_restore(cr);
    free(d);
    if (s->dim == 2 && s->container) {
        cairo_save(cr);
        cairo_set_source_rgb(cr, 0.75, 0.75, 0.75); /* the box only sizes the grid: drawn faint */
        cairo_rectangle(cr, m.left, m.top, m.width, m.height);
        cairo_set_line_width(cr, 1.0);
        cairo_stroke(cr);
        cairo_restore(cr);
        if (draw_container(cr, s, &m) != 0) return -1;
    } else {
        draw_box(cr, s, o, &m);
    }
    if (o->color == RENDER_SPECIES) draw_species_key(cr, s, o);
    else draw_legend(cr, o, sum);
    draw_scale_bar(cr, &m);
    if (o->title) {
        cairo_set_source_rgb(cr, 0.0, 0.0, 0.0);
        cairo_set_font_size(cr, 14.0);
        cairo_move_to(cr, MARGIN, 0.7 * MARGIN);
        cairo_show_text(cr, o->title);
    }
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
