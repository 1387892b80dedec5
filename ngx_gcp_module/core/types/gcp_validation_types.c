
/*
 * Per-type validation (see gcp_validation.h): ConfigMap, Secret, Namespace,
 * Event and Lease, after pkg/apis/core/validation and
 * pkg/apis/coordination/validation of Kubernetes v1.32.
 */

#include <stdio.h>

#include "gcp_json.h"
#include "gcp_validation_types.h"


#define GCP_IMMUTABLE_SET  "field is immutable when `immutable` is set"


static const char *
gcp_vt_str(const json_t *obj, const char *key, size_t *len)
{
    json_t  *v;

    v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

    if (!json_is_string(v)) {
        *len = 0;
        return "";
    }

    *len = json_string_length(v);

    return json_string_value(v);
}


/* absent and null are the same (a nil map or pointer) */
static const json_t *
gcp_vt_get(const json_t *obj, const char *key)
{
    json_t  *v;

    v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

    return json_is_null(v) ? NULL : v;
}


/* reflect.DeepEqual of two optional values */
static int
gcp_vt_equal(const json_t *a, const json_t *b)
{
    if (a == NULL || b == NULL) {
        return a == b;
    }

    return json_equal((json_t *) a, (json_t *) b);
}


/* the decoded length of a base64 value (already checked) */
static size_t
gcp_vt_b64_len(const json_t *v)
{
    size_t       i, n, pad, len;
    const char  *s;

    if (!json_is_string(v)) {
        return 0;
    }

    s = json_string_value(v);
    len = json_string_length(v);
    n = 0;
    pad = 0;

    for (i = 0; i < len; i++) {
        if (s[i] == '=') {
            pad++;

        } else if (s[i] != '\n' && s[i] != '\r') {
            n++;
        }
    }

    return (n + pad) / 4 * 3 - gcp_min(pad, 2);
}


static char *
gcp_vt_key_field(gcp_ferrs_t *errs, const char *base, const char *key,
    size_t klen)
{
    char  *f;

    f = gcp_sprintf(errs->arena, "%s[%.*s]", base, (int) klen, key);
    if (f == NULL) {
        errs->nomem = 1;
    }

    return f;
}


static void
gcp_vt_check_keys(gcp_ferrs_t *errs, const json_t *map, const char *base,
    const json_t *other, const char *dup_msg)
{
    char        *fld;
    size_t       klen;
    json_t      *v;
    gcp_msgs_t   m;
    const char  *k;

    if (!json_is_object(map)) {
        return;
    }

    json_object_keylen_foreach((json_t *) map, k, klen, v) {
        fld = gcp_vt_key_field(errs, base, k, klen);
        if (fld == NULL) {
            return;
        }

        gcp_is_config_map_key(k, klen, &m);
        gcp_ferrs_add_msgs(errs, fld, k, klen, &m);

        if (dup_msg && json_is_object(other)
            && json_object_getn(other, k, klen) != NULL)
        {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, fld,
                          gcp_go_quote(errs->arena, k, klen), "%s", dup_msg);
        }
    }
}


/* decoding: base64 values */


static int
gcp_vt_decode_check(gcp_arena_t *a, const json_t *map, const char **msg)
{
    int          rc;
    json_t      *v;
    gcp_str_t    out;
    const char  *k;

    if (!json_is_object(map)) {
        return GCP_OK;
    }

    json_object_foreach((json_t *) map, k, v) {
        if (!json_is_string(v)) {
            continue;
        }

        rc = gcp_base64_decode(a, json_string_value(v), json_string_length(v),
                               &out, msg);
        if (rc != GCP_OK) {
            return rc;
        }
    }

    return GCP_OK;
}


int
gcp_decode_check_configmap(gcp_arena_t *a, const json_t *obj,
    const char **msg)
{
    return gcp_vt_decode_check(a, gcp_vt_get(obj, "binaryData"), msg);
}


int
gcp_decode_check_secret(gcp_arena_t *a, const json_t *obj,
    const char **msg)
{
    return gcp_vt_decode_check(a, gcp_vt_get(obj, "data"), msg);
}


/* ConfigMap */


