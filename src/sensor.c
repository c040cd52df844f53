/* sensor.c — sensor planes (a goal mouth, a finish line, a flux counter).
 *
 * A sensor is a piece of an axis-aligned plane x[axis] = at. A body's centre
 * on its parabola x(s) = x + v s + g s^2 / 2 crosses the plane where the
 * quadratic g/2 s^2 + v s + (x - at) vanishes with a non-zero slope; the
 * roots come from the cancellation-free form q = -(v + sign(v) sqrt(disc)) / 2,
 * roots q / A and C / q (Press et al., Numerical Recipes, 5.6). A root where
 * the slope is zero (the centre only touches the plane and turns back) is no
 * crossing. The crossing counts if the centre is then within the extents.
 *
 * Crossings are events of the body that crosses, taken in the same total
 * order as collisions; they do not bring the body forward (its stored
 * motion is untouched, so a run with sensors makes the same collisions as
 * one without), and the body's last crossing time keeps a crossing from
 * being offered twice.
 */
#include "sensor.h"

#include <math.h>

#include "memory.h"
#include "motion.h"
#include "schedule.h"
#include "world.h"

static const char axis_name[3] = {'x', 'y', 'z'};

/* The roots of A s^2 + B s + C in ascending order; returns how many (0-2). */
static int plane_roots(double A, double B, double C, double root[2])
{
    if (A == 0.0) {
        if (B == 0.0) return 0;
        root[0] = -C / B;
        return 1;
    }
    double disc = B * B - 4.0 * A * C;
    if (!(disc > 0.0)) return 0; /* no crossing, or only a touch */
    double q = -0.5 * (B + copysign(sqrt(disc), B));
    double r0 = q / A, r1 = q != 0.0 ? C / q : -r0;
    root[0] = fmin(r0, r1);
    root[1] = fmax(r0, r1);
    return 2;
}

/* Is the centre (at s after the stamp) within the sensor's extents? */
static int within_extents(const carom_world *w, const sensor_plane *p, const body_hot *b, const double g[3],
                          double s)
{
    for (int a = 0; a < w->dim; a++) {
        if (a == p->axis) continue;
        double x = b->x[a] + b->v[a] * s + 0.5 * g[a] * s * s;
        if (w->periodic[a]) x -= w->side[a] * floor((x + w->half[a]) / w->side[a]);
        if (!(x >= p->lo[a] && x <= p->hi[a])) return 0;
    }
    return 1;
}

/* The earliest crossing of plane p (one periodic image, at + shift) after
 * the body's last crossing (the plane's own crossings at that time count
 * only if it comes after the last sensor crossed), relative to the body's
 * stamp; INFINITY if none. (Compared as absolute times: the very sum the
 * event is filed at.) */
static double plane_crossing(const carom_world *w, const sensor_plane *p, const body_hot *b, const double g[3],
                             double shift, sensor_mark last, int same_instant_ok, int *upwards)
{
    int a = p->axis;
    double root[2];
    int n = plane_roots(0.5 * g[a], b->v[a], b->x[a] - (p->at + shift), root);
    for (int k = 0; k < n; k++) {
        double s = root[k], slope = b->v[a] + g[a] * s;
        double t = b->t + s;
        if (!(s >= 0.0 && (t > last.time || (t == last.time && same_instant_ok))) || slope == 0.0 || !isfinite(s))
            continue;
        if (!within_extents(w, p, b, g, s)) continue;
        *upwards = slope > 0.0;
        return s;
    }
    return INFINITY;
}

double sensor_next_crossing(const carom_world *w, int32_t i, int32_t *sensor, int *upwards)
{
    const body_hot *b = &w->hot[i];
    const double *g = motion_gravity(w, i);
    double best = INFINITY;
    sensor_mark last = w->sense.last[w->id_of[i]];
    *sensor = -1;
    *upwards = 0;
    for (int32_t k = 0; k < w->sense.count; k++) {
        const sensor_plane *p = &w->sense.plane[k];
        int images = w->periodic[p->axis] ? 1 : 0;
        for (int image = -images; image <= images; image++) {
            int up = 0;
            double s = plane_crossing(w, p, b, g, image * w->side[p->axis], last, k > last.sensor, &up);
            if (s < best) best = s, *sensor = k, *upwards = up;
        }
    }
    return b->t + best;
}

