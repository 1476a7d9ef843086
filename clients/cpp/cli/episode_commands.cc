#include "clients/cpp/cli/episode_commands.h"

#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "clients/cpp/cli/exit_codes.h"
#include "clients/cpp/session_handle.h"

namespace contactsim::client::cli {
namespace {

void SetVec3(const std::vector<double>& xyz, v1::Vec3* out) {
  out->set_x(xyz[0]);
  out->set_y(xyz[1]);
  out->set_z(xyz[2]);
}

// Numbers of a text file, 3 per vertex, into `out`: an error names the file and the problem.
absl::Status ReadVertexFile(const std::string& path, const char* flag,
                            google::protobuf::RepeatedField<double>* out) {
  std::ifstream file(path);
  if (!file) return absl::InvalidArgumentError(absl::StrCat(flag, ": cannot read ", path));
  std::string line;
  int line_number = 0;
  while (std::getline(file, line)) {
    ++line_number;
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      size_t used = 0;
      double value = 0.0;
      try {
        value = std::stod(word, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != word.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat(flag, ": ", path, ":", line_number, ": '", word, "' is not a number"));
      }
      out->Add(value);
    }
  }
  if (out->size() % 3 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": ", path, " holds ", out->size(),
                                                   " numbers, not 3 per vertex (x y z)"));
  }
  return absl::OkStatus();
}

// The request from the flags, or a usage error naming the flag.
absl::StatusOr<v1::SetBodyStateRequest> RequestOf(const SetStateArgs& args) {
  v1::SetBodyStateRequest request;
  request.set_body_id(args.body_id);
  const bool rigid = !args.pose.empty() || !args.velocity.empty() || !args.angular_velocity.empty();
  const bool vertices = !args.positions_file.empty() || !args.velocities_file.empty();
  if (rigid == vertices) {
    return absl::InvalidArgumentError(
        "give --pose (and --velocity, --angular-velocity) for a rigid body, or --positions "
        "(and --velocities) for a deformable");
  }
  if (rigid) {
    if (args.pose.size() != 3 && args.pose.size() != 7) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--pose: expected x,y,z or x,y,z,qw,qx,qy,qz, got ", args.pose.size(), " numbers"));
    }
    v1::RigidStateSpec* state = request.mutable_rigid();
    SetVec3(args.pose, state->mutable_pose()->mutable_position_m());
    v1::Quat* q = state->mutable_pose()->mutable_orientation();
    q->set_w(args.pose.size() == 7 ? args.pose[3] : 1.0);
    if (args.pose.size() == 7) {
      q->set_x(args.pose[4]);
      q->set_y(args.pose[5]);
      q->set_z(args.pose[6]);
    }
    if (!args.velocity.empty()) SetVec3(args.velocity, state->mutable_linear_velocity_m_per_s());
    if (!args.angular_velocity.empty()) {
      SetVec3(args.angular_velocity, state->mutable_angular_velocity_rad_per_s());
    }
    return request;
  }
  if (args.positions_file.empty()) {
    return absl::InvalidArgumentError("--positions: required with --velocities");
  }
  v1::VertexStateSpec* state = request.mutable_vertices();
  absl::Status read =
      ReadVertexFile(args.positions_file, "--positions", state->mutable_positions_m());
  if (read.ok() && !args.velocities_file.empty()) {
    read =
        ReadVertexFile(args.velocities_file, "--velocities", state->mutable_velocities_m_per_s());
  }
  if (!read.ok()) return read;
  return request;
}

}  // namespace

int RunSetState(const Context& context, const SetStateArgs& args) {
  absl::StatusOr<v1::SetBodyStateRequest> request = RequestOf(args);
  if (!request.ok()) {
    context.err << "error: " << request.status().message() << "\n";
    return kExitUsage;
  }
  absl::StatusOr<v1::SetBodyStateResponse> set =
      Handle(context, args.session).SetBodyState(*std::move(request));
  if (!set.ok()) return Fail(context, set.status());
  context.out << "set body " << args.body_id << "\n"
              << "step_count: " << set->step_count() << "\n"
              << "time_s: " << set->time_s() << "\n";
  return kExitOk;
}

int RunReset(const Context& context, const ResetArgs& args) {
  std::string blob;
  if (!args.in_file.empty()) {
    std::ifstream file(args.in_file, std::ios::binary);
    if (!file) {
      context.err << "error: cannot read " << args.in_file << "\n";
      return kExitUsage;
    }
    blob.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    if (blob.empty()) {
      context.err << "error: " << args.in_file << " is empty\n";
      return kExitUsage;
    }
  } else if (!args.hex.empty()) {
    for (size_t i = 0; i + 1 < args.hex.size(); i += 2) {
      const std::string pair = args.hex.substr(i, 2);
      size_t used = 0;
      int byte = 0;
      try {
        byte = std::stoi(pair, &used, 16);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != 2) {
        context.err << "error: --snapshot is not a hex string\n";
        return kExitUsage;
      }
      blob.push_back(static_cast<char>(byte));
    }
    if (args.hex.size() % 2 != 0) {
      context.err << "error: --snapshot is not a hex string\n";
      return kExitUsage;
    }
  }
  absl::StatusOr<v1::ResetSessionResponse> reset = Handle(context, args.session).ResetSession(blob);
  if (!reset.ok()) return Fail(context, reset.status());
  context.out << "step_count: " << reset->step_count() << "\n"
              << "time_s: " << reset->time_s() << "\n";
  return kExitOk;
}

int RunMarkInitial(const Context& context, const SessionArgs& args) {
  absl::StatusOr<v1::MarkInitialStateResponse> marked = Handle(context, args).MarkInitialState();
  if (!marked.ok()) return Fail(context, marked.status());
  context.out << "initial state kept at step_count: " << marked->step_count() << "\n"
              << "time_s: " << marked->time_s() << "\n";
  return kExitOk;
}

}  // namespace contactsim::client::cli
