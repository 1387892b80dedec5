
/*
 * CertificateSigningRequest validation, as upstream's
 * pkg/apis/certificates/validation (v1.32): the request parsed and its
 * signature checked, usages, signerName, expirationSeconds, conditions,
 * the issued certificate, and what each update path may change.  Bad
 * data already stored is tolerated on update, as upstream does.
 */

#include <string.h>

#include "gcp_csr.h"
#include "gcp_json.h"
#include "gcp_validation.h"


typedef struct {
    unsigned  approval:1;           /* may set Approved/Denied */
    unsigned  certificate:1;        /* may set status.certificate */
    unsigned  both:1;               /* tolerated: Approved and Denied */
    unsigned  legacy:1;             /* ... the legacy-unknown signer */
    unsigned  dup_types:1;          /* ... duplicate condition types */
    unsigned  empty_type:1;         /* ... condition without type */
    unsigned  any_cert:1;           /* ... any status.certificate */
    unsigned  unknown_usages:1;
    unsigned  dup_usages:1;
} gcp_csr_opts_t;


static const char * const  gcp_csr_usages[] = {
    "any", "cert sign", "client auth", "code signing", "content commitment",
    "crl sign", "data encipherment", "decipher only", "digital signature",
    "email protection", "encipher only", "ipsec end system", "ipsec tunnel",
    "ipsec user", "key agreement", "key encipherment", "microsoft sgc",
    "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing",
    "timestamping", NULL
};


static int
gcp_csr_listed(const char * const *v, const char *s)
{
    for ( /* void */ ; *v; v++) {
        if (strcmp(*v, s) == 0) {
            return 1;
        }
    }

    return 0;
}


static const char *
gcp_csr_str(const json_t *v)
{
    return json_is_string(v) ? json_string_value(v) : "";
}


static const json_t *
gcp_csr_conditions(const json_t *obj)
{
    return json_object_get(json_object_get(obj, "status"), "conditions");
}


const json_t *
gcp_csr_condition(const json_t *obj, const char *type)
{
    size_t   i;
    json_t  *c;

    json_array_foreach(gcp_csr_conditions(obj), i, c) {
        if (strcmp(gcp_csr_str(json_object_get(c, "type")), type) == 0) {
            return c;
        }
    }

    return NULL;
}


int
gcp_csr_has_true(const json_t *obj, const char *type)
{
    size_t   i;
    json_t  *c;

    json_array_foreach(gcp_csr_conditions(obj), i, c) {
        if (strcmp(gcp_csr_str(json_object_get(c, "type")), type) == 0
            && strcmp(gcp_csr_str(json_object_get(c, "status")), "True") == 0)
        {
            return 1;
        }
    }

    return 0;
}


/* The conditions of type in obj, as a new array (NULL: out of memory). */
static json_t *
gcp_csr_find(const json_t *obj, const char *type)
{
    size_t   i;
    json_t  *c, *out;

    out = json_array();

    json_array_foreach(gcp_csr_conditions(obj), i, c) {
        if (out && strcmp(gcp_csr_str(json_object_get(c, "type")), type) == 0)
        {
            json_array_append(out, c);
        }
    }

    return out;
}


/* Go's %#v of a []byte: []byte{0x2d, 0x2d}, or []byte(nil). */
static const char *
gcp_csr_gobytes(gcp_arena_t *a, const json_t *v, const gcp_str_t *b)
{
    size_t     i;
    gcp_buf_t  out;

    if (!json_is_string(v)) {
        return "[]byte(nil)";
    }

    gcp_buf_init(&out, a);
    gcp_buf_addstr(&out, "[]byte{");

    for (i = 0; i < b->len; i++) {
        gcp_buf_printf(&out, i ? ", 0x%02x" : "0x%02x",
                       (unsigned char) b->data[i]);
    }

    gcp_buf_addc(&out, '}');

    return gcp_buf_failed(&out) ? NULL : gcp_buf_cstr(&out);
}


/*
 * The dot-separated labels of seg (len bytes), DNS-1123 labels or (sub)
 * subdomains: the messages of the first bad one, for the field's value
 * seg.
 */
static void
gcp_csr_signer_labels(gcp_ferrs_t *errs, const char *field, const char *seg,
    size_t len, int subdomain)
{
    size_t        i;
    gcp_msgs_t    m;
    const char   *p, *dot, *end;
    gcp_arena_t  *a = errs->arena;

    for (p = seg, end = seg + len; ; p = dot + 1) {
        dot = memchr(p, '.', end - p);
        dot = dot ? dot : end;

        if (subdomain ? gcp_is_dns1123_subdomain(p, dot - p, &m)
                      : gcp_is_dns1123_label(p, dot - p, &m))
        {
            for (i = 0; i < m.n; i++) {
                gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                              gcp_ferr_quote(a, gcp_strndup(a, seg, len)),
                              "validating label %s: %s",
                              gcp_ferr_quote(a, gcp_strndup(a, p, dot - p)),
                              m.msg[i]);
            }

            return;
        }

        if (dot == end) {
            return;
        }
    }
}


