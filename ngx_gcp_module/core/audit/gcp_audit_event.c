
/*
 * An audit.k8s.io/v1 Event as one JSON line, fields in upstream's order
 * (k8s.io/apiserver/pkg/apis/audit/v1 Event), empty ones left out as its
 * omitempty tags do.
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <strings.h>

#include "gcp_audit_int.h"
#include "gcp_json.h"
#include "gcp_time.h"


#define GCP_AUDIT_MAX_UA       1024     /* maxUserAgentLength */
#define GCP_AUDIT_MAX_IPS      16


static void
gcp_audit_str(gcp_buf_t *b, const char *key, const char *s)
{
    gcp_buf_addstr(b, ",\"");
    gcp_buf_addstr(b, key);
    gcp_buf_addstr(b, "\":");
    gcp_json_add_string(b, s, strlen(s));
}


/* A JSON array of n strings. */

static void
gcp_audit_strings(gcp_buf_t *b, const char * const *v, size_t n)
{
    size_t  i;

    gcp_buf_addc(b, '[');

    for (i = 0; i < n; i++) {
        if (i) {
            gcp_buf_addc(b, ',');
        }

        gcp_json_add_string(b, v[i], strlen(v[i]));
    }

    gcp_buf_addc(b, ']');
}


/* authentication.k8s.io/v1 UserInfo, empty fields left out */

static void
gcp_audit_user(gcp_buf_t *b, const gcp_user_t *u)
{
    size_t  i;
    char    sep;

    sep = '{';

    if (u && u->name && u->name[0]) {
        gcp_buf_addstr(b, "{\"username\":");
        gcp_json_add_string(b, u->name, strlen(u->name));
        sep = ',';
    }

    if (u && u->uid && u->uid[0]) {
        gcp_buf_addc(b, sep);
        gcp_buf_addstr(b, "\"uid\":");
        gcp_json_add_string(b, u->uid, strlen(u->uid));
        sep = ',';
    }

    if (u && u->ngroups) {
        gcp_buf_addc(b, sep);
        gcp_buf_addstr(b, "\"groups\":");
        gcp_audit_strings(b, u->groups, u->ngroups);
        sep = ',';
    }

    if (u && u->nextra) {
        gcp_buf_addc(b, sep);
        gcp_buf_addstr(b, "\"extra\":{");

        for (i = 0; i < u->nextra; i++) {
            if (i) {
                gcp_buf_addc(b, ',');
            }

            gcp_json_add_string(b, u->extra[i].key, strlen(u->extra[i].key));
            gcp_buf_addc(b, ':');
            gcp_audit_strings(b, u->extra[i].values, u->extra[i].nvalues);
        }

        gcp_buf_addc(b, '}');
        sep = ',';
    }

    gcp_buf_addstr(b, sep == '{' ? "{}" : "}");
}


/* One address in canonical text into out, or 0 when s is not one. */

static int
gcp_audit_ip(const char *s, size_t len, char *out, size_t size)
{
    char             buf[INET6_ADDRSTRLEN + 1];
    unsigned char    addr[sizeof(struct in6_addr)];

    while (len && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
    }

    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) {
        len--;
    }

    if (len == 0 || len >= sizeof(buf)) {
        return 0;
    }

    memcpy(buf, s, len);
    buf[len] = '\0';

    if (inet_pton(AF_INET, buf, addr) == 1) {
        return inet_ntop(AF_INET, addr, out, (socklen_t) size) != NULL;
    }

    if (inet_pton(AF_INET6, buf, addr) == 1) {
        return inet_ntop(AF_INET6, addr, out, (socklen_t) size) != NULL;
    }

    return 0;
}


static const char *
gcp_audit_header(const gcp_request_t *req, const char *name)
{
    size_t  i;

    for (i = 0; req && i < req->nheaders; i++) {
        if (strcasecmp(req->headers[i].name, name) == 0) {
            return req->headers[i].value;
        }
    }

    return NULL;
}


/*
 * sourceIPs as utilnet.SourceIPs: the X-Forwarded-For chain, X-Real-Ip
 * unless in it, the peer's address unless it ends the chain.
 */

