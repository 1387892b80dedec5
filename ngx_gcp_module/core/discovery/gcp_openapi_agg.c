
/*
 * The OpenAPI documents of delegated group-versions, as kube-aggregator
 * publishes them: the v3 document of each remote group-version (the last
 * one its server gave, kept with the APIService) served at
 * /openapi/v3/apis/GROUP/VERSION and listed in the index; the v2 document
 * merged with the servers' (their paths and definitions added, a
 * definition this server has already keeping its own).
 */

#include <stdio.h>
#include <stdlib.h>

#include "gcp_aggregator.h"
#include "gcp_openapi_agg.h"


/* The remote APIService serving key "apis/GROUP/VERSION", or NULL. */
static const gcp_apisvc_t *
gcp_openapi_agg_find(gcp_agg_t *agg, const char *key)
{
    size_t                       i, n;
    const char                  *gv;
    const gcp_apisvc_t * const  *list;

    if (strncmp(key, "apis/", 5) != 0) {
        return NULL;
    }

    gv = key + 5;
    n = gcp_agg_list(agg, &list);

    for (i = 0; i < n; i++) {
        if (list[i]->remote && list[i]->openapi_v3
            && strncmp(gv, list[i]->group, strlen(list[i]->group)) == 0
            && gv[strlen(list[i]->group)] == '/'
            && strcmp(gv + strlen(list[i]->group) + 1, list[i]->version)
               == 0)
        {
            return list[i];
        }
    }

    return NULL;
}


json_t *
gcp_openapi_agg_v3_doc(gcp_agg_t *agg, const char *key)
{
    const gcp_apisvc_t  *svc;

    svc = agg ? gcp_openapi_agg_find(agg, key) : NULL;

    return svc ? json_deep_copy(svc->openapi_v3) : NULL;
}


static int
gcp_openapi_agg_key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char * const *) a, *(const char * const *) b);
}


int
gcp_openapi_agg_v3_index(gcp_agg_t *agg, json_t *index)
{
    int                          rc;
    char                        *bytes, hash[GCP_OPENAPI_HASH_LEN + 1];
    char                         name[320];
    size_t                       i, n;
    json_t                      *paths, *v;
    const gcp_apisvc_t * const  *list;

    n = agg ? gcp_agg_list(agg, &list) : 0;
    paths = json_object_get(index, "paths");

    for (i = 0; i < n; i++) {
        if (!list[i]->remote || list[i]->openapi_v3 == NULL) {
            continue;
        }

        bytes = json_dumps(list[i]->openapi_v3, JSON_COMPACT);
        if (bytes == NULL) {
            return GCP_ENOMEM;
        }

        rc = gcp_openapi_hash(bytes, strlen(bytes), hash);
        free(bytes);

        if (rc != GCP_OK) {
            return rc;
        }

        if ((size_t) snprintf(name, sizeof(name), "apis/%s/%s",
                              list[i]->group, list[i]->version)
            >= sizeof(name))
        {
            continue;
        }

        v = json_pack("{s:s+++}", "serverRelativeURL", "/openapi/v3/", name,
                      "?hash=", hash);

        if (v == NULL || json_object_set_new(paths, name, v) != 0) {
            return GCP_ENOMEM;
        }
    }

    return gcp_openapi_index_sort(index);
}


int
gcp_openapi_index_sort(json_t *index)
{
    size_t        i, nkeys;
    json_t       *paths, *sorted, *v;
    const char   *key, **keys;

    /* the keys sorted, as Go writes a map */

    paths = json_object_get(index, "paths");
    nkeys = json_object_size(paths);
    keys = malloc((nkeys + 1) * sizeof(char *));
    sorted = json_object();

    if (keys == NULL || sorted == NULL) {
        free(keys);
        json_decref(sorted);
        return GCP_ENOMEM;
    }

    i = 0;

    json_object_foreach(paths, key, v) {
        keys[i++] = key;
    }

    qsort(keys, nkeys, sizeof(char *), gcp_openapi_agg_key_cmp);

    for (i = 0; i < nkeys; i++) {
        json_object_set(sorted, keys[i], json_object_get(paths, keys[i]));
    }

    free(keys);

    return json_object_set_new(index, "paths", sorted) == 0 ? GCP_OK
                                                             : GCP_ENOMEM;
}


/* Adds the members of from missing in to (both objects). */
static int
gcp_openapi_agg_add(json_t *to, const json_t *from)
{
    json_t      *v;
    const char  *key;

    if (!json_is_object(to) || !json_is_object(from)) {
        return GCP_OK;
    }

    json_object_foreach((json_t *) from, key, v) {
        if (json_object_get(to, key) == NULL
            && json_object_set(to, key, v) != 0)
        {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


int
gcp_openapi_agg_v2(gcp_agg_t *agg, json_t *doc)
{
    size_t                       i, j, n;
    const gcp_apisvc_t * const  *list;

    n = agg ? gcp_agg_list(agg, &list) : 0;

    for (i = 0; i < n; i++) {
        if (!list[i]->remote || list[i]->openapi_v2 == NULL) {
            continue;
        }

        /* a server is merged once, whatever its number of APIServices */

        for (j = 0; j < i; j++) {
            if (list[j]->remote && list[j]->openapi_v2
                && strcmp(list[j]->svc_namespace, list[i]->svc_namespace)
                   == 0
                && strcmp(list[j]->svc_name, list[i]->svc_name) == 0
                && list[j]->svc_port == list[i]->svc_port)
            {
                break;
            }
        }

        if (j < i) {
            continue;
        }

        if (gcp_openapi_agg_add(json_object_get(doc, "paths"),
                                json_object_get(list[i]->openapi_v2,
                                                "paths")) != GCP_OK
            || gcp_openapi_agg_add(json_object_get(doc, "definitions"),
                                   json_object_get(list[i]->openapi_v2,
                                                   "definitions"))
               != GCP_OK)
        {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}
