// The Body interface (core/dynamics/body.h) exercised uniformly on a rigid body, a cloth and a
// FEM solid, the way a World drives them: predict, impulses at vertices, correct.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/dynamics/body.h"
#include "core/dynamics/corotational_fem.h"
#include "core/dynamics/mass_spring_cloth.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"

namespace contactsim::core {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
const Vec3 kGravity(0.0, 0.0, -9.81);

struct NamedBody {
  std::string name;
  std::unique_ptr<Body> body;
};

std::vector<NamedBody> MakeBodies() {
  std::vector<NamedBody> out;
  absl::StatusOr<TriangleMesh> box = MakeBox(Vec3(0.2, 0.1, 0.3));
  EXPECT_TRUE(box.ok());
  absl::StatusOr<RigidBody> rigid = RigidBody::Create(*box, 700.0);
  EXPECT_TRUE(rigid.ok()) << rigid.status();
  out.push_back({"rigid", std::make_unique<RigidBody>(*std::move(rigid))});

  absl::StatusOr<TriangleMesh> grid = MakeClothGrid(1.0, 0.5, 4, 2);
  EXPECT_TRUE(grid.ok());
  MassSpringClothParams cloth_params;
  cloth_params.area_density_kg_per_m2 = 0.3;
  cloth_params.stretch_stiffness_n_per_m = 20.0;
  cloth_params.bend_stiffness_n_per_m = 0.5;
  cloth_params.spring_damping_n_s_per_m = 0.01;
  absl::StatusOr<MassSpringCloth> cloth = MassSpringCloth::Create(*grid, cloth_params);
  EXPECT_TRUE(cloth.ok()) << cloth.status();
  out.push_back({"cloth", std::make_unique<MassSpringCloth>(*std::move(cloth))});

  absl::StatusOr<TetMesh> bar = MakeTetBox(Vec3(0.3, 0.1, 0.1), 3, 1, 1);
  EXPECT_TRUE(bar.ok());
  CorotationalFemParams fem_params;
  fem_params.youngs_modulus_pa = 1e4;
  fem_params.poisson_ratio = 0.3;
  fem_params.density_kg_per_m3 = 500.0;
  fem_params.stiffness_damping_s = 1e-3;
  absl::StatusOr<CorotationalFem> fem = CorotationalFem::Create(*bar, fem_params);
  EXPECT_TRUE(fem.ok()) << fem.status();
  out.push_back({"fem", std::make_unique<CorotationalFem>(*std::move(fem))});
  return out;
}

// Gives every vertex the same velocity v0 (a uniform translation).
void SetUniformVelocity(Body& body, const Vec3& v0) {
  if (auto* rigid = dynamic_cast<RigidBody*>(&body)) {
    ASSERT_TRUE(rigid->SetVelocity(v0, Vec3::Zero()).ok());
  } else if (auto* particles = dynamic_cast<ParticleBody*>(&body)) {
    ASSERT_TRUE(
        particles->SetVelocities(Points3(v0.transpose().replicate(body.num_vertices(), 1))).ok());
  }
}

TEST(BodySteppingTest, FreeFallFollowsTheSymplecticEulerSequence) {
  // Symplectic Euler under constant g: v_n = v0 + n dt g and
  // x_n = x0 + dt sum_{k=1..n} v_k = x0 + v0 t + g t^2 / 2 + g t dt / 2, t = n dt. (The last
  // term is the method's O(dt) offset from the exact x0 + v0 t + g t^2 / 2.)
  const Vec3 v0(0.3, -0.2, 1.5);
  const double dt = 0.005;
  const int steps = 400;
  for (NamedBody& nb : MakeBodies()) {
    SCOPED_TRACE(nb.name);
    Body& body = *nb.body;
    SetUniformVelocity(body, v0);
    const Points3 x0 = body.positions_t0();
    for (int n = 0; n < steps; ++n) {
      ASSERT_TRUE(body.Predict(dt, kGravity).ok());
      ASSERT_TRUE(body.Correct(dt).ok());
    }
    // Well inside each body's stable step (the FEM's is the binding one).
    EXPECT_LT(dt, 0.5 * body.StableTimeStepEstimate());
    const double t = steps * dt;
    const Vec3 offset = v0 * t + kGravity * (0.5 * t * t + 0.5 * t * dt);
    // A uniform translation leaves springs and tets at rest: internal forces are only the
    // rounding of positions up to |x| ~ 20 m (~4e-15 m) times stiffness / mass (<= 1e4 /s^2 here),
    // integrated over t^2 / 2 = 2 s^2: < 1e-10 m. The summation itself rounds at 400 steps
    // * eps * 20 m = 2e-12 m.
    const Points3 expected = x0.rowwise() + offset.transpose();
    EXPECT_LE((body.positions_t0() - expected).cwiseAbs().maxCoeff(), 1e-10);
    const Vec3 v_expected = v0 + steps * dt * kGravity;
    for (int i = 0; i < body.num_vertices(); ++i) {
      ASSERT_LE((body.VertexVelocity(i) - v_expected).norm(), 1e-10) << "vertex " << i;
    }
    EXPECT_TRUE(body.CheckFinite().ok());
  }
}

TEST(BodySteppingTest, CorrectWithoutImpulsesGivesExactlyThePrediction) {
  for (NamedBody& nb : MakeBodies()) {
    SCOPED_TRACE(nb.name);
    Body& body = *nb.body;
    SetUniformVelocity(body, Vec3(0.1, 0.0, 0.2));
    if (auto* rigid = dynamic_cast<RigidBody*>(&body)) {
      ASSERT_TRUE(rigid->SetVelocity(Vec3(0.1, 0.0, 0.2), Vec3(1.0, -2.0, 3.0)).ok());
    }
    for (int n = 0; n < 3; ++n) {
      ASSERT_TRUE(body.AddVertexForce(0, Vec3(1.0, 2.0, 3.0)).ok());
      ASSERT_TRUE(body.Predict(0.01, kGravity).ok());
      const Points3 predicted = body.positions_t1();
      // Predicting again from the same start state gives the same prediction.
      ASSERT_TRUE(body.Predict(0.01, kGravity).ok());
      ASSERT_TRUE(body.Correct(0.01).ok());
      // Bit for bit: the same arithmetic on the same inputs.
      EXPECT_EQ(body.positions_t0(), predicted);
      EXPECT_EQ(body.positions_t1(), body.positions_t0());
    }
  }
}

TEST(BodySteppingTest, ImpulsesChangeLinearMomentumByTheirSum) {
  for (NamedBody& nb : MakeBodies()) {
    SCOPED_TRACE(nb.name);
    Body& body = *nb.body;
    const Vec3 p0 = body.LinearMomentum();
    const double dt = 1e-3;
    ASSERT_TRUE(body.Predict(dt, Vec3::Zero()).ok());
    const Vec3 j0(0.01, 0.0, 0.02), j1(0.0, -0.03, 0.01);
    ASSERT_TRUE(body.AddVertexImpulse(0, j0).ok());
    ASSERT_TRUE(body.AddVertexImpulse(body.num_vertices() - 1, j1).ok());
    ASSERT_TRUE(body.Correct(dt).ok());
    // Internal forces sum to zero, so p changes by the impulses only (rounding of O(1e-2)).
    EXPECT_LE((body.LinearMomentum() - p0 - (j0 + j1)).norm(), 1e-15);
    // The bodies started at rest; the impulses set them moving.
    EXPECT_GT(body.KineticEnergy(), 0.0);
  }
}

TEST(BodySteppingTest, InverseMassesAndEnergiesAreConsistent) {
  for (NamedBody& nb : MakeBodies()) {
    SCOPED_TRACE(nb.name);
    Body& body = *nb.body;
    double mass = 0.0;
    if (auto* rigid = dynamic_cast<RigidBody*>(&body)) {
      mass = rigid->mass_kg();
      EXPECT_EQ(body.InverseMass(0), 1.0 / mass);
    } else {
      auto& particles = dynamic_cast<ParticleBody&>(body);
      mass = particles.masses().sum();
      for (int i = 0; i < body.num_vertices(); ++i) {
        EXPECT_EQ(body.InverseMass(i), 1.0 / particles.masses()[i]);
        EXPECT_EQ(body.InverseMassAlong(i, Vec3::UnitX()), body.InverseMass(i));
      }
    }
    // Translating by v gives E_kin = M v^2 / 2 and p = M v; raising by h gives E_pot = M g h
    // relative (all bodies start at rest, undeformed).
    const Vec3 v(0.0, 3.0, 4.0);
    SetUniformVelocity(body, v);
    EXPECT_NEAR(body.KineticEnergy(), 0.5 * mass * 25.0, 1e-13 * mass);
    EXPECT_LE((body.LinearMomentum() - mass * v).norm(), 1e-13 * mass);
    const double e0 = body.PotentialEnergy(kGravity);
    EXPECT_NEAR(body.PotentialEnergy(Vec3::Zero()), 0.0, 1e-12);
    ASSERT_TRUE(body.Predict(0.1, Vec3::Zero()).ok());
    ASSERT_TRUE(body.Correct(0.1).ok());  // moved up by 0.4 m
    EXPECT_NEAR(body.PotentialEnergy(kGravity) - e0, mass * 9.81 * 0.4, 1e-12 * mass);
    EXPECT_TRUE(std::isinf(body.StableTimeStepEstimate()) == (body.type() == BodyType::kRigid));
  }
}

}  // namespace
}  // namespace contactsim::core
