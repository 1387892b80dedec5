
/*
 * The OpenAPI v2 document in protobuf (application/com.github.proto-
 * openapi.spec.v2.v1.0+protobuf): the messages of gnostic's
 * openapiv2/OpenAPIv2.proto (package openapi.v2), made from the JSON
 * document as kube-openapi's ToProtoBinary() does (gnostic's ParseDocument
 * then proto.Marshal): fields in number order, proto3 zero values left
 * out, maps as repeated Named* pairs in the document's key order, "x-"
 * keys as vendor extensions whose Any carries the value as YAML, oneofs
 * (parameters, responses, schemas) chosen as gnostic chooses them.
 */

#include "gcp_openapi.h"
#include "gcp_protobuf.h"
#include "gcp_yaml.h"


typedef enum {
    GCP_OAPB_STR = 0,
    GCP_OAPB_BOOL,
    GCP_OAPB_INT,
    GCP_OAPB_DOUBLE,
    GCP_OAPB_STRS,          /* repeated string */
    GCP_OAPB_ANY,           /* Any{yaml = 2} */
    GCP_OAPB_ANYS,          /* repeated Any */
    GCP_OAPB_MSG,           /* an object: message msg */
    GCP_OAPB_MSGS,          /* an array of objects: repeated msg */
    GCP_OAPB_MAP,           /* an object: message {1: repeated Named msg} */
    GCP_OAPB_NAMED,         /* the object itself: repeated Named msg */
    GCP_OAPB_TYPE,          /* TypeItem{value = 1} of a string or array */
    GCP_OAPB_ITEMS,         /* ItemsItem{schema = 1} of one or several */
    GCP_OAPB_ADDPROPS,      /* AdditionalPropertiesItem */
    GCP_OAPB_PARAMS,        /* repeated ParametersItem */
    GCP_OAPB_PARAM,         /* Parameter */
    GCP_OAPB_RESPVAL,       /* ResponseValue */
    GCP_OAPB_SCHEMAITEM,    /* SchemaItem */
    GCP_OAPB_SECREQS,       /* repeated SecurityRequirement */
    GCP_OAPB_SECDEF         /* SecurityDefinitionsItem */
} gcp_oapb_kind_t;


typedef struct gcp_oapb_msg_s  gcp_oapb_msg_t;

typedef struct {
    const char            *key;     /* NULL: the object itself */
    uint32_t               num;
    gcp_oapb_kind_t        kind;
    const gcp_oapb_msg_t  *msg;
} gcp_oapb_field_t;

struct gcp_oapb_msg_s {
    const gcp_oapb_field_t  *fields;    /* by field number */
    size_t                   n;
    uint32_t                 vendor;    /* vendor_extension's number, 0 */
};


#define GCP_OAPB_MSG_OF(f, v)  { f, sizeof(f) / sizeof(f[0]), v }


static int gcp_oapb_message(gcp_buf_t *b, const gcp_oapb_msg_t *m,
    const json_t *obj, int depth);

extern const gcp_oapb_msg_t  gcp_oapb_schema;
extern const gcp_oapb_msg_t  gcp_oapb_primitives;


