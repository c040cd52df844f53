/* bench.c — carom_bench, the benchmark driver: collisions per CPU second of
 * libcarom on hard-sphere (3D) and hard-disk (2D) fluids of 10^3 to 10^6 bodies.
 *
 * Each case starts from a lattice in a periodic box (fcc in 3D, hexagonal in
 * 2D; sigma = m = kT = 1) with Maxwell-Boltzmann velocities (zero momentum,
 * rescaled to kT = 1 exactly), is melted by an unmeasured warm-up of W pair
 * collisions per body and then timed over C more pair collisions per body with
 * clock_gettime(CLOCK_PROCESS_CPUTIME_ID) around carom_world_run only. The
 * figure of merit, pair collisions per CPU second, is the one event-driven MD
 * papers report (e.g. Smallenburg 2022, Eur. Phys. J. E 45, 22); the four
 * anchor rates are the reference figures of the performance issue. Each case
 * runs in a forked child so that its peak memory (ru_maxrss from wait4) is its
 * own; bytes per body subtract the child's own ru_maxrss taken just before
 * the world is created.
 *
 * Usage: carom_bench --help
 */
#define _DEFAULT_SOURCE /* fork, pipe, wait4, mkstemp, fchmod, clock_gettime */

#include <errno.h>
#include <math.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "carom.h"

#define PI 3.14159265358979323846
#define MAX_LIST 16                               /* values in one --n or --density list */
#define MAX_CASES (2 * (MAX_LIST + 1) * MAX_LIST) /* dims x sizes (+ 10^6) x densities */
#define MESSAGE_SIZE 512
#define MAX_BODIES 100000000L
#define FCC_MAX_DENSITY 0.74048 /* pi / (3 sqrt 2): close packing, spheres touch */
#define HEX_MAX_DENSITY 0.90690 /* pi / (2 sqrt 3): close packing, disks touch */

typedef struct options {
    int quick, large, no_fork, help;
    int want_2d, want_3d;
    long n[MAX_LIST];
    int n_count;
    double density[MAX_LIST];
    int density_count;
    double warmup, collisions; /* pair collisions per body; < 0: not given */
    const char *csv;
    uint64_t seed;
    double shell; /* world_def.neighbour_shell: 0 automatic, < 0 cell lists only */
    double rough; /* world_def.tangential_restitution: -1 smooth (the default) */
    double collapse_time; /* world_def.collapse_time: 0 automatic (the default), < 0 off */
    int big_count;        /* --big K:D: K bodies of diameter D among the unit ones */
    double big_diameter;
    double poly;          /* --poly S: diameters uniform in [1 - S, 1 + S]; 0: all 1 */
    double compress_to;   /* --compress PHI[:RATE]: grown to this packing fraction first; 0: not */
    double compress_rate;
    double compress_shell; /* carom_compress_def.neighbour_shell (--compress PHI:RATE:SHELL) */
    const char *start;      /* --start FILE: the world from a snapshot instead of a lattice; NULL: none */
    const char *save_start; /* --save-start FILE: the timed start written as a snapshot; NULL: none */
    const char *lattice_option; /* the first option given that shapes a lattice (refused with --start) */
} options;

typedef struct bench_case {
    int dim;
    long target;    /* the N asked for */
    double density; /* packing fraction (3D) or area fraction (2D) */
    int cells[2];   /* 3D: fcc cells per side; 2D: columns nx and rows ny */
    int32_t n;      /* bodies actually placed */
    double side[3]; /* box (2D: side[2] unused) */
    double spacing; /* nearest-neighbour distance on the lattice */
    int big_count;  /* big spheres (--big), at lattice sites spread evenly; 0: none */
    double big_diameter;
    int32_t sites;  /* lattice sites (n is the bodies placed: sites less those a big sphere covers) */
    double fraction; /* the packing fraction with the big spheres, or of the polydisperse bodies */
    double poly;     /* diameters uniform in [1 - poly, 1 + poly] (--poly); 0: all 1 */
    uint64_t seed;   /* the diameters' draw (--poly), from the velocity seed */
    int from_file;   /* --start: the bodies, box and velocities of a snapshot (fraction: its packing fraction) */
} bench_case;

typedef struct result {
    int ok;
    char message[MESSAGE_SIZE];
    int64_t warmup_pairs; /* pair collisions of the warm-up */
    int64_t pairs;        /* pair collisions of the measured part */
    int64_t events;       /* all events (pair, wall, cell) of the measured part */
    int64_t stale;        /* stale predictions of the measured part */
    double cpu_seconds;   /* inside carom_world_run, measured part only */
    double fraction;      /* the packing fraction measured at (after --compress); 0: the case's */
    double compress_seconds; /* CPU seconds of the compression (--compress) */
    double energy_error;  /* |E_end - E_start| / E_start, E = KE + rotational energy */
    long baseline_kb;     /* ru_maxrss just before the world was created */
    long peak_kb;         /* ru_maxrss at the end of the case */
} result;

/* ---------- options ---------- */

