#include "scenes/testbeds/ccd_pair_sets.h"

#include <algorithm>

#include "scenes/testbeds/ccd_random_generators.h"
#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::bench {
namespace {

using core::PairTrajectory;
using core::Vec3;

constexpr double kFeatureSize = 0.05;  // [m]
// The reference needs d > 0 for its sampled hits; for d = 0 it classifies with this d [m].
constexpr double kReferenceFloor = 1e-9;

bool SweptBoxesOverlap(bool vertex_face, const PairTrajectory& x, double d) {
  const int first_count = vertex_face ? 1 : 2;
  for (int k = 0; k < 3; ++k) {
    double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
    for (int i = 0; i < 4; ++i) {
      const int set = i < first_count ? 0 : 1;
      for (const auto* ends : {&x.x_t0, &x.x_t1}) {
        lo[set] = std::min(lo[set], (*ends)[i][k]);
        hi[set] = std::max(hi[set], (*ends)[i][k]);
      }
    }
    if (lo[0] > hi[1] + d || lo[1] > hi[0] + d) return false;
  }
  return true;
}

// A feature pair near each other: feature 1 (triangle or edge) of size ~kFeatureSize translating
// and deforming a little; feature 0 (vertex or edge) placed within ~1.5 sizes of it and moving
// up to half a size.
PairTrajectory BroadPhasePair(bool vertex_face, core::testing::TrajectoryGenerator& g) {
  PairTrajectory x;
  const Vec3 centre = g.UniformVec(-1.0, 1.0);
  const Vec3 translation = g.UnitVec() * g.Uniform(0.0, 0.3 * kFeatureSize);
  for (int i = vertex_face ? 1 : 2; i < 4; ++i) {
    x.x_t0[i] = centre + g.UniformVec(-0.5, 0.5) * kFeatureSize;
    x.x_t1[i] = x.x_t0[i] + translation + g.UniformVec(-0.05, 0.05) * kFeatureSize;
  }
  const Vec3 start = centre + g.UniformVec(-1.5, 1.5) * kFeatureSize;
  const Vec3 motion = g.UnitVec() * g.Uniform(0.0, 0.5 * kFeatureSize);
  if (vertex_face) {
    x.x_t0[0] = start;
    x.x_t1[0] = start + motion;
  } else {
    const Vec3 half = g.UnitVec() * 0.5 * kFeatureSize;
    x.x_t0[0] = start - half;
    x.x_t0[1] = start + half;
    x.x_t1[0] = x.x_t0[0] + motion;
    x.x_t1[1] = x.x_t0[1] + motion + g.UniformVec(-0.05, 0.05) * kFeatureSize;
  }
  return x;
}

}  // namespace

PairSets MakeBroadPhasePairSets(bool vertex_face, double d, int pairs_per_set) {
  core::testing::TrajectoryGenerator generator(vertex_face ? 101 : 202);
  PairSets sets;
  const double reference_d = std::max(d, kReferenceFloor);
  while (static_cast<int>(sets.colliding.size()) < pairs_per_set ||
         static_cast<int>(sets.non_colliding.size()) < pairs_per_set) {
    const PairTrajectory x = BroadPhasePair(vertex_face, generator);
    if (!SweptBoxesOverlap(vertex_face, x, d)) continue;
    const bool hit = core::testing::DenseReference(vertex_face, x, reference_d, 512).hit;
    std::vector<PairTrajectory>& set = hit ? sets.colliding : sets.non_colliding;
    if (static_cast<int>(set.size()) < pairs_per_set) set.push_back(x);
  }
  return sets;
}

}  // namespace contactsim::bench
