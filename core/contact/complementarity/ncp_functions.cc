#include "core/contact/complementarity/ncp_functions.h"

#include <algorithm>
#include <cmath>

namespace contactsim::core {

double FischerBurmeister(double a, double b) {
  const double norm = std::hypot(a, b);
  const double sum = a + b;
  // No cancellation; b / (sum + norm) <= 1 keeps a b from underflowing or overflowing.
  if (sum > 0.0) return 2.0 * a * (b / (sum + norm));
  return sum - norm;  // both terms <= 0: no cancellation
}

double MinMap(double a, double b) { return std::min(a, b); }

NcpEvaluation EvaluateNcp(NcpFunction function, double a, double b) {
  NcpEvaluation out;
  switch (function) {
    case NcpFunction::kFischerBurmeister: {
      out.value = FischerBurmeister(a, b);
      const double norm = std::hypot(a, b);
      if (norm > 0.0) {
        out.d_da = 1.0 - a / norm;
        out.d_db = 1.0 - b / norm;
      } else {
        out.d_da = out.d_db = 1.0 - 1.0 / std::sqrt(2.0);
      }
      break;
    }
    case NcpFunction::kMinMap:
      out.value = std::min(a, b);
      if (a <= b) {
        out.d_da = 1.0;
      } else {
        out.d_db = 1.0;
      }
      break;
  }
  return out;
}

NormalNcpTerms NormalContactNcp(NcpFunction function, double gap, double lambda_n, double r) {
  const NcpEvaluation e = EvaluateNcp(function, gap, r * lambda_n);
  NormalNcpTerms out;
  out.phi = e.value;
  out.omega = e.d_da;
  out.compliance = r * e.d_db;
  return out;
}

FrictionNcpTerms FrictionContactNcp(NcpFunction function, const Eigen::Vector2d& slip_velocity,
                                    double lambda_n, const Eigen::Vector2d& lambda_f,
                                    double friction_coefficient, double r) {
  FrictionNcpTerms out;
  const double bound = friction_coefficient * lambda_n;  // mu lambda_n
  if (!(lambda_n > 0.0) || !(bound > 0.0)) {
    // Inactive contact or frictionless: lambda_f = 0.
    out.omega = 0.0;
    out.compliance = 1.0;
    out.phi = lambda_f;
    return out;
  }
  const double s = slip_velocity.norm();
  const double force = lambda_f.norm();
  const double phi = EvaluateNcp(function, s, r * (bound - force)).value;
  const double numerator = r * (s - phi);  // >= 0 for both NCP functions
  double compliance = 0.0;
  if (numerator > 0.0) {
    const double denominator = std::max(phi + r * force, kFrictionDenominatorFloor * r * bound);
    compliance = numerator / denominator;
  }
  out.omega = 1.0;
  out.compliance = compliance;
  out.phi = slip_velocity + compliance * lambda_f;
  return out;
}

}  // namespace contactsim::core
