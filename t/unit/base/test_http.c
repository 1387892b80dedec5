
/*
 * Unit tests: the asynchronous HTTP client (core/base/gcp_http.c) on the
 * poll loop, against a small HTTP/1.1 server of the test's own (threads,
 * one per connection) and, for TLS, openssl s_server with certificates
 * the test makes: answers and bodies, keep-alive connection reuse,
 * connect-to, timeouts, refused connections, streams, cancels, a body
 * limit, CA bundles given in memory, a client certificate, a server
 * name checked through connect-to, and curl's re-send after a reused
 * connection died: allowed for a GET, refused for a POST (sent once).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "gcp_core.h"
#include "gcp_http.h"
#include "gcp_loop.h"


/* ------------------------------------------------------------ server */


static int               srv_fd = -1;
static int               srv_port;
static int               srv_accepted;
static int               srv_drops;     /* /drop requests read */
static pthread_mutex_t   srv_lock = PTHREAD_MUTEX_INITIALIZER;


static void
srv_write(int fd, const char *s, size_t n)
{
    ssize_t  w;

    while (n) {
        w = write(fd, s, n);
        if (w <= 0) {
            return;
        }

        s += w;
        n -= (size_t) w;
    }
}


static void
srv_puts(int fd, const char *s)
{
    srv_write(fd, s, strlen(s));
}


static void *
srv_conn(void *arg)
{
    int       fd = (int) (intptr_t) arg;
    char      req[8192], *end, *cl, path[256];
    size_t    have;
    ssize_t   n;
    size_t    need, body;
    char      out[256], *big;

    have = 0;

    for ( ;; ) {
        /* one request: headers, then Content-Length bytes */

        for ( ;; ) {
            req[have] = '\0';
            end = strstr(req, "\r\n\r\n");
            if (end) {
                break;
            }

            n = read(fd, req + have, sizeof(req) - 1 - have);
            if (n <= 0) {
                close(fd);
                return NULL;
            }

            have += (size_t) n;
        }

        cl = strstr(req, "Content-Length: ");
        body = cl && cl < end ? (size_t) atol(cl + 16) : 0;
        need = (size_t) (end + 4 - req) + body;

        while (have < need) {
            n = read(fd, req + have, sizeof(req) - 1 - have);
            if (n <= 0) {
                close(fd);
                return NULL;
            }

            have += (size_t) n;
        }

        if (sscanf(req, "%*s %255s", path) != 1) {
            close(fd);
            return NULL;
        }

        if (strcmp(path, "/hello") == 0 || strcmp(path, "/echo") == 0) {
            snprintf(out, sizeof(out), "HTTP/1.1 201 Created\r\n"
                     "Content-Type: text/plain\r\nContent-Length: %zu\r\n"
                     "\r\n", strcmp(path, "/hello") == 0 ? 5 : body);
            srv_write(fd, out, strlen(out));
            srv_write(fd, strcmp(path, "/hello") == 0 ? "hello" : end + 4,
                      strcmp(path, "/hello") == 0 ? 5 : body);

        } else if (strcmp(path, "/stream") == 0) {
            srv_puts(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                     "\r\n6\r\nline1\n\r\n");
            usleep(100000);
            srv_puts(fd, "c\r\nline2\nline3\n\r\n");
            usleep(100000);
            srv_puts(fd, "5\r\nta");
            usleep(100000);
            srv_puts(fd, "il\n\r\n0\r\n\r\n");

        } else if (strcmp(path, "/big") == 0) {
            big = malloc(65536);
            memset(big, 'x', 65536);
            srv_puts(fd, "HTTP/1.1 200 OK\r\nContent-Length: 65536\r\n\r\n");
            srv_write(fd, big, 65536);
            free(big);

        } else if (strcmp(path, "/drop") == 0) {
            /* read, then the connection dies without a byte of answer */
            pthread_mutex_lock(&srv_lock);
            srv_drops++;
            pthread_mutex_unlock(&srv_lock);

            close(fd);
            return NULL;

        } else {
            /* /silent: never answers; the client gives up */
            while (read(fd, req, sizeof(req)) > 0) {
                /* void */
            }

            close(fd);
            return NULL;
        }

        memmove(req, req + need, have - need);
        have -= need;
    }
}


