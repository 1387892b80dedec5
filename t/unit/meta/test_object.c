
/*
 * gcp_object_splice(): the resourceVersion spliced into stored bytes, in
 * particular into sorted metadata (custom resources), whose members
 * before it are skipped: strings with escapes, empty and nested values.
 * gcp_object_dump_canonical(): the bytes of gcp_object_canonical() and
 * gcp_json_dump_buf(), without the copy.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "gcp_object.h"


static void
check(const char *stored, unsigned flags, int64_t rv, const char *want)
{
    gcp_buf_t     b;
    gcp_str_t     v;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    assert_non_null(a);

    v.data = stored;
    v.len = strlen(stored);

    gcp_buf_init(&b, a);
    assert_int_equal(gcp_object_splice(&b, v, rv, flags), GCP_OK);
    assert_int_equal(b.len, strlen(want));
    assert_memory_equal(b.data, want, b.len);

    gcp_arena_destroy(a);
}


static void
test_splice_sorted(void **state)
{
    /* managedFields: escapes, a string ending in a backslash, {} and [] */
    check("{\"apiVersion\":\"x/v1\",\"kind\":\"W\",\"metadata\":{"
          "\"creationTimestamp\":\"t\",\"generation\":1,"
          "\"labels\":{\"uid\":\"u\\\"}\"},"
          "\"managedFields\":[{\"fieldsV1\":{\"f:a\":{},"
          "\"k:{\\\"uid\\\":\\\"1\\\"}\":{\".\":{}},\"f:b\\\\\":{},"
          "\"f:c]}\":{\"f:d\":[]}},\"manager\":\"m\"}],"
          "\"name\":\"n\",\"namespace\":\"ns\",\"uid\":\"1234\"},"
          "\"spec\":{\"uid\":\"s\"}}",
          GCP_SPLICE_SORTED, 42,
          "{\"apiVersion\":\"x/v1\",\"kind\":\"W\",\"metadata\":{"
          "\"creationTimestamp\":\"t\",\"generation\":1,"
          "\"labels\":{\"uid\":\"u\\\"}\"},"
          "\"managedFields\":[{\"fieldsV1\":{\"f:a\":{},"
          "\"k:{\\\"uid\\\":\\\"1\\\"}\":{\".\":{}},\"f:b\\\\\":{},"
          "\"f:c]}\":{\"f:d\":[]}},\"manager\":\"m\"}],"
          "\"name\":\"n\",\"namespace\":\"ns\",\"resourceVersion\":\"42\","
          "\"uid\":\"1234\"},\"spec\":{\"uid\":\"s\"}}");

    /* every member before it: at the closing brace */
    check("{\"metadata\":{\"name\":\"abcdefghijklmnop\",\"r\":[1,{}]},"
          "\"x\":1}",
          GCP_SPLICE_SORTED, 7,
          "{\"metadata\":{\"name\":\"abcdefghijklmnop\",\"r\":[1,{}],"
          "\"resourceVersion\":\"7\"},\"x\":1}");

    /* empty metadata */
    check("{\"metadata\":{}}", GCP_SPLICE_SORTED, 3,
          "{\"metadata\":{\"resourceVersion\":\"3\"}}");

    /* a key that extends "resourceVersion" sorts after it */
    check("{\"metadata\":{\"name\":\"a\",\"resourceVersionX\":2}}",
          GCP_SPLICE_SORTED, 9,
          "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"9\","
          "\"resourceVersionX\":2}}");
}


static void
test_splice_corrupt(void **state)
{
    gcp_buf_t     b;
    gcp_str_t     v;
    gcp_arena_t  *a;

    static const char  *bad[] = {
        "{\"metadata\":{\"labels\":{\"a\":\"unterminated",
        "{\"metadata\":{\"labels\":{\"a\":\"b\\",
        "{\"metadata\":{\"labels\":{",
        "{\"metadata\":{\"name\"",
        NULL
    };
    size_t  i;

    a = gcp_arena_create(0);

    for (i = 0; bad[i]; i++) {
        v.data = bad[i];
        v.len = strlen(bad[i]);
        gcp_buf_init(&b, a);
        assert_int_equal(gcp_object_splice(&b, v, 1, GCP_SPLICE_SORTED),
                         GCP_EINTERNAL);
    }

    gcp_arena_destroy(a);
}


static void
test_splice_typed(void **state)
{
    check("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{"
          "\"name\":\"a\",\"uid\":\"u\",\"creationTimestamp\":\"t\"},"
          "\"data\":{}}", GCP_SPLICE_STRIP_TYPEMETA, 5,
          "{\"metadata\":{\"name\":\"a\",\"uid\":\"u\","
          "\"resourceVersion\":\"5\",\"creationTimestamp\":\"t\"},"
          "\"data\":{}}");
}


/*
 * Places are remembered by revision and length: the same version again,
 * then another value of that revision and length (another store) whose
 * place differs.
 */
