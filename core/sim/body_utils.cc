#include "core/sim/body_utils.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/corotational_fem.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/mass_spring_cloth.h"
#include "core/dynamics/particle_body.h"
#include "core/dynamics/rigid_body.h"

namespace contactsim::core {

Vec3 BodyOriginOf(const Body& body) {
  if (const auto* rigid = dynamic_cast<const RigidBody*>(&body)) return rigid->state().p_WB_m;
  const Points3& x = body.positions_t0();
  if (x.rows() == 0) return Vec3::Zero();
  if (const auto* particles = dynamic_cast<const ParticleBody*>(&body)) {
    Vec3 weighted = Vec3::Zero();
    double mass = 0.0;
    for (int i = 0; i < body.num_vertices(); ++i) {
      if (particles->is_pinned(i)) continue;
      weighted += particles->masses()[i] * x.row(i).transpose();
      mass += particles->masses()[i];
    }
    if (mass > 0.0) return weighted / mass;
  }
  return x.colwise().mean().transpose();
}

std::vector<int32_t> SurfaceVertices(const Body& body) {
  const IndexTriples& faces = body.surface().faces();
  std::vector<int32_t> vertices(faces.data(), faces.data() + faces.size());
  std::sort(vertices.begin(), vertices.end());
  vertices.erase(std::unique(vertices.begin(), vertices.end()), vertices.end());
  return vertices;
}

bool IsImmovable(const Body& body) {
  for (int i = 0; i < body.num_vertices(); ++i) {
    if (body.InverseMass(i) != 0.0) return false;
  }
  return true;
}

absl::Status FillBodyTotals(std::span<const SimBody> bodies, ContactReport* report) {
  std::vector<BodyOrigin> origins;
  origins.reserve(bodies.size());
  for (const SimBody& sim_body : bodies) {
    origins.push_back(BodyOrigin{sim_body.id, BodyOriginOf(*sim_body.body)});
  }
  ASSIGN_OR_RETURN(std::vector<BodyContactTotals> totals,
                   AccumulateBodyTotals(report->contacts, origins));
  report->body_totals = std::move(totals);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Body>> CloneBody(const Body& body,
                                                const std::shared_ptr<Backend>& backend) {
  if (const auto* b = dynamic_cast<const RigidBody*>(&body)) return std::make_unique<RigidBody>(*b);
  if (const auto* b = dynamic_cast<const MassSpringCloth*>(&body)) {
    return std::make_unique<MassSpringCloth>(*b);
  }
  if (const auto* b = dynamic_cast<const CorotationalFem*>(&body)) {
    return std::make_unique<CorotationalFem>(*b);
  }
  if (const auto* b = dynamic_cast<const HyperelasticBody*>(&body)) {
    ASSIGN_OR_RETURN(std::unique_ptr<HyperelasticBody> copy, b->Clone(backend));
    return std::unique_ptr<Body>(std::move(copy));
  }
  return absl::UnimplementedError(absl::StrCat("CloneBody: body type ",
                                               static_cast<int>(body.type()),
                                               " has no copy (not a RigidBody, MassSpringCloth or "
                                               "CorotationalFem)"));
}

void ReleaseStepOnlyMemory(Body& body) {
  if (auto* b = dynamic_cast<HyperelasticBody*>(&body)) b->ReleaseSolverFactors();
}

absl::Status MoveBodyToBackend(Body& body, const std::shared_ptr<Backend>& backend) {
  if (auto* b = dynamic_cast<HyperelasticBody*>(&body)) return b->MoveToBackend(backend);
  return absl::OkStatus();
}

}  // namespace contactsim::core
