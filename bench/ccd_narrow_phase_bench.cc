// Narrow-phase CCD cost per query (VertexFaceCcd, EdgeEdgeCcd) on pre-generated pairs of the kind
// a broad phase hands over: mesh-sized features (edges ~5 cm) whose swept, d-inflated AABBs
// overlap, moving up to ~a feature size per step. Each kind is split by an independent dense
// reference (tests/core/collision/ccd_reference.h) into
//   NonColliding: the reference finds no contact within d (fp_rate: the share CCD still reports,
//                 an upper bound on its false positives, since sampling can miss a graze);
//   Colliding:    the reference finds a contact.
// Baseline: the same queries through the root finder alone, without the separating-axis filter
// and the d = 0 fast path (RootFinderOnly), so their share of the speed shows. Counters: boxes
// (mean root-finder boxes per query), filtered (share rejected by the filter alone).
//
//   ccd_narrow_phase_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/inclusion_root_finder.h"
#include "core/collision/ccd/separating_axis_filter.h"
#include "core/collision/ccd/vertex_face.h"
#include "tests/core/collision/ccd_random_generators.h"
#include "tests/core/collision/ccd_reference.h"

namespace contactsim::bench {
namespace {

using core::CcdOptions;
using core::CcdResult;
using core::PairTrajectory;
using core::Vec3;

constexpr int kPairsPerSet = 4096;
constexpr double kFeatureSize = 0.05;                        // [m]
constexpr std::array<double, 2> kSeparations = {0.0, 1e-3};  // d [m]
// The reference needs d > 0 for its sampled hits; for d = 0 it classifies with this d [m].
constexpr double kReferenceFloor = 1e-9;

struct PairSets {
  std::vector<PairTrajectory> colliding;
  std::vector<PairTrajectory> non_colliding;
};

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

PairSets MakeSets(bool vertex_face, double d) {
  core::testing::TrajectoryGenerator generator(vertex_face ? 101 : 202);
  PairSets sets;
  const double reference_d = std::max(d, kReferenceFloor);
  while (static_cast<int>(sets.colliding.size()) < kPairsPerSet ||
         static_cast<int>(sets.non_colliding.size()) < kPairsPerSet) {
    const PairTrajectory x = BroadPhasePair(vertex_face, generator);
    if (!SweptBoxesOverlap(vertex_face, x, d)) continue;
    const bool hit = core::testing::DenseReference(vertex_face, x, reference_d, 512).hit;
    std::vector<PairTrajectory>& set = hit ? sets.colliding : sets.non_colliding;
    if (static_cast<int>(set.size()) < kPairsPerSet) set.push_back(x);
  }
  return sets;
}

const PairSets& Sets(bool vertex_face, int separation_index) {
  static const std::array<std::array<PairSets, 2>, 2> sets = [] {
    std::array<std::array<PairSets, 2>, 2> all;
    for (int vf = 0; vf < 2; ++vf) {
      for (int s = 0; s < 2; ++s) all[vf][s] = MakeSets(vf == 1, kSeparations[s]);
    }
    return all;
  }();
  return sets[vertex_face ? 1 : 0][separation_index];
}

enum class Variant { kFull, kRootFinderOnly };

void RunQueries(benchmark::State& state, bool vertex_face, bool colliding, Variant variant) {
  const int separation_index = static_cast<int>(state.range(0));
  const PairSets& sets = Sets(vertex_face, separation_index);
  const std::vector<PairTrajectory>& pairs = colliding ? sets.colliding : sets.non_colliding;
  CcdOptions options;
  options.min_separation_m = kSeparations[separation_index];
  const auto kind = vertex_face ? core::internal::InclusionPairKind::kVertexFace
                                : core::internal::InclusionPairKind::kEdgeEdge;
  size_t i = 0;
  int64_t queries = 0, hits = 0, boxes = 0;
  for (auto _ : state) {
    const PairTrajectory& x = pairs[i];
    i = i + 1 == pairs.size() ? 0 : i + 1;
    CcdResult result;
    if (variant == Variant::kFull) {
      result = vertex_face ? core::VertexFaceCcd(x, options) : core::EdgeEdgeCcd(x, options);
    } else {
      result = core::internal::InclusionTimeOfImpact(kind, x, options);
    }
    benchmark::DoNotOptimize(result);
    ++queries;
    hits += result.collides;
    boxes += result.iterations;
  }
  int64_t filtered = 0;
  for (const PairTrajectory& x : pairs) {
    filtered += vertex_face ? core::VertexFaceSeparatedOnFixedAxis(x, options.min_separation_m)
                            : core::EdgeEdgeSeparatedOnFixedAxis(x, options.min_separation_m);
  }
  state.counters["d_mm"] = 1e3 * options.min_separation_m;
  state.counters["boxes"] = static_cast<double>(boxes) / std::max<int64_t>(queries, 1);
  state.counters["filtered"] = static_cast<double>(filtered) / pairs.size();
  if (!colliding)
    state.counters["fp_rate"] = static_cast<double>(hits) / std::max<int64_t>(queries, 1);
  if (colliding)
    state.counters["hit_rate"] = static_cast<double>(hits) / std::max<int64_t>(queries, 1);
}

void BM_VertexFace_NonColliding(benchmark::State& s) { RunQueries(s, true, false, Variant::kFull); }
void BM_VertexFace_Colliding(benchmark::State& s) { RunQueries(s, true, true, Variant::kFull); }
void BM_EdgeEdge_NonColliding(benchmark::State& s) { RunQueries(s, false, false, Variant::kFull); }
void BM_EdgeEdge_Colliding(benchmark::State& s) { RunQueries(s, false, true, Variant::kFull); }
void BM_VertexFace_NonColliding_RootFinderOnly(benchmark::State& s) {
  RunQueries(s, true, false, Variant::kRootFinderOnly);
}
void BM_EdgeEdge_NonColliding_RootFinderOnly(benchmark::State& s) {
  RunQueries(s, false, false, Variant::kRootFinderOnly);
}
void BM_VertexFace_Colliding_RootFinderOnly(benchmark::State& s) {
  RunQueries(s, true, true, Variant::kRootFinderOnly);
}
void BM_EdgeEdge_Colliding_RootFinderOnly(benchmark::State& s) {
  RunQueries(s, false, true, Variant::kRootFinderOnly);
}

// Arg: index into kSeparations (0: d = 0, 1: d = 1 mm).
BENCHMARK(BM_VertexFace_NonColliding)->Arg(0)->Arg(1);
BENCHMARK(BM_VertexFace_NonColliding_RootFinderOnly)->Arg(0)->Arg(1);
BENCHMARK(BM_VertexFace_Colliding)->Arg(0)->Arg(1);
BENCHMARK(BM_VertexFace_Colliding_RootFinderOnly)->Arg(0);
BENCHMARK(BM_EdgeEdge_NonColliding)->Arg(0)->Arg(1);
BENCHMARK(BM_EdgeEdge_NonColliding_RootFinderOnly)->Arg(0)->Arg(1);
BENCHMARK(BM_EdgeEdge_Colliding)->Arg(0)->Arg(1);
BENCHMARK(BM_EdgeEdge_Colliding_RootFinderOnly)->Arg(0);

}  // namespace
}  // namespace contactsim::bench

BENCHMARK_MAIN();