static void
test_splice_remembered(void **state)
{
    int  i;

    for (i = 0; i < 2; i++) {
        check("{\"metadata\":{\"name\":\"aaaaaaaa\",\"uid\":\"u\"},\"x\":1}",
              GCP_SPLICE_SORTED, 77,
              "{\"metadata\":{\"name\":\"aaaaaaaa\","
              "\"resourceVersion\":\"77\",\"uid\":\"u\"},\"x\":1}");
    }

    check("{\"metadata\":{\"name\":\"a\",\"namespace\":\"bc\"},\"x\":1}",
          GCP_SPLICE_SORTED, 77,
          "{\"metadata\":{\"name\":\"a\",\"namespace\":\"bc\","
          "\"resourceVersion\":\"77\"},\"x\":1}");
}


/* canonical's bytes: with NULL_CREATED, of a copy given a null */
/* creationTimestamp (metadata {} when absent) as admission did */
static void
check_canonical(const char *in, const char * const *order, unsigned flags,
    const char *want)
{
    json_t       *obj, *o, *meta, *c;
    gcp_buf_t     b, ref;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    assert_non_null(a);

    obj = json_loads(in, 0, NULL);
    assert_non_null(obj);

    o = json_copy(obj);
    if (flags & GCP_OBJECT_NULL_CREATED) {
        meta = json_copy(json_object_get(obj, "metadata"));
        meta = meta ? meta : json_object();
        if (json_object_get(meta, "creationTimestamp") == NULL) {
            json_object_set_new(meta, "creationTimestamp", json_null());
        }
        json_object_set_new(o, "metadata", meta);
    }

    c = gcp_object_canonical(o, order);
    gcp_buf_init(&ref, a);
    gcp_json_dump_buf(&ref, c, 0);

    gcp_buf_init(&b, a);
    gcp_object_dump_canonical(&b, obj, order, flags);

    assert_string_equal(gcp_buf_cstr(&b), gcp_buf_cstr(&ref));
    if (want) {
        assert_string_equal(gcp_buf_cstr(&b), want);
    }

    json_decref(c);
    json_decref(o);
    json_decref(obj);
    gcp_arena_destroy(a);
}


static void
test_dump_canonical(void **state)
{
    char    big[4096], *p;
    size_t  i;

    /* "metadata" listed: only where it is not an object (canonical would */
    /* put an object there unordered) */
    static const char * const  order[] = {
        "spec", "status", "spec", "kind", "metadata", "metadata.name", NULL
    };
    static const char * const  plain[] = {
        "spec", "status", "spec", "kind", "metadata.name", NULL
    };

    check_canonical("{\"data\":{\"b\":\"<&>\",\"a\":\"x\"},"
                    "\"metadata\":{\"labels\":{\"z\":\"1\"},\"name\":\"n\","
                    "\"zz\":1,\"namespace\":\"ns\"},\"apiVersion\":\"v1\","
                    "\"kind\":\"ConfigMap\"}", NULL, GCP_OBJECT_NULL_CREATED,
                    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
                    "\"metadata\":{\"name\":\"n\",\"namespace\":\"ns\","
                    "\"creationTimestamp\":null,\"labels\":{\"z\":\"1\"},"
                    "\"zz\":1},\"data\":{\"b\":\"\\u003c\\u0026\\u003e\","
                    "\"a\":\"x\"}}");
    check_canonical("{\"status\":{},\"x\":[1,2.5,null,true],\"spec\":"
                    "{\"k\":\"\\u2028\"},\"kind\":\"K\",\"metadata\":{"
                    "\"creationTimestamp\":\"2026-01-01T00:00:00Z\"}}", order,
                    GCP_OBJECT_NULL_CREATED, NULL);
    check_canonical("{\"spec\":1,\"kind\":\"K\"}", order,
                    GCP_OBJECT_NULL_CREATED,
                    "{\"kind\":\"K\",\"metadata\":{\"creationTimestamp\":"
                    "null},\"spec\":1}");
    check_canonical("{\"spec\":1,\"metadata\":\"odd\",\"we\\\"ird\":{}}",
                    order, GCP_OBJECT_NULL_CREATED, NULL);
    check_canonical("{\"spec\":1,\"metadata\":null}", order,
                    GCP_OBJECT_NULL_CREATED, NULL);
    check_canonical("{\"a\":1,\"metadata\":{\"name\":\"n\"},\"kind\":\"K\"}",
                    NULL, 0, "{\"kind\":\"K\",\"metadata\":{\"name\":\"n\"},"
                    "\"a\":1}");
    check_canonical("{}", NULL, 0, "{}");

    /* more members than the writer ranks on the stack */
    p = big;
    p += sprintf(p, "{\"metadata\":{");
    for (i = 40; i > 0; i--) {
        p += sprintf(p, "\"m%zu\":%zu,", i, i);
    }
    p += sprintf(p, "\"uid\":\"u\",\"name\":\"n\"},");
    for (i = 40; i > 0; i--) {
        p += sprintf(p, "\"k%zu\":[%zu],", i, i);
    }
    sprintf(p, "\"status\":{},\"kind\":\"K\"}");
    check_canonical(big, plain, GCP_OBJECT_NULL_CREATED, NULL);
    check_canonical(big, NULL, 0, NULL);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_splice_sorted),
        cmocka_unit_test(test_splice_corrupt),
        cmocka_unit_test(test_splice_typed),
        cmocka_unit_test(test_splice_remembered),
        cmocka_unit_test(test_dump_canonical),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
