// The implementation of the inclusion root finder (inclusion_root_finder.h), inline and
// CONTACTSIM_HOST_DEVICE: the one definition that inclusion_root_finder.cc wraps for the CPU and
// the CUDA batch CCD (gpu/src/batch_ccd.cu) compiles for the device, so both run the same algorithm
// with the same roundings.
#pragma once

#include <algorithm>
#include <cmath>

#include "core/collision/ccd/inclusion_root_finder.h"
#include "core/collision/ccd/rounding_bounds.h"
#include "core/common/host_device.h"

namespace contactsim::core::internal {
namespace inclusion_root_finder_impl {

struct Box {
  double t[2];
  double u[2];
  double v[2];
  int32_t depth;
};

// Heap order: earlier t0 first; among equal t0, deeper (smaller) boxes first.
struct Later {
  CONTACTSIM_HOST_DEVICE constexpr bool operator()(const Box& a, const Box& b) const {
    return a.t[0] > b.t[0] || (a.t[0] == b.t[0] && a.depth < b.depth);
  }
};

CONTACTSIM_HOST_DEVICE inline void Cross(const double a[3], const double b[3], double out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

// Feature-aligned test directions of a box, from the positions at its t0 (any vector is a valid
// direction, so their own rounding is free): VF the triangle normal n = (b - a) x (c - a) and
// the in-plane edge normals n x e of its three edges; EE n = e0 x e1, the in-plane
// perpendiculars e0 x n and e1 x n, and e0 x (w x e0), w = c - a, which separates (nearly)
// parallel edges where n vanishes.
constexpr int kFeatureDirections = 4;

// Corner values F[corner][k], corner = bit0 (t) | bit1 (u) << 1 | bit2 (v) << 2, computed in
// exactly the order the error bound in the header assumes.
template <InclusionPairKind kKind>
class CornerEvaluator {
 public:
  CONTACTSIM_HOST_DEVICE explicit CornerEvaluator(const PairTrajectory& trajectory) {
    for (int i = 0; i < 4; ++i) {
      for (int k = 0; k < 3; ++k) {
        x0_[i][k] = trajectory.x_t0[i][k];
        dx_[i][k] = trajectory.x_t1[i][k] - trajectory.x_t0[i][k];
      }
    }
  }

  // Also returns the positions at t0, from which FeatureDirections are computed when needed.
  CONTACTSIM_HOST_DEVICE void Evaluate(const Box& box, double f[8][3], double x_start[4][3]) const {
    for (int bt = 0; bt < 2; ++bt) {
      const double t = box.t[bt];
      double x[4][3];
      for (int i = 0; i < 4; ++i) {
        for (int k = 0; k < 3; ++k) x[i][k] = x0_[i][k] + t * dx_[i][k];
      }
      if (bt == 0) std::copy(&x[0][0], &x[0][0] + 12, &x_start[0][0]);
      for (int k = 0; k < 3; ++k) {
        if constexpr (kKind == InclusionPairKind::kVertexFace) {
          // Triangle point a + s (b - a) + s w (c - b), (s, w) = (box.u, box.v).
          const double w = x[0][k] - x[1][k];
          const double e_ba = x[2][k] - x[1][k];
          const double e_cb = x[3][k] - x[2][k];
          for (int bu = 0; bu < 2; ++bu) {
            const double w_s = w - box.u[bu] * e_ba;
            for (int bv = 0; bv < 2; ++bv) {
              f[bt | bu << 1 | bv << 2][k] = w_s - (box.u[bu] * box.v[bv]) * e_cb;
            }
          }
        } else {
          const double e_ba = x[1][k] - x[0][k];
          const double e_dc = x[3][k] - x[2][k];
          for (int bu = 0; bu < 2; ++bu) {
            const double on_ab = x[0][k] + box.u[bu] * e_ba;
            for (int bv = 0; bv < 2; ++bv) {
              f[bt | bu << 1 | bv << 2][k] = on_ab - (x[2][k] + box.v[bv] * e_dc);
            }
          }
        }
      }
    }
  }

  CONTACTSIM_HOST_DEVICE static void FeatureDirections(const double x[4][3],
                                                       double feature[kFeatureDirections][3]) {
    double e[3][3];
    if constexpr (kKind == InclusionPairKind::kVertexFace) {
      for (int k = 0; k < 3; ++k) {
        e[0][k] = x[2][k] - x[1][k];  // b - a
        e[1][k] = x[3][k] - x[2][k];  // c - b
        e[2][k] = x[1][k] - x[3][k];  // a - c
      }
      Cross(e[0], e[1], feature[0]);
      for (int i = 0; i < 3; ++i) Cross(feature[0], e[i], feature[1 + i]);
    } else {
      for (int k = 0; k < 3; ++k) {
        e[0][k] = x[1][k] - x[0][k];  // b - a
        e[1][k] = x[3][k] - x[2][k];  // d - c
        e[2][k] = x[2][k] - x[0][k];  // c - a
      }
      double w_cross_e0[3];
      Cross(e[0], e[1], feature[0]);
      Cross(e[0], feature[0], feature[1]);
      Cross(e[1], feature[0], feature[2]);
      Cross(e[2], e[0], w_cross_e0);
      Cross(e[0], w_cross_e0, feature[3]);
    }
  }

 private:
  double x0_[4][3];
  double dx_[4][3];
};

// CcdResult::weights for the box parameters (u, v): VF (s, w) -> (1 - s, s (1 - w), s w);
// EE (s, u) -> (s, u, 0).
CONTACTSIM_HOST_DEVICE inline Vec3 Weights(InclusionPairKind kind, double u, double v) {
  if (kind == InclusionPairKind::kEdgeEdge) return Vec3(u, v, 0.0);
  return Vec3(1.0 - u, u * (1.0 - v), u * v);
}

CONTACTSIM_HOST_DEVICE inline Vec3 WeightsAtCentre(InclusionPairKind kind, const Box& box) {
  return Weights(kind, 0.5 * (box.u[0] + box.u[1]), 0.5 * (box.v[0] + box.v[1]));
}

// Projections a.F of the eight corner values onto the box's test directions, with certified
// thresholds (see BoxTester).
constexpr int kMaxDirections = 3 + 4 + kFeatureDirections;

struct Projections {
  int count = 0;
  double axis[kMaxDirections][3];
  double norm[kMaxDirections];       // |axis|_2
  double threshold[kMaxDirections];  // d |axis| + the rounding bound of axis . F, rounded up
  // The same for a half box's values averaged from these: one more rounding, u |axis . F|.
  double half_threshold[kMaxDirections];
  double value[kMaxDirections][8];  // axis . F at each corner (computed)
};

// Certified exclusion of a box from corner values that are each within eps_k of the exact ones
// (see the header). The box holds no collision if, along some direction a, every corner has
// a.F > d |a| (or every corner a.F < -d |a|), with the rounding of a.F accounted for: a.F is
// multilinear too, so its exact range is spanned by the exact corner values. Directions: the
// axes (the cube |F|_inf <= d), the four diagonals (+-1, +-1, +-1) (with the cube, a polytope
// within sqrt(1 + (sqrt(3) - 1)^2) d = 1.24 d of the origin), and the box's feature directions
// (tangent to the ball where contacts in a face interior, or at an edge from the side, happen).
// Polyhedral tests, unlike a Euclidean one, let one plane discard a whole (u, v) cell near the
// first contact, so a growing contact set needs no refinement of a curved boundary.
class BoxTester {
 public:
  // eps: corner error bounds; max_abs: M_k; tolerance: accepted range width [m].
  CONTACTSIM_HOST_DEVICE BoxTester(const double eps[3], const std::array<double, 3>& max_abs,
                                   double d, double tolerance)
      : d_(d) {
    double diagonal_error = 0.0;
    for (int k = 0; k < 3; ++k) {
      const double magnitude = 18.0 * max_abs[k] + eps[k];  // bound on |computed F_k|
      magnitude_[k] = 1.01 * magnitude;  // also bounds the computed projections' terms
      axis_threshold_[k] = InflateBound(d + eps[k]);
      tolerance_[k] = std::max(tolerance, 4.0 * eps[k]);
      // F_x +- F_y +- F_z: two roundings of the sum plus the corners' own errors.
      diagonal_error += eps[k] + GammaBound(2) * magnitude;
      // a . F: three products and two sums, plus |a_k| eps_k.
      direction_error_per_unit_[k] = eps[k] + GammaBound(3) * magnitude;
    }
    diagonal_threshold_ = InflateBound(std::sqrt(3.0) * d + diagonal_error);
    for (int k = 0; k < 3; ++k) {
      axis_half_threshold_[k] = InflateBound(axis_threshold_[k] + GammaBound(1) * magnitude_[k]);
    }
    diagonal_half_threshold_ = InflateBound(
        diagonal_threshold_ + GammaBound(1) * (magnitude_[0] + magnitude_[1] + magnitude_[2]));
  }

  // The largest accepted range width [m].
  CONTACTSIM_HOST_DEVICE double resolution() const {
    return std::max({tolerance_[0], tolerance_[1], tolerance_[2]});
  }

  // Fills the projections direction by direction and returns true (certified: no collision in
  // the box) as soon as one direction excludes the box; the projections are then incomplete.
  // The feature directions, the costliest, are computed only when the axes do not exclude.
  template <InclusionPairKind kKind>
  CONTACTSIM_HOST_DEVICE bool ProjectUnlessExcluded(const double f[8][3],
                                                    const double x_start[4][3],
                                                    Projections* p) const {
    int n = 0;
    for (int k = 0; k < 3; ++k, ++n) {
      p->axis[n][0] = p->axis[n][1] = p->axis[n][2] = 0.0;
      p->axis[n][k] = 1.0;
      p->norm[n] = 1.0;
      p->threshold[n] = axis_threshold_[k];
      p->half_threshold[n] = axis_half_threshold_[k];
      for (int c = 0; c < 8; ++c) p->value[n][c] = f[c][k];
      if (Separates(*p, n)) return true;
    }
    // Feature directions next: the most likely to separate near a contact.
    double feature[kFeatureDirections][3];
    CornerEvaluator<kKind>::FeatureDirections(x_start, feature);
    for (int i = 0; i < kFeatureDirections; ++i) {
      const double* a = feature[i];
      const double scale = std::max({std::abs(a[0]), std::abs(a[1]), std::abs(a[2])});
      if (!(scale > 0.0)) continue;  // degenerate feature
      // |a|_2 without overflow; its few relative roundings are covered by InflateBound.
      const double x = a[0] / scale, y = a[1] / scale, z = a[2] / scale;
      p->norm[n] = scale * std::sqrt(x * x + y * y + z * z);
      p->threshold[n] =
          InflateBound(d_ * p->norm[n] + std::abs(a[0]) * direction_error_per_unit_[0] +
                       std::abs(a[1]) * direction_error_per_unit_[1] +
                       std::abs(a[2]) * direction_error_per_unit_[2]);
      p->half_threshold[n] =
          InflateBound(p->threshold[n] + GammaBound(1) * (std::abs(a[0]) * magnitude_[0] +
                                                          std::abs(a[1]) * magnitude_[1] +
                                                          std::abs(a[2]) * magnitude_[2]));
      for (int k = 0; k < 3; ++k) p->axis[n][k] = a[k];
      for (int c = 0; c < 8; ++c) p->value[n][c] = a[0] * f[c][0] + a[1] * f[c][1] + a[2] * f[c][2];
      if (Separates(*p, n)) return true;
      ++n;
    }
    for (int i = 0; i < 4; ++i, ++n) {
      const double sy = (i & 1) ? -1.0 : 1.0;
      const double sz = (i & 2) ? -1.0 : 1.0;
      p->axis[n][0] = 1.0;
      p->axis[n][1] = sy;
      p->axis[n][2] = sz;
      p->norm[n] = std::sqrt(3.0);
      p->threshold[n] = diagonal_threshold_;
      p->half_threshold[n] = diagonal_half_threshold_;
      // Multiplying by +-1 is exact: the bound's two roundings are the two sums.
      for (int c = 0; c < 8; ++c) p->value[n][c] = (f[c][0] + sy * f[c][1]) + sz * f[c][2];
      if (Separates(*p, n)) return true;
    }
    p->count = n;
    return false;
  }

  // Certified: direction i separates the box (all corner projections beyond its threshold on
  // one side).
  CONTACTSIM_HOST_DEVICE static bool Separates(const Projections& p, int i) {
    const double* v = p.value[i];
    double lo = v[0], hi = v[0];
    for (int c = 1; c < 8; ++c) {
      lo = v[c] < lo ? v[c] : lo;
      hi = v[c] > hi ? v[c] : hi;
    }
    return lo > p.threshold[i] || hi < -p.threshold[i];
  }

  // Certified: which halves of the box along dim hold no collision (excluded[0]: the lower,
  // excluded[1]: the upper), from projections averaged from the box's (a.F is linear along each
  // dimension, so the exact values at the halves' new corners are the averages of the exact ones;
  // half_threshold adds the averaging's rounding). Valid when the midpoint is computed exactly
  // (ExactMidpoint). Each half's corners: the box's four corners on its side, and the midpoints
  // shared by both halves.
  CONTACTSIM_HOST_DEVICE static void HalvesExcluded(const Projections& p, int dim,
                                                    bool excluded[2]) {
    const int bit = 1 << dim;
    int lower[4];
    for (int c = 0, n = 0; c < 8; ++c) {
      if ((c & bit) == 0) lower[n++] = c;
    }
    excluded[0] = excluded[1] = false;
    for (int i = 0; i < p.count && !(excluded[0] && excluded[1]); ++i) {
      const double* v = p.value[i];
      double middle_lo = 0.5 * (v[lower[0]] + v[lower[0] | bit]), middle_hi = middle_lo;
      double lo[2] = {v[lower[0]], v[lower[0] | bit]}, hi[2] = {lo[0], lo[1]};
      for (int j = 1; j < 4; ++j) {
        const double a = v[lower[j]], b = v[lower[j] | bit];
        const double middle = 0.5 * (a + b);
        middle_lo = middle < middle_lo ? middle : middle_lo;
        middle_hi = middle > middle_hi ? middle : middle_hi;
        lo[0] = a < lo[0] ? a : lo[0];
        hi[0] = a > hi[0] ? a : hi[0];
        lo[1] = b < lo[1] ? b : lo[1];
        hi[1] = b > hi[1] ? b : hi[1];
      }
      const double threshold = p.half_threshold[i];
      for (int side = 0; side < 2; ++side) {
        const double half_lo = std::min(lo[side], middle_lo);
        const double half_hi = std::max(hi[side], middle_hi);
        excluded[side] = excluded[side] || half_lo > threshold || half_hi < -threshold;
      }
    }
  }

  // The slice t = t0 (the four t0 corners): `excluded` when it tests as excluded (steers the
  // split), `reachable` when every direction's range comes within (d + slack) |a| of 0 (needed for
  // a witness in it).
  CONTACTSIM_HOST_DEVICE static void TestStartSlice(const Projections& p, double d, double slack,
                                                    bool* excluded, bool* reachable) {
    *excluded = false;
    *reachable = true;
    for (int i = 0; i < p.count; ++i) {
      const double* v = p.value[i];
      const double lo = std::min(std::min(v[0], v[2]), std::min(v[4], v[6]));
      const double hi = std::max(std::max(v[0], v[2]), std::max(v[4], v[6]));
      if (lo > p.threshold[i] || hi < -p.threshold[i]) *excluded = true;
      const double reach = (d + slack) * p.norm[i];
      if (lo > reach || hi < -reach) *reachable = false;
    }
  }

  // Every coordinate's range is within its tolerance.
  CONTACTSIM_HOST_DEVICE bool Narrow(const Projections& p) const {
    for (int k = 0; k < 3; ++k) {
      const double* v = p.value[k];
      double lo = v[0], hi = v[0];
      for (int c = 1; c < 8; ++c) {
        lo = v[c] < lo ? v[c] : lo;
        hi = v[c] > hi ? v[c] : hi;
      }
      const double width = hi - lo;
      if (width > tolerance_[k]) return false;
    }
    return true;
  }

  // Every corner of the coordinate ranges' box is within d of the origin: a certain contact.
  CONTACTSIM_HOST_DEVICE bool Inside(const Projections& p) const {
    double reach_squared = 0.0;
    for (int k = 0; k < 3; ++k) {
      const double* v = p.value[k];
      double reach = 0.0;
      for (int c = 0; c < 8; ++c) reach = std::max(reach, std::abs(v[c]));
      reach_squared += reach * reach;
    }
    return reach_squared <= d_ * d_;
  }

  // The point F lies in the box's test polytope grown by `slack` [m]. Only for acceptance
  // (a genuine near-contact), so no rounding bound.
  CONTACTSIM_HOST_DEVICE bool PolytopeContains(const double f[3], const Projections& p,
                                               double slack) const {
    const double r = d_ + slack;
    for (int i = 0; i < p.count; ++i) {
      const double* a = p.axis[i];
      if (std::abs(a[0] * f[0] + a[1] * f[1] + a[2] * f[2]) > r * p.norm[i]) return false;
    }
    return true;
  }

 private:
  double d_;
  double axis_threshold_[3];
  double tolerance_[3];
  double direction_error_per_unit_[3];
  double magnitude_[3];
  double axis_half_threshold_[3];
  double diagonal_threshold_;
  double diagonal_half_threshold_;
};

// True when lo + hi is computed exactly (TwoSum's error term vanishes), so the computed midpoint
// 0.5 (lo + hi) is the exact one.
CONTACTSIM_HOST_DEVICE inline bool ExactMidpoint(double lo, double hi) {
  const double sum = lo + hi;
  const double hi_part = sum - lo;
  return (lo - (sum - hi_part)) + (hi - hi_part) == 0.0;
}

// Looks for a witness of a near-contact at the box's start time t0: a point (u, v) of the box
// whose F(t0, u, v) lies in the test polytope grown by `slack`. At fixed t, F is bilinear in the
// box parameters (affine for EE), so bilinear interpolation of the four t0 corners is F itself.
// Tried: the point of each side closest to the origin and the least-squares point of the affine
// part (exact for EE), i.e. the likeliest points of the cell to be in contact. This only decides
// when to stop refining (a witness is a genuine near-contact at toi = t0), never what is
// excluded, so its rounding needs no bound.
CONTACTSIM_HOST_DEVICE inline bool FindWitnessAtStart(const Box& box, const double f[8][3],
                                                      const BoxTester& tester,
                                                      const Projections& projections, double slack,
                                                      double* u_out, double* v_out) {
  // t0 corners: f[0] = (u0, v0), f[2] = (u1, v0), f[4] = (u0, v1), f[6] = (u1, v1).
  auto dot = [](const double x[3], const double y[3]) {
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
  };
  double candidates[5][2];
  int count = 0;
  // Sides: from corner `from` to corner `to`, at fixed alpha or beta.
  const int sides[4][2] = {{0, 2}, {4, 6}, {0, 4}, {2, 6}};
  for (int side = 0; side < 4; ++side) {
    const double* from = f[sides[side][0]];
    const double* to = f[sides[side][1]];
    const double direction[3] = {to[0] - from[0], to[1] - from[1], to[2] - from[2]};
    const double length_squared = dot(direction, direction);
    const double along =
        length_squared > 0.0 ? std::clamp(-dot(from, direction) / length_squared, 0.0, 1.0) : 0.0;
    const double fixed = side % 2 == 0 ? 0.0 : 1.0;
    candidates[count][0] = side < 2 ? along : fixed;
    candidates[count++][1] = side < 2 ? fixed : along;
  }
  double p[3], q[3];
  for (int k = 0; k < 3; ++k) {
    p[k] = f[2][k] - f[0][k];
    q[k] = f[4][k] - f[0][k];
  }
  const double pp = dot(p, p), pq = dot(p, q), qq = dot(q, q);
  const double ap = dot(f[0], p), aq = dot(f[0], q);
  const double det = pp * qq - pq * pq;
  if (det > 1e-12 * pp * qq) {
    const double alpha = (pq * aq - qq * ap) / det;
    const double beta = (pq * ap - pp * aq) / det;
    if (alpha >= 0.0 && alpha <= 1.0 && beta >= 0.0 && beta <= 1.0) {
      candidates[count][0] = alpha;
      candidates[count++][1] = beta;
    }
  }
  for (int i = 0; i < count; ++i) {
    const double alpha = candidates[i][0];
    const double beta = candidates[i][1];
    double value[3];
    for (int k = 0; k < 3; ++k) {
      value[k] = (1.0 - beta) * ((1.0 - alpha) * f[0][k] + alpha * f[2][k]) +
                 beta * ((1.0 - alpha) * f[4][k] + alpha * f[6][k]);
    }
    if (tester.PolytopeContains(value, projections, slack)) {
      *u_out = box.u[0] + alpha * (box.u[1] - box.u[0]);
      *v_out = box.v[0] + beta * (box.v[1] - box.v[0]);
      return true;
    }
  }
  return false;
}

// The search's boxes: a binary min-heap under Later on contiguous storage, kept with
// std::push_heap / std::pop_heap (constexpr since C++20, so nvcc compiles them for the device
// too): the host's growing std::vector (inclusion_root_finder.cc) and the device's fixed array
// (gpu/src/batch_ccd.cu) run the same heap algorithm, so they pop boxes in the same order, ties
// included, and give the same answer.
//   Storage: Box* data(); int size(); void set_size(int); bool Reserve(int n) (room for n
//   boxes; false when it cannot make it: the host's grows, the device's is fixed).
template <typename Storage>
class BoxHeap {
 public:
  CONTACTSIM_HOST_DEVICE explicit BoxHeap(Storage* storage) : storage_(storage) {}
  CONTACTSIM_HOST_DEVICE bool empty() const { return storage_->size() == 0; }
  CONTACTSIM_HOST_DEVICE const Box& front() const { return storage_->data()[0]; }
  // False, leaving the heap unchanged, when the storage is full.
  CONTACTSIM_HOST_DEVICE bool Push(const Box& box) {
    const int n = storage_->size();
    if (!storage_->Reserve(n + 1)) return false;
    Box* data = storage_->data();
    data[n] = box;
    storage_->set_size(n + 1);
    std::push_heap(data, data + n + 1, Later{});
    return true;
  }
  CONTACTSIM_HOST_DEVICE Box Pop() {
    const int n = storage_->size();
    Box* data = storage_->data();
    std::pop_heap(data, data + n, Later{});
    const Box box = data[n - 1];
    storage_->set_size(n - 1);
    return box;
  }

 private:
  Storage* storage_;
};

// InclusionTimeOfImpact's search for the pair kind, with the boxes in `storage` (emptied first).
// Returns false when the storage ran full: *result is then meaningless and the caller must answer
// the query another way (the device hands it back to the host). A storage that can always grow
// (the host's) makes this exactly InclusionTimeOfImpact.
template <InclusionPairKind kKind, typename Storage>
CONTACTSIM_HOST_DEVICE inline bool Solve(const PairTrajectory& trajectory,
                                         const CcdOptions& options, Storage* storage,
                                         CcdResult* out) {
  const CornerEvaluator<kKind> evaluator(trajectory);
  const std::array<double, 3> max_abs = MaxAbsCoordinates(trajectory);
  const double d = options.min_separation_m;
  // Corner values are within eps_k = gamma_7 18 M_k of the exact ones (header).
  double eps_corner[3];
  for (int k = 0; k < 3; ++k) eps_corner[k] = InflateBound(GammaBound(7) * 18.0 * max_abs[k]);
  const BoxTester tester(eps_corner, max_abs, d, options.tolerance_m);
  const double resolution = tester.resolution();

  storage->set_size(0);
  BoxHeap<Storage> heap(storage);
  if (!heap.Push(Box{{0.0, 1.0}, {0.0, 1.0}, {0.0, 1.0}, 0})) return false;

  CcdResult& result = *out;
  result = CcdResult{};
  while (!heap.empty()) {
    if (result.iterations >= options.max_iterations) {
      result.collides = true;
      result.toi = heap.front().t[0];
      result.weights = WeightsAtCentre(kKind, heap.front());
      result.status = CcdStatus::kMaxIterationsReached;
      return true;
    }
    const Box box = heap.Pop();
    ++result.iterations;

    double f[8][3];
    double x_start[4][3];
    evaluator.Evaluate(box, f, x_start);
    Projections projections;
    if (tester.ProjectUnlessExcluded<kKind>(f, x_start, &projections)) continue;

    if (tester.Narrow(projections) || tester.Inside(projections)) {
      result.collides = true;
      result.toi = box.t[0];
      result.weights = WeightsAtCentre(kKind, box);
      return true;
    }
    bool start_slice_excluded = false;
    bool start_slice_reachable = false;
    BoxTester::TestStartSlice(projections, d, resolution, &start_slice_excluded,
                              &start_slice_reachable);
    double witness_u = 0.0;
    double witness_v = 0.0;
    if (start_slice_reachable &&
        FindWitnessAtStart(box, f, tester, projections, resolution, &witness_u, &witness_v)) {
      result.collides = true;
      result.toi = box.t[0];
      result.weights = Weights(kKind, witness_u, witness_v);
      return true;
    }

    // Change of F along each dimension, from the corner differences.
    double change[3] = {0.0, 0.0, 0.0};
    for (int dim = 0; dim < 3; ++dim) {
      const int bit = 1 << dim;
      for (int c = 0; c < 8; ++c) {
        if (c & bit) continue;
        for (int k = 0; k < 3; ++k) {
          change[dim] = std::max(change[dim], std::abs(f[c | bit][k] - f[c][k]));
        }
      }
    }

    // Split, choosing the dimension by a look-ahead on the halves, whose projections are the
    // averages of the box's since F is linear along each dimension:
    //   1. t, if a half is excluded (the earlier one: the box's first contact is later);
    //   2. u or v, if one of its halves is excluded: the inclusion is too coarse in (u, v);
    //   3. t, if the slice t = t0 is excluded: bisect for the entry time with the whole (u, v)
    //      cell, which discards whole cells at once near a flat face of the test polytope;
    //   4. otherwise u or v (the larger change of F), or t once (u, v) is resolved.
    // An excluded half (certified) is not queued. Splitting by the largest change alone would
    // cut a contact set that appears over a wide (u, v) region (near-parallel approach,
    // degenerate features) into many cells, each bisecting t on its own. Once t is resolved,
    // only (u, v) is split.
    const bool time_resolved = change[0] <= resolution;
    const int wider_uv = change[1] >= change[2] ? 1 : 2;
    const bool uv_resolved = change[wider_uv] <= resolution;
    int first_dim = -1;
    int excluded_side = -1;
    bool halves[2];
    if (!time_resolved) {
      BoxTester::HalvesExcluded(projections, 0, halves);
      if (halves[0] || halves[1]) {
        first_dim = 0;
        excluded_side = halves[0] ? 0 : 1;
      }
    }
    for (int i = 0; i < 2 && first_dim < 0 && !uv_resolved; ++i) {
      const int dim = i == 0 ? wider_uv : 3 - wider_uv;
      BoxTester::HalvesExcluded(projections, dim, halves);
      if (halves[0] || halves[1]) {
        first_dim = dim;
        excluded_side = halves[0] ? 0 : 1;
      }
    }
    if (first_dim < 0) {
      first_dim = time_resolved ? wider_uv : (uv_resolved || start_slice_excluded ? 0 : wider_uv);
    }
    int order[3];
    order[0] = first_dim;
    order[1] = first_dim == 0 ? wider_uv : (first_dim == wider_uv ? 3 - wider_uv : wider_uv);
    order[2] = 3 - order[0] - order[1];
    int split = -1;
    double mid = 0.0;
    for (int dim : order) {
      const double* range = dim == 0 ? box.t : (dim == 1 ? box.u : box.v);
      mid = 0.5 * (range[0] + range[1]);
      if (mid > range[0] && mid < range[1]) {
        split = dim;
        if (split != first_dim || !ExactMidpoint(range[0], range[1])) excluded_side = -1;
        break;
      }
    }
    if (split < 0) {
      // No dimension can be halved in floating point: accept (conservative).
      result.collides = true;
      result.toi = box.t[0];
      result.weights = WeightsAtCentre(kKind, box);
      return true;
    }
    Box children[2] = {box, box};
    (split == 0 ? children[0].t : (split == 1 ? children[0].u : children[0].v))[1] = mid;
    (split == 0 ? children[1].t : (split == 1 ? children[1].u : children[1].v))[0] = mid;
    for (int side = 0; side < 2; ++side) {
      if (side == excluded_side) continue;
      children[side].depth = box.depth + 1;
      if (!heap.Push(children[side])) return false;
    }
  }
  return true;
}

}  // namespace inclusion_root_finder_impl
}  // namespace contactsim::core::internal
