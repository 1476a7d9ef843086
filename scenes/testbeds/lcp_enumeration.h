// Reference for the LCP solver tests and bench/lcp_solver_bench: every solution of a small LCP(M,
// q) (lcp.h) by enumerating the 2^n complementary index sets alpha (z_alpha = -M_aa^-1 q_a, z = 0
// off alpha) and keeping those with z >= 0 and w = M z + q >= 0 within `tolerance`. Independent of
// the solvers under test (no pivoting, no iteration); n <= 12.
#pragma once

#include <Eigen/Dense>
#include <vector>

namespace contactsim::core::testing {

inline std::vector<Eigen::VectorXd> EnumerateLcpSolutions(const Eigen::MatrixXd& m,
                                                          const Eigen::VectorXd& q,
                                                          double tolerance) {
  const int n = static_cast<int>(q.size());
  std::vector<Eigen::VectorXd> solutions;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    std::vector<int> alpha;
    for (int i = 0; i < n; ++i) {
      if (mask & (1u << i)) alpha.push_back(i);
    }
    const int k = static_cast<int>(alpha.size());
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
    if (k > 0) {
      Eigen::MatrixXd m_aa(k, k);
      Eigen::VectorXd q_a(k);
      for (int r = 0; r < k; ++r) {
        q_a[r] = q[alpha[r]];
        for (int c = 0; c < k; ++c) m_aa(r, c) = m(alpha[r], alpha[c]);
      }
      const Eigen::FullPivLU<Eigen::MatrixXd> lu(m_aa);
      if (!lu.isInvertible()) continue;
      const Eigen::VectorXd z_a = lu.solve(-q_a);
      for (int r = 0; r < k; ++r) z[alpha[r]] = z_a[r];
    }
    const Eigen::VectorXd w = m * z + q;
    if (z.minCoeff() >= -tolerance && w.minCoeff() >= -tolerance) solutions.push_back(z);
  }
  return solutions;
}

}  // namespace contactsim::core::testing
