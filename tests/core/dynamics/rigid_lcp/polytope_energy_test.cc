// The rigid_lcp step's energy test (polytope_stepper.h, energy_check; docs/rigid_lcp.md
// "Energy"): two spinning random hulls of the 3D pour (bodies 10 and 28 of
// clients/python/examples/pour.py at step 911, h = 4 ms, PEG, mu 1, 8 cone edges, 2 projection
// passes) on the container's floor. Lemke solves their island's LCP exactly with an answer that
// creates energy: a crossing-edge U whose line gap is -17.8 mm while the hulls do not overlap asks
// for 4.4 m/s of separation and takes 24 N s. The test refuses that answer; the step then takes
// one that does not create energy, and the hulls stay apart.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/collision/polytope/penetration_bound.h"
#include "core/collision/polytope/posed_polytope.h"
#include "core/dynamics/rigid_body.h"
#include "core/dynamics/rigid_lcp/polytope_stepper.h"
#include "core/geometry/polytope_hull.h"
#include "core/geometry/polytope_intersection.h"
#include "core/geometry/polytope_primitives.h"
#include "core/geometry/polytope_union.h"
#include "core/geometry/polytope_union_mesh.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {
namespace {

struct HullBody {
  double mass_kg;
  Vec3 p;
  Eigen::Quaterniond q;  // (w, x, y, z)
  Vec3 v;
  Vec3 w;
  double inertia[6];           // xx, yy, zz, xy, xz, yz about the centre of mass [kg m^2]
  std::vector<Vec3> vertices;  // body frame [m]
  std::vector<Eigen::Vector3i> triangles;
};

// Printed with %.17g from the World at step 911 (bit-exact doubles).
const HullBody kBody10 = {
    0.10000000000000001,
    Vec3(0.051075192997031893, -0.012075570708784414, 0.017912343798862709),
    Eigen::Quaterniond(-0.5081571525942703, 0.12220672501403296, 0.73360362769394682,
                       0.43435877113615318),
    Vec3(-0.07353813198766819, 0.058964857368478799, 0.16991819673083661),
    Vec3(-2.3643390021216666, -10.986090367735603, 2.7803347973255228),
    {5.2054639535304041e-05, 4.8251784864611673e-05, 2.2356300442678156e-05, 1.7283891859521892e-06,
     -2.0056548232198328e-06, -1.6634842663262946e-06},
    {Vec3(0.0085458395309371306, -0.035582971739374435, -0.008211652972243369),
     Vec3(0.017257050628434814, 0.024430368560166661, -0.032116003901664171),
     Vec3(-0.0018493018283839285, 0.0012154225932647614, 0.040706610334022779),
     Vec3(-0.026505702769576419, 0.013002316194199681, 0.0081701429913262937),
     Vec3(-0.023270112956373521, 0.0114798551367595, 0.037421302258761557),
     Vec3(0.017791418414832876, -0.015613968809441348, 0.037305049036152275),
     Vec3(0.012557832543454533, 0.011597216193286351, 0.047433138476286926),
     Vec3(-0.00028059900317330827, -0.032715249958376817, -0.033234809861668303),
     Vec3(-0.022150728992713038, 0.0099365003529603788, -0.035524307165920546)},
    {Eigen::Vector3i(5, 0, 1), Eigen::Vector3i(1, 8, 3), Eigen::Vector3i(1, 6, 5),
     Eigen::Vector3i(0, 7, 1), Eigen::Vector3i(1, 7, 8), Eigen::Vector3i(8, 7, 3),
     Eigen::Vector3i(5, 4, 0), Eigen::Vector3i(3, 4, 1), Eigen::Vector3i(1, 4, 6),
     Eigen::Vector3i(7, 4, 3), Eigen::Vector3i(0, 4, 7), Eigen::Vector3i(6, 2, 5),
     Eigen::Vector3i(5, 2, 4), Eigen::Vector3i(4, 2, 6)}};
const HullBody kBody28 = {
    0.10000000000000001,
    Vec3(-0.012067997285031362, -0.010145495813021542, 0.036442561703614734),
    Eigen::Quaterniond(0.097594358304950196, -0.33367199587292512, 0.62264515381995666,
                       -0.70103591407412669),
    Vec3(-0.93380545858232811, -0.70902909570944017, -1.9068022744946185),
    Vec3(18.069090087796837, -24.375990443050455, -0.53768998463167739),
    {4.2048621233318552e-05, 5.0402388225790514e-05, 3.5291508779020905e-05, 8.1138566324567025e-09,
     -6.8732817000229199e-06, 3.3466271930688419e-06},
    {Vec3(0.029024815796555081, 0.011242975241335329, -0.0069145759744835998),
     Vec3(0.028376837553036993, -0.026020241193266395, 0.011761359849689332),
     Vec3(-0.0016673814294777692, -0.0058723023517153333, -0.050544302120837832),
     Vec3(0.0070619756555158116, 0.041194851078047469, 0.005195771905158705),
     Vec3(-0.034015859806025887, -0.0015714889079770054, -0.031248841845609686),
     Vec3(0.028932286938103343, -0.019443564567008076, 0.029869182854878093),
     Vec3(-0.0061890525058805193, -0.013628552768838356, 0.043109716986081813),
     Vec3(-0.046003375316211223, -0.010519170274685083, -0.0038413515606652566),
     Vec3(0.025878439151311938, -0.017280603527614465, 0.03779450902498642)},
    {Eigen::Vector3i(7, 2, 1), Eigen::Vector3i(1, 2, 0), Eigen::Vector3i(1, 6, 7),
     Eigen::Vector3i(7, 4, 2), Eigen::Vector3i(1, 8, 6), Eigen::Vector3i(0, 5, 1),
     Eigen::Vector3i(8, 5, 0), Eigen::Vector3i(1, 5, 8), Eigen::Vector3i(0, 3, 8),
     Eigen::Vector3i(8, 3, 6), Eigen::Vector3i(6, 3, 7), Eigen::Vector3i(7, 3, 4),
     Eigen::Vector3i(2, 3, 0), Eigen::Vector3i(4, 3, 2)}};

constexpr double kH = 0.004;

double KineticEnergy(const PolytopeBodyInput& body, const RigidBodyState& s) {
  const Mat3 r = s.q_WB.normalized().toRotationMatrix();
  const Mat3 inertia_w = r * body.inertia_body_kg_m2 * r.transpose();
  return 0.5 * body.mass_kg * s.v_WB_m_per_s.squaredNorm() +
         0.5 * s.w_WB_rad_per_s.dot(inertia_w * s.w_WB_rad_per_s);
}

ConvexPolytope WorldHull(const PolytopeUnion& shape, const RigidBodyState& s) {
  const Points3& x = shape.piece(0).vertices();
  const Mat3 r = s.q_WB.normalized().toRotationMatrix();
  Points3 world = (x * r.transpose()).rowwise() + s.p_WB_m.transpose();
  absl::StatusOr<ConvexPolytope> hull = ConvexHull(world);
  EXPECT_TRUE(hull.ok()) << hull.status();
  return *std::move(hull);
}

class PolytopeEnergyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<PolytopeUnion> container = MakeOpenBoxContainer(0.3, 0.5, 0.1);
    ASSERT_TRUE(container.ok()) << container.status();
    container_ = std::make_unique<PolytopeUnion>(*std::move(container));
    bodies_.resize(3);
    bodies_[0].shape = container_.get();
    bodies_[0].kind = RigidBodyKind::kStatic;
    for (int i = 0; i < 2; ++i) {
      const HullBody& b = i == 0 ? kBody10 : kBody28;
      Points3 vertices(b.vertices.size(), 3);
      for (size_t k = 0; k < b.vertices.size(); ++k) vertices.row(k) = b.vertices[k].transpose();
      IndexTriples triangles(b.triangles.size(), 3);
      for (size_t k = 0; k < b.triangles.size(); ++k) {
        triangles.row(k) = b.triangles[k].transpose();
      }
      absl::StatusOr<TriangleMesh> mesh = TriangleMesh::Create(vertices, triangles);
      ASSERT_TRUE(mesh.ok()) << mesh.status();
      absl::StatusOr<PolytopeUnion> shape = UnionOfConvexComponents(*mesh, vertices, 1e-9);
      ASSERT_TRUE(shape.ok()) << shape.status();
      hulls_[i] = std::make_unique<PolytopeUnion>(*std::move(shape));
      PolytopeBodyInput& body = bodies_[i + 1];
      body.shape = hulls_[i].get();
      body.mass_kg = b.mass_kg;
      Mat3 inertia;
      inertia << b.inertia[0], b.inertia[3], b.inertia[4], b.inertia[3], b.inertia[1], b.inertia[5],
          b.inertia[4], b.inertia[5], b.inertia[2];
      body.inertia_body_kg_m2 = inertia;
      body.state.p_WB_m = b.p;
      body.state.q_WB = b.q;
      body.state.v_WB_m_per_s = b.v;
      body.state.w_WB_rad_per_s = b.w;
    }
    settings_.dt_s = kH;
    settings_.model = PolytopeContactModel::kPeg;
    settings_.friction_coefficient = 1.0;
    settings_.friction_directions = 8;
    settings_.projection_passes = 2;
  }

  // The hulls' kinetic energy in the free motion (gravity only) and after the step.
  double FreeEnergy() const {
    double e = 0.0;
    for (int i = 1; i < 3; ++i) {
      RigidBodyState s = bodies_[i].state;
      s.v_WB_m_per_s += kH * settings_.gravity_m_per_s2;
      e += KineticEnergy(bodies_[i], s);
    }
    return e;
  }
  double EnergyAfter(const PolytopeStepResult& r) const {
    return KineticEnergy(bodies_[1], r.next[1]) + KineticEnergy(bodies_[2], r.next[2]);
  }
  double OverlapAfter(const PolytopeStepResult& r) const {
    return IntersectionVolume(WorldHull(*hulls_[0], r.next[1]), WorldHull(*hulls_[1], r.next[2]));
  }

  std::unique_ptr<PolytopeUnion> container_;
  std::unique_ptr<PolytopeUnion> hulls_[2];
  std::vector<PolytopeBodyInput> bodies_;
  PolytopeStepSettings settings_;
};

