
/*
 * Label selectors, ported from k8s.io/apimachinery pkg/labels
 * (NewRequirement, Matches, String) and metav1.LabelSelector, with
 * upstream's error messages (see gcp_selector.h).  The lexer and parser
 * are in gcp_selector_parse.c (see gcp_selector_int.h), field selectors
 * in gcp_selector_field.c.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_selector_int.h"
#include "gcp_ferr.h"
#include "gcp_validation.h"


/* ------------------------------------------------------------------ */
/* label key and value validation (gcp_validation.c's checks)         */

/* Appends one message to a "; "-joined list, as strings.Join(errs, "; "). */
static void
gcp_sel_msg(gcp_buf_t *b, int *n, const char *prefix, const char *msg)
{
    if ((*n)++ > 0) {
        gcp_buf_add(b, "; ", 2);
    }

    gcp_buf_addstr(b, prefix);
    gcp_buf_addstr(b, msg);
}


/* Appends the messages of one check to b, "; "-joined; returns them. */
static int
gcp_sel_msgs(gcp_buf_t *b, const gcp_msgs_t *m)
{
    size_t  i;
    int     n;

    n = 0;

    for (i = 0; i < m->n; i++) {
        gcp_sel_msg(b, &n, "", m->msg[i]);
    }

    return n;
}


/* IsQualifiedName: appends its messages to b; returns their number. */
int
gcp_sel_key_errors(gcp_buf_t *b, const char *s, size_t len)
{
    gcp_msgs_t  m;

    gcp_is_qualified_name(s, len, &m);

    return gcp_sel_msgs(b, &m);
}


/* IsValidLabelValue: appends its messages to b; returns their number. */
static int
gcp_sel_value_errors(gcp_buf_t *b, const char *s, size_t len)
{
    gcp_msgs_t  m;

    gcp_is_label_value(s, len, &m);

    return gcp_sel_msgs(b, &m);
}


/* ------------------------------------------------------------------ */
/* error lists: field.ErrorList.ToAggregate().Error()                  */

typedef struct {
    gcp_arena_t   *arena;
    const char   **msgs;
    size_t         n;
    size_t         cap;
    unsigned       nomem:1;
} gcp_sel_errs_t;


static void
gcp_sel_errs_add(gcp_sel_errs_t *e, const char *msg)
{
    size_t        i;
    const char  **p;

    if (msg == NULL) {
        e->nomem = 1;
        return;
    }

    for (i = 0; i < e->n; i++) {
        if (strcmp(e->msgs[i], msg) == 0) {
            return;
        }
    }

    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 4;
        p = gcp_alloc(e->arena, e->cap * sizeof(const char *));
        if (p == NULL) {
            e->nomem = 1;
            return;
        }

        if (e->n) {
            memcpy(p, e->msgs, e->n * sizeof(const char *));
        }

        e->msgs = p;
    }

    e->msgs[e->n++] = msg;
}


/* One "PATH: Invalid value: VALUE: DETAIL" (VALUE already rendered). */
static void
gcp_sel_errs_invalid(gcp_sel_errs_t *e, const char *path, const char *value,
    const char *detail)
{
    if (path == NULL || value == NULL || detail == NULL) {
        e->nomem = 1;
        return;
    }

    gcp_sel_errs_add(e, gcp_sprintf(e->arena, "%s: Invalid value: %s: %s",
                                    path, value, detail));
}


/* The aggregate's message: "a" or "[a, b]"; NULL when out of memory. */
static const char *
gcp_sel_errs_message(gcp_sel_errs_t *e)
{
    size_t     i;
    gcp_buf_t  b;

    if (e->nomem) {
        return NULL;
    }

    if (e->n == 1) {
        return e->msgs[0];
    }

    gcp_buf_init(&b, e->arena);
    gcp_buf_addc(&b, '[');

    for (i = 0; i < e->n; i++) {
        if (i) {
            gcp_buf_add(&b, ", ", 2);
        }
        gcp_buf_addstr(&b, e->msgs[i]);
    }

    gcp_buf_addc(&b, ']');

    if (gcp_buf_failed(&b)) {
        return NULL;
    }

    return gcp_strndup(e->arena, b.data, b.len);
}


