/* trace_native.c — runs trace_run (web/src/trace.c) in the native build and
 * prints every number as "section index hex-bits", the format of
 * tests/web/trace.mjs (the wasm build under node), so that
 * tests/test_wasm.sh can diff the two. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "trace.h"

int main(void)
{
    clock_t started = clock();
    trace *t = trace_run();
    double seconds = (double)(clock() - started) / CLOCKS_PER_SEC;
    if (!t) {
        fprintf(stderr, "trace_run: out of memory\n");
        return 1;
    }
    int32_t count = trace_count(t), seen[256] = {0};
    const double *values = trace_values(t);
    const uint8_t *sections = trace_sections(t);
    for (int32_t k = 0; k < count; k++) {
        uint64_t bits;
        memcpy(&bits, &values[k], sizeof bits);
        printf("%s %d %016" PRIx64 "\n", trace_section_name(sections[k]), (int)seen[sections[k]]++, bits);
    }
    printf("status %d\n", trace_status(t));
    fprintf(stderr, "native trace: %d numbers in %.3f s\n", (int)count, seconds);
    trace_destroy(t);
    return 0;
}
