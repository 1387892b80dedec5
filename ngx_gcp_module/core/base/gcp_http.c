
/*
 * The asynchronous HTTP(S) client (see gcp_http.h): libcurl's multi
 * socket API on a gcp_loop_t.  CURLMOPT_SOCKETFUNCTION and
 * CURLMOPT_TIMERFUNCTION map onto fd_add/fd_mod/fd_del and timer_add;
 * curl's own callbacks only record sockets, timers and bytes, and what
 * arrived is handed to the callers once curl_multi_socket_action()
 * returned, where starting and cancelling requests is allowed.
 *
 * A socket curl stops watching (CURL_POLL_REMOVE: its transfer ended, the
 * connection waits in curl's cache for the next) stays in the loop,
 * parked: the next transfer on the connection finds it there instead of a
 * new duplicate, registration and their undoing (four system calls per
 * webhook call otherwise).  A parked socket that becomes readable (the
 * server closed the connection) is no longer watched; curl finds such a
 * connection dead when it next looks.  A parked entry serves curl's
 * socket of the same number only if it is still the same socket (its
 * inode).
 *
 * The loop watches a duplicate of each curl socket, not the socket itself:
 * curl 7.88 closes a socket whose connect was cancelled before telling the
 * socket callback or calling the close-socket callback (curl PR 11439,
 * fixed in 8.2), and a descriptor closed first would leave the event loop
 * deregistering a closed (or already reused) number.  The duplicate keeps
 * the registration valid until it is removed, then it is closed.  A
 * close-socket callback makes the loop forget a descriptor before curl
 * closes it (nginx must not see a closed fd in epoll).
 *
 * A request goes to a connection once per attempt: the pre-request
 * callback counts them.  A second one is curl's own re-send after a
 * reused connection died (see gcp_http.h): refused unless the request is
 * replayable.  Once one attempt started, the request counts as sent,
 * whatever failed later (the re-send's connect too).
 *
 * curl's TLS leaves errors in OpenSSL's error queue (a handshake that
 * failed, a connection shut down during it); the process's other TLS
 * users (nginx's own connections) find them there and take them for
 * theirs.  The queue is cleared whenever curl returns.
 *
 * Easy handles are kept for the next requests: a new one costs curl a
 * large allocation (its receive buffer) and its set-up, on every webhook
 * call otherwise.  A kept handle keeps the options of its last request
 * too (their copies in a gcp_http_prof_t): a request whose options are
 * the same (a webhook's next call) sets only its own URL, body and
 * pointers, as curl's own reuse of a handle does; any other gets a handle
 * back to curl's defaults (curl_easy_reset) and sets everything.
 */

#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <curl/curl.h>
#include <openssl/err.h>

#include "gcp_http.h"


#define GCP_HTTP_IDLE_EASY  16
#define GCP_HTTP_KEPT_HDRS  4


typedef struct gcp_http_sock_s  gcp_http_sock_t;


/* The options an easy handle was set up with (copies), for its reuse. */
typedef struct {
    char                *method;
    char                *connect_to;
    struct curl_slist   *connect_list;  /* CURLOPT_CONNECT_TO's */
    struct curl_slist   *headers;       /* a kept list (h->hdrs) */
    gcp_str_t            pem[3];        /* ca, cert, key (data NULL: */
    char                *file[3];       /* none) */
    uint64_t             timeout_ms;
    uint64_t             connect_timeout_ms;
    unsigned             body:1;
    unsigned             tcp_keepalive:1;
    unsigned             insecure:1;
    unsigned             valid:1;
} gcp_http_prof_t;


/* A URL parsed once for a handle's requests to it (CURLOPT_CURLU). */
typedef struct {
    CURLU               *uh;
    char                *url;           /* as given */
} gcp_http_url_t;


typedef struct {
    CURL                *easy;
    gcp_http_prof_t      prof;          /* valid: easy is set up so */
    gcp_http_url_t       url;           /* the last URL it was given */
} gcp_http_idle_t;

struct gcp_http_sock_s {
    gcp_http_sock_t     *next;
    gcp_http_t          *h;
    curl_socket_t        fd;            /* curl's */
    int                  dup;           /* ours, in the loop */
    gcp_loop_fd_t       *fdh;
    ino_t                ino;           /* the socket's */
    unsigned             events;        /* watched */
    unsigned             parked:1;      /* curl does not watch it */
};


