// Potential-contact identification between polytopes (core/collision/polytope) on pairs of the
// issue's 3D pouring bodies (hulls of 10 random points 35–50 mm from the centre, seeded), posed
// in contact range: each pair approached along a random direction in 0.5 mm steps up to the last
// configuration before overlap (gap < 0.5 mm), queried with max_gap_m = 4 mm.
//   Near:           FindPotentialContacts on those pairs (counter: candidates per pair);
//   Far:            the same bodies 5 cm further apart (the bounding-sphere reject);
//   PoseBaseline:   re-posing both bodies (PosedPolytope::SetPose), the per-step work every body
//                   pays anyway; the ratio Near / PoseBaseline is the figure to compare;
//   OverlapVolume:  IntersectionVolume of the pairs pushed 1 mm into each other (validation
//                   metric, not on the step path);
//   Constraints/0, /1: MakeContactConstraints on the Near pairs, standard model (0) and PEG (1)
//                   (counters: constraints and secondaries per pair); each includes its own
//                   FindPotentialContacts, so Constraints/0 / Near is the standard stage's cost.
//
//   polytope_contacts_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <Eigen/Geometry>
#include <random>
#include <vector>

#include "core/collision/polytope/contact_constraints.h"
#include "core/collision/polytope/posed_polytope.h"
#include "core/collision/polytope/potential_contacts.h"
#include "core/geometry/polytope_hull.h"
#include "core/geometry/polytope_intersection.h"

namespace contactsim::bench {
namespace {

using core::ConvexPolytope;
using core::Mat3;
using core::Vec3;

constexpr int kPairs = 256;
constexpr double kStep_m = 0.0005;

struct Pair {
  ConvexPolytope a, b;
  Mat3 R_a, R_b;
  Vec3 p_a;        // b sits at the origin
  Vec3 direction;  // of approach
};

std::vector<Pair> MakePairs() {
  std::mt19937_64 rng(2016);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> radius(0.035, 0.050);
  const auto body = [&] {
    core::Points3 points(10, 3);
    for (int i = 0; i < 10; ++i) {
      points.row(i) =
          radius(rng) * Vec3(normal(rng), normal(rng), normal(rng)).normalized().transpose();
    }
    return *core::ConvexHull(points);
  };
  const auto rotation = [&] {
    return Eigen::Quaterniond(normal(rng), normal(rng), normal(rng), normal(rng))
        .normalized()
        .toRotationMatrix();
  };
  std::vector<Pair> pairs;
  for (int i = 0; i < kPairs; ++i) {
    Pair pair{body(),     body(),       rotation(),
              rotation(), Vec3::Zero(), Vec3(normal(rng), normal(rng), normal(rng)).normalized()};
    const ConvexPolytope b = pair.b.Transformed(pair.R_b, Vec3::Zero());
    int k = 0;
    while (core::IntersectionVolume(
               pair.a.Transformed(pair.R_a, (-0.15 + (k + 1) * kStep_m) * pair.direction), b) <=
           0.0) {
      ++k;
    }
    pair.p_a = (-0.15 + k * kStep_m) * pair.direction;
    pairs.push_back(std::move(pair));
  }
  return pairs;
}

const std::vector<Pair>& Pairs() {
  static const std::vector<Pair> pairs = MakePairs();
  return pairs;
}

void Query(benchmark::State& state, double extra_distance_m) {
  const auto& pairs = Pairs();
  std::vector<core::PosedPolytope> a, b;
  for (const Pair& p : pairs) {
    a.emplace_back(p.a, p.R_a, p.p_a - extra_distance_m * p.direction);
    b.emplace_back(p.b, p.R_b, Vec3::Zero());
  }
  core::PotentialContactOptions options;
  options.max_gap_m = 0.004;
  std::vector<core::PotentialContact> out;
  size_t i = 0;
  int64_t candidates = 0, queries = 0;
  for (auto _ : state) {
    out.clear();
    core::FindPotentialContacts(a[i], b[i], options, &out);
    candidates += static_cast<int64_t>(out.size());
    ++queries;
    benchmark::DoNotOptimize(out.data());
    i = (i + 1) % pairs.size();
  }
  state.counters["candidates"] = static_cast<double>(candidates) / static_cast<double>(queries);
}

void BM_Near(benchmark::State& state) { Query(state, 0.0); }
void BM_Far(benchmark::State& state) { Query(state, 0.05); }

void BM_PoseBaseline(benchmark::State& state) {
  const auto& pairs = Pairs();
  std::vector<core::PosedPolytope> a, b;
  for (const Pair& p : pairs) {
    a.emplace_back(p.a, Mat3::Identity(), Vec3::Zero());
    b.emplace_back(p.b, Mat3::Identity(), Vec3::Zero());
  }
  size_t i = 0;
  for (auto _ : state) {
    a[i].SetPose(pairs[i].R_a, pairs[i].p_a);
    b[i].SetPose(pairs[i].R_b, Vec3::Zero());
    benchmark::ClobberMemory();
    i = (i + 1) % pairs.size();
  }
}

void BM_OverlapVolume(benchmark::State& state) {
  const auto& pairs = Pairs();
  std::vector<ConvexPolytope> a, b;
  for (const Pair& p : pairs) {
    a.push_back(p.a.Transformed(p.R_a, p.p_a + 0.001 * p.direction));
    b.push_back(p.b.Transformed(p.R_b, Vec3::Zero()));
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(core::IntersectionVolume(a[i], b[i]));
    i = (i + 1) % pairs.size();
  }
}

void BM_Constraints(benchmark::State& state) {
  const auto& pairs = Pairs();
  std::vector<core::PosedPolytope> a, b;
  for (const Pair& p : pairs) {
    a.emplace_back(p.a, p.R_a, p.p_a);
    b.emplace_back(p.b, p.R_b, Vec3::Zero());
  }
  const auto model = state.range(0) == 0 ? core::PolytopeContactModel::kStandard
                                         : core::PolytopeContactModel::kPeg;
  core::ContactConstraintOptions options;
  options.potential.max_gap_m = 0.004;
  std::vector<core::ContactConstraintGeometry> out;
  size_t i = 0;
  int64_t constraints = 0, secondaries = 0, queries = 0;
  for (auto _ : state) {
    out.clear();
    core::MakeContactConstraints(model, a[i], b[i], options, &out);
    constraints += static_cast<int64_t>(out.size());
    for (const auto& g : out) secondaries += static_cast<int64_t>(g.secondaries.size());
    ++queries;
    benchmark::DoNotOptimize(out.data());
    i = (i + 1) % pairs.size();
  }
  state.counters["constraints"] = static_cast<double>(constraints) / static_cast<double>(queries);
  state.counters["secondaries"] = static_cast<double>(secondaries) / static_cast<double>(queries);
}

BENCHMARK(BM_PoseBaseline);
BENCHMARK(BM_Near);
BENCHMARK(BM_Far);
BENCHMARK(BM_OverlapVolume);
BENCHMARK(BM_Constraints)->Arg(0)->Arg(1);

}  // namespace
}  // namespace contactsim::bench

BENCHMARK_MAIN();
