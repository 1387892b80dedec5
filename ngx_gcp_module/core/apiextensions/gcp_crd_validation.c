
/*
 * Validation of CustomResourceDefinitions, after apiextensions-apiserver's
 * pkg/apis/apiextensions/validation (v1.32), with its messages.  Upstream
 * validates the internal form, into which a v1 CRD's per-version schema,
 * subresources, printer columns and selectable fields are lifted when
 * every version has the same: such errors name spec.validation,
 * spec.subresources, spec.additionalPrinterColumns[i] and
 * spec.selectableFields[i] rather than spec.versions[i].  The schemas
 * themselves are checked by gcp_crd_schema_check().  ObjectMeta is the
 * registry's.
 */

#include <stdio.h>

#include "gcp_crd.h"
#include "gcp_cr.h"
#include "gcp_json.h"
#include "gcp_jsonpath.h"
#include "gcp_validation.h"


#define GCP_CRD_MAX_SELECTABLE  8


typedef struct {
    gcp_ferrs_t             *errs;
    gcp_arena_t             *a;
    const gcp_schema_set_t  *set;
    const json_t            *old;           /* the stored CRD on update */
    const json_t            *crd;
    const json_t  *spec;
    const json_t  *versions;

    /* lifted to the top level (all versions the same) */
    unsigned       schema:1;
    unsigned       subresources:1;
    unsigned       columns:1;
    unsigned       selectable:1;
} gcp_crdv_t;


static const char *
gcp_crdv_str(const json_t *obj, const char *key)
{
    const char  *s;

    s = json_string_value(json_object_get(obj, key));

    return s ? s : "";
}


static const char *
gcp_crdv_q(gcp_crdv_t *v, const char *s)
{
    return gcp_go_quote(v->a, s, strlen(s));
}


/* Adds one Invalid error whose detail is the messages of m joined by ",". */

static void
gcp_crdv_invalid_joined(gcp_crdv_t *v, const char *field, const char *s,
    const char *prefix, const gcp_msgs_t *m)
{
    size_t     i;
    gcp_buf_t  b;

    gcp_buf_init(&b, v->a);
    gcp_buf_addstr(&b, prefix);

    for (i = 0; i < m->n; i++) {
        if (i) {
            gcp_buf_addc(&b, ',');
        }

        gcp_buf_addstr(&b, m->msg[i]);
    }

    gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field, gcp_crdv_q(v, s), "%s",
                  gcp_buf_cstr(&b));
}


static void
gcp_crdv_dns1035(gcp_crdv_t *v, const char *field, const char *s,
    const char *prefix)
{
    gcp_msgs_t  m;

    if (gcp_is_dns1035_label(s, strlen(s), &m)) {
        gcp_crdv_invalid_joined(v, field, s, prefix, &m);
    }
}


/* Go's %v of a value rendered for a field error (arrays as Go prints). */

static const char *
gcp_crdv_value(gcp_crdv_t *v, const json_t *value)
{
    return gcp_json_dump(v->a, value, 0).data;
}


static int
gcp_crdv_all_same(const json_t *versions, const char *key, int nonempty)
{
    size_t   i;
    json_t  *ver, *first, *cur;

    if (json_array_size(versions) == 0) {
        return 0;
    }

    first = json_object_get(json_array_get(versions, 0), key);

    json_array_foreach(versions, i, ver) {
        cur = json_object_get(ver, key);

        if (cur == NULL || json_is_null(cur)
            || (nonempty && json_array_size(cur) == 0)
            || !json_equal(cur, first))
        {
            return 0;
        }
    }

    return 1;
}


/* names */


