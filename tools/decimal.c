/* decimal.c — plain decimal numbers for every reader of the carom command
 * (decimal.h). strtod alone would also take hex floats, "inf" and "nan" and
 * the locale's own forms; the characters are checked first, and strtod
 * (correctly rounded in glibc) converts what is left. */
#include "decimal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { DECIMAL_LONGEST = 512 }; /* characters: more digits than any double needs, many times over */

/* nan, inf, infinity, with an optional sign and YAML's leading dot (.inf), any case. */
static int is_non_finite_word(const char *text)
{
    if (*text == '+' || *text == '-') text++;
    if (*text == '.') text++;
    return !strcasecmp(text, "nan") || !strcasecmp(text, "inf") || !strcasecmp(text, "infinity");
}

decimal_result decimal_parse(const char *text, size_t length, double *value)
{
    if (length == (size_t)-1) length = strlen(text);
    if (length == 0 || length >= DECIMAL_LONGEST) return DECIMAL_NOT_A_NUMBER;
    char buffer[DECIMAL_LONGEST];
    memcpy(buffer, text, length);
    buffer[length] = '\0';
    if (is_non_finite_word(buffer)) return DECIMAL_NOT_FINITE;
    if (strspn(buffer, "0123456789+-.eE") != length || !strpbrk(buffer, "0123456789")) return DECIMAL_NOT_A_NUMBER;
    char *end;
    double v = strtod(buffer, &end);
    if (end == buffer || *end != '\0') return DECIMAL_NOT_A_NUMBER;
    if (!isfinite(v)) return DECIMAL_NOT_FINITE;
    *value = v;
    return DECIMAL_PARSED;
}
