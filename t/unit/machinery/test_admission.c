
/*
 * Unit tests: the admission chain (core/machinery/gcp_admission.c) in the
 * write paths: mutating plugins change objects before validation, validating
 * plugins refuse writes (create, update, patch, delete, deletecollection) and
 * nothing is stored; plugins may complete later; a plugin asking for it has
 * the mutating steps run again (reinvocation).  The plugins compiled in
 * (core/server/gcp_admission_plugins.c): their order, the configuration's
 * enabling, disabling and arguments, and what it refuses.
 */

#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gcp_admission.h"
#include "gcp_admission_plugins.h"
#include "gcp_object.h"
#include "support_api.h"


#define CM    "/api/v1/namespaces/default/configmaps"
#define JSON  "application/json"


static int  mutated, validated, deletes, dry_runs;


static void
add_label(void *data, gcp_admit_t *ad, gcp_admit_done_pt done)
{
    json_t  *labels;

    mutated++;

    if (ad->obj == NULL) {
        /* deletes: the mutating step sees no object */
        done(ad, GCP_OK);
        return;
    }

    labels = json_object_get(gcp_meta(ad->obj), "labels");
    if (!json_is_object(labels)) {
        labels = json_object();
        json_object_set_new(gcp_meta(ad->obj), "labels", labels);
    }

    json_object_set_new(labels, "admitted", json_string("yes"));

    done(ad, GCP_OK);
}


typedef struct {
    gcp_admit_t        *ad;
    gcp_admit_done_pt   done;
} later_t;


static void
refuse_later(void *arg)
{
    later_t  *l = arg;

    gcp_op_error_obj(l->ad->op, GCP_EFORBIDDEN, "refused by the test",
                     l->ad->name);
    l->done(l->ad, GCP_EFORBIDDEN);
}


static void
refuse_deny(void *data, gcp_admit_t *ad, gcp_admit_done_pt done)
{
    later_t     *l;
    gcp_loop_t  *loop = data;

    validated++;
    deletes += ad->operation == GCP_ADMIT_DELETE;
    dry_runs += ad->dry_run;

    if (strncmp(ad->name, "deny-", 5) != 0) {
        done(ad, GCP_OK);
        return;
    }

    /* refuse from the loop, as a plugin that asks elsewhere would */

    l = gcp_alloc(ad->op->a, sizeof(later_t));
    l->ad = ad;
    l->done = done;
    loop->timer_add(loop, 1, refuse_later, l);
}


