// Tests of the Yamane–Nakamura penalty friction and the viscous friction
// (core/contact/friction/).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/contact/friction/viscous_friction.h"
#include "core/contact/friction/yamane_nakamura.h"

namespace contactsim::core {
namespace {

// k_FP = 100 N/m, k_FD = 10 N s/m, mu_s = 0.5, mu_d = 0.4, k_omega = 50 s/m.
constexpr YamaneNakamuraParams kParams = {.spring_n_per_m = 100.0,
                                          .damping_ns_per_m = 10.0,
                                          .mu_static = 0.5,
                                          .mu_dynamic = 0.4,
                                          .k_omega_s_per_m = 50.0};
constexpr double kDt = 0.01;       // [s]
constexpr double kNormalN = 10.0;  // |f_n| [N]: static bound mu_s |f_n| = 5 N

// Values below are short sums and products of exact binary fractions and 0.1-like decimals:
// rounding is ~1e-15 of the forces (O(1) N), so 1e-12 N is a loose but failing-capable bound.
constexpr double kForceTolerance = 1e-12;

TEST(YamaneNakamuraTest, FirstContactSticksWithDamperOnly) {
  // The first contact anchors p_ref at p, so only the damper acts: f = -k_FD v_t = -1 N along x.
  // The normal part of the velocity (z) is not friction's business.
  const FrictionResult r = YamaneNakamuraFriction({}, Vec3(1, 2, 0), Vec3(0.1, 0, -3),
                                                  Vec3(0, 0, 2), kNormalN, kParams, kDt);
  EXPECT_EQ(r.mode, FrictionMode::kStick);
  EXPECT_LT((r.force_n - Vec3(-1, 0, 0)).norm(), kForceTolerance);
  EXPECT_LT((r.impulse_n_s - kDt * Vec3(-1, 0, 0)).norm(), kForceTolerance * kDt);
  EXPECT_TRUE(r.state.has_reference);
  EXPECT_EQ(r.state.p_ref_W, Vec3(1, 2, 0));
}

TEST(YamaneNakamuraTest, StickForceIsSpringPlusDamper) {
  // 0.02 m from the reference (in x) moving at 0.1 m/s in y, plus a normal offset of 0.5 m that
  // the tangential projection removes: f = k_FP (-0.02, 0, 0) - k_FD (0, 0.1, 0) = (-2, -1, 0),
  // |f| = 2.24 N < 5 N.
  const FrictionContactState state{.has_reference = true, .p_ref_W = Vec3(0, 0, 0.5)};
  const FrictionResult r = YamaneNakamuraFriction(state, Vec3(0.02, 0, 0), Vec3(0, 0.1, 0),
                                                  Vec3::UnitZ(), kNormalN, kParams, kDt);
  EXPECT_EQ(r.mode, FrictionMode::kStick);
  EXPECT_LT((r.force_n - Vec3(-2, -1, 0)).norm(), kForceTolerance);
  EXPECT_EQ(r.state.p_ref_W, state.p_ref_W);  // kept while sticking
}

TEST(YamaneNakamuraTest, SlipsAboveTheStaticBound) {
  // Just inside the bound: 0.0499 m of spring, 4.99 N <= 5 N, sticks.
  const FrictionContactState state{.has_reference = true, .p_ref_W = Vec3::Zero()};
  const FrictionResult inside = YamaneNakamuraFriction(state, Vec3(0.0499, 0, 0), Vec3::Zero(),
                                                       Vec3::UnitZ(), kNormalN, kParams, kDt);
  EXPECT_EQ(inside.mode, FrictionMode::kStick);
  EXPECT_LT((inside.force_n - Vec3(-4.99, 0, 0)).norm(), kForceTolerance);

  // Past it: 0.06 m of spring (6 N > 5 N) while slipping at v = 0.02 m/s along x:
  //   f = -mu_d |f_n| omega(0.02) x = -4 (1 - e^-1) x,  and p_ref resets to p (thesis).
  const Vec3 p(0.06, 0, 0);
  const FrictionResult slip =
      YamaneNakamuraFriction(state, p, Vec3(0.02, 0, 0), Vec3::UnitZ(), kNormalN, kParams, kDt);
  EXPECT_EQ(slip.mode, FrictionMode::kSlip);
  EXPECT_LT((slip.force_n - Vec3(-4.0 * (1.0 - std::exp(-1.0)), 0, 0)).norm(), kForceTolerance);
  EXPECT_EQ(slip.state.p_ref_W, p);

  // The next step from the reset reference starts relaxed: a slow contact sticks again.
  const FrictionResult after = YamaneNakamuraFriction(slip.state, p, Vec3(0.01, 0, 0),
                                                      Vec3::UnitZ(), kNormalN, kParams, kDt);
  EXPECT_EQ(after.mode, FrictionMode::kStick);
  EXPECT_LT((after.force_n - Vec3(-0.1, 0, 0)).norm(), kForceTolerance);
}

TEST(YamaneNakamuraTest, MatchDynamicForceKeepsTheSpringConsistent) {
  YamaneNakamuraParams params = kParams;
  params.reference_update = ReferenceUpdate::kMatchDynamicForce;
  const FrictionContactState state{.has_reference = true, .p_ref_W = Vec3::Zero()};
  const Vec3 p(0.06, 0, 0);
  const FrictionResult slip =
      YamaneNakamuraFriction(state, p, Vec3(0.02, 0, 0), Vec3::UnitZ(), kNormalN, params, kDt);
  ASSERT_EQ(slip.mode, FrictionMode::kSlip);
  // The spring alone now reproduces the dynamic force: k_FP (p_ref - p) = f_d.
  EXPECT_LT((params.spring_n_per_m * (slip.state.p_ref_W - p) - slip.force_n).norm(),
            kForceTolerance);
  // At rest at the same point the contact sticks with exactly that force (|f_d| < mu_s |f_n|).
  const FrictionResult rest =
      YamaneNakamuraFriction(slip.state, p, Vec3::Zero(), Vec3::UnitZ(), kNormalN, params, kDt);
  EXPECT_EQ(rest.mode, FrictionMode::kStick);
  EXPECT_LT((rest.force_n - slip.force_n).norm(), kForceTolerance);
}

TEST(YamaneNakamuraTest, WeightFunctionLimits) {
  EXPECT_EQ(FrictionWeight(0.0, 50.0), 0.0);
  EXPECT_EQ(FrictionWeight(10.0, 50.0), 1.0);  // 1 - e^-500 rounds to 1
  EXPECT_NEAR(FrictionWeight(0.02, 50.0), 1.0 - std::exp(-1.0), 1e-16);
  // omega(x) / x -> k_omega: at x = 1e-10, omega / x = k (1 - k x / 2 + ...) = 50 (1 - 2.5e-9).
  EXPECT_NEAR(FrictionWeight(1e-10, 50.0) / 1e-10, 50.0, 50.0 * 3e-9);
  // Monotone increasing towards 1.
  EXPECT_LT(FrictionWeight(0.01, 50.0), FrictionWeight(0.02, 50.0));
  EXPECT_LT(FrictionWeight(0.05, 50.0), 1.0);
}

TEST(YamaneNakamuraTest, SlipAtZeroSpeedHasNoDynamicForce) {
  // Forced into slip by the spring with no slip velocity: f_d = -mu_d |f_n| k_omega * 0 = 0.
  const FrictionContactState state{.has_reference = true, .p_ref_W = Vec3::Zero()};
  const FrictionResult r = YamaneNakamuraFriction(state, Vec3(1, 0, 0), Vec3::Zero(), Vec3::UnitZ(),
                                                  kNormalN, kParams, kDt);
  EXPECT_EQ(r.mode, FrictionMode::kSlip);
  EXPECT_EQ(r.force_n, Vec3::Zero());
  // Tiny slip speed: f_d ~ -mu_d |f_n| k_omega v (the linear regime of omega).
  const Vec3 v(1e-9, 0, 0);
  const FrictionResult slow =
      YamaneNakamuraFriction(state, Vec3(1, 0, 0), v, Vec3::UnitZ(), kNormalN, kParams, kDt);
  // omega(x) / x = k_omega (1 - k_omega x / 2 + ...): 2.5e-8 relative below the linear value.
  EXPECT_NEAR(slow.force_n.x(), -0.4 * 10.0 * 50.0 * 1e-9, 2e-7 * 1e-7);
}

TEST(YamaneNakamuraTest, ParamsValidation) {
  EXPECT_TRUE(ValidateYamaneNakamuraParams(kParams).ok());
  YamaneNakamuraParams bad = kParams;
  bad.mu_static = -0.1;
  EXPECT_EQ(ValidateYamaneNakamuraParams(bad).code(), absl::StatusCode::kInvalidArgument);
  bad = kParams;
  bad.k_omega_s_per_m = 0.0;
  EXPECT_EQ(ValidateYamaneNakamuraParams(bad).code(), absl::StatusCode::kInvalidArgument);
  bad = kParams;
  bad.damping_ns_per_m = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(ValidateYamaneNakamuraParams(bad).code(), absl::StatusCode::kInvalidArgument);
}

TEST(ViscousFrictionTest, OpposesTangentialVelocity) {
  // Default c = 0.005 N s/m; v = (2, -4, 7) with normal z: f = -0.005 (2, -4, 0).
  const Vec3 f = ViscousFrictionForce(Vec3(2, -4, 7), Vec3(0, 0, 3), {});
  EXPECT_LT((f - Vec3(-0.01, 0.02, 0)).norm(), 1e-17);
  EXPECT_LT((ViscousFrictionForce(Vec3(2, -4, 7), Vec3::Zero(), {.coefficient_ns_per_m = 2.0}) -
             Vec3(-4, 8, -14))
                .norm(),
            1e-15);
  EXPECT_EQ(ValidateViscousFrictionParams({.coefficient_ns_per_m = -1.0}).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace contactsim::core
