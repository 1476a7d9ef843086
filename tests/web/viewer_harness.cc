// contactsim-viewer-harness: the server (gRPC + browser viewer) in one process with one scene and
// a controller thread that steps it over gRPC, for the browser tests (tests/web/*.mjs) and the
// viewer benchmark (bench/viewer_bench.mjs).
//
//   contactsim-viewer-harness --scene FILE --assets DIR [--push-force-n 4] [--step-sleep-us 0]
//                             [--hold] [--max-steps N]
//                             [--tls-cert PEM --tls-key PEM [--tls-client-ca PEM]]
//
// Prints one line "ready base_url=URL session=ID viewer_token=TOKEN controller_token_length=N"
// (the controller token itself stays in this process), then obeys commands on stdin, one per
// line, answering one line each:
//   stats          "stats steps=N wall_s=T"  (the controller's steps so far)
//   bytes          "bytes stream_state=B viewer_frame=V viewer_topology=T"  (one frame of each)
//   stop-viewer    stops the viewer listener (browsers see "server stopping"); gRPC keeps going
//   start-viewer   starts it again on the same port
//   push F         sets the push force amplitude [N] (a huge F makes the session diverge: FAILED)
//   go             starts the controller (with --hold it waits for this)
//   quit           stops everything and exits 0
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "CLI/CLI.hpp"
#include "clients/cpp/client.h"
#include "clients/cpp/scene_file.h"
#include "server/log/structured_log.h"
#include "server/service/server.h"
#include "server/viewer/viewer_protocol.h"
#include "server/viewer/viewer_server.h"
#include "spdlog/sinks/stdout_sinks.h"

