
/*
 * Kubernetes version priorities (see gcp_version.h).
 */

#include <stdlib.h>

#include "gcp_version.h"


typedef enum {
    GCP_VERSION_ALPHA = 0,
    GCP_VERSION_BETA,
    GCP_VERSION_GA
} gcp_version_type_t;


/* A run of digits at *p as Atoi would take it; -1 when too long. */

static long
gcp_version_number(const char **p)
{
    long  n;

    if (**p < '0' || **p > '9') {
        return -1;
    }

    n = 0;

    while (**p >= '0' && **p <= '9') {
        if (n > 100000000) {
            return -1;
        }

        n = n * 10 + (**p - '0');
        (*p)++;
    }

    return n;
}


static int
gcp_version_parse(const char *v, long *major, gcp_version_type_t *type,
    long *minor)
{
    const char  *p;

    if (v[0] != 'v') {
        return 0;
    }

    p = v + 1;

    *major = gcp_version_number(&p);
    if (*major < 0) {
        return 0;
    }

    if (*p == '\0') {
        *type = GCP_VERSION_GA;
        *minor = 0;
        return 1;
    }

    if (strncmp(p, "alpha", 5) == 0) {
        *type = GCP_VERSION_ALPHA;
        p += 5;

    } else if (strncmp(p, "beta", 4) == 0) {
        *type = GCP_VERSION_BETA;
        p += 4;

    } else {
        return 0;
    }

    *minor = gcp_version_number(&p);

    return *minor >= 0 && *p == '\0';
}


int
gcp_version_is_kube(const char *v)
{
    long                 major, minor;
    gcp_version_type_t   type;

    return gcp_version_parse(v, &major, &type, &minor);
}


int
gcp_version_compare(const char *v1, const char *v2)
{
    int                  ok1, ok2;
    long                 major1, minor1, major2, minor2;
    gcp_version_type_t   type1, type2;

    if (strcmp(v1, v2) == 0) {
        return 0;
    }

    ok1 = gcp_version_parse(v1, &major1, &type1, &minor1);
    ok2 = gcp_version_parse(v2, &major2, &type2, &minor2);

    if (!ok1 && !ok2) {
        return strcmp(v2, v1);
    }

    if (!ok1) {
        return -1;
    }

    if (!ok2) {
        return 1;
    }

    if (type1 != type2) {
        return (int) type1 - (int) type2;
    }

    if (major1 != major2) {
        return major1 > major2 ? 1 : -1;
    }

    return (minor1 > minor2) - (minor1 < minor2);
}
