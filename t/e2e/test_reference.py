"""ngx_gcp against responses captured from a real kube-apiserver.

Each Case replays one request of the captures (/work/shared/reference,
sections 1 to 7 and 12, without what needs authentication, RBAC, custom
resources, API services, quota, server-side apply or admission) and
compares the answer with what kube-apiserver answered: status code,
Content-Type and the headers clients use, the Status reason and message
exactly, and the body (for Status bodies exactly; for objects after
normalising uids, resourceVersions, timestamps, generated names, continue
tokens and ages; Cases marked shape compare the keys and JSON types only).
managedFields are left out: ngx_gcp does not maintain them.

The expectations below were taken from the captures once; the tests do not
read the captures.  The Steps run in the capture's order on one server, so
that each request meets the state it met then; Setup steps recreate what
the capture did between two captured requests, and what kube-apiserver's
controllers create (each namespace's kube-root-ca.crt and default service
account), so that lists hold the same objects.  Running one Case alone
runs the Steps before it first.

Captured discovery documents are narrowed to the groups and resources
ngx_gcp serves (core configmaps, events, namespaces, resourcequotas,
secrets, serviceaccounts; authentication.k8s.io; authorization.k8s.io;
coordination.k8s.io; events.k8s.io; rbac.authorization.k8s.io).  Cases that need
compaction run on a second server that compacts every half second.
"""

import gzip
import json
import re
import time

import pytest

from gcp_http import call
from gcp_server import GcpServer


class Setup(dict):
    """A request that prepares the state; it must answer status."""

    @property
    def id(self):
        return "setup: " + self["label"]


class Case(dict):
    """A captured exchange (see the top of the file)."""

    @property
    def id(self):
        return self["name"]


TEXTS = {
    '@T0@':
        ('Operation cannot be fulfilled on configmaps "cm1": the object has been '
         'modified; please apply your changes to the latest version and try '
         'again'),
    '@T1@':
        ('Contains a CA bundle that can be used to verify the kube-apiserver '
         'when using internal endpoints such as the internal service IP or '
         'kubernetes.default.svc. No other usage is guaranteed across '
         'distributions of Kubernetes clusters.'),
    '@T2@':
        ('-----BEGIN CERTIFICATE-----\n'
         'MIIDCTCCAfGgAwIBAgIUcRb9Z27XHaFQK6E17nv9oofTkTkwDQYJKoZIhvcNAQEL\n'
         'BQAwFDESMBAGA1UEAwwJYW5jaG9yLWNhMB4XDTI2MTEyMjA1MjAxMFoXDTM2MTEx\n'
         'OTA1MjAxMFowFDESMBAGA1UEAwwJYW5jaG9yLWNhMIIBIjANBgkqhkiG9w0BAQEF\n'
         'AAOCAQ8AMIIBCgKCAQEAw8SrK+tk5I5DcRG3LlV0WQKMyTjnoizORJcdXSObPaGL\n'
         'sOUIbexiHu++8ZIuj6PRxlr0D2wWULbBzhBKLdLSF2RIrNEAWyNOhZAhGbv4uKwf\n'
         'gk+eeZU7755UeHaQn81R6iuRPRHAlwO6ecP+O3ediG4f2LloEFXmqr4LHdkqieQP\n'
         'LXvxkhDQWk9wMioXzUjmRXq9O4TizSW7riEPOvlEAZ4Qn7FzJDDV+PiTwMUQ5Q3U\n'
         'p+yicTlTPxD8bXC6NJ4I3FpkTnPq+YJmT9d4a0jrDUmL1qG13ECJAMSljzM/3RVH\n'
         '0qF7k9tatg7FjXCZg+iJMrs7LR63PMzzwTymvVDzWwIDAQABo1MwUTAdBgNVHQ4E\n'
         'FgQUH/MBZFXRYiTo7oBYKOejAd/D2UAwHwYDVR0jBBgwFoAUH/MBZFXRYiTo7oBY\n'
         'KOejAd/D2UAwDwYDVR0TAQH/BAUwAwEB/zANBgkqhkiG9w0BAQsFAAOCAQEAbQgS\n'
         'DrY2cjPtyU37ZMCQFfkhrAqCfMf7FRF/kaswJYXeH2qGasZQLITUxSVEftRRR1dU\n'
         'zLJ4d9Qijjpu2iFt1MEjsPjRFNqRJiKidJkdPQMaEkLV500XrIID+J+CZdfsLd1p\n'
         '/SyEZygJKVt8ZxINfrE009J9/QyKGbMwQ6dpiwX5ZEJavhy4ubJHgm4uRUUotmky\n'
         'NYPiUc5gq9mIQqO1bQ/ZAPJMEspumg6enkPS8euZIgGc9rqQ05XiwP9jE0WduVEp\n'
         'JWKjEEhYXGiUaGS2YuE4CGuozsKnSkkDQ6MQRmirUNSRMwY75igQLFQxirSHy854\n'
         '1etYISAvUdJu7RUtZA==\n'
         '-----END CERTIFICATE-----\n'),
    '@T3@':
        ('Name must be unique within a namespace. Is required when creating '
         'resources, although some resources may allow a client to request the '
         'generation of an appropriate name automatically. Name is primarily '
         'intended for creation idempotence and configuration definition. Cannot '
         'be updated. More info: '
         'https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names'),
    '@T4@':
        ('Data contains the configuration data. Each key must consist of '
         "alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte "
         'sequences must use the BinaryData field. The keys stored in Data must '
         'not overlap with the keys in the BinaryData field, this is enforced '
         'during validation process.'),
    '@T5@':
        ('CreationTimestamp is a timestamp representing the server time when '
         'this object was created. It is not guaranteed to be set in '
         'happens-before order across separate operations. Clients may not set '
         'this value. It is represented in RFC3339 form and is in UTC.\n'
         '\n'
         'Populated by the system. Read-only. Null for lists. More info: '
         'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata'),
    '@T6@':
        ('Used to facilitate programmatic handling of secret data. More info: '
         'https://kubernetes.io/docs/concepts/configuration/secret/#secret-types'),
    '@T7@':
        ('Data contains the secret data. Each key must consist of alphanumeric '
         "characters, '-', '_' or '.'. The serialized form of the secret data is "
         'a base64 encoded string, representing the arbitrary (possibly '
         'non-string) data value here. Described in '
         'https://tools.ietf.org/html/rfc4648#section-4'),
    '@T8@':
        ('This should be a short, machine understandable string that gives the '
         "reason for the transition into the object's current status."),
    '@T9@':
        ('If referring to a piece of an object instead of an entire object, this '
         'string should contain a valid JSON/Go field access statement, such as '
         'desiredState.manifest.containers[2]. For example, if the object '
         'reference is to a container within a pod, this would take on a value '
         'like: "spec.containers{name}" (where "name" refers to the name of the '
         'container that triggered the event) or if no container name is '
         'specified "spec.containers[2]" (container with index 2 in this pod). '
         'This syntax is chosen only to have some well-defined way of '
         'referencing a part of an object.'),
}


ROOT_CA = {'apiVersion': 'v1',
          'kind': 'ConfigMap',
          'metadata': {'name': 'kube-root-ca.crt',
                       'annotations': {'kubernetes.io/description': '@T1@'}},
          'data': {'ca.crt': '@T2@'}}


