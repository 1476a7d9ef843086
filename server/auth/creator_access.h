// Who may create sessions (--creator-token-file, --max-sessions-per-peer; docs/service.md
// "Sessions and tokens"). A server-wide creator token, when set, must come with CreateSession as
// `authorization: Bearer <token>`; a peer is who a quota counts against: the client certificate's
// subject under mutual TLS, else the connection's address without its port.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace contactsim::server {

// The token in a --creator-token-file: the file's text with surrounding whitespace removed, at
// least 16 printable ASCII characters (e.g. `openssl rand -hex 16 > FILE`). InvalidArgument
// naming the flag otherwise.
absl::StatusOr<std::string> ReadCreatorTokenFile(const std::string& path);

// OK when no creator token is configured or `authorization` carries it (compared in constant
// time); UNAUTHENTICATED saying what is needed otherwise.
absl::Status CheckCreatorToken(std::string_view required_token, std::string_view authorization);

// The quota key of a connection: "x509:<subject>" when a client certificate identified it, else
// gRPC's peer string ("ipv4:1.2.3.4:5678", "ipv6:[::1]:5678", "unix:...") without the port.
std::string PeerKey(std::string_view grpc_peer, std::string_view certificate_subject);

}  // namespace contactsim::server
