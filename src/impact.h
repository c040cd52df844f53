/* impact.h — the bisection stepper's frame (seed 004). */
#ifndef CAROM_IMPACT_H
#define CAROM_IMPACT_H

#include "frame.h"

/* Steps every body from the clock to t1, applying each contact found at t1
 * at its time of impact (bisection within eps), in time order. CAROM_OK,
 * CAROM_JAMMED (warning: a body had more than max_passes collisions in the
 * frame) or CAROM_OUT_OF_MEMORY. */
carom_status impact_frame(carom_frame *f, double t1);

#endif
