
/*
 * The etcd backend's HTTP client: libcurl's multi interface driven by a
 * gcp_loop_t (CURLMOPT_SOCKETFUNCTION and CURLMOPT_TIMERFUNCTION), so that
 * no call blocks.  Curl's callbacks only record sockets, timers and bytes;
 * completions and stream lines are handed to the backend after
 * curl_multi_socket_action() returned, where any curl call is allowed.
 *
 * Failover: every call goes to the endpoint in use; a transport failure
 * moves to the next one.  A call that was never sent (connection refused
 * or not established) is retried there at once, a GCP_ETCD_SAFE call
 * (reads) after any transport failure or an "unavailable" answer, until
 * its deadline.  A write that may have reached etcd is not retried: its
 * outcome is unknown and the caller gets the error.
 *
 * The loop watches a duplicate of each curl socket, not the socket itself:
 * curl 7.88 closes a socket whose connect was cancelled before telling the
 * socket callback or calling the close-socket callback (curl PR 11439,
 * fixed in 8.2), and a descriptor closed first would leave the event loop
 * deregistering a closed (or already reused) number.  The duplicate keeps
 * the registration valid until it is removed, then it is closed.
 */

#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include <curl/curl.h>

#include "gcp_etcd.h"


#define GCP_ETCD_CONNECT_MS   1000
#define GCP_ETCD_RETRY_MS     100
#define GCP_ETCD_MAX_CONNS    64


typedef struct gcp_etcd_sock_s  gcp_etcd_sock_t;

struct gcp_etcd_sock_s {
    gcp_etcd_sock_t     *next;
    gcp_etcd_http_t     *h;
    curl_socket_t        fd;            /* curl's */
    int                  dup;           /* ours, in the loop */
    gcp_loop_fd_t       *fdh;
};


struct gcp_etcd_call_s {
    gcp_etcd_call_t     *next;          /* h->calls */
    gcp_etcd_call_t     *prev;
    gcp_etcd_call_t     *rnext;         /* h->ready: lines to hand out */
    gcp_etcd_call_t     *rprev;
    gcp_etcd_http_t     *h;
    CURL                *easy;
    char                *path;
    char                *body;
    size_t               body_len;
    unsigned             flags;
    int                  endpoint;
    int                  tries;
    uint64_t             deadline;      /* 0: none (streams) */

    char                *in;            /* bytes received */
    size_t               in_len;
    size_t               in_cap;

    gcp_etcd_reply_pt    done;
    gcp_etcd_msg_pt      msg;
    gcp_etcd_end_pt      end;
    void                *arg;

    gcp_loop_timer_t    *retry;

    unsigned             stream:1;
    unsigned             in_multi:1;
    unsigned             ready:1;
    unsigned             busy:1;        /* one of its callbacks runs */
    unsigned             dead:1;        /* cancelled during it */
};


struct gcp_etcd_http_s {
    gcp_loop_t          *loop;
    CURLM               *multi;
    gcp_loop_timer_t    *timer;
    char               **endpoints;
    int                  n;
    int                  current;
    char                *cacert;
    char                *cert;
    char                *key;
    uint64_t             timeout;
    struct curl_slist   *headers;
    struct curl_slist   *leader_headers;
    gcp_etcd_sock_t     *socks;
    gcp_etcd_call_t     *calls;
    gcp_etcd_call_t     *ready;
    gcp_etcd_call_t     *ready_last;
    uint64_t             requests;
    uint64_t             failovers;
};


static void gcp_etcd_http_process(gcp_etcd_http_t *h);
static int gcp_etcd_call_send(gcp_etcd_call_t *c);
static void gcp_etcd_call_free(gcp_etcd_call_t *c);


/* ------------------------------------------------------------ loop glue */


static void
gcp_etcd_sock_handler(void *arg, int fd, unsigned events)
{
    int               running, mask;
    curl_socket_t     s;
    gcp_etcd_sock_t  *sk = arg;
    gcp_etcd_http_t  *h = sk->h;

    s = sk->fd;
    mask = 0;

    if (events & GCP_LOOP_READ) {
        mask |= CURL_CSELECT_IN;
    }

    if (events & GCP_LOOP_WRITE) {
        mask |= CURL_CSELECT_OUT;
    }

    /* sk may be freed by curl's socket callback from here on */

    (void) curl_multi_socket_action(h->multi, s, mask, &running);

    gcp_etcd_http_process(h);
}


/* Takes sk out of the loop, closes the duplicate, frees sk. */

static void
gcp_etcd_sock_free(gcp_etcd_http_t *h, gcp_etcd_sock_t *sk)
{
    if (sk->fdh) {
        h->loop->fd_del(h->loop, sk->fdh);
    }

    if (sk->dup != -1) {
        (void) close(sk->dup);
    }

    free(sk);
}


