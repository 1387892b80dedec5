
/*
 * What a CustomResourceDefinition serves (see gcp_crd_int.h): built once
 * per revision of the CRD, the schemas compiled, the printer columns,
 * selectable fields and scale paths parsed, and one resource descriptor
 * per served version, as apiextensions-apiserver's crdHandler builds its
 * crdInfo: names from status.acceptedNames, storage under
 * /registry/GROUP/PLURAL, every version stored in the storage version's
 * form.
 */

#include <stdlib.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include "gcp_cr.h"
#include "gcp_json.h"
#include "gcp_table.h"
#include "gcp_version.h"


static const char *
gcp_cr_str(const json_t *obj, const char *key)
{
    const char  *s;

    s = json_string_value(json_object_get(obj, key));

    return s ? s : "";
}


/* A NULL-terminated copy of an array of strings, in the arena. */

static const char * const *
gcp_cr_strings(gcp_arena_t *a, const json_t *arr)
{
    size_t        i, n;
    const char  **out;

    n = json_array_size(arr);

    out = gcp_calloc(a, (n + 1) * sizeof(char *));
    if (out == NULL) {
        return NULL;
    }

    for (i = 0; i < n; i++) {
        out[i] = json_string_value(json_array_get(arr, i))
                 ? gcp_strdup(a, json_string_value(json_array_get(arr, i)))
                 : "";
    }

    return out;
}


static void
gcp_cr_def_free(gcp_cr_def_t *def)
{
    size_t              i, j;
    gcp_cr_version_t   *v;

    for (i = 0; i < def->nversions; i++) {
        v = &def->versions[i];

        gcp_crd_schema_free(v->schema);

        for (j = 0; j < v->ncolumns; j++) {
            gcp_jsonpath_free(v->columns[j].path);
        }

        for (j = 0; j < v->nfields; j++) {
            gcp_jsonpath_free(v->field_paths[j]);
        }

        gcp_jsonpath_free(v->spec_replicas);
        gcp_jsonpath_free(v->status_replicas);
        gcp_jsonpath_free(v->label_selector);
    }

    gcp_arena_destroy(def->arena);
    free(def);
}


void
gcp_cr_def_ref(gcp_cr_def_t *def)
{
    def->refs++;
}


void
gcp_cr_def_unref(gcp_cr_def_t *def)
{
    if (def && --def->refs == 0) {
        gcp_cr_def_free(def);
    }
}


/* upstream's defaultDeprecationWarning() */

static const char *
gcp_cr_deprecation(gcp_cr_def_t *def, const json_t *spec, const char *name,
    const char *kind)
{
    size_t       i;
    json_t      *v;
    const char  *best, *n;

    best = NULL;

    json_array_foreach(json_object_get(spec, "versions"), i, v) {
        n = gcp_cr_str(v, "name");

        if (json_is_true(json_object_get(v, "served"))
            && !json_is_true(json_object_get(v, "deprecated"))
            && gcp_version_compare(name, n) < 0
            && (best == NULL || gcp_version_compare(n, best) > 0))
        {
            best = n;
        }
    }

    if (best == NULL) {
        return gcp_sprintf(def->arena, "%s/%s %s is deprecated", def->group,
                           name, kind);
    }

    return gcp_sprintf(def->arena, "%s/%s %s is deprecated; use %s/%s %s",
                       def->group, name, kind, def->group, best, kind);
}


static int
gcp_cr_scale_paths(gcp_cr_def_t *def, gcp_cr_version_t *v,
    const json_t *scale)
{
    const char  *err, *s;

    v->spec_replicas_path = gcp_strdup(def->arena,
                                       gcp_cr_str(scale, "specReplicasPath"));
    v->status_replicas_path = gcp_strdup(def->arena,
                                         gcp_cr_str(scale,
                                                    "statusReplicasPath"));

    v->spec_replicas = gcp_jsonpath_compile(v->spec_replicas_path, &err);
    v->status_replicas = gcp_jsonpath_compile(v->status_replicas_path, &err);

    s = gcp_cr_str(scale, "labelSelectorPath");

    if (s[0]) {
        v->label_selector_path = gcp_strdup(def->arena, s);
        v->label_selector = gcp_jsonpath_compile(s, &err);
    }

    return v->spec_replicas && v->status_replicas ? GCP_OK : GCP_EINVALID;
}


