/* boundary.c — placeholder until its part lands. */
#include "boundary.h"
