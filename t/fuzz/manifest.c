/*
 * Fuzzing manifest files (encoding/gcp_manifest.c) as kubectl -f reads
 * them and the bootstrap manifests will: the encodings, the stream of JSON
 * values or YAML documents cut at "---", each document read as a YAML
 * body, lists flattened.  Every entry is an object with kind and
 * apiVersion, or a message, in file order.
 *
 * Input: the file.
 */

#include <jansson.h>

#include "gcp_manifest.h"
#include "fuzz.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t               i, n;
    gcp_arena_t         *a;
    gcp_manifest_obj_t  *objs;

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    objs = NULL;
    n = 0;
    FUZZ_CHECK(gcp_manifest_read(a, (const char *) data, size, &objs, &n)
               == GCP_OK);

    for (i = 0; i < n; i++) {
        FUZZ_CHECK((objs[i].obj == NULL) != (objs[i].msg == NULL));
        FUZZ_CHECK(objs[i].line >= 1);
        FUZZ_CHECK(i == 0 || objs[i].doc >= objs[i - 1].doc);

        if (objs[i].obj != NULL) {
            FUZZ_CHECK(json_is_object(objs[i].obj));
            FUZZ_CHECK(json_is_string(json_object_get(objs[i].obj, "kind")));
            FUZZ_CHECK(json_is_string(json_object_get(objs[i].obj,
                                                      "apiVersion")));
        }
    }

    gcp_arena_destroy(a);

    return 0;
}
