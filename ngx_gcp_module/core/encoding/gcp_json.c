
/*
 * JSON parsing and serialisation compatible with Go's encoding/json (see
 * gcp_json.h).  The scanner is a port of Go's scanner.go state machine, so
 * that errors, their offsets and the nesting limit match; values are built
 * while scanning, without recursion.
 */

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_json.h"


/* UTF-8 and Go's notion of printable runes */


size_t
gcp_utf8_decode(const unsigned char *p, size_t n, uint32_t *rune)
{
    uint32_t       r;
    size_t         len, i;
    unsigned char  c, lo, hi;

    c = p[0];

    if (c < 0x80) {
        *rune = c;
        return 1;
    }

    lo = 0x80;
    hi = 0xbf;

    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        r = c & 0x1f;

    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        r = c & 0x0f;

        if (c == 0xe0) {
            lo = 0xa0;

        } else if (c == 0xed) {
            hi = 0x9f;                  /* no surrogates */
        }

    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        r = c & 0x07;

        if (c == 0xf0) {
            lo = 0x90;

        } else if (c == 0xf4) {
            hi = 0x8f;
        }

    } else {
        *rune = 0xfffd;
        return 1;
    }

    if (n < len) {
        *rune = 0xfffd;
        return 1;
    }

    for (i = 1; i < len; i++) {
        c = p[i];

        if (c < lo || c > hi) {
            *rune = 0xfffd;
            return 1;
        }

        lo = 0x80;
        hi = 0xbf;
        r = (r << 6) | (c & 0x3f);
    }

    *rune = r;

    return len;
}


static size_t
gcp_utf8_put(char *u, uint32_t r)
{
    if (r < 0x80) {
        u[0] = (char) r;
        return 1;
    }

    if (r < 0x800) {
        u[0] = (char) (0xc0 | (r >> 6));
        u[1] = (char) (0x80 | (r & 0x3f));
        return 2;
    }

    if (r < 0x10000) {
        u[0] = (char) (0xe0 | (r >> 12));
        u[1] = (char) (0x80 | ((r >> 6) & 0x3f));
        u[2] = (char) (0x80 | (r & 0x3f));
        return 3;
    }

    u[0] = (char) (0xf0 | (r >> 18));
    u[1] = (char) (0x80 | ((r >> 12) & 0x3f));
    u[2] = (char) (0x80 | ((r >> 6) & 0x3f));
    u[3] = (char) (0x80 | (r & 0x3f));

    return 4;
}


void
gcp_utf8_add(gcp_buf_t *b, uint32_t r)
{
    char  u[4];

    gcp_buf_add(b, u, gcp_utf8_put(u, r));
}


int
gcp_go_isprint(uint32_t r)
{
    if (r < 0x80) {
        return r >= 0x20 && r < 0x7f;
    }

    if (r <= 0xa0 || r == 0xad) {
        return 0;                       /* C1 controls, NBSP, soft hyphen */
    }

    if (r < 0x100) {
        return 1;
    }

    if ((r >= 0x2000 && r <= 0x200f)     /* spaces, zero-width, marks */
        || (r >= 0x2028 && r <= 0x202f)  /* separators, embedding */
        || (r >= 0x205f && r <= 0x206f)  /* math space, invisible ops */
        || r == 0x1680 || r == 0x180e || r == 0x3000 || r == 0xfeff
        || r == 0x061c || r == 0x06dd || r == 0x070f
        || (r >= 0xd800 && r <= 0xf8ff)  /* surrogates, private use */
        || (r >= 0xfdd0 && r <= 0xfdef)  /* noncharacters */
        || (r >= 0xfff0 && r <= 0xfffb)
        || (r & 0xfffe) == 0xfffe
        || (r >= 0xe0000 && r <= 0xe0fff)
        || r >= 0xf0000 || r > 0x10ffff)
    {
        return 0;
    }

    return 1;
}


