#include "core/geometry/convex_polygon2d.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

double Cross(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }

double Shoelace(const std::vector<Vec2>& loop) {
  double twice = 0.0;
  for (size_t k = 0; k < loop.size(); ++k) twice += Cross(loop[k], loop[(k + 1) % loop.size()]);
  return 0.5 * twice;
}

}  // namespace

absl::Status ValidateConvexPolygon(const Points2& polygon, double relative_tolerance) {
  const int n = static_cast<int>(polygon.rows());
  if (n < 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("polygon: ", n, " vertices, a polygon needs at least 3"));
  }
  for (int k = 0; k < n; ++k) {
    for (int c = 0; c < 2; ++c) {
      if (!std::isfinite(polygon(k, c))) {
        return absl::InvalidArgumentError(absl::StrCat("polygon[", k, "]: coordinate ",
                                                       c == 0 ? "x" : "y", " is ", polygon(k, c)));
      }
    }
  }
  for (int k = 0; k < n; ++k) {
    const Vec2 a = (polygon.row((k + 1) % n) - polygon.row(k)).transpose();
    const Vec2 b = (polygon.row((k + 2) % n) - polygon.row((k + 1) % n)).transpose();
    if (!(Cross(a, b) > relative_tolerance * a.norm() * b.norm())) {
      return absl::InvalidArgumentError(
          absl::StrCat("polygon[", (k + 1) % n,
                       "]: turns clockwise or straight (not convex and counter-clockwise)"));
    }
  }
  return absl::OkStatus();
}

double SignedArea(const Points2& polygon) {
  std::vector<Vec2> loop;
  for (int k = 0; k < polygon.rows(); ++k) loop.push_back(polygon.row(k).transpose());
  return Shoelace(loop);
}

double ConvexPolygonIntersectionArea(const Points2& a, const Points2& b) {
  // Relative to a's first vertex, so far-away polygons keep their digits.
  const Vec2 origin = a.row(0).transpose();
  std::vector<Vec2> loop;
  for (int k = 0; k < a.rows(); ++k) loop.push_back(a.row(k).transpose() - origin);
  std::vector<Vec2> next;
  std::vector<double> s;
  const int m = static_cast<int>(b.rows());
  for (int e = 0; e < m && loop.size() >= 3; ++e) {
    // Keep the left of edge p -> q: s = cross(q - p, x - p) >= 0.
    const Vec2 p = b.row(e).transpose() - origin;
    const Vec2 q = b.row((e + 1) % m).transpose() - origin;
    const Vec2 d = q - p;
    s.resize(loop.size());
    for (size_t k = 0; k < loop.size(); ++k) s[k] = Cross(d, loop[k] - p);
    next.clear();
    for (size_t k = 0; k < loop.size(); ++k) {
      const size_t j = (k + 1) % loop.size();
      const bool in_k = s[k] >= 0.0, in_j = s[j] >= 0.0;
      if (in_k) next.push_back(loop[k]);
      if (in_k != in_j) {
        const size_t inside = in_k ? k : j, outside = in_k ? j : k;
        const double t = s[inside] / (s[inside] - s[outside]);
        next.push_back(loop[inside] + t * (loop[outside] - loop[inside]));
      }
    }
    loop.swap(next);
  }
  if (loop.size() < 3) return 0.0;
  return std::max(0.0, Shoelace(loop));
}

double PolygonPenetrationDepth(const Vec2& point, const Points2& body) {
  double depth = std::numeric_limits<double>::infinity();
  const int m = static_cast<int>(body.rows());
  for (int e = 0; e < m; ++e) {
    const Vec2 p = body.row(e).transpose();
    const Vec2 d = body.row((e + 1) % m).transpose() - p;
    depth = std::min(depth, Cross(d, point - p) / d.norm());
  }
  return std::max(0.0, depth);
}

}  // namespace contactsim::core
