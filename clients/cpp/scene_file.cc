#include "clients/cpp/scene_file.h"

#include <fstream>
#include <iterator>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "clients/cpp/session_handle.h"
#include "clients/cpp/status_convert.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace contactsim::client {
namespace {

// Keeps the first error the text parser reports (later ones are usually consequences of it).
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (!message_) {
      line_ = line;
      column_ = column;
      message_ = message;
    }
  }

  // "<source>:<line>:<column>: <message>", 1-based like editors and compilers.
  std::string Format(std::string_view source) const {
    if (!message_) return absl::StrCat(std::string(source), ": not a valid SceneFile");
    if (line_ < 0) return absl::StrCat(std::string(source), ": ", *message_);
    return absl::StrCat(std::string(source), ":", line_ + 1, ":", column_ + 1, ": ", *message_);
  }

 private:
  int line_ = -1;
  int column_ = -1;
  std::optional<std::string> message_;
};

absl::Status Prefixed(const absl::Status& status, const std::string& prefix) {
  return absl::Status(status.code(), absl::StrCat(prefix, ": ", status.message()));
}

std::string BodyLabel(int index, const v1::BodySpec& body) {
  std::string label = absl::StrCat("bodies[", index, "]");
  if (!body.name().empty()) absl::StrAppend(&label, " (", body.name(), ")");
  return label;
}

absl::StatusOr<int32_t> AddConstraint(const Connection& connection, const CreatedSession& session,
                                      const v1::ConstraintSpec& constraint) {
  grpc::ClientContext context;
  connection.PrepareContext(context, session.controller_token);
  v1::AddConstraintRequest request;
  request.set_session_id(session.session_id);
  *request.mutable_constraint() = constraint;
  v1::AddConstraintResponse response;
  const grpc::Status status = connection.stub().AddConstraint(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response.constraint_id();
}

}  // namespace

absl::StatusOr<v1::SceneFile> ParseSceneFile(std::string_view text, std::string_view source) {
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  v1::SceneFile scene;
  if (!parser.ParseFromString(std::string(text), &scene)) {
    return absl::InvalidArgumentError(errors.Format(source));
  }
  return scene;
}

absl::StatusOr<v1::SceneFile> ReadSceneFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat(path, ": cannot read the file"));
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) return absl::NotFoundError(absl::StrCat(path, ": cannot read the file"));
  return ParseSceneFile(text, path);
}

absl::StatusOr<LoadedScene> LoadScene(const Connection& connection, const v1::SceneFile& scene,
                                      std::string_view name) {
  v1::CreateSessionRequest request = scene.session();
  if (!name.empty()) request.set_name(std::string(name));
  absl::StatusOr<CreatedSession> created = connection.CreateSession(request);
  if (!created.ok()) return Prefixed(created.status(), "session");
  LoadedScene loaded;
  loaded.session = *std::move(created);
  const SessionHandle controller =
      connection.Session(loaded.session.session_id, loaded.session.controller_token);
  // A scene loads completely or not at all: a refused element closes the half-built session.
  auto fail = [&](const absl::Status& status, const std::string& prefix) {
    (void)controller.CloseSession();  // best effort: the refusal is what the caller needs
    return Prefixed(status, prefix);
  };
  for (int i = 0; i < scene.bodies_size(); ++i) {
    absl::StatusOr<v1::AddBodyResponse> added = controller.AddBody(scene.bodies(i));
    if (!added.ok()) return fail(added.status(), BodyLabel(i, scene.bodies(i)));
    loaded.bodies.push_back(*std::move(added));
  }
  for (int i = 0; i < scene.constraints_size(); ++i) {
    absl::StatusOr<int32_t> id = AddConstraint(connection, loaded.session, scene.constraints(i));
    if (!id.ok()) return fail(id.status(), absl::StrCat("constraints[", i, "]"));
    loaded.constraint_ids.push_back(*id);
  }
  return loaded;
}

}  // namespace contactsim::client
