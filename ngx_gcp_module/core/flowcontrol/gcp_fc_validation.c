
/*
 * Validation of FlowSchema and PriorityLevelConfiguration (see
 * gcp_fc_validation.h).
 */

#include <math.h>

#include "gcp_fc_bootstrap.h"
#include "gcp_fc_types.h"
#include "gcp_fc_validation.h"
#include "gcp_validation.h"


#define gcp_fc_path(errs, ...)  gcp_sprintf((errs)->arena, __VA_ARGS__)

#define GCP_FC_VERBS                                                          \
    "supported values: \"create\", \"delete\", \"deletecollection\", "       \
    "\"get\", \"list\", \"patch\", \"proxy\", \"update\", \"watch\""

#define GCP_FC_NS_INTRO                                                       \
    "each member of this list must be '*' or a DNS-1123 label; "


static const char * const  gcp_fc_verbs[] = {
    "get", "list", "create", "update", "delete", "deletecollection",
    "patch", "watch", "proxy", NULL
};


static const char *
gcp_fc_str(const json_t *obj, const char *key)
{
    const char  *s;

    s = json_string_value(json_object_get(obj, key));

    return s ? s : "";
}


static const char *
gcp_fc_int_value(gcp_ferrs_t *errs, const json_t *v)
{
    return gcp_sprintf(errs->arena, "%lld",
                       (long long) (json_is_integer(v)
                                    ? json_integer_value(v) : 0));
}


static int
gcp_fc_has_wildcard(const json_t *list)
{
    size_t   i;
    json_t  *v;

    json_array_foreach(list, i, v) {
        if (json_is_string(v) && strcmp(json_string_value(v), "*") == 0) {
            return 1;
        }
    }

    return 0;
}


static int
gcp_fc_supported_verbs(const json_t *list)
{
    size_t       i, j;
    json_t      *v;
    const char  *s;

    json_array_foreach(list, i, v) {
        s = json_is_string(v) ? json_string_value(v) : "";

        for (j = 0; gcp_fc_verbs[j]; j++) {
            if (strcmp(gcp_fc_verbs[j], s) == 0) {
                break;
            }
        }

        if (gcp_fc_verbs[j] == NULL) {
            return 0;
        }
    }

    return 1;
}


/*
 * verbs of a rule: required; "*" alone; else only the supported verbs.
 */
static void
gcp_fc_validate_verbs(gcp_ferrs_t *errs, const json_t *rule,
    const char *path)
{
    const char  *f;
    json_t      *verbs;

    verbs = json_object_get(rule, "verbs");
    f = gcp_fc_path(errs, "%s.verbs", path);

    if (json_array_size(verbs) == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, f, NULL,
                      "verbs must contain at least one value");

    } else if (gcp_fc_has_wildcard(verbs)) {
        if (json_array_size(verbs) > 1) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, f,
                          gcp_fc_gostrings(errs->arena, verbs),
                          "if '*' is present, must not specify other verbs");
        }

    } else if (!gcp_fc_supported_verbs(verbs)) {
        gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED, f,
                      gcp_fc_gostrings(errs->arena, verbs), GCP_FC_VERBS);
    }
}


/* ValidateNonResourceURLPath: the message for path, or NULL. */
static const char *
gcp_fc_url_error(const char *path)
{
    size_t       len, stars;
    const char  *p;

    len = strlen(path);

    if (len == 0) {
        return "must not be empty";
    }

    if (strcmp(path, "/") == 0) {
        return NULL;
    }

    if (path[0] != '/') {
        return "must start with slash";
    }

    if (strchr(path, ' ')) {
        return "must not contain white-space";
    }

    if (strstr(path, "//")) {
        return "must not contain double slash";
    }

    for (stars = 0, p = path; *p; p++) {
        stars += *p == '*';
    }

    if (stars > 1 || (stars == 1 && strcmp(path + len - 2, "/*") != 0)) {
        return "wildcard can only do suffix matching";
    }

    return NULL;
}