TEST_F(PolytopeEnergyTest, TheHullsDoNotOverlapAtTheStart) {
  const PolytopeStepResult start{.next = {bodies_[0].state, bodies_[1].state, bodies_[2].state}};
  EXPECT_EQ(OverlapAfter(start), 0.0);
  PosedPolytope a(hulls_[0]->piece(0), bodies_[1].state.q_WB.toRotationMatrix(),
                  bodies_[1].state.p_WB_m);
  PosedPolytope b(hulls_[1]->piece(0), bodies_[2].state.q_WB.toRotationMatrix(),
                  bodies_[2].state.p_WB_m);
  // No face plane separates them (an edge pair's axis does), so the face-axis bound is not 0:
  // measured 1.78 mm, a tenth of the crossing-edge U's -17.8 mm gap, which the energy test
  // therefore counts for 1.78 mm / h of separation only.
  const double bound = FaceAxisPenetrationBound(a, b);
  EXPECT_GT(bound, 0.0);
  EXPECT_LT(bound, 0.002);
}

TEST_F(PolytopeEnergyTest, WithoutTheTestLemkesExactAnswerCreatesEnergy) {
  settings_.energy_check = false;
  PolytopeStepResult result;
  ASSERT_TRUE(StepPolytopes(bodies_, {}, settings_, &result).ok());
  const double free = FreeEnergy(), after = EnergyAfter(result);
  std::printf("without the test: free %.4g J, after %.4g J, overlap %.3g m^3\n", free, after,
              OverlapAfter(result));
  // Measured 0.278 J -> 15.7 J (56x) and 5.7e-7 m^3 of overlap (the session's divergence check
  // trips at 10x; 15.2 J in the session, whose container is one body of five hulls): the bug.
  EXPECT_GT(after, 10.0 * free);
  EXPECT_GT(OverlapAfter(result), 1e-7);
}

