
/*
 * Schema sets: loading definitions and navigating them (see gcp_schema.h).
 */

#include <stdlib.h>

#include "gcp_schema.h"
#include "gcp_schema_embedded.h"


#define GCP_SCHEMA_MAX_REFS  32


struct gcp_schema_set_s {
    json_t        *defs;    /* the set's own definitions */
    const json_t  *base;    /* the shared embedded ones, or NULL */
    json_t        *memo;    /* values derived from definitions, or NULL */
};


/*
 * The embedded definitions parsed once for the process and never freed
 * (gcp_schema_embedded_share()): sets that load the embedded documents
 * then look them up here instead of holding copies.  Nothing takes a
 * reference of the object itself, so its pages, built before the workers
 * fork, stay shared with them.
 */
static json_t  *gcp_schema_shared;


gcp_schema_set_t *
gcp_schema_set_create(void)
{
    gcp_schema_set_t  *set;

    set = calloc(1, sizeof(gcp_schema_set_t));
    if (set == NULL) {
        return NULL;
    }

    set->defs = json_object();
    if (set->defs == NULL) {
        free(set);
        return NULL;
    }

    return set;
}


void
gcp_schema_set_free(gcp_schema_set_t *set)
{
    if (set == NULL) {
        return;
    }

    json_decref(set->defs);
    json_decref(set->memo);
    free(set);
}


/* A definition changed: what was derived from the set may be stale. */

static void
gcp_schema_set_changed(gcp_schema_set_t *set)
{
    json_decref(set->memo);
    set->memo = NULL;
}


const json_t *
gcp_schema_memo_get(const gcp_schema_set_t *set, const char *key)
{
    return set && set->memo ? json_object_get(set->memo, key) : NULL;
}


int
gcp_schema_memo_put(const gcp_schema_set_t *cset, const char *key,
    json_t *value)
{
    /* a cache: the set's definitions are what is const */
    gcp_schema_set_t  *set = (gcp_schema_set_t *) cset;

    if (set->memo == NULL) {
        set->memo = json_object();
        if (set->memo == NULL) {
            return GCP_ENOMEM;
        }
    }

    return json_object_set(set->memo, key, value) == 0 ? GCP_OK
                                                       : GCP_ENOMEM;
}


int
gcp_schema_set_add_doc(gcp_schema_set_t *set, const char *json, size_t len,
    const char **err)
{
    json_t        *doc;
    json_error_t   jerr;

    doc = json_loadb(json, len, 0, &jerr);
    if (doc == NULL || !json_is_object(doc)) {
        json_decref(doc);
        *err = "schema document is not a JSON object";
        return GCP_EBADREQUEST;
    }

    gcp_schema_set_changed(set);

    if (json_object_update(set->defs, doc) != 0) {
        json_decref(doc);
        *err = "out of memory";
        return GCP_ENOMEM;
    }

    json_decref(doc);

    return GCP_OK;
}


int
gcp_schema_set_load_embedded(gcp_schema_set_t *set, const char **err)
{
    int                           rc;
    json_t                       *def;
    const char                   *name;
    const gcp_embedded_schema_t  *e;

    if (gcp_schema_shared == NULL) {
        for (e = gcp_embedded_schemas; e->name; e++) {
            rc = gcp_schema_set_add_doc(set, e->data, e->len, err);
            if (rc != GCP_OK) {
                return rc;
            }
        }

        return GCP_OK;
    }

    gcp_schema_set_changed(set);

    /* the embedded definitions replace same-named ones of the set */
    json_object_foreach(gcp_schema_shared, name, def) {
        json_object_del(set->defs, name);
    }

    set->base = gcp_schema_shared;

    return GCP_OK;
}


int
gcp_schema_embedded_share(const char **err)
{
    int                 rc;
    gcp_schema_set_t   *set;

    if (gcp_schema_shared != NULL) {
        return GCP_OK;
    }

    set = gcp_schema_set_create();
    if (set == NULL) {
        *err = "out of memory";
        return GCP_ENOMEM;
    }

    rc = gcp_schema_set_load_embedded(set, err);

    if (rc == GCP_OK) {
        gcp_schema_shared = json_incref(set->defs);
    }

    gcp_schema_set_free(set);

    return rc;
}


int
gcp_schema_set_put(gcp_schema_set_t *set, const char *name, json_t *schema)
{
    gcp_schema_set_changed(set);

    return json_object_set(set->defs, name, schema) == 0 ? GCP_OK
                                                         : GCP_ENOMEM;
}


void
gcp_schema_set_del(gcp_schema_set_t *set, const char *name)
{
    gcp_schema_set_changed(set);
    json_object_del(set->defs, name);
}


const json_t *
gcp_schema_get(const gcp_schema_set_t *set, const char *name)
{
    json_t  *def;

    if (set == NULL) {
        return NULL;
    }

    def = json_object_get(set->defs, name);

    return def ? def : json_object_get(set->base, name);
}


