/* speculate.h — events processed region by region as the world runs, with
 * rollback where a guess was wrong (issue 16, point 3).
 *
 * replay.h shows that any order in which each event comes after the earlier
 * events within one cell of it gives the time order's state bit for bit.
 * A running engine does not know the later events in advance, so it guesses
 * (Jefferson's Time Warp, on one thread): time is cut into windows, and in
 * each window each region of the cell grid takes its own events in (time,
 * key) order. Before an event, the events it can be seen to wait for are
 * taken first, wherever they are: its pair partner's earlier event, and at
 * a region's edge the earlier events of the bodies in its stencils. What no
 * one can see yet (an event that a neighbour's event will make) shows up
 * later as a processed event within one cell of an earlier one: that event
 * is undone, with every event processed after it within one cell of an
 * undone one (they may have read what it wrote), and the undone events come
 * due again. Events farther apart commute, so what is kept is an order
 * replay.h allows, and a window ends in the time order's state. Undo records
 * hold each event's bodies as they were (motion, event, stamp, count, cell,
 * spin) and where its body sat in its cell's list.
 *
 * The statistics' counters come out as in time order; the running sums
 * (virial, wall impulse, kinetic-energy integral) add each event's part in
 * processing order, so their last bits may differ from time order's, as in
 * replay.h (they depend on nothing but the world and the two settings).
 * The bodies are re-sorted in memory between windows where carom_world_run
 * would have done it within one, so slots may differ from a time-order
 * run's; the state by body id does not.
 *
 * A window whose events fail (a jam), that needs too many sweeps or undoes
 * far more than it keeps, is undone and run again in time order by
 * carom_world_run, which then gives the time order's result and message.
 * Supported are the worlds replay_unsupported accepts.
 *
 * This is a design study, not yet an engine to use (bench/README.md, "Time
 * Warp on one thread"): it keeps every bit, and it is slower than
 * carom_world_run at every size measured. */
#ifndef CAROM_SPECULATE_H
#define CAROM_SPECULATE_H

#include <stdint.h>

#include "carom.h"

typedef struct speculate_stats {
    int64_t kept;       /* events processed and kept */
    int64_t executions; /* events processed, those later undone included */
    int64_t undone;     /* events undone */
    int64_t windows;    /* windows run */
    int64_t sweeps;     /* passes over the regions */
    int64_t fallbacks;  /* windows run again in time order */
} speculate_stats;

/* Runs w until t_end (events at times <= t_end, then the clock is t_end),
 * region by region: regions of side cells on each axis, windows of window
 * time units. stats may be NULL. CAROM_INVALID_ARGUMENT, with nothing done,
 * for an unsupported world, t_end before the clock or not finite, side < 1,
 * or a window that is not finite and positive; CAROM_OUT_OF_MEMORY with
 * nothing done; a status of the engine, as carom_world_run gives it. */
carom_status speculate_run(carom_world *w, double t_end, int32_t side, double window, speculate_stats *stats);

/* run.c's event step (process_next, not inlined here), for the engine
 * above: processes body i's due event at time t; *counted is 1 if it was
 * not stale. */
carom_status run_process_event(carom_world *w, int32_t i, double t, int *counted);

#endif
