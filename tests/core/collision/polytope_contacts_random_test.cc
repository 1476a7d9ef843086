// The contract a time stepper relies on: contacts are identified before penetration. The issue's
// random bodies (hulls of 10 points 35–50 mm from the centre, seeded) approach each other by pure
// translation in 1 mm steps; at the last configuration before they overlap (exact intersection
// volume), the query with max_gap_m = 2 mm must report an applicable candidate whose gap is
// within the step and whose normal opposes the approach. Under translation the first touching
// feature pair is a vertex–face or edge–edge pair with APPL >= 0 (classical applicability), so
// the threshold here is 0, not the relaxed default.
#include <Eigen/Geometry>
#include <random>
#include <vector>

#include "core/collision/polytope/posed_polytope.h"
#include "core/collision/polytope/potential_contacts.h"
#include "core/geometry/polytope_hull.h"
#include "core/geometry/polytope_intersection.h"
#include "gtest/gtest.h"
#include "tests/core/collision/random_polytopes.h"

namespace contactsim::core {
namespace {

using testing_polytopes::RandomBody;
using testing_polytopes::RandomRotation;

TEST(PotentialContactsRandomTest, ApproachingBodiesAreFoundBeforeTheyOverlap) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> normal;
  constexpr double kStep_m = 0.001;
  for (int trial = 0; trial < 200; ++trial) {
    const ConvexPolytope a_shape = RandomBody(rng);
    const ConvexPolytope b_shape = RandomBody(rng);
    const Mat3 R_a = RandomRotation(rng), R_b = RandomRotation(rng);
    const Vec3 direction = Vec3(normal(rng), normal(rng), normal(rng)).normalized();
    const ConvexPolytope b = b_shape.Transformed(R_b, Vec3::Zero());
    // A starts 0.15 m back along the approach (apart: radii <= 0.05 m) and moves along it.
    int k = 0;
    const auto a_at = [&](int step) {
      return a_shape.Transformed(R_a, (-0.15 + step * kStep_m) * direction);
    };
    // Overlap counted above 1e-18 m^3: the clipping's rounding on touching bodies is far below.
    while (IntersectionVolume(a_at(k + 1), b) <= 1e-18) ++k;
    ASSERT_LT(k, 150) << trial;
    const PosedPolytope a(a_shape, R_a, (-0.15 + k * kStep_m) * direction);
    const PosedPolytope posed_b(b_shape, R_b, Vec3::Zero());
    PotentialContactOptions options;
    options.max_gap_m = 2 * kStep_m;
    options.applicability_threshold = 0.0;
    std::vector<PotentialContact> contacts;
    FindPotentialContacts(a, posed_b, options, &contacts);
    bool found = false;
    for (const PotentialContact& c : contacts) {
      // The normal from A into B, whichever body the candidate starts on.
      const Vec3 a_into_b = c.body1 == 0 ? c.normal_W : Vec3(-c.normal_W);
      // Gap within one step (and not negative: the bodies do not overlap yet; 1e-12 m rounding).
      if (c.applicable && c.gap_m <= kStep_m + 1e-12 && c.gap_m >= -1e-12 &&
          a_into_b.dot(direction) > 0.0) {
        found = true;
      }
    }
    EXPECT_TRUE(found) << "trial " << trial << ": " << contacts.size() << " candidates";
  }
}

}  // namespace
}  // namespace contactsim::core
