// Contact detection between deformable bodies (body_contact.h) in configurations worked out by
// hand: two single-tet bodies, a vertex above a face and two crossing ridges.
#include "core/dynamics/local_global/body_contact.h"

#include <Eigen/Geometry>
#include <string>
#include <utility>
#include <vector>

#include "core/dynamics/local_global/contact_warm_start.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/geometry/generators.h"
#include "core/geometry/tet_mesh.h"
#include "core/linalg/cpu_backend.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

// Two single-tet bodies joined into one mesh (body 0: vertices 0-3, body 1: vertices 4-7), the
// tets ordered so that their volume is positive.
TetMesh TwoTets(const Points3& x) {
  IndexQuads tets(2, 4);
  tets << 0, 1, 2, 3, 4, 5, 6, 7;
  for (int t = 0; t < 2; ++t) {
    const Vec3 a = x.row(tets(t, 0)).transpose();
    const double volume = (x.row(tets(t, 1)).transpose() - a)
                              .cross(x.row(tets(t, 2)).transpose() - a)
                              .dot(x.row(tets(t, 3)).transpose() - a);
    if (volume < 0.0) std::swap(tets(t, 2), tets(t, 3));
  }
  auto mesh = TetMesh::Create(x, tets);
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  return *std::move(mesh);
}

const std::vector<int32_t> kBodies = {0, 0, 0, 0, 1, 1, 1, 1};
const std::vector<int32_t> kAllFree = {0, 1, 2, 3, 4, 5, 6, 7};

std::vector<VertexContact> Detect(const TetMesh& mesh, const std::vector<int32_t>& bodies,
                                  const std::vector<int32_t>& free_index, double mu = 0.4) {
  BodyContactOptions options;
  options.enabled = true;
  options.friction_coefficient = mu;
  auto detector = BodyContactDetector::Create(mesh.surface(), bodies, options);
  EXPECT_TRUE(detector.ok()) << detector.status();
  std::vector<VertexContact> contacts;
  EXPECT_TRUE((*detector)->Detect(mesh.vertices(), free_index, 0.01, &contacts).ok());
  return contacts;
}

// Body 0 has the face (0,0,0), (1,0,0), (0,1,0) on top (outward +z); body 1 points its apex p
// down at (0.2, 0.3), 4 mm above it. The apex's projection has barycentrics (0.5, 0.2, 0.3).
Points3 ApexOverFace() {
  Points3 x(8, 3);
  const Vec3 p(0.2, 0.3, 0.004);
  x << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0.25, 0.25, -1,  //
      p.transpose(), (p + Vec3(0.5, 0, 1)).transpose(), (p + Vec3(0, 0.5, 1)).transpose(),
      (p + Vec3(-0.5, -0.5, 1)).transpose();
  return x;
}

TEST(BodyContactTest, VertexAboveFaceOfOtherBody) {
  const TetMesh mesh = TwoTets(ApexOverFace());
  const std::vector<VertexContact> contacts = Detect(mesh, kBodies, kAllFree);
  ASSERT_EQ(contacts.size(), 1u);
  const VertexContact& c = contacts[0];
  EXPECT_EQ(c.kind, ContactKind::kBodyVertexTriangle);
  EXPECT_EQ(c.vertex, 4);
  EXPECT_EQ(c.free_vertex, 4);
  EXPECT_EQ(c.weight, 1.0);
  EXPECT_EQ(c.obstacle, 0);  // the body of the triangle
  EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-12);
  EXPECT_NEAR(c.normal.dot(c.tangent1.cross(c.tangent2)), 1.0, 1e-12);
  EXPECT_EQ(c.friction_coefficient, 0.4);
  EXPECT_EQ(c.offset_m, 0.0);
  // Weights -b_i on the triangle's vertices, whichever order the surface lists them in.
  double expected[3] = {0.5, 0.2, 0.3};
  double weight_sum = c.weight;
  for (int k = 0; k < 3; ++k) {
    ASSERT_GE(c.extra_vertices[k], 0);
    ASSERT_LT(c.extra_vertices[k], 3);
    EXPECT_NEAR(c.extra_weights[k], -expected[c.extra_vertices[k]], 1e-12);
    EXPECT_EQ(c.extra_free_vertices[k], c.extra_vertices[k]);
    weight_sum += c.extra_weights[k];
  }
  EXPECT_NEAR(weight_sum, 0.0, 1e-15);  // the row carries no net force
  EXPECT_NEAR(c.normal.dot(ContactPoint(c, mesh.vertices())), 0.004, 1e-12);
  // H: the normal row is n^T on vertex 4 and -b_i n^T on the triangle's vertices.
  const CsrMatrix h = BuildContactJacobian(contacts, 8);
  ASSERT_EQ(h.rows, 3);
  EXPECT_EQ(h.row_offsets[1] - h.row_offsets[0], 12);
}

