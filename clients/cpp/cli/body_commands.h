// The `contactsim upload-mesh`, `add-body` and `remove-body` subcommands: mesh files, primitives
// and uploaded meshes into a session; same conventions as commands.h (results to `out`, errors to
// `err`, exit codes from exit_codes.h). All three need the session's controller token.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clients/cpp/cli/commands.h"

namespace contactsim::client::cli {

// The allowed values of the enumerated flags, for CLI11's checks and the help text.
inline const std::vector<std::string> kBodyKinds = {"rigid", "static", "kinematic",
                                                    "cloth", "fem",    "hyperelastic"};
inline const std::vector<std::string> kPrimitives = {
    "box", "sphere", "torus", "cylinder", "capsule", "cloth-grid", "tet-box", "tet-sphere", "bowl"};
inline const std::vector<std::string> kMeshFileFormats = {"obj", "stl", "ply",   "gltf",
                                                          "glb", "msh", "tetgen"};
inline const std::vector<std::string> kHyperelasticModels = {"neo-hookean", "arap", "corotational"};

struct MeshFileArgs {
  std::string path;
  std::string format;                // empty: from the extension
  std::optional<double> scale_to_m;  // unset: 1 (metres)
};

struct UploadMeshArgs {
  SessionArgs session;
  MeshFileArgs file;
};

// Sizes of --primitive; which ones each shape needs is in PrimitiveFromArgs (body_commands.cc).
struct PrimitiveArgs {
  std::string shape;                   // one of kPrimitives, empty: no primitive
  std::vector<double> half_extents;    // box, tet-box [m]
  std::optional<double> radius;        // sphere, cylinder, capsule, tet-sphere [m]
  std::optional<int> subdivisions;     // sphere
  std::optional<double> height;        // cylinder [m]
  std::optional<double> half_length;   // capsule [m]
  std::optional<int> segments;         // cylinder, capsule, bowl
  std::optional<int> cap_rings;        // capsule
  std::optional<double> major_radius;  // torus [m]
  std::optional<double> tube_radius;   // torus [m]
  std::optional<int> major_segments;   // torus
  std::optional<int> tube_segments;    // torus
  std::vector<double> size;            // cloth-grid: x,y [m]
  std::vector<int> cells;              // cloth-grid: x,y; tet-box: x,y,z
  std::optional<int> resolution;       // tet-sphere
  std::optional<double> inner_radius;  // bowl [m]
  std::optional<double> thickness;     // bowl [m]
  std::optional<int> rings;            // bowl
};

struct AddBodyArgs {
  SessionArgs session;
  // Exactly one mesh source: a file, an uploaded mesh's id, or a primitive.
  MeshFileArgs mesh_file;  // path empty: none
  std::string mesh_id;
  PrimitiveArgs primitive;
  std::string kind;  // one of kBodyKinds
  std::string name;
  std::vector<double> pose;              // x,y,z or x,y,z,qw,qx,qy,qz
  std::vector<double> velocity;          // [m/s]
  std::vector<double> angular_velocity;  // [rad/s]
  // Materials: rigid (density), fem and hyperelastic (density, Young's modulus, Poisson ratio),
  // cloth (area density, stretch and bend stiffness).
  std::optional<double> density_kg_per_m3;
  std::optional<double> youngs_modulus_pa;
  std::optional<double> poisson_ratio;
  std::string hyperelastic_model = "neo-hookean";
  double mass_damping_per_s = 0.0;
  double stiffness_damping_s = 0.0;
  std::optional<double> area_density_kg_per_m2;
  std::optional<double> stretch_stiffness_n_per_m;
  double bend_stiffness_n_per_m = 0.0;
  double spring_damping_ns_per_m = 0.0;
  bool collision_disabled = false;
};

struct RemoveBodyArgs {
  SessionArgs session;
  int32_t body_id = 0;
};

// Sends the file (UploadMesh) and prints the mesh id, counts and element type.
int RunUploadMesh(const Context& context, const UploadMeshArgs& args);
// Checks the flags (exit 2 naming what is missing or does not apply), uploads --mesh first when
// given, then adds the body and prints its id, vertex count and mass.
int RunAddBody(const Context& context, const AddBodyArgs& args);
int RunRemoveBody(const Context& context, const RemoveBodyArgs& args);

}  // namespace contactsim::client::cli
