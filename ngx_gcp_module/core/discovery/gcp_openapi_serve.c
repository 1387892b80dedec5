
/*
 * Serving /openapi/v2 and /openapi/v3: documents are built once per
 * process from the registry and the schemas, kept serialized with their
 * hash, and served with kube-apiserver's caching headers (ETag, immutable
 * hashed URLs, 301 for a stale ?hash=).
 */

#include <stdlib.h>
#include <time.h>

#include "gcp_front.h"
#include "gcp_openapi.h"
#include "gcp_openapi_agg.h"
#include "gcp_openapi_serve.h"
#include "gcp_reg.h"


typedef struct gcp_oa_doc_s  gcp_oa_doc_t;

struct gcp_oa_doc_s {
    gcp_oa_doc_t  *next;
    char          *key;             /* "v2", "v3", "v3/api/v1" */
    char          *data;
    size_t         len;
    char          *pb;              /* v2: the protobuf document */
    size_t         pb_len;
    char           hash[GCP_OPENAPI_HASH_LEN + 1];
    int            missing;         /* nothing served at key */
};


typedef struct {
    gcp_oa_doc_t  *docs;
    uint64_t       generation;      /* the registry's, when built */
    char           last_modified[64];
    uint64_t       agg_generation;  /* of the delegated documents */
    uint64_t       front_generation;    /* of the fronted upstream's */
} gcp_oa_cache_t;


static gcp_oa_cache_t *
gcp_oa_cache(gcp_api_t *api)
{
    time_t           now;
    uint64_t         gen, front;
    gcp_agg_t       *agg;
    struct tm        tm;
    gcp_oa_cache_t  *c;

    c = api->openapi;

    /*
     * the served resources (custom resources) or the documents of
     * delegated or fronted group-versions changed: built again
     */

    agg = gcp_agg(api);
    gen = agg ? gcp_agg_generation(agg) : 0;
    front = gcp_front_generation(api);

    if (c && (c->generation != api->registry->generation
              || c->agg_generation != gen || c->front_generation != front))
    {
        gcp_openapi_cache_free(api);
        c = NULL;
    }

    if (c) {
        return c;
    }

    c = calloc(1, sizeof(gcp_oa_cache_t));
    if (c == NULL) {
        return NULL;
    }

    c->agg_generation = gen;
    c->front_generation = front;
    now = time(NULL);
    gmtime_r(&now, &tm);
    strftime(c->last_modified, sizeof(c->last_modified),
             "%a, %d %b %Y %H:%M:%S GMT", &tm);

    c->generation = api->registry->generation;
    api->openapi = c;

    return c;
}


void
gcp_openapi_cache_free(gcp_api_t *api)
{
    gcp_oa_doc_t    *d, *next;
    gcp_oa_cache_t  *c = api->openapi;

    if (c == NULL) {
        return;
    }

    for (d = c->docs; d; d = next) {
        next = d->next;
        free(d->key);
        free(d->data);
        free(d->pb);
        free(d);
    }

    free(c);
    api->openapi = NULL;
}


void
gcp_openapi_cache_reset(gcp_api_t *api)
{
    gcp_openapi_cache_free(api);
}


/* The v2 document's protobuf form, kept beside its JSON. */

static int
gcp_oa_keep_protobuf(gcp_op_t *op, gcp_oa_doc_t *d, const json_t *doc)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, op->a);

    if (gcp_openapi_v2_protobuf(&b, doc) != GCP_OK) {
        return GCP_ENOMEM;
    }

    d->pb = malloc(b.len ? b.len : 1);
    if (d->pb == NULL) {
        return GCP_ENOMEM;
    }

    memcpy(d->pb, b.data, b.len);
    d->pb_len = b.len;

    return GCP_OK;
}


/*
 * kube-openapi's choice for /openapi/v2: the Accept clauses by quality
 * (then the specific before wildcards, as goautoneg sorts them), the
 * first that matches JSON or one of the two protobuf names.  Returns 1
 * for JSON, 2 for protobuf, 0 when none matches (406).
 */

