
/*
 * Discovery: /api, /apis, /apis/GROUP, /api/v1 and /apis/GROUP/VERSION,
 * legacy documents and aggregated discovery (apidiscovery.k8s.io v2 and
 * v2beta1, with ETag and conditional GET), built from the registry.
 */

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_discovery_int.h"
#include "gcp_front.h"
#include "gcp_reg.h"


static const char * const  gcp_verb_names[] = {
    "create", "delete", "deletecollection", "get", "list", "patch",
    "update", "watch"
};

static const unsigned  gcp_verb_bits[] = {
    GCP_VERB_CREATE, GCP_VERB_DELETE, GCP_VERB_DELETECOLLECTION,
    GCP_VERB_GET, GCP_VERB_LIST, GCP_VERB_PATCH, GCP_VERB_UPDATE,
    GCP_VERB_WATCH
};

/* The order apiextensions-apiserver lists a custom resource's verbs in. */
static const unsigned  gcp_verb_crd_order[] = { 1, 2, 3, 4, 5, 0, 6, 7 };


static void
gcp_disc_verbs(gcp_buf_t *b, unsigned verbs, int crd)
{
    size_t  i, v;
    int     first;

    first = 1;
    gcp_buf_addc(b, '[');

    for (i = 0; i < gcp_nelems(gcp_verb_names); i++) {
        v = crd ? gcp_verb_crd_order[i] : i;

        if (verbs & gcp_verb_bits[v]) {
            gcp_buf_printf(b, "%s\"%s\"", first ? "" : ",",
                           gcp_verb_names[v]);
            first = 0;
        }
    }

    gcp_buf_addc(b, ']');
}


static void
gcp_disc_strings(gcp_buf_t *b, const char *key, const char * const *list)
{
    size_t  i;

    if (list == NULL || list[0] == NULL) {
        return;
    }

    gcp_buf_printf(b, ",\"%s\":[", key);

    for (i = 0; list[i]; i++) {
        if (i) {
            gcp_buf_addc(b, ',');
        }

        gcp_json_add_string(b, list[i], strlen(list[i]));
    }

    gcp_buf_addc(b, ']');
}


void
gcp_discovery_storage_hash(const gcp_resource_t *res, char out[16])
{
    char           gvk[512];
    unsigned char  md[SHA256_DIGEST_LENGTH];

    if (res->storage_version_hash) {
        snprintf(out, 16, "%s", res->storage_version_hash);
        return;
    }

    snprintf(gvk, sizeof(gvk), "%s/%s/%s", res->group, res->version,
             res->kind);
    SHA256((unsigned char *) gvk, strlen(gvk), md);
    EVP_EncodeBlock((unsigned char *) out, md, 8);
}


static int
gcp_disc_cmp(const void *a, const void *b)
{
    const gcp_resource_t  *x = *(const gcp_resource_t * const *) a;
    const gcp_resource_t  *y = *(const gcp_resource_t * const *) b;

    return strcmp(x->name, y->name);
}


/* The resources of group/version sorted by name; arena-owned array. */

static size_t
gcp_disc_resources(gcp_op_t *op, const char *group, const char *version,
    const gcp_resource_t ***out)
{
    size_t                  i, n;
    gcp_registry_t         *reg = op->api->registry;
    const gcp_resource_t  **list;

    list = gcp_alloc(op->a, (reg->n + 1) * sizeof(gcp_resource_t *));
    if (list == NULL) {
        *out = NULL;
        return 0;
    }

    n = 0;

    for (i = 0; i < reg->n; i++) {
        if (strcmp(reg->resources[i]->group, group) == 0
            && strcmp(reg->resources[i]->version, version) == 0)
        {
            list[n++] = reg->resources[i];
        }
    }

    qsort(list, n, sizeof(gcp_resource_t *), gcp_disc_cmp);

    *out = list;

    return n;
}


static void
gcp_disc_gv(gcp_buf_t *b, const char *group, const char *version)
{
    if (group[0]) {
        gcp_buf_printf(b, "{\"groupVersion\":\"%s/%s\",\"version\":\"%s\"}",
                       group, version, version);

    } else {
        gcp_buf_printf(b, "{\"groupVersion\":\"%s\",\"version\":\"%s\"}",
                       version, version);
    }
}