/* ValidateSignerName (pkg/apis/core/validation) */
static void
gcp_csr_validate_signer(gcp_ferrs_t *errs, const char *field,
    const char *name)
{
    size_t        dlen;
    const char   *slash;
    gcp_arena_t  *a = errs->arena;

    if (name[0] == '\0') {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, field, NULL, NULL);
        return;
    }

    slash = strchr(name, '/');

    if (slash == NULL || strchr(slash + 1, '/') != NULL) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field, gcp_ferr_quote(a, name),
                      "must be a fully qualified domain and path of the "
                      "form 'example.com/signer-name'");
        return;
    }

    dlen = slash - name;

    if (dlen > 253) {
        gcp_ferrs_add(errs, GCP_FERR_TOO_LONG, field, NULL,
                      "must have at most 253 bytes");
    }

    gcp_csr_signer_labels(errs, field, name, dlen, 0);

    if (memchr(name, '.', dlen) == NULL) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      gcp_ferr_quote(a, gcp_strndup(a, name, dlen)),
                      "should be a domain with at least two segments "
                      "separated by dots");
    }

    gcp_csr_signer_labels(errs, field, slash + 1, strlen(slash + 1), 1);

    if (strlen(name) > 253 + 63 + 1 + 253 + 1) {
        gcp_ferrs_add(errs, GCP_FERR_TOO_LONG, field, NULL,
                      "must have at most %d bytes", 253 + 63 + 1 + 253 + 1);
    }
}


static void
gcp_csr_validate_conditions(gcp_ferrs_t *errs, const json_t *obj,
    const gcp_csr_opts_t *o)
{
    int           approved, denied, only_true;
    size_t        i, j;
    json_t       *c, *d;
    const char   *type, *status, *f;
    gcp_arena_t  *a = errs->arena;

    approved = 0;
    denied = 0;

    json_array_foreach(gcp_csr_conditions(obj), i, c) {
        type = gcp_csr_str(json_object_get(c, "type"));
        status = gcp_csr_str(json_object_get(c, "status"));

        if (!o->empty_type && type[0] == '\0') {
            gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                          gcp_sprintf(a, "status.conditions[%zu].type", i),
                          NULL, NULL);
        }

        only_true = strcmp(type, "Approved") == 0
                    || strcmp(type, "Denied") == 0
                    || strcmp(type, "Failed") == 0;

        f = gcp_sprintf(a, "status.conditions[%zu].status", i);

        if (status[0] == '\0') {
            gcp_ferrs_add(errs, GCP_FERR_REQUIRED, f, NULL, NULL);

        } else if (only_true && strcmp(status, "True") != 0) {
            gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED, f,
                          gcp_ferr_quote(a, status),
                          "supported values: \"True\"");

        } else if (!only_true && strcmp(status, "True") != 0
                   && strcmp(status, "False") != 0
                   && strcmp(status, "Unknown") != 0)
        {
            gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED, f,
                          gcp_ferr_quote(a, status),
                          "supported values: \"False\", \"True\", "
                          "\"Unknown\"");
        }

        f = gcp_sprintf(a, "status.conditions[%zu].type", i);

        if (!o->both) {
            if (strcmp(type, "Approved") == 0) {
                approved = 1;

                if (denied) {
                    gcp_ferrs_add(errs, GCP_FERR_INVALID, f,
                                  gcp_ferr_quote(a, type),
                                  "Approved and Denied conditions are "
                                  "mutually exclusive");
                }

            } else if (strcmp(type, "Denied") == 0) {
                denied = 1;

                if (approved) {
                    gcp_ferrs_add(errs, GCP_FERR_INVALID, f,
                                  gcp_ferr_quote(a, type),
                                  "Approved and Denied conditions are "
                                  "mutually exclusive");
                }
            }
        }

        if (!o->dup_types) {
            json_array_foreach(gcp_csr_conditions(obj), j, d) {
                if (j >= i) {
                    break;
                }

                if (strcmp(gcp_csr_str(json_object_get(d, "type")), type)
                    == 0)
                {
                    gcp_ferrs_add(errs, GCP_FERR_DUPLICATE, f,
                                  gcp_ferr_quote(a, type), NULL);
                    break;
                }
            }
        }
    }
}


