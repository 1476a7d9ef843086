// CCD with the pair's penetration from one root set (core/collision/ccd/ccd_penetration.h,
// PenetrationAtContact in penetration_intervals.h) against the three searches it replaces:
// VertexFaceCcd / EdgeEdgeCcd, then PenetratingSign and PenetrationIntervalsOf on the depth cubic.
#include "core/collision/ccd/ccd_penetration.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/collision/ccd/coplanarity_fast_path.h"
#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/vertex_face.h"
#include "scenes/testbeds/ccd_random_generators.h"
#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::core {
namespace {

using testing::MakeTrajectory;

// Interval ends are cubic roots bracketed on [0, 1] here and on [toi, 1] by the old path: the
// same root to a few ulps.
constexpr double kTimeAccuracy = 1e-12;

struct Agreement {
  int collisions = 0;      // pairs CCD reported colliding
  int shared_roots = 0;    // ... whose penetration reused the fast path's roots
  int with_intervals = 0;  // ... with at least one penetration interval
  int two_intervals = 0;   // ... with two
};

// The combined query equals the three-search chain: the same CCD answer bit for bit, the same
// sign, the same number of intervals, and ends within kTimeAccuracy.
void ExpectAgreesWithThreeSearches(bool vertex_face, const PairTrajectory& x,
                                   const CcdOptions& options, Agreement* agreement,
                                   const std::string& context) {
  SCOPED_TRACE(context);
  const CcdPenetration got =
      vertex_face ? VertexFaceCcdPenetration(x, options) : EdgeEdgeCcdPenetration(x, options);
  const CcdResult ccd = vertex_face ? VertexFaceCcd(x, options) : EdgeEdgeCcd(x, options);
  ASSERT_EQ(got.ccd.collides, ccd.collides);
  EXPECT_EQ(got.ccd.toi, ccd.toi);
  EXPECT_EQ(got.ccd.weights, ccd.weights);
  EXPECT_EQ(got.ccd.status, ccd.status);
  EXPECT_EQ(got.ccd.iterations, ccd.iterations);
  if (!ccd.collides || ccd.status == CcdStatus::kInvalidInput) {
    EXPECT_EQ(got.penetration.penetrating_sign, 0.0);
    EXPECT_EQ(got.penetration.intervals.count, 0);
    return;
  }
  ++agreement->collisions;
  internal::CoplanarityRoots roots;
  if (vertex_face) {
    internal::VertexFaceCcdKeepingRoots(x, options, &roots);
  } else {
    internal::EdgeEdgeCcdKeepingRoots(x, options, &roots);
  }
  if (roots.found) ++agreement->shared_roots;

  const CubicPolynomial depth =
      vertex_face ? VertexFacePenetrationDepth(x) : EdgeEdgePenetrationDepth(x);
  const double sign = PenetratingSign(depth, ccd.toi);
  ASSERT_EQ(got.penetration.penetrating_sign, sign);
  const PenetrationIntervals expected = PenetrationIntervalsOf(depth, sign, ccd.toi);
  const PenetrationIntervals& intervals = got.penetration.intervals;
  ASSERT_EQ(intervals.count, expected.count);
  for (int i = 0; i < expected.count; ++i) {
    EXPECT_NEAR(intervals.intervals[i].t_a, expected.intervals[i].t_a, kTimeAccuracy);
    EXPECT_NEAR(intervals.intervals[i].t_b, expected.intervals[i].t_b, kTimeAccuracy);
    EXPECT_LE(intervals.intervals[i].t_a, intervals.intervals[i].t_b);
  }
  if (expected.count > 0) ++agreement->with_intervals;
  if (expected.count > 1) ++agreement->two_intervals;
}

TEST(CcdPenetrationTest, AgreesWithThreeSearchesOnRandomPairs) {
  // The property test's family mix (generic, near contact, nearly degenerate: coplanar, parallel
  // edges, zero-area triangles, collinear; touching at t = 0 or t = 1), at d = 0 where the fast
  // path keeps its roots and at d > 0 where the depth cubic's roots are found once here.
  for (const bool vertex_face : {true, false}) {
    for (const double d : {0.0, 1e-3}) {
      testing::TrajectoryGenerator generator(vertex_face ? 11 : 12);
      const CcdOptions options{.min_separation_m = d};
      Agreement agreement;
      for (int trial = 0; trial < 4000; ++trial) {
        ExpectAgreesWithThreeSearches(vertex_face, generator.Mixed(vertex_face, 1e-3), options,
                                      &agreement,
                                      (vertex_face ? "VF" : "EE") + std::string(" d = ") +
                                          std::to_string(d) + " trial " + std::to_string(trial));
        if (::testing::Test::HasFatalFailure()) return;
      }
      // The comparison must have seen colliding, penetrating and twice-penetrating pairs, and at
      // d = 0 the shared roots on most of them.
      EXPECT_GT(agreement.collisions, 400);
      EXPECT_GT(agreement.with_intervals, 200);
      EXPECT_GT(agreement.two_intervals, 0);
      if (d == 0.0) {
        EXPECT_GT(agreement.shared_roots, agreement.collisions / 2);
      } else {
        EXPECT_EQ(agreement.shared_roots, 0);
      }
    }
  }
}

TEST(CcdPenetrationTest, AgreesOnDegenerateFamilies) {
  // Each degenerate family on its own, so none is drowned out by the generic pairs.
  for (const bool vertex_face : {true, false}) {
    testing::TrajectoryGenerator generator(vertex_face ? 21 : 22);
    Agreement agreement;
    for (int trial = 0; trial < 1500; ++trial) {
      const std::string kind = vertex_face ? "VF" : "EE";
      ExpectAgreesWithThreeSearches(vertex_face, generator.NearlyDegenerate(vertex_face, 0.0), {},
                                    &agreement, kind + " degenerate " + std::to_string(trial));
      ExpectAgreesWithThreeSearches(vertex_face, generator.Touching(vertex_face), {}, &agreement,
                                    kind + " touching " + std::to_string(trial));
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(agreement.collisions, 300);
  }
}

// As in penetration_intervals_test.cc: a static vertex (0.3, 0.1, z_p) and a sliding, tilting
// triangle; the vertex is on the triangle's plane where 1.4 t^2 - 0.5 t + (z_p / k - 0.1) = 0.
PairTrajectory TiltingTriangle(double z_p, double k) {
  const Vec3 p(0.3, 0.1, z_p);
  return MakeTrajectory({p, Vec3(0.2, 0.0, 0.0), Vec3(1.2, 0.0, k), Vec3(0.2, 1.0, 0.0)},
                        {p, Vec3(-0.5, 0.0, 0.0), Vec3(0.5, 0.0, -k), Vec3(-0.5, 1.0, 0.0)});
}

TEST(CcdPenetrationTest, AgreesAtADoubleRoot) {
  // z_p / k = 0.1 + 0.25 / 5.6: the quadratic's two roots meet at t = 0.5 / 2.8 (the vertex
  // grazes the plane); around it they are two close roots or none.
  Agreement agreement;
  for (int i = -20; i <= 20; ++i) {
    const double z_p = 0.1 + 0.25 / 5.6 + i * 1e-10;
    ExpectAgreesWithThreeSearches(true, TiltingTriangle(z_p, 1.0), {}, &agreement,
                                  "z_p offset " + std::to_string(i));
  }
  EXPECT_GT(agreement.collisions, 0);
}

TEST(CcdPenetrationTest, ParallelEdgesAndCoplanarMotion) {
  Agreement agreement;
  // Parallel edges passing through each other: m = 0 for all t, no sign.
  const PairTrajectory parallel =
      MakeTrajectory({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0.2, 0, 1), Vec3(0.8, 0, 1)},
                     {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0.2, 0, -1), Vec3(0.8, 0, -1)});
  ExpectAgreesWithThreeSearches(false, parallel, {}, &agreement, "parallel edges");
  const CcdPenetration found = EdgeEdgeCcdPenetration(parallel);
  EXPECT_TRUE(found.ccd.collides);
  EXPECT_EQ(found.penetration.penetrating_sign, 0.0);
  // A vertex sliding through a triangle in its plane.
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  const PairTrajectory coplanar =
      MakeTrajectory({Vec3(-1.0, 0.25, 0.0), a, b, c}, {Vec3(1.0, 0.25, 0.0), a, b, c});
  ExpectAgreesWithThreeSearches(true, coplanar, {}, &agreement, "coplanar");
  EXPECT_EQ(VertexFaceCcdPenetration(coplanar).penetration.penetrating_sign, 0.0);
  // Touching at t = 0 and reaching the face exactly at t = 1.
  const PairTrajectory from_face =
      MakeTrajectory({Vec3(0.2, 0.3, 0.0), a, b, c}, {Vec3(0.2, 0.3, -0.5), a, b, c});
  const PairTrajectory onto_face =
      MakeTrajectory({Vec3(0.2, 0.3, 0.5), a, b, c}, {Vec3(0.2, 0.3, 0.0), a, b, c});
  ExpectAgreesWithThreeSearches(true, from_face, {}, &agreement, "touching at t = 0");
  ExpectAgreesWithThreeSearches(true, onto_face, {}, &agreement, "touching at t = 1");
  EXPECT_EQ(agreement.collisions, 4);
}