static void *
srv_main(void *arg)
{
    int        fd;
    pthread_t  t;

    for ( ;; ) {
        fd = accept(srv_fd, NULL, NULL);
        if (fd == -1) {
            return NULL;
        }

        pthread_mutex_lock(&srv_lock);
        srv_accepted++;
        pthread_mutex_unlock(&srv_lock);

        pthread_create(&t, NULL, srv_conn, (void *) (intptr_t) fd);
        pthread_detach(t);
    }
}


static int
free_port(void)
{
    int                 fd, port;
    socklen_t           len;
    struct sockaddr_in  sin;

    fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, (struct sockaddr *) &sin, sizeof(sin));
    len = sizeof(sin);
    getsockname(fd, (struct sockaddr *) &sin, &len);
    port = ntohs(sin.sin_port);
    close(fd);

    return port;
}


static int
setup_server(void **state)
{
    int                 one = 1;
    pthread_t           t;
    socklen_t           len;
    struct sockaddr_in  sin;

    signal(SIGPIPE, SIG_IGN);

    srv_fd = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(srv_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));

    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    if (bind(srv_fd, (struct sockaddr *) &sin, sizeof(sin)) != 0
        || listen(srv_fd, 64) != 0)
    {
        return -1;
    }

    len = sizeof(sin);
    getsockname(srv_fd, (struct sockaddr *) &sin, &len);
    srv_port = ntohs(sin.sin_port);

    pthread_create(&t, NULL, srv_main, NULL);
    pthread_detach(t);

    return 0;
}


/* ------------------------------------------------------------ client */


typedef struct {
    int                 done;
    gcp_http_error_t    error;
    long                status;
    char                body[70000];
    size_t              len;
    char                ctype[64];
    int                 os_errno;
    int                 sent;
    int                 chunks;         /* data callbacks */
    char                lines[256];
} result_t;


static void
on_done(void *arg, const gcp_http_result_t *res)
{
    result_t  *r = arg;

    r->done++;
    r->error = res->error;
    r->status = res->status;
    r->os_errno = res->os_errno;
    r->sent = res->sent;
    r->len = gcp_min(res->body.len, sizeof(r->body) - 1);
    memcpy(r->body, res->body.data, r->len);
    r->body[r->len] = '\0';
    snprintf(r->ctype, sizeof(r->ctype), "%s",
             res->content_type ? res->content_type : "");
}


/* Takes complete lines only. */
static size_t
on_data(void *arg, const char *p, size_t n)
{
    size_t     used;
    result_t  *r = arg;
    char      *nl;

    r->chunks++;
    used = 0;

    while ((nl = memchr(p + used, '\n', n - used)) != NULL) {
        strncat(r->lines, p + used, (size_t) (nl - (p + used)) + 1);
        used = (size_t) (nl - p) + 1;
    }

    return used;
}


static void
run(gcp_loop_t *loop, result_t *r, int ms)
{
    int  i;

    for (i = 0; i < ms / 10 && !r->done; i++) {
        gcp_loop_poll_run(loop, 10);
    }
}


static gcp_http_req_t *
send_to(gcp_http_t *h, const char *path, gcp_http_data_pt data,
    result_t *r, uint64_t timeout_ms)
{
    char             url[128];
    gcp_http_opts_t  o;

    snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", srv_port, path);

    memset(&o, 0, sizeof(o));
    o.url = url;
    o.timeout_ms = timeout_ms;

    return gcp_http_send(h, &o, data, on_done, r);
}


