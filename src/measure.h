/* measure.h — observables: event counters, the collision virial, and the
 * exact time integral of the kinetic energy over a measuring window. */
#ifndef CAROM_MEASURE_H
#define CAROM_MEASURE_H

#include <stdint.h>

typedef struct measure {
    int64_t pair_events, wall_events, cell_events, stale_events, rest_events, sensor_events;
    int64_t predictions;     /* bodies predicted */
    double control_work;     /* KE + PE put in by the setters */
    double kinematic_work;   /* KE given to free bodies by kinematic ones */
    double window_start;     /* time the measuring window opened */
    int64_t window_pairs;    /* pair collisions in the window */
    double virial;           /* sum of r_ij . dp_i over the window's pair collisions */
    double wall_impulse;     /* momentum given to walls in the window */
    double kinetic_integral; /* integral of KE dt over finished flights in the window */
} measure;

struct body_hot;
struct carom_world;

void measure_open_window(measure *m, double now);

/* Adds the kinetic energy integral of body b's flight from its time stamp
 * (or the window start, if later) to t. Call before b is brought to t. */
void measure_flight(measure *m, const struct body_hot *b, double mass, const double g[3],
                    int has_gravity, double t);

#endif
