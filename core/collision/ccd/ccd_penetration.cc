#include "core/collision/ccd/ccd_penetration.h"

#include "core/collision/ccd/coplanarity_fast_path.h"
#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/vertex_face.h"

namespace contactsim::core {
namespace {

// The penetration of a colliding pair: from the fast path's roots when it kept them (negating the
// cubic in place for EE, roots unchanged), else from the depth cubic's own roots.
Penetration PenetrationOfHit(const CcdResult& ccd, internal::CoplanarityRoots& coplanarity,
                             bool negate, CubicPolynomial (*depth_of)(const PairTrajectory&),
                             const PairTrajectory& trajectory) {
  if (!ccd.collides || ccd.status == CcdStatus::kInvalidInput) return {};
  if (!coplanarity.found) return PenetrationAtContact(depth_of(trajectory), ccd.toi);
  if (negate) {
    for (double& c : coplanarity.cubic.c) c = -c;
  }
  return PenetrationAtContact(coplanarity.cubic, coplanarity.roots, ccd.toi);
}

}  // namespace

CcdPenetration VertexFaceCcdPenetration(const PairTrajectory& trajectory,
                                        const CcdOptions& options) {
  CcdPenetration result;
  internal::CoplanarityRoots coplanarity;
  result.ccd = internal::VertexFaceCcdKeepingRoots(trajectory, options, &coplanarity);
  result.penetration = PenetrationOfHit(result.ccd, coplanarity, /*negate=*/false,
                                        &VertexFacePenetrationDepth, trajectory);
  return result;
}

CcdPenetration EdgeEdgeCcdPenetration(const PairTrajectory& trajectory, const CcdOptions& options) {
  CcdPenetration result;
  internal::CoplanarityRoots coplanarity;
  result.ccd = internal::EdgeEdgeCcdKeepingRoots(trajectory, options, &coplanarity);
  result.penetration = PenetrationOfHit(result.ccd, coplanarity, /*negate=*/true,
                                        &EdgeEdgePenetrationDepth, trajectory);
  return result;
}

}  // namespace contactsim::core