static void
test_answer_and_keep_alive(void **state)
{
    char              url[128];
    int               accepted;
    gcp_loop_t       *loop;
    gcp_http_t       *h;
    gcp_http_opts_t   o;
    result_t          r;

    static const char * const  headers[] = { "X-Test: 1", NULL };

    loop = gcp_loop_poll_create();
    h = gcp_http_create(loop, 8);
    assert_non_null(h);

    pthread_mutex_lock(&srv_lock);
    accepted = srv_accepted;
    pthread_mutex_unlock(&srv_lock);

    memset(&r, 0, sizeof(r));
    assert_non_null(send_to(h, "/hello", NULL, &r, 5000));
    assert_int_equal(r.done, 0);        /* never from inside send */
    run(loop, &r, 5000);
    assert_int_equal(r.done, 1);
    assert_int_equal(r.error, GCP_HTTP_OK);
    assert_int_equal(r.status, 201);
    assert_string_equal(r.body, "hello");
    assert_string_equal(r.ctype, "text/plain");

    /* a POST with a body, on the same connection */

    snprintf(url, sizeof(url), "http://127.0.0.1:%d/echo", srv_port);
    memset(&o, 0, sizeof(o));
    o.method = "POST";
    o.url = url;
    o.headers = headers;
    o.body.data = "{\"a\":1}";
    o.body.len = 7;
    o.timeout_ms = 5000;

    memset(&r, 0, sizeof(r));
    assert_non_null(gcp_http_send(h, &o, NULL, on_done, &r));
    run(loop, &r, 5000);
    assert_int_equal(r.status, 201);
    assert_string_equal(r.body, "{\"a\":1}");

    /* a GET on the POST's easy handle, kept: nothing of the POST left */

    memset(&r, 0, sizeof(r));
    assert_non_null(send_to(h, "/echo", NULL, &r, 5000));
    run(loop, &r, 5000);
    assert_int_equal(r.status, 201);
    assert_string_equal(r.body, "");

    assert_int_equal(gcp_http_requests(h), 3);
    assert_int_equal(gcp_http_connections(h), 1);

    pthread_mutex_lock(&srv_lock);
    assert_int_equal(srv_accepted, accepted + 1);
    pthread_mutex_unlock(&srv_lock);

    /* connect-to: another host name, the server's address */

    memset(&o, 0, sizeof(o));
    o.url = "http://svc.example.test:80/hello";
    snprintf(url, sizeof(url), "svc.example.test:80:127.0.0.1:%d",
             srv_port);
    o.connect_to = url;
    o.timeout_ms = 5000;

    memset(&r, 0, sizeof(r));
    assert_non_null(gcp_http_send(h, &o, NULL, on_done, &r));
    run(loop, &r, 5000);
    assert_int_equal(r.error, GCP_HTTP_OK);
    assert_string_equal(r.body, "hello");

    gcp_http_destroy(h);
    gcp_loop_poll_destroy(loop);
}


static int
drops(void)
{
    int  n;

    pthread_mutex_lock(&srv_lock);
    n = srv_drops;
    pthread_mutex_unlock(&srv_lock);

    return n;
}


/*
 * A request on a kept-alive connection that dies before any answer: curl
 * sends it again on a fresh connection (which dies too).  A GET may be;
 * a POST is sent once and ends sent, its outcome unknown.
 */
static void
test_sent_once_on_reused_connection(void **state)
{
    int               i, before;
    char              url[128];
    gcp_loop_t       *loop;
    gcp_http_t       *h;
    gcp_http_opts_t   o;
    result_t          r;

    loop = gcp_loop_poll_create();
    h = gcp_http_create(loop, 8);
    assert_non_null(h);

    snprintf(url, sizeof(url), "http://127.0.0.1:%d/drop", srv_port);

    for (i = 0; i < 3; i++) {
        /* a kept-alive connection to reuse */
        memset(&r, 0, sizeof(r));
        assert_non_null(send_to(h, "/hello", NULL, &r, 5000));
        run(loop, &r, 5000);
        assert_int_equal(r.status, 201);

        memset(&o, 0, sizeof(o));
        o.url = url;
        o.timeout_ms = 5000;

        if (i > 0) {
            o.method = "POST";
            o.body.data = "{\"a\":1}";
            o.body.len = 7;
            o.replayable = (i == 2);
        }

        before = drops();

        memset(&r, 0, sizeof(r));
        assert_non_null(gcp_http_send(h, &o, NULL, on_done, &r));
        run(loop, &r, 5000);
        assert_int_equal(r.done, 1);
        assert_int_equal(r.error, GCP_HTTP_ERR_TRANSPORT);
        assert_int_equal(r.sent, 1);

        /* GET and the replayable POST twice, the other POST once */
        assert_int_equal(drops() - before, i == 1 ? 1 : 2);
    }

    gcp_http_destroy(h);
    gcp_loop_poll_destroy(loop);
}


