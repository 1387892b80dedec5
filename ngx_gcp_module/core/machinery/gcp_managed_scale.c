
/*
 * managedFields through a scale subresource (see gcp_managed.h), as
 * upstream's ScaleHandler: the Scale's entries made of the object's, and
 * the object's made again of the Scale's after the write.  Entries are
 * told apart as upstream's manager identifiers: manager, operation,
 * subresource, and the apiVersion of Update entries.
 */

#include <stdlib.h>
#include <string.h>

#include "gcp_fieldset.h"
#include "gcp_json.h"
#include "gcp_managed.h"
#include "gcp_managed_int.h"


#define GCP_MFS_VERSION   "autoscaling/v1"
#define GCP_MFS_REPLICAS  ".spec.replicas"


/* The set of one field path (".spec.replicas"), or NULL (no memory). */

static json_t *
gcp_mfs_set(const char *path)
{
    char        *key;
    size_t       n;
    json_t      *root, *cur, *next;
    const char  *p;

    root = json_object();
    cur = root;
    p = path[0] == '.' ? path + 1 : path;

    while (cur && *p) {
        n = strcspn(p, ".");
        key = malloc(n + 3);
        next = json_object();

        if (key == NULL || next == NULL) {
            free(key);
            json_decref(next);
            json_decref(root);
            return NULL;
        }

        memcpy(key, "f:", 2);
        memcpy(key + 2, p, n);
        key[n + 2] = '\0';

        if (json_object_set_new(cur, key, next) != 0) {
            free(key);
            json_decref(root);
            return NULL;
        }

        free(key);
        cur = next;
        p += n;
        p += *p == '.';
    }

    return root;
}


/* Returns 1 when the field at path (a leaf) is a member of set s. */

static int
gcp_mfs_has(const json_t *s, const char *path)
{
    size_t         n;
    const char    *p, *k;
    const json_t  *v;

    p = path[0] == '.' ? path + 1 : path;

    while (s && *p) {
        n = strcspn(p, ".");
        v = NULL;

        json_object_foreach((json_t *) s, k, v) {
            if (strlen(k) == n + 2 && strncmp(k, "f:", 2) == 0
                && strncmp(k + 2, p, n) == 0)
            {
                break;
            }
        }

        s = k ? v : NULL;
        p += n;
        p += *p == '.';
    }

    return json_is_object(s)
           && (json_object_size(s) == 0 || json_object_get(s, "."));
}


/*
 * The replicas path of api_version: returns 1 and sets *path (NULL: the
 * version has no scale), or 0 when the version is not the resource's.
 */

static int
gcp_mfs_path(const gcp_managed_scale_path_t *paths, size_t n,
    const char *api_version, const char **path)
{
    size_t  i;

    for (i = 0; i < n; i++) {
        if (strcmp(paths[i].api_version, api_version) == 0) {
            *path = paths[i].replicas;
            return 1;
        }
    }

    return 0;
}


/* Returns 1 when entries a and b have the same manager identifier. */

static int
gcp_mfs_same(const json_t *a, const json_t *b)
{
    return strcmp(gcp_mf_str(a, "manager"), gcp_mf_str(b, "manager")) == 0
           && strcmp(gcp_mf_str(a, "operation"),
                     gcp_mf_str(b, "operation")) == 0
           && strcmp(gcp_mf_str(a, "subresource"),
                     gcp_mf_str(b, "subresource")) == 0
           && (strcmp(gcp_mf_str(a, "operation"), "Apply") == 0
               || strcmp(gcp_mf_str(a, "apiVersion"),
                         gcp_mf_str(b, "apiVersion")) == 0);
}


/* The index in mf of the entry with e's identifier, or -1. */

static long
gcp_mfs_find(const json_t *mf, const json_t *e)
{
    size_t   i;
    json_t  *u;

    json_array_foreach(mf, i, u) {
        if (gcp_mfs_same(u, e)) {
            return (long) i;
        }
    }

    return -1;
}


/* A copy of e in api_version owning the field at path; NULL: no memory. */

static json_t *
gcp_mfs_moved(const json_t *e, const char *api_version, const char *path)
{
    json_t  *c, *s;

    c = json_copy((json_t *) e);
    s = gcp_mfs_set(path);

    if (c == NULL || s == NULL) {
        json_decref(c);
        json_decref(s);
        return NULL;
    }

    /* (set_new takes its value even when it fails) */

    if (json_object_set_new(c, "fieldsV1", s) != 0
        || json_object_set_new(c, "apiVersion", json_string(api_version))
           != 0)
    {
        json_decref(c);
        return NULL;
    }

    return c;
}


