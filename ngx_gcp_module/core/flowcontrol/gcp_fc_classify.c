
/*
 * Classifying a request (see gcp_fc_config.h), as upstream's
 * matchesFlowSchema: a schema matches when one of its rules does, a rule
 * when one subject matches the user and one resource rule (resource
 * requests) or non-resource rule (the others) matches the request.
 */

#include <stdio.h>
#include <stdlib.h>

#include "gcp_digest.h"
#include "gcp_fc_config_int.h"


#define GCP_FC_SA_PREFIX      "system:serviceaccount:"
#define GCP_FC_SA_PREFIX_LEN  (sizeof(GCP_FC_SA_PREFIX) - 1)


/* containsString: the wildcard alone matches everything */
static int
gcp_fc_contains(const gcp_fc_list_t *l, const char *s)
{
    size_t  i;

    if (l->all) {
        return 1;
    }

    for (i = 0; i < l->n; i++) {
        if (strcmp(l->v[i], s) == 0) {
            return 1;
        }
    }

    return 0;
}


/* "system:serviceaccount:NS:NAME" for ns and name (name NULL: any) */
static int
gcp_fc_sa_matches(const char *user, const char *ns, const char *name)
{
    size_t  len;

    if (strncmp(user, GCP_FC_SA_PREFIX, GCP_FC_SA_PREFIX_LEN) != 0) {
        return 0;
    }

    user += GCP_FC_SA_PREFIX_LEN;
    len = strlen(ns);

    if (strncmp(user, ns, len) != 0 || user[len] != ':') {
        return 0;
    }

    return name == NULL || strcmp(user + len + 1, name) == 0;
}


static int
gcp_fc_subject_matches(const gcp_fc_subject_t *s, const gcp_user_t *u)
{
    size_t       i;
    const char  *name;

    name = u && u->name ? u->name : "";

    switch (s->kind) {

    case GCP_FC_SUBJECT_USER:
        return strcmp(s->name, "*") == 0 || strcmp(s->name, name) == 0;

    case GCP_FC_SUBJECT_GROUP:
        if (strcmp(s->name, "*") == 0) {
            return 1;
        }

        for (i = 0; u && i < u->ngroups; i++) {
            if (strcmp(u->groups[i], s->name) == 0) {
                return 1;
            }
        }

        return 0;

    default:
        return gcp_fc_sa_matches(name, s->ns,
                                 strcmp(s->name, "*") == 0 ? NULL : s->name);
    }
}


static int
gcp_fc_rrule_matches(const gcp_fc_rrule_t *rr, const gcp_fc_request_t *r)
{
    char         buf[256];
    const char  *resource;

    if (!gcp_fc_contains(&rr->verbs, r->verb)) {
        return 0;
    }

    resource = r->resource_name;

    if (r->subresource[0]) {
        if (snprintf(buf, sizeof(buf), "%s/%s", r->resource_name,
                     r->subresource) >= (int) sizeof(buf))
        {
            return 0;
        }

        resource = buf;
    }

    if (!gcp_fc_contains(&rr->resources, resource)
        || !gcp_fc_contains(&rr->groups, r->group))
    {
        return 0;
    }

    if (r->ns[0] == '\0') {
        return rr->cluster_scope;
    }

    return gcp_fc_contains(&rr->namespaces, r->ns);
}


/* matchPolicyRuleNonResourceURL: exact, "*", or a prefix ending in / */
static int
gcp_fc_url_matches(const gcp_fc_list_t *urls, const char *path)
{
    size_t       i, len;
    const char  *u;

    for (i = 0; i < urls->n; i++) {
        u = urls->v[i];

        if (strcmp(u, "*") == 0 || strcmp(u, path) == 0) {
            return 1;
        }

        len = strlen(u);

        if (len && u[len - 1] == '*') {
            len--;
        }

        /* the prefix with a trailing slash */
        if (strncmp(path, u, len) == 0
            && (len && u[len - 1] == '/' ? 1 : path[len] == '/'))
        {
            return 1;
        }
    }

    return 0;
}


static int
gcp_fc_policy_matches(const gcp_fc_policy_t *p, const gcp_fc_request_t *r)
{
    size_t  i;

    for (i = 0; i < p->nsubjects; i++) {
        if (gcp_fc_subject_matches(&p->subjects[i], r->user)) {
            break;
        }
    }

    if (i == p->nsubjects) {
        return 0;
    }

    if (r->resource) {
        for (i = 0; i < p->nrrules; i++) {
            if (gcp_fc_rrule_matches(&p->rrules[i], r)) {
                return 1;
            }
        }

        return 0;
    }

    for (i = 0; i < p->nnrules; i++) {
        if (gcp_fc_contains(&p->nrules[i].verbs, r->verb)
            && gcp_fc_url_matches(&p->nrules[i].urls, r->path))
        {
            return 1;
        }
    }

    return 0;
}


uint64_t
gcp_fc_flow_hash(const char *flow_schema, const char *distinguisher)
{
    int            i;
    char           buf[512], *p;
    size_t         a, b;
    uint64_t       h;
    unsigned char  md[GCP_SHA256_LEN];

    a = strlen(flow_schema);
    b = strlen(distinguisher);
    p = a + b + 1 <= sizeof(buf) ? buf : malloc(a + b + 1);

    if (p == NULL) {
        return 0;
    }

    memcpy(p, flow_schema, a);
    p[a] = '\0';
    memcpy(p + a + 1, distinguisher, b);

    h = 0;

    if (gcp_sha256(p, a + b + 1, md) == GCP_OK) {
        for (i = 7; i >= 0; i--) {
            h = h << 8 | md[i];
        }
    }

    if (p != buf) {
        free(p);
    }

    return h;
}


int
gcp_fc_classify(const gcp_fc_config_t *c, const gcp_fc_request_t *r,
    gcp_fc_match_t *m)
{
    size_t                   i, k;
    const gcp_fc_schema_t   *s;
    gcp_apf_level_conf_t    *l;

    memset(m, 0, sizeof(gcp_fc_match_t));

    for (i = 0; i < c->nschemas; i++) {
        s = &c->schemas[i];

        for (k = 0; k < s->nrules; k++) {
            if (gcp_fc_policy_matches(&s->rules[k], r)) {
                goto found;
            }
        }
    }

    /*
     * Every authenticated or anonymous user matches catch-all; an
     * in-process identity in neither group goes there too.
     */
    for (i = 0; i < c->nschemas; i++) {
        s = &c->schemas[i];

        if (strcmp(s->name, "catch-all") == 0) {
            goto found;
        }
    }

    return GCP_EINTERNAL;

found:

    l = &c->levels[s->level];

    m->flow_schema = s->name;
    m->flow_schema_uid = s->uid;
    m->level = l->name;
    m->level_uid = l->uid;
    m->exempt = l->exempt;

    switch (s->dm) {

    case GCP_FC_DM_USER:
        m->distinguisher = r->user && r->user->name ? r->user->name : "";
        break;

    case GCP_FC_DM_NAMESPACE:
        m->distinguisher = r->ns;
        break;

    default:
        m->distinguisher = "";
    }

    m->hash = gcp_fc_flow_hash(s->name, m->distinguisher);

    return GCP_OK;
}