static void
gcp_fc_validate_nonresource_rule(gcp_ferrs_t *errs, const json_t *rule,
    const char *path)
{
    size_t       i;
    json_t      *urls, *v;
    const char  *f, *msg, *s;

    gcp_fc_validate_verbs(errs, rule, path);

    urls = json_object_get(rule, "nonResourceURLs");
    f = gcp_fc_path(errs, "%s.nonResourceURLs", path);

    if (json_array_size(urls) == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, f, NULL,
                      "nonResourceURLs must contain at least one value");
        return;
    }

    if (gcp_fc_has_wildcard(urls)) {
        if (json_array_size(urls) > 1) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, f,
                          gcp_fc_gostrings(errs->arena, urls),
                          "if '*' is present, must not specify other "
                          "non-resource URLs");
        }

        return;
    }

    json_array_foreach(urls, i, v) {
        s = json_is_string(v) ? json_string_value(v) : "";
        msg = gcp_fc_url_error(s);

        if (msg) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID,
                          gcp_fc_path(errs, "%s[%zu]", f, i),
                          gcp_ferr_quote(errs->arena, s), "%s", msg);
        }
    }
}


/* apiGroups and resources: required, "*" alone */
static void
gcp_fc_validate_list(gcp_ferrs_t *errs, const json_t *rule,
    const char *path, const char *key, const char *required,
    const char *wildcard)
{
    json_t      *list;
    const char  *f;

    list = json_object_get(rule, key);
    f = gcp_fc_path(errs, "%s.%s", path, key);

    if (json_array_size(list) == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, f, NULL, "%s", required);

    } else if (json_array_size(list) > 1 && gcp_fc_has_wildcard(list)) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, f,
                      gcp_fc_gostrings(errs->arena, list),
                      "if '*' is present, must not specify other %s",
                      wildcard);
    }
}


static void
gcp_fc_validate_resource_rule(gcp_ferrs_t *errs, const json_t *rule,
    const char *path)
{
    size_t       i, j;
    json_t      *list, *v;
    const char  *f, *s;
    gcp_msgs_t   m;

    gcp_fc_validate_verbs(errs, rule, path);
    gcp_fc_validate_list(errs, rule, path, "apiGroups",
                         "resource rules must supply at least one api group",
                         "api groups");
    gcp_fc_validate_list(errs, rule, path, "resources",
                         "resource rules must supply at least one resource",
                         "resources");

    list = json_object_get(rule, "namespaces");
    f = gcp_fc_path(errs, "%s.namespaces", path);

    if (json_array_size(list) == 0
        && !json_is_true(json_object_get(rule, "clusterScope")))
    {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, f, NULL,
                      "resource rules that are not cluster scoped must "
                      "supply at least one namespace");
        return;
    }

    if (gcp_fc_has_wildcard(list)) {
        if (json_array_size(list) > 1) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, f,
                          gcp_fc_gostrings(errs->arena, list),
                          "if '*' is present, must not specify other "
                          "namespaces");
        }

        return;
    }

    json_array_foreach(list, i, v) {
        s = json_is_string(v) ? json_string_value(v) : "";
        gcp_validate_name(GCP_NAME_DNS_LABEL, s, strlen(s), 0, &m);

        for (j = 0; j < m.n; j++) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID,
                          gcp_fc_path(errs, "%s[%zu]", f, i),
                          gcp_ferr_quote(errs->arena, s),
                          GCP_FC_NS_INTRO "%s", m.msg[j]);
        }
    }
}


/* User and Group subjects: { name } required */
static void
gcp_fc_validate_named(gcp_ferrs_t *errs, const json_t *subject,
    const char *path, const char *key, const char *what)
{
    const json_t  *v;

    v = json_object_get(subject, key);

    if (v == NULL || json_is_null(v)) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                      gcp_fc_path(errs, "%s.%s", path, key), NULL,
                      "%s is required when subject kind is '%s'", key, what);
        return;
    }

    if (gcp_fc_str(v, "name")[0] == '\0') {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                      gcp_fc_path(errs, "%s.%s.name", path, key), NULL,
                      NULL);
    }
}


