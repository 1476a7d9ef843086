#include "clients/cpp/frame_record.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/util/delimited_message_util.h"

namespace contactsim::client {
namespace {

struct Point {
  double x = 0.0, y = 0.0, z = 0.0;
};

template <typename Repeated>
std::optional<Point> Centroid(const Repeated& packed) {
  const int n = packed.size() / 3;
  if (n == 0) return std::nullopt;
  Point sum;
  for (int i = 0; i < n; ++i) {
    sum.x += packed[3 * i];
    sum.y += packed[3 * i + 1];
    sum.z += packed[3 * i + 2];
  }
  return Point{sum.x / n, sum.y / n, sum.z / n};
}

// The mean vertex position in whichever precision the frame carries.
std::optional<Point> BodyCentroid(const v1::BodyFrame& body) {
  if (body.positions_m_f64_size() > 0) return Centroid(body.positions_m_f64());
  return Centroid(body.positions_m_f32());
}

// RFC 4180: a cell holding a comma, a quote or a line break is quoted, its quotes doubled.
std::string CsvCell(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// The unit suffixes of a joint's position, velocity and effort columns.
struct JointUnits {
  const char* position;
  const char* velocity;
  const char* effort;
};

JointUnits UnitsOf(v1::RobotJointType type) {
  if (type == v1::ROBOT_JOINT_TYPE_PRISMATIC) return {"m", "m_per_s", "n"};
  return {"rad", "rad_per_s", "n_m"};
}

const v1::JointState* FindJoint(const v1::StateFrame& frame, int32_t robot_id, int index) {
  for (const v1::RobotJointStates& robot : frame.joint_states()) {
    if (robot.robot_id() == robot_id) {
      return index < robot.joints_size() ? &robot.joints(index) : nullptr;
    }
  }
  return nullptr;
}

double TotalNormalImpulse(const v1::ContactReport& report) {
  double total = 0.0;
  for (const v1::ContactRecord& contact : report.contacts()) {
    const v1::Vec3& j = contact.normal_impulse_ns();
    total += std::sqrt(j.x() * j.x() + j.y() * j.y() + j.z() * j.z());
  }
  return total;
}

}  // namespace

FrameRecorder::FrameRecorder(std::ostream& out, RecordFormat format,
                             std::vector<v1::RobotInfo> robots)
    : out_(out), format_(format), robots_(std::move(robots)) {
  if (format_ == RecordFormat::kCsv) out_.precision(12);
}

absl::Status FrameRecorder::Write(const v1::StateFrame& frame) {
  if (format_ == RecordFormat::kBinary) {
    if (!google::protobuf::util::SerializeDelimitedToOstream(frame, &out_)) {
      return absl::DataLossError(absl::StrCat("frame ", frame.seq(), ": could not be written"));
    }
  } else {
    absl::Status status = WriteCsv(frame);
    if (!status.ok()) return status;
  }
  ++frames_written_;
  return absl::OkStatus();
}

absl::Status FrameRecorder::WriteCsv(const v1::StateFrame& frame) {
  if (frames_written_ == 0) {
    out_ << "seq,time_s,step_count,coalesced,contacts,normal_impulse_ns,diverged";
    for (const v1::BodyFrame& body : frame.bodies()) {
      csv_body_ids_.push_back(body.body_id());
      const std::string b = absl::StrCat("body", body.body_id());
      out_ << "," << b << "_x_m," << b << "_y_m," << b << "_z_m";
    }
    for (const v1::RobotInfo& robot : robots_) {
      for (const v1::RobotJointInfo& joint : robot.joints()) {
        if (joint.type() == v1::ROBOT_JOINT_TYPE_FIXED) continue;  // never moves
        csv_joints_.push_back({robot.robot_id(), joint.index()});
        const std::string j = absl::StrCat("robot", robot.robot_id(), "_", joint.name());
        const JointUnits units = UnitsOf(joint.type());
        out_ << "," << CsvCell(absl::StrCat(j, "_position_", units.position)) << ","
             << CsvCell(absl::StrCat(j, "_velocity_", units.velocity)) << ","
             << CsvCell(absl::StrCat(j, "_effort_", units.effort));
      }
    }
    out_ << "\n";
  }
  out_ << frame.seq() << "," << frame.time_s() << "," << frame.step_count() << ","
       << frame.coalesced() << "," << frame.contacts().contacts_size() << ","
       << TotalNormalImpulse(frame.contacts()) << "," << (frame.diagnostics().diverged() ? 1 : 0);
  for (int32_t id : csv_body_ids_) {
    std::optional<Point> centroid;
    for (const v1::BodyFrame& body : frame.bodies()) {
      if (body.body_id() == id) centroid = BodyCentroid(body);
    }
    if (centroid) {
      out_ << "," << centroid->x << "," << centroid->y << "," << centroid->z;
    } else {
      out_ << ",,,";
    }
  }
  for (const JointColumn& column : csv_joints_) {
    if (const v1::JointState* joint = FindJoint(frame, column.robot_id, column.index)) {
      out_ << "," << joint->position() << "," << joint->velocity() << ","
           << joint->applied_effort();
    } else {
      out_ << ",,,";
    }
  }
  out_ << "\n";
  if (!out_) {
    return absl::DataLossError(absl::StrCat("frame ", frame.seq(), ": could not be written"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::StateFrame>> ReadRecordedFrames(std::istream& in) {
  google::protobuf::io::IstreamInputStream stream(&in);
  std::vector<v1::StateFrame> frames;
  while (true) {
    v1::StateFrame frame;
    bool clean_eof = false;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&frame, &stream, &clean_eof)) {
      if (clean_eof) return frames;
      return absl::InvalidArgumentError(
          absl::StrCat("frame ", frames.size(), ": truncated or not a StateFrame"));
    }
    frames.push_back(std::move(frame));
  }
}

}  // namespace contactsim::client
