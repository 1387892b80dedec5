
/*
 * Auditing (see gcp_audit.h): the configuration, and the steps of a
 * request: the policy evaluated once it is authenticated (as upstream's
 * WithAudit, before impersonation), its events built at each stage with
 * the bodies its level asks for.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "gcp_audit_int.h"
#include "gcp_conf_file.h"
#include "gcp_json.h"
#include "gcp_log.h"
#include "gcp_metrics.h"
#include "gcp_protobuf.h"
#include "gcp_time.h"


#define GCP_AUDIT_MAX_POLICY  (16 * 1024 * 1024)
#define GCP_AUDIT_LINE        1024      /* a Metadata event, about */


/* What a request carries (op->audit). */
typedef struct {
    gcp_audit_config_t   cfg;
    const gcp_user_t    *user;          /* as authenticated */
    const char          *decision;      /* "allow", "forbid", NULL */
    const char          *reason;
    unsigned             completed:1;
} gcp_audit_req_t;


/* configuration */


gcp_audit_t *
gcp_audit_create(const gcp_audit_conf_t *conf, char *err, size_t errlen)
{
    int           rc;
    char         *data, msg[512];
    size_t        len;
    json_t       *doc;
    const char   *perr;
    gcp_arena_t  *a;
    gcp_audit_t  *au;

    data = gcp_conf_file_read(conf->policy_file, GCP_AUDIT_MAX_POLICY, &len,
                              err, errlen);
    if (data == NULL) {
        return NULL;
    }

    a = gcp_arena_create(0);
    au = calloc(1, sizeof(gcp_audit_t));

    if (a == NULL || au == NULL) {
        snprintf(err, errlen, "out of memory");
        goto failed;
    }

    doc = gcp_conf_file_decode(a, data, len, &perr);

    if (doc == NULL) {
        snprintf(err, errlen, "\"%s\": %s", conf->policy_file,
                 perr ? perr : "out of memory");
        goto failed;
    }

    rc = gcp_audit_policy_load(doc, &au->policy, msg, sizeof(msg));

    if (rc != GCP_OK) {
        snprintf(err, errlen, "\"%s\": %s", conf->policy_file, msg);
        goto failed;
    }

    au->log_path = strdup(conf->log_path);
    au->max_size = conf->max_size;
    au->max_backups = conf->max_backups;
    au->buffer = conf->buffer ? conf->buffer : GCP_AUDIT_BUFFER;

    if (au->log_path == NULL) {
        snprintf(err, errlen, "out of memory");
        goto failed;
    }

    gcp_arena_destroy(a);
    free(data);

    return au;

failed:

    gcp_arena_destroy(a);
    gcp_audit_destroy(au);
    free(data);

    return NULL;
}


void
gcp_audit_destroy(gcp_audit_t *au)
{
    if (au == NULL) {
        return;
    }

    gcp_audit_close(au);
    gcp_audit_policy_free(&au->policy);
    free(au->log_path);
    free(au);
}


int
gcp_audit_open(gcp_audit_t *au, const char **err)
{
    if (au->log) {
        return GCP_OK;
    }

    au->log = gcp_audit_log_open(au->log_path, au->max_size,
                                 au->max_backups, au->buffer, err);

    return au->log ? GCP_OK : GCP_EINTERNAL;
}


void
gcp_audit_close(gcp_audit_t *au)
{
    if (au && au->log) {
        gcp_audit_log_close(au->log);
        au->log = NULL;
    }
}


/* the request steps */


static void
gcp_audit_attrs(gcp_op_t *op, const gcp_user_t *user, gcp_audit_attrs_t *a)
{
    const gcp_reqinfo_t  *ri = &op->ri;

    memset(a, 0, sizeof(gcp_audit_attrs_t));

    a->user = user;
    a->verb = ri->verb ? ri->verb : "";
    a->resource_request = ri->is_resource;
    a->group = ri->group ? ri->group : "";
    a->resource = ri->resource ? ri->resource : "";
    a->subresource = ri->subresource ? ri->subresource : "";
    a->ns = ri->ns ? ri->ns : "";
    a->name = ri->name ? ri->name : "";
    a->path = ri->path ? ri->path : "";
}


