#include "clients/cpp/cli/step_control_flags.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "clients/cpp/cli/joint_command_flags.h"

namespace contactsim::client::cli {
namespace {

// One flag value split at its ':'s: the integer ids before the last one and the numbers after.
struct ParsedValue {
  std::vector<int32_t> ids;
  std::vector<double> numbers;
};

absl::Status Malformed(const std::string& flag, const std::string& value, const std::string& form,
                       const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat(flag, " '", value, "': expected ", form, ", ", why));
}

absl::StatusOr<ParsedValue> Parse(const std::string& flag, const std::string& value,
                                  const std::string& form, size_t num_ids,
                                  const std::vector<size_t>& counts) {
  const std::vector<std::string> parts = absl::StrSplit(value, ':');
  if (parts.size() != num_ids + 1) {
    return Malformed(flag, value, form,
                     absl::StrCat("got ", parts.size() - 1, " ':' instead of ", num_ids));
  }
  ParsedValue parsed;
  for (size_t i = 0; i < num_ids; ++i) {
    int32_t id = 0;
    if (!absl::SimpleAtoi(parts[i], &id) || id < 0) {
      return Malformed(flag, value, form, absl::StrCat("'", parts[i], "' is not an id (>= 0)"));
    }
    parsed.ids.push_back(id);
  }
  for (absl::string_view text : absl::StrSplit(parts.back(), ',')) {
    double number = 0.0;
    if (!absl::SimpleAtod(text, &number) || !std::isfinite(number)) {
      return Malformed(flag, value, form, absl::StrCat("'", text, "' is not a finite number"));
    }
    parsed.numbers.push_back(number);
  }
  const size_t n = parsed.numbers.size();
  bool allowed = false;
  std::string expected;
  for (size_t count : counts) {
    allowed |= count == 0 ? (n > 0 && n % 3 == 0) : n == count;
    expected = absl::StrCat(expected, expected.empty() ? "" : " or ",
                            count == 0 ? "a multiple of 3" : std::to_string(count));
  }
  if (!allowed) {
    return Malformed(flag, value, form,
                     absl::StrCat("got ", n, " numbers after the ':' (", expected, ")"));
  }
  return parsed;
}

void SetVec3(const double* xyz, v1::Vec3* out) {
  out->set_x(xyz[0]);
  out->set_y(xyz[1]);
  out->set_z(xyz[2]);
}

}  // namespace

absl::StatusOr<v1::StepControls> StepControlsFromFlags(const StepControlFlags& flags) {
  v1::StepControls controls;
  std::map<int32_t, v1::BodyControl*> bodies;
  auto body = [&](int32_t id) {
    v1::BodyControl*& control = bodies[id];
    if (control == nullptr) {
      control = controls.add_bodies();
      control->set_body_id(id);
    }
    return control;
  };
  for (const std::string& value : flags.forces) {
    absl::StatusOr<ParsedValue> p = Parse("--force", value, "BODY:fx,fy,fz", 1, {3});
    if (!p.ok()) return p.status();
    SetVec3(p->numbers.data(), body(p->ids[0])->mutable_force_n());
  }
  for (const std::string& value : flags.torques) {
    absl::StatusOr<ParsedValue> p = Parse("--torque", value, "BODY:tx,ty,tz", 1, {3});
    if (!p.ok()) return p.status();
    SetVec3(p->numbers.data(), body(p->ids[0])->mutable_torque_n_m());
  }
  for (const std::string& value : flags.kinematic_poses) {
    absl::StatusOr<ParsedValue> p =
        Parse("--kinematic-pose", value, "BODY:x,y,z[,qw,qx,qy,qz]", 1, {3, 7});
    if (!p.ok()) return p.status();
    v1::Pose* pose = body(p->ids[0])->mutable_kinematic_target();
    SetVec3(p->numbers.data(), pose->mutable_position_m());
    v1::Quat* q = pose->mutable_orientation();
    q->set_w(1.0);
    if (p->numbers.size() == 7) {
      q->set_w(p->numbers[3]);
      q->set_x(p->numbers[4]);
      q->set_y(p->numbers[5]);
      q->set_z(p->numbers[6]);
    }
  }
  for (const std::string& value : flags.kinematic_velocities) {
    absl::StatusOr<ParsedValue> p =
        Parse("--kinematic-velocity", value, "BODY:vx,vy,vz[,wx,wy,wz]", 1, {3, 6});
    if (!p.ok()) return p.status();
    v1::BodyControl* control = body(p->ids[0]);
    SetVec3(p->numbers.data(), control->mutable_kinematic_linear_velocity_m_per_s());
    // Unset angular velocity is zero: a pure translation.
    const double zero[3] = {0.0, 0.0, 0.0};
    SetVec3(p->numbers.size() == 6 ? p->numbers.data() + 3 : zero,
            control->mutable_kinematic_angular_velocity_rad_per_s());
  }
  std::map<int32_t, v1::VertexForces*> vertex_forces;
  for (const std::string& value : flags.vertex_forces) {
    absl::StatusOr<ParsedValue> p = Parse("--vertex-force", value, "BODY:VERTEX:fx,fy,fz", 2, {3});
    if (!p.ok()) return p.status();
    v1::VertexForces*& forces = vertex_forces[p->ids[0]];
    if (forces == nullptr) {
      forces = controls.add_vertex_forces();
      forces->set_body_id(p->ids[0]);
    }
    forces->add_vertices(p->ids[1]);
    for (double f : p->numbers) forces->add_forces_n(f);
  }
  for (const std::string& value : flags.targets) {
    absl::StatusOr<ParsedValue> p =
        Parse("--target", value, "CONSTRAINT:x,y,z[,x,y,z...] (one point per vertex)", 1, {0});
    if (!p.ok()) return p.status();
    v1::ConstraintTarget* target = controls.add_constraint_targets();
    target->set_constraint_id(p->ids[0]);
    for (double c : p->numbers) target->add_targets_m(c);
  }
  for (const std::string& value : flags.joints) {
    absl::StatusOr<v1::JointCommand> command = JointCommandFromFlag(value);
    if (!command.ok()) return command.status();
    *controls.add_joint_commands() = *std::move(command);
  }
  return controls;
}

}  // namespace contactsim::client::cli
