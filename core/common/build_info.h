// What this build of ContactSim is: version and build type, printed by tools and the server.
#pragma once

#include <string>

namespace contactsim::core {

// e.g. "ContactSim 0.1.0 (Release, C++202002)".
std::string BuildInfo();

}  // namespace contactsim::core
