
/*
 * JSON compatible with Go's encoding/json (see gcp_json.h): UTF-8, Go's
 * quoting of strings, jansson values released with an arena, accessors.
 * The scanner and decoder are in gcp_json_parse.c, the encoder in
 * gcp_json_dump.c (see gcp_json_int.h).
 */

#include <stdarg.h>
#include <stdio.h>

#include "gcp_json_int.h"


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


size_t
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


const char *
gcp_go_strings(gcp_arena_t *a, const json_t *arr)
{
    return gcp_go_slice(a, "string", arr);
}


const char *
gcp_go_slice(gcp_arena_t *a, const char *elem, const json_t *arr)
{
    size_t      i;
    json_t     *v;
    gcp_buf_t   b;

    gcp_buf_init(&b, a);
    gcp_buf_printf(&b, "[]%s{", elem);

    json_array_foreach(arr, i, v) {
        if (i) {
            gcp_buf_addstr(&b, ", ");
        }

        gcp_buf_addstr(&b, json_is_string(v)
                           ? gcp_go_quote(a, json_string_value(v),
                                          json_string_length(v))
                           : "\"\"");
    }

    gcp_buf_addc(&b, '}');

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}


/*
 * Go's quoteChar(): the byte c shown in single quotes as in scanner
 * errors; a byte above 0x7f is the rune of that value (Latin-1).
 */
void
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


/* jansson values in an arena */


void
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


int
gcp_json_has_string(const json_t *arr, const char *s)
{
    size_t   i;
    json_t  *v;

    json_array_foreach(arr, i, v) {
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0) {
            return 1;
        }
    }

    return 0;
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
