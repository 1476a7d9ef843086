// contactsim-server: serves contactsim.v1.Simulation (plus health and reflection), optionally
// with sessions loaded from scene files at start-up (--scene), until SIGTERM or SIGINT, then stops
// taking calls, lets in-flight ones (a Step in progress) finish within the grace period, and
// exits 0.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "CLI/CLI.hpp"
#include "server/auth/creator_access.h"
#include "server/auth/snapshot_seal.h"
#include "server/log/structured_log.h"
#include "server/service/device_choice.h"
#include "server/service/library_logs.h"
#include "server/service/listen_address.h"
#include "server/service/server.h"
#include "server/service/startup_scenes.h"
#include "server/viewer/viewer_server.h"
#include "spdlog/sinks/stdout_sinks.h"

int main(int argc, char** argv) {
  contactsim::server::ServerOptions options;
  contactsim::server::ServerLimits& limits = options.limits;
  int max_message_mib = limits.max_message_bytes >> 20;
  double grace_s = 5.0;
  double inline_step_budget_us = options.inline_step_budget_s * 1e6;
  std::string log_level = "info";
  std::string log_format = "text";

  CLI::App app{"ContactSim gRPC simulation server"};
  app.add_option("--listen", options.listen_address,
                 "host:port to listen on (loopback by default; port 0 picks a free one)")
      ->capture_default_str();
  app.add_option("--tls-cert", options.tls.cert_file,
                 "PEM certificate (chain) of the server: listen with TLS (needs --tls-key)");
  app.add_option("--tls-key", options.tls.key_file, "PEM private key of --tls-cert");
  app.add_option("--tls-client-ca", options.tls.client_ca_file,
                 "PEM CA certificate(s): require and verify client certificates (mutual TLS)");
  app.add_option("--metrics-listen", options.metrics_listen,
                 "host:port for Prometheus metrics at GET /metrics (off when empty; "
                 "e.g. 127.0.0.1:9464; port 0 picks a free one)")
      ->capture_default_str();
  app.add_option("--step-threads", options.step_threads,
                 "worker threads that run session steps (0: one per hardware thread)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--inline-step-budget-us", inline_step_budget_us,
                 "a Step estimated to take at most this long runs on the gRPC thread when its "
                 "session is idle (0: every Step goes to the worker pool) [us]")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--max-sessions", limits.max_sessions, "sessions at once")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-bodies", limits.max_bodies_per_session, "bodies per session")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-vertices", limits.max_vertices_per_mesh, "vertices per mesh")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-elements", limits.max_elements_per_mesh, "triangles or tetrahedra per mesh")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-steps-per-call", limits.max_steps_per_call, "n_steps of one Step call")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--stream-ring-frames", limits.stream_ring_frames,
                 "frames kept per session for StreamState resume (from_seq)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-constraints", limits.max_constraints_per_session, "constraints per session")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-meshes", limits.max_meshes_per_session,
                 "meshes stored by UploadMesh per session")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-mesh-bytes", limits.max_mesh_bytes_per_session,
                 "bytes of uploaded meshes per session (8 per coordinate, 4 per index)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-mesh-file-bytes", limits.max_mesh_file_bytes,
                 "bytes of one mesh file sent by UploadMesh (OBJ, STL, PLY, glTF, .msh, TetGen), "
                 "buffered before it is parsed")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-name-bytes", limits.max_name_bytes,
                 "bytes of a session or body name (names are printable text)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--max-solver-iterations", limits.max_solver_iterations,
                 "local_global iterations and cr_iterations a session may ask for (each scales "
                 "every step's work)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--max-message-mib", max_message_mib, "largest gRPC message [MiB]")
      ->check(CLI::Range(1, 2047))
      ->capture_default_str();
  app.add_option("--shutdown-grace-s", grace_s, "time in-flight calls get on shutdown [s]")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error, critical or off")
      ->check(
          CLI::IsMember({"trace", "debug", "info", "warn", "warning", "error", "critical", "off"}))
      ->capture_default_str();
  app.add_option("--log-format", log_format,
                 "the log's lines on stderr: text (logfmt, key=value) or json (one object per "
                 "line); both escape every value, so each record is one line (docs/logging.md)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("--device", options.device.device,
                 "where sessions run by default: auto (CUDA when a device is usable, else the "
                 "CPU; the log says why not), cpu, or cuda (refuses to start when CUDA is not "
                 "usable). Only local_global sessions run on CUDA; a CreateSession may ask for "
                 "cpu or cuda itself")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  std::string gpu_memory_budget;
  app.add_option("--gpu-memory-budget", gpu_memory_budget,
                 "device bytes all CUDA sessions may hold together (e.g. 8GiB, 512MiB, "
                 "1073741824; suffixes KiB, MiB, GiB); a body or session that would pass it is "
                 "refused with RESOURCE_EXHAUSTED (default: no budget beyond the device's memory)");
  std::string memory_budget;
  app.add_option("--memory-budget", memory_budget,
                 "host bytes all sessions may hold together, as the server accounts them "
                 "(meshes, bodies, solver factors, frame rings, kept initial states; "
                 "docs/service.md, Memory); a request that would pass it is refused with "
                 "RESOURCE_EXHAUSTED before it allocates (default: half the machine's physical "
                 "memory; 0: no budget)");
  std::string session_memory_budget;
  app.add_option("--session-memory-budget", session_memory_budget,
                 "host bytes one session may hold, counted alike (default: a quarter of "
                 "--memory-budget; 0: no cap)");
  // Deployment (docs/deploy.md): sessions that survive a restart, replicas behind a gateway.
  app.add_option("--state-dir", options.persist.state_dir,
                 "directory where every session is kept (snapshot, name, token hashes; files "
                 "0600, written atomically) and restored from at start-up (off when empty)");
  app.add_option("--persist-interval-s", options.persist.interval_s,
                 "with --state-dir: a stepping session is written at most this long after its "
                 "last write [s] (content changes are written within 0.1 s)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--persist-every-steps", options.persist.every_steps,
                 "with --state-dir: or once it has taken this many steps since")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  options.session_idle_timeout_s = 3600.0;  // a shared machine's default: an hour
  app.add_option("--session-idle-timeout-s", options.session_idle_timeout_s,
                 "a session with no call for this long and nobody watching it is closed; with "
                 "--state-dir it is written and unloaded instead and comes back on its next call "
                 "[s] (0: never)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  contactsim::server::ConnectionOptions& connections = options.connections;
  app.add_option("--keepalive-s", connections.keepalive_s,
                 "the server pings a connection idle this long to find dead peers [s]")
      ->capture_default_str();
  app.add_option("--keepalive-timeout-s", connections.keepalive_timeout_s,
                 "and closes it when no ack comes within this [s]")
      ->capture_default_str();
  app.add_option("--min-client-ping-interval-s", connections.min_client_ping_interval_s,
                 "a client pinging more often than this without data is sent GOAWAY [s]")
      ->capture_default_str();
  app.add_option("--max-connection-idle-s", connections.max_connection_idle_s,
                 "a connection with no call for this long is closed [s] (0: never)")
      ->capture_default_str();
  app.add_option("--max-connection-age-s", connections.max_connection_age_s,
                 "a connection older than this is sent GOAWAY so that clients reconnect (a "
                 "gateway rebalances) [s] (0: never)")
      ->capture_default_str();
  app.add_option("--max-connection-age-grace-s", connections.max_connection_age_grace_s,
                 "calls still running on an aged connection get this long, then are cancelled [s]")
      ->capture_default_str();
  bool no_heap_tuning = false;
  app.add_flag("--no-heap-tuning", no_heap_tuning,
               "keep glibc's malloc thresholds (by default they are raised so that each step's "
               "freed temporaries are reused instead of faulted in again; the process keeps its "
               "peak heap)");
  app.add_option("--replica-ordinal", options.replica_ordinal,
                 "this replica's number K behind a gateway: new session ids begin 'rK-' and the "
                 "gateway routes them here (-1: a lone server)")
      ->check(CLI::Range(-1, 9999))
      ->capture_default_str();
  std::string creator_token_file;
  app.add_option("--creator-token-file", creator_token_file,
                 "file holding one token (16+ printable characters, e.g. `openssl rand -hex 16`): "
                 "CreateSession then needs it as 'authorization: Bearer <token>' (off when empty: "
                 "anyone who reaches the port may create sessions)");
  app.add_option("--max-streams-per-session", limits.max_streams_per_session,
                 "StreamState streams open at once on one session (0: no limit)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--max-streams-per-peer", limits.max_streams_per_peer,
                 "StreamState streams one client may have open at once (its certificate's "
                 "subject under mutual TLS, else its address; behind a gateway every client is "
                 "the gateway's address) (0: no limit)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--max-sessions-per-peer", limits.max_sessions_per_peer,
                 "sessions one client may hold (its certificate's subject under mutual TLS, else "
                 "its address; behind a gateway every client is the gateway's address) (0: no "
                 "quota)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  std::string snapshot_key_file;
  app.add_option("--snapshot-key-file", snapshot_key_file,
                 "file of 32 or more secret bytes shared by the replicas (e.g. `openssl rand -out "
                 "FILE 32`): Snapshot seals blobs with an HMAC under it and Restore takes only "
                 "blobs sealed with it (off when empty)");
  contactsim::server::viewer::ViewerOptions viewer_options;
  viewer_options.listen.clear();
  app.add_option("--viewer-listen", viewer_options.listen,
                 "IPv4:port for the browser viewer (HTTP and WebSocket, docs/viewer.md; off when "
                 "empty; e.g. 127.0.0.1:8080; port 0 picks a free one; HTTPS and WSS with the "
                 "certificate of --tls-cert/--tls-key (and --tls-client-ca) when given)")
      ->capture_default_str();
  app.add_option("--viewer-assets", viewer_options.assets_dir,
                 "folder of the bundled viewer page (default: viewer_assets next to this binary)");
  app.add_option("--viewer-max-viewers", viewer_options.max_viewers, "browser viewers at once")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--viewer-max-rate-hz", viewer_options.max_rate_hz,
                 "frames per second sent to one browser at most [1/s]")
      ->check(CLI::Range(1.0, 1000.0))
      ->capture_default_str();
  app.add_option("--viewer-max-bytes-per-s", viewer_options.max_bytes_per_s,
                 "bytes per second sent to one browser at most (its send budget)")
      ->check(CLI::Range(int64_t{1} << 16, int64_t{1} << 40))
      ->capture_default_str();
  std::vector<std::string> scene_files;
  app.add_option("--scene", scene_files,
                 "scene file (scenes/*.textproto) to load into a new session at start-up; "
                 "repeatable; prints 'scene file=... session_id=... controller_token=... "
                 "viewer_token=...' on stdout per scene (the log never carries tokens)")
      ->check(CLI::ExistingFile);
  std::string tokens_file;
  app.add_option("--tokens-file", tokens_file,
                 "write the --scene lines with their tokens to this file (created 0600, "
                 "replaced) instead of stdout, e.g. when stdout goes to a shared log");
  CLI11_PARSE(app, argc, argv);
  options.heap_tuning = !no_heap_tuning;
  if (!gpu_memory_budget.empty()) {
    absl::StatusOr<int64_t> bytes =
        contactsim::server::ParseByteSize(gpu_memory_budget, "--gpu-memory-budget");
    if (!bytes.ok()) {
      std::cerr << bytes.status().message() << std::endl;
      return EXIT_FAILURE;
    }
    options.device.gpu_memory_budget_bytes = *bytes;
  }
  // Half the machine's memory leaves the other half to the other programs of a shared machine.
  const int64_t physical_bytes =
      static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
  limits.memory_budget_bytes = std::max<int64_t>(0, physical_bytes / 2);
  for (const auto& [text, flag, out] :
       {std::tuple{&memory_budget, "--memory-budget", &limits.memory_budget_bytes},
        std::tuple{&session_memory_budget, "--session-memory-budget",
                   &limits.max_memory_bytes_per_session}}) {
    if (text->empty()) continue;
    absl::StatusOr<int64_t> bytes = contactsim::server::ParseByteSize(*text, flag);
    if (!bytes.ok()) {
      std::cerr << bytes.status().message() << std::endl;
      return EXIT_FAILURE;
    }
    *out = *bytes;
  }
  if (session_memory_budget.empty()) {
    limits.max_memory_bytes_per_session = limits.memory_budget_bytes / 4;
  }
  if (!creator_token_file.empty()) {
    absl::StatusOr<std::string> token =
        contactsim::server::ReadCreatorTokenFile(creator_token_file);
    if (!token.ok()) {
      std::cerr << token.status().message() << std::endl;
      return EXIT_FAILURE;
    }
    options.creator_token = *std::move(token);
  }
  if (!snapshot_key_file.empty()) {
    absl::StatusOr<std::string> key = contactsim::server::ReadSnapshotKeyFile(snapshot_key_file);
    if (!key.ok()) {
      std::cerr << key.status().message() << std::endl;
      return EXIT_FAILURE;
    }
    options.snapshot_key = *std::move(key);
  }
  limits.max_message_bytes = max_message_mib << 20;
  options.inline_step_budget_s = inline_step_budget_us * 1e-6;
  // stdout carries what the terminal asked for (the --scene lines); the log goes to stderr, one
  // structured record per line.
  absl::StatusOr<contactsim::server::log::LogFormat> format =
      contactsim::server::log::ParseLogFormat(log_format);
  if (!format.ok()) {
    std::cerr << format.status().message() << std::endl;
    return EXIT_FAILURE;
  }
  contactsim::server::log::InstallStructuredLogger(
      "contactsim", std::make_shared<spdlog::sinks::stderr_sink_mt>(), *format,
      spdlog::level::from_str(log_level));
  contactsim::server::RouteLibraryLogs();
  namespace log = contactsim::server::log;

  // Block the stop signals before gRPC starts its threads (they inherit the mask), so only
  // sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto server = contactsim::server::ContactSimServer::Start(options);
  if (!server.ok()) {
    log::Error(log::Record("server_start_failed").AddStatus(server.status()));
    return EXIT_FAILURE;
  }
  const char* transport = options.tls.mutual()    ? "mutual TLS"
                          : options.tls.enabled() ? "TLS"
                                                  : "plaintext";
  // msg keeps the sentence scripts look for ("listening on HOST:PORT ").
  log::Info(log::Record("server_listening")
                .Add("address", (*server)->address())
                .Add("transport", transport)
                .Add("max_sessions", limits.max_sessions)
                .Add("max_bodies", limits.max_bodies_per_session)
                .Add("max_vertices", limits.max_vertices_per_mesh)
                .Add("msg", absl::StrCat("contactsim-server listening on ", (*server)->address(),
                                         " (", transport, ")")));
  std::unique_ptr<contactsim::server::viewer::ViewerServer> viewer;
  if (!viewer_options.listen.empty()) {
    // The viewer serves HTTPS and WSS with the gRPC listener's certificate when it has one.
    viewer_options.tls = options.tls;
    auto started =
        contactsim::server::viewer::ViewerServer::Start(viewer_options, &(*server)->sessions());
    if (!started.ok()) {
      log::Error(log::Record("viewer_start_failed").AddStatus(started.status()));
      (*server)->Shutdown(std::chrono::milliseconds(0));
      return EXIT_FAILURE;
    }
    viewer = std::move(*started);
    // msg keeps the sentence scripts look for ("viewer on URL/ ").
    log::Info(log::Record("viewer_listening")
                  .Add("url", viewer->base_url() + "/")
                  .Add("msg", absl::StrCat("viewer on ", viewer->base_url(),
                                           "/ (session list; each session's viewer URL carries "
                                           "its viewer token after #)")));
  }
  absl::StatusOr<std::vector<contactsim::server::StartupScene>> scenes =
      contactsim::server::LoadStartupScenes(**server, scene_files);
  if (!scenes.ok()) {
    log::Error(log::Record("scene_load_failed").AddStatus(scenes.status()));
    (*server)->Shutdown(std::chrono::milliseconds(0));
    return EXIT_FAILURE;
  }
  // The lines that carry tokens go to the terminal that asked (stdout) or to --tokens-file.
  std::string token_lines;
  for (const contactsim::server::StartupScene& scene : *scenes) {
    // The tokens go to stdout or --tokens-file only (for whoever started the server), never into
    // the log, which is often collected and kept elsewhere.
    log::Info(log::Record("scene_loaded")
                  .Add("file", scene.file)
                  .Add("session", scene.loaded.session.session_id)
                  .Add("bodies", scene.loaded.bodies.size()));
    token_lines += contactsim::server::StartupSceneLine(scene) + "\n";
    if (viewer != nullptr) {
      token_lines +=
          "viewer session_id=" + scene.loaded.session.session_id + " url=" +
          viewer->ViewerUrl(scene.loaded.session.session_id, scene.loaded.session.viewer_token) +
          "\n";
    }
  }
  if (tokens_file.empty()) {
    std::cout << token_lines << std::flush;
  } else if (absl::Status written = contactsim::server::WritePrivateFile(tokens_file, token_lines);
             !written.ok()) {
    log::Error(log::Record("tokens_file_failed").Add("file", tokens_file).AddStatus(written));
    (*server)->Shutdown(std::chrono::milliseconds(0));
    return EXIT_FAILURE;
  }
  if ((*server)->metrics_port() != 0) {
    log::Info(log::Record("metrics_listening")
                  .Add("url", absl::StrCat("http://",
                                           options.metrics_listen.substr(
                                               0, options.metrics_listen.rfind(':')),
                                           ":", (*server)->metrics_port(), "/metrics")));
  }

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  log::Info(log::Record("shutdown_started").Add("signal", signal_number).Add("grace_s", grace_s));
  viewer.reset();  // tells the browsers "server stopping" first
  (*server)->Shutdown(std::chrono::milliseconds(static_cast<int64_t>(grace_s * 1000.0)));
  log::Info(log::Record("server_stopped"));
  return EXIT_SUCCESS;
}
