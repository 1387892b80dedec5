
/*
 * Borrowing between priority levels (see gcp_apf_shm.h): every 10 seconds
 * each level's seat demand over the period (its time average, deviation
 * and high watermark) makes a target, and the server's seats are shared
 * in proportion to the targets within each level's bounds, as upstream's
 * configuration controller does (updateBorrowingLocked,
 * computeConcurrencyAllocation).
 */

#include <math.h>

#include "gcp_apf_int.h"


#define GCP_APF_SMOOTHING   0.977       /* seatDemandSmoothingCoefficient */
#define GCP_APF_MIN_TARGET  0.001
#define GCP_APF_EPSILON     1e-6


typedef struct {
    double   lower;
    double   upper;
    double   target;
    double   alloc;
} gcp_apf_item_t;


static double
gcp_apf_alloc_sum(gcp_apf_item_t *items, size_t n, double prop)
{
    size_t  i;
    double  sum;

    sum = 0;

    for (i = 0; i < n; i++) {
        sum += gcp_max(items[i].lower,
                       gcp_min(items[i].upper, items[i].target * prop));
    }

    return sum;
}


/*
 * Shares required seats among the items: item i gets target(i) * prop
 * clamped to its bounds, prop chosen so that the shares sum to required
 * (a bisection: the sum grows with prop).  Returns 0 when the bounds
 * make it impossible (the current limits then stay).
 */
static int
gcp_apf_allocate(gcp_apf_item_t *items, size_t n, double required)
{
    int     k;
    size_t  i;
    double  low, high, lo, hi, mid, top;

    low = high = top = 0;

    for (i = 0; i < n; i++) {
        if (items[i].target < GCP_APF_MIN_TARGET) {
            items[i].target = GCP_APF_MIN_TARGET;
        }

        low += items[i].lower;
        high += items[i].upper;
        top = gcp_max(top, items[i].upper / items[i].target);
    }

    if (low - required > GCP_APF_EPSILON
        || required - high > GCP_APF_EPSILON)
    {
        return 0;
    }

    if (low - required > -GCP_APF_EPSILON) {
        for (i = 0; i < n; i++) {
            items[i].alloc = items[i].lower;
        }

        return 1;
    }

    if (required - high > -GCP_APF_EPSILON) {
        for (i = 0; i < n; i++) {
            items[i].alloc = items[i].upper;
        }

        return 1;
    }

    lo = 0;
    hi = top;

    for (k = 0; k < 200 && hi - lo > 1e-12 * gcp_max(hi, 1.0); k++) {
        mid = (lo + hi) / 2;

        if (gcp_apf_alloc_sum(items, n, mid) < required) {
            lo = mid;

        } else {
            hi = mid;
        }
    }

    for (i = 0; i < n; i++) {
        items[i].alloc = gcp_max(items[i].lower,
                                 gcp_min(items[i].upper,
                                         items[i].target * hi));
    }

    return 1;
}


/* seatDemandStats.update, and the integrator starts over. */
static int32_t
gcp_apf_demand_stats(gcp_apf_level_t *l, uint64_t now)
{
    int32_t  high;
    double   t, avg, var, envelope;

    gcp_apf_demand(l, now);

    high = (int32_t) round(l->demand_max);
    t = (double) (now - l->demand_start);

    l->adjusted = 1;
    l->demand_high = high;

    if (t > 0) {
        avg = l->demand_sum / t;
        var = l->demand_sum2 / t - avg * avg;
        l->demand_avg = avg;
        l->demand_stdev = var > 0 ? sqrt(var) : 0;
        envelope = avg + l->demand_stdev;

        l->smoothed = gcp_max(envelope,
                              GCP_APF_SMOOTHING * l->smoothed
                              + (1 - GCP_APF_SMOOTHING) * envelope);
    }

    l->demand_sum = 0;
    l->demand_sum2 = 0;
    l->demand_max = l->demand;
    l->demand_start = now;

    return high;
}


int
gcp_apf_shm_adjust(gcp_apf_shm_t *sh, uint64_t now, int force)
{
    int               i;
    size_t            n;
    int32_t           high, min_current, idx[GCP_APF_MAX_LEVELS];
    double            required;
    gcp_apf_item_t    items[GCP_APF_MAX_LEVELS];
    gcp_apf_level_t  *l;

    gcp_apf_lock(sh);

    if (!force && sh->adjusted && now - sh->adjusted < GCP_APF_ADJUST_NS) {
        gcp_apf_unlock(sh);
        return 0;
    }

    sh->adjusted = now;
    n = 0;
    required = 0;

    for (i = 0; i < GCP_APF_MAX_LEVELS; i++) {
        l = &sh->levels[i];

        if (!l->used || l->quiescing) {
            continue;
        }

        gcp_apf_qs_sync(sh, l, now);
        high = gcp_apf_demand_stats(l, now);

        if (l->exempt) {
            min_current = gcp_max(l->min_cl, high);

        } else {
            min_current = gcp_max(l->min_cl, gcp_min(l->nominal_cl, high));
        }

        items[n].lower = min_current;
        items[n].upper = gcp_max(l->max_cl, min_current);
        items[n].target = gcp_max((double) min_current, l->smoothed);
        l->target = items[n].target;
        idx[n++] = i;

        required += l->nominal_cl;
    }

    if (n > 0 && gcp_apf_allocate(items, n, required)) {
        while (n-- > 0) {
            l = &sh->levels[idx[n]];
            l->current_cl = (int32_t) round(items[n].alloc);
            gcp_apf_qs_dispatch(sh, l, now);
        }
    }

    gcp_apf_unlock(sh);

    return 1;
}
