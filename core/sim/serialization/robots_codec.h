// The World's robots in a snapshot (world_format.h, kRobotsTag). Reading validates everything
// before the World sees it: each spec loads again (the URDF and mesh bytes, as AddRobot), ids
// ascend below the next id, every link names an existing rigid body of the right kind and no body
// is the link of two robots, motor commands pass World::SetJointMotor's checks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "core/sim/serialization/byte_reader.h"
#include "core/sim/serialization/byte_writer.h"
#include "core/sim/sim_body.h"
#include "core/sim/world_robot.h"

namespace contactsim::core::serialization {

void WriteRobots(std::span<const WorldRobot> robots, int32_t next_robot_id, ByteWriter* out);

struct ReadRobotsResult {
  std::vector<WorldRobot> robots;
  int32_t next_robot_id = 0;
};
absl::StatusOr<ReadRobotsResult> ReadRobots(ByteReader* in, std::span<const SimBody> bodies);

}  // namespace contactsim::core::serialization
