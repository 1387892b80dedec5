
/*
 * Protobuf decoding into kube-apiserver's JSON (see gcp_protobuf.h).
 *
 * Two passes: the wire data is read into a tree holding only the fields
 * present (repeated fields appended, messages merged, last scalar wins, as
 * gogo-protobuf unmarshals), then that tree is rewritten in Go struct
 * order with Go's JSON rules for absent and zero values.  Errors carry
 * gogo-protobuf's messages.
 */

#include <stdlib.h>
#include <time.h>

#include "gcp_protobuf_int.h"
#include "gcp_json.h"
#include "gcp_object.h"
#include "gcp_time.h"
#include "gcp_validation.h"


#define GCP_PB_ZERO_TIME  (-62135596800LL)
#define GCP_PB_EOF        "unexpected EOF"
#define GCP_PB_SUMMARY    30


typedef struct {
    const unsigned char  *p;
    const unsigned char  *end;
} gcp_pb_rd_t;


typedef struct {
    const char  *key;
    size_t       len;
    json_t      *value;
} gcp_pb_kv_t;


static int gcp_pb_dec_message(gcp_pb_ctx_t *ctx, const gcp_pb_msg_t *m,
    const unsigned char *p, size_t n, json_t *obj);
static int gcp_pb_dec_envelope(gcp_pb_ctx_t *ctx, const unsigned char *p,
    size_t n, json_t **out, gcp_protobuf_error_t *err);
static json_t *gcp_pb_fin_message(gcp_pb_ctx_t *ctx, const gcp_pb_msg_t *m,
    const json_t *raw, json_t *out);


/* ------------------------------------------------------------------ */
/* reading the wire                                                    */

static int
gcp_pb_fail(gcp_pb_ctx_t *ctx, const char *msg)
{
    ctx->msg = msg;

    return msg ? GCP_EBADREQUEST : GCP_ENOMEM;
}


static int
gcp_pb_varint(gcp_pb_ctx_t *ctx, gcp_pb_rd_t *rd, uint64_t *v)
{
    unsigned       shift;
    uint64_t       x;
    unsigned char  c;

    x = 0;

    for (shift = 0; /* void */; shift += 7) {
        if (shift >= 64) {
            return gcp_pb_fail(ctx, "proto: integer overflow");
        }

        if (rd->p >= rd->end) {
            return gcp_pb_fail(ctx, GCP_PB_EOF);
        }

        c = *rd->p++;
        x |= (uint64_t) (c & 0x7f) << shift;

        if (c < 0x80) {
            break;
        }
    }

    *v = x;

    return GCP_OK;
}


/* A length-delimited value: *p, *n point into the data. */
static int
gcp_pb_bytes(gcp_pb_ctx_t *ctx, gcp_pb_rd_t *rd, const unsigned char **p,
    size_t *n)
{
    int       rc;
    uint64_t  len;

    rc = gcp_pb_varint(ctx, rd, &len);
    if (rc != GCP_OK) {
        return rc;
    }

    if ((int64_t) len < 0) {
        return gcp_pb_fail(ctx,
                           "proto: negative length found during unmarshaling");
    }

    if (len > (uint64_t) (rd->end - rd->p)) {
        return gcp_pb_fail(ctx, GCP_PB_EOF);
    }

    *p = rd->p;
    *n = (size_t) len;
    rd->p += len;

    return GCP_OK;
}


static int
gcp_pb_need(gcp_pb_ctx_t *ctx, gcp_pb_rd_t *rd, size_t n)
{
    if (n > (size_t) (rd->end - rd->p)) {
        return gcp_pb_fail(ctx, GCP_PB_EOF);
    }

    rd->p += n;

    return GCP_OK;
}


/* Skips a field whose tag (of wire type wire) was just read. */
static int
gcp_pb_skip(gcp_pb_ctx_t *ctx, gcp_pb_rd_t *rd, unsigned wire)
{
    int                   rc;
    size_t                n;
    uint64_t              v, depth;
    const unsigned char  *p;

    depth = 0;

    for ( ;; ) {
        switch (wire) {
        case GCP_PB_VARINT:
            rc = gcp_pb_varint(ctx, rd, &v);
            break;
        case GCP_PB_FIXED64:
            rc = gcp_pb_need(ctx, rd, 8);
            break;
        case GCP_PB_LEN:
            rc = gcp_pb_bytes(ctx, rd, &p, &n);
            break;
        case GCP_PB_SGROUP:
            depth++;
            rc = GCP_OK;
            break;
        case GCP_PB_EGROUP:
            if (depth == 0) {
                return gcp_pb_fail(ctx, "proto: unexpected end of group");
            }
            depth--;
            rc = GCP_OK;
            break;
        case GCP_PB_FIXED32:
            rc = gcp_pb_need(ctx, rd, 4);
            break;
        default:
            return gcp_pb_fail(ctx, gcp_sprintf(ctx->arena,
                                   "proto: illegal wireType %u", wire));
        }

        if (rc != GCP_OK || depth == 0) {
            return rc;
        }

        rc = gcp_pb_varint(ctx, rd, &v);
        if (rc != GCP_OK) {
            return rc;
        }

        wire = (unsigned) (v & 7);
    }
}


