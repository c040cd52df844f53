/* fuzz_run.c — a scenario from any bytes, read, placed and run: at most 40
 * bodies per group (counts above are lowered, a group read from a file is
 * skipped: fuzz_xyz covers that reader) and at most 2000 events. Beyond not
 * crashing, the run must keep every promise of fuzz_common.h: events at
 * finite times that never go back nor precede the clock, no NaN in any body
 * afterwards, every body in the box; and with restitution 1 at walls and
 * pairs and no gravity along a periodic axis, the energy (kinetic +
 * potential) is conserved to 1e-9 relative. */
#include "fuzz_common.h"
#include "place.h"
#include "scenario.h"

enum { MAX_GROUP_BODIES = 40, MAX_EVENTS = 2000 };

static double total_energy(const carom_world *w)
{
    carom_stats s = carom_world_stats(w);
    return s.kinetic_energy + s.potential_energy;
}

static double energy_scale(const carom_world *w)
{
    carom_stats s = carom_world_stats(w);
    return fabs(s.kinetic_energy) + fabs(s.potential_energy);
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
    int elastic = s->restitution == 1.0 && s->wall_restitution == 1.0;
    for (int a = 0; a < s->dim; a++)
        if (s->boundary[a] == CAROM_PERIODIC && s->gravity[a] != 0.0) elastic = 0;
    if (elastic && isfinite(e0) && isfinite(scale) && scale > 0.0)
        PROMISE(fabs(total_energy(w) - e0) <= 1e-9 * scale, "energy %.17g became %.17g at e = 1", e0,
                total_energy(w));
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
