/* outfile.h — output files that never clobber and never vanish.
 *
 * A regular file (or a new one) is written under a temporary name in the
 * folder of its target and renamed over it when complete, after the data and
 * then the folder are synced, so a crash or a full disk never leaves a
 * half-written file in place of a good one. What is not a regular file is
 * never replaced: a device or a FIFO is written directly, a symbolic link is
 * followed and its target replaced (the link stays). A replaced file keeps
 * its mode (and, where allowed, its owner); a new one gets 0666 & ~umask.
 * "-" means standard output (written directly). */
#ifndef CAROM_OUTFILE_H
#define CAROM_OUTFILE_H

#include <stdio.h>

typedef struct outfile {
    FILE *stream;
    char *path;      /* as given, for messages */
    char *target;    /* where the data lands: path with symbolic links followed */
    char *temporary; /* NULL: written in place (standard output, a device, a FIFO, or published) */
    int error;       /* errno of the first failed write (0: none so far) */
} outfile;

/* Checks, before anything is run, that path can be written: its folder
 * exists and takes new files, it is not a folder, a socket or a loop of
 * links; a device or FIFO must be writable. Returns 0, or -1 with
 * "PATH: cannot write (reason)" in error. Creates nothing. */
int outfile_check(const char *path, char *error, size_t error_size);

/* Whether two output paths name one regular file (links followed, "./x" and
 * "x" alike; a file yet to be made by its folder and name). A device is never
 * the same file: several outputs may go to /dev/null. "-" (standard output)
 * is the same as "-" and as a path to where standard output goes (the file
 * it was redirected to, a terminal as /dev/stdout), /dev/null excepted. */
int outfile_same(const char *a, const char *b);

/* A command's outputs checked together before anything is written: each of
 * path[0 .. count) (NULL or "" skipped; name[k] says what it is) as
 * outfile_check does, no two naming one file, and none naming one of the
 * files the command reads, input[0 .. input_count). Returns 0, or -1 with
 * "PATH: ..." in error. */
int outfile_check_apart(const char *const path[], const char *const name[], int count, const char *const input[],
                        int input_count, char *error, size_t error_size);

/* Returns 0, or -1 with "PATH: cannot write (reason)" in error. Opening a
 * FIFO waits for its reader. */
int outfile_open(outfile *f, const char *path, char *error, size_t error_size);

/* Whether every write so far reached the stream (stdio reports a full disk
 * when its buffer is flushed): 0, or -1 with "PATH: cannot write (reason)".
 * Call after each record; the first failure is kept. */
int outfile_status(outfile *f, char *error, size_t error_size);

/* Makes what was written so far durable and visible under the target's name
 * (flush, fsync, rename, fsync of the folder); later writes go on in place.
 * Returns 0, or -1 with a message. */
int outfile_publish(outfile *f, char *error, size_t error_size);

/* Publishes and closes. Returns 0, or -1 with a message (a temporary file
 * is then removed and the target left as it was). Nothing to do for a file
 * never opened. */
int outfile_commit(outfile *f, char *error, size_t error_size);

/* Abandons the file: a temporary is removed and the target left as it was
 * (what was published stays). */
void outfile_discard(outfile *f);

/* Removes every temporary file open now, and nothing else: for a signal
 * handler that ends the command at once (async-signal-safe: unlink(2) only). */
void outfile_remove_temporaries(void);

/* Writes a whole file at once: opens path (nothing if path is NULL), lets
 * write fill it from data, commits. Returns 0, or -1 with a message. */
typedef void (*outfile_writer)(FILE *stream, const void *data);
int outfile_write(const char *path, outfile_writer write, const void *data, char *error, size_t error_size);

#endif