static void
test_failures(void **state)
{
    char              url[128];
    gcp_loop_t       *loop;
    gcp_http_t       *h;
    gcp_http_opts_t   o;
    result_t          r;

    loop = gcp_loop_poll_create();
    h = gcp_http_create(loop, 8);

    /* no answer within the time */

    memset(&r, 0, sizeof(r));
    assert_non_null(send_to(h, "/silent", NULL, &r, 200));
    run(loop, &r, 5000);
    assert_int_equal(r.done, 1);
    assert_int_equal(r.error, GCP_HTTP_ERR_TIMEOUT);

    /* nothing listens */

    snprintf(url, sizeof(url), "http://127.0.0.1:%d/x", free_port());
    memset(&o, 0, sizeof(o));
    o.url = url;
    o.timeout_ms = 5000;

    memset(&r, 0, sizeof(r));
    assert_non_null(gcp_http_send(h, &o, NULL, on_done, &r));
    run(loop, &r, 5000);
    assert_int_equal(r.error, GCP_HTTP_ERR_CONNECT);
    assert_int_equal(r.os_errno, ECONNREFUSED);

    /* more than the body limit */

    memset(&o, 0, sizeof(o));
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/big", srv_port);
    o.url = url;
    o.timeout_ms = 5000;
    o.max_body = 1000;

    memset(&r, 0, sizeof(r));
    assert_non_null(gcp_http_send(h, &o, NULL, on_done, &r));
    run(loop, &r, 5000);
    assert_int_equal(r.error, GCP_HTTP_ERR_TOO_LARGE);

    o.max_body = 0;
    memset(&r, 0, sizeof(r));
    assert_non_null(gcp_http_send(h, &o, NULL, on_done, &r));
    run(loop, &r, 5000);
    assert_int_equal(r.error, GCP_HTTP_OK);
    assert_int_equal(r.len, 65536);

    /* a cancelled request calls nothing back */

    memset(&r, 0, sizeof(r));
    gcp_http_cancel(send_to(h, "/hello", NULL, &r, 5000));
    run(loop, &r, 300);
    assert_int_equal(r.done, 0);

    gcp_http_destroy(h);
    gcp_loop_poll_destroy(loop);
}


static void
test_stream(void **state)
{
    gcp_loop_t  *loop;
    gcp_http_t  *h;
    result_t     r;

    loop = gcp_loop_poll_create();
    h = gcp_http_create(loop, 8);

    memset(&r, 0, sizeof(r));
    assert_non_null(send_to(h, "/stream", on_data, &r, 0));
    run(loop, &r, 5000);

    assert_int_equal(r.done, 1);
    assert_int_equal(r.error, GCP_HTTP_OK);
    assert_string_equal(r.lines, "line1\nline2\nline3\ntail\n");
    assert_true(r.chunks >= 4);        /* as the bytes came: "ta" waits */
    assert_int_equal(r.len, 0);        /* everything consumed */

    gcp_http_destroy(h);
    gcp_loop_poll_destroy(loop);
}


/* ------------------------------------------------------------ TLS */


static char  tls_dir[] = "/tmp/gcp-test-http-XXXXXX";


static void
sh(const char *fmt, ...)
{
    char     cmd[2048];
    va_list  ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);

    assert_int_equal(system(cmd), 0);
}


static gcp_str_t
slurp(const char *name)
{
    FILE       *f;
    char        path[256];
    static char buf[4][8192];
    static int  next;
    gcp_str_t   s;

    snprintf(path, sizeof(path), "%s/%s", tls_dir, name);
    f = fopen(path, "r");
    assert_non_null(f);

    s.data = buf[next];
    s.len = fread(buf[next], 1, sizeof(buf[0]) - 1, f);
    next = (next + 1) % 4;
    fclose(f);

    return s;
}


