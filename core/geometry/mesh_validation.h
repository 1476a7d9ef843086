// Checks shared by TriangleMesh::Create and TetMesh::Create, in the order they run: options, size
// limits (before any heavy work), finite coordinates, element indices in range and distinct, and
// the mean edge length that scales the degenerate-element test.
//
// Each check returns absl::InvalidArgumentError naming the element, e.g.
// "vertex 3: coordinate y is NaN" or "face 12: index 40 out of range [0, 30)".
// Internal to core/geometry: other modules use the Create() functions.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/common/eigen_types.h"
#include "core/geometry/mesh_options.h"

namespace contactsim::core::internal {

// 3000001 -> "3,000,001" (messages about limits are read by people).
std::string FormatCount(int64_t count);

// The tolerance must be finite and non-negative, the limits non-negative.
absl::Status CheckMeshOptions(const MeshOptions& options);

// Sizes against options.limits and against the int32 index range. `element_plural` is "faces"
// or "tetrahedra"; `arity` is the number of vertices per element (3 or 4).
absl::Status CheckSizeLimits(int64_t num_vertices, int64_t num_elements, int arity,
                             absl::string_view element_plural, const MeshLimits& limits);

// Every coordinate finite: "vertex 3: coordinate y is NaN".
absl::Status CheckFiniteVertices(const Points3& vertices);

// Row-major element array `indices` (num_elements x arity): every index in [0, num_vertices) and
// no index repeated within an element. `element_name` is "face" or "tet".
absl::Status CheckElementIndices(const int32_t* indices, int64_t num_elements, int arity,
                                 int64_t num_vertices, absl::string_view element_name);

// Mean length [m] over the edges of every element (each element's edges counted once per element,
// so shared edges count once per element that has them): 3 edges per triangle, 6 per tet.
double MeanElementEdgeLength(const Points3& vertices, const int32_t* indices, int64_t num_elements,
                             int arity);

}  // namespace contactsim::core::internal
