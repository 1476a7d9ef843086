"""Structure of the container files (deploy/Dockerfile, deploy/compose*.yaml) without building
the image (deploy/smoke-test.sh builds and runs it: ~30-50 min). Checks: the stages and their
order (the server image is the default target), a non-root user, a HEALTHCHECK through the CLI's
gRPC health check, SIGTERM as the stop signal with a drain shorter than compose's stop period,
the state volume where --state-dir points, every library the runtime installs named; compose
publishes gRPC and the viewer on loopback unless CONTACTSIM_BIND says otherwise, reserves one
NVIDIA GPU in the gpu profile only, and mounts the state volume; the TLS override gives both
TLS flags.
"""

import os
import re
import unittest

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEPLOY = os.path.join(REPO, "deploy")


def read(name):
    with open(os.path.join(DEPLOY, name), encoding="utf-8") as f:
        return f.read()


class DockerfileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        text = read("Dockerfile")
        cls.text = re.sub(r"\\\n", " ", text)  # continuation lines joined
        cls.stages = re.findall(r"^FROM \S+ AS (\S+)", cls.text, re.M)

    def stage(self, name):
        parts = re.split(r"^FROM ", self.text, flags=re.M)
        return next(p for p in parts if re.match(rf"\S+ AS {name}\b", p))

    def test_stages_and_default_target(self):
        self.assertEqual(self.stages, ["builder", "gateway", "runtime"])
        self.assertIn("ARG BASE=docker.io/library/debian:bookworm", self.text)

    def test_builder_uses_install_deps_and_builds_release(self):
        builder = self.stage("builder")
        self.assertIn("./deploy/install-deps.sh", builder)
        self.assertIn("-DCMAKE_BUILD_TYPE=Release", builder)
        self.assertIn("--target contactsim-server contactsim", builder)
        self.assertIn("nvidia-cuda-toolkit", builder)

    def test_runtime_is_non_root_healthy_and_drains(self):
        runtime = self.stage("runtime")
        self.assertIn("USER 10001:10001", runtime)
        health = re.search(r"HEALTHCHECK .* CMD (\[.*?\])", runtime).group(1)
        self.assertIn('"health"', health)
        self.assertIn("STOPSIGNAL SIGTERM", runtime)
        entry = re.search(r"ENTRYPOINT (\[.*?\])", runtime).group(1)
        grace = int(re.search(r'"--shutdown-grace-s", "(\d+)"', entry).group(1))
        state_dir = re.search(r'"--state-dir", "([^"]+)"', entry).group(1)
        self.assertIn(f"VOLUME {state_dir}", runtime)
        compose = yaml.safe_load(read("compose.yaml"))
        stop = compose["x-server"]["stop_grace_period"]
        self.assertLess(grace, int(stop.rstrip("s")))
        self.assertIn("libcusparse11", runtime)  # the CUDA variant's runtime library
        # The viewer's TLS loads this object from beside the server, and libcrypto.so by name.
        self.assertRegex(runtime, r"libcontactsim_civetweb_openssl3_compat\.so\s+/usr/local/bin/")
        self.assertIn("libcrypto.so", runtime)
        self.assertNotIn("-dev", re.sub(r"/dev/\S+", "", runtime))  # runtime libraries only


class ComposeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.compose = yaml.safe_load(read("compose.yaml"))
        cls.tls = yaml.safe_load(read("compose.tls.yaml"))

    def test_ports_on_loopback_unless_bound_elsewhere(self):
        for name, service in self.compose["services"].items():
            for port in service["ports"]:
                host = port.rsplit(":", 2)[0]
                self.assertIn(host, ("${CONTACTSIM_BIND:-127.0.0.1}", "127.0.0.1"), name)
            container_ports = {p.rsplit(":", 1)[1] for p in service["ports"]}
            self.assertEqual(container_ports, {"50051", "8080", "9464"})

    def test_gpu_reservation_in_the_gpu_profile_only(self):
        gpu = self.compose["services"]["server"]
        self.assertEqual(gpu["profiles"], ["gpu"])
        device = gpu["deploy"]["resources"]["reservations"]["devices"][0]
        self.assertEqual((device["driver"], device["count"], device["capabilities"]),
                         ("nvidia", 1, ["gpu"]))
        self.assertEqual(gpu["build"]["args"]["CUDA"], "${CONTACTSIM_CUDA:-on}")
        cpu = self.compose["services"]["server-cpu"]
        self.assertEqual(cpu["profiles"], ["cpu"])
        self.assertNotIn("deploy", cpu)

    def test_state_volume(self):
        for service in self.compose["services"].values():
            self.assertIn("state:/var/lib/contactsim/state", service["volumes"])
        self.assertIn("state", self.compose["volumes"])

    def test_tls_override(self):
        for name in ("server", "server-cpu"):
            command = self.tls["services"][name]["command"]
            self.assertIn("--tls-cert", command)
            self.assertIn("--tls-key", command)


if __name__ == "__main__":
    unittest.main()
