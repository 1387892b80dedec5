
/*
 * Unit tests: CRD conversion webhooks (gcp_cr_convert.h): a CRD's
 * spec.conversion compiled, the ConversionReview sent, the answers
 * checked with apiextensions-apiserver's messages, metadata restored but
 * for labels and annotations.  The calls themselves run end to end in
 * t/e2e/test_crd_conversion.py.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_cr_convert.h"
#include "gcp_json.h"


#define UID  "11111111-2222-4333-8444-555555555555"


static json_t *
load(const char *s)
{
    char    *q, *p;
    json_t  *j;

    /* single quotes for readability */
    q = strdup(s);
    assert_non_null(q);

    for (p = q; *p; p++) {
        if (*p == '\'') {
            *p = '"';
        }
    }

    j = json_loads(q, 0, NULL);
    free(q);
    assert_non_null(j);

    return j;
}


static void
test_parse(void **state)
{
    json_t               *crd;
    gcp_arena_t          *a;
    gcp_cr_conversion_t   c;

    a = gcp_arena_create(0);

    crd = load("{'spec':{'conversion':{'strategy':'None'}}}");
    assert_int_equal(gcp_cr_conversion_parse(a, crd, &c), GCP_OK);
    assert_false(c.webhook);
    json_decref(crd);

    crd = load("{'spec':{'conversion':{'strategy':'Webhook','webhook':{"
               "'conversionReviewVersions':['v2','v1beta1','v1'],"
               "'clientConfig':{'url':'https://127.0.0.1:9443/convert'}}}}}");
    assert_int_equal(gcp_cr_conversion_parse(a, crd, &c), GCP_OK);
    assert_true(c.webhook);
    assert_string_equal(c.review_version, "v1beta1");
    assert_null(c.client_error);
    assert_string_equal(c.client.url, "https://127.0.0.1:9443/convert");
    json_decref(crd);

    crd = load("{'spec':{'conversion':{'strategy':'Webhook','webhook':{"
               "'conversionReviewVersions':['v9'],'clientConfig':{}}}}}");
    assert_int_equal(gcp_cr_conversion_parse(a, crd, &c), GCP_OK);
    assert_null(c.review_version);
    assert_non_null(c.client_error);
    json_decref(crd);

    gcp_arena_destroy(a);
}


static void
test_request(void **state)
{
    json_t       *obj, *got, *want;
    gcp_str_t     s;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    obj = load("{'apiVersion':'ex.com/v2','kind':'W','metadata':{'name':'a'}}");

    s = gcp_cr_convert_request(a, "v1", UID, "ex.com/v1", &obj, 1);
    assert_non_null(s.data);

    got = json_loadb(s.data, s.len, 0, NULL);
    want = load("{'kind':'ConversionReview','apiVersion':"
                "'apiextensions.k8s.io/v1','request':{'uid':'" UID "',"
                "'desiredAPIVersion':'ex.com/v1','objects':[{'apiVersion':"
                "'ex.com/v2','kind':'W','metadata':{'name':'a'}}]}}");
    assert_true(json_equal(got, want));

    json_decref(got);
    json_decref(want);
    json_decref(obj);
    gcp_arena_destroy(a);
}


typedef struct {
    const char  *review;        /* "v1" or "v1beta1" */
    int          list;
    const char  *answer;
    const char  *err;           /* NULL: converted */
} answer_case_t;


#define IN0  "{'apiVersion':'ex.com/v2','kind':'W','metadata':{'name':'a'," \
             "'namespace':'ns','uid':'u1','resourceVersion':'7'," \
             "'labels':{'x':'1'}},'spec':{'size':1}}"
#define IN1  "{'apiVersion':'ex.com/v2','kind':'W','metadata':{'name':'b'," \
             "'namespace':'ns','uid':'u2','resourceVersion':'8'}}"

