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

#endif
