// Random and degenerate CCD queries for comparing two implementations of the same CCD (the GPU
// batch against the CPU, tests/gpu and bench/ccd_batch_bench.cc): the families where rounding and
// special cases decide the answer, mixed with generic ones.
#pragma once

#include <cstdint>
#include <vector>

#include "core/collision/ccd/query_text.h"

namespace contactsim::core::testing {

enum class CcdQueryFamily : int {
  kGeneric = 0,       // unit-box features, random motion
  kNearContact,       // closest points within a few mm at a random time
  kNearlyDegenerate,  // slivers, nearly parallel edges (TrajectoryGenerator)
  kTouchingAtAnEnd,   // exactly touching at t = 0 or t = 1
  kCoplanarMotion,    // all four points in the plane z = 0 for the whole step
  kParallelEdges,     // edges parallel (VF: the vertex moving parallel to the face)
  kZeroMotion,        // x_t1 == x_t0 for every point, some touching
  kHugeCoordinates,   // a generic query scaled by 1e100 (some by ~1e149)
  kTinyCoordinates,   // a generic query scaled by 1e-100
  kCollapsedFeature,  // a zero-length edge or a triangle with two equal vertices
  kCount,
};

// `count` queries, deterministic in `seed`: query i has family i % kCount and kind vf for even
// i / kCount, ee for odd, so every family appears with both kinds.
std::vector<CcdQuery> RandomAndDegenerateCcdQueries(int64_t count, uint64_t seed);

}  // namespace contactsim::core::testing
