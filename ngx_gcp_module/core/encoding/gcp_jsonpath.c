
/*
 * JSONPath, kubectl's subset (see gcp_jsonpath.h).
 */

#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_jsonpath.h"


#define GCP_JSONPATH_MAX_STEPS  64


typedef enum {
    GCP_JP_FIELD = 0,
    GCP_JP_INDEX,
    GCP_JP_ALL,
    GCP_JP_FILTER
} gcp_jp_step_type_t;


typedef struct gcp_jp_step_s  gcp_jp_step_t;

struct gcp_jp_step_s {
    gcp_jp_step_type_t   type;
    char                *name;          /* FIELD */
    size_t               len;
    long                 index;         /* INDEX */
    gcp_jsonpath_t      *filter;        /* FILTER: @-relative path */
    json_t              *value;         /* FILTER: compared with */
    unsigned             negate:1;      /* FILTER: != */
};


struct gcp_jsonpath_s {
    gcp_jp_step_t   steps[GCP_JSONPATH_MAX_STEPS];
    size_t          n;
};


typedef struct {
    const char  *p;
    const char  *err;
} gcp_jp_parser_t;


static gcp_jsonpath_t *gcp_jp_parse(gcp_jp_parser_t *ps, int in_filter);


void
gcp_jsonpath_free(gcp_jsonpath_t *jp)
{
    size_t  i;

    if (jp == NULL) {
        return;
    }

    for (i = 0; i < jp->n; i++) {
        free(jp->steps[i].name);
        gcp_jsonpath_free(jp->steps[i].filter);
        json_decref(jp->steps[i].value);
    }

    free(jp);
}


static gcp_jp_step_t *
gcp_jp_add(gcp_jp_parser_t *ps, gcp_jsonpath_t *jp, gcp_jp_step_type_t type)
{
    gcp_jp_step_t  *s;

    if (jp->n == GCP_JSONPATH_MAX_STEPS) {
        ps->err = "too many steps";
        return NULL;
    }

    s = &jp->steps[jp->n++];
    memset(s, 0, sizeof(gcp_jp_step_t));
    s->type = type;

    return s;
}


/* A field name after '.': up to '.', '[', a blank or ')'; "\x" is x. */

static int
gcp_jp_field(gcp_jp_parser_t *ps, gcp_jsonpath_t *jp)
{
    size_t          n;
    const char     *p;
    gcp_jp_step_t  *s;

    s = gcp_jp_add(ps, jp, GCP_JP_FIELD);
    if (s == NULL) {
        return GCP_EINVALID;
    }

    s->name = malloc(strlen(ps->p) + 1);
    if (s->name == NULL) {
        ps->err = "out of memory";
        return GCP_ENOMEM;
    }

    n = 0;

    for (p = ps->p; *p && *p != '.' && *p != '[' && *p != ' ' && *p != ')'
                    && *p != '=' && *p != '!'; p++)
    {
        if (*p == '\\' && p[1]) {
            p++;
        }

        s->name[n++] = *p;
    }

    s->name[n] = '\0';
    s->len = n;
    ps->p = p;

    if (n == 0) {
        ps->err = "missing field name";
        return GCP_EINVALID;
    }

    return GCP_OK;
}


/* A quoted name or literal at ps->p ('x' or "x"); *out malloc'd. */

static int
gcp_jp_quoted(gcp_jp_parser_t *ps, char **out, size_t *len)
{
    char         q, *s;
    size_t       n;
    const char  *p;

    q = *ps->p;
    p = ps->p + 1;

    s = malloc(strlen(p) + 1);
    if (s == NULL) {
        ps->err = "out of memory";
        return GCP_ENOMEM;
    }

    n = 0;

    while (*p && *p != q) {
        if (*p == '\\' && p[1]) {
            p++;
        }

        s[n++] = *p++;
    }

    if (*p != q) {
        free(s);
        ps->err = "unterminated quoted string";
        return GCP_EINVALID;
    }

    s[n] = '\0';
    *out = s;
    *len = n;
    ps->p = p + 1;

    return GCP_OK;
}


static void
gcp_jp_blanks(gcp_jp_parser_t *ps)
{
    while (*ps->p == ' ') {
        ps->p++;
    }
}