#define V1OK(objs)                                                          \
    "{'apiVersion':'apiextensions.k8s.io/v1','kind':'ConversionReview',"    \
    "'response':{'uid':'" UID "','result':{'status':'Success'},"            \
    "'convertedObjects':[" objs "]}}"

#define OUT0  "{'apiVersion':'ex.com/v1','kind':'W','metadata':{'name':'a'," \
              "'namespace':'ns','uid':'u1'},'spec':{'replicas':1}}"
#define OUT1  "{'apiVersion':'ex.com/v1','kind':'W','metadata':{'name':'b'," \
              "'namespace':'ns','uid':'u2','labels':{'new':'yes'}}}"


static const answer_case_t  answers[] = {
    { "v1", 1, V1OK(OUT0 "," OUT1), NULL },
    { "v1beta1", 1,
      "{'response':{'result':{'status':'Success'},'convertedObjects':["
      OUT0 "," OUT1 "]}}", NULL },

    { "v1", 1, "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview'}",
      "failed: expected webhook response of apiextensions.k8s.io/v1, "
      "Kind=ConversionReview, got admission.k8s.io/v1, Kind=AdmissionReview" },
    { "v1", 1, "{'apiVersion':'apiextensions.k8s.io/v1',"
      "'kind':'ConversionReview'}", "failed: no response provided" },
    { "v1", 1, "{'apiVersion':'apiextensions.k8s.io/v1','kind':"
      "'ConversionReview','response':{'uid':'other','result':{'status':"
      "'Success'}}}",
      "failed: expected response.uid=\"" UID "\", got \"other\"" },
    { "v1", 1, "{'apiVersion':'apiextensions.k8s.io/v1','kind':"
      "'ConversionReview','response':{'uid':'" UID "','result':{'status':"
      "'Failure','message':'cannot convert size'}}}",
      "failed: cannot convert size" },
    { "v1", 1, "{'apiVersion':'apiextensions.k8s.io/v1','kind':"
      "'ConversionReview','response':{'uid':'" UID "','result':{}}}",
      "failed: response.result.status was '', not 'Success'" },
    { "v1", 1, V1OK(OUT0), "returned 1 objects, expected 2" },
    { "v1", 1, V1OK(OUT0 ",{'apiVersion':'ex.com/v3','kind':'W'}"),
      "returned invalid converted object at index 2: invalid groupVersion "
      "(expected ex.com/v1, received ex.com/v3)" },
    { "v1", 1, V1OK(OUT0 ",{'apiVersion':'ex.com/v1','kind':'X'}"),
      "returned invalid converted object at index 2: invalid kind "
      "(expected W, received X)" },
    { "v1", 1, V1OK(OUT0 ",{'apiVersion':'ex.com/v1','kind':'W','metadata'"
                    ":{'name':'c','namespace':'ns','uid':'u2'}}"),
      "returned invalid converted object at index 2: must have the same "
      "name: b != c" },
    { "v1", 1, V1OK(OUT0 ",{'apiVersion':'ex.com/v1','kind':'W','metadata'"
                    ":{'name':'b','namespace':'ns','uid':'u3'}}"),
      "returned invalid converted object at index 2: must have the same "
      "UID: u2 != u3" },
    { "v1", 1, V1OK(OUT0 ",{'apiVersion':'ex.com/v1','kind':'W','metadata'"
                    ":{'name':'b','namespace':'ns','uid':'u2','labels':"
                    "{'a':1}}}"),
      "returned invalid metadata in object at index 2: metadata.labels[a] "
      "must be a string, but is int64 in converted object" },
    { "v1", 1, V1OK(OUT0 ",{'apiVersion':'ex.com/v1','kind':'W','metadata'"
                    ":{'name':'b','namespace':'ns','uid':'u2','labels':"
                    "{'a':'b c'}}}"),
      "returned invalid metadata in object at index 2: metadata.labels: "
      "Invalid value: \"b c\": a valid label must be an empty string or "
      "consist of alphanumeric characters, '-', '_' or '.', and must start "
      "and end with an alphanumeric character (e.g. 'MyValue',  or "
      "'my_value',  or '12345', regex used for validation is "
      "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')" },
    { "v1", 0, V1OK("{'apiVersion':'ex.com/v3','kind':'W'}"),
      "returned 1 objects, expected 2" },
};


