/* measure.c — observables of the hard-body system.
 *
 * Temperature counts the degrees of freedom the dynamics leaves free. On an
 * axis that is periodic and has no gravity, no wall or field can change the
 * total momentum, so the centre of mass moves uniformly and takes no part in
 * the thermal motion: such an axis removes one degree of freedom and its
 * centre-of-mass kinetic energy P_a^2 / 2M is not thermal. So
 *     kT = 2 (KE - sum over conserved axes of P_a^2 / 2M) / (dim N - c),
 * c the number of conserved axes: dim (N - 1) in a fully periodic box, as
 * LAMMPS counts (compute temp), dim N with walls. This is also the
 * temperature of the relative motion that collisions sample: with sum v = 0,
 * <|v_i - v_j|^2> = 2 dim kT / m exactly for equal masses.
 *
 * Pressure comes from the collision virial (Alder & Wainwright, J. Chem.
 * Phys. 33, 1439 (1960); Allen & Tildesley, "Computer Simulation of Liquids",
 * 2nd ed., sec. 3.7.3):
 *     P V = N k T_mean + W / (dim * window),   W = sum over collisions of r_ij . dp_i,
 * with T_mean the time average of the temperature above, and
 * Z = P V / (N k T_mean) = 1 + W / (dim N k T_mean window). The time average
 * of KE is exact: between collisions a body's kinetic energy is
 * m |v + g s|^2 / 2, whose integral over a flight of length u is
 *     m/2 (|v|^2 u + (v.g) u^2 + |g|^2 u^3 / 3),
 * added whenever a body is brought forward. The centre-of-mass energy on
 * conserved axes is constant, so its time integral is that energy times the
 * window.
 */
#include "measure.h"

#include <math.h>
#include <string.h>

#include "motion.h"
#include "world.h"

void measure_open_window(measure *m, double now)
{
    m->window_start = now;
    m->window_pairs = 0;
    m->virial = 0.0;
    m->wall_impulse = 0.0;
    m->kinetic_integral = 0.0;
}

/* Integral of m |v + g s|^2 / 2 for s from s0 to s1. */
static double flight_kinetic_integral(const double v[3], double mass, const double g[3],
                                      int has_gravity, double s0, double s1)
{
    double vv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if (!has_gravity) return 0.5 * mass * vv * (s1 - s0);
    double vg = v[0] * g[0] + v[1] * g[1] + v[2] * g[2];
    double gg = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
    double at1 = vv * s1 + vg * s1 * s1 + gg * s1 * s1 * s1 / 3.0;
    double at0 = vv * s0 + vg * s0 * s0 + gg * s0 * s0 * s0 / 3.0;
    return 0.5 * mass * (at1 - at0);
}

void measure_flight(measure *m, const body_hot *b, double mass, const double g[3],
                    int has_gravity, double t)
{
    double from = b->t > m->window_start ? b->t : m->window_start;
    if (t <= from || !(mass < INFINITY)) return; /* kinematic bodies are left out */
    m->kinetic_integral +=
        flight_kinetic_integral(b->v, mass, g, has_gravity, from - b->t, t - b->t);
}

/* x wrapped into the box on periodic axes, as carom_world_get_body reports it. */
static void reported_position(const carom_world *w, const double x_now[3], double x[3])
{
    for (int a = 0; a < 3; a++) {
        x[a] = x_now[a];
        if (!w->periodic[a]) continue;
        if (x[a] >= w->half[a]) x[a] -= w->side[a];
        else if (x[a] < -w->half[a]) x[a] += w->side[a];
    }
}

/* The spin part of the angular momentum of the body in slot, I w, added to
 * l, and its rotational energy I w^2 / 2 to *rotation (an infinite inertia is
 * left out). */
static void add_spin(const carom_world *w, int32_t slot, double l[3], double *rotation)
{
    if (!(w->spin.inertia[slot] < INFINITY)) return;
    *rotation += spin_energy(w, slot);
    for (int a = 0; a < 3; a++) l[a] += w->spin.inertia[slot] * w->spin.state[slot].omega[a];
}

/* Instantaneous sums over all bodies at the world's clock, rotation included
 * (one pass: each body's state is found once). */
static void add_instant_sums(const carom_world *w, carom_stats *s, double *open_integral,
                             double *total_mass)
{
    double ke = 0.0, pe = 0.0, p[3] = {0.0, 0.0, 0.0}, mass = 0.0, l[3] = {0.0, 0.0, 0.0}, rotation = 0.0;
    measure open = w->meas;
    open.kinetic_integral = 0.0;
    for (int32_t id = 0; id < w->count; id++) { /* in id order: the same sums whatever the layout */
        int32_t i = w->slot_of[id];
        const body_hot *b = &w->hot[i];
        double x[3], v[3], field[3], m = world_mass(w, i);
        if (drive_is_kinematic(m)) continue; /* left out: infinite energy and momentum */
        const double *g = motion_gravity(w, i);
        motion_state_at(b, g, w->has_gravity, w->clock, x, v);
        if (w->drive.on) drive_potential_field(w, id, field);
        else field[0] = w->gravity[0], field[1] = w->gravity[1], field[2] = w->gravity[2];
        ke += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        pe -= m * (field[0] * x[0] + field[1] * x[1] + field[2] * x[2]);
        for (int a = 0; a < 3; a++) p[a] += m * v[a];
        double r[3]; /* angular momentum about the origin: m r x v + I w */
        reported_position(w, x, r);
        l[0] += m * (r[1] * v[2] - r[2] * v[1]);
        l[1] += m * (r[2] * v[0] - r[0] * v[2]);
        l[2] += m * (r[0] * v[1] - r[1] * v[0]);
        if (w->spin.on) add_spin(w, i, l, &rotation);
        mass += m;
        measure_flight(&open, b, m, g, w->has_gravity, w->clock);
    }
    s->kinetic_energy = ke;
    s->potential_energy = pe;
    s->momentum = (carom_vec){p[0], p[1], p[2]};
    s->angular_momentum = (carom_vec){l[0], l[1], l[2]};
    s->rotational_energy = rotation;
    double rotations = (w->dim == 2 ? 1.0 : 3.0) * (double)(w->count - w->drive.kinematic); /* free bodies */
    s->rotational_temperature = rotations > 0.0 ? 2.0 * rotation / rotations : 0.0;
    *open_integral = open.kinetic_integral;
    *total_mass = mass;
}

