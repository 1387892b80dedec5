
/*
 * Object members in Go's map order (see gcp_json.h): the keys of a
 * map[string]interface{} come out of encoding/json sorted bytewise, which
 * is how kube-apiserver writes custom resources and the maps of built-in
 * types.
 */

#include <stdlib.h>

#include "gcp_json_int.h"


int
gcp_json_member_cmp(const void *a, const void *b)
{
    int                       c;
    const gcp_json_member_t  *x = a, *y = b;

    c = memcmp(x->key, y->key, gcp_min(x->len, y->len));

    if (c) {
        return c;
    }

    return (x->len > y->len) - (x->len < y->len);
}


size_t
gcp_json_members_sorted(const json_t *obj, gcp_json_member_t *m)
{
    int          sorted;
    size_t       i, klen;
    json_t      *v;
    const char  *key;

    i = 0;
    sorted = 1;

    json_object_keylen_foreach((json_t *) obj, key, klen, v) {
        m[i].key = key;
        m[i].len = klen;
        m[i].value = v;

        if (i && gcp_json_member_cmp(&m[i - 1], &m[i]) > 0) {
            sorted = 0;
        }

        i++;
    }

    if (!sorted) {
        qsort(m, i, sizeof(gcp_json_member_t), gcp_json_member_cmp);
    }

    return i;
}


static char *
gcp_json_member_keydup(const char *key, size_t len)
{
    char  *p;

    p = malloc(len + 1);

    if (p) {
        memcpy(p, key, len);
        p[len] = '\0';
    }

    return p;
}


static int
gcp_json_sort_object(json_t *obj, int deep)
{
    size_t              i, n, klen;
    json_t             *v;
    const char         *key;
    gcp_json_member_t  *m;
    int                 sorted;

    n = json_object_size(obj);
    m = NULL;

    if (n > 1) {
        m = malloc(n * sizeof(gcp_json_member_t));
        if (m == NULL) {
            return GCP_ENOMEM;
        }
    }

    i = 0;
    sorted = 1;

    json_object_keylen_foreach(obj, key, klen, v) {
        if (deep && gcp_json_sort_keys(v, 1) != GCP_OK) {
            free(m);
            return GCP_ENOMEM;
        }

        if (m) {
            m[i].key = key;
            m[i].len = klen;
            m[i].value = json_incref(v);

            if (i && gcp_json_member_cmp(&m[i - 1], &m[i]) > 0) {
                sorted = 0;
            }

            i++;
        }
    }

    if (m == NULL) {
        return GCP_OK;
    }

    if (!sorted) {
        qsort(m, n, sizeof(gcp_json_member_t), gcp_json_member_cmp);

        /* the keys live in obj: copy them before clearing it */

        for (i = 0; i < n; i++) {
            m[i].key = gcp_json_member_keydup(m[i].key, m[i].len);
        }

        json_object_clear(obj);

        for (i = 0; i < n; i++) {
            if (m[i].key == NULL
                || json_object_setn_nocheck(obj, m[i].key, m[i].len,
                                            m[i].value) != 0)
            {
                sorted = -1;
            }

            free((char *) m[i].key);
        }
    }

    for (i = 0; i < n; i++) {
        json_decref(m[i].value);
    }

    free(m);

    return sorted < 0 ? GCP_ENOMEM : GCP_OK;
}


int
gcp_json_sort_keys(json_t *v, int deep)
{
    size_t   i;

    if (json_is_object(v)) {
        return gcp_json_sort_object(v, deep);
    }

    if (deep && json_is_array(v)) {
        for (i = 0; i < json_array_size(v); i++) {
            if (gcp_json_sort_keys(json_array_get(v, i), 1) != GCP_OK) {
                return GCP_ENOMEM;
            }
        }
    }

    return GCP_OK;
}
