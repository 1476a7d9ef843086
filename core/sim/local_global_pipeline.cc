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
#include "core/sim/hyperelastic_contact_group.h"

namespace contactsim::core {

// The obstacles of one step and what each one is in the World.
struct LocalGlobalObstacles {
  std::vector<HalfSpaceObstacle> half_spaces;
  std::vector<int32_t> plane_ids;  // per half-space
  std::vector<TriangleMeshObstacle> meshes;
  std::vector<SimBody*> mesh_bodies;  // per mesh obstacle
};

namespace {

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

// The hyperelastic bodies of one solver (one body, or a contact group) in its vertex numbering:
// member b owns the vertices [offsets[b], offsets[b + 1]).
struct SolverMembers {
  std::vector<int32_t> ids;
  std::vector<SurfaceIndex> surfaces;
  std::vector<int32_t> offsets = {0};
  Points3 x_end_m;  // all members' positions at the step end

  void Add(int32_t id, const HyperelasticBody& body) {
    ids.push_back(id);
    surfaces.emplace_back(body.surface());
    offsets.push_back(offsets.back() + body.num_vertices());
    Points3 x(x_end_m.rows() + body.num_vertices(), 3);
    x << x_end_m, body.positions_t0();
    x_end_m = std::move(x);
  }
  int MemberOf(int32_t v) const {
    return static_cast<int>(std::upper_bound(offsets.begin(), offsets.end(), v) - offsets.begin()) -
           1;
  }
  int32_t Local(int32_t v) const { return v - offsets[MemberOf(v)]; }
  std::array<int32_t, 3> LocalFace(int32_t a, int32_t b, int32_t c) const {
    return {Local(a), Local(b), Local(c)};
  }
};

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

// Appends the contacts of one solve with a positive normal force to the report, counts them in
// the diagnostics and gives their reactions to the obstacle bodies.
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

}  // namespace

absl::Status LocalGlobalPipeline::CheckBody(const Body& body) const {
  if (const auto* hyperelastic = dynamic_cast<const HyperelasticBody*>(&body)) {
    if (hyperelastic->params().time_step_s != settings_.dt_s) {
      return absl::InvalidArgumentError(
          absl::StrCat("body: factored for the time step ", hyperelastic->params().time_step_s,
                       " s; this world steps ", settings_.dt_s, " s"));
    }
    // Touching bodies are solved as one system, with the World's settings.
    const HyperelasticBodyParams& params = hyperelastic->params();
    const LocalGlobalSettings& world = settings_.local_global;
    if (params.iterations != world.iterations) {
      return absl::InvalidArgumentError(absl::StrCat("body.iterations: ", params.iterations,
                                                     " local-global iterations; this world runs ",
                                                     world.iterations));
    }
    if (params.contact_proximity_m != world.contact_proximity_m) {
      return absl::InvalidArgumentError(
          absl::StrCat("body.contact_proximity_m: ", params.contact_proximity_m,
                       " m; this world detects contacts within ", world.contact_proximity_m, " m"));
    }
    if (params.contact.cr_iterations != world.cr_iterations) {
      return absl::InvalidArgumentError(
          absl::StrCat("body.contact.cr_iterations: ", params.contact.cr_iterations,
                       "; this world runs ", world.cr_iterations, " CR iterations"));
    }
    return absl::OkStatus();
  }
  if (IsStaticOrKinematic(body)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      "body: the local_global pipeline steps hyperelastic bodies against static and kinematic "
      "rigid bodies; dynamic rigid bodies, mass-spring cloth and explicit FEM need the penalty "
      "pipeline");
}

absl::Status LocalGlobalPipeline::CheckConstraint(const ConstraintSpec& spec, const SimBody& body,
                                                  const SimBody* target) const {
  const std::string kind = ConstraintKindName(spec.kind);
  const auto* hyperelastic = dynamic_cast<const HyperelasticBody*>(body.body.get());
  if (hyperelastic == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind, ".body_id: body ", body.id,
                     " is not hyperelastic; the local_global pipeline constrains the vertices of "
                     "hyperelastic bodies"));
  }
  if (spec.kind == ConstraintKind::kAttachment && target != nullptr) {
    const auto* rigid = dynamic_cast<const RigidBody*>(target->body.get());
    if (rigid != nullptr && rigid->kind() != RigidBodyKind::kStatic) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attachment.target_body_id: body ", target->id,
          " is kinematic; the local_global pipeline attaches vertices to static bodies only "
          "(the work of a moving driver is not accounted yet)"));
    }
  }
  // The solver needs a free vertex.
  int held = 0;
  for (int i = 0; i < hyperelastic->num_vertices(); ++i) held += hyperelastic->is_pinned(i);
  for (int32_t v : spec.vertices) {
    if (v >= 0 && v < hyperelastic->num_vertices() && !hyperelastic->is_pinned(v)) ++held;
  }
  if (held >= hyperelastic->num_vertices()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind, ".vertices: would hold every vertex of body ", body.id,
                     "; the local_global solver needs at least one free vertex"));
  }
  return absl::OkStatus();
}

