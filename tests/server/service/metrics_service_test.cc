// The /metrics endpoint of an in-process server (prometheus-cpp's Exposer), scraped with a plain
// socket HTTP GET: the exposition parses (HELP/TYPE, histogram buckets), counters and gauges move
// exactly as sessions are created, stepped, refused, streamed, snapshotted and closed, every
// metric docs/service.md lists is served (and nothing it does not list), and bad requests and
// addresses get clear answers.
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "server/viewer/viewer_server.h"
#include "tests/server/service/prometheus_text.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

constexpr char kStepOk[] =
    "contactsim_rpcs_total{service=\"contactsim.v1.Simulation\",method=\"Step\",code=\"OK\"}";
constexpr char kStepUnauthenticated[] =
    "contactsim_rpcs_total{service=\"contactsim.v1.Simulation\",method=\"Step\","
    "code=\"UNAUTHENTICATED\"}";
constexpr char kCreateOk[] =
    "contactsim_rpcs_total{service=\"contactsim.v1.Simulation\",method=\"CreateSession\","
    "code=\"OK\"}";

class MetricsServiceTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.metrics_listen = "127.0.0.1:0";
    options.limits.stream_ring_frames = 2;
    StartServerWith(options);
  }

  // Scrapes /metrics; every format error fails the test.
  Exposition Scrape() {
    std::optional<HttpResponse> response = HttpGet(server_->metrics_port(), "/metrics");
    EXPECT_TRUE(response.has_value());
    if (!response) return {};
    EXPECT_EQ(response->status, 200);
    // prometheus-cpp answers text/plain without a version, which Prometheus reads as 0.0.4.
    EXPECT_NE(response->headers.find("Content-Type: text/plain"), std::string::npos)
        << response->headers;
    Exposition exposition = ParseExposition(response->body);
    for (const std::string& error : exposition.errors) ADD_FAILURE() << error;
    return exposition;
  }

  // Scrapes until `key` reaches `value` (the stream counters move on gRPC threads after the
  // client sees a frame); a generous deadline for a loaded machine.
  bool EventuallyEquals(const std::string& key, double value) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (Scrape()[key] == value) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }
};

TEST_F(MetricsServiceTest, ListensOnAFreePortAndServesOnlyMetrics) {
  ASSERT_GT(server_->metrics_port(), 0);
  EXPECT_NE(server_->metrics_port(), server_->port());
  for (const char* path : {"/", "/metrics/x", "/metricsx", "/index.html"}) {
    std::optional<HttpResponse> other = HttpGet(server_->metrics_port(), path);
    ASSERT_TRUE(other.has_value()) << path;
    EXPECT_EQ(other->status, 404) << path;
  }
  std::optional<HttpResponse> post =
      HttpRequest(server_->metrics_port(), "POST /metrics HTTP/1.0\r\nContent-Length: 0\r\n\r\n");
  ASSERT_TRUE(post.has_value());
  EXPECT_EQ(post->status, 405);
  EXPECT_NE(post->headers.find("Allow: GET"), std::string::npos) << post->headers;
  // Not HTTP: civetweb's own error, answered with the same short fixed text.
  std::optional<HttpResponse> garbage =
      HttpRequest(server_->metrics_port(), "\x01\x02 not http at all\r\n\r\n");
  ASSERT_TRUE(garbage.has_value());
  EXPECT_EQ(garbage->status, 400);
  // The listener still serves.
  EXPECT_EQ(Scrape()["contactsim_steps_total"], 0);
}

// A second listener on a taken port fails and says so; an address the listener cannot take is
// refused naming the flag.
TEST_F(MetricsServiceTest, RefusesABusyPortAndBadAddresses) {
  ServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.metrics_listen = "127.0.0.1:" + std::to_string(server_->metrics_port());
  absl::StatusOr<std::unique_ptr<ContactSimServer>> second = ContactSimServer::Start(options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable) << second.status();
  EXPECT_TRUE(absl::StrContains(second.status().message(),
                                "metrics_listen: could not listen on " + options.metrics_listen))
      << second.status();
  EXPECT_TRUE(absl::StrContains(second.status().message(), "in use")) << second.status();

  for (const char* listen : {"127.0.0.1", "127.0.0.1:", "127.0.0.1:http", "127.0.0.1:65536",
                             "127.0.0.1:9464s", "127.0.0.1:1,127.0.0.1:2", ":9464", "[::1]:0"}) {
    options.metrics_listen = listen;
    absl::StatusOr<std::unique_ptr<ContactSimServer>> refused = ContactSimServer::Start(options);
    ASSERT_FALSE(refused.ok()) << listen;
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << refused.status();
    EXPECT_TRUE(absl::StrContains(refused.status().message(), "metrics_listen")) << listen;
  }
  // The first listener is untouched.
  EXPECT_EQ(Scrape()["contactsim_sessions_created_total"], 0);
}

