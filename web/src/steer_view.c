/* steer_view.c — the steered ball of seed 003, live (steer_view.h).
 *
 * The ball is a body of a 2D world whose boundary is a carom container
 * (box, circle, rounded box, stadium: signed distances, container.c). The
 * player's keys set its own acceleration; with a filter law on,
 * carom_world_set_body_filter filters it against the container at every
 * window start and, exactly, inside a window (steering.c), so the ball never
 * touches the wall; carom_world_get_least_clearance gives the least
 * clearance over its whole path, not at sampled instants. With the filter
 * off the input (clamped to a_max) drives the ball straight into the wall,
 * where it bounces elastically.
 */
#include "steer_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "carom.h"
#include "web_export.h"

enum { OUTLINE_MAX = 4096 };

static const double ball_radius = 0.04, window = 1.0 / 120.0;

struct steer_view {
    carom_world *world;
    carom_container *container;
    carom_filter_def filter;
    double counters[STEER_COUNTERS];
    float outline[2 * OUTLINE_MAX];
    int status;
    char message[256];
};

static int fail(steer_view *v, carom_status status, const char *why)
{
    v->status = (int)status;
    snprintf(v->message, sizeof v->message, "%s", why);
    return v->status;
}

static carom_container_def shape_def(int32_t shape)
{
    carom_container_def c = carom_default_container_def();
    c.dim = 2;
    if (shape == STEER_CIRCLE) c.shape = CAROM_SHAPE_BALL, c.radius = 0.48;
    else if (shape == STEER_STADIUM)
        c.shape = CAROM_SHAPE_CAPSULE, c.radius = 0.45, c.a = (carom_vec){-0.33, 0, 0},
        c.b = (carom_vec){0.33, 0, 0};
    else {
        c.shape = shape == STEER_ROUNDED ? CAROM_SHAPE_ROUNDED_BOX : CAROM_SHAPE_BOX;
        c.size = (carom_vec){1.56, 0.96, 0.0};
        c.radius = shape == STEER_ROUNDED ? 0.3 : 0.0;
    }
    return c;
}

static int build(steer_view *v, int32_t shape)
{
    char why[256];
    carom_container_def c = shape_def(shape);
    carom_status s = carom_container_create(&c, &v->container, why, sizeof why);
    if (s != CAROM_OK) return fail(v, s, why);
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){1.7, 1.1, 1.0};
    def.boundary[0] = def.boundary[1] = def.boundary[2] = CAROM_WALLS;
    def.container = v->container;
    s = carom_world_create(&def, &v->world, why, sizeof why);
    if (s != CAROM_OK) return fail(v, s, why);
    carom_body_def ball = carom_default_body_def();
    ball.radius = ball_radius;
    s = carom_world_add_body(v->world, &ball, NULL);
    if (s != CAROM_OK) return fail(v, s, carom_world_message(v->world));
    v->counters[STEER_LEAST_CLEARANCE] = carom_container_distance(v->container, ball.position, NULL) - ball_radius;
    return 0;
}

steer_view *WEB_EXPORT(steer_create)(int32_t shape, int32_t law, double a_max, double sigma)
{
    steer_view *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->filter = carom_default_filter_def();
    v->filter.max_acceleration = a_max, v->filter.safety = sigma, v->filter.window = window;
    if (shape < 0 || shape >= STEER_SHAPES) fail(v, CAROM_INVALID_ARGUMENT, "unknown container shape");
    else if (build(v, shape) == 0) steer_set_law(v, law);
    return v;
}

int WEB_EXPORT(steer_status)(const steer_view *v) { return v->status; }
const char *WEB_EXPORT(steer_message)(const steer_view *v) { return v->message; }
const double *WEB_EXPORT(steer_counters)(const steer_view *v) { return v->counters; }
double WEB_EXPORT(steer_radius)(const steer_view *v) { return (void)v, ball_radius; }

int WEB_EXPORT(steer_set_law)(steer_view *v, int32_t law)
{
    if (v->status != 0) return v->status;
    if (law < CAROM_FILTER_OFF || law > CAROM_FILTER_BACKUP) return CAROM_INVALID_ARGUMENT;
    v->filter.law = (carom_filter_law)law;
    carom_status s = carom_world_set_body_filter(v->world, 0, law == CAROM_FILTER_OFF ? NULL : &v->filter);
    return s == CAROM_OK ? 0 : fail(v, s, carom_world_message(v->world));
}

