
/*
 * The unions of the protobuf encoding (see gcp_protobuf_int.h): a JSON
 * value that is one of several fields of its message, as upstream's
 * marshal.go of apiextensions.k8s.io/v1 reads and writes them:
 *
 *   schemaorarray        {schema 1, jSONSchemas 2}: an object is the
 *                        schema, an array the schemas; JSON: the schemas
 *                        when there are some, else the schema or null
 *   schemaorbool         {allows 1, schema 2}: an object is a schema that
 *                        allows, true and false only allow or not; JSON:
 *                        the schema when there is one, else allows
 *   schemaorstringarray  {schema 1, property 2}: an object is the schema,
 *                        an array the property names; JSON: the names
 *                        when there are some, else the schema or null
 *
 * The field names are those of the definition's x-gcp-proto-message.
 */

#include "gcp_protobuf_int.h"


#define GCP_PB_U_SCHEMA    "schema"
#define GCP_PB_U_SCHEMAS   "jSONSchemas"
#define GCP_PB_U_ALLOWS    "allows"
#define GCP_PB_U_PROPERTY  "property"


/* The field that holds a JSON array of kind, or NULL. */
static const char *
gcp_pb_union_array(gcp_pb_kind_t kind)
{
    switch (kind) {
    case GCP_PB_ORARRAY:
        return GCP_PB_U_SCHEMAS;
    case GCP_PB_ORSTRINGS:
        return GCP_PB_U_PROPERTY;
    default:
        return NULL;
    }
}


json_t *
gcp_pb_union_message(gcp_pb_kind_t kind, const json_t *v, int *rc)
{
    json_t      *m;
    const char  *array;

    array = gcp_pb_union_array(kind);

    if (v && !json_is_object(v)
        && !(array && json_is_array(v))
        && !(kind == GCP_PB_ORBOOL && json_is_boolean(v)))
    {
        *rc = GCP_EINTERNAL;
        return NULL;
    }

    if (v == NULL) {
        m = json_object();

    } else if (json_is_object(v)) {
        m = kind == GCP_PB_ORBOOL
            ? json_pack("{s:b, s:O}", GCP_PB_U_ALLOWS, 1, GCP_PB_U_SCHEMA, v)
            : json_pack("{s:O}", GCP_PB_U_SCHEMA, v);

    } else if (json_is_array(v)) {
        m = json_pack("{s:O}", array, v);

    } else {
        m = json_pack("{s:O}", GCP_PB_U_ALLOWS, v);
    }

    *rc = m ? GCP_OK : GCP_ENOMEM;

    return m;
}


json_t *
gcp_pb_union_json(gcp_pb_kind_t kind, const json_t *msg)
{
    json_t      *v;
    const char  *array;

    array = gcp_pb_union_array(kind);

    if (array) {
        v = json_object_get(msg, array);

        if (json_array_size(v) > 0) {
            return json_incref(v);
        }
    }

    v = json_object_get(msg, GCP_PB_U_SCHEMA);

    if (json_is_object(v)) {
        return json_incref(v);
    }

    if (kind == GCP_PB_ORBOOL) {
        return json_boolean(json_is_true(json_object_get(msg,
                                                         GCP_PB_U_ALLOWS)));
    }

    return json_null();
}
