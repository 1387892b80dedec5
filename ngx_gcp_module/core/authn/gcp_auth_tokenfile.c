
/*
 * Static bearer tokens: kube-apiserver's --token-auth-file, a CSV file of
 * "token,user,uid[,\"group1,group2\"]" records (Go's encoding/csv rules:
 * quoted fields, "" inside quotes, blank lines skipped).  Only SHA-256
 * digests of the tokens are kept; a lookup compares the digest of the
 * presented token with every one of them in constant time.
 */

#include <stdio.h>
#include <stdlib.h>

#include <openssl/crypto.h>

#include "gcp_auth_int.h"


#define GCP_TOKENFILE_MAX_SIZE  (64 << 20)
#define GCP_TOKENFILE_MAX_COLS  64


typedef struct {
    char        *p;
    char        *end;
    size_t       line;
    char        *fields[GCP_TOKENFILE_MAX_COLS];
    size_t       nfields;
    const char  *err;
} gcp_csv_t;


/*
 * Reads one record, splitting fields in place (they are NUL-terminated in
 * the file buffer, quotes removed).  Returns 1 for a record, 0 at the end,
 * -1 on a syntax error (csv->err).
 */

static int
gcp_csv_record(gcp_csv_t *csv)
{
    char  *w, *field;
    int    quoted;

    /* blank lines are skipped */

    while (csv->p < csv->end && (*csv->p == '\n' || *csv->p == '\r')) {
        if (*csv->p == '\n') {
            csv->line++;
        }

        csv->p++;
    }

    if (csv->p >= csv->end) {
        return 0;
    }

    csv->nfields = 0;

    for ( ;; ) {
        field = csv->p;
        w = csv->p;
        quoted = 0;

        if (csv->p < csv->end && *csv->p == '"') {
            quoted = 1;
            csv->p++;

            for ( ;; ) {
                if (csv->p >= csv->end) {
                    csv->err = "extraneous or missing \" in quoted-field";
                    return -1;
                }

                if (*csv->p == '"') {
                    if (csv->p + 1 < csv->end && csv->p[1] == '"') {
                        *w++ = '"';
                        csv->p += 2;
                        continue;
                    }

                    csv->p++;
                    break;
                }

                if (*csv->p == '\n') {
                    csv->line++;
                }

                *w++ = *csv->p++;
            }
        }

        while (csv->p < csv->end && *csv->p != ',' && *csv->p != '\n') {
            if (quoted && !(*csv->p == '\r' && (csv->p + 1 == csv->end
                                                || csv->p[1] == '\n')))
            {
                csv->err = "extraneous or missing \" in quoted-field";
                return -1;
            }

            if (*csv->p == '"') {
                csv->err = "bare \" in non-quoted-field";
                return -1;
            }

            *w++ = *csv->p++;
        }

        /* a \r before the end of the line is not part of the field */
        if (w > field && w[-1] == '\r'
            && (csv->p == csv->end || *csv->p == '\n'))
        {
            w--;
        }

        if (csv->nfields == GCP_TOKENFILE_MAX_COLS) {
            csv->err = "too many fields";
            return -1;
        }

        csv->fields[csv->nfields++] = field;

        if (csv->p >= csv->end || *csv->p == '\n') {
            *w = '\0';

            if (csv->p < csv->end) {
                csv->p++;
                csv->line++;
            }

            return 1;
        }

        /* a ',' */
        *w = '\0';
        csv->p++;
    }
}


static char *
gcp_tokenfile_read(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE    *f;
    char    *data;
    long     size;

    f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, errlen, "cannot open \"%s\"", path);
        return NULL;
    }

    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0
        || size > GCP_TOKENFILE_MAX_SIZE || fseek(f, 0, SEEK_SET) != 0)
    {
        fclose(f);
        snprintf(err, errlen, "cannot read \"%s\"", path);
        return NULL;
    }

    data = malloc((size_t) size + 1);
    if (data == NULL) {
        fclose(f);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }

    if (fread(data, 1, (size_t) size, f) != (size_t) size) {
        fclose(f);
        free(data);
        snprintf(err, errlen, "cannot read \"%s\"", path);
        return NULL;
    }

    fclose(f);

    data[size] = '\0';
    *len = (size_t) size;

    return data;
}


static void
gcp_tokenfile_entry_free(gcp_auth_token_t *t)
{
    free(t->name);
    free(t->uid);
    gcp_auth_strv_free(t->groups);
}


/* groups: "a,b" split on every comma, as strings.Split */

static char **
gcp_tokenfile_groups(const char *s, int present)
{
    size_t        n, i;
    char        **v;
    const char   *p, *comma;

    if (!present) {
        return calloc(1, sizeof(char *));
    }

    n = 1;

    for (p = s; *p; p++) {
        n += *p == ',';
    }

    v = calloc(n + 1, sizeof(char *));
    if (v == NULL) {
        return NULL;
    }

    p = s;

    for (i = 0; i < n; i++) {
        comma = strchr(p, ',');
        v[i] = comma ? strndup(p, comma - p) : strdup(p);

        if (v[i] == NULL) {
            gcp_auth_strv_free(v);
            return NULL;
        }

        p = comma ? comma + 1 : p;
    }

    return v;
}


