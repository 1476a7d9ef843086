// The viewer's wire protocol (server/viewer/viewer_protocol.h): topology and frame encoding,
// rigid poses recovered from vertices, keyframe and coalesced patches, the shared encoding
// cache, and the hello a browser sends (every malformed form refused, never echoing the token).
#include "server/viewer/viewer_protocol.h"

#include <cstring>
#include <memory>

#include "Eigen/Geometry"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace contactsim::server::viewer {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

template <typename T>
T Read(const std::string& bytes, size_t offset) {
  T value;
  EXPECT_LE(offset + sizeof(T), bytes.size());
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

core::Points3 BoxVertices() {
  core::Points3 p(8, 3);
  for (int i = 0; i < 8; ++i) {
    p.row(i) << ((i & 1) ? 0.1 : -0.1), ((i & 2) ? 0.2 : -0.2), ((i & 4) ? 0.3 : -0.3);
  }
  return p;
}

std::shared_ptr<Topology> MakeTopology(int64_t version) {
  auto topology = std::make_shared<Topology>();
  topology->version = version;
  core::BodyTopology box;
  box.body_id = 0;
  box.type = core::BodyType::kRigid;
  box.name = "box";
  box.faces.resize(2, 3);
  box.faces << 0, 1, 2, 1, 3, 2;
  core::BodyTopology cloth;
  cloth.body_id = 3;
  cloth.type = core::BodyType::kMassSpringCloth;
  cloth.name = "cloth";
  cloth.faces.resize(1, 3);
  cloth.faces << 0, 1, 2;
  topology->bodies = {box, cloth};
  return topology;
}

Frame MakeFrame(int64_t seq, const Eigen::Isometry3d& x_wb, std::shared_ptr<Topology> topology) {
  Frame frame;
  frame.seq = seq;
  frame.time_s = 0.25 * static_cast<double>(seq);
  frame.step_count = 10 * seq;
  frame.topology = std::move(topology);
  core::BodyStateCopy box;
  box.body_id = 0;
  const core::Points3 ref = BoxVertices();
  box.positions_m.resize(8, 3);
  for (int i = 0; i < 8; ++i) box.positions_m.row(i) = (x_wb * ref.row(i).transpose()).transpose();
  core::BodyStateCopy cloth;
  cloth.body_id = 3;
  cloth.positions_m.resize(3, 3);
  cloth.positions_m << 0, 0, 0, 1, 0, 0.5 * static_cast<double>(seq), 0, 1, 0;
  auto state = std::make_shared<core::WorldState>();
  state->bodies = {box, cloth};
  frame.state = state;
  core::ContactRecord contact;
  contact.body_a = 0;
  contact.p_WC = Eigen::Vector3d(0.1, 0.2, 0.0);
  contact.normal_W = Eigen::Vector3d::UnitZ();
  contact.normal_impulse_n_s = Eigen::Vector3d(0, 0, 0.5);
  contact.friction_impulse_n_s = Eigen::Vector3d(0.1, 0, 0);
  frame.contacts = std::make_shared<core::ContactReport>();
  std::const_pointer_cast<core::ContactReport>(frame.contacts)->contacts = {contact};
  core::BodyContactTotals totals;
  totals.body_id = 0;
  totals.impulse_n_s = Eigen::Vector3d(0.1, 0, 0.5);
  totals.contact_count = 1;
  std::const_pointer_cast<core::ContactReport>(frame.contacts)->body_totals = {totals};
  frame.diagnostics.kinetic_energy_j = 1.5;
  frame.diagnostics.active_pairs = 7;
  return frame;
}

TEST(ViewerProtocolTest, TopologyCarriesKindsNamesReferenceVerticesAndTriangles) {
  const Frame frame = MakeFrame(1, Eigen::Isometry3d::Identity(), MakeTopology(4));
  const auto topology = EncodeTopology(frame);
  const std::string& m = topology->message;
  EXPECT_EQ(Read<uint8_t>(m, 0), static_cast<uint8_t>(MessageType::kTopology));
  EXPECT_EQ(Read<uint8_t>(m, 1), kProtocolVersion);
  EXPECT_EQ(Read<uint32_t>(m, 4), 2u);
  EXPECT_EQ(Read<int64_t>(m, 8), 4);
  // Body 0: id, kind rigid dynamic, placement pose, name "box" padded to 4.
  EXPECT_EQ(Read<int32_t>(m, 16), 0);
  EXPECT_EQ(Read<uint8_t>(m, 20), static_cast<uint8_t>(WireBodyKind::kRigidDynamic));
  EXPECT_EQ(Read<uint8_t>(m, 21), static_cast<uint8_t>(Placement::kPose));
  EXPECT_EQ(Read<uint16_t>(m, 22), 3);
  EXPECT_EQ(m.substr(24, 3), "box");
  EXPECT_EQ(Read<uint32_t>(m, 28), 8u);  // vertices
  EXPECT_EQ(Read<uint32_t>(m, 32), 2u);  // triangles
  EXPECT_FLOAT_EQ(Read<float>(m, 36), -0.1f);
  EXPECT_EQ(Read<int32_t>(m, 36 + 8 * 12 + 4 * 3), 1);  // second triangle's first index
  EXPECT_EQ(m.size() % 4, 0u);
  ASSERT_EQ(topology->bodies.size(), 2u);
  EXPECT_EQ(topology->bodies[0].placement, Placement::kPose);
  EXPECT_EQ(topology->bodies[1].placement, Placement::kVertices);
}

// Bytes of the topology before its plane section: header 16, box 12 + 8 + 8 vertices + 2
// triangles, cloth 16 + 8 + 3 vertices + 1 triangle (MakeTopology, MakeFrame).
constexpr size_t kPlaneSectionOffset = 16 + (12 + 8 + 8 * 12 + 2 * 12) + (16 + 8 + 3 * 12 + 12);

TEST(ViewerProtocolTest, TopologyCarriesTheSessionsGroundPlanes) {
  const Frame frame = MakeFrame(1, Eigen::Isometry3d::Identity(), MakeTopology(4));
  core::GroundPlane floor{.id = 0, .normal = Eigen::Vector3d::UnitZ(), .offset_m = -0.25};
  core::GroundPlane wall{.id = 3, .normal = Eigen::Vector3d(-0.6, 0.0, 0.8), .offset_m = 1.5};
  const std::vector<core::GroundPlane> planes = {floor, wall};
  const auto encoded = EncodeTopology(frame, planes);
  const std::string& m = encoded->message;
  EXPECT_EQ(Read<uint16_t>(m, 2), kFlagTopologyPlanes);
  ASSERT_EQ(m.size(), kPlaneSectionOffset + 4 + 2 * 20);
  EXPECT_EQ(Read<uint32_t>(m, kPlaneSectionOffset), 2u);
  const size_t second = kPlaneSectionOffset + 4 + 20;
  EXPECT_EQ(Read<int32_t>(m, kPlaneSectionOffset + 4), 0);
  EXPECT_FLOAT_EQ(Read<float>(m, kPlaneSectionOffset + 4 + 12), 1.0f);    // n_z of the floor
  EXPECT_FLOAT_EQ(Read<float>(m, kPlaneSectionOffset + 4 + 16), -0.25f);  // h of the floor
  EXPECT_EQ(Read<int32_t>(m, second), 3);
  EXPECT_FLOAT_EQ(Read<float>(m, second + 4), -0.6f);
  EXPECT_FLOAT_EQ(Read<float>(m, second + 12), 0.8f);
  EXPECT_FLOAT_EQ(Read<float>(m, second + 16), 1.5f);
  // No planes: the section is there, empty.
  const auto encoded_none = EncodeTopology(frame);
  const std::string& none = encoded_none->message;
  ASSERT_EQ(none.size(), kPlaneSectionOffset + 4);
  EXPECT_EQ(Read<uint32_t>(none, kPlaneSectionOffset), 0u);
}

TEST(ViewerProtocolTest, CacheAsksForThePlanesOncePerTopologyVersion) {
  int asked = 0;
  EncodingCache cache([&asked] {
    ++asked;
    return std::vector<core::GroundPlane>{{.id = 1, .normal = Eigen::Vector3d::UnitZ()}};
  });
  const Frame f1 = MakeFrame(1, Eigen::Isometry3d::Identity(), MakeTopology(1));
  const Frame f2 = MakeFrame(2, Eigen::Isometry3d::Identity(), MakeTopology(1));
  const auto t1 = cache.Topology(f1);
  cache.Topology(f2);
  cache.FrameMessage(f2, {});
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(Read<uint32_t>(t1->message, kPlaneSectionOffset), 1u);
  cache.Topology(MakeFrame(3, Eigen::Isometry3d::Identity(), MakeTopology(2)));
  EXPECT_EQ(asked, 2);
}

TEST(ViewerProtocolTest, TrianglesNamingMissingVerticesAreDropped) {
  auto topology = MakeTopology(1);
  topology->bodies[1].faces.resize(2, 3);
  topology->bodies[1].faces << 0, 1, 2, 0, 1, 99;  // 99: no such vertex
  const auto encoded = EncodeTopology(MakeFrame(1, Eigen::Isometry3d::Identity(), topology));
  // The cloth's header: after body 0 (16 + 12 + 8 + 96 + 24 bytes).
  const size_t cloth = 16 + 12 + 8 + 8 * 12 + 2 * 12;
  EXPECT_EQ(Read<int32_t>(encoded->message, cloth), 3);
  // id, kind, placement, name length, "cloth" padded to 8 bytes, vertices, triangles.
  EXPECT_EQ(Read<uint32_t>(encoded->message, cloth + 16), 3u);
  EXPECT_EQ(Read<uint32_t>(encoded->message, cloth + 20), 1u);
}

TEST(ViewerProtocolTest, RigidBodyFramesCarryThePoseThatMapsTheReferenceVertices) {
  const auto topology = MakeTopology(1);
  const auto encoded = EncodeTopology(MakeFrame(1, Eigen::Isometry3d::Identity(), topology));
  Eigen::Isometry3d x_wb = Eigen::Isometry3d::Identity();
  x_wb.linear() =
      Eigen::AngleAxisd(2.0, Eigen::Vector3d(1, -2, 0.5).normalized()).toRotationMatrix();
  x_wb.translation() = Eigen::Vector3d(0.3, -1.2, 2.5);
  const Frame frame = MakeFrame(2, x_wb, topology);
  const std::string m = EncodeFrame(frame, *encoded, {});
  EXPECT_EQ(Read<uint8_t>(m, 0), static_cast<uint8_t>(MessageType::kFrame));
  EXPECT_EQ(Read<int64_t>(m, kFrameSeqOffset), 2);
  EXPECT_DOUBLE_EQ(Read<double>(m, 16), 0.5);
  EXPECT_EQ(Read<int64_t>(m, 24), 20);
  EXPECT_EQ(Read<int64_t>(m, 32), 1);
  EXPECT_DOUBLE_EQ(Read<double>(m, 48), 1.5);
  EXPECT_EQ(Read<int32_t>(m, 80), 7);
  EXPECT_EQ(Read<uint32_t>(m, 100), 1u);  // contacts in all
  EXPECT_EQ(Read<uint32_t>(m, 104), 2u);  // bodies
  EXPECT_EQ(Read<int32_t>(m, 108), 0);
  EXPECT_EQ(Read<uint8_t>(m, 112), static_cast<uint8_t>(Placement::kPose));
  const Eigen::Vector3d t(Read<float>(m, 116), Read<float>(m, 120), Read<float>(m, 124));
  const Eigen::Quaterniond q(Read<float>(m, 128), Read<float>(m, 132), Read<float>(m, 136),
                             Read<float>(m, 140));
  // float32 on the wire: 1e-6 relative, so 1e-5 m on metre-sized coordinates.
  const core::Points3 ref = BoxVertices();
  for (int i = 0; i < 8; ++i) {
    const Eigen::Vector3d expected = x_wb * ref.row(i).transpose();
    const Eigen::Vector3d got = q.normalized() * ref.row(i).transpose() + t;
    EXPECT_LT((got - expected).norm(), 1e-5) << "vertex " << i;
  }
  // The cloth: every vertex, float32.
  EXPECT_EQ(Read<int32_t>(m, 144), 3);
  EXPECT_EQ(Read<uint8_t>(m, 148), static_cast<uint8_t>(Placement::kVertices));
  EXPECT_EQ(Read<uint32_t>(m, 152), 3u);
  EXPECT_FLOAT_EQ(Read<float>(m, 156 + 5 * 4), 1.0f);  // vertex 1, z = 0.5 seq
  // Contacts: count, bodies, point, normal, J_n, J_f.
  const size_t c = 156 + 9 * 4;
  EXPECT_EQ(Read<uint32_t>(m, c), 1u);
  EXPECT_EQ(Read<int32_t>(m, c + 4), 0);
  EXPECT_EQ(Read<int32_t>(m, c + 8), core::kStaticEnvironmentBodyId);
  EXPECT_FLOAT_EQ(Read<float>(m, c + 16), 0.2f);  // p_WC.y
  EXPECT_FLOAT_EQ(Read<float>(m, c + 32), 1.0f);  // normal.z
  EXPECT_FLOAT_EQ(Read<float>(m, c + 44), 0.5f);  // J_n.z
  EXPECT_FLOAT_EQ(Read<float>(m, c + 48), 0.1f);  // J_f.x
  EXPECT_EQ(Read<uint32_t>(m, c + 60), 1u);       // totals
  EXPECT_EQ(m.size() % 4, 0u);
}

TEST(ViewerProtocolTest, ADegeneratePoseFallsBackToVertices) {
  const auto topology = MakeTopology(1);
  const auto encoded = EncodeTopology(MakeFrame(1, Eigen::Isometry3d::Identity(), topology));
  Frame frame = MakeFrame(2, Eigen::Isometry3d::Identity(), topology);
  std::const_pointer_cast<core::WorldState>(frame.state)
      ->bodies[0]
      .positions_m.setConstant(std::nan(""));  // a diverged body
  const std::string m = EncodeFrame(frame, *encoded, {});
  EXPECT_EQ(Read<uint8_t>(m, 112), static_cast<uint8_t>(Placement::kVertices));
  EXPECT_EQ(Read<uint32_t>(m, 116), 8u);
}

TEST(ViewerProtocolTest, ContactsBeyondTheLimitAreCountedNotSent) {
  const auto topology = MakeTopology(1);
  Frame frame = MakeFrame(1, Eigen::Isometry3d::Identity(), topology);
  auto report = std::const_pointer_cast<core::ContactReport>(frame.contacts);
  report->contacts.resize(kMaxContactsPerFrame + 10, report->contacts[0]);
  const auto encoded = EncodeTopology(frame);
  const std::string m = EncodeFrame(frame, *encoded, {});
  EXPECT_EQ(Read<uint32_t>(m, 100), static_cast<uint32_t>(kMaxContactsPerFrame + 10));
  EXPECT_EQ(Read<uint32_t>(m, 156 + 9 * 4), static_cast<uint32_t>(kMaxContactsPerFrame));
}

TEST(ViewerProtocolTest, FailedStateAndItsMessageAreSentClipped) {
  const auto topology = MakeTopology(1);
  const Frame frame = MakeFrame(1, Eigen::Isometry3d::Identity(), topology);
  const auto encoded = EncodeTopology(frame);
  SessionStatus status{WireSessionState::kFailed, std::string(5000, 'x')};
  const std::string m = EncodeFrame(frame, *encoded, status);
  EXPECT_EQ(Read<uint8_t>(m, 4), static_cast<uint8_t>(WireSessionState::kFailed));
  const std::string tail(kMaxMessageChars, 'x');
  EXPECT_EQ(m.substr(m.size() - kMaxMessageChars), tail);
  EXPECT_EQ(Read<uint32_t>(m, m.size() - kMaxMessageChars - 4),
            static_cast<uint32_t>(kMaxMessageChars));
}

TEST(ViewerProtocolTest, PatchSetsKeyframeAndCoalescedOnly) {
  const auto topology = MakeTopology(1);
  const Frame frame = MakeFrame(9, Eigen::Isometry3d::Identity(), topology);
  const auto encoded = EncodeTopology(frame);
  const std::string original = EncodeFrame(frame, *encoded, {});
  std::string patched = original;
  PatchFrame({.keyframe = true, .coalesced = 41}, &patched);
  EXPECT_EQ(Read<uint16_t>(patched, 2), kFlagKeyframe);
  EXPECT_EQ(Read<int64_t>(patched, kFrameCoalescedOffset), 41);
  EXPECT_EQ(Read<uint16_t>(original, 2), 0);
  EXPECT_EQ(Read<int64_t>(original, kFrameCoalescedOffset), 0);
  EXPECT_EQ(patched.substr(48), original.substr(48));
}

TEST(ViewerProtocolTest, CacheSharesEncodingsAndRenewsTheTopologyOnlyWhenItChanges) {
  EncodingCache cache;
  auto v1 = MakeTopology(1);
  const Frame f1 = MakeFrame(1, Eigen::Isometry3d::Identity(), v1);
  Eigen::Isometry3d moved = Eigen::Isometry3d::Identity();
  moved.translation() = Eigen::Vector3d(0, 0, 1);
  const Frame f2 = MakeFrame(2, moved, v1);
  const auto t1 = cache.Topology(f1);
  EXPECT_EQ(cache.Topology(f2), t1);  // the reference stays that of the first frame
  const auto m2 = cache.FrameMessage(f2, {});
  EXPECT_EQ(cache.FrameMessage(f2, {}), m2);  // encoded once for every viewer
  EXPECT_NE(cache.FrameMessage(f1, {}), m2);
  // The same seq with another session state is encoded anew.
  EXPECT_NE(cache.FrameMessage(f2, {WireSessionState::kFailed, "diverged"}), m2);
  // Pose of f2 against f1's reference: a pure translation of +1 m in z.
  EXPECT_NEAR(Read<float>(*m2, 124), 1.0f, 1e-6);
  EXPECT_NEAR(Read<float>(*m2, 128), 1.0f, 1e-6);  // q.w
  const Frame f3 = MakeFrame(3, moved, MakeTopology(2));
  const auto t3 = cache.Topology(f3);
  EXPECT_NE(t3, t1);
  EXPECT_EQ(t3->version, 2);
}

TEST(ViewerProtocolTest, HelloIsParsed) {
  auto hello = ParseHello("hello 1 abc123 tok_EN-x 42 30");
  ASSERT_TRUE(hello.ok()) << hello.status();
  EXPECT_EQ(hello->session_id, "abc123");
  EXPECT_EQ(hello->token, "tok_EN-x");
  EXPECT_EQ(hello->from_seq, 42);
  EXPECT_EQ(hello->max_rate_hz, 30.0);
}

TEST(ViewerProtocolTest, MalformedHellosAreRefusedWithoutEchoingTheToken) {
  const std::string secret = "s3cretTOKEN";
  const std::vector<std::string> bad = {
      "",
      "hello",
      "hello 1 id " + secret + " 0",
      "hello 1 id " + secret + " 0 0 extra",
      "helo 1 id " + secret + " 0 0",
      "hello 2 id " + secret + " 0 0",
      "hello 1 id " + secret + " -1 0",
      "hello 1 id " + secret + " 1x 0",
      "hello 1 id " + secret + " 99999999999999999999999 0",
      "hello 1 id " + secret + " 0 1001",
      "hello 1 id " + secret + " 0 -5",
      "hello 1  " + secret + " 0 0",
      "hello 1 id " + secret + "\t 0 0",
      "hello 1 id " + secret + " 0 0\n",
      "hello 1 id " + secret + "\xc3\xa9 0 0",
      "hello 1 " + std::string(65, 'a') + " " + secret + " 0 0",
      "hello 1 id " + std::string(257, 't') + " 0 0",
      "hello 1 id " + secret + " 0 0" + std::string(600, ' '),
  };
  for (const std::string& text : bad) {
    const auto hello = ParseHello(text);
    EXPECT_FALSE(hello.ok()) << "accepted: " << text;
    if (!hello.ok()) {
      EXPECT_EQ(hello.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(std::string(hello.status().message()), Not(HasSubstr(secret)));
      EXPECT_THAT(std::string(hello.status().message()), HasSubstr("hello"));
    }
  }
}

TEST(ViewerProtocolTest, ViewerQueryNamesTheSession) {
  // No query: a direct connection named by its hello alone.
  auto none = ParseViewerQuery("");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(*none, "");
  auto id = ParseViewerQuery("session=r2-5f0c9a1b2c3d4e5f");
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(*id, "r2-5f0c9a1b2c3d4e5f");
  // encodeURIComponent's escapes are decoded (an id may hold any printable non-space character).
  auto escaped = ParseViewerQuery("session=a%2Fb%3fc");
  ASSERT_TRUE(escaped.ok()) << escaped.status();
  EXPECT_EQ(*escaped, "a/b?c");
}

TEST(ViewerProtocolTest, MalformedViewerQueriesAreRefused) {
  const std::vector<std::string> bad = {
      "session=",                          // empty id
      "session",                           // no value
      "sessions=r0-1",                     // another name
      "token=abc",                         // the token never goes in the URL
      "session=r0-1&token=abc",            // a second parameter
      "session=r0-1&session=r1-2",         // two sessions
      "session=r0%2",                      // a cut escape
      "session=r0%zz",                     // not hex
      "session=r0%20x",                    // a space, escaped
      "session=r0+x",                      // a space, form-encoded
      "session=r0%00x",                    // a control character
      "session=r0%C3%A9",                  // not ASCII
      "session=" + std::string(65, 'a'),   // longer than the hello allows
      "session=" + std::string(300, 'a'),  // longer than the query limit
  };
  for (const std::string& query : bad) {
    const auto parsed = ParseViewerQuery(query);
    EXPECT_FALSE(parsed.ok()) << "accepted: " << query;
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("url"));
    }
  }
  // 64 characters is the hello's limit too: accepted.
  EXPECT_TRUE(ParseViewerQuery("session=" + std::string(64, 'a')).ok());
}

}  // namespace
}  // namespace contactsim::server::viewer
