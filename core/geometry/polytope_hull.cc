#include "core/geometry/polytope_hull.h"

#include <Eigen/Geometry>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

extern "C" {
#include "libqhull_r/qhull_ra.h"
}

namespace contactsim::core {
namespace {

absl::Status CheckPoints(const Points3& points, double relative_tolerance) {
  const int n = static_cast<int>(points.rows());
  if (n < 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("points: ", n, " given, a hull needs at least 4"));
  }
  static constexpr const char* kAxes[] = {"x", "y", "z"};
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      if (!std::isfinite(points(i, k))) {
        return absl::InvalidArgumentError(
            absl::StrCat("points[", i, "]: coordinate ", kAxes[k], " is ", points(i, k)));
      }
    }
  }
  // The thinnest extent: the spread along the principal axis of least variance (exact zero for
  // coplanar points up to rounding). Qhull would also refuse these, with a long message.
  const Vec3 mean = points.colwise().mean().transpose();
  const Eigen::MatrixX3d centered = points.rowwise() - mean.transpose();
  const double diagonal = (points.colwise().maxCoeff() - points.colwise().minCoeff()).norm();
  const double tol = relative_tolerance * diagonal;
  if (!(diagonal > 0.0)) {
    return absl::InvalidArgumentError(absl::StrCat("points: all ", n, " points coincide"));
  }
  Eigen::JacobiSVD<Eigen::MatrixX3d> svd(centered, Eigen::ComputeThinV);
  const Eigen::Matrix3d axes = svd.matrixV();
  const auto spread = [&](int k) {
    const Eigen::VectorXd s = centered * axes.col(k);
    return s.maxCoeff() - s.minCoeff();
  };
  if (spread(1) <= tol) {
    return absl::InvalidArgumentError(absl::StrCat("points: all ", n, " points lie on one line"));
  }
  if (const double thickness = spread(2); thickness <= tol) {
    return absl::InvalidArgumentError(
        absl::StrCat("points: all ", n, " points lie in one plane (thickness ", thickness, " m)"));
  }
  return absl::OkStatus();
}

// Qhull's facets as point-id loops (counter-clockwise about the outward normal), or its error.
absl::StatusOr<std::vector<std::vector<int32_t>>> QhullFacets(const Points3& points) {
  std::vector<coordT> coords(points.data(), points.data() + points.size());  // row-major x y z
  char* message = nullptr;
  size_t message_size = 0;
  FILE* errfile = open_memstream(&message, &message_size);
  qhT qh_storage;
  qhT* qh = &qh_storage;
  qh_zero(qh, errfile);
  char command[] = "qhull";
  const int exit_code = qh_new_qhull(qh, 3, static_cast<int>(points.rows()), coords.data(), False,
                                     command, nullptr, errfile);
  std::vector<std::vector<int32_t>> loops;
  if (exit_code == 0) {
    facetT* facet;
    vertexT* vertex;
    vertexT** vertexp;
    FORALLfacets {
      const Vec3 normal(facet->normal[0], facet->normal[1], facet->normal[2]);
      std::vector<int32_t> ids;
      FOREACHvertex_(facet->vertices) { ids.push_back(qh_pointid(qh, vertex->point)); }
      Vec3 center = Vec3::Zero();
      for (int32_t id : ids) center += points.row(id).transpose();
      center /= static_cast<double>(ids.size());
      const Vec3 u = (points.row(ids[0]).transpose() - center).normalized();
      const Vec3 w = normal.cross(u);
      std::vector<std::pair<double, int32_t>> by_angle;
      for (int32_t id : ids) {
        const Vec3 r = points.row(id).transpose() - center;
        by_angle.emplace_back(std::atan2(r.dot(w), r.dot(u)), id);
      }
      std::sort(by_angle.begin(), by_angle.end());
      std::vector<int32_t> loop;
      for (const auto& [angle, id] : by_angle) loop.push_back(id);
      loops.push_back(std::move(loop));
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  int cur_long = 0, tot_long = 0;
  qh_memfreeshort(qh, &cur_long, &tot_long);
  std::fclose(errfile);
  std::string text = message != nullptr ? std::string(message, message_size) : std::string();
  std::free(message);
  if (exit_code != 0) {
    return absl::InternalError(
        absl::StrCat("points: Qhull failed (code ", exit_code, "): ", text.substr(0, 400)));
  }
  return loops;
}

}  // namespace

absl::StatusOr<ConvexPolytope> ConvexHull(const Points3& points, const PolytopeOptions& options) {
  if (auto status = CheckPoints(points, options.relative_tolerance); !status.ok()) return status;
  auto loops_or = QhullFacets(points);
  if (!loops_or.ok()) return loops_or.status();
  std::vector<std::vector<int32_t>> loops = *std::move(loops_or);

  // A point on a hull edge can stay in a facet as a straight-angle corner: drop such corners so
  // every vertex is a true corner of the polytope.
  bool dropped = true;
  while (dropped) {
    dropped = false;
    for (auto& loop : loops) {
      const size_t m = loop.size();
      for (size_t k = 0; m > 3 && k < m; ++k) {
        const Vec3 prev = points.row(loop[(k + m - 1) % m]).transpose();
        const Vec3 here = points.row(loop[k]).transpose();
        const Vec3 next = points.row(loop[(k + 1) % m]).transpose();
        const Vec3 a = here - prev, b = next - here;
        if (a.cross(b).norm() <= options.relative_tolerance * a.norm() * b.norm()) {
          loop.erase(loop.begin() + static_cast<std::ptrdiff_t>(k));
          dropped = true;
          break;
        }
      }
    }
  }
  // Compact the vertices, numbered in the order of the input points.
  std::map<int32_t, int32_t> new_id;
  for (const auto& loop : loops) {
    for (int32_t id : loop) new_id.emplace(id, 0);
  }
  Points3 vertices(static_cast<Eigen::Index>(new_id.size()), 3);
  int32_t next = 0;
  for (auto& [old_id, id] : new_id) {
    vertices.row(next) = points.row(old_id);
    id = next++;
  }
  for (auto& loop : loops) {
    for (int32_t& id : loop) id = new_id[id];
  }
  auto polytope = ConvexPolytope::Create(std::move(vertices), std::move(loops), options);
  if (!polytope.ok()) {
    return absl::InternalError(
        absl::StrCat("points: Qhull's hull failed validation: ", polytope.status().message()));
  }
  return polytope;
}

absl::StatusOr<ConvexPolytope> ConvexHullOfMesh(const TriangleMesh& mesh,
                                                const PolytopeOptions& options) {
  if (!mesh.is_closed()) return absl::InvalidArgumentError("mesh: not closed");
  return ConvexHull(mesh.vertices(), options);
}

}  // namespace contactsim::core
