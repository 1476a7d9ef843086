// slow_viewer_bench: does a viewer that never reads move the controller's p99? One process starts
// the server library on 127.0.0.1 and creates the tested box session (a 1 kg box resting on the
// ground plane). A controller times Step(n_steps = --steps-per-call) round trips in phases of
// --calls calls, --rounds times, cycling through three conditions: no subscribers; --readers
// StreamState subscribers that read every frame (max_rate_hz --max-rate-hz, 0: uncapped) plus
// one that asks the same, takes its first frame and never reads again (the server writes to it
// until flow control stops it, then skips frames for it); and the readers alone, which separates
// the silent one's share from the readers'. Subscribers connect before and leave after their phase;
// cycling short phases shares the machine's drift. Prints p50 and p99 per condition (all rounds
// pooled, and per round) and the ratios against no subscribers.
//
//   slow_viewer_bench [--calls 3000] [--rounds 6] [--readers 19] [--max-rate-hz 60]
//                     [--steps-per-call 1]
//
// Target (issue 21): with the 20 subscribers, the controller's p99 at most 1.25x the p99 without.
// Everything shares this machine's cores: the readers' decoding competes with the server.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "clients/cpp/client.h"
#include "clients/cpp/percentiles.h"
#include "scenes/requests/box_scene_request.h"
#include "server/service/server.h"

namespace {

namespace v1 = contactsim::v1;
using contactsim::client::demo::PercentileOfSorted;
using contactsim::client::demo::Sorted;
using Clock = std::chrono::steady_clock;

v1::BodySpec Box() {
  v1::BodySpec body;
  body.set_name("box");
  body.set_kind(v1::BODY_KIND_RIGID);
  v1::BoxShape* box = body.mutable_primitive()->mutable_box();
  box->mutable_half_extents_m()->set_x(0.1);
  box->mutable_half_extents_m()->set_y(0.1);
  box->mutable_half_extents_m()->set_z(0.1);
  body.mutable_rigid()->set_density_kg_per_m3(125.0);
  body.mutable_pose()->mutable_position_m()->set_z(0.1);
  return body;
}

// Round trips of `calls` Step(steps_per_call) calls [ms].
absl::StatusOr<std::vector<double>> TimeSteps(const contactsim::client::SessionHandle& controller,
                                              int calls, int steps_per_call) {
  std::vector<double> round_trips;
  round_trips.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    const Clock::time_point before = Clock::now();
    auto reply = controller.Step(steps_per_call);
    const Clock::time_point after = Clock::now();
    if (!reply.ok()) return reply.status();
    round_trips.push_back(std::chrono::duration<double, std::milli>(after - before).count());
  }
  return round_trips;
}

struct Reader {
  std::atomic<int64_t> frames{0};
  contactsim::client::StreamStop stop;
  absl::Status status;
  std::thread thread;
};

// The phase's subscribers: `readers` that read every frame and one that never reads.
class Subscribers {
 public:
  Subscribers(const contactsim::client::Connection& connection,
              const contactsim::client::SessionHandle& watcher, int readers, double max_rate_hz,
              bool silent)
      : connection_(connection), watcher_(watcher) {
    for (int i = 0; i < readers; ++i) {
      auto reader = std::make_unique<Reader>();
      Reader* r = reader.get();
      r->thread = std::thread([r, this, max_rate_hz] {
        v1::StreamStateRequest request;
        request.set_max_rate_hz(max_rate_hz);
        r->status = watcher_.StreamState(
            request,
            [r](const v1::StateFrame&) {
              r->frames.fetch_add(1);
              return true;
            },
            &r->stop);
      });
      readers_.push_back(std::move(reader));
    }
    if (!silent) return;
    connection_.PrepareSessionContext(silent_context_, watcher_.session_id(), watcher_.token(),
                                      /*deadline=*/false);
    // Asks what the readers ask; it just never reads.
    v1::StreamStateRequest request;
    request.set_session_id(watcher_.session_id());
    request.set_max_rate_hz(max_rate_hz);
    silent_ = connection_.stub().StreamState(&silent_context_, request);
  }

  // Waits until every reader and the silent subscriber have a frame (stepping meanwhile).
  absl::Status WaitForFirstFrames(const contactsim::client::SessionHandle& controller) {
    v1::StateFrame first;
    if (silent_ != nullptr && !silent_->Read(&first)) {
      return absl::UnavailableError("the silent subscriber got no frame");
    }
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(30);
    for (const auto& r : readers_) {
      while (r->frames.load() == 0) {
        if (Clock::now() > deadline) return absl::DeadlineExceededError("readers: no first frame");
        if (auto s = controller.Step(1); !s.ok()) return s.status();
      }
    }
    for (const auto& r : readers_) r->frames = 0;
    return absl::OkStatus();
  }

  // Frames the readers received since WaitForFirstFrames: min and total.
  std::pair<int64_t, int64_t> Frames() const {
    int64_t fewest = -1, total = 0;
    for (const auto& r : readers_) {
      const int64_t f = r->frames.load();
      fewest = fewest < 0 ? f : std::min(fewest, f);
      total += f;
    }
    return {fewest, total};
  }

  absl::Status Stop() {
    for (const auto& r : readers_) r->stop.Stop();
    absl::Status status;
    for (const auto& r : readers_) {
      r->thread.join();
      if (!r->status.ok()) status = r->status;
    }
    if (silent_ != nullptr) {
      silent_context_.TryCancel();
      silent_->Finish();
    }
    return status;
  }

