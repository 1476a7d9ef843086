// Frictional contact against triangle-mesh obstacles inside the local-global step (Zeng et al.
// 2024, Alg. 4; mesh_contact.h), with the settings of local_global_contact_test.cc: the 0.1 m
// ARAP cube (27 vertices, 48 tets, rho = 1000 kg/m^3 so m = 1 kg, nu = 0.3), h = 1/60 s,
// 10 local-global iterations, one Newton iteration each, 24 CR iterations, Fischer-Burmeister.
//
// (a, b) The half-space scenes again, with the plane replaced by the top of a triangulated slab
// (the 20 x 8 x 1 tet-box surface, 2 m long, 0.2 m thick): the cube's bottom vertices land on
// obstacle vertices, edges and face interiors. For a horizontal top the face normals, offsets and
// tangents equal the half-space ones exactly, so the two geometry paths must give the SAME
// trajectory (to round-off); on the 10 degree ramp they agree to round-off of the rotated normals.
// (c) A cube dropped onto a sharp ridge and onto a pyramid apex: edge-edge and triangle-vertex
// contacts hold the body above the obstacle's feature.
// (d) Kinematic obstacles: a floor translating sideways carries the block along, one moving up
// lifts it. (e) A turntable (a rotating obstacle) carries it round at its surface speed.
#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "core/collision/proximity.h"
#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

constexpr double kGravity = 9.81;
constexpr double kDt = 1.0 / 60.0;
constexpr double kHalfSize = 0.05;
constexpr double kPi = 3.14159265358979323846;

// The surface of a box of half extents (1.0, 0.4, 0.1), 20 x 8 x 1 cells (0.1 m), with its top face
// at z = 0, rotated by `rotation` about the origin.
TriangleMeshObstacle Slab(const Mat3& rotation, double friction_coefficient) {
  const TetMesh box = MakeTetBox(Vec3(1.0, 0.4, 0.1), 20, 8, 1).value();
  TriangleMeshObstacle slab;
  const Points3 shifted = box.vertices().rowwise() - Vec3(0.0, 0.0, 0.1).transpose();
  slab.vertices_m = shifted * rotation.transpose();
  slab.faces = box.surface().faces();
  slab.friction_coefficient = friction_coefficient;
  return slab;
}

struct Scene {
  Mat3 body_rotation = Mat3::Identity();  // of the axis-aligned cube about its centre
  Vec3 body_centre_m = Vec3(0.0, 0.0, kHalfSize);
  double youngs_pa = 1e8;
  std::vector<HalfSpaceObstacle> planes;
  std::vector<TriangleMeshObstacle> meshes;
  int steps = 60;
};

struct SceneRun {
  explicit SceneRun(TetMesh body) : mesh(std::move(body)) {}
  double mass_kg = 0.0;
  std::vector<Points3> positions;  // after each step
  std::vector<Vec3> centre_velocity_mps;
  Vec3 contact_force_n = Vec3::Zero();     // sum of the last step's contact forces
  int contacts_of_kind[4] = {0, 0, 0, 0};  // over all steps
  TetMesh mesh;
};

