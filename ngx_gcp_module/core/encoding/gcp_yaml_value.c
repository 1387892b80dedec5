
/*
 * Go values decoded from YAML (gcp_yaml_parse_int.h): printed as %#v does
 * for error messages, and converted to JSON as sigs.k8s.io/yaml does
 * (convertToJSONableObject(), json.Marshal()), without recursion.
 */

#include <math.h>
#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_yaml_parse_int.h"
#include "gcp_yaml_parse.h"
#include "gcp_yaml_resolve.h"


/* fmt's %#v */


typedef struct {
    gcp_buf_t    *b;
    size_t        start;
    unsigned      full:1;
} gcp_gvfmt_t;


static void gcp_gv_format_value(gcp_gvfmt_t *f, const gcp_gv_t *v,
    int top);


/* Go's %v of a float64 */

static void
gcp_gv_format_float(gcp_buf_t *b, double v)
{
    char  num[40];

    if (isnan(v)) {
        gcp_buf_addstr(b, "NaN");

    } else if (isinf(v)) {
        gcp_buf_addstr(b, v > 0 ? "+Inf" : "-Inf");

    } else {
        gcp_buf_add(b, num, gcp_json_format_float(v, 'g', num));
    }
}


/* The order of internal/fmtsort: nil first, then by type, then value. */

static int
gcp_gv_rank(const gcp_gv_t *v)
{
    static const int  rank[] = {
        [GCP_GV_NIL] = 0, [GCP_GV_STR] = 1, [GCP_GV_INT] = 2,
        [GCP_GV_UINT] = 3, [GCP_GV_FLOAT] = 4, [GCP_GV_BOOL] = 5,
        [GCP_GV_MAP] = 6, [GCP_GV_SEQ] = 7
    };

    return rank[v->type];
}


static int
gcp_gv_key_cmp(const void *pa, const void *pb)
{
    int              ra, rb;
    size_t           n;
    const gcp_gv_t  *a = *(const gcp_gv_t * const *) pa;
    const gcp_gv_t  *b = *(const gcp_gv_t * const *) pb;

    ra = gcp_gv_rank(a);
    rb = gcp_gv_rank(b);

    if (ra != rb) {
        return ra < rb ? -1 : 1;
    }

    switch (a->type) {

    case GCP_GV_STR:
        n = gcp_min(a->n, b->n);
        ra = memcmp(a->v.s, b->v.s, n);

        if (ra != 0) {
            return ra;
        }

        return (a->n > b->n) - (a->n < b->n);

    case GCP_GV_UINT:
        return (a->v.u > b->v.u) - (a->v.u < b->v.u);

    case GCP_GV_FLOAT:
        if (isnan(a->v.f) || isnan(b->v.f)) {
            return isnan(b->v.f) - isnan(a->v.f);
        }

        return (a->v.f > b->v.f) - (a->v.f < b->v.f);

    case GCP_GV_INT:
    case GCP_GV_BOOL:
        return (a->v.i > b->v.i) - (a->v.i < b->v.i);

    default:
        return 0;
    }
}


static int
gcp_gv_format_room(gcp_gvfmt_t *f)
{
    if (f->b->len - f->start >= GCP_GV_FORMAT_MAX) {
        f->full = 1;
    }

    return !f->full;
}


static void
gcp_gv_format_map(gcp_gvfmt_t *f, const gcp_gv_t *v)
{
    size_t            i, k;
    const gcp_gv_t  **keys;

    gcp_buf_addstr(f->b, "map[interface {}]interface {}{");

    keys = malloc(v->n * sizeof(gcp_gv_t *) + 1);
    if (keys == NULL) {
        f->b->failed = 1;
        return;
    }

    for (i = 0; i < v->n; i++) {
        keys[i] = &v->v.items[2 * i];
    }

    qsort(keys, v->n, sizeof(gcp_gv_t *), gcp_gv_key_cmp);

    for (i = 0; i < v->n && gcp_gv_format_room(f); i++) {
        if (i) {
            gcp_buf_add(f->b, ", ", 2);
        }

        k = (size_t) (keys[i] - v->v.items);

        gcp_gv_format_value(f, keys[i], 0);
        gcp_buf_addc(f->b, ':');
        gcp_gv_format_value(f, &v->v.items[k + 1], 0);
    }

    free(keys);

    gcp_buf_addc(f->b, '}');
}


