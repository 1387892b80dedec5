
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


/* The schema of op's resource in api_version, or NULL. */

static const json_t *
gcp_reg_version_node(gcp_op_t *op, const char *api_version)
{
    const char            *v;
    const gcp_resource_t  *r;

    v = strrchr(api_version, '/');
    r = gcp_registry_find(op->api->registry, op->res->group,
                          v ? v + 1 : api_version, op->res->name);

    return r && r->schema ? gcp_schema_get(op->api->schemas, r->schema)
                          : NULL;
}


void
gcp_reg_managed_set_views(gcp_op_t *op, gcp_managed_t *m,
    gcp_managed_view_t *views, size_t n)
{
    size_t  i;

    for (i = 0; i < n; i++) {
        views[i].node = gcp_reg_version_node(op, views[i].api_version);
    }

    m->views = views;
    m->nviews = n;
}


typedef struct {
    gcp_op_t          *op;
    const json_t      *live;
    const char        *api_version;
    json_t            *merged;
    json_t            *obj;
    json_t           **lost;
    gcp_reg_views_pt   done;
    void              *arg;
} gcp_reg_prune_t;


static void
gcp_reg_pruned_back(void *arg, int rc, const char *message)
{
    gcp_reg_prune_t  *p = arg;
    gcp_managed_t     m;

    if (rc != GCP_OK) {
        p->done(p->op, p->arg, rc, message);
        return;
    }

    gcp_reg_managed_init(p->op, &m);

    *p->lost = gcp_json_arena(p->op->a,
                              gcp_managed_lost(&m, p->merged, p->obj));

    p->done(p->op, p->arg, *p->lost ? GCP_OK : GCP_ENOMEM, NULL);
}


static void
gcp_reg_pruned_there(void *arg, int rc, const char *message)
{
    gcp_reg_prune_t  *p = arg;
    gcp_op_t         *op = p->op;
    gcp_managed_t     m;

    if (rc != GCP_OK) {
        p->done(op, p->arg, rc, message);
        return;
    }

    gcp_reg_managed_init(op, &m);

    p->obj = gcp_json_arena(op->a,
                            gcp_managed_prune_self(&m, p->live,
                                gcp_reg_version_node(op, p->api_version),
                                p->obj));
    if (p->obj == NULL) {
        p->done(op, p->arg, GCP_ENOMEM, NULL);
        return;
    }

    op->res->strategy->convert_from(op, op->a, &p->obj, 1, p->api_version,
                                    gcp_reg_pruned_back, p);
}


int
gcp_reg_managed_prune_self(gcp_op_t *op, const json_t *live,
    const json_t *config, json_t **lost, gcp_reg_views_pt done, void *arg)
{
    const char            *av;
    gcp_managed_t          m;
    gcp_reg_prune_t       *p;
    const gcp_strategy_t  *st = op->res->strategy;

    *lost = NULL;

    if (st == NULL || st->converts_to == NULL || st->convert_to == NULL
        || st->convert_from == NULL)
    {
        return 0;
    }

    gcp_reg_managed_init(op, &m);

    av = gcp_managed_self_version(&m, live);

    if (av == NULL || !st->converts_to(op, av)) {
        return 0;
    }

    p = gcp_calloc(op->a, sizeof(gcp_reg_prune_t));

    if (p) {
        p->merged = gcp_json_arena(op->a,
                                   gcp_managed_merged(&m, live, config));
        p->obj = p->merged ? gcp_json_arena(op->a,
                                            gcp_json_deep_copy(p->merged))
                           : NULL;
    }

    if (p == NULL || p->obj == NULL) {
        done(op, arg, GCP_ENOMEM, NULL);
        return 1;
    }

    p->op = op;
    p->live = live;
    p->api_version = av;
    p->lost = lost;
    p->done = done;
    p->arg = arg;

    st->convert_to(op, op->a, &p->obj, 1, av, gcp_reg_pruned_there, p);

    return 1;
}


typedef struct {
    gcp_op_t             *op;
    json_t               *versions;     /* those to convert to */
    size_t                i;
    json_t               *objs[2];
    json_t               *old;
    json_t               *new;
    gcp_managed_view_t   *views;
    gcp_managed_view_t  **out;
    size_t               *nout;
    gcp_reg_views_pt      done;
    void                 *arg;
} gcp_reg_views_t;


static void gcp_reg_views_next(gcp_reg_views_t *vs);


static void
gcp_reg_views_converted(void *arg, int rc, const char *message)
{
    gcp_reg_views_t     *vs = arg;
    gcp_managed_view_t  *v;

    if (rc != GCP_OK) {
        vs->done(vs->op, vs->arg, rc, message);
        return;
    }

    v = &vs->views[vs->i];
    v->api_version = json_string_value(json_array_get(vs->versions, vs->i));
    v->old = vs->objs[0];
    v->new = vs->objs[1];

    vs->i++;
    gcp_reg_views_next(vs);
}


