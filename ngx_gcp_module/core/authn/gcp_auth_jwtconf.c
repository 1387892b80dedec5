
/*
 * The structured authentication configuration (see gcp_auth_oidc.h): the
 * file decoded, then validated as upstream's
 * ValidateAuthenticationConfiguration (k8s.io/apiserver/pkg/apis/
 * apiserver/validation), the field errors aggregated as Go's
 * ErrorList.ToAggregate() prints them.
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "gcp_auth_int.h"
#include "gcp_ferr.h"
#include "gcp_conf_file.h"
#include "gcp_json.h"
#include "gcp_validation.h"
#include "gcp_yaml_parse.h"


#define GCP_OIDC_GROUP     "apiserver.config.k8s.io/"
#define GCP_OIDC_NO_CEL    "CEL expressions are not supported by ngx_gcp " \
                           "yet"


typedef struct {
    gcp_arena_t         *a;
    gcp_ferrs_t          errs;
    const char          *type_err;      /* a field of the wrong type */
    json_t              *empty;         /* {}: an absent object */
    unsigned             nomem:1;
} gcp_oidc_parse_t;


/* Field access: a string member (NULL when absent), its type checked. */

static const char *
gcp_oidc_str(gcp_oidc_parse_t *p, const json_t *obj, const char *path,
    const char *key)
{
    json_t  *v;

    v = json_object_get(obj, key);

    if (v == NULL || json_is_null(v)) {
        return NULL;
    }

    if (!json_is_string(v)) {
        if (p->type_err == NULL) {
            p->type_err = gcp_sprintf(p->a, "%s%s: expected a string", path,
                                      key);
        }

        return NULL;
    }

    return json_string_value(v);
}


/* An object or list member (NULL when absent or of the wrong type). */

static json_t *
gcp_oidc_member(gcp_oidc_parse_t *p, const json_t *obj, const char *path,
    const char *key, int list)
{
    json_t  *v;

    v = json_object_get(obj, key);

    if (v == NULL || json_is_null(v)) {
        return NULL;
    }

    if (list ? !json_is_array(v) : !json_is_object(v)) {
        if (p->type_err == NULL) {
            p->type_err = gcp_sprintf(p->a, "%s%s: expected %s", path, key,
                                      list ? "a list" : "an object");
        }

        return NULL;
    }

    return v;
}


static char *
gcp_oidc_dup(gcp_oidc_parse_t *p, const char *s)
{
    char  *d;

    if (s == NULL) {
        return NULL;
    }

    d = strdup(s);
    if (d == NULL) {
        p->nomem = 1;
    }

    return d;
}


static void
gcp_oidc_invalid(gcp_oidc_parse_t *p, const char *field, const char *value,
    const char *detail)
{
    gcp_ferrs_add(&p->errs, GCP_FERR_INVALID, field,
                  value ? gcp_ferr_quote(p->a, value) : NULL, "%s", detail);
}


static void
gcp_oidc_required(gcp_oidc_parse_t *p, const char *field, const char *detail)
{
    gcp_ferrs_add(&p->errs, GCP_FERR_REQUIRED, field, NULL, "%s", detail);
}


static void
gcp_oidc_duplicate(gcp_oidc_parse_t *p, const char *field, const char *value)
{
    gcp_ferrs_add(&p->errs, GCP_FERR_DUPLICATE, field,
                  gcp_ferr_quote(p->a, value), "%s", "");
}


/* A CEL expression: refused until there is CEL. */

static void
gcp_oidc_no_cel(gcp_oidc_parse_t *p, const char *field, const char *expr)
{
    gcp_oidc_invalid(p, field, expr, GCP_OIDC_NO_CEL);
}


/* validateURL */

