
/*
 * The two structural checks kube-apiserver runs after the schema
 * validation of a custom resource: embedded resources
 * (apiextensions-apiserver schema/objectmeta/validation.go) and the
 * uniqueness of list-type set and map lists (schema/listtype).
 */

#include "gcp_crd_int.h"
#include "gcp_json.h"
#include "gcp_schema_check.h"
#include "gcp_validation.h"


typedef struct {
    gcp_ferrs_t             *errs;
    const gcp_crd_schema_t  *cs;
    gcp_buf_t                path;
} gcp_crd_mctx_t;


static const char *
gcp_crd_mpath(gcp_crd_mctx_t *c, const char *child)
{
    size_t       pop;
    const char  *p;

    pop = gcp_crd_path_child(&c->path, child, strlen(child));
    p = gcp_crd_path_str(c->errs->arena, &c->path);
    gcp_crd_path_pop(&c->path, pop);

    return p ? p : child;
}


/*
 * GetObjectMeta(x, false): NULL when metadata decodes as ObjectMeta, else
 * the decoder's message.
 */
const char *
gcp_crd_decode_meta(gcp_arena_t *a, const gcp_crd_schema_t *cs,
    const json_t *meta)
{
    const char  *msg;

    if (cs->objectmeta == NULL) {
        return NULL;
    }

    if (!json_is_object(meta)) {
        if (json_is_null(meta)) {
            return NULL;
        }

        return gcp_sprintf(a, "json: cannot unmarshal %s into Go value of "
                           "type v1.ObjectMeta", gcp_json_go_kind(meta));
    }

    if (gcp_schema_check_types(a, cs->set, cs->objectmeta, meta, &msg)
        != GCP_OK)
    {
        return msg ? msg : "out of memory";
    }

    return NULL;
}


/* schema.ParseGroupVersion() */
static int
gcp_crd_group_version_ok(const char *s, size_t len)
{
    size_t  i, slashes;

    if (len == 0 || (len == 1 && s[0] == '/')) {
        return 1;
    }

    for (i = 0, slashes = 0; i < len; i++) {
        slashes += s[i] == '/';
    }

    return slashes <= 1;
}


