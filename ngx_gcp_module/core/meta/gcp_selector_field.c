
/*
 * Field selectors (k8s.io/apimachinery/pkg/fields): parsing with
 * upstream's messages, matching, and the requirement a selector makes of
 * one field (see gcp_selector.h).
 */

#include <stdlib.h>

#include "gcp_ferr.h"
#include "gcp_json.h"
#include "gcp_selector.h"


typedef struct {
    const char  *s;
    size_t       len;
} gcp_sel_part_t;


/* Appends the rune at p as Go's WriteRune would (U+FFFD if invalid). */
static size_t
gcp_sel_add_rune(gcp_buf_t *b, const char *p, size_t len)
{
    size_t    n;
    uint32_t  r;

    n = gcp_utf8_decode((const unsigned char *) p, len, &r);
    gcp_utf8_add(b, r);

    return n;
}


/*
 * fields.UnescapeValue: the unescaped value in b, or an error message.
 * Returns GCP_OK or GCP_EBADREQUEST (*msg set, arena-owned or static).
 */
static int
gcp_sel_unescape(gcp_buf_t *b, const char *s, size_t len, const char **msg)
{
    size_t     i;
    gcp_buf_t  seq;

    for (i = 0; i < len; i++) {
        if (s[i] == '\\' || s[i] == ',' || s[i] == '=') {
            break;
        }
    }

    if (i == len) {
        gcp_buf_add(b, s, len);
        return GCP_OK;
    }

    i = 0;

    while (i < len) {

        if (s[i] == ',' || s[i] == '=') {
            *msg = gcp_sprintf(b->arena, "invalid field selector: unescaped "
                               "character in value: %d", s[i]);
            return GCP_EBADREQUEST;
        }

        if (s[i] != '\\') {
            i += gcp_sel_add_rune(b, s + i, len - i);
            continue;
        }

        if (i + 1 == len) {
            *msg = "invalid field selector: invalid escape sequence: \\";
            return GCP_EBADREQUEST;
        }

        i++;

        if (s[i] == '\\' || s[i] == ',' || s[i] == '=') {
            gcp_buf_addc(b, s[i++]);
            continue;
        }

        gcp_buf_init(&seq, b->arena);
        gcp_buf_addstr(&seq, "invalid field selector: invalid escape "
                             "sequence: \\");
        gcp_sel_add_rune(&seq, s + i, len - i);

        *msg = gcp_buf_failed(&seq) ? NULL
               : gcp_strndup(b->arena, seq.data, seq.len);
        return GCP_EBADREQUEST;
    }

    return GCP_OK;
}


/* Go's string comparison of two byte strings. */
static int
gcp_sel_part_cmp(const gcp_sel_part_t *x, const gcp_sel_part_t *y)
{
    int  c;

    c = memcmp(x->s, y->s, gcp_min(x->len, y->len));
    if (c != 0) {
        return c;
    }

    return (x->len > y->len) - (x->len < y->len);
}


/* splitTerms, then sorted as sort.StringSlice.  Returns the count. */
static gcp_sel_part_t *
gcp_sel_split_terms(gcp_arena_t *a, const char *s, size_t len, size_t *n)
{
    int              slash;
    size_t           i, start, count, j;
    gcp_sel_part_t  *parts, t;

    count = 1;
    slash = 0;

    for (i = 0; i < len; i++) {
        if (slash) {
            slash = 0;
        } else if (s[i] == '\\') {
            slash = 1;
        } else if (s[i] == ',') {
            count++;
        }
    }

    parts = gcp_alloc(a, count * sizeof(gcp_sel_part_t));
    if (parts == NULL) {
        return NULL;
    }

    *n = 0;
    start = 0;
    slash = 0;

    for (i = 0; i <= len; i++) {
        if (i < len) {
            if (slash) {
                slash = 0;
                continue;
            }

            if (s[i] == '\\') {
                slash = 1;
                continue;
            }

            if (s[i] != ',') {
                continue;
            }
        }

        parts[*n].s = s + start;
        parts[*n].len = i - start;
        (*n)++;
        start = i + 1;
    }

    for (i = 1; i < *n; i++) {
        t = parts[i];

        for (j = i; j > 0 && gcp_sel_part_cmp(&parts[j - 1], &t) > 0; j--) {
            parts[j] = parts[j - 1];
        }

        parts[j] = t;
    }

    return parts;
}


/* splitTerm: the first "!=", "==" or "=" splits; 0 if there is none. */
static int
gcp_sel_split_term(const gcp_sel_part_t *part, size_t *lhs, size_t *op)
{
    size_t       i, rest;
    const char  *p;

    for (i = 0; i < part->len; i++) {
        p = part->s + i;
        rest = part->len - i;

        if (rest >= 2 && (p[0] == '!' || p[0] == '=') && p[1] == '=') {
            *lhs = i;
            *op = 2;
            return 1;
        }

        if (p[0] == '=') {
            *lhs = i;
            *op = 1;
            return 1;
        }
    }

    return 0;
}


/*
 * The field label conversion of field (len bytes): NULL if allowed, else
 * the message ("" when out of memory).
 */
