
/*
 * Unit tests: Kubernetes protobuf encoding and decoding
 * (core/encoding/gcp_protobuf*.c) over the embedded schemas, against bytes
 * captured from kube-apiserver, hand-built messages and hostile input.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_object.h"
#include "gcp_protobuf.h"
#include "support_fuzz.h"
#include "support_schema.h"


#define META   "io.k8s.apimachinery.pkg.apis.meta.v1."
#define FUZZ_SECONDS  2


/*
 * Test-only definitions: every wire shape the built-in types do not use
 * (repeated scalars, IntOrString, Quantity, maps of messages and times,
 * bytes, an embedded object), and a kind without protobuf annotations.
 */
static const char  test_defs[] =
    "{\"test.v1.Quantity\": {\"type\": \"string\","
    "   \"x-gcp-proto-type\": \"quantity\"},"
    " \"test.v1.Sample\": {\"type\": \"object\", \"properties\": {"
    "  \"apiVersion\": {\"type\": \"string\", \"x-gcp-proto\": 0},"
    "  \"kind\": {\"type\": \"string\", \"x-gcp-proto\": 0},"
    "  \"ints\": {\"type\": \"array\", \"x-gcp-proto\": 1,"
    "    \"items\": {\"type\": \"integer\", \"format\": \"int32\"}},"
    "  \"longs\": {\"type\": \"array\", \"x-gcp-proto\": 2,"
    "    \"items\": {\"type\": \"integer\", \"format\": \"int64\"}},"
    "  \"flags\": {\"type\": \"array\", \"x-gcp-proto\": 3,"
    "    \"items\": {\"type\": \"boolean\"}},"
    "  \"port\": {\"x-kubernetes-int-or-string\": true, \"x-gcp-proto\": 4},"
    "  \"ports\": {\"type\": \"array\", \"x-gcp-proto\": 5,"
    "    \"items\": {\"x-kubernetes-int-or-string\": true}},"
    "  \"qty\": {\"x-gcp-proto\": 6, \"allOf\": [{\"$ref\": "
    "    \"#/components/schemas/test.v1.Quantity\"}]},"
    "  \"counts\": {\"type\": \"object\", \"x-gcp-proto\": 7,"
    "    \"additionalProperties\": {\"type\": \"integer\","
    "                             \"format\": \"int32\"}},"
    "  \"refs\": {\"type\": \"object\", \"x-gcp-proto\": 8,"
    "    \"additionalProperties\": {\"$ref\": "
    "      \"#/components/schemas/io.k8s.api.core.v1.ObjectReference\"}},"
    "  \"blobs\": {\"type\": \"array\", \"x-gcp-proto\": 9,"
    "    \"items\": {\"type\": \"string\", \"format\": \"byte\"}},"
    "  \"raw\": {\"type\": \"string\", \"format\": \"byte\","
    "    \"x-gcp-proto\": 10},"
    "  \"opt\": {\"type\": \"string\", \"x-gcp-proto\": 11,"
    "    \"x-gcp-proto-ptr\": true},"
    "  \"times\": {\"type\": \"object\", \"x-gcp-proto\": 12,"
    "    \"additionalProperties\": {\"$ref\": "
    "      \"#/components/schemas/" META "Time\"}},"
    "  \"embedded\": {\"x-gcp-proto\": 13, \"x-gcp-proto-noomit\": true,"
    "    \"$ref\": \"#/components/schemas/"
    "io.k8s.apimachinery.pkg.runtime.RawExtension\"}},"
    "  \"x-kubernetes-group-version-kind\": [{\"group\": "
    "    \"test.example.com\", \"version\": \"v1\", \"kind\": \"Sample\"}]},"
    " \"test.v1.Widget\": {\"type\": \"object\", \"properties\": {"
    "  \"apiVersion\": {\"type\": \"string\"},"
    "  \"kind\": {\"type\": \"string\"},"
    "  \"spec\": {\"type\": \"object\"}},"
    "  \"x-kubernetes-group-version-kind\": [{\"group\": "
    "    \"test.example.com\", \"version\": \"v1\", \"kind\": \"Widget\"}]}"
    "}";


/* GET configmaps/cm1 with Accept: application/vnd.kubernetes.protobuf */
static const char  cm_hex[] =
    "6b3873000a0f0a0276311209436f6e6669674d61701284030ac9020a03636d31"
    "12001a087265662d6372756422002a2433653336376231652d313161342d3437"
    "33352d396565322d62396266633031336362356332043636393338004208089a"
    "9f8ad80610005a0b0a03617070120464656d6f5a0f0a04746965721207626163"
    "6b656e64620b0a046e6f74651203736d708a01cf010a0a726566636170747572"
    "6512065570646174651a0276312208089b9f8ad806100032084669656c647356"
    "313a9e010a9b017b22663a64617461223a7b222e223a7b7d2c22663a6b657931"
    "223a7b7d2c22663a6b657932223a7b7d2c22663a6e6f737563686b6579223a7b"
    "7d7d2c22663a6d65746164617461223a7b22663a616e6e6f746174696f6e7322"
    "3a7b222e223a7b7d2c22663a6e6f7465223a7b7d7d2c22663a6c6162656c7322"
    "3a7b222e223a7b7d2c22663a617070223a7b7d2c22663a74696572223a7b7d7d"
    "7d7d4200120e0a046b657931120676616c75653112160a046b657932120e7061"
    "74636865642d62792d736d70120e0a096e6f737563686b65791201781a002200";

/* the same object as kube-apiserver's JSON ('' for "") */
static const char  cm_json[] =
    "{'kind':'ConfigMap','apiVersion':'v1','metadata':{'name':'cm1',"
    "'namespace':'ref-crud','uid':'3e367b1e-11a4-4735-9ee2-b9bfc013cb5c',"
    "'resourceVersion':'6693','creationTimestamp':'2026-11-22T06:45:46Z',"
    "'labels':{'app':'demo','tier':'backend'},'annotations':{'note':'smp'},"
    "'managedFields':[{'manager':'refcapture','operation':'Update',"
    "'apiVersion':'v1','time':'2026-11-22T06:45:47Z','fieldsType':"
    "'FieldsV1','fieldsV1':{'f:data':{'.':{},'f:key1':{},'f:key2':{},"
    "'f:nosuchkey':{}},'f:metadata':{'f:annotations':{'.':{},'f:note':{}},"
    "'f:labels':{'.':{},'f:app':{},'f:tier':{}}}}}]},'data':{'key1':"
    "'value1','key2':'patched-by-smp','nosuchkey':'x'}}";

/* a custom resource asked for in protobuf only: 406 with this Status */
static const char  status_hex[] =
    "6b3873000a0c0a02763112065374617475731299010a060a0012001a00120746"
    "61696c7572651a746f6e6c792074686520666f6c6c6f77696e67206d65646961"
    "207479706573206172652061636365707465643a206170706c69636174696f6e"
    "2f6a736f6e2c206170706c69636174696f6e2f79616d6c2c206170706c696361"
    "74696f6e2f766e642e6b756265726e657465732e70726f746f627566220d4e6f"
    "7441636365707461626c653096031a002200";

