// Projected Gauss–Seidel on the velocity form (core/dynamics/rigid_lcp/spatial_contact_pgs.h)
// against analytic answers and against pivoting (SolveSpatialContactLcp) on the same rows: a 1 kg,
// 0.1 m cube on the ground (four corner contacts, 8 cone edges, mu 0.5) at rest and pushed, a
// stack of two cubes, an infeasible problem that must be reported, and malformed input.
#include "core/dynamics/rigid_lcp/spatial_contact_pgs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/dynamics/rigid_lcp/polytope_stepper.h"
#include "core/dynamics/rigid_lcp/spatial_contact_lcp.h"

namespace contactsim::core {
namespace {

constexpr double kG = 9.81;
constexpr double kH = 0.004;
constexpr double kMass = 1.0;
constexpr double kHalf = 0.05;
constexpr double kMu = 0.5;

SpatialLcpBody Cube(const Vec3& velocity) {
  SpatialLcpBody body;
  body.inverse_mass.setZero();
  body.inverse_mass.topLeftCorner<3, 3>() = Mat3::Identity() / kMass;
  // A cube's I = m (2 a)^2 / 6 about any axis through its centre.
  body.inverse_mass.bottomRightCorner<3, 3>() =
      Mat3::Identity() / (kMass * 4 * kHalf * kHalf / 6.0);
  body.free_velocity << velocity, Vec3::Zero();
  return body;
}

// A contact of `below` (a body index, or -1 for the ground) under `above` at the corner offset
// r_above from above's centre (r_below from below's), built as the stepper builds it: the normal
// points from above (body1) into below (body2), friction rows on the cone of that normal.
SpatialLcpConstraint Corner(int above, const Vec3& r_above, int below, const Vec3& r_below) {
  const Vec3 n = -Vec3::UnitZ();
  auto row = [&](const Vec3& d) {
    SpatialLcpRow out;
    out.body_a = above;
    out.jacobian_a = -PushAtOffset(d, r_above);
    if (below >= 0) {
      out.body_b = below;
      out.jacobian_b = PushAtOffset(d, r_below);
    }
    return out;
  };
  SpatialLcpConstraint c;
  c.primary = row(n);
  c.friction_coefficient = kMu;
  for (const Vec3& d : FrictionConeDirections(n, 8)) c.friction.push_back(row(d));
  return c;
}

std::vector<SpatialLcpConstraint> CubeOn(int above, int below) {
  std::vector<SpatialLcpConstraint> out;
  for (const double x : {-kHalf, kHalf}) {
    for (const double y : {-kHalf, kHalf}) {
      out.push_back(Corner(above, Vec3(x, y, -kHalf), below, Vec3(x, y, kHalf)));
    }
  }
  return out;
}

SpatialContactPgsOptions Tight() {
  SpatialContactPgsOptions options;
  options.residual_tolerance_m_per_s = 1e-12;
  options.max_sweeps = 20000;
  options.stall_sweeps = 1000;
  return options;
}

double TotalNormal(const SpatialLcpSolution& s, int first, int count) {
  double sum = 0.0;
  for (int i = first; i < first + count; ++i) sum += s.normal_impulse[i];
  return sum;
}

TEST(SpatialContactPgsTest, ACubeAtRestCarriesItsWeightLikePivoting) {
  const std::vector<SpatialLcpBody> bodies = {Cube(Vec3(0, 0, -kG * kH))};
  const std::vector<SpatialLcpConstraint> rows = CubeOn(0, -1);
  absl::StatusOr<SpatialLcpSolution> pgs = SolveSpatialContactPgs(bodies, rows, Tight());
  ASSERT_TRUE(pgs.ok()) << pgs.status();
  ASSERT_TRUE(pgs->solver.solved) << pgs->solver.solution.message;
  EXPECT_EQ(pgs->solver.path, LcpSolverPath::kProjectedGaussSeidel);
  // A velocity residual of 1e-12 m/s leaves at most m 1e-12 N s of the weight's m g h = 0.039 N s
  // unbalanced: 1e-9 relative is a bound with margin, and the cube ends at rest.
  EXPECT_NEAR(TotalNormal(*pgs, 0, 4), kMass * kG * kH, 1e-9 * kMass * kG * kH);
  EXPECT_LE(pgs->velocity[0].norm(), 1e-10);
  absl::StatusOr<SpatialLcpSolution> lemke = SolveSpatialContactLcp(bodies, rows, {});
  ASSERT_TRUE(lemke.ok() && lemke->solver.solved);
  EXPECT_LE((pgs->velocity[0] - lemke->velocity[0]).norm(), 1e-10);
}

TEST(SpatialContactPgsTest, APushedCubeSlidesWithTheCoulombDeceleration) {
  // Pushed along the first cone edge (t1) at 1 m/s: kinetic friction removes mu g h of it in one
  // step, along the edge exactly (the polygon's corner), and no rotation (the corners share it).
  const Vec3 t1 = FrictionConeDirections(-Vec3::UnitZ(), 8)[0];
  const std::vector<SpatialLcpBody> bodies = {Cube(1.0 * t1 + Vec3(0, 0, -kG * kH))};
  const std::vector<SpatialLcpConstraint> rows = CubeOn(0, -1);
  absl::StatusOr<SpatialLcpSolution> pgs = SolveSpatialContactPgs(bodies, rows, Tight());
  ASSERT_TRUE(pgs.ok() && pgs->solver.solved) << pgs->solver.solution.message;
  const Vec3 expected = (1.0 - kMu * kG * kH) * t1;
  EXPECT_LE((pgs->velocity[0].head<3>() - expected).norm(), 1e-9);
  EXPECT_LE(pgs->velocity[0].tail<3>().norm(), 1e-8);
  absl::StatusOr<SpatialLcpSolution> lemke = SolveSpatialContactLcp(bodies, rows, {});
  ASSERT_TRUE(lemke.ok() && lemke->solver.solved);
  EXPECT_LE((lemke->velocity[0].head<3>() - expected).norm(), 1e-9);
  for (int i = 0; i < 4; ++i) EXPECT_GT(pgs->sliding_speed[i], 0.9);  // ~1 m/s at every corner
}

TEST(SpatialContactPgsTest, AStackRestsAndAWarmStartFinishesAtOnce) {
  // Cube 1 on cube 0 on the ground: the ground carries both weights, the middle one.
  const std::vector<SpatialLcpBody> bodies = {Cube(Vec3(0, 0, -kG * kH)),
                                              Cube(Vec3(0, 0, -kG * kH))};
  std::vector<SpatialLcpConstraint> rows = CubeOn(0, -1);
  for (const SpatialLcpConstraint& c : CubeOn(1, 0)) rows.push_back(c);
  absl::StatusOr<SpatialLcpSolution> cold = SolveSpatialContactPgs(bodies, rows, Tight());
  ASSERT_TRUE(cold.ok() && cold->solver.solved) << cold->solver.solution.message;
  EXPECT_NEAR(TotalNormal(*cold, 0, 4), 2 * kMass * kG * kH, 1e-9 * kMass * kG * kH);
  EXPECT_NEAR(TotalNormal(*cold, 4, 4), kMass * kG * kH, 1e-9 * kMass * kG * kH);
  for (const Vec6& v : cold->velocity) EXPECT_LE(v.norm(), 1e-10);

  SpatialContactWarmStart warm;
  warm.normal_impulse = cold->normal_impulse;
  warm.friction_impulse.assign(rows.size(), Vec3::Zero());
  absl::StatusOr<SpatialLcpSolution> hot = SolveSpatialContactPgs(bodies, rows, Tight(), &warm);
  ASSERT_TRUE(hot.ok() && hot->solver.solved);
  // Started at the normal answer (friction from zero, where the cold run's round-off friction
  // left it), a few sweeps reach 1e-12 m/s (measured 3) against the cold start's many.
  EXPECT_LE(hot->solver.solution.iterations, 3);
  std::printf("stack: %d sweeps cold, %d warm\n", cold->solver.solution.iterations,
              hot->solver.solution.iterations);
  EXPECT_GT(cold->solver.solution.iterations, 3 * hot->solver.solution.iterations);
}

TEST(SpatialContactPgsTest, BlockPassesReachTheSameAnswers) {
  // A stack of eight cubes (analytic: the contact under cube k carries (8 - k) m g h, all at
  // rest), slow for Gauss–Seidel (~25,000 sweeps to 1e-9 m/s), with each contact's block passed
  // over 4 times per sweep: the same answers as the plain sweeps, to 1e-9 m/s of residual. That
  // leaves each body at most ~1e-9 m/s x (the bodies above it) of velocity and m x that of impulse
  // unbalanced: 1e-7 m/s and 1e-6 relative of the weights are bounds with margin. (The relaxation
  // after a stall is exercised by the infeasible problem below; on this stack its max-norm
  // residual plateaus while the weight travels down, so a stall test short enough to fire there
  // fires again in the relaxed run.)
  constexpr int kCubes = 8;
  std::vector<SpatialLcpBody> bodies;
  std::vector<SpatialLcpConstraint> rows;
  for (int k = 0; k < kCubes; ++k) {
    bodies.push_back(Cube(Vec3(0, 0, -kG * kH)));
    for (const SpatialLcpConstraint& c : CubeOn(k, k - 1)) rows.push_back(c);
  }
  SpatialContactPgsOptions plain = Tight();
  plain.residual_tolerance_m_per_s = 1e-9;
  plain.max_sweeps = 200000;
  SpatialContactPgsOptions block = plain;
  block.block_iterations = 4;
  for (const SpatialContactPgsOptions& options : {plain, block}) {
    absl::StatusOr<SpatialLcpSolution> pgs = SolveSpatialContactPgs(bodies, rows, options);
    ASSERT_TRUE(pgs.ok() && pgs->solver.solved) << pgs->solver.solution.message;
    for (int k = 0; k < kCubes; ++k) {
      EXPECT_NEAR(TotalNormal(*pgs, 4 * k, 4), (kCubes - k) * kMass * kG * kH,
                  1e-6 * kCubes * kMass * kG * kH)
          << "under cube " << k;
    }
    for (const Vec6& v : pgs->velocity) EXPECT_LE(v.norm(), 1e-7);
    std::printf("stack of %d: %d sweeps with %d block passes\n", kCubes,
                pgs->solver.solution.iterations, options.block_iterations);
  }
}

// A cube between a floor and a ceiling that both ask it to move away at 1 m/s within the step:
// no velocity does both (an infeasible problem).
std::vector<SpatialLcpConstraint> FloorAndCeilingPushingApart() {
  std::vector<SpatialLcpConstraint> rows = CubeOn(0, -1);
  for (SpatialLcpConstraint& c : rows) c.primary.bias = -1.0;
  SpatialLcpConstraint ceiling;
  ceiling.primary.body_a = 0;
  ceiling.primary.jacobian_a = -PushAtOffset(Vec3::UnitZ(), Vec3(0, 0, kHalf));
  ceiling.primary.bias = -1.0;
  rows.push_back(ceiling);
  return rows;
}

TEST(SpatialContactPgsTest, AnInfeasibleProblemIsReportedNotAccepted) {
  // A cube between a floor and a ceiling that both ask it to move away at 1 m/s within the step:
  // no velocity does both, the impulses grow without a solution, and the run stalls.
  const std::vector<SpatialLcpConstraint> rows = FloorAndCeilingPushingApart();
  const std::vector<SpatialLcpBody> bodies = {Cube(Vec3::Zero())};
  SpatialContactPgsOptions options = Tight();
  options.max_sweeps = 5000;
  absl::StatusOr<SpatialLcpSolution> pgs = SolveSpatialContactPgs(bodies, rows, options);
  ASSERT_TRUE(pgs.ok());
  EXPECT_FALSE(pgs->solver.solved);
  EXPECT_EQ(pgs->solver.solution.status, LcpSolveStatus::kIterationLimit);
  EXPECT_FALSE(pgs->solver.solution.message.empty());
  // Neither block passes nor the relaxation after a stall make it accepted; the run relaxed at its
  // first stall and stalled again.
  options.block_iterations = 4;
  options.stall_relaxation = 0.5;
  pgs = SolveSpatialContactPgs(bodies, rows, options);
  ASSERT_TRUE(pgs.ok());
  EXPECT_FALSE(pgs->solver.solved);
  EXPECT_EQ(pgs->solver.solution.status, LcpSolveStatus::kIterationLimit);
  EXPECT_NE(pgs->solver.solution.message.find("under-relaxed by 0.5"), std::string::npos)
      << pgs->solver.solution.message;
}

// The stack of BlockPassesReachTheSameAnswers: eight cubes, each on the one below.
void EightCubeStack(std::vector<SpatialLcpBody>* bodies, std::vector<SpatialLcpConstraint>* rows) {
  for (int k = 0; k < 8; ++k) {
    bodies->push_back(Cube(Vec3(0, 0, -kG * kH)));
    for (const SpatialLcpConstraint& c : CubeOn(k, k - 1)) rows->push_back(c);
  }
}

TEST(SpatialContactPgsTest, LocalExactSolvesFinishAStackThatSweepsSlowly) {
  // The eight-cube stack needs ~25,000 plain sweeps to 1e-9 m/s (BlockPassesReachTheSameAnswers):
  // its residual creeps down while the weight travels through the stack. Local exact solves of
  // the constraints still above the tolerance, up to 400 unknowns (the whole stack: 32 contacts
  // of 10 unknowns), answer it exactly once the residual stops falling by 1 % for 20 sweeps, and
  // the next sweep confirms it; up to 120 unknowns (three of the eight interfaces at a time) they
  // only help a little (measured 7,618 sweeps and 107 local solves), as expected of a block that
  // small in a problem coupled end to end.
  std::vector<SpatialLcpBody> bodies;
  std::vector<SpatialLcpConstraint> rows;
  EightCubeStack(&bodies, &rows);
  SpatialContactPgsOptions plain = Tight();
  plain.residual_tolerance_m_per_s = 1e-9;
  plain.max_sweeps = 2000;
  absl::StatusOr<SpatialLcpSolution> slow = SolveSpatialContactPgs(bodies, rows, plain);
  ASSERT_TRUE(slow.ok());
  EXPECT_FALSE(slow->solver.solved);
  EXPECT_EQ(slow->local_solves, 0);

  SpatialContactPgsOptions whole = plain;
  whole.local_max_unknowns = 400;
  SpatialContactPgsOptions partial = plain;
  partial.local_max_unknowns = 120;
  partial.local_max_solves = 1000;
  partial.max_sweeps = 200000;
  for (const SpatialContactPgsOptions& options : {whole, partial}) {
    absl::StatusOr<SpatialLcpSolution> pgs = SolveSpatialContactPgs(bodies, rows, options);
    ASSERT_TRUE(pgs.ok());
    ASSERT_TRUE(pgs->solver.solved) << pgs->solver.solution.message;
    // As in BlockPassesReachTheSameAnswers: 1e-9 m/s of residual bounds each body's unbalance.
    for (int k = 0; k < 8; ++k) {
      EXPECT_NEAR(TotalNormal(*pgs, 4 * k, 4), (8 - k) * kMass * kG * kH,
                  1e-6 * 8 * kMass * kG * kH)
          << "under cube " << k;
    }
    for (const Vec6& v : pgs->velocity) EXPECT_LE(v.norm(), 1e-7);
    EXPECT_GE(pgs->local_solves, 1);
    EXPECT_GT(pgs->solver.solution.pivots, 0);
    EXPECT_NE(pgs->solver.solution.message.find("local exact solves"), std::string::npos);
    std::printf(
        "stack of 8, local solves up to %d unknowns: %d sweeps, %d local solves, %d "
        "pivots\n",
        options.local_max_unknowns, pgs->solver.solution.iterations, pgs->local_solves,
        pgs->solver.solution.pivots);
    if (options.local_max_unknowns == 400) {
      // Measured: one local solve (25 pivots) after sweep 237, when the residual first went 20
      // sweeps without falling by 1 %, and the sweep after it converged: 238 sweeps in all.
      EXPECT_EQ(pgs->local_solves, 1);
      EXPECT_LE(pgs->solver.solution.iterations, 300);
    }
  }
}

TEST(SpatialContactPgsTest, LocalSolvesDoNotMakeAnInfeasibleProblemAccepted) {
  // The floor-and-ceiling cube of AnInfeasibleProblemIsReportedNotAccepted: the local solve's
  // pivoting finds no answer either, and the run is reported, not accepted.
  const std::vector<SpatialLcpConstraint> rows = FloorAndCeilingPushingApart();
  const std::vector<SpatialLcpBody> bodies = {Cube(Vec3::Zero())};
  SpatialContactPgsOptions options = Tight();
  options.max_sweeps = 5000;
  options.local_max_unknowns = 100;
  absl::StatusOr<SpatialLcpSolution> pgs = SolveSpatialContactPgs(bodies, rows, options);
  ASSERT_TRUE(pgs.ok());
  EXPECT_FALSE(pgs->solver.solved);
  EXPECT_EQ(pgs->solver.solution.status, LcpSolveStatus::kIterationLimit);
  EXPECT_EQ(pgs->local_solves, 0);
  EXPECT_NE(pgs->solver.solution.message.find("a local solve found no answer"), std::string::npos)
      << pgs->solver.solution.message;
}

TEST(SpatialContactPgsTest, TheTraceSeesEverySweepAndTheOutcome) {
  const std::vector<SpatialLcpBody> bodies = {Cube(Vec3(0, 0, -kG * kH))};
  const std::vector<SpatialLcpConstraint> rows = CubeOn(0, -1);
  SpatialContactPgsOptions options = Tight();
  int sweeps = 0, outcome = 0;
  double last_residual = -1.0;
  options.trace = [&](const SpatialContactPgsSweep& sweep) {
    ++sweeps;
    EXPECT_EQ(sweep.sweep, sweeps);
    EXPECT_EQ(sweep.rows.size(), rows.size());
    EXPECT_EQ(sweep.tolerance, options.residual_tolerance_m_per_s);
    double largest = 0.0;
    for (const SpatialContactPgsTraceRow& r : sweep.rows) {
      largest = std::max({largest, r.normal_residual, r.friction_residual});
      EXPECT_EQ(r.active_row, -1);  // no secondaries
      EXPECT_EQ(r.derivative_ratio, 1.0);
    }
    EXPECT_EQ(largest, sweep.residual);
    outcome = sweep.outcome;
    last_residual = sweep.residual;
  };
  absl::StatusOr<SpatialLcpSolution> pgs = SolveSpatialContactPgs(bodies, rows, options);
  ASSERT_TRUE(pgs.ok() && pgs->solver.solved);
  EXPECT_EQ(sweeps, pgs->solver.solution.iterations);
  EXPECT_EQ(outcome, 1);
  EXPECT_EQ(last_residual, pgs->solver.solution.residual);
}

TEST(SpatialContactPgsTest, MalformedInputIsRefusedNamingIt) {
  const std::vector<SpatialLcpBody> bodies = {Cube(Vec3::Zero())};
  std::vector<SpatialLcpConstraint> rows = CubeOn(0, -1);
  SpatialContactWarmStart warm;
  warm.normal_impulse = {0.0};
  warm.friction_impulse = {Vec3::Zero()};
  absl::StatusOr<SpatialLcpSolution> wrong_size =
      SolveSpatialContactPgs(bodies, rows, Tight(), &warm);
  EXPECT_EQ(wrong_size.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(wrong_size.status().message().find("warm_start"), std::string::npos);
  rows[2].primary.body_a = 7;
  absl::StatusOr<SpatialLcpSolution> bad_body = SolveSpatialContactPgs(bodies, rows, Tight());
  EXPECT_EQ(bad_body.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_body.status().message().find("constraints[2]"), std::string::npos);
  rows[2].primary.body_a = 0;
  SpatialContactPgsOptions no_passes = Tight();
  no_passes.block_iterations = 0;
  SpatialContactPgsOptions over_relaxed = Tight();
  over_relaxed.stall_relaxation = 1.5;
  for (const SpatialContactPgsOptions& options : {no_passes, over_relaxed}) {
    absl::StatusOr<SpatialLcpSolution> refused = SolveSpatialContactPgs(bodies, rows, options);
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(refused.status().message().find("block_iterations"), std::string::npos);
  }
  SpatialContactPgsOptions negative_local = Tight();
  negative_local.local_max_unknowns = -1;
  SpatialContactPgsOptions no_stall = Tight();
  no_stall.local_stall_sweeps = 0;
  for (const SpatialContactPgsOptions& options : {negative_local, no_stall}) {
    absl::StatusOr<SpatialLcpSolution> refused = SolveSpatialContactPgs(bodies, rows, options);
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(refused.status().message().find("local_max_unknowns"), std::string::npos);
  }
}

}  // namespace
}  // namespace contactsim::core
