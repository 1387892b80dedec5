
/*
 * Unit tests: request bodies through the API core (machinery/
 * gcp_reg_body.c), one test per row of docs/api-coverage.md's table of
 * body media types: create and update in JSON, YAML and protobuf (the
 * same object stored), other types 415; patches in their own types; the
 * strict decoding errors of YAML bodies.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>

#include "gcp_json.h"
#include "gcp_op.h"
#include "gcp_protobuf.h"
#include "support_api.h"


#define PB      "application/vnd.kubernetes.protobuf"
#define JSON    "application/json"
#define YAML    "application/yaml"
#define CMS     "/api/v1/namespaces/default/configmaps"

#define ACCEPTED  "the body of the request was in an unknown format - "     \
                  "accepted media types include: application/json, "      \
                  "application/yaml, application/vnd.kubernetes.protobuf"


/* A ConfigMap body of the given media type; len set. */
static const char *
body(gcp_arena_t *a, api_env_t *env, const char *type, const char *name,
    const char *rv, const char *value, size_t *len)
{
    json_t       *in;
    gcp_buf_t     b;
    const char   *s;

    if (strcmp(type, YAML) == 0) {
        s = gcp_sprintf(a, "# YAML\napiVersion: v1\nkind: ConfigMap\n"
                        "metadata:\n  name: %s\n%s%s%sdata:\n  k: %s\n",
                        name, rv ? "  resourceVersion: \"" : "",
                        rv ? rv : "", rv ? "\"\n" : "", value);
        *len = strlen(s);
        return s;
    }

    in = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "kind", "ConfigMap",
                   "apiVersion", "v1", "metadata", "name", name,
                   "data", "k", value);
    assert_non_null(in);

    if (rv) {
        json_object_set_new(json_object_get(in, "metadata"),
                            "resourceVersion", json_string(rv));
    }

    gcp_buf_init(&b, a);

    if (strcmp(type, PB) == 0) {
        assert_int_equal(gcp_protobuf_encode(&b, api_env_api(env)->schemas,
                                             in), GCP_OK);
    } else {
        gcp_json_dump_buf(&b, in, 0);
    }

    json_decref(in);
    *len = b.len;

    return b.data;
}


static void
test_create_update(void **state)
{
    size_t        i, len;
    char          path[128];
    api_env_t    *env;
    api_resp_t   *r;
    gcp_arena_t  *a;
    const char   *b, *rv;

    static const char  *types[] = { JSON, YAML, PB,
                                    "application/yaml; charset=utf-8" };

    env = api_env_create();
    a = gcp_arena_create(0);

    for (i = 0; i < gcp_nelems(types); i++) {
        snprintf(path, sizeof(path), CMS "/cm%zu", i);

        /* create */

        b = body(a, env, types[i], path + sizeof(CMS), NULL, "v1", &len);
        r = api_call_n(env, "POST", CMS, types[i], b, len, JSON);
        assert_int_equal(r->status, 201);
        rv = gcp_strdup(a, api_str(r->json, "metadata", "resourceVersion",
                                   NULL));
        api_resp_free(r);

        r = api_call(env, "GET", path, NULL, NULL, JSON);
        assert_int_equal(r->status, 200);
        assert_string_equal(api_str(r->json, "data", "k", NULL), "v1");
        api_resp_free(r);

        /* update */

        b = body(a, env, types[i], path + sizeof(CMS), rv, "v2", &len);
        r = api_call_n(env, "PUT", path, types[i], b, len, JSON);
        assert_int_equal(r->status, 200);
        assert_string_equal(api_str(r->json, "data", "k", NULL), "v2");
        api_resp_free(r);

        /* a stale update in the same type */

        b = body(a, env, types[i], path + sizeof(CMS), rv, "v3", &len);
        r = api_call_n(env, "PUT", path, types[i], b, len, JSON);
        assert_int_equal(r->status, 409);
        api_resp_free(r);
    }

    /* types kube-apiserver does not decode */

    b = body(a, env, YAML, "no", NULL, "v", &len);

    for (i = 0; i < 3; i++) {
        static const char  *bad[] = { "text/yaml", "application/x-yaml",
                                      "application/xml" };

        r = api_call_n(env, "POST", CMS, bad[i], b, len, JSON);
        assert_int_equal(r->status, 415);
        assert_string_equal(api_str(r->json, "message", NULL), ACCEPTED);
        api_resp_free(r);

        r = api_call_n(env, "PUT", CMS "/cm0", bad[i], b, len, JSON);
        assert_int_equal(r->status, 415);
        api_resp_free(r);
    }

    gcp_arena_destroy(a);
    api_env_destroy(env);
}


