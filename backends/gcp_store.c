
/*
 * Helpers shared by every storage backend (see gcp_store.h).
 */

#include "gcp_store.h"


gcp_str_t
gcp_store_prefix_end(gcp_arena_t *a, gcp_str_t prefix)
{
    char       *end;
    size_t      n;
    gcp_str_t   r = gcp_null_string;

    for (n = prefix.len; n > 0; n--) {
        if ((unsigned char) prefix.data[n - 1] != 0xff) {
            break;
        }
    }

    end = gcp_alloc(a, n ? n : 1);
    if (end == NULL) {
        return r;
    }

    if (n == 0) {
        /* no key is greater: etcd's "\0", no upper bound */
        end[0] = '\0';
        r.data = end;
        r.len = 1;
        return r;
    }

    memcpy(end, prefix.data, n);
    end[n - 1]++;

    r.data = end;
    r.len = n;

    return r;
}


int
gcp_store_key_resource(gcp_str_t key, gcp_str_t *group, gcp_str_t *resource)
{
    size_t       n1, n2;
    const char  *p, *end, *s1, *s2, *slash;

    group->data = "";
    group->len = 0;
    resource->data = "";
    resource->len = 0;

    p = key.data;
    end = key.data + key.len;

    if (key.len < 10 || memcmp(p, "/registry/", 10) != 0) {
        return 0;
    }

    s1 = p + 10;
    slash = memchr(s1, '/', end - s1);
    n1 = slash ? (size_t) (slash - s1) : (size_t) (end - s1);

    if (memchr(s1, '.', n1) == NULL || slash == NULL) {
        resource->data = s1;
        resource->len = n1;
        return memchr(s1, '.', n1) == NULL;
    }

    group->data = s1;
    group->len = n1;

    s2 = slash + 1;
    slash = memchr(s2, '/', end - s2);
    n2 = slash ? (size_t) (slash - s2) : (size_t) (end - s2);

    resource->data = s2;
    resource->len = n2;

    return n2 != 0;
}
