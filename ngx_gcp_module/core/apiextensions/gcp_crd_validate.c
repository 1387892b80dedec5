
/*
 * kube-openapi's SchemaValidator over a compiled schema, as
 * apiextensions' ValidateCustomResource() runs it and turns its result
 * into field errors (kube-openapi pkg/validation/validate: schema.go,
 * type.go, schema_props.go, validator.go, slice_validator.go,
 * object_validator.go, values.go; errors/schema.go for the messages).
 *
 * Faithful where it shows: the validators run in kube-openapi's order
 * (type, allOf/anyOf/oneOf/not, string, format, number, slice, enum,
 * object) and all of them, so a value may get several errors; a string
 * stops at its first failing check; an object with too few or too many
 * properties is not looked into; anyOf and oneOf report the failures of
 * the alternative with the most successful checks (kube-openapi's
 * MatchCount, computed the same way); identical messages are reported
 * once; number bounds and multipleOf of integers use Go's int64
 * conversion of the bound (an integer against a multipleOf below 1 gets
 * "factor MultipleOf declared for spec.n must be positive: 0", as there).
 */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "gcp_crd_int.h"
#include "gcp_json.h"


typedef struct {
    int          type;          /* gcp_ferr_type_t */
    unsigned     composite:1;   /* an errors.New: at the field path */
    const char  *name;          /* kube-openapi's Name */
    const char  *value;         /* rendered bad value, or NULL */
    const char  *detail;
    const char  *key;           /* Error(): what duplicates share */
} gcp_crd_verr_t;


typedef struct {
    gcp_arena_t             *a;
    const gcp_crd_schema_t  *cs;
    gcp_crd_match_t         *m;
    gcp_buf_t                path;
    gcp_crd_verr_t          *v;
    size_t                   n;
    size_t                   cap;
    unsigned                 nomem:1;
} gcp_crd_vctx_t;


static int gcp_crd_vnode(gcp_crd_vctx_t *c, const gcp_crd_node_t *s,
    const json_t *v, const json_t *old, int has_old);


static const char *
gcp_crd_vname(gcp_crd_vctx_t *c)
{
    const char  *p;

    p = gcp_strndup(c->a, c->path.data ? c->path.data : "", c->path.len);
    if (p == NULL) {
        c->nomem = 1;
        return "";
    }

    return p;
}


static gcp_crd_verr_t *
gcp_crd_verr(gcp_crd_vctx_t *c, int type, const char *name,
    const char *value)
{
    size_t           cap;
    gcp_crd_verr_t  *v;

    if (c->n == c->cap) {
        cap = c->cap ? c->cap * 2 : 16;
        v = gcp_alloc(c->a, cap * sizeof(gcp_crd_verr_t));
        if (v == NULL) {
            c->nomem = 1;
            return NULL;
        }

        if (c->n) {
            memcpy(v, c->v, c->n * sizeof(gcp_crd_verr_t));
        }

        c->v = v;
        c->cap = cap;
    }

    v = &c->v[c->n++];
    memset(v, 0, sizeof(gcp_crd_verr_t));
    v->type = type;
    v->name = name;
    v->value = value;

    return v;
}


/* room for n more errors */
static int
gcp_crd_reserve(gcp_crd_vctx_t *c, size_t n)
{
    size_t           cap;
    gcp_crd_verr_t  *v;

    if (c->cap - c->n >= n) {
        return 0;
    }

    for (cap = c->cap ? c->cap : 16; cap - c->n < n; cap *= 2) { /* void */ }

    v = gcp_alloc(c->a, cap * sizeof(gcp_crd_verr_t));
    if (v == NULL) {
        c->nomem = 1;
        return -1;
    }

    if (c->n) {
        memcpy(v, c->v, c->n * sizeof(gcp_crd_verr_t));
    }

    c->v = v;
    c->cap = cap;

    return 0;
}


