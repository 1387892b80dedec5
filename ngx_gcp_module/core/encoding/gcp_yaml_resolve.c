
/*
 * go-yaml v2's resolution of scalars (see gcp_yaml_resolve.h): resolve()
 * of resolve.go with the strconv functions it relies on, for the parser
 * (gcp_yaml_parse.c) and the encoder (gcp_yaml.c: which strings may be
 * plain, the text of numbers; see gcp_yaml_int.h).
 */

#include <math.h>
#include <stdlib.h>

#include "gcp_yaml_int.h"
#include "gcp_yaml_resolve.h"


gcp_go_num_rc_t
gcp_go_parse_uint(const char *s, size_t n, int base, uint64_t *out)
{
    int       d;
    size_t    i;
    uint64_t  v;
    unsigned  range;

    if (n == 0) {
        return GCP_GO_NUM_SYNTAX;
    }

    if (base == 0) {
        base = 10;

        if (s[0] == '0') {
            base = 8;
            s++;
            n--;

            if (n >= 2) {
                switch (s[0]) {
                case 'b': case 'B': base = 2; s++; n--; break;
                case 'o': case 'O': base = 8; s++; n--; break;
                case 'x': case 'X': base = 16; s++; n--; break;
                }
            }
        }
    }

    v = 0;
    range = 0;

    for (i = 0; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            d = s[i] - '0';

        } else if (s[i] >= 'a' && s[i] <= 'z') {
            d = s[i] - 'a' + 10;

        } else if (s[i] >= 'A' && s[i] <= 'Z') {
            d = s[i] - 'A' + 10;

        } else {
            return GCP_GO_NUM_SYNTAX;
        }

        if (d >= base) {
            return GCP_GO_NUM_SYNTAX;
        }

        if (v > (UINT64_MAX - (uint64_t) d) / (uint64_t) base) {
            range = 1;

        } else {
            v = v * (uint64_t) base + (uint64_t) d;
        }
    }

    if (out) {
        *out = v;
    }

    return range ? GCP_GO_NUM_RANGE : GCP_GO_NUM_OK;
}


gcp_go_num_rc_t
gcp_go_parse_int(const char *s, size_t n, int base, int64_t *out)
{
    int               neg;
    uint64_t          v;
    gcp_go_num_rc_t   rc;

    neg = 0;

    if (n && (s[0] == '+' || s[0] == '-')) {
        neg = (s[0] == '-');
        s++;
        n--;
    }

    rc = gcp_go_parse_uint(s, n, base, &v);
    if (rc != GCP_GO_NUM_OK) {
        return rc;
    }

    if (v > (uint64_t) INT64_MAX + (neg ? 1 : 0)) {
        return GCP_GO_NUM_RANGE;
    }

    if (out) {
        *out = neg ? (int64_t) (0 - v) : (int64_t) v;
    }

    return GCP_GO_NUM_OK;
}


/* the regular expression yamlStyleFloat of resolve.go */
static int
gcp_yaml_style_float(const char *s, size_t n)
{
    size_t  i, d;

    i = 0;

    if (i < n && (s[i] == '+' || s[i] == '-')) {
        i++;
    }

    if (i < n && s[i] == '.') {
        i++;

        for (d = 0; i < n && gcp_yaml_isdigit(s[i]); i++, d++) {
            /* void */
        }

        if (d == 0) {
            return 0;
        }

    } else {
        for (d = 0; i < n && gcp_yaml_isdigit(s[i]); i++, d++) {
            /* void */
        }

        if (d == 0) {
            return 0;
        }

        if (i < n && s[i] == '.') {
            for (i++; i < n && gcp_yaml_isdigit(s[i]); i++) {
                /* void */
            }
        }
    }

    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;

        if (i < n && (s[i] == '+' || s[i] == '-')) {
            i++;
        }

        for (d = 0; i < n && gcp_yaml_isdigit(s[i]); i++, d++) {
            /* void */
        }

        if (d == 0) {
            return 0;
        }
    }

    return i == n;
}


/*
 * strconv.ParseFloat(s, 64) on a string yamlStyleFloat accepts: returns 1
 * and *out when the value is finite (Go fails with ErrRange otherwise;
 * underflow gives 0 without an error), 0 otherwise.
 */
static int
gcp_yaml_parse_float(const char *s, size_t n, double *out)
{
    char    tmp[128], *p;
    double  d;

    p = (n < sizeof(tmp)) ? tmp : malloc(n + 1);
    if (p == NULL) {
        return 0;
    }

    memcpy(p, s, n);
    p[n] = '\0';

    d = strtod(p, NULL);

    if (p != tmp) {
        free(p);
    }

    *out = d;

    return !isinf(d);
}


