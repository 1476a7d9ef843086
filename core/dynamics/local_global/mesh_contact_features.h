// The sharp features of one triangle-mesh obstacle (mesh_contact.h): face normals, feature
// (convex sharp or boundary) edges and vertices with their outward normals, and the
// bounding-volume hierarchies over them, as MeshContactDetector keeps them between steps.
// Feature rules are those of mesh_contact.h ("Feature edges are ...", two-sided obstacles).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/collision/broad_phase/bvh.h"
#include "core/collision/proximity.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/local_global/mesh_contact_obstacle.h"

namespace contactsim::core::mesh_contact {

struct ObstacleFeatures {
  Points3 vertices_m;
  IndexTriples faces;
  IndexPairs edges;
  Vec3 velocity_mps = Vec3::Zero();
  double friction_coefficient = 0.0;
  bool rotating = false;  // angular velocity != 0
  Vec3 angular_velocity_radps = Vec3::Zero();
  Vec3 rotation_center_m = Vec3::Zero();
  bool two_sided = false;
  double half_thickness_m = 0.0;
  // Face and feature-edge normals where the trees are (rotating: posed per step; the others
  // never change them).
  std::vector<Vec3> face_normals;
  std::vector<int32_t> feature_edges;                              // edge ids
  std::vector<Vec3> feature_edge_normals;                          // outward, per feature edge
  std::vector<Vec3> rest_face_normals, rest_feature_edge_normals;  // rotating: at time 0
  std::vector<int32_t> feature_vertices;                           // vertex ids
  // Per feature vertex: the sum of its faces' normals, normalized (its outward direction on a
  // closed obstacle; orients triangle-vertex normals against an open body).
  std::vector<Vec3> feature_vertex_normals;
  std::vector<Vec3> rest_feature_vertex_normals;  // rotating: at time 0
  IndexTriples face_edges;                        // edge ids of (x0x1, x1x2, x2x0) per face
  std::vector<bool> is_feature_edge, is_feature_vertex;
  Bvh face_tree, edge_tree, vertex_tree;
  Vec3 tree_shift = Vec3::Zero();  // displacement the trees were built at
  double tree_time_s = -1.0;       // rotating: time the trees and normals were posed at
};

// Validates one obstacle (errors name `field`, e.g. "mesh_obstacles[2]") and finds its
// features; the trees are built by the first Detect.
absl::StatusOr<ObstacleFeatures> BuildObstacleFeatures(const TriangleMeshObstacle& in,
                                                       const std::string& field);

// The unit normal of the triangle (a, b, c), counter-clockwise seen from its front.
Vec3 FaceNormal(const Vec3& a, const Vec3& b, const Vec3& c);

// Whether the edge or vertex of face f holding a closest point is a feature (sharp) one.
bool ClosestFeatureIsSharp(const ObstacleFeatures& o, int32_t f, TriangleRegion region);

}  // namespace contactsim::core::mesh_contact
