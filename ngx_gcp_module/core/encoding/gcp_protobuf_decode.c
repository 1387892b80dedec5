
/*
 * Protobuf decoding into kube-apiserver's JSON (see gcp_protobuf.h).
 *
 * Two passes: the wire data (read by gcp_protobuf_wire.c) goes into a
 * tree holding only the fields present (repeated fields appended, messages
 * merged, last scalar wins, as gogo-protobuf unmarshals), then that tree
 * is rewritten in Go struct order with Go's JSON rules
 * (gcp_protobuf_json.c).  Errors carry gogo-protobuf's messages.
 */

#include <time.h>

#include "gcp_protobuf_int.h"
#include "gcp_json.h"
#include "gcp_time.h"
#include "gcp_base64.h"


static int gcp_pb_dec_verbs(gcp_pb_ctx_t *ctx, const unsigned char *p,
    size_t n, json_t *arr);


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


/*
 * FieldsV1 / RawExtension / JSON: raw JSON, or for RawExtension a protobuf
 * body.
 */
static int
gcp_pb_dec_raw(gcp_pb_ctx_t *ctx, gcp_pb_kind_t kind,
    const unsigned char *p, size_t n, json_t **out)
{
    int             rc;
    json_t         *v;
    const char     *msg;
    gcp_pb_slot_t   s[1];

    rc = gcp_pb_dec_fixed(ctx, p, n, kind == GCP_PB_RAWEXT ? "RawExtension"
                                     : kind == GCP_PB_JSON ? "JSON"
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
    case GCP_PB_ORARRAY:
    case GCP_PB_ORBOOL:
    case GCP_PB_ORSTRINGS:
        /* a union is read as its message, gcp_pb_fin_message() picks */
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
    case GCP_PB_JSON:
        return gcp_pb_dec_raw(ctx, f->kind, p, n, out);

    case GCP_PB_INTORSTR:
        return gcp_pb_dec_intorstr(ctx, p, n, out);

    case GCP_PB_STRINGS:
        *out = json_array();
        if (*out == NULL) {
            break;
        }

        rc = gcp_pb_dec_verbs(ctx, p, n, *out);
        if (rc != GCP_OK) {
            json_decref(*out);
            *out = NULL;
            return rc;
        }

        break;

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
    double                d;
    uint64_t              v;
    const unsigned char  *p;

    *out = NULL;

    if (f->kind == GCP_PB_DOUBLE) {
        rc = gcp_pb_fixed64(ctx, rd, &v);
        if (rc != GCP_OK) {
            return rc;
        }

        memcpy(&d, &v, sizeof(d));
        *out = gcp_pb_json_double(ctx, d);

        return *out ? GCP_OK : gcp_pb_fail(ctx, ctx->msg);
    }

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


/* Elements of a repeated field: one, or a packed run of scalars. */
static int
gcp_pb_dec_repeated(gcp_pb_ctx_t *ctx, const gcp_pb_field_t *f,
    unsigned wire, gcp_pb_rd_t *rd, json_t *arr)
{
    int          rc;
    size_t       n;
    json_t      *v;
    gcp_pb_rd_t  packed;

    if (wire == GCP_PB_LEN && gcp_pb_wire_type(f->kind) != GCP_PB_LEN) {
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
    gcp_pb_msg_t         *m;
    const unsigned char  *p;

    if (f->card == GCP_PB_REPEATED) {
        c = gcp_pb_container(obj, f, 1);
        return c ? gcp_pb_dec_repeated(ctx, f, wire, rd, c)
                 : gcp_pb_fail(ctx, NULL);
    }

    if (f->inlined) {
        /* an embedded struct: its fields go into obj itself */

        if (wire != GCP_PB_LEN) {
            return gcp_pb_wrong_wire(ctx, wire, f->type_name);
        }

        rc = gcp_pb_bytes(ctx, rd, &p, &n);
        if (rc != GCP_OK) {
            return rc;
        }

        m = gcp_pb_msg(ctx, f->schema, f->type_name);

        return m ? gcp_pb_dec_message(ctx, m, p, n, obj)
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


int
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