static void
gcp_go_quote_rune(gcp_buf_t *b, uint32_t r, const char *raw, size_t n)
{
    static const char  hex[] = "0123456789abcdef";

    switch (r) {
    case '\a': gcp_buf_add(b, "\\a", 2); return;
    case '\b': gcp_buf_add(b, "\\b", 2); return;
    case '\f': gcp_buf_add(b, "\\f", 2); return;
    case '\n': gcp_buf_add(b, "\\n", 2); return;
    case '\r': gcp_buf_add(b, "\\r", 2); return;
    case '\t': gcp_buf_add(b, "\\t", 2); return;
    case '\v': gcp_buf_add(b, "\\v", 2); return;
    case '"':  gcp_buf_add(b, "\\\"", 2); return;
    case '\\': gcp_buf_add(b, "\\\\", 2); return;
    }

    if (gcp_go_isprint(r)) {
        gcp_buf_add(b, raw, n);
        return;
    }

    if (r < 0x20 || r == 0x7f) {
        gcp_buf_printf(b, "\\x%c%c", hex[r >> 4], hex[r & 0xf]);

    } else if (r < 0x10000) {
        gcp_buf_printf(b, "\\u%04x", (unsigned) r);

    } else {
        gcp_buf_printf(b, "\\U%08x", (unsigned) r);
    }
}


const char *
gcp_go_quote(gcp_arena_t *a, const char *s, size_t len)
{
    char                 byte[8];
    size_t               i, n;
    uint32_t             r;
    gcp_buf_t            b;
    const char          *q;
    const unsigned char *p = (const unsigned char *) s;

    gcp_buf_init(&b, a);
    gcp_buf_addc(&b, '"');

    for (i = 0; i < len; i += n) {
        n = gcp_utf8_decode(p + i, len - i, &r);

        if (r == 0xfffd && n == 1 && p[i] >= 0x80) {
            /* invalid UTF-8: Go shows the byte */
            snprintf(byte, sizeof(byte), "\\x%02x", p[i]);
            gcp_buf_addstr(&b, byte);
            continue;
        }

        gcp_go_quote_rune(&b, r, s + i, n);
    }

    gcp_buf_addc(&b, '"');

    q = gcp_strndup(a, gcp_buf_cstr(&b), b.len);

    return q ? q : "\"\"";
}


/*
 * Go's quoteChar(): the byte c shown in single quotes as in scanner
 * errors; a byte above 0x7f is the rune of that value (Latin-1).
 */
static void
gcp_json_quote_char(gcp_buf_t *b, unsigned char c)
{
    char  u[2];

    if (c == '\'') {
        gcp_buf_addstr(b, "'\\''");
        return;
    }

    if (c == '"') {
        gcp_buf_addstr(b, "'\"'");
        return;
    }

    /* the rune U+00XX; above 0x7f it takes two bytes in UTF-8 */
    u[0] = (char) (0xc0 | (c >> 6));
    u[1] = (char) (0x80 | (c & 0x3f));

    gcp_buf_addc(b, '\'');

    if (c < 0x80) {
        gcp_go_quote_rune(b, c, (const char *) &c, 1);

    } else {
        gcp_go_quote_rune(b, c, u, 2);
    }

    gcp_buf_addc(b, '\'');
}


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


static void
gcp_json_release(void *data)
{
    json_decref(data);
}


