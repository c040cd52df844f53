/* airhockey_cli.c — `carom airhockey`: plays the air-hockey game of
 * examples/airhockey (its table, scoring and scripted controllers) for some
 * minutes of simulated time and prints the score and statistics; writes the
 * trajectory (extended XYZ, one frame per control window, xyz.c) and an event
 * log (CSV) if asked. Outputs are checked before the game starts and written
 * under temporary names renamed when complete (outfile.c), as `carom run`
 * does.
 */
#define _POSIX_C_SOURCE 200809L
#include "airhockey_cli.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airhockey.h"
#include "carom.h"
#include "option.h"
#include "outfile.h"
#include "report.h"
#include "xyz.h"

/* A year of play: the window count stays far inside int64_t. */
enum { EXIT_USAGE = 2, MESSAGE_SIZE = 768, MAX_MINUTES = 525600 };

static const char *help_text =
    "usage: carom airhockey [options]\n"
    "\n"
    "Plays air hockey on the Air Hockey Challenge's table (1.948 x 1.038 m, goal\n"
    "mouths 0.25 m) with scripted mallets that set bounded accelerations every\n"
    "control window (50 Hz); every puck, mallet and wall collision is exact.\n"
    "The same seed gives the same game bit for bit.\n"
    "\n"
    "  --players 2|4          mallets on the table, half on each side [2]\n"
    "  --seed S               seed of the serves (a whole number >= 0) [1]\n"
    "  --minutes M            simulated minutes to play (> 0) [3]\n"
    "  --trajectory FILE      extended XYZ frames, one per window (species puck, mallet)\n"
    "  --events FILE          every event as CSV: time,kind,a,b,c\n"
    "                           pair    a, b: bodies       c: impulse\n"
    "                           wall    a: body  b: wall   c: impulse\n"
    "                           sensor  a: body  b: sensor c: direction (+1 or -1)\n"
    "                           goal    a: team that scored  b, c: the score after it\n"
    "                           serve   a: start, goal, stall or jam  b, c: the puck's x, y\n"
    "  --quiet                no list of the files written\n"
    "  --help                 this text\n"
    "\n"
    "Body 0 is the puck, then the mallets (team 0, defending x = -0.974, first).\n"
    "Exit status: 0 on success, 1 on a failed game or output, 2 on bad usage.\n";

typedef struct cli_options {
    int players, quiet;
    uint64_t seed;
    double minutes;
    const char *trajectory, *events;
} cli_options;

/* The event log: the world's events and the game's goals and serves. */
typedef struct cli_log {
    outfile file;
    int open;
} cli_log;

static int usage_error(const char *message)
{
    fprintf(stderr, "carom: %s (see carom airhockey --help)\n", message);
    return EXIT_USAGE;
}

static int fail(const char *message)
{
    fprintf(stderr, "carom: %s\n", message);
    return 1;
}

/* ---- the command line ------------------------------------------------------ */

static int parse_seed(const char *text, uint64_t *seed, char *error, size_t size)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || *end || errno || text[0] == '-' || text[0] == '+' || text[0] == ' ') {
        snprintf(error, size, "--seed: '%s' is not a usable value (expected a whole number >= 0)",
                 text);
        return -1;
    }
    *seed = (uint64_t)v;
    return 0;
}

static int take_value(cli_options *o, const char *name, const char *value, char *error, size_t size)
{
    if (!strcmp(name, "--players")) {
        if (strcmp(value, "2") && strcmp(value, "4"))
            return snprintf(error, size, "--players: '%s' is not a usable value (expected 2 or 4)",
                            value),
                   -1;
        o->players = value[0] - '0';
        return 0;
    }
    if (!strcmp(name, "--seed")) return parse_seed(value, &o->seed, error, size);
    if (!strcmp(name, "--minutes")) {
        if (option_positive_number(name, value, &o->minutes, error, size) != 0) return -1;
        if (o->minutes > MAX_MINUTES)
            return snprintf(error, size, "--minutes: '%s' is too long (expected at most %g)", value,
                            (double)MAX_MINUTES),
                   -1;
        return 0;
    }
    if (!strcmp(name, "--trajectory")) return o->trajectory = value, 0;
    if (!strcmp(name, "--events")) return o->events = value, 0;
    return snprintf(error, size, "unknown option '%s'", name), -1;
}

static int is_valued(const char *name)
{
    static const char *const valued[] = {"--players", "--seed", "--minutes", "--trajectory", "--events"};
    return option_is_one_of(name, valued, sizeof valued / sizeof valued[0]);
}