static void
gcp_oidc_check_url(gcp_oidc_parse_t *p, const char *field, const char *url,
    const char * const *disallowed)
{
    size_t         n;
    gcp_buf_t      b;
    const char    *rest, *end, *at, *q, *h;
    const char    *const *d;

    for (d = disallowed; d && *d; d++) {
        if (strcmp(*d, url) == 0) {
            gcp_buf_init(&b, p->a);
            gcp_buf_addstr(&b, "URL must not overlap with disallowed "
                           "issuers: [");

            for (n = 0, d = disallowed; *d; d++, n++) {
                gcp_buf_printf(&b, "%s%s", n ? " " : "", *d);
            }

            gcp_buf_addc(&b, ']');
            gcp_oidc_invalid(p, field, url, gcp_buf_dup(&b).data);
            break;
        }
    }

    rest = strstr(url, "://");

    if (rest == NULL || rest - url != 5 || strncmp(url, "https", 5) != 0) {
        gcp_oidc_invalid(p, field, url, "URL scheme must be https");
    }

    rest = rest ? rest + 3 : url;

    /* the authority ends at the path, the query or the fragment */
    end = rest + strcspn(rest, "/?#");
    at = memchr(rest, '@', end - rest);

    if (at) {
        gcp_oidc_invalid(p, field, url, "URL must not contain a username "
                         "or password");
    }

    h = strchr(url, '#');
    q = strchr(url, '?');

    if (q && (h == NULL || q < h) && q[1] && q[1] != '#') {
        gcp_oidc_invalid(p, field, url, "URL must not contain a query");
    }

    if (h && h[1]) {
        gcp_oidc_invalid(p, field, url, "URL must not contain a fragment");
    }
}


/* certificateAuthority: PEM certificates (cert.NewPoolFromBytes). */

static void
gcp_oidc_check_ca(gcp_oidc_parse_t *p, const char *field, const char *pem)
{
    int    n;
    BIO   *bio;
    X509  *x;

    bio = BIO_new_mem_buf(pem, (int) strlen(pem));
    if (bio == NULL) {
        p->nomem = 1;
        return;
    }

    n = 0;

    while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        X509_free(x);
        n++;
    }

    BIO_free(bio);
    ERR_clear_error();

    if (n == 0) {
        gcp_ferrs_add(&p->errs, GCP_FERR_INVALID, field, "\"<omitted>\"",
                      "%s", "data does not contain any valid RSA or ECDSA "
                      "certificates");
    }
}


