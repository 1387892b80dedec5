
/*
 * The string formats kube-apiserver validates in custom resources, as
 * kube-openapi's strfmt checks them (gcp_crd_formats.h); the network ones
 * are in gcp_crd_formats_net.c.
 */

#include <stdint.h>

#include "gcp_crd_formats.h"


static const struct {
    const char        *name;
    gcp_crd_format_t   fmt;
} gcp_crd_formats[] = {
    { "bsonobjectid", GCP_CRD_FMT_BSONOBJECTID },
    { "uri", GCP_CRD_FMT_URI },
    { "email", GCP_CRD_FMT_EMAIL },
    { "hostname", GCP_CRD_FMT_HOSTNAME },
    { "ipv4", GCP_CRD_FMT_IPV4 },
    { "ipv6", GCP_CRD_FMT_IPV6 },
    { "cidr", GCP_CRD_FMT_CIDR },
    { "mac", GCP_CRD_FMT_MAC },
    { "uuid", GCP_CRD_FMT_UUID },
    { "uuid3", GCP_CRD_FMT_UUID3 },
    { "uuid4", GCP_CRD_FMT_UUID4 },
    { "uuid5", GCP_CRD_FMT_UUID5 },
    { "isbn", GCP_CRD_FMT_ISBN },
    { "isbn10", GCP_CRD_FMT_ISBN10 },
    { "isbn13", GCP_CRD_FMT_ISBN13 },
    { "creditcard", GCP_CRD_FMT_CREDITCARD },
    { "ssn", GCP_CRD_FMT_SSN },
    { "hexcolor", GCP_CRD_FMT_HEXCOLOR },
    { "rgbcolor", GCP_CRD_FMT_RGBCOLOR },
    { "byte", GCP_CRD_FMT_BYTE },
    { "password", GCP_CRD_FMT_PASSWORD },
    { "date", GCP_CRD_FMT_DATE },
    { "datetime", GCP_CRD_FMT_DATETIME },
    { "duration", GCP_CRD_FMT_DURATION },
};


/* strfmt.HostnamePattern */
static const char  gcp_crd_hostname_pattern[] =
    "^([a-zA-Z0-9\\p{S}\\p{L}]((-?[a-zA-Z0-9\\p{S}\\p{L}]{0,62})?)|"
    "([a-zA-Z0-9\\p{S}\\p{L}](([a-zA-Z0-9-\\p{S}\\p{L}]{0,61}"
    "[a-zA-Z0-9\\p{S}\\p{L}])?)(\\.)){1,}([a-zA-Z\\p{L}]){2,63})$";


gcp_crd_format_t
gcp_crd_format_lookup(const char *name, size_t len)
{
    char    buf[32];
    size_t  i, n;

    /* strfmt.DefaultNameNormalizer: every '-' removed */

    for (i = 0, n = 0; i < len; i++) {
        if (name[i] == '-') {
            continue;
        }

        if (n == sizeof(buf) - 1) {
            return GCP_CRD_FMT_NONE;
        }

        buf[n++] = name[i];
    }

    buf[n] = '\0';

    for (i = 0; i < gcp_nelems(gcp_crd_formats); i++) {
        if (strcmp(gcp_crd_formats[i].name, buf) == 0) {
            return gcp_crd_formats[i].fmt;
        }
    }

    return GCP_CRD_FMT_NONE;
}


gcp_crd_regex_t *
gcp_crd_format_hostname_re(gcp_arena_t *a)
{
    const char  *err;

    return gcp_crd_regex_compile(a, gcp_crd_hostname_pattern,
                                 sizeof(gcp_crd_hostname_pattern) - 1,
                                 &err);
}


static int
gcp_crd_ishex(int c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
           || (c >= 'A' && c <= 'F');
}


static int
gcp_crd_isdigit(int c)
{
    return c >= '0' && c <= '9';
}


