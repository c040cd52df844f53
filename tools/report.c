/* report.c — statistics as JSON (numbers with 17 significant digits, so they
 * read back exactly), and a one-line progress bar redrawn on standard error. */
#define _POSIX_C_SOURCE 200809L
#include "report.h"
#include "json_text.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

double report_wall_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* JSON has no infinities or NaN: those are written as null. */
static void json_number(FILE *out, const char *key, double value, const char *after)
{
    if (isfinite(value)) fprintf(out, "  \"%s\": %.17g%s\n", key, value, after);
    else fprintf(out, "  \"%s\": null%s\n", key, after);
}

static void json_text(FILE *out, const char *key, const char *value)
{
    fprintf(out, "  \"%s\": ", key);
    json_write_text(out, value);
    fprintf(out, ",\n");
}

int report_stats_json(FILE *out, const carom_world *w, const session *s, double wall_seconds,
                      int64_t events_run, const char *status, const char *message)
{
    carom_stats st = carom_world_stats(w);
    fprintf(out, "{\n");
    json_text(out, "status", status);
    json_text(out, "message", message);
    json_text(out, "carom_version", CAROM_VERSION_STRING);
    json_text(out, "scenario", s->scenario_path);
    fprintf(out, "  \"seed\": %llu,\n", (unsigned long long)s->seed);
    fprintf(out, "  \"dim\": %d,\n  \"n\": %lld,\n", st.dim, (long long)st.bodies);
    json_number(out, "volume", st.volume, ",");
    json_number(out, "time", st.time, ",");
    fprintf(out,
            "  \"events\": {\"total\": %lld, \"pair\": %lld, \"wall\": %lld, \"cell\": %lld, \"rest\": %lld, "
            "\"stale\": %lld, \"sensor\": %lld},\n",
            (long long)st.events, (long long)st.pair_events, (long long)st.wall_events, (long long)st.cell_events,
            (long long)st.rest_events, (long long)st.stale_events, (long long)st.sensor_events);
    json_number(out, "kinetic_energy_initial", s->kinetic_energy_initial, ",");
    json_number(out, "kinetic_energy", st.kinetic_energy, ",");
    json_number(out, "potential_energy_initial", s->potential_energy_initial, ",");
    json_number(out, "potential_energy", st.potential_energy, ",");
    json_number(out, "rotational_energy_initial", s->rotational_energy_initial, ",");
    json_number(out, "rotational_energy", st.rotational_energy, ",");
    json_number(out, "control_work", st.control_work, ",");
    json_number(out, "kinematic_work", st.kinematic_work, ",");
    json_number(out, "temperature", st.temperature, ",");
    json_number(out, "mean_temperature", st.mean_temperature, ",");
    json_number(out, "rotational_temperature", st.rotational_temperature, ",");
    fprintf(out, "  \"momentum\": [%.17g, %.17g, %.17g],\n", st.momentum.x, st.momentum.y, st.momentum.z);
    fprintf(out, "  \"angular_momentum\": [%.17g, %.17g, %.17g],\n", st.angular_momentum.x, st.angular_momentum.y,
            st.angular_momentum.z);
    json_number(out, "pressure", st.pressure, ",");
    json_number(out, "compressibility", st.compressibility, ",");
    json_number(out, "wall_pressure", st.wall_pressure, ",");
    json_number(out, "collision_rate", st.collision_rate, ",");
    json_number(out, "measured_over", st.window, ",");
    json_number(out, "wall_seconds", wall_seconds, ",");
    json_number(out, "events_per_second", wall_seconds > 0 ? events_run / wall_seconds : 0.0, "");
    fprintf(out, "}\n");
    return ferror(out) ? -1 : 0;
}

void progress_start(progress *p, int quiet, const carom_world *w)
{
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->started = p->drawn = report_wall_seconds();
    p->start_time = carom_world_time(w);
    p->start_events = carom_world_stats(w).events;
}

static void format_duration(char *text, size_t size, double seconds)
{
    if (!isfinite(seconds) || seconds < 0) snprintf(text, size, "--:--");
    else if (seconds < 3600) snprintf(text, size, "%02d:%02d", (int)seconds / 60, (int)seconds % 60);
    else snprintf(text, size, "%dh%02d", (int)(seconds / 3600), (int)seconds / 60 % 60);
}

static void draw(progress *p, const carom_world *w, const session *s, double now, int completed)
{
    carom_stats st = carom_world_stats(w);
    double elapsed = now - p->started, done = 0.0;
    if (isfinite(s->until) && s->until > p->start_time)
        done = (st.time - p->start_time) / (s->until - p->start_time);
    if (s->events > 0) {
        double by_events = (double)(st.events - p->start_events) / (double)(s->events - p->start_events);
        if (by_events > done) done = by_events;
    }
    if (completed || done > 1) done = 1;
    char left[16];
    format_duration(left, sizeof left, done > 0 ? elapsed * (1 - done) / done : NAN);
    int width = 24, filled = (int)(done * width + 0.5);
    fprintf(stderr, "\r[");
    for (int k = 0; k < width; k++) fputc(k < filled ? '#' : '.', stderr);
    fprintf(stderr, "] t = %.4g  events %.4g  %.3g events/s  %s left ", st.time, (double)st.events,
            elapsed > 0 ? (st.events - p->start_events) / elapsed : 0.0, left);
    fflush(stderr);
}

void progress_update(progress *p, const carom_world *w, const session *s)
{
    double now = report_wall_seconds();
    if (!p->enabled || now - p->drawn < 0.25) return;
    p->drawn = now;
    draw(p, w, s, now, 0);
}

void progress_finish(progress *p, const carom_world *w, const session *s, int completed)
{
    if (!p->enabled) return;
    draw(p, w, s, report_wall_seconds(), completed);
    fprintf(stderr, "\n");
}