struct gcp_http_req_s {
    gcp_http_req_t      *next;          /* h->reqs */
    gcp_http_req_t      *prev;
    gcp_http_req_t      *rnext;         /* h->ready: bytes to hand out */
    gcp_http_req_t      *rprev;
    gcp_http_t          *h;
    CURL                *easy;
    struct curl_slist   *headers;       /* own, or NULL (kept ones) */
    struct curl_slist   *connect_to;
    char                *body;
    gcp_http_prof_t      prof;          /* of easy, when valid */
    gcp_http_url_t       url;           /* of easy */

    char                *in;            /* bytes received, not consumed */
    size_t               in_len;
    size_t               in_cap;
    size_t               max_body;

    gcp_http_data_pt     data;
    gcp_http_done_pt     done;
    void                *arg;

    unsigned             in_multi:1;
    unsigned             ready:1;
    unsigned             busy:1;        /* one of its callbacks runs */
    unsigned             dead:1;        /* cancelled during it */
    unsigned             too_large:1;
    unsigned             replayable:1;
    unsigned             attempts:2;    /* handed to a connection (max 2) */

    char                 err[CURL_ERROR_SIZE];
};


struct gcp_http_s {
    gcp_loop_t          *loop;
    CURLM               *multi;
    gcp_loop_timer_t    *timer;
    gcp_http_sock_t     *socks;
    gcp_http_req_t      *reqs;
    gcp_http_req_t      *ready;
    gcp_http_req_t      *ready_last;
    uint64_t             requests;
    uint64_t             connections;
    gcp_http_idle_t      idle[GCP_HTTP_IDLE_EASY];  /* easy handles */
    size_t               nidle;                     /* kept */
    struct curl_slist   *hdrs[GCP_HTTP_KEPT_HDRS];  /* header lists */
    size_t               nhdrs;                     /* kept till the end */
};


/*
 * Clears OpenSSL's error queue (see above); a look first, as clearing an
 * empty queue costs far more (every slot reset) and it is empty mostly.
 */
static inline void
gcp_http_err_clear(void)
{
    if (ERR_peek_error() != 0) {
        ERR_clear_error();
    }
}


static void gcp_http_process(gcp_http_t *h);
static void gcp_http_req_free(gcp_http_req_t *r);
static void gcp_http_prof_free(gcp_http_prof_t *p);
static void gcp_http_url_free(gcp_http_url_t *u);


/* ------------------------------------------------------------ loop glue */


static void
gcp_http_sock_handler(void *arg, int fd, unsigned events)
{
    int               running, mask;
    curl_socket_t     s;
    gcp_http_sock_t  *sk = arg;
    gcp_http_t       *h = sk->h;

    if (sk->parked) {
        /* the server spoke (or closed) on an idle connection: curl will */
        /* see, it is not ours to read */
        if (sk->events && h->loop->fd_mod(h->loop, sk->fdh, 0) == GCP_OK) {
            sk->events = 0;
        }

        return;
    }

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

    gcp_http_process(h);
}


/* Takes sk out of the loop, closes the duplicate, frees sk. */

static void
gcp_http_sock_free(gcp_http_t *h, gcp_http_sock_t *sk)
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
gcp_http_sock_forget(gcp_http_t *h, gcp_http_sock_t *sk)
{
    gcp_http_sock_t  **p;

    for (p = &h->socks; *p; p = &(*p)->next) {
        if (*p == sk) {
            *p = sk->next;
            break;
        }
    }

    gcp_http_sock_free(h, sk);
}


/* The inode of a descriptor's socket, or 0. */
static ino_t
gcp_http_sock_ino(int fd)
{
    struct stat  st;

    return fstat(fd, &st) == 0 ? st.st_ino : 0;
}


/* curl stopped watching sk's socket: kept, not watched for writing. */
static void
gcp_http_sock_park(gcp_http_t *h, gcp_http_sock_t *sk)
{
    sk->parked = 1;

    if ((sk->events & GCP_LOOP_WRITE)
        && h->loop->fd_mod(h->loop, sk->fdh, sk->events & GCP_LOOP_READ)
           == GCP_OK)
    {
        sk->events &= GCP_LOOP_READ;
    }
}


/*
 * Returns the parked entry of curl's socket fd, unparked, or NULL.  One of
 * the number that is another socket now is dropped.
 */
static gcp_http_sock_t *
gcp_http_sock_unpark(gcp_http_t *h, curl_socket_t fd)
{
    gcp_http_sock_t  *sk;

    for (sk = h->socks; sk; sk = sk->next) {
        if (sk->fd == fd && sk->parked) {
            break;
        }
    }

    if (sk == NULL) {
        return NULL;
    }

    if (sk->ino == 0 || gcp_http_sock_ino(fd) != sk->ino) {
        gcp_http_sock_forget(h, sk);
        return NULL;
    }

    sk->parked = 0;

    return sk;
}


