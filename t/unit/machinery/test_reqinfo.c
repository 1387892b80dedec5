
/*
 * Unit tests: request info, query strings and media negotiation
 * (core/machinery/gcp_reqinfo.c, core/encoding/gcp_media.c).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gcp_core.h"
#include "gcp_media.h"
#include "gcp_reqinfo.h"


typedef struct {
    const char  *method;
    const char  *path;
    const char  *query;
    int          is_resource;
    const char  *verb;
    const char  *group;
    const char  *version;
    const char  *ns;
    const char  *resource;
    const char  *name;
    const char  *sub;
} reqinfo_case_t;


static const reqinfo_case_t  reqinfo_cases[] = {
    { "GET", "/api", "", 0, "get", "", "", "", "", "", "" },
    { "GET", "/api/v1", "", 0, "get", "", "", "", "", "", "" },
    { "GET", "/apis/coordination.k8s.io/v1", "", 0, "get",
      "", "", "", "", "", "" },
    { "GET", "/healthz", "verbose", 0, "get", "", "", "", "", "", "" },
    { "GET", "/api/v1/namespaces", "", 1, "list", "", "v1", "",
      "namespaces", "", "" },
    { "GET", "/api/v1/namespaces/default", "", 1, "get", "", "v1",
      "default", "namespaces", "default", "" },
    { "PUT", "/api/v1/namespaces/ns1/finalize", "", 1, "update", "", "v1",
      "ns1", "namespaces", "ns1", "finalize" },
    { "GET", "/api/v1/namespaces/ns1/status", "", 1, "get", "", "v1",
      "ns1", "namespaces", "ns1", "status" },
    { "GET", "/api/v1/namespaces/ns1/configmaps", "watch=true", 1, "watch",
      "", "v1", "ns1", "configmaps", "", "" },
    { "GET", "/api/v1/namespaces/ns1/configmaps", "watch=false", 1, "list",
      "", "v1", "ns1", "configmaps", "", "" },
    { "GET", "/api/v1/namespaces/ns1/configmaps/", "", 1, "list",
      "", "v1", "ns1", "configmaps", "", "" },
    { "POST", "/api/v1/namespaces/ns1/configmaps", "", 1, "create",
      "", "v1", "ns1", "configmaps", "", "" },
    { "DELETE", "/api/v1/namespaces/ns1/configmaps", "", 1,
      "deletecollection", "", "v1", "ns1", "configmaps", "", "" },
    { "DELETE", "/api/v1/namespaces/ns1/configmaps/a", "", 1, "delete",
      "", "v1", "ns1", "configmaps", "a", "" },
    { "PATCH", "/apis/coordination.k8s.io/v1/namespaces/n/leases/l", "",
      1, "patch", "coordination.k8s.io", "v1", "n", "leases", "l", "" },
    { "GET", "/api/v1/configmaps", "", 1, "list", "", "v1", "",
      "configmaps", "", "" },
    { "GET", "/api/v1/watch/namespaces/n/configmaps/x", "", 1, "watch",
      "", "v1", "n", "configmaps", "x", "" },
    { "GET", "/api/v1/watch/configmaps", "", 1, "watch",
      "", "v1", "", "configmaps", "", "" },
    { "HEAD", "/api/v1/namespaces/n/configmaps/x", "", 1, "get",
      "", "v1", "n", "configmaps", "x", "" },
};


static void
test_reqinfo_table(void **state)
{
    size_t                 i;
    const char            *msg;
    gcp_query_t            q;
    gcp_reqinfo_t          ri;
    gcp_str_t              path, query;
    gcp_arena_t           *a;
    const reqinfo_case_t  *c;

    for (i = 0; i < gcp_nelems(reqinfo_cases); i++) {
        c = &reqinfo_cases[i];
        a = gcp_arena_create(0);

        query.data = c->query;
        query.len = strlen(c->query);
        path.data = c->path;
        path.len = strlen(c->path);

        assert_int_equal(gcp_query_parse(a, query, &q), GCP_OK);
        assert_int_equal(gcp_reqinfo_parse(a, c->method, path, &q, &ri,
                                           &msg), GCP_OK);

        assert_int_equal(ri.is_resource, c->is_resource);
        assert_string_equal(ri.verb, c->verb);

        if (c->is_resource) {
            assert_string_equal(ri.group, c->group);
            assert_string_equal(ri.version, c->version);
            assert_string_equal(ri.ns, c->ns);
            assert_string_equal(ri.resource, c->resource);
            assert_string_equal(ri.name, c->name);
            assert_string_equal(ri.subresource, c->sub);
        }

        gcp_arena_destroy(a);
    }
}


static void
test_reqinfo_bad_watch(void **state)
{
    const char     *msg = NULL;
    gcp_query_t     q;
    gcp_reqinfo_t   ri;
    gcp_arena_t    *a = gcp_arena_create(0);
    gcp_str_t       path = gcp_string("/api/v1/watch");
    gcp_str_t       empty = gcp_null_string;

    gcp_query_parse(a, empty, &q);

    assert_int_equal(gcp_reqinfo_parse(a, "GET", path, &q, &ri, &msg),
                     GCP_EBADREQUEST);

    path.data = "/apis/g.example.com/v1/watch";
    path.len = strlen(path.data);

    assert_int_equal(gcp_reqinfo_parse(a, "GET", path, &q, &ri, &msg),
                     GCP_EBADREQUEST);
    assert_string_equal(msg,
                        "unable to determine kind and namespace from url");

    gcp_arena_destroy(a);
}


/* RequestInfoFactory: a list or watch of one name has that name. */
static void
test_reqinfo_selector_name(void **state)
{
    size_t          i;
    gcp_query_t     q;
    gcp_reqinfo_t   ri;
    gcp_str_t       path = gcp_string("/api/v1/namespaces/a/configmaps");
    gcp_str_t       raw;
    gcp_arena_t    *a = gcp_arena_create(0);

    static const struct {
        const char  *query;
        const char  *name;
    } cases[] = {
        { "fieldSelector=metadata.name%3Dauth", "auth" },
        { "watch=1&fieldSelector=metadata.name%3D%3Dauth", "auth" },
        { "fieldSelector=a%3Db,metadata.name%3Dx%5C,y", "x,y" },
        { "fieldSelector=metadata.name!%3Dauth", "" },
        { "fieldSelector=metadata.namespace%3Dauth", "" },
        { "fieldSelector=metadata.name%3D..", "" },
        { "fieldSelector=metadata.name%3D", "" },
        { "", "" },
    };

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        raw.data = cases[i].query;
        raw.len = strlen(raw.data);

        assert_int_equal(gcp_query_parse(a, raw, &q), GCP_OK);
        assert_int_equal(gcp_reqinfo_parse(a, "GET", path, &q, &ri, NULL),
                         GCP_OK);
        assert_string_equal(ri.name, "");
        assert_string_equal(ri.selector_name, cases[i].name);
    }

    gcp_arena_destroy(a);
}


