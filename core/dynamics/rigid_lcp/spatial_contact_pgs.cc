#include "core/dynamics/rigid_lcp/spatial_contact_pgs.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

namespace contactsim::core {
namespace {

using Vec2 = Eigen::Vector2d;
using Mat2 = Eigen::Matrix2d;

// A row with M^-1 G per side, ready for the sweep.
struct SweepRow {
  Vec6 jacobian[2] = {Vec6::Zero(), Vec6::Zero()};
  Vec6 m_inv_g[2] = {Vec6::Zero(), Vec6::Zero()};
  double bias = 0.0;
};

struct SweepConstraint {
  int body[2] = {-1, -1};
  SweepRow primary;
  std::vector<SweepRow> secondaries;  // jacobians and biases only
  double primary_mass = 0.0;          // G_p^T M^-1 G_p
  bool friction = false;
  double mu = 0.0;
  int directions = 0;
  SweepRow tangent[2];  // t1, t2 at the primary's point
  Mat2 tangent_mass_inverse = Mat2::Zero();
  Mat2 tangent_mass = Mat2::Zero();
  double lambda = 0.0;
  Vec2 f = Vec2::Zero();  // along t1, t2
};

SweepRow MakeRow(const SpatialLcpRow& row, std::span<const SpatialLcpBody> bodies) {
  SweepRow out;
  out.bias = row.bias;
  const int body[2] = {row.body_a, row.body_b};
  const Vec6* jac[2] = {&row.jacobian_a, &row.jacobian_b};
  for (int side = 0; side < 2; ++side) {
    if (body[side] < 0) continue;
    out.jacobian[side] = *jac[side];
    out.m_inv_g[side] = bodies[body[side]].inverse_mass * *jac[side];
  }
  return out;
}

double Velocity(const SweepRow& row, const int body[2], const std::vector<Vec6>& nu) {
  double v = row.bias;
  for (int side = 0; side < 2; ++side) {
    if (body[side] >= 0) v += row.jacobian[side].dot(nu[body[side]]);
  }
  return v;
}

double Cross(const SweepRow& row, const SweepRow& column) {  // row^T M^-1 column
  return row.jacobian[0].dot(column.m_inv_g[0]) + row.jacobian[1].dot(column.m_inv_g[1]);
}

void Apply(const SweepRow& row, const int body[2], double impulse, std::vector<Vec6>* nu) {
  for (int side = 0; side < 2; ++side) {
    if (body[side] >= 0) (*nu)[body[side]] += impulse * row.m_inv_g[side];
  }
}

// The point of the polygon conv{r d_k} (d_k at angles 2 pi k / n) nearest to u in the metric
// of the symmetric positive definite W (W = I: the Euclidean projection). Nearest in W makes the
// friction update an exact minimization of the block's energy, whose fixed points are exactly
// the maximal-dissipation conditions (-v in the normal cone at f): with the Euclidean projection
// two contacts of one body can trade friction back and forth for ever.
Vec2 NearestInConePolygon(const Vec2& u, double r, int n, const Mat2& w) {
  if (r <= 0.0) return Vec2::Zero();
  const double sector = 2.0 * M_PI / n;
  auto corner = [&](int k) { return Vec2(r * std::cos(k * sector), r * std::sin(k * sector)); };
  bool inside = true;
  for (int k = 0; k < n && inside; ++k) {
    const Vec2 a = corner(k), edge = corner(k + 1) - a;
    inside = (u - a).dot(Vec2(edge.y(), -edge.x())) <= 0.0;  // counter-clockwise polygon
  }
  if (inside) return u;
  Vec2 best = corner(0);
  double best_distance = (best - u).dot(w * (best - u));
  for (int k = 0; k < n; ++k) {
    const Vec2 a = corner(k), edge = corner(k + 1) - a;
    const double t = std::clamp((u - a).dot(w * edge) / edge.dot(w * edge), 0.0, 1.0);
    const Vec2 p = a + t * edge;
    const double distance = (p - u).dot(w * (p - u));
    if (distance < best_distance) {
      best_distance = distance;
      best = p;
    }
  }
  return best;
}

// The unit direction of a friction row (+d on body_b, -d on body_a).
Vec3 RowDirection(const SpatialLcpRow& row) {
  return row.body_b >= 0 ? Vec3(row.jacobian_b.head<3>()) : Vec3(-row.jacobian_a.head<3>());
}

}  // namespace

absl::StatusOr<SpatialLcpSolution> SolveSpatialContactPgs(
    std::span<const SpatialLcpBody> bodies, std::span<const SpatialLcpConstraint> constraints,
    const SpatialContactPgsOptions& options, const SpatialContactWarmStart* warm_start) {
  RETURN_IF_ERROR(CheckSpatialContactProblem(bodies, constraints));
  if (options.max_sweeps < 1 || options.stall_sweeps < 1 ||
      !(options.residual_tolerance_m_per_s > 0.0) ||
      !(options.min_relative_derivative > 0.0 && options.min_relative_derivative <= 1.0) ||
      options.block_iterations < 1 ||
      !(options.stall_relaxation > 0.0 && options.stall_relaxation <= 1.0)) {
    return absl::InvalidArgumentError(
        "options: max_sweeps >= 1, stall_sweeps >= 1, residual_tolerance_m_per_s > 0, "
        "min_relative_derivative in (0, 1], block_iterations >= 1 and stall_relaxation in (0, 1] "
        "are needed");
  }
  const int nb = static_cast<int>(bodies.size());
  const int nc = static_cast<int>(constraints.size());
  if (warm_start != nullptr && (static_cast<int>(warm_start->normal_impulse.size()) != nc ||
                                static_cast<int>(warm_start->friction_impulse.size()) != nc)) {
    return absl::InvalidArgumentError(
        absl::StrCat("warm_start: needs one entry per constraint (", nc, ")"));
  }

  std::vector<Vec6> nu(nb);
  for (int b = 0; b < nb; ++b) nu[b] = bodies[b].free_velocity;
  std::vector<SweepConstraint> sweep(nc);
  for (int i = 0; i < nc; ++i) {
    const SpatialLcpConstraint& c = constraints[i];
    SweepConstraint& s = sweep[i];
    s.body[0] = c.primary.body_a;
    s.body[1] = c.primary.body_b;
    s.primary = MakeRow(c.primary, bodies);
    s.primary_mass = Cross(s.primary, s.primary);
    if (!(s.primary_mass > 0.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("constraints[", i, "].primary: moves no body (G^T M^-1 G = 0)"));
    }
    for (const SpatialLcpRow& row : c.secondaries) s.secondaries.push_back(MakeRow(row, bodies));
    s.friction = c.friction_coefficient > 0.0;
    if (s.friction) {
      const int n = static_cast<int>(c.friction.size());
      if (n < 3) {
        return absl::InvalidArgumentError(
            absl::StrCat("constraints[", i, "].friction: needs >= 3 cone edges"));
      }
      s.mu = c.friction_coefficient;
      s.directions = n;
      // Rows are linear in the direction (same point), so t2's row follows from the first two.
      const double alpha = 2.0 * M_PI / n;
      SpatialLcpRow t2 = c.friction[1];
      t2.jacobian_a =
          (c.friction[1].jacobian_a - std::cos(alpha) * c.friction[0].jacobian_a) / std::sin(alpha);
      t2.jacobian_b =
          (c.friction[1].jacobian_b - std::cos(alpha) * c.friction[0].jacobian_b) / std::sin(alpha);
      t2.bias = (c.friction[1].bias - std::cos(alpha) * c.friction[0].bias) / std::sin(alpha);
      s.tangent[0] = MakeRow(c.friction[0], bodies);
      s.tangent[1] = MakeRow(t2, bodies);
      for (int r = 0; r < 2; ++r) {
        for (int k = 0; k < 2; ++k) s.tangent_mass(r, k) = Cross(s.tangent[r], s.tangent[k]);
      }
      s.tangent_mass_inverse = s.tangent_mass.inverse();
      if (!s.tangent_mass_inverse.allFinite()) {
        return absl::InvalidArgumentError(
            absl::StrCat("constraints[", i, "].friction: singular tangent block"));
      }
      if (warm_start != nullptr) {
        const Vec3 t1 = RowDirection(c.friction[0]);
        const Vec3 d1 = RowDirection(c.friction[1]);
        const Vec3 t2_direction = (d1 - std::cos(alpha) * t1) / std::sin(alpha);
        const Vec3& f = warm_start->friction_impulse[i];
        s.f = NearestInConePolygon(Vec2(f.dot(t1), f.dot(t2_direction)),
                                   s.mu * std::max(warm_start->normal_impulse[i], 0.0), n,
                                   Mat2::Identity());
      }
    }
    if (warm_start != nullptr) s.lambda = std::max(warm_start->normal_impulse[i], 0.0);
    if (!std::isfinite(s.lambda) || !s.f.allFinite()) {
      return absl::InvalidArgumentError(absl::StrCat("warm_start[", i, "]: not finite"));
    }
    Apply(s.primary, s.body, s.lambda, &nu);
    Apply(s.tangent[0], s.body, s.f.x(), &nu);
    Apply(s.tangent[1], s.body, s.f.y(), &nu);
  }

  SpatialLcpSolution out;
  out.lcp_size = SpatialContactLcpSize(constraints);
  LcpSolverChainResult& chain = out.solver;
  chain.path = LcpSolverPath::kProjectedGaussSeidel;
  LcpSolverAttempt attempt;
  attempt.path = LcpSolverPath::kProjectedGaussSeidel;
  double residual = 0.0;
  double best = std::numeric_limits<double>::infinity();
  int sweeps = 0, best_sweep = 0;
  bool stalled = false, interrupted = false;
  // 1 until a stall (then options.stall_relaxation, once).
  double relaxation = 1.0;
  int relaxed_at = 0;  // the sweep of the stall that turned the relaxation on (0: none)
  const double quiet = 0.25 * options.residual_tolerance_m_per_s;
  while (sweeps < options.max_sweeps) {
    if (options.should_stop && options.should_stop()) {
      interrupted = true;
      break;
    }
    ++sweeps;
    residual = 0.0;
    for (SweepConstraint& s : sweep) {
      for (int pass = 0; pass < options.block_iterations; ++pass) {
        // Normal: the active row of the slack chain.
        double w = Velocity(s.primary, s.body, nu);
        const SweepRow* active = &s.primary;
        for (const SweepRow& row : s.secondaries) {
          const double ws = Velocity(row, s.body, nu);
          if (ws > w) {
            w = ws;
            active = &row;
          }
        }
        const double derivative =
            std::max(Cross(*active, s.primary), options.min_relative_derivative * s.primary_mass);
        double change = std::abs(std::min(s.lambda * derivative, w));
        const double lambda = std::max(0.0, s.lambda - relaxation * w / derivative);
        Apply(s.primary, s.body, lambda - s.lambda, &nu);
        s.lambda = lambda;
        if (s.friction) {
          const Vec2 v(Velocity(s.tangent[0], s.body, nu), Velocity(s.tangent[1], s.body, nu));
          const Vec2 f = NearestInConePolygon(s.f - relaxation * (s.tangent_mass_inverse * v),
                                              s.mu * s.lambda, s.directions, s.tangent_mass);
          const Vec2 df = f - s.f;
          // A relaxed step is at least relaxation times the full one (the distance to a convex
          // set's projection grows at most linearly along the step), so this bounds the full
          // step's residual.
          change = std::max(change, (s.tangent_mass * df).lpNorm<Eigen::Infinity>() / relaxation);
          Apply(s.tangent[0], s.body, df.x(), &nu);
          Apply(s.tangent[1], s.body, df.y(), &nu);
          s.f = f;
        }
        residual = std::max(residual, change);
        if (change <= quiet) break;
      }
    }
    if (!std::isfinite(residual)) break;
    if (residual <= options.residual_tolerance_m_per_s) break;
    if (residual < 0.99 * best) {
      best = residual;
      best_sweep = sweeps;
    } else if (sweeps - best_sweep >= options.stall_sweeps) {
      if (relaxation == 1.0 && options.stall_relaxation < 1.0) {
        relaxation = options.stall_relaxation;
        relaxed_at = sweeps;
        best = residual;
        best_sweep = sweeps;
        continue;
      }
      stalled = true;
      break;
    }
  }
  chain.solved =
      !interrupted && std::isfinite(residual) && residual <= options.residual_tolerance_m_per_s;
  attempt.status = chain.solved              ? LcpSolveStatus::kSolved
                   : interrupted             ? LcpSolveStatus::kInterrupted
                   : std::isfinite(residual) ? LcpSolveStatus::kIterationLimit
                                             : LcpSolveStatus::kNumericalFailure;
  attempt.residual = residual;
  attempt.iterations = sweeps;
  if (!chain.solved) {
    attempt.message = absl::StrCat("velocity residual ", residual, " m/s after ", sweeps, " sweeps",
                                   stalled ? " (stalled)" : "", "; tolerance ",
                                   options.residual_tolerance_m_per_s, " m/s");
  }
  if (relaxed_at > 0) {
    absl::StrAppend(&attempt.message, attempt.message.empty() ? "" : "; ", "under-relaxed by ",
                    options.stall_relaxation, " after a stall at sweep ", relaxed_at);
  }
  chain.solution.status = attempt.status;
  chain.solution.iterations = sweeps;
  chain.solution.residual = residual;
  chain.solution.message = attempt.message;
  chain.attempts.push_back(attempt);

  out.velocity = std::move(nu);
  out.normal_impulse.resize(nc);
  out.friction_impulse.assign(nc, {});
  out.sliding_speed.assign(nc, 0.0);
  for (int i = 0; i < nc; ++i) {
    const SweepConstraint& s = sweep[i];
    out.normal_impulse[i] = s.lambda;
    if (!s.friction) continue;
    // f as beta on the two cone edges around it; s = max_k (-d_k . v_t), the sliding speed.
    std::vector<double>& beta = out.friction_impulse[i];
    beta.assign(s.directions, 0.0);
    const double sector = 2.0 * M_PI / s.directions;
    if (s.f.norm() > 0.0) {
      double angle = std::atan2(s.f.y(), s.f.x());
      if (angle < 0.0) angle += 2.0 * M_PI;
      const int k = std::min(static_cast<int>(angle / sector), s.directions - 1);
      const int k1 = (k + 1) % s.directions;
      Mat2 edges;
      edges << std::cos(k * sector), std::cos((k + 1) * sector), std::sin(k * sector),
          std::sin((k + 1) * sector);
      const Vec2 weights = edges.colPivHouseholderQr().solve(s.f);
      beta[k] = std::max(weights.x(), 0.0);
      beta[k1] = std::max(weights.y(), 0.0);
    }
    const Vec2 v(Velocity(s.tangent[0], s.body, out.velocity),
                 Velocity(s.tangent[1], s.body, out.velocity));
    double sliding = 0.0;
    for (int k = 0; k < s.directions; ++k) {
      sliding = std::max(sliding, -(std::cos(k * sector) * v.x() + std::sin(k * sector) * v.y()));
    }
    out.sliding_speed[i] = sliding;
  }
  return out;
}

}  // namespace contactsim::core
