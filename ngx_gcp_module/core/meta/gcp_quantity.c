
/*
 * resource.Quantity (see gcp_quantity.h).
 */

#include <stdio.h>

#include "gcp_quantity.h"


#define GCP_QTY_SUFFIX_ERR  "unable to parse quantity's suffix"

#define GCP_QTY_MAX  ((__int128) INT64_MAX)
#define GCP_QTY_MIN_SCALE  (-9)             /* nano: finer rounds up */
#define GCP_QTY_MAX_SCALE  1000             /* larger is capped */


typedef __int128  gcp_i128_t;


static const char * const  gcp_qty_dec[] = {
    "n", "u", "m", "", "k", "M", "G", "T", "P", "E"     /* 10^-9 .. 10^18 */
};

static const char * const  gcp_qty_bin[] = {
    "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"
};


/* ceil(v / 10) for the magnitude, keeping the sign. */
static gcp_i128_t
gcp_qty_div10_up(gcp_i128_t v)
{
    gcp_i128_t  q;

    q = v / 10;

    if (v % 10 != 0) {
        q += v > 0 ? 1 : -1;
    }

    return q;
}


/* Brings v * 10^scale into the int64 range and the nano precision. */
static void
gcp_qty_store(gcp_quantity_t *q, gcp_i128_t v, int64_t scale)
{
    while (scale < GCP_QTY_MIN_SCALE) {
        v = gcp_qty_div10_up(v);
        scale++;
    }

    while (v > GCP_QTY_MAX || v < -GCP_QTY_MAX) {
        v = gcp_qty_div10_up(v);
        scale++;
    }

    /* beyond 10^1000, digits move into v, or the magnitude is capped */

    if (v == 0 && scale > GCP_QTY_MAX_SCALE) {
        scale = 0;
    }

    while (scale > GCP_QTY_MAX_SCALE && v <= GCP_QTY_MAX / 10
           && v >= -GCP_QTY_MAX / 10)
    {
        v *= 10;
        scale--;
    }

    if (scale > GCP_QTY_MAX_SCALE) {
        v = v < 0 ? -GCP_QTY_MAX : GCP_QTY_MAX;
        scale = GCP_QTY_MAX_SCALE;
    }

    q->value = (int64_t) v;
    q->scale = (int32_t) scale;
}


/* Returns 1 when v * 10^scale (v >= 0) is above the largest int64. */
static int
gcp_qty_above_max(gcp_i128_t v, int64_t scale)
{
    gcp_i128_t  t;

    for (; scale > 0 && v <= GCP_QTY_MAX && v != 0; scale--) {
        v *= 10;
    }

    for (t = GCP_QTY_MAX; scale < 0 && t <= v; scale++) {
        t *= 10;
    }

    return v > t;
}


/*
 * Multiplies *v * 10^*scale by 1024^exp2 without overflow: low fractional
 * digits are rounded up while *v is large.  Returns 0, or 1 when the
 * magnitude is beyond the largest int64 (upstream caps it there).
 */
static int
gcp_qty_binary(gcp_i128_t *v, int64_t *scale, int exp2)
{
    while (exp2-- > 0) {
        while (*v > GCP_QTY_MAX * 1024 && *scale < 0) {
            *v = gcp_qty_div10_up(*v);
            (*scale)++;
        }

        if (*v > GCP_QTY_MAX * 1024) {
            return 1;
        }

        *v *= 1024;
    }

    return gcp_qty_above_max(*v, *scale);
}


/*
 * The suffix: returns GCP_OK with the decimal exponent in *exp10 or the
 * power of 1024 in *exp2, and the format.
 */
static int
gcp_qty_suffix(const char *s, size_t len, int *exp10, int *exp2,
    gcp_qty_format_t *format)
{
    size_t   i;
    int64_t  e;
    int      neg;

    *exp10 = 0;
    *exp2 = 0;
    *format = GCP_QTY_DECIMAL_SI;

    for (i = 0; i < gcp_nelems(gcp_qty_dec); i++) {
        if (len == strlen(gcp_qty_dec[i])
            && memcmp(s, gcp_qty_dec[i], len) == 0)
        {
            *exp10 = ((int) i - 3) * 3;
            return GCP_OK;
        }
    }

    for (i = 1; i < gcp_nelems(gcp_qty_bin); i++) {
        if (len == 2 && memcmp(s, gcp_qty_bin[i], 2) == 0) {
            *exp2 = (int) i;
            *format = GCP_QTY_BINARY_SI;
            return GCP_OK;
        }
    }

    if (len > 1 && (s[0] == 'e' || s[0] == 'E')) {
        i = 1;
        neg = 0;

        if (s[i] == '+' || s[i] == '-') {
            neg = s[i] == '-';
            i++;
        }

        if (i == len) {
            return GCP_EBADREQUEST;
        }

        for (e = 0; i < len; i++) {
            if (s[i] < '0' || s[i] > '9') {
                return GCP_EBADREQUEST;
            }

            if (e < 100000) {
                e = e * 10 + (s[i] - '0');
            }
        }

        *exp10 = (int) (neg ? -e : e);
        *format = GCP_QTY_DECIMAL_EXPONENT;
        return GCP_OK;
    }

    return GCP_EBADREQUEST;
}


