#include "core/sim/serialization/robots_codec.h"

#include <cmath>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/rigid_body.h"

namespace contactsim::core::serialization {
namespace {

void WritePose(const Eigen::Isometry3d& pose, ByteWriter* out) {
  out->Vec(pose.translation());
  const Eigen::Quaterniond q(pose.linear());
  out->F64(q.w());
  out->Vec(q.vec());
}

Eigen::Isometry3d ReadPose(ByteReader* in, const std::string& field) {
  const Vec3 p = in->FiniteVec(field + ".position");
  const double w = in->FiniteF64(field + ".orientation.w");
  const Vec3 v = in->FiniteVec(field + ".orientation.xyz");
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  const Eigen::Quaterniond q(w, v.x(), v.y(), v.z());
  if (in->ok() && std::abs(q.norm() - 1.0) > 1e-9) {
    in->Fail(field + ".orientation", "must be a unit quaternion");
    return pose;
  }
  pose.linear() = q.toRotationMatrix();
  pose.translation() = p;
  return pose;
}

}  // namespace

void WriteRobots(std::span<const WorldRobot> robots, int32_t next_robot_id, ByteWriter* out) {
  out->I32(next_robot_id);
  out->U32(static_cast<uint32_t>(robots.size()));
  for (const WorldRobot& robot : robots) {
    const RobotSpec& spec = robot.spec;
    out->I32(robot.id);
    out->String(spec.name);
    out->String(spec.urdf);
    out->U32(static_cast<uint32_t>(spec.mesh_files.size()));
    for (const auto& [path, bytes] : spec.mesh_files) {
      out->String(path);
      out->String(bytes);
    }
    out->Bool(spec.fixed_base);
    out->I32(spec.cylinder_sides);
    out->I32(spec.sphere_segments);
    WritePose(spec.world_from_root, out);
    out->U32(static_cast<uint32_t>(spec.initial_positions.size()));
    for (const double q : spec.initial_positions) out->F64(q);
    out->U32(static_cast<uint32_t>(robot.link_body_ids.size()));
    for (const int32_t id : robot.link_body_ids) out->I32(id);
    out->U32(static_cast<uint32_t>(robot.joints.size()));
    for (const JointInput& joint : robot.joints) {
      const JointMotor& m = joint.motor;
      out->U8(static_cast<uint8_t>(m.mode));
      out->F64(m.target_position);
      out->F64(m.target_velocity);
      out->F64(m.torque);
      out->F64(m.stiffness);
      out->F64(m.damping);
    }
  }
  // The commands' effort caps came later: a trailing block, absent in older blobs (no cap).
  for (const WorldRobot& robot : robots) {
    for (const JointInput& joint : robot.joints) out->F64(joint.motor.max_effort);
  }
}

absl::StatusOr<ReadRobotsResult> ReadRobots(ByteReader* in, std::span<const SimBody> bodies) {
  ReadRobotsResult out;
  out.next_robot_id = in->I32("robots.next_robot_id");
  const uint32_t count = in->Count("robots", 4 * sizeof(int32_t));
  if (in->ok() && out.next_robot_id < 0) in->Fail("robots.next_robot_id", "must be >= 0");
  std::set<int32_t> link_bodies;
  for (uint32_t r = 0; r < count && in->ok(); ++r) {
    const std::string field = absl::StrCat("robots[", r, "]");
    WorldRobot robot;
    RobotSpec& spec = robot.spec;
    robot.id = in->I32(field + ".id");
    spec.name = in->String(field + ".name");
    spec.urdf = in->String(field + ".urdf");
    const uint32_t files = in->Count(field + ".mesh_files", 2 * sizeof(uint32_t));
    for (uint32_t f = 0; f < files && in->ok(); ++f) {
      std::string path = in->String(absl::StrCat(field, ".mesh_files[", f, "].path"));
      std::string bytes = in->String(absl::StrCat(field, ".mesh_files[", f, "].bytes"));
      if (in->ok() && !spec.mesh_files.emplace(std::move(path), std::move(bytes)).second) {
        in->Fail(absl::StrCat(field, ".mesh_files[", f, "].path"), "is repeated");
      }
    }
    spec.fixed_base = in->Bool(field + ".fixed_base");
    spec.cylinder_sides = in->I32(field + ".cylinder_sides");
    spec.sphere_segments = in->I32(field + ".sphere_segments");
    spec.world_from_root = ReadPose(in, field + ".base_pose");
    const uint32_t positions = in->Count(field + ".initial_positions", sizeof(double));
    for (uint32_t j = 0; j < positions && in->ok(); ++j) {
      spec.initial_positions.push_back(
          in->FiniteF64(absl::StrCat(field, ".initial_positions[", j, "]")));
    }
    const uint32_t links = in->Count(field + ".link_body_ids", sizeof(int32_t));
    for (uint32_t l = 0; l < links && in->ok(); ++l) {
      robot.link_body_ids.push_back(in->I32(absl::StrCat(field, ".link_body_ids[", l, "]")));
    }
    RETURN_IF_ERROR(in->status());
    const int32_t previous = out.robots.empty() ? -1 : out.robots.back().id;
    if (robot.id <= previous || robot.id >= out.next_robot_id) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".id: ", robot.id,
                                                     " must be ascending and below next_robot_id ",
                                                     out.next_robot_id));
    }
    absl::StatusOr<std::shared_ptr<const RobotModel>> model = LoadRobotModel(spec);
    if (!model.ok()) {
      return absl::Status(model.status().code(),
                          absl::StrCat(field, ".", model.status().message()));
    }
    robot.model = *std::move(model);
    if (robot.link_body_ids.size() != robot.model->links.size()) {
      return absl::InvalidArgumentError(absl::StrCat(field,
                                                     ".link_body_ids: ", robot.link_body_ids.size(),
                                                     " for ", robot.model->links.size(), " links"));
    }
    for (size_t l = 0; l < robot.link_body_ids.size(); ++l) {
      const int32_t id = robot.link_body_ids[l];
      const std::string link_field = absl::StrCat(field, ".link_body_ids[", l, "]");
      const SimBody* body = nullptr;
      for (const SimBody& b : bodies) {
        if (b.id == id) body = &b;
      }
      const auto* rigid =
          body == nullptr ? nullptr : dynamic_cast<const RigidBody*>(body->body.get());
      const RigidBodyKind kind =
          robot.model->links[l].is_static ? RigidBodyKind::kStatic : RigidBodyKind::kDynamic;
      if (rigid == nullptr || rigid->kind() != kind) {
        return absl::InvalidArgumentError(
            absl::StrCat(link_field, ": body ", id, " is not a rigid body of the link's kind"));
      }
      if (!link_bodies.insert(id).second) {
        return absl::InvalidArgumentError(
            absl::StrCat(link_field, ": body ", id, " is already a link"));
      }
    }
    std::vector<PolytopeBodyInput> placed;
    RETURN_IF_ERROR(PlaceRobot(*robot.model, spec.world_from_root, spec.initial_positions, 0,
                               &placed, &robot.joints));
    const uint32_t joints = in->Count(field + ".motors", 1 + 5 * sizeof(double));
    if (in->ok() && joints != robot.joints.size()) {
      in->Fail(field + ".motors", absl::StrCat(joints, " for ", robot.joints.size(), " joints"));
    }
    for (uint32_t j = 0; j < joints && in->ok(); ++j) {
      const std::string motor_field = absl::StrCat(field, ".motors[", j, "]");
      JointMotor& m = robot.joints[j].motor;
      const uint8_t mode = in->U8(motor_field + ".mode");
      if (in->ok() && mode > static_cast<uint8_t>(JointMotorMode::kPosition)) {
        in->Fail(motor_field + ".mode", absl::StrCat("unknown code ", static_cast<int>(mode)));
      }
      m.mode = static_cast<JointMotorMode>(mode);
      m.target_position = in->FiniteF64(motor_field + ".target_position");
      m.target_velocity = in->FiniteF64(motor_field + ".target_velocity");
      m.torque = in->FiniteF64(motor_field + ".torque");
      m.stiffness = in->FiniteF64(motor_field + ".stiffness");
      m.damping = in->FiniteF64(motor_field + ".damping");
      if (in->ok() && (m.stiffness < 0.0 || m.damping < 0.0)) {
        in->Fail(motor_field, "stiffness and damping must be >= 0");
      }
    }
    RETURN_IF_ERROR(in->status());
    out.robots.push_back(std::move(robot));
  }
  if (in->ok() && in->remaining() > 0) {
    for (size_t r = 0; r < out.robots.size() && in->ok(); ++r) {
      for (size_t j = 0; j < out.robots[r].joints.size() && in->ok(); ++j) {
        const std::string field = absl::StrCat("robots[", r, "].motors[", j, "].max_effort");
        const double cap = in->F64(field);
        if (in->ok() && !(cap > 0.0)) in->Fail(field, absl::StrCat("must be > 0, got ", cap));
        out.robots[r].joints[j].motor.max_effort = cap;
      }
    }
  }
  RETURN_IF_ERROR(in->status());
  return out;
}

}  // namespace contactsim::core::serialization
