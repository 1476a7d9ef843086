#include "core/dynamics/rigid_lcp/spatial_contact_lcp.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

namespace contactsim::core {
namespace {

absl::Status CheckRow(const SpatialLcpRow& row, int num_bodies, const std::string& name) {
  for (const int body : {row.body_a, row.body_b}) {
    if (body < -1 || body >= num_bodies) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": body ", body, " out of range"));
    }
  }
  if (row.body_a >= 0 && row.body_a == row.body_b) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": both sides are body ", row.body_a));
  }
  if (!row.jacobian_a.allFinite() || !row.jacobian_b.allFinite() || !std::isfinite(row.bias)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": non-finite jacobian or bias"));
  }
  return absl::OkStatus();
}

bool SameBodies(const SpatialLcpRow& a, const SpatialLcpRow& b) {
  return a.body_a == b.body_a && a.body_b == b.body_b;
}

bool HasFriction(const SpatialLcpConstraint& c) { return c.friction_coefficient > 0.0; }

}  // namespace

absl::Status CheckSpatialContactProblem(std::span<const SpatialLcpBody> bodies,
                                        std::span<const SpatialLcpConstraint> constraints) {
  const int nb = static_cast<int>(bodies.size());
  for (int b = 0; b < nb; ++b) {
    if (!bodies[b].inverse_mass.allFinite() || !bodies[b].free_velocity.allFinite()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bodies[", b, "]: non-finite mass or velocity"));
    }
  }
  for (size_t i = 0; i < constraints.size(); ++i) {
    const SpatialLcpConstraint& c = constraints[i];
    const std::string name = absl::StrCat("constraints[", i, "]");
    if (absl::Status s = CheckRow(c.primary, nb, name + ".primary"); !s.ok()) return s;
    for (size_t j = 0; j < c.secondaries.size(); ++j) {
      const std::string row = absl::StrCat(name, ".secondaries[", j, "]");
      if (absl::Status s = CheckRow(c.secondaries[j], nb, row); !s.ok()) return s;
      if (!SameBodies(c.primary, c.secondaries[j])) {
        return absl::InvalidArgumentError(row + ": not in the primary's body order");
      }
    }
    if (!std::isfinite(c.friction_coefficient) || c.friction_coefficient < 0.0) {
      return absl::InvalidArgumentError(name + ".friction_coefficient: must be finite and >= 0");
    }
    if (HasFriction(c)) {
      if (c.friction.empty()) {
        return absl::InvalidArgumentError(name + ".friction: no cone edges for mu > 0");
      }
      for (size_t k = 0; k < c.friction.size(); ++k) {
        const std::string row = absl::StrCat(name, ".friction[", k, "]");
        if (absl::Status s = CheckRow(c.friction[k], nb, row); !s.ok()) return s;
        if (!SameBodies(c.primary, c.friction[k])) {
          return absl::InvalidArgumentError(row + ": not on the primary's bodies");
        }
      }
    }
  }
  return absl::OkStatus();
}

int SpatialContactLcpSize(std::span<const SpatialLcpConstraint> constraints) {
  int n = 0;
  for (const SpatialLcpConstraint& c : constraints) {
    n += 1 + static_cast<int>(c.secondaries.size());
    if (HasFriction(c)) n += static_cast<int>(c.friction.size()) + 1;
  }
  return n;
}

