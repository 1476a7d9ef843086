#include "core/dynamics/local_global/mesh_contact.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/collision/broad_phase/aabb.h"
#include "core/collision/broad_phase/bvh_traversal.h"
#include "core/collision/proximity.h"
#include "core/dynamics/local_global/contact_geometry.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {
namespace {

using contact_geometry::kParallelSine;
using contact_geometry::kSameNormal;
using contact_geometry::PlaneBarycentric;
using contact_geometry::PointsBox;
using contact_geometry::Row;

// Closest-point parameters this close to an endpoint belong to the vertex kinds.
constexpr double kEndpointParameter = 1e-9;
// Below this distance [m] the side of a point relative to a plane or feature is not decided by
// its sign (two-sided obstacles, open bodies): the closed-surface orientation is kept.
constexpr double kSideDistance = 1e-12;
// Below this |cos| between an open body's triangle normal and a closed obstacle vertex's outward
// direction the side of the vertex decides the triangle-vertex normal instead.
constexpr double kOutwardCosine = 1e-3;

Vec3 FaceNormal(const Vec3& a, const Vec3& b, const Vec3& c) {
  return (b - a).cross(c - a).normalized();
}

// The turn by |w| t about w / |w| (w != 0).
Mat3 RotationAt(const Vec3& angular_velocity_radps, double time_s) {
  const double rate = angular_velocity_radps.norm();
  return Eigen::AngleAxisd(rate * time_s, angular_velocity_radps / rate).toRotationMatrix();
}

// Points turned by `turn` about c, then moved so that c lands on `centre` [m].
Points3 TurnedAbout(const Points3& points, const Mat3& turn, const Vec3& c, const Vec3& centre) {
  return ((points.rowwise() - c.transpose()) * turn.transpose()).rowwise() + centre.transpose();
}

}  // namespace

// Whether the edge or vertex of face f holding a closest point is a feature (sharp) one.
bool MeshContactDetector::ClosestFeatureIsSharp(const Obstacle& o, int32_t f,
                                                TriangleRegion region) {
  switch (region) {
    case TriangleRegion::kFace:
      return true;
    case TriangleRegion::kEdgeAB:
      return o.is_feature_edge[o.face_edges(f, 0)];
    case TriangleRegion::kEdgeBC:
      return o.is_feature_edge[o.face_edges(f, 1)];
    case TriangleRegion::kEdgeCA:
      return o.is_feature_edge[o.face_edges(f, 2)];
    case TriangleRegion::kVertexA:
      return o.is_feature_vertex[o.faces(f, 0)];
    case TriangleRegion::kVertexB:
      return o.is_feature_vertex[o.faces(f, 1)];
    case TriangleRegion::kVertexC:
      return o.is_feature_vertex[o.faces(f, 2)];
  }
  return false;
}

namespace {

struct Candidate {
  double distance_m = 0.0;
  VertexContact contact;
};

}  // namespace

Points3 ObstacleVerticesAt(const TriangleMeshObstacle& obstacle, double time_s) {
  const Vec3 shift = time_s * obstacle.velocity_mps;
  if (obstacle.angular_velocity_radps.isZero(0.0)) {
    return obstacle.vertices_m.rowwise() + shift.transpose();
  }
  return TurnedAbout(obstacle.vertices_m, RotationAt(obstacle.angular_velocity_radps, time_s),
                     obstacle.rotation_center_m, obstacle.rotation_center_m + shift);
}

MeshContactDetector::~MeshContactDetector() = default;

