/* controller.h — a scripted air-hockey controller (controller.c): each
 * mallet defends, intercepts or strikes, and steers towards its target with
 * a velocity that it can always brake from before a wall or the centre line.
 * It is one airhockey_controller among many: write your own with the same
 * signature and set airhockey_config.controller. */
#ifndef AIRHOCKEY_CONTROLLER_H
#define AIRHOCKEY_CONTROLLER_H

#include "airhockey.h"

typedef struct airhockey_scripted {
    double max_speed;        /* mallets' cruising speed (m/s) */
    double braking;          /* fraction of max_acceleration planned for braking, in (0, 1] */
    double defence_distance; /* a defender's distance from its goal's centre (m) */
    double intercept_line;   /* distance from the own end wall where an incoming puck is met (m) */
    double margin;           /* kept between a mallet and the walls and the centre line (m) */
    double run_up;           /* gap between mallet and puck from which a strike starts (m) */
    double return_time; /* an intercepting mallet hits out this long before the puck arrives (s) */
} airhockey_scripted;

/* 3 m/s, braking 0.6, defence 0.2 m, intercept line 0.3 m, margin 0.01 m, run-up 0.15 m,
 * return time 0.1 s. */
airhockey_scripted airhockey_default_scripted(void);

/* The controller. user: NULL (the defaults) or an airhockey_scripted. */
void airhockey_scripted_controller(void *user, const airhockey_view *view, carom_vec *acceleration);

#endif
