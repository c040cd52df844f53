/* fuzz_run.c — a scenario from any bytes, read, placed and run: at most 40
 * bodies per group (counts above are lowered, a group read from a file is
 * skipped: fuzz_xyz covers that reader) and at most 2000 events. Beyond not
 * crashing, the run must keep every promise of fuzz_common.h: events at
 * finite times that never go back nor precede the clock, no NaN in any body
 * afterwards, every body in the box; and with restitution 1 at walls and
 * pairs, tangential restitutions -1 or +1 (smooth or perfectly rough), no
 * friction and no gravity along a periodic axis, the energy (kinetic +
 * rotational + potential) is conserved to 1e-9 relative. */
#include "fuzz_common.h"
#include "place.h"
#include "scenario.h"

enum { MAX_GROUP_BODIES = 40, MAX_EVENTS = 2000 };

/* KE + rotational KE + PE less the work done from outside (steered
 * bodies' decisions, controls, kinematic bodies): what is conserved at
 * e = 1 and beta = +-1 (carom.h; without the rotational energy a rough run
 * would seem to lose energy to the spins). */
static double total_energy(const carom_world *w)
{
    carom_stats s = carom_world_stats(w);
    return s.kinetic_energy + s.rotational_energy + s.potential_energy - s.control_work - s.kinematic_work;
}

/* The size of the terms the total energy sums, body by body (kinetic, and
 * |m g.x|): the total itself can be near 0 while they are large (a lattice
 * placed symmetrically about the origin has a potential energy of 0). */
static double energy_scale(const carom_world *w)
{
    carom_world_def def = carom_world_definition(w);
    double scale = 0.0;
    for (int32_t i = 0; i < carom_world_body_count(w); i++) {
        carom_body_state b;
        carom_world_get_body(w, i, &b);
        double v2 = b.velocity.x * b.velocity.x + b.velocity.y * b.velocity.y + b.velocity.z * b.velocity.z;
        double gx = def.gravity.x * b.position.x + def.gravity.y * b.position.y +
                    (def.dim == 3 ? def.gravity.z * b.position.z : 0.0);
        double w2 = b.angular_velocity.x * b.angular_velocity.x + b.angular_velocity.y * b.angular_velocity.y +
                    b.angular_velocity.z * b.angular_velocity.z;
        scale += 0.5 * b.mass * v2 + fabs(b.mass * gx) + (isfinite(b.inertia) ? 0.5 * b.inertia * w2 : 0.0);
    }
    return scale;
}

static void run_scenario(scenario *s)
{
    for (int k = 0; k < s->group_count; k++) {
        if (s->groups[k].file) return;
        if (s->groups[k].count > MAX_GROUP_BODIES) s->groups[k].count = MAX_GROUP_BODIES;
    }
    fuzz_events events;
    double box[3];
    carom_world *w = NULL;
    char error[512] = "";
    if (place_build_world(s, fuzz_on_event, &events, box, &w, error, sizeof error) != 0) {
        PROMISE(w == NULL && error[0] != '\0', "placement refused without a reason");
        return;
    }
    double e0 = total_energy(w), scale = energy_scale(w);
    fuzz_run_and_check(w, &events, s->until, MAX_EVENTS);
    /* along a periodic axis gravity speeds bodies up for ever and the
     * potential -m g.x jumps as they wrap: no energy to conserve there */
    int elastic = s->restitution == 1.0 && s->wall_restitution == 1.0 && fabs(s->tangential_restitution) == 1.0 &&
                  fabs(s->wall_tangential_restitution) == 1.0 && s->friction == 0.0;
    for (int a = 0; a < s->dim; a++)
        if (s->boundary[a] == CAROM_PERIODIC && s->gravity[a] != 0.0) elastic = 0;
    scale = fmax(scale, energy_scale(w));
    if (elastic && isfinite(e0) && isfinite(scale) && scale > 0.0)
        PROMISE(fabs(total_energy(w) - e0) <= 1e-9 * scale, "energy %.17g became %.17g at e = 1 (terms of size %g)",
                e0, total_energy(w), scale);
    carom_world_destroy(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size, ".yaml");
    scenario s;
    char error[512] = "";
    if (scenario_load(path, &s, error, sizeof error) == 0) run_scenario(&s);
    scenario_free(&s);
    return 0;
}
