/*
 * Fuzzing the YAML parser (encoding/gcp_yaml_parse.c) directly, as YAML
 * bodies and manifest documents reach it: YAMLToJSON with and without
 * strict duplicate keys.  Either it fails with a message, or it gives a
 * value; strict parsing gives the same value, and reports duplicates only
 * with YAMLToJSONStrict's error.  The value, written as JSON (which is
 * YAML), parses again to an equal value.
 *
 * Input: the YAML text.
 */

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gcp_yaml_parse.h"
#include "fuzz.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int               rc, src;
    char             *text;
    json_t           *v, *sv, *again;
    gcp_arena_t      *a;
    gcp_yaml_info_t   info, sinfo;

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    memset(&info, 0, sizeof(info));
    v = NULL;
    rc = gcp_yaml_parse(a, (const char *) data, size, 0, &v, &info);

    memset(&sinfo, 0, sizeof(sinfo));
    sv = NULL;
    src = gcp_yaml_parse(a, (const char *) data, size, GCP_YAML_STRICT, &sv,
                         &sinfo);

    FUZZ_CHECK(rc == src);

    if (rc != GCP_OK) {
        FUZZ_CHECK(rc == GCP_EBADREQUEST && info.msg != NULL
                   && sinfo.msg != NULL);
        gcp_arena_destroy(a);
        return 0;
    }

    FUZZ_CHECK(v != NULL && sv != NULL && json_equal(v, sv));
    FUZZ_CHECK(sinfo.ndups == 0 || sinfo.strict_msg != NULL);
    FUZZ_CHECK(info.ndups == 0);

    text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    FUZZ_CHECK(text != NULL);

    again = NULL;
    FUZZ_CHECK(gcp_yaml_parse(a, text, strlen(text), GCP_YAML_STRICT, &again,
                              NULL) == GCP_OK);
    FUZZ_CHECK(json_equal(v, again));

    free(text);
    gcp_arena_destroy(a);

    return 0;
}