static void
gcp_crdv_names(gcp_crdv_t *v, const json_t *names, const char *path)
{
    size_t       i;
    char        *lower, *p;
    json_t      *e;
    const char  *s, *kind, *list;

    s = gcp_crdv_str(names, "plural");
    if (s[0]) {
        gcp_crdv_dns1035(v, gcp_sprintf(v->a, "%s.plural", path), s, "");
    }

    s = gcp_crdv_str(names, "singular");
    if (s[0]) {
        gcp_crdv_dns1035(v, gcp_sprintf(v->a, "%s.singular", path), s, "");
    }

    kind = gcp_crdv_str(names, "kind");
    list = gcp_crdv_str(names, "listKind");

    for (i = 0; i < 2; i++) {
        s = i ? list : kind;

        if (s[0] == '\0') {
            continue;
        }

        lower = gcp_strdup(v->a, s);
        if (lower == NULL) {
            return;
        }

        for (p = lower; *p; p++) {
            if (*p >= 'A' && *p <= 'Z') {
                *p += 'a' - 'A';
            }
        }

        {
            gcp_msgs_t  m;

            if (gcp_is_dns1035_label(lower, strlen(lower), &m)) {
                gcp_crdv_invalid_joined(v,
                    gcp_sprintf(v->a, "%s.%s", path, i ? "listKind" : "kind"),
                    s, "may have mixed case, but should otherwise match: ",
                    &m);
            }
        }
    }

    json_array_foreach(json_object_get(names, "shortNames"), i, e) {
        gcp_crdv_dns1035(v, gcp_sprintf(v->a, "%s.shortNames[%zu]", path, i),
                         json_string_value(e) ? json_string_value(e) : "",
                         "");
    }

    if (kind[0] && strcmp(kind, list) == 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                      gcp_sprintf(v->a, "%s.listKind", path),
                      gcp_crdv_q(v, list),
                      "kind and listKind may not be the same");
    }

    json_array_foreach(json_object_get(names, "categories"), i, e) {
        gcp_crdv_dns1035(v, gcp_sprintf(v->a, "%s.categories[%zu]", path, i),
                         json_string_value(e) ? json_string_value(e) : "",
                         "");
    }
}


/* JSON paths of printer columns and the scale subresource */


static int
gcp_crdv_simple_path(gcp_crdv_t *v, const char *s, const char *field)
{
    if (s[0] == '\0') {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field, gcp_crdv_q(v, s),
                      "must not be empty");
        return 0;
    }

    if (s[0] != '.') {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field, gcp_crdv_q(v, s),
                      "must be a simple json path starting with .");
        return 0;
    }

    return 1;
}


static void
gcp_crdv_scale_path(gcp_crdv_t *v, const json_t *scale, const char *key,
    const char *path, int required, const char *under)
{
    const char  *s, *field;
    json_t      *p;

    field = gcp_sprintf(v->a, "%s.scale.%s", path, key);
    p = json_object_get(scale, key);
    s = gcp_crdv_str(scale, key);

    if (s[0] == '\0') {
        if (required) {
            gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, field, NULL, NULL);
        }

        (void) p;
        return;
    }

    if (!gcp_crdv_simple_path(v, s, field)) {
        return;
    }

    if (strcmp(under, "spec") == 0 && strncmp(s, ".spec.", 6) != 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field, gcp_crdv_q(v, s),
                      "should be a json path under .spec");

    } else if (strcmp(under, "status") == 0
               && strncmp(s, ".status.", 8) != 0)
    {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field, gcp_crdv_q(v, s),
                      "should be a json path under .status");

    } else if (strcmp(under, "either") == 0 && strncmp(s, ".spec.", 6) != 0
               && strncmp(s, ".status.", 8) != 0)
    {
        /* upstream shows the *string pointer's %v: the address */
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field, gcp_crdv_q(v, s),
                      "should be a json path under either .spec or .status");
    }
}


static void
gcp_crdv_subresources(gcp_crdv_t *v, const json_t *sub, const char *path)
{
    json_t  *scale;

    scale = json_object_get(sub, "scale");

    if (!json_is_object(scale)) {
        return;
    }

    gcp_crdv_scale_path(v, scale, "specReplicasPath", path, 1, "spec");
    gcp_crdv_scale_path(v, scale, "statusReplicasPath", path, 1, "status");
    gcp_crdv_scale_path(v, scale, "labelSelectorPath", path, 0, "either");
}


