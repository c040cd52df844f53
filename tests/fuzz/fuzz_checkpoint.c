/* fuzz_checkpoint.c — the checkpoint reader (tools/checkpoint.c: the session
 * and the snapshot) on any bytes: refuse naming the file, or give a session
 * in range and a world that runs (at most 500 events) keeping every promise
 * of fuzz_common.h. */
#include "checkpoint.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    reseal_checkpoint(copy, size);
    const char *path = fuzz_input_file(copy, size, ".ckpt");
    free(copy);
    session s;
    memset(&s, 0, sizeof s);
    fuzz_events events;
    carom_world *w = NULL;
    char error[512] = "";
    if (checkpoint_read(path, &s, fuzz_on_event, &events, &w, error, sizeof error) != 0) {
        PROMISE(w == NULL && strncmp(error, path, strlen(path)) == 0, "a refusal that does not name the file: %s",
                error);
        session_free(&s);
        return 0;
    }
    PROMISE(s.until == INFINITY || (isfinite(s.until) && s.until > 0.0), "until %g", s.until);
    PROMISE(s.events >= -1, "events %lld", (long long)s.events);
    fuzz_run_and_check(w, &events, INFINITY, 500);
    carom_world_destroy(w);
    session_free(&s);
    return 0;
}