/* Returns 0, 1 for --help, or -1 with a message. */
static int parse_options(int argc, char **argv, cli_options *o, char *error, size_t size)
{
    *o = (cli_options){2, 0, 1, 3.0, NULL, NULL};
    for (int k = 0; k < argc; k++) {
        const char *arg = argv[k];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) return 1;
        if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            o->quiet = 1;
            continue;
        }
        if (arg[0] != '-' || arg[1] != '-')
            return snprintf(error, size, "unexpected argument '%s' (airhockey takes options only)",
                            arg),
                   -1;
        char name[64];
        const char *value;
        if (option_take_valued(argc, argv, &k, is_valued, name, sizeof name, &value, error, size) != 0 ||
            take_value(o, name, value, error, size) != 0)
            return -1;
    }
    if (o->trajectory && !o->trajectory[0]) o->trajectory = NULL;
    if (o->events && !o->events[0]) o->events = NULL;
    return 0;
}

/* ---- the event log ------------------------------------------------------------ */

static void note_write(outfile *f, int written)
{
    if (written < 0 && !f->error) f->error = errno ? errno : EIO;
}

static int log_event(void *user, const carom_event *e)
{
    static const char *walls[6] = {"x-", "x+", "y-", "y+", "z-", "z+"};
    cli_log *log = user;
    if (!log->open) return 0;
    FILE *out = log->file.stream;
    int written = 0;
    if (e->kind == CAROM_EVENT_PAIR)
        written =
            fprintf(out, "%.17g,pair,%d,%d,%.17g\n", e->time, (int)e->i, (int)e->j, e->impulse);
    else if (e->kind == CAROM_EVENT_WALL)
        written = fprintf(out, "%.17g,wall,%d,%s,%.17g\n", e->time, (int)e->i, walls[e->j % 6],
                          e->impulse);
    else if (e->kind == CAROM_EVENT_SENSOR)
        written = fprintf(out, "%.17g,sensor,%d,%d,%+d\n", e->time, (int)e->i, (int)e->j,
                          (int)e->direction);
    note_write(&log->file, written);
    return 0;
}

static void log_notice(void *user, const airhockey_notice *n)
{
    static const char *reasons[4] = {"start", "goal", "stall", "jam"};
    cli_log *log = user;
    if (!log->open) return;
    FILE *out = log->file.stream;
    int written;
    if (n->kind == AIRHOCKEY_GOAL)
        written = fprintf(out, "%.17g,goal,%d,%d,%d\n", n->time, n->team, n->score[0], n->score[1]);
    else
        written = fprintf(out, "%.17g,serve,%s,%.17g,%.17g\n", n->time, reasons[n->reason % 4],
                          n->position.x, n->position.y);
    note_write(&log->file, written);
}

/* ---- outputs -------------------------------------------------------------------- */

static int check_outputs(const cli_options *o, char *error, size_t size)
{
    const char *paths[2] = {o->trajectory, o->events}, *names[2] = {"the trajectory", "the event log"};
    return outfile_check_apart(paths, names, 2, NULL, 0, error, size);
}

static int write_frame(outfile *f, const carom_world *world, const char *species)
{
    carom_world_def def = carom_world_definition(world);
    const double box[3] = {def.box.x, def.box.y, 1.0};
    const int periodic[3] = {0, 0, 0};
    if (xyz_write_frame(f->stream, world, 2, box, periodic, species) != 0 && !f->error)
        f->error = errno ? errno : EIO;
    return f->error ? -1 : 0;
}

/* ---- the game ------------------------------------------------------------------- */

typedef struct cli_run {
    cli_options o;
    cli_log log;
    outfile trajectory;
    int trajectory_open;
    int64_t frames;
    char species[64];
    char message[MESSAGE_SIZE];
} cli_run;

static int open_outputs(cli_run *r)
{
    if (r->o.trajectory) {
        if (outfile_open(&r->trajectory, r->o.trajectory, r->message, sizeof r->message) != 0)
            return -1;
        r->trajectory_open = 1;
    }
    if (r->o.events) {
        if (outfile_open(&r->log.file, r->o.events, r->message, sizeof r->message) != 0) return -1;
        r->log.open = 1;
        note_write(&r->log.file, fprintf(r->log.file.stream, "time,kind,a,b,c\n"));
    }
    return 0;
}

static void discard_outputs(cli_run *r)
{
    if (r->trajectory_open) outfile_discard(&r->trajectory);
    if (r->log.open) outfile_discard(&r->log.file);
    r->trajectory_open = r->log.open = 0;
}

static int commit_outputs(cli_run *r)
{
    if (r->trajectory_open && outfile_commit(&r->trajectory, r->message, sizeof r->message) != 0)
        return -1;
    r->trajectory_open = 0;
    if (r->log.open && outfile_commit(&r->log.file, r->message, sizeof r->message) != 0) return -1;
    r->log.open = 0;
    return 0;
}