/* ------------------------------------------------------------------ */
/* small helpers                                                       */

/* Grows an arena array of n elements to hold one more; NULL on ENOMEM. */
void *
gcp_sel_grow(gcp_arena_t *a, void *old, size_t n, size_t *cap, size_t size)
{
    void  *p;

    if (n < *cap) {
        return old;
    }

    *cap = *cap ? 2 * *cap : 4;

    p = gcp_alloc(a, *cap * size);
    if (p == NULL) {
        return NULL;
    }

    if (n) {
        memcpy(p, old, n * size);
    }

    return p;
}


/* strconv.ParseInt(s, 10, 64): returns 1 and *v, or 0. */
static int
gcp_sel_parse_int64(const char *s, size_t len, int64_t *v)
{
    int       neg;
    size_t    i;
    uint64_t  n, limit;

    if (len == 0) {
        return 0;
    }

    neg = (s[0] == '-');
    i = (s[0] == '-' || s[0] == '+') ? 1 : 0;

    if (i == len) {
        return 0;
    }

    limit = neg ? (uint64_t) 1 << 63 : ((uint64_t) 1 << 63) - 1;
    n = 0;

    for ( /* void */ ; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return 0;
        }

        if (n > (limit - (uint64_t) (s[i] - '0')) / 10) {
            return 0;
        }

        n = n * 10 + (uint64_t) (s[i] - '0');
    }

    *v = neg ? (int64_t) (0 - n) : (int64_t) n;

    return 1;
}


/* Stable insertion sort of strings (byte order, as Go's < on strings). */
static int
gcp_sel_strcmp(const void *a, const void *b)
{
    return strcmp(*(const char * const *) a, *(const char * const *) b);
}


void
gcp_sel_sort_strings(const char **v, size_t n)
{
    /* equal strings are alike: stability does not show */

    if (n > 1) {
        qsort(v, n, sizeof(const char *), gcp_sel_strcmp);
    }
}


size_t
gcp_sel_unique_strings(const char **v, size_t n)
{
    size_t  i, k;

    for (i = 1, k = n ? 1 : 0; i < n; i++) {
        if (strcmp(v[k - 1], v[i]) != 0) {
            v[k++] = v[i];
        }
    }

    return k;
}


/* ------------------------------------------------------------------ */
/* requirements: labels.NewRequirement                                 */

#define gcp_sel_len(v, lens, i)  ((lens) ? (lens)[i] : strlen((v)[i]))


/* Go's %#v of a []string as built by LabelSelectorAsSelector. */
static const char *
gcp_sel_go_slice(gcp_arena_t *a, const char **v, size_t n)
{
    size_t     i;
    gcp_buf_t  b;

    if (n == 0) {
        return "[]string(nil)";
    }

    gcp_buf_init(&b, a);
    gcp_buf_addstr(&b, "[]string{");

    for (i = 0; i < n; i++) {
        if (i) {
            gcp_buf_add(&b, ", ", 2);
        }
        gcp_buf_addstr(&b, gcp_ferr_quote(a, v[i]));
    }

    gcp_buf_addc(&b, '}');

    if (gcp_buf_failed(&b)) {
        return NULL;
    }

    return gcp_strndup(a, b.data, b.len);
}


/* Renders the messages of a validator into an arena string. */
const char *
gcp_sel_errors_text(gcp_arena_t *a,
    int (*check)(gcp_buf_t *b, const char *s, size_t len),
    const char *s, size_t len, int *n)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, a);

    *n = check(&b, s, len);
    if (*n == 0) {
        return "";
    }

    if (gcp_buf_failed(&b)) {
        return NULL;
    }

    return gcp_strndup(a, b.data, b.len);
}