static const gcp_oapb_field_t  gcp_oapb_schema_f[] = {
    { "$ref", 1, GCP_OAPB_STR, NULL },
    { "format", 2, GCP_OAPB_STR, NULL },
    { "title", 3, GCP_OAPB_STR, NULL },
    { "description", 4, GCP_OAPB_STR, NULL },
    { "default", 5, GCP_OAPB_ANY, NULL },
    { "multipleOf", 6, GCP_OAPB_DOUBLE, NULL },
    { "maximum", 7, GCP_OAPB_DOUBLE, NULL },
    { "exclusiveMaximum", 8, GCP_OAPB_BOOL, NULL },
    { "minimum", 9, GCP_OAPB_DOUBLE, NULL },
    { "exclusiveMinimum", 10, GCP_OAPB_BOOL, NULL },
    { "maxLength", 11, GCP_OAPB_INT, NULL },
    { "minLength", 12, GCP_OAPB_INT, NULL },
    { "pattern", 13, GCP_OAPB_STR, NULL },
    { "maxItems", 14, GCP_OAPB_INT, NULL },
    { "minItems", 15, GCP_OAPB_INT, NULL },
    { "uniqueItems", 16, GCP_OAPB_BOOL, NULL },
    { "maxProperties", 17, GCP_OAPB_INT, NULL },
    { "minProperties", 18, GCP_OAPB_INT, NULL },
    { "required", 19, GCP_OAPB_STRS, NULL },
    { "enum", 20, GCP_OAPB_ANYS, NULL },
    { "additionalProperties", 21, GCP_OAPB_ADDPROPS, &gcp_oapb_schema },
    { "type", 22, GCP_OAPB_TYPE, NULL },
    { "items", 23, GCP_OAPB_ITEMS, &gcp_oapb_schema },
    { "allOf", 24, GCP_OAPB_MSGS, &gcp_oapb_schema },
    { "properties", 25, GCP_OAPB_MAP, &gcp_oapb_schema },
    { "discriminator", 26, GCP_OAPB_STR, NULL },
    { "readOnly", 27, GCP_OAPB_BOOL, NULL },
    { "example", 30, GCP_OAPB_ANY, NULL },
};

const gcp_oapb_msg_t  gcp_oapb_schema = GCP_OAPB_MSG_OF(gcp_oapb_schema_f, 31);


/* PrimitivesItems, and the shared tail of the non-body parameters */

static const gcp_oapb_field_t  gcp_oapb_primitives_f[] = {
    { "type", 1, GCP_OAPB_STR, NULL },
    { "format", 2, GCP_OAPB_STR, NULL },
    { "items", 3, GCP_OAPB_MSG, &gcp_oapb_primitives },
    { "collectionFormat", 4, GCP_OAPB_STR, NULL },
    { "default", 5, GCP_OAPB_ANY, NULL },
    { "maximum", 6, GCP_OAPB_DOUBLE, NULL },
    { "exclusiveMaximum", 7, GCP_OAPB_BOOL, NULL },
    { "minimum", 8, GCP_OAPB_DOUBLE, NULL },
    { "exclusiveMinimum", 9, GCP_OAPB_BOOL, NULL },
    { "maxLength", 10, GCP_OAPB_INT, NULL },
    { "minLength", 11, GCP_OAPB_INT, NULL },
    { "pattern", 12, GCP_OAPB_STR, NULL },
    { "maxItems", 13, GCP_OAPB_INT, NULL },
    { "minItems", 14, GCP_OAPB_INT, NULL },
    { "uniqueItems", 15, GCP_OAPB_BOOL, NULL },
    { "enum", 16, GCP_OAPB_ANYS, NULL },
    { "multipleOf", 17, GCP_OAPB_DOUBLE, NULL },
};

const gcp_oapb_msg_t  gcp_oapb_primitives =
    GCP_OAPB_MSG_OF(gcp_oapb_primitives_f, 18);


/* Header and Path parameters: required 1, in 2, description 3, name 4 */

