
/*
 * Compiling a schema (JSONSchemaProps as JSON) into the immutable nodes
 * the validator, pruner and defaulter walk (gcp_crd_int.h): keywords
 * decoded once as Go decodes them (a JSON null is an absent field, an
 * integral number of a count is an int64), patterns compiled, formats
 * resolved (unsupported ones dropped as kube-apiserver strips them), enum
 * messages prepared, properties indexed.
 */

#include <stdio.h>

#include "gcp_crd_int.h"
#include "gcp_json.h"


/* deeper schemas are refused (upstream has no limit; none is this deep) */
#define GCP_CRD_MAX_DEPTH  1000


typedef struct {
    gcp_arena_t      *arena;
    gcp_crd_regex_t  *hostname_re;
    int               depth;
    const char       *err;
} gcp_crd_cctx_t;


static gcp_crd_node_t *gcp_crd_compile(gcp_crd_cctx_t *c,
    const json_t *schema);


static uint32_t
gcp_crd_hash(const char *s, size_t len)
{
    size_t    i;
    uint32_t  h = 2166136261u;

    for (i = 0; i < len; i++) {
        h = (h ^ (unsigned char) s[i]) * 16777619u;
    }

    return h;
}


gcp_crd_node_t *
gcp_crd_prop(const gcp_crd_node_t *s, const char *name, size_t len)
{
    size_t           i;
    uint32_t         slot, k;
    gcp_crd_prop_t  *p;

    if (s == NULL) {
        return NULL;
    }

    if (s->index == NULL) {
        for (i = 0; i < s->nprops; i++) {
            p = &s->props[i];

            if (p->len == len && memcmp(p->name, name, len) == 0) {
                return p->node;
            }
        }

        return NULL;
    }

    for (slot = gcp_crd_hash(name, len) & s->mask; ;
         slot = (slot + 1) & s->mask)
    {
        k = s->index[slot];
        if (k == 0) {
            return NULL;
        }

        p = &s->props[k - 1];

        if (p->len == len && memcmp(p->name, name, len) == 0) {
            return p->node;
        }
    }
}


static int
gcp_crd_index(gcp_crd_cctx_t *c, gcp_crd_node_t *n)
{
    size_t    i, size;
    uint32_t  slot;

    if (n->nprops <= 8) {
        return 0;
    }

    for (size = 16; size < n->nprops * 2; size *= 2) { /* void */ }

    n->index = gcp_calloc(c->arena, size * sizeof(uint32_t));
    if (n->index == NULL) {
        return -1;
    }

    n->mask = (uint32_t) size - 1;

    for (i = 0; i < n->nprops; i++) {
        slot = gcp_crd_hash(n->props[i].name, n->props[i].len) & n->mask;

        while (n->index[slot]) {
            slot = (slot + 1) & n->mask;
        }

        n->index[slot] = (uint32_t) i + 1;
    }

    return 0;
}


/* a Go *int64 field: integral numbers only */
static int64_t
gcp_crd_count(const json_t *s, const char *key)
{
    json_t  *v = json_object_get(s, key);

    if (json_is_integer(v)) {
        return json_integer_value(v) < 0 ? -1 : json_integer_value(v);
    }

    if (json_is_real(v) && json_real_value(v) >= 0
        && json_real_value(v) < 9.2e18
        && json_real_value(v) == (double) (int64_t) json_real_value(v))
    {
        return (int64_t) json_real_value(v);
    }

    return -1;
}


static int
gcp_crd_number(const json_t *s, const char *key, double *out)
{
    json_t  *v = json_object_get(s, key);

    if (json_is_number(v)) {
        *out = json_number_value(v);
        return 1;
    }

    return 0;
}


/* a non-empty string field, copied into the arena */
static const char *
gcp_crd_str(gcp_crd_cctx_t *c, const json_t *s, const char *key)
{
    json_t  *v = json_object_get(s, key);

    if (!json_is_string(v) || json_string_length(v) == 0) {
        return NULL;
    }

    return gcp_strndup(c->arena, json_string_value(v), json_string_length(v));
}