static void usage(FILE *to)
{
    fprintf(to, "usage: carom_bench [--quick] [--large] [--only 3d|2d] [--n N[,N...]]\n"
                "                   [--density X[,X...]] [--collisions C] [--warmup W]\n"
                "                   [--csv FILE] [--seed S] [--shell X] [--rough BETA]\n"
                "                   [--collapse-time T] [--big K:D] [--poly S]\n"
                "                   [--compress PHI[:RATE[:SHELL]]] [--no-fork]\n"
                "                   [--save-start FILE] [--start FILE]\n"
                "\n"
                "Times libcarom on periodic hard-sphere (3D, fcc start) and hard-disk (2D,\n"
                "hexagonal start) fluids, sigma = m = kT = 1, or on a world saved before.\n"
                "  --quick         smoke run: warm-up 1 and 2 measured pair collisions per body\n"
                "  --large         add the N = 10^6 cases to the default 10^3, 10^4, 10^5\n"
                "  --only 3d|2d    one dimension only (default both)\n"
                "  --n LIST        target body counts (default 1000,10000,100000); 3D uses\n"
                "                  4 n^3 with n = round((N/4)^(1/3)), 2D nx * ny with ny even\n"
                "  --density LIST  packing (3D) / area (2D) fractions (default 0.30,0.45 in 3D,\n"
                "                  0.30,0.60 in 2D)\n"
                "  --collisions C  measured pair collisions per body (default 20)\n"
                "  --warmup W      unmeasured warm-up pair collisions per body (default 5)\n"
                "  --csv FILE      also write the table as CSV (default carom_bench.csv)\n"
                "  --seed S        velocity seed (default 42)\n"
                "  --shell X       neighbour-list shell in diameters (world_def.neighbour_shell);\n"
                "                  0 (default) lets the engine choose, -1 forces cell lists\n"
                "  --big K:D       K big spheres (disks in 2D) of diameter D (mass D^dim) at\n"
                "                  lattice sites spread evenly, the unit bodies they would\n"
                "                  overlap removed\n"
                "                  (a size-asymmetric mixture; the table gives the bodies and\n"
                "                  packing fraction that result)\n"
                "  --poly S        polydisperse: diameters uniform in [1 - S, 1 + S] (mass\n"
                "                  d^dim), drawn for each lattice site from the seed; S < 1,\n"
                "                  and 1 + S within the lattice spacing (the table gives the\n"
                "                  packing fraction that results)\n"
                "  --compress PHI[:RATE[:SHELL]]  grow every radius (Lubachevsky-Stillinger,\n"
                "                  carom_compress, at RATE, default 0.01, with neighbour lists of\n"
                "                  shell SHELL mean diameters: 0 automatic, < 0 cells) from the\n"
                "                  lattice to packing fraction PHI before the warm-up; a case that jams\n"
                "                  first fails, naming where. Peak memory is reset after it\n"
                "                  (/proc/self/clear_refs), or not given\n"
                "  --rough BETA    rough spheres/disks: tangential restitution BETA in [-1, 1]\n"
                "                  (world_def.tangential_restitution; default -1, smooth), e = 1\n"
                "  --collapse-time T  world_def.collapse_time: 0 (default) automatic, < 0 the TC\n"
                "                  model off (a dissipative BETA turns it on even at e = 1)\n"
                "  --no-fork       run the cases in this process (for valgrind; peak memory is\n"
                "                  then the process's high-water mark)\n"
                "  --save-start FILE  write the world the warm-up starts from (after --compress)\n"
                "                  to FILE as a carom snapshot (one case only; written to a\n"
                "                  temporary name and renamed when complete)\n"
                "  --start FILE    time the world of a snapshot (written by --save-start or by\n"
                "                  carom_world_snapshot; a `carom run` checkpoint is not one)\n"
                "                  instead of a lattice: its bodies, box, velocities and settings; the\n"
                "                  lattice options (--n, --density, --only, --poly, --big,\n"
                "                  --compress, --shell, --rough, --collapse-time, --large) are refused\n");
}

static int bad_option(const char *name, const char *expected, const char *got)
{
    fprintf(stderr, "carom_bench: %s: expected %s, got '%s' (see --help)\n", name, expected, got);
    return 2;
}

/* Parses a whole string as a double in [lo, hi]. */
static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !(v >= lo && v <= hi)) return -1;
    *out = v;
    return 0;
}

/* Parses a comma-separated list of numbers in [lo, hi], each a whole number if integral. */
static int parse_list(const char *s, double lo, double hi, int integral, double *out, int *count)
{
    char buf[512];
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    *count = 0;
    for (char *item = buf, *next; item; item = next) {
        next = strchr(item, ',');
        if (next) *next++ = '\0';
        if (*count == MAX_LIST || parse_double(item, lo, hi, &out[*count]) != 0) return -1;
        if (integral && out[*count] != floor(out[*count])) return -1;
        ++*count;
    }
    return 0;
}

static int parse_seed(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (*s == '-' || *s == '\0') return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end != '\0') return -1;
    *out = (uint64_t)v;
    return 0;
}

static options default_options(void)
{
    options o;
    memset(&o, 0, sizeof o);
    o.want_2d = o.want_3d = 1;
    o.warmup = o.collisions = -1.0;
    o.csv = "carom_bench.csv";
    o.seed = 42;
    o.rough = -1.0;
    return o;
}

/* The options that shape a lattice case, which a snapshot (--start) fixes
 * instead: name's static copy if it is one, else NULL. */
static const char *lattice_option_named(const char *name)
{
    static const char *const names[] = {"--only", "--n",    "--density",       "--shell",    "--rough",
                                        "--big",  "--poly", "--collapse-time", "--compress", "--large"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(name, names[k]) == 0) return names[k];
    return NULL;
}

/* Applies one option that takes a value; returns 0, or 2 after a message. */
static int apply_value(options *o, const char *name, const char *value)
{
    double list[MAX_LIST];
    int count = 0;
    if (!value) {
        fprintf(stderr, "carom_bench: %s: expected a value after it (see --help)\n", name);
        return 2;
    }
    if (strcmp(name, "--only") == 0) {
        if (strcmp(value, "3d") != 0 && strcmp(value, "2d") != 0)
            return bad_option(name, "3d or 2d", value);
        o->want_3d = value[0] == '3';
        o->want_2d = value[0] == '2';
    } else if (strcmp(name, "--n") == 0) {
        if (parse_list(value, 1, (double)MAX_BODIES, 1, list, &count) != 0)
            return bad_option(name,
                              "a comma-separated list of at most 16 whole numbers "
                              "between 1 and 100000000",
                              value);
        for (int k = 0; k < count; k++) o->n[k] = (long)list[k];
        o->n_count = count;
    } else if (strcmp(name, "--density") == 0) {
        if (parse_list(value, 1e-6, HEX_MAX_DENSITY, 0, o->density, &o->density_count) != 0)
            return bad_option(name, "a comma-separated list of at most 16 fractions in (0, 0.9069)",
                              value);
    } else if (strcmp(name, "--collisions") == 0) {
        if (parse_double(value, 1e-6, 1e6, &o->collisions) != 0)
            return bad_option(name, "a number of pair collisions per body in (0, 1e6]", value);
    } else if (strcmp(name, "--warmup") == 0) {
        if (parse_double(value, 0.0, 1e6, &o->warmup) != 0)
            return bad_option(name, "a number of pair collisions per body in [0, 1e6]", value);
    } else if (strcmp(name, "--csv") == 0) {
        if (*value == '\0') return bad_option(name, "a file name", value);
        o->csv = value;
    } else if (strcmp(name, "--shell") == 0) {
        if (parse_double(value, -1.0, 10.0, &o->shell) != 0)
            return bad_option(name, "a shell in diameters in [-1, 10] (0: automatic, < 0: cell lists)",
                              value);
    } else if (strcmp(name, "--rough") == 0) {
        if (parse_double(value, -1.0, 1.0, &o->rough) != 0)
            return bad_option(
                name, "a tangential restitution in [-1, 1] (-1 smooth, +1 perfectly rough)", value);
    } else if (strcmp(name, "--collapse-time") == 0) {
        if (parse_double(value, -1.0, 1e6, &o->collapse_time) != 0)
            return bad_option(name, "a time in [-1, 1e6] (0: automatic, < 0: the TC model off)",
                              value);
    } else if (strcmp(name, "--big") == 0) {
        char *end = NULL;
        long k = strtol(value, &end, 10);
        double d = end && *end == ':' ? strtod(end + 1, &end) : NAN;
        if (k < 1 || k > 1000 || !(d >= 1.0 && d <= 100.0) || *end != '\0')
            return bad_option(name, "K:D, 1 to 1000 spheres of diameter 1 to 100", value);
        o->big_count = (int)k, o->big_diameter = d;
    } else if (strcmp(name, "--poly") == 0) {
        if (parse_double(value, 0.0, 0.99, &o->poly) != 0)
            return bad_option(name, "a spread S in [0, 0.99]: diameters in [1 - S, 1 + S]", value);
    } else if (strcmp(name, "--compress") == 0) {
        char *end = NULL;
        double phi = strtod(value, &end), rate = 0.01, shell = 0.0;
        if (end && *end == ':') rate = strtod(end + 1, &end);
        if (end && *end == ':') shell = strtod(end + 1, &end);
        if (end == value || *end != '\0' || !(phi > 0.0 && phi < 1.0) || !(rate > 0.0 && rate <= 10.0) ||
            !(shell >= -1.0 && shell <= 2.0) || (shell > 0.0 && shell < 0.01))
            return bad_option(name, "PHI[:RATE[:SHELL]], a packing fraction in (0, 1), a growth rate in (0, 10] "
                              "and a shell of 0.01 to 2 (0: automatic, < 0: cells)", value);
        o->compress_to = phi, o->compress_rate = rate, o->compress_shell = shell;
    } else if (strcmp(name, "--seed") == 0) {
        if (parse_seed(value, &o->seed) != 0)
            return bad_option(name, "an unsigned 64-bit integer", value);
    } else if (strcmp(name, "--start") == 0 || strcmp(name, "--save-start") == 0) {
        if (*value == '\0') return bad_option(name, "a file name", value);
        if (strcmp(name, "--start") == 0) o->start = value;
        else o->save_start = value;
    }
    if (!o->lattice_option) o->lattice_option = lattice_option_named(name);
    return 0;
}