absl::StatusOr<std::unique_ptr<MeshContactDetector>> MeshContactDetector::Create(
    const TriangleMesh& body_surface, const std::vector<TriangleMeshObstacle>& obstacles,
    BodySurfaceKind body_kind) {
  auto detector = std::unique_ptr<MeshContactDetector>(new MeshContactDetector());
  detector->body_kind_ = body_kind;
  for (size_t i = 0; i < obstacles.size(); ++i) {
    const TriangleMeshObstacle& in = obstacles[i];
    const std::string field = absl::StrCat("mesh_obstacles[", i, "]");
    if (!in.velocity_mps.allFinite()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".velocity_mps: not finite"));
    }
    if (!in.angular_velocity_radps.allFinite()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".angular_velocity_radps: not finite"));
    }
    if (!in.rotation_center_m.allFinite()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".rotation_center_m: not finite"));
    }
    if (!(std::isfinite(in.friction_coefficient) && in.friction_coefficient >= 0.0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ".friction_coefficient: must be finite and >= 0, got ", in.friction_coefficient));
    }
    absl::StatusOr<TriangleMesh> mesh = TriangleMesh::Create(in.vertices_m, in.faces);
    if (!mesh.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": ", mesh.status().message()));
    }
    Obstacle o;
    o.vertices_m = in.vertices_m;
    o.faces = in.faces;
    o.edges = mesh->edges();
    o.face_edges = mesh->face_edges();
    o.is_feature_edge.assign(mesh->num_edges(), false);
    o.is_feature_vertex.assign(mesh->num_vertices(), false);
    o.velocity_mps = in.velocity_mps;
    o.friction_coefficient = in.friction_coefficient;
    if (!(std::isfinite(in.thickness_m) && in.thickness_m >= 0.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".thickness_m: must be finite and >= 0, got ", in.thickness_m));
    }
    if (in.thickness_m > 0.0 && !in.two_sided) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".thickness_m: only for two_sided obstacles"));
    }
    o.two_sided = in.two_sided;
    o.half_thickness_m = 0.5 * in.thickness_m;
    std::vector<bool> on_boundary(mesh->num_vertices(), false);
    const int nf = mesh->num_faces();
    o.face_normals.resize(nf);
    for (int f = 0; f < nf; ++f) {
      o.face_normals[f] =
          FaceNormal(Row(o.vertices_m, o.faces(f, 0)), Row(o.vertices_m, o.faces(f, 1)),
                     Row(o.vertices_m, o.faces(f, 2)));
    }
    for (int e = 0; e < mesh->num_edges(); ++e) {
      const int32_t* f = mesh->edge_faces_begin(e);
      const int count = mesh->edge_face_count(e);
      if (count > 2) continue;  // non-manifold edges: no well-defined outward side
      Vec3 normal = o.face_normals[f[0]];
      if (count == 1) {
        on_boundary[o.edges(e, 0)] = on_boundary[o.edges(e, 1)] = true;
      }
      if (count == 2 && o.two_sided) {
        // Both sides free: a bent edge is convex on one of them. The stored normal only seeds
        // the orientation when the side cannot be decided (Detect orients by the body's side).
        const Vec3& n1 = o.face_normals[f[0]];
        const Vec3& n2 = o.face_normals[f[1]];
        if (std::abs(n1.dot(n2)) > 1.0 - kSameNormal) continue;  // flat (either winding)
        normal = n1 + n2;
        if (normal.norm() < kParallelSine) normal = n1;
      } else if (count == 2) {
        const Vec3& n1 = o.face_normals[f[0]];
        const Vec3& n2 = o.face_normals[f[1]];
        if (n1.dot(n2) > 1.0 - kSameNormal) continue;  // flat
        // Convex if the second face's far vertex lies behind the first face's plane.
        const Vec3 a = Row(o.vertices_m, o.edges(e, 0));
        int32_t far = -1;
        for (int k = 0; k < 3; ++k) {
          const int32_t v = o.faces(f[1], k);
          if (v != o.edges(e, 0) && v != o.edges(e, 1)) far = v;
        }
        if (n1.dot(Row(o.vertices_m, far) - a) >= 0.0) continue;  // concave
        normal = n1 + n2;
      }
      o.feature_edges.push_back(e);
      o.is_feature_edge[e] = true;
      o.feature_edge_normals.push_back(normal.normalized());
    }
    for (int v = 0; v < mesh->num_vertices(); ++v) {
      const int32_t* begin = mesh->vertex_faces_begin(v);
      const int32_t* end = mesh->vertex_faces_end(v);
      if (begin == end) continue;
      bool flat = true;
      for (const int32_t* f = begin; f != end; ++f) {
        const double cosine = o.face_normals[*f].dot(o.face_normals[*begin]);
        if ((o.two_sided ? std::abs(cosine) : cosine) <= 1.0 - kSameNormal) flat = false;
      }
      // A codimensional sheet's boundary vertex (a blade's corner) is sharp on its own.
      if (o.two_sided && on_boundary[v]) flat = false;
      if (!flat) {
        Vec3 outward = Vec3::Zero();
        for (const int32_t* f = begin; f != end; ++f) outward += o.face_normals[*f];
        o.feature_vertex_normals.push_back(outward.norm() > 0.0 ? Vec3(outward.normalized())
                                                                : Vec3::Zero());
        o.feature_vertices.push_back(v);
        o.is_feature_vertex[v] = true;
      }
    }
    o.rotating = !in.angular_velocity_radps.isZero(0.0);
    if (o.rotating) {
      o.angular_velocity_radps = in.angular_velocity_radps;
      o.rotation_center_m = in.rotation_center_m;
      o.rest_face_normals = o.face_normals;
      o.rest_feature_edge_normals = o.feature_edge_normals;
      o.rest_feature_vertex_normals = o.feature_vertex_normals;
    }
    detector->obstacles_.push_back(std::move(o));
  }
  const TriangleMesh& surface = body_surface;
  detector->surface_edges_ = surface.edges();
  detector->surface_faces_ = surface.faces();
  std::vector<bool> on_surface(surface.num_vertices(), false);
  for (int f = 0; f < surface.num_faces(); ++f) {
    for (int k = 0; k < 3; ++k) on_surface[surface.faces()(f, k)] = true;
  }
  for (int v = 0; v < surface.num_vertices(); ++v) {
    if (on_surface[v]) detector->surface_vertices_.push_back(v);
  }
  return detector;
}

