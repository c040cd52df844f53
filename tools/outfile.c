/* outfile.c — write to PATH.XXXXXX (mkstemp), then fsync-free rename(2) over
 * PATH, which POSIX makes atomic within a file system: readers see either
 * the old file or the complete new one. */
#define _POSIX_C_SOURCE 200809L
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *copy_text(const char *text)
{
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    if (copy) memcpy(copy, text, size);
    return copy;
}

int outfile_open(outfile *f, const char *path, char *error, size_t error_size)
{
    memset(f, 0, sizeof *f);
    if (strcmp(path, "-") == 0) {
        f->stream = stdout;
        return 0;
    }
    size_t size = strlen(path) + 8;
    char *target = copy_text(path), *temporary = malloc(size);
    int fd = -1;
    if (target && temporary) {
        snprintf(temporary, size, "%s.XXXXXX", path);
        fd = mkstemp(temporary);
    }
    FILE *stream = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!stream) {
        snprintf(error, error_size, "%s: cannot write (%s)", path, target && temporary ? strerror(errno) : "out of memory");
        if (fd >= 0) {
            close(fd);
            remove(temporary);
        }
        free(target);
        free(temporary);
        return -1;
    }
    f->stream = stream;
    f->path = target;
    f->temporary = temporary;
    return 0;
}

int outfile_commit(outfile *f, char *error, size_t error_size)
{
    if (!f->stream) return 0;
    if (!f->temporary) { /* standard output */
        int failed = fflush(f->stream) != 0 || ferror(f->stream);
        f->stream = NULL;
        if (failed) snprintf(error, error_size, "-: cannot write standard output (%s)", strerror(errno));
        return failed ? -1 : 0;
    }
    int failed = ferror(f->stream) != 0;
    failed |= fclose(f->stream) != 0;
    f->stream = NULL;
    if (!failed && rename(f->temporary, f->path) == 0) {
        free(f->temporary);
        free(f->path);
        memset(f, 0, sizeof *f);
        return 0;
    }
    snprintf(error, error_size, "%s: cannot write (%s)", f->path, strerror(errno ? errno : EIO));
    outfile_discard(f);
    return -1;
}

void outfile_discard(outfile *f)
{
    if (f->stream && f->stream != stdout) fclose(f->stream);
    if (f->temporary) remove(f->temporary);
    free(f->temporary);
    free(f->path);
    memset(f, 0, sizeof *f);
}

int outfile_write(const char *path, outfile_writer write, const void *data, char *error, size_t error_size)
{
    if (!path) return 0;
    outfile f;
    if (outfile_open(&f, path, error, error_size) != 0) return -1;
    write(f.stream, data);
    return outfile_commit(&f, error, error_size);
}
