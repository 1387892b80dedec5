
/*
 * Bootstrap manifests applied through the in-process client (see
 * gcp_manifests.h): one object at a time, in file order; a pass goes
 * over every object not applied yet, and the objects that must wait make
 * another pass run later.
 */

#include <stdlib.h>
#include <string.h>

#include "gcp_client.h"
#include "gcp_digest.h"
#include "gcp_json.h"
#include "gcp_manifest.h"
#include "gcp_manifests.h"
#include "gcp_object.h"
#include "gcp_op.h"
#include "gcp_registry.h"


#define GCP_MANIFESTS_RETRY_MS      200
#define GCP_MANIFESTS_RETRY_MAX_MS  5000
#define GCP_MANIFESTS_CONFLICTS     5       /* retries at once on 409 */


typedef enum {
    GCP_MF_PENDING = 0,
    GCP_MF_WAIT,            /* waits for its resource or namespace */
    GCP_MF_DONE             /* applied, left alone, or refused */
} gcp_mf_state_e;


typedef struct {
    json_t          *obj;           /* with the digest annotation */
    const char      *where;         /* "FILE: document N (line L)" */
    const char      *digest;
    const char      *waits_for;     /* what it last waited for, or NULL */
    gcp_mf_state_e   state;
    unsigned         conflicts;
} gcp_mf_item_t;


struct gcp_manifests_s {
    gcp_api_t                *api;
    gcp_arena_t              *a;            /* the items */
    gcp_mf_item_t            *items;
    size_t                    n;
    size_t                    cur;          /* in the running pass */
    size_t                    applied;
    size_t                    refused;

    gcp_arena_t              *req;          /* the request in flight */
    gcp_mf_item_t            *item;
    const char               *path;         /* of the object */
    const char               *coll;         /* of its collection */

    gcp_loop_timer_t         *timer;
    uint64_t                  delay;

    gcp_manifests_report_pt   report;
    void                     *arg;

    unsigned                  busy:1;       /* a request in flight */
    unsigned                  running:1;    /* in gcp_mf_next()'s loop */
    unsigned                  stopped:1;
    unsigned                  reported:1;   /* "all applied" said */
};


static void gcp_mf_pass(gcp_manifests_t *m);
static void gcp_mf_next(gcp_manifests_t *m);


static void
gcp_mf_report(gcp_manifests_t *m, int error, const char *fmt, ...)
{
    char     buf[1024];
    va_list  ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);

    m->report(m->arg, error, buf);
}


/* The digest of the object as the file has it: SHA-256 of sorted JSON. */

static const char *
gcp_mf_digest(gcp_arena_t *a, const json_t *obj)
{
    char           *hex;
    size_t          i;
    gcp_str_t       s;
    unsigned char   d[GCP_SHA256_LEN];

    static const char  digits[] = "0123456789abcdef";

    s = gcp_object_encode_sorted(a, obj);

    if (s.data == NULL || gcp_sha256(s.data, s.len, d) != GCP_OK) {
        return NULL;
    }

    hex = gcp_alloc(a, 2 * GCP_SHA256_LEN + 1);
    if (hex == NULL) {
        return NULL;
    }

    for (i = 0; i < GCP_SHA256_LEN; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 0xf];
    }

    hex[2 * GCP_SHA256_LEN] = '\0';

    return hex;
}


static const char *
gcp_mf_where(gcp_arena_t *a, const char *file, const gcp_manifest_obj_t *o)
{
    if (o->item >= 0) {
        return gcp_sprintf(a, "%s: document %zu (line %zu), item %zd",
                           file, o->doc + 1, o->line, o->item);
    }

    return gcp_sprintf(a, "%s: document %zu (line %zu)", file, o->doc + 1,
                       o->line);
}


static int
gcp_mf_add(gcp_manifests_t *m, const char *file, const gcp_manifest_obj_t *o)
{
    json_t         *ann;
    gcp_mf_item_t  *it;

    it = &m->items[m->n];

    it->where = gcp_mf_where(m->a, file, o);
    if (it->where == NULL) {
        return GCP_ENOMEM;
    }

    if (o->obj == NULL) {
        gcp_mf_report(m, 1, "gcp_manifests: %s: %s", it->where, o->msg);
        return GCP_OK;
    }

    it->digest = gcp_mf_digest(m->a, o->obj);
    if (it->digest == NULL) {
        return GCP_ENOMEM;
    }

    it->obj = o->obj;

    ann = gcp_json_object_child(gcp_json_object_child(it->obj, "metadata"),
                                "annotations");

    if (ann == NULL || !json_is_object(ann)
        || json_object_set_new(ann, GCP_MANIFESTS_DIGEST,
                               json_string(it->digest)) != 0)
    {
        if (ann != NULL && !json_is_object(ann)) {
            gcp_mf_report(m, 1, "gcp_manifests: %s: metadata.annotations "
                          "is not an object", it->where);
            return GCP_OK;
        }

        return GCP_ENOMEM;
    }

    it->state = GCP_MF_PENDING;
    m->n++;

    return GCP_OK;
}


