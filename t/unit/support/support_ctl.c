
/*
 * Test support for the controllers (see support_ctl.h).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "support_ctl.h"


gcp_ctl_manager_t *
ctl_start_api(api_env_t *env, gcp_api_t *api, unsigned off,
    const char *identity, int lead)
{
    int                 i;
    gcp_ctl_conf_t      conf;
    gcp_ctl_manager_t  *m;

    memset(&conf, 0, sizeof(conf));
    conf.off = off;
    conf.root_ca = CTL_TEST_CA;
    conf.identity = identity ? identity : "test";
    conf.lease_ms = 1000;
    conf.renew_ms = 800;
    conf.retry_ms = 50;
    conf.resync_ms = 1000;
    conf.quota_resync_ms = 1000;

    m = gcp_ctl_start(api, &conf);
    assert_non_null(m);

    for (i = 0; i < 200 && lead && !gcp_ctl_leading(m); i++) {
        api_spin(env, 10);
    }

    if (lead) {
        assert_true(gcp_ctl_leading(m));

    } else {
        api_spin(env, 100);
    }

    return m;
}


gcp_ctl_manager_t *
ctl_start(api_env_t *env, unsigned off, const char *identity, int lead)
{
    return ctl_start_api(env, api_env_api(env), off, identity, lead);
}


gcp_api_t *
ctl_api_create(api_env_t *env)
{
    const char      *err;
    gcp_api_t       *api;
    gcp_api_conf_t   conf;

    memset(&conf, 0, sizeof(conf));
    conf.loop = api_env_loop(env);
    conf.store = api_env_store(env);
    conf.min_watch_timeout = 1800;

    err = NULL;
    api = gcp_api_create(&conf, &err);
    assert_non_null(api);

    return api;
}


static void
ctl_released(void *arg)
{
    *(int *) arg = 1;
}


void
ctl_stop(api_env_t *env, gcp_ctl_manager_t *m)
{
    int  i, released;

    released = 0;
    gcp_ctl_stop(m, ctl_released, &released);

    for (i = 0; i < 500 && !released; i++) {
        api_spin(env, 10);
    }

    assert_int_equal(released, 1);
}


json_t *
ctl_json(const json_t *v, const char *path)
{
    char         key[256];
    const char  *p, *dot;
    size_t       len;

    for (p = path; v && *p; p = dot ? dot + 1 : p + len) {
        dot = strchr(p, '.');
        len = dot ? (size_t) (dot - p) : strlen(p);

        if (len >= sizeof(key)) {
            return NULL;
        }

        memcpy(key, p, len);
        key[len] = '\0';

        if (json_is_array(v)) {
            v = json_array_get(v, (size_t) atoi(key));

        } else {
            v = json_object_get(v, key);
        }

        if (dot == NULL) {
            break;
        }
    }

    return (json_t *) v;
}


const char *
ctl_str(const json_t *v, const char *path)
{
    const char  *s;

    s = json_string_value(ctl_json(v, path));

    return s ? s : "";
}


api_resp_t *
ctl_wait(api_env_t *env, const char *path, int status, const char *field,
    const char *value, int ms)
{
    int          waited;
    api_resp_t  *r;

    for (waited = 0; ; waited += 20) {
        r = api_call(env, "GET", path, NULL, NULL, NULL);

        if (r->status == status
            && (field == NULL || strcmp(ctl_str(r->json, field), value) == 0))
        {
            return r;
        }

        if (waited >= ms) {
            return r;
        }

        api_resp_free(r);
        api_spin(env, 20);
    }
}


api_resp_t *
ctl_req(api_env_t *env, const char *method, const char *path,
    const char *body, int status)
{
    api_resp_t  *r;

    r = api_call(env, method, path, body ? "application/json" : NULL, body,
                 NULL);

    if (r->status != status) {
        fail_msg("%s %s: %d, expected %d: %s", method, path, r->status,
                 status, r->body ? r->body : "");
    }

    return r;
}


void
ctl_req_msg(api_env_t *env, const char *method, const char *path,
    const char *body, int status, const char *message)
{
    api_resp_t  *r;

    r = ctl_req(env, method, path, body, status);
    assert_string_equal(ctl_str(r->json, "message"), message);
    api_resp_free(r);
}


api_resp_t *
ctl_patch(api_env_t *env, const char *path, const char *body, int status)
{
    api_resp_t  *r;

    r = api_call(env, "PATCH", path, "application/merge-patch+json", body,
                 NULL);

    if (r->status != status) {
        fail_msg("PATCH %s: %d, expected %d: %s", path, r->status, status,
                 r->body ? r->body : "");
    }

    return r;
}
