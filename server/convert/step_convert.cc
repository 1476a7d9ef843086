#include "server/convert/step_convert.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "server/convert/body_convert.h"
#include "server/convert/constraint_convert.h"
#include "server/convert/robot_convert.h"
#include "server/convert/value_convert.h"

namespace contactsim::server {

absl::StatusOr<core::StepControls> StepControlsFromProto(const v1::StepControls& message,
                                                         int max_name_bytes) {
  core::StepControls controls;
  for (int i = 0; i < message.bodies_size(); ++i) {
    const v1::BodyControl& in = message.bodies(i);
    const std::string field = absl::StrCat("controls.bodies[", i, "]");
    core::BodyControlInput control;
    control.index = i;
    control.body_id = in.body_id();
    if (in.has_force_n()) {
      ASSIGN_OR_RETURN(control.force_n,
                       FiniteVec3FromProto(in.force_n(), absl::StrCat(field, ".force_n")));
    }
    if (in.has_torque_n_m()) {
      ASSIGN_OR_RETURN(control.torque_n_m,
                       FiniteVec3FromProto(in.torque_n_m(), absl::StrCat(field, ".torque_n_m")));
    }
    if (in.has_kinematic_target()) {
      core::KinematicTarget target;
      ASSIGN_OR_RETURN(target.p_WB_m,
                       FiniteVec3FromProto(in.kinematic_target().position_m(),
                                           absl::StrCat(field, ".kinematic_target.position_m")));
      if (in.kinematic_target().has_orientation()) {
        ASSIGN_OR_RETURN(target.q_WB,
                         UnitQuatFromProto(in.kinematic_target().orientation(),
                                           absl::StrCat(field, ".kinematic_target.orientation")));
      }
      control.kinematic_target = target;
    }
    if (in.has_kinematic_linear_velocity_m_per_s()) {
      ASSIGN_OR_RETURN(
          control.kinematic_linear_velocity_m_per_s,
          FiniteVec3FromProto(in.kinematic_linear_velocity_m_per_s(),
                              absl::StrCat(field, ".kinematic_linear_velocity_m_per_s")));
    }
    if (in.has_kinematic_angular_velocity_rad_per_s()) {
      ASSIGN_OR_RETURN(
          control.kinematic_angular_velocity_rad_per_s,
          FiniteVec3FromProto(in.kinematic_angular_velocity_rad_per_s(),
                              absl::StrCat(field, ".kinematic_angular_velocity_rad_per_s")));
    }
    controls.bodies.push_back(std::move(control));
  }
  for (int i = 0; i < message.vertex_forces_size(); ++i) {
    const v1::VertexForces& in = message.vertex_forces(i);
    const std::string field = absl::StrCat("controls.vertex_forces[", i, "]");
    if (in.forces_n_size() != 3 * in.vertices_size()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".forces_n: length ",
                                                     in.forces_n_size(), " is not 3 x ",
                                                     in.vertices_size(), " vertices"));
    }
    core::VertexForcesInput forces;
    forces.index = i;
    forces.body_id = in.body_id();
    forces.vertices.assign(in.vertices().begin(), in.vertices().end());
    forces.forces_n.resize(in.vertices_size(), 3);
    for (int k = 0; k < in.forces_n_size(); ++k) {
      if (!std::isfinite(in.forces_n(k))) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".forces_n[", k, "]: must be finite, got ", in.forces_n(k)));
      }
      forces.forces_n.data()[k] = in.forces_n(k);
    }
    controls.vertex_forces.push_back(std::move(forces));
  }
  for (int i = 0; i < message.constraint_targets_size(); ++i) {
    const v1::ConstraintTarget& in = message.constraint_targets(i);
    const std::string field = absl::StrCat("controls.constraint_targets[", i, "].targets_m");
    core::ConstraintTargetInput targets;
    targets.index = i;
    targets.constraint_id = in.constraint_id();
    ASSIGN_OR_RETURN(targets.targets_m, FinitePointsFromProto(in.targets_m(), field));
    controls.constraint_targets.push_back(std::move(targets));
  }
  controls.joint_commands.reserve(message.joint_commands_size());
  for (int i = 0; i < message.joint_commands_size(); ++i) {
    ASSIGN_OR_RETURN(core::JointCommandInput command,
                     JointCommandFromProto(message.joint_commands(i), i, max_name_bytes));
    controls.joint_commands.push_back(std::move(command));
  }
  return controls;
}