static int
gcp_http_sock_cb(CURL *easy, curl_socket_t fd, int what, void *userp,
    void *socketp)
{
    unsigned          events;
    gcp_http_t       *h = userp;
    gcp_http_sock_t  *sk = socketp;

    if (what == CURL_POLL_REMOVE) {
        if (sk) {
            curl_multi_assign(h->multi, fd, NULL);
            gcp_http_sock_park(h, sk);
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

    if (sk == NULL) {
        sk = gcp_http_sock_unpark(h, fd);

        if (sk) {
            curl_multi_assign(h->multi, fd, sk);
        }
    }

    if (sk) {
        if (sk->events != events
            && h->loop->fd_mod(h->loop, sk->fdh, events) == GCP_OK)
        {
            sk->events = events;
        }

        return 0;
    }

    sk = calloc(1, sizeof(gcp_http_sock_t));
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

    sk->ino = gcp_http_sock_ino(sk->dup);
    sk->events = events;
    sk->fdh = h->loop->fd_add(h->loop, sk->dup, events,
                              gcp_http_sock_handler, sk);

    if (sk->fdh == NULL) {
        gcp_http_sock_free(h, sk);
        return -1;
    }

    sk->next = h->socks;
    h->socks = sk;

    curl_multi_assign(h->multi, fd, sk);

    return 0;
}


static int
gcp_http_close_cb(void *clientp, curl_socket_t fd)
{
    gcp_http_t        *h = clientp;
    gcp_http_sock_t   *sk, **p;

    /* every entry of the number (a parked one of an earlier socket too) */

    curl_multi_assign(h->multi, fd, NULL);

    for (p = &h->socks; *p; /* void */) {
        sk = *p;

        if (sk->fd == fd) {
            *p = sk->next;
            gcp_http_sock_free(h, sk);
            continue;
        }

        p = &sk->next;
    }

    return close(fd);
}


static void
gcp_http_timer_handler(void *arg)
{
    int          running;
    gcp_http_t  *h = arg;

    h->timer = NULL;

    (void) curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0,
                                    &running);

    gcp_http_process(h);
}


static int
gcp_http_timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
    gcp_http_t  *h = userp;

    if (h->timer) {
        h->loop->timer_del(h->loop, h->timer);
        h->timer = NULL;
    }

    if (timeout_ms >= 0) {
        h->timer = h->loop->timer_add(h->loop, (uint64_t) timeout_ms,
                                      gcp_http_timer_handler, h);
        if (h->timer == NULL) {
            return -1;
        }
    }

    return 0;
}


static void
gcp_http_ready_link(gcp_http_req_t *r)
{
    gcp_http_t  *h = r->h;

    if (r->ready) {
        return;
    }

    r->ready = 1;
    r->rnext = NULL;
    r->rprev = h->ready_last;

    if (h->ready_last) {
        h->ready_last->rnext = r;
    } else {
        h->ready = r;
    }

    h->ready_last = r;
}


static void
gcp_http_ready_unlink(gcp_http_req_t *r)
{
    gcp_http_t  *h = r->h;

    if (!r->ready) {
        return;
    }

    if (r->rprev) {
        r->rprev->rnext = r->rnext;
    } else {
        h->ready = r->rnext;
    }

    if (r->rnext) {
        r->rnext->rprev = r->rprev;
    } else {
        h->ready_last = r->rprev;
    }

    r->ready = 0;
    r->rnext = NULL;
    r->rprev = NULL;
}


static size_t
gcp_http_write_cb(char *p, size_t size, size_t nmemb, void *userdata)
{
    size_t           n, cap;
    char            *in;
    gcp_http_req_t  *r = userdata;

    n = size * nmemb;

    if (r->max_body && r->in_len + n > r->max_body) {
        r->too_large = 1;
        return 0;
    }

    if (r->in_len + n > r->in_cap) {
        cap = r->in_cap ? r->in_cap : 4096;

        while (cap < r->in_len + n) {
            cap *= 2;
        }

        in = realloc(r->in, cap);
        if (in == NULL) {
            return 0;
        }

        r->in = in;
        r->in_cap = cap;
    }

    memcpy(r->in + r->in_len, p, n);
    r->in_len += n;

    if (r->data) {
        gcp_http_ready_link(r);
    }

    return n;
}