/*
 * Reads the next tag of a message named go_name: *num (Go's int32 field
 * number) and *wire.  Rejects end groups and field numbers below 1.
 */
static int
gcp_pb_tag(gcp_pb_ctx_t *ctx, gcp_pb_rd_t *rd, const char *go_name,
    int32_t *num, unsigned *wire)
{
    int       rc;
    uint64_t  tag;

    rc = gcp_pb_varint(ctx, rd, &tag);
    if (rc != GCP_OK) {
        return rc;
    }

    *num = (int32_t) (uint32_t) (tag >> 3);
    *wire = (unsigned) (tag & 7);

    if (*wire == GCP_PB_EGROUP) {
        return gcp_pb_fail(ctx, gcp_sprintf(ctx->arena, "proto: %s: wiretype "
                                            "end group for non-group",
                                            go_name));
    }

    if (*num <= 0) {
        return gcp_pb_fail(ctx, gcp_sprintf(ctx->arena, "proto: %s: illegal "
                                            "tag %d (wire type %llu)",
                                            go_name, (int) *num,
                                            (unsigned long long) tag));
    }

    return GCP_OK;
}


/* "proto: wrong wireType = 0 for field Data" (Go's field name). */
static int
gcp_pb_wrong_wire(gcp_pb_ctx_t *ctx, unsigned wire, const char *name)
{
    char  *go;

    go = gcp_strdup(ctx->arena, name);
    if (go == NULL) {
        return gcp_pb_fail(ctx, NULL);
    }

    if (go[0] >= 'a' && go[0] <= 'z') {
        go[0] = (char) (go[0] - 'a' + 'A');
    }

    return gcp_pb_fail(ctx, gcp_sprintf(ctx->arena, "proto: wrong wireType "
                                        "= %u for field %s", wire, go));
}


/* ------------------------------------------------------------------ */
/* values                                                              */

/* A JSON string of n bytes, invalid UTF-8 replaced by U+FFFD as Go does. */
static json_t *
gcp_pb_json_string(gcp_pb_ctx_t *ctx, const unsigned char *p, size_t n)
{
    size_t     i, l;
    uint32_t   r;
    gcp_buf_t  b;

    for (i = 0; i < n; i += l) {
        if (p[i] < 0x80) {
            l = 1;
            continue;
        }

        l = gcp_utf8_decode(p + i, n - i, &r);

        if (r == 0xfffd && l == 1) {
            break;
        }
    }

    if (i >= n) {
        return json_stringn_nocheck((const char *) p, n);
    }

    gcp_buf_init(&b, ctx->arena);
    gcp_buf_add(&b, p, i);

    for (/* void */; i < n; i += l) {
        l = gcp_utf8_decode(p + i, n - i, &r);
        gcp_utf8_add(&b, r);
    }

    if (gcp_buf_failed(&b)) {
        return NULL;
    }

    return json_stringn_nocheck(b.data, b.len);
}


/* A nested message of scalar fields: its fields by number, up to 3. */
typedef struct {
    int                   seen;
    uint64_t              v;
    const unsigned char  *p;
    size_t                n;
} gcp_pb_slot_t;


/*
 * Reads a small fixed message (Timestamp, FieldsV1, IntOrString...) whose
 * field i + 1 has wire type wires[i] and Go name names[i].
 */
static int
gcp_pb_dec_fixed(gcp_pb_ctx_t *ctx, const unsigned char *p, size_t n,
    const char *go_name, const unsigned *wires, const char **names,
    size_t nslots, gcp_pb_slot_t *slots)
{
    int          rc;
    int32_t      num;
    unsigned     wire;
    gcp_pb_rd_t  rd;

    memset(slots, 0, nslots * sizeof(gcp_pb_slot_t));

    if (n == 0) {
        return GCP_OK;
    }

    rd.p = p;
    rd.end = p + n;

    while (rd.p < rd.end) {
        rc = gcp_pb_tag(ctx, &rd, go_name, &num, &wire);
        if (rc != GCP_OK) {
            return rc;
        }

        if ((size_t) num > nslots) {
            rc = gcp_pb_skip(ctx, &rd, wire);

        } else if (wire != wires[num - 1]) {
            return gcp_pb_wrong_wire(ctx, wire, names[num - 1]);

        } else if (wire == GCP_PB_VARINT) {
            rc = gcp_pb_varint(ctx, &rd, &slots[num - 1].v);

        } else {
            rc = gcp_pb_bytes(ctx, &rd, &slots[num - 1].p,
                              &slots[num - 1].n);
        }

        if (rc != GCP_OK) {
            return rc;
        }

        slots[num - 1].seen = 1;
    }

    return GCP_OK;
}