static void
gcp_fc_validate_sa(gcp_ferrs_t *errs, const json_t *subject,
    const char *path)
{
    size_t         i;
    const char    *name, *ns, *f;
    gcp_msgs_t     m;
    const json_t  *sa;

    sa = json_object_get(subject, "serviceAccount");
    f = gcp_fc_path(errs, "%s.serviceAccount", path);

    if (sa == NULL || json_is_null(sa)) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, f, NULL,
                      "serviceAccount is required when subject kind is "
                      "'ServiceAccount'");
        return;
    }

    name = gcp_fc_str(sa, "name");

    if (name[0] == '\0') {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                      gcp_fc_path(errs, "%s.name", f), NULL, NULL);

    } else if (strcmp(name, "*") != 0) {
        gcp_validate_name(GCP_NAME_DNS_SUBDOMAIN, name, strlen(name), 0, &m);
        gcp_ferrs_add_msgs(errs, gcp_fc_path(errs, "%s.name", f), name,
                           strlen(name), &m);
    }

    ns = gcp_fc_str(sa, "namespace");

    if (ns[0] == '\0') {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                      gcp_fc_path(errs, "%s.namespace", f), NULL,
                      "must specify namespace for service account");
        return;
    }

    gcp_validate_name(GCP_NAME_DNS_LABEL, ns, strlen(ns), 0, &m);

    for (i = 0; i < m.n; i++) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID,
                      gcp_fc_path(errs, "%s.namespace", f),
                      gcp_ferr_quote(errs->arena, ns), "%s", m.msg[i]);
    }
}


/* The members of a subject its kind forbids. */
static void
gcp_fc_validate_others(gcp_ferrs_t *errs, const json_t *subject,
    const char *path, const char *kind)
{
    size_t         i;
    const json_t  *v;

    static const char * const  fields[][2] = {
        { "serviceAccount", "ServiceAccount" },
        { "user", "User" },
        { "group", "Group" },
    };

    for (i = 0; i < gcp_nelems(fields); i++) {
        if (strcmp(fields[i][1], kind) == 0) {
            continue;
        }

        v = json_object_get(subject, fields[i][0]);

        if (v && !json_is_null(v)) {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN,
                          gcp_fc_path(errs, "%s.%s", path, fields[i][0]),
                          NULL, "%s is forbidden when subject kind is not "
                          "'%s'", fields[i][0], fields[i][1]);
        }
    }
}


static void
gcp_fc_validate_subject(gcp_ferrs_t *errs, const json_t *subject,
    const char *path)
{
    const char  *kind;

    kind = gcp_fc_str(subject, "kind");

    if (strcmp(kind, "ServiceAccount") == 0) {
        gcp_fc_validate_sa(errs, subject, path);

    } else if (strcmp(kind, "User") == 0) {
        gcp_fc_validate_named(errs, subject, path, "user", "User");

    } else if (strcmp(kind, "Group") == 0) {
        gcp_fc_validate_named(errs, subject, path, "group", "Group");

    } else {
        gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED,
                      gcp_fc_path(errs, "%s.kind", path),
                      gcp_ferr_quote(errs->arena, kind),
                      "supported values: \"Group\", \"ServiceAccount\", "
                      "\"User\"");
        return;
    }

    gcp_fc_validate_others(errs, subject, path, kind);
}


static void
gcp_fc_validate_rule(gcp_ferrs_t *errs, const json_t *rule, const char *path)
{
    size_t   i;
    json_t  *subjects, *rrules, *nrules, *v;

    subjects = json_object_get(rule, "subjects");

    if (json_array_size(subjects) == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                      gcp_fc_path(errs, "%s.subjects", path), NULL,
                      "subjects must contain at least one value");
    }

    json_array_foreach(subjects, i, v) {
        gcp_fc_validate_subject(errs, v,
                                gcp_fc_path(errs, "%s.subjects[%zu]", path,
                                            i));
    }

    rrules = json_object_get(rule, "resourceRules");
    nrules = json_object_get(rule, "nonResourceRules");

    if (json_array_size(rrules) == 0 && json_array_size(nrules) == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, path, NULL,
                      "at least one of resourceRules and nonResourceRules "
                      "has to be non-empty");
    }

    json_array_foreach(rrules, i, v) {
        gcp_fc_validate_resource_rule(errs, v,
                                      gcp_fc_path(errs,
                                                  "%s.resourceRules[%zu]",
                                                  path, i));
    }

    json_array_foreach(nrules, i, v) {
        gcp_fc_validate_nonresource_rule(errs, v,
                                         gcp_fc_path(errs,
                                             "%s.nonResourceRules[%zu]",
                                             path, i));
    }
}