/* ------------------------------------------------------------ client */


gcp_http_t *
gcp_http_create(gcp_loop_t *loop, long max_conns)
{
    gcp_http_t  *h;

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        return NULL;
    }

    h = calloc(1, sizeof(gcp_http_t));
    if (h == NULL) {
        curl_global_cleanup();
        return NULL;
    }

    h->loop = loop;
    h->multi = curl_multi_init();

    if (h->multi == NULL) {
        free(h);
        curl_global_cleanup();
        return NULL;
    }

    curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, gcp_http_sock_cb);
    curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
    curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, gcp_http_timer_cb);
    curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);

    /*
     * HTTP/1.1 only: a request never waits for another one's connection
     * to find out whether it could multiplex.
     */
    curl_multi_setopt(h->multi, CURLMOPT_PIPELINING, (long) CURLPIPE_NOTHING);

    /* keep the connections of a busy worker (curl's default follows the */
    /* number of transfers under way) */
    curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS, max_conns);

    return h;
}


void
gcp_http_destroy(gcp_http_t *h)
{
    gcp_http_sock_t  *sk;

    if (h == NULL) {
        return;
    }

    while (h->reqs) {
        gcp_http_req_free(h->reqs);
    }

    while (h->nidle) {
        h->nidle--;
        curl_easy_cleanup(h->idle[h->nidle].easy);
        gcp_http_prof_free(&h->idle[h->nidle].prof);
        gcp_http_url_free(&h->idle[h->nidle].url);
    }

    while (h->nhdrs) {
        curl_slist_free_all(h->hdrs[--h->nhdrs]);
    }

    /* closes the cached connections: the close callback runs */
    curl_multi_cleanup(h->multi);
    h->multi = NULL;
    gcp_http_err_clear();

    if (h->timer) {
        h->loop->timer_del(h->loop, h->timer);
        h->timer = NULL;
    }

    while (h->socks) {
        sk = h->socks;
        h->socks = sk->next;
        gcp_http_sock_free(h, sk);
    }

    free(h);

    curl_global_cleanup();
}


uint64_t
gcp_http_requests(const gcp_http_t *h)
{
    return h->requests;
}


uint64_t
gcp_http_connections(const gcp_http_t *h)
{
    return h->connections;
}


/* ------------------------------------------------------------ requests */


static void
gcp_http_req_free(gcp_http_req_t *r)
{
    gcp_http_t  *h = r->h;

    gcp_http_ready_unlink(r);

    if (r->in_multi) {
        curl_multi_remove_handle(h->multi, r->easy);
        r->in_multi = 0;
        gcp_http_err_clear();
    }

    if (r->prev) {
        r->prev->next = r->next;
    } else {
        h->reqs = r->next;
    }

    if (r->next) {
        r->next->prev = r->prev;
    }

    if (r->easy && h->nidle < GCP_HTTP_IDLE_EASY) {
        if (r->prof.valid) {
            /* set up for the next request of the same options */
            curl_easy_setopt(r->easy, CURLOPT_ERRORBUFFER, NULL);

        } else {
            /* back to curl's defaults, buffers and TLS sessions kept */
            curl_easy_reset(r->easy);
            gcp_http_prof_free(&r->prof);
        }

        h->idle[h->nidle].easy = r->easy;
        h->idle[h->nidle].prof = r->prof;
        h->idle[h->nidle].url = r->url;
        h->nidle++;

    } else {
        curl_easy_cleanup(r->easy);
        gcp_http_prof_free(&r->prof);
        gcp_http_url_free(&r->url);
    }

    curl_slist_free_all(r->headers);
    curl_slist_free_all(r->connect_to);
    free(r->body);
    free(r->in);
    free(r);
}


static int
gcp_http_pem_set(CURL *e, CURLoption blob, CURLoption file,
    const gcp_http_pem_t *pem)
{
    struct curl_blob  b;

    if (pem->pem.len) {
        b.data = (void *) pem->pem.data;
        b.len = pem->pem.len;
        b.flags = CURL_BLOB_COPY;

        return curl_easy_setopt(e, blob, &b) == CURLE_OK ? GCP_OK
                                                         : GCP_ENOMEM;
    }

    if (pem->file) {
        return curl_easy_setopt(e, file, pem->file) == CURLE_OK
               ? GCP_OK : GCP_ENOMEM;
    }

    return GCP_OK;
}