static int
gcp_tokenfile_add(gcp_auth_t *auth, gcp_csv_t *csv)
{
    size_t             i;
    unsigned char      md[GCP_AUTH_SHA256_LEN];
    gcp_auth_token_t   t, *tokens;

    if (gcp_sha256(csv->fields[0], strlen(csv->fields[0]), md) != GCP_OK) {
        return GCP_EINTERNAL;
    }

    memcpy(t.digest, md, GCP_AUTH_SHA256_LEN);
    t.name = strdup(csv->fields[1]);
    t.uid = strdup(csv->fields[2]);
    t.groups = gcp_tokenfile_groups(csv->nfields > 3 ? csv->fields[3] : "",
                                    csv->nfields > 3);

    if (t.name == NULL || t.uid == NULL || t.groups == NULL) {
        gcp_tokenfile_entry_free(&t);
        return GCP_ENOMEM;
    }

    /* a duplicate token: the later record wins */

    for (i = 0; i < auth->ntokens; i++) {
        if (memcmp(auth->tokens[i].digest, md, GCP_AUTH_SHA256_LEN) == 0) {
            gcp_tokenfile_entry_free(&auth->tokens[i]);
            auth->tokens[i] = t;
            return GCP_OK;
        }
    }

    tokens = realloc(auth->tokens,
                     (auth->ntokens + 1) * sizeof(gcp_auth_token_t));
    if (tokens == NULL) {
        gcp_tokenfile_entry_free(&t);
        return GCP_ENOMEM;
    }

    tokens[auth->ntokens++] = t;
    auth->tokens = tokens;

    return GCP_OK;
}


int
gcp_auth_tokens_load(gcp_auth_t *auth, const char *path, char *err,
    size_t errlen)
{
    int         rc, r;
    char       *data;
    size_t      len;
    gcp_csv_t   csv;

    data = gcp_tokenfile_read(path, &len, err, errlen);
    if (data == NULL) {
        return GCP_EINVALID;
    }

    memset(&csv, 0, sizeof(csv));
    csv.p = data;
    csv.end = data + len;
    csv.line = 1;

    rc = GCP_OK;

    for ( ;; ) {
        r = gcp_csv_record(&csv);

        if (r == 0) {
            break;
        }

        if (r < 0) {
            snprintf(err, errlen, "token file \"%s\": parse error on line "
                     "%zu: %s", path, csv.line, csv.err);
            rc = GCP_EINVALID;
            break;
        }

        if (csv.nfields < 3) {
            snprintf(err, errlen, "token file '%s' must have at least 3 "
                     "columns (token, user name, user uid), found %zu", path,
                     csv.nfields);
            rc = GCP_EINVALID;
            break;
        }

        if (csv.fields[0][0] == '\0') {
            /* upstream warns about an empty token and skips it */
            continue;
        }

        rc = gcp_tokenfile_add(auth, &csv);

        if (rc != GCP_OK) {
            snprintf(err, errlen, "out of memory");
            break;
        }
    }

    explicit_bzero(data, len);
    free(data);

    return rc;
}


void
gcp_auth_tokens_free(gcp_auth_t *auth)
{
    size_t  i;

    for (i = 0; i < auth->ntokens; i++) {
        gcp_tokenfile_entry_free(&auth->tokens[i]);
    }

    free(auth->tokens);
    auth->tokens = NULL;
    auth->ntokens = 0;
}


gcp_user_t *
gcp_auth_tokens_find(gcp_arena_t *a, const gcp_auth_t *auth,
    const char *token, size_t len)
{
    size_t                   i, found;
    gcp_user_t              *u;
    unsigned char            md[GCP_AUTH_SHA256_LEN];
    const gcp_auth_token_t  *t;

    if (auth->ntokens == 0 || gcp_sha256(token, len, md) != GCP_OK) {
        return NULL;
    }

    /* no early exit: every digest is compared */

    found = auth->ntokens;

    for (i = 0; i < auth->ntokens; i++) {
        if (CRYPTO_memcmp(auth->tokens[i].digest, md, GCP_AUTH_SHA256_LEN)
            == 0)
        {
            found = i;
        }
    }

    if (found == auth->ntokens) {
        return NULL;
    }

    t = &auth->tokens[found];

    u = gcp_user_create(a, t->name, t->uid);
    if (u == NULL) {
        return NULL;
    }

    for (i = 0; t->groups[i]; i++) {
        if (gcp_user_add_group(a, u, t->groups[i]) != GCP_OK) {
            return NULL;
        }
    }

    return u;
}
