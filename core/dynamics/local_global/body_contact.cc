#include "core/dynamics/local_global/body_contact.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/collision/broad_phase/aabb.h"
#include "core/collision/broad_phase/bvh_traversal.h"
#include "core/collision/proximity.h"
#include "core/dynamics/local_global/contact_geometry.h"

namespace contactsim::core {
namespace {

using contact_geometry::kParallelSine;
using contact_geometry::kSameNormal;
using contact_geometry::PlaneBarycentric;
using contact_geometry::PointsBox;
using contact_geometry::Row;

// A projection with a barycentric weight above 1 minus this lies on the triangle's vertex.
constexpr double kCoincidentWeight = 1e-6;
// Barycentrics / edge parameters this close to the boundary belong to the other kinds.
constexpr double kBoundaryParameter = 1e-9;

Vec3 FaceNormal(const Points3& x, const IndexTriples& faces, int32_t f) {
  const Vec3 a = Row(x, faces(f, 0));
  return (Row(x, faces(f, 1)) - a).cross(Row(x, faces(f, 2)) - a).normalized();
}

struct Candidate {
  double distance_m = 0.0;  // |signed distance|
  bool behind = false;      // signed distance < 0
  VertexContact contact;
};

}  // namespace

BodyContactDetector::~BodyContactDetector() = default;

absl::StatusOr<std::unique_ptr<BodyContactDetector>> BodyContactDetector::Create(
    const TriangleMesh& surface, std::vector<int32_t> vertex_body,
    const BodyContactOptions& options) {
  if (!(std::isfinite(options.friction_coefficient) && options.friction_coefficient >= 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("body_contact.friction_coefficient: must be finite and >= 0, got ",
                     options.friction_coefficient));
  }
  if (static_cast<int>(vertex_body.size()) != surface.num_vertices()) {
    return absl::InvalidArgumentError(absl::StrCat("vertex_body: has ", vertex_body.size(),
                                                   " entries, expected ", surface.num_vertices()));
  }
  if (options.self_contact &&
      !(std::isfinite(options.self_exclusion_m) && options.self_exclusion_m > 0.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "body_contact.self_exclusion_m: must be finite and > 0 with self_contact, got ",
        options.self_exclusion_m));
  }
  auto detector = std::unique_ptr<BodyContactDetector>(new BodyContactDetector());
  detector->options_ = options;
  detector->rest_m_ = surface.vertices();
  detector->vertex_body_ = std::move(vertex_body);
  detector->faces_ = surface.faces();
  detector->edges_ = surface.edges();
  std::vector<bool> on_surface(surface.num_vertices(), false);
  for (int f = 0; f < surface.num_faces(); ++f) {
    for (int k = 0; k < 3; ++k) on_surface[surface.faces()(f, k)] = true;
  }
  detector->vertex_face_offsets_.assign(1, 0);
  for (int v = 0; v < surface.num_vertices(); ++v) {
    if (on_surface[v]) detector->surface_vertices_.push_back(v);
    detector->vertex_face_ids_.insert(detector->vertex_face_ids_.end(),
                                      surface.vertex_faces_begin(v), surface.vertex_faces_end(v));
    detector->vertex_face_offsets_.push_back(
        static_cast<int32_t>(detector->vertex_face_ids_.size()));
  }
  std::vector<std::pair<int32_t, int32_t>> face_pairs;
  for (int e = 0; e < surface.num_edges(); ++e) {
    if (surface.edge_face_count(e) != 2) continue;  // a closed surface has two faces per edge
    const int32_t* f = surface.edge_faces_begin(e);
    const Vec3 n0 = FaceNormal(surface.vertices(), surface.faces(), f[0]);
    const Vec3 n1 = FaceNormal(surface.vertices(), surface.faces(), f[1]);
    if (n0.dot(n1) > 1.0 - kSameNormal) continue;  // flat in the rest shape
    detector->sharp_edges_.push_back(e);
    face_pairs.emplace_back(f[0], f[1]);
  }
  detector->sharp_edge_faces_.resize(static_cast<Eigen::Index>(face_pairs.size()), 2);
  for (size_t i = 0; i < face_pairs.size(); ++i) {
    detector->sharp_edge_faces_(static_cast<Eigen::Index>(i), 0) = face_pairs[i].first;
    detector->sharp_edge_faces_(static_cast<Eigen::Index>(i), 1) = face_pairs[i].second;
  }
  return detector;
}

