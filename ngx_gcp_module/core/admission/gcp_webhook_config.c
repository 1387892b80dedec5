
/*
 * The webhook configurations of one kind, kept by every worker from a
 * store watch (see gcp_webhook.h): each configuration compiled in an arena
 * of its own when it changes, a set of every webhook rebuilt on the first
 * request after a change.  Configurations and sets are reference counted:
 * a request keeps the set it started with, and what it points to, until
 * it ends, whatever changes meanwhile.
 */

#include <stdlib.h>

#include "gcp_object.h"
#include "gcp_admissionreg.h"
#include "gcp_webhook.h"


#define GCP_WHCFG_MAX_CONNS  64


typedef struct {
    gcp_arena_t         *arena;
    int                  refs;
    const char          *name;
    int64_t              revision;      /* the stored one compiled */
    gcp_webhook_t       *hooks;
    size_t               n;
} gcp_whcfg_t;


static void
gcp_whcfg_unref(gcp_whcfg_t *c)
{
    if (--c->refs == 0) {
        gcp_arena_destroy(c->arena);
    }
}


/* The strings of a JSON array, NULL-terminated (borrowed from it). */
static const char * const *
gcp_whcfg_strings(gcp_arena_t *a, const json_t *list)
{
    size_t        i, n;
    json_t       *v;
    const char  **out;

    out = gcp_calloc(a, (json_array_size(list) + 1) * sizeof(char *));
    if (out == NULL) {
        return NULL;
    }

    n = 0;

    json_array_foreach(list, i, v) {
        if (json_is_string(v)) {
            out[n++] = json_string_value(v);
        }
    }

    return out;
}


static int
gcp_whcfg_rule(gcp_arena_t *a, const json_t *j, gcp_webhook_rule_t *r)
{
    size_t       i, k;
    json_t      *v;
    const char  *s, *scope;

    static const struct {
        const char  *name;
        unsigned     bits;
    } ops[] = {
        { "*", GCP_WH_OP_CREATE | GCP_WH_OP_UPDATE | GCP_WH_OP_DELETE
               | GCP_WH_OP_CONNECT },
        { "CREATE", GCP_WH_OP_CREATE },
        { "UPDATE", GCP_WH_OP_UPDATE },
        { "DELETE", GCP_WH_OP_DELETE },
        { "CONNECT", GCP_WH_OP_CONNECT },
    };

    memset(r, 0, sizeof(gcp_webhook_rule_t));

    json_array_foreach(json_object_get(j, "operations"), i, v) {
        s = json_is_string(v) ? json_string_value(v) : "";

        for (k = 0; k < gcp_nelems(ops); k++) {
            if (strcmp(s, ops[k].name) == 0) {
                r->ops |= ops[k].bits;
            }
        }
    }

    r->groups = gcp_whcfg_strings(a, json_object_get(j, "apiGroups"));
    r->versions = gcp_whcfg_strings(a, json_object_get(j, "apiVersions"));
    r->resources = gcp_whcfg_strings(a, json_object_get(j, "resources"));

    scope = json_string_value(json_object_get(j, "scope"));

    r->scope = scope && strcmp(scope, "Cluster") == 0
               ? GCP_WH_SCOPE_CLUSTER
               : scope && strcmp(scope, "Namespaced") == 0
               ? GCP_WH_SCOPE_NAMESPACED : GCP_WH_SCOPE_ANY;

    return r->groups && r->versions && r->resources ? GCP_OK : GCP_ENOMEM;
}


/* A selector: NULL when it selects everything (absent, null or {}). */
static int
gcp_whcfg_selector(gcp_arena_t *a, const json_t *j,
    gcp_label_selector_t **out, const char **err)
{
    int          rc;
    const char  *msg;

    *out = NULL;

    if (!json_is_object(j)) {
        return GCP_OK;
    }

    rc = gcp_label_selector_from_json(a, j, out, &msg);

    if (rc == GCP_EBADREQUEST) {
        *err = msg;
        return GCP_OK;
    }

    if (rc == GCP_OK && gcp_label_selector_empty(*out)) {
        *out = NULL;
    }

    return rc;
}


