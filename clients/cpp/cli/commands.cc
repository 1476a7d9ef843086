#include "clients/cpp/cli/commands.h"

#include <chrono>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

#include "clients/cpp/box_mesh.h"
#include "clients/cpp/cli/exit_codes.h"
#include "clients/cpp/cli/robot_commands.h"
#include "clients/cpp/health_check.h"
#include "clients/cpp/session_handle.h"

namespace contactsim::client::cli {
namespace {

using Clock = std::chrono::steady_clock;

const char* StateName(v1::SessionState state) {
  switch (state) {
    case v1::SESSION_STATE_ACTIVE:
      return "active";
    case v1::SESSION_STATE_FAILED:
      return "failed";
    default:
      return "unspecified";
  }
}

std::string ToHex(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * bytes.size());
  for (unsigned char c : bytes) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex;
}

std::optional<std::string> FromHex(const std::string& hex) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit(hex[i]);
    const int lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    bytes.push_back(static_cast<char>(hi * 16 + lo));
  }
  return bytes;
}

}  // namespace

int Fail(const Context& context, const absl::Status& status) {
  return ReportFailure(status, context.connection, context.server, context.err);
}

int Usage(const Context& context, const std::string& message) {
  context.err << "error: " << message << "\n";
  return kExitUsage;
}

SessionHandle Handle(const Context& context, const SessionArgs& args) {
  return context.connection.Session(args.session_id, args.token);
}

std::string Vec3Text(const v1::Vec3& v) {
  std::ostringstream s;
  s << "(" << v.x() << ", " << v.y() << ", " << v.z() << ")";
  return s.str();
}

int RunPing(const Context& context, int count) {
  for (int i = 0; i < count; ++i) {
    const Clock::time_point start = Clock::now();
    absl::StatusOr<std::string> echo = context.connection.Ping("contactsim");
    if (!echo.ok()) return Fail(context, echo.status());
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    context.out << "pong from " << context.server << ": " << ms << " ms\n";
  }
  return kExitOk;
}

int RunHealth(const Context& context, const std::string& service) {
  absl::StatusOr<ServingStatus> status =
      CheckHealth(context.connection.channel(), service, context.connection.deadline());
  if (!status.ok()) return Fail(context, status.status());
  context.out << ServingStatusName(*status) << "\n";
  return *status == ServingStatus::kServing ? kExitOk : kExitRefused;
}

int RunSessions(const Context& context) {
  absl::StatusOr<std::vector<v1::SessionSummary>> sessions = context.connection.ListSessions();
  if (!sessions.ok()) return Fail(context, sessions.status());
  context.out << sessions->size() << " session(s)\n";
  for (const v1::SessionSummary& s : *sessions) {
    context.out << s.session_id() << "  name=" << s.name() << "  pipeline=" << s.pipeline()
                << "  device=" << s.device() << "  state=" << StateName(s.state())
                << "  steps=" << s.step_count() << "  time_s=" << s.time_s()
                << "  bodies=" << s.num_bodies() << "  memory_bytes=" << s.memory_bytes();
    if (!s.failure_message().empty()) context.out << "  failure=" << s.failure_message();
    context.out << "\n";
  }
  return kExitOk;
}

int RunCreate(const Context& context, const CreateArgs& args) {
  v1::CreateSessionRequest request;
  request.set_pipeline(args.pipeline);
  request.set_device(args.device);
  request.set_name(args.name);
  // Unset optional fields take the server's defaults; only what was given is sent.
  if (args.dt_s != 0.0) request.mutable_settings()->set_dt_s(args.dt_s);
  if (args.stiffness_n_per_m != 0.0) {
    request.mutable_settings()->set_stiffness_n_per_m(args.stiffness_n_per_m);
  }
  if (args.ground) {
    v1::GroundPlane* plane = request.add_ground_planes();
    plane->mutable_normal()->set_z(1.0);
    plane->set_offset_m(0.0);
  }
  absl::StatusOr<CreatedSession> created = context.connection.CreateSession(request);
  if (!created.ok()) return Fail(context, created.status());
  context.out << "session_id: " << created->session_id << "\n"
              << "controller_token: " << created->controller_token << "\n"
              << "viewer_token: " << created->viewer_token << "\n";
  if (args.box) {
    // 1 kg: (0.2 m)^3 at 125 kg/m^3.
    v1::BodySpec body;
    body.set_name("box");
    body.set_kind(v1::BODY_KIND_RIGID);
    *body.mutable_triangle_mesh() = BoxMesh(0.1, 0.1, 0.1);
    body.mutable_rigid()->set_density_kg_per_m3(125.0);
    body.mutable_pose()->mutable_position_m()->set_z(args.box_height_m);
    SessionHandle session =
        context.connection.Session(created->session_id, created->controller_token);
    absl::StatusOr<v1::AddBodyResponse> added = session.AddBody(body);
    if (!added.ok()) return Fail(context, added.status());
    context.out << "box_body_id: " << added->body_id() << "\n";
  }
  return kExitOk;
}

