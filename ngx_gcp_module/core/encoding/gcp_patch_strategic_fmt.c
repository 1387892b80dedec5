
/*
 * Go's runtime, as far as the strategic merge patch's results show it
 * (see gcp_patch_strategic_int.h): the mergepatch error messages, which
 * print values with fmt's %v and %s and name Go's dynamic types, and
 * Go's == on interface{} values.
 */

#include <stdlib.h>

#include "gcp_patch_strategic_int.h"


static void gcp_smp_fmt(gcp_buf_t *b, const json_t *v, int verb);


/* ---------------------------------------------------------------- errors */


int
gcp_smp_fail(gcp_smp_t *smp, int rc, const char *fmt, ...)
{
    char     *p;
    va_list   args;

    va_start(args, fmt);
    p = gcp_patch_vsprintf(smp->arena, fmt, args);
    va_end(args);

    if (p == NULL) {
        smp->rc = GCP_ENOMEM;
        smp->msg = "out of memory";
        return GCP_ENOMEM;
    }

    smp->rc = rc;
    smp->msg = p;

    return rc;
}


int
gcp_smp_nomem(gcp_smp_t *smp)
{
    smp->rc = GCP_ENOMEM;
    smp->msg = "out of memory";

    return GCP_ENOMEM;
}


/* Returns v rendered as Go's fmt %v (verb 'v') or %s (verb 's') does. */
static const char *
gcp_smp_str(gcp_smp_t *smp, const json_t *v, int verb)
{
    gcp_buf_t    b;
    const char  *s;

    gcp_buf_init(&b, smp->arena);
    gcp_smp_fmt(&b, v, verb);
    s = gcp_buf_cstr(&b);

    return (s == NULL || gcp_buf_failed(&b)) ? "" : s;
}


gcp_smp_type_t
gcp_smp_type(const json_t *v)
{
    if (v == NULL) {
        return GCP_SMP_NIL;
    }

    switch (json_typeof(v)) {

    case JSON_OBJECT:
        return GCP_SMP_MAP;

    case JSON_ARRAY:
        return GCP_SMP_SLICE;

    case JSON_STRING:
        return GCP_SMP_STRING;

    case JSON_INTEGER:
        return GCP_SMP_INT;

    case JSON_REAL:
        return GCP_SMP_FLOAT;

    case JSON_TRUE:
    case JSON_FALSE:
        return GCP_SMP_BOOL;

    default:
        return GCP_SMP_NIL;
    }
}


/* reflect.TypeOf(v).String() */
static const char *
gcp_smp_type_name(const json_t *v)
{
    static const char  *names[] = {
        "<nil>", "map[string]interface {}", "[]interface {}", "string",
        "int64", "float64", "bool"
    };

    return names[gcp_smp_type(v)];
}


/* mergepatch.ErrBadArgType(expected, actual) */
int
gcp_smp_bad_arg(gcp_smp_t *smp, gcp_smp_type_t expected, const json_t *v)
{
    return gcp_smp_fail(smp, GCP_EINTERNAL,
                        "expected a %s, but received a %s",
                        expected == GCP_SMP_MAP ? "map[string]interface {}"
                                                : "[]interface {}",
                        gcp_smp_type_name(v));
}


/* mergepatch.ErrNoMergeKey(m, key) */
int
gcp_smp_no_merge_key(gcp_smp_t *smp, const json_t *m, const char *key)
{
    return gcp_smp_fail(smp, GCP_EINTERNAL,
                        "map: %s does not contain declared merge key: %s",
                        gcp_smp_str(smp, m, 'v'), key);
}


/* mergepatch.ErrBadPatchType(t, m) */
int
gcp_smp_bad_patch_type(gcp_smp_t *smp, const json_t *t, const json_t *m)
{
    return gcp_smp_fail(smp, GCP_EINTERNAL, "unknown patch type: %s in "
                        "map: %s", gcp_smp_str(smp, t, 's'),
                        gcp_smp_str(smp, m, 'v'));
}


/* ------------------------------------------------------- Go formatting */


/* Go's order of map keys: bytewise */
static int
gcp_smp_key_cmp(const void *x, const void *y)
{
    int               rc;
    const gcp_str_t  *a, *b;

    a = x;
    b = y;

    rc = memcmp(a->data, b->data, gcp_min(a->len, b->len));

    if (rc == 0) {
        rc = (a->len > b->len) - (a->len < b->len);
    }

    return rc;
}