 private:
  const contactsim::client::Connection& connection_;
  const contactsim::client::SessionHandle& watcher_;
  std::vector<std::unique_ptr<Reader>> readers_;
  grpc::ClientContext silent_context_;
  std::unique_ptr<grpc::ClientReader<v1::StateFrame>> silent_;
};

std::string Join(const std::vector<double>& values) {
  std::string text;
  char buffer[32];
  for (double v : values) {
    std::snprintf(buffer, sizeof(buffer), "%.3f", v);
    text += (text.empty() ? "" : ", ") + std::string(buffer);
  }
  return text;
}

int Fail(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "slow_viewer_bench: %s: %s\n", what, status.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 3000;
  int rounds = 6;
  int num_readers = 19;
  double max_rate_hz = 60.0;
  int steps_per_call = 1;
  CLI::App app{"Controller Step p99 without subscribers, with readers plus one that never reads"};
  app.add_option("--calls", calls, "Step calls per phase")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--rounds", rounds, "cycles of the three phases")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--readers", num_readers, "subscribers that read, besides the one that does not")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--max-rate-hz", max_rate_hz, "the readers' max_rate_hz (0: every frame)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--steps-per-call", steps_per_call, "n_steps of each timed Step")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  contactsim::server::ServerOptions server_options;
  server_options.listen_address = "127.0.0.1:0";
  auto server = contactsim::server::ContactSimServer::Start(server_options);
  if (!server.ok()) return Fail("server", server.status());
  contactsim::client::ConnectionOptions connection_options;
  connection_options.target = (*server)->address();
  contactsim::client::Connection connection(connection_options);
  auto created = connection.CreateSession(contactsim::test_fixtures::BoxSceneRequest());
  if (!created.ok()) return Fail("CreateSession", created.status());
  const auto controller = connection.Session(created->session_id, created->controller_token);
  const auto watcher = connection.Session(created->session_id, created->viewer_token);
  if (auto added = controller.AddBody(Box()); !added.ok()) return Fail("AddBody", added.status());
  // Warm-up: the box settles, the strand learns the step's cost (Steps then run inline).
  if (auto warm = TimeSteps(controller, 500, steps_per_call); !warm.ok()) {
    return Fail("Step", warm.status());
  }

  struct Condition {
    std::string name;
    int readers = 0;
    bool silent = false;
    std::vector<double> all;
    std::vector<double> p99_per_round;
    int64_t frames = 0;
    int64_t fewest = -1;
  };
  std::vector<Condition> conditions = {
      {"no subscribers", 0, false, {}, {}, 0, -1},
      {std::to_string(num_readers) + " readers + 1 silent", num_readers, true, {}, {}, 0, -1},
      {std::to_string(num_readers) + " readers alone", num_readers, false, {}, {}, 0, -1}};
  for (int round = 0; round < rounds; ++round) {
    for (Condition& c : conditions) {
      std::unique_ptr<Subscribers> subscribers;
      if (c.readers > 0 || c.silent) {
        subscribers =
            std::make_unique<Subscribers>(connection, watcher, c.readers, max_rate_hz, c.silent);
        if (auto s = subscribers->WaitForFirstFrames(controller); !s.ok()) return Fail("stream", s);
      }
      auto timed = TimeSteps(controller, calls, steps_per_call);
      if (!timed.ok()) return Fail("Step", timed.status());
      if (subscribers != nullptr) {
        const auto [fewest, total] = subscribers->Frames();
        c.fewest = c.fewest < 0 ? fewest : std::min(c.fewest, fewest);
        c.frames += total;
        if (auto s = subscribers->Stop(); !s.ok()) return Fail("StreamState", s);
      }
      c.p99_per_round.push_back(PercentileOfSorted(Sorted(*timed), 0.99));
      c.all.insert(c.all.end(), timed->begin(), timed->end());
    }
  }
  size_t reply_bytes = 0;
  if (auto reply = controller.Step(steps_per_call); reply.ok()) reply_bytes = reply->ByteSizeLong();
  (*server)->Shutdown(std::chrono::seconds(2));

  std::printf(
      "Box session, Step(n_steps = %d) round trips (reply %zu bytes); %d rounds of %d calls in "
      "each condition; readers at max_rate_hz %g\n\n",
      steps_per_call, reply_bytes, rounds, calls, max_rate_hz);
  std::printf(
      "| condition | p50 [ms] | p99 [ms] (all rounds) | p99 / none | p99 per round [ms] | "
      "frames per reader and phase (fewest) |\n|---|---|---|---|---|---|\n");
  const std::vector<double> none = Sorted(conditions[0].all);
  const double p99_none = PercentileOfSorted(none, 0.99);
  for (const Condition& c : conditions) {
    const std::vector<double> sorted = Sorted(c.all);
    const double p99 = PercentileOfSorted(sorted, 0.99);
    std::printf("| %s | %.3f | %.3f | %.2fx | %s | ", c.name.c_str(),
                PercentileOfSorted(sorted, 0.5), p99, p99 / p99_none,
                Join(c.p99_per_round).c_str());
    if (c.readers > 0) {
      std::printf("%.1f (%lld) |\n", double(c.frames) / (c.readers * rounds),
                  static_cast<long long>(c.fewest));
    } else {
      std::printf("- |\n");
    }
  }
  const double with = PercentileOfSorted(Sorted(conditions[1].all), 0.99);
  const double alone = PercentileOfSorted(Sorted(conditions[2].all), 0.99);
  std::printf(
      "\np99 with the 20 subscribers / without: %.2fx (target <= 1.25x: %s); with / the "
      "readers alone: %.2fx (the silent subscriber's own share)\n",
      with / p99_none, with <= 1.25 * p99_none ? "met" : "NOT met", with / alone);
  return 0;
}
