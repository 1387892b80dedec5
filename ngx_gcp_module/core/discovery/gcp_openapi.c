
/*
 * OpenAPI v2 and v3 documents (see gcp_openapi.h): the v2 document, the
 * v3 documents and their index, hashes and serialisation, and the helpers
 * the other parts share (see gcp_openapi_int.h).
 *
 * The paths are first collected in a neutral form (gcp_openapi_path_t, one
 * per URL, with its operations), then rendered as v2 or v3
 * (gcp_openapi_paths.c); the definitions they reach are exported from the
 * schemas (gcp_openapi_defs.c).
 */

#include <stdlib.h>
#include <openssl/evp.h>

#include "gcp_openapi_int.h"


json_t *
gcp_openapi_chk(gcp_openapi_ctx_t *ctx, json_t *v)
{
    if (v == NULL) {
        ctx->nomem = 1;
    }

    return v;
}


/* Sets key to v (stolen); v NULL: leaves the key out. */
void
gcp_openapi_put(gcp_openapi_ctx_t *ctx, json_t *o, const char *key,
    json_t *v)
{
    if (v && json_object_set_new(o, key, v) != 0) {
        ctx->nomem = 1;
    }
}


void
gcp_openapi_push(gcp_openapi_ctx_t *ctx, json_t *list, json_t *v)
{
    if (v && json_array_append_new(list, v) != 0) {
        ctx->nomem = 1;
    }
}


int
gcp_openapi_name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char * const *) a, *(const char * const *) b);
}


/* ---------------------------------------------------------- documents */


static int
gcp_openapi_init(gcp_openapi_ctx_t *ctx, const gcp_schema_set_t *set,
    int v2)
{
    memset(ctx, 0, sizeof(gcp_openapi_ctx_t));

    ctx->arena = gcp_arena_create(0);
    ctx->set = set;
    ctx->v2 = v2;

    return ctx->arena ? GCP_OK : GCP_ENOMEM;
}


static json_t *
gcp_openapi_finish(gcp_openapi_ctx_t *ctx, json_t *doc)
{
    if (doc == NULL || ctx->nomem) {
        json_decref(doc);
        doc = NULL;
    }

    gcp_arena_destroy(ctx->arena);

    return doc;
}


static json_t *
gcp_openapi_v3_render(gcp_openapi_ctx_t *ctx)
{
    json_t  *paths, *doc;

    paths = gcp_openapi_paths_json(ctx);

    doc = json_pack("{s:s,s:{s:s,s:s},s:o,s:{s:o,s:{s:{s:s,s:s,s:s,s:s}}}}",
                    "openapi", "3.0.0",
                    "info", "title", "Kubernetes",
                    "version", GCP_OPENAPI_VERSION,
                    "paths", paths,
                    "components",
                    "schemas", gcp_openapi_definitions(ctx, paths),
                    "securitySchemes", "BearerToken", "type", "apiKey",
                    "description", "Bearer Token authentication",
                    "name", "authorization", "in", "header");

    return gcp_openapi_chk(ctx, doc);
}


static int
gcp_openapi_group_seen(const gcp_resource_t *const *res, size_t i)
{
    size_t  j;

    for (j = 0; j < i; j++) {
        if (strcmp(res[j]->group, res[i]->group) == 0) {
            return 1;
        }
    }

    return 0;
}


static int
gcp_openapi_gv_seen(const gcp_resource_t *const *res, size_t i)
{
    size_t  j;

    for (j = 0; j < i; j++) {
        if (strcmp(res[j]->group, res[i]->group) == 0
            && strcmp(res[j]->version, res[i]->version) == 0)
        {
            return 1;
        }
    }

    return 0;
}