static void
gcp_fc_validate_fs_spec(gcp_ferrs_t *errs, const char *name,
    const json_t *spec)
{
    size_t         i;
    int64_t        prec;
    json_t        *v;
    const char    *pl, *type;
    gcp_msgs_t     m;
    const json_t  *dm;

    v = json_object_get(spec, "matchingPrecedence");
    prec = json_is_integer(v) ? json_integer_value(v) : 0;

    if (prec <= 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.matchingPrecedence",
                      gcp_fc_int_value(errs, v), "must be a positive value");
    }

    if (prec > GCP_FC_MAX_PRECEDENCE) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.matchingPrecedence",
                      gcp_fc_int_value(errs, v),
                      "must not be greater than %d", GCP_FC_MAX_PRECEDENCE);
    }

    if (prec == 1 && strcmp(name, "exempt") != 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.matchingPrecedence",
                      gcp_fc_int_value(errs, v),
                      "only the schema named 'exempt' may have "
                      "matchingPrecedence 1");
    }

    dm = json_object_get(spec, "distinguisherMethod");

    if (dm && !json_is_null(dm)) {
        type = gcp_fc_str(dm, "type");

        if (strcmp(type, "ByNamespace") != 0 && strcmp(type, "ByUser") != 0)
        {
            gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED,
                          "spec.distinguisherMethod.type",
                          gcp_fc_gostring(errs->arena,
                                          "FlowDistinguisherMethod", dm),
                          "supported values: \"ByNamespace\", \"ByUser\"");
        }
    }

    pl = gcp_fc_str(json_object_get(spec, "priorityLevelConfiguration"),
                    "name");

    if (pl[0] == '\0') {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                      "spec.priorityLevelConfiguration.name", NULL,
                      "must reference a priority level");

    } else {
        gcp_validate_name(GCP_NAME_DNS_SUBDOMAIN, pl, strlen(pl), 0, &m);
        gcp_ferrs_add_msgs(errs, "spec.priorityLevelConfiguration.name", pl,
                           strlen(pl), &m);
    }

    json_array_foreach(json_object_get(spec, "rules"), i, v) {
        gcp_fc_validate_rule(errs, v,
                             gcp_fc_path(errs, "spec.rules[%zu]", i));
    }
}


void
gcp_fc_validate_status(gcp_ferrs_t *errs, const json_t *obj)
{
    size_t       i, j;
    json_t      *conds, *c;
    const char  *type;

    conds = json_object_get(json_object_get(obj, "status"), "conditions");

    json_array_foreach(conds, i, c) {
        type = gcp_fc_str(c, "type");

        for (j = 0; j < i; j++) {
            if (strcmp(gcp_fc_str(json_array_get(conds, j), "type"), type)
                == 0)
            {
                gcp_ferrs_add(errs, GCP_FERR_DUPLICATE,
                              gcp_fc_path(errs,
                                          "status.conditions[%zu].type", i),
                              gcp_ferr_quote(errs->arena, type), NULL);
                break;
            }
        }

        if (type[0] == '\0') {
            gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                          gcp_fc_path(errs, "status.conditions[%zu].type",
                                      i),
                          NULL, "must not be empty");
        }
    }
}


static void gcp_fc_validate_pl_spec(gcp_ferrs_t *errs, const char *name,
    const json_t *spec);