STEPS = [
    Case(name='01-discovery-api',
         method='GET',
         path='/api',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'APIVersions',
              'versions': ['v1'],
              'serverAddressByClientCIDRs': [{'clientCIDR': '0.0.0.0/0',
                                              'serverAddress': '127.0.0.1:17443'}]},
         shape=True),
    Case(name='01-discovery-api-v1',
         method='GET',
         path='/api/v1',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={
               "kind": "APIResourceList",
               "groupVersion": "v1",
               "resources": [
                {
                 "name": "configmaps",
                 "singularName": "configmap",
                 "namespaced": True,
                 "kind": "ConfigMap",
                 "verbs": [
                  "create",
                  "delete",
                  "deletecollection",
                  "get",
                  "list",
                  "patch",
                  "update",
                  "watch"
                 ],
                 "shortNames": [
                  "cm"
                 ],
                 "storageVersionHash": "qFsyl6wFWjQ="
                },
                {
                 "name": "events",
                 "singularName": "event",
                 "namespaced": True,
                 "kind": "Event",
                 "verbs": [
                  "create",
                  "delete",
                  "deletecollection",
                  "get",
                  "list",
                  "patch",
                  "update",
                  "watch"
                 ],
                 "shortNames": [
                  "ev"
                 ],
                 "storageVersionHash": "r2yiGXH7wu8="
                },
                {
                 "name": "namespaces",
                 "singularName": "namespace",
                 "namespaced": False,
                 "kind": "Namespace",
                 "verbs": [
                  "create",
                  "delete",
                  "get",
                  "list",
                  "patch",
                  "update",
                  "watch"
                 ],
                 "shortNames": [
                  "ns"
                 ],
                 "storageVersionHash": "Q3oi5N2YM8M="
                },
                {
                 "name": "namespaces/finalize",
                 "singularName": "",
                 "namespaced": False,
                 "kind": "Namespace",
                 "verbs": [
                  "update"
                 ]
                },
                {
                 "name": "namespaces/status",
                 "singularName": "",
                 "namespaced": False,
                 "kind": "Namespace",
                 "verbs": [
                  "get",
                  "patch",
                  "update"
                 ]
                },
                {
                 "name": "resourcequotas",
                 "singularName": "resourcequota",
                 "namespaced": True,
                 "kind": "ResourceQuota",
                 "verbs": [
                  "create",
                  "delete",
                  "deletecollection",
                  "get",
                  "list",
                  "patch",
                  "update",
                  "watch"
                 ],
                 "shortNames": [
                  "quota"
                 ],
                 "storageVersionHash": "8uhSgffRX6w="
                },
                {
                 "name": "resourcequotas/status",
                 "singularName": "",
                 "namespaced": True,
                 "kind": "ResourceQuota",
                 "verbs": [
                  "get",
                  "patch",
                  "update"
                 ]
                },
                {
                 "name": "secrets",
                 "singularName": "secret",
                 "namespaced": True,
                 "kind": "Secret",
                 "verbs": [
                  "create",
                  "delete",
                  "deletecollection",
                  "get",
                  "list",
                  "patch",
                  "update",
                  "watch"
                 ],
                 "storageVersionHash": "S6u1pOWzb84="
                },
                {
                 "name": "serviceaccounts",
                 "singularName": "serviceaccount",
                 "namespaced": True,
                 "kind": "ServiceAccount",
                 "verbs": [
                  "create",
                  "delete",
                  "deletecollection",
                  "get",
                  "list",
                  "patch",
                  "update",
                  "watch"
                 ],
                 "shortNames": [
                  "sa"
                 ],
                 "storageVersionHash": "pbx9ZvyFpBE="
                },
                {
                 "name": "serviceaccounts/token",
                 "singularName": "",
                 "namespaced": True,
                 "group": "authentication.k8s.io",
                 "version": "v1",
                 "kind": "TokenRequest",
                 "verbs": [
                  "create"
                 ]
                }
               ]
              }),
    Case(name='01-discovery-apis',
         method='GET',
         path='/apis',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={
               "kind": "APIGroupList",
               "apiVersion": "v1",
               "groups": [
                {
                 "name": "events.k8s.io",
                 "versions": [
                  {
                   "groupVersion": "events.k8s.io/v1",
                   "version": "v1"
                  }
                 ],
                 "preferredVersion": {
                  "groupVersion": "events.k8s.io/v1",
                  "version": "v1"
                 }
                },
                {
                 "name": "authentication.k8s.io",
                 "versions": [
                  {
                   "groupVersion": "authentication.k8s.io/v1",
                   "version": "v1"
                  }
                 ],
                 "preferredVersion": {
                  "groupVersion": "authentication.k8s.io/v1",
                  "version": "v1"
                 }
                },
                {
                 "name": "authorization.k8s.io",
                 "versions": [
                  {
                   "groupVersion": "authorization.k8s.io/v1",
                   "version": "v1"
                  }
                 ],
                 "preferredVersion": {
                  "groupVersion": "authorization.k8s.io/v1",
                  "version": "v1"
                 }
                },
                {
                 "name": "rbac.authorization.k8s.io",
                 "versions": [
                  {
                   "groupVersion": "rbac.authorization.k8s.io/v1",
                   "version": "v1"
                  }
                 ],
                 "preferredVersion": {
                  "groupVersion": "rbac.authorization.k8s.io/v1",
                  "version": "v1"
                 }
                },
                {
                 "name": "coordination.k8s.io",
                 "versions": [
                  {
                   "groupVersion": "coordination.k8s.io/v1",
                   "version": "v1"
                  }
                 ],
                 "preferredVersion": {
                  "groupVersion": "coordination.k8s.io/v1",
                  "version": "v1"
                 }
                }
               ]
              }),
    Case(name='01-discovery-root-paths',
         method='GET',
         path='/',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={
               "paths": [
                "/.well-known/openid-configuration",
                "/api",
                "/api/v1",
                "/apis",
                "/apis/",
                "/apis/authentication.k8s.io",
                "/apis/authentication.k8s.io/v1",
                "/apis/authorization.k8s.io",
                "/apis/authorization.k8s.io/v1",
                "/apis/coordination.k8s.io",
                "/apis/coordination.k8s.io/v1",
                "/apis/events.k8s.io",
                "/apis/events.k8s.io/v1",
                "/apis/rbac.authorization.k8s.io",
                "/apis/rbac.authorization.k8s.io/v1",
                "/healthz",
                "/healthz/autoregister-completion",
                "/healthz/etcd",
                "/healthz/log",
                "/healthz/ping",
                "/healthz/poststarthook/aggregator-reload-proxy-client-cert",
                "/healthz/poststarthook/apiservice-discovery-controller",
                "/healthz/poststarthook/apiservice-openapi-controller",
                "/healthz/poststarthook/apiservice-openapiv3-controller",
                "/healthz/poststarthook/apiservice-registration-controller",
                "/healthz/poststarthook/apiservice-status-local-available-controller",
                "/healthz/poststarthook/crd-informer-synced",
                "/healthz/poststarthook/generic-apiserver-start-informers",
                "/healthz/poststarthook/kube-apiserver-autoregistration",
                "/healthz/poststarthook/priority-and-fairness-config-consumer",
                "/healthz/poststarthook/priority-and-fairness-config-producer",
                "/healthz/poststarthook/priority-and-fairness-filter",
                "/healthz/poststarthook/rbac/bootstrap-roles",
                "/healthz/poststarthook/start-apiextensions-controllers",
                "/healthz/poststarthook/start-apiextensions-informers",
                "/healthz/poststarthook/start-apiserver-admission-initializer",
                "/healthz/poststarthook/start-cluster-authentication-info-controller",
                "/healthz/poststarthook/start-kube-aggregator-informers",
                "/healthz/poststarthook/start-kube-apiserver-identity-lease-controller",
                "/healthz/poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
                "/healthz/poststarthook/start-legacy-token-tracking-controller",
                "/healthz/poststarthook/start-system-namespaces-controller",
                "/healthz/poststarthook/storage-object-count-tracker-hook",
                "/livez",
                "/livez/autoregister-completion",
                "/livez/etcd",
                "/livez/log",
                "/livez/ping",
                "/livez/poststarthook/aggregator-reload-proxy-client-cert",
                "/livez/poststarthook/apiservice-discovery-controller",
                "/livez/poststarthook/apiservice-openapi-controller",
                "/livez/poststarthook/apiservice-openapiv3-controller",
                "/livez/poststarthook/apiservice-registration-controller",
                "/livez/poststarthook/apiservice-status-local-available-controller",
                "/livez/poststarthook/crd-informer-synced",
                "/livez/poststarthook/generic-apiserver-start-informers",
                "/livez/poststarthook/kube-apiserver-autoregistration",
                "/livez/poststarthook/priority-and-fairness-config-consumer",
                "/livez/poststarthook/priority-and-fairness-config-producer",
                "/livez/poststarthook/priority-and-fairness-filter",
                "/livez/poststarthook/rbac/bootstrap-roles",
                "/livez/poststarthook/start-apiextensions-controllers",
                "/livez/poststarthook/start-apiextensions-informers",
                "/livez/poststarthook/start-apiserver-admission-initializer",
                "/livez/poststarthook/start-cluster-authentication-info-controller",
                "/livez/poststarthook/start-kube-aggregator-informers",
                "/livez/poststarthook/start-kube-apiserver-identity-lease-controller",
                "/livez/poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
                "/livez/poststarthook/start-legacy-token-tracking-controller",
                "/livez/poststarthook/start-system-namespaces-controller",
                "/livez/poststarthook/storage-object-count-tracker-hook",
                "/metrics",
                "/metrics/slis",
                "/openapi/v2",
                "/openapi/v3",
                "/openapi/v3/",
                "/openid/v1/jwks",
                "/readyz",
                "/readyz/autoregister-completion",
                "/readyz/etcd",
                "/readyz/etcd-readiness",
                "/readyz/informer-sync",
                "/readyz/log",
                "/readyz/ping",
                "/readyz/poststarthook/aggregator-reload-proxy-client-cert",
                "/readyz/poststarthook/apiservice-discovery-controller",
                "/readyz/poststarthook/apiservice-openapi-controller",
                "/readyz/poststarthook/apiservice-openapiv3-controller",
                "/readyz/poststarthook/apiservice-registration-controller",
                "/readyz/poststarthook/apiservice-status-local-available-controller",
                "/readyz/poststarthook/crd-informer-synced",
                "/readyz/poststarthook/generic-apiserver-start-informers",
                "/readyz/poststarthook/kube-apiserver-autoregistration",
                "/readyz/poststarthook/priority-and-fairness-config-consumer",
                "/readyz/poststarthook/priority-and-fairness-config-producer",
                "/readyz/poststarthook/priority-and-fairness-filter",
                "/readyz/poststarthook/rbac/bootstrap-roles",
                "/readyz/poststarthook/start-apiextensions-controllers",
                "/readyz/poststarthook/start-apiextensions-informers",
                "/readyz/poststarthook/start-apiserver-admission-initializer",
                "/readyz/poststarthook/start-cluster-authentication-info-controller",
                "/readyz/poststarthook/start-kube-aggregator-informers",
                "/readyz/poststarthook/start-kube-apiserver-identity-lease-controller",
                "/readyz/poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
                "/readyz/poststarthook/start-legacy-token-tracking-controller",
                "/readyz/poststarthook/start-system-namespaces-controller",
                "/readyz/poststarthook/storage-object-count-tracker-hook",
                "/readyz/shutdown",
                "/version"
               ]
              },
         check='paths'),
    Case(name='01-discovery-version',
         method='GET',
         path='/version',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'major': '1',
              'minor': '32',
              'gitVersion': 'v1.32.0-beta.0+cd13ec4a',
              'gitCommit': 'cd13ec4ae44e35ce12aefbb05627be4474ff2b1f',
              'gitTreeState': 'clean',
              'buildDate': '1970-01-01T00:00:00Z',
              'goVersion': 'go1.23.5',
              'compiler': 'gc',
              'platform': 'linux/amd64'},
         shape=True),
    Case(name='01-discovery-version-anonymous',
         method='GET',
         path='/version',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'major': '1',
              'minor': '32',
              'gitVersion': 'v1.32.0-beta.0+cd13ec4a',
              'gitCommit': 'cd13ec4ae44e35ce12aefbb05627be4474ff2b1f',
              'gitTreeState': 'clean',
              'buildDate': '1970-01-01T00:00:00Z',
              'goVersion': 'go1.23.5',
              'compiler': 'gc',
              'platform': 'linux/amd64'},
         shape=True),
    Case(name='01-discovery-aggregated-v2-api',
         method='GET',
         path='/api',
         headers={'Accept': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'],
              'Etag': ['"416E0499D1F65AA564335035DFF44D8BBE7D2047B4F0C86A523C2EF78F7B414ACE732265E5B95DA21ED352C2F22294CF0D24A3C657D124D9C4902BC8D4ABFCBA"'],
              'Vary': ['Accept']},
         kind='json',
         expect={
               "kind": "APIGroupDiscoveryList",
               "apiVersion": "apidiscovery.k8s.io/v2",
               "metadata": {},
               "items": [
                {
                 "metadata": {
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "configmaps",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "ConfigMap"
                     },
                     "scope": "Namespaced",
                     "singularResource": "configmap",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ],
                     "shortNames": [
                      "cm"
                     ]
                    },
                    {
                     "resource": "events",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Event"
                     },
                     "scope": "Namespaced",
                     "singularResource": "event",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ],
                     "shortNames": [
                      "ev"
                     ]
                    },
                    {
                     "resource": "namespaces",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Namespace"
                     },
                     "scope": "Cluster",
                     "singularResource": "namespace",
                     "verbs": [
                      "create",
                      "delete",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ],
                     "shortNames": [
                      "ns"
                     ],
                     "subresources": [
                      {
                       "subresource": "finalize",
                       "responseKind": {
                        "group": "",
                        "version": "",
                        "kind": "Namespace"
                       },
                       "verbs": [
                        "update"
                       ]
                      },
                      {
                       "subresource": "status",
                       "responseKind": {
                        "group": "",
                        "version": "",
                        "kind": "Namespace"
                       },
                       "verbs": [
                        "get",
                        "patch",
                        "update"
                       ]
                      }
                     ]
                    },
                    {
                     "resource": "resourcequotas",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "ResourceQuota"
                     },
                     "scope": "Namespaced",
                     "singularResource": "resourcequota",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ],
                     "shortNames": [
                      "quota"
                     ],
                     "subresources": [
                      {
                       "subresource": "status",
                       "responseKind": {
                        "group": "",
                        "version": "",
                        "kind": "ResourceQuota"
                       },
                       "verbs": [
                        "get",
                        "patch",
                        "update"
                       ]
                      }
                     ]
                    },
                    {
                     "resource": "secrets",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Secret"
                     },
                     "scope": "Namespaced",
                     "singularResource": "secret",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    },
                    {
                     "resource": "serviceaccounts",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "ServiceAccount"
                     },
                     "scope": "Namespaced",
                     "singularResource": "serviceaccount",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ],
                     "shortNames": [
                      "sa"
                     ],
                     "subresources": [
                      {
                       "subresource": "token",
                       "responseKind": {
                        "group": "authentication.k8s.io",
                        "version": "v1",
                        "kind": "TokenRequest"
                       },
                       "verbs": [
                        "create"
                       ]
                      }
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                }
               ]
              }),
    Case(name='01-discovery-aggregated-v2-apis',
         method='GET',
         path='/apis',
         headers={'Accept': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'],
              'Etag': ['"02560B8BA48B38BBB9976294C52103AE812784DA7B7B7A92E632921ABAF4C037E69F16E86DE071C9BAE76BC29A5301A6906B7AF8C09A593BAB2402AA8C621A66"'],
              'Vary': ['Accept']},
         kind='json',
         expect={
               "kind": "APIGroupDiscoveryList",
               "apiVersion": "apidiscovery.k8s.io/v2",
               "metadata": {},
               "items": [
                {
                 "metadata": {
                  "name": "events.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "events",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Event"
                     },
                     "scope": "Namespaced",
                     "singularResource": "event",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ],
                     "shortNames": [
                      "ev"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                },
                {
                 "metadata": {
                  "name": "authentication.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "selfsubjectreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "SelfSubjectReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "selfsubjectreview",
                     "verbs": [
                      "create"
                     ]
                    },
                    {
                     "resource": "tokenreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "TokenReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "tokenreview",
                     "verbs": [
                      "create"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                },
                {
                 "metadata": {
                  "name": "authorization.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "localsubjectaccessreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "LocalSubjectAccessReview"
                     },
                     "scope": "Namespaced",
                     "singularResource": "localsubjectaccessreview",
                     "verbs": [
                      "create"
                     ]
                    },
                    {
                     "resource": "selfsubjectaccessreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "SelfSubjectAccessReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "selfsubjectaccessreview",
                     "verbs": [
                      "create"
                     ]
                    },
                    {
                     "resource": "selfsubjectrulesreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "SelfSubjectRulesReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "selfsubjectrulesreview",
                     "verbs": [
                      "create"
                     ]
                    },
                    {
                     "resource": "subjectaccessreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "SubjectAccessReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "subjectaccessreview",
                     "verbs": [
                      "create"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                },
                {
                 "metadata": {
                  "name": "rbac.authorization.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "clusterrolebindings",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "ClusterRoleBinding"
                     },
                     "scope": "Cluster",
                     "singularResource": "clusterrolebinding",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    },
                    {
                     "resource": "clusterroles",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "ClusterRole"
                     },
                     "scope": "Cluster",
                     "singularResource": "clusterrole",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    },
                    {
                     "resource": "rolebindings",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "RoleBinding"
                     },
                     "scope": "Namespaced",
                     "singularResource": "rolebinding",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    },
                    {
                     "resource": "roles",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Role"
                     },
                     "scope": "Namespaced",
                     "singularResource": "role",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                },
                {
                 "metadata": {
                  "name": "coordination.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "leases",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Lease"
                     },
                     "scope": "Namespaced",
                     "singularResource": "lease",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                }
               ]
              },
         save={'apis_etag': '@Etag'}),
    Case(name='01-discovery-aggregated-v2-apis-if-none-match',
         method='GET',
         path='/apis',
         headers={'Accept': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
              'If-None-Match': '<<apis_etag>>'},
         body=None,
         status=304,
         resp_headers={'Etag': ['"02560B8BA48B38BBB9976294C52103AE812784DA7B7B7A92E632921ABAF4C037E69F16E86DE071C9BAE76BC29A5301A6906B7AF8C09A593BAB2402AA8C621A66"'],
              'Vary': ['Accept']},
         kind='none',
         expect=None),
    Case(name='01-discovery-aggregated-v2beta1-api',
         method='GET',
         path='/api',
         headers={'Accept': 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList'],
              'Etag': ['"416E0499D1F65AA564335035DFF44D8BBE7D2047B4F0C86A523C2EF78F7B414ACE732265E5B95DA21ED352C2F22294CF0D24A3C657D124D9C4902BC8D4ABFCBA"'],
              'Vary': ['Accept']},
         kind='json',
         expect={
               "kind": "APIGroupDiscoveryList",
               "apiVersion": "apidiscovery.k8s.io/v2beta1",
               "metadata": {},
               "items": [
                {
                 "metadata": {
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "configmaps",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "ConfigMap"
                     },
                     "scope": "Namespaced",
                     "singularResource": "configmap",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ],
                     "shortNames": [
                      "cm"
                     ]
                    },
                    {
                     "resource": "events",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Event"
                     },
                     "scope": "Namespaced",
                     "singularResource": "event",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ],
                     "shortNames": [
                      "ev"
                     ]
                    },
                    {
                     "resource": "namespaces",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Namespace"
                     },
                     "scope": "Cluster",
                     "singularResource": "namespace",
                     "verbs": [
                      "create",
                      "delete",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ],
                     "shortNames": [
                      "ns"
                     ],
                     "subresources": [
                      {
                       "subresource": "finalize",
                       "responseKind": {
                        "group": "",
                        "version": "",
                        "kind": "Namespace"
                       },
                       "verbs": [
                        "update"
                       ]
                      },
                      {
                       "subresource": "status",
                       "responseKind": {
                        "group": "",
                        "version": "",
                        "kind": "Namespace"
                       },
                       "verbs": [
                        "get",
                        "patch",
                        "update"
                       ]
                      }
                     ]
                    },
                    {
                     "resource": "resourcequotas",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "ResourceQuota"
                     },
                     "scope": "Namespaced",
                     "singularResource": "resourcequota",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ],
                     "shortNames": [
                      "quota"
                     ],
                     "subresources": [
                      {
                       "subresource": "status",
                       "responseKind": {
                        "group": "",
                        "version": "",
                        "kind": "ResourceQuota"
                       },
                       "verbs": [
                        "get",
                        "patch",
                        "update"
                       ]
                      }
                     ]
                    },
                    {
                     "resource": "secrets",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Secret"
                     },
                     "scope": "Namespaced",
                     "singularResource": "secret",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    },
                    {
                     "resource": "serviceaccounts",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "ServiceAccount"
                     },
                     "scope": "Namespaced",
                     "singularResource": "serviceaccount",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ],
                     "shortNames": [
                      "sa"
                     ],
                     "subresources": [
                      {
                       "subresource": "token",
                       "responseKind": {
                        "group": "authentication.k8s.io",
                        "version": "v1",
                        "kind": "TokenRequest"
                       },
                       "verbs": [
                        "create"
                       ]
                      }
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                }
               ]
              }),
    Case(name='01-discovery-aggregated-v2beta1-apis',
         method='GET',
         path='/apis',
         headers={'Accept': 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList'],
              'Etag': ['"02560B8BA48B38BBB9976294C52103AE812784DA7B7B7A92E632921ABAF4C037E69F16E86DE071C9BAE76BC29A5301A6906B7AF8C09A593BAB2402AA8C621A66"'],
              'Vary': ['Accept']},
         kind='json',
         expect={
               "kind": "APIGroupDiscoveryList",
               "apiVersion": "apidiscovery.k8s.io/v2beta1",
               "metadata": {},
               "items": [
                {
                 "metadata": {
                  "name": "events.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "events",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Event"
                     },
                     "scope": "Namespaced",
                     "singularResource": "event",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ],
                     "shortNames": [
                      "ev"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                },
                {
                 "metadata": {
                  "name": "authentication.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "selfsubjectreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "SelfSubjectReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "selfsubjectreview",
                     "verbs": [
                      "create"
                     ]
                    },
                    {
                     "resource": "tokenreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "TokenReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "tokenreview",
                     "verbs": [
                      "create"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                },
                {
                 "metadata": {
                  "name": "authorization.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "localsubjectaccessreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "LocalSubjectAccessReview"
                     },
                     "scope": "Namespaced",
                     "singularResource": "localsubjectaccessreview",
                     "verbs": [
                      "create"
                     ]
                    },
                    {
                     "resource": "selfsubjectaccessreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "SelfSubjectAccessReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "selfsubjectaccessreview",
                     "verbs": [
                      "create"
                     ]
                    },
                    {
                     "resource": "selfsubjectrulesreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "SelfSubjectRulesReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "selfsubjectrulesreview",
                     "verbs": [
                      "create"
                     ]
                    },
                    {
                     "resource": "subjectaccessreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "SubjectAccessReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "subjectaccessreview",
                     "verbs": [
                      "create"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                },
                {
                 "metadata": {
                  "name": "rbac.authorization.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "clusterrolebindings",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "ClusterRoleBinding"
                     },
                     "scope": "Cluster",
                     "singularResource": "clusterrolebinding",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    },
                    {
                     "resource": "clusterroles",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "ClusterRole"
                     },
                     "scope": "Cluster",
                     "singularResource": "clusterrole",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    },
                    {
                     "resource": "rolebindings",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "RoleBinding"
                     },
                     "scope": "Namespaced",
                     "singularResource": "rolebinding",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    },
                    {
                     "resource": "roles",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Role"
                     },
                     "scope": "Namespaced",
                     "singularResource": "role",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                },
                {
                 "metadata": {
                  "name": "coordination.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "leases",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Lease"
                     },
                     "scope": "Namespaced",
                     "singularResource": "lease",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                }
               ]
              }),
    Case(name='01-discovery-aggregated-kubectl-accept-apis',
         method='GET',
         path='/apis',
         headers={'Accept': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'],
              'Etag': ['"02560B8BA48B38BBB9976294C52103AE812784DA7B7B7A92E632921ABAF4C037E69F16E86DE071C9BAE76BC29A5301A6906B7AF8C09A593BAB2402AA8C621A66"'],
              'Vary': ['Accept']},
         kind='json',
         expect={
               "kind": "APIGroupDiscoveryList",
               "apiVersion": "apidiscovery.k8s.io/v2",
               "metadata": {},
               "items": [
                {
                 "metadata": {
                  "name": "events.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "events",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Event"
                     },
                     "scope": "Namespaced",
                     "singularResource": "event",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ],
                     "shortNames": [
                      "ev"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                },
                {
                 "metadata": {
                  "name": "authentication.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "selfsubjectreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "SelfSubjectReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "selfsubjectreview",
                     "verbs": [
                      "create"
                     ]
                    },
                    {
                     "resource": "tokenreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "TokenReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "tokenreview",
                     "verbs": [
                      "create"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                },
                {
                 "metadata": {
                  "name": "authorization.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "localsubjectaccessreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "LocalSubjectAccessReview"
                     },
                     "scope": "Namespaced",
                     "singularResource": "localsubjectaccessreview",
                     "verbs": [
                      "create"
                     ]
                    },
                    {
                     "resource": "selfsubjectaccessreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "SelfSubjectAccessReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "selfsubjectaccessreview",
                     "verbs": [
                      "create"
                     ]
                    },
                    {
                     "resource": "selfsubjectrulesreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "SelfSubjectRulesReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "selfsubjectrulesreview",
                     "verbs": [
                      "create"
                     ]
                    },
                    {
                     "resource": "subjectaccessreviews",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "SubjectAccessReview"
                     },
                     "scope": "Cluster",
                     "singularResource": "subjectaccessreview",
                     "verbs": [
                      "create"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                },
                {
                 "metadata": {
                  "name": "rbac.authorization.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "clusterrolebindings",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "ClusterRoleBinding"
                     },
                     "scope": "Cluster",
                     "singularResource": "clusterrolebinding",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    },
                    {
                     "resource": "clusterroles",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "ClusterRole"
                     },
                     "scope": "Cluster",
                     "singularResource": "clusterrole",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    },
                    {
                     "resource": "rolebindings",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "RoleBinding"
                     },
                     "scope": "Namespaced",
                     "singularResource": "rolebinding",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    },
                    {
                     "resource": "roles",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Role"
                     },
                     "scope": "Namespaced",
                     "singularResource": "role",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                },
                {
                 "metadata": {
                  "name": "coordination.k8s.io",
                  "creationTimestamp": None
                 },
                 "versions": [
                  {
                   "version": "v1",
                   "resources": [
                    {
                     "resource": "leases",
                     "responseKind": {
                      "group": "",
                      "version": "",
                      "kind": "Lease"
                     },
                     "scope": "Namespaced",
                     "singularResource": "lease",
                     "verbs": [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch"
                     ]
                    }
                   ],
                   "freshness": "Current"
                  }
                 ]
                }
               ]
              }),
    Case(name='01-discovery-aggregated-unknown-version-apis',
         method='GET',
         path='/apis',
         headers={'Accept': 'application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={
               "kind": "APIGroupList",
               "apiVersion": "v1",
               "groups": [
                {
                 "name": "events.k8s.io",
                 "versions": [
                  {
                   "groupVersion": "events.k8s.io/v1",
                   "version": "v1"
                  }
                 ],
                 "preferredVersion": {
                  "groupVersion": "events.k8s.io/v1",
                  "version": "v1"
                 }
                },
                {
                 "name": "authentication.k8s.io",
                 "versions": [
                  {
                   "groupVersion": "authentication.k8s.io/v1",
                   "version": "v1"
                  }
                 ],
                 "preferredVersion": {
                  "groupVersion": "authentication.k8s.io/v1",
                  "version": "v1"
                 }
                },
                {
                 "name": "authorization.k8s.io",
                 "versions": [
                  {
                   "groupVersion": "authorization.k8s.io/v1",
                   "version": "v1"
                  }
                 ],
                 "preferredVersion": {
                  "groupVersion": "authorization.k8s.io/v1",
                  "version": "v1"
                 }
                },
                {
                 "name": "rbac.authorization.k8s.io",
                 "versions": [
                  {
                   "groupVersion": "rbac.authorization.k8s.io/v1",
                   "version": "v1"
                  }
                 ],
                 "preferredVersion": {
                  "groupVersion": "rbac.authorization.k8s.io/v1",
                  "version": "v1"
                 }
                },
                {
                 "name": "coordination.k8s.io",
                 "versions": [
                  {
                   "groupVersion": "coordination.k8s.io/v1",
                   "version": "v1"
                  }
                 ],
                 "preferredVersion": {
                  "groupVersion": "coordination.k8s.io/v1",
                  "version": "v1"
                 }
                }
               ]
              }),
    Case(name='01-discovery-aggregated-unknown-version-only-apis',
         method='GET',
         path='/apis',
         headers={'Accept': 'application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList'},
         body=None,
         status=406,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'only the following media types are accepted: '
                         'application/json, application/yaml, '
                         'application/vnd.kubernetes.protobuf',
              'reason': 'NotAcceptable',
              'code': 406}),
    Case(name='01-discovery-accept-xml-api-v1',
         method='GET',
         path='/api/v1',
         headers={'Accept': 'application/xml'},
         body=None,
         status=406,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': '406: Not Acceptable\n'
                         '\n'
                         'Available representations: application/json, '
                         'application/yaml, application/vnd.kubernetes.protobuf',
              'reason': 'NotAcceptable',
              'details': {},
              'code': 406}),
    Case(name='01-discovery-accept-xml-apis',
         method='GET',
         path='/apis',
         headers={'Accept': 'application/xml'},
         body=None,
         status=406,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'only the following media types are accepted: '
                         'application/json, application/yaml, '
                         'application/vnd.kubernetes.protobuf',
              'reason': 'NotAcceptable',
              'code': 406}),
    Case(name='01-discovery-unknown-group',
         method='GET',
         path='/apis/nosuch.example.com',
         headers={'Accept': 'application/json'},
         body=None,
         status=404,
         resp_headers={'Content-Type': ['text/plain; charset=utf-8']},
         kind='text',
         expect='404 page not found\n'),
    Case(name='01-discovery-unknown-path',
         method='GET',
         path='/nosuchpath',
         headers={'Accept': 'application/json'},
         body=None,
         status=404,
         resp_headers={'Content-Type': ['text/plain; charset=utf-8']},
         kind='text',
         expect='404 page not found\n'),
    Case(name='01-discovery-unknown-resource',
         method='GET',
         path='/api/v1/pods',
         headers={'Accept': 'application/json'},
         body=None,
         status=404,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'the server could not find the requested resource',
              'reason': 'NotFound',
              'details': {},
              'code': 404}),
    Case(name='01-health-healthz',
         method='GET',
         path='/healthz',
         headers={},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['text/plain; charset=utf-8']},
         kind='text',
         expect='ok'),
    Case(name='01-health-livez-anonymous',
         method='GET',
         path='/livez',
         headers={},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['text/plain; charset=utf-8']},
         kind='text',
         expect='ok'),
    Case(name='01-health-livez-verbose',
         method='GET',
         path='/livez?verbose',
         headers={},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['text/plain; charset=utf-8']},
         kind='text',
         expect=('[+]ping ok\n'
              '[+]log ok\n'
              '[+]etcd ok\n'
              '[+]poststarthook/start-apiserver-admission-initializer ok\n'
              '[+]poststarthook/generic-apiserver-start-informers ok\n'
              '[+]poststarthook/priority-and-fairness-config-consumer ok\n'
              '[+]poststarthook/priority-and-fairness-filter ok\n'
              '[+]poststarthook/storage-object-count-tracker-hook ok\n'
              '[+]poststarthook/start-apiextensions-informers ok\n'
              '[+]poststarthook/start-apiextensions-controllers ok\n'
              '[+]poststarthook/crd-informer-synced ok\n'
              '[+]poststarthook/start-system-namespaces-controller ok\n'
              '[+]poststarthook/start-cluster-authentication-info-controller ok\n'
              '[+]poststarthook/start-kube-apiserver-identity-lease-controller ok\n'
              '[+]poststarthook/start-kube-apiserver-identity-lease-garbage-collector '
              'ok\n'
              '[+]poststarthook/start-legacy-token-tracking-controller ok\n'
              '[+]poststarthook/rbac/bootstrap-roles ok\n'
              '[+]poststarthook/priority-and-fairness-config-producer ok\n'
              '[+]poststarthook/aggregator-reload-proxy-client-cert ok\n'
              '[+]poststarthook/start-kube-aggregator-informers ok\n'
              '[+]poststarthook/apiservice-status-local-available-controller ok\n'
              '[+]poststarthook/apiservice-registration-controller ok\n'
              '[+]poststarthook/apiservice-discovery-controller ok\n'
              '[+]poststarthook/kube-apiserver-autoregistration ok\n'
              '[+]autoregister-completion ok\n'
              '[+]poststarthook/apiservice-openapi-controller ok\n'
              '[+]poststarthook/apiservice-openapiv3-controller ok\n'
              'livez check passed\n'),
         check='health'),
    Case(name='01-health-readyz-single-check',
         method='GET',
         path='/readyz/etcd',
         headers={},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['text/plain; charset=utf-8']},
         kind='text',
         expect='ok'),
    Case(name='01-health-readyz-unknown-check',
         method='GET',
         path='/readyz/nosuch',
         headers={},
         body=None,
         status=404,
         resp_headers={'Content-Type': ['text/plain; charset=utf-8']},
         kind='text',
         expect='404 page not found\n'),
    Case(name='01-health-readyz-verbose',
         method='GET',
         path='/readyz?verbose',
         headers={},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['text/plain; charset=utf-8']},
         kind='text',
         expect=('[+]ping ok\n'
              '[+]log ok\n'
              '[+]etcd ok\n'
              '[+]etcd-readiness ok\n'
              '[+]informer-sync ok\n'
              '[+]poststarthook/start-apiserver-admission-initializer ok\n'
              '[+]poststarthook/generic-apiserver-start-informers ok\n'
              '[+]poststarthook/priority-and-fairness-config-consumer ok\n'
              '[+]poststarthook/priority-and-fairness-filter ok\n'
              '[+]poststarthook/storage-object-count-tracker-hook ok\n'
              '[+]poststarthook/start-apiextensions-informers ok\n'
              '[+]poststarthook/start-apiextensions-controllers ok\n'
              '[+]poststarthook/crd-informer-synced ok\n'
              '[+]poststarthook/start-system-namespaces-controller ok\n'
              '[+]poststarthook/start-cluster-authentication-info-controller ok\n'
              '[+]poststarthook/start-kube-apiserver-identity-lease-controller ok\n'
              '[+]poststarthook/start-kube-apiserver-identity-lease-garbage-collector '
              'ok\n'
              '[+]poststarthook/start-legacy-token-tracking-controller ok\n'
              '[+]poststarthook/rbac/bootstrap-roles ok\n'
              '[+]poststarthook/priority-and-fairness-config-producer ok\n'
              '[+]poststarthook/aggregator-reload-proxy-client-cert ok\n'
              '[+]poststarthook/start-kube-aggregator-informers ok\n'
              '[+]poststarthook/apiservice-status-local-available-controller ok\n'
              '[+]poststarthook/apiservice-registration-controller ok\n'
              '[+]poststarthook/apiservice-discovery-controller ok\n'
              '[+]poststarthook/kube-apiserver-autoregistration ok\n'
              '[+]autoregister-completion ok\n'
              '[+]poststarthook/apiservice-openapi-controller ok\n'
              '[+]poststarthook/apiservice-openapiv3-controller ok\n'
              '[+]shutdown ok\n'
              'readyz check passed\n'),
         check='health'),
    Case(name='01-openapi-v2-headers',
         method='GET',
         path='/openapi/v2',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json'],
              'Etag': ['"0E101AB304BC0F452386C579E8B86191CD7C6DD96B9079652B84FF4EC6A71EF44C2D7EF16FDE914457CDFFBE572BED2A24AD3214255D6C8CE76D0282A14B43A9"'],
              'Last-Modified': ['Sun, 22 Nov 2026 06:43:41 GMT'],
              'Vary': ['Accept-Encoding', 'Accept']},
         kind='omitted',
         expect=None),
    Case(name='01-openapi-v3-index-headers',
         method='GET',
         path='/openapi/v3',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['text/plain; charset=utf-8'],
              'Last-Modified': ['Sun, 22 Nov 2026 06:45:46 GMT']},
         kind='omitted',
         expect=None,
         save={'v3_hash': '@v3hash'}),
    Case(name='01-openapi-v3-api-v1-headers',
         method='GET',
         path='/openapi/v3/api/v1',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json'],
              'Etag': ['"E0C5BFE86723EC55D2452342E017FAA65B2BA5B0E13223C16E6FEAC9191A05059E25A200F20BE8D768ED31F546C14032E4078E7F42E2DA513D26251AEEF39B02"'],
              'Last-Modified': ['Sun, 22 Nov 2026 06:42:15 GMT'],
              'Vary': ['Accept']},
         kind='omitted',
         expect=None),
    Case(name='01-openapi-v3-api-v1-hashed-headers',
         method='GET',
         path='/openapi/v3/api/v1?hash=<<v3_hash>>',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json'],
              'Etag': ['"E0C5BFE86723EC55D2452342E017FAA65B2BA5B0E13223C16E6FEAC9191A05059E25A200F20BE8D768ED31F546C14032E4078E7F42E2DA513D26251AEEF39B02"'],
              'Expires': ['Mon, 22 Nov 2027 06:45:46 UTC'],
              'Last-Modified': ['Sun, 22 Nov 2026 06:42:15 GMT'],
              'Vary': ['Accept']},
         kind='omitted',
         expect=None),
    Case(name='01-openapi-v3-api-v1-wrong-hash',
         method='GET',
         path='/openapi/v3/api/v1?hash=0000',
         headers={'Accept': 'application/json'},
         body=None,
         status=301,
         resp_headers={'Content-Type': ['application/json'],
              'Etag': ['"E0C5BFE86723EC55D2452342E017FAA65B2BA5B0E13223C16E6FEAC9191A05059E25A200F20BE8D768ED31F546C14032E4078E7F42E2DA513D26251AEEF39B02"'],
              'Location': ['/openapi/v3/api/v1?hash=E0C5BFE86723EC55D2452342E017FAA65B2BA5B0E13223C16E6FEAC9191A05059E25A200F20BE8D768ED31F546C14032E4078E7F42E2DA513D26251AEEF39B02'],
              'Vary': ['Accept']},
         kind='none',
         expect=None),
    Case(name='01-openapi-v3-unknown-group',
         method='GET',
         path='/openapi/v3/apis/nosuch.example.com/v1',
         headers={'Accept': 'application/json'},
         body=None,
         status=404,
         resp_headers={},
         kind='none',
         expect=None),
    Setup(body={'apiVersion': 'v1',
              'kind': 'Namespace',
              'metadata': {'name': 'ref-crud'}}, label='namespace ref-crud', method='POST', path='/api/v1/namespaces', status=201),
    Setup(body='<<ROOT_CA>>', label='kube-root-ca.crt in ref-crud', method='POST', path='/api/v1/namespaces/ref-crud/configmaps', status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ServiceAccount',
              'metadata': {'name': 'default'}}, label='default serviceaccount in ref-crud', method='POST', path='/api/v1/namespaces/ref-crud/serviceaccounts', status=201),
    Case(name='02-cm-create',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","labels":{"app":"demo","tier":"backend"},"annotations":{"note":"first"}},"data":{"key1":"value1","key2":"value2"}}',
         status=201,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm1',
                           'namespace': 'ref-crud',
                           'uid': '3e367b1e-11a4-4735-9ee2-b9bfc013cb5c',
                           'resourceVersion': '6684',
                           'creationTimestamp': '2026-11-22T06:45:46Z',
                           'labels': {'app': 'demo', 'tier': 'backend'},
                           'annotations': {'note': 'first'}},
              'data': {'key1': 'value1', 'key2': 'value2'}},
         save={'cm1_rv0': 'metadata.resourceVersion', 'cm1_uid': 'metadata.uid'}),
    Case(name='02-cm-get',
         method='GET',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm1',
                           'namespace': 'ref-crud',
                           'uid': '3e367b1e-11a4-4735-9ee2-b9bfc013cb5c',
                           'resourceVersion': '6684',
                           'creationTimestamp': '2026-11-22T06:45:46Z',
                           'labels': {'app': 'demo', 'tier': 'backend'},
                           'annotations': {'note': 'first'}},
              'data': {'key1': 'value1', 'key2': 'value2'}}),
    Case(name='02-cm-get-missing',
         method='GET',
         path='/api/v1/namespaces/ref-crud/configmaps/nosuch',
         headers={'Accept': 'application/json'},
         body=None,
         status=404,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'configmaps "nosuch" not found',
              'reason': 'NotFound',
              'details': {'name': 'nosuch', 'kind': 'configmaps'},
              'code': 404}),
    Case(name='02-cm-create-duplicate',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","labels":{"app":"demo","tier":"backend"},"annotations":{"note":"first"}},"data":{"key1":"value1","key2":"value2"}}',
         status=409,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'configmaps "cm1" already exists',
              'reason': 'AlreadyExists',
              'details': {'name': 'cm1', 'kind': 'configmaps'},
              'code': 409}),
    Case(name='02-cm-create-generatename',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"cm-gen-","labels":{"app":"demo"}},"data":{"a":"b"}}',
         status=201,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-gen-qzcq2',
                           'generateName': 'cm-gen-',
                           'namespace': 'ref-crud',
                           'uid': 'f87afb54-fc3c-4914-81db-7f180f423c30',
                           'resourceVersion': '6685',
                           'creationTimestamp': '2026-11-22T06:45:46Z',
                           'labels': {'app': 'demo'}},
              'data': {'a': 'b'}}),
    Case(name='02-cm-create-no-typemeta',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"metadata":{"name":"cm-notypemeta"},"data":{"a":"b"}}',
         status=201,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-notypemeta',
                           'namespace': 'ref-crud',
                           'uid': 'd50ab76b-c43e-4128-8f40-97731edcf5a8',
                           'resourceVersion': '6686',
                           'creationTimestamp': '2026-11-22T06:45:46Z'},
              'data': {'a': 'b'}}),
    Case(name='02-cm-create-invalid-name',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Bad_Name"},"data":{"k":"v"}}',
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid '
                         'value: "Bad_Name": a lowercase RFC 1123 subdomain must '
                         "consist of lower case alphanumeric characters, '-' or '.', "
                         'and must start and end with an alphanumeric character (e.g. '
                         "'example.com', regex used for validation is "
                         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
              'reason': 'Invalid',
              'details': {'name': 'Bad_Name',
                          'kind': 'ConfigMap',
                          'causes': [{'reason': 'FieldValueInvalid',
                                      'message': 'Invalid value: "Bad_Name": a '
                                                 'lowercase RFC 1123 subdomain must '
                                                 'consist of lower case alphanumeric '
                                                 "characters, '-' or '.', and must "
                                                 'start and end with an alphanumeric '
                                                 "character (e.g. 'example.com', "
                                                 'regex used for validation is '
                                                 "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                                      'field': 'metadata.name'}]},
              'code': 422}),
    Case(name='02-cm-create-invalid-multi',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body=('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad-keys","labels":{"bad '
              'label!":"x"}},"data":{"bad '
              'key!":"v","ok":"v"},"binaryData":{"ok":"dg=="}}'),
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'ConfigMap "bad-keys" is invalid: [metadata.labels: Invalid '
                         'value: "bad label!": name part must consist of alphanumeric '
                         "characters, '-', '_' or '.', and must start and end with an "
                         "alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
                         "'123-abc', regex used for validation is "
                         "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), data[bad "
                         'key!]: Invalid value: "bad key!": a valid config key must '
                         "consist of alphanumeric characters, '-', '_' or '.' (e.g. "
                         "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for "
                         "validation is '[-._a-zA-Z0-9]+'), data[ok]: Invalid value: "
                         '"ok": duplicate of key present in binaryData]',
              'reason': 'Invalid',
              'details': {'name': 'bad-keys',
                          'kind': 'ConfigMap',
                          'causes': [{'reason': 'FieldValueInvalid',
                                      'message': 'Invalid value: "bad label!": name '
                                                 'part must consist of alphanumeric '
                                                 "characters, '-', '_' or '.', and "
                                                 'must start and end with an '
                                                 'alphanumeric character (e.g. '
                                                 "'MyName',  or 'my.name',  or "
                                                 "'123-abc', regex used for "
                                                 'validation is '
                                                 "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                                      'field': 'metadata.labels'},
                                     {'reason': 'FieldValueInvalid',
                                      'message': 'Invalid value: "bad key!": a valid '
                                                 'config key must consist of '
                                                 "alphanumeric characters, '-', '_' "
                                                 "or '.' (e.g. 'key.name',  or "
                                                 "'KEY_NAME',  or 'key-name', regex "
                                                 'used for validation is '
                                                 "'[-._a-zA-Z0-9]+')",
                                      'field': 'data[bad key!]'},
                                     {'reason': 'FieldValueInvalid',
                                      'message': 'Invalid value: "ok": duplicate of '
                                                 'key present in binaryData',
                                      'field': 'data[ok]'}]},
              'code': 422}),
    Case(name='02-cm-create-missing-name',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{},"data":{}}',
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'ConfigMap "" is invalid: metadata.name: Required value: '
                         'name or generateName is required',
              'reason': 'Invalid',
              'details': {'kind': 'ConfigMap',
                          'causes': [{'reason': 'FieldValueRequired',
                                      'message': 'Required value: name or '
                                                 'generateName is required',
                                      'field': 'metadata.name'}]},
              'code': 422}),
    Case(name='02-cm-create-malformed-json',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"',
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'the object provided is unrecognized (must be of type '
                         "ConfigMap): couldn't get version/kind; json parse error: "
                         'unexpected end of JSON input '
                         '({"apiVersion":"v1","kind":"Con ...)',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='02-cm-create-wrong-type-field',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"badtype"},"data":{"k":5}}',
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'ConfigMap in version "v1" cannot be handled as a ConfigMap: '
                         'json: cannot unmarshal number into Go struct field '
                         'ConfigMap.data of type string',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='02-cm-create-apiversion-mismatch',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"avmismatch"},"data":{}}',
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'ConfigMap in version "v2" cannot be handled as a ConfigMap: '
                         'no kind "ConfigMap" is registered for version "v2" in '
                         'scheme "pkg/api/legacyscheme/scheme.go:30"',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='02-cm-create-kind-mismatch',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"Secret","metadata":{"name":"kindmismatch"},"data":{}}',
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Secret in version "v1" cannot be handled as a ConfigMap: '
                         'converting (v1.Secret) to (core.ConfigMap): unknown '
                         'conversion',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='02-cm-create-namespace-mismatch',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"other"}}',
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'the namespace of the provided object does not match the '
                         'namespace sent on the request',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='02-cm-create-wrong-content-type',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'text/plain'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","labels":{"app":"demo","tier":"backend"},"annotations":{"note":"first"}},"data":{"key1":"value1","key2":"value2"}}',
         status=415,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'the body of the request was in an unknown format - accepted '
                         'media types include: application/json, application/yaml, '
                         'application/vnd.kubernetes.protobuf',
              'reason': 'UnsupportedMediaType',
              'code': 415}),
    Case(name='02-cm-create-cluster-wide-url',
         method='POST',
         path='/api/v1/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"ref-crud"}}',
         status=405,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'the server does not allow this method on the requested '
                         'resource',
              'reason': 'MethodNotAllowed',
              'details': {},
              'code': 405}),
    Case(name='02-cm-create-missing-namespace',
         method='POST',
         path='/api/v1/namespaces/ref-nosuch/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}',
         status=404,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'namespaces "ref-nosuch" not found',
              'reason': 'NotFound',
              'details': {'name': 'ref-nosuch', 'kind': 'namespaces'},
              'code': 404}),
    Case(name='02-cm-method-not-allowed-post-item',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","labels":{"app":"demo","tier":"backend"},"annotations":{"note":"first"}},"data":{"key1":"value1","key2":"value2"}}',
         status=405,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'the server does not allow this method on the requested '
                         'resource',
              'reason': 'MethodNotAllowed',
              'details': {},
              'code': 405}),
    Case(name='02-cm-method-not-allowed-put-collection',
         method='PUT',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","labels":{"app":"demo","tier":"backend"},"annotations":{"note":"first"}},"data":{"key1":"value1","key2":"value2"}}',
         status=405,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'the server does not allow this method on the requested '
                         'resource',
              'reason': 'MethodNotAllowed',
              'details': {},
              'code': 405}),
    Case(name='02-cm-create-dryrun-invalid-value',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps?dryRun=Bogus',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-dry2"}}',
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'CreateOptions.meta.k8s.io "" is invalid: dryRun: '
                         'Unsupported value: []string{"Bogus"}: supported values: '
                         '"All"',
              'reason': 'Invalid',
              'details': {'group': 'meta.k8s.io',
                          'kind': 'CreateOptions',
                          'causes': [{'reason': 'FieldValueNotSupported',
                                      'message': 'Unsupported value: '
                                                 '[]string{"Bogus"}: supported '
                                                 'values: "All"',
                                      'field': 'dryRun'}]},
              'code': 422}),
    Case(name='02-cm-create-fieldvalidation-bad-value',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps?fieldValidation=Bogus',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-fv"}}',
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: '
                         'Unsupported value: "Bogus": supported values: "", "Ignore", '
                         '"Strict", "Warn"',
              'reason': 'Invalid',
              'details': {'group': 'meta.k8s.io',
                          'kind': 'CreateOptions',
                          'causes': [{'reason': 'FieldValueNotSupported',
                                      'message': 'Unsupported value: "Bogus": '
                                                 'supported values: "", "Ignore", '
                                                 '"Strict", "Warn"',
                                      'field': 'fieldValidation'}]},
              'code': 422}),
    Case(name='02-cm-create-fieldvalidation-strict',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps?fieldValidation=Strict',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-unknown","unknownMeta":1},"data":{"k":"v"},"spec":{"x":1}}',
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'ConfigMap in version "v1" cannot be handled as a ConfigMap: '
                         'strict decoding error: unknown field '
                         '"metadata.unknownMeta", unknown field "spec"',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='02-cm-create-fieldvalidation-strict-duplicate',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps?fieldValidation=Strict',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-dup"},"data":{"k":"v","k":"w"}}',
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'ConfigMap in version "v1" cannot be handled as a ConfigMap: '
                         'strict decoding error: duplicate field "data.k"',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='02-cm-update',
         method='PUT',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","labels":{"app":"demo","tier":"backend"},"annotations":{"note":"first"},"resourceVersion":"<<cm1_rv0>>"},"data":{"key1":"value1-updated","key2":"value2"}}',
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm1',
                           'namespace': 'ref-crud',
                           'uid': '3e367b1e-11a4-4735-9ee2-b9bfc013cb5c',
                           'resourceVersion': '6687',
                           'creationTimestamp': '2026-11-22T06:45:46Z',
                           'labels': {'app': 'demo', 'tier': 'backend'},
                           'annotations': {'note': 'first'}},
              'data': {'key1': 'value1-updated', 'key2': 'value2'}}),
    Case(name='02-cm-update-stale-rv',
         method='PUT',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","labels":{"app":"demo","tier":"backend"},"annotations":{"note":"first"},"resourceVersion":"<<cm1_rv0>>"},"data":{"key1":"stale-write","key2":"value2"}}',
         status=409,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': '@T0@',
              'reason': 'Conflict',
              'details': {'name': 'cm1', 'kind': 'configmaps'},
              'code': 409}),
    Case(name='02-cm-update-no-rv',
         method='PUT',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","labels":{"app":"demo","tier":"backend"},"annotations":{"note":"first"}},"data":{"key1":"value1","key2":"value2","key3":"value3"}}',
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm1',
                           'namespace': 'ref-crud',
                           'uid': '3e367b1e-11a4-4735-9ee2-b9bfc013cb5c',
                           'resourceVersion': '6688',
                           'creationTimestamp': '2026-11-22T06:45:46Z',
                           'labels': {'app': 'demo', 'tier': 'backend'},
                           'annotations': {'note': 'first'}},
              'data': {'key1': 'value1', 'key2': 'value2', 'key3': 'value3'}}),
    Case(name='02-cm-update-name-mismatch',
         method='PUT',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"},"data":{}}',
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'the name of the object (other) does not match the name on '
                         'the URL (cm1)',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='02-cm-update-missing',
         method='PUT',
         path='/api/v1/namespaces/ref-crud/configmaps/cm-nosuch',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-nosuch","resourceVersion":"1"},"data":{}}',
         status=404,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'configmaps "cm-nosuch" not found',
              'reason': 'NotFound',
              'details': {'name': 'cm-nosuch', 'kind': 'configmaps'},
              'code': 404}),
    Case(name='02-cm-update-missing-no-rv',
         method='PUT',
         path='/api/v1/namespaces/ref-crud/configmaps/cm-nosuch2',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-nosuch2"},"data":{}}',
         status=404,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'configmaps "cm-nosuch2" not found',
              'reason': 'NotFound',
              'details': {'name': 'cm-nosuch2', 'kind': 'configmaps'},
              'code': 404}),
    Case(name='02-cm-create-no-content-type',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': ''},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"no-ct"}}',
         status=201,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'no-ct',
                           'namespace': 'ref-crud',
                           'uid': 'c78e16ff-5f1a-4a3c-8869-a7321d8a181c',
                           'resourceVersion': '6689',
                           'creationTimestamp': '2026-11-22T06:45:47Z'}}),
    Case(name='02-cm-patch-json-patch',
         method='PATCH',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json',
              'Content-Type': 'application/json-patch+json'},
         body='[{"op":"replace","path":"/data/key2","value":"patched-by-json-patch"},{"op":"add","path":"/metadata/labels/patched","value":"json"}]',
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm1',
                           'namespace': 'ref-crud',
                           'uid': '3e367b1e-11a4-4735-9ee2-b9bfc013cb5c',
                           'resourceVersion': '6690',
                           'creationTimestamp': '2026-11-22T06:45:46Z',
                           'labels': {'app': 'demo',
                                      'patched': 'json',
                                      'tier': 'backend'},
                           'annotations': {'note': 'first'}},
              'data': {'key1': 'value1',
                       'key2': 'patched-by-json-patch',
                       'key3': 'value3'}}),
    Case(name='02-cm-patch-json-patch-bad-path',
         method='PATCH',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json',
              'Content-Type': 'application/json-patch+json'},
         body='[{"op":"replace","path":"/data/nosuchkey","value":"x"}]',
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm1',
                           'namespace': 'ref-crud',
                           'uid': '3e367b1e-11a4-4735-9ee2-b9bfc013cb5c',
                           'resourceVersion': '6691',
                           'creationTimestamp': '2026-11-22T06:45:46Z',
                           'labels': {'app': 'demo',
                                      'patched': 'json',
                                      'tier': 'backend'},
                           'annotations': {'note': 'first'}},
              'data': {'key1': 'value1',
                       'key2': 'patched-by-json-patch',
                       'key3': 'value3',
                       'nosuchkey': 'x'}}),
    Case(name='02-cm-patch-merge-patch',
         method='PATCH',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json',
              'Content-Type': 'application/merge-patch+json'},
         body='{"data":{"key2":"patched-by-merge","key3":null},"metadata":{"labels":{"patched":"merge"}}}',
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm1',
                           'namespace': 'ref-crud',
                           'uid': '3e367b1e-11a4-4735-9ee2-b9bfc013cb5c',
                           'resourceVersion': '6692',
                           'creationTimestamp': '2026-11-22T06:45:46Z',
                           'labels': {'app': 'demo',
                                      'patched': 'merge',
                                      'tier': 'backend'},
                           'annotations': {'note': 'first'}},
              'data': {'key1': 'value1', 'key2': 'patched-by-merge', 'nosuchkey': 'x'}}),
    Case(name='02-cm-patch-strategic-merge-patch',
         method='PATCH',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json',
              'Content-Type': 'application/strategic-merge-patch+json'},
         body='{"data":{"key2":"patched-by-smp"},"metadata":{"annotations":{"note":"smp"},"labels":{"patched":null}}}',
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm1',
                           'namespace': 'ref-crud',
                           'uid': '3e367b1e-11a4-4735-9ee2-b9bfc013cb5c',
                           'resourceVersion': '6693',
                           'creationTimestamp': '2026-11-22T06:45:46Z',
                           'labels': {'app': 'demo', 'tier': 'backend'},
                           'annotations': {'note': 'smp'}},
              'data': {'key1': 'value1', 'key2': 'patched-by-smp', 'nosuchkey': 'x'}}),
    Case(name='02-cm-patch-json-patch-malformed',
         method='PATCH',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json',
              'Content-Type': 'application/json-patch+json'},
         body='{"op":"replace"}',
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'error decoding patch: json: cannot unmarshal object into Go '
                         'value of type []handlers.jsonPatchOp',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='02-cm-patch-json-patch-test-fails',
         method='PATCH',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json',
              'Content-Type': 'application/json-patch+json'},
         body='[{"op":"test","path":"/data/key2","value":"not-the-value"},{"op":"replace","path":"/data/key2","value":"x"}]',
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'the server rejected our request due to an error in our '
                         'request',
              'reason': 'Invalid',
              'details': {},
              'code': 422}),
    Case(name='02-cm-patch-merge-patch-stale-rv',
         method='PATCH',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json',
              'Content-Type': 'application/merge-patch+json'},
         body='{"metadata":{"resourceVersion":"<<cm1_rv0>>"},"data":{"key2":"x"}}',
         status=409,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': '@T0@',
              'reason': 'Conflict',
              'details': {'name': 'cm1', 'kind': 'configmaps'},
              'code': 409}),
    Case(name='02-cm-patch-missing',
         method='PATCH',
         path='/api/v1/namespaces/ref-crud/configmaps/nosuch',
         headers={'Accept': 'application/json',
              'Content-Type': 'application/merge-patch+json'},
         body='{"data":{"x":"y"}}',
         status=404,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'configmaps "nosuch" not found',
              'reason': 'NotFound',
              'details': {'name': 'nosuch', 'kind': 'configmaps'},
              'code': 404}),
    Case(name='02-cm-patch-unsupported-content-type',
         method='PATCH',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"data":{"x":"y"}}',
         status=415,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': '415: Unsupported Media Type',
              'reason': 'UnsupportedMediaType',
              'details': {},
              'code': 415}),
    Case(name='02-cm-get-yaml',
         method='GET',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/yaml'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/yaml']},
         kind='text',
         expect=('apiVersion: v1\n'
              'data:\n'
              '  key1: value1\n'
              '  key2: patched-by-smp\n'
              '  nosuchkey: x\n'
              'kind: ConfigMap\n'
              'metadata:\n'
              '  annotations:\n'
              '    note: smp\n'
              '  creationTimestamp: "2026-11-22T06:45:46Z"\n'
              '  labels:\n'
              '    app: demo\n'
              '    tier: backend\n'
              '  managedFields:\n'
              '  - apiVersion: v1\n'
              '    fieldsType: FieldsV1\n'
              '    fieldsV1:\n'
              '      f:data:\n'
              '        .: {}\n'
              '        f:key1: {}\n'
              '        f:key2: {}\n'
              '        f:nosuchkey: {}\n'
              '      f:metadata:\n'
              '        f:annotations:\n'
              '          .: {}\n'
              '          f:note: {}\n'
              '        f:labels:\n'
              '          .: {}\n'
              '          f:app: {}\n'
              '          f:tier: {}\n'
              '    manager: refcapture\n'
              '    operation: Update\n'
              '    time: "2026-11-22T06:45:47Z"\n'
              '  name: cm1\n'
              '  namespace: ref-crud\n'
              '  resourceVersion: "6693"\n'
              '  uid: 3e367b1e-11a4-4735-9ee2-b9bfc013cb5c\n'),
         check='yaml'),
    Case(name='02-cm-get-protobuf',
         method='GET',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/vnd.kubernetes.protobuf'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/vnd.kubernetes.protobuf']},
         kind='binary',
         expect=None,
         check='protobuf'),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-ssa', 'labels': {'app': 'demo'}},
              'data': {'owned-by-a': '1', 'owned-by-b': '2', 'shared': 'edited'}}, label='cm-ssa as applied', method='POST', path='/api/v1/namespaces/ref-crud/configmaps', status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-ssa-yaml'},
              'data': {'k': 'v'}}, label='cm-ssa-yaml as applied', method='POST', path='/api/v1/namespaces/ref-crud/configmaps', status=201),
    Case(name='02-cm-create-fieldvalidation-warn',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps?fieldValidation=Warn',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-unknown","unknownMeta":1},"data":{"k":"v"},"spec":{"x":1}}',
         status=201,
         resp_headers={'Content-Type': ['application/json'],
              'Warning': ['299 - "unknown field \\"metadata.unknownMeta\\""',
                          '299 - "unknown field \\"spec\\""']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-unknown',
                           'namespace': 'ref-crud',
                           'uid': '40ea6c29-e33b-44e7-a7c1-6593bdf04cdd',
                           'resourceVersion': '6699',
                           'creationTimestamp': '2026-11-22T06:45:47Z'},
              'data': {'k': 'v'}}),
    Case(name='02-cm-create-fieldvalidation-default',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-unknown-default","unknownMeta":1},"data":{"k":"v"},"spec":{"x":1}}',
         status=201,
         resp_headers={'Content-Type': ['application/json'],
              'Warning': ['299 - "unknown field \\"metadata.unknownMeta\\""',
                          '299 - "unknown field \\"spec\\""']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-unknown-default',
                           'namespace': 'ref-crud',
                           'uid': '7f4784b7-b8ec-46a9-a7e6-5b25bcba873e',
                           'resourceVersion': '6700',
                           'creationTimestamp': '2026-11-22T06:45:47Z'},
              'data': {'k': 'v'}}),
    Case(name='02-cm-create-fieldvalidation-ignore',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps?fieldValidation=Ignore',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-unknown-ignore","unknownMeta":1},"data":{"k":"v"},"spec":{"x":1}}',
         status=201,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-unknown-ignore',
                           'namespace': 'ref-crud',
                           'uid': 'd36fb466-841c-45eb-84c9-9c79185b75a8',
                           'resourceVersion': '6701',
                           'creationTimestamp': '2026-11-22T06:45:48Z'},
              'data': {'k': 'v'}}),
    Case(name='02-cm-create-dryrun',
         method='POST',
         path='/api/v1/namespaces/ref-crud/configmaps?dryRun=All',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-dry"},"data":{"k":"v"}}',
         status=201,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-dry',
                           'namespace': 'ref-crud',
                           'uid': '05985ca4-011f-484d-aa1f-d17ce764f1a4',
                           'creationTimestamp': '2026-11-22T06:45:47Z'},
              'data': {'k': 'v'}}),
    Case(name='02-cm-get-after-dryrun',
         method='GET',
         path='/api/v1/namespaces/ref-crud/configmaps/cm-dry',
         headers={'Accept': 'application/json'},
         body=None,
         status=404,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'configmaps "cm-dry" not found',
              'reason': 'NotFound',
              'details': {'name': 'cm-dry', 'kind': 'configmaps'},
              'code': 404}),
    Case(name='02-cm-delete-dryrun',
         method='DELETE',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1?dryRun=All',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Success',
              'details': {'name': 'cm1',
                          'kind': 'configmaps',
                          'uid': '3e367b1e-11a4-4735-9ee2-b9bfc013cb5c'}}),
    Case(name='02-cm-delete-precondition-rv',
         method='DELETE',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"resourceVersion":"<<cm1_rv0>>"}}',
         status=409,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Operation cannot be fulfilled on ConfigMap "cm1": the '
                         'ResourceVersion in the precondition (6684) does not match '
                         'the ResourceVersion in record (6693). The object might have '
                         'been modified',
              'reason': 'Conflict',
              'details': {'name': 'cm1', 'kind': 'ConfigMap'},
              'code': 409}),
    Case(name='02-cm-delete-precondition-uid',
         method='DELETE',
         path='/api/v1/namespaces/ref-crud/configmaps/cm1',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}',
         status=409,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Operation cannot be fulfilled on ConfigMap "cm1": the UID '
                         'in the precondition (00000000-0000-0000-0000-000000000000) '
                         'does not match the UID in record '
                         '(3e367b1e-11a4-4735-9ee2-b9bfc013cb5c). The object might '
                         'have been deleted and then recreated',
              'reason': 'Conflict',
              'details': {'name': 'cm1', 'kind': 'ConfigMap'},
              'code': 409}),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-fin', 'finalizers': ['example.com/hold']},
              'data': {'k': 'v'}}, label='cm-fin with a finalizer', method='POST', path='/api/v1/namespaces/ref-crud/configmaps', status=201),
    Case(name='02-cm-delete-with-finalizer',
         method='DELETE',
         path='/api/v1/namespaces/ref-crud/configmaps/cm-fin',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-fin',
                           'namespace': 'ref-crud',
                           'uid': 'd56a20d7-faed-463b-9d4c-82b86c34c43b',
                           'resourceVersion': '6705',
                           'creationTimestamp': '2026-11-22T06:45:48Z',
                           'deletionTimestamp': '2026-11-22T06:45:48Z',
                           'deletionGracePeriodSeconds': 0,
                           'finalizers': ['example.com/hold']},
              'data': {'k': 'v'}}),
    Case(name='02-cm-get-terminating',
         method='GET',
         path='/api/v1/namespaces/ref-crud/configmaps/cm-fin',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-fin',
                           'namespace': 'ref-crud',
                           'uid': 'd56a20d7-faed-463b-9d4c-82b86c34c43b',
                           'resourceVersion': '6705',
                           'creationTimestamp': '2026-11-22T06:45:48Z',
                           'deletionTimestamp': '2026-11-22T06:45:48Z',
                           'deletionGracePeriodSeconds': 0,
                           'finalizers': ['example.com/hold']},
              'data': {'k': 'v'}}),
    Case(name='02-cm-patch-remove-finalizer',
         method='PATCH',
         path='/api/v1/namespaces/ref-crud/configmaps/cm-fin',
         headers={'Accept': 'application/json',
              'Content-Type': 'application/merge-patch+json'},
         body='{"metadata":{"finalizers":null}}',
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-fin',
                           'namespace': 'ref-crud',
                           'uid': 'd56a20d7-faed-463b-9d4c-82b86c34c43b',
                           'resourceVersion': '6705',
                           'creationTimestamp': '2026-11-22T06:45:48Z',
                           'deletionTimestamp': '2026-11-22T06:45:48Z',
                           'deletionGracePeriodSeconds': 0},
              'data': {'k': 'v'}}),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-fg'},
              'data': {'k': 'v'}}, label='cm-fg', method='POST', path='/api/v1/namespaces/ref-crud/configmaps', status=201),
    Case(name='02-cm-delete-foreground',
         method='DELETE',
         path='/api/v1/namespaces/ref-crud/configmaps/cm-fg',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground"}',
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-fg',
                           'namespace': 'ref-crud',
                           'uid': '39740f45-d1a9-4081-a9df-8b3c74557c2f',
                           'resourceVersion': '6708',
                           'creationTimestamp': '2026-11-22T06:45:48Z',
                           'deletionTimestamp': '2026-11-22T06:45:48Z',
                           'deletionGracePeriodSeconds': 0,
                           'finalizers': ['foregroundDeletion']},
              'data': {'k': 'v'}}),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-orphan'},
              'data': {'k': 'v'}}, label='cm-orphan', method='POST', path='/api/v1/namespaces/ref-crud/configmaps', status=201),
    Case(name='02-cm-delete-orphan-query',
         method='DELETE',
         path='/api/v1/namespaces/ref-crud/configmaps/cm-orphan?propagationPolicy=Orphan',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-orphan',
                           'namespace': 'ref-crud',
                           'uid': '3817c63d-0c6c-4374-9f20-23a3aeabfaf8',
                           'resourceVersion': '6711',
                           'creationTimestamp': '2026-11-22T06:45:48Z',
                           'deletionTimestamp': '2026-11-22T06:45:48Z',
                           'deletionGracePeriodSeconds': 0,
                           'finalizers': ['orphan']},
              'data': {'k': 'v'}}),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-del'},
              'data': {'k': 'v'}}, label='cm-del', method='POST', path='/api/v1/namespaces/ref-crud/configmaps', status=201),
    Case(name='02-cm-delete',
         method='DELETE',
         path='/api/v1/namespaces/ref-crud/configmaps/cm-del',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Success',
              'details': {'name': 'cm-del',
                          'kind': 'configmaps',
                          'uid': '096fe2ea-b80c-4932-9810-c4ff6ddd85f1'}}),
    Case(name='02-cm-delete-missing',
         method='DELETE',
         path='/api/v1/namespaces/ref-crud/configmaps/cm-del',
         headers={'Accept': 'application/json'},
         body=None,
         status=404,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'configmaps "cm-del" not found',
              'reason': 'NotFound',
              'details': {'name': 'cm-del', 'kind': 'configmaps'},
              'code': 404}),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-batch-0', 'labels': {'batch': 'yes'}},
              'data': {'i': '0'}}, label='cm-batch-0', method='POST', path='/api/v1/namespaces/ref-crud/configmaps', status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-batch-1', 'labels': {'batch': 'yes'}},
              'data': {'i': '1'}}, label='cm-batch-1', method='POST', path='/api/v1/namespaces/ref-crud/configmaps', status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-batch-2', 'labels': {'batch': 'yes'}},
              'data': {'i': '2'}}, label='cm-batch-2', method='POST', path='/api/v1/namespaces/ref-crud/configmaps', status=201),
    Case(name='02-cm-deletecollection',
         method='DELETE',
         path='/api/v1/namespaces/ref-crud/configmaps?labelSelector=batch%3Dyes',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6716'},
              'items': [{'metadata': {'name': 'cm-batch-0',
                                      'namespace': 'ref-crud',
                                      'uid': '2f729fcc-4946-43e8-ae24-4953f7a80402',
                                      'resourceVersion': '6713',
                                      'creationTimestamp': '2026-11-22T06:45:48Z',
                                      'labels': {'batch': 'yes'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-batch-1',
                                      'namespace': 'ref-crud',
                                      'uid': 'ccfeb34f-2bf1-4aa6-9452-660413a105ee',
                                      'resourceVersion': '6715',
                                      'creationTimestamp': '2026-11-22T06:45:48Z',
                                      'labels': {'batch': 'yes'}},
                         'data': {'i': '1'}},
                        {'metadata': {'name': 'cm-batch-2',
                                      'namespace': 'ref-crud',
                                      'uid': '5e9794cd-b74d-474d-a507-6b1bd5615869',
                                      'resourceVersion': '6716',
                                      'creationTimestamp': '2026-11-22T06:45:48Z',
                                      'labels': {'batch': 'yes'}},
                         'data': {'i': '2'}}]}),
    Case(name='02-cm-list-after-deletecollection',
         method='GET',
         path='/api/v1/namespaces/ref-crud/configmaps?labelSelector=batch%3Dyes',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6719'},
              'items': []}),
    Setup(body={'apiVersion': 'v1',
              'kind': 'Namespace',
              'metadata': {'name': 'ref-secrets'}}, label='namespace ref-secrets', method='POST', path='/api/v1/namespaces', status=201),
    Setup(body='<<ROOT_CA>>', label='kube-root-ca.crt in ref-secrets', method='POST', path='/api/v1/namespaces/ref-secrets/configmaps', status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ServiceAccount',
              'metadata': {'name': 'default'}}, label='default serviceaccount in ref-secrets', method='POST', path='/api/v1/namespaces/ref-secrets/serviceaccounts', status=201),
    Case(name='03-secret-create-stringdata',
         method='POST',
         path='/api/v1/namespaces/ref-secrets/secrets',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1"},"type":"Opaque","stringData":{"username":"admin","password":"s3cr3t"},"data":{"existing":"ZnJvbS1kYXRh"}}',
         status=201,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Secret',
              'apiVersion': 'v1',
              'metadata': {'name': 's1',
                           'namespace': 'ref-secrets',
                           'uid': 'a394f75d-9b45-40b2-aaa5-da91dbb08351',
                           'resourceVersion': '6727',
                           'creationTimestamp': '2026-11-22T06:46:03Z'},
              'data': {'existing': 'ZnJvbS1kYXRh',
                       'password': 'czNjcjN0',
                       'username': 'YWRtaW4='},
              'type': 'Opaque'}),
    Case(name='03-secret-create-default-type',
         method='POST',
         path='/api/v1/namespaces/ref-secrets/secrets',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s-notype"},"data":{"k":"dg=="}}',
         status=201,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Secret',
              'apiVersion': 'v1',
              'metadata': {'name': 's-notype',
                           'namespace': 'ref-secrets',
                           'uid': 'e0f63716-2afe-45d5-a78b-c0473d72f616',
                           'resourceVersion': '6728',
                           'creationTimestamp': '2026-11-22T06:46:03Z'},
              'data': {'k': 'dg=='},
              'type': 'Opaque'}),
    Case(name='03-secret-create-immutable',
         method='POST',
         path='/api/v1/namespaces/ref-secrets/secrets',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s-immutable"},"immutable":true,"stringData":{"k":"v1"}}',
         status=201,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Secret',
              'apiVersion': 'v1',
              'metadata': {'name': 's-immutable',
                           'namespace': 'ref-secrets',
                           'uid': '446e357e-216c-4278-a501-cd0f7853f387',
                           'resourceVersion': '6730',
                           'creationTimestamp': '2026-11-22T06:46:04Z'},
              'immutable': True,
              'data': {'k': 'djE='},
              'type': 'Opaque'}),
    Case(name='03-secret-create-basic-auth',
         method='POST',
         path='/api/v1/namespaces/ref-secrets/secrets',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s-basic"},"type":"kubernetes.io/basic-auth","stringData":{"username":"u","password":"p"}}',
         status=201,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Secret',
              'apiVersion': 'v1',
              'metadata': {'name': 's-basic',
                           'namespace': 'ref-secrets',
                           'uid': '21e8a42d-ff77-4efc-93ba-6375367b874c',
                           'resourceVersion': '6731',
                           'creationTimestamp': '2026-11-22T06:46:04Z'},
              'data': {'password': 'cA==', 'username': 'dQ=='},
              'type': 'kubernetes.io/basic-auth'}),
    Case(name='03-secret-create-bad-base64',
         method='POST',
         path='/api/v1/namespaces/ref-secrets/secrets',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body=('{"apiVersion":"v1","kind":"Secret","metadata":{"name":"b64-bad"},"data":{"k":"not '
              'base64!!"}}'),
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Secret in version "v1" cannot be handled as a Secret: '
                         'illegal base64 data at input byte 3',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='03-secret-create-dockerconfig-invalid',
         method='POST',
         path='/api/v1/namespaces/ref-secrets/secrets',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"Secret","metadata":{"name":"docker-bad"},"type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":"bm90IGpzb24="}}',
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Secret "docker-bad" is invalid: data[.dockerconfigjson]: '
                         'Invalid value: "<secret contents redacted>": invalid '
                         "character 'o' in literal null (expecting 'u')",
              'reason': 'Invalid',
              'details': {'name': 'docker-bad',
                          'kind': 'Secret',
                          'causes': [{'reason': 'FieldValueInvalid',
                                      'message': 'Invalid value: "<secret contents '
                                                 'redacted>": invalid character \'o\' '
                                                 "in literal null (expecting 'u')",
                                      'field': 'data[.dockerconfigjson]'}]},
              'code': 422}),
    Case(name='03-secret-create-tls-missing-keys',
         method='POST',
         path='/api/v1/namespaces/ref-secrets/secrets',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tls-bad"},"type":"kubernetes.io/tls","data":{"foo":"YmFy"}}',
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Secret "tls-bad" is invalid: [data[tls.crt]: Required '
                         'value, data[tls.key]: Required value]',
              'reason': 'Invalid',
              'details': {'name': 'tls-bad',
                          'kind': 'Secret',
                          'causes': [{'reason': 'FieldValueRequired',
                                      'message': 'Required value',
                                      'field': 'data[tls.crt]'},
                                     {'reason': 'FieldValueRequired',
                                      'message': 'Required value',
                                      'field': 'data[tls.key]'}]},
              'code': 422}),
    Case(name='03-secret-get',
         method='GET',
         path='/api/v1/namespaces/ref-secrets/secrets/s1',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Secret',
              'apiVersion': 'v1',
              'metadata': {'name': 's1',
                           'namespace': 'ref-secrets',
                           'uid': 'a394f75d-9b45-40b2-aaa5-da91dbb08351',
                           'resourceVersion': '6727',
                           'creationTimestamp': '2026-11-22T06:46:03Z'},
              'data': {'existing': 'ZnJvbS1kYXRh',
                       'password': 'czNjcjN0',
                       'username': 'YWRtaW4='},
              'type': 'Opaque'}),
    Case(name='03-secret-list',
         method='GET',
         path='/api/v1/namespaces/ref-secrets/secrets',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'SecretList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6731'},
              'items': [{'metadata': {'name': 's-basic',
                                      'namespace': 'ref-secrets',
                                      'uid': '21e8a42d-ff77-4efc-93ba-6375367b874c',
                                      'resourceVersion': '6731',
                                      'creationTimestamp': '2026-11-22T06:46:04Z'},
                         'data': {'password': 'cA==', 'username': 'dQ=='},
                         'type': 'kubernetes.io/basic-auth'},
                        {'metadata': {'name': 's-immutable',
                                      'namespace': 'ref-secrets',
                                      'uid': '446e357e-216c-4278-a501-cd0f7853f387',
                                      'resourceVersion': '6730',
                                      'creationTimestamp': '2026-11-22T06:46:04Z'},
                         'immutable': True,
                         'data': {'k': 'djE='},
                         'type': 'Opaque'},
                        {'metadata': {'name': 's-notype',
                                      'namespace': 'ref-secrets',
                                      'uid': 'e0f63716-2afe-45d5-a78b-c0473d72f616',
                                      'resourceVersion': '6728',
                                      'creationTimestamp': '2026-11-22T06:46:03Z'},
                         'data': {'k': 'dg=='},
                         'type': 'Opaque'},
                        {'metadata': {'name': 's1',
                                      'namespace': 'ref-secrets',
                                      'uid': 'a394f75d-9b45-40b2-aaa5-da91dbb08351',
                                      'resourceVersion': '6727',
                                      'creationTimestamp': '2026-11-22T06:46:03Z'},
                         'data': {'existing': 'ZnJvbS1kYXRh',
                                  'password': 'czNjcjN0',
                                  'username': 'YWRtaW4='},
                         'type': 'Opaque'}]}),
    Case(name='03-secret-patch-immutable-flag-rejected',
         method='PATCH',
         path='/api/v1/namespaces/ref-secrets/secrets/s-immutable',
         headers={'Accept': 'application/json',
              'Content-Type': 'application/merge-patch+json'},
         body='{"immutable":false}',
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Secret "s-immutable" is invalid: immutable: Forbidden: '
                         'field is immutable when `immutable` is set',
              'reason': 'Invalid',
              'details': {'name': 's-immutable',
                          'kind': 'Secret',
                          'causes': [{'reason': 'FieldValueForbidden',
                                      'message': 'Forbidden: field is immutable when '
                                                 '`immutable` is set',
                                      'field': 'immutable'}]},
              'code': 422}),
    Case(name='03-secret-update-immutable-rejected',
         method='PUT',
         path='/api/v1/namespaces/ref-secrets/secrets/s-immutable',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s-immutable"},"immutable":true,"stringData":{"k":"v2"}}',
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Secret "s-immutable" is invalid: data: Forbidden: field is '
                         'immutable when `immutable` is set',
              'reason': 'Invalid',
              'details': {'name': 's-immutable',
                          'kind': 'Secret',
                          'causes': [{'reason': 'FieldValueForbidden',
                                      'message': 'Forbidden: field is immutable when '
                                                 '`immutable` is set',
                                      'field': 'data'}]},
              'code': 422}),
    Case(name='03-secret-update-type-change',
         method='PUT',
         path='/api/v1/namespaces/ref-secrets/secrets/s1',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1"},"type":"kubernetes.io/basic-auth","data":{"username":"YQ=="}}',
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Secret "s1" is invalid: type: Invalid value: '
                         '"kubernetes.io/basic-auth": field is immutable',
              'reason': 'Invalid',
              'details': {'name': 's1',
                          'kind': 'Secret',
                          'causes': [{'reason': 'FieldValueInvalid',
                                      'message': 'Invalid value: '
                                                 '"kubernetes.io/basic-auth": field '
                                                 'is immutable',
                                      'field': 'type'}]},
              'code': 422}),
    Setup(body={'apiVersion': 'v1',
              'kind': 'Namespace',
              'metadata': {'name': 'ref-list'}}, label='namespace ref-list', method='POST', path='/api/v1/namespaces', save={'old_rv': 'metadata.resourceVersion'}, status=201),
    Setup(body='<<ROOT_CA>>', label='kube-root-ca.crt in ref-list', method='POST', path='/api/v1/namespaces/ref-list/configmaps', status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ServiceAccount',
              'metadata': {'name': 'default'}}, label='default serviceaccount in ref-list', method='POST', path='/api/v1/namespaces/ref-list/serviceaccounts', status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-0',
                           'labels': {'app': 'web', 'tier': 'frontend'}},
              'data': {'i': '0'}}, label='cm-0', method='POST', path='/api/v1/namespaces/ref-list/configmaps', save={'cm0_rv': 'metadata.resourceVersion'}, status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-1',
                           'labels': {'app': 'web', 'tier': 'backend'}},
              'data': {'i': '1'}}, label='cm-1', method='POST', path='/api/v1/namespaces/ref-list/configmaps', save={'cm1_rv': 'metadata.resourceVersion'}, status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-2', 'labels': {'app': 'db', 'tier': 'backend'}},
              'data': {'i': '2'}}, label='cm-2', method='POST', path='/api/v1/namespaces/ref-list/configmaps', save={'cm2_rv': 'metadata.resourceVersion'}, status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-3', 'labels': {'app': 'db', 'tier': 'cache'}},
              'data': {'i': '3'}}, label='cm-3', method='POST', path='/api/v1/namespaces/ref-list/configmaps', save={'cm3_rv': 'metadata.resourceVersion'}, status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-4', 'labels': {'app': 'batch'}},
              'data': {'i': '4'}}, label='cm-4', method='POST', path='/api/v1/namespaces/ref-list/configmaps', save={'cm4_rv': 'metadata.resourceVersion'}, status=201),
    Case(name='04-list-namespaced',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742'},
              'items': [{'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}},
                        {'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}},
                        {'metadata': {'name': 'cm-3',
                                      'namespace': 'ref-list',
                                      'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                      'resourceVersion': '6741',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'cache'}},
                         'data': {'i': '3'}},
                        {'metadata': {'name': 'cm-4',
                                      'namespace': 'ref-list',
                                      'uid': 'eda90410-c3a1-48ab-84a0-e55a344d5a6a',
                                      'resourceVersion': '6742',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'batch'}},
                         'data': {'i': '4'}},
                        {'metadata': {'name': 'kube-root-ca.crt',
                                      'namespace': 'ref-list',
                                      'uid': '3c758c64-cae0-4552-98ec-58e4608d71b7',
                                      'resourceVersion': '6736',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'annotations': {'kubernetes.io/description': '@T1@'}},
                         'data': {'ca.crt': '@T2@'}}]}),
    Case(name='04-list-limit-zero',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?limit=0',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6743'},
              'items': [{'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}},
                        {'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}},
                        {'metadata': {'name': 'cm-3',
                                      'namespace': 'ref-list',
                                      'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                      'resourceVersion': '6741',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'cache'}},
                         'data': {'i': '3'}},
                        {'metadata': {'name': 'cm-4',
                                      'namespace': 'ref-list',
                                      'uid': 'eda90410-c3a1-48ab-84a0-e55a344d5a6a',
                                      'resourceVersion': '6742',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'batch'}},
                         'data': {'i': '4'}},
                        {'metadata': {'name': 'kube-root-ca.crt',
                                      'namespace': 'ref-list',
                                      'uid': '3c758c64-cae0-4552-98ec-58e4608d71b7',
                                      'resourceVersion': '6736',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'annotations': {'kubernetes.io/description': '@T1@'}},
                         'data': {'ca.crt': '@T2@'}}]}),
    Case(name='04-list-limit-page1',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?limit=2',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742',
                           'continue': 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Njc0Miwic3RhcnQiOiIvY20tMVx1MDAwMCJ9',
                           'remainingItemCount': 4},
              'items': [{'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}}]},
         save={'page1': 'metadata.continue'}),
    Case(name='04-list-limit-page2',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?limit=2&continue=<<page1>>',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742',
                           'continue': 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Njc0Miwic3RhcnQiOiJjbS0zXHUwMDAwIn0',
                           'remainingItemCount': 2},
              'items': [{'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}},
                        {'metadata': {'name': 'cm-3',
                                      'namespace': 'ref-list',
                                      'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                      'resourceVersion': '6741',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'cache'}},
                         'data': {'i': '3'}}]},
         save={'page2': 'metadata.continue'}),
    Case(name='04-list-limit-page3',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?limit=2&continue=<<page2>>',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742'},
              'items': [{'metadata': {'name': 'cm-4',
                                      'namespace': 'ref-list',
                                      'uid': 'eda90410-c3a1-48ab-84a0-e55a344d5a6a',
                                      'resourceVersion': '6742',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'batch'}},
                         'data': {'i': '4'}},
                        {'metadata': {'name': 'kube-root-ca.crt',
                                      'namespace': 'ref-list',
                                      'uid': '3c758c64-cae0-4552-98ec-58e4608d71b7',
                                      'resourceVersion': '6736',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'annotations': {'kubernetes.io/description': '@T1@'}},
                         'data': {'ca.crt': '@T2@'}}]}),
    Case(name='04-list-continue-invalid',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?limit=2&continue=not-a-valid-token',
         headers={'Accept': 'application/json'},
         body=None,
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'invalid continue token: continue key is not valid: illegal '
                         'base64 data at input byte 16',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='04-list-continue-with-rv',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?limit=2&resourceVersion=<<cm4_rv>>&continue=<<page1>>',
         headers={'Accept': 'application/json'},
         body=None,
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'specifying resource version is not allowed when using '
                         'continue',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='04-list-label-selector-equality',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?labelSelector=app%3Dweb',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742'},
              'items': [{'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}}]}),
    Case(name='04-list-label-selector-exists',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?labelSelector=tier',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742'},
              'items': [{'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}},
                        {'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}},
                        {'metadata': {'name': 'cm-3',
                                      'namespace': 'ref-list',
                                      'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                      'resourceVersion': '6741',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'cache'}},
                         'data': {'i': '3'}}]}),
    Case(name='04-list-label-selector-set',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?labelSelector=app%20in%20%28web%2Cdb%29%2Ctier%21%3Dcache%2C%21nosuch',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742'},
              'items': [{'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}},
                        {'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}}]}),
    Case(name='04-list-label-selector-invalid',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?labelSelector=app%20in%20%28web',
         headers={'Accept': 'application/json'},
         body=None,
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': "unable to parse requirement: found '', expected: ',' or ')'",
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='04-list-label-selector-invalid-value',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?labelSelector=app%3Dbad%20value%21',
         headers={'Accept': 'application/json'},
         body=None,
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': "found 'value', expected: ',' or 'end of string'",
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='04-list-field-selector-name',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?fieldSelector=metadata.name%3Dcm-2',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742'},
              'items': [{'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}}]}),
    Case(name='04-list-field-selector-namespace',
         method='GET',
         path='/api/v1/configmaps?fieldSelector=metadata.namespace%3Dref-list%2Cmetadata.name%21%3Dkube-root-ca.crt',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742'},
              'items': [{'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}},
                        {'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}},
                        {'metadata': {'name': 'cm-3',
                                      'namespace': 'ref-list',
                                      'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                      'resourceVersion': '6741',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'cache'}},
                         'data': {'i': '3'}},
                        {'metadata': {'name': 'cm-4',
                                      'namespace': 'ref-list',
                                      'uid': 'eda90410-c3a1-48ab-84a0-e55a344d5a6a',
                                      'resourceVersion': '6742',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'batch'}},
                         'data': {'i': '4'}}]}),
    Case(name='04-list-field-selector-invalid',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?fieldSelector=metadata.name',
         headers={'Accept': 'application/json'},
         body=None,
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': "invalid selector: 'metadata.name'; can't understand "
                         "'metadata.name'",
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='04-list-field-selector-unsupported',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?fieldSelector=data.i%3D1',
         headers={'Accept': 'application/json'},
         body=None,
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': '"data.i" is not a known field selector: only '
                         '"metadata.name", "metadata.namespace"',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='04-list-cluster-wide',
         method='GET',
         path='/api/v1/configmaps?labelSelector=app',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742'},
              'items': [{'metadata': {'name': 'cm-gen-qzcq2',
                                      'generateName': 'cm-gen-',
                                      'namespace': 'ref-crud',
                                      'uid': 'f87afb54-fc3c-4914-81db-7f180f423c30',
                                      'resourceVersion': '6685',
                                      'creationTimestamp': '2026-11-22T06:45:46Z',
                                      'labels': {'app': 'demo'}},
                         'data': {'a': 'b'}},
                        {'metadata': {'name': 'cm-ssa',
                                      'namespace': 'ref-crud',
                                      'uid': 'f50194f5-a9b1-4000-ad12-ebeefbc96d6e',
                                      'resourceVersion': '6698',
                                      'creationTimestamp': '2026-11-22T06:45:47Z',
                                      'labels': {'app': 'demo'}},
                         'data': {'owned-by-a': '1',
                                  'owned-by-b': '2',
                                  'shared': 'edited'}},
                        {'metadata': {'name': 'cm1',
                                      'namespace': 'ref-crud',
                                      'uid': '3e367b1e-11a4-4735-9ee2-b9bfc013cb5c',
                                      'resourceVersion': '6693',
                                      'creationTimestamp': '2026-11-22T06:45:46Z',
                                      'labels': {'app': 'demo', 'tier': 'backend'},
                                      'annotations': {'note': 'smp'}},
                         'data': {'key1': 'value1',
                                  'key2': 'patched-by-smp',
                                  'nosuchkey': 'x'}},
                        {'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}},
                        {'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}},
                        {'metadata': {'name': 'cm-3',
                                      'namespace': 'ref-list',
                                      'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                      'resourceVersion': '6741',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'cache'}},
                         'data': {'i': '3'}},
                        {'metadata': {'name': 'cm-4',
                                      'namespace': 'ref-list',
                                      'uid': 'eda90410-c3a1-48ab-84a0-e55a344d5a6a',
                                      'resourceVersion': '6742',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'batch'}},
                         'data': {'i': '4'}}]}),
    Case(name='04-list-cluster-wide-unfiltered-limit',
         method='GET',
         path='/api/v1/configmaps?limit=3',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742',
                           'continue': 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6N...',
                           'remainingItemCount': 20},
              'items': [{'metadata': {'name': 'kube-root-ca.crt',
                                      'namespace': 'default',
                                      'uid': '5d7240ab-b413-4670-b8af-5784f73299ba',
                                      'resourceVersion': '4449',
                                      'creationTimestamp': '2026-11-22T06:16:08Z',
                                      'annotations': {'kubernetes.io/description': 'Contains '
                                                                                   'a '
                                                                                   'CA '
                                                                                   'bundle '
                                                                                   'that '
                                                                                   'can '
                                                                                   'be '
                                                                                   'used...'}},
                         'data': {'ca.crt': '-----BEGIN CERTIFICATE-----\n'
                                            'MIIDCTCCA...'}},
                        {'metadata': {'name': 'kube-root-ca.crt',
                                      'namespace': 'kube-public',
                                      'uid': 'e1b84ee6-c40f-4ce5-9a99-db910e4f9292',
                                      'resourceVersion': '4450',
                                      'creationTimestamp': '2026-11-22T06:16:08Z',
                                      'annotations': {'kubernetes.io/description': 'Contains '
                                                                                   'a '
                                                                                   'CA '
                                                                                   'bundle '
                                                                                   'that '
                                                                                   'can '
                                                                                   'be '
                                                                                   'used...'}},
                         'data': {'ca.crt': '-----BEGIN CERTIFICATE-----\n'
                                            'MIIDCTCCA...'}},
                        {'metadata': {'name': 'extension-apiserver-authentication',
                                      'namespace': 'kube-system',
                                      'uid': 'dbb68d1d-d355-4c06-835a-1320a9e7ee93',
                                      'resourceVersion': '4276',
                                      'creationTimestamp': '2026-11-22T06:15:52Z'},
                         'data': {'client-ca-file': '-----BEGIN CERTIFICATE-----\n'
                                                    'MIIDCTCCA...',
                                  'requestheader-allowed-names': '["front-proxy-client"]',
                                  'requestheader-client-ca-file': '-----BEGIN '
                                                                  'CERTIFICATE-----\n'
                                                                  'MIIDITCCA...',
                                  'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
                                  'requestheader-group-headers': '["X-Remote-Group"]',
                                  'requestheader-uid-headers': '[]',
                                  'requestheader-username-headers': '["X-Remote-User"]'}}]},
         shape=True,
         drop=['items'],
         count={'items': 3}),
    Case(name='04-list-rv0',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?resourceVersion=0',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742'},
              'items': [{'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}},
                        {'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}},
                        {'metadata': {'name': 'cm-3',
                                      'namespace': 'ref-list',
                                      'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                      'resourceVersion': '6741',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'cache'}},
                         'data': {'i': '3'}},
                        {'metadata': {'name': 'cm-4',
                                      'namespace': 'ref-list',
                                      'uid': 'eda90410-c3a1-48ab-84a0-e55a344d5a6a',
                                      'resourceVersion': '6742',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'batch'}},
                         'data': {'i': '4'}},
                        {'metadata': {'name': 'kube-root-ca.crt',
                                      'namespace': 'ref-list',
                                      'uid': '3c758c64-cae0-4552-98ec-58e4608d71b7',
                                      'resourceVersion': '6736',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'annotations': {'kubernetes.io/description': '@T1@'}},
                         'data': {'ca.crt': '@T2@'}}]}),
    Case(name='04-list-rv0-limit',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?resourceVersion=0&limit=2',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742'},
              'items': [{'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}},
                        {'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}},
                        {'metadata': {'name': 'cm-3',
                                      'namespace': 'ref-list',
                                      'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                      'resourceVersion': '6741',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'cache'}},
                         'data': {'i': '3'}},
                        {'metadata': {'name': 'cm-4',
                                      'namespace': 'ref-list',
                                      'uid': 'eda90410-c3a1-48ab-84a0-e55a344d5a6a',
                                      'resourceVersion': '6742',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'batch'}},
                         'data': {'i': '4'}},
                        {'metadata': {'name': 'kube-root-ca.crt',
                                      'namespace': 'ref-list',
                                      'uid': '3c758c64-cae0-4552-98ec-58e4608d71b7',
                                      'resourceVersion': '6736',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'annotations': {'kubernetes.io/description': '@T1@'}},
                         'data': {'ca.crt': '@T2@'}}]}),
    Case(name='04-list-single-get-rv0',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps/cm-0?resourceVersion=0',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-0',
                           'namespace': 'ref-list',
                           'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                           'resourceVersion': '6738',
                           'creationTimestamp': '2026-11-22T06:46:17Z',
                           'labels': {'app': 'web', 'tier': 'frontend'}},
              'data': {'i': '0'}}),
    Case(name='04-get-single-rv-old',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps/cm-0?resourceVersion=<<old_rv>>',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-0',
                           'namespace': 'ref-list',
                           'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                           'resourceVersion': '6738',
                           'creationTimestamp': '2026-11-22T06:46:17Z',
                           'labels': {'app': 'web', 'tier': 'frontend'}},
              'data': {'i': '0'}}),
    Case(name='04-list-rv-notolderthan',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?resourceVersion=<<cm0_rv>>&resourceVersionMatch=NotOlderThan',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6742'},
              'items': [{'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}},
                        {'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}},
                        {'metadata': {'name': 'cm-3',
                                      'namespace': 'ref-list',
                                      'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                      'resourceVersion': '6741',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'cache'}},
                         'data': {'i': '3'}},
                        {'metadata': {'name': 'cm-4',
                                      'namespace': 'ref-list',
                                      'uid': 'eda90410-c3a1-48ab-84a0-e55a344d5a6a',
                                      'resourceVersion': '6742',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'batch'}},
                         'data': {'i': '4'}},
                        {'metadata': {'name': 'kube-root-ca.crt',
                                      'namespace': 'ref-list',
                                      'uid': '3c758c64-cae0-4552-98ec-58e4608d71b7',
                                      'resourceVersion': '6736',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'annotations': {'kubernetes.io/description': '@T1@'}},
                         'data': {'ca.crt': '@T2@'}}]}),
    Case(name='04-list-rv-notolderthan-old',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?resourceVersion=<<old_rv>>&resourceVersionMatch=NotOlderThan',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '40591'},
              'items': [{'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}},
                        {'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}},
                        {'metadata': {'name': 'cm-3',
                                      'namespace': 'ref-list',
                                      'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                      'resourceVersion': '6741',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'cache'}},
                         'data': {'i': '3'}},
                        {'metadata': {'name': 'cm-4',
                                      'namespace': 'ref-list',
                                      'uid': 'eda90410-c3a1-48ab-84a0-e55a344d5a6a',
                                      'resourceVersion': '6742',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'batch'}},
                         'data': {'i': '4'}},
                        {'metadata': {'name': 'kube-root-ca.crt',
                                      'namespace': 'ref-list',
                                      'uid': '3c758c64-cae0-4552-98ec-58e4608d71b7',
                                      'resourceVersion': '6736',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'annotations': {'kubernetes.io/description': '@T1@'}},
                         'data': {'ca.crt': '@T2@'}}]}),
    Case(name='04-list-rv-exact-old',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?resourceVersion=<<cm2_rv>>&resourceVersionMatch=Exact',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '6740'},
              'items': [{'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}},
                        {'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}},
                        {'metadata': {'name': 'kube-root-ca.crt',
                                      'namespace': 'ref-list',
                                      'uid': '3c758c64-cae0-4552-98ec-58e4608d71b7',
                                      'resourceVersion': '6736',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'annotations': {'kubernetes.io/description': '@T1@'}},
                         'data': {'ca.crt': '@T2@'}}]}),
    Case(name='04-list-rv-exact-future',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?resourceVersion=999999999&resourceVersionMatch=Exact',
         headers={'Accept': 'application/json'},
         body=None,
         status=500,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'etcdserver: mvcc: required revision is a future revision',
              'code': 500}),
    Case(name='04-list-rv-future',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan',
         headers={'Accept': 'application/json'},
         body=None,
         status=504,
         resp_headers={'Content-Type': ['application/json'], 'Retry-After': ['1']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Timeout: Too large resource version: 999999999, current: '
                         '6743',
              'reason': 'Timeout',
              'details': {'causes': [{'reason': 'ResourceVersionTooLarge',
                                      'message': 'Too large resource version'}],
                          'retryAfterSeconds': 1},
              'code': 504}),
    Case(name='04-list-rv-not-a-number',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?resourceVersion=abc',
         headers={'Accept': 'application/json'},
         body=None,
         status=500,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'resourceVersion: Invalid value: "abc": strconv.ParseUint: '
                         'parsing "abc": invalid syntax',
              'code': 500}),
    Case(name='04-list-rvmatch-invalid',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?resourceVersion=1&resourceVersionMatch=Bogus',
         headers={'Accept': 'application/json'},
         body=None,
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'ListOptions.meta.k8s.io "" is invalid: '
                         'resourceVersionMatch: Unsupported value: "Bogus": supported '
                         'values: "Exact", "NotOlderThan", ""',
              'reason': 'Invalid',
              'details': {'group': 'meta.k8s.io',
                          'kind': 'ListOptions',
                          'causes': [{'reason': 'FieldValueNotSupported',
                                      'message': 'Unsupported value: "Bogus": '
                                                 'supported values: "Exact", '
                                                 '"NotOlderThan", ""',
                                      'field': 'resourceVersionMatch'}]},
              'code': 422}),
    Case(name='04-list-rvmatch-without-rv',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?resourceVersionMatch=Exact',
         headers={'Accept': 'application/json'},
         body=None,
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'ListOptions.meta.k8s.io "" is invalid: '
                         'resourceVersionMatch: Forbidden: resourceVersionMatch is '
                         'forbidden unless resourceVersion is provided',
              'reason': 'Invalid',
              'details': {'group': 'meta.k8s.io',
                          'kind': 'ListOptions',
                          'causes': [{'reason': 'FieldValueForbidden',
                                      'message': 'Forbidden: resourceVersionMatch is '
                                                 'forbidden unless resourceVersion is '
                                                 'provided',
                                      'field': 'resourceVersionMatch'}]},
              'code': 422}),
    Case(name='02-cm-get-gzip-small',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps/cm-0',
         headers={'Accept': 'application/json', 'Accept-Encoding': 'gzip'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-0',
                           'namespace': 'ref-list',
                           'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                           'resourceVersion': '6738',
                           'creationTimestamp': '2026-11-22T06:46:17Z',
                           'labels': {'app': 'web', 'tier': 'frontend'}},
              'data': {'i': '0'}}),
    Case(name='02-cm-get-pretty',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps/cm-0?pretty=true',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMap',
              'apiVersion': 'v1',
              'metadata': {'name': 'cm-0',
                           'namespace': 'ref-list',
                           'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                           'resourceVersion': '6738',
                           'creationTimestamp': '2026-11-22T06:46:17Z',
                           'labels': {'app': 'web', 'tier': 'frontend'}},
              'data': {'i': '0'}},
         check='pretty'),
    Case(name='02-cm-get-trailing-slash',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps/',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'ConfigMapList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '40592'},
              'items': [{'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}},
                         'data': {'i': '0'}},
                        {'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}},
                         'data': {'i': '1'}},
                        {'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}},
                         'data': {'i': '2'}},
                        {'metadata': {'name': 'cm-3',
                                      'namespace': 'ref-list',
                                      'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                      'resourceVersion': '6741',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'cache'}},
                         'data': {'i': '3'}},
                        {'metadata': {'name': 'cm-4',
                                      'namespace': 'ref-list',
                                      'uid': 'eda90410-c3a1-48ab-84a0-e55a344d5a6a',
                                      'resourceVersion': '6742',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'batch'}},
                         'data': {'i': '4'}},
                        {'metadata': {'name': 'kube-root-ca.crt',
                                      'namespace': 'ref-list',
                                      'uid': '3c758c64-cae0-4552-98ec-58e4608d71b7',
                                      'resourceVersion': '6736',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'annotations': {'kubernetes.io/description': '@T1@'}},
                         'data': {'ca.crt': '@T2@'}}]}),
    Case(name='02-cm-get-subresource-missing',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps/cm-0/status',
         headers={'Accept': 'application/json'},
         body=None,
         status=404,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'the server could not find the requested resource',
              'reason': 'NotFound',
              'details': {},
              'code': 404}),
    Case(name='02-cm-get-method-head',
         method='HEAD',
         path='/api/v1/namespaces/ref-list/configmaps/cm-0',
         headers={'Accept': 'application/json'},
         body=None,
         status=405,
         resp_headers={'Content-Type': ['application/json']},
         kind='none',
         expect=None),
    Case(name='02-cm-get-method-options',
         method='OPTIONS',
         path='/api/v1/namespaces/ref-list/configmaps',
         headers={'Accept': 'application/json'},
         body=None,
         status=405,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'the server does not allow this method on the requested '
                         'resource',
              'reason': 'MethodNotAllowed',
              'details': {},
              'code': 405}),
    Setup(body={'apiVersion': 'v1',
              'kind': 'Namespace',
              'metadata': {'name': 'ref-watch'}}, label='namespace ref-watch', method='POST', path='/api/v1/namespaces', status=201),
    Setup(body='<<ROOT_CA>>', label='kube-root-ca.crt in ref-watch', method='POST', path='/api/v1/namespaces/ref-watch/configmaps', status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ServiceAccount',
              'metadata': {'name': 'default'}}, label='default serviceaccount in ref-watch', method='POST', path='/api/v1/namespaces/ref-watch/serviceaccounts', status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'existing', 'labels': {'app': 'w'}},
              'data': {'k': 'v'}}, label='existing', method='POST', path='/api/v1/namespaces/ref-watch/configmaps', save={'existing_rv': 'metadata.resourceVersion'}, status=201),
    Case(name='05-watch-no-rv',
         method='GET',
         path='/api/v1/namespaces/ref-watch/configmaps?watch=1&timeoutSeconds=2',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'existing',
                                       'namespace': 'ref-watch',
                                       'uid': 'ef6fa79e-3b5d-4d34-848b-002ba414168e',
                                       'resourceVersion': '6763',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'labels': {'app': 'w'}},
                          'data': {'k': 'v'}}},
              {'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'kube-root-ca.crt',
                                       'namespace': 'ref-watch',
                                       'uid': '35b685a0-8d7e-4bce-ab56-1eb8e9593f45',
                                       'resourceVersion': '6761',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'annotations': {'kubernetes.io/description': '@T1@'}},
                          'data': {'ca.crt': '@T2@'}}}]),
    Case(name='05-watch-rv0',
         method='GET',
         path='/api/v1/namespaces/ref-watch/configmaps?watch=1&resourceVersion=0&timeoutSeconds=2',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'existing',
                                       'namespace': 'ref-watch',
                                       'uid': 'ef6fa79e-3b5d-4d34-848b-002ba414168e',
                                       'resourceVersion': '6763',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'labels': {'app': 'w'}},
                          'data': {'k': 'v'}}},
              {'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'kube-root-ca.crt',
                                       'namespace': 'ref-watch',
                                       'uid': '35b685a0-8d7e-4bce-ab56-1eb8e9593f45',
                                       'resourceVersion': '6761',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'annotations': {'kubernetes.io/description': '@T1@'}},
                          'data': {'ca.crt': '@T2@'}}}]),
    Case(name='05-watch-label-selector',
         method='GET',
         path='/api/v1/namespaces/ref-watch/configmaps?watch=1&labelSelector=app%3Dw&resourceVersion=0&timeoutSeconds=2',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'existing',
                                       'namespace': 'ref-watch',
                                       'uid': 'ef6fa79e-3b5d-4d34-848b-002ba414168e',
                                       'resourceVersion': '6763',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'labels': {'app': 'w'}},
                          'data': {'k': 'v'}}}]),
    Case(name='05-watch-cluster-wide',
         method='GET',
         path='/api/v1/configmaps?watch=1&labelSelector=app%3Dw&resourceVersion=0&timeoutSeconds=2',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'existing',
                                       'namespace': 'ref-watch',
                                       'uid': 'ef6fa79e-3b5d-4d34-848b-002ba414168e',
                                       'resourceVersion': '6763',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'labels': {'app': 'w'}},
                          'data': {'k': 'v'}}}]),
    Case(name='05-watch-field-selector-single',
         method='GET',
         path='/api/v1/namespaces/ref-watch/configmaps?watch=1&fieldSelector=metadata.name%3Dexisting&timeoutSeconds=2',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'existing',
                                       'namespace': 'ref-watch',
                                       'uid': 'ef6fa79e-3b5d-4d34-848b-002ba414168e',
                                       'resourceVersion': '6763',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'labels': {'app': 'w'}},
                          'data': {'k': 'v'}}}]),
    Case(name='05-watch-single-object-path-legacy',
         method='GET',
         path='/api/v1/watch/namespaces/ref-watch/configmaps/existing?timeoutSeconds=2',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'existing',
                                       'namespace': 'ref-watch',
                                       'uid': 'ef6fa79e-3b5d-4d34-848b-002ba414168e',
                                       'resourceVersion': '6763',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'labels': {'app': 'w'}},
                          'data': {'k': 'v'}}}]),
    Case(name='05-watch-send-initial-events',
         method='GET',
         path='/api/v1/namespaces/ref-watch/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=3',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'existing',
                                       'namespace': 'ref-watch',
                                       'uid': 'ef6fa79e-3b5d-4d34-848b-002ba414168e',
                                       'resourceVersion': '6763',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'labels': {'app': 'w'}},
                          'data': {'k': 'v'}}},
              {'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'kube-root-ca.crt',
                                       'namespace': 'ref-watch',
                                       'uid': '35b685a0-8d7e-4bce-ab56-1eb8e9593f45',
                                       'resourceVersion': '6761',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'annotations': {'kubernetes.io/description': '@T1@'}},
                          'data': {'ca.crt': '@T2@'}}},
              {'type': 'BOOKMARK',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'resourceVersion': '6769',
                                       'creationTimestamp': None,
                                       'annotations': {'k8s.io/initial-events-end': 'true',
                                                       'kubernetes.io/initial-events-list-blueprint': 'eyJraW5kIjoiQ29uZmlnTWFwTGlzdCIsImFwaVZlcnNpb24iOiJ2MSIsIm1ldGFkYXRhIjp7fSwiaXRlbXMiOm51bGx9Cg=='}}}}]),
    Case(name='05-watch-send-initial-events-no-bookmarks',
         method='GET',
         path='/api/v1/namespaces/ref-watch/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=2',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'existing',
                                       'namespace': 'ref-watch',
                                       'uid': 'ef6fa79e-3b5d-4d34-848b-002ba414168e',
                                       'resourceVersion': '6763',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'labels': {'app': 'w'}},
                          'data': {'k': 'v'}}},
              {'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'kube-root-ca.crt',
                                       'namespace': 'ref-watch',
                                       'uid': '35b685a0-8d7e-4bce-ab56-1eb8e9593f45',
                                       'resourceVersion': '6761',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'annotations': {'kubernetes.io/description': '@T1@'}},
                          'data': {'ca.crt': '@T2@'}}}]),
    Case(name='05-watch-send-initial-events-rv',
         method='GET',
         path='/api/v1/namespaces/ref-watch/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=<<existing_rv>>&allowWatchBookmarks=true&timeoutSeconds=2',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'existing',
                                       'namespace': 'ref-watch',
                                       'uid': 'ef6fa79e-3b5d-4d34-848b-002ba414168e',
                                       'resourceVersion': '6763',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'labels': {'app': 'w'}},
                          'data': {'k': 'v'}}},
              {'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'kube-root-ca.crt',
                                       'namespace': 'ref-watch',
                                       'uid': '35b685a0-8d7e-4bce-ab56-1eb8e9593f45',
                                       'resourceVersion': '6761',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'annotations': {'kubernetes.io/description': '@T1@'}},
                          'data': {'ca.crt': '@T2@'}}},
              {'type': 'BOOKMARK',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'resourceVersion': '6769',
                                       'creationTimestamp': None,
                                       'annotations': {'k8s.io/initial-events-end': 'true',
                                                       'kubernetes.io/initial-events-list-blueprint': 'eyJraW5kIjoiQ29uZmlnTWFwTGlzdCIsImFwaVZlcnNpb24iOiJ2MSIsIm1ldGFkYXRhIjp7fSwiaXRlbXMiOm51bGx9Cg=='}}}}]),
    Case(name='05-watch-send-initial-events-no-rvmatch',
         method='GET',
         path='/api/v1/namespaces/ref-watch/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&timeoutSeconds=2',
         headers={'Accept': 'application/json'},
         body=None,
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'ListOptions.meta.k8s.io "" is invalid: '
                         'resourceVersionMatch: Forbidden: sendInitialEvents requires '
                         'setting resourceVersionMatch to NotOlderThan',
              'reason': 'Invalid',
              'details': {'group': 'meta.k8s.io',
                          'kind': 'ListOptions',
                          'causes': [{'reason': 'FieldValueForbidden',
                                      'message': 'Forbidden: sendInitialEvents '
                                                 'requires setting '
                                                 'resourceVersionMatch to '
                                                 'NotOlderThan',
                                      'field': 'resourceVersionMatch'}]},
              'code': 422}),
    Case(name='05-watch-unsupported-on-namespace-finalize',
         method='GET',
         path='/api/v1/namespaces/ref-watch/finalize?watch=1',
         headers={'Accept': 'application/json'},
         body=None,
         status=405,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'the server does not allow this method on the requested '
                         'resource',
              'reason': 'MethodNotAllowed',
              'details': {},
              'code': 405}),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'watched', 'labels': {'app': 'w'}},
              'data': {'step': '1'}}, label='watched', method='POST', path='/api/v1/namespaces/ref-watch/configmaps', status=201),
    Setup(body={'data': {'step': '2'}}, ctype='application/merge-patch+json', label='watched step 2', method='PATCH', path='/api/v1/namespaces/ref-watch/configmaps/watched', status=200),
    Setup(body=None, label='watched deleted', method='DELETE', path='/api/v1/namespaces/ref-watch/configmaps/watched', status=200),
    Case(name='05-watch-from-rv',
         method='GET',
         path='/api/v1/namespaces/ref-watch/configmaps?watch=1&resourceVersion=<<existing_rv>>&allowWatchBookmarks=true&timeoutSeconds=5',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'watched',
                                       'namespace': 'ref-watch',
                                       'uid': 'bdf5c499-e806-4708-9515-3fe5eac651cb',
                                       'resourceVersion': '6764',
                                       'creationTimestamp': '2026-11-22T06:46:48Z',
                                       'labels': {'app': 'w'}},
                          'data': {'step': '1'}}},
              {'type': 'MODIFIED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'watched',
                                       'namespace': 'ref-watch',
                                       'uid': 'bdf5c499-e806-4708-9515-3fe5eac651cb',
                                       'resourceVersion': '6765',
                                       'creationTimestamp': '2026-11-22T06:46:48Z',
                                       'labels': {'app': 'w'}},
                          'data': {'step': '2'}}},
              {'type': 'DELETED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'watched',
                                       'namespace': 'ref-watch',
                                       'uid': 'bdf5c499-e806-4708-9515-3fe5eac651cb',
                                       'resourceVersion': '6767',
                                       'creationTimestamp': '2026-11-22T06:46:48Z',
                                       'labels': {'app': 'w'}},
                          'data': {'step': '2'}}},
              {'type': 'BOOKMARK',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'resourceVersion': '6767',
                                       'creationTimestamp': None}}},
              {'type': 'BOOKMARK',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'resourceVersion': '6767',
                                       'creationTimestamp': None}}}]),
    Setup(body=None, label='rv before relabelling', method='GET', path='/api/v1/namespaces/ref-watch/configmaps', save={'relabel_rv': 'metadata.resourceVersion'}, status=200),
    Setup(body={'metadata': {'labels': {'app': 'x'}}}, ctype='application/merge-patch+json', label='existing leaves app=w', method='PATCH', path='/api/v1/namespaces/ref-watch/configmaps/existing', status=200),
    Setup(body={'metadata': {'labels': {'app': 'w'}}}, ctype='application/merge-patch+json', label='existing back in app=w', method='PATCH', path='/api/v1/namespaces/ref-watch/configmaps/existing', status=200),
    Case(name='05-watch-selector-leave-enter',
         method='GET',
         path='/api/v1/namespaces/ref-watch/configmaps?watch=1&labelSelector=app%3Dw&resourceVersion=<<relabel_rv>>&timeoutSeconds=3',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'DELETED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'existing',
                                       'namespace': 'ref-watch',
                                       'uid': 'ef6fa79e-3b5d-4d34-848b-002ba414168e',
                                       'resourceVersion': '6775',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'labels': {'app': 'w'}},
                          'data': {'k': 'v'}}},
              {'type': 'ADDED',
               'object': {'kind': 'ConfigMap',
                          'apiVersion': 'v1',
                          'metadata': {'name': 'existing',
                                       'namespace': 'ref-watch',
                                       'uid': 'ef6fa79e-3b5d-4d34-848b-002ba414168e',
                                       'resourceVersion': '6776',
                                       'creationTimestamp': '2026-11-22T06:46:46Z',
                                       'labels': {'app': 'w'}},
                          'data': {'k': 'v'}}}]),
    Case(name='05-watch-future-rv',
         method='GET',
         path='/api/v1/namespaces/ref-watch/configmaps?watch=1&resourceVersion=999999999&timeoutSeconds=10',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[]),
    Case(name='06-partialmetadata-configmap-single',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps/cm-0',
         headers={'Accept': 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'PartialObjectMetadata',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'name': 'cm-0',
                           'namespace': 'ref-list',
                           'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                           'resourceVersion': '6738',
                           'creationTimestamp': '2026-11-22T06:46:17Z',
                           'labels': {'app': 'web', 'tier': 'frontend'}}}),
    Case(name='06-partialmetadata-configmaps-list',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?labelSelector=app',
         headers={'Accept': 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'PartialObjectMetadataList',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'resourceVersion': '12991'},
              'items': [{'kind': 'PartialObjectMetadata',
                         'apiVersion': 'meta.k8s.io/v1',
                         'metadata': {'name': 'cm-0',
                                      'namespace': 'ref-list',
                                      'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                      'resourceVersion': '6738',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'frontend'}}},
                        {'kind': 'PartialObjectMetadata',
                         'apiVersion': 'meta.k8s.io/v1',
                         'metadata': {'name': 'cm-1',
                                      'namespace': 'ref-list',
                                      'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                      'resourceVersion': '6739',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'web', 'tier': 'backend'}}},
                        {'kind': 'PartialObjectMetadata',
                         'apiVersion': 'meta.k8s.io/v1',
                         'metadata': {'name': 'cm-2',
                                      'namespace': 'ref-list',
                                      'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                      'resourceVersion': '6740',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'backend'}}},
                        {'kind': 'PartialObjectMetadata',
                         'apiVersion': 'meta.k8s.io/v1',
                         'metadata': {'name': 'cm-3',
                                      'namespace': 'ref-list',
                                      'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                      'resourceVersion': '6741',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'db', 'tier': 'cache'}}},
                        {'kind': 'PartialObjectMetadata',
                         'apiVersion': 'meta.k8s.io/v1',
                         'metadata': {'name': 'cm-4',
                                      'namespace': 'ref-list',
                                      'uid': 'eda90410-c3a1-48ab-84a0-e55a344d5a6a',
                                      'resourceVersion': '6742',
                                      'creationTimestamp': '2026-11-22T06:46:17Z',
                                      'labels': {'app': 'batch'}}}]}),
    Case(name='06-partialmetadata-list-as-single',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps',
         headers={'Accept': 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io'},
         body=None,
         status=406,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'you requested PartialObjectMetadata, but the requested '
                         'object is a list (*core.ConfigMapList)',
              'reason': 'NotAcceptable',
              'code': 406}),
    Case(name='06-partialmetadata-watch',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?watch=1&labelSelector=app%3Dweb&timeoutSeconds=2',
         headers={'Accept': 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ADDED',
               'object': {'kind': 'PartialObjectMetadata',
                          'apiVersion': 'meta.k8s.io/v1',
                          'metadata': {'name': 'cm-0',
                                       'namespace': 'ref-list',
                                       'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                       'resourceVersion': '6738',
                                       'creationTimestamp': '2026-11-22T06:46:17Z',
                                       'labels': {'app': 'web', 'tier': 'frontend'}}}},
              {'type': 'ADDED',
               'object': {'kind': 'PartialObjectMetadata',
                          'apiVersion': 'meta.k8s.io/v1',
                          'metadata': {'name': 'cm-1',
                                       'namespace': 'ref-list',
                                       'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                       'resourceVersion': '6739',
                                       'creationTimestamp': '2026-11-22T06:46:17Z',
                                       'labels': {'app': 'web', 'tier': 'backend'}}}}]),
    Case(name='06-table-configmap-single',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps/cm-0',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Table',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'resourceVersion': '6738'},
              'columnDefinitions': [{'name': 'Name',
                                     'type': 'string',
                                     'format': 'name',
                                     'description': '@T3@',
                                     'priority': 0},
                                    {'name': 'Data',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T4@',
                                     'priority': 0},
                                    {'name': 'Age',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T5@',
                                     'priority': 0}],
              'rows': [{'cells': ['cm-0', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'cm-0',
                                                'namespace': 'ref-list',
                                                'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                                'resourceVersion': '6738',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'web',
                                                           'tier': 'frontend'}}}}]}),
    Case(name='06-table-configmaps-list',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?labelSelector=app',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Table',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'resourceVersion': '12991'},
              'columnDefinitions': [{'name': 'Name',
                                     'type': 'string',
                                     'format': 'name',
                                     'description': '@T3@',
                                     'priority': 0},
                                    {'name': 'Data',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T4@',
                                     'priority': 0},
                                    {'name': 'Age',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T5@',
                                     'priority': 0}],
              'rows': [{'cells': ['cm-0', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'cm-0',
                                                'namespace': 'ref-list',
                                                'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                                'resourceVersion': '6738',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'web',
                                                           'tier': 'frontend'}}}},
                       {'cells': ['cm-1', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'cm-1',
                                                'namespace': 'ref-list',
                                                'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                                'resourceVersion': '6739',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'web',
                                                           'tier': 'backend'}}}},
                       {'cells': ['cm-2', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'cm-2',
                                                'namespace': 'ref-list',
                                                'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                                'resourceVersion': '6740',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'db',
                                                           'tier': 'backend'}}}},
                       {'cells': ['cm-3', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'cm-3',
                                                'namespace': 'ref-list',
                                                'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                                'resourceVersion': '6741',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'db',
                                                           'tier': 'cache'}}}},
                       {'cells': ['cm-4', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'cm-4',
                                                'namespace': 'ref-list',
                                                'uid': 'eda90410-c3a1-48ab-84a0-e55a344d5a6a',
                                                'resourceVersion': '6742',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'batch'}}}}]}),
    Case(name='06-table-configmaps-include-invalid',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?includeObject=Bogus',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io'},
         body=None,
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Unable to convert to Table as requested: includeObject: '
                         'Invalid value: "Bogus": must be \'Metadata\', \'Object\', '
                         "'None', or empty",
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='06-table-configmaps-include-none',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?labelSelector=app%3Dweb&includeObject=None',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Table',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'resourceVersion': '12991'},
              'columnDefinitions': [{'name': 'Name',
                                     'type': 'string',
                                     'format': 'name',
                                     'description': '@T3@',
                                     'priority': 0},
                                    {'name': 'Data',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T4@',
                                     'priority': 0},
                                    {'name': 'Age',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T5@',
                                     'priority': 0}],
              'rows': [{'cells': ['cm-0', 1, '2m13s'], 'object': None},
                       {'cells': ['cm-1', 1, '2m13s'], 'object': None}]}),
    Case(name='06-table-configmaps-include-object',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?labelSelector=app%3Dweb&includeObject=Object',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Table',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'resourceVersion': '12991'},
              'columnDefinitions': [{'name': 'Name',
                                     'type': 'string',
                                     'format': 'name',
                                     'description': '@T3@',
                                     'priority': 0},
                                    {'name': 'Data',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T4@',
                                     'priority': 0},
                                    {'name': 'Age',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T5@',
                                     'priority': 0}],
              'rows': [{'cells': ['cm-0', 1, '2m13s'],
                        'object': {'kind': 'ConfigMap',
                                   'apiVersion': 'v1',
                                   'metadata': {'name': 'cm-0',
                                                'namespace': 'ref-list',
                                                'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                                'resourceVersion': '6738',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'web',
                                                           'tier': 'frontend'}},
                                   'data': {'i': '0'}}},
                       {'cells': ['cm-1', 1, '2m13s'],
                        'object': {'kind': 'ConfigMap',
                                   'apiVersion': 'v1',
                                   'metadata': {'name': 'cm-1',
                                                'namespace': 'ref-list',
                                                'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                                'resourceVersion': '6739',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'web',
                                                           'tier': 'backend'}},
                                   'data': {'i': '1'}}}]}),
    Case(name='06-table-configmaps-kubectl-accept',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?limit=500',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Table',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'resourceVersion': '12991'},
              'columnDefinitions': [{'name': 'Name',
                                     'type': 'string',
                                     'format': 'name',
                                     'description': '@T3@',
                                     'priority': 0},
                                    {'name': 'Data',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T4@',
                                     'priority': 0},
                                    {'name': 'Age',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T5@',
                                     'priority': 0}],
              'rows': [{'cells': ['cm-0', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'cm-0',
                                                'namespace': 'ref-list',
                                                'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                                'resourceVersion': '6738',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'web',
                                                           'tier': 'frontend'}}}},
                       {'cells': ['cm-1', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'cm-1',
                                                'namespace': 'ref-list',
                                                'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                                'resourceVersion': '6739',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'web',
                                                           'tier': 'backend'}}}},
                       {'cells': ['cm-2', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'cm-2',
                                                'namespace': 'ref-list',
                                                'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                                'resourceVersion': '6740',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'db',
                                                           'tier': 'backend'}}}},
                       {'cells': ['cm-3', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'cm-3',
                                                'namespace': 'ref-list',
                                                'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                                'resourceVersion': '6741',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'db',
                                                           'tier': 'cache'}}}},
                       {'cells': ['cm-4', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'cm-4',
                                                'namespace': 'ref-list',
                                                'uid': 'eda90410-c3a1-48ab-84a0-e55a344d5a6a',
                                                'resourceVersion': '6742',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'batch'}}}},
                       {'cells': ['kube-root-ca.crt', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'kube-root-ca.crt',
                                                'namespace': 'ref-list',
                                                'uid': '3c758c64-cae0-4552-98ec-58e4608d71b7',
                                                'resourceVersion': '6736',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'annotations': {'kubernetes.io/description': '@T1@'}}}}]}),
    Case(name='06-table-configmaps-v1beta1',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?labelSelector=app%3Ddb',
         headers={'Accept': 'application/json;as=Table;v=v1beta1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Table',
              'apiVersion': 'meta.k8s.io/v1beta1',
              'metadata': {'resourceVersion': '12991'},
              'columnDefinitions': [{'name': 'Name',
                                     'type': 'string',
                                     'format': 'name',
                                     'description': '@T3@',
                                     'priority': 0},
                                    {'name': 'Data',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T4@',
                                     'priority': 0},
                                    {'name': 'Age',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T5@',
                                     'priority': 0}],
              'rows': [{'cells': ['cm-2', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1beta1',
                                   'metadata': {'name': 'cm-2',
                                                'namespace': 'ref-list',
                                                'uid': '4150de00-dfc3-4cb8-9a3f-d476178b796a',
                                                'resourceVersion': '6740',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'db',
                                                           'tier': 'backend'}}}},
                       {'cells': ['cm-3', 1, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1beta1',
                                   'metadata': {'name': 'cm-3',
                                                'namespace': 'ref-list',
                                                'uid': 'f59fce7f-b96a-4c7f-89f2-7034d1cd3b36',
                                                'resourceVersion': '6741',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'app': 'db',
                                                           'tier': 'cache'}}}}]}),
    Case(name='06-table-unknown-as',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps',
         headers={'Accept': 'application/json;as=Bogus;v=v1;g=meta.k8s.io'},
         body=None,
         status=406,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'only the following media types are accepted: '
                         'application/json, application/yaml, '
                         'application/vnd.kubernetes.protobuf',
              'reason': 'NotAcceptable',
              'code': 406}),
    Case(name='06-table-namespace-single',
         method='GET',
         path='/api/v1/namespaces/ref-list',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Table',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'resourceVersion': '6735'},
              'columnDefinitions': [{'name': 'Name',
                                     'type': 'string',
                                     'format': 'name',
                                     'description': '@T3@',
                                     'priority': 0},
                                    {'name': 'Status',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'The status of the namespace',
                                     'priority': 0},
                                    {'name': 'Age',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T5@',
                                     'priority': 0}],
              'rows': [{'cells': ['ref-list', 'Active', '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'ref-list',
                                                'uid': 'a3522835-1ede-4f77-8f45-a409a0380c40',
                                                'resourceVersion': '6735',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'kubernetes.io/metadata.name': 'ref-list'}}}}]}),
    Case(name='06-table-namespaces-list',
         method='GET',
         path='/api/v1/namespaces',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Table',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'resourceVersion': '12991'},
              'columnDefinitions': [{'name': 'Name',
                                     'type': 'string',
                                     'format': 'name',
                                     'description': 'Name must be unique within a '
                                                    'namespac...',
                                     'priority': 0},
                                    {'name': 'Status',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'The status of the namespace',
                                     'priority': 0},
                                    {'name': 'Age',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'CreationTimestamp is a timestamp '
                                                    'repr...',
                                     'priority': 0}],
              'rows': [{'cells': ['default', 'Active', '32m'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'default',
                                                'uid': 'f13097c2-e7ab-4454-899d-2acbcb825c16',
                                                'resourceVersion': '4310',
                                                'creationTimestamp': '2026-11-22T06:15:52Z',
                                                'labels': {'kubernetes.io/metadata.name': 'default'}}}},
                       {'cells': ['kube-public', 'Active', '32m'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'kube-public',
                                                'uid': 'b45d02ff-b7a6-4c67-854a-e053ec2457c5',
                                                'resourceVersion': '4289',
                                                'creationTimestamp': '2026-11-22T06:15:52Z',
                                                'labels': {'kubernetes.io/metadata.name': 'kube-public'}}}},
                       {'cells': ['kube-system', 'Active', '32m'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'kube-system',
                                                'uid': '43af8e7d-5e6a-4984-91ef-093f930f8ae1',
                                                'resourceVersion': '4267',
                                                'creationTimestamp': '2026-11-22T06:15:52Z',
                                                'labels': {'kubernetes.io/metadata.name': 'kube-system'}}}},
                       {'cells': ['ref-crd', 'Active', '42s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'ref-crd',
                                                'uid': 'a35efdbf-27de-44d9-a02c-68ccbe8d67d6',
                                                'resourceVersion': '7288',
                                                'creationTimestamp': '2026-11-22T06:47:48Z',
                                                'labels': {'kubernetes.io/metadata.name': 'ref-crd'}}}},
                       {'cells': ['ref-crud', 'Active', '2m44s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'ref-crud',
                                                'uid': 'ee94a592-af1f-45aa-a138-d387a23caa4d',
                                                'resourceVersion': '6681',
                                                'creationTimestamp': '2026-11-22T06:45:46Z',
                                                'labels': {'kubernetes.io/metadata.name': 'ref-crud'}}}},
                       {'cells': ['ref-list', 'Active', '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'ref-list',
                                                'uid': 'a3522835-1ede-4f77-8f45-a409a0380c40',
                                                'resourceVersion': '6735',
                                                'creationTimestamp': '2026-11-22T06:46:17Z',
                                                'labels': {'kubernetes.io/metadata.name': 'ref-list'}}}},
                       {'cells': ['ref-secrets', 'Active', '2m27s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'ref-secrets',
                                                'uid': '647ebc63-b367-4c65-b094-69578d901bf5',
                                                'resourceVersion': '6724',
                                                'creationTimestamp': '2026-11-22T06:46:03Z',
                                                'labels': {'kubernetes.io/metadata.name': 'ref-secrets'}}}},
                       {'cells': ['ref-watch', 'Active', '104s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'ref-watch',
                                                'uid': '8161561a-3329-4324-9d4a-7ddc8a2bf6ce',
                                                'resourceVersion': '6760',
                                                'creationTimestamp': '2026-11-22T06:46:46Z',
                                                'labels': {'kubernetes.io/metadata.name': 'ref-watch'}}}},
                       {'cells': ['wardle', 'Active', '30m'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'wardle',
                                                'uid': '7e56fb54-1a7d-4933-bdb7-8f553baab99b',
                                                'resourceVersion': '4559',
                                                'creationTimestamp': '2026-11-22T06:17:56Z',
                                                'labels': {'kubernetes.io/metadata.name': 'wardle'},
                                                'annotations': {'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"v1","kind":"Namespace"...'}}}}]},
         shape=True,
         drop=['rows']),
    Case(name='06-table-secret-single',
         method='GET',
         path='/api/v1/namespaces/ref-secrets/secrets/s1',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Table',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'resourceVersion': '6727'},
              'columnDefinitions': [{'name': 'Name',
                                     'type': 'string',
                                     'format': 'name',
                                     'description': '@T3@',
                                     'priority': 0},
                                    {'name': 'Type',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T6@',
                                     'priority': 0},
                                    {'name': 'Data',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T7@',
                                     'priority': 0},
                                    {'name': 'Age',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T5@',
                                     'priority': 0}],
              'rows': [{'cells': ['s1', 'Opaque', 3, '11m'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 's1',
                                                'namespace': 'ref-secrets',
                                                'uid': 'a394f75d-9b45-40b2-aaa5-da91dbb08351',
                                                'resourceVersion': '6727',
                                                'creationTimestamp': '2026-11-22T06:46:03Z'}}}]}),
    Case(name='06-table-secrets-list',
         method='GET',
         path='/api/v1/namespaces/ref-secrets/secrets',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Table',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'resourceVersion': '12991'},
              'columnDefinitions': [{'name': 'Name',
                                     'type': 'string',
                                     'format': 'name',
                                     'description': '@T3@',
                                     'priority': 0},
                                    {'name': 'Type',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T6@',
                                     'priority': 0},
                                    {'name': 'Data',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T7@',
                                     'priority': 0},
                                    {'name': 'Age',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T5@',
                                     'priority': 0}],
              'rows': [{'cells': ['s-basic', 'kubernetes.io/basic-auth', 2, '2m26s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 's-basic',
                                                'namespace': 'ref-secrets',
                                                'uid': '21e8a42d-ff77-4efc-93ba-6375367b874c',
                                                'resourceVersion': '6731',
                                                'creationTimestamp': '2026-11-22T06:46:04Z'}}},
                       {'cells': ['s-immutable', 'Opaque', 1, '2m26s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 's-immutable',
                                                'namespace': 'ref-secrets',
                                                'uid': '446e357e-216c-4278-a501-cd0f7853f387',
                                                'resourceVersion': '6730',
                                                'creationTimestamp': '2026-11-22T06:46:04Z'}}},
                       {'cells': ['s-notype', 'Opaque', 1, '2m27s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 's-notype',
                                                'namespace': 'ref-secrets',
                                                'uid': 'e0f63716-2afe-45d5-a78b-c0473d72f616',
                                                'resourceVersion': '6728',
                                                'creationTimestamp': '2026-11-22T06:46:03Z'}}},
                       {'cells': ['s1', 'Opaque', 3, '2m27s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 's1',
                                                'namespace': 'ref-secrets',
                                                'uid': 'a394f75d-9b45-40b2-aaa5-da91dbb08351',
                                                'resourceVersion': '6727',
                                                'creationTimestamp': '2026-11-22T06:46:03Z'}}}]}),
    Case(name='06-table-serviceaccounts-list',
         method='GET',
         path='/api/v1/namespaces/ref-list/serviceaccounts',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Table',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'resourceVersion': '12991'},
              'columnDefinitions': [{'name': 'Name',
                                     'type': 'string',
                                     'format': 'name',
                                     'description': '@T3@',
                                     'priority': 0},
                                    {'name': 'Secrets',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'Secrets is a list of the secrets '
                                                    'in the same namespace that pods '
                                                    'running using this '
                                                    'ServiceAccount are allowed to '
                                                    'use. Pods are only limited to '
                                                    'this list if this service '
                                                    'account has a '
                                                    '"kubernetes.io/enforce-mountable-secrets" '
                                                    'annotation set to "true". The '
                                                    '"kubernetes.io/enforce-mountable-secrets" '
                                                    'annotation is deprecated since '
                                                    'v1.32. Prefer separate '
                                                    'namespaces to isolate access to '
                                                    'mounted secrets. This field '
                                                    'should not be used to find '
                                                    'auto-generated service account '
                                                    'token secrets for use outside of '
                                                    'pods. Instead, tokens can be '
                                                    'requested directly using the '
                                                    'TokenRequest API, or service '
                                                    'account token secrets can be '
                                                    'manually created. More info: '
                                                    'https://kubernetes.io/docs/concepts/configuration/secret',
                                     'priority': 0},
                                    {'name': 'Age',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T5@',
                                     'priority': 0}],
              'rows': [{'cells': ['default', 0, '2m13s'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'default',
                                                'namespace': 'ref-list',
                                                'uid': '0249ab52-39a5-4314-802c-ebe1061172a7',
                                                'resourceVersion': '6737',
                                                'creationTimestamp': '2026-11-22T06:46:17Z'}}}]}),
    Case(name='06-table-events-list',
         method='GET',
         path='/api/v1/namespaces/kube-system/events?limit=2',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Table',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'resourceVersion': '12991'},
              'columnDefinitions': [{'name': 'Last Seen',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'The time at which the most '
                                                    'recent occurrence of this event '
                                                    'was recorded.',
                                     'priority': 0},
                                    {'name': 'Type',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'Type of this event (Normal, '
                                                    'Warning), new types could be '
                                                    'added in the future',
                                     'priority': 0},
                                    {'name': 'Reason',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T8@',
                                     'priority': 0},
                                    {'name': 'Object',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'The object that this event is '
                                                    'about.',
                                     'priority': 0},
                                    {'name': 'Subobject',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T9@',
                                     'priority': 1},
                                    {'name': 'Source',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'The component reporting this '
                                                    'event. Should be a short machine '
                                                    'understandable string.',
                                     'priority': 1},
                                    {'name': 'Message',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'A human-readable description of '
                                                    'the status of this operation.',
                                     'priority': 0},
                                    {'name': 'First Seen',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'The time at which the event was '
                                                    'first recorded. (Time of server '
                                                    'receipt is in TypeMeta.)',
                                     'priority': 1},
                                    {'name': 'Count',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'The number of times this event '
                                                    'has occurred.',
                                     'priority': 1},
                                    {'name': 'Name',
                                     'type': 'string',
                                     'format': 'name',
                                     'description': '@T3@',
                                     'priority': 1}],
              'rows': []}),
    Case(name='06-table-watch-initial',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?watch=1&labelSelector=app%3Dweb&timeoutSeconds=2',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ADDED',
               'object': {'kind': 'Table',
                          'apiVersion': 'meta.k8s.io/v1',
                          'metadata': {'resourceVersion': '6738'},
                          'columnDefinitions': [{'name': 'Name',
                                                 'type': 'string',
                                                 'format': 'name',
                                                 'description': '@T3@',
                                                 'priority': 0},
                                                {'name': 'Data',
                                                 'type': 'string',
                                                 'format': '',
                                                 'description': '@T4@',
                                                 'priority': 0},
                                                {'name': 'Age',
                                                 'type': 'string',
                                                 'format': '',
                                                 'description': '@T5@',
                                                 'priority': 0}],
                          'rows': [{'cells': ['cm-0', 1, '2m16s'],
                                    'object': {'kind': 'PartialObjectMetadata',
                                               'apiVersion': 'meta.k8s.io/v1',
                                               'metadata': {'name': 'cm-0',
                                                            'namespace': 'ref-list',
                                                            'uid': 'c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c',
                                                            'resourceVersion': '6738',
                                                            'creationTimestamp': '2026-11-22T06:46:17Z',
                                                            'labels': {'app': 'web',
                                                                       'tier': 'frontend'}}}}]}},
              {'type': 'ADDED',
               'object': {'kind': 'Table',
                          'apiVersion': 'meta.k8s.io/v1',
                          'metadata': {'resourceVersion': '6739'},
                          'columnDefinitions': None,
                          'rows': [{'cells': ['cm-1', 1, '2m16s'],
                                    'object': {'kind': 'PartialObjectMetadata',
                                               'apiVersion': 'meta.k8s.io/v1',
                                               'metadata': {'name': 'cm-1',
                                                            'namespace': 'ref-list',
                                                            'uid': '834ed666-8c22-4d42-ae57-fb828268750f',
                                                            'resourceVersion': '6739',
                                                            'creationTimestamp': '2026-11-22T06:46:17Z',
                                                            'labels': {'app': 'web',
                                                                       'tier': 'backend'}}}}]}}]),
    Setup(body=None, label='rv before cm-tw', method='GET', path='/api/v1/namespaces/ref-list/configmaps', save={'tw_rv': 'metadata.resourceVersion'}, status=200),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ConfigMap',
              'metadata': {'name': 'cm-tw', 'labels': {'app': 'tw'}},
              'data': {'k': 'v'}}, label='cm-tw', method='POST', path='/api/v1/namespaces/ref-list/configmaps', status=201),
    Setup(body=None, label='cm-tw deleted', method='DELETE', path='/api/v1/namespaces/ref-list/configmaps/cm-tw', status=200),
    Case(name='06-table-watch',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?watch=1&resourceVersion=<<tw_rv>>&timeoutSeconds=3',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ADDED',
               'object': {'kind': 'Table',
                          'apiVersion': 'meta.k8s.io/v1',
                          'metadata': {'resourceVersion': '12992'},
                          'columnDefinitions': [{'name': 'Name',
                                                 'type': 'string',
                                                 'format': 'name',
                                                 'description': '@T3@',
                                                 'priority': 0},
                                                {'name': 'Data',
                                                 'type': 'string',
                                                 'format': '',
                                                 'description': '@T4@',
                                                 'priority': 0},
                                                {'name': 'Age',
                                                 'type': 'string',
                                                 'format': '',
                                                 'description': '@T5@',
                                                 'priority': 0}],
                          'rows': [{'cells': ['cm-tw', 1, '0s'],
                                    'object': {'kind': 'PartialObjectMetadata',
                                               'apiVersion': 'meta.k8s.io/v1',
                                               'metadata': {'name': 'cm-tw',
                                                            'namespace': 'ref-list',
                                                            'uid': '9576bb9e-36e0-4fc4-aeda-eb2350f72e58',
                                                            'resourceVersion': '12992',
                                                            'creationTimestamp': '2026-11-22T06:48:31Z',
                                                            'labels': {'app': 'tw'}}}}]}},
              {'type': 'DELETED',
               'object': {'kind': 'Table',
                          'apiVersion': 'meta.k8s.io/v1',
                          'metadata': {'resourceVersion': '12993'},
                          'columnDefinitions': None,
                          'rows': [{'cells': ['cm-tw', 1, '0s'],
                                    'object': {'kind': 'PartialObjectMetadata',
                                               'apiVersion': 'meta.k8s.io/v1',
                                               'metadata': {'name': 'cm-tw',
                                                            'namespace': 'ref-list',
                                                            'uid': '9576bb9e-36e0-4fc4-aeda-eb2350f72e58',
                                                            'resourceVersion': '12993',
                                                            'creationTimestamp': '2026-11-22T06:48:31Z',
                                                            'labels': {'app': 'tw'}}}}]}}]),
    Case(name='07-ns-create',
         method='POST',
         path='/api/v1/namespaces',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ref-ns-term"},"spec":{"finalizers":["example.com/hold"]}}',
         status=201,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Namespace',
              'apiVersion': 'v1',
              'metadata': {'name': 'ref-ns-term',
                           'uid': '3c01d078-acdd-4477-91e9-41571cdcd521',
                           'resourceVersion': '13006',
                           'creationTimestamp': '2026-11-22T06:49:14Z',
                           'labels': {'kubernetes.io/metadata.name': 'ref-ns-term'}},
              'spec': {'finalizers': ['example.com/hold', 'kubernetes']},
              'status': {'phase': 'Active'}},
         save={'nsterm_uid': 'metadata.uid'}),
    Case(name='07-ns-get',
         method='GET',
         path='/api/v1/namespaces/ref-ns-term',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Namespace',
              'apiVersion': 'v1',
              'metadata': {'name': 'ref-ns-term',
                           'uid': '3c01d078-acdd-4477-91e9-41571cdcd521',
                           'resourceVersion': '13006',
                           'creationTimestamp': '2026-11-22T06:49:14Z',
                           'labels': {'kubernetes.io/metadata.name': 'ref-ns-term'}},
              'spec': {'finalizers': ['example.com/hold', 'kubernetes']},
              'status': {'phase': 'Active'}}),
    Case(name='07-ns-create-duplicate',
         method='POST',
         path='/api/v1/namespaces',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ref-ns-term"}}',
         status=409,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'namespaces "ref-ns-term" already exists',
              'reason': 'AlreadyExists',
              'details': {'name': 'ref-ns-term', 'kind': 'namespaces'},
              'code': 409}),
    Case(name='07-ns-create-invalid-name',
         method='POST',
         path='/api/v1/namespaces',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"Ref.Bad"}}',
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Namespace "Ref.Bad" is invalid: metadata.name: Invalid '
                         'value: "Ref.Bad": a lowercase RFC 1123 label must consist '
                         "of lower case alphanumeric characters or '-', and must "
                         'start and end with an alphanumeric character (e.g. '
                         "'my-name',  or '123-abc', regex used for validation is "
                         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
              'reason': 'Invalid',
              'details': {'name': 'Ref.Bad',
                          'kind': 'Namespace',
                          'causes': [{'reason': 'FieldValueInvalid',
                                      'message': 'Invalid value: "Ref.Bad": a '
                                                 'lowercase RFC 1123 label must '
                                                 'consist of lower case alphanumeric '
                                                 "characters or '-', and must start "
                                                 'and end with an alphanumeric '
                                                 "character (e.g. 'my-name',  or "
                                                 "'123-abc', regex used for "
                                                 'validation is '
                                                 "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                                      'field': 'metadata.name'}]},
              'code': 422}),
    Case(name='07-ns-delete',
         method='DELETE',
         path='/api/v1/namespaces/ref-ns-term',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Namespace',
              'apiVersion': 'v1',
              'metadata': {'name': 'ref-ns-term',
                           'uid': '3c01d078-acdd-4477-91e9-41571cdcd521',
                           'resourceVersion': '13010',
                           'creationTimestamp': '2026-11-22T06:49:14Z',
                           'deletionTimestamp': '2026-11-22T06:49:15Z',
                           'labels': {'kubernetes.io/metadata.name': 'ref-ns-term'}},
              'spec': {'finalizers': ['example.com/hold', 'kubernetes']},
              'status': {'phase': 'Terminating'}}),
    Case(name='07-ns-delete-again',
         method='DELETE',
         path='/api/v1/namespaces/ref-ns-term',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Namespace',
              'apiVersion': 'v1',
              'metadata': {'name': 'ref-ns-term',
                           'uid': '3c01d078-acdd-4477-91e9-41571cdcd521',
                           'resourceVersion': '13010',
                           'creationTimestamp': '2026-11-22T06:49:14Z',
                           'deletionTimestamp': '2026-11-22T06:49:15Z',
                           'labels': {'kubernetes.io/metadata.name': 'ref-ns-term'}},
              'spec': {'finalizers': ['example.com/hold', 'kubernetes']},
              'status': {'phase': 'Terminating'}}),
    Case(name='07-ns-create-object-in-terminating',
         method='POST',
         path='/api/v1/namespaces/ref-ns-term/configmaps',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"late"},"data":{"k":"v"}}',
         status=403,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'configmaps "late" is forbidden: unable to create new '
                         'content in namespace ref-ns-term because it is being '
                         'terminated',
              'reason': 'Forbidden',
              'details': {'name': 'late',
                          'kind': 'configmaps',
                          'causes': [{'reason': 'NamespaceTerminating',
                                      'message': 'namespace ref-ns-term is being '
                                                 'terminated',
                                      'field': 'metadata.namespace'}]},
              'code': 403}),
    Case(name='07-ns-update-spec-finalizers-ignored',
         method='PUT',
         path='/api/v1/namespaces/ref-ns-term',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ref-ns-term"},"spec":{"finalizers":[]}}',
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Namespace',
              'apiVersion': 'v1',
              'metadata': {'name': 'ref-ns-term',
                           'uid': '3c01d078-acdd-4477-91e9-41571cdcd521',
                           'resourceVersion': '13018',
                           'creationTimestamp': '2026-11-22T06:49:14Z',
                           'deletionTimestamp': '2026-11-22T06:49:15Z',
                           'labels': {'kubernetes.io/metadata.name': 'ref-ns-term'}},
              'spec': {'finalizers': ['example.com/hold', 'kubernetes']},
              'status': {'phase': 'Terminating'}}),
    Case(name='07-ns-finalize-invalid',
         method='PUT',
         path='/api/v1/namespaces/ref-ns-term/finalize',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body=('{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ref-ns-term"},"spec":{"finalizers":["not '
              'a valid name!"]}}'),
         status=422,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Namespace "ref-ns-term" is invalid: [spec.finalizers[0]: '
                         'Invalid value: "not a valid name!": name part must consist '
                         "of alphanumeric characters, '-', '_' or '.', and must start "
                         "and end with an alphanumeric character (e.g. 'MyName',  or "
                         "'my.name',  or '123-abc', regex used for validation is "
                         "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), "
                         'spec.finalizers[0]: Invalid value: "not a valid name!": '
                         'name is neither a standard finalizer name nor is it fully '
                         'qualified]',
              'reason': 'Invalid',
              'details': {'name': 'ref-ns-term',
                          'kind': 'Namespace',
                          'causes': [{'reason': 'FieldValueInvalid',
                                      'message': 'Invalid value: "not a valid name!": '
                                                 'name part must consist of '
                                                 "alphanumeric characters, '-', '_' "
                                                 "or '.', and must start and end with "
                                                 'an alphanumeric character (e.g. '
                                                 "'MyName',  or 'my.name',  or "
                                                 "'123-abc', regex used for "
                                                 'validation is '
                                                 "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                                      'field': 'spec.finalizers[0]'},
                                     {'reason': 'FieldValueInvalid',
                                      'message': 'Invalid value: "not a valid name!": '
                                                 'name is neither a standard '
                                                 'finalizer name nor is it fully '
                                                 'qualified',
                                      'field': 'spec.finalizers[0]'}]},
              'code': 422}),
    Setup(body=None, label='ref-ns-term now', method='GET', path='/api/v1/namespaces/ref-ns-term', save={'nsterm_rv': 'metadata.resourceVersion',
              'nsterm_created': 'metadata.creationTimestamp',
              'nsterm_deleted': 'metadata.deletionTimestamp'}, status=200),
    Case(name='07-ns-finalize',
         method='PUT',
         path='/api/v1/namespaces/ref-ns-term/finalize',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body=('{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"ref-ns-term","uid":"<<nsterm_uid>>","resourceVersion":"<<nsterm_rv>>","creationTimestamp":"<<nsterm_created>>","deletionTimestamp":"<<nsterm_deleted>>","labels":{"kubernetes.io/metadata.name":"ref-ns-term"}},"spec":{"finalizers":[]},"status":{"phase":"Terminating","conditions":[{"type":"NamespaceDeletionDiscoveryFailure","status":"False","lastTransitionTime":"2026-11-22T06:49:20Z","reason":"ResourcesDiscovered","message":"All '
              'resources successfully '
              'discovered"},{"type":"NamespaceDeletionGroupVersionParsingFailure","status":"False","lastTransitionTime":"2026-11-22T06:49:20Z","reason":"ParsedGroupVersions","message":"All '
              'legacy kube types successfully '
              'parsed"},{"type":"NamespaceDeletionContentFailure","status":"False","lastTransitionTime":"2026-11-22T06:49:20Z","reason":"ContentDeleted","message":"All '
              'content successfully deleted, may be waiting on '
              'finalization"},{"type":"NamespaceContentRemaining","status":"False","lastTransitionTime":"2026-11-22T06:49:25Z","reason":"ContentRemoved","message":"All '
              'content successfully '
              'removed"},{"type":"NamespaceFinalizersRemaining","status":"False","lastTransitionTime":"2026-11-22T06:49:25Z","reason":"ContentHasNoFinalizers","message":"All '
              'content-preserving finalizers finished"}]}}'),
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Namespace',
              'apiVersion': 'v1',
              'metadata': {'name': 'ref-ns-term',
                           'uid': '3c01d078-acdd-4477-91e9-41571cdcd521',
                           'resourceVersion': '13021',
                           'creationTimestamp': '2026-11-22T06:49:14Z',
                           'deletionTimestamp': '2026-11-22T06:49:15Z',
                           'labels': {'kubernetes.io/metadata.name': 'ref-ns-term'}},
              'spec': {},
              'status': {'phase': 'Terminating'}}),
    Case(name='07-ns-get-after-finalize',
         method='GET',
         path='/api/v1/namespaces/ref-ns-term',
         headers={'Accept': 'application/json'},
         body=None,
         status=404,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'namespaces "ref-ns-term" not found',
              'reason': 'NotFound',
              'details': {'name': 'ref-ns-term', 'kind': 'namespaces'},
              'code': 404}),
    Case(name='07-ns-status-get',
         method='GET',
         path='/api/v1/namespaces/ref-list/status',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Namespace',
              'apiVersion': 'v1',
              'metadata': {'name': 'ref-list',
                           'uid': 'a3522835-1ede-4f77-8f45-a409a0380c40',
                           'resourceVersion': '6735',
                           'creationTimestamp': '2026-11-22T06:46:17Z',
                           'labels': {'kubernetes.io/metadata.name': 'ref-list'}},
              'spec': {'finalizers': ['kubernetes']},
              'status': {'phase': 'Active'}}),
    Case(name='07-ns-delete-default-forbidden',
         method='DELETE',
         path='/api/v1/namespaces/default?dryRun=All',
         headers={'Accept': 'application/json'},
         body=None,
         status=403,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'namespaces "default" is forbidden: this namespace may not '
                         'be deleted',
              'reason': 'Forbidden',
              'details': {'name': 'default', 'kind': 'namespaces'},
              'code': 403}),
    Setup(body={'apiVersion': 'v1',
              'kind': 'Namespace',
              'metadata': {'name': 'ref-misc'}}, label='namespace ref-misc', method='POST', path='/api/v1/namespaces', status=201),
    Setup(body='<<ROOT_CA>>', label='kube-root-ca.crt in ref-misc', method='POST', path='/api/v1/namespaces/ref-misc/configmaps', status=201),
    Setup(body={'apiVersion': 'v1',
              'kind': 'ServiceAccount',
              'metadata': {'name': 'default'}}, label='default serviceaccount in ref-misc', method='POST', path='/api/v1/namespaces/ref-misc/serviceaccounts', status=201),
    Case(name='12-event-create-core-v1',
         method='POST',
         path='/api/v1/namespaces/ref-misc/events',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body=('{"apiVersion":"v1","kind":"Event","metadata":{"name":"target.ref1"},"involvedObject":{"kind":"ConfigMap","namespace":"ref-misc","name":"target","uid":"7159b547-6575-4660-b768-6b0a7de5a7c4","apiVersion":"v1"},"reason":"Tested","message":"reference '
              'event","type":"Normal","source":{"component":"refcapture"},"firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:00:00Z","count":1,"reportingComponent":"refcapture","reportingInstance":"refcapture-1"}'),
         status=201,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Event',
              'apiVersion': 'v1',
              'metadata': {'name': 'target.ref1',
                           'namespace': 'ref-misc',
                           'uid': '003e4d8a-dfc3-4bf6-8d55-c9047ef23e5e',
                           'resourceVersion': '39711',
                           'creationTimestamp': '2026-11-22T06:51:00Z'},
              'involvedObject': {'kind': 'ConfigMap',
                                 'namespace': 'ref-misc',
                                 'name': 'target',
                                 'uid': '7159b547-6575-4660-b768-6b0a7de5a7c4',
                                 'apiVersion': 'v1'},
              'reason': 'Tested',
              'message': 'reference event',
              'source': {'component': 'refcapture'},
              'firstTimestamp': '2026-01-01T00:00:00Z',
              'lastTimestamp': '2026-01-01T00:00:00Z',
              'count': 1,
              'type': 'Normal',
              'eventTime': None,
              'reportingComponent': 'refcapture',
              'reportingInstance': 'refcapture-1'}),
    Case(name='12-events-field-selector-unsupported',
         method='GET',
         path='/api/v1/namespaces/ref-misc/events?fieldSelector=message%3Dx',
         headers={'Accept': 'application/json'},
         body=None,
         status=400,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'field label not supported: message',
              'reason': 'BadRequest',
              'code': 400}),
    Case(name='12-events-k8s-io-list',
         method='GET',
         path='/apis/events.k8s.io/v1/namespaces/ref-misc/events',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'EventList',
              'apiVersion': 'events.k8s.io/v1',
              'metadata': {'resourceVersion': '39711'},
              'items': [{'metadata': {'name': 'target.ref1',
                                      'namespace': 'ref-misc',
                                      'uid': '003e4d8a-dfc3-4bf6-8d55-c9047ef23e5e',
                                      'resourceVersion': '39711',
                                      'creationTimestamp': '2026-11-22T06:51:00Z'},
                         'eventTime': None,
                         'reportingController': 'refcapture',
                         'reportingInstance': 'refcapture-1',
                         'reason': 'Tested',
                         'regarding': {'kind': 'ConfigMap',
                                       'namespace': 'ref-misc',
                                       'name': 'target',
                                       'uid': '7159b547-6575-4660-b768-6b0a7de5a7c4',
                                       'apiVersion': 'v1'},
                         'note': 'reference event',
                         'type': 'Normal',
                         'deprecatedSource': {'component': 'refcapture'},
                         'deprecatedFirstTimestamp': '2026-01-01T00:00:00Z',
                         'deprecatedLastTimestamp': '2026-01-01T00:00:00Z',
                         'deprecatedCount': 1}]}),
    Case(name='12-events-list-involved-object',
         method='GET',
         path='/api/v1/namespaces/ref-misc/events?fieldSelector=involvedObject.name%3Dtarget,involvedObject.namespace%3Dref-misc,involvedObject.kind%3DConfigMap,involvedObject.uid%3D7159b547-6575-4660-b768-6b0a7de5a7c4',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'EventList',
              'apiVersion': 'v1',
              'metadata': {'resourceVersion': '39711'},
              'items': [{'metadata': {'name': 'target.ref1',
                                      'namespace': 'ref-misc',
                                      'uid': '003e4d8a-dfc3-4bf6-8d55-c9047ef23e5e',
                                      'resourceVersion': '39711',
                                      'creationTimestamp': '2026-11-22T06:51:00Z'},
                         'involvedObject': {'kind': 'ConfigMap',
                                            'namespace': 'ref-misc',
                                            'name': 'target',
                                            'uid': '7159b547-6575-4660-b768-6b0a7de5a7c4',
                                            'apiVersion': 'v1'},
                         'reason': 'Tested',
                         'message': 'reference event',
                         'source': {'component': 'refcapture'},
                         'firstTimestamp': '2026-01-01T00:00:00Z',
                         'lastTimestamp': '2026-01-01T00:00:00Z',
                         'count': 1,
                         'type': 'Normal',
                         'eventTime': None,
                         'reportingComponent': 'refcapture',
                         'reportingInstance': 'refcapture-1'}]}),
    Case(name='12-events-table',
         method='GET',
         path='/api/v1/namespaces/ref-misc/events',
         headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Table',
              'apiVersion': 'meta.k8s.io/v1',
              'metadata': {'resourceVersion': '39711'},
              'columnDefinitions': [{'name': 'Last Seen',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'The time at which the most '
                                                    'recent occurrence of this event '
                                                    'was recorded.',
                                     'priority': 0},
                                    {'name': 'Type',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'Type of this event (Normal, '
                                                    'Warning), new types could be '
                                                    'added in the future',
                                     'priority': 0},
                                    {'name': 'Reason',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T8@',
                                     'priority': 0},
                                    {'name': 'Object',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'The object that this event is '
                                                    'about.',
                                     'priority': 0},
                                    {'name': 'Subobject',
                                     'type': 'string',
                                     'format': '',
                                     'description': '@T9@',
                                     'priority': 1},
                                    {'name': 'Source',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'The component reporting this '
                                                    'event. Should be a short machine '
                                                    'understandable string.',
                                     'priority': 1},
                                    {'name': 'Message',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'A human-readable description of '
                                                    'the status of this operation.',
                                     'priority': 0},
                                    {'name': 'First Seen',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'The time at which the event was '
                                                    'first recorded. (Time of server '
                                                    'receipt is in TypeMeta.)',
                                     'priority': 1},
                                    {'name': 'Count',
                                     'type': 'string',
                                     'format': '',
                                     'description': 'The number of times this event '
                                                    'has occurred.',
                                     'priority': 1},
                                    {'name': 'Name',
                                     'type': 'string',
                                     'format': 'name',
                                     'description': '@T3@',
                                     'priority': 1}],
              'rows': [{'cells': ['325d',
                                  'Normal',
                                  'Tested',
                                  'configmap/target',
                                  '',
                                  'refcapture, refcapture-1',
                                  'reference event',
                                  '325d',
                                  1,
                                  'target.ref1'],
                        'object': {'kind': 'PartialObjectMetadata',
                                   'apiVersion': 'meta.k8s.io/v1',
                                   'metadata': {'name': 'target.ref1',
                                                'namespace': 'ref-misc',
                                                'uid': '003e4d8a-dfc3-4bf6-8d55-c9047ef23e5e',
                                                'resourceVersion': '39711',
                                                'creationTimestamp': '2026-11-22T06:51:00Z'}}}]}),
    Case(name='12-lease-create',
         method='POST',
         path='/apis/coordination.k8s.io/v1/namespaces/ref-misc/leases',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"ref-leader"},"spec":{"holderIdentity":"node-a","leaseDurationSeconds":15,"acquireTime":"2026-01-01T00:00:00.000000Z","renewTime":"2026-01-01T00:00:00.000000Z","leaseTransitions":0}}',
         status=201,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Lease',
              'apiVersion': 'coordination.k8s.io/v1',
              'metadata': {'name': 'ref-leader',
                           'namespace': 'ref-misc',
                           'uid': '49a8cf56-2f96-4b21-ae68-1be2c37cad8f',
                           'resourceVersion': '39712',
                           'creationTimestamp': '2026-11-22T06:51:00Z'},
              'spec': {'holderIdentity': 'node-a',
                       'leaseDurationSeconds': 15,
                       'acquireTime': '2026-01-01T00:00:00.000000Z',
                       'renewTime': '2026-01-01T00:00:00.000000Z',
                       'leaseTransitions': 0}},
         save={'lease_rv0': 'metadata.resourceVersion',
              'lease_uid': 'metadata.uid',
              'lease_created': 'metadata.creationTimestamp'}),
    Case(name='12-lease-renew',
         method='PUT',
         path='/apis/coordination.k8s.io/v1/namespaces/ref-misc/leases/ref-leader',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"ref-leader","namespace":"ref-misc","uid":"<<lease_uid>>","resourceVersion":"<<lease_rv0>>","creationTimestamp":"<<lease_created>>"},"spec":{"holderIdentity":"node-a","leaseDurationSeconds":15,"acquireTime":"2026-01-01T00:00:00.000000Z","renewTime":"2026-01-01T00:00:10.123456Z","leaseTransitions":0}}',
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Lease',
              'apiVersion': 'coordination.k8s.io/v1',
              'metadata': {'name': 'ref-leader',
                           'namespace': 'ref-misc',
                           'uid': '49a8cf56-2f96-4b21-ae68-1be2c37cad8f',
                           'resourceVersion': '39713',
                           'creationTimestamp': '2026-11-22T06:51:00Z'},
              'spec': {'holderIdentity': 'node-a',
                       'leaseDurationSeconds': 15,
                       'acquireTime': '2026-01-01T00:00:00.000000Z',
                       'renewTime': '2026-01-01T00:00:10.123456Z',
                       'leaseTransitions': 0}}),
    Case(name='12-lease-renew-stale',
         method='PUT',
         path='/apis/coordination.k8s.io/v1/namespaces/ref-misc/leases/ref-leader',
         headers={'Accept': 'application/json', 'Content-Type': 'application/json'},
         body='{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"ref-leader","namespace":"ref-misc","uid":"<<lease_uid>>","resourceVersion":"<<lease_rv0>>","creationTimestamp":"<<lease_created>>"},"spec":{"holderIdentity":"node-a","leaseDurationSeconds":15,"acquireTime":"2026-01-01T00:00:00.000000Z","renewTime":"2026-01-01T00:00:10.123456Z","leaseTransitions":0}}',
         status=409,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'Operation cannot be fulfilled on leases.coordination.k8s.io '
                         '"ref-leader": the object has been modified; please apply '
                         'your changes to the latest version and try again',
              'reason': 'Conflict',
              'details': {'name': 'ref-leader',
                          'group': 'coordination.k8s.io',
                          'kind': 'leases'},
              'code': 409}),
]


