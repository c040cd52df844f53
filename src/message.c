/* message.c — writing a reason into a caller's buffer (message.h). */
#include "message.h"

#include <stdarg.h>
#include <stdio.h>

carom_status message_refuse(char *why, size_t why_size, carom_status status, const char *format, ...)
{
    if (why && why_size > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(why, why_size, format, args);
        va_end(args);
    }
    return status;
}
