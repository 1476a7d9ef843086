#include "scenes/loader/scene_file.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "scenes/loader/grpc_status.h"
#include "scenes/loader/mesh_file_upload.h"
#include "scenes/loader/robot_request.h"
#include "scenes/loader/scene_robot_motors.h"
#include "scenes/loader/session_metadata.h"
#include "scenes/loader/utf8_fields.h"

namespace contactsim::scenes {
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

// The AddRobotRequest of a scene's robot: the URDF and its mesh files read here (robot_request.h).
absl::StatusOr<v1::AddRobotRequest> SceneRobotRequest(const v1::SceneRobot& robot) {
  if (robot.urdf_path().empty()) return absl::InvalidArgumentError("urdf_path: required");
  RobotPackages packages;
  for (const auto& [name, folder] : robot.packages()) packages.dirs[name] = folder;
  packages.search_roots = RosPackagePathFromEnvironment();
  AddRobotOptions options;
  if (robot.has_base_pose()) options.base_pose = robot.base_pose();
  options.fixed_base = !robot.has_fixed_base() || robot.fixed_base();
  options.name = robot.name();
  options.load = robot.options();
  return MakeAddRobotRequest(robot.urdf_path(), packages, options);
}

}  // namespace

absl::StatusOr<v1::SceneFile> ParseSceneFile(std::string_view text, std::string_view source) {
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  google::protobuf::TextFormat::ParseInfoTree locations;
  parser.WriteLocationsTo(&locations);
  v1::SceneFile scene;
  if (!parser.ParseFromString(std::string(text), &scene)) {
    return absl::InvalidArgumentError(errors.Format(source));
  }
  // Escapes such as "\377" put any bytes in a string; such a scene could not be sent.
  if (absl::Status utf8 = CheckUtf8Strings(scene, absl::StrCat(std::string(source), ": "));
      !utf8.ok()) {
    return utf8;
  }
  if (absl::Status motors = CheckSceneRobotMotors(scene, &locations, source); !motors.ok()) {
    return motors;
  }
  return scene;
}

absl::StatusOr<v1::SceneFile> ReadSceneFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat(path, ": cannot read the file"));
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) return absl::NotFoundError(absl::StrCat(path, ": cannot read the file"));
  absl::StatusOr<v1::SceneFile> scene = ParseSceneFile(text, path);
  if (!scene.ok()) return scene;
  // Mesh file paths are relative to the scene file, wherever it is loaded from.
  const std::filesystem::path directory = std::filesystem::path(path).parent_path();
  for (v1::SceneMeshFile& mesh_file : *scene->mutable_mesh_files()) {
    const std::filesystem::path mesh_path(mesh_file.path());
    if (!mesh_file.path().empty() && mesh_path.is_relative()) {
      mesh_file.set_path((directory / mesh_path).string());
    }
  }
  // So are a robot's URDF and package folders.
  auto relative_to_scene = [&](const std::string& written) {
    const std::filesystem::path written_path(written);
    return written.empty() || written_path.is_absolute() ? written
                                                         : (directory / written_path).string();
  };
  for (v1::SceneRobot& robot : *scene->mutable_robots()) {
    robot.set_urdf_path(relative_to_scene(robot.urdf_path()));
    for (auto& [name, folder] : *robot.mutable_packages()) folder = relative_to_scene(folder);
  }
  return scene;
}