/*
 * labels.NewRequirement(key, op, values) with a nil field path.  values
 * (nvalues; lens: their byte lengths, which may count NULs from JSON, or
 * NULL for strlen) are validated in the order given, then copied into r
 * (arena) and sorted.  Returns GCP_OK, GCP_EBADREQUEST with *msg, or
 * GCP_ENOMEM.
 */
int
gcp_sel_new_req(gcp_arena_t *a, const char *key, size_t key_len,
    gcp_sel_op_t op, const char **values, const size_t *lens, size_t nvalues,
    gcp_label_req_t *r, const char **msg)
{
    int              n;
    size_t           i;
    int64_t          v;
    const char      *text, *detail;
    gcp_sel_errs_t   errs;

    memset(&errs, 0, sizeof(gcp_sel_errs_t));
    errs.arena = a;

    text = gcp_sel_errors_text(a, gcp_sel_key_errors, key, key_len, &n);
    if (n) {
        gcp_sel_errs_invalid(&errs, "key", gcp_ferr_quote(a, key), text);
    }

    detail = NULL;

    switch (op) {

    case GCP_SEL_IN:
    case GCP_SEL_NOT_IN:
        if (nvalues == 0) {
            detail = "for 'in', 'notin' operators, values set can't be empty";
        }
        break;

    case GCP_SEL_EQUALS:
    case GCP_SEL_DOUBLE_EQUALS:
    case GCP_SEL_NOT_EQUALS:
        if (nvalues != 1) {
            detail = "exact-match compatibility requires one single value";
        }
        break;

    case GCP_SEL_EXISTS:
    case GCP_SEL_DOES_NOT_EXIST:
        if (nvalues != 0) {
            detail = "values set must be empty for exists and does not exist";
        }
        break;

    case GCP_SEL_GT:
    case GCP_SEL_LT:
        if (nvalues != 1) {
            detail = "for 'Gt', 'Lt' operators, exactly one value is required";
        }
        break;
    }

    if (detail) {
        gcp_sel_errs_invalid(&errs, "values",
                             gcp_sel_go_slice(a, values, nvalues), detail);
    }

    if (op == GCP_SEL_GT || op == GCP_SEL_LT) {
        for (i = 0; i < nvalues; i++) {
            if (!gcp_sel_parse_int64(values[i], gcp_sel_len(values, lens, i),
                                     &v))
            {
                gcp_sel_errs_invalid(&errs,
                                     gcp_sprintf(a, "values[%zu]", i),
                                     gcp_ferr_quote(a, values[i]),
                                     "for 'Gt', 'Lt' operators, the value "
                                     "must be an integer");
            }
        }
    }

    for (i = 0; i < nvalues; i++) {
        text = gcp_sel_errors_text(a, gcp_sel_value_errors, values[i],
                                   gcp_sel_len(values, lens, i), &n);
        if (n) {
            gcp_sel_errs_invalid(&errs,
                                 gcp_sprintf(a, "values[%zu][%s]", i, key),
                                 gcp_ferr_quote(a, values[i]), text);
        }
    }

    if (errs.nomem) {
        return GCP_ENOMEM;
    }

    if (errs.n) {
        *msg = gcp_sel_errs_message(&errs);
        return *msg ? GCP_EBADREQUEST : GCP_ENOMEM;
    }

    /* copies: the strings may belong to a JSON document */

    r->key = gcp_strndup(a, key, key_len);
    r->op = op;
    r->nvalues = nvalues;
    r->values = NULL;

    if (r->key == NULL) {
        return GCP_ENOMEM;
    }

    if (nvalues) {
        r->values = gcp_alloc(a, nvalues * sizeof(const char *));
        if (r->values == NULL) {
            return GCP_ENOMEM;
        }

        for (i = 0; i < nvalues; i++) {
            r->values[i] = gcp_strndup(a, values[i],
                                       gcp_sel_len(values, lens, i));
            if (r->values[i] == NULL) {
                return GCP_ENOMEM;
            }
        }

        gcp_sel_sort_strings(r->values, nvalues);
    }

    return GCP_OK;
}


