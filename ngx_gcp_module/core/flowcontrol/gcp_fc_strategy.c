
/*
 * What the strategies of FlowSchema and PriorityLevelConfiguration share
 * (see gcp_fc_types.h): status handling, conversion between v1 and
 * v1beta3, accessors.
 */

#include "gcp_fc_types.h"


const char * const  gcp_fc_order[] = { "spec", "status", NULL };


int
gcp_fc_prepare_create(gcp_op_t *op, json_t *obj)
{
    json_object_set_new(obj, "status", json_object());

    if (!json_is_object(json_object_get(obj, "spec"))) {
        json_object_set_new(obj, "spec", json_object());
    }

    return GCP_OK;
}


int
gcp_fc_keep_status(gcp_op_t *op, json_t *obj, const json_t *old)
{
    json_t  *status;

    status = json_object_get(old, "status");
    json_object_set(obj, "status", status ? status : json_object());

    if (!json_is_object(json_object_get(obj, "spec"))) {
        json_object_set_new(obj, "spec", json_object());
    }

    return GCP_OK;
}


int
gcp_fc_prepare_status(gcp_op_t *op, json_t *obj, const json_t *old)
{
    if (!json_is_object(json_object_get(obj, "status"))) {
        json_object_set_new(obj, "status", json_object());
    }

    return GCP_OK;
}


json_t *
gcp_fc_convert(const json_t *obj, const char *version)
{
    json_t  *dst;

    dst = json_deep_copy(obj);
    if (dst == NULL) {
        return NULL;
    }

    if (json_object_set_new(dst, "apiVersion",
                            json_sprintf("%s/%s", GCP_FC_GROUP, version))
        != 0)
    {
        json_decref(dst);
        return NULL;
    }

    return dst;
}


int64_t
gcp_fc_int(const json_t *obj, const char *a, const char *b, int64_t def)
{
    const json_t  *v;

    v = json_object_get(obj, a);

    if (b) {
        v = json_object_get(v, b);
    }

    return json_is_integer(v) ? json_integer_value(v) : def;
}
