
/*
 * CRD conversion webhooks (see gcp_cr_convert.h): the review sent, the
 * answer checked, and the call.
 */

#include <stdlib.h>

#include "gcp_cr_convert.h"
#include "gcp_ferr.h"
#include "gcp_json.h"
#include "gcp_rand.h"
#include "gcp_validation.h"


struct gcp_cr_convert_s {
    gcp_arena_t         *a;
    const char          *in_gvk;
    const char          *review_version;
    const char          *to;
    char                 uid[GCP_UUID_LEN + 1];
    json_t             **all;           /* every object, referenced */
    size_t               n;
    json_t             **sent;          /* those sent (borrowed from all) */
    size_t               nsent;
    int                  list;
    gcp_cr_convert_pt    done;
    void                *arg;
};


int
gcp_cr_conversion_parse(gcp_arena_t *a, const json_t *crd,
    gcp_cr_conversion_t *c)
{
    size_t       i;
    json_t      *conv, *hook, *v, *cc;
    const char  *s;

    memset(c, 0, sizeof(gcp_cr_conversion_t));

    conv = json_object_get(json_object_get(crd, "spec"), "conversion");
    s = json_string_value(json_object_get(conv, "strategy"));

    if (s == NULL || strcmp(s, "Webhook") != 0) {
        return GCP_OK;
    }

    c->webhook = 1;
    hook = json_object_get(conv, "webhook");

    /* the first of conversionReviewVersions this server speaks */

    json_array_foreach(json_object_get(hook, "conversionReviewVersions"),
                       i, v)
    {
        s = json_string_value(v);

        if (s && (strcmp(s, "v1") == 0 || strcmp(s, "v1beta1") == 0)) {
            c->review_version = strcmp(s, "v1") == 0 ? "v1" : "v1beta1";
            break;
        }
    }

    cc = json_object_get(hook, "clientConfig");

    if (gcp_webhook_client_parse(a, cc, &c->client, &c->client_error)
        != GCP_OK)
    {
        if (c->client_error == NULL) {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


gcp_str_t
gcp_cr_convert_request(gcp_arena_t *a, const char *review_version,
    const char *uid, const char *to, json_t * const *objs, size_t n)
{
    size_t     i;
    json_t    *review, *req, *list;
    gcp_str_t  s = gcp_null_string;

    list = json_array();

    for (i = 0; list && i < n; i++) {
        if (json_array_append(list, objs[i]) != 0) {
            json_decref(list);
            list = NULL;
        }
    }

    req = json_pack("{s:s, s:s, s:o*}", "uid", uid, "desiredAPIVersion", to,
                    "objects", list);
    review = json_pack("{s:s, s:s, s:o*}",
                       "kind", "ConversionReview",
                       "apiVersion",
                       gcp_sprintf(a, "apiextensions.k8s.io/%s",
                                   review_version),
                       "request", req);

    if (review && list && req) {
        s = gcp_json_dump(a, review, 0);
    }

    json_decref(review);

    return s;
}


/* A labels or annotations object of metadata, or NULL; -1: not a map. */
static int
gcp_crc_map(const json_t *meta, const char *fld, json_t **m)
{
    *m = json_object_get(meta, fld);

    if (*m == NULL || json_is_null(*m)) {
        *m = NULL;
        return 0;
    }

    return json_is_object(*m) ? 0 : -1;
}


static const char *
gcp_crc_go_type(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "map[string]interface {}";
    case JSON_ARRAY:
        return "[]interface {}";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "int64";
    case JSON_REAL:
        return "float64";
    case JSON_TRUE:
    case JSON_FALSE:
        return "bool";
    default:
        return "<nil>";
    }
}


/*
 * restoreObjectMeta: out's metadata becomes in's, but for labels and
 * annotations, taken from out (validated when they changed).  Returns
 * NULL, or the reason (arena string).
 */
static const char *
gcp_crc_restore_meta(gcp_arena_t *a, const json_t *in, json_t *out)
{
    int           changed;
    size_t        k;
    json_t       *rmeta, *meta, *rf, *of, *v;
    gcp_ferrs_t   errs;
    const char   *key, *why;

    static const char * const  flds[] = { "labels", "annotations" };

    rmeta = json_object_get(out, "metadata");

    if (rmeta == NULL) {
        return "missing metadata in converted object";
    }

    if (!json_is_object(rmeta)) {
        return gcp_sprintf(a, "invalid metadata of type %s in converted "
                           "object", gcp_crc_go_type(rmeta));
    }

    json_incref(rmeta);

    meta = json_object_get(in, "metadata");
    meta = json_is_object(meta) ? json_deep_copy(meta) : json_object();

    if (meta == NULL || json_object_set_new(out, "metadata", meta) != 0) {
        json_decref(rmeta);
        return "out of memory";
    }

    why = NULL;

    for (k = 0; why == NULL && k < 2; k++) {
        if (gcp_crc_map(rmeta, flds[k], &rf) != 0) {
            why = gcp_sprintf(a, "invalid metadata.%s of type %s in "
                              "converted object", flds[k],
                              gcp_crc_go_type(json_object_get(rmeta,
                                                              flds[k])));
            break;
        }

        if (rf == NULL) {
            json_object_del(meta, flds[k]);
            continue;
        }

        if (gcp_crc_map(meta, flds[k], &of) != 0) {
            why = gcp_sprintf(a, "invalid metadata.%s of type %s in "
                              "original object", flds[k],
                              gcp_crc_go_type(json_object_get(meta,
                                                              flds[k])));
            break;
        }

        changed = json_object_size(rf) != json_object_size(of);

        json_object_foreach(rf, key, v) {
            if (!json_is_string(v)) {
                why = gcp_sprintf(a, "metadata.%s[%s] must be a string, "
                                  "but is %s in converted object", flds[k],
                                  key, gcp_crc_go_type(v));
                break;
            }

            if (!json_equal(v, json_object_get(of, key))) {
                changed = 1;
            }
        }

        if (why == NULL && changed) {
            gcp_ferrs_init(&errs, a);

            if (k == 0) {
                gcp_validate_labels(&errs, rf, "metadata.labels");

            } else {
                /* "annotation": upstream's field path, sic */
                gcp_validate_annotations(&errs, rf, "metadata.annotation");
            }

            if (errs.n) {
                why = gcp_ferrs_aggregate(&errs);
            }
        }

        if (why == NULL) {
            json_object_set(meta, flds[k], rf);
        }
    }

    json_decref(rmeta);

    return why;
}


static const char *
gcp_crc_str(const json_t *obj, const char *key)
{
    const char  *s = json_string_value(json_object_get(obj, key));

    return s ? s : "";
}


static const char *
gcp_crc_meta(const json_t *obj, const char *key)
{
    return gcp_crc_str(json_object_get(obj, "metadata"), key);
}


/* The group/version of an apiVersion as Go prints a GroupVersion. */
static const char *
gcp_crc_gv(const json_t *obj)
{
    return gcp_crc_str(obj, "apiVersion");
}


/* validateConvertedObject */
static const char *
gcp_crc_same(gcp_arena_t *a, const json_t *in, const json_t *out)
{
    static const char * const  what[] = { "name", "namespace", "uid" };
    static const char * const  word[] = { "name", "namespace", "UID" };
    size_t                     i;

    if (strcmp(gcp_crc_str(in, "kind"), gcp_crc_str(out, "kind")) != 0) {
        return gcp_sprintf(a, "must have the same kind: %s != %s",
                           gcp_crc_str(in, "kind"), gcp_crc_str(out, "kind"));
    }

    for (i = 0; i < 3; i++) {
        if (strcmp(gcp_crc_meta(in, what[i]), gcp_crc_meta(out, what[i]))
            != 0)
        {
            return gcp_sprintf(a, "must have the same %s: %s != %s", word[i],
                               gcp_crc_meta(in, what[i]),
                               gcp_crc_meta(out, what[i]));
        }
    }

    return NULL;
}


/* getConvertedObjectsFromResponse */
static const json_t *
gcp_crc_objects(gcp_arena_t *a, const char *review_version, const char *uid,
    const json_t *answer, const char **err)
{
    json_t      *resp, *result;
    const char  *av, *kind, *s, *msg;

    if (strcmp(review_version, "v1") == 0) {
        av = gcp_crc_str(answer, "apiVersion");
        kind = gcp_crc_str(answer, "kind");

        if (strcmp(av, "apiextensions.k8s.io/v1") != 0
            || strcmp(kind, "ConversionReview") != 0)
        {
            s = strchr(av, '/');
            *err = gcp_sprintf(a, "expected webhook response of "
                               "apiextensions.k8s.io/v1, "
                               "Kind=ConversionReview, got %.*s/%s, Kind=%s",
                               s ? (int) (s - av) : 0, av,
                               s ? s + 1 : av, kind);
            return NULL;
        }
    }

    resp = json_object_get(answer, "response");

    if (!json_is_object(resp)) {
        *err = "no response provided";
        return NULL;
    }

    if (strcmp(review_version, "v1") == 0
        && strcmp(gcp_crc_str(resp, "uid"), uid) != 0)
    {
        *err = gcp_sprintf(a, "expected response.uid=%s, got %s",
                           gcp_ferr_quote(a, uid),
                           gcp_ferr_quote(a, gcp_crc_str(resp, "uid")));
        return NULL;
    }

    result = json_object_get(resp, "result");
    s = gcp_crc_str(result, "status");

    if (strcmp(s, "Success") != 0) {
        msg = gcp_crc_str(result, "message");
        *err = msg[0] ? gcp_strdup(a, msg)
                      : gcp_sprintf(a, "response.result.status was '%s', "
                                    "not 'Success'", s);
        return NULL;
    }

    return json_object_get(resp, "convertedObjects");
}


int
gcp_cr_convert_answer(gcp_arena_t *a, const char *review_version,
    const char *uid, const char *to, json_t * const *in, size_t n,
    const json_t *answer, int list, json_t **out, const char **err)
{
    size_t         i, got;
    json_t        *o;
    const char    *why;
    const json_t  *objs;

    *err = NULL;

    for (i = 0; i < n; i++) {
        out[i] = NULL;
    }

    objs = gcp_crc_objects(a, review_version, uid, answer, err);
    if (objs == NULL && *err) {
        *err = gcp_sprintf(a, "failed: %s", *err);
        return GCP_EINVALID;
    }

    got = json_is_array(objs) ? json_array_size(objs) : 0;

    if (got != n) {
        *err = gcp_sprintf(a, "returned %zu objects, expected %zu", got, n);
        goto failed;
    }

    for (i = 0; i < n; i++) {
        o = json_array_get(objs, i);

        if (!json_is_object(o)) {
            *err = gcp_sprintf(a, "returned invalid converted object at "
                               "index %zu: Object 'Kind' is missing in '%s'",
                               i, json_is_null(o) ? "null" : "");
            goto failed;
        }

        /* upstream counts this one already in the next messages */

        if (strcmp(gcp_crc_gv(o), to) != 0) {
            *err = list ? gcp_sprintf(a, "returned invalid converted object "
                                      "at index %zu: invalid groupVersion "
                                      "(expected %s, received %s)", i + 1,
                                      to, gcp_crc_gv(o))
                        : gcp_sprintf(a, "returned invalid object at index "
                                      "0: invalid groupVersion (expected "
                                      "%s, received %s)", to, gcp_crc_gv(o));
            goto failed;
        }

        if (strcmp(gcp_crc_str(o, "kind"), gcp_crc_str(in[i], "kind")) != 0)
        {
            *err = gcp_sprintf(a, "returned invalid %sobject at index %zu: "
                               "invalid kind (expected %s, received %s)",
                               list ? "converted " : "", list ? i + 1 : 0,
                               gcp_crc_str(in[i], "kind"),
                               gcp_crc_str(o, "kind"));
            goto failed;
        }

        out[i] = json_deep_copy(o);
        if (out[i] == NULL) {
            goto nomem;
        }

        why = gcp_crc_same(a, in[i], out[i]);

        if (why) {
            *err = list ? gcp_sprintf(a, "returned invalid converted object "
                                      "at index %zu: %s", i + 1, why)
                        : gcp_sprintf(a, "returned invalid object: %s", why);
            goto failed;
        }

        why = gcp_crc_restore_meta(a, in[i], out[i]);

        if (why) {
            *err = list ? gcp_sprintf(a, "returned invalid metadata in object "
                                      "at index %zu: %s", i + 1, why)
                        : gcp_sprintf(a, "returned invalid metadata: %s",
                                      why);
            goto failed;
        }
    }

    return GCP_OK;

nomem:

    *err = NULL;

failed:

    for (i = 0; i < n; i++) {
        json_decref(out[i]);
        out[i] = NULL;
    }

    return *err ? GCP_EINVALID : GCP_ENOMEM;
}


/* ------------------------------------------------------------ the call */


static void
gcp_crc_finish(gcp_cr_convert_t *cv, int rc, const char *message)
{
    size_t  i;

    cv->done(cv->arg, rc, cv->all, cv->n, message);

    for (i = 0; i < cv->n; i++) {
        json_decref(cv->all[i]);
    }
}


static void
gcp_crc_fail(gcp_cr_convert_t *cv, const char *why)
{
    gcp_crc_finish(cv, GCP_EINTERNAL,
                   gcp_sprintf(cv->a, "conversion webhook for %s %s",
                               cv->in_gvk, why));
}


static void
gcp_crc_answered(void *arg, const gcp_webhook_reply_t *reply)
{
    int                rc;
    size_t             i, j;
    json_t           **out;
    const char        *err;
    gcp_cr_convert_t  *cv = arg;

    if (reply->rc != GCP_OK) {
        gcp_crc_fail(cv, gcp_sprintf(cv->a, "failed: %s", reply->error));
        return;
    }

    out = gcp_calloc(cv->a, (cv->nsent + 1) * sizeof(json_t *));
    if (out == NULL) {
        gcp_crc_finish(cv, GCP_ENOMEM, "out of memory");
        return;
    }

    err = NULL;
    rc = gcp_cr_convert_answer(cv->a, cv->review_version, cv->uid, cv->to,
                               cv->sent, cv->nsent, reply->json, cv->list,
                               out, &err);

    if (rc != GCP_OK) {
        if (rc == GCP_ENOMEM) {
            gcp_crc_finish(cv, GCP_ENOMEM, "out of memory");

        } else {
            gcp_crc_fail(cv, err);
        }

        return;
    }

    /* the converted objects where those sent were */

    for (i = 0, j = 0; i < cv->n; i++) {
        if (j < cv->nsent && cv->all[i] == cv->sent[j]) {
            json_decref(cv->all[i]);
            cv->all[i] = out[j++];
        }
    }

    gcp_crc_finish(cv, GCP_OK, NULL);
}


int
gcp_cr_convert(gcp_http_t *http, const gcp_api_conf_t *conf,
    gcp_arena_t *a, const gcp_cr_conversion_t *c, const char *in_gvk,
    const char *to, json_t * const *objs, size_t n, int list,
    gcp_cr_convert_pt done, void *arg)
{
    size_t             i;
    gcp_str_t          body;
    gcp_cr_convert_t  *cv;

    cv = gcp_calloc(a, sizeof(gcp_cr_convert_t));
    if (cv == NULL) {
        return GCP_ENOMEM;
    }

    cv->all = gcp_calloc(a, (n + 1) * sizeof(json_t *));
    cv->sent = gcp_calloc(a, (n + 1) * sizeof(json_t *));
    if (cv->all == NULL || cv->sent == NULL) {
        return GCP_ENOMEM;
    }

    /* the definition may go during the call: what it says is copied */

    cv->a = a;
    cv->in_gvk = in_gvk;
    cv->review_version = c->review_version
                         ? gcp_strdup(a, c->review_version) : NULL;
    cv->to = to;

    if (c->review_version && cv->review_version == NULL) {
        return GCP_ENOMEM;
    }
    cv->list = list;
    cv->done = done;
    cv->arg = arg;
    cv->n = n;

    /* only the objects in another version are sent */

    for (i = 0; i < n; i++) {
        cv->all[i] = json_incref(objs[i]);

        if (strcmp(gcp_crc_gv(objs[i]), to) != 0) {
            cv->sent[cv->nsent++] = objs[i];
        }
    }

    if (cv->nsent == 0) {
        gcp_crc_finish(cv, GCP_OK, NULL);
        return GCP_OK;
    }

    if (c->review_version == NULL) {
        gcp_crc_finish(cv, GCP_EINTERNAL,
                       "no supported conversion review versions");
        return GCP_OK;
    }

    if (c->client_error) {
        gcp_crc_fail(cv, gcp_sprintf(a, "failed: %s", c->client_error));
        return GCP_OK;
    }

    if (gcp_uuid_v4(cv->uid) != GCP_OK) {
        goto nomem;
    }

    body = gcp_cr_convert_request(a, c->review_version, cv->uid, to,
                                  cv->sent, cv->nsent);

    if (body.data == NULL
        || gcp_webhook_post(http, conf, a, &c->client, GCP_CR_CONVERT_TIMEOUT,
                            body, gcp_crc_answered, cv)
           != GCP_OK)
    {
        goto nomem;
    }

    return GCP_OK;

nomem:

    for (i = 0; i < n; i++) {
        json_decref(cv->all[i]);
    }

    return GCP_ENOMEM;
}
