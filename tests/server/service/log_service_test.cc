// The server's log through a session's life over loopback gRPC (issue 21, "Names and logs"): a
// session named with the most hostile name CreateSession accepts, a mesh upload, a step that
// diverges, a robot with a hostile name, and both sessions closed. In each format every record
// is one line that reads back, the hostile name comes back as it was sent, and no record holds
// a session's token.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "server/service/library_logs.h"
#include "tests/server/log/capturing_sink.h"
#include "tests/server/log/log_line_parser.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

using log::LogFormat;
using logtest::LogfmtFields;
using logtest::ParseJsonLine;
using logtest::ParseLogfmtLine;
using logtest::ScopedCapture;

// Every kind of text the boundary lets through in a name (printable ASCII and any UTF-8; proto3
// refuses a string that is not UTF-8 before the service sees it, and the name check refuses
// control bytes): quotes, '=', backslashes, braces, a fake logfmt record and a fake JSON record,
// NEL, LINE SEPARATOR, RIGHT-TO-LEFT OVERRIDE and an emoji. Padded with 'x' to the default
// --max-name-bytes (256).
const std::string kHostileStem =
    "\" ts=0 level=error event=forged x=\\\"y\\\" \"}{\"level\":\"error\",\"event\":\"forged\" "
    "\xc2\x85 \xe2\x80\xa8 \xe2\x80\xae \xf0\x9f\x92\xa5 end ";
constexpr size_t kMaxNameBytes = 256;  // ServerLimits' default max_name_bytes

std::string Padded(const std::string& stem) {
  return stem + std::string(kMaxNameBytes - stem.size(), 'x');
}

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// One record as text fields (JSON numbers and flags are not compared here).
struct ParsedRecord {
  std::map<std::string, std::string> text;
};

class LogServiceTest : public ServiceTest, public ::testing::WithParamInterface<LogFormat> {
 protected:
  grpc::Status UploadBoxMesh(const SessionHandle& session, v1::UploadMeshResponse* response) {
    auto context = Context(session.controller);
    std::unique_ptr<grpc::ClientWriter<v1::UploadMeshChunk>> writer =
        stub_->UploadMesh(context.get(), response);
    const auto mesh = core::MakeBox(core::Vec3(0.1, 0.1, 0.1));
    EXPECT_TRUE(mesh.ok()) << mesh.status();
    v1::UploadMeshChunk chunk;
    chunk.set_session_id(session.id);
    const core::Points3& x = mesh->vertices();
    const core::IndexTriples& f = mesh->faces();
    chunk.mutable_vertices_m()->Add(x.data(), x.data() + x.size());
    chunk.mutable_elements()->Add(f.data(), f.data() + f.size());
    writer->Write(chunk);
    writer->WritesDone();
    return writer->Finish();
  }

  // Each line parsed in the format under test; a line that does not parse fails the test.
  std::vector<ParsedRecord> Parse(const std::vector<std::string>& lines) {
    std::vector<ParsedRecord> records;
    for (const std::string& line : lines) {
      ParsedRecord record;
      if (GetParam() == LogFormat::kText) {
        absl::StatusOr<LogfmtFields> fields = ParseLogfmtLine(line);
        EXPECT_TRUE(fields.ok()) << fields.status() << "\n" << line;
        if (!fields.ok()) continue;
        for (const auto& [key, value] : *fields) record.text[key] = value;
      } else {
        absl::StatusOr<google::protobuf::Struct> object = ParseJsonLine(line);
        EXPECT_TRUE(object.ok()) << object.status() << "\n" << line;
        if (!object.ok()) continue;
        for (const auto& [key, value] : object->fields()) {
          if (value.has_string_value()) record.text[key] = value.string_value();
        }
      }
      records.push_back(std::move(record));
    }
    return records;
  }
};

