
/*
 * The upstream's OpenAPI documents narrowed to the surface (gcp_front.h):
 * a path is kept when it is a fronted group-version's discovery path, or
 * a resource path of an exposed resource (namespaced when the resource is
 * served in some namespaces only, its subresource exposed), with the
 * operations whose verb (x-kubernetes-action, else the method) the
 * surface exposes; the schemas are those the kept paths reach.
 */

#include "gcp_aggregator.h"
#include "gcp_front.h"


#define GCP_FRONT_OA_SEGS  12

#define GCP_FRONT_OA_DROP       0
#define GCP_FRONT_OA_RESOURCE   1
#define GCP_FRONT_OA_DISCOVERY  2


/* A path split at its slashes (the segments point into buf). */
typedef struct {
    char        buf[512];
    const char *seg[GCP_FRONT_OA_SEGS];
    size_t      n;
} gcp_front_oa_split_t;


static int
gcp_front_oa_split(gcp_front_oa_split_t *s, const char *path)
{
    char    *p, *slash;
    size_t   len;

    len = strlen(path);

    if (path[0] != '/' || len >= sizeof(s->buf)) {
        return 0;
    }

    memcpy(s->buf, path + 1, len);
    s->n = 0;

    for (p = s->buf; *p; p = slash + 1) {
        if (s->n == GCP_FRONT_OA_SEGS) {
            return 0;
        }

        s->seg[s->n++] = p;
        slash = strchr(p, '/');

        if (slash == NULL) {
            break;
        }

        *slash = '\0';
    }

    return 1;
}


static int
gcp_front_oa_group(const gcp_front_conf_t *conf, const char *group)
{
    size_t  i;

    for (i = 0; i < conf->nexpose; i++) {
        if (strcmp(conf->expose[i].group, group) == 0) {
            return 1;
        }
    }

    return 0;
}


/*
 * What path is for the surface: GCP_FRONT_OA_DROP, _DISCOVERY (a fronted
 * group's or group-version's own document) or _RESOURCE with *e its entry.
 */
static int
gcp_front_oa_classify(const gcp_front_conf_t *conf, const char *path,
    const gcp_front_expose_t **e)
{
    int                    namespaced;
    size_t                 i, n;
    const char            *group, *version, *resource, *sub;
    gcp_front_oa_split_t   s;

    if (!gcp_front_oa_split(&s, path)) {
        return GCP_FRONT_OA_DROP;
    }

    /* a trailing slash: "/api/v1/" */

    n = s.n;

    if (n && s.seg[n - 1][0] == '\0') {
        n--;
    }

    if (n >= 2 && strcmp(s.seg[0], "api") == 0) {
        group = "";
        i = 1;

    } else if (n >= 2 && strcmp(s.seg[0], "apis") == 0) {
        group = s.seg[1];

        if (n == 2) {
            return gcp_front_oa_group(conf, group) ? GCP_FRONT_OA_DISCOVERY
                                                   : GCP_FRONT_OA_DROP;
        }

        i = 2;

    } else {
        return GCP_FRONT_OA_DROP;
    }

    version = s.seg[i++];

    if (!gcp_front_gv(conf, group, version)) {
        return GCP_FRONT_OA_DROP;
    }

    if (i == n) {
        return GCP_FRONT_OA_DISCOVERY;
    }

    if (strcmp(s.seg[i], "watch") == 0) {
        i++;
    }

    namespaced = 0;

    if (i + 2 < n && strcmp(s.seg[i], "namespaces") == 0
        && strcmp(s.seg[i + 1], "{namespace}") == 0)
    {
        namespaced = 1;
        i += 2;
    }

    if (i >= n) {
        return GCP_FRONT_OA_DROP;
    }

    resource = s.seg[i];
    sub = i + 2 < n ? s.seg[i + 2] : NULL;
    *e = gcp_front_find(conf, group, version, resource);

    /* served in some namespaces only: no cluster-wide path */

    if (*e == NULL || ((*e)->namespaces && !namespaced)
        || (sub && !gcp_front_listed((*e)->subresources, sub)))
    {
        return GCP_FRONT_OA_DROP;
    }

    return GCP_FRONT_OA_RESOURCE;
}


static const struct {
    const char  *name;
    unsigned     bit;
} gcp_front_oa_actions[] = {
    { "get", GCP_VERB_GET },
    { "list", GCP_VERB_LIST },
    { "watch", GCP_VERB_WATCH },
    { "watchlist", GCP_VERB_WATCH },
    { "post", GCP_VERB_CREATE },
    { "put", GCP_VERB_UPDATE },
    { "patch", GCP_VERB_PATCH },
    { "delete", GCP_VERB_DELETE },
    { "deletecollection", GCP_VERB_DELETECOLLECTION },
    { "head", GCP_VERB_GET },
    { "options", GCP_VERB_GET },
    { NULL, 0 }
};


/*
 * The verb of the operation at method: its x-kubernetes-action, else
 * (a "connect" of exec, attach, proxy) the method's, as a request's verb
 * is; 0 when neither names one (not an operation).
 */
static unsigned
gcp_front_oa_verb(const char *method, const json_t *op)
{
    size_t       i;
    const char  *action;

    action = json_string_value(json_object_get(op, "x-kubernetes-action"));

    for (i = 0; action && gcp_front_oa_actions[i].name; i++) {
        if (strcmp(gcp_front_oa_actions[i].name, action) == 0) {
            return gcp_front_oa_actions[i].bit;
        }
    }

    for (i = 4; gcp_front_oa_actions[i].name; i++) {
        if (strcmp(gcp_front_oa_actions[i].name, method) == 0) {
            return gcp_front_oa_actions[i].bit;
        }
    }

    return strcmp(method, "get") == 0 ? GCP_VERB_GET : 0;
}


