#include "core/geometry/polytope.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

int64_t HalfEdgeKey(int32_t a, int32_t b, int64_t n) { return int64_t{a} * n + b; }

std::string EdgeName(int32_t a, int32_t b) {
  return absl::StrCat("edge (", std::min(a, b), ", ", std::max(a, b), ")");
}

absl::Status CheckSizesAndIndices(const Points3& vertices,
                                  const std::vector<std::vector<int32_t>>& faces,
                                  int max_vertices) {
  const int64_t n = vertices.rows();
  if (n < 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("vertices: ", n, " given, a polytope needs at least 4"));
  }
  if (n > max_vertices) {
    return absl::InvalidArgumentError(
        absl::StrCat("vertices: ", n, " exceed the limit of ", max_vertices, " for a polytope"));
  }
  if (faces.size() < 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("faces: ", faces.size(), " given, a polytope needs at least 4"));
  }
  static constexpr const char* kAxes[] = {"x", "y", "z"};
  for (int v = 0; v < n; ++v) {
    for (int k = 0; k < 3; ++k) {
      if (!std::isfinite(vertices(v, k))) {
        return absl::InvalidArgumentError(
            absl::StrCat("vertices[", v, "]: coordinate ", kAxes[k], " is ", vertices(v, k)));
      }
    }
  }
  std::vector<int> uses(n, 0);
  for (size_t f = 0; f < faces.size(); ++f) {
    const auto& loop = faces[f];
    if (loop.size() < 3) {
      return absl::InvalidArgumentError(
          absl::StrCat("faces[", f, "]: ", loop.size(), " vertices, a face needs at least 3"));
    }
    for (int32_t v : loop) {
      if (v < 0 || v >= n) {
        return absl::InvalidArgumentError(
            absl::StrCat("faces[", f, "]: index ", v, " out of range [0, ", n, ")"));
      }
      if (std::count(loop.begin(), loop.end(), v) > 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("faces[", f, "]: vertex ", v, " appears twice"));
      }
      ++uses[v];
    }
  }
  for (int v = 0; v < n; ++v) {
    if (uses[v] == 0)
      return absl::InvalidArgumentError(absl::StrCat("vertices[", v, "]: on no face"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ConvexPolytope> ConvexPolytope::Create(Points3 vertices,
                                                      std::vector<std::vector<int32_t>> faces,
                                                      const PolytopeOptions& options) {
  if (auto status = CheckSizesAndIndices(vertices, faces, options.max_vertices); !status.ok()) {
    return status;
  }
  const int n = static_cast<int>(vertices.rows());
  const int num_faces = static_cast<int>(faces.size());

  ConvexPolytope p;
  p.vertices_ = std::move(vertices);
  p.face_offsets_.assign(1, 0);
  for (const auto& loop : faces) {
    p.face_vertex_ids_.insert(p.face_vertex_ids_.end(), loop.begin(), loop.end());
    p.face_offsets_.push_back(static_cast<int32_t>(p.face_vertex_ids_.size()));
  }
  p.face_edge_ids_.assign(p.face_vertex_ids_.size(), -1);

  // Half-edges (a -> b) with the face listing them; each must be met once in each direction.
  std::unordered_map<int64_t, int32_t> half_edge_face;
  half_edge_face.reserve(p.face_vertex_ids_.size());
  for (int f = 0; f < num_faces; ++f) {
    const auto& loop = faces[f];
    for (size_t k = 0; k < loop.size(); ++k) {
      const int32_t a = loop[k], b = loop[(k + 1) % loop.size()];
      auto [it, inserted] = half_edge_face.emplace(HalfEdgeKey(a, b, n), f);
      if (!inserted) {
        return absl::InvalidArgumentError(absl::StrCat(EdgeName(a, b), ": faces[", it->second,
                                                       "] and faces[", f, "] both traverse it ", a,
                                                       " -> ", b, " (inconsistent orientation)"));
      }
    }
  }
  for (int f = 0; f < num_faces; ++f) {
    const auto& loop = faces[f];
    for (size_t k = 0; k < loop.size(); ++k) {
      const int32_t a = loop[k], b = loop[(k + 1) % loop.size()];
      const size_t slot = p.face_offsets_[f] + k;
      if (p.face_edge_ids_[slot] >= 0) continue;
      auto twin = half_edge_face.find(HalfEdgeKey(b, a, n));
      if (twin == half_edge_face.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat(EdgeName(a, b), ": on faces[", f, "] only (the surface is not closed)"));
      }
      const int32_t e = static_cast<int32_t>(p.edges_.size());
      p.edges_.push_back({a, b, f, twin->second});
      p.face_edge_ids_[slot] = e;
      const auto& twin_loop = faces[twin->second];
      for (size_t j = 0; j < twin_loop.size(); ++j) {
        if (twin_loop[j] == b && twin_loop[(j + 1) % twin_loop.size()] == a) {
          p.face_edge_ids_[p.face_offsets_[twin->second] + j] = e;
        }
      }
    }
  }
  const int euler = n - p.num_edges() + num_faces;
  if (euler != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("faces: V - E + F = ", euler, " (", n, " - ", p.num_edges(), " + ", num_faces,
                     "), a convex polytope's surface is a sphere with V - E + F = 2"));
  }

  // Fans around the vertices: face k is followed by the face across edge k = (v, next of v in
  // face k's loop), which lists that edge the other way round.
  std::vector<int32_t> first_face(n, -1), face_count(n, 0);
  for (int f = num_faces - 1; f >= 0; --f) {
    for (int32_t v : faces[f]) {
      first_face[v] = f;
      ++face_count[v];
    }
  }
  p.vertex_offsets_.assign(1, 0);
  for (int v = 0; v < n; ++v) {
    if (face_count[v] < 3) {
      return absl::InvalidArgumentError(absl::StrCat("vertices[", v, "]: on ", face_count[v],
                                                     " faces, a polytope vertex needs at least 3"));
    }
    int32_t f = first_face[v];
    int steps = 0;
    do {
      const auto loop = p.face_vertices(f);
      const size_t k = std::find(loop.begin(), loop.end(), v) - loop.begin();
      const int32_t e = p.face_edges(f)[k];
      const PolytopeEdge& edge = p.edges_[e];
      p.vertex_face_ids_.push_back(f);
      p.vertex_edge_ids_.push_back(e);
      p.vertex_neighbor_ids_.push_back(loop[(k + 1) % loop.size()]);
      f = edge.face1 == f ? edge.face2 : edge.face1;
      ++steps;
    } while (f != first_face[v] && steps <= face_count[v]);
    if (steps != face_count[v]) {
      return absl::InvalidArgumentError(
          absl::StrCat("vertices[", v, "]: its ", face_count[v],
                       " faces form more than one fan (non-manifold vertex)"));
    }
    p.vertex_offsets_.push_back(static_cast<int32_t>(p.vertex_face_ids_.size()));
  }

  // Geometry: normals, planes, convexity, all against one tolerance scaled to the body.
  const Vec3 lo = p.vertices_.colwise().minCoeff().transpose();
  const Vec3 hi = p.vertices_.colwise().maxCoeff().transpose();
  const double scale = (hi - lo).norm();
  p.tolerance_ = options.relative_tolerance * scale;
  const double tol = p.tolerance_;
  p.face_normals_.resize(num_faces, 3);
  p.face_plane_offsets_.resize(num_faces);
  for (int f = 0; f < num_faces; ++f) {
    const auto loop = p.face_vertices(f);
    Vec3 centroid = Vec3::Zero();
    for (int32_t v : loop) centroid += p.vertex(v);
    centroid /= static_cast<double>(loop.size());
    Vec3 newell = Vec3::Zero();  // twice the vector area
    for (size_t k = 0; k < loop.size(); ++k) {
      newell +=
          (p.vertex(loop[k]) - centroid).cross(p.vertex(loop[(k + 1) % loop.size()]) - centroid);
    }
    const double area = 0.5 * newell.norm();
    if (!(area > tol * scale)) {
      return absl::InvalidArgumentError(
          absl::StrCat("faces[", f, "]: degenerate (area ", area, " m^2)"));
    }
    const Vec3 normal = newell.normalized();
    p.face_normals_.row(f) = normal.transpose();
    p.face_plane_offsets_[f] = normal.dot(centroid);
    for (size_t k = 0; k < loop.size(); ++k) {
      const double off = normal.dot(p.vertex(loop[k])) - p.face_plane_offsets_[f];
      if (std::abs(off) > tol) {
        return absl::InvalidArgumentError(
            absl::StrCat("faces[", f, "]: vertex ", loop[k], " is ", off, " m off the face plane"));
      }
      const Vec3 a = p.vertex(loop[(k + 1) % loop.size()]) - p.vertex(loop[k]);
      const Vec3 b = p.vertex(loop[(k + 2) % loop.size()]) - p.vertex(loop[(k + 1) % loop.size()]);
      if (!(a.cross(b).dot(normal) > options.relative_tolerance * a.norm() * b.norm())) {
        return absl::InvalidArgumentError(
            absl::StrCat("faces[", f, "]: turns clockwise or straight at vertex ",
                         loop[(k + 1) % loop.size()], " (not a convex polygon)"));
      }
    }
  }
  for (int f = 0; f < num_faces; ++f) {
    const Vec3 normal = p.face_normal(f);
    for (int v = 0; v < n; ++v) {
      const double front = normal.dot(p.vertex(v)) - p.face_plane_offsets_[f];
      if (front > tol) {
        return absl::InvalidArgumentError(
            absl::StrCat("faces[", f, "]: vertex ", v, " is ", front,
                         " m in front of the face plane (not convex, or faces oriented inward)"));
      }
    }
  }
  for (const PolytopeEdge& e : p.edges_) {
    const Vec3 n1 = p.face_normal(e.face1), n2 = p.face_normal(e.face2);
    if (std::atan2(n1.cross(n2).norm(), n1.dot(n2)) < options.min_dihedral_turn_rad) {
      return absl::InvalidArgumentError(absl::StrCat(EdgeName(e.tail, e.head), ": faces[", e.face1,
                                                     "] and faces[", e.face2,
                                                     "] are coplanar; merge them"));
    }
  }

  p.vertex_mean_ = p.vertices_.colwise().mean().transpose();
  p.bounding_radius_ =
      (p.vertices_.rowwise() - p.vertex_mean_.transpose()).rowwise().norm().maxCoeff();
  return p;
}

Vec3 ConvexPolytope::EdgeTangent1(int e) const {
  return face_normal(edges_[e].face1).cross(EdgeVector(e)).normalized();
}

Vec3 ConvexPolytope::EdgeTangent2(int e) const {
  return EdgeVector(e).cross(face_normal(edges_[e].face2)).normalized();
}

Vec3 ConvexPolytope::EdgeOrientation(int e) const {
  const PolytopeEdge& edge = edges_[e];
  return EdgeVector(e).cross(-(face_normal(edge.face1) + face_normal(edge.face2)));
}

ConvexPolytope ConvexPolytope::Transformed(const Mat3& R, const Vec3& p) const {
  ConvexPolytope moved = *this;
  moved.vertices_ = (vertices_ * R.transpose()).rowwise() + p.transpose();
  moved.face_normals_ = face_normals_ * R.transpose();
  for (int f = 0; f < num_faces(); ++f) {
    moved.face_plane_offsets_[f] = face_plane_offsets_[f] + moved.face_normal(f).dot(p);
  }
  moved.vertex_mean_ = R * vertex_mean_ + p;
  return moved;
}

}  // namespace contactsim::core
