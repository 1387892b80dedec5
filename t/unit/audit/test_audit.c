
/*
 * Unit tests: auditing requests through a whole API core (core/audit/
 * gcp_audit.c, gcp_audit_event.c, server/gcp_observe.c): the events of
 * each stage, as kube-apiserver's log backend writes them, for each
 * level of a policy; the Audit-ID taken from the client and answered.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_audit_int.h"
#include "support_api.h"
#include "support_auth.h"


#define POLICY                                                               \
    "{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\",\"rules\":["   \
    " {\"level\":\"None\",\"nonResourceURLs\":[\"/healthz*\"]},"            \
    " {\"level\":\"None\",\"resources\":[{\"group\":"                      \
    "  \"coordination.k8s.io\"}]},"                                         \
    " {\"level\":\"None\",\"users\":[\"system:apiserver\"]},"               \
    " {\"level\":\"RequestResponse\",\"resources\":[{\"group\":\"\","       \
    "  \"resources\":[\"configmaps\"]}]},"                                  \
    " {\"level\":\"Request\",\"resources\":[{\"group\":\"\","               \
    "  \"resources\":[\"secrets\"]}],\"omitStages\":[\"RequestReceived\"]},"\
    " {\"level\":\"Metadata\"}]}"

#define TOKENS                                                               \
    "tok-admin,admin,uid-1,\"system:masters\"\n"                            \
    "tok-alice,alice,uid-2\n"


typedef struct {
    auth_pki_t    *pki;
    gcp_auth_t    *auth;
    gcp_audit_t   *audit;
    api_env_t     *env;
    char           log[256];
} audit_env_t;


static void
tune(gcp_api_conf_t *conf, void *arg)
{
    audit_env_t  *e = arg;

    conf->auth = e->auth;
    conf->authorization_mode = "RBAC";
    conf->audit = e->audit;
}


static int
setup(void **state)
{
    char              err[512];
    audit_env_t      *e;
    gcp_auth_conf_t   ac;
    gcp_audit_conf_t  conf;

    e = calloc(1, sizeof(audit_env_t));
    e->pki = auth_pki_create();

    memset(&ac, 0, sizeof(ac));
    ac.token_auth_file = auth_pki_write(e->pki, "tokens.csv", TOKENS);
    ac.anonymous = 1;

    e->auth = gcp_auth_create(&ac, err, sizeof(err));
    assert_non_null(e->auth);

    snprintf(e->log, sizeof(e->log), "%s/audit.log", e->pki->dir);

    memset(&conf, 0, sizeof(conf));
    conf.policy_file = auth_pki_write(e->pki, "policy.json", POLICY);
    conf.log_path = e->log;

    e->audit = gcp_audit_create(&conf, err, sizeof(err));
    if (e->audit == NULL) {
        fail_msg("gcp_audit_create: %s", err);
    }

    e->env = api_env_create_with(tune, e);

    *state = e;

    return 0;
}


static int
teardown(void **state)
{
    audit_env_t  *e = *state;

    api_env_destroy(e->env);
    gcp_audit_destroy(e->audit);
    gcp_auth_destroy(e->auth);
    auth_pki_destroy(e->pki);
    free(e);

    return 0;
}


/* The events written so far (the writer flushed), a JSON array. */

static json_t *
events(audit_env_t *e)
{
    char          line[65536];
    FILE         *fp;
    json_t       *all, *ev;
    const char   *err;
    json_error_t  jerr;

    /* closing writes what is buffered; the next request reopens it */
    gcp_audit_close(e->audit);
    assert_int_equal(gcp_audit_open(e->audit, &err), GCP_OK);

    all = json_array();

    fp = fopen(e->log, "r");
    if (fp == NULL) {
        return all;
    }

    while (fgets(line, sizeof(line), fp)) {
        assert_true(strlen(line) > 0 && line[strlen(line) - 1] == '\n');

        ev = json_loads(line, 0, &jerr);
        if (ev == NULL) {
            fail_msg("not JSON: %s (%s)", line, jerr.text);
        }

        json_array_append_new(all, ev);
    }

    fclose(fp);

    return all;
}


