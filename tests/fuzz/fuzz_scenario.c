/* fuzz_scenario.c — the scenario reader (tools/scenario.c) on any bytes:
 * it must refuse or accept without a crash, a leak or undefined behaviour,
 * and whatever it accepts must lie in the documented ranges (README's
 * scenario reference: dim 2 or 3, sides > 0, restitutions in [0, 1], ...). */
#include "fuzz_common.h"
#include "scenario.h"

/* Spin and shape (issue 14): a polygon only in 2D, of 3 to 64 finite
 * vertices with a bounding radius and area > 0; an orientation of unit
 * length (3D) or a finite angle; finite spins; inertia 0 (from the shape),
 * > 0 or infinite. */
static void check_group_spin(const scenario_group *g, int dim)
{
    PROMISE(g->polygon_vertices == 0 || (dim == 2 && g->polygon_vertices >= 3 &&
                                         g->polygon_vertices <= CAROM_POLYGON_MAX_VERTICES && g->polygon),
            "%d polygon vertices in %dD", (int)g->polygon_vertices, dim);
    for (int k = 0; k < g->polygon_vertices; k++)
        PROMISE(isfinite(g->polygon[k].x) && isfinite(g->polygon[k].y), "vertex %d", k);
    PROMISE(g->polygon_vertices == 0 || (g->bounding_radius > 0.0 && g->polygon_area > 0.0),
            "bounding radius %g, area %g", g->bounding_radius, g->polygon_area);
    const carom_quat q = g->orientation;
    PROMISE(isfinite(g->angle) && fabs(sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w) - 1.0) <= 1e-6,
            "orientation %g (%g %g %g %g)", g->angle, q.x, q.y, q.z, q.w);
    for (int a = 0; a < 3; a++) PROMISE(isfinite(g->angular_velocity[a]), "angular_velocity %g", g->angular_velocity[a]);
    PROMISE(dim == 3 || (g->angular_velocity[0] == 0.0 && g->angular_velocity[1] == 0.0), "2D spin about x or y");
    PROMISE(g->inertia == 0.0 || g->inertia > 0.0, "inertia %g", g->inertia);
}

static void check_group(const scenario_group *g)
{
    PROMISE((g->file != NULL) != (g->count >= 0), "a group with count %lld and file %s", (long long)g->count,
            g->file ? g->file : "(none)");
    PROMISE(g->count == -1 || g->count >= 1, "count %lld", (long long)g->count);
    PROMISE(isfinite(g->radius) && g->radius > 0.0, "radius %g", g->radius);
    PROMISE(g->mass > 0.0 && (isfinite(g->mass) || g->file || g->velocity == VELOCITY_SPEED), "mass %g", g->mass);
    for (int a = 0; a < 3; a++) PROMISE(isfinite(g->acceleration[a]), "acceleration %g", g->acceleration[a]);
    PROMISE(g->place == PLACE_RANDOM || g->place == PLACE_LATTICE, "place %d", (int)g->place);
    PROMISE(g->velocity == VELOCITY_TEMPERATURE || g->velocity == VELOCITY_SPEED, "velocity %d", (int)g->velocity);
    PROMISE(isfinite(g->velocity_value) && g->velocity_value >= 0.0, "velocity value %g", g->velocity_value);
    PROMISE(g->packing_fraction == 0.0 || (g->packing_fraction > 0.0 && g->packing_fraction < 1.0),
            "packing_fraction %g", g->packing_fraction);
}

static void check_scenario(const scenario *s)
{
    PROMISE(s->dim == 2 || s->dim == 3, "dim %d", s->dim);
    for (int a = 0; a < s->dim; a++) {
        PROMISE(!s->has_box || (isfinite(s->box[a]) && s->box[a] > 0.0), "box %g", s->box[a]);
        PROMISE(s->boundary[a] == CAROM_WALLS || s->boundary[a] == CAROM_PERIODIC, "boundary %d", (int)s->boundary[a]);
        PROMISE(isfinite(s->gravity[a]), "gravity %g", s->gravity[a]);
    }
    PROMISE(s->restitution >= 0.0 && s->restitution <= 1.0, "restitution %g", s->restitution);
    PROMISE(s->wall_restitution >= 0.0 && s->wall_restitution <= 1.0, "wall_restitution %g", s->wall_restitution);
    PROMISE(isfinite(s->elastic_below_speed) && s->elastic_below_speed >= 0.0, "elastic_below_speed %g",
            s->elastic_below_speed);
    PROMISE(s->tangential_restitution >= -1.0 && s->tangential_restitution <= 1.0 &&
                s->wall_tangential_restitution >= -1.0 && s->wall_tangential_restitution <= 1.0,
            "tangential restitutions %g, %g", s->tangential_restitution, s->wall_tangential_restitution);
    PROMISE(s->friction >= 0.0, "friction %g", s->friction);
    PROMISE(isfinite(s->neighbour_shell), "neighbour_shell %g", s->neighbour_shell);
    PROMISE(s->group_count >= 1 && s->groups, "%d groups", s->group_count);
    for (int k = 0; k < s->sensor_count; k++) {
        const scenario_sensor *sensor = &s->sensors[k];
        PROMISE(sensor->axis >= 0 && sensor->axis < s->dim && isfinite(sensor->at), "sensor axis %d at %g",
                sensor->axis, sensor->at);
        for (int j = 0; j < s->dim - 1; j++)
            PROMISE(!isnan(sensor->from[j]) && sensor->from[j] <= sensor->to[j], "sensor from %g to %g",
                    sensor->from[j], sensor->to[j]);
    }
    PROMISE(s->window == 0.0 || (isfinite(s->window) && s->window > 0.0), "window %g", s->window);
    PROMISE(!s->controls || (s->window > 0.0 && s->controls_resolved), "controls without a window");
    for (int k = 0; k < s->group_count; k++) check_group(&s->groups[k]), check_group_spin(&s->groups[k], s->dim);
    PROMISE(s->until == INFINITY || (isfinite(s->until) && s->until > 0.0), "until %g", s->until);
    PROMISE(s->events == -1 || s->events >= 1, "events %lld", (long long)s->events);
    PROMISE(!s->has_every || (isfinite(s->every) && s->every > 0.0), "every %g", s->every);
    PROMISE(s->checkpoint_every == 0.0 || (isfinite(s->checkpoint_every) && s->checkpoint_every > 0.0),
            "checkpoint_every %g", s->checkpoint_every);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size, ".yaml");
    scenario s;
    char error[512] = "";
    if (scenario_load(path, &s, error, sizeof error) == 0) check_scenario(&s);
    else {
        int line = 0, col = 0;
        size_t n = strlen(path);
        PROMISE(strncmp(error, path, n) == 0 && sscanf(error + n, ":%d:%d: ", &line, &col) == 2 && line >= 1 &&
                    col >= 1,
                "a refusal that does not say where (FILE:LINE:COL): %s", error);
    }
    scenario_free(&s);
    return 0;
}
