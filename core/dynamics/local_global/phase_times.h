// Where LocalGlobalSolver::Step spends its time: the phase totals (LocalGlobalPhaseTimes) and the
// lap timer that fills them (each Lap adds the wall time since the previous one to the phase it
// names), shared by the solver and its contact stage (contact_stage.h).
#pragma once

#include <chrono>

namespace contactsim::core {

// Wall time of one Step's phases [ms] (std::chrono::steady_clock), summed over its
// iterations. The columns of Zeng et al. 2024, Table 3 they correspond to:
//   schur_ms            "Schur."     W = H A^-1 H^T and the preconditioner, once per step
//   local_ms            "Local*"     the elements' local steps and the constraints' projections
//   global_ms           "Global"     A^-1 b of the elastic right-hand side (S products, triangular
//                                    solves or one Jacobi iteration), upload / download included
//   contact_assembly_ms "Assem."     contact detection, H q, the warm start, the correction's
//                                    right-hand side h^2 H^T lambda
//   constraint_solve_ms "Cst. Solve" the non-smooth Newton iterations on lambda (W products, CR)
//   correction_ms       "Corr."      q += h^2 A^-1 H^T lambda (the second global solve)
//   frame_ms            "Frame max*" the whole Step (the paper's excludes collision detection)
// "Cst. Global" = contact_assembly + constraint_solve + correction. Not a paper column:
// rhs_ms (predictor, F = G x, G_w^T (z - u), the primal residual and the iteration observer),
// included in frame_ms.
struct LocalGlobalPhaseTimes {
  double schur_ms = 0.0;
  double local_ms = 0.0;
  double global_ms = 0.0;
  double contact_assembly_ms = 0.0;
  double constraint_solve_ms = 0.0;
  double correction_ms = 0.0;
  double rhs_ms = 0.0;
  double frame_ms = 0.0;
};

class PhaseClock {
 public:
  PhaseClock() : last_(std::chrono::steady_clock::now()) {}
  // Adds the time since the last Lap (or construction) to a phase total [ms].
  void Lap(double* total_ms) {
    const auto now = std::chrono::steady_clock::now();
    *total_ms += std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
  }

 private:
  std::chrono::steady_clock::time_point last_;
};

}  // namespace contactsim::core