static void
gcp_oidc_issuer_read(gcp_oidc_parse_t *p, const json_t *v, const char *path,
    const char * const *disallowed, gcp_oidc_issuer_t *iss)
{
    size_t       i, j, n;
    json_t      *auds, *s;
    const char  *url, *disc, *ca, *policy, *egress, *aud;
    const char  *f;

    f = gcp_sprintf(p->a, "%surl", path);
    url = gcp_oidc_str(p, v, path, "url");

    if (url == NULL || url[0] == '\0') {
        gcp_oidc_required(p, f, "");

    } else {
        gcp_oidc_check_url(p, f, url, disallowed);
    }

    disc = gcp_oidc_str(p, v, path, "discoveryURL");

    if (disc && disc[0]) {
        f = gcp_sprintf(p->a, "%sdiscoveryURL", path);
        n = strlen(disc);

        while (n && disc[n - 1] == '/') {
            n--;
        }

        i = url ? strlen(url) : 0;

        while (i && url[i - 1] == '/') {
            i--;
        }

        if (url && url[0] && i == n && strncmp(url, disc, n) == 0) {
            gcp_oidc_invalid(p, f, disc, "discoveryURL must be different "
                             "from URL");
        }

        gcp_oidc_check_url(p, f, disc, NULL);
    }

    /* audiences and audienceMatchPolicy */

    f = gcp_sprintf(p->a, "%saudiences", path);
    auds = gcp_oidc_member(p, v, path, "audiences", 1);
    policy = gcp_oidc_str(p, v, path, "audienceMatchPolicy");
    n = json_array_size(auds);

    if (n == 0) {
        gcp_oidc_required(p, f, gcp_sprintf(p->a, "at least one %s is "
                                            "required", f));

    } else {
        iss->audiences = calloc(n + 1, sizeof(char *));
        if (iss->audiences == NULL) {
            p->nomem = 1;
            return;
        }

        for (i = 0; i < n; i++) {
            s = json_array_get(auds, i);
            aud = json_string_value(s);

            if (aud == NULL) {
                if (p->type_err == NULL) {
                    p->type_err = gcp_sprintf(p->a, "%s[%zu]: expected a "
                                              "string", f, i);
                }

                aud = "";
            }

            if (aud[0] == '\0') {
                gcp_oidc_required(p, gcp_sprintf(p->a, "%s[%zu]", f, i), "");
            }

            for (j = 0; j < i; j++) {
                if (strcmp(iss->audiences[j], aud) == 0) {
                    gcp_oidc_duplicate(p, gcp_sprintf(p->a, "%s[%zu]", f, i),
                                       aud);
                    break;
                }
            }

            iss->audiences[i] = gcp_oidc_dup(p, aud);

            if (iss->audiences[i] == NULL) {
                return;
            }
        }

        f = gcp_sprintf(p->a, "%saudienceMatchPolicy", path);

        if (n > 1 && (policy == NULL || strcmp(policy, "MatchAny") != 0)) {
            gcp_oidc_invalid(p, f, policy ? policy : "", "audienceMatchPolicy "
                             "must be MatchAny for multiple audiences");
        }

        if (n == 1 && policy && policy[0] && strcmp(policy, "MatchAny") != 0)
        {
            gcp_oidc_invalid(p, f, policy, "audienceMatchPolicy must be "
                             "empty or MatchAny for single audience");
        }
    }

    ca = gcp_oidc_str(p, v, path, "certificateAuthority");

    if (ca && ca[0]) {
        gcp_oidc_check_ca(p, gcp_sprintf(p->a, "%scertificateAuthority",
                                         path), ca);
    }

    egress = gcp_oidc_str(p, v, path, "egressSelectorType");

    if (egress && egress[0]) {
        f = gcp_sprintf(p->a, "%segressSelectorType", path);
        gcp_oidc_invalid(p, f, egress, "egress selector is not supported "
                         "when StructuredAuthenticationConfigurationEgress"
                         "Selector feature gate is disabled");

        if (strcmp(egress, "controlplane") != 0
            && strcmp(egress, "cluster") != 0)
        {
            gcp_oidc_invalid(p, f, egress, "egress selector must be either "
                             "controlplane or cluster");
        }
    }

    iss->url = gcp_oidc_dup(p, url ? url : "");
    iss->discovery_url = (disc && disc[0]) ? gcp_oidc_dup(p, disc) : NULL;
    iss->ca_pem = (ca && ca[0]) ? gcp_oidc_dup(p, ca) : NULL;
}


static void
gcp_oidc_rules_read(gcp_oidc_parse_t *p, const json_t *rules,
    const char *path, gcp_oidc_issuer_t *iss)
{
    size_t       i, j, n;
    json_t      *r;
    const char  *f, *claim, *expr, *msg, *value, *at;

    n = json_array_size(rules);

    if (n == 0) {
        return;
    }

    iss->required = calloc(n, sizeof(gcp_oidc_required_t));
    if (iss->required == NULL) {
        p->nomem = 1;
        return;
    }

    for (i = 0; i < n; i++) {
        r = json_array_get(rules, i);
        f = gcp_sprintf(p->a, "%s[%zu]", path, i);
        at = gcp_sprintf(p->a, "%s.", f);

        if (!json_is_object(r)) {
            if (p->type_err == NULL) {
                p->type_err = gcp_sprintf(p->a, "%s: expected an object", f);
            }

            continue;
        }

        claim = gcp_oidc_str(p, r, at, "claim");
        expr = gcp_oidc_str(p, r, at, "expression");
        msg = gcp_oidc_str(p, r, at, "message");
        value = gcp_oidc_str(p, r, at, "requiredValue");

        claim = claim ? claim : "";
        expr = expr ? expr : "";

        if (claim[0] && expr[0]) {
            gcp_oidc_invalid(p, f, claim, "claim and expression can't both "
                             "be set");

        } else if (claim[0] == '\0' && expr[0] == '\0') {
            gcp_oidc_required(p, f, "claim or expression is required");

        } else if (claim[0]) {
            if (msg && msg[0]) {
                gcp_oidc_invalid(p, gcp_sprintf(p->a, "%smessage", at), msg,
                                 "may not be specified when claim is set");
            }

            for (j = 0; j < iss->nrequired; j++) {
                if (strcmp(iss->required[j].claim, claim) == 0) {
                    gcp_oidc_duplicate(p, gcp_sprintf(p->a, "%sclaim", at),
                                       claim);
                    break;
                }
            }

            iss->required[iss->nrequired].claim = gcp_oidc_dup(p, claim);
            iss->required[iss->nrequired].value = gcp_oidc_dup(p,
                                                    value ? value : "");
            iss->nrequired++;

        } else {
            if (value && value[0]) {
                gcp_oidc_invalid(p, gcp_sprintf(p->a, "%srequiredValue", at),
                                 value, "may not be specified when "
                                 "expression is set");
            }

            gcp_oidc_no_cel(p, gcp_sprintf(p->a, "%sexpression", at), expr);
        }
    }
}


