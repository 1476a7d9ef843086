#include "core/dynamics/local_global/constraint_terms.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

namespace contactsim::core {
namespace {

// Segments shorter than this have no direction; their projection keeps them as they are.
constexpr double kDegenerateSegmentM = 1e-14;

// Index of the waypoint interval containing t and the interpolation weight (times ascending, at
// least one waypoint).
void Locate(const std::vector<double>& times, double t, size_t* k, double* s) {
  if (t <= times.front()) {
    *k = 0;
    *s = 0.0;
    return;
  }
  if (t >= times.back()) {
    *k = times.size() - 1;
    *s = 0.0;
    return;
  }
  const size_t upper = std::upper_bound(times.begin(), times.end(), t) - times.begin();
  *k = upper - 1;
  *s = (t - times[*k]) / (times[upper] - times[*k]);
}

absl::Status CheckTimes(const std::vector<double>& times, size_t values, const std::string& field) {
  if (times.size() != values) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", times.size(), " times but ", values, " values"));
  }
  for (size_t k = 0; k < times.size(); ++k) {
    if (!std::isfinite(times[k]) || (k > 0 && !(times[k] > times[k - 1]))) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, "[", k, "]: times must be finite and strictly increasing"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckCompliance(double alpha, const std::string& field) {
  if (!(std::isfinite(alpha) && alpha > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".compliance_m_per_n: must be finite and > 0, got ", alpha));
  }
  return absl::OkStatus();
}

absl::Status CheckVertex(int32_t v, int n, const std::string& field) {
  if (v < 0 || v >= n) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": no vertex ", v, " (", n, " vertices)"));
  }
  return absl::OkStatus();
}

Vec3 Row(const Points3& x, int32_t i) { return x.row(i).transpose(); }

Points3 Segments(const std::vector<int32_t>& route, const Points3& x_m) {
  Points3 d(route.size() - 1, 3);
  for (size_t j = 0; j + 1 < route.size(); ++j)
    d.row(j) = x_m.row(route[j + 1]) - x_m.row(route[j]);
  return d;
}

}  // namespace

Vec3 DisplacementPath::At(double time_s) const {
  if (times_s.empty()) return Vec3::Zero();
  size_t k;
  double s;
  Locate(times_s, time_s, &k, &s);
  if (s == 0.0) return offsets_m[k];
  return (1.0 - s) * offsets_m[k] + s * offsets_m[k + 1];
}

double Cable::LengthAt(double time_s) const {
  if (length_times_s.empty()) return length_m;
  size_t k;
  double s;
  Locate(length_times_s, time_s, &k, &s);
  if (s == 0.0) return lengths_m[k];
  return (1.0 - s) * lengths_m[k] + s * lengths_m[k + 1];
}

absl::Status ConstraintTerms::SetTargetAnchors(int index, const Points3& anchors_m) {
  if (index < 0 || index >= static_cast<int>(spec_.targets.size())) {
    return absl::InvalidArgumentError(absl::StrCat("targets[", index, "]: there are ",
                                                   spec_.targets.size(), " position targets"));
  }
  PositionTarget& target = spec_.targets[index];
  if (anchors_m.rows() != static_cast<Eigen::Index>(target.vertices.size()) ||
      !anchors_m.allFinite()) {
    return absl::InvalidArgumentError(
        absl::StrCat("targets[", index, "].anchors_m: must be finite with ", target.vertices.size(),
                     " rows, got ", anchors_m.rows()));
  }
  target.anchors_m = anchors_m;
  return absl::OkStatus();
}