static const char  status_json[] =
    "{'kind':'Status','apiVersion':'v1','metadata':{},'status':'Failure',"
    "'message':'only the following media types are accepted: "
    "application/json, application/yaml, application/vnd.kubernetes."
    "protobuf','reason':'NotAcceptable','code':406}";


static gcp_schema_set_t  *set;


/* ------------------------------------------------------------------ */
/* helpers                                                             */

/* A protobuf writer for hand-built messages. */
typedef struct {
    unsigned char  *d;
    size_t          n;
    size_t          cap;
} pb_t;


static pb_t *
pb_new(void)
{
    pb_t  *w;

    w = calloc(1, sizeof(pb_t));
    assert_non_null(w);

    return w;
}


static void
pb_free(pb_t *w)
{
    free(w->d);
    free(w);
}


static void
pb_raw(pb_t *w, const void *p, size_t n)
{
    if (w->n + n > w->cap) {
        w->cap = (w->n + n) * 2 + 64;
        w->d = realloc(w->d, w->cap);
        assert_non_null(w->d);
    }

    if (n) {
        memcpy(w->d + w->n, p, n);
    }

    w->n += n;
}


static void
pb_varint(pb_t *w, uint64_t v)
{
    unsigned char  c;

    while (v >= 0x80) {
        c = (unsigned char) (v | 0x80);
        pb_raw(w, &c, 1);
        v >>= 7;
    }

    c = (unsigned char) v;
    pb_raw(w, &c, 1);
}


static void
pb_tag(pb_t *w, uint32_t num, int wire)
{
    pb_varint(w, ((uint64_t) num << 3) | (uint64_t) wire);
}


static void
pb_int(pb_t *w, uint32_t num, int64_t v)
{
    pb_tag(w, num, 0);
    pb_varint(w, (uint64_t) v);
}


static void
pb_bytes(pb_t *w, uint32_t num, const void *p, size_t n)
{
    pb_tag(w, num, 2);
    pb_varint(w, n);
    pb_raw(w, p, n);
}


static void
pb_str(pb_t *w, uint32_t num, const char *s)
{
    pb_bytes(w, num, s, strlen(s));
}


static void
pb_sub(pb_t *w, uint32_t num, const pb_t *sub)
{
    pb_bytes(w, num, sub->d, sub->n);
}


/* magic + Unknown{TypeMeta{av, kind}, raw} into a new writer */
static pb_t *
pb_envelope(const char *av, const char *kind, const pb_t *raw)
{
    pb_t  *w, *tm;

    w = pb_new();
    tm = pb_new();

    pb_str(tm, 1, av);
    pb_str(tm, 2, kind);

    pb_raw(w, "k8s\0", 4);
    pb_sub(w, 1, tm);

    if (raw) {
        pb_sub(w, 2, raw);
    }

    pb_free(tm);

    return w;
}


static size_t
unhex(gcp_arena_t *a, const char *hex, char **out)
{
    size_t        i, n;
    unsigned int  c;

    n = strlen(hex) / 2;
    *out = gcp_alloc(a, n + 1);
    assert_non_null(*out);

    for (i = 0; i < n; i++) {
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &c), 1);
        (*out)[i] = (char) c;
    }

    return n;
}


/* JSON written with ' for " (the fixtures have no apostrophes). */
static json_t *
load(gcp_arena_t *a, const char *text)
{
    char          *s, *p;
    json_t        *v;
    json_error_t   err;

    s = gcp_strdup(a, text);
    assert_non_null(s);

    for (p = s; *p; p++) {
        if (*p == '\'') {
            *p = '"';
        }
    }

    v = json_loads(s, JSON_DECODE_ANY, &err);
    if (v == NULL) {
        fail_msg("bad fixture at %d: %s", err.position, err.text);
    }

    return gcp_json_arena(a, v);
}


static const char *
dump(gcp_arena_t *a, const json_t *v)
{
    gcp_str_t  s;

    s = gcp_json_dump(a, v, 0);
    assert_non_null(s.data);

    return s.data;
}


static const char *
canon(gcp_arena_t *a, const char *text)
{
    return dump(a, load(a, text));
}


static gcp_str_t
encode(gcp_arena_t *a, const json_t *obj)
{
    gcp_buf_t  b;
    gcp_str_t  s;

    gcp_buf_init(&b, a);
    assert_int_equal(gcp_protobuf_encode(&b, set, obj), GCP_OK);

    s.data = b.data;
    s.len = b.len;

    return s;
}


static json_t *
decode(gcp_arena_t *a, const char *data, size_t len)
{
    int          rc;
    json_t      *out;
    const char  *msg;

    msg = NULL;
    out = NULL;
    rc = gcp_protobuf_decode(a, set, data, len, &out, &msg);
    if (rc != GCP_OK) {
        fail_msg("decode: %d %s", rc, msg ? msg : "");
    }

    return out;
}


/* JSON -> protobuf -> JSON gives the same text; re-encoding is stable. */
static void
roundtrip(const char *text)
{
    json_t       *back;
    gcp_str_t     one, two;
    gcp_arena_t  *a = gcp_arena_create(0);

    one = encode(a, load(a, text));
    back = decode(a, one.data, one.len);

    assert_string_equal(dump(a, back), canon(a, text));

    two = encode(a, back);
    assert_int_equal(two.len, one.len);
    assert_memory_equal(two.data, one.data, one.len);

    gcp_arena_destroy(a);
}


/* What a (hostile) body decodes to: the error message, or "OK". */
static const char *
decode_err(gcp_arena_t *a, const char *data, size_t len,
    gcp_protobuf_error_t *err)
{
    int                   rc;
    json_t               *out;
    gcp_protobuf_error_t  e;

    rc = gcp_protobuf_decode_ex(a, set, data, len, &out, err ? err : &e);
    if (rc == GCP_OK) {
        return "OK";
    }

    assert_true(rc == GCP_EBADREQUEST || rc == GCP_EMEDIATYPE);

    return err ? err->msg : e.msg;
}


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
/* kube-apiserver's bytes                                              */

static void
test_configmap_reference(void **state)
{
    char         *ref;
    size_t        n;
    gcp_str_t     enc;
    gcp_arena_t  *a = gcp_arena_create(0);

    n = unhex(a, cm_hex, &ref);
    assert_int_equal(n, 416);

    enc = encode(a, load(a, cm_json));
    assert_int_equal(enc.len, n);
    assert_memory_equal(enc.data, ref, n);

    assert_string_equal(dump(a, decode(a, ref, n)), canon(a, cm_json));

    gcp_arena_destroy(a);
}


static void
test_status_reference(void **state)
{
    char         *ref;
    size_t        n;
    gcp_str_t     enc;
    gcp_arena_t  *a = gcp_arena_create(0);

    n = unhex(a, status_hex, &ref);
    assert_int_equal(n, 178);

    enc = encode(a, load(a, status_json));
    assert_int_equal(enc.len, n);
    assert_memory_equal(enc.data, ref, n);

    assert_string_equal(dump(a, decode(a, ref, n)), canon(a, status_json));

    gcp_arena_destroy(a);
}


