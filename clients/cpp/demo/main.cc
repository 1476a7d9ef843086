// contactsim-demo: the service end to end in one command. Starts the real `contactsim-server`
// as a child process on an ephemeral loopback port, builds the default scene through the API
// (demo_scene.h), steps it in lockstep from a controller thread (one 1 ms step per Step call,
// a PD force pushing a box to a target) while a viewer thread watches with StreamState
// (contacts included), then stops the server with SIGTERM and prints a summary: controller
// steps/s, Step round trip p50/p99, viewer frames and coalesced frames, contact pairs, normal and
// friction impulse totals per body. Writes the viewer's contact forces over time as CSV, an SVG
// plot and (when gnuplot is on PATH) a PNG.
//
//   contactsim-demo [--steps 2000] [--out out/demo] [--viewer-rate-hz 0] [--server-binary PATH]
//   contactsim-demo --serve [--viewer-listen 127.0.0.1:8080]
//
// --serve keeps the server (with its browser viewer, docs/viewer.md) and the scene running in
// real time, the box pushed between two targets every 3 s, prints the viewer URL (its fragment
// carries the viewer token) and runs until Ctrl-C / SIGTERM.
//
// Exit codes: 0 ok; 1 the server failed to start, a call failed or the server did not exit
// cleanly (the reason is printed); CLI11's codes for bad arguments.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "clients/cpp/client.h"
#include "clients/cpp/demo/demo_scene.h"
#include "clients/cpp/demo/frame_log.h"
#include "clients/cpp/demo/impulse_tally.h"
#include "clients/cpp/demo/svg_plot.h"
#include "clients/cpp/percentiles.h"
#include "clients/cpp/server_process.h"

