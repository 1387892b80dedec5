/*
 * Fuzzing protobuf request bodies (application/vnd.kubernetes.protobuf, as
 * client-go sends built-in types) through the API core in process: create
 * and update, as json_body does for JSON.  Input: "COLLECTION-PATH\nBODY"
 * (see fuzz_body()); a BODY starting with '{' is JSON that is first
 * encoded to protobuf with the server's own encoder, so that mutations of
 * the JSON reach deep into the decoder with well-formed messages, while
 * other bodies are protobuf bytes as they come.
 */

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gcp_protobuf.h"
#include "gcp_schema.h"
#include "fuzz.h"


static gcp_schema_set_t  *set;


static void
protobuf_exit(void)
{
    gcp_schema_set_free(set);
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t          *obj;
    size_t           plen;
    gcp_buf_t        b;
    const char      *err;
    gcp_arena_t     *a;
    const uint8_t   *body, *nl;

    if (set == NULL) {
        set = gcp_schema_set_create();
        FUZZ_CHECK(set != NULL);
        err = NULL;
        FUZZ_CHECK(gcp_schema_set_load_embedded(set, &err) == GCP_OK);
        atexit(protobuf_exit);
    }

    body = data;

    if (size > 0 && data[0] == '/') {
        nl = memchr(data, '\n', size);
        body = nl ? nl + 1 : data + size;
    }

    plen = (size_t) (body - data);

    if (body == data + size || *body != '{') {
        fuzz_body(data, size, "application/vnd.kubernetes.protobuf");
        return 0;
    }

    obj = json_loadb((const char *) body, size - plen, 0, NULL);

    if (obj == NULL) {
        return -1;
    }

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    gcp_buf_init(&b, a);
    gcp_buf_add(&b, (const char *) data, plen);

    if (gcp_protobuf_encode(&b, set, obj) == GCP_OK) {
        fuzz_body((const uint8_t *) b.data, b.len,
                  "application/vnd.kubernetes.protobuf");
    }

    json_decref(obj);
    gcp_arena_destroy(a);

    return 0;
}