void
gcp_validate_configmap(gcp_ferrs_t *errs, const json_t *obj)
{
    size_t         total;
    json_t        *v;
    const char    *k;
    const json_t  *data, *bin;

    data = gcp_vt_get(obj, "data");
    bin = gcp_vt_get(obj, "binaryData");
    total = 0;

    gcp_vt_check_keys(errs, data, "data", bin,
                      "duplicate of key present in binaryData");
    gcp_vt_check_keys(errs, bin, "binaryData", NULL, NULL);

    if (json_is_object(data)) {
        json_object_foreach((json_t *) data, k, v) {
            total += json_is_string(v) ? json_string_length(v) : 0;
        }
    }

    if (json_is_object(bin)) {
        json_object_foreach((json_t *) bin, k, v) {
            total += gcp_vt_b64_len(v);
        }
    }

    if (total > GCP_MAX_SECRET_SIZE) {
        /* the path "" stands for the whole object */
        gcp_ferrs_add(errs, GCP_FERR_TOO_LONG, "", NULL,
                      "must have at most %d bytes", GCP_MAX_SECRET_SIZE);
    }
}


void
gcp_validate_configmap_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    if (json_is_true(gcp_vt_get(old, "immutable"))) {
        if (!json_is_true(gcp_vt_get(obj, "immutable"))) {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "immutable", NULL,
                          GCP_IMMUTABLE_SET);
        }

        if (!gcp_vt_equal(gcp_vt_get(obj, "data"), gcp_vt_get(old, "data")))
        {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "data", NULL,
                          GCP_IMMUTABLE_SET);
        }

        if (!gcp_vt_equal(gcp_vt_get(obj, "binaryData"),
                          gcp_vt_get(old, "binaryData")))
        {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "binaryData", NULL,
                          GCP_IMMUTABLE_SET);
        }
    }

    gcp_validate_configmap(errs, obj);
}


/* Secret */


/* json.Unmarshal(b, &map[string]interface{}{}) of a docker config */
static void
gcp_vt_docker_json(gcp_ferrs_t *errs, const json_t *v, const char *key)
{
    int               rc;
    char             *fld;
    json_t           *doc;
    gcp_str_t         raw;
    const char       *msg, *what;
    gcp_json_info_t   info;

    if (!json_is_string(v)) {
        raw.data = "";
        raw.len = 0;

    } else if (gcp_base64_decode(errs->arena, json_string_value(v),
                                 json_string_length(v), &raw, &msg)
               != GCP_OK)
    {
        return;                         /* a 400 at decoding already */
    }

    rc = gcp_json_parse_ex(errs->arena, raw.data, raw.len, 0, &doc, &info);

    if (rc == GCP_ENOMEM) {
        errs->nomem = 1;
        return;
    }

    msg = info.msg;

    if (rc == GCP_OK) {
        switch (json_typeof(doc)) {
        case JSON_OBJECT:
        case JSON_NULL:
            return;

        case JSON_ARRAY:
            what = "array";
            break;

        case JSON_STRING:
            what = "string";
            break;

        case JSON_TRUE:
        case JSON_FALSE:
            what = "bool";
            break;

        default:
            what = "number";
        }

        msg = gcp_sprintf(errs->arena, "json: cannot unmarshal %s into Go "
                          "value of type map[string]interface {}", what);
    }

    fld = gcp_sprintf(errs->arena, "data[%s]", key);

    gcp_ferrs_add(errs, GCP_FERR_INVALID, fld, "\"<secret contents "
                  "redacted>\"", "%s", msg ? msg : "");
}


static void
gcp_vt_required_key(gcp_ferrs_t *errs, const char *key)
{
    char  *fld;

    fld = gcp_sprintf(errs->arena, "data[%s]", key);
    gcp_ferrs_add(errs, GCP_FERR_REQUIRED, fld, NULL, NULL);
}