SceneRun Simulate(const Scene& scene) {
  const TetMesh box = MakeTetBox(Vec3::Constant(kHalfSize), 2, 2, 2).value();
  const Points3 x0 = (box.vertices() * scene.body_rotation.transpose()).rowwise() +
                     scene.body_centre_m.transpose();
  SceneRun run(TetMesh::Create(x0, box.tets()).value());
  const Material material =
      MakeMaterial(MaterialModel::kArap, {scene.youngs_pa, 0.3, 1000.0}).value();
  LocalGlobalOptions options;
  options.iterations = 10;
  options.obstacles = scene.planes;
  options.mesh_obstacles = scene.meshes;
  options.contact.newton_iterations = 1;
  options.contact.cr_iterations = 24;
  auto solver =
      LocalGlobalSolver::Create(run.mesh, material, kDt, options, std::make_shared<CpuBackend>());
  EXPECT_TRUE(solver.ok()) << solver.status();
  const int n = run.mesh.num_vertices();
  const Eigen::VectorXd& mass = (*solver)->lumped_mass_kg();
  run.mass_kg = mass.sum();
  Points3 gravity = Points3::Zero(n, 3);
  gravity.col(2) = -kGravity * mass;
  LocalGlobalState state{x0, Points3::Zero(n, 3)};
  for (int step = 0; step < scene.steps; ++step) {
    LocalGlobalStepStats stats;
    const absl::Status status = (*solver)->Step(gravity, &state, nullptr, &stats);
    EXPECT_TRUE(status.ok()) << status;
    run.contact_force_n.setZero();
    for (size_t j = 0; j < stats.contacts.size(); ++j) {
      const VertexContact& c = stats.contacts[j];
      run.contact_force_n += stats.contact_force_n[3 * j] * c.normal +
                             stats.contact_force_n[3 * j + 1] * c.tangent1 +
                             stats.contact_force_n[3 * j + 2] * c.tangent2;
      ++run.contacts_of_kind[static_cast<int>(c.kind)];
    }
    run.positions.push_back(state.x_m);
    run.centre_velocity_mps.push_back((mass.transpose() * state.v_mps).transpose() / run.mass_kg);
  }
  return run;
}

double MaxTrajectoryDifference(const SceneRun& a, const SceneRun& b) {
  double worst = 0.0;
  for (size_t s = 0; s < a.positions.size(); ++s) {
    worst = std::max(worst, (a.positions[s] - b.positions[s]).cwiseAbs().maxCoeff());
  }
  return worst;
}

// Mean acceleration along `direction` over the second half of the run.
double LateAcceleration(const SceneRun& run, const Vec3& direction) {
  const int steps = static_cast<int>(run.centre_velocity_mps.size());
  const int mid = steps / 2 - 1;
  return (run.centre_velocity_mps[steps - 1] - run.centre_velocity_mps[mid]).dot(direction) /
         ((steps - 1 - mid) * kDt);
}

// How deep the point q lies inside the body (0 outside): the distance to the nearest surface
// triangle when a tet contains q [m].
double PenetrationDepth(const TetMesh& mesh, const Points3& x, const Vec3& q) {
  bool inside = false;
  for (int t = 0; t < mesh.num_tets() && !inside; ++t) {
    const Vec3 a = x.row(mesh.tets()(t, 0)).transpose();
    Mat3 d;
    for (int k = 0; k < 3; ++k) d.col(k) = x.row(mesh.tets()(t, k + 1)).transpose() - a;
    const Vec3 w = d.inverse() * (q - a);
    inside = w.minCoeff() > 0.0 && w.sum() < 1.0;
  }
  if (!inside) return 0.0;
  double best = 1e9;
  const IndexTriples& faces = mesh.surface().faces();
  for (Eigen::Index f = 0; f < faces.rows(); ++f) {
    const PointTriangleProximity p =
        PointTriangleClosest(q, x.row(faces(f, 0)).transpose(), x.row(faces(f, 1)).transpose(),
                             x.row(faces(f, 2)).transpose());
    best = std::min(best, std::sqrt(p.distance_squared_m2));
  }
  return best;
}

