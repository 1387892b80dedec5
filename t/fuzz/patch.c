/*
 * Fuzzing the three patch types and server-side apply through the API core
 * in process, as PATCH requests on existing objects of several types (their
 * strategic merge keys and strategies differ): the patch is parsed,
 * applied to the stored object, then the result decoded, defaulted,
 * validated and admitted as any update.
 *
 * Input: a byte choosing the target object (modulo the targets below), a
 * byte of flags (bits 0-1 the patch type: json, merge, strategic, apply;
 * bit 2 the /status subresource; bit 3 fieldValidation=Strict; bit 4 a
 * real write, undone by putting the object back, instead of a dry run),
 * then the patch.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"


typedef struct {
    const char  *collection;
    const char  *name;
    const char  *body;
} patch_target_t;


static const patch_target_t  targets[] = {
    { "/api/v1/namespaces/default/configmaps", "fuzz-cm",
      "{\"metadata\":{\"name\":\"fuzz-cm\",\"labels\":{\"app\":\"a\","
      "\"tier\":\"web\"},\"annotations\":{\"note\":\"x\"},"
      "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
      "\"name\":\"owner\",\"uid\":\"9c0ba8b7-4bd8-4a55-a9e3-4e0f0ba1c1e1\"}],"
      "\"finalizers\":[\"example.com/f\"]},"
      "\"data\":{\"a\":\"1\",\"b\":\"2\"},\"binaryData\":{\"c\":\"AAE=\"}}" },
    { "/api/v1/namespaces/default/secrets", "fuzz-secret",
      "{\"metadata\":{\"name\":\"fuzz-secret\"},\"type\":\"Opaque\","
      "\"data\":{\"k\":\"dmFsdWU=\"},\"stringData\":{\"s\":\"t\"}}" },
    { "/api/v1/namespaces", "fuzz-ns",
      "{\"metadata\":{\"name\":\"fuzz-ns\",\"labels\":{\"a\":\"b\"}}}" },
    { "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
      "fuzz-role",
      "{\"metadata\":{\"name\":\"fuzz-role\"},\"rules\":[{\"apiGroups\":"
      "[\"\"],\"resources\":[\"configmaps\"],\"verbs\":[\"get\",\"list\"]},"
      "{\"apiGroups\":[\"apps\"],\"resources\":[\"deployments\"],"
      "\"resourceNames\":[\"x\"],\"verbs\":[\"*\"]}]}" },
    { "/api/v1/namespaces/default/serviceaccounts", "fuzz-sa",
      "{\"metadata\":{\"name\":\"fuzz-sa\"},\"secrets\":[{\"name\":\"s1\"},"
      "{\"name\":\"s2\"}],\"imagePullSecrets\":[{\"name\":\"p\"}]}" },
    { "/api/v1/namespaces/default/resourcequotas", "fuzz-quota",
      "{\"metadata\":{\"name\":\"fuzz-quota\"},\"spec\":{\"hard\":"
      "{\"configmaps\":\"100\",\"requests.storage\":\"10Gi\"}}}" },
    { "/apis/coordination.k8s.io/v1/namespaces/default/leases",
      "fuzz-lease",
      "{\"metadata\":{\"name\":\"fuzz-lease\"},\"spec\":{\"holderIdentity\":"
      "\"h\",\"leaseDurationSeconds\":15,\"renewTime\":"
      "\"2024-01-01T00:00:00.000000Z\"}}" },
    { "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      "fuzz-crb",
      "{\"metadata\":{\"name\":\"fuzz-crb\"},\"roleRef\":{\"apiGroup\":"
      "\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":"
      "\"view\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"u\","
      "\"apiGroup\":\"rbac.authorization.k8s.io\"}]}" },
};

#define NTARGETS  (sizeof(targets) / sizeof(targets[0]))


static const char  *types[] = {
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
};


static api_env_t  *env;


static void
patch_init(void)
{
    size_t       i;
    api_resp_t  *r;

    env = fuzz_env();

    for (i = 0; i < NTARGETS; i++) {
        r = api_call(env, "POST", targets[i].collection, "application/json",
                     targets[i].body, "application/json");
        FUZZ_CHECK_RESP(r, r->status == 201);
        api_resp_free(r);
    }
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char                  path[256];
    uint8_t               flags;
    fuzz_in_t             in;
    api_resp_t           *r;
    const patch_target_t  *t;

    if (env == NULL) {
        patch_init();
    }

    in.p = data;
    in.n = size;

    t = &targets[fuzz_byte(&in) % NTARGETS];
    flags = fuzz_byte(&in);

    if (in.n == 0) {
        return -1;
    }

    snprintf(path, sizeof(path), "%s/%s%s?fieldManager=fuzz%s%s",
             t->collection, t->name, (flags & 4) ? "/status" : "",
             (flags & 8) ? "&fieldValidation=Strict" : "",
             (flags & 16) ? "" : "&dryRun=All");

    r = fuzz_call(env, "PATCH", path, types[flags & 3], (const char *) in.p,
                  in.n, "application/json");
    FUZZ_CHECK_RESP(r, r->status >= 200 && r->status < 600);

    if ((flags & 16) && r->status == 200) {
        api_resp_free(r);

        snprintf(path, sizeof(path), "%s/%s", t->collection, t->name);
        r = fuzz_call(env, "PUT", path, "application/json", t->body,
                      strlen(t->body), "application/json");
        FUZZ_CHECK_RESP(r, r->status == 200);
    }

    api_resp_free(r);

    return 0;
}
