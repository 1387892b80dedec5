
/*
 * The in-process API client (see gcp_client.h).
 */

#include "gcp_client.h"
#include "gcp_object.h"
#include "gcp_op.h"


static const char * const  gcp_client_groups[] = {
    "system:masters", "system:authenticated", NULL
};

const gcp_user_t  gcp_client_system_user = {
    "system:apiserver", "", gcp_client_groups, 2, NULL, 0
};


typedef struct {
    gcp_request_t        req;       /* first: the core hands it back */
    gcp_api_t           *api;
    gcp_client_done_pt   done;
    void                *arg;
    gcp_client_resp_t    resp;
} gcp_client_call_t;


/* the answer handed to the caller, which may free the arena (timer) */

static void
gcp_client_deliver(void *arg)
{
    gcp_client_resp_t   r;
    gcp_client_call_t  *c = arg;

    /* on the stack: done may free the arena, and read r afterwards */

    r = c->resp;
    c->done(c->arg, &r);
}


/*
 * The core's answer.  The caller's done may free the arena the request
 * lives in, and the core (an admission plugin that refused, a handler)
 * may still touch the request after it answered: done runs from the
 * loop, once the core's callback returned, as the adapter finalizes a
 * client's request from a posted event.
 */
static void
gcp_client_done(gcp_request_t *req, gcp_response_t *resp)
{
    gcp_loop_t         *loop;
    gcp_client_resp_t  *r;
    gcp_client_call_t  *c = (gcp_client_call_t *) req;

    /* a request for another server: not for the in-process client */

    if (resp->proxy) {
        gcp_api_proxy_end(req, 503, 0);
    }

    r = &c->resp;
    r->status = resp->proxy ? 503 : resp->status;
    r->body = resp->body;
    r->json = NULL;

    if (resp->body.len && resp->content_type
        && strncmp(resp->content_type, "application/json", 16) == 0)
    {
        r->json = gcp_json_arena(req->arena,
                                 json_loadb(resp->body.data, resp->body.len,
                                            0, NULL));
    }

    loop = c->api->conf.loop;

    if (loop == NULL || loop->timer_add(loop, 0, gcp_client_deliver, c)
                        == NULL)
    {
        /* no loop (tools): at once */
        gcp_client_deliver(c);
    }
}


static int
gcp_client_stream_write(void *arg, const char *data, size_t len, int flush)
{
    return GCP_EINTERNAL;
}


static void
gcp_client_stream_end(void *arg)
{
}


static const gcp_stream_ops_t  gcp_client_stream = {
    gcp_client_stream_write,
    gcp_client_stream_end,
};


void
gcp_client_call(gcp_api_t *api, gcp_arena_t *a, const char *method,
    const char *path, const char *content_type, const char *body,
    const gcp_user_t *user, gcp_client_done_pt done, void *arg)
{
    char               *p, *q;
    gcp_client_call_t  *c;
    gcp_client_resp_t   r;

    c = gcp_calloc(a, sizeof(gcp_client_call_t));
    p = gcp_strdup(a, path);

    if (c == NULL || p == NULL) {
        memset(&r, 0, sizeof(r));
        r.status = 500;
        done(arg, &r);
        return;
    }

    q = strchr(p, '?');

    if (q) {
        *q++ = '\0';
        c->req.query.data = q;
        c->req.query.len = strlen(q);
    }

    c->req.arena = a;
    c->req.method = method;
    c->req.path.data = p;
    c->req.path.len = strlen(p);
    c->req.content_type = body ? (content_type ? content_type
                                               : "application/json")
                               : NULL;
    c->req.accept = "application/json";
    c->req.user_agent = "ngx_gcp/internal";
    c->req.internal = 1;

    if (body) {
        c->req.body.data = body;
        c->req.body.len = strlen(body);
    }

    c->req.user = user ? user : &gcp_client_system_user;
    c->req.done = gcp_client_done;
    c->req.stream = &gcp_client_stream;
    c->req.ctx = c;

    c->api = api;
    c->done = done;
    c->arg = arg;

    gcp_api_handle(api, &c->req);
}
