// Parameter checks shared by the mesh generators: each error names the parameter, and sizes are
// checked against the default MeshLimits before anything is allocated.
// Internal to core/geometry.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace contactsim::core::internal {

// `value` finite and > 0: "radius_m: must be positive and finite, got -1".
absl::Status CheckPositiveLength(double value, absl::string_view name);
// `value` >= minimum: "segments: must be at least 3, got 2".
absl::Status CheckAtLeast(int value, int minimum, absl::string_view name);
// num_vertices and num_elements (computed in floating point so huge counts cannot overflow)
// within the default MeshLimits; `what` names the parameters, e.g. "nx * ny * nz".
absl::Status CheckGeneratedSize(double num_vertices, double num_elements, absl::string_view what);

}  // namespace contactsim::core::internal
