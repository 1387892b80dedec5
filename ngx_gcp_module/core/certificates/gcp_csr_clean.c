
/*
 * The CSR cleaner's decision (pkg/controller/certificates/cleaner,
 * v1.32): issued requests go one hour after their approval, denied and
 * failed ones one hour after that condition's last update, pending ones
 * a day after their creation, issued ones whose certificate expired at
 * once.
 */

#include <string.h>

#include "gcp_csr.h"
#include "gcp_object.h"
#include "gcp_time.h"


#define GCP_CSR_APPROVED_TTL  3600
#define GCP_CSR_DENIED_TTL    3600
#define GCP_CSR_PENDING_TTL   (24 * 3600)


/* The time of a field of c (0: unset or unreadable). */
static time_t
gcp_csr_time(gcp_arena_t *a, const json_t *c, const char *field)
{
    const json_t     *v;
    struct timespec   ts;

    v = json_object_get(c, field);

    if (!json_is_string(v) || json_string_length(v) == 0
        || gcp_time_parse(a, json_string_value(v), json_string_length(v),
                          &ts, NULL) != GCP_OK)
    {
        return 0;
    }

    return ts.tv_sec;
}


/*
 * isOlderThan(t, ttl) at now: returns 1 when due, else 0 and the time it
 * will be due folded into *next.
 */
static int
gcp_csr_older(time_t t, long ttl, time_t now, time_t *next)
{
    if (t == 0) {
        return 0;
    }

    if (now > t + ttl) {
        return 1;
    }

    if (*next == 0 || t + ttl + 1 < *next) {
        *next = t + ttl + 1;
    }

    return 0;
}


int
gcp_csr_clean_due(gcp_arena_t *a, const json_t *obj, time_t now,
    time_t *next)
{
    size_t         i;
    time_t         t, dummy, not_after;
    json_t        *c;
    gcp_str_t      cert;
    const char    *type, *err;
    const json_t  *conds;

    next = next ? next : &dummy;
    *next = 0;

    conds = json_object_get(json_object_get(obj, "status"), "conditions");

    cert.len = 0;

    if (gcp_csr_bytes(a, obj, "status", "certificate", &cert) != GCP_OK) {
        cert.len = 0;
    }

    /* isPendingPastDeadline */

    if (json_array_size(conds) == 0) {
        t = gcp_csr_time(a, json_object_get(obj, "metadata"),
                         "creationTimestamp");

        return gcp_csr_older(t, GCP_CSR_PENDING_TTL, now, next);
    }

    json_array_foreach(conds, i, c) {
        type = json_string_value(json_object_get(c, "type"));
        type = type ? type : "";
        t = gcp_csr_time(a, c, "lastUpdateTime");

        /* isDeniedPastDeadline, isFailedPastDeadline */

        if ((strcmp(type, "Denied") == 0 || strcmp(type, "Failed") == 0)
            && gcp_csr_older(t, GCP_CSR_DENIED_TTL, now, next))
        {
            return 1;
        }

        if (strcmp(type, "Approved") != 0 || cert.len == 0) {
            continue;
        }

        /* isIssuedPastDeadline */

        if (gcp_csr_older(t, GCP_CSR_APPROVED_TTL, now, next)) {
            return 1;
        }

        /* isIssuedExpired */

        if (gcp_csr_check_certificate(a, cert.data, cert.len, &not_after,
                                      &err) == GCP_OK
            && not_after
            && gcp_csr_older(not_after, 0, now, next))
        {
            return 1;
        }
    }

    return 0;
}
