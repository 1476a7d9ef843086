// Robustness to stiffness perturbations (Tang et al. 2012, Sec. 3.6): "a 1kg particle, as it is
// dropped from a height of 0.1m onto a plane with stiffness 10kN/m +-25%, simulated with a time
// step of 2ms ... we found SE to be robust only to stiffness perturbations below 15%, while CPF
// is robust to stiffness perturbations up to 70%." SE is symplectic Euler with the discrete
// penalty force at the start of the step (supplementary C, PlaneContactModel::kDpfAtStart), CPF
// the continuous penalty impulse (kCpf), both through scenes/testbeds/particle_on_plane.h.
//
// What the paper leaves open, and the choices made here:
//   * The perturbation: "sinusoidal perturbations to the penalty stiffness", no frequency given.
//     We use k(t) = k0 (1 + p sin(omega0 t)), omega0 = sqrt(k0 / m) = 100 rad/s, the frequency
//     of the contact oscillation, with phase 0 at the drop as "sin" reads; k is sampled at the
//     start of each step, t = n dt, and held over the step. Other frequencies do not reproduce
//     the paper (first failures on a 1% grid, same criterion): omega0 / 2 gives SE 0.37, CPF
//     0.79; 2 omega0 (the principal parametric resonance) SE 0.07, CPF 0.30; a perturbation of
//     1 rad per step SE 0.32, CPF none below 1.
//   * Robust: the particle never rises above twice its drop height (0.2 m) within 20 s (about 60
//     bounces of the unperturbed SE particle).
//   * The threshold. Whether a run stays bounded is a chaotic function of p: the bouncing
//     particle's energy changes at each impact with the stiffness phase, and that phase depends
//     on the previous flight. CPF at phase 0, for instance, fails at p = 0.5875 and 0.5925 but not
//     at 0.59, 0.60 or 0.65, so "the largest bounded p" depends on the grid (0.66 on a 1% grid,
//     0.585 on a 0.25% grid) and bisection is not well posed. We sample p in the paper's 5% bands,
//     20 values per band, and report for each method
//       - the first failure: the smallest sampled p whose run escapes;
//       - the failure onset: the lower edge of the first band in which most (over half) of the
//         runs escape, the counterpart of the paper's "robust below 15%" / "up to 70%".
//     The band counts are far more stable than single runs. In a standalone re-implementation
//     with the horizon changed (10 to 40 s), the bound changed (1.5 to 5 times the drop height)
//     or the arithmetic changed at rounding level (how k0 (1 + p sin) is evaluated), SE's
//     0.15 band had 10 to 19 failures of 20 and CPF's 0.65 and 0.70 bands 4 to 11 and 16 to 19:
//     the onsets stay at SE 0.15 and CPF 0.70, or move by one band (5 points) where a count
//     sits at 10 or 11.
// Measured (printed by the test), failures per band of 20 from p = 0, up to the onset band:
//   SE   0 0 2 19                              first failure 0.1250, onset 0.15
//   CPF  0 0 0 0 0 0 0 0 0 0 0 2 2 10 16       first failure 0.5875, onset 0.70
// i.e. SE fails typically from 15% and CPF from 70%: the paper's numbers, within the +-5 points
// asked. CPF's 0.65 band sits exactly at half (10 of 20): one run flipping would make its onset
// 0.65, still within the tolerance. CPF never fails below 55%, where SE almost always does.
//
// Two more views of the same claim:
//   * The linearized resting contact (second test): the product of the library's update
//     matrices over the perturbation has a Floquet (Lyapunov) threshold of 0.695 for CPF, a
//     number free of any boundedness criterion, and 0.089 for SE, which has no damping at all.
//     (The dropped CPF particle does not quite rest: for p >= 0.2 it ends hopping millimetres to
//     centimetres, driven at resonance through the gravity sag m g / k(t); it escapes from those
//     hops. The agreement of 0.695 with the drop's onset is consistent, not causal.)
//   * The phase (third test): with k0 (1 + p sin(omega0 t + phi)) over 8 phases phi, the first
//     failures are 0.12 to 0.24 for SE and 0.40 to 0.67 for CPF: phase 0 is CPF's most robust
//     case, and the paper's 70% is not a phase average. What holds for every phase is the
//     conclusion: CPF withstands far larger perturbations than SE.
// penalty_pipeline.h's DPF for planes evaluates the force at the end of the predicted step
// (kDpfAtPredictedEnd), which is damped like CPF and more strongly: on the 1% grid it first
// fails at 0.82 here. The paper's SE numbers belong to the force at the start of the step only.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "gtest/gtest.h"
#include "scenes/testbeds/particle_on_plane.h"

