// Writes the seed corpora of request_fuzzer and scene_file_fuzzer from the shipped scene files
// (scenes/*.textproto): for requests, each scene's CreateSessionRequest, an AddBodyRequest per
// body, an AddConstraintRequest per constraint and Step requests with controls, each behind the
// selector byte request_fuzzer reads; for scenes, each small scene's text. Generated at build
// time from the scenes, so the seeds follow the protos. Usage:
//   make_request_seeds SCENES_DIR REQUEST_OUT_DIR SCENE_OUT_DIR
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "contactsim/v1/simulation.pb.h"
#include "scenes/loader/scene_file.h"

namespace {

namespace v1 = contactsim::v1;

void Write(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// The selector byte of request_fuzzer.cc (controller token sent), then the message.
std::string Seed(char rpc, const google::protobuf::Message& message) {
  return std::string(1, rpc) + message.SerializeAsString();
}

v1::StepRequest PushStep() {
  v1::StepRequest step;
  step.set_n_steps(4);
  v1::BodyControl* push = step.mutable_controls()->add_bodies();
  push->set_body_id(0);
  push->mutable_force_n()->set_x(5.0);
  push->mutable_torque_n_m()->set_z(0.1);
  return step;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s SCENES_DIR REQUEST_OUT_DIR SCENE_OUT_DIR\n", argv[0]);
    return 1;
  }
  const std::filesystem::path scenes = argv[1], requests = argv[2], scene_out = argv[3];
  std::filesystem::create_directories(requests);
  std::filesystem::create_directories(scene_out);
  int written = 0;
  for (const auto& entry : std::filesystem::directory_iterator(scenes)) {
    if (entry.path().extension() != ".textproto") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const auto scene = contactsim::scenes::ParseSceneFile(text.str(), entry.path().string());
    if (!scene.ok()) {
      std::fprintf(stderr, "%s\n", scene.status().ToString().c_str());
      return 1;
    }
    const std::string stem = entry.path().stem().string();
    // Small scenes only as scene seeds: a big mesh makes every mutation slow.
    if (text.str().size() < 4096) Write(scene_out / stem, text.str());
    Write(requests / (stem + "_create"), Seed(0, scene->session()));
    for (int i = 0; i < scene->bodies_size(); ++i) {
      v1::AddBodyRequest add;
      *add.mutable_body() = scene->bodies(i);
      Write(requests / (stem + "_body" + std::to_string(i)), Seed(2, add));
      ++written;
    }
    for (int i = 0; i < scene->constraints_size(); ++i) {
      v1::AddConstraintRequest add;
      *add.mutable_constraint() = scene->constraints(i);
      Write(requests / (stem + "_constraint" + std::to_string(i)), Seed(4, add));
    }
  }
  Write(requests / "step_push", Seed(6, PushStep()));
  v1::RemoveBodyRequest remove;
  remove.set_body_id(0);
  Write(requests / "remove_body0", Seed(3, remove));
  Write(requests / "snapshot", Seed(7, v1::SnapshotRequest()));
  Write(requests / "get_session", Seed(1, v1::GetSessionRequest()));
  // Episodes: a rigid state for body 0, a vertex state, a reset to the kept state, a mark.
  v1::SetBodyStateRequest rigid_state;
  rigid_state.mutable_rigid()->mutable_pose()->mutable_position_m()->set_z(0.5);
  rigid_state.mutable_rigid()->mutable_pose()->mutable_orientation()->set_w(1.0);
  rigid_state.mutable_rigid()->mutable_linear_velocity_m_per_s()->set_x(0.1);
  Write(requests / "set_rigid_state", Seed(11, rigid_state));
  v1::SetBodyStateRequest vertex_state;
  for (double c : {0.0, 0.0, 1.0, 0.1, 0.0, 1.0, 0.0, 0.1, 1.0}) {
    vertex_state.mutable_vertices()->add_positions_m(c);
  }
  Write(requests / "set_vertex_state", Seed(11, vertex_state));
  Write(requests / "reset_session", Seed(12, v1::ResetSessionRequest()));
  Write(requests / "mark_initial_state", Seed(13, v1::MarkInitialStateRequest()));
  // Robots (in the rigid_lcp sessions): a two-link arm with a box, a cylinder and a sphere, a
  // mimic joint and a mesh sent as bytes; its joints set and commanded.
  v1::AddRobotRequest robot;
  robot.set_urdf(
      "<robot name='seed'><link name='base'><inertial><mass value='1'/><inertia ixx='0.01' "
      "iyy='0.01' izz='0.01' ixy='0' ixz='0' iyz='0'/></inertial><collision><geometry><box "
      "size='0.1 0.1 0.1'/></geometry></collision></link><link name='arm'><inertial><mass "
      "value='0.5'/><inertia ixx='0.01' iyy='0.01' izz='0.01' ixy='0' ixz='0' iyz='0'/>"
      "</inertial><collision><geometry><cylinder radius='0.02' length='0.2'/></geometry>"
      "</collision></link><link name='tip'><inertial><mass value='0.1'/><inertia ixx='0.001' "
      "iyy='0.001' izz='0.001' ixy='0' ixz='0' iyz='0'/></inertial><collision><geometry><mesh "
      "filename='package://seed/tip.obj'/></geometry></collision></link><joint name='shoulder' "
      "type='revolute'><parent link='base'/><child link='arm'/><origin xyz='0 0 0.1'/><axis "
      "xyz='0 1 0'/><limit lower='-1' upper='1' effort='10' velocity='2'/></joint><joint "
      "name='wrist' type='continuous'><parent link='arm'/><child link='tip'/><origin xyz='0 0 "
      "0.2'/><axis xyz='0 0 1'/><mimic joint='shoulder' multiplier='2'/></joint></robot>");
  v1::MeshFile* tip = robot.add_mesh_files();
  tip->set_path("package://seed/tip.obj");
  tip->set_data(
      "v 0 0 0\nv 0.05 0 0\nv 0 0.05 0\nv 0 0 0.05\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  robot.mutable_options()->set_cylinder_sides(8);
  Write(requests / "add_robot", Seed(14, robot));
  v1::SetJointStateRequest joint_state;
  (*joint_state.mutable_positions())["shoulder"] = 0.3;
  (*joint_state.mutable_velocities())["shoulder"] = -0.1;
  Write(requests / "set_joint_state", Seed(15, joint_state));
  v1::StepRequest commanded;
  commanded.set_n_steps(4);
  v1::JointCommand* command = commanded.mutable_controls()->add_joint_commands();
  command->set_joint("shoulder");
  command->mutable_position()->set_target(0.5);
  command->mutable_position()->set_kp(100.0);
  command->mutable_position()->set_kd(1.0);
  command->mutable_position()->set_max_effort(5.0);
  commanded.mutable_reply_parts()->set_joint_states(true);
  Write(requests / "step_joint_command", Seed(6, commanded));
  // Mesh files through UploadMesh (one chunk): an OBJ tetrahedron in millimetres, a Gmsh tet.
  v1::UploadMeshChunk obj;
  obj.set_format(v1::MESH_FILE_FORMAT_OBJ);
  obj.set_file_bytes(
      "v 0 0 0\nv 100 0 0\nv 0 100 0\nv 0 0 100\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  obj.set_scale_to_m(0.001);
  Write(requests / "upload_obj", Seed(10, obj));
  v1::UploadMeshChunk msh;
  msh.set_format(v1::MESH_FILE_FORMAT_GMSH);
  msh.set_file_bytes(
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n"
      "$EndNodes\n$Elements\n1\n1 4 2 0 1 1 2 3 4\n$EndElements\n");
  Write(requests / "upload_msh", Seed(10, msh));
  if (written == 0) {
    std::fprintf(stderr, "no scene with a body under %s\n", scenes.string().c_str());
    return 1;
  }
  return 0;
}
