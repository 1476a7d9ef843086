#include "core/sim/penalty/pair_friction.h"

#include <array>
#include <cmath>
#include <optional>

#include "core/contact/penalty/penalty_pair.h"

namespace contactsim::core {

void CountPairFrictionShares(const PairWork& work, FrictionShares* shares) {
  if (!work.active || work.normal_impulse_on_p_n_s.isZero(0.0)) return;
  const Vec3& w = work.pair.weights;
  const bool vf = work.pair.key.kind == CcdPairKind::kVertexFace;
  const std::array<double, 4> vertex_shares =
      vf ? std::array<double, 4>{1.0, w[0], w[1], w[2]}
         : std::array<double, 4>{1.0 - w[0], w[0], 1.0 - w[1], w[1]};
  const int on_a = NumVerticesOnA(work.pair.key.kind);
  for (int side = 0; side < 2; ++side) {
    const int32_t body_index = side == 0 ? work.body_index_a : work.body_index_b;
    const int begin = side == 0 ? 0 : on_a;
    const int end = side == 0 ? on_a : 4;
    if (shares->counts_whole_body(body_index)) {
      shares->Count(body_index, 0);  // once per contact, however many of its vertices it moves
      continue;
    }
    for (int i = begin; i < end; ++i) {
      if (vertex_shares[i] != 0.0) shares->Count(body_index, work.vertices[i]);
    }
  }
}

void ComputePairFriction(const WorldSettings& settings, const FrictionShares& shares,
                         PairWork* work) {
  const double dt = settings.dt_s;
  const double normal_force_n = work->normal_impulse_on_p_n_s.norm() / dt;
  if (settings.friction.model == FrictionModel::kNone || !(normal_force_n > 0.0)) return;
  TrackedPair& pair = work->pair;
  const Vec3& w = pair.weights;
  const PairTrajectory& traj = work->trajectory;
  const std::optional<PenaltyPair> points = pair.key.kind == CcdPairKind::kVertexFace
                                                ? MakeVertexFacePair(traj, w)
                                                : MakeEdgeEdgePair(traj, w[0], w[1]);
  if (!points) return;
  const Vec3 p0 = points->p(0.0), p1 = points->p(1.0);
  const Vec3 q0 = points->q(0.0), q1 = points->q(1.0);
  const Vec3 v_slip = ((p1 - p0) - (q1 - q0)) / dt;
  const int on_a = NumVerticesOnA(pair.key.kind);
  const auto inverse_mass_along = [&](const Vec3& u) {
    double sum = 0.0;
    for (int i = 0; i < 4; ++i) {
      const int32_t body_index = i < on_a ? work->body_index_a : work->body_index_b;
      const Body& body = i < on_a ? *work->body_a->body : *work->body_b->body;
      sum += std::abs(points->distribution[i]) * body.InverseMassAlong(work->vertices[i], u) *
             shares.Share(body_index, work->vertices[i]);
    }
    return sum;
  };
  const FrictionOutcome friction =
      ComputeFriction(settings.friction, pair.friction, p1 - q1, v_slip, work->normal_t1,
                      normal_force_n, dt, inverse_mass_along);
  pair.friction = friction.state;
  work->friction_mode = friction.mode;
  work->friction_impulse_on_p_n_s = friction.impulse_n_s;
  const VertexImpulses friction_impulses = DistributeImpulse(*points, friction.impulse_n_s);
  for (int i = 0; i < 4; ++i) work->impulses_n_s[i] += friction_impulses[i];
}

}  // namespace contactsim::core
