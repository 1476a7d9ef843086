// slow_viewer_bench: does a viewer that never reads move the controller's p99? One process starts
// the server library on 127.0.0.1 and creates the tested box session (a 1 kg box resting on the
// ground plane; --cloth-cells N adds a free-falling N x N cloth, for larger frames). A controller
// times Step(n_steps = 1) round trips in alternating phases of --calls calls, --rounds times:
// without subscribers, then with --readers StreamState subscribers that read every frame
// (max_rate_hz --max-rate-hz, 0: uncapped) plus one that takes its first frame and never reads
// again (its write waits on flow control; the server skips frames for it). The subscribers
// connect before and leave after their phase. Alternating phases share the machine's drift.
// Prints p50 and p99 per condition (all rounds pooled, and per round) and the ratio with/without.
//
//   slow_viewer_bench [--calls 1000] [--rounds 6] [--readers 19] [--max-rate-hz 60]
//                     [--cloth-cells 0]
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

// A 1 m cloth beside the box, 5 cm above the plane: it lands within the warm-up and lies there,
// so every phase steps the same resting state; its positions make the frames larger.
v1::BodySpec Cloth(int cells) {
  v1::BodySpec body;
  body.set_name("cloth");
  body.set_kind(v1::BODY_KIND_CLOTH);
  v1::ClothGridShape* grid = body.mutable_primitive()->mutable_cloth_grid();
  grid->set_size_x_m(1.0);
  grid->set_size_y_m(1.0);
  grid->set_cells_x(cells);
  grid->set_cells_y(cells);
  body.mutable_cloth()->set_area_density_kg_per_m2(1.0);
  body.mutable_cloth()->set_stretch_stiffness_n_per_m(10.0);
  body.mutable_pose()->mutable_position_m()->set_x(2.0);
  body.mutable_pose()->mutable_position_m()->set_z(0.05);
  body.set_self_collision_disabled(true);
  return body;
}

// Round trips of `calls` Step(1) calls [ms].
absl::StatusOr<std::vector<double>> TimeSteps(const contactsim::client::SessionHandle& controller,
                                              int calls) {
  std::vector<double> round_trips;
  round_trips.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    const Clock::time_point before = Clock::now();
    auto reply = controller.Step(1);
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
              const contactsim::client::SessionHandle& watcher, int readers, double max_rate_hz)
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
    connection_.PrepareSessionContext(silent_context_, watcher_.session_id(), watcher_.token(),
                                      /*deadline=*/false);
    v1::StreamStateRequest request;
    request.set_session_id(watcher_.session_id());
    silent_ = connection_.stub().StreamState(&silent_context_, request);
  }

  // Waits until every reader and the silent subscriber have a frame (stepping meanwhile).
  absl::Status WaitForFirstFrames(const contactsim::client::SessionHandle& controller) {
    v1::StateFrame first;
    if (!silent_->Read(&first)) return absl::UnavailableError("the silent subscriber got no frame");
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
    silent_context_.TryCancel();
    silent_->Finish();
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
  int calls = 1000;
  int rounds = 6;
  int num_readers = 19;
  double max_rate_hz = 60.0;
  int cloth_cells = 0;
  CLI::App app{
      "Controller Step p99 without subscribers and with readers plus one that never reads"};
  app.add_option("--calls", calls, "Step(1) calls per phase")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--rounds", rounds, "pairs of phases (without, with subscribers)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--readers", num_readers, "subscribers that read, besides the one that does not")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--max-rate-hz", max_rate_hz, "the readers' max_rate_hz (0: every frame)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--cloth-cells", cloth_cells, "add an N x N cloth for larger frames (0: none)")
      ->check(CLI::Range(0, 200))
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
  if (cloth_cells > 0) {
    if (auto added = controller.AddBody(Cloth(cloth_cells)); !added.ok()) {
      return Fail("AddBody", added.status());
    }
  }
  // Warm-up: the box settles, the strand learns the step's cost (Steps then run inline).
  if (auto warm = TimeSteps(controller, 500); !warm.ok()) return Fail("Step", warm.status());

  std::vector<double> without, with;
  std::vector<double> p99_without, p99_with;
  int64_t fewest_frames = -1, frames = 0;
  size_t frame_bytes = 0;
  for (int round = 0; round < rounds; ++round) {
    auto alone = TimeSteps(controller, calls);
    if (!alone.ok()) return Fail("Step", alone.status());
    p99_without.push_back(PercentileOfSorted(Sorted(*alone), 0.99));
    without.insert(without.end(), alone->begin(), alone->end());

    Subscribers subscribers(connection, watcher, num_readers, max_rate_hz);
    if (auto s = subscribers.WaitForFirstFrames(controller); !s.ok()) return Fail("stream", s);
    auto watched = TimeSteps(controller, calls);
    if (!watched.ok()) return Fail("Step", watched.status());
    const auto [fewest, total] = subscribers.Frames();
    fewest_frames = fewest_frames < 0 ? fewest : std::min(fewest_frames, fewest);
    frames += total;
    if (auto s = subscribers.Stop(); !s.ok()) return Fail("StreamState", s);
    p99_with.push_back(PercentileOfSorted(Sorted(*watched), 0.99));
    with.insert(with.end(), watched->begin(), watched->end());
  }
  {
    auto reply = controller.Step(1);
    if (reply.ok()) frame_bytes = reply->ByteSizeLong();
  }
  (*server)->Shutdown(std::chrono::seconds(2));

  const std::vector<double> sorted_without = Sorted(without);
  const std::vector<double> sorted_with = Sorted(with);
  const double p50_without = PercentileOfSorted(sorted_without, 0.5);
  const double p50_with = PercentileOfSorted(sorted_with, 0.5);
  const double p99_all_without = PercentileOfSorted(sorted_without, 0.99);
  const double p99_all_with = PercentileOfSorted(sorted_with, 0.99);
  std::printf(
      "Box session%s, Step(n_steps = 1) round trips; %d rounds of %d calls without subscribers "
      "then %d calls with %d reading (max_rate_hz %g) + 1 never-reading StreamState subscriber\n\n",
      cloth_cells > 0 ? (" + " + std::to_string(cloth_cells) + "^2-cell cloth").c_str() : "",
      rounds, calls, calls, num_readers, max_rate_hz);
  std::printf("| condition | p50 [ms] | p99 [ms] (all rounds) | p99 per round [ms] |\n");
  std::printf("|---|---|---|---|\n");
  std::printf("| no subscribers | %.3f | %.3f | %s |\n", p50_without, p99_all_without,
              Join(p99_without).c_str());
  std::printf("| %d readers + 1 silent | %.3f | %.3f | %s |\n\n", num_readers, p50_with,
              p99_all_with, Join(p99_with).c_str());
  const double ratio = p99_all_with / p99_all_without;
  std::printf("p99 with / without: %.2fx (target <= 1.25x: %s); p50 %.2fx\n", ratio,
              ratio <= 1.25 ? "met" : "NOT met", p50_with / p50_without);
  std::printf("Readers: %.1f frames per reader and phase (fewest %lld), reply %zu bytes\n",
              double(frames) / std::max(1, num_readers * rounds),
              static_cast<long long>(fewest_frames), frame_bytes);
  return 0;
}
