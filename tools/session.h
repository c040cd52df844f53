/* session.h — what a `carom run` needs beyond the world itself: where it is
 * going, what it writes and how far it has come. A checkpoint stores it with
 * the world's snapshot, so a restart carries on with the same settings. */
#ifndef CAROM_SESSION_H
#define CAROM_SESSION_H

#include <stdint.h>

#include "thermostat.h"

typedef struct session {
    char *scenario_path;     /* where the run came from (for the stats) */
    uint64_t seed;
    double until;            /* simulated time to reach (INFINITY: only the event cap) */
    int64_t events;          /* cap on the run's total events (-1: none) */
    char *trajectory;        /* NULL when not written */
    double every;            /* frame interval */
    char *events_log;
    char *stats;
    char *checkpoint;
    char *species;           /* the bodies' species for trajectories: "NAME COUNT ..." (xyz.h) */
    double checkpoint_every; /* 0: a checkpoint only at the end */
    double next_frame;       /* simulated time of the next trajectory frame */
    double next_checkpoint;
    double kinetic_energy_initial;
    double potential_energy_initial;
    double rotational_energy_initial; /* sum of I w^2 / 2 at the start (issue 14) */
    int frames_written;      /* frames in the trajectory file so far (a restart keeps that many) */
    int64_t events_logged;   /* rows in the event log so far, header not counted (a restart keeps that many;
                                -1: not known, a checkpoint of format 4 or 5) */
    double window;           /* run.window: run in windows of this length (0: one run) */
    double window_origin;    /* window k starts at window_origin + k * window */
    char *controls;          /* run.controls: the CSV replayed at window starts (NULL: none) */
    int64_t controls_next;   /* the first row of controls not applied yet */
    uint32_t controls_checksum; /* CRC-32C of the controls file (a restart refuses a changed one) */
    thermostat thermostat;   /* the scenario's thermostat, settings and state (kind NONE: none) */
    /* Not stored in a checkpoint (set up again when a run starts or restarts): */
    double frame_origin;     /* frame k is at frame_origin + k * every (by multiplication, so exact) */
    int64_t frame_index;     /* k of the next frame */
    double last_frame_time;  /* of the last frame written (-INFINITY: none) */
    double checkpoint_origin;/* checkpoint k at checkpoint_origin + k * checkpoint_every */
    int64_t checkpoint_index;
    double equilibrate;      /* the measuring window starts here (0: at the start) */
} session;

void session_free(session *s);
/* Replaces *field with a copy of value (NULL stays NULL). 0, or -1 if out of memory. */
int session_set_text(char **field, const char *value);

#endif
