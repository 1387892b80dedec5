
/*
 * Unit tests: protobuf on the wire through the API core: a typed client's
 * protobuf create, protobuf responses for objects and lists, protobuf
 * watch frames, and error Statuses in the encoding the client accepts.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

#include "gcp_op.h"
#include "gcp_protobuf.h"
#include "gcp_registry.h"
#include "support_api.h"


#define PB    "application/vnd.kubernetes.protobuf"
#define CM    "/api/v1/namespaces/default/configmaps"


static json_t *
decode(api_env_t *env, gcp_arena_t *a, const char *data, size_t len)
{
    json_t      *obj = NULL;
    const char  *msg = NULL;

    assert_int_equal(gcp_protobuf_decode(a, api_env_api(env)->schemas, data,
                                         len, &obj, &msg), GCP_OK);
    return obj;
}


static void
test_protobuf_roundtrip(void **state)
{
    size_t        off, n;
    json_t       *obj, *ev, *in;
    gcp_buf_t     body;
    api_env_t    *env;
    api_resp_t   *r;
    gcp_arena_t  *a;
    uint32_t      flen;
    const char   *msg;

    env = api_env_create();
    a = gcp_arena_create(0);

    /* a protobuf create, as kubectl create configmap sends it */

    in = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "kind", "ConfigMap",
                   "apiVersion", "v1", "metadata", "name", "pb1",
                   "data", "k", "v");
    gcp_buf_init(&body, a);
    assert_int_equal(gcp_protobuf_encode(&body, api_env_api(env)->schemas,
                                         in), GCP_OK);
    json_decref(in);

    r = api_call_n(env, "POST", CM, PB, body.data, body.len, PB ", */*");
    assert_int_equal(r->status, 201);
    assert_string_equal(r->content_type, PB);
    api_resp_free(r);

    r = api_call(env, "GET", CM "/pb1", NULL, NULL, PB ", */*");
    assert_int_equal(r->status, 200);
    assert_string_equal(r->content_type, PB);
    assert_memory_equal(r->body, "k8s\0", 4);

    obj = decode(env, a, r->body, r->len);
    assert_string_equal(api_str(obj, "metadata", "name", NULL), "pb1");
    assert_string_equal(api_str(obj, "data", "k", NULL), "v");
    assert_non_null(api_str(obj, "metadata", "resourceVersion", NULL));
    api_resp_free(r);

    /* a list */

    r = api_call(env, "GET", CM, NULL, NULL, PB);
    assert_int_equal(r->status, 200);
    obj = decode(env, a, r->body, r->len);
    assert_string_equal(api_str(obj, "kind", NULL), "ConfigMapList");
    assert_int_equal(json_array_size(json_object_get(obj, "items")), 1);
    api_resp_free(r);

    /* a watch: length-prefixed WatchEvent frames */

    r = api_call_stream(env, "GET", CM "?watch=1&timeoutSeconds=1", PB,
                        3000);
    assert_int_equal(r->status, 200);
    assert_string_equal(r->content_type, PB ";stream=watch");
    assert_true(r->len > 4);

    off = 0;
    n = 0;

    while (off + 4 <= r->len) {
        flen = (uint32_t) (unsigned char) r->body[off] << 24
               | (uint32_t) (unsigned char) r->body[off + 1] << 16
               | (uint32_t) (unsigned char) r->body[off + 2] << 8
               | (uint32_t) (unsigned char) r->body[off + 3];
        off += 4;
        assert_true(off + flen <= r->len);

        ev = NULL;
        assert_int_equal(gcp_protobuf_decode_message(a,
                             api_env_api(env)->schemas,
                             "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
                             r->body + off, flen, &ev, &msg), GCP_OK);
        assert_string_equal(api_str(ev, "type", NULL), "ADDED");
        off += flen;
        n++;
    }

    assert_int_equal(off, r->len);
    assert_int_equal(n, 1);
    api_resp_free(r);

    gcp_arena_destroy(a);
    api_env_destroy(env);
}


/*
 * An error's Status in the client's encoding, as kube-apiserver's
 * ErrorNegotiated: protobuf, YAML or JSON (pretty when asked) as Accept
 * prefers (no "as=" transformation), JSON when none is acceptable.
 */

