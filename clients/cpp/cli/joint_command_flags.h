// The robot flags of the `contactsim` CLI: `step --joint` motor commands and `set-joint-state`'s
// NAME=VALUE pairs. Like step_control_flags.h, only the shape is checked here (the server checks
// names, gains and limits and names the field); errors name the flag and its value.
//
//   --joint ROBOT:JOINT=pos:TARGET,KP,KD[,TARGET_VELOCITY[,MAX_EFFORT]]   PD position motor
//   --joint ROBOT:JOINT=vel:TARGET[,MAX_EFFORT]                           velocity motor
//   --joint ROBOT:JOINT=effort:EFFORT                                     torque (force) motor
//   --joint ROBOT:JOINT=off                                               motor off
//
// TARGET in rad or m, KP in N m/rad or N/m, KD in N m s/rad or N s/m, velocities in rad/s or
// m/s, efforts in N m or N (by the joint's type). JOINT is the URDF joint name: everything
// between the first ':' and the last '=', so a name may hold ':' but not '='.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "contactsim/v1/robot.pb.h"

namespace contactsim::client::cli {

absl::StatusOr<v1::JointCommand> JointCommandFromFlag(const std::string& value);

// NAME=VALUE pairs of `flag` (e.g. "--position") into a map; INVALID_ARGUMENT naming the flag
// for a missing '=', an empty name, a value that is not a finite number, or a name given twice.
absl::StatusOr<std::map<std::string, double>> NamedValuesFromFlags(
    const std::string& flag, const std::vector<std::string>& values);

}  // namespace contactsim::client::cli