int
gcp_quantity_parse(const char *s, size_t len, gcp_quantity_t *q,
    const char **err)
{
    int               neg, exp10, exp2, digits, any;
    size_t            i, start;
    int64_t           scale;
    gcp_i128_t        v;
    gcp_qty_format_t  format;

    *err = GCP_QUANTITY_EFORMAT;
    i = 0;
    neg = 0;

    if (i < len && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        i++;
    }

    v = 0;
    scale = 0;
    digits = 0;
    any = 0;

    /* the number: [0-9]* [. [0-9]*], at least one digit */

    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        any = 1;

        if (digits < 37) {
            v = v * 10 + (s[i] - '0');
            digits += v != 0;

        } else {
            scale++;                    /* low digits beyond precision */
        }
    }

    if (i < len && s[i] == '.') {
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            any = 1;

            if (digits < 37) {
                v = v * 10 + (s[i] - '0');
                digits += v != 0;
                scale--;
            }
        }
    }

    if (!any) {
        return GCP_EBADREQUEST;
    }

    /* the suffix: [eEinumkKMGTP]* [-+]? [0-9]* */

    start = i;

    while (i < len && strchr("eEinumkKMGTP", s[i]) && s[i] != '\0') {
        i++;
    }

    if (i < len && (s[i] == '+' || s[i] == '-')) {
        i++;
    }

    while (i < len && s[i] >= '0' && s[i] <= '9') {
        i++;
    }

    if (i != len) {
        return GCP_EBADREQUEST;
    }

    if (gcp_qty_suffix(s + start, len - start, &exp10, &exp2, &format)
        != GCP_OK)
    {
        *err = GCP_QTY_SUFFIX_ERR;
        return GCP_EBADREQUEST;
    }

    scale += exp10;
    q->format = format;

    if (exp2 > 0 && gcp_qty_binary(&v, &scale, exp2)) {
        /* upstream caps binary quantities at the largest int64 */
        q->value = neg ? -INT64_MAX : INT64_MAX;
        q->scale = 0;
        *err = NULL;
        return GCP_OK;
    }

    gcp_qty_store(q, neg ? -v : v, scale);

    *err = NULL;

    return GCP_OK;
}


int
gcp_quantity_parse_json(const json_t *v, gcp_quantity_t *q,
    const char **err)
{
    char  tmp[64];
    int   n;

    if (json_is_string(v)) {
        return gcp_quantity_parse(json_string_value(v), json_string_length(v),
                                  q, err);
    }

    if (json_is_integer(v)) {
        n = snprintf(tmp, sizeof(tmp), "%" JSON_INTEGER_FORMAT,
                     json_integer_value(v));
        return gcp_quantity_parse(tmp, (size_t) n, q, err);
    }

    if (json_is_real(v)) {
        n = snprintf(tmp, sizeof(tmp), "%.17g", json_real_value(v));
        return gcp_quantity_parse(tmp, (size_t) n, q, err);
    }

    *err = GCP_QUANTITY_EFORMAT;

    return GCP_EBADREQUEST;
}


void
gcp_quantity_set_int(gcp_quantity_t *q, int64_t v)
{
    q->value = v;
    q->scale = 0;
    q->format = GCP_QTY_DECIMAL_SI;
}


/* Writes v in decimal; returns the length. */
static size_t
gcp_qty_itoa(char *buf, gcp_i128_t v)
{
    char    tmp[48];
    size_t  n, len;
    int     neg;

    neg = v < 0;
    n = 0;

    do {
        tmp[n++] = (char) ('0' + (int) (neg ? -(v % 10) : v % 10));
        v /= 10;
    } while (v != 0);

    len = 0;

    if (neg) {
        buf[len++] = '-';
    }

    while (n) {
        buf[len++] = tmp[--n];
    }

    buf[len] = '\0';

    return len;
}


/* The value as an integer when it is one (scale >= 0 or exact). */
static int
gcp_qty_integer(const gcp_quantity_t *q, gcp_i128_t *out)
{
    int32_t     s;
    gcp_i128_t  v;

    v = q->value;

    for (s = q->scale; s > 0; s--) {
        if (v > GCP_QTY_MAX * 1000 || v < -GCP_QTY_MAX * 1000) {
            return 0;
        }

        v *= 10;
    }

    for (s = q->scale; s < 0; s++) {
        if (v % 10 != 0) {
            return 0;
        }

        v /= 10;
    }

    *out = v;

    return 1;
}


