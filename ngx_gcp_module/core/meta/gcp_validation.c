
/*
 * Generic Kubernetes validation (see gcp_validation.h): ObjectMeta on
 * create and update (labels, annotations, finalizers, ownerReferences,
 * managedFields, times as Go renders them).  Name formats are in
 * gcp_validation_names.c.
 */

#include <stdio.h>

#include "gcp_json.h"
#include "gcp_validation.h"


/* ObjectMeta */


static const char *
gcp_meta_str(const json_t *meta, const char *key, size_t *len)
{
    json_t  *v;

    v = json_is_object(meta) ? json_object_get(meta, key) : NULL;

    if (!json_is_string(v)) {
        *len = 0;
        return "";
    }

    *len = json_string_length(v);

    return json_string_value(v);
}


static json_int_t
gcp_meta_int(const json_t *meta, const char *key)
{
    json_t  *v;

    v = json_is_object(meta) ? json_object_get(meta, key) : NULL;

    return json_is_integer(v) ? json_integer_value(v) : 0;
}


void
gcp_validate_labels(gcp_ferrs_t *errs, const json_t *labels,
    const char *field)
{
    size_t       klen;
    json_t      *v;
    const char  *k;
    gcp_msgs_t   m;

    if (!json_is_object(labels)) {
        return;
    }

    json_object_keylen_foreach((json_t *) labels, k, klen, v) {
        gcp_is_qualified_name(k, klen, &m);
        gcp_ferrs_add_msgs(errs, field, k, klen, &m);

        if (json_is_string(v)) {
            gcp_is_label_value(json_string_value(v), json_string_length(v),
                               &m);
            gcp_ferrs_add_msgs(errs, field, json_string_value(v),
                               json_string_length(v), &m);
        }
    }
}


void
gcp_validate_annotations(gcp_ferrs_t *errs, const json_t *annotations,
    const char *field)
{
    char        *lower;
    size_t       klen, i, total;
    json_t      *v;
    const char  *k;
    gcp_msgs_t   m;

    if (!json_is_object(annotations)) {
        return;
    }

    total = 0;

    json_object_keylen_foreach((json_t *) annotations, k, klen, v) {
        lower = gcp_strndup(errs->arena, k, klen);
        if (lower == NULL) {
            errs->nomem = 1;
            return;
        }

        for (i = 0; i < klen; i++) {
            if (lower[i] >= 'A' && lower[i] <= 'Z') {
                lower[i] = (char) (lower[i] - 'A' + 'a');
            }
        }

        gcp_is_qualified_name(lower, klen, &m);
        gcp_ferrs_add_msgs(errs, field, k, klen, &m);

        total += klen;

        if (json_is_string(v)) {
            total += json_string_length(v);
        }
    }

    if (total > GCP_MAX_ANNOTATIONS_SIZE) {
        gcp_ferrs_add(errs, GCP_FERR_TOO_LONG, field, NULL,
                      "must have at most %d bytes", GCP_MAX_ANNOTATIONS_SIZE);
    }
}


void
gcp_validate_finalizer_name(gcp_ferrs_t *errs, const char *field,
    const char *s, size_t len, int core)
{
    gcp_msgs_t  m;

    gcp_is_qualified_name(s, len, &m);
    gcp_ferrs_add_msgs(errs, field, s, len, &m);

    if (!core || memchr(s, '/', len) != NULL) {
        return;
    }

    if ((len == 10 && memcmp(s, "kubernetes", 10) == 0)
        || (len == 6 && memcmp(s, "orphan", 6) == 0)
        || (len == 18 && memcmp(s, "foregroundDeletion", 18) == 0))
    {
        return;
    }

    gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                  gcp_go_quote(errs->arena, s, len),
                  "name is neither a standard finalizer name nor is it "
                  "fully qualified");
}


