
/*
 * The etcd backend's HTTP client: etcd's gateway calls on the core's
 * asynchronous HTTP client (base/gcp_http.h, libcurl's multi interface on
 * the gcp_loop_t), so that no call blocks.  What this file adds: the
 * endpoints and failover, deadlines and retries, etcd's JSON answers and
 * the lines of its streams.
 *
 * Failover: every call goes to the endpoint in use; a transport failure
 * moves to the next one.  A call that was never sent (connection refused
 * or not established) is retried there at once, a GCP_ETCD_SAFE call
 * (reads) after any transport failure or an "unavailable" answer, until
 * its deadline.  A write that may have reached etcd is not retried: its
 * outcome is unknown and the caller gets the error.  Nor does curl send a
 * write again by itself (o.replayable): a txn sent on a kept-alive
 * connection to a member that died after applying it would otherwise be
 * sent to it again, or refused there and taken for never sent, and a
 * create would meet its own key (409 AlreadyExists).
 */

#include <stdlib.h>

#include "gcp_http.h"
#include "gcp_etcd.h"


#define GCP_ETCD_CONNECT_MS   1000
#define GCP_ETCD_RETRY_MS     100
#define GCP_ETCD_MAX_CONNS    64
#define GCP_ETCD_URL_MAX      1024


struct gcp_etcd_call_s {
    gcp_etcd_call_t     *next;          /* h->calls */
    gcp_etcd_call_t     *prev;
    gcp_etcd_http_t     *h;
    gcp_http_req_t      *req;           /* in flight, or NULL */
    char                *path;
    char                *body;
    size_t               body_len;
    unsigned             flags;
    int                  endpoint;
    int                  tries;
    uint64_t             deadline;      /* 0: none (streams) */

    gcp_etcd_reply_pt    done;
    gcp_etcd_msg_pt      msg;
    gcp_etcd_end_pt      end;
    void                *arg;

    gcp_loop_timer_t    *retry;

    unsigned             stream:1;
    unsigned             busy:1;        /* one of its callbacks runs */
    unsigned             dead:1;        /* cancelled during it */
};


struct gcp_etcd_http_s {
    gcp_loop_t          *loop;
    gcp_http_t          *http;
    char               **endpoints;
    int                  n;
    int                  current;
    char                *cacert;
    char                *cert;
    char                *key;
    uint64_t             timeout;
    gcp_etcd_call_t     *calls;
    uint64_t             requests;
    uint64_t             failovers;
};


static const char * const  gcp_etcd_headers[] = {
    "Content-Type: application/json", NULL
};

static const char * const  gcp_etcd_leader_headers[] = {
    "Content-Type: application/json", "Grpc-Metadata-hasleader: true", NULL
};


static int gcp_etcd_call_send(gcp_etcd_call_t *c);
static void gcp_etcd_call_free(gcp_etcd_call_t *c);


/* ------------------------------------------------------------ client */


static char *
gcp_etcd_strdup(const char *s, size_t n)
{
    char  *p;

    p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }

    return p;
}


static int
gcp_etcd_parse_endpoints(gcp_etcd_http_t *h, const char *list,
    const char **err)
{
    int          n;
    size_t       len;
    const char  *p, *q, *e;

    n = 1;
    for (p = list; *p; p++) {
        n += (*p == ',');
    }

    h->endpoints = calloc(n, sizeof(char *));
    if (h->endpoints == NULL) {
        *err = "out of memory";
        return GCP_ENOMEM;
    }

    for (p = list; ; p = q + 1) {
        q = strchr(p, ',');
        e = q ? q : p + strlen(p);

        while (p < e && (*p == ' ' || *p == '\t')) {
            p++;
        }

        while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '/')) {
            e--;
        }

        len = (size_t) (e - p);

        if (!((len > 7 && strncmp(p, "http://", 7) == 0)
              || (len > 8 && strncmp(p, "https://", 8) == 0)))
        {
            *err = "etcd endpoints must be http:// or https:// URLs";
            return GCP_EBADREQUEST;
        }

        h->endpoints[h->n] = gcp_etcd_strdup(p, len);
        if (h->endpoints[h->n] == NULL) {
            *err = "out of memory";
            return GCP_ENOMEM;
        }

        h->n++;

        if (q == NULL) {
            break;
        }
    }

    return GCP_OK;
}