COMPACTED_STEPS = [
    Case(name='04-list-continue-expired',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?limit=2&continue=<<old_continue>>',
         headers={'Accept': 'application/json'},
         body=None,
         status=410,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {'continue': 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiY20tMVx1MDAwMCJ9'},
              'status': 'Failure',
              'message': 'The provided continue parameter is too old to display a '
                         'consistent list result. You can start a new list without '
                         'the continue parameter, or use the continue token in this '
                         'response to retrieve the remainder of the results. '
                         'Continuing with the provided token results in an '
                         'inconsistent list - objects that were created, modified, or '
                         'deleted between the time the first chunk was returned and '
                         'now may show up in the list.',
              'reason': 'Expired',
              'code': 410}),
    Case(name='04-list-rv-exact-too-old',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?resourceVersion=<<old_rv>>&resourceVersionMatch=Exact',
         headers={'Accept': 'application/json'},
         body=None,
         status=410,
         resp_headers={'Content-Type': ['application/json']},
         kind='json',
         expect={'kind': 'Status',
              'apiVersion': 'v1',
              'metadata': {},
              'status': 'Failure',
              'message': 'The resourceVersion for the provided list is too old.',
              'reason': 'Expired',
              'code': 410}),
    Case(name='05-watch-too-old-rv',
         method='GET',
         path='/api/v1/namespaces/ref-list/configmaps?watch=1&resourceVersion=1&allowWatchBookmarks=true&timeoutSeconds=3',
         headers={'Accept': 'application/json'},
         body=None,
         status=200,
         resp_headers={'Content-Type': ['application/json']},
         kind='stream',
         expect=[{'type': 'ERROR',
               'object': {'kind': 'Status',
                          'apiVersion': 'v1',
                          'metadata': {},
                          'status': 'Failure',
                          'message': 'too old resource version: 1 (6520)',
                          'reason': 'Expired',
                          'code': 410}}]),
]


