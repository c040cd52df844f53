/* series.c — the statistics of a run over time as CSV (issue 15).
 *
 * Each row gives the state now (energies, temperature, cumulative collision
 * counts) and averages over the interval since the previous row. carom's
 * window averages are linear in the window's sums: P W = rho int T dt +
 * sum(virial) / (d V), collision_rate W = 2 pairs / N, mean_temperature W =
 * int T dt, so the interval's averages are (a2 W2 - a1 W1) / (W2 - W1)
 * exactly, without resetting the run's own statistics. Where the window was
 * reset between two rows (the scenario's equilibrate time), the interval
 * is the part since the reset. The first row's interval has no length, so
 * its three averages are left empty (a missing value in CSV), not NaN. */
#include "series.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char header[] = "time,kinetic_energy,potential_energy,rotational_energy,total_energy,temperature,"
                             "mean_temperature,pressure,collision_rate,pair_events,wall_events\n";

double series_next_time(const series *s) { return s->origin + (double)s->index * s->every; }

/* The interval average of a window quantity: (now W2 - then W1) / (W2 - W1). */
static double interval(double now, double w2, double then, double w1)
{
    if (w2 < w1) return now;                  /* the window was reset: its part since then */
    if (!(w2 > w1)) return NAN;               /* no time has passed (the first row) */
    return (now * w2 - then * w1) / (w2 - w1);
}

/* ",value", or "," alone for an average over no time. */
static void write_average(FILE *out, double value)
{
    if (isnan(value)) fputc(',', out);
    else fprintf(out, ",%.17g", value);
}

static void write_row(series *s, const carom_stats *now, int first)
{
    const carom_stats *was = &s->last;
    double w1 = first ? now->window : was->window, w2 = now->window;
    FILE *out = s->out.stream;
    fprintf(out, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", now->time, now->kinetic_energy, now->potential_energy,
            now->rotational_energy, now->kinetic_energy + now->potential_energy + now->rotational_energy,
            now->temperature);
    write_average(out, interval(now->mean_temperature, w2, was->mean_temperature, w1));
    write_average(out, interval(now->pressure, w2, was->pressure, w1));
    write_average(out, interval(now->collision_rate, w2, was->collision_rate, w1));
    fprintf(out, ",%lld,%lld\n", (long long)now->pair_events, (long long)now->wall_events);
    s->last = *now;
    s->rows++;
}

int series_open(series *s, const char *path, double every, const carom_world *world, char *why, size_t why_size)
{
    memset(s, 0, sizeof *s);
    if (outfile_open(&s->out, path, why, why_size) != 0) return -1;
    s->every = every;
    s->origin = carom_world_time(world);
    fputs(header, s->out.stream);
    carom_stats now = carom_world_stats(world);
    write_row(s, &now, 1);
    s->index = 1;
    return outfile_status(&s->out, why, why_size);
}

int series_row(series *s, const carom_world *world, char *why, size_t why_size)
{
    carom_stats now = carom_world_stats(world);
    write_row(s, &now, 0);
    while (series_next_time(s) <= now.time) s->index++;
    return outfile_status(&s->out, why, why_size);
}

int series_close(series *s, char *why, size_t why_size) { return outfile_commit(&s->out, why, why_size); }

void series_discard(series *s) { outfile_discard(&s->out); }