int
gcp_etcd_http_check(const char *endpoints, const char **err)
{
    int              rc, i;
    gcp_etcd_http_t  h;

    if (endpoints == NULL || endpoints[0] == '\0') {
        *err = "no etcd endpoints";
        return GCP_EBADREQUEST;
    }

    memset(&h, 0, sizeof(gcp_etcd_http_t));

    rc = gcp_etcd_parse_endpoints(&h, endpoints, err);

    for (i = 0; i < h.n; i++) {
        free(h.endpoints[i]);
    }

    free(h.endpoints);

    return rc;
}


static char *
gcp_etcd_optdup(const char *s)
{
    return s && *s ? gcp_etcd_strdup(s, strlen(s)) : NULL;
}


gcp_etcd_http_t *
gcp_etcd_http_create(const gcp_etcd_conf_t *conf, gcp_loop_t *loop,
    const char **err)
{
    gcp_etcd_http_t  *h;

    if (gcp_etcd_http_check(conf->endpoints, err) != GCP_OK) {
        return NULL;
    }

    h = calloc(1, sizeof(gcp_etcd_http_t));
    if (h == NULL) {
        *err = "out of memory";
        return NULL;
    }

    h->loop = loop;
    h->timeout = conf->timeout_ms ? conf->timeout_ms : GCP_ETCD_TIMEOUT_MS;

    if (gcp_etcd_parse_endpoints(h, conf->endpoints, err) != GCP_OK) {
        goto failed;
    }

    h->cacert = gcp_etcd_optdup(conf->cacert);
    h->cert = gcp_etcd_optdup(conf->cert);
    h->key = gcp_etcd_optdup(conf->key);

    /* keep the connections of a busy worker (often one call is under */
    /* way: the stream) */
    h->http = gcp_http_create(loop, GCP_ETCD_MAX_CONNS);

    if (h->http == NULL
        || (conf->cacert && h->cacert == NULL)
        || (conf->cert && h->cert == NULL) || (conf->key && h->key == NULL))
    {
        *err = "out of memory";
        goto failed;
    }

    return h;

failed:

    gcp_etcd_http_destroy(h);

    return NULL;
}


void
gcp_etcd_http_destroy(gcp_etcd_http_t *h)
{
    int  i;

    if (h == NULL) {
        return;
    }

    while (h->calls) {
        gcp_etcd_call_free(h->calls);
    }

    gcp_http_destroy(h->http);

    for (i = 0; i < h->n; i++) {
        free(h->endpoints[i]);
    }

    free(h->endpoints);
    free(h->cacert);
    free(h->cert);
    free(h->key);
    free(h);
}


void
gcp_etcd_http_failover(gcp_etcd_http_t *h)
{
    if (h->n > 1) {
        h->current = (h->current + 1) % h->n;
        h->failovers++;
    }
}


/* After a failure on endpoint ep: the next calls go elsewhere. */

static void
gcp_etcd_http_failed(gcp_etcd_http_t *h, int ep)
{
    if (h->current == ep) {
        gcp_etcd_http_failover(h);
    }
}


int
gcp_etcd_http_endpoint(gcp_etcd_http_t *h)
{
    return h->current;
}


uint64_t
gcp_etcd_http_requests(gcp_etcd_http_t *h)
{
    return h->requests;
}


uint64_t
gcp_etcd_http_failovers(gcp_etcd_http_t *h)
{
    return h->failovers;
}


/* ------------------------------------------------------------ calls */


