
/*
 * Unit tests: the protobuf encoding of apiextensions.k8s.io/v1
 * (core/encoding/gcp_protobuf*.c over apiextensions.k8s.io_v1.json):
 * kube-apiserver's bytes of a CustomResourceDefinition, its list and a
 * watch frame (t/unit/encoding/data/, see README there), and the wire
 * form of JSONSchemaProps' special types (JSON, JSONSchemaPropsOrArray,
 * JSONSchemaPropsOrBool, JSONSchemaPropsOrStringArray, doubles), seen
 * through plain test messages that give their fields names.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_protobuf.h"
#include "support_schema.h"


#define V1     "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
#define PROPS  V1 "JSONSchemaProps"
#define REF    "#/components/schemas/"


/*
 * The wire form of JSONSchemaProps' unions and JSON values, as plain
 * messages with upstream's field numbers: test.crd.View reads the bytes
 * of a JSONSchemaProps and shows what they hold.
 */
static const char  test_defs[] =
    "{\"test.crd.Raw\": {\"type\": \"object\", \"properties\": {"
    "  \"raw\": {\"type\": \"string\", \"x-gcp-proto\": 1}}},"
    " \"test.crd.OrArray\": {\"type\": \"object\", \"properties\": {"
    "  \"schema\": {\"$ref\": \"" REF PROPS "\", \"x-gcp-proto\": 1,"
    "    \"x-gcp-proto-ptr\": true},"
    "  \"jSONSchemas\": {\"type\": \"array\", \"x-gcp-proto\": 2,"
    "    \"items\": {\"$ref\": \"" REF PROPS "\"}}}},"
    " \"test.crd.OrBool\": {\"type\": \"object\", \"properties\": {"
    "  \"allows\": {\"type\": \"boolean\", \"x-gcp-proto\": 1,"
    "    \"x-gcp-proto-noomit\": true},"
    "  \"schema\": {\"$ref\": \"" REF PROPS "\", \"x-gcp-proto\": 2,"
    "    \"x-gcp-proto-ptr\": true}}},"
    " \"test.crd.OrStringArray\": {\"type\": \"object\", \"properties\": {"
    "  \"schema\": {\"$ref\": \"" REF PROPS "\", \"x-gcp-proto\": 1,"
    "    \"x-gcp-proto-ptr\": true},"
    "  \"property\": {\"type\": \"array\", \"x-gcp-proto\": 2,"
    "    \"items\": {\"type\": \"string\"}}}},"
    " \"test.crd.View\": {\"type\": \"object\", \"properties\": {"
    "  \"id\": {\"type\": \"string\", \"x-gcp-proto\": 1},"
    "  \"schema\": {\"type\": \"string\", \"x-gcp-proto\": 2},"
    "  \"ref\": {\"type\": \"string\", \"x-gcp-proto\": 3,"
    "    \"x-gcp-proto-ptr\": true},"
    "  \"default\": {\"$ref\": \"" REF "test.crd.Raw\", \"x-gcp-proto\": 8,"
    "    \"x-gcp-proto-ptr\": true},"
    "  \"enum\": {\"type\": \"array\", \"x-gcp-proto\": 20,"
    "    \"items\": {\"$ref\": \"" REF "test.crd.Raw\"}},"
    "  \"items\": {\"$ref\": \"" REF "test.crd.OrArray\","
    "    \"x-gcp-proto\": 24, \"x-gcp-proto-ptr\": true},"
    "  \"additionalProperties\": {\"$ref\": \"" REF "test.crd.OrBool\","
    "    \"x-gcp-proto\": 30, \"x-gcp-proto-ptr\": true},"
    "  \"dependencies\": {\"type\": \"object\", \"x-gcp-proto\": 32,"
    "    \"additionalProperties\": {\"$ref\": \""
    REF "test.crd.OrStringArray\"}},"
    "  \"additionalItems\": {\"$ref\": \"" REF "test.crd.OrBool\","
    "    \"x-gcp-proto\": 33, \"x-gcp-proto-ptr\": true},"
    "  \"example\": {\"$ref\": \"" REF "test.crd.Raw\", \"x-gcp-proto\": 36,"
    "    \"x-gcp-proto-ptr\": true},"
    "  \"listType\": {\"type\": \"string\", \"x-gcp-proto\": 42,"
    "    \"x-gcp-proto-ptr\": true}}}"
    "}";