static void
test_admission_chain(void **state)
{
    api_env_t               *env;
    api_resp_t              *r;
    gcp_admission_plugin_t   p;

    env = api_env_create();

    memset(&p, 0, sizeof(p));
    p.name = "TestMutate";
    p.admit = add_label;
    assert_int_equal(gcp_admission_register(api_env_api(env), &p), GCP_OK);

    memset(&p, 0, sizeof(p));
    p.name = "TestValidate";
    p.validate = refuse_deny;
    p.data = api_env_loop(env);
    assert_int_equal(gcp_admission_register(api_env_api(env), &p), GCP_OK);

    r = api_call(env, "POST", CM, JSON, "{\"metadata\":{\"name\":\"ok\"}}",
                 NULL);
    assert_int_equal(r->status, 201);
    assert_string_equal(api_str(r->json, "metadata", "labels", "admitted",
                                NULL), "yes");
    api_resp_free(r);
    assert_int_equal(mutated, 1);
    assert_int_equal(validated, 1);

    r = api_call(env, "POST", CM, JSON,
                 "{\"metadata\":{\"name\":\"deny-1\"}}", NULL);
    assert_int_equal(r->status, 403);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "refused by the test");
    api_resp_free(r);

    r = api_call(env, "GET", CM "/deny-1", NULL, NULL, NULL);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    /* updates (here a patch) go through both steps */

    r = api_call(env, "PATCH", CM "/ok", "application/merge-patch+json",
                 "{\"data\":{\"a\":\"b\"}}", NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(mutated, 3);
    api_resp_free(r);

    r = api_call(env, "DELETE", CM "/ok?dryRun=All", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(dry_runs, 1);
    api_resp_free(r);

    r = api_call(env, "DELETE", CM "/ok", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);
    assert_int_equal(deletes, 2);

    api_env_destroy(env);
}


static int  first_calls, second_calls, rounds[2];


static void
count_first(void *data, gcp_admit_t *ad, gcp_admit_done_pt done)
{
    first_calls++;
    rounds[ad->round]++;
    done(ad, GCP_OK);
}


/* Changes the object once: the mutating steps run again. */
static void
ask_again(void *data, gcp_admit_t *ad, gcp_admit_done_pt done)
{
    int  *slot_state;

    second_calls++;

    slot_state = *gcp_admission_slot(ad);

    if (slot_state == NULL && ad->obj) {
        *gcp_admission_slot(ad) = &second_calls;
        ad->reinvoke = 1;
    }

    done(ad, GCP_OK);
}


static void
test_reinvocation(void **state)
{
    api_env_t               *env;
    api_resp_t              *r;
    gcp_admission_plugin_t   p;

    env = api_env_create();

    memset(&p, 0, sizeof(p));
    p.name = "First";
    p.admit = count_first;
    assert_int_equal(gcp_admission_register(api_env_api(env), &p), GCP_OK);

    p.name = "Second";
    p.admit = ask_again;
    assert_int_equal(gcp_admission_register(api_env_api(env), &p), GCP_OK);

    r = api_call(env, "POST", CM, JSON, "{\"metadata\":{\"name\":\"r\"}}",
                 NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    /* every mutating step once more, once */

    assert_int_equal(first_calls, 2);
    assert_int_equal(second_calls, 2);
    assert_int_equal(rounds[0], 1);
    assert_int_equal(rounds[1], 1);

    api_env_destroy(env);
}


static void
tune_plugins(gcp_api_conf_t *conf, void *arg)
{
    conf->admission = arg;
}


static void
test_plugins_compiled_in(void **state)
{
    char                        err[256];
    size_t                      i, n;
    api_env_t                  *env;
    gcp_api_t                  *api;
    gcp_admission_conf_t        c;
    gcp_admission_args_t        args;
    const gcp_admission_def_t  *defs;

    static const char * const  order[] = {
        "NamespaceLifecycle", "CertificateApproval", "CertificateSigning",
        "CertificateSubjectRestriction", "RequiredLabels",
        "MutatingAdmissionWebhook", "RBACEscalation",
        "ValidatingAdmissionWebhook", "ResourceQuota"
    };
    static const char * const  nope[] = { "Nope" };
    static const char * const  quota[] = { "ResourceQuota" };
    static const char * const  lifecycle[] = { "NamespaceLifecycle" };
    static const char * const  labels[] = { "RequiredLabels" };
    static const char * const  bad[] = { "ns-without-labels" };
    static const char * const  good[] = { "a*:x,y=z" };

    defs = gcp_admission_plugins(&n);
    assert_int_equal(n, gcp_nelems(order));

    for (i = 0; i < n; i++) {
        assert_string_equal(defs[i].name, order[i]);
        assert_int_equal(defs[i].on, strcmp(order[i], "RequiredLabels") != 0);
    }

    /* what nginx -t refuses */

    memset(&c, 0, sizeof(c));
    c.enable = nope;
    c.nenable = 1;
    assert_int_equal(gcp_admission_plugins_check(&c, err, sizeof(err)),
                     GCP_EBADREQUEST);
    assert_string_equal(err, "unknown admission plugin \"Nope\"");

    c.enable = quota;
    c.disable = quota;
    c.ndisable = 1;
    assert_int_equal(gcp_admission_plugins_check(&c, err, sizeof(err)),
                     GCP_EBADREQUEST);
    assert_string_equal(err, "admission plugin \"ResourceQuota\" is both "
                        "enabled and disabled");

    memset(&c, 0, sizeof(c));
    memset(&args, 0, sizeof(args));
    args.name = "RequiredLabels";
    args.args = bad;
    args.nargs = 1;
    c.args = &args;
    c.nargs = 1;
    assert_int_equal(gcp_admission_plugins_check(&c, err, sizeof(err)),
                     GCP_EBADREQUEST);
    assert_string_equal(err, "RequiredLabels: \"ns-without-labels\" is not "
                        "NAMESPACES:LABEL[=DEFAULT][,...]");

    args.args = good;
    assert_int_equal(gcp_admission_plugins_check(&c, err, sizeof(err)),
                     GCP_OK);

    args.name = "ResourceQuota";
    assert_int_equal(gcp_admission_plugins_check(&c, err, sizeof(err)),
                     GCP_EBADREQUEST);
    assert_string_equal(err, "admission plugin \"ResourceQuota\" takes no "
                        "arguments");

    /* the chain built: the defaults, in order, less what is disabled */

    env = api_env_create();
    api = api_env_api(env);

    assert_int_equal(gcp_admission_index(api, "NamespaceLifecycle"), 0);
    assert_int_equal(gcp_admission_index(api, "CertificateApproval"), 1);
    assert_int_equal(gcp_admission_index(api, "CertificateSigning"), 2);
    assert_int_equal(gcp_admission_index(api,
                                         "CertificateSubjectRestriction"),
                     3);
    assert_int_equal(gcp_admission_index(api, "RequiredLabels"), -1);
    assert_int_equal(gcp_admission_index(api, "MutatingAdmissionWebhook"),
                     4);
    assert_int_equal(gcp_admission_index(api, "RBACEscalation"), 5);
    assert_int_equal(gcp_admission_index(api, "ValidatingAdmissionWebhook"),
                     6);
    assert_int_equal(gcp_admission_index(api, "ResourceQuota"), 7);
    api_env_destroy(env);

    memset(&c, 0, sizeof(c));
    c.enable = labels;
    c.nenable = 1;
    c.disable = lifecycle;
    c.ndisable = 1;

    env = api_env_create_with(tune_plugins, &c);
    api = api_env_api(env);

    assert_int_equal(gcp_admission_index(api, "NamespaceLifecycle"), -1);
    assert_int_equal(gcp_admission_index(api, "RequiredLabels"), 3);
    assert_int_equal(gcp_admission_index(api, "ResourceQuota"), 7);
    api_env_destroy(env);
}


/* Ranges of ResourceQuotas time out (etcd without quorum). */

static void
range_quota_timeout(gcp_store_t *s, gcp_str_t key, gcp_str_t range_end,
    int64_t revision, int64_t limit, int count_only, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    gcp_store_result_t  *res;

    res = gcp_calloc(a, sizeof(gcp_store_result_t));
    assert_non_null(res);
    res->rc = GCP_ETIMEOUT;
    res->message = "etcd: Timeout was reached";
    done(arg, res);
}


/*
 * ResourceQuota cannot read the quotas (etcd without quorum): the create
 * gets the store's own status (504 Timeout, as NamespaceLifecycle's read
 * would), not a 500 that would not say nothing was written; nothing is.
 */
static void
test_quota_store_timeout(void **state)
{
    api_env_t    *env;
    api_resp_t   *r;

    env = api_env_create();

    api_store_intercept_range(env, "resourcequotas", range_quota_timeout);
    r = api_call(env, "POST", CM, JSON, "{\"metadata\":{\"name\":\"nq\"}}",
                 NULL);
    api_store_intercept_range(env, NULL, NULL);

    assert_int_equal(r->status, 504);
    assert_string_equal(api_str(r->json, "reason", NULL), "Timeout");
    assert_string_equal(api_str(r->json, "message", NULL),
                        "etcd: Timeout was reached");
    api_resp_free(r);

    r = api_call(env, "GET", CM "/nq", NULL, NULL, NULL);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_admission_chain),
        cmocka_unit_test(test_reinvocation),
        cmocka_unit_test(test_plugins_compiled_in),
        cmocka_unit_test(test_quota_store_timeout),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
