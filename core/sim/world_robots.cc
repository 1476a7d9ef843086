// World's robots (world.h, world_robot.h): adding one as link bodies, motor commands, joint
// states set by forward kinematics.
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/pipeline_table.h"
#include "core/sim/world.h"

namespace contactsim::core {
namespace {

std::string RobotName(const WorldRobot& robot) {
  return robot.spec.name.empty() ? absl::StrCat("robot", robot.id) : robot.spec.name;
}

absl::StatusOr<std::unique_ptr<RigidBody>> LinkBody(const RobotLink& link,
                                                    const RigidBodyState& state) {
  ASSIGN_OR_RETURN(TriangleMesh mesh, LinkMesh(link));
  absl::StatusOr<RigidBody> body =
      link.is_static ? RigidBody::CreateWithoutMass(std::move(mesh), RigidBodyKind::kStatic)
                     : RigidBody::CreateWithMass(std::move(mesh), link.mass_kg, Vec3::Zero(),
                                                 link.inertia_body_kg_m2);
  if (!body.ok()) {
    return absl::Status(body.status().code(),
                        absl::StrCat("link '", link.name, "': ", body.status().message()));
  }
  RETURN_IF_ERROR(body->SetState(state));
  return std::make_unique<RigidBody>(*std::move(body));
}

absl::Status CheckRobotsStepped(PipelineKind pipeline) {
  if (pipeline == PipelineKind::kRigidLcp) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("robots are stepped by the rigid_lcp pipeline; this world runs ",
                   std::string(PipelineName(pipeline))));
}

}  // namespace

absl::StatusOr<int32_t> World::AddRobot(RobotSpec spec, const RobotLimits& limits) {
  RETURN_IF_ERROR(CheckRobotsStepped(settings_.pipeline));
  ASSIGN_OR_RETURN(std::shared_ptr<const RobotModel> model, LoadRobotModel(spec, limits));
  return AddRobot(std::move(spec), std::move(model));
}

absl::StatusOr<int32_t> World::AddRobot(RobotSpec spec, std::shared_ptr<const RobotModel> model) {
  RETURN_IF_ERROR(CheckRobotsStepped(settings_.pipeline));
  if (next_robot_id_ == std::numeric_limits<int32_t>::max()) {
    return absl::ResourceExhaustedError("robot: this world has used every robot id");
  }
  std::vector<PolytopeBodyInput> placed;
  WorldRobot robot;
  robot.id = next_robot_id_;
  RETURN_IF_ERROR(
      PlaceRobot(*model, spec.world_from_root, spec.initial_positions, 0, &placed, &robot.joints));
  RETURN_IF_ERROR(ValidateJoints(robot.joints, static_cast<int>(placed.size())));
  robot.spec = std::move(spec);
  robot.model = model;
  const std::string prefix = RobotName(robot) + "/";
  // Build every link first, so that a failure adds nothing.
  std::vector<std::unique_ptr<RigidBody>> links;
  for (size_t l = 0; l < model->links.size(); ++l) {
    ASSIGN_OR_RETURN(std::unique_ptr<RigidBody> body, LinkBody(model->links[l], placed[l].state));
    if (FindBody(prefix + model->links[l].name).ok()) {
      return absl::AlreadyExistsError(
          absl::StrCat("name: a body named '", prefix, model->links[l].name, "' already exists"));
    }
    links.push_back(std::move(body));
  }
  if (next_body_id_ > std::numeric_limits<int32_t>::max() - static_cast<int32_t>(links.size())) {
    return absl::ResourceExhaustedError("robot: this world has used every body id");
  }
  for (size_t l = 0; l < links.size(); ++l) {
    BodyOptions options;
    options.name = prefix + model->links[l].name;
    options.collision.enabled = model->links[l].collision.has_value();
    absl::StatusOr<int32_t> id =
        InsertBody(std::move(links[l]), std::move(options), /*check_with_pipeline=*/false);
    if (!id.ok()) {  // cannot happen after the checks above; undo what was added
      for (const int32_t added : robot.link_body_ids) {
        const int index = BodyIndex(added);
        pipeline_->ForgetBody(added);
        bodies_.erase(bodies_.begin() + index);
      }
      return id.status();
    }
    robot.link_body_ids.push_back(*id);
  }
  ++next_robot_id_;
  robots_.push_back(std::move(robot));
  RefreshJointStates(&robots_.back());
  energy_reference_j_.reset();
  return robots_.back().id;
}