static void
gcp_disc_group(gcp_buf_t *b, const gcp_disc_group_t *g, int kind)
{
    size_t  i;

    gcp_buf_printf(b, "{%s\"name\":\"%s\",\"versions\":[",
                   kind ? "\"kind\":\"APIGroup\",\"apiVersion\":\"v1\"," : "",
                   g->name);

    for (i = 0; i < g->nversions; i++) {
        if (i) {
            gcp_buf_addc(b, ',');
        }

        gcp_disc_gv(b, g->name, g->versions[i].version);
    }

    gcp_buf_addstr(b, "],\"preferredVersion\":");

    if (g->nversions) {
        gcp_disc_gv(b, g->name, g->versions[0].version);

    } else {
        gcp_buf_addstr(b, "{}");
    }

    gcp_buf_addc(b, '}');
}


static void
gcp_disc_resource_list(gcp_op_t *op, gcp_buf_t *b, const char *group,
    const char *version)
{
    size_t                  i, j, n;
    int                     first;
    char                    hash[16];
    const gcp_resource_t  **res, *r;
    const gcp_subresource_t *s;

    n = gcp_disc_resources(op, group, version, &res);

    gcp_buf_addstr(b, "{\"kind\":\"APIResourceList\",");

    if (group[0]) {
        gcp_buf_addstr(b, "\"apiVersion\":\"v1\",");
        gcp_buf_printf(b, "\"groupVersion\":\"%s/%s\",", group, version);

    } else {
        gcp_buf_printf(b, "\"groupVersion\":\"%s\",", version);
    }

    gcp_buf_addstr(b, "\"resources\":[");
    first = 1;

    for (i = 0; i < n; i++) {
        r = res[i];

        gcp_buf_printf(b, "%s{\"name\":\"%s\",\"singularName\":\"%s\","
                       "\"namespaced\":%s,\"kind\":\"%s\",\"verbs\":",
                       first ? "" : ",", r->name, r->singular,
                       r->namespaced ? "true" : "false", r->kind);
        first = 0;

        gcp_disc_verbs(b, r->verbs, r->unstructured);
        gcp_disc_strings(b, "shortNames", r->short_names);
        gcp_disc_strings(b, "categories", r->categories);

        gcp_discovery_storage_hash(r, hash);
        gcp_buf_printf(b, ",\"storageVersionHash\":\"%s\"}", hash);

        for (j = 0; j < r->nsubresources; j++) {
            s = &r->subresources[j];

            gcp_buf_printf(b, ",{\"name\":\"%s/%s\",\"singularName\":\"\","
                           "\"namespaced\":%s,", r->name, s->name,
                           r->namespaced ? "true" : "false");

            if (s->group) {
                gcp_buf_printf(b, "\"group\":\"%s\",\"version\":\"%s\",",
                               s->group, s->version);
            }

            gcp_buf_printf(b, "\"kind\":\"%s\",\"verbs\":",
                           s->kind ? s->kind : r->kind);
            gcp_disc_verbs(b, s->verbs, 0);
            gcp_buf_addc(b, '}');
        }
    }

    gcp_buf_addstr(b, "]}");
}


/* aggregated discovery */


static void
gcp_disc_agg_resource(gcp_buf_t *b, const gcp_resource_t *r)
{
    size_t                    j;
    const char               *g, *v;
    const gcp_subresource_t  *s;

    /* custom resources name their group and version (upstream's CRD */
    /* discovery), built-in ones leave them empty */

    g = r->unstructured ? r->group : "";
    v = r->unstructured ? r->version : "";

    gcp_buf_printf(b, "{\"resource\":\"%s\",\"responseKind\":{\"group\":"
                   "\"%s\",\"version\":\"%s\",\"kind\":\"%s\"},\"scope\":"
                   "\"%s\",\"singularResource\":\"%s\",\"verbs\":",
                   r->name, g, v, r->kind,
                   r->namespaced ? "Namespaced" : "Cluster", r->singular);

    gcp_disc_verbs(b, r->verbs, r->unstructured);
    gcp_disc_strings(b, "shortNames", r->short_names);
    gcp_disc_strings(b, "categories", r->categories);

    if (r->nsubresources) {
        gcp_buf_addstr(b, ",\"subresources\":[");

        for (j = 0; j < r->nsubresources; j++) {
            s = &r->subresources[j];

            gcp_buf_printf(b, "%s{\"subresource\":\"%s\",\"responseKind\":{"
                           "\"group\":\"%s\",\"version\":\"%s\",\"kind\":"
                           "\"%s\"},\"verbs\":", j ? "," : "", s->name,
                           s->group ? s->group : g,
                           s->version ? s->version : v,
                           s->kind ? s->kind : r->kind);
            gcp_disc_verbs(b, s->verbs, 0);
            gcp_buf_addc(b, '}');
        }

        gcp_buf_addc(b, ']');
    }

    gcp_buf_addc(b, '}');
}


