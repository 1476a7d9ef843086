#include "core/sim/penalty/pair_normal_impulse.h"

#include <array>
#include <span>

#include "core/collision/proximity.h"
#include "core/contact/penalty/cpf.h"
#include "core/contact/penalty/cpf_exact.h"
#include "core/contact/penalty/dpf.h"
#include "core/sim/penalty/contact_dashpots.h"

namespace contactsim::core {

void ComputePairNormalImpulse(const WorldSettings& settings, PairWork* work) {
  const PenaltyParams params{
      .stiffness_n_per_m = settings.stiffness_n_per_m,
      .dt_s = settings.dt_s,
      .damping_n_s_per_m = settings.contact_restitution < 1.0 ? PairDashpot(settings, *work) : 0.0};
  TrackedPair& pair = work->pair;
  const bool vf = pair.key.kind == CcdPairKind::kVertexFace;
  const Vec3& w = pair.weights;
  const PairTrajectory& traj = work->trajectory;
  const std::span<const TimeInterval> spans(work->intervals.intervals.data(),
                                            work->intervals.count);
  NormalFallbackOptions fallback;
  fallback.fallback_normal = pair.normal_W;

  VertexImpulses normal_impulses = ZeroImpulses();
  switch (settings.contact_model) {
    case ContactModel::kCpf: {
      const CpfResult r = vf ? CpfVertexFace(traj, w, spans, params, fallback)
                             : CpfEdgeEdge(traj, w[0], w[1], spans, params, fallback);
      work->status = r.status;
      work->normal_impulse_on_p_n_s = r.impulse_on_p_n_s;
      normal_impulses = r.impulses_n_s;
      work->normal_t1 = r.normal_t1;
      break;
    }
    case ContactModel::kCpfExact: {
      CpfExactOptions options;
      options.fallback = fallback;
      options.quadrature.relative_tolerance = settings.cpf_exact_relative_tolerance;
      const CpfExactResult r = vf ? CpfExactVertexFace(traj, w, spans, params, options)
                                  : CpfExactEdgeEdge(traj, w[0], w[1], spans, params, options);
      work->status = r.cpf.status;
      work->converged = r.converged;
      work->normal_impulse_on_p_n_s = r.cpf.impulse_on_p_n_s;
      normal_impulses = r.cpf.impulses_n_s;
      work->normal_t1 = r.cpf.normal_t1;
      break;
    }
    case ContactModel::kDpfCcdNormal: {
      Vec3 n = PairGeometryAt(pair.key.kind, traj.x_t1, w, pair.penetrating_sign).normal;
      if (n.isZero(0.0)) n = pair.normal_W;
      if (n.isZero(0.0)) {
        work->status = PenaltyStatus::kNoNormal;
        break;
      }
      const DpfResult r = vf ? DpfVertexFaceWithNormal(traj, w, n, params)
                             : DpfEdgeEdgeWithNormal(traj, w[0], w[1], n, params);
      work->status = r.status;
      work->normal_impulse_on_p_n_s = params.dt_s * r.force_on_p_n;
      normal_impulses = r.impulses_n_s;
      work->normal_t1 = r.normal;
      break;
    }
    case ContactModel::kDpf: {
      const std::array<Vec3, 4>& x = traj.x_t1;
      DpfResult r;
      if (vf) {
        const PointTriangleProximity closest = PointTriangleClosest(x[0], x[1], x[2], x[3]);
        r = DpfVertexFace(traj, closest.weights, params, fallback);
      } else {
        const SegmentSegmentProximity closest = SegmentSegmentClosest(x[0], x[1], x[2], x[3]);
        r = DpfEdgeEdge(traj, closest.s, closest.u, params, fallback);
      }
      work->status = r.status;
      work->normal_impulse_on_p_n_s = params.dt_s * r.force_on_p_n;
      normal_impulses = r.impulses_n_s;
      work->normal_t1 = r.normal;
      break;
    }
    case ContactModel::kDpfProximity:
      break;  // no tracked pairs: the discrete scheme (discrete_penalty_pipeline.h)
  }
  if (work->status != PenaltyStatus::kOk) {
    work->normal_impulse_on_p_n_s.setZero();
    work->impulses_n_s = ZeroImpulses();
    return;
  }
  work->impulses_n_s = normal_impulses;
  if (!work->normal_t1.isZero(0.0)) pair.normal_W = work->normal_t1;
}

}  // namespace contactsim::core
