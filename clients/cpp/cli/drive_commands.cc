#include "clients/cpp/cli/drive_commands.h"

#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "clients/cpp/cli/exit_codes.h"
#include "clients/cpp/cli/reply_parts_flag.h"
#include "clients/cpp/cli/robot_commands.h"
#include "clients/cpp/session_handle.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/text_format.h"

namespace contactsim::client::cli {
namespace {

std::string QuatText(const v1::Quat& q) {
  std::ostringstream s;
  s << "(" << q.w() << ", " << q.x() << ", " << q.y() << ", " << q.z() << ")";
  return s.str();
}

// "rigid", "static", "cloth", ... from BODY_KIND_RIGID, ...
std::string KindName(v1::BodyKind kind) {
  std::string name = v1::BodyKind_Name(kind);
  const std::string prefix = "BODY_KIND_";
  if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
  return absl::AsciiStrToLower(name);
}

std::string ConstraintKindName(v1::ConstraintKind kind) {
  switch (kind) {
    case v1::CONSTRAINT_KIND_PIN:
      return "pin";
    case v1::CONSTRAINT_KIND_ATTACHMENT:
      return "attachment";
    case v1::CONSTRAINT_KIND_POSITION_TARGET:
      return "position-target";
    default:
      return "constraint";
  }
}

bool IsDeformable(v1::BodyKind kind) {
  return kind == v1::BODY_KIND_CLOTH || kind == v1::BODY_KIND_FEM ||
         kind == v1::BODY_KIND_HYPERELASTIC;
}

// Every part set: what the reply holds when reply_parts is unset.
v1::StepReplyParts AllParts() {
  v1::StepReplyParts parts;
  const google::protobuf::Descriptor* descriptor = v1::StepReplyParts::descriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    v1::StepReplyParts::GetReflection()->SetBool(&parts, descriptor->field(i), true);
  }
  return parts;
}

}  // namespace

int RunStep(const Context& context, const StepArgs& args) {
  absl::StatusOr<v1::StepControls> controls = StepControlsFromFlags(args.controls);
  if (!controls.ok()) return Usage(context, std::string(controls.status().message()));
  // What the reply carries, and so what is printed: every part unless --reply-parts says.
  v1::StepReplyParts parts = AllParts();
  if (args.reply_parts) {
    absl::StatusOr<v1::StepReplyParts> asked = ReplyPartsFromFlag(*args.reply_parts);
    if (!asked.ok()) return Usage(context, std::string(asked.status().message()));
    parts = *asked;
  }
  const SessionHandle session = Handle(context, args.session);
  absl::StatusOr<v1::StepResponse> step = args.reply_parts
                                              ? session.Step(args.steps, *controls, parts)
                                              : session.Step(args.steps, *controls);
  if (!step.ok()) return Fail(context, step.status());
  const int steps = step->diagnostics_size();
  // Without the diagnostics the reply does not say how many steps were taken.
  const std::string over =
      parts.diagnostics() ? absl::StrCat("over the call's ", steps, " steps") : "over the call";
  context.out << "time_s: " << step->time_s() << "\n"
              << "step_count: " << step->step_count() << "\n";
  if (parts.diagnostics()) context.out << "steps_this_call: " << steps << "\n";
  for (const v1::BodyState& body : step->bodies()) {
    context.out << "body " << body.body_id() << " " << KindName(body.kind()) << ":";
    if (!IsDeformable(body.kind())) {
      if (parts.body_poses()) {
        context.out << " p_WB_m=" << Vec3Text(body.p_wb_m()) << " q_WB=" << QuatText(body.q_wb());
      }
      if (parts.body_velocities()) {
        context.out << " v_WB_m_per_s=" << Vec3Text(body.v_wb_m_per_s())
                    << " w_WB_rad_per_s=" << Vec3Text(body.w_wb_rad_per_s());
      }
    } else {
      if (parts.body_poses()) {
        context.out << " centre_of_mass_m=" << Vec3Text(body.centre_of_mass_m())
                    << " bounds_min_m=" << Vec3Text(body.bounds_min_m())
                    << " bounds_max_m=" << Vec3Text(body.bounds_max_m());
      }
      if (parts.vertex_positions()) context.out << " vertices=" << body.positions_m_size() / 3;
    }
    context.out << "\n";
  }
  // Records are of the last step only; totals sum every step of the call.
  if (parts.contact_pairs()) {
    context.out << "contact_records_last_step: " << step->contacts().contacts_size() << "\n";
    if (step->contacts_omitted() > 0) {
      context.out << "contact_records_omitted: " << step->contacts_omitted() << "\n";
    }
  }
  if (parts.contact_totals()) context.out << "contact totals " << over << ":\n";
  for (const v1::BodyContactTotals& totals : step->contacts().body_totals()) {
    context.out << "body " << totals.body_id() << ": impulse_ns=" << Vec3Text(totals.impulse_ns())
                << " angular_impulse_nms=" << Vec3Text(totals.angular_impulse_nms())
                << " contact_records=" << totals.contact_count() << "\n";
  }
  if (step->reactions().constraints_size() > 0) {
    context.out << "constraint reactions " << over << ":\n";
    for (const v1::ConstraintReaction& r : step->reactions().constraints()) {
      context.out << "constraint " << r.constraint_id() << " " << ConstraintKindName(r.kind())
                  << " on body " << r.body_id();
      if (r.target_body_id() >= 0) context.out << " held by body " << r.target_body_id();
      context.out << ": impulse_ns=" << Vec3Text(r.impulse_ns()) << "\n";
    }
    for (const v1::BodyConstraintReaction& b : step->reactions().body_totals()) {
      context.out << "body " << b.body_id()
                  << ": constraint_impulse_ns=" << Vec3Text(b.impulse_ns()) << "\n";
    }
  }
  if (step->joint_states_size() > 0) {
    // The reply lists joints by index; their names and types (for the units) are the robots'.
    // The steps are taken: should that call fail, the states are still printed, by index.
    absl::StatusOr<v1::GetSessionResponse> info = session.GetSession();
    if (!info.ok()) context.err << "warning: joint names unknown: " << info.status() << "\n";
    context.out << "joint states at the call's end (reactions on the child link, in its frame):\n";
    PrintJointStates(context.out, step->joint_states(),
                     info.ok() ? info->robots() : v1::GetSessionResponse().robots());
  }
  return kExitOk;
}