/* Value fields are written even when the JSON lacks them. */
static void
test_encode_defaults(void **state)
{
    gcp_str_t     enc;
    gcp_arena_t  *a = gcp_arena_create(0);

    /* Namespace{metadata{name "x", generateName "", namespace "",
     * selfLink "", uid "", resourceVersion "", generation 0,
     * creationTimestamp {}}, spec {}, status {phase ""}} */
    static const char  ns[] =
        "k8s\0"
        "\x0a\x0f\x0a\x02v1\x12\x09Namespace"
        "\x12\x19"
        "\x0a\x11\x0a\x01x\x12\x00\x1a\x00\x22\x00\x2a\x00\x32\x00"
        "\x38\x00\x42\x00"
        "\x12\x00"
        "\x1a\x02\x0a\x00"
        "\x1a\x00\x22\x00";

    enc = encode(a, load(a, "{'kind':'Namespace','apiVersion':'v1',"
                            "'metadata':{'name':'x'}}"));
    assert_int_equal(enc.len, sizeof(ns) - 1);
    assert_memory_equal(enc.data, ns, sizeof(ns) - 1);

    /* and decoding gives kube-apiserver's JSON of that object */
    assert_string_equal(dump(a, decode(a, enc.data, enc.len)),
        canon(a, "{'kind':'Namespace','apiVersion':'v1','metadata':"
                 "{'name':'x','creationTimestamp':null},'spec':{},"
                 "'status':{}}"));

    gcp_arena_destroy(a);
}


/* Wire details: sorted map entries, sign-extended int32, pointers to
 * zero values, IntOrString, Quantity, MicroTime nanoseconds. */
static void
test_encode_bytes(void **state)
{
    gcp_buf_t     b;
    gcp_str_t     enc;
    gcp_arena_t  *a = gcp_arena_create(0);

    static const char  sample[] =
        "k8s\0"
        "\x0a\x1d\x0a\x13" "test.example.com/v1" "\x12\x06" "Sample"
        "\x12\x2b"
        "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
        "\x22\x07\x08\x01\x10\x00\x1a\x01" "a"
        "\x32\x03\x0a\x01" "1"
        "\x3a\x05\x0a\x01" "a" "\x10\x02"
        "\x3a\x05\x0a\x01" "b" "\x10\x01"
        "\x5a\x00"
        "\x6a\x00"
        "\x1a\x00\x22\x00";

    enc = encode(a, load(a, "{'kind':'Sample','apiVersion':"
                            "'test.example.com/v1','ints':[-1],'port':'a',"
                            "'qty':'1','counts':{'b':1,'a':2},'opt':'',"
                            "'embedded':null}"));
    assert_int_equal(enc.len, sizeof(sample) - 1);
    assert_memory_equal(enc.data, sample, sizeof(sample) - 1);

    /* LeaseSpec{acquireTime: Timestamp{seconds, nanos}, leaseTransitions
     * 0}: the nil pointers are left out */
    gcp_buf_init(&b, a);
    assert_int_equal(gcp_protobuf_encode_message(&b, set,
                         "io.k8s.api.coordination.v1.LeaseSpec",
                         load(a, "{'acquireTime':"
                                 "'2026-11-22T06:45:46.123456Z',"
                                 "'leaseTransitions':0,'renewTime':null}")),
                     GCP_OK);
    assert_int_equal(b.len, 15);
    assert_memory_equal(b.data, "\x1a\x0b\x08\x9a\x9f\x8a\xd8\x06\x10"
                        "\x80\x94\xef\x3a\x28\x00", 15);

    gcp_arena_destroy(a);
}


/* Fields without omitempty come out as zero values or null. */
static void
test_decode_noomit(void **state)
{
    gcp_str_t     enc;
    gcp_arena_t  *a = gcp_arena_create(0);

    enc = encode(a, load(a, "{'kind':'TokenRequest','apiVersion':"
                            "'authentication.k8s.io/v1','spec':"
                            "{'audiences':['x']}}"));

    assert_string_equal(dump(a, decode(a, enc.data, enc.len)),
        canon(a, "{'kind':'TokenRequest','apiVersion':"
                 "'authentication.k8s.io/v1','metadata':"
                 "{'creationTimestamp':null},'spec':{'audiences':['x'],"
                 "'expirationSeconds':null,'boundObjectRef':null},"
                 "'status':{'token':'','expirationTimestamp':null}}"));

    enc = encode(a, load(a, "{'kind':'Event','apiVersion':'v1',"
                            "'metadata':{'name':'e'}}"));

    assert_string_equal(dump(a, decode(a, enc.data, enc.len)),
        canon(a, "{'kind':'Event','apiVersion':'v1','metadata':{'name':"
                 "'e','creationTimestamp':null},'involvedObject':{},"
                 "'source':{},'firstTimestamp':null,'lastTimestamp':null,"
                 "'eventTime':null,'reportingComponent':'',"
                 "'reportingInstance':''}"));

    gcp_arena_destroy(a);
}


/* ------------------------------------------------------------------ */
/* round trips of every served kind                                    */

static void
test_roundtrip_namespace(void **state)
{
    roundtrip("{'kind':'Namespace','apiVersion':'v1','metadata':{'name':"
              "'ns1','generateName':'ns-','selfLink':'/api/v1/namespaces/"
              "ns1','uid':'u-1','resourceVersion':'42','generation':3,"
              "'creationTimestamp':'2026-11-22T06:45:46Z',"
              "'deletionTimestamp':'2026-11-22T07:00:00Z',"
              "'deletionGracePeriodSeconds':0,'labels':{'a':'1','b':'2'},"
              "'annotations':{'z':'last','\\u00e9':'accent'},"
              "'ownerReferences':[{'apiVersion':'v1','kind':'ConfigMap',"
              "'name':'owner','uid':'u-0','controller':true,"
              "'blockOwnerDeletion':false}],'finalizers':['kubernetes',"
              "'example.com/f'],'managedFields':[{'manager':'m',"
              "'operation':'Apply','apiVersion':'v1','fieldsType':"
              "'FieldsV1','fieldsV1':{'f:spec':{'<&>':{}}},'subresource':"
              "'status'}]},'spec':{'finalizers':['kubernetes']},'status':"
              "{'phase':'Terminating','conditions':[{'type':'NamespaceDel"
              "etionContentFailure','status':'True','lastTransitionTime':"
              "'2026-11-22T06:50:00Z','reason':'R','message':'M'},{'type':"
              "'T2','status':'False','lastTransitionTime':null}]}}");

    roundtrip("{'kind':'NamespaceList','apiVersion':'v1','metadata':"
              "{'resourceVersion':'9'},'items':[{'metadata':{'name':'a',"
              "'creationTimestamp':null},'spec':{},'status':{'phase':"
              "'Active'}}]}");
}


static void
test_roundtrip_configmap_secret(void **state)
{
    roundtrip("{'kind':'ConfigMap','apiVersion':'v1','metadata':{'name':"
              "'c','creationTimestamp':null},'immutable':true,'data':{'a':"
              "'','b':'x'},'binaryData':{'b':'aGk=','e':''}}");

    roundtrip("{'kind':'ConfigMapList','apiVersion':'v1','metadata':"
              "{'selfLink':'/x','resourceVersion':'10','continue':'tok',"
              "'remainingItemCount':0},'items':[{'metadata':{'name':'a',"
              "'creationTimestamp':null},'data':{'k':'v'}},{'metadata':"
              "{'name':'b','creationTimestamp':null}}]}");

    roundtrip("{'kind':'Secret','apiVersion':'v1','metadata':{'name':'s1',"
              "'namespace':'ns1','creationTimestamp':null},'immutable':"
              "false,'data':{'bin':'AAEC/w==','empty':''},'stringData':"
              "{'k':'v'},'type':'Opaque'}");

    roundtrip("{'kind':'SecretList','apiVersion':'v1','metadata':{},"
              "'items':null}");
}


