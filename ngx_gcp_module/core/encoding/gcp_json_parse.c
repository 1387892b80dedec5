
/*
 * Parsing JSON as Go's encoding/json does (see gcp_json.h).  The scanner
 * is a port of Go's scanner.go state machine, so that errors, their
 * offsets and the nesting limit match; values are built while scanning,
 * without recursion.
 */

#include <math.h>
#include <stdlib.h>

#include "gcp_json_int.h"


/* the scanner: a port of Go's encoding/json/scanner.go */


enum {
    GCP_SCAN_CONTINUE = 0,
    GCP_SCAN_BEGIN_LITERAL,
    GCP_SCAN_BEGIN_OBJECT,
    GCP_SCAN_OBJECT_KEY,
    GCP_SCAN_OBJECT_VALUE,
    GCP_SCAN_END_OBJECT,
    GCP_SCAN_BEGIN_ARRAY,
    GCP_SCAN_ARRAY_VALUE,
    GCP_SCAN_END_ARRAY,
    GCP_SCAN_SKIP_SPACE,
    GCP_SCAN_END,
    GCP_SCAN_ERROR
};

enum {
    GCP_PARSE_OBJECT_KEY = 0,
    GCP_PARSE_OBJECT_VALUE,
    GCP_PARSE_ARRAY_VALUE
};


typedef struct gcp_jparse_s  gcp_jparse_t;

typedef int (*gcp_jstep_pt)(gcp_jparse_t *p, unsigned char c);


typedef struct {
    json_t         *node;       /* the container, NULL if not built */
    size_t          index;      /* array: index of the current element */
    size_t          key_off;    /* object: current key in p->path */
    size_t          key_len;
    unsigned char   parse;      /* GCP_PARSE_* */
} gcp_jframe_t;


struct gcp_jparse_s {
    gcp_jstep_pt    step;
    gcp_jframe_t   *frames;
    size_t          depth;
    size_t          nframes;
    size_t          bytes;      /* bytes consumed, Go's scan.bytes */

    const char     *err_ctx;    /* syntax error context */
    size_t          err_off;
    unsigned char   err_c;

    gcp_arena_t    *arena;
    json_t         *root;
    unsigned        flags;

    char           *path;       /* current keys, one per object frame */
    size_t          path_len;
    size_t          path_cap;
    char           *tmp;        /* decoded literal */
    size_t          tmp_len;
    size_t          tmp_cap;

    const char     *kw;         /* keyword literal being read */
    size_t          kw_pos;     /* its next character; in a \u escape,
                                   the hex digits read */

    const char     *decode_err; /* first value error (Go: saveError) */
    size_t          decode_off;

    const char    **dups;
    size_t          ndups;
    json_t        **big;        /* GCP_JSON_BIG_NUMBERS */
    size_t          nbig;

    unsigned        end_top:1;
    unsigned        error:1;
    unsigned        nomem:1;
};


static int gcp_jstate_begin_value(gcp_jparse_t *p, unsigned char c);
static int gcp_jstate_begin_string(gcp_jparse_t *p, unsigned char c);
static int gcp_jstate_end_value(gcp_jparse_t *p, unsigned char c);
static int gcp_jstate_end_top(gcp_jparse_t *p, unsigned char c);
static int gcp_jstate_in_string(gcp_jparse_t *p, unsigned char c);
static int gcp_jstate_0(gcp_jparse_t *p, unsigned char c);
static int gcp_jstate_1(gcp_jparse_t *p, unsigned char c);
static int gcp_jstate_e(gcp_jparse_t *p, unsigned char c);
static int gcp_jstate_esign(gcp_jparse_t *p, unsigned char c);
static int gcp_jstate_keyword(gcp_jparse_t *p, unsigned char c);