const char *
gcp_schema_next(const gcp_schema_set_t *set, gcp_schema_iter_t *i,
    const json_t **def)
{
    const char  *name;

    for ( ;; ) {
        switch (i->phase) {

        case 0:
            i->it = json_object_iter(set->defs);
            i->phase = 1;
            break;

        case 1:
            i->it = json_object_iter_next(set->defs, i->it);
            break;

        case 2:
            i->it = json_object_iter_next((json_t *) set->base, i->it);
            break;

        default:
            return NULL;
        }

        if (i->it == NULL && i->phase == 1 && set->base != NULL) {
            i->it = json_object_iter((json_t *) set->base);
            i->phase = 2;
        }

        if (i->it == NULL) {
            i->phase = 3;
            return NULL;
        }

        name = json_object_iter_key(i->it);

        /* a shared definition the set replaced is not visited */
        if (i->phase == 2 && json_object_get(set->defs, name) != NULL) {
            continue;
        }

        *def = json_object_iter_value(i->it);

        return name;
    }
}


const char *
gcp_schema_ref_name(const json_t *node)
{
    const char  *ref;
    json_t      *all;

    if (!json_is_object(node)) {
        return NULL;
    }

    ref = json_string_value(json_object_get(node, "$ref"));

    if (ref == NULL) {
        all = json_object_get(node, "allOf");
        if (json_is_array(all) && json_array_size(all) == 1) {
            ref = json_string_value(
                      json_object_get(json_array_get(all, 0), "$ref"));
        }
    }

    if (ref == NULL) {
        return NULL;
    }

    if (strncmp(ref, "#/components/schemas/", 21) == 0) {
        return ref + 21;
    }

    if (strncmp(ref, "#/definitions/", 14) == 0) {
        return ref + 14;
    }

    return NULL;
}


const json_t *
gcp_schema_resolve(const gcp_schema_set_t *set, const json_t *node)
{
    int          n;
    const char  *name;

    for (n = 0; node && n < GCP_SCHEMA_MAX_REFS; n++) {
        name = gcp_schema_ref_name(node);
        if (name == NULL) {
            return node;
        }

        node = gcp_schema_get(set, name);
    }

    return NULL;
}


const json_t *
gcp_schema_property(const gcp_schema_set_t *set, const json_t *node,
    const char *name)
{
    json_t  *p;

    node = gcp_schema_resolve(set, node);
    if (node == NULL) {
        return NULL;
    }

    p = json_object_get(json_object_get(node, "properties"), name);
    if (p) {
        return p;
    }

    p = json_object_get(node, "additionalProperties");

    return json_is_object(p) ? p : NULL;
}


const json_t *
gcp_schema_items(const gcp_schema_set_t *set, const json_t *node)
{
    node = gcp_schema_resolve(set, node);

    return node ? json_object_get(node, "items") : NULL;
}


const char *
gcp_schema_type(const gcp_schema_set_t *set, const json_t *node)
{
    node = gcp_schema_resolve(set, node);

    return node ? json_string_value(json_object_get(node, "type")) : NULL;
}


const char *
gcp_schema_ext(const gcp_schema_set_t *set, const json_t *node,
    const char *key)
{
    const char  *v;

    if (!json_is_object(node)) {
        return NULL;
    }

    v = json_string_value(json_object_get(node, key));
    if (v) {
        return v;
    }

    node = gcp_schema_resolve(set, node);

    return node ? json_string_value(json_object_get(node, key)) : NULL;
}


static int
gcp_schema_str_is(const json_t *v, const char *s)
{
    return json_is_string(v) && strcmp(json_string_value(v), s) == 0;
}


static int
gcp_schema_has_gvk(const json_t *def, const char *group, const char *version,
    const char *kind)
{
    size_t   i;
    json_t  *g;

    json_array_foreach(json_object_get(def, "x-kubernetes-group-version-kind"),
                       i, g)
    {
        if (gcp_schema_str_is(json_object_get(g, "group"), group)
            && gcp_schema_str_is(json_object_get(g, "version"), version)
            && gcp_schema_str_is(json_object_get(g, "kind"), kind))
        {
            return 1;
        }
    }

    return 0;
}


const char *
gcp_schema_find_gvk(const gcp_schema_set_t *set, const char *group,
    const char *version, const char *kind)
{
    const char         *name, *found;
    const json_t       *def;
    gcp_schema_iter_t   i = GCP_SCHEMA_ITER;

    if (set == NULL) {
        return NULL;
    }

    found = NULL;

    while ((name = gcp_schema_next(set, &i, &def)) != NULL) {
        if (gcp_schema_has_gvk(def, group, version, kind)
            && (found == NULL || strcmp(name, found) < 0))
        {
            found = name;
        }
    }

    return found;
}


const char *
gcp_schema_def_name(const gcp_schema_set_t *set, const json_t *node)
{
    int                 n;
    const char         *name, *ref;
    const json_t       *def;
    gcp_schema_iter_t   i = GCP_SCHEMA_ITER;

    if (set == NULL || node == NULL) {
        return NULL;
    }

    ref = NULL;

    /* the last reference of a chain names the definition reached */
    for (n = 0; n < GCP_SCHEMA_MAX_REFS; n++) {
        name = gcp_schema_ref_name(node);
        if (name == NULL) {
            break;
        }

        ref = name;
        node = gcp_schema_get(set, name);
    }

    if (ref) {
        return ref;
    }

    while ((name = gcp_schema_next(set, &i, &def)) != NULL) {
        if (def == node) {
            return name;
        }
    }

    return NULL;
}