# ---------------------------------------------------------------- runner


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                  r"[0-9a-f]{12}")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
AGE = re.compile(r"^(\d+[smhdy])+$|^<unknown>$")
GENERATED = re.compile(r"^(cm-gen-)[a-z0-9]{5}$")
PLACEHOLDER = re.compile(r"<<(\w+)>>")


def expand_texts(v):
    if isinstance(v, dict):
        return {k: expand_texts(x) for k, x in v.items()}
    if isinstance(v, list):
        return [expand_texts(x) for x in v]
    if isinstance(v, str) and v in TEXTS:
        return TEXTS[v]
    return v


def norm_str(s):
    s = UUID.sub("<uid>", s)
    s = TIME.sub(lambda m: "<time.us>" if m.group(1) else "<time>", s)
    s = re.sub(r"\(\d+\)", "(<n>)", s)
    s = re.sub(r"current: \d+", "current: <n>", s)
    s = re.sub(r"resource version: \d+ ", "resource version: <n> ", s)
    return GENERATED.sub(r"\1<random>", s)


def norm(v, key=None):
    """Normalises what differs between any two servers."""
    if isinstance(v, dict):
        return {k: norm(x, k) for k, x in v.items() if k != "managedFields"}
    if isinstance(v, list):
        if key == "cells":
            return [("<age>" if isinstance(x, str) and AGE.match(x)
                     else norm(x)) for x in v]
        return [norm(x) for x in v]
    if isinstance(v, str):
        if key in ("resourceVersion", "continue") and v:
            return "<%s>" % key
        return norm_str(v)
    return v


