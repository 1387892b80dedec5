
/*
 * Calling a webhook (see gcp_webhook_call.h).  The errors are worded as
 * Go's net/http and kube-apiserver's REST client word them: transport
 * failures as "Post \"URL\": DETAIL", answers that are not 2xx as the
 * Status they carry or as NewGenericServerResponse describes the code.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "gcp_base64.h"
#include "gcp_json.h"
#include "gcp_webhook_call.h"


typedef struct {
    gcp_arena_t            *a;
    const char             *url;        /* as called, with ?timeout= */
    const char             *addr;       /* "HOST:PORT" dialed */
    gcp_webhook_reply_pt    done;
    void                   *arg;
} gcp_whcall_t;


static const char  *gcp_whcall_headers[] = {
    "Content-Type: application/json",
    "Accept: application/json, */*",
    "User-Agent: kube-apiserver-admission",
    NULL
};


int
gcp_webhook_client_parse(gcp_arena_t *a, const json_t *cc,
    gcp_webhook_client_t *c, const char **err)
{
    json_t       *url, *svc, *port, *ca;
    gcp_str_t     pem;
    const char   *ns, *name, *path, *msg;

    memset(c, 0, sizeof(gcp_webhook_client_t));

    url = json_object_get(cc, "url");
    svc = json_object_get(cc, "service");

    if (json_is_string(url)) {
        if (strncasecmp(json_string_value(url), "https://", 8) != 0) {
            *err = "the webhook's URL is not https";
            return GCP_EINVALID;
        }

        c->url = json_string_value(url);

    } else if (json_is_object(svc)) {
        ns = json_string_value(json_object_get(svc, "namespace"));
        name = json_string_value(json_object_get(svc, "name"));
        path = json_string_value(json_object_get(svc, "path"));
        port = json_object_get(svc, "port");

        if (ns == NULL || name == NULL || ns[0] == '\0' || name[0] == '\0')
        {
            *err = "the webhook's service has no name or namespace";
            return GCP_EINVALID;
        }

        c->port = json_is_integer(port) ? (int) json_integer_value(port)
                                        : 443;

        if (c->port < 1 || c->port > 65535) {
            *err = "the webhook's service port is not valid";
            return GCP_EINVALID;
        }

        c->service = gcp_sprintf(a, "%s.%s.svc", name, ns);

        if (c->service == NULL) {
            *err = "out of memory";
            return GCP_ENOMEM;
        }

        c->url = gcp_sprintf(a, "https://%s:%d%s", c->service, c->port,
                             path ? path : "");

    } else {
        *err = "the webhook has neither url nor service";
        return GCP_EINVALID;
    }

    ca = json_object_get(cc, "caBundle");

    if (json_is_string(ca) && json_string_length(ca)) {
        if (gcp_base64_decode(a, json_string_value(ca),
                              json_string_length(ca), &pem, &msg)
            != GCP_OK)
        {
            *err = "the webhook's caBundle is not base64";
            return GCP_EINVALID;
        }

        c->ca = pem;
    }

    if (c->url == NULL) {
        *err = "out of memory";
        return GCP_ENOMEM;
    }

    return GCP_OK;
}


/* "HOST:PORT" of an https URL (Go's dial address: port 443 by default). */
static const char *
gcp_whcall_addr(gcp_arena_t *a, const char *url)
{
    size_t       n;
    const char  *host, *end, *at, *p;

    host = url + sizeof("https://") - 1;
    end = host + strcspn(host, "/?#");

    at = NULL;
    for (p = host; p < end; p++) {
        at = *p == '@' ? p : at;
    }

    host = at ? at + 1 : host;
    n = (size_t) (end - host);

    /* a port after the host (after "]" for IPv6) */

    p = memchr(host, ']', n);
    p = memchr(p ? p : host, ':', (size_t) (end - (p ? p : host)));

    return p ? gcp_strndup(a, host, n)
             : gcp_sprintf(a, "%.*s:443", (int) n, host);
}