static const gcp_oapb_field_t  gcp_oapb_path_param_f[] = {
    { "required", 1, GCP_OAPB_BOOL, NULL },
    { "in", 2, GCP_OAPB_STR, NULL },
    { "description", 3, GCP_OAPB_STR, NULL },
    { "name", 4, GCP_OAPB_STR, NULL },
    { "type", 5, GCP_OAPB_STR, NULL },
    { "format", 6, GCP_OAPB_STR, NULL },
    { "items", 7, GCP_OAPB_MSG, &gcp_oapb_primitives },
    { "collectionFormat", 8, GCP_OAPB_STR, NULL },
    { "default", 9, GCP_OAPB_ANY, NULL },
    { "maximum", 10, GCP_OAPB_DOUBLE, NULL },
    { "exclusiveMaximum", 11, GCP_OAPB_BOOL, NULL },
    { "minimum", 12, GCP_OAPB_DOUBLE, NULL },
    { "exclusiveMinimum", 13, GCP_OAPB_BOOL, NULL },
    { "maxLength", 14, GCP_OAPB_INT, NULL },
    { "minLength", 15, GCP_OAPB_INT, NULL },
    { "pattern", 16, GCP_OAPB_STR, NULL },
    { "maxItems", 17, GCP_OAPB_INT, NULL },
    { "minItems", 18, GCP_OAPB_INT, NULL },
    { "uniqueItems", 19, GCP_OAPB_BOOL, NULL },
    { "enum", 20, GCP_OAPB_ANYS, NULL },
    { "multipleOf", 21, GCP_OAPB_DOUBLE, NULL },
};

static const gcp_oapb_msg_t  gcp_oapb_path_param =
    GCP_OAPB_MSG_OF(gcp_oapb_path_param_f, 22);


/* Query and FormData parameters: allowEmptyValue 5, the rest one later */

static const gcp_oapb_field_t  gcp_oapb_query_param_f[] = {
    { "required", 1, GCP_OAPB_BOOL, NULL },
    { "in", 2, GCP_OAPB_STR, NULL },
    { "description", 3, GCP_OAPB_STR, NULL },
    { "name", 4, GCP_OAPB_STR, NULL },
    { "allowEmptyValue", 5, GCP_OAPB_BOOL, NULL },
    { "type", 6, GCP_OAPB_STR, NULL },
    { "format", 7, GCP_OAPB_STR, NULL },
    { "items", 8, GCP_OAPB_MSG, &gcp_oapb_primitives },
    { "collectionFormat", 9, GCP_OAPB_STR, NULL },
    { "default", 10, GCP_OAPB_ANY, NULL },
    { "maximum", 11, GCP_OAPB_DOUBLE, NULL },
    { "exclusiveMaximum", 12, GCP_OAPB_BOOL, NULL },
    { "minimum", 13, GCP_OAPB_DOUBLE, NULL },
    { "exclusiveMinimum", 14, GCP_OAPB_BOOL, NULL },
    { "maxLength", 15, GCP_OAPB_INT, NULL },
    { "minLength", 16, GCP_OAPB_INT, NULL },
    { "pattern", 17, GCP_OAPB_STR, NULL },
    { "maxItems", 18, GCP_OAPB_INT, NULL },
    { "minItems", 19, GCP_OAPB_INT, NULL },
    { "uniqueItems", 20, GCP_OAPB_BOOL, NULL },
    { "enum", 21, GCP_OAPB_ANYS, NULL },
    { "multipleOf", 22, GCP_OAPB_DOUBLE, NULL },
};

static const gcp_oapb_msg_t  gcp_oapb_query_param =
    GCP_OAPB_MSG_OF(gcp_oapb_query_param_f, 23);


static const gcp_oapb_field_t  gcp_oapb_body_param_f[] = {
    { "description", 1, GCP_OAPB_STR, NULL },
    { "name", 2, GCP_OAPB_STR, NULL },
    { "in", 3, GCP_OAPB_STR, NULL },
    { "required", 4, GCP_OAPB_BOOL, NULL },
    { "schema", 5, GCP_OAPB_MSG, &gcp_oapb_schema },
};

static const gcp_oapb_msg_t  gcp_oapb_body_param =
    GCP_OAPB_MSG_OF(gcp_oapb_body_param_f, 6);


static const gcp_oapb_field_t  gcp_oapb_response_f[] = {
    { "description", 1, GCP_OAPB_STR, NULL },
    { "schema", 2, GCP_OAPB_SCHEMAITEM, &gcp_oapb_schema },
};

