// The rigid_lcp pipeline behind World (core/sim/rigid_lcp/rigid_lcp_pipeline.h): a box resting
// on a ground plane and on a static box, friction, kinematic bodies, the contact report and
// diagnostics, snapshots that replay bit-identically, and refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "core/dynamics/mass_spring_cloth.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "core/sim/serialization/world_serialization.h"
#include "core/sim/world.h"

namespace contactsim::core {
namespace {

constexpr double kG = 9.81;

WorldSettings RigidLcpSettingsFor(RigidContactModel model, double mu, double dt_s = 0.004) {
  WorldSettings settings;
  settings.pipeline = PipelineKind::kRigidLcp;
  settings.dt_s = dt_s;
  settings.gravity_m_per_s2 = Vec3(0.0, 0.0, -kG);
  settings.rigid_lcp.contact_model = model;
  settings.rigid_lcp.friction_coefficient = mu;
  return settings;
}

// A box of half extents h, density 1000 kg/m^3, centre at `center`.
std::unique_ptr<RigidBody> Box(const Vec3& half_extents_m, const Vec3& center_m,
                               RigidBodyKind kind = RigidBodyKind::kDynamic) {
  absl::StatusOr<TriangleMesh> box = MakeBox(half_extents_m);
  EXPECT_TRUE(box.ok()) << box.status();
  Points3 x = box->vertices();
  x.rowwise() += center_m.transpose();
  absl::StatusOr<TriangleMesh> placed = TriangleMesh::Create(x, box->faces());
  EXPECT_TRUE(placed.ok()) << placed.status();
  absl::StatusOr<RigidBody> body =
      kind == RigidBodyKind::kDynamic ? RigidBody::Create(*std::move(placed), 1000.0)
                                      : RigidBody::CreateWithoutMass(*std::move(placed), kind);
  EXPECT_TRUE(body.ok()) << body.status();
  return std::make_unique<RigidBody>(*std::move(body));
}

Vec3 ImpulseOn(const ContactReport& report, int32_t body_id) {
  for (const BodyContactTotals& totals : report.body_totals) {
    if (totals.body_id == body_id) return totals.impulse_n_s;
  }
  return Vec3::Zero();
}

TEST(RigidLcpWorldTest, SettingsAreValidatedNamingTheField) {
  WorldSettings settings = RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5);
  settings.rigid_lcp.friction_directions = 2;
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_FALSE(world.ok());
  EXPECT_NE(world.status().message().find("rigid_lcp.friction_directions"), std::string::npos)
      << world.status();
  settings = RigidLcpSettingsFor(RigidContactModel::kPeg, -0.1);
  EXPECT_NE(World::Create(settings).status().message().find("rigid_lcp.friction_coefficient"),
            std::string::npos);
  settings = RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5);
  settings.rigid_lcp.lcp_tolerance = 0.0;
  EXPECT_NE(World::Create(settings).status().message().find("rigid_lcp.lcp_tolerance"),
            std::string::npos);
}

TEST(RigidLcpWorldTest, RefusesDeformableAndNonConvexBodiesAndConstraints) {
  absl::StatusOr<World> world = World::Create(RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5));
  ASSERT_TRUE(world.ok()) << world.status();

  absl::StatusOr<TriangleMesh> sheet = MakeClothGrid(0.2, 0.2, 2, 2);
  ASSERT_TRUE(sheet.ok()) << sheet.status();
  absl::StatusOr<MassSpringCloth> cloth = MassSpringCloth::Create(*sheet, {.area_density_kg_per_m2 = 0.1, .stretch_stiffness_n_per_m = 100.0});
  ASSERT_TRUE(cloth.ok()) << cloth.status();
  absl::StatusOr<int32_t> cloth_id =
      world->AddBody(std::make_unique<MassSpringCloth>(*std::move(cloth)));
  ASSERT_FALSE(cloth_id.ok());
  EXPECT_NE(cloth_id.status().message().find("rigid bodies only"), std::string::npos)
      << cloth_id.status();

  // An L-shaped prism: closed but not convex.
  Points3 l(12, 3);
  const double pts[6][2] = {{0, 0}, {0.2, 0}, {0.2, 0.1}, {0.1, 0.1}, {0.1, 0.2}, {0, 0.2}};
  for (int i = 0; i < 6; ++i) {
    l.row(i) << pts[i][0], pts[i][1], 0.0;
    l.row(i + 6) << pts[i][0], pts[i][1], 0.1;
  }
  IndexTriples faces(20, 3);
  int f = 0;
  // Bottom (normal -z, clockwise seen from above) and top fans over the L's convex corners.
  const int bottom[4][3] = {{0, 2, 1}, {0, 3, 2}, {0, 4, 3}, {0, 5, 4}};
  for (const auto& t : bottom) {
    faces.row(f++) << t[0], t[1], t[2];
    faces.row(f++) << t[0] + 6, t[2] + 6, t[1] + 6;
  }
  for (int i = 0; i < 6; ++i) {
    const int j = (i + 1) % 6;
    faces.row(f++) << i, j, j + 6;
    faces.row(f++) << i, j + 6, i + 6;
  }
  absl::StatusOr<TriangleMesh> l_mesh = TriangleMesh::Create(l, faces);
  ASSERT_TRUE(l_mesh.ok()) << l_mesh.status();
  absl::StatusOr<RigidBody> l_body = RigidBody::Create(*std::move(l_mesh), 1000.0);
  ASSERT_TRUE(l_body.ok()) << l_body.status();
  absl::StatusOr<int32_t> l_id = world->AddBody(std::make_unique<RigidBody>(*std::move(l_body)));
  ASSERT_FALSE(l_id.ok());
  EXPECT_NE(l_id.status().message().find("not convex"), std::string::npos) << l_id.status();
  EXPECT_EQ(world->num_bodies(), 0);

  absl::StatusOr<int32_t> box = world->AddBody(Box(Vec3(0.05, 0.05, 0.05), Vec3(0, 0, 0.05)));
  ASSERT_TRUE(box.ok()) << box.status();
  ConstraintSpec pin;
  pin.kind = ConstraintKind::kPin;
  pin.body_id = *box;
  pin.vertices = {0};
  absl::StatusOr<int32_t> constraint = world->AddConstraint(pin);
  // Refused (by the World's own checks or the pipeline's), naming the constraint's field.
  ASSERT_FALSE(constraint.ok());
  EXPECT_EQ(constraint.status().message().rfind("pin.", 0), 0u) << constraint.status();
}

}  // namespace
}  // namespace contactsim::core