/* an error whose message is also its detail */
static void
gcp_crd_verr_msg(gcp_crd_vctx_t *c, int type, const char *name,
    const char *value, const char *msg)
{
    gcp_crd_verr_t  *e;

    if (msg == NULL) {
        c->nomem = 1;
        return;
    }

    e = gcp_crd_verr(c, type, name, value);
    if (e) {
        e->detail = msg;
        e->key = msg;
    }
}


static void
gcp_crd_composite(gcp_crd_vctx_t *c, const char *fmt, const char *extra)
{
    const char      *name, *msg;
    gcp_crd_verr_t  *e;

    name = gcp_crd_vname(c);
    msg = gcp_sprintf(c->a, fmt, gcp_go_quote(c->a, name, strlen(name)),
                      extra ? extra : "");
    if (msg == NULL) {
        c->nomem = 1;
        return;
    }

    e = gcp_crd_verr(c, GCP_FERR_INVALID, name, "\"\"");
    if (e) {
        e->composite = 1;
        e->detail = msg;
        e->key = msg;
    }
}


static const char *
gcp_crd_render(gcp_crd_vctx_t *c, const json_t *v)
{
    return gcp_crd_go_value_str(c->a, v);
}


/* DeepEqual of the new value and its correlated old one (NULL: nil) */
static int
gcp_crd_same(const json_t *v, const json_t *old)
{
    if (old == NULL) {
        return json_is_null(v);
    }

    return json_equal((json_t *) v, (json_t *) old);
}


/*
 * A value validated through a ratcheting thunk: its errors are dropped
 * when it equals its correlated old value.
 */
static int
gcp_crd_vthunk(gcp_crd_vctx_t *c, const gcp_crd_node_t *s, const json_t *v,
    const json_t *old, int has_old)
{
    int     mc;
    size_t  mark = c->n;

    mc = gcp_crd_vnode(c, s, v, old, has_old);

    if (has_old && c->n > mark && gcp_crd_same(v, old)) {
        c->n = mark;
    }

    return mc;
}


/* ---------------------------------------------------------- validators */


static const char *
gcp_crd_schtype(gcp_crd_kind_t k, const char **format)
{
    *format = "";

    switch (k) {

    case GCP_CRD_K_BOOL:
        return "boolean";

    case GCP_CRD_K_STRING:
        return "string";

    case GCP_CRD_K_INT:
        *format = "int64";
        return "integer";

    case GCP_CRD_K_FLOAT:
        *format = "float64";
        return "number";

    case GCP_CRD_K_SLICE:
        return "array";

    default:
        return "object";
    }
}


static void
gcp_crd_type_error(gcp_crd_vctx_t *c, const char *type, const char *got)
{
    const char  *name, *q;

    name = gcp_crd_vname(c);
    q = gcp_go_quote(c->a, got, strlen(got));

    gcp_crd_verr_msg(c, GCP_FERR_TYPE_INVALID, name, q,
                     gcp_sprintf(c->a, "%s in body must be of type %s: %s",
                                 name, type, q));
}


/* typeValidator: 1 when the type matched (its MatchCount), else 0 */
static int
gcp_crd_vtype(gcp_crd_vctx_t *c, const gcp_crd_node_t *s, const json_t *v,
    gcp_crd_kind_t k)
{
    int          float_int, int_float, same, has_int;
    const char  *sch, *format, *type;

    sch = gcp_crd_schtype(k, &format);

    if (s->int_or_string) {
        /* the schema kube-apiserver validates with has both types */
        type = "integer,string";
        same = k == GCP_CRD_K_INT || k == GCP_CRD_K_STRING;
        has_int = 1;

    } else {
        type = s->type ? s->type : "";
        same = strcmp(type, sch) == 0;
        has_int = s->tkind == GCP_CRD_T_INTEGER;
    }

    float_int = k == GCP_CRD_K_FLOAT && has_int
                && gcp_crd_is_json_integer(json_real_value(v));
    int_float = k == GCP_CRD_K_INT && s->tkind == GCP_CRD_T_NUMBER
                && !s->int_or_string;

    if (k != GCP_CRD_K_STRING && k != GCP_CRD_K_SLICE && s->format
        && !(same || strcmp(format, s->format) == 0 || float_int
             || int_float))
    {
        gcp_crd_type_error(c, s->format, format);
        return 0;
    }

    if (s->tkind != GCP_CRD_T_NUMBER && !has_int
        && s->format && (k == GCP_CRD_K_STRING || k == GCP_CRD_K_SLICE))
    {
        return 1;
    }

    if (!(same || float_int || int_float)) {
        gcp_crd_type_error(c, type, sch);
        return 0;
    }

    return 1;
}


