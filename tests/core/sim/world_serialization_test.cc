// World serialization (core/sim/world_serialization.h): every body kind and the penalty
// pipeline's contact state survive bytes, a deserialized world steps bit-identically to the
// original, and malformed input (truncated, corrupted, unknown version or section, hostile counts,
// out-of-range references, non-finite values) is refused with InvalidArgument, never a crash.
#include "core/sim/world_serialization.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/dynamics/corotational_fem.h"
#include "core/dynamics/mass_spring_cloth.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "core/sim/penalty_pipeline.h"
#include "core/sim/serialization/byte_reader.h"
#include "core/sim/serialization/byte_writer.h"
#include "core/sim/serialization/checksum.h"
#include "core/sim/serialization/world_format.h"
#include "tests/core/sim/scene_builders.h"

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;
using testing::MakeFemBall;
using testing::MakeRigidBox;
using testing::MakeStaticBox;
using ::testing::StartsWith;

// A pinned cloth (self-collision) falling on a dynamic cube that lands on a static box, an FEM
// ball (one pinned vertex) landing on the ground plane, and a kinematic box sliding past, with
// Yamane-Nakamura friction: VF and EE pairs, plane contacts and friction anchors in flight.
World MakeEveryKindWorld() {
  WorldSettings settings;
  settings.dt_s = 1e-3;
  settings.stiffness_n_per_m = 2e3;
  settings.self_collision = true;
  settings.friction.model = FrictionModel::kYamaneNakamura;
  settings.friction.yamane_nakamura = {
      .spring_n_per_m = 100.0, .damping_ns_per_m = 0.5, .mu_static = 0.6, .mu_dynamic = 0.5};
  absl::StatusOr<World> world = World::Create(settings);
  EXPECT_TRUE(world.ok());
  EXPECT_TRUE(world->AddGroundPlane(Vec3(0.0, 0.1, 1.0), -0.3).ok());
  EXPECT_TRUE(
      world->AddBody(MakeStaticBox(Vec3(0.3, 0.3, 0.05), Vec3(0, 0, -0.05)), {.name = "table"})
          .ok());
  auto cube = MakeRigidBox(Vec3(0.08, 0.08, 0.08), 300.0, Vec3(0.05, 0.02, 0.1),
                           Eigen::Quaterniond(Eigen::AngleAxisd(0.5, Vec3(1, 2, 3).normalized())),
                           Vec3(0.1, 0, -0.5));
  EXPECT_TRUE(cube->ApplyTorque(Vec3(0.01, -0.02, 0.005)).ok());  // pending for the first step
  EXPECT_TRUE(world->AddBody(std::move(cube), {.name = "cube"}).ok());

  absl::StatusOr<TriangleMesh> grid = MakeClothGrid(0.5, 0.5, 8, 8);
  EXPECT_TRUE(grid.ok());
  MassSpringClothParams cloth_params{.area_density_kg_per_m2 = 0.2,
                                     .stretch_stiffness_n_per_m = 200.0,
                                     .bend_stiffness_n_per_m = 1.0,
                                     .spring_damping_n_s_per_m = 0.05,
                                     .mass_damping_per_s = 0.1};
  absl::StatusOr<MassSpringCloth> cloth =
      MassSpringCloth::Create(*std::move(grid), cloth_params, {80});
  EXPECT_TRUE(cloth.ok()) << cloth.status();
  auto cloth_body = std::make_unique<MassSpringCloth>(*std::move(cloth));
  EXPECT_TRUE(
      cloth_body->SetPositions(Translated(cloth_body->positions_t0(), Vec3(0, 0, 0.22))).ok());
  EXPECT_TRUE(cloth_body->AddVertexForce(3, Vec3(0.0, 0.0, -0.05)).ok());
  EXPECT_TRUE(world->AddBody(std::move(cloth_body), {.name = "cloth"}).ok());

  CorotationalFemParams fem{.youngs_modulus_pa = 2e4,
                            .poisson_ratio = 0.3,
                            .density_kg_per_m3 = 500.0,
                            .mass_damping_per_s = 0.2,
                            .stiffness_damping_s = 1e-4};
  EXPECT_TRUE(world
                  ->AddBody(MakeFemBall(0.06, 2, fem, Vec3(-0.45, 0.1, -0.2), Vec3(0, 0, -1)),
                            {.collision = {.enabled = true, .self_collision = false}})
                  .ok());

  absl::StatusOr<TriangleMesh> box = MakeBox(Vec3(0.05, 0.05, 0.05));
  EXPECT_TRUE(box.ok());
  absl::StatusOr<RigidBody> kinematic =
      RigidBody::Create(*std::move(box), 100.0, RigidBodyKind::kKinematic);
  EXPECT_TRUE(kinematic.ok());
  EXPECT_TRUE(kinematic->SetPose(Vec3(0.6, 0.0, 0.0), Eigen::Quaterniond::Identity()).ok());
  EXPECT_TRUE(kinematic->SetVelocity(Vec3(-0.2, 0.0, 0.0), Vec3(0.0, 0.0, 1.0)).ok());
  EXPECT_TRUE(world
                  ->AddBody(std::make_unique<RigidBody>(*std::move(kinematic)),
                            {.name = "sweeper", .collision = {.enabled = false}})
                  .ok());
  return *std::move(world);
}