static void
test_roundtrip_serviceaccount(void **state)
{
    roundtrip("{'kind':'ServiceAccount','apiVersion':'v1','metadata':"
              "{'name':'sa','namespace':'ns1','creationTimestamp':null},"
              "'secrets':[{'kind':'Secret','namespace':'ns1','name':"
              "'sa-token','uid':'u-2','apiVersion':'v1','resourceVersion':"
              "'7','fieldPath':'data'}],'imagePullSecrets':[{'name':"
              "'pull'},{}],'automountServiceAccountToken':true}");

    roundtrip("{'kind':'ServiceAccountList','apiVersion':'v1','metadata':"
              "{},'items':[{'metadata':{'name':'x','creationTimestamp':"
              "null}}]}");

    roundtrip("{'kind':'TokenRequest','apiVersion':"
              "'authentication.k8s.io/v1','metadata':{'name':'sa',"
              "'namespace':'ns1','creationTimestamp':null},'spec':"
              "{'audiences':['a','b'],'expirationSeconds':600,"
              "'boundObjectRef':{'kind':'Secret','apiVersion':'v1','name':"
              "'s','uid':'u'}},'status':{'token':'tok',"
              "'expirationTimestamp':'2026-11-22T06:59:59Z'}}");
}


static void
test_roundtrip_events(void **state)
{
    roundtrip("{'kind':'Event','apiVersion':'v1','metadata':{'name':'e1',"
              "'namespace':'ns1','creationTimestamp':'2026-11-22T06:51:00Z'"
              "},'involvedObject':{'kind':'ConfigMap','namespace':'ns1',"
              "'name':'target','uid':'u-3','apiVersion':'v1'},'reason':"
              "'Tested','message':'m','source':{'component':'c','host':'h'"
              "},'firstTimestamp':'2026-01-01T00:00:00Z','lastTimestamp':"
              "'2026-01-01T00:00:01Z','count':-5,'type':'Normal',"
              "'eventTime':'2026-11-22T06:51:00.123456Z','series':{'count':"
              "2,'lastObservedTime':'2026-11-22T06:52:00.000001Z'},"
              "'action':'Act','related':{'kind':'Pod','name':'p'},"
              "'reportingComponent':'rc','reportingInstance':'ri'}");

    roundtrip("{'kind':'EventList','apiVersion':'v1','metadata':{},"
              "'items':null}");

    roundtrip("{'kind':'Event','apiVersion':'events.k8s.io/v1','metadata':"
              "{'name':'e1','namespace':'ns1','creationTimestamp':null},"
              "'eventTime':'2026-11-22T06:51:00.000000Z','series':{'count':"
              "3,'lastObservedTime':'2026-11-22T06:52:00.500000Z'},"
              "'reportingController':'rc','reportingInstance':'ri',"
              "'action':'A','reason':'R','regarding':{'kind':'ConfigMap',"
              "'name':'t'},'related':{'name':'r'},'note':'n','type':"
              "'Warning','deprecatedSource':{'component':'c'},"
              "'deprecatedFirstTimestamp':'2026-01-01T00:00:00Z',"
              "'deprecatedLastTimestamp':null,'deprecatedCount':1}");

    roundtrip("{'kind':'EventList','apiVersion':'events.k8s.io/v1',"
              "'metadata':{},'items':[{'metadata':{'creationTimestamp':"
              "null},'eventTime':null,'regarding':{},'deprecatedSource':{},"
              "'deprecatedFirstTimestamp':null,'deprecatedLastTimestamp':"
              "null}]}");
}


static void
test_roundtrip_lease(void **state)
{
    roundtrip("{'kind':'Lease','apiVersion':'coordination.k8s.io/v1',"
              "'metadata':{'name':'l','namespace':'ns1','creationTimestamp':"
              "null},'spec':{'holderIdentity':'me','leaseDurationSeconds':"
              "15,'acquireTime':'2026-11-22T06:51:00.000000Z','renewTime':"
              "'2026-11-22T06:51:10.250000Z','leaseTransitions':0,"
              "'strategy':'OldestEmulationVersion','preferredHolder':''}}");

    roundtrip("{'kind':'LeaseList','apiVersion':'coordination.k8s.io/v1',"
              "'metadata':{'resourceVersion':'1'},'items':[{'metadata':"
              "{'name':'l','creationTimestamp':null},'spec':{}}]}");
}


static void
test_roundtrip_meta(void **state)
{
    roundtrip("{'kind':'Status','apiVersion':'v1','metadata':{},'status':"
              "'Failure','message':'bad','reason':'Invalid','details':"
              "{'name':'n','group':'g','kind':'k','uid':'u','causes':"
              "[{'reason':'FieldValueInvalid','message':'m','field':'f'},"
              "{}],'retryAfterSeconds':5},'code':422}");

    roundtrip("{'kind':'DeleteOptions','apiVersion':'v1',"
              "'gracePeriodSeconds':0,'preconditions':{'uid':'u',"
              "'resourceVersion':'5'},'orphanDependents':false,"
              "'propagationPolicy':'Foreground','dryRun':['All'],"
              "'ignoreStoreReadErrorWithClusterBreakingPotential':true}");

    roundtrip("{'kind':'APIResourceList','apiVersion':'v1','groupVersion':"
              "'v1','resources':[{'name':'configmaps','singularName':"
              "'configmap','namespaced':true,'kind':'ConfigMap','verbs':"
              "['get','list'],'shortNames':['cm'],'storageVersionHash':"
              "'abc'},{'name':'x','singularName':'','namespaced':false,"
              "'group':'g','version':'v','kind':'X','verbs':[]}]}");

    roundtrip("{'kind':'APIGroup','apiVersion':'v1','name':'g','versions':"
              "[{'groupVersion':'g/v1','version':'v1'}],'preferredVersion':"
              "{'groupVersion':'g/v1','version':'v1'},"
              "'serverAddressByClientCIDRs':[{'clientCIDR':'0.0.0.0/0',"
              "'serverAddress':'1.2.3.4:6443'}]}");

    roundtrip("{'kind':'APIGroupList','apiVersion':'v1','groups':[{'name':"
              "'','versions':null,'preferredVersion':{'groupVersion':'',"
              "'version':''}}]}");

    roundtrip("{'kind':'APIVersions','apiVersion':'v1','versions':['v1'],"
              "'serverAddressByClientCIDRs':[{'clientCIDR':'0.0.0.0/0',"
              "'serverAddress':'a'}]}");
}


