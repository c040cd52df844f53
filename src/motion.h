/* motion.h — free flight under a uniform field: x(t) = x + v dt + g dt^2 / 2.
 * Inline helpers on the hot record; gravity-free flight skips the field terms
 * so it is a pure straight line. */
#ifndef CAROM_MOTION_H
#define CAROM_MOTION_H

#include "world.h"

/* Position and velocity of body b at time t, without changing it. */
static inline void motion_state_at(const body_hot *b, const double g[3], int has_gravity,
                                   double t, double x[3], double v[3])
{
    double dt = t - b->t;
    for (int a = 0; a < 3; a++) {
        x[a] = b->x[a] + b->v[a] * dt;
        v[a] = b->v[a];
        if (has_gravity) {
            x[a] += 0.5 * g[a] * dt * dt;
            v[a] += g[a] * dt;
        }
    }
}

/* Brings body b forward to time t. */
static inline void motion_advance(body_hot *b, const double g[3], int has_gravity, double t)
{
    motion_state_at(b, g, has_gravity, t, b->x, b->v);
    b->t = t;
}

/* The acceleration of body i (slot): a driven body's own total (drive.c);
 * otherwise the world's gravity, less its normal part on the floors the
 * body rests on. */
static inline const double *motion_gravity(const carom_world *w, int32_t i)
{
    if (w->drive.on && w->drive.moved[w->id_of[i]]) return &w->drive.total[3 * w->id_of[i]];
    if (!w->rest.state) return w->gravity;
    return w->rest.gravity_of[w->rest.state[w->id_of[i]] & 7];
}

#endif