static void
gcp_gv_format_value(gcp_gvfmt_t *f, const gcp_gv_t *v, int top)
{
    size_t       i;
    const char  *q;

    if (!gcp_gv_format_room(f)) {
        return;
    }

    switch (v->type) {

    case GCP_GV_NIL:
        gcp_buf_addstr(f->b, top ? "<nil>" : "interface {}(nil)");
        break;

    case GCP_GV_BOOL:
        gcp_buf_addstr(f->b, v->v.i ? "true" : "false");
        break;

    case GCP_GV_INT:
        gcp_buf_add_int(f->b, v->v.i);
        break;

    case GCP_GV_UINT:
        gcp_buf_printf(f->b, "0x%llx", (unsigned long long) v->v.u);
        break;

    case GCP_GV_FLOAT:
        gcp_gv_format_float(f->b, v->v.f);
        break;

    case GCP_GV_STR:
        q = gcp_go_quote(f->b->arena, v->v.s, v->n);
        gcp_buf_addstr(f->b, q);
        break;

    case GCP_GV_SEQ:
        gcp_buf_addstr(f->b, "[]interface {}{");

        for (i = 0; i < v->n && gcp_gv_format_room(f); i++) {
            if (i) {
                gcp_buf_add(f->b, ", ", 2);
            }

            gcp_gv_format_value(f, &v->v.items[i], 0);
        }

        gcp_buf_addc(f->b, '}');
        break;

    default:
        gcp_gv_format_map(f, v);
        break;
    }
}


void
gcp_gv_format(gcp_buf_t *b, const gcp_gv_t *v, int top)
{
    gcp_gvfmt_t  f;

    f.b = b;
    f.start = b->len;
    f.full = 0;

    gcp_gv_format_value(&f, v, top);

    if (f.full) {
        gcp_buf_addstr(b, "...");
    }
}


/* conversion to JSON */


typedef struct {
    const char      *key;           /* valid UTF-8 */
    size_t           len;
    size_t           order;         /* the pair's place in the map */
    const gcp_gv_t  *value;
} gcp_gvkey_t;


typedef struct {
    const gcp_gv_t  *src;
    json_t          *dst;           /* NULL: too deep, only checked */
    gcp_gvkey_t     *keys;          /* a map: its keys, sorted */
    size_t           n;
    size_t           i;
} gcp_gvframe_t;


typedef struct {
    gcp_arena_t     *a;             /* messages */
    gcp_arena_t     *tmp;           /* keys */
    gcp_gvframe_t   *stack;
    size_t           depth;
    size_t           cap;
    const char      *key_error;     /* convertToJSONableObject's */
    const char      *value_error;   /* json.Marshal's */
    const char      *depth_error;   /* the JSON decoder's */
    unsigned         nomem:1;
} gcp_gvconv_t;


/*
 * Returns s as json.Marshal writes it back: invalid UTF-8 bytes become
 * U+FFFD.  The result is s itself or arena memory; NULL when out of
 * memory.
 */
static const char *
gcp_gv_utf8(gcp_arena_t *a, const char *s, size_t *len)
{
    size_t     i, n;
    uint32_t   r;
    gcp_buf_t  b;

    for (i = 0; i < *len; i += n) {
        n = gcp_utf8_decode((const unsigned char *) s + i, *len - i, &r);

        if (r == 0xfffd && n == 1) {
            break;
        }
    }

    if (i == *len) {
        return s;
    }

    gcp_buf_init(&b, a);

    for (i = 0; i < *len; i += n) {
        n = gcp_utf8_decode((const unsigned char *) s + i, *len - i, &r);
        gcp_utf8_add(&b, r);
    }

    if (gcp_buf_failed(&b)) {
        return NULL;
    }

    *len = b.len;

    return gcp_buf_cstr(&b);
}


/* Sets why the map key k (of value v) cannot be a JSON key. */

static void
gcp_gv_key_error(gcp_gvconv_t *c, const gcp_gv_t *k, const gcp_gv_t *v)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, c->a);
    gcp_buf_printf(&b, "error converting YAML to JSON: unsupported map key "
                   "of type: %s, key: ",
                   k->type == GCP_GV_NIL ? "%!s(<nil>)" : "uint64");
    gcp_gv_format(&b, k, 1);
    gcp_buf_addstr(&b, ", value: ");
    gcp_gv_format(&b, v, 1);

    if (gcp_buf_failed(&b)) {
        c->nomem = 1;
        return;
    }

    c->key_error = gcp_buf_cstr(&b);
}


/* The string a key becomes (convertToJSONableObject()); NULL: refused. */

