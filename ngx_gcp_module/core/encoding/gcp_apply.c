
/*
 * Structured merge, comparison and removal by the schema (see
 * gcp_apply.h), on the path elements of gcp_fieldset.c.
 */

#include <stdlib.h>
#include <string.h>

#include "gcp_apply.h"
#include "gcp_fieldset.h"
#include "gcp_json.h"


#define GCP_APPLY_MAX_DEPTH  100


static json_t *gcp_apply_value(const gcp_schema_set_t *set,
    const json_t *node, const json_t *l, const json_t *r, int depth);


/* The list's items' path elements, and a map from each to its index. */

typedef struct {
    size_t    n;
    char    **pe;
    json_t   *index;                /* {pe: first index} */
} gcp_apply_items_t;


static void
gcp_apply_items_free(gcp_apply_items_t *it)
{
    size_t  i;

    for (i = 0; i < it->n; i++) {
        free(it->pe[i]);
    }

    free(it->pe);
    json_decref(it->index);
}


static int
gcp_apply_items(gcp_apply_items_t *it, const json_t *list,
    gcp_fieldset_list_t type, const json_t *keys)
{
    size_t  i, n;

    n = json_array_size(list);

    it->n = 0;
    it->pe = calloc(n ? n : 1, sizeof(char *));
    it->index = json_object();

    if (it->pe == NULL || it->index == NULL) {
        gcp_apply_items_free(it);
        return -1;
    }

    for (i = 0; i < n; i++) {
        it->pe[i] = gcp_fieldset_elem(type, json_array_get(list, i), keys);
        it->n = i + 1;

        if (it->pe[i] == NULL) {
            gcp_apply_items_free(it);
            return -1;
        }

        if (json_object_get(it->index, it->pe[i]) == NULL) {
            json_object_set_new(it->index, it->pe[i], json_integer(i));
        }
    }

    return 0;
}


static const json_t *
gcp_apply_item(const gcp_apply_items_t *it, const json_t *list,
    const char *pe)
{
    json_t  *i = json_object_get(it->index, pe);

    return i ? json_array_get(list, (size_t) json_integer_value(i)) : NULL;
}


/*
 * Merges two set or map lists in structured-merge-diff's order: items of
 * both where the config has them, live's other items where they were.
 */

static json_t *
gcp_apply_list(const gcp_schema_set_t *set, const json_t *node,
    const json_t *l, const json_t *r, int depth)
{
    size_t                li, ri, si, nshared;
    json_t               *out, *keys, *merged, *v;
    const char          **shared, *next;
    const json_t         *items;
    gcp_apply_items_t     li_, ri_;
    gcp_fieldset_list_t   type;

    type = gcp_fieldset_list_type(set, node, &keys);

    if (type == GCP_FS_LIST_ERROR) {
        return NULL;
    }

    if (type == GCP_FS_LIST_ATOMIC) {
        return gcp_json_deep_copy(r);
    }

    items = node ? gcp_schema_items(set, node) : NULL;
    out = NULL;
    merged = NULL;
    shared = NULL;

    if (gcp_apply_items(&li_, l, type, keys) != 0) {
        json_decref(keys);
        return NULL;
    }

    if (gcp_apply_items(&ri_, r, type, keys) != 0) {
        gcp_apply_items_free(&li_);
        json_decref(keys);
        return NULL;
    }

    json_decref(keys);

    out = json_array();
    merged = json_object();
    shared = malloc((ri_.n ? ri_.n : 1) * sizeof(char *));

    if (out == NULL || merged == NULL || shared == NULL) {
        goto failed;
    }

    nshared = 0;

    for (ri = 0; ri < ri_.n; ri++) {
        if (json_object_get(li_.index, ri_.pe[ri])) {
            shared[nshared++] = ri_.pe[ri];
        }
    }

    si = 0;
    next = nshared ? shared[si++] : NULL;
    li = 0;
    ri = 0;

    while (li < li_.n || ri < ri_.n) {
        v = NULL;

        if (li < li_.n && ri < ri_.n) {
            if (strcmp(li_.pe[li], ri_.pe[ri]) == 0) {
                json_object_set_new(merged, ri_.pe[ri], json_true());
                v = gcp_apply_value(set, items,
                                    gcp_apply_item(&li_, l, li_.pe[li]),
                                    gcp_apply_item(&ri_, r, ri_.pe[ri]),
                                    depth + 1);

                if (v == NULL || json_array_append_new(out, v) != 0) {
                    goto failed;
                }

                li++;
                ri++;
                next = si < nshared ? shared[si++] : NULL;
                continue;
            }

            if (json_object_get(ri_.index, li_.pe[li]) && next
                && strcmp(next, li_.pe[li]) != 0)
            {
                /* a shared item, but not the one wanted in this round */
                li++;
                continue;
            }
        }

        if (li < li_.n) {
            if (json_object_get(ri_.index, li_.pe[li]) == NULL) {
                v = gcp_json_deep_copy(json_array_get(l, li));

                if (v == NULL || json_array_append_new(out, v) != 0) {
                    goto failed;
                }

                li++;
                continue;
            }

            if (json_object_get(merged, li_.pe[li])) {
                li++;
                continue;
            }
        }

        if (ri < ri_.n) {
            json_object_set_new(merged, ri_.pe[ri], json_true());
            v = gcp_apply_value(set, items,
                                gcp_apply_item(&li_, l, ri_.pe[ri]),
                                gcp_apply_item(&ri_, r, ri_.pe[ri]),
                                depth + 1);

            if (v == NULL || json_array_append_new(out, v) != 0) {
                goto failed;
            }

            if (next && strcmp(next, ri_.pe[ri]) == 0) {
                next = si < nshared ? shared[si++] : NULL;
            }

            ri++;
        }
    }

    free(shared);
    json_decref(merged);
    gcp_apply_items_free(&li_);
    gcp_apply_items_free(&ri_);

    return out;

failed:

    free(shared);
    json_decref(merged);
    json_decref(out);
    gcp_apply_items_free(&li_);
    gcp_apply_items_free(&ri_);

    return NULL;
}


