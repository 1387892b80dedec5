
/*
 * Protobuf encoding of JSON objects (see gcp_protobuf.h), as gogo-protobuf
 * marshals upstream's types: fields by number, value fields always, map
 * entries sorted by key.
 */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gcp_protobuf_int.h"
#include "gcp_json.h"
#include "gcp_time.h"
#include "gcp_base64.h"


static int gcp_pb_enc_message(gcp_pb_ctx_t *ctx, gcp_buf_t *b,
    const gcp_pb_msg_t *m, const json_t *obj);
static int gcp_pb_enc_envelope(gcp_pb_ctx_t *ctx, gcp_buf_t *b,
    const char *def, const json_t *obj);


static void
gcp_pb_put_varint(gcp_buf_t *b, uint64_t v)
{
    char    tmp[10];
    size_t  n;

    n = 0;

    while (v >= 0x80) {
        tmp[n++] = (char) (v | 0x80);
        v >>= 7;
    }

    tmp[n++] = (char) v;

    gcp_buf_add(b, tmp, n);
}


static void
gcp_pb_put_tag(gcp_buf_t *b, uint32_t num, int wire)
{
    gcp_pb_put_varint(b, ((uint64_t) num << 3) | (uint64_t) wire);
}


static void
gcp_pb_put_bytes(gcp_buf_t *b, uint32_t num, const char *p, size_t n)
{
    gcp_pb_put_tag(b, num, GCP_PB_LEN);
    gcp_pb_put_varint(b, n);
    gcp_buf_add(b, p, n);
}


/* Starts a length-delimited field; returns where its length goes. */
static size_t
gcp_pb_open(gcp_buf_t *b, uint32_t num)
{
    size_t  start;

    gcp_pb_put_tag(b, num, GCP_PB_LEN);
    start = b->len;
    gcp_buf_addc(b, 0);

    return start;
}


/* Writes the length of the field opened at start, moving its contents. */
static void
gcp_pb_close(gcp_buf_t *b, size_t start)
{
    size_t    n, k;
    uint64_t  v;

    if (b->failed) {
        return;
    }

    n = b->len - start - 1;

    for (k = 1, v = n; v >= 0x80; v >>= 7) {
        k++;
    }

    if (k > 1) {
        if (gcp_buf_reserve(b, k - 1) != GCP_OK) {
            return;
        }

        memmove(b->data + start + k, b->data + start + 1, n);
        b->len += k - 1;
    }

    for (v = n; v >= 0x80; v >>= 7) {
        b->data[start++] = (char) (v | 0x80);
    }

    b->data[start] = (char) v;
}


static int
gcp_pb_enc_int(gcp_buf_t *b, uint32_t num, const gcp_pb_field_t *f,
    const json_t *v)
{
    json_int_t  i;

    if (v && !json_is_integer(v)) {
        return GCP_EINTERNAL;
    }

    i = v ? json_integer_value(v) : 0;

    if (f->kind == GCP_PB_INT32 && (i < INT32_MIN || i > INT32_MAX)) {
        return GCP_EINTERNAL;
    }

    gcp_pb_put_tag(b, num, GCP_PB_VARINT);
    gcp_pb_put_varint(b, (uint64_t) (int64_t) i);

    return GCP_OK;
}


static int
gcp_pb_enc_b64(gcp_pb_ctx_t *ctx, gcp_buf_t *b, uint32_t num,
    const json_t *v)
{
    gcp_str_t    raw;
    const char  *msg;

    if (v == NULL) {
        gcp_pb_put_bytes(b, num, "", 0);
        return GCP_OK;
    }

    if (!json_is_string(v)
        || gcp_base64_decode(ctx->arena, json_string_value(v),
                             json_string_length(v), &raw, &msg)
           != GCP_OK)
    {
        return GCP_EINTERNAL;
    }

    gcp_pb_put_bytes(b, num, raw.data, raw.len);

    return GCP_OK;
}


/* Timestamp{seconds, nanos}; an empty message for Go's zero time. */
static int
gcp_pb_enc_time(gcp_pb_ctx_t *ctx, gcp_buf_t *b, uint32_t num,
    const gcp_pb_field_t *f, const json_t *v)
{
    size_t           start;
    struct timespec  ts;

    start = gcp_pb_open(b, num);

    if (v) {
        if (!json_is_string(v)
            || gcp_time_parse(ctx->arena, json_string_value(v),
                              json_string_length(v), &ts, NULL) != GCP_OK)
        {
            return GCP_EINTERNAL;
        }

        if ((int64_t) ts.tv_sec != GCP_PB_ZERO_TIME || ts.tv_nsec != 0) {
            gcp_pb_put_tag(b, 1, GCP_PB_VARINT);
            gcp_pb_put_varint(b, (uint64_t) (int64_t) ts.tv_sec);
            gcp_pb_put_tag(b, 2, GCP_PB_VARINT);
            gcp_pb_put_varint(b, f->kind == GCP_PB_MICROTIME
                                 ? (uint64_t) ts.tv_nsec : 0);
        }
    }

    gcp_pb_close(b, start);

    return GCP_OK;
}


