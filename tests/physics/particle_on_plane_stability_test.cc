// Stability bounds of penalty contact for a particle on a plane (Tang et al. 2012, Sec. 3.6 and
// supplementary C), checked with the library's contact kernels through
// scenes/testbeds/particle_on_plane.h.
//
// Supplementary C discards gravity and linearizes m v' = -k x. With omega^2 = k / m and
// s = (omega dt)^2 the three steps of particle_on_plane.h are (z+, v+) = A (z, v):
//   symplectic Euler, force at the start position (suppl. Eq. 24-26, "SE" = kDpfAtStart):
//     v+ = v - dt omega^2 z,               z+ = z + dt v+
//     A = [1 - s, dt; -omega^2 dt, 1],                 det 1,       tr 2 - s
//   CPF, impulse averaged along the predicted path z + tau v (suppl. Eq. 27-30, kCpf):
//     v+ = v - dt omega^2 z - (s / 2) v,   z+ = z + dt v+
//     A = [1 - s, dt (1 - s/2); -omega^2 dt, 1 - s/2], det 1 - s/2, tr 2 - 3 s / 2
//   DPF at the end of the predicted step z + dt v (what penalty_pipeline.h does for planes):
//     v+ = v - dt omega^2 (z + dt v),      z+ = z + dt v+
//     A = [1 - s, dt (1 - s); -omega^2 dt, 1 - s],     det 1 - s,   tr 2 - 2 s
// A real 2 x 2 matrix has both eigenvalues in the closed unit disc iff |det| <= 1 and
// |tr| <= 1 + det (Jury). This gives s <= 4, i.e. dt <= 2 sqrt(m / k), for SE (the paper's
// bound; |lambda| = 1 throughout, critically stable); s <= 2, i.e. dt <= sqrt(2 m / k), for CPF
// (the paper's bound; |lambda|^2 = det = 1 - s / 2 < 1 while the eigenvalues are complex,
// numerical damping); s <= 4 / 3, i.e. dt <= 2 sqrt(m / (3 k)), for DPF at the predicted end.
//
// The two-sided setup (PlaneSides::kTwoSided) sums the kernel against z < 0 and against z > 0,
// which is exactly the linear spring -k z of Eq. 22 for every state, so the library's step is
// the linear map A itself and its matrix can be read off column by column.
#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>

#include "gtest/gtest.h"
#include "scenes/testbeds/particle_on_plane.h"

