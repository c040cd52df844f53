/* state_hash.h — FNV-1a (Fowler, Noll, Vo) over a world's body states, for
 * tests that compare whole states bit for bit (golden values, restarts). */
#ifndef CAROM_TESTS_STATE_HASH_H
#define CAROM_TESTS_STATE_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "carom.h"
#include "check.h"

#define FNV1A_OFFSET 0xcbf29ce484222325ULL

static inline uint64_t fnv1a(uint64_t hash, const void *data, size_t size)
{
    const unsigned char *bytes = data;
    for (size_t k = 0; k < size; k++) hash = (hash ^ bytes[k]) * 0x100000001b3ULL;
    return hash;
}

/* Positions and velocities of every body in order, then (if asked) their collision counts. */
static inline uint64_t hash_bodies(uint64_t hash, const carom_world *w, int with_collisions)
{
    for (int32_t i = 0; i < carom_world_body_count(w); i++) {
        carom_body_state s;
        CHECK(carom_world_get_body(w, i, &s) == CAROM_OK);
        hash = fnv1a(hash, &s.position, sizeof s.position);
        hash = fnv1a(hash, &s.velocity, sizeof s.velocity);
        if (with_collisions) hash = fnv1a(hash, &s.collisions, sizeof s.collisions);
    }
    return hash;
}

#endif
