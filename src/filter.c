/* filter.c — placeholder until its part lands. */
#include "filter.h"
