// Tests of the closed-form continuous penalty force (core/contact/penalty/cpf.h) and the
// continuous normal it is built on (continuous_normal.h).
#include "core/contact/penalty/cpf.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "core/contact/penalty/continuous_normal.h"
#include "tests/core/contact/gauss_legendre.h"

namespace contactsim::core {
namespace {

using testing::CompositeGaussLegendre;

Vec3 Lerp(const Vec3& x0, const Vec3& x1, double t) { return (1.0 - t) * x0 + t * x1; }

Vec3 At(const PairTrajectory& trajectory, int i, double t) {
  return Lerp(trajectory.x_t0[i], trajectory.x_t1[i], t);
}

// The pair's normal m(t) and collision points evaluated directly from the vertex positions at t,
// without the polynomial machinery under test.
struct DirectPair {
  PairTrajectory trajectory;
  bool edge_edge = false;
  Vec3 weights = Vec3::Zero();  // VF (wa, wb, wc); EE (s, u, 0)

  Vec3 M(double t) const {
    const Vec3 x0 = At(trajectory, 0, t), x1 = At(trajectory, 1, t);
    const Vec3 x2 = At(trajectory, 2, t), x3 = At(trajectory, 3, t);
    return edge_edge ? Vec3((x1 - x0).cross(x3 - x2)) : Vec3((x2 - x1).cross(x3 - x1));
  }
  Vec3 P(double t) const {
    if (!edge_edge) return At(trajectory, 0, t);
    return (1.0 - weights[0]) * At(trajectory, 0, t) + weights[0] * At(trajectory, 1, t);
  }
  Vec3 Q(double t) const {
    if (edge_edge) {
      return (1.0 - weights[1]) * At(trajectory, 2, t) + weights[1] * At(trajectory, 3, t);
    }
    return weights[0] * At(trajectory, 1, t) + weights[1] * At(trajectory, 2, t) +
           weights[2] * At(trajectory, 3, t);
  }
};

struct Reference {
  Vec3 impulse_on_p = Vec3::Zero();  // [N s]
  double scale = 0.0;                // k dt sum int |integrand| dt >= |impulse_on_p| [N s]
};

// k dt sum_i int (m . (q - p)) m / L_k^2 dt with L_k^2 = int_0^1 |m|^2 dt, both by Gauss–Legendre.
// 10 points are exact to degree 19: |m|^2 has degree 4 and the integrand degree 5.
Reference ReferenceImpulse(const DirectPair& pair, const std::vector<TimeInterval>& intervals,
                           const PenaltyParams& params) {
  const double lk_squared =
      CompositeGaussLegendre([&](double t) { return pair.M(t).squaredNorm(); }, 0.0, 1.0, 10, 1);
  const auto integrand = [&](double t) -> Vec3 {
    const Vec3 m = pair.M(t);
    return (m.dot(pair.Q(t) - pair.P(t)) / lk_squared) * m;
  };
  Reference reference;
  const double k_dt = params.stiffness_n_per_m * params.dt_s;
  for (const TimeInterval& interval : intervals) {
    reference.impulse_on_p +=
        k_dt * CompositeGaussLegendre(integrand, interval.t_a, interval.t_b, 10, 4);
    reference.scale += k_dt * CompositeGaussLegendre([&](double t) { return integrand(t).norm(); },
                                                     interval.t_a, interval.t_b, 10, 16);
  }
  return reference;
}

PairTrajectory RandomTrajectory(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> coordinate(-1.0, 1.0);
  PairTrajectory trajectory;
  for (int i = 0; i < 4; ++i) {
    trajectory.x_t0[i] = Vec3(coordinate(rng), coordinate(rng), coordinate(rng));
    trajectory.x_t1[i] = Vec3(coordinate(rng), coordinate(rng), coordinate(rng));
  }
  return trajectory;
}

// One or two disjoint sorted intervals in [0, 1] (the closed form is a polynomial identity, so
// the intervals need not be the true penetration intervals of the random motion).
std::vector<TimeInterval> RandomIntervals(std::mt19937_64& rng, int count) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> ends;
  for (int i = 0; i < 2 * count; ++i) ends.push_back(unit(rng));
  std::sort(ends.begin(), ends.end());
  std::vector<TimeInterval> intervals;
  for (int i = 0; i < count; ++i) intervals.push_back({ends[2 * i], ends[2 * i + 1]});
  return intervals;
}

Vec3 Sum(const VertexImpulses& impulses) {
  return impulses[0] + impulses[1] + impulses[2] + impulses[3];
}

constexpr PenaltyParams kParams = {.stiffness_n_per_m = 2.0e4, .dt_s = 5e-3};

TEST(ContinuousNormalTest, BernsteinFormMatchesCrossProductAndLengthCoefficients) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const PairTrajectory tr = RandomTrajectory(rng);
    const Vec3 e0_t0 = tr.x_t0[1] - tr.x_t0[0], e0_t1 = tr.x_t1[1] - tr.x_t1[0];
    const Vec3 e1_t0 = tr.x_t0[3] - tr.x_t0[2], e1_t1 = tr.x_t1[3] - tr.x_t1[2];
    const ContinuousNormal normal = MakeContinuousNormal(e0_t0, e0_t1, e1_t0, e1_t1);
    const Polynomial<Vec3, 2> m = normal.PowerBasis();
    for (double t : {0.0, 0.1, 0.37, 0.5, 0.81, 1.0}) {
      const Vec3 direct = Lerp(e0_t0, e0_t1, t).cross(Lerp(e1_t0, e1_t1, t));
      // Theorem 1/2: the quadratic reproduces the cross product (rounding only: entries are O(1)).
      EXPECT_LT((m(t) - direct).norm(), 1e-14) << "t=" << t;
      // Supplement Eq. 11: sum L_i B_i^4(t) = |m(t)|^2.
      EXPECT_NEAR(normal.LengthSquaredAt(t), direct.squaredNorm(), 1e-13) << "t=" << t;
    }
    // Eq. 15: L_k^2 = (L0 + ... + L4) / 5 is the mean of |m|^2 over [0, 1] (5-point Gauss–Legendre
    // is exact for the quartic).
    const double mean = CompositeGaussLegendre(
        [&](double t) { return Lerp(e0_t0, e0_t1, t).cross(Lerp(e1_t0, e1_t1, t)).squaredNorm(); },
        0.0, 1.0, 5, 1);
    EXPECT_NEAR(normal.MeanLengthSquared(), mean, 1e-13);
  }
}