TEST_P(LogServiceTest, ASessionsLifeIsLoggedOneParseableLineAtATimeWithoutItsTokens) {
  ScopedCapture capture(GetParam(), spdlog::level::info);
  const std::string hostile = Padded(kHostileStem);
  ASSERT_EQ(hostile.size(), kMaxNameBytes);

  // The box session: created with the hostile name, a mesh uploaded, a step that diverges.
  v1::CreateSessionRequest request = BoxSceneRequest();
  request.set_name(hostile);
  const SessionHandle box = CreateSession(request);
  ASSERT_FALSE(box.id.empty());
  v1::UploadMeshResponse uploaded;
  const grpc::Status upload = UploadBoxMesh(box, &uploaded);
  ASSERT_TRUE(upload.ok()) << upload.error_message();
  const int32_t body = AddBody(box, BoxBody());
  v1::StepControls blow_up;  // 1e200 N on a 1 kg box: the session diverges (step_service_test)
  v1::BodyControl* push = blow_up.add_bodies();
  push->set_body_id(body);
  push->mutable_force_n()->set_x(1e200);
  v1::StepResponse stepped;
  EXPECT_EQ(Step(box, 1, &stepped, blow_up).error_code(), grpc::StatusCode::FAILED_PRECONDITION);

  // The robot session: the same name, and a robot named with hostile bytes too.
  v1::CreateSessionRequest robot_request;
  robot_request.set_name(hostile);
  robot_request.set_pipeline("rigid_lcp");
  robot_request.mutable_settings()->set_dt_s(1e-3);
  robot_request.mutable_settings()->mutable_gravity_m_per_s2()->set_z(-9.81);
  robot_request.add_ground_planes()->mutable_normal()->set_z(1.0);
  const SessionHandle arm = CreateSession(robot_request);
  ASSERT_FALSE(arm.id.empty());
  const std::string robot_name = "arm\n\"=\\ \xf0\x9f\xa4\x96";
  v1::AddRobotRequest add_robot;
  add_robot.set_session_id(arm.id);
  add_robot.set_name(robot_name);
  add_robot.set_urdf(
      ReadText(std::filesystem::path(CONTACTSIM_REPO_DIR) / "scenes/robots/six_axis_arm.urdf"));
  v1::AddRobotResponse added;
  // A newline is refused at the boundary (a name is printable text): the robot goes without it.
  EXPECT_EQ(stub_->AddRobot(Context(arm.controller).get(), add_robot, &added).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  const std::string accepted_robot_name = "arm \"=\\ \xf0\x9f\xa4\x96";
  add_robot.set_name(accepted_robot_name);
  const grpc::Status robot_status =
      stub_->AddRobot(Context(arm.controller).get(), add_robot, &added);
  ASSERT_TRUE(robot_status.ok()) << robot_status.error_message();

  for (const SessionHandle* session : {&box, &arm}) {
    v1::CloseSessionRequest close;
    close.set_session_id(session->id);
    v1::CloseSessionResponse closed;
    ASSERT_TRUE(stub_->CloseSession(Context(session->controller).get(), close, &closed).ok());
  }

  const std::string text = capture.sink().Text();
  for (const std::string* token : {&box.controller, &box.viewer, &arm.controller, &arm.viewer}) {
    ASSERT_FALSE(token->empty());
    EXPECT_EQ(text.find(*token), std::string::npos) << "a token in the log:\n" << text;
  }
  bool complete = false;
  const std::vector<std::string> lines = logtest::SplitLines(text, &complete);
  ASSERT_TRUE(complete);
  for (const std::string& line : lines) {
    for (char c : line) ASSERT_GE(static_cast<unsigned char>(c), 0x20) << line;
  }
  const std::vector<ParsedRecord> records = Parse(lines);
  ASSERT_EQ(records.size(), lines.size());

  // The records of these two sessions, by event (records of nothing else are allowed around).
  std::map<std::string, std::vector<const ParsedRecord*>> by_event;
  for (const ParsedRecord& record : records) {
    const auto session = record.text.find("session");
    if (session != record.text.end() && (session->second == box.id || session->second == arm.id)) {
      by_event[record.text.at("event")].push_back(&record);
    }
  }
  ASSERT_EQ(by_event["session_created"].size(), 2u) << text;
  for (const ParsedRecord* created : by_event["session_created"]) {
    EXPECT_EQ(created->text.at("name"), hostile);
    EXPECT_EQ(created->text.at("level"), "info");
  }
  ASSERT_EQ(by_event["mesh_uploaded"].size(), 1u) << text;
  EXPECT_EQ(by_event["mesh_uploaded"][0]->text.at("mesh"), uploaded.mesh_id());
  ASSERT_EQ(by_event["session_failed"].size(), 1u) << text;
  EXPECT_EQ(by_event["session_failed"][0]->text.at("session"), box.id);
  EXPECT_EQ(by_event["session_failed"][0]->text.at("level"), "warning");
  EXPECT_EQ(by_event["session_failed"][0]->text.at("code"), "FAILED_PRECONDITION");
  ASSERT_EQ(by_event["robot_added"].size(), 1u) << text;
  EXPECT_EQ(by_event["robot_added"][0]->text.at("robot"), accepted_robot_name);
  ASSERT_EQ(by_event["session_closed"].size(), 2u) << text;
}

// A string that is not UTF-8 makes protobuf complain on stderr (the client's serializer, the
// server's parser): routed through the structured log, that too is one record per line.
TEST_P(LogServiceTest, ProtobufsOwnComplaintsAreRecordsToo) {
  ScopedCapture capture(GetParam(), spdlog::level::info);
  RouteLibraryLogs();
  v1::CreateSessionRequest request = BoxSceneRequest();
  request.set_name("bad \xff\n name");
  v1::CreateSessionResponse response;
  EXPECT_FALSE(stub_->CreateSession(Context().get(), request, &response).ok());

  bool complete = false;
  const std::vector<std::string> lines = logtest::SplitLines(capture.sink().Text(), &complete);
  ASSERT_TRUE(complete);
  const std::vector<ParsedRecord> records = Parse(lines);
  ASSERT_EQ(records.size(), lines.size());
  int complaints = 0;
  for (const ParsedRecord& record : records) {
    if (record.text.at("event") != "protobuf_log") continue;
    ++complaints;
    EXPECT_THAT(record.text.at("msg"), ::testing::HasSubstr("invalid UTF-8"));
  }
  EXPECT_GE(complaints, 1) << capture.sink().Text();
}

INSTANTIATE_TEST_SUITE_P(Formats, LogServiceTest,
                         ::testing::Values(LogFormat::kText, LogFormat::kJson),
                         [](const auto& info) {
                           return info.param == LogFormat::kText ? "Text" : "Json";
                         });

}  // namespace
}  // namespace contactsim::server::servertest
