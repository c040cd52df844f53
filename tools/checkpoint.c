/* checkpoint.c — a checkpoint file holds a run's session and its world's
 * snapshot. Format version 6, every number little-endian:
 *
 *   magic "CAROMCKP", version (u32), byte-order tag 0x01020304 (u32),
 *   seven texts (u32 length, 0xffffffff for none, then the bytes: scenario,
 *   trajectory, event log, stats, checkpoint, species, controls), eleven
 *   numbers (f64: until, every, checkpoint_every, next frame, next
 *   checkpoint, initial KE and PE, equilibrate, window, window origin,
 *   initial rotational energy), five
 *   integers (i64: seed, events, frames written, the next controls row, the
 *   controls file's CRC-32C), the thermostat (u32 kind; f64 temperature,
 *   rate, every, kick, next event, origin; u64 the generator's four words,
 *   the next rescaling's index, events applied), the event log's rows (i64),
 *   the snapshot's length (u64), the snapshot
 *   (which carries its own length and checksum), and a CRC-32C of every
 *   byte before it (u32; carom_crc32c). Version 3 added the window and the
 *   controls (issue 12), so that a windowed run resumes where it was;
 *   version 4 the initial rotational energy (issue 14), for the stats;
 *   version 5 the thermostat (issue 17), so that a restart draws the same
 *   numbers; version 6 the event log's rows, so that a restart finds a log
 *   cut short. Versions 4 and 5 are still read (with no thermostat before 5,
 *   and the rows unknown before 6: the log is then cut at the clock).
 *
 * A checkpoint is read whole and checked before anything in it is believed:
 * magic, version and tag, then the checksum (any flipped bit is refused),
 * then every length against the bytes present and every number against its
 * range. Refusals name the field and its byte offset. Written through an
 * outfile, so an interrupted write never replaces a good checkpoint. */
#include "checkpoint.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"

static const char checkpoint_magic[8] = {'C', 'A', 'R', 'O', 'M', 'C', 'K', 'P'};
enum { CHECKPOINT_VERSION = 6, OLDEST_VERSION = 4, TEXTS = 7, NUMBERS = 11, INTEGERS = 5, CHECKSUM_BYTES = 4 };
enum { THERMOSTAT_NUMBERS = 6, THERMOSTAT_WORDS = 6, THERMOSTAT_BYTES = 4 + 8 * (THERMOSTAT_NUMBERS + THERMOSTAT_WORDS) };
static const uint32_t byte_order_tag = 0x01020304u;
static const uint32_t no_text = 0xffffffffu;
static const uint32_t longest_text = 1u << 20; /* texts are paths */

/* ---- little-endian fields ------------------------------------------------ */

typedef struct cursor {
    unsigned char *out;      /* writing */
    const unsigned char *in; /* reading */
    size_t size, at;
    int failed;
} cursor;

static void put_uint(cursor *c, uint64_t value, int bytes)
{
    for (int k = 0; k < bytes; k++) c->out[c->at + (size_t)k] = (unsigned char)(value >> (8 * k));
    c->at += (size_t)bytes;
}

static void put_f64(cursor *c, double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    put_uint(c, bits, 8);
}

static uint64_t get_uint(cursor *c, int bytes)
{
    if (c->failed || (size_t)bytes > c->size - c->at) {
        c->failed = 1;
        return 0;
    }
    uint64_t value = 0;
    for (int k = 0; k < bytes; k++) value |= (uint64_t)c->in[c->at + (size_t)k] << (8 * k);
    c->at += (size_t)bytes;
    return value;
}