static int
gcp_crd_all_hex(const char *s, size_t len)
{
    size_t  i;

    for (i = 0; i < len; i++) {
        if (!gcp_crd_ishex((unsigned char) s[i])) {
            return 0;
        }
    }

    return 1;
}


/* (?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?V[0-9a-f]{3}-?X[0-9a-f]{3}-?[0-9a-f]{12}$ */
static int
gcp_crd_is_uuid(const char *s, size_t len, int version)
{
    size_t          g, j, i;
    static const size_t  groups[] = { 8, 4, 4, 4, 12 };

    i = 0;

    for (g = 0; g < 5; g++) {
        if (g > 0 && i < len && s[i] == '-') {
            i++;
        }

        for (j = 0; j < groups[g]; j++, i++) {
            if (i >= len || !gcp_crd_ishex((unsigned char) s[i])) {
                return 0;
            }

            if (j == 0 && g == 2 && version && s[i] != '0' + version) {
                return 0;
            }

            if (j == 0 && g == 3 && (version == 4 || version == 5)
                && strchr("89abAB", s[i]) == NULL)
            {
                return 0;
            }
        }
    }

    return i == len;
}


/* govalidator.IsISBN: spaces and dashes removed, then the checksum */
static int
gcp_crd_is_isbn(const char *s, size_t len, int version)
{
    char     d[16];
    size_t   i, n;
    int32_t  sum;

    for (i = 0, n = 0; i < len; i++) {
        if (strchr(" \t\n\f\r-", s[i]) && s[i] != '\0') {
            continue;
        }

        if (n == sizeof(d)) {
            return 0;
        }

        d[n++] = s[i];
    }

    sum = 0;

    if (version == 10) {
        if (n != 10) {
            return 0;
        }

        for (i = 0; i < 9; i++) {
            if (!gcp_crd_isdigit(d[i])) {
                return 0;
            }

            sum += (int32_t) (i + 1) * (d[i] - '0');
        }

        if (d[9] == 'X') {
            sum += 100;

        } else if (gcp_crd_isdigit(d[9])) {
            sum += 10 * (d[9] - '0');

        } else {
            return 0;
        }

        return sum % 11 == 0;
    }

    if (n != 13) {
        return 0;
    }

    for (i = 0; i < 13; i++) {
        if (!gcp_crd_isdigit(d[i])) {
            return 0;
        }
    }

    for (i = 0; i < 12; i++) {
        sum += (i % 2 ? 3 : 1) * (d[i] - '0');
    }

    return (d[12] - '0') - ((10 - (sum % 10)) % 10) == 0;
}


/* govalidator.IsCreditCard: non-digits removed, issuer pattern, Luhn */
static int
gcp_crd_is_creditcard(const char *s, size_t len)
{
    char      d[32];
    size_t    i, n;
    int64_t   sum, v;
    int       dbl, ok;

    for (i = 0, n = 0; i < len; i++) {
        if (!gcp_crd_isdigit(s[i])) {
            continue;
        }

        if (n == sizeof(d)) {
            return 0;
        }

        d[n++] = s[i];
    }

    if (n < 13) {
        return 0;
    }

#define P(str)  (strncmp(d, str, sizeof(str) - 1) == 0)

    ok = (d[0] == '4' && (n == 13 || n == 16))
         || (n == 16 && d[0] == '5' && d[1] >= '1' && d[1] <= '5')
         || (n == 16 && (P("6011") || P("65")))
         || (n == 15 && (P("34") || P("37")))
         || (n == 14 && P("30") && d[2] <= '5')
         || (n == 14 && (P("36") || P("38")))
         || (n == 15 && (P("2131") || P("1800")))
         || (n == 16 && P("35"));

#undef P

    if (!ok) {
        return 0;
    }

    sum = 0;
    dbl = 0;

    for (i = n; i-- > 0; ) {
        v = d[i] - '0';

        if (dbl) {
            v *= 2;
            sum += v >= 10 ? v % 10 + 1 : v;

        } else {
            sum += v;
        }

        dbl = !dbl;
    }

    return sum % 10 == 0;
}


