
/*
 * Field sets (see gcp_fieldset.h): built from objects by their schema,
 * combined, and printed as upstream's structured-merge-diff does.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_fieldset.h"
#include "gcp_json.h"


static json_t *gcp_fs_value(const gcp_schema_set_t *set, const json_t *node,
    const json_t *v, int depth);


#define GCP_FS_MAX_DEPTH  100


/* Upstream's order of path elements: fields, keys, values, indexes. */

static int
gcp_fs_rank(const char *k)
{
    switch (k[0]) {
    case '.':
        return 0;
    case 'f':
        return 1;
    case 'k':
        return 2;
    case 'v':
        return 3;
    default:
        return 4;
    }
}


static int
gcp_fs_cmp(const void *one, const void *two)
{
    int          r1, r2;
    const char  *a = *(const char * const *) one;
    const char  *b = *(const char * const *) two;

    r1 = gcp_fs_rank(a);
    r2 = gcp_fs_rank(b);

    if (r1 != r2) {
        return r1 - r2;
    }

    if (r1 == 4) {
        long  x = strtol(a + 2, NULL, 10), y = strtol(b + 2, NULL, 10);

        return x < y ? -1 : x > y;
    }

    return strcmp(a, b);
}


/* Rebuilds obj with its keys in upstream's order; consumes obj. */

static json_t *
gcp_fs_sorted(json_t *obj)
{
    size_t        i, n;
    json_t       *out, *v;
    const char   *k, **keys;

    if (obj == NULL) {
        return NULL;
    }

    n = json_object_size(obj);
    keys = malloc((n ? n : 1) * sizeof(const char *));
    out = json_object();

    if (keys == NULL || out == NULL) {
        free(keys);
        json_decref(out);
        json_decref(obj);
        return NULL;
    }

    i = 0;
    json_object_foreach(obj, k, v) {
        keys[i++] = k;
    }

    qsort(keys, n, sizeof(const char *), gcp_fs_cmp);

    for (i = 0; i < n; i++) {
        json_object_set(out, keys[i], json_object_get(obj, keys[i]));
    }

    free(keys);
    json_decref(obj);

    return out;
}


/* A malloc'd string of fmt, or NULL. */

static char *
gcp_fs_printf(const char *fmt, ...)
{
    int       n;
    char     *out;
    va_list   args;

    va_start(args, fmt);
    n = vsnprintf(NULL, 0, fmt, args);
    va_end(args);

    out = n < 0 ? NULL : malloc((size_t) n + 1);
    if (out == NULL) {
        return NULL;
    }

    va_start(args, fmt);
    vsnprintf(out, (size_t) n + 1, fmt, args);
    va_end(args);

    return out;
}


/* Sets key prefix:name of parent to child (consumed); 0 or -1. */

static int
gcp_fs_put_named(json_t *parent, char prefix, const char *name,
    json_t *child)
{
    int    rc;
    char  *k;

    k = gcp_fs_printf("%c:%s", prefix, name);

    rc = k && child && json_object_set_new(parent, k, child) == 0 ? 0 : -1;

    if (rc != 0 && child) {
        json_decref(child);
    }

    free(k);

    return rc;
}


/* Sets key k of parent to child (consumed); 0 or -1 out of memory. */

static int
gcp_fs_put(json_t *parent, const char *k, json_t *child)
{
    if (child == NULL || json_object_set_new(parent, k, child) != 0) {
        return -1;
    }

    return 0;
}


static const char *
gcp_fs_ext(const gcp_schema_set_t *set, const json_t *node, const char *key)
{
    return node ? gcp_schema_ext(set, node, key) : NULL;
}


