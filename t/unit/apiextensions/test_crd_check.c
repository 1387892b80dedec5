
/*
 * Unit tests: the checks of a CustomResourceDefinition's schema
 * (gcp_crd_schema_check()).  The captured cases are kube-apiserver's
 * answers (1.28.4 built from source, the same apiextensions validation as
 * 1.32 here) to CRDs with one version, whose schema 1.32 reports under
 * spec.validation.openAPIV3Schema; where its order comes from a Go map
 * (properties), the order here is the schema's.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "support_crd.h"


#define V  "spec.validation.openAPIV3Schema"


typedef struct {
    const char  *name;
    int          status;
    const char  *schema;
    const char  *want;
} check_case_t;


static const check_case_t  captured[] = {
    { "nonstruct", 0,
      "{'type':'object','properties':{'a':{'properties':{'b':{'type':'str"
      "ing'}}},'c':{'type':'array'},'d':{'type':'object',"
      "'additionalProperties':{'type':'string'},"
      "'properties':{'x':{'type':'string'}}}}}",
      V ".properties[a].type: Required value: must not be empty for "
      "specified object fields\n"
      V ".properties[c].items: Required value: must be specified\n"
      V ".properties[d].additionalProperties: Forbidden: "
      "additionalProperties and properties are mutual exclusive" },
    { "badtype", 0,
      "{'type':'object','properties':{'spec':{'type':'object',"
      "'properties':{'a':{'type':'foo'},'b':{'type':'null'},"
      "'u':{'type':'array','uniqueItems':true,"
      "'items':{'type':'string'}}}}}}",
      V ".properties[spec].properties[a].type: Unsupported value: \"foo\": "
      "supported values: \"array\", \"boolean\", \"integer\", \"number\","
      " \"object\", \"string\"\n"
      V ".properties[spec].properties[b].type: Unsupported value: "
      "\"null\": supported values: \"array\", \"boolean\", \"integer\", "
      "\"number\", \"object\", \"string\"\n"
      V ".properties[spec].properties[b].type: Forbidden: type cannot be "
      "set to null, use nullable as an alternative\n"
      V ".properties[spec].properties[u].uniqueItems: Forbidden: "
      "uniqueItems cannot be set to true since the runtime complexity "
      "becomes quadratic" },
    { "pattern", 0,
      "{'type':'object','properties':{'spec':{'type':'object',"
      "'properties':{'a':{'type':'string','pattern':'(abc'},"
      "'b':{'type':'string','pattern':'a**'},'c':{'type':'string',"
      "'pattern':'\\\\1'}}}}}",
      V ".properties[spec].properties[a].pattern: Invalid value: \"(abc\": "
      "must be a valid regular expression, but isn't: error parsing "
      "regexp: missing closing ): `(abc`\n"
      V ".properties[spec].properties[b].pattern: Invalid value: \"a**\": "
      "must be a valid regular expression, but isn't: error parsing "
      "regexp: invalid nested repetition operator: `**`\n"
      V ".properties[spec].properties[c].pattern: Invalid value: "
      "\"\\\\1\": must be a valid regular expression, but isn't: error "
      "parsing regexp: invalid escape sequence: `\\1`" },
    { "lists", 0,
      "{'type':'object','properties':{'spec':{'type':'object',"
      "'properties':{'a':{'type':'array','x-kubernetes-list-type':'map',"
      "'items':{'type':'string'}},'b':{'type':'array',"
      "'x-kubernetes-list-type':'map','x-kubernetes-list-map-keys':['k',"
      "'k','z'],'items':{'type':'object',"
      "'properties':{'k':{'type':'object'}}}},'c':{'type':'string',"
      "'x-kubernetes-list-type':'set'},'d':{'type':'array',"
      "'x-kubernetes-list-type':'bogus','items':{'type':'string'}},"
      "'e':{'type':'array','x-kubernetes-list-map-keys':['a'],"
      "'items':{'type':'object','properties':{'a':{'type':'string'}}}},"
      "'f':{'type':'array','x-kubernetes-list-type':'set',"
      "'items':{'type':'object','nullable':true}},'g':{'type':'array',"
      "'x-kubernetes-list-type':'map','x-kubernetes-list-map-keys':['a'],"
      "'items':{'type':'object','properties':{'a':{'type':'string',"
      "'nullable':true}}}},'h':{'type':'string',"
      "'x-kubernetes-map-type':'weird'}}}}}",
      V ".properties[spec].properties[a].x-kubernetes-list-map-keys: "
      "Required value: must not be empty if x-kubernetes-list-type is map\n"
      V ".properties[spec].properties[a].items.type: Invalid value: "
      "\"string\": must be object if parent array's "
      "x-kubernetes-list-type is map\n"
      V ".properties[spec].properties[b].items.properties[k].type: Invalid "
      "value: \"object\": must be a scalar type if parent array's "
      "x-kubernetes-list-type is map\n"
      V ".properties[spec].properties[b].items.properties[k].type: Invalid "
      "value: \"object\": must be a scalar type if parent array's "
      "x-kubernetes-list-type is map\n"
      V ".properties[spec].properties[b].x-kubernetes-list-map-keys: "
      "Invalid value: []string{\"k\", \"k\", \"z\"}: must not contain "
      "duplicate entries\n"
      V ".properties[spec].properties[b].x-kubernetes-list-map-keys: "
      "Invalid value: []string{\"k\", \"k\", \"z\"}: entries must all be "
      "names of item properties\n"
      V ".properties[spec].properties[b].items.properties[k].default: "
      "Required value: this property is in x-kubernetes-list-map-keys, "
      "so it must have a default or be a required property\n"
      V ".properties[spec].properties[b].items.properties[k].default: "
      "Required value: this property is in x-kubernetes-list-map-keys, "
      "so it must have a default or be a required property\n"
      V ".properties[spec].properties[c].type: Invalid value: \"string\": "
      "must be array if x-kubernetes-list-type is specified\n"
      V ".properties[spec].properties[d].x-kubernetes-list-type: "
      "Unsupported value: \"bogus\": supported values: \"atomic\", "
      "\"set\", \"map\"\n"
      V ".properties[spec].properties[e].x-kubernetes-list-type: Required "
      "value: must be map if x-kubernetes-list-map-keys is non-empty\n"
      V ".properties[spec].properties[f].items.x-kubernetes-map-type: "
      "Invalid value: \"null\": must be atomic as item of a list with "
      "x-kubernetes-list-type=set\n"
      V ".properties[spec].properties[f].items.nullable: Forbidden: cannot "
      "be nullable when x-kubernetes-list-type is set\n"
      V ".properties[spec].properties[g].items.properties[a].default: "
      "Required value: this property is in x-kubernetes-list-map-keys, "
      "so it must have a default or be a required property\n"
      V ".properties[spec].properties[g].items.properties[a].nullable: "
      "Forbidden: this property is in x-kubernetes-list-map-keys, so it "
      "cannot be nullable\n"
      V ".properties[spec].properties[h].type: Invalid value: \"string\": "
      "must be object if x-kubernetes-map-type is specified\n"
      V ".properties[spec].properties[h].x-kubernetes-map-type: "
      "Unsupported value: \"weird\": supported values: \"atomic\", "
      "\"granular\"" },
    { "defaults", 0,
      "{'type':'object','properties':{'spec':{'type':'object',"
      "'properties':{'a':{'type':'string','default':5},"
      "'b':{'type':'object','properties':{'x':{'type':'string'}},"
      "'default':{'x':'1','y':2}},'c':{'type':'integer','maximum':3,"
      "'default':4},'d':{'type':'object',"
      "'additionalProperties':{'type':'string','default':5}}}}}}",
      V ".properties[spec].properties[a].default: Invalid value: "
      "\"integer\":  in body must be of type string: \"integer\"\n"
      V ".properties[spec].properties[b].default: Invalid value: "
      "map[string]interface {}{\"x\":\"1\", \"y\":2}: must not have "
      "unknown fields\n"
      V ".properties[spec].properties[c].default: Invalid value: 4:  in "
      "body should be less than or equal to 3" },
    { "meta", 0,
      "{'type':'object','properties':{'metadata':{'type':'object',"
      "'properties':{'name':{'type':'string','maxLength':5},"
      "'labels':{'type':'object'}}},'kind':{'type':'integer'},"
      "'spec':{'type':'object','properties':{'metadata':{'type':'object'}"
      "}}}}",
      V ".properties[kind].type: Invalid value: \"integer\": must be string\n"
      V ".properties[metadata]: Forbidden: must not specify anything other "
      "than name and generateName, but metadata is implicitly specified" },
    { "nested", 0,
      "{'type':'object','properties':{'spec':{'type':'object',"
      "'properties':{'a':{'type':'string','anyOf':[{'type':'string',"
      "'description':'x'},{'properties':{'q':{'type':'string'}}}],"
      "'allOf':[{'nullable':true,'default':1,"
      "'x-kubernetes-list-type':'set'}]}}}}}",
      V ".properties[spec].properties[a].allOf[0].default: Forbidden: must "
      "be undefined to be structural\n"
      V ".properties[spec].properties[a].allOf[0].nullable: Forbidden: "
      "must be false to be structural\n"
      V ".properties[spec].properties[a].allOf[0].x-kubernetes-list-type: "
      "Forbidden: must be undefined to be structural\n"
      V ".properties[spec].properties[a].anyOf[0].description: Forbidden: "
      "must be empty to be structural\n"
      V ".properties[spec].properties[a].anyOf[0].type: Forbidden: must be "
      "empty to be structural\n"
      V ".properties[spec].properties[a].anyOf[1].properties[q].type: "
      "Forbidden: must be empty to be structural\n"
      V ".properties[spec].properties[a].allOf[0].type: Required value: "
      "must be array if x-kubernetes-list-type is specified" },
    { "embedded", 0,
      "{'type':'object','properties':{'spec':{'type':'object',"
      "'properties':{'e':{'x-kubernetes-embedded-resource':true},"
      "'f':{'type':'string','x-kubernetes-embedded-resource':true,"
      "'x-kubernetes-int-or-string':true},'g':{'type':'object',"
      "'x-kubernetes-embedded-resource':true,"
      "'additionalProperties':{'type':'string'}},'p':{'type':'object',"
      "'x-kubernetes-preserve-unknown-fields':false}}}}}",
      V ".properties[spec].properties[p]."
      "x-kubernetes-preserve-unknown-fields: Invalid value: false: must "
      "be true or undefined" },
    { "misc", 0,
      "{'type':'object','nullable':true,"
      "'additionalProperties':{'type':'string'},"
      "'properties':{'spec':{'type':'object','id':'x','$schema':'y',"
      "'properties':{'a':{'type':'string'}},"
      "'definitions':{'d':{'type':'string'}}}}}",
      V ".nullable: Forbidden: nullable cannot be true at the root\n"
      V ".additionalProperties: Forbidden: additionalProperties and "
      "properties are mutual exclusive\n"
      V ".properties[spec].id: Forbidden: id is not supported\n"
      V ".properties[spec].definitions: Forbidden: definitions is not "
      "supported" },
    { "schemaonly", 0,
      "{'type':'object','properties':{'spec':{'type':'object',"
      "'properties':{'a':{'type':'string','$schema':'http://x'}}}}}",
      V ": Invalid value: \"\": OpenAPIV3Schema 'schema' is not supported" },
    { "metadefaults", 0,
      "{'type':'object','properties':{'metadata':{'type':'object',"
      "'default':{'name':'x'}},'spec':{'type':'object',"
      "'properties':{'t':{'type':'object',"
      "'x-kubernetes-embedded-resource':true,"
      "'properties':{'metadata':{'type':'object',"
      "'properties':{'name':{'type':'string','default':'Bad_Name'},"
      "'labels':{'type':'object','additionalProperties':{'type':'string',"
      "'default':'v'}}}}}}}}}}",
      V ".properties[metadata].default: Forbidden: must not be set in "
      "top-level metadata\n"
      V ".properties[spec].properties[t].properties[metadata]."
      "properties[labels].additionalProperties.default: Forbidden: must "
      "not be set inside additionalProperties applying to object metadata" },
    { "status1", 1,
      "{'type':'object','properties':{'spec':{'type':'object',"
      "'properties':{'a':{'type':'string'}},'default':{}}}}",
      "" },
    { "status2", 1,
      "{'type':'object','properties':{'spec':{'type':'object',"
      "'properties':{'a':{'type':'string'}}}},'description':'d',"
      "'minProperties':1,'x-kubernetes-preserve-unknown-fields':true,"
      "'enum':[]}",
      /* upstream dumps the Go struct (with pointers) as the value */
      V ": Invalid value: {\"type\":\"object\",\"properties\":"
      "{\"spec\":{\"type\":\"object\",\"properties\":{\"a\":"
      "{\"type\":\"string\"}}}},\"description\":\"d\","
      "\"minProperties\":1,\"x-kubernetes-preserve-unknown-fields\":true,"
      "\"enum\":[]}: only [Description Type Format Title Maximum "
      "ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength "
      "Pattern MaxItems MinItems UniqueItems MultipleOf Required Items "
      "Properties ExternalDocs Example XPreserveUnknownFields "
      "XValidations] fields are allowed at the root of the schema if the "
      "status subresource is enabled" },
    { "status3", 1,
      "{'type':'string','properties':{'spec':{'type':'object',"
      "'properties':{'a':{'type':'string'}}}}}",
      V ".type: Invalid value: \"string\": only \"object\" is allowed as "
      "the type at the root of the schema if the status subresource is "
      "enabled\n"
      V ".type: Invalid value: \"string\": must be object at the root" },
};