// The closed form and the reference integrate the same degree-5 polynomial exactly, so they
// differ by rounding only: a few hundred operations on terms no larger than the integrand's
// magnitude, ~1e-14 of `scale`. 1e-10 leaves room for cancellation in the power basis.
constexpr double kClosedFormRelativeTolerance = 1e-10;

TEST(CpfTest, VertexFaceClosedFormMatchesQuadrature) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 50; ++trial) {
    DirectPair pair{.trajectory = RandomTrajectory(rng)};
    const double u = unit(rng), v = unit(rng) * (1.0 - u);
    pair.weights = Vec3(1.0 - u - v, u, v);
    const std::vector<TimeInterval> intervals = RandomIntervals(rng, 1 + trial % 2);
    const CpfResult result = CpfVertexFace(pair.trajectory, pair.weights, intervals, kParams);
    ASSERT_EQ(result.status, PenaltyStatus::kOk);
    ASSERT_FALSE(result.used_fallback_normal);
    const Reference reference = ReferenceImpulse(pair, intervals, kParams);
    // The paper's integrand is n^T (p - q) n; the restoring impulse is its negative, which is
    // what the reference computes with (q - p).
    EXPECT_LE((result.impulse_on_p_n_s - reference.impulse_on_p).norm(),
              kClosedFormRelativeTolerance * reference.scale)
        << "trial " << trial;
    EXPECT_LE((result.impulses_n_s[0] - reference.impulse_on_p).norm(),
              kClosedFormRelativeTolerance * reference.scale);
    for (int i = 0; i < 3; ++i) {
      EXPECT_LE((result.impulses_n_s[i + 1] + pair.weights[i] * reference.impulse_on_p).norm(),
                kClosedFormRelativeTolerance * reference.scale);
    }
  }
}

