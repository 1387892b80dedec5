
/*
 * certificates.k8s.io/v1 CertificateSigningRequest: the type (with its
 * /approval and /status subresources), its validation, the PEM and
 * PKCS#10 parsing it needs (OpenSSL), the three admission plugins of
 * upstream (CertificateApproval, CertificateSigning,
 * CertificateSubjectRestriction), and the signing of an approved request
 * by a CA, which the signer controller (controllers/gcp_ctl_csr.c) uses.
 */

#ifndef _GCP_CSR_H_INCLUDED_
#define _GCP_CSR_H_INCLUDED_


#include <time.h>
#include <jansson.h>

#include "gcp_core.h"
#include "gcp_ferr.h"
#include "gcp_resource.h"


#define GCP_CSR_GROUP                 "certificates.k8s.io"

#define GCP_CSR_SIGNER_APISERVER_CLIENT "kubernetes.io/kube-apiserver-client"
#define GCP_CSR_SIGNER_LEGACY_UNKNOWN   "kubernetes.io/legacy-unknown"

/* The longest PEM input parsed (a request or a certificate chain). */
#define GCP_CSR_PEM_MAX               (256 << 10)

/* --cluster-signing-duration's default: one year. */
#define GCP_CSR_DEFAULT_DURATION      (8760 * 3600)


extern const gcp_resource_t  gcp_type_certificatesigningrequests;


/* What a parsed request says, arena-owned. */
typedef struct {
    const char         *cn;             /* subject CommonName, or "" */
    const char * const *orgs;           /* subject Organizations, */
    size_t              norgs;          /* NULL-terminated */
    void               *req;            /* the X509_REQ (freed with the */
                                        /* arena) */
} gcp_csr_info_t;


/*
 * Parses pem (len bytes, the spec.request bytes) as upstream's ParseCSR
 * and checks the request's signature (CheckSignature).  Returns GCP_OK
 * with *info filled, GCP_EINVALID with *err (Go's message, arena string),
 * or GCP_ENOMEM.  info may be NULL.
 */
int gcp_csr_parse(gcp_arena_t *a, const char *pem, size_t len,
    gcp_csr_info_t *info, const char **err);

/*
 * Checks pem (len bytes, status.certificate) as upstream's
 * validateCertificate: one or more CERTIFICATE blocks without headers.
 * Returns GCP_OK, or GCP_EINVALID with *err (arena string), or GCP_ENOMEM.
 * If not_after is not NULL it gets the earliest notAfter of the
 * certificates.
 */
int gcp_csr_check_certificate(gcp_arena_t *a, const char *pem, size_t len,
    time_t *not_after, const char **err);

/*
 * The decoded bytes of a base64 field of obj (spec.request,
 * status.certificate): GCP_OK with *out ({NULL, 0} when absent),
 * GCP_EINVALID when not base64, or GCP_ENOMEM.
 */
int gcp_csr_bytes(gcp_arena_t *a, const json_t *obj, const char *parent,
    const char *field, gcp_str_t *out);


/*
 * Validation (pkg/apis/certificates/validation): a create (old NULL), or
 * an update through the main resource (sub NULL), "status" or
 * "approval".
 */
void gcp_csr_validate(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old, const char *sub);

/* Returns the condition of type in obj's status, or NULL (borrowed). */
const json_t *gcp_csr_condition(const json_t *obj, const char *type);

/* Returns 1 when obj has a condition of type whose status is "True". */
int gcp_csr_has_true(const json_t *obj, const char *type);


/* A CA that signs requests (a signer's), loaded from PEM. */
typedef struct gcp_csr_ca_s  gcp_csr_ca_t;

/*
 * Loads a CA from its certificate and private key (PEM).  Returns it
 * (released with gcp_csr_ca_free()), or NULL with an error message in
 * err (errlen bytes): unreadable, not a CA, key and certificate that do
 * not match.
 */
gcp_csr_ca_t *gcp_csr_ca_load(const char *cert_pem, size_t cert_len,
    const char *key_pem, size_t key_len, char *err, size_t errlen);

void gcp_csr_ca_free(gcp_csr_ca_t *ca);

/*
 * Signs the request of obj (an approved CSR) with ca as upstream's
 * PermissiveSigningPolicy: subject, SANs and public key of the request,
 * the key usages of spec.usages, not a CA, valid from now for ttl
 * seconds (backdated 5 minutes when ttl is 8 hours or more), never past
 * the CA's notAfter.  Returns GCP_OK with *pem (the certificate, PEM,
 * arena memory), GCP_EINVALID with *err (the request cannot be signed:
 * a message for a Failed condition), or GCP_ENOMEM.
 */
int gcp_csr_sign(gcp_arena_t *a, gcp_csr_ca_t *ca, const json_t *obj,
    time_t now, long ttl, gcp_str_t *pem, const char **err);

/*
 * The validity signer gives a request asking for expirationSeconds (< 0:
 * none) when its maximum is max: upstream's signer.duration().
 */
long gcp_csr_duration(long expiration_seconds, long max);

/*
 * The kube-apiserver-client signer's checks (validAPIServerClientUsages,
 * and no system:masters organization): returns NULL when the request may
 * be signed, or the message of the Failed condition (arena string).
 */
const char *gcp_csr_apiserver_client_check(gcp_arena_t *a,
    const json_t *obj, const gcp_csr_info_t *info);


/*
 * The CSR cleaner's decision (pkg/controller/certificates/cleaner): 1
 * when obj is due for deletion at now; otherwise 0 and, when *next is
 * not NULL, *next is when it will be (0: never, unless it changes).
 */
int gcp_csr_clean_due(gcp_arena_t *a, const json_t *obj, time_t now,
    time_t *next);


#endif /* _GCP_CSR_H_INCLUDED_ */