static const char *
gcp_gv_key(gcp_gvconv_t *c, const gcp_gv_t *k, const gcp_gv_t *v,
    size_t *len)
{
    char         num[48];
    const char  *s;

    switch (k->type) {

    case GCP_GV_STR:
        *len = k->n;
        s = gcp_gv_utf8(c->tmp, k->v.s, len);
        if (s == NULL) {
            c->nomem = 1;
        }

        return s;

    case GCP_GV_INT:
        *len = (size_t) sprintf(num, "%lld", (long long) k->v.i);
        break;

    case GCP_GV_BOOL:
        return (*len = k->v.i ? 4 : 5, k->v.i ? "true" : "false");

    case GCP_GV_FLOAT:
        /* go-yaml's way of writing a float: FormatFloat(f, 'g', -1, 32) */
        *len = gcp_json_format_float32(k->v.f, num);

        if (strcmp(num, "+Inf") == 0) {
            return (*len = 4, ".inf");
        }

        if (strcmp(num, "-Inf") == 0) {
            return (*len = 5, "-.inf");
        }

        if (strcmp(num, "NaN") == 0) {
            return (*len = 4, ".nan");
        }

        break;

    default:
        gcp_gv_key_error(c, k, v);
        return NULL;
    }

    s = gcp_strndup(c->tmp, num, *len);
    if (s == NULL) {
        c->nomem = 1;
    }

    return s;
}


static int
gcp_gvkey_cmp(const void *pa, const void *pb)
{
    int                 r;
    const gcp_gvkey_t  *a = pa, *b = pb;

    r = memcmp(a->key, b->key, gcp_min(a->len, b->len));

    if (r == 0) {
        r = (a->len > b->len) - (a->len < b->len);
    }

    if (r == 0) {
        r = (a->order > b->order) - (a->order < b->order);
    }

    return r;
}


/*
 * Sets the keys of map v as strings, sorted, a repeated key keeping the
 * last value.  Returns the number of keys, or (size_t) -1 on error.
 */
static size_t
gcp_gv_map_keys(gcp_gvconv_t *c, const gcp_gv_t *v, gcp_gvkey_t **out)
{
    size_t        i, n;
    gcp_gvkey_t  *keys;

    *out = NULL;

    if (v->n == 0) {
        return 0;
    }

    keys = gcp_alloc(c->tmp, v->n * sizeof(gcp_gvkey_t));
    if (keys == NULL) {
        c->nomem = 1;
        return (size_t) -1;
    }

    for (i = 0; i < v->n; i++) {
        keys[i].value = &v->v.items[2 * i + 1];
        keys[i].order = i;
        keys[i].key = gcp_gv_key(c, &v->v.items[2 * i], keys[i].value,
                                 &keys[i].len);

        if (keys[i].key == NULL) {
            return (size_t) -1;
        }
    }

    qsort(keys, v->n, sizeof(gcp_gvkey_t), gcp_gvkey_cmp);

    for (i = 0, n = 0; i < v->n; i++) {
        if (i + 1 < v->n && keys[i + 1].len == keys[i].len
            && memcmp(keys[i + 1].key, keys[i].key, keys[i].len) == 0)
        {
            continue;                   /* the later one wins */
        }

        keys[n++] = keys[i];
    }

    *out = keys;

    return n;
}


/* A JSON number as kube-apiserver reads Go's text of v back. */

static json_t *
gcp_gv_number(gcp_gvconv_t *c, double v)
{
    char     num[40];
    size_t   n;
    int64_t  i;

    if (isnan(v) || isinf(v)) {
        if (c->value_error == NULL) {
            c->value_error = gcp_sprintf(c->a, "error converting YAML to "
                                         "JSON: json: unsupported value: "
                                         "%s", isnan(v) ? "NaN"
                                               : v > 0 ? "+Inf" : "-Inf");
            if (c->value_error == NULL) {
                c->nomem = 1;
            }
        }

        return json_null();
    }

    n = gcp_json_format_float(v, 'j', num);

    if (strpbrk(num, ".eE") == NULL
        && gcp_go_parse_int(num, n, 10, &i) == GCP_GO_NUM_OK)
    {
        return json_integer(i);
    }

    return json_real(v);
}


/* A scalar's JSON value, or an empty container (filled afterwards). */

static json_t *
gcp_gv_scalar(gcp_gvconv_t *c, const gcp_gv_t *v)
{
    size_t       len;
    const char  *s;

    switch (v->type) {

    case GCP_GV_NIL:
        return json_null();

    case GCP_GV_BOOL:
        return json_boolean(v->v.i);

    case GCP_GV_INT:
        return json_integer(v->v.i);

    case GCP_GV_UINT:
        return json_real((double) v->v.u);

    case GCP_GV_FLOAT:
        return gcp_gv_number(c, v->v.f);

    case GCP_GV_STR:
        len = v->n;
        s = gcp_gv_utf8(c->tmp, v->v.s, &len);
        return s ? json_stringn_nocheck(s, len) : NULL;

    case GCP_GV_MAP:
        return json_object();

    default:
        return json_array();
    }
}