static void
gcp_audit_count_level(gcp_audit_level_t level)
{
    const char  *v[2];

    v[0] = gcp_audit_level_name(level);
    v[1] = NULL;

    gcp_metric_inc(GCP_M_AUDIT_LEVELS, v);
}


static int
gcp_audit_is_json(const char *ct)
{
    const char  *semi;
    size_t       n;

    if (ct == NULL) {
        return 0;
    }

    semi = strchr(ct, ';');
    n = semi ? (size_t) (semi - ct) : strlen(ct);

    while (n && ct[n - 1] == ' ') {
        n--;
    }

    return (n >= 16 && strncasecmp(ct, "application/json", 16) == 0
            && n == 16)
           || (n > 5 && strncasecmp(ct + n - 5, "+json", 5) == 0);
}


static int
gcp_audit_is_protobuf(const char *ct)
{
    return ct && strncasecmp(ct, "application/vnd.kubernetes.protobuf",
                             35) == 0;
}


/* A body as JSON: parsed, or decoded from protobuf; NULL otherwise. */

static json_t *
gcp_audit_body(gcp_op_t *op, const char *ct, gcp_str_t body)
{
    json_t      *v;
    const char  *msg;

    if (body.data == NULL || body.len == 0) {
        return NULL;
    }

    if (gcp_audit_is_json(ct)) {
        return gcp_json_parse(op->a, body.data, body.len, &msg);
    }

    if (gcp_audit_is_protobuf(ct)
        && gcp_protobuf_decode(op->a, op->api->schemas, body.data, body.len,
                               &v, &msg) == GCP_OK)
    {
        return v;
    }

    return NULL;
}


/* omitManagedFields: metadata.managedFields of the object or its items */

static void
gcp_audit_omit_managed(json_t *obj)
{
    size_t   i;
    json_t  *items;

    json_object_del(json_object_get(obj, "metadata"), "managedFields");

    items = json_object_get(obj, "items");

    for (i = 0; i < json_array_size(items); i++) {
        json_object_del(json_object_get(json_array_get(items, i),
                                        "metadata"), "managedFields");
    }
}


/*
 * requestObject: the body as JSON (a patch as sent); DeleteOptions show
 * upstream's internal version, as its audit log does.
 */

static json_t *
gcp_audit_request_object(gcp_op_t *op, gcp_audit_req_t *r)
{
    json_t      *obj, *o;
    const char  *verb = op->ri.verb ? op->ri.verb : "";

    obj = gcp_audit_body(op, op->req->content_type, op->req->body);

    if (!json_is_object(obj)) {
        return obj;
    }

    if (strcmp(verb, "delete") == 0 || strcmp(verb, "deletecollection") == 0)
    {
        o = gcp_json_arena(op->a,
                           json_pack("{s:s, s:s}", "kind", "DeleteOptions",
                                     "apiVersion", "meta.k8s.io/__internal"));
        if (o == NULL) {
            return NULL;
        }

        json_object_del(obj, "kind");
        json_object_del(obj, "apiVersion");
        json_object_update(o, obj);
        obj = o;
    }

    if (r->cfg.omit_managed) {
        gcp_audit_omit_managed(obj);
    }

    return obj;
}