static int is_value_option(const char *name)
{
    static const char *const names[] = {
        "--only", "--n",    "--density", "--collisions", "--warmup",
        "--csv",  "--seed", "--shell",   "--rough",      "--collapse-time", "--big", "--poly",
        "--compress", "--start", "--save-start"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(name, names[k]) == 0) return 1;
    return 0;
}

/* Applies a flag; returns 1 if name is not a flag. */
static int apply_flag(options *o, const char *name)
{
    if (strcmp(name, "--quick") == 0)
        o->quick = 1;
    else if (strcmp(name, "--large") == 0)
        o->large = 1, o->lattice_option = o->lattice_option ? o->lattice_option : lattice_option_named(name);
    else if (strcmp(name, "--no-fork") == 0)
        o->no_fork = 1;
    else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        o->help = 1;
    else
        return 1;
    return 0;
}

/* Fills the per-body counts not given: --quick, else the defaults. */
static void settle_counts(options *o)
{
    if (o->warmup < 0) o->warmup = o->quick ? 1.0 : 5.0;
    if (o->collisions < 0) o->collisions = o->quick ? 2.0 : 20.0;
}

/* Accepts "--name value" and "--name=value". Returns 0, or 2 after a message. */
static int parse_options(int argc, char **argv, options *o)
{
    *o = default_options();
    for (int k = 1; k < argc; k++) {
        char name[64];
        const char *eq = strchr(argv[k], '=');
        size_t len = eq ? (size_t)(eq - argv[k]) : strlen(argv[k]);
        if (len >= sizeof name) return bad_option("option", "a known option", argv[k]);
        memcpy(name, argv[k], len);
        name[len] = '\0';
        if (!eq && apply_flag(o, name) == 0) continue;
        if (eq && apply_flag(o, name) == 0) return bad_option(name, "no value", eq + 1);
        if (!is_value_option(name)) {
            fprintf(stderr, "carom_bench: unknown option '%s' (see --help)\n", argv[k]);
            return 2;
        }
        const char *value = eq ? eq + 1 : (k + 1 < argc ? argv[++k] : NULL);
        int st = apply_value(o, name, value);
        if (st != 0) return st;
    }
    if (o->start && o->lattice_option) {
        fprintf(stderr, "carom_bench: %s: a lattice option, expected none with --start (the snapshot fixes the "
                "bodies, the box and the world's settings)\n", o->lattice_option);
        return 2;
    }
    settle_counts(o);
    return 0;
}

/* ---------- files ---------- */

/* An output never replaces what is not a regular file (a directory, a
 * device, a link): write_atomically's refusal, beside errno values. */
enum { NOT_REGULAR = -1 };

static const char *file_error(int err)
{
    return err == NOT_REGULAR ? "it exists and is not a regular file (refused: only a regular file is replaced)"
                              : strerror(err);
}

typedef int (*file_filler)(FILE *f, const void *context);

/* Writes file.tmp-XXXXXX with fill and renames it to file once complete, so
 * that file is never left half written. Returns 0, NOT_REGULAR, or an errno
 * value (the temporary file removed). */
static int write_atomically(const char *file, file_filler fill, const void *context)
{
    struct stat there;
    if (lstat(file, &there) == 0 && !S_ISREG(there.st_mode)) return NOT_REGULAR;
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", file) >= (int)sizeof tmp) return ENAMETOOLONG;
    mode_t mask = umask(0);
    umask(mask);
    int fd = mkstemp(tmp);
    if (fd < 0) return errno;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int err = errno;
        close(fd), unlink(tmp);
        return err;
    }
    errno = 0;
    int st = fchmod(fd, 0666 & ~mask) == 0 ? fill(f, context) : -1;
    int err = errno;
    if (fclose(f) != 0 && st == 0) st = -1, err = errno;
    if (st == 0 && rename(tmp, file) != 0) st = -1, err = errno;
    if (st == 0) return 0;
    unlink(tmp);
    return err ? err : EIO;
}

typedef struct bytes {
    const void *data;
    size_t size;
} bytes;

static int fill_bytes(FILE *f, const void *context)
{
    const bytes *b = context;
    return fwrite(b->data, 1, b->size, f) == b->size ? 0 : -1;
}

/* Writes world w's snapshot to path (--save-start); 0, or -1 with why. */
static int save_snapshot(const carom_world *w, const char *path, char *why, size_t size)
{
    size_t n = carom_world_snapshot_size(w);
    void *buffer = n > 0 ? malloc(n) : NULL;
    if (!buffer) return snprintf(why, size, "--save-start %s: out of memory for a snapshot of %zu bytes", path, n), -1;
    int err = carom_world_snapshot(w, buffer, n) == CAROM_OK ? write_atomically(path, fill_bytes, &(bytes){buffer, n})
                                                            : EIO;
    free(buffer);
    if (err != 0) return snprintf(why, size, "--save-start %s: cannot write it: %s", path, file_error(err)), -1;
    return 0;
}