void FillProto(const core::StepDiagnostics& diagnostics, v1::StepDiagnostics* out) {
  out->set_step(diagnostics.step);
  out->set_time_s(diagnostics.time_s);
  out->set_kinetic_energy_j(diagnostics.kinetic_energy_j);
  out->set_potential_energy_j(diagnostics.potential_energy_j);
  out->set_max_penetration_depth_m(diagnostics.max_penetration_depth_m);
  out->set_active_pairs(diagnostics.active_pairs);
  out->set_plane_contacts(diagnostics.plane_contacts);
  out->set_stick_contacts(diagnostics.stick_contacts);
  out->set_slip_contacts(diagnostics.slip_contacts);
  out->set_diverged(diagnostics.divergence != core::DivergenceKind::kNone);
  out->set_divergence_message(diagnostics.divergence_message);
  const core::RigidLcpStepStats& rl = diagnostics.rigid_lcp;
  if (rl.unilateral_constraints + rl.intercontact_constraints > 0 || !rl.solver_path.empty()) {
    v1::RigidLcpStepStats* stats = out->mutable_rigid_lcp();
    stats->set_unilateral_constraints(rl.unilateral_constraints);
    stats->set_intercontact_constraints(rl.intercontact_constraints);
    stats->set_lcp_size(rl.lcp_size);
    stats->set_solver_path(rl.solver_path);
    stats->set_solver_attempts(rl.solver_attempts);
    stats->set_pivots(rl.pivots);
    stats->set_iterations(rl.iterations);
    stats->set_residual(rl.residual);
    stats->set_iterative_islands(rl.iterative_islands);
    stats->set_iterative_fallbacks(rl.iterative_fallbacks);
    stats->set_velocity_residual_m_per_s(rl.velocity_residual_m_per_s);
  }
}

void FillProto(const core::ContactRecord& record, v1::ContactRecord* out) {
  out->set_body_a(record.body_a);
  out->set_body_b(record.body_b);
  switch (record.kind) {
    case core::ContactFeatureKind::kVertexFace:
      out->set_kind(v1::CONTACT_FEATURE_VERTEX_FACE);
      break;
    case core::ContactFeatureKind::kEdgeEdge:
      out->set_kind(v1::CONTACT_FEATURE_EDGE_EDGE);
      break;
    case core::ContactFeatureKind::kVertexPlane:
      out->set_kind(v1::CONTACT_FEATURE_VERTEX_PLANE);
      break;
  }
  out->set_feature_a(record.feature_a);
  out->set_feature_b(record.feature_b);
  FillProto(record.p_WC, out->mutable_p_wc_m());
  FillProto(record.normal_W, out->mutable_normal_w());
  out->set_depth_m(record.depth_m);
  FillProto(record.normal_impulse_n_s, out->mutable_normal_impulse_ns());
  FillProto(record.friction_impulse_n_s, out->mutable_friction_impulse_ns());
  if (record.torsional_impulse_n_m_s.squaredNorm() > 0.0) {
    FillProto(record.torsional_impulse_n_m_s, out->mutable_torsional_impulse_nms());
  }
}

void FillProto(const core::BodyContactTotals& totals, v1::BodyContactTotals* out) {
  out->set_body_id(totals.body_id);
  FillProto(totals.impulse_n_s, out->mutable_impulse_ns());
  FillProto(totals.angular_impulse_n_m_s, out->mutable_angular_impulse_nms());
  out->set_contact_count(totals.contact_count);
}

void FillProto(const core::ConstraintReactions& reactions, v1::ConstraintReactions* out) {
  for (const core::ConstraintReactionTotal& reaction : reactions.constraints) {
    v1::ConstraintReaction* message = out->add_constraints();
    message->set_constraint_id(reaction.constraint_id);
    switch (reaction.kind) {
      case core::ConstraintKind::kPin:
        message->set_kind(v1::CONSTRAINT_KIND_PIN);
        break;
      case core::ConstraintKind::kAttachment:
        message->set_kind(v1::CONSTRAINT_KIND_ATTACHMENT);
        break;
      case core::ConstraintKind::kPositionTarget:
        message->set_kind(v1::CONSTRAINT_KIND_POSITION_TARGET);
        break;
    }
    message->set_body_id(reaction.body_id);
    message->set_target_body_id(reaction.target_body_id);
    FillProto(reaction.impulse_n_s, message->mutable_impulse_ns());
  }
  for (const core::BodyReactionTotal& body : reactions.bodies) {
    v1::BodyConstraintReaction* message = out->add_body_totals();
    message->set_body_id(body.body_id);
    FillProto(body.impulse_n_s, message->mutable_impulse_ns());
  }
}

StepReplyParts StepReplyPartsFromProto(const v1::StepRequest& request) {
  if (!request.has_reply_parts()) return {};
  const v1::StepReplyParts& asked = request.reply_parts();
  return {asked.body_poses(),           asked.body_velocities(), asked.vertex_positions(),
          asked.contact_pairs(),        asked.contact_totals(),  asked.diagnostics(),
          asked.constraint_reactions(), asked.joint_states()};
}

