/* forge.h — what the tests and fuzz targets of snapshots and checkpoints use
 * to damage them on purpose: little-endian fields read and written whatever
 * the machine, and resealing (the lengths and CRC-32C made right again, as a
 * deliberate forger would), so that only the field checks stand between the
 * damage and the engine. Layouts: src/snapshot.c, tools/checkpoint.c. */
#ifndef CAROM_TESTS_FORGE_H
#define CAROM_TESTS_FORGE_H

#include <stdint.h>
#include <string.h>

#include "carom.h"

/* bytes little-endian bytes of value at b + at (zeros past the eighth). */
static inline void put_le(unsigned char *b, size_t at, uint64_t value, int bytes)
{
    for (int k = 0; k < bytes; k++) b[at + (size_t)k] = (unsigned char)(k < 8 ? value >> (8 * k) : 0);
}

static inline uint64_t get_le(const unsigned char *b, size_t at, int bytes)
{
    uint64_t value = 0;
    for (int k = 0; k < bytes; k++) value |= (uint64_t)b[at + (size_t)k] << (8 * k);
    return value;
}

static inline uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* A snapshot of size bytes: its total length (bytes 16-23) and checksum. */
static inline void reseal_snapshot(unsigned char *snap, size_t size)
{
    if (size < 28) return;
    put_le(snap, 16, size, 8);
    put_le(snap, size - 4, carom_crc32c(0, snap, size - 4), 4);
}

/* A checkpoint file: its own checksum only. */
static inline void reseal_checkpoint_file(unsigned char *file, size_t size)
{
    if (size >= 4) put_le(file, size - 4, carom_crc32c(0, file, size - 4), 4);
}

/* A checkpoint file and the snapshot inside it (found by its magic), with the
 * snapshot's length in front of it. */
static inline void reseal_checkpoint(unsigned char *file, size_t size)
{
    for (size_t at = 8; at + 8 + 4 <= size; at++)
        if (memcmp(file + at, "CAROMSNP", 8) == 0) {
            reseal_snapshot(file + at, size - 4 - at);
            put_le(file, at - 8, size - 4 - at, 8);
            break;
        }
    reseal_checkpoint_file(file, size);
}

#endif
