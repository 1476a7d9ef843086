// soak: the real contactsim-server under --clients mixed clients for --duration-s (issue 21). It
// starts the server binary on an ephemeral loopback port, creates one session per controller,
// and runs the clients of bench/soak_clients.h: controllers, viewers, uploaders, snapshotters,
// cancellers and bad requests (in the pattern C V C V U S X B, so 32 clients are 8 controllers,
// 8 viewers and 4 of each other kind), each on its own connection. Every call's status code is
// tallied per kind as expected or unexpected. The server's resident memory (/proc/<pid>/status
// VmRSS) is sampled every
// --sample-s; the drift is the median of the last --window-s of samples over the median of the
// first --window-s after --warmup-s, minus one (growth; a shrinking RSS passes). The RSS climbs
// to its plateau within the first 90 s here (the first long Steps' transient allocations leave
// the heap larger), hence the default warm-up.
// Progress every --progress-s on stderr. At the end the server gets SIGTERM and must exit 0.
//
//   soak [--duration-s 300] [--clients 32] [--warmup-s 90] [--window-s 30] [--sample-s 5]
//        [--progress-s 15] [--server-binary PATH] [--log FILE]
//
// Targets (issue 21): 0 crashes, 0 unexpected status codes, RSS drift <= 5 % after the warm-up.
// Exit code 0 when all three are met.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "bench/soak_clients.h"
#include "clients/cpp/server_process.h"
#include "grpcpp/grpcpp.h"

namespace {

namespace soak = contactsim::bench::soak;
using Clock = std::chrono::steady_clock;

constexpr soak::Kind kPattern[] = {soak::Kind::kController, soak::Kind::kViewer,
                                   soak::Kind::kController, soak::Kind::kViewer,
                                   soak::Kind::kUploader,   soak::Kind::kSnapshotter,
                                   soak::Kind::kCanceller,  soak::Kind::kBadRequests};

// A /proc/<pid>/status field in kB (VmRSS) or a count (Threads); -1 when unreadable.
double ProcStatus(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      std::istringstream value(line.substr(field.size() + 1));
      double number = -1.0;
      value >> number;
      return number;
    }
  }
  return -1.0;
}

// A zombie or a vanished process: it died before we stopped it.
bool Alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

struct Sample {
  double t_s;
  double rss_mib;
  double threads;
};

// The median RSS of the samples in [from_s, to_s]; -1 when none. A median, not a mean: a Step of
// many steps holds its per-step diagnostics (tens of MiB for 100,000 steps) for as long as it
// runs, a transient spike that is not drift.
double MedianRss(const std::vector<Sample>& samples, double from_s, double to_s) {
  std::vector<double> values;
  for (const Sample& s : samples) {
    if (s.t_s >= from_s && s.t_s <= to_s) values.push_back(s.rss_mib);
  }
  if (values.empty()) return -1.0;
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// A channel of its own, on its own TCP connection (gRPC shares one between channels of equal
// arguments otherwise), as separate client processes have; the connection's default deadline.
contactsim::client::Connection OwnConnection(const std::string& address) {
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  arguments.SetMaxReceiveMessageSize(64 << 20);
  return contactsim::client::Connection(
      grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), arguments),
      contactsim::client::ConnectionOptions().deadline);
}

std::string Codes(const std::map<absl::StatusCode, int64_t>& codes) {
  std::string text;
  for (const auto& [code, count] : codes) {
    absl::StrAppend(&text, text.empty() ? "" : ", ", absl::StatusCodeToString(code), " ", count);
  }
  return text.empty() ? "-" : text;
}

}  // namespace

