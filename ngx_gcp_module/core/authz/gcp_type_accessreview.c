
/*
 * authorization.k8s.io/v1 SelfSubjectAccessReview, SubjectAccessReview and
 * LocalSubjectAccessReview: create-only resources that are never stored.
 * A create asks the API's authorizer (gcp_rbac_api_authorize) whether the
 * request's user (SelfSubjectAccessReview) or the user of the spec could
 * perform the action, and answers 201 with the review and its status.
 *
 * The registry decodes and checks the body and the namespace as for any
 * create; the review is answered by the strategy's prepare_create, which
 * then stops the create (it returns GCP_EEXISTS: nothing may be stored).
 */

#include <time.h>

#include "gcp_rbac.h"
#include "gcp_rbac_validation.h"
#include "gcp_reg.h"
#include "gcp_type_accessreview.h"
#include "gcp_validation_selector.h"
#include "gcp_time.h"
#include "gcp_authz_types.h"


/* Go's %#v of a *authorization.NonResourceAttributes (dereferenced). */
static const char *
gcp_review_go_nonresource(gcp_arena_t *a, const json_t *v)
{
    return gcp_sprintf(a, "authorization.NonResourceAttributes{Path:%s, "
                       "Verb:%s}",
                       gcp_ferr_quote(a, gcp_review_str(v, "path")),
                       gcp_ferr_quote(a, gcp_review_str(v, "verb")));
}


/* Go's %#v of a map[string]string or []string field (nil when absent). */
static void
gcp_review_go_strings(gcp_buf_t *b, const char *field, const json_t *v,
    int map)
{
    size_t       i;
    json_t      *x;
    const char  *k;

    gcp_buf_printf(b, ", %s:%s", field, map ? "map[string]string"
                                            : "[]string");

    if (json_is_null(v) || v == NULL) {
        gcp_buf_addstr(b, "(nil)");
        return;
    }

    gcp_buf_addc(b, '{');

    if (map) {
        i = 0;

        json_object_foreach((json_t *) v, k, x) {
            gcp_buf_printf(b, "%s%s:%s", i++ ? ", " : "",
                           gcp_ferr_quote(b->arena, k),
                           gcp_ferr_quote(b->arena, json_is_string(x)
                                          ? json_string_value(x) : ""));
        }

    } else {
        json_array_foreach(v, i, x) {
            gcp_buf_printf(b, "%s%s", i ? ", " : "",
                           gcp_ferr_quote(b->arena, json_is_string(x)
                                          ? json_string_value(x) : ""));
        }
    }

    gcp_buf_addc(b, '}');
}


/* Go's time.Time GoString() of an RFC 3339 time (zero when not one). */
static void
gcp_review_go_time(gcp_buf_t *b, const char *s)
{
    struct tm        tm;
    struct timespec  ts;

    static const char * const  months[] = {
        "January", "February", "March", "April", "May", "June", "July",
        "August", "September", "October", "November", "December"
    };

    if (s == NULL
        || gcp_time_parse(b->arena, s, strlen(s), &ts, NULL) != GCP_OK
        || gmtime_r(&ts.tv_sec, &tm) == NULL)
    {
        gcp_buf_addstr(b, "time.Date(1, time.January, 1, 0, 0, 0, 0, "
                          "time.UTC)");
        return;
    }

    gcp_buf_printf(b, "time.Date(%d, time.%s, %d, %d, %d, %d, %ld, "
                   "time.UTC)", tm.tm_year + 1900, months[tm.tm_mon],
                   tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                   (long) ts.tv_nsec);
}