absl::Status MeshContactDetector::Detect(const Points3& x_m, const std::vector<int32_t>& free_index,
                                         double proximity_m, double elapsed_s, double time_step_s,
                                         std::vector<VertexContact>* contacts) {
  if (!(std::isfinite(proximity_m) && proximity_m >= 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("proximity_m: must be finite and >= 0, got ", proximity_m));
  }
  if (static_cast<Eigen::Index>(free_index.size()) != x_m.rows()) {
    return absl::InvalidArgumentError(
        absl::StrCat("free_index: has ", free_index.size(), " entries, expected ", x_m.rows()));
  }
  if (obstacles_.empty()) return absl::OkStatus();
  // Body primitives grown by the proximity, so every pair within it has overlapping boxes.
  std::vector<Aabb> boxes(surface_vertices_.size());
  for (size_t i = 0; i < surface_vertices_.size(); ++i) {
    boxes[i] = PointsBox({Row(x_m, surface_vertices_[i])}, proximity_m);
  }
  body_vertex_tree_.Update(boxes);
  boxes.resize(surface_edges_.rows());
  for (Eigen::Index e = 0; e < surface_edges_.rows(); ++e) {
    boxes[e] =
        PointsBox({Row(x_m, surface_edges_(e, 0)), Row(x_m, surface_edges_(e, 1))}, proximity_m);
  }
  body_edge_tree_.Update(boxes);
  boxes.resize(surface_faces_.rows());
  for (Eigen::Index f = 0; f < surface_faces_.rows(); ++f) {
    boxes[f] = PointsBox({Row(x_m, surface_faces_(f, 0)), Row(x_m, surface_faces_(f, 1)),
                          Row(x_m, surface_faces_(f, 2))},
                         proximity_m);
  }
  body_face_tree_.Update(boxes);

  std::vector<VertexContact> found;
  for (int32_t k = 0; k < static_cast<int32_t>(obstacles_.size()); ++k) {
    Obstacle& o = obstacles_[k];
    const Vec3 shift = elapsed_s * o.velocity_mps;
    // The obstacle at the step start: translated, or turned about its (moved) centre.
    const Vec3 centre = o.rotation_center_m + shift;
    Points3 y;
    bool moved = false;
    if (!o.rotating) {
      y = o.vertices_m.rowwise() + shift.transpose();
      moved = shift != o.tree_shift;
    } else {
      const Mat3 turn = RotationAt(o.angular_velocity_radps, elapsed_s);
      y = TurnedAbout(o.vertices_m, turn, o.rotation_center_m, centre);
      moved = elapsed_s != o.tree_time_s;
      if (moved) {
        for (size_t f = 0; f < o.face_normals.size(); ++f) {
          o.face_normals[f] = turn * o.rest_face_normals[f];
        }
        for (size_t e = 0; e < o.feature_edge_normals.size(); ++e) {
          o.feature_edge_normals[e] = turn * o.rest_feature_edge_normals[e];
        }
        for (size_t v = 0; v < o.feature_vertex_normals.size(); ++v) {
          o.feature_vertex_normals[v] = turn * o.rest_feature_vertex_normals[v];
        }
        o.tree_time_s = elapsed_s;
      }
    }
    if (o.face_tree.empty() || moved) {
      std::vector<Aabb> obstacle_boxes(o.faces.rows());
      for (Eigen::Index f = 0; f < o.faces.rows(); ++f) {
        obstacle_boxes[f] =
            PointsBox({Row(y, o.faces(f, 0)), Row(y, o.faces(f, 1)), Row(y, o.faces(f, 2))},
                      o.half_thickness_m);
      }
      o.face_tree.Update(obstacle_boxes);
      obstacle_boxes.resize(o.feature_edges.size());
      for (size_t i = 0; i < o.feature_edges.size(); ++i) {
        const int32_t e = o.feature_edges[i];
        obstacle_boxes[i] =
            PointsBox({Row(y, o.edges(e, 0)), Row(y, o.edges(e, 1))}, o.half_thickness_m);
      }
      o.edge_tree.Update(obstacle_boxes);
      obstacle_boxes.resize(o.feature_vertices.size());
      for (size_t i = 0; i < o.feature_vertices.size(); ++i) {
        obstacle_boxes[i] = PointsBox({Row(y, o.feature_vertices[i])}, o.half_thickness_m);
      }
      o.vertex_tree.Update(obstacle_boxes);
      o.tree_shift = shift;
    }
    // The non-penetration row holds against the obstacle point at the step end: offset + h n . u
    // with u the point's velocity (first order in h for a rotating obstacle, see the header).
    const Vec3 step_motion = time_step_s * o.velocity_mps;
    const double reach_m = proximity_m + o.half_thickness_m;  // distances below it are pairs
    auto finish = [&](VertexContact* c, const Vec3& obstacle_point) {
      c->obstacle = k;
      c->friction_coefficient = o.friction_coefficient;
      TangentBasis(c->normal, &c->tangent1, &c->tangent2);
      if (!o.rotating) {
        c->obstacle_velocity_mps = o.velocity_mps;
        c->offset_m = c->normal.dot(obstacle_point + step_motion) + o.half_thickness_m;
      } else {
        const Vec3 point_velocity =
            o.velocity_mps + o.angular_velocity_radps.cross(obstacle_point - centre);
        c->obstacle_velocity_mps = point_velocity;
        c->offset_m =
            c->normal.dot(obstacle_point + time_step_s * point_velocity) + o.half_thickness_m;
      }
    };

    // Vertex-triangle: candidates per body vertex, then the closest per distinct normal.
    std::vector<Candidate> candidates;
    auto flush = [&]() {
      std::sort(candidates.begin(), candidates.end(),
                [](const Candidate& a, const Candidate& b) { return a.distance_m < b.distance_m; });
      std::vector<VertexContact> kept;
      for (const Candidate& cand : candidates) {
        bool duplicate = false;
        for (const VertexContact& c : kept) {
          if (c.normal.dot(cand.contact.normal) > 1.0 - kSameNormal) duplicate = true;
        }
        if (!duplicate) kept.push_back(cand.contact);
      }
      std::sort(kept.begin(), kept.end(), [](const VertexContact& a, const VertexContact& b) {
        return a.feature < b.feature;
      });
      found.insert(found.end(), kept.begin(), kept.end());
      candidates.clear();
    };
    int32_t current_vertex = -1;
    for (const auto& [vi, f] : FindOverlaps(body_vertex_tree_, o.face_tree)) {
      const int32_t v = surface_vertices_[vi];
      if (v != current_vertex) {
        flush();
        current_vertex = v;
      }
      if (free_index[v] < 0) continue;
      const Vec3 p = Row(x_m, v);
      const Vec3 a = Row(y, o.faces(f, 0)), b = Row(y, o.faces(f, 1)), c = Row(y, o.faces(f, 2));
      const Vec3& nf = o.face_normals[f];
      const Vec3 w = PlaneBarycentric(p, a, b, c);
      Candidate cand;
      Vec3 obstacle_point;
      const double plane_distance_m = nf.dot(p - a);
      if (w.minCoeff() >= -kEndpointParameter) {
        // Over (or under) the face: the face normal, signed plane distance. A two-sided face
        // pushes towards the side the vertex is on now.
        cand.contact.normal =
            o.two_sided && plane_distance_m < -kSideDistance ? Vec3(-nf) : Vec3(nf);
        obstacle_point = p - plane_distance_m * nf;
        cand.distance_m = std::abs(plane_distance_m);
      } else {
        // Behind the plane, outside the face: a closed obstacle's other face owns the vertex.
        if (!o.two_sided && plane_distance_m < 0.0) continue;
        const PointTriangleProximity q = PointTriangleClosest(p, a, b, c);
        if (!ClosestFeatureIsSharp(o, f, q.region)) continue;  // a neighbour's face covers it
        cand.distance_m = std::sqrt(q.distance_squared_m2);
        if (cand.distance_m == 0.0) continue;  // on the face's plane outside it: an edge's pair
        cand.contact.normal = (p - q.closest_point) / cand.distance_m;
        obstacle_point = q.closest_point;
      }
      if (cand.distance_m >= reach_m) continue;
      cand.contact.kind = ContactKind::kVertexTriangle;
      cand.contact.vertex = v;
      cand.contact.free_vertex = free_index[v];
      cand.contact.feature = f;
      finish(&cand.contact, obstacle_point);
      candidates.push_back(cand);
    }
    flush();

    // Edge-edge: body surface edges against the obstacle's feature edges.
    for (const auto& [be, fi] : FindOverlaps(body_edge_tree_, o.edge_tree)) {
      const int32_t v0 = surface_edges_(be, 0), v1 = surface_edges_(be, 1);
      if (free_index[v0] < 0 && free_index[v1] < 0) continue;
      const int32_t e = o.feature_edges[fi];
      const Vec3 p0 = Row(x_m, v0), p1 = Row(x_m, v1);
      const Vec3 q0 = Row(y, o.edges(e, 0)), q1 = Row(y, o.edges(e, 1));
      const SegmentSegmentProximity s = SegmentSegmentClosest(p0, p1, q0, q1);
      if (s.s <= kEndpointParameter || s.s >= 1.0 - kEndpointParameter ||
          s.u <= kEndpointParameter || s.u >= 1.0 - kEndpointParameter) {
        continue;
      }
      if (std::sqrt(s.distance_squared_m2) >= reach_m) continue;
      const Vec3 cross = (p1 - p0).normalized().cross((q1 - q0).normalized());
      if (cross.norm() < kParallelSine) continue;
      Vec3 n = cross.normalized();
      const Vec3 separation = s.closest_on_ab - s.closest_on_cd;  // obstacle -> body
      if (o.two_sided && std::abs(n.dot(separation)) > kSideDistance) {
        if (n.dot(separation) < 0.0) n = -n;  // towards the side the body edge is on
      } else if (n.dot(o.feature_edge_normals[fi]) < 0.0) {
        n = -n;
      }
      VertexContact c;
      c.kind = ContactKind::kEdgeEdge;
      c.vertex = v0;
      c.free_vertex = free_index[v0];
      c.weight = 1.0 - s.s;
      c.extra_vertices = {v1, -1, -1};
      c.extra_free_vertices = {free_index[v1], -1, -1};
      c.extra_weights = {s.s, 0.0, 0.0};
      c.feature = e;
      c.normal = n;
      finish(&c, s.closest_on_cd);
      found.push_back(c);
    }

    // Triangle-vertex: body surface triangles against the obstacle's feature vertices.
    std::set<std::tuple<int32_t, int32_t, int32_t>> apex_edges;  // (edge v0 < v1, vertex) done
    for (const auto& [bf, fi] : FindOverlaps(body_face_tree_, o.vertex_tree)) {
      const int32_t v[3] = {surface_faces_(bf, 0), surface_faces_(bf, 1), surface_faces_(bf, 2)};
      if (free_index[v[0]] < 0 && free_index[v[1]] < 0 && free_index[v[2]] < 0) continue;
      const int32_t ov = o.feature_vertices[fi];
      const Vec3 point = Row(y, ov);
      const Vec3 a = Row(x_m, v[0]), b = Row(x_m, v[1]), c3 = Row(x_m, v[2]);
      const PointTriangleProximity q = PointTriangleClosest(point, a, b, c3);
      if (std::sqrt(q.distance_squared_m2) >= reach_m) continue;
      const int edge_slot = q.region == TriangleRegion::kEdgeAB   ? 0
                            : q.region == TriangleRegion::kEdgeBC ? 1
                            : q.region == TriangleRegion::kEdgeCA ? 2
                                                                  : -1;
      if (body_kind_ == BodySurfaceKind::kOpenTwoSided && edge_slot >= 0) {
        // An obstacle vertex (an apex) closest to the inside of a cloth edge: no face contact
        // holds that edge there, and it can slide over the apex and be pierced within the step.
        // One vertex-edge contact per (edge, vertex), normal from the apex to the edge point.
        int32_t e0 = v[edge_slot], e1 = v[(edge_slot + 1) % 3];
        double w0 = q.weights[edge_slot], w1 = q.weights[(edge_slot + 1) % 3];
        if (e0 > e1) {  // one representation per edge, whichever triangle found it
          std::swap(e0, e1);
          std::swap(w0, w1);
        }
        const double distance_m = std::sqrt(q.distance_squared_m2);
        if (distance_m <= kSideDistance) continue;
        if (!apex_edges.insert({e0, e1, ov}).second) continue;
        VertexContact c;
        c.kind = ContactKind::kTriangleVertex;
        c.vertex = e0;
        c.free_vertex = free_index[e0];
        c.weight = w0;
        c.extra_vertices = {e1, -1};
        c.extra_free_vertices = {free_index[e1], -1};
        c.extra_weights = {w1, 0.0};
        c.feature = ov;
        c.normal = (q.closest_point - point) / distance_m;
        if (!o.two_sided && c.normal.dot(o.feature_vertex_normals[fi]) < 0.0) {
          c.normal = -c.normal;  // the edge point got inside the closed obstacle: push it out
        }
        finish(&c, point);
        found.push_back(c);
        continue;
      }
      if (q.region != TriangleRegion::kFace) continue;
      VertexContact c;
      c.kind = ContactKind::kTriangleVertex;
      c.vertex = v[0];
      c.free_vertex = free_index[v[0]];
      c.weight = q.weights[0];
      c.extra_vertices = {v[1], v[2], -1};
      c.extra_free_vertices = {free_index[v[1]], free_index[v[2]], -1};
      c.extra_weights = {q.weights[1], q.weights[2], 0.0};
      c.feature = ov;
      // From the obstacle vertex into the body's free side: a closed body's triangle faces
      // outward, so that is minus its normal. An open surface (cloth) is free on both sides: it
      // is pushed along a closed obstacle vertex's outward side (also when the vertex already got
      // through it within the last step), or away from the side a two-sided one is on now.
      const Vec3 face_normal = FaceNormal(a, b, c3);
      c.normal = -face_normal;
      if (body_kind_ == BodySurfaceKind::kOpenTwoSided) {
        const double outward = face_normal.dot(o.feature_vertex_normals[fi]);
        if (!o.two_sided && std::abs(outward) >= kOutwardCosine) {
          if (outward > 0.0) c.normal = face_normal;  // n along the vertex's outward side
        } else if (face_normal.dot(point - q.closest_point) < -kSideDistance) {
          c.normal = face_normal;  // the obstacle vertex is on the triangle's back side
        }
      }
      finish(&c, point);
      found.push_back(c);
    }
  }
  auto key = [](const VertexContact& c) {
    return std::make_tuple(static_cast<int>(c.kind), c.vertex, c.extra_vertices[0],
                           c.extra_vertices[1], c.obstacle, c.feature);
  };
  std::stable_sort(found.begin(), found.end(),
                   [&](const VertexContact& a, const VertexContact& b) { return key(a) < key(b); });
  contacts->insert(contacts->end(), found.begin(), found.end());
  return absl::OkStatus();
}

}  // namespace contactsim::core