int
gcp_yaml_is_base60(const char *s, size_t n)
{
    size_t  i, d;

    if (n == 0 || !(s[0] == '+' || s[0] == '-' || gcp_yaml_isdigit(s[0]))
        || memchr(s, ':', n) == NULL)
    {
        return 0;
    }

    /* ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$ */

    i = (s[0] == '+' || s[0] == '-') ? 1 : 0;

    if (i >= n || !gcp_yaml_isdigit(s[i])) {
        return 0;
    }

    for (i++; i < n && (gcp_yaml_isdigit(s[i]) || s[i] == '_'); i++) {
        /* void */
    }

    d = 0;

    while (i < n && s[i] == ':') {
        i++;

        if (i + 1 < n && s[i] >= '0' && s[i] <= '5'
            && gcp_yaml_isdigit(s[i + 1]))
        {
            i += 2;

        } else if (i < n && gcp_yaml_isdigit(s[i])) {
            i++;

        } else {
            return 0;
        }

        d++;
    }

    if (d == 0) {
        return 0;
    }

    if (i < n && s[i] == '.') {
        for (i++; i < n && (gcp_yaml_isdigit(s[i]) || s[i] == '_');
             i++)
        {
            /* void */
        }
    }

    return i == n;
}


/* getnum(): one or two digits */
static int
gcp_yaml_getnum(const char *s, size_t n, size_t *i, int *v)
{
    if (*i >= n || !gcp_yaml_isdigit(s[*i])) {
        return 0;
    }

    *v = s[(*i)++] - '0';

    if (*i < n && gcp_yaml_isdigit(s[*i])) {
        *v = *v * 10 + (s[(*i)++] - '0');
    }

    return 1;
}


/*
 * parseTimestamp() of resolve.go: time.Parse with the layouts
 * "2006-1-2T15:4:5.999999999Z07:00" (also with 't'),
 * "2006-1-2 15:4:5.999999999" and "2006-1-2".
 */
static int
gcp_yaml_timestamp(const char *s, size_t n)
{
    int      year, month, day, hour, min, sec, hh, mm, mdays;
    char     sep;
    size_t   i;

    static const int  days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
                                 30, 31 };

    for (i = 0; i < 4; i++) {
        if (i >= n || !gcp_yaml_isdigit(s[i])) {
            return 0;
        }
    }

    if (i == n || s[i] != '-') {
        return 0;
    }

    year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10
           + (s[3] - '0');
    i++;

    if (!gcp_yaml_getnum(s, n, &i, &month) || month < 1 || month > 12) {
        return 0;
    }

    if (i >= n || s[i++] != '-' || !gcp_yaml_getnum(s, n, &i, &day)) {
        return 0;
    }

    mdays = days[month - 1];

    if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) {
        mdays = 29;
    }

    if (day < 1 || day > mdays) {
        return 0;
    }

    if (i == n) {
        return 1;                       /* "2006-1-2" */
    }

    sep = s[i++];

    if (sep != 'T' && sep != 't' && sep != ' ') {
        return 0;
    }

    if (!gcp_yaml_getnum(s, n, &i, &hour) || hour > 23
        || i >= n || s[i++] != ':'
        || !gcp_yaml_getnum(s, n, &i, &min) || min > 59
        || i >= n || s[i++] != ':'
        || !gcp_yaml_getnum(s, n, &i, &sec) || sec > 59)
    {
        return 0;
    }

    if (i + 1 < n && (s[i] == '.' || s[i] == ',')
        && gcp_yaml_isdigit(s[i + 1]))
    {
        for (i++; i < n && gcp_yaml_isdigit(s[i]); i++) {
            /* void */
        }
    }

    if (sep == ' ') {
        return i == n;
    }

    if (i < n && s[i] == 'Z') {
        return i + 1 == n;
    }

    if (n - i != 6 || (s[i] != '+' && s[i] != '-') || s[i + 3] != ':') {
        return 0;
    }

    i++;

    if (!gcp_yaml_isdigit(s[i]) || !gcp_yaml_isdigit(s[i + 1])
        || !gcp_yaml_isdigit(s[i + 3])
        || !gcp_yaml_isdigit(s[i + 4]))
    {
        return 0;
    }

    hh = (s[i] - '0') * 10 + (s[i + 1] - '0');
    mm = (s[i + 3] - '0') * 10 + (s[i + 4] - '0');

    return hh <= 24 && mm <= 60;
}


