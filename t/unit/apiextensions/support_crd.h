
/*
 * Helpers for the unit tests of core/apiextensions (the structural schemas
 * of custom resources): schemas and documents written as single-quoted JSON
 * (support_patch.h), the ObjectMeta schema set, and kube-apiserver's
 * pipelines rendered as text so that a table can say what is expected:
 *
 *   "201 {...}"           the stored object (sorted keys)
 *   "400 message"         a decoding error (embedded apiVersion, kind,
 *                         metadata), or with strict field validation the
 *                         unknown fields: "400 unknown field \"a\", ..."
 *   "FIELD: MESSAGE\n..." the causes of a 422, one a line, in order
 */

#ifndef _SUPPORT_CRD_H_INCLUDED_
#define _SUPPORT_CRD_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"
#include "gcp_crd_schema.h"
#include "support_patch.h"


/* The set of built-in schemas (ObjectMeta), loaded once; never freed
   before sc_set_free(). */
const gcp_schema_set_t *sc_set(void);
void sc_set_free(void);

/* A cmocka group teardown that frees the set. */
int sc_teardown(void **state);

/*
 * Returns the causes of errs as "FIELD: MESSAGE" lines joined by '\n'
 * ("" when there are none), arena-owned.
 */
const char *sc_causes(gcp_arena_t *a, const gcp_ferrs_t *errs);

/* Returns the compiled schema s (single-quoted JSON); fails the test when
   it does not compile.  The caller frees it. */
gcp_crd_schema_t *sc_compile(gcp_arena_t *a, const char *s);

/*
 * Creates the custom resource doc as kube-apiserver does (prune, default,
 * validate) and returns the outcome as text (see above), arena-owned.
 * strict: fieldValidation=Strict.
 */
const char *sc_create(gcp_arena_t *a, const gcp_crd_schema_t *cs,
    const char *doc, int strict);

/* The same for an update of old (already stored) to doc: validation with
   ratcheting. */
const char *sc_update(gcp_arena_t *a, const gcp_crd_schema_t *cs,
    const char *old, const char *doc);

/* A custom resource created with a schema, and the outcome expected. */
typedef struct {
    const char  *schema;
    const char  *doc;
    const char  *want;
    int          strict;        /* fieldValidation=Strict */
} sc_case_t;

/*
 * Runs the cases (consecutive cases with the same schema string share one
 * compiled schema), prints every mismatch, fails the test if any.
 */
void sc_run_cases(const sc_case_t *c, size_t n);

/*
 * Checks the schema s at "spec.validation" (every requirement of a create,
 * status subresource when status) and returns the causes ("" when
 * accepted).
 */
const char *sc_check(gcp_arena_t *a, const char *s, int status);


#endif /* _SUPPORT_CRD_H_INCLUDED_ */