static void
test_answers(void **state)
{
    int           rc;
    size_t        i;
    json_t       *in[2], *out[2], *answer, *want;
    gcp_arena_t  *a;
    const char   *err;

    in[0] = load(IN0);
    in[1] = load(IN1);

    for (i = 0; i < sizeof(answers) / sizeof(answers[0]); i++) {
        a = gcp_arena_create(0);
        answer = load(answers[i].answer);

        rc = gcp_cr_convert_answer(a, answers[i].review, UID, "ex.com/v1",
                                   in, 2, answer, answers[i].list, out,
                                   &err);

        if (answers[i].err == NULL) {
            assert_int_equal(rc, GCP_OK);

            /* metadata back from the stored object, labels from the
             * webhook (none: none) */
            want = load("{'apiVersion':'ex.com/v1','kind':'W','metadata':{"
                        "'name':'a','namespace':'ns','uid':'u1',"
                        "'resourceVersion':'7'},'spec':{'replicas':1}}");
            assert_true(json_equal(out[0], want));
            json_decref(want);

            want = load("{'apiVersion':'ex.com/v1','kind':'W','metadata':{"
                        "'name':'b','namespace':'ns','uid':'u2',"
                        "'resourceVersion':'8','labels':{'new':'yes'}}}");
            assert_true(json_equal(out[1], want));
            json_decref(want);

            json_decref(out[0]);
            json_decref(out[1]);

        } else {
            if (rc != GCP_EINVALID || strcmp(err, answers[i].err) != 0) {
                fail_msg("case %zu: rc %d, %s", i, rc, err ? err : "-");
            }

            assert_null(out[0]);
            assert_null(out[1]);
        }

        json_decref(answer);
        gcp_arena_destroy(a);
    }

    json_decref(in[0]);
    json_decref(in[1]);
}


/* One object (not a list): upstream's own words for it. */
static void
test_answer_single(void **state)
{
    json_t       *in, *out, *answer;
    gcp_arena_t  *a;
    const char   *err;

    a = gcp_arena_create(0);
    in = load(IN1);

    answer = load(V1OK("{'apiVersion':'ex.com/v3','kind':'W'}"));
    assert_int_equal(gcp_cr_convert_answer(a, "v1", UID, "ex.com/v1", &in, 1,
                                           answer, 0, &out, &err),
                     GCP_EINVALID);
    assert_string_equal(err, "returned invalid object at index 0: invalid "
                        "groupVersion (expected ex.com/v1, received "
                        "ex.com/v3)");
    json_decref(answer);

    answer = load(V1OK("{'apiVersion':'ex.com/v1','kind':'W','metadata':"
                       "{'name':'b','namespace':'other','uid':'u2'}}"));
    assert_int_equal(gcp_cr_convert_answer(a, "v1", UID, "ex.com/v1", &in, 1,
                                           answer, 0, &out, &err),
                     GCP_EINVALID);
    assert_string_equal(err, "returned invalid object: must have the same "
                        "namespace: ns != other");
    json_decref(answer);

    answer = load(V1OK("{'apiVersion':'ex.com/v1','kind':'W','metadata':"
                       "'x'}"));
    assert_int_equal(gcp_cr_convert_answer(a, "v1", UID, "ex.com/v1", &in, 1,
                                           answer, 0, &out, &err),
                     GCP_EINVALID);
    assert_string_equal(err, "returned invalid object: must have the same "
                        "name: b != ");
    json_decref(answer);

    json_decref(in);
    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_request),
        cmocka_unit_test(test_answers),
        cmocka_unit_test(test_answer_single),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
