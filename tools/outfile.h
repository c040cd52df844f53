/* outfile.h — output files that appear whole or not at all: written under a
 * temporary name in the same directory and renamed over the target only
 * when complete, so a crash or a full disk never leaves a half-written file
 * in place of a good one. "-" means standard output (written directly). */
#ifndef CAROM_OUTFILE_H
#define CAROM_OUTFILE_H

#include <stdio.h>

typedef struct outfile {
    FILE *stream;
    char *path;      /* the target */
    char *temporary; /* NULL for standard output */
} outfile;

/* Returns 0, or -1 with "PATH: cannot write (reason)" in error. */
int outfile_open(outfile *f, const char *path, char *error, size_t error_size);
/* Flushes, closes and renames into place. Returns 0, or -1 with a message
 * (the temporary file is then removed). */
int outfile_commit(outfile *f, char *error, size_t error_size);
/* Abandons the file: the temporary is removed, the target left as it was. */
void outfile_discard(outfile *f);

/* Writes a whole file at once: opens path (nothing if path is NULL), lets
 * write fill it from data, commits. Returns 0, or -1 with a message. */
typedef void (*outfile_writer)(FILE *stream, const void *data);
int outfile_write(const char *path, outfile_writer write, const void *data, char *error, size_t error_size);

#endif
