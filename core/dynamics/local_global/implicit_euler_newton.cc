#include "core/dynamics/local_global/implicit_euler_newton.h"

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dynamics/fem/hyperelastic_energy.h"
#include "core/dynamics/local_global/system_matrix.h"

namespace contactsim::core {
namespace {

using Mat9x12 = Eigen::Matrix<double, 9, 12>;
constexpr double kSmallestStep = 1.0 / 1024.0;  // ten halvings

// The incremental potential and (optionally) its gradient and projected Hessian on free dofs.
class IncrementalPotential {
 public:
  IncrementalPotential(const TetMesh& mesh, const Material& material, double h, SystemMatrix system,
                       const Points3& y, std::vector<int32_t> dof)
      : mesh_(mesh),
        material_(material),
        h2_(h * h),
        system_(std::move(system)),
        y_(y),
        dof_(std::move(dof)) {
    num_dofs_ = 0;
    for (int32_t d : dof_) num_dofs_ = std::max(num_dofs_, d + 1);
    // vec(F) = D x_e with x_e the element's 4 vertices stacked (12) and F = X B.
    d_.resize(mesh.num_tets());
    for (int e = 0; e < mesh.num_tets(); ++e) {
      const Eigen::MatrixXd& b = system_.element_b[e];  // 4 x 3
      d_[e].setZero();
      for (int a = 0; a < 4; ++a) {
        for (int c = 0; c < 3; ++c) {
          for (int i = 0; i < 3; ++i) d_[e](i + 3 * c, 3 * a + i) = b(a, c);
        }
      }
    }
  }
  int num_dofs() const { return num_dofs_; }

  Mat3 DeformationGradient(const Points3& x, int e) const {
    Eigen::Matrix<double, 12, 1> xe;
    for (int a = 0; a < 4; ++a) xe.segment<3>(3 * a) = x.row(mesh_.tets()(e, a)).transpose();
    const Eigen::Matrix<double, 9, 1> f = d_[e] * xe;
    return Eigen::Map<const Mat3>(f.data());
  }

  double Value(const Points3& x) const {
    const Points3 dx = x - y_;
    double g = 0.5 / h2_ * (system_.lumped_mass_kg.asDiagonal() * dx).cwiseProduct(dx).sum();
    for (int e = 0; e < mesh_.num_tets(); ++e) {
      g += system_.element_weight[e] * EnergyDensity(material_, DeformationGradient(x, e));
    }
    return g;
  }

  // Gradient on free dofs; the Hessian too when hessian != nullptr.
  Eigen::VectorXd Gradient(const Points3& x,
                           Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t>* hessian) const {
    Eigen::VectorXd grad = Eigen::VectorXd::Zero(num_dofs_);
    std::vector<Eigen::Triplet<double, int32_t>> triplets;
    const int n = static_cast<int>(x.rows());
    for (int v = 0; v < n; ++v) {
      for (int i = 0; i < 3; ++i) {
        const int32_t r = dof_[3 * v + i];
        if (r < 0) continue;
        const double m = system_.lumped_mass_kg[v] / h2_;
        grad[r] += m * (x(v, i) - y_(v, i));
        if (hessian != nullptr) triplets.emplace_back(r, r, m);
      }
    }
    if (hessian != nullptr) triplets.reserve(triplets.size() + 144 * mesh_.num_tets());
    for (int e = 0; e < mesh_.num_tets(); ++e) {
      const Mat3 f = DeformationGradient(x, e);
      const double volume = system_.element_weight[e];
      const Mat3 p = FirstPiolaKirchhoff(material_, f);
      const Eigen::Matrix<double, 12, 1> ge =
          volume * d_[e].transpose() * Eigen::Map<const Eigen::Matrix<double, 9, 1>>(p.data());
      Eigen::Matrix<double, 12, 12> ke;
      if (hessian != nullptr) {
        ke = volume * d_[e].transpose() *
             EnergyHessian(material_, f, HessianProjection::kPositiveSemiDefinite) * d_[e];
      }
      for (int a = 0; a < 12; ++a) {
        const int32_t r = dof_[3 * mesh_.tets()(e, a / 3) + a % 3];
        if (r < 0) continue;
        grad[r] += ge[a];
        if (hessian == nullptr) continue;
        for (int b = 0; b < 12; ++b) {
          const int32_t c = dof_[3 * mesh_.tets()(e, b / 3) + b % 3];
          if (c >= 0) triplets.emplace_back(r, c, ke(a, b));
        }
      }
    }
    if (hessian != nullptr) {
      hessian->resize(num_dofs_, num_dofs_);
      hessian->setFromTriplets(triplets.begin(), triplets.end());
    }
    return grad;
  }

