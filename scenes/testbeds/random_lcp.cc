#include "scenes/testbeds/random_lcp.h"

#include <cmath>
#include <vector>

namespace contactsim::core::testing {
namespace {

Eigen::MatrixXd Normal(int rows, int cols, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd a(rows, cols);
  for (Eigen::Index i = 0; i < a.size(); ++i) a.data()[i] = normal(rng);
  return a;
}

double Uniform(double lo, double hi, std::mt19937_64& rng) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

Eigen::MatrixXd SymmetricPositiveDefinite(int n, std::mt19937_64& rng) {
  const Eigen::MatrixXd a = Normal(n, n, rng);
  return a * a.transpose() / n + 0.1 * Eigen::MatrixXd::Identity(n, n);
}

Eigen::MatrixXd Skew(int n, std::mt19937_64& rng) {
  const Eigen::MatrixXd b = Normal(n, n, rng);
  return (b - b.transpose()) / std::sqrt(static_cast<double>(n));
}

// One contact Jacobian column: body a pushed along +normal at offset r_a from its origin, body b
// (or the world when b < 0) along -normal at r_b.
Eigen::VectorXd ContactColumn(int num_bodies, int a, int b, double angle, std::mt19937_64& rng) {
  Eigen::VectorXd g = Eigen::VectorXd::Zero(3 * num_bodies);
  const double nx = std::cos(angle), ny = std::sin(angle);
  auto fill = [&](int body, double sign) {
    const double rx = Uniform(-0.1, 0.1, rng), ry = Uniform(-0.1, 0.1, rng);
    g[3 * body] = sign * nx;
    g[3 * body + 1] = sign * ny;
    g[3 * body + 2] = sign * (rx * ny - ry * nx);
  };
  fill(a, 1.0);
  if (b >= 0) fill(b, -1.0);
  return g;
}

}  // namespace

LcpProblem RandomLcp(RandomLcpKind kind, int n, std::mt19937_64& rng) {
  LcpProblem lcp;
  switch (kind) {
    case RandomLcpKind::kSymmetricPositiveDefinite:
      lcp.m = SymmetricPositiveDefinite(n, rng);
      break;
    case RandomLcpKind::kNonSymmetricPositiveDefinite:
      lcp.m = SymmetricPositiveDefinite(n, rng) + Skew(n, rng);
      break;
    case RandomLcpKind::kScaledPMatrix: {
      Eigen::VectorXd d1(n), d2(n);
      for (int i = 0; i < n; ++i) {
        d1[i] = std::pow(10.0, Uniform(-1.0, 1.0, rng));
        d2[i] = std::pow(10.0, Uniform(-1.0, 1.0, rng));
      }
      lcp.m = d1.asDiagonal() * SymmetricPositiveDefinite(n, rng) * d2.asDiagonal();
      break;
    }
    case RandomLcpKind::kPositiveSemidefinite: {
      const Eigen::MatrixXd a = Normal(n, std::max(1, n / 2), rng);
      lcp.m = a * a.transpose() / n + Skew(n, rng);
      Eigen::VectorXd z = Eigen::VectorXd::Zero(n), w = Eigen::VectorXd::Zero(n);
      for (int i = 0; i < n; ++i) {
        const double u = Uniform(0.0, 1.0, rng);
        if (u < 0.4) {
          z[i] = Uniform(0.1, 2.0, rng);
        } else if (u < 0.8) {
          w[i] = Uniform(0.1, 2.0, rng);
        }  // else both zero: degenerate
      }
      lcp.q = w - lcp.m * z;
      return lcp;
    }
  }
  lcp.q = Normal(n, 1, rng);
  return lcp;
}

LcpProblem PegLikeLcp(int num_bodies, std::mt19937_64& rng) {
  const int dofs = 3 * num_bodies;
  Eigen::VectorXd inverse_mass(dofs);
  for (int b = 0; b < num_bodies; ++b) {
    const double m = Uniform(0.1, 1.0, rng), j = Uniform(1e-3, 1e-2, rng);
    inverse_mass.segment<3>(3 * b) << 1.0 / m, 1.0 / m, 1.0 / j;
  }
  auto other_body = [&](int a) {
    if (num_bodies == 1 || Uniform(0.0, 1.0, rng) < 0.3) return -1;
    int b = static_cast<int>(Uniform(0.0, num_bodies - 1, rng));
    return b >= a ? b + 1 : b;
  };
  auto gap = [&] { return Uniform(-1e-3, 5e-3, rng); };

  std::vector<Eigen::VectorXd> g_n, g_p, g_c;
  std::vector<double> psi_n, psi_p, psi_c;
  std::vector<int> secondaries;  // per intercontact constraint
  for (int u = 0; u < 2 * num_bodies; ++u) {
    const int a = u % num_bodies;
    g_n.push_back(ContactColumn(num_bodies, a, other_body(a), Uniform(0.0, 2 * M_PI, rng), rng));
    psi_n.push_back(gap());
  }
  for (int k = 0; k < num_bodies; ++k) {
    const int a = static_cast<int>(Uniform(0.0, num_bodies, rng)) % num_bodies;
    const int b = other_body(a);
    const double angle = Uniform(0.0, 2 * M_PI, rng);
    g_p.push_back(ContactColumn(num_bodies, a, b, angle, rng));
    psi_p.push_back(gap());
    const int count = 1 + static_cast<int>(Uniform(0.0, 3.0, rng)) % 3;
    secondaries.push_back(count);
    for (int s = 0; s < count; ++s) {
      // A corner: the secondary face's normal 0.5-2.5 rad from the primary's.
      const double turn = Uniform(0.5, 2.5, rng) * (Uniform(0.0, 1.0, rng) < 0.5 ? -1.0 : 1.0);
      const Eigen::VectorXd g_s = ContactColumn(num_bodies, a, b, angle + turn, rng);
      const double psi_s = gap();
      g_c.push_back(g_p.back() - g_s);
      psi_c.push_back(psi_p.back() - psi_s);
    }
  }
  const int nu = static_cast<int>(g_n.size()), ni = static_cast<int>(g_p.size()),
            nc = static_cast<int>(g_c.size());
  const int n = nu + ni + nc;
  Eigen::MatrixXd force(dofs, nu + ni);  // [G_n G_i]
  for (int j = 0; j < nu; ++j) force.col(j) = g_n[j];
  for (int j = 0; j < ni; ++j) force.col(nu + j) = g_p[j];
  Eigen::MatrixXd rows(dofs, n);  // [G_n G_i G_c]: the rows' Jacobians
  rows.leftCols(nu + ni) = force;
  for (int j = 0; j < nc; ++j) rows.col(nu + ni + j) = g_c[j];

  LcpProblem lcp;
  lcp.m = Eigen::MatrixXd::Zero(n, n);
  lcp.m.leftCols(nu + ni) = rows.transpose() * inverse_mass.asDiagonal() * force;
  int column = nu + ni;
  for (int i = 0; i < ni; ++i) {
    for (int s = 0; s < secondaries[i]; ++s) {
      lcp.m(nu + i, column + s) = 1.0;                                               // E_ic
      for (int r = s; r < secondaries[i]; ++r) lcp.m(column + r, column + s) = 1.0;  // E_c
    }
    column += secondaries[i];
  }
  constexpr double kStep_s = 0.01;
  const Eigen::VectorXd free_velocity = 0.5 * Normal(dofs, 1, rng);
  lcp.q = rows.transpose() * free_velocity;
  for (int j = 0; j < nu; ++j) lcp.q[j] += psi_n[j] / kStep_s;
  for (int j = 0; j < ni; ++j) lcp.q[nu + j] += psi_p[j] / kStep_s;
  for (int j = 0; j < nc; ++j) lcp.q[nu + ni + j] += psi_c[j] / kStep_s;
  return lcp;
}

}  // namespace contactsim::core::testing