static const unsigned    gcp_pb_ts_wires[] = { GCP_PB_VARINT, GCP_PB_VARINT };
static const char       *gcp_pb_ts_names[] = { "Seconds", "Nanos" };
static const unsigned    gcp_pb_raw_wires[] = { GCP_PB_LEN };
static const char       *gcp_pb_raw_names[] = { "Raw" };
static const unsigned    gcp_pb_ios_wires[] = {
    GCP_PB_VARINT, GCP_PB_VARINT, GCP_PB_LEN
};
static const char       *gcp_pb_ios_names[] = { "Type", "IntVal", "StrVal" };
static const unsigned    gcp_pb_qty_wires[] = { GCP_PB_LEN };
static const char       *gcp_pb_qty_names[] = { "String_" };


/* metav1.Time / MicroTime: null for Go's zero time. */
static int
gcp_pb_dec_time(gcp_pb_ctx_t *ctx, gcp_pb_kind_t kind,
    const unsigned char *p, size_t n, json_t **out)
{
    int              rc;
    char             buf[GCP_TIME_BUFSIZE];
    size_t           len;
    int64_t          sec, nsec, carry;
    gcp_pb_slot_t    s[2];
    struct timespec  ts;

    rc = gcp_pb_dec_fixed(ctx, p, n, "Timestamp", gcp_pb_ts_wires,
                          gcp_pb_ts_names, 2, s);
    if (rc != GCP_OK) {
        return rc;
    }

    sec = (int64_t) s[0].v;
    nsec = kind == GCP_PB_MICROTIME ? (int64_t) (int32_t) (uint32_t) s[1].v
                                    : 0;

    /* time.Unix() normalisation; seconds wrap as in Go */
    if (nsec < 0 || nsec >= GCP_NSEC_PER_SEC) {
        carry = nsec / GCP_NSEC_PER_SEC;
        nsec -= carry * GCP_NSEC_PER_SEC;

        if (nsec < 0) {
            nsec += GCP_NSEC_PER_SEC;
            carry--;
        }

        sec = (int64_t) ((uint64_t) sec + (uint64_t) carry);
    }

    if (n == 0 || (sec == GCP_PB_ZERO_TIME && nsec == 0)) {
        *out = json_null();
        return GCP_OK;
    }

    ts.tv_sec = (time_t) sec;
    ts.tv_nsec = (long) nsec;

    len = kind == GCP_PB_MICROTIME ? gcp_time_format_micro(buf, &ts)
                                   : gcp_time_format(buf, ts.tv_sec);

    *out = json_stringn_nocheck(buf, len);

    return *out ? GCP_OK : gcp_pb_fail(ctx, NULL);
}


/* FieldsV1 / RawExtension: raw JSON, or for RawExtension a protobuf body. */
static int
gcp_pb_dec_raw(gcp_pb_ctx_t *ctx, gcp_pb_kind_t kind,
    const unsigned char *p, size_t n, json_t **out)
{
    int             rc;
    json_t         *v;
    const char     *msg;
    gcp_pb_slot_t   s[1];

    rc = gcp_pb_dec_fixed(ctx, p, n, kind == GCP_PB_RAWEXT ? "RawExtension"
                                                            : "FieldsV1",
                          gcp_pb_raw_wires, gcp_pb_raw_names, 1, s);
    if (rc != GCP_OK) {
        return rc;
    }

    if (!s[0].seen || s[0].n == 0) {
        *out = json_null();
        return GCP_OK;
    }

    if (kind == GCP_PB_RAWEXT && s[0].n >= GCP_PROTOBUF_MAGIC_LEN
        && memcmp(s[0].p, GCP_PROTOBUF_MAGIC, GCP_PROTOBUF_MAGIC_LEN) == 0)
    {
        return gcp_pb_dec_envelope(ctx, s[0].p, s[0].n, out, NULL);
    }

    v = gcp_json_parse(ctx->arena, (const char *) s[0].p, s[0].n, &msg);
    if (v == NULL) {
        return gcp_pb_fail(ctx, msg);
    }

    *out = json_incref(v);

    return GCP_OK;
}


static int
gcp_pb_dec_intorstr(gcp_pb_ctx_t *ctx, const unsigned char *p, size_t n,
    json_t **out)
{
    int             rc;
    gcp_pb_slot_t   s[3];

    rc = gcp_pb_dec_fixed(ctx, p, n, "IntOrString", gcp_pb_ios_wires,
                          gcp_pb_ios_names, 3, s);
    if (rc != GCP_OK) {
        return rc;
    }

    switch ((int64_t) s[0].v) {
    case 0:
        *out = json_integer((int32_t) (uint32_t) s[1].v);
        break;
    case 1:
        *out = gcp_pb_json_string(ctx, s[2].p, s[2].n);
        break;
    default:
        return gcp_pb_fail(ctx, "impossible IntOrString.Type");
    }

    return *out ? GCP_OK : gcp_pb_fail(ctx, NULL);
}