static const gcp_service_t *
gcp_whcall_service(const gcp_api_conf_t *conf, const char *name, int port)
{
    size_t       i, len;
    const char  *s;

    len = strlen(name);

    /* NAME.NAMESPACE.svc:PORT first, then NAME.NAMESPACE.svc */

    for (i = 0; i < conf->nservices; i++) {
        s = conf->services[i].name;

        if (strncmp(s, name, len) == 0 && s[len] == ':'
            && atoi(s + len + 1) == port && conf->services[i].nendpoints)
        {
            return &conf->services[i];
        }
    }

    for (i = 0; i < conf->nservices; i++) {
        if (strcmp(conf->services[i].name, name) == 0
            && conf->services[i].nendpoints)
        {
            return &conf->services[i];
        }
    }

    return NULL;
}


/* Go's description of a failed connection ("connection refused"...). */
static const char *
gcp_whcall_errno(int err)
{
    switch (err) {
    case ECONNREFUSED:
        return "connection refused";
    case ENETUNREACH:
        return "network is unreachable";
    case EHOSTUNREACH:
        return "no route to host";
    case ETIMEDOUT:
        return "i/o timeout";
    case ECONNRESET:
        return "connection reset by peer";
    default:
        return NULL;
    }
}


/* The transport failure in Go's words (after "Post \"URL\": "). */
static const char *
gcp_whcall_transport(gcp_whcall_t *w, const gcp_http_result_t *res)
{
    const char  *why;

    switch (res->error) {

    case GCP_HTTP_ERR_TIMEOUT:
        return "context deadline exceeded";

    case GCP_HTTP_ERR_CONNECT:
        why = gcp_whcall_errno(res->os_errno);
        return gcp_sprintf(w->a, "dial tcp %s: connect: %s", w->addr,
                           why ? why : res->detail);

    case GCP_HTTP_ERR_RESOLVE:
        return gcp_sprintf(w->a, "dial tcp: lookup %.*s: no such host",
                           (int) (strrchr(w->addr, ':') - w->addr),
                           w->addr);

    case GCP_HTTP_ERR_TLS:
        if (strstr(res->detail, "subject name")
            || strstr(res->detail, "hostname"))
        {
            return gcp_sprintf(w->a, "tls: failed to verify certificate: "
                               "x509: certificate is not valid for %.*s",
                               (int) (strrchr(w->addr, ':') - w->addr),
                               w->addr);
        }

        if (strstr(res->detail, "certificate")) {
            return "tls: failed to verify certificate: x509: certificate "
                   "signed by unknown authority";
        }

        return gcp_sprintf(w->a, "remote error: %s", res->detail);

    case GCP_HTTP_ERR_TOO_LARGE:
        return "http: response body too large";

    default:
        return res->sent ? "EOF" : res->detail;
    }
}


/*
 * A non-2xx answer as the REST client reports it: the Status it holds, or
 * NewGenericServerResponse's words for the code.
 */
static const char *
gcp_whcall_status(gcp_whcall_t *w, const gcp_http_result_t *res)
{
    json_t      *j, *msg;
    const char  *text, *ct, *m;
    size_t       n;

    j = gcp_json_parse(w->a, res->body.data, res->body.len, &m);

    if (json_is_object(j)
        && json_is_string(json_object_get(j, "kind"))
        && strcmp(json_string_value(json_object_get(j, "kind")), "Status")
           == 0
        && json_is_string(json_object_get(j, "status"))
        && strcmp(json_string_value(json_object_get(j, "status")),
                  "Failure") == 0)
    {
        msg = json_object_get(j, "message");
        return json_is_string(msg) ? json_string_value(msg) : "";
    }

    /* the server's text, at most 1 KiB of it, unless it is not text */

    ct = res->content_type;
    n = gcp_min(res->body.len, 1024);

    text = "unknown";

    if (ct == NULL || ct[0] == '\0' || strncasecmp(ct, "text/", 5) == 0) {
        while (n && (res->body.data[n - 1] == '\n'
                     || res->body.data[n - 1] == ' '
                     || res->body.data[n - 1] == '\r'))
        {
            n--;
        }

        text = gcp_strndup(w->a, res->body.data, n);
    }

    switch (res->status) {
    case 400:
        return "the server rejected our request for an unknown reason";
    case 401:
        return "the server has asked for the client to provide credentials";
    case 403:
    case 406:
    case 415:
        return text;
    case 404:
        return "the server could not find the requested resource";
    case 405:
        return "the server does not allow this method on the requested "
               "resource";
    case 409:
        return "the server reported a conflict";
    case 422:
        return "the server rejected our request due to an error in our "
               "request";
    case 429:
        return "the server has received too many requests and has asked "
               "us to try again later";
    case 503:
        return "the server is currently unable to handle the request";
    case 504:
        return "the server was unable to return a response in the time "
               "allotted, but may still be processing the request";
    default:
        if (res->status >= 500) {
            return gcp_sprintf(w->a, "an error on the server (%s) has "
                               "prevented the request from succeeding",
                               gcp_go_quote(w->a, text, strlen(text)));
        }

        return gcp_sprintf(w->a, "the server responded with the status code "
                           "%d but did not return more information",
                           (int) res->status);
    }
}