static size_t
gcp_qty_format_decimal(const gcp_quantity_t *q, char *buf)
{
    int32_t     exp, r;
    size_t      n;
    gcp_i128_t  amount;

    if (q->value == 0) {
        buf[0] = '0';
        buf[1] = '\0';
        return 1;
    }

    amount = q->value;
    exp = q->scale;

    while (amount % 10 == 0) {
        amount /= 10;
        exp++;
    }

    r = ((exp % 3) + 3) % 3;

    if (r == 1) {
        amount *= 10;
        exp -= 1;

    } else if (r == 2) {
        amount *= 100;
        exp -= 2;
    }

    n = gcp_qty_itoa(buf, amount);

    if (q->format == GCP_QTY_DECIMAL_EXPONENT
        || exp < -9 || exp > 18)
    {
        if (exp != 0) {
            n += (size_t) snprintf(buf + n, GCP_QUANTITY_BUFSIZE - n, "e%d",
                                   (int) exp);
        }

        return n;
    }

    n += (size_t) snprintf(buf + n, GCP_QUANTITY_BUFSIZE - n, "%s",
                           gcp_qty_dec[exp / 3 + 3]);

    return n;
}


size_t
gcp_quantity_format(const gcp_quantity_t *q, char *buf)
{
    size_t          n, k;
    gcp_i128_t      v;
    gcp_quantity_t  d;

    if (q->format != GCP_QTY_BINARY_SI) {
        return gcp_qty_format_decimal(q, buf);
    }

    /* small or fractional binary quantities are shown as DecimalSI */

    if (!gcp_qty_integer(q, &v) || (v > -1024 && v < 1024)) {
        d = *q;
        d.format = GCP_QTY_DECIMAL_SI;
        return gcp_qty_format_decimal(&d, buf);
    }

    for (k = 0; k + 1 < gcp_nelems(gcp_qty_bin) && v % 1024 == 0; k++) {
        v /= 1024;
    }

    n = gcp_qty_itoa(buf, v);
    n += (size_t) snprintf(buf + n, GCP_QUANTITY_BUFSIZE - n, "%s",
                           gcp_qty_bin[k]);

    return n;
}


json_t *
gcp_quantity_json(const gcp_quantity_t *q)
{
    char  buf[GCP_QUANTITY_BUFSIZE + 16];

    gcp_quantity_format(q, buf);

    return json_string(buf);
}


/* Number of decimal digits of |v| (v != 0). */
static int
gcp_qty_digits(int64_t v)
{
    int         n;
    gcp_i128_t  m;

    m = v < 0 ? -(gcp_i128_t) v : v;

    for (n = 0; m; n++) {
        m /= 10;
    }

    return n;
}


int
gcp_quantity_cmp(const gcp_quantity_t *a, const gcp_quantity_t *b)
{
    int         sa, sb, ma, mb, neg;
    int32_t     d;
    gcp_i128_t  va, vb;

    sa = (a->value > 0) - (a->value < 0);
    sb = (b->value > 0) - (b->value < 0);

    if (sa != sb || sa == 0) {
        return sa - sb;
    }

    neg = sa < 0;

    /* magnitudes: the position of the leading digit first */

    ma = gcp_qty_digits(a->value) + a->scale;
    mb = gcp_qty_digits(b->value) + b->scale;

    if (ma != mb) {
        return (ma > mb) != neg ? 1 : -1;
    }

    va = a->value;
    vb = b->value;

    for (d = a->scale - b->scale; d > 0; d--) {
        va *= 10;
    }

    for (d = b->scale - a->scale; d > 0; d--) {
        vb *= 10;
    }

    return (va > vb) - (va < vb);
}


int
gcp_quantity_negative(const gcp_quantity_t *q)
{
    return q->value < 0;
}


int
gcp_quantity_integral(const gcp_quantity_t *q)
{
    gcp_i128_t  v;

    return gcp_qty_integer(q, &v);
}


void
gcp_quantity_add(gcp_quantity_t *sum, const gcp_quantity_t *a,
    const gcp_quantity_t *b)
{
    int32_t           s, d;
    gcp_i128_t        va, vb;
    gcp_qty_format_t  format;

    format = a->format;

    if (a->value == 0 || b->value == 0) {
        *sum = a->value == 0 ? *b : *a;
        sum->format = format;
        return;
    }

    s = gcp_min(a->scale, b->scale);

    if (gcp_max(a->scale, b->scale) - s > 18) {
        /* the smaller one does not show at this precision */
        *sum = a->scale > b->scale ? *a : *b;
        sum->format = format;
        return;
    }

    va = a->value;
    vb = b->value;

    for (d = a->scale - s; d > 0; d--) {
        va *= 10;
    }

    for (d = b->scale - s; d > 0; d--) {
        vb *= 10;
    }

    sum->format = format;
    gcp_qty_store(sum, va + vb, s);
}


void
gcp_quantity_canonical_map(json_t *obj, const char *field)
{
    json_t          *map, *v;
    const char      *key, *err;
    gcp_quantity_t   q;

    map = json_object_get(obj, field);

    if (!json_is_object(map)) {
        return;
    }

    json_object_foreach(map, key, v) {
        if (gcp_quantity_parse_json(v, &q, &err) == GCP_OK) {
            json_object_set_new(map, key, gcp_quantity_json(&q));
        }
    }
}