static void
gcp_crdv_column(gcp_crdv_t *v, const json_t *col, const char *path)
{
    const char  *s;

    static const char  types[] = "boolean,date,integer,number,string";
    static const char  formats[] =
        "byte,date,date-time,double,float,int32,int64,password";

    if (gcp_crdv_str(col, "name")[0] == '\0') {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED,
                      gcp_sprintf(v->a, "%s.name", path), NULL, NULL);
    }

    s = gcp_crdv_str(col, "type");

    if (s[0] == '\0') {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED,
                      gcp_sprintf(v->a, "%s.type", path), NULL,
                      "must be one of %s", types);

    } else if (strcmp(s, "boolean") && strcmp(s, "date")
               && strcmp(s, "integer") && strcmp(s, "number")
               && strcmp(s, "string"))
    {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                      gcp_sprintf(v->a, "%s.type", path), gcp_crdv_q(v, s),
                      "must be one of %s", types);
    }

    s = gcp_crdv_str(col, "format");

    if (s[0] && strcmp(s, "int32") && strcmp(s, "int64") && strcmp(s, "float")
        && strcmp(s, "double") && strcmp(s, "byte") && strcmp(s, "date")
        && strcmp(s, "date-time") && strcmp(s, "password"))
    {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                      gcp_sprintf(v->a, "%s.format", path), gcp_crdv_q(v, s),
                      "must be one of %s", formats);
    }

    s = gcp_crdv_str(col, "jsonPath");

    if (s[0] == '\0') {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED,
                      gcp_sprintf(v->a, "%s.JSONPath", path), NULL, NULL);

    } else {
        (void) gcp_crdv_simple_path(v, s,
                                    gcp_sprintf(v->a, "%s.JSONPath", path));
    }
}


static void
gcp_crdv_columns(gcp_crdv_t *v, const json_t *cols, const char *path)
{
    size_t   i;
    json_t  *c;

    json_array_foreach(cols, i, c) {
        gcp_crdv_column(v, c, gcp_sprintf(v->a, "%s[%zu]", path, i));
    }
}


/* selectable fields */


/*
 * The schema a simple path (".a.b") leads to in the openAPIV3Schema s, or
 * NULL with *why (as CEL's ValidFieldPath words it).
 */

static const json_t *
gcp_crdv_field_schema(gcp_crdv_t *v, const json_t *s, const char *path,
    const char **why, int *metadata)
{
    size_t          i;
    const char     *name;
    json_t         *props, *next;
    gcp_jsonpath_t *jp;

    jp = gcp_jsonpath_compile(path, why);
    if (jp == NULL) {
        return NULL;
    }

    if (!gcp_jsonpath_simple(jp)) {
        gcp_jsonpath_free(jp);
        *why = "array notation is not allowed";
        return NULL;
    }

    gcp_jsonpath_free(jp);

    *metadata = 0;

    for (i = 0, name = path + 1; *path; i++) {
        const char  *dot;
        char        *seg;

        dot = strchr(name, '.');
        seg = gcp_strndup(v->a, name, dot ? (size_t) (dot - name)
                                          : strlen(name));
        if (seg == NULL) {
            *why = "out of memory";
            return NULL;
        }

        if (i == 0 && strcmp(seg, "metadata") == 0) {
            *metadata = 1;
        }

        props = json_object_get(s, "properties");
        next = json_object_get(props, seg);

        if (next == NULL) {
            *why = gcp_sprintf(v->a, "does not refer to a valid field");
            return NULL;
        }

        s = next;

        if (dot == NULL) {
            break;
        }

        name = dot + 1;
    }

    return s;
}


static void
gcp_crdv_selectable(gcp_crdv_t *v, const json_t *fields, const json_t *schema,
    const char *path)
{
    size_t        i, j, unique;
    json_t       *f, *seen;
    const char   *jp, *why, *type, *field;
    int           meta;
    const json_t *s;

    seen = json_object();
    unique = 0;

    json_array_foreach(fields, i, f) {
        field = gcp_sprintf(v->a, "%s[%zu].jsonPath", path, i);
        jp = gcp_crdv_str(f, "jsonPath");

        if (jp[0] == '\0') {
            gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, field, NULL, NULL);
            continue;
        }

        why = NULL;
        s = gcp_crdv_field_schema(v, schema, jp, &why, &meta);

        if (s == NULL) {
            gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field,
                          gcp_crdv_q(v, jp), "is an invalid path: %s", why);
            continue;
        }

        if (meta) {
            gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field,
                          gcp_crdv_q(v, jp),
                          "must not point to fields in metadata");
        }

        type = gcp_crdv_str(s, "type");

        if (strcmp(type, "string") && strcmp(type, "boolean")
            && strcmp(type, "integer"))
        {
            gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field,
                          gcp_crdv_q(v, jp),
                          "must point to a field of type string, boolean or "
                          "integer. Enum string fields and strings with "
                          "formats are allowed.");
        }

        if (seen && json_object_get(seen, jp)) {
            gcp_ferrs_add(v->errs, GCP_FERR_DUPLICATE, field,
                          gcp_crdv_q(v, jp), NULL);

        } else if (seen) {
            json_object_set_new(seen, jp, json_true());
            unique++;
        }

        (void) j;
    }

    json_decref(seen);

    if (unique > GCP_CRD_MAX_SELECTABLE) {
        gcp_ferrs_add(v->errs, GCP_FERR_TOO_MANY, path,
                      gcp_sprintf(v->a, "%zu", unique),
                      "must have at most %d items", GCP_CRD_MAX_SELECTABLE);
    }
}


