/* session.c — the settings and progress of one `carom run`. */
#include "session.h"

#include <stdlib.h>
#include <string.h>

int session_set_text(char **field, const char *value)
{
    char *copy = NULL;
    if (value) {
        size_t size = strlen(value) + 1;
        if (!(copy = malloc(size))) return -1;
        memcpy(copy, value, size);
    }
    free(*field);
    *field = copy;
    return 0;
}

void session_free(session *s)
{
    char **texts[] = {&s->scenario_path, &s->trajectory, &s->events_log, &s->stats, &s->checkpoint,
                      &s->species, &s->controls};
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
        free(*texts[k]);
        *texts[k] = NULL;
    }
}