absl::Status LocalGlobalPipeline::Step(const StepInput& input, StepDiagnostics* diagnostics,
                                       ContactReport* report) {
  const double dt = settings_.dt_s;
  const double mu = settings_.local_global.friction_coefficient;
  LocalGlobalObstacles obstacles = CollectObstacles(input, mu);
  report->contacts.clear();
  report->body_totals.clear();

  // The World's position targets on each hyperelastic body, in constraint id order.
  for (SimBody& sim_body : input.bodies) {
    auto* body = dynamic_cast<HyperelasticBody*>(sim_body.body.get());
    if (body == nullptr) continue;
    std::vector<VertexTargets> targets;
    if (input.constraints != nullptr) {
      for (const Constraint& c : input.constraints->constraints()) {
        if (c.spec.kind != ConstraintKind::kPositionTarget || c.spec.body_id != sim_body.id) {
          continue;
        }
        targets.push_back({c.spec.vertices, c.spec.targets_m, c.spec.stiffness_n_per_m});
      }
    }
    body->SetWorldTargets(std::move(targets));
  }

  // Colliding hyperelastic bodies: two or more are one contact group (one system).
  std::vector<SimBody*> colliding;
  for (SimBody& sim_body : input.bodies) {
    if (sim_body.collision.enabled && dynamic_cast<HyperelasticBody*>(sim_body.body.get())) {
      colliding.push_back(&sim_body);
    }
  }
  const bool grouped = colliding.size() >= 2;
  if (grouped) {
    if (absl::Status s = StepGroup(colliding, obstacles, diagnostics, report); !s.ok()) return s;
  } else {
    group_.reset();
    group_memory_ = {};
  }

  for (SimBody& sim_body : input.bodies) {
    auto* body = dynamic_cast<HyperelasticBody*>(sim_body.body.get());
    if (body == nullptr || (grouped && sim_body.collision.enabled)) continue;
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
    SolverMembers members;
    members.Add(sim_body.id, *body);
    if (absl::Status s = ReportContacts(stats, members, obstacles, dt, diagnostics, report);
        !s.ok()) {
      return s;
    }
  }

  for (SimBody& sim_body : input.bodies) {
    if (!IsStaticOrKinematic(*sim_body.body)) continue;
    if (absl::Status s = sim_body.body->Predict(dt, settings_.gravity_m_per_s2); !s.ok()) return s;
    if (absl::Status s = sim_body.body->Correct(dt); !s.ok()) return s;
  }

  return FillBodyTotals(input.bodies, report);
}

absl::Status LocalGlobalPipeline::StepGroup(const std::vector<SimBody*>& colliding,
                                            const LocalGlobalObstacles& obstacles,
                                            StepDiagnostics* diagnostics, ContactReport* report) {
  if (group_ == nullptr || !group_->Matches(colliding)) {
    group_.reset();
    absl::StatusOr<std::unique_ptr<HyperelasticContactGroup>> group =
        HyperelasticContactGroup::Create(colliding, settings_.local_global.friction_coefficient);
    if (!group.ok()) return group.status();
    if (absl::Status s = (*group)->Restore(group_memory_); !s.ok()) return s;
    group_ = *std::move(group);
  }
  LocalGlobalStepStats stats;
  if (absl::Status s =
          group_->Step(settings_.gravity_m_per_s2, obstacles.half_spaces, obstacles.meshes, &stats);
      !s.ok()) {
    return s;
  }
  group_memory_ = group_->Memory();
  SolverMembers members;
  for (int b = 0; b < group_->num_members(); ++b) {
    members.Add(group_->member_id(b), group_->member(b));
  }
  return ReportContacts(stats, members, obstacles, settings_.dt_s, diagnostics, report);
}

std::unique_ptr<Pipeline> LocalGlobalPipeline::Clone() const {
  auto copy = std::make_unique<LocalGlobalPipeline>(settings_);
  copy->group_memory_ = group_memory_;  // the group itself is rebuilt (the same bits) when stepped
  return copy;
}

void LocalGlobalPipeline::ForgetBody(int32_t /*body_id*/) {
  group_.reset();
  group_memory_ = {};
}

void LocalGlobalPipeline::Clear() {
  group_.reset();
  group_memory_ = {};
}

absl::Status LocalGlobalPipeline::RestoreGroupMemory(GroupContactMemory memory) {
  if (memory.lambda_n.size() != 3 * static_cast<Eigen::Index>(memory.contacts.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("group_contacts.lambda_n: has ", memory.lambda_n.size(),
                     " values, expected 3 per contact (", memory.contacts.size(), " contacts)"));
  }
  if (!memory.lambda_n.allFinite()) {
    return absl::InvalidArgumentError("group_contacts.lambda_n: must be finite");
  }
  group_.reset();
  group_memory_ = std::move(memory);
  return absl::OkStatus();
}

}  // namespace contactsim::core