/*
 * JSON with the keys of every object sorted, as Go marshals the
 * interface{} an apiextensions JSON value holds after conversion.
 */
static int
gcp_pb_enc_sorted(gcp_buf_t *b, const json_t *v)
{
    json_t  *copy;

    if (!json_is_object(v) && !json_is_array(v)) {
        gcp_json_dump_buf(b, v, 0);
        return GCP_OK;
    }

    copy = json_deep_copy(v);

    if (copy == NULL || gcp_json_sort_keys(copy, 1) != GCP_OK) {
        json_decref(copy);
        return GCP_ENOMEM;
    }

    gcp_json_dump_buf(b, copy, 0);
    json_decref(copy);

    return GCP_OK;
}


/* double: fixed64, little-endian. */
static int
gcp_pb_enc_double(gcp_buf_t *b, uint32_t num, const json_t *v)
{
    int       i;
    char      tmp[8];
    double    d;
    uint64_t  bits;

    if (v && !json_is_number(v)) {
        return GCP_EINTERNAL;
    }

    d = v ? json_number_value(v) : 0;
    memcpy(&bits, &d, sizeof(bits));

    for (i = 0; i < 8; i++) {
        tmp[i] = (char) (bits >> (8 * i));
    }

    gcp_pb_put_tag(b, num, GCP_PB_FIXED64);
    gcp_buf_add(b, tmp, 8);

    return GCP_OK;
}


/* bytes raw = 1: a protobuf body for a known kind, else JSON. */
static int
gcp_pb_enc_raw(gcp_pb_ctx_t *ctx, gcp_buf_t *b, uint32_t num,
    const gcp_pb_field_t *f, const json_t *v)
{
    int          rc;
    size_t       start, inner;
    const char  *def;

    start = gcp_pb_open(b, num);
    rc = GCP_OK;

    if (v) {
        inner = gcp_pb_open(b, 1);
        def = NULL;

        if (f->kind == GCP_PB_RAWEXT && json_is_object(v)) {
            def = gcp_pb_find_def(ctx->arena, ctx->set,
                      json_string_value(json_object_get(v, "apiVersion")),
                      json_string_value(json_object_get(v, "kind")));
        }

        if (def) {
            rc = gcp_pb_enc_envelope(ctx, b, def, v);

        } else if (f->kind == GCP_PB_JSON) {
            rc = gcp_pb_enc_sorted(b, v);

        } else {
            gcp_json_dump_buf(b, v, 0);
        }

        gcp_pb_close(b, inner);
    }

    gcp_pb_close(b, start);

    return rc;
}


/* IntOrString{type 1, intVal 2, strVal 3}, every field written. */
static int
gcp_pb_enc_intorstr(gcp_buf_t *b, uint32_t num, const json_t *v)
{
    size_t      start;
    json_int_t  i;

    if (v && !json_is_string(v) && !json_is_integer(v)) {
        return GCP_EINTERNAL;
    }

    i = json_is_integer(v) ? json_integer_value(v) : 0;

    if (i < INT32_MIN || i > INT32_MAX) {
        return GCP_EINTERNAL;
    }

    start = gcp_pb_open(b, num);

    gcp_pb_put_tag(b, 1, GCP_PB_VARINT);
    gcp_pb_put_varint(b, json_is_string(v) ? 1 : 0);
    gcp_pb_put_tag(b, 2, GCP_PB_VARINT);
    gcp_pb_put_varint(b, (uint64_t) (int64_t) i);

    if (json_is_string(v)) {
        gcp_pb_put_bytes(b, 3, json_string_value(v), json_string_length(v));

    } else {
        gcp_pb_put_bytes(b, 3, "", 0);
    }

    gcp_pb_close(b, start);

    return GCP_OK;
}