static const char *
gcp_sel_check_label(gcp_arena_t *a, const char *field, size_t len,
    const char *const *fields)
{
    size_t              i;
    const char         *f, *q;
    static const char  *defaults[] = {
        "metadata.name", "metadata.namespace", NULL
    };

    for (i = 0; (f = (fields ? fields : defaults)[i]) != NULL; i++) {
        if (strlen(f) == len && memcmp(f, field, len) == 0) {
            return NULL;
        }
    }

    if (fields == NULL) {
        q = gcp_strndup(a, field, len);
        if (q == NULL) {
            return "";
        }

        q = gcp_ferr_quote(a, q);
        f = gcp_sprintf(a, "%s is not a known field selector: only "
                        "\"metadata.name\", \"metadata.namespace\"", q);
    } else {
        f = gcp_sprintf(a, "field label not supported: %.*s", (int) len,
                        field);
    }

    return f ? f : "";
}


int
gcp_field_selector_parse(gcp_arena_t *a, const char *s, size_t len,
    const char *const *fields, gcp_field_selector_t **out, const char **msg)
{
    int                    rc;
    size_t                 i, n, lhs, op;
    gcp_buf_t              b;
    const char            *label_err;
    gcp_sel_part_t        *parts;
    gcp_field_term_t      *t;
    gcp_field_selector_t  *sel;

    *out = NULL;
    *msg = NULL;
    label_err = NULL;

    sel = gcp_calloc(a, sizeof(gcp_field_selector_t));
    if (sel == NULL) {
        return GCP_ENOMEM;
    }

    if (len == 0) {
        *out = sel;
        return GCP_OK;
    }

    parts = gcp_sel_split_terms(a, s, len, &n);
    if (parts == NULL) {
        return GCP_ENOMEM;
    }

    sel->terms = gcp_calloc(a, n * sizeof(gcp_field_term_t));
    if (sel->terms == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < n; i++) {
        if (parts[i].len == 0) {
            continue;
        }

        if (!gcp_sel_split_term(&parts[i], &lhs, &op)) {
            *msg = gcp_sprintf(a, "invalid selector: '%.*s'; can't "
                               "understand '%.*s'", (int) len, s,
                               (int) parts[i].len, parts[i].s);
            return *msg ? GCP_EBADREQUEST : GCP_ENOMEM;
        }

        t = &sel->terms[sel->n++];
        t->not_equal = (parts[i].s[lhs] == '!');

        t->field = gcp_strndup(a, parts[i].s, lhs);
        if (t->field == NULL) {
            return GCP_ENOMEM;
        }

        gcp_buf_init(&b, a);

        rc = gcp_sel_unescape(&b, parts[i].s + lhs + op,
                              parts[i].len - lhs - op, msg);
        if (rc != GCP_OK) {
            return *msg ? rc : GCP_ENOMEM;
        }

        t->value_len = b.len;
        t->value = gcp_strndup(a, b.len ? b.data : "", b.len);

        if (gcp_buf_failed(&b) || t->value == NULL) {
            return GCP_ENOMEM;
        }

        /*
         * Transform with the resource's field label conversion: it runs
         * once every term has parsed, so its error is reported only then.
         */

        if (label_err == NULL) {
            label_err = gcp_sel_check_label(a, parts[i].s, lhs, fields);
        }
    }

    if (label_err) {
        *msg = label_err[0] ? label_err : NULL;
        return label_err[0] ? GCP_EBADREQUEST : GCP_ENOMEM;
    }

    *out = sel;

    return GCP_OK;
}


int
gcp_field_selector_matches(const gcp_field_selector_t *sel,
    const char *(*get)(void *ctx, const char *field), void *ctx)
{
    int                      eq;
    size_t                   i;
    const char              *v;
    const gcp_field_term_t  *t;

    if (sel == NULL) {
        return 1;
    }

    for (i = 0; i < sel->n; i++) {
        t = &sel->terms[i];

        v = get(ctx, t->field);
        v = v ? v : "";

        eq = (strlen(v) == t->value_len
              && memcmp(v, t->value, t->value_len) == 0);

        if (eq == t->not_equal) {
            return 0;
        }
    }

    return 1;
}


int
gcp_field_selector_empty(const gcp_field_selector_t *sel)
{
    return sel == NULL || sel->n == 0;
}


const char *
gcp_field_selector_requires(const gcp_field_selector_t *sel,
    const char *field)
{
    size_t  i;

    if (sel == NULL) {
        return NULL;
    }

    for (i = 0; i < sel->n; i++) {
        if (!sel->terms[i].not_equal
            && strcmp(sel->terms[i].field, field) == 0)
        {
            return sel->terms[i].value;
        }
    }

    return NULL;
}


const char *
gcp_field_selector_string(gcp_arena_t *a, const gcp_field_selector_t *sel)
{
    size_t                   i, j;
    gcp_buf_t                b;
    const gcp_field_term_t  *t;

    if (sel == NULL || sel->n == 0) {
        return "";
    }

    gcp_buf_init(&b, a);

    for (i = 0; i < sel->n; i++) {
        t = &sel->terms[i];

        if (i) {
            gcp_buf_addc(&b, ',');
        }

        gcp_buf_addstr(&b, t->field);
        gcp_buf_addstr(&b, t->not_equal ? "!=" : "=");

        for (j = 0; j < t->value_len; j++) {
            if (t->value[j] == '\\' || t->value[j] == ','
                || t->value[j] == '=')
            {
                gcp_buf_addc(&b, '\\');
            }
            gcp_buf_addc(&b, t->value[j]);
        }
    }

    if (gcp_buf_failed(&b)) {
        return NULL;
    }

    return gcp_strndup(a, b.data, b.len);
}
