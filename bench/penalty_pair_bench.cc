// Cost of one penetrating feature pair on one core, the CPF paper's per-pair figure (Tang et al.
// 2012 Sec. 5: about 3 us, CPF 3-4x DPF, on a 2007 CPU):
//   CcdCpf: continuous collision detection with the pair's penetrating sign and penetration
//           intervals from one root set (VertexFaceCcdPenetration / EdgeEdgeCcdPenetration at
//           d = 0, ccd_penetration.h), and the closed-form continuous penalty impulse
//           (CpfVertexFace / CpfEdgeEdge), as the penalty pipeline runs them;
//   DcdDpf: the baseline, discrete collision detection at the end of the step (closest points,
//           PointTriangleClosest / SegmentSegmentClosest) and the discrete penalty impulse
//           (DpfVertexFace / DpfEdgeEdge).
// Breakdown of CcdCpf, same pairs:
//   CcdCpfThreeSearches: the former chain, CCD, then PenetratingSign and PenetrationIntervalsOf
//           each finding the depth cubic's roots again (three root searches of one cubic);
//   Ccd:    VertexFaceCcd / EdgeEdgeCcd alone;
//   CcdPenetration: the CCD query with the sign and the intervals, no impulse;
//   Cpf:    the closed-form impulse alone, given the CCD weights and the intervals.
// A pair tracked from an earlier step (what the penalty pipeline runs each step for a pair it
// already holds, PenaltyPipeline::EvaluatePair: no CCD query):
//   TrackedCpf: the pair's depth cubic (PairDepthCubic), its penetration intervals over [0, 1]
//           with the sign fixed at first contact (PenetrationIntervalsOf from t = 0), and, when
//           it still penetrates, the CPF impulse with the pair's fixed weights and its last normal
//           as the fallback;
//   TrackedDcdDpf: DCD + DPF on the same trajectories, for the ratio.
// Tracked pairs: each penetrating pair one step later, moving on with the same velocities
// (x_t0' = x_t1, x_t1' = 2 x_t1 - x_t0), kept when that step still penetrates (an interval).
// The discrete baseline as the penalty pipeline's kDpfProximity runs it, where no pair is given:
//   VertexInLinkDcdDpf: one penetrating vertex against the chain benchmark's link (a torus, R
//           0.5 m, r 0.1 m; arg: 40 x 15 segments, 1,200 triangles, full size, or 20 x 8, the
//           tests' resolution 0.5): the closest point on the link's surface by BVH branch and
//           bound, the inside test by its pseudo-normal (VertexPenetrates, discrete_penetration.h)
//           and the impulse dt k delta n shared by the closest point's weights. Vertices: random
//           points inside the tube at depths uniform in (0, r / 2].
// Pairs: the narrow-phase benchmark's colliding broad-phase pairs (scenes/testbeds/ccd_pair_sets.h)
// that both methods see penetrating: CCD reports a contact with a penetration interval, and the
// features still overlap at the end of the step (DPF depth > 0). Counter `pairs`: how many.
// Target (issue 3): CcdCpf under 0.5 us per pair and within 2x of DcdDpf in the same run.
//
//   penalty_pair_bench --benchmark_min_time=0.3
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "core/collision/ccd/ccd_penetration.h"
#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/penetration_intervals.h"
#include "core/collision/ccd/vertex_face.h"
#include "core/collision/discrete_penetration.h"
#include "core/collision/proximity.h"
#include "core/contact/penalty/cpf.h"
#include "core/contact/penalty/dpf.h"
#include "core/geometry/generators.h"
#include "core/sim/penalty/tracked_pair.h"
#include "scenes/testbeds/ccd_pair_sets.h"