TEST(CpfTest, EdgeEdgeClosedFormMatchesQuadrature) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 50; ++trial) {
    DirectPair pair{.trajectory = RandomTrajectory(rng), .edge_edge = true};
    const double s = unit(rng), u = unit(rng);
    pair.weights = Vec3(s, u, 0.0);
    const std::vector<TimeInterval> intervals = RandomIntervals(rng, 1 + trial % 2);
    const CpfResult result = CpfEdgeEdge(pair.trajectory, s, u, intervals, kParams);
    ASSERT_EQ(result.status, PenaltyStatus::kOk);
    const Reference reference = ReferenceImpulse(pair, intervals, kParams);
    const double tolerance = kClosedFormRelativeTolerance * reference.scale;
    EXPECT_LE((result.impulse_on_p_n_s - reference.impulse_on_p).norm(), tolerance);
    EXPECT_LE((result.impulses_n_s[0] - (1.0 - s) * reference.impulse_on_p).norm(), tolerance);
    EXPECT_LE((result.impulses_n_s[1] - s * reference.impulse_on_p).norm(), tolerance);
    EXPECT_LE((result.impulses_n_s[2] + (1.0 - u) * reference.impulse_on_p).norm(), tolerance);
    EXPECT_LE((result.impulses_n_s[3] + u * reference.impulse_on_p).norm(), tolerance);
  }
}

// Linear momentum: the four impulses cancel up to rounding in the products w_i I (a few ulps of
// |I_p|), for VF (weights summing to 1) and EE.
TEST(CpfTest, ImpulseIntegralMatchesTheAntiderivative) {
  // CpfImpulseIntegral (power moments of the intervals) against the degree-6 antiderivative G
  // (CpfImpulseAntiderivative, sum of G(t_b) - G(t_a)): the same integral of the same
  // polynomial, so they differ by rounding only, relative to the size of G's terms.
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    const PairTrajectory trajectory = RandomTrajectory(rng);
    const double u = unit(rng), v = unit(rng) * (1.0 - u);
    const std::optional<PenaltyPair> pair =
        trial % 2 == 0 ? MakeVertexFacePair(trajectory, Vec3(1.0 - u - v, u, v))
                       : MakeEdgeEdgePair(trajectory, u, v);
    ASSERT_TRUE(pair.has_value());
    const PenaltyNormal normal = ChoosePenaltyNormal(*pair, {});
    ASSERT_TRUE(normal.valid);
    const std::vector<TimeInterval> intervals = RandomIntervals(rng, 1 + trial % 2);
    const Polynomial<Vec3, 6> g = CpfImpulseAntiderivative(*pair, normal);
    Vec3 expected = Vec3::Zero();
    for (const TimeInterval& interval : intervals) expected += g(interval.t_b) - g(interval.t_a);
    double scale = 0.0;
    for (const Vec3& c : g.c) scale += c.norm();
    EXPECT_LE((CpfImpulseIntegral(*pair, normal, intervals) - expected).norm(), 1e-13 * scale)
        << "trial " << trial;
  }
}

TEST(CpfTest, VertexImpulsesSumToZero) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 50; ++trial) {
    const PairTrajectory trajectory = RandomTrajectory(rng);
    const std::vector<TimeInterval> intervals = RandomIntervals(rng, 2);
    const double u = unit(rng), v = unit(rng) * (1.0 - u);
    const CpfResult vf = CpfVertexFace(trajectory, Vec3(1.0 - u - v, u, v), intervals, kParams);
    ASSERT_EQ(vf.status, PenaltyStatus::kOk);
    EXPECT_LE(Sum(vf.impulses_n_s).norm(), 1e-14 * vf.impulse_on_p_n_s.norm());
    const CpfResult ee = CpfEdgeEdge(trajectory, u, v, intervals, kParams);
    ASSERT_EQ(ee.status, PenaltyStatus::kOk);
    EXPECT_LE(Sum(ee.impulses_n_s).norm(), 1e-14 * ee.impulse_on_p_n_s.norm());
    EXPECT_GT(ee.impulse_on_p_n_s.norm(), 0.0);
  }
}