const WorldRobot* World::robot(int32_t id) const {
  for (const WorldRobot& r : robots_) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

WorldRobot* World::mutable_robot(int32_t id) {
  for (WorldRobot& r : robots_) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

const WorldRobot* World::RobotOfBody(int32_t body_id, int* link) const {
  for (const WorldRobot& r : robots_) {
    for (size_t l = 0; l < r.link_body_ids.size(); ++l) {
      if (r.link_body_ids[l] == body_id) {
        *link = static_cast<int>(l);
        return &r;
      }
    }
  }
  return nullptr;
}

absl::Status World::ValidateJointMotor(const WorldRobot& robot, int joint,
                                       const JointMotor& motor) {
  if (joint < 0 || joint >= static_cast<int>(robot.joints.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("joint: ", joint, " out of range [0, ", robot.joints.size(), ")"));
  }
  const RobotJoint& rj = robot.model->joints[joint];
  if (rj.type == JointType::kFixed) {
    return absl::InvalidArgumentError(absl::StrCat("joint: '", rj.name, "' is fixed"));
  }
  if (rj.mimic_joint >= 0) {
    return absl::InvalidArgumentError(absl::StrCat("joint: '", rj.name, "' mimics '",
                                                   robot.model->joints[rj.mimic_joint].name,
                                                   "'; command the leader"));
  }
  for (const auto& [value, field] :
       {std::pair{motor.target_position, "target_position"},
        std::pair{motor.target_velocity, "target_velocity"}, std::pair{motor.torque, "torque"},
        std::pair{motor.stiffness, "stiffness"}, std::pair{motor.damping, "damping"}}) {
    if (!std::isfinite(value)) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": must be finite, got ", value));
    }
  }
  if (motor.stiffness < 0.0 || motor.damping < 0.0) {
    return absl::InvalidArgumentError("stiffness, damping: must be >= 0");
  }
  if (!(motor.max_effort > 0.0)) {  // NaN refused too; +inf: the joint's limit alone
    return absl::InvalidArgumentError(
        absl::StrCat("max_effort: must be > 0, got ", motor.max_effort));
  }
  return absl::OkStatus();
}

absl::Status World::SetJointMotor(int32_t robot_id, int joint, const JointMotor& motor) {
  WorldRobot* robot = mutable_robot(robot_id);
  if (robot == nullptr) {
    return absl::NotFoundError(absl::StrCat("robot_id: no robot with id ", robot_id));
  }
  RETURN_IF_ERROR(ValidateJointMotor(*robot, joint, motor));
  robot->joints[joint].motor = motor;
  return absl::OkStatus();
}

void World::RefreshJointStates(WorldRobot* robot) const {
  std::vector<JointBodyView> views;
  views.reserve(robot->link_body_ids.size());
  for (const int32_t id : robot->link_body_ids) {
    const auto& link = static_cast<const RigidBody&>(*body(id));
    JointBodyView view;
    view.position = link.state().p_WB_m;
    view.rotation = link.state().q_WB.toRotationMatrix();
    view.velocity << link.state().v_WB_m_per_s, link.state().w_WB_rad_per_s;
    view.dynamic = link.kind() == RigidBodyKind::kDynamic;
    views.push_back(view);
  }
  robot->last_joint_states.assign(robot->joints.size(), JointStepResult{});
  for (size_t j = 0; j < robot->joints.size(); ++j) {
    const JointCoordinate q = ComputeJointCoordinate(robot->joints[j], views);
    robot->last_joint_states[j].position = q.position;
    robot->last_joint_states[j].velocity = q.velocity;
  }
}

absl::Status World::SetJointState(int32_t robot_id, std::span<const double> q,
                                  std::span<const double> qdot) {
  WorldRobot* robot = mutable_robot(robot_id);
  if (robot == nullptr) {
    return absl::NotFoundError(absl::StrCat("robot_id: no robot with id ", robot_id));
  }
  const size_t n = robot->joints.size();
  if (q.size() != n || qdot.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat("positions, velocities: ", q.size(), " and ",
                                                   qdot.size(), " given for ", n, " joints"));
  }
  for (size_t j = 0; j < n; ++j) {
    if (!std::isfinite(q[j]) || !std::isfinite(qdot[j])) {
      return absl::InvalidArgumentError(
          absl::StrCat("positions[", j, "], velocities[", j, "]: must be finite"));
    }
  }
  // The root link stays where it is: its frame from its body's pose.
  const RobotModel& model = *robot->model;
  const auto& root = static_cast<const RigidBody&>(*body(robot->link_body_ids[model.root]));
  Eigen::Isometry3d world_from_root = Eigen::Isometry3d::Identity();
  world_from_root.linear() = root.state().q_WB.toRotationMatrix();
  world_from_root.translation() =
      root.state().p_WB_m - world_from_root.linear() * model.links[model.root].center_of_mass_L;
  std::vector<PolytopeBodyInput> placed;
  std::vector<JointInput> unused;
  RETURN_IF_ERROR(PlaceRobot(model, world_from_root, {q.begin(), q.end()},
                             {qdot.begin(), qdot.end()}, 0, &placed, &unused));
  for (size_t l = 0; l < placed.size(); ++l) {
    if (static_cast<int>(l) == model.root) continue;
    auto& link = static_cast<RigidBody&>(*body(robot->link_body_ids[l]));
    RETURN_IF_ERROR(link.SetState(placed[l].state));
    pipeline_->ForgetBody(robot->link_body_ids[l]);
  }
  RefreshJointStates(robot);
  energy_reference_j_.reset();
  return absl::OkStatus();
}

}  // namespace contactsim::core