/* the keys of resolve.go's resolveMap (without "<<", never looked up) */

typedef struct {
    const char       *s;
    gcp_yaml_kind_t   kind;
    int               b;            /* BOOL: 1 true; FLOAT: sign of inf */
} gcp_yaml_word_t;


static const gcp_yaml_word_t  gcp_yaml_words[] = {
    { "y", GCP_YAML_BOOL, 1 }, { "Y", GCP_YAML_BOOL, 1 },
    { "yes", GCP_YAML_BOOL, 1 }, { "Yes", GCP_YAML_BOOL, 1 },
    { "YES", GCP_YAML_BOOL, 1 }, { "true", GCP_YAML_BOOL, 1 },
    { "True", GCP_YAML_BOOL, 1 }, { "TRUE", GCP_YAML_BOOL, 1 },
    { "on", GCP_YAML_BOOL, 1 }, { "On", GCP_YAML_BOOL, 1 },
    { "ON", GCP_YAML_BOOL, 1 },
    { "n", GCP_YAML_BOOL, 0 }, { "N", GCP_YAML_BOOL, 0 },
    { "no", GCP_YAML_BOOL, 0 }, { "No", GCP_YAML_BOOL, 0 },
    { "NO", GCP_YAML_BOOL, 0 }, { "false", GCP_YAML_BOOL, 0 },
    { "False", GCP_YAML_BOOL, 0 }, { "FALSE", GCP_YAML_BOOL, 0 },
    { "off", GCP_YAML_BOOL, 0 }, { "Off", GCP_YAML_BOOL, 0 },
    { "OFF", GCP_YAML_BOOL, 0 },
    { "", GCP_YAML_NULL, 0 }, { "~", GCP_YAML_NULL, 0 },
    { "null", GCP_YAML_NULL, 0 }, { "Null", GCP_YAML_NULL, 0 },
    { "NULL", GCP_YAML_NULL, 0 },
    { ".nan", GCP_YAML_FLOAT, 0 }, { ".NaN", GCP_YAML_FLOAT, 0 },
    { ".NAN", GCP_YAML_FLOAT, 0 },
    { ".inf", GCP_YAML_FLOAT, 1 }, { ".Inf", GCP_YAML_FLOAT, 1 },
    { ".INF", GCP_YAML_FLOAT, 1 },
    { "+.inf", GCP_YAML_FLOAT, 1 }, { "+.Inf", GCP_YAML_FLOAT, 1 },
    { "+.INF", GCP_YAML_FLOAT, 1 },
    { "-.inf", GCP_YAML_FLOAT, -1 }, { "-.Inf", GCP_YAML_FLOAT, -1 },
    { "-.INF", GCP_YAML_FLOAT, -1 },
    { NULL, GCP_YAML_STR, 0 }
};


static gcp_yaml_kind_t
gcp_yaml_set(gcp_yaml_scalar_t *out, gcp_yaml_kind_t kind)
{
    out->kind = kind;

    return kind;
}


/* The 'D' and 'S' hints of resolve(): a digit or a sign first. */

static gcp_yaml_kind_t
gcp_yaml_resolve_number(const char *s, size_t n, unsigned flags,
    gcp_yaml_scalar_t *out)
{
    char             small[64], *plain;
    size_t           i, k;
    gcp_yaml_kind_t  kind;

    if ((flags & GCP_YAML_TIMESTAMPS) && gcp_yaml_timestamp(s, n)) {
        return gcp_yaml_set(out, GCP_YAML_TIMESTAMP);
    }

    plain = (n < sizeof(small)) ? small : malloc(n);
    if (plain == NULL) {
        return gcp_yaml_set(out, GCP_YAML_STR);
    }

    for (i = 0, k = 0; i < n; i++) {
        if (s[i] != '_') {
            plain[k++] = s[i];
        }
    }

    kind = GCP_YAML_STR;

    if (gcp_go_parse_int(plain, k, 0, &out->i) == GCP_GO_NUM_OK) {
        kind = GCP_YAML_INT;

    } else if (gcp_go_parse_uint(plain, k, 0, &out->u) == GCP_GO_NUM_OK) {
        kind = GCP_YAML_UINT;

    } else if (gcp_yaml_style_float(plain, k)
               && gcp_yaml_parse_float(plain, k, &out->f))
    {
        kind = GCP_YAML_FLOAT;

    } else if (k >= 2 && plain[0] == '0' && plain[1] == 'b') {
        /* ParseInt(plain[2:], 2), then ParseUint(plain[2:], 2) */

        if (gcp_go_parse_int(plain + 2, k - 2, 2, &out->i)
            == GCP_GO_NUM_OK)
        {
            kind = GCP_YAML_INT;

        } else if (gcp_go_parse_uint(plain + 2, k - 2, 2, &out->u)
                   == GCP_GO_NUM_OK)
        {
            kind = GCP_YAML_UINT;
        }

    } else if (k >= 3 && plain[0] == '-' && plain[1] == '0'
               && plain[2] == 'b')
    {
        /* ParseInt("-" + plain[3:], 2) */

        plain[2] = '-';

        if (gcp_go_parse_int(plain + 2, k - 2, 2, &out->i)
            == GCP_GO_NUM_OK)
        {
            kind = GCP_YAML_INT;
        }
    }

    if (plain != small) {
        free(plain);
    }

    return gcp_yaml_set(out, kind);
}


