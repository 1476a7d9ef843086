// The service latency bench's robot scene (issue 24): the repository's arm
// (scenes/robots/six_axis_arm.urdf) holding one part. A rigid_lcp session at 1 kHz (friction 0.5,
// the pads' torsional friction 5 mm, so the grasp does not creep), a 40 mm, 0.1 kg cube on the
// ground at (0.42, 0); the arm placed with its open fingers around the cube (SetJointState), then
// one Step(1) per control tick: close with 10 N (250 steps), lift the cube 0.215 m (400 steps),
// and hold it there (100 steps); the timed calls then keep holding it, sending the seven joint
// commands every call as a 1 kHz controller would. The same sequence runs in a core World built
// through the server's converters from the same messages (the physics alone).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "contactsim/v1/robot.pb.h"
#include "contactsim/v1/simulation.pb.h"
#include "core/sim/world.h"

namespace contactsim::bench {

v1::CreateSessionRequest ArmHoldSessionRequest();
v1::BodySpec ArmHoldCube();
v1::AddRobotRequest ArmHoldRobot(std::string urdf);
// The arm's joints at the grasp pose (joint name -> rad), fingers open.
absl::StatusOr<std::map<std::string, double>> ArmHoldStartPose();
// One StepControls per step of the grasp and the lift, then the hold's.
absl::StatusOr<std::vector<v1::StepControls>> ArmHoldSetUpSteps(int32_t robot_id);
absl::StatusOr<v1::StepControls> ArmHoldControls(int32_t robot_id);
// The height the cube's centre is lifted to [m] (its place after the set-up steps, but for the
// grasp's give), for a check that the arm holds it.
double ArmHoldLiftedHeight();

// The same scene and set-up steps in a core World (the server's converters), ready for timed
// World::Step(1, ArmHoldControls...) calls; `robot_id` gets the robot's id, `cube_id` the cube's.
absl::StatusOr<core::World> ArmHoldCoreWorld(const std::string& urdf, int32_t* robot_id,
                                             int32_t* cube_id);

}  // namespace contactsim::bench