#define gcp_json_isspace(c)                                                   \
    ((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\n')

#define gcp_json_isdigit(c)  ((c) >= '0' && (c) <= '9')

#define gcp_json_ishex(c)                                                     \
    (gcp_json_isdigit(c) || ((c) >= 'a' && (c) <= 'f')                        \
     || ((c) >= 'A' && (c) <= 'F'))


static int
gcp_jstate_error(gcp_jparse_t *p, unsigned char c)
{
    return GCP_SCAN_ERROR;
}


static int
gcp_jscan_error(gcp_jparse_t *p, unsigned char c, const char *ctx)
{
    p->step = gcp_jstate_error;

    if (!p->error) {
        p->error = 1;
        p->err_c = c;
        p->err_ctx = ctx;
        p->err_off = p->bytes;
    }

    return GCP_SCAN_ERROR;
}


static int
gcp_jscan_push(gcp_jparse_t *p, unsigned char c, unsigned char state,
    int success)
{
    size_t         n;
    gcp_jframe_t  *f;

    if (p->depth == p->nframes) {
        n = p->nframes ? p->nframes * 2 : 32;
        n = gcp_min(n, GCP_JSON_MAX_DEPTH + 1);

        f = realloc(p->frames, n * sizeof(gcp_jframe_t));
        if (f == NULL) {
            p->nomem = 1;
            return gcp_jscan_error(p, c, "");
        }

        p->frames = f;
        p->nframes = n;
    }

    f = &p->frames[p->depth++];
    f->node = NULL;
    f->index = 0;
    f->key_off = p->path_len;
    f->key_len = 0;
    f->parse = state;

    if (p->depth <= GCP_JSON_MAX_DEPTH) {
        return success;
    }

    return gcp_jscan_error(p, c, "exceeded max depth");
}


static void
gcp_jscan_pop(gcp_jparse_t *p)
{
    p->depth--;

    if (p->depth == 0) {
        p->step = gcp_jstate_end_top;
        p->end_top = 1;

    } else {
        p->step = gcp_jstate_end_value;
    }
}


static int
gcp_jstate_begin_value_or_empty(gcp_jparse_t *p, unsigned char c)
{
    if (gcp_json_isspace(c)) {
        return GCP_SCAN_SKIP_SPACE;
    }

    if (c == ']') {
        return gcp_jstate_end_value(p, c);
    }

    return gcp_jstate_begin_value(p, c);
}


static int
gcp_jstate_begin_string_or_empty(gcp_jparse_t *p, unsigned char c)
{
    if (gcp_json_isspace(c)) {
        return GCP_SCAN_SKIP_SPACE;
    }

    if (c == '}') {
        p->frames[p->depth - 1].parse = GCP_PARSE_OBJECT_VALUE;
        return gcp_jstate_end_value(p, c);
    }

    return gcp_jstate_begin_string(p, c);
}


static int
gcp_jstate_neg(gcp_jparse_t *p, unsigned char c)
{
    if (c == '0') {
        p->step = gcp_jstate_0;
        return GCP_SCAN_CONTINUE;
    }

    if (c >= '1' && c <= '9') {
        p->step = gcp_jstate_1;
        return GCP_SCAN_CONTINUE;
    }

    return gcp_jscan_error(p, c, "in numeric literal");
}


static int
gcp_jscan_keyword(gcp_jparse_t *p, const char *kw)
{
    p->kw = kw;
    p->kw_pos = 1;
    p->step = gcp_jstate_keyword;

    return GCP_SCAN_BEGIN_LITERAL;
}


static int
gcp_jstate_begin_value(gcp_jparse_t *p, unsigned char c)
{
    if (gcp_json_isspace(c)) {
        return GCP_SCAN_SKIP_SPACE;
    }

    switch (c) {
    case '{':
        p->step = gcp_jstate_begin_string_or_empty;
        return gcp_jscan_push(p, c, GCP_PARSE_OBJECT_KEY,
                              GCP_SCAN_BEGIN_OBJECT);

    case '[':
        p->step = gcp_jstate_begin_value_or_empty;
        return gcp_jscan_push(p, c, GCP_PARSE_ARRAY_VALUE,
                              GCP_SCAN_BEGIN_ARRAY);

    case '"':
        p->step = gcp_jstate_in_string;
        return GCP_SCAN_BEGIN_LITERAL;

    case '-':
        p->step = gcp_jstate_neg;
        return GCP_SCAN_BEGIN_LITERAL;

    case '0':
        p->step = gcp_jstate_0;
        return GCP_SCAN_BEGIN_LITERAL;

    case 't':
        return gcp_jscan_keyword(p, "true");

    case 'f':
        return gcp_jscan_keyword(p, "false");

    case 'n':
        return gcp_jscan_keyword(p, "null");
    }

    if (c >= '1' && c <= '9') {
        p->step = gcp_jstate_1;
        return GCP_SCAN_BEGIN_LITERAL;
    }

    return gcp_jscan_error(p, c, "looking for beginning of value");
}


static int
gcp_jstate_begin_string(gcp_jparse_t *p, unsigned char c)
{
    if (gcp_json_isspace(c)) {
        return GCP_SCAN_SKIP_SPACE;
    }

    if (c == '"') {
        p->step = gcp_jstate_in_string;
        return GCP_SCAN_BEGIN_LITERAL;
    }

    return gcp_jscan_error(p, c, "looking for beginning of object key string");
}


static int
gcp_jstate_end_value(gcp_jparse_t *p, unsigned char c)
{
    gcp_jframe_t  *f;

    if (p->depth == 0) {
        p->step = gcp_jstate_end_top;
        p->end_top = 1;
        return gcp_jstate_end_top(p, c);
    }

    if (gcp_json_isspace(c)) {
        p->step = gcp_jstate_end_value;
        return GCP_SCAN_SKIP_SPACE;
    }

    f = &p->frames[p->depth - 1];

    switch (f->parse) {
    case GCP_PARSE_OBJECT_KEY:
        if (c == ':') {
            f->parse = GCP_PARSE_OBJECT_VALUE;
            p->step = gcp_jstate_begin_value;
            return GCP_SCAN_OBJECT_KEY;
        }

        return gcp_jscan_error(p, c, "after object key");

    case GCP_PARSE_OBJECT_VALUE:
        if (c == ',') {
            f->parse = GCP_PARSE_OBJECT_KEY;
            p->step = gcp_jstate_begin_string;
            return GCP_SCAN_OBJECT_VALUE;
        }

        if (c == '}') {
            gcp_jscan_pop(p);
            return GCP_SCAN_END_OBJECT;
        }

        return gcp_jscan_error(p, c, "after object key:value pair");

    default:
        if (c == ',') {
            p->step = gcp_jstate_begin_value;
            return GCP_SCAN_ARRAY_VALUE;
        }

        if (c == ']') {
            gcp_jscan_pop(p);
            return GCP_SCAN_END_ARRAY;
        }

        return gcp_jscan_error(p, c, "after array element");
    }
}


static int
gcp_jstate_end_top(gcp_jparse_t *p, unsigned char c)
{
    if (!gcp_json_isspace(c)) {
        return gcp_jscan_error(p, c, "after top-level value");
    }

    return GCP_SCAN_END;
}


static int
gcp_jstate_in_string_esc_u(gcp_jparse_t *p, unsigned char c)
{
    if (!gcp_json_ishex(c)) {
        return gcp_jscan_error(p, c, "in \\u hexadecimal character escape");
    }

    if (++p->kw_pos == 4) {
        p->step = gcp_jstate_in_string;
    }

    return GCP_SCAN_CONTINUE;
}


static int
gcp_jstate_in_string_esc(gcp_jparse_t *p, unsigned char c)
{
    switch (c) {
    case 'b': case 'f': case 'n': case 'r': case 't':
    case '\\': case '/': case '"':
        p->step = gcp_jstate_in_string;
        return GCP_SCAN_CONTINUE;

    case 'u':
        p->kw_pos = 0;
        p->step = gcp_jstate_in_string_esc_u;
        return GCP_SCAN_CONTINUE;
    }

    return gcp_jscan_error(p, c, "in string escape code");
}


static int
gcp_jstate_in_string(gcp_jparse_t *p, unsigned char c)
{
    if (c == '"') {
        p->step = gcp_jstate_end_value;
        return GCP_SCAN_CONTINUE;
    }

    if (c == '\\') {
        p->step = gcp_jstate_in_string_esc;
        return GCP_SCAN_CONTINUE;
    }

    if (c < 0x20) {
        return gcp_jscan_error(p, c, "in string literal");
    }

    return GCP_SCAN_CONTINUE;
}


static int
gcp_jstate_1(gcp_jparse_t *p, unsigned char c)
{
    if (gcp_json_isdigit(c)) {
        return GCP_SCAN_CONTINUE;
    }

    return gcp_jstate_0(p, c);
}


static int
gcp_jstate_dot0(gcp_jparse_t *p, unsigned char c)
{
    if (gcp_json_isdigit(c)) {
        return GCP_SCAN_CONTINUE;
    }

    if (c == 'e' || c == 'E') {
        p->step = gcp_jstate_e;
        return GCP_SCAN_CONTINUE;
    }

    return gcp_jstate_end_value(p, c);
}


static int
gcp_jstate_dot(gcp_jparse_t *p, unsigned char c)
{
    if (gcp_json_isdigit(c)) {
        p->step = gcp_jstate_dot0;
        return GCP_SCAN_CONTINUE;
    }

    return gcp_jscan_error(p, c, "after decimal point in numeric literal");
}


static int
gcp_jstate_0(gcp_jparse_t *p, unsigned char c)
{
    if (c == '.') {
        p->step = gcp_jstate_dot;
        return GCP_SCAN_CONTINUE;
    }

    if (c == 'e' || c == 'E') {
        p->step = gcp_jstate_e;
        return GCP_SCAN_CONTINUE;
    }

    return gcp_jstate_end_value(p, c);
}


static int
gcp_jstate_e0(gcp_jparse_t *p, unsigned char c)
{
    if (gcp_json_isdigit(c)) {
        return GCP_SCAN_CONTINUE;
    }

    return gcp_jstate_end_value(p, c);
}


static int
gcp_jstate_esign(gcp_jparse_t *p, unsigned char c)
{
    if (gcp_json_isdigit(c)) {
        p->step = gcp_jstate_e0;
        return GCP_SCAN_CONTINUE;
    }

    return gcp_jscan_error(p, c, "in exponent of numeric literal");
}


static int
gcp_jstate_e(gcp_jparse_t *p, unsigned char c)
{
    if (c == '+' || c == '-') {
        p->step = gcp_jstate_esign;
        return GCP_SCAN_CONTINUE;
    }

    return gcp_jstate_esign(p, c);
}


static int
gcp_jstate_keyword(gcp_jparse_t *p, unsigned char c)
{
    char  *ctx;

    if (c == (unsigned char) p->kw[p->kw_pos]) {
        if (p->kw[++p->kw_pos] == '\0') {
            p->step = gcp_jstate_end_value;
        }

        return GCP_SCAN_CONTINUE;
    }

    ctx = gcp_sprintf(p->arena, "in literal %s (expecting '%c')", p->kw,
                      p->kw[p->kw_pos]);
    if (ctx == NULL) {
        p->nomem = 1;
        ctx = "";
    }

    return gcp_jscan_error(p, c, ctx);
}


/* building values while scanning */


static int
gcp_jparse_reserve(char **buf, size_t *cap, size_t need)
{
    char    *p;
    size_t   n;

    if (need <= *cap) {
        return GCP_OK;
    }

    n = *cap ? *cap : 64;

    while (n < need) {
        n *= 2;
    }

    p = realloc(*buf, n);
    if (p == NULL) {
        return GCP_ENOMEM;
    }

    *buf = p;
    *cap = n;

    return GCP_OK;
}


/* Attaches v (stolen) below the frame nparents - 1, or as the root. */
static int
gcp_jparse_attach(gcp_jparse_t *p, size_t nparents, json_t *v)
{
    int            rc;
    gcp_jframe_t  *f;

    if (v == NULL) {
        return GCP_ENOMEM;
    }

    if (nparents == 0) {
        p->root = v;
        return GCP_OK;
    }

    f = &p->frames[nparents - 1];

    if (json_is_array(f->node)) {
        rc = json_array_append_new(f->node, v);

    } else {
        rc = json_object_setn_new_nocheck(f->node, p->path + f->key_off,
                                          f->key_len, v);
    }

    return rc == 0 ? GCP_OK : GCP_ENOMEM;
}


/* Records the strict decoding path of a repeated key k in frame n - 1. */
static int
gcp_jparse_dup(gcp_jparse_t *p, size_t n, const char *k, size_t klen)
{
    size_t         i, segs;
    gcp_buf_t      b;
    const char    *path;
    gcp_jframe_t  *f;

    if (p->ndups == GCP_JSON_MAX_DUPLICATES) {
        return GCP_OK;
    }

    gcp_buf_init(&b, p->arena);
    segs = 0;

    for (i = 0; i + 1 < n; i++) {
        f = &p->frames[i];

        if (json_is_array(f->node)) {
            gcp_buf_printf(&b, "[%zu]", f->index);

        } else {
            if (segs) {
                gcp_buf_addc(&b, '.');
            }

            gcp_buf_add(&b, p->path + f->key_off, f->key_len);
        }

        segs++;
    }

    if (segs) {
        gcp_buf_addc(&b, '.');
    }

    gcp_buf_add(&b, k, klen);

    path = gcp_buf_cstr(&b);
    if (gcp_buf_failed(&b)) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < p->ndups; i++) {
        if (strcmp(p->dups[i], path) == 0) {
            return GCP_OK;              /* Go reports each error once */
        }
    }

    if (p->dups == NULL) {
        p->dups = gcp_alloc(p->arena,
                            GCP_JSON_MAX_DUPLICATES * sizeof(char *));
    }

    path = gcp_strndup(p->arena, path, b.len);

    if (p->dups == NULL || path == NULL) {
        return GCP_ENOMEM;
    }

    p->dups[p->ndups++] = path;

    return GCP_OK;
}


static int
gcp_jparse_key(gcp_jparse_t *p, size_t n, const char *k, size_t klen)
{
    gcp_jframe_t  *f;

    f = &p->frames[n - 1];

    if ((p->flags & GCP_JSON_DUPLICATES)
        && json_object_getn(f->node, k, klen) != NULL
        && gcp_jparse_dup(p, n, k, klen) != GCP_OK)
    {
        return GCP_ENOMEM;
    }

    if (gcp_jparse_reserve(&p->path, &p->path_cap, f->key_off + klen + 1)
        != GCP_OK)
    {
        return GCP_ENOMEM;
    }

    if (klen) {
        memcpy(p->path + f->key_off, k, klen);
    }

    p->path_len = f->key_off + klen;
    f->key_len = klen;

    return GCP_OK;
}


/* Returns the value of 4 hex digits, or 0xffffffff if they are not. */
static uint32_t
gcp_jparse_hex4(const char *s)
{
    size_t    i;
    uint32_t  r, d;
    char      c;

    r = 0;

    for (i = 0; i < 4; i++) {
        c = s[i];

        if (c >= '0' && c <= '9') {
            d = (uint32_t) (c - '0');

        } else if (c >= 'a' && c <= 'f') {
            d = (uint32_t) (c - 'a' + 10);

        } else if (c >= 'A' && c <= 'F') {
            d = (uint32_t) (c - 'A' + 10);

        } else {
            return 0xffffffff;
        }

        r = r * 16 + d;
    }

    return r;
}


/* Go's unquoteBytes() of a scanned string literal s into p->tmp. */
static int
gcp_jparse_unquote(gcp_jparse_t *p, const char *s, size_t n)
{
    size_t          r, w, size;
    uint32_t        rr, rr1;
    unsigned char   c;
    char           *out;

    static const char  repl[] = "\xef\xbf\xbd";

    s++;
    n -= 2;

    if (gcp_jparse_reserve(&p->tmp, &p->tmp_cap, 3 * n + 8) != GCP_OK) {
        return GCP_ENOMEM;
    }

    out = p->tmp;
    w = 0;
    r = 0;

    while (r < n) {
        c = (unsigned char) s[r];

        if (c == '\\') {
            c = (unsigned char) s[r + 1];
            r += 2;

            switch (c) {
            case 'b': out[w++] = '\b'; continue;
            case 'f': out[w++] = '\f'; continue;
            case 'n': out[w++] = '\n'; continue;
            case 'r': out[w++] = '\r'; continue;
            case 't': out[w++] = '\t'; continue;
            case 'u': break;
            default:  out[w++] = (char) c; continue;
            }

            rr = gcp_jparse_hex4(s + r);
            r += 4;

            if (rr >= 0xd800 && rr < 0xe000) {
                rr1 = 0xffffffff;

                if (r + 6 <= n && s[r] == '\\' && s[r + 1] == 'u') {
                    rr1 = gcp_jparse_hex4(s + r + 2);
                }

                if (rr < 0xdc00 && rr1 >= 0xdc00 && rr1 < 0xe000) {
                    rr = 0x10000 + ((rr - 0xd800) << 10) + (rr1 - 0xdc00);
                    r += 6;

                } else {
                    rr = 0xfffd;
                }
            }

            w += gcp_utf8_put(out + w, rr);
            continue;
        }

        if (c < 0x80) {
            out[w++] = (char) c;
            r++;
            continue;
        }

        size = gcp_utf8_decode((const unsigned char *) s + r, n - r, &rr);

        if (rr == 0xfffd && size == 1) {
            memcpy(out + w, repl, 3);
            w += 3;

        } else {
            memcpy(out + w, s + r, size);
            w += size;
        }

        r += size;
    }

    p->tmp_len = w;

    return GCP_OK;
}


static json_t *
gcp_jparse_number(gcp_jparse_t *p, const char *s, size_t n)
{
    int        neg, integer;
    size_t     i;
    double     d;
    uint64_t   u, limit;

    neg = (s[0] == '-');
    integer = 1;

    for (i = neg; i < n; i++) {
        if (!gcp_json_isdigit(s[i])) {
            integer = 0;
            break;
        }
    }

    if (integer) {
        limit = neg ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
        u = 0;

        for (i = neg; i < n; i++) {
            if (u > (limit - (uint64_t) (s[i] - '0')) / 10) {
                integer = 0;            /* beyond int64: a float64 */
                break;
            }

            u = u * 10 + (uint64_t) (s[i] - '0');
        }

        if (integer) {
            if (neg) {
                return json_integer(u == (uint64_t) INT64_MAX + 1
                                    ? INT64_MIN : -(json_int_t) u);
            }

            return json_integer((json_int_t) u);
        }
    }

    if (gcp_jparse_reserve(&p->tmp, &p->tmp_cap, n + 1) != GCP_OK) {
        return NULL;
    }

    memcpy(p->tmp, s, n);
    p->tmp[n] = '\0';

    d = strtod(p->tmp, NULL);

    if (isinf(d) && (p->flags & GCP_JSON_BIG_NUMBERS)
        && p->nbig < GCP_JSON_MAX_BIG)
    {
        if (p->big == NULL) {
            p->big = gcp_alloc(p->arena, GCP_JSON_MAX_BIG * sizeof(json_t *));
            if (p->big == NULL) {
                return NULL;
            }
        }

        p->big[p->nbig] = json_stringn(s, n);

        return p->big[p->nbig++];
    }

    if (isinf(d)) {
        if (p->decode_err == NULL) {
            p->decode_err = gcp_sprintf(p->arena,
                                        "json: cannot unmarshal number %.*s "
                                        "into Go value of type float64",
                                        (int) n, s);
            p->decode_off = p->bytes;

            if (p->decode_err == NULL) {
                return NULL;
            }
        }

        return json_null();
    }

    return json_real(d);
}


/* Converts the literal s scanned in frame n - 1 (or at the top). */
static int
gcp_jparse_literal(gcp_jparse_t *p, const char *s, size_t len, size_t n,
    int key)
{
    json_t  *v;

    switch (s[0]) {
    case '"':
        if (gcp_jparse_unquote(p, s, len) != GCP_OK) {
            return GCP_ENOMEM;
        }

        if (key) {
            return gcp_jparse_key(p, n, p->tmp, p->tmp_len);
        }

        v = json_stringn_nocheck(p->tmp, p->tmp_len);
        break;

    case 't':
        v = json_true();
        break;

    case 'f':
        v = json_false();
        break;

    case 'n':
        v = json_null();
        break;

    default:
        v = gcp_jparse_number(p, s, len);
    }

    return gcp_jparse_attach(p, n, v);
}


static const char *
gcp_jparse_message(gcp_jparse_t *p)
{
    gcp_buf_t    b;
    const char  *msg;

    gcp_buf_init(&b, p->arena);
    gcp_buf_addstr(&b, "invalid character ");
    gcp_json_quote_char(&b, p->err_c);
    gcp_buf_addc(&b, ' ');
    gcp_buf_addstr(&b, p->err_ctx);

    msg = gcp_strndup(p->arena, gcp_buf_cstr(&b), b.len);
    if (msg == NULL || gcp_buf_failed(&b)) {
        p->nomem = 1;
    }

    return msg;
}


/* Scans and builds; returns GCP_OK, or GCP_ENOMEM (syntax errors: p). */
static int
gcp_jparse_run(gcp_jparse_t *p, const char *data, size_t len)
{
    int             op, key;
    size_t          i, start, n;
    json_t         *node;
    unsigned char   c;
    gcp_jframe_t   *f;

    key = 0;
    n = 0;
    start = (size_t) -1;                /* no literal open */

    for (i = 0; i < len; i++) {

        if (p->step == gcp_jstate_in_string) {
            while (i < len) {
                c = (unsigned char) data[i];

                if (c < 0x20 || c == '"' || c == '\\') {
                    break;
                }

                i++;
            }

            if (i == len) {
                break;
            }
        }

        c = (unsigned char) data[i];
        p->bytes = i + 1;

        op = p->step(p, c);

        if (op == GCP_SCAN_CONTINUE) {
            continue;
        }

        if (op == GCP_SCAN_ERROR) {
            return p->nomem ? GCP_ENOMEM : GCP_OK;
        }

        if (start != (size_t) -1) {
            if (gcp_jparse_literal(p, data + start, i - start, n, key)
                != GCP_OK)
            {
                return GCP_ENOMEM;
            }

            start = (size_t) -1;
        }

        switch (op) {

        case GCP_SCAN_BEGIN_LITERAL:
            start = i;
            n = p->depth;
            key = n && p->frames[n - 1].parse == GCP_PARSE_OBJECT_KEY;
            break;

        case GCP_SCAN_BEGIN_OBJECT:
        case GCP_SCAN_BEGIN_ARRAY:
            node = (op == GCP_SCAN_BEGIN_OBJECT) ? json_object()
                                                 : json_array();
            f = &p->frames[p->depth - 1];
            f->node = node;

            if (gcp_jparse_attach(p, p->depth - 1, node) != GCP_OK) {
                f->node = NULL;
                return GCP_ENOMEM;
            }

            break;

        case GCP_SCAN_ARRAY_VALUE:
            p->frames[p->depth - 1].index++;
            break;

        default:
            break;
        }
    }

    /* end of input: Go's scanner.eof() */

    p->bytes = len;

    if (!p->end_top) {
        op = p->step(p, ' ');

        if (op == GCP_SCAN_ERROR) {
            return p->nomem ? GCP_ENOMEM : GCP_OK;
        }
    }

    if (!p->end_top) {
        p->error = 1;
        p->err_ctx = NULL;
        p->err_off = len;
        return GCP_OK;
    }

    if (start != (size_t) -1
        && gcp_jparse_literal(p, data + start, len - start, n, key) != GCP_OK)
    {
        return GCP_ENOMEM;
    }

    return GCP_OK;
}


int
gcp_json_parse_ex(gcp_arena_t *a, const char *data, size_t len,
    unsigned flags, json_t **out, gcp_json_info_t *info)
{
    int               rc;
    gcp_jparse_t      p;
    gcp_json_info_t   dummy;

    if (info == NULL) {
        info = &dummy;
    }

    memset(info, 0, sizeof(gcp_json_info_t));
    memset(&p, 0, sizeof(gcp_jparse_t));

    *out = NULL;

    p.step = gcp_jstate_begin_value;
    p.arena = a;
    p.flags = flags;

    rc = gcp_jparse_run(&p, data, len);

    free(p.frames);
    free(p.path);
    free(p.tmp);

    info->dups = p.dups;
    info->ndups = p.ndups;
    info->big = p.big;
    info->nbig = p.nbig;

    if (rc == GCP_OK && p.error) {
        if (p.err_ctx == NULL) {
            info->msg = "unexpected end of JSON input";

        } else {
            info->msg = gcp_jparse_message(&p);
        }

        info->offset = p.err_off;
        rc = p.nomem ? GCP_ENOMEM : GCP_EBADREQUEST;

    } else if (rc == GCP_OK && p.decode_err) {
        info->msg = p.decode_err;
        info->offset = p.decode_off;
        rc = GCP_EBADREQUEST;
    }

    if (rc != GCP_OK) {
        json_decref(p.root);

        if (rc == GCP_ENOMEM) {
            info->msg = "out of memory";
        }

        return rc;
    }

    if (gcp_arena_cleanup(a, gcp_json_release, p.root) != GCP_OK) {
        info->msg = "out of memory";
        return GCP_ENOMEM;
    }

    *out = p.root;

    return GCP_OK;
}


json_t *
gcp_json_parse(gcp_arena_t *a, const char *data, size_t len,
    const char **msg)
{
    json_t           *v;
    gcp_json_info_t   info;

    if (gcp_json_parse_ex(a, data, len, 0, &v, &info) != GCP_OK) {
        *msg = info.msg;
        return NULL;
    }

    *msg = NULL;

    return v;
}


int
gcp_json_duplicates(gcp_arena_t *a, const char *data, size_t len,
    const char ***paths, size_t *npaths)
{
    int               rc;
    json_t           *v;
    gcp_json_info_t   info;

    rc = gcp_json_parse_ex(a, data, len, GCP_JSON_DUPLICATES, &v, &info);

    *paths = info.dups;
    *npaths = info.ndups;

    return rc == GCP_ENOMEM ? GCP_ENOMEM : GCP_OK;
}
