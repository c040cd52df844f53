/* analysis_report.c — the CSV tables and the JSON summary of an analysis.
 * Numbers are written with 17 significant digits, so they read back as the
 * doubles computed; NaN (nothing measured) is written as an empty CSV field
 * and as null in JSON. */
#include "analysis_report.h"
#include "json_text.h"

#include "place.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { FILE_RDF, FILE_SK, FILE_MSD, FILE_FREE_TIME, FILE_FREE_PATH, FILE_SUMMARY };
enum { CONTACT_BINS = 6 };

static void number(FILE *out, double value, const char *after)
{
    if (isfinite(value)) fprintf(out, "%.17g%s", value, after);
    else fputs(after, out);
}

static void json_number(FILE *out, double value)
{
    if (isfinite(value)) fprintf(out, "%.17g", value);
    else fputs("null", out);
}

/* ---- fits ------------------------------------------------------------------------ */

/* The value at u = 0 of the least-squares quadratic through (u_k, y_k). */
static double quadratic_at_zero(const double *u, const double *y, int n)
{
    double m[3][4] = {{0}};
    for (int k = 0; k < n; k++) {
        double p[3] = {1.0, u[k], u[k] * u[k]};
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) m[i][j] += p[i] * p[j];
            m[i][3] += p[i] * y[k];
        }
    }
    for (int c = 0; c < 3; c++) /* Gaussian elimination; the matrix is positive definite for n >= 3 distinct u */
        for (int r = c + 1; r < 3; r++) {
            double f = m[r][c] / m[c][c];
            for (int j = c; j < 4; j++) m[r][j] -= f * m[c][j];
        }
    double c2 = m[2][3] / m[2][2], c1 = (m[1][3] - m[1][2] * c2) / m[1][1];
    return (m[0][3] - m[0][1] * c1 - m[0][2] * c2) / m[0][0];
}

double analysis_contact_from_rdf(const analysis *an, int p)
{
    if (!an->has_structure || !an->structure.rdf_counts) return NAN;
    int a, b;
    structure_pair_species(an->species_count, p, &a, &b);
    double contact = an->species_radius[a] + an->species_radius[b];
    const structure *s = &an->structure;
    int first = (int)ceil(contact / s->def.rdf_max * s->def.rdf_bins);
    if (!isfinite(contact) || first + CONTACT_BINS > s->def.rdf_bins) return NAN;
    double u[CONTACT_BINS], y[CONTACT_BINS];
    for (int k = 0; k < CONTACT_BINS; k++) {
        double low = structure_bin_low(s, first + k), high = structure_bin_low(s, first + k + 1);
        u[k] = 0.5 * (low + high) - contact;
        y[k] = structure_rdf(s, p, first + k);
    }
    return quadratic_at_zero(u, y, CONTACT_BINS);
}

double analysis_diffusion(const analysis *an, int s)
{
    if (!an->has_transport) return NAN;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0, lags = an->transport.def.lags;
    for (int k = (lags + 1) / 2; k <= lags; k++) {
        double m = transport_msd(&an->transport, k, s), t = k * an->every;
        if (!isfinite(m)) continue;
        sx += t, sy += m, sxx += t * t, sxy += t * m;
        n++;
    }
    if (n < 2) return NAN;
    return (n * sxy - sx * sy) / (n * sxx - sx * sx) / (2.0 * an->dim);
}

/* ---- tables --------------------------------------------------------------------- */

static void write_rdf(const analysis *an, FILE *out)
{
    const structure *s = &an->structure;
    int pairs = structure_pair_count(an->species_count);
    fputs("r_low,r_high", out);
    for (int p = 0; p < pairs; p++) {
        int a, b;
        structure_pair_species(an->species_count, p, &a, &b);
        fprintf(out, ",g_%s_%s", an->species_names[a], an->species_names[b]);
    }
    fputc('\n', out);
    for (int k = 0; k < s->def.rdf_bins; k++) {
        fprintf(out, "%.17g,%.17g", structure_bin_low(s, k), structure_bin_low(s, k + 1));
        for (int p = 0; p < pairs; p++) {
            fputc(',', out);
            number(out, structure_rdf(s, p, k), "");
        }
        fputc('\n', out);
    }
}