/* validatePrefixClaimOrExpression */

static void
gcp_oidc_mapping_read(gcp_oidc_parse_t *p, const json_t *m, const char *name,
    const char *path, int required, int prefixed, gcp_oidc_claim_t *out)
{
    json_t      *v;
    const char  *f, *at, *claim, *expr, *prefix;

    f = gcp_sprintf(p->a, "%s%s", path, name);
    at = gcp_sprintf(p->a, "%s.", f);

    v = gcp_oidc_member(p, m, path, name, 0);

    claim = v ? gcp_oidc_str(p, v, at, "claim") : NULL;
    expr = v ? gcp_oidc_str(p, v, at, "expression") : NULL;
    prefix = (v && prefixed) ? gcp_oidc_str(p, v, at, "prefix") : NULL;

    claim = claim ? claim : "";
    expr = expr ? expr : "";

    if (claim[0] && expr[0]) {
        gcp_oidc_invalid(p, f, "", "claim and expression can't both be set");

    } else if (claim[0] == '\0' && expr[0] == '\0') {
        if (required) {
            gcp_oidc_required(p, f, "claim or expression is required");
        }

    } else if (expr[0]) {
        if (prefix) {
            gcp_oidc_invalid(p, gcp_sprintf(p->a, "%sprefix", at), prefix,
                             "may not be specified when expression is set");
        }

        gcp_oidc_no_cel(p, gcp_sprintf(p->a, "%sexpression", at), expr);

    } else if (prefixed && prefix == NULL) {
        gcp_oidc_required(p, gcp_sprintf(p->a, "%sprefix", at), "prefix is "
                          "required when claim is set. It can be set to an "
                          "empty string to disable prefixing");
    }

    if (claim[0]) {
        out->claim = gcp_oidc_dup(p, claim);
    }

    out->prefix = gcp_oidc_dup(p, prefix);
}


/* Returns 1 when key's domain is kubernetes.io, k8s.io or theirs. */

static int
gcp_oidc_k8s_domain(const char *key)
{
    size_t       n, i;
    const char  *slash;

    static const char * const  reserved[] = { "kubernetes.io", "k8s.io" };

    slash = strchr(key, '/');
    if (slash == NULL) {
        return 0;
    }

    n = slash - key;

    for (i = 0; i < 2; i++) {
        size_t  r = strlen(reserved[i]);

        if ((n == r && strncmp(key, reserved[i], r) == 0)
            || (n > r && key[n - r - 1] == '.'
                && strncmp(slash - r, reserved[i], r) == 0))
        {
            return 1;
        }
    }

    return 0;
}


