
/*
 * The bootstrap configuration of API Priority and Fairness (see
 * gcp_fc_bootstrap.h).  The specs are written in their v1 form after
 * defaulting, as the API stores them.
 */

#include <stdlib.h>
#include <strings.h>

#include "gcp_fc_bootstrap.h"
#include "gcp_fc_types.h"
#include "gcp_fc_validation.h"
#include "gcp_object.h"
#include "gcp_rand.h"
#include "gcp_seed.h"
#include "gcp_time.h"


/* rule fragments */

#define GCP_FC_ALL_RESOURCES                                                  \
    "\"resourceRules\":[{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],"           \
    "\"resources\":[\"*\"],\"clusterScope\":true,\"namespaces\":[\"*\"]}]"

#define GCP_FC_ALL_NONRESOURCES                                               \
    "\"nonResourceRules\":[{\"verbs\":[\"*\"],\"nonResourceURLs\":[\"*\"]}]"

#define GCP_FC_ALL  GCP_FC_ALL_RESOURCES "," GCP_FC_ALL_NONRESOURCES

#define GCP_FC_GROUP_SUBJECT(g)                                               \
    "{\"kind\":\"Group\",\"group\":{\"name\":\"" g "\"}}"

#define GCP_FC_USER_SUBJECT(u)                                                \
    "{\"kind\":\"User\",\"user\":{\"name\":\"" u "\"}}"

#define GCP_FC_SA_SUBJECT(name)                                               \
    "{\"kind\":\"ServiceAccount\",\"serviceAccount\":"                       \
    "{\"namespace\":\"kube-system\",\"name\":\"" name "\"}}"

#define GCP_FC_EVERYONE                                                       \
    GCP_FC_GROUP_SUBJECT("system:unauthenticated") ","                       \
    GCP_FC_GROUP_SUBJECT("system:authenticated")

#define GCP_FC_LEADER_VERBS  "[\"get\",\"create\",\"update\"]"

#define GCP_FC_LEASES                                                         \
    "{\"verbs\":" GCP_FC_LEADER_VERBS ",\"apiGroups\":"                      \
    "[\"coordination.k8s.io\"],\"resources\":[\"leases\"],"                  \
    "\"namespaces\":[\"*\"]}"

/* A FlowSchema spec: PL name, precedence, distinguisher, rules. */
#define GCP_FC_FS(pl, prec, dm, rules)                                        \
    "{\"priorityLevelConfiguration\":{\"name\":\"" pl "\"},"                 \
    "\"matchingPrecedence\":" #prec "," dm "\"rules\":[" rules "]}"

#define GCP_FC_BY_USER       "\"distinguisherMethod\":{\"type\":\"ByUser\"},"
#define GCP_FC_BY_NAMESPACE                                                   \
    "\"distinguisherMethod\":{\"type\":\"ByNamespace\"},"

/* A queuing Limited level: shares, lendable percent, queues, hand size. */
#define GCP_FC_QUEUING(ncs, lendable, queues, hand)                           \
    "{\"type\":\"Limited\",\"limited\":{\"nominalConcurrencyShares\":" #ncs  \
    ",\"limitResponse\":{\"type\":\"Queue\",\"queuing\":{\"queues\":"        \
    #queues ",\"handSize\":" #hand ",\"queueLengthLimit\":50}},"             \
    "\"lendablePercent\":" #lendable "}}"


typedef struct {
    const char  *name;
    unsigned     pl:1;
    unsigned     mandatory:1;
    const char  *spec;
} gcp_fc_boot_t;


/* In upstream's order: mandatory levels and schemas, then suggested. */

