
/*
 * Serialising JSON byte for byte as Go's json.Marshal and
 * json.MarshalIndent do, float64 formatting included (see gcp_json.h).
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_json_int.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif


/*
 * Sets digits (NUL-terminated, no trailing zeros) and *dp (the decimal
 * point position: v = 0.digits * 10^dp) of the shortest decimal that reads
 * back as v, as Go's strconv does; bits 32: as a float32 (v is one).  v is
 * finite and not zero.
 */
static size_t
gcp_json_shortest(double v, int bits, char *digits, int *dp)
{
    int     prec;
    char    tmp[40], *e;
    size_t  nd, i;

    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, fabs(v));

        if (bits == 32 ? (float) strtod(tmp, NULL) == (float) fabs(v)
                       : strtod(tmp, NULL) == fabs(v))
        {
            break;
        }
    }

    nd = 0;

    for (i = 0; tmp[i] != 'e'; i++) {
        if (tmp[i] != '.') {
            digits[nd++] = tmp[i];
        }
    }

    e = &tmp[i + 1];
    *dp = atoi(e) + 1;

    while (nd > 1 && digits[nd - 1] == '0') {
        nd--;
    }

    digits[nd] = '\0';

    return nd;
}


static size_t gcp_json_format_bits(double v, int fmt, int bits, char *buf);


size_t
gcp_json_format_float(double v, int fmt, char *buf)
{
    return gcp_json_format_bits(v, fmt, 64, buf);
}


size_t
gcp_json_format_float32(double v, char *buf)
{
    if (isnan(v)) {
        return (size_t) sprintf(buf, "NaN");
    }

    if (isinf((float) v)) {
        return (size_t) sprintf(buf, "%sInf", v < 0 ? "-" : "+");
    }

    return gcp_json_format_bits((float) v, 'g', 32, buf);
}


static size_t
gcp_json_format_bits(double v, int fmt, int bits, char *buf)
{
    int      dp, exp, efmt, i;
    char     digits[24], *p;
    size_t   nd, k;
    double   abs;

    p = buf;
    abs = fabs(v);

    if (signbit(v)) {
        *p++ = '-';
    }

    if (abs == 0) {
        *p++ = '0';
        *p = '\0';
        return (size_t) (p - buf);
    }

    nd = gcp_json_shortest(v, bits, digits, &dp);
    exp = dp - 1;

    if (fmt == 'g') {
        efmt = (exp < -4 || exp >= 6);

    } else {
        efmt = (abs < 1e-6 || abs >= 1e21);
    }

    if (efmt) {
        *p++ = digits[0];

        if (nd > 1) {
            *p++ = '.';
            memcpy(p, digits + 1, nd - 1);
            p += nd - 1;
        }

        *p++ = 'e';
        *p++ = (exp < 0) ? '-' : '+';

        if (exp < 0) {
            exp = -exp;
        }

        /* Go writes two exponent digits; encoding/json trims "e-07" */

        if (exp < 10 && !(fmt != 'g' && *(p - 1) == '-')) {
            *p++ = '0';
        }

        p += sprintf(p, "%d", exp);
        *p = '\0';

        return (size_t) (p - buf);
    }

    /* 'f' with the shortest digits */

    if (dp <= 0) {
        *p++ = '0';

    } else {
        for (i = 0; i < dp; i++) {
            *p++ = ((size_t) i < nd) ? digits[i] : '0';
        }
    }

    if ((int) nd > dp) {
        *p++ = '.';

        for (i = dp; i < (int) nd; i++) {
            k = (size_t) i;
            *p++ = (i < 0) ? '0' : digits[k];
        }
    }

    *p = '\0';

    return (size_t) (p - buf);
}


/*
 * What a string's byte needs in Go's encoding: 0 nothing (copied as it
 * is), 1 an escape, 2 a look at its UTF-8 sequence.
 */
static const unsigned char  gcp_json_byte_class[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};


/*
 * Returns the index of the first byte of s from i on (or len) that is not
 * copied as it is: sixteen at a time where SSE2 is (x86-64 always).
 */
