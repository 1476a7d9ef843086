// World serialization (core/sim/serialization/world_serialization.h): every body kind, the penalty
// pipeline's contact state and the World's constraints (pins, attachments, position targets,
// with the vertex holds they set) survive bytes, a deserialized world steps bit-identically to the
// original, and malformed input (truncated, corrupted, unknown version or section, hostile counts,
// out-of-range references, non-finite values) is refused with InvalidArgument, never a crash.
#include "core/sim/serialization/world_serialization.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/dynamics/corotational_fem.h"
#include "core/dynamics/mass_spring_cloth.h"
#include "core/dynamics/particle_body.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "core/sim/constraints.h"
#include "core/sim/penalty/penalty_pipeline.h"
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
    out.insert(out.end(), record.normal_impulse_n_s.data(), record.normal_impulse_n_s.data() + 3);
    out.insert(out.end(), record.friction_impulse_n_s.data(),
               record.friction_impulse_n_s.data() + 3);
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
// Constraints.

ConstraintSpec PinSpec(int32_t body, std::vector<int32_t> vertices) {
  ConstraintSpec spec;
  spec.kind = ConstraintKind::kPin;
  spec.body_id = body;
  spec.vertices = std::move(vertices);
  return spec;
}

ConstraintSpec AttachSpec(int32_t body, std::vector<int32_t> vertices, int32_t rigid) {
  ConstraintSpec spec = PinSpec(body, std::move(vertices));
  spec.kind = ConstraintKind::kAttachment;
  spec.target_body_id = rigid;
  return spec;
}

ConstraintSpec TargetSpec(int32_t body, std::vector<int32_t> vertices, Points3 targets, double k) {
  ConstraintSpec spec = PinSpec(body, std::move(vertices));
  spec.kind = ConstraintKind::kPositionTarget;
  spec.targets_m = std::move(targets);
  spec.stiffness_n_per_m = k;
  return spec;
}

// Ids in the constraints world (MakeConstraintWorld).
struct ConstraintIds {
  int32_t strip = -1;
  int32_t dynamic_box = -1;
  int32_t kinematic_box = -1;
  int32_t to_dynamic = -1;    // attachment of the strip's left edge
  int32_t to_kinematic = -1;  // attachment of vertex 12 and 38 (38 also pinned at creation)
  int32_t pin = -1;           // a run-time pin on vertex 19
  int32_t target = -1;        // position target on vertices 7 and 32
};