static void
gcp_audit_emit(gcp_op_t *op, gcp_audit_req_t *r, const gcp_user_t *user,
    const char *stage, int status)
{
    int                 complete;
    gcp_buf_t           b, uri;
    json_t             *resp;
    const json_t       *sent;
    gcp_audit_t        *au = op->api->conf.audit;
    const char         *ct;
    struct timespec     now;
    gcp_audit_event_t   ev;
    gcp_request_t      *req = op->req;

    static const char * const  none[] = { NULL };

    if (au->log == NULL) {
        return;
    }

    memset(&ev, 0, sizeof(ev));

    complete = strcmp(stage, "ResponseComplete") == 0;
    now = gcp_time_now();

    gcp_buf_init(&uri, op->a);
    gcp_buf_reserve(&uri, req->path.len + req->query.len + 1);
    gcp_buf_add(&uri, req->path.data, req->path.len);

    if (req->query.len) {
        gcp_buf_addc(&uri, '?');
        gcp_buf_add(&uri, req->query.data, req->query.len);
    }

    ev.level = r->cfg.level;
    ev.stage = stage;
    ev.audit_id = op->audit_id;
    ev.uri = gcp_buf_cstr(&uri);
    ev.verb = op->ri.verb;
    ev.user = user;
    ev.impersonated = user && req->user != user ? req->user : NULL;
    ev.remote_addr = req->remote_addr;
    ev.req = req;
    ev.user_agent = req->user_agent;
    ev.ri = op->ri.path ? &op->ri : NULL;
    ev.status = status;
    ev.received = &op->received;

    /* RequestReceived happens, as upstream's, when the request does */
    ev.now = strcmp(stage, "RequestReceived") == 0 ? &op->received : &now;
    ev.decision = r->decision;
    ev.reason = r->reason;
    ev.notes = op->notes;

    resp = NULL;
    ct = op->resp.content_type;

    if (status && op->resp.status_json.len) {
        /* an error, in JSON whatever the client got */
        resp = gcp_audit_body(op, "application/json", op->resp.status_json);
        ev.status_body = resp;

    } else if (status && op->resp.body.len > 17 && gcp_audit_is_json(ct)
               && memcmp(op->resp.body.data, "{\"kind\":\"Status\"", 16)
                  == 0)
    {
        resp = gcp_audit_body(op, ct, op->resp.body);
        ev.status_body = resp;
    }

    /* bodies only of authenticated requests */

    if (status && user && r->cfg.level >= GCP_AUDIT_REQUEST) {
        ev.request_object = gcp_audit_request_object(op, r);
    }

    if (complete && user && r->cfg.level >= GCP_AUDIT_REQUEST_RESPONSE) {
        if (resp == NULL && gcp_audit_is_json(ct) && !r->cfg.omit_managed
            && op->resp.body.len
            && memchr(op->resp.body.data, '\n', op->resp.body.len) == NULL)
        {
            ev.response_raw = op->resp.body;

        } else if (resp == NULL) {
            resp = gcp_audit_body(op, ct, op->resp.body);
        }

        if (resp && r->cfg.omit_managed) {
            gcp_audit_omit_managed(resp);
        }

        ev.response_object = resp;
    }

    /*
     * upstream's LogRequestObject: the objectRef of a create or an update
     * completed from the object sent (its name, uid, resourceVersion),
     * whatever the answer
     */

    if (status && user && op->ri.verb
        && (strcmp(op->ri.verb, "create") == 0
            || strcmp(op->ri.verb, "update") == 0))
    {
        sent = ev.request_object ? ev.request_object
               : gcp_audit_body(op, req->content_type, req->body);
        ev.name = gcp_json_get_str(sent, "metadata", "name", NULL);
        ev.uid = gcp_json_get_str(sent, "metadata", "uid", NULL);
        ev.rv = gcp_json_get_str(sent, "metadata", "resourceVersion", NULL);
    }

    /* a create with generateName: the name in the answer */

    if (complete && (ev.name == NULL || ev.name[0] == '\0') && op->ri.name
        && op->ri.name[0] == '\0' && op->ri.verb
        && strcmp(op->ri.verb, "create") == 0 && status >= 200
        && status < 300)
    {
        if (resp == NULL) {
            resp = gcp_audit_body(op, ct, op->resp.body);
        }

        ev.name = gcp_json_get_str(resp, "metadata", "name", NULL);
    }

    /* one allocation for the line (the bodies may take more) */

    gcp_buf_init(&b, op->a);
    gcp_buf_reserve(&b, GCP_AUDIT_LINE + uri.len);
    gcp_audit_event_write(&b, &ev);

    if (gcp_buf_failed(&b)) {
        gcp_log(GCP_LOG_ERR, "audit event of \"%s\" lost: out of memory",
                op->audit_id ? op->audit_id : "");
        return;
    }

    gcp_metric_inc(GCP_M_AUDIT_EVENTS, none);
    gcp_audit_log_write(au->log, b.data, b.len);
}