static int
gcp_http_prereq_cb(void *clientp, char *primary_ip, char *local_ip,
    int primary_port, int local_port)
{
    gcp_http_req_t  *r = clientp;

    if (r->attempts < 2) {
        r->attempts++;
    }

    if (r->attempts > 1 && !r->replayable) {
        return CURL_PREREQFUNC_ABORT;
    }

    return CURL_PREREQFUNC_OK;
}


/* Returns 1 when l holds exactly the lines of headers, then extra. */
static int
gcp_http_hdrs_equal(const struct curl_slist *l, const char * const *headers,
    const char *extra)
{
    size_t  i;

    for (i = 0; headers && headers[i]; i++, l = l->next) {
        if (l == NULL || strcmp(l->data, headers[i]) != 0) {
            return 0;
        }
    }

    if (extra) {
        if (l == NULL || strcmp(l->data, extra) != 0) {
            return 0;
        }

        l = l->next;
    }

    return l == NULL;
}


/*
 * The request's header list: one the client keeps when it holds the same
 * lines (callers send the same few sets again and again: a webhook's
 * calls), else a new one, kept while there is room (until the client is
 * destroyed), or the request's own (r->headers).  Returns the list, or
 * NULL: no headers, or out of memory when *failed is set.
 */
static struct curl_slist *
gcp_http_hdrs(gcp_http_t *h, gcp_http_req_t *r, const gcp_http_opts_t *o,
    int *failed)
{
    size_t              i;
    const char         *extra;
    struct curl_slist  *l, *n;

    /* no "Expect: 100-continue" round trip before larger bodies */
    extra = o->body.data ? "Expect:" : NULL;

    *failed = 0;

    if ((o->headers == NULL || o->headers[0] == NULL) && extra == NULL) {
        return NULL;
    }

    for (i = 0; i < h->nhdrs; i++) {
        if (gcp_http_hdrs_equal(h->hdrs[i], o->headers, extra)) {
            return h->hdrs[i];
        }
    }

    l = NULL;

    for (i = 0; o->headers && o->headers[i]; i++) {
        n = curl_slist_append(l, o->headers[i]);
        if (n == NULL) {
            curl_slist_free_all(l);
            *failed = 1;
            return NULL;
        }

        l = n;
    }

    if (extra) {
        n = curl_slist_append(l, extra);
        if (n == NULL) {
            curl_slist_free_all(l);
            *failed = 1;
            return NULL;
        }

        l = n;
    }

    if (h->nhdrs < GCP_HTTP_KEPT_HDRS) {
        h->hdrs[h->nhdrs++] = l;

    } else {
        r->headers = l;
    }

    return l;
}


static void
gcp_http_url_free(gcp_http_url_t *u)
{
    curl_url_cleanup(u->uh);
    free(u->url);
    u->uh = NULL;
    u->url = NULL;
}


/*
 * Gives r's handle the URL: parsed once for the handle (a CURLU, which
 * curl copies for each transfer instead of parsing the URL again: the
 * flags are curl's own for CURLOPT_URL), or as CURLOPT_URL when curl's
 * parser refuses it, so that curl reports it as it would.  Returns
 * GCP_OK or GCP_ENOMEM.
 */
static int
gcp_http_url_set(gcp_http_req_t *r, const char *url)
{
    CURLU           *uh;
    gcp_http_url_t  *u = &r->url;

    if (u->url && strcmp(u->url, url) == 0) {
        curl_easy_setopt(r->easy, CURLOPT_CURLU, u->uh);
        return GCP_OK;
    }

    curl_easy_setopt(r->easy, CURLOPT_CURLU, NULL);
    gcp_http_url_free(u);

    uh = curl_url();

    if (uh && curl_url_set(uh, CURLUPART_URL, url,
                           CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME)
              == CURLUE_OK)
    {
        u->url = strdup(url);

        if (u->url) {
            u->uh = uh;
            curl_easy_setopt(r->easy, CURLOPT_CURLU, uh);
            return GCP_OK;
        }
    }

    curl_url_cleanup(uh);

    return curl_easy_setopt(r->easy, CURLOPT_URL, url) == CURLE_OK
           ? GCP_OK : GCP_ENOMEM;
}


/* The options of the request itself: on every handle. */
static int
gcp_http_req_own(gcp_http_req_t *r, const gcp_http_opts_t *o)
{
    CURL  *e = r->easy;

    if (o->body.data) {
        r->body = malloc(o->body.len + 1);
        if (r->body == NULL) {
            return GCP_ENOMEM;
        }

        memcpy(r->body, o->body.data, o->body.len);
        r->body[o->body.len] = '\0';

        curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                         (curl_off_t) o->body.len);
    }

    if (gcp_http_url_set(r, o->url) != GCP_OK) {
        return GCP_ENOMEM;
    }

    curl_easy_setopt(e, CURLOPT_PRIVATE, r);
    curl_easy_setopt(e, CURLOPT_PREREQDATA, r);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->err);

    return GCP_OK;
}


