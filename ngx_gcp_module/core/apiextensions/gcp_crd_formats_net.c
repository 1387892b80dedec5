
/*
 * Go's parsers behind the network formats (gcp_crd_formats.h): net.ParseIP
 * (netip rules: no leading zeros, groups of 4 digits at most, no zones)
 * and the Go 1.16 one k8s.io/utils/net keeps as ParseIPSloppy,
 * ParseCIDRSloppy, net.ParseMAC, net/url.ParseRequestURI and
 * net/mail.ParseAddress.  Only whether they succeed matters here.
 */

#include "gcp_crd_formats.h"
#include "gcp_json.h"


#define GCP_CRD_BIG  0xffffff


static int
gcp_crd_digit(int c)
{
    return c >= '0' && c <= '9';
}


/* dotted IPv4 taking all of s: sloppy as Go 1.16, strict as netip */
static int
gcp_crd_ipv4(const char *s, size_t len, int sloppy)
{
    int     n, field;
    size_t  i, start, digits;

    i = 0;

    for (field = 0; field < 4; field++) {
        if (field > 0) {
            if (i >= len || s[i] != '.') {
                return 0;
            }

            i++;
        }

        start = i;
        n = 0;

        for (digits = 0; i < len && gcp_crd_digit(s[i]); i++, digits++) {
            if (!sloppy && digits == 1 && n == 0) {
                return 0;                   /* leading zero */
            }

            n = n * 10 + (s[i] - '0');

            if (n >= GCP_CRD_BIG) {
                return 0;
            }
        }

        if (i == start || n > 0xff) {
            return 0;
        }
    }

    return i == len;
}


/* IPv6 as Go's parsers, without a zone */
static int
gcp_crd_ipv6(const char *s, size_t len, int sloppy)
{
    int     ellipsis, i;
    size_t  p, off;
    long    acc;
    int     v;

    ellipsis = -1;
    p = 0;

    if (len >= 2 && s[0] == ':' && s[1] == ':') {
        ellipsis = 0;
        p = 2;

        if (p == len) {
            return 1;
        }
    }

    i = 0;

    while (i < 16) {
        acc = 0;

        for (off = 0; p + off < len; off++) {
            v = gcp_crd_hexval((unsigned char) s[p + off]);
            if (v < 0) {
                break;
            }

            acc = acc * 16 + v;

            if (sloppy ? acc >= GCP_CRD_BIG : (off > 3 || acc > 0xffff)) {
                return 0;
            }
        }

        if (off == 0 || acc > 0xffff) {
            return 0;
        }

        if (p + off < len && s[p + off] == '.') {
            if ((ellipsis < 0 && i != 12) || i + 4 > 16) {
                return 0;
            }

            if (!gcp_crd_ipv4(s + p, len - p, sloppy)) {
                return 0;
            }

            i += 4;
            p = len;
            break;
        }

        i += 2;
        p += off;

        if (p == len) {
            break;
        }

        if (s[p] != ':' || p + 1 == len) {
            return 0;
        }

        p++;

        if (s[p] == ':') {
            if (ellipsis >= 0) {
                return 0;
            }

            ellipsis = i;
            p++;

            if (p == len) {
                break;
            }
        }
    }

    if (p != len) {
        return 0;
    }

    if (i < 16) {
        return ellipsis >= 0;
    }

    return ellipsis < 0;
}


int
gcp_crd_is_ip(const char *s, size_t len, int sloppy, int *is_v4)
{
    size_t  i;

    for (i = 0; i < len; i++) {
        switch (s[i]) {

        case '.':
            *is_v4 = 1;
            return gcp_crd_ipv4(s, len, sloppy);

        case ':':
            *is_v4 = 0;
            return gcp_crd_ipv6(s, len, sloppy);

        case '%':
            if (!sloppy) {
                return 0;
            }
        }
    }

    return 0;
}


