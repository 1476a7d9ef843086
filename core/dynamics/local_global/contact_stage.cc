#include "core/dynamics/local_global/contact_stage.h"

#include <utility>

#include "core/common/status_macros.h"
#include "core/dynamics/local_global/contact_warm_start.h"

namespace contactsim::core {
namespace {

// H x for the contact rows (normal and tangent components of each contact point) [m].
Eigen::VectorXd ConstraintValues(const ContactSet& contacts, const Points3& x_m) {
  Eigen::VectorXd out(3 * contacts.num_contacts());
  for (int32_t j = 0; j < contacts.num_contacts(); ++j) {
    const VertexContact& c = contacts.contacts[j];
    const Vec3 p = ContactPoint(c, x_m);
    out[3 * j] = c.normal.dot(p);
    out[3 * j + 1] = c.tangent1.dot(p);
    out[3 * j + 2] = c.tangent2.dot(p);
  }
  return out;
}

}  // namespace

absl::Status ContactStage::Begin(const ContactStageInputs& in, const Points3& x_m,
                                 PhaseClock* clock, LocalGlobalPhaseTimes* times) {
  free_ = in.free;
  h_ = in.time_step_s;
  const int num_free = static_cast<int>(in.free->size());
  auto detected =
      DetectHalfSpaceContacts(x_m, *in.free_index, num_free, *in.obstacles, in.proximity_m);
  if (!detected.ok()) return detected.status();
  contacts_ = *std::move(detected);
  if (in.mesh_detector != nullptr) {
    RETURN_IF_ERROR(in.mesh_detector->Detect(x_m, *in.free_index, in.proximity_m, in.elapsed_s, h_,
                                             &contacts_.contacts));
  }
  if (in.body_detector != nullptr) {
    if (absl::Status s =
            in.body_detector->Detect(x_m, *in.free_index, in.proximity_m, &contacts_.contacts);
        !s.ok()) {
      return s;
    }
  }
  if (in.mesh_detector != nullptr || in.body_detector != nullptr) {
    contacts_.h = BuildContactJacobian(contacts_.contacts, num_free);
  }
  clock->Lap(&times->contact_assembly_ms);
  if (contacts_.num_contacts() > 0) {
    auto created = NonsmoothContactSolver::Create(*in.backend, in.r_transpose, num_free, contacts_,
                                                  h_, *in.newton);
    if (!created.ok()) return created.status();
    contact_solver_ = *std::move(created);
    clock->Lap(&times->schur_ms);
    lambda_ = Eigen::VectorXd::Zero(3 * contacts_.num_contacts());
    if (in.warm_start) {
      WarmStartContactForces(*in.previous_contacts, *in.previous_lambda, contacts_.contacts,
                             &lambda_);
    }
    // Slip is measured relative to a kinematic obstacle: its motion over the step is the
    // reference displacement of the tangent rows.
    hq_start_ = ConstraintValues(contacts_, x_m);
    for (int32_t j = 0; j < contacts_.num_contacts(); ++j) {
      const VertexContact& c = contacts_.contacts[j];
      hq_start_[3 * j + 1] += h_ * c.tangent1.dot(c.obstacle_velocity_mps);
      hq_start_[3 * j + 2] += h_ * c.tangent2.dot(c.obstacle_velocity_mps);
    }
    correction_rhs_.resize(num_free, 3);
    correction_.resize(num_free, 3);
  }
  clock->Lap(&times->contact_assembly_ms);
  return absl::OkStatus();
}

absl::Status ContactStage::Correct(const GlobalSolveFn& global_solve, Points3* x, Block* x_free,
                                   PhaseClock* clock, LocalGlobalPhaseTimes* times,
                                   const std::function<absl::Status()>* interrupt) {
  const double h2 = h_ * h_;
  // Non-smooth Newton on lambda around q_u = x, then q = q_u + h^2 A^{-1} H^T lambda.
  const Eigen::VectorXd hq = ConstraintValues(contacts_, *x);
  clock->Lap(&times->contact_assembly_ms);
  auto newton = contact_solver_->Correct(hq, hq_start_, &lambda_, interrupt);
  if (!newton.ok()) return newton.status();
  clock->Lap(&times->constraint_solve_ms);
  residuals_.push_back(newton->residual_norm_after);
  correction_rhs_.setZero();
  for (int32_t j = 0; j < contacts_.num_contacts(); ++j) {
    const VertexContact& c = contacts_.contacts[j];
    const Vec3 force = lambda_[3 * j] * c.normal + lambda_[3 * j + 1] * c.tangent1 +
                       lambda_[3 * j + 2] * c.tangent2;
    if (c.free_vertex >= 0) {
      correction_rhs_.row(c.free_vertex) += h2 * c.weight * force.transpose();
    }
    for (int k = 0; k < kMaxExtraContactVertices; ++k) {
      if (c.extra_vertices[k] < 0 || c.extra_free_vertices[k] < 0) continue;
      correction_rhs_.row(c.extra_free_vertices[k]) += h2 * c.extra_weights[k] * force.transpose();
    }
  }
  clock->Lap(&times->contact_assembly_ms);
  RETURN_IF_ERROR(global_solve(correction_rhs_, &correction_));
  *x_free += correction_;
  const std::vector<int32_t>& free = *free_;
  for (size_t i = 0; i < free.size(); ++i) x->row(free[i]) = x_free->row(i);
  clock->Lap(&times->correction_ms);
  return absl::OkStatus();
}

}  // namespace contactsim::core