json_t *
gcp_managed_scale_entries(const json_t *parent,
    const gcp_managed_scale_path_t *paths, size_t n)
{
    size_t       i;
    json_t      *mf, *out, *e;
    const char  *path;

    mf = gcp_mf_decode(parent);
    out = json_array();

    if (out == NULL) {
        json_decref(mf);
        return NULL;
    }

    json_array_foreach(mf, i, e) {
        if (!gcp_mfs_path(paths, n, gcp_mf_str(e, "apiVersion"), &path)
            || path == NULL
            || !gcp_mfs_has(json_object_get(e, "fieldsV1"), path))
        {
            continue;
        }

        if (json_array_append_new(out, gcp_mfs_moved(e, GCP_MFS_VERSION,
                                                     GCP_MFS_REPLICAS))
            != 0)
        {
            json_decref(mf);
            json_decref(out);
            return NULL;
        }
    }

    json_decref(mf);

    return gcp_mf_encode(out);
}


json_t *
gcp_managed_scale_parent(const json_t *parent, const json_t *scale,
    const gcp_managed_scale_path_t *paths, size_t n, const char *api_version)
{
    size_t       i;
    long         j;
    json_t      *pm, *sm, *out, *e, *c, *s, *rest;
    const char  *path, *own;

    pm = gcp_mf_decode(parent);
    sm = gcp_mf_decode(scale);
    out = json_array();

    pm = pm ? pm : json_array();
    sm = sm ? sm : json_array();

    if (pm == NULL || sm == NULL || out == NULL
        || !gcp_mfs_path(paths, n, api_version, &own) || own == NULL)
    {
        goto failed;
    }

    json_array_foreach(pm, i, e) {
        if (!gcp_mfs_path(paths, n, gcp_mf_str(e, "apiVersion"), &path)) {
            /* a version the resource no longer has: dropped */
            continue;
        }

        if (path == NULL
            || !gcp_mfs_has(json_object_get(e, "fieldsV1"), path))
        {
            if (json_array_append(out, e) != 0) {
                goto failed;
            }

            continue;
        }

        j = gcp_mfs_find(sm, e);

        if (j >= 0) {
            /* still the Scale's: kept as it is */

            json_array_remove(sm, (size_t) j);

            if (json_array_append(out, e) != 0) {
                goto failed;
            }

            continue;
        }

        /* taken by the write through the Scale */

        s = gcp_mfs_set(path);
        rest = s ? gcp_fieldset_difference(json_object_get(e, "fieldsV1"),
                                           s)
                 : NULL;
        json_decref(s);

        if (rest == NULL) {
            goto failed;
        }

        if (gcp_fieldset_empty(rest)) {
            json_decref(rest);
            continue;
        }

        c = json_copy(e);

        if (c == NULL) {
            json_decref(rest);
            goto failed;
        }

        if (json_object_set_new(c, "fieldsV1", rest) != 0) {
            json_decref(c);
            goto failed;
        }

        if (json_array_append_new(out, c) != 0) {
            goto failed;
        }
    }

    /* the Scale's managers of spec.replicas own the object's field */

    json_array_foreach(sm, i, e) {
        if (!gcp_mfs_has(json_object_get(e, "fieldsV1"), GCP_MFS_REPLICAS)) {
            continue;
        }

        c = gcp_mfs_moved(e, api_version, own);
        if (c == NULL) {
            goto failed;
        }

        /* the time of the object's entry of that identifier, as upstream */

        j = gcp_mfs_find(pm, e);

        if (j >= 0 && json_object_get(json_array_get(pm, (size_t) j),
                                      "time"))
        {
            json_object_set(c, "time",
                            json_object_get(json_array_get(pm, (size_t) j),
                                            "time"));

        } else {
            json_object_del(c, "time");
        }

        if (json_array_append_new(out, c) != 0) {
            goto failed;
        }
    }

    json_decref(pm);
    json_decref(sm);

    return gcp_mf_encode(out);

failed:

    json_decref(pm);
    json_decref(sm);
    json_decref(out);

    return NULL;
}
