/*
 * Fuzzing the structural schema library of custom resources
 * (apiextensions/gcp_crd_schema.h) as a CRD's openAPIV3Schema and its
 * custom resources reach it: the schema is checked as on a CRD create
 * (with the status subresource or not), compiled when accepted, and
 * documents are pruned (twice: pruning is idempotent), defaulted and
 * validated, on create and as an update of an old object (ratcheting
 * never adds errors).
 *
 * Input: "SCHEMA\0DOCUMENT[\0OLD]", each JSON (a byte of 0 separates them).
 */

#include <string.h>

#include <jansson.h>

#include "gcp_crd_schema.h"
#include "gcp_json.h"
#include "support_crd.h"
#include "fuzz.h"


static json_t *
crd_part(gcp_arena_t *a, fuzz_in_t *in)
{
    size_t          n;
    const char     *msg;
    const uint8_t  *p;

    n = fuzz_cut(in, '\0', &p);

    return n ? gcp_json_parse(a, (const char *) p, n, &msg) : NULL;
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char                   err[256];
    json_t                *schema, *doc, *old, *copy;
    size_t                 npaths, n1;
    fuzz_in_t              in;
    gcp_ferrs_t            errs, errs_old;
    const char            *perr, **paths;
    gcp_arena_t           *a;
    gcp_crd_schema_t      *cs;
    gcp_crd_check_opts_t   opts;

    in.p = data;
    in.n = size;

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    schema = crd_part(a, &in);

    if (schema == NULL) {
        gcp_arena_destroy(a);
        return -1;
    }

    copy = json_deep_copy(schema);
    FUZZ_CHECK(copy != NULL);

    gcp_crd_check_opts_init(&opts);
    opts.status_enabled = size & 1;

    gcp_ferrs_init(&errs, a);
    FUZZ_CHECK(gcp_crd_schema_check(&errs, schema, "spec.validation", &opts,
                                    sc_set()) == GCP_OK);
    FUZZ_CHECK(json_equal(schema, copy));
    json_decref(copy);

    if (errs.n > 0) {
        gcp_arena_destroy(a);
        return 0;
    }

    cs = gcp_crd_schema_compile(schema, sc_set(), err, sizeof(err));
    FUZZ_CHECK(cs != NULL);

    doc = crd_part(a, &in);
    old = crd_part(a, &in);

    if (doc != NULL) {
        perr = NULL;
        paths = NULL;
        npaths = 0;

        if (gcp_crd_schema_prune(cs, doc, GCP_CRD_PRUNE_PATHS, a, &paths,
                                 &npaths, &perr) == GCP_OK)
        {
            copy = json_deep_copy(doc);
            FUZZ_CHECK(copy != NULL);

            FUZZ_CHECK(gcp_crd_schema_prune(cs, copy, 0, a, NULL, NULL,
                                            &perr) == GCP_OK);
            FUZZ_CHECK(json_equal(copy, doc));
            json_decref(copy);

            FUZZ_CHECK(gcp_crd_schema_default(cs, doc) == GCP_OK);

            gcp_ferrs_init(&errs, a);
            FUZZ_CHECK(gcp_crd_schema_validate(cs, doc, NULL, &errs)
                       == GCP_OK);
            n1 = errs.n;

            if (old != NULL) {
                (void) gcp_crd_schema_prune(cs, old, GCP_CRD_PRUNE_DROP_INVALID,
                                            a, NULL, NULL, &perr);

                gcp_ferrs_init(&errs_old, a);
                FUZZ_CHECK(gcp_crd_schema_validate(cs, doc, old, &errs_old)
                           == GCP_OK);
                FUZZ_CHECK(errs_old.n <= n1);
            }

        } else {
            FUZZ_CHECK(perr != NULL);
        }
    }

    gcp_crd_schema_free(cs);
    gcp_arena_destroy(a);

    return 0;
}
