
/*
 * Structural defaulting of custom resources (apiextensions-apiserver
 * schema/defaulting/algorithm.go; see gcp_crd_schema.h).
 */

#include "gcp_crd_int.h"


static int
gcp_crd_nonnullable_null(const json_t *x, const gcp_crd_node_t *s)
{
    return json_is_null(x) && s != NULL && !s->nullable;
}


/* x[key] = deep copy of d */
static int
gcp_crd_set_default(json_t *x, const char *key, const json_t *d)
{
    json_t  *copy;

    copy = json_deep_copy(d);

    if (copy == NULL || json_object_set_new(x, key, copy) != 0) {
        return -1;
    }

    return 0;
}


static int
gcp_crd_default(const gcp_crd_node_t *s, json_t *x)
{
    void            *it;
    size_t           i;
    json_t          *v, *copy;
    const char      *k;
    gcp_crd_node_t  *p;

    if (s == NULL) {
        return 0;
    }

    if (json_is_object(x)) {
        for (i = 0; i < s->nprops; i++) {
            p = s->props[i].node;

            if (p->dflt == NULL) {
                continue;
            }

            v = json_object_get(x, s->props[i].name);

            if ((v == NULL || gcp_crd_nonnullable_null(v, p))
                && gcp_crd_set_default(x, s->props[i].name, p->dflt) != 0)
            {
                return -1;
            }
        }

        for (it = json_object_iter(x); it; it = json_object_iter_next(x, it)) {
            k = json_object_iter_key(it);
            v = json_object_iter_value(it);
            p = gcp_crd_prop(s, k, strlen(k));

            if (p == NULL) {
                if (!s->ap_present) {
                    continue;
                }

                p = s->ap;

                if (gcp_crd_nonnullable_null(v, p)) {
                    /* upstream copies the default, nil when there is none */
                    copy = p->dflt ? json_deep_copy(p->dflt) : json_null();

                    if (copy == NULL
                        || json_object_iter_set_new(x, it, copy) != 0)
                    {
                        return -1;
                    }

                    v = copy;
                }
            }

            if (gcp_crd_default(p, v) != 0) {
                return -1;
            }
        }

        return 0;
    }

    if (json_is_array(x)) {
        json_array_foreach(x, i, v) {
            if (gcp_crd_nonnullable_null(v, s->items)) {
                copy = s->items->dflt ? json_deep_copy(s->items->dflt)
                                      : json_null();

                if (copy == NULL || json_array_set_new(x, i, copy) != 0) {
                    return -1;
                }

                v = copy;
            }

            if (gcp_crd_default(s->items, v) != 0) {
                return -1;
            }
        }
    }

    return 0;
}


int
gcp_crd_schema_default(const gcp_crd_schema_t *cs, json_t *obj)
{
    return gcp_crd_default(cs->root, obj) == 0 ? GCP_OK : GCP_ENOMEM;
}