gcp_manifests_t *
gcp_manifests_start(gcp_api_t *api, const gcp_manifest_file_t *files,
    size_t n, gcp_manifests_report_pt report, void *arg)
{
    size_t               i, j, k, total;
    gcp_manifest_obj_t  *objs;
    gcp_manifests_t     *m;

    m = calloc(1, sizeof(gcp_manifests_t));
    if (m == NULL) {
        return NULL;
    }

    m->api = api;
    m->report = report;
    m->arg = arg;
    m->delay = GCP_MANIFESTS_RETRY_MS;

    m->a = gcp_arena_create(16384);
    if (m->a == NULL) {
        goto failed;
    }

    for (i = 0; i < n; i++) {
        if (gcp_manifest_read(m->a, files[i].data, files[i].len, &objs, &k)
            != GCP_OK)
        {
            goto failed;
        }

        total = m->n + k;

        if (total > 0) {
            gcp_mf_item_t  *items;

            items = gcp_calloc(m->a, total * sizeof(gcp_mf_item_t));
            if (items == NULL) {
                goto failed;
            }

            if (m->n) {
                memcpy(items, m->items, m->n * sizeof(gcp_mf_item_t));
            }

            m->items = items;
        }

        for (j = 0; j < k; j++) {
            if (gcp_mf_add(m, files[i].name, &objs[j]) != GCP_OK) {
                goto failed;
            }
        }
    }

    gcp_mf_pass(m);

    return m;

failed:

    if (m->a) {
        gcp_arena_destroy(m->a);
    }

    free(m);

    return NULL;
}


static void
gcp_mf_free(gcp_manifests_t *m)
{
    if (m->req) {
        gcp_arena_destroy(m->req);
    }

    gcp_arena_destroy(m->a);
    free(m);
}


void
gcp_manifests_stop(gcp_manifests_t *m)
{
    if (m == NULL) {
        return;
    }

    m->stopped = 1;

    if (m->timer) {
        m->api->conf.loop->timer_del(m->api->conf.loop, m->timer);
        m->timer = NULL;
    }

    if (!m->busy) {
        gcp_mf_free(m);
    }
}


size_t
gcp_manifests_pending(const gcp_manifests_t *m)
{
    size_t  i, left;

    left = 0;

    for (i = 0; i < m->n; i++) {
        left += m->items[i].state != GCP_MF_DONE;
    }

    return left;
}


static void
gcp_mf_timer(void *arg)
{
    gcp_manifests_t  *m = arg;

    m->timer = NULL;
    gcp_mf_pass(m);
}


/* A pass over the objects not applied yet, from the first. */

static void
gcp_mf_pass(gcp_manifests_t *m)
{
    m->cur = 0;
    gcp_mf_next(m);
}


static void
gcp_mf_pass_done(gcp_manifests_t *m)
{
    gcp_loop_t  *loop = m->api->conf.loop;

    if (gcp_manifests_pending(m) == 0) {
        if (!m->reported) {
            m->reported = 1;
            gcp_mf_report(m, 0, "gcp_manifests: %zu objects applied, %zu "
                          "left as they were, %zu refused", m->applied,
                          m->n - m->applied - m->refused, m->refused);
        }

        return;
    }

    m->timer = loop->timer_add(loop, m->delay, gcp_mf_timer, m);

    if (m->delay < GCP_MANIFESTS_RETRY_MAX_MS) {
        m->delay *= 2;
    }
}


static void
gcp_mf_wait(gcp_manifests_t *m, gcp_mf_item_t *it, const char *what)
{
    it->state = GCP_MF_WAIT;

    if (it->waits_for == NULL || strcmp(it->waits_for, what) != 0) {
        it->waits_for = gcp_strdup(m->a, what);
        gcp_mf_report(m, 0, "gcp_manifests: %s: waits for %s", it->where,
                      what);
    }
}


static void
gcp_mf_refused(gcp_manifests_t *m, gcp_mf_item_t *it, const char *fmt,
    const char *s)
{
    char  buf[768];

    snprintf(buf, sizeof(buf), fmt, s);
    gcp_mf_report(m, 1, "gcp_manifests: %s: %s", it->where, buf);

    m->refused++;
    it->state = GCP_MF_DONE;
}


