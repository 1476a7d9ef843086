#include "core/dynamics/rigid_lcp/spatial_contact_pgs.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

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
  int active_row = -1;    // the slack chain's largest row in the last sweep (-1: the primary)
};

// The two cone edges k, k + 1 (mod n) around f and f's weights on them (>= 0).
void EdgeWeights(const Vec2& f, int n, int* k, double weights[2]) {
  const double sector = 2.0 * M_PI / n;
  double angle = std::atan2(f.y(), f.x());
  if (angle < 0.0) angle += 2.0 * M_PI;
  *k = std::min(static_cast<int>(angle / sector), n - 1);
  Mat2 edges;
  edges << std::cos(*k * sector), std::cos((*k + 1) * sector), std::sin(*k * sector),
      std::sin((*k + 1) * sector);
  const Vec2 w = edges.colPivHouseholderQr().solve(f);
  weights[0] = std::max(w.x(), 0.0);
  weights[1] = std::max(w.y(), 0.0);
}

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

// The constraints of a local exact solve, within max_unknowns LCP unknowns: first those whose
// last sweep moved them by more than the tolerance, largest first; then the other constraints
// among their bodies (a body's other contacts, which the stalled ones trade impulses with), by
// their last change, while they fit.
std::vector<int> ChooseLocalConstraints(std::span<const SweepConstraint> sweep,
                                        std::span<const double> last_change,
                                        std::span<const int> lcp_size, int body_count,
                                        double tolerance, int max_unknowns) {
  std::vector<int> order(sweep.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return last_change[a] > last_change[b]; });
  std::vector<char> chosen(sweep.size(), 0), chosen_body(body_count, 0);
  int size = 0;
  for (const int i : order) {
    if (!(last_change[i] > tolerance)) break;
    if (size + lcp_size[i] > max_unknowns) continue;
    chosen[i] = 1;
    size += lcp_size[i];
    for (const int b : sweep[i].body) {
      if (b >= 0) chosen_body[b] = 1;
    }
  }
  for (const int i : order) {
    const SweepConstraint& s = sweep[i];
    const bool inside =
        (s.body[0] < 0 || chosen_body[s.body[0]]) && (s.body[1] < 0 || chosen_body[s.body[1]]);
    if (chosen[i] || !inside || size + lcp_size[i] > max_unknowns) continue;
    chosen[i] = 1;
    size += lcp_size[i];
  }
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(sweep.size()); ++i) {
    if (chosen[i]) out.push_back(i);
  }
  return out;
}

