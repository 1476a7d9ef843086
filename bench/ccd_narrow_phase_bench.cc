// Narrow-phase CCD cost per query (VertexFaceCcd, EdgeEdgeCcd) on pre-generated pairs of the kind
// a broad phase hands over: mesh-sized features (edges ~5 cm) whose swept, d-inflated AABBs
// overlap, moving up to ~a feature size per step. Each kind is split by an independent dense
// reference (scenes/testbeds/ccd_reference.h) into
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
#include "scenes/testbeds/ccd_pair_sets.h"

namespace contactsim::bench {
namespace {

using core::CcdOptions;
using core::CcdResult;
using core::PairTrajectory;
using core::Vec3;

constexpr int kPairsPerSet = 4096;
constexpr std::array<double, 2> kSeparations = {0.0, 1e-3};  // d [m]

const PairSets& Sets(bool vertex_face, int separation_index) {
  static const std::array<std::array<PairSets, 2>, 2> sets = [] {
    std::array<std::array<PairSets, 2>, 2> all;
    for (int vf = 0; vf < 2; ++vf) {
      for (int s = 0; s < 2; ++s)
        all[vf][s] = MakeBroadPhasePairSets(vf == 1, kSeparations[s], kPairsPerSet);
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
BENCHMARK(BM_VertexFace_Colliding_RootFinderOnly)->Arg(0)->Arg(1);
BENCHMARK(BM_EdgeEdge_NonColliding)->Arg(0)->Arg(1);
BENCHMARK(BM_EdgeEdge_NonColliding_RootFinderOnly)->Arg(0)->Arg(1);
BENCHMARK(BM_EdgeEdge_Colliding)->Arg(0)->Arg(1);
BENCHMARK(BM_EdgeEdge_Colliding_RootFinderOnly)->Arg(0)->Arg(1);

}  // namespace
}  // namespace contactsim::bench

BENCHMARK_MAIN();
