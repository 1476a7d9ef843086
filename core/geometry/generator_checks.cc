#include "core/geometry/generator_checks.h"

#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "core/geometry/mesh_options.h"
#include "core/geometry/mesh_validation.h"

namespace contactsim::core::internal {

absl::Status CheckPositiveLength(double value, absl::string_view name) {
  if (std::isfinite(value) && value > 0.0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, ": must be positive and finite, got ", value));
}

absl::Status CheckAtLeast(int value, int minimum, absl::string_view name) {
  if (value >= minimum) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, ": must be at least ", minimum, ", got ", value));
}

absl::Status CheckGeneratedSize(double num_vertices, double num_elements, absl::string_view what) {
  const MeshLimits limits;
  if (num_vertices > static_cast<double>(limits.max_vertices) ||
      num_elements > static_cast<double>(limits.max_elements)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": would give ", num_vertices, " vertices and ", num_elements,
                     " elements, above the limits of ", FormatCount(limits.max_vertices), " and ",
                     FormatCount(limits.max_elements)));
  }
  return absl::OkStatus();
}

}  // namespace contactsim::core::internal