void
gcp_audit_begin(gcp_op_t *op)
{
    gcp_audit_t        *au = op->api->conf.audit;
    gcp_audit_req_t    *r;
    gcp_audit_attrs_t   attrs;

    if (au == NULL || op->audit) {
        return;
    }

    r = gcp_calloc(op->a, sizeof(gcp_audit_req_t));
    if (r == NULL) {
        return;
    }

    r->user = op->req->user;

    gcp_audit_attrs(op, r->user, &attrs);
    gcp_audit_policy_eval(&au->policy, &attrs, &r->cfg);
    gcp_audit_count_level(r->cfg.level);

    op->audit = r;

    if (r->cfg.level != GCP_AUDIT_NONE
        && !(r->cfg.omit & GCP_AUDIT_RECEIVED))
    {
        gcp_audit_emit(op, r, r->user, "RequestReceived", 0);
    }
}


int
gcp_audit_explain(const gcp_op_t *op)
{
    const gcp_audit_req_t  *r = op->audit;

    return r && r->cfg.level != GCP_AUDIT_NONE;
}


void
gcp_audit_authorized(gcp_op_t *op, int allowed, const char *reason)
{
    gcp_audit_req_t  *r = op->audit;

    if (r == NULL || r->cfg.level == GCP_AUDIT_NONE) {
        return;
    }

    r->decision = allowed ? "allow" : "forbid";
    r->reason = reason ? reason : "";
}


void
gcp_audit_started(gcp_op_t *op, int status)
{
    gcp_audit_req_t  *r = op->audit;

    if (r == NULL || r->cfg.level == GCP_AUDIT_NONE
        || (r->cfg.omit & GCP_AUDIT_STARTED))
    {
        return;
    }

    gcp_audit_emit(op, r, r->user, "ResponseStarted", status);
}


/* upstream's WithFailedAuthenticationAudit: one event, no user */

static void
gcp_audit_unauthenticated(gcp_op_t *op, int status)
{
    gcp_audit_t        *au = op->api->conf.audit;
    gcp_audit_req_t    *r;
    gcp_audit_attrs_t   attrs;

    r = gcp_calloc(op->a, sizeof(gcp_audit_req_t));
    if (r == NULL) {
        return;
    }

    gcp_audit_attrs(op, NULL, &attrs);
    gcp_audit_policy_eval(&au->policy, &attrs, &r->cfg);
    gcp_audit_count_level(r->cfg.level);

    op->audit = r;
    r->completed = 1;

    if (r->cfg.level == GCP_AUDIT_NONE
        || (r->cfg.omit & GCP_AUDIT_STARTED))
    {
        return;
    }

    gcp_audit_emit(op, r, NULL, "ResponseStarted", status);
}


void
gcp_audit_complete(gcp_op_t *op, int status)
{
    gcp_audit_req_t  *r = op->audit;

    if (op->api->conf.audit == NULL) {
        return;
    }

    if (r == NULL) {
        if (status == 401 && op->ri.path) {
            gcp_audit_unauthenticated(op, status);
        }

        return;
    }

    if (r->completed) {
        return;
    }

    r->completed = 1;

    if (r->cfg.level == GCP_AUDIT_NONE
        || (r->cfg.omit & GCP_AUDIT_COMPLETE))
    {
        return;
    }

    gcp_audit_emit(op, r, r->user, "ResponseComplete", status);
}
