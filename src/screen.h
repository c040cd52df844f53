/* screen.h — a neighbour row screened four entries at a time (AVX2).
 *
 * A pair scan (schedule.c) asks of each neighbour whether the pair may meet
 * before the horizon (predict_pair_may_meet_scaled, or predict_pair_may_meet
 * for a body behind the clock) and, for the few that may, when
 * (predict_pair_before). Here four neighbours are asked at once, lane for
 * lane with the very operations of the scalar code in the same order (the
 * functions are compiled for AVX2 alone, so no fused multiply-add can
 * appear), and each lane's answer and time have the scalar code's bits. The
 * screen answers for the horizon the scan has when it starts, and the time
 * is predict_pair's, without the horizon's early rejection: a pair the
 * scalar scan would have rejected at its later, nearer horizon meets after
 * that horizon, so after the best time found by then, and the scan's offer
 * refuses it. The scan keeps the same pair, and the event sequence is the
 * same, bit for bit.
 *
 * The functions exist on x86-64 with GCC or Clang, and are used where the
 * processor has AVX2, or AVX-512F for eight lanes (screen_available, asked
 * once a world; four on Intel's processors), whatever the build's -march. */
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
    double limit; /* nearest: the best time so far */
} screen_body;

/* The lanes this processor can screen at once: 8 where it has AVX-512F (and
 * runs screen_row8 as well as the four-lane functions), 4 where it has
 * AVX2, 0 where neither (the scans are then scalar). */
int screen_supported(void);

/* The lanes a world screens with: screen_supported's, but 4 on Intel
 * processors with AVX-512F, where eight lanes were measured slower. */
int screen_available(void);

/* Bit k set where entries[k] (k < count <= SCREEN_MAX) may meet a before the
 * horizon, as predict_pair_may_meet_scaled says; hot is indexed by the
 * entry's slot, shift4 by its image (each shift padded to four doubles).
 * time[k] is then the pair's absolute time of contact, t_a + predict_pair
 * (INFINITY for none; NaN where a record is), bit for bit; time[count] and
 * on, up to SCREEN_TIMES, are scratch. The horizon only rejects pairs that
 * meet after it, which a scan never keeps, so a scan may offer these times
 * in place of predict_pair_before's and keep the same pair.
 *
 * With nearest set, the bits are instead those of the entries whose time is
 * the earliest of the row (time[k] == that time), and none unless that time
 * is finite and no later than a->limit, the scan's best time so far. Where
 * the scan keeps the earliest pair by (time, kind, id) and nothing else
 * (no pair held back as last partners), offering these alone keeps the same
 * pair: a later one never beats them, an earlier one than the limit always
 * does, and ties among them go by id whatever the order.
 *
 * screen_row_2d and screen_row_behind_2d, for a 2D world (where every z
 * of the records, shifts and a is zero), leave the z terms out. No bit of
 * an answer changes: each z term is a zero (dr_z^2, dv_z^2 are +0, which
 * leaves a sum of squares as it is), and dr_z dv_z, which a velocity of -0
 * along z can make -0, can at most turn b = -0 into +0, which every
 * comparison takes alike (b >= 0 is never). */
enum { SCREEN_TIMES = SCREEN_MAX + 3 };
uint32_t screen_row(const body_hot *hot, const double (*shift4)[4], const int32_t *entries, int count,
                    const screen_body *a, double time[SCREEN_TIMES], int nearest);

/* The same for a body i behind the clock: each pair brought to the later of
 * its two times t, as predict_pair_may_meet at the horizon left from there;
 * time[k] = t + predict_pair. */
uint32_t screen_row_behind(const body_hot *hot, const double (*shift4)[4], const int32_t *entries, int count,
                           const screen_body *a, double time[SCREEN_TIMES], int nearest);

/* screen_row and screen_row_behind eight entries at a time (AVX-512F; 3D
 * only: a 2D row of about ten entries fills eight lanes worse than four),
 * the same bits and times. A short last group (four entries or fewer) is
 * screened four at a time. */
uint32_t screen_row8(const body_hot *hot, const double (*shift4)[4], const int32_t *entries, int count,
                     const screen_body *a, double time[SCREEN_TIMES], int nearest);
uint32_t screen_row8_behind(const body_hot *hot, const double (*shift4)[4], const int32_t *entries, int count,
                            const screen_body *a, double time[SCREEN_TIMES], int nearest);

/* The same two for a 2D world. */
uint32_t screen_row_2d(const body_hot *hot, const double (*shift4)[4], const int32_t *entries, int count,
                       const screen_body *a, double time[SCREEN_TIMES], int nearest);
uint32_t screen_row_behind_2d(const body_hot *hot, const double (*shift4)[4], const int32_t *entries, int count,
                              const screen_body *a, double time[SCREEN_TIMES], int nearest);

#endif
