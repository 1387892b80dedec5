
/*
 * Encoding objects and lists in the negotiated media type: JSON (stored
 * bytes with the resourceVersion spliced in, no parsing), pretty JSON,
 * YAML, PartialObjectMetadata(List) and Table.
 */

#include <strings.h>

#include "gcp_reg.h"
#include "gcp_json.h"
#include "gcp_table.h"


/* Sends compact JSON bytes as the negotiated encoding. */

void
gcp_output_send(gcp_op_t *op, int status, gcp_buf_t *compact)
{
    int          rc;
    gcp_str_t    body;
    const char  *ct, *msg;

    rc = gcp_op_encode(op, op->media.kind, compact, &body, &ct, &msg);
    if (rc != GCP_OK) {
        gcp_op_error(op, rc, msg, NULL);
        return;
    }

    gcp_op_respond(op, status, ct, body);
}


static const char *
gcp_output_meta_version(gcp_op_t *op)
{
    return strcmp(op->media.version, "v1beta1") == 0 ? "meta.k8s.io/v1beta1"
                                                     : "meta.k8s.io/v1";
}


void
gcp_output_metadata(gcp_op_t *op, gcp_buf_t *b, const json_t *obj)
{
    json_t  *meta;

    meta = json_object_get(obj, "metadata");

    if (!op->res->unstructured || meta == NULL) {
        gcp_json_dump_buf(b, meta, 0);
        return;
    }

    /* a custom resource's keys are sorted: ObjectMeta's are not */

    meta = gcp_object_meta_ordered(meta);
    gcp_json_dump_buf(b, meta, 0);
    json_decref(meta);
}


/* Appends {"kind":"PartialObjectMetadata",...,"metadata":{...}}. */