static void
test_query(void **state)
{
    gcp_query_t   q;
    gcp_arena_t  *a = gcp_arena_create(0);
    gcp_str_t     raw = gcp_string("labelSelector=app%3Dweb%2Ctier+in+"
                                   "%28a%29&dryRun=All&dryRun=All&pretty&"
                                   "x=%zz");

    const char   *msg;

    assert_int_equal(gcp_query_parse(a, raw, &q), GCP_OK);
    assert_int_equal(q.n, 4);
    assert_string_equal(gcp_query_get(&q, "labelSelector"),
                        "app=web,tier in (a)");
    assert_int_equal(gcp_query_count(&q, "dryRun"), 2);
    assert_string_equal(gcp_query_get(&q, "pretty"), "");
    assert_null(gcp_query_get(&q, "nosuch"));

    /* as Go's url.ParseQuery: a malformed escape drops its parameter */
    assert_null(gcp_query_get(&q, "x"));

    /* ";" separates nothing: its parameter is dropped */
    raw = (gcp_str_t) gcp_string("x=1;dryRun=All&limit=5&a%3Bb=1&c=%3B");
    assert_int_equal(gcp_query_parse(a, raw, &q), GCP_OK);
    assert_int_equal(q.n, 3);
    assert_null(gcp_query_get(&q, "x"));
    assert_null(gcp_query_get(&q, "dryRun"));
    assert_string_equal(gcp_query_get(&q, "limit"), "5");
    assert_string_equal(gcp_query_get(&q, "a;b"), "1");
    assert_string_equal(gcp_query_get(&q, "c"), ";");

    /* NUL bytes are kept in values, and refused where the server reads */
    raw = (gcp_str_t) gcp_string("limit=2%00junk&other=a%00b");
    assert_int_equal(gcp_query_parse(a, raw, &q), GCP_OK);
    assert_int_equal(q.params[0].len, 6);
    assert_int_equal(gcp_query_check(a, &q, &msg), GCP_EBADREQUEST);
    assert_string_equal(msg, "strconv.ParseInt: parsing \"2\\x00junk\": "
                        "invalid syntax");

    raw = (gcp_str_t) gcp_string("labelSelector=app%00x");
    assert_int_equal(gcp_query_parse(a, raw, &q), GCP_OK);
    assert_int_equal(gcp_query_check(a, &q, &msg), GCP_EBADREQUEST);
    assert_string_equal(msg, "labelSelector: Invalid value: \"app\\x00x\": "
                        "must not contain NUL bytes");

    raw = (gcp_str_t) gcp_string("other=a%00b&limit=2");
    assert_int_equal(gcp_query_parse(a, raw, &q), GCP_OK);
    assert_int_equal(gcp_query_check(a, &q, &msg), GCP_OK);

    /* booleans as Go's Convert_Slice_string_To_bool, on whole values */
    raw = (gcp_str_t) gcp_string("a=false%00x&b=FALSE&c=0&d=&e=no&f=0%00"
                                 "&g=False");
    assert_int_equal(gcp_query_parse(a, raw, &q), GCP_OK);
    assert_int_equal(gcp_query_bool(&q, "a"), 1);
    assert_int_equal(gcp_query_bool(&q, "b"), 0);
    assert_int_equal(gcp_query_bool(&q, "c"), 0);
    assert_int_equal(gcp_query_bool(&q, "d"), 1);
    assert_int_equal(gcp_query_bool(&q, "e"), 1);
    assert_int_equal(gcp_query_bool(&q, "f"), 1);
    assert_int_equal(gcp_query_bool(&q, "g"), 0);
    assert_int_equal(gcp_query_bool(&q, "h"), -1);
    assert_int_equal(gcp_query_param(&q, "f")->len, 2);

    gcp_arena_destroy(a);
}