/* Appends Go's %#v of a []string held in a JSON array. */
static void
gcp_go_string_slice(gcp_buf_t *b, const json_t *arr)
{
    size_t   i;
    json_t  *v;

    gcp_buf_addstr(b, "[]string{");

    json_array_foreach((json_t *) arr, i, v) {
        if (i) {
            gcp_buf_addstr(b, ", ");
        }

        if (json_is_string(v)) {
            gcp_buf_addstr(b, gcp_go_quote(b->arena, json_string_value(v),
                                           json_string_length(v)));

        } else {
            gcp_buf_addstr(b, "\"\"");
        }
    }

    gcp_buf_addc(b, '}');
}


static void
gcp_validate_finalizers(gcp_ferrs_t *errs, const json_t *finalizers,
    const char *field)
{
    size_t      i;
    json_t     *v;
    unsigned    orphan, foreground;
    gcp_buf_t   b;

    if (!json_is_array(finalizers)) {
        return;
    }

    orphan = 0;
    foreground = 0;

    json_array_foreach((json_t *) finalizers, i, v) {
        if (!json_is_string(v)) {
            continue;
        }

        gcp_validate_finalizer_name(errs, field, json_string_value(v),
                                    json_string_length(v), 0);

        if (strcmp(json_string_value(v), "orphan") == 0) {
            orphan = 1;

        } else if (strcmp(json_string_value(v), "foregroundDeletion") == 0) {
            foreground = 1;
        }
    }

    if (orphan && foreground) {
        gcp_buf_init(&b, errs->arena);
        gcp_go_string_slice(&b, finalizers);

        gcp_ferrs_add(errs, GCP_FERR_INVALID, field, gcp_buf_cstr(&b),
                      "finalizer orphan and foregroundDeletion cannot be "
                      "both set");
    }
}


/* core: validateKubeFinalizerName() for every metadata.finalizers entry */
static void
gcp_validate_core_finalizers(gcp_ferrs_t *errs, const json_t *finalizers,
    const char *field)
{
    size_t       i, len;
    json_t      *v;
    const char  *s;

    json_array_foreach((json_t *) finalizers, i, v) {
        if (!json_is_string(v)) {
            continue;
        }

        s = json_string_value(v);
        len = json_string_length(v);

        if (memchr(s, '/', len) != NULL
            || (len == 10 && memcmp(s, "kubernetes", 10) == 0)
            || (len == 6 && memcmp(s, "orphan", 6) == 0)
            || (len == 18 && memcmp(s, "foregroundDeletion", 18) == 0))
        {
            continue;
        }

        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      gcp_go_quote(errs->arena, s, len),
                      "name is neither a standard finalizer name nor is it "
                      "fully qualified");
    }
}


/* Appends Go's %#v of a metav1.OwnerReference held in a JSON object. */
static void
gcp_go_owner_ref(gcp_buf_t *b, const json_t *ref)
{
    size_t        i, len;
    json_t       *v;
    const char   *s;

    static const char  *fields[] = { "apiVersion", "APIVersion", "kind",
                                     "Kind", "name", "Name", "uid", "UID" };

    gcp_buf_addstr(b, "v1.OwnerReference{");

    for (i = 0; i < gcp_nelems(fields); i += 2) {
        v = json_object_get(ref, fields[i]);
        s = json_is_string(v) ? json_string_value(v) : "";
        len = json_is_string(v) ? json_string_length(v) : 0;

        gcp_buf_printf(b, "%s:%s, ", fields[i + 1],
                       gcp_go_quote(b->arena, s, len));
    }

    /* pointers: Go shows an address, which no client can rely on */

    gcp_buf_printf(b, "Controller:(*bool)(%s), ",
                   json_is_boolean(json_object_get(ref, "controller"))
                   ? "0xc000010000" : "nil");
    gcp_buf_printf(b, "BlockOwnerDeletion:(*bool)(%s)}",
                   json_is_boolean(json_object_get(ref,
                                                   "blockOwnerDeletion"))
                   ? "0xc000010001" : "nil");
}


