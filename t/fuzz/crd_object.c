/*
 * Fuzzing CustomResourceDefinitions and custom resources through the API
 * core in process (the CRD controllers running, as in a worker): a CRD
 * body is created as a dry run (the CRD's own validation: names,
 * versions, schemas, subresources, printer columns), a custom resource
 * body is created, updated and deleted for a served CRD with a
 * structural schema (pruning, defaults, validation, status and scale,
 * selectable fields).
 *
 * Input: a byte of flags (bit 0: the body is a CRD, else a Widget of
 * fuzz.example.com/v1; bit 1: fieldValidation=Strict; bit 2: the Widget
 * in version v1beta1), then the JSON body.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_ctl.h"
#include "fuzz.h"


#define WIDGETS  "/apis/fuzz.example.com/%s/namespaces/default/widgets"


static const char  *widget_schema =
    "{\"openAPIV3Schema\":{\"type\":\"object\",\"properties\":{"
    "\"spec\":{\"type\":\"object\",\"required\":[\"size\"],\"properties\":{"
    "\"size\":{\"type\":\"string\",\"enum\":[\"small\",\"medium\","
    "\"large\"]},"
    "\"replicas\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10,"
    "\"default\":1},"
    "\"color\":{\"type\":\"string\",\"pattern\":\"^[a-z]+$\","
    "\"default\":\"blue\"},"
    "\"tags\":{\"type\":\"array\",\"maxItems\":3,\"items\":{\"type\":"
    "\"string\"},\"x-kubernetes-list-type\":\"set\"},"
    "\"ports\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\","
    "\"x-kubernetes-list-map-keys\":[\"name\"],\"items\":{\"type\":"
    "\"object\",\"required\":[\"name\"],\"properties\":{\"name\":{\"type\":"
    "\"string\"},\"port\":{\"x-kubernetes-int-or-string\":true}}}},"
    "\"when\":{\"type\":\"string\",\"format\":\"date-time\"},"
    "\"memory\":{\"x-kubernetes-int-or-string\":true,\"pattern\":"
    "\"^[0-9]+[KMG]i$\"},"
    "\"template\":{\"type\":\"object\",\"x-kubernetes-embedded-resource\":"
    "true,\"x-kubernetes-preserve-unknown-fields\":true},"
    "\"labels\":{\"type\":\"object\",\"additionalProperties\":{\"type\":"
    "\"string\",\"maxLength\":8}},"
    "\"config\":{\"type\":\"object\","
    "\"x-kubernetes-preserve-unknown-fields\":true}}},"
    "\"status\":{\"type\":\"object\",\"properties\":{\"replicas\":{\"type\":"
    "\"integer\"},\"phase\":{\"type\":\"string\"},\"labelSelector\":"
    "{\"type\":\"string\"}}}}}}";

static const char  *widget_crd_fmt =
    "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":"
    "\"CustomResourceDefinition\",\"metadata\":{\"name\":"
    "\"widgets.fuzz.example.com\"},\"spec\":{\"group\":\"fuzz.example.com\","
    "\"scope\":\"Namespaced\",\"names\":{\"plural\":\"widgets\","
    "\"singular\":\"widget\",\"kind\":\"Widget\",\"shortNames\":[\"wd\"]},"
    "\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,"
    "\"schema\":%s,\"subresources\":{\"status\":{},\"scale\":{"
    "\"specReplicasPath\":\".spec.replicas\",\"statusReplicasPath\":"
    "\".status.replicas\",\"labelSelectorPath\":\".status.labelSelector\"}},"
    "\"selectableFields\":[{\"jsonPath\":\".spec.color\"}],"
    "\"additionalPrinterColumns\":[{\"name\":\"Size\",\"type\":\"string\","
    "\"jsonPath\":\".spec.size\"}]},"
    "{\"name\":\"v1beta1\",\"served\":true,\"storage\":false,"
    "\"schema\":%s}]}}";


static api_env_t          *env;
static gcp_ctl_manager_t  *ctl;


static void
crd_exit(void)
{
    gcp_ctl_stop(ctl, NULL, NULL);
}


static void
crd_init(void)
{
    int          tries;
    char        *crd, path[128];
    api_resp_t  *r;

    env = fuzz_env();

    /* the CRD controllers (names, establishing), as every worker runs */

    ctl = gcp_ctl_start_apiserver(api_env_api(env));
    FUZZ_CHECK(ctl != NULL);
    atexit(crd_exit);

    crd = malloc(strlen(widget_crd_fmt) + 2 * strlen(widget_schema));
    FUZZ_CHECK(crd != NULL);
    sprintf(crd, widget_crd_fmt, widget_schema, widget_schema);

    r = api_call(env, "POST",
                 "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                 "application/json", crd, "application/json");
    if (r->status != 201) {
        fprintf(stderr, "CRD: %d %s\n", r->status, r->body);
    }
    FUZZ_CHECK_RESP(r, r->status == 201);
    api_resp_free(r);
    free(crd);

    /* served once established */

    snprintf(path, sizeof(path), WIDGETS, "v1");

    for (tries = 0; ; tries++) {
        r = api_call(env, "GET", path, NULL, NULL, "application/json");

        if (r->status == 200) {
            api_resp_free(r);
            break;
        }

        api_resp_free(r);
        FUZZ_CHECK(tries < 500);
        api_spin(env, 10);
    }
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char       *input;
    size_t      n;
    uint8_t     flags;
    fuzz_in_t   in;

    if (env == NULL) {
        crd_init();
    }

    in.p = data;
    in.n = size;
    flags = fuzz_byte(&in);

    input = malloc(in.n + 128);
    FUZZ_CHECK(input != NULL);

    if (flags & 1) {
        n = sprintf(input, "/apis/apiextensions.k8s.io/v1/"
                    "customresourcedefinitions?dryRun=All%s\n",
                    (flags & 2) ? "&fieldValidation=Strict" : "");

    } else {
        n = sprintf(input, WIDGETS "%s\n", (flags & 4) ? "v1beta1" : "v1",
                    (flags & 2) ? "?fieldValidation=Strict" : "");
    }

    if (in.n) {
        memcpy(input + n, in.p, in.n);
    }

    fuzz_body((const uint8_t *) input, n + in.n, "application/json");

    free(input);

    return 0;
}