absl::Status CheckSceneMeshFiles(const v1::SceneFile& scene) {
  std::map<std::string, int> names;
  for (int i = 0; i < scene.mesh_files_size(); ++i) {
    const v1::SceneMeshFile& file = scene.mesh_files(i);
    const std::string field = absl::StrCat("mesh_files[", i, "]");
    if (file.name().empty()) return absl::InvalidArgumentError(field + ".name: required");
    if (file.path().empty()) return absl::InvalidArgumentError(field + ".path: required");
    if (!names.emplace(file.name(), i).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ".name: '", file.name(), "' is also mesh_files[", names[file.name()], "]'s name"));
    }
  }
  for (int i = 0; i < scene.bodies_size(); ++i) {
    const v1::BodySpec& body = scene.bodies(i);
    if (body.mesh_case() == v1::BodySpec::kMeshId && !names.contains(body.mesh_id())) {
      return absl::InvalidArgumentError(
          absl::StrCat(BodyLabel(i, body), ".mesh_id: '", body.mesh_id(),
                       "' names no entry of mesh_files (a scene refers to its own mesh files)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<LoadedSceneIds> LoadScene(v1::Simulation::StubInterface& stub,
                                         const PrepareContextFn& prepare,
                                         const v1::SceneFile& scene, std::string_view name) {
  if (absl::Status names = CheckSceneMeshFiles(scene); !names.ok()) return names;
  if (absl::Status motors = CheckSceneRobotMotors(scene, /*tree=*/nullptr, "scene"); !motors.ok()) {
    return motors;
  }
  v1::CreateSessionRequest create = scene.session();
  if (!name.empty()) create.set_name(std::string(name));
  LoadedSceneIds loaded;
  {
    grpc::ClientContext context;
    prepare(context, /*token=*/"");
    v1::CreateSessionResponse created;
    absl::Status status = FromGrpcStatus(stub.CreateSession(&context, create, &created));
    if (!status.ok()) return Prefixed(status, "session");
    loaded.session = {created.session_id(), created.controller_token(), created.viewer_token()};
  }
  const std::string& session_id = loaded.session.session_id;
  const std::string& token = loaded.session.controller_token;
  // A scene loads completely or not at all: a refused element closes the half-built session.
  auto fail = [&](const absl::Status& status, const std::string& prefix) {
    grpc::ClientContext context;
    prepare(context, token);
    AddSessionIdMetadata(context, session_id);
    v1::CloseSessionRequest request;
    request.set_session_id(session_id);
    v1::CloseSessionResponse response;
    (void)stub.CloseSession(&context, request, &response);  // best effort: the refusal matters
    return Prefixed(status, prefix);
  };
  std::map<std::string, std::string> mesh_ids;  // scene name -> the server's mesh id
  for (int i = 0; i < scene.mesh_files_size(); ++i) {
    const v1::SceneMeshFile& file = scene.mesh_files(i);
    MeshFileSource source{file.path(), file.format(), std::nullopt};
    if (file.has_scale_to_m()) source.scale_to_m = file.scale_to_m();
    grpc::ClientContext context;
    prepare(context, token);
    AddSessionIdMetadata(context, session_id);
    absl::StatusOr<v1::UploadMeshResponse> uploaded =
        UploadMeshFile(stub, context, session_id, source);
    if (!uploaded.ok()) {
      return fail(uploaded.status(), absl::StrCat("mesh_files[", i, "] (", file.name(), ")"));
    }
    mesh_ids[file.name()] = uploaded->mesh_id();
  }
  for (int i = 0; i < scene.bodies_size(); ++i) {
    grpc::ClientContext context;
    prepare(context, token);
    AddSessionIdMetadata(context, session_id);
    v1::AddBodyRequest request;
    request.set_session_id(session_id);
    *request.mutable_body() = scene.bodies(i);
    if (request.body().mesh_case() == v1::BodySpec::kMeshId) {
      request.mutable_body()->set_mesh_id(mesh_ids.at(request.body().mesh_id()));
    }
    v1::AddBodyResponse response;
    absl::Status status = FromGrpcStatus(stub.AddBody(&context, request, &response));
    if (!status.ok()) return fail(status, BodyLabel(i, scene.bodies(i)));
    loaded.bodies.push_back(std::move(response));
  }
  for (int i = 0; i < scene.constraints_size(); ++i) {
    grpc::ClientContext context;
    prepare(context, token);
    AddSessionIdMetadata(context, session_id);
    v1::AddConstraintRequest request;
    request.set_session_id(session_id);
    *request.mutable_constraint() = scene.constraints(i);
    v1::AddConstraintResponse response;
    absl::Status status = FromGrpcStatus(stub.AddConstraint(&context, request, &response));
    if (!status.ok()) return fail(status, absl::StrCat("constraints[", i, "]"));
    loaded.constraint_ids.push_back(response.constraint_id());
  }
  for (int i = 0; i < scene.robots_size(); ++i) {
    const v1::SceneRobot& robot = scene.robots(i);
    const std::string label = absl::StrCat("robots[", i, "] (", robot.urdf_path(), ")");
    absl::StatusOr<v1::AddRobotRequest> request = SceneRobotRequest(robot);
    if (!request.ok()) return fail(request.status(), label);
    request->set_session_id(session_id);
    v1::AddRobotResponse added;
    {
      grpc::ClientContext context;
      prepare(context, token);
      AddSessionIdMetadata(context, session_id);
      absl::Status status = FromGrpcStatus(stub.AddRobot(&context, *request, &added));
      if (!status.ok()) return fail(status, label);
    }
    // The joint positions and the motors the robot starts with, in one SetJointState.
    absl::StatusOr<std::vector<v1::JointCommand>> commands =
        SceneRobotCommands(robot, added.robot());
    if (!commands.ok()) return fail(commands.status(), label);
    if (!robot.joint_positions().empty() || !commands->empty()) {
      grpc::ClientContext context;
      prepare(context, token);
      AddSessionIdMetadata(context, session_id);
      v1::SetJointStateRequest state;
      state.set_session_id(session_id);
      state.set_robot_id(added.robot().robot_id());
      *state.mutable_positions() = robot.joint_positions();
      for (v1::JointCommand& command : *commands) *state.add_commands() = std::move(command);
      v1::SetJointStateResponse response;
      absl::Status status = FromGrpcStatus(stub.SetJointState(&context, state, &response));
      if (!status.ok()) {
        const absl::Status named =
            NameSceneMotorField(status, robot, {state.commands().begin(), state.commands().end()});
        return fail(named,
                    named.message() == status.message() ? label + ".joint_positions" : label);
      }
    }
    loaded.robots.push_back(added.robot());
  }
  return loaded;
}

}  // namespace contactsim::scenes