static void
gcp_disc_agg_group(gcp_op_t *op, gcp_buf_t *b, const gcp_disc_group_t *g)
{
    size_t                     i, j, n;
    const gcp_resource_t     **res;
    const gcp_disc_version_t  *v;

    gcp_buf_addstr(b, "{\"metadata\":{");

    if (g->name[0]) {
        gcp_buf_printf(b, "\"name\":\"%s\",", g->name);
    }

    gcp_buf_addstr(b, "\"creationTimestamp\":null},\"versions\":[");

    for (i = 0; i < g->nversions; i++) {
        v = &g->versions[i];

        gcp_buf_printf(b, "%s{\"version\":\"%s\",\"resources\":[",
                       i ? "," : "", v->version);

        if (v->remote) {
            /* the last document its server gave; stale when it is down */

            gcp_disc_agg_remote(b, v->remote->discovery);
            gcp_buf_printf(b, "],\"freshness\":\"%s\"}",
                           v->remote->available && v->remote->discovery
                           ? "Current" : "Stale");
            continue;
        }

        n = gcp_disc_resources(op, g->name, v->version, &res);

        for (j = 0; j < n; j++) {
            if (j) {
                gcp_buf_addc(b, ',');
            }

            gcp_disc_agg_resource(b, res[j]);
        }

        gcp_buf_addstr(b, "],\"freshness\":\"Current\"}");
    }

    gcp_buf_addstr(b, "]}");
}


static void
gcp_disc_aggregated(gcp_op_t *op, gcp_buf_t *b, int core)
{
    size_t             i, n;
    int                first;
    gcp_disc_group_t  *groups;

    gcp_buf_printf(b, "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":"
                   "\"apidiscovery.k8s.io/%s\",\"metadata\":{},\"items\":[",
                   op->media.version);

    n = gcp_disc_model(op, &groups);
    first = 1;

    for (i = 0; i < n; i++) {
        if ((groups[i].name[0] == '\0') != core) {
            continue;
        }

        if (!first) {
            gcp_buf_addc(b, ',');
        }

        first = 0;
        gcp_disc_agg_group(op, b, &groups[i]);
    }

    gcp_buf_addstr(b, "]}");
}


void
gcp_discovery_etag(const char *data, size_t len, char out[131])
{
    size_t         i;
    unsigned char  md[SHA512_DIGEST_LENGTH];

    static const char  hex[] = "0123456789ABCDEF";

    SHA512((const unsigned char *) data, len, md);

    out[0] = '"';

    for (i = 0; i < SHA512_DIGEST_LENGTH; i++) {
        out[1 + 2 * i] = hex[md[i] >> 4];
        out[2 + 2 * i] = hex[md[i] & 0xf];
    }

    out[129] = '"';
    out[130] = '\0';
}


static void
gcp_disc_send_aggregated(gcp_op_t *op, gcp_buf_t *b)
{
    char  etag[131];

    if (gcp_buf_failed(b)) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    gcp_discovery_etag(b->data, b->len, etag);

    gcp_op_header(op, "Cache-Control", "public");
    gcp_op_header(op, "ETag", etag);
    gcp_op_header(op, "Vary", "Accept");

    if (op->req->if_none_match && strcmp(op->req->if_none_match, etag) == 0)
    {
        gcp_op_respond(op, 304, NULL, (gcp_str_t) { "", 0 });
        return;
    }

    gcp_op_respond(op, 200,
                   gcp_sprintf(op->a, "application/json;g=apidiscovery.k8s.io;"
                               "v=%s;as=APIGroupDiscoveryList",
                               op->media.version),
                   (gcp_str_t) { b->data, b->len });
}


static void
gcp_disc_not_acceptable(gcp_op_t *op)
{
    gcp_op_error(op, GCP_ENOTACCEPTABLE,
                 "only the following media types are accepted: "
                 "application/json, application/yaml, "
                 "application/vnd.kubernetes.protobuf", NULL);
}