// (a) Dropped from 2 mm onto the slab top (E = 1e6, as the half-space rest test): the contact
// forces carry the weight (to 1e-6, the half-space test's tolerance, from the same momentum
// identity), nothing sinks below 1e-6 m, and the trajectory equals the half-space one: the
// contacts have the same normals, offsets, tangents and order, so any difference would come from
// a wrong contact (a missing or duplicated vertex over an obstacle edge or vertex, a wrong normal).
TEST(LocalGlobalMeshContactTest, BlockRestsOnTriangulatedSlabExactlyAsOnThePlane) {
  Scene scene;
  scene.youngs_pa = 1e6;
  scene.body_centre_m = Vec3(0.0, 0.0, kHalfSize + 2e-3);
  scene.meshes = {Slab(Mat3::Identity(), 0.5)};
  const SceneRun mesh_run = Simulate(scene);
  scene.meshes.clear();
  scene.planes = {{Vec3::UnitZ(), 0.0, 0.5}};
  const SceneRun plane_run = Simulate(scene);
  const double weight_n = mesh_run.mass_kg * kGravity;
  const double difference_m = MaxTrajectoryDifference(mesh_run, plane_run);
  std::printf("slab: sum lambda_n = %.9f N (m g %.9f N), trajectory vs plane %.1e m\n",
              mesh_run.contact_force_n.z(), weight_n, difference_m);
  EXPECT_NEAR(mesh_run.contact_force_n.z(), weight_n, 1e-6 * weight_n);
  EXPECT_LT(mesh_run.contact_force_n.head<2>().norm(), 1e-6 * weight_n);
  EXPECT_GT(mesh_run.positions.back().col(2).minCoeff(), -1e-6);
  EXPECT_LT(mesh_run.centre_velocity_mps.back().norm(), 1e-6);
  EXPECT_LT(difference_m, 1e-12);
  EXPECT_EQ(mesh_run.contacts_of_kind[static_cast<int>(ContactKind::kVertexTriangle)],
            9 * scene.steps);  // the nine bottom vertices, one contact each, every step
}

// (b) The slab tilted by 10 degrees: the block slides at g (sin t - mu cos t) for mu = 0.1 (1%,
// as the half-space test; the contact force normal to the ramp stays m g cos t) and sticks for
// mu = 0.5 (a large margin over tan 10 deg = 0.18: no creep); both agree with the tilted plane.
TEST(LocalGlobalMeshContactTest, BlockOnTriangulatedRampSlidesAndSticksAsOnThePlane) {
  const double t = 10.0 * kPi / 180.0;
  const Mat3 rotation = Eigen::AngleAxisd(t, Vec3::UnitY()).toRotationMatrix();
  const Vec3 normal = rotation * Vec3::UnitZ();
  const Vec3 downhill = rotation * Vec3::UnitX();
  for (double mu : {0.1, 0.5}) {
    Scene scene;
    scene.body_rotation = rotation;
    scene.body_centre_m = kHalfSize * normal;
    scene.meshes = {Slab(rotation, mu)};
    const SceneRun mesh_run = Simulate(scene);
    scene.meshes.clear();
    scene.planes = {{normal, 0.0, mu}};
    const SceneRun plane_run = Simulate(scene);
    const double expected = mu < 0.17 ? kGravity * (std::sin(t) - mu * std::cos(t)) : 0.0;
    const double measured = LateAcceleration(mesh_run, downhill);
    const double difference_m = MaxTrajectoryDifference(mesh_run, plane_run);
    std::printf("ramp mu %.1f: a = %.6f m/s^2 (expected %.6f), v = %.2e m/s, vs plane %.1e m\n", mu,
                measured, expected, mesh_run.centre_velocity_mps.back().dot(downhill),
                difference_m);
    EXPECT_NEAR(mesh_run.contact_force_n.dot(normal), mesh_run.mass_kg * kGravity * std::cos(t),
                1e-6 * mesh_run.mass_kg * kGravity);
    EXPECT_LT(difference_m, 1e-9);
    if (mu < 0.17) {
      EXPECT_NEAR(measured, expected, 0.01 * expected);
    } else {
      EXPECT_LT(std::abs(mesh_run.centre_velocity_mps.back().dot(downhill)), 1e-9);
    }
  }
}

