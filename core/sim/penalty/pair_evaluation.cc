#include "core/sim/penalty/pair_evaluation.h"

#include <Eigen/Geometry>
#include <algorithm>

namespace contactsim::core {
namespace {

// An edge is flat when its two faces are coplanar: the sine of the angle between their normals
// is at most this. Rounding leaves ~1e-16 on flat meshes; a fold of 1e-6 rad departs from flat
// by 1 um per metre of face, far below penalty penetration depths, so the VF pairs of the two
// faces still carry any contact there.
constexpr double kFlatEdgeSine = 1e-6;

// True when the edge has exactly two faces whose normals at the start of the step agree within
// kFlatEdgeSine. Boundary and non-manifold edges are never flat.
bool IsFlatEdge(const Body& body, int32_t edge) {
  const TriangleMesh& mesh = body.surface();
  if (mesh.edge_face_count(edge) != 2) return false;
  const Points3& x = body.positions_t0();
  const int32_t* faces = mesh.edge_faces_begin(edge);
  Vec3 normals[2];
  for (int k = 0; k < 2; ++k) {
    const Vec3 a = x.row(mesh.faces()(faces[k], 0)).transpose();
    const Vec3 b = x.row(mesh.faces()(faces[k], 1)).transpose();
    const Vec3 c = x.row(mesh.faces()(faces[k], 2)).transpose();
    normals[k] = (b - a).cross(c - a);
  }
  const double scale = normals[0].norm() * normals[1].norm();
  return scale > 0.0 && normals[0].dot(normals[1]) > 0.0 &&
         normals[0].cross(normals[1]).norm() <= kFlatEdgeSine * scale;
}

// True when the pair's depth at the end of the step is not certainly on the side it came from:
// s delta(1) is positive or lost in delta's evaluation error bound, so the features meet at t = 1
// or have crossed by rounding. A pair that stays apart by more than rounding (came within the
// minimum separation, or CCD's tolerance, without touching) is not.
bool EndsInContact(const CubicPolynomial& depth, double penetrating_sign) {
  return penetrating_sign * depth.Evaluate(1.0) >= -depth.EvaluationErrorBound(1.0);
}

// True for a VF hit whose vertex crosses a face of an outward-wound closed body B from the face's
// back, i.e. from inside B, which it leaves there: m = (b - a) x (c - a) is the face's outward
// normal and the pair penetrates while s m . (p - q) > 0, so s > 0 puts the side the vertex came
// from behind the face. A pair started there would take the inside of B as the side to push the
// vertex back to (its normal -s m / |m| points into B) and hold it inside: chain links were pulled
// into the chain benchmark's box by such pairs, from vertices that went in through the box's top
// and out through a side (docs/validation.md). The paper's VF normal is the triangle's own
// (Eq. 12-14), whose penetrating side is always the back, so it starts no such pair either. Open
// surfaces (cloth) have no inside: the side of approach decides there, as for EE pairs, whose
// normal (the edges' common perpendicular) has no outward orientation of its own.
bool IsExitCrossing(CcdPairKind kind, bool body_b_outward_closed, double penetrating_sign) {
  return kind == CcdPairKind::kVertexFace && body_b_outward_closed && penetrating_sign > 0.0;
}

const SimBody* FindBody(std::span<SimBody> bodies, int32_t id) {
  const auto it =
      std::lower_bound(bodies.begin(), bodies.end(), id,
                       [](const SimBody& body, int32_t value) { return body.id < value; });
  return it != bodies.end() && it->id == id ? &*it : nullptr;
}

}  // namespace

void EvaluatePair(const PairCandidate& candidate, const StepInput& input,
                  std::span<const char> outward_closed, PairWork* work) {
  *work = PairWork();
  const auto prepare = [&](const PairKey& key) {
    work->body_a = FindBody(input.bodies, key.body_a);
    work->body_b = FindBody(input.bodies, key.body_b);
    if (work->body_a == nullptr || work->body_b == nullptr) return false;
    work->body_index_a = static_cast<int32_t>(work->body_a - input.bodies.data());
    work->body_index_b = static_cast<int32_t>(work->body_b - input.bodies.data());
    const Body& a = *work->body_a->body;
    const Body& b = *work->body_b->body;
    work->vertices = PairVertexIndices(key, a, b);
    work->trajectory = GatherTrajectory(key.kind, work->vertices, a, b);
    return true;
  };
  if (candidate.tracked != nullptr) {
    work->pair = *candidate.tracked;
    if (prepare(work->pair.key)) {
      const CubicPolynomial depth = PairDepthCubic(work->pair.key.kind, work->trajectory);
      work->intervals = PenetrationIntervalsOf(depth, work->pair.penetrating_sign, 0.0);
      work->active = work->intervals.count > 0;
    }
    work->dropped = !work->active;
  }
  if (!work->active && candidate.hit != nullptr) {
    const CcdHit& hit = *candidate.hit;
    if (hit.status == CcdStatus::kInvalidInput) {
      work->invalid_hit = true;
      return;
    }
    TrackedPair pair;
    pair.key = KeyOf(hit);
    pair.weights = hit.kind == CcdPairKind::kVertexFace ? hit.weights
                                                        : Vec3(hit.weights[0], hit.weights[1], 0.0);
    if (!prepare(pair.key)) return;
    if (hit.kind == CcdPairKind::kEdgeEdge && (IsFlatEdge(*work->body_a->body, hit.feature_a) ||
                                               IsFlatEdge(*work->body_b->body, hit.feature_b))) {
      work->flat_edge_hit = true;
      return;
    }
    // The sign and intervals at toi came with the hit, from the narrow phase's roots.
    pair.penetrating_sign = hit.penetration.penetrating_sign;
    if (pair.penetrating_sign == 0.0) return;  // coplanar motion: no depth is defined
    if (IsExitCrossing(hit.kind, outward_closed[work->body_index_b] != 0, pair.penetrating_sign)) {
      work->exit_hit = true;
      return;
    }
    work->intervals = hit.penetration.intervals;
    if (work->intervals.count == 0) {
      // No penetration within the step. A crossing at t = 1 (within rounding) has no interval
      // left in this step, and the next step's CCD cannot see it again once the features sit
      // on the inside: keep the pair, without an impulse, for the next step's tracked
      // evaluation from t = 0, which drops it if it does not penetrate then.
      work->deferred =
          EndsInContact(PairDepthCubic(pair.key.kind, work->trajectory), pair.penetrating_sign);
      if (work->deferred) work->pair = pair;
      return;  // otherwise it came within the separation without crossing
    }
    work->pair = pair;
    work->active = true;
    work->is_new = true;
  }
}

}  // namespace contactsim::core
