
/*
 * Helpers shared by the built-in types (see gcp_types.h).
 */

#include "gcp_types.h"


size_t
gcp_type_map_size(const json_t *obj, const char *field)
{
    return json_object_size(json_object_get(obj, field));
}


json_t *
gcp_type_status_keep_spec(gcp_op_t *op, const json_t *src, const json_t *old)
{
    json_t  *obj, *v;

    obj = json_deep_copy(src);
    if (obj == NULL) {
        return NULL;
    }

    v = json_object_get(old, "spec");
    json_object_set_new(obj, "spec", v ? json_deep_copy(v) : json_object());

    return obj;
}
