
/*
 * Test support for RBAC (see support_rbac.h).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_op.h"
#include "gcp_rbac.h"
#include "support_rbac.h"


#define RBAC_MAX_USERS   64
#define RBAC_MAX_GROUPS  8


static const char * const  rbac_admin_groups[] = {
    "system:masters", "system:authenticated", NULL
};

static const char * const  rbac_anchor_groups[] = {
    "system:authenticated", NULL
};

static const char * const  rbac_anonymous_groups[] = {
    "system:unauthenticated", NULL
};


const gcp_user_t  rbac_admin = {
    "anchor-admin", "uid-anchor-admin", rbac_admin_groups, 2, NULL, 0
};

const gcp_user_t  rbac_anchor = {
    "anchor-user", "uid-anchor-user", rbac_anchor_groups, 1, NULL, 0
};

const gcp_user_t  rbac_anonymous = {
    "system:anonymous", "", rbac_anonymous_groups, 1, NULL, 0
};


typedef struct {
    gcp_user_t    user;
    char          name[128];
    char          groups[RBAC_MAX_GROUPS][128];
    const char   *group_ptrs[RBAC_MAX_GROUPS + 1];
} rbac_user_slot_t;


static rbac_user_slot_t  rbac_users[RBAC_MAX_USERS];
static size_t            rbac_nusers;


const gcp_user_t *
rbac_user(const char *name, ...)
{
    va_list            ap;
    size_t             n;
    const char        *g;
    rbac_user_slot_t  *s;

    assert_true(rbac_nusers < RBAC_MAX_USERS);

    s = &rbac_users[rbac_nusers++];
    memset(s, 0, sizeof(rbac_user_slot_t));

    snprintf(s->name, sizeof(s->name), "%s", name);

    va_start(ap, name);

    for (n = 0; (g = va_arg(ap, const char *)) != NULL; n++) {
        assert_true(n < RBAC_MAX_GROUPS);
        snprintf(s->groups[n], sizeof(s->groups[n]), "%s", g);
        s->group_ptrs[n] = s->groups[n];
    }

    va_end(ap);

    s->user.name = s->name;
    s->user.uid = "";
    s->user.groups = s->group_ptrs;
    s->user.ngroups = n;

    return &s->user;
}


static void
rbac_tune(gcp_api_conf_t *conf, void *arg)
{
    conf->authorization_mode = arg ? arg : "RBAC";
}


api_env_t *
rbac_env(const char *mode)
{
    api_env_t  *env;

    env = api_env_create_with(rbac_tune, (void *) mode);
    api_env_start_controllers(env);

    rbac_sync(env);

    return env;
}


static void
rbac_written(void *arg, gcp_store_result_t *res)
{
    *(int64_t *) arg = res->rc == GCP_OK ? res->kvs[0].mod_revision : -1;
}


void
rbac_sync(api_env_t *env)
{
    int                i;
    char               key[128];
    int64_t            rev;
    gcp_str_t          k;
    gcp_arena_t       *a;
    gcp_rbac_index_t  *ix;

    static unsigned    n;

    ix = gcp_rbac_index(api_env_api(env));
    assert_non_null(ix);

    /*
     * A barrier: a key under the RBAC prefix that the index ignores.
     * Events come in revision order, so once the index has seen this one
     * it has applied every RBAC change before it.
     */

    a = gcp_arena_create(0);
    assert_non_null(a);

    snprintf(key, sizeof(key), "/registry/rbac.authorization.k8s.io/"
             "test-sync/%u", n++);
    k.data = key;
    k.len = strlen(key);

    rev = 0;
    gcp_store_create(api_env_store(env), k,
                     (gcp_str_t) gcp_string("{}"), a, rbac_written, &rev);

    while (rev == 0) {
        api_spin(env, 1);
    }

    gcp_arena_destroy(a);
    assert_true(rev > 0);

    for (i = 0; i < 5000; i++) {
        if (gcp_rbac_index_ready(ix) && gcp_rbac_index_revision(ix) >= rev) {
            return;
        }

        api_spin(env, 1);
    }

    fail_msg("the RBAC index did not reach revision %lld",
             (long long) rev);
}


api_resp_t *
rbac_call(api_env_t *env, const gcp_user_t *user, const char *method,
    const char *path, const char *body)
{
    api_req_opts_t  o;

    rbac_sync(env);

    memset(&o, 0, sizeof(o));
    o.user = user;

    return api_call_opts(env, method, path,
                         body ? (strcmp(method, "PATCH") == 0
                                 ? "application/merge-patch+json"
                                 : "application/json")
                              : NULL,
                         body, "application/json", &o);
}


int
rbac_status(api_env_t *env, const gcp_user_t *user, const char *method,
    const char *path, const char *body)
{
    int          status;
    api_resp_t  *r;

    r = rbac_call(env, user, method, path, body);
    status = r->status;
    api_resp_free(r);

    return status;
}