static size_t
gcp_json_plain_run(const unsigned char *s, size_t i, size_t len)
{
#if defined(__SSE2__)
    int      mask;
    __m128i  v, m;

    while (i + 16 <= len) {
        v = _mm_loadu_si128((const __m128i *) (s + i));

        /* signed: below 0x20, and 0x80 and up (UTF-8) */
        m = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
        m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
        m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
        m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('<')));
        m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('>')));
        m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('&')));

        mask = _mm_movemask_epi8(m);

        if (mask) {
            return i + (size_t) __builtin_ctz((unsigned) mask);
        }

        i += 16;
    }
#endif

    while (i < len && gcp_json_byte_class[s[i]] == 0) {
        i++;
    }

    return i;
}


void
gcp_json_add_string(gcp_buf_t *b, const char *s, size_t len)
{
    size_t          i, start, n;
    uint32_t        r;
    unsigned char   c;
    char            esc[8];

    static const char  hex[] = "0123456789abcdef";

    gcp_buf_addc(b, '"');

    start = 0;
    i = 0;

    while (i < len) {
        i = gcp_json_plain_run((const unsigned char *) s, i, len);

        if (i == len) {
            break;
        }

        c = (unsigned char) s[i];

        if (c < 0x80) {

            gcp_buf_add(b, s + start, i - start);

            switch (c) {
            case '"':  gcp_buf_add(b, "\\\"", 2); break;
            case '\\': gcp_buf_add(b, "\\\\", 2); break;
            case '\b': gcp_buf_add(b, "\\b", 2); break;
            case '\f': gcp_buf_add(b, "\\f", 2); break;
            case '\n': gcp_buf_add(b, "\\n", 2); break;
            case '\r': gcp_buf_add(b, "\\r", 2); break;
            case '\t': gcp_buf_add(b, "\\t", 2); break;
            default:
                esc[0] = '\\';
                esc[1] = 'u';
                esc[2] = '0';
                esc[3] = '0';
                esc[4] = hex[c >> 4];
                esc[5] = hex[c & 0xf];
                gcp_buf_add(b, esc, 6);
            }

            i++;
            start = i;
            continue;
        }

        n = gcp_utf8_decode((const unsigned char *) s + i, len - i, &r);

        if ((r == 0xfffd && n == 1) || r == 0x2028 || r == 0x2029) {
            gcp_buf_add(b, s + start, i - start);

            if (n == 1) {
                gcp_buf_add(b, "\\ufffd", 6);

            } else {
                gcp_buf_add(b, r == 0x2028 ? "\\u2028" : "\\u2029", 6);
            }

            start = i + n;
        }

        i += n;
    }

    gcp_buf_add(b, s + start, len - start);
    gcp_buf_addc(b, '"');
}


static void
gcp_json_add_scalar(gcp_buf_t *b, const json_t *v)
{
    size_t  n;
    char    num[40];

    switch (json_typeof(v)) {

    case JSON_STRING:
        gcp_json_add_string(b, json_string_value(v), json_string_length(v));
        break;

    case JSON_INTEGER:
        gcp_buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;

    case JSON_REAL:
        n = gcp_json_format_float(json_real_value(v), 'j', num);
        gcp_buf_add(b, num, n);
        break;

    case JSON_TRUE:
        gcp_buf_add(b, "true", 4);
        break;

    case JSON_FALSE:
        gcp_buf_add(b, "false", 5);
        break;

    default:
        gcp_buf_add(b, "null", 4);
    }
}


typedef struct {
    const json_t       *node;
    void               *iter;       /* objects: the next member */
    gcp_json_member_t  *members;    /* sorted: the object's, in order */
    size_t              index;      /* arrays, sorted objects: the next */
    size_t              count;      /* members written */
} gcp_jdump_frame_t;


static void
gcp_json_newline(gcp_buf_t *b, size_t depth)
{
    size_t  i;

    gcp_buf_addc(b, '\n');

    for (i = 0; i < depth; i++) {
        gcp_buf_add(b, "  ", 2);
    }
}


/* Starts writing an object's members (f->members: in key order). */