static int
gcp_pb_dec_quantity(gcp_pb_ctx_t *ctx, const unsigned char *p, size_t n,
    json_t **out)
{
    int             rc;
    gcp_pb_slot_t   s[1];

    rc = gcp_pb_dec_fixed(ctx, p, n, "Quantity", gcp_pb_qty_wires,
                          gcp_pb_qty_names, 1, s);
    if (rc != GCP_OK) {
        return rc;
    }

    *out = s[0].seen && s[0].n ? gcp_pb_json_string(ctx, s[0].p, s[0].n)
                               : json_string("0");

    return *out ? GCP_OK : gcp_pb_fail(ctx, NULL);
}


/* A length-delimited value of f's kind (not a scalar varint). */
static int
gcp_pb_dec_len_value(gcp_pb_ctx_t *ctx, const gcp_pb_field_t *f,
    const unsigned char *p, size_t n, json_t *prev, json_t **out)
{
    int                  rc;
    gcp_str_t            s;
    const gcp_pb_msg_t  *m;

    switch (f->kind) {

    case GCP_PB_STRING:
        *out = gcp_pb_json_string(ctx, p, n);
        break;

    case GCP_PB_BYTES:
        s = gcp_base64_encode(ctx->arena, (const char *) p, n);
        *out = s.data ? json_stringn_nocheck(s.data, s.len) : NULL;
        break;

    case GCP_PB_MESSAGE:
        m = gcp_pb_msg(ctx, f->schema, f->type_name);
        if (m == NULL) {
            return gcp_pb_fail(ctx, NULL);
        }

        /* a repeated occurrence of a message field merges into it */
        *out = json_is_object(prev) ? json_incref(prev) : json_object();
        if (*out == NULL) {
            break;
        }

        rc = gcp_pb_dec_message(ctx, m, p, n, *out);
        if (rc != GCP_OK) {
            json_decref(*out);
            *out = NULL;
            return rc;
        }

        break;

    case GCP_PB_TIME:
    case GCP_PB_MICROTIME:
        return gcp_pb_dec_time(ctx, f->kind, p, n, out);

    case GCP_PB_FIELDSV1:
    case GCP_PB_RAWEXT:
        return gcp_pb_dec_raw(ctx, f->kind, p, n, out);

    case GCP_PB_INTORSTR:
        return gcp_pb_dec_intorstr(ctx, p, n, out);

    default: /* GCP_PB_QUANTITY */
        return gcp_pb_dec_quantity(ctx, p, n, out);
    }

    return *out ? GCP_OK : gcp_pb_fail(ctx, NULL);
}


/*
 * Reads one value of field f (wire type already checked) into *out, a new
 * reference; prev is the value already held, for messages to merge into.
 */
static int
gcp_pb_dec_value(gcp_pb_ctx_t *ctx, const gcp_pb_field_t *f, gcp_pb_rd_t *rd,
    json_t *prev, json_t **out)
{
    int                   rc;
    size_t                n;
    uint64_t              v;
    const unsigned char  *p;

    *out = NULL;

    if (gcp_pb_wire_type(f->kind) == GCP_PB_VARINT) {
        rc = gcp_pb_varint(ctx, rd, &v);
        if (rc != GCP_OK) {
            return rc;
        }

        switch (f->kind) {
        case GCP_PB_INT32:
            *out = json_integer((int32_t) (uint32_t) v);
            break;
        case GCP_PB_INT64:
            *out = json_integer((json_int_t) (int64_t) v);
            break;
        default:
            *out = json_boolean(v != 0);
        }

        return *out ? GCP_OK : gcp_pb_fail(ctx, NULL);
    }

    rc = gcp_pb_bytes(ctx, rd, &p, &n);
    if (rc != GCP_OK) {
        return rc;
    }

    return gcp_pb_dec_len_value(ctx, f, p, n, prev, out);
}


/* The zero value of a map value that is absent from its entry. */
static json_t *
gcp_pb_zero_value(const gcp_pb_field_t *f)
{
    switch (f->kind) {
    case GCP_PB_STRING:
    case GCP_PB_BYTES:
        return json_string("");
    case GCP_PB_INT32:
    case GCP_PB_INT64:
    case GCP_PB_INTORSTR:
        return json_integer(0);
    case GCP_PB_BOOL:
        return json_false();
    case GCP_PB_MESSAGE:
        return json_object();
    case GCP_PB_QUANTITY:
        return json_string("0");
    default:
        return json_null();
    }
}


/* Returns obj[f->name] as a container of type want, created if absent. */
static json_t *
gcp_pb_container(json_t *obj, const gcp_pb_field_t *f, int want_array)
{
    json_t  *c;

    c = json_object_getn(obj, f->name, f->name_len);

    if (want_array ? json_is_array(c) : json_is_object(c)) {
        return c;
    }

    c = want_array ? json_array() : json_object();

    if (c == NULL
        || json_object_setn_new_nocheck(obj, f->name, f->name_len, c) != 0)
    {
        return NULL;
    }

    return c;
}