/* ParseCIDRSloppy */
int
gcp_crd_is_cidr(const char *s, size_t len)
{
    int          bits, n;
    size_t       i, slash;
    const char  *mask;

    mask = memchr(s, '/', len);
    if (mask == NULL) {
        return 0;
    }

    slash = mask - s;
    mask++;

    if (gcp_crd_ipv4(s, slash, 1)) {
        bits = 32;

    } else if (gcp_crd_ipv6(s, slash, 1)) {
        bits = 128;

    } else {
        return 0;
    }

    n = 0;

    for (i = 0; slash + 1 + i < len; i++) {
        if (!gcp_crd_digit(mask[i])) {
            return 0;
        }

        n = n * 10 + (mask[i] - '0');

        if (n >= GCP_CRD_BIG) {
            return 0;
        }
    }

    return i > 0 && n <= bits;
}


/* xtoi2(): two hex digits, then separator e unless at the end */
static int
gcp_crd_hex2(const char *s, size_t left, char e)
{
    if (left < 2) {
        return 0;
    }

    if (left > 2 && s[2] != e) {
        return 0;
    }

    return gcp_crd_hexval((unsigned char) s[0]) >= 0
           && gcp_crd_hexval((unsigned char) s[1]) >= 0;
}


/* net.ParseMAC */
int
gcp_crd_is_mac(const char *s, size_t len)
{
    size_t  n, i, x;

    if (len < 14) {
        return 0;
    }

    if (s[2] == ':' || s[2] == '-') {
        if ((len + 1) % 3 != 0) {
            return 0;
        }

        n = (len + 1) / 3;
        if (n != 6 && n != 8 && n != 20) {
            return 0;
        }

        for (i = 0, x = 0; i < n; i++, x += 3) {
            if (!gcp_crd_hex2(s + x, len - x, s[2])) {
                return 0;
            }
        }

        return 1;
    }

    if (s[4] != '.') {
        return 0;
    }

    if ((len + 1) % 5 != 0) {
        return 0;
    }

    n = 2 * (len + 1) / 5;
    if (n != 6 && n != 8 && n != 20) {
        return 0;
    }

    for (i = 0, x = 0; i < n; i += 2, x += 5) {
        if (!gcp_crd_hex2(s + x, 2, 0)
            || !gcp_crd_hex2(s + x + 2, len - x - 2, s[4]))
        {
            return 0;
        }
    }

    return 1;
}


/* ------------------------------------------------------------ URLs */


typedef enum {
    GCP_CRD_ESC_PATH = 0,
    GCP_CRD_ESC_USER,
    GCP_CRD_ESC_HOST,
    GCP_CRD_ESC_ZONE
} gcp_crd_esc_t;


/* url.shouldEscape() for the host and zone modes */
static int
gcp_crd_host_escape(int c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9'))
    {
        return 0;
    }

    return c == '\0' || strchr("!$&'()*+,;=:[]<>\"-_.~", c) == NULL;
}


/* url.unescape(): whether s is well escaped for the mode */
static int
gcp_crd_unescape_ok(const char *s, size_t len, gcp_crd_esc_t mode)
{
    int     v;
    size_t  i;

    for (i = 0; i < len; ) {
        if (s[i] == '%') {
            if (i + 2 >= len || gcp_crd_hexval((unsigned char) s[i + 1]) < 0
                || gcp_crd_hexval((unsigned char) s[i + 2]) < 0)
            {
                return 0;
            }

            if (mode == GCP_CRD_ESC_HOST
                && gcp_crd_hexval((unsigned char) s[i + 1]) < 8
                && memcmp(s + i, "%25", 3) != 0)
            {
                return 0;
            }

            if (mode == GCP_CRD_ESC_ZONE) {
                v = gcp_crd_hexval((unsigned char) s[i + 1]) << 4
                    | gcp_crd_hexval((unsigned char) s[i + 2]);

                if (memcmp(s + i, "%25", 3) != 0 && v != ' '
                    && gcp_crd_host_escape(v))
                {
                    return 0;
                }
            }

            i += 3;
            continue;
        }

        if ((mode == GCP_CRD_ESC_HOST || mode == GCP_CRD_ESC_ZONE)
            && (unsigned char) s[i] < 0x80
            && gcp_crd_host_escape((unsigned char) s[i]))
        {
            return 0;
        }

        i++;
    }

    return 1;
}


static int
gcp_crd_valid_port(const char *s, size_t len)
{
    size_t  i;

    if (len == 0) {
        return 1;
    }

    if (s[0] != ':') {
        return 0;
    }

    for (i = 1; i < len; i++) {
        if (!gcp_crd_digit(s[i])) {
            return 0;
        }
    }

    return 1;
}