carom_status sensor_check(carom_world *w, const carom_sensor_def *def)
{
    int32_t id = w->sense.count;
    if (!(def->axis >= 0 && def->axis < w->dim))
        return world_fail(w, CAROM_INVALID_ARGUMENT, "sensor %d: axis = %d: expected 0 to %d", (int)id, def->axis,
                          w->dim - 1);
    int a = def->axis;
    if (!(isfinite(def->position) && fabs(def->position) <= w->half[a] && world_in_scale(def->position)))
        return world_fail(w, CAROM_INVALID_ARGUMENT,
                          "sensor %d: position = %g: expected a plane inside the box, |%c| <= %g", (int)id,
                          def->position, axis_name[a], w->half[a]);
    const double lo[3] = {def->lo.x, def->lo.y, def->lo.z}, hi[3] = {def->hi.x, def->hi.y, def->hi.z};
    for (int o = 0; o < w->dim; o++) {
        if (o == a) continue;
        if (isnan(lo[o]) || isnan(hi[o]) || !(lo[o] <= hi[o]))
            return world_fail(w, CAROM_INVALID_ARGUMENT,
                              "sensor %d: extent on %c from %g to %g: expected numbers with lo <= hi", (int)id,
                              axis_name[o], lo[o], hi[o]);
    }
    return CAROM_OK;
}

int sensor_reserve(carom_world *w, int32_t needed)
{
    sensors *s = &w->sense;
    if (needed <= s->capacity) return 0;
    int32_t capacity = s->capacity > 0 ? s->capacity : 4;
    while (capacity < needed) capacity = capacity > INT32_MAX / 2 ? INT32_MAX : 2 * capacity;
    memory_array arrays[2] = {{(void **)&s->plane, (size_t)s->capacity * sizeof *s->plane,
                               (size_t)capacity * sizeof *s->plane, 0},
                              {(void **)&s->last, 0, (size_t)w->capacity * sizeof *s->last, 0}};
    int first = s->capacity == 0;
    if (memory_grow_together(&w->def.allocator, arrays, first && w->capacity > 0 ? 2 : 1) != 0) return -1;
    if (first)
        for (int32_t id = 0; id < w->count; id++) s->last[id] = (sensor_mark){-INFINITY, -1};
    s->capacity = capacity;
    return 0;
}

carom_sensor_def carom_default_sensor_def(void)
{
    carom_sensor_def d = {0, 0.0, {-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, INFINITY}};
    return d;
}

carom_status carom_world_add_sensor(carom_world *w, const carom_sensor_def *def, int32_t *id)
{
    if (!w) return CAROM_INVALID_ARGUMENT;
    if (!def) return world_fail(w, CAROM_INVALID_ARGUMENT, "sensor %d: the sensor def is NULL", (int)w->sense.count);
    if (w->in_callback)
        return world_fail(w, CAROM_INVALID_ARGUMENT, "sensor %d: cannot add sensors from the event callback",
                          (int)w->sense.count);
    if (w->sense.count == INT32_MAX)
        return world_fail(w, CAROM_OUT_OF_MEMORY, "sensor %d: too many sensors", (int)w->sense.count);
    carom_status st = sensor_check(w, def);
    if (st != CAROM_OK) return st;
    if (sensor_reserve(w, w->sense.count + 1) != 0)
        return world_fail(w, CAROM_OUT_OF_MEMORY, "sensor %d: out of memory", (int)w->sense.count);
    sensor_plane *p = &w->sense.plane[w->sense.count];
    const double lo[3] = {def->lo.x, def->lo.y, def->lo.z}, hi[3] = {def->hi.x, def->hi.y, def->hi.z};
    p->axis = def->axis;
    p->at = def->position;
    for (int a = 0; a < 3; a++) p->lo[a] = lo[a], p->hi[a] = hi[a];
    if (id) *id = w->sense.count;
    w->sense.count++;
    /* every body may now cross it first: each is predicted again */
    if (!w->needs_rebuild)
        for (int32_t i = 0; i < w->count; i++) schedule_body(w, i);
    return CAROM_OK;
}

int32_t carom_world_sensor_count(const carom_world *w) { return w ? w->sense.count : 0; }

void sensor_free(carom_world *w)
{
    sensors *s = &w->sense;
    if (s->capacity == 0) return;
    memory_free(&w->def.allocator, s->plane, (size_t)s->capacity * sizeof *s->plane);
    s->plane = NULL, s->capacity = 0, s->count = 0;
}
