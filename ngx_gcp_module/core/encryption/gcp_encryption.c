
/*
 * Reading and writing values through the configuration (see
 * gcp_encryption.h), as k8s.io/apiserver's prefix transformers: the
 * resource's providers in order, each with its prefix; aescbc, aesgcm and
 * secretbox have a second level, one prefix "KEYNAME:" per key.
 *
 * Reading tries every provider (and key) whose prefix the value carries;
 * identity reads anything without "k8s:enc:" and is skipped silently
 * otherwise; the first success wins.  When none succeeds, the errors met
 * are reported as Go's reduced aggregate (one error alone, or "[e1, e2]"
 * without repeats); without any, "no matching prefix found".
 */

#include "gcp_enc_int.h"
#include "gcp_store.h"


#define GCP_ENC_MAX_ERRS  16


typedef struct {
    const char  *msg[GCP_ENC_MAX_ERRS];
    size_t       n;
} gcp_enc_errs_t;


static int
gcp_enc_eq(const char *s, gcp_str_t v)
{
    return strlen(s) == v.len && memcmp(s, v.data, v.len) == 0;
}


static const gcp_enc_rule_t *
gcp_enc_rule(const gcp_encryption_t *e, gcp_str_t key)
{
    size_t                 i, pass;
    gcp_str_t              g, r;
    const gcp_enc_rule_t  *rule;

    if (!gcp_store_key_resource(key, &g, &r)) {
        return NULL;
    }

    /* the resource, then "*.GROUP", then "*.*" */

    for (pass = 0; pass < 3; pass++) {
        for (i = 0; i < e->nrules; i++) {
            rule = &e->rules[i];

            switch (pass) {

            case 0:
                if (gcp_enc_eq(rule->group, g)
                    && gcp_enc_eq(rule->resource, r))
                {
                    return rule;
                }
                break;

            case 1:
                if (gcp_enc_eq(rule->group, g)
                    && strcmp(rule->resource, "*") == 0)
                {
                    return rule;
                }
                break;

            default:
                if (strcmp(rule->group, "*") == 0
                    && strcmp(rule->resource, "*") == 0)
                {
                    return rule;
                }
            }
        }
    }

    return NULL;
}


int
gcp_encryption_covers(const gcp_encryption_t *e, gcp_str_t key)
{
    return gcp_enc_rule(e, key) != NULL;
}


int
gcp_encryption_write(const gcp_encryption_t *e, gcp_str_t key,
    gcp_str_t value, gcp_arena_t *a, gcp_str_t *out, const char **msg)
{
    int                        rc;
    gcp_buf_t                  b;
    const gcp_enc_rule_t      *rule;
    const gcp_enc_provider_t  *pv;

    *msg = NULL;
    *out = value;

    rule = gcp_enc_rule(e, key);

    if (rule == NULL || rule->providers[0]->kind == GCP_ENC_IDENTITY) {
        return GCP_OK;
    }

    pv = rule->providers[0];

    gcp_buf_init(&b, a);
    gcp_buf_addstr(&b, gcp_enc_prefix(pv->kind));
    gcp_buf_addstr(&b, pv->keys[0].name);
    gcp_buf_addc(&b, ':');

    if (gcp_buf_failed(&b)) {
        return GCP_ENOMEM;
    }

    rc = gcp_enc_seal(pv->kind, &pv->keys[0], key, value, &b, msg);
    if (rc != GCP_OK) {
        return rc;
    }

    out->data = b.data;
    out->len = b.len;

    return GCP_OK;
}


static void
gcp_enc_err(gcp_enc_errs_t *errs, const char *msg)
{
    size_t  i;

    for (i = 0; i < errs->n; i++) {
        if (strcmp(errs->msg[i], msg) == 0) {
            return;
        }
    }

    if (errs->n < GCP_ENC_MAX_ERRS) {
        errs->msg[errs->n++] = msg;
    }
}


