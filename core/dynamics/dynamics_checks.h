// Argument and state checks shared by the bodies in core/dynamics: time steps, finite vectors,
// vertex indices and non-finite state. Each returns absl::Status naming the field or vertex.
// Internal to core/dynamics.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/common/eigen_types.h"

namespace contactsim::core::internal {

// dt_s must be finite and positive: "dt_s: must be positive and finite, got 0".
absl::Status CheckTimeStep(double dt_s);

// Every component finite: "gravity_m_per_s2: component z is nan".
absl::Status CheckFiniteVector(const Vec3& value, absl::string_view field);

// A finite scalar in [min, +inf): "stiffness_n_per_m: must be finite and >= 0, got -1".
absl::Status CheckFiniteAtLeast(double value, double min, absl::string_view field);
// A finite scalar > 0: "density_kg_per_m3: must be positive and finite, got 0".
absl::Status CheckPositive(double value, absl::string_view field);

// 0 <= i < num_vertices: "vertex 40 out of range [0, 30)".
absl::Status CheckVertexIndex(int i, int num_vertices);

// FailedPrecondition naming the first non-finite entry of a state array, e.g.
// "vertex 12: velocity z is nan"; OK when all entries are finite.
absl::Status CheckFiniteRows(const Points3& values, absl::string_view quantity);

}  // namespace contactsim::core::internal
