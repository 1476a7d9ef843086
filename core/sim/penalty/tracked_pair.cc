#include "core/sim/penalty/tracked_pair.h"

#include <Eigen/Geometry>

#include "core/collision/ccd/penetration_intervals.h"

namespace contactsim::core {

PairKey KeyOf(const CcdHit& hit) {
  return PairKey{hit.kind, hit.body_a, hit.feature_a, hit.body_b, hit.feature_b};
}

std::array<int32_t, 4> PairVertexIndices(const PairKey& key, const Body& body_a,
                                         const Body& body_b) {
  if (key.kind == CcdPairKind::kVertexFace) {
    const IndexTriples& faces = body_b.surface().faces();
    return {key.feature_a, faces(key.feature_b, 0), faces(key.feature_b, 1),
            faces(key.feature_b, 2)};
  }
  const IndexPairs& edges_a = body_a.surface().edges();
  const IndexPairs& edges_b = body_b.surface().edges();
  return {edges_a(key.feature_a, 0), edges_a(key.feature_a, 1), edges_b(key.feature_b, 0),
          edges_b(key.feature_b, 1)};
}

PairTrajectory GatherTrajectory(CcdPairKind kind, const std::array<int32_t, 4>& vertices,
                                const Body& body_a, const Body& body_b) {
  PairTrajectory trajectory;
  const int on_a = NumVerticesOnA(kind);
  for (int i = 0; i < 4; ++i) {
    const Body& body = i < on_a ? body_a : body_b;
    trajectory.x_t0[i] = body.positions_t0().row(vertices[i]).transpose();
    trajectory.x_t1[i] = body.positions_t1().row(vertices[i]).transpose();
  }
  return trajectory;
}

CubicPolynomial PairDepthCubic(CcdPairKind kind, const PairTrajectory& trajectory) {
  return kind == CcdPairKind::kVertexFace ? VertexFacePenetrationDepth(trajectory)
                                          : EdgeEdgePenetrationDepth(trajectory);
}

PairGeometry PairGeometryAt(CcdPairKind kind, const std::array<Vec3, 4>& x, const Vec3& weights,
                            double penetrating_sign) {
  PairGeometry g;
  Vec3 m;
  if (kind == CcdPairKind::kVertexFace) {
    g.p = x[0];
    g.q = weights[0] * x[1] + weights[1] * x[2] + weights[2] * x[3];
    m = (x[2] - x[1]).cross(x[3] - x[1]);
  } else {
    g.p = x[0] + weights[0] * (x[1] - x[0]);
    g.q = x[2] + weights[1] * (x[3] - x[2]);
    m = (x[1] - x[0]).cross(x[3] - x[2]);
  }
  const double length = m.norm();
  if (length > 0.0) {
    g.normal = (-penetrating_sign / length) * m;
    g.depth_m = g.normal.dot(g.q - g.p);
  }
  return g;
}

}  // namespace contactsim::core