void FillStepResponse(const core::WorldState& state, const core::ContactReport& contacts,
                      const core::StepOutcome& outcome, v1::StepResponse* response,
                      const StepReplyParts& parts) {
  response->set_step_count(state.step_count);
  response->set_time_s(state.time_s);
  if (parts.body_poses || parts.body_velocities || parts.vertex_positions) {
    response->mutable_bodies()->Reserve(static_cast<int>(state.bodies.size()));
    for (const core::BodyStateCopy& body : state.bodies) {
      FillBodyState(body, parts.body_poses, parts.body_velocities, parts.vertex_positions,
                    response->add_bodies());
    }
  }
  v1::ContactReport* out = response->mutable_contacts();
  if (parts.contact_pairs) {
    out->mutable_contacts()->Reserve(static_cast<int>(contacts.contacts.size()));
    for (const core::ContactRecord& record : contacts.contacts) {
      FillProto(record, out->add_contacts());
    }
  }
  if (parts.contact_totals) {
    for (const core::BodyContactTotals& totals : outcome.summed_totals) {
      FillProto(totals, out->add_body_totals());
    }
  }
  if (parts.diagnostics) {
    for (const core::StepDiagnostics& diagnostics : outcome.diagnostics) {
      FillProto(diagnostics, response->add_diagnostics());
    }
  }
  if (parts.constraint_reactions && !outcome.reactions.constraints.empty()) {
    FillProto(outcome.reactions, response->mutable_reactions());
  }
  if (parts.joint_states) {
    response->mutable_joint_states()->Reserve(static_cast<int>(state.robots.size()));
    for (const core::RobotJointStatesCopy& robot : state.robots) {
      FillProto(robot, response->add_joint_states());
    }
  }
}

namespace {

// Wire sizes, each rounded up from the largest encoding of its fields: a tag byte, a length
// varint of up to 5 bytes per submessage, 10-byte varints, 9-byte doubles [bytes].
constexpr int64_t kRigidBodyStateBytes = 160;      // ids, kind, 3 Vec3 and a Quat
constexpr int64_t kDeformableStateBytes = 160;     // ids, kind, two packed headers, 3 Vec3
constexpr int64_t kBytesPerVertex = 2 * 3 * 8;     // a position and a velocity, packed doubles
constexpr int64_t kBodyTotalsBytes = 96;           // id, two Vec3, a count
constexpr int64_t kReactionBytes = 64;             // three ids, a kind, a Vec3
constexpr int64_t kBodyReactionBytes = 48;         // an id, a Vec3
constexpr int64_t kDiagnosticsBytes = 128;         // 11 scalar fields
constexpr int64_t kDivergenceMessageBytes = 4096;  // at most one step per call diverges
constexpr int64_t kReplyHeaderBytes = 64;          // step_count, time, the report's header
constexpr int64_t kRobotStatesBytes = 16;          // a robot id and its message's header
constexpr int64_t kJointStateBytes = 96;           // 3 doubles, two Vec3

}  // namespace

int64_t StepReplyBytesBound(const core::World& world, int n_steps) {
  int64_t bytes = kReplyHeaderBytes + kDivergenceMessageBytes +
                  static_cast<int64_t>(n_steps) * kDiagnosticsBytes;
  // A constraint acts on at most two bodies.
  bytes += static_cast<int64_t>(world.constraints().constraints().size()) *
           (kReactionBytes + 2 * kBodyReactionBytes);
  for (const core::WorldRobot& robot : world.robots()) {
    bytes += kRobotStatesBytes + kJointStateBytes * static_cast<int64_t>(robot.joints.size());
  }
  for (const int32_t id : world.body_ids()) {
    const core::Body& body = *world.body(id);
    bytes += kBodyTotalsBytes;
    bytes += body.type() == core::BodyType::kRigid
                 ? kRigidBodyStateBytes
                 : kDeformableStateBytes + kBytesPerVertex * body.num_vertices();
  }
  return bytes;
}

void FitStepResponse(int64_t limit_bytes, v1::StepResponse* response) {
  auto* records = response->mutable_contacts()->mutable_contacts();
  int64_t bytes = static_cast<int64_t>(response->ByteSizeLong());
  int omitted = 0;
  // Each record takes its bytes, its tag and its length varint; the enclosing lengths shrink
  // too, so the sum is checked against the real size below.
  while (bytes > limit_bytes && !records->empty()) {
    const size_t record_bytes = records->Get(records->size() - 1).ByteSizeLong();
    bytes -= static_cast<int64_t>(
        1 + google::protobuf::io::CodedOutputStream::VarintSize64(record_bytes) + record_bytes);
    records->RemoveLast();
    ++omitted;
  }
  response->set_contacts_omitted(omitted);
  while (static_cast<int64_t>(response->ByteSizeLong()) > limit_bytes && !records->empty()) {
    records->RemoveLast();
    response->set_contacts_omitted(++omitted);
  }
}

}  // namespace contactsim::server