static const gcp_oapb_msg_t  gcp_oapb_response =
    GCP_OAPB_MSG_OF(gcp_oapb_response_f, 5);


static const gcp_oapb_field_t  gcp_oapb_responses_f[] = {
    { NULL, 1, GCP_OAPB_NAMED, NULL },          /* ResponseValue */
};

static const gcp_oapb_msg_t  gcp_oapb_responses =
    GCP_OAPB_MSG_OF(gcp_oapb_responses_f, 2);


static const gcp_oapb_field_t  gcp_oapb_external_docs_f[] = {
    { "description", 1, GCP_OAPB_STR, NULL },
    { "url", 2, GCP_OAPB_STR, NULL },
};

static const gcp_oapb_msg_t  gcp_oapb_external_docs =
    GCP_OAPB_MSG_OF(gcp_oapb_external_docs_f, 3);


static const gcp_oapb_field_t  gcp_oapb_operation_f[] = {
    { "tags", 1, GCP_OAPB_STRS, NULL },
    { "summary", 2, GCP_OAPB_STR, NULL },
    { "description", 3, GCP_OAPB_STR, NULL },
    { "externalDocs", 4, GCP_OAPB_MSG, &gcp_oapb_external_docs },
    { "operationId", 5, GCP_OAPB_STR, NULL },
    { "produces", 6, GCP_OAPB_STRS, NULL },
    { "consumes", 7, GCP_OAPB_STRS, NULL },
    { "parameters", 8, GCP_OAPB_PARAMS, NULL },
    { "responses", 9, GCP_OAPB_MSG, &gcp_oapb_responses },
    { "schemes", 10, GCP_OAPB_STRS, NULL },
    { "deprecated", 11, GCP_OAPB_BOOL, NULL },
    { "security", 12, GCP_OAPB_SECREQS, NULL },
};

static const gcp_oapb_msg_t  gcp_oapb_operation =
    GCP_OAPB_MSG_OF(gcp_oapb_operation_f, 13);


static const gcp_oapb_field_t  gcp_oapb_path_item_f[] = {
    { "$ref", 1, GCP_OAPB_STR, NULL },
    { "get", 2, GCP_OAPB_MSG, &gcp_oapb_operation },
    { "put", 3, GCP_OAPB_MSG, &gcp_oapb_operation },
    { "post", 4, GCP_OAPB_MSG, &gcp_oapb_operation },
    { "delete", 5, GCP_OAPB_MSG, &gcp_oapb_operation },
    { "options", 6, GCP_OAPB_MSG, &gcp_oapb_operation },
    { "head", 7, GCP_OAPB_MSG, &gcp_oapb_operation },
    { "patch", 8, GCP_OAPB_MSG, &gcp_oapb_operation },
    { "parameters", 9, GCP_OAPB_PARAMS, NULL },
};

static const gcp_oapb_msg_t  gcp_oapb_path_item =
    GCP_OAPB_MSG_OF(gcp_oapb_path_item_f, 10);


static const gcp_oapb_field_t  gcp_oapb_paths_f[] = {
    { NULL, 2, GCP_OAPB_NAMED, &gcp_oapb_path_item },
};

static const gcp_oapb_msg_t  gcp_oapb_paths =
    GCP_OAPB_MSG_OF(gcp_oapb_paths_f, 1);


static const gcp_oapb_field_t  gcp_oapb_info_f[] = {
    { "title", 1, GCP_OAPB_STR, NULL },
    { "version", 2, GCP_OAPB_STR, NULL },
    { "description", 3, GCP_OAPB_STR, NULL },
    { "termsOfService", 4, GCP_OAPB_STR, NULL },
};

static const gcp_oapb_msg_t  gcp_oapb_info =
    GCP_OAPB_MSG_OF(gcp_oapb_info_f, 7);


/* ParameterDefinitions' values are Parameters (never references) */

static const gcp_oapb_field_t  gcp_oapb_param_defs_f[] = {
    { NULL, 1, GCP_OAPB_NAMED, NULL },          /* Parameter */
};

