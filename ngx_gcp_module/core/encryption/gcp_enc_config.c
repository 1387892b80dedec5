
/*
 * The EncryptionConfiguration file: decoded as kube-apiserver decodes it
 * (apiserver.config.k8s.io/v1, JSON or YAML, unknown fields ignored),
 * validated as k8s.io/apiserver's ValidateEncryptionConfiguration, then
 * compiled into one provider list per group-resource as
 * encryptionconfig.getTransformerOverrides builds them (entries in order,
 * a resource masked by an earlier "*.GROUP" or "*.*" refused).  KMS
 * providers are refused: ngx_gcp has no KMS plugin client.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <sodium.h>

#include "gcp_base64.h"
#include "gcp_conf_file.h"
#include "gcp_enc_int.h"
#include "gcp_ferr.h"
#include "gcp_json.h"


#define GCP_ENC_API_VERSION  "apiserver.config.k8s.io/v1"
#define GCP_ENC_KIND         "EncryptionConfiguration"

#define GCP_ENC_NO_PROVIDER                                                  \
    "provider does not contain any of the expected providers: KMS, "         \
    "AESGCM, AESCBC, Secretbox, Identity"


typedef struct {
    gcp_arena_t        *a;          /* the configuration's */
    gcp_arena_t        *tmp;        /* the document's */
    gcp_encryption_t   *e;
    gcp_ferrs_t         errs;
    const char         *decode;     /* a decoding error */
} gcp_enc_parse_t;


static const char  *gcp_enc_field_names[] = {
    "aesgcm", "aescbc", "secretbox", "identity", "kms"
};

static const gcp_enc_kind_t  gcp_enc_field_kinds[] = {
    GCP_ENC_AESGCM, GCP_ENC_AESCBC, GCP_ENC_SECRETBOX, GCP_ENC_IDENTITY
};


/* decoding: json.Unmarshal's type errors */


static int
gcp_enc_type(gcp_enc_parse_t *p, const json_t *v, json_type type,
    const char *field, const char *gotype)
{
    if (v == NULL || json_is_null(v) || json_typeof(v) == type) {
        return 1;
    }

    if (p->decode == NULL) {
        p->decode = gcp_sprintf(p->tmp, "json: cannot unmarshal %s into Go "
                                "struct field %s of type %s",
                                gcp_json_go_kind(v), field, gotype);
    }

    return 0;
}


/* validation of the document, as upstream's */


static void
gcp_enc_gr_parse(const char *s, const char **group, const char **resource,
    gcp_arena_t *a)
{
    const char  *dot;

    dot = strchr(s, '.');

    if (dot == NULL) {
        *group = "";
        *resource = s;
        return;
    }

    *group = dot + 1;
    *resource = gcp_strndup(a, s, dot - s);
}


static const char *
gcp_enc_gr_string(gcp_arena_t *a, const char *group, const char *resource)
{
    if (*group == '\0') {
        return strcmp(resource, "*") == 0 ? "*." : resource;
    }

    return gcp_sprintf(a, "%s.%s", resource, group);
}


static void
gcp_enc_check_overlap(gcp_enc_parse_t *p, const json_t *list,
    const char *path)
{
    size_t        i, j, n;
    int           dup, overlap;
    const char  **g, **r;

    n = json_array_size(list);

    if (n < 2) {
        return;
    }

    g = gcp_calloc(p->tmp, n * sizeof(char *));
    r = gcp_calloc(p->tmp, n * sizeof(char *));

    if (g == NULL || r == NULL) {
        p->errs.nomem = 1;
        return;
    }

    for (i = 0; i < n; i++) {
        gcp_enc_gr_parse(json_string_value(json_array_get(list, i)), &g[i],
                         &r[i], p->tmp);
    }

    dup = 0;
    overlap = 0;

    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            if (i == j) {
                continue;
            }

            if (strcmp(g[i], g[j]) == 0 && strcmp(r[i], r[j]) == 0
                && !dup)
            {
                dup = 1;
                continue;
            }

            if (overlap) {
                continue;
            }

            if (strcmp(g[i], "*") == 0 && strcmp(r[i], "*") == 0) {
                overlap = 1;
                continue;
            }

            if (strcmp(g[i], g[j]) != 0) {
                continue;
            }

            if (strcmp(r[i], "*") == 0 || strcmp(r[j], "*") == 0) {
                overlap = 1;
            }
        }
    }

    if (dup) {
        gcp_ferrs_add(&p->errs, GCP_FERR_INVALID, path,
                      gcp_go_strings(p->tmp, list),
                      "the same resource cannot be specified multiple "
                      "times");
    }

    if (overlap) {
        gcp_ferrs_add(&p->errs, GCP_FERR_INVALID, path,
                      gcp_go_strings(p->tmp, list),
                      "using overlapping resources such as 'secrets' and "
                      "'*.' in the same resource list is not allowed as "
                      "they will be masked");
    }
}


