#include "core/dynamics/rigid_lcp/planar_contact_lcp.h"

#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

absl::Status CheckRow(const PlanarLcpRow& row, int num_bodies, const std::string& name) {
  for (int body : {row.body_a, row.body_b}) {
    if (body < -1 || body >= num_bodies) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": body ", body, " out of range"));
    }
  }
  if (!row.jacobian_a.allFinite() || !row.jacobian_b.allFinite() || !std::isfinite(row.bias)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": non-finite jacobian or bias"));
  }
  return absl::OkStatus();
}

// Adds the row's Jacobian (3 entries per body) into a dense row of 3 n entries.
void AddRow(const PlanarLcpRow& row, double sign, Eigen::Ref<Eigen::RowVectorXd> out) {
  if (row.body_a >= 0) out.segment<3>(3 * row.body_a) += sign * row.jacobian_a.transpose();
  if (row.body_b >= 0) out.segment<3>(3 * row.body_b) += sign * row.jacobian_b.transpose();
}

}  // namespace

absl::StatusOr<PlanarLcpSolution> SolvePlanarContactLcp(
    std::span<const PlanarLcpBody> bodies, std::span<const PlanarLcpConstraint> constraints,
    const LcpSolverChainOptions& options) {
  const int nb = static_cast<int>(bodies.size());
  const int nc = static_cast<int>(constraints.size());
  int ns = 0;
  for (int i = 0; i < nc; ++i) {
    const PlanarLcpConstraint& c = constraints[i];
    if (auto s = CheckRow(c.primary, nb, absl::StrCat("constraints[", i, "].primary")); !s.ok()) {
      return s;
    }
    for (size_t j = 0; j < c.secondaries.size(); ++j) {
      if (auto s = CheckRow(c.secondaries[j], nb,
                            absl::StrCat("constraints[", i, "].secondaries[", j, "]"));
          !s.ok()) {
        return s;
      }
    }
    ns += static_cast<int>(c.secondaries.size());
  }
  Eigen::VectorXd free_velocity(3 * nb), inverse_mass(3 * nb);
  for (int b = 0; b < nb; ++b) {
    if (!bodies[b].free_velocity.allFinite() || !(bodies[b].inverse_mass >= 0.0) ||
        !(bodies[b].inverse_inertia >= 0.0)) {
      return absl::InvalidArgumentError(absl::StrCat("bodies[", b, "]: bad mass or velocity"));
    }
    free_velocity.segment<3>(3 * b) = bodies[b].free_velocity;
    inverse_mass.segment<3>(3 * b) << bodies[b].inverse_mass, bodies[b].inverse_mass,
        bodies[b].inverse_inertia;
  }
  const int n = nc + ns;
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  RowMajor rows = RowMajor::Zero(n, 3 * nb);                     // A
  Eigen::MatrixXd impulses = Eigen::MatrixXd::Zero(3 * nb, nc);  // M^-1 F (impulse columns)
  Eigen::VectorXd bias(n);
  Eigen::MatrixXd e = Eigen::MatrixXd::Zero(n, n);
  int slack = nc;
  for (int i = 0; i < nc; ++i) {
    const PlanarLcpConstraint& c = constraints[i];
    AddRow(c.primary, 1.0, rows.row(i));
    impulses.col(i) = inverse_mass.cwiseProduct(rows.row(i).transpose());
    bias(i) = c.primary.bias;
    const int first_slack = slack;
    for (const PlanarLcpRow& s : c.secondaries) {
      rows.row(slack) = rows.row(i);
      AddRow(s, -1.0, rows.row(slack));
      bias(slack) = c.primary.bias - s.bias;
      e(i, slack) = 1.0;                                             // E_iota,c
      for (int l = first_slack; l <= slack; ++l) e(slack, l) = 1.0;  // E_c (lower triangular)
      ++slack;
    }
  }
  LcpProblem problem;
  problem.m = e;
  problem.m.leftCols(nc) += rows * impulses;
  problem.q = rows * free_velocity + bias;
  PlanarLcpSolution out;
  out.lcp_size = n;
  if (n == 0) {
    out.solver.solved = true;
  } else {
    absl::StatusOr<LcpSolverChainResult> r = SolveLcpWithFallback(problem, options);
    if (!r.ok()) return r.status();
    out.solver = *std::move(r);
  }
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(nc);
  if (n > 0 && out.solver.solution.z.size() == n) lambda = out.solver.solution.z.head(nc);
  const Eigen::VectorXd velocity = free_velocity + impulses * lambda;
  out.normal_impulse.assign(lambda.data(), lambda.data() + nc);
  out.velocity.resize(nb);
  for (int b = 0; b < nb; ++b) out.velocity[b] = velocity.segment<3>(3 * b);
  return out;
}

}  // namespace contactsim::core