json_t *
gcp_json_arena(gcp_arena_t *a, json_t *v)
{
    if (v == NULL) {
        return NULL;
    }

    if (gcp_arena_cleanup(a, gcp_json_release, v) != GCP_OK) {
        return NULL;
    }

    return v;
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


/* serialisation */


/*
 * Sets digits (NUL-terminated, no trailing zeros) and *dp (the decimal
 * point position: v = 0.digits * 10^dp) of the shortest decimal that reads
 * back as v, as Go's strconv does.  v is finite and not zero.
 */
static size_t
gcp_json_shortest(double v, char *digits, int *dp)
{
    int     prec;
    char    tmp[40], *e;
    size_t  nd, i;

    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, fabs(v));

        if (strtod(tmp, NULL) == fabs(v)) {
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


size_t
gcp_json_format_float(double v, int fmt, char *buf)
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

    nd = gcp_json_shortest(v, digits, &dp);
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
        c = (unsigned char) s[i];

        if (c < 0x80) {
            if (c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>'
                && c != '&')
            {
                i++;
                continue;
            }

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
    const json_t  *node;
    void          *iter;        /* objects: the next member */
    size_t         index;       /* arrays: the next element */
    size_t         count;       /* members written */
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


void
gcp_json_dump_buf(gcp_buf_t *b, const json_t *v, int pretty)
{
    void               *iter;
    size_t              depth, cap;
    const json_t       *next;
    gcp_jdump_frame_t  *stack, *f, *ns;

    stack = NULL;
    depth = 0;
    cap = 0;
    next = v;

    for ( ;; ) {

        if (next != NULL) {
            if ((json_is_object(next) && json_object_size(next) != 0)
                || (json_is_array(next) && json_array_size(next) != 0))
            {
                if (depth == cap) {
                    cap = cap ? cap * 2 : 16;
                    ns = realloc(stack, cap * sizeof(gcp_jdump_frame_t));
                    if (ns == NULL) {
                        b->failed = 1;
                        break;
                    }

                    stack = ns;
                }

                f = &stack[depth++];
                f->node = next;
                f->index = 0;
                f->count = 0;
                f->iter = json_is_object(next)
                          ? json_object_iter((json_t *) next) : NULL;

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

            if (iter == NULL) {
                goto close;
            }

            if (f->count++) {
                gcp_buf_addc(b, ',');
            }

            if (pretty) {
                gcp_json_newline(b, depth);
            }

            gcp_json_add_string(b, json_object_iter_key(iter),
                                json_object_iter_key_len(iter));
            gcp_buf_add(b, ": ", pretty ? 2 : 1);

            next = json_object_iter_value(iter);
            f->iter = json_object_iter_next((json_t *) f->node, iter);
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

        if (pretty) {
            gcp_json_newline(b, depth);
        }

        gcp_buf_addc(b, json_is_object(f->node) ? '}' : ']');
    }

    free(stack);
}


gcp_str_t
gcp_json_dump(gcp_arena_t *a, const json_t *v, int pretty)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_json_dump_buf(&b, v, pretty);

    return gcp_buf_dup(&b);
}


/* small accessors */


static json_t *
gcp_json_vget(const json_t *obj, va_list ap)
{
    const char  *key;

    while ((key = va_arg(ap, const char *)) != NULL) {
        if (!json_is_object(obj)) {
            return NULL;
        }

        obj = json_object_get(obj, key);
    }

    return (json_t *) obj;
}


json_t *
gcp_json_get(const json_t *obj, ...)
{
    json_t   *v;
    va_list   ap;

    va_start(ap, obj);
    v = gcp_json_vget(obj, ap);
    va_end(ap);

    return v;
}


const char *
gcp_json_get_str(const json_t *obj, ...)
{
    json_t   *v;
    va_list   ap;

    va_start(ap, obj);
    v = gcp_json_vget(obj, ap);
    va_end(ap);

    return json_is_string(v) ? json_string_value(v) : NULL;
}


json_t *
gcp_json_object_child(json_t *obj, const char *key)
{
    json_t  *v;

    if (!json_is_object(obj)) {
        return NULL;
    }

    v = json_object_get(obj, key);

    if (json_is_object(v)) {
        return v;
    }

    if (v != NULL && !json_is_null(v)) {
        return NULL;
    }

    v = json_object();

    if (json_object_set_new(obj, key, v) != 0) {
        return NULL;
    }

    return v;
}


const char *
gcp_json_go_kind(const json_t *v)
{
    switch (json_typeof(v)) {

    case JSON_OBJECT:
        return "object";

    case JSON_ARRAY:
        return "array";

    case JSON_STRING:
        return "string";

    case JSON_INTEGER:
    case JSON_REAL:
        return "number";

    case JSON_TRUE:
    case JSON_FALSE:
        return "bool";

    default:
        return "null";
    }
}