/* One map entry {key 1, value 2}: last key wins. */
static int
gcp_pb_dec_entry(gcp_pb_ctx_t *ctx, const gcp_pb_field_t *f,
    const unsigned char *p, size_t n, json_t *map)
{
    int                   rc;
    size_t                kn;
    int32_t               num;
    json_t               *key, *value, *v;
    unsigned              wire;
    gcp_pb_rd_t           rd;
    const unsigned char  *kp;

    rd.p = p;
    rd.end = p + n;
    kp = (const unsigned char *) "";
    kn = 0;
    value = NULL;
    rc = GCP_OK;

    while (rd.p < rd.end && rc == GCP_OK) {
        rc = gcp_pb_tag(ctx, &rd, "MapEntry", &num, &wire);
        if (rc != GCP_OK) {
            break;
        }

        if (num == 1) {
            rc = wire == GCP_PB_LEN ? gcp_pb_bytes(ctx, &rd, &kp, &kn)
                                    : gcp_pb_wrong_wire(ctx, wire, "Key");

        } else if (num == 2) {
            if (wire != (unsigned) gcp_pb_wire_type(f->kind)) {
                rc = gcp_pb_wrong_wire(ctx, wire, "Value");
                break;
            }

            rc = gcp_pb_dec_value(ctx, f, &rd, NULL, &v);
            json_decref(value);
            value = v;

        } else {
            rc = gcp_pb_skip(ctx, &rd, wire);
        }
    }

    if (rc == GCP_OK && value == NULL) {
        value = gcp_pb_zero_value(f);
        rc = value ? GCP_OK : gcp_pb_fail(ctx, NULL);
    }

    if (rc != GCP_OK) {
        json_decref(value);
        return rc;
    }

    key = gcp_pb_json_string(ctx, kp, kn);

    if (key == NULL
        || json_object_setn_new_nocheck(map, json_string_value(key),
                                        json_string_length(key), value) != 0)
    {
        json_decref(key);
        return gcp_pb_fail(ctx, NULL);
    }

    json_decref(key);

    return GCP_OK;
}


/* Verbs{items 1}: the strings are appended to arr. */
static int
gcp_pb_dec_verbs(gcp_pb_ctx_t *ctx, const unsigned char *p, size_t n,
    json_t *arr)
{
    int                   rc;
    size_t                sn;
    int32_t               num;
    unsigned              wire;
    gcp_pb_rd_t           rd;
    const unsigned char  *sp;

    rd.p = p;
    rd.end = p + n;

    while (rd.p < rd.end) {
        rc = gcp_pb_tag(ctx, &rd, "Verbs", &num, &wire);
        if (rc != GCP_OK) {
            return rc;
        }

        if (num != 1) {
            rc = gcp_pb_skip(ctx, &rd, wire);

        } else if (wire != GCP_PB_LEN) {
            return gcp_pb_wrong_wire(ctx, wire, "Items");

        } else {
            rc = gcp_pb_bytes(ctx, &rd, &sp, &sn);

            if (rc == GCP_OK
                && json_array_append_new(arr, gcp_pb_json_string(ctx, sp, sn))
                   != 0)
            {
                rc = gcp_pb_fail(ctx, NULL);
            }
        }

        if (rc != GCP_OK) {
            return rc;
        }
    }

    return GCP_OK;
}


/* Elements of a repeated field: one, or a packed run of varints. */
static int
gcp_pb_dec_repeated(gcp_pb_ctx_t *ctx, const gcp_pb_field_t *f,
    unsigned wire, gcp_pb_rd_t *rd, json_t *arr)
{
    int          rc;
    size_t       n;
    json_t      *v;
    gcp_pb_rd_t  packed;

    if (wire == GCP_PB_LEN && gcp_pb_wire_type(f->kind) == GCP_PB_VARINT) {
        rc = gcp_pb_bytes(ctx, rd, &packed.p, &n);
        if (rc != GCP_OK) {
            return rc;
        }

        packed.end = packed.p + n;

        while (packed.p < packed.end) {
            rc = gcp_pb_dec_value(ctx, f, &packed, NULL, &v);

            if (rc == GCP_OK && json_array_append_new(arr, v) != 0) {
                rc = gcp_pb_fail(ctx, NULL);
            }

            if (rc != GCP_OK) {
                return rc;
            }
        }

        return GCP_OK;
    }

    if (wire != (unsigned) gcp_pb_wire_type(f->kind)) {
        return gcp_pb_wrong_wire(ctx, wire, f->name);
    }

    rc = gcp_pb_dec_value(ctx, f, rd, NULL, &v);

    if (rc == GCP_OK && json_array_append_new(arr, v) != 0) {
        rc = gcp_pb_fail(ctx, NULL);
    }

    return rc;
}


