/* checkpoint.c — a checkpoint is "CAROMCKP", a format version, the session
 * (texts as length + bytes, numbers in native byte order) and the world's
 * snapshot (which carries its own byte-order check). Written through an
 * outfile, so an interrupted write never replaces a good checkpoint. */
#include "checkpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"

static const char checkpoint_magic[8] = {'C', 'A', 'R', 'O', 'M', 'C', 'K', 'P'};
enum { CHECKPOINT_VERSION = 1 };
static const uint32_t no_text = 0xffffffffu;

static void write_text(FILE *out, const char *text)
{
    uint32_t length = text ? (uint32_t)strlen(text) : no_text;
    fwrite(&length, sizeof length, 1, out);
    if (text) fwrite(text, 1, length, out);
}

static void write_session(FILE *out, const session *s)
{
    uint32_t version = CHECKPOINT_VERSION;
    fwrite(checkpoint_magic, 1, sizeof checkpoint_magic, out);
    fwrite(&version, sizeof version, 1, out);
    const char *texts[] = {s->scenario_path, s->trajectory, s->events_log, s->stats, s->checkpoint};
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) write_text(out, texts[k]);
    double numbers[] = {s->until, s->every, s->checkpoint_every, s->next_frame, s->next_checkpoint,
                        s->kinetic_energy_initial, s->potential_energy_initial};
    int64_t integers[] = {(int64_t)s->seed, s->events, s->frames_written};
    fwrite(numbers, sizeof numbers, 1, out);
    fwrite(integers, sizeof integers, 1, out);
}

int checkpoint_write(const char *path, const session *s, const carom_world *world, char *error,
                     size_t error_size)
{
    size_t size = carom_world_snapshot_size(world);
    void *snapshot = malloc(size);
    if (!snapshot || carom_world_snapshot(world, snapshot, size) != CAROM_OK) {
        free(snapshot);
        snprintf(error, error_size, "%s: cannot write (out of memory for the snapshot)", path);
        return -1;
    }
    outfile f;
    if (outfile_open(&f, path, error, error_size) != 0) {
        free(snapshot);
        return -1;
    }
    write_session(f.stream, s);
    uint64_t length = size;
    fwrite(&length, sizeof length, 1, f.stream);
    fwrite(snapshot, 1, size, f.stream);
    free(snapshot);
    return outfile_commit(&f, error, error_size);
}

/* ---- reading ------------------------------------------------------------- */

typedef struct reader {
    FILE *in;
    const char *path;
    char *error;
    size_t error_size;
    int failed;
} reader;

static int fail(reader *r, const char *what)
{
    if (!r->failed)
        snprintf(r->error, r->error_size, "%s: %s (at byte %ld)", r->path, what, ftell(r->in));
    r->failed = 1;
    return -1;
}

static int read_exactly(reader *r, void *data, size_t size)
{
    if (r->failed) return -1;
    if (fread(data, 1, size, r->in) != size) return fail(r, "not a complete carom checkpoint");
    return 0;
}

static int read_text(reader *r, char **text)
{
    uint32_t length;
    if (read_exactly(r, &length, sizeof length) != 0) return -1;
    if (length == no_text) return 0;
    if (length > 1 << 20) return fail(r, "damaged checkpoint (a name too long)");
    char *value = malloc((size_t)length + 1);
    if (!value) return fail(r, "out of memory");
    if (read_exactly(r, value, length) != 0) {
        free(value);
        return -1;
    }
    value[length] = '\0';
    *text = value;
    return 0;
}

static int read_session(reader *r, session *s)
{
    char magic[8];
    uint32_t version;
    if (read_exactly(r, magic, sizeof magic) != 0 || memcmp(magic, checkpoint_magic, sizeof magic) != 0)
        return fail(r, "not a carom checkpoint");
    if (read_exactly(r, &version, sizeof version) != 0 || version != CHECKPOINT_VERSION)
        return fail(r, "checkpoint of another carom version");
    char **texts[] = {&s->scenario_path, &s->trajectory, &s->events_log, &s->stats, &s->checkpoint};
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++)
        if (read_text(r, texts[k]) != 0) return -1;
    double numbers[7];
    int64_t integers[3];
    if (read_exactly(r, numbers, sizeof numbers) != 0 || read_exactly(r, integers, sizeof integers) != 0)
        return -1;
    s->until = numbers[0], s->every = numbers[1], s->checkpoint_every = numbers[2];
    s->next_frame = numbers[3], s->next_checkpoint = numbers[4], s->kinetic_energy_initial = numbers[5];
    s->potential_energy_initial = numbers[6];
    s->seed = (uint64_t)integers[0], s->events = integers[1], s->frames_written = (int)integers[2];
    return 0;
}

/* Bytes from the position to the end of the file (0 if unknown), so that no
 * length read from the file is trusted before it is checked against it. */
static uint64_t bytes_left(FILE *in)
{
    long here = ftell(in);
    if (here < 0 || fseek(in, 0, SEEK_END) != 0) return 0;
    long end = ftell(in);
    if (fseek(in, here, SEEK_SET) != 0 || end < here) return 0;
    return (uint64_t)(end - here);
}

static int read_world(reader *r, carom_event_callback on_event, void *user, carom_world **world)
{
    uint64_t length;
    if (read_exactly(r, &length, sizeof length) != 0) return -1;
    if (length > ((uint64_t)1 << 40) || length != bytes_left(r->in))
        return fail(r, "damaged checkpoint (the snapshot size does not match the file)");
    void *snapshot = malloc(length ? length : 1);
    if (!snapshot) return fail(r, "out of memory for the snapshot");
    int st = read_exactly(r, snapshot, length);
    if (st == 0 && fgetc(r->in) != EOF) st = fail(r, "damaged checkpoint (bytes after the snapshot)");
    char why[200];
    if (st == 0 && carom_world_restore(snapshot, length, on_event, user, world, why, sizeof why) != CAROM_OK)
        st = fail(r, why);
    free(snapshot);
    return st;
}

int checkpoint_read(const char *path, session *s, carom_event_callback on_event, void *user,
                    carom_world **world, char *error, size_t error_size)
{
    *world = NULL;
    memset(s, 0, sizeof *s);
    reader r = {fopen(path, "rb"), path, error, error_size, 0};
    if (!r.in) {
        snprintf(error, error_size, "%s: cannot open (%s)", path, strerror(errno));
        return -1;
    }
    int st = read_session(&r, s);
    if (st == 0) st = read_world(&r, on_event, user, world);
    fclose(r.in);
    if (st != 0) session_free(s);
    return st;
}
