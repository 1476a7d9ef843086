// Scene files (scenes/*.textproto, contactsim.v1.SceneFile in protobuf text format): parsing,
// with errors located at line:column, and loading into a server through the API itself
// (CreateSession, then AddBody per body, then AddConstraint per constraint). An API-level
// library (proto and the generated stub only): the server's --scene and the client library's
// `contactsim load` both link it, so a scene file gets exactly the requests and checks a client
// sends.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "contactsim/v1/scene_file.pb.h"
#include "contactsim/v1/simulation.grpc.pb.h"
#include "contactsim/v1/simulation.pb.h"

namespace contactsim::scenes {

// InvalidArgument "<source>:<line>:<column>: <parser message>" (1-based, the first error) when
// `text` is not a SceneFile in text format, and "<source>: <field path>: not UTF-8 text" when a
// string (through an escape such as "\377") holds bytes that are not UTF-8.
absl::StatusOr<v1::SceneFile> ParseSceneFile(std::string_view text,
                                             std::string_view source = "scene");

// NotFound "<path>: cannot read the file" when it cannot be opened; otherwise ParseSceneFile with
// the path as source, and every relative mesh_files[].path made relative to the file's directory.
absl::StatusOr<v1::SceneFile> ReadSceneFile(const std::string& path);

// InvalidArgument naming the element when a mesh_files entry has no name or path, two share a
// name, or a body's mesh_id names none of them (a scene refers to its own mesh files). LoadScene
// checks this first; a CLI checks it to tell a bad file from a refusal.
absl::Status CheckSceneMeshFiles(const v1::SceneFile& scene);

// Prepares each call's context: the deadline, and the token's metadata when `token` is not empty.
using PrepareContextFn =
    std::function<void(grpc::ClientContext& context, const std::string& token)>;

// The created session's id and tokens (as CreateSessionResponse has them).
struct SceneSession {
  std::string session_id;
  std::string controller_token;
  std::string viewer_token;
};

struct LoadedSceneIds {
  SceneSession session;
  std::vector<v1::AddBodyResponse> bodies;  // in file order
  std::vector<int32_t> constraint_ids;      // in file order
  std::vector<v1::RobotInfo> robots;        // in file order
};

// Creates the scene's session (named `name` when not empty, else as the file says), uploads its
// mesh files (paths as given: ReadSceneFile resolved them) and adds its bodies (a mesh_id naming
// a mesh file gets the server's id), constraints and robots (their URDF and mesh files read here,
// robot_request.h, then AddRobot and SetJointState for their joint_positions) in file order.
// InvalidArgument before anything is created when mesh_files names are missing or repeated or a
// body's mesh_id names none of them. On a refusal the half-built session is closed and the server's
// code is returned with the element prefixed: "bodies[3] (link3): body.primitive...",
// "mesh_files[0] (bunny): file_bytes: ...".
absl::StatusOr<LoadedSceneIds> LoadScene(v1::Simulation::StubInterface& stub,
                                         const PrepareContextFn& prepare,
                                         const v1::SceneFile& scene, std::string_view name = {});

}  // namespace contactsim::scenes