static int
gcp_pb_dec_field(gcp_pb_ctx_t *ctx, const gcp_pb_field_t *f, unsigned wire,
    gcp_pb_rd_t *rd, json_t *obj)
{
    int                   rc;
    size_t                n;
    json_t               *c, *v;
    const unsigned char  *p;

    if (f->card == GCP_PB_REPEATED) {
        c = gcp_pb_container(obj, f, 1);
        return c ? gcp_pb_dec_repeated(ctx, f, wire, rd, c)
                 : gcp_pb_fail(ctx, NULL);
    }

    if (f->card == GCP_PB_SINGLE) {
        if (wire != (unsigned) gcp_pb_wire_type(f->kind)) {
            return gcp_pb_wrong_wire(ctx, wire, f->name);
        }

        rc = gcp_pb_dec_value(ctx, f, rd,
                              json_object_getn(obj, f->name, f->name_len),
                              &v);
        if (rc != GCP_OK) {
            return rc;
        }

        return json_object_setn_new_nocheck(obj, f->name, f->name_len, v)
               == 0 ? GCP_OK : gcp_pb_fail(ctx, NULL);
    }

    /* maps and verbs are length-delimited messages */

    if (wire != GCP_PB_LEN) {
        return gcp_pb_wrong_wire(ctx, wire, f->name);
    }

    rc = gcp_pb_bytes(ctx, rd, &p, &n);
    if (rc != GCP_OK) {
        return rc;
    }

    c = gcp_pb_container(obj, f, f->card == GCP_PB_VERBS);
    if (c == NULL) {
        return gcp_pb_fail(ctx, NULL);
    }

    return f->card == GCP_PB_VERBS ? gcp_pb_dec_verbs(ctx, p, n, c)
                                   : gcp_pb_dec_entry(ctx, f, p, n, c);
}


/* Reads the fields of message m present in p into obj. */
static int
gcp_pb_dec_message(gcp_pb_ctx_t *ctx, const gcp_pb_msg_t *m,
    const unsigned char *p, size_t n, json_t *obj)
{
    int                    rc;
    int32_t                num;
    unsigned               wire;
    gcp_pb_rd_t            rd;
    const gcp_pb_field_t  *f;

    if (++ctx->depth > GCP_PROTOBUF_MAX_DEPTH) {
        return gcp_pb_fail(ctx, "proto: exceeded maximum nesting depth");
    }

    if (n == 0) {
        ctx->depth--;
        return GCP_OK;
    }

    rd.p = p;
    rd.end = p + n;

    while (rd.p < rd.end) {
        rc = gcp_pb_tag(ctx, &rd, m->go_name, &num, &wire);
        if (rc != GCP_OK) {
            return rc;
        }

        f = gcp_pb_field(m, (uint64_t) num);

        rc = f ? gcp_pb_dec_field(ctx, f, wire, &rd, obj)
               : gcp_pb_skip(ctx, &rd, wire);
        if (rc != GCP_OK) {
            return rc;
        }
    }

    ctx->depth--;

    return GCP_OK;
}


/* ------------------------------------------------------------------ */
/* Go's JSON of the decoded fields                                     */

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
    const gcp_pb_msg_t  *m;

    if (f->kind != GCP_PB_MESSAGE) {
        return json_incref(v);
    }

    m = gcp_pb_msg(ctx, f->schema, f->type_name);

    return m ? gcp_pb_fin_message(ctx, m, v, NULL) : NULL;
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


/* A map with its keys sorted, as encoding/json writes maps. */
static json_t *
gcp_pb_fin_map(gcp_pb_ctx_t *ctx, const gcp_pb_field_t *f, json_t *map)
{
    void         *it;
    size_t        i, n;
    json_t       *out, *v;
    gcp_pb_kv_t  *kv;

    n = json_object_size(map);
    out = json_object();
    kv = malloc((n + 1) * sizeof(gcp_pb_kv_t));

    if (out == NULL || kv == NULL) {
        goto failed;
    }

    i = 0;

    for (it = json_object_iter(map); it && i < n;
         it = json_object_iter_next(map, it))
    {
        kv[i].key = json_object_iter_key(it);
        kv[i].len = json_object_iter_key_len(it);
        kv[i].value = json_object_iter_value(it);
        i++;
    }

    n = i;
    qsort(kv, n, sizeof(gcp_pb_kv_t), gcp_pb_kv_cmp);

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
        return gcp_pb_fin_value(ctx, f, v);
    case GCP_PB_TIME:
    case GCP_PB_MICROTIME:
    case GCP_PB_FIELDSV1:
    case GCP_PB_RAWEXT:
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
static json_t *
gcp_pb_fin_message(gcp_pb_ctx_t *ctx, const gcp_pb_msg_t *m,
    const json_t *raw, json_t *out)
{
    int                    omit;
    size_t                 i;
    json_t                *v, *r;
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


/* ------------------------------------------------------------------ */
/* the envelope                                                        */

static const unsigned    gcp_pb_tm_wires[] = { GCP_PB_LEN, GCP_PB_LEN };
static const char       *gcp_pb_tm_names[] = { "APIVersion", "Kind" };
static const unsigned    gcp_pb_unk_wires[] = {
    GCP_PB_LEN, GCP_PB_LEN, GCP_PB_LEN, GCP_PB_LEN
};
static const char       *gcp_pb_unk_names[] = {
    "TypeMeta", "Raw", "ContentEncoding", "ContentType"
};


/* Go's %#v of runtime.TypeMeta{APIVersion, Kind}. */
static const char *
gcp_pb_typemeta_str(gcp_pb_ctx_t *ctx, const char *av, const char *kind)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, ctx->arena);
    gcp_buf_addstr(&b, "runtime.TypeMeta{APIVersion:");
    gcp_json_add_string(&b, av, strlen(av));
    gcp_buf_addstr(&b, ", Kind:");
    gcp_json_add_string(&b, kind, strlen(kind));
    gcp_buf_addc(&b, '}');

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}