static void
gcp_validate_owner_refs(gcp_ferrs_t *errs, const json_t *refs,
    const char *field)
{
    char         *fld, *first;
    size_t        i, j, len;
    json_t       *ref;
    gcp_buf_t     b;
    const char   *api, *kind, *name, *version;

    static const struct {
        const char  *key;
        const char  *detail;
    } required[] = {
        { "kind", "kind must not be empty" },
        { "name", "name must not be empty" },
        { "uid", "uid must not be empty" },
    };

    if (!json_is_array(refs)) {
        return;
    }

    first = NULL;

    json_array_foreach((json_t *) refs, i, ref) {
        if (!json_is_object(ref)) {
            continue;
        }

        /* schema.FromAPIVersionAndKind(): the version after the group */

        api = gcp_meta_str(ref, "apiVersion", &len);
        version = api;

        if (memchr(api, '/', len) != NULL) {
            version = strchr(api, '/') + 1;

            if (strchr(version, '/') != NULL) {
                version = "";           /* not a group version */
            }
        }

        if (strcmp(api, "/") == 0) {
            version = "";
        }

        fld = gcp_sprintf(errs->arena, "%s.apiVersion", field);

        if (*version == '\0' && fld) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, fld,
                          gcp_go_quote(errs->arena, api, len),
                          "version must not be empty");
        }

        for (j = 0; j < gcp_nelems(required); j++) {
            name = gcp_meta_str(ref, required[j].key, &len);

            if (len == 0) {
                fld = gcp_sprintf(errs->arena, "%s.%s", field,
                                  required[j].key);
                gcp_ferrs_add(errs, GCP_FERR_INVALID, fld, "\"\"", "%s",
                              required[j].detail);
            }
        }

        kind = gcp_meta_str(ref, "kind", &len);

        if (strcmp(version, "v1") == 0 && strcmp(kind, "Event") == 0
            && (strchr(api, '/') == NULL || api[0] == '/'))
        {
            gcp_buf_init(&b, errs->arena);
            gcp_go_owner_ref(&b, ref);
            gcp_ferrs_add(errs, GCP_FERR_INVALID, field, gcp_buf_cstr(&b),
                          "/v1, Kind=Event is disallowed from being an "
                          "owner");
        }

        if (!json_is_true(json_object_get(ref, "controller"))) {
            continue;
        }

        name = gcp_meta_str(ref, "name", &len);

        if (first == NULL) {
            first = gcp_sprintf(errs->arena, "%s/%s", kind, name);
            continue;
        }

        gcp_buf_init(&b, errs->arena);
        gcp_buf_addstr(&b, "[]v1.OwnerReference{");

        for (j = 0; j < json_array_size(refs); j++) {
            if (j) {
                gcp_buf_addstr(&b, ", ");
            }

            gcp_go_owner_ref(&b, json_array_get(refs, j));
        }

        gcp_buf_addc(&b, '}');

        gcp_ferrs_add(errs, GCP_FERR_INVALID, field, gcp_buf_cstr(&b),
                      "Only one reference can have Controller set to true. "
                      "Found \"true\" in references for %s and %s/%s",
                      first, kind, name);
    }
}


/* ValidateFieldManager() */
static void
gcp_validate_field_manager(gcp_ferrs_t *errs, const char *s, size_t len,
    const char *field)
{
    size_t    i, n;
    uint32_t  r;

    if (len > 128) {
        gcp_ferrs_add(errs, GCP_FERR_TOO_LONG, field, NULL,
                      "must have at most 128 bytes");
    }

    for (i = 0; i < len; i += n) {
        n = gcp_utf8_decode((const unsigned char *) s + i, len - i, &r);

        if (!gcp_go_isprint(r) && !(r == 0xfffd && n > 1)) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                          gcp_go_quote(errs->arena, s, len),
                          "invalid character U+%04X (at position %zu)",
                          (unsigned) r, i);
        }
    }
}


