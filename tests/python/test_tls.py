"""The Python client's TLS and mutual TLS options against real contactsim-server processes
started with --tls-cert/--tls-key (and --tls-client-ca), with certificates made by openssl at
test time (test_pki.py, as the C++ TLS tests make them)."""

import unittest

import contactsim
import grpc
from server_process import ServerProcess
from test_pki import TestPki

TIMEOUT_S = 30.0
pki = None


def setUpModule():
    global pki
    pki = TestPki()


def tearDownModule():
    if pki is not None:
        pki.remove()


class TlsTest(unittest.TestCase):
    """One server with TLS (no client certificates asked)."""

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess(["--tls-cert", pki.file("server.pem"),
                                    "--tls-key", pki.file("server.key")])
        # The certificate names localhost and 127.0.0.1; the server logs the address it bound.
        cls.address = cls.server.address

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_ping_and_a_step_over_tls(self):
        tls = contactsim.TlsOptions.from_files(ca_file=pki.file("ca.pem"))
        with contactsim.Client(self.address, timeout_s=TIMEOUT_S, tls=tls) as client:
            self.assertEqual(client.ping(b"over tls"), b"over tls")
            with client.create_session("tls", ground_planes=[contactsim.ground_plane()]) as s:
                box = s.add_box(0.05, position_m=(0.0, 0.0, 0.5))
                self.assertEqual(s.step(3).bodies[box.body_id].body_id, box.body_id)

    def test_plaintext_client_is_refused(self):
        with contactsim.Client(self.address, timeout_s=TIMEOUT_S) as client:
            with self.assertRaises(contactsim.ContactSimError) as raised:
                client.ping()
        self.assertEqual(raised.exception.code, grpc.StatusCode.UNAVAILABLE)

    def test_a_server_from_another_ca_is_refused(self):
        tls = contactsim.TlsOptions.from_files(ca_file=pki.file("other_ca.pem"))
        with contactsim.Client(self.address, timeout_s=TIMEOUT_S, tls=tls) as client:
            with self.assertRaises(contactsim.ContactSimError) as raised:
                client.ping()
        self.assertEqual(raised.exception.code, grpc.StatusCode.UNAVAILABLE)

    def test_bad_options_name_the_parameter(self):
        with self.assertRaisesRegex(ValueError, "^ca_file: .* holds no PEM certificate"):
            contactsim.TlsOptions.from_files(ca_file=pki.file("openssl.cnf"))
        with self.assertRaisesRegex(ValueError, "^key_file: "):
            contactsim.TlsOptions.from_files(cert_file=pki.file("client.pem"),
                                             key_file=pki.file("client.pem"))
        with self.assertRaisesRegex(ValueError, "go together"):
            contactsim.TlsOptions.from_files(cert_file=pki.file("client.pem"))
        with self.assertRaises(OSError):
            contactsim.TlsOptions.from_files(ca_file=pki.file("missing.pem"))
        with self.assertRaisesRegex(TypeError, "^tls: "):
            contactsim.Client(self.address, tls="yes")


class MutualTlsTest(unittest.TestCase):
    """One server that requires client certificates from ca.pem (--tls-client-ca)."""

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess(["--tls-cert", pki.file("server.pem"),
                                    "--tls-key", pki.file("server.key"),
                                    "--tls-client-ca", pki.file("ca.pem")])

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def ping_with(self, **files):
        tls = contactsim.TlsOptions.from_files(ca_file=pki.file("ca.pem"), **files)
        with contactsim.Client(self.server.address, timeout_s=TIMEOUT_S, tls=tls) as client:
            return client.ping(b"mtls")

    def test_client_certificate_of_the_ca_is_accepted(self):
        self.assertEqual(self.ping_with(cert_file=pki.file("client.pem"),
                                        key_file=pki.file("client.key")), b"mtls")

    def test_no_client_certificate_is_refused(self):
        with self.assertRaises(contactsim.ContactSimError) as raised:
            self.ping_with()
        self.assertEqual(raised.exception.code, grpc.StatusCode.UNAVAILABLE)

    def test_client_certificate_of_another_ca_is_refused(self):
        with self.assertRaises(contactsim.ContactSimError) as raised:
            self.ping_with(cert_file=pki.file("other_client.pem"),
                           key_file=pki.file("other_client.key"))
        self.assertEqual(raised.exception.code, grpc.StatusCode.UNAVAILABLE)


if __name__ == "__main__":
    unittest.main()