static gcp_schema_set_t  *set;


static int
setup(void **state)
{
    set = schema_set_with(test_defs, sizeof(test_defs) - 1);

    return 0;
}


static int
teardown(void **state)
{
    gcp_schema_set_free(set);

    return 0;
}


/* ------------------------------------------------------------------ */
/* helpers                                                             */

/* JSON written with ' for ", parsed as the server parses bodies. */
static json_t *
js(gcp_arena_t *a, const char *text)
{
    char         *s, *p;
    json_t       *v;
    const char   *msg;

    s = gcp_strdup(a, text);

    for (p = s; *p; p++) {
        *p = *p == '\'' ? '"' : *p;
    }

    v = gcp_json_parse(a, s, strlen(s), &msg);
    if (v == NULL) {
        fail_msg("bad JSON in the test: %s: %s", msg, text);
    }

    return v;
}


/* A file of t/unit/encoding/data/, in arena memory. */
static char *
fixture(gcp_arena_t *a, const char *name, size_t *len)
{
    long         n;
    FILE        *f;
    char        *data;
    const char  *path;

    path = gcp_sprintf(a, "%.*sdata/%s",
                       (int) (strrchr(__FILE__, '/') + 1 - __FILE__),
                       __FILE__, name);

    f = fopen(path, "rb");
    if (f == NULL) {
        fail_msg("%s: cannot open (run from the repository root)", path);
    }

    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n > 0);
    rewind(f);

    data = gcp_alloc(a, (size_t) n + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t) n, f), (size_t) n);
    fclose(f);

    data[n] = '\0';
    *len = (size_t) n;

    return data;
}


/* Encodes obj as a bare message of definition def. */
static gcp_buf_t
message(gcp_arena_t *a, const char *def, const json_t *obj)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    assert_int_equal(gcp_protobuf_encode_message(&b, set, def, obj),
                     GCP_OK);

    return b;
}


/* Decodes a bare message of definition def; returns its compact JSON. */
static const char *
read_as(gcp_arena_t *a, const char *def, const gcp_buf_t *b)
{
    json_t       *out;
    const char   *msg;

    msg = NULL;

    if (gcp_protobuf_decode_message(a, set, def, b->data, b->len, &out,
                                    &msg)
        != GCP_OK)
    {
        fail_msg("%s does not decode: %s", def, msg ? msg : "ENOMEM");
    }

    return gcp_json_dump(a, out, 0).data;
}


/*
 * The JSONSchemaProps json: its wire form seen through test.crd.View is
 * view, and it decodes back to expect (json itself when NULL).
 */
static void
props(gcp_arena_t *a, const char *json, const char *view,
    const char *expect)
{
    gcp_buf_t  b;

    b = message(a, PROPS, js(a, json));

    assert_string_equal(read_as(a, "test.crd.View", &b),
                        gcp_json_dump(a, js(a, view), 0).data);
    assert_string_equal(read_as(a, PROPS, &b),
                        gcp_json_dump(a, js(a, expect ? expect : json),
                                      0).data);
}


/* The view bytes of test.crd.View's JSON decoded as a JSONSchemaProps. */
static void
from_view(gcp_arena_t *a, const char *view, const char *expect)
{
    gcp_buf_t  b;

    b = message(a, "test.crd.View", js(a, view));

    assert_string_equal(read_as(a, PROPS, &b),
                        gcp_json_dump(a, js(a, expect), 0).data);
}


/* ------------------------------------------------------------------ */
/* kube-apiserver's bytes                                              */

/*
 * An object's JSON and protobuf bytes from kube-apiserver: encoding the
 * JSON gives the bytes, decoding the bytes gives the JSON, to the byte.
 */
/*
 * The JSON fixture name: its text without kube-apiserver's final newline
 * in *text, and its value (both arena-owned).
 */