static const gcp_oapb_msg_t  gcp_oapb_param_defs =
    GCP_OAPB_MSG_OF(gcp_oapb_param_defs_f, 0);


static const gcp_oapb_field_t  gcp_oapb_sec_defs_f[] = {
    { NULL, 1, GCP_OAPB_NAMED, NULL },          /* SecurityDefinitionsItem */
};

static const gcp_oapb_msg_t  gcp_oapb_sec_defs =
    GCP_OAPB_MSG_OF(gcp_oapb_sec_defs_f, 0);


static const gcp_oapb_field_t  gcp_oapb_document_f[] = {
    { "swagger", 1, GCP_OAPB_STR, NULL },
    { "info", 2, GCP_OAPB_MSG, &gcp_oapb_info },
    { "host", 3, GCP_OAPB_STR, NULL },
    { "basePath", 4, GCP_OAPB_STR, NULL },
    { "schemes", 5, GCP_OAPB_STRS, NULL },
    { "consumes", 6, GCP_OAPB_STRS, NULL },
    { "produces", 7, GCP_OAPB_STRS, NULL },
    { "paths", 8, GCP_OAPB_MSG, &gcp_oapb_paths },
    { "definitions", 9, GCP_OAPB_MAP, &gcp_oapb_schema },
    { "parameters", 10, GCP_OAPB_MSG, &gcp_oapb_param_defs },
    { "security", 12, GCP_OAPB_SECREQS, NULL },
    { "securityDefinitions", 13, GCP_OAPB_MSG, &gcp_oapb_sec_defs },
    { "externalDocs", 15, GCP_OAPB_MSG, &gcp_oapb_external_docs },
};

static const gcp_oapb_msg_t  gcp_oapb_document =
    GCP_OAPB_MSG_OF(gcp_oapb_document_f, 16);


static const gcp_oapb_field_t  gcp_oapb_api_key_f[] = {
    { "type", 1, GCP_OAPB_STR, NULL },
    { "name", 2, GCP_OAPB_STR, NULL },
    { "in", 3, GCP_OAPB_STR, NULL },
    { "description", 4, GCP_OAPB_STR, NULL },
};

static const gcp_oapb_msg_t  gcp_oapb_api_key =
    GCP_OAPB_MSG_OF(gcp_oapb_api_key_f, 5);


static const gcp_oapb_field_t  gcp_oapb_basic_f[] = {
    { "type", 1, GCP_OAPB_STR, NULL },
    { "description", 2, GCP_OAPB_STR, NULL },
};

static const gcp_oapb_msg_t  gcp_oapb_basic =
    GCP_OAPB_MSG_OF(gcp_oapb_basic_f, 3);


/* Any{yaml = 2}: the value as YAML, as gnostic keeps unknown values. */

static void
gcp_oapb_any(gcp_buf_t *b, uint32_t num, const json_t *v)
{
    size_t     start, inner;
    gcp_str_t  y;

    y = gcp_yaml_dump(b->arena, v);
    if (y.data == NULL) {
        b->failed = 1;
        return;
    }

    start = gcp_protobuf_open(b, num);
    inner = gcp_protobuf_open(b, 2);
    gcp_buf_add(b, y.data, y.len);
    gcp_protobuf_close(b, inner);
    gcp_protobuf_close(b, start);
}


static void
gcp_oapb_string(gcp_buf_t *b, uint32_t num, const json_t *v)
{
    const char  *s = json_string_value(v);

    if (s && s[0]) {
        gcp_protobuf_put_bytes(b, num, s, json_string_length(v));
    }
}


static void
gcp_oapb_strings(gcp_buf_t *b, uint32_t num, const json_t *v)
{
    size_t   i;
    json_t  *e;

    if (json_is_string(v)) {
        gcp_protobuf_put_bytes(b, num, json_string_value(v),
                               json_string_length(v));
        return;
    }

    json_array_foreach(v, i, e) {
        if (json_is_string(e)) {
            gcp_protobuf_put_bytes(b, num, json_string_value(e),
                                   json_string_length(e));
        }
    }
}


