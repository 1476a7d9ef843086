#include "core/sim/rigid_lcp/rigid_lcp_pipeline.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/rigid_body.h"
#include "core/dynamics/rigid_lcp/polytope_stepper.h"
#include "core/geometry/mass_properties.h"
#include "core/geometry/polytope_union_mesh.h"
#include "core/sim/body_utils.h"

namespace contactsim::core {
namespace {

// A piece counts as convex when its volume is its hull's to this relative tolerance: a closed
// surface's volume never exceeds its hull's, rounding in the two divergence-theorem sums is
// ~1e-15, and the smallest dent worth refusing (a 1 mm dimple in a 10 cm box) is ~1e-5 of it.
constexpr double kConvexVolumeTolerance = 1e-9;

// The body's collision shape: each connected component of its mesh is one convex piece (a
// convex mesh is one piece; a body given as several hulls is their union).
absl::StatusOr<PolytopeUnion> ShapeOfRigidBody(const RigidBody& rigid) {
  absl::StatusOr<MassProperties> mesh_mass = ComputeMassProperties(rigid.surface(), 1.0);
  if (!mesh_mass.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("body.mesh: the rigid_lcp pipeline needs closed convex pieces: ",
                     mesh_mass.status().message()));
  }
  absl::StatusOr<PolytopeUnion> shape =
      UnionOfConvexComponents(rigid.surface(), rigid.body_vertices(), kConvexVolumeTolerance);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "body.mesh: the rigid_lcp pipeline collides convex pieces (each connected part of the "
        "mesh convex; a non-convex part is built from several, not overlapping): ",
        shape.status().message()));
  }
  return shape;
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
  return ShapeOfRigidBody(*rigid).status();
}

absl::Status RigidLcpPipeline::CheckConstraint(const ConstraintSpec& spec, const SimBody& /*body*/,
                                               const SimBody* /*target*/) const {
  return absl::InvalidArgumentError(
      absl::StrCat(ConstraintKindName(spec.kind),
                   ".body_id: the rigid_lcp pipeline takes no World constraints yet (pins, "
                   "attachments and position targets hold deformable vertices)"));
}

namespace {

PolytopeStepSettings StepSettingsOf(const WorldSettings& world) {
  PolytopeStepSettings settings;
  settings.dt_s = world.dt_s;
  settings.gravity_m_per_s2 = world.gravity_m_per_s2;
  settings.model = world.rigid_lcp.contact_model == RigidContactModel::kStandard
                       ? PolytopeContactModel::kStandard
                       : PolytopeContactModel::kPeg;
  settings.friction_coefficient = world.rigid_lcp.friction_coefficient;
  settings.friction_directions = world.rigid_lcp.friction_directions;
  settings.contact_distance_floor_m = world.rigid_lcp.contact_distance_floor_m;
  settings.solver.acceptance_tolerance = world.rigid_lcp.lcp_tolerance;
  settings.solver.lemke.residual_tolerance = world.rigid_lcp.lcp_tolerance;
  settings.max_lcp_unknowns = RigidLcpPipeline::kMaxLcpUnknowns;
  settings.projection_passes = world.rigid_lcp.projection_passes;
  settings.direct_max_unknowns = world.rigid_lcp.direct_max_unknowns;
  settings.iterative.max_sweeps = world.rigid_lcp.iterative_max_sweeps;
  settings.iterative_tolerance_m = world.rigid_lcp.iterative_tolerance_m;
  settings.torsional_friction_radius_m = world.rigid_lcp.torsional_friction_radius_m;
  return settings;
}

ContactRecord RecordOf(const PolytopeContactResult& contact, std::span<const SimBody> bodies) {
  const PotentialContact& primary = contact.geometry.primary;
  ContactRecord record;
  // Body A is the primary's body1 (its vertex, or its edge): it receives -(lambda n + f).
  record.body_a = bodies[contact.body1].id;
  record.body_b = contact.body2 >= 0 ? bodies[contact.body2].id : kStaticEnvironmentBodyId;
  if (contact.body2 < 0) {
    record.kind = ContactFeatureKind::kVertexPlane;
    record.feature_b = contact.plane_id;
  } else {
    record.kind = primary.kind == PotentialContactKind::kEdgeEdge ? ContactFeatureKind::kEdgeEdge
                                                                  : ContactFeatureKind::kVertexFace;
    record.feature_b = primary.feature2;
  }
  record.feature_a = primary.feature1;
  record.p_WC = contact.point_W;
  record.normal_W = -primary.normal_W;  // from B towards A
  record.depth_m = std::max(-primary.gap_m, 0.0);
  record.normal_impulse_n_s = -contact.normal_impulse_n_s * primary.normal_W;
  record.friction_impulse_n_s = -contact.friction_impulse_n_s;
  record.torsional_impulse_n_m_s = -contact.torsional_impulse_n_m_s * primary.normal_W;
  if (contact.friction_impulse_n_s.squaredNorm() > 0.0) {
    record.friction_mode =
        contact.sliding_speed_m_per_s > 0.0 ? FrictionMode::kSlip : FrictionMode::kStick;
  }
  return record;
}

}  // namespace