// Solves the chosen constraints exactly (pivoting) with every other impulse held: their bodies'
// velocities without the chosen impulses are the sub-problem's free velocities. On success the
// chosen impulses and their bodies' velocities are the sub-problem's answer; otherwise nothing
// changes. Adds the pivots of every attempt to *pivots.
absl::StatusOr<bool> SolveLocally(std::span<const SpatialLcpBody> bodies,
                                  std::span<const SpatialLcpConstraint> constraints,
                                  std::span<const int> chosen, const LcpSolverChainOptions& options,
                                  std::vector<SweepConstraint>* sweep, std::vector<Vec6>* nu,
                                  int* pivots) {
  std::vector<int> local(bodies.size(), -1), global;
  for (const int i : chosen) {
    for (const int b : (*sweep)[i].body) {
      if (b >= 0 && local[b] < 0) {
        local[b] = static_cast<int>(global.size());
        global.push_back(b);
      }
    }
  }
  std::vector<Vec6> held(nu->size());
  for (const int b : global) held[b] = (*nu)[b];
  for (const int i : chosen) {
    const SweepConstraint& s = (*sweep)[i];
    Apply(s.primary, s.body, -s.lambda, nu);
    Apply(s.tangent[0], s.body, -s.f.x(), nu);
    Apply(s.tangent[1], s.body, -s.f.y(), nu);
  }
  std::vector<SpatialLcpBody> sub_bodies;
  for (const int b : global) sub_bodies.push_back({bodies[b].inverse_mass, (*nu)[b]});
  auto localize = [&](SpatialLcpRow row) {
    if (row.body_a >= 0) row.body_a = local[row.body_a];
    if (row.body_b >= 0) row.body_b = local[row.body_b];
    return row;
  };
  std::vector<SpatialLcpConstraint> sub;
  for (const int i : chosen) {
    SpatialLcpConstraint c = constraints[i];
    c.primary = localize(c.primary);
    for (SpatialLcpRow& r : c.secondaries) r = localize(r);
    for (SpatialLcpRow& r : c.friction) r = localize(r);
    sub.push_back(std::move(c));
  }
  // The iterate's active set as the pivoting's first guess (one factorization; accepted only when
  // it solves the sub-problem exactly): lambda > 0, the two cone edges carrying f, the sliding
  // speed where f is on the bound, the active secondary's slack.
  SpatialLcpActivity guess;
  for (const int i : chosen) {
    const SweepConstraint& s = (*sweep)[i];
    SpatialLcpActivity::Constraint& g = guess.constraints.emplace_back();
    if (s.lambda > 0.0) g.flags |= SpatialLcpActivity::kNormal;
    if (s.active_row >= 0 && s.active_row < 64) g.slack |= uint64_t{1} << s.active_row;
    if (!s.friction || s.directions > 64 || !(s.f.norm() > 0.0)) continue;  // 64 bits
    int k = 0;
    double weights[2];
    EdgeWeights(s.f, s.directions, &k, weights);
    if (weights[0] > 0.0) g.friction |= uint64_t{1} << k;
    if (weights[1] > 0.0) g.friction |= uint64_t{1} << ((k + 1) % s.directions);
    if (weights[0] + weights[1] >= (1.0 - 1e-9) * s.mu * s.lambda) {
      g.flags |= SpatialLcpActivity::kSliding;
    }
  }
  absl::StatusOr<SpatialLcpSolution> solution =
      SolveSpatialContactLcp(sub_bodies, sub, SpatialLcpJointRows{}, {}, options, &guess);
  if (solution.ok()) {
    for (const LcpSolverAttempt& a : solution->solver.attempts) *pivots += a.pivots;
  }
  if (!solution.ok() || !solution->solver.solved) {
    for (const int b : global) (*nu)[b] = held[b];
    if (!solution.ok()) return solution.status();
    return false;
  }
  for (size_t k = 0; k < chosen.size(); ++k) {
    SweepConstraint& s = (*sweep)[chosen[k]];
    s.lambda = solution->normal_impulse[k];
    if (!s.friction) continue;
    const double sector = 2.0 * M_PI / s.directions;
    s.f.setZero();
    for (int d = 0; d < s.directions; ++d) {
      s.f += solution->friction_impulse[k][d] * Vec2(std::cos(d * sector), std::sin(d * sector));
    }
  }
  for (const int b : global) (*nu)[b] = solution->velocity[local[b]];
  return true;
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
  if (options.local_max_unknowns < 0 || options.local_max_solves < 0 ||
      options.local_stall_sweeps < 1) {
    return absl::InvalidArgumentError(
        "options: local_max_unknowns >= 0, local_max_solves >= 0 and local_stall_sweeps >= 1 are "
        "needed");
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
  std::vector<double> last_change(nc, 0.0);  // per constraint, in the last sweep
  std::vector<int> lcp_size(nc, 0);
  for (int i = 0; i < nc; ++i) lcp_size[i] = SpatialContactLcpSize({&constraints[i], 1});
  int local_solves = 0, local_pivots = 0, local_constraints = 0;
  // No more local solves this run: one found no answer, or no stalled constraint fitted.
  bool local_failed = false, local_unsolved = false;
  std::vector<SpatialContactPgsTraceRow> trace_rows(options.trace ? nc : 0);
  while (sweeps < options.max_sweeps) {
    if (options.should_stop && options.should_stop()) {
      interrupted = true;
      break;
    }
    ++sweeps;
    residual = 0.0;
    for (int i = 0; i < nc; ++i) {
      SweepConstraint& s = sweep[i];
      double constraint_change = 0.0;
      for (int pass = 0; pass < options.block_iterations; ++pass) {
        // Normal: the active row of the slack chain.
        double w = Velocity(s.primary, s.body, nu);
        const SweepRow* active = &s.primary;
        int active_row = -1;
        for (size_t j = 0; j < s.secondaries.size(); ++j) {
          const double ws = Velocity(s.secondaries[j], s.body, nu);
          if (ws > w) {
            w = ws;
            active = &s.secondaries[j];
            active_row = static_cast<int>(j);
          }
        }
        s.active_row = active_row;
        const double raw_derivative = Cross(*active, s.primary);
        const double derivative =
            std::max(raw_derivative, options.min_relative_derivative * s.primary_mass);
        const double normal_change = std::abs(std::min(s.lambda * derivative, w));
        double change = normal_change, friction_change = 0.0;
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
          friction_change = (s.tangent_mass * df).lpNorm<Eigen::Infinity>() / relaxation;
          change = std::max(change, friction_change);
          Apply(s.tangent[0], s.body, df.x(), &nu);
          Apply(s.tangent[1], s.body, df.y(), &nu);
          s.f = f;
        }
        constraint_change = std::max(constraint_change, change);
        if (options.trace) {
          const double bound = s.mu * s.lambda;
          trace_rows[i] = {normal_change, friction_change,
                           active_row,    raw_derivative / s.primary_mass,
                           s.lambda,      bound > 0.0 ? s.f.norm() / bound : 0.0};
        }
        if (change <= quiet) break;
      }
      last_change[i] = constraint_change;
      residual = std::max(residual, constraint_change);
    }
    const bool converged =
        std::isfinite(residual) && residual <= options.residual_tolerance_m_per_s;
    bool stop = converged || !std::isfinite(residual);
    std::vector<int> chosen;
    if (!stop) {
      if (residual < 0.99 * best) {
        best = residual;
        best_sweep = sweeps;
      } else if (options.local_max_unknowns > 0 && local_solves < options.local_max_solves &&
                 !local_failed && sweeps - best_sweep >= options.local_stall_sweeps) {
        chosen =
            ChooseLocalConstraints(sweep, last_change, lcp_size, nb,
                                   options.residual_tolerance_m_per_s, options.local_max_unknowns);
        if (chosen.empty()) local_failed = true;  // no stalled constraint fits the size
      } else if (sweeps - best_sweep >= options.stall_sweeps) {
        if (relaxation == 1.0 && options.stall_relaxation < 1.0) {
          relaxation = options.stall_relaxation;
          relaxed_at = sweeps;
          best = residual;
          best_sweep = sweeps;
        } else {
          stalled = true;
          stop = true;
        }
      }
    }
    if (options.trace) {
      SpatialContactPgsSweep traced;
      traced.sweep = sweeps;
      traced.residual = residual;
      traced.tolerance = options.residual_tolerance_m_per_s;
      traced.outcome = converged ? 1 : (stop || sweeps == options.max_sweeps) ? -1 : 0;
      traced.local_constraints = static_cast<int>(chosen.size());
      traced.rows = trace_rows;
      options.trace(traced);
    }
    if (stop) break;
    if (!chosen.empty()) {
      ASSIGN_OR_RETURN(const bool solved,
                       SolveLocally(bodies, constraints, chosen, options.local_solver, &sweep, &nu,
                                    &local_pivots));
      if (solved) {
        ++local_solves;
        local_constraints += static_cast<int>(chosen.size());
        // The sweeps start over from the block's exact answer: its neighbours move next.
        best = std::numeric_limits<double>::infinity();
        best_sweep = sweeps;
      } else {
        local_failed = local_unsolved = true;
      }
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
  if (local_solves > 0 || local_failed) {
    absl::StrAppend(&attempt.message, attempt.message.empty() ? "" : "; ", local_solves,
                    " local exact solves on ", local_constraints, " constraints (", local_pivots,
                    " pivots)", local_unsolved ? "; a local solve found no answer" : "");
  }
  if (relaxed_at > 0) {
    absl::StrAppend(&attempt.message, attempt.message.empty() ? "" : "; ", "under-relaxed by ",
                    options.stall_relaxation, " after a stall at sweep ", relaxed_at);
  }
  chain.solution.status = attempt.status;
  chain.solution.iterations = sweeps;
  chain.solution.pivots = local_pivots;
  attempt.pivots = local_pivots;
  chain.solution.residual = residual;
  chain.solution.message = attempt.message;
  chain.attempts.push_back(attempt);

  out.local_solves = local_solves;
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
      int k = 0;
      double weights[2];
      EdgeWeights(s.f, s.directions, &k, weights);
      beta[k] = weights[0];
      beta[(k + 1) % s.directions] = weights[1];
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
