// NCP functions: zero sets, generalized derivatives against finite differences away from the
// kink, the conventions at the kink, and the contact rows of Zeng et al. 2024 (Appendix B)
// against the paper's own formulas and the Coulomb conditions they encode.
#include "core/contact/complementarity/ncp_functions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace contactsim::core {
namespace {

constexpr NcpFunction kBoth[] = {NcpFunction::kFischerBurmeister, NcpFunction::kMinMap};

// a b = 0 written without the product, which underflows to 0 for a = b = 1e-300.
bool InComplementaritySet(double a, double b) {
  return a >= 0.0 && b >= 0.0 && (a == 0.0 || b == 0.0);
}

TEST(NcpFunctionsTest, ZeroExactlyOnTheComplementaritySetEdgeCases) {
  const std::vector<double> values = {-1e8,   -2.0, -1.0, -1e-3, -1e-300, 0.0,
                                      1e-300, 1e-3, 1.0,  2.0,   1e8};
  for (NcpFunction f : kBoth) {
    for (double a : values) {
      for (double b : values) {
        const double phi = EvaluateNcp(f, a, b).value;
        EXPECT_EQ(phi == 0.0, InComplementaritySet(a, b))
            << (f == NcpFunction::kMinMap ? "min" : "FB") << " a=" << a << " b=" << b
            << " phi=" << phi;
      }
    }
  }
}

TEST(NcpFunctionsTest, ZeroSetAndSignOnRandomSamples) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-10.0, 10.0);
  for (NcpFunction f : kBoth) {
    for (int i = 0; i < 10000; ++i) {
      const double a = u(rng), b = u(rng);
      const double phi = EvaluateNcp(f, a, b).value;
      // Random pairs are never exactly on the set: phi != 0, and phi > 0 iff both are positive.
      EXPECT_NE(phi, 0.0);
      EXPECT_EQ(phi > 0.0, a > 0.0 && b > 0.0) << a << " " << b;
      // On the set: one argument zero, the other positive.
      EXPECT_EQ(EvaluateNcp(f, 0.0, std::abs(a)).value, 0.0);
      EXPECT_EQ(EvaluateNcp(f, std::abs(b), 0.0).value, 0.0);
    }
  }
}

TEST(NcpFunctionsTest, FischerBurmeisterHasNoCancellation) {
  // a >> b > 0: phi = 2ab / (a + b + sqrt(a^2 + b^2)) ~ b; the naive a + b - sqrt(a^2 + b^2)
  // returns 0 here. Relative accuracy of the stable form ~ few eps.
  EXPECT_NEAR(FischerBurmeister(1e8, 1e-8), 1e-8, 1e-8 * 1e-14);
  EXPECT_NEAR(FischerBurmeister(1e-8, 1e8), 1e-8, 1e-8 * 1e-14);
  // Symmetric case: (2 - sqrt(2)) a.
  EXPECT_NEAR(FischerBurmeister(3.0, 3.0), (2.0 - std::sqrt(2.0)) * 3.0, 1e-15);
  // Both negative: a + b - |(a, b)|.
  EXPECT_DOUBLE_EQ(FischerBurmeister(-3.0, -4.0), -12.0);
}

TEST(NcpFunctionsTest, DerivativesMatchFiniteDifferencesAwayFromTheKink) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> u(-5.0, 5.0);
  const double h = 1e-6;
  for (NcpFunction f : kBoth) {
    int checked = 0;
    while (checked < 2000) {
      const double a = u(rng), b = u(rng);
      // Kink: the origin for FB, the line a = b for min. Stay 1e-2 away so a step of 1e-6
      // never crosses it.
      if (f == NcpFunction::kFischerBurmeister && std::hypot(a, b) < 1e-2) continue;
      if (f == NcpFunction::kMinMap && std::abs(a - b) < 1e-2) continue;
      ++checked;
      const NcpEvaluation e = EvaluateNcp(f, a, b);
      const double da = (EvaluateNcp(f, a + h, b).value - EvaluateNcp(f, a - h, b).value) / (2 * h);
      const double db = (EvaluateNcp(f, a, b + h).value - EvaluateNcp(f, a, b - h).value) / (2 * h);
      // FB's second derivatives are <= 1/||(a,b)|| <= 100: truncation 1e-12 * 100 / 6 and
      // roundoff eps * 10 / 1e-6 ~ 2e-9. 1e-7 covers both with margin.
      EXPECT_NEAR(e.d_da, da, 1e-7) << a << " " << b;
      EXPECT_NEAR(e.d_db, db, 1e-7) << a << " " << b;
    }
  }
}