/* Go's %#v of a metav1.ObjectMeta (the fields a client may send). */
static const char *
gcp_review_go_meta(gcp_arena_t *a, const json_t *meta)
{
    json_int_t   gen;
    gcp_buf_t    b;

    static const char * const  strs[][2] = {
        { "Name", "name" }, { "GenerateName", "generateName" },
        { "Namespace", "namespace" }, { "SelfLink", "selfLink" },
        { "UID", "uid" }, { "ResourceVersion", "resourceVersion" },
    };
    size_t  i;

    gcp_buf_init(&b, a);
    gcp_buf_addstr(&b, "v1.ObjectMeta{");

    for (i = 0; i < gcp_nelems(strs); i++) {
        gcp_buf_printf(&b, "%s%s:%s", i ? ", " : "", strs[i][0],
                       gcp_ferr_quote(a, gcp_review_str(meta, strs[i][1])));
    }

    gen = json_integer_value(json_object_get(meta, "generation"));
    gcp_buf_printf(&b, ", Generation:%" JSON_INTEGER_FORMAT
                   ", CreationTimestamp:v1.Time{Time:", gen);
    gcp_review_go_time(&b, json_string_value(json_object_get(meta,
                                                 "creationTimestamp")));
    gcp_buf_addstr(&b, "}, DeletionTimestamp:<nil>, "
                       "DeletionGracePeriodSeconds:(*int64)(nil)");

    gcp_review_go_strings(&b, "Labels", json_object_get(meta, "labels"), 1);
    gcp_review_go_strings(&b, "Annotations",
                          json_object_get(meta, "annotations"), 1);
    gcp_buf_addstr(&b, ", OwnerReferences:[]v1.OwnerReference(nil)");
    gcp_review_go_strings(&b, "Finalizers",
                          json_object_get(meta, "finalizers"), 0);
    gcp_buf_addstr(&b, ", ManagedFields:[]v1.ManagedFieldsEntry(nil)}");

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}


/* Returns 1 when every field of meta (but except) holds a zero value. */
static int
gcp_review_meta_empty(const json_t *meta, const char *except)
{
    json_t      *v;
    const char  *k;

    json_object_foreach((json_t *) meta, k, v) {
        if (except && strcmp(k, except) == 0) {
            continue;
        }

        if (json_is_null(v) || json_is_false(v)
            || (json_is_string(v) && json_string_length(v) == 0)
            || (json_is_integer(v) && json_integer_value(v) == 0)
            || (json_is_object(v) && json_object_size(v) == 0)
            || (json_is_array(v) && json_array_size(v) == 0))
        {
            continue;
        }

        return 0;
    }

    return 1;
}


/* validateFieldSelectorAttributes, validateLabelSelectorAttributes */
static void
gcp_review_validate_selector(gcp_ferrs_t *errs, const json_t *sel,
    const char *path, int label)
{
    size_t       i, n;
    json_t      *reqs, *req;
    const char  *raw, *rpath, *op;

    if (!json_is_object(sel)) {
        return;
    }

    raw = gcp_review_str(sel, "rawSelector");
    reqs = json_object_get(sel, "requirements");

    if (raw[0] && json_array_size(reqs)) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID,
                      gcp_sprintf(errs->arena, "%s.rawSelector", path),
                      gcp_ferr_quote(errs->arena, raw),
                      "may not specified at the same time as requirements");
    }

    if (raw[0] == '\0' && json_array_size(reqs) == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                      gcp_sprintf(errs->arena, "%s.requirements", path),
                      NULL, "when %s is specified, requirements or "
                      "rawSelector is required", path);
    }

    json_array_foreach(reqs, i, req) {
        rpath = gcp_sprintf(errs->arena, "%s.requirements[%zu]", path, i);

        if (label) {
            gcp_validate_label_requirement(errs, req, rpath, 1);
            continue;
        }

        /* metav1validation.ValidateFieldSelectorRequirement */

        n = json_array_size(json_object_get(req, "values"));
        op = gcp_review_str(req, "operator");

        if (gcp_review_str(req, "key")[0] == '\0') {
            gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                          gcp_sprintf(errs->arena, "%s.key", rpath), NULL,
                          "must be specified");
        }

        if (n > 1) {
            gcp_ferrs_add(errs, GCP_FERR_TOO_MANY,
                          gcp_sprintf(errs->arena, "%s.values", rpath),
                          gcp_sprintf(errs->arena, "%zu", n),
                          "must have at most 1 items");
        }

        if ((strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0) && n != 1) {
            gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                          gcp_sprintf(errs->arena, "%s.values", rpath),
                          NULL, "must be specified when `operator` is 'In' "
                          "or 'NotIn'");

        } else if ((strcmp(op, "Exists") == 0
                    || strcmp(op, "DoesNotExist") == 0) && n)
        {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN,
                          gcp_sprintf(errs->arena, "%s.values", rpath),
                          NULL, "may not be specified when `operator` is "
                          "'Exists' or 'DoesNotExist'");
        }
    }
}


