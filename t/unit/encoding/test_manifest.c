
/*
 * Unit tests: manifest files read as kubectl reads "-f FILE"
 * (core/encoding/gcp_manifest.c).  kubectl 1.32 gave the same documents,
 * list items and messages for these files (kubectl label --local -f);
 * lists in lists are flattened in the order of kubectl's
 * FlattenListVisitor (breadth first).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_manifest.h"


/* One line per object or error: "DOC LINE ITEM: json-or-message". */
static const char *
read_all(gcp_arena_t *a, const char *data, size_t len)
{
    size_t               i, n;
    gcp_buf_t            b;
    gcp_manifest_obj_t  *objs;

    assert_int_equal(gcp_manifest_read(a, data, len, &objs, &n), GCP_OK);

    gcp_buf_init(&b, a);

    for (i = 0; i < n; i++) {
        assert_true((objs[i].obj == NULL) != (objs[i].msg == NULL));

        gcp_buf_printf(&b, "%zu %zu %zd: %s\n", objs[i].doc, objs[i].line,
                       objs[i].item, objs[i].msg
                       ? objs[i].msg
                       : gcp_json_dump(a, objs[i].obj, 0).data);
    }

    assert_false(gcp_buf_failed(&b));

    return b.len ? gcp_buf_cstr(&b) : "";
}


/* read_all() of a string literal */
#define read_lit(a, s)  read_all(a, s, sizeof(s) - 1)


#define CM(name)  "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","          \
                  "\"metadata\":{\"name\":\"" name "\"}}"


static void
test_yaml_documents(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    static const char  file[] =
        "# a header: a document of its own, null\n"
        "---\n"
        "apiVersion: v1\n"
        "kind: ConfigMap\n"
        "metadata: {name: a}\n"
        "---   # a comment may follow\n"
        "\n"
        "---\r\n"
        "apiVersion: v1\r\n"
        "kind: ConfigMap\r\n"
        "metadata:\r\n"
        "  name: b\r\n"
        "...\n"
        "---\n"
        "x: [\n"
        "---\n"
        "apiVersion: v1\n"
        "kind: ConfigMap\n"
        "metadata: {name: c}\n"
        "data: {a: 's}";

    assert_string_equal(read_all(a, file, sizeof(file) - 1),
        "1 3 -1: " CM("a") "\n"
        "3 9 -1: " CM("b") "\n"
        /* a bad document: counted from its first line, as kubectl does */
        "4 15 -1: error converting YAML to JSON: yaml: line 1: did not "
        "find expected node content\n"
        /* the rest is read; kubectl's line reader ends the file in "\n" */
        "5 17 -1: error converting YAML to JSON: yaml: line 5: found "
        "unexpected end of stream\n");

    /* nothing */
    assert_string_equal(read_lit(a, ""), "");
    assert_string_equal(read_lit(a, "---\n---\n# c\n\n"), "");
    assert_string_equal(read_all(a, NULL, 0), "");

    /* kubectl's separators: "---" first, then blanks or a comment */
    assert_string_equal(read_lit(a, "a: 1\n--- x\nb: 2\n"),
        "0 2 -1: invalid Yaml document separator: x\n");
    assert_string_equal(read_lit(a, "kind: A\napiVersion: v\n---#c\n"
                                 "kind: B\napiVersion: v\n"),
        "0 1 -1: {\"apiVersion\":\"v\",\"kind\":\"A\"}\n"
        "1 4 -1: {\"apiVersion\":\"v\",\"kind\":\"B\"}\n");

    gcp_arena_destroy(a);
}


static void
test_objects(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    assert_string_equal(read_lit(a, "metadata: {name: x}\n"),
        "0 1 -1: Object 'Kind' is missing in '{\"metadata\":{\"name\":"
        "\"x\"}}'\n");
    assert_string_equal(read_lit(a, "kind: X\n"),
        "0 1 -1: Object 'apiVersion' is missing in '{\"kind\":\"X\"}'\n");
    assert_string_equal(read_lit(a, "- a\n"),
        "0 1 -1: json: cannot unmarshal array into Go value of type "
        "unstructured.detector\n");
    assert_string_equal(read_lit(a, "hello\n---\n42\n"),
        "0 1 -1: json: cannot unmarshal string into Go value of type "
        "unstructured.detector\n"
        "1 3 -1: json: cannot unmarshal number into Go value of type "
        "unstructured.detector\n");

    gcp_arena_destroy(a);
}


