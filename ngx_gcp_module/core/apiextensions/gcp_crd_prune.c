
/*
 * Structural pruning of custom resources, as kube-apiserver's decoder
 * applies it (apiextensions-apiserver schema/pruning/algorithm.go,
 * schema/defaulting/prunenulls.go, schema/objectmeta/coerce.go and
 * algorithm.go; see gcp_crd_schema.h).
 */

#include <stdlib.h>

#include "gcp_crd_int.h"
#include "gcp_json.h"
#include "gcp_schema_check.h"
#include "gcp_time.h"


static int
gcp_crd_meta_field(const char *k)
{
    return strcmp(k, "apiVersion") == 0 || strcmp(k, "kind") == 0
           || strcmp(k, "metadata") == 0;
}


void
gcp_crd_paths_add(gcp_crd_paths_t *paths, const char *p, size_t len)
{
    size_t        cap;
    const char  **v, *s;

    if (paths->n == paths->cap) {
        cap = paths->cap ? paths->cap * 2 : 8;
        v = gcp_alloc(paths->arena, cap * sizeof(char *));
        if (v == NULL) {
            paths->nomem = 1;
            return;
        }

        if (paths->n) {
            memcpy(v, paths->v, paths->n * sizeof(char *));
        }

        paths->v = v;
        paths->cap = cap;
    }

    s = gcp_strndup(paths->arena, p, len);
    if (s == NULL) {
        paths->nomem = 1;
        return;
    }

    paths->v[paths->n++] = s;
}


/* RecordUnknownField(): the parent path, a '.', the key */
static void
gcp_crd_record(gcp_crd_paths_t *paths, gcp_buf_t *path, const char *k)
{
    size_t  pop;

    if (paths == NULL) {
        return;
    }

    pop = gcp_crd_path_child(path, k, strlen(k));
    gcp_crd_paths_add(paths, path->data, path->len);
    gcp_crd_path_pop(path, pop);
}


static void gcp_crd_prune(const gcp_crd_node_t *s, json_t *x,
    gcp_crd_paths_t *paths, gcp_buf_t *path);


/* skipPrune(): below x-kubernetes-preserve-unknown-fields */
static void
gcp_crd_skip_prune(const gcp_crd_node_t *s, json_t *x,
    gcp_crd_paths_t *paths, gcp_buf_t *path)
{
    size_t           i, pop;
    json_t          *v;
    const char      *k;
    gcp_crd_node_t  *p;

    if (s == NULL) {
        return;
    }

    if (json_is_object(x)) {
        json_object_foreach(x, k, v) {
            if (s->embedded && gcp_crd_meta_field(k)) {
                continue;
            }

            p = gcp_crd_prop(s, k, strlen(k));

            if (p == NULL && !s->ap_present) {
                continue;
            }

            pop = gcp_crd_path_child(path, k, strlen(k));
            gcp_crd_prune(p ? p : s->ap, v, paths, path);
            gcp_crd_path_pop(path, pop);
        }

        return;
    }

    if (json_is_array(x)) {
        json_array_foreach(x, i, v) {
            pop = gcp_crd_path_index(path, i);
            gcp_crd_skip_prune(s->items, v, paths, path);
            gcp_crd_path_pop(path, pop);
        }
    }
}


static void
gcp_crd_prune(const gcp_crd_node_t *s, json_t *x, gcp_crd_paths_t *paths,
    gcp_buf_t *path)
{
    void            *tmp;
    size_t           i, pop;
    json_t          *v;
    const char      *k;
    gcp_crd_node_t  *p;

    if (s && s->preserve) {
        gcp_crd_skip_prune(s, x, paths, path);
        return;
    }

    if (json_is_object(x)) {
        json_object_foreach_safe(x, tmp, k, v) {
            if (s && s->embedded && gcp_crd_meta_field(k)) {
                continue;
            }

            p = s ? gcp_crd_prop(s, k, strlen(k)) : NULL;

            if (p || (s && s->ap_present)) {
                pop = gcp_crd_path_child(path, k, strlen(k));
                gcp_crd_prune(p ? p : s->ap, v, paths, path);
                gcp_crd_path_pop(path, pop);
                continue;
            }

            if (!gcp_crd_meta_field(k) || path->len > 0) {
                gcp_crd_record(paths, path, k);
            }

            json_object_del(x, k);
        }

        return;
    }

    if (json_is_array(x)) {
        json_array_foreach(x, i, v) {
            pop = gcp_crd_path_index(path, i);
            gcp_crd_prune(s ? s->items : NULL, v, paths, path);
            gcp_crd_path_pop(path, pop);
        }
    }
}


