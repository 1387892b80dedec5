
/*
 * The JSON kube-apiserver writes for a decoded protobuf message: fields
 * in Go struct order, with encoding/json's rules for absent and zero
 * values (see gcp_protobuf.h).
 */

#include <stdlib.h>

#include "gcp_protobuf_int.h"


json_t *
gcp_pb_zero_value(const gcp_pb_field_t *f)
{
    switch (f->kind) {
    case GCP_PB_STRING:
    case GCP_PB_BYTES:
        return json_string("");
    case GCP_PB_INT32:
    case GCP_PB_INT64:
    case GCP_PB_INTORSTR:
    case GCP_PB_DOUBLE:
        return json_integer(0);
    case GCP_PB_BOOL:
        return json_false();
    case GCP_PB_MESSAGE:
    case GCP_PB_ORARRAY:
    case GCP_PB_ORBOOL:
    case GCP_PB_ORSTRINGS:
        return json_object();
    case GCP_PB_QUANTITY:
        return json_string("0");
    default:
        return json_null();
    }
}


static int
gcp_pb_is_zero(const json_t *v)
{
    return (json_is_string(v) && json_string_length(v) == 0)
           || (json_is_integer(v) && json_integer_value(v) == 0)
           || json_is_false(v);
}


static json_t *
gcp_pb_fin_value(gcp_pb_ctx_t *ctx, const gcp_pb_field_t *f, json_t *v)
{
    json_t              *msg, *r;
    const gcp_pb_msg_t  *m;

    if (f->kind != GCP_PB_MESSAGE && !gcp_pb_is_union(f->kind)) {
        return json_incref(v);
    }

    m = gcp_pb_msg(ctx, f->schema, f->type_name);
    msg = m ? gcp_pb_fin_message(ctx, m, v, NULL) : NULL;

    if (msg == NULL || f->kind == GCP_PB_MESSAGE) {
        return msg;
    }

    r = gcp_pb_union_json(f->kind, msg);
    json_decref(msg);

    return r;
}


/* A map with its keys sorted, as encoding/json writes maps. */
static json_t *
gcp_pb_fin_map(gcp_pb_ctx_t *ctx, const gcp_pb_field_t *f, json_t *map)
{
    size_t        i, n;
    json_t       *out, *v;
    gcp_pb_kv_t  *kv;

    out = json_object();
    kv = gcp_pb_sorted(map, &n);

    if (out == NULL || kv == NULL) {
        goto failed;
    }

    for (i = 0; i < n; i++) {
        v = gcp_pb_fin_value(ctx, f, kv[i].value);

        if (v == NULL
            || json_object_setn_new_nocheck(out, kv[i].key, kv[i].len, v)
               != 0)
        {
            goto failed;
        }
    }

    free(kv);

    return out;

failed:

    free(kv);
    json_decref(out);

    return NULL;
}


static json_t *
gcp_pb_fin_array(gcp_pb_ctx_t *ctx, const gcp_pb_field_t *f, json_t *arr)
{
    size_t   i;
    json_t  *out, *e;

    out = json_array();
    if (out == NULL) {
        return NULL;
    }

    json_array_foreach(arr, i, e) {
        if (json_array_append_new(out, gcp_pb_fin_value(ctx, f, e)) != 0) {
            json_decref(out);
            return NULL;
        }
    }

    return out;
}


/* The JSON of a single field held in the tree as v (NULL: absent). */
static json_t *
gcp_pb_fin_single(gcp_pb_ctx_t *ctx, const gcp_pb_field_t *f, json_t *v,
    int *omit)
{
    json_t  *r;

    if (f->ptr || f->kind == GCP_PB_BYTES) {
        /* nil pointers and nil []byte: null, or left out by omitempty */
        if (v == NULL) {
            *omit = !f->noomit;
            return json_null();
        }

        *omit = f->kind == GCP_PB_BYTES && !f->ptr && !f->noomit
                && json_string_length(v) == 0;

        return gcp_pb_fin_value(ctx, f, v);
    }

    switch (f->kind) {
    case GCP_PB_MESSAGE:
    case GCP_PB_ORARRAY:
    case GCP_PB_ORBOOL:
    case GCP_PB_ORSTRINGS:
        return gcp_pb_fin_value(ctx, f, v);
    case GCP_PB_TIME:
    case GCP_PB_MICROTIME:
    case GCP_PB_FIELDSV1:
    case GCP_PB_RAWEXT:
    case GCP_PB_JSON:
        return v ? json_incref(v) : json_null();
    case GCP_PB_INTORSTR:
        return v ? json_incref(v) : json_integer(0);
    case GCP_PB_QUANTITY:
        return v ? json_incref(v) : json_string("0");
    default:
        r = v ? json_incref(v) : gcp_pb_zero_value(f);
        *omit = !f->noomit && gcp_pb_is_zero(r);
        return r;
    }
}


/*
 * Returns out (a new object when NULL) with the fields of m held in raw
 * added in Go order; NULL when out of memory.
 */
json_t *
gcp_pb_fin_message(gcp_pb_ctx_t *ctx, const gcp_pb_msg_t *m,
    const json_t *raw, json_t *out)
{
    int                    omit;
    size_t                 i;
    json_t                *v, *r;
    gcp_pb_msg_t          *sub;
    const gcp_pb_field_t  *f;

    out = out ? json_incref(out) : json_object();
    if (out == NULL) {
        return NULL;
    }

    if (++ctx->depth > GCP_PROTOBUF_MAX_DEPTH) {
        json_decref(out);
        return NULL;
    }

    for (i = 0; i < m->nfields; i++) {
        f = m->order[i];

        if (f->inlined) {
            /* an embedded struct's fields, in their own order */
            sub = gcp_pb_msg(ctx, f->schema, f->type_name);
            r = sub ? gcp_pb_fin_message(ctx, sub, raw, out) : NULL;

            if (r == NULL) {
                json_decref(out);
                return NULL;
            }

            json_decref(r);
            continue;
        }

        v = raw ? json_object_getn(raw, f->name, f->name_len) : NULL;
        omit = 0;

        switch (f->card) {
        case GCP_PB_REPEATED:
        case GCP_PB_MAP:
        case GCP_PB_VERBS:
            /* nil (or empty repeated) fields: null, or left out */
            if (v == NULL
                || (f->card == GCP_PB_REPEATED && json_array_size(v) == 0))
            {
                omit = !f->noomit;
                r = json_null();

            } else {
                r = f->card == GCP_PB_MAP ? gcp_pb_fin_map(ctx, f, v)
                    : f->card == GCP_PB_VERBS ? json_incref(v)
                    : gcp_pb_fin_array(ctx, f, v);
            }
            break;
        default:
            r = gcp_pb_fin_single(ctx, f, v, &omit);
        }

        if (r == NULL) {
            json_decref(out);
            return NULL;
        }

        if (omit) {
            json_decref(r);
            continue;
        }

        if (json_object_setn_new_nocheck(out, f->name, f->name_len, r)
            != 0)
        {
            json_decref(out);
            return NULL;
        }
    }

    ctx->depth--;

    return out;
}