/* Every other option, on a handle at curl's defaults. */
static int
gcp_http_req_setup(gcp_http_req_t *r, const gcp_http_opts_t *o,
    struct curl_slist *headers)
{
    CURL  *e = r->easy;

    if (o->method) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, o->method);
    }

    if (o->connect_to) {
        r->connect_to = curl_slist_append(NULL, o->connect_to);
        if (r->connect_to == NULL) {
            return GCP_ENOMEM;
        }

        curl_easy_setopt(e, CURLOPT_CONNECT_TO, r->connect_to);
    }

    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, gcp_http_prereq_cb);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, gcp_http_write_cb);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long) CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, gcp_http_close_cb);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, r->h);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long) o->timeout_ms);

    if (o->connect_timeout_ms || o->timeout_ms) {
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                         (long) (o->connect_timeout_ms
                                 ? o->connect_timeout_ms : o->timeout_ms));
    }

    if (o->tcp_keepalive) {
        curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 2L);
        curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 1L);
    }

    if (o->insecure) {
        /* a check that needs no trust (kube-aggregator's availability) */
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }

    if (o->ca.pem.len || o->ca.file) {
        /* only this bundle: neither the default file nor directory */
        curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
        curl_easy_setopt(e, CURLOPT_CAINFO, NULL);
    }

    if (gcp_http_pem_set(e, CURLOPT_CAINFO_BLOB, CURLOPT_CAINFO, &o->ca)
        != GCP_OK
        || gcp_http_pem_set(e, CURLOPT_SSLCERT_BLOB, CURLOPT_SSLCERT,
                            &o->cert) != GCP_OK
        || gcp_http_pem_set(e, CURLOPT_SSLKEY_BLOB, CURLOPT_SSLKEY,
                            &o->key) != GCP_OK)
    {
        return GCP_ENOMEM;
    }

    if (o->cert.pem.len || o->cert.file) {
        curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
        curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
    }

    return GCP_OK;
}


static void
gcp_http_prof_free(gcp_http_prof_t *p)
{
    size_t  i;

    free(p->method);
    free(p->connect_to);
    curl_slist_free_all(p->connect_list);

    for (i = 0; i < 3; i++) {
        free((char *) p->pem[i].data);
        free(p->file[i]);
    }

    memset(p, 0, sizeof(gcp_http_prof_t));
}


static int
gcp_http_str_eq(const char *kept, const char *s)
{
    return kept == NULL ? s == NULL : s != NULL && strcmp(kept, s) == 0;
}


static int
gcp_http_pem_eq(const gcp_http_prof_t *p, size_t i, const gcp_http_pem_t *pem)
{
    return p->pem[i].len == pem->pem.len
           && (pem->pem.len == 0
               || memcmp(p->pem[i].data, pem->pem.data, pem->pem.len) == 0)
           && gcp_http_str_eq(p->file[i], pem->file);
}


/* Returns 1 when a handle set up as p serves o (with headers) as it is. */
static int
gcp_http_prof_match(const gcp_http_prof_t *p, const gcp_http_opts_t *o,
    const struct curl_slist *headers)
{
    return p->valid
           && p->headers == headers
           && p->body == (o->body.data != NULL)
           && p->timeout_ms == o->timeout_ms
           && p->connect_timeout_ms == o->connect_timeout_ms
           && p->tcp_keepalive == o->tcp_keepalive
           && p->insecure == o->insecure
           && gcp_http_str_eq(p->method, o->method)
           && gcp_http_str_eq(p->connect_to, o->connect_to)
           && gcp_http_pem_eq(p, 0, &o->ca)
           && gcp_http_pem_eq(p, 1, &o->cert)
           && gcp_http_pem_eq(p, 2, &o->key);
}


static char *
gcp_http_strdup(const char *s, int *failed)
{
    char  *d;

    if (s == NULL) {
        return NULL;
    }

    d = strdup(s);
    *failed |= d == NULL;

    return d;
}


/*
 * Records in r->prof the options r's handle was set up with, when they
 * can serve a later request: its header list is one the client keeps.
 * Out of memory, the handle is simply not kept so.
 */