static json_t *
gcp_apply_value(const gcp_schema_set_t *set, const json_t *node,
    const json_t *l, const json_t *r, int depth)
{
    json_t      *out, *v;
    const char  *k;
    json_t      *e;

    if (r == NULL) {
        return gcp_json_deep_copy(l);
    }

    if (l == NULL || depth > GCP_APPLY_MAX_DEPTH) {
        return gcp_json_deep_copy(r);
    }

    if (json_is_array(l) && json_is_array(r)) {
        return gcp_apply_list(set, node, l, r, depth);
    }

    if (!json_is_object(l) || !json_is_object(r)
        || gcp_fieldset_atomic_map(set, node))
    {
        return gcp_json_deep_copy(r);
    }

    out = gcp_json_deep_copy(l);
    if (out == NULL) {
        return NULL;
    }

    json_object_foreach((json_t *) r, k, e) {
        v = gcp_apply_value(set, node ? gcp_schema_property(set, node, k)
                                      : NULL,
                            json_object_get(l, k), e, depth + 1);

        if (v == NULL || json_object_set_new(out, k, v) != 0) {
            json_decref(out);
            return NULL;
        }
    }

    return out;
}


json_t *
gcp_apply_merge(const gcp_schema_set_t *set, const json_t *node,
    const json_t *live, const json_t *config)
{
    return gcp_apply_value(set, node, live, config, 0);
}


/* comparison */


typedef struct {
    const gcp_schema_set_t  *set;
    int                      nomem;
} gcp_apply_cmp_t;


static int
gcp_apply_empty(const json_t *v)
{
    return v == NULL || (json_is_object(v) && json_object_size(v) == 0)
           || (json_is_array(v) && json_array_size(v) == 0);
}


/*
 * Puts the children c (consumed) of element key into the set s, with
 * the element itself a member when member is set.
 */

static void
gcp_apply_attach(gcp_apply_cmp_t *cx, json_t *s, const char *key, json_t *c,
    int member)
{
    if (c == NULL) {
        cx->nomem = 1;
        return;
    }

    if (member && json_object_size(c)) {
        json_object_set_new(c, ".", json_object());
    }

    if (member || json_object_size(c)) {
        if (json_object_set_new(s, key, c) != 0) {
            cx->nomem = 1;
        }

        return;
    }

    json_decref(c);
}


static void gcp_apply_cmp(gcp_apply_cmp_t *cx, const json_t *node,
    const json_t *l, const json_t *r, const char *key, int item,
    json_t *ch, json_t *rm, int depth);


static void
gcp_apply_cmp_list(gcp_apply_cmp_t *cx, const json_t *node,
    gcp_fieldset_list_t type, const json_t *keys, const json_t *l,
    const json_t *r, json_t *ch, json_t *rm, int depth)
{
    size_t             i;
    const json_t      *items, *o;
    gcp_apply_items_t  li, ri;

    if (gcp_apply_items(&li, l, type, keys) != 0) {
        cx->nomem = 1;
        return;
    }

    if (gcp_apply_items(&ri, r, type, keys) != 0) {
        gcp_apply_items_free(&li);
        cx->nomem = 1;
        return;
    }

    items = node ? gcp_schema_items(cx->set, node) : NULL;

    for (i = 0; i < ri.n; i++) {
        if ((size_t) json_integer_value(json_object_get(ri.index, ri.pe[i]))
            != i)
        {
            continue;               /* a duplicate */
        }

        o = gcp_apply_item(&li, l, ri.pe[i]);

        if (type == GCP_FS_LIST_SET) {
            if (o == NULL) {
                gcp_apply_attach(cx, ch, ri.pe[i], json_object(), 1);
            }

            continue;
        }

        gcp_apply_cmp(cx, items, o, json_array_get(r, i), ri.pe[i], 1, ch,
                      rm, depth + 1);
    }

    for (i = 0; i < li.n; i++) {
        if (json_object_get(ri.index, li.pe[i]) == NULL
            && json_object_get(rm, li.pe[i]) == NULL)
        {
            if (type == GCP_FS_LIST_SET) {
                gcp_apply_attach(cx, rm, li.pe[i], json_object(), 1);
                continue;
            }

            gcp_apply_cmp(cx, items, json_array_get(l, i), NULL, li.pe[i], 1,
                          ch, rm, depth + 1);
        }
    }

    gcp_apply_items_free(&li);
    gcp_apply_items_free(&ri);
}


