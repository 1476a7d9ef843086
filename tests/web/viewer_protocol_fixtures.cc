// viewer-protocol-fixtures DIR: writes messages the C++ encoder makes (topology.bin, frame.bin,
// keyframe.bin) and what they hold (expected.json), for the page decoder's test
// (tests/web/protocol_decode.test.mjs): the C++ side and the JS side must agree on every field.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "Eigen/Geometry"
#include "server/viewer/viewer_protocol.h"

namespace server = contactsim::server;
namespace viewer = contactsim::server::viewer;
namespace core = contactsim::core;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: viewer-protocol-fixtures DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  auto topology = std::make_shared<server::Topology>();
  topology->version = 7;
  core::BodyTopology box;
  box.body_id = 2;
  box.type = core::BodyType::kRigid;
  box.rigid_kind = core::RigidBodyKind::kKinematic;
  box.name = "pusher é";  // UTF-8
  box.faces.resize(2, 3);
  box.faces << 0, 1, 2, 2, 1, 3;
  core::BodyTopology cloth;
  cloth.body_id = 5;
  cloth.type = core::BodyType::kMassSpringCloth;
  cloth.name = "cloth";
  cloth.faces.resize(1, 3);
  cloth.faces << 0, 1, 2;
  topology->bodies = {box, cloth};

  core::Points3 ref(4, 3);
  ref << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  auto make_frame = [&](int64_t seq, const Eigen::Isometry3d& x_wb) {
    server::Frame frame;
    frame.seq = seq;
    frame.time_s = 0.125 * seq;
    frame.step_count = 3 * seq;
    frame.topology = topology;
    core::BodyStateCopy b;
    b.body_id = 2;
    b.positions_m.resize(4, 3);
    for (int i = 0; i < 4; ++i) b.positions_m.row(i) = (x_wb * ref.row(i).transpose()).transpose();
    core::BodyStateCopy c;
    c.body_id = 5;
    c.positions_m.resize(3, 3);
    c.positions_m << 0.5, 0.25, 0, 1.5, 0.25, -0.125, 0.5, 1.25, 0.0625 * seq;
    auto state = std::make_shared<core::WorldState>();
    state->bodies = {b, c};
    frame.state = state;
    core::ContactRecord r;
    r.body_a = 5;
    r.body_b = 2;
    r.p_WC = Eigen::Vector3d(0.5, 0.5, 0.25);
    r.normal_W = Eigen::Vector3d(0, 0, 1);
    r.normal_impulse_n_s = Eigen::Vector3d(0, 0, 2);
    r.friction_impulse_n_s = Eigen::Vector3d(0.25, 0, 0);
    frame.contacts = std::make_shared<core::ContactReport>();
    std::const_pointer_cast<core::ContactReport>(frame.contacts)->contacts = {r, r};
    core::BodyContactTotals t;
    t.body_id = 5;
    t.impulse_n_s = Eigen::Vector3d(0.5, 0, 4);
    t.angular_impulse_n_m_s = Eigen::Vector3d(0, -1, 0);
    t.contact_count = 2;
    std::const_pointer_cast<core::ContactReport>(frame.contacts)->body_totals = {t};
    frame.diagnostics.kinetic_energy_j = 0.75;
    frame.diagnostics.active_pairs = 2;
    return frame;
  };
  const server::Frame first = make_frame(1, Eigen::Isometry3d::Identity());
  // A floor 5 cm below z = 0 and a tilted wall (normal (-0.6, 0, 0.8), as the server normalizes).
  const std::vector<core::GroundPlane> planes = {
      {.id = 0, .normal = Eigen::Vector3d::UnitZ(), .offset_m = -0.05},
      {.id = 1, .normal = Eigen::Vector3d(-0.6, 0.0, 0.8), .offset_m = 2.0}};
  const auto encoded = viewer::EncodeTopology(first, planes);
  Eigen::Isometry3d x_wb = Eigen::Isometry3d::Identity();
  x_wb.linear() = Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  x_wb.translation() = Eigen::Vector3d(1, 2, 3);
  const server::Frame second = make_frame(4, x_wb);
  std::string frame =
      viewer::EncodeFrame(second, *encoded, {viewer::WireSessionState::kFailed, "diverged: NaN"});
  viewer::PatchFrame({.keyframe = false, .coalesced = 2}, &frame);
  std::string keyframe = viewer::EncodeFrame(first, *encoded, {});
  viewer::PatchFrame({.keyframe = true, .coalesced = 0}, &keyframe);
  std::ofstream(dir + "/topology.bin", std::ios::binary) << encoded->message;
  std::ofstream(dir + "/frame.bin", std::ios::binary) << frame;
  std::ofstream(dir + "/keyframe.bin", std::ios::binary) << keyframe;
  // What the decoder must find (the rigid body's world vertices in `frame` included).
  std::ofstream json(dir + "/expected.json");
  json << "{\"topologyVersion\":7,\"bodyIds\":[2,5],\"kinds\":[\"kinematic\",\"cloth\"],"
       << "\"names\":[\"pusher é\",\"cloth\"],\"seq\":4,\"time\":0.5,\"stepCount\":12,"
       << "\"coalesced\":2,\"state\":\"FAILED\",\"message\":\"diverged: NaN\","
       << "\"contactsTotal\":2,\"rigidWorld\":[";
  for (int i = 0; i < 4; ++i) {
    const Eigen::Vector3d p = x_wb * ref.row(i).transpose();
    json << (i ? "," : "") << p.x() << "," << p.y() << "," << p.z();
  }
  json << "],\"clothZ2\":0.25,\"planes\":[{\"id\":0,\"normal\":[0,0,1],\"offset\":-0.05},"
       << "{\"id\":1,\"normal\":[-0.6,0,0.8],\"offset\":2}]}\n";
  return 0;
}
