
/*
 * base64 as Go's encoding/base64 (gcp_base64.h).
 */

#include <stdio.h>

#include "gcp_base64.h"


static const char  gcp_b64_std[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char  gcp_b64_url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";


static int
gcp_b64_value(unsigned char c, gcp_base64_mode_t mode)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }

    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }

    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }

    if (mode == GCP_BASE64_STD) {
        return c == '+' ? 62 : c == '/' ? 63 : -1;
    }

    return c == '-' ? 62 : c == '_' ? 63 : -1;
}


#define gcp_b64_nl(c)  ((c) == '\n' || (c) == '\r')


/*
 * decodeQuantum() of Go's encoding/base64: one group of 4 symbols from
 * *si.  Returns the number of bytes written to dst, or -1 with *bad set to
 * the offset Go reports.  *done is set at the end of the input.
 */
static int
gcp_b64_quantum(const unsigned char *src, size_t len, size_t *si,
    gcp_base64_mode_t mode, unsigned char *dst, size_t *bad, int *done)
{
    int       v, j, dlen;
    unsigned  val;
    int       dbuf[4] = { 0, 0, 0, 0 };

    dlen = 4;

    for (j = 0; j < 4; j++) {
        if (*si == len) {
            if (j == 0) {
                *done = 1;
                return 0;
            }

            if (j == 1 || mode == GCP_BASE64_STD) {
                *bad = *si - (size_t) j;
                return -1;
            }

            dlen = j;                   /* no padding: a short group */
            *done = 1;
            break;
        }

        v = gcp_b64_value(src[*si], mode);
        (*si)++;

        if (v >= 0) {
            dbuf[j] = v;
            continue;
        }

        if (gcp_b64_nl(src[*si - 1])) {
            j--;
            continue;
        }

        if (src[*si - 1] != '=' || mode != GCP_BASE64_STD) {
            *bad = *si - 1;
            return -1;
        }

        /* padding */

        switch (j) {
        case 0:
        case 1:
            *bad = *si - 1;
            return -1;

        case 2:
            while (*si < len && gcp_b64_nl(src[*si])) {
                (*si)++;
            }

            if (*si == len) {
                *bad = len;
                return -1;
            }

            if (src[*si] != '=') {
                *bad = *si - 1;
                return -1;
            }

            (*si)++;
        }

        while (*si < len && gcp_b64_nl(src[*si])) {
            (*si)++;
        }

        if (*si < len) {
            *bad = *si;                 /* trailing garbage */
            return -1;
        }

        dlen = j;
        *done = 1;
        break;
    }

    val = (unsigned) dbuf[0] << 18 | (unsigned) dbuf[1] << 12
          | (unsigned) dbuf[2] << 6 | (unsigned) dbuf[3];

    dst[0] = (unsigned char) (val >> 16);
    dst[1] = (unsigned char) (val >> 8);
    dst[2] = (unsigned char) val;

    return dlen - 1;
}


ssize_t
gcp_base64_decode_into(const char *in, size_t len, gcp_base64_mode_t mode,
    char *out, size_t *bad)
{
    int             n, done;
    size_t          si, w, where;
    unsigned char  *dst = (unsigned char *) out;

    si = 0;
    w = 0;
    done = 0;
    where = 0;

    while (si < len && !done) {
        n = gcp_b64_quantum((const unsigned char *) in, len, &si, mode,
                            dst + w, &where, &done);

        if (n < 0) {
            if (bad) {
                *bad = where;
            }

            return -1;
        }

        w += (size_t) n;
    }

    return (ssize_t) w;
}


int
gcp_base64_decode_mode(gcp_arena_t *a, const char *in, size_t len,
    gcp_base64_mode_t mode, gcp_str_t *out, const char **msg)
{
    char     *dst;
    size_t    bad;
    ssize_t   w;

    dst = gcp_alloc(a, GCP_BASE64_DECODED_MAX(len) + 1);
    if (dst == NULL) {
        return GCP_ENOMEM;
    }

    w = gcp_base64_decode_into(in, len, mode, dst, &bad);

    if (w < 0) {
        *msg = gcp_sprintf(a, "illegal base64 data at input byte %zu", bad);
        return *msg ? GCP_EBADREQUEST : GCP_ENOMEM;
    }

    dst[w] = '\0';
    out->data = dst;
    out->len = (size_t) w;

    return GCP_OK;
}


int
gcp_base64_decode(gcp_arena_t *a, const char *in, size_t len,
    gcp_str_t *out, const char **msg)
{
    return gcp_base64_decode_mode(a, in, len, GCP_BASE64_STD, out, msg);
}


void
gcp_base64_encode_buf(gcp_buf_t *b, const char *in, size_t len,
    gcp_base64_mode_t mode)
{
    char                  q[4];
    size_t                i, n;
    unsigned              v;
    const char           *abc;
    const unsigned char  *u = (const unsigned char *) in;

    abc = (mode == GCP_BASE64_STD) ? gcp_b64_std : gcp_b64_url;

    if (gcp_buf_reserve(b, (len + 2) / 3 * 4) != GCP_OK) {
        return;
    }

    for (i = 0; i < len; i += 3) {
        v = (unsigned) u[i] << 16;

        if (i + 1 < len) {
            v |= (unsigned) u[i + 1] << 8;
        }

        if (i + 2 < len) {
            v |= u[i + 2];
        }

        q[0] = abc[v >> 18];
        q[1] = abc[(v >> 12) & 0x3f];
        q[2] = (i + 1 < len) ? abc[(v >> 6) & 0x3f] : '=';
        q[3] = (i + 2 < len) ? abc[v & 0x3f] : '=';

        n = 4;

        if (mode != GCP_BASE64_STD) {
            n = (i + 2 < len) ? 4 : (i + 1 < len) ? 3 : 2;
        }

        gcp_buf_add(b, q, n);
    }
}


gcp_str_t
gcp_base64_encode(gcp_arena_t *a, const char *in, size_t len)
{
    gcp_buf_t   b;
    gcp_str_t   s = gcp_null_string;

    gcp_buf_init(&b, a);
    gcp_base64_encode_buf(&b, in, len, GCP_BASE64_STD);
    gcp_buf_cstr(&b);

    if (gcp_buf_failed(&b)) {
        return s;
    }

    s.data = gcp_strndup(a, b.data, b.len);
    s.len = s.data ? b.len : 0;

    return s;
}
