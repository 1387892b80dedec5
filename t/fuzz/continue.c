/*
 * Fuzzing continue tokens as lists take them (?continue=), through the API
 * core in process, on a store compacted past the first revisions so that
 * both a live and an expired revision can be reached: decoding, the start
 * key against the list's prefix, the 410 Expired answer with a fresh
 * token.  A token is never worth a 5xx: a malformed one is 400.  The one
 * 500 is kube-apiserver's own for a token whose revision is ahead of the
 * store (etcd's "required revision is a future revision", as for
 * resourceVersionMatch=Exact at a future revision).
 *
 * Input: a byte of flags (bit 0: the rest is the token's decoded JSON,
 * base64url-encoded here as clients carry it, else the token as is; bit 1:
 * the cluster-wide list instead of namespace default's; bit 2: limit=2;
 * bit 3: resourceVersion=0 too), then the token.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_base64.h"
#include "fuzz.h"


static api_env_t  *env;


static void
continue_init(void)
{
    int          i;
    char         body[128];
    api_resp_t  *r;

    env = fuzz_env();

    for (i = 0; i < 6; i++) {
        snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"cm-%d\"}}",
                 i);
        r = api_call(env, "POST", i < 4 ? "/api/v1/namespaces/default/"
                                          "configmaps"
                                        : "/api/v1/namespaces/kube-system/"
                                          "configmaps",
                     "application/json", body, "application/json");
        FUZZ_CHECK_RESP(r, r->status == 201);
        api_resp_free(r);
    }

    fuzz_compact(env);
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char         *token, *path;
    uint8_t       flags;
    fuzz_in_t     in;
    gcp_buf_t     b;
    api_resp_t   *r;
    gcp_arena_t  *a;

    if (env == NULL) {
        continue_init();
    }

    in.p = data;
    in.n = size;
    flags = fuzz_byte(&in);

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    gcp_buf_init(&b, a);

    if (flags & 1) {
        gcp_base64_encode_buf(&b, (const char *) in.p, in.n,
                              GCP_BASE64_RAWURL);
    } else {
        gcp_buf_add(&b, in.p, in.n);
    }

    FUZZ_CHECK(!b.failed);

    token = fuzz_query_escape(b.data ? b.data : "", b.len);

    path = malloc(strlen(token) + 128);
    FUZZ_CHECK(path != NULL);

    sprintf(path, "%s?continue=%s%s%s",
            (flags & 2) ? "/api/v1/configmaps"
                        : "/api/v1/namespaces/default/configmaps",
            token, (flags & 4) ? "&limit=2" : "",
            (flags & 8) ? "&resourceVersion=0" : "");

    r = fuzz_call(env, "GET", path, NULL, NULL, 0, "application/json");
    FUZZ_CHECK_RESP(r, r->status == 200
                       || (r->status >= 400 && r->status < 500)
                       || (r->status == 500 && r->body != NULL
                           && strstr(r->body, "required revision is a "
                                     "future revision") != NULL));

    api_resp_free(r);
    free(path);
    free(token);
    gcp_arena_destroy(a);

    return 0;
}
