// Recording contactsim.v1.StateFrame messages to a file (the CLI's `record`) and reading them
// back. Two formats:
//   binary  every frame as a length-delimited message: its size as a base-128 varint, then the
//           serialized StateFrame (what google::protobuf::util::SerializeDelimitedToOstream
//           writes; Java's writeDelimitedTo). Read with ReadRecordedFrames below,
//           ParseDelimitedFromZeroCopyStream in C++, or in Python by decoding the varint
//           (google.protobuf.internal.decoder._DecodeVarint32) and calling
//           StateFrame.FromString on the bytes that follow.
//   csv     one header line, then one row per frame:
//           seq,time_s,step_count,coalesced,contacts,normal_impulse_ns,diverged and, per body of
//           the first frame, body<ID>_x_m,body<ID>_y_m,body<ID>_z_m: the mean of the body's
//           vertex positions (for a rigid body a point fixed in it: its vertex centroid).
//           `contacts` and `normal_impulse_ns` (sum of |normal impulse| [N*s]) are of the last
//           step and need frames streamed with include_contacts. A body that is gone leaves
//           its cells empty; bodies added after the first frame are not recorded. Then, per
//           robot given to the recorder and per joint that moves (fixed joints left out), in
//           RobotInfo.joints order, the frame's joint state:
//             robot<ID>_<joint>_position_rad, _velocity_rad_per_s, _effort_n_m  (revolute,
//                                                                               continuous)
//             robot<ID>_<joint>_position_m,   _velocity_m_per_s,   _effort_n    (prismatic)
//           (`effort` is the motor's applied effort over the last step). A header cell is
//           quoted as RFC 4180 says when the joint's name holds a comma or a quote. A frame
//           without the robot's states (before it was added) leaves its cells empty.
#pragma once

#include <cstdint>
#include <istream>
#include <ostream>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "contactsim/v1/simulation.pb.h"

namespace contactsim::client {

enum class RecordFormat { kBinary, kCsv };

class FrameRecorder {
 public:
  // Writes to `out`, which must outlive the recorder. `robots` (GetSession's): whose joints get
  // CSV columns; the binary format keeps every frame's joint states anyway.
  FrameRecorder(std::ostream& out, RecordFormat format, std::vector<v1::RobotInfo> robots = {});

  // DataLoss when the stream refuses the bytes (disk full, closed file).
  absl::Status Write(const v1::StateFrame& frame);
  int64_t frames_written() const { return frames_written_; }

 private:
  absl::Status WriteCsv(const v1::StateFrame& frame);

  struct JointColumn {
    int32_t robot_id = 0;
    int index = 0;  // in the robot's RobotJointStates.joints
  };

  std::ostream& out_;
  RecordFormat format_;
  std::vector<v1::RobotInfo> robots_;
  int64_t frames_written_ = 0;
  std::vector<int32_t> csv_body_ids_;  // the columns, from the first frame
  std::vector<JointColumn> csv_joints_;
};

// Every frame of a binary recording, in order. InvalidArgument "frame <i>: ..." for a truncated
// or unparseable message.
absl::StatusOr<std::vector<v1::StateFrame>> ReadRecordedFrames(std::istream& in);

}  // namespace contactsim::client