TEST(PenetrationAtContactTest, MatchesSignAndIntervalsOnCubicsWithMultipleRoots) {
  struct Case {
    std::string name;
    std::array<double, 4> c;
    double toi;
  };
  const std::vector<Case> cases = {
      {"three simple roots", {-0.08, 0.66, -1.5, 1.0}, 0.5},  // (t - .2)(t - .5)(t - .8)
      {"double root", {0.25, -1.0, 1.0, 0.0}, 0.5},           // (t - .5)^2
      {"triple root", {-0.125, 0.75, -1.5, 1.0}, 0.5},        // (t - .5)^3
      {"simple then double", {-0.1, 0.65, -1.4, 1.0}, 0.3},   // (t - .4)(t - .5)^2
      {"roots at 0 and 1", {0.0, -1.0, 1.0, 0.0}, 0.0},       // t (t - 1)
      {"root at 1 only", {-1.0, 1.0, 0.0, 0.0}, 0.9},         // t - 1
      {"no root", {1.0, 0.0, 0.0, 1.0}, 0.2},
  };
  for (const Case& test_case : cases) {
    SCOPED_TRACE(test_case.name);
    for (const double orientation : {1.0, -1.0}) {
      CubicPolynomial depth;
      for (int i = 0; i < 4; ++i) depth.c[i] = orientation * test_case.c[i];
      const double sign = PenetratingSign(depth, test_case.toi);
      const PenetrationIntervals expected = PenetrationIntervalsOf(depth, sign, test_case.toi);
      const Penetration found = PenetrationAtContact(depth, test_case.toi);
      const Penetration given =
          PenetrationAtContact(depth, RealRootsInInterval(depth, 0.0, 1.0), test_case.toi);
      for (const Penetration& p : {found, given}) {
        EXPECT_EQ(p.penetrating_sign, sign);
        ASSERT_EQ(p.intervals.count, expected.count);
        for (int i = 0; i < expected.count; ++i) {
          EXPECT_NEAR(p.intervals.intervals[i].t_a, expected.intervals[i].t_a, kTimeAccuracy);
          EXPECT_NEAR(p.intervals.intervals[i].t_b, expected.intervals[i].t_b, kTimeAccuracy);
        }
      }
    }
  }
  // The identically zero cubic: no sign, no intervals.
  const Penetration zero = PenetrationAtContact(CubicPolynomial{}, 0.5);
  EXPECT_EQ(zero.penetrating_sign, 0.0);
  EXPECT_EQ(zero.intervals.count, 0);
}

