/* outfile.c — output files written whole or not at all, and never in place
 * of something that is not a regular file (see outfile.h).
 *
 * The method is the usual one for atomic replacement on POSIX: write to a
 * temporary file made by mkstemp(3) in the target's own folder (rename(2) is
 * atomic only within one file system), fsync(2) it, rename it over the
 * target, then fsync the folder so the new name is durable too. Symbolic
 * links are followed by hand (readlink, up to 40 hops as the kernel does) so
 * that the link itself is never replaced, even when it dangles. */
#define _POSIX_C_SOURCE 200809L
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_LINKS = 40 };

static char *copy_text(const char *text)
{
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    if (copy) memcpy(copy, text, size);
    return copy;
}

/* name taken relative to the folder that holds path (name itself if absolute). */
static char *beside(const char *path, const char *name)
{
    const char *slash = strrchr(path, '/');
    if (name[0] == '/' || !slash) return copy_text(name);
    size_t folder = (size_t)(slash - path) + 1, size = folder + strlen(name) + 1;
    char *joined = malloc(size);
    if (joined) snprintf(joined, size, "%.*s%s", (int)folder, path, name);
    return joined;
}

/* The folder that holds path ("." for a bare name). */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return copy_text(".");
    if (slash == path) return copy_text("/");
    size_t size = (size_t)(slash - path) + 1;
    char *folder = malloc(size);
    if (folder) snprintf(folder, size, "%.*s", (int)(size - 1), path);
    return folder;
}

/* path with the symbolic links at its end followed; NULL with errno set. */
static char *follow_links(const char *path)
{
    char *current = copy_text(path);
    for (int hops = 0; current; hops++) {
        struct stat st, end;
        if (lstat(current, &st) != 0 || !S_ISLNK(st.st_mode)) return current;
        /* A link to a pipe, a device or a socket is written through, in place:
         * /dev/stdout's /proc/self/fd/1 reads "pipe:[…]", which no path names. */
        if (stat(current, &end) == 0 && !S_ISREG(end.st_mode) && !S_ISDIR(end.st_mode)) return current;
        char link[PATH_MAX];
        ssize_t length = hops < MAX_LINKS ? readlink(current, link, sizeof link - 1) : -1;
        if (length < 0) {
            int why = hops < MAX_LINKS ? errno : ELOOP;
            free(current);
            errno = why;
            return NULL;
        }
        link[length] = '\0';
        char *next = beside(current, link);
        free(current);
        current = next;
    }
    errno = ENOMEM;
    return NULL;
}

/* The pattern of a temporary name beside target for mkstemp(3): the
 * target's name and ".XXXXXX", or, where that would pass the longest name
 * a folder takes (NAME_MAX), ".carom-XXXXXX" in the same folder. */
static char *temporary_pattern(const char *target)
{
    const char *slash = strrchr(target, '/'), *name = slash ? slash + 1 : target;
    size_t folder = (size_t)(name - target), size = strlen(target) + 8;
    int short_name = strlen(name) + 7 > NAME_MAX;
    if (short_name) size = folder + sizeof ".carom-XXXXXX";
    char *pattern = malloc(size);
    if (!pattern) return errno = ENOMEM, NULL;
    if (short_name) snprintf(pattern, size, "%.*s.carom-XXXXXX", (int)folder, target);
    else snprintf(pattern, size, "%s.XXXXXX", target);
    return pattern;
}

/* ---- temporaries a signal may have to remove ------------------------------- */

/* The temporary files open now. A command stopped by a signal at once (a
 * second Ctrl-C) removes them from its handler, which may neither allocate
 * nor take locks: hence a fixed table of pointers that only this file
 * writes, each set once its name is complete and cleared before the name is
 * renamed, removed or freed. A name that finds no free slot (more than
 * TRACKED outputs at once) is simply not removed by a signal. This is the
 * command's state, not the library's, which holds none. */
enum { TRACKED = 64 };
static char *volatile tracked[TRACKED];

static void track(char *name)
{
    for (int k = 0; k < TRACKED; k++)
        if (!tracked[k]) {
            tracked[k] = name;
            return;
        }
}

static void untrack(const char *name)
{
    for (int k = 0; name && k < TRACKED; k++)
        if (tracked[k] == name) tracked[k] = NULL;
}

void outfile_remove_temporaries(void)
{
    for (int k = 0; k < TRACKED; k++) {
        const char *name = tracked[k];
        if (name) unlink(name);
    }
}

static int cannot(const char *path, const char *why, char *error, size_t error_size)
{
    snprintf(error, error_size, "%s: cannot write (%s)", path, why);
    return -1;
}

/* ---- checking before the run ---------------------------------------------- */

/* The folder exists, is a folder, and takes a new file (tried, then removed:
 * the only test that also holds for root, read-only mounts and immutable folders). */
