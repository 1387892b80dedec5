
/*
 * Compiling the flowcontrol objects of the store (see gcp_fc_config.h).
 */

#include <stdlib.h>

#include "gcp_fc_bootstrap.h"
#include "gcp_fc_config_int.h"
#include "gcp_fc_types.h"
#include "gcp_object.h"


#define GCP_FC_PREFIX_PL  "/registry/" GCP_FC_STORAGE_PL "/"
#define GCP_FC_PREFIX_FS  "/registry/" GCP_FC_STORAGE_FS "/"


static const char *
gcp_fc_cstr(gcp_arena_t *a, const json_t *v)
{
    const char  *s;

    s = json_string_value(v);

    return gcp_strdup(a, s ? s : "");
}


static int
gcp_fc_compile_list(gcp_arena_t *a, const json_t *arr, gcp_fc_list_t *l)
{
    size_t   i;
    json_t  *v;

    l->n = json_array_size(arr);
    l->v = gcp_alloc(a, (l->n + 1) * sizeof(const char *));

    if (l->v == NULL) {
        return GCP_ENOMEM;
    }

    json_array_foreach(arr, i, v) {
        l->v[i] = gcp_fc_cstr(a, v);

        if (l->v[i] == NULL) {
            return GCP_ENOMEM;
        }
    }

    l->v[l->n] = NULL;
    l->all = l->n == 1 && strcmp(l->v[0], "*") == 0;

    return GCP_OK;
}


static int
gcp_fc_compile_subject(gcp_arena_t *a, const json_t *s, gcp_fc_subject_t *out)
{
    const char  *kind;

    kind = json_string_value(json_object_get(s, "kind"));
    kind = kind ? kind : "";

    if (strcmp(kind, "User") == 0) {
        out->kind = GCP_FC_SUBJECT_USER;
        out->name = gcp_fc_cstr(a, gcp_json_get(s, "user", "name", NULL));

    } else if (strcmp(kind, "Group") == 0) {
        out->kind = GCP_FC_SUBJECT_GROUP;
        out->name = gcp_fc_cstr(a, gcp_json_get(s, "group", "name", NULL));

    } else {
        out->kind = GCP_FC_SUBJECT_SA;
        out->name = gcp_fc_cstr(a, gcp_json_get(s, "serviceAccount", "name",
                                                NULL));
        out->ns = gcp_fc_cstr(a, gcp_json_get(s, "serviceAccount",
                                              "namespace", NULL));
    }

    return out->name ? GCP_OK : GCP_ENOMEM;
}


