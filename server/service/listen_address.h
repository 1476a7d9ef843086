// What a --listen address exposes: the server warns when it listens beyond this machine without
// TLS, since tokens then cross the network in clear text.
#pragma once

#include <string_view>

namespace contactsim::server {

// True for addresses only this machine can reach: 127.x.y.z, [::1], localhost and unix sockets.
// False for everything else, including the wildcards 0.0.0.0 and [::].
bool IsLoopbackListenAddress(std::string_view address);

}  // namespace contactsim::server