static gcp_etcd_call_t *
gcp_etcd_call_new(gcp_etcd_http_t *h, const char *path, gcp_str_t body,
    unsigned flags)
{
    gcp_etcd_call_t  *c;

    c = calloc(1, sizeof(gcp_etcd_call_t));
    if (c == NULL) {
        return NULL;
    }

    c->h = h;
    c->flags = flags;
    c->path = gcp_etcd_strdup(path, strlen(path));
    c->body = gcp_etcd_strdup(body.data ? body.data : "", body.len);
    c->body_len = body.len;

    if (c->path == NULL || c->body == NULL) {
        free(c->path);
        free(c->body);
        free(c);
        return NULL;
    }

    c->next = h->calls;
    if (h->calls) {
        h->calls->prev = c;
    }
    h->calls = c;

    return c;
}


static void
gcp_etcd_call_free(gcp_etcd_call_t *c)
{
    gcp_etcd_http_t  *h = c->h;

    gcp_http_cancel(c->req);
    c->req = NULL;

    if (c->retry) {
        h->loop->timer_del(h->loop, c->retry);
        c->retry = NULL;
    }

    if (c->prev) {
        c->prev->next = c->next;
    } else {
        h->calls = c->next;
    }

    if (c->next) {
        c->next->prev = c->prev;
    }

    free(c->path);
    free(c->body);
    free(c);
}


static size_t gcp_etcd_call_data(void *arg, const char *p, size_t n);
static void gcp_etcd_call_done(void *arg, const gcp_http_result_t *res);


static int
gcp_etcd_call_send(gcp_etcd_call_t *c)
{
    char              url[GCP_ETCD_URL_MAX];
    uint64_t          now, left;
    gcp_http_opts_t   o;
    gcp_etcd_http_t  *h = c->h;

    c->endpoint = h->current;

    if (snprintf(url, sizeof(url), "%s%s", h->endpoints[c->endpoint],
                 c->path) >= (int) sizeof(url))
    {
        return GCP_EBADREQUEST;
    }

    memset(&o, 0, sizeof(o));

    o.url = url;
    o.headers = (c->flags & GCP_ETCD_LEADER) ? gcp_etcd_leader_headers
                                             : gcp_etcd_headers;
    o.body.data = c->body;
    o.body.len = c->body_len;
    o.ca.file = h->cacert;
    o.cert.file = h->cert;
    o.key.file = h->key;

    /* a write is sent once: curl's re-send after a reused connection */
    /* died would apply it twice, or fail its compare (gcp_http.h) */
    o.replayable = c->stream || (c->flags & GCP_ETCD_SAFE);

    if (c->stream) {
        o.connect_timeout_ms = gcp_min(h->timeout, GCP_ETCD_CONNECT_MS);
        o.tcp_keepalive = 1;

    } else {
        now = h->loop->now_ms(h->loop);
        left = c->deadline > now ? c->deadline - now : 1;

        o.timeout_ms = left;
        o.connect_timeout_ms = gcp_min(left, GCP_ETCD_CONNECT_MS);
    }

    c->req = gcp_http_send(h->http, &o,
                           c->stream ? gcp_etcd_call_data : NULL,
                           gcp_etcd_call_done, c);

    if (c->req == NULL) {
        return GCP_EINTERNAL;
    }

    h->requests++;

    return GCP_OK;
}


gcp_etcd_call_t *
gcp_etcd_http_unary(gcp_etcd_http_t *h, const char *path, gcp_str_t body,
    unsigned flags, gcp_etcd_reply_pt done, void *arg)
{
    gcp_etcd_call_t  *c;

    c = gcp_etcd_call_new(h, path, body, flags);
    if (c == NULL) {
        return NULL;
    }

    c->done = done;
    c->arg = arg;
    c->deadline = h->loop->now_ms(h->loop) + h->timeout;

    if (gcp_etcd_call_send(c) != GCP_OK) {
        gcp_etcd_call_free(c);
        return NULL;
    }

    return c;
}


gcp_etcd_call_t *
gcp_etcd_http_stream(gcp_etcd_http_t *h, const char *path, gcp_str_t body,
    unsigned flags, gcp_etcd_msg_pt msg, gcp_etcd_end_pt end, void *arg)
{
    gcp_etcd_call_t  *c;

    c = gcp_etcd_call_new(h, path, body, flags);
    if (c == NULL) {
        return NULL;
    }

    c->stream = 1;
    c->msg = msg;
    c->end = end;
    c->arg = arg;

    if (gcp_etcd_call_send(c) != GCP_OK) {
        gcp_etcd_call_free(c);
        return NULL;
    }

    return c;
}


