#include "core/collision/polytope/posed_polytope.h"

#include <Eigen/Geometry>
namespace contactsim::core {

PosedPolytope::PosedPolytope(const ConvexPolytope& shape, const Mat3& R_WB, const Vec3& p_WB)
    : shape_(&shape) {
  SetPose(R_WB, p_WB);
}

void PosedPolytope::SetPose(const Mat3& R_WB, const Vec3& p_WB) {
  vertices_W_.noalias() = shape_->vertices() * R_WB.transpose();
  vertices_W_.rowwise() += p_WB.transpose();
  face_normals_W_.noalias() = shape_->face_normals() * R_WB.transpose();
  face_offsets_.resize(shape_->num_faces());
  for (int f = 0; f < shape_->num_faces(); ++f) {
    face_offsets_[f] = shape_->face_offset_m(f) + face_normal(f).dot(p_WB);
  }
  center_W_ = R_WB * shape_->vertex_mean_m() + p_WB;
}

Vec3 PosedPolytope::EdgeTangent1(int e) const {
  return face_normal(shape_->edge(e).face1).cross(edge_vector(e)).normalized();
}

Vec3 PosedPolytope::EdgeTangent2(int e) const {
  return edge_vector(e).cross(face_normal(shape_->edge(e).face2)).normalized();
}

Vec3 PosedPolytope::EdgeOrientation(int e) const {
  const PolytopeEdge& edge = shape_->edge(e);
  return edge_vector(e).cross(-(face_normal(edge.face1) + face_normal(edge.face2)));
}

}  // namespace contactsim::core