/* the alternatives of anyOf or oneOf: keeps the chosen one's errors */
typedef struct {
    size_t  start;
    size_t  end;
    int     mc;
} gcp_crd_alt_t;


static void
gcp_crd_keep(gcp_crd_vctx_t *c, size_t mark, const gcp_crd_alt_t *best,
    const char *fmt, const char *extra)
{
    size_t           n;
    gcp_crd_verr_t  *keep;

    n = best ? best->end - best->start : 0;
    keep = NULL;

    if (n) {
        keep = gcp_alloc(c->a, n * sizeof(gcp_crd_verr_t));
        if (keep == NULL) {
            c->nomem = 1;
            return;
        }

        memcpy(keep, &c->v[best->start], n * sizeof(gcp_crd_verr_t));
    }

    c->n = mark;

    if (fmt) {
        gcp_crd_composite(c, fmt, extra);
    }

    if (n && gcp_crd_reserve(c, n) == 0) {
        memcpy(&c->v[c->n], keep, n * sizeof(gcp_crd_verr_t));
        c->n += n;
    }
}


/* schemaPropsValidator: its MatchCount */
static int
gcp_crd_vprops(gcp_crd_vctx_t *c, const gcp_crd_node_t *s, const json_t *v,
    const json_t *old, int has_old)
{
    int             main, validated, mc;
    char            found[48];
    size_t          i, mark, start;
    gcp_crd_alt_t   best, *pbest;

    main = 0;

    if (s->nany_of) {
        mark = c->n;
        pbest = NULL;

        for (i = 0; i < s->nany_of; i++) {
            start = c->n;
            mc = gcp_crd_vnode(c, s->any_of[i], v, old, has_old);

            if (c->n == start) {
                pbest = NULL;
                main += mc;
                break;
            }

            if (pbest == NULL || mc > pbest->mc) {
                best.start = start;
                best.end = c->n;
                best.mc = mc;
                pbest = &best;
            }
        }

        if (i == s->nany_of) {
            main += pbest->mc;
            gcp_crd_keep(c, mark, pbest,
                         "%s must validate at least one schema (anyOf)%s",
                         NULL);

        } else {
            c->n = mark;
        }
    }

    if (s->none_of) {
        mark = c->n;
        pbest = NULL;
        validated = 0;
        mc = 0;

        for (i = 0; i < s->none_of; i++) {
            start = c->n;
            mc = gcp_crd_vnode(c, s->one_of[i], v, old, has_old);

            if (c->n == start) {
                if (validated++ == 0) {
                    best.mc = mc;           /* the first success */
                }

                pbest = NULL;
                continue;
            }

            if (validated == 0 && (pbest == NULL || mc > pbest->mc)) {
                best.start = start;
                best.end = c->n;
                best.mc = mc;
                pbest = &best;
            }
        }

        if (validated != 1) {
            if (validated == 0) {
                snprintf(found, sizeof(found), "Found none valid");

            } else {
                snprintf(found, sizeof(found), "Found %d valid alternatives",
                         validated);
            }

            if (pbest) {
                main += pbest->mc;
            }

            gcp_crd_keep(c, mark, pbest,
                         "%s must validate one and only one schema (oneOf). "
                         "%s", found);

        } else {
            main += best.mc;
            c->n = mark;
        }
    }

    if (s->nall_of) {
        validated = 0;

        for (i = 0; i < s->nall_of; i++) {
            start = c->n;
            main += gcp_crd_vnode(c, s->all_of[i], v, old, has_old);

            if (c->n == start) {
                validated++;
            }
        }

        if ((size_t) validated != s->nall_of) {
            gcp_crd_composite(c, "%s must validate all the schemas (allOf)%s",
                              validated == 0 ? ". None validated" : "");
        }
    }

    if (s->not) {
        mark = c->n;
        (void) gcp_crd_vnode(c, s->not, v, old, has_old);

        if (c->n == mark) {
            gcp_crd_composite(c, "%s must not validate the schema (not)%s",
                              NULL);

        } else {
            c->n = mark;
        }
    }

    return main + 1;
}