/* A nested message field of m made of obj. */

static int
gcp_oapb_sub(gcp_buf_t *b, uint32_t num, const gcp_oapb_msg_t *m,
    const json_t *obj, int depth)
{
    int     rc;
    size_t  start;

    start = gcp_protobuf_open(b, num);
    rc = gcp_oapb_message(b, m, obj, depth + 1);
    gcp_protobuf_close(b, start);

    return rc;
}


/* ParametersItem / Parameter: a reference, a body or a non-body one. */

static int
gcp_oapb_parameter(gcp_buf_t *b, uint32_t num, const json_t *p, int depth)
{
    int          rc;
    size_t       start, inner;
    uint32_t     which;
    const char  *in;

    in = json_string_value(json_object_get(p, "in"));
    in = in ? in : "";

    start = gcp_protobuf_open(b, num);

    if (strcmp(in, "body") == 0) {
        rc = gcp_oapb_sub(b, 1, &gcp_oapb_body_param, p, depth);

    } else {
        which = strcmp(in, "header") == 0 ? 1
                : strcmp(in, "formData") == 0 ? 2
                : strcmp(in, "query") == 0 ? 3 : 4;

        inner = gcp_protobuf_open(b, 2);
        rc = gcp_oapb_sub(b, which, which == 1 || which == 4
                                    ? &gcp_oapb_path_param
                                    : &gcp_oapb_query_param, p, depth);
        gcp_protobuf_close(b, inner);
    }

    gcp_protobuf_close(b, start);

    return rc;
}


/* JsonReference{_ref = 1, description = 2} as field num. */

static void
gcp_oapb_reference(gcp_buf_t *b, uint32_t num, const json_t *obj)
{
    size_t  start;

    start = gcp_protobuf_open(b, num);
    gcp_oapb_string(b, 1, json_object_get(obj, "$ref"));
    gcp_oapb_string(b, 2, json_object_get(obj, "description"));
    gcp_protobuf_close(b, start);
}


static int
gcp_oapb_parameters(gcp_buf_t *b, uint32_t num, const json_t *v, int depth)
{
    size_t   i, start;
    json_t  *p;

    json_array_foreach(v, i, p) {
        if (!json_is_object(p)) {
            continue;
        }

        start = gcp_protobuf_open(b, num);

        if (json_object_get(p, "$ref")) {
            gcp_oapb_reference(b, 2, p);

        } else if (gcp_oapb_parameter(b, 1, p, depth) != GCP_OK) {
            return GCP_EINTERNAL;
        }

        gcp_protobuf_close(b, start);
    }

    return GCP_OK;
}


/* The value of a Named* pair, by what the map holds. */

static int
gcp_oapb_named_value(gcp_buf_t *b, const gcp_oapb_msg_t *parent,
    const gcp_oapb_msg_t *m, const json_t *v, int depth)
{
    size_t       start;
    const char  *type;

    if (m) {
        return gcp_oapb_sub(b, 2, m, v, depth);
    }

    if (parent == &gcp_oapb_responses) {
        start = gcp_protobuf_open(b, 2);

        if (json_object_get(v, "$ref")) {
            gcp_oapb_reference(b, 2, v);

        } else if (gcp_oapb_sub(b, 1, &gcp_oapb_response, v, depth)
                   != GCP_OK)
        {
            return GCP_EINTERNAL;
        }

        gcp_protobuf_close(b, start);
        return GCP_OK;
    }

    if (parent == &gcp_oapb_param_defs) {
        return gcp_oapb_parameter(b, 2, v, depth);
    }

    /* SecurityDefinitionsItem: basic or apiKey (no OAuth2 here) */

    type = json_string_value(json_object_get(v, "type"));

    start = gcp_protobuf_open(b, 2);

    if (type && strcmp(type, "basic") == 0) {
        gcp_oapb_sub(b, 1, &gcp_oapb_basic, v, depth);

    } else {
        gcp_oapb_sub(b, 2, &gcp_oapb_api_key, v, depth);
    }

    gcp_protobuf_close(b, start);

    return GCP_OK;
}


