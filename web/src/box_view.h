/* box_view.h — seed 002's box on the page (box_view.c): the exact engine
 * and the frame stepper from the same start, each brought to the instant
 * the page draws, with the counters the page shows. */
#ifndef BOX_VIEW_H
#define BOX_VIEW_H
#include <stdint.h>

#include "carom.h"

typedef struct box_view box_view;

/* What box_counters returns, by index. */
enum box_counter {
    BOX_TIME_EXACT = 0,    /* the exact engine's clock */
    BOX_TIME_FRAME,        /* the stepper's clock: the last frame end at or before the exact clock */
    BOX_ENERGY_START,      /* kinetic energy at the start */
    BOX_ENERGY_EXACT,      /* the exact engine's kinetic energy now */
    BOX_ENERGY_FRAME,      /* the stepper's */
    BOX_COLLISIONS_EXACT,  /* pair collisions of the exact engine */
    BOX_WALLS_EXACT,       /* wall collisions of the exact engine */
    BOX_COLLISIONS_FRAME,  /* pair impulses of the stepper */
    BOX_OVERLAPS_NOW,      /* the stepper's overlapping pairs now */
    BOX_OVERLAPS_MOST,     /* the most it had at one frame end */
    BOX_MISSED,            /* collisions the stepper missed: paths that met within a frame, apart at its end */
    BOX_PENETRATION_MOST,  /* the deepest overlap where the stepper applied an impulse */
    BOX_OVERLAPS_EXACT,    /* the exact engine's overlapping pairs now (0 up to round-off) */
    BOX_FRAMES,            /* frames stepped */
    BOX_COUNTERS
};

/* A box of width x height with n disks (web_place.h) and a plain frame
 * stepper of frame length dt from the same start. Never NULL unless memory
 * ran out; check box_status and box_message. */
box_view *box_create(int32_t n, double width, double height, double radius, double speed, double dt,
                     uint32_t seed);
/* The same from the caller's bodies (equal radii), their colours scaled by
 * speed; box_create places the disks (web_place.h) and calls this. */
box_view *box_create_with(const carom_body_def *bodies, int32_t n, double width, double height, double speed,
                          double dt);
/* 0 when usable; otherwise carom_status (box_message says why). */
int box_status(const box_view *view);
const char *box_message(const box_view *view);
/* Brings the exact engine to t (not before its clock) and steps the frame
 * stepper by whole frames up to t, at most max_frames of them (a stepper left
 * behind catches up on the next calls). Fills the drawing buffers. */
int box_advance(box_view *view, double t, int32_t max_frames);
/* 4 floats a disk (x, y, radius, colour): the colour is speed / initial
 * speed, or -1 for a disk overlapping another (the stepper's). */
const float *box_exact_disks(const box_view *view);
const float *box_frame_disks(const box_view *view);
const double *box_counters(const box_view *view);
/* The exact engine's (which 0) or the stepper's (1) disks painted into
 * width x height RGBA pixels (paint.h), for the canvas without a GPU; NULL
 * if memory ran out or the view failed. */
const uint8_t *box_paint(box_view *view, int32_t which, int32_t width, int32_t height);
int32_t box_count(const box_view *view);
void box_destroy(box_view *view);

#endif