// Positions and vertex velocities of every body, then every contact's impulses.
std::vector<double> StateBits(const World& world) {
  std::vector<double> out;
  for (const int32_t id : world.body_ids()) {
    const Body& body = *world.body(id);
    const Points3& x = body.positions_t0();
    out.insert(out.end(), x.data(), x.data() + x.size());
    for (int i = 0; i < body.num_vertices(); ++i) {
      const Vec3 v = body.VertexVelocity(i);
      out.insert(out.end(), v.data(), v.data() + 3);
    }
  }
  for (const ContactRecord& record : world.last_contact_report().contacts) {
    out.insert(out.end(), record.normal_impulse_Ns.data(), record.normal_impulse_Ns.data() + 3);
    out.insert(out.end(), record.friction_impulse_Ns.data(), record.friction_impulse_Ns.data() + 3);
  }
  return out;
}

bool SameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

const PenaltyPipeline& Penalty(const World& world) {
  return dynamic_cast<const PenaltyPipeline&>(world.pipeline());
}

TEST(WorldSerializationTest, MidContactRoundTripStepsBitIdentically) {
  World original = MakeEveryKindWorld();
  ASSERT_TRUE(original.Step(70).ok()) << original.last_diagnostics().divergence_message;
  // Mid-contact, with friction anchors set.
  ASSERT_FALSE(Penalty(original).tracked_pairs().empty());
  ASSERT_FALSE(Penalty(original).plane_contacts().empty());
  bool anchored = false;
  for (const TrackedPair& pair : Penalty(original).tracked_pairs()) {
    anchored = anchored || pair.friction.has_reference;
  }
  ASSERT_TRUE(anchored);

  absl::StatusOr<std::string> bytes = SerializeWorld(original);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<World> restored = DeserializeWorld(*bytes);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->step_count(), 70);
  EXPECT_EQ(restored->time_s(), original.time_s());
  EXPECT_EQ(restored->body_ids(), original.body_ids());
  EXPECT_EQ(restored->FindBody("cloth").value(), original.FindBody("cloth").value());
  // Writing the restored world again gives the same bytes: nothing was lost or changed.
  absl::StatusOr<std::string> again = SerializeWorld(*restored);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(*again == *bytes);

  for (int i = 0; i < 150; ++i) {
    ASSERT_TRUE(original.Step(1).ok());
    ASSERT_TRUE(restored->Step(1).ok());
    ASSERT_TRUE(SameBits(StateBits(original), StateBits(*restored))) << "step " << i;
  }
  EXPECT_GT(original.last_contact_report().contacts.size(), 0u);
  // New bodies get the same ids in both.
  EXPECT_EQ(original.AddBody(MakeRigidBox(Vec3(0.01, 0.01, 0.01), 100.0, Vec3(2, 0, 0))).value(),
            restored->AddBody(MakeRigidBox(Vec3(0.01, 0.01, 0.01), 100.0, Vec3(2, 0, 0))).value());
}