static void
test_patch_types(void **state)
{
    size_t       i;
    api_env_t   *env;
    api_resp_t  *r;

    static const struct {
        const char  *type;
        const char  *patch;
        int          status;
    } cases[] = {
        { "application/merge-patch+json", "{\"data\":{\"a\":\"1\"}}", 200 },
        { "application/strategic-merge-patch+json",
          "{\"data\":{\"b\":\"2\"}}", 200 },
        { "application/json-patch+json",
          "[{\"op\":\"add\",\"path\":\"/data/c\",\"value\":\"3\"}]", 200 },
        /* not a patch type, nor JSON */
        { YAML, "data: {d: \"4\"}\n", 415 },
        { JSON, "{\"data\":{\"d\":\"4\"}}", 415 },
        /* server-side apply: a YAML configuration of the object */
        { "application/apply-patch+yaml", "apiVersion: v1\nkind: ConfigMap\n"
          "metadata: {name: p}\ndata: {d: \"4\"}\n", 200 },
    };

    env = api_env_create();

    r = api_call(env, "POST", CMS, YAML, "apiVersion: v1\nkind: ConfigMap\n"
                 "metadata: {name: p}\n", JSON);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    for (i = 0; i < gcp_nelems(cases); i++) {
        r = api_call(env, "PATCH", CMS "/p?fieldManager=m", cases[i].type,
                     cases[i].patch, JSON);
        assert_int_equal(r->status, cases[i].status);

        if (cases[i].status == 415) {
            assert_string_equal(api_str(r->json, "message", NULL),
                                "415: Unsupported Media Type");
        }

        api_resp_free(r);
    }

    r = api_call(env, "GET", CMS "/p", NULL, NULL, JSON);
    assert_string_equal(api_str(r->json, "data", "a", NULL), "1");
    assert_string_equal(api_str(r->json, "data", "b", NULL), "2");
    assert_string_equal(api_str(r->json, "data", "c", NULL), "3");
    assert_string_equal(api_str(r->json, "data", "d", NULL), "4");
    api_resp_free(r);

    api_env_destroy(env);
}


/* YAML's strict decoding errors, by fieldValidation */

static void
test_yaml_strict(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;

    static const char  dups[] =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dups\n"
        "  labels: {a: b}\n  labels: {c: d}\ndata: {a: x1, a: x2}\n"
        "foo: 1\n";

    env = api_env_create();

    r = api_call(env, "POST", CMS "?fieldValidation=Strict", YAML, dups,
                 JSON);
    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: "
        "strict decoding error: error converting YAML to JSON: yaml: "
        "unmarshal errors:\n"
        "  line 6: key \"labels\" already set in map\n"
        "  line 7: key \"a\" already set in map, unknown field \"foo\"");
    api_resp_free(r);

    r = api_call(env, "POST", CMS "?fieldValidation=Warn", YAML, dups,
                 JSON);
    assert_int_equal(r->status, 201);
    assert_int_equal(api_header_count(r, "Warning"), 3);
    assert_string_equal(api_header(r, "Warning"),
                        "299 - \"line 6: key \\\"labels\\\" already set in "
                        "map\"");
    assert_string_equal(api_str(r->json, "data", "a", NULL), "x2");
    api_resp_free(r);

    r = api_call(env, "PUT", CMS "/dups?fieldValidation=Ignore", YAML, dups,
                 JSON);
    assert_int_equal(r->status, 200);
    assert_int_equal(api_header_count(r, "Warning"), 0);
    api_resp_free(r);

    /* a JSON body keeps its own words */
    r = api_call(env, "POST", CMS "?fieldValidation=Strict", JSON,
                 "{\"metadata\":{\"name\":\"j\"},\"data\":{},\"data\":{}}",
                 JSON);
    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: "
        "strict decoding error: duplicate field \"data\"");
    api_resp_free(r);

    api_env_destroy(env);
}


/*
 * A number beyond float64 (1e400) fails a typed decode only where a field
 * reads it, as kube-apiserver's JSON decoder (checked against it): in an
 * unknown field it is dropped (Ignore, Warn) or the field is the error
 * (Strict); in an int32 field, Go's error naming the field.
 */