void
gcp_crd_prune_node(const gcp_crd_node_t *s, json_t *x, int resource_root,
    gcp_crd_paths_t *paths, gcp_buf_t *path)
{
    gcp_crd_node_t  root;

    gcp_crd_prune(gcp_crd_resource_root(s, resource_root, &root), x, paths,
                  path);
}


/* PruneNonNullableNullsWithoutDefaults() */
static void
gcp_crd_prune_nulls(const gcp_crd_node_t *s, json_t *x)
{
    void            *tmp;
    size_t           i;
    json_t          *v;
    const char      *k;
    gcp_crd_node_t  *sub;

    if (s == NULL) {
        return;
    }

    if (json_is_object(x)) {
        json_object_foreach_safe(x, tmp, k, v) {
            sub = gcp_crd_prop(s, k, strlen(k));

            if (sub == NULL && s->ap_present) {
                sub = s->ap;
            }

            if (sub == NULL) {
                continue;
            }

            if (json_is_null(v) && !sub->nullable && sub->dflt == NULL) {
                json_object_del(x, k);
                continue;
            }

            gcp_crd_prune_nulls(sub, v);
        }

        return;
    }

    if (json_is_array(x)) {
        json_array_foreach(x, i, v) {
            gcp_crd_prune_nulls(s->items, v);
        }
    }
}


/* ------------------------------------------------------- ObjectMeta */


typedef struct {
    const gcp_crd_schema_t  *cs;
    gcp_arena_t             *arena;
    gcp_crd_paths_t         *paths;
    gcp_ferrs_t             *errs;
    gcp_buf_t                path;
    int                      drop_invalid;
    int                      failed;
} gcp_crd_coerce_t;


static const char  *gcp_crd_meta_strings[] = {
    "name", "generateName", "namespace", "selfLink", "uid",
    "resourceVersion"
};


/* a metav1.Time as ObjectMeta writes it back: UTC seconds, or removed */
static void
gcp_crd_meta_time(gcp_arena_t *a, json_t *obj, const char *key)
{
    char             buf[GCP_TIME_BUFSIZE];
    json_t          *v;
    struct timespec  ts;

    v = json_object_get(obj, key);

    if (v == NULL) {
        return;
    }

    if (!json_is_string(v) || json_string_length(v) == 0
        || gcp_time_parse(a, json_string_value(v), json_string_length(v),
                          &ts, NULL) != GCP_OK)
    {
        json_object_del(obj, key);
        return;
    }

    gcp_time_format(buf, ts.tv_sec);
    json_object_set_new(obj, key, json_string(buf));
}


/* an int64 decoded from an integral float (json.Marshal wrote "1") */
static void
gcp_crd_meta_int(json_t *obj, const char *key)
{
    json_t  *v = json_object_get(obj, key);

    if (json_is_real(v) && json_real_value(v) > -1e21
        && json_real_value(v) < 1e21
        && json_real_value(v) == (double) (int64_t) json_real_value(v))
    {
        json_object_set_new(obj, key,
                            json_integer((json_int_t) json_real_value(v)));
    }
}


static void
gcp_crd_drop_empty(json_t *obj, const char *key)
{
    json_t  *v = json_object_get(obj, key);

    if (v && (json_is_null(v)
              || (json_is_string(v) && json_string_length(v) == 0)
              || (json_is_object(v) && json_object_size(v) == 0)
              || (json_is_array(v) && json_array_size(v) == 0)
              || (json_is_integer(v) && json_integer_value(v) == 0)))
    {
        json_object_del(obj, key);
    }
}


/*
 * SetObjectMeta(x, meta): metadata written back as ToUnstructured of the
 * decoded ObjectMeta (unknown fields already removed): empty optional
 * fields dropped, owner references with their four strings, times in UTC
 * seconds, a zero creationTimestamp removed.
 */