static json_t *
fixture_json(gcp_arena_t *a, const char *name, const char **text)
{
    size_t       n;
    char        *json;
    json_t      *obj;
    const char  *msg;

    json = fixture(a, name, &n);

    if (n && json[n - 1] == '\n') {
        json[--n] = '\0';
    }

    obj = gcp_json_parse(a, json, n, &msg);
    assert_non_null(obj);

    *text = json;

    return obj;
}


static void
reference(const char *name_json, const char *name_pb)
{
    size_t        pn;
    char         *pb;
    json_t       *obj, *out;
    gcp_buf_t     b;
    const char   *json, *msg;
    gcp_arena_t  *a = gcp_arena_create(0);

    obj = fixture_json(a, name_json, &json);
    pb = fixture(a, name_pb, &pn);

    gcp_buf_init(&b, a);
    assert_int_equal(gcp_protobuf_encode(&b, set, obj), GCP_OK);
    assert_int_equal(b.len, pn);
    assert_memory_equal(b.data, pb, pn);

    assert_int_equal(gcp_protobuf_decode(a, set, pb, pn, &out, &msg),
                     GCP_OK);
    assert_string_equal(gcp_json_dump(a, out, 0).data, json);

    gcp_arena_destroy(a);
}


static void
test_crd_reference(void **state)
{
    reference("crd-widgets.json", "crd-widgets.pb");
}


static void
test_crd_list_reference(void **state)
{
    reference("crd-list.json", "crd-list.pb");
}


/* The ADDED event of a watch on the same CustomResourceDefinition. */
static void
test_crd_watch_reference(void **state)
{
    size_t        pn;
    char         *pb;
    json_t       *obj, *ev;
    gcp_buf_t     b;
    const char   *json, *msg;
    gcp_arena_t  *a = gcp_arena_create(0);

    obj = fixture_json(a, "crd-widgets.json", &json);
    pb = fixture(a, "crd-watch.pb", &pn);

    gcp_buf_init(&b, a);
    assert_int_equal(gcp_protobuf_encode_watch_frame(&b, set, "ADDED", obj),
                     GCP_OK);
    assert_int_equal(b.len, pn);
    assert_memory_equal(b.data, pb, pn);

    assert_int_equal(gcp_protobuf_decode_message(a, set,
                         "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
                         pb + 4, pn - 4, &ev, &msg), GCP_OK);
    assert_string_equal(json_string_value(json_object_get(ev, "type")),
                        "ADDED");
    assert_true(json_equal(json_object_get(ev, "object"), obj));

    gcp_arena_destroy(a);
}


/* ------------------------------------------------------------------ */
/* JSONSchemaProps' special types                                      */

/* JSONSchemaPropsOrArray: a schema (field 1) or schemas (field 2). */
static void
test_items(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    props(a, "{'items':{'type':'string'}}",
          "{'items':{'schema':{'type':'string'}}}",
          NULL);

    props(a, "{'items':[{'type':'string'},{'type':'integer'}]}",
          "{'items':{'jSONSchemas':"
          "[{'type':'string'},{'type':'integer'}]}}", NULL);

    /* no schema at all: upstream writes null */
    props(a, "{'items':[]}", "{'items':{}}",
          "{'items':null}");

    /* the schemas win over a schema, as MarshalJSON chooses */
    from_view(a, "{'items':{'schema':{'type':'object'},'jSONSchemas':"
                 "[{'type':'string'}]}}",
              "{'items':[{'type':'string'}]}");

    gcp_arena_destroy(a);
}


/* JSONSchemaPropsOrBool: allows (field 1) and a schema (field 2). */
static void
test_additional(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    props(a, "{'additionalProperties':false}",
          "{'additionalProperties':{'allows':false}}",
          NULL);

    props(a, "{'additionalProperties':true,'additionalItems':false}",
          "{'additionalProperties':{'allows':true},"
          "'additionalItems':{'allows':false}}", NULL);

    props(a, "{'additionalProperties':{'type':'string'},"
             "'additionalItems':{'type':'integer'}}",
          "{'additionalProperties':{'allows':true,"
          "'schema':{'type':'string'}},'additionalItems':{'allows':true,"
          "'schema':{'type':'integer'}}}", NULL);

    /* a schema that does not allow is still written as the schema */
    from_view(a, "{'additionalProperties':{'allows':false,'schema':"
                 "{'type':'string'}}}",
              "{'additionalProperties':{'type':'string'}}");

    gcp_arena_destroy(a);
}


