#include "core/sim/rigid_lcp/rigid_lcp_pipeline.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/mass_properties.h"
#include "core/geometry/polytope_hull.h"
#include "core/geometry/polytope_mass_properties.h"

namespace contactsim::core {
namespace {

// A mesh counts as convex when its volume is its hull's to this relative tolerance: a closed
// mesh's volume never exceeds its hull's, rounding in the two divergence-theorem sums is ~1e-15,
// and the smallest dent worth refusing (a 1 mm dimple in a 10 cm box) is ~1e-5 of the volume.
constexpr double kConvexVolumeTolerance = 1e-9;

absl::StatusOr<ConvexPolytope> HullOfRigidBody(const RigidBody& rigid) {
  absl::StatusOr<MassProperties> mesh_mass = ComputeMassProperties(rigid.surface(), 1.0);
  if (!mesh_mass.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("body.mesh: the rigid_lcp pipeline needs a closed convex mesh: ",
                     mesh_mass.status().message()));
  }
  absl::StatusOr<ConvexPolytope> hull = ConvexHull(rigid.body_vertices());
  if (!hull.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("body.mesh: no convex polytope: ", hull.status().message()));
  }
  ASSIGN_OR_RETURN(const MassProperties hull_mass, ComputeMassProperties(*hull, 1.0));
  const double gap = hull_mass.volume_m3 - mesh_mass->volume_m3;
  if (!(std::abs(gap) <= kConvexVolumeTolerance * hull_mass.volume_m3)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "body: the rigid_lcp pipeline collides convex polytopes, and this mesh is not convex "
        "(volume ",
        mesh_mass->volume_m3, " m^3, its convex hull's ", hull_mass.volume_m3,
        " m^3); build a non-convex part from several convex bodies"));
  }
  return std::move(*hull);
}

}  // namespace

RigidLcpPipeline::RigidLcpPipeline(const WorldSettings& settings) : settings_(settings) {}

absl::Status RigidLcpPipeline::CheckBody(const Body& body) const {
  const auto* rigid = dynamic_cast<const RigidBody*>(&body);
  if (rigid == nullptr) {
    return absl::InvalidArgumentError(
        "body: the rigid_lcp pipeline steps rigid bodies only (use the penalty pipeline for cloth "
        "and FEM, local_global for hyperelastic solids)");
  }
  return HullOfRigidBody(*rigid).status();
}

absl::Status RigidLcpPipeline::CheckConstraint(const ConstraintSpec& spec, const SimBody& /*body*/,
                                               const SimBody* /*target*/) const {
  return absl::InvalidArgumentError(
      absl::StrCat(ConstraintKindName(spec.kind),
                   ".body_id: the rigid_lcp pipeline takes no World constraints yet (pins, "
                   "attachments and position targets hold deformable vertices)"));
}

std::unique_ptr<Pipeline> RigidLcpPipeline::Clone() const {
  return std::make_unique<RigidLcpPipeline>(*this);
}

absl::StatusOr<std::shared_ptr<const PolytopeUnion>> RigidLcpPipeline::ShapeOf(
    const SimBody& body) {
  if (auto it = shapes_.find(body.id); it != shapes_.end()) return it->second;
  const auto* rigid = dynamic_cast<const RigidBody*>(body.body.get());
  if (rigid == nullptr) {
    return absl::InternalError(absl::StrCat("body ", body.id, " is not rigid"));
  }
  ASSIGN_OR_RETURN(ConvexPolytope hull, HullOfRigidBody(*rigid));
  std::vector<ConvexPolytope> pieces;
  pieces.push_back(std::move(hull));
  ASSIGN_OR_RETURN(PolytopeUnion shape, PolytopeUnion::Create(std::move(pieces)));
  auto shared = std::make_shared<const PolytopeUnion>(std::move(shape));
  shapes_.emplace(body.id, shared);
  return shared;
}

}  // namespace contactsim::core
