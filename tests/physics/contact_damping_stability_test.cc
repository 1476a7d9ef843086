// Stability of penalty contact with a normal dashpot (contact_damping.h): the explicit step's
// bound k dt^2 + c dt <= 2 m (CPF), 3 k dt^2 + 2 c dt <= 4 m (DPF at the predicted end),
// k dt^2 + 2 c dt <= 4 m (DPF at the start, the paper's SE), derived in contact_damping.h like
// the paper's supplement C, checked on the 1D particle of particle_on_plane.h, which steps the
// library's kernels (cpf.h's static plane, dpf.h) with the dashpot.
//
// Setup: m = 1 kg, k = 1e4 N/m (omega = 100 rad/s, the paper's particle), dashpots c = 0 (the
// paper's bounds), 20, 60 and 150 N s/m (zeta = c / (2 sqrt(k m)) = 0.1, 0.3, 0.75), two-sided
// plane and g = 0: the linear system of the analysis.
//   * The library's update matrix (stepping the unit states) matches the closed form of
//     contact_damping.h to 1e-12 (rounding of O(1) entries).
//   * Its spectral radius is below 1 at 0.999 dt_c (SE without dashpot: 1, critically stable) and
//     above 1 at 1.001 dt_c.
//   * Simulation from z = 0, v = 0.1 m/s for 10,000 steps stays within 1 m at 0.99 dt_c and leaves
//     it at 1.01 dt_c. Why 1 %: just above the bound the dominant eigenvalue leaves the unit disc
//     by about d|lambda|/d(dt) x 0.01 dt_c = O(0.01), so 10,000 steps amplify the 1e-3 m start by
//     e^(O(100)); just below, |lambda| < 1 and the motion decays.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/contact/penalty/contact_damping.h"
#include "scenes/testbeds/particle_on_plane.h"