static int probe_folder(const char *path, const char *target, char *error, size_t error_size)
{
    char *folder = folder_of(target), *probe = temporary_pattern(target);
    char why[PATH_MAX + 64] = "";
    struct stat st;
    if (!folder || !probe) snprintf(why, sizeof why, "out of memory");
    else if (stat(folder, &st) != 0) snprintf(why, sizeof why, "folder %s: %s", folder, strerror(errno));
    else if (!S_ISDIR(st.st_mode)) snprintf(why, sizeof why, "%s is not a folder", folder);
    else {
        int fd = mkstemp(probe);
        if (fd < 0) snprintf(why, sizeof why, "folder %s takes no new file: %s", folder, strerror(errno));
        else close(fd), unlink(probe);
    }
    free(folder);
    free(probe);
    return why[0] ? cannot(path, why, error, error_size) : 0;
}

static int check_target(const char *path, const char *target, char *error, size_t error_size)
{
    struct stat st;
    if (stat(target, &st) != 0)
        return errno == ENOENT ? probe_folder(path, target, error, error_size)
                               : cannot(path, strerror(errno), error, error_size);
    if (S_ISDIR(st.st_mode)) return cannot(path, "it is a folder; expected a file name", error, error_size);
    if (S_ISSOCK(st.st_mode)) return cannot(path, "it is a socket", error, error_size);
    if (S_ISREG(st.st_mode)) return probe_folder(path, target, error, error_size);
    if (access(target, W_OK) != 0) return cannot(path, strerror(errno), error, error_size);
    return 0; /* a device or a FIFO, written in place */
}

int outfile_check(const char *path, char *error, size_t error_size)
{
    if (strcmp(path, "-") == 0) return 0;
    if (path[0] == '\0') return cannot(path, "an empty file name", error, error_size);
    char *target = follow_links(path);
    if (!target) return cannot(path, strerror(errno), error, error_size);
    int st = check_target(path, target, error, error_size);
    free(target);
    return st;
}

/* The file a path names: its own identity if it exists, else its folder's
 * identity and its name. 0, or -1 if neither can be found. */
typedef struct file_identity {
    dev_t device;
    ino_t inode;
    int exists, regular;
    const char *name; /* within target, when it does not exist */
} file_identity;

static int identify(const char *target, file_identity *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (stat(target, &st) == 0) {
        id->device = st.st_dev, id->inode = st.st_ino, id->exists = 1, id->regular = S_ISREG(st.st_mode);
        return 0;
    }
    char *folder = folder_of(target);
    int found = folder && stat(folder, &st) == 0;
    free(folder);
    if (!found) return -1;
    const char *slash = strrchr(target, '/');
    id->device = st.st_dev, id->inode = st.st_ino, id->regular = 1, id->name = slash ? slash + 1 : target;
    return 0;
}

/* Whether a path names what standard output writes to (a terminal, a pipe,
 * the file the shell redirected it to: /dev/stdout, say), other than
 * /dev/null, which any number of outputs may share. */
static int is_standard_output(const char *path)
{
    struct stat out, other, null_device; /* stat follows every link */
    if (stat(path, &other) != 0 || fstat(STDOUT_FILENO, &out) != 0 || out.st_dev != other.st_dev ||
        out.st_ino != other.st_ino)
        return 0;
    return !(S_ISCHR(other.st_mode) && stat("/dev/null", &null_device) == 0 && null_device.st_rdev == other.st_rdev);
}

int outfile_same(const char *a, const char *b)
{
    if (strcmp(a, "-") == 0 && strcmp(b, "-") == 0) return 1;
    if (strcmp(a, "-") == 0) return is_standard_output(b);
    if (strcmp(b, "-") == 0) return is_standard_output(a);
    char *target_a = follow_links(a), *target_b = follow_links(b);
    file_identity x, y;
    int same = target_a && target_b && identify(target_a, &x) == 0 && identify(target_b, &y) == 0 &&
               x.regular && x.exists == y.exists && x.device == y.device && x.inode == y.inode &&
               (x.exists || strcmp(x.name, y.name) == 0);
    free(target_a);
    free(target_b);
    return same;
}

int outfile_check_apart(const char *const path[], const char *const name[], int count, const char *const input[],
                        int input_count, char *error, size_t error_size)
{
    for (int k = 0; k < count; k++) {
        if (!path[k] || !path[k][0]) continue;
        if (outfile_check(path[k], error, error_size) != 0) return -1;
        for (int j = 0; j < k; j++) {
            if (!path[j] || !path[j][0] || !outfile_same(path[k], path[j])) continue;
            int k_dash = strcmp(path[k], "-") == 0, j_dash = strcmp(path[j], "-") == 0;
            if (k_dash == j_dash)
                return snprintf(error, error_size, "%s: named for both %s and %s (expected one file each)", path[k],
                                name[j], name[k]), -1;
            int file = k_dash ? j : k, dash = k_dash ? k : j; /* a path where standard output goes, and "-" */
            return snprintf(error, error_size, "%s: named for %s, but it is where standard output goes, which %s "
                            "writes to (-) (expected one file each)", path[file], name[file], name[dash]), -1;
        }
        for (int i = 0; i < input_count; i++)
            if (input[i] && input[i][0] && outfile_same(path[k], input[i]))
                return snprintf(error, error_size, "%s: named for %s, but the run reads it (%s; expected an output "
                                "apart from the run's inputs)", path[k], name[k], input[i]), -1;
    }
    return 0;
}