static void
gcp_review_validate_spec(gcp_ferrs_t *errs, const json_t *spec,
    int subject)
{
    json_t  *ra, *na;

    ra = json_object_get(spec, "resourceAttributes");
    na = json_object_get(spec, "nonResourceAttributes");

    if (json_is_object(ra) && json_is_object(na)) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.nonResourceAttributes",
                      gcp_review_go_nonresource(errs->arena, na),
                      "cannot be specified in combination with "
                      "resourceAttributes");
    }

    if (!json_is_object(ra) && !json_is_object(na)) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.resourceAttributes",
                      "\"null\"", "exactly one of nonResourceAttributes or "
                      "resourceAttributes must be specified");
    }

    if (subject && gcp_review_str(spec, "user")[0] == '\0'
        && json_array_size(json_object_get(spec, "groups")) == 0)
    {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.user",
                      gcp_ferr_quote(errs->arena,
                                     gcp_review_str(spec, "user")),
                      "at least one of user or group must be specified");
    }

    gcp_review_validate_selector(errs, json_object_get(ra, "fieldSelector"),
                                 "spec.resourceAttributes.fieldSelector", 0);
    gcp_review_validate_selector(errs, json_object_get(ra, "labelSelector"),
                                 "spec.resourceAttributes.labelSelector", 1);
}


static void
gcp_review_validate_meta(gcp_ferrs_t *errs, const json_t *obj,
    const char *except)
{
    json_t  *meta;

    meta = json_object_get(obj, "metadata");

    if (gcp_review_meta_empty(meta, except)) {
        return;
    }

    gcp_ferrs_add(errs, GCP_FERR_INVALID, "metadata",
                  gcp_review_go_meta(errs->arena, meta),
                  except ? "must be empty except for namespace"
                         : "must be empty");
}


const char *
gcp_review_str(const json_t *obj, const char *field)
{
    const char  *v;

    v = json_string_value(json_object_get(obj, field));

    return v ? v : "";
}


static void
gcp_review_invalid(gcp_op_t *op, const gcp_ferrs_t *errs)
{
    gcp_status_details_t  d;

    memset(&d, 0, sizeof(d));

    /* the internal object's kind is empty when it is validated */

    d.group = op->res->group;
    d.causes = errs;

    gcp_op_error(op, GCP_EINVALID,
                 gcp_ferrs_message(errs, gcp_sprintf(op->a, ".%s",
                                                     op->res->group), ""),
                 &d);
}


int
gcp_review_no_user(gcp_op_t *op)
{
    gcp_op_error(op, GCP_EBADREQUEST, "no user present on request", NULL);

    return GCP_EBADREQUEST;
}


json_t *
gcp_review_response(gcp_op_t *op, const json_t *obj, json_t *spec,
    json_t *status)
{
    json_t  *out, *meta;

    meta = json_object();

    if (meta && op->res->namespaced) {
        json_object_set(meta, "namespace",
                        json_object_get(json_object_get(obj, "metadata"),
                                        "namespace"));
    }

    if (meta) {
        json_object_set_new(meta, "creationTimestamp", json_null());
    }

    out = json_pack("{s:s, s:s, s:o, s:o, s:o}",
                    "kind", op->res->kind,
                    "apiVersion", gcp_resource_api_version(op->a, op->res),
                    "metadata", meta, "spec", spec, "status", status);

    return gcp_json_arena(op->a, out);
}