// A vertex moving at constant velocity v [m/s] straight down (and sideways, which changes
// nothing) through a static triangle in z = 0 from z0 > 0 to z1 < 0. It penetrates from
// t_c = z0 / (z0 - z1) on, to depth delta(t) = -z(t), for T = (1 - t_c) dt seconds, so
//   I_p = k int delta dtau = k v T^2 / 2 (+z),  v = (z0 - z1) / dt.
TEST(CpfTest, VertexThroughStaticTriangleMatchesAnalyticImpulse) {
  const double z0 = 0.01, z1 = -0.02;
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(0.2, 0.3, z0), Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0, 3, 0)};
  trajectory.x_t1 = {Vec3(0.5, 0.1, z1), Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0, 3, 0)};
  const Vec3 weights(0.5, 0.25, 0.25);
  const double t_c = z0 / (z0 - z1);
  const std::array<TimeInterval, 1> intervals = {{{t_c, 1.0}}};
  const CpfResult result = CpfVertexFace(trajectory, weights, intervals, kParams);
  ASSERT_EQ(result.status, PenaltyStatus::kOk);

  const double speed = (z0 - z1) / kParams.dt_s;
  const double penetration_time = (1.0 - t_c) * kParams.dt_s;
  const Vec3 expected(
      0, 0, kParams.stiffness_n_per_m * speed * penetration_time * penetration_time / 2.0);
  // The triangle is static, |m| = 6 = L_k and n = +z exactly; the rest is rounding.
  EXPECT_LT((result.impulses_n_s[0] - expected).norm(), 1e-13 * expected.norm());
  for (int i = 0; i < 3; ++i) {
    EXPECT_LT((result.impulses_n_s[i + 1] + weights[i] * expected).norm(), 1e-13 * expected.norm());
  }
  EXPECT_DOUBLE_EQ(result.lk_m2, 6.0);
  EXPECT_LT((result.normal_t1 - Vec3::UnitZ()).norm(), 1e-15);
  EXPECT_NEAR(result.depth_t1_m, -z1, 1e-15);
}

// The same motion split into two intervals sums like one.
TEST(CpfTest, IntervalsAreAdditive) {
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(0.2, 0.3, 0.01), Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0, 3, 0.1)};
  trajectory.x_t1 = {Vec3(0.5, 0.1, -0.02), Vec3(0, 0.1, 0), Vec3(2, 0, 0.2), Vec3(0, 3, 0)};
  const Vec3 weights(0.5, 0.25, 0.25);
  const std::array<TimeInterval, 1> whole = {{{0.2, 0.9}}};
  const std::array<TimeInterval, 2> split = {{{0.2, 0.55}, {0.55, 0.9}}};
  const CpfResult a = CpfVertexFace(trajectory, weights, whole, kParams);
  const CpfResult b = CpfVertexFace(trajectory, weights, split, kParams);
  EXPECT_LT((a.impulse_on_p_n_s - b.impulse_on_p_n_s).norm(), 1e-14 * a.impulse_on_p_n_s.norm());
  const CpfResult none = CpfVertexFace(trajectory, weights, {}, kParams);
  EXPECT_EQ(none.status, PenaltyStatus::kOk);
  EXPECT_EQ(none.impulse_on_p_n_s, Vec3::Zero());
}

