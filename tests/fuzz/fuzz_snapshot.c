/* fuzz_snapshot.c — carom_world_restore on any bytes (resealed: see
 * reseal_snapshot): refuse (naming the byte), or give a world that runs
 * (at most 500 events) keeping every promise of fuzz_common.h. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_events events;
    carom_world *w = NULL;
    char why[256] = "";
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    reseal_snapshot(copy, size);
    carom_status st = carom_world_restore(copy, size, fuzz_on_event, &events, &w, why, sizeof why);
    free(copy);
    if (st != CAROM_OK) {
        PROMISE(w == NULL && why[0] != '\0', "a refusal without a reason (%s)", carom_status_name(st));
        return 0;
    }
    fuzz_run_and_check(w, &events, INFINITY, 500);
    carom_world_destroy(w);
    return 0;
}