static const char *
gcp_crd_memrchr(const char *s, size_t len, int c)
{
    while (len-- > 0) {
        if (s[len] == c) {
            return s + len;
        }
    }

    return NULL;
}


static const char *
gcp_crd_memmem(const char *s, size_t len, const char *w, size_t wlen)
{
    size_t  i;

    for (i = 0; i + wlen <= len; i++) {
        if (memcmp(s + i, w, wlen) == 0) {
            return s + i;
        }
    }

    return NULL;
}


/* url.parseHost() */
static int
gcp_crd_host_ok(const char *s, size_t len)
{
    const char  *close, *colon, *zone;

    if (len && s[0] == '[') {
        close = gcp_crd_memrchr(s, len, ']');
        if (close == NULL) {
            return 0;
        }

        if (!gcp_crd_valid_port(close + 1, s + len - close - 1)) {
            return 0;
        }

        zone = gcp_crd_memmem(s, close - s, "%25", 3);

        if (zone) {
            return gcp_crd_unescape_ok(s, zone - s, GCP_CRD_ESC_HOST)
                   && gcp_crd_unescape_ok(zone, close - zone,
                                          GCP_CRD_ESC_ZONE)
                   && gcp_crd_unescape_ok(close, s + len - close,
                                          GCP_CRD_ESC_HOST);
        }

    } else {
        colon = gcp_crd_memrchr(s, len, ':');

        if (colon && !gcp_crd_valid_port(colon, s + len - colon)) {
            return 0;
        }
    }

    return gcp_crd_unescape_ok(s, len, GCP_CRD_ESC_HOST);
}


static int
gcp_crd_userinfo_ok(const char *s, size_t len)
{
    size_t  i;

    for (i = 0; i < len; i++) {
        if ((unsigned char) s[i] >= 0x80 || s[i] == '\0') {
            return 0;
        }

        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')
              || gcp_crd_digit(s[i])
              || strchr("-._:~!$&'()*+,;=%@", s[i])))
        {
            return 0;
        }
    }

    return gcp_crd_unescape_ok(s, len, GCP_CRD_ESC_USER);
}


/* url.ParseRequestURI(s) succeeds */
int
gcp_crd_is_request_uri(const char *s, size_t len)
{
    int          scheme;
    size_t       i, rlen, alen;
    const char  *rest, *q, *slash, *at, *auth;

    for (i = 0; i < len; i++) {
        if ((unsigned char) s[i] < 0x20 || s[i] == 0x7f) {
            return 0;
        }
    }

    if (len == 0) {
        return 0;
    }

    if (len == 1 && s[0] == '*') {
        return 1;
    }

    /* getScheme() */

    scheme = 0;
    rest = s;
    rlen = len;

    for (i = 0; i < len; i++) {
        if ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')) {
            continue;
        }

        if (gcp_crd_digit(s[i]) || s[i] == '+' || s[i] == '-'
            || s[i] == '.')
        {
            if (i == 0) {
                break;
            }

            continue;
        }

        if (s[i] == ':') {
            if (i == 0) {
                return 0;                   /* missing protocol scheme */
            }

            scheme = 1;
            rest = s + i + 1;
            rlen = len - i - 1;
        }

        break;
    }

    /* the query: cut at the first '?' */

    q = memchr(rest, '?', rlen);
    if (q) {
        rlen = q - rest;
    }

    if (rlen == 0 || rest[0] != '/') {
        return scheme;                      /* opaque, or not for requests */
    }

    if (scheme && rlen >= 2 && rest[1] == '/') {
        auth = rest + 2;
        slash = memchr(auth, '/', rlen - 2);
        alen = slash ? (size_t) (slash - auth) : rlen - 2;

        at = gcp_crd_memrchr(auth, alen, '@');

        if (at) {
            if (!gcp_crd_host_ok(at + 1, auth + alen - at - 1)
                || !gcp_crd_userinfo_ok(auth, at - auth))
            {
                return 0;
            }

        } else if (!gcp_crd_host_ok(auth, alen)) {
            return 0;
        }

        rlen -= alen + 2;
        rest = auth + alen;
    }

    return gcp_crd_unescape_ok(rest, rlen, GCP_CRD_ESC_PATH);
}


