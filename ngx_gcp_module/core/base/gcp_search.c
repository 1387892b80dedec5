
/*
 * Binary search in sorted arrays: a match, or where a new element goes.
 */

#include "gcp_core.h"


size_t
gcp_search(const void *key, const void *v, size_t n, size_t size,
    gcp_search_cmp_pt cmp, int *found)
{
    int          c;
    size_t       lo, hi, mid;
    const char  *base = v;

    lo = 0;
    hi = n;
    *found = 0;

    while (lo < hi) {
        mid = lo + (hi - lo) / 2;
        c = cmp(key, base + mid * size);

        if (c == 0) {
            *found = 1;
            return mid;
        }

        if (c < 0) {
            hi = mid;

        } else {
            lo = mid + 1;
        }
    }

    return lo;
}