gcp_yaml_kind_t
gcp_yaml_resolve(const char *s, size_t n, unsigned flags,
    gcp_yaml_scalar_t *out)
{
    char                    c;
    size_t                  i;
    gcp_yaml_scalar_t       tmp;
    const gcp_yaml_word_t  *w;

    if (out == NULL) {
        out = &tmp;
    }

    memset(out, 0, sizeof(gcp_yaml_scalar_t));

    /* the hint: the first byte, 'N' for the empty string */

    c = n ? s[0] : 'N';

    if (!(c == '+' || c == '-' || c == '.' || gcp_yaml_isdigit(c)
          || strchr("yYnNtTfFoO~", c) != NULL))
    {
        return gcp_yaml_set(out, GCP_YAML_STR);
    }

    for (i = 0; gcp_yaml_words[i].s; i++) {
        w = &gcp_yaml_words[i];

        if (strlen(w->s) == n && memcmp(w->s, s, n) == 0) {
            if (w->kind == GCP_YAML_BOOL) {
                out->i = w->b;

            } else if (w->kind == GCP_YAML_FLOAT) {
                out->f = w->b ? w->b * INFINITY : NAN;
            }

            return gcp_yaml_set(out, w->kind);
        }
    }

    if (c == '.') {
        /* ParseFloat(in): "." followed by digits, optional exponent */

        if (gcp_yaml_style_float(s, n) && gcp_yaml_parse_float(s, n, &out->f))
        {
            return gcp_yaml_set(out, GCP_YAML_FLOAT);
        }

        return gcp_yaml_set(out, GCP_YAML_STR);
    }

    if (c != '+' && c != '-' && !gcp_yaml_isdigit(c)) {
        return gcp_yaml_set(out, GCP_YAML_STR);    /* words were checked */
    }

    return gcp_yaml_resolve_number(s, n, flags, out);
}


/* for the encoder */


/*
 * Returns 1 if the plain scalar s reads back as a string: resolve() gives
 * !!str and it is not a base 60 float (encode.go, stringv()).
 */
int
gcp_yaml_plain_is_str(const char *s, size_t n)
{
    return gcp_yaml_resolve(s, n, GCP_YAML_TIMESTAMPS, NULL) == GCP_YAML_STR
           && !gcp_yaml_is_base60(s, n);
}


/*
 * Writes the text of a number as YAML reads Go's JSON for it back:
 * integers stay integers, other values are float64 in 'g' format.
 */
size_t
gcp_yaml_number(const json_t *v, char *buf)
{
    int       neg;
    char     *p;
    size_t    n;
    uint64_t  u;
    double    d;

    if (json_is_integer(v)) {
        return (size_t) sprintf(buf, "%" JSON_INTEGER_FORMAT,
                                json_integer_value(v));
    }

    d = json_real_value(v);
    n = gcp_json_format_float(d, 'j', buf);

    if (strpbrk(buf, ".e") != NULL) {
        return gcp_json_format_float(d, 'g', buf);
    }

    /* an integral JSON number: int64, else uint64, else float64 */

    neg = (buf[0] == '-');

    if (gcp_go_parse_int(buf, n, 10, NULL) == GCP_GO_NUM_OK) {
        if (neg) {
            for (p = buf + 1; *p == '0' && p[1] != '\0'; p++) {
                /* void */
            }

            if (*p == '0') {
                buf[0] = '0';           /* "-0" reads back as 0 */
                buf[1] = '\0';
                return 1;
            }
        }

        return n;
    }

    if (!neg && gcp_go_parse_uint(buf, n, 10, &u) == GCP_GO_NUM_OK) {
        return n;
    }

    return gcp_json_format_float(d, 'g', buf);
}