static int
gcp_cr_columns(gcp_cr_def_t *def, gcp_cr_version_t *v, const json_t *cols)
{
    size_t       i, n;
    json_t      *c;
    const char  *err, *path;

    n = json_array_size(cols);

    if (n == 0) {
        /* upstream's default: the age */

        v->columns = gcp_calloc(def->arena, sizeof(gcp_cr_column_t));
        if (v->columns == NULL) {
            return GCP_ENOMEM;
        }

        v->columns[0].path = gcp_jsonpath_compile(".metadata."
                                                  "creationTimestamp", &err);
        v->columns[0].type = "date";
        v->ncolumns = 1;

        return v->columns[0].path ? GCP_OK : GCP_ENOMEM;
    }

    v->columns = gcp_calloc(def->arena, n * sizeof(gcp_cr_column_t));
    if (v->columns == NULL) {
        return GCP_ENOMEM;
    }

    json_array_foreach(cols, i, c) {
        path = gcp_cr_str(c, "jsonPath");

        /* a path kubectl's JSONPath cannot take shows nothing */

        v->columns[i].path = gcp_jsonpath_compile(path, &err);
        v->columns[i].type = gcp_strdup(def->arena, gcp_cr_str(c, "type"));
    }

    v->ncolumns = n;

    return GCP_OK;
}


static int
gcp_cr_fields(gcp_cr_def_t *def, gcp_cr_version_t *v, const json_t *fields)
{
    size_t       i, n;
    json_t      *f;
    const char  *err, *path;

    n = json_array_size(fields);

    v->field_labels = gcp_calloc(def->arena, (n + 3) * sizeof(char *));
    v->field_paths = gcp_calloc(def->arena, (n + 1) * sizeof(void *));

    if (v->field_labels == NULL || v->field_paths == NULL) {
        return GCP_ENOMEM;
    }

    v->field_labels[0] = "metadata.name";
    v->field_labels[1] = "metadata.namespace";

    json_array_foreach(fields, i, f) {
        path = gcp_cr_str(f, "jsonPath");

        /* the label is the path without its leading dot */

        v->field_labels[i + 2] = gcp_strdup(def->arena,
                                            path[0] == '.' ? path + 1 : path);
        v->field_paths[i] = gcp_jsonpath_compile(path, &err);
    }

    v->nfields = n;

    return GCP_OK;
}


static int
gcp_cr_version_init(gcp_cr_def_t *def, gcp_cr_version_t *v,
    const json_t *ver, const json_t *spec, const char *kind,
    const gcp_schema_set_t *set)
{
    char          err[256];
    json_t       *sub, *schema;
    const char   *w;

    v->name = gcp_strdup(def->arena, gcp_cr_str(ver, "name"));
    v->served = json_is_true(json_object_get(ver, "served"));
    v->storage = json_is_true(json_object_get(ver, "storage"));

    if (v->name == NULL) {
        return GCP_ENOMEM;
    }

    schema = json_object_get(json_object_get(ver, "schema"),
                             "openAPIV3Schema");

    if (json_is_object(schema)) {
        v->schema_json = schema;
        v->schema = gcp_crd_schema_compile(schema, set, err, sizeof(err));

        if (v->schema == NULL) {
            v->served = 0;
        }
    }

    if (json_is_true(json_object_get(ver, "deprecated"))) {
        w = json_string_value(json_object_get(ver, "deprecationWarning"));
        v->warning = w ? gcp_strdup(def->arena, w)
                       : gcp_cr_deprecation(def, spec, v->name, kind);
    }

    sub = json_object_get(ver, "subresources");
    v->status = json_is_object(json_object_get(sub, "status"));

    if (json_is_object(json_object_get(sub, "scale"))) {
        v->scale = 1;

        if (gcp_cr_scale_paths(def, v, json_object_get(sub, "scale"))
            != GCP_OK)
        {
            v->scale = 0;
        }
    }

    if (gcp_cr_columns(def, v, json_object_get(ver,
                                               "additionalPrinterColumns"))
        != GCP_OK
        || gcp_cr_fields(def, v, json_object_get(ver, "selectableFields"))
           != GCP_OK)
    {
        return GCP_ENOMEM;
    }

    return GCP_OK;
}