static const gcp_fc_boot_t  gcp_fc_boot[] = {

    { "exempt", 1, 1,
      "{\"type\":\"Exempt\",\"exempt\":{\"nominalConcurrencyShares\":0,"
      "\"lendablePercent\":0}}" },

    { "catch-all", 1, 1,
      "{\"type\":\"Limited\",\"limited\":{\"nominalConcurrencyShares\":5,"
      "\"limitResponse\":{\"type\":\"Reject\"},\"lendablePercent\":0}}" },

    { "exempt", 0, 1,
      GCP_FC_FS("exempt", 1, "",
                "{\"subjects\":[" GCP_FC_GROUP_SUBJECT("system:masters") "],"
                GCP_FC_ALL "}") },

    { "catch-all", 0, 1,
      GCP_FC_FS("catch-all", 10000, GCP_FC_BY_USER,
                "{\"subjects\":[" GCP_FC_EVERYONE "]," GCP_FC_ALL "}") },

    { "system", 1, 0, GCP_FC_QUEUING(30, 33, 64, 6) },
    { "node-high", 1, 0, GCP_FC_QUEUING(40, 25, 64, 6) },
    { "leader-election", 1, 0, GCP_FC_QUEUING(10, 0, 16, 4) },
    { "workload-high", 1, 0, GCP_FC_QUEUING(40, 50, 128, 6) },
    { "workload-low", 1, 0, GCP_FC_QUEUING(100, 90, 128, 6) },
    { "global-default", 1, 0, GCP_FC_QUEUING(20, 50, 128, 6) },

    { "system-nodes", 0, 0,
      GCP_FC_FS("system", 500, GCP_FC_BY_USER,
                "{\"subjects\":[" GCP_FC_GROUP_SUBJECT("system:nodes") "],"
                GCP_FC_ALL "}") },

    { "system-node-high", 0, 0,
      GCP_FC_FS("node-high", 400, GCP_FC_BY_USER,
                "{\"subjects\":[" GCP_FC_GROUP_SUBJECT("system:nodes") "],"
                "\"resourceRules\":[{\"verbs\":[\"*\"],\"apiGroups\":[\"\"],"
                "\"resources\":[\"nodes\",\"nodes/status\"],"
                "\"clusterScope\":true,\"namespaces\":[\"*\"]},"
                "{\"verbs\":[\"*\"],\"apiGroups\":[\"coordination.k8s.io\"],"
                "\"resources\":[\"leases\"],\"namespaces\":[\"*\"]}]}") },

    { "probes", 0, 0,
      GCP_FC_FS("exempt", 2, "",
                "{\"subjects\":[" GCP_FC_EVERYONE "],"
                "\"nonResourceRules\":[{\"verbs\":[\"get\"],"
                "\"nonResourceURLs\":[\"/healthz\",\"/readyz\","
                "\"/livez\"]}]}") },

    { "system-leader-election", 0, 0,
      GCP_FC_FS("leader-election", 100, GCP_FC_BY_USER,
                "{\"subjects\":["
                GCP_FC_USER_SUBJECT("system:kube-controller-manager") ","
                GCP_FC_USER_SUBJECT("system:kube-scheduler") ","
                GCP_FC_SA_SUBJECT("*") "],"
                "\"resourceRules\":[" GCP_FC_LEASES "]}") },

    { "endpoint-controller", 0, 0,
      GCP_FC_FS("workload-high", 150, GCP_FC_BY_USER,
                "{\"subjects\":["
                GCP_FC_USER_SUBJECT("system:kube-controller-manager") ","
                GCP_FC_SA_SUBJECT("endpoint-controller") ","
                GCP_FC_SA_SUBJECT("endpointslicemirroring-controller") "],"
                "\"resourceRules\":[{\"verbs\":" GCP_FC_LEADER_VERBS ","
                "\"apiGroups\":[\"\"],\"resources\":[\"endpoints\"],"
                "\"namespaces\":[\"*\"]}]}") },

    { "workload-leader-election", 0, 0,
      GCP_FC_FS("leader-election", 200, GCP_FC_BY_USER,
                "{\"subjects\":[" GCP_FC_SA_SUBJECT("*") "],"
                "\"resourceRules\":[{\"verbs\":" GCP_FC_LEADER_VERBS ","
                "\"apiGroups\":[\"\"],"
                "\"resources\":[\"endpoints\",\"configmaps\"],"
                "\"namespaces\":[\"*\"]}," GCP_FC_LEASES "]}") },

    { "kube-controller-manager", 0, 0,
      GCP_FC_FS("workload-high", 800, GCP_FC_BY_NAMESPACE,
                "{\"subjects\":["
                GCP_FC_USER_SUBJECT("system:kube-controller-manager") "],"
                GCP_FC_ALL "}") },

    { "kube-scheduler", 0, 0,
      GCP_FC_FS("workload-high", 800, GCP_FC_BY_NAMESPACE,
                "{\"subjects\":["
                GCP_FC_USER_SUBJECT("system:kube-scheduler") "],"
                GCP_FC_ALL "}") },

    { "kube-system-service-accounts", 0, 0,
      GCP_FC_FS("workload-high", 900, GCP_FC_BY_NAMESPACE,
                "{\"subjects\":[" GCP_FC_SA_SUBJECT("*") "],"
                GCP_FC_ALL "}") },

    { "service-accounts", 0, 0,
      GCP_FC_FS("workload-low", 9000, GCP_FC_BY_USER,
                "{\"subjects\":["
                GCP_FC_GROUP_SUBJECT("system:serviceaccounts") "],"
                GCP_FC_ALL "}") },

    { "global-default", 0, 0,
      GCP_FC_FS("global-default", 9900, GCP_FC_BY_USER,
                "{\"subjects\":[" GCP_FC_EVERYONE "]," GCP_FC_ALL "}") },
};