namespace contactsim::bench {
namespace {

using core::PairTrajectory;

constexpr int kCandidatePairs = 4096;
// A mesh-scale contact: 1 kN/m over a 10 ms step (values only scale the impulses, not the cost).
constexpr core::PenaltyParams kParams{.stiffness_n_per_m = 1e3, .dt_s = 1e-2};

// The CPF impulse on p [N s] for a CCD hit and its penetration.
core::Vec3 Cpf(bool vertex_face, const PairTrajectory& x, const core::CcdResult& hit,
               const core::PenetrationIntervals& found) {
  const std::span<const core::TimeInterval> spans(found.intervals.data(), found.count);
  const core::CpfResult result =
      vertex_face ? core::CpfVertexFace(x, hit.weights, spans, kParams)
                  : core::CpfEdgeEdge(x, hit.weights[0], hit.weights[1], spans, kParams);
  return result.impulse_on_p_Ns;
}

core::CcdPenetration CcdPenetration(bool vertex_face, const PairTrajectory& x) {
  return vertex_face ? core::VertexFaceCcdPenetration(x) : core::EdgeEdgeCcdPenetration(x);
}

// CCD + penetration intervals + CPF for one pair; the impulse on p [N s] (zero: not penetrating).
core::Vec3 CcdCpf(bool vertex_face, const PairTrajectory& x) {
  const core::CcdPenetration found = CcdPenetration(vertex_face, x);
  if (found.penetration.intervals.count == 0) return core::Vec3::Zero();
  return Cpf(vertex_face, x, found.ccd, found.penetration.intervals);
}

// The same with the depth cubic's roots found three times (CCD, sign, intervals).
core::Vec3 CcdCpfThreeSearches(bool vertex_face, const PairTrajectory& x) {
  const core::CcdResult hit = vertex_face ? core::VertexFaceCcd(x) : core::EdgeEdgeCcd(x);
  if (!hit.collides) return core::Vec3::Zero();
  const core::CubicPolynomial depth =
      vertex_face ? core::VertexFacePenetrationDepth(x) : core::EdgeEdgePenetrationDepth(x);
  const double sign = core::PenetratingSign(depth, hit.toi);
  if (sign == 0.0) return core::Vec3::Zero();
  const core::PenetrationIntervals found = core::PenetrationIntervalsOf(depth, sign, hit.toi);
  if (found.count == 0) return core::Vec3::Zero();
  return Cpf(vertex_face, x, hit, found);
}

// Closest points at the end of the step + DPF for one pair.
core::DpfResult DcdDpf(bool vertex_face, const PairTrajectory& x) {
  const std::array<core::Vec3, 4>& p = x.x_t1;
  if (vertex_face) {
    const core::PointTriangleProximity closest = core::PointTriangleClosest(p[0], p[1], p[2], p[3]);
    return core::DpfVertexFace(x, closest.weights, kParams);
  }
  const core::SegmentSegmentProximity closest = core::SegmentSegmentClosest(p[0], p[1], p[2], p[3]);
  return core::DpfEdgeEdge(x, closest.s, closest.u, kParams);
}

struct PenetratingPair {
  PairTrajectory x;
  core::CcdPenetration found;  // for the Cpf-only benchmark
};

// What the pipeline keeps of a tracked pair (core::TrackedPair): fixed weights and sign, and the
// last unit normal as the fallback for a degenerate m.
struct TrackedPair {
  PairTrajectory x;  // the step after the one it was found in
  core::Vec3 weights;
  double penetrating_sign = 0.0;
  core::Vec3 normal_W;
};

// PenaltyPipeline::EvaluatePair for a tracked pair, then ComputeNormalImpulse's kCpf case; the
// impulse on p [N s] (zero: the pair no longer penetrates and is dropped).
core::Vec3 TrackedCpf(bool vertex_face, const TrackedPair& pair) {
  const core::CcdPairKind kind =
      vertex_face ? core::CcdPairKind::kVertexFace : core::CcdPairKind::kEdgeEdge;
  const core::CubicPolynomial depth = core::PairDepthCubic(kind, pair.x);
  const core::PenetrationIntervals intervals =
      core::PenetrationIntervalsOf(depth, pair.penetrating_sign, 0.0);
  if (intervals.count == 0) return core::Vec3::Zero();
  const std::span<const core::TimeInterval> spans(intervals.intervals.data(), intervals.count);
  core::NormalFallbackOptions fallback;
  fallback.fallback_normal = pair.normal_W;
  const core::Vec3& w = pair.weights;
  const core::CpfResult result =
      vertex_face ? core::CpfVertexFace(pair.x, w, spans, kParams, fallback)
                  : core::CpfEdgeEdge(pair.x, w[0], w[1], spans, kParams, fallback);
  return result.impulse_on_p_Ns;
}

// The penetrating pairs one step on, where they still penetrate.
std::vector<TrackedPair> TrackedPairs(bool vertex_face,
                                      const std::vector<PenetratingPair>& penetrating) {
  std::vector<TrackedPair> tracked;
  for (const PenetratingPair& pair : penetrating) {
    const core::CcdResult& hit = pair.found.ccd;
    const std::span<const core::TimeInterval> spans(
        pair.found.penetration.intervals.intervals.data(), pair.found.penetration.intervals.count);
    const core::CpfResult first =
        vertex_face ? core::CpfVertexFace(pair.x, hit.weights, spans, kParams)
                    : core::CpfEdgeEdge(pair.x, hit.weights[0], hit.weights[1], spans, kParams);
    TrackedPair next;
    next.weights = vertex_face ? hit.weights : core::Vec3(hit.weights[0], hit.weights[1], 0.0);
    next.penetrating_sign = pair.found.penetration.penetrating_sign;
    next.normal_W = first.normal_t1;
    for (int i = 0; i < 4; ++i) {
      next.x.x_t0[i] = pair.x.x_t1[i];
      next.x.x_t1[i] = 2.0 * pair.x.x_t1[i] - pair.x.x_t0[i];
    }
    if (!TrackedCpf(vertex_face, next).isZero(0.0)) tracked.push_back(next);
  }
  return tracked;
}

const std::vector<PenetratingPair>& PenetratingPairs(bool vertex_face) {
  static const std::array<std::vector<PenetratingPair>, 2> pairs = [] {
    std::array<std::vector<PenetratingPair>, 2> all;
    for (int vf = 0; vf < 2; ++vf) {
      const PairSets sets = MakeBroadPhasePairSets(vf == 1, 0.0, kCandidatePairs);
      for (const PairTrajectory& x : sets.colliding) {
        if (!CcdCpf(vf == 1, x).isZero(0.0) && DcdDpf(vf == 1, x).depth_m > 0.0) {
          all[vf].push_back({x, CcdPenetration(vf == 1, x)});
        }
      }
    }
    return all;
  }();
  return pairs[vertex_face ? 1 : 0];
}

const std::vector<TrackedPair>& TrackedPairsOf(bool vertex_face) {
  static const std::array<std::vector<TrackedPair>, 2> pairs = [] {
    return std::array<std::vector<TrackedPair>, 2>{TrackedPairs(false, PenetratingPairs(false)),
                                                   TrackedPairs(true, PenetratingPairs(true))};
  }();
  return pairs[vertex_face ? 1 : 0];
}

void RunTrackedPairs(benchmark::State& state, bool vertex_face, bool cpf) {
  const std::vector<TrackedPair>& pairs = TrackedPairsOf(vertex_face);
  if (pairs.empty()) {
    state.SkipWithError("no tracked pairs were generated");
    return;
  }
  size_t i = 0;
  for (auto _ : state) {
    const TrackedPair& pair = pairs[i];
    i = i + 1 == pairs.size() ? 0 : i + 1;
    if (cpf) {
      benchmark::DoNotOptimize(TrackedCpf(vertex_face, pair));
    } else {
      benchmark::DoNotOptimize(DcdDpf(vertex_face, pair.x));
    }
  }
  state.counters["pairs"] = static_cast<double>(pairs.size());
}

enum class Method { kCcdCpf, kDcdDpf, kCcdCpfThreeSearches, kCcd, kCcdPenetration, kCpf };

void RunPairs(benchmark::State& state, bool vertex_face, Method method) {
  const std::vector<PenetratingPair>& pairs = PenetratingPairs(vertex_face);
  if (pairs.empty()) {
    state.SkipWithError("no penetrating pairs were generated");
    return;
  }
  size_t i = 0;
  for (auto _ : state) {
    const PenetratingPair& pair = pairs[i];
    const PairTrajectory& x = pair.x;
    i = i + 1 == pairs.size() ? 0 : i + 1;
    switch (method) {
      case Method::kCcdCpf:
        benchmark::DoNotOptimize(CcdCpf(vertex_face, x));
        break;
      case Method::kDcdDpf:
        benchmark::DoNotOptimize(DcdDpf(vertex_face, x));
        break;
      case Method::kCcdCpfThreeSearches:
        benchmark::DoNotOptimize(CcdCpfThreeSearches(vertex_face, x));
        break;
      case Method::kCcd:
        benchmark::DoNotOptimize(vertex_face ? core::VertexFaceCcd(x) : core::EdgeEdgeCcd(x));
        break;
      case Method::kCcdPenetration:
        benchmark::DoNotOptimize(CcdPenetration(vertex_face, x));
        break;
      case Method::kCpf:
        benchmark::DoNotOptimize(
            Cpf(vertex_face, x, pair.found.ccd, pair.found.penetration.intervals));
        break;
    }
  }
  state.counters["pairs"] = static_cast<double>(pairs.size());
}

// A link of the chain benchmark with its face BVH, and penetrating query points.
struct LinkQueries {
  core::TriangleMesh mesh;
  core::Bvh bvh;
  std::vector<core::Vec3> points;
};

LinkQueries MakeLinkQueries(int major_segments, int minor_segments) {
  constexpr double kMajor = 0.5, kMinor = 0.1;
  LinkQueries link{.mesh = core::MakeTorus(kMajor, kMinor, major_segments, minor_segments).value(),
                   .bvh = core::Bvh(core::BvhOptions{}),
                   .points = {}};
  std::vector<core::Aabb> boxes;
  core::BuildFaceBoxes(link.mesh, link.mesh.vertices(), &boxes);
  link.bvh.Update(boxes);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> angle(0.0, 2.0 * M_PI), depth(0.0, 0.5 * kMinor);
  while (link.points.size() < static_cast<size_t>(kCandidatePairs)) {
    const double u = angle(rng), v = angle(rng);
    const double rho = kMinor - depth(rng);  // distance from the tube's centre line
    const core::Vec3 p((kMajor + rho * std::cos(v)) * std::cos(u),
                       (kMajor + rho * std::cos(v)) * std::sin(u), rho * std::sin(v));
    // Keep the points the discrete query sees inside the faceted tube.
    const core::DiscreteSurface surface{&link.mesh, &link.mesh.vertices(), &link.bvh};
    core::VertexPenetration hit;
    if (core::VertexPenetrates(p, surface, {}, &hit)) link.points.push_back(p);
  }
  return link;
}

void BM_VertexInLink_DcdDpf(benchmark::State& state) {
  const LinkQueries link =
      MakeLinkQueries(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const core::DiscreteSurface surface{&link.mesh, &link.mesh.vertices(), &link.bvh};
  const core::DiscretePenetrationOptions options;
  size_t i = 0;
  for (auto _ : state) {
    core::VertexPenetration hit;
    core::VertexImpulses impulses{};
    if (core::VertexPenetrates(link.points[i], surface, options, &hit)) {
      const core::Vec3 impulse =
          kParams.dt_s * kParams.stiffness_n_per_m * hit.depth_m * hit.normal;
      impulses[0] = impulse;
      for (int k = 0; k < 3; ++k) impulses[k + 1] = -hit.closest.weights[k] * impulse;
    }
    benchmark::DoNotOptimize(impulses);
    i = i + 1 == link.points.size() ? 0 : i + 1;
  }
  state.counters["triangles"] = link.mesh.num_faces();
}

void BM_VertexFace_CcdCpf(benchmark::State& s) { RunPairs(s, true, Method::kCcdCpf); }
void BM_VertexFace_DcdDpf(benchmark::State& s) { RunPairs(s, true, Method::kDcdDpf); }
void BM_EdgeEdge_CcdCpf(benchmark::State& s) { RunPairs(s, false, Method::kCcdCpf); }
void BM_EdgeEdge_DcdDpf(benchmark::State& s) { RunPairs(s, false, Method::kDcdDpf); }
void BM_VertexFace_CcdCpfThreeSearches(benchmark::State& s) {
  RunPairs(s, true, Method::kCcdCpfThreeSearches);
}
void BM_EdgeEdge_CcdCpfThreeSearches(benchmark::State& s) {
  RunPairs(s, false, Method::kCcdCpfThreeSearches);
}
void BM_VertexFace_Ccd(benchmark::State& s) { RunPairs(s, true, Method::kCcd); }
void BM_EdgeEdge_Ccd(benchmark::State& s) { RunPairs(s, false, Method::kCcd); }
void BM_VertexFace_CcdPenetration(benchmark::State& s) {
  RunPairs(s, true, Method::kCcdPenetration);
}
void BM_EdgeEdge_CcdPenetration(benchmark::State& s) {
  RunPairs(s, false, Method::kCcdPenetration);
}
void BM_VertexFace_Cpf(benchmark::State& s) { RunPairs(s, true, Method::kCpf); }
void BM_EdgeEdge_Cpf(benchmark::State& s) { RunPairs(s, false, Method::kCpf); }
void BM_VertexFace_TrackedCpf(benchmark::State& s) { RunTrackedPairs(s, true, true); }
void BM_VertexFace_TrackedDcdDpf(benchmark::State& s) { RunTrackedPairs(s, true, false); }
void BM_EdgeEdge_TrackedCpf(benchmark::State& s) { RunTrackedPairs(s, false, true); }
void BM_EdgeEdge_TrackedDcdDpf(benchmark::State& s) { RunTrackedPairs(s, false, false); }

BENCHMARK(BM_VertexFace_CcdCpf);
BENCHMARK(BM_VertexFace_DcdDpf);
BENCHMARK(BM_EdgeEdge_CcdCpf);
BENCHMARK(BM_EdgeEdge_DcdDpf);
BENCHMARK(BM_VertexFace_CcdCpfThreeSearches);
BENCHMARK(BM_EdgeEdge_CcdCpfThreeSearches);
BENCHMARK(BM_VertexFace_Ccd);
BENCHMARK(BM_EdgeEdge_Ccd);
BENCHMARK(BM_VertexFace_CcdPenetration);
BENCHMARK(BM_EdgeEdge_CcdPenetration);
BENCHMARK(BM_VertexFace_Cpf);
BENCHMARK(BM_EdgeEdge_Cpf);
BENCHMARK(BM_VertexFace_TrackedCpf);
BENCHMARK(BM_VertexFace_TrackedDcdDpf);
BENCHMARK(BM_EdgeEdge_TrackedCpf);
BENCHMARK(BM_EdgeEdge_TrackedDcdDpf);
BENCHMARK(BM_VertexInLink_DcdDpf)->Args({40, 15})->Args({20, 8});

}  // namespace
}  // namespace contactsim::bench

BENCHMARK_MAIN();
