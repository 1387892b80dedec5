
/*
 * Client certificate chains: what one is worth (a front-proxy certificate,
 * a user of the client CA, nothing), remembered per process.  Parsing and
 * verifying a chain costs far more than the rest of a request; kubectl
 * presents the same one on every request.  An entry is keyed by the
 * SHA-256 of the chain as the adapter hands it over, and kept until the
 * chain's first expiry, at most GCP_AUTH_CERT_TTL seconds (the CAs do not
 * change while the configuration lives).
 */

#include <stdlib.h>

#include "gcp_auth_int.h"
#include "gcp_time.h"


#define GCP_AUTH_CERT_SLOTS  256        /* direct-mapped */
#define GCP_AUTH_CERT_TTL    600


typedef struct {
    unsigned char        digest[GCP_AUTH_SHA256_LEN];
    time_t               expires;       /* 0: empty slot */
    gcp_auth_cert_rc_t   proxy;
    gcp_auth_cert_rc_t   client;

    /* the client user */
    char                *name;
    char               **groups;
    char                *credential_id;
} gcp_auth_cert_entry_t;


struct gcp_auth_cert_cache_s {
    gcp_auth_cert_entry_t  slots[GCP_AUTH_CERT_SLOTS];
};


static void
gcp_auth_cert_entry_clear(gcp_auth_cert_entry_t *e)
{
    free(e->name);
    gcp_auth_strv_free(e->groups);
    free(e->credential_id);
    memset(e, 0, sizeof(gcp_auth_cert_entry_t));
}


void
gcp_auth_cert_cache_free(gcp_auth_cert_cache_t *cache)
{
    size_t  i;

    if (cache == NULL) {
        return;
    }

    for (i = 0; i < GCP_AUTH_CERT_SLOTS; i++) {
        gcp_auth_cert_entry_clear(&cache->slots[i]);
    }

    free(cache);
}


/* The user of an entry, copied into the arena. */

static gcp_user_t *
gcp_auth_cert_entry_user(gcp_arena_t *a, const gcp_auth_cert_entry_t *e)
{
    size_t       i;
    gcp_user_t  *u;

    u = gcp_user_create(a, e->name, "");
    if (u == NULL) {
        return NULL;
    }

    for (i = 0; e->groups[i]; i++) {
        if (gcp_user_add_group(a, u, e->groups[i]) != GCP_OK) {
            return NULL;
        }
    }

    if (gcp_user_add_extra(a, u, GCP_AUTH_CREDENTIAL_ID, e->credential_id)
        != GCP_OK)
    {
        return NULL;
    }

    return u;
}


/* Remembers the client user u in e (malloc'd copies). */

static int
gcp_auth_cert_entry_set_user(gcp_auth_cert_entry_t *e, const gcp_user_t *u)
{
    e->name = strdup(u->name);
    e->groups = gcp_auth_strv(u->groups, NULL);
    e->credential_id = strdup(u->nextra ? u->extra[0].values[0] : "");

    return e->name && e->groups && e->credential_id ? GCP_OK : GCP_ENOMEM;
}


/* Verifies the chain for real. */

static int
gcp_auth_cert_verify(gcp_arena_t *a, const gcp_auth_t *auth, gcp_str_t pem,
    gcp_auth_cert_t *out, time_t *expires)
{
    int          nomem;
    X509        *leaf;
    time_t       t;
    const char  *msg, *cn;

    out->proxy = GCP_AUTH_CERT_ABSENT;
    out->client = GCP_AUTH_CERT_ABSENT;
    out->user = NULL;

    if (auth->proxy_ca) {
        leaf = gcp_auth_x509_verify(a, auth->proxy_ca, pem, &t, &msg);
        out->proxy = GCP_AUTH_CERT_FAILED;

        if (leaf) {
            cn = gcp_auth_x509_cn(a, leaf);
            X509_free(leaf);

            if (cn == NULL) {
                return GCP_ENOMEM;
            }

            if (auth->proxy_names[0] == NULL
                || gcp_auth_strv_has(auth->proxy_names, cn))
            {
                out->proxy = GCP_AUTH_CERT_OK;
                *expires = gcp_min(*expires, t);
            }
        }
    }

    if (auth->client_ca) {
        leaf = gcp_auth_x509_verify(a, auth->client_ca, pem, &t, &msg);
        out->client = GCP_AUTH_CERT_FAILED;

        if (leaf) {
            out->user = gcp_auth_x509_user(a, leaf, &nomem);
            X509_free(leaf);

            if (out->user == NULL && nomem) {
                return GCP_ENOMEM;
            }

            out->client = out->user ? GCP_AUTH_CERT_OK
                                    : GCP_AUTH_CERT_NOUSER;
            *expires = gcp_min(*expires, t);
        }
    }

    return GCP_OK;
}


int
gcp_auth_cert_check(gcp_arena_t *a, gcp_auth_t *auth, gcp_str_t pem,
    gcp_auth_cert_t *out)
{
    int                     rc;
    time_t                  now, expires;
    unsigned char           md[GCP_AUTH_SHA256_LEN];
    gcp_auth_cert_entry_t  *e;

    if (gcp_sha256(pem.data, pem.len, md) != GCP_OK) {
        return GCP_EINTERNAL;
    }

    now = gcp_time_now().tv_sec;

    if (auth->certs == NULL) {
        auth->certs = calloc(1, sizeof(gcp_auth_cert_cache_t));
    }

    e = auth->certs ? &auth->certs->slots[md[0]] : NULL;

    if (e && e->expires > now
        && memcmp(e->digest, md, GCP_AUTH_SHA256_LEN) == 0)
    {
        out->proxy = e->proxy;
        out->client = e->client;
        out->user = NULL;

        if (e->client == GCP_AUTH_CERT_OK) {
            out->user = gcp_auth_cert_entry_user(a, e);

            if (out->user == NULL) {
                return GCP_ENOMEM;
            }
        }

        return GCP_OK;
    }

    expires = now + GCP_AUTH_CERT_TTL;

    rc = gcp_auth_cert_verify(a, auth, pem, out, &expires);

    /*
     * Failures are not remembered (a certificate not valid yet may become
     * valid), except the front proxy's for a valid client certificate.
     */

    if (rc != GCP_OK || e == NULL || expires <= now
        || (out->client == GCP_AUTH_CERT_FAILED
            && out->proxy != GCP_AUTH_CERT_OK))
    {
        return rc;
    }

    gcp_auth_cert_entry_clear(e);

    e->proxy = out->proxy;
    e->client = out->client;

    if (out->user && gcp_auth_cert_entry_set_user(e, out->user) != GCP_OK) {
        gcp_auth_cert_entry_clear(e);
        return GCP_OK;
    }

    memcpy(e->digest, md, GCP_AUTH_SHA256_LEN);
    e->expires = expires;

    return GCP_OK;
}