absl::Status RigidLcpPipeline::Step(const StepInput& input, StepDiagnostics* diagnostics,
                                    ContactReport* report) {
  std::vector<PolytopeBodyInput> bodies(input.bodies.size());
  std::map<int32_t, int> index_of_body;  // only with robots: a step without them needs none
  for (size_t i = 0; i < input.bodies.size() && !input.robots.empty(); ++i) {
    index_of_body.emplace(input.bodies[i].id, static_cast<int>(i));
  }
  // A robot's links collide as the model's polytopes (a union for several collision elements),
  // not as their mesh's hull, and not with each other (one collision group per robot).
  std::vector<const PolytopeUnion*> link_shapes(input.bodies.size(), nullptr);
  std::vector<int> link_group(input.bodies.size(), -1);
  std::vector<JointInput> joints;
  std::vector<size_t> first_joint;
  for (const WorldRobot& robot : input.robots) {
    std::vector<int> body_of_link;
    for (size_t l = 0; l < robot.link_body_ids.size(); ++l) {
      const auto it = index_of_body.find(robot.link_body_ids[l]);
      if (it == index_of_body.end()) {
        return absl::InternalError(absl::StrCat("robot ", robot.id, ": link body ",
                                                robot.link_body_ids[l], " is missing"));
      }
      const RobotLink& link = robot.model->links[l];
      link_shapes[it->second] = link.collision ? &*link.collision : nullptr;
      link_group[it->second] = robot.id;
      body_of_link.push_back(it->second);
    }
    first_joint.push_back(joints.size());
    for (JointInput joint : robot.joints) {  // relative to the first link: to body indices
      if (joint.parent >= 0) joint.parent = body_of_link[joint.parent];
      joint.child = body_of_link[joint.child];
      joints.push_back(joint);
    }
  }
  // The shapes the step reads stay alive in `held` until it returns.
  std::vector<std::shared_ptr<const PolytopeUnion>> held(input.bodies.size());
  for (size_t i = 0; i < input.bodies.size(); ++i) {
    const SimBody& sim = input.bodies[i];
    const auto* rigid = dynamic_cast<const RigidBody*>(sim.body.get());
    if (rigid == nullptr) {
      return absl::InternalError(absl::StrCat("body ", sim.id, " is not rigid"));
    }
    PolytopeBodyInput& body = bodies[i];
    if (link_group[i] >= 0) {
      body.shape = link_shapes[i];
      body.collision_group = link_group[i];
    } else {
      ASSIGN_OR_RETURN(held[i], ShapeOf(sim));
      body.shape = held[i].get();
    }
    body.kind = rigid->kind();
    body.mass_kg = rigid->mass_kg();
    body.inertia_body_kg_m2 = rigid->inertia_body_kg_m2();
    body.state = rigid->state();
    body.force_n = rigid->pending_force_n();
    body.torque_n_m = rigid->pending_torque_n_m();
    body.collides = sim.collision.enabled && body.shape != nullptr;
  }
  std::vector<PolytopePlaneInput> planes;
  for (const GroundPlane& plane : input.planes) {
    planes.push_back({plane.id, plane.normal, plane.offset_m});
  }
  PolytopeStepResult result;
  PolytopeStepSettings step_settings = StepSettingsOf(settings_);
  if (input.interrupt != nullptr) step_settings.interrupt = *input.interrupt;
  RETURN_IF_ERROR(StepPolytopes(bodies, planes, joints, step_settings, &result, &warm_start_));
  warm_start_ = std::move(result.warm_start);
  for (size_t r = 0; r < input.robots.size(); ++r) {
    WorldRobot& robot = input.robots[r];
    robot.last_joint_states.assign(result.joints.begin() + first_joint[r],
                                   result.joints.begin() + first_joint[r] + robot.joints.size());
    robot.motor_work_last_step_j = 0.0;
    for (const JointStepResult& joint : robot.last_joint_states) {
      robot.motor_work_last_step_j += joint.applied_effort * joint.velocity * settings_.dt_s;
    }
  }

  for (size_t i = 0; i < input.bodies.size(); ++i) {
    auto* rigid = static_cast<RigidBody*>(input.bodies[i].body.get());
    RETURN_IF_ERROR(rigid->FinishExternalStep(settings_.dt_s, result.next[i],
                                              result.received_impulse_n_s[i],
                                              result.received_angular_impulse_n_m_s[i]));
  }
  report->contacts.clear();
  for (const PolytopeContactResult& contact : result.contacts) {
    const bool carries = contact.normal_impulse_n_s > 0.0 ||
                         contact.friction_impulse_n_s.squaredNorm() > 0.0 ||
                         contact.torsional_impulse_n_m_s != 0.0;
    if (!carries) continue;
    const ContactRecord record = RecordOf(contact, input.bodies);
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
  RETURN_IF_ERROR(FillBodyTotals(input.bodies, report));

  RigidLcpStepStats& stats = diagnostics->rigid_lcp;
  stats.unilateral_constraints = result.stats.unilateral;
  stats.intercontact_constraints = result.stats.intercontact;
  stats.lcp_size = result.stats.largest_lcp;
  stats.solver_path =
      result.stats.largest_lcp > 0 ? std::string(LcpSolverPathName(result.stats.largest_path)) : "";
  stats.solver_attempts = result.stats.attempts;
  stats.pivots = result.stats.pivots;
  stats.iterations = result.stats.iterations;
  stats.residual = result.stats.max_residual;
  stats.iterative_islands = result.stats.iterative_islands;
  stats.iterative_fallbacks = result.stats.iterative_fallbacks;
  stats.velocity_residual_m_per_s = result.stats.max_velocity_residual_m_per_s;
  return absl::OkStatus();
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
  ASSIGN_OR_RETURN(PolytopeUnion shape, ShapeOfRigidBody(*rigid));
  auto shared = std::make_shared<const PolytopeUnion>(std::move(shape));
  shapes_.emplace(body.id, shared);
  return shared;
}

}  // namespace contactsim::core
