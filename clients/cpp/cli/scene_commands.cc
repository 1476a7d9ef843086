#include "clients/cpp/cli/scene_commands.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "clients/cpp/cli/exit_codes.h"
#include "clients/cpp/frame_record.h"
#include "clients/cpp/scene_file.h"
#include "clients/cpp/session_handle.h"
#include "clients/cpp/stream_stop.h"

namespace contactsim::client::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Set by SIGINT / SIGTERM while a recording runs (a lock-free atomic store is async-signal-safe).
std::atomic<bool> g_interrupted{false};

extern "C" void OnInterrupt(int /*signal*/) { g_interrupted.store(true); }

// Routes SIGINT and SIGTERM to OnInterrupt for its lifetime, then restores the old handlers.
class InterruptHandlers {
 public:
  InterruptHandlers() {
    g_interrupted.store(false);
    struct sigaction action {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~InterruptHandlers() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  InterruptHandlers(const InterruptHandlers&) = delete;
  InterruptHandlers& operator=(const InterruptHandlers&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// Ends the stream (StreamStop) on an interrupt or at the deadline, checking every 50 ms: a
// stream waiting for a frame that never comes must still end on time.
class StopWatcher {
 public:
  StopWatcher(StreamStop* stop, std::optional<Clock::time_point> deadline)
      : thread_([this, stop, deadline] {
          std::unique_lock<std::mutex> lock(mutex_);
          while (!done_) {
            const bool expired = deadline && Clock::now() >= *deadline;
            if (g_interrupted.load() || expired) {
              interrupted_ = g_interrupted.load();
              stop->Stop();
              return;
            }
            wake_.wait_for(lock, std::chrono::milliseconds(50));
          }
        }) {}
  ~StopWatcher() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  StopWatcher(const StopWatcher&) = delete;
  StopWatcher& operator=(const StopWatcher&) = delete;

  bool interrupted() {
    std::lock_guard<std::mutex> lock(mutex_);
    return interrupted_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;         // guarded by mutex_
  bool interrupted_ = false;  // guarded by mutex_
  std::thread thread_;        // last: starts after the members it uses
};

}  // namespace

int RunLoad(const Context& context, const LoadArgs& args) {
  absl::StatusOr<v1::SceneFile> scene = ReadSceneFile(args.scene_file);
  if (!scene.ok()) {
    context.err << "error: " << scene.status().message() << "\n";
    return kExitUsage;
  }
  // A scene's own mistakes and a mesh file that is not there are the command's fault (exit 2),
  // found before any call.
  if (absl::Status names = CheckSceneMeshFiles(*scene); !names.ok()) {
    context.err << "error: " << args.scene_file << ": " << names.message() << "\n";
    return kExitUsage;
  }
  for (int i = 0; i < scene->mesh_files_size(); ++i) {
    const v1::SceneMeshFile& mesh_file = scene->mesh_files(i);
    if (!std::ifstream(mesh_file.path(), std::ios::binary)) {
      context.err << "error: " << args.scene_file << ": mesh_files[" << i << "] ("
                  << mesh_file.name() << "): " << mesh_file.path() << ": cannot read the file\n";
      return kExitUsage;
    }
  }
  absl::StatusOr<LoadedScene> loaded = LoadScene(context.connection, *scene, args.name);
  if (!loaded.ok()) {
    return ReportFailure(loaded.status(), context.connection, context.server, context.err);
  }
  context.out << "session_id: " << loaded->session.session_id << "\n"
              << "controller_token: " << loaded->session.controller_token << "\n"
              << "viewer_token: " << loaded->session.viewer_token << "\n"
              << "bodies: " << loaded->bodies.size() << "\n";
  int64_t vertices = 0;
  for (const v1::AddBodyResponse& body : loaded->bodies) vertices += body.num_vertices();
  context.out << "vertices: " << vertices << "\n"
              << "constraints: " << loaded->constraint_ids.size() << "\n";
  if (!scene->description().empty()) {
    context.out << "description: " << scene->description() << "\n";
  }
  if (scene->suggested_steps() > 0) {
    context.out << "suggested_steps: " << scene->suggested_steps() << "\n";
  }
  return kExitOk;
}

int RunRecord(const Context& context, const RecordArgs& args) {
  const RecordFormat format = args.format == "csv" ? RecordFormat::kCsv : RecordFormat::kBinary;
  std::ofstream file(args.out_file, std::ios::binary | std::ios::trunc);
  if (!file) {
    context.err << "error: cannot write " << args.out_file << "\n";
    return kExitUsage;
  }
  // A CSV names the robots' joints in its header: their names and types come from GetSession.
  std::vector<v1::RobotInfo> robots;
  if (format == RecordFormat::kCsv) {
    absl::StatusOr<v1::GetSessionResponse> info =
        context.connection.Session(args.session.session_id, args.session.token).GetSession();
    if (!info.ok()) {
      return ReportFailure(info.status(), context.connection, context.server, context.err);
    }
    robots.assign(info->robots().begin(), info->robots().end());
  }
  FrameRecorder recorder(file, format, std::move(robots));

  v1::StreamStateRequest request;
  request.set_from_seq(args.from_seq);
  request.set_include_contacts(true);
  request.set_max_rate_hz(args.max_rate_hz);
  request.set_precision(args.float64 ? v1::PRECISION_FLOAT64 : v1::PRECISION_FLOAT32);

  const Clock::time_point start = Clock::now();
  std::optional<Clock::time_point> deadline;
  if (args.duration_s > 0.0) {
    deadline = start + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(args.duration_s));
  }
  InterruptHandlers handlers;
  StreamStop stop;
  absl::Status write_status;
  Clock::time_point last_progress = start;
  bool interrupted = false;
  absl::Status status;
  {
    StopWatcher watcher(&stop, deadline);
    const SessionHandle session =
        context.connection.Session(args.session.session_id, args.session.token);
    status = session.StreamState(
        request,
        [&](const v1::StateFrame& frame) {
          write_status = recorder.Write(frame);
          // Flushed per frame: an interrupted or killed recorder leaves whole frames behind.
          if (write_status.ok() && !file.flush()) {
            write_status = absl::DataLossError("the file refused the frame");
          }
          if (!write_status.ok()) return false;
          const Clock::time_point now = Clock::now();
          if (now - last_progress >= std::chrono::seconds(1)) {
            last_progress = now;
            const double elapsed_s = std::chrono::duration<double>(now - start).count();
            context.err << "record: " << recorder.frames_written() << " frames, "
                        << recorder.frames_written() / elapsed_s << " frames/s" << std::endl;
          }
          return args.frames == 0 || recorder.frames_written() < args.frames;
        },
        &stop);
    interrupted = watcher.interrupted();
  }
  file.flush();
  if (!write_status.ok() || !file) {
    context.err << "error: cannot write " << args.out_file << ": " << write_status.message()
                << "\n";
    return kExitUsage;
  }
  if (!status.ok()) {
    return ReportFailure(status, context.connection, context.server, context.err);
  }
  const double elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (interrupted) context.err << "record: interrupted, file closed cleanly\n";
  context.out << "frames: " << recorder.frames_written() << "\n"
              << "file: " << args.out_file << "\n"
              << "format: " << args.format << "\n"
              << "bytes: " << static_cast<int64_t>(file.tellp()) << "\n"
              << "elapsed_s: " << elapsed_s << "\n";
  return kExitOk;
}

}  // namespace contactsim::client::cli