static void
gcp_enc_check_names(gcp_enc_parse_t *p, const json_t *list,
    const char *path)
{
    size_t       i;
    const char  *s, *q, *g, *r, *detail, *f;

    for (i = 0; i < json_array_size(list); i++) {
        s = json_string_value(json_array_get(list, i));
        detail = NULL;

        for (q = s; *q; q++) {
            if (*q >= 'A' && *q <= 'Z') {
                detail = "resource name should not contain capital letters";
                break;
            }
        }

        gcp_enc_gr_parse(s, &g, &r, p->tmp);

        if (detail) {
            /* void */

        } else if (strcmp(s, "*") == 0) {
            detail = "use '*.' to encrypt all the resources from core API "
                     "group or *.* to encrypt all resources";

        } else if (strcmp(s, "apiserveripinfo") == 0
                   || strcmp(s, "serviceipallocations") == 0
                   || strcmp(s, "servicenodeportallocations") == 0)
        {
            detail = "resources which do not have REST API/s cannot be "
                     "encrypted";

        } else if (strcmp(g, "events.k8s.io") == 0) {
            detail = "'*.events.k8s.io' objects are stored using the "
                     "'events' API group in etcd. Use 'events' instead in "
                     "the config file";

        } else if (strcmp(g, "extensions") == 0) {
            detail = "'extensions' group has been removed and cannot be "
                     "used for encryption";

        } else if (strcmp(g, "*") == 0 && strcmp(r, "*") != 0) {
            detail = "encrypting the same resource across groups is not "
                     "supported";
        }

        if (detail) {
            f = gcp_sprintf(p->tmp, "%s[%zu]", path, i);
            gcp_ferrs_add(&p->errs, GCP_FERR_INVALID, f,
                          gcp_go_quote(p->tmp, s, strlen(s)), "%s", detail);
        }
    }
}


/* keys[]: validateKeys(), then the compiled key */

