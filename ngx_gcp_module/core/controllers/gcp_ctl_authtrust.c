
/*
 * The cluster authentication trust controller (kube-apiserver's
 * start-cluster-authentication-info-controller, v1.32): the ConfigMap
 * kube-system/extension-apiserver-authentication tells servers built on
 * k8s.io/apiserver how to trust this one: client-ca-file (the client CAs),
 * and with a front-proxy CA its requestheader-* settings (JSON lists) and
 * requestheader-client-ca-file.  As upstream, what the ConfigMap holds is
 * merged with this server's (several servers share it): the lists in
 * order without duplicates, the CA bundles as the union of their
 * certificates, those expired for more than five minutes left out.  It
 * is put back when edited or deleted.
 */

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdlib.h>

#include "gcp_auth.h"
#include "gcp_ctl_int.h"
#include "gcp_json.h"
#include "gcp_object.h"
#include "gcp_types.h"


#define GCP_TRUST_NS    "kube-system"
#define GCP_TRUST_NAME  "extension-apiserver-authentication"


/* Appends the certificates of pem (NULL: none) not yet in certs. */
static void
gcp_trust_certs_add(STACK_OF(X509) *certs, const char *pem)
{
    int          i, dup;
    BIO         *bio;
    X509        *x;
    time_t       limit;

    if (pem == NULL) {
        return;
    }

    bio = BIO_new_mem_buf(pem, -1);
    limit = time(NULL) - 5 * 60;

    while (bio && (x = PEM_read_bio_X509(bio, NULL, NULL, NULL))) {
        dup = X509_cmp_time(X509_get0_notAfter(x), &limit) < 0;

        for (i = 0; !dup && i < sk_X509_num(certs); i++) {
            dup = X509_cmp(x, sk_X509_value(certs, i)) == 0;
        }

        if (dup || !sk_X509_push(certs, x)) {
            X509_free(x);
        }
    }

    BIO_free(bio);
    ERR_clear_error();
}


/* The union of two bundles as PEM (arena), or NULL when it is empty. */
static const char *
gcp_trust_bundle(gcp_arena_t *a, const char *old, const char *ours)
{
    int              i;
    BIO             *mem;
    long             len;
    char            *data;
    const char      *out;
    STACK_OF(X509)  *certs;

    certs = sk_X509_new_null();
    mem = BIO_new(BIO_s_mem());
    out = NULL;

    if (certs && mem) {
        gcp_trust_certs_add(certs, old);
        gcp_trust_certs_add(certs, ours);

        for (i = 0; i < sk_X509_num(certs); i++) {
            PEM_write_bio_X509(mem, sk_X509_value(certs, i));
        }

        len = BIO_get_mem_data(mem, &data);
        out = len > 0 ? gcp_strndup(a, data, (size_t) len) : NULL;
    }

    sk_X509_pop_free(certs, X509_free);
    BIO_free(mem);

    return out;
}


/* The union of a JSON list of strings (old, text) and ours, as text. */
static char *
gcp_trust_list(const char *old, const char * const *ours)
{
    char     *s;
    size_t    i, j;
    json_t   *prev, *out, *v;

    out = json_array();
    prev = old ? json_loads(old, 0, NULL) : NULL;

    if (out == NULL) {
        json_decref(prev);
        return NULL;
    }

    json_array_foreach(prev, i, v) {
        if (json_is_string(v)) {
            for (j = 0; j < json_array_size(out); j++) {
                if (json_equal(json_array_get(out, j), v)) {
                    break;
                }
            }

            if (j == json_array_size(out)) {
                json_array_append(out, v);
            }
        }
    }

    for (i = 0; ours && ours[i]; i++) {
        v = json_string(ours[i]);

        for (j = 0; v && j < json_array_size(out); j++) {
            if (json_equal(json_array_get(out, j), v)) {
                break;
            }
        }

        if (v && j == json_array_size(out)) {
            json_array_append(out, v);
        }

        json_decref(v);
    }

    s = json_dumps(out, JSON_COMPACT);

    json_decref(prev);
    json_decref(out);

    return s;
}


static int
gcp_trust_put_list(gcp_arena_t *a, json_t *data, const json_t *old,
    const char *key, const char * const *ours)
{
    char  *s;
    int    rc;

    s = gcp_trust_list(json_string_value(json_object_get(old, key)), ours);
    if (s == NULL) {
        return GCP_ENOMEM;
    }

    rc = json_object_set_new(data, key, json_string(s)) == 0
         ? GCP_OK : GCP_ENOMEM;
    free(s);

    return rc;
}


