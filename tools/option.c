/* option.c — options of the carom command's subcommands: names and values. */
#include "option.h"

#include "decimal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int option_positive_number(const char *option, const char *text, double *value, char *error, size_t size)
{
    double v = 0.0;
    if (decimal_parse(text, (size_t)-1, &v) != DECIMAL_PARSED || v <= 0.0) {
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

int option_take_valued(int argc, char **argv, int *k, int (*is_valued)(const char *name), char *name,
                       size_t name_size, const char **value, char *error, size_t size)
{
    const char *arg = argv[*k], *equals = strchr(arg, '=');
    size_t length = equals ? (size_t)(equals - arg) : strlen(arg);
    snprintf(name, name_size, "%.*s", (int)(length < name_size ? length : name_size - 1), arg);
    if (!is_valued(name)) return snprintf(error, size, "unknown option '%s'", name), -1;
    if (equals)
        *value = equals + 1;
    else if (*k + 1 < argc && strncmp(argv[*k + 1], "--", 2) != 0)
        *value = argv[++*k];
    else if (*k + 1 < argc) /* `--restart --quiet` is a missing value, not a file named --quiet */
        return snprintf(error, size, "%s needs a value, not the option '%.60s' (write %s=VALUE for a value that "
                        "starts with --)", name, argv[*k + 1], name), -1;
    else
        return snprintf(error, size, "%s needs a value", name), -1;
    return 0;
}

int option_integer(const char *option, const char *text, long long *value, char *error, size_t size)
{
    char *end = NULL;
    errno = 0;
    *value = strtoll(text, &end, 10);
    if (errno || end == text || *end)
        return snprintf(error, size, "%s: '%s' is not a usable value (expected an integer)", option, text), -1;
    return 0;
}

int option_walk(int argc, char **argv, const option_walker *walker, void *request, char *error, size_t size)
{
    for (int k = 0; k < argc; k++) {
        const char *arg = argv[k];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) return 1;
        if (!strcmp(arg, "--verbose")) {
            *walker->verbose = 1;
            continue;
        }
        if (arg[0] != '-' || !arg[1]) {
            if (walker->positional(request, arg, error, size) != 0) return -1;
            continue;
        }
        char name[64];
        const char *value = NULL;
        if (option_take_valued(argc, argv, &k, walker->is_valued, name, sizeof name, &value, error, size) != 0 ||
            walker->take(request, name, value, error, size) != 0)
            return -1;
    }
    return 0;
}

int option_size(const char *option, const char *text, int *width, int *height, char *error, size_t size)
{
    int w = 0, h = 0, used = 0;
    if (sscanf(text, "%dx%d%n", &w, &h, &used) != 2 || text[used] || w < 200 || h < 150 || w > 20000 ||
        h > 20000)
        return snprintf(error, size, "%s: '%s' is not a usable value (expected WxH, 200x150 to 20000x20000)", option,
                        text), -1;
    *width = w, *height = h;
    return 0;
}