TEST(PenetrationAtContactTest, ExpectedIntervalsForThreeRoots) {
  // delta = (t - 0.2)(t - 0.5)(t - 0.8), contact at 0.5: delta goes from + to -, so penetrating
  // is delta < 0, over [0.5, 0.8] (the piece [toi, 0.5] is not penetrating).
  CubicPolynomial depth;
  depth.c = {-0.08, 0.66, -1.5, 1.0};
  const Penetration found = PenetrationAtContact(depth, 0.5 - 1e-9);
  EXPECT_EQ(found.penetrating_sign, -1.0);
  ASSERT_EQ(found.intervals.count, 1);
  EXPECT_NEAR(found.intervals.intervals[0].t_a, 0.5, kTimeAccuracy);
  EXPECT_NEAR(found.intervals.intervals[0].t_b, 0.8, kTimeAccuracy);
}

TEST(PenetrationAtContactTest, NegatedCubicHasBitIdenticalRoots) {
  // What sharing the EE fast path's roots relies on: delta_EE = -(coplanarity cubic).
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> coefficient(-1.0, 1.0);
  for (int trial = 0; trial < 20000; ++trial) {
    CubicPolynomial f, negated;
    for (int i = 0; i < 4; ++i) {
      f.c[i] = coefficient(rng);
      f.c_error[i] = 1e-16 * std::abs(f.c[i]);
      negated.c[i] = -f.c[i];
      negated.c_error[i] = f.c_error[i];
    }
    const CubicRoots roots = RealRootsInInterval(f, 0.0, 1.0);
    const CubicRoots negated_roots = RealRootsInInterval(negated, 0.0, 1.0);
    ASSERT_EQ(roots.count, negated_roots.count) << "trial " << trial;
    for (int i = 0; i < roots.count; ++i) EXPECT_EQ(roots.t[i], negated_roots.t[i]);
  }
}

}  // namespace
}  // namespace contactsim::core