static void
run_checks(const check_case_t *c, size_t n)
{
    size_t        i, bad;
    const char   *got;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    assert_non_null(a);

    bad = 0;

    for (i = 0; i < n; i++) {
        got = sc_check(a, c[i].schema, c[i].status);

        if (strcmp(got, c[i].want) != 0) {
            fprintf(stderr, "case %s\n  want: %s\n  got:  %s\n", c[i].name,
                    c[i].want, got);
            bad++;
        }
    }

    gcp_arena_destroy(a);

    assert_int_equal(bad, 0);
}


static void
test_captured(void **state)
{
    run_checks(captured, sizeof(captured) / sizeof(captured[0]));
}


/* rules from upstream's source (validation.go, schema/validation.go) */
static const check_case_t  rules[] = {
    { "cel", 0,
      "{'type':'object','properties':{'spec':{'type':'object',"
      "'x-kubernetes-validations':[{'rule':'self.a > 1'}],"
      "'properties':{'a':{'type':'integer',"
      "'x-kubernetes-validations':[{'rule':'self > 0'},"
      "{'rule':'true','message':'m'}]}}}}}",
      V ".properties[spec].properties[a].x-kubernetes-validations[0].rule: "
      "Forbidden: CEL validation rules (x-kubernetes-validations) are not "
      "supported by this server\n"
      V ".properties[spec].properties[a].x-kubernetes-validations[1].rule: "
      "Forbidden: CEL validation rules (x-kubernetes-validations) are not "
      "supported by this server\n"
      V ".properties[spec].x-kubernetes-validations[0].rule: Forbidden: CEL "
      "validation rules (x-kubernetes-validations) are not supported by "
      "this server" },
    { "int-or-string", 0,
      "{'type':'object','properties':{'a':{'x-kubernetes-int-or-string':"
      "true},'b':{'x-kubernetes-int-or-string':true,'anyOf':[{'type':"
      "'integer'},{'type':'string'}]},'c':{'x-kubernetes-int-or-string':"
      "true,'allOf':[{'anyOf':[{'type':'integer'},{'type':'string'}]},"
      "{'pattern':'^1'}]},'d':{'x-kubernetes-int-or-string':true,"
      "'anyOf':[{'type':'integer'},{'type':'boolean'}]},"
      "'e':{'x-kubernetes-int-or-string':true,"
      "'x-kubernetes-preserve-unknown-fields':true}}}",
      V ".properties[d].anyOf[0].type: Forbidden: must be empty to be "
      "structural\n"
      V ".properties[d].anyOf[1].type: Forbidden: must be empty to be "
      "structural\n"
      V ".properties[e].x-kubernetes-preserve-unknown-fields: Invalid "
      "value: true: must be false if x-kubernetes-int-or-string is true" },
    { "embedded", 0,
      "{'type':'object','properties':{'e':{'type':'object',"
      "'x-kubernetes-embedded-resource':true},'f':{'type':'object',"
      "'x-kubernetes-embedded-resource':true,'properties':{'apiVersion':"
      "{'type':'integer'},'kind':{'type':'string'},'metadata':{'type':"
      "'object','properties':{'name':{'type':'string'}}}}}}}",
      V ".properties[e].properties: Required value: must not be empty if "
      "x-kubernetes-embedded-resource is true without "
      "x-kubernetes-preserve-unknown-fields\n"
      V ".properties[f].properties[apiVersion].type: Invalid value: "
      "\"integer\": must be string" },
    { "unsupported", 0,
      "{'type':'object','properties':{'a':{'$ref':'#/x'},'b':{'type':"
      "'string','patternProperties':{'x':{'type':'string'}}},'c':{'type':"
      "'array','items':[{'type':'string'}]},'d':{'type':'array',"
      "'additionalItems':false,'items':{'type':'string'}},'e':{'type':"
      "'string','dependencies':{'x':['y']}}}}",
      V ".properties[a].$ref: Forbidden: $ref is not supported\n"
      V ".properties[b].patternProperties: Forbidden: patternProperties is "
      "not supported\n"
      V ".properties[c].items: Forbidden: items must be a schema object and "
      "not an array\n"
      V ".properties[d].additionalItems: Forbidden: additionalItems is not "
      "supported\n"
      V ".properties[e].dependencies: Forbidden: dependencies is not "
      "supported" },
    { "nested", 0,
      "{'type':'object','properties':{'a':{'type':'string','allOf':[{"
      "'properties':{'x':{'type':'string'}}}],'not':{'maxLength':3,"
      "'items':{'type':'string'}}}}}",
      V ".properties[a].allOf[0].properties[x].type: Forbidden: must be "
      "empty to be structural\n"
      V ".properties[a].not.items.type: Forbidden: must be empty to be "
      "structural" },
    { "root-array", 0, "{'type':'array','items':{'type':'string'}}",
      V ".type: Invalid value: \"array\": must be object at the root" },
    { "root-untyped", 0, "{'properties':{'a':{'type':'string'}}}",
      V ".type: Required value: must not be empty at the root" },
    { "root-meta", 0,
      "{'type':'object','properties':{'apiVersion':{'type':'string',"
      "'maxLength':3},'metadata':{'type':'object','properties':{'name':"
      "{'type':'string','pattern':'^a'},'generateName':{'type':"
      "'string'}}}}}",
      "" },
    { "default-format", 0,
      "{'type':'object','properties':{'d':{'type':'string','format':"
      "'byte','default':'@@'},'t':{'type':'string','pattern':"
      "'\\\\p{Greek}+(?i)x','format':'date-time',"
      "'default':'2020-01-01T00:00:00Z'}}}",
      V ".properties[d].default: Invalid value: \"@@\":  in body must be of "
      "type byte: \"@@\"\n"
      V ".properties[t].default: Invalid value: \"2020-01-01T00:00:00Z\":  "
      "in body should match '\\p{Greek}+(?i)x'" },
    /* defaults under additionalProperties are not looked at */
    { "default-ap", 0,
      "{'type':'object','properties':{'e':{'type':'object',"
      "'additionalProperties':{'type':'object','properties':{'q':{'type':"
      "'string'}},'default':{'q':'1','r':2}}},'n':{'type':'string',"
      "'nullable':true,'default':'x'}}}",
      "" },
    { "mixed-enum", 0,
      "{'type':'object','properties':{'a':{'type':'string','enum':['x',1,"
      "null,true]}}}",
      "" },
    { "preserve-root", 0,
      "{'type':'object','x-kubernetes-preserve-unknown-fields':true}", "" },
    { "status-root", 1,
      "{'type':'object','anyOf':[{'required':['spec']}],'properties':"
      "{'spec':{'type':'object'}}}",
      V ": Invalid value: {\"type\":\"object\",\"anyOf\":[{\"required\":"
      "[\"spec\"]}],\"properties\":{\"spec\":{\"type\":\"object\"}}}: only "
      "[Description Type Format Title Maximum ExclusiveMaximum Minimum "
      "ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems "
      "UniqueItems MultipleOf Required Items Properties ExternalDocs "
      "Example XPreserveUnknownFields XValidations] fields are allowed at "
      "the root of the schema if the status subresource is enabled" },
    { "status-root-ok", 1,
      "{'type':'object','required':['spec'],'maxLength':3,"
      "'x-kubernetes-preserve-unknown-fields':true,'properties':"
      "{'spec':{'type':'object'}}}",
      "" },
};


