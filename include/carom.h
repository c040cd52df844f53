/* carom.h — the public interface of libcarom, an exact event-driven simulator
 * of hard disks (2D) and hard spheres (3D).
 *
 * Bodies fly freely (straight lines, or parabolas under a uniform field)
 * between collisions. Every pair, wall and cell-crossing event is predicted
 * exactly before it happens and processed in time order, so nothing ever
 * tunnels and runs are bitwise reproducible for a given build and input.
 *
 * Units are the caller's: carom only assumes one consistent set (length L,
 * time T, mass M). Energies are M L^2 / T^2 and Boltzmann's constant is 1, so
 * a "temperature" is an energy per degree of freedom.
 *
 * Conventions: functions that can fail on bad input return a carom_status;
 * the world keeps a one-line message naming the body and the value at fault
 * (carom_world_message). The library never prints, never exits and keeps no
 * global state; asserts guard only against its own bugs.
 */
#ifndef CAROM_H
#define CAROM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CAROM_VERSION_MAJOR 0
#define CAROM_VERSION_MINOR 1
#define CAROM_VERSION_PATCH 0
#define CAROM_VERSION_STRING "0.1.0"

/* A 3-vector. In 2D the z component is ignored on input and zero on output. */
typedef struct carom_vec {
    double x, y, z;
} carom_vec;

/* A 2-vector (polygon vertices). */
typedef struct carom_vec2 {
    double x, y;
} carom_vec2;

/* A rotation as a unit quaternion, in OVITO's order: x, y, z (the vector
 * part, sin(angle/2) times the axis) and w = cos(angle/2). */
typedef struct carom_quat {
    double x, y, z, w;
} carom_quat;

/* The most vertices a polygon body may have. */
#define CAROM_POLYGON_MAX_VERTICES 64

/* The lengths, speeds and accelerations a world takes (in the caller's
 * units): 0, or a magnitude from CAROM_SCALE_MIN to CAROM_SCALE_MAX.
 * Predictions square products of two of them: beyond the top they
 * overflow, below the bottom their squares lose every digit. A number
 * outside is refused with CAROM_INVALID_ARGUMENT. */
#define CAROM_SCALE_MIN 1e-75
#define CAROM_SCALE_MAX 1e75

typedef enum carom_status {
    CAROM_OK = 0,
    CAROM_INVALID_ARGUMENT, /* a NULL pointer, a non-finite or out-of-range number */
    CAROM_OUT_OF_MEMORY,
    CAROM_OUTSIDE_BOX,      /* a body added outside the box (or through a wall) */
    CAROM_OVERLAP,          /* a body added overlapping one already present */
    CAROM_BOX_TOO_SMALL,    /* a periodic side shorter than three cells of the largest diameter */
    /* A body had max_collisions_per_instant events without the clock
     * advancing (or only creeping), or the next event lies beyond 2^32 time
     * scales d / v, where the clock can no longer resolve the motion. */
    CAROM_JAMMED,
    CAROM_NOT_FOUND,        /* a body (or sensor) index that does not exist */
    /* The event callback returned non-zero: the run or window stopped right
     * after that event, with the clock at its time; the world is consistent
     * and can go on. */
    CAROM_STOPPED
} carom_status;

/* A short English name for a status ("ok", "overlap", ...). Never NULL. */
const char *carom_status_name(carom_status status);

typedef enum carom_boundary {
    CAROM_WALLS = 0,   /* hard reflecting walls at -side/2 and +side/2 */
    CAROM_PERIODIC = 1 /* the axis wraps around */
} carom_boundary;

typedef enum carom_event_kind {
    CAROM_EVENT_PAIR = 0, /* two bodies collide */
    CAROM_EVENT_WALL = 1, /* a body bounces off a wall */
    CAROM_EVENT_CELL = 2, /* a body crosses into a neighbouring cell (internal bookkeeping) */
    /* A body comes to rest on a floor (the wall gravity pushes it against): the
     * closed-form end of its Zeno series of inelastic bounces. From then on it
     * touches the floor with no normal velocity or acceleration and slides
     * along it until a collision lifts it. j is the wall. */
    CAROM_EVENT_REST = 3,
    /* A body's centre crosses a sensor (carom_world_add_sensor): i is the
     * body, j the sensor, direction +1 or -1 along the sensor's axis. It
     * changes no motion. */
    CAROM_EVENT_SENSOR = 4
} carom_event_kind;

/* Walls are numbered 2 * axis + side: 0 = x-, 1 = x+, 2 = y-, 3 = y+, 4 = z-, 5 = z+;
 * a bounce off the world's container (carom_world_def.container) is wall 6. */
typedef enum carom_wall {
    CAROM_WALL_X_MINUS = 0,
    CAROM_WALL_X_PLUS = 1,
    CAROM_WALL_Y_MINUS = 2,
    CAROM_WALL_Y_PLUS = 3,
    CAROM_WALL_Z_MINUS = 4,
    CAROM_WALL_Z_PLUS = 5,
    CAROM_WALL_CONTAINER = 6
} carom_wall;

/* One processed collision, as handed to the event callback. */
typedef struct carom_event {
    double time;           /* simulated time of the collision */
    carom_event_kind kind; /* CAROM_EVENT_PAIR, _WALL, _REST or _SENSOR */
    int32_t i;             /* the body (for a pair: the lower index) */
    int32_t j;             /* pair: the higher body index; wall, rest: a carom_wall; sensor: the sensor */
    /* Magnitude of the impulse exchanged (M L / T); 0 for a rest or sensor
     * event, and for a kinematic body bouncing off a wall (its momentum is
     * not defined). */
    double impulse;
    int32_t direction;     /* sensor: +1 if the centre crossed towards +axis, -1 if towards -axis; else 0 */
} carom_event;

/* Called after each pair, wall, rest or sensor event has been applied.
 * Inside the callback the world's clock is the event time and the world may
 * be read (carom_world_get_body, carom_world_stats) but not changed: every
 * setter refuses with CAROM_INVALID_ARGUMENT. Returning non-zero stops the
 * run (or window) right after this event: carom_world_run and
 * carom_world_advance then return CAROM_STOPPED with the clock at the
 * event, and the world can be changed and run on. The frame steppers ignore
 * the value. */
typedef int (*carom_event_callback)(void *user, const carom_event *event);

