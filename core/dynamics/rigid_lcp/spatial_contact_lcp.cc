#include "core/dynamics/rigid_lcp/spatial_contact_lcp.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

namespace contactsim::core {
namespace {

// `name()` names the row in an error; it is called only on one (a step checks hundreds of rows,
// and building every row's name was two thirds of the checks' cost: bench/arm_hold_physics_bench).
template <typename Name>
absl::Status CheckRow(const SpatialLcpRow& row, int num_bodies, const Name& name) {
  for (const int body : {row.body_a, row.body_b, row.body_c}) {
    if (body < -1 || body >= num_bodies) {
      return absl::InvalidArgumentError(absl::StrCat(name(), ": body ", body, " out of range"));
    }
  }
  if ((row.body_a >= 0 && (row.body_a == row.body_b || row.body_a == row.body_c)) ||
      (row.body_b >= 0 && row.body_b == row.body_c)) {
    return absl::InvalidArgumentError(absl::StrCat(name(), ": both sides are body ", row.body_a));
  }
  if (!row.jacobian_a.allFinite() || !row.jacobian_b.allFinite() || !row.jacobian_c.allFinite() ||
      !std::isfinite(row.bias)) {
    return absl::InvalidArgumentError(absl::StrCat(name(), ": non-finite jacobian or bias"));
  }
  return absl::OkStatus();
}

bool SameBodies(const SpatialLcpRow& a, const SpatialLcpRow& b) {
  return a.body_a == b.body_a && a.body_b == b.body_b && a.body_c == b.body_c;
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
    auto name = [i] { return absl::StrCat("constraints[", i, "]"); };
    auto primary = [&name] { return name() + ".primary"; };
    if (absl::Status s = CheckRow(c.primary, nb, primary); !s.ok()) return s;
    for (size_t j = 0; j < c.secondaries.size(); ++j) {
      auto row = [&name, j] { return absl::StrCat(name(), ".secondaries[", j, "]"); };
      if (absl::Status s = CheckRow(c.secondaries[j], nb, row); !s.ok()) return s;
      if (!SameBodies(c.primary, c.secondaries[j])) {
        return absl::InvalidArgumentError(row() + ": not in the primary's body order");
      }
    }
    if (!std::isfinite(c.friction_coefficient) || c.friction_coefficient < 0.0) {
      return absl::InvalidArgumentError(name() + ".friction_coefficient: must be finite and >= 0");
    }
    if (HasFriction(c)) {
      if (c.friction.empty()) {
        return absl::InvalidArgumentError(name() + ".friction: no cone edges for mu > 0");
      }
      for (size_t k = 0; k < c.friction.size(); ++k) {
        auto row = [&name, k] { return absl::StrCat(name(), ".friction[", k, "]"); };
        if (absl::Status s = CheckRow(c.friction[k], nb, row); !s.ok()) return s;
        if (!SameBodies(c.primary, c.friction[k])) {
          return absl::InvalidArgumentError(row() + ": not on the primary's bodies");
        }
      }
    }
  }
  return absl::OkStatus();
}

int SpatialTorsionLcpSize(std::span<const SpatialLcpTorsionPatch> torsion) {
  return 3 * static_cast<int>(torsion.size());
}

int SpatialJointLcpSize(const SpatialLcpJointRows& joints) {
  return static_cast<int>(joints.bilateral.size() + joints.unilateral.size() +
                          3 * joints.bounded.size());
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
  return SolveSpatialContactLcp(bodies, constraints, SpatialLcpJointRows{}, options);
}

absl::StatusOr<SpatialLcpSolution> SolveSpatialContactLcp(
    std::span<const SpatialLcpBody> bodies, std::span<const SpatialLcpConstraint> constraints,
    const SpatialLcpJointRows& joints, const LcpSolverChainOptions& options) {
  return SolveSpatialContactLcp(bodies, constraints, joints, {}, options);
}

absl::StatusOr<SpatialLcpSolution> SolveSpatialContactLcp(
    std::span<const SpatialLcpBody> bodies, std::span<const SpatialLcpConstraint> constraints,
    const SpatialLcpJointRows& joints, std::span<const SpatialLcpTorsionPatch> torsion,
    const LcpSolverChainOptions& options, const SpatialLcpActivity* guess,
    const SpatialLcpEnergyBound* energy) {
  RETURN_IF_ERROR(CheckSpatialContactProblem(bodies, constraints));
  if (energy != nullptr) {
    if (energy->primary_speed.size() != constraints.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("energy.primary_speed: ", energy->primary_speed.size(), " entries for ",
                       constraints.size(), " constraints"));
    }
    for (size_t i = 0; i < constraints.size(); ++i) {
      if (!(std::isfinite(energy->primary_speed[i]) && energy->primary_speed[i] >= 0.0)) {
        return absl::InvalidArgumentError(
            absl::StrCat("energy.primary_speed[", i, "]: must be finite and >= 0"));
      }
    }
  }
  for (size_t k = 0; k < torsion.size(); ++k) {
    auto name = [k] { return absl::StrCat("torsion[", k, "]"); };
    RETURN_IF_ERROR(CheckRow(torsion[k].spin, static_cast<int>(bodies.size()),
                             [&name] { return name() + ".spin"; }));
    if (!(std::isfinite(torsion[k].torque_per_normal_impulse_m) &&
          torsion[k].torque_per_normal_impulse_m >= 0.0)) {
      return absl::InvalidArgumentError(name() +
                                        ".torque_per_normal_impulse_m: must be finite and >= 0");
    }
    for (const int i : torsion[k].constraints) {
      if (i < 0 || i >= static_cast<int>(constraints.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat(name(), ".constraints: ", i, " is not a constraint"));
      }
    }
  }
  const int nb = static_cast<int>(bodies.size());
  const int nc = static_cast<int>(constraints.size());
  for (size_t k = 0; k < joints.bilateral.size() + joints.bounded.size(); ++k) {
    const bool bilateral = k < joints.bilateral.size();
    const SpatialLcpSoftRow& r =
        bilateral ? joints.bilateral[k] : joints.bounded[k - joints.bilateral.size()];
    auto name = [&joints, bilateral, k] {
      return bilateral ? absl::StrCat("joints.bilateral[", k, "]")
                       : absl::StrCat("joints.bounded[", k - joints.bilateral.size(), "]");
    };
    if (absl::Status s = CheckRow(r.row, nb, name); !s.ok()) return s;
    if (!(std::isfinite(r.compliance) && r.compliance >= 0.0) ||
        !(std::isfinite(r.bound) && r.bound >= 0.0)) {
      return absl::InvalidArgumentError(name() + ": compliance and bound must be finite and >= 0");
    }
  }
  for (size_t k = 0; k < joints.unilateral.size(); ++k) {
    auto name = [k] { return absl::StrCat("joints.unilateral[", k, "]"); };
    if (absl::Status s = CheckRow(joints.unilateral[k], nb, name); !s.ok()) return s;
  }
  // Layout of the unknowns: the joints' free impulses first (the mixed LCP's free block), then
  // the contacts' (as without joints), then the joints' limit and bounded impulses.
  const int base = static_cast<int>(joints.bilateral.size());
  std::vector<int> first_slack(nc), first_beta(nc), sliding(nc, -1);
  int ns = 0, nbeta = 0;
  for (int i = 0; i < nc; ++i) {
    const SpatialLcpConstraint& c = constraints[i];
    first_slack[i] = ns;
    ns += static_cast<int>(c.secondaries.size());
    first_beta[i] = nbeta;
    if (HasFriction(c)) nbeta += static_cast<int>(c.friction.size());
  }
  const int slack0 = base + nc, beta0 = base + nc + ns, sliding0 = base + nc + ns + nbeta;
  int n = sliding0;
  for (int i = 0; i < nc; ++i) {
    if (HasFriction(constraints[i])) sliding[i] = n++;
  }
  const int unilateral0 = n;
  n += static_cast<int>(joints.unilateral.size());
  const int nbd = static_cast<int>(joints.bounded.size());
  const int plus0 = n, minus0 = n + nbd, bound_slack0 = n + 2 * nbd;
  n += 3 * nbd;
  const int nt = static_cast<int>(torsion.size());
  const int spin_plus0 = n, spin_minus0 = n + nt, spin_slack0 = n + 2 * nt;
  n += 3 * nt;

