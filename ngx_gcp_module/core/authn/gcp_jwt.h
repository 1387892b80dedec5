
/*
 * JSON Web Tokens (RFC 7519) signed with the algorithms kube-apiserver's
 * JWT authenticators accept: RS256/384/512 (RSA PKCS#1 v1.5), PS256/384/
 * 512 (RSA-PSS, salt as long as the hash when signing, any length when
 * verifying, as go-jose), ES256/384/512 (ECDSA on P-256, P-384, P-521,
 * signatures R || S): compact serialisation "HEADER.PAYLOAD.SIGNATURE",
 * each part base64url without padding, header {"alg":"RS256","kid":"..."}
 * where the key id of a key read from PEM is base64url(SHA-256(DER
 * SubjectPublicKeyInfo)), as service-account tokens.
 *
 * Keys come from PEM files: a signing key is a private key (PKCS#8,
 * PKCS#1 RSA or SEC1 EC); a verification set takes every RSA and P-256
 * key of a file (public keys, certificates and private keys, whose public
 * part is used), as kube-apiserver's --service-account-key-file.  Or from
 * a JSON Web Key Set (an OIDC issuer's jwks_uri): RSA and EC keys of the
 * three curves, with the key ids the set gives them.
 */

#ifndef _GCP_JWT_H_INCLUDED_
#define _GCP_JWT_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


#define GCP_JWT_KID_LEN  43     /* base64url of 32 bytes, unpadded: */
                                /* the id of a key read from PEM */


typedef struct gcp_jwt_key_s  gcp_jwt_key_t;


/* A set of verification keys. */
typedef struct {
    gcp_jwt_key_t  **keys;
    size_t           n;
} gcp_jwt_keys_t;


/* A parsed token: header and claims borrowed from the arena. */
typedef struct {
    json_t          *header;
    json_t          *claims;
    const char      *alg;           /* header "alg" */
    const char      *kid;           /* header "kid", or NULL */
    gcp_str_t        signed_part;   /* "HEADER.PAYLOAD" */
    gcp_str_t        signature;     /* decoded */
} gcp_jwt_t;


/*
 * Loads the private key of a PEM file.  Returns a key owned by the caller
 * (gcp_jwt_key_free()), or NULL with a message in err (errlen bytes).  An
 * RSA key signs RS256 by default, a P-256 key ES256, P-384 ES384, P-521
 * ES512; other keys are refused.
 */
gcp_jwt_key_t *gcp_jwt_key_load_private(const char *path, char *err,
    size_t errlen);

/* Releases a key; NULL is allowed. */
void gcp_jwt_key_free(gcp_jwt_key_t *key);

/* Returns the key's id (GCP_JWT_KID_LEN characters), owned by the key. */
const char *gcp_jwt_key_id(const gcp_jwt_key_t *key);

/* Returns the key's default algorithm: "RS256", "ES256"... (static). */
const char *gcp_jwt_key_alg(const gcp_jwt_key_t *key);

/* Returns 1 when alg is one of the algorithms above, else 0. */
int gcp_jwt_alg_supported(const char *alg);

/*
 * Adds every key of a PEM file to set.  Returns GCP_OK, or an error code
 * with a message in err (a file with no usable key is an error).
 */
int gcp_jwt_keys_load(gcp_jwt_keys_t *set, const char *path, char *err,
    size_t errlen);

/* Adds the public part of key to set.  Returns GCP_OK or GCP_ENOMEM. */
int gcp_jwt_keys_add_public(gcp_jwt_keys_t *set, const gcp_jwt_key_t *key);

/*
 * Adds the keys of a JSON Web Key Set ({"keys":[...]}) to set: RSA keys
 * (n, e) and EC keys (crv P-256, P-384 or P-521, x, y) whose "use" is
 * absent or "sig"; other keys are skipped.  Returns GCP_OK, GCP_EINVALID
 * when jwks has no "keys" list, or GCP_ENOMEM.
 */
int gcp_jwt_keys_from_jwks(gcp_jwt_keys_t *set, const json_t *jwks);

/* Releases every key of set and empties it. */
void gcp_jwt_keys_free(gcp_jwt_keys_t *set);

/*
 * Appends set's public keys to b as a JSON Web Key Set, as kube-apiserver
 * serves /openid/v1/jwks: {"keys":[{"use":"sig","kty":"RSA","kid":...,
 * "alg":"RS256","n":...,"e":...}, {...,"kty":"EC",...,"crv":"P-256",
 * "alg":"ES256","x":...,"y":...}]}.  Returns GCP_OK, GCP_ENOMEM, or
 * GCP_EINTERNAL when OpenSSL cannot export a key.
 */
int gcp_jwt_keys_jwks(gcp_buf_t *b, const gcp_jwt_keys_t *set);


/*
 * Returns the signed token for claims (a JSON object, encoded as is,
 * compact), owned by the arena, or NULL when out of memory or when
 * signing failed.
 */
const char *gcp_jwt_sign(gcp_arena_t *a, const gcp_jwt_key_t *key,
    const json_t *claims);

/* The same with the algorithm alg (NULL also when alg does not suit key). */
const char *gcp_jwt_sign_alg(gcp_arena_t *a, const gcp_jwt_key_t *key,
    const char *alg, const json_t *claims);

/*
 * Parses a compact token without checking its signature.  Returns GCP_OK
 * and fills jwt, or GCP_EBADREQUEST when it is not a well-formed JWS (three
 * base64url parts, JSON objects for header and claims, an "alg"), or
 * GCP_ENOMEM.
 */
int gcp_jwt_parse(gcp_arena_t *a, const char *token, size_t len,
    gcp_jwt_t *jwt);

/*
 * Returns the claims of a compact token without checking anything but
 * their syntax, borrowed from the arena, or NULL (upstream's peek at the
 * issuer before choosing an authenticator).
 */
json_t *gcp_jwt_peek_claims(gcp_arena_t *a, const char *token, size_t len);

/*
 * Checks jwt's signature against the keys of set (the alg must suit the
 * key type).  Returns GCP_OK when one key verifies it, else
 * GCP_EUNAUTHORIZED.
 */
int gcp_jwt_verify(const gcp_jwt_t *jwt, const gcp_jwt_keys_t *set);

/*
 * The same as go-oidc's key sets: only the keys whose id is the token's
 * "kid" (every key when the token has none).  Returns GCP_OK or
 * GCP_EUNAUTHORIZED.
 */
int gcp_jwt_verify_kid(const gcp_jwt_t *jwt, const gcp_jwt_keys_t *set);


#endif /* _GCP_JWT_H_INCLUDED_ */
