
/*
 * Reading the protobuf wire format with gogo-protobuf's checks and error
 * messages (see gcp_protobuf_int.h).
 */

#include <math.h>

#include "gcp_protobuf_int.h"
#include "gcp_json.h"


#define GCP_PB_EOF  "unexpected EOF"


int
gcp_pb_fail(gcp_pb_ctx_t *ctx, const char *msg)
{
    ctx->msg = msg;

    return msg ? GCP_EBADREQUEST : GCP_ENOMEM;
}


int
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


int
gcp_pb_fixed64(gcp_pb_ctx_t *ctx, gcp_pb_rd_t *rd, uint64_t *v)
{
    int       i;
    uint64_t  x;

    if (rd->end - rd->p < 8) {
        return gcp_pb_fail(ctx, GCP_PB_EOF);
    }

    x = 0;

    for (i = 7; i >= 0; i--) {
        x = (x << 8) | rd->p[i];
    }

    rd->p += 8;
    *v = x;

    return GCP_OK;
}


/* A length-delimited value: *p, *n point into the data. */
int
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
int
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
int
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
int
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


/* A JSON string of n bytes, invalid UTF-8 replaced by U+FFFD as Go does. */
json_t *
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


json_t *
gcp_pb_json_double(gcp_pb_ctx_t *ctx, double d)
{
    char         buf[32];
    size_t       n;
    json_t      *v;
    const char  *msg;

    if (isnan(d) || isinf(d)) {
        ctx->msg = isnan(d) ? "json: unsupported value: NaN"
                   : d > 0 ? "json: unsupported value: +Inf"
                           : "json: unsupported value: -Inf";
        return NULL;
    }

    n = gcp_json_format_float(d, 'j', buf);

    v = gcp_json_parse(ctx->arena, buf, n, &msg);
    if (v == NULL) {
        ctx->msg = NULL;
        return NULL;
    }

    return json_incref(v);
}


/*
 * Reads a small fixed message (Timestamp, FieldsV1, IntOrString...) whose
 * field i + 1 has wire type wires[i] and Go name names[i].
 */
int
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
            if (rc != GCP_OK) {
                return rc;
            }

            continue;
        }

        if (wire != wires[num - 1]) {
            return gcp_pb_wrong_wire(ctx, wire, names[num - 1]);
        }

        rc = wire == GCP_PB_VARINT
             ? gcp_pb_varint(ctx, &rd, &slots[num - 1].v)
             : gcp_pb_bytes(ctx, &rd, &slots[num - 1].p, &slots[num - 1].n);

        if (rc != GCP_OK) {
            return rc;
        }

        slots[num - 1].seen = 1;
    }

    return GCP_OK;
}
