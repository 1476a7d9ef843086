// contactsim: the command-line client of a ContactSim server. Subcommands: ping, health, sessions,
// create, info, step, watch, snapshot, restore, close, load, record, upload-mesh, add-body,
// remove-body, add-constraint, remove-constraint, set-state, reset, mark-initial, add-robot,
// set-joint-state.
// Exit codes: 0 ok, 2 usage error (also an unreadable or unparseable scene file), 3 server
// unreachable, 4 server refused (the gRPC code name and message are printed). The connection flags
// (--server, --timeout-s,
// --tls-ca...) are shared by every command: connection_flags.h.
#include <iostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "clients/cpp/cli/body_commands.h"
#include "clients/cpp/cli/commands.h"
#include "clients/cpp/cli/connection_flags.h"
#include "clients/cpp/cli/drive_commands.h"
#include "clients/cpp/cli/episode_commands.h"
#include "clients/cpp/cli/exit_codes.h"
#include "clients/cpp/cli/reply_parts_flag.h"
#include "clients/cpp/cli/robot_commands.h"
#include "clients/cpp/cli/scene_commands.h"

namespace {

using contactsim::client::cli::SessionArgs;

// SESSION positional and --token (or CONTACTSIM_TOKEN), shared by the session subcommands.
void AddSessionOptions(CLI::App* command, SessionArgs& args,
                       const std::string& token_help =
                           "the session's viewer or controller token (this command only reads; "
                           "env CONTACTSIM_TOKEN)") {
  command->add_option("session", args.session_id, "session id")->required();
  command->add_option("--token", args.token, token_help)->envname("CONTACTSIM_TOKEN")->required();
}

constexpr char kControllerToken[] =
    "the session's controller token (a viewer token is refused: PERMISSION_DENIED; env "
    "CONTACTSIM_TOKEN)";

const std::vector<std::string> kPipelines = {"penalty", "local_global", "rigid_lcp"};
const std::vector<std::string> kDevices = {"auto", "cpu", "cuda"};

// "a|b|c" for help texts.
std::string Choices(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : "|") + v;
  return out;
}