int RunWatch(const Context& context, const WatchArgs& args) {
  v1::StreamStateRequest request;
  request.set_from_seq(args.from_seq);
  request.set_include_contacts(true);
  request.set_max_rate_hz(args.max_rate_hz);
  // Joint names and units come from the robots the session has now (a later one: by index).
  v1::GetSessionResponse session;
  if (args.joints) {
    absl::StatusOr<v1::GetSessionResponse> got = Handle(context, args.session).GetSession();
    if (!got.ok()) return Fail(context, got.status());
    session = *std::move(got);
  }
  int64_t received = 0;
  Clock::time_point first;
  absl::Status status =
      Handle(context, args.session).StreamState(request, [&](const v1::StateFrame& frame) {
        const Clock::time_point now = Clock::now();
        if (received == 0) first = now;
        ++received;
        // Rate over the frames since the first one received.
        const double elapsed_s = std::chrono::duration<double>(now - first).count();
        const double rate = elapsed_s > 0 ? (received - 1) / elapsed_s : 0.0;
        context.out << "seq " << frame.seq() << "  t " << frame.time_s() << " s  steps "
                    << frame.step_count() << "  " << rate << " frames/s  coalesced "
                    << frame.coalesced() << "  contacts " << frame.contacts().contacts_size();
        if (frame.oldest_available_seq() != 0) {
          context.out << "  (older frames gone; oldest " << frame.oldest_available_seq() << ")";
        }
        if (frame.diagnostics().diverged()) {
          context.out << "  DIVERGED: " << frame.diagnostics().divergence_message();
        }
        context.out << "\n";
        if (args.joints) PrintJointStates(context.out, frame.joint_states(), session.robots());
        context.out << std::flush;  // a live view: show each frame now
        return args.frames == 0 || received < args.frames;
      });
  if (!status.ok()) return Fail(context, status);
  context.out << "frames: " << received << "\n";
  return kExitOk;
}

int RunSnapshot(const Context& context, const SnapshotArgs& args) {
  absl::StatusOr<v1::SnapshotResponse> snapshot = Handle(context, args.session).Snapshot();
  if (!snapshot.ok()) return Fail(context, snapshot.status());
  context.out << "step_count: " << snapshot->step_count() << "\n"
              << "time_s: " << snapshot->time_s() << "\n";
  if (args.out_file.empty()) {
    context.out << "snapshot: " << ToHex(snapshot->snapshot()) << "\n";
    return kExitOk;
  }
  std::ofstream file(args.out_file, std::ios::binary);
  file << snapshot->snapshot();
  if (!file.flush()) {
    context.err << "error: cannot write " << args.out_file << "\n";
    return kExitUsage;
  }
  context.out << "written: " << args.out_file << " (" << snapshot->snapshot().size() << " bytes)\n";
  return kExitOk;
}

int RunRestore(const Context& context, const RestoreArgs& args) {
  if (args.in_file.empty() && args.hex.empty()) {
    context.err << "error: restore needs --in FILE or --snapshot HEX\n";
    return kExitUsage;
  }
  std::string blob;
  if (!args.in_file.empty()) {
    std::ifstream file(args.in_file, std::ios::binary);
    if (!file) {
      context.err << "error: cannot read " << args.in_file << "\n";
      return kExitUsage;
    }
    blob.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  } else {
    std::optional<std::string> bytes = FromHex(args.hex);
    if (!bytes) {
      context.err << "error: --snapshot is not a hex string\n";
      return kExitUsage;
    }
    blob = std::move(*bytes);
  }
  absl::StatusOr<v1::RestoreResponse> restored = Handle(context, args.session).Restore(blob);
  if (!restored.ok()) return Fail(context, restored.status());
  context.out << "step_count: " << restored->step_count() << "\n"
              << "time_s: " << restored->time_s() << "\n";
  return kExitOk;
}

int RunClose(const Context& context, const SessionArgs& args) {
  absl::Status status = Handle(context, args).CloseSession();
  if (!status.ok()) return Fail(context, status);
  context.out << "closed: " << args.session_id << "\n";
  return kExitOk;
}

}  // namespace contactsim::client::cli