static int trajectory_frame(cli_run *r, const airhockey_game *game)
{
    if (!r->trajectory_open) return 0;
    if (write_frame(&r->trajectory, airhockey_world(game), r->species) != 0)
        return outfile_status(&r->trajectory, r->message, sizeof r->message);
    r->frames++;
    return 0;
}

static int output_status(cli_run *r)
{
    if (r->trajectory_open && outfile_status(&r->trajectory, r->message, sizeof r->message) != 0)
        return -1;
    if (r->log.open && outfile_status(&r->log.file, r->message, sizeof r->message) != 0) return -1;
    return 0;
}

static int play(cli_run *r, airhockey_game *game)
{
    const airhockey_config *c = airhockey_get_config(game);
    int64_t windows = (int64_t)ceil(r->o.minutes * 60.0 * c->control_rate);
    if (trajectory_frame(r, game) != 0) return -1;
    for (int64_t k = 0; k < windows; k++) {
        if (airhockey_step(game) != CAROM_OK)
            return snprintf(r->message, sizeof r->message, "the game failed: %s",
                            airhockey_message(game)),
                   -1;
        if (trajectory_frame(r, game) != 0 || output_status(r) != 0) return -1;
    }
    return 0;
}

static void print_summary(const airhockey_game *game, double wall_seconds)
{
    airhockey_summary s = airhockey_get_summary(game);
    const airhockey_config *c = airhockey_get_config(game);
    printf("air hockey: %d players, seed %llu, %.17g s in %lld windows of %.17g s\n", c->players,
           (unsigned long long)c->seed, s.time, (long long)s.windows, 1.0 / c->control_rate);
    printf("score            %d - %d   (team 0 defends x-, team 1 defends x+)\n", s.score[0],
           s.score[1]);
    printf("goals            %d\n", s.score[0] + s.score[1]);
    printf("serves           %lld after the first (stall restarts %lld, jams %lld)\n",
           (long long)s.serves, (long long)s.stall_restarts, (long long)s.jams);
    printf("collisions       %lld (pair %lld, of which puck-mallet %lld; wall %lld)\n",
           (long long)(s.pair_events + s.wall_events), (long long)s.pair_events,
           (long long)s.puck_hits, (long long)s.wall_events);
    printf("sensor events    %lld\n", (long long)s.sensor_events);
    printf("events           %lld (all carom events, cell crossings included)\n",
           (long long)s.events);
    printf("predictions      %lld\n", (long long)s.predictions);
    printf("fastest puck     %.6g m/s\n", s.fastest_puck);
    printf("wall time        %.3g s (%.4g windows per second)\n", wall_seconds,
           wall_seconds > 0 ? (double)s.windows / wall_seconds : 0.0);
}

static void say_written(const cli_run *r)
{
    if (r->o.quiet) return;
    if (r->o.trajectory)
        fprintf(stderr, "carom: wrote %s (%lld frames)\n", r->o.trajectory, (long long)r->frames);
    if (r->o.events) fprintf(stderr, "carom: wrote %s\n", r->o.events);
}

static int run_game(cli_run *r)
{
    airhockey_config c = airhockey_default_config();
    c.players = r->o.players;
    c.seed = r->o.seed;
    c.on_event = log_event, c.on_notice = log_notice, c.user = &r->log;
    snprintf(r->species, sizeof r->species, "puck 1 mallet %d", c.players);
    if (check_outputs(&r->o, r->message, sizeof r->message) != 0 || open_outputs(r) != 0) return -1;
    airhockey_game *game = NULL;
    if (airhockey_create(&c, &game, r->message, sizeof r->message) != CAROM_OK) return -1;
    double started = report_wall_seconds();
    int st = play(r, game);
    double wall_seconds = report_wall_seconds() - started;
    if (st == 0) st = commit_outputs(r);
    if (st == 0) print_summary(game, wall_seconds), say_written(r);
    airhockey_destroy(game);
    return st;
}

int airhockey_command(int argc, char **argv)
{
    cli_run *r = calloc(1, sizeof *r);
    if (!r) return fail("out of memory");
    char error[MESSAGE_SIZE] = "";
    int parsed = parse_options(argc, argv, &r->o, error, sizeof error);
    int status;
    if (parsed == 1)
        status = (fputs(help_text, stdout), 0);
    else if (parsed != 0)
        status = usage_error(error);
    else if (run_game(r) != 0)
        status = fail(r->message);
    else
        status = 0;
    discard_outputs(r);
    free(r);
    return status;
}
