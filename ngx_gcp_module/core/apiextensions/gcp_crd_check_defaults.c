
/*
 * Default values of a structural schema (apiextensions-apiserver
 * schema/defaulting/validation.go ValidateDefaults and
 * surroundingobject.go): each default must be pruned, must decode and
 * validate as embedded metadata where it sits in one, and must validate
 * against its own schema.  Defaults under additionalProperties are not
 * looked at (upstream does not follow them).
 */

#include "gcp_crd_int.h"
#include "gcp_crd_json.h"
#include "gcp_json.h"


/* one step from the enclosing resource to a value: a key or an index */
typedef struct {
    const char  *key;           /* NULL: an index */
} gcp_crd_step_t;


typedef struct {
    gcp_ferrs_t             *errs;
    gcp_crd_schema_t         cs;
    int                      require_pruned;
    gcp_buf_t                path;
    gcp_crd_step_t          *steps;
    size_t                   base;      /* the enclosing resource's step */
    size_t                   nsteps;
    size_t                   cap;
} gcp_crd_dctx_t;


/* utilerrors aggregate of field errors: "e" or "[e1, e2]", deduplicated */
static const char *
gcp_crd_aggregate(gcp_arena_t *a, const gcp_ferrs_t *errs)
{
    size_t             n;
    gcp_buf_t          b;
    const char        *one;
    const gcp_ferr_t  *e, *p;

    gcp_buf_init(&b, a);
    n = 0;

    for (e = errs->first; e; e = e->next) {
        one = gcp_sprintf(a, "%s: %s", e->field,
                          gcp_ferr_cause_message(a, e));

        for (p = errs->first; p != e; p = p->next) {
            if (strcmp(gcp_sprintf(a, "%s: %s", p->field,
                                   gcp_ferr_cause_message(a, p)), one) == 0)
            {
                break;
            }
        }

        if (p != e) {
            continue;
        }

        if (n++) {
            gcp_buf_addstr(&b, ", ");
        }

        gcp_buf_addstr(&b, one);
    }

    if (n > 1) {
        return gcp_sprintf(a, "[%s]", gcp_buf_cstr(&b));
    }

    return gcp_buf_cstr(&b);
}


/*
 * The SurroundingObjectFunc: the value d placed where the steps lead from
 * an object with apiVersion "validation/v1" and kind "Validation".
 */
static json_t *
gcp_crd_surrounding(gcp_crd_dctx_t *c, const json_t *d)
{
    size_t   i;
    json_t  *v, *w;

    v = json_deep_copy(d);

    for (i = c->nsteps; v && i-- > c->base; ) {
        if (c->steps[i].key) {
            w = json_object();
            if (w && json_object_set_new(w, c->steps[i].key, v) != 0) {
                json_decref(w);
                w = NULL;
            }

        } else {
            w = json_array();
            if (w && json_array_append_new(w, v) != 0) {
                json_decref(w);
                w = NULL;
            }
        }

        if (w == NULL) {
            json_decref(v);
        }

        v = w;
    }

    if (v == NULL || !json_is_object(v)) {
        json_decref(v);
        return NULL;
    }

    if (json_object_get(v, "kind") == NULL) {
        json_object_set_new(v, "kind", json_string("Validation"));
    }

    if (json_object_get(v, "apiVersion") == NULL) {
        json_object_set_new(v, "apiVersion", json_string("validation/v1"));
    }

    return gcp_json_arena(c->errs->arena, v);
}


