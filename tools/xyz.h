/* xyz.h — extended XYZ frames (the format OVITO and ASE read):
 *   N
 *   Lattice="Lx 0.0 0.0 0.0 Ly 0.0 0.0 0.0 Lz" Origin="-Lx/2 -Ly/2 -Lz/2" Properties=XYZ_PROPERTIES Time=t pbc="T T F"
 *   S x y z vx vy vz m r px py pz m        (N lines)
 * S is the body's species (its group's name, default XYZ_DEFAULT_SPECIES).
 * Positions are in carom's frame (the box centred on the origin, which
 * Origin= states, so the cell drawn by OVITO holds the bodies); velo and
 * mass are the columns OVITO maps, momenta (m v) and masses the ones ASE
 * maps (get_velocities() is momenta / masses). 2D writes z = 0, Lz = 1.
 * Numbers are written with 17 significant digits so a frame read back
 * reproduces the state bit for bit.
 * A world with rotation (some body turned, spinning or a polygon, or a rough
 * world: see xyz_world_rotates) adds XYZ_SPIN_PROPERTIES, the orientation
 * as a unit quaternion in OVITO's order x y z w (2D: the rotation about z)
 * and the angular velocity omega (2D: 0 0 wz); a 2D world also writes the
 * angle, the exact 2D state (the quaternion alone would not give back its
 * bits, nor the turns beyond one). Polygon shapes are not written: a group
 * read from a file takes its shape from the scenario. */
#ifndef CAROM_XYZ_H
#define CAROM_XYZ_H

#include <stdint.h>
#include <stdio.h>

#include "carom.h"

#define XYZ_PROPERTIES \
    "species:S:1:pos:R:3:velo:R:3:mass:R:1:radius:R:1:momenta:R:3:masses:R:1"
#define XYZ_SPIN_PROPERTIES ":orientation:R:4:omega:R:3"
#define XYZ_ANGLE_PROPERTY ":angle:R:1"
#define XYZ_DEFAULT_SPECIES "X"
#define XYZ_SPECIES_MAX 32 /* characters in a species name */
#define XYZ_SPECIES_KINDS 64 /* species a frame names; bodies of further species read as index -1 */

typedef struct xyz_frame {
    int32_t count;
    /* position, velocity, radius, mass; orientation, angle and
     * angular_velocity if their columns are there (else identity and 0);
     * collisions, inertia and polygon_vertices unused */
    carom_body_state *bodies;
    int has_orientation, has_angle, has_omega; /* which rotation columns the frame has */
    double lattice[3];        /* box sides from Lattice= (diagonal); 0 if absent */
    int has_lattice;
    int lattice_line, lattice_col; /* where Lattice's value starts, for messages */
    double origin[3];         /* Origin= (or cell_origin=): the cell's corner; 0 if absent */
    int has_origin;
    double time;              /* Time= (0 if absent) */
    int periodic[3];          /* pbc="T T F": which axes wrap (all 0 if absent) */
    int has_pbc;
    /* The species column (Properties' species:S:1, or plain XYZ's first
     * column): each body's index into species_names, in order of first
     * appearance, or -1 past XYZ_SPECIES_KINDS of them; NULL without the column. */
    int32_t *species;
    int32_t species_kinds;
    char species_names[XYZ_SPECIES_KINDS][XYZ_SPECIES_MAX + 1];
    int64_t first_body_line;  /* the line of the frame's first body, for messages */
    int64_t frames_in_file;   /* set when a frame past the end was asked for */
} xyz_frame;

/* Whether a species name is one carom writes: 1 to XYZ_SPECIES_MAX
 * characters, each a letter, digit, '_', '-', '+' or '.'. */
int xyz_species_valid(const char *name);

/* Whether the world has rotation to write: some body is turned (angle or
 * orientation not the identity), spins or is a polygon, or the world is
 * rough (a tangential restitution above -1) or has friction. */
int xyz_world_rotates(const carom_world *world);

/* Writes one frame of the world's current state. species lists the bodies'
 * species in index order as "NAME COUNT NAME COUNT ..." (bodies past the
 * listed counts, or all with species NULL, are XYZ_DEFAULT_SPECIES).
 * Returns 0, or -1 on a write error. */
int xyz_write_frame(FILE *out, const carom_world *world, int dim, const double box[3],
                    const int periodic[3], const char *species);

/* Reads frame `index` of a file: 0 the first, k the (k+1)-th, -1 the last,
 * -k the k-th from the end. Properties may come in any order; pos (or
 * positions) is required. Velocity: velo, vel, velocities or velocity (at
 * most one of them); without one, momenta / mass; without either, 0.
 * Rotation: orientation (x y z w), omega (or angular_velocity) and angle,
 * each optional (has_orientation, has_omega, has_angle say which came). Mass:
 * mass or masses (both: they must be equal), else default_mass. Radius:
 * radius, else default_radius. Other columns are skipped, except one whose
 * name looks like a column carom reads (within edit distance 1 of it, or 2
 * for names of 6 letters or more: veloc, radiuss), which is refused.
 * With a Lattice, positions are moved so that the cell's centre (Origin +
 * Lattice / 2; Origin 0 if absent, as in ASE) is at 0, carom's frame; a
 * file carom wrote has Origin = -Lattice / 2, so nothing moves and the
 * positions keep their bits. Without a Lattice positions are carom's as
 * written. Returns 0; or -1 with "FILE:LINE:COL: what is wrong (what was
 * expected)" in error; or -2 (also with a message) if the file has fewer
 * frames than index asks, with frame->frames_in_file set. */
int xyz_read_frame(const char *path, int64_t index, double default_radius, double default_mass,
                   xyz_frame *frame, char *error, size_t error_size);
/* The first frame: xyz_read_frame with index 0. */
int xyz_read_file(const char *path, double default_radius, double default_mass, xyz_frame *frame,
                  char *error, size_t error_size);
void xyz_frame_free(xyz_frame *frame);

#endif