absl::StatusOr<SpatialLcpSolution> SolveSpatialContactLcp(
    std::span<const SpatialLcpBody> bodies, std::span<const SpatialLcpConstraint> constraints,
    const LcpSolverChainOptions& options) {
  RETURN_IF_ERROR(CheckSpatialContactProblem(bodies, constraints));
  const int nb = static_cast<int>(bodies.size());
  const int nc = static_cast<int>(constraints.size());
  // Layout of the unknowns.
  std::vector<int> first_slack(nc), first_beta(nc), sliding(nc, -1);
  int ns = 0, nbeta = 0;
  for (int i = 0; i < nc; ++i) {
    const SpatialLcpConstraint& c = constraints[i];
    first_slack[i] = ns;
    ns += static_cast<int>(c.secondaries.size());
    first_beta[i] = nbeta;
    if (HasFriction(c)) nbeta += static_cast<int>(c.friction.size());
  }
  const int slack0 = nc, beta0 = nc + ns, sliding0 = nc + ns + nbeta;
  int n = sliding0;
  for (int i = 0; i < nc; ++i) {
    if (HasFriction(constraints[i])) sliding[i] = n++;
  }

  // Impulse columns (lambda_i and beta_ik) as M^-1 G per body side, and per body the columns
  // that touch it, so that N's velocity rows are formed from the (at most two) shared bodies.
  struct Column {
    int unknown;
    int body[2];
    Vec6 m_inv_g[2];
  };
  std::vector<Column> columns;
  std::vector<std::vector<int>> columns_of_body(nb);
  auto add_column = [&](int unknown, const SpatialLcpRow& g) {
    Column col{unknown, {g.body_a, g.body_b}, {Vec6::Zero(), Vec6::Zero()}};
    if (g.body_a >= 0) col.m_inv_g[0] = bodies[g.body_a].inverse_mass * g.jacobian_a;
    if (g.body_b >= 0) col.m_inv_g[1] = bodies[g.body_b].inverse_mass * g.jacobian_b;
    for (const int b : col.body) {
      if (b >= 0) columns_of_body[b].push_back(static_cast<int>(columns.size()));
    }
    columns.push_back(col);
  };
  for (int i = 0; i < nc; ++i) {
    add_column(i, constraints[i].primary);
    if (HasFriction(constraints[i])) {
      for (size_t k = 0; k < constraints[i].friction.size(); ++k) {
        add_column(beta0 + first_beta[i] + static_cast<int>(k), constraints[i].friction[k]);
      }
    }
  }

  LcpProblem problem;
  problem.m = Eigen::MatrixXd::Zero(n, n);
  problem.q = Eigen::VectorXd::Zero(n);
  // One velocity row: N(row, col) += g_row . M^-1 g_col over the shared bodies; q = g . nu~ + b.
  auto velocity_row = [&](int row, const SpatialLcpRow& g, double sign) {
    const int body[2] = {g.body_a, g.body_b};
    const Vec6* jac[2] = {&g.jacobian_a, &g.jacobian_b};
    for (int side = 0; side < 2; ++side) {
      const int b = body[side];
      if (b < 0) continue;
      problem.q(row) += sign * jac[side]->dot(bodies[b].free_velocity);
      for (const int ci : columns_of_body[b]) {
        const Column& col = columns[ci];
        const int col_side = col.body[0] == b ? 0 : 1;
        problem.m(row, col.unknown) += sign * jac[side]->dot(col.m_inv_g[col_side]);
      }
    }
    problem.q(row) += sign * g.bias;
  };
  for (int i = 0; i < nc; ++i) {
    const SpatialLcpConstraint& c = constraints[i];
    velocity_row(i, c.primary, 1.0);
    for (size_t j = 0; j < c.secondaries.size(); ++j) {
      const int row = slack0 + first_slack[i] + static_cast<int>(j);
      velocity_row(row, c.primary, 1.0);
      velocity_row(row, c.secondaries[j], -1.0);
      problem.m(i, row) = 1.0;  // E_iota,c: the force row sees every slack of its constraint
      for (int l = slack0 + first_slack[i]; l <= row; ++l) problem.m(row, l) = 1.0;  // E_c
    }
    if (HasFriction(c)) {
      for (size_t k = 0; k < c.friction.size(); ++k) {
        const int row = beta0 + first_beta[i] + static_cast<int>(k);
        velocity_row(row, c.friction[k], 1.0);
        problem.m(row, sliding[i]) = 1.0;
        problem.m(sliding[i], row) = -1.0;
      }
      problem.m(sliding[i], i) = c.friction_coefficient;
    }
  }

  SpatialLcpSolution out;
  out.lcp_size = n;
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  if (n == 0) {
    out.solver.solved = true;
  } else {
    // Symmetric diagonal scaling D N D, D q (z = D z'): the same complementarity, with the
    // impulse rows of light, small bodies (1 / m and r^2 / I in the hundreds or thousands) and
    // the unit slack and friction entries brought to one scale, which Lemke's pivot and tie
    // tolerances assume.
    Eigen::VectorXd scale = Eigen::VectorXd::Ones(n);
    for (int i = 0; i < n; ++i) {
      if (problem.m(i, i) > 0.0) scale(i) = 1.0 / std::sqrt(problem.m(i, i));
    }
    problem.m = scale.asDiagonal() * problem.m * scale.asDiagonal();
    problem.q = scale.cwiseProduct(problem.q);
    absl::StatusOr<LcpSolverChainResult> result = SolveLcpWithFallback(problem, options);
    if (!result.ok()) return result.status();
    out.solver = *std::move(result);
    if (out.solver.solution.z.size() == n) z = scale.cwiseProduct(out.solver.solution.z);
  }
  out.velocity.resize(nb);
  for (int b = 0; b < nb; ++b) out.velocity[b] = bodies[b].free_velocity;
  for (const Column& col : columns) {
    for (int side = 0; side < 2; ++side) {
      if (col.body[side] >= 0) out.velocity[col.body[side]] += col.m_inv_g[side] * z(col.unknown);
    }
  }
  out.normal_impulse.resize(nc);
  out.friction_impulse.resize(nc);
  out.sliding_speed.assign(nc, 0.0);
  for (int i = 0; i < nc; ++i) {
    out.normal_impulse[i] = z(i);
    if (!HasFriction(constraints[i])) continue;
    const int k_count = static_cast<int>(constraints[i].friction.size());
    out.friction_impulse[i].resize(k_count);
    for (int k = 0; k < k_count; ++k) out.friction_impulse[i][k] = z(beta0 + first_beta[i] + k);
    out.sliding_speed[i] = z(sliding[i]);
  }
  return out;
}

}  // namespace contactsim::core