/* Can nothing change the total momentum along axis a? Periodic, no gravity,
 * and no driven bodies (own accelerations and kinematic pushes change it). */
static int conserved_axis(const carom_world *w, int a)
{
    return w->periodic[a] && w->gravity[a] == 0.0 && !w->drive.on;
}

static int conserved_axes(const carom_world *w)
{
    int c = 0;
    for (int a = 0; a < w->dim; a++) c += conserved_axis(w, a);
    return c;
}

/* The kinetic energy of the centre of mass along the conserved axes. */
static double drift_energy(const carom_world *w, const carom_stats *s, double total_mass)
{
    if (!(total_mass > 0.0)) return 0.0;
    double p[3] = {s->momentum.x, s->momentum.y, s->momentum.z}, pp = 0.0;
    for (int a = 0; a < w->dim; a++)
        if (conserved_axis(w, a)) pp += p[a] * p[a];
    return pp / (2.0 * total_mass);
}

static double wall_area(const carom_world *w)
{
    if (w->container) return 0.0; /* its boundary's area is not known in general: no wall pressure */
    double area = 0.0;
    for (int a = 0; a < w->dim; a++) {
        if (w->periodic[a]) continue;
        double face = 1.0;
        for (int o = 0; o < w->dim; o++)
            if (o != a) face *= w->side[o];
        area += 2.0 * face;
    }
    return area;
}

carom_counts carom_world_counts(const carom_world *w)
{
    carom_counts c;
    memset(&c, 0, sizeof c);
    if (!w) return c;
    const measure *m = &w->meas;
    c.time = w->clock;
    c.pair_events = m->pair_events, c.wall_events = m->wall_events, c.cell_events = m->cell_events;
    c.rest_events = m->rest_events, c.sensor_events = m->sensor_events;
    c.events = m->pair_events + m->wall_events + m->cell_events + m->rest_events + m->sensor_events;
    c.stale_events = m->stale_events, c.predictions = m->predictions;
    return c;
}

carom_stats carom_world_stats(const carom_world *w)
{
    carom_stats s;
    memset(&s, 0, sizeof s);
    if (!w) return s;
    const measure *m = &w->meas;
    double open_integral, total_mass, n = (double)(w->count - w->drive.kinematic); /* free bodies */
    double freedom = (double)w->dim * n - conserved_axes(w);
    s.dim = w->dim;
    s.bodies = w->count;
    s.time = w->clock;
    s.volume = w->side[0] * w->side[1] * (w->dim == 3 ? w->side[2] : 1.0);
    if (w->container) /* found at the first run, or now if there was none */
        s.volume = w->container_volume >= 0.0 ? w->container_volume : carom_container_volume(w->container);
    add_instant_sums(w, &s, &open_integral, &total_mass);
    double drift = drift_energy(w, &s, total_mass);
    s.temperature = freedom > 0 ? 2.0 * (s.kinetic_energy - drift) / freedom : 0.0;
    carom_counts counts = carom_world_counts(w);
    s.pair_events = counts.pair_events;
    s.wall_events = counts.wall_events;
    s.cell_events = counts.cell_events;
    s.stale_events = counts.stale_events;
    s.rest_events = counts.rest_events;
    s.sensor_events = counts.sensor_events;
    s.events = counts.events;
    s.predictions = counts.predictions;
    s.control_work = m->control_work;
    s.kinematic_work = m->kinematic_work;
    s.window = w->clock - m->window_start;
    double thermal_integral = m->kinetic_integral + open_integral - drift * s.window;
    if (s.window > 0.0 && n > 0) {
        double d = (double)w->dim;
        s.mean_temperature = freedom > 0 ? 2.0 * thermal_integral / (freedom * s.window) : 0.0;
        s.collision_rate = 2.0 * (double)m->window_pairs / (n * s.window);
        double kinetic_part = d * n * s.mean_temperature * s.window; /* dim N kT_mean window */
        s.pressure = (kinetic_part + m->virial) / (d * s.volume * s.window);
        s.compressibility = kinetic_part > 0.0 ? 1.0 + m->virial / kinetic_part : 0.0;
        double area = wall_area(w);
        s.wall_pressure = area > 0.0 ? m->wall_impulse / (area * s.window) : 0.0;
    }
    return s;
}

void carom_world_reset_stats(carom_world *w)
{
    if (!w) return;
    /* Flights that began before now count only from the window start on. */
    measure_open_window(&w->meas, w->clock);
}