/* The literal a filter compares with: a string, number or boolean. */

static json_t *
gcp_jp_literal(gcp_jp_parser_t *ps)
{
    char        *s, *end;
    size_t       n;
    json_t      *v;
    double       d;
    long long    i;

    if (*ps->p == '"' || *ps->p == '\'') {
        if (gcp_jp_quoted(ps, &s, &n) != GCP_OK) {
            return NULL;
        }

        v = json_stringn(s, n);
        free(s);
        return v;
    }

    if (strncmp(ps->p, "true", 4) == 0) {
        ps->p += 4;
        return json_true();
    }

    if (strncmp(ps->p, "false", 5) == 0) {
        ps->p += 5;
        return json_false();
    }

    i = strtoll(ps->p, &end, 10);

    if (end != ps->p && *end != '.' && *end != 'e' && *end != 'E') {
        ps->p = end;
        return json_integer(i);
    }

    d = strtod(ps->p, &end);

    if (end == ps->p) {
        ps->err = "unrecognized filter value";
        return NULL;
    }

    ps->p = end;

    return json_real(d);
}


/* [?(@.path == literal)] after "[?(" */

static int
gcp_jp_filter(gcp_jp_parser_t *ps, gcp_jsonpath_t *jp)
{
    gcp_jp_step_t  *s;

    s = gcp_jp_add(ps, jp, GCP_JP_FILTER);
    if (s == NULL) {
        return GCP_EINVALID;
    }

    gcp_jp_blanks(ps);

    if (*ps->p != '@') {
        ps->err = "a filter must start with @";
        return GCP_EINVALID;
    }

    ps->p++;

    s->filter = gcp_jp_parse(ps, 1);
    if (s->filter == NULL) {
        return GCP_EINVALID;
    }

    gcp_jp_blanks(ps);

    if (strncmp(ps->p, "==", 2) == 0) {
        ps->p += 2;

    } else if (strncmp(ps->p, "!=", 2) == 0) {
        s->negate = 1;
        ps->p += 2;

    } else {
        ps->err = "unsupported filter operator";
        return GCP_EINVALID;
    }

    gcp_jp_blanks(ps);

    s->value = gcp_jp_literal(ps);
    if (s->value == NULL) {
        if (ps->err == NULL) {
            ps->err = "out of memory";
        }

        return GCP_EINVALID;
    }

    gcp_jp_blanks(ps);

    if (ps->p[0] != ')' || ps->p[1] != ']') {
        ps->err = "unterminated filter";
        return GCP_EINVALID;
    }

    ps->p += 2;

    return GCP_OK;
}


/* After '[': an index, '*', a quoted name, or a filter. */

static int
gcp_jp_bracket(gcp_jp_parser_t *ps, gcp_jsonpath_t *jp)
{
    char           *end;
    long            idx;
    gcp_jp_step_t  *s;

    if (ps->p[0] == '?' && ps->p[1] == '(') {
        ps->p += 2;
        return gcp_jp_filter(ps, jp);
    }

    if (ps->p[0] == '*' && ps->p[1] == ']') {
        ps->p += 2;
        return gcp_jp_add(ps, jp, GCP_JP_ALL) ? GCP_OK : GCP_EINVALID;
    }

    if (*ps->p == '\'' || *ps->p == '"') {
        s = gcp_jp_add(ps, jp, GCP_JP_FIELD);
        if (s == NULL || gcp_jp_quoted(ps, &s->name, &s->len) != GCP_OK) {
            return GCP_EINVALID;
        }

    } else {
        idx = strtol(ps->p, &end, 10);

        if (end == ps->p) {
            ps->err = "unrecognized character in brackets";
            return GCP_EINVALID;
        }

        s = gcp_jp_add(ps, jp, GCP_JP_INDEX);
        if (s == NULL) {
            return GCP_EINVALID;
        }

        s->index = idx;
        ps->p = end;
    }

    if (*ps->p != ']') {
        ps->err = "unterminated array";
        return GCP_EINVALID;
    }

    ps->p++;

    return GCP_OK;
}