/* An allocator for everything a world (or a frame stepper) allocates, for
 * embedders that keep their own heaps, count memory or test out-of-memory
 * paths (the idea of Lua's lua_Alloc and Box2D's b2SetAllocator). All
 * members NULL (the default): the C library. Otherwise allocate and release
 * are both required; reallocate may be NULL (then allocate, copy, release).
 *   allocate(user, size): a new block of size > 0 bytes, aligned for any
 *       type (max_align_t), or NULL if out of memory.
 *   reallocate(user, block, old_size, new_size): block resized, contents kept
 *       up to the smaller size, or NULL with block untouched. It must not
 *       fail when new_size <= old_size (as Lua asks of its allocator).
 *   release(user, block, size): frees a block with the size it has now.
 * Blocks are never NULL and sizes never 0 in these calls. Every failure to
 * allocate makes the call return CAROM_OUT_OF_MEMORY and leaves the world as
 * it was before that call (a run keeps the events before the one that could
 * not get memory: see carom_world_run). */
typedef struct carom_allocator {
    void *(*allocate)(void *user, size_t size);
    void *(*reallocate)(void *user, void *block, size_t old_size, size_t new_size);
    void (*release)(void *user, void *block, size_t size);
    void *user;
} carom_allocator;

/* A container: a region given by its signed distance (see "Containers"). */
typedef struct carom_container carom_container;

typedef struct carom_world_def {
    int dim;                     /* 2 or 3 */
    carom_vec box;               /* side lengths (L); the box is centred on the origin */
    carom_boundary boundary[3];  /* per axis; in 2D boundary[2] is ignored */
    carom_vec gravity;           /* uniform acceleration (L/T^2); in 2D gravity.z is ignored */
    double restitution;          /* pair coefficient of restitution, in [0, 1] */
    double wall_restitution;     /* wall coefficient of restitution, in [0, 1] */
    /* Collisions whose normal approach speed is below this (L/T) are treated
     * as elastic. 0 (the default) keeps the pure model; a small value stops
     * inelastic collapse (infinitely many collisions in finite time) for
     * granular matter resting under gravity. */
    double elastic_below_speed;
    /* The TC model against inelastic collapse (Luding & McNamara 1998), T: a
     * pair collision is elastic if either body had a pair collision less than
     * this long before, and so is a wall bounce of a body that had one. It
     * keeps dense, cold granular matter from collapsing (infinitely many
     * collisions in finite time) and changes a dilute gas by nothing
     * measurable when small against the time between collisions. Used only
     * when a restitution is below 1. 0 (the default): chosen at the first run
     * as 0.01 d / v, with d the largest diameter and v^2 = <v^2> + |g| d,
     * |g| the largest of gravity and own accelerations
     * (carom_world_definition then reports it); < 0: off. */
    double collapse_time;
    /* A body having this many events at one instant, with the clock not
     * advancing, means the configuration is jammed (seed 002, 2.1.2): the
     * run stops with CAROM_JAMMED instead of spinning forever. 1 to
     * 16,777,215 (2^24 - 1). */
    int32_t max_collisions_per_instant;
    int32_t capacity_hint;       /* expected number of bodies (0: grow as needed; growing copies the
                                    body arrays, briefly holding the old and the new) */
    /* Neighbour lists with a shell (L): each body lists the bodies that can
     * reach it while it stays within this distance of where the list was
     * made. 0 (the default) picks lists in 3D at packing fractions of 0.35
     * or more, in 2D at area fractions of 0.50 or more, and for mixtures
     * whose largest radius is at least twice the mean, at any size, and
     * cell lists otherwise. In 3D their shell is 0.3 diameters, narrower
     * above packing 0.45 (as the mean free path to the power 3/4: 0.13
     * diameters at 0.60); in 2D it keeps a mean of 10 disks within reach,
     * at most 0.6 diameters (0.60 at 0.52, 0.45 at 0.70); > 0 uses
     * lists with this shell where the box allows it; < 0 uses cell lists only.
     * Gravity always uses cell lists. The choice changes speed, never physics
     * beyond round-off. */
    double neighbour_shell;
    carom_event_callback on_event; /* optional; NULL for none */
    void *user;                  /* passed to on_event */
    carom_allocator allocator;   /* optional; all NULL: the C library */
    /* Optional: the world's boundary is this container instead of the box
     * walls (see "Containers"). The world keeps its own copy, made at
     * creation, so the caller may destroy this one at once. The box must
     * have walls on every axis and hold the container's bounds: it only
     * sizes the cell grid, and its walls are never reached. Bodies bounce off
     * the container with wall_restitution (event wall CAROM_WALL_CONTAINER).
     * carom_world_definition reports the world's copy. NULL: the box. */
    const carom_container *container;
    /* Rotation (see "Spin and shape"). The tangential coefficient of
     * restitution beta of disk and sphere pair collisions, in [-1, 1]: -1 (the
     * default) smooth, spins untouched; +1 perfectly rough; in between the
     * relative tangential velocity of the contact points is reversed and
     * scaled by beta (Huthmann & Zippelius 1997). */
    double tangential_restitution;
    double wall_tangential_restitution; /* the same for disks and spheres against walls and the container */
    /* Coulomb friction coefficient mu >= 0 (INFINITY: always sticks) of every
     * contact that involves a polygon (pairs and walls); 0 (the default):
     * frictionless. Disk and sphere pairs use the tangential restitution. */
    double friction;
} carom_world_def;

/* Defaults: 3D, a 10 x 10 x 10 periodic box, no gravity, elastic (e = 1),
 * elastic_below_speed 0, collapse_time 0 (automatic), max_collisions_per_instant
 * 1000, no callback, the C library's allocator, smooth (tangential
 * restitutions -1) and frictionless. */
carom_world_def carom_default_world_def(void);

typedef struct carom_body_def {
    carom_vec position; /* centre (L), inside the box */
    carom_vec velocity; /* L/T */
    double radius;      /* L, > 0 */
    /* M, > 0; INFINITY makes the body kinematic (see "Driven bodies"). */
    double mass;
    /* The body's own constant acceleration (L/T^2), added to world gravity;
     * carom_world_set_body_acceleration changes it later. */
    carom_vec acceleration;
    /* Rotation and shape (see "Spin and shape"). */
    carom_quat orientation;      /* 3D: a unit quaternion (x y z w); all zero reads as identity. Ignored in 2D */
    double angle;                /* 2D: the orientation angle (radians, counter-clockwise). Ignored in 3D */
    carom_vec angular_velocity;  /* rad/T; in 2D about z only (x and y must be 0) */
    /* Moment of inertia about the centre of mass (M L^2); 0: from shape and
     * mass (solid disk m r^2/2, solid sphere 2 m r^2/5, polygon m J/A with J
     * its polar second moment and A its area); INFINITY for a kinematic body. */
    double inertia;
    /* 2D only: a convex polygon of polygon_vertices vertices (3 to
     * CAROM_POLYGON_MAX_VERTICES, either winding, in the body frame: turned by
     * angle about position). The vertices are shifted so that their centroid
     * is at position (the centre of mass); radius is then ignored (the
     * bounding radius is computed). 0 and NULL: a disk of radius radius. The
     * world keeps its own copy. */
    int32_t polygon_vertices;
    const carom_vec2 *polygon;
} carom_body_def;

