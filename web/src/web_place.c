/* web_place.c — starting states for the page (web_place.h).
 *
 * The disks sit on a lattice of columns x rows cells as near square as the
 * box allows, each jittered inside its cell so that it can never touch a
 * neighbour, and fly at one speed in a random direction. The direction is
 * drawn by rejection in the unit disk and normalised with sqrt only, which
 * IEEE 754 rounds exactly on every platform: the wasm build (wasi-libc)
 * and the native one (glibc) start from the same bits, as their cos and sin
 * would not promise.
 */
#include "web_place.h"

#include "web_export.h"

#include <math.h>
#include <stdio.h>

static int32_t lattice_columns(int32_t n, double width, double height)
{
    int32_t columns = (int32_t)ceil(sqrt((double)n * width / height));
    return columns < 1 ? 1 : columns > n ? n : columns;
}

static int32_t lattice_rows(int32_t n, int32_t columns) { return (n + columns - 1) / columns; }

double WEB_EXPORT(web_max_radius)(int32_t n, double width, double height)
{
    if (n < 1 || !(width > 0.0) || !(height > 0.0)) return 0.0;
    int32_t columns = lattice_columns(n, width, height);
    double dx = width / columns, dy = height / lattice_rows(n, columns);
    return 0.475 * (dx < dy ? dx : dy);
}

static carom_vec random_direction(carom_rng *rng)
{
    for (;;) {
        double x = 2.0 * carom_rng_uniform(rng) - 1.0, y = 2.0 * carom_rng_uniform(rng) - 1.0;
        double r2 = x * x + y * y;
        if (r2 > 1e-4 && r2 <= 1.0) return (carom_vec){x / sqrt(r2), y / sqrt(r2), 0.0};
    }
}

static const char *placement_error(int32_t n, double width, double height, double radius, double speed)
{
    if (n < 1) return "the number of disks must be at least 1";
    if (!isfinite(width) || !isfinite(height) || !(width > 0.0) || !(height > 0.0))
        return "the box sides must be positive and finite";
    if (!isfinite(radius) || !(radius > 0.0)) return "the radius must be positive and finite";
    if (!isfinite(speed) || speed < 0.0) return "the speed must be finite and not negative";
    return NULL;
}

carom_status web_place_disks(int32_t n, double width, double height, double radius, double speed,
                             uint64_t seed, carom_body_def *bodies, char *why, size_t why_size)
{
    const char *error = placement_error(n, width, height, radius, speed);
    double largest = web_max_radius(n, width, height);
    if (!error && radius > largest) {
        snprintf(why, why_size, "radius %.6g is too large for %d disks: at most %.6g", radius, (int)n, largest);
        return CAROM_INVALID_ARGUMENT;
    }
    if (error) {
        snprintf(why, why_size, "%s", error);
        return CAROM_INVALID_ARGUMENT;
    }
    int32_t columns = lattice_columns(n, width, height);
    double dx = width / columns, dy = height / lattice_rows(n, columns);
    double play_x = 0.9 * (0.5 * dx - radius), play_y = 0.9 * (0.5 * dy - radius);
    carom_rng rng = carom_rng_seed(seed);
    for (int32_t k = 0; k < n; k++) {
        carom_body_def b = carom_default_body_def();
        double cx = -0.5 * width + (k % columns + 0.5) * dx, cy = -0.5 * height + (k / columns + 0.5) * dy;
        b.position = (carom_vec){cx + play_x * (2.0 * carom_rng_uniform(&rng) - 1.0),
                                 cy + play_y * (2.0 * carom_rng_uniform(&rng) - 1.0), 0.0};
        carom_vec d = random_direction(&rng);
        b.velocity = (carom_vec){speed * d.x, speed * d.y, 0.0};
        b.radius = radius;
        bodies[k] = b;
    }
    return CAROM_OK;
}

carom_world_def web_box_world_def(int32_t n, double width, double height)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){width, height, 1.0};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = CAROM_WALLS;
    def.capacity_hint = n;
    return def;
}
