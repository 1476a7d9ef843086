#include "core/dynamics/dynamics_checks.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/math/all_finite.h"

namespace contactsim::core::internal {
namespace {

constexpr char kAxisNames[3] = {'x', 'y', 'z'};

}  // namespace

absl::Status CheckTimeStep(double dt_s) { return CheckPositive(dt_s, "dt_s"); }

absl::Status CheckFiniteVector(const Vec3& value, absl::string_view field) {
  for (int k = 0; k < 3; ++k) {
    if (!std::isfinite(value[k])) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": component ", absl::string_view(&kAxisNames[k], 1), " is ", value[k]));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckFiniteAtLeast(double value, double min, absl::string_view field) {
  if (!std::isfinite(value) || value < min) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": must be finite and >= ", min, ", got ", value));
  }
  return absl::OkStatus();
}

absl::Status CheckPositive(double value, absl::string_view field) {
  if (!std::isfinite(value) || !(value > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": must be positive and finite, got ", value));
  }
  return absl::OkStatus();
}

absl::Status CheckVertexIndex(int i, int num_vertices) {
  if (i < 0 || i >= num_vertices) {
    return absl::InvalidArgumentError(
        absl::StrCat("vertex ", i, " out of range [0, ", num_vertices, ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckFiniteRows(const Points3& values, absl::string_view quantity) {
  // The common case in one vectorized pass; the loop below only names the first bad value.
  if (AllFinite(values.data(), static_cast<size_t>(values.size()))) return absl::OkStatus();
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    for (int k = 0; k < 3; ++k) {
      if (!std::isfinite(values(i, k))) {
        return absl::FailedPreconditionError(absl::StrCat("vertex ", i, ": ", quantity, " ",
                                                          absl::string_view(&kAxisNames[k], 1),
                                                          " is ", values(i, k)));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace contactsim::core::internal
