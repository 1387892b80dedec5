"""A battery of bad requests: each gets the Status kube-apiserver answers
(kind Status, apiVersion v1, status Failure, code equal to the HTTP status,
the reason and, where upstream's text is known, the exact message), or its
plain text 404; and none of them writes anything: the store's revision does
not move during the battery.  The server's logs show no crash afterwards
(GcpServer.stop checks them).

Messages marked (ref) are those of /work/shared/reference captures."""

import json
import re

import pytest

from gcp_http import assert_status, call, configmap
from gcp_server import GcpServer

NS = "bad"
CMS = "/api/v1/namespaces/%s/configmaps" % NS
CM = CMS + "/cm1"
SECRET = "/api/v1/namespaces/%s/secrets/s1" % NS
LEASES = "/apis/coordination.k8s.io/v1/namespaces/%s/leases" % NS

JSON = "application/json"
MERGE = "application/merge-patch+json"
SMP = "application/strategic-merge-patch+json"
JSONPATCH = "application/json-patch+json"

ACCEPTED = ("application/json, application/yaml, "
            "application/vnd.kubernetes.protobuf")
UNRECOGNIZED = ("the object provided is unrecognized (must be of type "
                "ConfigMap): couldn't get version/kind; json parse error: ")
FINDKIND = ('json: cannot unmarshal %s into Go value of type struct { '
            'APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string '
            '"json:\\"kind,omitempty\\"" }')
CANNOT = 'ConfigMap in version "v1" cannot be handled as a ConfigMap: '
STALE = ('Operation cannot be fulfilled on configmaps "cm1": the object has '
         'been modified; please apply your changes to the latest version '
         'and try again')
NOT_FOUND = "the server could not find the requested resource"
NOT_ALLOWED = ("the server does not allow this method on the requested "
               "resource")