/* The data the ConfigMap should hold, given what it holds (may be NULL). */
static json_t *
gcp_trust_data(gcp_arena_t *a, const gcp_auth_info_t *info,
    const json_t *old)
{
    json_t      *data;
    const char  *ca;

    static const char * const  none[] = { NULL };

    data = json_object();
    if (data == NULL) {
        return NULL;
    }

    ca = gcp_trust_bundle(a, json_string_value(json_object_get(old,
                                                   "client-ca-file")),
                          info->client_ca);

    if (ca) {
        json_object_set_new(data, "client-ca-file", json_string(ca));
    }

    ca = gcp_trust_bundle(a, json_string_value(json_object_get(old,
                                         "requestheader-client-ca-file")),
                          info->requestheader_ca);

    if (ca == NULL) {
        return data;
    }

    if (gcp_trust_put_list(a, data, old, "requestheader-username-headers",
                           info->username_headers) != GCP_OK
        || gcp_trust_put_list(a, data, old, "requestheader-uid-headers",
                              none) != GCP_OK
        || gcp_trust_put_list(a, data, old, "requestheader-group-headers",
                              info->group_headers) != GCP_OK
        || gcp_trust_put_list(a, data, old,
                              "requestheader-extra-headers-prefix",
                              info->extra_prefixes) != GCP_OK
        || gcp_trust_put_list(a, data, old, "requestheader-allowed-names",
                              info->allowed_names) != GCP_OK
        || json_object_set_new(data, "requestheader-client-ca-file",
                               json_string(ca)) != 0)
    {
        json_decref(data);
        return NULL;
    }

    return data;
}


static void
gcp_trust_written(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    static const int  ok[] = { 200, 201, 0 };

    gcp_ctl_call_done(item, resp, ok, GCP_ECONFLICT);
}


static void
gcp_trust_got(gcp_ctl_item_t *item, int rc, const gcp_kv_t *kv)
{
    char            *body;
    json_t          *cm, *data, *old;
    const char      *path;
    gcp_ctl_base_t  *b = item->ctx;
    gcp_auth_info_t  info;

    if (rc != GCP_OK) {
        gcp_ctl_queue_done(item, rc, 0);
        return;
    }

    gcp_auth_info(b->ctl->api->conf.auth, &info);

    cm = kv ? gcp_object_decode(item->arena, kv->value, kv->mod_revision)
            : NULL;
    old = json_object_get(cm, "data");

    data = gcp_trust_data(item->arena, &info, old);
    if (data == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    if (kv && cm && (old ? json_equal(data, old)
                         : json_object_size(data) == 0))
    {
        json_decref(data);
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    if (kv && cm == NULL) {
        json_decref(data);
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    path = gcp_ctl_path(item->arena, &gcp_type_configmaps, GCP_TRUST_NS);

    if (cm) {
        cm = json_deep_copy(cm);
        path = gcp_sprintf(item->arena, "%s/%s", path, GCP_TRUST_NAME);

    } else {
        cm = json_pack("{s:{s:s, s:s}}", "metadata", "name", GCP_TRUST_NAME,
                       "namespace", GCP_TRUST_NS);
    }

    if (cm) {
        json_object_set(cm, "data", data);
    }

    json_decref(data);
    body = cm ? json_dumps(cm, JSON_COMPACT) : NULL;
    json_decref(cm);

    if (body == NULL || path == NULL) {
        free(body);
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_call(item, kv ? "PUT" : "POST", path, NULL,
                 gcp_strdup(item->arena, body), gcp_trust_written);
    free(body);
}


static void
gcp_trust_sync(gcp_ctl_item_t *item)
{
    gcp_ctl_get(item, gcp_object_key(item->arena, &gcp_type_configmaps,
                                     GCP_TRUST_NS, GCP_TRUST_NAME),
                gcp_trust_got);
}


static void *
gcp_trust_create(gcp_ctl_t *ctl)
{
    return gcp_ctl_base_create(ctl, sizeof(gcp_ctl_base_t),
                               "cluster_authentication_trust_controller", 1,
                               gcp_trust_sync);
}


static void
gcp_trust_event(void *c, gcp_ctl_event_t *ev)
{
    gcp_ctl_base_t  *b = c;

    if (ev->res == &gcp_type_configmaps
        && strcmp(ev->ns, GCP_TRUST_NS) == 0
        && strcmp(ev->name, GCP_TRUST_NAME) == 0)
    {
        gcp_ctl_queue_add(b->queue, GCP_TRUST_NAME);
    }
}


static void
gcp_trust_resync(void *c)
{
    gcp_ctl_base_t  *b = c;

    gcp_ctl_queue_add(b->queue, GCP_TRUST_NAME);
}


static void
gcp_trust_synced(void *c)
{
    gcp_trust_resync(c);
    gcp_ctl_base_synced(c);
}


const gcp_ctl_controller_t  gcp_ctl_authtrust_controller = {
    "cluster-authentication-trust-controller",
    GCP_CTL_AUTH_TRUST,
    gcp_trust_create,
    gcp_trust_event,
    NULL,
    gcp_trust_synced,
    gcp_trust_resync,
    gcp_ctl_base_stop,
    gcp_ctl_base_free,
};
