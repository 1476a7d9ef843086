// --state-dir over the service: a session persisted by one server instance comes back in a new
// instance on the same directory, with its name, tokens (their hashes) and state, and then steps
// bit for bit like a twin session that was never persisted (CPU); writes follow the pacing flags;
// a damaged file is reported and skipped without taking the other sessions with it; a closed
// session's file goes; replicas sharing a directory each restore only their own sessions. The
// real binary killed with SIGKILL mid-session is tests/python/test_state_dir_restart.py.
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "server/persist/atomic_file.h"
#include "server/persist/session_record.h"
#include "server/persist/state_directory.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

// A server instance of its own (the fixture's stays the twin, never persisted).
struct Instance {
  std::unique_ptr<ContactSimServer> server;
  std::unique_ptr<v1::Simulation::Stub> stub;
};

class StateDirTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    char pattern[] = "/tmp/contactsim-state-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = std::filesystem::path(pattern) / "state";  // made by the server
  }
  void TearDown() override { std::filesystem::remove_all(dir_.parent_path()); }

  // Writes paced so that only content changes and the drain write (unless a test says otherwise).
  Instance StartPersisting(double interval_s = 1e6, int64_t every_steps = 1'000'000'000,
                           int replica_ordinal = -1, double idle_timeout_s = 0.0) {
    ServerOptions options;
    options.session_idle_timeout_s = idle_timeout_s;
    options.listen_address = "127.0.0.1:0";
    options.persist.state_dir = dir_.string();
    options.persist.interval_s = interval_s;
    options.persist.every_steps = every_steps;
    options.replica_ordinal = replica_ordinal;
    auto server = ContactSimServer::Start(options);
    EXPECT_TRUE(server.ok()) << server.status();
    if (!server.ok()) return {};
    Instance instance;
    instance.stub = v1::Simulation::NewStub(
        grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials()));
    instance.server = std::move(*server);
    return instance;
  }

  static SessionHandle Create(v1::Simulation::Stub& stub, const std::string& name = "box") {
    v1::CreateSessionRequest request = BoxSceneRequest();
    request.set_name(name);
    v1::CreateSessionResponse response;
    grpc::Status status = stub.CreateSession(Context().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.session_id(), response.controller_token(), response.viewer_token()};
  }

  static int32_t Add(v1::Simulation::Stub& stub, const SessionHandle& session) {
    v1::AddBodyRequest request;
    request.set_session_id(session.id);
    *request.mutable_body() = BoxBody();
    v1::AddBodyResponse response;
    grpc::Status status = stub.AddBody(Context(session.controller).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.body_id();
  }

  // n single steps with a sideways push that changes every step (from step number `first`).
  static std::vector<v1::StepResponse> StepPushing(v1::Simulation::Stub& stub,
                                                   const SessionHandle& session, int32_t box,
                                                   int first, int n) {
    std::vector<v1::StepResponse> replies(n);
    for (int i = 0; i < n; ++i) {
      v1::StepRequest request;
      request.set_session_id(session.id);
      request.set_n_steps(1);
      v1::BodyControl* push = request.mutable_controls()->add_bodies();
      push->set_body_id(box);
      push->mutable_force_n()->set_y(1.0 + 0.05 * (first + i));
      grpc::Status status = stub.Step(Context(session.controller).get(), request, &replies[i]);
      EXPECT_TRUE(status.ok()) << status.error_message();
    }
    return replies;
  }

  static grpc::Status Get(v1::Simulation::Stub& stub, const std::string& id,
                          const std::string& token, v1::GetSessionResponse* response) {
    v1::GetSessionRequest request;
    request.set_session_id(id);
    return stub.GetSession(Context(token).get(), request, response);
  }

  std::filesystem::path FileOf(const std::string& id) const {
    return dir_ / persist::StateDirectory::FileName(id);
  }

  // The file's record once it reaches `step_count` (the writer runs on its own thread), or the
  // last one read when `deadline` passes.
  absl::StatusOr<persist::SessionRecord> AwaitRecord(const std::string& id, int64_t step_count,
                                                     std::chrono::seconds deadline) const {
    const auto until = std::chrono::steady_clock::now() + deadline;
    absl::StatusOr<persist::SessionRecord> record = absl::NotFoundError("no file yet");
    while (std::chrono::steady_clock::now() < until) {
      absl::StatusOr<std::string> bytes = persist::ReadWholeFile(FileOf(id));
      if (bytes.ok()) record = persist::DecodeSessionRecord(*bytes);
      if (record.ok() && record->step_count == step_count) return record;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return record;
  }

  static void ExpectSameReplies(const std::vector<v1::StepResponse>& a,
                                const std::vector<v1::StepResponse>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_TRUE(MessageDifferencer::Equals(a[i], b[i])) << "step " << i;
    }
  }

  std::filesystem::path dir_;
};

