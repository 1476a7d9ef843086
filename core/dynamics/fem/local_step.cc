#include "core/dynamics/fem/local_step.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/fem/hyperelastic_energy.h"

namespace contactsim::core {
namespace {

template <int D>
using VecD = Eigen::Matrix<double, D, 1>;
template <int D>
using MatD = Eigen::Matrix<double, D, D>;

// Proximal objective in singular-value space: vol psi(s) + (w/2) ||s - t||^2.
template <int D>
double Objective(const Material& m, double vol, double w, const VecD<D>& s, const VecD<D>& t) {
  return vol * EvaluateSingularValueEnergy<D>(m, s).psi + 0.5 * w * (s - t).squaredNorm();
}

template <int D>
LocalStepResult NeoHookeanProximal(const Material& m, double vol, double w, const VecD<D>& t,
                                   const LocalStepOptions& options, VecD<D>* s_out) {
  const double scale = vol * (2.0 * m.mu + m.lambda) + w;  // Hessian scale at rest [J]
  const double tolerance = options.relative_tolerance * scale;
  VecD<D> s = t;
  LocalStepResult result;
  result.converged = false;
  for (int it = 0;; ++it) {
    const SingularValueEnergy<D> e = EvaluateSingularValueEnergy<D>(m, s);
    const VecD<D> g = vol * e.gradient + w * (s - t);
    if (g.norm() <= tolerance) {
      result.converged = true;
      break;
    }
    if (it == options.max_newton_iterations) break;
    const MatD<D> h = vol * e.hessian + w * MatD<D>::Identity();
    VecD<D> dir;
    const Eigen::LLT<MatD<D>> llt(h);
    if (llt.info() == Eigen::Success) {
      dir = -llt.solve(g);
    } else {
      // Indefinite: clamp the eigenvalues so the step is a descent direction.
      Eigen::SelfAdjointEigenSolver<MatD<D>> eig;
      eig.computeDirect(h);
      const VecD<D> lambdas = eig.eigenvalues().cwiseAbs().cwiseMax(1e-6 * scale);
      dir = -eig.eigenvectors() * (eig.eigenvectors().transpose() * g).cwiseQuotient(lambdas);
    }
    ++result.iterations;
    const double f0 = vol * e.psi + 0.5 * w * (s - t).squaredNorm();
    const double slope = g.dot(dir);  // < 0
    // Near the solution the predicted decrease -slope/2 drops below the roundoff of f, where an
    // Armijo test cannot tell descent from noise: take the full (quadratically convergent) step.
    if (-slope <= 1e-14 * (std::abs(f0) + scale)) {
      s += dir;
      continue;
    }
    // Armijo backtracking on the (nonconvex) objective.
    double alpha = 1.0;
    bool accepted = false;
    for (int ls = 0; ls < 40; ++ls) {
      const VecD<D> trial = s + alpha * dir;
      if (Objective<D>(m, vol, w, trial, t) <= f0 + 1e-4 * alpha * slope) {
        s = trial;
        accepted = true;
        break;
      }
      alpha *= 0.5;
    }
    if (!accepted) break;  // no descent left: report not converged
  }
  *s_out = s;
  return result;
}

template <int D>
LocalStepResult SingularValueProximal(const Material& m, double vol, double w, const VecD<D>& t,
                                      const LocalStepOptions& options, VecD<D>* s) {
  const double k = 2.0 * m.mu * vol;
  switch (m.model) {
    case MaterialModel::kArap:
      if (options.arap_projection) {
        s->setOnes();
      } else {
        *s = (VecD<D>::Constant(k) + w * t) / (k + w);
      }
      return {};
    case MaterialModel::kCorotational: {
      const double l = m.lambda * vol;
      const double sum = (D * k + w * t.sum() + D * D * l) / (k + w + D * l);
      *s = (VecD<D>::Constant(k - l * (sum - D)) + w * t) / (k + w);
      return {};
    }
    case MaterialModel::kNeoHookean:
      return NeoHookeanProximal<D>(m, vol, w, t, options, s);
  }
  return {};
}

template <int D>
LocalStepResult ProximalPointImpl(const Material& m, double vol, double w,
                                  const Eigen::Matrix<double, 3, D>& target,
                                  const LocalStepOptions& options, Eigen::Matrix<double, 3, D>* z) {
  const SignedSvd<D> svd = ComputeSignedSvd(target);
  VecD<D> s = VecD<D>::Zero();
  const LocalStepResult result = SingularValueProximal<D>(m, vol, w, svd.sigma, options, &s);
  *z = svd.u.template leftCols<D>() * s.asDiagonal() * svd.v.transpose();
  return result;
}

template <int D>
void RunRange(const LocalStepBatch& batch, int64_t begin, int64_t end, LocalStepStats* stats) {
  constexpr int kSize = 3 * D;
  using MatF = Eigen::Matrix<double, 3, D>;
  const bool has_duals = !batch.duals.empty();
  for (int64_t e = begin; e < end; ++e) {
    const Eigen::Map<const MatF> f(batch.deformation_gradients.data() + kSize * e);
    Eigen::Map<MatF> z(batch.projections.data() + kSize * e);
    MatF target = f;
    if (has_duals) target += Eigen::Map<const MatF>(batch.duals.data() + kSize * e);
    MatF z_local;
    const LocalStepResult r = ProximalPointImpl<D>(
        batch.material, batch.volumes[e], batch.weights[e], target, batch.options, &z_local);
    z = z_local;
    if (has_duals) {
      Eigen::Map<MatF> u(batch.duals.data() + kSize * e);
      u += f - z_local;
    }
    ++stats->elements;
    stats->newton_iterations += r.iterations;
    stats->max_newton_iterations = std::max(stats->max_newton_iterations, r.iterations);
    if (!r.converged) ++stats->not_converged;
  }
}

absl::Status CheckPositiveFinite(absl::Span<const double> values, absl::string_view field) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i]) || values[i] <= 0.0) {
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(field), "[", i, "] must be finite and > 0, got ", values[i]));
    }
  }
  return absl::OkStatus();
}

}  // namespace

