/* movie.h — movies at exact instants (issue 15): frame k of a run is drawn
 * at exactly t = origin + k * speed / fps from the live world (an
 * event-driven engine knows every position at any instant, so frames do not
 * depend on the trajectory's interval) and piped as raw RGB to ffmpeg. */
#ifndef CAROM_MOVIE_H
#define CAROM_MOVIE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "carom.h"
#include "render.h"
#include "scene.h"

typedef struct movie {
    char *path, *temporary;  /* the movie, and the name ffmpeg writes it under until it is complete */
    int fps;
    double speed, origin;    /* simulated time per second of movie; the time of frame 0 */
    int64_t index;           /* the next frame */
    render_options look;     /* the colour range is fixed at the first frame's */
    unsigned char *rgb;      /* one frame */
    scene_buffers scene;     /* the world's bodies and polygons at a frame */
    pid_t child;             /* ffmpeg */
    int pipe;                /* its standard input (-1: closed) */
} movie;

/* Checks the path (.mp4 or .gif), starts ffmpeg writing to a temporary name
 * beside it. Returns 0, or -1 with a message (nothing left behind). */
int movie_open(movie *m, const char *path, int fps, double speed, double origin, int width, int height,
               char *why, size_t why_size);
/* The simulated time of the next frame. */
double movie_next_time(const movie *m);
/* Draws the world as it is now as the next frame. Returns 0, or -1 with a message. */
int movie_frame(movie *m, const carom_world *world, int dim, const double box[3], char *why, size_t why_size);
/* Writes a frame drawn elsewhere (width * height * 3 bytes of packed RGB,
 * rows top down) as the next frame. Returns 0, or -1 with a message. */
int movie_write_rgb(movie *m, const unsigned char *rgb, char *why, size_t why_size);
/* Ends the movie: ffmpeg finishes and the file is renamed into place.
 * Returns 0, or -1 with a message (then nothing is left behind). */
int movie_close(movie *m, char *why, size_t why_size);
/* Abandons the movie (ffmpeg stopped, the temporary removed). */
void movie_discard(movie *m);

#endif