  // The activity <-> unknowns map: visit(unknown, word, mask) for each flag of the layout, the
  // flag being bit `mask` of *word, in an activity sized to this problem.
  auto walk_activity = [&](SpatialLcpActivity* a, auto&& visit) {
    a->constraints.resize(nc);
    for (int i = 0; i < nc; ++i) {
      SpatialLcpActivity::Constraint& f = a->constraints[i];
      visit(base + i, &f.flags, SpatialLcpActivity::kNormal);
      const int ns_i = static_cast<int>(constraints[i].secondaries.size());
      for (int j = 0; j < ns_i && j < 64; ++j) {
        visit(slack0 + first_slack[i] + j, &f.slack, uint64_t{1} << j);
      }
      if (!HasFriction(constraints[i])) continue;
      const int nk = static_cast<int>(constraints[i].friction.size());
      for (int k = 0; k < nk && k < 64; ++k) {
        visit(beta0 + first_beta[i] + k, &f.friction, uint64_t{1} << k);
      }
      visit(sliding[i], &f.flags, SpatialLcpActivity::kSliding);
    }
    a->unilateral.resize(joints.unilateral.size());
    for (size_t k = 0; k < joints.unilateral.size(); ++k) {
      visit(unilateral0 + static_cast<int>(k), &a->unilateral[k], uint8_t{1});
    }
    auto pairs = [&](std::vector<uint8_t>* bits, int count, int plus, int minus, int slack) {
      bits->resize(count);
      for (int k = 0; k < count; ++k) {
        visit(plus + k, &(*bits)[k], SpatialLcpActivity::kPlus);
        visit(minus + k, &(*bits)[k], SpatialLcpActivity::kMinus);
        visit(slack + k, &(*bits)[k], SpatialLcpActivity::kBoundSlack);
      }
    };
    pairs(&a->bounded, nbd, plus0, minus0, bound_slack0);
    pairs(&a->torsion, nt, spin_plus0, spin_minus0, spin_slack0);
  };
  std::vector<uint8_t> active_guess;
  if (guess != nullptr) {
    SpatialLcpActivity sized = *guess;  // resized to this problem: missing entries inactive
    active_guess.assign(n, 0);
    walk_activity(&sized, [&](int unknown, auto* word, auto mask) {
      active_guess[unknown] = (*word & mask) != 0 ? 1 : 0;
    });
  }