/* validateCertificateSigningRequest */
static void
gcp_csr_validate_object(gcp_ferrs_t *errs, const json_t *obj,
    const gcp_csr_opts_t *o)
{
    int            rc;
    size_t         i, j;
    json_t        *u, *w;
    gcp_str_t      req, cert;
    const char    *err, *signer, *us;
    gcp_arena_t   *a = errs->arena;
    const json_t  *spec, *usages, *exp;

    spec = json_object_get(obj, "spec");

    rc = gcp_csr_bytes(a, obj, "spec", "request", &req);

    if (rc == GCP_ENOMEM) {
        errs->nomem = 1;
        return;
    }

    err = NULL;

    if (rc != GCP_OK) {
        err = "PEM block type must be CERTIFICATE REQUEST";

    } else {
        rc = gcp_csr_parse(a, req.data, req.len, NULL, &err);

        if (rc == GCP_ENOMEM) {
            errs->nomem = 1;
            return;
        }
    }

    if (rc != GCP_OK) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.request",
                      gcp_csr_gobytes(a, json_object_get(spec, "request"),
                                      &req),
                      "%s", err);
    }

    usages = json_object_get(spec, "usages");

    if (json_array_size(usages) == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, "spec.usages", NULL, NULL);
    }

    json_array_foreach(usages, i, u) {
        us = gcp_csr_str(u);

        if (!o->unknown_usages && !gcp_csr_listed(gcp_csr_usages, us)) {
            gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED,
                          gcp_sprintf(a, "spec.usages[%zu]", i),
                          gcp_ferr_quote(a, us),
                          "supported values: \"any\", \"cert sign\", "
                          "\"client auth\", \"code signing\", \"content "
                          "commitment\", \"crl sign\", \"data encipherment\","
                          " \"decipher only\", \"digital signature\", "
                          "\"email protection\", \"encipher only\", \"ipsec "
                          "end system\", \"ipsec tunnel\", \"ipsec user\", "
                          "\"key agreement\", \"key encipherment\", "
                          "\"microsoft sgc\", \"netscape sgc\", \"ocsp "
                          "signing\", \"s/mime\", \"server auth\", "
                          "\"signing\", \"timestamping\"");
        }

        if (o->dup_usages) {
            continue;
        }

        json_array_foreach(usages, j, w) {
            if (j >= i) {
                break;
            }

            if (strcmp(gcp_csr_str(w), us) == 0) {
                gcp_ferrs_add(errs, GCP_FERR_DUPLICATE,
                              gcp_sprintf(a, "spec.usages[%zu]", i),
                              gcp_ferr_quote(a, us), NULL);
                break;
            }
        }
    }

    signer = gcp_csr_str(json_object_get(spec, "signerName"));

    if (!o->legacy && strcmp(signer, GCP_CSR_SIGNER_LEGACY_UNKNOWN) == 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.signerName",
                      gcp_ferr_quote(a, signer),
                      "the legacy signerName is not allowed via this API "
                      "version");

    } else {
        gcp_csr_validate_signer(errs, "spec.signerName", signer);
    }

    exp = json_object_get(spec, "expirationSeconds");

    if (json_is_integer(exp) && json_integer_value(exp) < 600) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.expirationSeconds",
                      gcp_sprintf(a, "%lld",
                                  (long long) json_integer_value(exp)),
                      "may not specify a duration less than 600 seconds "
                      "(10 minutes)");
    }

    gcp_csr_validate_conditions(errs, obj, o);

    if (o->any_cert) {
        return;
    }

    rc = gcp_csr_bytes(a, obj, "status", "certificate", &cert);

    if (rc == GCP_ENOMEM) {
        errs->nomem = 1;
        return;
    }

    if (rc == GCP_OK && cert.len == 0) {
        return;
    }

    if (rc == GCP_OK) {
        rc = gcp_csr_check_certificate(a, cert.data, cert.len, NULL, &err);

        if (rc == GCP_ENOMEM) {
            errs->nomem = 1;
            return;
        }

    } else {
        err = "must contain at least one CERTIFICATE PEM block";
    }

    if (rc != GCP_OK) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "status.certificate",
                      "\"<certificate data>\"", "%s", err);
    }
}


static int
gcp_csr_dup_types(const json_t *obj)
{
    size_t   i, j;
    json_t  *c, *d;

    json_array_foreach(gcp_csr_conditions(obj), i, c) {
        json_array_foreach(gcp_csr_conditions(obj), j, d) {
            if (j >= i) {
                break;
            }

            if (json_equal(json_object_get(c, "type"),
                           json_object_get(d, "type")))
            {
                return 1;
            }
        }
    }

    return 0;
}


static int
gcp_csr_empty_type(const json_t *obj)
{
    size_t   i;
    json_t  *c;

    json_array_foreach(gcp_csr_conditions(obj), i, c) {
        if (gcp_csr_str(json_object_get(c, "type"))[0] == '\0') {
            return 1;
        }
    }

    return 0;
}


