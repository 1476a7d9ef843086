#include "core/collision/polytope/potential_contacts.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/collision/polytope/feature_tests.h"

namespace contactsim::core {
namespace {

double PointSegmentDistance(const Vec3& x, const Vec3& p0, const Vec3& p1) {
  const Vec3 d = p1 - p0;
  const double t = std::clamp((x - p0).dot(d) / d.squaredNorm(), 0.0, 1.0);
  return (p0 + t * d - x).norm();
}

// s(v, f) = eta_f . x_v - d_f for every vertex v of `points` and face f of `faces`. A vertex with
// max_f s(v, f) > eps is farther than eps from the convex body `faces` (that plane separates them
// by more); an edge with both ends beyond one plane by more than eps is too.
using PlaneDistances = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void ComputePlaneDistances(const PosedPolytope& points, const PosedPolytope& faces,
                           PlaneDistances* s) {
  s->noalias() = points.vertices() * faces.face_normals().transpose();
  s->rowwise() -= faces.face_offsets_m().transpose();
}

// Edges of `body` that may come within eps of the other body (see PlaneDistances).
void NearEdges(const ConvexPolytope& body, const PlaneDistances& s, double eps,
               std::vector<int32_t>* out) {
  out->clear();
  for (int e = 0; e < body.num_edges(); ++e) {
    const PolytopeEdge& edge = body.edge(e);
    if (!(s.row(edge.tail).array().min(s.row(edge.head).array()) > eps).any()) out->push_back(e);
  }
}

// Per-thread scratch, so that a query allocates only while the arrays grow.
struct Scratch {
  PlaneDistances a_vs_b, b_vs_a;
  std::vector<int32_t> near_edges_a, near_edges_b;
};

double ConfigurationDistance(const PotentialContactOptions& options) {
  return options.configuration_distance_m > 0.0 ? options.configuration_distance_m
                                                : options.max_gap_m;
}

// Keeps or drops a feasible candidate by its applicability; true when kept.
bool Applicable(double appl, const PotentialContactOptions& options, PotentialContact* c,
                PotentialContactStats* stats) {
  c->applicability = appl;
  c->applicable = appl >= options.applicability_threshold;
  if (!c->applicable && !options.include_inapplicable) {
    if (stats != nullptr) ++stats->inapplicable_dropped;
    return false;
  }
  return true;
}

// Vertices of `first` against faces of `second`; body1 = first_index.
void VertexFaceCandidates(const PosedPolytope& first, const PosedPolytope& second,
                          const PlaneDistances& plane_distances, int first_index,
                          const PotentialContactOptions& options,
                          std::vector<PotentialContact>* out, PotentialContactStats* stats) {
  const double eps = options.max_gap_m;
  const double config_distance = ConfigurationDistance(options);
  const double sin_phi = std::sin(options.feasibility_angle_rad);
  const ConvexPolytope& faces = second.shape();
  for (int v = 0; v < first.shape().num_vertices(); ++v) {
    if (plane_distances.row(v).maxCoeff() > eps) continue;
    const Vec3 x = first.vertex(v);
    for (int f = 0; f < faces.num_faces(); ++f) {
      const double psi = plane_distances(v, f);
      if (std::abs(psi) > eps) continue;
      const Vec3 eta = second.face_normal(f);
      const auto loop = faces.face_vertices(f);
      const auto loop_edges = faces.face_edges(f);
      bool inside = true;
      double edge_distance = std::numeric_limits<double>::infinity();
      double corner_distance = std::numeric_limits<double>::infinity();
      int nearest_edge = -1, nearest_corner = -1;
      for (size_t k = 0; k < loop.size(); ++k) {
        const Vec3 p0 = second.vertex(loop[k]);
        const Vec3 p1 = second.vertex(loop[(k + 1) % loop.size()]);
        if ((p1 - p0).cross(x - p0).dot(eta) < 0.0) inside = false;
        if (const double d = PointSegmentDistance(x, p0, p1); d < edge_distance) {
          edge_distance = d;
          nearest_edge = loop_edges[k];
        }
        if (const double d = (x - p0).norm(); d < corner_distance) {
          corner_distance = d;
          nearest_corner = loop[k];
        }
      }
      const double distance = inside ? std::abs(psi) : edge_distance;
      if (distance > eps) continue;
      const bool feasible = inside ? psi >= -options.max_penetration_m : psi >= -distance * sin_phi;
      if (!feasible) continue;
      PotentialContact c;
      c.kind = PotentialContactKind::kVertexFace;
      c.body1 = first_index;
      c.feature1 = v;
      c.feature2 = f;
      c.point1_W = x;
      c.normal_W = -eta;
      c.gap_m = psi;
      c.distance_m = distance;
      if (!Applicable(VertexFaceApplicability(first, v, eta), options, &c, stats)) continue;
      if (corner_distance <= config_distance) {
        c.configuration = FeatureConfiguration::kVertexVertex;
        c.near_vertex2 = nearest_corner;
      } else if (edge_distance <= config_distance) {
        c.configuration = FeatureConfiguration::kVertexEdge;
        c.near_edge2 = nearest_edge;
      }
      out->push_back(c);
    }
  }
}

void EdgeEdgeCandidates(const PosedPolytope& a, const PosedPolytope& b,
                        const std::vector<int32_t>& near_edges_a,
                        const std::vector<int32_t>& near_edges_b,
                        const PotentialContactOptions& options, std::vector<PotentialContact>* out,
                        PotentialContactStats* stats) {
  const double eps = options.max_gap_m;
  const double config_distance = ConfigurationDistance(options);
  const ConvexPolytope& shape_a = a.shape();
  const ConvexPolytope& shape_b = b.shape();
  for (int32_t ea : near_edges_a) {
    const Vec3 a0 = a.vertex(shape_a.edge(ea).tail), a1 = a.vertex(shape_a.edge(ea).head);
    for (int32_t eb : near_edges_b) {
      const Vec3 b0 = b.vertex(shape_b.edge(eb).tail), b1 = b.vertex(shape_b.edge(eb).head);
      const SegmentClosestPoints closest = ClosestPointsOfSegments(a0, a1, b0, b1);
      if (closest.distance_m > eps) continue;
      if (EdgesParallel(a1 - a0, b1 - b0, options.parallel_tolerance)) {
        if (stats != nullptr) ++stats->parallel_edge_pairs;
        continue;
      }
      PotentialContact c;
      c.kind = PotentialContactKind::kEdgeEdge;
      c.configuration = FeatureConfiguration::kEdgeEdge;
      c.body1 = 0;
      c.feature1 = ea;
      c.feature2 = eb;
      c.point1_W = closest.point_p;
      c.normal_W = EdgeEdgeNormal(a, ea, b, eb);
      c.gap_m = c.normal_W.dot(closest.point_q - closest.point_p);
      c.distance_m = closest.distance_m;
      if (!Applicable(EdgeEdgeApplicability(a, ea, b, eb, options.parallel_tolerance), options, &c,
                      stats)) {
        continue;
      }
      const auto near_end = [&](const Vec3& p, const Vec3& tail, const Vec3& head,
                                const PolytopeEdge& edge) {
        const double to_tail = (p - tail).norm(), to_head = (p - head).norm();
        if (std::min(to_tail, to_head) > config_distance) return -1;
        return to_tail <= to_head ? edge.tail : edge.head;
      };
      c.near_vertex1 = near_end(closest.point_p, a0, a1, shape_a.edge(ea));
      c.near_vertex2 = near_end(closest.point_q, b0, b1, shape_b.edge(eb));
      const int ends = (c.near_vertex1 >= 0) + (c.near_vertex2 >= 0);
      if (ends == 1) c.configuration = FeatureConfiguration::kVertexEdge;
      if (ends == 2) c.configuration = FeatureConfiguration::kVertexVertex;
      out->push_back(c);
    }
  }
}

}  // namespace

double FeasibilityDistance(double max_relative_speed_m_per_s, double step_s, double floor_m) {
  return std::max(max_relative_speed_m_per_s * step_s, floor_m);
}

void FindPotentialContacts(const PosedPolytope& a, const PosedPolytope& b,
                           const PotentialContactOptions& options,
                           std::vector<PotentialContact>* out, PotentialContactStats* stats) {
  if ((a.center_m() - b.center_m()).norm() >
      a.bounding_radius_m() + b.bounding_radius_m() + options.max_gap_m) {
    return;
  }
  thread_local Scratch scratch;
  ComputePlaneDistances(a, b, &scratch.a_vs_b);
  ComputePlaneDistances(b, a, &scratch.b_vs_a);
  VertexFaceCandidates(a, b, scratch.a_vs_b, 0, options, out, stats);
  VertexFaceCandidates(b, a, scratch.b_vs_a, 1, options, out, stats);
  NearEdges(a.shape(), scratch.a_vs_b, options.max_gap_m, &scratch.near_edges_a);
  NearEdges(b.shape(), scratch.b_vs_a, options.max_gap_m, &scratch.near_edges_b);
  EdgeEdgeCandidates(a, b, scratch.near_edges_a, scratch.near_edges_b, options, out, stats);
}

void FindPlaneContacts(const PosedPolytope& a, const Vec3& plane_normal_W, double plane_offset_m,
                       const PotentialContactOptions& options, std::vector<PotentialContact>* out,
                       PotentialContactStats* stats) {
  for (int v = 0; v < a.shape().num_vertices(); ++v) {
    const Vec3 x = a.vertex(v);
    const double psi = plane_normal_W.dot(x) - plane_offset_m;
    if (psi > options.max_gap_m) continue;
    PotentialContact c;
    c.body1 = 0;
    c.feature1 = v;
    c.feature2 = -1;
    c.point1_W = x;
    c.normal_W = -plane_normal_W;
    c.gap_m = psi;
    c.distance_m = std::max(psi, 0.0);
    if (!Applicable(VertexFaceApplicability(a, v, plane_normal_W), options, &c, stats)) continue;
    out->push_back(c);
  }
}

}  // namespace contactsim::core
