// The contact stage of one local-global step (Zeng et al. 2024, Alg. 4), between the solver's
// local and global steps: at the step start, detect the contacts (half-spaces, triangle-mesh
// obstacles, other bodies), form the Delassus operator W = H A^{-1} H^T and warm-start the
// multipliers lambda; after each global step, run the non-smooth Newton correction on lambda
// around q_u = x and apply q = q_u + h^2 A^{-1} H^T lambda (a second global solve).
// LocalGlobalSolver owns the detectors and the previous step's contacts; a ContactStage lives
// for one Step.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/local_global/body_contact.h"
#include "core/dynamics/local_global/contact_frame.h"
#include "core/dynamics/local_global/mesh_contact.h"
#include "core/dynamics/local_global/nonsmooth_newton.h"
#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/phase_times.h"
#include "core/linalg/backend.h"

namespace contactsim::core {

// What the stage reads from the solver for one step.
struct ContactStageInputs {
  const std::vector<HalfSpaceObstacle>* obstacles = nullptr;
  MeshContactDetector* mesh_detector = nullptr;      // null: no mesh obstacles
  BodyContactDetector* body_detector = nullptr;      // null: no body contact
  const std::vector<int32_t>* free_index = nullptr;  // per vertex, < 0 pinned
  const std::vector<int32_t>* free = nullptr;        // free vertex list
  double proximity_m = 0.0;
  double time_step_s = 0.0;
  double elapsed_s = 0.0;  // the kinematic obstacles' time at the step start
  const NonsmoothNewtonOptions* newton = nullptr;
  bool warm_start = true;
  const std::vector<VertexContact>* previous_contacts = nullptr;
  const Eigen::VectorXd* previous_lambda = nullptr;
  Backend* backend = nullptr;
  SparseId r_transpose;  // R^T of the sparse inverse global step (W is formed from it)
};

class ContactStage {
 public:
  using Block = OrderedCholesky::Block;
  // The solver's global solve A_ff x = b over the free vertices.
  using GlobalSolveFn = std::function<absl::Status(const Block& b_free, Block* x_free)>;

  // Detection, W and the warm start at the step start (positions x_m), timed into *times.
  absl::Status Begin(const ContactStageInputs& in, const Points3& x_m, PhaseClock* clock,
                     LocalGlobalPhaseTimes* times);
  // Whether Correct has anything to do (contacts were found).
  bool active() const { return contact_solver_ != nullptr; }
  // After a global step: Newton on lambda around q_u = x, then x_free += h^2 A^{-1} H^T lambda,
  // copied into the free rows of x. `interrupt` (may be null) reaches the Newton solve
  // (NonsmoothContactSolver::Correct), whose first non-OK answer is returned.
  absl::Status Correct(const GlobalSolveFn& global_solve, Points3* x, Block* x_free,
                       PhaseClock* clock, LocalGlobalPhaseTimes* times,
                       const std::function<absl::Status()>* interrupt = nullptr);

  std::vector<VertexContact>& contacts() { return contacts_.contacts; }
  Eigen::VectorXd& lambda() { return lambda_; }
  std::vector<double>& residuals() { return residuals_; }

 private:
  const std::vector<int32_t>* free_ = nullptr;
  double h_ = 0.0;
  ContactSet contacts_;
  std::unique_ptr<NonsmoothContactSolver> contact_solver_;
  Eigen::VectorXd lambda_, hq_start_;
  std::vector<double> residuals_;  // ||F|| after each correction
  Block correction_rhs_, correction_;
};

}  // namespace contactsim::core
