/* textline.c — a line at a time, each line bounded (textline.h). A plain
 * loop over getc_unlocked: unlike fgets(3) it keeps NUL bytes inside a line
 * in the count, as getline(3) does, so a line's length is what was read. */
#define _POSIX_C_SOURCE 200809L
#include "textline.h"

#include <errno.h>
#include <stdlib.h>

/* Room for at least need bytes in *line. 0, or -1 out of memory. */
static int make_room(char **line, size_t *capacity, size_t need)
{
    if (*line && *capacity >= need) return 0;
    size_t grown = *capacity > 0 ? *capacity : 128;
    while (grown < need) grown *= 2;
    char *bigger = realloc(*line, grown);
    if (!bigger) return errno = ENOMEM, -1;
    *line = bigger, *capacity = grown;
    return 0;
}

ssize_t textline_read(FILE *in, char **line, size_t *capacity, size_t limit)
{
    size_t length = 0;
    if (make_room(line, capacity, 2) != 0) return TEXTLINE_ERROR;
    for (;;) {
        int c = getc_unlocked(in);
        if (c == EOF) break;
        if (length >= limit && c != '\n') return TEXTLINE_TOO_LONG;
        if (make_room(line, capacity, length + 2) != 0) return TEXTLINE_ERROR;
        (*line)[length++] = (char)c;
        if (c == '\n') break;
    }
    (*line)[length] = '\0';
    if (ferror(in)) return TEXTLINE_ERROR;
    return length > 0 ? (ssize_t)length : TEXTLINE_END;
}
