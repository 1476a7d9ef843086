"""TLS settings of a Client for a server started with --tls-cert (and --tls-client-ca for mutual
TLS), as the C++ client's ClientTlsOptions (clients/cpp/tls_options.h) and the CLI's --tls-ca,
--tls-cert and --tls-key have them."""

from dataclasses import dataclass
from typing import Optional


@dataclass
class TlsOptions:
    """PEM bytes (or text). root_ca_pem: the CA certificate(s) the server's certificate must chain
    to (None: gRPC's default roots, fine for a public CA only). cert_chain_pem and
    private_key_pem: this client's certificate and key, for a server that requires client
    certificates (mutual TLS); both or neither. target_name_override: checked against the
    server certificate's names instead of the target's host (tests only: it weakens what the
    handshake proves)."""

    root_ca_pem: Optional[bytes] = None
    cert_chain_pem: Optional[bytes] = None
    private_key_pem: Optional[bytes] = None
    target_name_override: Optional[str] = None

    @classmethod
    def from_files(cls, ca_file=None, cert_file=None, key_file=None, target_name_override=None):
        """Reads the PEM files (None leaves a field unset). ValueError naming the parameter when a
        file holds no PEM block of the expected kind or only one of cert_file and key_file is
        given; OSError when a file cannot be read."""
        return cls(root_ca_pem=_read_pem(ca_file, "ca_file", b"CERTIFICATE"),
                   cert_chain_pem=_read_pem(cert_file, "cert_file", b"CERTIFICATE"),
                   private_key_pem=_read_pem(key_file, "key_file", b"PRIVATE KEY"),
                   target_name_override=target_name_override)._checked()

    def _checked(self):
        if (self.cert_chain_pem is None) != (self.private_key_pem is None):
            raise ValueError("tls: cert_chain_pem (cert_file) and private_key_pem (key_file) go "
                             "together: give both for mutual TLS, or neither")
        return self

    def channel_credentials(self):
        import grpc

        self._checked()
        return grpc.ssl_channel_credentials(root_certificates=_bytes(self.root_ca_pem),
                                            private_key=_bytes(self.private_key_pem),
                                            certificate_chain=_bytes(self.cert_chain_pem))


def _bytes(pem):
    return pem.encode() if isinstance(pem, str) else pem


def _read_pem(path, parameter, kind):
    if path is None:
        return None
    with open(path, "rb") as pem_file:
        pem = pem_file.read()
    if b"-----BEGIN " not in pem or kind + b"-----" not in pem:
        raise ValueError(f"{parameter}: {path} holds no PEM {kind.decode().lower()}")
    return pem
