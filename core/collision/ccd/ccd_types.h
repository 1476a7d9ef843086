// Types shared by the continuous collision detection (CCD) queries.
//
// Every query works on linear trajectories over the normalized step t in [0, 1]:
//   x(t) = (1 - t) x_t0 + t x_t1   for each of the four points of the pair.
// A vertex-face (VF) pair is the vertex p and the triangle (a, b, c); an edge-edge (EE) pair is
// the edges (a, b) and (c, d).
#pragma once

#include <array>
#include <cstdint>

#include "core/common/eigen_types.h"

namespace contactsim::core {

// The four points of a VF or EE pair at the start (t = 0) and end (t = 1) of the step [m].
// VF: {p, a, b, c}. EE: {a, b, c, d} (edge 0 = a-b, edge 1 = c-d).
struct PairTrajectory {
  std::array<Vec3, 4> x_t0;
  std::array<Vec3, 4> x_t1;
};

struct CcdOptions {
  // Minimum separation (thickness) d [m]: a pair counts as colliding when the features come within
  // distance d. 0 means exact contact.
  double min_separation_m = 0.0;
  // Length tolerance [m] of the certified root finder: at a reported time of impact the features
  // are within 1.24 d + 2 tolerance_m (+ rounding) of each other, so toi may precede the true one
  // by the time they need to close that much further (inclusion_root_finder.h). Smaller values
  // cost more boxes per colliding query.
  double tolerance_m = 1e-6;
  // Box evaluations after which the root finder stops and reports the earliest time it could not
  // rule out (still conservative, possibly a false positive). Recorded in CcdResult::status.
  int32_t max_iterations = 100'000;
};

enum class CcdStatus : uint8_t {
  kOk = 0,
  kMaxIterationsReached = 1,  // answer is conservative but may be a false positive
  // A non-finite or out-of-range input: a NaN/inf coordinate or one beyond 1e150 m (where the
  // rounding bounds could overflow), a NaN/inf/negative separation or tolerance. The result is
  // reported as colliding at toi = 0 so that a caller that ignores the status stays conservative.
  kInvalidInput = 2,
};

// Result of a conservative CCD query.
struct CcdResult {
  bool collides = false;
  // Conservative time of impact in [0, 1]: no contact happens in [0, toi). Only set when collides.
  double toi = 1.0;
  // Collision point at toi as barycentric weights. VF: triangle weights (wa, wb, wc), sum 1.
  // EE: (1 - s, s) on edge 0 and (1 - u, u) on edge 1 stored as (s, u, 0).
  Vec3 weights = Vec3::Zero();
  CcdStatus status = CcdStatus::kOk;
  int32_t iterations = 0;  // boxes evaluated (diagnostics)
};

}  // namespace contactsim::core
