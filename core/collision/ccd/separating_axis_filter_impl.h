// The implementation of the separating-axis filter (separating_axis_filter.h), inline and
// CONTACTSIM_HOST_DEVICE: the one definition that separating_axis_filter.cc wraps for the CPU and
// the CUDA batch CCD (gpu/src/batch_ccd.cu) compiles for the device, so both run the same algorithm
// with the same roundings.
#pragma once

#include <algorithm>
#include <cmath>

#include "core/collision/ccd/rounding_bounds.h"
#include "core/collision/ccd/separating_axis_filter.h"
#include "core/common/host_device.h"

namespace contactsim::core {
namespace separating_axis_filter_impl {

using internal::GammaBound;
using internal::InflateBound;

// The eight input points as plain arrays: x[0][i] at t = 0, x[1][i] at t = 1.
struct Points {
  double x[2][4][3];
  double max_abs = 0.0;  // M: largest absolute input coordinate [m]
  bool usable = true;    // all coordinates finite and far from overflow
};

// NaN and inf propagate into the scan's sum, unlike into its max.
CONTACTSIM_HOST_DEVICE inline Points LoadPoints(const PairTrajectory& trajectory,
                                                const internal::CoordinateScan& scan) {
  Points points;
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 3; ++k) {
      points.x[0][i][k] = trajectory.x_t0[i][k];
      points.x[1][i][k] = trajectory.x_t1[i][k];
    }
  }
  points.max_abs = scan.max_abs;
  points.usable = scan.sum_abs < 1e150;
  return points;
}