TEST(NcpFunctionsTest, ConventionAtTheKink) {
  // FB at the origin: (1 - 1/sqrt 2, 1 - 1/sqrt 2), the limit of the gradient along a = b > 0,
  // on the boundary of Clarke's {(1 - xi, 1 - eta): xi^2 + eta^2 <= 1}.
  const NcpEvaluation origin = EvaluateNcp(NcpFunction::kFischerBurmeister, 0.0, 0.0);
  EXPECT_EQ(origin.value, 0.0);
  EXPECT_DOUBLE_EQ(origin.d_da, 1.0 - 1.0 / std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(origin.d_db, 1.0 - 1.0 / std::sqrt(2.0));
  const NcpEvaluation near = EvaluateNcp(NcpFunction::kFischerBurmeister, 1e-200, 1e-200);
  EXPECT_NEAR(near.d_da, origin.d_da, 1e-15);
  EXPECT_NEAR(near.d_db, origin.d_db, 1e-15);
  const double xi = 1.0 - origin.d_da, eta = 1.0 - origin.d_db;
  EXPECT_LE(xi * xi + eta * eta, 1.0 + 1e-15);
  // Min map on a = b: (1, 0), the delta <= r lambda branch of the paper's Eqs. 46-48.
  for (double t : {-1.0, 0.0, 2.0}) {
    const NcpEvaluation tie = EvaluateNcp(NcpFunction::kMinMap, t, t);
    EXPECT_EQ(tie.value, t);
    EXPECT_EQ(tie.d_da, 1.0);
    EXPECT_EQ(tie.d_db, 0.0);
  }
}

TEST(NcpFunctionsTest, NormalRowIsPhiOfGapAndScaledForce) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double h = 1e-7;
  for (NcpFunction f : kBoth) {
    for (int i = 0; i < 200; ++i) {
      const double gap = 1e-3 * u(rng), lambda = 10.0 * u(rng), r = 1e-4 * (1.5 + u(rng));
      const NormalNcpTerms t = NormalContactNcp(f, gap, lambda, r);
      EXPECT_EQ(t.phi, EvaluateNcp(f, gap, r * lambda).value);
      if (f == NcpFunction::kMinMap && std::abs(gap - r * lambda) < 1e-5) continue;
      if (f == NcpFunction::kFischerBurmeister && std::hypot(gap, r * lambda) < 1e-5) continue;
      // omega = d phi / d gap and E_n = d phi / d lambda_n (Eqs. 47-48, 53-54). Values ~1e-3,
      // curvature <= 1e5: truncation ~1e-14 * 1e5, roundoff ~1e-19 / 1e-7: tolerance 1e-6
      // relative to the O(1) omega and O(r) E_n.
      const double dgap = (NormalContactNcp(f, gap + h, lambda, r).phi -
                           NormalContactNcp(f, gap - h, lambda, r).phi) /
                          (2 * h);
      const double hl = h / r;
      const double dlambda = (NormalContactNcp(f, gap, lambda + hl, r).phi -
                              NormalContactNcp(f, gap, lambda - hl, r).phi) /
                             (2 * hl);
      EXPECT_NEAR(t.omega, dgap, 1e-6);
      EXPECT_NEAR(t.compliance, dlambda, 1e-6 * r);
    }
  }
}

// The paper's compliance formulas, written out independently (Eq. 51 min map, Eq. 57 FB).
double PaperCompliance(NcpFunction f, double s, double lambda_n, double force, double mu,
                       double r) {
  const double g = mu * lambda_n - force;
  if (f == NcpFunction::kMinMap) return s <= r * g ? 0.0 : (s - r * g) / (mu * lambda_n);
  const double root = std::sqrt(s * s + r * r * g * g);
  return (root - r * g) / (s + mu * r * lambda_n - root) * r;
}

TEST(NcpFunctionsTest, FrictionComplianceMatchesThePaper) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (NcpFunction f : kBoth) {
    for (int i = 0; i < 1000; ++i) {
      const double mu = 0.1 + u(rng), lambda_n = 0.1 + 10 * u(rng), r = 0.01 + u(rng);
      const Eigen::Vector2d slip(u(rng) - 0.5, u(rng) - 0.5);
      // Inside the cone or slightly outside (||lambda_f|| <= 1.5 mu lambda_n), where the
      // paper's denominator is positive and our floor is inactive.
      const double angle = 2 * M_PI * u(rng), radius = 1.5 * mu * lambda_n * u(rng);
      const Eigen::Vector2d lambda_f(radius * std::cos(angle), radius * std::sin(angle));
      const FrictionNcpTerms t = FrictionContactNcp(f, slip, lambda_n, lambda_f, mu, r);
      const double expected = PaperCompliance(f, slip.norm(), lambda_n, radius, mu, r);
      // Same quantity by two algebraic routes: relative roundoff ~1e-15 * condition; the FB
      // route of the paper cancels in its denominator, so allow 1e-9 relative.
      EXPECT_NEAR(t.compliance, expected, 1e-9 * (1.0 + std::abs(expected)));
      EXPECT_EQ(t.omega, 1.0);
      EXPECT_TRUE((t.phi - (slip + t.compliance * lambda_f)).isZero(0.0));
    }
  }
}

