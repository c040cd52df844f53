/* web_rate.c — the native side of bench/web_rate.sh: seed 002's exact view
 * as the page runs it (web/src/box_view.c: N disks, brought to each frame's
 * instant, 60 frames a simulated second, every disk read each frame),
 * timed natively. bench/web_rate.mjs times the same work in the wasm build
 * under node. Prints "native N collisions seconds rate".
 * Usage: carom_web_rate [N] [SIMULATED_SECONDS]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "box_view.h"
#include "web_place.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10000;
    double seconds = argc > 2 ? atof(argv[2]) : 2.0;
    box_view *v = box_create(n, 1.6, 1.0, 0.7 * web_max_radius(n, 1.6, 1.0), 0.3, 0.02, 2026);
    if (!v || box_status(v) != 0) {
        fprintf(stderr, "carom_web_rate: %s\n", v ? box_message(v) : "out of memory");
        return 1;
    }
    double start = now();
    for (int frame = 1; frame <= (int)(60 * seconds); frame++)
        if (box_advance(v, frame / 60.0, 0) != 0) return 1;
    double elapsed = now() - start, collisions = box_counters(v)[BOX_COLLISIONS_EXACT];
    printf("native %d %.0f %.4f %.0f\n", n, collisions, elapsed, collisions / elapsed);
    box_destroy(v);
    return 0;
}
