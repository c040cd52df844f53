/* json_text.c — JSON strings from arbitrary bytes (json_text.h). UTF-8 is
 * checked as RFC 3629 defines it: no overlong forms, no surrogates, nothing
 * past U+10FFFF. */
#include "json_text.h"

#include <stddef.h>

/* The length of the well-formed UTF-8 sequence at s, or 0 if it is not one. */
static size_t utf8_length(const unsigned char *s)
{
    unsigned char c = s[0];
    size_t length = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (size_t k = 1; k < length; k++)
        if ((s[k] & 0xC0) != 0x80) return 0; /* the NUL at the end stops here too */
    if (length == 3 && ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F))) return 0; /* overlong, surrogate */
    if (length == 4 && ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] > 0x8F))) return 0; /* overlong, too high */
    return length;
}

void json_write_text(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c;) {
        size_t length = utf8_length(c);
        if (*c == '"' || *c == '\\') fprintf(out, "\\%c", *c);
        else if (*c < 0x20) fprintf(out, "\\u%04x", (unsigned)*c);
        else if (length > 0) fwrite(c, 1, length, out);
        else fputs("\\ufffd", out);
        c += length > 0 ? length : 1;
    }
    fputc('"', out);
}
