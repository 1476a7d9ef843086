#include "tests/fuzz/fuzz_checks.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace contactsim::fuzz {

core::MeshOptions SmallMeshOptions() {
  core::MeshOptions options;
  options.limits.max_vertices = 20'000;
  options.limits.max_elements = 20'000;
  return options;
}

void CheckRefusal(const absl::Status& status, std::string_view what) {
  if (status.ok()) return;
  const bool expected_code = status.code() == absl::StatusCode::kInvalidArgument ||
                             status.code() == absl::StatusCode::kResourceExhausted;
  if (!expected_code || status.message().empty()) {
    std::fprintf(stderr, "%s: unexpected refusal: %s\n", std::string(what).c_str(),
                 status.ToString().c_str());
    std::abort();
  }
}

}  // namespace contactsim::fuzz