/* The spec of a mandatory object must be the fixed one. */
static void
gcp_fc_validate_mandatory(gcp_ferrs_t *errs, int pl, const char *name,
    const json_t *spec)
{
    json_t      *fixed, *have;
    const char  *detail;

    fixed = gcp_fc_mandatory_spec(pl, name);
    if (fixed == NULL) {
        return;
    }

    have = json_deep_copy(spec);
    detail = "spec of '%s' must equal the fixed value";

    if (have && pl && strcmp(name, "exempt") == 0) {
        /* the exempt level may change its "exempt" member */
        json_object_del(have, "exempt");
        json_object_del(fixed, "exempt");
        detail = "spec of '%s' except the 'spec.exempt' field must equal "
                 "the fixed value";
    }

    if (have && !gcp_fc_semantic_equal(have, fixed)) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec",
                      gcp_fc_gostring(errs->arena,
                                      pl ? "PriorityLevelConfigurationSpec"
                                         : "FlowSchemaSpec", spec),
                      detail, name);
    }

    json_decref(have);
    json_decref(fixed);
}


/* A whole object of either kind (pl): spec, fixed spec, status. */
static void
gcp_fc_validate_object(gcp_ferrs_t *errs, const json_t *obj, int pl)
{
    const char    *name;
    const json_t  *spec;

    name = gcp_fc_str(json_object_get(obj, "metadata"), "name");
    spec = json_object_get(obj, "spec");

    if (pl) {
        gcp_fc_validate_pl_spec(errs, name, spec);

    } else {
        gcp_fc_validate_fs_spec(errs, name, spec);
    }

    gcp_fc_validate_mandatory(errs, pl, name, spec);
    gcp_fc_validate_status(errs, obj);
}


void
gcp_fc_validate_flowschema(gcp_ferrs_t *errs, const json_t *obj)
{
    gcp_fc_validate_object(errs, obj, 0);
}


void
gcp_fc_validate_flowschema_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    gcp_fc_validate_flowschema(errs, obj);
}


int
gcp_fc_entropy_bits(int deck, int hand)
{
    return (int) ceil(log2((double) deck) * hand);
}


static void
gcp_fc_validate_percent(gcp_ferrs_t *errs, const json_t *cfg,
    const char *path)
{
    json_t  *v;

    v = json_object_get(cfg, "lendablePercent");

    if (json_is_integer(v)
        && (json_integer_value(v) < 0 || json_integer_value(v) > 100))
    {
        gcp_ferrs_add(errs, GCP_FERR_INVALID,
                      gcp_fc_path(errs, "%s.lendablePercent", path),
                      gcp_fc_int_value(errs, v),
                      "must be between 0 and 100, inclusive");
    }
}


static void
gcp_fc_validate_queuing(gcp_ferrs_t *errs, const json_t *q)
{
    int64_t   queues, hand, limit;
    json_t   *vq, *vh;

#define GCP_FC_Q  "spec.limited.limitResponse.queuing."

    vq = json_object_get(q, "queues");
    vh = json_object_get(q, "handSize");
    queues = gcp_fc_int(q, "queues", NULL, 0);
    hand = gcp_fc_int(q, "handSize", NULL, 0);
    limit = gcp_fc_int(q, "queueLengthLimit", NULL, 0);

    if (limit <= 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, GCP_FC_Q "queueLengthLimit",
                      gcp_fc_int_value(errs,
                                       json_object_get(q,
                                                       "queueLengthLimit")),
                      "must be positive");
    }

    if (queues <= 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, GCP_FC_Q "queues",
                      gcp_fc_int_value(errs, vq), "must be positive");

    } else if (queues > GCP_FC_MAX_QUEUES) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, GCP_FC_Q "queues",
                      gcp_fc_int_value(errs, vq),
                      "must not be greater than %d", GCP_FC_MAX_QUEUES);
    }

    if (hand <= 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, GCP_FC_Q "handSize",
                      gcp_fc_int_value(errs, vh), "must be positive");

    } else if (hand > queues) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, GCP_FC_Q "handSize",
                      gcp_fc_int_value(errs, vh),
                      "should not be greater than queues (%lld)",
                      (long long) queues);

    } else if (gcp_fc_entropy_bits((int) queues, (int) hand)
               > GCP_FC_MAX_HASH_BITS)
    {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, GCP_FC_Q "handSize",
                      gcp_fc_int_value(errs, vh),
                      "required entropy bits of deckSize %lld and handSize "
                      "%lld should not be greater than %d",
                      (long long) queues, (long long) hand,
                      GCP_FC_MAX_HASH_BITS);
    }