static gcp_crd_type_t
gcp_crd_type(const char *t)
{
    static const struct {
        const char      *name;
        gcp_crd_type_t   type;
    } types[] = {
        { "object", GCP_CRD_T_OBJECT }, { "array", GCP_CRD_T_ARRAY },
        { "string", GCP_CRD_T_STRING }, { "integer", GCP_CRD_T_INTEGER },
        { "number", GCP_CRD_T_NUMBER }, { "boolean", GCP_CRD_T_BOOLEAN },
    };

    size_t  i;

    if (t == NULL) {
        return GCP_CRD_T_NONE;
    }

    for (i = 0; i < gcp_nelems(types); i++) {
        if (strcmp(types[i].name, t) == 0) {
            return types[i].type;
        }
    }

    return GCP_CRD_T_OTHER;
}


/* strings of a JSON array of strings (others skipped) */
static const char **
gcp_crd_strings(gcp_crd_cctx_t *c, const json_t *arr, size_t *n)
{
    size_t        i, k;
    json_t       *v;
    const char  **out;

    *n = 0;

    if (!json_is_array(arr) || json_array_size(arr) == 0) {
        return NULL;
    }

    out = gcp_alloc(c->arena, json_array_size(arr) * sizeof(char *));
    if (out == NULL) {
        return NULL;
    }

    k = 0;

    json_array_foreach((json_t *) arr, i, v) {
        if (json_is_string(v)) {
            out[k] = gcp_strndup(c->arena, json_string_value(v),
                                 json_string_length(v));
            if (out[k++] == NULL) {
                return NULL;
            }
        }
    }

    *n = k;
    return out;
}


/* "supported values: ..." of field.NotSupported, and %v of the values */
static int
gcp_crd_enum_texts(gcp_crd_cctx_t *c, gcp_crd_node_t *n)
{
    size_t      i;
    json_t     *e;
    gcp_buf_t   b, one, list;

    gcp_buf_init(&b, c->arena);
    gcp_buf_init(&list, c->arena);

    gcp_buf_addstr(&b, "supported values: ");
    gcp_buf_addc(&list, '[');

    json_array_foreach(n->enumv, i, e) {
        if (i) {
            gcp_buf_addstr(&b, ", ");
            gcp_buf_addc(&list, ' ');
        }

        gcp_buf_init(&one, c->arena);

        if (json_is_string(e)) {
            gcp_buf_add(&one, json_string_value(e), json_string_length(e));

        } else {
            gcp_crd_marshal(&one, e);
        }

        gcp_buf_addstr(&b, gcp_go_quote(c->arena, one.data ? one.data : "",
                                        one.len));
        gcp_crd_go_value(&list, e);
    }

    gcp_buf_addc(&list, ']');

    if (gcp_buf_failed(&b) || gcp_buf_failed(&list)) {
        return -1;
    }

    n->enum_detail = gcp_buf_dup(&b).data;
    n->enum_list = gcp_buf_dup(&list).data;

    return n->enum_detail && n->enum_list ? 0 : -1;
}


static int
gcp_crd_compile_list(gcp_crd_cctx_t *c, const json_t *arr,
    gcp_crd_node_t ***out, size_t *n)
{
    size_t   i;
    json_t  *v;

    *n = 0;

    if (!json_is_array(arr) || json_array_size(arr) == 0) {
        return 0;
    }

    *out = gcp_alloc(c->arena, json_array_size(arr) * sizeof(void *));
    if (*out == NULL) {
        return -1;
    }

    json_array_foreach((json_t *) arr, i, v) {
        (*out)[i] = gcp_crd_compile(c, v);
        if ((*out)[i] == NULL) {
            return -1;
        }
    }

    *n = json_array_size(arr);
    return 0;
}


static int
gcp_crd_compile_props(gcp_crd_cctx_t *c, gcp_crd_node_t *n,
    const json_t *props)
{
    size_t       i;
    void        *it;
    const char  *k;

    if (!json_is_object(props) || json_object_size(props) == 0) {
        return 0;
    }

    n->props = gcp_alloc(c->arena,
                         json_object_size(props) * sizeof(gcp_crd_prop_t));
    if (n->props == NULL) {
        return -1;
    }

    i = 0;

    for (it = json_object_iter((json_t *) props); it;
         it = json_object_iter_next((json_t *) props, it))
    {
        k = json_object_iter_key(it);

        n->props[i].name = gcp_strdup(c->arena, k);
        n->props[i].len = strlen(k);
        n->props[i].node = gcp_crd_compile(c, json_object_iter_value(it));

        if (n->props[i].name == NULL || n->props[i].node == NULL) {
            return -1;
        }

        i++;
    }

    n->nprops = i;

    return gcp_crd_index(c, n);
}


