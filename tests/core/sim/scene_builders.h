// Small scene builders shared by the World tests: rigid boxes at a pose, static triangle boxes,
// FEM balls and cloth, each wrapped for World::AddBody.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <memory>
#include <utility>

#include "core/dynamics/corotational_fem.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/mass_spring_cloth.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"

namespace contactsim::core::testing {

// A 0.1 m ARAP cube of 48 tets (E 1 MPa, nu 0.3, rho 1000 kg/m^3: 1 kg) for the local_global
// pipeline, its centre at x0_m along x and its bottom face at height z0_m, stepped with dt_s on
// `backend`.
inline std::unique_ptr<HyperelasticBody> MakeArapTetCube(
    double x0_m, double z0_m, double dt_s,
    std::shared_ptr<Backend> backend = std::make_shared<CpuBackend>()) {
  absl::StatusOr<TetMesh> box = MakeTetBox(Vec3(0.05, 0.05, 0.05), 2, 2, 2);
  EXPECT_TRUE(box.ok()) << box.status();
  Points3 x = box->vertices();
  x.col(0).array() += x0_m;
  x.col(2).array() += 0.05 + z0_m;
  absl::StatusOr<TetMesh> placed = TetMesh::Create(x, box->tets());
  EXPECT_TRUE(placed.ok()) << placed.status();
  HyperelasticBodyParams params;
  params.model = MaterialModel::kArap;
  params.material = {1.0e6, 0.3, 1000.0};
  params.time_step_s = dt_s;
  absl::StatusOr<std::unique_ptr<HyperelasticBody>> body =
      HyperelasticBody::Create(*std::move(placed), params, std::move(backend));
  EXPECT_TRUE(body.ok()) << body.status();
  return *std::move(body);
}

// A dynamic box of the given half extents [m] and density [kg/m^3], centre at p_WB, rotated by
// q_WB, moving with v_WB.
inline std::unique_ptr<RigidBody> MakeRigidBox(
    const Vec3& half_extents_m, double density, const Vec3& p_WB,
    const Eigen::Quaterniond& q_WB = Eigen::Quaterniond::Identity(),
    const Vec3& v_WB = Vec3::Zero()) {
  absl::StatusOr<TriangleMesh> mesh = MakeBox(half_extents_m);
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  absl::StatusOr<RigidBody> body = RigidBody::Create(*std::move(mesh), density);
  EXPECT_TRUE(body.ok()) << body.status();
  auto out = std::make_unique<RigidBody>(*std::move(body));
  EXPECT_TRUE(out->SetPose(p_WB, q_WB).ok());
  EXPECT_TRUE(out->SetVelocity(v_WB, Vec3::Zero()).ok());
  return out;
}

// A static box made of 12 triangles, rotated by R and centred at `center`.
inline std::unique_ptr<RigidBody> MakeStaticBox(const Vec3& half_extents_m, const Vec3& center,
                                                const Mat3& rotation = Mat3::Identity()) {
  absl::StatusOr<TriangleMesh> box = MakeBox(half_extents_m);
  EXPECT_TRUE(box.ok()) << box.status();
  absl::StatusOr<TriangleMesh> moved =
      TriangleMesh::Create(Transformed(box->vertices(), rotation, center), box->faces());
  EXPECT_TRUE(moved.ok()) << moved.status();
  absl::StatusOr<RigidBody> body =
      RigidBody::CreateWithoutMass(*std::move(moved), RigidBodyKind::kStatic);
  EXPECT_TRUE(body.ok()) << body.status();
  return std::make_unique<RigidBody>(*std::move(body));
}

// A corotational FEM ball of radius r [m] centred at `center`, moving with v.
inline std::unique_ptr<CorotationalFem> MakeFemBall(double radius_m, int resolution,
                                                    const CorotationalFemParams& params,
                                                    const Vec3& center, const Vec3& velocity) {
  absl::StatusOr<TetMesh> mesh = MakeTetSphere(radius_m, resolution);
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  absl::StatusOr<CorotationalFem> fem = CorotationalFem::Create(*std::move(mesh), params);
  EXPECT_TRUE(fem.ok()) << fem.status();
  auto out = std::make_unique<CorotationalFem>(*std::move(fem));
  EXPECT_TRUE(out->SetPositions(Translated(out->positions_t0(), center)).ok());
  Points3 v(out->num_vertices(), 3);
  v.rowwise() = velocity.transpose();
  EXPECT_TRUE(out->SetVelocities(v).ok());
  return out;
}

// A square cloth of side `size_m` with n x n cells, horizontal at height z_m.
inline std::unique_ptr<MassSpringCloth> MakeCloth(double size_m, int n, double z_m,
                                                  const MassSpringClothParams& params) {
  absl::StatusOr<TriangleMesh> grid = MakeClothGrid(size_m, size_m, n, n);
  EXPECT_TRUE(grid.ok()) << grid.status();
  absl::StatusOr<MassSpringCloth> cloth = MassSpringCloth::Create(*std::move(grid), params);
  EXPECT_TRUE(cloth.ok()) << cloth.status();
  auto out = std::make_unique<MassSpringCloth>(*std::move(cloth));
  EXPECT_TRUE(out->SetPositions(Translated(out->positions_t0(), Vec3(0.0, 0.0, z_m))).ok());
  return out;
}

}  // namespace contactsim::core::testing