namespace contactsim::core {
namespace {

constexpr double kMassKg = 1.0;
constexpr double kStiffnessNPerM = 1.0e4;

struct Model {
  const char* name;
  PlaneContactModel plane_model;
  DashpotScheme scheme;
};

constexpr Model kModels[] = {
    {"CPF", PlaneContactModel::kCpf, DashpotScheme::kCpf},
    {"DPF at predicted end", PlaneContactModel::kDpfAtPredictedEnd,
     DashpotScheme::kDpfAtPredictedEnd},
    {"DPF at start (SE)", PlaneContactModel::kDpfAtStart, DashpotScheme::kDpfAtStart},
};

ParticleOnPlane Setup(const Model& model, double dt_s, double c) {
  ParticleOnPlane setup;
  setup.mass_kg = kMassKg;
  setup.gravity_m_per_s2 = 0.0;
  setup.dt_s = dt_s;
  setup.model = model.plane_model;
  setup.sides = PlaneSides::kTwoSided;
  setup.damping_n_s_per_m = c;
  EXPECT_TRUE(ValidateParticleOnPlane(setup).ok());
  return setup;
}

ParticleState1d Step(const ParticleOnPlane& setup, const ParticleState1d& state) {
  const ParticleStepResult r = StepParticleOnPlane(setup, state, kStiffnessNPerM);
  EXPECT_EQ(r.status, PenaltyStatus::kOk);
  return r.state;
}

// The library's update matrix of (z, v). Its z column is the step of (1, 0); its v column the
// difference of the steps of (-1, 1) and (-1, 0) (the step is linear in the two-sided regime):
// from z = 0 itself, DPF at the start sees no depth and so no dashpot.
Eigen::Matrix2d LibraryMatrix(const Model& model, double dt_s, double c) {
  const ParticleOnPlane setup = Setup(model, dt_s, c);
  const ParticleState1d z = Step(setup, {1.0, 0.0});
  const ParticleState1d zv = Step(setup, {-1.0, 1.0});
  const ParticleState1d z0 = Step(setup, {-1.0, 0.0});
  Eigen::Matrix2d a;
  a << z.z_m, zv.z_m - z0.z_m, z.v_m_per_s, zv.v_m_per_s - z0.v_m_per_s;
  return a;
}

// contact_damping.h: [1 - s, dt d; -s / dt, d], d = det0 - h, s = k dt^2 / m, h = c dt / m.
Eigen::Matrix2d AnalyticMatrix(const Model& model, double dt_s, double c) {
  const double s = kStiffnessNPerM * dt_s * dt_s / kMassKg;
  const double h = c * dt_s / kMassKg;
  const double det0 = model.scheme == DashpotScheme::kCpf                 ? 1.0 - s / 2.0
                      : model.scheme == DashpotScheme::kDpfAtPredictedEnd ? 1.0 - s
                                                                          : 1.0;
  const double d = det0 - h;
  Eigen::Matrix2d a;
  a << 1.0 - s, dt_s * d, -s / dt_s, d;
  return a;
}

double SpectralRadius(const Eigen::Matrix2d& a) { return a.eigenvalues().cwiseAbs().maxCoeff(); }

// Largest |z| over 10,000 steps from z = 0, v = 0.1 m/s (stops once above 1 m).
double LargestExcursion(const Model& model, double dt_s, double c) {
  const ParticleOnPlane setup = Setup(model, dt_s, c);
  ParticleState1d state{0.0, 0.1};
  double largest = 0.0;
  for (int i = 0; i < 10'000 && largest <= 1.0; ++i) {
    state = Step(setup, state);
    largest = std::max(largest, std::abs(state.z_m));
  }
  return largest;
}

TEST(ContactDampingStabilityTest, WithoutDashpotTheBoundsAreThePapers) {
  const double m = kMassKg, k = kStiffnessNPerM;
  EXPECT_NEAR(CriticalTimeStep(k, 0.0, m, DashpotScheme::kCpf), std::sqrt(2.0 * m / k), 1e-15);
  EXPECT_NEAR(CriticalTimeStep(k, 0.0, m, DashpotScheme::kDpfAtPredictedEnd),
              2.0 * std::sqrt(m / (3.0 * k)), 1e-15);
  EXPECT_NEAR(CriticalTimeStep(k, 0.0, m, DashpotScheme::kDpfAtStart), 2.0 * std::sqrt(m / k),
              1e-15);
}

TEST(ContactDampingStabilityTest, LibraryStepMatchesTheDerivedUpdateMatrix) {
  for (const Model& model : kModels) {
    for (const double c : {0.0, 20.0, 60.0, 150.0}) {
      for (const double dt : {1e-3, 5e-3, 1e-2}) {
        const Eigen::Matrix2d library = LibraryMatrix(model, dt, c);
        const Eigen::Matrix2d analytic = AnalyticMatrix(model, dt, c);
        // Entries are O(1) (v column: O(dt)); rounding of a few operations each.
        EXPECT_LE((library - analytic).cwiseAbs().maxCoeff(), 1e-12)
            << model.name << ", c " << c << ", dt " << dt << "\n"
            << library << "\n"
            << analytic;
      }
    }
  }
}

TEST(ContactDampingStabilityTest, StableJustBelowTheBoundUnstableJustAbove) {
  for (const Model& model : kModels) {
    for (const double c : {0.0, 20.0, 60.0, 150.0}) {
      const double dt_c = CriticalTimeStep(kStiffnessNPerM, c, kMassKg, model.scheme);
      const double below = SpectralRadius(LibraryMatrix(model, 0.999 * dt_c, c));
      const double above = SpectralRadius(LibraryMatrix(model, 1.001 * dt_c, c));
      const double sim_below = LargestExcursion(model, 0.99 * dt_c, c);
      const double sim_above = LargestExcursion(model, 1.01 * dt_c, c);
      std::printf(
          "%-22s c %5.1f N s/m: dt_c %.6f ms, |lambda| %.6f / %.6f at 0.999 / 1.001 dt_c, largest "
          "|z| %.3g / %.3g m at 0.99 / 1.01 dt_c\n",
          model.name, c, 1e3 * dt_c, below, above, sim_below, sim_above);
      if (model.scheme == DashpotScheme::kDpfAtStart && c == 0.0) {
        // Undamped SE is critically stable below its bound, |lambda| = 1 (det = 1): to rounding.
        EXPECT_NEAR(below, 1.0, 1e-12) << model.name;
      } else {
        EXPECT_LT(below, 1.0) << model.name << ", c " << c;
      }
      EXPECT_GT(above, 1.0) << model.name << ", c " << c;
      EXPECT_LE(sim_below, 1.0) << model.name << ", c " << c;
      EXPECT_GT(sim_above, 1.0) << model.name << ", c " << c;
    }
  }
}

// The dashpot only shrinks the bound (the step's damping is explicit): dt_c falls with c.
TEST(ContactDampingStabilityTest, DashpotShrinksTheBound) {
  for (const Model& model : kModels) {
    double previous = CriticalTimeStep(kStiffnessNPerM, 0.0, kMassKg, model.scheme);
    for (const double c : {20.0, 60.0, 150.0}) {
      const double dt_c = CriticalTimeStep(kStiffnessNPerM, c, kMassKg, model.scheme);
      EXPECT_LT(dt_c, previous) << model.name << ", c " << c;
      previous = dt_c;
    }
  }
}

}  // namespace
}  // namespace contactsim::core