TEST_F(StateDirTest, RestoredSessionStepsLikeATwinThatWasNeverPersisted) {
  Instance first = StartPersisting();
  ASSERT_NE(first.server, nullptr);
  const SessionHandle session = Create(*first.stub, "persisted push");
  const int32_t box = Add(*first.stub, session);
  StepPushing(*first.stub, session, box, 0, 30);  // landing: tracked contacts in the state
  // The twin, on the fixture's server without a state directory: the same calls.
  const SessionHandle twin = CreateSession(BoxSceneRequest());
  ASSERT_EQ(AddBody(twin, BoxBody()), box);
  StepPushing(*stub_, twin, box, 0, 30);

  first.server->Shutdown();  // the drain writes what changed since the last write
  first.server.reset();
  ASSERT_TRUE(std::filesystem::exists(FileOf(session.id)));
  struct stat info {};
  ASSERT_EQ(stat(FileOf(session.id).c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  // Only the tokens' hashes are on disk.
  absl::StatusOr<std::string> bytes = persist::ReadWholeFile(FileOf(session.id));
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->find(session.controller), std::string::npos);
  EXPECT_EQ(bytes->find(session.viewer), std::string::npos);

  Instance second = StartPersisting();
  ASSERT_NE(second.server, nullptr);
  EXPECT_EQ(second.server->restored().restored, 1);
  EXPECT_TRUE(second.server->restored().skipped.empty());
  v1::GetSessionResponse info_reply;
  grpc::Status status = Get(*second.stub, session.id, session.viewer, &info_reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(info_reply.summary().name(), "persisted push");
  EXPECT_EQ(info_reply.summary().step_count(), 30);
  EXPECT_EQ(info_reply.summary().num_bodies(), 1);
  // The viewer token still may not step; a wrong token is refused.
  v1::StepRequest refused;
  refused.set_session_id(session.id);
  refused.set_n_steps(1);
  v1::StepResponse refused_reply;
  EXPECT_EQ(second.stub->Step(Context(session.viewer).get(), refused, &refused_reply).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(Get(*second.stub, session.id, std::string(32, 'a'), &info_reply).error_code(),
            grpc::StatusCode::OK);

  ExpectSameReplies(StepPushing(*stub_, twin, box, 30, 40),
                    StepPushing(*second.stub, session, box, 30, 40));
}

TEST_F(StateDirTest, StepsAreWrittenAfterEveryStepsOrTheInterval) {
  {
    Instance by_steps = StartPersisting(/*interval_s=*/1e6, /*every_steps=*/10);
    const SessionHandle session = Create(*by_steps.stub);
    const int32_t box = Add(*by_steps.stub, session);
    // The content change is written without any step.
    absl::StatusOr<persist::SessionRecord> record =
        AwaitRecord(session.id, 0, std::chrono::seconds(20));
    ASSERT_TRUE(record.ok()) << record.status();
    StepPushing(*by_steps.stub, session, box, 0, 4);
    // 4 < 10 steps and the interval far away: still the step-0 record a while later.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    record = persist::DecodeSessionRecord(*persist::ReadWholeFile(FileOf(session.id)));
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(record->step_count, 0);
    StepPushing(*by_steps.stub, session, box, 4, 7);  // 11 >= 10
    record = AwaitRecord(session.id, 11, std::chrono::seconds(20));
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(record->step_count, 11);
  }
  Instance by_time = StartPersisting(/*interval_s=*/0.2, /*every_steps=*/1'000'000);
  const SessionHandle session = Create(*by_time.stub);
  const int32_t box = Add(*by_time.stub, session);
  StepPushing(*by_time.stub, session, box, 0, 3);
  absl::StatusOr<persist::SessionRecord> record =
      AwaitRecord(session.id, 3, std::chrono::seconds(20));
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->step_count, 3);
}

TEST_F(StateDirTest, DamagedFileIsReportedAndSkippedAndTheOthersComeBack) {
  Instance first = StartPersisting();
  const SessionHandle damaged = Create(*first.stub, "damaged");
  const SessionHandle intact = Create(*first.stub, "intact");
  const SessionHandle flipped = Create(*first.stub, "flipped");
  Add(*first.stub, intact);
  first.server->Shutdown();
  first.server.reset();
  std::filesystem::resize_file(FileOf(damaged.id),
                               std::filesystem::file_size(FileOf(damaged.id)) / 2);
  {
    std::fstream file(FileOf(flipped.id), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(40);
    file.put('\x7f');
  }

  Instance second = StartPersisting();
  ASSERT_NE(second.server, nullptr);
  EXPECT_EQ(second.server->restored().restored, 1);
  ASSERT_EQ(second.server->restored().skipped.size(), 2u);
  const std::string skipped =
      second.server->restored().skipped[0] + second.server->restored().skipped[1];
  EXPECT_THAT(skipped, HasSubstr(damaged.id + ".session: DATA_LOSS"));
  EXPECT_THAT(skipped, HasSubstr(flipped.id + ".session: DATA_LOSS"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / (damaged.id + ".session.damaged")));
  v1::GetSessionResponse reply;
  EXPECT_EQ(Get(*second.stub, damaged.id, damaged.viewer, &reply).error_code(),
            grpc::StatusCode::NOT_FOUND);
  grpc::Status status = Get(*second.stub, intact.id, intact.viewer, &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.summary().num_bodies(), 1);
  // The next start does not trip on the damaged files again.
  second.server.reset();
  Instance third = StartPersisting();
  EXPECT_EQ(third.server->restored().restored, 1);
  EXPECT_TRUE(third.server->restored().skipped.empty());
}

TEST_F(StateDirTest, ClosedSessionsFileIsRemoved) {
  Instance instance = StartPersisting();
  const SessionHandle session = Create(*instance.stub);
  ASSERT_TRUE(AwaitRecord(session.id, 0, std::chrono::seconds(20)).ok());
  v1::CloseSessionRequest request;
  request.set_session_id(session.id);
  v1::CloseSessionResponse response;
  ASSERT_TRUE(
      instance.stub->CloseSession(Context(session.controller).get(), request, &response).ok());
  instance.server->Shutdown();
  EXPECT_FALSE(std::filesystem::exists(FileOf(session.id)));
}

// --session-idle-timeout-s with a state directory: an idle session is written and unloaded (its
// file kept), comes back on the next call that names it, and steps on like a twin that was never
// unloaded; closing an unloaded session removes its file.
TEST_F(StateDirTest, IdleSessionsAreUnloadedAndComeBackOnTheirNextCall) {
  Instance instance = StartPersisting(1e6, 1'000'000'000, -1, /*idle_timeout_s=*/0.2);
  ASSERT_NE(instance.server, nullptr);
  const SessionHandle session = Create(*instance.stub, "unloaded push");
  const int32_t box = Add(*instance.stub, session);
  StepPushing(*instance.stub, session, box, 0, 30);
  const SessionHandle twin = CreateSession(BoxSceneRequest());
  ASSERT_EQ(AddBody(twin, BoxBody()), box);
  StepPushing(*stub_, twin, box, 0, 30);

  // Polled without a call (which would mark it used): 30 s is far past 0.2 s plus the reaper's
  // period on a loaded machine.
  SessionManager& sessions = instance.server->sessions();
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (sessions.Peek(session.id) != nullptr && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(sessions.Peek(session.id), nullptr) << "not unloaded";
  const absl::StatusOr<persist::SessionRecord> record =
      AwaitRecord(session.id, 30, std::chrono::seconds(1));
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->step_count, 30);

  v1::GetSessionResponse info;
  grpc::Status status = Get(*instance.stub, session.id, session.controller, &info);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(info.summary().name(), "unloaded push");
  EXPECT_EQ(info.summary().step_count(), 30);
  // Single steps, each of which may find the session unloaded again in between: bit for bit.
  ExpectSameReplies(StepPushing(*stub_, twin, box, 30, 20),
                    StepPushing(*instance.stub, session, box, 30, 20));

  v1::CloseSessionRequest close;
  close.set_session_id(session.id);
  v1::CloseSessionResponse closed;
  ASSERT_TRUE(instance.stub->CloseSession(Context(session.controller).get(), close, &closed).ok());
  instance.server->Shutdown();
  EXPECT_FALSE(std::filesystem::exists(FileOf(session.id)));
}

TEST_F(StateDirTest, ReplicasSharingADirectoryRestoreOnlyTheirOwnSessions) {
  Instance replica2 = StartPersisting(1e6, 1'000'000'000, /*replica_ordinal=*/2);
  const SessionHandle of2 = Create(*replica2.stub);
  EXPECT_EQ(of2.id.rfind("r2-", 0), 0u) << of2.id;
  replica2.server->Shutdown();
  replica2.server.reset();
  Instance replica1 = StartPersisting(1e6, 1'000'000'000, /*replica_ordinal=*/1);
  EXPECT_EQ(replica1.server->restored().restored, 0);
  const SessionHandle of1 = Create(*replica1.stub);
  EXPECT_EQ(of1.id.rfind("r1-", 0), 0u) << of1.id;
  replica1.server->Shutdown();
  replica1.server.reset();
  EXPECT_TRUE(std::filesystem::exists(FileOf(of2.id)));  // replica 1 left it alone
  Instance again2 = StartPersisting(1e6, 1'000'000'000, /*replica_ordinal=*/2);
  EXPECT_EQ(again2.server->restored().restored, 1);
  v1::GetSessionResponse reply;
  EXPECT_TRUE(Get(*again2.stub, of2.id, of2.viewer, &reply).ok());
}

}  // namespace
}  // namespace contactsim::server::servertest
