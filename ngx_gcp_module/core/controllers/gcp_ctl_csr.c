
/*
 * The CSR signing controller (certificatesigningrequest-signing-
 * controller, pkg/controller/certificates/signer): an approved request
 * without a certificate, for a signer this instance runs
 * (gcp_ctl_conf_t signers), gets one through /status, valid for
 * min(expirationSeconds, the signing duration).  Requests the
 * kube-apiserver-client signer may not sign (usages, system:masters) get
 * a Failed condition instead.  A write that meets a newer revision is
 * retried from the stored object, so that two runs never issue twice.
 */

#include <stdlib.h>

#include "gcp_base64.h"
#include "gcp_csr.h"
#include "gcp_ctl_int.h"
#include "gcp_json.h"
#include "gcp_log.h"
#include "gcp_object.h"
#include "gcp_time.h"


#define GCP_CTL_CSR_WORKERS  5      /* --concurrent-certificate-syncs */


typedef struct {
    const char    *name;
    gcp_csr_ca_t  *ca;
} gcp_ctl_csr_signer_t;


typedef struct {
    gcp_ctl_base_t         base;
    gcp_ctl_csr_signer_t  *signers;
    size_t                 n;
    long                   duration;
} gcp_ctl_csr_t;


static gcp_csr_ca_t *
gcp_ctl_csr_ca(gcp_ctl_csr_t *c, const char *signer)
{
    size_t  i;

    for (i = 0; i < c->n; i++) {
        if (strcmp(c->signers[i].name, signer) == 0) {
            return c->signers[i].ca;
        }
    }

    return NULL;
}


static void
gcp_ctl_csr_written(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    /* 404: gone; 409: changed since read, retried by the backoff */

    static const int  ok[] = { 200, 404, 0 };

    gcp_ctl_call_done(item, resp, ok, GCP_ECONFLICT);
}


/* PUT .../NAME/status with obj. */
static void
gcp_ctl_csr_put(gcp_ctl_item_t *item, json_t *obj)
{
    char  *body;

    body = json_dumps(obj, JSON_COMPACT);

    if (body == NULL
        || gcp_arena_cleanup(item->arena, free, body) != GCP_OK)
    {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_call(item, "PUT",
                 gcp_sprintf(item->arena, "%s/%s/status",
                             gcp_ctl_path(item->arena,
                                 &gcp_type_certificatesigningrequests, ""),
                             item->key),
                 NULL, body, gcp_ctl_csr_written);
}


/* A Failed condition (SignerValidationFailure) with message. */
static void
gcp_ctl_csr_fail(gcp_ctl_item_t *item, json_t *obj, const char *message)
{
    char     now[GCP_TIME_BUFSIZE];
    json_t  *status, *conds;

    gcp_time_format(now, gcp_time_now().tv_sec);

    status = json_object_get(obj, "status");

    if (!json_is_object(status)) {
        status = json_object();
        json_object_set_new(obj, "status", status);
    }

    conds = json_object_get(status, "conditions");

    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(status, "conditions", conds);
    }

    if (conds == NULL
        || json_array_append_new(conds,
               json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", "Failed",
                         "status", "True", "reason",
                         "SignerValidationFailure", "message", message,
                         "lastUpdateTime", now)) != 0)
    {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_csr_put(item, obj);
}


