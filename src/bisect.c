/* bisect.c — seed 004's time of collision: "if at time t there is no
 * intersection, but at t + dt there is, use binary search on [t, t + dt] to
 * find a time t* that is at most eps away from the true time; search until
 * the width of the current interval is less than eps". The predicate is a
 * function pointer, so any shape whose caller can answer "do these two
 * intersect?" works. Each step halves the bracket: log2(dt / eps) calls.
 */
#include "bisect.h"

#include <assert.h>

double bisect_first_contact(bisect_predicate intersect, void *user, double lo, double hi, double eps,
                            int64_t *steps)
{
    assert(lo <= hi && eps > 0.0);
    (*steps)++;
    if (intersect(user, lo)) return lo;
    while (hi - lo > eps) {
        double mid = lo + 0.5 * (hi - lo);
        if (mid <= lo || mid >= hi) break; /* no double between them */
        (*steps)++;
        if (intersect(user, mid)) hi = mid;
        else lo = mid;
    }
    return lo;
}