json_t *
gcp_openapi_v2(const gcp_schema_set_t *set, const gcp_resource_t *const *res,
    size_t n, const char *version_info)
{
    size_t              i;
    json_t             *paths, *doc;
    gcp_openapi_ctx_t   ctx;

    if (gcp_openapi_init(&ctx, set, 1) != GCP_OK) {
        return NULL;
    }

    gcp_openapi_add_discovery(&ctx, "/api/", "getCoreAPIVersions", "core",
                              "get available API versions",
                              GCP_OPENAPI_META "APIVersions",
                              GCP_MEDIA_OBJECT);
    gcp_openapi_add_discovery(&ctx, "/apis/", "getAPIVersions", "apis",
                              "get available API versions",
                              GCP_OPENAPI_META "APIGroupList",
                              GCP_MEDIA_OBJECT);
    gcp_openapi_add_discovery(&ctx, "/version/", "getCodeVersion", "version",
                              "get the version of the server",
                              "io.k8s.apimachinery.pkg.version.Info",
                              GCP_MEDIA_JSON);

    for (i = 0; i < n; i++) {
        if (res[i]->group[0] && !gcp_openapi_group_seen(res, i)) {
            gcp_openapi_add_group_root(&ctx, res[i]->group);
        }

        if (!gcp_openapi_gv_seen(res, i)) {
            gcp_openapi_add_gv_root(&ctx, res[i]);
        }

        gcp_openapi_add_resource(&ctx, res[i]);
    }

    paths = gcp_openapi_paths_json(&ctx);

    doc = json_pack("{s:s,s:{s:s,s:s},s:o,s:o,"
                    "s:{s:{s:s,s:s,s:s,s:s}},s:[{s:[]}]}",
                    "swagger", "2.0",
                    "info", "title", "Kubernetes",
                    "version", version_info ? version_info
                                            : GCP_OPENAPI_VERSION,
                    "paths", paths,
                    "definitions", gcp_openapi_definitions(&ctx, paths),
                    "securityDefinitions", "BearerToken",
                    "description", "Bearer Token authentication",
                    "type", "apiKey", "name", "authorization",
                    "in", "header",
                    "security", "BearerToken");

    return gcp_openapi_finish(&ctx, gcp_openapi_chk(&ctx, doc));
}


json_t *
gcp_openapi_v3_gv(const gcp_schema_set_t *set,
    const gcp_resource_t *const *res, size_t n, const char *group,
    const char *version)
{
    size_t              i;
    int                 found;
    gcp_openapi_ctx_t   ctx;

    if (gcp_openapi_init(&ctx, set, 0) != GCP_OK) {
        return NULL;
    }

    found = 0;

    for (i = 0; i < n; i++) {
        if (strcmp(res[i]->group, group) != 0
            || strcmp(res[i]->version, version) != 0)
        {
            continue;
        }

        if (!found) {
            gcp_openapi_add_gv_root(&ctx, res[i]);
            found = 1;
        }

        gcp_openapi_add_resource(&ctx, res[i]);
    }

    if (!found) {
        return gcp_openapi_finish(&ctx, NULL);
    }

    return gcp_openapi_finish(&ctx, gcp_openapi_v3_render(&ctx));
}


json_t *
gcp_openapi_v3_doc(const gcp_schema_set_t *set,
    const gcp_resource_t *const *res, size_t n, const char *key)
{
    size_t              i;
    const char         *slash;
    gcp_openapi_ctx_t   ctx;

    if (strncmp(key, "api/", 4) == 0) {
        return gcp_openapi_v3_gv(set, res, n, "", key + 4);
    }

    if (strncmp(key, "apis/", 5) == 0) {
        key += 5;
        slash = strchr(key, '/');

        if (slash) {
            if (slash == key) {
                return NULL;
            }

            /* the group ends at the slash: compare in place */
            for (i = 0; i < n; i++) {
                if (strlen(res[i]->group) == (size_t) (slash - key)
                    && strncmp(res[i]->group, key, slash - key) == 0
                    && strcmp(res[i]->version, slash + 1) == 0)
                {
                    return gcp_openapi_v3_gv(set, res, n, res[i]->group,
                                             slash + 1);
                }
            }

            return NULL;
        }

        for (i = 0; i < n; i++) {
            if (key[0] && strcmp(res[i]->group, key) == 0) {
                break;
            }
        }

        if (i == n) {
            return NULL;
        }

        if (gcp_openapi_init(&ctx, set, 0) != GCP_OK) {
            return NULL;
        }

        gcp_openapi_add_group_root(&ctx, res[i]->group);

        return gcp_openapi_finish(&ctx, gcp_openapi_v3_render(&ctx));
    }

    if (gcp_openapi_init(&ctx, set, 0) != GCP_OK) {
        return NULL;
    }

    if (strcmp(key, "api") == 0) {
        gcp_openapi_add_discovery(&ctx, "/api/", "getCoreAPIVersions",
                                  "core", "get available API versions",
                                  GCP_OPENAPI_META "APIVersions",
                                  GCP_MEDIA_OBJECT);

    } else if (strcmp(key, "apis") == 0) {
        gcp_openapi_add_discovery(&ctx, "/apis/", "getAPIVersions", "apis",
                                  "get available API versions",
                                  GCP_OPENAPI_META "APIGroupList",
                                  GCP_MEDIA_OBJECT);

    } else if (strcmp(key, "version") == 0) {
        gcp_openapi_add_discovery(&ctx, "/version/", "getCodeVersion",
                                  "version", "get the version of the server",
                                  "io.k8s.apimachinery.pkg.version.Info",
                                  GCP_MEDIA_JSON);

    } else {
        return gcp_openapi_finish(&ctx, NULL);
    }

    return gcp_openapi_finish(&ctx, gcp_openapi_v3_render(&ctx));
}