  // x + t d on the free dofs.
  Points3 Moved(const Points3& x, const Eigen::VectorXd& d, double t) const {
    Points3 out = x;
    for (int v = 0; v < x.rows(); ++v) {
      for (int i = 0; i < 3; ++i) {
        const int32_t r = dof_[3 * v + i];
        if (r >= 0) out(v, i) += t * d[r];
      }
    }
    return out;
  }

 private:
  const TetMesh& mesh_;
  Material material_;
  double h2_;
  SystemMatrix system_;
  const Points3& y_;
  std::vector<int32_t> dof_;  // per vertex coordinate: free dof index, -1 pinned
  int32_t num_dofs_ = 0;
  std::vector<Mat9x12> d_;
};

}  // namespace

absl::StatusOr<ImplicitEulerNewtonResult> MinimizeIncrementalPotential(
    const TetMesh& mesh, const Material& material, double time_step_s, const Points3& predictor_m,
    const Points3& initial_m, const std::vector<int32_t>& pinned_vertices,
    const Points3& pinned_targets_m, const ImplicitEulerNewtonOptions& options) {
  const int n = mesh.num_vertices();
  if (!(std::isfinite(time_step_s) && time_step_s > 0.0)) {
    return absl::InvalidArgumentError("time_step_s must be finite and > 0");
  }
  if (predictor_m.rows() != n || !predictor_m.allFinite()) {
    return absl::InvalidArgumentError(absl::StrCat("predictor_m must be finite with ", n, " rows"));
  }
  if (initial_m.rows() != n || !initial_m.allFinite()) {
    return absl::InvalidArgumentError(absl::StrCat("initial_m must be finite with ", n, " rows"));
  }
  if (pinned_targets_m.rows() != static_cast<int>(pinned_vertices.size()) ||
      !pinned_targets_m.allFinite()) {
    return absl::InvalidArgumentError(
        "pinned_targets_m must be finite with one row per pinned vertex");
  }
  std::vector<int32_t> dof(3 * n, 0);
  Points3 x = initial_m;
  for (size_t p = 0; p < pinned_vertices.size(); ++p) {
    const int32_t v = pinned_vertices[p];
    if (v < 0 || v >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("pinned_vertices[", p, "]: no vertex ", v, " (", n, " vertices)"));
    }
    for (int i = 0; i < 3; ++i) dof[3 * v + i] = -1;
    x.row(v) = pinned_targets_m.row(p);
  }
  int32_t next = 0;
  for (int32_t& d : dof) {
    if (d == 0) d = next++;
  }
  auto system = AssembleSystemMatrix(mesh, {material.density, 1.0, time_step_s});  // w_e = V_e
  if (!system.ok()) return system.status();
  const IncrementalPotential potential(mesh, material, time_step_s, *std::move(system), predictor_m,
                                       std::move(dof));

  ImplicitEulerNewtonResult result;
  double g = potential.Value(x);
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t>> ldlt;
  bool pattern_known = false;
  Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t> hessian;
  for (int it = 0; it < options.max_iterations; ++it) {
    const Eigen::VectorXd grad = potential.Gradient(x, &hessian);
    result.gradient_norm_n = grad.norm();
    if (it == 0) result.initial_gradient_norm_n = result.gradient_norm_n;
    if (result.gradient_norm_n <= options.gradient_tolerance_n) {
      result.converged = true;
      break;
    }
    if (!pattern_known) {
      ldlt.analyzePattern(hessian);
      pattern_known = true;
    }
    ldlt.factorize(hessian);
    if (ldlt.info() != Eigen::Success) {
      return absl::FailedPreconditionError("Newton Hessian factorization failed");
    }
    const Eigen::VectorXd d = -ldlt.solve(grad);
    const double slope = grad.dot(d);  // < 0 for a positive definite Hessian
    ++result.iterations;
    if (-0.5 * slope <= options.relative_decrement * std::abs(g)) {
      x = potential.Moved(x, d, 1.0);  // below round-off of g: take it and stop
      g = potential.Value(x);
      result.converged = true;
      break;
    }
    double t = 1.0;
    Points3 trial = potential.Moved(x, d, t);
    double g_trial = potential.Value(trial);
    while (g_trial > g + 1e-4 * t * slope && t > kSmallestStep) {
      t *= 0.5;
      trial = potential.Moved(x, d, t);
      g_trial = potential.Value(trial);
    }
    if (g_trial > g + 1e-4 * t * slope) {
      // No decrease along a descent direction: g is at its round-off (the sum over many
      // elements), so the minimizer is found to that precision if the decrement is that small.
      result.converged = -0.5 * slope <= options.round_off_decrement * std::abs(g);
      break;
    }
    x = std::move(trial);
    g = g_trial;
  }
  result.gradient_norm_n = potential.Gradient(x, nullptr).norm();
  result.potential_j = g;
  result.x_m = std::move(x);
  return result;
}

}  // namespace contactsim::core
