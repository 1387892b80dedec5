
/*
 * Watch fan-out benchmark: W watch connections on one namespace, one writer
 * creating N ConfigMaps at R per second; for every (watcher, object) the
 * time from the write's acknowledgement (its 201 arriving) to the ADDED
 * event arriving at that watcher.  Prints JSON:
 *
 *   {"watchers":200,"writes":200,"events":40000,"lost":0,"dup":0,
 *    "p50_ms":..,"p99_ms":..,"max_ms":..,"sent_p50_ms":..,"sent_p99_ms":..}
 *
 * An event that arrives before its acknowledgement counts as 0 ms; the
 * sent_* figures measure from the moment the write was sent instead.
 *
 *   cc -O2 -o watch_fanout bench/watch_fanout.c
 *   watch_fanout HOST PORT NAMESPACE WATCHERS WRITES RATE
 *
 * Single-threaded, epoll; HTTP/1.1, chunked watch streams.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>


#define BUFSZ  (1 << 20)


typedef struct {
    int       fd;
    char     *buf;          /* unparsed stream bytes */
    size_t    len;
    int       headers_done;
    long      chunk_left;   /* -1: expecting a size line */
    char     *line;         /* current event line */
    size_t    line_len;
    size_t    line_cap;
} conn_t;


static double    *ack_ms;       /* per object: when its 201 arrived */
static double    *sent_ms;      /* per object: when its POST was sent */
static double    *lat;          /* all latencies from the 201 */
static double    *slat;         /* all latencies from the POST */
static size_t     nlat;
static unsigned char  *seen;    /* [watcher][object] */
static int        nwrites;
static long       ndup;


static double
now_ms(void)
{
    struct timespec  ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);

    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}


static int
connect_to(const char *host, int port)
{
    int                 fd, one = 1;
    struct sockaddr_in  sa;

    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        perror("socket");
        exit(1);
    }

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t) port);
    inet_pton(AF_INET, host, &sa.sin_addr);

    if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
        perror("connect");
        exit(1);
    }

    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));

    return fd;
}


static void
send_all(int fd, const char *p, size_t n)
{
    ssize_t  w;

    while (n) {
        w = write(fd, p, n);
        if (w <= 0) {
            perror("write");
            exit(1);
        }

        p += w;
        n -= (size_t) w;
    }
}


/* One complete event line: find "name":"fan-K" and record it. */

static void
event_line(int watcher, const char *l, size_t n)
{
    int          k;
    const char  *p;
    double       t;

    p = memmem(l, n, "\"name\":\"fan-", 12);
    if (p == NULL || memmem(l, n, "\"type\":\"ADDED\"", 14) == NULL) {
        return;
    }

    k = atoi(p + 12);
    if (k < 0 || k >= nwrites) {
        return;
    }

    if (seen[(size_t) watcher * nwrites + k]) {
        ndup++;
        return;
    }

    seen[(size_t) watcher * nwrites + k] = 1;

    t = now_ms();
    slat[nlat] = t - sent_ms[k];
    lat[nlat++] = (ack_ms[k] > 0 && t > ack_ms[k]) ? t - ack_ms[k] : 0;
}


static void
line_add(conn_t *c, int watcher, const char *p, size_t n)
{
    size_t  i;

    for (i = 0; i < n; i++) {
        if (p[i] == '\n') {
            event_line(watcher, c->line, c->line_len);
            c->line_len = 0;
            continue;
        }

        if (c->line_len == c->line_cap) {
            c->line_cap = c->line_cap ? c->line_cap * 2 : 4096;
            c->line = realloc(c->line, c->line_cap);
        }

        c->line[c->line_len++] = p[i];
    }
}


/* Feeds stream bytes: headers, then chunked data into event lines. */

static void
stream_feed(conn_t *c, int watcher)
{
    char    *p, *end, *nl;
    size_t   take;

    p = c->buf;
    end = c->buf + c->len;

    if (!c->headers_done) {
        char  *h = memmem(p, (size_t) (end - p), "\r\n\r\n", 4);

        if (h == NULL) {
            return;
        }

        if (strncmp(p, "HTTP/1.1 200", 12) != 0) {
            fprintf(stderr, "watch: %.*s\n", (int) (h - p), p);
            exit(1);
        }

        p = h + 4;
        c->headers_done = 1;
        c->chunk_left = -1;
    }

    while (p < end) {
        if (c->chunk_left < 0) {
            nl = memchr(p, '\n', (size_t) (end - p));
            if (nl == NULL) {
                break;
            }

            c->chunk_left = strtol(p, NULL, 16);
            p = nl + 1;

            if (c->chunk_left == 0) {
                /* the stream ended */
                p = end;
                break;
            }

            continue;
        }

        if (c->chunk_left == 0) {
            /* the CRLF after a chunk */
            nl = memchr(p, '\n', (size_t) (end - p));
            if (nl == NULL) {
                break;
            }

            p = nl + 1;
            c->chunk_left = -1;
            continue;
        }

        take = (size_t) (end - p) < (size_t) c->chunk_left
               ? (size_t) (end - p) : (size_t) c->chunk_left;

        line_add(c, watcher, p, take);
        p += take;
        c->chunk_left -= (long) take;
    }

    memmove(c->buf, p, (size_t) (end - p));
    c->len = (size_t) (end - p);
}


static int
cmp_double(const void *a, const void *b)
{
    double  x = *(const double *) a, y = *(const double *) b;

    return x < y ? -1 : x > y;
}