char *
gcp_fieldset_item_key(const json_t *item, const json_t *keys)
{
    char        *s, *out;
    size_t       i;
    json_t      *k, *v;

    k = json_object();
    if (k == NULL) {
        return NULL;
    }

    for (i = 0; i < json_array_size(keys); i++) {
        const char  *name = json_string_value(json_array_get(keys, i));

        v = name ? json_object_get(item, name) : NULL;

        if (v) {
            json_object_set(k, name, v);
        }
    }

    s = json_dumps(k, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(k);

    if (s == NULL) {
        return NULL;
    }

    out = malloc(strlen(s) + 3);
    if (out) {
        out[0] = 'k';
        out[1] = ':';
        strcpy(out + 2, s);
    }

    free(s);

    return out;
}


char *
gcp_fieldset_value_key(const json_t *item)
{
    char  *js, *out;

    js = json_dumps(item, JSON_COMPACT | JSON_ENCODE_ANY);
    if (js == NULL) {
        return NULL;
    }

    out = gcp_fs_printf("v:%s", js);
    free(js);

    return out;
}


gcp_fieldset_list_t
gcp_fieldset_list_type(const gcp_schema_set_t *set, const json_t *node,
    json_t **keys)
{
    const char  *type, *strategy, *merge_key;

    *keys = NULL;
    type = gcp_fs_ext(set, node, "x-kubernetes-list-type");

    if (type == NULL) {
        strategy = gcp_fs_ext(set, node, "x-kubernetes-patch-strategy");
        merge_key = gcp_fs_ext(set, node, "x-kubernetes-patch-merge-key");

        if (strategy == NULL || strstr(strategy, "merge") == NULL) {
            return GCP_FS_LIST_ATOMIC;
        }

        if (merge_key == NULL) {
            return GCP_FS_LIST_SET;
        }

        *keys = json_pack("[s]", merge_key);

        return *keys ? GCP_FS_LIST_MAP : GCP_FS_LIST_ERROR;
    }

    if (strcmp(type, "set") == 0) {
        return GCP_FS_LIST_SET;
    }

    if (strcmp(type, "map") != 0) {
        return GCP_FS_LIST_ATOMIC;
    }

    *keys = json_incref(json_object_get(gcp_schema_resolve(set, node),
                                        "x-kubernetes-list-map-keys"));

    return GCP_FS_LIST_MAP;
}


char *
gcp_fieldset_elem(gcp_fieldset_list_t type, const json_t *item,
    const json_t *keys)
{
    return type == GCP_FS_LIST_SET ? gcp_fieldset_value_key(item)
                                   : gcp_fieldset_item_key(item, keys);
}


int
gcp_fieldset_atomic_map(const gcp_schema_set_t *set, const json_t *node)
{
    const char  *mt = gcp_fs_ext(set, node, "x-kubernetes-map-type");

    return mt && strcmp(mt, "atomic") == 0;
}


/* The list v's children by its type; NULL for an atomic list (a leaf). */

static json_t *
gcp_fs_list(const gcp_schema_set_t *set, const json_t *node, const json_t *v,
    int depth, int *atomic)
{
    char                 *key;
    size_t                i;
    json_t               *out, *item, *child, *keys;
    const json_t         *items;
    gcp_fieldset_list_t   type;

    type = gcp_fieldset_list_type(set, node, &keys);

    if (type == GCP_FS_LIST_ERROR) {
        return NULL;
    }

    if (type == GCP_FS_LIST_ATOMIC) {
        *atomic = 1;
        return NULL;
    }

    items = node ? gcp_schema_items(set, node) : NULL;
    out = json_object();

    json_array_foreach(v, i, item) {
        if (out == NULL) {
            break;
        }

        key = gcp_fieldset_elem(type, item, keys);

        if (type == GCP_FS_LIST_SET) {
            child = json_object();

        } else {
            child = key ? gcp_fs_value(set, items, item, depth + 1) : NULL;

            /* an item with children is a member too; an atomic one a leaf */
            if (child && json_object_size(child)) {
                json_object_set_new(child, ".", json_object());
                child = gcp_fs_sorted(child);
            }
        }

        if (key == NULL || gcp_fs_put(out, key, child) != 0) {
            free(key);
            json_decref(out);
            out = NULL;
            break;
        }

        free(key);
    }

    json_decref(keys);
    *atomic = 0;

    return gcp_fs_sorted(out);
}


/*
 * The set below a value: {} for a leaf (scalars, atomic lists and maps,
 * empty objects), its children otherwise.
 */

static json_t *
gcp_fs_value(const gcp_schema_set_t *set, const json_t *node, const json_t *v,
    int depth)
{
    int          atomic;
    json_t      *out, *child;
    const char  *k;
    json_t      *e;

    if (depth > GCP_FS_MAX_DEPTH) {
        return json_object();
    }

    if (json_is_array(v)) {
        atomic = 0;
        out = gcp_fs_list(set, node, v, depth, &atomic);
        return atomic ? json_object() : out;
    }

    if (!json_is_object(v) || json_object_size(v) == 0) {
        return json_object();
    }

    if (gcp_fieldset_atomic_map(set, node)) {
        return json_object();
    }

    out = json_object();
    if (out == NULL) {
        return NULL;
    }

    json_object_foreach((json_t *) v, k, e) {
        child = gcp_fs_value(set, node ? gcp_schema_property(set, node, k)
                                       : NULL, e, depth + 1);

        if (gcp_fs_put_named(out, 'f', k, child) != 0) {
            json_decref(out);
            return NULL;
        }
    }

    return gcp_fs_sorted(out);
}


json_t *
gcp_fieldset_strip(json_t *s)
{
    size_t   i;
    json_t  *meta;

    static const char * const  top[] = { "f:apiVersion", "f:kind", NULL };
    static const char * const  md[] = {
        "f:name", "f:namespace", "f:uid", "f:resourceVersion",
        "f:generation", "f:creationTimestamp", "f:selfLink",
        "f:managedFields", NULL
    };

    if (s == NULL) {
        return NULL;
    }

    for (i = 0; top[i]; i++) {
        json_object_del(s, top[i]);
    }

    meta = json_object_get(s, "f:metadata");

    if (meta) {
        for (i = 0; md[i]; i++) {
            json_object_del(meta, md[i]);
        }

        if (json_object_size(meta) == 0
            || (json_object_size(meta) == 1 && json_object_get(meta, ".")))
        {
            json_object_del(s, "f:metadata");
        }
    }

    return s;
}


json_t *
gcp_fieldset_of(const gcp_schema_set_t *set, const json_t *node,
    const json_t *obj, int strip)
{
    json_t  *s;

    s = gcp_fs_value(set, node, obj, 0);

    return strip ? gcp_fieldset_strip(s) : s;
}


/* op 0: union, 1: difference, 2: intersection */

static json_t *
gcp_fs_combine(const json_t *a, const json_t *b, int op)
{
    int          ma, mb, leaf_a, leaf_b;
    json_t      *out, *va, *vb, *c;
    const char  *k;

    out = json_object();
    if (out == NULL) {
        return NULL;
    }

    json_object_foreach((json_t *) a, k, va) {
        if (strcmp(k, ".") == 0) {
            continue;
        }

        vb = json_object_get(b, k);

        /* a leaf or "." marks the element itself a member */
        leaf_a = json_object_size(va) == 0;
        leaf_b = vb && json_object_size(vb) == 0;
        ma = leaf_a || json_object_get(va, ".") != NULL;
        mb = vb && (leaf_b || json_object_get(vb, ".") != NULL);

        c = gcp_fs_combine(va, vb, op);

        if (c == NULL) {
            json_decref(out);
            return NULL;
        }

        if ((op == 0 && (ma || mb)) || (op == 1 && ma && !mb)
            || (op == 2 && ma && mb))
        {
            if (json_object_size(c)) {
                json_object_set_new(c, ".", json_object());
            }

        } else if (json_object_size(c) == 0) {
            json_decref(c);
            continue;
        }

        json_object_set_new(out, k, gcp_fs_sorted(c));
    }

    if (op == 0) {
        json_object_foreach((json_t *) b, k, vb) {
            if (strcmp(k, ".") != 0 && json_object_get(a, k) == NULL) {
                json_object_set_new(out, k, json_deep_copy(vb));
            }
        }
    }

    return gcp_fs_sorted(out);
}


json_t *
gcp_fieldset_union(const json_t *a, const json_t *b)
{
    return gcp_fs_combine(a, b, 0);
}


json_t *
gcp_fieldset_difference(const json_t *a, const json_t *b)
{
    return gcp_fs_combine(a, b, 1);
}


json_t *
gcp_fieldset_intersection(const json_t *a, const json_t *b)
{
    return gcp_fs_combine(a, b, 2);
}


int
gcp_fieldset_empty(const json_t *s)
{
    return json_object_size(s) == 0;
}


/* Is the element whose children are v a member itself? */

static int
gcp_fs_member(const json_t *v)
{
    return json_object_size(v) == 0 || json_object_get(v, ".") != NULL;
}


int
gcp_fieldset_intersects(const json_t *a, const json_t *b)
{
    json_t        *va, *vb;
    const char    *k;
    const json_t  *t;

    if (json_object_size(a) > json_object_size(b)) {
        t = a;
        a = b;
        b = t;
    }

    json_object_foreach((json_t *) a, k, va) {
        if (strcmp(k, ".") == 0) {
            continue;
        }

        vb = json_object_get(b, k);

        if (vb && ((gcp_fs_member(va) && gcp_fs_member(vb))
                   || gcp_fieldset_intersects(va, vb)))
        {
            return 1;
        }
    }

    return 0;
}


int
gcp_fieldset_subset(const json_t *a, const json_t *b)
{
    json_t      *va, *vb;
    const char  *k;

    json_object_foreach((json_t *) a, k, va) {
        if (strcmp(k, ".") == 0) {
            continue;
        }

        vb = json_object_get(b, k);

        /* (every element of a set has a member at or below it) */

        if (vb == NULL || (gcp_fs_member(va) && !gcp_fs_member(vb))
            || !gcp_fieldset_subset(va, vb))
        {
            return 0;
        }
    }

    return 1;
}


int
gcp_fieldset_normal(const json_t *s)
{
    json_t      *v;
    const char  *k, *prev;

    if (!json_is_object(s)) {
        return 0;
    }

    prev = NULL;

    json_object_foreach((json_t *) s, k, v) {
        if ((prev && gcp_fs_cmp(&prev, &k) >= 0)
            || (strcmp(k, ".") == 0 && json_object_size(v) != 0)
            || !gcp_fieldset_normal(v))
        {
            return 0;
        }

        prev = k;
    }

    return 1;
}


json_t *
gcp_fieldset_order(json_t *s)
{
    int          sorted;
    void        *it;
    json_t      *v, *o;
    const char  *k, *prev;

    if (s == NULL) {
        return NULL;
    }

    sorted = 1;
    prev = NULL;

    for (it = json_object_iter(s); it; it = json_object_iter_next(s, it)) {
        k = json_object_iter_key(it);
        v = json_object_iter_value(it);

        if (json_object_size(v)) {
            /* a level already in order is kept, shared */

            o = gcp_fieldset_order(json_incref(v));

            if (o == NULL) {
                json_decref(s);
                return NULL;
            }

            if (o == v) {
                json_decref(o);

            } else if (json_object_iter_set_new(s, it, o) != 0) {
                json_decref(s);
                return NULL;
            }
        }

        if (prev && gcp_fs_cmp(&prev, &k) >= 0) {
            sorted = 0;
        }

        prev = k;
    }

    return sorted ? s : gcp_fs_sorted(s);
}


json_t *
gcp_fieldset_normalize(const json_t *s)
{
    json_t  *empty, *out;

    empty = json_object();
    out = empty ? gcp_fieldset_union(s, empty) : NULL;
    json_decref(empty);

    return out;
}


/* One path element as upstream prints it, appended to path. */

static char *
gcp_fs_path_add(const char *path, const char *k)
{
    char        *out;
    json_t      *key, *v;
    const char  *name;

    if (k[0] == 'f') {
        return gcp_fs_printf("%s.%s", path, k + 2);
    }

    if (k[0] == 'i') {
        return gcp_fs_printf("%s[%s]", path, k + 2);
    }

    if (k[0] == 'v') {
        return gcp_fs_printf("%s[=%s]", path, k + 2);
    }

    /* k:{"a":1,"b":"x"} -> [a=1,b="x"] */

    key = json_loads(k + 2, JSON_DECODE_ANY, NULL);
    out = gcp_fs_printf("%s[", path);

    json_object_foreach(key, name, v) {
        char  *js = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY), *next;

        next = gcp_fs_printf("%s%s%s=%s", out ? out : "",
                               out && out[strlen(out) - 1] != '[' ? "," : "",
                               name, js ? js : "");
        free(js);
        free(out);
        out = next;
    }

    json_decref(key);

    if (out) {
        char  *next = gcp_fs_printf("%s]", out);

        free(out);
        out = next;
    }

    return out;
}


static int
gcp_fs_paths(json_t *out, const json_t *s, const char *path)
{
    int          rc;
    char        *p;
    json_t      *v;
    const char  *k;

    json_object_foreach((json_t *) s, k, v) {
        if (strcmp(k, ".") == 0) {
            continue;
        }

        p = gcp_fs_path_add(path, k);
        if (p == NULL) {
            return -1;
        }

        if (json_object_size(v) == 0 || json_object_get(v, ".")) {
            json_array_append_new(out, json_string(p));
        }

        rc = gcp_fs_paths(out, v, p);
        free(p);

        if (rc != 0) {
            return rc;
        }
    }

    return 0;
}


json_t *
gcp_fieldset_paths(const json_t *s)
{
    json_t  *out;

    out = json_array();

    if (out && gcp_fs_paths(out, s, "") != 0) {
        json_decref(out);
        return NULL;
    }

    return out;
}
