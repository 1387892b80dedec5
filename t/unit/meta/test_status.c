
/*
 * Unit tests: Status bodies and field error messages (core/meta/gcp_status.c,
 * core/meta/gcp_ferr.c), compared with kube-apiserver's bytes.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gcp_core.h"
#include "gcp_ferr.h"
#include "gcp_status.h"


static void
test_not_found(void **state)
{
    gcp_buf_t              b;
    gcp_arena_t           *a = gcp_arena_create(0);
    gcp_status_details_t   d;

    memset(&d, 0, sizeof(d));
    d.name = "nosuch";
    d.kind = "configmaps";

    gcp_buf_init(&b, a);
    gcp_status_error(&b, GCP_ENOTFOUND, "configmaps \"nosuch\" not found",
                     &d);

    assert_string_equal(gcp_buf_cstr(&b),
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"configmaps \\\"nosuch\\\" not "
        "found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"nosuch\","
        "\"kind\":\"configmaps\"},\"code\":404}");

    gcp_arena_destroy(a);
}


static void
test_empty_details_and_success(void **state)
{
    gcp_buf_t              b;
    gcp_arena_t           *a = gcp_arena_create(0);
    gcp_status_details_t   d;

    memset(&d, 0, sizeof(d));

    gcp_buf_init(&b, a);
    gcp_status_error(&b, GCP_EMETHOD, NULL, &d);
    assert_string_equal(gcp_buf_cstr(&b),
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"the server does not allow this "
        "method on the requested resource\",\"reason\":\"MethodNotAllowed\","
        "\"details\":{},\"code\":405}");

    d.name = "cm-del";
    d.kind = "configmaps";
    d.uid = "096fe2ea-b80c-4932-9810-c4ff6ddd85f1";

    gcp_buf_init(&b, a);
    gcp_status_success(&b, &d);
    assert_string_equal(gcp_buf_cstr(&b),
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Success\",\"details\":{\"name\":\"cm-del\",\"kind\":"
        "\"configmaps\",\"uid\":\"096fe2ea-b80c-4932-9810-c4ff6ddd85f1\"}}");

    /* a reason-less 500, as kube-apiserver answers resourceVersion=abc */
    gcp_buf_init(&b, a);
    gcp_status_failure(&b, 500, "", "boom", NULL);
    assert_string_equal(gcp_buf_cstr(&b),
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"boom\",\"code\":500}");

    gcp_arena_destroy(a);
}


static void
test_invalid_multi(void **state)
{
    gcp_buf_t              b;
    gcp_ferrs_t            errs;
    gcp_arena_t           *a = gcp_arena_create(0);
    gcp_status_details_t   d;
    gcp_status_cause_t     cause;

    gcp_ferrs_init(&errs, a);
    gcp_ferrs_add(&errs, GCP_FERR_INVALID, "data[bad key!]",
                  gcp_ferr_quote(a, "bad key!"), "a valid config key");
    gcp_ferrs_add(&errs, GCP_FERR_REQUIRED, "metadata.name", NULL,
                  "name or generateName is required");

    assert_string_equal(gcp_ferrs_message(&errs, "ConfigMap", "bad-keys"),
        "ConfigMap \"bad-keys\" is invalid: [data[bad key!]: Invalid value: "
        "\"bad key!\": a valid config key, metadata.name: Required value: "
        "name or generateName is required]");

    memset(&d, 0, sizeof(d));
    memset(&cause, 0, sizeof(cause));
    cause.reason = "NamespaceTerminating";
    cause.message = "namespace x is being terminated";
    cause.field = "metadata.namespace";
    d.name = "bad-keys";
    d.kind = "ConfigMap";
    d.causes = &errs;
    d.cause = &cause;

    gcp_buf_init(&b, a);
    gcp_status_error(&b, GCP_EINVALID, "m", &d);
    assert_string_equal(gcp_buf_cstr(&b),
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"m\",\"reason\":\"Invalid\","
        "\"details\":{\"name\":\"bad-keys\",\"kind\":\"ConfigMap\","
        "\"causes\":[{\"reason\":\"NamespaceTerminating\",\"message\":"
        "\"namespace x is being terminated\",\"field\":"
        "\"metadata.namespace\"},{\"reason\":\"FieldValueInvalid\","
        "\"message\":\"Invalid value: \\\"bad key!\\\": a valid config key\","
        "\"field\":\"data[bad key!]\"},{\"reason\":\"FieldValueRequired\","
        "\"message\":\"Required value: name or generateName is required\","
        "\"field\":\"metadata.name\"}]},\"code\":422}");

    /* one error: no brackets */
    gcp_ferrs_init(&errs, a);
    gcp_ferrs_add(&errs, GCP_FERR_FORBIDDEN, "data", NULL,
                  "field is immutable when `immutable` is set");
    assert_string_equal(gcp_ferrs_message(&errs, "Secret", "s"),
        "Secret \"s\" is invalid: data: Forbidden: field is immutable when "
        "`immutable` is set");

    gcp_arena_destroy(a);
}


static void
test_quote(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    assert_string_equal(gcp_ferr_quote(a, "a\"b\\c\n\x01"),
                        "\"a\\\"b\\\\c\\n\\x01\"");

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_not_found),
        cmocka_unit_test(test_empty_details_and_success),
        cmocka_unit_test(test_invalid_multi),
        cmocka_unit_test(test_quote),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