/*
 * Repeated Named* pairs at num for every key of obj, but the "x-" ones
 * when parent (NULL for a plain map) has vendor extensions; their values
 * are messages m, or what parent's map holds when m is NULL.
 */

static int
gcp_oapb_named(gcp_buf_t *b, uint32_t num, const gcp_oapb_msg_t *parent,
    const gcp_oapb_msg_t *m, const json_t *obj, int depth)
{
    size_t       start;
    json_t      *v;
    const char  *k;

    json_object_foreach((json_t *) obj, k, v) {
        if (parent && parent->vendor && strncmp(k, "x-", 2) == 0) {
            continue;
        }

        start = gcp_protobuf_open(b, num);
        gcp_protobuf_put_bytes(b, 1, k, strlen(k));

        if (gcp_oapb_named_value(b, parent, m, v, depth) != GCP_OK) {
            return GCP_EINTERNAL;
        }

        gcp_protobuf_close(b, start);
    }

    return GCP_OK;
}


/* repeated SecurityRequirement{1: NamedStringArray{name, StringArray}} */

static void
gcp_oapb_security(gcp_buf_t *b, uint32_t num, const json_t *v)
{
    size_t       i, req, pair, arr;
    json_t      *r, *scopes;
    const char  *k;

    json_array_foreach(v, i, r) {
        req = gcp_protobuf_open(b, num);

        json_object_foreach(r, k, scopes) {
            pair = gcp_protobuf_open(b, 1);
            gcp_protobuf_put_bytes(b, 1, k, strlen(k));
            arr = gcp_protobuf_open(b, 2);
            gcp_oapb_strings(b, 1, scopes);
            gcp_protobuf_close(b, arr);
            gcp_protobuf_close(b, pair);
        }

        gcp_protobuf_close(b, req);
    }
}


