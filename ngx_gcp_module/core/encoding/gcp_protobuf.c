
/*
 * Protobuf message descriptors built from the schema annotations (see
 * gcp_protobuf.h), shared by the encoder and the decoder.
 */

#include <stdlib.h>

#include "gcp_protobuf_int.h"


static const struct {
    const char     *name;
    gcp_pb_kind_t   kind;
} gcp_pb_types[] = {
    { "time", GCP_PB_TIME },
    { "microtime", GCP_PB_MICROTIME },
    { "fieldsv1", GCP_PB_FIELDSV1 },
    { "rawextension", GCP_PB_RAWEXT },
    { "intorstring", GCP_PB_INTORSTR },
    { "quantity", GCP_PB_QUANTITY },
    { "stringlist", GCP_PB_STRINGS },
    { "json", GCP_PB_JSON },
    { "schemaorarray", GCP_PB_ORARRAY },
    { "schemaorbool", GCP_PB_ORBOOL },
    { "schemaorstringarray", GCP_PB_ORSTRINGS }
};


static int
gcp_pb_str_is(const json_t *v, const char *s)
{
    return json_is_string(v) && strcmp(json_string_value(v), s) == 0;
}


/* A map: an object schema with additionalProperties and no properties. */
static int
gcp_pb_is_map(const json_t *r)
{
    return gcp_pb_str_is(json_object_get(r, "type"), "object")
           && json_object_get(r, "properties") == NULL
           && json_is_object(json_object_get(r, "additionalProperties"));
}


/* A union's message is its definition's x-gcp-proto-message. */
static gcp_pb_kind_t
gcp_pb_union_init(gcp_pb_ctx_t *ctx, const json_t *node, gcp_pb_kind_t kind,
    const json_t **schema, const char **type_name)
{
    const json_t  *m;

    if (!gcp_pb_is_union(kind)) {
        return kind;
    }

    m = json_object_get(gcp_schema_resolve(ctx->set, node),
                        "x-gcp-proto-message");
    if (!json_is_object(m)) {
        return GCP_PB_NONE;
    }

    *schema = m;
    *type_name = gcp_schema_def_name(ctx->set, node);

    return kind;
}


/* The kind of one value of schema node (unresolved). */
static gcp_pb_kind_t
gcp_pb_value_kind(gcp_pb_ctx_t *ctx, const json_t *node,
    const json_t **schema, const char **type_name)
{
    size_t         i;
    const char    *t, *type, *format;
    const json_t  *r;

    t = gcp_schema_ext(ctx->set, node, "x-gcp-proto-type");

    if (t) {
        for (i = 0; i < gcp_nelems(gcp_pb_types); i++) {
            if (strcmp(t, gcp_pb_types[i].name) == 0) {
                return gcp_pb_union_init(ctx, node, gcp_pb_types[i].kind,
                                         schema, type_name);
            }
        }

        return GCP_PB_NONE;
    }

    r = gcp_schema_resolve(ctx->set, node);
    if (!json_is_object(r)) {
        return GCP_PB_NONE;
    }

    format = json_string_value(json_object_get(r, "format"));

    if (json_is_true(json_object_get(r, "x-kubernetes-int-or-string"))
        || (format && strcmp(format, "int-or-string") == 0))
    {
        return GCP_PB_INTORSTR;
    }

    type = json_string_value(json_object_get(r, "type"));

    if (type == NULL) {
        type = json_is_object(json_object_get(r, "properties")) ? "object"
                                                                 : "";
    }

    if (strcmp(type, "string") == 0) {
        return format && strcmp(format, "byte") == 0 ? GCP_PB_BYTES
                                                     : GCP_PB_STRING;
    }

    if (strcmp(type, "integer") == 0) {
        return format && strcmp(format, "int32") == 0 ? GCP_PB_INT32
                                                      : GCP_PB_INT64;
    }

    if (strcmp(type, "boolean") == 0) {
        return GCP_PB_BOOL;
    }

    if (strcmp(type, "number") == 0) {
        return GCP_PB_DOUBLE;
    }

    if (strcmp(type, "object") == 0 && !gcp_pb_is_map(r)) {
        *schema = r;
        *type_name = gcp_schema_def_name(ctx->set, node);
        return GCP_PB_MESSAGE;
    }

    return GCP_PB_NONE;
}