/* versions */


/* unicode.IsPrint and unicode.IsControl over s, as upstream checks. */

static void
gcp_crdv_printable(gcp_crdv_t *v, const char *s, size_t len,
    const char *field)
{
    size_t                n, i;
    uint32_t              r;
    const unsigned char  *p = (const unsigned char *) s;

    for (i = 0; i < len; i += n) {
        n = gcp_utf8_decode(p + i, len - i, &r);

        if (r == 0xfffd && n == 1) {
            gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field, gcp_crdv_q(v, s),
                          "must only contain printable UTF-8 characters");
            return;
        }

        if (!gcp_go_isprint(r) && r != ' ') {
            gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field, gcp_crdv_q(v, s),
                          "must only contain printable UTF-8 characters; "
                          "non-printable character found at index %zu", i);
            return;
        }
    }
}


static void
gcp_crdv_deprecation(gcp_crdv_t *v, const json_t *ver, const char *path)
{
    size_t       len;
    json_t      *w;
    const char  *s, *field;

    w = json_object_get(ver, "deprecationWarning");
    field = gcp_sprintf(v->a, "%s.deprecationWarning", path);

    if (w == NULL || json_is_null(w)) {
        return;
    }

    s = json_string_value(w);
    s = s ? s : "";
    len = strlen(s);

    /* upstream renders the *string as an address: show the text */

    if (!json_is_true(json_object_get(ver, "deprecated"))) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field, gcp_crdv_q(v, s),
                      "can only be set for deprecated versions");
    }

    if (len > 256) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field, gcp_crdv_q(v, s),
                      "must be <= 256 characters long");
    }

    if (len == 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field, gcp_crdv_q(v, s),
                      "must not be an empty string");
    }

    gcp_crdv_printable(v, s, len, field);
}


/*
 * The schema of a CustomResourceValidation at base ("spec.validation",
 * "spec.versions[i].schema"), requiring on update only what the stored
 * CRD's schemas already satisfied.
 */

static void
gcp_crdv_schema(gcp_crdv_t *v, const json_t *schema, const char *base,
    int status_enabled)
{
    size_t                 i;
    json_t                *ver;
    gcp_crd_check_opts_t   opts;

    gcp_crd_check_opts_init(&opts);
    opts.status_enabled = status_enabled ? 1 : 0;

    json_array_foreach(json_object_get(json_object_get(v->old, "spec"),
                                       "versions"), i, ver)
    {
        gcp_crd_check_opts_ratchet(&opts,
            json_object_get(json_object_get(ver, "schema"),
                            "openAPIV3Schema"), v->set);
    }

    if (gcp_crd_schema_check(v->errs, schema, base, &opts, v->set)
        != GCP_OK)
    {
        v->errs->nomem = 1;
    }
}


static int
gcp_crdv_status_enabled(const json_t *sub)
{
    return json_is_object(json_object_get(sub, "status"));
}


static int
gcp_crdv_any_status(gcp_crdv_t *v)
{
    size_t   i;
    json_t  *ver;

    json_array_foreach(v->versions, i, ver) {
        if (gcp_crdv_status_enabled(json_object_get(ver, "subresources"))) {
            return 1;
        }
    }

    return 0;
}


static const json_t *
gcp_crdv_version_schema(const json_t *ver)
{
    return json_object_get(json_object_get(ver, "schema"), "openAPIV3Schema");
}