static void
gcp_crd_subtree(gcp_crd_node_t *n, const gcp_crd_node_t *sub)
{
    if (sub == NULL) {
        return;
    }

    n->subtree_meta |= sub->subtree_meta;
    n->subtree_lists |= sub->subtree_lists;
    n->subtree_defaults |= sub->subtree_defaults;
}


static gcp_crd_node_t *
gcp_crd_compile(gcp_crd_cctx_t *c, const json_t *schema)
{
    size_t           i;
    json_t          *v;
    const char      *s;
    gcp_crd_node_t  *n;

    if (++c->depth > GCP_CRD_MAX_DEPTH) {
        c->err = "the schema nests more than 1000 levels";
        return NULL;
    }

    n = gcp_calloc(c->arena, sizeof(gcp_crd_node_t));
    if (n == NULL) {
        goto nomem;
    }

    n->max_len = n->min_len = n->max_items = n->min_items = -1;
    n->max_props = n->min_props = -1;

    if (!json_is_object(schema)) {
        c->depth--;
        return n;
    }

    n->type = gcp_crd_str(c, schema, "type");
    n->tkind = gcp_crd_type(n->type);

    s = gcp_crd_str(c, schema, "format");

    if (s) {
        n->fmt = gcp_crd_format_lookup(s, strlen(s));

        if (n->fmt != GCP_CRD_FMT_NONE) {
            n->format = s;
        }

        if (n->fmt == GCP_CRD_FMT_HOSTNAME) {
            if (c->hostname_re == NULL) {
                c->hostname_re = gcp_crd_format_hostname_re(c->arena);
                if (c->hostname_re == NULL) {
                    goto nomem;
                }
            }

            n->fmt_re = c->hostname_re;
        }
    }

    v = json_object_get(schema, "default");

    if (v && !json_is_null(v)) {
        n->dflt = gcp_json_arena(c->arena, json_deep_copy(v));
        if (n->dflt == NULL) {
            goto nomem;
        }

        n->subtree_defaults = 1;
    }

    n->nullable = json_is_true(json_object_get(schema, "nullable"));
    n->preserve = json_is_true(json_object_get(schema,
                                   "x-kubernetes-preserve-unknown-fields"));
    n->embedded = json_is_true(json_object_get(schema,
                                   "x-kubernetes-embedded-resource"));
    n->int_or_string = json_is_true(json_object_get(schema,
                                        "x-kubernetes-int-or-string"));

    n->has_max = gcp_crd_number(schema, "maximum", &n->max);
    n->excl_max = json_is_true(json_object_get(schema, "exclusiveMaximum"));
    n->has_min = gcp_crd_number(schema, "minimum", &n->min);
    n->excl_min = json_is_true(json_object_get(schema, "exclusiveMinimum"));
    n->has_multiple = gcp_crd_number(schema, "multipleOf", &n->multiple);
    n->unique = json_is_true(json_object_get(schema, "uniqueItems"));

    n->max_len = gcp_crd_count(schema, "maxLength");
    n->min_len = gcp_crd_count(schema, "minLength");
    n->max_items = gcp_crd_count(schema, "maxItems");
    n->min_items = gcp_crd_count(schema, "minItems");
    n->max_props = gcp_crd_count(schema, "maxProperties");
    n->min_props = gcp_crd_count(schema, "minProperties");

    v = json_object_get(schema, "pattern");

    if (json_is_string(v) && json_string_length(v)) {
        n->pattern = gcp_crd_regex_compile(c->arena, json_string_value(v),
                                           json_string_length(v), &c->err);
        if (n->pattern == NULL) {
            return NULL;
        }
    }

    v = json_object_get(schema, "enum");

    if (json_is_array(v) && json_array_size(v)) {
        n->enumv = gcp_json_arena(c->arena, json_deep_copy(v));

        if (n->enumv == NULL || gcp_crd_enum_texts(c, n) != 0) {
            goto nomem;
        }
    }

    n->required = gcp_crd_strings(c, json_object_get(schema, "required"),
                                  &n->nrequired);

    s = gcp_crd_str(c, schema, "x-kubernetes-list-type");

    if (s) {
        n->list_type = strcmp(s, "atomic") == 0 ? GCP_CRD_LIST_ATOMIC
                       : strcmp(s, "set") == 0 ? GCP_CRD_LIST_SET
                       : strcmp(s, "map") == 0 ? GCP_CRD_LIST_MAP
                       : GCP_CRD_LIST_NONE;
    }

    n->map_keys = gcp_crd_strings(c,
                      json_object_get(schema, "x-kubernetes-list-map-keys"),
                      &n->nmap_keys);

    if (gcp_crd_compile_props(c, n, json_object_get(schema, "properties"))
        != 0)
    {
        goto fail;
    }

    v = json_object_get(schema, "additionalProperties");

    if (json_is_boolean(v)) {
        n->ap_present = 1;
        n->ap_allows = json_is_true(v);

    } else if (json_is_object(v)) {
        n->ap_present = 1;
        n->ap_allows = 1;
        n->ap = gcp_crd_compile(c, v);
        if (n->ap == NULL) {
            goto fail;
        }
    }

    v = json_object_get(schema, "items");

    if (json_is_object(v)) {
        n->items = gcp_crd_compile(c, v);
        if (n->items == NULL) {
            goto fail;
        }
    }

    if (gcp_crd_compile_list(c, json_object_get(schema, "allOf"),
                             &n->all_of, &n->nall_of) != 0
        || gcp_crd_compile_list(c, json_object_get(schema, "anyOf"),
                                &n->any_of, &n->nany_of) != 0
        || gcp_crd_compile_list(c, json_object_get(schema, "oneOf"),
                                &n->one_of, &n->none_of) != 0)
    {
        goto fail;
    }

    v = json_object_get(schema, "not");

    if (json_is_object(v)) {
        n->not = gcp_crd_compile(c, v);
        if (n->not == NULL) {
            goto fail;
        }
    }

    /* what the structural walks will find below */

    n->subtree_meta = n->embedded;
    n->subtree_lists = n->list_type == GCP_CRD_LIST_SET
                       || n->list_type == GCP_CRD_LIST_MAP;
    n->subtree_defaults |= !n->nullable;

    for (i = 0; i < n->nprops; i++) {
        gcp_crd_subtree(n, n->props[i].node);
    }

    gcp_crd_subtree(n, n->ap);
    gcp_crd_subtree(n, n->items);

    c->depth--;
    return n;

nomem:

    c->err = "out of memory";

fail:

    if (c->err == NULL) {
        c->err = "out of memory";
    }

    return NULL;
}