/* A Go string from the wire as a C string (NUL bytes cut it short). */
static const char *
gcp_pb_cstr(gcp_pb_ctx_t *ctx, const gcp_pb_slot_t *s)
{
    json_t      *j;
    const char  *r;

    if (!s->seen || s->n == 0) {
        return "";
    }

    j = gcp_pb_json_string(ctx, s->p, s->n);
    r = j ? gcp_strdup(ctx->arena, json_string_value(j)) : NULL;
    json_decref(j);

    return r;
}


static int
gcp_pb_dec_envelope(gcp_pb_ctx_t *ctx, const unsigned char *p, size_t n,
    json_t **out, gcp_protobuf_error_t *err)
{
    int             rc;
    json_t         *tree, *obj;
    const char     *av, *kind, *group, *version, *def;
    gcp_pb_msg_t   *m;
    gcp_pb_slot_t   unk[4], tm[2];

    if (n == 0) {
        return gcp_pb_fail(ctx, "empty data");
    }

    if (n < GCP_PROTOBUF_MAGIC_LEN
        || memcmp(p, GCP_PROTOBUF_MAGIC, GCP_PROTOBUF_MAGIC_LEN) != 0)
    {
        return gcp_pb_fail(ctx, "provided data does not appear to be a "
                           "protobuf message, expected prefix "
                           "[107 56 115 0]");
    }

    if (n == GCP_PROTOBUF_MAGIC_LEN) {
        return gcp_pb_fail(ctx, "empty body");
    }

    if (++ctx->depth > GCP_PROTOBUF_MAX_DEPTH) {
        return gcp_pb_fail(ctx, "proto: exceeded maximum nesting depth");
    }

    rc = gcp_pb_dec_fixed(ctx, p + GCP_PROTOBUF_MAGIC_LEN,
                          n - GCP_PROTOBUF_MAGIC_LEN, "Unknown",
                          gcp_pb_unk_wires, gcp_pb_unk_names, 4, unk);
    if (rc != GCP_OK) {
        return rc;
    }

    rc = gcp_pb_dec_fixed(ctx, unk[0].p, unk[0].n, "TypeMeta",
                          gcp_pb_tm_wires, gcp_pb_tm_names, 2, tm);
    if (rc != GCP_OK) {
        return rc;
    }

    av = gcp_pb_cstr(ctx, &tm[0]);
    kind = gcp_pb_cstr(ctx, &tm[1]);

    if (av == NULL || kind == NULL) {
        return gcp_pb_fail(ctx, NULL);
    }

    if (kind[0] == '\0') {
        return gcp_pb_fail(ctx, gcp_sprintf(ctx->arena, "Object 'Kind' is "
                               "missing in '%s'",
                               gcp_pb_typemeta_str(ctx, av, kind)));
    }

    if (err) {
        err->kind = kind;
        err->api_version = av;
    }

    /* schema.FromAPIVersionAndKind: a bad group/version is no version */
    rc = gcp_pb_parse_api_version(ctx->arena, av, &group, &version);
    if (rc == GCP_ENOMEM) {
        return gcp_pb_fail(ctx, NULL);
    }

    if (rc != GCP_OK || version[0] == '\0') {
        return gcp_pb_fail(ctx, gcp_sprintf(ctx->arena, "Object 'apiVersion' "
                               "is missing in '%s'",
                               gcp_pb_typemeta_str(ctx, av, kind)));
    }

    def = gcp_schema_find_gvk(ctx->set, group, version, kind);

    if (def == NULL) {
        return gcp_pb_fail(ctx, gcp_sprintf(ctx->arena, "no kind \"%s\" is "
                               "registered for version \"%s\" in scheme "
                               "\"pkg/api/legacyscheme/scheme.go:30\"",
                               kind, av));
    }

    if (!gcp_protobuf_capable(ctx->set, def)) {
        ctx->msg = gcp_sprintf(ctx->arena, "%s has no protobuf encoding",
                               kind);
        return ctx->msg ? GCP_EMEDIATYPE : GCP_ENOMEM;
    }

    m = gcp_pb_msg_def(ctx, def);
    tree = json_object();

    if (m == NULL || tree == NULL) {
        json_decref(tree);
        return gcp_pb_fail(ctx, NULL);
    }

    rc = gcp_pb_dec_message(ctx, m, unk[1].p, unk[1].n, tree);

    if (rc == GCP_OK) {
        obj = json_object();

        if (obj == NULL
            || json_object_set_new(obj, "kind", json_string(kind)) != 0
            || json_object_set_new(obj, "apiVersion", json_string(av)) != 0
            || gcp_pb_fin_message(ctx, m, tree, obj) == NULL)
        {
            json_decref(obj);
            rc = gcp_pb_fail(ctx, NULL);

        } else {
            json_decref(obj);   /* fin_message returned a reference */
            *out = obj;
        }
    }

    json_decref(tree);
    ctx->depth--;

    return rc;
}