static void
gcp_crdv_version(gcp_crdv_t *v, const json_t *ver, size_t i)
{
    const char    *path;
    const json_t  *schema, *sub;

    path = gcp_sprintf(v->a, "spec.versions[%zu]", i);

    gcp_crdv_deprecation(v, ver, path);

    sub = json_object_get(ver, "subresources");
    schema = gcp_crdv_version_schema(ver);

    if (!v->schema && json_is_object(schema)) {
        gcp_crdv_schema(v, schema, gcp_sprintf(v->a, "%s.schema", path),
                        gcp_crdv_status_enabled(sub));
    }

    if (!v->subresources) {
        gcp_crdv_subresources(v, sub,
                              gcp_sprintf(v->a, "%s.subresources", path));
    }

    if (!v->columns) {
        gcp_crdv_columns(v, json_object_get(ver, "additionalPrinterColumns"),
                         gcp_sprintf(v->a, "%s.additionalPrinterColumns",
                                     path));
    }

    if (!v->selectable && json_array_size(json_object_get(ver,
                                                          "selectableFields")))
    {
        if (!json_is_object(schema)) {
            gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                          gcp_sprintf(v->a, "%s.selectableFields", path),
                          "\"\"", "may only be set when "
                          "`version.schema.openAPIV3Schema` is not included");

        } else {
            gcp_crdv_selectable(v, json_object_get(ver, "selectableFields"),
                                schema,
                                gcp_sprintf(v->a, "%s.selectableFields",
                                            path));
        }
    }
}


/* conversion */


static void
gcp_crdv_conversion(gcp_crdv_t *v)
{
    json_t      *conv, *hook, *cc, *svc, *versions, *e, *seen;
    size_t       i;
    int          accepted;
    const char  *strategy, *s;

    conv = json_object_get(v->spec, "conversion");

    if (!json_is_object(conv)) {
        return;
    }

    strategy = gcp_crdv_str(conv, "strategy");

    if (strategy[0] == '\0') {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, "spec.conversion.strategy",
                      NULL, NULL);
        return;
    }

    if (strcmp(strategy, "None") != 0 && strcmp(strategy, "Webhook") != 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_NOT_SUPPORTED,
                      "spec.conversion.strategy", gcp_crdv_q(v, strategy),
                      "supported values: \"None\", \"Webhook\"");
        return;
    }

    hook = json_object_get(conv, "webhook");
    cc = json_object_get(hook, "clientConfig");
    versions = json_object_get(hook, "conversionReviewVersions");

    if (strcmp(strategy, "None") == 0) {
        if (json_is_object(cc)) {
            gcp_ferrs_add(v->errs, GCP_FERR_FORBIDDEN,
                          "spec.conversion.webhookClientConfig", NULL,
                          "should not be set when strategy is not set to "
                          "Webhook");
        }

        if (json_array_size(versions)) {
            gcp_ferrs_add(v->errs, GCP_FERR_FORBIDDEN,
                          "spec.conversion.conversionReviewVersions", NULL,
                          "should not be set when strategy is not set to "
                          "Webhook");
        }

        return;
    }

    if (!json_is_object(cc)) {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED,
                      "spec.conversion.webhookClientConfig", NULL,
                      "required when strategy is set to Webhook");

    } else {
        svc = json_object_get(cc, "service");
        s = json_string_value(json_object_get(cc, "url"));

        if ((s == NULL) == !json_is_object(svc)) {
            gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED,
                          "spec.conversion.webhookClientConfig", NULL,
                          "exactly one of url or service is required");

        } else if (s) {
            gcp_validate_webhook_url(v->errs, "spec.conversion."
                                     "webhookClientConfig.url", s, 1);

        } else {
            gcp_validate_webhook_service(v->errs, "spec.conversion."
                                         "webhookClientConfig.service", svc);
        }
    }

    if (json_array_size(versions) == 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED,
                      "spec.conversion.conversionReviewVersions", NULL,
                      NULL);
        return;
    }

    seen = json_object();
    accepted = 0;

    json_array_foreach(versions, i, e) {
        s = json_string_value(e) ? json_string_value(e) : "";

        if (seen && json_object_get(seen, s)) {
            gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                          gcp_sprintf(v->a, "spec.conversion."
                                      "conversionReviewVersions[%zu]", i),
                          gcp_crdv_q(v, s), "duplicate version");
            continue;
        }

        if (seen) {
            json_object_set_new(seen, s, json_true());
        }

        {
            gcp_msgs_t  m;
            size_t      k;

            gcp_is_dns1035_label(s, strlen(s), &m);

            for (k = 0; k < m.n; k++) {
                gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                              gcp_sprintf(v->a, "spec.conversion."
                                          "conversionReviewVersions[%zu]",
                                          i), gcp_crdv_q(v, s), "%s",
                              m.msg[k]);
            }
        }

        if (strcmp(s, "v1") == 0 || strcmp(s, "v1beta1") == 0) {
            accepted = 1;
        }
    }

    json_decref(seen);

    if (!accepted) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                      "spec.conversion.conversionReviewVersions",
                      gcp_crdv_value(v, versions),
                      "must include at least one of v1, v1beta1");
    }
}


