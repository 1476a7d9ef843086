// NCP functions for the non-smooth Newton solve of the local_global pipeline (Zeng et al. 2024,
// Sec. 5.2, Eqs. 12-14, 24, Appendix B; after Macklin et al. 2019). An NCP function phi(a, b)
// is zero exactly on the complementarity set 0 <= a _|_ b >= 0 (a >= 0, b >= 0, a b = 0):
//   Fischer-Burmeister  phi_FB(a, b)  = a + b - sqrt(a^2 + b^2)
//   minimum map         phi_min(a, b) = min(a, b)
// Generalized derivatives (an element of Clarke's generalized Jacobian where phi has a kink):
//   FB:  (d/da, d/db) = (1 - a / ||(a, b)||, 1 - b / ||(a, b)||)   for (a, b) != 0;
//        at the origin we take (1 - 1/sqrt(2), 1 - 1/sqrt(2)), the limit along the ray a = b > 0
//        (an element of the B-subdifferential, hence of the Clarke Jacobian
//        {(1 - xi, 1 - eta) : xi^2 + eta^2 <= 1}).
//   min: (1, 0) if a <= b, else (0, 1): on the kink a = b we take (1, 0), the paper's
//        Eqs. 46-48 convention (the branch delta_n <= r lambda_n keeps the constraint row).
//
// Contact rows (one contact j, with the complementarity preconditioner r_j of Eq. 28):
//   normal    phi_n = phi(delta_n, r lambda_n)         delta_n [m] the gap along the normal,
//             J_n = omega_n H_n,  omega_n = d phi/da;  E_n = r d phi/db           (Eqs. 46-48,
//             52-54)
//   friction  (isotropic cone, two signed tangents f_1, f_2; Eqs. 43-45, 49-51, 55-57)
//             with s = ||dot(delta)_f|| [m/s] the tangential slip speed and the cone slack
//             g = mu lambda_n - ||lambda_f||:
//               active (lambda_n > 0, mu > 0):
//                 phi_f = dot(delta)_f + E_f lambda_f    (one row per tangent),  J_f = H_f,
//                 E_f = r (s - phi(s, r g)) / (phi(s, r g) + r ||lambda_f||)
//               inactive: phi_f = lambda_f, J_f = 0, E_f = 1.
//             At a root phi(s, r g) = 0, so E_f = s / ||lambda_f||: stick (s = 0, inside the cone)
//             or slide (||lambda_f|| = mu lambda_n, lambda_f = -mu lambda_n dot(delta)_f / s).
//             For the min map this is the paper's Eq. 51, for FB its Eq. 57 (their denominator
//             s + mu r lambda_n - sqrt(s^2 + r^2 g^2) is the same phi + r ||lambda_f||).
//             E_f is lagged (held fixed within a Newton iteration), as in the paper.
//             E_f = 0 when its numerator is 0 (stick, including the 0/0 of s = 0, lambda_f = 0,
//             where the limit is 0). The denominator can only vanish or turn negative when
//             lambda_f is far outside the cone (||lambda_f|| > 2 mu lambda_n for FB); it is
//             floored at kFrictionDenominatorFloor r mu lambda_n, which keeps E_f finite and
//             positive (a large compliance pulls lambda_f back towards the cone).
// Units: the preconditioner r maps lambda to the units of its partner (r = h^2 W_jj for normal
// rows, h W_jj for friction rows, W the Delassus operator).
#pragma once

#include <Eigen/Core>

namespace contactsim::core {

enum class NcpFunction { kFischerBurmeister, kMinMap };

struct NcpEvaluation {
  double value = 0.0;
  double d_da = 0.0;
  double d_db = 0.0;
};

// Fischer-Burmeister without cancellation: for a + b > 0 it is evaluated as
// 2 a b / (a + b + ||(a, b)||), so it is exactly 0 on the complementarity set.
double FischerBurmeister(double a, double b);
double MinMap(double a, double b);
NcpEvaluation EvaluateNcp(NcpFunction function, double a, double b);

struct NormalNcpTerms {
  double phi = 0.0;         // phi(delta_n, r lambda_n) [m]
  double omega = 0.0;       // non-smooth indicator, J_n = omega H_n [-]
  double compliance = 0.0;  // E_n = d phi / d lambda_n
};

NormalNcpTerms NormalContactNcp(NcpFunction function, double gap, double lambda_n, double r);

inline constexpr double kFrictionDenominatorFloor = 1e-6;

struct FrictionNcpTerms {
  Eigen::Vector2d phi = Eigen::Vector2d::Zero();  // per tangent
  double omega = 0.0;                             // J_f = omega H_f: 1 active, 0 inactive
  double compliance = 0.0;                        // E_f, the same for both tangent rows
};

// slip_velocity = H_f v [m/s] (two tangents), lambda_f the two signed tangential multipliers.
FrictionNcpTerms FrictionContactNcp(NcpFunction function, const Eigen::Vector2d& slip_velocity,
                                    double lambda_n, const Eigen::Vector2d& lambda_f,
                                    double friction_coefficient, double r);

// Eq. 28: r_j = h^2 W_jj for normal (and bilateral) rows, h W_jj for friction rows.
inline double NormalPreconditioner(double w_jj, double h) { return h * h * w_jj; }
inline double FrictionPreconditioner(double w_jj, double h) { return h * w_jj; }

}  // namespace contactsim::core
