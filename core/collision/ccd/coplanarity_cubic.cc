#include "core/collision/ccd/coplanarity_cubic.h"

#include "core/collision/ccd/coplanarity_cubic_impl.h"

namespace contactsim::core {

QuadraticNormal VertexFaceNormalQuadratic(const PairTrajectory& trajectory) {
  return coplanarity_cubic_impl::VertexFaceNormalQuadratic(trajectory);
}

QuadraticNormal EdgeEdgeNormalQuadratic(const PairTrajectory& trajectory) {
  return coplanarity_cubic_impl::EdgeEdgeNormalQuadratic(trajectory);
}

CubicPolynomial VertexFaceCoplanarityCubic(const PairTrajectory& trajectory) {
  return coplanarity_cubic_impl::VertexFaceCoplanarityCubic(trajectory);
}

CubicPolynomial EdgeEdgeCoplanarityCubic(const PairTrajectory& trajectory) {
  return coplanarity_cubic_impl::EdgeEdgeCoplanarityCubic(trajectory);
}

}  // namespace contactsim::core