// Edge (a, b) along x descends through the static edge (c, d) along y, crossing at the points
// s = 0.25, u = 0.6: as for the vertex, I = k v T^2 / 2 (+z) on the point of edge (a, b).
TEST(CpfTest, EdgeThroughStaticEdgeMatchesAnalyticImpulse) {
  const double z0 = 0.03, z1 = -0.01, s = 0.25, u = 0.6;
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(-0.5, 0.2, z0), Vec3(1.5, 0.2, z0), Vec3(0, -1, 0), Vec3(0, 1, 0)};
  trajectory.x_t1 = {Vec3(-0.5, 0.2, z1), Vec3(1.5, 0.2, z1), Vec3(0, -1, 0), Vec3(0, 1, 0)};
  const double t_c = z0 / (z0 - z1);
  const std::array<TimeInterval, 1> intervals = {{{t_c, 1.0}}};
  const CpfResult result = CpfEdgeEdge(trajectory, s, u, intervals, kParams);
  ASSERT_EQ(result.status, PenaltyStatus::kOk);
  const double speed = (z0 - z1) / kParams.dt_s;
  const double penetration_time = (1.0 - t_c) * kParams.dt_s;
  const Vec3 expected(
      0, 0, kParams.stiffness_n_per_m * speed * penetration_time * penetration_time / 2.0);
  const double tolerance = 1e-13 * expected.norm();
  EXPECT_LT((result.impulses_n_s[0] - (1.0 - s) * expected).norm(), tolerance);
  EXPECT_LT((result.impulses_n_s[1] - s * expected).norm(), tolerance);
  EXPECT_LT((result.impulses_n_s[2] + (1.0 - u) * expected).norm(), tolerance);
  EXPECT_LT((result.impulses_n_s[3] + u * expected).norm(), tolerance);
}

// Parallel edges (m = 0 for all t) fall back to the direction between the collision points at
// the start of the step, +z here, which gives the same analytic impulse as crossing edges.
TEST(CpfTest, ParallelEdgesUseSeparationDirection) {
  const double z0 = 0.03, z1 = -0.01;
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(0, 0.2, z0), Vec3(2, 0.2, z0), Vec3(0.5, 0.2, 0), Vec3(1.5, 0.2, 0)};
  trajectory.x_t1 = {Vec3(0, 0.2, z1), Vec3(2, 0.2, z1), Vec3(0.5, 0.2, 0), Vec3(1.5, 0.2, 0)};
  const double t_c = z0 / (z0 - z1);
  const std::array<TimeInterval, 1> intervals = {{{t_c, 1.0}}};
  const CpfResult result = CpfEdgeEdge(trajectory, 0.5, 0.5, intervals, kParams);
  ASSERT_EQ(result.status, PenaltyStatus::kOk);
  EXPECT_TRUE(result.used_fallback_normal);
  EXPECT_EQ(result.lk_m2, 0.0);
  const double expected_z =
      kParams.stiffness_n_per_m * kParams.dt_s * (z0 - z1) * (1.0 - t_c) * (1.0 - t_c) / 2.0;
  EXPECT_LT((result.impulse_on_p_n_s - Vec3(0, 0, expected_z)).norm(), 1e-13 * expected_z);
  EXPECT_LT((result.normal_t1 - Vec3::UnitZ()).norm(), 1e-15);

  // A caller-supplied (tracked) normal takes precedence; a tilted one projects the depth on it.
  const Vec3 tilted = Vec3(0, 1, 1).normalized();
  const CpfResult supplied =
      CpfEdgeEdge(trajectory, 0.5, 0.5, intervals, kParams, {.fallback_normal = 3.0 * tilted});
  ASSERT_EQ(supplied.status, PenaltyStatus::kOk);
  // delta n = (n . (0, 0, -z)) n: the z-only depth projected on the tilted unit normal.
  EXPECT_LT((supplied.impulse_on_p_n_s - 0.5 * expected_z * Vec3(0, 1, 1)).norm(),
            1e-13 * expected_z);
}

// Parallel edges whose collision points coincide at both ends leave no direction at all.
TEST(CpfTest, NoNormalWhenNothingDefinesOne) {
  PairTrajectory trajectory;
  trajectory.x_t0 = {Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0.5, 0, 0), Vec3(1.5, 0, 0)};
  trajectory.x_t1 = {Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0.5, 0, 0), Vec3(1.5, 0, 0)};
  const std::array<TimeInterval, 1> intervals = {{{0.0, 1.0}}};
  const CpfResult result = CpfEdgeEdge(trajectory, 0.5, 0.5, intervals, kParams);
  EXPECT_EQ(result.status, PenaltyStatus::kNoNormal);
  EXPECT_EQ(result.impulse_on_p_n_s, Vec3::Zero());
}

