/* test_checkpoint.c — checkpoint files (tools/checkpoint.c): a round trip
 * gives back the session and a world that continues as the original; any
 * flipped bit, any truncation and any forged field (with the checksum made
 * to match) is refused with a message naming the field and its byte; a
 * checkpoint of an older format says which version it is. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "carom.h"
#include "check.h"
#include "forge.h"
#include "checkpoint.h"
#include "session.h"

/* Offsets in the checkpoint of small_session (format 5): texts from 16,
 * the numbers, the integers, the thermostat, the snapshot's length, the snapshot. */
enum {
    AT_VERSION = 8,
    AT_TAG = 12,
    AT_FIRST_TEXT = 16,
    AT_NUMBERS = 72,
    AT_INTEGERS = 160,
    AT_THERMOSTAT = 200,
    THERMOSTAT_BYTES = 100,
    AT_EVENT_ROWS = 300,
    AT_SNAPSHOT_LENGTH = 308,
    AT_SNAPSHOT = 316,
    SNAPSHOT_AT_GRID = 252
};

static char path[64];



static unsigned char *read_file(size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = malloc(1 << 16);
    *size = f && b ? fread(b, 1, 1 << 16, f) : 0;
    if (f) fclose(f);
    return b;
}

static void write_file(const unsigned char *b, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, size, f) == size);
    if (f) fclose(f);
}

static carom_world *small_world(void)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){6, 4, 1};
    def.boundary[1] = CAROM_WALLS;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_vec x[3] = {{-2, 0, 0}, {0, 1, 0}, {2, -1, 0}},
              v[3] = {{1, 0.5, 0}, {-0.3, 0.7, 0}, {-1, -0.2, 0}};
    for (int k = 0; k < 3; k++) {
        carom_body_def b = carom_default_body_def();
        b.position = x[k];
        b.velocity = v[k];
        CHECK(carom_world_add_body(w, &b, NULL) == CAROM_OK);
    }
    CHECK(carom_world_run(w, 7.3, -1) == CAROM_OK);
    return w;
}

static session small_session(void)
{
    session s;
    memset(&s, 0, sizeof s);
    CHECK(session_set_text(&s.scenario_path, "base.yaml") == 0);
    CHECK(session_set_text(&s.events_log, "events.csv") == 0);
    CHECK(session_set_text(&s.checkpoint, "base.ckpt") == 0);
    s.seed = 42, s.until = 10.0, s.events = -1, s.every = 0.1, s.checkpoint_every = 0.0;
    s.next_frame = 7.4, s.next_checkpoint = INFINITY, s.kinetic_energy_initial = 1.5;
    s.potential_energy_initial = -0.25, s.frames_written = 3, s.rotational_energy_initial = 0.625;
    s.events_logged = 41;
    return s;
}

/* Writes the small checkpoint to path and returns its bytes. */
static unsigned char *good_checkpoint(size_t *size)
{
    carom_world *w = small_world();
    session s = small_session();
    char error[300] = "";
    CHECK_MSG(checkpoint_write(path, &s, w, error, sizeof error) == 0, "%s", error);
    session_free(&s);
    carom_world_destroy(w);
    return read_file(size);
}

/* Reads path; returns whether it was refused, with the message in error. */
static int refused(char *error, size_t error_size)
{
    session s;
    carom_world *w = NULL;
    int st = checkpoint_read(path, &s, NULL, NULL, &w, error, error_size);
    if (st == 0) {
        session_free(&s);
        carom_world_destroy(w);
        return 0;
    }
    CHECK(w == NULL && s.scenario_path == NULL);
    return 1;
}

static void expect_refused(const unsigned char *b, size_t size, const char *phrase)
{
    char error[600] = "";
    write_file(b, size);
    CHECK(refused(error, sizeof error));
    CHECK_MSG(strstr(error, phrase) != NULL && strstr(error, "byte ") != NULL,
              "message '%s' should name the byte and say '%s'", error, phrase);
}

