
/*
 * Unit tests: the admission chain (core/machinery/gcp_admission.c) in the
 * write paths: mutating plugins change objects before validation, validating
 * plugins refuse writes (create, update, patch, delete, deletecollection) and
 * nothing is stored; plugins may complete later.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gcp_admission.h"
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


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_admission_chain),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