// A 0.6 m x 0.1 m strip (12 x 2 cells, 39 vertices, vertex 38 pinned at creation) between a
// dynamic box (left edge attached) and a moving, turning kinematic box (vertices 12 and 38
// attached), with a run-time pin and a two-vertex position target, under gravity, collisions
// off. A pin added and removed after 10 steps leaves a gap in the ids (next id 5, 4 constraints).
World MakeConstraintWorld(ConstraintIds* ids) {
  WorldSettings settings;
  settings.dt_s = 1e-3;
  World world = World::Create(settings).value();
  const BodyOptions no_collision{.name = "", .collision = {.enabled = false}};
  absl::StatusOr<TriangleMesh> grid = MakeClothGrid(0.6, 0.1, 12, 2);
  EXPECT_TRUE(grid.ok());
  absl::StatusOr<MassSpringCloth> strip =
      MassSpringCloth::Create(*std::move(grid),
                              {.area_density_kg_per_m2 = 0.5,
                               .stretch_stiffness_n_per_m = 20.0,
                               .bend_stiffness_n_per_m = 1.0,
                               .spring_damping_n_s_per_m = 0.01,
                               .mass_damping_per_s = 0.2},
                              {38});
  EXPECT_TRUE(strip.ok()) << strip.status();
  ids->strip =
      world.AddBody(std::make_unique<MassSpringCloth>(*std::move(strip)), no_collision).value();
  ids->dynamic_box =
      world.AddBody(MakeRigidBox(Vec3(0.05, 0.05, 0.05), 50.0, Vec3(-0.35, 0, 0)), no_collision)
          .value();
  absl::StatusOr<TriangleMesh> box = MakeBox(Vec3(0.05, 0.05, 0.05));
  EXPECT_TRUE(box.ok());
  absl::StatusOr<RigidBody> kinematic =
      RigidBody::CreateWithoutMass(*std::move(box), RigidBodyKind::kKinematic);
  EXPECT_TRUE(kinematic.ok());
  EXPECT_TRUE(kinematic->SetPose(Vec3(0.35, 0, 0), Eigen::Quaterniond::Identity()).ok());
  EXPECT_TRUE(kinematic->SetVelocity(Vec3(0.2, 0.0, 0.1), Vec3(0.0, 0.5, 0.3)).ok());
  ids->kinematic_box =
      world.AddBody(std::make_unique<RigidBody>(*std::move(kinematic)), no_collision).value();

  ids->to_dynamic =
      world.AddConstraint(AttachSpec(ids->strip, {0, 13, 26}, ids->dynamic_box)).value();
  ids->to_kinematic =
      world.AddConstraint(AttachSpec(ids->strip, {12, 38}, ids->kinematic_box)).value();
  const int32_t temporary = world.AddConstraint(PinSpec(ids->strip, {6})).value();
  EXPECT_TRUE(world.Step(10).ok());
  EXPECT_TRUE(world.RemoveConstraint(temporary).ok());
  ids->pin = world.AddConstraint(PinSpec(ids->strip, {19})).value();
  Points3 targets(2, 3);
  targets << 0.05, 0.0, 0.1, 0.1, 0.05, 0.1;
  ids->target = world.AddConstraint(TargetSpec(ids->strip, {7, 32}, targets, 5.0)).value();
  return world;
}

// Every constraint field, held mask and inverse mass of `a` and `b` agree bit for bit.
void ExpectSameConstraints(const World& a, const World& b, int32_t strip) {
  EXPECT_EQ(a.constraints().next_id(), b.constraints().next_id());
  ASSERT_EQ(a.constraints().constraints().size(), b.constraints().constraints().size());
  for (size_t i = 0; i < a.constraints().constraints().size(); ++i) {
    const Constraint& ca = a.constraints().constraints()[i];
    const Constraint& cb = b.constraints().constraints()[i];
    SCOPED_TRACE(ca.id);
    EXPECT_EQ(ca.id, cb.id);
    EXPECT_EQ(ca.spec.kind, cb.spec.kind);
    EXPECT_EQ(ca.spec.body_id, cb.spec.body_id);
    EXPECT_EQ(ca.spec.vertices, cb.spec.vertices);
    EXPECT_EQ(ca.spec.target_body_id, cb.spec.target_body_id);
    EXPECT_EQ(ca.spec.targets_m, cb.spec.targets_m);
    EXPECT_EQ(std::memcmp(&ca.spec.stiffness_n_per_m, &cb.spec.stiffness_n_per_m, sizeof(double)),
              0);
    ASSERT_EQ(ca.offsets_B_m.rows(), cb.offsets_B_m.rows());
    // memcmp of an empty matrix would pass null pointers (undefined behaviour, found by UBSan).
    if (ca.offsets_B_m.size() > 0) {
      EXPECT_EQ(std::memcmp(ca.offsets_B_m.data(), cb.offsets_B_m.data(),
                            sizeof(double) * static_cast<size_t>(ca.offsets_B_m.size())),
                0);
    }
  }
  const auto& pa = dynamic_cast<const ParticleBody&>(*a.body(strip));
  const auto& pb = dynamic_cast<const ParticleBody&>(*b.body(strip));
  for (int i = 0; i < pa.num_vertices(); ++i) {
    EXPECT_EQ(pa.is_held(i), pb.is_held(i)) << "vertex " << i;
    EXPECT_EQ(pa.is_pinned_at_creation(i), pb.is_pinned_at_creation(i)) << "vertex " << i;
    EXPECT_EQ(pa.InverseMass(i), pb.InverseMass(i)) << "vertex " << i;
  }
}