/* ------------------------------------------------------------ e-mail */


typedef struct {
    const char  *s;
    const char  *end;
} gcp_crd_mail_t;


static void
gcp_crd_mail_space(gcp_crd_mail_t *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t')) {
        p->s++;
    }
}


static int
gcp_crd_mail_consume(gcp_crd_mail_t *p, char c)
{
    if (p->s < p->end && *p->s == c) {
        p->s++;
        return 1;
    }

    return 0;
}


/* the rune at p->s and its length; 0 at the end, -1 on bad UTF-8 */
static int
gcp_crd_mail_rune(gcp_crd_mail_t *p, uint32_t *r)
{
    size_t  n;

    if (p->s >= p->end) {
        return 0;
    }

    n = gcp_utf8_decode((const unsigned char *) p->s, p->end - p->s, r);

    if (*r == 0xfffd && n == 1) {
        return -1;
    }

    return (int) n;
}


static int
gcp_crd_vchar(uint32_t r)
{
    return (r >= '!' && r <= '~') || r >= 0x80;
}


static int
gcp_crd_atext(uint32_t r, int dot)
{
    if (r == '.') {
        return dot;
    }

    if (r < 0x80 && strchr("()<>[]:;@\\,\"", (int) r) && r != 0) {
        return 0;
    }

    return gcp_crd_vchar(r);
}


static int
gcp_crd_mail_atom(gcp_crd_mail_t *p, int dot, int permissive)
{
    int          n;
    uint32_t     r;
    const char  *start;

    start = p->s;

    for ( ;; ) {
        n = gcp_crd_mail_rune(p, &r);
        if (n < 0) {
            p->s = start;
            return 0;
        }

        if (n == 0 || !gcp_crd_atext(r, dot)) {
            break;
        }

        p->s += n;
    }

    if (p->s == start) {
        return 0;
    }

    if (!permissive
        && (start[0] == '.' || p->s[-1] == '.'
            || gcp_crd_memmem(start, p->s - start, "..", 2) != NULL))
    {
        p->s = start;
        return 0;
    }

    return 1;
}


/* consumeQuotedString(): 1 with the content length in *n, or 0 */
static int
gcp_crd_mail_quoted(gcp_crd_mail_t *p, size_t *n)
{
    int          k, escaped;
    uint32_t     r;
    const char  *start;

    start = p->s;
    p->s++;
    escaped = 0;
    *n = 0;

    for ( ;; ) {
        k = gcp_crd_mail_rune(p, &r);

        if (k <= 0) {
            p->s = start;
            return 0;
        }

        if (escaped) {
            if (!gcp_crd_vchar(r) && r != ' ' && r != '\t') {
                p->s = start;
                return 0;
            }

            escaped = 0;
            (*n)++;

        } else if ((gcp_crd_vchar(r) && r != '\\' && r != '"')
                   || r == ' ' || r == '\t')
        {
            (*n)++;

        } else if (r == '"') {
            p->s += k;
            return 1;

        } else if (r == '\\') {
            escaped = 1;

        } else {
            p->s = start;
            return 0;
        }

        p->s += k;
    }
}


static int
gcp_crd_mail_domain_literal(gcp_crd_mail_t *p)
{
    int          k, v4;
    uint32_t     r;
    const char  *start, *text;

    start = p->s;
    p->s++;
    text = p->s;

    for ( ;; ) {
        if (p->s >= p->end) {
            p->s = start;
            return 0;
        }

        if (*p->s == ']') {
            break;
        }

        k = gcp_crd_mail_rune(p, &r);

        if (k <= 0 || r == '[' || r == ']' || r == '\\' || !gcp_crd_vchar(r))
        {
            p->s = start;
            return 0;
        }

        p->s += k;
    }

    if (!gcp_crd_is_ip(text, p->s - text, 0, &v4)) {
        p->s = start;
        return 0;
    }

    p->s++;
    return 1;
}