/* stringValidator: the first failing check */
static void
gcp_crd_vstring(gcp_crd_vctx_t *c, const gcp_crd_node_t *s, const json_t *v)
{
    int          rc;
    size_t       len, runes;
    const char  *str, *name;

    str = json_string_value(v);
    len = json_string_length(v);

    if (s->max_len >= 0 || s->min_len >= 0) {
        runes = gcp_crd_runes(str, len);

        if (s->max_len >= 0 && (int64_t) runes > s->max_len) {
            name = gcp_crd_vname(c);

            gcp_crd_verr_msg(c, GCP_FERR_TOO_LONG, name, NULL,
                gcp_sprintf(c->a, "%s in body should be at most %" PRId64
                            " chars long", name, s->max_len));

            if (c->n && !c->nomem) {
                c->v[c->n - 1].detail = gcp_sprintf(c->a,
                    "may not be longer than %" PRId64, s->max_len);
            }

            return;
        }

        if (s->min_len >= 0 && (int64_t) runes < s->min_len) {
            name = gcp_crd_vname(c);

            gcp_crd_verr_msg(c, GCP_FERR_INVALID, name, gcp_crd_render(c, v),
                gcp_sprintf(c->a, "%s in body should be at least %" PRId64
                            " chars long", name, s->min_len));
            return;
        }
    }

    if (s->pattern) {
        rc = gcp_crd_regex_match(s->pattern, c->m, str, len);

        if (rc < 0) {
            c->nomem = 1;
            return;
        }

        if (rc == 0) {
            name = gcp_crd_vname(c);

            gcp_crd_verr_msg(c, GCP_FERR_INVALID, name, gcp_crd_render(c, v),
                gcp_sprintf(c->a, "%s in body should match '%s'", name,
                            gcp_crd_regex_source(s->pattern)));
        }
    }
}


static void
gcp_crd_vformat(gcp_crd_vctx_t *c, const gcp_crd_node_t *s, const json_t *v)
{
    const char  *name, *q;

    if (gcp_crd_format_check(s->fmt, json_string_value(v),
                             json_string_length(v), s->fmt_re, c->m))
    {
        return;
    }

    name = gcp_crd_vname(c);
    q = gcp_crd_render(c, v);

    gcp_crd_verr_msg(c, GCP_FERR_TYPE_INVALID, name, q,
                     gcp_sprintf(c->a, "%s in body must be of type %s: %s",
                                 name, s->format, q));
}


/* %v of a bound: an int64 for integer values, else a float64 */
static void
gcp_crd_bound(gcp_buf_t *b, int integer, double f)
{
    if (integer) {
        gcp_buf_add_int(b, gcp_crd_go_f2i(f));

    } else {
        gcp_crd_go_float(b, f);
    }
}


static void
gcp_crd_number_error(gcp_crd_vctx_t *c, const json_t *v, const char *what,
    int integer, double bound)
{
    const char  *name;
    gcp_buf_t    b;

    name = gcp_crd_vname(c);

    gcp_buf_init(&b, c->a);
    gcp_buf_printf(&b, "%s in body %s", name, what);
    gcp_crd_bound(&b, integer, bound);

    gcp_crd_verr_msg(c, GCP_FERR_INVALID, name, gcp_crd_render(c, v),
                     gcp_buf_failed(&b) ? NULL : gcp_buf_dup(&b).data);
}