/* Stable sort of requirements by key (labels.ByKey): a merge sort. */
void
gcp_sel_sort_reqs(gcp_label_req_t *r, size_t n)
{
    size_t            i, j, k, w, lo, mid, hi;
    gcp_label_req_t  *tmp, t;

    tmp = n > 8 ? malloc(n * sizeof(gcp_label_req_t)) : NULL;

    if (tmp == NULL) {
        /* few requirements (or no memory): insertion sort */

        for (i = 1; i < n; i++) {
            t = r[i];

            for (j = i; j > 0 && strcmp(r[j - 1].key, t.key) > 0; j--) {
                r[j] = r[j - 1];
            }

            r[j] = t;
        }

        return;
    }

    for (w = 1; w < n; w *= 2) {
        for (lo = 0; lo + w < n; lo += 2 * w) {
            mid = lo + w;
            hi = gcp_min(lo + 2 * w, n);

            for (i = lo, j = mid, k = 0; i < mid || j < hi; k++) {
                if (j == hi
                    || (i < mid && strcmp(r[i].key, r[j].key) <= 0))
                {
                    tmp[k] = r[i++];

                } else {
                    tmp[k] = r[j++];
                }
            }

            memcpy(&r[lo], tmp, k * sizeof(gcp_label_req_t));
        }
    }

    free(tmp);
}


/* ------------------------------------------------------------------ */
/* metav1.LabelSelector                                                */

static int
gcp_sel_from_expr(gcp_arena_t *a, const json_t *expr, gcp_label_req_t *r,
    const char **msg)
{
    size_t         i, n;
    size_t        *lens;
    const char    *op_name, **values;
    const json_t  *key, *op, *vals, *v;
    gcp_sel_op_t   sop;

    static const struct {
        const char    *name;
        gcp_sel_op_t   op;
    } ops[] = {
        { "In", GCP_SEL_IN },
        { "NotIn", GCP_SEL_NOT_IN },
        { "Exists", GCP_SEL_EXISTS },
        { "DoesNotExist", GCP_SEL_DOES_NOT_EXIST },
    };

    key = json_object_get(expr, "key");
    op = json_object_get(expr, "operator");
    vals = json_object_get(expr, "values");

    if (!json_is_object(expr) || (key && !json_is_string(key))
        || (op && !json_is_string(op))
        || (vals && !json_is_array(vals) && !json_is_null(vals)))
    {
        *msg = "invalid label selector: malformed matchExpressions";
        return GCP_EBADREQUEST;
    }

    op_name = op ? json_string_value(op) : "";

    for (i = 0; i < gcp_nelems(ops); i++) {
        if (strcmp(op_name, ops[i].name) == 0) {
            break;
        }
    }

    if (i == gcp_nelems(ops)) {
        *msg = gcp_sprintf(a, "%s is not a valid label selector operator",
                           gcp_ferr_quote(a, op_name));
        return *msg ? GCP_EBADREQUEST : GCP_ENOMEM;
    }

    sop = ops[i].op;

    n = json_is_array(vals) ? json_array_size(vals) : 0;
    values = gcp_alloc(a, (n + 1) * sizeof(const char *));
    lens = gcp_alloc(a, (n + 1) * sizeof(size_t));

    if (values == NULL || lens == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < n; i++) {
        v = json_array_get(vals, i);

        if (!json_is_string(v)) {
            *msg = "invalid label selector: matchExpressions values must be "
                   "strings";
            return GCP_EBADREQUEST;
        }

        values[i] = json_string_value(v);
        lens[i] = json_string_length(v);
    }

    return gcp_sel_new_req(a, key ? json_string_value(key) : "",
                           key ? json_string_length(key) : 0, sop, values,
                           lens, n, r, msg);
}