static void
gcp_validate_managed_fields(gcp_ferrs_t *errs, const json_t *list,
    const char *field)
{
    char        *fld;
    size_t       i, len;
    json_t      *e;
    const char  *s;

    if (!json_is_array(list)) {
        return;
    }

    json_array_foreach((json_t *) list, i, e) {
        s = gcp_meta_str(e, "operation", &len);

        if (strcmp(s, "Apply") != 0 && strcmp(s, "Update") != 0) {
            fld = gcp_sprintf(errs->arena, "%s[%zu].operation", field, i);
            gcp_ferrs_add(errs, GCP_FERR_INVALID, fld,
                          gcp_go_quote(errs->arena, s, len),
                          "must be `Apply` or `Update`");
        }

        s = gcp_meta_str(e, "fieldsType", &len);

        if (len && strcmp(s, "FieldsV1") != 0) {
            fld = gcp_sprintf(errs->arena, "%s[%zu].fieldsType", field, i);
            gcp_ferrs_add(errs, GCP_FERR_INVALID, fld,
                          gcp_go_quote(errs->arena, s, len),
                          "must be `FieldsV1`");
        }

        s = gcp_meta_str(e, "manager", &len);
        fld = gcp_sprintf(errs->arena, "%s[%zu].manager", field, i);
        gcp_validate_field_manager(errs, s, len, fld ? fld : field);

        gcp_meta_str(e, "subresource", &len);

        if (len > 256) {
            fld = gcp_sprintf(errs->arena, "%s[%zu].subresource", field, i);
            gcp_ferrs_add(errs, GCP_FERR_TOO_LONG, fld, NULL,
                          "must have at most 256 bytes");
        }
    }
}


/* "PATH.field" in the arena (field alone when out of memory) */
static const char *
gcp_meta_field(gcp_ferrs_t *errs, const char *path, const char *field)
{
    const char  *f;

    f = gcp_sprintf(errs->arena, "%s.%s", path, field);

    return f ? f : field;
}


static void
gcp_validate_meta_common(gcp_ferrs_t *errs, const json_t *meta,
    const char *path)
{
    gcp_validate_labels(errs, json_object_get(meta, "labels"),
                        gcp_meta_field(errs, path, "labels"));
    gcp_validate_annotations(errs, json_object_get(meta, "annotations"),
                             gcp_meta_field(errs, path, "annotations"));
    gcp_validate_owner_refs(errs, json_object_get(meta, "ownerReferences"),
                            gcp_meta_field(errs, path, "ownerReferences"));
}


void
gcp_validate_object_meta(gcp_ferrs_t *errs, const json_t *meta,
    const gcp_meta_opts_t *opts)
{
    gcp_validate_object_meta_at(errs, meta, opts, "metadata");
}


void
gcp_validate_object_meta_at(gcp_ferrs_t *errs, const json_t *meta,
    const gcp_meta_opts_t *opts, const char *path)
{
    char        num[32];
    size_t      len;
    json_int_t  gen;
    gcp_msgs_t  m;
    const char *s;

    if (!json_is_object(meta)) {
        meta = NULL;
    }

    s = gcp_meta_str(meta, "generateName", &len);

    if (len) {
        gcp_validate_name(opts->name_mode, s, len, 1, &m);
        gcp_ferrs_add_msgs(errs, gcp_meta_field(errs, path, "generateName"),
                           s, len, &m);
    }

    s = gcp_meta_str(meta, "name", &len);

    if (len == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                      gcp_meta_field(errs, path, "name"), NULL,
                      "name or generateName is required");

    } else {
        gcp_validate_name(opts->name_mode, s, len, 0, &m);
        gcp_ferrs_add_msgs(errs, gcp_meta_field(errs, path, "name"), s, len,
                           &m);
    }

    s = gcp_meta_str(meta, "namespace", &len);

    if (opts->namespaced) {
        if (len == 0) {
            gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                          gcp_meta_field(errs, path, "namespace"), NULL,
                          NULL);

        } else {
            gcp_is_dns1123_label(s, len, &m);
            gcp_ferrs_add_msgs(errs, gcp_meta_field(errs, path, "namespace"),
                               s, len, &m);
        }

    } else if (len) {
        gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN,
                      gcp_meta_field(errs, path, "namespace"), NULL,
                      "not allowed on this type");
    }

    gen = gcp_meta_int(meta, "generation");

    if (gen < 0) {
        snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, gen);
        gcp_ferrs_add(errs, GCP_FERR_INVALID,
                      gcp_meta_field(errs, path, "generation"), num,
                      "must be greater than or equal to 0");
    }

    if (meta == NULL) {
        return;
    }

    gcp_validate_meta_common(errs, meta, path);
    gcp_validate_finalizers(errs, json_object_get(meta, "finalizers"),
                            gcp_meta_field(errs, path, "finalizers"));
    gcp_validate_managed_fields(errs, json_object_get(meta, "managedFields"),
                                gcp_meta_field(errs, path, "managedFields"));

    if (opts->core) {
        gcp_validate_core_finalizers(errs,
                                     json_object_get(meta, "finalizers"),
                                     gcp_meta_field(errs, path,
                                                    "finalizers"));
    }
}