CONTACTSIM_HOST_DEVICE inline void Cross(const double a[3], const double b[3], double out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

CONTACTSIM_HOST_DEVICE inline void Sub(const double a[3], const double b[3], double out[3]) {
  out[0] = a[0] - b[0];
  out[1] = a[1] - b[1];
  out[2] = a[2] - b[2];
}

CONTACTSIM_HOST_DEVICE inline double Dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// Separation of the sets P = points [0, kNumP) and Q = points [kNumP, 4) along the coordinate
// axis k at both ends of the step. Coordinates are exact inputs, so the only rounding is the
// final subtraction: fl(x - y) > d (1 + 2^-48) + DBL_MIN implies x - y > d.
template <int kNumP>
CONTACTSIM_HOST_DEVICE inline bool SeparatedAlongCoordinate(const Points& points, int k,
                                                            double margin) {
  bool p_below = true;  // max P < min Q by more than d at both times
  bool p_above = true;  // min P > max Q by more than d at both times
  for (int time = 0; time < 2; ++time) {
    const double(*x)[3] = points.x[time];
    double p_min = x[0][k], p_max = x[0][k];
    for (int i = 1; i < kNumP; ++i) {
      p_min = std::min(p_min, x[i][k]);
      p_max = std::max(p_max, x[i][k]);
    }
    double q_min = x[kNumP][k], q_max = x[kNumP][k];
    for (int i = kNumP + 1; i < 4; ++i) {
      q_min = std::min(q_min, x[i][k]);
      q_max = std::max(q_max, x[i][k]);
    }
    p_below = p_below && (q_min - p_max > margin);
    p_above = p_above && (p_min - q_max > margin);
  }
  return p_below || p_above;
}

// Separation along an arbitrary axis n. With s_i = fl(n . x_i), |s_i - n . x_i| <= gamma_3 |n|_1 M
// (three products and two sums per dot product), so a computed gap fl(s_q - s_p) exceeding
// d |n|_2 + 2 gamma_3 |n|_1 M, inflated for the rounding of the bound and of the subtraction,
// certifies the exact gap exceeds d |n|_2.
template <int kNumP>
CONTACTSIM_HOST_DEVICE inline bool SeparatedAlongAxis(const Points& points, const double n[3],
                                                      double min_separation_m) {
  const double norm1 = std::abs(n[0]) + std::abs(n[1]) + std::abs(n[2]);
  // A zero axis proves nothing; norm1 M near the overflow threshold could overflow a dot product.
  if (!(norm1 > 0.0) || !(norm1 * points.max_abs < 1e300)) return false;
  // d |n|_2, without the square root at d = 0 (the exact-contact query and its windows).
  const double separation = min_separation_m > 0.0 ? min_separation_m * std::sqrt(Dot(n, n)) : 0.0;
  const double margin = InflateBound(separation + 2.0 * GammaBound(3) * norm1 * points.max_abs);
  bool p_below = true;
  bool p_above = true;
  for (int time = 0; time < 2; ++time) {
    const double(*x)[3] = points.x[time];
    double p_min = Dot(n, x[0]), p_max = p_min;
    for (int i = 1; i < kNumP; ++i) {
      const double s = Dot(n, x[i]);
      p_min = std::min(p_min, s);
      p_max = std::max(p_max, s);
    }
    double q_min = Dot(n, x[kNumP]), q_max = q_min;
    for (int i = kNumP + 1; i < 4; ++i) {
      const double s = Dot(n, x[i]);
      q_min = std::min(q_min, s);
      q_max = std::max(q_max, s);
    }
    p_below = p_below && (q_min - p_max > margin);
    p_above = p_above && (p_min - q_max > margin);
    if (!p_below && !p_above) return false;
  }
  return true;
}

template <int kNumP>
CONTACTSIM_HOST_DEVICE inline bool SeparatedAlongCoordinates(const Points& points,
                                                             double min_separation_m) {
  const double margin = InflateBound(min_separation_m);
  return SeparatedAlongCoordinate<kNumP>(points, 0, margin) ||
         SeparatedAlongCoordinate<kNumP>(points, 1, margin) ||
         SeparatedAlongCoordinate<kNumP>(points, 2, margin);
}

// Triangle edges and normals at both ends of the step.
struct TriangleFrames {
  double edges[2][3][3];  // [time][edge ab, bc, ca][k]
  double normals[2][3];   // [time][k]
};

CONTACTSIM_HOST_DEVICE inline TriangleFrames MakeTriangleFrames(const Points& points) {
  TriangleFrames frames;
  for (int time = 0; time < 2; ++time) {
    const double(*x)[3] = points.x[time];
    Sub(x[2], x[1], frames.edges[time][0]);
    Sub(x[3], x[2], frames.edges[time][1]);
    Sub(x[1], x[3], frames.edges[time][2]);
    Cross(frames.edges[time][0], frames.edges[time][1], frames.normals[time]);
  }
  return frames;
}

CONTACTSIM_HOST_DEVICE inline bool VertexFaceSeparatedOnNormals(const Points& points,
                                                                const TriangleFrames& frames,
                                                                double min_separation_m) {
  return SeparatedAlongAxis<1>(points, frames.normals[0], min_separation_m) ||
         SeparatedAlongAxis<1>(points, frames.normals[1], min_separation_m);
}

// In-plane edge normals n x e: separate a vertex that stays beside the triangle (coplanar
// motion included), where the normal axis cannot.
CONTACTSIM_HOST_DEVICE inline bool VertexFaceSeparatedOnInPlaneAxes(const Points& points,
                                                                    const TriangleFrames& frames,
                                                                    double min_separation_m) {
  for (int time = 0; time < 2; ++time) {
    for (int edge = 0; edge < 3; ++edge) {
      double axis[3];
      Cross(frames.normals[time], frames.edges[time][edge], axis);
      if (SeparatedAlongAxis<1>(points, axis, min_separation_m)) return true;
    }
  }
  return false;
}

// Edge directions and their common normal at both ends of the step.
struct EdgeFrames {
  double edge0[2][3];
  double edge1[2][3];
  double normals[2][3];
};

CONTACTSIM_HOST_DEVICE inline EdgeFrames MakeEdgeFrames(const Points& points) {
  EdgeFrames frames;
  for (int time = 0; time < 2; ++time) {
    const double(*x)[3] = points.x[time];
    Sub(x[1], x[0], frames.edge0[time]);
    Sub(x[3], x[2], frames.edge1[time]);
    Cross(frames.edge0[time], frames.edge1[time], frames.normals[time]);
  }
  return frames;
}

CONTACTSIM_HOST_DEVICE inline bool EdgeEdgeSeparatedOnNormals(const Points& points,
                                                              const EdgeFrames& frames,
                                                              double min_separation_m) {
  return SeparatedAlongAxis<2>(points, frames.normals[0], min_separation_m) ||
         SeparatedAlongAxis<2>(points, frames.normals[1], min_separation_m);
}

// In-plane directions: perpendicular to each edge within the plane of both, and, for (nearly)
// parallel edges whose cross product vanishes, the offset of edge 1 from the line of edge 0 with
// its component along edge 0 removed: e0 x ((c - a) x e0).
CONTACTSIM_HOST_DEVICE inline bool EdgeEdgeSeparatedOnInPlaneAxes(const Points& points,
                                                                  const EdgeFrames& frames,
                                                                  double min_separation_m) {
  for (int time = 0; time < 2; ++time) {
    const double(*x)[3] = points.x[time];
    double axis[3];
    Cross(frames.edge0[time], frames.normals[time], axis);
    if (SeparatedAlongAxis<2>(points, axis, min_separation_m)) return true;
    Cross(frames.edge1[time], frames.normals[time], axis);
    if (SeparatedAlongAxis<2>(points, axis, min_separation_m)) return true;
    double offset[3];
    double offset_cross_edge[3];
    Sub(x[2], x[0], offset);
    Cross(offset, frames.edge0[time], offset_cross_edge);
    Cross(frames.edge0[time], offset_cross_edge, axis);
    if (SeparatedAlongAxis<2>(points, axis, min_separation_m)) return true;
  }
  return false;
}

CONTACTSIM_HOST_DEVICE inline bool UsableInput(const Points& points, double min_separation_m) {
  return points.usable && min_separation_m >= 0.0;
}

// internal::VertexFaceSeparatedOnFixedAxis.
CONTACTSIM_HOST_DEVICE inline bool VertexFaceSeparated(const PairTrajectory& trajectory,
                                                       double min_separation_m, SeparatingAxes axes,
                                                       const internal::CoordinateScan& scan) {
  const Points points = LoadPoints(trajectory, scan);
  if (!UsableInput(points, min_separation_m)) return false;
  const bool primary = axes != SeparatingAxes::kInPlane;
  if (primary && SeparatedAlongCoordinates<1>(points, min_separation_m)) return true;
  const TriangleFrames frames = MakeTriangleFrames(points);
  if (primary && VertexFaceSeparatedOnNormals(points, frames, min_separation_m)) return true;
  return axes != SeparatingAxes::kPrimary &&
         VertexFaceSeparatedOnInPlaneAxes(points, frames, min_separation_m);
}

// internal::EdgeEdgeSeparatedOnFixedAxis.
CONTACTSIM_HOST_DEVICE inline bool EdgeEdgeSeparated(const PairTrajectory& trajectory,
                                                     double min_separation_m, SeparatingAxes axes,
                                                     const internal::CoordinateScan& scan) {
  const Points points = LoadPoints(trajectory, scan);
  if (!UsableInput(points, min_separation_m)) return false;
  const bool primary = axes != SeparatingAxes::kInPlane;
  if (primary && SeparatedAlongCoordinates<2>(points, min_separation_m)) return true;
  const EdgeFrames frames = MakeEdgeFrames(points);
  if (primary && EdgeEdgeSeparatedOnNormals(points, frames, min_separation_m)) return true;
  return axes != SeparatingAxes::kPrimary &&
         EdgeEdgeSeparatedOnInPlaneAxes(points, frames, min_separation_m);
}

}  // namespace separating_axis_filter_impl
}  // namespace contactsim::core