/* Defaults: at the origin, at rest, radius 0.5, mass 1, no own acceleration,
 * identity orientation, no spin, inertia from shape, a disk (or sphere). */
carom_body_def carom_default_body_def(void);

/* A body's state at the world's current time. */
typedef struct carom_body_state {
    carom_vec position; /* wrapped into the box on periodic axes */
    carom_vec velocity;
    double radius;
    double mass;         /* INFINITY for a kinematic body */
    uint64_t collisions; /* pair and wall collisions this body took part in */
    carom_vec acceleration; /* the body's own acceleration (without world gravity) */
    carom_quat orientation;     /* now; in 2D the rotation by angle about z */
    double angle;               /* 2D: the orientation angle now (not wrapped); 0 in 3D */
    carom_vec angular_velocity;
    double inertia;             /* INFINITY for a kinematic body */
    int32_t polygon_vertices;   /* 0 for a disk or sphere (carom_world_get_body_polygon gives them) */
} carom_body_state;

typedef struct carom_stats {
    int dim;
    int64_t bodies;
    double time;              /* the world's clock (T) */
    double volume;            /* box volume (L^dim; an area in 2D), or the container's */
    double kinetic_energy;    /* sum of m v^2 / 2 now (free bodies; kinematic ones are left out) */
    /* -sum of m (g + a_i) . x_i now, a_i each body's own acceleration (0
     * without gravity and own accelerations; kinematic bodies left out) */
    double potential_energy;
    double temperature;       /* kT per free degree of freedom now: see below */
    carom_vec momentum;       /* sum of m v now */
    int64_t events;           /* all processed events: pair + wall + cell + rest */
    int64_t pair_events;
    int64_t wall_events;
    int64_t cell_events;      /* cell crossings, or neighbour-list renewals */
    int64_t rest_events;      /* bodies coming to rest on a floor (CAROM_EVENT_REST) */
    int64_t stale_events;     /* predictions found outdated and redone (not counted in events) */
    int64_t predictions;      /* bodies predicted (each a scan of its neighbours, walls and cell) */
    /* Averages over the measuring window, from the last carom_world_reset_stats
     * (or creation) to now: */
    double window;            /* length of the window (T) */
    double mean_temperature;  /* time average of temperature */
    double collision_rate;    /* 2 x pair collisions / (N window): collisions per body per T */
    double pressure;          /* collision virial, see below */
    double compressibility;   /* P V / (N k T_mean) */
    double wall_pressure;     /* momentum given to the walls per unit wall area and time (0 if none,
                                 and 0 with a container, whose boundary area is not known in general) */
    int64_t sensor_events;    /* sensor crossings (CAROM_EVENT_SENSOR) */
    /* Energy put in from outside since creation: by the setters (velocity,
     * acceleration, position: the change of KE + PE each made) and by
     * kinematic bodies (the kinetic energy their impulses gave free bodies).
     * At e = 1, KE + PE - control_work - kinematic_work stays constant. */
    double control_work;
    double kinematic_work;
    /* Rotation: sum of I w^2 / 2 now (free bodies), and the angular momentum
     * about the origin, sum of m x × v + I w (positions wrapped into the box
     * on periodic axes, where it is not conserved). At e = 1 and beta = ±1
     * (frictionless polygons) the total energy KE + rotational + PE is
     * conserved; otherwise the loss per collision has a closed form. */
    double rotational_energy;
    carom_vec angular_momentum;
    /* kT per rotational degree of freedom: 2 rotational_energy / (r N), r = 1
     * in 2D and 3 in 3D (free bodies). */
    double rotational_temperature;
} carom_stats;
/* Temperature: kT = 2 (KE - KE_cm) / (dim N - c), where c counts the axes on
 * which nothing can change the total momentum (periodic, no gravity) and
 * KE_cm = sum over those axes of P_a^2 / (2 M) is the centre of mass's
 * kinetic energy along them. A fully periodic box without gravity has
 * dim (N - 1) degrees of freedom, as LAMMPS counts; a box with walls on every
 * axis has dim N. (A velocity set by carom_world_set_body_velocity changes P:
 * the window's mean then uses P at the time of reading.) 0 when no degree of
 * freedom is left (one body in a periodic box).
 * Pressure from the collision virial (Alder & Wainwright 1960; Allen &
 * Tildesley, "Computer Simulation of Liquids", sec. 2.4 and 3.7):
 *     P V = N k T_mean + W / (dim * window),   W = sum over pair collisions of r_ij . dp_i
 * where r_ij = r_i - r_j at contact and dp_i is the impulse on body i, and
 * compressibility Z = P V / (N k T_mean) = 1 + W / (dim N k T_mean window).
 * It is the bulk pressure of a homogeneous system; with gravity it is only a
 * volume average. */

typedef struct carom_world carom_world;

/* Creates a world. On failure *world is NULL and, if why is not NULL, a
 * one-line reason is written there (at most why_size bytes, NUL-terminated). */
carom_status carom_world_create(const carom_world_def *def, carom_world **world, char *why,
                                size_t why_size);
void carom_world_destroy(carom_world *world);

/* The message of the last failed call on this world ("" if none). */
const char *carom_world_message(const carom_world *world);

/* Adds a body at the world's current time. On success *id (if not NULL) is
 * its index: bodies are numbered 0, 1, 2, ... in the order added. On failure
 * nothing changes and the message names the body and the value. */
carom_status carom_world_add_body(carom_world *world, const carom_body_def *body, int32_t *id);

/* The definition the world was created with (or restored from). */
carom_world_def carom_world_definition(const carom_world *world);

int32_t carom_world_body_count(const carom_world *world);
double carom_world_time(const carom_world *world);