/* times: RFC 3339 as metav1.Time reads it, and Go's Time.String() */


typedef struct {
    int64_t   sec;              /* since the epoch, UTC */
    long      nsec;
    unsigned  zero:1;
    unsigned  bad:1;
} gcp_vtime_t;


static int
gcp_vtime_digits(const char *s, size_t n)
{
    int     v;
    size_t  i;

    v = 0;

    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return -1;
        }

        v = v * 10 + (s[i] - '0');
    }

    return v;
}


/* days from 1970-01-01 to y-m-d (proleptic Gregorian) */
static int64_t
gcp_vtime_days(int64_t y, int m, int d)
{
    int64_t  era, yoe, doy, doe;

    y -= (m <= 2);
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

    return era * 146097 + doe - 719468;
}


/* time.Parse(time.RFC3339, s); "" is the zero time */
static gcp_vtime_t
gcp_vtime_parse_str(const char *s, size_t n)
{
    int           y, mo, d, h, mi, sec, oh, om, sign;
    long          frac, scale;
    size_t        i;
    gcp_vtime_t   t;

    memset(&t, 0, sizeof(gcp_vtime_t));

    if (n == 0) {
        t.zero = 1;
        return t;
    }

    if (n < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't')
        || s[13] != ':' || s[16] != ':')
    {
        t.bad = 1;
        return t;
    }

    y = gcp_vtime_digits(s, 4);
    mo = gcp_vtime_digits(s + 5, 2);
    d = gcp_vtime_digits(s + 8, 2);
    h = gcp_vtime_digits(s + 11, 2);
    mi = gcp_vtime_digits(s + 14, 2);
    sec = gcp_vtime_digits(s + 17, 2);

    if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23
        || mi < 0 || mi > 59 || sec < 0 || sec > 59)
    {
        t.bad = 1;
        return t;
    }

    i = 19;
    frac = 0;

    if (s[i] == '.' || s[i] == ',') {
        scale = 100000000;

        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            frac += (s[i] - '0') * scale;
            scale /= 10;
        }
    }

    oh = 0;
    om = 0;
    sign = 0;

    if (i < n && (s[i] == 'Z' || s[i] == 'z') && i + 1 == n) {
        /* UTC */

    } else if (i + 6 == n && (s[i] == '+' || s[i] == '-')
               && s[i + 3] == ':')
    {
        sign = (s[i] == '-') ? -1 : 1;
        oh = gcp_vtime_digits(s + i + 1, 2);
        om = gcp_vtime_digits(s + i + 4, 2);

        if (oh < 0 || om < 0) {
            t.bad = 1;
            return t;
        }

    } else {
        t.bad = 1;
        return t;
    }

    t.sec = gcp_vtime_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec
            - sign * (oh * 3600 + om * 60);
    t.nsec = frac;

    return t;
}