def shape(v):
    """Keys and JSON types; the items of a list as the set of their
    shapes."""
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    if isinstance(v, list):
        out = []
        for x in v:
            s = shape(x)
            if s not in out:
                out.append(s)
        return out
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if v is None:
        return "null"
    return "string"


def ordered(v):
    """JSON objects as lists of pairs: key order counts."""
    if isinstance(v, dict):
        return [(k, ordered(x)) for k, x in v.items()]
    if isinstance(v, list):
        return [ordered(x) for x in v]
    return v


class Run:
    """The Steps of one server, each run at most once, in order."""

    def __init__(self, srv, steps):
        self.srv = srv
        self.steps = steps
        self.next = 0
        self.vars = {}

    def fill(self, s):
        if s is None:
            return None

        def var(m):
            if m.group(1) not in self.vars:
                raise AssertionError("no value for <<%s>>" % m.group(1))
            return str(self.vars[m.group(1)])

        return PLACEHOLDER.sub(var, s)

    def send(self, step):
        headers = dict(step.get("headers") or {})
        body = step.get("body")
        if isinstance(step, Setup):
            if body == "<<ROOT_CA>>":
                body = ROOT_CA
            if body is not None:
                body = json.dumps(expand_texts(body))
                headers["Content-Type"] = step.get("ctype",
                                                   "application/json")
        else:
            headers = {k: v for k, v in headers.items() if v != ""}
        headers = {k: self.fill(v) for k, v in headers.items()}
        body = self.fill(body)
        r = call(self.srv, step["method"], self.fill(step["path"]),
                 body.encode() if body is not None else None,
                 headers=headers, timeout=60)
        if step.get("status") and isinstance(step, Setup):
            assert r.status == step["status"], (step.id, r)
        for name, where in (step.get("save") or {}).items():
            self.vars[name] = self.extract(r, where)
        return r

    def extract(self, r, where):
        if where == "@Etag":
            return r.header("etag")
        if where == "@v3hash":
            url = r.json["paths"]["api/v1"]["serverRelativeURL"]
            return url.split("hash=")[1]
        v = r.json
        for part in where.split("."):
            v = v[part]
        return v

    def upto(self, step):
        """Runs the steps before step (once), then step; returns its
        response."""
        i = self.steps.index(step)
        while self.next < i:
            self.send(self.steps[self.next])
            self.next += 1
        assert self.next == i, "%s ran already" % step.id
        self.next += 1
        return self.send(step)