static void
gcp_reg_views_next(gcp_reg_views_t *vs)
{
    gcp_op_t  *op = vs->op;

    if (vs->i == json_array_size(vs->versions)) {
        *vs->out = vs->views;
        *vs->nout = vs->i;
        vs->done(op, vs->arg, GCP_OK, NULL);
        return;
    }

    vs->objs[0] = vs->old;
    vs->objs[1] = vs->new;

    op->res->strategy->convert_to(op, op->a, vs->objs, 2,
                                  json_string_value(json_array_get(
                                      vs->versions, vs->i)),
                                  gcp_reg_views_converted, vs);
}


/*
 * The apiVersions of the entries of a and b the strategy converts to by
 * a call (arena), or NULL when out of memory.
 */

static json_t *
gcp_reg_managed_versions(gcp_op_t *op, const json_t *a, const json_t *b)
{
    size_t                 i;
    json_t                *all, *out, *v;
    gcp_managed_t          m;
    const gcp_strategy_t  *st = op->res->strategy;

    out = gcp_json_arena(op->a, json_array());

    if (out == NULL || st == NULL || st->converts_to == NULL
        || st->convert_to == NULL
        || (json_array_size(a) == 0 && json_array_size(b) == 0))
    {
        return out;
    }

    gcp_reg_managed_init(op, &m);

    all = gcp_json_arena(op->a, gcp_managed_versions(&m, a, b));
    if (all == NULL) {
        return NULL;
    }

    json_array_foreach(all, i, v) {
        if (st->converts_to(op, json_string_value(v))
            && json_array_append(out, v) != 0)
        {
            return NULL;
        }
    }

    return out;
}


int
gcp_reg_managed_viewed(gcp_op_t *op, const json_t *a, const json_t *b)
{
    json_t  *versions;

    versions = gcp_reg_managed_versions(op, a, b);

    /* out of memory: 1, and gcp_reg_managed_views() says it */

    return versions == NULL || json_array_size(versions) != 0;
}


void
gcp_reg_managed_views(gcp_op_t *op, const json_t *a, const json_t *b,
    json_t *old, json_t *new, gcp_managed_view_t **views, size_t *n,
    gcp_reg_views_pt done, void *arg)
{
    gcp_reg_views_t  *vs;

    *views = NULL;
    *n = 0;

    vs = gcp_calloc(op->a, sizeof(gcp_reg_views_t));

    if (vs == NULL
        || (vs->versions = gcp_reg_managed_versions(op, a, b)) == NULL)
    {
        done(op, arg, GCP_ENOMEM, NULL);
        return;
    }

    if (json_array_size(vs->versions) == 0) {
        done(op, arg, GCP_OK, NULL);
        return;
    }

    vs->views = gcp_calloc(op->a, json_array_size(vs->versions)
                                  * sizeof(gcp_managed_view_t));
    if (vs->views == NULL) {
        done(op, arg, GCP_ENOMEM, NULL);
        return;
    }

    vs->op = op;
    vs->old = old;
    vs->new = new;
    vs->out = views;
    vs->nout = n;
    vs->done = done;
    vs->arg = arg;

    gcp_reg_views_next(vs);
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
    char          *key;
    json_t        *obj;
    const json_t  *memo;

    if (op->res->unstructured || m->node == NULL || op->res->schema == NULL)
    {
        return gcp_json_arena(op->a, json_pack("{s:{}}", "metadata"));
    }

    /* the same for every object of the type: made once per schema set */

    key = gcp_sprintf(op->a, "managed-shape:%s", op->res->schema);
    if (key == NULL) {
        return NULL;
    }

    memo = gcp_schema_memo_get(m->set, key);

    if (memo) {
        return gcp_json_arena(op->a, json_incref((json_t *) memo));
    }

    obj = json_pack("{s:{}}", "metadata");

    if (obj && (gcp_reg_managed_structs(m, m->node, obj, 0) != GCP_OK
                || gcp_schema_memo_put(m->set, key, obj) != GCP_OK))
    {
        json_decref(obj);
        obj = NULL;
    }

    return gcp_json_arena(op->a, obj);
}


json_t *
gcp_reg_apply_config(gcp_op_t *op)
{
    int                       rc;
    json_t                   *obj, *meta;
    gcp_str_t                 body = op->req->body;
    const char               *av, *name, *expect;
    gcp_yaml_info_t           info;
    const gcp_subresource_t  *sub;

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

    /* a subresource of another kind (a Scale) is applied as that kind */

    sub = op->sub;
    expect = sub == NULL || sub->group == NULL ? gcp_reg_api_version(op)
             : sub->group[0] ? gcp_sprintf(op->a, "%s/%s", sub->group,
                                           sub->version)
             : sub->version;

    av = json_string_value(json_object_get(obj, "apiVersion"));

    if (expect == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return NULL;
    }

    if (av == NULL || strcmp(av, expect) != 0) {
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "Incorrect version specified in "
                                 "apply patch. Specified patch version: %s, "
                                 "expected: %s", av ? av : "", expect),
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