TEST(WorldSerializationTest, EveryBodyKindKeepsItsDefinition) {
  World original = MakeEveryKindWorld();
  ASSERT_TRUE(original.Step(3).ok());
  absl::StatusOr<World> restored = DeserializeWorld(SerializeWorld(original).value());
  ASSERT_TRUE(restored.ok()) << restored.status();
  for (const int32_t id : original.body_ids()) {
    const SimBody& a = *original.sim_body(id);
    const SimBody& b = *restored->sim_body(id);
    SCOPED_TRACE(id);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.collision.enabled, b.collision.enabled);
    EXPECT_EQ(a.collision.self_collision, b.collision.self_collision);
    EXPECT_EQ(a.surface_vertices, b.surface_vertices);
    ASSERT_EQ(a.body->type(), b.body->type());
    EXPECT_EQ(a.body->surface().faces(), b.body->surface().faces());
    EXPECT_EQ(a.body->surface().vertices(), b.body->surface().vertices());
    for (int i = 0; i < a.body->num_vertices(); ++i) {
      EXPECT_EQ(a.body->InverseMass(i), b.body->InverseMass(i));
    }
    if (const auto* ra = dynamic_cast<const RigidBody*>(a.body.get())) {
      const auto& rb = dynamic_cast<const RigidBody&>(*b.body);
      EXPECT_EQ(ra->kind(), rb.kind());
      EXPECT_EQ(ra->mass_kg(), rb.mass_kg());
      EXPECT_EQ(ra->inertia_body_kg_m2(), rb.inertia_body_kg_m2());
      EXPECT_EQ(ra->body_vertices(), rb.body_vertices());
      EXPECT_EQ(ra->state().q_WB.coeffs(), rb.state().q_WB.coeffs());
      EXPECT_EQ(ra->state().w_WB_rad_per_s, rb.state().w_WB_rad_per_s);
    } else if (const auto* ca = dynamic_cast<const MassSpringCloth*>(a.body.get())) {
      const auto& cb = dynamic_cast<const MassSpringCloth&>(*b.body);
      EXPECT_EQ(ca->springs().size(), cb.springs().size());
      EXPECT_EQ(ca->params().mass_damping_per_s, cb.params().mass_damping_per_s);
      EXPECT_TRUE(cb.is_pinned(80));
      EXPECT_EQ(ca->masses(), cb.masses());
      EXPECT_EQ(ca->pending_forces_n(), cb.pending_forces_n());
    } else {
      const auto& fa = dynamic_cast<const CorotationalFem&>(*a.body);
      const auto& fb = dynamic_cast<const CorotationalFem&>(*b.body);
      EXPECT_EQ(fa.mesh().tets(), fb.mesh().tets());
      EXPECT_EQ(fa.params().stiffness_damping_s, fb.params().stiffness_damping_s);
      EXPECT_EQ(fa.masses(), fb.masses());
    }
  }
  ASSERT_EQ(restored->ground_planes().size(), 1u);
  EXPECT_EQ(restored->ground_planes()[0].normal, original.ground_planes()[0].normal);
}

TEST(WorldSerializationTest, PendingForcesAndTorquesAreKept) {
  World original = MakeEveryKindWorld();  // the cube has a torque, the cloth a force, pending
  absl::StatusOr<World> restored = DeserializeWorld(SerializeWorld(original).value());
  ASSERT_TRUE(restored.ok()) << restored.status();
  const int32_t cube = original.FindBody("cube").value();
  EXPECT_EQ(dynamic_cast<const RigidBody*>(restored->body(cube))->pending_torque_n_m(),
            Vec3(0.01, -0.02, 0.005));
  ASSERT_TRUE(original.Step(20).ok());
  ASSERT_TRUE(restored->Step(20).ok());
  EXPECT_TRUE(SameBits(StateBits(original), StateBits(*restored)));
}

