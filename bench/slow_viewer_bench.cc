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
//                     [--steps-per-call 1] [--readers-process [--server-cpus 0 --reader-cpus 1]]
//
// Target (issue 21): with the 20 subscribers, the controller's p99 at most 1.25x the p99 without.
// By default everything shares this machine's cores and one process: the readers' decoding and
// their client-side gRPC threads compete with the server and the controller. --readers-process
// runs the subscribers in a child process forked before gRPC starts (so its threads are its own),
// as viewers on other machines are; --server-cpus / --reader-cpus pin each process to CPUs
// (sched_setaffinity), e.g. 0 and 1 on a 2-core machine, so the readers' own work leaves the
// server's core and only what the server does for them stays there.
#include <poll.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "clients/cpp/client.h"
#include "clients/cpp/percentiles.h"
#include "core/common/status_macros.h"
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

  // Waits until every reader and the silent subscriber have a frame, calling `wait` meanwhile
  // (a Step in the controller's process, a short sleep in the readers' own).
  absl::Status WaitForFirstFrames(const std::function<absl::Status()>& wait) {
    v1::StateFrame first;
    if (silent_ != nullptr && !silent_->Read(&first)) {
      return absl::UnavailableError("the silent subscriber got no frame");
    }
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(30);
    for (const auto& r : readers_) {
      while (r->frames.load() == 0) {
        if (Clock::now() > deadline) return absl::DeadlineExceededError("readers: no first frame");
        if (absl::Status s = wait(); !s.ok()) return s;
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

// "0,1" -> {0, 1}; empty: no pinning.
absl::StatusOr<std::vector<int>> ParseCpus(const std::string& text) {
  std::vector<int> cpus;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    int cpu = 0;
    if (!absl::SimpleAtoi(part, &cpu) || cpu < 0 || cpu >= CPU_SETSIZE) {
      return absl::InvalidArgumentError(absl::StrCat("not a CPU number: '", part, "'"));
    }
    cpus.push_back(cpu);
  }
  return cpus;
}

// Pins the calling thread, and every thread it starts from now on, to `cpus` (none: no change).
absl::Status Pin(const std::vector<int>& cpus) {
  if (cpus.empty()) return absl::OkStatus();
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    return absl::InternalError(absl::StrCat("sched_setaffinity: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

// The readers' process: lines from the controller's process on `commands`, answers on `answers`.
//   session ADDRESS SESSION_ID VIEWER_TOKEN  -> (nothing)
//   start READERS SILENT(0|1)                -> ready | error MESSAGE
//   stop                                     -> frames FEWEST TOTAL | error MESSAGE
//   quit
int ReaderProcess(int commands, int answers, double max_rate_hz) {
  FILE* in = fdopen(commands, "r");
  FILE* out = fdopen(answers, "w");
  char line[1024];
  char address[256], session_id[256], token[256];
  if (std::fgets(line, sizeof(line), in) == nullptr ||
      std::sscanf(line, "session %255s %255s %255s", address, session_id, token) != 3) {
    return 1;
  }
  contactsim::client::ConnectionOptions options;
  options.target = address;
  contactsim::client::Connection connection(options);
  const auto watcher = connection.Session(session_id, token);
  std::unique_ptr<Subscribers> subscribers;
  const auto answer = [out](const std::string& text) {
    std::fprintf(out, "%s\n", text.c_str());
    std::fflush(out);
  };
  while (std::fgets(line, sizeof(line), in) != nullptr) {
    int readers = 0, silent = 0;
    if (std::sscanf(line, "start %d %d", &readers, &silent) == 2) {
      subscribers =
          std::make_unique<Subscribers>(connection, watcher, readers, max_rate_hz, silent != 0);
      const absl::Status ready = subscribers->WaitForFirstFrames([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return absl::OkStatus();
      });
      answer(ready.ok() ? "ready" : "error " + ready.ToString());
    } else if (std::strncmp(line, "stop", 4) == 0 && subscribers != nullptr) {
      const auto [fewest, total] = subscribers->Frames();
      const absl::Status stopped = subscribers->Stop();
      subscribers.reset();
      answer(stopped.ok() ? absl::StrCat("frames ", fewest, " ", total)
                          : "error " + stopped.ToString());
    } else {
      break;  // quit, or a line it does not know
    }
  }
  return 0;
}

// The controller's end of the readers' process.
class RemoteReaders {
 public:
  RemoteReaders(pid_t child, int commands, int answers)
      : child_(child), commands_(fdopen(commands, "w")), answers_(answers) {}
  ~RemoteReaders() {
    Send("quit");
    std::fclose(commands_);
    close(answers_);
    waitpid(child_, nullptr, 0);
  }

  void Send(const std::string& line) {
    std::fprintf(commands_, "%s\n", line.c_str());
    std::fflush(commands_);
  }

  // Starts the phase's subscribers there, stepping `controller` until they all have a frame.
  absl::Status Start(int readers, bool silent,
                     const contactsim::client::SessionHandle& controller) {
    Send(absl::StrCat("start ", readers, " ", silent ? 1 : 0));
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(60);
    for (;;) {
      pollfd ready{.fd = answers_, .events = POLLIN, .revents = 0};
      if (poll(&ready, 1, 0) > 0) break;
      if (Clock::now() > deadline)
        return absl::DeadlineExceededError("readers' process: no answer");
      if (auto s = controller.Step(1); !s.ok()) return s.status();
    }
    ASSIGN_OR_RETURN(const std::string answer, ReadLine());
    if (answer != "ready") return absl::UnavailableError("readers' process: " + answer);
    return absl::OkStatus();
  }

  // Stops them; their frames since Start: (fewest, total).
  absl::StatusOr<std::pair<int64_t, int64_t>> Stop() {
    Send("stop");
    ASSIGN_OR_RETURN(const std::string answer, ReadLine());
    long long fewest = 0, total = 0;
    if (std::sscanf(answer.c_str(), "frames %lld %lld", &fewest, &total) != 2) {
      return absl::UnavailableError("readers' process: " + answer);
    }
    return std::make_pair(static_cast<int64_t>(fewest), static_cast<int64_t>(total));
  }

 private:
  absl::StatusOr<std::string> ReadLine() {
    std::string line;
    char c = 0;
    while (read(answers_, &c, 1) == 1) {
      if (c == '\n') return line;
      line.push_back(c);
    }
    return absl::UnavailableError("readers' process ended");
  }

  const pid_t child_;
  FILE* const commands_;
  const int answers_;
};

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
  bool readers_process = false;
  std::string server_cpus_text, reader_cpus_text;
  app.add_flag("--readers-process", readers_process,
               "the subscribers in a child process of their own (as viewers elsewhere are)");
  app.add_option("--server-cpus", server_cpus_text,
                 "CPUs for the server and the controller, e.g. 0 (default: any)");
  app.add_option("--reader-cpus", reader_cpus_text,
                 "CPUs for the readers' process, e.g. 1 (with --readers-process; default: any)");
  CLI11_PARSE(app, argc, argv);
  const absl::StatusOr<std::vector<int>> server_cpus = ParseCpus(server_cpus_text);
  if (!server_cpus.ok()) return Fail("--server-cpus", server_cpus.status());
  const absl::StatusOr<std::vector<int>> reader_cpus = ParseCpus(reader_cpus_text);
  if (!reader_cpus.ok()) return Fail("--reader-cpus", reader_cpus.status());
  if (!reader_cpus->empty() && !readers_process) {
    return Fail("--reader-cpus", absl::InvalidArgumentError("needs --readers-process"));
  }

  // The readers' process is forked before anything starts a thread (gRPC included).
  std::unique_ptr<RemoteReaders> remote;
  if (readers_process) {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) {
      return Fail("pipe", absl::InternalError(std::strerror(errno)));
    }
    const pid_t child = fork();
    if (child < 0) return Fail("fork", absl::InternalError(std::strerror(errno)));
    if (child == 0) {
      close(to_child[1]);
      close(from_child[0]);
      if (auto pinned = Pin(*reader_cpus); !pinned.ok()) _exit(Fail("--reader-cpus", pinned));
      _exit(ReaderProcess(to_child[0], from_child[1], max_rate_hz));
    }
    close(to_child[0]);
    close(from_child[1]);
    std::signal(SIGPIPE, SIG_IGN);  // a readers' process that ended answers "ended", not a signal
    remote = std::make_unique<RemoteReaders>(child, to_child[1], from_child[0]);
  }
  if (auto pinned = Pin(*server_cpus); !pinned.ok()) return Fail("--server-cpus", pinned);

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
  if (remote != nullptr) {
    remote->Send(absl::StrCat("session ", (*server)->address(), " ", created->session_id, " ",
                              created->viewer_token));
  }
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
      const bool subscribed = c.readers > 0 || c.silent;
      std::unique_ptr<Subscribers> subscribers;
      if (subscribed && remote != nullptr) {
        if (auto s = remote->Start(c.readers, c.silent, controller); !s.ok()) {
          return Fail("stream", s);
        }
      } else if (subscribed) {
        subscribers =
            std::make_unique<Subscribers>(connection, watcher, c.readers, max_rate_hz, c.silent);
        const auto step = [&controller] { return controller.Step(1).status(); };
        if (auto s = subscribers->WaitForFirstFrames(step); !s.ok()) return Fail("stream", s);
      }
      auto timed = TimeSteps(controller, calls, steps_per_call);
      if (!timed.ok()) return Fail("Step", timed.status());
      if (subscribed) {
        std::pair<int64_t, int64_t> frames;
        if (remote != nullptr) {
          auto stopped = remote->Stop();
          if (!stopped.ok()) return Fail("StreamState", stopped.status());
          frames = *stopped;
        } else {
          frames = subscribers->Frames();
          if (auto s = subscribers->Stop(); !s.ok()) return Fail("StreamState", s);
        }
        c.fewest = c.fewest < 0 ? frames.first : std::min(c.fewest, frames.first);
        c.frames += frames.second;
      }
      c.p99_per_round.push_back(PercentileOfSorted(Sorted(*timed), 0.99));
      c.all.insert(c.all.end(), timed->begin(), timed->end());
    }
  }
  size_t reply_bytes = 0;
  if (auto reply = controller.Step(steps_per_call); reply.ok()) reply_bytes = reply->ByteSizeLong();
  remote.reset();  // the readers' process quits before the server goes
  (*server)->Shutdown(std::chrono::seconds(2));

  std::printf(
      "Box session, Step(n_steps = %d) round trips (reply %zu bytes); %d rounds of %d calls in "
      "each condition; readers at max_rate_hz %g, %s; server and controller on CPUs [%s], "
      "readers on [%s]\n\n",
      steps_per_call, reply_bytes, rounds, calls, max_rate_hz,
      readers_process ? "in a process of their own" : "in the server's process",
      server_cpus_text.empty() ? "any" : server_cpus_text.c_str(),
      reader_cpus_text.empty() ? "any" : reader_cpus_text.c_str());
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