/* numberValidator: multipleOf, minimum, maximum */
static void
gcp_crd_vnumber(gcp_crd_vctx_t *c, const gcp_crd_node_t *s, const json_t *v)
{
    int          integer, fail;
    double       x, mult;
    int64_t      d, b;
    gcp_buf_t    msg;
    const char  *name, *factor;

    integer = json_is_integer(v);
    d = integer ? json_integer_value(v) : 0;
    x = json_number_value(v);

    if (s->has_multiple) {
        b = gcp_crd_go_f2i(s->multiple);

        if (integer && b <= 0) {
            name = gcp_crd_vname(c);
            factor = gcp_sprintf(c->a, "%" PRId64, b);

            gcp_crd_verr_msg(c, GCP_FERR_INVALID, name, factor,
                gcp_sprintf(c->a, "factor MultipleOf declared for %s must be "
                            "positive: %s", name, factor ? factor : ""));

        } else if (integer) {
            if ((d / b) * b != d) {
                gcp_crd_number_error(c, v, "should be a multiple of ", 1,
                                     (double) b);
            }

        } else if (s->multiple <= 0) {
            name = gcp_crd_vname(c);

            gcp_buf_init(&msg, c->a);
            gcp_crd_go_float(&msg, s->multiple);
            factor = gcp_buf_failed(&msg) ? NULL : gcp_buf_dup(&msg).data;

            gcp_crd_verr_msg(c, GCP_FERR_INVALID, name, factor,
                gcp_sprintf(c->a, "factor MultipleOf declared for %s must be "
                            "positive: %s", name, factor ? factor : ""));

        } else {
            mult = s->multiple < 1 ? 1 / s->multiple * x : x / s->multiple;

            if (!gcp_crd_is_json_integer(mult)) {
                gcp_crd_number_error(c, v, "should be a multiple of ", 0,
                                     s->multiple);
            }
        }
    }

    if (s->has_min) {
        if (integer) {
            b = gcp_crd_go_f2i(s->min);
            fail = s->excl_min ? d <= b : d < b;

        } else {
            fail = s->excl_min ? x <= s->min : x < s->min;
        }

        if (fail) {
            gcp_crd_number_error(c, v, s->excl_min
                                       ? "should be greater than "
                                       : "should be greater than or equal to ",
                                 integer, s->min);
        }
    }

    if (s->has_max) {
        if (integer) {
            b = gcp_crd_go_f2i(s->max);
            fail = s->excl_max ? d >= b : d > b;

        } else {
            fail = s->excl_max ? x >= s->max : x > s->max;
        }

        if (fail) {
            gcp_crd_number_error(c, v, s->excl_max
                                       ? "should be less than "
                                       : "should be less than or equal to ",
                                 integer, s->max);
        }
    }
}


/* the old item an item correlates with, for ratcheting (map and set lists) */
static const json_t *
gcp_crd_correlate_item(const gcp_crd_node_t *s, const json_t *e,
    const json_t *old, int has_old, int *found)
{
    size_t   i, k;
    json_t  *o, *a, *b;

    *found = 0;

    if (!has_old || !json_is_array(old)) {
        return NULL;
    }

    json_array_foreach((json_t *) old, i, o) {
        if (s->list_type == GCP_CRD_LIST_SET) {
            if (json_equal((json_t *) e, o)) {
                *found = 1;
                return o;
            }

            continue;
        }

        if (s->list_type != GCP_CRD_LIST_MAP || !json_is_object(e)
            || !json_is_object(o) || s->nmap_keys == 0)
        {
            return NULL;
        }

        for (k = 0; k < s->nmap_keys; k++) {
            a = json_object_get(e, s->map_keys[k]);
            b = json_object_get(o, s->map_keys[k]);

            if ((a == NULL) != (b == NULL)
                || (a && !json_equal(a, b)))
            {
                break;
            }
        }

        if (k == s->nmap_keys) {
            *found = 1;
            return o;
        }
    }

    return NULL;
}