/* Starts converting the collection v into dst (NULL: check only). */

static int
gcp_gv_push(gcp_gvconv_t *c, const gcp_gv_t *v, json_t *dst)
{
    size_t          cap;
    gcp_gvframe_t  *f, *stack;

    if (c->depth == c->cap) {
        cap = c->cap ? c->cap * 2 : 32;
        stack = realloc(c->stack, cap * sizeof(gcp_gvframe_t));
        if (stack == NULL) {
            c->nomem = 1;
            return GCP_ENOMEM;
        }

        c->stack = stack;
        c->cap = cap;
    }

    f = &c->stack[c->depth++];
    f->src = v;
    f->dst = dst;
    f->i = 0;
    f->keys = NULL;
    f->n = v->n;

    if (v->type == GCP_GV_MAP) {
        f->n = gcp_gv_map_keys(c, v, &f->keys);

        if (f->n == (size_t) -1) {
            return GCP_EBADREQUEST;
        }
    }

    return GCP_OK;
}


/* One step: the next item of the innermost collection. */

static int
gcp_gv_step(gcp_gvconv_t *c)
{
    json_t           *j, *dst;
    gcp_gvkey_t      *k;
    gcp_gvframe_t    *f;
    const gcp_gv_t   *v;

    f = &c->stack[c->depth - 1];

    if (f->i == f->n) {
        c->depth--;
        return GCP_OK;
    }

    k = f->keys ? &f->keys[f->i] : NULL;
    v = k ? k->value : &f->src->v.items[f->i];
    f->i++;

    dst = f->dst;

    if (v->type == GCP_GV_MAP || v->type == GCP_GV_SEQ) {

        if (dst && c->depth + 1 > GCP_JSON_MAX_DEPTH) {
            /* Go's JSON scanner: more than 10000 nested containers */
            if (c->depth_error == NULL) {
                c->depth_error = (v->type == GCP_GV_MAP)
                                 ? "invalid character '{' exceeded max depth"
                                 : "invalid character '[' exceeded max depth";
            }

            dst = NULL;
        }

        j = dst ? gcp_gv_scalar(c, v) : NULL;

        if (dst && j == NULL) {
            c->nomem = 1;
            return GCP_ENOMEM;
        }

    } else {
        j = gcp_gv_scalar(c, v);

        if (j == NULL) {
            c->nomem = 1;
            return GCP_ENOMEM;
        }
    }

    if (j && dst) {
        if (k ? json_object_setn_new_nocheck(dst, k->key, k->len, j)
              : json_array_append_new(dst, j))
        {
            c->nomem = 1;
            return GCP_ENOMEM;
        }

    } else if (j) {
        json_decref(j);
        j = NULL;
    }

    if (v->type == GCP_GV_MAP || v->type == GCP_GV_SEQ) {
        return gcp_gv_push(c, v, j);
    }

    return GCP_OK;
}


int
gcp_gv_to_json(gcp_arena_t *a, gcp_arena_t *tmp, const gcp_gv_t *v,
    json_t **out, const char **msg, unsigned *json_err)
{
    int            rc;
    json_t        *root;
    gcp_gvconv_t   c;

    memset(&c, 0, sizeof(gcp_gvconv_t));
    c.a = a;
    c.tmp = tmp;

    *out = NULL;
    *json_err = 0;

    root = gcp_gv_scalar(&c, v);

    if (root == NULL) {
        return GCP_ENOMEM;
    }

    rc = GCP_OK;

    if (v->type == GCP_GV_MAP || v->type == GCP_GV_SEQ) {
        rc = gcp_gv_push(&c, v, root);

        while (rc == GCP_OK && c.depth) {
            rc = gcp_gv_step(&c);
        }
    }

    free(c.stack);

    if (c.nomem) {
        json_decref(root);
        return GCP_ENOMEM;
    }

    *msg = c.key_error ? c.key_error
                       : c.value_error ? c.value_error : c.depth_error;

    if (*msg) {
        *json_err = (c.key_error == NULL && c.value_error == NULL);
        json_decref(root);
        return GCP_EBADREQUEST;
    }

    *out = root;

    return GCP_OK;
}