absl::StatusOr<ConstraintTerms> ConstraintTerms::Create(const ConstraintTermsSpec& spec,
                                                        int num_vertices) {
  for (size_t c = 0; c < spec.targets.size(); ++c) {
    const PositionTarget& t = spec.targets[c];
    const std::string field = absl::StrCat("constraints.targets[", c, "]");
    if (t.vertices.empty()) return absl::InvalidArgumentError(field + ".vertices: empty");
    std::vector<int32_t> sorted = t.vertices;
    for (size_t i = 0; i < t.vertices.size(); ++i) {
      if (absl::Status s =
              CheckVertex(t.vertices[i], num_vertices, absl::StrCat(field, ".vertices[", i, "]"));
          !s.ok()) {
        return s;
      }
    }
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      return absl::InvalidArgumentError(field + ".vertices: a vertex is repeated");
    }
    if (t.anchors_m.rows() != static_cast<Eigen::Index>(t.vertices.size()) ||
        !t.anchors_m.allFinite()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".anchors_m: must be finite with ",
                                                     t.vertices.size(), " rows, got ",
                                                     t.anchors_m.rows()));
    }
    RETURN_IF_ERROR(CheckTimes(t.path.times_s, t.path.offsets_m.size(), field + ".path"));
    for (size_t k = 0; k < t.path.offsets_m.size(); ++k) {
      if (!t.path.offsets_m[k].allFinite()) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".path.offsets_m[", k, "]: not finite"));
      }
    }
    RETURN_IF_ERROR(CheckCompliance(t.compliance_m_per_n, field));
  }
  for (size_t c = 0; c < spec.cables.size(); ++c) {
    const Cable& cable = spec.cables[c];
    const std::string field = absl::StrCat("constraints.cables[", c, "]");
    if (cable.route.size() < 2) {
      return absl::InvalidArgumentError(field + ".route: needs at least two vertices");
    }
    for (size_t i = 0; i < cable.route.size(); ++i) {
      const std::string entry = absl::StrCat(field, ".route[", i, "]");
      RETURN_IF_ERROR(CheckVertex(cable.route[i], num_vertices, entry));
      if (i > 0 && cable.route[i] == cable.route[i - 1]) {
        return absl::InvalidArgumentError(entry + ": repeats the previous vertex");
      }
    }
    if (!(std::isfinite(cable.length_m) && cable.length_m >= 0.0)) {
      return absl::InvalidArgumentError(field + ".length_m: must be finite and >= 0");
    }
    if (absl::Status s =
            CheckTimes(cable.length_times_s, cable.lengths_m.size(), field + ".lengths");
        !s.ok()) {
      return s;
    }
    for (size_t k = 0; k < cable.lengths_m.size(); ++k) {
      if (!(std::isfinite(cable.lengths_m[k]) && cable.lengths_m[k] >= 0.0)) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".lengths_m[", k, "]: must be finite and >= 0"));
      }
    }
    RETURN_IF_ERROR(CheckCompliance(cable.compliance_m_per_n, field));
    if (!(std::isfinite(cable.admm_weight_n_per_m) && cable.admm_weight_n_per_m >= 0.0)) {
      return absl::InvalidArgumentError(field + ".admm_weight_n_per_m: must be finite and >= 0");
    }
  }
  ConstraintTerms terms(spec);
  for (const Cable& cable : spec.cables) {
    if (cable.admm_weight_n_per_m > 0.0) terms.num_dual_rows_ += cable.route.size() - 1;
  }
  return terms;
}

Points3 ConstraintTerms::ProjectRoute(const Points3& d, double length_m, bool unilateral,
                                      double* mu_m) {
  const int k = static_cast<int>(d.rows());
  const Eigen::VectorXd l = d.rowwise().norm();
  const double total = l.sum();
  double mu = 0.0;
  if (total > length_m) {
    // Shorten: sum_j max(l_j - mu, 0) = L. On the interval where exactly the m longest segments
    // are active the sum is prefix_m - m mu.
    std::vector<double> sorted(l.data(), l.data() + k);
    std::sort(sorted.begin(), sorted.end(), std::greater<double>());
    double prefix = 0.0;
    for (int m = 1; m <= k; ++m) {
      prefix += sorted[m - 1];
      mu = (prefix - length_m) / m;
      const double next = m < k ? sorted[m] : 0.0;
      if (mu >= next) break;
    }
  } else if (total < length_m && !unilateral) {
    mu = (total - length_m) / k;  // lengthen every segment alike (mu < 0)
  }
  if (mu_m != nullptr) *mu_m = mu;
  if (mu == 0.0) return d;
  Points3 p(k, 3);
  for (int j = 0; j < k; ++j) {
    if (l[j] < kDegenerateSegmentM) {
      p.row(j) = d.row(j);
    } else {
      p.row(j) = d.row(j) * (std::max(l[j] - mu, 0.0) / l[j]);
    }
  }
  return p;
}

