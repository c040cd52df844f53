/* option.c — option values of the carom command (run and compare). */
#include "option.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int option_positive_number(const char *option, const char *text, double *value, char *error, size_t size)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v) || v <= 0.0) {
        snprintf(error, size, "%s: '%s' is not a usable value (expected a finite number > 0)", option, text);
        return -1;
    }
    *value = v;
    return 0;
}

int option_is_one_of(const char *name, const char *const names[], size_t count)
{
    for (size_t k = 0; k < count; k++)
        if (!strcmp(name, names[k])) return 1;
    return 0;
}
