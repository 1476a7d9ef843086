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

  void Evaluate(const Box& box, double f[8][3]) const {
    for (int bt = 0; bt < 2; ++bt) {
      const double t = box.t[bt];
      double x[4][3];
      for (int i = 0; i < 4; ++i) {
        for (int k = 0; k < 3; ++k) x[i][k] = x0_[i][k] + t * dx_[i][k];
      }
      for (int k = 0; k < 3; ++k) {
        if constexpr (kKind == InclusionPairKind::kVertexFace) {
          const double w = x[0][k] - x[1][k];
          const double e_ba = x[2][k] - x[1][k];
          const double e_ca = x[3][k] - x[1][k];
          for (int bu = 0; bu < 2; ++bu) {
            const double w_u = w - box.u[bu] * e_ba;
            for (int bv = 0; bv < 2; ++bv) f[bt | bu << 1 | bv << 2][k] = w_u - box.v[bv] * e_ca;
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
  double x0_[4][3];
  double dx_[4][3];
};

// CcdResult::weights for the feature parameters (u, v).
Vec3 Weights(InclusionPairKind kind, double u, double v) {
  if (kind == InclusionPairKind::kEdgeEdge) return Vec3(u, v, 0.0);
  // A box straddling u + v = 1 can have its centre outside the triangle: project back.
  if (u + v > 1.0) {
    const double sum = u + v;
    u /= sum;
    v /= sum;
  }
  return Vec3(std::max(0.0, 1.0 - u - v), u, v);
}

Vec3 WeightsAtCentre(InclusionPairKind kind, const Box& box) {
  return Weights(kind, 0.5 * (box.u[0] + box.u[1]), 0.5 * (box.v[0] + box.v[1]));
}

// Thresholds for one error bound eps_k on the corner values.
struct ExclusionBounds {
  double eps[3];        // bound on |computed corner - exact corner| per coordinate
  double threshold[3];  // d + eps_k, rounded up
};

ExclusionBounds MakeBounds(const double eps_unrounded[3], double d) {
  ExclusionBounds bounds;
  for (int k = 0; k < 3; ++k) {
    bounds.eps[k] = InflateBound(eps_unrounded[k]);
    bounds.threshold[k] = InflateBound(d + bounds.eps[k]);
  }
  return bounds;
}

struct RangeTest {
  bool excluded = false;
  bool narrow = true;   // every coordinate's range within its tolerance
  bool inside = false;  // the whole range within d of the origin
};

// Certified exclusion (see the header) of a box from its corner values f, each within bounds.eps
// of the exact value, plus the acceptance flags.
struct RangeTester {
  ExclusionBounds bounds;
  double tolerance[3];
  double d_squared;
  double d_squared_up;
  bool euclidean_test;

  RangeTest Test(const double f[8][3]) const {
    RangeTest test;
    double gap_squared_sum = 0.0;    // squared distance from 0 to the inflated range, rounded
    double reach_squared_sum = 0.0;  // squared distance from 0 to the range's farthest corner
    for (int k = 0; k < 3; ++k) {
      double lo = f[0][k];
      double hi = f[0][k];
      for (int c = 1; c < 8; ++c) {
        lo = std::min(lo, f[c][k]);
        hi = std::max(hi, f[c][k]);
      }
      if (lo > bounds.threshold[k] || hi < -bounds.threshold[k]) {
        test.excluded = true;
        return test;
      }
      // The exact range of F_k lies in [lo - eps_k, hi + eps_k]; its distance from 0 is at least
      // the computed gap / (1 + u).
      const double gap = std::max({0.0, lo - bounds.eps[k], -hi - bounds.eps[k]});
      gap_squared_sum += gap * gap;
      const double reach = std::max(std::abs(lo), std::abs(hi));
      reach_squared_sum += reach * reach;
      test.narrow = test.narrow && hi - lo <= tolerance[k];
    }
    // The computed sum of squares exceeds the exact one by at most ~6u relative, which the
    // factor 1 - 2^-48 removes: then F stays farther than d from 0 in the Euclidean norm.
    if (euclidean_test && gap_squared_sum * (1.0 - 0x1p-48) > d_squared_up) {
      test.excluded = true;
      return test;
    }
    test.inside = reach_squared_sum <= d_squared;
    return test;
  }
};

// Looks for a witness of a near-contact at the box's start time t0: a valid (u, v) in the box
// with |F(t0, u, v)|^2 <= limit_squared. At fixed t, F is affine in (u, v): over the box's cell,
// F = A + alpha P + beta Q with local coordinates alpha, beta in [0, 1] and A, P, Q from the t0
// corners. Its minimum over the cell is at the unconstrained least-squares point or on one of
// the four sides, so those five candidates are tried (VF candidates with u + v > 1 are skipped).
// This only decides when to stop refining (the result is then a genuine near-contact at toi =
// t0), never what is excluded, so its rounding needs no bound.
template <InclusionPairKind kKind>
bool FindWitnessAtStart(const Box& box, const double f[8][3], double limit_squared, double* u_out,
                        double* v_out) {
  double a[3], p[3], q[3];
  for (int k = 0; k < 3; ++k) {
    a[k] = f[0][k];
    p[k] = f[2][k] - f[0][k];  // corner (u1, v0) - (u0, v0), both at t0
    q[k] = f[4][k] - f[0][k];  // corner (u0, v1) - (u0, v0)
  }
  auto dot = [](const double x[3], const double y[3]) {
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
  };
  const double pp = dot(p, p), pq = dot(p, q), qq = dot(q, q);
  const double ap = dot(a, p), aq = dot(a, q);
  double candidates[5][2];
  int count = 0;
  const double det = pp * qq - pq * pq;
  if (det > 1e-12 * pp * qq) {
    const double alpha = (pq * aq - qq * ap) / det;
    const double beta = (pq * ap - pp * aq) / det;
    if (alpha >= 0.0 && alpha <= 1.0 && beta >= 0.0 && beta <= 1.0) {
      candidates[count][0] = alpha;
      candidates[count++][1] = beta;
    }
  }
  // Sides beta = 0, 1 (minimize over alpha) and alpha = 0, 1 (minimize over beta).
  for (int side = 0; side < 2; ++side) {
    const double alpha = pp > 0.0 ? std::clamp(-(ap + side * pq) / pp, 0.0, 1.0) : 0.0;
    candidates[count][0] = alpha;
    candidates[count++][1] = side;
    const double beta = qq > 0.0 ? std::clamp(-(aq + side * pq) / qq, 0.0, 1.0) : 0.0;
    candidates[count][0] = side;
    candidates[count++][1] = beta;
  }
  for (int i = 0; i < count; ++i) {
    const double alpha = candidates[i][0];
    const double beta = candidates[i][1];
    const double u = box.u[0] + alpha * (box.u[1] - box.u[0]);
    const double v = box.v[0] + beta * (box.v[1] - box.v[0]);
    if (kKind == InclusionPairKind::kVertexFace && u + v > 1.0) continue;
    double norm_squared = 0.0;
    for (int k = 0; k < 3; ++k) {
      const double value = a[k] + alpha * p[k] + beta * q[k];
      norm_squared += value * value;
    }
    if (norm_squared <= limit_squared) {
      *u_out = u;
      *v_out = v;
      return true;
    }
  }
  return false;
}

// True when lo + hi is computed exactly (TwoSum's error term vanishes), so the computed midpoint
// is the exact one and averaged corner values belong to the children actually created.
inline bool ExactMidpoint(double lo, double hi) {
  const double sum = lo + hi;
  const double hi_part = sum - lo;
  return (lo - (sum - hi_part)) + (hi - hi_part) == 0.0;
}

template <InclusionPairKind kKind>
CcdResult Solve(const PairTrajectory& trajectory, const CcdOptions& options) {
  const CornerEvaluator<kKind> evaluator(trajectory);
  const std::array<double, 3> max_abs = MaxAbsCoordinates(trajectory);
  const double d = options.min_separation_m;
  // Corner values: eps_k = gamma_7 18 M_k (header). Children's corners obtained by averaging two
  // parent corners, fl((A' + B') / 2) with |A' - A|, |B' - B| <= eps_k and |A|, |B| <= 18 M_k,
  // are within eps_k + u (18 M_k + eps_k) of the exact (A + B) / 2, since F is linear along each
  // dimension.
  double eps_corner[3];
  double eps_averaged[3];
  for (int k = 0; k < 3; ++k) {
    eps_corner[k] = GammaBound(7) * 18.0 * max_abs[k];
    eps_averaged[k] = InflateBound(eps_corner[k]) + GammaBound(2) * 18.0 * max_abs[k];
  }
  RangeTester corner_tester;
  corner_tester.bounds = MakeBounds(eps_corner, d);
  for (int k = 0; k < 3; ++k) {
    corner_tester.tolerance[k] = std::max(options.tolerance_m, 4.0 * corner_tester.bounds.eps[k]);
  }
  corner_tester.d_squared = d * d;
  corner_tester.d_squared_up = d * d * (1.0 + 0x1p-48);
  // Below 1e-100, d^2 could underflow: the per-coordinate test alone is used then (d = 0 needs
  // nothing more, since any gap excludes).
  corner_tester.euclidean_test = d > 1e-100;
  RangeTester child_tester = corner_tester;
  child_tester.bounds = MakeBounds(eps_averaged, d);

  const double witness_distance =
      d + std::max(
              {corner_tester.tolerance[0], corner_tester.tolerance[1], corner_tester.tolerance[2]});
  const double witness_squared = witness_distance * witness_distance;

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
    evaluator.Evaluate(box, f);
    const RangeTest test = corner_tester.Test(f);
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
    if (FindWitnessAtStart<kKind>(box, f, witness_squared, &witness_u, &witness_v)) {
      result.collides = true;
      result.toi = box.t[0];
      result.weights = Weights(kKind, witness_u, witness_v);
      return result;
    }

    // Split. Look ahead: the children's corner values are averages of the parent's, so each
    // candidate split's children can be tested (with the wider bound eps_averaged) without
    // evaluating positions. Prefer the split that discards the most children; among equals,
    // the one along which F changes most. This keeps a contact set that is extended in (u, v)
    // (degenerate features, parallel edges, d >> tolerance) from being cut into many (u, v)
    // cells that would each have to resolve t separately.
    int best_dim = -1;
    int best_discarded = -1;
    bool best_keep[2] = {true, true};
    Box best_children[2];
    for (int dim = 0; dim < 3; ++dim) {
      const double* range = dim == 0 ? box.t : (dim == 1 ? box.u : box.v);
      const double mid = 0.5 * (range[0] + range[1]);
      if (!(mid > range[0] && mid < range[1])) continue;  // floating-point resolution reached
      Box children[2] = {box, box};
      double* low_range = dim == 0 ? children[0].t : (dim == 1 ? children[0].u : children[0].v);
      double* high_range = dim == 0 ? children[1].t : (dim == 1 ? children[1].u : children[1].v);
      low_range[1] = mid;
      high_range[0] = mid;
      bool keep[2] = {true, true};
      const bool exact_midpoint = ExactMidpoint(range[0], range[1]);
      const int bit = 1 << dim;
      for (int side = 0; side < 2; ++side) {
        if (kKind == InclusionPairKind::kVertexFace &&
            children[side].u[0] + children[side].v[0] > 1.0) {
          keep[side] = false;  // outside the triangle: fl(u0 + v0) > 1 implies u0 + v0 > 1
          continue;
        }
        if (exact_midpoint) {
          double g[8][3];
          for (int c = 0; c < 8; ++c) {
            // The low child keeps the parent's low corners and gets midpoints for its high
            // ones; the high child the reverse.
            const bool moved = side == 0 ? (c & bit) != 0 : (c & bit) == 0;
            for (int k = 0; k < 3; ++k) {
              g[c][k] = moved ? 0.5 * (f[c & ~bit][k] + f[c | bit][k]) : f[c][k];
            }
          }
          keep[side] = !child_tester.Test(g).excluded;
        }
      }
      const int discarded = !keep[0] + !keep[1];
      if (best_dim < 0 || discarded > best_discarded ||
          (discarded == best_discarded && change[dim] > change[best_dim])) {
        best_dim = dim;
        best_discarded = discarded;
        best_keep[0] = keep[0];
        best_keep[1] = keep[1];
        best_children[0] = children[0];
        best_children[1] = children[1];
      }
    }
    if (best_dim < 0) {
      // No dimension can be halved in floating point: accept (conservative).
      result.collides = true;
      result.toi = box.t[0];
      result.weights = WeightsAtCentre(kKind, box);
      return result;
    }
    for (int side = 0; side < 2; ++side) {
      if (!best_keep[side]) continue;
      best_children[side].depth = box.depth + 1;
      heap.push_back(best_children[side]);
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