/* a JSON metav1.Time: absent and null are the zero time */
static gcp_vtime_t
gcp_vtime_parse(const json_t *v)
{
    if (!json_is_string(v)) {
        return gcp_vtime_parse_str("", 0);
    }

    return gcp_vtime_parse_str(json_string_value(v), json_string_length(v));
}


const char *
gcp_validation_time_string(gcp_arena_t *a, const char *ts)
{
    char          frac[16];
    int64_t       days, rem, z, era, doe, yoe, y, doy, mp, d, m;
    size_t        n;
    gcp_vtime_t   t;

    if (ts == NULL) {
        return gcp_strdup(a, "0001-01-01 00:00:00 +0000 UTC");
    }

    t = gcp_vtime_parse_str(ts, strlen(ts));

    if (t.zero || t.bad) {
        return gcp_strdup(a, "0001-01-01 00:00:00 +0000 UTC");
    }

    days = t.sec / 86400;
    rem = t.sec % 86400;

    if (rem < 0) {
        rem += 86400;
        days--;
    }

    /* civil_from_days() */
    z = days + 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    y = yoe + era * 400;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y += (m <= 2);

    frac[0] = '\0';

    if (t.nsec) {
        snprintf(frac, sizeof(frac), ".%09ld", t.nsec);

        for (n = strlen(frac); frac[n - 1] == '0'; n--) {
            frac[n - 1] = '\0';
        }
    }

    return gcp_sprintf(a, "%04ld-%02ld-%02ld %02ld:%02ld:%02ld%s +0000 UTC",
                       (long) y, (long) m, (long) d, (long) (rem / 3600),
                       (long) (rem / 60 % 60), (long) (rem % 60), frac);
}


/* apiequality.Semantic.DeepEqual of two metav1.Time (or MicroTime) */
static int
gcp_vtime_equal(const json_t *a, const json_t *b)
{
    gcp_vtime_t  ta, tb;

    ta = gcp_vtime_parse(a);
    tb = gcp_vtime_parse(b);

    if (ta.zero || tb.zero || ta.bad || tb.bad) {
        return ta.zero == tb.zero && ta.bad == tb.bad
               && (!ta.bad || json_equal((json_t *) a, (json_t *) b));
    }

    return ta.sec == tb.sec && ta.nsec == tb.nsec;
}


/* The %v of a metav1.Time value, or "\"null\"" for a nil pointer. */
static const char *
gcp_vtime_render(gcp_arena_t *a, const json_t *v, int pointer)
{
    if (pointer && (v == NULL || json_is_null(v))) {
        return "\"null\"";
    }

    return gcp_validation_time_string(a, json_is_string(v)
                                         ? json_string_value(v) : NULL);
}


static void
gcp_validate_immutable_str(gcp_ferrs_t *errs, const json_t *new_meta,
    const json_t *old_meta, const char *key, const char *field)
{
    size_t       nlen, olen;
    const char  *n, *o;

    n = gcp_meta_str(new_meta, key, &nlen);
    o = gcp_meta_str(old_meta, key, &olen);

    if (nlen != olen || memcmp(n, o, nlen) != 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      gcp_go_quote(errs->arena, n, nlen),
                      "field is immutable");
    }
}