int
gcp_label_selector_from_json(gcp_arena_t *a, const json_t *ls,
    gcp_label_selector_t **out, const char **msg)
{
    int                    rc;
    size_t                 i, n, nl, ne, len;
    const char            *k, *value;
    const json_t          *ml, *me, *v;
    gcp_label_selector_t  *sel;

    *out = NULL;
    *msg = NULL;

    sel = gcp_calloc(a, sizeof(gcp_label_selector_t));
    if (sel == NULL) {
        return GCP_ENOMEM;
    }

    if (ls == NULL || json_is_null(ls)) {
        sel->nothing = 1;
        *out = sel;
        return GCP_OK;
    }

    ml = json_object_get(ls, "matchLabels");
    me = json_object_get(ls, "matchExpressions");

    if (!json_is_object(ls) || (ml && !json_is_object(ml) && !json_is_null(ml))
        || (me && !json_is_array(me) && !json_is_null(me)))
    {
        *msg = "invalid label selector: expected an object with matchLabels "
               "and matchExpressions";
        return GCP_EBADREQUEST;
    }

    nl = json_is_object(ml) ? json_object_size(ml) : 0;
    ne = json_is_array(me) ? json_array_size(me) : 0;

    if (nl + ne) {
        sel->reqs = gcp_calloc(a, (nl + ne) * sizeof(gcp_label_req_t));
        if (sel->reqs == NULL) {
            return GCP_ENOMEM;
        }
    }

    n = 0;

    if (nl) {
        json_object_foreach((json_t *) ml, k, v) {
            if (!json_is_string(v)) {
                *msg = "invalid label selector: matchLabels values must be "
                       "strings";
                return GCP_EBADREQUEST;
            }

            value = json_string_value(v);
            len = json_string_length(v);

            rc = gcp_sel_new_req(a, k, strlen(k), GCP_SEL_EQUALS, &value,
                                 &len, 1, &sel->reqs[n], msg);
            if (rc != GCP_OK) {
                return rc;
            }

            n++;
        }
    }

    for (i = 0; i < ne; i++) {
        rc = gcp_sel_from_expr(a, json_array_get(me, i), &sel->reqs[n], msg);
        if (rc != GCP_OK) {
            return rc;
        }

        n++;
    }

    sel->n = n;
    gcp_sel_sort_reqs(sel->reqs, sel->n);

    *out = sel;

    return GCP_OK;
}


/* ------------------------------------------------------------------ */
/* label selector use                                                  */

static int
gcp_sel_has_value(const gcp_label_req_t *r, const char *s, size_t len)
{
    int      c;
    size_t   i, lo, hi, vlen;

    /* the values are C strings sorted by strcmp: a binary search */

    if (s == NULL || memchr(s, '\0', len) != NULL) {
        return 0;
    }

    lo = 0;
    hi = r->nvalues;

    while (lo < hi) {
        i = lo + (hi - lo) / 2;
        vlen = strlen(r->values[i]);

        /* strcmp's order for s of len bytes */
        c = memcmp(r->values[i], s, vlen < len ? vlen : len);
        if (c == 0) {
            c = vlen < len ? -1 : (vlen > len);
        }

        if (c == 0) {
            return 1;
        }

        if (c < 0) {
            lo = i + 1;

        } else {
            hi = i;
        }
    }

    return 0;
}


int
gcp_label_req_matches(const gcp_label_req_t *r, const char *v, size_t len)
{
    int64_t  have, want;

    switch (r->op) {

    case GCP_SEL_IN:
    case GCP_SEL_EQUALS:
    case GCP_SEL_DOUBLE_EQUALS:
        return v && gcp_sel_has_value(r, v, len);

    case GCP_SEL_NOT_IN:
    case GCP_SEL_NOT_EQUALS:
        return v == NULL || !gcp_sel_has_value(r, v, len);

    case GCP_SEL_EXISTS:
        return v != NULL;

    case GCP_SEL_DOES_NOT_EXIST:
        return v == NULL;

    case GCP_SEL_GT:
    case GCP_SEL_LT:
        if (v == NULL || r->nvalues != 1
            || !gcp_sel_parse_int64(v, len, &have)
            || !gcp_sel_parse_int64(r->values[0], strlen(r->values[0]),
                                    &want))
        {
            return 0;
        }

        return r->op == GCP_SEL_GT ? have > want : have < want;
    }

    return 0;
}