/* the spec */


static int
gcp_crdv_has_defaults(const json_t *s)
{
    json_t      *v;
    const char  *key;
    size_t       i;

    if (json_is_array(s)) {
        json_array_foreach(s, i, v) {
            if (gcp_crdv_has_defaults(v)) {
                return 1;
            }
        }

        return 0;
    }

    if (!json_is_object(s)) {
        return 0;
    }

    if (json_object_get(s, "default")) {
        return 1;
    }

    json_object_foreach((json_t *) s, key, v) {
        if (strcmp(key, "enum") == 0 || strcmp(key, "example") == 0) {
            continue;
        }

        if (gcp_crdv_has_defaults(v)) {
            return 1;
        }
    }

    return 0;
}


static void
gcp_crdv_spec(gcp_crdv_t *v)
{
    size_t         i, nstorage;
    json_t        *ver, *names, *seen, *puf, *first;
    const char    *s, *group, *scope;
    int            unique;
    gcp_msgs_t     m;

    group = gcp_crdv_str(v->spec, "group");

    if (group[0] == '\0') {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, "spec.group", NULL, NULL);

    } else if (gcp_is_dns1123_subdomain(group, strlen(group), &m)) {
        gcp_crdv_invalid_joined(v, "spec.group", group, "", &m);

    } else if (strchr(group, '.') == NULL) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, "spec.group",
                      gcp_crdv_q(v, group),
                      "should be a domain with at least one dot");
    }

    scope = gcp_crdv_str(v->spec, "scope");

    if (scope[0] == '\0') {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, "spec.scope", NULL, NULL);

    } else if (strcmp(scope, "Cluster") && strcmp(scope, "Namespaced")) {
        gcp_ferrs_add(v->errs, GCP_FERR_NOT_SUPPORTED, "spec.scope",
                      gcp_crdv_q(v, scope),
                      "supported values: \"Cluster\", \"Namespaced\"");
    }

    /* every version needs a schema (the top-level one counts) */

    if (!v->schema) {
        json_array_foreach(v->versions, i, ver) {
            if (!json_is_object(gcp_crdv_version_schema(ver))) {
                gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED,
                              gcp_sprintf(v->a, "spec.versions[%zu].schema."
                                          "openAPIV3Schema", i), NULL, NULL);
            }
        }
    }

    puf = json_object_get(v->spec, "preserveUnknownFields");

    json_array_foreach(v->versions, i, ver) {
        if (gcp_crdv_has_defaults(gcp_crdv_version_schema(ver))) {
            if (json_is_true(puf)) {
                gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                              "spec.preserveUnknownFields", "true",
                              "must be false in order to use defaults in the "
                              "schema");
            }

            break;
        }
    }

    nstorage = 0;
    unique = 1;
    seen = json_object();

    json_array_foreach(v->versions, i, ver) {
        s = gcp_crdv_str(ver, "name");

        if (json_is_true(json_object_get(ver, "storage"))) {
            nstorage++;
        }

        if (seen && json_object_get(seen, s)) {
            unique = 0;

        } else if (seen) {
            json_object_set_new(seen, s, json_true());
        }

        if (gcp_is_dns1035_label(s, strlen(s), &m)) {
            gcp_crdv_invalid_joined(v,
                gcp_sprintf(v->a, "spec.versions[%zu].name", i), s, "", &m);
        }

        gcp_crdv_version(v, ver, i);
    }

    json_decref(seen);

    if (!unique) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, "spec.versions",
                      gcp_crdv_value(v, v->versions),
                      "must contain unique version names");
    }

    if (nstorage != 1) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, "spec.versions",
                      gcp_crdv_value(v, v->versions),
                      "must have exactly one version marked as storage "
                      "version");
    }

    names = json_object_get(v->spec, "names");

    if (gcp_crdv_str(names, "plural")[0] == '\0') {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, "spec.names.plural", NULL,
                      NULL);
    }

    if (gcp_crdv_str(names, "singular")[0] == '\0') {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, "spec.names.singular", NULL,
                      NULL);
    }

    if (gcp_crdv_str(names, "kind")[0] == '\0') {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, "spec.names.kind", NULL,
                      NULL);
    }

    if (gcp_crdv_str(names, "listKind")[0] == '\0') {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, "spec.names.listKind", NULL,
                      NULL);
    }

    gcp_crdv_names(v, names, "spec.names");

    first = json_array_get(v->versions, 0);

    if (v->schema) {
        gcp_crdv_schema(v, gcp_crdv_version_schema(first), "spec.validation",
                        gcp_crdv_any_status(v));
    }

    if (v->subresources) {
        gcp_crdv_subresources(v, json_object_get(first, "subresources"),
                              "spec.subresources");
    }

    if (v->columns) {
        gcp_crdv_columns(v, json_object_get(first, "additionalPrinterColumns"),
                         "spec.additionalPrinterColumns");
    }

    if (v->selectable) {
        if (!v->schema) {
            gcp_ferrs_add(v->errs, GCP_FERR_INVALID, "spec.selectableFields",
                          "\"\"", "may only be set when validations.schema "
                          "is included");

        } else {
            gcp_crdv_selectable(v, json_object_get(first, "selectableFields"),
                                gcp_crdv_version_schema(first),
                                "spec.selectableFields");
        }
    }

    s = gcp_crdv_str(json_object_get(v->spec, "conversion"), "strategy");

    if (s[0] && strcmp(s, "None") != 0 && json_is_true(puf)) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, "spec.conversion.strategy",
                      gcp_crdv_q(v, s),
                      "must be None if spec.preserveUnknownFields is true");
    }

    gcp_crdv_conversion(v);
}


