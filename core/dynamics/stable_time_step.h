// Stability limit of the symplectic Euler step on one damped mode
//   x'' + d x' + omega^2 x = 0,   d = 2 zeta omega [1/s], omega [rad/s],
// stepped as v+ = v - dt (omega^2 x + d v), x+ = x + dt v+. The step matrix has determinant 1 - d
// dt and trace 2 - d dt - (omega dt)^2; both eigenvalues lie in the unit disc iff d dt <= 2 and
// (omega dt)^2 + d dt <= 4 - d dt, i.e.
//   dt <= dt_crit = 2 / (sqrt(omega^2 + d^2 / 4) + d / 2)      (= 2 / omega when d = 0).
// With Rayleigh damping d(omega) = alpha + beta omega^2, dt_crit decreases with omega, so the
// highest mode of the body binds.
#pragma once

namespace contactsim::core {

// dt_crit [s] for the highest mode omega_max [rad/s] with damping rate d [1/s] at that mode;
// +infinity when omega_max and d are both 0.
double CriticalTimeStep(double omega_max_rad_per_s, double damping_rate_per_s);

}  // namespace contactsim::core