  // Impulse columns (lambda_i and beta_ik) as M^-1 G per body side, and per body the columns
  // that touch it, so that N's velocity rows are formed from the (at most two) shared bodies.
  // work_speed: the energy test's bound on the work of a unit impulse (SpatialLcpEnergyBound).
  struct Column {
    int unknown;
    int body[3];
    Vec6 m_inv_g[3];
    double bias;
    double work_speed;
  };
  std::vector<Column> columns;
  std::vector<std::vector<int>> columns_of_body(nb);
  auto add_column = [&](int unknown, const SpatialLcpRow& g, double work_speed) {
    Column col{unknown,
               {g.body_a, g.body_b, g.body_c},
               {Vec6::Zero(), Vec6::Zero(), Vec6::Zero()},
               g.bias,
               work_speed};
    if (g.body_a >= 0) col.m_inv_g[0] = bodies[g.body_a].inverse_mass * g.jacobian_a;
    if (g.body_b >= 0) col.m_inv_g[1] = bodies[g.body_b].inverse_mass * g.jacobian_b;
    if (g.body_c >= 0) col.m_inv_g[2] = bodies[g.body_c].inverse_mass * g.jacobian_c;
    for (const int b : col.body) {
      if (b >= 0) columns_of_body[b].push_back(static_cast<int>(columns.size()));
    }
    columns.push_back(col);
  };
  // One-sided rows (a row >= 0 beside its impulse) do work up to max(0, -b) per unit impulse,
  // two-sided ones (equalities, bounded pairs) up to |b|.
  auto one_sided = [](const SpatialLcpRow& g) { return std::max(0.0, -g.bias); };
  auto two_sided = [](const SpatialLcpRow& g) { return std::abs(g.bias); };
  for (int i = 0; i < nc; ++i) {
    add_column(base + i, constraints[i].primary,
               energy != nullptr ? energy->primary_speed[i] : one_sided(constraints[i].primary));
    if (HasFriction(constraints[i])) {
      for (size_t k = 0; k < constraints[i].friction.size(); ++k) {
        add_column(beta0 + first_beta[i] + static_cast<int>(k), constraints[i].friction[k],
                   one_sided(constraints[i].friction[k]));
      }
    }
  }

  auto negated = [](SpatialLcpRow g) {
    g.jacobian_a = -g.jacobian_a;
    g.jacobian_b = -g.jacobian_b;
    g.jacobian_c = -g.jacobian_c;
    g.bias = -g.bias;
    return g;
  };
  for (int k = 0; k < base; ++k) {
    add_column(k, joints.bilateral[k].row, two_sided(joints.bilateral[k].row));
  }
  for (size_t k = 0; k < joints.unilateral.size(); ++k) {
    add_column(unilateral0 + static_cast<int>(k), joints.unilateral[k],
               one_sided(joints.unilateral[k]));
  }
  for (int k = 0; k < nbd; ++k) {
    add_column(plus0 + k, joints.bounded[k].row, two_sided(joints.bounded[k].row));
    add_column(minus0 + k, negated(joints.bounded[k].row), two_sided(joints.bounded[k].row));
  }
  for (int k = 0; k < nt; ++k) {
    add_column(spin_plus0 + k, torsion[k].spin, two_sided(torsion[k].spin));
    add_column(spin_minus0 + k, negated(torsion[k].spin), two_sided(torsion[k].spin));
  }

