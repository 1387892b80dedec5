
/*
 * Responding to an operation (see gcp_op.h).
 */

#include <strings.h>

#include "gcp_json.h"
#include "gcp_op.h"
#include "gcp_protobuf.h"
#include "gcp_yaml.h"


void
gcp_op_header(gcp_op_t *op, const char *name, const char *value)
{
    gcp_header_t  *h;

    if (op->resp.nheaders >= GCP_OP_MAX_HEADERS) {
        return;
    }

    h = &op->headers[op->resp.nheaders];
    h->name = gcp_strdup(op->a, name);
    h->value = gcp_strdup(op->a, value);

    if (h->name && h->value) {
        op->resp.nheaders++;
    }
}


void
gcp_op_warning(gcp_op_t *op, const char *text)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, op->a);
    gcp_buf_addstr(&b, "299 - ");
    gcp_json_add_string(&b, text, strlen(text));

    gcp_op_header(op, "Warning", gcp_buf_cstr(&b));
}


int
gcp_op_annotate(gcp_op_t *op, const char *key, const char *value,
    int request_level)
{
    gcp_op_note_t  *n;

    for (n = op->notes; n; n = n->next) {
        if (strcmp(n->key, key) == 0) {
            return strcmp(n->value, value) == 0 ? GCP_OK : GCP_EEXISTS;
        }
    }

    n = gcp_alloc(op->a, sizeof(gcp_op_note_t));
    if (n == NULL) {
        return GCP_ENOMEM;
    }

    n->key = gcp_strdup(op->a, key);
    n->value = gcp_strdup(op->a, value);
    n->request_level = request_level ? 1 : 0;

    if (n->key == NULL || n->value == NULL) {
        return GCP_ENOMEM;
    }

    n->next = op->notes;
    op->notes = n;

    return GCP_OK;
}


static int
gcp_op_has_header(gcp_op_t *op, const char *name)
{
    size_t  i;

    for (i = 0; i < op->resp.nheaders; i++) {
        if (strcasecmp(op->headers[i].name, name) == 0) {
            return 1;
        }
    }

    return 0;
}


void
gcp_op_respond(gcp_op_t *op, int status, const char *content_type,
    gcp_str_t body)
{
    if (op->responded) {
        return;
    }

    op->responded = 1;

    /* kube-apiserver's defaults for every answer of the API server */

    if (!gcp_op_has_header(op, "Cache-Control")) {
        gcp_op_header(op, "Cache-Control", "no-cache, private");
    }

    op->resp.status = status;
    op->resp.content_type = content_type;
    op->resp.headers = op->headers;
    op->resp.body = body;

    op->req->done(op->req, &op->resp);
}


void
gcp_op_proxy(gcp_op_t *op, const gcp_proxy_t *proxy)
{
    if (op->responded) {
        return;
    }

    op->responded = 1;
    op->resp.proxy = proxy;
    op->resp.headers = op->headers;     /* for the client (APF's) */

    op->req->done(op->req, &op->resp);
}


/*
 * Returns 1 when op's answer is pretty-printed JSON, as kube-apiserver
 * does for a true ?pretty= and, without it, for curl's and Wget's
 * User-Agent; else 0.
 */

static int
gcp_op_pretty(gcp_op_t *op)
{
    size_t              i;
    const char         *ua;
    const gcp_param_t  *p;

    static const char  *yes[] = { "1", "t", "T", "TRUE", "true", "True" };

    /* a non-empty ?pretty= as strconv.ParseBool reads it, NUL bytes kept */

    p = gcp_query_param(&op->q, "pretty");

    if (p && p->len) {
        for (i = 0; i < gcp_nelems(yes); i++) {
            if (strlen(yes[i]) == p->len && strcmp(p->value, yes[i]) == 0) {
                return 1;
            }
        }

        return 0;
    }

    ua = op->req->user_agent;

    return ua && (strncmp(ua, "curl", 4) == 0 || strncmp(ua, "Wget", 4) == 0);
}


/* The encoding of a Status for op's client (see gcp_op_respond_status). */

static gcp_media_kind_t
gcp_op_status_media(gcp_op_t *op)
{
    gcp_media_t  m;

    if (gcp_media_negotiate(op->a, op->req->accept,
                            GCP_MEDIA_BIT(GCP_MEDIA_JSON)
                            | GCP_MEDIA_BIT(GCP_MEDIA_YAML)
                            | GCP_MEDIA_BIT(GCP_MEDIA_PROTOBUF), &m)
        != GCP_OK)
    {
        return GCP_MEDIA_JSON;
    }

    return m.kind;
}


