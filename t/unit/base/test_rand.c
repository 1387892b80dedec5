
/*
 * Unit tests: UUIDs and generateName suffixes (core/base/gcp_rand.c).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gcp_rand.h"


#define ALPHABET  "bcdfghjklmnpqrstvwxz2456789"
#define NUUIDS    20000


static int
cmp_uuid(const void *x, const void *y)
{
    return memcmp(x, y, GCP_UUID_LEN + 1);
}


static void
test_uuid_format(void **state)
{
    int     i, j, variant[4];
    char   *all;
    char    u[GCP_UUID_LEN + 1];

    memset(variant, 0, sizeof(variant));

    all = malloc((size_t) NUUIDS * (GCP_UUID_LEN + 1));
    assert_non_null(all);

    for (i = 0; i < NUUIDS; i++) {
        memset(u, 'X', sizeof(u));
        assert_int_equal(gcp_uuid_v4(u), GCP_OK);
        assert_int_equal(strlen(u), GCP_UUID_LEN);

        for (j = 0; j < GCP_UUID_LEN; j++) {
            if (j == 8 || j == 13 || j == 18 || j == 23) {
                assert_int_equal(u[j], '-');
            } else {
                assert_non_null(strchr("0123456789abcdef", u[j]));
            }
        }

        assert_int_equal(u[14], '4');
        assert_non_null(strchr("89ab", u[19]));
        variant[strchr("89ab", u[19]) - "89ab"]++;

        memcpy(all + (size_t) i * (GCP_UUID_LEN + 1), u, GCP_UUID_LEN + 1);
    }

    /* all four variant nibbles occur (each ~25%) */
    for (i = 0; i < 4; i++) {
        assert_true(variant[i] > NUUIDS / 8);
    }

    /* no duplicates */
    qsort(all, NUUIDS, GCP_UUID_LEN + 1, cmp_uuid);

    for (i = 1; i < NUUIDS; i++) {
        assert_int_not_equal(cmp_uuid(all + (size_t) (i - 1)
                                      * (GCP_UUID_LEN + 1),
                                      all + (size_t) i * (GCP_UUID_LEN + 1)),
                             0);
    }

    free(all);
}


static void
test_uuid_bits_uniform(void **state)
{
    int            i, bit, ones[128];
    char           u[GCP_UUID_LEN + 1];
    const char    *p;
    unsigned int   v;

    memset(ones, 0, sizeof(ones));

    for (i = 0; i < 4000; i++) {
        assert_int_equal(gcp_uuid_v4(u), GCP_OK);

        bit = 0;

        for (p = u; *p; p++) {
            if (*p == '-') {
                continue;
            }

            v = (unsigned int) (*p <= '9' ? *p - '0' : *p - 'a' + 10);
            ones[bit++] += (v >> 3) & 1;
            ones[bit++] += (v >> 2) & 1;
            ones[bit++] += (v >> 1) & 1;
            ones[bit++] += v & 1;
        }
    }

    for (bit = 0; bit < 128; bit++) {

        /* fixed bits: version 0100 at 48..51, variant 10 at 64..65 */

        if (bit >= 48 && bit <= 51) {
            assert_int_equal(ones[bit], bit == 49 ? 4000 : 0);
            continue;
        }

        if (bit == 64 || bit == 65) {
            assert_int_equal(ones[bit], bit == 64 ? 4000 : 0);
            continue;
        }

        /* random bits: 2000 +- 6 sigma (sigma ~ 31.6) */
        if (ones[bit] < 1810 || ones[bit] > 2190) {
            print_error("bit %d set %d times in 4000\n", bit, ones[bit]);
            fail();
        }
    }
}