/* Reads the whole of regular file path into a new buffer; 0, or -1 with why. */
static int read_whole_file(const char *path, char **data, size_t *n, char *why, size_t size)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f) return snprintf(why, size, "--start %s: cannot open it: %s", path, strerror(errno)), -1;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        fclose(f);
        return snprintf(why, size, "--start %s: expected a non-empty regular file (a snapshot)", path), -1;
    }
    *n = (size_t)st.st_size;
    *data = malloc(*n);
    size_t got = *data ? fread(*data, 1, *n, f) : 0;
    int failed = ferror(f) || got != *n;
    fclose(f);
    if (!failed) return 0;
    free(*data);
    *data = NULL;
    return snprintf(why, size, "--start %s: read %zu of its %zu bytes", path, got, *n), -1;
}

/* The world of snapshot path (--start), or NULL with why. */
static carom_world *restore_start(const char *path, char *why, size_t size)
{
    char *data = NULL, reason[MESSAGE_SIZE - 100];
    size_t n = 0;
    carom_world *w = NULL;
    if (read_whole_file(path, &data, &n, why, size) != 0) return NULL;
    if (carom_world_restore(data, n, NULL, NULL, &w, reason, sizeof reason) != CAROM_OK)
        snprintf(why, size, "--start %s: not a snapshot carom can restore: %s", path, reason);
    free(data);
    return w;
}

/* The case of snapshot o->start: its dimension, bodies, box and packing
 * fraction; 0, or -1 with why. */
static int case_from_start(const options *o, bench_case *c, char *why, size_t size)
{
    carom_world *w = restore_start(o->start, why, size);
    if (!w) return -1;
    carom_world_def def = carom_world_definition(w);
    memset(c, 0, sizeof *c);
    c->from_file = 1;
    c->dim = def.dim;
    c->n = carom_world_body_count(w);
    c->target = c->n;
    c->side[0] = def.box.x, c->side[1] = def.box.y, c->side[2] = def.dim == 3 ? def.box.z : 0.0;
    double occupied = 0.0, volume = def.box.x * def.box.y * (def.dim == 3 ? def.box.z : 1.0);
    for (int32_t id = 0; id < c->n; id++) {
        carom_body_state b;
        if (carom_world_get_body(w, id, &b) != CAROM_OK) continue;
        occupied += def.dim == 3 ? 4.0 / 3.0 * PI * b.radius * b.radius * b.radius : PI * b.radius * b.radius;
    }
    c->fraction = c->density = occupied / volume;
    carom_world_destroy(w);
#if defined(__GLIBC__)
    malloc_trim(0); /* the cases' children start from this process's memory */
#endif
    if (c->n > 0) return 0;
    return snprintf(why, size, "--start %s: the world has no bodies (expected at least one)", o->start), -1;
}

/* ---------- cases and lattices ---------- */

/* fcc: 4 n^3 spheres, n = round((N/4)^(1/3)), in a cube at packing fraction eta. */
static void setup_3d(bench_case *c)
{
    int cells = (int)lround(cbrt((double)c->target / 4.0));
    if (cells < 1) cells = 1;
    c->cells[0] = c->cells[1] = cells;
    c->n = 4 * cells * cells * cells;
    double side = cbrt(c->n * (PI / 6.0) / c->density);
    c->side[0] = c->side[1] = c->side[2] = side;
    c->spacing = side / cells / sqrt(2.0);
}

/* Hexagonal: nx columns a apart, ny rows (even, so it wraps) sqrt(3)/2 a apart,
 * odd rows shifted by a/2; ny ~ sqrt(2N/sqrt 3) makes the box near square. */
static void setup_2d(bench_case *c)
{
    int ny = 2 * (int)lround(sqrt(2.0 * (double)c->target / sqrt(3.0)) / 2.0);
    if (ny < 2) ny = 2;
    int nx = (int)lround((double)c->target / ny);
    if (nx < 1) nx = 1;
    c->cells[0] = nx;
    c->cells[1] = ny;
    c->n = nx * ny;
    double a = sqrt(PI / (2.0 * sqrt(3.0) * c->density)); /* n pi/4 = phi nx a ny a sqrt3/2 */
    c->side[0] = nx * a;
    c->side[1] = ny * a * sqrt(3.0) / 2.0;
    c->side[2] = 0.0;
    c->spacing = a;
}

/* Sets up a case; returns 0, or -1 with why when its lattice would overlap. */
static int setup_case(bench_case *c, int dim, long target, double density, char *why, size_t size)
{
    memset(c, 0, sizeof *c);
    c->dim = dim;
    c->target = target;
    c->density = density;
    if (dim == 3)
        setup_3d(c);
    else
        setup_2d(c);
    double max = dim == 3 ? FCC_MAX_DENSITY : HEX_MAX_DENSITY;
    if (!(c->spacing >= 1.0) || density >= max) {
        snprintf(why, size,
                 "%dD N=%ld: density %g gives a lattice spacing %.6f below the diameter 1 "
                 "(expected a density below %.4f for the %s start)",
                 dim, target, density, c->spacing, max, dim == 3 ? "fcc" : "hexagonal");
        return -1;
    }
    return 0;
}

/* ---------- a size-asymmetric mixture (--big K:D) ---------- */

/* The volume (area in 2D) of a body of diameter d, and of the case's box. */
static double body_measure(int dim, double d) { return dim == 3 ? PI / 6.0 * d * d * d : PI / 4.0 * d * d; }
static double box_measure(const bench_case *c) { return c->side[0] * c->side[1] * (c->dim == 3 ? c->side[2] : 1.0); }

static carom_vec site_position(const bench_case *c, int32_t k);

/* The lattice site big sphere j sits on: spread evenly over the sites. */
static int32_t big_site(const bench_case *c, int j) { return (int32_t)((j + 0.5) * c->sites / c->big_count); }

/* The distance between two points of the periodic box (nearest images). */
static double periodic_distance(const bench_case *c, carom_vec a, carom_vec b)
{
    double d[3] = {a.x - b.x, a.y - b.y, a.z - b.z}, sum = 0.0;
    for (int k = 0; k < c->dim; k++) {
        d[k] -= c->side[k] * round(d[k] / c->side[k]);
        sum += d[k] * d[k];
    }
    return sqrt(sum);
}

/* Site k's role: the index of the big sphere on it, -1 for a unit sphere,
 * -2 for a site a big sphere covers (left empty). */
static int site_role(const bench_case *c, int32_t k)
{
    carom_vec x = site_position(c, k);
    int covered = 0;
    for (int j = 0; j < c->big_count; j++) {
        int32_t s = big_site(c, j);
        if (s == k) return j;
        covered |= periodic_distance(c, x, site_position(c, s)) < 0.5 * (c->big_diameter + 1.0);
    }
    return covered ? -2 : -1;
}

