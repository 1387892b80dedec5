
/*
 * /metrics and /metrics/slis (see gcp_observe.h): what the metrics in
 * shared memory hold for the whole instance, whichever worker answers.
 */

#include <stdlib.h>
#include <strings.h>

#include "gcp_metrics.h"
#include "gcp_observe.h"


/* Does the Accept header ask for OpenMetrics? */

static int
gcp_metrics_openmetrics(const char *accept)
{
    size_t       n;
    const char  *p, *q;

    static const char  om[] = "application/openmetrics-text";

    n = sizeof(om) - 1;

    for (p = accept; p && *p; p++) {
        if (strncasecmp(p, om, n) != 0) {
            continue;
        }

        /* its parameters, up to the next media range: q=0 refuses it */

        for (q = p + n; *q && *q != ','; q++) {
            if (strncmp(q, "q=", 2) == 0 && strtod(q + 2, NULL) <= 0) {
                break;
            }
        }

        if (*q == '\0' || *q == ',') {
            return 1;
        }
    }

    return 0;
}


int
gcp_metrics_serve(gcp_op_t *op)
{
    unsigned     set, flags;
    gcp_buf_t    b;
    gcp_str_t    body;
    const char  *path = op->ri.path;

    if (strcmp(path, "/metrics") == 0) {
        set = GCP_METRICS_SET_MAIN;

    } else if (strcmp(path, "/metrics/slis") == 0) {
        set = GCP_METRICS_SET_SLIS;

    } else {
        return 0;
    }

    flags = gcp_metrics_openmetrics(op->req->accept)
            ? GCP_METRICS_OPENMETRICS : 0;

    gcp_buf_init(&b, op->a);
    gcp_metrics_write(&b, set, flags);

    if (gcp_buf_failed(&b)) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return 1;
    }

    body.data = b.data ? b.data : "";
    body.len = b.len;

    gcp_op_respond(op, 200, gcp_metrics_content_type(flags), body);

    return 1;
}
