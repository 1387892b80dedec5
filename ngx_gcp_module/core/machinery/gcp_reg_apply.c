
/*
 * The request side of managedFields and server-side apply: who manages a
 * write, what it may own, the applied configuration read from a PATCH's
 * body, and the 409 of conflicting managers.  The field sets themselves
 * are gcp_managed.c's.
 */

#include "gcp_fieldset.h"
#include "gcp_json.h"
#include "gcp_reg.h"
#include "gcp_yaml_parse.h"


void
gcp_reg_managed_init(gcp_op_t *op, gcp_managed_t *m)
{
    char  *buf;

    memset(m, 0, sizeof(gcp_managed_t));

    buf = gcp_alloc(op->a, 130);

    m->set = op->api->schemas;
    m->node = op->res->schema ? gcp_schema_get(op->api->schemas,
                                               op->res->schema)
                              : NULL;
    m->manager = buf ? gcp_managed_manager(gcp_query_get(&op->q,
                                                         "fieldManager"),
                                           op->req->user_agent, buf, 130)
                     : "";
    m->api_version = gcp_reg_api_version(op);
    m->subresource = op->sub ? op->ri.subresource : NULL;
    m->now = gcp_reg_now(op);

    if (op->sub && op->sub->type == GCP_SUB_STATUS) {
        m->scope = GCP_MF_ONLY_STATUS;

    } else if (op->sub == NULL && gcp_resource_sub(op->res, "status")) {
        m->scope = GCP_MF_NOT_STATUS;
    }
}


/*
 * The struct fields of a Go type a new object has (not pointers: their
 * schema has no x-gcp-proto-ptr), recursively, each an empty object.
 */

static int
gcp_reg_managed_structs(const gcp_managed_t *m, const json_t *node,
    json_t *obj, int depth)
{
    json_t        *child;
    const char    *k;
    const json_t  *props, *p, *r;

    props = json_object_get(gcp_schema_resolve(m->set, node), "properties");

    json_object_foreach((json_t *) props, k, p) {
        if (json_object_get(p, "x-gcp-proto-ptr")
            || gcp_fieldset_atomic_map(m->set, p) || depth > 16)
        {
            continue;
        }

        r = gcp_schema_resolve(m->set, p);

        if (json_object_get(r, "properties") == NULL) {
            continue;
        }

        child = json_object();

        if (child == NULL || json_object_set_new(obj, k, child) != 0
            || gcp_reg_managed_structs(m, p, child, depth + 1) != GCP_OK)
        {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


json_t *
gcp_reg_managed_shape(gcp_op_t *op, const gcp_managed_t *m)
{
    json_t  *obj;

    obj = json_pack("{s:{}}", "metadata");

    if (obj && !op->res->unstructured && m->node
        && gcp_reg_managed_structs(m, m->node, obj, 0) != GCP_OK)
    {
        json_decref(obj);
        obj = NULL;
    }

    return gcp_json_arena(op->a, obj);
}


json_t *
gcp_reg_apply_config(gcp_op_t *op)
{
    int              rc;
    json_t          *obj, *meta;
    gcp_str_t        body = op->req->body;
    const char      *av, *name;
    gcp_yaml_info_t  info;

    rc = gcp_yaml_parse(op->a, body.data, body.len, 0, &obj, &info);

    if (rc == GCP_ENOMEM) {
        gcp_op_error(op, rc, NULL, NULL);
        return NULL;
    }

    if (rc != GCP_OK || !json_is_object(obj)) {
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "error decoding YAML: %s",
                                 rc != GCP_OK && info.msg
                                 ? info.msg
                                 : "json: cannot unmarshal non-object "
                                   "into Go value of type "
                                   "map[string]interface {}"),
                     NULL);
        return NULL;
    }

    av = json_string_value(json_object_get(obj, "apiVersion"));

    if (av == NULL || strcmp(av, gcp_reg_api_version(op)) != 0) {
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "Incorrect version specified in "
                                 "apply patch. Specified patch version: %s, "
                                 "expected: %s", av ? av : "",
                                 gcp_reg_api_version(op)),
                     NULL);
        return NULL;
    }

    meta = json_object_get(obj, "metadata");

    if (json_object_get(meta, "managedFields")
        && !json_is_null(json_object_get(meta, "managedFields")))
    {
        gcp_op_error(op, GCP_EBADREQUEST, "metadata.managedFields must be "
                     "nil", NULL);
        return NULL;
    }

    name = json_string_value(json_object_get(meta, "name"));

    if (name && strcmp(name, op->ri.name) != 0) {
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "the name of the object (%s) does "
                                 "not match the name on the URL (%s)", name,
                                 op->ri.name), NULL);
        return NULL;
    }

    return obj;
}


void
gcp_reg_apply_conflict(gcp_op_t *op, const json_t *conflicts)
{
    size_t                 i, j, n;
    gcp_buf_t              b;
    const char            *prev;
    gcp_status_cause_t    *c;
    gcp_status_details_t   d;

    n = json_array_size(conflicts);
    c = gcp_calloc(op->a, (n ? n : 1) * sizeof(gcp_status_cause_t));

    if (c == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    gcp_buf_init(&b, op->a);

    for (i = 0; i < n; i++) {
        const json_t  *e = json_array_get(conflicts, i);

        c[i].reason = "FieldManagerConflict";
        c[i].message = gcp_sprintf(op->a, "conflict with %s",
                                   json_string_value(json_object_get(e,
                                                                "manager")));
        c[i].field = gcp_strdup(op->a,
                                json_string_value(json_object_get(e,
                                                                  "path")));
    }

    if (n == 1) {
        gcp_buf_printf(&b, "Apply failed with 1 conflict: %s: %s",
                       c[0].message, c[0].field);

    } else {
        gcp_buf_printf(&b, "Apply failed with %zu conflicts: ", n);
        prev = NULL;

        for (i = 0, j = 0; i < n; i++) {
            const char  *who = json_string_value(
                json_object_get(json_array_get(conflicts, i), "manager"));

            if (prev == NULL || strcmp(prev, who) != 0) {
                gcp_buf_printf(&b, "%sconflicts with %s:", j++ ? "\n" : "",
                               who);
                prev = who;
            }

            gcp_buf_printf(&b, "\n- %s", c[i].field);
        }
    }

    memset(&d, 0, sizeof(d));
    d.cause = c;
    d.ncause = n;

    gcp_op_error(op, GCP_ECONFLICT, gcp_buf_cstr(&b), &d);
}