void
gcp_validate_secret(gcp_ferrs_t *errs, const json_t *obj)
{
    size_t         total, len;
    json_t        *v;
    const char    *k, *type;
    const json_t  *data, *d;

    data = gcp_vt_get(obj, "data");
    total = 0;

    gcp_vt_check_keys(errs, data, "data", NULL, NULL);

    if (json_is_object(data)) {
        json_object_foreach((json_t *) data, k, v) {
            total += gcp_vt_b64_len(v);
        }
    }

    if (total > GCP_MAX_SECRET_SIZE) {
        gcp_ferrs_add(errs, GCP_FERR_TOO_LONG, "data", NULL,
                      "must have at most %d bytes", GCP_MAX_SECRET_SIZE);
    }

    type = gcp_vt_str(obj, "type", &len);

#define gcp_vt_has(key)                                                       \
    (json_is_object(data) && json_object_get(data, key) != NULL)

    if (strcmp(type, "kubernetes.io/service-account-token") == 0) {
        gcp_vt_str(gcp_json_get(obj, "metadata", "annotations", NULL),
                   "kubernetes.io/service-account.name", &len);

        if (len == 0) {
            gcp_ferrs_add(errs, GCP_FERR_REQUIRED, "metadata.annotations"
                          "[kubernetes.io/service-account.name]", NULL, NULL);
        }

    } else if (strcmp(type, "kubernetes.io/dockercfg") == 0
               || strcmp(type, "kubernetes.io/dockerconfigjson") == 0)
    {
        k = (strcmp(type, "kubernetes.io/dockercfg") == 0)
            ? ".dockercfg" : ".dockerconfigjson";

        if (!gcp_vt_has(k)) {
            gcp_vt_required_key(errs, k);

        } else {
            gcp_vt_docker_json(errs, json_object_get(data, k), k);
        }

    } else if (strcmp(type, "kubernetes.io/basic-auth") == 0) {
        if (!gcp_vt_has("username") && !gcp_vt_has("password")) {
            gcp_vt_required_key(errs, "username");
            gcp_vt_required_key(errs, "password");
        }

    } else if (strcmp(type, "kubernetes.io/ssh-auth") == 0) {
        d = json_is_object(data) ? json_object_get(data, "ssh-privatekey")
                                 : NULL;

        if (gcp_vt_b64_len(d) == 0) {
            gcp_vt_required_key(errs, "ssh-privatekey");
        }

    } else if (strcmp(type, "kubernetes.io/tls") == 0) {
        if (!gcp_vt_has("tls.crt")) {
            gcp_vt_required_key(errs, "tls.crt");
        }

        if (!gcp_vt_has("tls.key")) {
            gcp_vt_required_key(errs, "tls.key");
        }
    }

#undef gcp_vt_has
}


void
gcp_validate_secret_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    size_t       nlen, olen;
    const char  *n, *o;

    n = gcp_vt_str(obj, "type", &nlen);
    o = gcp_vt_str(old, "type", &olen);

    if (nlen != olen || memcmp(n, o, nlen) != 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "type",
                      gcp_go_quote(errs->arena, n, nlen),
                      "field is immutable");
    }

    if (json_is_true(gcp_vt_get(old, "immutable"))) {
        if (!json_is_true(gcp_vt_get(obj, "immutable"))) {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "immutable", NULL,
                          GCP_IMMUTABLE_SET);
        }

        if (!gcp_vt_equal(gcp_vt_get(obj, "data"), gcp_vt_get(old, "data")))
        {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "data", NULL,
                          GCP_IMMUTABLE_SET);
        }
    }

    gcp_validate_secret(errs, obj);
}


/* Namespace */


static void
gcp_vt_ns_finalizers(gcp_ferrs_t *errs, const json_t *obj, int indexed)
{
    char    *fld;
    size_t   i;
    json_t  *v, *list;

    list = gcp_json_get(obj, "spec", "finalizers", NULL);

    if (!json_is_array(list)) {
        return;
    }

    json_array_foreach(list, i, v) {
        if (!json_is_string(v)) {
            continue;
        }

        fld = indexed ? gcp_sprintf(errs->arena, "spec.finalizers[%zu]", i)
                      : (char *) "spec.finalizers";

        gcp_validate_finalizer_name(errs, fld ? fld : "spec.finalizers",
                                    json_string_value(v),
                                    json_string_length(v), 1);
    }
}


void
gcp_validate_namespace(gcp_ferrs_t *errs, const json_t *obj)
{
    gcp_vt_ns_finalizers(errs, obj, 0);
}


void
gcp_validate_namespace_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    /* the namespace strategy runs ValidateNamespace on the new object */
    gcp_vt_ns_finalizers(errs, obj, 0);
}


void
gcp_validate_namespace_finalize(gcp_ferrs_t *errs, const json_t *obj)
{
    gcp_vt_ns_finalizers(errs, obj, 1);
}


