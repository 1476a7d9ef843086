#include "core/dynamics/local_global/mesh_contact_features.h"

#include <Eigen/Geometry>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dynamics/local_global/contact_geometry.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core::mesh_contact {

using contact_geometry::kParallelSine;
using contact_geometry::kSameNormal;
using contact_geometry::Row;

Vec3 FaceNormal(const Vec3& a, const Vec3& b, const Vec3& c) {
  return (b - a).cross(c - a).normalized();
}

absl::StatusOr<ObstacleFeatures> BuildObstacleFeatures(const TriangleMeshObstacle& in,
                                                       const std::string& field) {
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
  ObstacleFeatures o;
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
  return o;
}

bool ClosestFeatureIsSharp(const ObstacleFeatures& o, int32_t f, TriangleRegion region) {
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

}  // namespace contactsim::core::mesh_contact
