
/*
 * The fronted upstream's OpenAPI documents in those this server serves
 * (gcp_openapi_agg.h): what a fronted group-version had here (and, with
 * gcp_front_only, every group-version here or delegated) is replaced by
 * the upstream's documents narrowed to the surface, kept by each worker
 * (aggregator/gcp_front_docs.c).
 */

#include <stdio.h>

#include "gcp_aggregator.h"
#include "gcp_front.h"
#include "gcp_openapi.h"
#include "gcp_openapi_agg.h"


#define GCP_OAF_NONE   0
#define GCP_OAF_GV     1            /* "api/V...", "apis/G/V..." */
#define GCP_OAF_GROUP  2            /* "apis/G", "apis/G/" */


/*
 * What p is (a path or a v3 key without its leading slash), with its
 * group and version copied when it is under a group-version.
 */
static int
gcp_oaf_split(const char *p, char *group, char *version, size_t size)
{
    size_t       glen, vlen;
    const char  *g, *v, *slash;

    if (strncmp(p, "api/", 4) == 0) {
        g = p;
        glen = 0;
        v = p + 4;

    } else if (strncmp(p, "apis/", 5) == 0) {
        g = p + 5;
        slash = strchr(g, '/');
        glen = slash ? (size_t) (slash - g) : strlen(g);

        if (glen == 0) {
            return GCP_OAF_NONE;
        }

        if (slash == NULL || slash[1] == '\0') {
            return GCP_OAF_GROUP;
        }

        v = slash + 1;

    } else {
        return GCP_OAF_NONE;
    }

    slash = strchr(v, '/');
    vlen = slash ? (size_t) (slash - v) : strlen(v);

    if (vlen == 0 || glen >= size || vlen >= size) {
        return GCP_OAF_NONE;
    }

    memcpy(group, g, glen);
    group[glen] = '\0';
    memcpy(version, v, vlen);
    version[vlen] = '\0';

    return GCP_OAF_GV;
}


/* Returns 1 when this server's document at p gives way to the front's. */
static int
gcp_oaf_replaced(const gcp_front_conf_t *conf, const char *p)
{
    char  group[256], version[256];

    switch (gcp_oaf_split(p, group, version, sizeof(group))) {

    case GCP_OAF_GV:
        return conf->only || gcp_front_gv(conf, group, version);

    case GCP_OAF_GROUP:
        return conf->only;

    default:
        return 0;
    }
}


/* Drops from obj the keys (after skip bytes) that give way. */
static void
gcp_oaf_drop(const gcp_front_conf_t *conf, json_t *obj, size_t skip)
{
    void        *tmp;
    json_t      *v;
    const char  *key;

    json_object_foreach_safe(obj, tmp, key, v) {
        if (strlen(key) >= skip && gcp_oaf_replaced(conf, key + skip)) {
            json_object_del(obj, key);
        }
    }
}


int
gcp_openapi_front_v2(gcp_api_t *api, json_t *doc)
{
    json_t                  *paths, *defs;
    const json_t            *up;
    const gcp_front_conf_t  *conf = api->conf.front;

    paths = json_object_get(doc, "paths");
    defs = json_object_get(doc, "definitions");

    if (conf == NULL || !json_is_object(paths) || !json_is_object(defs)) {
        return GCP_OK;
    }

    gcp_oaf_drop(conf, paths, 1);

    up = gcp_front_openapi_v2(api);

    if (up && (json_object_update(paths, json_object_get(up, "paths")) != 0
               || json_object_update(defs, json_object_get(up,
                                                           "definitions"))
                  != 0))
    {
        return GCP_ENOMEM;
    }

    return gcp_front_openapi_prune(doc);
}


int
gcp_openapi_front_v3_index(gcp_api_t *api, gcp_arena_t *a, json_t *index)
{
    char                         key[320], hash[GCP_OPENAPI_HASH_LEN + 1];
    char                        *bytes;
    size_t                       i, n, len;
    json_t                      *paths, *v;
    const gcp_apisvc_t * const  *list;
    const gcp_front_conf_t      *conf = api->conf.front;

    paths = json_object_get(index, "paths");

    if (conf == NULL || !json_is_object(paths)) {
        return GCP_OK;
    }

    gcp_oaf_drop(conf, paths, 0);

    n = gcp_front_list(api, &list);

    for (i = 0; i < n; i++) {
        if (list[i]->openapi_v3 == NULL) {
            continue;
        }

        if ((size_t) (list[i]->group[0]
                      ? snprintf(key, sizeof(key), "apis/%s/%s",
                                 list[i]->group, list[i]->version)
                      : snprintf(key, sizeof(key), "api/%s",
                                 list[i]->version))
            >= sizeof(key))
        {
            continue;
        }

        bytes = gcp_openapi_dump(a, list[i]->openapi_v3, &len);

        if (bytes == NULL || gcp_openapi_hash(bytes, len, hash) != GCP_OK) {
            return GCP_ENOMEM;
        }

        v = json_pack("{s:s+++}", "serverRelativeURL", "/openapi/v3/", key,
                      "?hash=", hash);

        if (v == NULL || json_object_set_new(paths, key, v) != 0) {
            return GCP_ENOMEM;
        }
    }

    return gcp_openapi_index_sort(index);
}


int
gcp_openapi_front_v3_doc(gcp_api_t *api, const char *key, json_t **doc)
{
    char                     group[256], version[256];
    const gcp_apisvc_t      *svc;
    const gcp_front_conf_t  *conf = api->conf.front;

    *doc = NULL;

    if (conf == NULL || !gcp_oaf_replaced(conf, key)) {
        return 0;
    }

    if (gcp_oaf_split(key, group, version, sizeof(group)) == GCP_OAF_GV) {
        svc = gcp_front_doc(api, group, version);

        if (svc && svc->openapi_v3) {
            *doc = json_deep_copy(svc->openapi_v3);
        }
    }

    return 1;
}
