// Normal contact damping: a dashpot along the contact normal beside the penalty spring, its
// coefficient from a coefficient of restitution, and the explicit step's stability bound with it.
//
// Force on the penetrating point while delta > 0 (Kelvin-Voigt):
//   F = (k delta + c d(delta)/dtau) n           [N]; k [N/m], c [N s/m], delta the depth [m].
// Over a step the kernels integrate the dashpot over the same penetration intervals as the spring,
// with d(delta)/dtau the relative velocity of the predicted straight-line motion along n:
//   CPF (cpf.h, cpf_exact.h):  c int (n . (q' - p')) n dt over the intervals (' = d/dtau)
//   static plane:              c (delta(t_b) - delta(t_a)) n
//   DPF (dpf.h):               c (n . (q' - p')) n dt, while delta(1) > 0.
// The dashpot may pull at the end of a contact (delta > 0 but receding fast): that is the linear
// model whose restitution is known; clamping F >= 0 raises e (0.2 -> 0.32 in continuous time).
//
// Stability (g = 0, one contact of mass m, two-sided linear regime as in particle_on_plane.h):
// with s = k dt^2 / m and h = c dt / m the update matrices of (z, v) are
//   CPF                  [1 - s, dt (1 - s/2 - h); -s / dt, 1 - s/2 - h]
//   DPF, predicted end   [1 - s, dt (1 - s - h);   -s / dt, 1 - s - h  ]
//   DPF, start (SE)      [1 - s, dt (1 - h);       -s / dt, 1 - h      ]
// with det = 1 - s/2 - h, 1 - s - h, 1 - h and, for all three, tr = 1 - s + det. Jury's test
// (|det| <= 1, |tr| <= 1 + det) gives the bounds
//   CPF        s + h <= 2        k dt^2 + c dt <= 2 m       dt <= (-c + sqrt(c^2 + 8 k m)) / (2 k)
//   DPF end    3 s + 2 h <= 4    3 k dt^2 + 2 c dt <= 4 m   dt <= (-c + sqrt(c^2 + 12 k m)) / (3 k)
//   SE         s + 2 h <= 4      k dt^2 + 2 c dt <= 4 m     dt <= (-c + sqrt(c^2 + 4 k m)) / k
// (c = 0: the paper's sqrt(2 m / k), 2 sqrt(m / (3 k)) and 2 sqrt(m / k)). The dashpot shrinks
// every bound: an explicit dashpot is itself only conditionally stable (c dt / m < 2 for SE).
//
// Restitution. For one linear spring-dashpot of mass m in continuous time, the contact lasts half
// a damped period and e = exp(-zeta pi / sqrt(1 - zeta^2)), zeta = c / (2 sqrt(k m)), i.e.
//   zeta = -ln e / sqrt(pi^2 + ln^2 e)   (e = 1: zeta = 0; e -> 0: zeta -> 1).
// The explicit step adds its own damping (CPF: |lambda|^2 = 1 - s/2), so the continuous zeta
// gives too low an e unless omega dt << 1 (e x exp(-pi omega dt / 4) for CPF). DashpotCoefficient
// instead matches the step: the discrete solution z_n = A r^n sin(n theta + phi) has eigenvalues
// r e^(+-i theta) with r^2 = det and 2 r cos(theta) = tr = 1 - s + r^2 (all three schemes), and it
// returns to the surface after pi / theta steps with its speed scaled by r^(pi / theta); so
// r = e^(theta / pi) and theta solves
//   2 r cos(theta) = 1 - s + r^2,   r = e^(theta / pi),
// then h = det0 - r^2 (det0 = 1 - s/2, 1 - s, 1: the undamped det) and c = h m / dt. This is exact
// for the linear discrete contact without gravity up to where the contact starts and ends within
// a step, and tends to the continuous formula as omega dt -> 0. It needs h >= 0: where the step's
// own damping already makes e smaller than asked (r0^(pi / theta0) < e), c = 0 and the contact is
// less elastic than asked. Since r <= 1, the resulting det is in [0, 1] and the eigenvalues stay in
// the unit disc wherever the undamped step is stable: this choice of c never crosses the bounds
// above. Approximate: gravity (the contact ends at delta = 0, not at the loaded equilibrium; e
// falls by O(g / (omega v_out))), several contacts on one body (each uses its own effective mass),
// and nonlinear normals.
#pragma once

namespace contactsim::core {

enum class DashpotScheme {
  kCpf = 0,                // CPF and the static-plane closed form
  kDpfAtPredictedEnd = 1,  // DPF at t = 1 of the predicted step (the pipeline's DPF models)
  kDpfAtStart = 2,         // DPF at the start of the step (the paper's SE)
};

// zeta = -ln e / sqrt(pi^2 + ln^2 e) for e in [0, 1] (continuous time; 0 -> 1, 1 -> 0).
double DampingRatioFromRestitution(double restitution);

// c [N s/m] that gives the linear discrete contact of stiffness k [N/m] and effective mass
// m_eff [kg] the restitution e in [0, 1] under `scheme` at step dt [s] (see above). 0 for e >= 1,
// m_eff not finite and > 0, or k dt^2 / m_eff <= 0.
double DashpotCoefficient(double restitution, double stiffness_n_per_m, double mass_kg, double dt_s,
                          DashpotScheme scheme);

// The largest stable dt [s] of the linear contact with k > 0, c >= 0, m > 0 (the bounds above).
double CriticalTimeStep(double stiffness_n_per_m, double damping_n_s_per_m, double mass_kg,
                        DashpotScheme scheme);

}  // namespace contactsim::core
