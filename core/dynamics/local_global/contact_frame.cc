#include "core/dynamics/local_global/contact_frame.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

namespace contactsim::core {

void TangentBasis(const Vec3& normal, Vec3* tangent1, Vec3* tangent2) {
  // Cross with the axis least aligned with n: well conditioned for every unit n.
  Eigen::Index axis = 0;
  normal.cwiseAbs().minCoeff(&axis);
  *tangent1 = normal.cross(Vec3::Unit(axis)).normalized();
  *tangent2 = normal.cross(*tangent1);
}

Vec3 ContactPoint(const VertexContact& c, const Points3& x_m) {
  Vec3 p = c.weight * x_m.row(c.vertex).transpose();
  for (int k = 0; k < kMaxExtraContactVertices; ++k) {
    if (c.extra_vertices[k] >= 0 && c.extra_weights[k] != 0.0) {
      p += c.extra_weights[k] * x_m.row(c.extra_vertices[k]).transpose();
    }
  }
  return p;
}

CsrMatrix BuildContactJacobian(const std::vector<VertexContact>& contacts, int32_t num_free) {
  CsrMatrix h;
  const int32_t rows = 3 * static_cast<int32_t>(contacts.size());
  h.rows = rows;
  h.cols = 3 * num_free;
  h.row_offsets.resize(rows + 1);
  h.col_indices.reserve(3 * rows);
  h.values.reserve(3 * rows);
  h.row_offsets[0] = 0;
  for (size_t j = 0; j < contacts.size(); ++j) {
    const VertexContact& c = contacts[j];
    // (free vertex, weight) pairs sorted by free vertex: CSR columns are sorted within a row.
    std::array<std::pair<int32_t, double>, 1 + kMaxExtraContactVertices> terms;
    terms[0] = {c.free_vertex, c.weight};
    for (int k = 0; k < kMaxExtraContactVertices; ++k) {
      terms[1 + k] = {c.extra_vertices[k] >= 0 ? c.extra_free_vertices[k] : -1, c.extra_weights[k]};
    }
    std::sort(terms.begin(), terms.end());
    const Vec3* axes[3] = {&c.normal, &c.tangent1, &c.tangent2};
    for (int r = 0; r < 3; ++r) {
      for (const auto& [free_vertex, weight] : terms) {
        if (free_vertex < 0 || weight == 0.0) continue;
        for (int d = 0; d < 3; ++d) {
          h.col_indices.push_back(3 * free_vertex + d);
          h.values.push_back(weight * (*axes[r])(d));
        }
      }
      h.row_offsets[3 * j + r + 1] = static_cast<int32_t>(h.values.size());
    }
  }
  return h;
}

absl::Status ValidateObstacles(const std::vector<HalfSpaceObstacle>& obstacles) {
  for (size_t i = 0; i < obstacles.size(); ++i) {
    const HalfSpaceObstacle& o = obstacles[i];
    if (!o.normal.allFinite() || std::abs(o.normal.norm() - 1.0) > 1e-9) {
      return absl::InvalidArgumentError(absl::StrCat(
          "obstacles[", i, "].normal: must be a finite unit vector, norm is ", o.normal.norm()));
    }
    if (!std::isfinite(o.offset_m)) {
      return absl::InvalidArgumentError(absl::StrCat("obstacles[", i, "].offset_m: not finite"));
    }
    if (!(std::isfinite(o.friction_coefficient) && o.friction_coefficient >= 0.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("obstacles[", i, "].friction_coefficient: must be finite and >= 0, got ",
                       o.friction_coefficient));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ContactSet> DetectHalfSpaceContacts(const Points3& x_m,
                                                   const std::vector<int32_t>& free_index,
                                                   int32_t num_free,
                                                   const std::vector<HalfSpaceObstacle>& obstacles,
                                                   double proximity_m) {
  if (!(std::isfinite(proximity_m) && proximity_m >= 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("proximity_m: must be finite and >= 0, got ", proximity_m));
  }
  if (static_cast<Eigen::Index>(free_index.size()) != x_m.rows()) {
    return absl::InvalidArgumentError(
        absl::StrCat("free_index: has ", free_index.size(), " entries, expected ", x_m.rows()));
  }
  RETURN_IF_ERROR(ValidateObstacles(obstacles));
  ContactSet set;
  for (int32_t v = 0; v < static_cast<int32_t>(x_m.rows()); ++v) {
    if (free_index[v] < 0) continue;
    const Vec3 p = x_m.row(v).transpose();
    for (int32_t o = 0; o < static_cast<int32_t>(obstacles.size()); ++o) {
      const HalfSpaceObstacle& obstacle = obstacles[o];
      if (obstacle.normal.dot(p) - obstacle.offset_m >= proximity_m) continue;
      VertexContact c;
      c.vertex = v;
      c.free_vertex = free_index[v];
      c.obstacle = o;
      c.normal = obstacle.normal;
      TangentBasis(c.normal, &c.tangent1, &c.tangent2);
      c.offset_m = obstacle.offset_m;
      c.friction_coefficient = obstacle.friction_coefficient;
      set.contacts.push_back(c);
    }
  }
  const int32_t rows = 3 * set.num_contacts();
  set.h.rows = rows;
  set.h.cols = 3 * num_free;
  set.h.row_offsets.resize(rows + 1);
  set.h.col_indices.reserve(3 * rows);
  set.h.values.reserve(3 * rows);
  set.h.row_offsets[0] = 0;
  for (int32_t j = 0; j < set.num_contacts(); ++j) {
    const VertexContact& c = set.contacts[j];
    const Vec3* axes[3] = {&c.normal, &c.tangent1, &c.tangent2};
    for (int r = 0; r < 3; ++r) {
      for (int d = 0; d < 3; ++d) {
        set.h.col_indices.push_back(3 * c.free_vertex + d);
        set.h.values.push_back((*axes[r])(d));
      }
      set.h.row_offsets[3 * j + r + 1] = static_cast<int32_t>(set.h.values.size());
    }
  }
  return set;
}

}  // namespace contactsim::core