static void
gcp_etcd_sock_forget(gcp_etcd_http_t *h, gcp_etcd_sock_t *sk)
{
    gcp_etcd_sock_t  **p;

    for (p = &h->socks; *p; p = &(*p)->next) {
        if (*p == sk) {
            *p = sk->next;
            break;
        }
    }

    gcp_etcd_sock_free(h, sk);
}


static int
gcp_etcd_sock_cb(CURL *easy, curl_socket_t fd, int what, void *userp,
    void *socketp)
{
    unsigned          events;
    gcp_etcd_http_t  *h = userp;
    gcp_etcd_sock_t  *sk = socketp;

    if (what == CURL_POLL_REMOVE) {
        if (sk) {
            curl_multi_assign(h->multi, fd, NULL);
            gcp_etcd_sock_forget(h, sk);
        }

        return 0;
    }

    events = 0;

    if (what & CURL_POLL_IN) {
        events |= GCP_LOOP_READ;
    }

    if (what & CURL_POLL_OUT) {
        events |= GCP_LOOP_WRITE;
    }

    if (sk) {
        (void) h->loop->fd_mod(h->loop, sk->fdh, events);
        return 0;
    }

    sk = calloc(1, sizeof(gcp_etcd_sock_t));
    if (sk == NULL) {
        return -1;
    }

    sk->h = h;
    sk->fd = fd;
    sk->dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);

    if (sk->dup == -1) {
        free(sk);
        return -1;
    }

    sk->fdh = h->loop->fd_add(h->loop, sk->dup, events,
                              gcp_etcd_sock_handler, sk);

    if (sk->fdh == NULL) {
        gcp_etcd_sock_free(h, sk);
        return -1;
    }

    sk->next = h->socks;
    h->socks = sk;

    curl_multi_assign(h->multi, fd, sk);

    return 0;
}


/* The loop must forget a descriptor before it is closed. */

static int
gcp_etcd_close_cb(void *clientp, curl_socket_t fd)
{
    gcp_etcd_http_t  *h = clientp;
    gcp_etcd_sock_t  *sk;

    for (sk = h->socks; sk; sk = sk->next) {
        if (sk->fd == fd) {
            curl_multi_assign(h->multi, fd, NULL);
            gcp_etcd_sock_forget(h, sk);
            break;
        }
    }

    return close(fd);
}


static void
gcp_etcd_timer_handler(void *arg)
{
    int               running;
    gcp_etcd_http_t  *h = arg;

    h->timer = NULL;

    (void) curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0,
                                    &running);

    gcp_etcd_http_process(h);
}


static int
gcp_etcd_timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
    gcp_etcd_http_t  *h = userp;

    if (h->timer) {
        h->loop->timer_del(h->loop, h->timer);
        h->timer = NULL;
    }

    if (timeout_ms >= 0) {
        h->timer = h->loop->timer_add(h->loop, (uint64_t) timeout_ms,
                                      gcp_etcd_timer_handler, h);
        if (h->timer == NULL) {
            return -1;
        }
    }

    return 0;
}


static size_t
gcp_etcd_write_cb(char *p, size_t size, size_t nmemb, void *userdata)
{
    size_t            n, cap;
    char             *in;
    gcp_etcd_call_t  *c = userdata;
    gcp_etcd_http_t  *h = c->h;

    n = size * nmemb;

    if (c->in_len + n > c->in_cap) {
        cap = c->in_cap ? c->in_cap : 4096;

        while (cap < c->in_len + n) {
            cap *= 2;
        }

        in = realloc(c->in, cap);
        if (in == NULL) {
            return 0;
        }

        c->in = in;
        c->in_cap = cap;
    }

    memcpy(c->in + c->in_len, p, n);
    c->in_len += n;

    if (c->stream && !c->ready) {
        c->ready = 1;
        c->rnext = NULL;
        c->rprev = h->ready_last;

        if (h->ready_last) {
            h->ready_last->rnext = c;
        } else {
            h->ready = c;
        }

        h->ready_last = c;
    }

    return n;
}