/* Fills f from property prop; returns 0 when the field is not encoded. */
static int
gcp_pb_field_init(gcp_pb_ctx_t *ctx, gcp_pb_field_t *f, const char *name,
    const json_t *prop)
{
    json_int_t     num;
    const char    *t;
    const json_t  *r, *n;

    n = json_object_get(prop, "x-gcp-proto");
    if (!json_is_integer(n)) {
        return 0;
    }

    num = json_integer_value(n);
    if (num < 1 || num > GCP_PB_MAX_FIELD) {
        return 0;
    }

    memset(f, 0, sizeof(gcp_pb_field_t));
    f->num = (uint32_t) num;
    f->name = name;
    f->name_len = strlen(name);
    f->ptr = json_is_true(json_object_get(prop, "x-gcp-proto-ptr"));
    f->noomit = json_is_true(json_object_get(prop, "x-gcp-proto-noomit"));

    t = gcp_schema_ext(ctx->set, prop, "x-gcp-proto-type");
    r = gcp_schema_resolve(ctx->set, prop);

    if (t && strcmp(t, "verbs") == 0) {
        f->card = GCP_PB_VERBS;
        f->kind = GCP_PB_STRING;

    } else if (t == NULL
               && gcp_pb_str_is(json_object_get(r, "type"), "array"))
    {
        f->card = GCP_PB_REPEATED;
        f->kind = gcp_pb_value_kind(ctx, json_object_get(r, "items"),
                                    &f->schema, &f->type_name);

    } else if (t == NULL && gcp_pb_is_map(r)) {
        f->card = GCP_PB_MAP;
        f->kind = gcp_pb_value_kind(ctx,
                                    json_object_get(r, "additionalProperties"),
                                    &f->schema, &f->type_name);

    } else {
        f->kind = gcp_pb_value_kind(ctx, prop, &f->schema, &f->type_name);
    }

    return f->kind != GCP_PB_NONE;
}


/*
 * Fills f for an embedded struct: number key (a decimal string), the
 * message of definition def (a JSON string).  Returns 0 when unusable.
 */
static int
gcp_pb_field_inline(gcp_pb_ctx_t *ctx, gcp_pb_field_t *f, const char *key,
    const json_t *def)
{
    long           num;
    char          *end;
    const json_t  *r;

    num = strtol(key, &end, 10);

    if (*end != '\0' || num < 1 || num > GCP_PB_MAX_FIELD
        || !json_is_string(def))
    {
        return 0;
    }

    r = gcp_schema_resolve(ctx->set,
                           gcp_schema_get(ctx->set, json_string_value(def)));
    if (!json_is_object(r)) {
        return 0;
    }

    memset(f, 0, sizeof(gcp_pb_field_t));
    f->num = (uint32_t) num;
    f->name = "";
    f->kind = GCP_PB_MESSAGE;
    f->card = GCP_PB_SINGLE;
    f->inlined = 1;
    f->schema = r;
    f->type_name = json_string_value(def);

    return 1;
}


static int
gcp_pb_field_cmp(const void *one, const void *two)
{
    const gcp_pb_field_t  *a = one, *b = two;

    return a->num < b->num ? -1 : a->num > b->num;
}


/* Go struct order: x-gcp-proto-order first, then by field number. */
static int
gcp_pb_msg_order(gcp_pb_ctx_t *ctx, gcp_pb_msg_t *m)
{
    size_t           i, j, n;
    json_t          *name;
    unsigned char   *used;
    const json_t    *order;

    m->order = gcp_alloc(ctx->arena,
                         (m->nfields + 1) * sizeof(gcp_pb_field_t *));
    used = gcp_calloc(ctx->arena, m->nfields + 1);

    if (m->order == NULL || used == NULL) {
        return GCP_ENOMEM;
    }

    n = 0;
    order = json_object_get(m->schema, "x-gcp-proto-order");

    json_array_foreach(order, i, name) {
        for (j = 0; j < m->nfields; j++) {
            if (!used[j] && json_is_string(name)
                && strcmp(m->fields[j].name, json_string_value(name)) == 0)
            {
                used[j] = 1;
                m->order[n++] = &m->fields[j];
            }
        }
    }

    for (j = 0; j < m->nfields; j++) {
        if (!used[j]) {
            m->order[n++] = &m->fields[j];
        }
    }

    return GCP_OK;
}


void
gcp_pb_ctx_init(gcp_pb_ctx_t *ctx, gcp_arena_t *a,
    const gcp_schema_set_t *set)
{
    memset(ctx, 0, sizeof(gcp_pb_ctx_t));
    ctx->arena = a;
    ctx->set = set;
}


gcp_pb_msg_t *
gcp_pb_msg(gcp_pb_ctx_t *ctx, const json_t *schema, const char *name)
{
    size_t           n;
    json_t          *prop;
    const char      *key, *dot;
    gcp_pb_msg_t    *m;
    const json_t    *props, *inl;

    for (m = ctx->cache; m; m = m->next) {
        if (m->schema == schema) {
            return m;
        }
    }

    m = gcp_calloc(ctx->arena, sizeof(gcp_pb_msg_t));
    if (m == NULL) {
        return NULL;
    }

    m->schema = schema;
    dot = name ? strrchr(name, '.') : NULL;
    m->go_name = dot ? dot + 1 : (name ? name : "Message");

    props = json_object_get(schema, "properties");
    inl = json_object_get(schema, "x-gcp-proto-inline");

    m->fields = gcp_alloc(ctx->arena,
                          (json_object_size(props) + json_object_size(inl)
                           + 1) * sizeof(gcp_pb_field_t));
    if (m->fields == NULL) {
        return NULL;
    }

    n = 0;

    json_object_foreach((json_t *) props, key, prop) {
        if (gcp_pb_field_init(ctx, &m->fields[n], key, prop)) {
            n++;
        }
    }

    json_object_foreach((json_t *) inl, key, prop) {
        if (gcp_pb_field_inline(ctx, &m->fields[n], key, prop)) {
            n++;
        }
    }

    m->nfields = n;
    qsort(m->fields, n, sizeof(gcp_pb_field_t), gcp_pb_field_cmp);

    if (gcp_pb_msg_order(ctx, m) != GCP_OK) {
        return NULL;
    }

    m->next = ctx->cache;
    ctx->cache = m;

    return m;
}


