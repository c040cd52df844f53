/* screen.h — a neighbour row screened four entries at a time (AVX2).
 *
 * The lean pair scan (schedule.c) asks, for each entry of a body's list,
 * predict_pair_may_meet_scaled: may this pair meet before the horizon? Most
 * entries are rejected (seven in eight at packing 0.45). This screen asks the
 * same question of four neighbours at once, lane for lane the very operations
 * of the scalar scan in the same order (no fused multiply-add: the function
 * is compiled for AVX2 alone), so each lane's answer has the scalar answer's
 * bits. It answers for the scan's first horizon; the scan then offers only
 * the entries that passed, each screened again at the horizon it has by then.
 * A later horizon rejects a subset of what an earlier one rejects
 * (within = !(c > b scale), and b scale only falls as the horizon does, for
 * an approaching pair, b < 0), so the scan keeps the pairs it kept before,
 * in the same order, and the event sequence is unchanged bit for bit.
 *
 * The function exists on x86-64 with GCC or Clang, and is used where the
 * processor has AVX2 (screen_available), whatever the build's -march. */
#ifndef CAROM_SCREEN_H
#define CAROM_SCREEN_H

#include <stdint.h>

#include "world.h"

enum { SCREEN_MAX = 32 }; /* entries a call screens: one bit each in the mask */

/* The flight a scan screens against: body i. scale is
 * predict_rejection_scale of the horizon (for screen_row, i at the clock);
 * horizon the absolute time (for screen_row_behind). */
typedef struct screen_body {
    double x[3], v[3], t, radius, scale, horizon;
} screen_body;

/* Whether this processor runs screen_row. */
int screen_available(void);

/* Bit k set where entries[k] (k < count <= SCREEN_MAX) may meet a before the
 * horizon, as predict_pair_may_meet_scaled says; hot is indexed by the
 * entry's slot, shift4 by its image (each shift padded to four doubles).
 * time[k] is then the pair's absolute time of contact, t_a + predict_pair
 * (INFINITY for none; NaN where a record is), bit for bit; time[count] and
 * on, up to SCREEN_TIMES, are scratch. The horizon only rejects pairs that
 * meet after it, which a scan never keeps, so a scan may offer these times
 * in place of predict_pair_before's and keep the same pair. */
enum { SCREEN_TIMES = SCREEN_MAX + 3 };
uint32_t screen_row(const body_hot *hot, const double (*shift4)[4], const int32_t *entries, int count,
                    const screen_body *a, double time[SCREEN_TIMES]);

/* The same for a body i behind the clock: each pair brought to the later of
 * its two times t, as predict_pair_may_meet at the horizon left from there;
 * time[k] = t + predict_pair. */
uint32_t screen_row_behind(const body_hot *hot, const double (*shift4)[4], const int32_t *entries, int count,
                           const screen_body *a, double time[SCREEN_TIMES]);

#endif
