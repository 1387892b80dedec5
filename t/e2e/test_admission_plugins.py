"""The admission plugins and their directives: NamespaceLifecycle on by
default and switchable (gcp_disable_admission_plugins), the example plugin
RequiredLabels enabled and configured (gcp_enable_admission_plugins,
gcp_admission_plugin_config) with kubectl seeing its refusals and its
defaults, webhooks switched off, and configurations nginx refuses.
"""

import json

import pytest

from gcp_http import assert_status, call, configmap, create_namespace
from gcp_server import GcpServer, GcpServerError
from webhook_server import WebhookServer

CM = "/api/v1/namespaces/%s/configmaps"


def test_namespace_lifecycle(server, unique_name):
    name = unique_name("nosuch")
    r = call(server, "POST", CM % name, configmap("x"))
    assert_status(r, 404, "NotFound", 'namespaces "%s" not found' % name,
                  {"name": name, "kind": "namespaces"})

    r = call(server, "DELETE", "/api/v1/namespaces/kube-system")
    assert_status(r, 403, "Forbidden", 'namespaces "kube-system" is '
                  'forbidden: this namespace may not be deleted')


def test_namespace_lifecycle_disabled(storage, unique_name):
    with GcpServer(workers=1, http_extra=(
            "gcp_disable_admission_plugins NamespaceLifecycle;")) as srv:
        # nothing checks the namespace any more, as upstream without it
        name = unique_name("nosuch")
        r = call(srv, "POST", CM % name, configmap("x"))
        assert r.status == 201, r


def test_required_labels(storage, unique_name):
    with GcpServer(workers=2, http_extra=(
            "gcp_enable_admission_plugins RequiredLabels;\n"
            "    gcp_admission_plugin_config RequiredLabels "
            "\"team-*:owner,tier=web\" \"prod:cost-center\";")) as srv:
        team, other = unique_name("team"), unique_name("other")
        create_namespace(srv, team)
        create_namespace(srv, other)

        r = call(srv, "POST", CM % team, configmap("bare"))
        assert_status(r, 403, "Forbidden",
                      'configmaps "bare" is forbidden: objects in namespace '
                      '%s must carry the labels owner (RequiredLabels)'
                      % team)

        # the default is set by the plugin's mutating step
        r = call(srv, "POST", CM % team,
                 configmap("owned", labels={"owner": "me"}))
        assert r.status == 201, r
        assert r.json["metadata"]["labels"] == {"owner": "me",
                                                "tier": "web"}

        # other namespaces are not concerned
        assert call(srv, "POST", CM % other,
                    configmap("bare")).status == 201

        # an update that removes the label is refused too
        p = srv.kubectl("-n", team, "label", "cm", "owned", "owner-",
                        check=False)
        assert p.returncode == 1
        assert p.stderr == (
            'Error from server (Forbidden): configmaps "owned" is '
            'forbidden: objects in namespace '
            '%s must carry the labels owner (RequiredLabels)\n' % team)

        p = srv.kubectl("-n", team, "create", "-f", "-", check=False,
                        input=json.dumps(configmap("k")))
        assert p.returncode == 1
        assert 'must carry the labels owner' in p.stderr


def test_webhooks_disabled(storage):
    with WebhookServer() as wh, GcpServer(workers=1, http_extra=(
            "gcp_disable_admission_plugins ValidatingAdmissionWebhook;")) \
            as srv:
        r = call(srv, "POST", "/apis/admissionregistration.k8s.io/v1/"
                 "validatingwebhookconfigurations",
                 {"metadata": {"name": "deny"},
                  "webhooks": [{
                      "name": "deny.example.com",
                      "clientConfig": {"url": wh.url("/deny"),
                                       "caBundle": wh.ca_bundle},
                      "rules": [{"apiGroups": [""], "apiVersions": ["v1"],
                                 "operations": ["*"],
                                 "resources": ["configmaps"]}],
                      "sideEffects": "None",
                      "admissionReviewVersions": ["v1"]}]})
        assert r.status == 201, r
        r = call(srv, "POST", CM % "default", configmap("fine"))
        assert r.status == 201, r
        assert wh.reviews() == []


@pytest.mark.parametrize("extra,message", [
    ("gcp_enable_admission_plugins Nope;",
     'unknown admission plugin "Nope"'),
    ("gcp_enable_admission_plugins ResourceQuota;\n"
     "    gcp_disable_admission_plugins ResourceQuota;",
     'admission plugin "ResourceQuota" is both enabled and disabled'),
    ("gcp_admission_plugin_config RequiredLabels prod;",
     'RequiredLabels: "prod" is not NAMESPACES:LABEL[=DEFAULT][,...]'),
    ("gcp_admission_plugin_config ResourceQuota x;",
     'admission plugin "ResourceQuota" takes no arguments'),
])
def test_configuration_refused(storage, extra, message):
    srv = GcpServer(workers=1, http_extra=extra)
    with pytest.raises(GcpServerError) as e:
        srv.start(timeout=10)
    assert "[emerg]" in str(e.value) and message in str(e.value)
    srv.stop(check=False)