static void
gcp_crd_embedded_resource(gcp_crd_mctx_t *c, const json_t *x)
{
    char             *lower;
    void             *it;
    size_t            i, len;
    json_t           *v, *meta;
    gcp_msgs_t        m;
    gcp_buf_t         b;
    const char       *k, *s, *msg, *field;
    gcp_ferrs_t      *errs = c->errs;
    gcp_meta_opts_t   opts;

    if (json_object_get(x, "apiVersion") == NULL) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, gcp_crd_mpath(c, "apiVersion"),
                      NULL, "must not be empty");
    }

    if (json_object_get(x, "kind") == NULL) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, gcp_crd_mpath(c, "kind"), NULL,
                      "must not be empty");
    }

    for (it = json_object_iter((json_t *) x); it;
         it = json_object_iter_next((json_t *) x, it))
    {
        k = json_object_iter_key(it);
        v = json_object_iter_value(it);

        if (strcmp(k, "apiVersion") == 0 || strcmp(k, "kind") == 0) {
            field = gcp_crd_mpath(c, k);

            if (!json_is_string(v)) {
                gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                              gcp_crd_go_value_str(errs->arena, v),
                              "must be a string");
                continue;
            }

            s = json_string_value(v);
            len = json_string_length(v);

            if (len == 0) {
                gcp_ferrs_add(errs, GCP_FERR_INVALID, field, "\"\"",
                              "must not be empty");
                continue;
            }

            if (k[0] == 'a') {
                if (!gcp_crd_group_version_ok(s, len)) {
                    gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                                  gcp_ferr_quote(errs->arena, s),
                                  "unexpected GroupVersion string: %s", s);
                }

                continue;
            }

            lower = gcp_strndup(errs->arena, s, len);
            if (lower == NULL) {
                errs->nomem = 1;
                continue;
            }

            for (i = 0; i < len; i++) {
                if (lower[i] >= 'A' && lower[i] <= 'Z') {
                    lower[i] += 32;
                }
            }

            if (gcp_is_dns1035_label(lower, len, &m)) {
                gcp_buf_init(&b, errs->arena);

                for (i = 0; i < m.n; i++) {
                    if (i) {
                        gcp_buf_addc(&b, ',');
                    }

                    gcp_buf_addstr(&b, m.msg[i]);
                }

                gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                              gcp_go_quote(errs->arena, s, len),
                              "may have mixed case, but should otherwise "
                              "match: %s", gcp_buf_cstr(&b));
            }

            continue;
        }

        if (strcmp(k, "metadata") != 0) {
            continue;
        }

        field = gcp_crd_mpath(c, "metadata");
        msg = gcp_crd_decode_meta(errs->arena, c->cs, v);

        if (msg) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                          gcp_crd_go_value_str(errs->arena, v), "%s", msg);
            continue;
        }

        /* a name is set ("fakename") so that none is required */

        meta = json_is_object(v) ? json_copy(v) : json_object();
        meta = gcp_json_arena(errs->arena, meta);
        if (meta == NULL) {
            errs->nomem = 1;
            continue;
        }

        s = gcp_json_get_str(meta, "name", NULL);

        if (s == NULL || s[0] == '\0') {
            json_object_set_new(meta, "name", json_string("fakename"));
        }

        s = gcp_json_get_str(meta, "namespace", NULL);

        memset(&opts, 0, sizeof(opts));
        opts.name_mode = GCP_NAME_PATH_SEGMENT;
        opts.namespaced = s != NULL && s[0] != '\0';

        gcp_validate_object_meta_at(errs, meta, &opts, field);
    }
}


static void
gcp_crd_embedded_walk(gcp_crd_mctx_t *c, const gcp_crd_node_t *s,
    const json_t *x)
{
    void            *it;
    size_t           i, pop;
    json_t          *v;
    const char      *k;
    gcp_crd_node_t  *p;

    if (s == NULL || !s->subtree_meta) {
        return;
    }

    if (json_is_object(x)) {
        if (s->embedded) {
            gcp_crd_embedded_resource(c, x);
        }

        for (it = json_object_iter((json_t *) x); it;
             it = json_object_iter_next((json_t *) x, it))
        {
            k = json_object_iter_key(it);
            v = json_object_iter_value(it);
            p = gcp_crd_prop(s, k, strlen(k));

            if (p) {
                pop = gcp_crd_path_child(&c->path, k, strlen(k));
                gcp_crd_embedded_walk(c, p, v);
                gcp_crd_path_pop(&c->path, pop);

            } else if (s->ap_present) {
                pop = gcp_crd_path_key(&c->path, k, strlen(k));
                gcp_crd_embedded_walk(c, s->ap, v);
                gcp_crd_path_pop(&c->path, pop);
            }
        }

        return;
    }

    if (json_is_array(x)) {
        json_array_foreach((json_t *) x, i, v) {
            pop = gcp_crd_path_index(&c->path, i);
            gcp_crd_embedded_walk(c, s->items, v);
            gcp_crd_path_pop(&c->path, pop);
        }
    }
}


void
gcp_crd_validate_embedded(gcp_ferrs_t *errs, const gcp_crd_schema_t *cs,
    const gcp_crd_node_t *s, const json_t *obj, const char *prefix,
    int resource_root)
{
    gcp_crd_node_t  root;
    gcp_crd_mctx_t  c;

    c.errs = errs;
    c.cs = cs;
    gcp_buf_init(&c.path, errs->arena);
    gcp_buf_addstr(&c.path, prefix);

    s = gcp_crd_resource_root(s, resource_root && s, &root);

    gcp_crd_embedded_walk(&c, s, obj);

    if (gcp_buf_failed(&c.path)) {
        errs->nomem = 1;
    }
}