def check_headers(case, r):
    for name, want in case["resp_headers"].items():
        got = r.headers.get(name.lower(), [])
        if name == "Content-Type":
            continue
        if name in ("Etag", "Last-Modified", "Expires"):
            assert len(got) == 1, (name, r.headers)
            if name == "Etag":
                assert re.match(r'^"[0-9A-Fa-f]+"$', got[0]), got
        elif name == "Location":
            assert len(got) == 1
            assert got[0].split("?hash=")[0] == want[0].split("?hash=")[0]
            assert ("?hash=" in got[0]) == ("?hash=" in want[0])
        elif name == "Vary":
            # nginx's gzip module may add Accept-Encoding
            assert set(want) <= set(got), (got, want)
        else:
            assert [norm_str(x) for x in got] == [norm_str(x) for x in want]


def decode_body(r):
    body = r.body
    if r.header("content-encoding") == "gzip":
        body = gzip.decompress(body)
    return body


def compare_json(case, got):
    want = expand_texts(case["expect"])
    for key, n in case.get("count", {}).items():
        assert len(got[key]) == n, key
    for key in case.get("drop", []):
        assert got.pop(key), key
        want.pop(key)
    if case.get("shape") and want.get("kind") != "Status":
        assert shape(norm(got)) == shape(norm(want))
        return
    assert ordered(norm(got)) == ordered(norm(want))


