"""ContactSimError: every failed call of the client, with the gRPC status code and the server's
message unchanged (application errors begin with the offending field, e.g.
"settings.dt_s: must be > 0")."""

import grpc


class ContactSimError(Exception):
    """A call the server refused or could not answer.

    Attributes:
        code: the grpc.StatusCode (e.g. grpc.StatusCode.PERMISSION_DENIED).
        message: the server's message (or the transport's, e.g. for UNAVAILABLE).
        rpc: the name of the rpc that failed (e.g. "Step").
    """

    def __init__(self, code, message, rpc=""):
        self.code = code
        self.message = message
        self.rpc = rpc
        prefix = f"{rpc}: " if rpc else ""
        super().__init__(f"{prefix}{self.code_name}: {message}")

    @property
    def code_name(self):
        """The code's name as gRPC spells it, e.g. "PERMISSION_DENIED"."""
        return self.code.name if isinstance(self.code, grpc.StatusCode) else str(self.code)

    @classmethod
    def from_rpc_error(cls, error, rpc=""):
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        details = error.details() if hasattr(error, "details") else str(error)
        return cls(code, details or "", rpc)