NAME_PART = ("name part must consist of alphanumeric characters, '-', '_' "
             "or '.', and must start and end with an alphanumeric character "
             "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
             "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
CONFIG_KEY = ("a valid config key must consist of alphanumeric characters, "
              "'-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or "
              "'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")
RFC1123 = ("a lowercase RFC 1123 subdomain must consist of lower case "
           "alphanumeric characters, '-' or '.', and must start and end with "
           "an alphanumeric character (e.g. 'example.com', regex used for "
           "validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
TOO_LARGE = "Request entity too large: limit is 3145728"

DEEP = 100000


def nested(n, inner="1"):
    return '{"a":' * n + inner + "}" * n


def deep_snippet(body):
    return body[:30] + " ..."


def summary(body):
    """summarizeData() of kube-apiserver's handlers: the body's first 30
    bytes as they are when it starts with '{', in hex otherwise."""
    if not body:
        return "<empty>"
    head = body[:30] if body[0] == "{" else body[:30].encode().hex()
    return head + (" ..." if len(body) > 30 else "")


# (id, method, path, content type or None, body, accept or None,
#  status, reason (None: no reason), message (None: not checked),
#  details (None: not checked))
CASES = [
    # ------------------------------------------------ malformed JSON
    ("truncated", "POST", CMS, JSON,
     '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"',
     None, 400, "BadRequest",
     UNRECOGNIZED + 'unexpected end of JSON input ({"apiVersion":"v1",'
     '"kind":"Con ...)', None),                                    # (ref)
    ("garbage", "POST", CMS, JSON, "garbage", None, 400, "BadRequest",
     UNRECOGNIZED + "invalid character 'g' looking for beginning of value "
     "(" + summary("garbage") + ")", None),
    ("empty-body", "POST", CMS, JSON, "", None, 400, "BadRequest",
     UNRECOGNIZED + "unexpected end of JSON input (<empty>)", None),
    ("trailing-garbage", "POST", CMS, JSON, '{"metadata":{}} x', None, 400,
     "BadRequest", UNRECOGNIZED + "invalid character 'x' after top-level "
     'value ({"metadata":{}} x)', None),
    ("top-level-array", "POST", CMS, JSON, "[1,2]", None, 400, "BadRequest",
     UNRECOGNIZED + FINDKIND % "array" + " (5b312c325d)", None),
    ("top-level-string", "POST", CMS, JSON, '"cm"', None, 400, "BadRequest",
     UNRECOGNIZED + FINDKIND % "string" + " (" + summary('"cm"') + ")",
     None),
    ("top-level-number", "POST", CMS, JSON, "42", None, 400, "BadRequest",
     UNRECOGNIZED + FINDKIND % "number" + " (3432)", None),
    ("null-body", "POST", CMS, JSON, "null", None, 422, "Invalid",
     'ConfigMap "" is invalid: metadata.name: Required value: name or '
     'generateName is required', None),
    ("metadata-wrong-type", "POST", CMS, JSON, '{"metadata":"x"}', None, 400,
     "BadRequest", CANNOT + "json: cannot unmarshal string into Go struct "
     "field ConfigMap.metadata of type v1.ObjectMeta", None),
    ("data-wrong-type", "POST", CMS, JSON,
     '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"badtype"},'
     '"data":{"k":5}}', None, 400, "BadRequest",
     CANNOT + "json: cannot unmarshal number into Go struct field "
     "ConfigMap.data of type string", None),                       # (ref)
    ("labels-wrong-type", "POST", CMS, JSON,
     '{"metadata":{"name":"x","labels":[]}}', None, 400, "BadRequest",
     CANNOT + "json: cannot unmarshal array into Go struct field "
     "ObjectMeta.metadata.labels of type map[string]string", None),
    ("apiversion-mismatch", "POST", CMS, JSON,
     '{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"x"}}', None,
     400, "BadRequest", 'ConfigMap in version "v2" cannot be handled as a '
     'ConfigMap: no kind "ConfigMap" is registered for version "v2" in '
     'scheme "pkg/api/legacyscheme/scheme.go:30"', None),          # (ref)
    ("kind-mismatch", "POST", CMS, JSON,
     '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"},"data":{}}',
     None, 400, "BadRequest", 'Secret in version "v1" cannot be handled as '
     'a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown '
     'conversion', None),                                          # (ref)
    ("strict-unknown-field", "POST", CMS + "?fieldValidation=Strict", JSON,
     '{"metadata":{"name":"x"},"spec":1}', None, 400, "BadRequest",
     CANNOT + 'strict decoding error: unknown field "spec"', None),
    ("strict-duplicate-field", "POST", CMS + "?fieldValidation=Strict", JSON,
     '{"metadata":{"name":"x"},"data":{},"data":{}}', None, 400,
     "BadRequest", CANNOT + 'strict decoding error: duplicate field "data"',
     None),
    ("binarydata-not-base64", "POST", CMS, JSON,
     '{"metadata":{"name":"x"},"binaryData":{"k":"!!"}}', None, 400,
     "BadRequest", CANNOT + "illegal base64 data at input byte 0", None),

    # ------------------------------------------------ deeply nested
    ("deep-object", "POST", CMS, JSON, nested(DEEP), None, 400, "BadRequest",
     UNRECOGNIZED + "invalid character '{' exceeded max depth ("
     + deep_snippet(nested(DEEP)) + ")", None),
    ("deep-array", "POST", CMS, JSON, "[" * DEEP + "]" * DEEP, None, 400,
     "BadRequest", UNRECOGNIZED + "invalid character '[' exceeded max depth "
     "(" + "5b" * 30 + " ...)", None),
    ("deep-in-data", "PUT", CM, JSON,
     '{"metadata":{"name":"cm1"},"data":' + nested(DEEP) + "}", None, 400,
     "BadRequest", None, None),
    ("deep-merge-patch", "PATCH", CM, MERGE, nested(DEEP), None, 400,
     "BadRequest", None, None),
    ("deep-strategic-patch", "PATCH", CM, SMP, nested(DEEP), None, 400,
     "BadRequest", None, None),
    ("deep-json-patch", "PATCH", CM, JSONPATCH,
     '[{"op":"add","path":"/data/x","value":' + nested(DEEP) + "}]", None,
     400, "BadRequest", None, None),

    # ------------------------------------------------ huge bodies
    ("huge-post", "POST", CMS, JSON, "x" * (4 << 20), None, 413,
     "RequestEntityTooLarge", TOO_LARGE, None),
    ("huge-put", "PUT", CM, JSON, "x" * (4 << 20), None, 413,
     "RequestEntityTooLarge", TOO_LARGE, None),
    ("huge-patch", "PATCH", CM, MERGE, "x" * (4 << 20), None, 413,
     "RequestEntityTooLarge", TOO_LARGE, None),

    # ------------------------------------------------ invalid objects (422)
    ("invalid-name", "POST", CMS, JSON,
     '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Bad_Name"},'
     '"data":{"k":"v"}}', None, 422, "Invalid",
     'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: '
     '"Bad_Name": ' + RFC1123,
     {"name": "Bad_Name", "kind": "ConfigMap", "causes": [
         {"reason": "FieldValueInvalid", "field": "metadata.name",
          "message": 'Invalid value: "Bad_Name": ' + RFC1123}]}),  # (ref)
    ("invalid-multi", "POST", CMS, JSON,
     '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad-keys",'
     '"labels":{"bad label!":"x"}},"data":{"bad key!":"v","ok":"v"},'
     '"binaryData":{"ok":"dg=="}}', None, 422, "Invalid",
     'ConfigMap "bad-keys" is invalid: [metadata.labels: Invalid value: '
     '"bad label!": ' + NAME_PART + ', data[bad key!]: Invalid value: '
     '"bad key!": ' + CONFIG_KEY + ', data[ok]: Invalid value: "ok": '
     'duplicate of key present in binaryData]',
     {"name": "bad-keys", "kind": "ConfigMap", "causes": [
         {"reason": "FieldValueInvalid", "field": "metadata.labels",
          "message": 'Invalid value: "bad label!": ' + NAME_PART},
         {"reason": "FieldValueInvalid", "field": "data[bad key!]",
          "message": 'Invalid value: "bad key!": ' + CONFIG_KEY},
         {"reason": "FieldValueInvalid", "field": "data[ok]",
          "message": 'Invalid value: "ok": duplicate of key present in '
                     'binaryData'}]}),                             # (ref)
    ("invalid-label-value", "POST", CMS, JSON,
     '{"metadata":{"name":"x","labels":{"k":"bad value!"}}}', None, 422,
     "Invalid", None, None),
    ("invalid-annotation-key", "POST", CMS, JSON,
     '{"metadata":{"name":"x","annotations":{"bad key!":"v"}}}', None, 422,
     "Invalid", 'ConfigMap "x" is invalid: metadata.annotations: Invalid '
     'value: "bad key!": ' + NAME_PART, None),
    ("missing-name", "POST", CMS, JSON,
     '{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}', None, 422,
     "Invalid", 'ConfigMap "" is invalid: metadata.name: Required value: '
     'name or generateName is required', None),                    # (ref)
    ("invalid-namespace-name", "POST", "/api/v1/namespaces", JSON,
     '{"metadata":{"name":"Ref.Bad"}}', None, 422, "Invalid",
     'Namespace "Ref.Bad" is invalid: metadata.name: Invalid value: '
     '"Ref.Bad": a lowercase RFC 1123 label must consist of lower case '
     "alphanumeric characters or '-', and must start and end with an "
     "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
     "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')", None),  # (ref)
    ("secret-tls-missing-keys", "POST",
     "/api/v1/namespaces/%s/secrets" % NS, JSON,
     '{"metadata":{"name":"tls-bad"},"type":"kubernetes.io/tls"}', None,
     422, "Invalid", 'Secret "tls-bad" is invalid: [data[tls.crt]: '
     'Required value, data[tls.key]: Required value]', None),      # (ref)
    ("lease-invalid", "POST", LEASES, JSON,
     '{"metadata":{"name":"l"},"spec":{"leaseDurationSeconds":-1}}', None,
     422, "Invalid", 'Lease.coordination.k8s.io "l" is invalid: '
     'spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0',
     {"name": "l", "group": "coordination.k8s.io", "kind": "Lease",
      "causes": [{"reason": "FieldValueInvalid",
                  "field": "spec.leaseDurationSeconds",
                  "message": "Invalid value: -1: must be greater than 0"}]}),
    ("namespace-mismatch", "POST", CMS, JSON,
     '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x",'
     '"namespace":"other"}}', None, 400, "BadRequest",
     "the namespace of the provided object does not match the namespace "
     "sent on the request", None),                                 # (ref)
    ("missing-namespace", "POST", "/api/v1/namespaces/nosuch/configmaps",
     JSON, '{"metadata":{"name":"x"}}', None, 404, "NotFound",
     'namespaces "nosuch" not found',
     {"name": "nosuch", "kind": "namespaces"}),

    # ------------------------------------------------ media types
    ("content-type-text", "POST", CMS, "text/plain",
     '{"metadata":{"name":"x"}}', None, 415, "UnsupportedMediaType",
     "the body of the request was in an unknown format - accepted media "
     "types include: " + ACCEPTED, None),                          # (ref)
    ("content-type-xml", "POST", CMS, "application/xml", "<x/>", None, 415,
     "UnsupportedMediaType", None, None),
    ("put-content-type", "PUT", CM, "text/plain",
     '{"metadata":{"name":"cm1"}}', None, 415, "UnsupportedMediaType",
     "the body of the request was in an unknown format - accepted media "
     "types include: " + ACCEPTED, None),
    ("patch-content-type-json", "PATCH", CM, JSON, '{"data":{"x":"y"}}',
     None, 415, "UnsupportedMediaType", "415: Unsupported Media Type",
     {}),                                                          # (ref)
    ("patch-content-type-text", "PATCH", CM, "text/plain", "{}", None, 415,
     "UnsupportedMediaType", "415: Unsupported Media Type", {}),
    ("accept-xml-object", "GET", CM, None, None, "application/xml", 406,
     "NotAcceptable", "only the following media types are accepted: "
     + ACCEPTED, None),
    ("accept-xml-create", "POST", CMS, JSON, '{"metadata":{"name":"x"}}',
     "application/xml", 406, "NotAcceptable",
     "only the following media types are accepted: " + ACCEPTED, None),
    ("accept-xml-api-v1", "GET", "/api/v1", None, None, "application/xml",
     406, "NotAcceptable", "406: Not Acceptable\n\nAvailable "
     "representations: " + ACCEPTED, {}),                          # (ref)
    ("accept-xml-apis", "GET", "/apis", None, None, "application/xml", 406,
     "NotAcceptable", "only the following media types are accepted: "
     + ACCEPTED, None),                                            # (ref)
    ("accept-unknown-as", "GET", CMS, None, None,
     "application/json;as=Bogus;v=v1;g=meta.k8s.io", 406, "NotAcceptable",
     "only the following media types are accepted: " + ACCEPTED,
     None),                                                        # (ref)
    ("partial-object-on-list", "GET", CMS, None, None,
     "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io", 406,
     "NotAcceptable", "you requested PartialObjectMetadata, but the "
     "requested object is a list (*core.ConfigMapList)", None),    # (ref)

    # ------------------------------------------------ unknown paths
    ("unknown-resource", "GET", "/api/v1/pods", None, None, None, 404,
     "NotFound", NOT_FOUND, {}),                                   # (ref)
    ("unknown-namespaced-resource", "GET", "/api/v1/namespaces/bad/pods",
     None, None, None, 404, "NotFound", NOT_FOUND, {}),
    ("unknown-core-version", "GET", "/api/v2/namespaces", None, None, None,
     404, "NotFound", NOT_FOUND, {}),
    ("unknown-group-version", "GET", "/apis/coordination.k8s.io/v9", None,
     None, None, 404, "NotFound", NOT_FOUND, {}),                  # (ref)
    ("unknown-group-version-resource", "GET",
     "/apis/coordination.k8s.io/v2/namespaces/bad/leases", None, None,
     None, 404, "NotFound", NOT_FOUND, {}),
    ("unknown-subresource", "GET", CM + "/status", None, None, None, 404,
     "NotFound", NOT_FOUND, {}),                                   # (ref)
    ("cluster-scoped-under-namespace", "GET",
     "/api/v1/namespaces/default/namespaces", None, None, None, 404,
     "NotFound", NOT_FOUND, {}),
    ("missing-object", "GET", CMS + "/nosuch", None, None, None, 404,
     "NotFound", 'configmaps "nosuch" not found',
     {"name": "nosuch", "kind": "configmaps"}),                    # (ref)

    # ------------------------------------------------ methods
    ("put-collection", "PUT", CMS, JSON, '{"metadata":{"name":"x"}}', None,
     405, "MethodNotAllowed", NOT_ALLOWED, {}),                    # (ref)
    ("post-item", "POST", CM, JSON, '{"metadata":{"name":"cm1"}}', None,
     405, "MethodNotAllowed", NOT_ALLOWED, {}),                    # (ref)
    ("patch-collection", "PATCH", CMS, MERGE, "{}", None, 405,
     "MethodNotAllowed", NOT_ALLOWED, {}),
    ("post-cluster-wide", "POST", "/api/v1/configmaps", JSON,
     '{"metadata":{"name":"x"}}', None, 405, "MethodNotAllowed",
     NOT_ALLOWED, {}),                                             # (ref)
    ("delete-cluster-wide", "DELETE", "/api/v1/configmaps", None, None,
     None, 405, "MethodNotAllowed", NOT_ALLOWED, {}),
    ("options", "OPTIONS", CMS, None, None, None, 405, "MethodNotAllowed",
     NOT_ALLOWED, {}),                                             # (ref)
    ("unknown-method", "FROB", CMS, None, None, None, 405,
     "MethodNotAllowed", NOT_ALLOWED, None),
    ("get-finalize", "GET", "/api/v1/namespaces/bad/finalize", None, None,
     None, 405, "MethodNotAllowed", NOT_ALLOWED, {}),

    # ------------------------------------------------ query parameters
    ("dryrun-bogus", "POST", CMS + "?dryRun=Bogus", JSON,
     '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-dry2"}}',
     None, 422, "Invalid", 'CreateOptions.meta.k8s.io "" is invalid: '
     'dryRun: Unsupported value: []string{"Bogus"}: supported values: '
     '"All"',
     {"group": "meta.k8s.io", "kind": "CreateOptions", "causes": [
         {"reason": "FieldValueNotSupported", "field": "dryRun",
          "message": 'Unsupported value: []string{"Bogus"}: supported '
                     'values: "All"'}]}),                          # (ref)
    ("dryrun-bogus-patch", "PATCH", CM + "?dryRun=x", MERGE, "{}", None,
     422, "Invalid", 'PatchOptions.meta.k8s.io "" is invalid: dryRun: '
     'Unsupported value: []string{"x"}: supported values: "All"', None),
    ("dryrun-bogus-delete", "DELETE", CM + "?dryRun=x", None, None, None,
     422, "Invalid", 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: '
     'Unsupported value: []string{"x"}: supported values: "All"', None),
    ("fieldvalidation-bogus", "POST", CMS + "?fieldValidation=Bogus", JSON,
     '{"metadata":{"name":"x"}}', None, 422, "Invalid",
     'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: '
     'Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", '
     '"Warn"', None),                                              # (ref)
    ("fieldvalidation-bogus-put", "PUT", CM + "?fieldValidation=bogus",
     JSON, '{"metadata":{"name":"cm1"}}', None, 422, "Invalid",
     'UpdateOptions.meta.k8s.io "" is invalid: fieldValidation: '
     'Unsupported value: "bogus": supported values: "", "Ignore", "Strict", '
     '"Warn"', None),
    ("rvmatch-bogus", "GET", CMS + "?resourceVersion=1&resourceVersionMatch="
     "Bogus", None, None, None, 422, "Invalid",
     'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: '
     'Unsupported value: "Bogus": supported values: "Exact", '
     '"NotOlderThan", ""', None),                                  # (ref)
    ("rvmatch-without-rv", "GET", CMS + "?resourceVersionMatch=Exact", None,
     None, None, 422, "Invalid", 'ListOptions.meta.k8s.io "" is invalid: '
     'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden '
     'unless resourceVersion is provided', None),                  # (ref)
    ("rv-not-a-number", "GET", CMS + "?resourceVersion=abc", None, None,
     None, 500, None, 'resourceVersion: Invalid value: "abc": '
     'strconv.ParseUint: parsing "abc": invalid syntax', None),    # (ref)
    ("rv-exact-future", "GET", CMS + "?resourceVersion=999999999&"
     "resourceVersionMatch=Exact", None, None, None, 500, None,
     "etcdserver: mvcc: required revision is a future revision",
     None),                                                        # (ref)
    ("limit-abc", "GET", CMS + "?limit=abc", None, None, None, 400,
     "BadRequest", 'strconv.ParseInt: parsing "abc": invalid syntax', None),
    ("timeout-abc", "GET", CMS + "?watch=1&timeoutSeconds=abc", None, None,
     None, 400, "BadRequest", 'strconv.ParseInt: parsing "abc": invalid '
     'syntax', None),
    ("continue-garbage", "GET", CMS + "?limit=2&continue=not-a-valid-token",
     None, None, None, 400, "BadRequest", "invalid continue token: continue "
     "key is not valid: illegal base64 data at input byte 16",
     None),                                                        # (ref)
    ("continue-with-rv", "GET", CMS + "?limit=2&resourceVersion=5&continue="
     "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NSwic3RhcnQiOiJjbTFcdTAwMDAifQ",
     None, None, None, 400, "BadRequest", "specifying resource version is "
     "not allowed when using continue", None),
    ("label-selector-unparsable", "GET", CMS + "?labelSelector=app%20in%20"
     "%28web", None, None, None, 400, "BadRequest", "unable to parse "
     "requirement: found '', expected: ',' or ')'", None),         # (ref)
    ("label-selector-bad-value", "GET", CMS + "?labelSelector=app%3Dbad%20"
     "value%21", None, None, None, 400, "BadRequest", "found 'value', "
     "expected: ',' or 'end of string'", None),                    # (ref)
    ("field-selector-unknown", "GET", CMS + "?fieldSelector=data.i%3D1",
     None, None, None, 400, "BadRequest", '"data.i" is not a known field '
     'selector: only "metadata.name", "metadata.namespace"', None),  # (ref)
    ("field-selector-no-operator", "GET", CMS + "?fieldSelector="
     "metadata.name", None, None, None, 400, "BadRequest",
     "invalid selector: 'metadata.name'; can't understand "
     "'metadata.name'", None),                                     # (ref)
    ("event-field-selector-unknown", "GET",
     "/api/v1/namespaces/bad/events?fieldSelector=message%3Dx", None, None,
     None, 400, "BadRequest", "field label not supported: message",
     None),                                                        # (ref)
    ("include-object-bogus", "GET", CMS + "?includeObject=Bogus", None, None,
     "application/json;as=Table;v=v1;g=meta.k8s.io", 400, "BadRequest",
     "Unable to convert to Table as requested: includeObject: Invalid "
     "value: \"Bogus\": must be 'Metadata', 'Object', 'None', or empty",
     None),                                                        # (ref)
    ("send-initial-events-list", "GET", CMS + "?sendInitialEvents=true",
     None, None, None, 422, "Invalid", 'ListOptions.meta.k8s.io "" is '
     'invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden '
     'for list', None),
    ("send-initial-events-no-rvmatch", "GET", CMS + "?watch=1&"
     "sendInitialEvents=true&allowWatchBookmarks=true&timeoutSeconds=2",
     None, None, None, 422, "Invalid", 'ListOptions.meta.k8s.io "" is '
     'invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires '
     'setting resourceVersionMatch to NotOlderThan', None),        # (ref)
    ("grace-period-abc", "DELETE", CM + "?gracePeriodSeconds=abc", None,
     None, None, 400, "BadRequest", 'strconv.ParseInt: parsing "abc": '
     'invalid syntax', None),
    ("propagation-bogus", "DELETE", CM + "?propagationPolicy=Bogus", None,
     None, None, 422, "Invalid", 'DeleteOptions.meta.k8s.io "" is invalid: '
     'propagationPolicy: Unsupported value: "Bogus": supported values: '
     '"Foreground", "Background", "Orphan", "nil"', None),
    ("delete-options-garbage", "DELETE", CM, JSON, "garbage", None, 400,
     "BadRequest", "couldn't get version/kind; json parse error: invalid "
     "character 'g' looking for beginning of value", None),
    ("delete-options-wrong-type", "DELETE", CM, JSON,
     '{"gracePeriodSeconds":"x"}', None, 400, "BadRequest",
     "json: cannot unmarshal string into Go struct field "
     "DeleteOptions.gracePeriodSeconds of type int64", None),

    # ------------------------------------------------ invalid patches
    ("json-patch-not-array", "PATCH", CM, JSONPATCH, '{"op":"replace"}',
     None, 400, "BadRequest", "error decoding patch: json: cannot unmarshal "
     "object into Go value of type []handlers.jsonPatchOp", None),  # (ref)
    ("json-patch-syntax", "PATCH", CM, JSONPATCH, "[garbage", None, 400,
     "BadRequest", "error decoding patch: invalid character 'g' looking "
     "for beginning of value", None),
    ("json-patch-test-fails", "PATCH", CM, JSONPATCH,
     '[{"op":"test","path":"/data/a","value":"not-the-value"},'
     '{"op":"replace","path":"/data/a","value":"x"}]', None, 422,
     "Invalid", "the server rejected our request due to an error in our "
     "request", {}),                                               # (ref)
    ("json-patch-unknown-op", "PATCH", CM, JSONPATCH,
     '[{"op":"bogus","path":"/data/a"}]', None, 422, "Invalid",
     "the server rejected our request due to an error in our request", {}),
    ("json-patch-remove-missing", "PATCH", CM, JSONPATCH,
     '[{"op":"remove","path":"/data/nosuch"}]', None, 422, "Invalid",
     "the server rejected our request due to an error in our request", {}),
    ("json-patch-wrong-type", "PATCH", CM, JSONPATCH,
     '[{"op":"add","path":"/data/a","value":5}]', None, 400, "BadRequest",
     CANNOT + "json: cannot unmarshal number into Go struct field "
     "ConfigMap.data of type string", None),
    ("merge-patch-syntax", "PATCH", CM, MERGE, '{"data":', None, 400,
     "BadRequest", "error decoding patch: unexpected end of JSON input",
     None),
    ("merge-patch-array", "PATCH", CM, MERGE, "[1,2]", None, 400,
     "BadRequest", "error decoding patch: json: cannot unmarshal array "
     "into Go value of type map[string]interface {}", None),
    ("merge-patch-wrong-type", "PATCH", CM, MERGE, '{"data":{"a":5}}', None,
     400, "BadRequest", CANNOT + "json: cannot unmarshal number into Go "
     "struct field ConfigMap.data of type string", None),
    ("merge-patch-rename", "PATCH", CM, MERGE,
     '{"metadata":{"name":"other"}}', None, 422, "Invalid",
     'ConfigMap "other" is invalid: metadata.name: Invalid value: "other": '
     'field is immutable', None),
    ("merge-patch-kind", "PATCH", CM, MERGE, '{"kind":"Secret"}', None, 400,
     "BadRequest", 'Secret in version "v1" cannot be handled as a '
     'ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown '
     'conversion', None),
    ("merge-patch-stale-rv", "PATCH", CM, MERGE,
     '{"metadata":{"resourceVersion":"1"},"data":{"key2":"x"}}', None, 409,
     "Conflict", STALE, {"name": "cm1", "kind": "configmaps"}),    # (ref)
    ("strategic-patch-syntax", "PATCH", CM, SMP, '{"data":', None, 400,
     "BadRequest", "unexpected end of JSON input", None),
    ("strategic-patch-array", "PATCH", CM, SMP, "[1]", None, 400,
     "BadRequest", "json: cannot unmarshal array into Go value of type "
     "map[string]interface {}", None),
    ("strategic-patch-bad-directive", "PATCH", CM, SMP,
     '{"data":{"$patch":"bogus"}}', None, 500, None,
     "unknown patch type: bogus in map: map[$patch:bogus]", None),
    ("strategic-patch-invalid-label", "PATCH", CM, SMP,
     '{"metadata":{"labels":{"bad key!":"v"}}}', None, 422, "Invalid",
     'ConfigMap "cm1" is invalid: metadata.labels: Invalid value: '
     '"bad key!": ' + NAME_PART, None),
    ("patch-missing-object", "PATCH", CMS + "/nosuch", MERGE, '{"data":{}}',
     None, 404, "NotFound", 'configmaps "nosuch" not found',
     {"name": "nosuch", "kind": "configmaps"}),                    # (ref)

    # ------------------------------------------------ updates
    ("put-name-mismatch", "PUT", CM, JSON,
     '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"},'
     '"data":{}}', None, 400, "BadRequest", "the name of the object (other) "
     "does not match the name on the URL (cm1)", None),            # (ref)
    ("put-stale-rv", "PUT", CM, JSON,
     '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1",'
     '"resourceVersion":"1"},"data":{"key1":"stale-write"}}', None, 409,
     "Conflict", STALE, {"name": "cm1", "kind": "configmaps"}),    # (ref)
    ("put-missing", "PUT", CMS + "/cm-nosuch", JSON,
     '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-nosuch",'
     '"resourceVersion":"1"},"data":{}}', None, 404, "NotFound",
     'configmaps "cm-nosuch" not found',
     {"name": "cm-nosuch", "kind": "configmaps"}),                 # (ref)
    ("put-secret-type-change", "PUT", SECRET, JSON,
     '{"metadata":{"name":"s1"},"type":"kubernetes.io/basic-auth",'
     '"data":{"username":"dQ=="}}', None, 422, "Invalid",
     'Secret "s1" is invalid: type: Invalid value: '
     '"kubernetes.io/basic-auth": field is immutable', None),      # (ref)
    ("delete-precondition-uid", "DELETE", CM, JSON,
     '{"preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}',
     None, 409, "Conflict", 'Operation cannot be fulfilled on ConfigMap '
     '"cm1": the UID in the precondition (00000000-0000-0000-0000-'
     '000000000000) does not match the UID in record (<uid>). The object '
     'might have been deleted and then recreated',
     {"name": "cm1", "kind": "ConfigMap"}),                        # (ref)
    ("delete-precondition-rv", "DELETE", CM, JSON,
     '{"preconditions":{"resourceVersion":"1"}}', None, 409, "Conflict",
     'Operation cannot be fulfilled on ConfigMap "cm1": the ResourceVersion '
     'in the precondition (1) does not match the ResourceVersion in record '
     '(<n>). The object might have been modified',
     {"name": "cm1", "kind": "ConfigMap"}),
    ("delete-default-namespace", "DELETE",
     "/api/v1/namespaces/default?dryRun=All", None, None, None, 403,
     "Forbidden", 'namespaces "default" is forbidden: this namespace may '
     'not be deleted', None),                                      # (ref)
]


@pytest.fixture(scope="module")
def srv():
    # the test checks that nothing is written: no controllers (they write
    # leases, service accounts...)
    s = GcpServer(workers=2, http_extra="gcp_controllers off;").start()
    try:
        yield s
    finally:
        s.stop()


def revisions(s):
    """Every object of the collections the battery aims at, by name and
    resourceVersion, the Leases (none: no controllers, no election) and
    the object set up.  The store's own revision is not compared: on etcd
    it counts the writes of every server sharing the member."""
    out = {}
    for path in ("/api/v1/namespaces", "/api/v1/configmaps",
                 "/api/v1/namespaces/%s/secrets" % NS):
        r = call(s, "GET", path)
        assert r.status == 200, r
        out[path] = sorted((i["metadata"]["name"],
                            i["metadata"]["resourceVersion"])
                           for i in r.json["items"])
    r = call(s, "GET", "/apis/coordination.k8s.io/v1/leases")
    out["leases"] = sorted(i["metadata"]["name"] for i in r.json["items"])
    out["cm1"] = call(s, "GET", CM).json
    return out


@pytest.fixture(scope="module")
def baseline(srv):
    assert call(srv, "POST", "/api/v1/namespaces",
                {"metadata": {"name": NS}}).status == 201
    assert call(srv, "POST", CMS, configmap(
        "cm1", {"a": "1", "key2": "v"})).status == 201
    assert call(srv, "POST", "/api/v1/namespaces/%s/secrets" % NS,
                {"metadata": {"name": "s1"},
                 "stringData": {"k": "v"}}).status == 201
    return revisions(srv)


@pytest.mark.parametrize(
    "method, path, ctype, body, accept, status, reason, message, details",
    [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_request(srv, baseline, method, path, ctype, body, accept,
                     status, reason, message, details):
    headers = {}
    if ctype:
        headers["Content-Type"] = ctype
    if accept:
        headers["Accept"] = accept
    r = call(srv, method, path, body.encode() if body is not None else None,
             headers=headers)

    s = assert_status(r, status, reason)
    if message is not None:
        # the stored object's resourceVersion and uid vary
        got = re.sub(r"in record \([0-9a-f-]+\)", lambda m: "in record (%s)"
                     % ("<uid>" if "-" in m.group(0) else "<n>"),
                     s["message"])
        assert got == message, r
    if details is not None:
        assert r.json.get("details") == details, r


@pytest.mark.parametrize("path", [
    "/apis/nosuch.example.com", "/apis/nosuch.example.com/v1/things",
    "/nosuchpath", "/readyz/nosuch"])
def test_text_not_found(srv, baseline, path):
    r = call(srv, "GET", path)
    assert r.status == 404
    assert r.content_type == "text/plain; charset=utf-8"
    assert r.body == b"404 page not found\n"


def test_head_is_not_served(srv, baseline):
    r = call(srv, "HEAD", CM)
    assert r.status == 405
    assert r.body == b""


def test_field_validation_warn_only_warns(srv, baseline):
    # the default (Warn) and Ignore with dryRun: unknown fields are not
    # errors; dry run writes nothing
    for q, warnings in [("dryRun=All", ['299 - "unknown field \\"spec\\""']),
                        ("dryRun=All&fieldValidation=Ignore", None)]:
        r = call(srv, "POST", CMS + "?" + q,
                 '{"metadata":{"name":"w"},"spec":1}',
                 headers={"Content-Type": JSON})
        assert r.status == 201, r
        assert "resourceVersion" not in r.json["metadata"]
        assert r.headers.get("warning") == warnings


def test_nothing_was_written(srv, baseline):
    # last in this file: the battery above left the store as it was
    assert revisions(srv) == baseline
    r = call(srv, "GET", CMS + "?watch=1&timeoutSeconds=1&resourceVersion="
             + baseline["cm1"]["metadata"]["resourceVersion"])
    assert r.status == 200
    assert r.body == b""
    assert json.loads(call(srv, "GET", CM).body)["data"] == {
        "a": "1", "key2": "v"}