int main(int argc, char** argv) {
  double duration_s = 300.0;
  int num_clients = 32;
  double warmup_s = 90.0;
  double window_s = 30.0;
  double sample_s = 5.0;
  double progress_s = 15.0;
  std::string server_binary = CONTACTSIM_SERVER_PATH;
  std::string log_path = "/tmp/contactsim_soak_server.log";
  CLI::App app{"Soak: mixed clients against contactsim-server; status codes and RSS drift"};
  app.add_option("--duration-s", duration_s, "length of the run [s]")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--clients", num_clients, "clients, in the pattern C V C V U S X B")
      ->check(CLI::Range(8, 256))
      ->capture_default_str();
  app.add_option("--warmup-s", warmup_s, "time before the drift's baseline [s]")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--window-s", window_s, "samples averaged at each end of the drift [s]")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--sample-s", sample_s, "RSS sampling interval [s]")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--progress-s", progress_s, "progress line interval [s]")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--server-binary", server_binary, "contactsim-server to run")
      ->capture_default_str();
  app.add_option("--log", log_path, "where the server's log goes")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (warmup_s + 2 * window_s > duration_s) {
    std::fprintf(stderr, "soak: --duration-s must cover --warmup-s and two --window-s\n");
    return 2;
  }

  auto server = contactsim::client::ServerProcess::Start(server_binary, {}, log_path,
                                                         std::chrono::seconds(60));
  if (!server.ok()) {
    std::fprintf(stderr, "soak: %s\n", server.status().ToString().c_str());
    return 2;
  }
  const pid_t pid = (*server)->pid();
  contactsim::client::ConnectionOptions connection_options;
  connection_options.target = (*server)->address();
  contactsim::client::Connection connection(connection_options);

  std::vector<soak::Kind> kinds;
  for (int i = 0; i < num_clients; ++i) kinds.push_back(kPattern[i % std::size(kPattern)]);
  std::vector<soak::WatchedSession> watched;
  for (soak::Kind kind : kinds) {
    if (kind != soak::Kind::kController) continue;
    auto session = soak::CreateWatchedSession(connection);
    if (!session.ok()) {
      std::fprintf(stderr, "soak: a controller's session: %s\n",
                   session.status().ToString().c_str());
      return 2;
    }
    watched.push_back(*session);
  }

  soak::Tally tally;
  std::atomic<bool> stop{false};
  std::vector<std::unique_ptr<contactsim::client::StreamStop>> stream_stops;
  std::vector<std::unique_ptr<soak::ClientSetup>> setups;
  std::vector<std::thread> threads;
  int controllers_seen = 0;
  for (int i = 0; i < num_clients; ++i) {
    stream_stops.push_back(std::make_unique<contactsim::client::StreamStop>());
    auto setup = std::make_unique<soak::ClientSetup>(soak::ClientSetup{
        .kind = kinds[i],
        // A controller steps the session made for it; the others spread over the sessions.
        .index = kinds[i] == soak::Kind::kController ? controllers_seen++ : i,
        .connection = OwnConnection((*server)->address()),
        .watched = watched,
        .tally = &tally,
        .stop = &stop,
        .stream_stop = stream_stops.back().get()});
    setups.push_back(std::move(setup));
  }
  std::fprintf(stderr, "soak: server pid %d on %s, %d clients for %.0f s (log: %s)\n", pid,
               (*server)->address().c_str(), num_clients, duration_s, log_path.c_str());
  const Clock::time_point start = Clock::now();
  for (const auto& setup : setups) {
    threads.emplace_back([s = setup.get()] { soak::RunClient(*s); });
  }

  std::vector<Sample> samples;
  bool crashed = false;
  double next_progress_s = progress_s;
  while (true) {
    const double t = std::chrono::duration<double>(Clock::now() - start).count();
    if (!Alive(pid)) {
      crashed = true;
      std::fprintf(stderr, "soak: [%5.0f s] the server died\n", t);
      break;
    }
    samples.push_back({t, ProcStatus(pid, "VmRSS") / 1024.0, ProcStatus(pid, "Threads")});
    if (t >= next_progress_s) {
      std::fprintf(
          stderr, "soak: [%5.0f s] %lld calls, %lld unexpected, RSS %.1f MiB, %.0f threads\n", t,
          static_cast<long long>(tally.calls()), static_cast<long long>(tally.unexpected()),
          samples.back().rss_mib, samples.back().threads);
      next_progress_s += progress_s;
    }
    if (t >= duration_s) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(sample_s, duration_s - t)));
  }
  stop = true;
  for (const auto& stream_stop : stream_stops) stream_stop->Stop();
  for (std::thread& thread : threads) thread.join();
  const double run_s = std::chrono::duration<double>(Clock::now() - start).count();
  const absl::StatusOr<int> exit_code = (*server)->Stop(std::chrono::seconds(30));
  crashed = crashed || !exit_code.ok() || *exit_code != 0;

  std::printf("Soak: %d clients (pattern C V C V U S X B) for %.0f s against contactsim-server\n\n",
              num_clients, run_s);
  std::printf(
      "| kind | clients | calls | expected codes | unexpected codes |\n|---|---|---|---|---|\n");
  const auto rows = tally.Rows();
  for (soak::Kind kind : soak::kKinds) {
    const auto it = rows.find(kind);
    if (it == rows.end()) continue;
    int64_t calls = 0;
    for (const auto& [code, count] : it->second.expected) calls += count;
    for (const auto& [code, count] : it->second.unexpected) calls += count;
    std::printf("| %s | %lld | %lld | %s | %s |\n", soak::KindName(kind),
                static_cast<long long>(std::count(kinds.begin(), kinds.end(), kind)),
                static_cast<long long>(calls), Codes(it->second.expected).c_str(),
                Codes(it->second.unexpected).c_str());
  }
  for (const std::string& example : tally.examples())
    std::printf("  unexpected: %s\n", example.c_str());
  const double end_s = samples.empty() ? 0.0 : samples.back().t_s;
  const double baseline = MedianRss(samples, warmup_s, warmup_s + window_s);
  const double final_rss = MedianRss(samples, end_s - window_s, end_s);
  double peak = 0.0;
  for (const Sample& s : samples) peak = std::max(peak, s.rss_mib);
  const double drift = baseline > 0.0 ? final_rss / baseline - 1.0 : NAN;
  std::printf(
      "\nServer RSS: %.1f MiB at start, median %.1f MiB over %.0f-%.0f s (after the warm-up), "
      "median %.1f MiB over the last %.0f s, peak %.1f MiB; threads %.0f at the end\n",
      samples.empty() ? 0.0 : samples.front().rss_mib, baseline, warmup_s, warmup_s + window_s,
      final_rss, window_s, peak, samples.empty() ? 0.0 : samples.back().threads);
  std::printf("Server RSS every 30 s [MiB]:");
  double next_s = 0.0;
  for (const Sample& sample : samples) {
    if (sample.t_s + 1e-9 < next_s) continue;
    std::printf(" %.0f", sample.rss_mib);
    next_s += 30.0;
  }
  std::printf("\n");
  std::printf("RSS drift after the warm-up: %+.2f %% (target <= 5 %%: %s)\n", 100.0 * drift,
              drift <= 0.05 ? "met" : "NOT met");
  std::printf(
      "Crashes: %d (server exit: %s)\n", crashed ? 1 : 0,
      exit_code.ok() ? std::to_string(*exit_code).c_str() : exit_code.status().ToString().c_str());
  std::printf("Unexpected status codes: %lld of %lld calls\n",
              static_cast<long long>(tally.unexpected()), static_cast<long long>(tally.calls()));
  const bool met = !crashed && tally.unexpected() == 0 && drift <= 0.05;
  std::printf("Targets (0 crashes, 0 unexpected, drift <= 5 %%): %s\n", met ? "met" : "NOT met");
  return met ? 0 : 1;
}