/* The attributes of spec for user. */
static void
gcp_review_attrs(gcp_op_t *op, const json_t *spec, const gcp_user_t *user,
    gcp_authz_attrs_t *attrs)
{
    json_t      *ra, *na;
    const char  *version;

    memset(attrs, 0, sizeof(gcp_authz_attrs_t));

    attrs->user = user;

    ra = json_object_get(spec, "resourceAttributes");
    na = json_object_get(spec, "nonResourceAttributes");

    if (json_is_object(ra)) {
        version = gcp_review_str(ra, "version");

        attrs->resource_request = 1;
        attrs->verb = gcp_review_str(ra, "verb");
        attrs->ns = gcp_review_str(ra, "namespace");
        attrs->group = gcp_review_str(ra, "group");
        attrs->version = version[0] ? version : "*";
        attrs->resource = gcp_review_str(ra, "resource");
        attrs->subresource = gcp_review_str(ra, "subresource");
        attrs->name = gcp_review_str(ra, "name");
        attrs->path = "";
        return;
    }

    attrs->verb = gcp_review_str(na, "verb");
    attrs->path = gcp_review_str(na, "path");
    attrs->ns = "";
    attrs->group = "";
    attrs->version = "";
    attrs->resource = "";
    attrs->subresource = "";
    attrs->name = "";
}


/* The user a SubjectAccessReviewSpec names. */
static gcp_user_t *
gcp_review_spec_user(gcp_arena_t *a, const json_t *spec)
{
    size_t              i, j, n;
    json_t             *groups, *extra, *vals, *v;
    const char         *k;
    const char        **g, **ev;
    gcp_user_t         *u;
    gcp_user_extra_t   *x;

    u = gcp_calloc(a, sizeof(gcp_user_t));
    if (u == NULL) {
        return NULL;
    }

    u->name = gcp_review_str(spec, "user");
    u->uid = gcp_review_str(spec, "uid");

    groups = json_object_get(spec, "groups");
    n = json_array_size(groups);

    g = gcp_calloc(a, (n + 1) * sizeof(char *));
    if (g == NULL) {
        return NULL;
    }

    json_array_foreach(groups, i, v) {
        g[u->ngroups++] = json_is_string(v) ? json_string_value(v) : "";
    }

    u->groups = g;

    extra = json_object_get(spec, "extra");
    n = json_object_size(extra);

    if (n == 0) {
        return u;
    }

    x = gcp_calloc(a, n * sizeof(gcp_user_extra_t));
    if (x == NULL) {
        return NULL;
    }

    json_object_foreach(extra, k, vals) {
        ev = gcp_calloc(a, (json_array_size(vals) + 1) * sizeof(char *));
        if (ev == NULL) {
            return NULL;
        }

        x[u->nextra].key = k;
        x[u->nextra].values = ev;

        json_array_foreach(vals, j, v) {
            if (json_is_string(v)) {
                ev[x[u->nextra].nvalues++] = json_string_value(v);
            }
        }

        u->nextra++;
    }

    u->extra = x;

    return u;
}


static const char * const  gcp_review_spec_order[] = {
    "resourceAttributes", "nonResourceAttributes", "user", "groups",
    "extra", "uid", NULL
};

static const char * const  gcp_review_ra_order[] = {
    "namespace", "verb", "group", "version", "resource", "subresource",
    "name", "fieldSelector", "labelSelector", NULL
};

static const char * const  gcp_review_nra_order[] = {
    "path", "verb", NULL
};


/* The spec in Go field order (a new reference, NULL: out of memory). */
static json_t *
gcp_review_spec(json_t *spec)
{
    json_t  *out, *v;

    out = gcp_rbac_ordered(spec, gcp_review_spec_order);

    v = json_object_get(out, "resourceAttributes");

    if (v && json_object_set_new(out, "resourceAttributes",
                                 gcp_rbac_ordered(v, gcp_review_ra_order))
             != 0)
    {
        json_decref(out);
        return NULL;
    }

    v = json_object_get(out, "nonResourceAttributes");

    if (v && json_object_set_new(out, "nonResourceAttributes",
                                 gcp_rbac_ordered(v, gcp_review_nra_order))
             != 0)
    {
        json_decref(out);
        return NULL;
    }

    return out;
}


/*
 * Asks the authorizer about spec for user and answers 201 with the review.
 * Returns GCP_EEXISTS (answered: nothing is stored).
 */