/*
 * Compares field k of an object (l and r its two values; parent: the
 * object's own path element).  Equal values change nothing; the object's
 * metadata.managedFields are no field of it.
 */

static void
gcp_apply_cmp_field(gcp_apply_cmp_t *cx, const json_t *node, const json_t *l,
    const json_t *r, const char *parent, const char *k, json_t *ch,
    json_t *rm, int depth)
{
    char    *fk, buf[64];
    size_t   n;

    if ((l && r && gcp_json_equal(l, r))
        || (depth == 1 && strcmp(k, "managedFields") == 0
            && strcmp(parent, "f:metadata") == 0))
    {
        return;
    }

    n = strlen(k) + 3;
    fk = n <= sizeof(buf) ? buf : malloc(n);

    if (fk == NULL) {
        cx->nomem = 1;
        return;
    }

    fk[0] = 'f';
    fk[1] = ':';
    memcpy(fk + 2, k, n - 2);

    gcp_apply_cmp(cx, node ? gcp_schema_property(cx->set, node, k) : NULL,
                  l, r, fk, 0, ch, rm, depth + 1);

    if (fk != buf) {
        free(fk);
    }
}


static void
gcp_apply_cmp(gcp_apply_cmp_t *cx, const json_t *node, const json_t *l,
    const json_t *r, const char *key, int item, json_t *ch, json_t *rm,
    int depth)
{
    int                   mch, mrm;
    json_t               *cch, *crm, *keys, *e;
    const char           *k;
    gcp_fieldset_list_t   type;

    /* null is what a Go type's empty time or pointer field says: none */

    l = json_is_null(l) ? NULL : l;
    r = json_is_null(r) ? NULL : r;

    if ((l == NULL && r == NULL) || (item && l && r && gcp_json_equal(l, r)))
    {
        return;
    }

    keys = NULL;
    type = GCP_FS_LIST_ATOMIC;

    if ((json_is_array(l) || json_is_array(r))
        && (l == NULL || json_is_array(l)) && (r == NULL || json_is_array(r)))
    {
        type = gcp_fieldset_list_type(cx->set, node, &keys);

        if (type == GCP_FS_LIST_ERROR) {
            cx->nomem = 1;
            return;
        }
    }

    if (depth < GCP_APPLY_MAX_DEPTH
        && (!gcp_apply_empty(l) || !gcp_apply_empty(r))
        && ((type != GCP_FS_LIST_ATOMIC)
            || ((json_is_object(l) || json_is_object(r))
                && (l == NULL || json_is_object(l))
                && (r == NULL || json_is_object(r))
                && !gcp_fieldset_atomic_map(cx->set, node))))
    {
        /* a map or list that appears or goes is a member, items always */

        mch = key && l == NULL && (item || !gcp_apply_empty(r));
        mrm = key && r == NULL && (item || !gcp_apply_empty(l));

        cch = json_object();
        crm = json_object();

        /* "." first, where upstream's order has it (often no sort then) */

        if (cch == NULL || crm == NULL
            || (mch && json_object_set_new(cch, ".", json_object()) != 0)
            || (mrm && json_object_set_new(crm, ".", json_object()) != 0))
        {
            json_decref(cch);
            json_decref(crm);
            json_decref(keys);
            cx->nomem = 1;
            return;
        }

        if (type != GCP_FS_LIST_ATOMIC) {
            gcp_apply_cmp_list(cx, node, type, keys, l, r, cch, crm, depth);

        } else {
            json_object_foreach((json_t *) r, k, e) {
                gcp_apply_cmp_field(cx, node, json_object_get(l, k), e,
                                    key ? key : "", k, cch, crm, depth);
            }

            json_object_foreach((json_t *) l, k, e) {
                if (json_object_get(r, k) == NULL) {
                    gcp_apply_cmp_field(cx, node, e, NULL, key ? key : "", k,
                                        cch, crm, depth);
                }
            }
        }

        json_decref(keys);

        if (key == NULL) {
            /* the root: its children are the sets */
            json_object_update(ch, cch);
            json_object_update(rm, crm);
            json_decref(cch);
            json_decref(crm);
            return;
        }

        /* a member without members below it is a leaf */

        if (mch && json_object_size(cch) == 1) {
            json_object_clear(cch);
        }

        if (mrm && json_object_size(crm) == 1) {
            json_object_clear(crm);
        }

        gcp_apply_attach(cx, ch, key, cch, mch);
        gcp_apply_attach(cx, rm, key, crm, mrm);
        return;
    }

    json_decref(keys);

    if (key == NULL) {
        return;
    }

    if (l == NULL) {
        gcp_apply_attach(cx, ch, key, json_object(), 1);

    } else if (r == NULL) {
        gcp_apply_attach(cx, rm, key, json_object(), 1);

    } else if (!gcp_json_equal(l, r)) {
        gcp_apply_attach(cx, ch, key, json_object(), 1);
    }
}