static void
gcp_etcd_ready_unlink(gcp_etcd_call_t *c)
{
    gcp_etcd_http_t  *h = c->h;

    if (!c->ready) {
        return;
    }

    if (c->rprev) {
        c->rprev->rnext = c->rnext;
    } else {
        h->ready = c->rnext;
    }

    if (c->rnext) {
        c->rnext->rprev = c->rprev;
    } else {
        h->ready_last = c->rprev;
    }

    c->ready = 0;
    c->rnext = NULL;
    c->rprev = NULL;
}


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

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        *err = "curl_global_init() failed";
        return NULL;
    }

    h = calloc(1, sizeof(gcp_etcd_http_t));
    if (h == NULL) {
        curl_global_cleanup();
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

    h->headers = curl_slist_append(NULL, "Content-Type: application/json");
    h->headers = curl_slist_append(h->headers, "Expect:");
    h->leader_headers = curl_slist_append(NULL,
                                          "Content-Type: application/json");
    h->leader_headers = curl_slist_append(h->leader_headers, "Expect:");
    h->leader_headers = curl_slist_append(h->leader_headers,
                                          "Grpc-Metadata-hasleader: true");

    h->multi = curl_multi_init();

    if (h->headers == NULL || h->leader_headers == NULL || h->multi == NULL
        || (conf->cacert && h->cacert == NULL)
        || (conf->cert && h->cert == NULL) || (conf->key && h->key == NULL))
    {
        *err = "out of memory";
        goto failed;
    }

    curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, gcp_etcd_sock_cb);
    curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
    curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, gcp_etcd_timer_cb);
    curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);

    /*
     * HTTP/1.1 only: a request never waits for another one's connection
     * to find out whether it could multiplex.
     */
    curl_multi_setopt(h->multi, CURLMOPT_PIPELINING, (long) CURLPIPE_NOTHING);

    /* keep the connections of a busy worker (curl's default follows the */
    /* number of transfers under way, which is often one: the stream) */
    curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS,
                      (long) GCP_ETCD_MAX_CONNS);

    return h;

failed:

    gcp_etcd_http_destroy(h);

    return NULL;
}


void
gcp_etcd_http_destroy(gcp_etcd_http_t *h)
{
    int               i;
    gcp_etcd_sock_t  *sk;

    if (h == NULL) {
        return;
    }

    while (h->calls) {
        gcp_etcd_call_free(h->calls);
    }

    if (h->multi) {
        /* closes the cached connections: the close callback runs */
        curl_multi_cleanup(h->multi);
        h->multi = NULL;
    }

    if (h->timer) {
        h->loop->timer_del(h->loop, h->timer);
        h->timer = NULL;
    }

    while (h->socks) {
        sk = h->socks;
        h->socks = sk->next;
        gcp_etcd_sock_free(h, sk);
    }

    for (i = 0; i < h->n; i++) {
        free(h->endpoints[i]);
    }

    free(h->endpoints);
    free(h->cacert);
    free(h->cert);
    free(h->key);
    curl_slist_free_all(h->headers);
    curl_slist_free_all(h->leader_headers);
    free(h);

    curl_global_cleanup();
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
    c->easy = curl_easy_init();

    if (c->path == NULL || c->body == NULL || c->easy == NULL) {
        curl_easy_cleanup(c->easy);
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

    gcp_etcd_ready_unlink(c);

    if (c->in_multi) {
        curl_multi_remove_handle(h->multi, c->easy);
        c->in_multi = 0;
    }

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

    curl_easy_cleanup(c->easy);
    free(c->in);
    free(c->path);
    free(c->body);
    free(c);
}


static int
gcp_etcd_call_send(gcp_etcd_call_t *c)
{
    char              url[1024];
    uint64_t          now, left;
    gcp_etcd_http_t  *h = c->h;
    CURL             *e = c->easy;

    c->endpoint = h->current;
    c->in_len = 0;

    if (snprintf(url, sizeof(url), "%s%s", h->endpoints[c->endpoint],
                 c->path) >= (int) sizeof(url))
    {
        return GCP_EBADREQUEST;
    }

    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, c);
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, c->body);
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                     (curl_off_t) c->body_len);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER,
                     (c->flags & GCP_ETCD_LEADER) ? h->leader_headers
                                                  : h->headers);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, gcp_etcd_write_cb);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, gcp_etcd_close_cb);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, h);

    if (h->cacert) {
        curl_easy_setopt(e, CURLOPT_CAINFO, h->cacert);
    }

    if (h->cert) {
        curl_easy_setopt(e, CURLOPT_SSLCERT, h->cert);
    }

    if (h->key) {
        curl_easy_setopt(e, CURLOPT_SSLKEY, h->key);
    }

    if (c->stream) {
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 0L);
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                         (long) gcp_min(h->timeout, GCP_ETCD_CONNECT_MS));
        curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 2L);
        curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 1L);

    } else {
        now = h->loop->now_ms(h->loop);
        left = c->deadline > now ? c->deadline - now : 1;

        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long) left);
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                         (long) gcp_min(left, GCP_ETCD_CONNECT_MS));
    }

    if (curl_multi_add_handle(h->multi, e) != CURLM_OK) {
        return GCP_EINTERNAL;
    }

    c->in_multi = 1;
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
 * Hands complete lines to the stream's msg handler.  Returns GCP_OK, or
 * GCP_EGONE when the call was ended (then freed or given an end).
 */