gcp_crd_node_t *
gcp_crd_compile_node(gcp_arena_t *a, const json_t *schema, const char **err)
{
    gcp_crd_node_t  *n;
    gcp_crd_cctx_t   c;

    memset(&c, 0, sizeof(c));
    c.arena = a;

    n = gcp_crd_compile(&c, schema);

    *err = c.err;
    return n;
}


const gcp_crd_node_t *
gcp_crd_resource_root(const gcp_crd_node_t *s, int resource_root,
    gcp_crd_node_t *root)
{
    if (!resource_root || (s && s->embedded)) {
        return s;
    }

    if (s == NULL) {
        memset(root, 0, sizeof(gcp_crd_node_t));

    } else {
        *root = *s;
    }

    root->embedded = 1;
    root->subtree_meta = 1;

    return root;
}


gcp_crd_schema_t *
gcp_crd_schema_compile(const json_t *schema, const gcp_schema_set_t *set,
    char *err, size_t errlen)
{
    gcp_arena_t       *a;
    const char        *msg;
    gcp_crd_schema_t  *cs;

    a = gcp_arena_create(0);
    if (a == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }

    cs = gcp_calloc(a, sizeof(gcp_crd_schema_t));
    if (cs == NULL) {
        gcp_arena_destroy(a);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }

    cs->arena = a;
    cs->set = set;
    cs->objectmeta = set ? gcp_schema_get(set,
                         "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
                         : NULL;

    cs->root = gcp_crd_compile_node(a, schema, &msg);

    if (cs->root == NULL) {
        snprintf(err, errlen, "%s", msg ? msg : "out of memory");
        gcp_arena_destroy(a);
        return NULL;
    }

    return cs;
}


void
gcp_crd_schema_free(gcp_crd_schema_t *cs)
{
    if (cs) {
        gcp_arena_destroy(cs->arena);
    }
}