static void
gcp_crdv_stored_versions(gcp_crdv_t *v)
{
    size_t       i, j;
    json_t      *stored, *e, *ver;
    const char  *s, *name;
    int          found;

    stored = json_object_get(json_object_get(v->crd, "status"),
                             "storedVersions");

    if (json_array_size(stored) == 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, "status.storedVersions",
                      "[]string{}", "must have at least one stored version");
        return;
    }

    json_array_foreach(v->versions, i, ver) {
        name = gcp_crdv_str(ver, "name");

        if (!json_is_true(json_object_get(ver, "storage"))) {
            continue;
        }

        found = 0;

        json_array_foreach(stored, j, e) {
            s = json_string_value(e);
            found |= s && strcmp(s, name) == 0;
        }

        if (!found) {
            gcp_ferrs_add(v->errs, GCP_FERR_INVALID, "status.storedVersions",
                          gcp_crdv_value(v, stored),
                          "must have the storage version %s", name);
        }
    }

    json_array_foreach(stored, j, e) {
        s = json_string_value(e) ? json_string_value(e) : "";
        found = 0;

        json_array_foreach(v->versions, i, ver) {
            found |= strcmp(gcp_crdv_str(ver, "name"), s) == 0;
        }

        if (!found) {
            gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                          gcp_sprintf(v->a, "status.storedVersions[%zu]", j),
                          gcp_crdv_q(v, s),
                          "missing from spec.versions; %s was previously a "
                          "storage version, and must remain in spec.versions "
                          "until a storage migration ensures no data remains "
                          "persisted in %s and removes %s from "
                          "status.storedVersions", s, s, s);
        }
    }
}


static void
gcp_crdv_approval(gcp_crdv_t *v, const json_t *old)
{
    int          state, old_state;
    const char  *reason, *old_reason, *value;

    if (!gcp_crd_protected_group(gcp_crdv_str(v->spec, "group"))) {
        return;
    }

    state = gcp_crd_approval(v->a, v->crd, &reason);

    if (old) {
        old_state = gcp_crd_approval(v->a, old, &old_reason);

        if (old_state == state) {
            return;
        }
    }

    value = json_string_value(json_object_get(json_object_get(
                json_object_get(v->crd, "metadata"), "annotations"),
                GCP_CRD_APPROVAL));

    if (state == 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED,
                      "metadata.annotations[" GCP_CRD_APPROVAL "]", NULL,
                      "%s", reason);

    } else if (state == 1) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                      "metadata.annotations[" GCP_CRD_APPROVAL "]",
                      gcp_crdv_q(v, value ? value : ""), "%s", reason);
    }
}