static void
test_protobuf_status_errors(void **state)
{
    size_t        i;
    json_t       *obj;
    api_env_t    *env;
    api_resp_t   *r;
    gcp_arena_t  *a;

    static const struct {
        const char  *accept;
        const char  *content_type;
    } cases[] = {
        { PB, PB },
        { PB ", application/json", PB },
        { "application/json;q=0.9, " PB, PB },
        { PB ";q=0.5, application/json", "application/json" },
        { "application/yaml", "application/yaml" },
        { "application/json;as=Table;v=v1;g=meta.k8s.io, " PB, PB },
        { "application/json;as=Table;v=v1;g=meta.k8s.io", "application/json" },
        { NULL, "application/json" },
    };

    env = api_env_create();
    a = gcp_arena_create(0);

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        r = api_call(env, "GET", CM "/missing", NULL, NULL, cases[i].accept);
        assert_int_equal(r->status, 404);
        assert_string_equal(r->content_type, cases[i].content_type);

        if (strcmp(cases[i].content_type, PB) == 0) {
            assert_memory_equal(r->body, "k8s\0", 4);
            obj = decode(env, a, r->body, r->len);

        } else if (strcmp(cases[i].content_type, "application/yaml") == 0) {
            assert_non_null(strstr(r->body, "reason: NotFound\n"));
            assert_non_null(strstr(r->body,
                                   "message: configmaps \"missing\" not "
                                   "found\n"));
            api_resp_free(r);
            continue;

        } else {
            obj = r->json;
        }

        assert_string_equal(api_str(obj, "kind", NULL), "Status");
        assert_string_equal(api_str(obj, "status", NULL), "Failure");
        assert_string_equal(api_str(obj, "reason", NULL), "NotFound");
        assert_string_equal(api_str(obj, "message", NULL),
                            "configmaps \"missing\" not found");
        assert_string_equal(api_str(obj, "details", "name", NULL),
                            "missing");
        assert_int_equal(json_integer_value(json_object_get(obj, "code")),
                         404);
        api_resp_free(r);
    }

    /* ?pretty=true (or curl's User-Agent): JSON indented as Go's */
    /* MarshalIndent; protobuf is not affected */

    r = api_call(env, "GET", CM "/missing?pretty=true", NULL, NULL, NULL);
    assert_int_equal(r->status, 404);
    assert_string_equal(r->content_type, "application/json");
    assert_memory_equal(r->body, "{\n  \"kind\": \"Status\",\n  "
                        "\"apiVersion\": \"v1\",\n", 39);
    assert_string_equal(api_str(r->json, "reason", NULL), "NotFound");
    api_resp_free(r);

    r = api_call(env, "GET", CM "/missing?pretty=false", NULL, NULL, NULL);
    assert_memory_equal(r->body, "{\"kind\":\"Status\",", 17);
    api_resp_free(r);

    r = api_call(env, "GET", CM "/missing?pretty=true", NULL, NULL, PB);
    assert_string_equal(r->content_type, PB);
    api_resp_free(r);

    /* nothing acceptable: the 406 itself in JSON */

    r = api_call(env, "GET", CM "/missing", NULL, NULL, "application/xml");
    assert_int_equal(r->status, 406);
    assert_string_equal(r->content_type, "application/json");
    assert_string_equal(api_str(r->json, "reason", NULL), "NotAcceptable");
    api_resp_free(r);

    /* a protobuf body refused, in protobuf */

    r = api_call_n(env, "POST", CM, PB, "k8s\0\x0a\x01", 6, PB);
    assert_int_equal(r->status, 400);
    assert_string_equal(r->content_type, PB);
    obj = decode(env, a, r->body, r->len);
    assert_string_equal(api_str(obj, "reason", NULL), "BadRequest");
    api_resp_free(r);

    gcp_arena_destroy(a);
    api_env_destroy(env);
}


/* Every resource that says it has protobuf has it in its schema. */

static void
test_protobuf_flags(void **state)
{
    size_t           i;
    api_env_t       *env;
    gcp_registry_t  *reg;

    env = api_env_create();
    reg = api_env_api(env)->registry;

    for (i = 0; i < reg->n; i++) {
        assert_int_equal(reg->resources[i]->protobuf,
                         gcp_protobuf_capable(api_env_api(env)->schemas,
                                              reg->resources[i]->schema));
    }

    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_protobuf_roundtrip),
        cmocka_unit_test(test_protobuf_flags),
        cmocka_unit_test(test_protobuf_status_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