void ConstraintTerms::AppendSystemMatrix(
    double h, std::vector<Eigen::Triplet<double, int32_t>>* triplets) const {
  const double h2 = h * h;
  for (const PositionTarget& t : spec_.targets) {
    const double w = h2 / t.compliance_m_per_n;
    for (int32_t v : t.vertices) triplets->emplace_back(v, v, w);
  }
  for (const Cable& cable : spec_.cables) {
    const double w = h2 * (cable.admm_weight_n_per_m > 0.0 ? cable.admm_weight_n_per_m
                                                           : 1.0 / cable.compliance_m_per_n);
    for (size_t j = 0; j + 1 < cable.route.size(); ++j) {
      const int32_t a = cable.route[j], b = cable.route[j + 1];
      triplets->emplace_back(a, a, w);
      triplets->emplace_back(b, b, w);
      triplets->emplace_back(a, b, -w);
      triplets->emplace_back(b, a, -w);
    }
  }
}

void ConstraintTerms::AccumulateRightHandSide(const Points3& x_m, double time_s, double h,
                                              Points3* duals, Points3* rhs) const {
  const double h2 = h * h;
  for (const PositionTarget& t : spec_.targets) {
    const double w = h2 / t.compliance_m_per_n;
    const Eigen::RowVector3d offset = t.path.At(time_s).transpose();
    for (size_t i = 0; i < t.vertices.size(); ++i) {
      rhs->row(t.vertices[i]) += w * (t.anchors_m.row(i) + offset);
    }
  }
  int dual_row = 0;
  for (const Cable& cable : spec_.cables) {
    const Points3 d = Segments(cable.route, x_m);
    const double length = cable.LengthAt(time_s);
    const double kappa = 1.0 / cable.compliance_m_per_n;
    const double rho = cable.admm_weight_n_per_m;
    double w = h2 * kappa;
    Points3 p;
    if (rho > 0.0) {
      // ADMM: proximal point of (kappa / 2) dist^2(., C) at q = d + u, then the dual update; the
      // right-hand side takes z - u.
      auto u = duals->middleRows(dual_row, d.rows());
      const Points3 q = d + u;
      const Points3 z =
          q + (kappa / (kappa + rho)) * (ProjectRoute(q, length, cable.unilateral, nullptr) - q);
      u += d - z;
      p = z - u;
      w = h2 * rho;
      dual_row += static_cast<int>(d.rows());
    } else {
      p = ProjectRoute(d, length, cable.unilateral, nullptr);
    }
    for (size_t j = 0; j + 1 < cable.route.size(); ++j) {  // G^T p: d_j = x_{j+1} - x_j
      rhs->row(cable.route[j + 1]) += w * p.row(j);
      rhs->row(cable.route[j]) -= w * p.row(j);
    }
  }
}

double ConstraintTerms::Energy(const Points3& x_m, double time_s) const {
  double energy = 0.0;
  for (const PositionTarget& t : spec_.targets) {
    const Vec3 offset = t.path.At(time_s);
    double sum = 0.0;
    for (size_t i = 0; i < t.vertices.size(); ++i) {
      sum += (Row(x_m, t.vertices[i]) - t.anchors_m.row(i).transpose() - offset).squaredNorm();
    }
    energy += 0.5 * sum / t.compliance_m_per_n;
  }
  for (const Cable& cable : spec_.cables) {
    const Points3 d = Segments(cable.route, x_m);
    const Points3 p = ProjectRoute(d, cable.LengthAt(time_s), cable.unilateral, nullptr);
    energy += 0.5 * (d - p).squaredNorm() / cable.compliance_m_per_n;
  }
  return energy;
}

std::vector<ConstraintReaction> ConstraintTerms::Reactions(const Points3& x_m,
                                                           double time_s) const {
  std::vector<ConstraintReaction> out;
  out.reserve(spec_.targets.size() + spec_.cables.size());
  for (const PositionTarget& t : spec_.targets) {
    const Vec3 offset = t.path.At(time_s);
    ConstraintReaction r;
    for (size_t i = 0; i < t.vertices.size(); ++i) {
      const Vec3 e = t.anchors_m.row(i).transpose() + offset - Row(x_m, t.vertices[i]);
      r.force_n += e / t.compliance_m_per_n;
      r.length_m = std::max(r.length_m, e.norm());
    }
    out.push_back(r);
  }
  for (const Cable& cable : spec_.cables) {
    const Points3 d = Segments(cable.route, x_m);
    ConstraintReaction r;
    r.rest_length_m = cable.LengthAt(time_s);
    double mu = 0.0;
    ProjectRoute(d, r.rest_length_m, cable.unilateral, &mu);
    r.tension_n = mu / cable.compliance_m_per_n;
    r.length_m = d.rowwise().norm().sum();
    out.push_back(r);
  }
  return out;
}

}  // namespace contactsim::core