/* Runs until the clock reaches t_end or max_events events (pair, wall,
 * cell, rest and sensor) have been processed, whichever comes first. t_end may be INFINITY if
 * max_events > 0; max_events < 0 means no cap. Returns CAROM_STOPPED when
 * the event callback asked to stop (clock at that event). Returns
 * CAROM_JAMMED (world still usable, clock at the jam) when a jam is detected. Returns
 * CAROM_OUT_OF_MEMORY when an event cannot get the memory it needs: the
 * world is then exactly as a run capped at the events before it would have
 * left it (but for stale predictions redone, which change no future), and
 * the run can be continued. */
carom_status carom_world_run(carom_world *world, double t_end, int64_t max_events);

/* The time of the earliest event scheduled (pair, wall, cell, rest or sensor), or
 * INFINITY when none can ever happen (everything at rest, or nothing left to
 * hit): a run with an event cap and no end time then stops at once. It is a
 * lower bound: a scheduled pair may turn out stale when it comes due. NaN
 * if called from the event callback, or if the world cannot be prepared
 * (out of memory; carom_world_message says why). */
double carom_world_next_event_time(carom_world *world);

/* Reads a body's state at the current time. Does not change the world. */
carom_status carom_world_get_body(const carom_world *world, int32_t id, carom_body_state *state);

/* ======================================================================== */
/* Time windows and driven bodies (seeds 000 and 001)                       */
/* ======================================================================== */
/* A controller (a game's agents, a robot's loop) changes bodies between
 * windows of time and lets the engine run each window exactly:
 *
 *     for (;;) {
 *         ... read bodies, decide, set accelerations / velocities ...
 *         carom_world_advance(world, dt);
 *     }
 *
 * Every setter below works at the world's clock, changes only the body named
 * (and lazily voids the predictions that named it: only that body is
 * predicted again, never the whole world), refuses a bad argument with a
 * status and a message and leaves everything unchanged, and is refused from
 * inside the event callback. Windows that change nothing leave a run bit
 * for bit what one carom_world_run to the same time gives.
 *
 * Own accelerations. Each body flies under world gravity plus its own
 * constant acceleration, so its path between events is a parabola; a pair
 * whose accelerations differ meets at a root of a quartic, found by
 * isolating the roots (never missed: see predict.c). A body with an own
 * acceleration never comes to rest on a floor (no Zeno series, no
 * CAROM_EVENT_REST): it bounces. Pressed against a wall of restitution < 1
 * it would bounce ever lower, infinitely often in finite time; so, by the TC
 * model (collapse_time), a wall bounce less than collapse_time after its
 * previous event is elastic: it keeps hopping, by a height of the order of
 * a t_c^2, at most about once per t_c. (With collapse_time < 0 the run ends
 * in CAROM_JAMMED instead.)
 *
 * Kinematic bodies (mass INFINITY) follow their velocity and own
 * acceleration whatever hits them; world gravity does not act on them.
 *   - A free body hitting one bounces as off an infinitely heavy moving body:
 *     its normal velocity relative to the kinematic body is reversed and
 *     scaled by the restitution; the energy this gives it is counted in
 *     carom_stats.kinematic_work.
 *   - Two kinematic bodies pass through each other (no event).
 *   - A kinematic body meeting a wall bounces off it as a free body would
 *     (the wall is the heavier), with the wall restitution, and keeps its own
 *     acceleration; the event's impulse is 0.
 *   - A free body squeezed between a kinematic body and a wall (or another
 *     kinematic body) collides faster and faster as the gap closes; the jam
 *     guard stops the run with CAROM_JAMMED and a message naming the body,
 *     with the world consistent, rather than spin.
 * Kinematic bodies are left out of the energies, momentum and temperature.
 */

/* Runs every event up to now + dt (dt >= 0, finite) in exact time order and
 * leaves the clock at now + dt. Returns CAROM_STOPPED if the callback asked
 * to stop (clock at that event), CAROM_JAMMED or CAROM_OUT_OF_MEMORY as
 * carom_world_run does. */
carom_status carom_world_advance(carom_world *world, double dt);

/* Changes a body's velocity at the current time; only that body's future is
 * predicted again. */
carom_status carom_world_set_body_velocity(carom_world *world, int32_t id, carom_vec velocity);

/* Sets the body's own constant acceleration from now on (added to world
 * gravity; a kinematic body has only this one). */
carom_status carom_world_set_body_acceleration(carom_world *world, int32_t id, carom_vec acceleration);

/* Moves a body to x now (velocity kept). Refused with CAROM_OUTSIDE_BOX or
 * CAROM_OVERLAP (the message names both bodies) and the world unchanged if
 * it would not fit there. */
carom_status carom_world_set_body_position(carom_world *world, int32_t id, carom_vec position);

/* Sets the body's velocity so that, flying freely with its acceleration, it
 * is at target at now + dt (dt > 0): v = (target - x) / dt - a dt / 2. A
 * kinematic body gets there unless a wall turns it back; a free body may be
 * deflected on the way. */
carom_status carom_world_drive_body(carom_world *world, int32_t id, carom_vec target, double dt);

/* Sensors: a body's centre crossing one is an exact event
 * (CAROM_EVENT_SENSOR) that changes no motion: a goal mouth, a finish line,
 * a counter of flux. A sensor is a piece of the plane x[axis] = position:
 * a segment in 2D, a rectangle in 3D, from lo to hi on the other axes (the
 * components of lo and hi along axis, and z in 2D, are ignored). On a
 * periodic axis, position and extents are read in the box. */
typedef struct carom_sensor_def {
    int axis;        /* 0, 1 or 2 (2 only in 3D): the plane's normal */
    double position; /* the plane's coordinate on that axis, inside the box */
    carom_vec lo, hi; /* extents on the other axes, lo <= hi */
} carom_sensor_def;

/* Defaults: the plane x = 0, over the whole box (lo -INFINITY, hi INFINITY). */
carom_sensor_def carom_default_sensor_def(void);

/* Adds a sensor; *id (if not NULL) gets its index: 0, 1, 2, ... */
carom_status carom_world_add_sensor(carom_world *world, const carom_sensor_def *sensor, int32_t *id);
int32_t carom_world_sensor_count(const carom_world *world);