static void
gcp_http_prof_keep(gcp_http_req_t *r, const gcp_http_opts_t *o,
    struct curl_slist *headers)
{
    int                    failed;
    size_t                 i;
    char                  *d;
    gcp_http_prof_t       *p = &r->prof;
    const gcp_http_pem_t  *pem[3];

    if (r->headers) {
        return;                         /* its own list: freed with it */
    }

    pem[0] = &o->ca;
    pem[1] = &o->cert;
    pem[2] = &o->key;

    failed = 0;

    p->method = gcp_http_strdup(o->method, &failed);
    p->connect_to = gcp_http_strdup(o->connect_to, &failed);

    for (i = 0; i < 3; i++) {
        p->file[i] = gcp_http_strdup(pem[i]->file, &failed);

        if (pem[i]->pem.len) {
            d = malloc(pem[i]->pem.len);
            failed |= d == NULL;

            if (d) {
                memcpy(d, pem[i]->pem.data, pem[i]->pem.len);
                p->pem[i].data = d;
                p->pem[i].len = pem[i]->pem.len;
            }
        }
    }

    if (failed) {
        gcp_http_prof_free(p);
        return;
    }

    p->connect_list = r->connect_to;    /* the profile's from now on */
    r->connect_to = NULL;
    p->headers = headers;
    p->timeout_ms = o->timeout_ms;
    p->connect_timeout_ms = o->connect_timeout_ms;
    p->body = o->body.data != NULL;
    p->tcp_keepalive = o->tcp_keepalive;
    p->insecure = o->insecure;
    p->valid = 1;
}


/*
 * Gives r a handle: a kept one set up for o's options (r->prof valid),
 * else a kept one back at curl's defaults, else a new one.
 */
static void
gcp_http_easy_get(gcp_http_t *h, gcp_http_req_t *r, const gcp_http_opts_t *o,
    const struct curl_slist *headers)
{
    size_t            i;
    gcp_http_idle_t  *k;

    size_t            any;

    /* set up for these options, for this URL if there is one */

    any = h->nidle;

    for (i = h->nidle; i > 0; i--) {
        k = &h->idle[i - 1];

        if (!gcp_http_prof_match(&k->prof, o, headers)) {
            continue;
        }

        any = i - 1;

        if (k->url.url && strcmp(k->url.url, o->url) == 0) {
            break;
        }
    }

    if (any < h->nidle) {
        k = &h->idle[any];
        r->easy = k->easy;
        r->prof = k->prof;
        r->url = k->url;
        *k = h->idle[--h->nidle];
        return;
    }

    if (h->nidle == 0) {
        r->easy = curl_easy_init();
        return;
    }

    k = &h->idle[--h->nidle];
    r->easy = k->easy;
    r->url = k->url;

    if (k->prof.valid) {
        curl_easy_reset(r->easy);
        gcp_http_prof_free(&k->prof);
    }
}


gcp_http_req_t *
gcp_http_send(gcp_http_t *h, const gcp_http_opts_t *o, gcp_http_data_pt data,
    gcp_http_done_pt done, void *arg)
{
    int                  failed;
    gcp_http_req_t      *r;
    struct curl_slist   *headers;

    r = calloc(1, sizeof(gcp_http_req_t));
    if (r == NULL) {
        return NULL;
    }

    r->h = h;
    r->data = data;
    r->done = done;
    r->arg = arg;
    r->max_body = o->max_body;
    r->replayable = o->replayable || (o->body.data == NULL
                                      && (o->method == NULL
                                          || strcmp(o->method, "GET") == 0));

    r->next = h->reqs;
    if (h->reqs) {
        h->reqs->prev = r;
    }
    h->reqs = r;

    headers = gcp_http_hdrs(h, r, o, &failed);

    if (!failed) {
        gcp_http_easy_get(h, r, o, headers);
    }

    if (failed || r->easy == NULL) {
        gcp_http_req_free(r);
        return NULL;
    }

    if (!r->prof.valid) {
        if (gcp_http_req_setup(r, o, headers) != GCP_OK) {
            gcp_http_req_free(r);
            return NULL;
        }

        gcp_http_prof_keep(r, o, headers);
    }

    if (gcp_http_req_own(r, o) != GCP_OK
        || curl_multi_add_handle(h->multi, r->easy) != CURLM_OK)
    {
        gcp_http_req_free(r);
        return NULL;
    }

    r->in_multi = 1;
    h->requests++;

    gcp_http_err_clear();

    return r;
}


