// CCD at first contact together with the pair's penetration (penetration_intervals.h), from one
// coplanarity cubic and one root set: what the penalty pipeline needs of a new VF or EE pair.
//
// VertexFaceCcd / EdgeEdgeCcd at d = 0 decide most colliding pairs in the coplanarity fast path
// (coplanarity_fast_path.h), which builds the pair's coplanarity cubic and finds its roots in
// [0, 1]. The penetration depth delta(t) is that cubic (VF) or its negation (EE), and negating a
// cubic negates every computed value bit for bit, so its computed roots are the same numbers.
// The penetrating sign and the penetration intervals over [toi, 1] are taken from those roots
// (PenetrationAtContact) instead of two more root searches. Where the fast path did not decide
// (d > 0, the in-plane axes, the inclusion root finder) the depth cubic is built and its roots
// found once for both. The CCD answer is exactly VertexFaceCcd's / EdgeEdgeCcd's, with all their
// guarantees.
#pragma once

#include "core/collision/ccd/ccd_types.h"
#include "core/collision/ccd/penetration_intervals.h"

namespace contactsim::core {

struct CcdPenetration {
  CcdResult ccd;  // as VertexFaceCcd / EdgeEdgeCcd
  // When ccd.collides with status other than kInvalidInput: PenetrationAtContact(delta, ccd.toi)
  // (sign 0 and no intervals for coplanar motion). Otherwise sign 0 and no intervals.
  Penetration penetration;
};

CcdPenetration VertexFaceCcdPenetration(const PairTrajectory& trajectory,
                                        const CcdOptions& options = {});
CcdPenetration EdgeEdgeCcdPenetration(const PairTrajectory& trajectory,
                                      const CcdOptions& options = {});

}  // namespace contactsim::core