static gcp_jsonpath_t *
gcp_jp_parse(gcp_jp_parser_t *ps, int in_filter)
{
    int              rc;
    gcp_jsonpath_t  *jp;

    jp = calloc(1, sizeof(gcp_jsonpath_t));
    if (jp == NULL) {
        ps->err = "out of memory";
        return NULL;
    }

    for ( ;; ) {
        if (*ps->p == '.') {
            ps->p++;

            if (*ps->p == '\0' && jp->n == 0 && !in_filter) {
                break;                          /* "." alone */
            }

            rc = gcp_jp_field(ps, jp);

        } else if (*ps->p == '[') {
            ps->p++;
            rc = gcp_jp_bracket(ps, jp);

        } else {
            break;
        }

        if (rc != GCP_OK) {
            gcp_jsonpath_free(jp);
            return NULL;
        }
    }

    return jp;
}


gcp_jsonpath_t *
gcp_jsonpath_compile(const char *path, const char **err)
{
    gcp_jsonpath_t   *jp;
    gcp_jp_parser_t   ps;

    ps.p = path;
    ps.err = NULL;

    if (*path != '.' && *path != '[') {
        *err = "a path must start with . or [";
        return NULL;
    }

    jp = gcp_jp_parse(&ps, 0);

    if (jp && *ps.p != '\0') {
        gcp_jsonpath_free(jp);
        jp = NULL;
        ps.err = "unrecognized character";
    }

    if (jp == NULL) {
        *err = ps.err ? ps.err : "invalid path";
    }

    return jp;
}


int
gcp_jsonpath_simple(const gcp_jsonpath_t *jp)
{
    size_t  i;

    for (i = 0; i < jp->n; i++) {
        if (jp->steps[i].type != GCP_JP_FIELD) {
            return 0;
        }
    }

    return 1;
}


static int
gcp_jp_equal(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b)) {
        return json_number_value(a) == json_number_value(b);
    }

    return json_equal((json_t *) a, (json_t *) b);
}


static json_t *gcp_jp_eval(const gcp_jsonpath_t *jp, size_t i,
    const json_t *v);


static json_t *
gcp_jp_each(const gcp_jsonpath_t *jp, size_t i, const json_t *v)
{
    size_t       k;
    json_t      *r, *e;
    const char  *key;

    if (json_is_array(v)) {
        json_array_foreach(v, k, e) {
            r = gcp_jp_eval(jp, i, e);
            if (r) {
                return r;
            }
        }

    } else if (json_is_object(v)) {
        json_object_foreach((json_t *) v, key, e) {
            r = gcp_jp_eval(jp, i, e);
            if (r) {
                return r;
            }
        }
    }

    return NULL;
}


static json_t *
gcp_jp_eval(const gcp_jsonpath_t *jp, size_t i, const json_t *v)
{
    long                  idx, n;
    size_t                k;
    json_t               *e, *r, *f;
    const gcp_jp_step_t  *s;

    for ( ; i < jp->n; i++) {
        s = &jp->steps[i];

        switch (s->type) {

        case GCP_JP_FIELD:
            v = json_object_getn(v, s->name, s->len);
            break;

        case GCP_JP_INDEX:
            n = (long) json_array_size(v);
            idx = s->index < 0 ? n + s->index : s->index;
            v = (idx >= 0 && idx < n) ? json_array_get(v, (size_t) idx)
                                      : NULL;
            break;

        case GCP_JP_ALL:
            return gcp_jp_each(jp, i + 1, v);

        case GCP_JP_FILTER:
            if (!json_is_array(v)) {
                return NULL;
            }

            json_array_foreach(v, k, e) {
                f = gcp_jp_eval(s->filter, 0, e);

                if ((f && gcp_jp_equal(f, s->value)) == !s->negate) {
                    r = gcp_jp_eval(jp, i + 1, e);
                    if (r) {
                        return r;
                    }
                }
            }

            return NULL;
        }

        if (v == NULL) {
            return NULL;
        }
    }

    return (json_t *) v;
}


json_t *
gcp_jsonpath_first(const gcp_jsonpath_t *jp, const json_t *v)
{
    return v ? gcp_jp_eval(jp, 0, v) : NULL;
}


void
gcp_jsonpath_print(gcp_buf_t *b, const json_t *v)
{
    if (json_is_string(v)) {
        gcp_buf_add(b, json_string_value(v), json_string_length(v));
        return;
    }

    gcp_json_dump_buf(b, v, 0);
}