static int
gcp_pb_enc_quantity(gcp_buf_t *b, uint32_t num, const json_t *v)
{
    char    tmp[32];
    size_t  start;

    start = gcp_pb_open(b, num);

    if (v == NULL) {
        gcp_pb_put_bytes(b, 1, "0", 1);

    } else if (json_is_string(v)) {
        gcp_pb_put_bytes(b, 1, json_string_value(v), json_string_length(v));

    } else if (json_is_integer(v)) {
        snprintf(tmp, sizeof(tmp), "%" JSON_INTEGER_FORMAT,
                 json_integer_value(v));
        gcp_pb_put_bytes(b, 1, tmp, strlen(tmp));

    } else {
        return GCP_EINTERNAL;
    }

    gcp_pb_close(b, start);

    return GCP_OK;
}


/* A message of repeated strings (field 1) from an array (NULL: empty). */
static int
gcp_pb_enc_strings(gcp_buf_t *b, uint32_t num, const json_t *v)
{
    size_t         i, start;
    const json_t  *e;

    if (v && !json_is_array(v)) {
        return GCP_EINTERNAL;
    }

    start = gcp_pb_open(b, num);

    json_array_foreach(v, i, e) {
        if (!json_is_string(e)) {
            return GCP_EINTERNAL;
        }

        gcp_pb_put_bytes(b, 1, json_string_value(e), json_string_length(e));
    }

    gcp_pb_close(b, start);

    return GCP_OK;
}


/* A union: its JSON value written as its message (x-gcp-proto-message). */
static int
gcp_pb_enc_union(gcp_pb_ctx_t *ctx, gcp_buf_t *b, uint32_t num,
    const gcp_pb_field_t *f, const json_t *v)
{
    int            rc;
    size_t         start;
    json_t        *msg;
    gcp_pb_msg_t  *m;

    msg = gcp_pb_union_message(f->kind, v, &rc);
    if (msg == NULL) {
        return rc;
    }

    m = gcp_pb_msg(ctx, f->schema, f->type_name);

    if (m == NULL) {
        rc = GCP_ENOMEM;

    } else {
        start = gcp_pb_open(b, num);
        rc = gcp_pb_enc_message(ctx, b, m, msg);
        gcp_pb_close(b, start);
    }

    json_decref(msg);

    return rc;
}


/* One value of field f as field number num; v NULL is the zero value. */
static int
gcp_pb_enc_value(gcp_pb_ctx_t *ctx, gcp_buf_t *b, uint32_t num,
    const gcp_pb_field_t *f, const json_t *v)
{
    int                  rc;
    size_t               start;
    const gcp_pb_msg_t  *m;

    switch (f->kind) {

    case GCP_PB_STRING:
        if (v && !json_is_string(v)) {
            return GCP_EINTERNAL;
        }

        gcp_pb_put_bytes(b, num, v ? json_string_value(v) : "",
                         v ? json_string_length(v) : 0);
        return GCP_OK;

    case GCP_PB_BYTES:
        return gcp_pb_enc_b64(ctx, b, num, v);

    case GCP_PB_INT32:
    case GCP_PB_INT64:
        return gcp_pb_enc_int(b, num, f, v);

    case GCP_PB_BOOL:
        if (v && !json_is_boolean(v)) {
            return GCP_EINTERNAL;
        }

        gcp_pb_put_tag(b, num, GCP_PB_VARINT);
        gcp_pb_put_varint(b, json_is_true(v) ? 1 : 0);
        return GCP_OK;

    case GCP_PB_MESSAGE:
        if (v && !json_is_object(v)) {
            return GCP_EINTERNAL;
        }

        m = gcp_pb_msg(ctx, f->schema, f->type_name);
        if (m == NULL) {
            return GCP_ENOMEM;
        }

        start = gcp_pb_open(b, num);
        rc = gcp_pb_enc_message(ctx, b, m, v);
        gcp_pb_close(b, start);
        return rc;

    case GCP_PB_ORARRAY:
    case GCP_PB_ORBOOL:
    case GCP_PB_ORSTRINGS:
        return gcp_pb_enc_union(ctx, b, num, f, v);

    case GCP_PB_DOUBLE:
        return gcp_pb_enc_double(b, num, v);

    case GCP_PB_TIME:
    case GCP_PB_MICROTIME:
        return gcp_pb_enc_time(ctx, b, num, f, v);

    case GCP_PB_FIELDSV1:
    case GCP_PB_RAWEXT:
    case GCP_PB_JSON:
        return gcp_pb_enc_raw(ctx, b, num, f, v);

    case GCP_PB_INTORSTR:
        return gcp_pb_enc_intorstr(b, num, v);

    case GCP_PB_QUANTITY:
        return gcp_pb_enc_quantity(b, num, v);

    case GCP_PB_STRINGS:
        return gcp_pb_enc_strings(b, num, v);

    default:
        return GCP_OK;
    }
}


