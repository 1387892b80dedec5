
/*
 * Protobuf bodies: the magic, the runtime.Unknown envelope and the
 * decoding entry points (see gcp_protobuf.h).
 */

#include "gcp_protobuf_int.h"
#include "gcp_json.h"


#define GCP_PB_SUMMARY  30


static const unsigned    gcp_pb_tm_wires[] = { GCP_PB_LEN, GCP_PB_LEN };
static const char       *gcp_pb_tm_names[] = { "APIVersion", "Kind" };
static const unsigned    gcp_pb_unk_wires[] = {
    GCP_PB_LEN, GCP_PB_LEN, GCP_PB_LEN, GCP_PB_LEN
};
static const char       *gcp_pb_unk_names[] = {
    "TypeMeta", "Raw", "ContentEncoding", "ContentType"
};


/* Go's %#v of runtime.TypeMeta{APIVersion, Kind}. */
static const char *
gcp_pb_typemeta_str(gcp_pb_ctx_t *ctx, const char *av, const char *kind)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, ctx->arena);
    gcp_buf_addstr(&b, "runtime.TypeMeta{APIVersion:");
    gcp_json_add_string(&b, av, strlen(av));
    gcp_buf_addstr(&b, ", Kind:");
    gcp_json_add_string(&b, kind, strlen(kind));
    gcp_buf_addc(&b, '}');

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}


/* A Go string from the wire as a C string (NUL bytes cut it short). */
static const char *
gcp_pb_cstr(gcp_pb_ctx_t *ctx, const gcp_pb_slot_t *s)
{
    json_t      *j;
    const char  *r;

    if (!s->seen || s->n == 0) {
        return "";
    }

    j = gcp_pb_json_string(ctx, s->p, s->n);
    r = j ? gcp_strdup(ctx->arena, json_string_value(j)) : NULL;
    json_decref(j);

    return r;
}


int
gcp_pb_dec_envelope(gcp_pb_ctx_t *ctx, const unsigned char *p, size_t n,
    json_t **out, gcp_protobuf_error_t *err)
{
    int             rc;
    json_t         *tree, *obj;
    const char     *av, *kind, *group, *version, *def, *tmstr;
    gcp_pb_msg_t   *m;
    gcp_pb_slot_t   unk[4], tm[2];

    if (n == 0) {
        return gcp_pb_fail(ctx, "empty data");
    }

    if (n < GCP_PROTOBUF_MAGIC_LEN
        || memcmp(p, GCP_PROTOBUF_MAGIC, GCP_PROTOBUF_MAGIC_LEN) != 0)
    {
        return gcp_pb_fail(ctx, "provided data does not appear to be a "
                           "protobuf message, expected prefix "
                           "[107 56 115 0]");
    }

    if (n == GCP_PROTOBUF_MAGIC_LEN) {
        return gcp_pb_fail(ctx, "empty body");
    }

    if (++ctx->depth > GCP_PROTOBUF_MAX_DEPTH) {
        return gcp_pb_fail(ctx, "proto: exceeded maximum nesting depth");
    }

    rc = gcp_pb_dec_fixed(ctx, p + GCP_PROTOBUF_MAGIC_LEN,
                          n - GCP_PROTOBUF_MAGIC_LEN, "Unknown",
                          gcp_pb_unk_wires, gcp_pb_unk_names, 4, unk);
    if (rc != GCP_OK) {
        return rc;
    }

    rc = gcp_pb_dec_fixed(ctx, unk[0].p, unk[0].n, "TypeMeta",
                          gcp_pb_tm_wires, gcp_pb_tm_names, 2, tm);
    if (rc != GCP_OK) {
        return rc;
    }

    av = gcp_pb_cstr(ctx, &tm[0]);
    kind = gcp_pb_cstr(ctx, &tm[1]);

    if (av == NULL || kind == NULL) {
        return gcp_pb_fail(ctx, NULL);
    }

    tmstr = gcp_pb_typemeta_str(ctx, av, kind);
    if (tmstr == NULL) {
        return gcp_pb_fail(ctx, NULL);
    }

    if (kind[0] == '\0') {
        return gcp_pb_fail(ctx, gcp_sprintf(ctx->arena, "Object 'Kind' is "
                                            "missing in '%s'", tmstr));
    }

    if (err) {
        err->kind = kind;
        err->api_version = av;
    }

    /* schema.FromAPIVersionAndKind: a bad group/version is no version */
    rc = gcp_pb_parse_api_version(ctx->arena, av, &group, &version);
    if (rc == GCP_ENOMEM) {
        return gcp_pb_fail(ctx, NULL);
    }

    if (rc != GCP_OK || version[0] == '\0') {
        return gcp_pb_fail(ctx, gcp_sprintf(ctx->arena, "Object 'apiVersion' "
                                            "is missing in '%s'", tmstr));
    }

    def = gcp_schema_find_gvk(ctx->set, group, version, kind);

    if (def == NULL) {
        return gcp_pb_fail(ctx, gcp_sprintf(ctx->arena, "no kind \"%s\" is "
                               "registered for version \"%s\" in scheme "
                               "\"pkg/api/legacyscheme/scheme.go:30\"",
                               kind, av));
    }

    if (!gcp_protobuf_capable(ctx->set, def)) {
        ctx->msg = gcp_sprintf(ctx->arena, "%s has no protobuf encoding",
                               kind);
        return ctx->msg ? GCP_EMEDIATYPE : GCP_ENOMEM;
    }

    m = gcp_pb_msg_def(ctx, def);
    tree = json_object();

    if (m == NULL || tree == NULL) {
        json_decref(tree);
        return gcp_pb_fail(ctx, NULL);
    }

    rc = gcp_pb_dec_message(ctx, m, unk[1].p, unk[1].n, tree);

    if (rc == GCP_OK) {
        obj = json_object();

        if (obj == NULL
            || json_object_set_new(obj, "kind", json_string(kind)) != 0
            || json_object_set_new(obj, "apiVersion", json_string(av)) != 0
            || gcp_pb_fin_message(ctx, m, tree, obj) == NULL)
        {
            json_decref(obj);
            rc = gcp_pb_fail(ctx, NULL);

        } else {
            json_decref(obj);   /* fin_message returned a reference */
            *out = obj;
        }
    }

    json_decref(tree);
    ctx->depth--;

    return rc;
}


