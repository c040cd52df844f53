/* render.h — pictures of one state of a world, drawn with cairo (issue 15):
 * 2D disks to scale in their box, 3D spheres shaded and drawn back to front
 * in a projection, coloured by a quantity with a colour bar and a scale bar. */
#ifndef CAROM_RENDER_H
#define CAROM_RENDER_H

#include <stddef.h>

#include "carom.h"

typedef enum render_color { RENDER_SPEED, RENDER_ENERGY, RENDER_SPIN, RENDER_SPECIES } render_color;
typedef enum render_view { RENDER_VIEW_Z, RENDER_VIEW_X, RENDER_VIEW_Y, RENDER_VIEW_ISO } render_view;

typedef struct render_options {
    int width, height;  /* pixels */
    render_color color; /* what the colour shows */
    render_view view;   /* 3D: the axis looked along (the viewer on its + side), or iso */
    int has_slab;       /* 3D: only bodies whose centre's depth lies in [slab_from, slab_to] */
    double slab_from, slab_to;
    int fixed_range;    /* 1: the colour bar spans [range_low, range_high] (a movie's frames), 0: the frame's own */
    double range_low, range_high;
    const char *title;  /* a line written at the top left (NULL: none) */
} render_options;

/* One state to draw: bodies (their position, velocity, radius, mass, angular
 * velocity and inertia are read), the dimension and the box sides (centred
 * at 0, as carom's worlds are); the rest is optional (zero: none). */
typedef struct render_scene {
    int dim;
    double box[3];
    const carom_body_state *bodies;
    int32_t count;
    /* Species (--color species): each body's index into species_names, or
     * -1 for one not named there. */
    const int32_t *species;
    const char *const *species_names;
    int32_t species_kinds;
    /* 2D: periodic axes; a disk (or polygon) crossing such a face is drawn on
     * both sides, as the periodic world has it. */
    int periodic[3];
    /* 2D polygons: vertices in the world frame, body after body; body k has
     * vertices vertex_start[k] to vertex_start[k + 1] - 1 (count + 1
     * entries; a disk has none). NULL: every body a disk. */
    const carom_vec2 *vertices;
    const int32_t *vertex_start;
    /* 2D: the world's container, whose boundary is drawn (its zero contour)
     * instead of the box. */
    const carom_container *container;
} render_scene;

/* The colour a species index is drawn in (a fixed palette of ten, repeated;
 * -1 grey), as 0..1 RGB. */
void render_species_color(int32_t species, double rgb[3]);

/* What a picture showed: the colour bar's range and the bodies drawn. */
typedef struct render_summary {
    double low, high;
    int32_t drawn;  /* bodies drawn */
    int32_t images; /* periodic images drawn besides them */
} render_summary;

render_options render_default_options(void);

/* The colour quantity of a body (speed, kinetic energy translation + spin, |omega|). */
double render_quantity(const carom_body_state *b, render_color color);

/* Draws the scene into rgb (width * height * 3 bytes, rows top down, packed
 * RGB). Returns 0, or -1 if cairo failed. */
int render_to_rgb(const render_scene *scene, const render_options *o, unsigned char *rgb, render_summary *summary);

/* Draws the scene to path, PNG or SVG by its extension, written under a
 * temporary name and renamed when complete. Returns 0; or -1 with a message
 * in why (nothing is left at path). */
int render_to_file(const render_scene *scene, const render_options *o, const char *path,
                   render_summary *summary, char *why, size_t why_size);

/* Releases cairo's and fontconfig's process-wide caches (at the end of a
 * command that drew, so that a leak checker sees a clean exit; no drawing
 * may follow). */
void render_release_caches(void);

#endif