/* Map entries {key 1, value 2}, sorted by key as Go's sort.Strings. */
static int
gcp_pb_enc_map(gcp_pb_ctx_t *ctx, gcp_buf_t *b, const gcp_pb_field_t *f,
    const json_t *map)
{
    int           rc;
    size_t        i, n, start;
    const json_t *v;
    gcp_pb_kv_t  *kv;

    kv = gcp_pb_sorted(map, &n);
    if (kv == NULL) {
        return GCP_ENOMEM;
    }

    rc = GCP_OK;

    for (i = 0; i < n && rc == GCP_OK; i++) {
        v = json_is_null(kv[i].value) ? NULL : kv[i].value;

        start = gcp_pb_open(b, f->num);
        gcp_pb_put_bytes(b, 1, kv[i].key, kv[i].len);

        /* a nil []byte value is left out */
        if (f->kind != GCP_PB_BYTES || v) {
            rc = gcp_pb_enc_value(ctx, b, 2, f, v);
        }

        gcp_pb_close(b, start);
    }

    free(kv);

    return rc;
}


static int
gcp_pb_enc_field(gcp_pb_ctx_t *ctx, gcp_buf_t *b, const gcp_pb_field_t *f,
    const json_t *v)
{
    int            rc;
    size_t         i;
    const json_t  *e;

    switch (f->card) {

    case GCP_PB_SINGLE:
        /* nil pointers and nil []byte are left out */
        if (v == NULL && (f->ptr || f->kind == GCP_PB_BYTES)) {
            return GCP_OK;
        }

        return gcp_pb_enc_value(ctx, b, f->num, f, v);

    case GCP_PB_REPEATED:
        if (!json_is_array(v)) {
            return v ? GCP_EINTERNAL : GCP_OK;
        }

        json_array_foreach(v, i, e) {
            rc = gcp_pb_enc_value(ctx, b, f->num, f,
                                  json_is_null(e) ? NULL : e);
            if (rc != GCP_OK) {
                return rc;
            }
        }

        return GCP_OK;

    case GCP_PB_MAP:
        if (!json_is_object(v)) {
            return v ? GCP_EINTERNAL : GCP_OK;
        }

        return gcp_pb_enc_map(ctx, b, f, v);

    default: /* GCP_PB_VERBS */
        if (!json_is_array(v)) {
            return v ? GCP_EINTERNAL : GCP_OK;
        }

        return gcp_pb_enc_strings(b, f->num, v);
    }
}


static int
gcp_pb_enc_message(gcp_pb_ctx_t *ctx, gcp_buf_t *b, const gcp_pb_msg_t *m,
    const json_t *obj)
{
    int                    rc;
    size_t                 i;
    const json_t          *v;
    const gcp_pb_field_t  *f;

    if (++ctx->depth > GCP_PROTOBUF_MAX_DEPTH) {
        return GCP_EINTERNAL;
    }

    for (i = 0; i < m->nfields; i++) {
        f = &m->fields[i];
        v = f->inlined ? obj
            : obj ? json_object_getn(obj, f->name, f->name_len) : NULL;

        rc = gcp_pb_enc_field(ctx, b, f, json_is_null(v) ? NULL : v);
        if (rc != GCP_OK) {
            return rc;
        }
    }

    ctx->depth--;

    return GCP_OK;
}


/* Magic, then Unknown{typeMeta 1, raw 2, contentEncoding 3, contentType 4}. */
static int
gcp_pb_enc_envelope(gcp_pb_ctx_t *ctx, gcp_buf_t *b, const char *def,
    const json_t *obj)
{
    int            rc;
    size_t         start;
    const json_t  *av, *kind;
    gcp_pb_msg_t  *m;

    m = gcp_pb_msg_def(ctx, def);
    if (m == NULL) {
        return GCP_ENOMEM;
    }

    av = json_object_get(obj, "apiVersion");
    kind = json_object_get(obj, "kind");

    gcp_buf_add(b, GCP_PROTOBUF_MAGIC, GCP_PROTOBUF_MAGIC_LEN);

    start = gcp_pb_open(b, 1);
    gcp_pb_put_bytes(b, 1, json_string_value(av), json_string_length(av));
    gcp_pb_put_bytes(b, 2, json_string_value(kind), json_string_length(kind));
    gcp_pb_close(b, start);

    start = gcp_pb_open(b, 2);
    rc = gcp_pb_enc_message(ctx, b, m, obj);
    gcp_pb_close(b, start);

    gcp_pb_put_bytes(b, 3, "", 0);
    gcp_pb_put_bytes(b, 4, "", 0);

    return rc;
}