void
gcp_validate_namespace_status(gcp_ferrs_t *errs, const json_t *obj)
{
    size_t       len, dlen;
    const char  *phase;

    phase = gcp_vt_str(gcp_vt_get(obj, "status"), "phase", &len);
    gcp_vt_str(gcp_vt_get(obj, "metadata"), "deletionTimestamp", &dlen);

    if (dlen == 0) {
        if (strcmp(phase, "Active") != 0) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, "status.Phase",
                          gcp_go_quote(errs->arena, phase, len),
                          "may only be 'Active' if `deletionTimestamp` is "
                          "empty");
        }

    } else if (strcmp(phase, "Terminating") != 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "status.Phase",
                      gcp_go_quote(errs->arena, phase, len),
                      "may only be 'Terminating' if `deletionTimestamp` is "
                      "not empty");
    }
}


/* Event (core/v1 form, internal field names) */


static int
gcp_vt_time_zero(const json_t *obj, const char *key)
{
    size_t  len;

    gcp_vt_str(obj, key, &len);

    return len == 0;
}


static void
gcp_vt_event_limit(gcp_ferrs_t *errs, const json_t *obj, const char *key,
    const char *field, size_t limit, int required)
{
    size_t  len;

    gcp_vt_str(obj, key, &len);

    if (required && len == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, field, NULL, NULL);
    }

    if (len > limit) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field, "\"\"",
                      "can have at most %zu characters", limit);
    }
}


/* legacyValidateEvent() */
static void
gcp_vt_event_legacy(gcp_ferrs_t *errs, const json_t *obj)
{
    size_t          nslen, ilen, rclen;
    gcp_msgs_t      m;
    const char     *ns, *ins, *rc;
    const json_t   *inv;

    ns = gcp_vt_str(gcp_vt_get(obj, "metadata"), "namespace", &nslen);
    inv = gcp_vt_get(obj, "involvedObject");
    ins = gcp_vt_str(inv, "namespace", &ilen);

    if (gcp_vt_time_zero(obj, "eventTime")) {
        if ((ilen == 0 && nslen != 0 && strcmp(ns, "default") != 0)
            || (ilen != 0 && (nslen != ilen || memcmp(ns, ins, ilen) != 0)))
        {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, "involvedObject.namespace",
                          gcp_go_quote(errs->arena, ins, ilen),
                          "does not match event.namespace");
        }

    } else {
        if (ilen == 0 && strcmp(ns, "default") != 0
            && strcmp(ns, "kube-system") != 0)
        {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, "involvedObject.namespace",
                          gcp_go_quote(errs->arena, ins, ilen),
                          "does not match event.namespace");
        }

        rc = gcp_vt_str(obj, "reportingComponent", &rclen);

        if (rclen == 0) {
            gcp_ferrs_add(errs, GCP_FERR_REQUIRED, "reportingController",
                          NULL, NULL);
        }

        gcp_is_qualified_name(rc, rclen, &m);
        gcp_ferrs_add_msgs(errs, "reportingController", rc, rclen, &m);

        gcp_vt_event_limit(errs, obj, "reportingInstance",
                           "reportingInstance", 128, 1);
        gcp_vt_event_limit(errs, obj, "action", "action", 128, 1);
        gcp_vt_event_limit(errs, obj, "reason", "reason", 128, 1);
        gcp_vt_event_limit(errs, obj, "message", "message", 1024, 0);
    }

    gcp_is_dns1123_subdomain(ns, nslen, &m);
    gcp_ferrs_add_msgs(errs, "namespace", ns, nslen, &m);
}


/* validateV1EventSeries() */
static void
gcp_vt_event_series(gcp_ferrs_t *errs, const json_t *obj)
{
    json_t        *count;
    const json_t  *series;

    series = gcp_vt_get(obj, "series");

    if (series == NULL) {
        return;
    }

    count = json_object_get(series, "count");

    if (!json_is_integer(count) || json_integer_value(count) < 2) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "series.count", "\"\"",
                      "should be at least 2");
    }

    if (gcp_vt_time_zero(series, "lastObservedTime")) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, "series.lastObservedTime",
                      NULL, NULL);
    }
}


void
gcp_validate_event(gcp_ferrs_t *errs, const json_t *obj)
{
    gcp_vt_event_legacy(errs, obj);
}