gcp_cr_def_t *
gcp_cr_def_create(const json_t *crd, int64_t rev, const gcp_schema_set_t *set)
{
    size_t          i, n;
    json_t         *spec, *ver, *names;
    const char     *kind;
    gcp_cr_def_t   *def;

    def = calloc(1, sizeof(gcp_cr_def_t));
    if (def == NULL) {
        return NULL;
    }

    def->refs = 1;
    def->revision = rev;
    def->arena = gcp_arena_create(0);

    if (def->arena == NULL) {
        free(def);
        return NULL;
    }

    def->crd = gcp_json_arena(def->arena, json_deep_copy(crd));
    if (def->crd == NULL
        || gcp_cr_conversion_parse(def->arena, def->crd, &def->conversion)
           != GCP_OK)
    {
        gcp_cr_def_free(def);
        return NULL;
    }

    spec = json_object_get(def->crd, "spec");
    names = json_object_get(json_object_get(def->crd, "status"),
                            "acceptedNames");
    kind = gcp_cr_str(names, "kind");

    def->name = gcp_cr_str(json_object_get(def->crd, "metadata"), "name");
    def->group = gcp_cr_str(spec, "group");
    def->plural = gcp_cr_str(json_object_get(spec, "names"), "plural");
    def->namespaced = strcmp(gcp_cr_str(spec, "scope"), "Namespaced") == 0;
    def->established = gcp_crd_condition_true(def->crd, "Established");
    def->terminating = gcp_crd_condition_true(def->crd, "Terminating");
    def->preserve_unknown = json_is_true(json_object_get(spec,
                                                 "preserveUnknownFields"));

    n = json_array_size(json_object_get(spec, "versions"));

    def->versions = gcp_calloc(def->arena,
                               (n + 1) * sizeof(gcp_cr_version_t));
    if (def->versions == NULL) {
        gcp_cr_def_free(def);
        return NULL;
    }

    def->nversions = n;

    json_array_foreach(json_object_get(spec, "versions"), i, ver) {
        if (gcp_cr_version_init(def, &def->versions[i], ver, spec, kind, set)
            != GCP_OK)
        {
            gcp_cr_def_free(def);
            return NULL;
        }

        if (def->versions[i].storage) {
            def->storage = &def->versions[i];
        }
    }

    return def;
}


/* descriptors */


static void
gcp_cr_res_release(gcp_resource_owner_t *owner)
{
    gcp_cr_res_t  *cr = (gcp_cr_res_t *) owner;

    gcp_cr_def_unref(cr->def);
    free(cr);
}


static gcp_column_t *
gcp_cr_res_columns(gcp_cr_def_t *def, const gcp_cr_version_t *v,
    const json_t *ver, size_t *n)
{
    size_t         i, ncols;
    json_t        *c;
    gcp_column_t  *cols;
    const char    *desc;

    ncols = json_array_size(json_object_get(ver, "additionalPrinterColumns"));

    cols = gcp_calloc(def->arena, (ncols + 2) * sizeof(gcp_column_t));
    if (cols == NULL) {
        return NULL;
    }

    cols[0] = (gcp_column_t) GCP_COLUMN_NAME;

    if (ncols == 0) {
        cols[1] = (gcp_column_t) { "Age", "date", "", GCP_DESC_CREATED, 0 };
        *n = 2;
        return cols;
    }

    json_array_foreach(json_object_get(ver, "additionalPrinterColumns"), i, c)
    {
        desc = gcp_cr_str(c, "description");

        cols[i + 1].name = gcp_strdup(def->arena, gcp_cr_str(c, "name"));
        cols[i + 1].type = gcp_strdup(def->arena, gcp_cr_str(c, "type"));
        cols[i + 1].format = gcp_strdup(def->arena, gcp_cr_str(c, "format"));
        cols[i + 1].description = desc[0]
            ? gcp_strdup(def->arena, desc)
            : gcp_sprintf(def->arena, "Custom resource definition column "
                          "(in JSONPath format): %s",
                          gcp_cr_str(c, "jsonPath"));
        cols[i + 1].priority = (int) json_integer_value(json_object_get(c,
                                                             "priority"));
    }

    (void) v;
    *n = ncols + 1;

    return cols;
}


/* The OpenAPI definition name of a kind: "com.example.v1.Widget". */

static const char *
gcp_cr_def_name(gcp_arena_t *a, const char *group, const char *version,
    const char *kind)
{
    size_t       n;
    gcp_buf_t    b;
    const char  *end, *dot;

    gcp_buf_init(&b, a);

    end = group + strlen(group);

    while (end > group) {
        for (dot = end; dot > group && dot[-1] != '.'; dot--) {
            /* back to the label's start */
        }

        n = (size_t) (end - dot);
        gcp_buf_add(&b, dot, n);
        gcp_buf_addc(&b, '.');

        end = dot > group ? dot - 1 : group;
    }

    gcp_buf_printf(&b, "%s.%s", version, kind);

    return gcp_buf_cstr(&b);
}


