/* steer_view.h — seed 003 on the page (steer_view.c): a ball steered by the
 * player's arrow keys in a container, through carom's safety filter. */
#ifndef STEER_VIEW_H
#define STEER_VIEW_H
#include <stdint.h>

typedef struct steer_view steer_view;

/* The containers the page offers. */
enum steer_shape { STEER_BOX = 0, STEER_CIRCLE, STEER_ROUNDED, STEER_STADIUM, STEER_SHAPES };

/* What steer_counters returns, by index. */
enum steer_counter {
    STEER_TIME = 0,
    STEER_X, STEER_Y, STEER_VX, STEER_VY,
    STEER_CRITICALITY,    /* lambda of the filter's last result (0 with the filter off) */
    STEER_SPEED_RATIO,    /* v / v_max of the last result (with the filter off: from the clearance now) */
    STEER_ACTED,          /* 1 if the filter changed the player's input last time */
    STEER_WALL_HITS,      /* times the ball hit the wall */
    STEER_LEAST_CLEARANCE,/* the least clearance (s - r) on the ball's whole path since the start */
    STEER_CLEARANCE,      /* the clearance now */
    STEER_COUNTERS
};

/* A ball of radius 0.04 at rest at the centre of shape, steered with
 * maximal acceleration a_max through filter law (carom_filter_law; 0: off)
 * with safety sigma. Never NULL unless memory ran out; check steer_status. */
steer_view *steer_create(int32_t shape, int32_t law, double a_max, double sigma);
int steer_status(const steer_view *view);
const char *steer_message(const steer_view *view);
/* Changes the filter's law (0: off) from now on. */
int steer_set_law(steer_view *view, int32_t law);
/* The player pushes along (x, y) (each in [-1, 1]: a_max times it) for dt. */
int steer_advance(steer_view *view, double x, double y, double dt);
const double *steer_counters(const steer_view *view);
/* The container's outline: count points (x, y) on its boundary, 2 floats
 * each, found along rays from the centre (every shape here is star-shaped
 * about it). */
const float *steer_outline(steer_view *view, int32_t count);
double steer_radius(const steer_view *view);
void steer_destroy(steer_view *view);

#endif