int RunInfo(const Context& context, const SessionArgs& args) {
  absl::StatusOr<v1::GetSessionResponse> info = Handle(context, args).GetSession();
  if (!info.ok()) return Fail(context, info.status());
  const v1::SessionSummary& s = info->summary();
  context.out << "session_id: " << s.session_id() << "\n"
              << "name: " << s.name() << "\n"
              << "pipeline: " << s.pipeline() << "\n"
              << "device: " << s.device() << "\n"
              << "state: " << (s.state() == v1::SESSION_STATE_FAILED ? "failed" : "active") << "\n";
  if (!s.failure_message().empty()) context.out << "failure: " << s.failure_message() << "\n";
  context.out << "step_count: " << s.step_count() << "\n"
              << "time_s: " << s.time_s() << "\n"
              << "body_ids: " << absl::StrJoin(info->body_ids(), ",") << "\n"
              << "memory_bytes: " << s.memory_bytes() << " (meshes " << s.memory().meshes_bytes()
              << ", bodies " << s.memory().bodies_bytes() << ", collision "
              << s.memory().collision_bytes() << ", solver " << s.memory().solver_bytes()
              << ", frames " << s.memory().frames_bytes() << ", snapshots "
              << s.memory().snapshots_bytes() << ")\n";
  for (const v1::GroundPlane& plane : info->ground_planes()) {
    context.out << "ground_plane: normal=" << Vec3Text(plane.normal())
                << " offset_m=" << plane.offset_m() << "\n";
  }
  std::string settings;
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  printer.PrintToString(info->settings(), &settings);
  context.out << "settings: " << settings << "\n";
  context.out << "robots: " << info->robots_size() << "\n";
  for (const v1::RobotInfo& robot : info->robots()) {
    context.out << "robot " << robot.robot_id() << " " << robot.name()
                << ": fixed_base=" << (robot.fixed_base() ? "true" : "false")
                << " links=" << robot.links_size() << " joints=" << robot.joints_size() << "\n";
    PrintRobotLinksAndJoints(context.out, robot, "  ");
  }
  return kExitOk;
}

int RunAddConstraint(const Context& context, const AddConstraintArgs& args) {
  v1::ConstraintSpec spec;
  const bool target_kind = args.kind == "position-target";
  if (args.kind != "attachment" && args.target_body_id) {
    return Usage(context, "--target-body applies to --kind attachment only");
  }
  if (!target_kind && (!args.targets_m.empty() || args.stiffness_n_per_m)) {
    return Usage(context, "--targets and --stiffness apply to --kind position-target only");
  }
  if (args.kind == "pin") {
    spec.mutable_pin()->set_body_id(args.body_id);
    spec.mutable_pin()->mutable_vertices()->Add(args.vertices.begin(), args.vertices.end());
  } else if (args.kind == "attachment") {
    if (!args.target_body_id) {
      return Usage(context, "--kind attachment needs --target-body (the rigid body they follow)");
    }
    v1::AttachmentConstraint* attach = spec.mutable_attachment();
    attach->set_body_id(args.body_id);
    attach->mutable_vertices()->Add(args.vertices.begin(), args.vertices.end());
    attach->set_target_body_id(*args.target_body_id);
  } else {
    if (args.targets_m.size() != 3 * args.vertices.size() || !args.stiffness_n_per_m) {
      return Usage(context, "--kind position-target needs --targets x,y,z per vertex (" +
                                std::to_string(3 * args.vertices.size()) + " numbers for " +
                                std::to_string(args.vertices.size()) + " vertices, got " +
                                std::to_string(args.targets_m.size()) + ") and --stiffness");
    }
    v1::PositionTargetConstraint* target = spec.mutable_position_target();
    target->set_body_id(args.body_id);
    target->mutable_vertices()->Add(args.vertices.begin(), args.vertices.end());
    target->mutable_targets_m()->Add(args.targets_m.begin(), args.targets_m.end());
    target->set_stiffness_n_per_m(*args.stiffness_n_per_m);
  }
  absl::StatusOr<int32_t> id = Handle(context, args.session).AddConstraint(spec);
  if (!id.ok()) return Fail(context, id.status());
  context.out << "constraint_id: " << *id << "\n";
  return kExitOk;
}

int RunRemoveConstraint(const Context& context, const RemoveConstraintArgs& args) {
  absl::Status status = Handle(context, args.session).RemoveConstraint(args.constraint_id);
  if (!status.ok()) return Fail(context, status);
  context.out << "removed constraint: " << args.constraint_id << "\n";
  return kExitOk;
}

}  // namespace contactsim::client::cli
