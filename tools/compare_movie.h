/* compare_movie.h — `carom compare --movie`: the exact engine and the plain
 * frame stepper from the same start, side by side in one movie, every
 * frame at its exact instant (compare_movie.c). */
#ifndef CAROM_COMPARE_MOVIE_H
#define CAROM_COMPARE_MOVIE_H
#include <stddef.h>

#include "carom.h"

typedef struct compare_movie_request {
    const char *path;  /* .mp4 or .gif */
    int fps;
    double speed;      /* simulated time per second of movie */
    int width, height; /* the whole movie: each run gets half the width */
    double dt;         /* the frame stepper's frame */
    double until;      /* the last instant */
} compare_movie_request;

/* A copy of a world (through a snapshot). Returns 0, or -1 if memory ran out. */
int compare_copy_world(const carom_world *world, carom_world **copy);

/* From initial (left as it is): frame k shows, on the left, the exact
 * engine at t_k = t0 + k speed / fps and, on the right, the plain frame
 * stepper at its last frame end at or before t_k, for t_k up to until.
 * Returns 0, or -1 with a message (no movie left behind). */
int compare_movie_write(const carom_world *initial, int dim, const double box[3], const compare_movie_request *r,
                        char *why, size_t why_size);

#endif
