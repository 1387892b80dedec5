
/*
 * Test support: schema sets for the encoding tests (see support_schema.h).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "support_schema.h"


gcp_schema_set_t *
schema_set_with(const char *doc, size_t n)
{
    const char        *err;
    gcp_schema_set_t  *set;

    set = gcp_schema_set_create();
    assert_non_null(set);

    err = NULL;

    if (gcp_schema_set_load_embedded(set, &err) != GCP_OK
        || gcp_schema_set_add_doc(set, doc, n, &err) != GCP_OK)
    {
        fail_msg("schema set: %s", err ? err : "out of memory");
    }

    return set;
}


json_t *
schema_json(const char *text)
{
    json_t  *v;

    v = json_loads(text, JSON_DECODE_ANY, NULL);
    assert_non_null(v);

    return v;
}


void
schema_expect_json(json_t *v, const char *expected)
{
    char  *s;

    assert_non_null(v);
    s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    assert_non_null(s);
    assert_string_equal(s, expected);
    free(s);
    json_decref(v);
}
