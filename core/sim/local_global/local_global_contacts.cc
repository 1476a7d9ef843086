#include "core/sim/local_global/local_global_contacts.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/dynamics/rigid_body.h"

namespace contactsim::core {
namespace {

int64_t EdgeKey(int32_t a, int32_t b) {
  return (static_cast<int64_t>(std::min(a, b)) << 32) | static_cast<uint32_t>(std::max(a, b));
}

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
    case ContactKind::kBodyVertexTriangle:  // both bodies are in the solve: nothing to add
    case ContactKind::kBodyEdgeEdge:
      return absl::OkStatus();
  }
  const Vec3 share = -impulse_on_body_ns / static_cast<double>(vertices.size());
  for (int32_t v : vertices) {
    if (absl::Status s = obstacle_body->AddVertexImpulse(v, share); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// The point of a contact between two members: midway between the two weighted points (the
// weights of the first body are positive, those of the second negative).
Vec3 BodyContactPoint(const VertexContact& c, const Points3& x_m) {
  Vec3 on_a = c.weight * x_m.row(c.vertex).transpose();
  Vec3 on_b = Vec3::Zero();
  for (int k = 0; k < kMaxExtraContactVertices; ++k) {
    if (c.extra_vertices[k] < 0 || c.extra_weights[k] == 0.0) continue;
    const Vec3 term = c.extra_weights[k] * x_m.row(c.extra_vertices[k]).transpose();
    if (c.extra_weights[k] > 0.0) {
      on_a += term;
    } else {
      on_b -= term;
    }
  }
  return 0.5 * (on_a + on_b);
}

}  // namespace

bool IsStaticOrKinematic(const Body& body) {
  const auto* rigid = dynamic_cast<const RigidBody*>(&body);
  return rigid != nullptr && rigid->kind() != RigidBodyKind::kDynamic;
}

LocalGlobalObstacles CollectObstacles(const StepInput& input, double friction_coefficient) {
  LocalGlobalObstacles out;
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

SurfaceIndex::SurfaceIndex(const TriangleMesh& surface) {
  for (int e = 0; e < surface.num_edges(); ++e) {
    edges_[EdgeKey(surface.edges()(e, 0), surface.edges()(e, 1))] = e;
  }
  for (int f = 0; f < surface.faces().rows(); ++f) {
    std::array<int32_t, 3> v = {surface.faces()(f, 0), surface.faces()(f, 1),
                                surface.faces()(f, 2)};
    std::sort(v.begin(), v.end());
    faces_[v] = f;
  }
}

int32_t SurfaceIndex::Edge(int32_t a, int32_t b) const {
  const auto it = edges_.find(EdgeKey(a, b));
  return it == edges_.end() ? -1 : it->second;
}

int32_t SurfaceIndex::Face(std::array<int32_t, 3> v) const {
  std::sort(v.begin(), v.end());
  const auto it = faces_.find(v);
  return it == faces_.end() ? -1 : it->second;
}

absl::Status ReportContacts(const LocalGlobalStepStats& stats, const SolverMembers& members,
                            const LocalGlobalObstacles& obstacles, double dt,
                            StepDiagnostics* diagnostics, ContactReport* report) {
  for (size_t j = 0; j < stats.contacts.size(); ++j) {
    const VertexContact& c = stats.contacts[j];
    const double lambda_n = stats.contact_force_n[3 * j];
    if (!(lambda_n > 0.0)) continue;
    const double lambda_t1 = stats.contact_force_n[3 * j + 1];
    const double lambda_t2 = stats.contact_force_n[3 * j + 2];
    const Vec3 normal_impulse = dt * lambda_n * c.normal;
    const Vec3 friction_impulse = dt * (lambda_t1 * c.tangent1 + lambda_t2 * c.tangent2);
    const bool between_members =
        c.kind == ContactKind::kBodyVertexTriangle || c.kind == ContactKind::kBodyEdgeEdge;
    const int a = members.MemberOf(c.vertex);
    ContactRecord record;
    // Obstacle contacts: the offset states the obstacle at the step end (mesh_contact.h);
    // between members the weighted point is the gap vector and the offset 0.
    record.depth_m = std::max(0.0, c.offset_m - c.normal.dot(ContactPoint(c, members.x_end_m)));
    record.p_WC =
        between_members ? BodyContactPoint(c, members.x_end_m) : ContactPoint(c, members.x_end_m);
    record.friction_mode = std::hypot(lambda_t1, lambda_t2) < c.friction_coefficient * lambda_n
                               ? FrictionMode::kStick
                               : FrictionMode::kSlip;
    if (c.friction_coefficient == 0.0) record.friction_mode = FrictionMode::kNone;
    record.body_a = members.ids[a];
    record.normal_W = c.normal;
    record.normal_impulse_Ns = normal_impulse;
    record.friction_impulse_Ns = friction_impulse;
    record.feature_a = members.Local(c.vertex);
    switch (c.kind) {
      case ContactKind::kHalfSpace:
        record.body_b = kStaticEnvironmentBodyId;
        record.kind = ContactFeatureKind::kVertexPlane;
        record.feature_b = obstacles.plane_ids[c.obstacle];
        break;
      case ContactKind::kVertexTriangle:
        record.body_b = obstacles.mesh_bodies[c.obstacle]->id;
        record.kind = ContactFeatureKind::kVertexFace;
        record.feature_b = c.feature;
        break;
      case ContactKind::kEdgeEdge:
        record.body_b = obstacles.mesh_bodies[c.obstacle]->id;
        record.kind = ContactFeatureKind::kEdgeEdge;
        record.feature_a =
            members.surfaces[a].Edge(members.Local(c.vertex), members.Local(c.extra_vertices[0]));
        record.feature_b = c.feature;
        break;
      case ContactKind::kTriangleVertex:
        // A is the obstacle (its vertex), B the member (its triangle): flip the impulses.
        record.body_a = obstacles.mesh_bodies[c.obstacle]->id;
        record.feature_a = c.feature;
        record.body_b = members.ids[a];
        record.feature_b = members.surfaces[a].Face(
            members.LocalFace(c.vertex, c.extra_vertices[0], c.extra_vertices[1]));
        record.kind = ContactFeatureKind::kVertexFace;
        record.normal_W = -c.normal;
        record.normal_impulse_Ns = -normal_impulse;
        record.friction_impulse_Ns = -friction_impulse;
        break;
      case ContactKind::kBodyVertexTriangle: {
        const int b = members.MemberOf(c.extra_vertices[0]);
        record.body_b = members.ids[b];
        record.kind = ContactFeatureKind::kVertexFace;
        record.feature_b = members.surfaces[b].Face(
            members.LocalFace(c.extra_vertices[0], c.extra_vertices[1], c.extra_vertices[2]));
        break;
      }
      case ContactKind::kBodyEdgeEdge: {
        // A's edge (vertex, extra 0), B's edge (extras 1, 2): body_contact.h.
        const int b = members.MemberOf(c.extra_vertices[1]);
        record.body_b = members.ids[b];
        record.kind = ContactFeatureKind::kEdgeEdge;
        record.feature_a =
            members.surfaces[a].Edge(members.Local(c.vertex), members.Local(c.extra_vertices[0]));
        record.feature_b = members.surfaces[b].Edge(members.Local(c.extra_vertices[1]),
                                                    members.Local(c.extra_vertices[2]));
        break;
      }
    }
    if (c.kind != ContactKind::kHalfSpace && !between_members) {
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
  return absl::OkStatus();
}

}  // namespace contactsim::core