LocalStepResult ProximalPoint(const Material& material, double volume, double weight,
                              const Mat3& target, const LocalStepOptions& options, Mat3* z) {
  return ProximalPointImpl<3>(material, volume, weight, target, options, z);
}

LocalStepResult ProximalPoint(const Material& material, double volume, double weight,
                              const Mat32& target, const LocalStepOptions& options, Mat32* z) {
  return ProximalPointImpl<2>(material, volume, weight, target, options, z);
}

absl::Status ValidateLocalStepBatch(const LocalStepBatch& batch) {
  if (batch.columns != 2 && batch.columns != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("columns must be 2 (membranes) or 3 (tets), got ", batch.columns));
  }
  const size_t n = batch.volumes.size();
  const size_t size = 3 * static_cast<size_t>(batch.columns);
  if (batch.deformation_gradients.size() != size * n) {
    return absl::InvalidArgumentError(absl::StrCat("deformation_gradients has ",
                                                   batch.deformation_gradients.size(),
                                                   " values, expected ", size * n));
  }
  if (batch.weights.size() != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("weights has ", batch.weights.size(), " values, expected ", n));
  }
  if (!batch.duals.empty() && batch.duals.size() != size * n) {
    return absl::InvalidArgumentError(
        absl::StrCat("duals has ", batch.duals.size(), " values, expected 0 or ", size * n));
  }
  if (batch.projections.size() != size * n) {
    return absl::InvalidArgumentError(
        absl::StrCat("projections has ", batch.projections.size(), " values, expected ", size * n));
  }
  RETURN_IF_ERROR(CheckPositiveFinite(batch.volumes, "volumes"));
  RETURN_IF_ERROR(CheckPositiveFinite(batch.weights, "weights"));
  if (batch.options.max_newton_iterations < 1) {
    return absl::InvalidArgumentError("options.max_newton_iterations must be >= 1");
  }
  return absl::OkStatus();
}

LocalStepStats RunLocalSteps(const LocalStepBatch& batch, int64_t begin, int64_t end) {
  LocalStepStats stats;
  if (batch.columns == 3) {
    RunRange<3>(batch, begin, end, &stats);
  } else {
    RunRange<2>(batch, begin, end, &stats);
  }
  return stats;
}

void AccumulateLocalStepStats(const LocalStepStats& part, LocalStepStats* total) {
  total->elements += part.elements;
  total->newton_iterations += part.newton_iterations;
  total->max_newton_iterations = std::max(total->max_newton_iterations, part.max_newton_iterations);
  total->not_converged += part.not_converged;
}

}  // namespace contactsim::core