static void
test_tls(void **state)
{
    int              i, port, rc;
    char             url[128], to[128];
    pid_t            pid;
    gcp_loop_t      *loop;
    gcp_http_t      *h;
    gcp_http_opts_t  o;
    result_t         r;

    assert_non_null(mkdtemp(tls_dir));

    /* a CA, a certificate for svc.ns.svc signed by it, another CA */

    sh("cd %s && openssl req -x509 -newkey ec -pkeyopt "
       "ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt "
       "-subj /CN=ca -days 2 >/dev/null 2>&1 && openssl req -x509 -newkey "
       "ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout other.key -out "
       "other.crt -subj /CN=other -days 2 >/dev/null 2>&1 && "
       "printf 'subjectAltName=DNS:svc.ns.svc\\n' > ext && openssl req "
       "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout s.key "
       "-out s.csr -subj /CN=s >/dev/null 2>&1 && openssl x509 -req -in "
       "s.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out s.crt -days 2 "
       "-extfile ext >/dev/null 2>&1", tls_dir);

    port = free_port();

    pid = fork();
    if (pid == 0) {
        snprintf(url, sizeof(url), "%d", port);
        assert_int_equal(chdir(tls_dir), 0);
        freopen("/dev/null", "w", stdout);
        freopen("/dev/null", "w", stderr);
        execlp("openssl", "openssl", "s_server", "-accept", url, "-cert",
               "s.crt", "-key", "s.key", "-www", "-quiet", (char *) NULL);
        _exit(127);
    }

    loop = gcp_loop_poll_create();
    h = gcp_http_create(loop, 8);

    snprintf(url, sizeof(url), "https://svc.ns.svc/");
    snprintf(to, sizeof(to), "svc.ns.svc:443:127.0.0.1:%d", port);

    memset(&o, 0, sizeof(o));
    o.url = url;
    o.connect_to = to;
    o.timeout_ms = 3000;
    o.ca.pem = slurp("ca.crt");

    /* the server may not listen yet */

    for (i = 0; i < 50; i++) {
        memset(&r, 0, sizeof(r));
        assert_non_null(gcp_http_send(h, &o, NULL, on_done, &r));
        run(loop, &r, 5000);

        if (r.error != GCP_HTTP_ERR_CONNECT) {
            break;
        }

        usleep(100000);
    }

    /* verified with the CA given in memory, for the connect-to name */

    assert_int_equal(r.error, GCP_HTTP_OK);
    assert_int_equal(r.status, 200);

    /* again, the same options (another copy of the CA): the handle kept */
    /* set up serves it */

    o.ca.pem = slurp("ca.crt");
    memset(&r, 0, sizeof(r));
    assert_non_null(gcp_http_send(h, &o, NULL, on_done, &r));
    run(loop, &r, 5000);
    assert_int_equal(r.error, GCP_HTTP_OK);
    assert_int_equal(r.status, 200);

    /* another CA: refused, though a handle set up for the first is kept */

    o.ca.pem = slurp("other.crt");
    memset(&r, 0, sizeof(r));
    assert_non_null(gcp_http_send(h, &o, NULL, on_done, &r));
    run(loop, &r, 5000);
    assert_int_equal(r.error, GCP_HTTP_ERR_TLS);

    /* and the first CA again, after the other */

    o.ca.pem = slurp("ca.crt");
    memset(&r, 0, sizeof(r));
    assert_non_null(gcp_http_send(h, &o, NULL, on_done, &r));
    run(loop, &r, 5000);
    assert_int_equal(r.error, GCP_HTTP_OK);

    /* no CA of its own: the system's do not know this one */

    o.ca.pem.data = NULL;
    o.ca.pem.len = 0;
    memset(&r, 0, sizeof(r));
    assert_non_null(gcp_http_send(h, &o, NULL, on_done, &r));
    run(loop, &r, 5000);
    assert_int_equal(r.error, GCP_HTTP_ERR_TLS);

    /* the right CA, but a name the certificate does not hold */

    o.ca.pem = slurp("ca.crt");
    o.url = "https://other.ns.svc/";
    snprintf(to, sizeof(to), "other.ns.svc:443:127.0.0.1:%d", port);
    memset(&r, 0, sizeof(r));
    assert_non_null(gcp_http_send(h, &o, NULL, on_done, &r));
    run(loop, &r, 5000);
    assert_int_equal(r.error, GCP_HTTP_ERR_TLS);

    /* a client certificate in memory is presented (s_server asks none) */

    o.url = url;
    snprintf(to, sizeof(to), "svc.ns.svc:443:127.0.0.1:%d", port);
    o.cert.pem = slurp("other.crt");
    o.key.pem = slurp("other.key");
    memset(&r, 0, sizeof(r));
    assert_non_null(gcp_http_send(h, &o, NULL, on_done, &r));
    run(loop, &r, 5000);
    assert_int_equal(r.error, GCP_HTTP_OK);

    gcp_http_destroy(h);
    gcp_loop_poll_destroy(loop);

    kill(pid, SIGTERM);
    waitpid(pid, &rc, 0);
    sh("rm -rf %s", tls_dir);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_answer_and_keep_alive),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_sent_once_on_reused_connection),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_tls),
    };

    return cmocka_run_group_tests(tests, setup_server, NULL);
}
