#include "core/dynamics/local_global/system_matrix.h"

#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

namespace contactsim::core {
namespace {

absl::Status CheckPositive(double value, const char* field) {
  if (!std::isfinite(value) || value <= 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("params.", field, ": must be positive and finite, got ", value));
  }
  return absl::OkStatus();
}

absl::Status CheckParams(const SystemMatrixParams& p) {
  RETURN_IF_ERROR(CheckPositive(p.density, "density"));
  RETURN_IF_ERROR(CheckPositive(p.stiffness, "stiffness"));
  return CheckPositive(p.time_step_s, "time_step_s");
}

// Relative size below which an element's rest measure is treated as degenerate.
constexpr double kDegenerateRelative = 1e-14;

// Shared tail: element stiffness blocks w B B^T and lumped masses into Abar.
template <int kVerts, typename Elements>
absl::StatusOr<SystemMatrix> Finish(int n, const Elements& elements, std::vector<double> mass,
                                    SystemMatrix out, double h) {
  for (int v = 0; v < n; ++v) {
    if (mass[v] <= 0.0) {
      return absl::InvalidArgumentError(
          absl::StrCat("vertex ", v, ": referenced by no element (zero mass, A singular)"));
    }
  }
  std::vector<Eigen::Triplet<double, int32_t>> triplets;
  triplets.reserve(static_cast<size_t>(elements.rows()) * kVerts * kVerts + n);
  for (int v = 0; v < n; ++v) triplets.emplace_back(v, v, mass[v]);
  const double h2 = h * h;
  for (Eigen::Index e = 0; e < elements.rows(); ++e) {
    const Eigen::MatrixXd k =
        h2 * out.element_weight[e] * out.element_b[e] * out.element_b[e].transpose();
    for (int a = 0; a < kVerts; ++a) {
      for (int b = 0; b < kVerts; ++b)
        triplets.emplace_back(elements(e, a), elements(e, b), k(a, b));
    }
  }
  out.a_bar.resize(n, n);
  out.a_bar.setFromTriplets(triplets.begin(), triplets.end());  // sums duplicates
  out.a_bar.makeCompressed();
  out.lumped_mass_kg = Eigen::Map<const Eigen::VectorXd>(mass.data(), n);
  return out;
}

template <typename Elements>
absl::Status CheckIndices(const Elements& elements, int n, const char* kind) {
  for (Eigen::Index e = 0; e < elements.rows(); ++e) {
    for (Eigen::Index a = 0; a < elements.cols(); ++a) {
      if (elements(e, a) < 0 || elements(e, a) >= n) {
        return absl::InvalidArgumentError(
            absl::StrCat(kind, " ", e, ": index ", elements(e, a), " out of range [0, ", n, ")"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SystemMatrix> AssembleTetSystemMatrix(const Points3& x, const IndexQuads& tets,
                                                     const SystemMatrixParams& params) {
  RETURN_IF_ERROR(CheckParams(params));
  if (tets.rows() == 0) return absl::InvalidArgumentError("tets: empty (no elements)");
  const int n = static_cast<int>(x.rows());
  RETURN_IF_ERROR(CheckIndices(tets, n, "tet"));
  SystemMatrix out;
  std::vector<double> mass(n, 0.0);
  out.element_b.reserve(tets.rows());
  out.element_weight.reserve(tets.rows());
  Eigen::Matrix<double, 4, 3> e_mat;
  e_mat << -1, -1, -1, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  for (Eigen::Index t = 0; t < tets.rows(); ++t) {
    Mat3 dm;
    for (int c = 0; c < 3; ++c) dm.col(c) = (x.row(tets(t, c + 1)) - x.row(tets(t, 0))).transpose();
    const double volume = dm.determinant() / 6.0;
    const double scale = dm.colwise().norm().maxCoeff();
    if (!(std::abs(volume) > kDegenerateRelative * scale * scale * scale)) {
      return absl::InvalidArgumentError(
          absl::StrCat("tet ", t, ": degenerate (rest volume ", volume, " m^3)"));
    }
    const double v = std::abs(volume);
    out.element_b.push_back(e_mat * dm.inverse());
    out.element_weight.push_back(params.stiffness * v);
    for (int a = 0; a < 4; ++a) mass[tets(t, a)] += params.density * v / 4.0;
  }
  return Finish<4>(n, tets, std::move(mass), std::move(out), params.time_step_s);
}

absl::StatusOr<SystemMatrix> AssembleTriangleSystemMatrix(const Points3& x,
                                                          const IndexTriples& triangles,
                                                          const SystemMatrixParams& params) {
  RETURN_IF_ERROR(CheckParams(params));
  if (triangles.rows() == 0) return absl::InvalidArgumentError("triangles: empty (no elements)");
  const int n = static_cast<int>(x.rows());
  RETURN_IF_ERROR(CheckIndices(triangles, n, "triangle"));
  SystemMatrix out;
  std::vector<double> mass(n, 0.0);
  out.element_b.reserve(triangles.rows());
  out.element_weight.reserve(triangles.rows());
  Eigen::Matrix<double, 3, 2> e_mat;
  e_mat << -1, -1, 1, 0, 0, 1;
  for (Eigen::Index t = 0; t < triangles.rows(); ++t) {
    const Vec3 e1 = (x.row(triangles(t, 1)) - x.row(triangles(t, 0))).transpose();
    const Vec3 e2 = (x.row(triangles(t, 2)) - x.row(triangles(t, 0))).transpose();
    const double area = 0.5 * e1.cross(e2).norm();
    const double scale = std::max(e1.norm(), e2.norm());
    if (!(area > kDegenerateRelative * scale * scale)) {
      return absl::InvalidArgumentError(
          absl::StrCat("triangle ", t, ": degenerate (rest area ", area, " m^2)"));
    }
    // Orthonormal in-plane frame (u along e1, w in the plane, perpendicular to u).
    const Vec3 u = e1.normalized();
    const Vec3 w = (e2 - e2.dot(u) * u).normalized();
    Eigen::Matrix2d dm;
    dm << e1.dot(u), e2.dot(u), e1.dot(w), e2.dot(w);
    out.element_b.push_back(e_mat * dm.inverse());
    out.element_weight.push_back(params.stiffness * area);
    for (int a = 0; a < 3; ++a) mass[triangles(t, a)] += params.density * area / 3.0;
  }
  return Finish<3>(n, triangles, std::move(mass), std::move(out), params.time_step_s);
}

}  // namespace contactsim::core