/* Repeated scalars, IntOrString, Quantity, maps, bytes, embedded. */
static void
test_roundtrip_shapes(void **state)
{
    roundtrip("{'kind':'Sample','apiVersion':'test.example.com/v1','ints':"
              "[1,-2,2147483647,-2147483648],'longs':[-9223372036854775807,"
              "9223372036854775807],'flags':[true,false],'port':'http',"
              "'ports':[80,'x',-1],'qty':'1500m','counts':{'a':0,'b':-1},"
              "'refs':{'r':{'name':'n'},'s':{}},'blobs':['','AQ=='],"
              "'raw':'AAE=','opt':'','times':{'t':'2026-11-22T06:45:46Z',"
              "'z':null},'embedded':{'kind':'ConfigMap','apiVersion':'v1',"
              "'metadata':{'name':'inner','creationTimestamp':null}}}");

    /* zero IntOrString and Quantity; a JSON object of an unknown kind */
    roundtrip("{'kind':'Sample','apiVersion':'test.example.com/v1','port':"
              "0,'qty':'0','embedded':{'kind':'Widget','apiVersion':"
              "'other/v1','spec':{'a':[1,2]}}}");

    roundtrip("{'kind':'Sample','apiVersion':'test.example.com/v1','port':"
              "0,'qty':'0','embedded':null}");
}


/* ------------------------------------------------------------------ */
/* watch frames                                                        */

static void
test_watch_frame(void **state)
{
    size_t         n;
    json_t        *ev, *obj;
    gcp_buf_t      b;
    const char    *msg;
    gcp_arena_t   *a = gcp_arena_create(0);
    unsigned char *p;

    obj = load(a, cm_json);

    gcp_buf_init(&b, a);
    assert_int_equal(gcp_protobuf_encode_watch_frame(&b, set, "ADDED", obj),
                     GCP_OK);
    assert_true(b.len > 4);

    p = (unsigned char *) b.data;
    n = ((size_t) p[0] << 24) | ((size_t) p[1] << 16) | ((size_t) p[2] << 8)
        | p[3];
    assert_int_equal(n, b.len - 4);

    /* type 1 "ADDED", object 2 {raw 1: the protobuf body of obj} */
    assert_memory_equal(b.data + 4, "\x0a\x05" "ADDED" "\x12\xa3\x03"
                        "\x0a\xa0\x03", 13);
    assert_memory_equal(b.data + 17, encode(a, obj).data, 416);
    assert_int_equal(n, 13 + 416);

    assert_int_equal(gcp_protobuf_decode_message(a, set, META "WatchEvent",
                                                 b.data + 4, n, &ev, &msg),
                     GCP_OK);
    assert_string_equal(dump(a, ev),
                        gcp_sprintf(a, "{\"type\":\"ADDED\",\"object\":%s}",
                                    canon(a, cm_json)));

    /* an ERROR event carries a Status */
    gcp_buf_init(&b, a);
    assert_int_equal(gcp_protobuf_encode_watch_frame(&b, set, "ERROR",
                                                     load(a, status_json)),
                     GCP_OK);
    assert_int_equal(gcp_protobuf_decode_message(a, set, META "WatchEvent",
                                                 b.data + 4, b.len - 4, &ev,
                                                 &msg),
                     GCP_OK);
    assert_string_equal(dump(a, ev),
                        gcp_sprintf(a, "{\"type\":\"ERROR\",\"object\":%s}",
                                    canon(a, status_json)));

    /* no object: an empty raw, null in JSON */
    gcp_buf_init(&b, a);
    assert_int_equal(gcp_protobuf_encode_watch_frame(&b, set, "BOOKMARK",
                                                     NULL), GCP_OK);
    assert_int_equal(b.len, 4 + 12);
    assert_memory_equal(b.data, "\0\0\0\x0c\x0a\x08" "BOOKMARK" "\x12\x00",
                        16);
    assert_int_equal(gcp_protobuf_decode_message(a, set, META "WatchEvent",
                                                 b.data + 4, b.len - 4, &ev,
                                                 &msg),
                     GCP_OK);
    assert_string_equal(dump(a, ev),
                        "{\"type\":\"BOOKMARK\",\"object\":null}");

    gcp_arena_destroy(a);
}


/* ------------------------------------------------------------------ */
/* hand-built messages                                                 */

/* Unknown fields of every wire type are skipped; maps, merges, last
 * scalar wins, invalid UTF-8. */
static void
test_decode_handbuilt(void **state)
{
    pb_t         *raw, *meta, *e, *env;
    gcp_arena_t  *a = gcp_arena_create(0);

    raw = pb_new();
    meta = pb_new();
    e = pb_new();

    pb_int(raw, 99, 5);                             /* unknown varint */

    pb_str(meta, 1, "a");
    pb_tag(meta, 50, 1);                            /* fixed64 */
    pb_raw(meta, "12345678", 8);
    pb_tag(meta, 51, 5);                            /* fixed32 */
    pb_raw(meta, "1234", 4);
    pb_tag(meta, 52, 3);                            /* a group */
    pb_int(meta, 1, 1);
    pb_str(meta, 2, "x");
    pb_tag(meta, 3, 3);                             /* nested group */
    pb_tag(meta, 3, 4);
    pb_tag(meta, 52, 4);
    pb_bytes(meta, 200, "\x08\x01", 2);             /* unknown bytes */
    pb_sub(raw, 1, meta);

    pb_str(e, 1, "k");
    pb_str(e, 2, "v1");
    pb_sub(raw, 2, e);
    e->n = 0;
    pb_str(e, 1, "k");                              /* last key wins */
    pb_str(e, 2, "v2");
    pb_int(e, 3, 7);                                /* unknown in entry */
    pb_sub(raw, 2, e);
    e->n = 0;
    pb_str(e, 2, "nokey");
    pb_sub(raw, 2, e);
    e->n = 0;
    pb_str(e, 1, "novalue");
    pb_sub(raw, 2, e);

    meta->n = 0;
    pb_str(meta, 3, "ns");                          /* merged into 1 */
    pb_str(meta, 5, "\xff" "u\xc3");                /* invalid UTF-8 */
    pb_sub(raw, 1, meta);

    pb_int(raw, 4, 1);
    pb_int(raw, 4, 0);                              /* last wins */

    env = pb_envelope("v1", "ConfigMap", raw);

    assert_string_equal(dump(a, decode(a, (char *) env->d, env->n)),
        canon(a, "{'kind':'ConfigMap','apiVersion':'v1','metadata':"
                 "{'name':'a','namespace':'ns','uid':'\\ufffdu\\ufffd',"
                 "'creationTimestamp':null},'immutable':false,'data':"
                 "{'':'nokey','k':'v2','novalue':''}}"));

    pb_free(env);
    pb_free(raw);
    pb_free(meta);
    pb_free(e);
    gcp_arena_destroy(a);
}


