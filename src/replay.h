/* replay.h — a stretch of events recorded in time order and processed again
 * in another order that gives the same bits (issue 16, point 3).
 *
 * An event reads and writes the records of the bodies in the cells around
 * its bodies' cells, and nothing else that another event writes (the clock
 * at an event is the event's own time; ties go by body id; schedule.c's
 * predictions give both sides of a pair the same bits). So two events whose
 * touched cells (its body's cell before and after, and a pair's partner's
 * cell) are more than one cell apart on some axis commute, and any order in
 * which every event comes after the earlier events it does not commute with
 * gives the time order's state bit for bit: it is a linear extension of
 * that partial order, and one is reached from the other by exchanging
 * neighbours that commute. The running sums of the statistics are the one
 * exception (they add in processing order: their last bits may differ).
 *
 * run_record_next (run.h) records a stretch; replay_region_order orders it
 * region by region; run_replay processes it in that order. bench/replay.c
 * measures what the order gains at 10^6 bodies; tests/test_replay.c checks
 * the bits. Supported are worlds with cell lists and no caller in the loop:
 * no callback, steering, sensors, drives, containers, polygons, resting or
 * collapse bookkeeping (replay_unsupported). */
#ifndef CAROM_REPLAY_H
#define CAROM_REPLAY_H

#include <stdint.h>

#include "carom.h"

/* One processed calendar entry: the body whose entry came due, its time,
 * and the distinct cells the event touched (-1 past the last). */
typedef struct replay_event {
    double time;
    int32_t body;
    int32_t cells[3];
} replay_event;

/* NULL if w's events can be recorded and replayed, else why not. */
const char *replay_unsupported(const carom_world *w);

/* The event loop's other two entry points (run.c, beside carom_world_run).
 * run_record_next processes the world's next calendar entry as
 * carom_world_run would (a stale entry too: it is predicted again), without
 * prefetching or re-sorting the memory, and records it in *out.
 * CAROM_INVALID_ARGUMENT if the world is unsupported or nothing is due
 * (world message). */
carom_status run_record_next(carom_world *w, replay_event *out);
/* Processes count events recorded by run_record_next in a world in the
 * state the recording started from, in the order given (NULL: as recorded),
 * which must be one that replay.h's argument allows. The calendar is frozen
 * meanwhile (the caller chooses the order) and thawed at the end; the clock
 * ends at the latest time replayed. With prefetch, in worlds large enough
 * for run_until to prefetch, the records the next events read are asked
 * for ahead of them, as the order is known.
 * CAROM_INVALID_ARGUMENT, with nothing done, if the world is unsupported or
 * an event names a body or time it cannot have; a status of the engine
 * (a jam) after the events before it. */
carom_status run_replay(carom_world *w, const replay_event *events, const int64_t *order, int64_t count,
                        int prefetch);

/* What replay_region_order made of a stretch. */
typedef struct replay_order_stats {
    int64_t visits;  /* region visits that took an event */
    int64_t away;    /* events taken in another region's visit (they waited for it) */
    int64_t regions; /* regions of the grid */
} replay_order_stats;

/* Orders count events recorded in time order: window after window (of
 * window events each, in time order), each region of side cells on each
 * axis in turn takes its events of the window in time order, each after the
 * earlier events it does not commute with (taken first, wherever they are).
 * grid and periodic: the cell grid's cells per axis and wrapping. Writes a
 * permutation of 0 .. count-1 to order; returns 0, or -1 if out of memory
 * or an event names a cell outside the grid (order is then unspecified). */
int replay_region_order(const replay_event *events, int64_t count, const int32_t grid[3], const int periodic[3],
                        int32_t side, int64_t window, int64_t *order, replay_order_stats *stats);

/* Bodies whose motion, scheduled event, stamp or cell differ between a and
 * b (slot by slot), plus cells whose lists differ; -1 if the worlds differ
 * in size or grid. 0: the same state, bit for bit, but for the sums. */
int64_t replay_differences(const carom_world *a, const carom_world *b);
/* The same by body id, for worlds whose bodies may sit in other slots
 * (sorted in memory at other moments: speculate.h): bodies whose motion,
 * event (its partner by id), event time, stamp, count, cell or spin differ;
 * the order within a cell's list, which follows the slots, is left out. */
int64_t replay_differences_by_id(const carom_world *a, const carom_world *b);

#endif