static int
gcp_oa_v2_accept(gcp_op_t *op)
{
    int          best, rank, type_any, sub_any;
    char        *list, *clause, *save, *semi, *p;
    double       q, best_q;
    const char  *accept, *slash, *sub;

    accept = op->req->accept;

    if (accept == NULL || accept[0] == '\0') {
        return 1;
    }

    list = gcp_strdup(op->a, accept);
    if (list == NULL) {
        return 1;
    }

    best = 0;
    best_q = -1;
    rank = -1;

    for (clause = strtok_r(list, ",", &save); clause;
         clause = strtok_r(NULL, ",", &save))
    {
        int  kind, r;

        q = 1;
        semi = strchr(clause, ';');

        if (semi) {
            *semi = '\0';
            p = strstr(semi + 1, "q=");
            if (p) {
                q = strtod(p + 2, NULL);
            }
        }

        while (*clause == ' ' || *clause == '\t') {
            clause++;
        }

        for (p = clause + strlen(clause);
             p > clause && (p[-1] == ' ' || p[-1] == '\t'); p--)
        {
            p[-1] = '\0';
        }

        slash = strchr(clause, '/');
        if (slash == NULL) {
            continue;
        }

        sub = slash + 1;
        type_any = slash - clause == 1 && clause[0] == '*';
        sub_any = strcmp(sub, "*") == 0;

        if (!type_any && ((size_t) (slash - clause) != 11
                          || strncmp(clause, "application", 11) != 0))
        {
            continue;
        }

        if (sub_any || strcmp(sub, "json") == 0) {
            kind = 1;

        } else if (strcmp(sub, "com.github.proto-openapi.spec.v2@v1.0"
                          "+protobuf") == 0
                   || strcmp(sub, "com.github.proto-openapi.spec.v2.v1.0"
                             "+protobuf") == 0)
        {
            kind = 2;

        } else {
            continue;
        }

        r = !sub_any + !type_any;

        if (q > best_q || (q == best_q && r > rank)) {
            best = kind;
            best_q = q;
            rank = r;
        }
    }

    return best;
}


/* Builds (once) and returns the document at key, or NULL (no memory). */

static gcp_oa_doc_t *
gcp_oa_get(gcp_op_t *op, const char *key)
{
    json_t          *doc;
    char            *bytes;
    size_t           len;
    gcp_agg_t       *agg;
    gcp_oa_doc_t    *d;
    gcp_oa_cache_t  *c;
    gcp_registry_t  *reg = op->api->registry;

    c = gcp_oa_cache(op->api);
    if (c == NULL) {
        return NULL;
    }

    for (d = c->docs; d; d = d->next) {
        if (strcmp(d->key, key) == 0) {
            return d;
        }
    }

    d = calloc(1, sizeof(gcp_oa_doc_t));
    if (d == NULL) {
        return NULL;
    }

    d->key = strdup(key);
    if (d->key == NULL) {
        free(d);
        return NULL;
    }

    agg = gcp_agg(op->api);

    if (strcmp(key, "v2") == 0) {
        doc = gcp_openapi_v2(op->api->schemas, reg->resources, reg->n,
                             NULL);

        if (doc && (gcp_openapi_agg_v2(agg, doc) != GCP_OK
                    || gcp_openapi_front_v2(op->api, doc) != GCP_OK))
        {
            json_decref(doc);
            doc = NULL;
        }

    } else if (strcmp(key, "v3") == 0) {
        doc = gcp_openapi_v3_index(op->api->schemas, reg->resources, reg->n);

        if (doc && (gcp_openapi_agg_v3_index(agg, doc) != GCP_OK
                    || gcp_openapi_front_v3_index(op->api, op->a, doc)
                       != GCP_OK))
        {
            json_decref(doc);
            doc = NULL;
        }

    } else if (!gcp_openapi_front_v3_doc(op->api, key + 3, &doc)) {
        doc = gcp_openapi_agg_v3_doc(agg, key + 3);

        if (doc == NULL) {
            doc = gcp_openapi_v3_doc(op->api->schemas, reg->resources,
                                     reg->n, key + 3);
        }
    }

    if (doc == NULL) {
        d->missing = 1;

    } else {
        bytes = gcp_openapi_dump(op->a, doc, &len);

        d->data = bytes ? malloc(len + 1) : NULL;

        if (d->data == NULL) {
            json_decref(doc);
            free(d->key);
            free(d);
            return NULL;
        }

        memcpy(d->data, bytes, len + 1);
        d->len = len;
        gcp_openapi_hash(d->data, d->len, d->hash);

        if (strcmp(key, "v2") == 0 && gcp_oa_keep_protobuf(op, d, doc)
                                      != GCP_OK)
        {
            json_decref(doc);
            free(d->data);
            free(d->key);
            free(d);
            return NULL;
        }

        json_decref(doc);
    }

    d->next = c->docs;
    c->docs = d;

    return d;
}


