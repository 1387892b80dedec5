
/*
 * Unit tests: the string formats of CRD schemas
 * (core/apiextensions/gcp_crd_formats*.c), with the answers of the Go
 * parsers and strfmt checks kube-apiserver uses.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "gcp_crd_formats.h"


static void
test_lookup(void **state)
{
    assert_int_equal(gcp_crd_format_lookup("date-time", 9),
                     GCP_CRD_FMT_DATETIME);
    assert_int_equal(gcp_crd_format_lookup("datetime", 8),
                     GCP_CRD_FMT_DATETIME);
    assert_int_equal(gcp_crd_format_lookup("bsonobjectid", 12),
                     GCP_CRD_FMT_BSONOBJECTID);
    assert_int_equal(gcp_crd_format_lookup("u-u-i-d", 7), GCP_CRD_FMT_UUID);
    assert_int_equal(gcp_crd_format_lookup("int32", 5), GCP_CRD_FMT_NONE);
    assert_int_equal(gcp_crd_format_lookup("quantity", 8), GCP_CRD_FMT_NONE);
    assert_int_equal(gcp_crd_format_lookup("UUID", 4), GCP_CRD_FMT_NONE);
    assert_int_equal(gcp_crd_format_lookup("", 0), GCP_CRD_FMT_NONE);
}


static void
test_values(void **state)
{
    int               got;
    size_t            i;
    gcp_arena_t      *a;
    gcp_crd_regex_t  *host;
    gcp_crd_match_t  *m;

    static const struct {
        gcp_crd_format_t   f;
        const char        *s;
        int                valid;
    }  t[] = {
        { GCP_CRD_FMT_DATE, "2020-02-29", 1 },
        { GCP_CRD_FMT_DATE, "2020-02-30", 0 },
        { GCP_CRD_FMT_DATE, "2021-02-29", 0 },
        { GCP_CRD_FMT_DATE, "2020-1-01", 0 },
        { GCP_CRD_FMT_DATE, "2020-01-01T00:00:00Z", 0 },

        { GCP_CRD_FMT_DATETIME, "2020-01-01T10:00:00Z", 1 },
        { GCP_CRD_FMT_DATETIME, "2020-01-01t10:00:00.123456789+02:00", 1 },
        { GCP_CRD_FMT_DATETIME, "2020-01-01T10:00:00", 0 },
        { GCP_CRD_FMT_DATETIME, "2020-01-01 10:00:00Z", 0 },
        { GCP_CRD_FMT_DATETIME, "2020-13-01T10:00:00Z", 0 },

        { GCP_CRD_FMT_DURATION, "1h30m", 1 },
        { GCP_CRD_FMT_DURATION, "-1.5s", 1 },
        { GCP_CRD_FMT_DURATION, "3 days 2h", 1 },
        { GCP_CRD_FMT_DURATION, "0", 1 },
        { GCP_CRD_FMT_DURATION, "1", 0 },
        { GCP_CRD_FMT_DURATION, "1x", 0 },
        { GCP_CRD_FMT_DURATION, "", 0 },

        { GCP_CRD_FMT_UUID, "550e8400-e29b-41d4-a716-446655440000", 1 },
        { GCP_CRD_FMT_UUID, "0123456789abcdef0123456789ABCDEF", 1 },
        { GCP_CRD_FMT_UUID, "550e8400-e29b-41d4-a716-44665544000", 0 },
        { GCP_CRD_FMT_UUID3, "a987fbc9-4bed-3078-8f07-9141ba07c9f3", 1 },
        { GCP_CRD_FMT_UUID3, "550e8400-e29b-41d4-a716-446655440000", 0 },
        { GCP_CRD_FMT_UUID4, "550e8400-e29b-41d4-a716-446655440000", 1 },
        { GCP_CRD_FMT_UUID4, "550e8400-e29b-41d4-c716-446655440000", 0 },
        { GCP_CRD_FMT_UUID5, "987fbc97-4bed-5078-9f07-9141ba07c9f3", 1 },

        { GCP_CRD_FMT_BYTE, "YWI=", 1 },
        { GCP_CRD_FMT_BYTE, "YWJj", 1 },
        { GCP_CRD_FMT_BYTE, "YWI", 0 },
        { GCP_CRD_FMT_BYTE, "@@@@", 0 },

        { GCP_CRD_FMT_IPV4, "1.2.3.4", 1 },
        { GCP_CRD_FMT_IPV4, "001.2.3.4", 1 },
        { GCP_CRD_FMT_IPV4, "::ffff:1.2.3.4", 1 },
        { GCP_CRD_FMT_IPV4, "256.1.1.1", 0 },
        { GCP_CRD_FMT_IPV4, "::1", 0 },
        { GCP_CRD_FMT_IPV6, "::1", 1 },
        { GCP_CRD_FMT_IPV6, "fe80::1:2:3:4", 1 },
        { GCP_CRD_FMT_IPV6, "1.2.3.4", 0 },
        { GCP_CRD_FMT_IPV6, "1:2:3:4:5:6:7:8:9", 0 },
        { GCP_CRD_FMT_CIDR, "10.0.0.0/8", 1 },
        { GCP_CRD_FMT_CIDR, "010.0.0.0/8", 1 },
        { GCP_CRD_FMT_CIDR, "::/0", 1 },
        { GCP_CRD_FMT_CIDR, "10.0.0.0/33", 0 },
        { GCP_CRD_FMT_CIDR, "10.0.0.0", 0 },
        { GCP_CRD_FMT_MAC, "00:11:22:33:44:55", 1 },
        { GCP_CRD_FMT_MAC, "00-11-22-33-44-55", 1 },
        { GCP_CRD_FMT_MAC, "0011.2233.4455", 1 },
        { GCP_CRD_FMT_MAC, "00:11:22:33:44", 0 },

        { GCP_CRD_FMT_EMAIL, "a@b.c", 1 },
        { GCP_CRD_FMT_EMAIL, "A <a@b.c>", 1 },
        { GCP_CRD_FMT_EMAIL, "a@", 0 },
        { GCP_CRD_FMT_EMAIL, "bad value!", 0 },
        { GCP_CRD_FMT_URI, "http://x/y", 1 },
        { GCP_CRD_FMT_URI, "/relative/path", 1 },
        { GCP_CRD_FMT_URI, "mailto:a@b.c", 1 },
        { GCP_CRD_FMT_URI, "relative", 0 },
        { GCP_CRD_FMT_URI, "http://[::1", 0 },
        { GCP_CRD_FMT_HOSTNAME, "ex-ample.com", 1 },
        { GCP_CRD_FMT_HOSTNAME, "xn--bcher-kva.example", 1 },
        { GCP_CRD_FMT_HOSTNAME, "-bad.com", 0 },
        { GCP_CRD_FMT_HOSTNAME, "bad value!", 0 },

        { GCP_CRD_FMT_ISBN, "0321751043", 1 },
        { GCP_CRD_FMT_ISBN, "978-0-321-75104-1", 1 },
        { GCP_CRD_FMT_ISBN, "0321751044", 0 },
        { GCP_CRD_FMT_ISBN10, "978-0-321-75104-1", 0 },
        { GCP_CRD_FMT_ISBN13, "9780321751041", 1 },
        { GCP_CRD_FMT_CREDITCARD, "4111 1111 1111 1111", 1 },
        { GCP_CRD_FMT_CREDITCARD, "4111 1111 1111 1112", 0 },
        { GCP_CRD_FMT_SSN, "123-45-6789", 1 },
        { GCP_CRD_FMT_SSN, "123456789", 0 },
        { GCP_CRD_FMT_HEXCOLOR, "#abc", 1 },
        { GCP_CRD_FMT_HEXCOLOR, "a0b1c2", 1 },
        { GCP_CRD_FMT_HEXCOLOR, "#abcd", 0 },
        { GCP_CRD_FMT_RGBCOLOR, "rgb(1, 2,255)", 1 },
        { GCP_CRD_FMT_RGBCOLOR, "rgb(1,2,256)", 0 },
        { GCP_CRD_FMT_BSONOBJECTID, "507f1f77bcf86cd799439011", 1 },
        { GCP_CRD_FMT_BSONOBJECTID, "507f1f77bcf86cd79943901", 0 },
        { GCP_CRD_FMT_PASSWORD, "anything at all", 1 },
        { GCP_CRD_FMT_NONE, "", 1 },
    };

    a = gcp_arena_create(0);
    assert_non_null(a);

    host = gcp_crd_format_hostname_re(a);
    assert_non_null(host);

    m = gcp_crd_match_create();
    assert_non_null(m);

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        got = gcp_crd_format_check(t[i].f, t[i].s, strlen(t[i].s), host, m);

        if (got != t[i].valid) {
            fail_msg("format %d \"%s\": want %d, got %d", (int) t[i].f,
                     t[i].s, t[i].valid, got);
        }
    }

    gcp_crd_match_free(m);
    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_values),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