/* The path item narrowed to the verbs of e; NULL: nothing left (or no
 * memory: *err set). */
static json_t *
gcp_front_oa_item(const gcp_front_expose_t *e, const json_t *item, int *err)
{
    int          ops;
    json_t      *out, *v;
    unsigned     bit;
    const char  *key;

    out = json_object();
    if (out == NULL) {
        *err = 1;
        return NULL;
    }

    ops = 0;

    json_object_foreach((json_t *) item, key, v) {
        bit = json_is_object(v) ? gcp_front_oa_verb(key, v) : 0;

        if (bit && e && (e->verbs & bit) == 0) {
            continue;
        }

        if (json_object_set(out, key, v) != 0) {
            json_decref(out);
            *err = 1;
            return NULL;
        }

        ops += bit != 0;
    }

    if (ops == 0) {
        json_decref(out);
        return NULL;
    }

    return out;
}


/* Collects into set the names of the "$ref": "PREFIXNAME" in v. */
static int
gcp_front_oa_refs(const json_t *v, const char *prefix, size_t plen,
    json_t *set)
{
    size_t       i;
    json_t      *m;
    const char  *key, *ref;

    if (json_is_array(v)) {
        json_array_foreach((json_t *) v, i, m) {
            if (gcp_front_oa_refs(m, prefix, plen, set) != GCP_OK) {
                return GCP_ENOMEM;
            }
        }

        return GCP_OK;
    }

    if (!json_is_object(v)) {
        return GCP_OK;
    }

    json_object_foreach((json_t *) v, key, m) {
        ref = json_string_value(m);

        if (ref && strcmp(key, "$ref") == 0
            && strncmp(ref, prefix, plen) == 0)
        {
            if (json_object_set_new(set, ref + plen, json_true()) != 0) {
                return GCP_ENOMEM;
            }

            continue;
        }

        if (gcp_front_oa_refs(m, prefix, plen, set) != GCP_OK) {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


int
gcp_front_openapi_prune(json_t *doc)
{
    int          v3, rc;
    size_t       plen, before;
    json_t      *schemas, *set, *walked, *kept, *v;
    const char  *prefix, *key;

    v3 = json_object_get(doc, "openapi") != NULL;
    schemas = v3 ? json_object_get(json_object_get(doc, "components"),
                                   "schemas")
                 : json_object_get(doc, "definitions");

    if (!json_is_object(schemas)) {
        return GCP_OK;
    }

    prefix = v3 ? "#/components/schemas/" : "#/definitions/";
    plen = strlen(prefix);

    set = json_object();
    walked = json_object();
    kept = json_object();
    rc = GCP_ENOMEM;

    if (set == NULL || walked == NULL || kept == NULL
        || gcp_front_oa_refs(json_object_get(doc, "paths"), prefix, plen, set)
           != GCP_OK)
    {
        goto done;
    }

    /* the schemas the reached ones reach, until nothing is new */

    do {
        before = json_object_size(walked);

        json_object_foreach(set, key, v) {
            if (json_object_get(walked, key)) {
                continue;
            }

            if (json_object_set_new(walked, key, json_true()) != 0
                || gcp_front_oa_refs(json_object_get(schemas, key), prefix,
                                     plen, set) != GCP_OK)
            {
                goto done;
            }

            break;                      /* set changed: iterate again */
        }

    } while (json_object_size(walked) != before);

    /* in the document's order */

    json_object_foreach(schemas, key, v) {
        if (json_object_get(set, key)
            && json_object_set(kept, key, v) != 0)
        {
            goto done;
        }
    }

    json_object_clear(schemas);
    rc = json_object_update(schemas, kept) == 0 ? GCP_OK : GCP_ENOMEM;

done:

    json_decref(set);
    json_decref(walked);
    json_decref(kept);

    return rc;
}


json_t *
gcp_front_openapi(const gcp_front_conf_t *conf, const json_t *doc)
{
    int                        err, kind;
    json_t                    *out, *paths, *item, *v;
    const char                *path;
    const gcp_front_expose_t  *e;

    if (!json_is_object(doc)
        || !json_is_object(json_object_get(doc, "paths")))
    {
        return NULL;
    }

    out = json_deep_copy(doc);
    paths = out ? json_object() : NULL;

    if (paths == NULL || json_object_set_new(out, "paths", paths) != 0) {
        json_decref(out);
        return NULL;
    }

    err = 0;

    json_object_foreach(json_object_get(doc, "paths"), path, v) {
        e = NULL;
        kind = gcp_front_oa_classify(conf, path, &e);

        if (kind == GCP_FRONT_OA_DROP || !json_is_object(v)) {
            continue;
        }

        item = gcp_front_oa_item(kind == GCP_FRONT_OA_RESOURCE ? e : NULL,
                                 v, &err);

        if (err) {
            json_decref(out);
            return NULL;
        }

        if (item && json_object_set_new(paths, path, item) != 0) {
            json_decref(out);
            return NULL;
        }
    }

    if (gcp_front_openapi_prune(out) != GCP_OK) {
        json_decref(out);
        return NULL;
    }

    return out;
}