static int
gcp_etcd_call_lines(gcp_etcd_call_t *c)
{
    int           rc;
    char         *nl;
    size_t        pos, len;
    json_t       *j, *result;
    const char   *message;

    pos = 0;

    while (pos < c->in_len) {
        nl = memchr(c->in + pos, '\n', c->in_len - pos);
        if (nl == NULL) {
            break;
        }

        len = (size_t) (nl - (c->in + pos));

        j = len ? json_loadb(c->in + pos, len, 0, NULL) : NULL;
        pos += len + 1;

        if (len == 0) {
            continue;
        }

        if (!json_is_object(j)) {
            json_decref(j);
            gcp_etcd_call_end(c, GCP_EUNAVAILABLE,
                              "etcd: malformed watch message");
            return GCP_EGONE;
        }

        result = json_object_get(j, "result");

        if (!json_is_object(result)) {
            rc = gcp_etcd_answer_error(j, &message);
            gcp_etcd_http_failed(c->h, c->endpoint);
            gcp_etcd_call_end(c, rc, message);
            json_decref(j);
            return GCP_EGONE;
        }

        c->busy = 1;
        rc = c->msg(c->arg, result);
        c->busy = 0;

        json_decref(j);

        if (rc != GCP_OK || c->dead) {
            gcp_etcd_call_free(c);
            return GCP_EGONE;
        }
    }

    if (pos) {
        memmove(c->in, c->in + pos, c->in_len - pos);
        c->in_len -= pos;
    }

    return GCP_OK;
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
gcp_etcd_call_transport(gcp_etcd_call_t *c, CURLcode code)
{
    int               rc, sent;
    char              msg[256];
    long              req_size;
    gcp_etcd_http_t  *h = c->h;

    req_size = 0;
    (void) curl_easy_getinfo(c->easy, CURLINFO_REQUEST_SIZE, &req_size);
    sent = req_size > 0;

    gcp_etcd_http_failed(h, c->endpoint);

    /* curl's own words, without the addresses of the etcd members */

    snprintf(msg, sizeof(msg), "etcd: %s", curl_easy_strerror(code));

    /*
     * Not sent: nothing happened (503, and another member may be tried).
     * Sent and timed out: 504 with the words of kube-apiserver's timeout.
     * A write sent when the connection broke may have been applied: its
     * outcome is unknown (500), which a 503 would deny.
     */

    if (!sent) {
        rc = GCP_EUNAVAILABLE;

    } else if (code == CURLE_OPERATION_TIMEDOUT) {
        rc = GCP_ETIMEOUT;

        if (!c->stream && !(c->flags & GCP_ETCD_SAFE)) {
            snprintf(msg, sizeof(msg), "%s", GCP_ETCD_TIMEOUT_MSG);
        }

    } else {
        rc = (c->stream || (c->flags & GCP_ETCD_SAFE)) ? GCP_EUNAVAILABLE
                                                       : GCP_EINDOUBT;
    }

    if (c->stream) {
        if (gcp_etcd_call_lines(c) == GCP_OK) {
            gcp_etcd_call_end(c, rc, msg);
        }

        return;
    }

    if ((!sent || (c->flags & GCP_ETCD_SAFE)) && gcp_etcd_call_again(c)) {
        return;
    }

    gcp_etcd_call_reply(c, rc, NULL, msg);
}


static void
gcp_etcd_call_answered(gcp_etcd_call_t *c)
{
    int          rc;
    long         status;
    json_t      *j;
    const char  *message;

    if (c->stream) {
        if (gcp_etcd_call_lines(c) == GCP_OK) {
            gcp_etcd_call_end(c, GCP_EUNAVAILABLE,
                              "etcd: the watch stream ended");
        }

        return;
    }

    status = 0;
    (void) curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);

    j = json_loadb(c->in ? c->in : "", c->in_len, 0, NULL);

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

    if (status == 200 && json_object_get(j, "error") == NULL) {
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


static void
gcp_etcd_http_process(gcp_etcd_http_t *h)
{
    int               left;
    CURLMsg          *m;
    CURLcode          code;
    gcp_etcd_call_t  *c;

    while ((m = curl_multi_info_read(h->multi, &left)) != NULL) {
        if (m->msg != CURLMSG_DONE) {
            continue;
        }

        c = NULL;
        (void) curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &c);

        if (c == NULL) {
            continue;
        }

        /* m is invalid once the handle is removed */

        code = m->data.result;
        curl_multi_remove_handle(h->multi, c->easy);
        c->in_multi = 0;

        if (code != CURLE_OK) {
            gcp_etcd_call_transport(c, code);
        } else {
            gcp_etcd_call_answered(c);
        }
    }

    while ((c = h->ready) != NULL) {
        gcp_etcd_ready_unlink(c);
        (void) gcp_etcd_call_lines(c);
    }
}
