/* scenario.h — a carom scenario as read from its YAML file. Parsing checks
 * keys, types and ranges and says where a problem is (FILE:LINE:COL);
 * turning groups into bodies is place.h's job. */
#ifndef CAROM_SCENARIO_H
#define CAROM_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "carom.h"
#include "thermostat.h"

/* The most bodies a scenario may ask for (bodies are numbered by int32_t). */
#define SCENARIO_MAX_BODIES 2147483647

/* Where a value stands in the scenario file (1-based), for messages. */
typedef struct scenario_mark {
    int line, col;
} scenario_mark;

typedef enum { PLACE_RANDOM = 0, PLACE_LATTICE = 1 } scenario_place;
typedef enum { VELOCITY_TEMPERATURE = 0, VELOCITY_SPEED = 1 } scenario_velocity;

/* One entry of `bodies:`: either generated bodies or bodies from a file. */
typedef struct scenario_group {
    scenario_mark mark;      /* the start of the group (its first key, or its "{") */
    char *file;              /* `file:` extended XYZ path as written (NULL: generated) */
    char *file_resolved;     /* the same, relative to the scenario's directory */
    int64_t count;           /* `count:` 1 to SCENARIO_MAX_BODIES in all groups (-1 if absent) */
    double radius;           /* `radius:` (default 0.5) */
    double mass;             /* `mass:` (default 1.0; `.inf` INFINITY: kinematic bodies) */
    double acceleration[3];  /* `acceleration:` the bodies' own, [ax, ay(, az)] (default 0) */
    scenario_place place;    /* `place:` random (default) | lattice */
    scenario_velocity velocity;  /* `velocity: {temperature: T}` (default, T = 1) or `{speed: S}` */
    double velocity_value;
    double packing_fraction; /* `packing_fraction:` (0 if absent) */
    char *name;              /* `name:` the species written for these bodies (NULL: default) */
    int64_t frame;           /* `frame:` which frame of `file:` (0 first, -1 last; default 0) */
    /* `steer: {law: L, max_acceleration: A, safety: S}`: the group's bodies
     * are steered (carom_world_set_body_filter) with this filter; its window
     * is run.window. steered = 0 if absent. */
    int steered;
    carom_filter_def filter;
    /* Spin and shape (issue 14). `shape:` (2D only) {polygon: [[x, y], ..]},
     * {box: [w, h]} or {regular: {sides: n, radius: r}}: polygon_vertices
     * vertices in the body frame, as written (box: centred on the origin;
     * regular: one edge at the bottom, parallel to x, vertices on the circle
     * of radius r); 0 and NULL for a disk or sphere of `radius`. The core
     * checked the polygon when the scenario was read, and gave its bounding
     * radius (about the centroid) and area. */
    int32_t polygon_vertices;
    carom_vec2 *polygon;
    double bounding_radius, polygon_area;
    /* `orientation:` 2D an angle (radians), 3D a unit quaternion [x, y, z, w]
     * (default 0 / identity), or `random` (random_orientation = 1): uniform
     * from the run's seed (place.c). Generated groups only. */
    int random_orientation;
    double angle;
    carom_quat orientation;
    double angular_velocity[3]; /* `angular_velocity:` 2D a number (about z), 3D [wx, wy, wz] (default 0) */
    double inertia;             /* `inertia:` > 0 or .inf (default 0: from shape and mass) */
    scenario_mark count_mark, packing_mark, file_mark, radius_mark, frame_mark, mass_mark, steer_mark;
    scenario_mark shape_mark, orientation_mark, angular_velocity_mark, inertia_mark;
} scenario_group;

/* One entry of `world.sensors:` {axis: x|y|z, at: X, from: [..], to: [..]}:
 * the piece of the plane coordinate[axis] = at between from and to on the
 * other axes (in order: y, z for x; x, z for y; x, y for z). */
typedef struct scenario_sensor {
    int axis;                /* 0, 1, 2 */
    double at;
    double from[2], to[2];   /* on the other axes (default: the whole box, -/+INFINITY) */
    scenario_mark mark, at_mark, from_mark, to_mark;
} scenario_sensor;