/*
 * The result of a run: GCP_ENOMEM if the buffer failed; on error b's
 * length is restored.
 */
static int
gcp_pb_enc_done(gcp_buf_t *b, size_t saved, int rc)
{
    if (b->failed) {
        rc = GCP_ENOMEM;
    }

    if (rc != GCP_OK && !b->failed) {
        b->len = saved;
    }

    return rc;
}


int
gcp_protobuf_encode(gcp_buf_t *b, const gcp_schema_set_t *set,
    const json_t *obj)
{
    int            rc;
    size_t         saved;
    const char    *def;
    gcp_pb_ctx_t   ctx;

    if (!json_is_object(obj)) {
        return GCP_EINTERNAL;
    }

    def = gcp_pb_find_def(b->arena, set,
                          json_string_value(json_object_get(obj,
                                                            "apiVersion")),
                          json_string_value(json_object_get(obj, "kind")));
    if (def == NULL) {
        return GCP_ENOTACCEPTABLE;
    }

    gcp_pb_ctx_init(&ctx, b->arena, set);
    saved = b->len;

    rc = gcp_pb_enc_envelope(&ctx, b, def, obj);

    return gcp_pb_enc_done(b, saved, rc);
}


int
gcp_protobuf_encode_message(gcp_buf_t *b, const gcp_schema_set_t *set,
    const char *def, const json_t *obj)
{
    int            rc;
    size_t         saved;
    gcp_pb_msg_t  *m;
    gcp_pb_ctx_t   ctx;

    if (obj && !json_is_object(obj)) {
        return GCP_EINTERNAL;
    }

    if (!gcp_protobuf_capable(set, def)) {
        return GCP_ENOTACCEPTABLE;
    }

    gcp_pb_ctx_init(&ctx, b->arena, set);
    saved = b->len;

    m = gcp_pb_msg_def(&ctx, def);
    rc = m ? gcp_pb_enc_message(&ctx, b, m, obj) : GCP_ENOMEM;

    return gcp_pb_enc_done(b, saved, rc);
}


int
gcp_protobuf_encode_watch_frame(gcp_buf_t *b, const gcp_schema_set_t *set,
    const char *type, const json_t *object)
{
    int            rc;
    size_t         saved, n;
    json_t        *ev;
    unsigned char *p;

    ev = object ? json_pack("{s:s, s:O}", "type", type, "object", object)
                : json_pack("{s:s}", "type", type);
    if (ev == NULL) {
        return GCP_ENOMEM;
    }

    saved = b->len;
    gcp_buf_add(b, "\0\0\0\0", 4);

    rc = gcp_protobuf_encode_message(b, set, GCP_PB_DEF_WATCH, ev);
    json_decref(ev);

    if (rc != GCP_OK || b->failed) {
        return gcp_pb_enc_done(b, saved, rc);
    }

    n = b->len - saved - 4;
    p = (unsigned char *) b->data + saved;

    p[0] = (unsigned char) (n >> 24);
    p[1] = (unsigned char) (n >> 16);
    p[2] = (unsigned char) (n >> 8);
    p[3] = (unsigned char) n;

    return GCP_OK;
}


/* The wire writer, for messages the schemas do not describe. */

void
gcp_protobuf_put_varint(gcp_buf_t *b, uint32_t num, uint64_t v)
{
    gcp_pb_put_tag(b, num, GCP_PB_VARINT);
    gcp_pb_put_varint(b, v);
}


void
gcp_protobuf_put_double(gcp_buf_t *b, uint32_t num, double d)
{
    int       i;
    char      tmp[8];
    uint64_t  v;

    memcpy(&v, &d, sizeof(v));

    for (i = 0; i < 8; i++) {
        tmp[i] = (char) (v >> (8 * i));
    }

    gcp_pb_put_tag(b, num, GCP_PB_FIXED64);
    gcp_buf_add(b, tmp, 8);
}


void
gcp_protobuf_put_bytes(gcp_buf_t *b, uint32_t num, const char *p, size_t n)
{
    gcp_pb_put_bytes(b, num, p, n);
}


size_t
gcp_protobuf_open(gcp_buf_t *b, uint32_t num)
{
    return gcp_pb_open(b, num);
}


void
gcp_protobuf_close(gcp_buf_t *b, size_t start)
{
    gcp_pb_close(b, start);
}