absl::Status BodyContactDetector::Detect(const Points3& x_m, const std::vector<int32_t>& free_index,
                                         double proximity_m, std::vector<VertexContact>* contacts) {
  if (!(std::isfinite(proximity_m) && proximity_m >= 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("proximity_m: must be finite and >= 0, got ", proximity_m));
  }
  if (static_cast<Eigen::Index>(free_index.size()) != x_m.rows() ||
      x_m.rows() != static_cast<Eigen::Index>(vertex_body_.size())) {
    return absl::InvalidArgumentError(absl::StrCat("x_m, free_index: have ", x_m.rows(), " and ",
                                                   free_index.size(), " rows, expected ",
                                                   vertex_body_.size()));
  }
  if (!options_.enabled) return absl::OkStatus();
  auto free_of = [&](int32_t v) { return free_index[v]; };
  auto finish = [&](VertexContact* c) {
    c->friction_coefficient = options_.friction_coefficient;
    TangentBasis(c->normal, &c->tangent1, &c->tangent2);
    c->offset_m = 0.0;
    c->free_vertex = free_of(c->vertex);
    for (int k = 0; k < kMaxExtraContactVertices; ++k) {
      c->extra_free_vertices[k] = c->extra_vertices[k] >= 0 ? free_of(c->extra_vertices[k]) : -1;
    }
  };
  auto all_pinned = [&](std::initializer_list<int32_t> vertices) {
    for (int32_t v : vertices) {
      if (free_index[v] >= 0) return false;
    }
    return true;
  };

  face_normals_.resize(faces_.rows());
  for (Eigen::Index f = 0; f < faces_.rows(); ++f) {
    face_normals_[f] = FaceNormal(x_m, faces_, static_cast<int32_t>(f));
  }
  auto vertex_normal = [&](int32_t v) -> Vec3 {
    Vec3 sum = Vec3::Zero();
    for (int32_t k = vertex_face_offsets_[v]; k < vertex_face_offsets_[v + 1]; ++k) {
      sum += face_normals_[vertex_face_ids_[k]];
    }
    return sum;
  };
  std::vector<Aabb> boxes(surface_vertices_.size());
  for (size_t i = 0; i < surface_vertices_.size(); ++i) {
    boxes[i] = PointsBox({Row(x_m, surface_vertices_[i])}, proximity_m);
  }
  vertex_tree_.Update(boxes);
  boxes.resize(faces_.rows());
  for (Eigen::Index f = 0; f < faces_.rows(); ++f) {
    boxes[f] =
        PointsBox({Row(x_m, faces_(f, 0)), Row(x_m, faces_(f, 1)), Row(x_m, faces_(f, 2))}, 0.0);
  }
  face_tree_.Update(boxes);
  boxes.resize(sharp_edges_.size());
  for (size_t i = 0; i < sharp_edges_.size(); ++i) {
    const int32_t e = sharp_edges_[i];
    boxes[i] = PointsBox({Row(x_m, edges_(e, 0)), Row(x_m, edges_(e, 1))}, proximity_m);
  }
  edge_tree_.Update(boxes);

  std::vector<VertexContact> found;
  // Vertex-triangle: candidates per (vertex, other body), then the closest per distinct normal.
  std::vector<Candidate> candidates;
  auto flush = [&]() {
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) {
                       return std::tie(a.contact.obstacle, a.distance_m) <
                              std::tie(b.contact.obstacle, b.distance_m);
                     });
    std::vector<VertexContact> kept;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const Candidate& cand = candidates[i];
      // A vertex behind a face is only that face's business when the face is its closest one
      // on that body: a vertex resting on a top face near the rim is also behind the side
      // face, by its distance to the rim, and must not be pushed out sideways.
      if (cand.behind && i > 0 && candidates[i - 1].contact.obstacle == cand.contact.obstacle) {
        continue;
      }
      bool duplicate = false;
      for (const VertexContact& c : kept) {
        if (c.obstacle == cand.contact.obstacle &&
            c.normal.dot(cand.contact.normal) > 1.0 - kSameNormal) {
          duplicate = true;
        }
      }
      if (!duplicate) kept.push_back(cand.contact);
    }
    found.insert(found.end(), kept.begin(), kept.end());
    candidates.clear();
  };
  int32_t current_vertex = -1;
  for (const auto& [vi, f] : FindOverlaps(vertex_tree_, face_tree_)) {
    const int32_t v = surface_vertices_[vi];
    if (v != current_vertex) {
      flush();
      current_vertex = v;
    }
    const int32_t t[3] = {faces_(f, 0), faces_(f, 1), faces_(f, 2)};
    const int32_t other = vertex_body_[t[0]];
    if (other == vertex_body_[v]) {
      if (!options_.self_contact) continue;
      const PointTriangleProximity rest = PointTriangleClosest(
          Row(rest_m_, v), Row(rest_m_, t[0]), Row(rest_m_, t[1]), Row(rest_m_, t[2]));
      if (rest.distance_squared_m2 < options_.self_exclusion_m * options_.self_exclusion_m) {
        continue;  // rest neighbours
      }
    }
    if (all_pinned({v, t[0], t[1], t[2]})) continue;
    const Vec3 p = Row(x_m, v);
    const Vec3 a = Row(x_m, t[0]), b = Row(x_m, t[1]), c = Row(x_m, t[2]);
    const Vec3 w = PlaneBarycentric(p, a, b, c);
    if (!w.allFinite() || w.minCoeff() < -kBoundaryParameter) continue;
    // A vertex on a vertex of the other body is found from both sides with the same row (up to
    // sign): keep the direction whose vertex id is the smaller.
    Eigen::Index corner = 0;
    if (w.maxCoeff(&corner) > 1.0 - kCoincidentWeight && t[corner] < v) continue;
    const Vec3& n = face_normals_[f];
    if (!(vertex_normal(v).dot(n) < 0.0)) continue;  // the surfaces do not face each other
    const double signed_distance = n.dot(p - a);
    if (!(std::abs(signed_distance) < proximity_m)) continue;
    Candidate cand;
    cand.distance_m = std::abs(signed_distance);
    cand.behind = signed_distance < 0.0;
    VertexContact& contact = cand.contact;
    contact.kind = ContactKind::kBodyVertexTriangle;
    contact.vertex = v;
    contact.weight = 1.0;
    contact.extra_vertices = {t[0], t[1], t[2]};
    contact.extra_weights = {-w[0], -w[1], -w[2]};
    contact.obstacle = other;
    contact.feature = f;
    contact.normal = n;
    finish(&contact);
    candidates.push_back(cand);
  }
  flush();

  // Edge-edge between sharp edges of different bodies (or far apart at rest on one body).
  for (const auto& [ia, ib] : FindSelfOverlaps(edge_tree_)) {
    const int32_t ea = sharp_edges_[ia], eb = sharp_edges_[ib];
    const int32_t a0 = edges_(ea, 0), a1 = edges_(ea, 1);
    const int32_t b0 = edges_(eb, 0), b1 = edges_(eb, 1);
    if (vertex_body_[a0] == vertex_body_[b0]) {
      if (!options_.self_contact) continue;
      const SegmentSegmentProximity rest = SegmentSegmentClosest(
          Row(rest_m_, a0), Row(rest_m_, a1), Row(rest_m_, b0), Row(rest_m_, b1));
      if (rest.distance_squared_m2 < options_.self_exclusion_m * options_.self_exclusion_m) {
        continue;  // rest neighbours
      }
    }
    if (all_pinned({a0, a1, b0, b1})) continue;
    const Vec3 pa0 = Row(x_m, a0), pa1 = Row(x_m, a1);
    const Vec3 pb0 = Row(x_m, b0), pb1 = Row(x_m, b1);
    const SegmentSegmentProximity s = SegmentSegmentClosest(pa0, pa1, pb0, pb1);
    if (s.s <= kBoundaryParameter || s.s >= 1.0 - kBoundaryParameter || s.u <= kBoundaryParameter ||
        s.u >= 1.0 - kBoundaryParameter) {
      continue;
    }
    if (!(std::sqrt(s.distance_squared_m2) < proximity_m)) continue;
    const Vec3 cross = (pa1 - pa0).normalized().cross((pb1 - pb0).normalized());
    if (cross.norm() < kParallelSine) continue;
    auto outward = [&](int32_t sharp_index) -> Vec3 {
      return face_normals_[sharp_edge_faces_(sharp_index, 0)] +
             face_normals_[sharp_edge_faces_(sharp_index, 1)];
    };
    const Vec3 outward_a = outward(ia), outward_b = outward(ib);
    if (!(outward_a.dot(outward_b) < 0.0)) continue;  // the edges do not face each other
    Vec3 n = cross.normalized();
    if (n.dot(outward_b - outward_a) < 0.0) n = -n;  // from B into A
    // Edges already crossed by more than a tenth of the proximity are not a touching pair (e.g. a
    // rim edge lying inside the other body's face region): the vertex-triangle rows hold there.
    if (n.dot(s.closest_on_ab - s.closest_on_cd) < -0.1 * proximity_m) continue;
    VertexContact c;
    c.kind = ContactKind::kBodyEdgeEdge;
    c.vertex = a0;
    c.weight = 1.0 - s.s;
    c.extra_vertices = {a1, b0, b1};
    c.extra_weights = {s.s, -(1.0 - s.u), -s.u};
    c.obstacle = vertex_body_[b0];
    c.feature = eb;
    c.normal = n;
    finish(&c);
    found.push_back(c);
  }

  auto key = [](const VertexContact& c) {
    return std::make_tuple(static_cast<int>(c.kind), c.vertex, c.extra_vertices[0],
                           c.extra_vertices[1], c.extra_vertices[2], c.obstacle, c.feature);
  };
  std::stable_sort(found.begin(), found.end(),
                   [&](const VertexContact& a, const VertexContact& b) { return key(a) < key(b); });
  contacts->insert(contacts->end(), found.begin(), found.end());
  return absl::OkStatus();
}

}  // namespace contactsim::core