/* `analysis:` observables at exact instants (tools/analysis.h); active = 0 if absent. */
typedef struct scenario_analysis {
    int active;
    char *output;            /* `output:` the files' common prefix (required) */
    double every;            /* `every:` the interval of samples (0: run.until / 100, or 1) */
    double start;            /* `start:` the first sample (NAN: run.equilibrate, else the run's start) */
    double rdf_max;          /* `rdf: {max: R, bins: B}`: g(r) up to R (0: off) */
    int64_t rdf_bins;        /* (default 200) */
    double sk_max;           /* `structure_factor: {max: K}`: S(k) up to |k| = K (0: off) */
    int64_t msd_lags;        /* `msd: {lags: L}`: MSD and VACF up to L samples apart (0: off) */
    int64_t flight_bins;     /* `flights: {bins: B}`: free times and paths, collisions per species pair (0: off) */
    scenario_mark mark, output_mark, every_mark, start_mark, rdf_mark, sk_mark, msd_mark, flights_mark;
} scenario_analysis;

/* `run.compress:` Lubachevsky-Stillinger growth before the run (carom_compress); active = 0 if absent. */
typedef struct scenario_compress {
    int active;
    double to;               /* `to:` the packing fraction to stop at (0: jamming) */
    double rate;             /* `rate:` relative growth rate of the radii (required) */
    double max_pressure;     /* `pressure:` PV/NkT at which it is jammed (default 1e4) */
    double temperature;      /* `temperature:` kT the velocities are held at (default 1) */
    scenario_mark mark;
} scenario_compress;

typedef struct scenario {
    char *path;              /* the scenario file, as given */
    /* world: */
    int dim;                 /* `dim:` 2 or 3 (default 3) */
    double box[3];           /* `box:` side lengths; has_box = 0 if absent */
    int has_box;
    carom_boundary boundary[3]; /* `boundary:` walls | periodic | [a, b(, c)] (default periodic) */
    double gravity[3];       /* `gravity:` (default 0) */
    double restitution;      /* `restitution:` in [0, 1] (default 1) */
    double wall_restitution; /* `wall_restitution:` in [0, 1] (default 1) */
    double tangential_restitution;      /* `tangential_restitution:` in [-1, 1] (default -1: smooth) */
    double wall_tangential_restitution; /* `wall_tangential_restitution:` in [-1, 1] (default -1) */
    double friction;                    /* `friction:` >= 0 or .inf (default 0) */
    double elastic_below_speed; /* `elastic_below_speed:` >= 0 (default 0) */
    double collapse_time;       /* `collapse_time:` the TC model's time (default 0: automatic; < 0: off) */
    double neighbour_shell;     /* `neighbour_shell:` (default 0: automatic; < 0: cell lists) */
    uint64_t seed;           /* `seed:` (default 1) */
    scenario_group *groups;  /* `bodies:` */
    int group_count;
    scenario_sensor *sensors; /* `world.sensors:` */
    int sensor_count;
    /* `world.container:` the world's boundary (shape.h), built; NULL if
     * absent. With one, the box defaults to the container's bounds
     * enlarged (place.c) and the boundary to walls. */
    carom_container *container;
    int has_boundary;        /* `boundary:` was given */
    /* run: */
    double until;            /* `until:` simulated time (INFINITY if absent) */
    int64_t events;          /* `events:` cap on events (-1 if absent) */
    double equilibrate;      /* `equilibrate:` the measuring window starts at this time (0 if absent) */
    double window;           /* `window:` run in windows of this length (0 if absent: one run) */
    scenario_compress compress; /* `compress:` */
    char *controls;          /* `controls:` CSV of accelerations, as written (NULL if absent) */
    char *controls_resolved; /* the same, relative to the scenario's directory */
    /* output: (NULL when absent or empty) */
    char *trajectory;        /* extended XYZ frames */
    double every;            /* frame interval (default: until / 100, or 1 if until is absent) */
    int has_every;
    char *events_log;        /* CSV event log */
    char *stats;             /* JSON statistics ("-" for standard output) */
    char *checkpoint;        /* checkpoint file */
    double checkpoint_every; /* 0: only at the end */
    scenario_mark every_mark, checkpoint_every_mark; /* where output.every and checkpoint_every are (line 0: absent) */
    scenario_analysis analysis; /* `analysis:` */
    /* `thermostat:` one of andersen: {temperature, rate}, rescale:
     * {temperature, every}, drive: {kick, rate} (settings only; kind NONE if absent) */
    thermostat thermostat;
    scenario_mark thermostat_mark;
    scenario_mark box_mark, bodies_mark, dim_mark, controls_mark, container_mark, boundary_mark, window_mark;
} scenario;

/* The defaults above, with no groups. */
void scenario_init(scenario *s);

/* Reads a scenario. On failure returns -1 and writes
 * "FILE:LINE:COL: what is wrong (what was expected)" to error. */
int scenario_load(const char *path, scenario *s, char *error, size_t error_size);
void scenario_free(scenario *s);

#endif
