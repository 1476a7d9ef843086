#include "core/sim/local_global_pipeline.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/body_utils.h"

namespace contactsim::core {
namespace {

// The obstacles of one step and what each one is in the World.
struct StepObstacles {
  std::vector<HalfSpaceObstacle> half_spaces;
  std::vector<int32_t> plane_ids;  // per half-space
  std::vector<TriangleMeshObstacle> meshes;
  std::vector<SimBody*> mesh_bodies;  // per mesh obstacle
};

bool IsStaticOrKinematic(const Body& body) {
  const auto* rigid = dynamic_cast<const RigidBody*>(&body);
  return rigid != nullptr && rigid->kind() != RigidBodyKind::kDynamic;
}

StepObstacles CollectObstacles(const StepInput& input, double friction_coefficient) {
  StepObstacles out;
  for (const GroundPlane& plane : input.planes) {
    out.half_spaces.push_back({plane.normal, plane.offset_m, friction_coefficient});
    out.plane_ids.push_back(plane.id);
  }
  for (SimBody& sim_body : input.bodies) {
    if (!sim_body.collision.enabled || !IsStaticOrKinematic(*sim_body.body)) continue;
    const auto& rigid = static_cast<const RigidBody&>(*sim_body.body);
    TriangleMeshObstacle mesh;
    mesh.vertices_m = rigid.positions_t0();
    mesh.faces = rigid.surface().faces();
    mesh.velocity_mps = rigid.state().v_WB_m_per_s;
    // Kinematic bodies turn about their frame origin p_WB (mesh_contact.h: first order per step).
    mesh.angular_velocity_radps = rigid.state().w_WB_rad_per_s;
    mesh.rotation_center_m = rigid.state().p_WB_m;
    mesh.friction_coefficient = friction_coefficient;
    out.meshes.push_back(std::move(mesh));
    out.mesh_bodies.push_back(&sim_body);
  }
  return out;
}

int64_t EdgeKey(int32_t a, int32_t b) {
  return (static_cast<int64_t>(std::min(a, b)) << 32) | static_cast<uint32_t>(std::max(a, b));
}

// Edge and triangle ids of a surface by their vertices, for the report's feature ids.
struct SurfaceIndex {
  explicit SurfaceIndex(const TriangleMesh& surface) {
    for (int e = 0; e < surface.num_edges(); ++e) {
      edges[EdgeKey(surface.edges()(e, 0), surface.edges()(e, 1))] = e;
    }
    for (int f = 0; f < surface.faces().rows(); ++f) {
      std::array<int32_t, 3> v = {surface.faces()(f, 0), surface.faces()(f, 1),
                                  surface.faces()(f, 2)};
      std::sort(v.begin(), v.end());
      faces[v] = f;
    }
  }
  int32_t Edge(int32_t a, int32_t b) const {
    const auto it = edges.find(EdgeKey(a, b));
    return it == edges.end() ? -1 : it->second;
  }
  int32_t Face(std::array<int32_t, 3> v) const {
    std::sort(v.begin(), v.end());
    const auto it = faces.find(v);
    return it == faces.end() ? -1 : it->second;
  }
  std::map<int64_t, int32_t> edges;
  std::map<std::array<int32_t, 3>, int32_t> faces;
};

// The reaction -J at the obstacle feature, split equally over its vertices.
absl::Status ApplyReaction(const VertexContact& c, const TriangleMeshObstacle& obstacle,
                           const Vec3& impulse_on_body_ns, Body* obstacle_body) {
  std::vector<int32_t> vertices;
  switch (c.kind) {
    case ContactKind::kVertexTriangle:
      for (int k = 0; k < 3; ++k) vertices.push_back(obstacle.faces(c.feature, k));
      break;
    case ContactKind::kEdgeEdge: {
      const IndexPairs& edges = obstacle_body->surface().edges();
      vertices = {edges(c.feature, 0), edges(c.feature, 1)};
      break;
    }
    case ContactKind::kTriangleVertex:
      vertices = {c.feature};
      break;
    case ContactKind::kHalfSpace:
    case ContactKind::kBodyVertexTriangle:  // between hyperelastic bodies: not in the World yet
    case ContactKind::kBodyEdgeEdge:
      return absl::OkStatus();
  }
  const Vec3 share = -impulse_on_body_ns / static_cast<double>(vertices.size());
  for (int32_t v : vertices) {
    if (absl::Status s = obstacle_body->AddVertexImpulse(v, share); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LocalGlobalPipeline::CheckBody(const Body& body) const {
  if (const auto* hyperelastic = dynamic_cast<const HyperelasticBody*>(&body)) {
    if (hyperelastic->params().time_step_s != settings_.dt_s) {
      return absl::InvalidArgumentError(
          absl::StrCat("body: factored for the time step ", hyperelastic->params().time_step_s,
                       " s; this world steps ", settings_.dt_s, " s"));
    }
    return absl::OkStatus();
  }
  if (IsStaticOrKinematic(body)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      "body: the local_global pipeline steps hyperelastic bodies against static and kinematic "
      "rigid bodies; dynamic rigid bodies, mass-spring cloth and explicit FEM need the penalty "
      "pipeline");
}

absl::Status LocalGlobalPipeline::CheckConstraintOn(const SimBody& /*body*/) const {
  return absl::InvalidArgumentError(
      "the local_global pipeline takes no run-time constraints yet; pin vertices with the "
      "body's pinned vertices when it is created");
}

absl::Status LocalGlobalPipeline::Step(const StepInput& input, StepDiagnostics* diagnostics,
                                       ContactReport* report) {
  const double dt = settings_.dt_s;
  const double mu = settings_.local_global.friction_coefficient;
  StepObstacles obstacles = CollectObstacles(input, mu);
  report->contacts.clear();
  report->body_totals.clear();

  for (SimBody& sim_body : input.bodies) {
    auto* body = dynamic_cast<HyperelasticBody*>(sim_body.body.get());
    if (body == nullptr) continue;
    if (sim_body.collision.enabled) {
      if (absl::Status s = body->SetObstacles(obstacles.half_spaces, obstacles.meshes); !s.ok()) {
        return s;
      }
    } else if (absl::Status s = body->SetObstacles({}, {}); !s.ok()) {
      return s;
    }
    LocalGlobalStepStats stats;
    if (absl::Status s = body->StepImplicit(dt, settings_.gravity_m_per_s2, &stats); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("body ", sim_body.id, ": ", s.message()));
    }
    if (stats.contacts.empty()) continue;
    const SurfaceIndex surface(body->surface());
    const Points3& x_end = body->positions_t0();
    for (size_t j = 0; j < stats.contacts.size(); ++j) {
      const VertexContact& c = stats.contacts[j];
      const double lambda_n = stats.contact_force_n[3 * j];
      if (!(lambda_n > 0.0)) continue;
      const double lambda_t1 = stats.contact_force_n[3 * j + 1];
      const double lambda_t2 = stats.contact_force_n[3 * j + 2];
      const Vec3 normal_impulse = dt * lambda_n * c.normal;
      const Vec3 friction_impulse = dt * (lambda_t1 * c.tangent1 + lambda_t2 * c.tangent2);
      ContactRecord record;
      record.p_WC = ContactPoint(c, x_end);
      // The offset states the obstacle at the step end (mesh_contact.h).
      record.depth_m = std::max(0.0, c.offset_m - c.normal.dot(record.p_WC));
      record.friction_mode = std::hypot(lambda_t1, lambda_t2) < c.friction_coefficient * lambda_n
                                 ? FrictionMode::kStick
                                 : FrictionMode::kSlip;
      if (c.friction_coefficient == 0.0) record.friction_mode = FrictionMode::kNone;
      const int32_t obstacle_body = c.kind == ContactKind::kHalfSpace
                                        ? kStaticEnvironmentBodyId
                                        : obstacles.mesh_bodies[c.obstacle]->id;
      if (c.kind == ContactKind::kTriangleVertex) {
        // A is the obstacle (its vertex), B this body (its triangle): flip the impulses.
        record.body_a = obstacle_body;
        record.feature_a = c.feature;
        record.body_b = sim_body.id;
        record.feature_b = surface.Face({c.vertex, c.extra_vertices[0], c.extra_vertices[1]});
        record.kind = ContactFeatureKind::kVertexFace;
        record.normal_W = -c.normal;
        record.normal_impulse_Ns = -normal_impulse;
        record.friction_impulse_Ns = -friction_impulse;
      } else {
        record.body_a = sim_body.id;
        record.body_b = obstacle_body;
        record.normal_W = c.normal;
        record.normal_impulse_Ns = normal_impulse;
        record.friction_impulse_Ns = friction_impulse;
        record.feature_a = c.vertex;
        if (c.kind == ContactKind::kHalfSpace) {
          record.kind = ContactFeatureKind::kVertexPlane;
          record.feature_b = obstacles.plane_ids[c.obstacle];
        } else if (c.kind == ContactKind::kVertexTriangle) {
          record.kind = ContactFeatureKind::kVertexFace;
          record.feature_b = c.feature;
        } else {
          record.kind = ContactFeatureKind::kEdgeEdge;
          record.feature_a = surface.Edge(c.vertex, c.extra_vertices[0]);
          record.feature_b = c.feature;
        }
      }
      if (c.kind != ContactKind::kHalfSpace) {
        if (absl::Status s =
                ApplyReaction(c, obstacles.meshes[c.obstacle], normal_impulse + friction_impulse,
                              obstacles.mesh_bodies[c.obstacle]->body.get());
            !s.ok()) {
          return s;
        }
      }
      if (record.kind == ContactFeatureKind::kVertexPlane) {
        ++diagnostics->plane_contacts;
      } else {
        ++diagnostics->active_pairs;
      }
      if (record.friction_mode == FrictionMode::kStick) ++diagnostics->stick_contacts;
      if (record.friction_mode == FrictionMode::kSlip) ++diagnostics->slip_contacts;
      diagnostics->max_penetration_depth_m =
          std::max(diagnostics->max_penetration_depth_m, record.depth_m);
      report->contacts.push_back(record);
    }
  }

  for (SimBody& sim_body : input.bodies) {
    if (!IsStaticOrKinematic(*sim_body.body)) continue;
    if (absl::Status s = sim_body.body->Predict(dt, settings_.gravity_m_per_s2); !s.ok()) return s;
    if (absl::Status s = sim_body.body->Correct(dt); !s.ok()) return s;
  }

  return FillBodyTotals(input.bodies, report);
}

}  // namespace contactsim::core
