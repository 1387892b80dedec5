
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