/* ======================================================================== */
/* Spin and shape: rough disks and spheres, rotating polygons (seed 004)    */
/* ======================================================================== */
/* Every body has an orientation (2D: an angle; 3D: a unit quaternion), an
 * angular velocity and a moment of inertia. Between events a body turns at
 * constant angular velocity (3D: the inertia is isotropic, a scalar, so a
 * free sphere's angular velocity never changes; other inertia tensors are
 * not supported). A world whose bodies never spin and collide smoothly never
 * allocates any of this: it runs as fast as a world without rotation.
 *
 * Rough disks and spheres (tangential_restitution beta > -1): contact times
 * do not depend on spin, and the impulse at a collision couples translation
 * and spin (Huthmann & Zippelius 1997; Luding et al. 1998): with g the
 * relative velocity of the contact points, its normal part is reversed and
 * scaled by e, its tangential part by -beta. The kinetic energy lost, in
 * closed form, is (m/2)(1 - e^2) g_n^2 + (m_t/2)(1 - beta^2) |g_t|^2, with m
 * the reduced mass and m_t = 1 / (1/m + r_1^2/I_1 + r_2^2/I_2). Linear
 * momentum, and angular momentum about any point, are conserved.
 *
 * Convex polygons (2D; polygon_vertices in carom_body_def) mix with disks,
 * walls and convex containers. A polygon's contact times are found by
 * conservative advancement on the distance between the shapes: steps of
 * distance / (a bound on the approach speed, rotation and acceleration
 * included), never one past a contact, until the gap is at most
 * CAROM_CONTACT_TOLERANCE times the pair's size (the sum of bounding radii).
 * No contact is ever skipped, and two shapes never overlap by more than that
 * tolerance. The impulse at the contact point is seed 004's, with both
 * inverse masses and inverse inertias, restitution e and Coulomb friction
 * (friction: sticking or sliding decided in one impulse); two faces meeting
 * flat are pushed through the middle of their overlap, so a box landing flat
 * does not start to spin. Polygons need walls or a convex container (box,
 * rounded box, ball, convex polygon, capsule, or an intersection of those). */
#define CAROM_CONTACT_TOLERANCE 1e-9

/* Changes a body's angular velocity now (2D: z only); counted in
 * control_work like a velocity change. */
carom_status carom_world_set_body_angular_velocity(carom_world *world, int32_t id, carom_vec angular_velocity);

/* A polygon body's vertices now, in the world frame, counter-clockwise:
 * writes min(count, capacity) of them to vertices and their number to
 * *count; a disk or sphere has 0. */
carom_status carom_world_get_body_polygon(const carom_world *world, int32_t id, carom_vec2 *vertices,
                                          int32_t capacity, int32_t *count);

/* ======================================================================== */
/* Containers: shaped boundaries given by a signed distance (seed 003)      */
/* ======================================================================== */
/* A container is a region of space given by its signed distance s(x):
 * positive inside, zero on the boundary, negative outside. carom's shapes
 * (box, rounded box, ball, convex polygon, capsule) and their union,
 * intersection and difference never overstate the distance to the boundary
 * and change by at most |dx| over a step dx (Lipschitz bound 1); a
 * caller's function states its own bound. A body of radius r at x has the
 * clearance s(x) - r: it touches the boundary when that is 0.
 *
 * A container serves twice: as a world's boundary (carom_world_def.container:
 * bodies bounce off it, with exact event times; see carom_world_def), and as
 * what the safety filter keeps steered bodies away from (below). */

typedef enum carom_shape {
    CAROM_SHAPE_BOX = 0,      /* centre, size (side lengths) */
    CAROM_SHAPE_ROUNDED_BOX,  /* centre, size, radius: the box with corners (and, in 3D, edges) rounded,
                                 0 <= radius <= half the smallest side */
    CAROM_SHAPE_BALL,         /* centre, radius: a circle in 2D, a sphere in 3D */
    CAROM_SHAPE_POLYGON,      /* 2D only: vertices, vertex_count >= 3, convex, either winding, not closed
                                 by repeating the first vertex */
    CAROM_SHAPE_CAPSULE,      /* the points within radius of the segment from a to b (a stadium in 2D) */
    CAROM_SHAPE_UNION,        /* first or second: s = max(s1, s2) */
    CAROM_SHAPE_INTERSECTION, /* first and second: s = min(s1, s2) */
    CAROM_SHAPE_DIFFERENCE,   /* first but not second: s = min(s1, -s2) */
    CAROM_SHAPE_FUNCTION      /* the caller's signed distance: distance, user, lipschitz, lower, upper */
} carom_shape;

/* A caller's signed distance at point: positive inside. It must never exceed
 * the true distance to the boundary inside, and must change by at most
 * lipschitz |p - q| between any two points: every guarantee rests on these
 * two. If gradient is not NULL, it gets the gradient of s there (pointing
 * inward, length about 1); a pure function of its arguments. */
typedef double (*carom_distance_fn)(void *user, carom_vec point, carom_vec *gradient);

typedef struct carom_container_def {
    carom_shape shape;
    int dim;                      /* 2 or 3 (composites: that of their parts, which must agree) */
    carom_vec centre;             /* box, rounded box, ball */
    carom_vec size;               /* box, rounded box: side lengths, > 0 */
    double radius;                /* rounded box (corner), ball, capsule; > 0 (rounded box: >= 0) */
    carom_vec a, b;               /* capsule: the segment's ends (a == b: a ball) */
    const carom_vec *vertices;    /* polygon */
    int32_t vertex_count;
    /* Composites: the parts, copied (the caller may destroy them after). */
    const carom_container *first, *second;
    /* Function: the signed distance, its argument, its Lipschitz bound (>= 1:
     * a signed distance cannot change slower than distance), and a box
     * holding the region (lower < upper), which must be finite. */
    carom_distance_fn distance;
    void *user;
    double lipschitz;
    carom_vec lower, upper;
} carom_container_def;

/* Defaults: a 2D ball of radius 1 at the origin. */
carom_container_def carom_default_container_def(void);

/* Creates a container. On failure *container is NULL and why (if not NULL)
 * names the field and what was expected (a polygon that is not convex names
 * the vertex; an intersection or difference that is empty says so). */
carom_status carom_container_create(const carom_container_def *def, carom_container **container, char *why,
                                    size_t why_size);
void carom_container_destroy(carom_container *container);

/* The signed distance at point (z ignored in 2D) and, if gradient is not
 * NULL, its gradient there (unit length for carom's shapes, pointing
 * inward; where two parts meet, that of the part that decides). */