TEST(CpfTest, RejectsInvalidInput) {
  std::mt19937_64 rng(19);
  const PairTrajectory trajectory = RandomTrajectory(rng);
  const std::array<TimeInterval, 1> good = {{{0.1, 0.5}}};
  EXPECT_EQ(CpfVertexFace(trajectory, Vec3(0.5, 0.5, 0.5), good, kParams).status,
            PenaltyStatus::kInvalidInput);  // weights sum to 1.5
  const std::array<TimeInterval, 1> reversed = {{{0.5, 0.1}}};
  EXPECT_EQ(CpfVertexFace(trajectory, Vec3(0.2, 0.3, 0.5), reversed, kParams).status,
            PenaltyStatus::kInvalidInput);
  const std::array<TimeInterval, 1> outside = {{{0.5, 1.1}}};
  EXPECT_EQ(CpfEdgeEdge(trajectory, 0.5, 0.5, outside, kParams).status,
            PenaltyStatus::kInvalidInput);
  EXPECT_EQ(CpfEdgeEdge(trajectory, 1.5, 0.5, good, kParams).status, PenaltyStatus::kInvalidInput);
  PairTrajectory nan_trajectory = trajectory;
  nan_trajectory.x_t1[2].x() = std::numeric_limits<double>::quiet_NaN();
  const CpfResult nan_result = CpfEdgeEdge(nan_trajectory, 0.5, 0.5, good, kParams);
  EXPECT_EQ(nan_result.status, PenaltyStatus::kInvalidInput);
  EXPECT_EQ(nan_result.impulse_on_p_n_s, Vec3::Zero());
}

TEST(PenaltyParamsTest, Validation) {
  EXPECT_TRUE(ValidatePenaltyParams(kParams).ok());
  EXPECT_EQ(ValidatePenaltyParams({.stiffness_n_per_m = -1.0, .dt_s = 0.01}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidatePenaltyParams(
                {.stiffness_n_per_m = 1.0, .dt_s = std::numeric_limits<double>::infinity()})
                .code(),
            absl::StatusCode::kInvalidArgument);
}

// Dashpot c (cpf.h, contact_damping.h) on a vertex falling straight through a static triangle in
// z = 0 (m = (0, 0, 1), so n = +z exactly): delta = -z_p goes from -0.01 to 0.03, the interval is
// [0.25, 1], and q' - p' = (0, 0, 0.04) per unit t, so the dashpot adds c 0.04 0.75 = 0.03 c
// along +z to the spring's k dt 0.01125.
TEST(CpfDashpotTest, AddsTheDashpotIntegralOverTheInterval) {
  const PairTrajectory trajectory{
      {Vec3(0.25, 0.25, 0.01), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)},
      {Vec3(0.25, 0.25, -0.03), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}};
  const Vec3 weights(0.5, 0.25, 0.25);
  const TimeInterval interval{0.25, 1.0};
  const PenaltyParams params{.stiffness_n_per_m = 5000.0, .dt_s = 0.002, .damping_n_s_per_m = 7.0};
  const CpfResult r = CpfVertexFace(trajectory, weights, std::span(&interval, 1), params);
  ASSERT_EQ(r.status, PenaltyStatus::kOk);
  // Rounding of a few dozen operations on O(0.01) numbers.
  EXPECT_LT((r.impulse_on_p_n_s - Vec3(0, 0, 10.0 * 0.01125 + 7.0 * 0.03)).norm(), 1e-14);
  // The report uses the real points: depth at t = 1 is 0.03.
  EXPECT_NEAR(r.depth_t1_m, 0.03, 1e-16);
  // Momentum: -I_p shared by the weights.
  EXPECT_LT((r.impulses_n_s[1] + 0.5 * r.impulse_on_p_n_s).norm(), 1e-15);
}

}  // namespace
}  // namespace contactsim::core