size_t
gcp_fc_bootstrap_count(void)
{
    return gcp_nelems(gcp_fc_boot);
}


static json_t *
gcp_fc_boot_json(const gcp_fc_boot_t *b)
{
    json_t  *spec;

    spec = json_loads(b->spec, 0, NULL);

    if (spec == NULL) {
        return NULL;
    }

    return json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:o}",
                     "kind", b->pl ? "PriorityLevelConfiguration"
                                   : "FlowSchema",
                     "apiVersion", GCP_FC_GROUP "/v1",
                     "metadata", "name", b->name,
                     "annotations", GCP_FC_AUTOUPDATE, "true",
                     "spec", spec);
}


json_t *
gcp_fc_bootstrap_object(size_t i, int *pl, int *mandatory)
{
    *pl = gcp_fc_boot[i].pl;
    *mandatory = gcp_fc_boot[i].mandatory;

    return gcp_fc_boot_json(&gcp_fc_boot[i]);
}


static const gcp_fc_boot_t *
gcp_fc_boot_get(int pl, const char *name)
{
    size_t  i;

    for (i = 0; i < gcp_nelems(gcp_fc_boot); i++) {
        if (gcp_fc_boot[i].pl == (unsigned) (pl != 0)
            && strcmp(gcp_fc_boot[i].name, name) == 0)
        {
            return &gcp_fc_boot[i];
        }
    }

    return NULL;
}


json_t *
gcp_fc_bootstrap_find(int pl, const char *name, int *mandatory)
{
    const gcp_fc_boot_t  *b;

    b = gcp_fc_boot_get(pl, name);
    if (b == NULL) {
        return NULL;
    }

    *mandatory = b->mandatory;

    return gcp_fc_boot_json(b);
}


json_t *
gcp_fc_mandatory_spec(int pl, const char *name)
{
    const gcp_fc_boot_t  *b;

    b = gcp_fc_boot_get(pl, name);

    if (b == NULL || !b->mandatory) {
        return NULL;
    }

    return json_loads(b->spec, 0, NULL);
}


/* the ensurer */


/* strconv.ParseBool: 1, t, T, TRUE, true, True and the falses. */
static int
gcp_fc_parse_bool(const char *s, int *v)
{
    static const char * const  t[] = { "1", "t", "T", "TRUE", "true",
                                       "True", NULL };
    static const char * const  f[] = { "0", "f", "F", "FALSE", "false",
                                       "False", NULL };
    size_t  i;

    for (i = 0; t[i]; i++) {
        if (strcmp(s, t[i]) == 0) {
            *v = 1;
            return 1;
        }

        if (strcmp(s, f[i]) == 0) {
            *v = 0;
            return 1;
        }
    }

    return 0;
}


