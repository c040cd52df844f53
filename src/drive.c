/* drive.c — driven bodies (seeds 000 and 001: agents under control).
 *
 * A body may carry its own constant acceleration, added to world gravity,
 * which a controller changes between time windows; its path between events
 * stays a parabola, so every event is still exact (a pair whose
 * accelerations differ meets at a root of a quartic: predict.c). A
 * kinematic body (mass INFINITY) follows its own velocity and acceleration
 * whatever hits it, as Box2D's kinematic bodies do; free bodies bounce off it
 * as off an infinitely heavy moving body (collide.c, with inverse masses).
 *
 * The arrays exist once some body needs them, so a world of plain bodies
 * never reads them (DESIGN.md, "Growing the body record"): motion_gravity
 * (motion.h) returns a driven body's total acceleration from here, any other
 * body's from world gravity less its resting axes (settle.c). Driven bodies
 * never rest on a floor: they bounce.
 */
#include "drive.h"

#include <string.h>

#include "memory.h"
#include "world.h"

int drive_enable(carom_world *w)
{
    drive *d = &w->drive;
    if (d->on) return 0;
    if (world_own_stamps(w, w->count) != 0) return -1; /* kinematic bodies collide without a change of stamp */
    size_t n = (size_t)w->capacity;
    memory_array arrays[3] = {{(void **)&d->own, 0, memory_bytes(n, 3 * sizeof *d->own), 0},
                              {(void **)&d->total, 0, memory_bytes(n, 3 * sizeof *d->total), 0},
                              {(void **)&d->moved, 0, memory_bytes(n, sizeof *d->moved), 0}};
    if (n > 0 && memory_grow_together(&w->def.allocator, arrays, 3) != 0) return -1;
    for (int32_t id = 0; id < w->count; id++) {
        const double zero[3] = {0.0, 0.0, 0.0};
        drive_new_body(w, id, zero);
    }
    d->on = 1;
    w->has_gravity = 1; /* the general kernels from now on */
    return 0;
}

/* The total acceleration and class of body id from its own acceleration and mass. */
static void refresh(carom_world *w, int32_t id, double mass)
{
    drive *d = &w->drive;
    const double *own = &d->own[3 * id];
    int kinematic = drive_is_kinematic(mass);
    for (int a = 0; a < 3; a++) d->total[3 * id + a] = kinematic ? own[a] : w->gravity[a] + own[a];
    d->moved[id] = (uint8_t)(kinematic || own[0] != 0.0 || own[1] != 0.0 || own[2] != 0.0);
}

void drive_new_body(carom_world *w, int32_t id, const double a[3])
{
    for (int k = 0; k < 3; k++) w->drive.own[3 * id + k] = k < w->dim ? a[k] : 0.0;
    refresh(w, id, world_mass(w, w->slot_of[id]));
}

void drive_set(carom_world *w, int32_t i, const double a[3])
{
    drive_new_body(w, w->id_of[i], a);
}

void drive_potential_field(const carom_world *w, int32_t id, double field[3])
{
    for (int a = 0; a < 3; a++) field[a] = w->gravity[a] + (w->drive.on ? w->drive.own[3 * id + a] : 0.0);
}