def periodic_bookmarks_out(events):
    """Periodic BOOKMARKs (not the end of initial events) come when the
    server's timers fire; clients take them as optional progress notes."""
    return [e for e in events if e["type"] != "BOOKMARK"
            or e["object"]["metadata"].get("annotations")]


def check_case(case, r):
    assert r.status == case["status"], r
    want_ct = case["resp_headers"].get("Content-Type", [None])[0]
    assert r.content_type == want_ct, (r.content_type, want_ct)
    check_headers(case, r)
    body = decode_body(r)
    kind = case["kind"]
    check = case.get("check")

    if check == "protobuf":
        assert body[:4] == b"k8s\x00"
        assert b"\x0a\x02v1\x12\x09ConfigMap" in body[:32]
        return
    if check == "yaml":
        assert body.decode().startswith("apiVersion: v1\ndata:\n")
        assert "\nkind: ConfigMap\nmetadata:\n" in body.decode()
        assert "managedFields" not in body.decode()
        return
    if check == "pretty":
        text = body.decode()
        assert text.startswith('{\n  "kind": "ConfigMap",\n  "apiVersion"')
        assert json.loads(text)["metadata"]["name"] == "cm-0"
        return
    if check == "health":
        # ngx_gcp has checks of its own: the format and the first ones
        lines = body.decode().split("\n")
        want = case["expect"].split("\n")
        assert lines[-2:] == want[-2:]
        assert all(re.match(r"^\[\+\][\w/-]+ ok$", x) for x in lines[:-2])
        assert lines[:3] == want[:3]
        return
    if check == "paths":
        got = json.loads(body)["paths"]
        for p in got:
            assert p in case["expect"]["paths"], p
        for p in ("/api", "/api/v1", "/apis", "/apis/", "/healthz",
                  "/livez", "/readyz", "/version", "/openapi/v2",
                  "/openapi/v3", "/apis/coordination.k8s.io",
                  "/apis/coordination.k8s.io/v1", "/apis/events.k8s.io",
                  "/apis/events.k8s.io/v1"):
            assert p in got, p
        return

    if kind == "none":
        assert body == b""
    elif kind == "text":
        assert body.decode() == case["expect"]
    elif kind == "json":
        compare_json(case, json.loads(body))
    elif kind == "stream":
        events = periodic_bookmarks_out(
            [json.loads(x) for x in body.decode().splitlines() if x])
        want = periodic_bookmarks_out(expand_texts(case["expect"]))
        if case.get("shape"):
            assert shape(norm(events)) == shape(norm(want))
        else:
            assert ordered(norm(events)) == ordered(norm(want))
    elif kind == "omitted":
        assert body