static int
gcp_oapb_field(gcp_buf_t *b, const gcp_oapb_msg_t *m,
    const gcp_oapb_field_t *f, const json_t *v, int depth)
{
    size_t   i, start;
    json_t  *e;

    switch (f->kind) {

    case GCP_OAPB_STR:
        gcp_oapb_string(b, f->num, v);
        break;

    case GCP_OAPB_BOOL:
        if (json_is_true(v)) {
            gcp_protobuf_put_varint(b, f->num, 1);
        }
        break;

    case GCP_OAPB_INT:
        if (json_is_integer(v) && json_integer_value(v) != 0) {
            gcp_protobuf_put_varint(b, f->num,
                                    (uint64_t) json_integer_value(v));
        }
        break;

    case GCP_OAPB_DOUBLE:
        if (json_is_number(v) && json_number_value(v) != 0) {
            gcp_protobuf_put_double(b, f->num, json_number_value(v));
        }
        break;

    case GCP_OAPB_STRS:
    case GCP_OAPB_TYPE:
        if (f->kind == GCP_OAPB_TYPE) {
            start = gcp_protobuf_open(b, f->num);
            gcp_oapb_strings(b, 1, v);
            gcp_protobuf_close(b, start);

        } else {
            gcp_oapb_strings(b, f->num, v);
        }
        break;

    case GCP_OAPB_ANY:
        gcp_oapb_any(b, f->num, v);
        break;

    case GCP_OAPB_ANYS:
        json_array_foreach(v, i, e) {
            gcp_oapb_any(b, f->num, e);
        }
        break;

    case GCP_OAPB_MSG:
        if (json_is_object(v)) {
            return gcp_oapb_sub(b, f->num, f->msg, v, depth);
        }
        break;

    case GCP_OAPB_MSGS:
        json_array_foreach(v, i, e) {
            if (gcp_oapb_sub(b, f->num, f->msg, e, depth) != GCP_OK) {
                return GCP_EINTERNAL;
            }
        }
        break;

    case GCP_OAPB_MAP:
        if (json_is_object(v)) {
            start = gcp_protobuf_open(b, f->num);

            if (gcp_oapb_named(b, 1, NULL, f->msg, v, depth) != GCP_OK)
            {
                return GCP_EINTERNAL;
            }

            gcp_protobuf_close(b, start);
        }
        break;

    case GCP_OAPB_NAMED:
        return gcp_oapb_named(b, f->num, m, f->msg, v, depth);

    case GCP_OAPB_ITEMS:
        start = gcp_protobuf_open(b, f->num);

        if (json_is_array(v)) {
            json_array_foreach(v, i, e) {
                if (gcp_oapb_sub(b, 1, f->msg, e, depth) != GCP_OK) {
                    return GCP_EINTERNAL;
                }
            }

        } else if (gcp_oapb_sub(b, 1, f->msg, v, depth) != GCP_OK) {
            return GCP_EINTERNAL;
        }

        gcp_protobuf_close(b, start);
        break;

    case GCP_OAPB_ADDPROPS:
        start = gcp_protobuf_open(b, f->num);

        if (json_is_boolean(v)) {
            gcp_protobuf_put_varint(b, 2, json_is_true(v));

        } else if (gcp_oapb_sub(b, 1, f->msg, v, depth) != GCP_OK) {
            return GCP_EINTERNAL;
        }

        gcp_protobuf_close(b, start);
        break;

    case GCP_OAPB_SCHEMAITEM:
        start = gcp_protobuf_open(b, f->num);

        if (gcp_oapb_sub(b, 1, f->msg, v, depth) != GCP_OK) {
            return GCP_EINTERNAL;
        }

        gcp_protobuf_close(b, start);
        break;

    case GCP_OAPB_PARAMS:
        return gcp_oapb_parameters(b, f->num, v, depth);

    case GCP_OAPB_SECREQS:
        gcp_oapb_security(b, f->num, v);
        break;

    default:
        break;
    }

    return GCP_OK;
}


static int
gcp_oapb_message(gcp_buf_t *b, const gcp_oapb_msg_t *m, const json_t *obj,
    int depth)
{
    size_t       i, start;
    json_t      *v;
    const char  *k;

    if (depth > GCP_PROTOBUF_MAX_DEPTH || !json_is_object(obj)) {
        return depth > GCP_PROTOBUF_MAX_DEPTH ? GCP_EINTERNAL : GCP_OK;
    }

    for (i = 0; i < m->n; i++) {
        v = m->fields[i].key ? json_object_get(obj, m->fields[i].key)
                             : (json_t *) obj;

        if (v && !json_is_null(v)
            && gcp_oapb_field(b, m, &m->fields[i], v, depth) != GCP_OK)
        {
            return GCP_EINTERNAL;
        }
    }

    if (m->vendor == 0) {
        return GCP_OK;
    }

    json_object_foreach((json_t *) obj, k, v) {
        if (strncmp(k, "x-", 2) != 0) {
            continue;
        }

        start = gcp_protobuf_open(b, m->vendor);
        gcp_protobuf_put_bytes(b, 1, k, strlen(k));
        gcp_oapb_any(b, 2, v);
        gcp_protobuf_close(b, start);
    }

    return GCP_OK;
}


int
gcp_openapi_v2_protobuf(gcp_buf_t *b, const json_t *doc)
{
    if (gcp_oapb_message(b, &gcp_oapb_document, doc, 0) != GCP_OK) {
        return GCP_EINTERNAL;
    }

    return gcp_buf_failed(b) ? GCP_ENOMEM : GCP_OK;
}