static void
gcp_whcall_done(void *arg, const gcp_http_result_t *res)
{
    json_t               *j;
    const char           *msg;
    gcp_whcall_t         *w = arg;
    gcp_webhook_reply_t   r;

    memset(&r, 0, sizeof(r));
    r.rc = GCP_EUNAVAILABLE;
    r.status = (int) res->status;

    if (res->error != GCP_HTTP_OK) {
        r.timeout = res->error == GCP_HTTP_ERR_TIMEOUT;
        r.error = gcp_sprintf(w->a, "Post %s: %s",
                              gcp_go_quote(w->a, w->url, strlen(w->url)),
                              gcp_whcall_transport(w, res));
        w->done(w->arg, &r);
        return;
    }

    if (res->status < 200 || res->status > 206) {
        r.error = gcp_whcall_status(w, res);
        w->done(w->arg, &r);
        return;
    }

    j = gcp_json_parse(w->a, res->body.data, res->body.len, &msg);

    if (!json_is_object(j)) {
        r.error = gcp_sprintf(w->a, "couldn't get version/kind; json parse "
                              "error: %s",
                              j ? "the answer is not a JSON object" : msg);
        w->done(w->arg, &r);
        return;
    }

    r.rc = GCP_OK;
    r.json = j;

    w->done(w->arg, &r);
}


int
gcp_webhook_post(gcp_http_t *http, const gcp_api_conf_t *conf,
    gcp_arena_t *a, const gcp_webhook_client_t *c, int timeout_s,
    gcp_str_t body, gcp_webhook_reply_pt done, void *arg)
{
    size_t                 i;
    gcp_buf_t              b;
    gcp_whcall_t          *w;
    gcp_http_opts_t        o;
    gcp_webhook_reply_t    r;
    const gcp_service_t   *svc;

    static size_t          turn;

    w = gcp_calloc(a, sizeof(gcp_whcall_t));
    if (w == NULL) {
        return GCP_ENOMEM;
    }

    w->a = a;
    w->done = done;
    w->arg = arg;
    gcp_buf_init(&b, a);
    gcp_buf_addstr(&b, c->url);
    gcp_buf_addstr(&b, "?timeout=");
    gcp_buf_add_int(&b, timeout_s);
    gcp_buf_addc(&b, 's');
    w->url = gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);

    memset(&o, 0, sizeof(o));

    o.method = "POST";
    o.url = w->url;
    o.headers = gcp_whcall_headers;
    o.body = body;
    o.ca.pem = c->ca;
    o.timeout_ms = (uint64_t) timeout_s * 1000;
    o.max_body = GCP_WEBHOOK_MAX_ANSWER;

    if (c->service) {
        svc = gcp_whcall_service(conf, c->service, c->port);

        if (svc == NULL) {
            memset(&r, 0, sizeof(r));
            r.rc = GCP_EUNAVAILABLE;
            r.error = gcp_sprintf(a, "Post %s: service %s is not "
                                  "configured on this server",
                                  gcp_go_quote(a, w->url, strlen(w->url)),
                                  gcp_go_quote(a, c->service,
                                               strlen(c->service)));
            done(arg, &r);
            return GCP_OK;
        }

        i = turn++ % svc->nendpoints;
        w->addr = svc->endpoints[i];
        o.connect_to = gcp_sprintf(a, "%s:%d:%s", c->service, c->port,
                                   w->addr);

    } else {
        w->addr = gcp_whcall_addr(a, c->url);
    }

    if (w->url == NULL || w->addr == NULL
        || (c->service && o.connect_to == NULL))
    {
        return GCP_ENOMEM;
    }

    if (gcp_http_send(http, &o, NULL, gcp_whcall_done, w) == NULL) {
        return GCP_ENOMEM;
    }

    return GCP_OK;
}