static void
gcp_audit_source_ips(gcp_buf_t *b, const gcp_audit_event_t *ev)
{
    size_t       n, i, len;
    char         ips[GCP_AUDIT_MAX_IPS][INET6_ADDRSTRLEN + 1], ip[64];
    const char  *h, *p, *comma;

    n = 0;

    h = gcp_audit_header(ev->req, "X-Forwarded-For");

    for (p = h; p && n < GCP_AUDIT_MAX_IPS - 2; p = comma ? comma + 1 : NULL)
    {
        comma = strchr(p, ',');
        len = comma ? (size_t) (comma - p) : strlen(p);

        if (gcp_audit_ip(p, len, ips[n], sizeof(ips[n]))) {
            n++;
        }
    }

    h = gcp_audit_header(ev->req, "X-Real-Ip");

    if (h && gcp_audit_ip(h, strlen(h), ip, sizeof(ip))) {
        for (i = 0; i < n && strcmp(ips[i], ip) != 0; i++) {
            /* void */
        }

        if (i == n) {
            strcpy(ips[n++], ip);
        }
    }

    if (ev->remote_addr && ev->remote_addr[0] && n == 0
        && strspn(ev->remote_addr, "0123456789abcdefABCDEF.:")
           == strlen(ev->remote_addr))
    {
        /* the peer alone, as nginx writes it (canonical): no parsing */
        gcp_buf_addstr(b, ",\"sourceIPs\":[\"");
        gcp_buf_addstr(b, ev->remote_addr);
        gcp_buf_addstr(b, "\"]");
        return;
    }

    if (ev->remote_addr
        && gcp_audit_ip(ev->remote_addr, strlen(ev->remote_addr), ip,
                        sizeof(ip))
        && (n == 0 || strcmp(ips[n - 1], ip) != 0))
    {
        strcpy(ips[n++], ip);
    }

    gcp_buf_addstr(b, ",\"sourceIPs\":[");

    for (i = 0; i < n; i++) {
        gcp_buf_addstr(b, i ? ",\"" : "\"");
        gcp_buf_addstr(b, ips[i]);
        gcp_buf_addc(b, '"');
    }

    gcp_buf_addc(b, ']');
}


static void
gcp_audit_object_ref(gcp_buf_t *b, const gcp_audit_event_t *ev)
{
    const char           *name;
    const gcp_reqinfo_t  *ri = ev->ri;

    gcp_buf_addstr(b, ",\"objectRef\":{\"resource\":");
    gcp_json_add_string(b, ri->resource, strlen(ri->resource));

    if (ri->ns[0]) {
        gcp_audit_str(b, "namespace", ri->ns);
    }

    name = ri->name[0] ? ri->name : ev->name;

    if (name && name[0]) {
        gcp_audit_str(b, "name", name);
    }

    if (ev->uid && ev->uid[0]) {
        gcp_audit_str(b, "uid", ev->uid);
    }

    if (ri->group[0]) {
        gcp_audit_str(b, "apiGroup", ri->group);
    }

    if (ri->version && ri->version[0]) {
        gcp_audit_str(b, "apiVersion", ri->version);
    }

    if (ev->rv && ev->rv[0]) {
        gcp_audit_str(b, "resourceVersion", ev->rv);
    }

    if (ri->subresource[0]) {
        gcp_audit_str(b, "subresource", ri->subresource);
    }

    gcp_buf_addc(b, '}');
}


/* responseStatus: the bounded fields of a Status, or the code alone */

static void
gcp_audit_status(gcp_buf_t *b, const gcp_audit_event_t *ev)
{
    size_t        i;
    json_t       *v;
    const json_t *st = ev->status_body;

    static const char * const  fields[] = {
        "status", "message", "reason", "details", NULL
    };

    gcp_buf_addstr(b, ",\"responseStatus\":{\"metadata\":{}");

    for (i = 0; st && fields[i]; i++) {
        v = json_object_get(st, fields[i]);

        if (v == NULL || (json_is_string(v) && json_string_length(v) == 0))
        {
            continue;
        }

        gcp_buf_addstr(b, ",\"");
        gcp_buf_addstr(b, fields[i]);
        gcp_buf_addstr(b, "\":");
        gcp_json_dump_buf(b, v, 0);
    }

    gcp_buf_addstr(b, ",\"code\":");
    gcp_buf_add_int(b, ev->status);
    gcp_buf_addc(b, '}');
}


static int
gcp_audit_note_cmp(const void *one, const void *two)
{
    const gcp_op_note_t * const  *a = one;
    const gcp_op_note_t * const  *b = two;

    return strcmp((*a)->key, (*b)->key);
}


/*
 * The annotations of the event's level, sorted by key as Go writes a map:
 * the authorization decision and reason, and those the request made
 * (admission's; a patch only at the Request level and above).
 */

