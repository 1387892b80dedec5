
/*
 * Copies and comparison of jansson values that keep object keys holding
 * NUL bytes whole (see gcp_json.h): jansson's json_copy(),
 * json_deep_copy() and json_equal() go through C strings and cut such a
 * key at its first NUL.
 */

#include "gcp_json_int.h"


json_t *
gcp_json_copy(const json_t *v)
{
    size_t       klen;
    json_t      *r, *value;
    const char  *key;

    if (!json_is_object(v)) {
        return json_copy((json_t *) v);
    }

    r = json_object();
    if (r == NULL) {
        return NULL;
    }

    json_object_keylen_foreach((json_t *) v, key, klen, value) {
        if (json_object_setn_nocheck(r, key, klen, value) != 0) {
            json_decref(r);
            return NULL;
        }
    }

    return r;
}


/* A deep copy; prune: without the null members of objects. */
static json_t *
gcp_json_copy_deep(const json_t *v, int prune)
{
    size_t       i, klen;
    json_t      *r, *value, *c;
    const char  *key;

    if (json_is_object(v)) {
        r = json_object();
        if (r == NULL) {
            return NULL;
        }

        json_object_keylen_foreach((json_t *) v, key, klen, value) {
            if (prune && json_is_null(value)) {
                continue;
            }

            c = gcp_json_copy_deep(value, prune);

            if (c == NULL
                || json_object_setn_new_nocheck(r, key, klen, c) != 0)
            {
                json_decref(r);
                return NULL;
            }
        }

        return r;
    }

    if (json_is_array(v)) {
        r = json_array();
        if (r == NULL) {
            return NULL;
        }

        for (i = 0; i < json_array_size(v); i++) {
            c = gcp_json_copy_deep(json_array_get(v, i), prune);

            if (c == NULL || json_array_append_new(r, c) != 0) {
                json_decref(r);
                return NULL;
            }
        }

        return r;
    }

    /* scalars: strings keep their length */

    return json_deep_copy(v);
}


json_t *
gcp_json_deep_copy(const json_t *v)
{
    return gcp_json_copy_deep(v, 0);
}


json_t *
gcp_json_deep_copy_pruned(const json_t *v)
{
    return gcp_json_copy_deep(v, 1);
}


int
gcp_json_equal(const json_t *a, const json_t *b)
{
    size_t       i, klen;
    json_t      *value;
    const char  *key;

    if (a == b) {
        return 1;
    }

    if (a == NULL || b == NULL || json_typeof(a) != json_typeof(b)) {
        return 0;
    }

    if (json_is_object(a)) {
        if (json_object_size(a) != json_object_size(b)) {
            return 0;
        }

        json_object_keylen_foreach((json_t *) a, key, klen, value) {
            if (!gcp_json_equal(value, json_object_getn(b, key, klen))) {
                return 0;
            }
        }

        return 1;
    }

    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b)) {
            return 0;
        }

        for (i = 0; i < json_array_size(a); i++) {
            if (!gcp_json_equal(json_array_get(a, i), json_array_get(b, i))) {
                return 0;
            }
        }

        return 1;
    }

    return json_equal(a, b);
}