static double get_f64(cursor *c)
{
    uint64_t bits = get_uint(c, 8);
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* ---- writing ------------------------------------------------------------- */

static const char **session_texts(const session *s, const char *texts[TEXTS])
{
    texts[0] = s->scenario_path, texts[1] = s->trajectory, texts[2] = s->events_log;
    texts[3] = s->stats, texts[4] = s->checkpoint, texts[5] = s->species, texts[6] = s->controls;
    return texts;
}

/* Bytes of everything before the snapshot, or 0 if a text is too long. */
static size_t session_bytes(const session *s)
{
    const char *texts[TEXTS];
    size_t size = sizeof checkpoint_magic + 4 + 4 + 8 * (NUMBERS + INTEGERS) + THERMOSTAT_BYTES + 8 + 8;
    session_texts(s, texts);
    for (int k = 0; k < TEXTS; k++) {
        size_t length = texts[k] ? strlen(texts[k]) : 0;
        if (length > longest_text) return 0;
        size += 4 + length;
    }
    return size;
}

static void write_session(cursor *c, const session *s, uint64_t snapshot_size)
{
    memcpy(c->out, checkpoint_magic, sizeof checkpoint_magic);
    c->at = sizeof checkpoint_magic;
    put_uint(c, CHECKPOINT_VERSION, 4);
    put_uint(c, byte_order_tag, 4);
    const char *texts[TEXTS];
    session_texts(s, texts);
    for (int k = 0; k < TEXTS; k++) {
        size_t length = texts[k] ? strlen(texts[k]) : 0;
        put_uint(c, texts[k] ? (uint32_t)length : no_text, 4);
        if (length) memcpy(c->out + c->at, texts[k], length);
        c->at += length;
    }
    double numbers[NUMBERS] = {s->until,
                               s->every,
                               s->checkpoint_every,
                               s->next_frame,
                               s->next_checkpoint,
                               s->kinetic_energy_initial,
                               s->potential_energy_initial,
                               s->equilibrate,
                               s->window,
                               s->window_origin,
                               s->rotational_energy_initial};
    int64_t integers[INTEGERS] = {(int64_t)s->seed, s->events, s->frames_written, s->controls_next,
                                  (int64_t)s->controls_checksum};
    for (int k = 0; k < NUMBERS; k++) put_f64(c, numbers[k]);
    for (int k = 0; k < INTEGERS; k++) put_uint(c, (uint64_t)integers[k], 8);
    const thermostat *t = &s->thermostat;
    put_uint(c, (uint32_t)t->kind, 4);
    double numbers_t[THERMOSTAT_NUMBERS] = {t->temperature, t->rate, t->every, t->kick, t->next, t->origin};
    uint64_t words[THERMOSTAT_WORDS] = {t->rng.s[0], t->rng.s[1], t->rng.s[2], t->rng.s[3], (uint64_t)t->index,
                                        (uint64_t)t->events};
    for (int k = 0; k < THERMOSTAT_NUMBERS; k++) put_f64(c, numbers_t[k]);
    for (int k = 0; k < THERMOSTAT_WORDS; k++) put_uint(c, words[k], 8);
    put_uint(c, (uint64_t)(s->events_logged > 0 ? s->events_logged : 0), 8);
    put_uint(c, snapshot_size, 8);
}

int checkpoint_write(const char *path, const session *s, const carom_world *world, char *error,
                     size_t error_size)
{
    size_t head = session_bytes(s), snapshot = carom_world_snapshot_size(world), total = 0;
    if (head == 0 || snapshot == 0 || snapshot > SIZE_MAX - head - CHECKSUM_BYTES) {
        snprintf(error, error_size,
                 "%s: cannot write (a checkpoint this large does not fit in memory here)", path);
        return -1;
    }
    total = head + snapshot + CHECKSUM_BYTES;
    unsigned char *bytes = malloc(total);
    if (!bytes || carom_world_snapshot(world, bytes + head, snapshot) != CAROM_OK) {
        free(bytes);
        snprintf(error, error_size, "%s: cannot write (out of memory for the snapshot)", path);
        return -1;
    }
    cursor c = {bytes, NULL, total, 0, 0};
    write_session(&c, s, snapshot);
    c.at += snapshot;
    put_uint(&c, carom_crc32c(0, bytes, head + snapshot), 4);
    outfile f;
    int st = outfile_open(&f, path, error, error_size);
    if (st == 0 && fwrite(bytes, 1, total, f.stream) != total) {
        snprintf(error, error_size, "%s: cannot write (%s)", path, strerror(errno));
        outfile_discard(&f);
        st = -1;
    } else if (st == 0) {
        st = outfile_commit(&f, error, error_size);
    }
    free(bytes);
    return st;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct reader {
    cursor c;
    uint32_t version;     /* the file's format version */
    unsigned char *bytes; /* the file, read whole (c reads it) */
    const char *path;
    char *error;
    size_t error_size;
} reader;

static int refuse(reader *r, size_t at, const char *field, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int refuse(reader *r, size_t at, const char *field, const char *format, ...)
{
    char detail[300];
    va_list args;
    va_start(args, format);
    vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    snprintf(r->error, r->error_size, "%s: byte %zu (%s): %s", r->path, at, field, detail);
    return -1;
}

/* The magic, version and byte-order tag, from the file's first 16 bytes. */
static int check_opening(reader *r, const unsigned char *head, size_t got)
{
    cursor c = {NULL, head, got, sizeof checkpoint_magic, 0};
    if (got < sizeof checkpoint_magic ||
        memcmp(head, checkpoint_magic, sizeof checkpoint_magic) != 0) {
        snprintf(r->error, r->error_size,
                 "%s: not a carom checkpoint (byte 0, magic: expected \"CAROMCKP\")", r->path);
        return -1;
    }
    uint32_t version = (uint32_t)get_uint(&c, 4);
    if (c.failed) return refuse(r, got, "format version", "the file ends after %zu bytes", got);
    if (version < OLDEST_VERSION || version > CHECKPOINT_VERSION)
        return refuse(r, 8, "format version",
                      "checkpoint format version %u, this carom reads versions %d to %d", version,
                      OLDEST_VERSION, CHECKPOINT_VERSION);
    r->version = version;
    uint32_t tag = (uint32_t)get_uint(&c, 4);
    if (c.failed) return refuse(r, got, "byte-order tag", "the file ends after %zu bytes", got);
    if (tag != byte_order_tag)
        return refuse(r, 12, "byte-order tag", "0x%08x, expected 0x%08x (little-endian)", tag,
                      byte_order_tag);
    return 0;
}

/* The whole file into r->c (as many bytes as are there, no more). */
static int slurp(reader *r, FILE *in, unsigned char *head, size_t got)
{
    size_t size = got, capacity = 1 << 16;
    unsigned char *bytes = malloc(capacity);
    if (!bytes) return refuse(r, 0, "file", "out of memory");
    memcpy(bytes, head, got);
    for (;;) {
        size += fread(bytes + size, 1, capacity - size, in);
        if (size < capacity) break;
        unsigned char *grown = capacity <= SIZE_MAX / 2 ? realloc(bytes, capacity * 2) : NULL;
        if (!grown) {
            free(bytes);
            return refuse(r, size, "file", "out of memory reading the checkpoint");
        }
        bytes = grown;
        capacity *= 2;
    }
    if (ferror(in)) {
        free(bytes);
        return refuse(r, size, "file", "cannot read (%s)", strerror(errno));
    }
    r->bytes = bytes;
    r->c = (cursor){NULL, bytes, size, 0, 0};
    return 0;
}

static int check_checksum(reader *r)
{
    cursor *c = &r->c;
    size_t least =
        sizeof checkpoint_magic + 8 + 4 * TEXTS + 8 * (NUMBERS + INTEGERS) + 8 + CHECKSUM_BYTES;
    if (c->size < least)
        return refuse(r, c->size, "file",
                      "the file ends after %zu bytes; a checkpoint has at least %zu", c->size,
                      least);
    c->at = c->size - CHECKSUM_BYTES;
    uint32_t stored = (uint32_t)get_uint(c, 4),
             computed = carom_crc32c(0, c->in, c->size - CHECKSUM_BYTES);
    if (stored != computed)
        return refuse(
            r, c->size - CHECKSUM_BYTES, "CRC-32C",
            "stored 0x%08x, computed 0x%08x over the bytes before it: the checkpoint is damaged",
            stored, computed);
    c->at = sizeof checkpoint_magic + 8;
    c->size -= CHECKSUM_BYTES; /* the fields end where the checksum starts */
    return 0;
}

static const char *text_name[TEXTS] = {"scenario path", "trajectory path", "event log path",
                                       "stats path", "checkpoint path", "species", "controls path"};

static int read_text(reader *r, int k, char **text)
{
    size_t at = r->c.at;
    uint32_t length = (uint32_t)get_uint(&r->c, 4);
    if (r->c.failed) return refuse(r, at, text_name[k], "the file ends inside it");
    if (length == no_text) return 0;
    if (length > longest_text || length > r->c.size - r->c.at)
        return refuse(r, at, text_name[k],
                      "%u bytes long, but %zu remain (and at most %u are allowed)", length,
                      r->c.size - r->c.at, longest_text);
    const char *bytes = (const char *)r->c.in + r->c.at;
    if (memchr(bytes, '\0', length)) return refuse(r, r->c.at, text_name[k], "contains a NUL byte");
    if (!(*text = malloc((size_t)length + 1))) return refuse(r, at, text_name[k], "out of memory");
    memcpy(*text, bytes, length);
    (*text)[length] = '\0';
    r->c.at += length;
    return 0;
}

static int check_numbers(reader *r, size_t at, const double numbers[NUMBERS])
{
    static const char *names[NUMBERS] = {"until",
                                         "every",
                                         "checkpoint_every",
                                         "next frame",
                                         "next checkpoint",
                                         "initial kinetic energy",
                                         "initial potential energy",
                                         "equilibrate",
                                         "window",
                                         "window origin",
                                         "initial rotational energy"};
    for (int k = 0; k < NUMBERS; k++) {
        double x = numbers[k];
        int ok = !isnan(x);
        if (k == 0) ok = ok && x > 0.0; /* until may be infinite, and is never 0 */
        if (k == 1 || k == 2 || k == 5 || k == 7 || k == 8 || k == 10) ok = isfinite(x) && x >= 0.0; /* intervals, an energy, a time */
        if (k == 6 || k == 9) ok = isfinite(x);
        if (!ok) return refuse(r, at + 8 * (size_t)k, names[k], "%g is out of range", x);
    }
    return 0;
}

/* The thermostat (version 5 on), each number checked for the kind it serves. */
static int read_thermostat(reader *r, thermostat *t)
{
    memset(t, 0, sizeof *t);
    if (r->version < 5) return 0;
    size_t at = r->c.at;
    uint32_t kind = (uint32_t)get_uint(&r->c, 4);
    double x[THERMOSTAT_NUMBERS];
    uint64_t w[THERMOSTAT_WORDS];
    for (int k = 0; k < THERMOSTAT_NUMBERS; k++) x[k] = get_f64(&r->c);
    for (int k = 0; k < THERMOSTAT_WORDS; k++) w[k] = get_uint(&r->c, 8);
    if (r->c.failed) return refuse(r, at, "thermostat", "the file ends inside it");
    if (kind > THERMOSTAT_DRIVE) return refuse(r, at, "thermostat kind", "%u: expected 0 to 3", kind);
    t->kind = (thermostat_kind)kind;
    if (kind == THERMOSTAT_NONE) return 0;
    int used[THERMOSTAT_NUMBERS] = {kind != THERMOSTAT_DRIVE, kind != THERMOSTAT_RESCALE, kind == THERMOSTAT_RESCALE,
                                    kind == THERMOSTAT_DRIVE, 0, 0};
    static const char *names[THERMOSTAT_NUMBERS] = {"thermostat temperature", "thermostat rate", "thermostat every",
                                                    "thermostat kick", "thermostat next event", "thermostat origin"};
    for (int k = 0; k < THERMOSTAT_NUMBERS; k++) {
        int ok = k >= 4 ? isfinite(x[k]) : (!used[k] || (isfinite(x[k]) && x[k] > 0));
        if (!ok) return refuse(r, at + 4 + 8 * (size_t)k, names[k], "%g is out of range", x[k]);
    }
    if ((w[0] | w[1] | w[2] | w[3]) == 0)
        return refuse(r, at + 4 + 8 * THERMOSTAT_NUMBERS, "thermostat generator", "all zero (expected a seeded state)");
    if ((int64_t)w[4] < 1 || (int64_t)w[5] < 0)
        return refuse(r, at + 4 + 8 * (THERMOSTAT_NUMBERS + 4), "thermostat counters", "out of range");
    t->temperature = x[0], t->rate = x[1], t->every = x[2], t->kick = x[3], t->next = x[4], t->origin = x[5];
    for (int k = 0; k < 4; k++) t->rng.s[k] = w[k];
    t->index = (int64_t)w[4], t->events = (int64_t)w[5];
    return 0;
}

/* The event log's rows (version 6 on; -1 before: not known). */
static int read_event_rows(reader *r, session *s)
{
    s->events_logged = -1;
    if (r->version < 6) return 0;
    size_t at = r->c.at;
    int64_t rows = (int64_t)get_uint(&r->c, 8);
    if (r->c.failed) return refuse(r, at, "event log rows", "the file ends inside them");
    if (rows < 0) return refuse(r, at, "event log rows", "%lld: expected a count >= 0", (long long)rows);
    s->events_logged = rows;
    return 0;
}

static int read_session(reader *r, session *s)
{
    char **texts[TEXTS] = {&s->scenario_path, &s->trajectory, &s->events_log, &s->stats,
                           &s->checkpoint, &s->species, &s->controls};
    for (int k = 0; k < TEXTS; k++)
        if (read_text(r, k, texts[k]) != 0) return -1;
    size_t at = r->c.at;
    double numbers[NUMBERS];
    int64_t integers[INTEGERS];
    for (int k = 0; k < NUMBERS; k++) numbers[k] = get_f64(&r->c);
    for (int k = 0; k < INTEGERS; k++) integers[k] = (int64_t)get_uint(&r->c, 8);
    if (r->c.failed) return refuse(r, at, "session numbers", "the file ends inside them");
    if (check_numbers(r, at, numbers) != 0) return -1;
    size_t at_integers = at + 8 * NUMBERS;
    if (integers[1] < -1)
        return refuse(r, at_integers + 8, "events", "%lld: expected a cap >= 0, or -1 for none",
                      (long long)integers[1]);
    if (integers[2] < 0 || integers[2] > INT_MAX)
        return refuse(r, at_integers + 16, "frames written", "%lld: expected 0 to %d",
                      (long long)integers[2], INT_MAX);
    if (integers[3] < 0)
        return refuse(r, at_integers + 24, "next controls row", "%lld: expected a row index >= 0",
                      (long long)integers[3]);
    if (integers[4] < 0 || integers[4] > (int64_t)UINT32_MAX)
        return refuse(r, at_integers + 32, "controls checksum", "%lld: expected a CRC-32C, 0 to %u",
                      (long long)integers[4], UINT32_MAX);
    s->until = numbers[0], s->every = numbers[1], s->checkpoint_every = numbers[2];
    s->next_frame = numbers[3], s->next_checkpoint = numbers[4],
    s->kinetic_energy_initial = numbers[5];
    s->potential_energy_initial = numbers[6];
    s->equilibrate = numbers[7];
    s->window = numbers[8], s->window_origin = numbers[9];
    s->rotational_energy_initial = numbers[10];
    s->controls_next = integers[3], s->controls_checksum = (uint32_t)integers[4];
    s->seed = (uint64_t)integers[0], s->events = integers[1], s->frames_written = (int)integers[2];
    if (read_thermostat(r, &s->thermostat) != 0) return -1;
    return read_event_rows(r, s);
}

static int read_world(reader *r, carom_event_callback on_event, void *user, carom_world **world)
{
    size_t at = r->c.at;
    uint64_t length = get_uint(&r->c, 8);
    size_t rest = r->c.size - r->c.at;
    if (r->c.failed || length != rest)
        return refuse(r, at, "snapshot length", "%llu bytes, but %zu remain before the checksum",
                      (unsigned long long)length, rest);
    char why[300];
    if (carom_world_restore(r->c.in + r->c.at, rest, on_event, user, world, why, sizeof why) !=
        CAROM_OK)
        return refuse(r, r->c.at, "world snapshot, which starts there", "%s", why);
    return 0;
}

int checkpoint_read(const char *path, session *s, carom_event_callback on_event, void *user,
                    carom_world **world, char *error, size_t error_size)
{
    *world = NULL;
    memset(s, 0, sizeof *s);
    reader r = {{NULL, NULL, 0, 0, 0}, 0, NULL, path, error, error_size};
    FILE *in = fopen(path, "rb");
    if (!in) {
        snprintf(error, error_size, "%s: cannot open (%s)", path, strerror(errno));
        return -1;
    }
    unsigned char head[16];
    size_t got = fread(head, 1, sizeof head, in);
    int st = check_opening(&r, head, got);
    if (st == 0) st = slurp(&r, in, head, got);
    fclose(in);
    if (st != 0) return -1;
    st = check_checksum(&r);
    if (st == 0) st = read_session(&r, s);
    if (st == 0) st = read_world(&r, on_event, user, world);
    free(r.bytes);
    if (st != 0) session_free(s);
    return st;
}