static void
gcp_audit_annotations(gcp_buf_t *b, const gcp_audit_event_t *ev)
{
    size_t                i, n;
    gcp_op_note_t         decision, reason;
    const gcp_op_note_t  *note, **v;

    n = ev->decision ? 2 : 0;

    for (note = ev->notes; note; note = note->next) {
        n++;
    }

    if (n == 0) {
        return;
    }

    v = gcp_alloc(b->arena, n * sizeof(gcp_op_note_t *));
    if (v == NULL) {
        b->failed = 1;
        return;
    }

    n = 0;

    if (ev->decision) {
        decision.key = "authorization.k8s.io/decision";
        decision.value = ev->decision;
        reason.key = "authorization.k8s.io/reason";
        reason.value = ev->reason ? ev->reason : "";
        v[n++] = &decision;
        v[n++] = &reason;
    }

    for (note = ev->notes; note; note = note->next) {
        if (!note->request_level || ev->level >= GCP_AUDIT_REQUEST) {
            v[n++] = note;
        }
    }

    if (n == 0) {
        return;
    }

    qsort(v, n, sizeof(gcp_op_note_t *), gcp_audit_note_cmp);

    gcp_buf_addstr(b, ",\"annotations\":{");

    for (i = 0; i < n; i++) {
        if (i) {
            gcp_buf_addc(b, ',');
        }

        gcp_json_add_string(b, v[i]->key, strlen(v[i]->key));
        gcp_buf_addc(b, ':');
        gcp_json_add_string(b, v[i]->value, strlen(v[i]->value));
    }

    gcp_buf_addc(b, '}');
}


void
gcp_audit_event_write(gcp_buf_t *b, const gcp_audit_event_t *ev)
{
    size_t  n;
    char    ts[GCP_TIME_BUFSIZE];

    gcp_buf_addstr(b, "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\","
                   "\"level\":\"");
    gcp_buf_addstr(b, gcp_audit_level_name(ev->level));
    gcp_buf_addc(b, '"');

    gcp_audit_str(b, "auditID", ev->audit_id ? ev->audit_id : "");
    gcp_buf_addstr(b, ",\"stage\":\"");
    gcp_buf_addstr(b, ev->stage);
    gcp_buf_addc(b, '"');
    gcp_audit_str(b, "requestURI", ev->uri);
    gcp_audit_str(b, "verb", ev->verb ? ev->verb : "");

    gcp_buf_addstr(b, ",\"user\":");
    gcp_audit_user(b, ev->user);

    if (ev->impersonated) {
        gcp_buf_addstr(b, ",\"impersonatedUser\":");
        gcp_audit_user(b, ev->impersonated);
    }

    gcp_audit_source_ips(b, ev);

    if (ev->user_agent && ev->user_agent[0]) {
        n = strlen(ev->user_agent);

        gcp_buf_addstr(b, ",\"userAgent\":");

        if (n > GCP_AUDIT_MAX_UA) {
            gcp_buf_t  ua;

            gcp_buf_init(&ua, b->arena);
            gcp_buf_add(&ua, ev->user_agent, GCP_AUDIT_MAX_UA);
            gcp_buf_addstr(&ua, "...TRUNCATED");
            gcp_json_add_string(b, gcp_buf_cstr(&ua), ua.len);

        } else {
            gcp_json_add_string(b, ev->user_agent, n);
        }
    }

    if (ev->ri && ev->ri->is_resource) {
        gcp_audit_object_ref(b, ev);
    }

    if (ev->status) {
        gcp_audit_status(b, ev);
    }

    if (ev->request_object) {
        gcp_buf_addstr(b, ",\"requestObject\":");
        gcp_json_dump_buf(b, ev->request_object, 0);
    }

    if (ev->response_object) {
        gcp_buf_addstr(b, ",\"responseObject\":");
        gcp_json_dump_buf(b, ev->response_object, 0);

    } else if (ev->response_raw.data) {
        gcp_buf_addstr(b, ",\"responseObject\":");
        gcp_buf_add(b, ev->response_raw.data, ev->response_raw.len);
    }

    gcp_buf_addstr(b, ",\"requestReceivedTimestamp\":\"");
    gcp_buf_add(b, ts, gcp_time_format_micro(ts, ev->received));
    gcp_buf_addstr(b, "\",\"stageTimestamp\":\"");
    gcp_buf_add(b, ts, gcp_time_format_micro(ts, ev->now));
    gcp_buf_addc(b, '"');

    gcp_audit_annotations(b, ev);

    gcp_buf_addstr(b, "}\n");
}