void
gcp_validate_object_meta_update(gcp_ferrs_t *errs, const json_t *new_meta,
    const json_t *old_meta, const gcp_meta_opts_t *opts)
{
    char         num[32];
    size_t       i, j, len;
    json_t      *nf, *of, *v, *w, *extra;
    gcp_buf_t    b;
    json_int_t   ngen, ogen;
    const json_t *nt, *ot;

    if (!json_is_object(new_meta)) {
        new_meta = NULL;
    }

    if (!json_is_object(old_meta)) {
        old_meta = NULL;
    }

    /* no new finalizers once the object is being deleted */

    ot = old_meta ? json_object_get(old_meta, "deletionTimestamp") : NULL;
    nf = new_meta ? json_object_get(new_meta, "finalizers") : NULL;
    of = old_meta ? json_object_get(old_meta, "finalizers") : NULL;

    if (json_is_string(ot) && json_is_array(nf)) {
        extra = json_array();

        json_array_foreach(nf, i, v) {
            if (!json_is_string(v)) {
                continue;
            }

            json_array_foreach(of, j, w) {
                if (json_equal(v, w)) {
                    break;
                }
            }

            if (of == NULL || j == json_array_size(of)) {
                json_array_foreach(extra, j, w) {
                    if (json_equal(v, w)) {
                        break;
                    }
                }

                if (j == json_array_size(extra)) {
                    json_array_append(extra, v);
                }
            }
        }

        if (json_array_size(extra)) {
            /* sets.String.List() is sorted */
            for (i = 1; i < json_array_size(extra); i++) {
                for (j = i; j > 0
                     && strcmp(json_string_value(json_array_get(extra, j)),
                               json_string_value(json_array_get(extra,
                                                                j - 1))) < 0;
                     j--)
                {
                    v = json_incref(json_array_get(extra, j));
                    json_array_set(extra, j, json_array_get(extra, j - 1));
                    json_array_set_new(extra, j - 1, v);
                }
            }

            gcp_buf_init(&b, errs->arena);
            gcp_go_string_slice(&b, extra);

            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "metadata.finalizers",
                          NULL, "no new finalizers can be added if the "
                          "object is being deleted, found new finalizers %s",
                          gcp_buf_cstr(&b));
        }

        json_decref(extra);
    }

    gcp_meta_str(new_meta, "resourceVersion", &len);

    if (len == 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "metadata.resourceVersion",
                      "\"\"", "must be specified for an update");
    }

    ngen = gcp_meta_int(new_meta, "generation");
    ogen = gcp_meta_int(old_meta, "generation");

    if (ngen < ogen) {
        snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, ngen);
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "metadata.generation", num,
                      "must not be decremented");
    }

    gcp_validate_immutable_str(errs, new_meta, old_meta, "name",
                               "metadata.name");
    gcp_validate_immutable_str(errs, new_meta, old_meta, "namespace",
                               "metadata.namespace");
    gcp_validate_immutable_str(errs, new_meta, old_meta, "uid",
                               "metadata.uid");

    nt = new_meta ? json_object_get(new_meta, "creationTimestamp") : NULL;
    ot = old_meta ? json_object_get(old_meta, "creationTimestamp") : NULL;

    if (!gcp_vtime_equal(nt, ot)) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "metadata.creationTimestamp",
                      gcp_vtime_render(errs->arena, nt, 0),
                      "field is immutable");
    }

    nt = new_meta ? json_object_get(new_meta, "deletionTimestamp") : NULL;
    ot = old_meta ? json_object_get(old_meta, "deletionTimestamp") : NULL;

    if (!gcp_vtime_equal(nt, ot)) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "metadata.deletionTimestamp",
                      gcp_vtime_render(errs->arena, nt, 1),
                      "field is immutable");
    }

    nt = new_meta ? json_object_get(new_meta, "deletionGracePeriodSeconds")
                  : NULL;
    ot = old_meta ? json_object_get(old_meta, "deletionGracePeriodSeconds")
                  : NULL;

    if (!json_is_integer(nt)) {
        nt = NULL;
    }

    if (!json_is_integer(ot)) {
        ot = NULL;
    }

    if ((nt == NULL) != (ot == NULL)
        || (nt && json_integer_value(nt) != json_integer_value(ot)))
    {
        if (nt) {
            snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT,
                     json_integer_value(nt));
        }

        gcp_ferrs_add(errs, GCP_FERR_INVALID,
                      "metadata.deletionGracePeriodSeconds",
                      nt ? num : "\"null\"", "field is immutable");
    }

    if (new_meta == NULL) {
        return;
    }

    gcp_validate_meta_common(errs, new_meta, "metadata");
    gcp_validate_managed_fields(errs,
                                json_object_get(new_meta, "managedFields"),
                                "metadata.managedFields");

    if (opts->core) {
        gcp_validate_core_finalizers(errs, nf, "metadata.finalizers");
    }
}
