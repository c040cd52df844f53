/* xyz.h — extended XYZ frames (the format OVITO and ASE read):
 *   N
 *   Lattice="Lx 0 0 0 Ly 0 0 0 Lz" Properties=species:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1 Time=t pbc="T T F"
 *   B x y z vx vy vz r m        (N lines)
 * Positions are in carom's frame (box centred on the origin); 2D writes z = 0
 * and Lz = 1. Numbers are written with 17 significant digits so a frame read
 * back reproduces the state bit for bit. */
#ifndef CAROM_XYZ_H
#define CAROM_XYZ_H

#include <stdint.h>
#include <stdio.h>

#include "carom.h"

typedef struct xyz_frame {
    int32_t count;
    carom_body_state *bodies; /* position, velocity, radius, mass (collisions unused) */
    double lattice[3];        /* box sides from Lattice= (diagonal); 0 if absent */
    int has_lattice;
    double time;              /* Time= (0 if absent) */
} xyz_frame;

/* Writes one frame of the world's current state. Returns 0, or -1 on a write error. */
int xyz_write_frame(FILE *out, const carom_world *world, int dim, const double box[3],
                    const int periodic[3]);

/* Reads the first frame of a file. Properties may come in any order; pos is
 * required; velo (default 0), radius (default default_radius), mass (default
 * default_mass) are optional; other columns are skipped. Returns 0, or -1 with
 * "FILE:LINE:COL: what is wrong (what was expected)" in error. */
int xyz_read_file(const char *path, double default_radius, double default_mass, xyz_frame *frame,
                  char *error, size_t error_size);
void xyz_frame_free(xyz_frame *frame);

#endif
