// Geometry shared by the CCD fast paths (coplanarity_fast_path.h, separation_fast_path.h): where
// the pair's closest points lie at one time, and how far before a root the reported time of
// impact may be placed.
#pragma once

#include "core/collision/ccd/ccd_types.h"
#include "core/common/host_device.h"

namespace contactsim::core::internal {

// Relative margin by which a collision point must lie inside the features at a root.
inline constexpr double kInsideMargin = 1e-6;

// Gaps (normalized time) left before a root for the certified time of impact, RootGap(0) to
// RootGap(kRootGapCount - 1), tried in turn while at most MaxRootGap. (A function, not an array:
// device code cannot index a host array.)
inline constexpr int kRootGapCount = 4;
CONTACTSIM_HOST_DEVICE constexpr double RootGap(int i) {
  return i == 0 ? 1e-9 : (i == 1 ? 1e-7 : (i == 2 ? 1e-5 : 1e-3));
}

// The largest gap g for which toi = t_root - g keeps the root finder's promise: the features are
// within tolerance_m of where they are at the root. Two points of the pair move apart or together
// by at most L = 2 max_i |x_i(1) - x_i(0)| over the step, so by at most g L over the gap. (This
// bounds only how early toi may be; the certified prefix alone makes it a lower bound.)
double MaxRootGap(const PairTrajectory& trajectory, double tolerance_m);

// x_i(t) = x_i(0) + t (x_i(1) - x_i(0)).
CONTACTSIM_HOST_DEVICE inline Vec3 PointAt(const PairTrajectory& trajectory, int i, double t) {
  return trajectory.x_t0[i] + t * (trajectory.x_t1[i] - trajectory.x_t0[i]);
}

struct ClosestAtTime {
  bool inside = false;          // the closest points lie inside the features by kInsideMargin
  Vec3 weights = Vec3::Zero();  // CcdResult::weights convention
  double distance_m = 0.0;      // between the closest points [m]
};

// VF: the vertex's projection onto the triangle's plane, its barycentric weights and distance
// (inside = all weights > kInsideMargin; false for a (nearly) degenerate triangle).
ClosestAtTime VertexFaceProjectionAt(const PairTrajectory& trajectory, double t);

// EE: the closest points of the two infinite lines, as (s, u) on edges a-b and c-d, and their
// distance (inside = s, u in (kInsideMargin, 1 - kInsideMargin); false for (nearly) parallel
// edges).
ClosestAtTime EdgeEdgeLineClosestAt(const PairTrajectory& trajectory, double t);

}  // namespace contactsim::core::internal