#undef GCP_FC_Q
}


static void
gcp_fc_validate_limited(gcp_ferrs_t *errs, const json_t *lim)
{
    json_t        *v;
    const char    *type;
    const json_t  *lr, *q;

    v = json_object_get(lim, "nominalConcurrencyShares");

    if (json_is_integer(v) && json_integer_value(v) < 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID,
                      "spec.limited.nominalConcurrencyShares",
                      gcp_fc_int_value(errs, v),
                      "must be a non-negative integer");
    }

    lr = json_object_get(lim, "limitResponse");
    type = gcp_fc_str(lr, "type");
    q = json_object_get(lr, "queuing");

    if (q && json_is_null(q)) {
        q = NULL;
    }

    if (strcmp(type, "Reject") == 0) {
        if (q) {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN,
                          "spec.limited.limitResponse.queuing", NULL,
                          "must be nil if limited.limitResponse.type is "
                          "not Limited");
        }

    } else if (strcmp(type, "Queue") == 0) {
        if (q == NULL) {
            gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                          "spec.limited.limitResponse.queuing", NULL,
                          "must not be empty if limited.limitResponse.type "
                          "is Limited");

        } else {
            gcp_fc_validate_queuing(errs, q);
        }

    } else {
        gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED,
                      "spec.limited.limitResponse.type",
                      gcp_ferr_quote(errs->arena, type),
                      "supported values: \"Queue\", \"Reject\"");
    }

    gcp_fc_validate_percent(errs, lim, "spec.limited");

    v = json_object_get(lim, "borrowingLimitPercent");

    if (json_is_integer(v) && json_integer_value(v) < 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID,
                      "spec.limited.borrowingLimitPercent",
                      gcp_fc_int_value(errs, v),
                      "if specified, must be a non-negative integer");
    }
}


static void
gcp_fc_validate_pl_spec(gcp_ferrs_t *errs, const char *name,
    const json_t *spec)
{
    json_t      *v;
    const char  *type;
    json_t      *limited, *exempt;

    type = gcp_fc_str(spec, "type");
    limited = json_object_get(spec, "limited");
    exempt = json_object_get(spec, "exempt");

    if (limited && json_is_null(limited)) {
        limited = NULL;
    }

    if (exempt && json_is_null(exempt)) {
        exempt = NULL;
    }

    if ((strcmp(name, "exempt") == 0) != (strcmp(type, "Exempt") == 0)) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.type",
                      gcp_ferr_quote(errs->arena, type),
                      "type must be 'Exempt' if and only if name is "
                      "'exempt'");
    }

    if (strcmp(type, "Exempt") == 0) {
        if (limited) {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "spec.limited", NULL,
                          "must be nil if the type is not Limited");
        }

        if (exempt) {
            v = json_object_get(exempt, "nominalConcurrencyShares");

            if (json_is_integer(v) && json_integer_value(v) < 0) {
                gcp_ferrs_add(errs, GCP_FERR_INVALID,
                              "spec.exempt.nominalConcurrencyShares",
                              gcp_fc_int_value(errs, v),
                              "must be a non-negative integer");
            }

            gcp_fc_validate_percent(errs, exempt, "spec.exempt");
        }

    } else if (strcmp(type, "Limited") == 0) {
        if (exempt) {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "spec.exempt", NULL,
                          "must be nil if the type is Limited");
        }

        if (limited == NULL) {
            gcp_ferrs_add(errs, GCP_FERR_REQUIRED, "spec.limited", NULL,
                          "must not be empty when type is Limited");

        } else {
            gcp_fc_validate_limited(errs, limited);
        }

    } else {
        gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED, "spec.type",
                      gcp_ferr_quote(errs->arena, type),
                      "supported values: \"Exempt\", \"Limited\"");
    }
}


void
gcp_fc_validate_prioritylevel(gcp_ferrs_t *errs, const json_t *obj)
{
    gcp_fc_validate_object(errs, obj, 1);
}


void
gcp_fc_validate_prioritylevel_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    gcp_fc_validate_prioritylevel(errs, obj);
}