static int
gcp_fc_compile_policy(gcp_arena_t *a, const json_t *p, gcp_fc_policy_t *out)
{
    size_t   i;
    json_t  *v, *subjects, *rrules, *nrules;

    subjects = json_object_get(p, "subjects");
    rrules = json_object_get(p, "resourceRules");
    nrules = json_object_get(p, "nonResourceRules");

    out->nsubjects = json_array_size(subjects);
    out->nrrules = json_array_size(rrules);
    out->nnrules = json_array_size(nrules);

    out->subjects = gcp_calloc(a, (out->nsubjects + 1)
                                  * sizeof(gcp_fc_subject_t));
    out->rrules = gcp_calloc(a, (out->nrrules + 1) * sizeof(gcp_fc_rrule_t));
    out->nrules = gcp_calloc(a, (out->nnrules + 1) * sizeof(gcp_fc_nrule_t));

    if (out->subjects == NULL || out->rrules == NULL || out->nrules == NULL) {
        return GCP_ENOMEM;
    }

    json_array_foreach(subjects, i, v) {
        if (gcp_fc_compile_subject(a, v, &out->subjects[i]) != GCP_OK) {
            return GCP_ENOMEM;
        }
    }

    json_array_foreach(rrules, i, v) {
        out->rrules[i].cluster_scope = json_is_true(json_object_get(
                                           v, "clusterScope"));

        if (gcp_fc_compile_list(a, json_object_get(v, "verbs"),
                                &out->rrules[i].verbs) != GCP_OK
            || gcp_fc_compile_list(a, json_object_get(v, "apiGroups"),
                                   &out->rrules[i].groups) != GCP_OK
            || gcp_fc_compile_list(a, json_object_get(v, "resources"),
                                   &out->rrules[i].resources) != GCP_OK
            || gcp_fc_compile_list(a, json_object_get(v, "namespaces"),
                                   &out->rrules[i].namespaces) != GCP_OK)
        {
            return GCP_ENOMEM;
        }
    }

    json_array_foreach(nrules, i, v) {
        if (gcp_fc_compile_list(a, json_object_get(v, "verbs"),
                                &out->nrules[i].verbs) != GCP_OK
            || gcp_fc_compile_list(a, json_object_get(v, "nonResourceURLs"),
                                   &out->nrules[i].urls) != GCP_OK)
        {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


/* A PriorityLevelConfiguration as the dispatcher takes it. */
static int
gcp_fc_compile_level(gcp_arena_t *a, const json_t *obj,
    gcp_apf_level_conf_t *l)
{
    json_t      *spec, *cfg, *q, *v;
    const char  *type, *lr;

    spec = json_object_get(obj, "spec");
    type = json_string_value(json_object_get(spec, "type"));

    l->name = gcp_fc_cstr(a, gcp_json_get(obj, "metadata", "name", NULL));
    l->uid = gcp_fc_cstr(a, gcp_json_get(obj, "metadata", "uid", NULL));
    l->exempt = type && strcmp(type, "Exempt") == 0;
    l->borrowing = -1;

    if (l->name == NULL || l->uid == NULL) {
        return GCP_ENOMEM;
    }

    cfg = json_object_get(spec, l->exempt ? "exempt" : "limited");

    l->shares = (int) gcp_fc_int(cfg, "nominalConcurrencyShares", NULL,
                                 l->exempt ? 0 : GCP_FC_DEFAULT_SHARES);
    l->lendable = (int) gcp_fc_int(cfg, "lendablePercent", NULL, 0);

    v = json_object_get(cfg, "borrowingLimitPercent");

    if (!l->exempt && json_is_integer(v)) {
        l->borrowing = (int) json_integer_value(v);
    }

    lr = json_string_value(gcp_json_get(cfg, "limitResponse", "type", NULL));
    q = gcp_json_get(cfg, "limitResponse", "queuing", NULL);

    if (!l->exempt && lr && strcmp(lr, "Queue") == 0 && json_is_object(q)) {
        l->queues = (int) gcp_fc_int(q, "queues", NULL,
                                     GCP_FC_DEFAULT_QUEUES);
        l->hand_size = (int) gcp_fc_int(q, "handSize", NULL,
                                        GCP_FC_DEFAULT_HAND_SIZE);
        l->queue_length = (int) gcp_fc_int(q, "queueLengthLimit", NULL,
                                           GCP_FC_DEFAULT_QUEUE_LENGTH);
    }

    return GCP_OK;
}


static int
gcp_fc_schema_cmp(const void *a, const void *b)
{
    const gcp_fc_schema_t  *x = a;
    const gcp_fc_schema_t  *y = b;

    if (x->precedence != y->precedence) {
        return x->precedence < y->precedence ? -1 : 1;
    }

    return strcmp(x->name, y->name);
}


static int
gcp_fc_level_index(const gcp_fc_config_t *c, const char *name, size_t *i)
{
    for (*i = 0; *i < c->nlevels; (*i)++) {
        if (strcmp(c->levels[*i].name, name) == 0) {
            return 1;
        }
    }

    return 0;
}


static int
gcp_fc_has_schema(const gcp_fc_config_t *c, const char *name)
{
    size_t  i;

    for (i = 0; i < c->nschemas; i++) {
        if (strcmp(c->schemas[i].name, name) == 0) {
            return 1;
        }
    }

    return 0;
}


static int
gcp_fc_compile_schema(gcp_fc_config_t *c, const json_t *obj)
{
    size_t            i, level;
    json_t           *spec, *rules, *v;
    const char       *pl, *dm;
    gcp_fc_schema_t  *s;

    spec = json_object_get(obj, "spec");
    pl = json_string_value(gcp_json_get(spec, "priorityLevelConfiguration",
                                        "name", NULL));

    if (pl == NULL || !gcp_fc_level_index(c, pl, &level)) {
        /* dangling: ignored */
        return GCP_OK;
    }

    s = &c->schemas[c->nschemas];
    memset(s, 0, sizeof(gcp_fc_schema_t));

    s->name = gcp_fc_cstr(c->arena, gcp_json_get(obj, "metadata", "name",
                                                 NULL));
    s->uid = gcp_fc_cstr(c->arena, gcp_json_get(obj, "metadata", "uid",
                                                NULL));
    s->precedence = gcp_fc_int(spec, "matchingPrecedence", NULL,
                               GCP_FC_DEFAULT_PRECEDENCE);
    s->level = level;

    dm = json_string_value(gcp_json_get(spec, "distinguisherMethod", "type",
                                        NULL));

    if (dm && strcmp(dm, "ByUser") == 0) {
        s->dm = GCP_FC_DM_USER;

    } else if (dm && strcmp(dm, "ByNamespace") == 0) {
        s->dm = GCP_FC_DM_NAMESPACE;
    }

    rules = json_object_get(spec, "rules");
    s->nrules = json_array_size(rules);
    s->rules = gcp_calloc(c->arena, (s->nrules + 1) * sizeof(gcp_fc_policy_t));

    if (s->name == NULL || s->uid == NULL || s->rules == NULL) {
        return GCP_ENOMEM;
    }

    json_array_foreach(rules, i, v) {
        if (gcp_fc_compile_policy(c->arena, v, &s->rules[i]) != GCP_OK) {
            return GCP_ENOMEM;
        }
    }

    c->nschemas++;

    return GCP_OK;
}


/* The stored objects of one kind, then the mandatory ones missing. */
static int
gcp_fc_compile_kind(gcp_fc_config_t *c, const gcp_kv_t *kvs, size_t n,
    int pl)
{
    int           is_pl, mandatory;
    size_t        i, k, plen, at;
    json_t       *obj;
    const char   *prefix, *name;

    prefix = pl ? GCP_FC_PREFIX_PL : GCP_FC_PREFIX_FS;
    plen = strlen(prefix);

    for (i = 0; i <= n + gcp_fc_bootstrap_count(); i++) {
        if (i < n) {
            if (kvs[i].key.len <= plen
                || memcmp(kvs[i].key.data, prefix, plen) != 0)
            {
                continue;
            }

            obj = gcp_object_decode(c->arena, kvs[i].value,
                                    kvs[i].mod_revision);

        } else if (i == n) {
            continue;

        } else {
            /* a mandatory object the store does not hold (yet) */
            k = i - n - 1;
            obj = gcp_json_arena(c->arena,
                                 gcp_fc_bootstrap_object(k, &is_pl,
                                                         &mandatory));

            if (obj == NULL || is_pl != pl || !mandatory) {
                continue;
            }

            name = json_string_value(gcp_json_get(obj, "metadata", "name",
                                                  NULL));

            if (pl ? gcp_fc_level_index(c, name, &at)
                   : gcp_fc_has_schema(c, name))
            {
                continue;
            }

            json_object_set_new(json_object_get(obj, "metadata"), "uid",
                                json_string(""));
        }

        if (obj == NULL) {
            continue;
        }

        if (pl) {
            if (gcp_fc_compile_level(c->arena, obj, &c->levels[c->nlevels])
                != GCP_OK)
            {
                return GCP_ENOMEM;
            }

            c->nlevels++;

        } else if (gcp_fc_compile_schema(c, obj) != GCP_OK) {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


gcp_fc_config_t *
gcp_fc_config_build(const gcp_kv_t *kvs, size_t n)
{
    size_t            max;
    gcp_arena_t      *a;
    gcp_fc_config_t  *c;

    a = gcp_arena_create(0);
    if (a == NULL) {
        return NULL;
    }

    c = gcp_calloc(a, sizeof(gcp_fc_config_t));
    max = n + gcp_fc_bootstrap_count() + 1;

    if (c == NULL) {
        gcp_arena_destroy(a);
        return NULL;
    }

    c->arena = a;
    c->levels = gcp_calloc(a, max * sizeof(gcp_apf_level_conf_t));
    c->schemas = gcp_calloc(a, max * sizeof(gcp_fc_schema_t));

    if (c->levels == NULL || c->schemas == NULL
        || gcp_fc_compile_kind(c, kvs, n, 1) != GCP_OK
        || gcp_fc_compile_kind(c, kvs, n, 0) != GCP_OK)
    {
        gcp_arena_destroy(a);
        return NULL;
    }

    qsort(c->schemas, c->nschemas, sizeof(gcp_fc_schema_t),
          gcp_fc_schema_cmp);

    return c;
}


void
gcp_fc_config_free(gcp_fc_config_t *c)
{
    if (c) {
        gcp_arena_destroy(c->arena);
    }
}


size_t
gcp_fc_config_levels(const gcp_fc_config_t *c,
    const gcp_apf_level_conf_t **levels)
{
    *levels = c->levels;

    return c->nlevels;
}
