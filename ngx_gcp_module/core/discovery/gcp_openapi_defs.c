
/*
 * The definitions of the OpenAPI documents (see gcp_openapi_int.h): the
 * schemas every reference of a document reaches, published without the
 * private x-gcp-* keys and, for v2, converted (allOf-wrapped references
 * flattened, defaults dropped, "#/definitions/" references).
 */

#include "gcp_openapi_int.h"


static void
gcp_openapi_collect(gcp_openapi_ctx_t *ctx, const json_t *v, json_t *names)
{
    size_t       i;
    json_t      *e;
    const char  *key, *name;

    if (json_is_array(v)) {
        json_array_foreach(v, i, e) {
            gcp_openapi_collect(ctx, e, names);
        }

        return;
    }

    if (!json_is_object(v)) {
        return;
    }

    name = json_is_string(json_object_get(v, "$ref"))
           ? gcp_schema_ref_name(v) : NULL;

    if (name && json_object_get(names, name) == NULL
        && gcp_schema_get(ctx->set, name))
    {
        if (json_object_set_new(names, name, json_true()) != 0) {
            ctx->nomem = 1;
            return;
        }

        gcp_openapi_collect(ctx, gcp_schema_get(ctx->set, name), names);
    }

    json_object_foreach((json_t *) v, key, e) {
        gcp_openapi_collect(ctx, e, names);
    }
}


static json_t *gcp_openapi_export(gcp_openapi_ctx_t *ctx, const json_t *s);


/* An object whose values are schemas (properties). */
static json_t *
gcp_openapi_export_map(gcp_openapi_ctx_t *ctx, const json_t *m)
{
    json_t      *out, *v;
    const char  *key;

    out = gcp_openapi_chk(ctx, json_object());
    if (out == NULL) {
        return NULL;
    }

    json_object_foreach((json_t *) m, key, v) {
        gcp_openapi_put(ctx, out, key, gcp_openapi_export(ctx, v));
    }

    return out;
}


static json_t *
gcp_openapi_export_list(gcp_openapi_ctx_t *ctx, const json_t *l)
{
    size_t   i;
    json_t  *out, *v;

    out = gcp_openapi_chk(ctx, json_array());
    if (out == NULL) {
        return NULL;
    }

    json_array_foreach(l, i, v) {
        gcp_openapi_push(ctx, out, gcp_openapi_export(ctx, v));
    }

    return out;
}


/* Adds the keys of a v2 flattening (allOf reference, first oneOf). */
static void
gcp_openapi_export_merge(gcp_openapi_ctx_t *ctx, json_t *out,
    const json_t *from)
{
    json_t      *v, *e;
    const char  *key;

    e = gcp_openapi_export(ctx, from);

    json_object_foreach(e, key, v) {
        if (json_object_get(out, key) == NULL) {
            gcp_openapi_put(ctx, out, key, json_incref(v));
        }
    }

    json_decref(e);
}


/*
 * Returns a published copy of schema s: x-gcp-* keys removed; for v2,
 * references rewritten and single allOf references and oneOf flattened,
 * defaults dropped.
 */
static json_t *
gcp_openapi_export(gcp_openapi_ctx_t *ctx, const json_t *s)
{
    json_t      *out, *v;
    const char  *key, *ref;

    if (!json_is_object(s)) {
        return gcp_openapi_chk(ctx, json_deep_copy(s));
    }

    out = gcp_openapi_chk(ctx, json_object());
    if (out == NULL) {
        return NULL;
    }

    json_object_foreach((json_t *) s, key, v) {
        if (strncmp(key, "x-gcp-", 6) == 0) {
            continue;
        }

        if (strcmp(key, "properties") == 0 && json_is_object(v)) {
            gcp_openapi_put(ctx, out, key, gcp_openapi_export_map(ctx, v));
            continue;
        }

        if ((strcmp(key, "items") == 0 || strcmp(key, "not") == 0
             || strcmp(key, "additionalProperties") == 0)
            && json_is_object(v))
        {
            gcp_openapi_put(ctx, out, key, gcp_openapi_export(ctx, v));
            continue;
        }

        if (ctx->v2 && strcmp(key, "default") == 0) {
            continue;
        }

        if (ctx->v2 && strcmp(key, "$ref") == 0 && json_is_string(v)) {
            ref = json_string_value(v);

            if (strncmp(ref, GCP_OPENAPI_V3REF,
                        sizeof(GCP_OPENAPI_V3REF) - 1) == 0)
            {
                gcp_openapi_put(ctx, out, key,
                    gcp_openapi_chk(ctx, json_pack("s++", GCP_OPENAPI_V2REF,
                        ref + sizeof(GCP_OPENAPI_V3REF) - 1, "")));
                continue;
            }
        }

        if (ctx->v2 && json_is_array(v) && json_array_size(v) > 0
            && ((strcmp(key, "allOf") == 0 && json_array_size(v) == 1
                 && json_object_get(json_array_get(v, 0), "$ref"))
                || strcmp(key, "oneOf") == 0))
        {
            gcp_openapi_export_merge(ctx, out, json_array_get(v, 0));
            continue;
        }

        if ((strcmp(key, "allOf") == 0 || strcmp(key, "oneOf") == 0
             || strcmp(key, "anyOf") == 0) && json_is_array(v))
        {
            gcp_openapi_put(ctx, out, key, gcp_openapi_export_list(ctx, v));
            continue;
        }

        gcp_openapi_put(ctx, out, key, gcp_openapi_chk(ctx,
                                                       json_deep_copy(v)));
    }

    return out;
}


/* The published definitions every reference in doc reaches, sorted. */
json_t *
gcp_openapi_definitions(gcp_openapi_ctx_t *ctx, const json_t *doc)
{
    size_t        i, n;
    json_t       *names, *defs, *v;
    const char   *key, **list;

    names = gcp_openapi_chk(ctx, json_object());
    defs = gcp_openapi_chk(ctx, json_object());

    if (names == NULL || defs == NULL) {
        json_decref(names);
        return defs;
    }

    gcp_openapi_collect(ctx, doc, names);

    n = json_object_size(names);
    list = gcp_alloc(ctx->arena, (n + 1) * sizeof(char *));

    if (list == NULL) {
        ctx->nomem = 1;
        json_decref(names);
        return defs;
    }

    i = 0;

    json_object_foreach(names, key, v) {
        list[i++] = key;
    }

    qsort(list, n, sizeof(char *), gcp_openapi_name_cmp);

    for (i = 0; i < n; i++) {
        gcp_openapi_put(ctx, defs, list[i],
                        gcp_openapi_export(ctx,
                                           gcp_schema_get(ctx->set,
                                                          list[i])));
    }

    json_decref(names);

    return defs;
}
