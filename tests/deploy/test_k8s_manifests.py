"""Structure of the Kubernetes manifests (deploy/k8s, kustomize) without a cluster: the kinds,
selectors that match their pods' labels, named ports that the Services' target ports resolve to,
one GPU per server, gRPC probes for the service's name on the gRPC port, a preStop drain that
fits the grace period, Prometheus annotations on the metrics port, the state volume mounted where
--state-dir points, and one replica count everywhere. The gateway configuration the pods would
generate passes `nginx -t` where nginx is installed, and `kubectl kustomize` renders the
manifests where kubectl is installed (each said when skipped).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
K8S = os.path.join(REPO, "deploy", "k8s")
MAKE_CONF = os.path.join(REPO, "deploy", "gateway", "make_nginx_conf.py")
SERVICE_NAME = "contactsim.v1.Simulation"


def load():
    with open(os.path.join(K8S, "kustomization.yaml"), encoding="utf-8") as f:
        kustomization = yaml.safe_load(f)
    documents = []
    for resource in kustomization["resources"]:
        with open(os.path.join(K8S, resource), encoding="utf-8") as f:
            documents += [d for d in yaml.safe_load_all(f) if d]
    return kustomization, documents


def pod_spec(workload):
    return workload["spec"]["template"]["spec"]


def matches(selector, labels):
    return all(labels.get(k) == v for k, v in selector.items())


class ManifestTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.kustomization, cls.documents = load()

    def of_kind(self, kind):
        return [d for d in self.documents if d["kind"] == kind]

    def one(self, kind, name):
        found = [d for d in self.of_kind(kind) if d["metadata"]["name"] == name]
        self.assertEqual(len(found), 1, f"{kind}/{name}")
        return found[0]

    def server(self):
        return self.one("StatefulSet", "contactsim")

    def server_container(self):
        return pod_spec(self.server())["containers"][0]

    def server_args(self):
        return " ".join(self.server_container()["args"])

    def test_kinds(self):
        kinds = sorted(d["kind"] for d in self.documents)
        self.assertEqual(kinds, ["Deployment", "PodDisruptionBudget", "PodDisruptionBudget",
                                 "Service", "Service", "StatefulSet"])
        self.assertEqual(self.kustomization["kind"], "Kustomization")

    def test_selectors_match_pod_labels(self):
        pods = {}
        for workload in self.of_kind("StatefulSet") + self.of_kind("Deployment"):
            labels = workload["spec"]["template"]["metadata"]["labels"]
            self.assertTrue(matches(workload["spec"]["selector"]["matchLabels"], labels),
                            workload["metadata"]["name"])
            pods[workload["metadata"]["name"]] = (workload, labels)
        for selecting in self.of_kind("Service") + self.of_kind("PodDisruptionBudget"):
            selector = selecting["spec"]["selector"]
            selector = selector.get("matchLabels", selector)
            chosen = [name for name, (_, labels) in pods.items() if matches(selector, labels)]
            self.assertEqual(len(chosen), 1, f"{selecting['kind']}/{selecting['metadata']['name']}")
        # The StatefulSet's governing Service is headless and selects its pods.
        headless = self.one("Service", self.server()["spec"]["serviceName"])
        self.assertEqual(headless["spec"]["clusterIP"], "None")

    def test_ports_are_named_and_targets_resolve(self):
        container_ports = {}
        for workload in self.of_kind("StatefulSet") + self.of_kind("Deployment"):
            names = set()
            for container in pod_spec(workload)["containers"]:
                for port in container["ports"]:
                    self.assertRegex(port.get("name", ""), r"^[a-z][a-z0-9-]{0,14}$")
                    names.add(port["name"])
            container_ports[workload["metadata"]["name"]] = names
        for service in self.of_kind("Service"):
            target = ("contactsim" if service["metadata"]["name"] == "contactsim"
                      else "contactsim-gateway")
            for port in service["spec"]["ports"]:
                self.assertTrue(port.get("name"), service["metadata"]["name"])
                self.assertIn(port["targetPort"], container_ports[target])

    def test_one_gpu_per_server(self):
        resources = self.server_container()["resources"]
        self.assertEqual(str(resources["limits"]["nvidia.com/gpu"]), "1")
        gateway = pod_spec(self.one("Deployment", "contactsim-gateway"))["containers"][0]
        self.assertNotIn("nvidia.com/gpu", gateway["resources"].get("limits", {}))

    def test_grpc_probes_ask_for_the_service_name(self):
        container = self.server_container()
        grpc_port = next(p["containerPort"] for p in container["ports"] if p["name"] == "grpc")
        self.assertIn(f"--listen 0.0.0.0:{grpc_port}", self.server_args())
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            self.assertIn(probe, container)
            self.assertEqual(container[probe]["grpc"]["port"], grpc_port, probe)
            self.assertEqual(container[probe]["grpc"]["service"], SERVICE_NAME, probe)

    def test_prestop_drain_fits_the_grace_period(self):
        spec = pod_spec(self.server())
        pre_stop = " ".join(self.server_container()["lifecycle"]["preStop"]["exec"]["command"])
        sleep_s = int(re.search(r"sleep (\d+)", pre_stop).group(1))
        drain_s = int(re.search(r"--shutdown-grace-s (\d+)", self.server_args()).group(1))
        self.assertGreater(spec["terminationGracePeriodSeconds"], sleep_s + drain_s)

    def test_prometheus_scrapes_the_metrics_port(self):
        annotations = self.server()["spec"]["template"]["metadata"]["annotations"]
        self.assertEqual(annotations["prometheus.io/scrape"], "true")
        metrics = next(p["containerPort"] for p in self.server_container()["ports"]
                       if p["name"] == "metrics")
        self.assertEqual(int(annotations["prometheus.io/port"]), metrics)
        self.assertIn(f"--metrics-listen 0.0.0.0:{metrics}", self.server_args())

    def test_state_volume_is_the_state_dir(self):
        claim = self.server()["spec"]["volumeClaimTemplates"][0]["metadata"]["name"]
        mount = next(m for m in self.server_container()["volumeMounts"] if m["name"] == claim)
        self.assertIn(f"--state-dir {mount['mountPath']}", self.server_args())
        self.assertIn('--replica-ordinal "${POD_NAME##*-}"', self.server_args())
        self.assertEqual(pod_spec(self.server())["securityContext"]["fsGroup"],
                         pod_spec(self.server())["securityContext"]["runAsUser"])

    def test_one_replica_count(self):
        counts = {r["name"]: r["count"] for r in self.kustomization["replicas"]}
        literals = dict(item.split("=", 1) for generator in self.kustomization["configMapGenerator"]
                        for item in generator["literals"])
        self.assertEqual(counts["contactsim"], int(literals["CONTACTSIM_REPLICAS"]))
        self.assertEqual(counts["contactsim"], self.server()["spec"]["replicas"])
        gateway = pod_spec(self.one("Deployment", "contactsim-gateway"))["containers"][0]
        env = {e["name"]: e for e in gateway["env"]}
        self.assertEqual(env["CONTACTSIM_REPLICAS"]["valueFrom"]["configMapKeyRef"]["name"],
                         self.kustomization["configMapGenerator"][0]["name"])
        self.assertTrue(env["CONTACTSIM_REPLICA_ADDRESS"]["value"].startswith(
            f"contactsim-{{k}}.{self.server()['spec']['serviceName']}."))

    def test_gateway_reaches_the_replicas_viewer_ports(self):
        # The browser viewer through the gateway: each replica's viewer by name, at the port the
        # server listens on and its headless Service names.
        viewer = next(p["containerPort"] for p in self.server_container()["ports"]
                      if p["name"] == "viewer")
        self.assertIn(f"--viewer-listen 0.0.0.0:{viewer}", self.server_args())
        gateway = pod_spec(self.one("Deployment", "contactsim-gateway"))["containers"][0]
        env = {e["name"]: e["value"] for e in gateway["env"] if "value" in e}
        service = self.server()["spec"]["serviceName"]
        self.assertEqual(env["CONTACTSIM_REPLICA_VIEWER_ADDRESS"],
                         f"contactsim-{{k}}.{service}.$(POD_NAMESPACE).svc.cluster.local:{viewer}")
        self.assertEqual(env["CONTACTSIM_ANY_VIEWER_ADDRESS"],
                         f"{service}.$(POD_NAMESPACE).svc.cluster.local:{viewer}")
        # The gateway's own viewer port: what the entry point listens on by default (8080).
        gateway_viewer = next(p["containerPort"] for p in gateway["ports"] if p["name"] == "viewer")
        self.assertEqual(gateway_viewer, 8080)
        self.assertNotIn("CONTACTSIM_GATEWAY_VIEWER_LISTEN", env)
        ports = {p["name"]: p for p in self.one("Service", "contactsim-gateway")["spec"]["ports"]}
        self.assertEqual(ports["viewer"]["targetPort"], "viewer")

    def test_generated_gateway_config_passes_nginx_check(self):
        nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK)
                                          else None)
        if nginx is None:
            self.skipTest("nginx is not installed")
        with tempfile.TemporaryDirectory() as prefix:
            for sub in ("logs", "tmp"):
                os.makedirs(os.path.join(prefix, sub))
            conf = os.path.join(prefix, "nginx.conf")
            subprocess.run([sys.executable, MAKE_CONF, "--replicas", "3", "--replica-address",
                            "contactsim-{k}.contactsim.default.svc.cluster.local:50051",
                            "--any-address", "contactsim.default.svc.cluster.local:50051",
                            "--resolver", "127.0.0.1", "--error-log", "/dev/stderr",
                            "--listen", "0.0.0.0:50051", "--viewer-listen", "0.0.0.0:8080",
                            "--replica-viewer-address",
                            "contactsim-{k}.contactsim.default.svc.cluster.local:8080",
                            "--any-viewer-address", "contactsim.default.svc.cluster.local:8080",
                            "-o", conf], check=True)
            checked = subprocess.run([nginx, "-t", "-p", prefix + "/", "-c", conf],
                                     capture_output=True, text=True)
            self.assertEqual(checked.returncode, 0, checked.stderr)

    def test_kubectl_kustomize_renders(self):
        kubectl = shutil.which("kubectl")
        if kubectl is None:
            self.skipTest("kubectl is not installed (not a Debian 12 package)")
        rendered = subprocess.run([kubectl, "kustomize", K8S], capture_output=True, text=True)
        self.assertEqual(rendered.returncode, 0, rendered.stderr)
        documents = [d for d in yaml.safe_load_all(rendered.stdout) if d]
        kinds = sorted(d["kind"] for d in documents)
        self.assertIn("ConfigMap", kinds)
        config_map = next(d for d in documents if d["kind"] == "ConfigMap")
        gateway = next(d for d in documents if d["kind"] == "Deployment")
        env = {e["name"]: e for e in pod_spec(gateway)["containers"][0]["env"]}
        # kustomize renames the generated ConfigMap (content hash) and the reference with it.
        self.assertEqual(env["CONTACTSIM_REPLICAS"]["valueFrom"]["configMapKeyRef"]["name"],
                         config_map["metadata"]["name"])
        server = next(d for d in documents if d["kind"] == "StatefulSet")
        self.assertEqual(server["spec"]["replicas"], int(config_map["data"]["CONTACTSIM_REPLICAS"]))


if __name__ == "__main__":
    unittest.main()