TEST(BodyContactTest, SameBodyPinnedOrFarGiveNothing) {
  const TetMesh mesh = TwoTets(ApexOverFace());
  EXPECT_TRUE(Detect(mesh, std::vector<int32_t>(8, 0), kAllFree).empty());
  EXPECT_TRUE(Detect(mesh, kBodies, std::vector<int32_t>(8, -1)).empty());
  Points3 far = ApexOverFace();
  far.bottomRows(4).col(2).array() += 0.02;  // 2.4 cm: beyond the 1 cm proximity
  EXPECT_TRUE(Detect(TwoTets(far), kBodies, kAllFree).empty());
  // Pinning the apex alone keeps the contact (the triangle still moves), without its free index.
  std::vector<int32_t> free_index = {0, 1, 2, 3, -1, 4, 5, 6};
  const std::vector<VertexContact> contacts = Detect(mesh, kBodies, free_index);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].free_vertex, -1);
}

// Body 0: a ridge from (-1,0,0) to (1,0,0) (vertices 0, 1) over a base below; body 1: an inverted
// ridge from (0,-1,h) to (0,1,h) (vertices 4, 5), h = 4 mm. The ridges cross at their midpoints.
TEST(BodyContactTest, CrossingRidgesGiveOneEdgeEdgeContact) {
  const double h = 0.004;
  Points3 x(8, 3);
  x << -1, 0, 0, 1, 0, 0, 0, -1, -1, 0, 1, -1,  //
      0, -1, h, 0, 1, h, -1, 0, 1 + h, 1, 0, 1 + h;
  const TetMesh mesh = TwoTets(x);
  const std::vector<VertexContact> contacts = Detect(mesh, kBodies, kAllFree, 0.0);
  ASSERT_EQ(contacts.size(), 1u);
  const VertexContact& c = contacts[0];
  EXPECT_EQ(c.kind, ContactKind::kBodyEdgeEdge);
  // Edge A = (0, 1) of body 0, edge B = (4, 5) of body 1: weights (1-s, s, -(1-u), -u), all 1/2.
  EXPECT_EQ(c.vertex, 0);
  EXPECT_EQ(c.extra_vertices[0], 1);
  EXPECT_EQ(c.extra_vertices[1], 4);
  EXPECT_EQ(c.extra_vertices[2], 5);
  EXPECT_NEAR(c.weight, 0.5, 1e-12);
  EXPECT_NEAR(c.extra_weights[0], 0.5, 1e-12);
  EXPECT_NEAR(c.extra_weights[1], -0.5, 1e-12);
  EXPECT_NEAR(c.extra_weights[2], -0.5, 1e-12);
  EXPECT_EQ(c.obstacle, 1);
  // From B (body 1, above) into A (body 0, below): -z, and the gap is the 4 mm clearance.
  EXPECT_NEAR((c.normal + Vec3::UnitZ()).norm(), 0.0, 1e-12);
  EXPECT_NEAR(c.normal.dot(ContactPoint(c, mesh.vertices())), h, 1e-12);
}