static void
gcp_crd_default_meta(gcp_crd_dctx_t *c, const gcp_crd_node_t *n,
    const gcp_crd_node_t *root, const json_t *d, const char *field)
{
    json_t       *obj;
    const char   *why;
    gcp_ferrs_t   local;
    gcp_arena_t  *a = c->errs->arena;

    obj = gcp_crd_surrounding(c, d);
    if (obj == NULL) {
        c->errs->nomem = 1;
        return;
    }

    gcp_ferrs_init(&local, a);

    if (gcp_crd_coerce(&c->cs, root, obj, "", 1, 0, NULL, &local)
        == GCP_EBADREQUEST)
    {
        why = gcp_crd_aggregate(a, &local);
        gcp_ferrs_add(c->errs, GCP_FERR_INVALID, field,
                      gcp_crd_go_value_str(a, d),
                      "must result in valid metadata: %s", why);
        return;
    }

    gcp_crd_validate_embedded(&local, &c->cs, root, obj, "", 1);

    if (local.n) {
        why = gcp_crd_aggregate(a, &local);
        gcp_ferrs_add(c->errs, GCP_FERR_INVALID, field,
                      gcp_crd_go_value_str(a, d),
                      "must result in valid metadata: %s", why);
        return;
    }

    (void) gcp_crd_validate_value(c->errs, &c->cs, n, d, NULL, 0, field);
}


static void
gcp_crd_default_plain(gcp_crd_dctx_t *c, const gcp_crd_node_t *n,
    const json_t *d, const char *field)
{
    size_t        before;
    json_t       *copy;
    gcp_buf_t     path;
    gcp_arena_t  *a = c->errs->arena;

    if (c->require_pruned) {
        copy = gcp_json_arena(a, json_deep_copy(d));
        if (copy == NULL) {
            c->errs->nomem = 1;
            return;
        }

        gcp_buf_init(&path, a);
        gcp_crd_prune_node(n, copy, n->embedded, NULL, &path);

        if (!json_equal(copy, (json_t *) d)) {
            gcp_ferrs_add(c->errs, GCP_FERR_INVALID, field,
                          gcp_crd_go_value_str(a, d),
                          "must not have unknown fields");
        }
    }

    /* Coerce() may rewrite embedded metadata: work on a copy */

    copy = gcp_json_arena(a, json_deep_copy(d));
    if (copy == NULL) {
        c->errs->nomem = 1;
        return;
    }

    if (gcp_crd_coerce(&c->cs, n, copy, field, n->embedded, 0, NULL,
                       c->errs) != GCP_OK)
    {
        return;
    }

    before = c->errs->n;
    gcp_crd_validate_embedded(c->errs, &c->cs, n, copy, field, n->embedded);

    if (c->errs->n == before) {
        (void) gcp_crd_validate_value(c->errs, &c->cs, n, copy, NULL, 0,
                                      field);
    }
}


static int
gcp_crd_push_step(gcp_crd_dctx_t *c, const char *key)
{
    size_t           cap;
    gcp_crd_step_t  *s;

    if (c->nsteps == c->cap) {
        cap = c->cap ? c->cap * 2 : 16;
        s = gcp_alloc(c->errs->arena, cap * sizeof(gcp_crd_step_t));
        if (s == NULL) {
            c->errs->nomem = 1;
            return -1;
        }

        if (c->nsteps) {
            memcpy(s, c->steps, c->nsteps * sizeof(gcp_crd_step_t));
        }

        c->steps = s;
        c->cap = cap;
    }

    c->steps[c->nsteps++].key = key;
    return 0;
}


