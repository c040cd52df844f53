/* checkpoint.h — checkpoint files: a run's session and its world's snapshot,
 * written whole or not at all (outfile.h). */
#ifndef CAROM_CHECKPOINT_H
#define CAROM_CHECKPOINT_H

#include <stddef.h>

#include "carom.h"
#include "session.h"

/* Returns 0, or -1 with "PATH: what went wrong" in error. */
int checkpoint_write(const char *path, const session *s, const carom_world *world, char *error,
                     size_t error_size);

/* Reads a checkpoint into a session (fields allocated) and a restored world
 * with on_event/user as its callback. Returns 0, or -1 with
 * "PATH: what is wrong" in error. */
int checkpoint_read(const char *path, session *s, carom_event_callback on_event, void *user,
                    carom_world **world, char *error, size_t error_size);

#endif