static double clamp_unit(double x) { return !(x >= -1.0) ? -1.0 : x > 1.0 ? 1.0 : x; }

static void read_counters(steer_view *v)
{
    carom_body_state b;
    carom_world_get_body(v->world, 0, &b);
    carom_stats stats = carom_world_stats(v->world);
    double *c = v->counters;
    c[STEER_TIME] = stats.time;
    c[STEER_X] = b.position.x, c[STEER_Y] = b.position.y, c[STEER_VX] = b.velocity.x, c[STEER_VY] = b.velocity.y;
    c[STEER_WALL_HITS] = (double)stats.wall_events;
    c[STEER_CLEARANCE] = carom_container_distance(v->container, b.position, NULL) - ball_radius;
    carom_filter_result r;
    double least = c[STEER_CLEARANCE];
    if (carom_world_get_body_filter(v->world, 0, &r) == CAROM_OK) {
        c[STEER_CRITICALITY] = r.criticality, c[STEER_SPEED_RATIO] = r.speed_ratio, c[STEER_ACTED] = r.acted;
        carom_world_get_least_clearance(v->world, 0, &least);
    } else {
        double v_max = sqrt(2.0 * v->filter.max_acceleration * (c[STEER_CLEARANCE] > 0 ? c[STEER_CLEARANCE] : 0));
        double speed = sqrt(b.velocity.x * b.velocity.x + b.velocity.y * b.velocity.y);
        c[STEER_CRITICALITY] = 0.0, c[STEER_ACTED] = 0.0;
        c[STEER_SPEED_RATIO] = v_max > 0.0 ? speed / v_max : speed > 0.0 ? INFINITY : 0.0;
        if (stats.wall_events > 0) least = 0.0;
    }
    if (least < c[STEER_LEAST_CLEARANCE]) c[STEER_LEAST_CLEARANCE] = least;
}

int WEB_EXPORT(steer_advance)(steer_view *v, double x, double y, double dt)
{
    if (v->status != 0) return v->status;
    if (!(dt > 0.0) || !isfinite(dt)) return CAROM_INVALID_ARGUMENT;
    double a = v->filter.max_acceleration, ax = clamp_unit(x), ay = clamp_unit(y), n = sqrt(ax * ax + ay * ay);
    if (n > 1.0) ax /= n, ay /= n;
    carom_status s = carom_world_set_body_acceleration(v->world, 0, (carom_vec){a * ax, a * ay, 0.0});
    if (s == CAROM_OK) s = carom_world_advance(v->world, dt);
    if (s != CAROM_OK && s != CAROM_JAMMED) return fail(v, s, carom_world_message(v->world));
    read_counters(v);
    return 0;
}

/* The boundary along the ray from the centre at angle: bisection on the
 * signed distance between the centre (inside) and the bounds' corner. */
static double boundary_along(const steer_view *v, double cx, double cy, double reach)
{
    double inside = 0.0, outside = reach;
    for (int k = 0; k < 48; k++) {
        double mid = 0.5 * (inside + outside);
        if (carom_container_distance(v->container, (carom_vec){mid * cx, mid * cy, 0}, NULL) > 0.0) inside = mid;
        else outside = mid;
    }
    return inside;
}

const float *WEB_EXPORT(steer_outline)(steer_view *v, int32_t count)
{
    if (v->status != 0 || count < 3 || count > OUTLINE_MAX) return NULL;
    carom_vec lower, upper;
    carom_container_bounds(v->container, &lower, &upper);
    double reach = 2.0 * (fabs(lower.x) + fabs(lower.y) + fabs(upper.x) + fabs(upper.y));
    for (int32_t k = 0; k < count; k++) {
        double angle = 2.0 * 3.14159265358979323846 * k / count, cx = cos(angle), cy = sin(angle);
        double rho = boundary_along(v, cx, cy, reach);
        v->outline[2 * k] = (float)(rho * cx), v->outline[2 * k + 1] = (float)(rho * cy);
    }
    return v->outline;
}

void WEB_EXPORT(steer_destroy)(steer_view *v)
{
    if (!v) return;
    carom_world_destroy(v->world);
    carom_container_destroy(v->container);
    free(v);
}