/* Packed and unpacked repeated scalars; IntOrString and Quantity. */
static void
test_decode_packed(void **state)
{
    pb_t         *raw, *packed, *ios, *env;
    gcp_arena_t  *a = gcp_arena_create(0);

    raw = pb_new();
    packed = pb_new();
    ios = pb_new();

    pb_varint(packed, 1);
    pb_varint(packed, 2);
    pb_varint(packed, (uint64_t) -1);               /* int32 -1 */
    pb_sub(raw, 1, packed);
    pb_int(raw, 1, 3);                              /* unpacked */
    pb_int(raw, 1, 0x100000005LL);                  /* int32 truncates */

    packed->n = 0;
    pb_varint(packed, 1);
    pb_varint(packed, 0);
    pb_varint(packed, 2);                           /* any non-zero */
    pb_sub(raw, 3, packed);

    pb_int(ios, 1, 1);
    pb_str(ios, 3, "http");
    pb_sub(raw, 4, ios);

    ios->n = 0;
    pb_int(ios, 2, -7);
    pb_sub(raw, 5, ios);

    packed->n = 0;
    pb_str(packed, 1, "2Gi");
    pb_sub(raw, 6, packed);

    packed->n = 0;                                  /* empty packed run */
    pb_sub(raw, 2, packed);

    env = pb_envelope("test.example.com/v1", "Sample", raw);

    assert_string_equal(dump(a, decode(a, (char *) env->d, env->n)),
        canon(a, "{'kind':'Sample','apiVersion':'test.example.com/v1',"
                 "'ints':[1,2,-1,3,5],'flags':[true,false,true],'port':"
                 "'http','ports':[-7],'qty':'2Gi','embedded':null}"));

    pb_free(env);
    pb_free(raw);
    pb_free(packed);
    pb_free(ios);
    gcp_arena_destroy(a);
}


/* Times: nanos ignored for Time, kept (to microseconds) for MicroTime. */
static void
test_decode_times(void **state)
{
    pb_t         *raw, *spec, *ts, *env;
    gcp_arena_t  *a = gcp_arena_create(0);

    raw = pb_new();
    spec = pb_new();
    ts = pb_new();

    pb_int(ts, 1, 1795329946);
    pb_int(ts, 2, 123456789);
    pb_sub(spec, 3, ts);                            /* acquireTime */

    ts->n = 0;
    pb_int(ts, 1, 1795329946);
    pb_int(ts, 2, -1);                              /* normalised */
    pb_sub(spec, 4, ts);                            /* renewTime */
    pb_sub(raw, 2, spec);

    env = pb_envelope("coordination.k8s.io/v1", "Lease", raw);

    assert_string_equal(dump(a, decode(a, (char *) env->d, env->n)),
        canon(a, "{'kind':'Lease','apiVersion':'coordination.k8s.io/v1',"
                 "'metadata':{'creationTimestamp':null},'spec':"
                 "{'acquireTime':'2026-11-22T06:45:46.123456Z','renewTime':"
                 "'2026-11-22T06:45:45.999999Z'}}"));

    pb_free(env);

    /* Time: seconds only; a present zero Timestamp is the Unix epoch */
    raw->n = 0;
    spec->n = 0;
    ts->n = 0;
    pb_int(ts, 1, 1795329946);
    pb_int(ts, 2, 999999999);
    pb_sub(spec, 8, ts);
    ts->n = 0;
    pb_int(ts, 1, 0);
    pb_sub(spec, 9, ts);
    pb_sub(raw, 1, spec);

    env = pb_envelope("v1", "ConfigMap", raw);

    assert_string_equal(dump(a, decode(a, (char *) env->d, env->n)),
        canon(a, "{'kind':'ConfigMap','apiVersion':'v1','metadata':"
                 "{'creationTimestamp':'2026-11-22T06:45:46Z',"
                 "'deletionTimestamp':'1970-01-01T00:00:00Z'}}"));

    pb_free(env);
    pb_free(raw);
    pb_free(spec);
    pb_free(ts);
    gcp_arena_destroy(a);
}


/* ------------------------------------------------------------------ */
/* errors                                                              */

static void
test_decode_envelope_errors(void **state)
{
    char                  *ref;
    size_t                 n;
    pb_t                  *raw, *env;
    json_t                *out;
    gcp_arena_t           *a = gcp_arena_create(0);
    gcp_protobuf_error_t   err;

    n = unhex(a, cm_hex, &ref);

    assert_string_equal(decode_err(a, ref, 0, &err), "empty data");
    assert_string_equal(err.summary, "<empty>");
    assert_null(err.kind);

    assert_string_equal(decode_err(a, "{\"kind\":1}", 10, &err),
                        "provided data does not appear to be a protobuf "
                        "message, expected prefix [107 56 115 0]");
    assert_string_equal(err.summary, "{\"kind\":1}");

    assert_string_equal(decode_err(a, ref, 4, &err), "empty body");
    assert_string_equal(err.summary, "6b387300");

    /* truncated inside the TypeMeta */
    assert_string_equal(decode_err(a, ref, 20, &err), "unexpected EOF");
    assert_null(err.kind);
    assert_string_equal(err.summary,
                        "6b3873000a0f0a0276311209436f6e6669674d61");

    /* truncated inside raw */
    assert_string_equal(decode_err(a, ref, n - 10, &err), "unexpected EOF");
    assert_null(err.kind);
    assert_string_equal(err.summary,
                        "6b3873000a0f0a0276311209436f6e6669674d61701284030a"
                        "c9020a0363 ...");

    /* a bad object inside a good envelope: the kind is known */
    raw = pb_new();
    pb_tag(raw, 2, 2);
    pb_varint(raw, 50);
    pb_raw(raw, "\x0a\x01k", 3);
    env = pb_envelope("v1", "ConfigMap", raw);
    assert_string_equal(decode_err(a, (char *) env->d, env->n, &err),
                        "unexpected EOF");
    assert_string_equal(err.kind, "ConfigMap");
    assert_string_equal(err.api_version, "v1");
    pb_free(env);

    env = pb_envelope("v1", "", NULL);
    assert_string_equal(decode_err(a, (char *) env->d, env->n, &err),
                        "Object 'Kind' is missing in 'runtime.TypeMeta"
                        "{APIVersion:\"v1\", Kind:\"\"}'");
    assert_null(err.kind);
    pb_free(env);

    env = pb_envelope("a/b/c", "ConfigMap", NULL);
    assert_string_equal(decode_err(a, (char *) env->d, env->n, &err),
                        "Object 'apiVersion' is missing in 'runtime.TypeMeta"
                        "{APIVersion:\"a/b/c\", Kind:\"ConfigMap\"}'");
    assert_string_equal(err.kind, "ConfigMap");
    pb_free(env);

    env = pb_envelope("v1", "Pod", NULL);
    assert_string_equal(decode_err(a, (char *) env->d, env->n, &err),
                        "no kind \"Pod\" is registered for version \"v1\" "
                        "in scheme \"pkg/api/legacyscheme/scheme.go:30\"");
    assert_string_equal(err.kind, "Pod");
    pb_free(env);

    /* a kind without protobuf annotations (a custom resource) */
    env = pb_envelope("test.example.com/v1", "Widget", NULL);
    assert_int_equal(gcp_protobuf_decode_ex(a, set, (char *) env->d, env->n,
                                            &out, &err), GCP_EMEDIATYPE);
    assert_string_equal(err.msg, "Widget has no protobuf encoding");
    pb_free(env);

    /* an envelope without raw is an empty object */
    env = pb_envelope("v1", "Status", NULL);
    assert_string_equal(dump(a, decode(a, (char *) env->d, env->n)),
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                        "\"metadata\":{}}");
    pb_free(env);

    pb_free(raw);
    gcp_arena_destroy(a);
}