void
gcp_etcd_http_cancel(gcp_etcd_http_t *h, gcp_etcd_call_t *c)
{
    if (c == NULL) {
        return;
    }

    if (c->busy) {
        c->dead = 1;
        return;
    }

    gcp_etcd_call_free(c);
}


/* ------------------------------------------------------------ answers */


static void
gcp_etcd_call_reply(gcp_etcd_call_t *c, int rc, json_t *json,
    const char *message)
{
    gcp_etcd_reply_t  r;

    r.rc = rc;
    r.json = json;
    r.message = message;

    c->busy = 1;
    c->done(c->arg, &r);
    c->busy = 0;

    gcp_etcd_call_free(c);
}


static void
gcp_etcd_call_end(gcp_etcd_call_t *c, int rc, const char *message)
{
    c->busy = 1;

    if (!c->dead) {
        c->end(c->arg, rc, message);
    }

    c->busy = 0;

    gcp_etcd_call_free(c);
}


/* The error of an etcd answer: {"error": ..., "message": ..., "code": N} */

static int
gcp_etcd_answer_error(json_t *json, const char **message)
{
    json_t  *err, *msg;

    err = json_object_get(json, "error");
    msg = json_object_get(json, "message");

    if (json_is_object(err)) {
        msg = json_object_get(err, "message");
        json = err;
    }

    *message = json_is_string(msg) ? json_string_value(msg)
               : json_is_string(err) ? json_string_value(err)
               : "etcd: malformed error";

    return gcp_etcd_error_rc(*message, gcp_etcd_int(json, "code"));
}


/*
 * Hands the complete lines of p (n bytes) to the stream's msg handler.
 * Returns how many bytes were consumed.  A call that ends on the way
 * (a refused or malformed line, an error message, a cancel) is freed, or
 * marked dead when its HTTP request is still being answered.
 */
static size_t
gcp_etcd_call_lines(gcp_etcd_call_t *c, const char *p, size_t n)
{
    int           rc;
    const char   *nl, *message;
    size_t        pos, len;
    json_t       *j, *result;

    pos = 0;

    while (pos < n && !c->dead) {
        nl = memchr(p + pos, '\n', n - pos);
        if (nl == NULL) {
            break;
        }

        len = (size_t) (nl - (p + pos));

        j = len ? json_loadb(p + pos, len, 0, NULL) : NULL;
        pos += len + 1;

        if (len == 0) {
            continue;
        }

        if (!json_is_object(j)) {
            json_decref(j);
            gcp_etcd_call_end(c, GCP_EUNAVAILABLE,
                              "etcd: malformed watch message");
            return n;
        }

        result = json_object_get(j, "result");

        if (!json_is_object(result)) {
            rc = gcp_etcd_answer_error(j, &message);
            gcp_etcd_http_failed(c->h, c->endpoint);
            gcp_etcd_call_end(c, rc, message);
            json_decref(j);
            return n;
        }

        c->busy = 1;
        rc = c->msg(c->arg, result);
        c->busy = 0;

        json_decref(j);

        if (rc != GCP_OK || c->dead) {
            gcp_etcd_call_free(c);
            return n;
        }
    }

    return pos;
}


/* A stream's bytes, from the HTTP client. */

static size_t
gcp_etcd_call_data(void *arg, const char *p, size_t n)
{
    gcp_etcd_call_t  *c = arg;

    return gcp_etcd_call_lines(c, p, n);
}


static void
gcp_etcd_retry_handler(void *arg)
{
    gcp_etcd_call_t  *c = arg;

    c->retry = NULL;

    if (gcp_etcd_call_send(c) != GCP_OK) {
        gcp_etcd_call_reply(c, GCP_EINTERNAL, NULL,
                            "etcd: cannot start a request");
    }
}


/* Returns 1 when c will be tried again. */

