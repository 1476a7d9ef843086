#include "core/collision/polytope/polygon_contacts2d.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace contactsim::core {
namespace {

Vec2 Row(const Points2& p, int k) { return p.row(k % p.rows()).transpose(); }

// Outward unit normal of a counter-clockwise polygon's edge k: the edge direction turned -90.
Vec2 OutwardNormal(const Points2& p, int k) {
  const Vec2 d = Row(p, k + 1) - Row(p, k);
  return Vec2(d.y(), -d.x()).normalized();
}

void VertexEdgeCandidates(const Points2& first, const Points2& second, int first_index,
                          const PolygonContactOptions& options, std::vector<PolygonContact>* out) {
  const double config_distance =
      options.configuration_distance_m > 0.0 ? options.configuration_distance_m : options.max_gap_m;
  const int n1 = static_cast<int>(first.rows()), n2 = static_cast<int>(second.rows());
  for (int v = 0; v < n1; ++v) {
    const Vec2 x = Row(first, v);
    for (int k = 0; k < n2; ++k) {
      const Vec2 p0 = Row(second, k), p1 = Row(second, k + 1);
      const Vec2 d = p1 - p0;
      const double t = std::clamp((x - p0).dot(d) / d.squaredNorm(), 0.0, 1.0);
      const double distance = (p0 + t * d - x).norm();
      if (distance > options.max_gap_m) continue;
      const Vec2 eta = OutwardNormal(second, k);
      PolygonContact c;
      c.body1 = first_index;
      c.vertex1 = v;
      c.edge2 = k;
      c.point1_W = x;
      c.normal_W = -eta;
      c.gap_m = eta.dot(x - p0);
      c.distance_m = distance;
      c.applicability = std::numeric_limits<double>::infinity();
      for (int u : {v + n1 - 1, v + 1}) {
        const Vec2 w = Row(first, u) - x;
        c.applicability = std::min(c.applicability, eta.dot(w) / w.norm());
      }
      c.applicable = c.applicability >= options.applicability_threshold;
      if (!c.applicable && !options.include_inapplicable) continue;
      const double to_start = (x - p0).norm(), to_end = (x - p1).norm();
      if (std::min(to_start, to_end) <= config_distance) {
        c.configuration = PolygonConfiguration::kVertexVertex;
        c.near_vertex2 = to_start <= to_end ? k : (k + 1) % n2;
      }
      out->push_back(c);
    }
  }
}

}  // namespace

void FindPolygonContacts(const Points2& a, const Points2& b, const PolygonContactOptions& options,
                         std::vector<PolygonContact>* out) {
  VertexEdgeCandidates(a, b, 0, options, out);
  VertexEdgeCandidates(b, a, 1, options, out);
}

}  // namespace contactsim::core
