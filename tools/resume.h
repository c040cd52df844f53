/* resume.h — what a restarted run keeps of the trajectory and the event log
 * it continues: the part written up to its checkpoint, copied into the new
 * file, which is then renamed over the old one only when it is complete (so
 * the earlier segment is never lost, even if the restart fails). */
#ifndef CAROM_RESUME_H
#define CAROM_RESUME_H

#include <stdint.h>
#include <stdio.h>

/* Copies the first `frames` frames of the extended XYZ file at path to out;
 * each must hold `bodies` bodies. Their first and last times (from `Time=`)
 * go to *first_time and *last_time. Returns 0, or -1 with
 * "PATH: what does not match (what was expected)". */
int resume_trajectory(const char *path, int64_t frames, int64_t bodies, FILE *out, double *first_time,
                      double *last_time, char *error, size_t error_size);

/* Copies the header and the rows the checkpoint covers of the CSV event log
 * at path to out: its first `rows` rows, each at a time up to `until` (the
 * checkpoint's clock), when the checkpoint counted them (rows >= 0; a log
 * with fewer is refused as cut short); else (rows -1, an older checkpoint)
 * the rows up to time `until`, since every collision up to it was logged
 * before the checkpoint was written and none after it. The time of the last
 * row copied goes to *last_time (-INFINITY if none), their number to *copied.
 * Returns 0, or -1 with a message as above. */
int resume_event_log(const char *path, double until, int64_t rows, FILE *out, double *last_time, int64_t *copied,
                     char *error, size_t error_size);

#endif