static void test_round_trip(void)
{
    carom_world *w = small_world();
    session s = small_session(), back;
    char error[300] = "";
    CHECK_MSG(checkpoint_write(path, &s, w, error, sizeof error) == 0, "%s", error);
    carom_world *copy = NULL;
    CHECK_MSG(checkpoint_read(path, &back, NULL, NULL, &copy, error, sizeof error) == 0, "%s",
              error);
    if (!copy) return;
    CHECK(strcmp(back.scenario_path, "base.yaml") == 0 && back.trajectory == NULL &&
          back.stats == NULL);
    CHECK(strcmp(back.events_log, "events.csv") == 0 && strcmp(back.checkpoint, "base.ckpt") == 0);
    CHECK(back.seed == 42 && back.until == 10.0 && back.events == -1 && back.every == 0.1);
    CHECK(back.next_frame == 7.4 && isinf(back.next_checkpoint) &&
          back.kinetic_energy_initial == 1.5);
    CHECK(back.rotational_energy_initial == 0.625);
    CHECK(back.potential_energy_initial == -0.25 && back.frames_written == 3 && back.events_logged == 41 &&
          back.checkpoint_every == 0.0);
    CHECK(carom_world_run(w, 30.0, -1) == CAROM_OK && carom_world_run(copy, 30.0, -1) == CAROM_OK);
    for (int32_t id = 0; id < 3; id++) {
        carom_body_state a, b;
        memset(&a, 0, sizeof a), memset(&b, 0, sizeof b); /* the padding after polygon_vertices */
        CHECK(carom_world_get_body(w, id, &a) == CAROM_OK &&
              carom_world_get_body(copy, id, &b) == CAROM_OK);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
    session_free(&s);
    session_free(&back);
    carom_world_destroy(w);
    carom_world_destroy(copy);
}

/* Format 3: a windowed run's window, its origin, the controls file and the
 * next row to apply come back as written. */
static void test_window_round_trip(void)
{
    carom_world *w = small_world();
    session s = small_session(), back;
    s.window = 0.25, s.window_origin = 0.5, s.controls_next = 7, s.controls_checksum = 0xdeadbeefu;
    CHECK(session_set_text(&s.controls, "moves.csv") == 0);
    char error[300] = "";
    CHECK_MSG(checkpoint_write(path, &s, w, error, sizeof error) == 0, "%s", error);
    carom_world *copy = NULL;
    CHECK_MSG(checkpoint_read(path, &back, NULL, NULL, &copy, error, sizeof error) == 0, "%s",
              error);
    if (copy) {
        CHECK(back.window == 0.25 && back.window_origin == 0.5 && back.controls_next == 7);
        CHECK(back.controls_checksum == 0xdeadbeefu && back.controls &&
              strcmp(back.controls, "moves.csv") == 0);
        session_free(&back);
    }
    session_free(&s);
    carom_world_destroy(w);
    carom_world_destroy(copy);
}

static void test_every_bit_flip_refused(void)
{
    size_t size;
    unsigned char *good = good_checkpoint(&size), *bad = malloc(size);
    int accepted = 0;
    for (size_t bit = 0; bit < 8 * size; bit++) {
        memcpy(bad, good, size);
        bad[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        write_file(bad, size);
        char error[600] = "";
        if (!refused(error, sizeof error))
            accepted++;
        else if (!strstr(error, "byte "))
            CHECK_MSG(0, "bit %zu: '%s' names no byte", bit, error);
    }
    CHECK_EQ_INT(accepted, 0);
    free(good);
    free(bad);
}

static void test_every_truncation_refused(void)
{
    size_t size;
    unsigned char *good = good_checkpoint(&size);
    char error[600];
    for (size_t n = 0; n < size; n++) {
        write_file(good, n);
        CHECK(refused(error, sizeof error));
    }
    unsigned char *longer = calloc(size + 1, 1);
    memcpy(longer, good, size);
    expect_refused(longer, size + 1, "CRC-32C");
    free(longer);
    free(good);
}

static void expect_forged_refused(const unsigned char *good, size_t size, size_t at, uint64_t value,
                                  int bytes, const char *phrase)
{
    unsigned char *bad = malloc(size);
    memcpy(bad, good, size);
    put_le(bad, at, value, bytes);
    reseal_checkpoint_file(bad, size);
    expect_refused(bad, size, phrase);
    free(bad);
}


static void test_forged_fields_refused(void)
{
    size_t size;
    unsigned char *good = good_checkpoint(&size);
    CHECK(memcmp(good + AT_SNAPSHOT, "CAROMSNP", 8) == 0);
    expect_forged_refused(good, size, AT_VERSION, 1, 4,
                          "checkpoint format version 1, this carom reads versions 4 to 6");
    expect_forged_refused(good, size, AT_TAG, 0x04030201u, 4, "byte-order tag");
    expect_forged_refused(good, size, AT_FIRST_TEXT, 0x7fffffff, 4, "scenario path");
    expect_forged_refused(good, size, AT_FIRST_TEXT + 4, 0, 1, "NUL");
    expect_forged_refused(good, size, AT_NUMBERS, bits_of(NAN), 8, "until");
    expect_forged_refused(good, size, AT_NUMBERS + 8, bits_of(-1.0), 8, "every");
    expect_forged_refused(good, size, AT_INTEGERS + 8, (uint64_t)-7, 8, "events");
    expect_forged_refused(good, size, AT_INTEGERS + 16, (uint64_t)1 << 40, 8, "frames written");
    expect_forged_refused(good, size, AT_NUMBERS + 64, bits_of(-0.5), 8, "window");
    expect_forged_refused(good, size, AT_NUMBERS + 72, bits_of(INFINITY), 8, "window origin");
    expect_forged_refused(good, size, AT_NUMBERS + 80, bits_of(-1.0), 8, "initial rotational energy");
    expect_forged_refused(good, size, AT_INTEGERS + 24, (uint64_t)-3, 8, "next controls row");
    expect_forged_refused(good, size, AT_INTEGERS + 32, (uint64_t)1 << 33, 8, "controls checksum");
    expect_forged_refused(good, size, AT_THERMOSTAT, 7, 4, "byte 200 (thermostat kind): 7: expected 0 to 3");
    expect_forged_refused(good, size, AT_EVENT_ROWS, (uint64_t)-2, 8, "byte 300 (event log rows): -2");
    expect_forged_refused(good, size, AT_SNAPSHOT_LENGTH, (uint64_t)1 << 40, 8, "snapshot length");
    expect_forged_refused(good, size, AT_SNAPSHOT_LENGTH, 10, 8, "snapshot length");
    /* damage inside the snapshot, the file's checksum made to match: the snapshot's own refuses it
     */
    expect_forged_refused(good, size, AT_SNAPSHOT + 100, 0x55, 1,
                          "world snapshot, which starts there");
    /* a grid of 65537^2 cells with both checksums made to match: the grid's bound refuses it */
    unsigned char *bad = malloc(size);
    memcpy(bad, good, size);
    size_t snapshot_size = size - AT_SNAPSHOT - 4;
    put_le(bad, AT_SNAPSHOT + SNAPSHOT_AT_GRID, 0x0001000100010001ull, 8);
    put_le(bad, AT_SNAPSHOT + snapshot_size - 4,
           carom_crc32c(0, bad + AT_SNAPSHOT, snapshot_size - 4), 4);
    reseal_checkpoint_file(bad, size);
    expect_refused(bad, size, "snapshot byte 252 (grid cells)");
    free(bad);
    free(good);
}

/* An older file, made from a good one by cutting the fields its version did
 * not have, is still read: format 4 (before the thermostat and the event log's
 * rows) and 5 (before the rows); the rows are then not known (-1). */
static void check_older_format_read(uint32_t version)
{
    size_t size;
    unsigned char *good = good_checkpoint(&size);
    size_t from = version == 4 ? AT_THERMOSTAT : AT_EVENT_ROWS, cut = AT_SNAPSHOT_LENGTH - from;
    size_t old_size = size - cut;
    unsigned char *old = malloc(old_size);
    memcpy(old, good, from);
    memcpy(old + from, good + AT_SNAPSHOT_LENGTH, size - AT_SNAPSHOT_LENGTH);
    put_le(old, AT_VERSION, version, 4);
    reseal_checkpoint_file(old, old_size);
    write_file(old, old_size);
    session s;
    carom_world *w = NULL;
    char error[300] = "";
    CHECK_MSG(checkpoint_read(path, &s, NULL, NULL, &w, error, sizeof error) == 0, "format %u: %s", version, error);
    CHECK(w != NULL && carom_world_body_count(w) > 0 && s.events_logged == -1);
    CHECK(s.thermostat.kind == THERMOSTAT_NONE); /* format 4 has none; this file had none */
    if (w) carom_world_destroy(w);
    session_free(&s);
    free(old);
    free(good);
}

static void test_format_4_read(void) { check_older_format_read(4); }
static void test_format_5_read(void) { check_older_format_read(5); }

/* A file of the first format is refused by its version before anything else. */
static void test_older_format_named(void)
{
    unsigned char old[697] = {'C', 'A', 'R', 'O', 'M', 'C', 'K', 'P', 1, 0, 0, 0};
    expect_refused(
        old, sizeof old,
        "byte 8 (format version): checkpoint format version 1, this carom reads versions 4 to 6");
    unsigned char foreign[16] = "not a checkpoint";
    char error[300] = "";
    write_file(foreign, sizeof foreign);
    CHECK(refused(error, sizeof error) && strstr(error, "not a carom checkpoint"));
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/carom_checkpoint_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) return 1;
    close(fd);
    RUN(test_round_trip);
    RUN(test_window_round_trip);
    RUN(test_every_bit_flip_refused);
    RUN(test_every_truncation_refused);
    RUN(test_forged_fields_refused);
    RUN(test_older_format_named);
    RUN(test_format_4_read);
    RUN(test_format_5_read);
    remove(path);
    return CHECK_SUMMARY();
}