TEST(WorldSerializationTest, DivergedWorldIsNotSerialized) {
  WorldSettings settings;
  settings.dt_s = 1e-2;
  settings.stiffness_n_per_m = 1e9;
  World world = World::Create(settings).value();
  ASSERT_TRUE(world.AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  ASSERT_TRUE(world
                  .AddBody(MakeRigidBox(Vec3(0.05, 0.05, 0.05), 1000.0, Vec3(0, 0, 0.06),
                                        Eigen::Quaterniond::Identity(), Vec3(0, 0, -1)))
                  .ok());
  absl::Status status = world.Step(50);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(SerializeWorld(world).status().code(), absl::StatusCode::kFailedPrecondition);
}

// ---------------------------------------------------------------------------------------------
// Malformed input.

// A small world: a box resting on the ground (one body, one plane, plane contacts).
std::string SmallBlob() {
  World world = World::Create(WorldSettings{}).value();
  EXPECT_TRUE(world.AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  EXPECT_TRUE(world.AddBody(MakeRigidBox(Vec3(0.05, 0.05, 0.05), 500.0, Vec3(0, 0, 0.0499))).ok());
  EXPECT_TRUE(world.Step(5).ok());
  EXPECT_FALSE(Penalty(world).plane_contacts().empty());
  return SerializeWorld(world).value();
}

struct RawSection {
  uint32_t tag;
  uint32_t flags;
  std::string bytes;
};

// Splits a valid blob into its sections (the test's own reading of the documented layout).
std::vector<RawSection> Sections(const std::string& blob) {
  using namespace serialization;
  ByteReader in(
      std::string_view(blob).substr(kHeaderBytes, blob.size() - kHeaderBytes - kChecksumBytes));
  std::vector<RawSection> sections;
  while (in.ok() && in.remaining() > 0) {
    RawSection section;
    section.tag = in.U32("tag");
    section.flags = in.U32("flags");
    section.bytes = std::string(in.Bytes(in.U64("length"), "bytes"));
    sections.push_back(section);
  }
  EXPECT_TRUE(in.ok()) << in.status();
  return sections;
}

// A blob with the given sections, version and a correct checksum.
std::string Assemble(const std::vector<RawSection>& sections,
                     uint32_t version = serialization::kFormatVersion) {
  using namespace serialization;
  ByteWriter payload;
  for (const RawSection& section : sections) {
    const size_t at = payload.BeginSection(section.tag, section.flags);
    payload.Bytes(section.bytes);
    payload.EndSection(at);
  }
  ByteWriter out;
  out.Bytes(kMagic);
  out.U32(version);
  out.U64(payload.size());
  out.Bytes(payload.bytes());
  out.U64(Fnv1a64(out.bytes()));
  return out.Release();
}

absl::Status Decode(const std::string& blob) { return DeserializeWorld(blob).status(); }
std::string Message(const std::string& blob) { return std::string(Decode(blob).message()); }

TEST(WorldSerializationMalformedTest, SectionsReassembleToTheSameBlob) {
  const std::string blob = SmallBlob();
  EXPECT_TRUE(Assemble(Sections(blob)) == blob);  // the helpers below edit real blobs
  EXPECT_TRUE(Decode(blob).ok());
}

TEST(WorldSerializationMalformedTest, EveryTruncationIsRefused) {
  const std::string blob = SmallBlob();
  for (size_t length = 0; length < blob.size(); ++length) {
    const absl::Status status = Decode(blob.substr(0, length));
    ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << "length " << length;
  }
  EXPECT_THAT(Message(blob.substr(0, blob.size() - 1)), HasSubstr("truncated"));
  EXPECT_THAT(Message(blob + "x"), StartsWith("payload_length:"));
}

TEST(WorldSerializationMalformedTest, EveryFlippedByteIsRefused) {
  const std::string blob = SmallBlob();
  for (size_t i = 0; i < blob.size(); ++i) {
    std::string corrupted = blob;
    corrupted[i] = static_cast<char>(corrupted[i] ^ 0x10);
    ASSERT_EQ(Decode(corrupted).code(), absl::StatusCode::kInvalidArgument) << "byte " << i;
  }
  std::string corrupted = blob;
  corrupted[serialization::kHeaderBytes + 30] ^= 0x01;  // inside the payload
  EXPECT_THAT(Message(corrupted), StartsWith("checksum:"));
  corrupted = blob;
  corrupted[0] = 'X';
  EXPECT_THAT(Message(corrupted), StartsWith("magic:"));
}

TEST(WorldSerializationMalformedTest, UnknownVersionIsRefused) {
  const std::string blob = Assemble(Sections(SmallBlob()), serialization::kFormatVersion + 1);
  EXPECT_THAT(Message(blob),
              StartsWith(absl::StrCat("version: format version ", serialization::kFormatVersion + 1,
                                      " is not supported")));
}

TEST(WorldSerializationMalformedTest, UnknownSectionsAreRefusedOnlyWhenRequired) {
  std::vector<RawSection> sections = Sections(SmallBlob());
  sections.push_back({serialization::SectionTag("XTRA"), 0, "anything"});
  EXPECT_TRUE(Decode(Assemble(sections)).ok());  // optional: skipped
  sections.back().flags = serialization::kSectionRequired;
  EXPECT_THAT(Message(Assemble(sections)), StartsWith("sections: 'XTRA' is required but unknown"));
}

// Replaces the section with `tag` by `bytes` (checksum recomputed).
std::string WithSection(const std::string& blob, uint32_t tag, const std::string& bytes) {
  std::vector<RawSection> sections = Sections(blob);
  for (RawSection& section : sections) {
    if (section.tag == tag) section.bytes = bytes;
  }
  return Assemble(sections);
}

TEST(WorldSerializationMalformedTest, StructuralErrorsNameTheField) {
  using namespace serialization;
  const std::string blob = SmallBlob();
  {  // A count no input could hold: refused before allocating.
    ByteWriter pairs;
    pairs.U32(std::numeric_limits<uint32_t>::max());
    EXPECT_THAT(Message(WithSection(blob, kTrackedPairsTag, pairs.bytes())),
                StartsWith("tracked_pairs: count 4294967295 needs at least"));
  }
  {  // A tracked pair on a body that does not exist.
    ByteWriter pairs;
    pairs.U32(1);
    pairs.U8(0);
    pairs.I32(0);
    pairs.I32(0);
    pairs.I32(7);
    pairs.I32(0);
    pairs.Vec(Vec3(1, 0, 0));
    pairs.F64(1.0);
    pairs.Vec(Vec3::UnitZ());
    pairs.Bool(false);
    pairs.Vec(Vec3::Zero());
    EXPECT_THAT(Message(WithSection(blob, kTrackedPairsTag, pairs.bytes())),
                StartsWith("tracked_pairs[0].body_b: no body 7"));
  }
  {  // A plane contact on a vertex out of range.
    ByteWriter contacts;
    contacts.U32(1);
    contacts.I32(0);
    contacts.I32(8);
    contacts.I32(0);
    contacts.Bool(false);
    contacts.Vec(Vec3::Zero());
    EXPECT_THAT(Message(WithSection(blob, kPlaneContactsTag, contacts.bytes())),
                StartsWith("plane_contacts[0].vertex: no vertex 8 in body 0"));
  }
  {  // A non-finite plane offset.
    ByteWriter planes;
    planes.U32(1);
    planes.I32(0);
    planes.Vec(Vec3::UnitZ());
    planes.F64(std::numeric_limits<double>::quiet_NaN());
    EXPECT_THAT(Message(WithSection(blob, kPlanesTag, planes.bytes())),
                StartsWith("planes[0].offset_m: must be finite"));
  }
  {  // Settings that do not validate.
    std::vector<RawSection> sections = Sections(blob);
    std::string settings = sections[0].bytes;
    ASSERT_EQ(sections[0].tag, kSettingsTag);
    const double zero = 0.0;
    std::memcpy(settings.data(), &zero, sizeof zero);  // dt_s, little-endian machines
    EXPECT_THAT(Message(WithSection(blob, kSettingsTag, settings)), StartsWith("settings.dt_s:"));
  }
  {  // Missing sections, a body section cut short, trailing bytes in a section.
    std::vector<RawSection> sections = Sections(blob);
    sections.erase(sections.begin() + 1);  // the clock
    EXPECT_THAT(Message(Assemble(sections)), StartsWith("sections: 'CLCK' is missing"));
    sections = Sections(blob);
    for (RawSection& section : sections) {
      if (section.tag == kBodyTag) section.bytes.resize(section.bytes.size() - 8);
    }
    EXPECT_THAT(Message(Assemble(sections)), StartsWith("bodies[0].rigid."));
    sections = Sections(blob);
    sections[1].bytes += "zz";
    EXPECT_THAT(Message(Assemble(sections)), StartsWith("clock: 2 unexpected bytes"));
  }
}

}  // namespace
}  // namespace contactsim::core