/* ^\d{3}[- ]?\d{2}[- ]?\d{4}$ on 11 characters */
static int
gcp_crd_is_ssn(const char *s, size_t len)
{
    size_t  i;

    if (len != 11) {
        return 0;
    }

    for (i = 0; i < 11; i++) {
        if (i == 3 || i == 6) {
            if (s[i] != '-' && s[i] != ' ') {
                return 0;
            }

        } else if (!gcp_crd_isdigit(s[i])) {
            return 0;
        }
    }

    return 1;
}


static int
gcp_crd_is_hexcolor(const char *s, size_t len)
{
    if (len && s[0] == '#') {
        s++;
        len--;
    }

    return (len == 3 || len == 6) && gcp_crd_all_hex(s, len);
}


/* (0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5]) */
static int
gcp_crd_rgb_octet(const char *s, size_t n)
{
    if (n == 1) {
        return gcp_crd_isdigit(s[0]);
    }

    if (n == 2) {
        return s[0] >= '1' && s[0] <= '9' && gcp_crd_isdigit(s[1]);
    }

    if (n == 3 && gcp_crd_isdigit(s[1]) && gcp_crd_isdigit(s[2])) {
        return s[0] == '1'
               || (s[0] == '2' && (s[1] < '5'
                                   || (s[1] == '5' && s[2] <= '5')));
    }

    return 0;
}


static size_t
gcp_crd_skip_space(const char *s, size_t i, size_t len)
{
    while (i < len && s[i] != '\0' && strchr(" \t\n\f\r", s[i])) {
        i++;
    }

    return i;
}


/* ^rgb\(\s*N\s*,\s*N\s*,\s*N\s*\)$ */
static int
gcp_crd_is_rgbcolor(const char *s, size_t len)
{
    int     k;
    size_t  i, j;

    if (len < 4 || memcmp(s, "rgb(", 4) != 0) {
        return 0;
    }

    i = 4;

    for (k = 0; k < 3; k++) {
        i = gcp_crd_skip_space(s, i, len);

        for (j = i; j < len && gcp_crd_isdigit(s[j]); j++) { /* void */ }

        if (!gcp_crd_rgb_octet(s + i, j - i)) {
            return 0;
        }

        i = gcp_crd_skip_space(s, j, len);

        if (i >= len || s[i] != (k < 2 ? ',' : ')')) {
            return 0;
        }

        i++;
    }

    return i == len;
}


/* padded standard base64, at least one group of four */
static int
gcp_crd_is_base64(const char *s, size_t len)
{
    size_t  i, pad;

    if (len == 0 || len % 4) {
        return 0;
    }

    pad = 0;

    if (s[len - 1] == '=') {
        pad = s[len - 2] == '=' ? 2 : 1;
    }

    for (i = 0; i < len - pad; i++) {
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z')
              || gcp_crd_isdigit(s[i]) || s[i] == '+' || s[i] == '/'))
        {
            return 0;
        }
    }

    return 1;
}


static int
gcp_crd_is_bson(const char *s, size_t len)
{
    return len == 24 && gcp_crd_all_hex(s, len);
}


/* time.Parse("2006-01-02", s) */
static int
gcp_crd_is_date(const char *s, size_t len)
{
    int      leap;
    size_t   i;
    int64_t  year, month, day, mdays;

    static const int  days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
                                 30, 31 };

    if (len != 10 || s[4] != '-' || s[7] != '-') {
        return 0;
    }

    /* "2006": four characters read by atoi(): a sign, then digits */

    i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    year = 0;

    for ( ; i < 4; i++) {
        if (!gcp_crd_isdigit(s[i])) {
            return 0;
        }

        year = year * 10 + (s[i] - '0');
    }

    if (s[0] == '-') {
        year = -year;
    }

    if (!gcp_crd_isdigit(s[5]) || !gcp_crd_isdigit(s[6])
        || !gcp_crd_isdigit(s[8]) || !gcp_crd_isdigit(s[9]))
    {
        return 0;
    }

    month = (s[5] - '0') * 10 + (s[6] - '0');
    day = (s[8] - '0') * 10 + (s[9] - '0');

    if (month < 1 || month > 12) {
        return 0;
    }

    leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    mdays = days[month - 1] + (month == 2 && leap);

    return day >= 1 && day <= mdays;
}


