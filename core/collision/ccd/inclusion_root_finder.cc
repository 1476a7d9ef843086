#include "core/collision/ccd/inclusion_root_finder.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/collision/ccd/rounding_bounds.h"

namespace contactsim::core::internal {
namespace {

struct Box {
  double t[2];
  double u[2];
  double v[2];
  int32_t depth;
};

// Heap order: earlier t0 first; among equal t0, deeper (smaller) boxes first.
struct Later {
  bool operator()(const Box& a, const Box& b) const {
    return a.t[0] > b.t[0] || (a.t[0] == b.t[0] && a.depth < b.depth);
  }
};

// Feature-aligned test directions of a box, computed from the positions at its t0 (any vector
// is a valid direction, so their own rounding is free): VF the triangle normal n = (b - a) x
// (c - a) and the in-plane edge normals n x e for its three edges; EE n = e0 x e1, the in-plane
// perpendiculars e0 x n and e1 x n, and e0 x (w x e0), w = c - a, which separates (nearly)
// parallel edges where n vanishes.
struct BoxDirections {
  int count = 0;
  double axis[4][3];
  double norm[4];       // |axis|_2
  double threshold[4];  // certified d |axis| + rounding of axis . F, set by RangeTester
};

inline void Cross(const double a[3], const double b[3], double out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

// Corner values F[corner][k], corner = bit0 (t) | bit1 (u) << 1 | bit2 (v) << 2, computed in
// exactly the order the error bound in the header assumes.
template <InclusionPairKind kKind>
class CornerEvaluator {
 public:
  explicit CornerEvaluator(const PairTrajectory& trajectory) {
    for (int i = 0; i < 4; ++i) {
      for (int k = 0; k < 3; ++k) {
        x0_[i][k] = trajectory.x_t0[i][k];
        dx_[i][k] = trajectory.x_t1[i][k] - trajectory.x_t0[i][k];
      }
    }
  }

  void Evaluate(const Box& box, double f[8][3], BoxDirections* directions) const {
    for (int bt = 0; bt < 2; ++bt) {
      const double t = box.t[bt];
      double x[4][3];
      for (int i = 0; i < 4; ++i) {
        for (int k = 0; k < 3; ++k) x[i][k] = x0_[i][k] + t * dx_[i][k];
      }
      if (bt == 0) SetDirections(x, directions);
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

 private:
  static void SetDirections(const double x[4][3], BoxDirections* directions) {
    double e[3][3];
    if constexpr (kKind == InclusionPairKind::kVertexFace) {
      for (int k = 0; k < 3; ++k) {
        e[0][k] = x[2][k] - x[1][k];  // b - a
        e[1][k] = x[3][k] - x[2][k];  // c - b
        e[2][k] = x[1][k] - x[3][k];  // a - c
      }
      Cross(e[0], e[1], directions->axis[0]);
      for (int i = 0; i < 3; ++i) Cross(directions->axis[0], e[i], directions->axis[1 + i]);
    } else {
      for (int k = 0; k < 3; ++k) {
        e[0][k] = x[1][k] - x[0][k];  // b - a
        e[1][k] = x[3][k] - x[2][k];  // d - c
        e[2][k] = x[2][k] - x[0][k];  // c - a
      }
      double w_cross_e0[3];
      Cross(e[0], e[1], directions->axis[0]);
      Cross(e[0], directions->axis[0], directions->axis[1]);
      Cross(e[1], directions->axis[0], directions->axis[2]);
      Cross(e[2], e[0], w_cross_e0);
      Cross(e[0], w_cross_e0, directions->axis[3]);
    }
    directions->count = 4;
  }

  double x0_[4][3];
  double dx_[4][3];
};

// CcdResult::weights for the box parameters (u, v): VF (s, w) -> (1 - s, s (1 - w), s w);
// EE (s, u) -> (s, u, 0).
Vec3 Weights(InclusionPairKind kind, double u, double v) {
  if (kind == InclusionPairKind::kEdgeEdge) return Vec3(u, v, 0.0);
  return Vec3(1.0 - u, u * (1.0 - v), u * v);
}

Vec3 WeightsAtCentre(InclusionPairKind kind, const Box& box) {
  return Weights(kind, 0.5 * (box.u[0] + box.u[1]), 0.5 * (box.v[0] + box.v[1]));
}

struct RangeTest {
  bool excluded = false;
  bool narrow = true;   // every coordinate's range within its tolerance
  bool inside = false;  // every corner within d of the origin: a certain contact
};

// Certified exclusion of a box from corner values f that are each within eps_k of the exact
// ones (see the header). The box holds no collision if, along some direction a, every corner has
// a.F > d |a| (or every corner a.F < -d |a|), with the rounding of a.F accounted for: a.F is
// multilinear too, so its exact range is spanned by the exact corner values. Directions: the
// axes (the cube |F|_inf <= d), the four diagonals (+-1, +-1, +-1) (with the cube, a polytope
// within sqrt(1 + (sqrt(3) - 1)^2) d = 1.24 d of the origin), and the box's feature directions
// (BoxDirections: tangent to the ball where contacts in the face interior, or at an edge from the
// side, happen). Polyhedral tests, unlike a Euclidean one, let one plane discard a whole (u, v)
// cell near the first contact, so a growing contact set needs no refinement of a curved boundary.
class RangeTester {
 public:
  // eps: corner error bounds; max_abs: M_k; tolerance: accepted range width.
  RangeTester(const double eps[3], const std::array<double, 3>& max_abs, double d, double tolerance)
      : d_(d) {
    double diagonal_error = 0.0;
    for (int k = 0; k < 3; ++k) {
      const double magnitude = 18.0 * max_abs[k] + eps[k];  // bound on |computed F_k|
      axis_threshold_[k] = InflateBound(d + eps[k]);
      tolerance_[k] = std::max(tolerance, 4.0 * eps[k]);
      // F_x +- F_y +- F_z: two roundings of the sum plus the corners' own errors.
      diagonal_error += eps[k] + GammaBound(2) * magnitude;
      // a . F: three products and two sums, plus |a_k| eps_k.
      direction_error_per_unit_[k] = eps[k] + GammaBound(3) * magnitude;
    }
    diagonal_threshold_ = InflateBound(std::sqrt(3.0) * d + diagonal_error);
  }

  const double* tolerance() const { return tolerance_; }

  // Sets the norms and certified thresholds of the box's directions; zero ones are dropped.
  void PrepareDirections(BoxDirections* directions) const {
    int kept = 0;
    for (int i = 0; i < directions->count; ++i) {
      const double* a = directions->axis[i];
      const double scale = std::max({std::abs(a[0]), std::abs(a[1]), std::abs(a[2])});
      if (!(scale > 0.0)) continue;
      // |a|_2 without overflow; its few relative roundings are covered by InflateBound.
      const double x = a[0] / scale, y = a[1] / scale, z = a[2] / scale;
      const double norm = scale * std::sqrt(x * x + y * y + z * z);
      const double threshold =
          InflateBound(d_ * norm + std::abs(a[0]) * direction_error_per_unit_[0] +
                       std::abs(a[1]) * direction_error_per_unit_[1] +
                       std::abs(a[2]) * direction_error_per_unit_[2]);
      for (int k = 0; k < 3; ++k) directions->axis[kept][k] = a[k];
      directions->norm[kept] = norm;
      directions->threshold[kept] = threshold;
      ++kept;
    }
    directions->count = kept;
  }

  RangeTest Test(const double f[8][3], const BoxDirections& directions) const {
    RangeTest test;
    double reach_squared_sum = 0.0;  // squared distance from 0 to the range's farthest corner
    for (int k = 0; k < 3; ++k) {
      double lo = f[0][k];
      double hi = f[0][k];
      for (int c = 1; c < 8; ++c) {
        lo = std::min(lo, f[c][k]);
        hi = std::max(hi, f[c][k]);
      }
      if (lo > axis_threshold_[k] || hi < -axis_threshold_[k]) {
        test.excluded = true;
        return test;
      }
      const double reach = std::max(std::abs(lo), std::abs(hi));
      reach_squared_sum += reach * reach;
      test.narrow = test.narrow && hi - lo <= tolerance_[k];
    }
    for (int i = 0; i < directions.count; ++i) {
      const double* a = directions.axis[i];
      double lo = a[0] * f[0][0] + a[1] * f[0][1] + a[2] * f[0][2];
      double hi = lo;
      for (int c = 1; c < 8; ++c) {
        const double value = a[0] * f[c][0] + a[1] * f[c][1] + a[2] * f[c][2];
        lo = std::min(lo, value);
        hi = std::max(hi, value);
      }
      if (lo > directions.threshold[i] || hi < -directions.threshold[i]) {
        test.excluded = true;
        return test;
      }
    }
    if (ExcludedAlongDiagonals(f)) {
      test.excluded = true;
      return test;
    }
    test.inside = reach_squared_sum <= d_ * d_;
    return test;
  }

  // True when the point F lies in the test polytope grown by `slack`. Only for acceptance
  // heuristics: no rounding bound.
  bool PolytopeContains(const double f[3], const BoxDirections& directions, double slack) const {
    const double r = d_ + slack;
    if (std::abs(f[0]) > r || std::abs(f[1]) > r || std::abs(f[2]) > r) return false;
    const double diagonal = std::sqrt(3.0) * r;
    const double sum = f[0] + f[1], difference = f[0] - f[1];
    if (std::abs(sum + f[2]) > diagonal || std::abs(sum - f[2]) > diagonal ||
        std::abs(difference + f[2]) > diagonal || std::abs(difference - f[2]) > diagonal) {
      return false;
    }
    for (int i = 0; i < directions.count; ++i) {
      const double* a = directions.axis[i];
      if (std::abs(a[0] * f[0] + a[1] * f[1] + a[2] * f[2]) > r * directions.norm[i]) return false;
    }
    return true;
  }

 private:
  bool ExcludedAlongDiagonals(const double f[8][3]) const {
    double lo[4], hi[4];
    for (int c = 0; c < 8; ++c) {
      const double sum = f[c][0] + f[c][1];
      const double difference = f[c][0] - f[c][1];
      const double values[4] = {sum + f[c][2], sum - f[c][2], difference + f[c][2],
                                difference - f[c][2]};
      for (int i = 0; i < 4; ++i) {
        lo[i] = c == 0 ? values[i] : std::min(lo[i], values[i]);
        hi[i] = c == 0 ? values[i] : std::max(hi[i], values[i]);
      }
    }
    for (int i = 0; i < 4; ++i) {
      if (lo[i] > diagonal_threshold_ || hi[i] < -diagonal_threshold_) return true;
    }
    return false;
  }

  double d_;
  double axis_threshold_[3];
  double tolerance_[3];
  double direction_error_per_unit_[3];
  double diagonal_threshold_;
};

// Looks for a witness of a near-contact at the box's start time t0: a point (u, v) of the box
// with |F(t0, u, v)|^2 <= limit_squared. At fixed t, F is bilinear in the box parameters (affine
// for EE), so bilinear interpolation of the four t0 corners is F itself; over the cell with local
// coordinates (alpha, beta) in [0, 1]^2 its minimum lies at an interior stationary point or on a
// side. Tried: the closest point of each side segment, and the least-squares point of the affine
// part (exact for EE). This only decides when to stop refining (a witness is a genuine near-contact
// at toi = t0), never what is excluded, so its rounding needs no bound.
bool FindWitnessAtStart(const Box& box, const double f[8][3], const RangeTester& tester,
                        const BoxDirections& directions, double slack, double* u_out,
                        double* v_out) {
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
    if (tester.PolytopeContains(value, directions, slack)) {
      *u_out = box.u[0] + alpha * (box.u[1] - box.u[0]);
      *v_out = box.v[0] + beta * (box.v[1] - box.v[0]);
      return true;
    }
  }
  return false;
}

// True when the half `side` (0: lower, 1: upper) of the box along `dim` tests as excluded, from
// corner values averaged from the parent's. Only steers the split: the child is evaluated exactly
// when popped.
bool HalfExcluded(const RangeTester& tester, const double f[8][3], const BoxDirections& directions,
                  int dim, int side) {
  const int bit = 1 << dim;
  double half[8][3];
  for (int c = 0; c < 8; ++c) {
    // The lower half keeps the parent's lower corners and gets midpoints for its upper ones.
    const bool moved = side == 0 ? (c & bit) != 0 : (c & bit) == 0;
    for (int k = 0; k < 3; ++k) {
      half[c][k] = moved ? 0.5 * (f[c & ~bit][k] + f[c | bit][k]) : f[c][k];
    }
  }
  return tester.Test(half, directions).excluded;
}

// True when the slice t = t0 of the box (its four t0 corners) is excluded. Only steers the split.
bool StartSliceExcluded(const RangeTester& tester, const double f[8][3],
                        const BoxDirections& directions) {
  double slice[8][3];
  for (int c = 0; c < 8; ++c) {
    for (int k = 0; k < 3; ++k) slice[c][k] = f[c & ~1][k];
  }
  return tester.Test(slice, directions).excluded;
}

template <InclusionPairKind kKind>
CcdResult Solve(const PairTrajectory& trajectory, const CcdOptions& options) {
  const CornerEvaluator<kKind> evaluator(trajectory);
  const std::array<double, 3> max_abs = MaxAbsCoordinates(trajectory);
  const double d = options.min_separation_m;
  // Corner values are within eps_k = gamma_7 18 M_k of the exact ones (header).
  double eps_corner[3];
  for (int k = 0; k < 3; ++k) eps_corner[k] = InflateBound(GammaBound(7) * 18.0 * max_abs[k]);
  const RangeTester corner_tester(eps_corner, max_abs, d, options.tolerance_m);
  const double* tolerance = corner_tester.tolerance();
  const double resolution = std::max({tolerance[0], tolerance[1], tolerance[2]});

  thread_local std::vector<Box> heap;
  heap.clear();
  heap.push_back(Box{{0.0, 1.0}, {0.0, 1.0}, {0.0, 1.0}, 0});

  CcdResult result;
  const Later later;
  while (!heap.empty()) {
    if (result.iterations >= options.max_iterations) {
      result.collides = true;
      result.toi = heap.front().t[0];
      result.weights = WeightsAtCentre(kKind, heap.front());
      result.status = CcdStatus::kMaxIterationsReached;
      return result;
    }
    std::pop_heap(heap.begin(), heap.end(), later);
    const Box box = heap.back();
    heap.pop_back();
    ++result.iterations;

    double f[8][3];
    BoxDirections directions;
    evaluator.Evaluate(box, f, &directions);
    corner_tester.PrepareDirections(&directions);
    const RangeTest test = corner_tester.Test(f, directions);
    if (test.excluded) continue;

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
    if (test.narrow || test.inside) {
      result.collides = true;
      result.toi = box.t[0];
      result.weights = WeightsAtCentre(kKind, box);
      return result;
    }
    double witness_u = 0.0;
    double witness_v = 0.0;
    if (FindWitnessAtStart(box, f, corner_tester, directions, resolution, &witness_u, &witness_v)) {
      result.collides = true;
      result.toi = box.t[0];
      result.weights = Weights(kKind, witness_u, witness_v);
      return result;
    }

    // Split, choosing the dimension by a look-ahead on the children, whose corner values are
    // (up to rounding) averages of the parent's since F is linear along each dimension:
    //   1. t, if the earlier half [t0, mid] would be discarded: the box's first contact is later;
    //   2. u or v, if a half would be discarded: the inclusion is too coarse in (u, v);
    //   3. t, if the slice t = t0 is excluded: bisect for the entry time with the whole (u, v)
    //      cell, which discards whole cells at once near a flat face of the test polytope;
    //   4. otherwise u or v (the larger change of F), or t once (u, v) is resolved.
    // Splitting by the largest change alone would cut a contact set that appears over a wide
    // (u, v) region (near-parallel approach, degenerate features) into many cells, each
    // bisecting t on its own. Once t is resolved, only (u, v) is split.
    const bool time_resolved = change[0] <= resolution;
    const int wider_uv = change[1] >= change[2] ? 1 : 2;
    const bool uv_resolved = change[wider_uv] <= resolution;
    int first_dim;
    if (time_resolved) {
      first_dim = wider_uv;
    } else if (HalfExcluded(corner_tester, f, directions, 0, 0)) {
      first_dim = 0;
    } else if (!uv_resolved && (HalfExcluded(corner_tester, f, directions, 1, 0) ||
                                HalfExcluded(corner_tester, f, directions, 1, 1))) {
      first_dim = 1;
    } else if (!uv_resolved && (HalfExcluded(corner_tester, f, directions, 2, 0) ||
                                HalfExcluded(corner_tester, f, directions, 2, 1))) {
      first_dim = 2;
    } else if (uv_resolved || StartSliceExcluded(corner_tester, f, directions)) {
      first_dim = 0;
    } else {
      first_dim = wider_uv;
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
        break;
      }
    }
    if (split < 0) {
      // No dimension can be halved in floating point: accept (conservative).
      result.collides = true;
      result.toi = box.t[0];
      result.weights = WeightsAtCentre(kKind, box);
      return result;
    }
    Box children[2] = {box, box};
    (split == 0 ? children[0].t : (split == 1 ? children[0].u : children[0].v))[1] = mid;
    (split == 0 ? children[1].t : (split == 1 ? children[1].u : children[1].v))[0] = mid;
    for (Box& child : children) {
      child.depth = box.depth + 1;
      heap.push_back(child);
      std::push_heap(heap.begin(), heap.end(), later);
    }
  }
  return result;
}

}  // namespace

CcdResult InclusionTimeOfImpact(InclusionPairKind kind, const PairTrajectory& trajectory,
                                const CcdOptions& options) {
  return kind == InclusionPairKind::kVertexFace
             ? Solve<InclusionPairKind::kVertexFace>(trajectory, options)
             : Solve<InclusionPairKind::kEdgeEdge>(trajectory, options);
}

}  // namespace contactsim::core::internal