/* ---- writing -------------------------------------------------------------- */

static int open_in_place(outfile *f, const struct stat *st)
{
    if (S_ISDIR(st->st_mode)) return errno = EISDIR, -1;
    int fd = open(f->target, O_WRONLY | O_NOCTTY);
    if (fd < 0) return -1;
    if (!(f->stream = fdopen(fd, "w"))) {
        int why = errno;
        close(fd);
        return errno = why, -1;
    }
    return 0;
}

/* The mode (and owner) the new file takes: the old file's, or 0666 & ~umask. */
static int set_mode(int fd, const struct stat *old)
{
    if (old) {
        if (fchown(fd, old->st_uid, old->st_gid) != 0) {
            /* only a privileged process may give a file away; it then stays ours */
        }
        return fchmod(fd, old->st_mode & 07777);
    }
    mode_t mask = umask(0);
    umask(mask);
    return fchmod(fd, 0666 & ~mask);
}

static int open_temporary(outfile *f, const struct stat *old)
{
    if (!(f->temporary = temporary_pattern(f->target))) return -1;
    int fd = mkstemp(f->temporary);
    if (fd >= 0) track(f->temporary);
    if (fd >= 0 && set_mode(fd, old) == 0 && (f->stream = fdopen(fd, "w"))) return 0;
    int why = errno;
    untrack(f->temporary);
    if (fd >= 0) close(fd), remove(f->temporary);
    free(f->temporary);
    f->temporary = NULL;
    return errno = why, -1;
}

int outfile_open(outfile *f, const char *path, char *error, size_t error_size)
{
    memset(f, 0, sizeof *f);
    if (strcmp(path, "-") == 0) {
        f->stream = stdout;
        return 0;
    }
    f->path = copy_text(path);
    f->target = f->path ? follow_links(path) : NULL;
    int st = -1;
    if (f->target) {
        struct stat old;
        if (stat(f->target, &old) == 0) st = S_ISREG(old.st_mode) ? open_temporary(f, &old) : open_in_place(f, &old);
        else st = errno == ENOENT ? open_temporary(f, NULL) : -1;
    }
    if (st == 0) return 0;
    cannot(path, f->path ? strerror(errno) : "out of memory", error, error_size);
    outfile_discard(f);
    return -1;
}

int outfile_status(outfile *f, char *error, size_t error_size)
{
    if (f->stream && !f->error && ferror(f->stream)) f->error = errno ? errno : EIO;
    if (!f->error) return 0;
    return cannot(f->path ? f->path : "standard output", strerror(f->error), error, error_size);
}

/* fsync of the folder makes a rename durable; file systems that cannot sync
 * a folder (EINVAL) have nothing to sync. */
static int sync_folder(const char *target)
{
    char *folder = folder_of(target);
    if (!folder) return errno = ENOMEM, -1;
    int fd = open(folder, O_RDONLY), st = 0;
    free(folder);
    if (fd < 0) return -1;
    if (fsync(fd) != 0 && errno != EINVAL) st = -1;
    close(fd);
    return st;
}

static int fail_write(outfile *f, char *error, size_t error_size)
{
    if (!f->error) f->error = errno ? errno : EIO;
    return outfile_status(f, error, error_size);
}

int outfile_publish(outfile *f, char *error, size_t error_size)
{
    if (!f->stream) return 0;
    errno = 0;
    if (fflush(f->stream) != 0) return fail_write(f, error, error_size);
    if (outfile_status(f, error, error_size) != 0) return -1;
    struct stat st;
    int regular = f->stream != stdout && fstat(fileno(f->stream), &st) == 0 && S_ISREG(st.st_mode);
    if (regular && fsync(fileno(f->stream)) != 0) return fail_write(f, error, error_size);
    if (!f->temporary) return 0;
    untrack(f->temporary);
    if (rename(f->temporary, f->target) != 0) {
        track(f->temporary);
        return fail_write(f, error, error_size);
    }
    if (sync_folder(f->target) != 0) return fail_write(f, error, error_size);
    free(f->temporary);
    f->temporary = NULL;
    return 0;
}

int outfile_commit(outfile *f, char *error, size_t error_size)
{
    if (!f->stream) {
        outfile_discard(f);
        return 0;
    }
    int st = outfile_publish(f, error, error_size);
    if (f->stream != stdout) {
        errno = 0;
        if (fclose(f->stream) != 0 && st == 0) st = fail_write(f, error, error_size);
    }
    f->stream = NULL;
    outfile_discard(f);
    return st;
}

void outfile_discard(outfile *f)
{
    if (f->stream && f->stream != stdout) fclose(f->stream);
    untrack(f->temporary);
    if (f->temporary) remove(f->temporary);
    free(f->temporary);
    free(f->target);
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