/*
 * Appends v as Go's fmt prints an interface{} holding it with %v or %s:
 * maps as map[k:v ...] with sorted keys, slices as [a b], nil as <nil>;
 * %s of a non-string is %!s(type=value).
 */
static void
gcp_smp_fmt(gcp_buf_t *b, const json_t *v, int verb)
{
    char          num[40];
    size_t        i, n, klen;
    json_t       *e;
    gcp_str_t    *keys;
    const char   *key;

    switch (gcp_smp_type(v)) {

    case GCP_SMP_NIL:
        gcp_buf_addstr(b, verb == 'v' ? "<nil>" : "%!s(<nil>)");
        return;

    case GCP_SMP_STRING:
        gcp_buf_add(b, json_string_value(v), json_string_length(v));
        return;

    case GCP_SMP_INT:
        gcp_buf_printf(b, verb == 'v' ? "%" JSON_INTEGER_FORMAT
                                      : "%%!s(int64=%" JSON_INTEGER_FORMAT ")",
                       json_integer_value(v));
        return;

    case GCP_SMP_FLOAT:
        /* %v of a float64 is strconv's 'g' with the shortest precision */
        n = gcp_json_format_float(json_real_value(v), 'g', num);
        gcp_buf_addstr(b, verb == 'v' ? "" : "%!s(float64=");
        gcp_buf_add(b, num, n);
        gcp_buf_addstr(b, verb == 'v' ? "" : ")");
        return;

    case GCP_SMP_BOOL:
        gcp_buf_addstr(b, verb == 'v' ? "" : "%!s(bool=");
        gcp_buf_addstr(b, json_is_true(v) ? "true" : "false");
        gcp_buf_addstr(b, verb == 'v' ? "" : ")");
        return;

    case GCP_SMP_SLICE:
        gcp_buf_addc(b, '[');

        for (i = 0; i < json_array_size(v); i++) {
            if (i > 0) {
                gcp_buf_addc(b, ' ');
            }

            gcp_smp_fmt(b, json_array_get(v, i), verb);
        }

        gcp_buf_addc(b, ']');
        return;

    case GCP_SMP_MAP:
        n = json_object_size(v);
        keys = gcp_alloc(b->arena, (n + 1) * sizeof(gcp_str_t));
        if (keys == NULL) {
            b->failed = 1;
            return;
        }

        i = 0;
        json_object_keylen_foreach((json_t *) v, key, klen, e) {
            keys[i].data = key;
            keys[i++].len = klen;
        }

        qsort(keys, n, sizeof(gcp_str_t), gcp_smp_key_cmp);

        gcp_buf_addstr(b, "map[");

        for (i = 0; i < n; i++) {
            if (i > 0) {
                gcp_buf_addc(b, ' ');
            }

            gcp_buf_add(b, keys[i].data, keys[i].len);
            gcp_buf_addc(b, ':');
            gcp_smp_fmt(b, json_object_getn(v, keys[i].data, keys[i].len),
                        verb);
        }

        gcp_buf_addc(b, ']');
        return;
    }
}


/* Appends a Go slice as fmt %v prints it. */
void
gcp_smp_fmt_slice(gcp_buf_t *b, const gcp_smp_slice_t *s)
{
    size_t  i;

    gcp_buf_addc(b, '[');

    for (i = 0; i < s->len; i++) {
        if (i > 0) {
            gcp_buf_addc(b, ' ');
        }

        gcp_smp_fmt(b, s->v[i], 'v');
    }

    gcp_buf_addc(b, ']');
}


/* ------------------------------------------------------------- equality */


/* Go's == on two interface{} values (deep for maps and slices). */
int
gcp_smp_eq(const json_t *x, const json_t *y)
{
    gcp_smp_type_t  t;

    t = gcp_smp_type(x);

    if (t != gcp_smp_type(y)) {
        return 0;
    }

    switch (t) {

    case GCP_SMP_NIL:
        return 1;

    case GCP_SMP_BOOL:
        return json_typeof(x) == json_typeof(y);

    case GCP_SMP_FLOAT:
        return json_real_value(x) == json_real_value(y);

    default:
        return gcp_json_equal(x, y);
    }
}