/* Puts the big spheres on the case: counts the bodies left, the packing
 * fraction; -1 with why if two big spheres would overlap. */
static int add_big(bench_case *c, const options *o, char *why, size_t size)
{
    c->big_count = o->big_count, c->big_diameter = o->big_diameter, c->sites = c->n;
    for (int i = 0; i < c->big_count; i++)
        for (int j = 0; j < i; j++)
            if (big_site(c, i) == big_site(c, j) ||
                periodic_distance(c, site_position(c, big_site(c, i)), site_position(c, big_site(c, j))) <
                    c->big_diameter)
                return snprintf(why, size, "--big %d:%g: the big %s overlap in a box of %.3f (expected fewer "
                                "or a larger N)", c->big_count, c->big_diameter, c->dim == 3 ? "spheres" : "disks",
                                c->side[0]), -1;
    int32_t small = 0;
    for (int32_t k = 0; k < c->sites; k++) small += site_role(c, k) == -1;
    c->n = small + c->big_count;
    c->fraction = (small * body_measure(c->dim, 1.0) + c->big_count * body_measure(c->dim, c->big_diameter)) /
                  box_measure(c);
    return 0;
}

/* ---------- a polydisperse fluid (--poly S) ---------- */

/* The diameter of the body on lattice site k: uniform in [1 - S, 1 + S],
 * from its own stream (the velocities stay those of the monodisperse case). */
static double site_diameter(const bench_case *c, int32_t k)
{
    if (c->poly == 0.0) return 1.0;
    carom_rng rng = carom_rng_seed(c->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(k + 1)));
    return 1.0 + c->poly * (2.0 * carom_rng_uniform(&rng) - 1.0);
}

/* Sets the spread and the packing fraction; -1 with why if the largest
 * bodies could overlap on the lattice. */
static int add_poly(bench_case *c, const options *o, char *why, size_t size)
{
    c->poly = o->poly, c->seed = o->seed;
    if (c->big_count > 0) return snprintf(why, size, "--poly with --big: expected one of them"), -1;
    if (1.0 + c->poly > c->spacing)
        return snprintf(why, size, "--poly %g: diameters up to %g overlap on a lattice of spacing %.4f (expected S "
                        "at most %.4f, or a lower density)", c->poly, 1.0 + c->poly, c->spacing, c->spacing - 1.0), -1;
    double occupied = 0.0;
    for (int32_t k = 0; k < c->n; k++) occupied += body_measure(c->dim, site_diameter(c, k));
    c->fraction = occupied / box_measure(c);
    return 0;
}

/* The packing fraction a case ran at: the compressed one, or the lattice's. */
static double shown_density(const bench_case *c, const result *r)
{
    if (r && r->fraction > 0.0) return r->fraction;
    return c->big_count > 0 || c->poly > 0.0 || c->from_file ? c->fraction : c->density;
}

static int default_densities(int dim, double *out)
{
    out[0] = 0.30;
    out[1] = dim == 3 ? 0.45 : 0.60;
    return 2;
}

static int size_list(const options *o, long *out)
{
    static const long defaults[] = {1000, 10000, 100000};
    int count = 0;
    if (o->n_count > 0)
        for (int k = 0; k < o->n_count; k++) out[count++] = o->n[k];
    else
        for (int k = 0; k < 3; k++) out[count++] = defaults[k];
    int has_large = 0;
    for (int k = 0; k < count; k++) has_large |= out[k] == 1000000;
    if (o->large && !has_large) out[count++] = 1000000;
    return count;
}

/* All cases asked for, 3D first; returns the count, or -1 after a message. */
static int build_cases(const options *o, bench_case *cases)
{
    if (o->start) {
        char why[MESSAGE_SIZE];
        if (case_from_start(o, &cases[0], why, sizeof why) == 0) return 1;
        fprintf(stderr, "carom_bench: %s\n", why);
        return -1;
    }
    long sizes[MAX_LIST + 1];
    int n_sizes = size_list(o, sizes), count = 0;
    for (int dim = 3; dim >= 2; dim--) {
        if ((dim == 3 && !o->want_3d) || (dim == 2 && !o->want_2d)) continue;
        double dens[MAX_LIST];
        int n_dens = o->density_count;
        if (n_dens > 0)
            memcpy(dens, o->density, sizeof dens);
        else
            n_dens = default_densities(dim, dens);
        for (int i = 0; i < n_sizes; i++)
            for (int j = 0; j < n_dens; j++) {
                char why[MESSAGE_SIZE];
                if (setup_case(&cases[count], dim, sizes[i], dens[j], why, sizeof why) != 0) {
                    fprintf(stderr, "carom_bench: --density: %s\n", why);
                    return -1;
                }
                if (o->big_count > 0 && add_big(&cases[count], o, why, sizeof why) != 0) {
                    fprintf(stderr, "carom_bench: %s\n", why);
                    return -1;
                }
                if (o->poly > 0.0 && add_poly(&cases[count], o, why, sizeof why) != 0) {
                    fprintf(stderr, "carom_bench: %s\n", why);
                    return -1;
                }
                count++;
            }
    }
    return count;
}

/* The anchor rate (pair collisions per CPU second) of the issue, or 0: for
 * the one-size fluids from the lattice only. */
static double anchor_rate(const bench_case *c, const result *r)
{
    if (c->big_count > 0 || c->poly > 0.0 || c->from_file || r->fraction > 0.0) return 0.0;
    static const struct {
        int dim;
        int32_t n;
        double density, rate;
    } anchors[] = {{3, 10976, 0.30, 0.36e6},
                   {3, 10976, 0.45, 0.55e6},
                   {3, 97556, 0.30, 0.20e6},
                   {3, 97556, 0.45, 0.36e6}};
    for (size_t k = 0; k < sizeof anchors / sizeof anchors[0]; k++)
        if (anchors[k].dim == c->dim && anchors[k].n == c->n &&
            fabs(anchors[k].density - c->density) < 1e-9)
            return anchors[k].rate;
    return 0.0;
}

/* ---------- the world ---------- */

/* Site k of the lattice, in the box centred on the origin. */
static carom_vec site_position(const bench_case *c, int32_t k)
{
    if (c->dim == 2) {
        int nx = c->cells[0], ix = k % nx, iy = k / nx;
        double a = c->spacing, h = a * sqrt(3.0) / 2.0;
        return (carom_vec){(ix + 0.5 * (iy % 2) + 0.25) * a - 0.5 * c->side[0],
                           (iy + 0.5) * h - 0.5 * c->side[1], 0.0};
    }
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    int n = c->cells[0], b = k % 4, cell = k / 4;
    int iz = cell % n, iy = (cell / n) % n, ix = cell / (n * n);
    double a = c->side[0] / n, half = 0.5 * c->side[0];
    return (carom_vec){(ix + basis[b][0] + 0.25) * a - half, (iy + basis[b][1] + 0.25) * a - half,
                       (iz + basis[b][2] + 0.25) * a - half};
}