TEST(NcpFunctionsTest, FrictionRowIsZeroExactlyOnCoulombStates) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (NcpFunction f : kBoth) {
    for (int i = 0; i < 1000; ++i) {
      const double mu = 0.05 + u(rng), lambda_n = 0.1 + 10 * u(rng), r = 0.01 + u(rng);
      const double angle = 2 * M_PI * u(rng);
      const Eigen::Vector2d dir(std::cos(angle), std::sin(angle));
      // Stick: no slip, force strictly inside the cone (including zero force).
      const Eigen::Vector2d stick_force = 0.999 * u(rng) * mu * lambda_n * dir;
      EXPECT_EQ(
          FrictionContactNcp(f, Eigen::Vector2d::Zero(), lambda_n, stick_force, mu, r).phi.norm(),
          0.0);
      EXPECT_EQ(
          FrictionContactNcp(f, Eigen::Vector2d::Zero(), lambda_n, Eigen::Vector2d::Zero(), mu, r)
              .phi.norm(),
          0.0);
      // Slide: force on the cone boundary, opposite the slip. phi is a difference of O(s) terms:
      // roundoff ~1e-15 s.
      const double s = 1e-3 + u(rng);
      const Eigen::Vector2d slip = s * dir;
      const Eigen::Vector2d slide_force = -mu * lambda_n * dir;
      EXPECT_LT(FrictionContactNcp(f, slip, lambda_n, slide_force, mu, r).phi.norm(), 1e-13 * s);
      // Not Coulomb: sliding with the force inside the cone, or on the cone but not opposing
      // the slip, or sticking with the force outside the cone.
      EXPECT_GT(FrictionContactNcp(f, slip, lambda_n, 0.5 * slide_force, mu, r).phi.norm(),
                1e-3 * s);
      const Eigen::Vector2d sideways(-slide_force[1], slide_force[0]);
      EXPECT_GT(FrictionContactNcp(f, slip, lambda_n, sideways, mu, r).phi.norm(), 1e-3 * s);
      EXPECT_GT(FrictionContactNcp(f, Eigen::Vector2d::Zero(), lambda_n, 1.2 * slide_force, mu, r)
                    .phi.norm(),
                0.0);
    }
  }
}

TEST(NcpFunctionsTest, InactiveOrFrictionlessContactForcesZeroFriction) {
  const Eigen::Vector2d slip(0.3, -0.1), lambda_f(2.0, -1.0);
  for (NcpFunction f : kBoth) {
    for (double lambda_n : {0.0, -1.0}) {
      const FrictionNcpTerms t = FrictionContactNcp(f, slip, lambda_n, lambda_f, 0.5, 1.0);
      EXPECT_EQ(t.omega, 0.0);
      EXPECT_EQ(t.compliance, 1.0);
      EXPECT_EQ(t.phi, lambda_f);
    }
    const FrictionNcpTerms frictionless = FrictionContactNcp(f, slip, 3.0, lambda_f, 0.0, 1.0);
    EXPECT_EQ(frictionless.omega, 0.0);
    EXPECT_EQ(frictionless.phi, lambda_f);
  }
}

TEST(NcpFunctionsTest, FrictionComplianceIsFiniteAndNonNegativeEverywhere) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (NcpFunction f : kBoth) {
    for (int i = 0; i < 10000; ++i) {
      // Including forces far outside the cone (up to 100 mu lambda_n).
      const double mu = 0.5 * (1.0 + u(rng)), lambda_n = 5.0 * (1.0 + u(rng));
      const Eigen::Vector2d slip(u(rng), u(rng));
      const Eigen::Vector2d lambda_f =
          50.0 * (1.0 + u(rng)) * mu * lambda_n * Eigen::Vector2d(u(rng), u(rng));
      const FrictionNcpTerms t = FrictionContactNcp(f, slip, lambda_n, lambda_f, mu, 0.3);
      EXPECT_TRUE(std::isfinite(t.compliance));
      EXPECT_GE(t.compliance, 0.0);
    }
  }
}

TEST(NcpFunctionsTest, PreconditionerFromDelassusDiagonal) {
  // Eq. 28: h^2 W_jj for normal rows, h W_jj for friction rows.
  EXPECT_DOUBLE_EQ(NormalPreconditioner(4.0, 0.01), 4e-4);
  EXPECT_DOUBLE_EQ(FrictionPreconditioner(4.0, 0.01), 4e-2);
}

}  // namespace
}  // namespace contactsim::core
