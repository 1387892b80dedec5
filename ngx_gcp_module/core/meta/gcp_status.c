
/*
 * metav1.Status bodies (see gcp_status.h).
 */

#include "gcp_json.h"
#include "gcp_status.h"


static void
gcp_status_str(gcp_buf_t *b, const char *key, const char *value, int *first)
{
    if (value == NULL || value[0] == '\0') {
        return;
    }

    if (!*first) {
        gcp_buf_addc(b, ',');
    }

    *first = 0;

    gcp_json_add_string(b, key, strlen(key));
    gcp_buf_addc(b, ':');
    gcp_json_add_string(b, value, strlen(value));
}


static void
gcp_status_details(gcp_buf_t *b, const gcp_status_details_t *d)
{
    int                first, cfirst;
    size_t             i, nc;
    const char        *m;
    const gcp_ferr_t  *e;

    first = 1;

    gcp_buf_addstr(b, ",\"details\":{");

    gcp_status_str(b, "name", d->name, &first);
    gcp_status_str(b, "group", d->group, &first);
    gcp_status_str(b, "kind", d->kind, &first);
    gcp_status_str(b, "uid", d->uid, &first);

    if ((d->causes && d->causes->n) || d->cause) {
        gcp_buf_addstr(b, first ? "\"causes\":[" : ",\"causes\":[");
        first = 0;

        nc = d->cause ? (d->ncause ? d->ncause : 1) : 0;

        for (i = 0; i < nc; i++) {
            cfirst = 1;
            gcp_buf_addstr(b, i ? ",{" : "{");
            gcp_status_str(b, "reason", d->cause[i].reason, &cfirst);
            gcp_status_str(b, "message", d->cause[i].message, &cfirst);
            gcp_status_str(b, "field", d->cause[i].field, &cfirst);
            gcp_buf_addc(b, '}');
        }

        for (e = d->causes ? d->causes->first : NULL; e; e = e->next) {
            if (e != d->causes->first || d->cause) {
                gcp_buf_addc(b, ',');
            }

            m = gcp_ferr_cause_message(d->causes->arena, e);

            gcp_buf_addstr(b, "{\"reason\":");
            gcp_buf_addstr(b, "\"");
            gcp_buf_addstr(b, gcp_ferr_reason(e->type));
            gcp_buf_addstr(b, "\",\"message\":");
            gcp_json_add_string(b, m, strlen(m));
            gcp_buf_addstr(b, ",\"field\":");
            gcp_json_add_string(b, e->field, strlen(e->field));
            gcp_buf_addc(b, '}');
        }

        gcp_buf_addc(b, ']');
    }

    if (d->retry_after > 0) {
        gcp_buf_printf(b, "%s\"retryAfterSeconds\":%d", first ? "" : ",",
                       d->retry_after);
    }

    gcp_buf_addc(b, '}');
}


void
gcp_status_failure(gcp_buf_t *b, int code, const char *reason,
    const char *message, const gcp_status_details_t *d)
{
    gcp_buf_addstr(b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                      "\"metadata\":{},\"status\":\"Failure\"");

    if (message && message[0]) {
        gcp_buf_addstr(b, ",\"message\":");
        gcp_json_add_string(b, message, strlen(message));
    }

    if (reason && reason[0]) {
        gcp_buf_addstr(b, ",\"reason\":");
        gcp_json_add_string(b, reason, strlen(reason));
    }

    if (d) {
        gcp_status_details(b, d);
    }

    gcp_buf_printf(b, ",\"code\":%d}", code);
}


void
gcp_status_error(gcp_buf_t *b, int rc, const char *message,
    const gcp_status_details_t *d)
{
    const gcp_error_info_t  *info = gcp_error_info(rc);

    gcp_status_failure(b, info->http_status, info->reason,
                       message ? message : info->message, d);
}


void
gcp_status_success(gcp_buf_t *b, const gcp_status_details_t *d)
{
    gcp_buf_addstr(b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                      "\"metadata\":{},\"status\":\"Success\"");

    if (d) {
        gcp_status_details(b, d);
    }

    gcp_buf_addc(b, '}');
}