gcp_pb_msg_t *
gcp_pb_msg_def(gcp_pb_ctx_t *ctx, const char *def)
{
    const json_t  *s;

    s = gcp_schema_resolve(ctx->set, gcp_schema_get(ctx->set, def));

    return json_is_object(s) ? gcp_pb_msg(ctx, s, def) : NULL;
}


const gcp_pb_field_t *
gcp_pb_field(const gcp_pb_msg_t *m, uint64_t num)
{
    size_t  lo, hi, mid;

    lo = 0;
    hi = m->nfields;

    while (lo < hi) {
        mid = lo + (hi - lo) / 2;

        if (m->fields[mid].num == num) {
            return &m->fields[mid];
        }

        if (m->fields[mid].num < num) {
            lo = mid + 1;

        } else {
            hi = mid;
        }
    }

    return NULL;
}


int
gcp_pb_wire_type(gcp_pb_kind_t kind)
{
    switch (kind) {
    case GCP_PB_INT32:
    case GCP_PB_INT64:
    case GCP_PB_BOOL:
        return GCP_PB_VARINT;
    case GCP_PB_DOUBLE:
        return GCP_PB_FIXED64;
    default:
        return GCP_PB_LEN;
    }
}


int
gcp_pb_parse_api_version(gcp_arena_t *a, const char *av, const char **group,
    const char **version)
{
    const char  *slash;

    slash = strchr(av, '/');

    if (av[0] == '\0' || strcmp(av, "/") == 0) {
        *group = "";
        *version = "";
        return GCP_OK;
    }

    if (slash == NULL) {
        *group = "";
        *version = av;
        return GCP_OK;
    }

    if (strchr(slash + 1, '/')) {
        return GCP_EBADREQUEST;
    }

    *group = gcp_strndup(a, av, (size_t) (slash - av));
    *version = slash + 1;

    return *group ? GCP_OK : GCP_ENOMEM;
}


const char *
gcp_pb_find_def(gcp_arena_t *a, const gcp_schema_set_t *set,
    const char *api_version, const char *kind)
{
    const char  *group, *version, *def;

    if (api_version == NULL || kind == NULL
        || gcp_pb_parse_api_version(a, api_version, &group, &version)
           != GCP_OK)
    {
        return NULL;
    }

    def = gcp_schema_find_gvk(set, group, version, kind);

    return def && gcp_protobuf_capable(set, def) ? def : NULL;
}


static int
gcp_pb_kv_cmp(const void *one, const void *two)
{
    int                 c;
    const gcp_pb_kv_t  *a = one, *b = two;

    c = memcmp(a->key, b->key, gcp_min(a->len, b->len));

    if (c) {
        return c;
    }

    return a->len < b->len ? -1 : a->len > b->len;
}


gcp_pb_kv_t *
gcp_pb_sorted(const json_t *map, size_t *n)
{
    void         *it;
    size_t        i, max;
    gcp_pb_kv_t  *kv;

    max = json_object_size(map);

    kv = malloc((max + 1) * sizeof(gcp_pb_kv_t));
    if (kv == NULL) {
        return NULL;
    }

    i = 0;

    for (it = json_object_iter((json_t *) map); it && i < max;
         it = json_object_iter_next((json_t *) map, it))
    {
        kv[i].key = json_object_iter_key(it);
        kv[i].len = json_object_iter_key_len(it);
        kv[i].value = json_object_iter_value(it);
        i++;
    }

    qsort(kv, i, sizeof(gcp_pb_kv_t), gcp_pb_kv_cmp);
    *n = i;

    return kv;
}


int
gcp_protobuf_capable(const gcp_schema_set_t *set, const char *def)
{
    json_t        *prop;
    const char    *key;
    const json_t  *s, *props;

    s = gcp_schema_resolve(set, gcp_schema_get(set, def));
    props = json_object_get(s, "properties");

    if (!json_is_object(props) || json_object_size(props) == 0) {
        return 0;
    }

    json_object_foreach((json_t *) props, key, prop) {
        if (!json_is_integer(json_object_get(prop, "x-gcp-proto"))) {
            return 0;
        }
    }

    return 1;
}
