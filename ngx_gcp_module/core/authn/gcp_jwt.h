
/*
 * JSON Web Tokens (RFC 7519) signed with RS256 (RSA PKCS#1 v1.5, SHA-256)
 * or ES256 (ECDSA P-256, SHA-256), as kube-apiserver's service-account
 * tokens: compact serialisation "HEADER.PAYLOAD.SIGNATURE", each part
 * base64url without padding, header {"alg":"RS256","kid":"..."} where the
 * key id is base64url(SHA-256(DER SubjectPublicKeyInfo)).
 *
 * Keys come from PEM files: a signing key is a private key (PKCS#8,
 * PKCS#1 RSA or SEC1 EC); a verification set takes every key of a file
 * (public keys, certificates and private keys, whose public part is
 * used), as kube-apiserver's --service-account-key-file.
 */

#ifndef _GCP_JWT_H_INCLUDED_
#define _GCP_JWT_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


#define GCP_JWT_KID_LEN  43     /* base64url of 32 bytes, unpadded */


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
 * RSA key signs RS256, a P-256 key ES256; other keys are refused.
 */
gcp_jwt_key_t *gcp_jwt_key_load_private(const char *path, char *err,
    size_t errlen);

/* Releases a key; NULL is allowed. */
void gcp_jwt_key_free(gcp_jwt_key_t *key);

/* Returns the key's id (GCP_JWT_KID_LEN characters), owned by the key. */
const char *gcp_jwt_key_id(const gcp_jwt_key_t *key);

/* Returns "RS256" or "ES256" (static). */
const char *gcp_jwt_key_alg(const gcp_jwt_key_t *key);

/*
 * Adds every key of a PEM file to set.  Returns GCP_OK, or an error code
 * with a message in err (a file with no usable key is an error).
 */
int gcp_jwt_keys_load(gcp_jwt_keys_t *set, const char *path, char *err,
    size_t errlen);

/* Adds the public part of key to set.  Returns GCP_OK or GCP_ENOMEM. */
int gcp_jwt_keys_add_public(gcp_jwt_keys_t *set, const gcp_jwt_key_t *key);

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


#endif /* _GCP_JWT_H_INCLUDED_ */