/* ------------------------------------------------------------------ */
/* entry points                                                        */

/* upstream's summarizeData(data, 30) */
static const char *
gcp_pb_summary(gcp_arena_t *a, const unsigned char *p, size_t n)
{
    size_t      i, m;
    gcp_buf_t   b;

    if (n == 0) {
        return "<empty>";
    }

    m = gcp_min(n, GCP_PB_SUMMARY);
    gcp_buf_init(&b, a);

    if (p[0] == '{') {
        gcp_buf_add(&b, p, m);

    } else {
        for (i = 0; i < m; i++) {
            gcp_buf_printf(&b, "%02x", p[i]);
        }
    }

    if (n > m) {
        gcp_buf_addstr(&b, " ...");
    }

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}


static void
gcp_pb_ctx_init(gcp_pb_ctx_t *ctx, gcp_arena_t *a,
    const gcp_schema_set_t *set)
{
    memset(ctx, 0, sizeof(gcp_pb_ctx_t));
    ctx->arena = a;
    ctx->set = set;
}


int
gcp_protobuf_decode_ex(gcp_arena_t *a, const gcp_schema_set_t *set,
    const char *data, size_t len, json_t **out, gcp_protobuf_error_t *err)
{
    int            rc;
    json_t        *obj;
    gcp_pb_ctx_t   ctx;

    gcp_pb_ctx_init(&ctx, a, set);

    if (err) {
        memset(err, 0, sizeof(gcp_protobuf_error_t));
    }

    obj = NULL;
    rc = gcp_pb_dec_envelope(&ctx, (const unsigned char *) data, len, &obj,
                             err);

    if (rc == GCP_OK) {
        if (gcp_json_arena(a, obj) == NULL) {
            return GCP_ENOMEM;
        }

        *out = obj;
        return GCP_OK;
    }

    if (err) {
        err->msg = ctx.msg ? ctx.msg : "out of memory";
        err->summary = gcp_pb_summary(a, (const unsigned char *) data, len);
    }

    return ctx.msg ? rc : GCP_ENOMEM;
}


int
gcp_protobuf_decode(gcp_arena_t *a, const gcp_schema_set_t *set,
    const char *data, size_t len, json_t **out, const char **msg)
{
    int                   rc;
    gcp_protobuf_error_t  err;

    rc = gcp_protobuf_decode_ex(a, set, data, len, out, &err);

    if (rc != GCP_OK && msg) {
        *msg = err.msg;
    }

    return rc;
}


int
gcp_protobuf_decode_message(gcp_arena_t *a, const gcp_schema_set_t *set,
    const char *def, const char *data, size_t len, json_t **out,
    const char **msg)
{
    int            rc;
    json_t        *tree, *obj;
    gcp_pb_msg_t  *m;
    gcp_pb_ctx_t   ctx;

    gcp_pb_ctx_init(&ctx, a, set);

    if (!gcp_protobuf_capable(set, def)) {
        if (msg) {
            *msg = "no protobuf message for this definition";
        }

        return GCP_EBADREQUEST;
    }

    m = gcp_pb_msg_def(&ctx, def);
    tree = gcp_json_arena(a, json_object());

    if (m == NULL || tree == NULL) {
        rc = gcp_pb_fail(&ctx, NULL);

    } else {
        rc = gcp_pb_dec_message(&ctx, m, (const unsigned char *) data, len,
                                tree);
    }

    if (rc == GCP_OK) {
        obj = gcp_json_arena(a, gcp_pb_fin_message(&ctx, m, tree, NULL));
        if (obj == NULL) {
            rc = gcp_pb_fail(&ctx, NULL);

        } else {
            *out = obj;
            return GCP_OK;
        }
    }

    if (msg) {
        *msg = ctx.msg ? ctx.msg : "out of memory";
    }

    return ctx.msg ? rc : GCP_ENOMEM;
}
