// PosedPolytope: a ConvexPolytope placed in the world for one step's contact queries. It keeps the
// world positions of the vertices and the world face planes (eta_f^W . x = d_f^W on face f), and
// shares the topology (indices, adjacency) with the body-frame polytope, which must outlive it.
// SetPose reuses its arrays, so a stepper can keep one per body and re-pose it every step.
#pragma once

#include "core/common/eigen_types.h"
#include "core/geometry/polytope.h"

namespace contactsim::core {

class PosedPolytope {
 public:
  // x_W = R_WB x_B + p_WB.
  PosedPolytope(const ConvexPolytope& shape, const Mat3& R_WB, const Vec3& p_WB);
  void SetPose(const Mat3& R_WB, const Vec3& p_WB);

  // Everything below is in the world frame W; indices are the shape's.
  const ConvexPolytope& shape() const { return *shape_; }
  Vec3 vertex(int v) const { return vertices_W_.row(v).transpose(); }
  Vec3 face_normal(int f) const { return face_normals_W_.row(f).transpose(); }
  double face_offset_m(int f) const { return face_offsets_[f]; }
  // All at once (n x 3 rows, F x 3 rows, F offsets), for batched plane distances.
  const Points3& vertices() const { return vertices_W_; }
  const Points3& face_normals() const { return face_normals_W_; }
  const Eigen::VectorXd& face_offsets_m() const { return face_offsets_; }
  Vec3 edge_vector(int e) const {
    return vertex(shape_->edge(e).head) - vertex(shape_->edge(e).tail);
  }
  // The paper's edge vectors t1, t2, O_e (polytope.h).
  Vec3 EdgeTangent1(int e) const;
  Vec3 EdgeTangent2(int e) const;
  Vec3 EdgeOrientation(int e) const;

  // Bounding sphere in the world: centre (the vertex mean) and radius [m].
  const Vec3& center_m() const { return center_W_; }
  double bounding_radius_m() const { return shape_->bounding_radius_m(); }

 private:
  const ConvexPolytope* shape_;
  Points3 vertices_W_;
  Points3 face_normals_W_;
  Eigen::VectorXd face_offsets_;
  Vec3 center_W_ = Vec3::Zero();
};

}  // namespace contactsim::core