static void
test_lists(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    static const char  file[] =
        "apiVersion: v1\n"
        "kind: List\n"
        "items:\n"
        "- {apiVersion: v1, kind: Secret, metadata: {name: s}}\n"
        "- kind: ConfigMapList\n"
        "  apiVersion: v1\n"
        "  items:\n"
        "  - metadata: {name: c1}\n"
        "  - metadata: {name: c2}\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n"
        "---\n"
        "apiVersion: v1\n"
        "kind: List\n"
        "items: []\n"
        "---\n"
        "kind: FooList\n"
        "apiVersion: example.com/v1\n"
        "items: null\n"
        "---\n"
        "apiVersion: v1\n"
        "kind: ConfigMapList\n"
        "items:\n"
        "- metadata: {name: d}\n";

    assert_string_equal(read_all(a, file, sizeof(file) - 1),
        /* a list's own items first, then those of a list in it */
        "0 1 0: {\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":"
        "{\"name\":\"s\"}}\n"
        "0 1 1: " CM("b") "\n"
        /* an item without kind and apiVersion: the list's */
        "0 1 2: {\"metadata\":{\"name\":\"c1\"},\"kind\":\"ConfigMap\","
        "\"apiVersion\":\"v1\"}\n"
        "0 1 3: {\"metadata\":{\"name\":\"c2\"},\"kind\":\"ConfigMap\","
        "\"apiVersion\":\"v1\"}\n"
        "3 20 0: {\"metadata\":{\"name\":\"d\"},\"kind\":\"ConfigMap\","
        "\"apiVersion\":\"v1\"}\n");

    /* a bad item fails the whole list, as in kubectl */
    assert_string_equal(read_lit(a, "apiVersion: v1\nkind: List\n"
                                 "items: 5\n"),
        "0 1 -1: json: cannot unmarshal number into Go struct field "
        "decodeList.items of type []json.RawMessage\n");
    assert_string_equal(read_lit(a, "apiVersion: v1\nkind: List\nitems:\n"
                                 "- " CM("a") "\n- 5\n"),
        "0 1 -1: json: cannot unmarshal number into Go value of type "
        "map[string]interface {}\n");
    assert_string_equal(read_lit(a, "apiVersion: v1\nkind: ConfigMapList\n"
                                 "items:\n- {kind: Secret}\n"),
        "0 1 -1: Object 'apiVersion' is missing in '{\"kind\":\"Secret\"}'\n");

    gcp_arena_destroy(a);
}


static void
test_json(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    static const char  file[] =
        "\n  " CM("j1") "\n"
        "\n" CM("j2") " [1]{\"kind\":\"X\"}\n"
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" CM("j3")
        "]}\n"
        "{\"a\":";

    assert_string_equal(read_all(a, file, sizeof(file) - 1),
        "0 2 -1: " CM("j1") "\n"
        "1 4 -1: " CM("j2") "\n"
        "2 4 -1: json: cannot unmarshal array into Go value of type "
        "unstructured.detector\n"
        "3 4 -1: Object 'apiVersion' is missing in '{\"kind\":\"X\"}'\n"
        "4 5 0: " CM("j3") "\n"
        /* nothing after a syntax error */
        "5 6 -1: unexpected end of JSON input\n");

    assert_string_equal(read_lit(a, CM("x") "}"),
        "0 1 -1: " CM("x") "\n"
        "1 1 -1: invalid character '}' looking for beginning of value\n");

    gcp_arena_destroy(a);
}


/* kubectl decodes files as UTF-8 (U+FFFD for bad bytes) or UTF-16. */

static void
test_encodings(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    static const char  bom8[] = "\xef\xbb\xbf" "kind: A\napiVersion: v\n";
    static const char  bad8[] = "kind: A\napiVersion: v\nx: \xff\xc3!\n";
    static const char  le16[] = "\xff\xfe" "k\0i\0n\0d\0:\0 \0A\0\n\0"
                                "a\0p\0i\0V\0e\0r\0s\0i\0o\0n\0:\0 \0v\0"
                                "\n\0x\0:\0 \0=\xd8\xd4\xdf\n\0";
    static const char  be16[] = "\xfe\xff" "\0{\0\"\0k\0i\0n\0d\0\"\0:\0\"\0"
                                "A\0\"\0,\0\"\0a\0p\0i\0V\0e\0r\0s\0i\0o\0n"
                                "\0\"\0:\0\"\0v\0\"\0}";

    assert_string_equal(read_all(a, bom8, sizeof(bom8) - 1),
        "0 1 -1: {\"apiVersion\":\"v\",\"kind\":\"A\"}\n");
    assert_string_equal(read_all(a, bad8, sizeof(bad8) - 1),
        "0 1 -1: {\"apiVersion\":\"v\",\"kind\":\"A\",\"x\":"
        "\"\xef\xbf\xbd\xef\xbf\xbd!\"}\n");
    assert_string_equal(read_all(a, le16, sizeof(le16) - 1),
        "0 1 -1: {\"apiVersion\":\"v\",\"kind\":\"A\",\"x\":"
        "\"\xf0\x9f\x9f\x94\"}\n");
    assert_string_equal(read_all(a, be16, sizeof(be16) - 1),
        "0 1 -1: {\"kind\":\"A\",\"apiVersion\":\"v\"}\n");

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_yaml_documents),
        cmocka_unit_test(test_objects),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_encodings),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
