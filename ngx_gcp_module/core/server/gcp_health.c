
/*
 * Health endpoints: /healthz, /livez and /readyz, each with ?verbose and
 * /CHECK, as kube-apiserver answers them (text/plain).
 */

#include "gcp_crd.h"
#include "gcp_health.h"
#include "gcp_log.h"
#include "gcp_metrics.h"
#include "gcp_reg.h"


typedef struct {
    const char  *name;
    unsigned     ready_only:1;
    unsigned     storage:1;
    unsigned     bootstrap:1;
    unsigned     crds:1;
    unsigned     store_check:1;     /* name and test from the conf */
} gcp_check_t;


static const gcp_check_t  gcp_checks[] = {
    { "ping", 0, 0, 0, 0, 0 },
    { "log", 0, 0, 0, 0, 0 },
    { "etcd", 0, 1, 0, 0, 0 },
    { "etcd-readiness", 1, 1, 0, 0, 0 },
    { NULL, 1, 0, 0, 0, 1 },
    { "poststarthook/start-apiextensions-informers", 0, 0, 0, 0, 0 },
    { "poststarthook/start-apiextensions-controllers", 0, 0, 0, 0, 0 },
    { "poststarthook/crd-informer-synced", 0, 0, 0, 1, 0 },
    { "poststarthook/start-system-namespaces-controller", 0, 0, 1, 0, 0 },
    { "shutdown", 1, 0, 0, 0, 0 },
};


typedef struct {
    gcp_op_t     *op;
    const char   *kind;         /* "healthz", "livez", "readyz" */
    const char   *only;         /* one named check, or NULL */
    int           storage_ok;
} gcp_health_t;


/* The check's name; NULL for the store's check when there is none. */

static const char *
gcp_health_name(gcp_health_t *h, const gcp_check_t *c)
{
    return c->store_check ? h->op->api->conf.store_check : c->name;
}


static int
gcp_health_applies(gcp_health_t *h, const gcp_check_t *c)
{
    const char  *name = gcp_health_name(h, c);

    if (name == NULL
        || (c->ready_only && strcmp(h->kind, "readyz") != 0))
    {
        return 0;
    }

    return h->only == NULL || strcmp(h->only, name) == 0;
}


static int
gcp_health_excluded(gcp_health_t *h, const gcp_check_t *c)
{
    size_t  i;

    for (i = 0; i < h->op->q.n; i++) {
        if (strcmp(h->op->q.params[i].name, "exclude") == 0
            && strcmp(h->op->q.params[i].value, gcp_health_name(h, c)) == 0)
        {
            return 1;
        }
    }

    return 0;
}


static int
gcp_health_ok(gcp_health_t *h, const gcp_check_t *c)
{
    const char             *why;
    const gcp_api_conf_t   *conf = &h->op->api->conf;

    if (c->store_check) {
        if (conf->store_check_ok(conf->store_check_arg, &why)) {
            return 1;
        }

        gcp_log(GCP_LOG_WARN, "%s check failed: %s", conf->store_check,
                why ? why : "?");
        return 0;
    }

    if (c->storage) {
        return h->storage_ok;
    }

    if (c->bootstrap) {
        return h->op->api->ready;
    }

    if (c->crds) {
        return gcp_crds_synced(h->op->api);
    }

    return 1;
}


/* kubernetes_healthcheck and _healthchecks_total (/metrics/slis) */

static void
gcp_health_observe(gcp_health_t *h, const gcp_check_t *c, int ok)
{
    const char  *v[4];

    v[0] = gcp_health_name(h, c);
    v[1] = h->kind;
    v[2] = NULL;
    gcp_metric_set(GCP_M_HEALTHCHECK, v, ok ? 1 : 0);

    v[1] = ok ? "success" : "error";
    v[2] = h->kind;
    v[3] = NULL;
    gcp_metric_inc(GCP_M_HEALTHCHECKS_TOTAL, v);
}


static void
gcp_health_report(gcp_health_t *h)
{
    int                 failed, ok;
    size_t              i;
    gcp_buf_t           b;
    const char         *name;
    gcp_op_t           *op = h->op;
    const gcp_check_t  *c;

    failed = 0;
    gcp_buf_init(&b, op->a);

    for (i = 0; i < gcp_nelems(gcp_checks); i++) {
        c = &gcp_checks[i];

        if (!gcp_health_applies(h, c)) {
            continue;
        }

        name = gcp_health_name(h, c);

        if (gcp_health_excluded(h, c)) {
            gcp_buf_printf(&b, "[+]%s excluded: ok\n", name);
            continue;
        }

        ok = gcp_health_ok(h, c);
        gcp_health_observe(h, c, ok);

        if (ok) {
            gcp_buf_printf(&b, "[+]%s ok\n", name);

        } else {
            gcp_buf_printf(&b, "[-]%s failed: reason withheld\n", name);
            failed = 1;
        }
    }


    if (h->only) {
        gcp_op_text(op, failed ? 500 : 200,
                    failed ? "internal server error" : "ok");
        return;
    }

    /* both end with a newline (Fprintf "...\n", http.Error) */
    gcp_buf_printf(&b, "%s check %s\n", h->kind,
                   failed ? "failed" : "passed");

    if (gcp_query_get(&op->q, "verbose") || failed) {
        gcp_op_text(op, failed ? 500 : 200, gcp_buf_cstr(&b));
        return;
    }

    gcp_op_text(op, 200, "ok");
}


static void
gcp_health_storage_done(void *arg, gcp_store_result_t *res)
{
    gcp_health_t  *h = arg;

    h->storage_ok = res->rc == GCP_OK || res->rc == GCP_ENOTFOUND;

    gcp_health_report(h);
}


int
gcp_health_handle(gcp_op_t *op)
{
    size_t         i, n;
    const char    *kind;
    gcp_health_t  *h;

    if (op->ri.nparts == 0) {
        return 0;
    }

    kind = op->ri.parts[0];

    if (strcmp(kind, "healthz") != 0 && strcmp(kind, "livez") != 0
        && strcmp(kind, "readyz") != 0)
    {
        return 0;
    }

    h = gcp_calloc(op->a, sizeof(gcp_health_t));
    if (h == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return 1;
    }

    h->op = op;
    h->kind = kind;

    if (op->ri.nparts > 1) {
        h->only = op->ri.path + strlen(kind) + 2;

        for (i = 0, n = 0; i < gcp_nelems(gcp_checks); i++) {
            n += gcp_health_applies(h, &gcp_checks[i]);
        }

        if (n == 0) {
            gcp_op_text(op, 404, "404 page not found\n");
            return 1;
        }
    }

    gcp_store_get(op->api->store, (gcp_str_t) gcp_string("/registry/health"),
                  0, op->a, gcp_health_storage_done, h);

    return 1;
}