double carom_container_distance(const carom_container *container, carom_vec point, carom_vec *gradient);
int carom_container_dim(const carom_container *container);
/* A box holding the region: lower <= x <= upper for every point inside. */
void carom_container_bounds(const carom_container *container, carom_vec *lower, carom_vec *upper);
/* The region's volume (an area in 2D): exact for single shapes; for
 * composites, to a relative error stated in container.c. */
double carom_container_volume(const carom_container *container);
/* Checks a container's distance where it is sampled (samples points from
 * seed, in its bounds): the Lipschitz bound between sample pairs, gradients
 * against finite differences. CAROM_INVALID_ARGUMENT and why names the
 * first pair of points that breaks it. */
carom_status carom_container_check(const carom_container *container, int64_t samples, uint64_t seed, char *why,
                                   size_t why_size);

/* ======================================================================== */
/* The safety filter: steered bodies that never hit a wall (seed 003)       */
/* ======================================================================== */
/* A player (a person, a controller) asks for an acceleration a_p; the
 * filter returns one of magnitude at most a_max that leaves a_p alone while
 * the body is slow for its clearance s, and brakes only as much as needed
 * once it is not: the braking distance at a_max is v^2 / (2 a_max), so the
 * wall can always be avoided while v < v_max = sqrt(2 a_max s). Above
 * sigma v_max it blends a_p with full braking by the criticality lambda,
 *     a = (1 - lambda) a_p - lambda a_max v / |v|,
 * then rescales a to a_max if it is longer. */

typedef enum carom_filter_law {
    CAROM_FILTER_OFF = 0,     /* the input, clamped to a_max: no protection */
    CAROM_FILTER_NAIVE,       /* full braking once v >= v_max, nothing before (seed 003's first rule) */
    CAROM_FILTER_LINEAR,      /* lambda = (v / v_max - sigma) / (1 - sigma) */
    CAROM_FILTER_QUADRATIC,   /* lambda = (v^2 / v_max^2 - sigma^2) / (1 - sigma^2) */
    CAROM_FILTER_DIRECTIONAL, /* the linear law on the velocity toward the nearest wall only (see filter.c) */
    CAROM_FILTER_BACKUP       /* a closed-form blend of the input with a braking backup controller
                                 (van Wijk, Ames et al. 2025; see filter.c) */
} carom_filter_law;

typedef struct carom_filter_def {
    carom_filter_law law;
    double max_acceleration; /* a_max (L/T^2), > 0 */
    double safety;           /* sigma in [0, 1): below sigma v_max the input passes untouched */
    /* The time (T) each filtered acceleration is held (a window); 0: applied
     * in continuous time. With window > 0 the clearance used carries the
     * margin that keeps the guarantee for a held acceleration (filter.c). */
    double window;
} carom_filter_def;

/* Defaults: the linear law, a_max 1, sigma 0.5, window 0. */
carom_filter_def carom_default_filter_def(void);

typedef struct carom_filter_result {
    carom_vec acceleration; /* to apply: |a| <= a_max, never NaN */
    double criticality;     /* lambda in [0, 1]: 0 leaves the input untouched, 1 is full braking */
    double speed_ratio;     /* v / v_max (with the window's margin); INFINITY when v_max is 0 and v > 0 */
    int acted;              /* 1 if the acceleration differs from the input clamped to a_max
                               (clamping an input longer than a_max alone is not acting) */
} carom_filter_result;

/* The filter as a pure function of one body's clearance (s(x) - r), the
 * gradient of s there (inward), its velocity and the player's input. Below
 * sigma v_max the input is returned bit for bit (clamped to a_max if
 * longer); a corrected acceleration has no component below 1e-75 in
 * magnitude (0 instead: a world refuses such components). CAROM_INVALID_ARGUMENT
 * for a bad def or a NaN argument (result untouched).
 * Driving a world with it yourself (rather than carom_world_set_body_filter,
 * which does all this): pass the clearance less a skin of a few ulps of the
 * positions' scale (carom's own is 2^-36 of it), so that a body held against
 * the wall rests just off it instead of touching it again and again (a
 * contact at clearance 0 with no approach speed, which the jam guard
 * eventually stops). */
carom_status carom_filter_apply(const carom_filter_def *def, double clearance, carom_vec gradient,
                                carom_vec velocity, carom_vec input, carom_filter_result *result);

/* Makes body id steered: from now on its own acceleration (set by
 * carom_world_set_body_acceleration, the player's input) is filtered
 * against the world's container (or box walls) and the other steered
 * bodies, at each window start of carom_world_advance, whenever an output
 * has been held def->window (which must be > 0 here), and again, exactly,
 * inside a window where the body's v / v_max reaches the level at which
 * lambda has grown or fallen by 1/8 (steering.c). def NULL (or law
 * CAROM_FILTER_OFF) makes it unsteered again, with its input as its own
 * acceleration. Refused for a kinematic body. Guaranteed: see README. */
carom_status carom_world_set_body_filter(carom_world *world, int32_t id, const carom_filter_def *def);
/* The filter's last result for body id (CAROM_NOT_FOUND if it is not steered). */
carom_status carom_world_get_body_filter(const carom_world *world, int32_t id, carom_filter_result *result);
/* The least clearance steered body id had on its whole path since the start
 * of the last carom_world_advance (or since it was steered, if later), up to
 * now: not at sampled instants but the minimum of s(x(t)) - r over every
 * flight, each an exact parabola, found by branch and bound on the
 * Lipschitz bound in time: at most 2^-40 of the positions' scale below the
 * true minimum, never above it (a caller's function: its s - r as given;
 * the box walls: the nearest wall's distance less the radius). */
carom_status carom_world_get_least_clearance(const carom_world *world, int32_t id, double *least);

carom_stats carom_world_stats(const carom_world *world);

/* The clock and the event counters of carom_world_stats alone, in O(1):
 * carom_world_stats also sums over every body (energies, momenta), which a
 * loop that runs a few events at a time and checks its progress cannot
 * afford at 10^6 bodies. */
typedef struct carom_counts {
    double time;
    int64_t events;           /* pair + wall + cell + rest + sensor */
    int64_t pair_events, wall_events, cell_events, rest_events, sensor_events;
    int64_t stale_events, predictions;
} carom_counts;
carom_counts carom_world_counts(const carom_world *world);

/* Starts a new measuring window at the current time (counters of events are
 * kept; pressure, collision rate and mean temperature restart). */
void carom_world_reset_stats(carom_world *world);