static void
gcp_crd_defaults_walk(gcp_crd_dctx_t *c, const gcp_crd_node_t *n,
    const gcp_crd_node_t *root, int inside_meta, int depth)
{
    int          sub_meta;
    size_t       i, pop, base;
    const char  *field;

    if (n == NULL || depth > 1000 || c->errs->nomem) {
        return;
    }

    base = c->base;

    if (n->embedded) {
        inside_meta = 0;
        root = n;
        c->base = c->nsteps;
    }

    if (n->dflt) {
        field = gcp_sprintf(c->errs->arena, "%.*s.default",
                            (int) c->path.len, c->path.data);

        if (field == NULL) {
            c->errs->nomem = 1;
            return;
        }

        if (inside_meta) {
            gcp_crd_default_meta(c, n, root, n->dflt, field);

        } else {
            gcp_crd_default_plain(c, n, n->dflt, field);
        }
    }

    if (n->items && gcp_crd_push_step(c, NULL) == 0) {
        pop = c->path.len;
        gcp_buf_addstr(&c->path, ".items");
        gcp_crd_defaults_walk(c, n->items, root, inside_meta, depth + 1);
        gcp_crd_path_pop(&c->path, pop);
        c->nsteps--;
    }

    for (i = 0; i < n->nprops; i++) {
        sub_meta = inside_meta
                   || (n->embedded
                       && (strcmp(n->props[i].name, "metadata") == 0
                           || strcmp(n->props[i].name, "apiVersion") == 0
                           || strcmp(n->props[i].name, "kind") == 0));

        if (gcp_crd_push_step(c, n->props[i].name) != 0) {
            return;
        }

        pop = c->path.len;
        gcp_buf_printf(&c->path, ".properties[%s]", n->props[i].name);
        gcp_crd_defaults_walk(c, n->props[i].node, root, sub_meta,
                              depth + 1);
        gcp_crd_path_pop(&c->path, pop);
        c->nsteps--;
    }

    c->base = base;
}


void
gcp_crd_defaults_validate(gcp_ferrs_t *errs, const json_t *schema,
    const char *path, int require_pruned, const gcp_schema_set_t *set)
{
    const char      *err;
    gcp_crd_node_t  *root, clone;
    gcp_crd_dctx_t   c;

    root = gcp_crd_compile_node(errs->arena, schema, &err);

    if (root == NULL) {
        /* reported as "error building validator" at the end */
        if (err && strcmp(err, "out of memory") == 0) {
            errs->nomem = 1;
        }

        return;
    }

    memset(&c, 0, sizeof(c));
    c.errs = errs;
    c.require_pruned = require_pruned;
    c.cs.arena = errs->arena;
    c.cs.set = set;
    c.cs.objectmeta = set ? gcp_schema_get(set,
                      "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
                      : NULL;

    /* isResourceRoot: the root is a resource */

    clone = *root;
    clone.embedded = 1;
    clone.subtree_meta = 1;
    c.cs.root = &clone;

    gcp_buf_init(&c.path, errs->arena);
    gcp_buf_addstr(&c.path, path);

    gcp_crd_defaults_walk(&c, &clone, &clone, 0, 0);

    if (gcp_buf_failed(&c.path)) {
        errs->nomem = 1;
    }
}


static int
gcp_crd_unpruned_walk(const gcp_crd_node_t *n, gcp_arena_t *a, int depth)
{
    size_t     i;
    json_t    *copy;
    gcp_buf_t  path;

    if (n == NULL || depth > 1000) {
        return 0;
    }

    if (n->dflt) {
        copy = gcp_json_arena(a, json_deep_copy(n->dflt));
        if (copy == NULL) {
            return 0;
        }

        gcp_buf_init(&path, a);
        gcp_crd_prune_node(n, copy, n->embedded, NULL, &path);

        if (!json_equal(copy, n->dflt)) {
            return 1;
        }
    }

    for (i = 0; i < n->nprops; i++) {
        if (gcp_crd_unpruned_walk(n->props[i].node, a, depth + 1)) {
            return 1;
        }
    }

    return gcp_crd_unpruned_walk(n->items, a, depth + 1)
           || gcp_crd_unpruned_walk(n->ap, a, depth + 1);
}


int
gcp_crd_defaults_unpruned(const json_t *schema, const gcp_schema_set_t *set)
{
    int              rc;
    const char      *err;
    gcp_arena_t     *a;
    gcp_crd_node_t  *root;

    (void) set;

    a = gcp_arena_create(0);
    if (a == NULL) {
        return 0;
    }

    root = gcp_crd_compile_node(a, schema, &err);
    rc = root ? gcp_crd_unpruned_walk(root, a, 0) : 0;

    gcp_arena_destroy(a);
    return rc;
}