/* Adds key -> {"serverRelativeURL": ...} for the document at key. */
static int
gcp_openapi_index_add(json_t *index, const gcp_schema_set_t *set,
    const gcp_resource_t *const *res, size_t n, const char *key)
{
    int      rc;
    char    *bytes, hash[GCP_OPENAPI_HASH_LEN + 1];
    json_t  *doc, *url;

    doc = gcp_openapi_v3_doc(set, res, n, key);
    if (doc == NULL) {
        return GCP_ENOMEM;
    }

    bytes = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);

    if (bytes == NULL) {
        return GCP_ENOMEM;
    }

    rc = gcp_openapi_hash(bytes, strlen(bytes), hash);
    free(bytes);

    if (rc != GCP_OK) {
        return rc;
    }

    url = json_pack("{s:s+++}", "serverRelativeURL", "/openapi/v3/", key,
                    "?hash=", hash);

    if (url == NULL || json_object_set_new(index, key, url) != 0) {
        return GCP_ENOMEM;
    }

    return GCP_OK;
}


json_t *
gcp_openapi_v3_index(const gcp_schema_set_t *set,
    const gcp_resource_t *const *res, size_t n)
{
    int           rc;
    size_t        i, nkeys;
    json_t       *sorted, *doc;
    const char  **keys;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    sorted = json_object();
    keys = a ? gcp_alloc(a, (2 * n + 3) * sizeof(char *)) : NULL;

    if (keys == NULL || sorted == NULL) {
        rc = GCP_ENOMEM;
        goto done;
    }

    nkeys = 0;
    keys[nkeys++] = "api";
    keys[nkeys++] = "apis";
    keys[nkeys++] = "version";

    for (i = 0; i < n; i++) {
        if (res[i]->group[0] && !gcp_openapi_group_seen(res, i)) {
            keys[nkeys++] = gcp_sprintf(a, "apis/%s", res[i]->group);
        }

        if (!gcp_openapi_gv_seen(res, i)) {
            keys[nkeys++] = res[i]->group[0]
                            ? gcp_sprintf(a, "apis/%s/%s", res[i]->group,
                                          res[i]->version)
                            : gcp_sprintf(a, "api/%s", res[i]->version);
        }

        if (keys[nkeys - 1] == NULL) {
            rc = GCP_ENOMEM;
            goto done;
        }
    }

    qsort(keys, nkeys, sizeof(char *), gcp_openapi_name_cmp);

    rc = GCP_OK;

    for (i = 0; i < nkeys && rc == GCP_OK; i++) {
        rc = gcp_openapi_index_add(sorted, set, res, n, keys[i]);
    }

done:

    doc = NULL;

    if (rc == GCP_OK) {
        doc = json_pack("{s:O}", "paths", sorted);
    }

    json_decref(sorted);
    gcp_arena_destroy(a);

    return doc;
}


static int
gcp_openapi_dump_cb(const char *buffer, size_t size, void *data)
{
    gcp_buf_add(data, buffer, size);

    return gcp_buf_failed((gcp_buf_t *) data) ? -1 : 0;
}


char *
gcp_openapi_dump(gcp_arena_t *a, const json_t *doc, size_t *len)
{
    gcp_buf_t    b;
    const char  *s;

    gcp_buf_init(&b, a);

    if (json_dump_callback(doc, gcp_openapi_dump_cb, &b, JSON_COMPACT) != 0) {
        return NULL;
    }

    s = gcp_buf_cstr(&b);
    if (s == NULL || gcp_buf_failed(&b)) {
        return NULL;
    }

    *len = b.len;

    return (char *) s;
}


int
gcp_openapi_hash(const char *bytes, size_t len,
    char out[GCP_OPENAPI_HASH_LEN + 1])
{
    unsigned       i, n;
    unsigned char  md[EVP_MAX_MD_SIZE];

    static const char  hex[] = "0123456789ABCDEF";

    if (EVP_Digest(bytes, len, md, &n, EVP_sha512(), NULL) != 1
        || n * 2 != GCP_OPENAPI_HASH_LEN)
    {
        out[0] = '\0';
        return GCP_EINTERNAL;
    }

    for (i = 0; i < n; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 0xf];
    }

    out[2 * n] = '\0';

    return GCP_OK;
}