int
gcp_op_encode(gcp_op_t *op, gcp_media_kind_t kind, const gcp_buf_t *compact,
    gcp_str_t *body, const char **content_type, const char **msg)
{
    int         rc;
    json_t     *v;
    gcp_buf_t   out;

    *msg = NULL;

    if (gcp_buf_failed(compact)) {
        return GCP_ENOMEM;
    }

    if (kind != GCP_MEDIA_PROTOBUF && kind != GCP_MEDIA_YAML
        && !gcp_op_pretty(op))
    {
        body->data = compact->data ? compact->data : "";
        body->len = compact->len;
        *content_type = "application/json";
        return GCP_OK;
    }

    if (kind == GCP_MEDIA_PROTOBUF && op->api == NULL) {
        return GCP_EINTERNAL;
    }

    v = gcp_json_parse(op->a, compact->data, compact->len, msg);
    if (v == NULL) {
        return GCP_EINTERNAL;
    }

    gcp_buf_init(&out, op->a);

    if (kind == GCP_MEDIA_PROTOBUF) {
        rc = gcp_protobuf_encode(&out, op->api->schemas, v);
        if (rc != GCP_OK) {
            return rc;
        }

        *content_type = "application/vnd.kubernetes.protobuf";

    } else if (kind == GCP_MEDIA_YAML) {
        gcp_yaml_dump_buf(&out, v);
        *content_type = "application/yaml";

    } else {
        gcp_json_dump_buf(&out, v, 1);
        *content_type = "application/json";
    }

    if (gcp_buf_failed(&out)) {
        return GCP_ENOMEM;
    }

    body->data = out.data;
    body->len = out.len;

    return GCP_OK;
}


void
gcp_op_respond_status(gcp_op_t *op, int status, gcp_buf_t *b)
{
    gcp_str_t    body;
    const char  *msg, *ct;

    if (op->responded) {
        /* answered already (a watch that ended): nothing more is */
        /* negotiated or sent, as gcp_op_respond() sends nothing */
        return;
    }

    if (gcp_buf_failed(b)) {
        gcp_op_respond(op, 500, NULL, (gcp_str_t) gcp_null_string);
        return;
    }

    op->resp.status_json.data = b->data ? b->data : "";
    op->resp.status_json.len = b->len;

    if (gcp_op_encode(op, gcp_op_status_media(op), b, &body, &ct, &msg)
        != GCP_OK)
    {
        /* a Status that cannot be encoded so goes as it is */
        gcp_op_respond(op, status, "application/json", op->resp.status_json);
        return;
    }

    gcp_op_respond(op, status, ct, body);
}


void
gcp_op_error(gcp_op_t *op, int rc, const char *message,
    const gcp_status_details_t *d)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, op->a);
    gcp_status_error(&b, rc, message, d);

    gcp_op_respond_status(op, gcp_error_info(rc)->http_status, &b);
}


void
gcp_op_error_obj(gcp_op_t *op, int rc, const char *message,
    const char *name)
{
    gcp_status_details_t  d;

    memset(&d, 0, sizeof(d));

    d.name = name;

    if (op->res) {
        d.group = op->res->group;
        d.kind = op->res->name;
    }

    gcp_op_error(op, rc, message, &d);
}


void
gcp_op_invalid(gcp_op_t *op, const char *kind, const char *name,
    const gcp_ferrs_t *errs)
{
    gcp_status_details_t  d;

    memset(&d, 0, sizeof(d));

    d.name = name;
    d.group = op->res ? op->res->group : NULL;
    d.kind = kind;
    d.causes = errs;

    gcp_op_error(op, GCP_EINVALID, gcp_ferrs_message(errs, kind, name), &d);
}


const char *
gcp_op_qualified_resource(gcp_op_t *op, const gcp_resource_t *res)
{
    if (res->group[0] == '\0') {
        return res->name;
    }

    return gcp_sprintf(op->a, "%s.%s", res->name, res->group);
}


void
gcp_op_not_found(gcp_op_t *op, const gcp_resource_t *res, const char *name)
{
    gcp_status_details_t  d;

    memset(&d, 0, sizeof(d));

    d.name = name;
    d.group = res->group;
    d.kind = res->name;

    gcp_op_error(op, GCP_ENOTFOUND,
                 gcp_sprintf(op->a, "%s \"%s\" not found",
                             gcp_op_qualified_resource(op, res), name),
                 &d);
}


void
gcp_op_text(gcp_op_t *op, int status, const char *text)
{
    gcp_str_t  body;

    body.data = text;
    body.len = strlen(text);

    gcp_op_header(op, "X-Content-Type-Options", "nosniff");
    gcp_op_respond(op, status, "text/plain; charset=utf-8", body);
}