static void
gcp_enc_keys(gcp_enc_parse_t *p, gcp_enc_provider_t *pv, const json_t *keys,
    const char *path)
{
    size_t          i, n, len;
    const char     *name, *secret, *f;
    const json_t   *k;
    gcp_enc_key_t  *key;
    unsigned char   buf[GCP_BASE64_DECODED_MAX(4096)];
    ssize_t         dec;

    n = json_array_size(keys);

    if (n == 0) {
        gcp_ferrs_add(&p->errs, GCP_FERR_REQUIRED,
                      gcp_sprintf(p->tmp, "%s.keys", path), NULL,
                      "at least one keys is required");
        return;
    }

    pv->keys = gcp_calloc(p->a, n * sizeof(gcp_enc_key_t));
    if (pv->keys == NULL) {
        p->errs.nomem = 1;
        return;
    }

    pv->nkeys = n;

    for (i = 0; i < n; i++) {
        k = json_array_get(keys, i);
        key = &pv->keys[i];

        f = gcp_sprintf(p->tmp, "%s.keys[%zu]", path, i);

        if (!gcp_enc_type(p, k, JSON_OBJECT, "AESConfiguration.keys",
                          "v1.Key")
            || !gcp_enc_type(p, json_object_get(k, "name"), JSON_STRING,
                             "Key.keys.name", "string")
            || !gcp_enc_type(p, json_object_get(k, "secret"), JSON_STRING,
                             "Key.keys.secret", "string"))
        {
            return;
        }

        name = json_string_value(json_object_get(k, "name"));
        secret = json_string_value(json_object_get(k, "secret"));

        if (name == NULL || *name == '\0') {
            gcp_ferrs_add(&p->errs, GCP_FERR_REQUIRED,
                          gcp_sprintf(p->tmp, "%s.name", f), NULL,
                          "name is a mandatory field for a key");
        }

        key->name = gcp_strdup(p->a, name ? name : "");

        if (secret == NULL || *secret == '\0') {
            gcp_ferrs_add(&p->errs, GCP_FERR_REQUIRED,
                          gcp_sprintf(p->tmp, "%s.secret", f), NULL,
                          "secret is a mandatory field for a key");
            continue;
        }

        len = strlen(secret);
        dec = len > 4096 ? -1
              : gcp_base64_decode_into(secret, len, GCP_BASE64_STD,
                                       (char *) buf, NULL);

        if (dec < 0) {
            gcp_ferrs_add(&p->errs, GCP_FERR_INVALID,
                          gcp_sprintf(p->tmp, "%s.secret", f),
                          "\"REDACTED\"", "secrets must be base64 encoded");
            continue;
        }

        if (pv->kind == GCP_ENC_SECRETBOX ? dec != 32
            : (dec != 16 && dec != 24 && dec != 32))
        {
            gcp_ferrs_add(&p->errs, GCP_FERR_INVALID,
                          gcp_sprintf(p->tmp, "%s.secret", f),
                          "\"REDACTED\"", "secret is not of the expected "
                          "length, got %zd, expected one of %s", dec,
                          pv->kind == GCP_ENC_SECRETBOX ? "[32]"
                          : "[16 24 32]");
            OPENSSL_cleanse(buf, sizeof(buf));
            continue;
        }

        memcpy(key->secret, buf, (size_t) dec);
        key->len = (size_t) dec;
        OPENSSL_cleanse(buf, sizeof(buf));
    }
}


static void
gcp_enc_provider(gcp_enc_parse_t *p, const json_t *v, gcp_enc_provider_t *pv,
    const char *path)
{
    size_t         i, found, which;
    const char    *f;
    const json_t  *c, *keys;

    if (!gcp_enc_type(p, v, JSON_OBJECT, "ResourceConfiguration.providers",
                      "v1.ProviderConfiguration"))
    {
        return;
    }

    found = 0;
    which = 0;

    for (i = 0; i < gcp_nelems(gcp_enc_field_names); i++) {
        c = json_object_get(v, gcp_enc_field_names[i]);

        if (!gcp_enc_type(p, c, JSON_OBJECT, gcp_sprintf(p->tmp,
                              "ProviderConfiguration.providers.%s",
                              gcp_enc_field_names[i]),
                          "v1.Configuration"))
        {
            return;
        }

        if (c && !json_is_null(c)) {
            found++;
            which = i;
        }
    }

    if (found != 1) {
        gcp_ferrs_add(&p->errs, GCP_FERR_INVALID, path,
                      "apiserver.ProviderConfiguration{...}",
                      "%s", found == 0 ? GCP_ENC_NO_PROVIDER
                      : "more than one provider specified in a single "
                        "element, should split into different list "
                        "elements");
        return;
    }

    f = gcp_sprintf(p->tmp, "%s.%s", path, gcp_enc_field_names[which]);

    if (strcmp(gcp_enc_field_names[which], "kms") == 0) {
        gcp_ferrs_add(&p->errs, GCP_FERR_FORBIDDEN, f, NULL,
                      "KMS providers are not supported by ngx_gcp: use "
                      "aescbc, aesgcm or secretbox");
        return;
    }

    pv->kind = gcp_enc_field_kinds[which];

    if (pv->kind == GCP_ENC_IDENTITY) {
        return;
    }

    c = json_object_get(v, gcp_enc_field_names[which]);
    keys = json_object_get(c, "keys");

    if (!gcp_enc_type(p, keys, JSON_ARRAY, "AESConfiguration.keys",
                      "[]v1.Key"))
    {
        return;
    }

    gcp_enc_keys(p, pv, keys, f);
}