// Self contact: a cube's own surface gives no pairs at rest (neighbours are excluded, the rest
// do not face each other or are beyond the proximity), while its vertices far from a face at rest
// pair with it once they come close: the apex/face pair of ApexOverFace as ONE body.
TEST(BodyContactTest, SelfContactExcludesRestNeighboursOnly) {
  const TetMesh cube = MakeTetBox(Vec3(0.05, 0.05, 0.05), 2, 2, 2).value();
  BodyContactOptions options;
  options.enabled = true;
  options.self_contact = true;
  options.self_exclusion_m = 0.011;
  auto detector = BodyContactDetector::Create(
      cube.surface(), std::vector<int32_t>(cube.num_vertices(), 0), options);
  ASSERT_TRUE(detector.ok()) << detector.status();
  std::vector<int32_t> free_index(cube.num_vertices());
  for (int v = 0; v < cube.num_vertices(); ++v) free_index[v] = v;
  std::vector<VertexContact> contacts;
  ASSERT_TRUE((*detector)->Detect(cube.vertices(), free_index, 0.01, &contacts).ok());
  EXPECT_TRUE(contacts.empty());

  // Two components of one body, 4 mm apart now; at rest (the detector's surface) 2.4 cm apart.
  Points3 rest = ApexOverFace();
  rest.bottomRows(4).col(2).array() += 0.02;
  const TetMesh at_rest = TwoTets(rest);
  detector = BodyContactDetector::Create(at_rest.surface(), std::vector<int32_t>(8, 0), options);
  ASSERT_TRUE(detector.ok()) << detector.status();
  contacts.clear();
  ASSERT_TRUE((*detector)->Detect(ApexOverFace(), kAllFree, 0.01, &contacts).ok());
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].vertex, 4);
  EXPECT_EQ(contacts[0].obstacle, 0);
  // With an exclusion above the rest distance the pair is a rest neighbour: no contact.
  options.self_exclusion_m = 0.03;
  detector = BodyContactDetector::Create(at_rest.surface(), std::vector<int32_t>(8, 0), options);
  ASSERT_TRUE(detector.ok());
  contacts.clear();
  ASSERT_TRUE((*detector)->Detect(ApexOverFace(), kAllFree, 0.01, &contacts).ok());
  EXPECT_TRUE(contacts.empty());
  options.self_exclusion_m = 0.0;
  auto bad = BodyContactDetector::Create(at_rest.surface(), std::vector<int32_t>(8, 0), options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("body_contact.self_exclusion_m"), std::string::npos);
}

// The warm start matches body-body contacts on all four vertices: a contact between the same
// vertex and a different triangle (a different third extra vertex) is a different contact.
TEST(BodyContactTest, WarmStartMatchesAllFourVertices) {
  const TetMesh mesh = TwoTets(ApexOverFace());
  const std::vector<VertexContact> previous = Detect(mesh, kBodies, kAllFree);
  ASSERT_EQ(previous.size(), 1u);
  const Eigen::Vector3d force(2.0, 0.1, -0.2);
  std::vector<VertexContact> current = {previous[0], previous[0]};
  current[1].extra_vertices[2] = 3;  // another triangle of body 0
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(6);
  WarmStartContactForces(previous, force, current, &lambda);
  EXPECT_EQ(lambda.head<3>(), force);  // same contact, same frame: carried exactly
  EXPECT_EQ(lambda.tail<3>().norm(), 0.0);
}

TEST(BodyContactTest, BadOptionsNameTheField) {
  const TetMesh mesh = TwoTets(ApexOverFace());
  BodyContactOptions options;
  options.enabled = true;
  options.friction_coefficient = -0.1;
  auto detector = BodyContactDetector::Create(mesh.surface(), kBodies, options);
  ASSERT_FALSE(detector.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(detector.status()));
  EXPECT_NE(detector.status().message().find("body_contact.friction_coefficient"),
            std::string::npos);
  options.friction_coefficient = 0.1;
  detector = BodyContactDetector::Create(mesh.surface(), {0, 1}, options);
  ASSERT_FALSE(detector.ok());
  EXPECT_NE(detector.status().message().find("vertex_body"), std::string::npos);

  // Through the solver: body contact needs the sparse inverse; an empty body list is refused.
  const Material material = MakeMaterial(MaterialModel::kArap, {1e6, 0.3, 1000.0}).value();
  LocalGlobalOptions solver_options;
  solver_options.body_contact.enabled = true;
  solver_options.global_step = GlobalStepKind::kCompleteSolve;
  auto solver = LocalGlobalSolver::Create({{mesh, material}}, 0.01, solver_options,
                                          std::make_shared<CpuBackend>());
  ASSERT_FALSE(solver.ok());
  EXPECT_NE(solver.status().message().find("options.body_contact"), std::string::npos)
      << solver.status();
  auto empty = LocalGlobalSolver::Create(std::vector<LocalGlobalBody>{}, 0.01, LocalGlobalOptions{},
                                         std::make_shared<CpuBackend>());
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("bodies"), std::string::npos);
  Material broken = material;
  broken.mu = 0.0;
  auto bad_material =
      LocalGlobalSolver::Create({{mesh, material}, {mesh, broken}}, 0.01, LocalGlobalOptions{},
                                std::make_shared<CpuBackend>());
  ASSERT_FALSE(bad_material.ok());
  EXPECT_EQ(bad_material.status().message().rfind("bodies[1].material.mu", 0), 0u)
      << bad_material.status();
}