static void write_sk(const analysis *an, FILE *out)
{
    const structure *s = &an->structure;
    fputs("k,S,wavevectors\n", out);
    for (int b = 0; b < s->k_bins; b++) {
        if (s->k_count[b] == 0) continue;
        fprintf(out, "%.17g,%.17g,%lld\n", s->k_sum[b] / (double)s->k_count[b],
                s->sk_sum[b] / (double)s->k_count[b], (long long)(s->k_count[b] / (s->samples ? s->samples : 1)));
    }
}

static void write_msd(const analysis *an, FILE *out)
{
    const transport *t = &an->transport;
    int columns = an->species_count > 1 ? an->species_count + 1 : 1;
    fputs("lag_time,origins", out);
    for (int c = 0; c < columns; c++) {
        const char *name = c == columns - 1 ? "" : an->species_names[c];
        fprintf(out, ",msd%s%s,vacf%s%s", *name ? "_" : "", name, *name ? "_" : "", name);
    }
    fputc('\n', out);
    for (int k = 0; k <= t->def.lags; k++) {
        fprintf(out, "%.17g,%lld", k * an->every, (long long)t->origins[k]);
        for (int c = 0; c < columns; c++) {
            int s = c == columns - 1 ? an->species_count : c;
            fputc(',', out);
            number(out, transport_msd(t, k, s), ",");
            number(out, transport_vacf(t, k, s), "");
        }
        fputc('\n', out);
    }
}

static void write_histogram(const flights_histogram *h, int64_t total, const char *unit, FILE *out)
{
    fprintf(out, "%s_low,%s_high,count,density\n", unit, unit);
    for (int k = 0; k < h->bins; k++)
        fprintf(out, "%.17g,%.17g,%lld,%.17g\n", k * h->width, (k + 1) * h->width, (long long)h->counts[k],
                total ? (double)h->counts[k] / ((double)total * h->width) : 0.0);
}

/* ---- the summary ---------------------------------------------------------------- */

/* g(sigma+) from the collision virial, for bodies of one size; NaN otherwise. */
static double contact_from_virial(const analysis *an)
{
    if (an->species_count != 1 || !isfinite(an->species_radius[0]) || an->bodies == 0) return NAN;
    carom_stats st = carom_world_stats(an->world);
    double r = an->species_radius[0];
    double phi = an->bodies * place_ball_volume(an->dim, r) / st.volume;
    return (st.compressibility - 1.0) / ((an->dim == 3 ? 4.0 : 2.0) * phi);
}

static void write_pair_names(const analysis *an, int p, FILE *out)
{
    int a, b;
    structure_pair_species(an->species_count, p, &a, &b);
    fprintf(out, "\"species\": [");
    json_write_text(out, an->species_names[a]);
    fprintf(out, ", ");
    json_write_text(out, an->species_names[b]);
    fprintf(out, "]");
}

static void write_collisions(const analysis *an, double duration, FILE *out)
{
    const flights *f = &an->flights;
    int pairs = structure_pair_count(an->species_count);
    fputs("  \"collisions\": [", out);
    for (int p = 0; p < pairs; p++) {
        int a, b;
        structure_pair_species(an->species_count, p, &a, &b);
        double size_a = (double)an->species_size[a], size_b = (double)an->species_size[b];
        double per = a == b ? 2.0 : 1.0;
        fputs(p ? ",\n    {" : "\n    {", out);
        write_pair_names(an, p, out);
        fprintf(out, ", \"count\": %lld, \"rate_per_body_a\": ", (long long)f->collisions[p]);
        json_number(out, per * (double)f->collisions[p] / (size_a * duration));
        fputs(", \"rate_per_body_b\": ", out);
        json_number(out, per * (double)f->collisions[p] / (size_b * duration));
        fputs(", \"mean_impulse\": ", out);
        json_number(out, f->collisions[p] ? f->impulse[p] / (double)f->collisions[p] : NAN);
        fputc('}', out);
    }
    fputs("\n  ],\n", out);
}

