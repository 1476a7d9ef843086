// What a session lists of its robots, and a SetJointState request by joint name: plain values
// shared by the session (which fills them under its lock) and the conversions to and from the
// wire (server/convert/robot_convert.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/dynamics/robots/robot_model.h"
#include "core/sim/step_controls.h"
#include "core/sim/world_robot.h"

namespace contactsim::server {

struct RobotListing {
  int32_t robot_id = 0;
  std::string name;  // the label given, else the URDF's <robot name>
  bool fixed_base = true;
  std::shared_ptr<const core::RobotModel> model;  // shared, not copied
  std::vector<int32_t> link_body_ids;             // per link of model->links
};

inline RobotListing ListRobot(const core::WorldRobot& robot) {
  return {robot.id, robot.spec.name.empty() ? robot.model->name : robot.spec.name,
          robot.spec.fixed_base, robot.model, robot.link_body_ids};
}

// Joint name -> position [rad or m] and velocity [rad/s or m/s]; finite (checked on the wire).
// `commands`: motor commands set with the state (their form checked on the wire; index is the
// place in SetJointStateRequest.commands).
struct JointStateByName {
  std::map<std::string, double> positions;
  std::map<std::string, double> velocities;
  std::vector<core::JointCommandInput> commands;
};

}  // namespace contactsim::server
