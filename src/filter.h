/* filter.h — the safety filter of seed 003 as pure functions (filter.c). */
#ifndef CAROM_FILTER_H
#define CAROM_FILTER_H

#include "carom.h"

#endif