void
gcp_validate_event_v1(gcp_ferrs_t *errs, const json_t *obj)
{
    size_t          len;
    json_t         *count;
    const char     *type;
    const json_t   *src;

    gcp_vt_event_legacy(errs, obj);
    gcp_vt_event_series(errs, obj);

    if (gcp_vt_time_zero(obj, "eventTime")) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, "eventTime", NULL, NULL);
    }

    type = gcp_vt_str(obj, "type", &len);

    if (strcmp(type, "Normal") != 0 && strcmp(type, "Warning") != 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "type", "\"\"",
                      "has invalid value: %s", type);
    }

    if (!gcp_vt_time_zero(obj, "firstTimestamp")) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "firstTimestamp", "\"\"",
                      "needs to be unset");
    }

    if (!gcp_vt_time_zero(obj, "lastTimestamp")) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "lastTimestamp", "\"\"",
                      "needs to be unset");
    }

    count = json_object_get(obj, "count");

    if (json_is_integer(count) && json_integer_value(count) != 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "count", "\"\"",
                      "needs to be unset");
    }

    src = gcp_vt_get(obj, "source");
    gcp_vt_str(src, "component", &len);

    if (len == 0) {
        gcp_vt_str(src, "host", &len);
    }

    if (len) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "source", "\"\"",
                      "needs to be unset");
    }
}


/* Go's %#v of a struct of string fields held in a JSON object */
static const char *
gcp_vt_go_struct(gcp_arena_t *a, const char *type, const json_t *obj,
    const char *const *fields)
{
    size_t        i, len;
    gcp_buf_t     b;
    const char   *s;

    gcp_buf_init(&b, a);
    gcp_buf_printf(&b, "%s{", type);

    for (i = 0; fields[i]; i += 2) {
        s = gcp_vt_str(obj, fields[i], &len);
        gcp_buf_printf(&b, "%s%s:%s", i ? ", " : "", fields[i + 1],
                       gcp_go_quote(a, s, len));
    }

    gcp_buf_addc(&b, '}');

    return gcp_strndup(a, gcp_buf_cstr(&b), b.len);
}


static const char *const  gcp_vt_objref_fields[] = {
    "kind", "Kind", "namespace", "Namespace", "name", "Name", "uid", "UID",
    "apiVersion", "APIVersion", "resourceVersion", "ResourceVersion",
    "fieldPath", "FieldPath", NULL
};

static const char *const  gcp_vt_source_fields[] = {
    "component", "Component", "host", "Host", NULL
};


/* struct fields compared as Go compares them: missing is "" */
static int
gcp_vt_struct_equal(const json_t *a, const json_t *b,
    const char *const *fields)
{
    size_t       i, alen, blen;
    const char  *as, *bs;

    for (i = 0; fields[i]; i += 2) {
        as = gcp_vt_str(a, fields[i], &alen);
        bs = gcp_vt_str(b, fields[i], &blen);

        if (alen != blen || memcmp(as, bs, alen) != 0) {
            return 0;
        }
    }

    return 1;
}


static void
gcp_vt_immutable_string(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old, const char *key, const char *field)
{
    size_t       nlen, olen;
    const char  *n, *o;

    n = gcp_vt_str(obj, key, &nlen);
    o = gcp_vt_str(old, key, &olen);

    if (nlen != olen || memcmp(n, o, nlen) != 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      gcp_go_quote(errs->arena, n, nlen),
                      "field is immutable");
    }
}


static void
gcp_vt_immutable_time(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old, const char *key)
{
    size_t       nlen, olen;
    const char  *n, *o;

    n = gcp_vt_str(obj, key, &nlen);
    o = gcp_vt_str(old, key, &olen);

    if (nlen != olen || memcmp(n, o, nlen) != 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, key,
                      gcp_validation_time_string(errs->arena,
                                                 nlen ? n : NULL),
                      "field is immutable");
    }
}


void
gcp_validate_event_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    gcp_vt_event_legacy(errs, obj);
}