// (c) Dropped from 2 mm onto a sharp ridge and onto a pyramid apex, turned 30 degrees about z so
// the ridge crosses the bottom face's edges between vertices and the apex lies inside a bottom
// triangle: the edge-edge and triangle-vertex contacts must hold the body up. Bound: the
// feature penetrates the body by less than 1e-4 m (0.1% of the cube; without these contacts the
// feature would cut through the bottom face at g h^2 = 2.7 mm per step once the body rests on
// it). The scenes are symmetric under a half turn about z, so the block balances over 0.5 s.
TEST(LocalGlobalMeshContactTest, BlockDroppedOnSharpRidgeOrApexStaysAboveIt) {
  TriangleMeshObstacle roof;
  roof.vertices_m.resize(6, 3);
  roof.vertices_m << 0, -1, 0, 0, 1, 0, -1, -1, -1, -1, 1, -1, 1, -1, -1, 1, 1, -1;
  roof.faces.resize(4, 3);
  roof.faces << 0, 4, 5, 0, 5, 1, 0, 1, 3, 0, 3, 2;
  roof.friction_coefficient = 0.5;
  TriangleMeshObstacle pyramid;
  pyramid.vertices_m.resize(5, 3);
  pyramid.vertices_m << 0, 0, 0, 1, 1, -1, -1, 1, -1, -1, -1, -1, 1, -1, -1;
  pyramid.faces.resize(4, 3);
  pyramid.faces << 0, 4, 1, 0, 1, 2, 0, 2, 3, 0, 3, 4;
  pyramid.friction_coefficient = 0.5;
  const Mat3 turn = Eigen::AngleAxisd(30.0 * kPi / 180.0, Vec3::UnitZ()).toRotationMatrix();
  struct Case {
    const char* name;
    TriangleMeshObstacle obstacle;
    Vec3 centre_m;
    ContactKind feature_kind;
    std::vector<Vec3> samples;  // obstacle points to test for penetration
  };
  std::vector<Vec3> ridge;
  for (int i = -40; i <= 40; ++i) ridge.emplace_back(0.0, 0.002 * i, 0.0);
  // The apex test offsets the block so the apex is inside a bottom triangle, not at a vertex.
  const std::vector<Case> cases = {
      {"ridge", roof, Vec3(0, 0, kHalfSize + 2e-3), ContactKind::kEdgeEdge, ridge},
      {"apex",
       pyramid,
       Vec3(0.013, -0.021, kHalfSize + 2e-3),
       ContactKind::kTriangleVertex,
       {Vec3::Zero()}}};
  for (const Case& c : cases) {
    Scene scene;
    scene.body_rotation = turn;
    scene.body_centre_m = c.centre_m;
    scene.meshes = {c.obstacle};
    scene.steps = 30;
    const SceneRun run = Simulate(scene);
    double depth_m = 0.0;
    for (const Points3& x : run.positions) {
      for (const Vec3& q : c.samples) depth_m = std::max(depth_m, PenetrationDepth(run.mesh, x, q));
    }
    const Vec3 centre =
        (run.positions.back().colwise().sum() / run.mesh.num_vertices()).transpose();
    std::printf("%s: max penetration %.2e m, %d feature contacts, centre height %.4f m\n", c.name,
                depth_m, run.contacts_of_kind[static_cast<int>(c.feature_kind)], centre.z());
    EXPECT_GT(run.contacts_of_kind[static_cast<int>(c.feature_kind)], 0) << c.name;
    EXPECT_LT(depth_m, 1e-4) << c.name;
    EXPECT_GT(centre.z(), 0.5 * kHalfSize) << c.name;  // resting on the feature, not fallen off
  }
}