int
main(int argc, char **argv)
{
    int                  port, nwatch, rate, i, k, efd, n, next, acked;
    int                  pending;
    char                 req[1024], body[512], wbuf[65536];
    double               start, due;
    ssize_t              r;
    conn_t              *w, writer;
    const char          *host, *ns;
    size_t               lost;
    struct epoll_event   ev, evs[256];

    if (argc != 7) {
        fprintf(stderr, "usage: %s HOST PORT NAMESPACE WATCHERS WRITES "
                "RATE\n", argv[0]);
        return 2;
    }

    host = argv[1];
    port = atoi(argv[2]);
    ns = argv[3];
    nwatch = atoi(argv[4]);
    nwrites = atoi(argv[5]);
    rate = atoi(argv[6]);

    ack_ms = calloc((size_t) nwrites, sizeof(double));
    sent_ms = calloc((size_t) nwrites, sizeof(double));
    lat = calloc((size_t) nwatch * nwrites + 1, sizeof(double));
    slat = calloc((size_t) nwatch * nwrites + 1, sizeof(double));
    seen = calloc((size_t) nwatch * nwrites, 1);
    w = calloc((size_t) nwatch, sizeof(conn_t));

    efd = epoll_create1(0);

    /* watchers: changes from now on, no initial events */

    for (i = 0; i < nwatch; i++) {
        w[i].fd = connect_to(host, port);
        w[i].buf = malloc(BUFSZ);

        n = snprintf(req, sizeof(req),
                     "GET /api/v1/namespaces/%s/configmaps?watch=1&"
                     "sendInitialEvents=false&resourceVersionMatch="
                     "NotOlderThan&timeoutSeconds=600 HTTP/1.1\r\n"
                     "Host: %s\r\nAccept: application/json\r\n\r\n",
                     ns, host);

        send_all(w[i].fd, req, (size_t) n);

        ev.events = EPOLLIN;
        ev.data.u32 = (uint32_t) i;
        epoll_ctl(efd, EPOLL_CTL_ADD, w[i].fd, &ev);
    }

    /* let every watch be registered before writing */

    start = now_ms();
    while (now_ms() - start < 1000) {
        n = epoll_wait(efd, evs, 256, 50);

        for (k = 0; k < n; k++) {
            i = (int) evs[k].data.u32;
            r = read(w[i].fd, w[i].buf + w[i].len, BUFSZ - w[i].len);
            if (r > 0) {
                w[i].len += (size_t) r;
                stream_feed(&w[i], i);
            }
        }
    }

    memset(&writer, 0, sizeof(writer));
    writer.fd = connect_to(host, port);
    ev.events = EPOLLIN;
    ev.data.u32 = (uint32_t) nwatch;
    epoll_ctl(efd, EPOLL_CTL_ADD, writer.fd, &ev);

    next = 0;
    acked = 0;
    pending = 0;
    start = now_ms();

    while (acked < nwrites || nlat < (size_t) nwatch * nwrites) {

        due = start + next * 1000.0 / rate;

        if (next < nwrites && pending == 0 && now_ms() >= due) {
            n = snprintf(body, sizeof(body),
                         "{\"metadata\":{\"name\":\"fan-%d\"},"
                         "\"data\":{\"k\":\"v\"}}", next);
            k = snprintf(req, sizeof(req),
                         "POST /api/v1/namespaces/%s/configmaps HTTP/1.1\r\n"
                         "Host: %s\r\nContent-Type: application/json\r\n"
                         "Content-Length: %d\r\n\r\n%s", ns, host, n, body);
            sent_ms[next] = now_ms();
            send_all(writer.fd, req, (size_t) k);
            pending = 1;
            next++;
        }

        n = epoll_wait(efd, evs, 256, 1);

        for (k = 0; k < n; k++) {
            i = (int) evs[k].data.u32;

            if (i == nwatch) {
                r = read(writer.fd, wbuf, sizeof(wbuf));
                if (r <= 0) {
                    fprintf(stderr, "writer connection closed\n");
                    return 1;
                }

                if (memmem(wbuf, (size_t) r, "HTTP/1.1 201", 12)) {
                    ack_ms[next - 1] = now_ms();
                    acked++;
                    pending = 0;

                } else if (memmem(wbuf, (size_t) r, "HTTP/1.1", 8)) {
                    fprintf(stderr, "write failed: %.*s\n", (int) r, wbuf);
                    return 1;
                }

                continue;
            }

            r = read(w[i].fd, w[i].buf + w[i].len, BUFSZ - w[i].len);
            if (r > 0) {
                w[i].len += (size_t) r;
                stream_feed(&w[i], i);
            }
        }

        if (next == nwrites && acked == nwrites
            && now_ms() - ack_ms[nwrites - 1] > 5000)
        {
            break;      /* give up waiting for lost events */
        }
    }

    lost = (size_t) nwatch * nwrites - nlat;

    qsort(lat, nlat, sizeof(double), cmp_double);
    qsort(slat, nlat, sizeof(double), cmp_double);

    printf("{\"watchers\":%d,\"writes\":%d,\"events\":%zu,\"lost\":%zu,"
           "\"dup\":%ld,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,"
           "\"sent_p50_ms\":%.3f,\"sent_p99_ms\":%.3f}\n",
           nwatch, nwrites, nlat, lost, ndup,
           nlat ? lat[nlat / 2] : 0.0,
           nlat ? lat[(size_t) (nlat * 0.99)] : 0.0,
           nlat ? lat[nlat - 1] : 0.0,
           nlat ? slat[nlat / 2] : 0.0,
           nlat ? slat[(size_t) (nlat * 0.99)] : 0.0);

    return lost ? 1 : 0;
}
