
/*
 * RBAC: per-API state, the authorizer, rules of a user (see gcp_rbac.h).
 */

#include <stdlib.h>

#include "gcp_admission.h"
#include "gcp_rbac.h"
#include "gcp_rbac_int.h"


typedef struct {
    gcp_rbac_index_t  *index;
} gcp_rbac_state_t;


static gcp_rbac_state_t *
gcp_rbac_state(gcp_api_t *api)
{
    gcp_rbac_state_t  *st;

    if (api->rbac) {
        return api->rbac;
    }

    st = calloc(1, sizeof(gcp_rbac_state_t));
    api->rbac = st;

    return st;
}


gcp_rbac_index_t *
gcp_rbac_index(gcp_api_t *api)
{
    gcp_rbac_state_t  *st;

    st = gcp_rbac_state(api);
    if (st == NULL) {
        return NULL;
    }

    if (st->index == NULL) {
        st->index = gcp_rbac_index_create(api->store, api->conf.loop);
    }

    return st->index;
}


int
gcp_rbac_init(gcp_api_t *api)
{
    return gcp_rbac_state(api) ? GCP_OK : GCP_ENOMEM;
}


int
gcp_rbac_escalation_plugin(gcp_api_t *api, const gcp_admission_args_t *args,
    gcp_admission_plugin_t *plugin, char *err, size_t errlen)
{
    if (gcp_admission_no_args(args, err, errlen) != GCP_OK) {
        return GCP_EBADREQUEST;
    }

    if (plugin) {
        plugin->admit = gcp_rbac_escalation_admit;
        plugin->data = api;
    }

    return GCP_OK;
}


void
gcp_rbac_free(gcp_api_t *api)
{
    gcp_rbac_state_t  *st = api->rbac;

    if (st == NULL) {
        return;
    }

    gcp_rbac_index_free(st->index);
    free(st);

    api->rbac = NULL;
}


int
gcp_rbac_privileged(const gcp_user_t *user)
{
    size_t  i;

    for (i = 0; user && user->groups && i < user->ngroups; i++) {
        if (user->groups[i] && strcmp(user->groups[i], GCP_RBAC_MASTERS)
                               == 0)
        {
            return 1;
        }
    }

    return 0;
}


const char *
gcp_rbac_aggregate(gcp_arena_t *a, const char * const *errs, size_t n)
{
    size_t      i, j, distinct;
    gcp_buf_t   b;

    if (n == 0) {
        return NULL;
    }

    if (n == 1) {
        return errs[0];
    }

    gcp_buf_init(&b, a);
    distinct = 0;

    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++) {
            if (strcmp(errs[j], errs[i]) == 0) {
                break;
            }
        }

        if (j < i) {
            continue;
        }

        if (distinct++) {
            gcp_buf_addstr(&b, ", ");
        }

        gcp_buf_addstr(&b, errs[i]);
    }

    if (distinct == 1) {
        return errs[0];
    }

    return gcp_sprintf(a, "[%s]", gcp_buf_cstr(&b));
}


/* the authorizer */


typedef struct {
    const gcp_authz_attrs_t   *attrs;
    gcp_arena_t               *arena;
    gcp_rbac_source_t          allowed_by;
    unsigned                   allowed:1;
    const char               **errors;
    size_t                     nerrors;
    size_t                     cap;
} gcp_rbac_decide_t;


static int
gcp_rbac_keep_error(gcp_arena_t *a, const char ***errs, size_t *n,
    size_t *cap, const char *err)
{
    size_t        c;
    const char  **v;

    if (*n == *cap) {
        c = *cap ? *cap * 2 : 4;

        v = gcp_alloc(a, c * sizeof(char *));
        if (v == NULL) {
            return 0;
        }

        if (*n) {
            memcpy(v, *errs, *n * sizeof(char *));
        }

        *errs = v;
        *cap = c;
    }

    (*errs)[(*n)++] = err;

    return 1;
}


static int
gcp_rbac_decide_visit(void *arg, const gcp_rbac_source_t *src,
    const gcp_rbac_rule_t *rule, const char *err)
{
    gcp_rbac_decide_t  *d = arg;

    if (rule && gcp_rbac_rule_allows(rule, d->attrs)) {
        d->allowed_by = *src;
        d->allowed = 1;
        return 0;
    }

    if (err) {
        (void) gcp_rbac_keep_error(d->arena, &d->errors, &d->nerrors,
                                   &d->cap, err);
    }

    return 1;
}


/*
 * The decision for attrs; with explain, *reason also says which binding
 * allowed the request ("RBAC: allowed by ..."), as upstream's reason,
 * which only the access reviews show: the request path leaves it out.
 */
