/* paint.h — disks painted into an RGBA pixel buffer (paint.c), for the
 * page's drawing where the browser has no GPU: the buffer goes to the
 * canvas in one putImageData, straight from wasm memory. */
#ifndef PAINT_H
#define PAINT_H
#include <stdint.h>

typedef struct paint_buffer {
    uint8_t *pixels; /* width * height * 4 bytes, RGBA, rows top to bottom */
    int32_t width, height, capacity;
} paint_buffer;

/* Paints count disks (4 floats each: x, y, radius, colour as in
 * web/draw.js: colour in [0, 2] on the blue-green-yellow ramp, negative
 * red) of a box_width x box_height box centred on the origin onto a white
 * buffer of width x height pixels. Returns the pixels, or NULL if memory
 * ran out or a size is not positive (at most 4096 a side). */
const uint8_t *paint_disks(paint_buffer *buffer, const float *disks, int32_t count, double box_width,
                           double box_height, int32_t width, int32_t height);

void paint_free(paint_buffer *buffer);

#endif