/* ------------------------------------------------------------------ */
/* entry points                                                        */

/* upstream's summarizeData(data, 30) */
static const char *
gcp_pb_summary(gcp_arena_t *a, const unsigned char *p, size_t n)
{
    size_t      i, m;
    gcp_buf_t   b;

    if (n == 0) {
        return "<empty>";
    }

    m = gcp_min(n, GCP_PB_SUMMARY);
    gcp_buf_init(&b, a);

    if (p[0] == '{') {
        gcp_buf_add(&b, p, m);

    } else {
        for (i = 0; i < m; i++) {
            gcp_buf_printf(&b, "%02x", p[i]);
        }
    }

    if (n > m) {
        gcp_buf_addstr(&b, " ...");
    }

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}


int
gcp_protobuf_decode_ex(gcp_arena_t *a, const gcp_schema_set_t *set,
    const char *data, size_t len, json_t **out, gcp_protobuf_error_t *err)
{
    int            rc;
    json_t        *obj;
    gcp_pb_ctx_t   ctx;

    gcp_pb_ctx_init(&ctx, a, set);

    if (err) {
        memset(err, 0, sizeof(gcp_protobuf_error_t));
    }

    obj = NULL;
    rc = gcp_pb_dec_envelope(&ctx, (const unsigned char *) data, len, &obj,
                             err);

    if (rc == GCP_OK) {
        if (gcp_json_arena(a, obj) == NULL) {
            return GCP_ENOMEM;
        }

        *out = obj;
        return GCP_OK;
    }

    if (err) {
        err->msg = ctx.msg ? ctx.msg : "out of memory";
        err->summary = gcp_pb_summary(a, (const unsigned char *) data, len);
    }

    return ctx.msg ? rc : GCP_ENOMEM;
}


int
gcp_protobuf_decode(gcp_arena_t *a, const gcp_schema_set_t *set,
    const char *data, size_t len, json_t **out, const char **msg)
{
    int                   rc;
    gcp_protobuf_error_t  err;

    rc = gcp_protobuf_decode_ex(a, set, data, len, out, &err);

    if (rc != GCP_OK && msg) {
        *msg = err.msg;
    }

    return rc;
}


int
gcp_protobuf_decode_message(gcp_arena_t *a, const gcp_schema_set_t *set,
    const char *def, const char *data, size_t len, json_t **out,
    const char **msg)
{
    int            rc;
    json_t        *tree, *obj;
    gcp_pb_msg_t  *m;
    gcp_pb_ctx_t   ctx;

    gcp_pb_ctx_init(&ctx, a, set);

    if (!gcp_protobuf_capable(set, def)) {
        if (msg) {
            *msg = "no protobuf message for this definition";
        }

        return GCP_EBADREQUEST;
    }

    m = gcp_pb_msg_def(&ctx, def);
    tree = gcp_json_arena(a, json_object());

    if (m == NULL || tree == NULL) {
        rc = gcp_pb_fail(&ctx, NULL);

    } else {
        rc = gcp_pb_dec_message(&ctx, m, (const unsigned char *) data, len,
                                tree);
    }

    if (rc == GCP_OK) {
        obj = gcp_json_arena(a, gcp_pb_fin_message(&ctx, m, tree, NULL));
        if (obj == NULL) {
            rc = gcp_pb_fail(&ctx, NULL);

        } else {
            *out = obj;
            return GCP_OK;
        }
    }

    if (msg) {
        *msg = ctx.msg ? ctx.msg : "out of memory";
    }

    return ctx.msg ? rc : GCP_ENOMEM;
}
