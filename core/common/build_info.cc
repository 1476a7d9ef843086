#include "core/common/build_info.h"

#include "absl/strings/str_cat.h"

namespace contactsim::core {

std::string BuildInfo() {
#ifdef NDEBUG
  constexpr const char* kBuildType = "optimized";
#else
  constexpr const char* kBuildType = "debug";
#endif
  return absl::StrCat("ContactSim ", CONTACTSIM_VERSION, " (", kBuildType, ", C++", __cplusplus,
                      ")");
}

}  // namespace contactsim::core
