
/*
 * What an instance's mirror copies (docs/storage.md, "Mirror identity"):
 * etcd's cluster id and the prefix, and whether etcd still holds the
 * mirror's revision.  Asked once by the nginx master before it forks the
 * workers (no worker exists yet, nothing else runs on its loop), so the
 * call runs to its end on a poll loop of its own, within the timeout.
 */

#include <stdio.h>

#include "gcp_etcd.h"


typedef struct {
    int          done;
    int          rc;
    const char  *prefix;
    char        *id;
    size_t       size;
} gcp_etcd_ident_t;


static void
gcp_etcd_identify_done(void *arg, gcp_etcd_reply_t *reply)
{
    int                n;
    json_t            *header;
    const char        *cluster;
    gcp_etcd_ident_t  *it = arg;

    it->done = 1;
    it->rc = reply->rc;

    if (reply->rc != GCP_OK) {
        return;
    }

    header = json_object_get(reply->json, "header");
    cluster = json_string_value(json_object_get(header, "cluster_id"));

    if (cluster == NULL) {
        it->rc = GCP_EINTERNAL;
        return;
    }

    n = snprintf(it->id, it->size, "etcd cluster %s prefix %s", cluster,
                 it->prefix);

    if (n < 0 || (size_t) n >= it->size) {
        it->rc = GCP_EINTERNAL;
    }
}


int
gcp_etcd_identify(const gcp_etcd_conf_t *conf, int64_t revision, char *id,
    size_t size, const char **err)
{
    gcp_buf_t          b;
    gcp_str_t          body;
    gcp_loop_t        *loop;
    const char        *prefix;
    gcp_arena_t       *a;
    gcp_etcd_call_t   *call;
    gcp_etcd_http_t   *http;
    gcp_etcd_ident_t   it;

    *err = NULL;

    if (size > 0) {
        id[0] = '\0';
    }

    if (gcp_etcd_check_conf(conf, err) != GCP_OK) {
        return GCP_EBADREQUEST;
    }

    prefix = conf->prefix ? conf->prefix : "";

    loop = gcp_loop_poll_create();
    a = gcp_arena_create(0);

    if (loop == NULL || a == NULL) {
        *err = "out of memory";
        it.rc = GCP_ENOMEM;
        goto done;
    }

    http = gcp_etcd_http_create(conf, loop, err);
    if (http == NULL) {
        it.rc = GCP_EINTERNAL;
        goto done;
    }

    /* the prefix's own key: a count at that revision, cheap in any case */
    gcp_buf_init(&b, a);
    gcp_buf_addstr(&b, "{\"key\":\"");

    if (prefix[0] != '\0') {
        gcp_base64_encode_buf(&b, prefix, strlen(prefix), GCP_BASE64_STD);

    } else {
        gcp_buf_addstr(&b, "AA==");
    }

    gcp_buf_addstr(&b, "\",\"count_only\":true");

    if (revision > 0) {
        gcp_buf_printf(&b, ",\"revision\":\"%lld\"", (long long) revision);
    }

    gcp_buf_addc(&b, '}');

    body.data = b.data;
    body.len = b.len;

    it.done = 0;
    it.rc = GCP_ENOMEM;
    it.prefix = prefix;
    it.id = id;
    it.size = size;

    call = gcp_buf_failed(&b) ? NULL
           : gcp_etcd_http_unary(http, "/v3/kv/range", body, GCP_ETCD_SAFE,
                                 gcp_etcd_identify_done, &it);

    /* the call ends by itself within conf's timeout */
    while (call != NULL && !it.done) {
        if (gcp_loop_poll_run(loop, 100) < 0) {
            gcp_etcd_http_cancel(http, call);
            it.rc = GCP_EINTERNAL;
            break;
        }
    }

    gcp_etcd_http_destroy(http);

    if (it.rc != GCP_OK) {
        *err = (it.rc == GCP_ECOMPACTED) ? "the revision was compacted"
               : (it.rc == GCP_EFUTURE) ? "the revision is in etcd's future"
               : gcp_error_info(it.rc)->message;
        id[0] = '\0';
    }

done:

    if (a) {
        gcp_arena_destroy(a);
    }

    if (loop) {
        gcp_loop_poll_destroy(loop);
    }

    return it.rc;
}


int
gcp_etcd_claim(void *arg, int64_t revision, const char *recorded,
    const char **source)
{
    int                 rc;
    const char         *err;
    gcp_etcd_claim_t   *cl = arg;

    cl->why = NULL;
    *source = cl->id;

    rc = gcp_etcd_identify(cl->conf, revision, cl->id, sizeof(cl->id), &err);

    if (rc == GCP_OK && strcmp(cl->id, recorded) == 0) {
        return 1;
    }

    if (revision == 0) {
        /* never loaded: nothing to keep */
        cl->why = (rc == GCP_OK) ? NULL : err;
        return 0;
    }

    cl->why = (rc == GCP_OK) ? "another etcd cluster or prefix" : err;

    if (rc == GCP_ECOMPACTED || rc == GCP_EFUTURE) {
        (void) gcp_etcd_identify(cl->conf, 0, cl->id, sizeof(cl->id), &err);
    }

    return 0;
}
