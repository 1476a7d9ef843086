#include "core/dynamics/local_global/mesh_contact.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dynamics/local_global/mesh_contact_kinds.h"

namespace contactsim::core {

MeshContactDetector::~MeshContactDetector() = default;

absl::StatusOr<std::unique_ptr<MeshContactDetector>> MeshContactDetector::Create(
    const TriangleMesh& body_surface, const std::vector<TriangleMeshObstacle>& obstacles,
    BodySurfaceKind body_kind) {
  auto detector = std::unique_ptr<MeshContactDetector>(new MeshContactDetector());
  for (size_t i = 0; i < obstacles.size(); ++i) {
    auto features =
        mesh_contact::BuildObstacleFeatures(obstacles[i], absl::StrCat("mesh_obstacles[", i, "]"));
    if (!features.ok()) return features.status();
    detector->obstacles_.push_back(*std::move(features));
  }
  detector->body_ = mesh_contact::BodySurfacePrimitivesOf(body_surface, body_kind);
  return detector;
}

absl::Status MeshContactDetector::Detect(const Points3& x_m, const std::vector<int32_t>& free_index,
                                         double proximity_m, double elapsed_s, double time_step_s,
                                         std::vector<VertexContact>* contacts) {
  if (!(std::isfinite(proximity_m) && proximity_m >= 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("proximity_m: must be finite and >= 0, got ", proximity_m));
  }
  if (static_cast<Eigen::Index>(free_index.size()) != x_m.rows()) {
    return absl::InvalidArgumentError(
        absl::StrCat("free_index: has ", free_index.size(), " entries, expected ", x_m.rows()));
  }
  if (obstacles_.empty()) return absl::OkStatus();
  mesh_contact::RefitBodyTrees(x_m, proximity_m, &body_);

  std::vector<VertexContact> found;
  for (int32_t k = 0; k < static_cast<int32_t>(obstacles_.size()); ++k) {
    const mesh_contact::PosedObstacle posed =
        mesh_contact::PoseObstacle(k, elapsed_s, time_step_s, proximity_m, &obstacles_[k]);
    mesh_contact::AppendVertexTriangleContacts(body_, x_m, free_index, posed, &found);
    mesh_contact::AppendEdgeEdgeContacts(body_, x_m, free_index, posed, &found);
    mesh_contact::AppendTriangleVertexContacts(body_, x_m, free_index, posed, &found);
  }
  auto key = [](const VertexContact& c) {
    return std::make_tuple(static_cast<int>(c.kind), c.vertex, c.extra_vertices[0],
                           c.extra_vertices[1], c.obstacle, c.feature);
  };
  std::stable_sort(found.begin(), found.end(),
                   [&](const VertexContact& a, const VertexContact& b) { return key(a) < key(b); });
  contacts->insert(contacts->end(), found.begin(), found.end());
  return absl::OkStatus();
}

}  // namespace contactsim::core
