
/*
 * Content negotiation (see gcp_media.h).
 */

#include <ctype.h>
#include <stdlib.h>
#include <strings.h>

#include "gcp_media.h"


#define GCP_MEDIA_MAX_RANGES  32


typedef struct {
    char        type[64];       /* "application/json" */
    char        as[48];
    char        g[48];
    char        v[16];
    double      q;
    int         order;
} gcp_media_range_t;


static void
gcp_media_copy(char *dst, size_t size, const char *s, size_t n, int lower)
{
    size_t  i;

    while (n && isspace((unsigned char) *s)) {
        s++;
        n--;
    }

    while (n && isspace((unsigned char) s[n - 1])) {
        n--;
    }

    if (n >= size) {
        n = size - 1;
    }

    for (i = 0; i < n; i++) {
        dst[i] = lower ? (char) tolower((unsigned char) s[i]) : s[i];
    }

    dst[n] = '\0';
}


static void
gcp_media_param(gcp_media_range_t *r, const char *s, size_t n)
{
    size_t       eq;
    char         name[16];
    const char  *v;

    for (eq = 0; eq < n && s[eq] != '='; eq++) {
        /* void */
    }

    if (eq == n) {
        return;
    }

    gcp_media_copy(name, sizeof(name), s, eq, 1);

    v = s + eq + 1;
    n -= eq + 1;

    if (strcmp(name, "as") == 0) {
        /* "as" values are case-sensitive kinds */
        gcp_media_copy(r->as, sizeof(r->as), v, n, 0);

    } else if (strcmp(name, "g") == 0) {
        gcp_media_copy(r->g, sizeof(r->g), v, n, 1);

    } else if (strcmp(name, "v") == 0) {
        gcp_media_copy(r->v, sizeof(r->v), v, n, 1);

    } else if (strcmp(name, "q") == 0) {
        char  buf[16];

        gcp_media_copy(buf, sizeof(buf), v, n, 1);
        r->q = strtod(buf, NULL);
    }
}


static size_t
gcp_media_parse(const char *accept, gcp_media_range_t *ranges, size_t max)
{
    size_t              n, i, start, pstart;
    size_t              len;
    gcp_media_range_t  *r;

    len = strlen(accept);
    n = 0;
    start = 0;

    for (i = 0; i <= len && n < max; i++) {
        if (i < len && accept[i] != ',') {
            continue;
        }

        r = &ranges[n];
        memset(r, 0, sizeof(gcp_media_range_t));
        r->q = 1.0;
        r->order = (int) n;

        for (pstart = start; pstart < i && accept[pstart] != ';'; pstart++) {
            /* void */
        }

        gcp_media_copy(r->type, sizeof(r->type), accept + start,
                       pstart - start, 1);

        while (pstart < i) {
            size_t  p = pstart + 1;

            for (pstart = p; pstart < i && accept[pstart] != ';'; pstart++) {
                /* void */
            }

            gcp_media_param(r, accept + p, pstart - p);
        }

        if (r->type[0]) {
            n++;
        }

        start = i + 1;
    }

    return n;
}


static int
gcp_media_cmp(const void *a, const void *b)
{
    const gcp_media_range_t  *x = a, *y = b;

    if (x->q != y->q) {
        return x->q > y->q ? -1 : 1;
    }

    return x->order - y->order;
}


static int
gcp_media_json_type(const char *t)
{
    return strcmp(t, "application/json") == 0
           || strcmp(t, "application/*") == 0
           || strcmp(t, "*/*") == 0
           || strcmp(t, "*") == 0;
}


static int
gcp_media_match(gcp_arena_t *a, const gcp_media_range_t *r, unsigned allowed,
    gcp_media_t *m)
{
    if (r->q <= 0) {
        return 0;
    }

    if (r->as[0]) {
        if (!gcp_media_json_type(r->type)
            && strcmp(r->type, "application/yaml") != 0)
        {
            return 0;
        }

        if (strcmp(r->g, "meta.k8s.io") == 0
            && (strcmp(r->v, "v1") == 0 || strcmp(r->v, "v1beta1") == 0))
        {
            if (strcmp(r->as, "Table") == 0) {
                m->kind = GCP_MEDIA_TABLE;

            } else if (strcmp(r->as, "PartialObjectMetadata") == 0) {
                m->kind = GCP_MEDIA_PARTIAL;

            } else if (strcmp(r->as, "PartialObjectMetadataList") == 0) {
                m->kind = GCP_MEDIA_PARTIAL_LIST;

            } else {
                m->rejected_as = gcp_strdup(a, r->as);
                return 0;
            }

        } else if (strcmp(r->g, "apidiscovery.k8s.io") == 0
                   && strcmp(r->as, "APIGroupDiscoveryList") == 0
                   && (strcmp(r->v, "v2") == 0
                       || strcmp(r->v, "v2beta1") == 0))
        {
            m->kind = GCP_MEDIA_DISCOVERY;

        } else {
            m->rejected_as = gcp_strdup(a, r->as);
            return 0;
        }

        if (!(allowed & GCP_MEDIA_BIT(m->kind))) {
            m->rejected_as = gcp_strdup(a, r->as);
            m->kind = GCP_MEDIA_NONE;
            return 0;
        }

        m->version = gcp_strdup(a, r->v);

        return 1;
    }

    if (gcp_media_json_type(r->type)) {
        m->kind = GCP_MEDIA_JSON;

    } else if (strcmp(r->type, "application/yaml") == 0) {
        m->kind = GCP_MEDIA_YAML;

    } else if (strcmp(r->type, "application/vnd.kubernetes.protobuf") == 0) {
        m->kind = GCP_MEDIA_PROTOBUF;

    } else {
        return 0;
    }

    if (!(allowed & GCP_MEDIA_BIT(m->kind))) {
        m->kind = GCP_MEDIA_NONE;
        return 0;
    }

    m->version = "";

    return 1;
}


int
gcp_media_negotiate(gcp_arena_t *a, const char *accept, unsigned allowed,
    gcp_media_t *m)
{
    size_t             i, n;
    gcp_media_range_t  ranges[GCP_MEDIA_MAX_RANGES];

    memset(m, 0, sizeof(gcp_media_t));

    if (accept == NULL || accept[0] == '\0') {
        m->kind = GCP_MEDIA_JSON;
        m->version = "";
        return GCP_OK;
    }

    n = gcp_media_parse(accept, ranges, GCP_MEDIA_MAX_RANGES);

    if (n == 0) {
        m->kind = GCP_MEDIA_JSON;
        m->version = "";
        return GCP_OK;
    }

    qsort(ranges, n, sizeof(gcp_media_range_t), gcp_media_cmp);

    for (i = 0; i < n; i++) {
        if (gcp_media_match(a, &ranges[i], allowed, m)) {
            return GCP_OK;
        }
    }

    m->kind = GCP_MEDIA_NONE;

    return GCP_ENOTACCEPTABLE;
}


const char *
gcp_media_content_type(gcp_arena_t *a, const char *header)
{
    char    buf[128];
    size_t  n;

    if (header == NULL) {
        return "";
    }

    for (n = 0; header[n] && header[n] != ';'; n++) {
        /* void */
    }

    gcp_media_copy(buf, sizeof(buf), header, n, 1);

    return gcp_strdup(a, buf);
}