static void
test_big_numbers(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;

    env = api_env_create();
    assert_non_null(env);

    r = api_call(env, "POST", CMS "?fieldValidation=Ignore", JSON,
                 "{\"metadata\":{\"name\":\"b1\"},\"bogus\":1e400}", JSON);
    assert_int_equal(r->status, 201);
    assert_null(json_object_get(r->json, "bogus"));
    api_resp_free(r);

    r = api_call(env, "POST", CMS "?fieldValidation=Warn", JSON,
                 "{\"metadata\":{\"name\":\"b2\",\"x\":{\"a\":[1e400]}}}",
                 JSON);
    assert_int_equal(r->status, 201);
    assert_int_equal(api_header_count(r, "Warning"), 1);
    api_resp_free(r);

    r = api_call(env, "POST", CMS "?fieldValidation=Strict", JSON,
                 "{\"metadata\":{\"name\":\"b3\"},\"bogus\":1e400}", JSON);
    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: "
        "strict decoding error: unknown field \"bogus\"");
    api_resp_free(r);

    r = api_call(env, "POST", "/apis/coordination.k8s.io/v1/namespaces/"
                 "default/leases?fieldValidation=Ignore", JSON,
                 "{\"metadata\":{\"name\":\"l\"},"
                 "\"spec\":{\"leaseDurationSeconds\":1e400}}", JSON);
    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
        "Lease in version \"v1\" cannot be handled as a Lease: json: "
        "cannot unmarshal number 1e400 into Go struct field "
        "LeaseSpec.spec.leaseDurationSeconds of type int32");
    api_resp_free(r);

    /* a string field reading it: Go names the kind only */
    r = api_call(env, "POST", CMS, JSON,
                 "{\"metadata\":{\"name\":\"b4\"},"
                 "\"data\":{\"k\":1e400}}", JSON);
    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: "
        "json: cannot unmarshal number into Go struct field "
        "ConfigMap.data of type string");
    api_resp_free(r);

    r = api_call(env, "GET", CMS "/b3", NULL, NULL, JSON);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    r = api_call(env, "GET", CMS "/b4", NULL, NULL, JSON);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    api_env_destroy(env);
}


/*
 * DeleteOptions for delete and deletecollection in JSON, YAML and protobuf
 * (the envelope of the client's group version, as client-go and helm send
 * it); the options decoded act alike; other types 415.
 */

static void
test_delete_options(void **state)
{
    size_t        i, len;
    json_t       *in;
    api_env_t    *env;
    api_resp_t   *r;
    gcp_buf_t     b;
    gcp_arena_t  *a;
    const char   *dry, *bogus;

    static const char  *types[] = { JSON, YAML, PB };

    env = api_env_create();
    a = gcp_arena_create(0);

    r = api_call(env, "POST", CMS, JSON, "{\"metadata\":{\"name\":\"d\"}}",
                 JSON);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    for (i = 0; i < gcp_nelems(types); i++) {
        in = json_pack("{s:s, s:s, s:[s]}", "kind", "DeleteOptions",
                       "apiVersion", "v1", "dryRun", "All");
        assert_non_null(in);

        gcp_buf_init(&b, a);

        if (strcmp(types[i], PB) == 0) {
            assert_int_equal(gcp_protobuf_encode(&b,
                                                 api_env_api(env)->schemas,
                                                 in), GCP_OK);
            dry = b.data;
            len = b.len;

            json_object_set_new(in, "propagationPolicy",
                                json_string("Bogus"));
            json_object_del(in, "dryRun");
            gcp_buf_init(&b, a);
            assert_int_equal(gcp_protobuf_encode(&b,
                                                 api_env_api(env)->schemas,
                                                 in), GCP_OK);
            bogus = b.data;

        } else if (strcmp(types[i], YAML) == 0) {
            dry = "dryRun:\n- All\n";
            len = strlen(dry);
            bogus = "propagationPolicy: Bogus\n";

        } else {
            dry = "{\"dryRun\":[\"All\"]}";
            len = strlen(dry);
            bogus = "{\"propagationPolicy\":\"Bogus\"}";
        }

        json_decref(in);

        /* a dry run deletes nothing, with or without a name */

        r = api_call_n(env, "DELETE", CMS "/d", types[i], dry, len, JSON);
        assert_int_equal(r->status, 200);
        api_resp_free(r);

        r = api_call_n(env, "DELETE", CMS, types[i], dry, len, JSON);
        assert_int_equal(r->status, 200);
        api_resp_free(r);

        r = api_call(env, "GET", CMS "/d", NULL, NULL, JSON);
        assert_int_equal(r->status, 200);
        api_resp_free(r);

        /* the options are validated whatever their encoding */

        len = strcmp(types[i], PB) == 0 ? b.len : strlen(bogus);

        r = api_call_n(env, "DELETE", CMS "/d", types[i], bogus, len, JSON);
        assert_int_equal(r->status, 422);
        api_resp_free(r);
    }

    r = api_call(env, "DELETE", CMS "/d", "text/plain", "{}", JSON);
    assert_int_equal(r->status, 415);
    assert_string_equal(api_str(r->json, "message", NULL), ACCEPTED);
    api_resp_free(r);

    r = api_call(env, "DELETE", CMS "/d", PB, "k8s", JSON);
    assert_int_equal(r->status, 400);
    api_resp_free(r);

    r = api_call(env, "DELETE", CMS "/d", YAML, "kind: DeleteOptions\n",
                 JSON);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    r = api_call(env, "GET", CMS "/d", NULL, NULL, JSON);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    gcp_arena_destroy(a);
    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_create_update),
        cmocka_unit_test(test_patch_types),
        cmocka_unit_test(test_yaml_strict),
        cmocka_unit_test(test_delete_options),
        cmocka_unit_test(test_big_numbers),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