/* Snapshots: the complete state of a world (bodies with their time stamps,
 * collision counters, scheduled events, cell lists, clock and statistics) as
 * bytes, so that a restored world continues bit for bit as the original
 * would have. The format is carom's own: versioned, little-endian on every
 * machine (with a byte-order tag), its length and a CRC-32C at the end, so
 * any flipped bit is refused; checkpoint files are built on it.
 * carom_world_snapshot_size is 0 if the snapshot would not fit in a size_t. */
size_t carom_world_snapshot_size(const carom_world *world);
/* Writes the snapshot into buffer (size at least carom_world_snapshot_size). */
carom_status carom_world_snapshot(const carom_world *world, void *buffer, size_t size);
/* Creates a world from a snapshot, with on_event/user as its callback. Every
 * field is checked (the checksum, then sizes against the bytes present, then
 * the engine's invariants) before room is made for the bodies. On failure (a
 * damaged, foreign or older snapshot) *world is NULL and why names the field
 * and its byte offset. */
carom_status carom_world_restore(const void *buffer, size_t size, carom_event_callback on_event,
                                 void *user, carom_world **world, char *why, size_t why_size);
/* CRC-32C (Castagnoli; RFC 3720, B.4) of size bytes, continuing from crc (0
 * to start): the checksum snapshots and checkpoint files carry. */
uint32_t carom_crc32c(uint32_t crc, const void *data, size_t size);
/* The same, with the restored world allocating through allocator (NULL:
 * the C library, as carom_world_restore does; an allocator is not part of a
 * snapshot). */
carom_status carom_world_restore_with(const void *buffer, size_t size, const carom_allocator *allocator,
                                      carom_event_callback on_event, void *user, carom_world **world,
                                      char *why, size_t why_size);

/* ======================================================================== */
/* Compression: Lubachevsky-Stillinger growth to dense packings             */
/* ======================================================================== */
/* Every radius grows at the same relative rate, r_i(t) = r_i(0) (1 + rate t),
 * so size ratios are kept, while the bodies fly and collide exactly: a pair
 * meets where |dx + dv t| = (r_i + r_j)(0) (1 + rate (t0 + t)), a quadratic
 * in t, and leaves at the speed of its growing contact plus its approach, so
 * nothing overlaps (Lubachevsky & Stillinger, J. Stat. Phys. 60, 561
 * (1990); Donev, Torquato & Stillinger, J. Comput. Phys. 202, 737 (2005)).
 * Collisions heat the bodies; their kinetic energy is scaled back to the
 * temperature after every N pair collisions. The reduced pressure
 * PV/(NkT) = 1 + W / (d N kT window) is measured over those intervals, and
 * a fast compression jams where it diverges: random close packing, about
 * 0.64 for monodisperse spheres and 0.84 for disks at fast rates (Skoge,
 * Donev, Stillinger & Torquato, Phys. Rev. E 74, 041127 (2006)). */
typedef struct carom_compress_def {
    double rate;            /* the relative growth rate of every radius (1/T), > 0 */
    double target;          /* stop at this packing fraction (0: only at jamming) */
    double max_pressure;    /* stop when PV/(NkT) passes this: jammed (default 1e4) */
    double temperature;     /* kT the velocities are scaled back to (default 1) */
    int64_t max_events;     /* stop after this many events (default 10^9) */
    /* The broad phase: 0 (the default) neighbour lists with a shell of 0.3
     * mean diameters, or cells where a periodic side is too short for them;
     * 0.01 to 2: lists with this shell (in mean diameters); < 0 cells. Every
     * choice finds every contact; only the speed and the rounding differ. */
    double neighbour_shell;
} carom_compress_def;

/* Defaults: rate 0 (to be set), no target, max_pressure 1e4, temperature 1, max_events 10^9, lists. */
carom_compress_def carom_default_compress_def(void);

typedef struct carom_compress_result {
    double packing_fraction; /* reached: the bodies' volume over the box's */
    double pressure;         /* PV/(NkT) over the last interval measured (NaN: none yet) */
    double time;             /* the growth's duration (T) */
    int64_t events;          /* pair, wall and cell events processed */
    int64_t pair_events;
    int reached_target;      /* 1 if it stopped at def->target */
    int jammed;              /* 1 if it stopped at max_pressure */
    int capped;              /* 1 if it stopped at max_events */
    /* 1 if it stopped where the largest body's diameter reached a third of
     * the shortest periodic side, the most a world's cell grid takes, or
     * all but a part in 10^6 of the shortest side between walls */
    int box_limited;
} carom_compress_result;

/* Compresses the bodies of world (disks or spheres, free, with no gravity
 * or own accelerations, in a box with walls or periodic axes; not a
 * container) and makes *compressed: a new world with the same definition
 * (its callback included) and the grown bodies at their final positions and
 * velocities, at time 0, their radii shrunk by 1 part in 10^12 so that no
 * contact overlaps by rounding. world is not changed. On failure *compressed
 * is NULL and why (if not NULL) says why: CAROM_INVALID_ARGUMENT for a bad
 * def or a world it cannot compress, CAROM_BOX_TOO_SMALL if the grown bodies
 * do not fit a world of that box, CAROM_OUT_OF_MEMORY. */
carom_status carom_compress(const carom_world *world, const carom_compress_def *def, carom_world **compressed,
                            carom_compress_result *result, char *why, size_t why_size);

/* A fast, explicit, seedable random number generator: xoshiro256** seeded by
 * splitmix64 (Blackman & Vigna 2018). Same seed, same sequence, everywhere. */
typedef struct carom_rng {
    uint64_t s[4];
} carom_rng;

carom_rng carom_rng_seed(uint64_t seed);
uint64_t carom_rng_next(carom_rng *rng);
double carom_rng_uniform(carom_rng *rng);  /* in [0, 1), 53 random bits */
double carom_rng_normal(carom_rng *rng);   /* standard normal (polar Box-Muller) */

/* ======================================================================== */
/* Frame-based steppers, kept for comparison (seeds 002 and 004)            */
/* ======================================================================== */
/* The same bodies, box, restitution, masses and impulse law as the exact
 * engine, stepped the way most real-time code does it: every body flies for
 * a fixed dt (on its exact straight line or parabola, so every difference
 * comes from the collision handling), then contacts are looked for.
 *
 *   CAROM_FRAME_PLAIN      (seed 002, sec. 2): overlapping pairs and wall
 *       penetrations found at the end of the frame get their impulse where
 *       they are, in repeated passes until a pass applies none (2.1.2), at
 *       most max_passes times; a frame still unresolved then is "jammed".
 *   CAROM_FRAME_BISECTION  (seed 004, "Time of collision"): each overlap found
 *       at the end of the frame is traced back by bisection on the overlap
 *       predicate to its time of impact within eps; collisions are applied
 *       there in time order and the rest of the frame is simulated again.
 *
 * Both find contacts only as overlaps at frame ends, so a pair can still
 * pass right through another between two frames (tunnelling). */