static void
gcp_oidc_extra_read(gcp_oidc_parse_t *p, const json_t *extra,
    const char *path)
{
    size_t       i, j, n;
    json_t      *e;
    gcp_msgs_t   m;
    const char  *f, *at, *key, *expr, *slash, *k2, *c;

    n = json_array_size(extra);

    for (i = 0; i < n; i++) {
        e = json_array_get(extra, i);
        f = gcp_sprintf(p->a, "%sextra[%zu]", path, i);
        at = gcp_sprintf(p->a, "%s.", f);

        if (!json_is_object(e)) {
            if (p->type_err == NULL) {
                p->type_err = gcp_sprintf(p->a, "%s: expected an object", f);
            }

            continue;
        }

        key = gcp_oidc_str(p, e, at, "key");
        expr = gcp_oidc_str(p, e, at, "valueExpression");
        key = key ? key : "";

        /* IsDomainPrefixedPath */

        slash = strchr(key, '/');

        if (key[0] == '\0') {
            gcp_oidc_required(p, gcp_sprintf(p->a, "%skey", at), "");

        } else if (slash == NULL || slash == key || slash[1] == '\0') {
            gcp_oidc_invalid(p, gcp_sprintf(p->a, "%skey", at), key,
                             "must be a domain-prefixed path (such as "
                             "\"acme.io/foo\")");

        } else if (gcp_is_dns1123_subdomain(key, slash - key, &m)) {
            gcp_oidc_invalid(p, gcp_sprintf(p->a, "%skey", at),
                             gcp_strndup(p->a, key, slash - key), m.msg[0]);
        }

        for (c = key; *c; c++) {
            if (isupper((unsigned char) *c)) {
                gcp_oidc_invalid(p, gcp_sprintf(p->a, "%skey", at), key,
                                 "must be lowercase");
                break;
            }
        }

        if (gcp_oidc_k8s_domain(key)) {
            gcp_oidc_invalid(p, gcp_sprintf(p->a, "%skey", at), key,
                             "k8s.io, kubernetes.io and their subdomains are "
                             "reserved for Kubernetes use");
        }

        for (j = 0; j < i; j++) {
            k2 = json_string_value(json_object_get(json_array_get(extra, j),
                                                   "key"));

            if (k2 && strcmp(k2, key) == 0) {
                break;
            }
        }

        if (j < i) {
            gcp_oidc_duplicate(p, gcp_sprintf(p->a, "%skey", at), key);
            continue;
        }

        if (expr == NULL || expr[0] == '\0') {
            gcp_oidc_required(p, gcp_sprintf(p->a, "%svalueExpression", at),
                              "");
            continue;
        }

        gcp_oidc_no_cel(p, gcp_sprintf(p->a, "%svalueExpression", at), expr);
    }
}


static void
gcp_oidc_user_rules_read(gcp_oidc_parse_t *p, const json_t *rules,
    const char *path)
{
    size_t       i, n;
    json_t      *r;
    const char  *at, *expr;

    n = json_array_size(rules);

    for (i = 0; i < n; i++) {
        r = json_array_get(rules, i);
        at = gcp_sprintf(p->a, "%s[%zu].", path, i);
        expr = json_is_object(r) ? gcp_oidc_str(p, r, at, "expression")
                                 : NULL;

        if (expr == NULL || expr[0] == '\0') {
            gcp_oidc_required(p, gcp_sprintf(p->a, "%sexpression", at), "");
            continue;
        }

        gcp_oidc_no_cel(p, gcp_sprintf(p->a, "%sexpression", at), expr);
    }
}


static void
gcp_oidc_jwt_read(gcp_oidc_parse_t *p, const json_t *v, size_t i,
    const char * const *disallowed, gcp_oidc_issuer_t *iss)
{
    json_t      *issuer, *m;
    const char  *path, *mp;

    path = gcp_sprintf(p->a, "jwt[%zu].", i);

    if (!json_is_object(v)) {
        if (p->type_err == NULL) {
            p->type_err = gcp_sprintf(p->a, "jwt[%zu]: expected an object",
                                      i);
        }

        return;
    }

    issuer = gcp_oidc_member(p, v, path, "issuer", 0);
    gcp_oidc_issuer_read(p, issuer ? issuer : p->empty,
                         gcp_sprintf(p->a, "%sissuer.", path), disallowed,
                         iss);

    gcp_oidc_rules_read(p, gcp_oidc_member(p, v, path,
                                           "claimValidationRules", 1),
                        gcp_sprintf(p->a, "%sclaimValidationRules", path),
                        iss);

    m = gcp_oidc_member(p, v, path, "claimMappings", 0);
    mp = gcp_sprintf(p->a, "%sclaimMappings.", path);

    gcp_oidc_mapping_read(p, m, "username", mp, 1, 1, &iss->username);
    gcp_oidc_mapping_read(p, m, "groups", mp, 0, 1, &iss->groups);
    gcp_oidc_mapping_read(p, m, "uid", mp, 0, 0, &iss->uid);

    gcp_oidc_extra_read(p, m ? gcp_oidc_member(p, m, mp, "extra", 1) : NULL,
                        mp);

    gcp_oidc_user_rules_read(p, gcp_oidc_member(p, v, path,
                                                "userValidationRules", 1),
                             gcp_sprintf(p->a, "%suserValidationRules",
                                         path));
}