/* The events of one audit ID, in order. */

static json_t *
events_of(json_t *all, const char *id)
{
    size_t   i;
    json_t  *out, *ev;

    out = json_array();

    json_array_foreach(all, i, ev) {
        if (strcmp(api_str(ev, "auditID", NULL), id) == 0) {
            json_array_append(out, ev);
        }
    }

    return out;
}


static api_resp_t *
call_accept(audit_env_t *e, const char *token, const char *audit_id,
    const char *method, const char *path, const char *body,
    const char *accept)
{
    char            bearer[64];
    auth_req_t      r;
    const api_req_opts_t  *o;

    snprintf(bearer, sizeof(bearer), "Bearer %s", token);

    if (audit_id) {
        o = auth_req(&r, NULL, "Authorization", bearer, "Audit-ID",
                     audit_id, "X-Forwarded-For", "10.0.0.1, bogus, 10.0.0.2",
                     NULL);

    } else {
        o = auth_req(&r, NULL, "Authorization", bearer, NULL);
    }

    return api_call_opts(e->env, method, path,
                         body ? "application/json" : NULL, body, accept, o);
}


static api_resp_t *
call(audit_env_t *e, const char *token, const char *audit_id,
    const char *method, const char *path, const char *body)
{
    return call_accept(e, token, audit_id, method, path, body,
                       "application/json");
}


static const char *
json_text(const json_t *v)
{
    static char  buf[8192];
    char        *s;

    s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
    snprintf(buf, sizeof(buf), "%s", s ? s : "");
    free(s);

    return buf;
}


