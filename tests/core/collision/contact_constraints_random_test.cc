// PEG's constraints as a time stepper uses them: (1) the contract of potential-contact
// identification carried through the constraint stage — random bodies approaching each other are
// stopped before they overlap; (2) the slack chain of an I-constraint (notes §4.1) encodes
// max(psi_p, psi_s...) >= 0 at the velocity level, checked on the constraints of the trap scenes
// by solving the small LCP with the library's own solver chain.
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "core/collision/polytope/contact_constraints.h"
#include "core/collision/polytope/posed_polytope.h"
#include "core/contact/complementarity/lcp_solver_chain.h"
#include "core/geometry/polytope_hull.h"
#include "core/geometry/polytope_intersection.h"
#include "core/geometry/polytope_primitives.h"
#include "gtest/gtest.h"
#include "scenes/rigid_lcp/trap_scenes.h"
#include "tests/core/collision/random_polytopes.h"

namespace contactsim::core {
namespace {

using testing_polytopes::RandomBody;
using testing_polytopes::RandomRotation;

// The gap of c after body A (index 0) translates by d_a: plane and line gaps are linear in a
// translation, psi' = psi + n . (D2 - D1).
double GapAfter(const PotentialContact& c, const Vec3& d_a) {
  return c.gap_m + (c.body1 == 0 ? -1.0 : 1.0) * c.normal_W.dot(d_a);
}

double ConstraintGapAfter(const ContactConstraintGeometry& g, const Vec3& d_a) {
  double gap = GapAfter(g.primary, d_a);
  for (const PotentialContact& s : g.secondaries) gap = std::max(gap, GapAfter(s, d_a));
  return gap;
}

// The variants compared: the standard model, PEG as built here, PEG as the authors' code
// (primary rule and the two vertex departures off, docs/rigid_lcp.md).
struct Variant {
  const char* name;
  PolytopeContactModel model;
  bool authors;
};
constexpr Variant kVariants[] = {{"standard", PolytopeContactModel::kStandard, false},
                                 {"peg", PolytopeContactModel::kPeg, false},
                                 {"peg_authors", PolytopeContactModel::kPeg, true}};

TEST(ContactConstraintsRandomTest, ApproachingBodiesAreStoppedBeforeTheyOverlap) {
  // As PotentialContactsRandomTest: 200 pairs of the random bodies approach by pure
  // translation in 1 mm steps; at the last configuration before they overlap (exact intersection
  // volume), with max_gap_m = 2 mm and 10 mm, each model must give a constraint that holds now
  // (max psi >= 0) and forbids the next, overlapping, configuration (max psi' < 0 after the 1 mm
  // step): otherwise the step's LCP would let the bodies overlap.
  //
  // And where they do not overlap, a constraint that is violated already (max psi < 0) pushes the
  // bodies apart for nothing, the standard-model trap: PEG must leave fewer of these than the
  // standard model. The counts are printed (docs/rigid_lcp.md quotes them).
  std::mt19937_64 rng(42);
  std::normal_distribution<double> normal;
  constexpr double kStep_m = 0.001;
  constexpr double kMaxGaps_m[] = {0.002, 0.010};
  int constraints_made[2][3] = {}, intercontact[2][3] = {}, violated[2][3] = {}, missed[2][3] = {};
  for (int trial = 0; trial < 200; ++trial) {
    const ConvexPolytope a_shape = RandomBody(rng);
    const ConvexPolytope b_shape = RandomBody(rng);
    const Mat3 R_a = RandomRotation(rng), R_b = RandomRotation(rng);
    const Vec3 direction = Vec3(normal(rng), normal(rng), normal(rng)).normalized();
    const ConvexPolytope b = b_shape.Transformed(R_b, Vec3::Zero());
    int k = 0;
    const auto a_at = [&](int step) {
      return a_shape.Transformed(R_a, (-0.15 + step * kStep_m) * direction);
    };
    // Overlap counted above 1e-18 m^3: the clipping's rounding on touching bodies is far below.
    while (IntersectionVolume(a_at(k + 1), b) <= 1e-18) ++k;
    ASSERT_LT(k, 150) << trial;
    const PosedPolytope a(a_shape, R_a, (-0.15 + k * kStep_m) * direction);
    const PosedPolytope posed_b(b_shape, R_b, Vec3::Zero());
    for (int gi = 0; gi < 2; ++gi) {
      for (int vi = 0; vi < 3; ++vi) {
        const Variant& variant = kVariants[vi];
        ContactConstraintOptions options;
        options.potential.max_gap_m = kMaxGaps_m[gi];
        if (variant.authors) {
          options.primary_rule = PegPrimaryRule::kAuthorsCode;
          options.vertex_vertex_all_corner_faces = false;
          options.vertex_all_feasible_faces = false;
          options.crossing_edges_near_ends = false;
        }
        std::vector<ContactConstraintGeometry> constraints;
        ContactConstraintStats stats;
        MakeContactConstraints(variant.model, a, posed_b, options, &constraints, &stats);
        const bool stopped =
            std::any_of(constraints.begin(), constraints.end(), [&](const auto& g) {
              return ConstraintGap(g) >= -1e-12 && ConstraintGapAfter(g, kStep_m * direction) < 0.0;
            });
        // The authors' variant is measured, not held to the contract: it drops the edge–edge
        // pairs near the edges' ends and misses some (docs/rigid_lcp.md).
        if (!variant.authors) {
          EXPECT_TRUE(stopped) << "trial " << trial << " " << variant.name << " max_gap "
                               << kMaxGaps_m[gi] << ": " << constraints.size() << " constraints";
        }
        missed[gi][vi] += !stopped;
        constraints_made[gi][vi] += static_cast<int>(constraints.size());
        intercontact[gi][vi] += stats.intercontact();
        for (const auto& g : constraints) {
          // 1e-9 m: far above the rounding of gaps of a few mm, far below the trap's mm.
          violated[gi][vi] += ConstraintGap(g) < -1e-9;
        }
      }
    }
  }
  for (int gi = 0; gi < 2; ++gi) {
    for (int vi = 0; vi < 3; ++vi) {
      std::printf(
          "max_gap %.3f m, %-11s: %4d constraints (%4d I), %3d violated at a free pose, %d of 200 "
          "approaches not stopped\n",
          kMaxGaps_m[gi], kVariants[vi].name, constraints_made[gi][vi], intercontact[gi][vi],
          violated[gi][vi], missed[gi][vi]);
    }
    EXPECT_LT(violated[gi][1], violated[gi][0]);
    EXPECT_LE(violated[gi][1], violated[gi][2]);
  }
}

// One I-constraint (or a U) on a particle: body A reduced to its translation, mass m, B fixed.
// With J_i the row of contact i (psi_i' = J_i . v_A: -n for body1 = A, +n for body1 = B),
// nu+ = v~ + J_p lambda / m and the slack chain of notes §4.5, z = [lambda, c_1..c_k]:
//   w_lambda = J_p . nu+ + psi_p / h + sum_j c_j
//   w_cj     = (J_p - J_sj) . nu+ + (psi_p - psi_sj) / h + sum_{i <= j} c_i.
struct ChainAnswer {
  bool solved = false;
  double lambda = 0.0;
  double slack_sum = 0.0;
  std::vector<double> gaps_after;  // psi_i + h J_i . nu+, primary first
};

ChainAnswer SolveChain(const ContactConstraintGeometry& g, const Vec3& free_velocity, double mass,
                       double h) {
  std::vector<const PotentialContact*> contacts = {&g.primary};
  for (const PotentialContact& s : g.secondaries) contacts.push_back(&s);
  const auto row = [](const PotentialContact& c) {
    return Vec3((c.body1 == 0 ? -1.0 : 1.0) * c.normal_W);
  };
  const int k = static_cast<int>(g.secondaries.size());
  const Vec3 jp = row(g.primary);
  LcpProblem problem;
  problem.m = Eigen::MatrixXd::Zero(k + 1, k + 1);
  problem.q = Eigen::VectorXd::Zero(k + 1);
  problem.m(0, 0) = jp.dot(jp) / mass;
  problem.q(0) = jp.dot(free_velocity) + g.primary.gap_m / h;
  for (int j = 1; j <= k; ++j) {
    const Vec3 js = row(g.secondaries[j - 1]);
    problem.m(0, j) = 1.0;
    problem.m(j, 0) = (jp - js).dot(jp) / mass;
    for (int i = 1; i <= j; ++i) problem.m(j, i) = 1.0;
    problem.q(j) =
        (jp - js).dot(free_velocity) + (g.primary.gap_m - g.secondaries[j - 1].gap_m) / h;
  }
  ChainAnswer answer;
  auto result = SolveLcpWithFallback(problem);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok() || !result->solved) return answer;
  const Eigen::VectorXd& z = result->solution.z;
  answer.solved = true;
  answer.lambda = z(0);
  answer.slack_sum = z.tail(k).sum();
  const Vec3 velocity = free_velocity + jp * z(0) / mass;
  for (const PotentialContact* c : contacts) {
    answer.gaps_after.push_back(c->gap_m + h * row(*c).dot(velocity));
  }
  return answer;
}

// The chain's meaning at the solution: psi_p+ + sum c = max_i psi_i+ (notes §4.1, by induction),
// max >= 0, and lambda > 0 only where max = 0. 1e-9 m: the LCP's acceptance (1e-10 relative) on
// gaps of a few mm after a step of 10 ms at speeds of 1 m/s.
void ExpectChainMeansMax(const ChainAnswer& answer, double h) {
  ASSERT_TRUE(answer.solved);
  const double max_gap = *std::max_element(answer.gaps_after.begin(), answer.gaps_after.end());
  EXPECT_NEAR(answer.gaps_after[0] + h * answer.slack_sum, max_gap, 1e-9);
  EXPECT_GE(max_gap, -1e-9);
  EXPECT_GE(answer.lambda, -1e-12);
  if (answer.lambda > 1e-9) {
    EXPECT_NEAR(max_gap, 0.0, 1e-9);
  }
}

const ContactConstraintGeometry& FirstOfRule(const std::vector<ContactConstraintGeometry>& all,
                                             ContactConstraintRule rule) {
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const auto& g) { return g.rule == rule; });
  EXPECT_NE(it, all.end());
  return *it;
}

