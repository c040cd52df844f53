/* compression.c — a scenario's run.compress (compression.h): checks that
 * the world can be carried over (the compressed world is a new one: the
 * bodies, the definition and the callback go over, sensors and steering
 * would not), then carom_compress. */
#include "compression.h"

#include <stdio.h>

int compression_apply(const scenario *s, carom_world **world, carom_compress_result *result, char *why,
                      size_t why_size)
{
    if (!s->compress.active) return 0;
    const scenario_mark at = s->compress.mark;
    int steered = 0;
    for (int g = 0; g < s->group_count; g++) steered |= s->groups[g].steered;
    if (s->sensor_count > 0 || steered)
        return snprintf(why, why_size, "%s:%d:%d: run.compress makes a new world, to which sensors and steered "
                        "bodies are not carried over (expected neither with compress)", s->path, at.line, at.col), -1;
    carom_compress_def def = carom_default_compress_def();
    def.rate = s->compress.rate, def.target = s->compress.to;
    def.max_pressure = s->compress.max_pressure, def.temperature = s->compress.temperature;
    carom_world *compressed = NULL;
    char reason[512];
    carom_compress_result r;
    if (carom_compress(*world, &def, &compressed, &r, reason, sizeof reason) != CAROM_OK)
        return snprintf(why, why_size, "%s:%d:%d: %s", s->path, at.line, at.col, reason), -1;
    carom_world_destroy(*world);
    *world = compressed;
    if (result) *result = r;
    return 0;
}