  LcpProblem problem;
  problem.m = Eigen::MatrixXd::Zero(n, n);
  problem.q = Eigen::VectorXd::Zero(n);
  problem.num_free = base;
  // One velocity row: N(row, col) += g_row . M^-1 g_col over the shared bodies; q = g . nu~ + b.
  auto velocity_row = [&](int row, const SpatialLcpRow& g, double sign) {
    const int body[3] = {g.body_a, g.body_b, g.body_c};
    const Vec6* jac[3] = {&g.jacobian_a, &g.jacobian_b, &g.jacobian_c};
    for (int side = 0; side < 3; ++side) {
      const int b = body[side];
      if (b < 0) continue;
      problem.q(row) += sign * jac[side]->dot(bodies[b].free_velocity);
      for (const int ci : columns_of_body[b]) {
        const Column& col = columns[ci];
        const int col_side = col.body[0] == b ? 0 : (col.body[1] == b ? 1 : 2);
        problem.m(row, col.unknown) += sign * jac[side]->dot(col.m_inv_g[col_side]);
      }
    }
    problem.q(row) += sign * g.bias;
  };
  for (int i = 0; i < nc; ++i) {
    const SpatialLcpConstraint& c = constraints[i];
    velocity_row(base + i, c.primary, 1.0);
    for (size_t j = 0; j < c.secondaries.size(); ++j) {
      const int row = slack0 + first_slack[i] + static_cast<int>(j);
      velocity_row(row, c.primary, 1.0);
      velocity_row(row, c.secondaries[j], -1.0);
      problem.m(base + i, row) = 1.0;  // E_iota,c: the force row sees every slack of its constraint
      for (int l = slack0 + first_slack[i]; l <= row; ++l) problem.m(row, l) = 1.0;  // E_c
    }
    if (HasFriction(c)) {
      for (size_t k = 0; k < c.friction.size(); ++k) {
        const int row = beta0 + first_beta[i] + static_cast<int>(k);
        velocity_row(row, c.friction[k], 1.0);
        problem.m(row, sliding[i]) = 1.0;
        problem.m(sliding[i], row) = -1.0;
      }
      problem.m(sliding[i], base + i) = c.friction_coefficient;
    }
  }
  for (int k = 0; k < base; ++k) {
    velocity_row(k, joints.bilateral[k].row, 1.0);
    problem.m(k, k) += joints.bilateral[k].compliance;
  }
  for (size_t k = 0; k < joints.unilateral.size(); ++k) {
    velocity_row(unilateral0 + static_cast<int>(k), joints.unilateral[k], 1.0);
  }
  for (int k = 0; k < nbd; ++k) {
    const SpatialLcpSoftRow& r = joints.bounded[k];
    const int plus = plus0 + k, minus = minus0 + k, slack = bound_slack0 + k;
    velocity_row(plus, r.row, 1.0);
    velocity_row(minus, r.row, -1.0);
    problem.m(plus, plus) += r.compliance;
    problem.m(plus, minus) -= r.compliance;
    problem.m(minus, plus) -= r.compliance;
    problem.m(minus, minus) += r.compliance;
    problem.m(plus, slack) = problem.m(minus, slack) = 1.0;
    problem.m(slack, plus) = problem.m(slack, minus) = -1.0;
    problem.q(slack) = r.bound;
  }
  for (int k = 0; k < nt; ++k) {
    const int plus = spin_plus0 + k, minus = spin_minus0 + k, slack = spin_slack0 + k;
    velocity_row(plus, torsion[k].spin, 1.0);
    velocity_row(minus, torsion[k].spin, -1.0);
    problem.m(plus, slack) = problem.m(minus, slack) = 1.0;
    problem.m(slack, plus) = problem.m(slack, minus) = -1.0;
    for (const int i : torsion[k].constraints) {
      problem.m(slack, base + i) += torsion[k].torque_per_normal_impulse_m;
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
    // In place, a column at a time (vectorized): the same (D_ii N_ij) D_jj as the diagonal
    // products, without their coefficient-at-a-time loop.
    for (int j = 0; j < n; ++j) {
      problem.m.col(j) = (scale.array() * problem.m.col(j).array()) * scale(j);
    }
    problem.q = scale.cwiseProduct(problem.q);
    LcpAnswerCheck check;
    if (energy != nullptr) {
      std::vector<Mat6> mass(nb);
      for (int b = 0; b < nb; ++b) mass[b] = bodies[b].inverse_mass.inverse();
      check = [&, mass = std::move(mass)](const LcpSolution& answer) -> std::string {
        const Eigen::VectorXd z_answer = scale.cwiseProduct(answer.z);
        std::vector<Vec6> velocity(nb);
        for (int b = 0; b < nb; ++b) velocity[b] = bodies[b].free_velocity;
        double allowed = 0.0, terms = 0.0;
        for (const Column& col : columns) {
          const double zc = z_answer(col.unknown);
          for (int side = 0; side < 3; ++side) {
            if (col.body[side] >= 0) velocity[col.body[side]] += col.m_inv_g[side] * zc;
          }
          allowed += std::abs(zc) * col.work_speed;
          terms += std::abs(zc * col.bias);
        }
        // z_j w_j is invariant under the symmetric scaling: the complementarity residual's work.
        for (Eigen::Index i = 0; i < n && i < answer.w.size(); ++i) {
          allowed += std::abs(answer.z(i) * answer.w(i));
        }
        SpatialLcpEnergyBalance balance;
        for (int b = 0; b < nb; ++b) {
          balance.free_j += 0.5 * bodies[b].free_velocity.dot(mass[b] * bodies[b].free_velocity);
          balance.next_j += 0.5 * velocity[b].dot(mass[b] * velocity[b]);
        }
        balance.allowed_j = balance.free_j + allowed +
                            energy->relative_tolerance * (balance.free_j + balance.next_j + terms);
        out.energy = balance;
        if (balance.next_j <= balance.allowed_j) return {};
        ++out.energy_rejections;
        return absl::StrCat("creates energy: kinetic energy ", balance.next_j,
                            " J after the step, ", balance.free_j,
                            " J in the free motion, at most ", balance.allowed_j, " J allowed");
      };
    }
    absl::StatusOr<LcpSolverChainResult> result =
        SolveLcpWithFallback(problem, options, active_guess, check);
    if (!result.ok()) return result.status();
    out.solver = *std::move(result);
    if (out.solver.solution.z.size() == n) z = scale.cwiseProduct(out.solver.solution.z);
    if (out.solver.solved) {
      const std::vector<uint8_t> active = LcpActiveSet(out.solver.solution);
      walk_activity(&out.activity, [&](int unknown, auto* word, auto mask) {
        if (active[unknown] != 0) *word |= mask;
      });
    }
  }
  out.velocity.resize(nb);
  for (int b = 0; b < nb; ++b) out.velocity[b] = bodies[b].free_velocity;
  for (const Column& col : columns) {
    for (int side = 0; side < 3; ++side) {
      if (col.body[side] >= 0) out.velocity[col.body[side]] += col.m_inv_g[side] * z(col.unknown);
    }
  }
  out.normal_impulse.resize(nc);
  out.friction_impulse.resize(nc);
  out.sliding_speed.assign(nc, 0.0);
  for (int i = 0; i < nc; ++i) {
    out.normal_impulse[i] = z(base + i);
    if (!HasFriction(constraints[i])) continue;
    const int k_count = static_cast<int>(constraints[i].friction.size());
    out.friction_impulse[i].resize(k_count);
    for (int k = 0; k < k_count; ++k) out.friction_impulse[i][k] = z(beta0 + first_beta[i] + k);
    out.sliding_speed[i] = z(sliding[i]);
  }
  out.bilateral_impulse.resize(base);
  for (int k = 0; k < base; ++k) out.bilateral_impulse[k] = z(k);
  out.unilateral_impulse.resize(joints.unilateral.size());
  for (size_t k = 0; k < joints.unilateral.size(); ++k) {
    out.unilateral_impulse[k] = z(unilateral0 + static_cast<int>(k));
  }
  out.bounded_impulse.resize(nbd);
  for (int k = 0; k < nbd; ++k) out.bounded_impulse[k] = z(plus0 + k) - z(minus0 + k);
  out.torsion_impulse.resize(nt);
  for (int k = 0; k < nt; ++k) out.torsion_impulse[k] = z(spin_plus0 + k) - z(spin_minus0 + k);
  return out;
}

}  // namespace contactsim::core