/* schemaSliceValidator: its MatchCount */
static int
gcp_crd_vslice(gcp_crd_vctx_t *c, const gcp_crd_node_t *s, const json_t *v,
    const json_t *old, int has_old)
{
    int              mc, found;
    size_t           i, j, n, pop;
    json_t          *e;
    const char      *name;
    const json_t    *o;

    mc = 0;
    n = json_array_size(v);

    if (s->items) {
        json_array_foreach((json_t *) v, i, e) {
            pop = gcp_crd_path_index(&c->path, i);
            o = gcp_crd_correlate_item(s, e, old, has_old, &found);
            mc += gcp_crd_vthunk(c, s->items, e, o, found);
            gcp_crd_path_pop(&c->path, pop);
        }
    }

    if (s->min_items >= 0 && (int64_t) n < s->min_items) {
        name = gcp_crd_vname(c);

        gcp_crd_verr_msg(c, GCP_FERR_INVALID, name,
                         gcp_sprintf(c->a, "%zu", n),
                         gcp_sprintf(c->a, "%s in body should have at least %"
                                     PRId64 " items", name, s->min_items));
    }

    if (s->max_items >= 0 && (int64_t) n > s->max_items) {
        name = gcp_crd_vname(c);

        gcp_crd_verr_msg(c, GCP_FERR_TOO_MANY, name,
                         gcp_sprintf(c->a, "%zu", n),
                         gcp_sprintf(c->a, "%s in body should have at most %"
                                     PRId64 " items", name, s->max_items));

        if (c->n && !c->nomem) {
            c->v[c->n - 1].detail = gcp_sprintf(c->a, "must have at most %"
                                                PRId64 " items",
                                                s->max_items);
        }
    }

    /* quadratic as upstream; CRDs may not set uniqueItems (the check) */

    if (s->unique) {
        for (i = 1; i < n; i++) {
            for (j = 0; j < i; j++) {
                if (json_equal(json_array_get(v, i), json_array_get(v, j))) {
                    break;
                }
            }

            if (j < i) {
                name = gcp_crd_vname(c);

                gcp_crd_verr_msg(c, GCP_FERR_INVALID, name, "\"\"",
                    gcp_sprintf(c->a, "%s in body shouldn't contain "
                                "duplicates", name));
                break;
            }
        }
    }

    return mc + 1;
}


static void
gcp_crd_venum(gcp_crd_vctx_t *c, const gcp_crd_node_t *s, const json_t *v)
{
    size_t           i;
    json_t          *e;
    const char      *name;
    gcp_crd_verr_t  *err;

    if (s->enumv == NULL) {
        return;
    }

    if (!json_is_null(v)) {
        json_array_foreach(s->enumv, i, e) {
            if (gcp_crd_enum_match(v, e)) {
                return;
            }
        }
    }

    name = gcp_crd_vname(c);

    err = gcp_crd_verr(c, GCP_FERR_NOT_SUPPORTED, name, gcp_crd_render(c, v));
    if (err) {
        err->detail = s->enum_detail;
        err->key = gcp_sprintf(c->a, "%s in body should be one of %s", name,
                               s->enum_list);
        if (err->key == NULL) {
            c->nomem = 1;
        }
    }
}