static int
gcp_review_answer(gcp_op_t *op, const json_t *obj, const gcp_user_t *user)
{
    json_t                *spec, *status, *out;
    const char            *reason;
    gcp_authz_attrs_t      attrs;
    gcp_authz_decision_t   decision;

    spec = json_object_get(obj, "spec");

    gcp_review_attrs(op, spec, user, &attrs);

    reason = NULL;
    decision = gcp_rbac_api_authorize(op->api, op->a, &attrs, &reason);

    status = json_pack("{s:b}", "allowed", decision == GCP_AUTHZ_ALLOW);

    if (status && decision == GCP_AUTHZ_DENY) {
        json_object_set_new(status, "denied", json_true());
    }

    if (status && reason && reason[0]) {
        json_object_set_new(status, "reason", json_string(reason));
    }

    out = gcp_review_response(op, obj, gcp_review_spec(spec), status);

    if (out == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    gcp_output_object(op, 201, NULL, out);

    return GCP_EEXISTS;
}


static int
gcp_ssar_serve(gcp_op_t *op, json_t *obj)
{
    gcp_ferrs_t  errs;

    gcp_ferrs_init(&errs, op->a);

    gcp_review_validate_spec(&errs, json_object_get(obj, "spec"), 0);
    gcp_review_validate_meta(&errs, obj, NULL);

    if (errs.n) {
        gcp_review_invalid(op, &errs);
        return GCP_EINVALID;
    }

    if (op->req->user == NULL) {
        return gcp_review_no_user(op);
    }

    return gcp_review_answer(op, obj, op->req->user);
}


static int
gcp_sar_serve(gcp_op_t *op, json_t *obj)
{
    json_t       *spec, *ra;
    gcp_user_t   *user;
    const char   *ns;
    gcp_ferrs_t   errs;

    gcp_ferrs_init(&errs, op->a);

    spec = json_object_get(obj, "spec");
    gcp_review_validate_spec(&errs, spec, 1);

    if (op->res->namespaced) {
        gcp_review_validate_meta(&errs, obj, "namespace");

        ns = gcp_review_str(json_object_get(obj, "metadata"), "namespace");
        ra = json_object_get(spec, "resourceAttributes");

        if (json_is_object(ra)
            && strcmp(gcp_review_str(ra, "namespace"), ns) != 0)
        {
            gcp_ferrs_add(&errs, GCP_FERR_INVALID,
                          "spec.resourceAttributes.namespace",
                          gcp_ferr_quote(op->a,
                                         gcp_review_str(ra, "namespace")),
                          "must match metadata.namespace");
        }

        if (json_is_object(json_object_get(spec, "nonResourceAttributes")))
        {
            gcp_ferrs_add(&errs, GCP_FERR_INVALID,
                          "spec.nonResourceAttributes",
                          gcp_review_go_nonresource(op->a,
                              json_object_get(spec,
                                              "nonResourceAttributes")),
                          "disallowed on this kind of request");
        }

    } else {
        gcp_review_validate_meta(&errs, obj, NULL);
    }

    if (errs.n) {
        gcp_review_invalid(op, &errs);
        return GCP_EINVALID;
    }

    user = gcp_review_spec_user(op->a, spec);
    if (user == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    return gcp_review_answer(op, obj, user);
}


static const gcp_strategy_t  gcp_ssar_strategy = {
    .prepare_create = gcp_ssar_serve,
};


static const gcp_strategy_t  gcp_sar_strategy = {
    .prepare_create = gcp_sar_serve,
};


const gcp_resource_t  gcp_type_selfsubjectaccessreviews = {
    GCP_REVIEW_TYPE("selfsubjectaccessreviews", "selfsubjectaccessreview",
                    "SelfSubjectAccessReview", 0, &gcp_ssar_strategy),
};


const gcp_resource_t  gcp_type_subjectaccessreviews = {
    GCP_REVIEW_TYPE("subjectaccessreviews", "subjectaccessreview",
                    "SubjectAccessReview", 0, &gcp_sar_strategy),
};


const gcp_resource_t  gcp_type_localsubjectaccessreviews = {
    GCP_REVIEW_TYPE("localsubjectaccessreviews", "localsubjectaccessreview",
                    "LocalSubjectAccessReview", 1, &gcp_sar_strategy),
};