static void
gcp_oa_send(gcp_op_t *op, char *data, size_t len, const char *content_type)
{
    gcp_op_header(op, "Last-Modified",
                  ((gcp_oa_cache_t *) op->api->openapi)->last_modified);
    gcp_op_respond(op, 200, content_type, (gcp_str_t) { data, len });
}


int
gcp_openapi_handle(gcp_op_t *op)
{
    int            v2;
    char           expires[64];
    time_t         t;
    struct tm      tm;
    const char    *path, *hash;
    gcp_oa_doc_t  *d;

    path = op->ri.path;

    if (strncmp(path, "/openapi/", 9) != 0) {
        return 0;
    }

    if (strcmp(path, "/openapi/v2") == 0) {
        d = gcp_oa_get(op, "v2");

    } else if (strcmp(path, "/openapi/v3") == 0
               || strcmp(path, "/openapi/v3/") == 0)
    {
        d = gcp_oa_get(op, "v3");

        if (d) {
            gcp_oa_send(op, d->data, d->len, "text/plain; charset=utf-8");
            return 1;
        }

    } else if (strncmp(path, "/openapi/v3/", 12) == 0) {
        d = gcp_oa_get(op, gcp_sprintf(op->a, "v3/%s", path + 12));

    } else {
        return 0;
    }

    if (d == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return 1;
    }

    if (d->missing) {
        gcp_op_respond(op, 404, NULL, (gcp_str_t) { "", 0 });
        return 1;
    }

    v2 = strcmp(path, "/openapi/v2") == 0 ? gcp_oa_v2_accept(op) : 1;

    if (v2 == 0) {
        gcp_op_header(op, "Vary", "Accept");
        gcp_op_respond(op, 406, NULL, (gcp_str_t) { "", 0 });
        return 1;
    }

    /* the protobuf form shares the JSON's ETag (Vary: Accept tells) */

    gcp_op_header(op, "ETag", gcp_sprintf(op->a, "\"%s\"", d->hash));
    gcp_op_header(op, "Vary", "Accept");

    if (op->req->if_none_match
        && strcmp(op->req->if_none_match,
                  gcp_sprintf(op->a, "\"%s\"", d->hash)) == 0)
    {
        gcp_op_respond(op, 304, NULL, (gcp_str_t) { "", 0 });
        return 1;
    }

    hash = gcp_query_get(&op->q, "hash");

    if (hash && strncmp(path, "/openapi/v3/", 12) == 0) {
        if (strcmp(hash, d->hash) != 0) {
            gcp_op_header(op, "Location",
                          gcp_sprintf(op->a, "%s?hash=%s", path, d->hash));
            gcp_op_respond(op, 301, "application/json", (gcp_str_t) { "", 0 });
            return 1;
        }

        t = time(NULL) + 365 * 24 * 3600;
        gmtime_r(&t, &tm);
        strftime(expires, sizeof(expires), "%a, %d %b %Y %H:%M:%S UTC", &tm);

        gcp_op_header(op, "Cache-Control", "public, immutable");
        gcp_op_header(op, "Expires", expires);
    }

    if (v2 == 2) {
        gcp_oa_send(op, d->pb, d->pb_len, "application/com.github.proto-"
                    "openapi.spec.v2.v1.0+protobuf");
        return 1;
    }

    gcp_oa_send(op, d->data, d->len, "application/json");

    return 1;
}
