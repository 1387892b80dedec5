
/*
 * Helpers for the patch unit tests (see support_patch.h).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "support_patch.h"


const char *
sp_q(gcp_arena_t *a, const char *s)
{
    char  *p, *c;

    p = gcp_strdup(a, s);
    assert_non_null(p);

    for (c = p; *c; c++) {
        if (*c == '\'') {
            *c = '"';
        }
    }

    return p;
}


json_t *
sp_load(gcp_arena_t *a, const char *s)
{
    json_t        *v;
    json_error_t   err;

    v = json_loads(sp_q(a, s), JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    if (v == NULL) {
        fail_msg("bad test JSON %s: %s", s, err.text);
    }

    return v;
}


static const char *
sp_dump_flags(gcp_arena_t *a, const json_t *v, size_t flags)
{
    char        *s;
    const char  *r;

    if (v == NULL) {
        return "(null)";
    }

    s = json_dumps(v, flags | JSON_COMPACT | JSON_ENCODE_ANY);
    assert_non_null(s);

    r = gcp_strdup(a, s);
    free(s);

    return r;
}


const char *
sp_dump(gcp_arena_t *a, const json_t *v)
{
    return sp_dump_flags(a, v, JSON_SORT_KEYS);
}


const char *
sp_dump_ordered(gcp_arena_t *a, const json_t *v)
{
    return sp_dump_flags(a, v, 0);
}


const char *
sp_canon(gcp_arena_t *a, const char *s)
{
    json_t      *v;
    const char  *r;

    v = sp_load(a, s);
    r = sp_dump(a, v);
    json_decref(v);

    return r;
}