namespace contactsim::core {
namespace {

constexpr double kMassKg = 1.0;            // the paper's particle
constexpr double kStiffnessNPerM = 1.0e4;  // the paper's plane: omega = 100 rad/s

double Omega() { return std::sqrt(kStiffnessNPerM / kMassKg); }

ParticleOnPlane MakeSetup(PlaneContactModel model, double dt_s, PlaneSides sides, double gravity) {
  ParticleOnPlane setup;
  setup.mass_kg = kMassKg;
  setup.gravity_m_per_s2 = gravity;
  setup.dt_s = dt_s;
  setup.model = model;
  setup.sides = sides;
  return setup;
}

ParticleState1d Step(const ParticleOnPlane& setup, const ParticleState1d& state) {
  const ParticleStepResult r = StepParticleOnPlane(setup, state, kStiffnessNPerM);
  EXPECT_EQ(r.status, PenaltyStatus::kOk);
  return r.state;
}

// The library step's matrix: columns are the steps from the unit states (z, v) = (1, 0), (0, 1)
// of the two-sided, gravity-free (hence linear) setup.
Eigen::Matrix2d StepMatrix(PlaneContactModel model, double dt_s) {
  const ParticleOnPlane setup = MakeSetup(model, dt_s, PlaneSides::kTwoSided, 0.0);
  const ParticleState1d col_z = Step(setup, {1.0, 0.0});
  const ParticleState1d col_v = Step(setup, {0.0, 1.0});
  Eigen::Matrix2d a;
  a << col_z.z_m, col_v.z_m, col_z.v_m_per_s, col_v.v_m_per_s;
  return a;
}

// The update matrices derived in the header comment (suppl. Eq. 26 and 30).
Eigen::Matrix2d AnalyticMatrix(PlaneContactModel model, double dt) {
  const double w2 = Omega() * Omega();
  const double s = w2 * dt * dt;
  Eigen::Matrix2d a;
  switch (model) {
    case PlaneContactModel::kDpfAtStart:
      a << 1.0 - s, dt, -w2 * dt, 1.0;
      break;
    case PlaneContactModel::kDpfAtPredictedEnd:
      a << 1.0 - s, dt * (1.0 - s), -w2 * dt, 1.0 - s;
      break;
    case PlaneContactModel::kCpf:
      a << 1.0 - s, dt * (1.0 - 0.5 * s), -w2 * dt, 1.0 - 0.5 * s;
      break;
  }
  return a;
}

// The analytic stability bounds derived above [s].
double AnalyticCriticalDt(PlaneContactModel model) {
  switch (model) {
    case PlaneContactModel::kDpfAtStart:
      return 2.0 * std::sqrt(kMassKg / kStiffnessNPerM);
    case PlaneContactModel::kDpfAtPredictedEnd:
      return 2.0 * std::sqrt(kMassKg / (3.0 * kStiffnessNPerM));
    case PlaneContactModel::kCpf:
      return std::sqrt(2.0 * kMassKg / kStiffnessNPerM);
  }
  return 0.0;
}

const char* Name(PlaneContactModel model) {
  switch (model) {
    case PlaneContactModel::kDpfAtStart:
      return "SE (DPF at start)";
    case PlaneContactModel::kDpfAtPredictedEnd:
      return "DPF at predicted end";
    case PlaneContactModel::kCpf:
      return "CPF";
  }
  return "?";
}

constexpr PlaneContactModel kModels[] = {
    PlaneContactModel::kDpfAtStart, PlaneContactModel::kDpfAtPredictedEnd, PlaneContactModel::kCpf};

double SpectralRadius(const Eigen::Matrix2d& a) {
  return Eigen::EigenSolver<Eigen::Matrix2d>(a, /*computeEigenvectors=*/false)
      .eigenvalues()
      .cwiseAbs()
      .maxCoeff();
}

// The largest dt in [lo, hi] with stable(dt), for a predicate that holds on [0, dt*] only; the
// caller checks stable(lo) and !stable(hi). 60 halvings of a 0.1 s bracket resolve 1e-19 s.
template <typename Stable>
double BisectThreshold(double lo, double hi, Stable stable) {
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (stable(mid) ? lo : hi) = mid;
  }
  return lo;
}

// The bracket for every search, chosen without the analytic bounds (0.0115 to 0.02 s): 0.1 ms is
// far inside all of them, 100 ms far outside.
constexpr double kBracketLoS = 1e-4;
constexpr double kBracketHiS = 0.1;

TEST(ParticleOnPlaneStabilityTest, LibraryStepIsTheSupplementsUpdateMatrix) {
  for (const PlaneContactModel model : kModels) {
    for (const double dt : {0.002, 0.01, 0.015, 0.03}) {
      const Eigen::Matrix2d measured = StepMatrix(model, dt);
      const Eigen::Matrix2d expected = AnalyticMatrix(model, dt);
      // Both are a few flops from the same inputs: entries agree to rounding (1e-15) relative to
      // the largest entry, omega^2 dt <= 300.
      EXPECT_LE((measured - expected).cwiseAbs().maxCoeff(), 1e-12 * expected.cwiseAbs().maxCoeff())
          << Name(model) << " dt=" << dt << "\nmeasured\n"
          << measured << "\nexpected\n"
          << expected;
    }
  }
}

TEST(ParticleOnPlaneStabilityTest, OneSidedPlaneIsLinearWhilePenetratingThroughoutTheStep) {
  // The one-sided ground plane (the setup the perturbation test uses) gives the same map for
  // states that stay below the plane over the step: z < 0 and z + dt v* < 0.
  const double dt = 0.002;
  for (const PlaneContactModel model : kModels) {
    const ParticleOnPlane setup = MakeSetup(model, dt, PlaneSides::kOneSided, 0.0);
    const Eigen::Vector2d x(-0.01, 0.3);  // z + dt v = -0.0094 < 0
    const ParticleState1d next = Step(setup, {x(0), x(1)});
    const Eigen::Vector2d expected = AnalyticMatrix(model, dt) * x;
    EXPECT_NEAR(next.z_m, expected(0), 1e-15) << Name(model);
    EXPECT_NEAR(next.v_m_per_s, expected(1), 1e-13) << Name(model);
  }
}

TEST(ParticleOnPlaneStabilityTest, SeIsCriticallyStableAndCpfDampedBelowTheirBounds) {
  // Paper Sec. 3.6: "SE is critically stable ... with eigenvalues exactly |lambda| = 1. With CPF,
  // the eigenvalues are always |lambda| < 1 in the stable regime." Checked on the library's
  // matrix at half of each bound (s = 1 for SE, s = 1/2 for CPF, where the eigenvalues are
  // complex and |lambda| = sqrt(det)).
  const double dt_se = 0.5 * AnalyticCriticalDt(PlaneContactModel::kDpfAtStart);
  EXPECT_NEAR(SpectralRadius(StepMatrix(PlaneContactModel::kDpfAtStart, dt_se)), 1.0, 1e-12);
  const double dt_cpf = 0.5 * AnalyticCriticalDt(PlaneContactModel::kCpf);
  const double s = std::pow(Omega() * dt_cpf, 2);
  EXPECT_NEAR(SpectralRadius(StepMatrix(PlaneContactModel::kCpf, dt_cpf)), std::sqrt(1.0 - 0.5 * s),
              1e-12);
}

TEST(ParticleOnPlaneStabilityTest, EigenvalueThresholdsMatchAnalyticBounds) {
  double measured[3] = {};
  for (int i = 0; i < 3; ++i) {
    const PlaneContactModel model = kModels[i];
    // Stable: spectral radius <= 1 + 1e-9. SE's eigenvalues sit exactly on the unit circle below
    // its bound, where rounding scatters |lambda| by ~1e-15; above any bound the radius grows
    // like 1 + sqrt(s - s*) (SE) or 1 + c (s - s*) (CPF, DPF), so the slack moves the measured
    // threshold by less than 1e-9 relative.
    const auto stable = [model](double dt) {
      return SpectralRadius(StepMatrix(model, dt)) <= 1.0 + 1e-9;
    };
    ASSERT_TRUE(stable(kBracketLoS)) << Name(model);
    ASSERT_FALSE(stable(kBracketHiS)) << Name(model);
    measured[i] = BisectThreshold(kBracketLoS, kBracketHiS, stable);
    const double expected = AnalyticCriticalDt(model);
    std::printf("eigenvalue threshold %-22s %.9f s (analytic %.9f s)\n", Name(model), measured[i],
                expected);
    // The eigenvalue criterion is exact up to the 1e-9 slack: 1e-6 relative is a wide margin and
    // much tighter than the 1% asked of the paper's bounds.
    EXPECT_NEAR(measured[i] / expected, 1.0, 1e-6) << Name(model);
  }
  // The paper's claim: CPF's bound is smaller than SE's by exactly sqrt(2) (a check that fails if
  // either method's force evaluation changes, e.g. to the predicted end: ratio sqrt(3)).
  EXPECT_NEAR(measured[0] / measured[2], std::sqrt(2.0), 1e-6);
}

TEST(ParticleOnPlaneStabilityTest, SimulatedThresholdsMatchAnalyticBounds) {
  // Simulation with gravity (an affine term: it moves the equilibrium to about -m g / k but not
  // the stability): two-sided spring, start on the plane moving up at 0.1 m/s, so the initial
  // amplitude is about v / omega + m g / k = 2e-3 m. Stable: |z| stays below 1 m (500 times
  // that) for 10,000 steps. On the unstable side |lambda| - 1 >= sqrt(8 eps) (SE) or 8 eps
  // (CPF; 6 eps for DPF) at dt = (1 + eps) dt*, so the orbit grows by 500 within 10,000 steps
  // for every eps > 1e-4; on the stable side SE's orbit stretches by about 1 / sqrt(1 - s / 4),
  // which reaches 500 only for eps > -1e-5. The measured threshold is thus within 1e-4 of the
  // bound; the tolerance is the 1% asked for.
  constexpr int kSteps = 10'000;
  constexpr double kEscapeM = 1.0;
  double measured[3] = {};
  for (int i = 0; i < 3; ++i) {
    const PlaneContactModel model = kModels[i];
    const auto stable = [model](double dt) {
      const ParticleOnPlane setup = MakeSetup(model, dt, PlaneSides::kTwoSided, 9.81);
      ParticleState1d state{0.0, 0.1};
      for (int n = 0; n < kSteps; ++n) {
        state = Step(setup, state);
        if (!(std::abs(state.z_m) <= kEscapeM)) return false;
      }
      return true;
    };
    ASSERT_TRUE(stable(kBracketLoS)) << Name(model);
    ASSERT_FALSE(stable(kBracketHiS)) << Name(model);
    measured[i] = BisectThreshold(kBracketLoS, kBracketHiS, stable);
    const double expected = AnalyticCriticalDt(model);
    std::printf("simulated threshold  %-22s %.9f s (analytic %.9f s, %+.2e relative)\n",
                Name(model), measured[i], expected, measured[i] / expected - 1.0);
    EXPECT_NEAR(measured[i] / expected, 1.0, 0.01) << Name(model);
  }
  EXPECT_NEAR(measured[0] / measured[2], std::sqrt(2.0), 0.01 * std::sqrt(2.0));
}

TEST(ParticleOnPlaneStabilityTest, RejectsInvalidInput) {
  ParticleOnPlane setup = MakeSetup(PlaneContactModel::kCpf, 0.002, PlaneSides::kOneSided, 9.81);
  EXPECT_TRUE(ValidateParticleOnPlane(setup).ok());
  ParticleOnPlane bad = setup;
  bad.mass_kg = 0.0;
  EXPECT_EQ(ValidateParticleOnPlane(bad).code(), absl::StatusCode::kInvalidArgument);
  bad = setup;
  bad.dt_s = -1.0;
  EXPECT_EQ(ValidateParticleOnPlane(bad).code(), absl::StatusCode::kInvalidArgument);
  bad = setup;
  bad.gravity_m_per_s2 = std::nan("");
  EXPECT_EQ(ValidateParticleOnPlane(bad).code(), absl::StatusCode::kInvalidArgument);

  const ParticleState1d state{-0.01, 0.0};
  const ParticleStepResult negative_k = StepParticleOnPlane(setup, state, -1.0);
  EXPECT_EQ(negative_k.status, PenaltyStatus::kInvalidInput);
  EXPECT_EQ(negative_k.state.z_m, state.z_m);
  EXPECT_EQ(negative_k.impulse_Ns, 0.0);
  EXPECT_EQ(StepParticleOnPlane(setup, {std::nan(""), 0.0}, 1e4).status,
            PenaltyStatus::kInvalidInput);
}

}  // namespace
}  // namespace contactsim::core
