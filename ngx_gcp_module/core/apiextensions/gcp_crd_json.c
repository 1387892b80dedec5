
/*
 * The fields of apiextensions.JSONSchemaProps in their Go order, with the
 * kind of zero value each has (gcp_crd_json.h).
 */

#include "gcp_crd_json.h"


typedef enum {
    GCP_CRD_F_STRING = 0,
    GCP_CRD_F_BOOL,
    GCP_CRD_F_POINTER,          /* also slices and maps: nil when null */
} gcp_crd_field_kind_t;


static const struct {
    const char            *key;
    const char            *go;
    gcp_crd_field_kind_t   kind;
} gcp_crd_fields[] = {
    { "id", "ID", GCP_CRD_F_STRING },
    { "$schema", "Schema", GCP_CRD_F_STRING },
    { "$ref", "Ref", GCP_CRD_F_POINTER },
    { "description", "Description", GCP_CRD_F_STRING },
    { "type", "Type", GCP_CRD_F_STRING },
    { "format", "Format", GCP_CRD_F_STRING },
    { "title", "Title", GCP_CRD_F_STRING },
    { "default", "Default", GCP_CRD_F_POINTER },
    { "maximum", "Maximum", GCP_CRD_F_POINTER },
    { "exclusiveMaximum", "ExclusiveMaximum", GCP_CRD_F_BOOL },
    { "minimum", "Minimum", GCP_CRD_F_POINTER },
    { "exclusiveMinimum", "ExclusiveMinimum", GCP_CRD_F_BOOL },
    { "maxLength", "MaxLength", GCP_CRD_F_POINTER },
    { "minLength", "MinLength", GCP_CRD_F_POINTER },
    { "pattern", "Pattern", GCP_CRD_F_STRING },
    { "maxItems", "MaxItems", GCP_CRD_F_POINTER },
    { "minItems", "MinItems", GCP_CRD_F_POINTER },
    { "uniqueItems", "UniqueItems", GCP_CRD_F_BOOL },
    { "multipleOf", "MultipleOf", GCP_CRD_F_POINTER },
    { "enum", "Enum", GCP_CRD_F_POINTER },
    { "maxProperties", "MaxProperties", GCP_CRD_F_POINTER },
    { "minProperties", "MinProperties", GCP_CRD_F_POINTER },
    { "required", "Required", GCP_CRD_F_POINTER },
    { "items", "Items", GCP_CRD_F_POINTER },
    { "allOf", "AllOf", GCP_CRD_F_POINTER },
    { "oneOf", "OneOf", GCP_CRD_F_POINTER },
    { "anyOf", "AnyOf", GCP_CRD_F_POINTER },
    { "not", "Not", GCP_CRD_F_POINTER },
    { "properties", "Properties", GCP_CRD_F_POINTER },
    { "additionalProperties", "AdditionalProperties", GCP_CRD_F_POINTER },
    { "patternProperties", "PatternProperties", GCP_CRD_F_POINTER },
    { "dependencies", "Dependencies", GCP_CRD_F_POINTER },
    { "additionalItems", "AdditionalItems", GCP_CRD_F_POINTER },
    { "definitions", "Definitions", GCP_CRD_F_POINTER },
    { "externalDocs", "ExternalDocs", GCP_CRD_F_POINTER },
    { "example", "Example", GCP_CRD_F_POINTER },
    { "nullable", "Nullable", GCP_CRD_F_BOOL },
    { "x-kubernetes-preserve-unknown-fields", "XPreserveUnknownFields",
      GCP_CRD_F_POINTER },
    { "x-kubernetes-embedded-resource", "XEmbeddedResource",
      GCP_CRD_F_BOOL },
    { "x-kubernetes-int-or-string", "XIntOrString", GCP_CRD_F_BOOL },
    { "x-kubernetes-list-map-keys", "XListMapKeys", GCP_CRD_F_POINTER },
    { "x-kubernetes-list-type", "XListType", GCP_CRD_F_POINTER },
    { "x-kubernetes-map-type", "XMapType", GCP_CRD_F_POINTER },
    { "x-kubernetes-validations", "XValidations", GCP_CRD_F_POINTER },
};


const char *
gcp_crd_js_go_name(const char *key, int *order)
{
    size_t  i;

    for (i = 0; i < gcp_nelems(gcp_crd_fields); i++) {
        if (strcmp(gcp_crd_fields[i].key, key) == 0) {
            *order = (int) i;
            return gcp_crd_fields[i].go;
        }
    }

    *order = -1;
    return NULL;
}


int
gcp_crd_js_zero(const char *key, const json_t *v)
{
    int  i;

    if (gcp_crd_js_go_name(key, &i) == NULL || v == NULL || json_is_null(v))
    {
        return 1;
    }

    switch (gcp_crd_fields[i].kind) {

    case GCP_CRD_F_STRING:
        return !json_is_string(v) || json_string_length(v) == 0;

    case GCP_CRD_F_BOOL:
        return !json_is_true(v);

    default:
        return 0;
    }
}