/* One malformed field inside a ConfigMap: the message Go gives. */
static const char *
bad_field(gcp_arena_t *a, const char *bytes, size_t n)
{
    pb_t        *raw, *env;
    const char  *msg;

    raw = pb_new();
    pb_raw(raw, bytes, n);
    env = pb_envelope("v1", "ConfigMap", raw);
    msg = decode_err(a, (char *) env->d, env->n, NULL);
    pb_free(env);
    pb_free(raw);

    return msg;
}


static void
test_decode_field_errors(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

#define BAD(s)  bad_field(a, s, sizeof(s) - 1)

    assert_string_equal(BAD("\x20\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
                            "\x01"), "proto: integer overflow");
    assert_string_equal(BAD("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"),
                        "proto: integer overflow");
    assert_string_equal(BAD("\x20"), "unexpected EOF");
    assert_string_equal(BAD("\x20\x80"), "unexpected EOF");
    assert_string_equal(BAD("\x0a\x05" "abc"), "unexpected EOF");
    assert_string_equal(BAD("\x0a\xff\xff\xff\xff\xff\xff\xff\xff\x7f"),
                        "unexpected EOF");
    assert_string_equal(BAD("\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"),
                        "proto: negative length found during "
                        "unmarshaling");
    assert_string_equal(BAD("\x00"),
                        "proto: ConfigMap: illegal tag 0 (wire type 0)");
    assert_string_equal(BAD("\x0c"),
                        "proto: ConfigMap: wiretype end group for "
                        "non-group");
    assert_string_equal(BAD("\x10\x01"),
                        "proto: wrong wireType = 0 for field Data");
    assert_string_equal(BAD("\x22\x00"),
                        "proto: wrong wireType = 2 for field Immutable");
    assert_string_equal(BAD("\x0a\x02\x0c\x00"),
                        "proto: ObjectMeta: wiretype end group for "
                        "non-group");
    assert_string_equal(BAD("\xf6\x01\x00"), "proto: illegal wireType 6");
    assert_string_equal(BAD("\xf3\x01"), "unexpected EOF");
    assert_string_equal(BAD("\xf4\x01"),
                        "proto: ConfigMap: wiretype end group for "
                        "non-group");
    /* as gogo-protobuf, an end group needs no matching number */
    assert_string_equal(BAD("\xf3\x01\x0c"), "OK");
    assert_string_equal(BAD("\xf1\x01" "1234567"), "unexpected EOF");
    assert_string_equal(BAD("\xf5\x01" "123"), "unexpected EOF");
    assert_string_equal(BAD("\x12\x02\x10\x00"),
                        "proto: wrong wireType = 0 for field Value");
    assert_string_equal(BAD("\x0a\x04\x42\x02\x10\x01"), "OK");
    assert_string_equal(BAD("\x0a\x04\x42\x02\x12\x00"),
                        "proto: wrong wireType = 2 for field Nanos");
    assert_string_equal(BAD("\x0a\x0a\x8a\x01\x07\x3a\x05\x0a\x03{x}"),
                        "invalid character 'x' looking for beginning of "
                        "object key string");
    assert_string_equal(BAD("\x0a\x06\x5a\x04\x0a\x82\x80\x80"),
                        "unexpected EOF");

#undef BAD

    gcp_arena_destroy(a);
}


/* Embedded bodies nested beyond the limit are refused, not recursed. */
static void
test_decode_deep_nesting(void **state)
{
    int           i;
    pb_t         *body, *raw, *ev, *next;
    json_t       *out;
    const char   *msg;
    gcp_arena_t  *a = gcp_arena_create(0);

    /* WatchEvent{object: RawExtension{raw: body}} wrapped 200 times */
    body = pb_envelope("v1", "Status", NULL);

    for (i = 0; i < 200; i++) {
        raw = pb_new();
        ev = pb_new();
        pb_sub(raw, 1, body);
        pb_str(ev, 1, "ADDED");
        pb_sub(ev, 2, raw);
        next = pb_envelope("v1", "WatchEvent", ev);
        pb_free(body);
        pb_free(raw);
        pb_free(ev);
        body = next;

        if (i == 10) {
            assert_int_equal(gcp_protobuf_decode(a, set, (char *) body->d,
                                                 body->n, &out, &msg),
                             GCP_OK);
        }
    }

    assert_string_equal(decode_err(a, (char *) body->d, body->n, NULL),
                        "proto: exceeded maximum nesting depth");
    pb_free(body);

    /* deeply nested groups in an unknown field are skipped iteratively */
    raw = pb_new();

    for (i = 0; i < 100000; i++) {
        pb_tag(raw, 9, 3);
    }

    for (i = 0; i < 100000; i++) {
        pb_tag(raw, 9, 4);
    }

    body = pb_envelope("v1", "ConfigMap", raw);
    assert_string_equal(decode_err(a, (char *) body->d, body->n, NULL),
                        "OK");
    pb_free(body);
    pb_free(raw);

    gcp_arena_destroy(a);
}


/* Mutated and random bodies: an error or an object, never a crash. */
static void
test_decode_fuzz(void **state)
{
    int            i, k, ok, bad;
    char          *ref, *buf;
    size_t         n, len;
    double         end;
    json_t        *out;
    gcp_buf_t      b;
    const char    *msg;
    gcp_arena_t   *a, *keep;
    unsigned int   seed;

    keep = gcp_arena_create(0);
    n = unhex(keep, cm_hex, &ref);
    buf = malloc(2 * n + 64);
    assert_non_null(buf);

    seed = 20261122;
    ok = 0;
    bad = 0;
    end = fuzz_now() + FUZZ_SECONDS;

    for (i = 0; fuzz_now() < end; i++) {
        a = gcp_arena_create(0);

        if (i % 4 == 3) {
            /* random bytes after the magic */
            len = 4 + (size_t) (rand_r(&seed) % 200);
            memcpy(buf, "k8s\0", 4);
            for (k = 4; k < (int) len; k++) {
                buf[k] = (char) rand_r(&seed);
            }

        } else {
            /* the reference body with a few bytes changed or cut */
            memcpy(buf, ref, n);
            len = n;

            for (k = rand_r(&seed) % 4; k >= 0; k--) {
                buf[4 + rand_r(&seed) % (n - 4)] = (char) rand_r(&seed);
            }

            if (i % 4 == 1) {
                len = (size_t) rand_r(&seed) % n;
            }
        }

        if (gcp_protobuf_decode(a, set, buf, len, &out, &msg) == GCP_OK) {
            ok++;
            assert_true(json_is_object(out));

            /* what decodes can be encoded again (or is refused cleanly) */
            gcp_buf_init(&b, a);
            k = gcp_protobuf_encode(&b, set, out);
            assert_true(k == GCP_OK || k == GCP_EINTERNAL
                        || k == GCP_ENOTACCEPTABLE);

        } else {
            bad++;
            assert_non_null(msg);
        }

        gcp_arena_destroy(a);
    }

    print_message("fuzz: %d bodies, %d decoded, %d refused\n", i, ok, bad);
    assert_true(ok > 0 && bad > 0);

    free(buf);
    gcp_arena_destroy(keep);
}


/* ------------------------------------------------------------------ */
/* encoding errors and the annotations                                 */

