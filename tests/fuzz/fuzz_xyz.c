/* fuzz_xyz.c — the extended XYZ reader (tools/xyz.c) on any bytes: refuse
 * with FILE:LINE:COL and what was expected, or give bodies whose numbers are
 * all finite, with radius > 0, mass > 0 (finite, or inf: a kinematic body,
 * which the format keeps as mass inf) and a lattice > 0 when there is one. */
#include "fuzz_common.h"
#include "xyz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size, ".xyz");
    xyz_frame frame;
    memset(&frame, 0, sizeof frame);
    char error[512] = "";
    if (xyz_read_file(path, 0.5, 1.0, &frame, error, sizeof error) != 0) {
        PROMISE(strncmp(error, path, strlen(path)) == 0, "a refusal that does not name the file: %s", error);
        xyz_frame_free(&frame);
        return 0;
    }
    PROMISE(frame.count >= 0 && (frame.count == 0 || frame.bodies), "count %d", (int)frame.count);
    PROMISE(isfinite(frame.time), "Time %g", frame.time);
    for (int a = 0; a < 3 && frame.has_lattice; a++)
        PROMISE(isfinite(frame.lattice[a]) && frame.lattice[a] > 0.0, "Lattice %g", frame.lattice[a]);
    for (int32_t i = 0; i < frame.count; i++) {
        const carom_body_state *b = &frame.bodies[i];
        PROMISE(fuzz_finite3(b->position) && fuzz_finite3(b->velocity), "body %d", (int)i);
        PROMISE(isfinite(b->radius) && b->radius > 0.0, "body %d: radius %g", (int)i, b->radius);
        PROMISE(b->mass > 0.0 && (isfinite(b->mass) || b->mass == INFINITY), "body %d: mass %g", (int)i, b->mass);
    }
    xyz_frame_free(&frame);
    return 0;
}
