
/*
 * Helpers shared by the built-in types (see gcp_types.h).
 */

#include "gcp_types.h"


size_t
gcp_type_map_size(const json_t *obj, const char *field)
{
    return json_object_size(json_object_get(obj, field));
}