/* hasUnknownUsage (dup 0) and hasDuplicateUsage (dup 1) */
static int
gcp_csr_bad_usages(const json_t *obj, int dup)
{
    size_t         i, j;
    json_t        *u, *w;
    const json_t  *usages;

    usages = json_object_get(json_object_get(obj, "spec"), "usages");

    json_array_foreach(usages, i, u) {
        if (!dup && !gcp_csr_listed(gcp_csr_usages, gcp_csr_str(u))) {
            return 1;
        }

        json_array_foreach(usages, j, w) {
            if (dup && j < i && json_equal(u, w)) {
                return 1;
            }
        }
    }

    return 0;
}


static int
gcp_csr_same_cert(const json_t *obj, const json_t *old)
{
    const json_t  *x, *y;

    x = json_object_get(json_object_get(obj, "status"), "certificate");
    y = json_object_get(json_object_get(old, "status"), "certificate");

    return gcp_csr_str(x)[0] == '\0' ? gcp_csr_str(y)[0] == '\0'
                                     : json_equal(x, y);
}


/* getValidationOptions */
static void
gcp_csr_options(gcp_arena_t *a, const json_t *obj, const json_t *old,
    gcp_csr_opts_t *o)
{
    const char  *err;
    gcp_str_t    cert;

    memset(o, 0, sizeof(gcp_csr_opts_t));

    if (old == NULL) {
        return;
    }

    o->both = gcp_csr_condition(old, "Approved") != NULL
              && gcp_csr_condition(old, "Denied") != NULL;
    o->legacy = strcmp(gcp_csr_str(json_object_get(json_object_get(old,
                                                   "spec"), "signerName")),
                       GCP_CSR_SIGNER_LEGACY_UNKNOWN) == 0;
    o->dup_types = gcp_csr_dup_types(old);
    o->empty_type = gcp_csr_empty_type(old);
    o->unknown_usages = gcp_csr_bad_usages(old, 0);
    o->dup_usages = gcp_csr_bad_usages(old, 1);

    o->any_cert = gcp_csr_same_cert(obj, old);

    if (!o->any_cert
        && gcp_csr_bytes(a, old, "status", "certificate", &cert) == GCP_OK
        && cert.len
        && gcp_csr_check_certificate(a, cert.data, cert.len, NULL, &err)
           != GCP_OK)
    {
        o->any_cert = 1;
    }
}


void
gcp_csr_validate(gcp_ferrs_t *errs, const json_t *obj, const json_t *old,
    const char *sub)
{
    size_t          i;
    json_t         *x, *y, *nx[3], *ny[3];
    gcp_csr_opts_t  o;
    gcp_arena_t    *a = errs->arena;

    static const char * const  kept[] = { "Approved", "Denied", "Failed" };

    gcp_csr_options(a, obj, old, &o);

    o.approval = sub && strcmp(sub, "approval") == 0;
    o.certificate = sub && strcmp(sub, "status") == 0;

    gcp_csr_validate_object(errs, obj, &o);

    if (old == NULL) {
        return;
    }

    /* the conditions of each kept type, new and old */

    for (i = 0; i < gcp_nelems(kept); i++) {
        nx[i] = gcp_json_arena(a, gcp_csr_find(obj, kept[i]));
        ny[i] = gcp_json_arena(a, gcp_csr_find(old, kept[i]));

        if (nx[i] == NULL || ny[i] == NULL) {
            errs->nomem = 1;
            return;
        }
    }

    /* no Approved, Denied or Failed condition is removed */

    for (i = 0; i < gcp_nelems(kept); i++) {
        if (json_array_size(nx[i]) < json_array_size(ny[i])) {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "status.conditions",
                          NULL, "updates may not remove a condition of "
                          "type %s", gcp_ferr_quote(a, kept[i]));
        }
    }

    /* only /approval adds or changes Approved and Denied */

    for (i = 0; !o.approval && i < 2; i++) {
        x = nx[i];
        y = ny[i];

        if (json_array_size(x) < json_array_size(y)) {
            continue;
        }

        if (json_array_size(x) > json_array_size(y)) {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "status.conditions",
                          NULL, "updates may not add a condition of type %s",
                          gcp_ferr_quote(a, kept[i]));

        } else if (!json_equal(x, y)) {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "status.conditions",
                          NULL, "updates may not modify a condition of "
                          "type %s", gcp_ferr_quote(a, kept[i]));
        }
    }

    if (!gcp_csr_same_cert(obj, old)) {
        if (!o.certificate) {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "status.certificate",
                          NULL, "updates may not set certificate content");

        } else if (gcp_csr_str(json_object_get(json_object_get(old, "status"),
                                               "certificate"))[0])
        {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "status.certificate",
                          NULL, "updates may not modify existing "
                          "certificate content");
        }
    }
}
