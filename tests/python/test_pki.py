"""A throwaway PKI for the TLS tests, made with the `openssl` command line in a temporary folder,
as tests/common/test_pki.h makes it for the C++ tests: a CA, a server certificate for localhost /
127.0.0.1 (in subjectAltName, which TLS clients check), a client certificate from the same CA,
and a second CA with a client certificate the server must not accept."""

import os
import shutil
import subprocess
import tempfile

_CONFIG = """
[req]
distinguished_name = dn
prompt = no
[dn]
CN = ContactSim test
[ca_ext]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
[client_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
"""
_EC_KEY = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"


class TestPki:
    def __init__(self):
        if shutil.which("openssl") is None:
            raise RuntimeError("`openssl` not found on PATH: the TLS tests make their "
                               "certificates with it (run deploy/install-deps.sh)")
        self.dir = tempfile.mkdtemp(prefix="contactsim-pki-")
        with open(self.file("openssl.cnf"), "w", encoding="utf-8") as config:
            config.write(_CONFIG)
        self._ca("ca")
        self._leaf("server", "localhost", "server_ext", "ca", 2)
        self._leaf("client", "contactsim-client", "client_ext", "ca", 3)
        self._ca("other_ca")
        self._leaf("other_client", "contactsim-client", "client_ext", "other_ca", 4)

    def file(self, name):
        return os.path.join(self.dir, name)

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def _run(self, arguments):
        done = subprocess.run(f"openssl {arguments}", shell=True, cwd=self.dir,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"openssl {arguments} failed:\n{done.stdout}")

    def _ca(self, name):
        self._run(f"req -x509 -config openssl.cnf -extensions ca_ext {_EC_KEY} -days 2 "
                  f"-subj '/CN=ContactSim test {name}' -keyout {name}.key -out {name}.pem")

    def _leaf(self, name, common_name, extensions, ca, serial):
        self._run(f"req -new -config openssl.cnf {_EC_KEY} -subj '/CN={common_name}' "
                  f"-keyout {name}.key -out {name}.csr")
        self._run(f"x509 -req -in {name}.csr -CA {ca}.pem -CAkey {ca}.key -set_serial {serial} "
                  f"-days 2 -extfile openssl.cnf -extensions {extensions} -out {name}.pem")