static int
gcp_etcd_call_again(gcp_etcd_call_t *c)
{
    uint64_t          now, delay;
    gcp_etcd_http_t  *h = c->h;

    c->tries++;
    delay = c->tries < h->n ? 0 : GCP_ETCD_RETRY_MS;
    now = h->loop->now_ms(h->loop);

    if (now + delay + 10 >= c->deadline) {
        return 0;
    }

    c->retry = h->loop->timer_add(h->loop, delay, gcp_etcd_retry_handler, c);

    return c->retry != NULL;
}


static void
gcp_etcd_call_transport(gcp_etcd_call_t *c, const gcp_http_result_t *res)
{
    int               rc;
    char              msg[256];
    gcp_etcd_http_t  *h = c->h;

    gcp_etcd_http_failed(h, c->endpoint);

    /* curl's own words, without the addresses of the etcd members */

    snprintf(msg, sizeof(msg), "etcd: %s", res->message);

    /*
     * Not sent: nothing happened (503, and another member may be tried).
     * Sent and timed out: 504 with the words of kube-apiserver's timeout.
     * A write sent when the connection broke may have been applied: its
     * outcome is unknown (500), which a 503 would deny.
     */

    if (!res->sent) {
        rc = GCP_EUNAVAILABLE;

    } else if (res->error == GCP_HTTP_ERR_TIMEOUT) {
        rc = GCP_ETIMEOUT;

        if (!c->stream && !(c->flags & GCP_ETCD_SAFE)) {
            snprintf(msg, sizeof(msg), "%s", GCP_ETCD_TIMEOUT_MSG);
        }

    } else {
        rc = (c->stream || (c->flags & GCP_ETCD_SAFE)) ? GCP_EUNAVAILABLE
                                                       : GCP_EINDOUBT;
    }

    if (c->stream) {
        gcp_etcd_call_end(c, rc, msg);
        return;
    }

    if ((!res->sent || (c->flags & GCP_ETCD_SAFE)) && gcp_etcd_call_again(c))
    {
        return;
    }

    gcp_etcd_call_reply(c, rc, NULL, msg);
}


static void
gcp_etcd_call_answered(gcp_etcd_call_t *c, const gcp_http_result_t *res)
{
    int          rc;
    json_t      *j;
    const char  *message;

    if (c->stream) {
        gcp_etcd_call_end(c, GCP_EUNAVAILABLE, "etcd: the watch stream ended");
        return;
    }

    j = json_loadb(res->body.data, res->body.len, 0, NULL);

    if (!json_is_object(j)) {
        json_decref(j);
        gcp_etcd_http_failed(c->h, c->endpoint);

        if ((c->flags & GCP_ETCD_SAFE) && gcp_etcd_call_again(c)) {
            return;
        }

        gcp_etcd_call_reply(c, (c->flags & GCP_ETCD_SAFE) ? GCP_EUNAVAILABLE
                                                          : GCP_EINDOUBT,
                            NULL, "etcd: malformed answer");
        return;
    }

    if (res->status == 200 && json_object_get(j, "error") == NULL) {
        gcp_etcd_call_reply(c, GCP_OK, j, NULL);
        json_decref(j);
        return;
    }

    rc = gcp_etcd_answer_error(j, &message);

    if (rc == GCP_EUNAVAILABLE) {
        /* this member has no leader, or is stopping: another may do */
        gcp_etcd_http_failed(c->h, c->endpoint);

        if ((c->flags & GCP_ETCD_SAFE) && gcp_etcd_call_again(c)) {
            json_decref(j);
            return;
        }
    }

    gcp_etcd_call_reply(c, rc, NULL, message);
    json_decref(j);
}


/*
 * The HTTP request is over (its request is freed after this returns).  A
 * stream's last lines were handed out before.
 */
static void
gcp_etcd_call_done(void *arg, const gcp_http_result_t *res)
{
    gcp_etcd_call_t  *c = arg;

    c->req = NULL;

    if (res->error != GCP_HTTP_OK) {
        gcp_etcd_call_transport(c, res);
        return;
    }

    gcp_etcd_call_answered(c, res);
}