/* The resource of the object's apiVersion and kind, when it is served. */

static const gcp_resource_t *
gcp_mf_resource(gcp_manifests_t *m, const json_t *obj)
{
    char                  *group, *slash;
    size_t                 i;
    const char            *gv, *kind, *version;
    const gcp_resource_t  *r;
    const gcp_registry_t  *reg = m->api->registry;

    gv = json_string_value(json_object_get(obj, "apiVersion"));
    kind = json_string_value(json_object_get(obj, "kind"));

    group = gcp_strdup(m->req, gv);
    if (group == NULL || kind == NULL) {
        return NULL;
    }

    slash = strchr(group, '/');

    if (slash) {
        *slash = '\0';
        version = slash + 1;

    } else {
        version = group;
        group = "";
    }

    for (i = 0; i < reg->n; i++) {
        r = reg->resources[i];

        if (strcmp(r->kind, kind) == 0 && strcmp(r->group, group) == 0
            && strcmp(r->version, version) == 0)
        {
            return r;
        }
    }

    return NULL;
}


static int
gcp_mf_name_ok(const char *s)
{
    return s[0] != '\0' && strcmp(s, ".") != 0 && strcmp(s, "..") != 0
           && strpbrk(s, "/%?#") == NULL;
}


static void gcp_mf_got(void *arg, gcp_client_resp_t *resp);
static void gcp_mf_written(void *arg, gcp_client_resp_t *resp);


static int
gcp_mf_call(gcp_manifests_t *m, const char *method, const char *path,
    const json_t *body, gcp_client_done_pt done)
{
    gcp_str_t  s;

    s.data = NULL;

    if (body) {
        s = gcp_json_dump(m->req, body, 0);

        if (s.data == NULL) {
            return GCP_ENOMEM;
        }
    }

    m->busy = 1;
    gcp_client_call(m->api, m->req, method, path, NULL, (const char *) s.data,
                    &gcp_client_system_user, done, m);

    return GCP_OK;
}


/* Starts the next object of the pass, or ends the pass. */

static void
gcp_mf_next(gcp_manifests_t *m)
{
    const char            *ns, *name, *prefix;
    gcp_mf_item_t         *it;
    const gcp_resource_t  *r;

    /*
     * Requests may complete before gcp_client_call() returns (reads of the
     * embedded store do): their callbacks then leave the next object to
     * this loop instead of recursing.
     */

    m->running = 1;

    while (!m->stopped && !m->busy) {

        if (m->req) {
            gcp_arena_destroy(m->req);
            m->req = NULL;
        }

        while (m->cur < m->n && m->items[m->cur].state == GCP_MF_DONE) {
            m->cur++;
        }

        if (m->cur == m->n) {
            gcp_mf_pass_done(m);
            break;
        }

        it = &m->items[m->cur++];
        m->item = it;

        m->req = gcp_arena_create(8192);
        if (m->req == NULL) {
            gcp_mf_wait(m, it, "memory");
            continue;
        }

        r = gcp_mf_resource(m, it->obj);

        if (r == NULL) {
            gcp_mf_wait(m, it,
                        gcp_sprintf(m->req, "the resource of %s %s",
                          json_string_value(json_object_get(it->obj,
                                                            "apiVersion")),
                          json_string_value(json_object_get(it->obj,
                                                            "kind"))));
            continue;
        }

        name = gcp_meta_str(it->obj, "name");

        if (!gcp_mf_name_ok(name)) {
            gcp_mf_refused(m, it, "metadata.name %s", name[0]
                           ? "is not a name" : "is required");
            continue;
        }

        prefix = r->group[0]
                 ? gcp_sprintf(m->req, "/apis/%s/%s", r->group, r->version)
                 : gcp_sprintf(m->req, "/api/%s", r->version);

        if (r->namespaced) {
            ns = gcp_meta_str(it->obj, "namespace");

            if (ns[0] == '\0') {
                ns = "default";
                gcp_meta_set_str(it->obj, "namespace", ns);
            }

            if (!gcp_mf_name_ok(ns)) {
                gcp_mf_refused(m, it, "metadata.namespace %s",
                               "is not a name");
                continue;
            }

            m->coll = gcp_sprintf(m->req, "%s/namespaces/%s/%s", prefix, ns,
                                  r->name);

        } else {
            json_object_del(gcp_meta(it->obj), "namespace");
            m->coll = gcp_sprintf(m->req, "%s/%s", prefix, r->name);
        }

        m->path = gcp_sprintf(m->req, "%s/%s", m->coll, name);

        if (m->coll == NULL || m->path == NULL) {
            gcp_mf_wait(m, it, "memory");
            continue;
        }

        if (gcp_mf_call(m, "GET", m->path, NULL, gcp_mf_got) != GCP_OK) {
            gcp_mf_wait(m, it, "memory");
        }
    }

    m->running = 0;

    if (m->stopped && !m->busy) {
        gcp_mf_free(m);
    }
}