static carom_vec draw_velocity(carom_rng *rng, int dim)
{
    carom_vec v = {carom_rng_normal(rng), carom_rng_normal(rng), 0.0};
    if (dim == 3) v.z = carom_rng_normal(rng);
    return v;
}

/* Maxwell-Boltzmann velocities with zero momentum at kT = 1 exactly (m = 1), in
 * three passes over the same random sequence (no array of N velocities): the
 * mean, then the spread about it, then v = (draw - mean) * scale per body. */
typedef struct velocity_law {
    carom_vec mean;
    double scale;
} velocity_law;

static velocity_law maxwell_boltzmann(uint64_t seed, int dim, int32_t n)
{
    velocity_law law = {{0, 0, 0}, 1.0};
    carom_rng rng = carom_rng_seed(seed);
    for (int32_t k = 0; k < n; k++) {
        carom_vec v = draw_velocity(&rng, dim);
        law.mean.x += v.x, law.mean.y += v.y, law.mean.z += v.z;
    }
    law.mean.x /= n, law.mean.y /= n, law.mean.z /= n;
    double sum = 0.0;
    rng = carom_rng_seed(seed);
    for (int32_t k = 0; k < n; k++) {
        carom_vec v = draw_velocity(&rng, dim);
        double dx = v.x - law.mean.x, dy = v.y - law.mean.y, dz = dim == 3 ? v.z - law.mean.z : 0;
        sum += dx * dx + dy * dy + dz * dz;
    }
    law.scale = sum > 0.0 ? sqrt(dim * (double)n / sum) : 1.0; /* sum m v^2 = dim N kT */
    return law;
}

static int place_bodies(carom_world *w, const bench_case *c, uint64_t seed)
{
    int32_t sites = c->big_count > 0 ? c->sites : c->n;
    velocity_law law = maxwell_boltzmann(seed, c->dim, sites);
    carom_rng rng = carom_rng_seed(seed);
    for (int32_t k = 0; k < sites; k++) {
        carom_vec v = draw_velocity(&rng, c->dim);
        int role = c->big_count > 0 ? site_role(c, k) : -1;
        if (role == -2) continue; /* under a big sphere */
        carom_body_def body = carom_default_body_def();
        double d = role >= 0 ? c->big_diameter : site_diameter(c, k);
        double mass = c->dim == 3 ? d * d * d : d * d, scale = law.scale / sqrt(mass); /* kT = 1 */
        body.radius = 0.5 * d;
        body.mass = mass;
        body.position = site_position(c, k);
        body.velocity = (carom_vec){(v.x - law.mean.x) * scale, (v.y - law.mean.y) * scale,
                                    c->dim == 3 ? (v.z - law.mean.z) * scale : 0.0};
        if (carom_world_add_body(w, &body, NULL) != CAROM_OK) return -1;
    }
    return 0;
}

static carom_world *create_world(const bench_case *c, uint64_t seed, const options *o, char *why,
                                 size_t size)
{
    carom_world_def def = carom_default_world_def();
    def.dim = c->dim;
    def.box = (carom_vec){c->side[0], c->side[1], c->dim == 3 ? c->side[2] : 1.0};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = CAROM_PERIODIC;
    def.capacity_hint = c->n;
    def.neighbour_shell = o->shell;
    def.tangential_restitution = o->rough;
    def.collapse_time = o->collapse_time;
    carom_world *w = NULL;
    char reason[MESSAGE_SIZE];
    if (carom_world_create(&def, &w, reason, sizeof reason) != CAROM_OK) {
        snprintf(why, size, "creating the world: %.400s", reason);
        return NULL;
    }
    if (place_bodies(w, c, seed) != 0) {
        snprintf(why, size, "placing the bodies: %s", carom_world_message(w));
        carom_world_destroy(w);
        return NULL;
    }
    return w;
}

/* ---------- running and measuring ---------- */

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long self_maxrss_kb(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_maxrss : 0;
}

/* Runs until the world's pair-collision count reaches target. max_events
 * counts every kind (pair, wall, cell), so each chunk asks for exactly the
 * pairs still missing, which can never overshoot. Progress is read from the
 * O(1) counters (carom_world_counts), never from carom_world_stats, whose
 * sums over every body would dominate small chunks at 10^6 bodies. Adds the
 * CPU seconds spent inside carom_world_run to *cpu. */
static int run_pairs(carom_world *w, int64_t target, double *cpu, char *why, size_t size)
{
    carom_counts s = carom_world_counts(w);
    while (s.pair_events < target) {
        int64_t before = s.events;
        double start = cpu_now();
        carom_status st = carom_world_run(w, INFINITY, target - s.pair_events);
        *cpu += cpu_now() - start;
        if (st != CAROM_OK) {
            snprintf(why, size, "carom_world_run: %s: %s", carom_status_name(st),
                     carom_world_message(w));
            return -1;
        }
        s = carom_world_counts(w);
        if (s.events == before) {
            snprintf(why, size, "carom_world_run processed no event (pairs %lld of %lld)",
                     (long long)s.pair_events, (long long)target);
            return -1;
        }
    }
    return 0;
}

/* Warm-up and measured part on a world already built; fills r. */
static int measure_world(carom_world *w, const bench_case *c, const options *o, result *r)
{
    double warm_cpu = 0.0;
    carom_stats s0 = carom_world_stats(w);
    if (run_pairs(w, llround(o->warmup * c->n), &warm_cpu, r->message, sizeof r->message) != 0)
        return -1;
    carom_counts s1 = carom_world_counts(w);
    int64_t target = s1.pair_events + llround(o->collisions * c->n);
    if (run_pairs(w, target, &r->cpu_seconds, r->message, sizeof r->message) != 0) return -1;
    carom_stats s2 = carom_world_stats(w);
    r->warmup_pairs = s1.pair_events - s0.pair_events;
    r->pairs = s2.pair_events - s1.pair_events;
    r->events = s2.events - s1.events;
    r->stale = s2.stale_events - s1.stale_events;
    double e0 = s0.kinetic_energy + s0.rotational_energy,
           e2 = s2.kinetic_energy + s2.rotational_energy;
    r->energy_error = fabs(e2 - e0) / e0; /* rough at |beta| < 1: the energy lost */
    return 0;
}

/* Resets the process's peak memory to what it holds now (Linux: writing 5
 * to /proc/self/clear_refs, proc(5)); 0 on success. */
static int reset_peak_memory(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return -1;
    int st = fputs("5", f) >= 0 ? 0 : -1;
    return fclose(f) == 0 ? st : -1;
}