TEST_F(MetricsServiceTest, FreshServerReportsZeros) {
  const Exposition scraped = Scrape();
  EXPECT_EQ(scraped["contactsim_sessions{state=\"active\"}"], 0);
  EXPECT_EQ(scraped["contactsim_sessions{state=\"failed\"}"], 0);
  EXPECT_EQ(scraped["contactsim_sessions_created_total"], 0);
  EXPECT_EQ(scraped["contactsim_steps_total"], 0);
  EXPECT_EQ(scraped["contactsim_step_calls_total"], 0);
  EXPECT_EQ(scraped["contactsim_step_call_duration_seconds_count"], 0);
  EXPECT_EQ(scraped["contactsim_step_call_duration_seconds_bucket{le=\"1e-05\"}"], 0);
  EXPECT_EQ(scraped["contactsim_step_call_duration_seconds_bucket{le=\"10\"}"], 0);
  EXPECT_EQ(scraped["contactsim_stream_subscribers"], 0);
  EXPECT_EQ(scraped.types.at("contactsim_step_call_duration_seconds"), "histogram");
  EXPECT_EQ(scraped.types.at("contactsim_sessions"), "gauge");
  // Codes appear when they happen; with no call at all, prometheus-cpp leaves the family out.
  EXPECT_FALSE(scraped.Has(kStepOk));
  EXPECT_EQ(scraped.types.count("contactsim_rpcs_total"), 0u);
}

// The server registers the process_* metrics and its build info (their values are checked in
// server_process_metrics_test); a server has a listener, gRPC threads and more than a page.
TEST_F(MetricsServiceTest, ScrapeShowsProcessMetricsAndBuildInfo) {
  const Exposition scraped = Scrape();
  EXPECT_GT(scraped["process_resident_memory_bytes"], 0);
  EXPECT_GT(scraped["process_open_fds"], 0);
  EXPECT_GE(scraped["process_threads"], 1);
  EXPECT_EQ(scraped.types.at("process_cpu_seconds_total"), "counter");
  EXPECT_EQ(scraped.types.at("process_start_time_seconds"), "gauge");
  int build_info_rows = 0;
  for (const auto& [key, value] : scraped.samples) {
    if (!key.starts_with("contactsim_build_info{")) continue;
    EXPECT_NE(key.find("version=\""), std::string::npos) << key;
    EXPECT_NE(key.find("git=\""), std::string::npos) << key;
    ++build_info_rows;
    EXPECT_EQ(value, 1) << key;
  }
  EXPECT_EQ(build_info_rows, 1);
}