/* consumeAddrSpec(): local-part "@" domain, restoring p on failure */
static int
gcp_crd_mail_addr_spec(gcp_crd_mail_t *p)
{
    size_t          n;
    gcp_crd_mail_t  orig = *p;

    gcp_crd_mail_space(p);

    if (p->s >= p->end) {
        goto fail;
    }

    if (*p->s == '"') {
        if (!gcp_crd_mail_quoted(p, &n) || n == 0) {
            goto fail;
        }

    } else if (!gcp_crd_mail_atom(p, 1, 0)) {
        goto fail;
    }

    if (!gcp_crd_mail_consume(p, '@')) {
        goto fail;
    }

    gcp_crd_mail_space(p);

    if (p->s >= p->end) {
        goto fail;
    }

    if (*p->s == '[') {
        if (!gcp_crd_mail_domain_literal(p)) {
            goto fail;
        }

    } else if (!gcp_crd_mail_atom(p, 1, 0)) {
        goto fail;
    }

    return 1;

fail:

    *p = orig;
    return 0;
}


/* skipComment() after '(': 1 when the parentheses balance */
static int
gcp_crd_mail_comment(gcp_crd_mail_t *p)
{
    int  depth = 1;

    while (p->s < p->end && depth > 0) {
        if (*p->s == '\\' && p->end - p->s > 1) {
            p->s++;

        } else if (*p->s == '(') {
            depth++;

        } else if (*p->s == ')') {
            depth--;
        }

        p->s++;
    }

    return depth == 0;
}


static int
gcp_crd_mail_cfws(gcp_crd_mail_t *p)
{
    gcp_crd_mail_space(p);

    while (gcp_crd_mail_consume(p, '(')) {
        if (!gcp_crd_mail_comment(p)) {
            return 0;
        }

        gcp_crd_mail_space(p);
    }

    return 1;
}


/* consumePhrase(): the number of words read (0: an error) */
static int
gcp_crd_mail_phrase(gcp_crd_mail_t *p)
{
    int     words, ok;
    size_t  n;

    words = 0;

    for ( ;; ) {
        if (words > 0 && !gcp_crd_mail_cfws(p)) {
            return 0;
        }

        gcp_crd_mail_space(p);

        if (p->s >= p->end) {
            break;
        }

        if (*p->s == '"') {
            ok = gcp_crd_mail_quoted(p, &n);

        } else {
            ok = gcp_crd_mail_atom(p, 1, 1);
        }

        if (!ok) {
            break;
        }

        words++;
    }

    return words;
}


/*
 * parseAddress(): the number of addresses of one address or group
 * (-1 on error)
 */
static int
gcp_crd_mail_address(gcp_crd_mail_t *p, int group)
{
    int  n, count;

    gcp_crd_mail_space(p);

    if (p->s >= p->end) {
        return -1;
    }

    if (gcp_crd_mail_addr_spec(p)) {
        gcp_crd_mail_space(p);

        if (gcp_crd_mail_consume(p, '(') && !gcp_crd_mail_comment(p)) {
            return -1;
        }

        return 1;
    }

    if (*p->s != '<' && gcp_crd_mail_phrase(p) == 0) {
        return -1;
    }

    gcp_crd_mail_space(p);

    if (group && gcp_crd_mail_consume(p, ':')) {
        count = 0;
        gcp_crd_mail_space(p);

        if (gcp_crd_mail_consume(p, ';')) {
            return gcp_crd_mail_cfws(p) ? 0 : -1;
        }

        for ( ;; ) {
            gcp_crd_mail_space(p);

            n = gcp_crd_mail_address(p, 0);
            if (n < 0) {
                return -1;
            }

            count += n;

            if (!gcp_crd_mail_cfws(p)) {
                return -1;
            }

            if (gcp_crd_mail_consume(p, ';')) {
                return gcp_crd_mail_cfws(p) ? count : -1;
            }

            if (!gcp_crd_mail_consume(p, ',')) {
                return -1;
            }
        }
    }

    if (!gcp_crd_mail_consume(p, '<')) {
        return -1;
    }

    if (!gcp_crd_mail_addr_spec(p)) {
        return -1;
    }

    return gcp_crd_mail_consume(p, '>') ? 1 : -1;
}


/* mail.ParseAddress(s) finds one address */
int
gcp_crd_is_email(const char *s, size_t len)
{
    int             n;
    gcp_crd_mail_t  p;

    p.s = s;
    p.end = s + len;

    n = gcp_crd_mail_address(&p, 1);

    if (n != 1 || !gcp_crd_mail_cfws(&p)) {
        return 0;
    }

    return p.s == p.end;
}