#define GCP_CR_DESC_AV                                                        \
    "APIVersion defines the versioned schema of this representation of an "  \
    "object. Servers should convert recognized schemas to the latest "       \
    "internal value, and may reject unrecognized values. More info: "        \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"      \
    "api-conventions.md#resources"

#define GCP_CR_DESC_KIND                                                      \
    "Kind is a string value representing the REST resource this object "     \
    "represents. Servers may infer this from the endpoint the client "       \
    "submits requests to. Cannot be updated. In CamelCase. More info: "      \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"      \
    "api-conventions.md#types-kinds"


/*
 * The OpenAPI definitions of a custom resource and its list, as
 * apiextensions-apiserver publishes them: the schema with apiVersion, kind
 * and metadata added.  Returns GCP_OK or GCP_ENOMEM; the set holds them.
 */

int
gcp_cr_res_schemas(gcp_cr_res_t *cr, gcp_schema_set_t *set)
{
    int              rc;
    json_t          *obj, *list, *props, *gvk, *sel;
    size_t           i;
    gcp_resource_t  *r = &cr->res;

    obj = cr->version->schema_json ? json_deep_copy(cr->version->schema_json)
                                   : json_pack("{s:s}", "type", "object");
    if (obj == NULL) {
        return GCP_ENOMEM;
    }

    props = gcp_json_object_child(obj, "properties");
    gvk = json_pack("[{s:s, s:s, s:s}]", "group", r->group, "kind", r->kind,
                    "version", r->version);
    sel = json_array();

    for (i = 0; i < cr->version->nfields && sel; i++) {
        json_array_append_new(sel, json_pack("{s:s}", "fieldPath",
                                     cr->version->field_labels[i + 2]));
    }

    if (props == NULL || gvk == NULL || sel == NULL) {
        json_decref(obj);
        json_decref(gvk);
        json_decref(sel);
        return GCP_ENOMEM;
    }

    json_object_set_new(props, "apiVersion",
                        json_pack("{s:s, s:s}", "description", GCP_CR_DESC_AV,
                                  "type", "string"));
    json_object_set_new(props, "kind",
                        json_pack("{s:s, s:s}", "description",
                                  GCP_CR_DESC_KIND, "type", "string"));
    json_object_set_new(props, "metadata",
                        json_pack("{s:s, s:[{s:s}]}", "description",
                                  "Standard object's metadata. More info: "
                                  "https://git.k8s.io/community/"
                                  "contributors/devel/sig-architecture/"
                                  "api-conventions.md#metadata", "allOf",
                                  "$ref", "#/components/schemas/io.k8s."
                                  "apimachinery.pkg.apis.meta.v1."
                                  "ObjectMeta"));
    (void) gcp_json_sort_keys(props, 0);

    json_object_set_new(obj, "x-kubernetes-group-version-kind", gvk);
    json_object_set_new(obj, "x-kubernetes-selectable-fields", sel);

    list = json_pack("{s:s, s:s, s:[s], s:{s:{s:s, s:s}, s:{s:s, s:s, "
                     "s:{s:s}}, s:{s:s, s:s}, s:{s:s, s:[{s:s}]}}, "
                     "s:[{s:s, s:s, s:s}]}",
                     "description", gcp_sprintf(cr->def->arena,
                                                "%s is a list of %s",
                                                r->list_kind, r->kind),
                     "type", "object",
                     "required", "items",
                     "properties",
                     "apiVersion", "description", GCP_CR_DESC_AV,
                     "type", "string",
                     "items", "description",
                     gcp_sprintf(cr->def->arena, "List of %s. More info: "
                                 "https://git.k8s.io/community/contributors/"
                                 "devel/sig-architecture/"
                                 "api-conventions.md", r->name),
                     "type", "array",
                     "items", "$ref",
                     gcp_sprintf(cr->def->arena, "#/components/schemas/%s",
                                 r->schema),
                     "kind", "description", GCP_CR_DESC_KIND,
                     "type", "string",
                     "metadata", "description", "Standard list metadata. "
                     "More info: https://git.k8s.io/community/contributors/"
                     "devel/sig-architecture/api-conventions.md#types-kinds",
                     "allOf", "$ref", "#/components/schemas/io.k8s."
                     "apimachinery.pkg.apis.meta.v1.ListMeta",
                     "x-kubernetes-group-version-kind",
                     "group", r->group, "kind", r->list_kind,
                     "version", r->version);

    if (list == NULL) {
        json_decref(obj);
        return GCP_ENOMEM;
    }

    rc = gcp_schema_set_put(set, r->schema, obj);

    if (rc == GCP_OK) {
        rc = gcp_schema_set_put(set, r->list_schema, list);
    }

    json_decref(obj);
    json_decref(list);

    return rc;
}


