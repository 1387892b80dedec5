
/*
 * Custom resource values as Go sees them (gcp_crd_int.h): kinds, the
 * renderings field errors and messages use, json.Marshal of unstructured
 * values, Go's numeric conversions, enum comparison, field paths.
 */

#include <math.h>
#include <stdio.h>

#include "gcp_crd_int.h"
#include "gcp_json.h"


/* fmt's %v of a nested value stops this deep (not reached by real data) */
#define GCP_CRD_RENDER_DEPTH  1000


gcp_crd_kind_t
gcp_crd_kind(const json_t *v)
{
    switch (json_typeof(v)) {

    case JSON_OBJECT:
        return GCP_CRD_K_MAP;

    case JSON_ARRAY:
        return GCP_CRD_K_SLICE;

    case JSON_STRING:
        return GCP_CRD_K_STRING;

    case JSON_INTEGER:
        return GCP_CRD_K_INT;

    case JSON_REAL:
        return GCP_CRD_K_FLOAT;

    case JSON_TRUE:
    case JSON_FALSE:
        return GCP_CRD_K_BOOL;

    default:
        return GCP_CRD_K_NULL;
    }
}


void
gcp_crd_go_float(gcp_buf_t *b, double f)
{
    char  buf[64];

    if (isnan(f)) {
        gcp_buf_addstr(b, "NaN");
        return;
    }

    if (isinf(f)) {
        gcp_buf_addstr(b, f > 0 ? "+Inf" : "-Inf");
        return;
    }

    gcp_buf_add(b, buf, gcp_json_format_float(f, 'g', buf));
}


/* an object's keys, sorted as Go's fmt and encoding/json sort map keys */
static const char **
gcp_crd_sorted_keys(gcp_arena_t *a, const json_t *obj, size_t *n)
{
    size_t        i, j;
    void         *it;
    const char  **keys, *k;

    *n = json_object_size(obj);

    keys = gcp_alloc(a, (*n + 1) * sizeof(char *));
    if (keys == NULL) {
        return NULL;
    }

    i = 0;

    for (it = json_object_iter((json_t *) obj); it && i < *n;
         it = json_object_iter_next((json_t *) obj, it))
    {
        k = json_object_iter_key(it);

        for (j = i; j > 0 && strcmp(keys[j - 1], k) > 0; j--) {
            keys[j] = keys[j - 1];
        }

        keys[j] = k;
        i++;
    }

    *n = i;
    return keys;
}


/* the two ways values are written: fmt's %#v and encoding/json */
typedef struct {
    const char  *map_open;
    const char  *slice_open;
    const char  *slice_close;
    const char  *sep;
    const char  *too_deep;
    unsigned     go:1;
} gcp_crd_style_t;


static const gcp_crd_style_t  gcp_crd_go_sharp_style = {
    "map[string]interface {}{", "[]interface {}{", "}", ", ", "...", 1
};

static const gcp_crd_style_t  gcp_crd_json_style = {
    "{", "[", "]", ",", "null", 0
};


static void gcp_crd_json_scalar(gcp_buf_t *b, const json_t *v);


/*
 * v in a style, keys sorted; with the Go style v is held in an interface{}
 * (nested in a map or a slice)
 */
static void
gcp_crd_render_value(gcp_buf_t *b, const json_t *v, int depth,
    const gcp_crd_style_t *st)
{
    size_t        i, n;
    json_t       *e;
    const char  **keys;

    if (depth > GCP_CRD_RENDER_DEPTH) {
        gcp_buf_addstr(b, st->too_deep);
        return;
    }

    switch (json_typeof(v)) {

    case JSON_OBJECT:
        gcp_buf_addstr(b, st->map_open);
        keys = gcp_crd_sorted_keys(b->arena, v, &n);

        for (i = 0; keys && i < n; i++) {
            if (i) {
                gcp_buf_addstr(b, st->sep);
            }

            if (st->go) {
                gcp_buf_addstr(b, gcp_go_quote(b->arena, keys[i],
                                               strlen(keys[i])));
            } else {
                gcp_json_add_string(b, keys[i], strlen(keys[i]));
            }

            gcp_buf_addc(b, ':');
            gcp_crd_render_value(b, json_object_get(v, keys[i]), depth + 1,
                                 st);
        }

        gcp_buf_addc(b, '}');
        return;

    case JSON_ARRAY:
        gcp_buf_addstr(b, st->slice_open);

        json_array_foreach((json_t *) v, i, e) {
            if (i) {
                gcp_buf_addstr(b, st->sep);
            }

            gcp_crd_render_value(b, e, depth + 1, st);
        }

        gcp_buf_addstr(b, st->slice_close);
        return;

    default:
        if (!st->go) {
            gcp_crd_json_scalar(b, v);

        } else if (json_is_null(v)) {
            gcp_buf_addstr(b, "interface {}(nil)");

        } else {
            gcp_crd_go_value(b, v);
        }
    }
}