static void write_summary(const analysis *an, FILE *out)
{
    double now = carom_world_time(an->world), duration = now - an->origin;
    int pairs = structure_pair_count(an->species_count);
    fprintf(out, "{\n  \"dim\": %d,\n  \"bodies\": %d,\n  \"start\": %.17g,\n  \"end\": %.17g,\n  \"every\": %.17g,\n",
            an->dim, (int)an->bodies, an->origin, now, an->every);
    fprintf(out, "  \"samples\": %lld,\n  \"species\": [", (long long)an->samples);
    for (int k = 0; k < an->species_count; k++) {
        if (k) fprintf(out, ", ");
        json_write_text(out, an->species_names[k]);
    }
    fputs("],\n  \"contact_value_virial\": ", out);
    json_number(out, contact_from_virial(an));
    fputs(",\n  \"contact_value_rdf\": [", out);
    for (int p = 0; p < pairs; p++) {
        fputs(p ? ",\n    {" : "\n    {", out);
        write_pair_names(an, p, out);
        fputs(", \"value\": ", out);
        json_number(out, analysis_contact_from_rdf(an, p));
        fputc('}', out);
    }
    fputs("\n  ],\n  \"diffusion\": {", out);
    for (int s = 0; s <= an->species_count; s++) {
        fprintf(out, "%s", s ? ", " : "");
        json_write_text(out, s < an->species_count ? an->species_names[s] : "all");
        fprintf(out, ": ");
        json_number(out, analysis_diffusion(an, s));
    }
    fputs("}", out);
    if (an->has_flights) {
        const flights *f = &an->flights;
        fputs(",\n", out);
        write_collisions(an, duration, out);
        fprintf(out, "  \"flights\": %lld,\n  \"mean_free_time\": ", (long long)f->count);
        json_number(out, f->count ? f->time.sum / (double)f->count : NAN);
        fputs(",\n  \"mean_free_path\": ", out);
        json_number(out, f->count ? f->length.sum / (double)f->count : NAN);
        fprintf(out, ",\n  \"flights_beyond_tables\": [%lld, %lld]", (long long)f->time.overflow,
                (long long)f->length.overflow);
    }
    fputs("\n}\n", out);
}

/* ---- the files ------------------------------------------------------------------- */

static void write_file(analysis *an, int f, FILE *out)
{
    switch (f) {
    case FILE_RDF: write_rdf(an, out); break;
    case FILE_SK: write_sk(an, out); break;
    case FILE_MSD: write_msd(an, out); break;
    case FILE_FREE_TIME: write_histogram(&an->flights.time, an->flights.count, "time", out); break;
    case FILE_FREE_PATH: write_histogram(&an->flights.length, an->flights.count, "path", out); break;
    default: write_summary(an, out); break;
    }
}

int analysis_report(analysis *an, char *why, size_t why_size)
{
    if (an->has_flights) flights_finish(&an->flights);
    outfile files[ANALYSIS_FILES];
    int opened = 0, failed = 0;
    for (int f = 0; f < ANALYSIS_FILES && !failed; f++) {
        if (!an->paths[f]) continue;
        if (outfile_open(&files[f], an->paths[f], why, why_size) != 0) {
            failed = 1;
            break;
        }
        opened |= 1 << f;
        write_file(an, f, files[f].stream);
        failed = outfile_status(&files[f], why, why_size) != 0;
    }
    for (int f = 0; f < ANALYSIS_FILES; f++) {
        if (!(opened & (1 << f))) continue;
        if (failed) outfile_discard(&files[f]);
        else if (outfile_commit(&files[f], why, why_size) != 0) failed = 1;
    }
    return failed ? -1 : 0;
}