/* The errors as Go's ErrorList.ToAggregate().Error() prints them. */

static void
gcp_oidc_errors(gcp_oidc_parse_t *p, char *err, size_t errlen)
{
    gcp_buf_t          b;
    const gcp_ferr_t  *e;

    gcp_buf_init(&b, p->a);

    if (p->errs.n > 1) {
        gcp_buf_addc(&b, '[');
    }

    for (e = p->errs.first; e; e = e->next) {
        gcp_buf_printf(&b, "%s%s: %s", e == p->errs.first ? "" : ", ",
                       e->field, gcp_ferr_cause_message(p->a, e));
    }

    if (p->errs.n > 1) {
        gcp_buf_addc(&b, ']');
    }

    snprintf(err, errlen, "%s", gcp_buf_failed(&b) ? "out of memory"
                                                   : gcp_buf_dup(&b).data);
}


int
gcp_oidc_conf_parse(const char *data, size_t len,
    const char * const *disallowed, gcp_oidc_conf_t *conf, char *err,
    size_t errlen)
{
    int                rc;
    size_t             i, j, n;
    json_t            *doc, *jwt;
    const char        *msg, *av, *kind;
    gcp_oidc_parse_t   p;

    memset(conf, 0, sizeof(gcp_oidc_conf_t));
    memset(&p, 0, sizeof(p));

    p.a = gcp_arena_create(0);
    if (p.a == NULL) {
        snprintf(err, errlen, "out of memory");
        return GCP_ENOMEM;
    }

    gcp_ferrs_init(&p.errs, p.a);

    rc = GCP_EINVALID;

    doc = gcp_conf_file_decode(p.a, data, len, &msg);

    if (doc == NULL) {
        snprintf(err, errlen, "%s", msg ? msg : "out of memory");
        rc = msg ? GCP_EINVALID : GCP_ENOMEM;
        goto done;
    }

    av = json_string_value(json_object_get(doc, "apiVersion"));
    kind = json_string_value(json_object_get(doc, "kind"));

    if (av == NULL || kind == NULL || av[0] == '\0' || kind[0] == '\0') {
        snprintf(err, errlen, "Object 'Kind' is missing in the "
                 "configuration (apiVersion and kind: %s"
                 "v1beta1 AuthenticationConfiguration)", GCP_OIDC_GROUP);
        goto done;
    }

    if (strcmp(kind, "AuthenticationConfiguration") != 0
        || (strcmp(av, GCP_OIDC_GROUP "v1beta1") != 0
            && strcmp(av, GCP_OIDC_GROUP "v1alpha1") != 0))
    {
        snprintf(err, errlen, "no kind \"%s\" is registered for version "
                 "\"%s\"", kind, av);
        goto done;
    }

    jwt = gcp_oidc_member(&p, doc, "", "jwt", 1);
    n = json_array_size(jwt);

    if (json_object_get(doc, "anonymous")
        && !json_is_null(json_object_get(doc, "anonymous")))
    {
        gcp_ferrs_add(&p.errs, GCP_FERR_FORBIDDEN, "anonymous", NULL, "%s",
                      "not supported by ngx_gcp: use gcp_anonymous_auth");
    }

    if (n > GCP_OIDC_MAX_AUTHENTICATORS) {
        gcp_ferrs_add(&p.errs, GCP_FERR_TOO_MANY, "jwt",
                      gcp_sprintf(p.a, "%zu", n), "must have at most %d "
                      "items", GCP_OIDC_MAX_AUTHENTICATORS);
        n = 0;
    }

    if (n) {
        conf->jwt = calloc(n, sizeof(gcp_oidc_issuer_t));
        if (conf->jwt == NULL) {
            snprintf(err, errlen, "out of memory");
            rc = GCP_ENOMEM;
            goto done;
        }
    }

    p.empty = json_object();
    if (p.empty == NULL) {
        p.nomem = 1;
    }

    for (i = 0; i < n && !p.nomem; i++) {
        conf->n++;
        gcp_oidc_jwt_read(&p, json_array_get(jwt, i), i, disallowed,
                          &conf->jwt[i]);

        for (j = 0; j < i; j++) {
            if (conf->jwt[i].url && conf->jwt[j].url
                && strcmp(conf->jwt[i].url, conf->jwt[j].url) == 0)
            {
                gcp_oidc_duplicate(&p, gcp_sprintf(p.a, "jwt[%zu].issuer.url",
                                                   i), conf->jwt[i].url);
                break;
            }
        }

        for (j = 0; conf->jwt[i].discovery_url && j < i; j++) {
            if (conf->jwt[j].discovery_url
                && strcmp(conf->jwt[i].discovery_url,
                          conf->jwt[j].discovery_url) == 0)
            {
                gcp_oidc_duplicate(&p, gcp_sprintf(p.a,
                                            "jwt[%zu].issuer.discoveryURL", i),
                                   conf->jwt[i].discovery_url);
                break;
            }
        }
    }

    if (p.nomem || p.errs.nomem) {
        snprintf(err, errlen, "out of memory");
        rc = GCP_ENOMEM;
        goto done;
    }

    if (p.type_err) {
        snprintf(err, errlen, "%s", p.type_err);
        goto done;
    }

    if (p.errs.n) {
        gcp_oidc_errors(&p, err, errlen);
        goto done;
    }

    rc = GCP_OK;

done:

    if (rc != GCP_OK) {
        gcp_oidc_conf_free(conf);
    }

    json_decref(p.empty);
    gcp_arena_destroy(p.a);

    return rc;
}


