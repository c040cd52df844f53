/* decimal.h — the one way carom's files and options read a real number:
 * a plain decimal (digits, sign, point, exponent), never hex ("0x1p3"),
 * words ("inf", "nan") or trailing text, so that a value means the same in
 * a scenario, a controls file and on the command line. */
#ifndef CAROM_DECIMAL_H
#define CAROM_DECIMAL_H

#include <stddef.h>

typedef enum { DECIMAL_PARSED = 0, DECIMAL_NOT_A_NUMBER = -1, DECIMAL_NOT_FINITE = -2 } decimal_result;

/* The first length bytes of text (or all of it up to its terminator when
 * length is (size_t)-1) as a finite decimal in *value (untouched otherwise).
 * NOT_FINITE for "nan", "inf", "infinity" (any case, signed, YAML's ".inf")
 * and for decimals past the largest double. */
decimal_result decimal_parse(const char *text, size_t length, double *value);

#endif
