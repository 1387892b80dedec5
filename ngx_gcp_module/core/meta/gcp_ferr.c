
/*
 * Field error lists rendered as kube-apiserver renders field.ErrorList.
 */

#include <stdarg.h>
#include <stdio.h>

#include "gcp_ferr.h"
#include "gcp_json.h"


static const struct {
    const char  *text;
    const char  *reason;
} gcp_ferr_types[] = {
    [GCP_FERR_INVALID]       = { "Invalid value", "FieldValueInvalid" },
    [GCP_FERR_REQUIRED]      = { "Required value", "FieldValueRequired" },
    [GCP_FERR_FORBIDDEN]     = { "Forbidden", "FieldValueForbidden" },
    [GCP_FERR_TOO_LONG]      = { "Too long", "FieldValueTooLong" },
    [GCP_FERR_TOO_MANY]      = { "Too many", "FieldValueTooMany" },
    [GCP_FERR_NOT_SUPPORTED] = { "Unsupported value",
                                 "FieldValueNotSupported" },
    [GCP_FERR_DUPLICATE]     = { "Duplicate value", "FieldValueDuplicate" },
    [GCP_FERR_NOT_FOUND]     = { "Not found", "FieldValueNotFound" },
    [GCP_FERR_TYPE_INVALID]  = { "Invalid value", "FieldValueTypeInvalid" },
    [GCP_FERR_INTERNAL]      = { "Internal error", "InternalError" },
};


void
gcp_ferrs_init(gcp_ferrs_t *errs, gcp_arena_t *a)
{
    errs->arena = a;
    errs->first = NULL;
    errs->last = &errs->first;
    errs->n = 0;
    errs->nomem = 0;
}


void
gcp_ferrs_add(gcp_ferrs_t *errs, gcp_ferr_type_t type, const char *field,
    const char *value, const char *detail_fmt, ...)
{
    int          n;
    char        *detail;
    va_list      ap;
    gcp_ferr_t  *e;

    e = gcp_calloc(errs->arena, sizeof(gcp_ferr_t));
    if (e == NULL) {
        errs->nomem = 1;
        return;
    }

    e->type = type;
    e->field = gcp_strdup(errs->arena, field ? field : "");
    e->value = value ? gcp_strdup(errs->arena, value) : NULL;

    if (detail_fmt && detail_fmt[0]) {
        va_start(ap, detail_fmt);
        n = vsnprintf(NULL, 0, detail_fmt, ap);
        va_end(ap);

        detail = gcp_alloc(errs->arena, (size_t) n + 1);
        if (detail) {
            va_start(ap, detail_fmt);
            vsnprintf(detail, (size_t) n + 1, detail_fmt, ap);
            va_end(ap);
        }

        e->detail = detail;
    }

    if (e->field == NULL) {
        errs->nomem = 1;
        return;
    }

    *errs->last = e;
    errs->last = &e->next;
    errs->n++;
}


const char *
gcp_ferr_quote(gcp_arena_t *a, const char *s)
{
    return gcp_go_quote(a, s, strlen(s));
}


const char *
gcp_ferr_reason(gcp_ferr_type_t type)
{
    if ((size_t) type >= gcp_nelems(gcp_ferr_types)) {
        type = GCP_FERR_INTERNAL;
    }

    return gcp_ferr_types[type].reason;
}


static void
gcp_ferr_body(gcp_buf_t *b, const gcp_ferr_t *e)
{
    gcp_ferr_type_t  type = e->type;

    if ((size_t) type >= gcp_nelems(gcp_ferr_types)) {
        type = GCP_FERR_INTERNAL;
    }

    gcp_buf_addstr(b, gcp_ferr_types[type].text);

    switch (type) {
    case GCP_FERR_REQUIRED:
    case GCP_FERR_FORBIDDEN:
    case GCP_FERR_TOO_LONG:
    case GCP_FERR_INTERNAL:
        break;

    default:
        if (e->value) {
            gcp_buf_addstr(b, ": ");
            gcp_buf_addstr(b, e->value);
        }
    }

    if (e->detail && e->detail[0]) {
        gcp_buf_addstr(b, ": ");
        gcp_buf_addstr(b, e->detail);
    }
}


const char *
gcp_ferr_cause_message(gcp_arena_t *a, const gcp_ferr_t *e)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_ferr_body(&b, e);

    return gcp_strndup(a, gcp_buf_cstr(&b), b.len);
}


/* "KIND \"NAME\" is invalid: " and the aggregate */
const char *
gcp_ferrs_message(const gcp_ferrs_t *errs, const char *kind,
    const char *name)
{
    const char  *agg;

    agg = gcp_ferrs_aggregate(errs);
    if (agg == NULL) {
        return NULL;
    }

    return gcp_sprintf(errs->arena, "%s \"%s\" is invalid: %s", kind,
                       name ? name : "", agg);
}


const char *
gcp_ferrs_aggregate(const gcp_ferrs_t *errs)
{
    size_t             start, n, i, len;
    size_t            *offs;
    gcp_buf_t          b, one;
    const gcp_ferr_t  *e;

    gcp_buf_init(&b, errs->arena);

    offs = gcp_alloc(errs->arena, (errs->n + 1) * 2 * sizeof(size_t));
    if (offs == NULL) {
        return NULL;
    }

    start = b.len;
    n = 0;

    for (e = errs->first; e; e = e->next) {
        gcp_buf_init(&one, errs->arena);
        gcp_buf_addstr(&one, e->field);
        gcp_buf_addstr(&one, ": ");
        gcp_ferr_body(&one, e);
        gcp_buf_cstr(&one);

        for (i = 0; i < n; i++) {
            len = offs[2 * i + 1];

            if (len == one.len
                && memcmp(b.data + offs[2 * i], one.data, len) == 0)
            {
                break;
            }
        }

        if (i < n || gcp_buf_failed(&one)) {
            continue;
        }

        if (n) {
            gcp_buf_addstr(&b, ", ");
        }

        offs[2 * n] = b.len;
        offs[2 * n + 1] = one.len;
        n++;

        gcp_buf_add(&b, one.data, one.len);
    }

    if (n > 1) {
        gcp_buf_addc(&b, ']');
        gcp_buf_cstr(&b);

        if (!gcp_buf_failed(&b)) {
            memmove(b.data + start + 1, b.data + start, b.len - start);
            b.data[start] = '[';
            b.len++;
        }
    }

    return gcp_strndup(errs->arena, gcp_buf_cstr(&b), b.len);
}