/* objectValidator: its MatchCount */
static int
gcp_crd_vobject(gcp_crd_vctx_t *c, const gcp_crd_node_t *s, const json_t *v,
    const json_t *old, int has_old)
{
    int              mc, ohas;
    void            *it;
    size_t           i, n, pop, klen;
    json_t          *pv;
    const char      *k, *name;
    const json_t    *o;
    gcp_crd_node_t  *p;

    n = json_object_size(v);

    if (s->min_props >= 0 && (int64_t) n < s->min_props) {
        name = gcp_crd_vname(c);

        gcp_crd_verr_msg(c, GCP_FERR_INVALID, name,
                         gcp_sprintf(c->a, "%zu", n),
                         gcp_sprintf(c->a, "%s in body should have at least %"
                                     PRId64 " properties", name,
                                     s->min_props));
        return 0;
    }

    if (s->max_props >= 0 && (int64_t) n > s->max_props) {
        name = gcp_crd_vname(c);

        gcp_crd_verr_msg(c, GCP_FERR_TOO_MANY, name,
                         gcp_sprintf(c->a, "%zu", n),
                         gcp_sprintf(c->a, "%s in body should have at most %"
                                     PRId64 " properties", name,
                                     s->max_props));

        if (c->n && !c->nomem) {
            c->v[c->n - 1].detail = gcp_sprintf(c->a, "must have at most %"
                                                PRId64 " items",
                                                s->max_props);
        }

        return 0;
    }

    mc = 0;
    ohas = has_old && json_is_object(old);

    if (s->ap_present) {
        for (it = json_object_iter((json_t *) v); it;
             it = json_object_iter_next((json_t *) v, it))
        {
            k = json_object_iter_key(it);
            klen = strlen(k);

            if (gcp_crd_prop(s, k, klen)) {
                continue;
            }

            if (!s->ap_allows) {
                name = gcp_crd_vname(c);

                gcp_crd_verr_msg(c, GCP_FERR_INVALID, name,
                                 gcp_go_quote(c->a, k, klen),
                                 gcp_sprintf(c->a, "%s.%s in body is a "
                                             "forbidden property", name, k));
                continue;
            }

            if (s->ap) {
                pop = c->path.len;
                gcp_buf_addc(&c->path, '.');
                gcp_buf_add(&c->path, k, klen);

                o = ohas ? json_object_get(old, k) : NULL;
                mc += gcp_crd_vthunk(c, s->ap, json_object_iter_value(it), o,
                                     ohas);
                gcp_crd_path_pop(&c->path, pop);
            }
        }
    }

    for (i = 0; i < s->nprops; i++) {
        p = s->props[i].node;
        pv = json_object_get(v, s->props[i].name);

        if (pv == NULL) {
            continue;
        }

        pop = gcp_crd_path_child(&c->path, s->props[i].name,
                                 s->props[i].len);

        o = ohas ? json_object_get(old, s->props[i].name) : NULL;
        mc += gcp_crd_vthunk(c, p, pv, o, ohas);

        gcp_crd_path_pop(&c->path, pop);
    }

    for (i = 0; i < s->nrequired; i++) {
        if (json_object_get(v, s->required[i]) != NULL) {
            continue;
        }

        name = gcp_sprintf(c->a, "%.*s.%s", (int) c->path.len,
                           c->path.data ? c->path.data : "", s->required[i]);
        if (name == NULL) {
            c->nomem = 1;
            continue;
        }

        gcp_crd_verr_msg(c, GCP_FERR_REQUIRED, name, NULL,
                         gcp_sprintf(c->a, "%s in body is required", name));

        if (c->n && !c->nomem) {
            c->v[c->n - 1].detail = NULL;
        }
    }

    return mc;
}


/* SchemaValidator.Validate: its MatchCount */
static int
gcp_crd_vnode(gcp_crd_vctx_t *c, const gcp_crd_node_t *s, const json_t *v,
    const json_t *old, int has_old)
{
    int             mc, r;
    const char     *name;
    gcp_crd_kind_t  k;

    if (c->nomem) {
        return 0;
    }

    k = gcp_crd_kind(v);

    if (k == GCP_CRD_K_NULL) {
        /* the type validator (even without a type) and the enum */

        mc = 1;

        if ((s->type || s->int_or_string) && !s->nullable
            && (s->int_or_string || strcmp(s->type, "null") != 0))
        {
            name = gcp_crd_vname(c);
            gcp_crd_verr_msg(c, GCP_FERR_TYPE_INVALID, name, "\"null\"",
                             gcp_sprintf(c->a, "%s in body must be of type "
                                         "%s: \"null\"", name,
                                         s->int_or_string ? "integer,string"
                                                          : s->type));
            mc = 0;
        }

        gcp_crd_venum(c, s, v);
        return mc;
    }

    mc = 0;

    if (s->type || s->format || s->int_or_string) {
        mc += gcp_crd_vtype(c, s, v, k) + 1;
    }

    mc += gcp_crd_vprops(c, s, v, old, has_old) + 1;

    if (k == GCP_CRD_K_STRING) {
        gcp_crd_vstring(c, s, v);
        mc++;

        if (s->format) {
            gcp_crd_vformat(c, s, v);
            mc++;
        }
    }

    if (k == GCP_CRD_K_INT || k == GCP_CRD_K_FLOAT) {
        gcp_crd_vnumber(c, s, v);
        mc += 2;
    }

    if (k == GCP_CRD_K_SLICE) {
        mc += gcp_crd_vslice(c, s, v, old, has_old) + 1;
    }

    gcp_crd_venum(c, s, v);
    mc++;

    if (k == GCP_CRD_K_MAP) {
        r = gcp_crd_vobject(c, s, v, old, has_old);
        mc += r + 1;
    }

    return mc + 1;
}