static void
gcp_crd_meta_normalize(gcp_arena_t *a, json_t *meta)
{
    size_t       i, k;
    json_t      *v, *e, *m;
    const char  *key;

    static const char  *owner[] = { "apiVersion", "kind", "name", "uid" };
    static const char  *managed[] = { "manager", "operation", "apiVersion",
                                      "fieldsType", "subresource" };

    for (i = 0; i < gcp_nelems(gcp_crd_meta_strings); i++) {
        gcp_crd_drop_empty(meta, gcp_crd_meta_strings[i]);
    }

    gcp_crd_meta_int(meta, "generation");
    gcp_crd_meta_int(meta, "deletionGracePeriodSeconds");
    gcp_crd_drop_empty(meta, "generation");

    if (json_is_null(json_object_get(meta, "deletionGracePeriodSeconds"))) {
        json_object_del(meta, "deletionGracePeriodSeconds");
    }

    gcp_crd_meta_time(a, meta, "creationTimestamp");
    gcp_crd_meta_time(a, meta, "deletionTimestamp");

    /* map[string]string: a null value decodes as "" */

    for (k = 0; k < 2; k++) {
        m = json_object_get(meta, k ? "annotations" : "labels");

        json_object_foreach(m, key, v) {
            if (json_is_null(v)) {
                json_object_set_new(m, key, json_string(""));
            }
        }
    }

    v = json_object_get(meta, "ownerReferences");

    json_array_foreach(v, i, e) {
        if (!json_is_object(e)) {
            continue;
        }

        for (k = 0; k < gcp_nelems(owner); k++) {
            if (!json_is_string(json_object_get(e, owner[k]))) {
                json_object_set_new(e, owner[k], json_string(""));
            }
        }

        if (json_is_null(json_object_get(e, "controller"))) {
            json_object_del(e, "controller");
        }

        if (json_is_null(json_object_get(e, "blockOwnerDeletion"))) {
            json_object_del(e, "blockOwnerDeletion");
        }
    }

    v = json_object_get(meta, "managedFields");

    json_array_foreach(v, i, e) {
        if (!json_is_object(e)) {
            continue;
        }

        for (k = 0; k < gcp_nelems(managed); k++) {
            gcp_crd_drop_empty(e, managed[k]);
        }

        if (json_is_null(json_object_get(e, "fieldsV1"))) {
            json_object_del(e, "fieldsV1");
        }

        gcp_crd_meta_time(a, e, "time");
    }

    gcp_crd_drop_empty(meta, "labels");
    gcp_crd_drop_empty(meta, "annotations");
    gcp_crd_drop_empty(meta, "ownerReferences");
    gcp_crd_drop_empty(meta, "finalizers");
    gcp_crd_drop_empty(meta, "managedFields");
}


/* GetObjectMeta(x, drop) + SetObjectMeta(): 0, or -1 with the error */
static int
gcp_crd_coerce_meta(gcp_crd_coerce_t *c, json_t *x, json_t *meta)
{
    void         *tmp;
    size_t        i, n, pop;
    json_t       *v, *one;
    const char   *msg, *k, **unknown, *field;

    if (json_is_null(meta)) {
        json_object_del(x, "metadata");         /* SetObjectMeta(nil) */
        return 0;
    }

    if (c->cs->objectmeta == NULL) {
        return 0;
    }

    msg = gcp_crd_decode_meta(c->arena, c->cs, meta);

    if (msg) {
        if (!c->drop_invalid) {
            pop = gcp_crd_path_child(&c->path, "metadata", 8);
            field = gcp_crd_path_str(c->arena, &c->path);
            gcp_crd_path_pop(&c->path, pop);

            gcp_ferrs_add(c->errs, GCP_FERR_INVALID, field,
                          gcp_crd_go_value_str(c->arena, meta), "%s", msg);
            return -1;
        }

        if (!json_is_object(meta)) {
            return 0;                       /* passed through as it is */
        }

        /* field by field, keeping those that decode */

        json_object_foreach_safe(meta, tmp, k, v) {
            one = gcp_json_arena(c->arena, json_object());
            if (one == NULL) {
                return -1;
            }

            json_object_set(one, k, v);

            if (gcp_crd_decode_meta(c->arena, c->cs, one) != NULL) {
                json_object_del(meta, k);
            }
        }
    }

    if (c->paths) {
        if (gcp_schema_unknown_fields(c->arena, c->cs->set,
                                      c->cs->objectmeta, meta, &unknown, &n)
            != GCP_OK)
        {
            c->paths->nomem = 1;
            n = 0;
        }

        for (i = 0; i < n; i++) {
            field = gcp_sprintf(c->arena, "%.*s%smetadata.%s",
                                (int) c->path.len,
                                c->path.data ? c->path.data : "",
                                c->path.len ? "." : "", unknown[i]);
            if (field) {
                gcp_crd_paths_add(c->paths, field, strlen(field));
            }
        }
    }

    (void) gcp_schema_prune_unknown(c->cs->set, c->cs->objectmeta, meta);
    gcp_crd_meta_normalize(c->arena, meta);

    return 0;
}