TEST_F(MetricsServiceTest, CountersFollowSessionsAndSteps) {
  const SessionHandle a = CreateSession(BoxSceneRequest());
  AddBody(a, BoxBody());
  Exposition scraped = Scrape();
  EXPECT_EQ(scraped["contactsim_sessions_created_total"], 1);
  EXPECT_EQ(scraped["contactsim_sessions{state=\"active\"}"], 1);
  EXPECT_EQ(scraped[kCreateOk], 1);
  EXPECT_EQ(scraped.types.at("contactsim_rpcs_total"), "counter");

  v1::StepResponse reply;
  ASSERT_TRUE(Step(a, 5, &reply).ok());
  ASSERT_TRUE(Step(a, 7, &reply).ok());
  const SessionHandle b = CreateSession(BoxSceneRequest());
  ASSERT_TRUE(Step(b, 1, &reply).ok());
  SessionHandle wrong = a;
  wrong.controller = "not-a-token";
  EXPECT_EQ(Step(wrong, 3, &reply).error_code(), grpc::StatusCode::UNAUTHENTICATED);

  scraped = Scrape();
  EXPECT_EQ(scraped["contactsim_sessions_created_total"], 2);
  EXPECT_EQ(scraped["contactsim_sessions{state=\"active\"}"], 2);
  EXPECT_EQ(scraped["contactsim_steps_total"], 13);
  EXPECT_EQ(scraped["contactsim_step_calls_total"], 3);
  EXPECT_EQ(scraped["contactsim_step_call_duration_seconds_count"], 3);
  EXPECT_EQ(scraped["contactsim_step_call_duration_seconds_bucket{le=\"+Inf\"}"], 3);
  EXPECT_GT(scraped["contactsim_step_call_duration_seconds_sum"], 0.0);
  EXPECT_EQ(scraped[kStepOk], 3);
  EXPECT_EQ(scraped[kStepUnauthenticated], 1);
  EXPECT_EQ(scraped["contactsim_session_tasks_inline_total"] +
                scraped["contactsim_session_tasks_pooled_total"],
            4);  // AddBody and three Steps; the refused Step never reached the session

  v1::CloseSessionRequest close;
  close.set_session_id(b.id);
  v1::CloseSessionResponse closed;
  ASSERT_TRUE(stub_->CloseSession(Context(b.controller).get(), close, &closed).ok());
  scraped = Scrape();
  EXPECT_EQ(scraped["contactsim_sessions{state=\"active\"}"], 1);
  EXPECT_EQ(scraped["contactsim_sessions_closed_total"], 1);
}

TEST_F(MetricsServiceTest, FailedSessionsAreCountedByState) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  const int32_t box = AddBody(session, BoxBody());
  v1::SnapshotRequest snapshot_request;
  snapshot_request.set_session_id(session.id);
  v1::SnapshotResponse snapshot;
  ASSERT_TRUE(stub_->Snapshot(Context(session.controller).get(), snapshot_request, &snapshot).ok());
  // A 1e200 N push on a 1 kg box diverges: the session fails.
  v1::StepControls controls;
  v1::BodyControl* control = controls.add_bodies();
  control->set_body_id(box);
  control->mutable_force_n()->set_x(1e200);
  v1::StepResponse reply;
  EXPECT_EQ(Step(session, 1, &reply, controls).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  Exposition scraped = Scrape();
  EXPECT_EQ(scraped["contactsim_sessions{state=\"failed\"}"], 1);
  EXPECT_EQ(scraped["contactsim_sessions{state=\"active\"}"], 0);
  EXPECT_EQ(scraped["contactsim_snapshots_total"], 1);

  v1::RestoreRequest restore;
  restore.set_session_id(session.id);
  restore.set_snapshot(snapshot.snapshot());
  v1::RestoreResponse restored;
  ASSERT_TRUE(stub_->Restore(Context(session.controller).get(), restore, &restored).ok());
  scraped = Scrape();
  EXPECT_EQ(scraped["contactsim_sessions{state=\"failed\"}"], 0);
  EXPECT_EQ(scraped["contactsim_sessions{state=\"active\"}"], 1);
  EXPECT_EQ(scraped["contactsim_restores_total"], 1);
}

TEST_F(MetricsServiceTest, StreamsCountSubscribersFramesAndSkippedFrames) {
  const SessionHandle session = CreateSession(BoxSceneRequest());  // frame 1
  AddBody(session, BoxBody());                                     // frame 2
  v1::StepResponse reply;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Step(session, 1, &reply).ok());  // frames 3..5
  // The ring keeps frames 4 and 5: resuming from 1 skips frames 1..3.
  grpc::ClientContext context;
  v1::StreamStateRequest request;
  request.set_session_id(session.id);
  request.set_from_seq(1);
  context.AddMetadata("authorization", "Bearer " + session.viewer);
  auto reader = stub_->StreamState(&context, request);
  v1::StateFrame frame;
  ASSERT_TRUE(reader->Read(&frame));
  EXPECT_EQ(frame.seq(), 4);
  Exposition scraped = Scrape();
  EXPECT_EQ(scraped["contactsim_stream_subscribers"], 1);
  EXPECT_EQ(scraped["contactsim_stream_frames_coalesced_total"], 3);
  ASSERT_TRUE(reader->Read(&frame));
  EXPECT_EQ(frame.seq(), 5);
  EXPECT_TRUE(EventuallyEquals("contactsim_stream_frames_sent_total", 2));
  context.TryCancel();
  while (reader->Read(&frame)) {
  }
  reader->Finish();
  EXPECT_TRUE(EventuallyEquals("contactsim_stream_subscribers", 0));
}

