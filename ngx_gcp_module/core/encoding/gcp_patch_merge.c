
/*
 * JSON merge patch (RFC 7386) as evanphx/json-patch v4 MergePatch applies
 * it for kube-apiserver, and the helpers the patch formats share: parsing
 * untrusted patch bytes, Go type words for decoding errors, unsharing the
 * result tree.
 */

#include <stdio.h>

#include "gcp_json.h"
#include "gcp_patch.h"


static json_t *gcp_patch_merge_into(json_t *doc, const json_t *patch);
static int gcp_patch_unshare_node(json_t *node);


/* the true/false/null singletons have a reference count of -1 */
#define gcp_patch_shared(v)                                                   \
    ((v)->refcount > 1 && (v)->refcount != (size_t) -1)


int
gcp_patch_parse(gcp_arena_t *a, const char *p, size_t len, json_t **out,
    const char **msg)
{
    int               rc;
    json_t           *v;
    gcp_arena_t      *tmp;
    gcp_json_info_t   info;

    /*
     * gcp_json_parse_ex() gives Go's syntax errors but leaves the value's
     * release to its arena: parse in a private arena and keep a reference
     * of our own, so that the patch tree is the caller's alone.
     */

    *out = NULL;

    tmp = gcp_arena_create(0);
    if (tmp == NULL) {
        *msg = "out of memory";
        return GCP_ENOMEM;
    }

    rc = gcp_json_parse_ex(tmp, p, len, 0, &v, &info);

    if (rc == GCP_OK) {
        *out = json_incref(v);

    } else if (rc != GCP_ENOMEM) {
        *msg = gcp_strdup(a, info.msg ? info.msg : "invalid JSON");
        rc = *msg ? GCP_EBADREQUEST : GCP_ENOMEM;
    }

    if (rc == GCP_ENOMEM) {
        *msg = "out of memory";
    }

    gcp_arena_destroy(tmp);

    return rc;
}


char *
gcp_patch_vsprintf(gcp_arena_t *a, const char *fmt, va_list args)
{
    int       n;
    char     *p;
    va_list   copy;

    va_copy(copy, args);
    n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);

    p = n < 0 ? NULL : gcp_alloc(a, (size_t) n + 1);
    if (p != NULL) {
        vsnprintf(p, (size_t) n + 1, fmt, args);
    }

    return p;
}


int
gcp_patch_unshare(json_t *root)
{
    return gcp_patch_unshare_node(root);
}


/*
 * Replaces each child referenced more than once by a deep copy and
 * descends into the others.  Returns 1, or 0 when out of memory.
 */
static int
gcp_patch_unshare_node(json_t *node)
{
    int          rc;
    size_t       i, klen;
    json_t      *child;
    const char  *key;

    if (json_is_object(node)) {
        json_object_keylen_foreach(node, key, klen, child) {
            if (gcp_patch_shared(child)) {
                rc = json_object_setn_new(node, key, klen,
                                          gcp_json_deep_copy(child));

            } else {
                rc = gcp_patch_unshare_node(child) ? 0 : -1;
            }

            if (rc != 0) {
                return 0;
            }
        }

    } else if (json_is_array(node)) {
        for (i = 0; i < json_array_size(node); i++) {
            child = json_array_get(node, i);

            if (gcp_patch_shared(child)) {
                rc = json_array_set_new(node, i, gcp_json_deep_copy(child));

            } else {
                rc = gcp_patch_unshare_node(child) ? 0 : -1;
            }

            if (rc != 0) {
                return 0;
            }
        }
    }

    return 1;
}


int
gcp_patch_merge(gcp_arena_t *a, const json_t *doc, const char *patch,
    size_t len, json_t **out, const char **msg)
{
    int      rc;
    json_t  *p;

    *out = NULL;

    rc = gcp_patch_parse(a, patch, len, &p, msg);
    if (rc != GCP_OK) {
        if (rc == GCP_EBADREQUEST) {
            *msg = gcp_sprintf(a, "error decoding patch: %s", *msg);
            if (*msg == NULL) {
                return GCP_ENOMEM;
            }
        }

        return rc;
    }

    if (json_is_null(p)) {
        /* evanphx: a patch that decodes to a nil map is ErrBadJSONPatch */
        json_decref(p);
        *msg = "Invalid JSON Patch";
        return GCP_EBADREQUEST;
    }

    if (!json_is_object(p)) {
        *msg = gcp_sprintf(a, "error decoding patch: json: cannot unmarshal "
                           "%s into Go value of type map[string]interface {}",
                           gcp_json_go_kind(p));
        json_decref(p);
        return *msg ? GCP_EBADREQUEST : GCP_ENOMEM;
    }

    *out = gcp_patch_merge_value(doc, p);
    json_decref(p);

    if (*out == NULL) {
        *msg = "out of memory";
        return GCP_ENOMEM;
    }

    return GCP_OK;
}


json_t *
gcp_patch_merge_value(const json_t *doc, const json_t *patch)
{
    json_t  *copy;

    if (!json_is_object(patch)) {
        return gcp_json_deep_copy_pruned(patch);
    }

    if (!json_is_object(doc)) {
        /* not a document: the patch itself, nulls pruned */
        return gcp_json_deep_copy_pruned(patch);
    }

    copy = gcp_json_deep_copy(doc);
    if (copy == NULL) {
        return NULL;
    }

    if (gcp_patch_merge_into(copy, patch) == NULL) {
        json_decref(copy);
        return NULL;
    }

    return copy;
}


/*
 * Merges the object patch into the object doc in place (evanphx
 * mergeDocs).  Returns doc, or NULL when out of memory.
 */
static json_t *
gcp_patch_merge_into(json_t *doc, const json_t *patch)
{
    size_t       klen;
    json_t      *cur, *v, *nv;
    const char  *key;

    json_object_keylen_foreach((json_t *) patch, key, klen, v) {

        if (json_is_null(v)) {
            json_object_deln(doc, key, klen);
            continue;
        }

        cur = json_object_getn(doc, key, klen);

        if (json_is_object(cur) && json_is_object(v)) {
            if (gcp_patch_merge_into(cur, v) == NULL) {
                return NULL;
            }

            continue;
        }

        /*
         * A missing, null or non-object target takes the patch value with
         * its nulls pruned; an object target replaced by a non-object takes
         * it as it is.
         */

        nv = json_is_object(cur) ? gcp_json_deep_copy(v)
                                 : gcp_json_deep_copy_pruned(v);

        if (nv == NULL || json_object_setn_new(doc, key, klen, nv) != 0) {
            return NULL;
        }
    }

    return doc;
}


