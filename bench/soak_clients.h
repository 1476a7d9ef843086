// The soak's clients (bench/soak.cc). Each kind runs one loop of calls against a ContactSim server
// until told to stop, and tallies every call's status code as expected for what it asked, or not:
// controllers step their own session (retry-safe, with expected_step_count), viewers watch the
// controllers' sessions for a few frames at a time, uploaders stream meshes into a fresh session
// and close it, snapshotters snapshot, restore and reset, cancellers cancel Steps, streams and
// uploads part-way and send 1 µs deadlines, and bad-request clients send requests the server must
// refuse with one named code (a wrong token, a viewer token stepping, NaN, counts out of range...).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "clients/cpp/client.h"

namespace contactsim::bench::soak {

enum class Kind { kController, kViewer, kUploader, kSnapshotter, kCanceller, kBadRequests };
inline constexpr Kind kKinds[] = {Kind::kController,  Kind::kViewer,    Kind::kUploader,
                                  Kind::kSnapshotter, Kind::kCanceller, Kind::kBadRequests};
const char* KindName(Kind kind);

// Status codes per kind, expected or not, and the first unexpected ones in words. Thread-safe.
class Tally {
 public:
  struct Row {
    std::map<absl::StatusCode, int64_t> expected;
    std::map<absl::StatusCode, int64_t> unexpected;
  };
  // `what` names the call ("Step", "Restore: step_count"); `message` is the server's.
  void Record(Kind kind, std::string_view what, const absl::Status& status, bool expected);
  std::map<Kind, Row> Rows() const;
  int64_t calls() const;
  int64_t unexpected() const;
  std::vector<std::string> examples() const;  // at most kMaxExamples

  static constexpr size_t kMaxExamples = 20;

 private:
  mutable std::mutex mu_;
  std::map<Kind, Row> rows_;
  int64_t calls_ = 0;
  int64_t unexpected_ = 0;
  std::vector<std::string> examples_;
};

// A session a controller steps and viewers watch.
struct WatchedSession {
  std::string id;
  std::string controller_token;
  std::string viewer_token;
};

// What one client needs; it runs until `stop`. `stream_stop` ends a stream it is reading.
struct ClientSetup {
  Kind kind = Kind::kController;
  int index = 0;  // among all clients: picks the watched session and seeds the choices
  client::Connection connection;
  std::vector<WatchedSession> watched;  // one per controller, created before the clients start
  Tally* tally = nullptr;
  const std::atomic<bool>* stop = nullptr;
  client::StreamStop* stream_stop = nullptr;
};

// Creates a session a controller will step: the tested box scene with two stacked boxes.
absl::StatusOr<WatchedSession> CreateWatchedSession(const client::Connection& connection);

// Runs the client's loop until *setup.stop.
void RunClient(const ClientSetup& setup);

}  // namespace contactsim::bench::soak