static void
test_name_suffix(void **state)
{
    int          i, j, count[27];
    char         s[64];
    double       chi2, expect;
    const char  *p;

    memset(count, 0, sizeof(count));

    for (i = 0; i < 20000; i++) {
        memset(s, 'X', sizeof(s));
        assert_int_equal(gcp_rand_name_suffix(s, GCP_RAND_SUFFIX_LEN),
                         GCP_OK);
        assert_int_equal(strlen(s), GCP_RAND_SUFFIX_LEN);

        for (j = 0; j < GCP_RAND_SUFFIX_LEN; j++) {
            p = strchr(ALPHABET, s[j]);
            assert_non_null(p);
            count[p - ALPHABET]++;
        }
    }

    /* uniform over 27 characters: chi-square, 26 degrees of freedom */
    expect = 20000.0 * GCP_RAND_SUFFIX_LEN / 27;
    chi2 = 0;

    for (i = 0; i < 27; i++) {
        chi2 += (count[i] - expect) * (count[i] - expect) / expect;
    }

    /* p(chi2 > 70) with 26 dof is about 1e-5 */
    if (chi2 > 70) {
        print_error("chi-square %.1f\n", chi2);
        fail();
    }

    /* other lengths, and 0 */
    assert_int_equal(gcp_rand_name_suffix(s, 63), GCP_OK);
    assert_int_equal(strlen(s), 63);
    assert_int_equal(strspn(s, ALPHABET), 63);

    s[0] = 'X';
    assert_int_equal(gcp_rand_name_suffix(s, 0), GCP_OK);
    assert_string_equal(s, "");
}


static void
test_generate_name(void **state)
{
    char         *name;
    const char   *base;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);

    /* reference 02-cm-create-generatename.http: "cm-gen-" + 5 chars */
    name = gcp_rand_generate_name(a, "cm-gen-");
    assert_non_null(name);
    assert_int_equal(strlen(name), 12);
    assert_memory_equal(name, "cm-gen-", 7);
    assert_int_equal(strspn(name + 7, ALPHABET), 5);

    /* long bases are cut to 58 bytes, so names stay within 63 */
    base = "aaaaaaaaaabbbbbbbbbbccccccccccddddddddddeeeeeeeeeeffffffffffgggg";
    name = gcp_rand_generate_name(a, base);
    assert_int_equal(strlen(name), 63);
    assert_memory_equal(name, base, 58);
    assert_int_equal(strspn(name + 58, ALPHABET), 5);

    name = gcp_rand_generate_name(a, "");
    assert_int_equal(strlen(name), 5);
    assert_int_equal(strspn(name, ALPHABET), 5);

    assert_string_not_equal(gcp_rand_generate_name(a, "x-"),
                            gcp_rand_generate_name(a, "x-"));

    gcp_arena_destroy(a);
}


static void
test_rand_bytes(void **state)
{
    unsigned char  big[100000], zero[100000];

    memset(big, 0, sizeof(big));
    memset(zero, 0, sizeof(zero));

    assert_int_equal(gcp_rand_bytes(big, sizeof(big)), GCP_OK);
    assert_memory_not_equal(big + sizeof(big) - 64, zero, 64);
    assert_int_equal(gcp_rand_bytes(big, 0), GCP_OK);
}


/* A forked process never takes the bytes its parent will take next. */

static void
test_uuid_after_fork(void **state)
{
    int    fds[2], status;
    char   parent[GCP_UUID_LEN + 1], child[GCP_UUID_LEN + 1];
    pid_t  pid;

    /* the pool filled before the fork */
    assert_int_equal(gcp_uuid_v4(parent), GCP_OK);
    assert_int_equal(pipe(fds), 0);

    pid = fork();
    assert_true(pid >= 0);

    if (pid == 0) {
        if (gcp_uuid_v4(child) != GCP_OK
            || write(fds[1], child, sizeof(child)) != sizeof(child))
        {
            _exit(1);
        }

        _exit(0);
    }

    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(status, 0);
    assert_int_equal(read(fds[0], child, sizeof(child)), sizeof(child));

    assert_int_equal(gcp_uuid_v4(parent), GCP_OK);
    assert_string_not_equal(parent, child);

    close(fds[0]);
    close(fds[1]);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_uuid_format),
        cmocka_unit_test(test_uuid_bits_uniform),
        cmocka_unit_test(test_name_suffix),
        cmocka_unit_test(test_generate_name),
        cmocka_unit_test(test_rand_bytes),
        cmocka_unit_test(test_uuid_after_fork),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