typedef enum carom_frame_method {
    CAROM_FRAME_PLAIN = 0,
    CAROM_FRAME_BISECTION = 1
} carom_frame_method;

/* Do bodies a and b intersect? Both states are at the same instant; b's
 * position is the periodic image nearest a's (it may lie outside the box).
 * Returns nonzero for yes. It may be called at any time within a frame, so
 * it must depend on the two states only. */
typedef int (*carom_overlap_fn)(void *user, const carom_body_state *a, const carom_body_state *b);

typedef struct carom_frame_def {
    carom_frame_method method;
    double dt;          /* frame length (T), > 0 */
    /* Bisection: the time of impact is found within eps (T). 0 (the default)
     * means dt / 2^20. */
    double eps;
    /* 1: every pair is tested each pass, the N^2/2 cost model of seed 002;
     * 0 (the default): only pairs in neighbouring cells of a grid at least
     * one largest diameter wide. Both give bitwise the same result. */
    int all_pairs;
    /* Plain: resolution passes per frame before the frame is declared
     * jammed; bisection: collisions of one body in one frame before it is.
     * Default 100. */
    int32_t max_passes;
    /* The intersection test (NULL, the default: spheres, |x_a - x_b| <
     * r_a + r_b). Pairs are still only tested when their bounding spheres
     * (the radii) overlap, and the impulse acts along the line of centres.
     * Walls always use the radius. */
    carom_overlap_fn overlap;
    void *overlap_user;
    /* Called after each pair or wall impulse, with the time it was applied
     * (plain: the frame end). NULL for none. */
    carom_event_callback on_event;
    void *user;
} carom_frame_def;

/* Defaults: plain, dt = 0.001, eps = 0 (dt / 2^20), the cell grid,
 * max_passes 100, spheres, no callback. */
carom_frame_def carom_default_frame_def(void);

typedef struct carom_frame_stats {
    double time;               /* the stepper's clock (T) */
    int64_t frames;            /* frames stepped */
    int64_t pair_checks;       /* pairs tested for overlap (bisection steps not included) */
    int64_t bisection_steps;   /* overlap tests made by the time-of-impact searches */
    int64_t pair_collisions;   /* pair impulses applied */
    int64_t wall_collisions;   /* wall impulses applied */
    /* Pairs found overlapping but already moving apart, so no impulse: they
     * had passed more than half through each other (seed 002, 2.1.1). */
    int64_t receding_overlaps;
    int64_t passes;            /* plain: resolution passes made, over all frames */
    int64_t jammed_frames;     /* frames left with contacts unresolved (see max_passes) */
    /* Depth of the overlap where each impulse was applied (L): r_i + r_j - d
     * for a pair at distance d, r - (distance from the centre to the wall
     * plane) for a wall; 0 if the impulse came before contact. */
    double max_penetration;
    double mean_penetration;
    double kinetic_energy;     /* sum of m v^2 / 2 now */
    double potential_energy;   /* -sum of m g . x now */
} carom_frame_stats;

typedef struct carom_frame carom_frame;

/* A stepper for the bodies (in id order) of a world def (its allocator
 * included). Unlike a world it
 * accepts overlapping bodies (frame-based code has to live with them); the
 * rest is checked as carom_world_add_body checks it (finite numbers,
 * positive radius and mass, inside the box, periodic sides at least three
 * largest diameters). Bodies fly under world gravity only: an own
 * acceleration, a kinematic body (infinite mass) or a container (box walls
 * only) is refused. The stepper's
 * clock starts at 0. On failure *frame is NULL and why says which body or
 * field is wrong. */
carom_status carom_frame_create(const carom_world_def *world, const carom_body_def *bodies,
                                int32_t count, const carom_frame_def *def, carom_frame **frame,
                                char *why, size_t why_size);
/* A stepper starting from a world's bodies, definition and clock. */
carom_status carom_frame_create_from_world(const carom_world *world, const carom_frame_def *def,
                                           carom_frame **frame, char *why, size_t why_size);
void carom_frame_destroy(carom_frame *frame);

/* The warning of the last jammed frame, or the error of the last failed call ("" if none). */
const char *carom_frame_message(const carom_frame *frame);

/* Runs frames of def.dt. After k frames of def.dt in a row the clock is
 * exactly start + k * dt (no accumulated round-off). Returns CAROM_JAMMED
 * (a warning: every frame was completed and the stepper is usable) if a
 * frame in it was left unresolved; the message names the first. Returns
 * CAROM_OUT_OF_MEMORY if a frame cannot get the memory it needs: the
 * stepper is then as it was after the frames before that one. */
carom_status carom_frame_run(carom_frame *frame, int64_t frames);
/* One frame of length dt (T, > 0), e.g. to change the frame timing. */
carom_status carom_frame_step(carom_frame *frame, double dt);

double carom_frame_time(const carom_frame *frame);
int32_t carom_frame_body_count(const carom_frame *frame);
/* A body's state at the stepper's clock (wrapped into the box on periodic
 * axes; collisions counts pair and wall impulses it took part in). */
carom_status carom_frame_get_body(const carom_frame *frame, int32_t id, carom_body_state *state);
carom_frame_stats carom_frame_get_stats(const carom_frame *frame);

/* Seed 004's search on its own: bodies a and b (states at time 0) fly for
 * dt under gravity (L/T^2); if overlap (NULL: spheres) says they intersect
 * at dt but not at 0, *toi gets a time within eps of the first contact,
 * from below (they do not yet intersect at *toi); if they intersect at 0,
 * *toi = 0; if not at dt, *toi = INFINITY. steps (may be NULL) gets the
 * number of overlap tests made. */
carom_status carom_time_of_impact(const carom_body_state *a, const carom_body_state *b,
                                  carom_vec gravity, double dt, double eps, carom_overlap_fn overlap,
                                  void *user, double *toi, int *steps);

#ifdef __cplusplus
}
#endif

#endif /* CAROM_H */