// prometheus-cpp's Exposer and the browser viewer both run on Debian's one shared libcivetweb:
// in one process each answers on its own port, and the metrics outlive the viewer's stop.
TEST_F(MetricsServiceTest, TheViewerServesBesideTheMetricsListener) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  viewer::ViewerOptions viewer_options;
  viewer_options.listen = "127.0.0.1:0";
  auto viewer = viewer::ViewerServer::Start(viewer_options, &server_->sessions());
  ASSERT_TRUE(viewer.ok()) << viewer.status();
  ASSERT_NE((*viewer)->port(), server_->metrics_port());
  std::optional<HttpResponse> listed = HttpGet((*viewer)->port(), "/api/sessions");
  ASSERT_TRUE(listed.has_value());
  EXPECT_EQ(listed->status, 200);
  EXPECT_NE(listed->body.find("\"id\":\"" + session.id + "\""), std::string::npos) << listed->body;
  EXPECT_EQ(Scrape()["contactsim_sessions{state=\"active\"}"], 1);
  viewer->reset();
  EXPECT_EQ(Scrape()["contactsim_sessions_created_total"], 1);
}

// The metric names docs/service.md lists: the first column of the table in its "## Metrics"
// section, without the labels.
std::set<std::string> DocumentedMetricNames() {
  std::ifstream file(std::string(CONTACTSIM_REPO_DIR) + "/docs/service.md");
  EXPECT_TRUE(file.good()) << CONTACTSIM_REPO_DIR << "/docs/service.md";
  std::set<std::string> names;
  bool in_section = false;
  for (std::string line; std::getline(file, line);) {
    if (line.starts_with("## ")) in_section = line == "## Metrics";
    if (!in_section || !line.starts_with("| `")) continue;
    names.insert(line.substr(3, line.find_first_of("{`", 3) - 3));
  }
  return names;
}

class DocumentedMetricsTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.metrics_listen = "127.0.0.1:0";
    // contactsim_gpu_memory_budget_used_bytes is served only with a budget, which a server has
    // whether CUDA is usable or not.
    options.device.gpu_memory_budget_bytes = int64_t{1} << 30;
    StartServerWith(options);
  }
};

TEST_F(DocumentedMetricsTest, EveryDocumentedMetricIsServedAndEveryServedOneIsDocumented) {
  const std::set<std::string> documented = DocumentedMetricNames();
  // 29 rows when this test was written: the server's 21, process_* 5, prometheus-cpp's exposer_*
  // 3. Fewer means the table was not found or not read.
  EXPECT_GE(documented.size(), 29u);
  CreateSession(BoxSceneRequest());  // contactsim_rpcs_total has a child from the first call
  std::optional<HttpResponse> response = HttpGet(server_->metrics_port(), "/metrics");
  ASSERT_TRUE(response.has_value());
  ASSERT_EQ(response->status, 200);
  const Exposition scraped = ParseExposition(response->body);
  for (const std::string& error : scraped.errors) ADD_FAILURE() << error;
  for (const std::string& name : documented) {
    EXPECT_EQ(scraped.types.count(name), 1u) << name << " is documented but not served";
    bool has_sample = false;
    for (const auto& [key, value] : scraped.samples) {
      const std::string sample_name = key.substr(0, key.find('{'));
      has_sample |= sample_name == name || sample_name == name + "_bucket" ||
                    sample_name == name + "_sum" || sample_name == name + "_count";
    }
    EXPECT_TRUE(has_sample) << name << " has no sample";
  }
  for (const auto& [name, type] : scraped.types) {
    EXPECT_EQ(documented.count(name), 1u) << name << " is served but not in docs/service.md";
  }
}

}  // namespace
}  // namespace contactsim::server::servertest