namespace {

namespace demo = contactsim::client::demo;
namespace v1 = contactsim::v1;
using Clock = std::chrono::steady_clock;

constexpr double kGravity_m_per_s2 = 9.81;
constexpr double kTargetX_m = 0.6;  // the pushed box's PD target
constexpr double kTargetY_m = 0.0;

struct Options {
  int steps = 2000;
  std::string out_dir = "out/demo";
  double viewer_rate_hz = 0.0;
  std::string server_binary;
  double startup_timeout_s = 30.0;
  bool serve = false;
  std::string viewer_listen = "127.0.0.1:8080";
};

struct AddedBody {
  int32_t id = -1;
  std::string name;
  double mass_kg = 0.0;
};

int Fail(const std::string& what, const absl::Status& status) {
  std::fflush(stdout);  // the progress so far before the error
  std::fprintf(stderr, "contactsim-demo: %s: %s\n", what.c_str(), status.ToString().c_str());
  return EXIT_FAILURE;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

bool OnPath(const std::string& program) {
  const std::string command = "command -v " + program + " > /dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

// gnuplot script next to the CSV; returns the PNG path when gnuplot made it, else empty.
std::string PlotPng(const std::filesystem::path& dir, const std::filesystem::path& csv,
                    const std::vector<std::string>& names) {
  const std::filesystem::path script = dir / "contact_forces.gp";
  const std::filesystem::path png = dir / "contact_forces.png";
  std::ofstream gp(script);
  gp << "set terminal pngcairo size 1000,560\nset output '" << png.string() << "'\n"
     << "set datafile separator ','\nset key autotitle columnhead noenhanced\nset grid\n"
     << "set title 'Contact forces seen by the viewer'\n"
     << "set xlabel 'simulated time [s]'\nset ylabel 'force [N]'\nplot ";
  for (size_t i = 0; i < names.size(); ++i) {
    gp << (i ? ", " : "") << "'" << csv.string() << "' using 1:" << 6 + 2 * i
       << " with lines title '" << names[i] << " normal'";
  }
  gp << ", '" << csv.string() << "' using 1:7 with lines title '" << names[0] << " friction'\n";
  gp.close();
  if (!OnPath("gnuplot")) return {};
  const std::string command = "gnuplot '" + script.string() + "' > /dev/null 2>&1";
  return std::system(command.c_str()) == 0 ? png.string() : std::string();
}

absl::Status WriteImpulsesCsv(const std::string& path, const std::vector<AddedBody>& bodies,
                              const demo::ImpulseTally& tally) {
  std::ofstream csv(path);
  csv << "body_id,name,mass_kg,normal_x_ns,normal_y_ns,normal_z_ns,friction_x_ns,friction_y_ns,"
         "friction_z_ns\n";
  csv.precision(12);
  for (const AddedBody& body : bodies) {
    const auto it = tally.bodies().find(body.id);
    const demo::BodyImpulses totals =
        it == tally.bodies().end() ? demo::BodyImpulses{} : it->second;
    csv << body.id << ',' << body.name << ',' << body.mass_kg;
    for (double v : totals.normal_ns) csv << ',' << v;
    for (double v : totals.friction_ns) csv << ',' << v;
    csv << '\n';
  }
  csv.close();
  if (!csv) return absl::InternalError("cannot write " + path);
  return absl::OkStatus();
}

// What DriveSession measured.
struct SessionRun {
  std::vector<AddedBody> bodies;  // the pushed box first
  std::unique_ptr<demo::FrameLog> frames;
  demo::ImpulseTally tally;
  std::vector<double> round_trips_s;  // one per Step call
  int64_t pair_sum = 0;               // contact pairs over all steps
  int max_pairs = 0;
  double wall_s = 0.0;  // the controller's loop
  bool viewer_caught_up = false;
};

absl::Status Context(const std::string& what, const absl::Status& status) {
  return absl::Status(status.code(), what + ": " + std::string(status.message()));
}

// Creates the session, starts the viewer thread, runs the controller loop, waits for the viewer
// to see the last step and closes the session (which ends the stream).
absl::StatusOr<std::unique_ptr<SessionRun>> DriveSession(const std::string& address,
                                                         const Options& options) {
  auto run = std::make_unique<SessionRun>();
  contactsim::client::ConnectionOptions connection_options;
  connection_options.target = address;
  contactsim::client::Connection connection(connection_options);
  if (auto pong = connection.Ping("demo"); !pong.ok()) return Context("Ping", pong.status());
  auto created = connection.CreateSession(demo::DemoSessionRequest());
  if (!created.ok()) return Context("CreateSession", created.status());
  const auto controller = connection.Session(created->session_id, created->controller_token);
  const auto viewer = connection.Session(created->session_id, created->viewer_token);
  std::vector<AddedBody>& bodies = run->bodies;
  for (const demo::DemoBody& body : demo::DemoBodies()) {
    auto added = controller.AddBody(body.spec);
    if (!added.ok()) return Context("AddBody " + body.name, added.status());
    bodies.push_back({added->body_id(), body.name, added->mass_kg()});
  }
  std::printf(
      "session     %s: ground plane + %zu boxes (%s pushed to x = %.2f m by a PD force), "
      "dt = %g s\n",
      created->session_id.c_str(), bodies.size(), bodies[0].name.c_str(), kTargetX_m,
      demo::kDemoDt_s);

  // The viewer thread: StreamState with contacts, float32 positions.
  std::vector<int32_t> ids;
  std::vector<std::string> names;
  for (const AddedBody& body : bodies) {
    ids.push_back(body.id);
    names.push_back(body.name);
  }
  run->frames = std::make_unique<demo::FrameLog>(ids, names, demo::kDemoDt_s);
  demo::FrameLog& frames = *run->frames;
  contactsim::client::StreamStop stop_viewer;
  absl::Status viewer_status;
  std::thread viewer_thread([&] {
    v1::StreamStateRequest request;
    request.set_include_contacts(true);
    request.set_precision(v1::PRECISION_FLOAT32);
    request.set_max_rate_hz(options.viewer_rate_hz);
    viewer_status = viewer.StreamState(
        request,
        [&](const v1::StateFrame& frame) {
          frames.Add(frame);
          return true;
        },
        &stop_viewer);
  });
  auto stop_and_fail = [&](const std::string& what, const absl::Status& status) {
    stop_viewer.Stop();
    viewer_thread.join();
    return Context(what, status);
  };
  // The bodies were published as frames; the first one tells the viewer is subscribed.
  if (!frames.WaitForStep(0, std::chrono::seconds(10))) {
    stop_viewer.Stop();
    viewer_thread.join();
    return Context("StreamState", viewer_status.ok()
                                      ? absl::DeadlineExceededError("no frame within 10 s")
                                      : viewer_status);
  }

  // The controller: one step per Step call, the PD force from the last reply's state.
  run->round_trips_s.reserve(options.steps);
  v1::Vec3 p_pushed, v_pushed;
  const Clock::time_point start = Clock::now();
  Clock::time_point next_report = start + std::chrono::milliseconds(500);
  for (int i = 0; i < options.steps; ++i) {
    v1::StepControls controls;
    v1::BodyControl* push = controls.add_bodies();
    push->set_body_id(bodies[0].id);
    *push->mutable_force_n() = demo::PdForce(kTargetX_m, kTargetY_m, p_pushed, v_pushed);
    const Clock::time_point sent = Clock::now();
    auto reply = controller.Step(1, controls);
    const Clock::time_point received = Clock::now();
    if (!reply.ok()) return stop_and_fail("Step " + std::to_string(i + 1), reply.status());
    run->round_trips_s.push_back(Seconds(received - sent));
    run->tally.Add(reply->contacts());
    run->pair_sum += reply->contacts().contacts_size();
    run->max_pairs = std::max(run->max_pairs, reply->contacts().contacts_size());
    for (const v1::BodyState& state : reply->bodies()) {
      if (state.body_id() == bodies[0].id) {
        p_pushed = state.p_wb_m();
        v_pushed = state.v_wb_m_per_s();
      }
    }
    if (received >= next_report || i + 1 == options.steps) {
      next_report = received + std::chrono::milliseconds(500);
      const demo::FrameTotals seen = frames.totals();
      std::printf(
          "  t = %.3f s  step %d/%d  %6.0f steps/s  pushed box x = %.3f m  pairs %d  "
          "viewer: %lld frames, %lld coalesced\n",
          reply->time_s(), i + 1, options.steps, (i + 1) / Seconds(received - start), p_pushed.x(),
          reply->contacts().contacts_size(), static_cast<long long>(seen.frames),
          static_cast<long long>(seen.coalesced));
      std::fflush(stdout);
    }
  }
  run->wall_s = Seconds(Clock::now() - start);

  run->viewer_caught_up = frames.WaitForStep(options.steps, std::chrono::seconds(10));
  if (auto closed = controller.CloseSession(); !closed.ok()) {
    return stop_and_fail("CloseSession", closed);
  }
  viewer_thread.join();
  if (!viewer_status.ok()) return Context("StreamState", viewer_status);
  return run;
}

// The "viewer on URL/" line the server logs, read back from its log file.
absl::StatusOr<std::string> ViewerBaseUrl(const std::string& log_path) {
  const std::string marker = "viewer on ";
  for (int i = 0; i < 100; ++i) {
    std::ifstream log(log_path);
    std::string line;
    while (std::getline(log, line)) {
      const size_t at = line.find(marker);
      if (at == std::string::npos) continue;
      const size_t begin = at + marker.size();
      std::string url = line.substr(begin, line.find(' ', begin) - begin);
      if (!url.empty() && url.back() == '/') url.pop_back();
      return url;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return absl::DeadlineExceededError("the server did not log its viewer address within 5 s");
}

std::atomic<bool> g_stop_serving{false};

// --serve: the demo scene stepped in real time until a stop signal, for browsers to watch.
absl::Status ServeSession(const std::string& address, const std::string& viewer_base) {
  contactsim::client::Connection connection({.target = address,
                                             .deadline = std::chrono::seconds(30),
                                             .max_receive_message_bytes = 64 << 20,
                                             .tls = std::nullopt});
  auto created = connection.CreateSession(demo::DemoSessionRequest());
  if (!created.ok()) return Context("CreateSession", created.status());
  const auto controller = connection.Session(created->session_id, created->controller_token);
  int32_t pushed = -1;
  for (const demo::DemoBody& body : demo::DemoBodies()) {
    auto added = controller.AddBody(body.spec);
    if (!added.ok()) return Context("AddBody " + body.name, added.status());
    if (pushed < 0) pushed = added->body_id();
  }
  std::printf("\nviewer      %s/view#session=%s&token=%s\n", viewer_base.c_str(),
              created->session_id.c_str(), created->viewer_token.c_str());
  std::printf("sessions    %s/ (the list; no tokens)\nserving until Ctrl-C\n", viewer_base.c_str());
  std::fflush(stdout);
  v1::Vec3 p_pushed, v_pushed;
  const Clock::time_point start = Clock::now();
  int64_t steps = 0;
  while (!g_stop_serving.load()) {
    const double sim_s = steps * demo::kDemoDt_s;
    // Real time: never run ahead of the wall clock.
    if (sim_s > Seconds(Clock::now() - start)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    const bool there = static_cast<int64_t>(sim_s / 3.0) % 2 == 0;
    v1::StepControls controls;
    v1::BodyControl* push = controls.add_bodies();
    push->set_body_id(pushed);
    *push->mutable_force_n() =
        demo::PdForce(there ? kTargetX_m : 0.0, there ? kTargetY_m : 0.3, p_pushed, v_pushed);
    auto reply = controller.Step(1, controls);
    if (!reply.ok()) return Context("Step", reply.status());
    ++steps;
    for (const v1::BodyState& state : reply->bodies()) {
      if (state.body_id() == pushed) {
        p_pushed = state.p_wb_m();
        v_pushed = state.v_wb_m_per_s();
      }
    }
  }
  std::printf("stopping after %lld steps\n", static_cast<long long>(steps));
  return controller.CloseSession();
}

// Starts the server binary (--server-binary, else the one built beside the demo) as a child
// process on loopback with `extra_args`, logging to OUT/server.log, and prints where it runs.
// Fails (an exit code in *exit_code) when the output folder, the binary or the start fails.
struct StartedServer {
  std::unique_ptr<contactsim::client::ServerProcess> process;
  std::string log_path;
};
std::optional<StartedServer> StartServer(const Options& options,
                                         const std::vector<std::string>& extra_args,
                                         int* exit_code) {
  std::error_code error;
  const std::filesystem::path out = options.out_dir;
  std::filesystem::create_directories(out, error);
  if (error) {
    *exit_code = Fail("--out " + options.out_dir, absl::InternalError(error.message()));
    return std::nullopt;
  }
  absl::StatusOr<std::string> binary =
      options.server_binary.empty()
          ? contactsim::client::FindServerBinary(CONTACTSIM_DEMO_SERVER_RELATIVE_PATH)
          : absl::StatusOr<std::string>(options.server_binary);
  if (!binary.ok()) {
    *exit_code = Fail("server binary", binary.status());
    return std::nullopt;
  }
  StartedServer started{nullptr, (out / "server.log").string()};
  auto server = contactsim::client::ServerProcess::Start(
      *binary, extra_args, started.log_path,
      std::chrono::milliseconds(static_cast<int64_t>(options.startup_timeout_s * 1000)));
  if (!server.ok()) {
    *exit_code = Fail("the server failed to start", server.status());
    return std::nullopt;
  }
  started.process = *std::move(server);
  std::printf("server      %s (pid %d) on %s, log %s\n", binary->c_str(), started.process->pid(),
              started.process->address().c_str(), started.log_path.c_str());
  return started;
}

int Serve(const Options& options) {
  int exit_code = EXIT_FAILURE;
  std::optional<StartedServer> server =
      StartServer(options, {"--viewer-listen", options.viewer_listen}, &exit_code);
  if (!server) return exit_code;
  absl::StatusOr<std::string> viewer_base = ViewerBaseUrl(server->log_path);
  if (!viewer_base.ok()) return Fail("viewer", viewer_base.status());
  struct sigaction action {};
  action.sa_handler = [](int) { g_stop_serving.store(true); };
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  const absl::Status served = ServeSession(server->process->address(), *viewer_base);
  absl::StatusOr<int> server_exit = server->process->Stop(std::chrono::seconds(15));
  if (!served.ok()) return Fail("serving", served);
  if (!server_exit.ok()) return Fail("stopping the server", server_exit.status());
  return *server_exit == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int Run(const Options& options) {
  // 1. The server, as a child process on 127.0.0.1 with a port the kernel picks.
  int exit_code = EXIT_FAILURE;
  std::optional<StartedServer> started = StartServer(options, {}, &exit_code);
  if (!started) return exit_code;
  contactsim::client::ServerProcess& server = *started->process;
  const std::filesystem::path out = options.out_dir;

  // 2-5. The session, driven by a controller and watched by a viewer. Every client object (and
  // so the channel) is gone when it returns, before the server is asked to stop.
  absl::StatusOr<std::unique_ptr<SessionRun>> run = DriveSession(server.address(), options);
  if (!run.ok()) return Fail("the demo failed", run.status());
  const std::vector<AddedBody>& bodies = (*run)->bodies;
  const demo::ImpulseTally& tally = (*run)->tally;
  const demo::FrameLog& frames = *(*run)->frames;
  std::vector<std::string> names;
  for (const AddedBody& body : bodies) names.push_back(body.name);
  absl::StatusOr<int> server_exit = server.Stop(std::chrono::seconds(15));
  if (!server_exit.ok()) return Fail("stopping the server", server_exit.status());

  // 6. Files.
  const std::filesystem::path csv = out / "contact_forces.csv";
  const std::filesystem::path impulses_csv = out / "impulses.csv";
  const std::filesystem::path svg = out / "contact_forces.svg";
  if (auto s = frames.WriteCsv(csv.string()); !s.ok()) return Fail("CSV", s);
  if (auto s = WriteImpulsesCsv(impulses_csv.string(), bodies, tally); !s.ok()) {
    return Fail("CSV", s);
  }
  std::vector<demo::PlotSeries> series(bodies.size() + 1);
  const std::vector<demo::FrameRow> rows = frames.rows();
  for (size_t b = 0; b < bodies.size(); ++b) series[b].label = bodies[b].name + " normal";
  series.back().label = bodies[0].name + " friction";
  for (const demo::FrameRow& row : rows) {
    for (size_t b = 0; b < bodies.size(); ++b) {
      series[b].x.push_back(row.time_s);
      series[b].y.push_back(row.normal_force_n[b]);
    }
    series.back().x.push_back(row.time_s);
    series.back().y.push_back(row.friction_force_n[0]);
  }
  if (auto s = demo::WriteSvgLinePlot(
          svg.string(), {"Contact forces seen by the viewer", "simulated time [s]", "force [N]"},
          series);
      !s.ok()) {
    return Fail("SVG", s);
  }
  const std::string png = PlotPng(out, csv, names);

  // 7. Summary.
  const std::vector<double> sorted = demo::Sorted((*run)->round_trips_s);
  const demo::FrameTotals seen = frames.totals();
  const double sim_s = options.steps * demo::kDemoDt_s;
  std::printf("\nContactSim demo: %d steps of %g ms (%.3f s simulated) in %.2f s wall\n",
              options.steps, demo::kDemoDt_s * 1e3, sim_s, (*run)->wall_s);
  std::printf("  %-22s %.0f steps/s (one step per Step call)\n", "controller",
              options.steps / (*run)->wall_s);
  std::printf("  %-22s p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", "Step round trip",
              1e3 * demo::PercentileOfSorted(sorted, 0.50),
              1e3 * demo::PercentileOfSorted(sorted, 0.99), 1e3 * sorted.back());
  std::printf(
      "  %-22s %lld frames (mean %.0f bytes), %lld coalesced, %s\n", "viewer frames",
      static_cast<long long>(seen.frames), seen.frames ? double(seen.bytes) / seen.frames : 0.0,
      static_cast<long long>(seen.coalesced),
      (*run)->viewer_caught_up ? "saw the last step" : "did NOT see the last step within 10 s");
  std::printf("  %-22s mean %.2f, max %d per step\n", "contact pairs",
              double((*run)->pair_sum) / options.steps, (*run)->max_pairs);
  std::printf("  %-22s %-14s %7s  %-30s %-30s %8s\n", "impulses [N*s]", "body", "mass kg",
              "normal (x, y, z)", "friction (x, y, z)", "m g T");
  for (const AddedBody& body : bodies) {
    const auto it = tally.bodies().find(body.id);
    const demo::BodyImpulses t = it == tally.bodies().end() ? demo::BodyImpulses{} : it->second;
    char normal[64], friction[64];
    std::snprintf(normal, sizeof(normal), "(%.4f, %.4f, %.4f)", t.normal_ns[0], t.normal_ns[1],
                  t.normal_ns[2]);
    std::snprintf(friction, sizeof(friction), "(%.4f, %.4f, %.4f)", t.friction_ns[0],
                  t.friction_ns[1], t.friction_ns[2]);
    std::printf("  %-22s %-14s %7.3f  %-30s %-30s %8.4f\n", "", body.name.c_str(), body.mass_kg,
                normal, friction, body.mass_kg * kGravity_m_per_s2 * sim_s);
  }
  std::printf("  %-22s pair sums vs the server's body totals: max difference %.2e N*s\n", "check",
              tally.MaxMismatch_n_s());
  std::printf("  %-22s SIGTERM, exit code %d\n", "server stopped", *server_exit);
  std::printf("\nwrote\n  %s\n  %s\n  %s (plot)\n", csv.string().c_str(),
              impulses_csv.string().c_str(), svg.string().c_str());
  if (!png.empty()) {
    std::printf("  %s (plot, gnuplot)\n", png.c_str());
  } else {
    std::printf("  (no PNG: gnuplot not on PATH or it failed; %s is the script)\n",
                (out / "contact_forces.gp").string().c_str());
  }
  return *server_exit == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app{
      "ContactSim demo: starts a server, steps a scene with a controller while a viewer "
      "watches, prints a summary and writes a plot"};
  app.add_option("--steps", options.steps, "steps of 1 ms, one per Step call")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--out", options.out_dir, "folder for the CSVs, the plot and the server log")
      ->capture_default_str();
  app.add_option("--viewer-rate-hz", options.viewer_rate_hz,
                 "the viewer's max_rate_hz [1/s] (0: as fast as it reads)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--server-binary", options.server_binary,
                 "contactsim-server to run (default: the one built next to the demo)");
  app.add_option("--startup-timeout-s", options.startup_timeout_s,
                 "how long the server may take to listen [s]")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--serve", options.serve,
               "keep the server, its browser viewer and the scene running (real time) and print "
               "the viewer URL, until Ctrl-C");
  app.add_option("--viewer-listen", options.viewer_listen,
                 "with --serve: IPv4:port of the browser viewer (port 0 picks a free one)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return options.serve ? Serve(options) : Run(options);
}