int
gcp_apply_compare(const gcp_schema_set_t *set, const json_t *node,
    const json_t *old, const json_t *new, json_t **changed,
    json_t **removed)
{
    json_t           *ch, *rm;
    gcp_apply_cmp_t   cx;

    *changed = NULL;
    *removed = NULL;

    cx.set = set;
    cx.nomem = 0;

    ch = json_object();
    rm = json_object();

    if (ch && rm) {
        gcp_apply_cmp(&cx, node, old, new, NULL, 0, ch, rm, 0);
    }

    if (ch == NULL || rm == NULL || cx.nomem) {
        json_decref(ch);
        json_decref(rm);
        return -1;
    }

    /* (built in the objects' key order, often upstream's already) */

    *changed = gcp_fieldset_order(ch);
    *removed = gcp_fieldset_order(rm);

    if (*changed == NULL || *removed == NULL) {
        json_decref(*changed);
        json_decref(*removed);
        return -1;
    }

    return 0;
}


/* removal */


static void
gcp_apply_remove_list(const gcp_schema_set_t *set, const json_t *node,
    json_t *list, const char *pe, const json_t *cs, int member)
{
    char                 *e;
    size_t                i;
    json_t               *keys;
    gcp_fieldset_list_t   type;

    if (pe[0] == 'i') {
        i = (size_t) strtoul(pe + 2, NULL, 10);

        if (member) {
            json_array_remove(list, i);

        } else {
            gcp_apply_remove(set, node ? gcp_schema_items(set, node) : NULL,
                             json_array_get(list, i), cs);
        }

        return;
    }

    type = gcp_fieldset_list_type(set, node, &keys);

    if (type == GCP_FS_LIST_ERROR || type == GCP_FS_LIST_ATOMIC) {
        json_decref(keys);
        return;
    }

    for (i = 0; i < json_array_size(list); /* void */) {
        e = gcp_fieldset_elem(type, json_array_get(list, i), keys);

        if (e == NULL || strcmp(e, pe) != 0) {
            free(e);
            i++;
            continue;
        }

        free(e);

        if (member) {
            json_array_remove(list, i);
            continue;
        }

        gcp_apply_remove(set, node ? gcp_schema_items(set, node) : NULL,
                         json_array_get(list, i), cs);
        i++;
    }

    json_decref(keys);
}


void
gcp_apply_remove(const gcp_schema_set_t *set, const json_t *node,
    json_t *obj, const json_t *s)
{
    int          member;
    json_t      *cs;
    const char  *k;

    json_object_foreach((json_t *) s, k, cs) {
        if (strcmp(k, ".") == 0 || strlen(k) < 2) {
            continue;
        }

        member = json_object_size(cs) == 0 || json_object_get(cs, ".");

        if (k[0] == 'f' && json_is_object(obj)) {
            if (member) {
                json_object_del(obj, k + 2);

            } else {
                gcp_apply_remove(set, node ? gcp_schema_property(set, node,
                                                                 k + 2)
                                           : NULL,
                                 json_object_get(obj, k + 2), cs);
            }

        } else if (k[0] != 'f' && json_is_array(obj)) {
            gcp_apply_remove_list(set, node, obj, k, cs, member);
        }
    }
}


json_t *
gcp_apply_with_parents(const json_t *s)
{
    json_t      *out, *c, *v;
    const char  *k;

    out = json_object();
    if (out == NULL) {
        return NULL;
    }

    json_object_foreach((json_t *) s, k, v) {
        c = gcp_apply_with_parents(v);

        if (c == NULL) {
            json_decref(out);
            return NULL;
        }

        if (k[0] == 'f' && json_object_size(c)) {
            json_object_set_new(c, ".", json_object());
        }

        json_object_set_new(out, k, c);
    }

    return out;
}