/* JSONSchemaPropsOrStringArray: a schema (1) or property names (2). */
static void
test_dependencies(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    props(a, "{'dependencies':{'b':['c','d'],'a':{'required':['e']}}}",
          "{'dependencies':{'a':{'schema':"
          "{'required':['e']}},'b':{'property':['c','d']}}}",
          "{'dependencies':{'a':{'required':['e']},'b':['c','d']}}");

    /* neither: null; the names win over a schema */
    from_view(a, "{'dependencies':{'n':{},'x':{'schema':{'type':'string'},"
                 "'property':['y']}}}",
              "{'dependencies':{'n':null,'x':['y']}}");

    gcp_arena_destroy(a);
}


/* JSON: bytes raw = 1 holding the value, object keys sorted as Go does. */
static void
test_json_values(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    props(a, "{'default':{'z':1,'a':[true,null,{'y':2.5,'x':'<'}]},"
             "'enum':[1,'a',null,{'b':{},'a':[]}],'example':'x'}",
          "{"
          "'default':{'raw':'{\\'a\\':[true,null,{\\'x\\':\\'\\\\u003c\\',"
          "\\'y\\':2.5}],\\'z\\':1}'},"
          "'enum':[{'raw':'1'},{'raw':'\\'a\\''},{},"
          "{'raw':'{\\'a\\':[],\\'b\\':{}}'}],"
          "'example':{'raw':'\\'x\\''}}",
          "{'default':{'a':[true,null,{'x':'<','y':2.5}],'z':1},"
          "'enum':[1,'a',null,{'a':[],'b':{}}],'example':'x'}");

    /* an empty raw is null, kept for a pointer */
    from_view(a, "{'default':{},'enum':[{}]}",
              "{'default':null,'enum':[null]}");

    gcp_arena_destroy(a);
}


/* Fields whose JSON names are not their proto names. */
static void
test_field_names(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    props(a, "{'id':'i','$schema':'http://json-schema.org/schema#',"
             "'$ref':'#/definitions/x',"
             "'x-kubernetes-preserve-unknown-fields':true,"
             "'x-kubernetes-embedded-resource':true,"
             "'x-kubernetes-int-or-string':true,"
             "'x-kubernetes-list-map-keys':['k'],"
             "'x-kubernetes-list-type':'map',"
             "'x-kubernetes-map-type':'atomic',"
             "'x-kubernetes-validations':[{'rule':'self.a','reason':"
             "'FieldValueRequired','optionalOldSelf':false}]}",
          "{'id':'i','schema':'http://json-schema.org/schema#',"
          "'ref':'#/definitions/x','listType':'map'}", NULL);

    gcp_arena_destroy(a);
}


/* double: fixed64; JSON as Go's float64, an integer when it is one. */
static void
test_doubles(void **state)
{
    json_t       *out;
    gcp_buf_t     b;
    const char   *msg;
    gcp_arena_t  *a = gcp_arena_create(0);

    props(a, "{'maximum':1.5,'minimum':-2,'multipleOf':1e21}",
          "{}",
          "{'maximum':1.5,'minimum':-2,'multipleOf':1e+21}");

    b = message(a, PROPS, js(a, "{'maximum':0.000001,'minimum':1e-7}"));
    assert_string_equal(read_as(a, PROPS, &b),
                        "{\"maximum\":0.000001,\"minimum\":1e-7}");

    /*
     * maximum = 1.5: tag 9, wire type 1, little-endian IEEE 754, after
     * the six strings numbered 1 to 7 (default, 8, is a nil pointer)
     */
    b = message(a, PROPS, js(a, "{'maximum':1.5}"));
    assert_true(b.len > 21);
    assert_memory_equal(b.data, "\x0a\x00\x12\x00\x22\x00\x2a\x00"
                                "\x32\x00\x3a\x00", 12);
    assert_memory_equal(b.data + 12,
                        "\x49\x00\x00\x00\x00\x00\x00\xf8\x3f", 9);

    /* encoding/json refuses NaN and infinities */
    msg = NULL;
    assert_int_equal(gcp_protobuf_decode_message(a, set, PROPS,
                         "\x49\x00\x00\x00\x00\x00\x00\xf8\x7f", 9, &out,
                         &msg), GCP_EBADREQUEST);
    assert_string_equal(msg, "json: unsupported value: NaN");

    assert_int_equal(gcp_protobuf_decode_message(a, set, PROPS,
                         "\x59\x00\x00\x00\x00\x00\x00\xf0\xff", 9, &out,
                         &msg), GCP_EBADREQUEST);
    assert_string_equal(msg, "json: unsupported value: -Inf");

    /* a double cut short */
    assert_int_equal(gcp_protobuf_decode_message(a, set, PROPS,
                         "\x49\x00\x00\x00", 4, &out, &msg),
                     GCP_EBADREQUEST);
    assert_string_equal(msg, "unexpected EOF");

    gcp_arena_destroy(a);
}