// Several bodies in one system without contact: Abar is block diagonal and each body runs its
// local steps with its own material, so every body must move exactly as it does alone (same
// mesh, material, options; differences are round-off of the solves: 1e-12 m asked).
TEST(MultiBodySolverTest, BodiesMoveAsAloneWithTheirOwnMaterials) {
  const TetMesh box = MakeTetBox(Vec3(0.05, 0.05, 0.05), 2, 2, 2).value();
  Points3 stretched = box.vertices();
  stretched.col(0) *= 1.2;  // body a starts stretched: the elastic terms act
  const TetMesh& a = box;
  const TetMesh b =
      TetMesh::Create(box.vertices().rowwise() + Vec3(0.3, 0, 0).transpose(), box.tets()).value();
  const Material stiff = MakeMaterial(MaterialModel::kNeoHookean, {1e6, 0.3, 1000.0}).value();
  const Material soft = MakeMaterial(MaterialModel::kArap, {2e4, 0.1, 10.0}).value();
  LocalGlobalOptions options;
  options.iterations = 5;
  auto both = LocalGlobalSolver::Create({{a, stiff}, {b, soft}}, 0.01, options,
                                        std::make_shared<CpuBackend>());
  ASSERT_TRUE(both.ok()) << both.status();
  auto alone_a = LocalGlobalSolver::Create(a, stiff, 0.01, options, std::make_shared<CpuBackend>());
  auto alone_b = LocalGlobalSolver::Create(b, soft, 0.01, options, std::make_shared<CpuBackend>());
  ASSERT_TRUE(alone_a.ok() && alone_b.ok());
  const int na = a.num_vertices();
  ASSERT_EQ((*both)->num_bodies(), 2);
  EXPECT_EQ((*both)->body_vertex_offset(1), na);
  EXPECT_EQ((*both)->body_vertex_offset(2), 2 * na);
  EXPECT_EQ((*both)->vertex_body()[na - 1], 0);
  EXPECT_EQ((*both)->vertex_body()[na], 1);
  // Lumped masses rho V per body: 1 kg and 0.01 kg.
  EXPECT_NEAR((*both)->lumped_mass_kg().head(na).sum(), 1.0, 1e-12);
  EXPECT_NEAR((*both)->lumped_mass_kg().tail(na).sum(), 10.0 * 1e-3, 1e-15);

  Points3 x(2 * na, 3);
  x << stretched, b.vertices();
  Points3 gravity = Points3::Zero(2 * na, 3);
  gravity.col(2) = -9.81 * (*both)->lumped_mass_kg();
  LocalGlobalState joint{x, Points3::Zero(2 * na, 3)};
  LocalGlobalState state_a{stretched, Points3::Zero(na, 3)};
  LocalGlobalState state_b{b.vertices(), Points3::Zero(na, 3)};
  for (int step = 0; step < 10; ++step) {
    ASSERT_TRUE((*both)->Step(gravity, &joint).ok());
    ASSERT_TRUE((*alone_a)->Step(gravity.topRows(na), &state_a).ok());
    ASSERT_TRUE((*alone_b)->Step(gravity.bottomRows(na), &state_b).ok());
  }
  EXPECT_LT((joint.x_m.topRows(na) - state_a.x_m).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((joint.x_m.bottomRows(na) - state_b.x_m).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_GT((state_a.x_m - stretched).cwiseAbs().maxCoeff(), 1e-3);  // it did move
  // Energy per element group with its material: the stretched start, body b at rest.
  const double energy = (*both)->ElasticEnergy(x);
  EXPECT_GT(energy, 1.0);
  EXPECT_NEAR(energy,
              (*alone_a)->ElasticEnergy(stretched) + (*alone_b)->ElasticEnergy(b.vertices()),
              1e-12 * energy);
}

}  // namespace
}  // namespace contactsim::core
