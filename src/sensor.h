/* sensor.h — sensor planes: a body's centre crossing one is an exact event
 * that changes no motion (see sensor.c). */
#ifndef CAROM_SENSOR_H
#define CAROM_SENSOR_H

#include <stdint.h>

#include "carom.h"

typedef struct sensor_plane {
    int axis;
    double at;           /* the plane's coordinate on axis */
    double lo[3], hi[3]; /* extents on the other axes (on axis itself: unused) */
} sensor_plane;

/* A body's last crossing: crossings are taken in the order (time, sensor),
 * and only those after it are offered (the body is not brought forward by
 * one, so it would find the same one again). */
typedef struct sensor_mark {
    double time;    /* -INFINITY: none yet */
    int32_t sensor; /* -1: none yet */
} sensor_mark;

typedef struct sensors {
    int32_t count, capacity;
    sensor_plane *plane;
    /* By body id, allocated with the world's per-body arrays once a sensor exists. */
    sensor_mark *last;
} sensors;

typedef struct carom_world carom_world;

/* The earliest crossing of any sensor by body i (slot) after both the body's
 * last crossing (in the order time, sensor: several sensors crossed at one
 * instant are reported one by one) and its time stamp, as an absolute time
 * (INFINITY: none); *sensor and *upwards name it. */
double sensor_next_crossing(const carom_world *w, int32_t i, int32_t *sensor, int *upwards);
/* Checks a sensor def against the world (its message says what is wrong). */
carom_status sensor_check(carom_world *w, const carom_sensor_def *def);
/* Room for needed planes (the first brings the per-body array, every body
 * without a crossing). 0, or -1 if out of memory (nothing changed). */
int sensor_reserve(carom_world *w, int32_t needed);
/* Frees the planes (the per-body array goes with the world's others). */
void sensor_free(carom_world *w);

#endif