void
gcp_crd_go_value(gcp_buf_t *b, const json_t *v)
{
    switch (json_typeof(v)) {

    case JSON_STRING:
        gcp_buf_addstr(b, gcp_go_quote(b->arena, json_string_value(v),
                                       json_string_length(v)));
        return;

    case JSON_INTEGER:
        gcp_buf_add_int(b, json_integer_value(v));
        return;

    case JSON_REAL:
        gcp_crd_go_float(b, json_real_value(v));
        return;

    case JSON_TRUE:
        gcp_buf_addstr(b, "true");
        return;

    case JSON_FALSE:
        gcp_buf_addstr(b, "false");
        return;

    case JSON_OBJECT:
    case JSON_ARRAY:
        gcp_crd_render_value(b, v, 0, &gcp_crd_go_sharp_style);
        return;

    default:
        gcp_buf_addstr(b, "\"null\"");       /* nil shows as the string */
    }
}


const char *
gcp_crd_go_value_str(gcp_arena_t *a, const json_t *v)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_crd_go_value(&b, v);

    if (gcp_buf_failed(&b)) {
        return "\"\"";
    }

    return gcp_buf_dup(&b).data;
}


/* json.Marshal of a scalar */
static void
gcp_crd_json_scalar(gcp_buf_t *b, const json_t *v)
{
    char  buf[64];

    switch (json_typeof(v)) {

    case JSON_STRING:
        gcp_json_add_string(b, json_string_value(v), json_string_length(v));
        return;

    case JSON_INTEGER:
        gcp_buf_add_int(b, json_integer_value(v));
        return;

    case JSON_REAL:
        if (!isfinite(json_real_value(v))) {
            gcp_buf_addstr(b, "null");
            return;
        }

        gcp_buf_add(b, buf, gcp_json_format_float(json_real_value(v), 'j',
                                                  buf));
        return;

    case JSON_TRUE:
        gcp_buf_addstr(b, "true");
        return;

    case JSON_FALSE:
        gcp_buf_addstr(b, "false");
        return;

    default:
        gcp_buf_addstr(b, "null");
    }
}


void
gcp_crd_marshal(gcp_buf_t *b, const json_t *v)
{
    gcp_crd_render_value(b, v, 0, &gcp_crd_json_style);
}


int64_t
gcp_crd_go_f2i(double f)
{
    /* CVTTSD2SQ: NaN and out of range give the "integer indefinite" */

    if (isnan(f) || f >= 9223372036854775808.0
        || f < -9223372036854775808.0)
    {
        return INT64_MIN;
    }

    return (int64_t) f;
}


int
gcp_crd_is_json_integer(double f)
{
    double    g, diff;
    uint64_t  u;

    if (isnan(f) || isinf(f) || f < -9007199254740991.0
        || f > 9007199254740991.0)
    {
        return 0;
    }

    if (f == (double) (int64_t) f) {
        return 1;
    }

    /* Go's float64(uint64(f)) on amd64 */
    u = f < 0 ? (uint64_t) (int64_t) f : (uint64_t) f;
    g = (double) u;

    if (f == g) {
        return 1;
    }

    diff = fabs(f - g);

    if (f == 0 || g == 0 || diff < 4.9406564584124654e-324) {
        return diff < 1e-9 * 4.9406564584124654e-324;
    }

    return diff / fmin(fabs(f) + fabs(g), 1.7976931348623157e308) < 1e-9;
}