void
gcp_http_cancel(gcp_http_req_t *r)
{
    if (r == NULL) {
        return;
    }

    if (r->busy) {
        r->dead = 1;
        return;
    }

    gcp_http_req_free(r);
}


/* ------------------------------------------------------------ answers */


/*
 * Hands the bytes held to the data callback.  Returns GCP_OK, or
 * GCP_EGONE when the request was cancelled meanwhile (it is freed).
 */
static int
gcp_http_deliver(gcp_http_req_t *r)
{
    size_t  used;

    gcp_http_ready_unlink(r);

    if (r->in_len == 0) {
        return GCP_OK;
    }

    r->busy = 1;
    used = r->data(r->arg, r->in, r->in_len);
    r->busy = 0;

    if (r->dead) {
        gcp_http_req_free(r);
        return GCP_EGONE;
    }

    used = gcp_min(used, r->in_len);

    if (used) {
        memmove(r->in, r->in + used, r->in_len - used);
        r->in_len -= used;
    }

    return GCP_OK;
}


static gcp_http_error_t
gcp_http_error_kind(gcp_http_req_t *r, CURLcode code)
{
    switch (code) {

    case CURLE_OK:
        return GCP_HTTP_OK;

    case CURLE_COULDNT_CONNECT:
        return GCP_HTTP_ERR_CONNECT;

    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return GCP_HTTP_ERR_RESOLVE;

    case CURLE_OPERATION_TIMEDOUT:
        return GCP_HTTP_ERR_TIMEOUT;

    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE:
        return GCP_HTTP_ERR_TLS;

    case CURLE_WRITE_ERROR:
        return r->too_large ? GCP_HTTP_ERR_TOO_LARGE
                            : GCP_HTTP_ERR_TRANSPORT;

    default:
        return GCP_HTTP_ERR_TRANSPORT;
    }
}


static void
gcp_http_finish(gcp_http_req_t *r, CURLcode code)
{
    long                conns, err;
    char               *ct;
    gcp_http_result_t   res;

    memset(&res, 0, sizeof(res));

    conns = 0;
    err = 0;
    ct = NULL;

    (void) curl_easy_getinfo(r->easy, CURLINFO_NUM_CONNECTS, &conns);
    (void) curl_easy_getinfo(r->easy, CURLINFO_OS_ERRNO, &err);
    (void) curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &res.status);
    (void) curl_easy_getinfo(r->easy, CURLINFO_CONTENT_TYPE, &ct);

    r->h->connections += (uint64_t) conns;

    res.error = gcp_http_error_kind(r, code);
    res.sent = r->attempts > 0;
    res.os_errno = (int) err;
    res.content_type = ct;
    res.message = code == CURLE_OK ? NULL
                  : res.error == GCP_HTTP_ERR_TOO_LARGE
                  ? "the answer is too large" : curl_easy_strerror(code);
    res.detail = r->err[0] ? r->err : res.message;

    if (res.sent && code != CURLE_OK
        && (r->attempts > 1 || res.error == GCP_HTTP_ERR_CONNECT
            || res.error == GCP_HTTP_ERR_RESOLVE
            || res.error == GCP_HTTP_ERR_TLS))
    {
        /* sent on a reused connection that died before an answer; what */
        /* failed afterwards (a re-send refused, or its connect) says */
        /* nothing about the request */
        res.error = GCP_HTTP_ERR_TRANSPORT;
        res.os_errno = 0;
        res.message = "the connection closed before an answer";
        res.detail = res.message;
    }

    if (r->data && gcp_http_deliver(r) != GCP_OK) {
        return;
    }

    res.body.data = r->in ? r->in : "";
    res.body.len = r->in_len;

    r->busy = 1;
    r->done(r->arg, &res);
    r->busy = 0;

    gcp_http_req_free(r);
}


static void
gcp_http_process(gcp_http_t *h)
{
    int              left;
    CURLMsg         *m;
    CURLcode         code;
    gcp_http_req_t  *r;

    gcp_http_err_clear();

    while ((m = curl_multi_info_read(h->multi, &left)) != NULL) {
        if (m->msg != CURLMSG_DONE) {
            continue;
        }

        r = NULL;
        (void) curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &r);

        if (r == NULL) {
            continue;
        }

        /* m is invalid once the handle is removed */

        code = m->data.result;
        curl_multi_remove_handle(h->multi, r->easy);
        r->in_multi = 0;

        gcp_http_err_clear();

        gcp_http_finish(r, code);
    }

    while ((r = h->ready) != NULL) {
        (void) gcp_http_deliver(r);
    }
}
