// The obstacle at the step start and the step-end row shared by every contact kind.
#include <Eigen/Geometry>
#include <vector>

#include "core/collision/broad_phase/aabb.h"
#include "core/dynamics/local_global/contact_geometry.h"
#include "core/dynamics/local_global/mesh_contact_kinds.h"
#include "core/dynamics/local_global/mesh_contact_obstacle.h"

namespace contactsim::core::mesh_contact {

using contact_geometry::PointsBox;
using contact_geometry::Row;

namespace {

// Rebuilds the face, feature-edge and feature-vertex trees around the posed vertices y.
void RefitObstacleTrees(const Points3& y, ObstacleFeatures* o) {
  std::vector<Aabb> obstacle_boxes(o->faces.rows());
  for (Eigen::Index f = 0; f < o->faces.rows(); ++f) {
    obstacle_boxes[f] =
        PointsBox({Row(y, o->faces(f, 0)), Row(y, o->faces(f, 1)), Row(y, o->faces(f, 2))},
                  o->half_thickness_m);
  }
  o->face_tree.Update(obstacle_boxes);
  obstacle_boxes.resize(o->feature_edges.size());
  for (size_t i = 0; i < o->feature_edges.size(); ++i) {
    const int32_t e = o->feature_edges[i];
    obstacle_boxes[i] =
        PointsBox({Row(y, o->edges(e, 0)), Row(y, o->edges(e, 1))}, o->half_thickness_m);
  }
  o->edge_tree.Update(obstacle_boxes);
  obstacle_boxes.resize(o->feature_vertices.size());
  for (size_t i = 0; i < o->feature_vertices.size(); ++i) {
    obstacle_boxes[i] = PointsBox({Row(y, o->feature_vertices[i])}, o->half_thickness_m);
  }
  o->vertex_tree.Update(obstacle_boxes);
}

// A rotating obstacle's normals turned from their rest values.
void TurnNormals(const Mat3& turn, ObstacleFeatures* o) {
  for (size_t f = 0; f < o->face_normals.size(); ++f) {
    o->face_normals[f] = turn * o->rest_face_normals[f];
  }
  for (size_t e = 0; e < o->feature_edge_normals.size(); ++e) {
    o->feature_edge_normals[e] = turn * o->rest_feature_edge_normals[e];
  }
  for (size_t v = 0; v < o->feature_vertex_normals.size(); ++v) {
    o->feature_vertex_normals[v] = turn * o->rest_feature_vertex_normals[v];
  }
}

}  // namespace

PosedObstacle PoseObstacle(int32_t k, double elapsed_s, double time_step_s, double proximity_m,
                           ObstacleFeatures* o) {
  PosedObstacle posed;
  posed.features = o;
  posed.index = k;
  const Vec3 shift = elapsed_s * o->velocity_mps;
  // The obstacle at the step start: translated, or turned about its (moved) centre.
  posed.centre = o->rotation_center_m + shift;
  bool moved = false;
  if (!o->rotating) {
    posed.y = o->vertices_m.rowwise() + shift.transpose();
    moved = shift != o->tree_shift;
  } else {
    const Mat3 turn = RotationAt(o->angular_velocity_radps, elapsed_s);
    posed.y = TurnedAbout(o->vertices_m, turn, o->rotation_center_m, posed.centre);
    moved = elapsed_s != o->tree_time_s;
    if (moved) {
      TurnNormals(turn, o);
      o->tree_time_s = elapsed_s;
    }
  }
  if (o->face_tree.empty() || moved) {
    RefitObstacleTrees(posed.y, o);
    o->tree_shift = shift;
  }
  // The non-penetration row holds against the obstacle point at the step end: offset + h n . u
  // with u the point's velocity (first order in h for a rotating obstacle, see mesh_contact.h).
  posed.time_step_s = time_step_s;
  posed.step_motion = time_step_s * o->velocity_mps;
  posed.reach_m = proximity_m + o->half_thickness_m;
  return posed;
}

void FinishContact(const PosedObstacle& posed, const Vec3& obstacle_point, VertexContact* c) {
  const ObstacleFeatures& o = *posed.features;
  c->obstacle = posed.index;
  c->friction_coefficient = o.friction_coefficient;
  TangentBasis(c->normal, &c->tangent1, &c->tangent2);
  if (!o.rotating) {
    c->obstacle_velocity_mps = o.velocity_mps;
    c->offset_m = c->normal.dot(obstacle_point + posed.step_motion) + o.half_thickness_m;
  } else {
    const Vec3 point_velocity =
        o.velocity_mps + o.angular_velocity_radps.cross(obstacle_point - posed.centre);
    c->obstacle_velocity_mps = point_velocity;
    c->offset_m =
        c->normal.dot(obstacle_point + posed.time_step_s * point_velocity) + o.half_thickness_m;
  }
}

}  // namespace contactsim::core::mesh_contact