/* The Status message of an error response. */

static const char *
gcp_mf_message(gcp_client_resp_t *resp)
{
    const char  *s;

    s = json_string_value(json_object_get(resp->json, "message"));

    return s ? s : "the API server gave no reason";
}


/*
 * After an error: wait for what may come (a namespace, a resource being
 * established, a server error going away), or report the object refused.
 */

static void
gcp_mf_failed(gcp_manifests_t *m, gcp_mf_item_t *it, gcp_client_resp_t *resp)
{
    if (resp->status == 404 || resp->status == 429 || resp->status >= 500
        || (resp->status == 403
            && strstr(gcp_mf_message(resp), "is being terminated")))
    {
        gcp_mf_wait(m, it, gcp_mf_message(resp));
        return;
    }

    gcp_mf_refused(m, it, "%s", gcp_mf_message(resp));
}


/* After a response: the next object, unless gcp_mf_next() is running. */

static void
gcp_mf_resumed(gcp_manifests_t *m)
{
    m->busy = 0;

    if (m->running) {
        return;
    }

    if (m->stopped) {
        gcp_mf_free(m);
        return;
    }

    gcp_mf_next(m);
}


static void
gcp_mf_got(void *arg, gcp_client_resp_t *resp)
{
    gcp_manifests_t  *m = arg;

    json_t         *meta;
    const char     *rv, *have;
    gcp_mf_item_t  *it = m->item;

    if (m->stopped) {
        gcp_mf_resumed(m);
        return;
    }

    if (resp->status == 404) {
        /* absent: created (a missing namespace fails the create) */

        m->busy = 0;

        if (gcp_mf_call(m, "POST", m->coll, it->obj, gcp_mf_written)
            != GCP_OK)
        {
            gcp_mf_wait(m, it, "memory");
            gcp_mf_resumed(m);
        }

        return;
    }

    if (resp->status != 200) {
        gcp_mf_failed(m, it, resp);
        gcp_mf_resumed(m);
        return;
    }

    meta = json_object_get(resp->json, "metadata");
    have = json_string_value(json_object_get(json_object_get(meta,
                                                             "annotations"),
                                             GCP_MANIFESTS_DIGEST));

    if (have == NULL) {
        gcp_mf_report(m, 0, "gcp_manifests: %s: %s exists and was not made "
                      "from manifests: left as it is", it->where, m->path);
        it->state = GCP_MF_DONE;
        gcp_mf_resumed(m);
        return;
    }

    if (strcmp(have, it->digest) == 0) {
        it->state = GCP_MF_DONE;
        gcp_mf_resumed(m);
        return;
    }

    /* the file changed since the object was made from it */

    rv = json_string_value(json_object_get(meta, "resourceVersion"));
    m->busy = 0;

    if (rv == NULL
        || gcp_meta_set_str(it->obj, "resourceVersion", rv) != GCP_OK
        || gcp_mf_call(m, "PUT", m->path, it->obj, gcp_mf_written) != GCP_OK)
    {
        gcp_mf_wait(m, it, "memory");
        gcp_mf_resumed(m);
    }
}


static void
gcp_mf_written(void *arg, gcp_client_resp_t *resp)
{
    gcp_manifests_t  *m = arg;

    gcp_mf_item_t  *it = m->item;

    if (m->stopped) {
        gcp_mf_resumed(m);
        return;
    }

    json_object_del(gcp_meta(it->obj), "resourceVersion");

    if (resp->status == 200 || resp->status == 201) {
        m->applied++;
        gcp_mf_report(m, 0, "gcp_manifests: %s: %s %s", it->where,
                      resp->status == 201 ? "created" : "updated", m->path);
        it->state = GCP_MF_DONE;

    } else if (resp->status == 409
               && ++it->conflicts <= GCP_MANIFESTS_CONFLICTS)
    {
        /* made or changed by someone else meanwhile: look again */

        m->cur = it - m->items;

    } else {
        gcp_mf_failed(m, it, resp);
    }

    gcp_mf_resumed(m);
}