namespace {

namespace v1 = contactsim::v1;
namespace server = contactsim::server;
namespace viewer = contactsim::server::viewer;
using Clock = std::chrono::steady_clock;

int Fail(const std::string& what) {
  std::fprintf(stderr, "viewer-harness: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string scene_path, assets;
  double push_force_n = 4.0;
  int step_sleep_us = 0;
  int steps_per_call = 1;
  bool hold = false;
  int64_t max_steps = 0;
  viewer::ViewerOptions viewer_options;
  CLI::App app{"ContactSim viewer test harness"};
  app.add_option("--scene", scene_path, "scene file")->required();
  app.add_option("--assets", assets, "bundled viewer page folder")->required();
  app.add_option("--push-force-n", push_force_n,
                 "amplitude of a sideways force on body 0, period 2 s [N] (0: none)");
  app.add_option("--step-sleep-us", step_sleep_us, "pause between Step calls [us]");
  app.add_option("--steps-per-call", steps_per_call, "n_steps of each Step call")
      ->check(CLI::PositiveNumber);
  app.add_flag("--hold", hold,
               "the controller waits for the command 'go' (a screenshot taken at a set step)");
  app.add_option("--max-steps", max_steps,
                 "the controller stops after this many steps, the session stays (0: never)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-viewers", viewer_options.max_viewers, "the viewer's --viewer-max-viewers");
  app.add_option("--max-bytes-per-s", viewer_options.max_bytes_per_s,
                 "the viewer's per-viewer send budget [bytes/s]");
  app.add_option("--write-timeout-ms", viewer_options.write_timeout_ms,
                 "the viewer's write timeout [ms]");
  app.add_option("--hello-timeout-s", viewer_options.hello_timeout_s,
                 "how long a WebSocket may wait before its hello [s]");
  app.add_option("--tls-cert", viewer_options.tls.cert_file,
                 "the viewer's PEM certificate: it serves HTTPS and WSS (gRPC stays plaintext)");
  app.add_option("--tls-key", viewer_options.tls.key_file, "PEM private key of --tls-cert");
  app.add_option("--tls-client-ca", viewer_options.tls.client_ca_file,
                 "PEM roots the viewer's clients must present a certificate of (mutual TLS)");
  CLI11_PARSE(app, argc, argv);
  // stdout carries the command replies: the server's log goes to stderr.
  server::log::InstallStructuredLogger("harness", std::make_shared<spdlog::sinks::stderr_sink_mt>(),
                                       server::log::LogFormat::kText, spdlog::level::warn);

  server::ServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.step_threads = 2;
  auto grpc_server = server::ContactSimServer::Start(options);
  if (!grpc_server.ok()) return Fail(grpc_server.status().ToString());
  viewer_options.listen = "127.0.0.1:0";
  viewer_options.assets_dir = assets;
  auto started = viewer::ViewerServer::Start(viewer_options, &(*grpc_server)->sessions());
  if (!started.ok()) return Fail(started.status().ToString());
  std::unique_ptr<viewer::ViewerServer> viewer_server = std::move(*started);
  if (!viewer_server->assets_loaded()) return Fail("no viewer page in " + assets);
  viewer_options.listen = "127.0.0.1:" + std::to_string(viewer_server->port());

  auto scene = contactsim::client::ReadSceneFile(scene_path);
  if (!scene.ok()) return Fail(scene.status().ToString());
  contactsim::client::Connection connection({.target = (*grpc_server)->address(),
                                             .deadline = std::chrono::seconds(30),
                                             .max_receive_message_bytes = 64 << 20,
                                             .tls = std::nullopt});
  auto loaded = contactsim::client::LoadScene(connection, *scene);
  if (!loaded.ok()) return Fail(loaded.status().ToString());
  const std::string session_id = loaded->session.session_id;
  const auto controller = connection.Session(session_id, loaded->session.controller_token);

  std::atomic<bool> stop{false};
  std::atomic<int64_t> steps{0};
  std::atomic<bool> failed{false};
  std::atomic<double> push_amplitude_n{push_force_n};
  std::atomic<bool> go{!hold};
  const Clock::time_point start = Clock::now();
  std::thread stepping([&] {
    const int32_t pushed = loaded->bodies.empty() ? 0 : loaded->bodies[0].body_id();
    double t = 0.0;
    while (!stop.load()) {
      if (!go.load() || (max_steps > 0 && steps.load() >= max_steps)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        continue;
      }
      v1::StepControls controls;
      const double amplitude = push_amplitude_n.load();
      if (amplitude != 0.0) {
        v1::BodyControl* push = controls.add_bodies();
        push->set_body_id(pushed);
        push->mutable_force_n()->set_x(amplitude * std::sin(M_PI * t));
        push->mutable_force_n()->set_y(0.5 * amplitude * std::cos(M_PI * t));
      }
      const int64_t left = max_steps > 0 ? max_steps - steps.load() : steps_per_call;
      const int n_steps = static_cast<int>(std::min<int64_t>(steps_per_call, left));
      auto reply = controller.Step(n_steps, controls);
      if (!reply.ok()) {
        if (!failed.exchange(true)) {
          std::fprintf(stderr, "viewer-harness: Step: %s\n", reply.status().ToString().c_str());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      t = reply->time_s();
      steps.fetch_add(n_steps);
      if (step_sleep_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(step_sleep_us));
    }
  });

  std::printf("ready base_url=%s session=%s viewer_token=%s controller_token_length=%zu\n",
              viewer_server->base_url().c_str(), session_id.c_str(),
              loaded->session.viewer_token.c_str(), loaded->session.controller_token.size());
  std::fflush(stdout);

  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == "stats") {
      std::printf("stats steps=%lld wall_s=%.6f\n", static_cast<long long>(steps.load()),
                  std::chrono::duration<double>(Clock::now() - start).count());
    } else if (line == "bytes") {
      // One StreamState frame (float32, contacts, as a viewer would ask) and the viewer's
      // encoding of the newest frame on the bus.
      const auto watcher = connection.Session(session_id, loaded->session.viewer_token);
      v1::StreamStateRequest request;
      request.set_include_contacts(true);
      request.set_precision(v1::PRECISION_FLOAT32);
      size_t stream_bytes = 0;
      int seen = 0;
      contactsim::client::StreamStop stream_stop;
      (void)watcher.StreamState(
          request,
          [&](const v1::StateFrame& frame) {
            if (++seen == 2) {  // the second frame: no topology in it
              stream_bytes = frame.ByteSizeLong();
              return false;
            }
            return true;
          },
          &stream_stop);
      auto session = (*grpc_server)->sessions().Get(session_id);
      size_t frame_bytes = 0, topology_bytes = 0;
      if (session.ok()) {
        server::SubscriberCursor cursor;
        auto pulled = (*session)->frames()->Next(&cursor, {});
        if (pulled) {
          auto topology = viewer::EncodeTopology(*pulled->frame);
          topology_bytes = topology->message.size();
          frame_bytes = viewer::EncodeFrame(*pulled->frame, *topology, {}).size();
        }
      }
      std::printf("bytes stream_state=%zu viewer_frame=%zu viewer_topology=%zu\n", stream_bytes,
                  frame_bytes, topology_bytes);
    } else if (line == "stop-viewer") {
      viewer_server.reset();
      std::printf("stopped-viewer\n");
    } else if (line == "start-viewer") {
      auto again = viewer::ViewerServer::Start(viewer_options, &(*grpc_server)->sessions());
      if (!again.ok()) {
        std::printf("error %s\n", again.status().ToString().c_str());
      } else {
        viewer_server = std::move(*again);
        std::printf("started-viewer %s\n", viewer_server->base_url().c_str());
      }
    } else if (line.rfind("push ", 0) == 0) {
      push_amplitude_n.store(std::strtod(line.c_str() + 5, nullptr));
      std::printf("push %g\n", push_amplitude_n.load());
    } else if (line == "go") {
      go.store(true);
      std::printf("go\n");
    } else if (line == "quit") {
      break;
    } else {
      std::printf("error unknown command\n");
    }
    std::fflush(stdout);
  }
  stop.store(true);
  stepping.join();
  viewer_server.reset();
  (*grpc_server)->Shutdown(std::chrono::milliseconds(500));
  return 0;
}