// --mesh-style file flags: --format and --scale.
void AddMeshFileFormatOptions(CLI::App* command, contactsim::client::cli::MeshFileArgs& args) {
  namespace cli = contactsim::client::cli;
  command
      ->add_option("--format", args.format,
                   "file format, " + Choices(cli::kMeshFileFormats) +
                       " (default: from the extension: .obj .stl .ply .gltf .glb .msh "
                       ".node/.ele)")
      ->check(CLI::IsMember(cli::kMeshFileFormats, CLI::ignore_case));
  command
      ->add_option("--scale", args.scale_to_m,
                   "metres per file unit, > 0 (0.001 for a file in millimetres; default 1)")
      ->check(CLI::PositiveNumber);
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = contactsim::client::cli;
  CLI::App app{"ContactSim command-line client"};
  app.require_subcommand(1);
  cli::ConnectionFlags connection_flags;
  cli::AddConnectionFlags(app, connection_flags);

  int ping_count = 1;
  CLI::App* ping = app.add_subcommand("ping", "round trip to the server");
  ping->add_option("--count", ping_count, "pings to send")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();

  std::string health_service = "contactsim.v1.Simulation";
  CLI::App* health = app.add_subcommand(
      "health",
      "the gRPC health check (grpc.health.v1): prints the status; exit 0 only when SERVING "
      "(container and orchestrator health checks)");
  health->add_option("--service", health_service, "service name to ask about (\"\": the server)")
      ->capture_default_str();

  CLI::App* sessions = app.add_subcommand("sessions", "list the server's sessions");

  cli::CreateArgs create_args;
  CLI::App* create =
      app.add_subcommand("create", "create a session; prints its id and both tokens");
  create->add_option("--name", create_args.name, "label shown by `sessions`");
  create
      ->add_option("--pipeline", create_args.pipeline,
                   "simulation pipeline: " + Choices(kPipelines))
      ->check(CLI::IsMember(kPipelines))
      ->capture_default_str();
  create
      ->add_option("--device", create_args.device,
                   Choices(kDevices) + " (default: the server's --device choice)")
      ->check(CLI::IsMember(kDevices));
  create->add_option("--dt", create_args.dt_s, "step length [s] (default: the server's)")
      ->check(CLI::PositiveNumber);
  create
      ->add_option("--stiffness", create_args.stiffness_n_per_m,
                   "penalty stiffness [N/m] (penalty pipeline only; default: the server's)")
      ->check(CLI::PositiveNumber);
  create->add_flag("--ground,!--no-ground", create_args.ground, "a ground plane z = 0")
      ->capture_default_str();
  create->add_flag("--box", create_args.box, "add a 1 kg cube (half size 0.1 m)");
  create->add_option("--box-height", create_args.box_height_m, "the cube's centre height [m]")
      ->capture_default_str();

  SessionArgs info_args;
  CLI::App* info = app.add_subcommand(
      "info",
      "a session's pipeline, state, time, body ids, ground planes, settings and robots (links "
      "with body ids, joints with limits); also `get-session`");
  info->alias("get-session");
  AddSessionOptions(info, info_args);

  cli::StepArgs step_args;
  CLI::App* step = app.add_subcommand(
      "step",
      "advance a session, holding the controls given for every step of the call; prints time, "
      "steps, each body's pose (rigid) or centre of mass and bounds (deformable), the last "
      "step's contact records, and the contact impulses and constraint reactions summed over the "
      "call. Needs the controller token");
  AddSessionOptions(step, step_args.session, kControllerToken);
  step->add_option("--steps", step_args.steps, "steps to take")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cli::StepControlFlags& controls = step_args.controls;
  step->add_option("--force", controls.forces,
                   "BODY:fx,fy,fz force at a dynamic rigid body's centre of mass [N] (repeatable)");
  step->add_option("--torque", controls.torques,
                   "BODY:tx,ty,tz torque about a dynamic rigid body's centre of mass [N m]");
  step->add_option("--kinematic-pose", controls.kinematic_poses,
                   "BODY:x,y,z[,qw,qx,qy,qz] pose a kinematic body reaches at the end of the "
                   "call [m] (orientation w first; identity when omitted)");
  step->add_option("--kinematic-velocity", controls.kinematic_velocities,
                   "BODY:vx,vy,vz[,wx,wy,wz] velocities a kinematic body holds [m/s], [rad/s] "
                   "(angular 0 when omitted)");
  step->add_option("--vertex-force", controls.vertex_forces,
                   "BODY:VERTEX:fx,fy,fz force on one vertex of a deformable [N] (repeatable)");
  step->add_option("--target", controls.targets,
                   "CONSTRAINT:x,y,z[,x,y,z...] new points of a position target, one per vertex "
                   "[m]; they stay until moved again");
  step->add_option("--joint", controls.joints,
                   "ROBOT:JOINT=pos:TARGET,KP,KD[,TARGET_VELOCITY[,MAX_EFFORT]] | "
                   "vel:TARGET[,MAX_EFFORT] | effort:EFFORT | off: a robot joint's motor "
                   "(repeatable; it persists until replaced). Units by the joint's type: TARGET "
                   "[rad or m], KP [N m/rad or N/m], KD [N m s/rad or N s/m], velocities [rad/s "
                   "or m/s], efforts [N m or N]. Joint states are printed after the call");
  step->add_option("--reply-parts", step_args.reply_parts,
                   "PART,PART,... only these parts in the reply, and printed (StepRequest."
                   "reply_parts; step_count and time_s always come); parts: " +
                       cli::ReplyPartNames() + " (default: every part)");

  cli::WatchArgs watch_args;
  CLI::App* watch = app.add_subcommand("watch", "live view of a session's frames");
  AddSessionOptions(watch, watch_args.session);
  watch->add_option("--frames", watch_args.frames, "frames to show (0: until the session closes)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  watch->add_option("--from-seq", watch_args.from_seq, "replay buffered frames from this seq")
      ->check(CLI::NonNegativeNumber);
  watch->add_option("--max-rate-hz", watch_args.max_rate_hz, "frame rate cap [1/s] (0: none)")
      ->check(CLI::NonNegativeNumber);
  watch->add_flag("--joints", watch_args.joints,
                  "also print every robot joint's state per frame (position, velocity, effort, "
                  "reaction wrench; named as `step` names them)");

  cli::SnapshotArgs snapshot_args;
  CLI::App* snapshot = app.add_subcommand("snapshot", "capture a session's state");
  AddSessionOptions(snapshot, snapshot_args.session, kControllerToken);
  snapshot->add_option("--out", snapshot_args.out_file,
                       "file for the blob (default: hex on stdout)");

  cli::RestoreArgs restore_args;
  CLI::App* restore = app.add_subcommand(
      "restore", "replace a session's state by a snapshot's (any session or server)");
  AddSessionOptions(restore, restore_args.session, kControllerToken);
  CLI::Option* in_file = restore->add_option("--in", restore_args.in_file, "file with the blob");
  CLI::Option* hex = restore->add_option("--snapshot", restore_args.hex, "the blob as hex");
  in_file->excludes(hex);  // one of the two is required: checked by RunRestore (exit 2)

  cli::LoadArgs load_args;
  CLI::App* load = app.add_subcommand(
      "load", "create a session from a scene file (scenes/*.textproto); prints its id and tokens");
  load->add_option("scene", load_args.scene_file, "scene file (contactsim.v1.SceneFile, text)")
      ->required();
  load->add_option("--name", load_args.name, "session name (default: the file's)");

  cli::RecordArgs record_args;
  CLI::App* record = app.add_subcommand("record", "write a session's frames to a file");
  AddSessionOptions(record, record_args.session);
  record->add_option("--out", record_args.out_file, "file to write")->required();
  record->add_option("--format", record_args.format, "binary (length-delimited StateFrames), csv")
      ->check(CLI::IsMember({"binary", "csv"}))
      ->capture_default_str();
  record->add_option("--frames", record_args.frames, "frames to record (0: no limit)")
      ->check(CLI::NonNegativeNumber);
  record->add_option("--duration-s", record_args.duration_s, "time to record [s] (0: no limit)")
      ->check(CLI::NonNegativeNumber);
  record->add_option("--from-seq", record_args.from_seq, "replay buffered frames from this seq")
      ->check(CLI::NonNegativeNumber);
  record->add_option("--max-rate-hz", record_args.max_rate_hz, "frame rate cap [1/s] (0: none)")
      ->check(CLI::NonNegativeNumber);
  record->add_flag("--f64", record_args.float64, "positions as float64 (default float32)");

  SessionArgs close_args;
  CLI::App* close = app.add_subcommand("close", "close a session");
  AddSessionOptions(close, close_args, kControllerToken);

  cli::UploadMeshArgs upload_args;
  CLI::App* upload = app.add_subcommand(
      "upload-mesh",
      "send a mesh file (OBJ, STL, PLY, glTF/GLB: triangles, corners welded; Gmsh .msh, TetGen "
      ".node+.ele: tetrahedra) to a session; prints its mesh id for add-body --mesh-id. Needs "
      "the controller token");
  AddSessionOptions(upload, upload_args.session, kControllerToken);
  upload->add_option("file", upload_args.file.path, "mesh file (TetGen: the .node, .ele beside it)")
      ->required();
  AddMeshFileFormatOptions(upload, upload_args.file);

  cli::AddBodyArgs body_args;
  CLI::App* add_body = app.add_subcommand(
      "add-body",
      "add a body from a mesh file (--mesh), an uploaded mesh (--mesh-id) or a primitive the "
      "server builds (--primitive); prints its id, vertex count and mass. Needs the controller "
      "token");
  AddSessionOptions(add_body, body_args.session, kControllerToken);
  add_body->add_option("--mesh", body_args.mesh_file.path,
                       "mesh file sent first (upload-mesh), e.g. part.stl --scale 0.001");
  AddMeshFileFormatOptions(add_body, body_args.mesh_file);
  add_body->add_option("--mesh-id", body_args.mesh_id, "a mesh uploaded to this session");
  add_body
      ->add_option("--primitive", body_args.primitive.shape,
                   Choices(cli::kPrimitives) +
                       ": box --half-extents; sphere --radius --subdivisions; torus "
                       "--major-radius --tube-radius --major-segments --tube-segments; "
                       "cylinder --radius --height --segments; capsule --radius --half-length "
                       "--segments --cap-rings; cloth-grid --size --cells x,y; tet-box "
                       "--half-extents --cells x,y,z; tet-sphere --radius --resolution; bowl "
                       "--inner-radius --thickness --segments --rings")
      ->check(CLI::IsMember(cli::kPrimitives));
  add_body
      ->add_option("--kind", body_args.kind,
                   Choices(cli::kBodyKinds) +
                       " (rigid: --density, a closed mesh; cloth: --area-density "
                       "--stretch-stiffness; fem, hyperelastic: a tet mesh, --density "
                       "--youngs-modulus --poisson-ratio; hyperelastic needs a local_global "
                       "session)")
      ->required()
      ->check(CLI::IsMember(cli::kBodyKinds));
  add_body->add_option("--name", body_args.name, "body name, unique in the session");
  add_body
      ->add_option("--pose", body_args.pose,
                   "x,y,z[,qw,qx,qy,qz]: where the mesh frame goes [m], orientation (w first)")
      ->delimiter(',');
  add_body->add_option("--velocity", body_args.velocity, "vx,vy,vz initial velocity [m/s]")
      ->delimiter(',')
      ->expected(3);
  add_body
      ->add_option("--angular-velocity", body_args.angular_velocity,
                   "wx,wy,wz initial angular velocity [rad/s] (rigid)")
      ->delimiter(',')
      ->expected(3);
  add_body
      ->add_option("--density", body_args.density_kg_per_m3, "[kg/m^3] (rigid, fem, hyperelastic)")
      ->check(CLI::PositiveNumber);
  add_body->add_option("--youngs-modulus", body_args.youngs_modulus_pa,
                       "E [Pa] (fem, hyperelastic)");
  add_body->add_option("--poisson-ratio", body_args.poisson_ratio,
                       "nu in (-1, 0.5) (fem, hyperelastic)");
  add_body
      ->add_option("--model", body_args.hyperelastic_model,
                   "hyperelastic material: " + Choices(cli::kHyperelasticModels))
      ->check(CLI::IsMember(cli::kHyperelasticModels))
      ->capture_default_str();
  add_body->add_option("--mass-damping", body_args.mass_damping_per_s,
                       "Rayleigh alpha [1/s] (fem, cloth)");
  add_body->add_option("--stiffness-damping", body_args.stiffness_damping_s,
                       "Rayleigh beta [s] (fem)");
  add_body->add_option("--area-density", body_args.area_density_kg_per_m2, "[kg/m^2] (cloth)");
  add_body->add_option("--stretch-stiffness", body_args.stretch_stiffness_n_per_m, "[N/m] (cloth)");
  add_body->add_option("--bend-stiffness", body_args.bend_stiffness_n_per_m, "[N/m] (cloth)");
  add_body->add_option("--spring-damping", body_args.spring_damping_ns_per_m, "[N*s/m] (cloth)");
  add_body->add_flag("--no-collision", body_args.collision_disabled,
                     "the body passes through everything");
  cli::PrimitiveArgs& shape = body_args.primitive;
  add_body->add_option("--half-extents", shape.half_extents, "hx,hy,hz [m] (box, tet-box)")
      ->delimiter(',')
      ->expected(3);
  add_body->add_option("--radius", shape.radius, "[m] (sphere, cylinder, capsule, tet-sphere)");
  add_body->add_option("--subdivisions", shape.subdivisions, "0-9 (sphere)");
  add_body->add_option("--height", shape.height, "[m] (cylinder)");
  add_body->add_option("--half-length", shape.half_length, "[m] (capsule)");
  add_body->add_option("--segments", shape.segments, ">= 3 (cylinder, capsule, bowl)");
  add_body->add_option("--cap-rings", shape.cap_rings, ">= 1 (capsule)");
  add_body->add_option("--major-radius", shape.major_radius, "[m] (torus)");
  add_body->add_option("--tube-radius", shape.tube_radius, "[m] (torus)");
  add_body->add_option("--major-segments", shape.major_segments, ">= 3 (torus)");
  add_body->add_option("--tube-segments", shape.tube_segments, ">= 3 (torus)");
  add_body->add_option("--size", shape.size, "x,y [m] (cloth-grid)")->delimiter(',')->expected(2);
  add_body->add_option("--cells", shape.cells, "x,y (cloth-grid) or x,y,z (tet-box)")
      ->delimiter(',');
  add_body->add_option("--resolution", shape.resolution, ">= 1 (tet-sphere)");
  add_body->add_option("--inner-radius", shape.inner_radius, "[m] (bowl)");
  add_body->add_option("--thickness", shape.thickness, "[m] (bowl)");
  add_body->add_option("--rings", shape.rings, ">= 2 (bowl)");

  cli::RemoveBodyArgs remove_body_args;
  CLI::App* remove_body = app.add_subcommand(
      "remove-body", "remove a body and its constraints. Needs the controller token");
  AddSessionOptions(remove_body, remove_body_args.session, kControllerToken);
  remove_body->add_option("body_id", remove_body_args.body_id, "the body's id")->required();

  cli::AddConstraintArgs constraint_args;
  CLI::App* add_constraint = app.add_subcommand(
      "add-constraint",
      "hold, attach or pull vertices of a deformable body; prints the constraint id. Needs the "
      "controller token");
  AddSessionOptions(add_constraint, constraint_args.session, kControllerToken);
  add_constraint
      ->add_option("--kind", constraint_args.kind,
                   Choices(cli::kConstraintKinds) +
                       " (pin: held where they are; attachment: follow --target-body rigidly; "
                       "position-target: springs of --stiffness to --targets)")
      ->required()
      ->check(CLI::IsMember(cli::kConstraintKinds));
  add_constraint->add_option("--body", constraint_args.body_id, "the deformable body's id")
      ->required();
  add_constraint
      ->add_option("--vertices", constraint_args.vertices, "i,j,k: its vertices (zero-based)")
      ->delimiter(',')
      ->required();
  add_constraint->add_option("--target-body", constraint_args.target_body_id,
                             "attachment: the rigid body the vertices follow");
  add_constraint
      ->add_option("--targets", constraint_args.targets_m, "position-target: x,y,z per vertex [m]")
      ->delimiter(',');
  add_constraint
      ->add_option("--stiffness", constraint_args.stiffness_n_per_m,
                   "position-target: spring stiffness k [N/m] per vertex")
      ->check(CLI::PositiveNumber);

  cli::RemoveConstraintArgs remove_constraint_args;
  CLI::App* remove_constraint =
      app.add_subcommand("remove-constraint",
                         "remove a constraint, releasing its vertices. Needs the controller token");
  AddSessionOptions(remove_constraint, remove_constraint_args.session, kControllerToken);
  remove_constraint
      ->add_option("constraint_id", remove_constraint_args.constraint_id, "the constraint's id")
      ->required();

  cli::SetStateArgs set_state_args;
  CLI::App* set_state = app.add_subcommand(
      "set-state",
      "replace one body's state between steps: a rigid body's pose and velocities (--pose, "
      "--velocity, --angular-velocity) or a deformable's vertex positions and velocities "
      "(--positions, --velocities files); its contact history is dropped. Needs the controller "
      "token");
  AddSessionOptions(set_state, set_state_args.session, kControllerToken);
  set_state->add_option("body_id", set_state_args.body_id, "the body's id")->required();
  set_state
      ->add_option("--pose", set_state_args.pose,
                   "x,y,z[,qw,qx,qy,qz]: frame B (a dynamic body's centre of mass) [m] and its "
                   "unit orientation, w first (identity when omitted)")
      ->delimiter(',');
  set_state->add_option("--velocity", set_state_args.velocity, "vx,vy,vz [m/s] (default 0)")
      ->delimiter(',')
      ->expected(3);
  set_state
      ->add_option("--angular-velocity", set_state_args.angular_velocity,
                   "wx,wy,wz in the world frame [rad/s] (default 0)")
      ->delimiter(',')
      ->expected(3);
  set_state->add_option("--positions", set_state_args.positions_file,
                        "text file: x y z [m] of every vertex, in order");
  set_state->add_option("--velocities", set_state_args.velocities_file,
                        "text file: vx vy vz [m/s] of every vertex (default 0)");

  cli::ResetArgs reset_args;
  CLI::App* reset = app.add_subcommand(
      "reset",
      "go back to the session's initial state (kept at its first step, or by mark-initial), or "
      "to a snapshot (--in, --snapshot); prints the step count and time reset to. Needs the "
      "controller token");
  AddSessionOptions(reset, reset_args.session, kControllerToken);
  CLI::Option* reset_in =
      reset->add_option("--in", reset_args.in_file, "file with a snapshot blob (snapshot --out)");
  CLI::Option* reset_hex = reset->add_option("--snapshot", reset_args.hex, "a blob as hex");
  reset_in->excludes(reset_hex);

  cli::SessionArgs mark_args;
  CLI::App* mark = app.add_subcommand(
      "mark-initial",
      "keep the session's current state as the one `reset` goes back to. Needs the controller "
      "token");
  AddSessionOptions(mark, mark_args, kControllerToken);

  cli::AddRobotArgs robot_args;
  CLI::App* add_robot = app.add_subcommand(
      "add-robot",
      "load a robot from a URDF file into a rigid_lcp session: the URDF and every mesh it names "
      "are read on this machine and sent (package://NAME/... through --package, then the roots "
      "of ROS_PACKAGE_PATH; relative paths against the URDF's folder); prints the robot id, its "
      "links with their body ids and its joints with their limits. Needs the controller token");
  AddSessionOptions(add_robot, robot_args.session, kControllerToken);
  add_robot->add_option("urdf", robot_args.urdf_file, "the robot's URDF file")->required();
  add_robot->add_option("--package", robot_args.packages,
                        "NAME=DIR: the folder of package NAME, for package://NAME/... meshes "
                        "(repeatable; tried before ROS_PACKAGE_PATH)");
  add_robot
      ->add_option("--base-pose", robot_args.base_pose,
                   "x,y,z[,qw,qx,qy,qz]: the root link's pose in the world [m], unit "
                   "orientation w first (default: the origin, identity)")
      ->delimiter(',');
  add_robot->add_flag("--floating-base", robot_args.floating_base,
                      "the root link is free (default: held by the world)");
  add_robot->add_flag("--collision-meshes-only", robot_args.collision_meshes_only,
                      "send only the <collision> meshes, all the server builds the robot from "
                      "(default: <visual> ones too, kept for a viewer; they count against the "
                      "robot's mesh bytes)");
  add_robot->add_option("--name", robot_args.name, "robot name (default: the URDF's)");
  add_robot->add_option(
      "--cylinder-sides", robot_args.cylinder_sides,
      "sides of a <cylinder>'s collision prism, 3-256 (default: the server's, 16)");
  add_robot->add_option("--sphere-segments", robot_args.sphere_segments,
                        "segments around a <sphere>'s collision hull, 4-64 (default: the "
                        "server's, 12)");

  cli::SetJointStateArgs joint_state_args;
  CLI::App* set_joint_state = app.add_subcommand(
      "set-joint-state",
      "set a robot's joint positions and velocities between steps (the links follow by forward "
      "kinematics from the base; joints not named keep their positions, and every velocity not "
      "given is 0). Needs the controller token");
  AddSessionOptions(set_joint_state, joint_state_args.session, kControllerToken);
  set_joint_state->add_option("robot_id", joint_state_args.robot_id, "the robot's id")->required();
  set_joint_state->add_option("--position", joint_state_args.positions,
                              "JOINT=VALUE: a joint's position [rad or m] (repeatable)");
  set_joint_state->add_option("--velocity", joint_state_args.velocities,
                              "JOINT=VALUE: a joint's velocity [rad/s or m/s] (repeatable)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is a "successful" parse error; everything else is a usage error with one exit code.
    const int code = app.exit(e);
    return code == 0 ? cli::kExitOk : cli::kExitUsage;
  }

  absl::StatusOr<contactsim::client::ConnectionOptions> options =
      cli::MakeConnectionOptions(connection_flags);
  if (!options.ok()) {
    std::cerr << "error: " << options.status().message() << "\n";
    return cli::kExitUsage;
  }
  const cli::Context context{connection_flags.server, contactsim::client::Connection(*options),
                             std::cout, std::cerr};

  if (*ping) return cli::RunPing(context, ping_count);
  if (*health) return cli::RunHealth(context, health_service);
  if (*sessions) return cli::RunSessions(context);
  if (*create) return cli::RunCreate(context, create_args);
  if (*info) return cli::RunInfo(context, info_args);
  if (*step) return cli::RunStep(context, step_args);
  if (*watch) return cli::RunWatch(context, watch_args);
  if (*snapshot) return cli::RunSnapshot(context, snapshot_args);
  if (*restore) return cli::RunRestore(context, restore_args);
  if (*close) return cli::RunClose(context, close_args);
  if (*load) return cli::RunLoad(context, load_args);
  if (*record) return cli::RunRecord(context, record_args);
  if (*upload) return cli::RunUploadMesh(context, upload_args);
  if (*add_body) return cli::RunAddBody(context, body_args);
  if (*remove_body) return cli::RunRemoveBody(context, remove_body_args);
  if (*add_constraint) return cli::RunAddConstraint(context, constraint_args);
  if (*remove_constraint) return cli::RunRemoveConstraint(context, remove_constraint_args);
  if (*set_state) return cli::RunSetState(context, set_state_args);
  if (*reset) return cli::RunReset(context, reset_args);
  if (*mark) return cli::RunMarkInitial(context, mark_args);
  if (*add_robot) return cli::RunAddRobot(context, robot_args);
  if (*set_joint_state) return cli::RunSetJointState(context, joint_state_args);
  return cli::kExitUsage;  // unreachable: require_subcommand(1)
}