/* the compiled rules: one per group-resource, providers appended */

static int
gcp_enc_rule_add(gcp_enc_parse_t *p, const char *group, const char *resource,
    gcp_enc_provider_t *pv, size_t npv, size_t max, char *err,
    size_t errlen)
{
    size_t             i;
    gcp_enc_rule_t    *r;
    gcp_encryption_t  *e = p->e;

    for (i = 0; i < e->nrules; i++) {
        r = &e->rules[i];

        if (strcmp(r->group, group) == 0 && strcmp(r->resource, "*") == 0) {
            snprintf(err, errlen, "resource \"%s\" is masked by earlier "
                     "rule \"%s\"", gcp_enc_gr_string(p->tmp, group,
                                                       resource),
                     gcp_enc_gr_string(p->tmp, group, "*"));
            return GCP_EINVALID;
        }
    }

    for (i = 0; i < e->nrules; i++) {
        r = &e->rules[i];

        if (strcmp(r->group, "*") == 0 && strcmp(r->resource, "*") == 0) {
            snprintf(err, errlen, "resource \"%s\" is masked by earlier "
                     "rule \"*.*\"", gcp_enc_gr_string(p->tmp, group,
                                                        resource));
            return GCP_EINVALID;
        }
    }

    for (i = 0; i < e->nrules; i++) {
        if (strcmp(e->rules[i].group, group) == 0
            && strcmp(e->rules[i].resource, resource) == 0)
        {
            break;
        }
    }

    r = &e->rules[i];

    if (i == e->nrules) {
        r->group = gcp_strdup(p->a, group);
        r->resource = gcp_strdup(p->a, resource);
        r->providers = gcp_calloc(p->a, max * sizeof(gcp_enc_provider_t *));

        if (r->group == NULL || r->resource == NULL || r->providers == NULL)
        {
            snprintf(err, errlen, "out of memory");
            return GCP_ENOMEM;
        }

        e->nrules++;
    }

    for (i = 0; i < npv; i++) {
        r->providers[r->nproviders++] = &pv[i];
    }

    return GCP_OK;
}


static int
gcp_enc_compile(gcp_enc_parse_t *p, const json_t *entries, char *err,
    size_t errlen)
{
    int                  rc;
    size_t               i, j, nres, nprov, off;
    const char          *g, *r;
    const json_t        *en, *list;
    gcp_encryption_t    *e = p->e;

    nres = 0;

    for (i = 0; i < json_array_size(entries); i++) {
        nres += json_array_size(json_object_get(json_array_get(entries, i),
                                                "resources"));
    }

    e->rules = gcp_calloc(p->a, (nres + 1) * sizeof(gcp_enc_rule_t));
    if (e->rules == NULL) {
        snprintf(err, errlen, "out of memory");
        return GCP_ENOMEM;
    }

    off = 0;

    for (i = 0; i < json_array_size(entries); i++) {
        en = json_array_get(entries, i);
        list = json_object_get(en, "resources");
        nprov = json_array_size(json_object_get(en, "providers"));

        for (j = 0; j < json_array_size(list); j++) {
            gcp_enc_gr_parse(json_string_value(json_array_get(list, j)), &g,
                             &r, p->tmp);

            rc = gcp_enc_rule_add(p, g, r, &e->providers[off], nprov,
                                  e->nproviders, err, errlen);
            if (rc != GCP_OK) {
                return rc;
            }
        }

        off += nprov;
    }

    return GCP_OK;
}


/* the document */

