/* schedule.h — predicting each body's one next event. */
#ifndef CAROM_SCHEDULE_H
#define CAROM_SCHEDULE_H

#include "world.h"

/* Predicts body i's earliest event (pair, wall or cell exit) and files it. */
void schedule_body(carom_world *w, int32_t i);
/* schedule_body's prediction: body i's event is set, and the time it must
 * be filed at is returned for the caller to file (calendar_set). No
 * prediction reads the calendar's times or lists, so the filing of one body
 * may wait for the prediction of another. */
double schedule_prediction(carom_world *w, int32_t i);
/* The earliest of body i's own events (walls; with OWN_CELL leaving its cell
 * or shell; with OWN_REST a Zeno series' end), as schedule_body finds them,
 * and which it is (event may be NULL): its scheduled event is no later (and
 * is that one unless it is a pair), and in a world that ran its walls and
 * cell exits are not before the clock (a restored snapshot is checked by it). */
enum { OWN_REST = 1, OWN_CELL = 2 };
double schedule_own_time(const carom_world *w, int32_t i, int which, body_event *event);

/* Re-bins every body into a grid of cells at least min_width wide (at most
 * max_cells cells), from their positions at the clock. 0, or -1 if out of memory. */
int schedule_regrid(carom_world *w, double min_width, int64_t max_cells);

/* Brings every body to the clock, re-grids tightly and predicts everything. */
carom_status schedule_rebuild(carom_world *w);

#endif