int
gcp_discovery_handle(gcp_op_t *op)
{
    int                      agg;
    size_t                   i, n, nparts;
    gcp_buf_t                b;
    const char             **parts;
    gcp_disc_group_t        *groups;
    gcp_status_details_t     d;
    const gcp_disc_group_t  *g;

    parts = op->ri.parts;
    nparts = op->ri.nparts;

    if (nparts == 0 || nparts > 3
        || (strcmp(parts[0], "api") != 0 && strcmp(parts[0], "apis") != 0)
        || (strcmp(parts[0], "api") == 0 && nparts > 2))
    {
        return 0;
    }

    if (strcmp(op->req->method, "GET") != 0) {
        memset(&d, 0, sizeof(d));
        gcp_op_error(op, GCP_EMETHOD, NULL, &d);
        return 1;
    }

    agg = nparts == 1;

    if (gcp_media_negotiate(op->a, op->req->accept,
                            GCP_MEDIA_BIT(GCP_MEDIA_JSON)
                            | GCP_MEDIA_BIT(GCP_MEDIA_YAML)
                            | (agg ? GCP_MEDIA_BIT(GCP_MEDIA_DISCOVERY) : 0),
                            &op->media) != GCP_OK)
    {
        if (nparts == 2 && strcmp(parts[0], "api") == 0) {
            memset(&d, 0, sizeof(d));
            gcp_op_error(op, GCP_ENOTACCEPTABLE,
                         "406: Not Acceptable\n\nAvailable representations: "
                         "application/json, application/yaml, "
                         "application/vnd.kubernetes.protobuf", &d);

        } else {
            gcp_disc_not_acceptable(op);
        }

        return 1;
    }

    gcp_buf_init(&b, op->a);

    if (op->media.kind == GCP_MEDIA_DISCOVERY) {
        gcp_disc_aggregated(op, &b, strcmp(parts[0], "api") == 0);
        gcp_disc_send_aggregated(op, &b);
        return 1;
    }

    if (nparts == 1 && strcmp(parts[0], "api") == 0) {
        gcp_buf_printf(&b, "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],"
                       "\"serverAddressByClientCIDRs\":[{\"clientCIDR\":"
                       "\"0.0.0.0/0\",\"serverAddress\":\"%s\"}]}",
                       op->api->conf.server_address
                       ? op->api->conf.server_address : "127.0.0.1:6443");

    } else if (nparts == 1) {
        gcp_buf_addstr(&b, "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\","
                           "\"groups\":[");

        n = gcp_disc_model(op, &groups);

        for (i = 0; i < n; i++) {
            if (groups[i].name[0] == '\0') {
                continue;
            }

            if (b.data[b.len - 1] != '[') {
                gcp_buf_addc(&b, ',');
            }

            gcp_disc_group(&b, &groups[i], 0);
        }

        gcp_buf_addstr(&b, "]}");

    } else if (nparts == 2 && strcmp(parts[0], "apis") == 0) {
        n = gcp_disc_model(op, &groups);
        g = gcp_disc_model_group(groups, n, parts[1]);

        if (g == NULL) {
            gcp_op_text(op, 404, "404 page not found\n");
            return 1;
        }

        gcp_disc_group(&b, g, 1);

    } else {
        const char          *group = nparts == 3 ? parts[1] : "";
        const char          *version = nparts == 3 ? parts[2] : parts[1];
        const gcp_apisvc_t  *front;

        front = gcp_front_doc(op->api, group, version);

        if (front && front->discovery) {
            gcp_json_dump_buf(&b, front->discovery, 0);
            gcp_output_send(op, 200, &b);
            return 1;
        }

        if (front) {
            gcp_op_text(op, 503, "service unavailable\n");
            return 1;
        }

        if (!gcp_registry_has_gv(op->api->registry, group, version)
            || (op->api->conf.front && op->api->conf.front->only))
        {
            n = group[0] ? gcp_disc_model(op, &groups) : 0;

            if (group[0] && gcp_disc_model_group(groups, n, group) == NULL) {
                gcp_op_text(op, 404, "404 page not found\n");
                return 1;
            }

            memset(&d, 0, sizeof(d));
            gcp_op_error(op, GCP_ENOTFOUND, NULL, &d);
            return 1;
        }

        gcp_disc_resource_list(op, &b, group, version);
    }

    gcp_output_send(op, 200, &b);

    return 1;
}