TEST(ContactConstraintsRandomTest, SlackChainEncodesTheMaxOfTheGaps) {
  // The vertex–edge I of the vertex entering the corner (gaps 2 mm to the top and the side face),
  // with the octahedron as a 1 kg particle and h = 10 ms:
  //   falling straight down at 1 m/s, v passes beside the side face: no impulse, nu+ = v~;
  //   moving into the corner along the bisector at 1 m/s: stopped, max(psi+) = 0, lambda > 0;
  // and 200 random free velocities (|v~| <= 2 m/s): every solved chain means the max.
  constexpr double kStep_s = 0.01;
  const scenes::TrapScene scene = scenes::VertexEnteringCornerScene(0.002);
  const PosedPolytope a(scene.bodies[1].shape, scene.bodies[1].R_WB, scene.bodies[1].p_WB);
  const PosedPolytope b(scene.bodies[0].shape, scene.bodies[0].R_WB, scene.bodies[0].p_WB);
  std::vector<ContactConstraintGeometry> peg;
  MakeContactConstraints(PolytopeContactModel::kPeg, a, b, {}, &peg);
  const ContactConstraintGeometry& corner =
      FirstOfRule(peg, ContactConstraintRule::kVertexEdgeIntercontact);

  const ChainAnswer fall = SolveChain(corner, Vec3(0, 0, -1), 1.0, kStep_s);
  ExpectChainMeansMax(fall, kStep_s);
  EXPECT_NEAR(fall.lambda, 0.0, 1e-12);
  const ChainAnswer into = SolveChain(corner, Vec3(-1, 0, -1).normalized(), 1.0, kStep_s);
  ExpectChainMeansMax(into, kStep_s);
  EXPECT_GT(into.lambda, 0.0);
  EXPECT_NEAR(*std::max_element(into.gaps_after.begin(), into.gaps_after.end()), 0.0, 1e-9);

  // Two secondaries: the vertex–vertex I of two cubes on their corners, 1 mm apart (as in
  // CornerOnCornerGivesOneIntercontactPerSide); its chain has the 2 x 2 lower-triangular block.
  const ConvexPolytope cube = *MakeBoxPolytope(Vec3(0.5, 0.5, 0.5));
  const double half_diagonal = 0.5 * std::sqrt(3.0);
  const PosedPolytope upper(cube,
                            Mat3(Eigen::Quaterniond::FromTwoVectors(Vec3(1, 1, 1), -Vec3::UnitZ())),
                            Vec3(0, 0, 0.001 + half_diagonal));
  const PosedPolytope lower(cube,
                            Mat3(Eigen::Quaterniond::FromTwoVectors(Vec3(1, 1, 1), Vec3::UnitZ())),
                            Vec3(0, 0, -half_diagonal));
  std::vector<ContactConstraintGeometry> corners;
  MakeContactConstraints(PolytopeContactModel::kPeg, upper, lower, {}, &corners);
  ASSERT_EQ(corners.size(), 2u);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> speed(-2.0, 2.0);
  int solved = 0, tried = 0;
  for (const ContactConstraintGeometry* g :
       std::vector<const ContactConstraintGeometry*>{&corner, &corners[0], &corners[1]}) {
    for (int i = 0; i < 200; ++i) {
      const Vec3 v(speed(rng), speed(rng), speed(rng));
      const ChainAnswer answer = SolveChain(*g, v, 1.0, kStep_s);
      ++tried;
      if (!answer.solved) continue;
      ++solved;
      ExpectChainMeansMax(answer, kStep_s);
    }
  }
  EXPECT_EQ(solved, tried);
}

}  // namespace
}  // namespace contactsim::core
