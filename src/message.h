/* message.h — the one-line reason a creating call writes into its caller's
 * buffer (why, why_size: NULL or 0 for none), shared by the core's
 * constructors and checks. */
#ifndef CAROM_MESSAGE_H
#define CAROM_MESSAGE_H

#include <stddef.h>

#include "carom.h"

/* Writes the reason (printf-style, truncated to the buffer) and returns status. */
carom_status message_refuse(char *why, size_t why_size, carom_status status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