static void
test_rules(void **state)
{
    run_checks(rules, sizeof(rules) / sizeof(rules[0]));
}


/* an update only requires what the old schema already satisfied */
static void
test_ratchet(void **state)
{
    size_t                 i;
    json_t                *old, *schema;
    const char            *got;
    gcp_arena_t           *a;
    gcp_ferrs_t            errs;
    gcp_crd_check_opts_t   opts;

    static const struct {
        const char  *old;
        const char  *schema;
        const char  *want;
    }  t[] = {
        /* not structural before: may stay so, types are still checked */
        { "{'type':'object','properties':{'a':{'properties':{'b':"
          "{'type':'string'}}}}}",
          "{'type':'object','properties':{'a':{'properties':{'b':{'type':"
          "'string'}}},'c':{'type':'foo'}}}",
          "spec.versions[1].schema.openAPIV3Schema.properties[c].type: "
          "Unsupported value: \"foo\": supported values: \"array\", "
          "\"boolean\", \"integer\", \"number\", \"object\", \"string\"" },
        { "{'type':'object','properties':{'a':{'type':'foo'}}}",
          "{'type':'object','properties':{'a':{'type':'bar'}}}", "" },
        { "{'type':'object','properties':{'a':{'type':'object',"
          "'properties':{'x':{'type':'string'}},'default':{'y':1}}}}",
          "{'type':'object','properties':{'b':{'type':'object',"
          "'properties':{'x':{'type':'string'}},'default':{'z':1}}}}", "" },
        { "{'type':'object','properties':{'s':{'type':'array',"
          "'x-kubernetes-list-type':'set','items':{'type':'object'}}}}",
          "{'type':'object','properties':{'t':{'type':'array',"
          "'x-kubernetes-list-type':'set','items':{'type':'object'}}}}",
          "" },
        { "{'type':'object','properties':{'g':{'type':'array',"
          "'x-kubernetes-list-type':'map','x-kubernetes-list-map-keys':"
          "['a'],'items':{'type':'object','properties':{'a':{'type':"
          "'string'}}}}}}",
          "{'type':'object','properties':{'h':{'type':'array',"
          "'x-kubernetes-list-type':'map','x-kubernetes-list-map-keys':"
          "['a'],'items':{'type':'object','properties':{'a':{'type':"
          "'string'}}}}}}",
          "" },
        /* a valid old schema requires everything */
        { "{'type':'object'}",
          "{'type':'object','properties':{'a':{'properties':{'b':{'type':"
          "'string'}}}}}",
          "spec.versions[1].schema.openAPIV3Schema.properties[a].type: "
          "Required value: must not be empty for specified object fields" },
    };

    a = gcp_arena_create(0);
    assert_non_null(a);

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        old = sp_load(a, t[i].old);
        schema = sp_load(a, t[i].schema);

        gcp_crd_check_opts_init(&opts);
        gcp_crd_check_opts_ratchet(&opts, old, sc_set());

        gcp_ferrs_init(&errs, a);
        assert_int_equal(gcp_crd_schema_check(&errs, schema,
                                              "spec.versions[1].schema",
                                              &opts, sc_set()),
                         GCP_OK);

        got = sc_causes(a, &errs);
        if (strcmp(got, t[i].want) != 0) {
            fail_msg("ratchet %zu\n  want: %s\n  got:  %s", i, t[i].want,
                     got);
        }

        json_decref(old);
        json_decref(schema);
    }

    gcp_crd_check_opts_init(&opts);
    gcp_crd_check_opts_ratchet(&opts, NULL, sc_set());
    assert_true(opts.require_structural && opts.require_pruned_defaults
                && opts.require_valid_property_type && opts.allow_defaults
                && opts.require_atomic_set_type
                && opts.require_map_list_keys);

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_captured),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_ratchet),
    };

    return cmocka_run_group_tests(tests, NULL, sc_teardown);
}