void
gcp_validate_event_v1_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    char           num[32];
    json_int_t     nc, oc;
    const json_t  *n, *o;

    gcp_vt_event_legacy(errs, obj);

    if (!gcp_vt_equal(gcp_vt_get(obj, "series"), gcp_vt_get(old, "series"))) {
        gcp_vt_event_series(errs, obj);
    }

    n = gcp_vt_get(obj, "involvedObject");
    o = gcp_vt_get(old, "involvedObject");

    if (!gcp_vt_struct_equal(n, o, gcp_vt_objref_fields)) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "involvedObject",
                      gcp_vt_go_struct(errs->arena, "core.ObjectReference", n,
                                       gcp_vt_objref_fields),
                      "field is immutable");
    }

    gcp_vt_immutable_string(errs, obj, old, "reason", "reason");
    gcp_vt_immutable_string(errs, obj, old, "message", "message");

    n = gcp_vt_get(obj, "source");
    o = gcp_vt_get(old, "source");

    if (!gcp_vt_struct_equal(n, o, gcp_vt_source_fields)) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "source",
                      gcp_vt_go_struct(errs->arena, "core.EventSource", n,
                                       gcp_vt_source_fields),
                      "field is immutable");
    }

    gcp_vt_immutable_time(errs, obj, old, "firstTimestamp");
    gcp_vt_immutable_time(errs, obj, old, "lastTimestamp");

    n = gcp_vt_get(obj, "count");
    o = gcp_vt_get(old, "count");
    nc = json_is_integer(n) ? json_integer_value(n) : 0;
    oc = json_is_integer(o) ? json_integer_value(o) : 0;

    if (nc != oc) {
        snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, nc);
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "count", num,
                      "field is immutable");
    }

    gcp_vt_immutable_string(errs, obj, old, "reason", "reason");
    gcp_vt_immutable_string(errs, obj, old, "type", "type");
    gcp_vt_immutable_time(errs, obj, old, "eventTime");
    gcp_vt_immutable_string(errs, obj, old, "action", "action");

    n = gcp_vt_get(obj, "related");
    o = gcp_vt_get(old, "related");

    if ((n == NULL) != (o == NULL)
        || (n && !gcp_vt_struct_equal(n, o, gcp_vt_objref_fields)))
    {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "related",
                      n ? gcp_vt_go_struct(errs->arena, "core.ObjectReference",
                                           n, gcp_vt_objref_fields)
                        : "\"null\"",
                      "field is immutable");
    }

    gcp_vt_immutable_string(errs, obj, old, "reportingComponent",
                            "reportingController");
    gcp_vt_immutable_string(errs, obj, old, "reportingInstance",
                            "reportingInstance");
}


/* Lease */


void
gcp_validate_lease(gcp_ferrs_t *errs, const json_t *obj)
{
    char           num[32];
    size_t         len, plen;
    json_t        *v;
    gcp_msgs_t     m;
    const char    *strategy;
    const json_t  *spec;

    spec = gcp_vt_get(obj, "spec");

    v = json_is_object(spec) ? json_object_get(spec, "leaseDurationSeconds")
                             : NULL;

    if (json_is_integer(v) && json_integer_value(v) <= 0) {
        snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT,
                 json_integer_value(v));
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.leaseDurationSeconds",
                      num, "must be greater than 0");
    }

    v = json_is_object(spec) ? json_object_get(spec, "leaseTransitions")
                             : NULL;

    if (json_is_integer(v) && json_integer_value(v) < 0) {
        snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT,
                 json_integer_value(v));
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.leaseTransitions", num,
                      "must be greater than or equal to 0");
    }

    v = json_is_object(spec) ? json_object_get(spec, "strategy") : NULL;
    strategy = gcp_vt_str(spec, "strategy", &len);

    if (json_is_string(v)) {
        /* upstream names the field spec.strategy.strategy */

        if (memchr(strategy, '/', len) == NULL) {
            if (strcmp(strategy, "OldestEmulationVersion") != 0) {
                gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED,
                              "spec.strategy.strategy",
                              gcp_go_quote(errs->arena, strategy, len),
                              "supported values: \"OldestEmulationVersion\"");
            }

        } else {
            gcp_is_qualified_name(strategy, len, &m);
            gcp_ferrs_add_msgs(errs, "spec.strategy.strategy", strategy, len,
                               &m);
        }
    }

    gcp_vt_str(spec, "preferredHolder", &plen);

    if (plen && len == 0) {
        gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "spec.preferredHolder", NULL,
                      "may only be specified if `strategy` is defined");
    }
}


void
gcp_validate_lease_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    gcp_validate_lease(errs, obj);
}
