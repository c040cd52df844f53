/* textline.h — text files read a line at a time, each line bounded.
 *
 * getline(3) grows its buffer for as long as a line goes on, so a file with
 * no line end (a device such as /dev/zero, a damaged or binary file) would
 * take all memory before any check on its content could run. Every line
 * reader of the command goes through here with a limit instead. */
#ifndef CAROM_TEXTLINE_H
#define CAROM_TEXTLINE_H

#include <stdio.h>
#include <sys/types.h>

/* The longest line the command reads: far above any line it writes (an
 * extended XYZ comment line, a frame's body, a CSV row). */
enum { TEXTLINE_LIMIT = 1 << 20 };

enum { TEXTLINE_END = 0, TEXTLINE_ERROR = -1, TEXTLINE_TOO_LONG = -2 };

/* Reads the next line of in into *line (grown as getline(3) grows it, NUL
 * terminated, its '\n' kept) and returns its length in bytes; TEXTLINE_END
 * at the end of the file, TEXTLINE_ERROR on a read error or out of memory
 * (errno set), TEXTLINE_TOO_LONG once more than limit bytes came without a
 * line end (the rest of that line is not read). */
ssize_t textline_read(FILE *in, char **line, size_t *capacity, size_t limit);

#endif
