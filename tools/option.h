/* option.h — reading option values of the carom command, with one-line
 * messages naming the option and the value. */
#ifndef CAROM_OPTION_H
#define CAROM_OPTION_H

#include <stddef.h>

/* A finite number > 0. Returns 0, or -1 with
 * "OPTION: 'TEXT' is not a usable value (expected a finite number > 0)". */
int option_positive_number(const char *option, const char *text, double *value, char *error, size_t size);

/* Is name one of the count options in names (those that take a value)? */
int option_is_one_of(const char *name, const char *const names[], size_t count);

/* The option at argv[*k], "--name=value" or "--name value": its name into
 * name (name_size bytes), and *value its value (for "--name value" the next
 * argument, and *k moves past it). Returns 0; or -1 with "unknown option
 * 'NAME'" when is_valued(name) is 0, or "NAME needs a value" at the end. */
int option_take_valued(int argc, char **argv, int *k, int (*is_valued)(const char *name), char *name,
                       size_t name_size, const char **value, char *error, size_t size);

/* A picture's size "WxH" in pixels, 200x150 to 20000x20000. Returns 0, or
 * -1 with a message naming the option. */
int option_size(const char *option, const char *text, int *width, int *height, char *error, size_t size);

/* An integer (a frame index: negative counts from the end). Returns 0, or -1
 * with "OPTION: 'TEXT' is not a usable value (expected an integer)". */
int option_integer(const char *option, const char *text, long long *value, char *error, size_t size);

/* A subcommand's arguments, walked in order: --help or -h returns 1 at once;
 * --verbose sets *verbose; an argument not starting with '-' (or "-" alone)
 * goes to positional; every other is a valued option (is_valued, as
 * option_take_valued) handed to take with its value. Returns 0, 1, or -1
 * with the message of the first refusal. */
typedef struct option_walker {
    int (*is_valued)(const char *name);
    int (*take)(void *request, const char *name, const char *value, char *error, size_t size);
    int (*positional)(void *request, const char *argument, char *error, size_t size);
    int *verbose;
} option_walker;
int option_walk(int argc, char **argv, const option_walker *walker, void *request, char *error, size_t size);

#endif