/* the zone of a date-time: z or [+-]\d\d:\d\d, all of s */
static int
gcp_crd_is_zone(const char *s, size_t n)
{
    if (n == 1) {
        return s[0] == 'z' || s[0] == 'Z';
    }

    return n == 6 && (s[0] == '+' || s[0] == '-')
           && gcp_crd_isdigit(s[1]) && gcp_crd_isdigit(s[2]) && s[3] == ':'
           && gcp_crd_isdigit(s[4]) && gcp_crd_isdigit(s[5]);
}


/* strfmt.IsDateTime */
static int
gcp_crd_is_datetime(const char *s, size_t len)
{
    size_t  i, t1, t2, n;

    if (len < 4) {
        return 0;
    }

    /* strings.Split(strings.ToLower(str), "t"): the first two parts */

    for (t1 = 0; t1 < len && s[t1] != 't' && s[t1] != 'T'; t1++) {
        /* void */
    }

    if (t1 == len || !gcp_crd_is_date(s, t1)) {
        return 0;
    }

    for (t2 = t1 + 1; t2 < len && s[t2] != 't' && s[t2] != 'T'; t2++) {
        /* void */
    }

    s += t1 + 1;
    n = t2 - t1 - 1;

    /* ^(\d\d):(\d\d):(\d\d)(.\d+)?(z|[+-]\d\d:\d\d)$ */

    if (n < 9 || s[2] != ':' || s[5] != ':') {
        return 0;
    }

    for (i = 0; i < 8; i++) {
        if (i != 2 && i != 5 && !gcp_crd_isdigit(s[i])) {
            return 0;
        }
    }

    if (memcmp(s, "23", 2) > 0 || memcmp(s + 3, "59", 2) > 0
        || memcmp(s + 6, "59", 2) > 0)
    {
        return 0;
    }

    s += 8;
    n -= 8;

    if (gcp_crd_is_zone(s, n)) {
        return 1;
    }

    /* the fraction: any one rune but a newline, then digits */

    if (s[0] == '\n') {
        return 0;
    }

    i = 1;

    if ((unsigned char) s[0] >= 0x80) {
        while (i < n && ((unsigned char) s[i] & 0xc0) == 0x80) {
            i++;
        }
    }

    s += i;
    n -= i;

    for (i = 0; i < n && gcp_crd_isdigit(s[i]); i++) {
        /* void */
    }

    return i > 0 && gcp_crd_is_zone(s + i, n - i);
}