static int
gcp_sel_req_matches(const gcp_label_req_t *r, const json_t *labels)
{
    const json_t  *v;

    v = labels ? json_object_get(labels, r->key) : NULL;

    if (v == NULL || !json_is_string(v)) {
        return gcp_label_req_matches(r, NULL, 0);
    }

    return gcp_label_req_matches(r, json_string_value(v),
                                 json_string_length(v));
}


int
gcp_label_selector_matches(const gcp_label_selector_t *sel,
    const json_t *labels)
{
    size_t  i;

    if (sel == NULL) {
        return 1;
    }

    if (sel->nothing) {
        return 0;
    }

    if (labels && !json_is_object(labels)) {
        labels = NULL;
    }

    for (i = 0; i < sel->n; i++) {
        if (!gcp_sel_req_matches(&sel->reqs[i], labels)) {
            return 0;
        }
    }

    return 1;
}


int
gcp_label_selector_empty(const gcp_label_selector_t *sel)
{
    return sel == NULL || (!sel->nothing && sel->n == 0);
}


const char *
gcp_label_selector_string(gcp_arena_t *a, const gcp_label_selector_t *sel)
{
    size_t                  i, j;
    gcp_buf_t               b;
    const gcp_label_req_t  *r;

    static const char  *ops[] = {
        [GCP_SEL_EXISTS] = "",
        [GCP_SEL_DOES_NOT_EXIST] = "",
        [GCP_SEL_EQUALS] = "=",
        [GCP_SEL_DOUBLE_EQUALS] = "==",
        [GCP_SEL_NOT_EQUALS] = "!=",
        [GCP_SEL_IN] = " in ",
        [GCP_SEL_NOT_IN] = " notin ",
        [GCP_SEL_GT] = ">",
        [GCP_SEL_LT] = "<",
    };

    if (sel == NULL || sel->nothing || sel->n == 0) {
        return "";
    }

    gcp_buf_init(&b, a);

    for (i = 0; i < sel->n; i++) {
        r = &sel->reqs[i];

        if (i) {
            gcp_buf_addc(&b, ',');
        }

        if (r->op == GCP_SEL_DOES_NOT_EXIST) {
            gcp_buf_addc(&b, '!');
        }

        gcp_buf_addstr(&b, r->key);

        if (r->op == GCP_SEL_EXISTS || r->op == GCP_SEL_DOES_NOT_EXIST) {
            continue;
        }

        gcp_buf_addstr(&b, ops[r->op]);

        if (r->op == GCP_SEL_IN || r->op == GCP_SEL_NOT_IN) {
            gcp_buf_addc(&b, '(');
        }

        for (j = 0; j < r->nvalues; j++) {
            if (j) {
                gcp_buf_addc(&b, ',');
            }
            gcp_buf_addstr(&b, r->values[j]);
        }

        if (r->op == GCP_SEL_IN || r->op == GCP_SEL_NOT_IN) {
            gcp_buf_addc(&b, ')');
        }
    }

    if (gcp_buf_failed(&b)) {
        return NULL;
    }

    return gcp_strndup(a, b.data, b.len);
}


const char *
gcp_label_selector_requires(const gcp_label_selector_t *sel, const char *key)
{
    size_t                  i;
    const gcp_label_req_t  *r;

    if (sel == NULL || sel->nothing) {
        return NULL;
    }

    for (i = 0; i < sel->n; i++) {
        r = &sel->reqs[i];

        if (strcmp(r->key, key) != 0) {
            continue;
        }

        if ((r->op == GCP_SEL_EQUALS || r->op == GCP_SEL_DOUBLE_EQUALS
             || r->op == GCP_SEL_IN)
            && r->nvalues == 1)
        {
            return r->values[0];
        }

        return NULL;
    }

    return NULL;
}