static void
test_encode_errors(void **state)
{
    gcp_buf_t     b;
    gcp_arena_t  *a = gcp_arena_create(0);

    gcp_buf_init(&b, a);
    gcp_buf_addstr(&b, "keep");

    assert_int_equal(gcp_protobuf_encode(&b, set, load(a,
                         "{'kind':'Widget','apiVersion':"
                         "'test.example.com/v1'}")), GCP_ENOTACCEPTABLE);
    assert_int_equal(gcp_protobuf_encode(&b, set, load(a,
                         "{'kind':'Table','apiVersion':"
                         "'meta.k8s.io/v1'}")), GCP_ENOTACCEPTABLE);
    assert_int_equal(gcp_protobuf_encode(&b, set, load(a,
                         "{'kind':'ConfigMap'}")), GCP_ENOTACCEPTABLE);
    assert_int_equal(gcp_protobuf_encode(&b, set, load(a,
                         "{'kind':'ConfigMap','apiVersion':'v1','metadata':"
                         "{'name':'x'},'data':{'k':1}}")), GCP_EINTERNAL);
    assert_int_equal(gcp_protobuf_encode(&b, set, load(a,
                         "{'kind':'ConfigMap','apiVersion':'v1',"
                         "'binaryData':{'k':'not base64!'}}")),
                     GCP_EINTERNAL);
    assert_int_equal(gcp_protobuf_encode(&b, set, load(a,
                         "{'kind':'ConfigMap','apiVersion':'v1','metadata':"
                         "{'creationTimestamp':'yesterday'}}")),
                     GCP_EINTERNAL);
    assert_int_equal(gcp_protobuf_encode(&b, set, load(a,
                         "{'kind':'Event','apiVersion':'v1','count':"
                         "4294967296}")), GCP_EINTERNAL);
    assert_int_equal(gcp_protobuf_encode(&b, set, load(a,
                         "{'kind':'Status','apiVersion':'v1','details':"
                         "{'causes':'x'}}")), GCP_EINTERNAL);

    /* the buffer is left as it was */
    assert_int_equal(b.len, 4);
    assert_memory_equal(b.data, "keep", 4);

    assert_int_equal(gcp_protobuf_encode_message(&b, set, "nosuch",
                                                 NULL), GCP_ENOTACCEPTABLE);

    /* a bare message with all defaults: ListMeta{"", "", ""} */
    assert_int_equal(gcp_protobuf_encode_message(&b, set, META "ListMeta",
                                                 NULL), GCP_OK);
    assert_int_equal(b.len, 10);
    assert_memory_equal(b.data + 4, "\x0a\x00\x12\x00\x1a\x00", 6);

    gcp_arena_destroy(a);
}


/*
 * An embedded Go struct (admissionregistration's RuleWithOperations
 * inlines Rule): its fields are the object's own in JSON, one nested
 * message (field 2) on the wire, always written.
 */
static void
test_inline_embedded(void **state)
{
    char          *s;
    json_t        *obj, *out;
    gcp_buf_t      b;
    const char    *msg;
    gcp_arena_t   *a;

    static const char  rule[] =
        "{\"operations\":[\"CREATE\"],\"apiGroups\":[\"\"],"
        "\"apiVersions\":[\"v1\"],\"resources\":[\"configmaps\"],"
        "\"scope\":\"*\"}";
    static const char  wire[] =
        "\x0a\x06" "CREATE" "\x12\x15" "\x0a\x00" "\x12\x02" "v1"
        "\x1a\x0a" "configmaps" "\x22\x01" "*";

    a = gcp_arena_create(0);
    gcp_buf_init(&b, a);

    obj = json_loads(rule, 0, NULL);
    assert_non_null(obj);

    assert_int_equal(gcp_protobuf_encode_message(&b, set,
                         "io.k8s.api.admissionregistration.v1."
                         "RuleWithOperations", obj), GCP_OK);
    assert_int_equal(b.len, sizeof(wire) - 1);
    assert_memory_equal(b.data, wire, sizeof(wire) - 1);

    assert_int_equal(gcp_protobuf_decode_message(a, set,
                         "io.k8s.api.admissionregistration.v1."
                         "RuleWithOperations", b.data, b.len, &out, &msg),
                     GCP_OK);
    s = json_dumps(out, JSON_COMPACT);
    assert_string_equal(s, rule);
    free(s);
    json_decref(obj);

    /* nothing set: the embedded message is still there, empty */

    gcp_buf_init(&b, a);
    obj = json_object();
    assert_int_equal(gcp_protobuf_encode_message(&b, set,
                         "io.k8s.api.admissionregistration.v1."
                         "RuleWithOperations", obj), GCP_OK);
    assert_int_equal(b.len, 2);
    assert_memory_equal(b.data, "\x12\x00", 2);
    json_decref(obj);

    gcp_arena_destroy(a);
}


/* Every property of every served definition carries its field number. */
static void
test_annotations(void **state)
{
    int                 kinds;
    json_t             *prop, *props;
    const char         *name, *key;
    const json_t       *def;
    gcp_schema_iter_t   iter = GCP_SCHEMA_ITER;

    kinds = 0;

    while ((name = gcp_schema_next(set, &iter, &def)) != NULL) {
        if (strncmp(name, "test.", 5) == 0
            || strcmp(name, "io.k8s.apimachinery.pkg.version.Info") == 0)
        {
            continue;
        }

        props = json_object_get(def, "properties");

        json_object_foreach(props, key, prop) {
            if (!json_is_integer(json_object_get(prop, "x-gcp-proto"))) {
                fail_msg("%s.%s has no x-gcp-proto", name, key);
            }
        }

        if (json_object_get(def, "x-kubernetes-group-version-kind")) {
            assert_true(gcp_protobuf_capable(set, name));
            kinds++;
        }
    }

    assert_int_equal(kinds, 57);
    assert_false(gcp_protobuf_capable(set, "test.v1.Widget"));
    assert_false(gcp_protobuf_capable(set,
                     "io.k8s.apimachinery.pkg.version.Info"));
    assert_false(gcp_protobuf_capable(set, "nosuch"));
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_configmap_reference),
        cmocka_unit_test(test_status_reference),
        cmocka_unit_test(test_encode_defaults),
        cmocka_unit_test(test_encode_bytes),
        cmocka_unit_test(test_inline_embedded),
        cmocka_unit_test(test_decode_noomit),
        cmocka_unit_test(test_roundtrip_namespace),
        cmocka_unit_test(test_roundtrip_configmap_secret),
        cmocka_unit_test(test_roundtrip_serviceaccount),
        cmocka_unit_test(test_roundtrip_events),
        cmocka_unit_test(test_roundtrip_lease),
        cmocka_unit_test(test_roundtrip_meta),
        cmocka_unit_test(test_roundtrip_shapes),
        cmocka_unit_test(test_watch_frame),
        cmocka_unit_test(test_decode_handbuilt),
        cmocka_unit_test(test_decode_packed),
        cmocka_unit_test(test_decode_times),
        cmocka_unit_test(test_decode_envelope_errors),
        cmocka_unit_test(test_decode_field_errors),
        cmocka_unit_test(test_decode_deep_nesting),
        cmocka_unit_test(test_decode_fuzz),
        cmocka_unit_test(test_encode_errors),
        cmocka_unit_test(test_annotations),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