namespace contactsim::core {
namespace {

constexpr double kMassKg = 1.0;             // paper: 1 kg particle
constexpr double kStiffness0NPerM = 1.0e4;  // paper: 10 kN/m
constexpr double kDtS = 0.002;              // paper: 2 ms
constexpr double kDropHeightM = 0.1;        // paper: 0.1 m
constexpr double kGravityMPerS2 = 9.81;
constexpr int kSteps = 10'000;  // 20 s
constexpr double kEscapeHeightM = 2.0 * kDropHeightM;

double Omega0() { return std::sqrt(kStiffness0NPerM / kMassKg); }  // 100 rad/s

ParticleOnPlane MakeSetup(PlaneContactModel model, PlaneSides sides, double gravity) {
  ParticleOnPlane setup;
  setup.mass_kg = kMassKg;
  setup.gravity_m_per_s2 = gravity;
  setup.dt_s = kDtS;
  setup.model = model;
  setup.sides = sides;
  return setup;
}

// k(t_n) = k0 (1 + p sin(omega0 t_n + phase)) [N/m].
double Stiffness(double p, double phase, int n) {
  return kStiffness0NPerM * (1.0 + p * std::sin(Omega0() * n * kDtS + phase));
}

// The paper's drop: from rest at 0.1 m, one-sided plane, with gravity.
bool StaysBounded(PlaneContactModel model, double p, double phase) {
  const ParticleOnPlane setup = MakeSetup(model, PlaneSides::kOneSided, kGravityMPerS2);
  ParticleState1d state{kDropHeightM, 0.0};
  for (int n = 0; n < kSteps; ++n) {
    const ParticleStepResult r = StepParticleOnPlane(setup, state, Stiffness(p, phase, n));
    EXPECT_EQ(r.status, PenaltyStatus::kOk);
    state = r.state;
    if (!(state.z_m <= kEscapeHeightM)) return false;
  }
  return true;
}

// The first failure on a 1% grid: the smallest p = 0.01 i whose run escapes (1 if none below 1).
double FirstFailureOnGrid(PlaneContactModel model, double phase) {
  for (int i = 0; i <= 99; ++i) {
    if (!StaysBounded(model, 0.01 * i, phase)) return 0.01 * i;
  }
  return 1.0;
}

// The drop sampled in the paper's 5% bands [0.05 b, 0.05 (b + 1)), 20 values of p per band, up to
// and including the failure onset (see the file comment).
struct BandScan {
  std::vector<int> failures_per_band;
  double first_failure = 1.0;  // smallest sampled p that escapes
  double onset = 1.0;          // lower edge of the first band with over half of its runs escaping
};

BandScan ScanBands(PlaneContactModel model) {
  constexpr int kBands = 20;
  constexpr int kPerBand = 20;
  BandScan scan;
  for (int b = 0; b < kBands; ++b) {
    int failures = 0;
    for (int j = 0; j < kPerBand; ++j) {
      const double p = 0.05 * b + 0.05 * j / kPerBand;  // at most 0.9975: k stays positive
      if (!StaysBounded(model, p, 0.0)) {
        ++failures;
        scan.first_failure = std::min(scan.first_failure, p);
      }
    }
    scan.failures_per_band.push_back(failures);
    if (2 * failures > kPerBand) {
      scan.onset = 0.05 * b;
      break;
    }
  }
  return scan;
}

void Print(const char* name, const BandScan& scan) {
  std::printf("%-4s failures per band of 20:", name);
  for (const int f : scan.failures_per_band) std::printf(" %d", f);
  std::printf("; first failure %.4f, onset %.2f\n", scan.first_failure, scan.onset);
}

TEST(StiffnessPerturbationTest, DropFailureOnsetsReproduceThePaper) {
  const BandScan se = ScanBands(PlaneContactModel::kDpfAtStart);
  const BandScan cpf = ScanBands(PlaneContactModel::kCpf);
  Print("SE", se);
  Print("CPF", cpf);
  // The paper states its thresholds to 5 points: "robust only below 15%" and "up to 70%". The
  // onsets must match within +-5 points (the tolerance asked; the criterion changes of the file
  // comment move them by at most one band, 5 points). Swapping the methods fails both checks.
  EXPECT_NEAR(se.onset, 0.15, 0.05 + 1e-9);
  EXPECT_NEAR(cpf.onset, 0.70, 0.05 + 1e-9);
  // CPF is robust wherever SE fails typically: its first failure lies beyond SE's onset band
  // by far (measured 0.5875 against 0.15 to 0.20; 0.5 leaves room for chaotic single runs).
  EXPECT_GT(cpf.first_failure, 0.5);
  // SE survives small perturbations: no failure below 5% (measured 0.125; 0.09 in the variants
  // of the file comment). A contact force that pumps energy by itself fails at p = 0 already.
  EXPECT_GT(se.first_failure, 0.05);
}

// Largest Lyapunov exponent [1/s] of the linearized resting contact: the two-sided spring of
// supplementary Eq. 22 without gravity (the affine gravity term does not change stability), i.e.
// the product of the library's update matrices A(k_n). The state is renormalized every step (the
// map is linear) in the norm sqrt((omega0 z)^2 + v^2), and the exponent is the mean growth of the
// logarithm over 100 s.
double LyapunovExponent(PlaneContactModel model, double p) {
  constexpr int kLyapunovSteps = 50'000;
  const ParticleOnPlane setup = MakeSetup(model, PlaneSides::kTwoSided, 0.0);
  ParticleState1d state{1.0 / Omega0(), 0.0};
  double log_growth = 0.0;
  for (int n = 0; n < kLyapunovSteps; ++n) {
    const ParticleStepResult r = StepParticleOnPlane(setup, state, Stiffness(p, 0.0, n));
    EXPECT_EQ(r.status, PenaltyStatus::kOk);
    const double norm = std::hypot(Omega0() * r.state.z_m, r.state.v_m_per_s);
    log_growth += std::log(norm);
    state = {r.state.z_m / norm, r.state.v_m_per_s / norm};
  }
  return log_growth / (kLyapunovSteps * kDtS);
}

// The smallest p in [0, 0.99] with exponent above `growth_per_s`, by bisection; the exponent
// does not decrease with p over this range for either method (scans in steps of 0.03: CPF from
// -5.05 /s at p = 0 through 0 at 0.695 to 4.6 /s at 0.99; SE 0 up to 0.06, then 0.04 /s at
// 0.09 rising to 9.2 /s at 0.99), so the crossing is unique.
double FloquetThreshold(PlaneContactModel model, double growth_per_s) {
  double lo = 0.0;
  double hi = 0.99;
  EXPECT_LE(LyapunovExponent(model, lo), growth_per_s);
  EXPECT_GT(LyapunovExponent(model, hi), growth_per_s);
  for (int i = 0; i < 14; ++i) {  // 0.99 / 2^14 = 6e-5
    const double mid = 0.5 * (lo + hi);
    (LyapunovExponent(model, mid) > growth_per_s ? hi : lo) = mid;
  }
  return hi;
}

TEST(StiffnessPerturbationTest, RestingContactFloquetThresholds) {
  // CPF: at p = 0 every step contracts by |lambda| = sqrt(1 - s/2), s = (omega0 dt)^2 = 0.04,
  // an exponent of -5.05 /s; the perturbation at omega0 (the second parametric resonance)
  // overcomes this numerical damping at p = 0.695. Criterion: exponent > 0 (the finite-horizon
  // estimate is within 0.01 /s of the limit, and the exponent changes by 13 /s per unit p there,
  // so the threshold is within 1e-3).
  const double cpf = FloquetThreshold(PlaneContactModel::kCpf, 0.0);
  // SE: undamped, its exponent is exactly 0 while stable; the finite-horizon estimate of that 0
  // is below 1e-3 /s in magnitude (p <= 0.06), so "unstable" is an exponent above 0.02 /s. In the
  // continuous Mathieu equation a perturbation at exactly omega0 destabilizes for any p > 0; SE
  // tolerates a few percent only because its discrete frequency acos(1 - s/2) / dt = 100.17 rad/s
  // is detuned from omega0.
  const double se = FloquetThreshold(PlaneContactModel::kDpfAtStart, 0.02);
  std::printf("resting-contact Floquet threshold: SE %.4f, CPF %.4f\n", se, cpf);
  // CPF's resting-contact threshold is the paper's 70% (+-5 points, as above), independently of
  // any boundedness criterion; it moves when the damping changes (DPF at the predicted end,
  // twice as damped, stays stable for every p < 1; SE, undamped, fails at the value below).
  EXPECT_NEAR(cpf, 0.70, 0.05);
  // SE's resting contact fails below the paper's 15% for the bouncing particle: with no
  // damping, the perturbation pumps it at the first small detuned resonance.
  EXPECT_GT(se, 0.0);
  EXPECT_LT(se, 0.15);
}

TEST(StiffnessPerturbationTest, CpfIsMoreRobustThanSeForEveryPerturbationPhase) {
  // The drop's first failures depend on the perturbation's phase at the drop (file comment); the
  // paper's conclusion holds for all phases: over 8 phases, CPF's earliest first failure comes
  // after SE's latest. (Measured: SE 0.12 to 0.24, CPF 0.40 to 0.67; single values move by a
  // few points with rounding-level changes, the gap of 0.16 is three such moves.)
  double se_max = 0.0;
  double cpf_min = 1.0;
  for (int j = 0; j < 8; ++j) {
    const double phase = 2.0 * M_PI * j / 8.0;
    const double se = FirstFailureOnGrid(PlaneContactModel::kDpfAtStart, phase);
    const double cpf = FirstFailureOnGrid(PlaneContactModel::kCpf, phase);
    std::printf("phase %d pi/4: first failure SE %.2f, CPF %.2f\n", j, se, cpf);
    se_max = std::max(se_max, se);
    cpf_min = std::min(cpf_min, cpf);
  }
  EXPECT_GT(cpf_min, se_max);
}

}  // namespace
}  // namespace contactsim::core