/* Go's time.ParseDuration */
static int
gcp_crd_go_duration(const char *s, size_t len)
{
    int          pre, post;
    size_t       i, u;
    double       f, scale;
    uint64_t     v, d, unit;
    const char  *p, *end;

    static const struct {
        const char  *name;
        uint64_t     ns;
    } units[] = {
        { "ns", 1ULL }, { "us", 1000ULL }, { "\xc2\xb5s", 1000ULL },
        { "\xce\xbcs", 1000ULL }, { "ms", 1000000ULL },
        { "s", 1000000000ULL }, { "m", 60000000000ULL },
        { "h", 3600000000000ULL },
    };

    p = s;
    end = s + len;
    d = 0;

    if (p < end && (*p == '-' || *p == '+')) {
        p++;
    }

    if (end - p == 1 && *p == '0') {
        return 1;
    }

    if (p == end) {
        return 0;
    }

    while (p < end) {
        if (!(*p == '.' || gcp_crd_isdigit(*p))) {
            return 0;
        }

        v = 0;
        pre = 0;

        while (p < end && gcp_crd_isdigit(*p)) {
            if (v > (1ULL << 63) / 10) {
                return 0;
            }

            v = v * 10 + (*p - '0');
            if (v > 1ULL << 63) {
                return 0;
            }

            p++;
            pre = 1;
        }

        f = 0;
        scale = 1;
        post = 0;

        if (p < end && *p == '.') {
            p++;

            while (p < end && gcp_crd_isdigit(*p)) {
                if (scale < 1e19) {
                    f = f * 10 + (*p - '0');
                    scale *= 10;
                }

                p++;
                post = 1;
            }
        }

        if (!pre && !post) {
            return 0;
        }

        for (i = 0; p + i < end && p[i] != '.' && !gcp_crd_isdigit(p[i]);
             i++)
        {
            /* void */
        }

        if (i == 0) {
            return 0;
        }

        unit = 0;

        for (u = 0; u < gcp_nelems(units); u++) {
            if (strlen(units[u].name) == i
                && memcmp(units[u].name, p, i) == 0)
            {
                unit = units[u].ns;
                break;
            }
        }

        if (unit == 0) {
            return 0;
        }

        p += i;

        if (v > (1ULL << 63) / unit) {
            return 0;
        }

        v *= unit;

        if (f > 0) {
            v += (uint64_t) (f * ((double) unit / scale));
            if (v > 1ULL << 63) {
                return 0;
            }
        }

        d += v;
        if (d > 1ULL << 63) {
            return 0;
        }
    }

    return s[0] == '-' || d <= (1ULL << 63) - 1;
}


/* a letter of [A-Za-zµ]: its length in bytes, or 0 */
static size_t
gcp_crd_unit_letter(const char *p, const char *end)
{
    if (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) {
        return 1;
    }

    if (end - p >= 2 && (unsigned char) p[0] == 0xc2
        && (unsigned char) p[1] == 0xb5)
    {
        return 2;
    }

    return 0;
}


/* strfmt.ParseDuration's second chance: "3 days 2h" */
static int
gcp_crd_scala_duration(const char *s, size_t len)
{
    int          ok;
    char         unit[64];
    size_t       i, n, ulen, v, k;
    const char  *p, *end, *q;
    uint64_t     factor;

    static const char  *variants[][4] = {
        { "ns", "nano", NULL }, { "us", "\xc2\xb5s", "micro", NULL },
        { "ms", "milli", NULL }, { "s", "sec", NULL }, { "m", "min", NULL },
        { "h", "hr", "hour", NULL }, { "d", "day", NULL },
        { "w", "wk", "week", NULL },
    };

    p = s;
    end = s + len;
    ok = 0;

    p = s + gcp_crd_skip_space(s, 0, len);

    if (p == end) {
        return 0;
    }

    /* ^\s*(?:\d+\s*[A-Za-zµ]+\s*)+$, each group checked as it is read */

    while (p < end) {
        factor = 0;

        for (q = p; q < end && gcp_crd_isdigit(*q); q++) {
            if (factor > (uint64_t) INT64_MAX / 10
                || factor * 10 + (*q - '0') > (uint64_t) INT64_MAX)
            {
                return 0;                   /* strconv.Atoi: range */
            }

            factor = factor * 10 + (*q - '0');
        }

        if (q == p) {
            return 0;
        }

        p = s + gcp_crd_skip_space(s, q - s, len);

        ulen = 0;

        while ((n = gcp_crd_unit_letter(p, end)) != 0) {
            if (ulen + n < sizeof(unit)) {
                for (i = 0; i < n; i++) {
                    unit[ulen++] = (n == 1 && p[i] >= 'A' && p[i] <= 'Z')
                                   ? p[i] + 32 : p[i];
                }

            } else {
                ulen = sizeof(unit);        /* too long for any unit */
            }

            p += n;
        }

        if (ulen == 0) {
            return 0;
        }

        p = s + gcp_crd_skip_space(s, p - s, len);

        if (ulen == sizeof(unit)) {
            continue;
        }

        for (v = 0; v < gcp_nelems(variants); v++) {
            for (k = 0; variants[v][k]; k++) {
                n = strlen(variants[v][k]);

                if ((variants[v][k + 1] == NULL && ulen >= n
                     && memcmp(unit, variants[v][k], n) == 0)
                    || (ulen == n && memcmp(unit, variants[v][k], n) == 0))
                {
                    ok = 1;
                }
            }
        }
    }

    return ok;
}


