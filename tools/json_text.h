/* json_text.h — text written as a JSON string (RFC 8259, section 7).
 *
 * File names, species labels and messages come from the user and may hold
 * quotes, backslashes, control characters or bytes that are not UTF-8 (a
 * Linux file name is any bytes but '/' and NUL). Every string the command
 * writes into JSON goes through here, so the file always parses. */
#ifndef CAROM_JSON_TEXT_H
#define CAROM_JSON_TEXT_H

#include <stdio.h>

/* Writes text (NULL: empty) as a quoted JSON string: '"' and '\' escaped,
 * control characters as \u00XX, well-formed UTF-8 as it is, and each byte
 * of a malformed sequence as U+FFFD (the replacement character). */
void json_write_text(FILE *out, const char *text);

#endif