static void
gcp_crdv_preserve_unknown(gcp_crdv_t *v, const json_t *old)
{
    if (old && json_is_true(json_object_get(json_object_get(old, "spec"),
                                            "preserveUnknownFields")))
    {
        return;
    }

    if (json_is_true(json_object_get(v->spec, "preserveUnknownFields"))) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, "spec.preserveUnknownFields",
                      "true", "cannot set to true, set "
                      "x-kubernetes-preserve-unknown-fields to true in "
                      "spec.versions[*].schema instead");
    }
}


static void
gcp_crdv_init(gcp_crdv_t *v, gcp_op_t *op, gcp_ferrs_t *errs,
    const json_t *crd, const json_t *old)
{
    memset(v, 0, sizeof(gcp_crdv_t));

    v->errs = errs;
    v->a = errs->arena;
    v->set = op->api->schemas;
    v->old = old;
    v->crd = crd;
    v->spec = json_object_get(crd, "spec");
    v->versions = json_object_get(v->spec, "versions");

    v->schema = gcp_crdv_all_same(v->versions, "schema", 0);
    v->subresources = gcp_crdv_all_same(v->versions, "subresources", 0);
    v->columns = gcp_crdv_all_same(v->versions, "additionalPrinterColumns",
                                   1);
    v->selectable = gcp_crdv_all_same(v->versions, "selectableFields", 1);
}


static void
gcp_crdv_name(gcp_crdv_t *v)
{
    const char  *name, *plural, *group;

    name = gcp_crdv_str(json_object_get(v->crd, "metadata"), "name");
    plural = gcp_crdv_str(json_object_get(v->spec, "names"), "plural");
    group = gcp_crdv_str(v->spec, "group");

    if (strlen(name) != strlen(plural) + 1 + strlen(group)
        || strncmp(name, plural, strlen(plural)) != 0
        || name[strlen(plural)] != '.'
        || strcmp(name + strlen(plural) + 1, group) != 0)
    {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, "metadata.name",
                      gcp_crdv_q(v, name),
                      "must be spec.names.plural+\".\"+spec.group");
    }
}


static void
gcp_crdv_immutable(gcp_crdv_t *v, const json_t *obj, const json_t *old,
    const char *key, const char *field)
{
    const char  *n, *o;

    n = gcp_crdv_str(obj, key);
    o = gcp_crdv_str(old, key);

    if (strcmp(n, o) != 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, field, gcp_crdv_q(v, n),
                      "field is immutable");
    }
}


void
gcp_crd_validate(gcp_op_t *op, gcp_ferrs_t *errs, const json_t *crd,
    const json_t *old)
{
    gcp_crdv_t     v;
    const json_t  *ospec;

    gcp_crdv_init(&v, op, errs, crd, old);

    if (op->sub) {
        /* /status: the accepted names (ObjectMeta is the registry's) */

        gcp_crdv_names(&v, json_object_get(json_object_get(crd, "status"),
                                           "acceptedNames"),
                       "status.acceptedNames");
        return;
    }

    if (old == NULL) {
        gcp_crdv_name(&v);
    }

    gcp_crdv_spec(&v);

    if (old) {
        ospec = json_object_get(old, "spec");

        if (gcp_crd_condition_true(old, "Established")) {
            gcp_crdv_immutable(&v, v.spec, ospec, "scope", "spec.scope");
            gcp_crdv_immutable(&v, json_object_get(v.spec, "names"),
                               json_object_get(ospec, "names"), "kind",
                               "spec.names.kind");
        }

        gcp_crdv_immutable(&v, v.spec, ospec, "group", "spec.group");
        gcp_crdv_immutable(&v, json_object_get(v.spec, "names"),
                           json_object_get(ospec, "names"), "plural",
                           "spec.names.plural");
    }

    gcp_crdv_names(&v, json_object_get(json_object_get(crd, "status"),
                                       "acceptedNames"),
                   "status.acceptedNames");
    gcp_crdv_stored_versions(&v);
    gcp_crdv_approval(&v, old);
    gcp_crdv_preserve_unknown(&v, old);
}