static gcp_authz_decision_t
gcp_rbac_decide(gcp_api_t *api, gcp_arena_t *a,
    const gcp_authz_attrs_t *attrs, int explain, const char **reason)
{
    const char         *why;
    gcp_rbac_index_t   *ix;
    gcp_rbac_decide_t   d;

    if (attrs->user == NULL) {
        return GCP_AUTHZ_NO_OPINION;
    }

    if (gcp_rbac_privileged(attrs->user)) {
        return GCP_AUTHZ_ALLOW;
    }

    ix = gcp_rbac_index(api);

    if (ix == NULL || !gcp_rbac_index_ready(ix)) {
        *reason = "RBAC: the policy is not loaded yet";
        return GCP_AUTHZ_NO_OPINION;
    }

    memset(&d, 0, sizeof(d));
    d.attrs = attrs;
    d.arena = a;

    gcp_rbac_index_visit(ix, a, attrs->user, attrs->ns, gcp_rbac_decide_visit,
                         &d);

    if (d.allowed) {
        if (!explain) {
            return GCP_AUTHZ_ALLOW;
        }

        why = gcp_rbac_source_string(a, &d.allowed_by);
        *reason = why ? gcp_sprintf(a, "RBAC: allowed by %s", why) : NULL;
        return GCP_AUTHZ_ALLOW;
    }

    if (d.nerrors) {
        why = gcp_rbac_aggregate(a, d.errors, d.nerrors);
        *reason = why ? gcp_sprintf(a, "RBAC: %s", why) : NULL;
    }

    return GCP_AUTHZ_NO_OPINION;
}


static gcp_authz_decision_t
gcp_rbac_authorize(gcp_authorizer_t *az, gcp_arena_t *a,
    const gcp_authz_attrs_t *attrs, const char **reason)
{
    return gcp_rbac_decide(az->data, a, attrs, 0, reason);
}


static void
gcp_rbac_authorizer_destroy(gcp_authorizer_t *az)
{
    free(az);
}


gcp_authorizer_t *
gcp_rbac_authorizer_create(gcp_api_t *api, const char **err)
{
    gcp_authorizer_t  *az;

    if (gcp_rbac_index(api) == NULL) {
        *err = "out of memory";
        return NULL;
    }

    az = calloc(1, sizeof(gcp_authorizer_t));
    if (az == NULL) {
        *err = "out of memory";
        return NULL;
    }

    az->name = "RBAC";
    az->authorize = gcp_rbac_authorize;
    az->destroy = gcp_rbac_authorizer_destroy;
    az->data = api;

    return az;
}


int
gcp_rbac_is_authorizer(const gcp_authorizer_t *az)
{
    return az && az->authorize == gcp_rbac_authorize;
}


gcp_authz_decision_t
gcp_rbac_api_authorize(gcp_api_t *api, gcp_arena_t *a,
    const gcp_authz_attrs_t *attrs, const char **reason)
{
    gcp_authorizer_t  *az = api->authorizer;

    *reason = NULL;

    if (az == NULL) {
        return GCP_AUTHZ_ALLOW;
    }

    if (gcp_rbac_is_authorizer(az)) {
        return gcp_rbac_decide(api, a, attrs, 1, reason);
    }

    return az->authorize(az, a, attrs, reason);
}


/* RulesFor */


typedef struct {
    gcp_arena_t              *arena;
    const gcp_rbac_rule_t   **rules;
    size_t                    n;
    size_t                    cap;
    const char              **errors;
    size_t                    nerrors;
    size_t                    ecap;
    unsigned                  nomem:1;
} gcp_rbac_collect_t;


static int
gcp_rbac_collect_visit(void *arg, const gcp_rbac_source_t *src,
    const gcp_rbac_rule_t *rule, const char *err)
{
    size_t                   cap;
    const gcp_rbac_rule_t  **v;
    gcp_rbac_collect_t      *c = arg;

    if (err) {
        if (!gcp_rbac_keep_error(c->arena, &c->errors, &c->nerrors,
                                 &c->ecap, err))
        {
            c->nomem = 1;
            return 0;
        }

        return 1;
    }

    if (c->n == c->cap) {
        cap = c->cap ? c->cap * 2 : 32;

        v = gcp_alloc(c->arena, cap * sizeof(gcp_rbac_rule_t *));
        if (v == NULL) {
            c->nomem = 1;
            return 0;
        }

        if (c->n) {
            memcpy(v, c->rules, c->n * sizeof(gcp_rbac_rule_t *));
        }

        c->rules = v;
        c->cap = cap;
    }

    c->rules[c->n++] = rule;

    return 1;
}


int
gcp_rbac_rules_for(gcp_api_t *api, gcp_arena_t *a, const gcp_user_t *user,
    const char *ns, gcp_rbac_rules_t *out)
{
    gcp_rbac_index_t    *ix;
    gcp_rbac_collect_t   c;

    memset(out, 0, sizeof(gcp_rbac_rules_t));

    ix = gcp_rbac_index(api);
    if (ix == NULL) {
        return GCP_ENOMEM;
    }

    memset(&c, 0, sizeof(c));
    c.arena = a;

    if (user) {
        gcp_rbac_index_visit(ix, a, user, ns, gcp_rbac_collect_visit, &c);
    }

    if (c.nomem) {
        return GCP_ENOMEM;
    }

    out->rules = c.rules;
    out->n = c.n;
    out->error = gcp_rbac_aggregate(a, c.errors, c.nerrors);

    return GCP_OK;
}