int
gcp_oidc_conf_load(const char *path, const char * const *disallowed,
    gcp_oidc_conf_t *conf, char *err, size_t errlen)
{
    int      rc;
    char    *data, msg[1024];
    size_t   len;

    memset(conf, 0, sizeof(gcp_oidc_conf_t));

    data = gcp_conf_file_read(path, GCP_OIDC_MAX_FILE, &len, err, errlen);
    if (data == NULL) {
        return GCP_EINVALID;
    }

    rc = gcp_oidc_conf_parse(data, len, disallowed, conf, msg, sizeof(msg));
    free(data);

    if (rc != GCP_OK) {
        snprintf(err, errlen, "\"%s\": %s", path, msg);
    }

    return rc;
}


static void
gcp_oidc_claim_free(gcp_oidc_claim_t *c)
{
    free(c->claim);
    free(c->prefix);
}


void
gcp_oidc_conf_free(gcp_oidc_conf_t *conf)
{
    size_t              i, j;
    gcp_oidc_issuer_t  *iss;

    for (i = 0; i < conf->n; i++) {
        iss = &conf->jwt[i];

        free(iss->url);
        free(iss->discovery_url);
        free(iss->ca_pem);
        gcp_auth_strv_free(iss->audiences);
        gcp_oidc_claim_free(&iss->username);
        gcp_oidc_claim_free(&iss->groups);
        gcp_oidc_claim_free(&iss->uid);

        for (j = 0; j < iss->nrequired; j++) {
            free(iss->required[j].claim);
            free(iss->required[j].value);
        }

        free(iss->required);
    }

    free(conf->jwt);
    conf->jwt = NULL;
    conf->n = 0;
}


char *
gcp_oidc_discovery_url(const gcp_oidc_issuer_t *iss)
{
    size_t  n;
    char   *u;

    if (iss->discovery_url) {
        return strdup(iss->discovery_url);
    }

    /* go-oidc: strings.TrimSuffix(issuer, "/") + "/.well-known/..." */

    n = strlen(iss->url);

    if (n && iss->url[n - 1] == '/') {
        n--;
    }

    u = malloc(n + sizeof("/.well-known/openid-configuration"));

    if (u) {
        memcpy(u, iss->url, n);
        strcpy(u + n, "/.well-known/openid-configuration");
    }

    return u;
}
