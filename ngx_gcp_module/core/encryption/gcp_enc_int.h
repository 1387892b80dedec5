
/*
 * Internals of encryption at rest: the compiled configuration and the
 * providers (gcp_enc_config.c, gcp_enc_provider.c, gcp_encryption.c).
 */

#ifndef _GCP_ENC_INT_H_INCLUDED_
#define _GCP_ENC_INT_H_INCLUDED_


#include "gcp_encryption.h"


#define GCP_ENC_PREFIX      "k8s:enc:"
#define GCP_ENC_MAX_FILE    (1024 * 1024)
#define GCP_ENC_KEY_MAX     32


typedef enum {
    GCP_ENC_IDENTITY = 0,
    GCP_ENC_AESCBC,
    GCP_ENC_AESGCM,
    GCP_ENC_SECRETBOX
} gcp_enc_kind_t;


typedef struct {
    char            *name;
    unsigned char    secret[GCP_ENC_KEY_MAX];
    size_t           len;
    void            *ctx[2];    /* AES: OpenSSL's contexts with the key */
                                /* set, to open and to seal, made on */
                                /* first use in each process */
} gcp_enc_key_t;


typedef struct {
    gcp_enc_kind_t   kind;
    gcp_enc_key_t   *keys;
    size_t           nkeys;
} gcp_enc_provider_t;


/* One group-resource (wildcards "*") and its providers, in order. */
typedef struct {
    char                 *group;
    char                 *resource;
    gcp_enc_provider_t  **providers;    /* borrowed from the entries */
    size_t                nproviders;
} gcp_enc_rule_t;


struct gcp_encryption_s {
    gcp_arena_t         *arena;         /* everything below */
    unsigned             refs;
    unsigned char        hash[GCP_SHA256_LEN];

    gcp_enc_provider_t  *providers;     /* of every entry */
    size_t               nproviders;

    gcp_enc_rule_t      *rules;
    size_t               nrules;
};


/* The provider's prefix, "k8s:enc:aesgcm:v1:" ("" for identity). */
const char *gcp_enc_prefix(gcp_enc_kind_t kind);

/* The provider's name in upstream's messages: "AES", "Secretbox". */
const char *gcp_enc_family(gcp_enc_kind_t kind);

/*
 * Seals in with key k of kind (not identity) for the storage key aad,
 * appending upstream's bytes after the prefixes to b.  Returns GCP_OK,
 * GCP_ENOMEM, or GCP_EINTERNAL with *msg set.
 */
int gcp_enc_seal(gcp_enc_kind_t kind, const gcp_enc_key_t *k, gcp_str_t aad,
    gcp_str_t in, gcp_buf_t *b, const char **msg);

/* Releases what the provider keeps for k (its contexts). */
void gcp_enc_key_free(gcp_enc_key_t *k);

/*
 * Opens in (the bytes after the prefixes) with key k.  Returns GCP_OK with
 * *out in arena memory, GCP_ENOMEM, or GCP_EINTERNAL with *msg set to Go's
 * error text ("cipher: message authentication failed").
 */
int gcp_enc_open(gcp_enc_kind_t kind, const gcp_enc_key_t *k, gcp_str_t aad,
    gcp_str_t in, gcp_arena_t *a, gcp_str_t *out, const char **msg);


#endif /* _GCP_ENC_INT_H_INCLUDED_ */
