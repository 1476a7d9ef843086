// A vertex-face (VF) or edge-edge (EE) feature pair tracked by the penalty pipeline from its first
// time of contact until its penetration depth returns to zero (Tang et al. 2012, Sec. 3.2).
//
// At first contact CCD gives the collision points as fixed weights (VF: q = wa a + wb b + wc c on
// the face, p the vertex; EE: p = a + s (b - a), q = c + u (d - c)), and the penetrating sign
// s = +-1 (penetration_intervals.h): with m = e0 x e1 (VF: (b - a) x (c - a); EE: (b - a) x
// (d - c)) the pair's depth cubic is delta(t) = m(t) . (p(t) - q(t)) [m^3], and the pair
// penetrates while s delta(t) > 0. Both stay fixed while the pair is tracked. At any positions,
//   unit normal from B towards A:   n = -s m / |m|
//   penetration depth:             d = n . (q - p)   [m]   (> 0 while penetrating)
// The pair is keyed by (kind, body_a, feature_a, body_b, feature_b): VF (vertex of A, face of B),
// EE (edge of A, edge of B), ordered like the CCD hits, so a sorted table merges with each step's
// sorted hits.
#pragma once

#include <array>
#include <compare>
#include <cstdint>

#include "core/collision/ccd/ccd_types.h"
#include "core/collision/ccd_sweep.h"
#include "core/common/eigen_types.h"
#include "core/contact/friction/yamane_nakamura.h"
#include "core/dynamics/body.h"
#include "core/math/cubic.h"

namespace contactsim::core {

struct PairKey {
  CcdPairKind kind = CcdPairKind::kVertexFace;
  int32_t body_a = 0;
  int32_t feature_a = 0;  // VF: vertex; EE: edge
  int32_t body_b = 0;
  int32_t feature_b = 0;  // VF: face; EE: edge

  friend bool operator==(const PairKey&, const PairKey&) = default;
  friend auto operator<=>(const PairKey&, const PairKey&) = default;
};

PairKey KeyOf(const CcdHit& hit);

struct TrackedPair {
  PairKey key;
  Vec3 weights = Vec3::Zero();    // fixed at first contact: VF (wa, wb, wc), EE (s, u, 0)
  double penetrating_sign = 1.0;  // s
  // Last unit normal from B towards A: the fallback when the pair's m degenerates.
  Vec3 normal_W = Vec3::Zero();
  FrictionContactState friction;  // persists with the pair, dropped with it
};

// The pair's four vertex indices in PairTrajectory order (VF {p, a, b, c}, EE {a, b, c, d}); the
// first NumVerticesOnA(kind) belong to body A, the rest to body B.
std::array<int32_t, 4> PairVertexIndices(const PairKey& key, const Body& body_a,
                                         const Body& body_b);
inline int NumVerticesOnA(CcdPairKind kind) { return kind == CcdPairKind::kVertexFace ? 1 : 2; }

// The four points at the start and predicted end of the step.
PairTrajectory GatherTrajectory(CcdPairKind kind, const std::array<int32_t, 4>& vertices,
                                const Body& body_a, const Body& body_b);

// delta(t) = m(t) . (p(t) - q(t)) on the trajectory [m^3].
CubicPolynomial PairDepthCubic(CcdPairKind kind, const PairTrajectory& trajectory);

struct PairGeometry {
  Vec3 p = Vec3::Zero();       // collision point on A [m]
  Vec3 q = Vec3::Zero();       // collision point on B [m]
  Vec3 normal = Vec3::Zero();  // -s m / |m|, unit; zero when m = 0
  double depth_m = 0.0;        // normal . (q - p) [m]; 0 when m = 0
};

// The geometry at four point positions x (PairTrajectory order) with the pair's fixed weights
// and sign.
PairGeometry PairGeometryAt(CcdPairKind kind, const std::array<Vec3, 4>& x, const Vec3& weights,
                            double penetrating_sign);

}  // namespace contactsim::core