static void
gcp_ctl_csr_got(gcp_ctl_item_t *item, json_t *obj)
{
    int              rc;
    long             ttl;
    gcp_str_t        pem, req, b64;
    const char      *signer, *err;
    gcp_csr_ca_t    *ca;
    gcp_ctl_csr_t   *c = item->ctx;
    gcp_csr_info_t   info;
    const json_t    *cert, *exp;

    if (obj == NULL) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    cert = json_object_get(json_object_get(obj, "status"), "certificate");
    signer = json_string_value(json_object_get(json_object_get(obj, "spec"),
                                               "signerName"));

    if (json_string_length(cert) || signer == NULL
        || !gcp_csr_has_true(obj, "Approved")
        || gcp_csr_has_true(obj, "Failed"))
    {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    ca = gcp_ctl_csr_ca(c, signer);

    if (ca == NULL) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    if (strcmp(signer, GCP_CSR_SIGNER_APISERVER_CLIENT) == 0) {
        rc = gcp_csr_bytes(item->arena, obj, "spec", "request", &req);

        if (rc == GCP_OK) {
            rc = gcp_csr_parse(item->arena, req.data, req.len, &info, &err);
        }

        if (rc == GCP_ENOMEM) {
            gcp_ctl_queue_done(item, rc, 0);
            return;
        }

        if (rc != GCP_OK) {
            gcp_log(GCP_LOG_ERR, "csrsigning: unable to parse csr \"%s\"",
                    item->key);
            gcp_ctl_queue_done(item, GCP_OK, 0);
            return;
        }

        err = gcp_csr_apiserver_client_check(item->arena, obj, &info);

        if (err) {
            gcp_ctl_csr_fail(item, obj, err);
            return;
        }
    }

    exp = json_object_get(json_object_get(obj, "spec"), "expirationSeconds");
    ttl = gcp_csr_duration(json_is_integer(exp)
                           ? (long) json_integer_value(exp) : -1,
                           c->duration);

    rc = gcp_csr_sign(item->arena, ca, obj, gcp_time_now().tv_sec, ttl, &pem,
                      &err);

    if (rc != GCP_OK) {
        if (rc != GCP_ENOMEM) {
            gcp_log(GCP_LOG_ERR, "csrsigning: error auto signing csr "
                    "\"%s\": %s", item->key, err ? err : "");
        }

        gcp_ctl_queue_done(item, rc, 0);
        return;
    }

    b64 = gcp_base64_encode(item->arena, pem.data, pem.len);

    if (b64.data == NULL
        || json_object_set_new(json_object_get(obj, "status"), "certificate",
                               json_stringn(b64.data, b64.len)) != 0)
    {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_csr_put(item, obj);
}


static void
gcp_ctl_csr_sync(gcp_ctl_item_t *item)
{
    gcp_ctl_get_object(item,
                       gcp_object_key(item->arena,
                                      &gcp_type_certificatesigningrequests,
                                      "", item->key),
                       gcp_ctl_csr_got);
}


static void *
gcp_ctl_csr_create(gcp_ctl_t *ctl)
{
    char                     err[256];
    size_t                   i;
    gcp_ctl_csr_t           *c;
    const gcp_ctl_signer_t  *s;

    c = gcp_ctl_base_create(ctl, sizeof(gcp_ctl_csr_t), "csrsigning",
                            GCP_CTL_CSR_WORKERS, gcp_ctl_csr_sync);
    if (c == NULL) {
        return NULL;
    }

    c->duration = ctl->conf->signing_duration > 0
                  ? ctl->conf->signing_duration : GCP_CSR_DEFAULT_DURATION;

    c->signers = calloc(ctl->conf->nsigners + 1,
                        sizeof(gcp_ctl_csr_signer_t));
    if (c->signers == NULL) {
        gcp_ctl_base_free(c);
        return NULL;
    }

    for (i = 0; i < ctl->conf->nsigners; i++) {
        s = &ctl->conf->signers[i];

        c->signers[c->n].ca = gcp_csr_ca_load(s->cert, s->cert_len, s->key,
                                              s->key_len, err, sizeof(err));

        if (c->signers[c->n].ca == NULL) {
            /* checked when the configuration was read: out of memory */
            gcp_log(GCP_LOG_ERR, "csrsigning: signer \"%s\": %s", s->name,
                    err);
            continue;
        }

        c->signers[c->n++].name = s->name;
    }

    return c;
}


static void
gcp_ctl_csr_event(void *c, gcp_ctl_event_t *ev)
{
    gcp_ctl_csr_t  *csr = c;

    if (ev->res == &gcp_type_certificatesigningrequests
        && ev->type != GCP_CTL_EV_DELETE && csr->n)
    {
        gcp_ctl_queue_add(csr->base.queue, ev->name);
    }
}


static void
gcp_ctl_csr_free(void *c)
{
    size_t          i;
    gcp_ctl_csr_t  *csr = c;

    for (i = 0; i < csr->n; i++) {
        gcp_csr_ca_free(csr->signers[i].ca);
    }

    free(csr->signers);

    gcp_ctl_base_free(c);
}


const gcp_ctl_controller_t  gcp_ctl_csr_signing_controller = {
    "certificatesigningrequest-signing-controller",
    GCP_CTL_CSR_SIGNING,
    gcp_ctl_csr_create,
    gcp_ctl_csr_event,
    NULL,
    gcp_ctl_base_synced,
    NULL,
    gcp_ctl_base_stop,
    gcp_ctl_csr_free,
};