int
gcp_crd_format_check(gcp_crd_format_t f, const char *s, size_t len,
    const gcp_crd_regex_t *hostname_re, gcp_crd_match_t *m)
{
    size_t  i, start;
    int     v4;

    switch (f) {

    case GCP_CRD_FMT_NONE:
    case GCP_CRD_FMT_PASSWORD:
        return 1;

    case GCP_CRD_FMT_BSONOBJECTID:
        return gcp_crd_is_bson(s, len);

    case GCP_CRD_FMT_URI:
        return gcp_crd_is_request_uri(s, len);

    case GCP_CRD_FMT_EMAIL:
        return gcp_crd_is_email(s, len);

    case GCP_CRD_FMT_HOSTNAME:
        if (hostname_re == NULL || len > 255
            || gcp_crd_regex_match(hostname_re, m, s, len) != 1)
        {
            return 0;
        }

        for (i = 0, start = 0; i <= len; i++) {
            if (i == len || s[i] == '.') {
                if (i - start > 63) {
                    return 0;
                }

                start = i + 1;
            }
        }

        return 1;

    case GCP_CRD_FMT_IPV4:
        return gcp_crd_is_ip(s, len, 1, &v4)
               && memchr(s, '.', len) != NULL;

    case GCP_CRD_FMT_IPV6:
        return gcp_crd_is_ip(s, len, 0, &v4)
               && memchr(s, ':', len) != NULL;

    case GCP_CRD_FMT_CIDR:
        return gcp_crd_is_cidr(s, len);

    case GCP_CRD_FMT_MAC:
        return gcp_crd_is_mac(s, len);

    case GCP_CRD_FMT_UUID:
        return gcp_crd_is_uuid(s, len, 0);

    case GCP_CRD_FMT_UUID3:
        return gcp_crd_is_uuid(s, len, 3);

    case GCP_CRD_FMT_UUID4:
        return gcp_crd_is_uuid(s, len, 4);

    case GCP_CRD_FMT_UUID5:
        return gcp_crd_is_uuid(s, len, 5);

    case GCP_CRD_FMT_ISBN:
        return gcp_crd_is_isbn(s, len, 10) || gcp_crd_is_isbn(s, len, 13);

    case GCP_CRD_FMT_ISBN10:
        return gcp_crd_is_isbn(s, len, 10);

    case GCP_CRD_FMT_ISBN13:
        return gcp_crd_is_isbn(s, len, 13);

    case GCP_CRD_FMT_CREDITCARD:
        return gcp_crd_is_creditcard(s, len);

    case GCP_CRD_FMT_SSN:
        return gcp_crd_is_ssn(s, len);

    case GCP_CRD_FMT_HEXCOLOR:
        return gcp_crd_is_hexcolor(s, len);

    case GCP_CRD_FMT_RGBCOLOR:
        return gcp_crd_is_rgbcolor(s, len);

    case GCP_CRD_FMT_BYTE:
        return gcp_crd_is_base64(s, len);

    case GCP_CRD_FMT_DATE:
        return gcp_crd_is_date(s, len);

    case GCP_CRD_FMT_DATETIME:
        return gcp_crd_is_datetime(s, len);

    case GCP_CRD_FMT_DURATION:
        return gcp_crd_go_duration(s, len) || gcp_crd_scala_duration(s, len);
    }

    return 1;
}
