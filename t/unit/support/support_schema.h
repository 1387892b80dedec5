
/*
 * Test support: schema sets for the encoding tests, the embedded
 * definitions of every served type with a test's own definitions added.
 */

#ifndef _SUPPORT_SCHEMA_H_INCLUDED_
#define _SUPPORT_SCHEMA_H_INCLUDED_


#include "gcp_schema.h"


/*
 * Returns a new schema set: the embedded definitions and those of the
 * JSON document doc (n bytes); fails the test when either does not load.
 * The caller frees it with gcp_schema_set_free().
 */
gcp_schema_set_t *schema_set_with(const char *doc, size_t n);

/* Returns the JSON value of text (a new reference); fails on bad JSON. */
json_t *schema_json(const char *text);

/*
 * Asserts v (consumed) dumps as the compact JSON expected, in its own key
 * order.
 */
void schema_expect_json(json_t *v, const char *expected);


#endif /* _SUPPORT_SCHEMA_H_INCLUDED_ */