/* Go's string(rune(i)): the UTF-8 of i, or of U+FFFD when not a rune */
static size_t
gcp_crd_rune_string(json_int_t i, char *buf)
{
    uint32_t  r;

    r = (i < 0 || i > 0x10ffff || (i >= 0xd800 && i <= 0xdfff))
        ? 0xfffd : (uint32_t) i;

    if (r < 0x80) {
        buf[0] = (char) r;
        return 1;
    }

    if (r < 0x800) {
        buf[0] = (char) (0xc0 | (r >> 6));
        buf[1] = (char) (0x80 | (r & 0x3f));
        return 2;
    }

    if (r < 0x10000) {
        buf[0] = (char) (0xe0 | (r >> 12));
        buf[1] = (char) (0x80 | ((r >> 6) & 0x3f));
        buf[2] = (char) (0x80 | (r & 0x3f));
        return 3;
    }

    buf[0] = (char) (0xf0 | (r >> 18));
    buf[1] = (char) (0x80 | ((r >> 12) & 0x3f));
    buf[2] = (char) (0x80 | ((r >> 6) & 0x3f));
    buf[3] = (char) (0x80 | (r & 0x3f));
    return 4;
}


/*
 * reflect: data converted to the enum value's type when convertible,
 * then DeepEqual (so 1.5 equals 1, and 65 equals "A")
 */
int
gcp_crd_enum_match(const json_t *v, const json_t *e)
{
    char    buf[4];
    size_t  n;

    switch (gcp_crd_kind(e)) {

    case GCP_CRD_K_NULL:
        return 0;

    case GCP_CRD_K_STRING:
        if (json_is_string(v)) {
            return json_string_length(v) == json_string_length(e)
                   && memcmp(json_string_value(v), json_string_value(e),
                             json_string_length(e)) == 0;
        }

        if (json_is_integer(v)) {
            n = gcp_crd_rune_string(json_integer_value(v), buf);
            return json_string_length(e) == n
                   && memcmp(json_string_value(e), buf, n) == 0;
        }

        return 0;

    case GCP_CRD_K_INT:
        if (json_is_integer(v)) {
            return json_integer_value(v) == json_integer_value(e);
        }

        if (json_is_real(v)) {
            return gcp_crd_go_f2i(json_real_value(v))
                   == json_integer_value(e);
        }

        return 0;

    case GCP_CRD_K_FLOAT:
        if (json_is_integer(v)) {
            return (double) json_integer_value(v) == json_real_value(e);
        }

        if (json_is_real(v)) {
            return json_real_value(v) == json_real_value(e);
        }

        return 0;

    case GCP_CRD_K_BOOL:
        return json_is_boolean(v) && json_equal((json_t *) v, (json_t *) e);

    case GCP_CRD_K_SLICE:
    case GCP_CRD_K_MAP:
        return json_typeof(v) == json_typeof(e)
               && json_equal((json_t *) v, (json_t *) e);
    }

    return 0;
}


size_t
gcp_crd_runes(const char *s, size_t len)
{
    size_t    i, n, k;
    uint32_t  r;

    for (i = 0, n = 0; i < len; n++) {
        if ((unsigned char) s[i] < 0x80) {
            i++;
            continue;
        }

        k = gcp_utf8_decode((const unsigned char *) s + i, len - i, &r);
        i += k;
    }

    return n;
}


/* ---------------------------------------------------------- field paths */


size_t
gcp_crd_path_child(gcp_buf_t *p, const char *name, size_t len)
{
    size_t  old = p->len;

    if (p->len) {
        gcp_buf_addc(p, '.');
    }

    gcp_buf_add(p, name, len);
    return old;
}


size_t
gcp_crd_path_index(gcp_buf_t *p, size_t i)
{
    size_t  old = p->len;

    gcp_buf_addc(p, '[');
    gcp_buf_add_int(p, (int64_t) i);
    gcp_buf_addc(p, ']');
    return old;
}


size_t
gcp_crd_path_key(gcp_buf_t *p, const char *key, size_t len)
{
    size_t  old = p->len;

    gcp_buf_addc(p, '[');
    gcp_buf_add(p, key, len);
    gcp_buf_addc(p, ']');
    return old;
}


void
gcp_crd_path_pop(gcp_buf_t *p, size_t len)
{
    if (p->len > len) {
        p->len = len;
    }
}


const char *
gcp_crd_path_str(gcp_arena_t *a, gcp_buf_t *p)
{
    if (p->len == 0) {
        return "<nil>";
    }

    return gcp_strndup(a, p->data, p->len);
}