TEST(WorldSerializationConstraintsTest, MidRunRoundTripStepsBitIdentically) {
  ConstraintIds ids;
  World original = MakeConstraintWorld(&ids);
  ASSERT_TRUE(original.Step(30).ok()) << original.last_diagnostics().divergence_message;
  // Vertex 38 is pinned at creation and attached to the moving box: a held vertex whose velocity
  // (its last drive) is not 0, which the body record alone could not restore.
  ASSERT_GT(original.body(ids.strip)->VertexVelocity(38).norm(), 0.0);

  absl::StatusOr<std::string> bytes = SerializeWorld(original);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<World> restored = DeserializeWorld(*bytes);
  ASSERT_TRUE(restored.ok()) << restored.status();
  ExpectSameConstraints(original, *restored, ids.strip);
  ASSERT_TRUE(SameBits(StateBits(original), StateBits(*restored)));
  absl::StatusOr<std::string> again = SerializeWorld(*restored);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(*again == *bytes);

  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(original.Step(1).ok());
    ASSERT_TRUE(restored->Step(1).ok());
    ASSERT_TRUE(SameBits(StateBits(original), StateBits(*restored))) << "step " << i;
  }
  // Releasing, moving targets and adding after the round trip act the same on both.
  Points3 moved(2, 3);
  moved << 0.0, 0.1, 0.0, 0.2, 0.0, 0.05;
  for (World* world : {&original, &*restored}) {
    ASSERT_TRUE(world->RemoveConstraint(ids.to_kinematic).ok());
    ASSERT_TRUE(world->RemoveConstraint(ids.pin).ok());
    ASSERT_TRUE(world->SetConstraintTargets(ids.target, moved).ok());
  }
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(original.Step(1).ok());
    ASSERT_TRUE(restored->Step(1).ok());
    ASSERT_TRUE(SameBits(StateBits(original), StateBits(*restored))) << "step " << i;
  }
  ExpectSameConstraints(original, *restored, ids.strip);
  EXPECT_EQ(original.AddConstraint(PinSpec(ids.strip, {19})).value(), 5);
  EXPECT_EQ(restored->AddConstraint(PinSpec(ids.strip, {19})).value(), 5);
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

// The constraints world after 20 steps: its blob has a CNST section.
std::string ConstraintBlob() {
  ConstraintIds ids;
  World world = MakeConstraintWorld(&ids);
  EXPECT_TRUE(world.Step(10).ok());
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
  for (const std::string& whole : {blob, ConstraintBlob()}) {
    for (size_t length = 0; length < whole.size(); ++length) {
      const absl::Status status = Decode(whole.substr(0, length));
      ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << "length " << length;
    }
  }
  EXPECT_THAT(Message(blob.substr(0, blob.size() - 1)), HasSubstr("truncated"));
  EXPECT_THAT(Message(blob + "x"), StartsWith("payload_length:"));
}

