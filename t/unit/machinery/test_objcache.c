
/*
 * Unit tests: the decoded-object cache (core/machinery/gcp_objcache.c).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>

#include "gcp_objcache.h"


static gcp_str_t
key(char *buf, int i)
{
    gcp_str_t  k;

    k.len = (size_t) snprintf(buf, 64, "/registry/configmaps/ns/cm-%d", i);
    k.data = buf;

    return k;
}


static void
test_get_put_revisions(void **state)
{
    char             buf[64];
    json_t          *o1, *o2, *got;
    gcp_objcache_t  *c;

    c = gcp_objcache_create(1 << 20);
    assert_non_null(c);

    o1 = json_pack("{s:i}", "v", 1);
    o2 = json_pack("{s:i}", "v", 2);

    assert_null(gcp_objcache_get(c, key(buf, 1), 5));

    gcp_objcache_put(c, key(buf, 1), 5, o1, 100);
    got = gcp_objcache_get(c, key(buf, 1), 5);
    assert_ptr_equal(got, o1);
    json_decref(got);

    /* another revision misses; a newer one replaces; an older one not */
    assert_null(gcp_objcache_get(c, key(buf, 1), 6));
    gcp_objcache_put(c, key(buf, 1), 7, o2, 100);
    assert_null(gcp_objcache_get(c, key(buf, 1), 5));
    gcp_objcache_put(c, key(buf, 1), 6, o1, 100);
    got = gcp_objcache_get(c, key(buf, 1), 7);
    assert_ptr_equal(got, o2);
    json_decref(got);

    gcp_objcache_forget(c, key(buf, 1));
    assert_null(gcp_objcache_get(c, key(buf, 1), 7));

    json_decref(o1);
    json_decref(o2);
    gcp_objcache_free(c);
}


static void
test_eviction_and_growth(void **state)
{
    int              i;
    char             buf[64];
    size_t           entries, bytes;
    uint64_t         hits, misses;
    json_t          *o, *got;
    gcp_objcache_t  *c;

    c = gcp_objcache_create(200 * 1024);
    o = json_pack("{s:s}", "k", "v");

    for (i = 0; i < 10000; i++) {
        gcp_objcache_put(c, key(buf, i), i + 1, o, 100);
    }

    gcp_objcache_stats(c, &entries, &bytes, &hits, &misses);
    assert_true(bytes <= 200 * 1024);
    assert_true(entries > 500);

    /* the newest stay, the oldest went */
    got = gcp_objcache_get(c, key(buf, 9999), 10000);
    assert_non_null(got);
    json_decref(got);
    assert_null(gcp_objcache_get(c, key(buf, 0), 1));

    /* a used entry survives the next evictions */
    got = gcp_objcache_get(c, key(buf, 9000), 9001);
    assert_non_null(got);
    json_decref(got);

    for (i = 10000; i < 10500; i++) {
        gcp_objcache_put(c, key(buf, i), i + 1, o, 100);
    }

    got = gcp_objcache_get(c, key(buf, 9000), 9001);
    assert_non_null(got);
    json_decref(got);

    json_decref(o);
    gcp_objcache_free(c);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_get_put_revisions),
        cmocka_unit_test(test_eviction_and_growth),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