static void
test_stages_and_levels(void **state)
{
    int           i;
    audit_env_t  *e = *state;
    api_resp_t   *r;
    json_t       *all, *evs, *ev;
    const char   *keys, *id;

    /* RequestResponse: both stages, both bodies */

    r = call(e, "tok-admin", "my-audit-id", "POST",
             "/api/v1/namespaces/default/configmaps?fieldManager=kubectl",
             "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
             "{\"name\":\"cm1\"},\"data\":{\"a\":\"b\"}}");
    assert_int_equal(r->status, 201);
    assert_string_equal(api_header(r, "Audit-Id"), "my-audit-id");
    api_resp_free(r);

    all = events(e);
    evs = events_of(all, "my-audit-id");
    assert_int_equal(json_array_size(evs), 2);

    ev = json_array_get(evs, 0);
    assert_string_equal(api_str(ev, "stage", NULL), "RequestReceived");
    assert_string_equal(api_str(ev, "level", NULL), "RequestResponse");
    assert_string_equal(api_str(ev, "requestURI", NULL),
                        "/api/v1/namespaces/default/configmaps?"
                        "fieldManager=kubectl");
    assert_string_equal(api_str(ev, "verb", NULL), "create");
    assert_string_equal(json_text(json_object_get(ev, "user")),
                        "{\"username\":\"admin\",\"uid\":\"uid-1\","
                        "\"groups\":[\"system:masters\","
                        "\"system:authenticated\"]}");
    assert_string_equal(json_text(json_object_get(ev, "sourceIPs")),
                        "[\"10.0.0.1\",\"10.0.0.2\"]");
    assert_string_equal(api_str(ev, "userAgent", NULL), "gcp-unit/1.0");
    assert_string_equal(json_text(json_object_get(ev, "objectRef")),
                        "{\"resource\":\"configmaps\",\"namespace\":"
                        "\"default\",\"apiVersion\":\"v1\"}");
    assert_null(json_object_get(ev, "responseStatus"));
    assert_null(json_object_get(ev, "requestObject"));
    assert_null(json_object_get(ev, "annotations"));
    assert_string_equal(api_str(ev, "requestReceivedTimestamp", NULL),
                        api_str(ev, "stageTimestamp", NULL));
    assert_int_equal(strlen(api_str(ev, "stageTimestamp", NULL)),
                     strlen("2026-11-26T03:46:39.887948Z"));

    ev = json_array_get(evs, 1);
    assert_string_equal(api_str(ev, "stage", NULL), "ResponseComplete");
    assert_string_equal(json_text(json_object_get(ev, "objectRef")),
                        "{\"resource\":\"configmaps\",\"namespace\":"
                        "\"default\",\"name\":\"cm1\",\"apiVersion\":"
                        "\"v1\"}");
    assert_string_equal(json_text(json_object_get(ev, "responseStatus")),
                        "{\"metadata\":{},\"code\":201}");
    assert_string_equal(api_str(ev, "requestObject", "data", "a", NULL),
                        "b");
    assert_string_equal(api_str(ev, "responseObject", "metadata", "name",
                                NULL), "cm1");
    assert_non_null(api_str(ev, "responseObject", "metadata",
                            "resourceVersion", NULL));
    assert_string_equal(json_text(json_object_get(ev, "annotations")),
                        "{\"authorization.k8s.io/decision\":\"allow\","
                        "\"authorization.k8s.io/reason\":\"\"}");

    /* the key order of upstream's Event */

    keys = json_text(ev);
    assert_true(strncmp(keys, "{\"kind\":\"Event\",\"apiVersion\":\"audit."
                        "k8s.io/v1\",\"level\":\"RequestResponse\","
                        "\"auditID\":\"my-audit-id\",\"stage\":"
                        "\"ResponseComplete\",\"requestURI\"", 136) == 0);
    assert_true(strstr(keys, "\"userAgent\"") < strstr(keys, "\"objectRef\""));
    assert_true(strstr(keys, "\"responseObject\"")
                < strstr(keys, "\"requestReceivedTimestamp\""));

    json_decref(evs);
    json_decref(all);

    /* Request, RequestReceived omitted: the request body only; a new */
    /* Audit-ID when the client sends none */

    r = call(e, "tok-admin", NULL, "POST",
             "/api/v1/namespaces/default/secrets",
             "{\"metadata\":{\"name\":\"s1\"},\"data\":{\"p\":\"cQ==\"}}");
    assert_int_equal(r->status, 201);
    assert_int_equal(strlen(api_header(r, "Audit-Id")), 36);

    all = events(e);
    evs = events_of(all, api_header(r, "Audit-Id"));
    assert_int_equal(json_array_size(evs), 1);

    ev = json_array_get(evs, 0);
    assert_string_equal(api_str(ev, "stage", NULL), "ResponseComplete");
    assert_string_equal(api_str(ev, "level", NULL), "Request");
    assert_string_equal(api_str(ev, "requestObject", "data", "p", NULL),
                        "cQ==");
    assert_null(json_object_get(ev, "responseObject"));

    api_resp_free(r);
    json_decref(evs);
    json_decref(all);

    /*
     * a denial: the Status's fields, decision forbid; the same to a
     * protobuf client, whose answer is no JSON
     */

    for (i = 0; i < 2; i++) {
        id = i ? "denied-pb" : "denied-1";
        r = call_accept(e, "tok-alice", id, "GET",
                        "/api/v1/namespaces/default/secrets/s1", NULL,
                        i ? "application/vnd.kubernetes.protobuf"
                          : "application/json");
        assert_int_equal(r->status, 403);
        assert_string_equal(api_header(r, "Audit-Id"), id);
        assert_string_equal(r->content_type,
                            i ? "application/vnd.kubernetes.protobuf"
                              : "application/json");
        api_resp_free(r);

        all = events(e);
        evs = events_of(all, id);
        assert_int_equal(json_array_size(evs), 1);

        ev = json_array_get(evs, 0);
        assert_string_equal(api_str(ev, "responseStatus", "reason", NULL),
                            "Forbidden");
        assert_string_equal(api_str(ev, "responseStatus", "message", NULL),
                            "secrets \"s1\" is forbidden: User \"alice\" "
                            "cannot get resource \"secrets\" in API group "
                            "\"\" in the namespace \"default\"");
        assert_null(json_object_get(json_object_get(ev, "responseStatus"),
                                    "kind"));
        assert_string_equal(api_str(ev, "annotations",
                                    "authorization.k8s.io/decision", NULL),
                            "forbid");

        json_decref(evs);
        json_decref(all);
    }
}