@pytest.fixture(scope="module")
def run():
    # The Steps replay the captures in order, with Setup steps doing what
    # kube-controller-manager did between them (kube-root-ca.crt, default
    # service accounts) at the moment it did: the server's own controllers
    # would race with them, so they are off here (test_controllers.py and
    # test_quota.py compare the controllers' work with the captures).
    srv = GcpServer(workers=2, http_extra="gcp_controllers off;").start()
    try:
        yield Run(srv, STEPS)
    finally:
        srv.stop()


@pytest.mark.parametrize("case", [s for s in STEPS if isinstance(s, Case)],
                         ids=lambda c: c.id)
def test_reference(run, case):
    check_case(case, run.upto(case))


# ------------------------------------------------------------ compaction


@pytest.fixture(scope="module")
def compacted():
    """A server that compacts every 500ms, with ref-list as in section 4,
    a continue token and a resourceVersion both compacted away."""
    srv = GcpServer(workers=2, http_extra="gcp_compact_interval 500ms; "
                    "gcp_controllers off;")
    srv.start()
    try:
        r = Run(srv, COMPACTED_STEPS)
        path = "/api/v1/namespaces/ref-list/configmaps"
        assert call(srv, "POST", "/api/v1/namespaces", {
            "metadata": {"name": "ref-list"}}).status == 201
        for i in range(5):
            assert call(srv, "POST", path, {"metadata": {
                "name": "cm-%d" % i}, "data": {"i": str(i)}}).status == 201
        page = call(srv, "GET", path + "?limit=2").json
        r.vars["old_continue"] = page["metadata"]["continue"]
        r.vars["old_rv"] = page["metadata"]["resourceVersion"]
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            call(srv, "PATCH", path + "/cm-4", {"data": {"t": str(time.time())}},
                 content_type="application/merge-patch+json")
            if call(srv, "GET", path + "?resourceVersionMatch=Exact&"
                    "resourceVersion=" + r.vars["old_rv"]).status == 410:
                break
            time.sleep(0.1)
        yield r
    finally:
        srv.stop()


@pytest.mark.parametrize("case", COMPACTED_STEPS, ids=lambda c: c.id)
def test_reference_compacted(compacted, case):
    check_case(case, compacted.upto(case))


# ------------------------------------------------------------ headers


@pytest.mark.parametrize("method, path, status", [
    ("GET", "/api/v1/namespaces/default/configmaps/nosuch", 404),
    ("POST", "/api/v1/namespaces/default/configmaps", 400),
    ("GET", "/api/v1/pods", 404),
    ("GET", "/nosuchpath", 404),
    ("GET", "/api/v1/namespaces/default/configmaps?resourceVersion=abc",
     500),
])
def test_cache_control_on_errors(run, method, path, status):
    # kube-apiserver's WithCacheControl filter marks every response
    r = call(run.srv, method, path, b"{" if method == "POST" else None,
             headers={"Content-Type": "application/json"})
    assert r.status == status
    assert r.header("cache-control") == "no-cache, private"
    if r.content_type.startswith("text/plain"):
        assert r.header("x-content-type-options") == "nosniff"