static int
gcp_whcfg_hook(gcp_arena_t *a, gcp_webhook_t *h, const json_t *j,
    const char *config, size_t index, int mutating)
{
    size_t       i;
    json_t      *v;
    const char  *s, *err;

    memset(h, 0, sizeof(gcp_webhook_t));

    h->config = config;
    h->index = index;
    h->mutating = mutating ? 1 : 0;
    h->name = json_string_value(json_object_get(j, "name"));
    h->name = h->name ? h->name : "";
    h->id = gcp_sprintf(a, "%s/%zu", config, index);

    h->nrules = json_array_size(json_object_get(j, "rules"));
    h->rules = gcp_calloc(a, (h->nrules + 1) * sizeof(gcp_webhook_rule_t));

    if (h->id == NULL || h->rules == NULL) {
        return GCP_ENOMEM;
    }

    json_array_foreach(json_object_get(j, "rules"), i, v) {
        if (gcp_whcfg_rule(a, v, &h->rules[i]) != GCP_OK) {
            return GCP_ENOMEM;
        }
    }

    s = json_string_value(json_object_get(j, "failurePolicy"));
    h->ignore = s && strcmp(s, "Ignore") == 0;

    s = json_string_value(json_object_get(j, "matchPolicy"));
    h->equivalent = s == NULL || strcmp(s, "Exact") != 0;

    s = json_string_value(json_object_get(j, "reinvocationPolicy"));
    h->reinvoke = mutating && s && strcmp(s, "IfNeeded") == 0;

    s = json_string_value(json_object_get(j, "sideEffects"));
    h->side_effects = s == NULL ? GCP_WH_SE_NIL
                      : strcmp(s, "None") == 0
                        || strcmp(s, "NoneOnDryRun") == 0 ? GCP_WH_SE_NONE
                      : GCP_WH_SE_SOME;

    v = json_object_get(j, "timeoutSeconds");
    h->timeout = json_is_integer(v) ? (int) json_integer_value(v) : 10;
    h->timeout = gcp_max(1, gcp_min(h->timeout, 30));

    h->conditions = json_array_size(json_object_get(j, "matchConditions"))
                    > 0;

    json_array_foreach(json_object_get(j, "admissionReviewVersions"), i, v) {
        s = json_string_value(v);

        if (s && (strcmp(s, "v1") == 0 || strcmp(s, "v1beta1") == 0)) {
            h->review = s;
            break;
        }
    }

    if (gcp_whcfg_selector(a, json_object_get(j, "namespaceSelector"),
                           &h->ns_sel, &h->sel_error) != GCP_OK
        || gcp_whcfg_selector(a, json_object_get(j, "objectSelector"),
                              &h->obj_sel, &h->sel_error) != GCP_OK)
    {
        return GCP_ENOMEM;
    }

    err = NULL;

    if (gcp_webhook_client_parse(a, json_object_get(j, "clientConfig"),
                                 &h->client, &err) == GCP_ENOMEM)
    {
        return GCP_ENOMEM;
    }

    h->error = err;

    return GCP_OK;
}


/* Compiles a stored configuration.  Returns it (refs 1), or NULL. */
static gcp_whcfg_t *
gcp_whcfg_compile(gcp_str_t value, int mutating)
{
    size_t        i;
    json_t       *obj, *hook;
    gcp_arena_t  *a;
    gcp_whcfg_t  *c;

    a = gcp_arena_create(0);
    if (a == NULL) {
        return NULL;
    }

    c = gcp_calloc(a, sizeof(gcp_whcfg_t));
    obj = gcp_object_decode(a, value, 0);

    if (c == NULL || obj == NULL) {
        gcp_arena_destroy(a);
        return NULL;
    }

    c->arena = a;
    c->refs = 1;
    c->name = gcp_meta_str(obj, "name");
    c->n = json_array_size(json_object_get(obj, "webhooks"));
    c->hooks = gcp_calloc(a, (c->n + 1) * sizeof(gcp_webhook_t));

    if (c->hooks == NULL) {
        gcp_arena_destroy(a);
        return NULL;
    }

    json_array_foreach(json_object_get(obj, "webhooks"), i, hook) {
        if (gcp_whcfg_hook(a, &c->hooks[i], hook, c->name, i, mutating)
            != GCP_OK)
        {
            gcp_arena_destroy(a);
            return NULL;
        }
    }

    return c;
}


/* ------------------------------------------------------------ sets */


static void
gcp_whset_unref(void *data)
{
    size_t              i;
    gcp_webhook_set_t  *s = data;

    if (s == NULL || --s->refs > 0) {
        return;
    }

    for (i = 0; i < s->ncfgs; i++) {
        gcp_whcfg_unref(s->cfgs[i]);
    }

    free(s->cfgs);
    free(s->hooks);
    free(s);
}


static gcp_webhook_set_t *
gcp_whset_build(gcp_webhook_plugin_t *p)
{
    size_t              i, j, n;
    gcp_whcfg_t        *c;
    gcp_webhook_set_t  *s;

    n = 0;

    for (i = 0; i < p->ncfgs; i++) {
        n += ((gcp_whcfg_t *) p->cfgs[i])->n;
    }

    s = calloc(1, sizeof(gcp_webhook_set_t));
    if (s == NULL) {
        return NULL;
    }

    s->hooks = calloc(n + 1, sizeof(gcp_webhook_t *));
    s->cfgs = calloc(p->ncfgs + 1, sizeof(void *));

    if (s->hooks == NULL || s->cfgs == NULL) {
        free(s->hooks);
        free(s->cfgs);
        free(s);
        return NULL;
    }

    s->refs = 1;

    for (i = 0; i < p->ncfgs; i++) {
        c = p->cfgs[i];
        c->refs++;
        s->cfgs[s->ncfgs++] = c;

        for (j = 0; j < c->n; j++) {
            s->hooks[s->n++] = &c->hooks[j];
        }
    }

    return s;
}