gcp_fc_ensure_t
gcp_fc_ensure(int pl, const json_t *cur, json_t **revised)
{
    int          mandatory, auto_update, have, spec_changed, set_note;
    json_t      *boot, *meta, *notes, *obj;
    const char  *name, *note;

    *revised = NULL;

    meta = json_object_get(cur, "metadata");
    name = json_string_value(json_object_get(meta, "name"));
    notes = json_object_get(meta, "annotations");
    note = json_string_value(json_object_get(notes, GCP_FC_AUTOUPDATE));

    boot = gcp_fc_bootstrap_find(pl, name ? name : "", &mandatory);

    if (boot == NULL) {
        /* RemoveUnwantedObjects */
        return note && gcp_fc_parse_bool(note, &have) && have
               ? GCP_FC_DELETE : GCP_FC_KEEP;
    }

    if (mandatory) {
        auto_update = 1;

    } else if (note && gcp_fc_parse_bool(note, &have)) {
        auto_update = have;

    } else {
        auto_update = json_integer_value(json_object_get(meta, "generation"))
                      == 1;
    }

    set_note = !(note && gcp_fc_parse_bool(note, &have)
                 && have == auto_update);

    spec_changed = auto_update
                   && !gcp_fc_semantic_equal(json_object_get(cur, "spec"),
                                             json_object_get(boot, "spec"));

    if (!set_note && !spec_changed) {
        json_decref(boot);
        return GCP_FC_KEEP;
    }

    obj = json_deep_copy(cur);
    if (obj == NULL) {
        json_decref(boot);
        return GCP_FC_KEEP;
    }

    if (spec_changed) {
        json_object_set(obj, "spec", json_object_get(boot, "spec"));
    }

    if (set_note) {
        meta = gcp_meta(obj);
        notes = json_object_get(meta, "annotations");

        if (!json_is_object(notes)) {
            notes = json_object();
            json_object_set_new(meta, "annotations", notes);
        }

        json_object_set_new(notes, GCP_FC_AUTOUPDATE,
                            json_string(auto_update ? "true" : "false"));
    }

    json_decref(boot);
    *revised = obj;

    return GCP_FC_UPDATE;
}


/* seeding */


static int
gcp_fc_seed_make(void *data, size_t i, gcp_arena_t *a, gcp_str_t *key,
    gcp_str_t *value)
{
    int          pl, mandatory;
    char         uid[GCP_UUID_LEN + 1], now[GCP_TIME_BUFSIZE];
    json_t      *obj, *meta;

    obj = gcp_fc_bootstrap_object(i, &pl, &mandatory);
    if (obj == NULL) {
        return GCP_ENOMEM;
    }

    gcp_uuid_v4(uid);
    gcp_time_format(now, gcp_time_now().tv_sec);

    meta = gcp_meta(obj);
    json_object_set_new(meta, "uid", json_string(uid));
    json_object_set_new(meta, "generation", json_integer(1));
    json_object_set_new(meta, "creationTimestamp", json_string(now));
    json_object_set_new(obj, "status", json_object());

    *value = gcp_object_encode(a, obj, gcp_fc_order);

    key->data = gcp_sprintf(a, "/registry/%s/%s",
                            pl ? GCP_FC_STORAGE_PL : GCP_FC_STORAGE_FS,
                            gcp_fc_boot[i].name);
    key->len = key->data ? strlen(key->data) : 0;

    json_decref(obj);

    return (value->data && key->data) ? GCP_OK : GCP_ENOMEM;
}


void
gcp_fc_seed(gcp_store_t *store, void (*done)(void *arg, int rc), void *arg)
{
    gcp_seed(store, gcp_nelems(gcp_fc_boot), gcp_fc_seed_make, NULL, done,
             arg);
}