// (d) Kinematic floors (the slab top): one translating along x at 0.1 m/s with mu = 0.5 carries
// the block: friction accelerates it at up to mu g = 4.9 m/s^2, so after 1 s it moves with the
// floor (stuck: the slip is measured relative to the floor) to 1e-6 m/s. One moving up at
// 0.05 m/s lifts it at that speed while the contact force carries exactly the weight (no
// acceleration), to 1e-6 relative.
TEST(LocalGlobalMeshContactTest, KinematicFloorCarriesAndLiftsTheBlock) {
  for (const Vec3& velocity : {Vec3(0.1, 0.0, 0.0), Vec3(0.0, 0.0, 0.05)}) {
    Scene scene;
    scene.meshes = {Slab(Mat3::Identity(), 0.5)};
    scene.meshes[0].velocity_mps = velocity;
    const SceneRun run = Simulate(scene);
    const Vec3 v = run.centre_velocity_mps.back();
    std::printf("floor (%.2f, %.2f, %.2f) m/s: block (%.6f, %.6f, %.6f) m/s, force z %.9f N\n",
                velocity.x(), velocity.y(), velocity.z(), v.x(), v.y(), v.z(),
                run.contact_force_n.z());
    EXPECT_LT((v - velocity).norm(), 1e-6);
    EXPECT_NEAR(run.contact_force_n.z(), run.mass_kg * kGravity, 1e-6 * run.mass_kg * kGravity);
    // The block's lowest point is on the floor where the floor is at the end: 1 s of motion.
    const double floor_z = velocity.z() * scene.steps * kDt;
    EXPECT_NEAR(run.positions.back().col(2).minCoeff(), floor_z, 1e-6);
  }
}

// (e) A turntable: the slab turning about the vertical axis through the origin at w = 1 rad/s
// (mu = 0.5), the block resting on it 0.3 m from the axis. Friction accelerates it at up to
// mu g = 4.9 m/s^2 to the table's speed w r = 0.3 m/s (0.06 s), and the needed centripetal
// w^2 r = 0.3 m/s^2 is far inside the cone, so from then on the block is stuck to the table:
// each contact's slip is measured against its table point's velocity u = w x (p - c), so the
// block's last-step velocity must be w x (x_c - c) at its step-start centre, to 1e-6 m/s as the
// translating floor (measured 3e-9). A slip measured against the table's centre (0) would leave
// the block in place. That velocity is first order in h (the tangent, not the arc): a stuck
// block spirals out by a factor 1 + (w h)^2 / 2 per step, 0.8% of the radius over the 60 steps;
// asserted: the radius stays within 2% of 0.3 m (measured +1.2%, the catch-up included) and the
// block turned by more than 0.9 of the table's 1 rad.
TEST(LocalGlobalMeshContactTest, TurntableCarriesTheBlockAtItsSurfaceSpeed) {
  Scene scene;
  const double radius_m = 0.3, rate_radps = 1.0;
  scene.body_centre_m = Vec3(radius_m, 0.0, kHalfSize);
  scene.meshes = {Slab(Mat3::Identity(), 0.5)};
  scene.meshes[0].angular_velocity_radps = Vec3(0.0, 0.0, rate_radps);
  const SceneRun run = Simulate(scene);
  const Points3& x = run.positions.back();
  const Vec3 centre = (x.colwise().sum() / run.mesh.num_vertices()).transpose();
  // A stuck point moves by h w x (p - c) from where it is at the step start (first order).
  const Points3& x_start = run.positions[run.positions.size() - 2];
  const Vec3 start = (x_start.colwise().sum() / run.mesh.num_vertices()).transpose();
  const Vec3 expected = Vec3(0.0, 0.0, rate_radps).cross(Vec3(start.x(), start.y(), 0.0));
  const Vec3 v = run.centre_velocity_mps.back();
  const double turned = std::atan2(centre.y(), centre.x());
  std::printf(
      "turntable: block (%.6f, %.6f, %.6f) m/s, table there (%.6f, %.6f, 0) m/s (difference "
      "%.1e), radius %.6f m, turned %.4f rad\n",
      v.x(), v.y(), v.z(), expected.x(), expected.y(), (v - expected).norm(),
      centre.head<2>().norm(), turned);
  EXPECT_LT((v - expected).norm(), 1e-6);
  EXPECT_NEAR(centre.head<2>().norm(), radius_m, 0.02 * radius_m);
  // Carried through the whole second but the first steps' catch-up: turned by ~1 rad.
  EXPECT_GT(turned, 0.9 * rate_radps * scene.steps * kDt);
  EXPECT_NEAR(run.contact_force_n.z(), run.mass_kg * kGravity, 1e-3 * run.mass_kg * kGravity);
}

}  // namespace
}  // namespace contactsim::core