/* ------------------------------------------------------------ lists */


/* Go's == of two scalars held in interfaces (int64 and float64 differ) */
static int
gcp_crd_scalar_eq(const json_t *a, const json_t *b)
{
    if (a == NULL || b == NULL) {
        return a == b;
    }

    return json_typeof(a) == json_typeof(b) && json_equal((json_t *) a,
                                                          (json_t *) b);
}


static int
gcp_crd_compound(const json_t *v)
{
    return json_is_object(v) || json_is_array(v);
}


/*
 * validateListSet(): the indices of the first repetitions (a value seen
 * for the second time) in keys; n values, NULL standing for "no key".
 * Compound values compare by their JSON; the result is written into
 * dups, its length returned.
 */
static size_t
gcp_crd_list_dups(gcp_arena_t *a, const json_t **keys, size_t n,
    size_t *dups)
{
    size_t        i, j, k, *times;
    gcp_buf_t     b;
    const char  **text;

    if (n <= 1) {
        return 0;
    }

    text = gcp_calloc(a, n * sizeof(char *));
    times = gcp_calloc(a, n * sizeof(size_t));
    if (text == NULL || times == NULL) {
        return 0;
    }

    for (i = 0; i < n; i++) {
        if (keys[i] && gcp_crd_compound(keys[i])) {
            gcp_buf_init(&b, a);
            gcp_crd_marshal(&b, keys[i]);
            text[i] = gcp_buf_cstr(&b);
        }
    }

    k = 0;

    /* quadratic in the worst case, on the entries of one list */

    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++) {
            if (times[j] == 0) {
                continue;               /* not a first appearance */
            }

            if (text[i] || text[j]) {
                if (text[i] && text[j] && strcmp(text[i], text[j]) == 0) {
                    break;
                }

                continue;
            }

            if (gcp_crd_scalar_eq(keys[i], keys[j])) {
                break;
            }
        }

        if (j < i) {
            if (++times[j] == 2) {
                dups[k++] = i;
            }

        } else {
            times[i] = 1;
        }
    }

    return k;
}


static void gcp_crd_lists_walk(gcp_ferrs_t *errs, gcp_buf_t *path,
    const gcp_crd_node_t *s, const json_t *x);


