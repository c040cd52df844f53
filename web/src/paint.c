/* paint.c — disks into pixels (paint.h).
 *
 * Each disk covers the pixels whose centres lie within its radius, with a
 * one-pixel ramp of coverage at the rim, coverage = clamp(r - d + 1/2, 0, 1)
 * for a pixel centre at distance d (the usual analytic approximation of a
 * disk's area in a pixel), blended over what is there. A pixel buffer
 * rather than a path: a browser without a GPU rasterises a path of 10^4
 * arcs slower than this loop writes them.
 */
#include "paint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rgb {
    float r, g, b;
} rgb;

static float smooth(float a, float b, float x)
{
    float u = (x - a) / (b - a);
    u = u < 0.0f ? 0.0f : u > 1.0f ? 1.0f : u;
    return u * u * (3.0f - 2.0f * u);
}

static rgb mix(rgb p, rgb q, float u) { return (rgb){p.r + (q.r - p.r) * u, p.g + (q.g - p.g) * u, p.b + (q.b - p.b) * u}; }

/* The ramp of draw.js's shader: blue, green, yellow over t in [0, 1]. */
static rgb ramp(float shade)
{
    if (shade < 0.0f) return (rgb){0.86f, 0.10f, 0.10f};
    float t = 0.5f * shade;
    t = t > 1.0f ? 1.0f : t;
    rgb low = mix((rgb){0.16f, 0.33f, 0.75f}, (rgb){0.13f, 0.70f, 0.55f}, smooth(0.0f, 0.5f, t));
    return mix(low, (rgb){0.98f, 0.78f, 0.15f}, smooth(0.5f, 1.0f, t));
}

static void blend(uint8_t *p, rgb c, float a)
{
    p[0] = (uint8_t)(p[0] + (255.0f * c.r - p[0]) * a + 0.5f);
    p[1] = (uint8_t)(p[1] + (255.0f * c.g - p[1]) * a + 0.5f);
    p[2] = (uint8_t)(p[2] + (255.0f * c.b - p[2]) * a + 0.5f);
}

static void paint_disk(paint_buffer *b, float cx, float cy, float r, rgb c)
{
    int32_t x0 = (int32_t)floorf(cx - r - 1.0f), x1 = (int32_t)ceilf(cx + r + 1.0f);
    int32_t y0 = (int32_t)floorf(cy - r - 1.0f), y1 = (int32_t)ceilf(cy + r + 1.0f);
    x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > b->width ? b->width : x1, y1 = y1 > b->height ? b->height : y1;
    for (int32_t y = y0; y < y1; y++)
        for (int32_t x = x0; x < x1; x++) {
            float dx = (float)x + 0.5f - cx, dy = (float)y + 0.5f - cy;
            float cover = r - sqrtf(dx * dx + dy * dy) + 0.5f;
            if (cover > 0.0f) blend(b->pixels + 4 * ((size_t)y * (size_t)b->width + (size_t)x), c, cover > 1.0f ? 1.0f : cover);
        }
}

const uint8_t *paint_disks(paint_buffer *b, const float *disks, int32_t count, double box_width,
                           double box_height, int32_t width, int32_t height)
{
    if (width < 1 || height < 1 || width > 4096 || height > 4096 || !(box_width > 0) || !(box_height > 0))
        return NULL;
    int32_t bytes = 4 * width * height;
    if (bytes > b->capacity) {
        uint8_t *pixels = realloc(b->pixels, (size_t)bytes);
        if (!pixels) return NULL;
        b->pixels = pixels, b->capacity = bytes;
    }
    b->width = width, b->height = height;
    memset(b->pixels, 255, (size_t)bytes);
    float sx = (float)(width / box_width), sy = (float)(height / box_height);
    float half_w = (float)(0.5 * box_width), half_h = (float)(0.5 * box_height);
    for (int32_t k = 0; k < count; k++) {
        const float *d = disks + 4 * k;
        paint_disk(b, (d[0] + half_w) * sx, (half_h - d[1]) * sy, d[2] * sx, ramp(d[3]));
    }
    return b->pixels;
}

void paint_free(paint_buffer *b)
{
    free(b->pixels);
    *b = (paint_buffer){0};
}