static void
test_media(void **state)
{
    gcp_media_t   m;
    gcp_arena_t  *a = gcp_arena_create(0);
    unsigned      all = GCP_MEDIA_BIT(GCP_MEDIA_JSON)
                        | GCP_MEDIA_BIT(GCP_MEDIA_YAML)
                        | GCP_MEDIA_BIT(GCP_MEDIA_TABLE)
                        | GCP_MEDIA_BIT(GCP_MEDIA_PARTIAL);

    assert_int_equal(gcp_media_negotiate(a, NULL, all, &m), GCP_OK);
    assert_int_equal(m.kind, GCP_MEDIA_JSON);

    assert_int_equal(gcp_media_negotiate(a,
        "application/json;as=Table;v=v1;g=meta.k8s.io,"
        "application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
        "application/json", all, &m), GCP_OK);
    assert_int_equal(m.kind, GCP_MEDIA_TABLE);
    assert_string_equal(m.version, "v1");

    assert_int_equal(gcp_media_negotiate(a, "application/yaml", all, &m),
                     GCP_OK);
    assert_int_equal(m.kind, GCP_MEDIA_YAML);

    /* protobuf is not served: the JSON fallback wins */
    assert_int_equal(gcp_media_negotiate(a,
        "application/vnd.kubernetes.protobuf,application/json", all, &m),
        GCP_OK);
    assert_int_equal(m.kind, GCP_MEDIA_JSON);

    assert_int_equal(gcp_media_negotiate(a, "application/xml", all, &m),
                     GCP_ENOTACCEPTABLE);

    assert_int_equal(gcp_media_negotiate(a,
        "application/json;as=Bogus;v=v1;g=meta.k8s.io", all, &m),
        GCP_ENOTACCEPTABLE);
    assert_string_equal(m.rejected_as, "Bogus");

    /* q-values order the choices */
    assert_int_equal(gcp_media_negotiate(a,
        "application/json;q=0.5, application/yaml", all, &m), GCP_OK);
    assert_int_equal(m.kind, GCP_MEDIA_YAML);

    assert_int_equal(gcp_media_negotiate(a,
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
        ",application/json", GCP_MEDIA_BIT(GCP_MEDIA_JSON)
                             | GCP_MEDIA_BIT(GCP_MEDIA_DISCOVERY), &m),
        GCP_OK);
    assert_int_equal(m.kind, GCP_MEDIA_DISCOVERY);
    assert_string_equal(m.version, "v2");

    assert_string_equal(gcp_media_content_type(a,
                        " Application/JSON; charset=utf-8"),
                        "application/json");
    assert_string_equal(gcp_media_content_type(a, NULL), "");

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_reqinfo_table),
        cmocka_unit_test(test_reqinfo_bad_watch),
        cmocka_unit_test(test_reqinfo_selector_name),
        cmocka_unit_test(test_query),
        cmocka_unit_test(test_media),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