static void
gcp_crd_list_array(gcp_ferrs_t *errs, gcp_buf_t *path,
    const gcp_crd_node_t *s, const json_t *x)
{
    size_t          i, k, n, nd, pop, *dups;
    json_t         *e, *key;
    gcp_arena_t    *a = errs->arena;
    const json_t  **keys;
    const char     *field;

    n = json_array_size(x);

    if (s->list_type == GCP_CRD_LIST_MAP) {
        /* only null and objects, whatever the length */
        json_array_foreach((json_t *) x, i, e) {
            if (!json_is_null(e) && !json_is_object(e)) {
                pop = gcp_crd_path_index(path, i);
                gcp_ferrs_add(errs, GCP_FERR_INVALID,
                              gcp_crd_path_str(a, path),
                              gcp_crd_go_value_str(a, e),
                              "must be an object for an array of "
                              "list-type map");
                gcp_crd_path_pop(path, pop);
                goto items;
            }
        }
    }

    if ((s->list_type == GCP_CRD_LIST_SET || s->list_type == GCP_CRD_LIST_MAP)
        && n > 1)
    {
        keys = gcp_calloc(a, n * sizeof(json_t *));
        dups = gcp_alloc(a, n * sizeof(size_t));
        if (keys == NULL || dups == NULL) {
            errs->nomem = 1;
            return;
        }

        if (s->list_type == GCP_CRD_LIST_MAP) {
            json_array_foreach((json_t *) x, i, e) {
                if (s->nmap_keys == 1) {
                    /* the key's value; NULL: unspecified (no key, null) */
                    keys[i] = json_is_object(e)
                              ? json_object_get(e, s->map_keys[0]) : NULL;
                    continue;
                }

                key = json_object();

                if (key == NULL || gcp_json_arena(a, key) == NULL) {
                    errs->nomem = 1;
                    return;
                }

                for (k = 0; json_is_object(e) && k < s->nmap_keys; k++) {
                    if (json_object_get(e, s->map_keys[k])) {
                        json_object_set(key, s->map_keys[k],
                                        json_object_get(e, s->map_keys[k]));
                    }
                }

                keys[i] = key;
            }

        } else {
            json_array_foreach((json_t *) x, i, e) {
                keys[i] = e;
            }
        }

        nd = gcp_crd_list_dups(a, keys, n, dups);

        for (k = 0; k < nd; k++) {
            i = dups[k];
            e = json_array_get(x, i);

            pop = gcp_crd_path_index(path, i);
            field = gcp_crd_path_str(a, path);

            if (s->list_type == GCP_CRD_LIST_SET) {
                gcp_ferrs_add(errs, GCP_FERR_DUPLICATE, field,
                              gcp_crd_go_value_str(a, e), NULL);

            } else if (s->nmap_keys == 1) {
                key = json_object();

                if (key && gcp_json_arena(a, key) && keys[i]) {
                    json_object_set(key, s->map_keys[0], (json_t *) keys[i]);
                }

                gcp_ferrs_add(errs, GCP_FERR_DUPLICATE, field,
                              key ? gcp_crd_go_value_str(a, key) : NULL,
                              NULL);

            } else {
                gcp_ferrs_add(errs, GCP_FERR_DUPLICATE, field,
                              gcp_crd_go_value_str(a, keys[i]), NULL);
            }

            gcp_crd_path_pop(path, pop);
        }
    }

items:

    if (s->items && s->items->subtree_lists) {
        json_array_foreach((json_t *) x, i, e) {
            pop = gcp_crd_path_index(path, i);

            if (json_is_array(e)) {
                gcp_crd_list_array(errs, path, s->items, e);

            } else if (json_is_object(e)) {
                gcp_crd_lists_walk(errs, path, s->items, e);
            }

            gcp_crd_path_pop(path, pop);
        }
    }
}


/* ValidateListSetsAndMaps() over an object */
static void
gcp_crd_lists_walk(gcp_ferrs_t *errs, gcp_buf_t *path,
    const gcp_crd_node_t *s, const json_t *x)
{
    void            *it;
    size_t           pop;
    json_t          *v;
    const char      *k;
    gcp_crd_node_t  *sub;

    if (s == NULL || !s->subtree_lists) {
        return;
    }

    for (it = json_object_iter((json_t *) x); it;
         it = json_object_iter_next((json_t *) x, it))
    {
        k = json_object_iter_key(it);
        v = json_object_iter_value(it);

        sub = gcp_crd_prop(s, k, strlen(k));

        if (sub) {
            pop = gcp_crd_path_child(path, k, strlen(k));

        } else if (s->ap) {
            sub = s->ap;
            pop = gcp_crd_path_key(path, k, strlen(k));

        } else {
            continue;
        }

        if (json_is_array(v)) {
            gcp_crd_list_array(errs, path, sub, v);

        } else if (json_is_object(v)) {
            gcp_crd_lists_walk(errs, path, sub, v);
        }

        gcp_crd_path_pop(path, pop);
    }
}


void
gcp_crd_validate_lists(gcp_ferrs_t *errs, const gcp_crd_node_t *s,
    const json_t *obj)
{
    gcp_buf_t  path;

    if (!json_is_object(obj)) {
        return;
    }

    gcp_buf_init(&path, errs->arena);
    gcp_crd_lists_walk(errs, &path, s, obj);

    if (gcp_buf_failed(&path)) {
        errs->nomem = 1;
    }
}