static int
gcp_crd_coerce_walk(gcp_crd_coerce_t *c, const gcp_crd_node_t *s, json_t *x)
{
    void            *tmp;
    size_t           i, pop;
    json_t          *v;
    const char      *k, *field;
    gcp_crd_node_t  *p;

    if (s == NULL || !s->subtree_meta) {
        return 0;
    }

    if (json_is_object(x)) {
        json_object_foreach_safe(x, tmp, k, v) {
            if (s->embedded) {
                if (strcmp(k, "apiVersion") == 0 || strcmp(k, "kind") == 0) {
                    if (!json_is_string(v)) {
                        if (c->drop_invalid) {
                            json_object_del(x, k);
                            continue;
                        }

                        pop = gcp_crd_path_child(&c->path, k, strlen(k));
                        field = gcp_crd_path_str(c->arena, &c->path);
                        gcp_crd_path_pop(&c->path, pop);

                        gcp_ferrs_add(c->errs, GCP_FERR_INVALID, field,
                                      gcp_crd_go_value_str(c->arena, v),
                                      "must be a string");
                        return -1;
                    }

                } else if (strcmp(k, "metadata") == 0) {
                    if (gcp_crd_coerce_meta(c, x, v) != 0) {
                        return -1;
                    }

                    v = json_object_get(x, "metadata");
                    if (v == NULL) {
                        continue;
                    }
                }
            }

            p = gcp_crd_prop(s, k, strlen(k));

            if (p) {
                pop = gcp_crd_path_child(&c->path, k, strlen(k));

            } else if (s->ap_present) {
                p = s->ap;
                pop = gcp_crd_path_key(&c->path, k, strlen(k));

            } else {
                continue;
            }

            if (gcp_crd_coerce_walk(c, p, v) != 0) {
                return -1;
            }

            gcp_crd_path_pop(&c->path, pop);
        }

        return 0;
    }

    if (json_is_array(x)) {
        json_array_foreach(x, i, v) {
            pop = gcp_crd_path_index(&c->path, i);

            if (gcp_crd_coerce_walk(c, s->items, v) != 0) {
                return -1;
            }

            gcp_crd_path_pop(&c->path, pop);
        }
    }

    return 0;
}


int
gcp_crd_coerce(const gcp_crd_schema_t *cs, const gcp_crd_node_t *s,
    json_t *obj, const char *prefix, int resource_root, int drop_invalid,
    gcp_crd_paths_t *paths, gcp_ferrs_t *errs)
{
    int               rc;
    gcp_crd_node_t    root;
    gcp_crd_coerce_t  c;

    c.cs = cs;
    c.arena = errs->arena;
    c.paths = paths;
    c.errs = errs;
    c.drop_invalid = drop_invalid;
    c.failed = 0;

    gcp_buf_init(&c.path, errs->arena);
    gcp_buf_addstr(&c.path, prefix);

    s = gcp_crd_resource_root(s, resource_root && s, &root);

    rc = gcp_crd_coerce_walk(&c, s, obj);

    if (errs->nomem || gcp_buf_failed(&c.path)) {
        return GCP_ENOMEM;
    }

    return rc == 0 ? GCP_OK : GCP_EBADREQUEST;
}


static int
gcp_crd_strcmp(const void *a, const void *b)
{
    return strcmp(*(const char **) a, *(const char **) b);
}


int
gcp_crd_schema_prune(const gcp_crd_schema_t *cs, json_t *obj, unsigned flags,
    gcp_arena_t *a, const char ***paths, size_t *npaths, const char **err)
{
    int               rc;
    size_t            pruned;
    gcp_buf_t         path;
    gcp_ferrs_t       errs;
    gcp_crd_paths_t   found, *pp;

    memset(&found, 0, sizeof(found));
    found.arena = a;
    pp = (flags & GCP_CRD_PRUNE_PATHS) ? &found : NULL;

    if (paths) {
        *paths = NULL;
        *npaths = 0;
    }

    *err = NULL;

    gcp_buf_init(&path, a);
    gcp_crd_prune_node(cs->root, obj, 1, pp, &path);

    if (found.n > 1) {
        qsort(found.v, found.n, sizeof(char *), gcp_crd_strcmp);
    }

    pruned = found.n;

    gcp_crd_prune_nulls(cs->root, obj);

    gcp_ferrs_init(&errs, a);

    rc = gcp_crd_coerce(cs, cs->root, obj, "", 0,
                        (flags & GCP_CRD_PRUNE_DROP_INVALID) != 0, pp, &errs);

    if (rc == GCP_EBADREQUEST && errs.first) {
        *err = gcp_sprintf(a, "%s: %s", errs.first->field,
                           gcp_ferr_cause_message(a, errs.first));
        if (*err == NULL) {
            return GCP_ENOMEM;
        }
    }

    if (found.nomem || gcp_buf_failed(&path)) {
        return GCP_ENOMEM;
    }

    /* the unknown fields of embedded metadata follow, sorted too */

    if (found.n - pruned > 1) {
        qsort(found.v + pruned, found.n - pruned, sizeof(char *),
              gcp_crd_strcmp);
    }

    if (paths && pp) {
        *paths = found.v;
        *npaths = found.n;
    }

    return rc;
}