/* ---------------------------------------------------------- the result */


/* Result.AddErrors() keeps the first of identical messages */
static int
gcp_crd_seen(gcp_crd_vctx_t *c, const char **set, size_t mask,
    const char *key)
{
    size_t    slot;
    uint32_t  h = 2166136261u;
    const char  *p;

    for (p = key; *p; p++) {
        h = (h ^ (unsigned char) *p) * 16777619u;
    }

    for (slot = h & mask; set[slot]; slot = (slot + 1) & mask) {
        if (strcmp(set[slot], key) == 0) {
            return 1;
        }
    }

    set[slot] = key;
    return 0;
}


int
gcp_crd_validate_value(gcp_ferrs_t *errs, const gcp_crd_schema_t *cs,
    const gcp_crd_node_t *s, const json_t *v, const json_t *old,
    int has_old, const char *fld_path)
{
    size_t           i, size;
    const char     **set, *field, *name;
    gcp_crd_verr_t  *e;
    gcp_crd_vctx_t   c;

    memset(&c, 0, sizeof(c));
    c.a = errs->arena;
    c.cs = cs;

    gcp_buf_init(&c.path, c.a);

    c.m = gcp_crd_match_create();
    if (c.m == NULL) {
        return GCP_ENOMEM;
    }

    if (has_old) {
        (void) gcp_crd_vthunk(&c, s, v, old, 1);

    } else {
        (void) gcp_crd_vnode(&c, s, v, NULL, 0);
    }

    gcp_crd_match_free(c.m);

    if (c.nomem || gcp_buf_failed(&c.path)) {
        return GCP_ENOMEM;
    }

    if (c.n == 0) {
        return GCP_OK;
    }

    for (size = 16; size < c.n * 2; size *= 2) { /* void */ }

    set = gcp_calloc(c.a, size * sizeof(char *));
    if (set == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < c.n; i++) {
        e = &c.v[i];

        if (e->key == NULL || gcp_crd_seen(&c, set, size - 1, e->key)) {
            continue;
        }

        name = e->name ? e->name : "";

        if (e->composite || name[0] == '\0' || strcmp(name, ".") == 0) {
            field = fld_path ? fld_path : "<nil>";

        } else {
            if (name[0] == '.') {
                name++;
            }

            field = fld_path ? gcp_sprintf(c.a, "%s.%s", fld_path, name)
                             : name;
        }

        if (field == NULL) {
            return GCP_ENOMEM;
        }

        gcp_ferrs_add(errs, e->type, field, e->value, "%s",
                      e->detail ? e->detail : "");
    }

    return errs->nomem ? GCP_ENOMEM : GCP_OK;
}


int
gcp_crd_schema_validate(const gcp_crd_schema_t *cs, const json_t *obj,
    const json_t *old, gcp_ferrs_t *errs)
{
    int  rc;

    rc = gcp_crd_validate_value(errs, cs, cs->root, obj, old, old != NULL,
                                NULL);
    if (rc != GCP_OK) {
        return rc;
    }

    if (cs->root->subtree_meta) {
        gcp_crd_validate_embedded(errs, cs, cs->root, obj, "", 0);
    }

    if (cs->root->subtree_lists) {
        gcp_crd_validate_lists(errs, cs->root, obj);
    }

    return errs->nomem ? GCP_ENOMEM : GCP_OK;
}
