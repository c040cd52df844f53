/* container.c — placeholder until its part lands. */
#include "container.h"
