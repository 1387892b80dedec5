
/*
 * Fuzzing the structured authentication configuration reader
 * (authn/gcp_auth_jwtconf.c: AuthenticationConfiguration in YAML or JSON,
 * validated as upstream), and the claims of a token mapped to a user with
 * an accepted configuration (authn/gcp_auth_oidc_claims.c).  An accepted
 * configuration must hold what validation promises: at most 64 issuers,
 * each with an https URL, at least one audience, a username claim; a
 * refused one leaves nothing behind and says why.
 *
 * Input: the configuration, then optionally "\n#claims\n" and a claims
 * object mapped with every issuer of the configuration.
 */

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gcp_auth_int.h"
#include "fuzz.h"


static const char * const  disallowed[] = {
    "https://kubernetes.default.svc.cluster.local", NULL
};


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int                 rc;
    char                err[4096];
    size_t              i, len;
    json_t             *claims;
    gcp_user_t         *u;
    const char         *sep, *error;
    gcp_arena_t        *a;
    gcp_oidc_conf_t     conf;
    gcp_oidc_issuer_t  *iss;

    static const char   mark[] = "\n#claims\n";

    /* the configuration ends at the mark */

    sep = NULL;

    for (len = 0; len + sizeof(mark) - 1 <= size; len++) {
        if (memcmp(data + len, mark, sizeof(mark) - 1) == 0) {
            sep = (const char *) data + len;
            break;
        }
    }

    if (sep == NULL) {
        len = size;
    }

    err[0] = '\0';
    rc = gcp_oidc_conf_parse((const char *) data, len, disallowed, &conf,
                             err, sizeof(err));

    if (rc != GCP_OK) {
        FUZZ_CHECK(conf.n == 0 && conf.jwt == NULL);
        FUZZ_CHECK(rc == GCP_ENOMEM || err[0] != '\0');
        return 0;
    }

    FUZZ_CHECK(conf.n <= GCP_OIDC_MAX_AUTHENTICATORS);

    for (i = 0; i < conf.n; i++) {
        iss = &conf.jwt[i];
        FUZZ_CHECK(strncmp(iss->url, "https://", 8) == 0);
        FUZZ_CHECK(iss->audiences != NULL && iss->audiences[0] != NULL);
        FUZZ_CHECK(iss->username.claim != NULL
                   && iss->username.prefix != NULL);
    }

    claims = sep ? json_loadb(sep + sizeof(mark) - 1,
                              size - len - (sizeof(mark) - 1), 0, NULL)
                 : NULL;

    if (json_is_object(claims)) {
        a = gcp_arena_create(0);
        FUZZ_CHECK(a != NULL);

        for (i = 0; i < conf.n; i++) {
            u = gcp_oidc_map_claims(a, &conf.jwt[i], claims, &error);
            FUZZ_CHECK((u == NULL) != (error == NULL));
            FUZZ_CHECK(u == NULL || u->name != NULL);
        }

        gcp_arena_destroy(a);
    }

    json_decref(claims);
    gcp_oidc_conf_free(&conf);

    return 0;
}
