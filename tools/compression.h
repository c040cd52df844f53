/* compression.h — a scenario's `run.compress:` (issue 17): the placed
 * bodies grown to a packing fraction or to jamming by carom_compress
 * (Lubachevsky-Stillinger) before the run, as `carom run` and the Python
 * package's World.from_scenario both do. */
#ifndef CAROM_COMPRESSION_H
#define CAROM_COMPRESSION_H

#include <stddef.h>

#include "carom.h"
#include "scenario.h"

/* Replaces *world by its compressed copy when s asks for one (else does
 * nothing); result (if not NULL) says how it went. Returns 0, or -1 with
 * "FILE:LINE:COL: what is wrong" in why and *world unchanged. */
int compression_apply(const scenario *s, carom_world **world, carom_compress_result *result, char *why,
                      size_t why_size);

#endif
