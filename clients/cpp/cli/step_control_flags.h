// The control flags of `contactsim step` (each may be repeated) into a contactsim.v1.StepControls:
//   --force BODY:fx,fy,fz                 force at a dynamic rigid body's centre of mass [N]
//   --torque BODY:tx,ty,tz                torque about its centre of mass [N m]
//   --kinematic-pose BODY:x,y,z[,qw,qx,qy,qz]   pose a kinematic body reaches at the call's end
//   --kinematic-velocity BODY:vx,vy,vz[,wx,wy,wz]  velocities it holds [m/s], [rad/s]
//   --vertex-force BODY:VERTEX:fx,fy,fz   force on one vertex of a deformable [N]
//   --target CONSTRAINT:x,y,z[,x,y,z...]  new points of a position target, one per vertex [m]
//   --joint ROBOT:JOINT=pos:...|vel:...|effort:...|off  a robot joint's motor
//   (joint_command_flags.h)
// Controls of one body (force, torque, kinematic pose or velocity) go into one BodyControl;
// vertex forces of one body into one VertexForces. The server checks the values against the
// session; this checks only the shape ("--force '0:1,2': expected BODY:fx,fy,fz, got 2 numbers
// after the ':'").
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "contactsim/v1/simulation.pb.h"

namespace contactsim::client::cli {

struct StepControlFlags {
  std::vector<std::string> forces;
  std::vector<std::string> torques;
  std::vector<std::string> kinematic_poses;
  std::vector<std::string> kinematic_velocities;
  std::vector<std::string> vertex_forces;
  std::vector<std::string> targets;
  std::vector<std::string> joints;
};

// InvalidArgument naming the flag and its value for a malformed one.
absl::StatusOr<v1::StepControls> StepControlsFromFlags(const StepControlFlags& flags);

}  // namespace contactsim::client::cli
