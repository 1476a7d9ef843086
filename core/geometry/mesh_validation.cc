#include "core/geometry/mesh_validation.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"

namespace contactsim::core::internal {

std::string FormatCount(int64_t count) {
  std::string digits =
      std::to_string(count < 0 ? -static_cast<uint64_t>(count) : static_cast<uint64_t>(count));
  std::string out;
  out.reserve(digits.size() + digits.size() / 3 + 1);
  if (count < 0) out.push_back('-');
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

absl::Status CheckMeshOptions(const MeshOptions& options) {
  const double tolerance = options.degenerate_relative_tolerance;
  if (!std::isfinite(tolerance) || tolerance < 0.0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "options.degenerate_relative_tolerance: must be finite and >= 0, got ", tolerance));
  }
  if (options.limits.max_vertices < 0 || options.limits.max_elements < 0) {
    return absl::InvalidArgumentError("options.limits: limits must be non-negative");
  }
  return absl::OkStatus();
}

absl::Status CheckSizeLimits(int64_t num_vertices, int64_t num_elements, int arity,
                             absl::string_view element_plural, const MeshLimits& limits) {
  if (num_vertices > limits.max_vertices) {
    return absl::InvalidArgumentError(absl::StrCat(FormatCount(num_vertices),
                                                   " vertices exceed the limit of ",
                                                   FormatCount(limits.max_vertices)));
  }
  if (num_elements > limits.max_elements) {
    return absl::InvalidArgumentError(absl::StrCat(FormatCount(num_elements), " ", element_plural,
                                                   " exceed the limit of ",
                                                   FormatCount(limits.max_elements)));
  }
  // Adjacency stores element-corner ids (arity * element + corner) and vertex ids in int32, so
  // raised limits still cannot pass this hard bound.
  constexpr int64_t kIndexMax = std::numeric_limits<int32_t>::max();
  if (num_vertices > kIndexMax) {
    return absl::InvalidArgumentError(
        absl::StrCat(FormatCount(num_vertices), " vertices exceed the int32 index range"));
  }
  if (num_elements > kIndexMax / arity) {
    return absl::InvalidArgumentError(absl::StrCat(FormatCount(num_elements), " ", element_plural,
                                                   " exceed the hard limit of ",
                                                   FormatCount(kIndexMax / arity)));
  }
  return absl::OkStatus();
}

absl::Status CheckFiniteVertices(const Points3& vertices) {
  static constexpr char kAxis[3] = {'x', 'y', 'z'};
  for (Eigen::Index v = 0; v < vertices.rows(); ++v) {
    for (int c = 0; c < 3; ++c) {
      const double x = vertices(v, c);
      if (std::isfinite(x)) continue;
      const char* what = std::isnan(x) ? "NaN" : (x > 0 ? "+Inf" : "-Inf");
      return absl::InvalidArgumentError(absl::StrCat(
          "vertex ", v, ": coordinate ", absl::string_view(&kAxis[c], 1), " is ", what));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckElementIndices(const int32_t* indices, int64_t num_elements, int arity,
                                 int64_t num_vertices, absl::string_view element_name) {
  for (int64_t e = 0; e < num_elements; ++e) {
    const int32_t* element = indices + e * arity;
    for (int i = 0; i < arity; ++i) {
      if (element[i] < 0 || element[i] >= num_vertices) {
        return absl::InvalidArgumentError(absl::StrCat(element_name, " ", e, ": index ", element[i],
                                                       " out of range [0, ", num_vertices, ")"));
      }
    }
    for (int i = 0; i < arity; ++i) {
      for (int j = i + 1; j < arity; ++j) {
        if (element[i] == element[j]) {
          return absl::InvalidArgumentError(absl::StrCat(element_name, " ", e, ": vertex index ",
                                                         element[i], " appears more than once"));
        }
      }
    }
  }
  return absl::OkStatus();
}

double MeanElementEdgeLength(const Points3& vertices, const int32_t* indices, int64_t num_elements,
                             int arity) {
  if (num_elements == 0) return 0.0;
  double sum = 0.0;
  int64_t count = 0;
  for (int64_t e = 0; e < num_elements; ++e) {
    const int32_t* element = indices + e * arity;
    // Every pair of corners is an edge: 3 for a triangle, 6 for a tet.
    for (int i = 0; i < arity; ++i) {
      for (int j = i + 1; j < arity; ++j) {
        sum += (vertices.row(element[i]) - vertices.row(element[j])).norm();
        ++count;
      }
    }
  }
  return sum / static_cast<double>(count);
}

}  // namespace contactsim::core::internal