/* Grows the bodies of w to o->compress_to (carom_compress) and returns the
 * compressed world in its place, or NULL with r->message; w is destroyed
 * either way. The peak memory restarts after it, so that bytes a body are
 * the compressed world's (baseline -1 where it cannot be reset). */
static carom_world *compressed_world(carom_world *w, const options *o, result *r)
{
    carom_compress_def def = carom_default_compress_def();
    def.rate = o->compress_rate;
    def.target = o->compress_to;
    def.neighbour_shell = o->compress_shell;
    carom_compress_result got;
    carom_world *grown = NULL;
    char why[MESSAGE_SIZE - 64] = "";
    double start = cpu_now();
    carom_status st = carom_compress(w, &def, &grown, &got, why, sizeof why);
    r->compress_seconds = cpu_now() - start;
    carom_world_destroy(w);
    if (st != CAROM_OK) {
        snprintf(r->message, sizeof r->message, "carom_compress: %s: %s", carom_status_name(st), why);
        return NULL;
    }
    if (!got.reached_target) {
        snprintf(r->message, sizeof r->message, "--compress %g: stopped at %.4f (%s, PV/NkT %.3g)",
                 o->compress_to, got.packing_fraction,
                 got.jammed ? "jammed" : got.box_limited ? "the largest body reached the box's limit" : "event cap",
                 got.pressure);
        carom_world_destroy(grown);
        return NULL;
    }
    r->fraction = got.packing_fraction;
#if defined(__GLIBC__)
    malloc_trim(0); /* the compression's freed blocks back to the system, out of the world's bytes a body */
#endif
    if (reset_peak_memory() != 0) r->baseline_kb = -1;
    return grown;
}

/* Runs one case in this process. */
static void run_case_here(const bench_case *c, const options *o, result *r)
{
    memset(r, 0, sizeof *r);
    r->baseline_kb = self_maxrss_kb();
    carom_world *w = c->from_file ? restore_start(o->start, r->message, sizeof r->message)
                                  : create_world(c, o->seed, o, r->message, sizeof r->message);
    if (w && o->compress_to > 0.0) w = compressed_world(w, o, r);
    if (!w) return;
    if (o->save_start && save_snapshot(w, o->save_start, r->message, sizeof r->message) != 0) {
        carom_world_destroy(w);
        return;
    }
    r->ok = measure_world(w, c, o, r) == 0;
    carom_world_destroy(w);
    r->peak_kb = self_maxrss_kb();
}

/* ---------- one case per child process ---------- */

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t k = write(fd, buf, len);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        buf += k, len -= (size_t)k;
    }
    return 0;
}

/* The result as one text line for the pipe. */
static void encode_result(const result *r, char *line, size_t size)
{
    if (!r->ok)
        snprintf(line, size, "error %s\n", r->message);
    else
        snprintf(line, size, "ok %lld %lld %lld %lld %.17g %.17g %ld %.17g %.17g\n",
                 (long long)r->warmup_pairs, (long long)r->pairs, (long long)r->events, (long long)r->stale,
                 r->cpu_seconds, r->energy_error, r->baseline_kb, r->fraction, r->compress_seconds);
}

static void decode_result(const char *line, result *r)
{
    long long warm, pairs, events, stale;
    if (strncmp(line, "error ", 6) == 0) {
        snprintf(r->message, sizeof r->message, "%.*s", (int)strcspn(line + 6, "\n"), line + 6);
        return;
    }
    if (sscanf(line, "ok %lld %lld %lld %lld %lf %lf %ld %lf %lf", &warm, &pairs, &events, &stale,
               &r->cpu_seconds, &r->energy_error, &r->baseline_kb, &r->fraction, &r->compress_seconds) != 9) {
        snprintf(r->message, sizeof r->message,
                 "the child's result line could not be read: '%.80s'", line);
        return;
    }
    r->warmup_pairs = warm, r->pairs = pairs, r->events = events, r->stale = stale;
    r->ok = 1;
}

static void child_main(const bench_case *c, const options *o, int fd)
{
    result r;
    char line[MESSAGE_SIZE + 64];
    run_case_here(c, o, &r);
    encode_result(&r, line, sizeof line);
    int st = write_all(fd, line, strlen(line));
    close(fd);
    _exit(st == 0 ? 0 : 3);
}