static void
gcp_output_partial(gcp_op_t *op, gcp_buf_t *b, const json_t *obj)
{
    gcp_buf_addstr(b, "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"");
    gcp_buf_addstr(b, gcp_output_meta_version(op));
    gcp_buf_addstr(b, "\",\"metadata\":");
    gcp_output_metadata(op, b, obj);
    gcp_buf_addc(b, '}');
}


int
gcp_output_event_object(gcp_op_t *op, gcp_buf_t *b, const gcp_kv_t *kv,
    const json_t *obj, int64_t rv)
{
    json_t  *meta;

    if (obj == NULL && kv && op->media.kind != GCP_MEDIA_PARTIAL
        && gcp_reg_served_as_stored(op, kv))
    {
        return gcp_object_splice(b, kv->value, rv,
                                 gcp_reg_splice_flags(op, 0));
    }

    if (obj == NULL) {
        obj = gcp_reg_decode_kv(op, kv);
        if (obj == NULL) {
            return GCP_EINTERNAL;
        }
    }

    meta = json_object_get(obj, "metadata");

    if (meta && rv > 0 && gcp_parse_rv(gcp_meta_str(obj, "resourceVersion"))
                          != rv)
    {
        /* the object may be shared (object cache): change a copy */

        obj = gcp_reg_own_meta(op, obj);
        if (obj == NULL) {
            return GCP_ENOMEM;
        }

        json_object_set_new(json_object_get(obj, "metadata"),
                            "resourceVersion",
                            json_string(gcp_sprintf(op->a, "%lld",
                                                    (long long) rv)));
    }

    /*
     * Custom resources are maps in Go: every object's keys in order
     * (objects decoded from storage already are, a written body is not)
     */

    if (op->res->unstructured
        && gcp_json_sort_keys((json_t *) obj, 1) != GCP_OK)
    {
        return GCP_ENOMEM;
    }

    if (op->media.kind == GCP_MEDIA_PARTIAL
        || op->media.kind == GCP_MEDIA_PARTIAL_LIST)
    {
        gcp_output_partial(op, b, obj);

    } else {
        gcp_json_dump_buf(b, obj, 0);
    }

    return gcp_buf_failed(b) ? GCP_ENOMEM : GCP_OK;
}


void
gcp_output_object(gcp_op_t *op, int status, const gcp_kv_t *kv,
    const json_t *obj)
{
    gcp_buf_t  b;

    if (kv) {
        op->revision = kv->mod_revision;
    }

    gcp_buf_init(&b, op->a);

    switch (op->media.kind) {

    case GCP_MEDIA_PARTIAL_LIST:
        gcp_op_error(op, GCP_ENOTACCEPTABLE,
                     gcp_sprintf(op->a, "you requested "
                                 "PartialObjectMetadataList, but the "
                                 "requested object is not a list (*%s)",
                                 gcp_reg_internal_kind(op)), NULL);
        return;

    case GCP_MEDIA_TABLE:
        if (obj == NULL) {
            obj = gcp_reg_decode_kv(op, kv);
        }

        if (obj == NULL
            || gcp_table_write(op, &b, (gcp_kv_t *const *) &kv,
                               (json_t **) &obj, 1,
                               kv ? kv->mod_revision : 0, NULL, -1, 1)
               != GCP_OK)
        {
            gcp_op_error(op, GCP_EINTERNAL, NULL, NULL);
            return;
        }

        gcp_output_send(op, status, &b);
        return;

    default:
        break;
    }

    if (gcp_output_event_object(op, &b, kv, obj,
                                kv ? kv->mod_revision : 0) != GCP_OK)
    {
        gcp_op_error(op, GCP_EINTERNAL, "stored object is corrupt", NULL);
        return;
    }

    gcp_output_send(op, status, &b);
}


static void
gcp_output_list_meta(gcp_buf_t *b, int64_t rev, const char *cont,
    int64_t remaining)
{
    gcp_buf_addstr(b, "\"metadata\":{\"resourceVersion\":\"");
    gcp_buf_add_int(b, rev);
    gcp_buf_addc(b, '"');

    if (cont) {
        gcp_buf_addstr(b, ",\"continue\":");
        gcp_json_add_string(b, cont, strlen(cont));
    }

    if (cont && remaining >= 0) {
        gcp_buf_printf(b, ",\"remainingItemCount\":%lld",
                       (long long) remaining);
    }

    gcp_buf_addc(b, '}');
}


void
gcp_output_list(gcp_op_t *op, gcp_kv_t **kvs, json_t **objs, size_t n,
    int64_t rev, const char *cont, int64_t remaining)
{
    size_t      i, total;
    json_t     *obj;
    gcp_buf_t   b;
    int         fast;

    gcp_buf_init(&b, op->a);

    for (i = 0, total = 256; i < n; i++) {
        total += kvs[i] ? kvs[i]->value.len + 48 : 0;
    }

    if (op->media.kind == GCP_MEDIA_TABLE) {
        /* rows add cells and the metadata's envelope: one buffer */
        total += total / 4;
    }

    if (gcp_buf_reserve(&b, total) != GCP_OK) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    if (op->media.kind == GCP_MEDIA_TABLE) {
        /* rows decode their objects when they are not cached */

        if (gcp_table_write(op, &b, kvs, objs, n, rev, cont, remaining, 1)
            != GCP_OK)
        {
            gcp_op_error(op, GCP_EINTERNAL, NULL, NULL);
            return;
        }

        gcp_output_send(op, 200, &b);
        return;
    }

    if (op->media.kind == GCP_MEDIA_PARTIAL_LIST) {
        gcp_buf_addstr(&b, "{\"kind\":\"PartialObjectMetadataList\","
                           "\"apiVersion\":\"");
        gcp_buf_addstr(&b, gcp_output_meta_version(op));
        gcp_buf_addstr(&b, "\",");

    } else {
        gcp_buf_addstr(&b, "{\"kind\":");
        gcp_json_add_string(&b, op->res->list_kind,
                                strlen(op->res->list_kind));
        gcp_buf_addstr(&b, ",\"apiVersion\":");
        gcp_buf_addstr(&b, "\"");
        gcp_buf_addstr(&b, gcp_reg_api_version(op));
        gcp_buf_addstr(&b, "\",");
    }

    gcp_output_list_meta(&b, rev, cont, remaining);
    gcp_buf_addstr(&b, ",\"items\":[");

    fast = op->media.kind != GCP_MEDIA_PARTIAL_LIST;

    for (i = 0; i < n; i++) {
        if (i) {
            gcp_buf_addc(&b, ',');
        }

        if (fast && gcp_reg_served_as_stored(op, kvs[i])) {
            if (gcp_object_splice(&b, kvs[i]->value, kvs[i]->mod_revision,
                                  gcp_reg_splice_flags(op, 1))
                != GCP_OK)
            {
                gcp_op_error(op, GCP_EINTERNAL, "stored object is corrupt",
                             NULL);
                return;
            }

            continue;
        }

        obj = objs[i] ? objs[i] : gcp_reg_decode_kv(op, kvs[i]);
        if (obj == NULL) {
            gcp_op_error(op, GCP_EINTERNAL, "stored object is corrupt", NULL);
            return;
        }

        if (op->media.kind == GCP_MEDIA_PARTIAL_LIST) {
            gcp_output_partial(op, &b, obj);
            continue;
        }

        if (op->res->unstructured) {
            gcp_json_dump_buf(&b, obj, 0);
            continue;
        }

        /* built-in list items carry no kind and apiVersion */

        obj = gcp_json_deep_copy(obj);
        json_object_del(obj, "kind");
        json_object_del(obj, "apiVersion");
        gcp_json_dump_buf(&b, obj, 0);
        json_decref(obj);
    }

    gcp_buf_addstr(&b, "]}");

    gcp_output_send(op, 200, &b);
}