static int
gcp_json_dump_open(gcp_jdump_frame_t *f, const json_t *obj, int sorted)
{
    f->members = NULL;
    f->iter = NULL;

    if (!sorted) {
        f->iter = json_object_iter((json_t *) obj);
        return GCP_OK;
    }

    f->members = malloc(json_object_size(obj) * sizeof(gcp_json_member_t));
    if (f->members == NULL) {
        return GCP_ENOMEM;
    }

    (void) gcp_json_members_sorted(obj, f->members);

    return GCP_OK;
}


static void
gcp_json_dump_run(gcp_buf_t *b, const json_t *v, int pretty, int sorted)
{
    void               *iter;
    size_t              depth, cap;
    const char         *key;
    const json_t       *next;
    gcp_jdump_frame_t  *stack, *f, *ns;
    gcp_jdump_frame_t   frames[16];     /* the usual depths: no malloc */

    stack = frames;
    depth = 0;
    cap = gcp_nelems(frames);
    next = v;

    for ( ;; ) {

        if (next != NULL) {
            if ((json_is_object(next) && json_object_size(next) != 0)
                || (json_is_array(next) && json_array_size(next) != 0))
            {
                if (depth == cap) {
                    cap *= 2;
                    ns = realloc(stack == frames ? NULL : stack,
                                 cap * sizeof(gcp_jdump_frame_t));
                    if (ns == NULL) {
                        b->failed = 1;
                        break;
                    }

                    if (stack == frames) {
                        memcpy(ns, frames, sizeof(frames));
                    }

                    stack = ns;
                }

                f = &stack[depth++];
                f->node = next;
                f->index = 0;
                f->count = 0;
                f->iter = NULL;
                f->members = NULL;

                if (json_is_object(next)
                    && gcp_json_dump_open(f, next, sorted) != GCP_OK)
                {
                    b->failed = 1;
                    break;
                }

                gcp_buf_addc(b, json_is_object(next) ? '{' : '[');

            } else if (json_is_object(next)) {
                gcp_buf_add(b, "{}", 2);

            } else if (json_is_array(next)) {
                gcp_buf_add(b, "[]", 2);

            } else {
                gcp_json_add_scalar(b, next);
            }

            next = NULL;
        }

        if (depth == 0 || gcp_buf_failed(b)) {
            break;
        }

        f = &stack[depth - 1];

        if (json_is_object(f->node)) {
            iter = f->iter;

            if (sorted ? f->index == json_object_size(f->node)
                       : iter == NULL)
            {
                goto close;
            }

            if (f->count++) {
                gcp_buf_addc(b, ',');
            }

            if (pretty) {
                gcp_json_newline(b, depth);
            }

            if (sorted) {
                key = f->members[f->index].key;
                gcp_json_add_string(b, key, f->members[f->index].len);
                next = f->members[f->index++].value;

            } else {
                gcp_json_add_string(b, json_object_iter_key(iter),
                                    json_object_iter_key_len(iter));
                next = json_object_iter_value(iter);
                f->iter = json_object_iter_next((json_t *) f->node, iter);
            }

            gcp_buf_add(b, ": ", pretty ? 2 : 1);
            continue;
        }

        if (f->index == json_array_size(f->node)) {
            goto close;
        }

        if (f->count++) {
            gcp_buf_addc(b, ',');
        }

        if (pretty) {
            gcp_json_newline(b, depth);
        }

        next = json_array_get(f->node, f->index++);
        continue;

    close:

        depth--;
        free(f->members);

        if (pretty) {
            gcp_json_newline(b, depth);
        }

        gcp_buf_addc(b, json_is_object(f->node) ? '}' : ']');
    }

    while (depth) {
        free(stack[--depth].members);
    }

    if (stack != frames) {
        free(stack);
    }
}


void
gcp_json_dump_buf(gcp_buf_t *b, const json_t *v, int pretty)
{
    gcp_json_dump_run(b, v, pretty, 0);
}


void
gcp_json_dump_sorted_buf(gcp_buf_t *b, const json_t *v)
{
    gcp_json_dump_run(b, v, 0, 1);
}


gcp_str_t
gcp_json_dump(gcp_arena_t *a, const json_t *v, int pretty)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_json_dump_buf(&b, v, pretty);

    return gcp_buf_dup(&b);
}