static const char *
gcp_enc_errs_message(gcp_arena_t *a, const gcp_enc_errs_t *errs)
{
    size_t     i;
    gcp_buf_t  b;

    if (errs->n == 1) {
        return errs->msg[0];
    }

    gcp_buf_init(&b, a);
    gcp_buf_addc(&b, '[');

    for (i = 0; i < errs->n; i++) {
        gcp_buf_printf(&b, "%s%s", i ? ", " : "", errs->msg[i]);
    }

    gcp_buf_addc(&b, ']');

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}


/*
 * One encrypting provider: its keys by prefix.  Returns GCP_OK with *out
 * and *stale (not its first key) set, GCP_ENOMEM, or GCP_EINTERNAL after adding its errors to errs.
 */

static int
gcp_enc_read_keys(const gcp_enc_provider_t *pv, gcp_str_t key,
    gcp_str_t data, gcp_arena_t *a, gcp_str_t *out, int *stale,
    gcp_enc_errs_t *errs)
{
    int                   rc;
    size_t                i, n, before;
    gcp_str_t             body;
    const char           *msg;
    const gcp_enc_key_t  *k;

    before = errs->n;

    for (i = 0; i < pv->nkeys; i++) {
        k = &pv->keys[i];
        n = strlen(k->name);

        if (data.len < n + 1 || memcmp(data.data, k->name, n) != 0
            || data.data[n] != ':')
        {
            continue;
        }

        body.data = data.data + n + 1;
        body.len = data.len - n - 1;

        rc = gcp_enc_open(pv->kind, k, key, body, a, out, &msg);

        if (rc == GCP_OK || rc == GCP_ENOMEM) {
            *stale = i != 0;
            return rc;
        }

        gcp_enc_err(errs, msg);
    }

    if (errs->n == before) {
        gcp_enc_err(errs, gcp_sprintf(a, "no matching key was found for "
                                      "the provided %s transformer",
                                      gcp_enc_family(pv->kind)));
    }

    return GCP_EINTERNAL;
}


int
gcp_encryption_read(const gcp_encryption_t *e, gcp_str_t key,
    gcp_str_t stored, gcp_arena_t *a, gcp_str_t *out, int *stale,
    const char **msg)
{
    int                        rc;
    size_t                     i, n;
    gcp_str_t                  rest;
    const char                *prefix;
    gcp_enc_errs_t             errs;
    const gcp_enc_rule_t      *rule;
    const gcp_enc_provider_t  *pv;

    *msg = NULL;
    *out = stored;
    *stale = 0;

    n = sizeof(GCP_ENC_PREFIX) - 1;

    rule = gcp_enc_rule(e, key);

    if (rule == NULL) {
        /* upstream's default: identity, which refuses encrypted data */

        if (stored.len >= n && memcmp(stored.data, GCP_ENC_PREFIX, n) == 0) {
            *msg = "identity transformer tried to read encrypted data";
            return GCP_EINTERNAL;
        }

        return GCP_OK;
    }

    errs.n = 0;

    for (i = 0; i < rule->nproviders; i++) {
        pv = rule->providers[i];

        if (pv->kind == GCP_ENC_IDENTITY) {
            if (stored.len >= n
                && memcmp(stored.data, GCP_ENC_PREFIX, n) == 0)
            {
                continue;
            }

            *out = stored;
            *stale = i != 0;
            return GCP_OK;
        }

        prefix = gcp_enc_prefix(pv->kind);

        if (stored.len < strlen(prefix)
            || memcmp(stored.data, prefix, strlen(prefix)) != 0)
        {
            continue;
        }

        rest.data = stored.data + strlen(prefix);
        rest.len = stored.len - strlen(prefix);

        rc = gcp_enc_read_keys(pv, key, rest, a, out, stale, &errs);

        if (rc == GCP_OK) {
            *stale = *stale || i != 0;
            return rc;
        }

        if (rc == GCP_ENOMEM) {
            return rc;
        }
    }

    *msg = errs.n ? gcp_enc_errs_message(a, &errs)
                  : "no matching prefix found";

    return *msg ? GCP_EINTERNAL : GCP_ENOMEM;
}