static int
gcp_enc_document(gcp_enc_parse_t *p, const json_t *doc)
{
    size_t         i, j, n, off;
    const char    *rp, *pp, *s;
    const json_t  *entries, *en, *list, *provs;

    entries = json_object_get(doc, "resources");

    if (!gcp_enc_type(p, entries, JSON_ARRAY,
                      "EncryptionConfiguration.resources",
                      "[]v1.ResourceConfiguration"))
    {
        return GCP_EINVALID;
    }

    n = 0;

    for (i = 0; i < json_array_size(entries); i++) {
        en = json_array_get(entries, i);

        if (!gcp_enc_type(p, en, JSON_OBJECT,
                          "EncryptionConfiguration.resources",
                          "v1.ResourceConfiguration")
            || !gcp_enc_type(p, json_object_get(en, "resources"), JSON_ARRAY,
                             "ResourceConfiguration.resources.resources",
                             "[]string")
            || !gcp_enc_type(p, json_object_get(en, "providers"), JSON_ARRAY,
                             "ResourceConfiguration.resources.providers",
                             "[]v1.ProviderConfiguration"))
        {
            return GCP_EINVALID;
        }

        list = json_object_get(en, "resources");

        for (j = 0; j < json_array_size(list); j++) {
            if (!gcp_enc_type(p, json_array_get(list, j), JSON_STRING,
                              "ResourceConfiguration.resources.resources",
                              "string"))
            {
                return GCP_EINVALID;
            }

            if (json_is_null(json_array_get(list, j))) {
                json_array_set_new((json_t *) list, j, json_string(""));
            }
        }

        n += json_array_size(json_object_get(en, "providers"));
    }

    p->e->providers = gcp_calloc(p->a, (n + 1) * sizeof(gcp_enc_provider_t));
    if (p->e->providers == NULL) {
        p->errs.nomem = 1;
        return GCP_ENOMEM;
    }

    p->e->nproviders = n;

    if (json_array_size(entries) == 0) {
        gcp_ferrs_add(&p->errs, GCP_FERR_REQUIRED, "resources", NULL,
                      "at least one resources is required");
        return GCP_EINVALID;
    }

    off = 0;

    for (i = 0; i < json_array_size(entries); i++) {
        en = json_array_get(entries, i);
        list = json_object_get(en, "resources");
        provs = json_object_get(en, "providers");

        rp = gcp_sprintf(p->tmp, "resources[%zu].resources", i);
        pp = gcp_sprintf(p->tmp, "resources[%zu].providers", i);

        if (json_array_size(list) == 0) {
            gcp_ferrs_add(&p->errs, GCP_FERR_REQUIRED, rp, NULL,
                          "at least one %s is required", rp);
        }

        gcp_enc_check_overlap(p, list, rp);
        gcp_enc_check_names(p, list, rp);

        if (json_array_size(provs) == 0) {
            gcp_ferrs_add(&p->errs, GCP_FERR_REQUIRED, pp, NULL,
                          "at least one %s is required", pp);
        }

        for (j = 0; j < json_array_size(provs); j++) {
            s = gcp_sprintf(p->tmp, "%s[%zu]", pp, j);
            gcp_enc_provider(p, json_array_get(provs, j),
                             &p->e->providers[off + j], s);

            if (p->decode) {
                return GCP_EINVALID;
            }
        }

        off += json_array_size(provs);
    }

    return p->errs.n || p->errs.nomem ? GCP_EINVALID : GCP_OK;
}


static void
gcp_enc_free(gcp_encryption_t *e)
{
    size_t  i, j;

    if (e == NULL) {
        return;
    }

    for (i = 0; e->providers && i < e->nproviders; i++) {
        for (j = 0; j < e->providers[i].nkeys; j++) {
            gcp_enc_key_free(&e->providers[i].keys[j]);
            OPENSSL_cleanse(e->providers[i].keys[j].secret, GCP_ENC_KEY_MAX);
        }
    }

    gcp_arena_destroy(e->arena);
}