static void
test_unauthenticated_and_none(void **state)
{
    audit_env_t  *e = *state;
    api_resp_t   *r;
    json_t       *all, *evs, *ev;

    /* a failed authentication: one ResponseStarted event, no user */

    r = call(e, "tok-nobody", "unknown-1", "GET",
             "/api/v1/namespaces/default/configmaps", NULL);
    assert_int_equal(r->status, 401);
    assert_string_equal(api_header(r, "Audit-Id"), "unknown-1");
    api_resp_free(r);

    /* level None: nothing */

    r = call(e, "tok-admin", "health-1", "GET", "/healthz", NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    r = call(e, "tok-admin", "lease-1", "GET",
             "/apis/coordination.k8s.io/v1/namespaces/default/leases", NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    all = events(e);

    evs = events_of(all, "unknown-1");
    assert_int_equal(json_array_size(evs), 1);

    ev = json_array_get(evs, 0);
    assert_string_equal(api_str(ev, "stage", NULL), "ResponseStarted");
    assert_string_equal(api_str(ev, "level", NULL), "RequestResponse");
    assert_string_equal(json_text(json_object_get(ev, "user")), "{}");
    assert_string_equal(json_text(json_object_get(ev, "responseStatus")),
                        "{\"metadata\":{},\"status\":\"Failure\","
                        "\"message\":\"Unauthorized\",\"reason\":"
                        "\"Unauthorized\",\"code\":401}");
    assert_null(json_object_get(ev, "annotations"));
    assert_null(json_object_get(ev, "responseObject"));
    json_decref(evs);

    evs = events_of(all, "health-1");
    assert_int_equal(json_array_size(evs), 0);
    json_decref(evs);

    evs = events_of(all, "lease-1");
    assert_int_equal(json_array_size(evs), 0);
    json_decref(evs);

    json_decref(all);
}


static void
test_impersonation_and_watch(void **state)
{
    audit_env_t     *e = *state;
    api_resp_t      *r;
    json_t          *all, *evs, *ev;
    auth_req_t       q;
    const api_req_opts_t  *o;

    /* the user is who authenticated; impersonatedUser who it became */

    o = auth_req(&q, NULL, "Authorization", "Bearer tok-admin",
                 "Impersonate-User", "bob", "Audit-ID", "imp-1", NULL);
    r = api_call_opts(e->env, "GET", "/api/v1/namespaces/default/pods",
                      NULL, NULL, "application/json", o);
    assert_int_equal(r->status, 403);
    api_resp_free(r);

    /* a watch: RequestReceived, ResponseStarted, ResponseComplete when */
    /* the client goes away */

    o = auth_req(&q, NULL, "Authorization", "Bearer tok-admin", "Audit-ID",
                 "watch-1", NULL);
    r = api_call_opts(e->env, "GET", "/api/v1/namespaces/default/"
                      "configmaps?watch=true&timeoutSeconds=1", NULL, NULL,
                      "application/json", o);
    assert_int_equal(r->status, 200);
    assert_true(r->streaming);
    api_resp_free(r);

    all = events(e);

    evs = events_of(all, "imp-1");
    assert_int_equal(json_array_size(evs), 2);

    ev = json_array_get(evs, 1);
    assert_string_equal(api_str(ev, "user", "username", NULL), "admin");
    assert_string_equal(json_text(json_object_get(ev, "impersonatedUser")),
                        "{\"username\":\"bob\",\"groups\":"
                        "[\"system:authenticated\"]}");
    assert_string_equal(api_str(ev, "annotations",
                                "authorization.k8s.io/decision", NULL),
                        "forbid");
    json_decref(evs);

    evs = events_of(all, "watch-1");
    assert_int_equal(json_array_size(evs), 3);
    assert_string_equal(api_str(json_array_get(evs, 0), "stage", NULL),
                        "RequestReceived");
    assert_string_equal(api_str(json_array_get(evs, 1), "stage", NULL),
                        "ResponseStarted");
    assert_string_equal(api_str(json_array_get(evs, 2), "stage", NULL),
                        "ResponseComplete");
    assert_string_equal(api_str(json_array_get(evs, 1), "verb", NULL),
                        "watch");
    assert_string_equal(json_text(json_object_get(json_array_get(evs, 2),
                                                  "responseStatus")),
                        "{\"metadata\":{},\"code\":200}");
    assert_null(json_object_get(json_array_get(evs, 2), "responseObject"));
    json_decref(evs);

    json_decref(all);
}


/*
 * The annotations of an event: the authorization decision and those the
 * request made (admission's), sorted by key as Go writes a map; one made
 * at the Request level (a webhook's patch) only at that level and above.
 */
static void
test_annotations(void **state)
{
    gcp_buf_t           b;
    gcp_arena_t        *a;
    gcp_op_note_t       n1, n2, n3;
    struct timespec     ts = { 0, 0 };
    gcp_audit_event_t   ev;
    const char         *line;

    (void) state;

    a = gcp_arena_create(4096);
    assert_non_null(a);

    n3.next = NULL;
    n3.key = "patch.webhook.admission.k8s.io/round_0_index_0";
    n3.value = "{\"patch\":[]}";
    n3.request_level = 1;
    n2.next = &n3;
    n2.key = "mutation.webhook.admission.k8s.io/round_0_index_0";
    n2.value = "{\"mutated\":true}";
    n2.request_level = 0;
    n1.next = &n2;
    n1.key = "a.example.com/key";
    n1.value = "\"quoted\"";
    n1.request_level = 0;

    memset(&ev, 0, sizeof(ev));
    ev.level = GCP_AUDIT_METADATA;
    ev.stage = "ResponseComplete";
    ev.uri = "/";
    ev.received = &ts;
    ev.now = &ts;
    ev.decision = "allow";
    ev.reason = "why";
    ev.notes = &n1;

    gcp_buf_init(&b, a);
    gcp_audit_event_write(&b, &ev);
    line = gcp_buf_cstr(&b);
    assert_non_null(strstr(line, ",\"annotations\":{"
                           "\"a.example.com/key\":\"\\\"quoted\\\"\","
                           "\"authorization.k8s.io/decision\":\"allow\","
                           "\"authorization.k8s.io/reason\":\"why\","
                           "\"mutation.webhook.admission.k8s.io/"
                           "round_0_index_0\":\"{\\\"mutated\\\":true}\"}}"));

    /* Request: the patch too */

    ev.level = GCP_AUDIT_REQUEST;
    gcp_buf_init(&b, a);
    gcp_audit_event_write(&b, &ev);
    line = gcp_buf_cstr(&b);
    assert_non_null(strstr(line, "round_0_index_0\":\"{\\\"mutated\\\":true}\","
                           "\"patch.webhook.admission.k8s.io/round_0_index_0"
                           "\":\"{\\\"patch\\\":[]}\"}}"));

    /* only a patch, below Request, no decision: no annotations */

    ev.level = GCP_AUDIT_METADATA;
    ev.decision = NULL;
    ev.notes = &n3;
    gcp_buf_init(&b, a);
    gcp_audit_event_write(&b, &ev);
    assert_null(strstr(gcp_buf_cstr(&b), "annotations"));

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test_setup_teardown(test_stages_and_levels, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_unauthenticated_and_none,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_impersonation_and_watch, setup,
                                        teardown),
        cmocka_unit_test(test_annotations),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
