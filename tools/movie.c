/* movie.c — movies at exact instants, encoded by ffmpeg through a pipe
 * (issue 15). The frames are drawn by render.c from the world's bodies at
 * the instant of each frame; runner.c stops the run exactly there. ffmpeg
 * (Debian's) is started with posix_spawnp and an argument vector, never a
 * shell string: it reads raw RGB frames on its standard input and writes
 * H.264 in MP4 (yuv420p, for every player) or a GIF with its own palette
 * (palettegen and paletteuse) to a temporary name, renamed when it exits
 * cleanly. */
#define _POSIX_C_SOURCE 200809L
#include "movie.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outfile.h"

extern char **environ;

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static char *copy_text(const char *text)
{
    char *c = malloc(strlen(text) + 1);
    if (c) strcpy(c, text);
    return c;
}

/* ffmpeg reading WxH RGB frames at fps on stdin, writing the temporary. */
static int start_ffmpeg(movie *m, int width, int height, int gif, char *why, size_t why_size)
{
    char size[64], rate[32];
    snprintf(size, sizeof size, "%dx%d", width, height);
    snprintf(rate, sizeof rate, "%d", m->fps);
    char *mp4[] = {"ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24",
                   "-s", size, "-r", rate, "-i", "-", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-f", "mp4",
                   m->temporary, NULL};
    char *gif_args[] = {"ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt",
                        "rgb24", "-s", size, "-r", rate, "-i", "-", "-vf",
                        "split[a][b];[a]palettegen[p];[b][p]paletteuse", "-f", "gif", m->temporary, NULL};
    int fds[2];
    if (pipe(fds) != 0) return snprintf(why, why_size, "%s: cannot start ffmpeg (%s)", m->path, strerror(errno)), -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    int spawned = posix_spawnp(&m->child, "ffmpeg", &actions, NULL, gif ? gif_args : mp4, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[0]);
    if (spawned != 0) {
        close(fds[1]);
        return snprintf(why, why_size, "%s: cannot start ffmpeg (%s; Debian's ffmpeg package makes movies)", m->path,
                        strerror(spawned)), -1;
    }
    m->pipe = fds[1];
    return 0;
}

int movie_open(movie *m, const char *path, int fps, double speed, double origin, int width, int height,
               char *why, size_t why_size)
{
    memset(m, 0, sizeof *m);
    m->pipe = -1;
    int gif = ends_with(path, ".gif");
    if (!gif && !ends_with(path, ".mp4"))
        return snprintf(why, why_size, "--movie: '%s': the movie's name must end in .mp4 or .gif", path), -1;
    if (!gif && (width % 2 != 0 || height % 2 != 0))
        return snprintf(why, why_size, "--movie-size: %dx%d: an MP4 (H.264, yuv420p) needs even sides", width, height), -1;
    if (outfile_check(path, why, why_size) != 0) return -1;
    m->fps = fps, m->speed = speed, m->origin = origin;
    m->look = render_default_options();
    m->look.width = width, m->look.height = height;
    m->path = copy_text(path);
    m->temporary = malloc(strlen(path) + 40);
    m->rgb = malloc((size_t)width * (size_t)height * 3);
    if (!m->path || !m->temporary || !m->rgb) {
        movie_discard(m);
        return snprintf(why, why_size, "out of memory for a movie"), -1;
    }
    sprintf(m->temporary, "%s.carom-%ld.part", path, (long)getpid());
    if (start_ffmpeg(m, width, height, gif, why, why_size) != 0) {
        movie_discard(m);
        return -1;
    }
    return 0;
}

double movie_next_time(const movie *m) { return m->origin + (double)m->index * m->speed / (double)m->fps; }

static int write_all(int fd, const unsigned char *data, size_t bytes)
{
    while (bytes > 0) {
        ssize_t n = write(fd, data, bytes);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        data += n, bytes -= (size_t)n;
    }
    return 0;
}

int movie_frame(movie *m, const carom_world *world, int dim, const double box[3], char *why, size_t why_size)
{
    render_scene scene;
    if (scene_from_world(world, dim, box, &m->scene, &scene) != 0)
        return snprintf(why, why_size, "out of memory for a movie frame"), -1;
    render_summary sum;
    int drawn = render_to_rgb(&scene, &m->look, m->rgb, &sum);
    if (drawn == 0 && !m->look.fixed_range) { /* the first frame's range, for all (no flicker); drawn again */
        m->look.fixed_range = 1;
        m->look.range_low = 0.0, m->look.range_high = sum.high > 0.0 ? 1.5 * sum.high : 1.0;
        return movie_frame(m, world, dim, box, why, why_size);
    }
    if (drawn != 0)
        return snprintf(why, why_size, "%s: frame %lld could not be drawn", m->path, (long long)m->index), -1;
    return movie_write_rgb(m, m->rgb, why, why_size);
}

int movie_write_rgb(movie *m, const unsigned char *rgb, char *why, size_t why_size)
{
    size_t bytes = (size_t)m->look.width * (size_t)m->look.height * 3;
    if (write_all(m->pipe, rgb, bytes) != 0)
        return snprintf(why, why_size, "%s: frame %lld could not be written (ffmpeg stopped)", m->path,
                        (long long)m->index), -1;
    m->index++;
    return 0;
}

static int wait_ffmpeg(movie *m)
{
    if (m->pipe >= 0) close(m->pipe), m->pipe = -1;
    if (m->child <= 0) return -1;
    int status = 0;
    while (waitpid(m->child, &status, 0) < 0 && errno == EINTR) {}
    m->child = 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void release(movie *m)
{
    free(m->path), free(m->temporary), free(m->rgb);
    m->path = m->temporary = NULL, m->rgb = NULL;
    scene_buffers_free(&m->scene);
}

int movie_close(movie *m, char *why, size_t why_size)
{
    int ok = wait_ffmpeg(m) == 0 && m->index > 0;
    if (ok && rename(m->temporary, m->path) != 0) {
        snprintf(why, why_size, "%s: cannot rename the finished movie into place (%s)", m->path, strerror(errno));
        ok = 0;
    } else if (!ok) {
        snprintf(why, why_size, "%s: ffmpeg failed to encode the movie (its message is above)", m->path);
    }
    if (!ok) remove(m->temporary);
    release(m);
    return ok ? 0 : -1;
}

void movie_discard(movie *m)
{
    if (m->child > 0) kill(m->child, SIGTERM);
    wait_ffmpeg(m);
    if (m->temporary) remove(m->temporary);
    release(m);
}
