// The rigid_lcp step's warm start (PolytopeWarmStart, polytope_stepper.h): a pivoted island first
// tries the active set its constraints had in the previous step (lcp_solver_chain.h, step 0). A
// 1 kg, 0.1 m cube on the ground (four corner contacts, 8 cone edges, mu 0.5, h = 4 ms): at rest
// and sliding, the warm steps are solved without a pivot and carry exactly what the analytic
// answer says, as the cold steps do; a guess that does not fit changes nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/dynamics/rigid_lcp/polytope_stepper.h"
#include "core/geometry/polytope_primitives.h"

namespace contactsim::core {
namespace {

constexpr double kG = 9.81;
constexpr double kH = 0.004;
constexpr double kMass = 1.0;
constexpr double kHalf = 0.05;
constexpr double kMu = 0.5;

class PolytopeWarmStartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<ConvexPolytope> box = MakeBoxPolytope(Vec3::Constant(kHalf));
    ASSERT_TRUE(box.ok()) << box.status();
    absl::StatusOr<PolytopeUnion> shape = PolytopeUnion::Create({*std::move(box)});
    ASSERT_TRUE(shape.ok()) << shape.status();
    shape_ = std::make_unique<PolytopeUnion>(*std::move(shape));
    cube_.shape = shape_.get();
    cube_.mass_kg = kMass;
    // A cube's I = m (2 a)^2 / 6 about any axis through its centre.
    cube_.inertia_body_kg_m2 = Mat3::Identity() * kMass * 4 * kHalf * kHalf / 6.0;
    cube_.state.p_WB_m = Vec3(0, 0, kHalf);
    settings_.dt_s = kH;
    settings_.friction_coefficient = kMu;
  }

  // One step from `cube_`'s state, with or without the previous step's warm start.
  PolytopeStepResult Step(const PolytopeWarmStart* previous) {
    PolytopeStepResult result;
    const absl::Status status =
        StepPolytopes({&cube_, 1}, {&ground_, 1}, settings_, &result, previous);
    EXPECT_TRUE(status.ok()) << status;
    return result;
  }

  static double NormalSum(const PolytopeStepResult& r) {
    double sum = 0.0;
    for (const PolytopeContactResult& c : r.contacts) sum += c.normal_impulse_n_s;
    return sum;
  }

  std::unique_ptr<PolytopeUnion> shape_;
  PolytopeBodyInput cube_;
  PolytopePlaneInput ground_;
  PolytopeStepSettings settings_;
};

TEST_F(PolytopeWarmStartTest, ARestingCubeIsSolvedOnItsPreviousActiveSetWithoutAPivot) {
  PolytopeStepResult previous = Step(nullptr);
  EXPECT_GT(previous.stats.pivots, 0);
  EXPECT_EQ(previous.stats.warm_active_sets, 0);
  ASSERT_EQ(previous.warm_start.contacts.size(), previous.contacts.size());
  for (int step = 1; step < 50; ++step) {
    cube_.state = previous.next[0];
    PolytopeStepResult r = Step(&previous.warm_start);
    EXPECT_EQ(r.stats.warm_active_sets, 1) << "step " << step;
    EXPECT_EQ(r.stats.pivots, 0) << "step " << step;
    // The weight over the step, as Lemke's answer carries it: an exact solution of the LCP, so
    // to round-off (1e-10 relative, the chain's acceptance tolerance).
    EXPECT_NEAR(NormalSum(r), kMass * kG * kH, 1e-10 * kMass * kG * kH) << "step " << step;
    EXPECT_LT(r.next[0].v_WB_m_per_s.norm(), 1e-12) << "step " << step;
    previous = std::move(r);
  }
}

// Sliding at 1 m/s, friction takes mu g h off the speed each step until it stops, whichever way
// the step was solved; the warm run agrees with the cold one step for step.
TEST_F(PolytopeWarmStartTest, ASlidingCubeDeceleratesByCoulombWarmAsCold) {
  const double v0 = 1.0;
  cube_.state.v_WB_m_per_s = Vec3(v0, 0, 0);
  const PolytopeBodyInput start = cube_;
  const int steps = 60;  // stops after v0 / (mu g h) = 51 steps
  std::vector<RigidBodyState> cold;
  for (int step = 0; step < steps; ++step) {
    PolytopeStepResult r = Step(nullptr);
    cube_.state = r.next[0];
    cold.push_back(r.next[0]);
  }
  cube_ = start;
  PolytopeWarmStart warm;
  int warm_steps = 0;
  for (int step = 0; step < steps; ++step) {
    PolytopeStepResult r = Step(step == 0 ? nullptr : &warm);
    warm_steps += r.stats.warm_active_sets;
    cube_.state = r.next[0];
    warm = std::move(r.warm_start);
    const double expected = std::max(0.0, v0 - (step + 1) * kMu * kG * kH);
    // Both are exact LCP solutions: the speed is the analytic one to round-off of the ~50 steps'
    // sums (1e-12 m/s measured, 1e-9 allowed).
    EXPECT_NEAR(cube_.state.v_WB_m_per_s.x(), expected, 1e-9) << "step " << step;
    EXPECT_NEAR((cube_.state.p_WB_m - cold[step].p_WB_m).norm(), 0.0, 1e-12) << "step " << step;
  }
  // The active set changes once, when the cube stops (sliding to sticking): every other step
  // after the first is solved on the previous one's (measured: 57 of 59).
  EXPECT_GE(warm_steps, steps - 4);
}

// A guess that fits nothing (every unknown of every constraint active) costs one failed
// attempt, and the step is then the cold one, bit for bit.
TEST_F(PolytopeWarmStartTest, AGuessThatDoesNotFitChangesNothing) {
  PolytopeStepResult first = Step(nullptr);
  cube_.state = first.next[0];
  const PolytopeStepResult cold = Step(nullptr);
  PolytopeWarmStart wrong = first.warm_start;
  for (PolytopeWarmContact& c : wrong.contacts) {
    c.active.flags = SpatialLcpActivity::kNormal | SpatialLcpActivity::kSliding;
    c.active.friction = ~uint64_t{0};
  }
  const PolytopeStepResult guessed = Step(&wrong);
  EXPECT_EQ(guessed.stats.warm_active_sets, 0);
  EXPECT_EQ(guessed.stats.attempts, cold.stats.attempts + 1);
  EXPECT_EQ(guessed.next[0].p_WB_m, cold.next[0].p_WB_m);
  EXPECT_EQ(guessed.next[0].v_WB_m_per_s, cold.next[0].v_WB_m_per_s);
  EXPECT_EQ(guessed.next[0].w_WB_rad_per_s, cold.next[0].w_WB_rad_per_s);
  EXPECT_EQ(guessed.next[0].q_WB.coeffs(), cold.next[0].q_WB.coeffs());
}

}  // namespace
}  // namespace contactsim::core