gcp_webhook_set_t *
gcp_webhook_config_get(gcp_webhook_plugin_t *p, gcp_arena_t *a)
{
    if (p->set == NULL) {
        p->set = gcp_whset_build(p);
        if (p->set == NULL) {
            return NULL;
        }
    }

    p->set->refs++;

    if (gcp_arena_cleanup(a, gcp_whset_unref, p->set) != GCP_OK) {
        return NULL;
    }

    return p->set;
}


static void
gcp_whset_drop(gcp_webhook_plugin_t *p)
{
    gcp_whset_unref(p->set);
    p->set = NULL;
}


/* ------------------------------------------------------------ the copy */


static gcp_str_t
gcp_whcfg_prefix(const gcp_webhook_plugin_t *p)
{
    gcp_str_t  s;

    s.data = p->mutating
             ? "/registry/" GCP_ADMISSIONREG_GROUP
               "/mutatingwebhookconfigurations/"
             : "/registry/" GCP_ADMISSIONREG_GROUP
               "/validatingwebhookconfigurations/";
    s.len = strlen(s.data);

    return s;
}


/* Drops the configurations (sets still held by requests keep theirs). */
static void
gcp_whcfg_clear(gcp_webhook_plugin_t *p)
{
    size_t  i;

    for (i = 0; i < p->ncfgs; i++) {
        gcp_whcfg_unref(p->cfgs[i]);
    }

    free(p->cfgs);
    p->cfgs = NULL;
    p->ncfgs = 0;
    gcp_whset_drop(p);
}


/*
 * The mirror changed: the configurations again, in key (name) order, each
 * compiled anew unless its stored revision is the one already compiled.
 * Out of memory: the previous ones stay until the next change.
 */
static void
gcp_whcfg_changed(gcp_mirror_t *m, void *arg)
{
    size_t                 i, j, n, plen;
    void                 **v;
    gcp_str_t              prefix;
    gcp_whcfg_t           *c, *old;
    const gcp_kv_t        *kvs;
    gcp_webhook_plugin_t  *p = arg;

    prefix = gcp_whcfg_prefix(p);
    plen = prefix.len;

    n = gcp_mirror_entries(m, &kvs);

    v = calloc(n ? n : 1, sizeof(void *));
    if (v == NULL) {
        return;
    }

    j = 0;      /* the previous configurations, in the same order */

    for (i = 0; i < n; i++) {
        c = NULL;

        while (j < p->ncfgs) {
            old = p->cfgs[j];

            if (strncmp(old->name, kvs[i].key.data + plen,
                        kvs[i].key.len - plen) >= 0)
            {
                break;
            }

            j++;
        }

        if (j < p->ncfgs) {
            old = p->cfgs[j];

            if (old->revision == kvs[i].mod_revision
                && strlen(old->name) == kvs[i].key.len - plen
                && memcmp(old->name, kvs[i].key.data + plen,
                          kvs[i].key.len - plen) == 0)
            {
                old->refs++;
                c = old;
            }
        }

        if (c == NULL) {
            c = gcp_whcfg_compile(kvs[i].value, p->mutating);
            if (c == NULL) {
                while (i--) {
                    gcp_whcfg_unref(v[i]);
                }

                free(v);
                return;
            }

            c->revision = kvs[i].mod_revision;
        }

        v[i] = c;
    }

    gcp_whcfg_clear(p);

    p->cfgs = v;
    p->ncfgs = n;
}


int
gcp_webhook_config_start(gcp_webhook_plugin_t *p)
{
    p->mirror = gcp_mirror_create(p->api->store, p->api->conf.loop,
                                  gcp_whcfg_prefix(p).data,
                                  gcp_whcfg_changed, p);

    return p->mirror ? GCP_OK : GCP_ENOMEM;
}


void
gcp_webhook_config_stop(gcp_webhook_plugin_t *p)
{
    gcp_mirror_free(p->mirror);
    p->mirror = NULL;

    gcp_whcfg_clear(p);
}


gcp_webhook_plugin_t *
gcp_webhook_plugin_create(gcp_api_t *api, int mutating)
{
    gcp_webhook_plugin_t  *p;

    p = calloc(1, sizeof(gcp_webhook_plugin_t));
    if (p == NULL) {
        return NULL;
    }

    p->api = api;
    p->mutating = mutating ? 1 : 0;
    p->http = gcp_http_create(api->conf.loop, GCP_WHCFG_MAX_CONNS);

    if (p->http == NULL || gcp_webhook_config_start(p) != GCP_OK) {
        gcp_webhook_plugin_free(p);
        return NULL;
    }

    return p;
}


void
gcp_webhook_plugin_free(void *data)
{
    gcp_webhook_plugin_t  *p = data;

    if (p == NULL) {
        return;
    }

    gcp_webhook_config_stop(p);
    gcp_http_destroy(p->http);
    free(p);
}