/* JSON values the Go types cannot hold are not encoded. */
static void
test_encode_errors(void **state)
{
    size_t        i;
    gcp_buf_t     b;
    gcp_arena_t  *a = gcp_arena_create(0);

    static const char  *bad[] = {
        "{'items':'x'}",
        "{'items':true}",
        "{'additionalProperties':1}",
        "{'additionalProperties':[]}",
        "{'dependencies':{'a':true}}",
        "{'dependencies':{'a':[1]}}",
        "{'maximum':'1'}",
        "{'enum':{}}",
    };

    gcp_buf_init(&b, a);

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (gcp_protobuf_encode_message(&b, set, PROPS, js(a, bad[i]))
            != GCP_EINTERNAL)
        {
            fail_msg("encoded: %s", bad[i]);
        }

        assert_int_equal(b.len, 0);
    }

    gcp_arena_destroy(a);
}


/* A CustomResourceDefinition in protobuf and back, every special type. */
static void
test_crd_roundtrip(void **state)
{
    json_t       *obj, *out;
    gcp_buf_t     b;
    const char   *msg;
    gcp_arena_t  *a = gcp_arena_create(0);

    obj = js(a,
        "{'kind':'CustomResourceDefinition',"
        "'apiVersion':'apiextensions.k8s.io/v1',"
        "'metadata':{'name':'things.example.com','creationTimestamp':null},"
        "'spec':{'group':'example.com','names':{'plural':'things',"
        "'kind':'Thing'},'scope':'Cluster','versions':[{'name':'v1',"
        "'served':true,'storage':true,'schema':{'openAPIV3Schema':"
        "{'type':'object','properties':{'a':{'type':'array','items':"
        "[{'type':'string'}],'additionalItems':false},"
        "'d':{'patternProperties':{'^p':{'type':'string'}},"
        "'dependencies':{'x':['y']},'definitions':"
        "{'q':{'type':'boolean','enum':[true]}}},"
        "'m':{'type':'object','additionalProperties':{'type':'integer',"
        "'default':3,'maximum':7.25}}}}},"
        "'selectableFields':[{'jsonPath':'.spec.a'}]}]},"
        "'status':{'conditions':null,'acceptedNames':{'plural':'',"
        "'kind':''},'storedVersions':null}}");

    gcp_buf_init(&b, a);
    assert_int_equal(gcp_protobuf_encode(&b, set, obj), GCP_OK);

    assert_int_equal(gcp_protobuf_decode(a, set, b.data, b.len, &out, &msg),
                     GCP_OK);
    assert_string_equal(gcp_json_dump(a, out, 0).data,
                        gcp_json_dump(a, obj, 0).data);

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_crd_reference),
        cmocka_unit_test(test_crd_list_reference),
        cmocka_unit_test(test_crd_watch_reference),
        cmocka_unit_test(test_items),
        cmocka_unit_test(test_additional),
        cmocka_unit_test(test_dependencies),
        cmocka_unit_test(test_json_values),
        cmocka_unit_test(test_field_names),
        cmocka_unit_test(test_doubles),
        cmocka_unit_test(test_encode_errors),
        cmocka_unit_test(test_crd_roundtrip),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