TEST(WorldSerializationMalformedTest, EveryFlippedByteIsRefused) {
  const std::string blob = SmallBlob();
  for (const std::string& whole : {blob, ConstraintBlob()}) {
    for (size_t i = 0; i < whole.size(); ++i) {
      std::string corrupted = whole;
      corrupted[i] = static_cast<char>(corrupted[i] ^ 0x10);
      ASSERT_EQ(Decode(corrupted).code(), absl::StatusCode::kInvalidArgument) << "byte " << i;
    }
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

// The clock's counters are untrusted too: a snapshot may carry any next id or step count that
// passes the checksum (anyone can compute FNV-1a). The last id is refused rather than wrapped, and
// a step count beyond the World's limit is refused at restore or, at the limit, by Step.
TEST(WorldSerializationMalformedTest, ClockCountersAtTheirLimitsAreRefusedNotWrapped) {
  using namespace serialization;
  const std::string blob = SmallBlob();
  auto clock = [](int64_t step_count, int32_t next_body_id, int32_t next_plane_id) {
    ByteWriter out;
    out.F64(0.01);
    out.I64(step_count);
    out.I32(next_body_id);
    out.I32(next_plane_id);
    out.Bool(false);
    out.F64(0.0);
    return out.Release();
  };
  constexpr int32_t kMaxId = std::numeric_limits<int32_t>::max();
  {
    absl::StatusOr<World> world =
        DeserializeWorld(WithSection(blob, kClockTag, clock(5, kMaxId, 1)));
    ASSERT_TRUE(world.ok()) << world.status();
    const absl::StatusOr<int32_t> added =
        world->AddBody(MakeRigidBox(Vec3(0.05, 0.05, 0.05), 500.0, Vec3(0, 0, 1.0)));
    EXPECT_EQ(added.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(added.status().message(), HasSubstr("every body id"));
    EXPECT_TRUE(world->Step(2).ok());  // what was restored still steps
  }
  {
    absl::StatusOr<World> world =
        DeserializeWorld(WithSection(blob, kClockTag, clock(5, 1, kMaxId)));
    ASSERT_TRUE(world.ok()) << world.status();
    EXPECT_EQ(world->AddGroundPlane(Vec3::UnitZ(), -1.0).status().code(),
              absl::StatusCode::kResourceExhausted);
  }
  EXPECT_THAT(
      Message(WithSection(blob, kClockTag, clock(std::numeric_limits<int64_t>::max(), 1, 1))),
      StartsWith("clock:"));
  {
    absl::StatusOr<World> world =
        DeserializeWorld(WithSection(blob, kClockTag, clock(World::kMaxStepCount, 1, 1)));
    ASSERT_TRUE(world.ok()) << world.status();
    const absl::Status stepped = world->Step(1);
    EXPECT_EQ(stepped.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(world->step_count(), World::kMaxStepCount);
    EXPECT_FALSE(world->diverged());
  }
}

// Property: blobs whose sections are mutated at random and then re-sealed with a valid checksum
// (what an attacker can make) never crash or hang the decoder; each is refused with
// InvalidArgument or restores into a World that steps (its own errors are fine) and serializes
// again. Seeded, so a failure repeats; 3,000 mutations of three worlds take well under a second
// in a Release build.
TEST(WorldSerializationMalformedTest, MutatedResealedBlobsAreRefusedOrStep) {
  using namespace serialization;
  const std::vector<std::string> blobs = {SmallBlob(), ConstraintBlob(),
                                          SerializeWorld(MakeEveryKindWorld()).value()};
  std::mt19937_64 random(20261128);
  // Values that stress counts, ids and indices: zero, one, all ones, the extremes, NaN and Inf.
  const uint64_t kSpecial[] = {0,
                               1,
                               ~uint64_t{0},
                               0x7fffffff,
                               0x80000000,
                               0x7fffffffffffffff,
                               0x7ff8000000000000,  // NaN
                               0x7ff0000000000000,  // +Inf
                               0xfff0000000000000};
  int refused = 0, restored = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<RawSection> sections = Sections(blobs[trial % blobs.size()]);
    RawSection& section = sections[random() % sections.size()];
    std::string& bytes = section.bytes;
    switch (random() % 4) {
      case 0:  // a few random bytes
        for (int k = 0; k < 1 + static_cast<int>(random() % 4) && !bytes.empty(); ++k) {
          bytes[random() % bytes.size()] = static_cast<char>(random());
        }
        break;
      case 1:  // a special 4- or 8-byte value at a random offset
        if (bytes.size() >= 8) {
          const uint64_t value = kSpecial[random() % std::size(kSpecial)];
          const size_t width = random() % 2 == 0 ? 4 : 8;
          std::memcpy(bytes.data() + random() % (bytes.size() - width + 1), &value, width);
        }
        break;
      case 2:  // cut short
        bytes.resize(random() % (bytes.size() + 1));
        break;
      default:  // a duplicated section
        sections.push_back(section);
        break;
    }
    absl::StatusOr<World> world = DeserializeWorld(Assemble(sections));
    if (!world.ok()) {
      ASSERT_EQ(world.status().code(), absl::StatusCode::kInvalidArgument)
          << "trial " << trial << ": " << world.status();
      ++refused;
      continue;
    }
    ++restored;
    (void)world->Step(2);  // may diverge or refuse; must not crash
    if (!world->diverged()) {
      EXPECT_TRUE(SerializeWorld(*world).ok()) << "trial " << trial;
    }
  }
  // Both outcomes happen, so the property is exercised on each side.
  EXPECT_GT(refused, 100);
  EXPECT_GT(restored, 100);
}

TEST(WorldSerializationConstraintsTest, WorldsWithoutConstraintsHaveNoConstraintsSection) {
  for (const RawSection& section : Sections(SerializeWorld(MakeEveryKindWorld()).value())) {
    EXPECT_NE(section.tag, serialization::kConstraintsTag);
  }
  // Once a constraint was added, the next id is state even when none is left.
  ConstraintIds ids;
  World world = MakeConstraintWorld(&ids);
  for (const int32_t id : {ids.to_dynamic, ids.to_kinematic, ids.pin, ids.target}) {
    ASSERT_TRUE(world.RemoveConstraint(id).ok());
  }
  absl::StatusOr<World> restored = DeserializeWorld(SerializeWorld(world).value());
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_TRUE(restored->constraints().empty());
  EXPECT_EQ(restored->AddConstraint(PinSpec(ids.strip, {19})).value(), 5);
  const auto& strip = dynamic_cast<const ParticleBody&>(*restored->body(ids.strip));
  for (int i = 0; i < strip.num_vertices(); ++i) EXPECT_EQ(strip.is_held(i), i == 19) << i;
}

// One CNST record as the format describes it (the test's own writing of the documented layout).
struct RecordBytes {
  int32_t id = 0;
  serialization::ConstraintKindCode kind = serialization::ConstraintKindCode::kPin;
  int32_t body_id = 0;
  std::vector<int32_t> vertices = {1};
  int32_t target_body_id = 1;
  double stiffness_n_per_m = 5.0;
  Vec3 row = Vec3(0.1, 0.0, 0.0);  // every offset, velocity and target row
};

std::string ConstraintsSection(int32_t next_id, const std::vector<RecordBytes>& records) {
  using serialization::ConstraintKindCode;
  serialization::ByteWriter out;
  out.I32(next_id);
  out.U32(static_cast<uint32_t>(records.size()));
  for (const RecordBytes& r : records) {
    out.I32(r.id);
    out.U8(static_cast<uint8_t>(r.kind));
    out.I32(r.body_id);
    out.U32(static_cast<uint32_t>(r.vertices.size()));
    for (const int32_t v : r.vertices) out.I32(v);
    Points3 rows(static_cast<Eigen::Index>(r.vertices.size()), 3);
    rows.rowwise() = r.row.transpose();
    if (r.kind == ConstraintKindCode::kAttachment) {
      out.I32(r.target_body_id);
      out.Rows(rows);  // offsets
      out.Rows(rows);  // velocities
    } else if (r.kind == ConstraintKindCode::kPositionTarget) {
      out.F64(r.stiffness_n_per_m);
      out.Rows(rows);
    }
  }
  return out.Release();
}

TEST(WorldSerializationMalformedTest, ConstraintsSectionIsRequiredAndReassembles) {
  const std::string blob = ConstraintBlob();
  int found = 0;
  for (const RawSection& section : Sections(blob)) {
    if (section.tag != serialization::kConstraintsTag) continue;
    ++found;
    EXPECT_EQ(section.flags, serialization::kSectionRequired);
  }
  EXPECT_EQ(found, 1);
  // The test's own records give a blob that reads (body 0 is the strip, 1 the dynamic box).
  using serialization::ConstraintKindCode;
  const std::string edited = WithSection(
      blob, serialization::kConstraintsTag,
      ConstraintsSection(
          9, {{.id = 2, .kind = ConstraintKindCode::kAttachment, .vertices = {0, 13}},
              {.id = 4, .kind = ConstraintKindCode::kPositionTarget, .vertices = {13, 20}},
              {.id = 8, .kind = ConstraintKindCode::kPin, .vertices = {5}}}));
  absl::StatusOr<World> world = DeserializeWorld(edited);
  ASSERT_TRUE(world.ok()) << world.status();
  EXPECT_EQ(world->constraints().next_id(), 9);
  ASSERT_EQ(world->constraints().constraints().size(), 3u);
  EXPECT_EQ(world->constraints().constraints()[1].spec.targets_m.row(1),
            Vec3(0.1, 0, 0).transpose());
  const auto& strip = dynamic_cast<const ParticleBody&>(*world->body(0));
  EXPECT_TRUE(strip.is_held(0) && strip.is_held(13) && strip.is_held(5));
  EXPECT_FALSE(strip.is_held(20) || strip.is_held(19));
  EXPECT_EQ(strip.VertexVelocity(13), Vec3(0.1, 0, 0));  // the attachment's saved velocity
  EXPECT_EQ(strip.VertexVelocity(5), Vec3::Zero());      // pins hold at rest
}

TEST(WorldSerializationMalformedTest, ConstraintErrorsNameTheField) {
  using serialization::ConstraintKindCode;
  const std::string blob = ConstraintBlob();
  const auto message = [&](int32_t next_id, const std::vector<RecordBytes>& records) {
    return Message(
        WithSection(blob, serialization::kConstraintsTag, ConstraintsSection(next_id, records)));
  };
  const RecordBytes attach{.kind = ConstraintKindCode::kAttachment};
  const RecordBytes target{.kind = ConstraintKindCode::kPositionTarget};
  RecordBytes r = attach;
  r.body_id = 9;
  EXPECT_THAT(message(1, {r}), StartsWith("constraints[0].attachment.body_id: no body 9"));
  r.body_id = 1;
  EXPECT_THAT(message(1, {r}),
              StartsWith("constraints[0].attachment.body_id: body 1 is not a deformable"));
  r = attach;
  r.target_body_id = 0;
  EXPECT_THAT(message(1, {r}),
              StartsWith("constraints[0].attachment.target_body_id: body 0 is not a rigid body"));
  r.target_body_id = 7;
  EXPECT_THAT(message(1, {r}), StartsWith("constraints[0].attachment.target_body_id: no body 7"));
  r = target;
  r.vertices = {3, 39};
  EXPECT_THAT(message(1, {r}), StartsWith("constraints[0].position_target.vertices[1]: no vertex "
                                          "39 in body 0 (39 vertices)"));
  r.vertices = {-1};
  EXPECT_THAT(message(1, {r}), StartsWith("constraints[0].position_target.vertices[0]: no vertex"));
  r.vertices = {4, 4};
  EXPECT_THAT(message(1, {r}), StartsWith("constraints[0].position_target.vertices[1]: vertex 4 "
                                          "is listed twice"));
  r.vertices = {};
  EXPECT_THAT(message(1, {r}),
              StartsWith("constraints[0].position_target.vertices: must list at least one"));
  r = target;
  r.stiffness_n_per_m = 0.0;
  EXPECT_THAT(message(1, {r}),
              StartsWith("constraints[0].position_target.stiffness_n_per_m: must be > 0"));
  r.stiffness_n_per_m = std::numeric_limits<double>::infinity();
  EXPECT_THAT(message(1, {r}),
              StartsWith("constraints[0].position_target.stiffness_n_per_m: must be finite"));
  r = target;
  r.row = Vec3(0.0, std::numeric_limits<double>::quiet_NaN(), 0.0);
  EXPECT_THAT(message(1, {r}), StartsWith("constraints[0].position_target.targets_m"));
  r = attach;
  r.row = Vec3(std::numeric_limits<double>::infinity(), 0.0, 0.0);
  EXPECT_THAT(message(1, {r}), StartsWith("constraints[0].attachment.offsets_B_m"));
  // Two holds on one vertex; a target may share it.
  RecordBytes pin{.id = 1, .vertices = {1}};
  EXPECT_THAT(message(2, {attach, pin}),
              StartsWith("constraints[1].pin.vertices[0]: vertex 1 of body 0 is held"));
  r = target;
  r.id = 1;
  EXPECT_TRUE(
      Decode(WithSection(blob, serialization::kConstraintsTag, ConstraintsSection(2, {attach, r})))
          .ok());
  // Ids ascending and below next_id; kinds known; counts the bytes can hold.
  EXPECT_THAT(message(1, {pin}),
              StartsWith("constraints[0].id: id 1 must be ascending and below next_id 1"));
  pin.id = 0;
  pin.vertices = {2};
  EXPECT_THAT(message(2, {attach, pin}), StartsWith("constraints[1].id: id 0 must be ascending"));
  r = attach;
  r.kind = static_cast<ConstraintKindCode>(3);
  EXPECT_THAT(message(1, {r}), StartsWith("constraints[0].kind: unknown constraint kind 3"));
  EXPECT_THAT(message(-1, {}), StartsWith("constraints.next_id: must be >= 0"));
  std::string section = ConstraintsSection(1, {attach});
  section[4] = '\x7f';  // count 127
  EXPECT_THAT(Message(WithSection(blob, serialization::kConstraintsTag, section)),
              StartsWith("constraints: count 127 needs at least"));
  EXPECT_THAT(Message(WithSection(blob, serialization::kConstraintsTag,
                                  ConstraintsSection(1, {attach}) + "z")),
              StartsWith("constraints: 1 unexpected bytes"));
}

// Contact damping (WorldSettings::contact_restitution) travels in its own CDMP section, only when
// it is not the default 1, and a damped world replays bit-identically after a round trip.
TEST(WorldSerializationTest, ContactDampingRoundTripsInItsOwnSection) {
  const auto has_damping_section = [](const std::string& blob) {
    for (const RawSection& section : Sections(blob)) {
      if (section.tag == serialization::kContactDampingTag) return true;
    }
    return false;
  };
  EXPECT_FALSE(has_damping_section(SerializeWorld(MakeEveryKindWorld()).value()));

  WorldSettings settings;
  settings.dt_s = 1e-3;
  settings.contact_restitution = 0.4;
  World original = World::Create(settings).value();
  ASSERT_TRUE(original.AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  ASSERT_TRUE(original
                  .AddBody(MakeRigidBox(Vec3(0.05, 0.05, 0.05), 1000.0, Vec3(0, 0, 0.06),
                                        Eigen::Quaterniond::Identity(), Vec3(0, 0, -1)))
                  .ok());
  ASSERT_TRUE(original.Step(15).ok());  // in contact
  ASSERT_FALSE(Penalty(original).plane_contacts().empty());
  const std::string blob = SerializeWorld(original).value();
  EXPECT_TRUE(has_damping_section(blob));
  absl::StatusOr<World> restored = DeserializeWorld(blob);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->settings().contact_restitution, 0.4);
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(original.Step(1).ok());
    ASSERT_TRUE(restored->Step(1).ok());
    ASSERT_TRUE(SameBits(StateBits(original), StateBits(*restored))) << "step " << i;
  }

  // An out-of-range value is refused naming the field.
  std::vector<RawSection> sections = Sections(blob);
  for (RawSection& section : sections) {
    if (section.tag != serialization::kContactDampingTag) continue;
    serialization::ByteWriter out;
    out.F64(1.5);
    section.bytes = out.Release();
  }
  EXPECT_THAT(Message(Assemble(sections)), ::testing::HasSubstr("settings.contact_restitution"));
}

}  // namespace
}  // namespace contactsim::core