gcp_encryption_t *
gcp_encryption_parse(const char *path, const char *data, size_t len,
    char *err, size_t errlen)
{
    int               rc;
    json_t           *doc;
    const char       *msg, *v, *k;
    gcp_arena_t      *a;
    gcp_enc_parse_t   p;

    if (sodium_init() < 0) {
        snprintf(err, errlen, "libsodium cannot be initialized");
        return NULL;
    }

    if (len == 0) {
        snprintf(err, errlen, "error while parsing file: error while "
                 "loading file: encryption provider configuration file "
                 "\"%s\" is empty", path);
        return NULL;
    }

    memset(&p, 0, sizeof(p));

    a = gcp_arena_create(0);
    p.tmp = gcp_arena_create(0);

    if (a == NULL || p.tmp == NULL) {
        goto nomem;
    }

    p.a = a;
    p.e = gcp_calloc(a, sizeof(gcp_encryption_t));
    if (p.e == NULL) {
        goto nomem;
    }

    p.e->arena = a;
    p.e->refs = 1;
    gcp_ferrs_init(&p.errs, p.tmp);

    if (gcp_sha256(data, len, p.e->hash) != GCP_OK) {
        goto nomem;
    }

    doc = gcp_conf_file_decode(p.tmp, data, len, &msg);

    if (doc == NULL) {
        if (msg == NULL) {
            goto nomem;
        }

        snprintf(err, errlen, "error while parsing file: error decoding "
                 "encryption provider configuration file \"%s\": %s", path,
                 msg);
        goto failed;
    }

    v = json_string_value(json_object_get(doc, "apiVersion"));
    k = json_string_value(json_object_get(doc, "kind"));

    if (k == NULL || *k == '\0') {
        snprintf(err, errlen, "error while parsing file: error decoding "
                 "encryption provider configuration file \"%s\": Object "
                 "'Kind' is missing", path);
        goto failed;
    }

    if (strcmp(k, GCP_ENC_KIND) != 0 || v == NULL
        || strcmp(v, GCP_ENC_API_VERSION) != 0)
    {
        snprintf(err, errlen, "error while parsing file: error decoding "
                 "encryption provider configuration file \"%s\": no kind "
                 "\"%s\" is registered for version \"%s\"", path, k,
                 v ? v : "");
        goto failed;
    }

    rc = gcp_enc_document(&p, doc);

    if (p.errs.nomem) {
        goto nomem;
    }

    if (p.decode) {
        snprintf(err, errlen, "error while parsing file: error decoding "
                 "encryption provider configuration file \"%s\": %s", path,
                 p.decode);
        goto failed;
    }

    if (rc != GCP_OK) {
        msg = gcp_ferrs_aggregate(&p.errs);

        if (msg == NULL) {
            goto nomem;
        }

        snprintf(err, errlen, "error while parsing file: %s", msg);
        goto failed;
    }

    if (gcp_enc_compile(&p, json_object_get(doc, "resources"), err, errlen)
        != GCP_OK)
    {
        goto failed;
    }

    gcp_arena_destroy(p.tmp);

    return p.e;

nomem:

    snprintf(err, errlen, "out of memory");

failed:

    if (p.e) {
        gcp_enc_free(p.e);

    } else {
        gcp_arena_destroy(a);
    }

    gcp_arena_destroy(p.tmp);

    return NULL;
}


gcp_encryption_t *
gcp_encryption_load(const char *path, char *err, size_t errlen)
{
    char              *data, msg[1024];
    size_t             len;
    gcp_encryption_t  *e;

    data = gcp_conf_file_read(path, GCP_ENC_MAX_FILE, &len, msg,
                              sizeof(msg));

    if (data == NULL) {
        snprintf(err, errlen, "error while parsing file: error while "
                 "loading file: %s", msg);
        return NULL;
    }

    e = gcp_encryption_parse(path, data, len, err, errlen);

    OPENSSL_cleanse(data, len);
    free(data);

    return e;
}


gcp_encryption_t *
gcp_encryption_ref(gcp_encryption_t *e)
{
    if (e) {
        e->refs++;
    }

    return e;
}


void
gcp_encryption_unref(gcp_encryption_t *e)
{
    if (e && --e->refs == 0) {
        gcp_enc_free(e);
    }
}


const unsigned char *
gcp_encryption_hash(const gcp_encryption_t *e)
{
    return e->hash;
}