static size_t read_all(int fd, char *buf, size_t size)
{
    size_t got = 0;
    while (got + 1 < size) {
        ssize_t k = read(fd, buf + got, size - 1 - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    buf[got] = '\0';
    return got;
}

/* Reads the child's line, reaps it, and takes its peak memory from wait4. */
static void collect_child(pid_t pid, int fd, result *r)
{
    char line[MESSAGE_SIZE + 64];
    read_all(fd, line, sizeof line);
    close(fd);
    int status = 0;
    struct rusage u;
    memset(&u, 0, sizeof u);
    while (wait4(pid, &status, 0, &u) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status)) {
        snprintf(r->message, sizeof r->message, "the child process was killed by signal %d (%s)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
        return;
    }
    if (line[0] == '\0') {
        snprintf(r->message, sizeof r->message,
                 "the child process exited with status %d and no result", WEXITSTATUS(status));
        return;
    }
    decode_result(line, r);
    if (r->ok && WEXITSTATUS(status) != 0) {
        r->ok = 0;
        snprintf(r->message, sizeof r->message, "the child process exited with status %d",
                 WEXITSTATUS(status));
    }
    r->peak_kb = u.ru_maxrss;
}

static void run_case_forked(const bench_case *c, const options *o, result *r)
{
    int fds[2];
    memset(r, 0, sizeof *r);
    fflush(NULL); /* nothing buffered may be written twice */
    if (pipe(fds) != 0) {
        snprintf(r->message, sizeof r->message, "pipe: %s", strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(r->message, sizeof r->message, "fork: %s", strerror(errno));
        close(fds[0]), close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(c, o, fds[1]);
    }
    close(fds[1]);
    collect_child(pid, fds[0], r);
}

/* ---------- report ---------- */

typedef struct row {
    double rate, ns, event_rate, peak_mb, bytes_per_body, anchor, ratio;
} row;

static row derive_row(const bench_case *c, const result *r)
{
    row d;
    double cpu = r->cpu_seconds > 0 ? r->cpu_seconds : NAN;
    d.rate = (double)r->pairs / cpu;
    d.ns = 1e9 * cpu / (double)r->pairs;
    d.event_rate = (double)r->events / cpu;
    d.peak_mb = r->peak_kb / 1024.0;
    d.bytes_per_body = r->baseline_kb < 0 ? NAN : 1024.0 * (double)(r->peak_kb - r->baseline_kb) / c->n;
    d.anchor = anchor_rate(c, r);
    d.ratio = d.anchor > 0 ? d.rate / d.anchor : 0.0;
    return d;
}

static void print_header(const options *o)
{
    printf("carom_bench: libcarom %s, seed %llu, warm-up %g + measured %g pair collisions per "
           "body,\n  CPU time of the measured part (inside carom_world_run) only, %s\n",
           CAROM_VERSION_STRING, (unsigned long long)o->seed, o->warmup, o->collisions,
           o->no_fork ? "all cases in this process (--no-fork)" : "one child process per case");
    if (o->rough > -1.0)
        printf("  rough spheres/disks: tangential restitution %g (e = 1)\n", o->rough);
    if (o->collapse_time != 0.0) printf("  collapse_time %g\n", o->collapse_time);
    if (o->compress_to > 0.0)
        printf("  grown from the lattice to packing fraction %g at rate %g first (carom_compress);\n"
               "  the density column is the fraction reached\n",
               o->compress_to, o->compress_rate);
    printf("  Mcoll/s: 10^6 pair collisions per CPU second; anchor: the issue's figure in the same "
           "unit;\n  ratio = carom / anchor; B/body = (peak - RSS before the world) / N\n");
    printf("%-3s %8s %7s %-9s %11s %8s %8s %8s %9s %8s %7s %8s %8s %6s\n", "dim", "N", "density",
           "lattice", "collisions", "CPU s", "Mcoll/s", "ns/coll", "Mevents/s", "peak MB", "B/body",
           "rel dE", "anchor", "ratio");
    fflush(stdout);
}

static void lattice_name(const bench_case *c, char *buf, size_t size)
{
    if (c->from_file)
        snprintf(buf, size, "snapshot");
    else if (c->dim == 3 && c->big_count > 0)
        snprintf(buf, size, "fcc %d^3+%dx%g", c->cells[0], c->big_count, c->big_diameter);
    else if (c->big_count > 0)
        snprintf(buf, size, "%dx%d+%dx%g", c->cells[0], c->cells[1], c->big_count, c->big_diameter);
    else if (c->dim == 3 && c->poly > 0.0)
        snprintf(buf, size, "fcc %d^3 p%g", c->cells[0], c->poly);
    else if (c->poly > 0.0)
        snprintf(buf, size, "%dx%d p%g", c->cells[0], c->cells[1], c->poly);
    else if (c->dim == 3)
        snprintf(buf, size, "fcc %d^3", c->cells[0]);
    else
        snprintf(buf, size, "%dx%d", c->cells[0], c->cells[1]);
}

static void print_row(const bench_case *c, const result *r)
{
    char lattice[32];
    lattice_name(c, lattice, sizeof lattice);
    if (!r->ok) {
        printf("%dD  %8d %7.3f %-9s  FAILED: %s\n", c->dim, c->n, shown_density(c, r), lattice, r->message);
        fflush(stdout);
        return;
    }
    row d = derive_row(c, r);
    printf("%dD  %8d %7.3f %-9s %11lld %8.3f %8.3f %8.1f %9.3f %8.1f %7.0f %8.1e", c->dim, c->n,
           shown_density(c, r), lattice, (long long)r->pairs, r->cpu_seconds, 1e-6 * d.rate, d.ns,
           1e-6 * d.event_rate, d.peak_mb, d.bytes_per_body, r->energy_error);
    if (d.anchor > 0) printf(" %8.3f %6.2f", 1e-6 * d.anchor, d.ratio);
    if (r->compress_seconds > 0.0) printf("  (compressed in %.1f CPU s)", r->compress_seconds);
    printf("\n");
    fflush(stdout);
}

static void csv_row(FILE *f, const bench_case *c, const result *r)
{
    char lattice[32];
    lattice_name(c, lattice, sizeof lattice);
    row d = derive_row(c, r);
    fprintf(f, "%d,%d,%.4f,%s,%lld,%lld,%lld,%lld,%.6f,%.6g,%.6g,%.6g,%.3f,%.1f,%.3e,", c->dim,
            c->n, shown_density(c, r), lattice, (long long)r->warmup_pairs, (long long)r->pairs,
            (long long)r->events, (long long)r->stale, r->cpu_seconds, d.rate, d.ns, d.event_rate,
            d.peak_mb, d.bytes_per_body, r->energy_error);
    if (d.anchor > 0)
        fprintf(f, "%.6g,%.4f\n", d.anchor, d.ratio);
    else
        fprintf(f, ",\n");
}

static int write_csv_rows(FILE *f, const bench_case *cases, const result *results, int count)
{
    fprintf(f, "dim,n,density,lattice,warmup_collisions,collisions,events,stale,cpu_seconds,"
               "collisions_per_cpu_second,ns_per_collision,events_per_cpu_second,peak_mb,"
               "bytes_per_body,relative_energy_error,anchor_collisions_per_cpu_second,"
               "ratio_to_anchor\n");
    for (int k = 0; k < count; k++)
        if (results[k].ok) csv_row(f, &cases[k], &results[k]);
    return ferror(f) ? -1 : 0;
}

typedef struct csv_table {
    const bench_case *cases;
    const result *results;
    int count;
} csv_table;

static int fill_csv(FILE *f, const void *context)
{
    const csv_table *t = context;
    return write_csv_rows(f, t->cases, t->results, t->count);
}

static int write_csv(const char *file, const bench_case *cases, const result *results, int count)
{
    csv_table table = {cases, results, count};
    int err = write_atomically(file, fill_csv, &table);
    if (err == 0) return 0;
    fprintf(stderr, "carom_bench: --csv %s: cannot write it: %s\n", file, file_error(err));
    return -1;
}

int main(int argc, char **argv)
{
    options o;
    int st = parse_options(argc, argv, &o);
    if (st != 0) return st;
    if (o.help) {
        usage(stdout);
        return 0;
    }
    bench_case cases[MAX_CASES];
    result results[MAX_CASES];
    int count = build_cases(&o, cases), failed = 0;
    if (count < 0) return 2;
    if (o.save_start && count != 1) {
        fprintf(stderr, "carom_bench: --save-start %s: expected one case, got %d (give one --n, one --density "
                "and --only)\n", o.save_start, count);
        return 2;
    }
    double start = wall_now();
    print_header(&o);
    for (int k = 0; k < count; k++) {
        if (o.no_fork)
            run_case_here(&cases[k], &o, &results[k]);
        else
            run_case_forked(&cases[k], &o, &results[k]);
        print_row(&cases[k], &results[k]);
        failed += !results[k].ok;
    }
    printf("%d case%s in %.1f s wall time\n", count, count == 1 ? "" : "s", wall_now() - start);
    if (write_csv(o.csv, cases, results, count) != 0) return 1;
    printf("table written to %s\n", o.csv);
    if (failed) fprintf(stderr, "carom_bench: %d case%s failed\n", failed, failed == 1 ? "" : "s");
    return failed ? 1 : 0;
}