/* discovery's storageVersionHash: group/storage version/kind */

static const char *
gcp_cr_res_hash(gcp_cr_def_t *def, const char *kind)
{
    char           gvk[512], *out;
    unsigned char  md[SHA256_DIGEST_LENGTH];

    if (def->storage == NULL) {
        return NULL;
    }

    snprintf(gvk, sizeof(gvk), "%s/%s/%s", def->group, def->storage->name,
             kind);
    SHA256((unsigned char *) gvk, strlen(gvk), md);

    out = gcp_alloc(def->arena, 16);
    if (out) {
        EVP_EncodeBlock((unsigned char *) out, md, 8);
    }

    return out;
}


gcp_cr_res_t *
gcp_cr_res_create(gcp_cr_def_t *def, gcp_cr_version_t *v)
{
    size_t          i, n;
    json_t         *names, *ver;
    gcp_cr_res_t   *cr;
    gcp_resource_t *r;

    cr = calloc(1, sizeof(gcp_cr_res_t));
    if (cr == NULL) {
        return NULL;
    }

    names = json_object_get(json_object_get(def->crd, "status"),
                            "acceptedNames");
    ver = NULL;
    n = 0;

    for (i = 0; i < def->nversions; i++) {
        if (&def->versions[i] == v) {
            ver = json_array_get(json_object_get(json_object_get(def->crd,
                                                                 "spec"),
                                                 "versions"), i);
        }
    }

    cr->owner.release = gcp_cr_res_release;
    cr->def = def;
    cr->version = v;

    r = &cr->res;
    r->group = def->group;
    r->version = v->name;
    r->name = def->plural;
    r->singular = gcp_strdup(def->arena, gcp_cr_str(names, "singular"));
    r->kind = gcp_strdup(def->arena, gcp_cr_str(names, "kind"));
    r->list_kind = gcp_strdup(def->arena, gcp_cr_str(names, "listKind"));
    r->short_names = gcp_cr_strings(def->arena, json_object_get(names,
                                                        "shortNames"));
    r->categories = gcp_cr_strings(def->arena, json_object_get(names,
                                                       "categories"));
    r->namespaced = def->namespaced;
    r->unstructured = 1;
    r->verbs = GCP_VERBS_CRUD;
    r->storage = gcp_sprintf(def->arena, "%s/%s", def->group, def->plural);
    r->storage_version_hash = gcp_cr_res_hash(def, r->kind);
    r->schema = gcp_cr_def_name(def->arena, def->group, v->name, r->kind);
    r->list_schema = gcp_cr_def_name(def->arena, def->group, v->name,
                                     r->list_kind);
    r->columns = gcp_cr_res_columns(def, v, ver, &n);
    r->ncolumns = n;
    r->field_labels = v->field_labels;
    r->strategy = &gcp_cr_strategy;
    r->warning = v->warning;
    r->owner = &cr->owner;

    n = 0;

    if (v->status) {
        cr->subresources[n++] = (gcp_subresource_t) {
            "status", GCP_SUB_STATUS,
            GCP_VERB_GET | GCP_VERB_PATCH | GCP_VERB_UPDATE, NULL, NULL, NULL
        };
    }

    if (v->scale) {
        cr->subresources[n++] = (gcp_subresource_t) {
            "scale", GCP_SUB_OTHER,
            GCP_VERB_GET | GCP_VERB_PATCH | GCP_VERB_UPDATE,
            "autoscaling", "v1", "Scale"
        };
    }

    r->subresources = cr->subresources;
    r->nsubresources = n;

    if (r->singular == NULL || r->kind == NULL || r->list_kind == NULL
        || r->short_names == NULL || r->categories == NULL
        || r->storage == NULL || r->columns == NULL || r->schema == NULL
        || r->list_schema == NULL)
    {
        free(cr);
        return NULL;
    }

    gcp_cr_def_ref(def);

    return cr;
}