TEST_F(PolytopeEnergyTest, TheStepRefusesItAndCreatesNoEnergy) {
  PolytopeStepResult result;
  const absl::Status status = StepPolytopes(bodies_, {}, settings_, &result);
  ASSERT_TRUE(status.ok()) << status;
  const double free = FreeEnergy(), after = EnergyAfter(result);
  std::printf(
      "with the test: free %.4g J, after %.4g J, overlap %.3g m^3, refused %d, "
      "uncorrected islands %d\n",
      free, after, OverlapAfter(result), result.stats.energy_rejections,
      result.stats.uncorrected_islands);
  EXPECT_GE(result.stats.energy_rejections, 1);
  // The accepted answer (the retry without correction: 5 answers refused, measured 0.0067 J
  // after) may add no kinetic energy against a static container beyond the test's round-off.
  EXPECT_LE(after, free * (1.0 + 1e-9));
  EXPECT_EQ(OverlapAfter(result), 0.0);
}

TEST_F(PolytopeEnergyTest, WithoutARetryTheStepFailsNamingTheIslandAndTheEnergy) {
  settings_.retry_without_correction = false;
  PolytopeStepResult result;
  const absl::Status status = StepPolytopes(bodies_, {}, settings_, &result);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_NE(status.message().find("bodies 1 2"), std::string::npos) << status;
  EXPECT_NE(status.message().find("refused as creating energy"), std::string::npos) << status;
  EXPECT_NE(status.message().find("kinetic energy"), std::string::npos) << status;
}

// The bound on cubes whose overlap is known: 0.1 m cubes overlapping by 3 mm along x (the
// face-axis bound is then the exact penetration depth), touching, and apart.
TEST(FaceAxisPenetrationBoundTest, CubesOverlappingTouchingAndApart) {
  absl::StatusOr<ConvexPolytope> cube = MakeBoxPolytope(Vec3::Constant(0.05));
  ASSERT_TRUE(cube.ok()) << cube.status();
  const Mat3 r = Mat3::Identity();
  PosedPolytope a(*cube, r, Vec3::Zero());
  EXPECT_NEAR(FaceAxisPenetrationBound(a, PosedPolytope(*cube, r, Vec3(0.097, 0.0, 0.0))), 0.003,
              1e-15);
  EXPECT_NEAR(FaceAxisPenetrationBound(a, PosedPolytope(*cube, r, Vec3(0.097, 0.099, 0.0))), 0.001,
              1e-15);
  EXPECT_EQ(FaceAxisPenetrationBound(a, PosedPolytope(*cube, r, Vec3(0.1, 0.0, 0.0))), 0.0);
  EXPECT_EQ(FaceAxisPenetrationBound(a, PosedPolytope(*cube, r, Vec3(0.2, 0.05, 0.0))), 0.0);
}

}  // namespace
}  // namespace contactsim::core
