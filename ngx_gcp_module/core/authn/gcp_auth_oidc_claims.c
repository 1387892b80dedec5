
/*
 * The user of a verified token's claims, as upstream's jwtAuthenticator
 * maps them (plugin/pkg/authenticator/token/oidc): claims decoded the way
 * encoding/json decodes them into Go strings and booleans, with its
 * error texts.
 */

#include "gcp_auth_int.h"
#include "gcp_json.h"


/*
 * json.Unmarshal of claim name into a Go string: returns GCP_OK with *out
 * (null leaves it ""), else an error text in *err.
 */

static int
gcp_oidc_claim_string(gcp_arena_t *a, const json_t *claims, const char *name,
    const char **out, const char **err)
{
    json_t  *v;

    *out = "";
    v = json_object_get(claims, name);

    if (v == NULL) {
        *err = "claim not present";
        return GCP_EINVALID;
    }

    if (json_is_null(v)) {
        return GCP_OK;
    }

    if (!json_is_string(v)) {
        *err = gcp_sprintf(a, "json: cannot unmarshal %s into Go value of "
                           "type string", gcp_json_go_kind(v));
        return GCP_EINVALID;
    }

    *out = json_string_value(v);

    return GCP_OK;
}


static const char *
gcp_oidc_prefixed(gcp_arena_t *a, const char *prefix, const char *s)
{
    return (prefix && prefix[0]) ? gcp_sprintf(a, "%s%s", prefix, s)
                                 : gcp_strdup(a, s);
}


static const char *
gcp_oidc_username(gcp_arena_t *a, const gcp_oidc_issuer_t *iss,
    const json_t *claims, const char **error)
{
    json_t      *ev;
    const char  *name, *err, *claim;

    claim = iss->username.claim;

    if (gcp_oidc_claim_string(a, claims, claim, &name, &err) != GCP_OK) {
        *error = gcp_sprintf(a, "oidc: parse username claims \"%s\": %s",
                             claim, err);
        return NULL;
    }

    if (strcmp(claim, "email") == 0) {
        ev = json_object_get(claims, "email_verified");

        if (ev && !json_is_null(ev) && !json_is_boolean(ev)) {
            *error = gcp_sprintf(a, "oidc: parse 'email_verified' claim: "
                                 "json: cannot unmarshal %s into Go value of "
                                 "type bool", gcp_json_go_kind(ev));
            return NULL;
        }

        if (ev && !json_is_true(ev)) {
            *error = "oidc: email not verified";
            return NULL;
        }
    }

    return gcp_oidc_prefixed(a, iss->username.prefix, name);
}


/* Adds the groups of the groups claim (a string or strings) to u. */

static int
gcp_oidc_groups(gcp_arena_t *a, const gcp_oidc_issuer_t *iss,
    const json_t *claims, gcp_user_t *u, const char **error)
{
    size_t       i;
    json_t      *v, *g;
    const char  *claim, *type;

    claim = iss->groups.claim;

    if (claim == NULL) {
        return GCP_OK;
    }

    v = json_object_get(claims, claim);

    if (v == NULL || json_is_null(v)) {
        return GCP_OK;
    }

    if (json_is_string(v)) {
        return gcp_user_add_group(a, u, gcp_oidc_prefixed(a,
                                              iss->groups.prefix,
                                              json_string_value(v)));
    }

    type = gcp_json_go_kind(v);

    json_array_foreach(v, i, g) {
        if (!json_is_string(g) && !json_is_null(g)) {
            break;
        }
    }

    if (!json_is_array(v) || i < json_array_size(v)) {
        /* the []string attempt failed; then the string one's error */
        *error = gcp_sprintf(a, "oidc: parse groups claim \"%s\": json: "
                             "cannot unmarshal %s into Go value of type "
                             "string", claim, type);
        return GCP_EINVALID;
    }

    json_array_foreach(v, i, g) {
        if (gcp_user_add_group(a, u, gcp_oidc_prefixed(a, iss->groups.prefix,
                                   json_is_string(g) ? json_string_value(g)
                                                     : ""))
            != GCP_OK)
        {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


gcp_user_t *
gcp_oidc_map_claims(gcp_arena_t *a, const gcp_oidc_issuer_t *iss,
    const json_t *claims, const char **error)
{
    int          rc;
    size_t       i;
    gcp_user_t  *u;
    const char  *name, *uid, *jti, *v, *err;

    *error = "out of memory";

    name = gcp_oidc_username(a, iss, claims, error);
    if (name == NULL) {
        return NULL;
    }

    u = gcp_user_create(a, name, "");
    if (u == NULL) {
        return NULL;
    }

    rc = gcp_oidc_groups(a, iss, claims, u, error);
    if (rc != GCP_OK) {
        return NULL;
    }

    if (iss->uid.claim) {
        if (gcp_oidc_claim_string(a, claims, iss->uid.claim, &uid, &err)
            != GCP_OK)
        {
            *error = gcp_sprintf(a, "oidc: parse uid claim \"%s\": %s",
                                 iss->uid.claim, err);
            return NULL;
        }

        u->uid = gcp_strdup(a, uid);
    }

    /* the credential id of a "jti" that is a string */

    jti = json_string_value(json_object_get(claims, "jti"));

    if (jti && jti[0]
        && gcp_user_add_extra(a, u, GCP_AUTH_CREDENTIAL_ID,
                                  gcp_sprintf(a, "JTI=%s", jti)) != GCP_OK)
    {
        return NULL;
    }

    /* claimValidationRules with a claim, in the configuration's order */

    for (i = 0; i < iss->nrequired; i++) {
        if (json_object_get(claims, iss->required[i].claim) == NULL) {
            *error = gcp_sprintf(a, "oidc: required claim %s not present in "
                                 "ID token", iss->required[i].claim);
            return NULL;
        }

        if (gcp_oidc_claim_string(a, claims, iss->required[i].claim, &v,
                                  &err) != GCP_OK)
        {
            *error = gcp_sprintf(a, "oidc: parse claim %s: %s",
                                 iss->required[i].claim, err);
            return NULL;
        }

        if (strcmp(v, iss->required[i].value) != 0) {
            *error = gcp_sprintf(a, "oidc: required claim %s value does not "
                                 "match. Got = %s, want = %s",
                                 iss->required[i].claim, v,
                                 iss->required[i].value);
            return NULL;
        }
    }

    *error = NULL;

    return u;
}
