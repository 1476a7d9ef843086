// The metadata every call about a session carries besides its token: the session id, under a
// key a gateway in front of several servers routes by (the replica that owns the session;
// docs/deploy.md). Session ids of a replica begin "r<ordinal>-". Clients add it to every call
// that names a session (the C++ library, the scene loader, the Python package); the server does
// not need it.
#pragma once

#include <string>

#include "grpcpp/client_context.h"

namespace contactsim::scenes {

inline constexpr char kSessionIdMetadataKey[] = "x-contactsim-session";

inline void AddSessionIdMetadata(grpc::ClientContext& context, const std::string& session_id) {
  if (!session_id.empty()) context.AddMetadata(kSessionIdMetadataKey, session_id);
}

}  // namespace contactsim::scenes
